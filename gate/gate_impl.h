/* Internals of the gate module shared by gate/gate.c (configuration, runs,
 * summary) and gate/report.c (JUnit, Markdown, HTML, figures). */
#ifndef NNC_GATE_IMPL_H
#define NNC_GATE_IMPL_H

#include "nncert/gate.h"
#include "nncert/verifier.h"

#include <time.h>

typedef enum gate_kind { GATE_VERIFY = 0, GATE_GROTH16 = 1, GATE_BASELINE = 2 } gate_kind;

/* The verify options a check may name beyond the gate's own fields. */
#define GATE_MAX_OPTS 8
/* Files a check names: verify 2, with a trace 3; groth16 3, with a model up to 7. */
#define GATE_MAX_FILES 7
/* Columns of a sweep row (gate_row.sweep). */
#define GATE_SWEEP_COLS 7

/* One check as the configuration lists it. */
typedef struct gate_check {
    char *name;
    gate_kind kind;                 /* GATE_VERIFY or GATE_GROTH16 */
    char *raw[GATE_MAX_FILES];      /* paths as written: model, spec / vk or zkey, public, proof[, model,
                                       [input], [calib], ptau] (NULL where absent) */
    char *path[GATE_MAX_FILES];     /* the same, resolved against the config's folder */
    int bits;                       /* groth16 with a model: its quantisation (default 8) */
    int priv;                       /* groth16 with a model: what the circuit keeps private
                                       (nnc_prv_zk_privacy; default the input) */
    int zkey;                       /* groth16: raw[0] is a proving key (.zkey), not a vk */
    uint64_t trace_sample;          /* verify with a trace (raw[2]): its sample, 1-based (default 1) */
    int64_t row;                    /* verify: a sample of a declared batch, or -1 */
    double max_violation;           /* in [0, 1] */
    double confidence;              /* in (0, 1) */
    double timeout_s;
    uint64_t samples, seed, max_leaves;
    int split;                      /* branch and bound over the input box (default 1) */
    int crown;                      /* 1 linear bounds (default), 0 intervals only */
    int sweep_points;               /* 0: no sweep; else 2 .. NNC_GATE_MAX_SWEEP */
    double sweep_lo, sweep_hi;      /* L-inf radii, 0 <= lo <= hi */
    double clip_lo, clip_hi;        /* box clipping (-inf, inf when absent) */
    nnc_vrf_opts vopts;             /* the run's other options (threads, alpha_iters, relu_split, ...):
                                       defaults, then those the config names (nnc_vrf_opts_set) */
    int nopt;                       /* how many it names, */
    char *opt_key[GATE_MAX_OPTS];   /* ... their keys as written */
    char *opt_val[GATE_MAX_OPTS];   /* ... and values, as nnc_vrf_opts_set reads them */
} gate_check;

struct nnc_gate_config {
    char *name;                     /* test-suite name */
    char *config_name;              /* as given to read_file */
    uint8_t sha256[32];             /* of the configuration's bytes */
    uint64_t seed;
    char *baseline;                 /* resolved path, or NULL */
    double tolerance;               /* allowed rise of the violation upper bound */
    int n;
    gate_check *checks;
};

/* A file a row depends on, hashed before use. */
typedef struct gate_file {
    const char *role;               /* "model", "spec", "trace", "verification_key" or "proving_key",
                                       "public", "proof", "input", "calib", "ptau" */
    const char *path;               /* as written in the config */
    uint8_t sha256[32];
    int hashed;                     /* 0: unreadable */
} gate_file;

/* One result row: a check, or the baseline comparison of a verify check. */
struct gate_row {
    char *name;
    gate_kind kind;
    const gate_check *chk;          /* the configured check (baseline rows: the compared one) */
    nnc_gate_status status;
    nnc_status error;               /* with NNC_GATE_ERROR: the cause */
    char message[NNC_ERRBUF_SIZE];
    double time_s;
    int nfiles;
    gate_file files[GATE_MAX_FILES];
    /* verify */
    int has_report;
    nnc_vrf_result result;
    double lo, hi, confidence, safe, unsafe, open;
    uint64_t samples, sample_violations, leaves;
    int has_cex;                    /* a validated counterexample (kept even where the check passes) */
    int cex_case, n_in, n_out;
    double *cex_in, *cex_out;       /* n_in and n_out values, or NULL */
    int nsweep;                     /* points computed */
    double *sweep;                  /* nsweep x GATE_SWEEP_COLS: eps, lo, hi, safe, unsafe, open, result */
    /* baseline */
    int has_base;
    double base_hi;
    char differ[256];               /* the settings that differ from the baseline's run ("" none) */
};

struct nnc_gate_run {
    const nnc_gate_config *cfg;     /* must outlive the run */
    char *baseline_path;            /* as given, or NULL */
    uint8_t baseline_sha256[32];
    double tolerance;
    int n;
    struct gate_row *rows;
    time_t started;                 /* wall clock at the start (JUnit timestamp) */
};

typedef struct gate_row gate_row;

/* Shortest decimal text that reads back as v (JSON number; -0 as 0). */
void nnc_gate_fmt_num(char *buf, size_t len, double v);
/* Escape for XML/HTML text and attribute values (&, <, >, ", '); control
 * characters other than tab and newline, invalid in XML 1.0, become '?'. */
void nnc_gate_xml_escape(FILE *f, const char *s);

#endif
