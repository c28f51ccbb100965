/* nncert verifier module: the quantitative robustness verifier.
 *
 * For a model f and a spec (nncert/spec.h), it bounds the violation fraction
 *   p = vol{ x in box : f(x) in the unsafe set } / vol(box)
 * soundly:
 *   1. branch and bound splits the box; each leaf is certified SAFE (sound
 *      linear bounds show no point can reach the unsafe set), certified
 *      UNSAFE (every point reaches it), or left OPEN.  A leaf CROWN leaves
 *      open gets optimised relaxation slopes (alpha-CROWN) and, with many
 *      inputs, a branch and bound over ReLU splits (pre-activation >= 0 or
 *      <= 0).  ReLU splits never divide the input box into measurable
 *      pieces: they certify a whole input leaf SAFE when every ReLU
 *      sub-problem is certified or empty, and otherwise nothing, so the
 *      certified volumes are always unions of whole input leaves;
 *   2. after splitting has stopped, a fresh uniform sample of the union of
 *      the open leaves (Philox4x32-10 streams keyed by the seed) is evaluated;
 *   3. p lies in [(V_unsafe + V_open * q_lo) / V, (V_unsafe + V_open * q_hi) / V]
 *      where [q_lo, q_hi] is the exact Clopper-Pearson interval of the open
 *      part's violation rate at the requested confidence (computed with
 *      MPFR), and the certified volumes are exact (GMP rationals).
 * The sample size is fixed before sampling starts and nothing the sample
 * shows changes when it stops, so the interval has its stated coverage.
 * Several cases (a disjunction of input boxes) are treated as disjoint boxes:
 * p is then the violated volume over the summed volume, and each case's
 * interval is taken at confidence 1 - (1 - C) / cases (union bound).
 *
 * A counterexample is reported only after concrete re-evaluation in float64
 * and float32 shows a violation in both.
 *
 * Prepare the model with nnc_prepare_opts.fold_batchnorm = 0: folding
 * BatchNormalization rounds products of weights, which makes a (slightly)
 * different model from the stored one; unfolded, BatchNormalization has its
 * own bound transformer with the rounding of its coefficients accounted for.
 *
 * Prefix nnc_vrf_.  A run uses no global state; several may run at once on
 * different threads with the same (prepared, read-only) model and spec. */
#ifndef NNC_VERIFIER_H
#define NNC_VERIFIER_H

#include "nncert/nnc.h"
#include "nncert/team.h"
#include "nncert/model.h"
#include "nncert/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nnc_vrf_result {
    NNC_VRF_HOLDS = 0,    /* every case certified safe */
    NNC_VRF_VIOLATED = 1, /* a validated counterexample exists */
    NNC_VRF_UNKNOWN = 2
} nnc_vrf_result;

/* Where the sampling stage runs.  The GPU takes models that are chains of
 * dense layers (Gemm/MatMul, bias Add, Relu); it draws the same Philox points
 * and keeps every verdict equal to the CPU's float64 one, so the report is
 * the same (verifier/sample_impl.h). */
enum { NNC_VRF_DEVICE_CPU = 0, NNC_VRF_DEVICE_GPU = 1 };

/* A progress report (nnc_vrf_opts.progress): at a phase change (at most ten
 * a second) and every NNC_VRF_PROGRESS_S seconds while leaves, ReLU splits
 * or samples are processed (not inside one optimisation pass of alpha);
 * always from the calling thread, the workers' leaves reporting through
 * it. */
#define NNC_VRF_PROGRESS_S 0.5
typedef struct nnc_vrf_progress {
    uint64_t leaves, open_leaves;
    double certified_fraction; /* safe + unsafe volume so far, of the total */
    uint64_t samples_done, samples_total;
    double elapsed_s;
    /* "falsification", "bounds", "alpha", "relu-split", "exact" or
     * "sampling" (a static string) */
    const char *phase;
    uint64_t relu_split_nodes; /* ReLU-split sub-problems so far, of the leaves
                                  the calling thread bounded */
} nnc_vrf_progress;

/* An option nncert can choose itself (nnc_vrf_opts.relu_split, .exact);
 * NNC_VRF_AUTO also stands for "auto" in the counts that take it
 * (alpha_iters, relu_split_batch, split_lookahead). */
typedef enum nnc_vrf_switch {
    NNC_VRF_AUTO = -1, /* nncert decides (the default) */
    NNC_VRF_OFF = 0,
    NNC_VRF_ON = 1
} nnc_vrf_switch;

/* The symbolic engine's use (nnc_vrf_opts.symbolic). */
typedef enum nnc_vrf_symbolic {
    NNC_VRF_SYMBOLIC_AUTO = -1,    /* own, then cascade (see the field) */
    NNC_VRF_SYMBOLIC_OFF = 0,      /* never */
    NNC_VRF_SYMBOLIC_CASCADE = 1,  /* symbolic bounds first, CROWN's split choices */
    NNC_VRF_SYMBOLIC_OWN = 2       /* the symbolic engine's own refined bounds and splits */
} nnc_vrf_symbolic;

typedef struct nnc_vrf_opts {
    uint64_t samples;        /* uniform samples of the open region (default 10000) */
    double confidence;       /* of the Clopper-Pearson interval (default 0.999) */
    double timeout_s;        /* wall-clock budget of branch and bound (default 60) */
    uint64_t seed;           /* Philox key (default 1) */
    double max_violation;    /* gate threshold; < 0: none (default -1) */
    uint64_t max_leaves;     /* branch-and-bound budget (default 200000) */
    int crown;               /* 1: linear bounds (default), 0: intervals only */
    int split;               /* 1: branch and bound (default), 0: bound the box once */
    int stop_on_counterexample; /* 1: end branch and bound at the first validated
                                   counterexample (the interval stays valid, wider) */
    int alpha_iters;         /* optimised relaxation slopes (alpha-CROWN) on leaves
                                CROWN leaves open: steps per objective; 0 off; NNC_VRF_AUTO
                                (the default: 8 with inputs > NNC_VRF_RELU_SPLIT_MIN_INPUTS,
                                else 0) */
    nnc_vrf_switch relu_split; /* ReLU-split branch and bound on open input leaves:
                                NNC_VRF_AUTO (inputs > NNC_VRF_RELU_SPLIT_MIN_INPUTS, the
                                default), NNC_VRF_OFF never, NNC_VRF_ON always */
    int relu_split_batch;    /* models that are chains of dense layers with a ReLU after
                                each but the last: the ReLU splits bound this many
                                sub-problems per round as one batched beta-CROWN
                                (verifier/babdense.c), each with 20 optimisation steps
                                (alpha_iters when set); NNC_VRF_AUTO (the default: 256);
                                0: one sub-problem per thread at a time, as for other
                                models (verifier/relusplit.c); at most
                                NNC_VRF_RELU_SPLIT_BATCH_MAX */
    nnc_vrf_symbolic symbolic; /* dense ReLU chains with at most NNC_VRF_RELU_SPLIT_MIN_INPUTS
                                inputs: leaves first bounded by forward symbolic intervals
                                (verifier/symfwd_impl.h), CROWN only where those leave the
                                leaf open.  NNC_VRF_SYMBOLIC_OFF never; _CASCADE (CROWN's
                                split choices); _OWN the symbolic engine's own refined
                                bounds and splits; _AUTO (the default): _OWN for half of
                                each case's time, then, if the case is not decided,
                                _CASCADE from where _OWN stopped
                                (its certified volume and open leaves are kept); with
                                split_lookahead auto, first short trials from the root,
                                kept only if they decide the case: _OWN with the look-ahead
                                split choice, then _OWN and _CASCADE with the plain one
                                (see verify.c) */
    int split_lookahead;     /* with the symbolic engine: the input dimension to split is
                                chosen among this many (the best by influence score) by
                                the cheap symbolic bound of both children (the worse
                                child's margin), at leaves where the influence score does
                                not decide clearly (best below 5 times the second);
                                0 or 1 off; NNC_VRF_AUTO (the default: 3) */
    nnc_vrf_switch exact;    /* with the symbolic engine: open leaves with at most
                                NNC_VRF_EXACT_MAX_UNSTABLE unstable ReLUs are decided
                                exactly by enumerating their activation patterns, each
                                step a checked LP certificate (verifier/exact_impl.h),
                                within NNC_VRF_EXACT_LPS linear programs a leaf;
                                NNC_VRF_AUTO (the default) or NNC_VRF_ON: on; NNC_VRF_OFF */
    uint64_t symbolic_own_leaves; /* symbolic auto: the first (2) phase also ends after
                                     this many leaves; 0 (the default): time only */
    int threads;             /* branch-and-bound worker threads: batches of the leaves
                                next in the queue are bounded in parallel and merged in
                                queue order, so a given thread count always gives the
                                same report; <= 0: NNC_VRF_THREADS_DEFAULT (the default) */
    int device;              /* NNC_VRF_DEVICE_CPU (default) or NNC_VRF_DEVICE_GPU: where
                                the sampling stage draws and evaluates (same report) */
    const double *box_lo, *box_hi; /* NULL, or a box replacing the spec's (one-case
                                      specs only; used by the epsilon sweep) */
    /* NULL (the default): this process alone.  Else the ranks that run this
     * verification together (mpirun -np R; dist/dist.h), every rank calling
     * nnc_vrf_run with the same model, spec and options: each holds the same
     * queue and bounds its share of every batch of leaves (the leaves of
     * threads rank*T .. rank*T+T-1 of R*T, with T = threads), the batch's
     * outcomes are exchanged, and the sampling stage's samples are split
     * into R ranges of Philox counters.  The report is then the report of
     * one process with threads = R*T, times (and "ranks") aside: the same
     * leaves, verdicts, samples and counterexample, wherever the search
     * stops on a leaf budget rather than on time.  Time decisions (the
     * deadline, phase ends) use the slowest rank's clock, so the ranks
     * always agree.  ReLU-split sub-problems of a batch of one leaf run on
     * rank 0's threads (not yet spread across ranks). */
    const nnc_team *team;
    void (*progress)(void *ctx, const nnc_vrf_progress *p); /* may be NULL */
    void *progress_ctx;
} nnc_vrf_opts;

/* The largest opts.relu_split_batch (the round's buffers grow with it). */
#define NNC_VRF_RELU_SPLIT_BATCH_MAX 4096

/* With more inputs than this, splitting the input box stalls: open leaves
 * first get a ReLU-split branch and bound (relu_split = -1). */
#define NNC_VRF_RELU_SPLIT_MIN_INPUTS 16

/* The exact leaf decision (opts.exact): leaves with at most this many
 * unstable ReLUs (by their stored bounds), at most this many linear programs
 * each.  ACAS Xu prop_2, 116 s limit: 4_2 holds in 56 s and 3_3 in 33 s
 * (both open before); 25 unstable leaves 4_2 open (its tree grows past 10^5
 * leaves), 80 spends the time on leaves it cannot decide. */
#define NNC_VRF_EXACT_MAX_UNSTABLE 40
#define NNC_VRF_EXACT_LPS 20000
/* ... and only where the float64 margin at the leaf's centre is below this
 * many times its bound's deficit (elsewhere splitting closes it for less):
 * ACAS Xu 1_1 prop_3 15.3 -> 5.9 s, 1_1 prop_5 5.4 -> 2.2 s, 2_1 prop_3 0.8
 * -> 2.5 s, 4_2 prop_2 38 -> 34 s; 0.5 leaves 4_2 prop_2 open, 4 is no better. */
#define NNC_VRF_EXACT_KAPPA 2.0

/* Worker threads of branch and bound by default: fixed (not the machine's
 * core count) so that reports are the same on every machine. */
#define NNC_VRF_THREADS_DEFAULT 2

NNC_API void nnc_vrf_opts_default(nnc_vrf_opts *o);

/* The "format" of the JSON report (nnc_vrf_report_write_json); its fields
 * are described by schema/verify-report.schema.json.  A change that removes
 * or redefines a field bumps the number. */
#define NNC_VRF_REPORT_FORMAT "nncert-verify-report-1"

typedef struct nnc_vrf_report {
    nnc_vrf_result result;
    double violation_lo, violation_hi; /* outward-rounded bounds of p */
    double confidence;
    double certified_safe_fraction;    /* exact volume, rounded down */
    double certified_unsafe_fraction;  /* exact volume, rounded down */
    double open_fraction;              /* rounded up */
    uint64_t samples, sample_violations;
    uint64_t leaves, leaves_safe, leaves_unsafe, leaves_open;
    uint64_t relu_split_nodes;         /* sub-problems of the ReLU-split branch and
                                          bound, over all leaves */
    int max_violation_met;             /* with max_violation >= 0: 1 upper <= max,
                                          0 lower > max, -1 undecided */
    int has_counterexample;
    int counterexample_case;
    double *cex_input;                 /* n_in values (owned), or NULL */
    double *cex_output;                /* n_out values (owned), or NULL */
    int n_in, n_out;
    double time_s;
    int ranks;                         /* processes that ran it (opts.team), 1 alone */
    uint64_t seed;
    uint8_t model_sha256[32];
} nnc_vrf_report;

/* Run the verifier.
 * Returns: OK (the report is filled, whatever the result), UNSUPPORTED (an
 *   operator without a sound transformer, extra linear input constraints),
 *   INVALID (spec and model dimensions differ), ARG (bad options), NOMEM.
 * Out: *rep, released with nnc_vrf_report_clear. */
NNC_API nnc_status nnc_vrf_run(const nnc_model *m, const nnc_spec *spec, const nnc_vrf_opts *o, nnc_vrf_report *rep,
                               char *err, size_t errlen);
NNC_API void nnc_vrf_report_clear(nnc_vrf_report *rep);

/* Write the report as JSON (fields of DESIGN.md).  Returns IO on write error. */
NNC_API nnc_status nnc_vrf_report_write_json(FILE *f, const nnc_vrf_report *rep, char *err, size_t errlen);

/* Write an SVG plot of violation-fraction bounds against epsilon: the band
 * [lo, hi] shaded, its edges drawn (upper solid, lower dashed, with a
 * legend), a marker on both edges of each point coloured by res[i] (holds,
 * violated, unknown; res NULL: no markers), axes with ticks at 1-2-5
 * steps.  n points, eps ascending. */
NNC_API nnc_status nnc_vrf_svg_sweep(FILE *f, const char *title, const double *eps, const double *lo, const double *hi,
                                     const nnc_vrf_result *res, int n, char *err, size_t errlen);
/* A tick step for such plots' axes: 1, 2 or 5 times a power of ten, giving
 * at most `most` intervals over [0, span] (span > 0). */
NNC_API double nnc_vrf_svg_tick_step(double span, int most);

/* Returns: "holds", "violated" or "unknown". */
NNC_API const char *nnc_vrf_result_name(nnc_vrf_result r);

/* Exact Clopper-Pearson interval of k successes in n trials (see stats.c). */
NNC_API nnc_status nnc_vrf_clopper_pearson(uint64_t k, uint64_t n, double confidence, double *lo, double *hi, char *err,
                                           size_t errlen);

/* Sound interval bounds of a DLRM's output (verifier/dlrm_bounds.c): the
 * categorical inputs fixed to ids[i] (one array per integer graph input, in
 * input order, with the input's per-sample element count), the float input
 * in the box [lo, hi].  Bounds hold in exact real arithmetic on the stored
 * weights, through the pairwise dot-product interaction.
 * Out: out_lo/out_hi, the output's per-sample element count each.
 * Returns: OK; UNSUPPORTED naming an operator without a transformer; the
 * loader's codes. */
NNC_API nnc_status nnc_vrf_dlrm_bounds(const char *path, const int64_t *const *ids, const double *lo, const double *hi,
                                       double *out_lo, double *out_hi, char *err, size_t errlen);

/* Sound bounds of every output of a prepared model with one float input
 * over the box [lo, hi], through the verifier's bound engine
 * (verifier/bounds.c; verifier/dlrm_bounds.c): linear = 0 interval bounds,
 * 1 linear (CROWN) bounds, each output bounded by back-substitution of
 * +out_j and -out_j and kept inside its interval.  A DLRM qualifies once
 * its ids are fixed (nnc_mdl_embbag_fix_ids): the embedding bags are then
 * constants and the interaction a product of bounded operands (McCormick
 * planes, verifier/bilinear_impl.h).
 * Out: out_lo/out_hi, the output's per-sample element count each.
 * Returns: OK; UNSUPPORTED naming an operator without a transformer, or a
 * model with other than one input and one output; NOMEM. */
NNC_API nnc_status nnc_vrf_output_bounds(const nnc_model *m, const double *lo, const double *hi, int linear,
                                         double *out_lo, double *out_hi, char *err, size_t errlen);

/* ---- by name: for the CLI and language bindings (verifier/api.c) ----
 * The verify and bounds commands and the Python package (python/nncert)
 * call these, so they give the same answers. */

/* Load and prepare MODEL for the verifier (BatchNormalization unfolded, see
 * above).  Out: *out (nnc_mdl_destroy).  Returns the loader's codes. */
NNC_API nnc_status nnc_vrf_load_model(nnc_model **out, const char *path, char *err, size_t errlen);

/* Options with their defaults (NULL: no memory), for callers that cannot
 * hold the struct; released with nnc_vrf_opts_destroy. */
NNC_API nnc_vrf_opts *nnc_vrf_opts_new(void);
NNC_API void nnc_vrf_opts_destroy(nnc_vrf_opts *o);
/* Set the option `name`, the verify command's long option without its
 * dashes ('_' or '-' between words): samples, seed, max-leaves, threads,
 * alpha-iters, relu-split-batch, relu-split, exact, symbolic, confidence,
 * timeout, max-violation, device, with the values the command takes; and
 * split, ibp, stop-on-counterexample with on/off (true/false, 1/0).
 * Returns OK; ARG naming an unknown option or a bad value (o unchanged
 * but for that field). */
NNC_API nnc_status nnc_vrf_opts_set(nnc_vrf_opts *o, const char *name, const char *value, char *err, size_t errlen);
/* Options that contradict each other or would do nothing (the verify
 * command's refusals, by the names above): ibp with alpha_iters > 0 or with
 * relu_split on, split off with relu_split on, relu_split_batch with
 * relu_split off.  Returns OK, or ARG naming both. */
NNC_API nnc_status nnc_vrf_opts_clash(const nnc_vrf_opts *o, char *err, size_t errlen);
/* Run the verifier on the VNN-LIB file spec_path and give the JSON report
 * (nnc_vrf_report_write_json) as a string.  Out: *json (nnc_vrf_free).
 * Returns ARG for clashing options (nnc_vrf_opts_clash), the spec parser's
 * and nnc_vrf_run's codes, NOMEM. */
NNC_API nnc_status nnc_vrf_run_json(const nnc_model *m, const char *spec_path, const nnc_vrf_opts *o, char **json,
                                    char *err, size_t errlen);
/* A DLRM (categorical integer inputs beside one float input): fix its ids
 * (nnc_mdl_embbag_fix_ids) to sample `sample` (1-based) of the trace file
 * trace_path, the spec then covering the dense inputs; or, without a
 * trace, to the values the spec fixes them to (it covers every input in
 * input order; *spec becomes its dense part).  A model without integer
 * inputs is left as it is (a trace for one is an ARG error).
 * Returns OK; ARG (a trace for a model without ids, a sample not in the
 * trace); INVALID naming the mismatch; UNSUPPORTED; NOMEM. */
NNC_API nnc_status nnc_vrf_dlrm_fix(nnc_model *m, nnc_spec **spec, const char *trace_path, uint64_t sample, char *err,
                                    size_t errlen);
/* A model whose one input and one output declare the same fixed leading
 * dimension B > 1 (e.g. [4, 30]): B, the samples it takes at once; else 1. */
NNC_API int64_t nnc_vrf_declared_batch(const nnc_model *m);
/* Whether `row` (a sample of a declared batch, or -1: none) fits the model
 * and a spec of spec_in inputs and spec_out outputs (-1: no spec yet): a
 * one-sample spec of such a model needs a row, a row needs such a model,
 * and a row must be in the batch.  what names the spec, opt the option
 * ("--row") in the messages.  Returns OK or INVALID. */
NNC_API nnc_status nnc_vrf_check_row(const nnc_model *m, int64_t row, int64_t spec_in, int64_t spec_out,
                                     const char *what, const char *opt, char *err, size_t errlen);
/* The spec fitted to the model as the verify command fits it: a DLRM's ids
 * fixed (nnc_vrf_dlrm_fix, trace_path and sample), then, without a trace,
 * the row checked (nnc_vrf_check_row; opt names it) and, with row >= 0,
 * the one-sample spec embedded as sample `row` of the declared batch (the
 * other samples fixed at the centre of its box).  *spec may be replaced.
 * Returns the two functions' codes and the embedding's. */
NNC_API nnc_status nnc_vrf_fit_spec(nnc_model *m, nnc_spec **spec, const char *trace_path, uint64_t sample, int64_t row,
                                    const char *row_opt, char *err, size_t errlen);
/* Release memory the functions of this module allocated for the caller. */
NNC_API void nnc_vrf_free(void *p);

/* Sound bounds over input boxes of a model's outputs or of one of its
 * values (the bounds command; auto_LiRPA's compute_bounds): */
typedef enum nnc_vrf_bound_method {
    NNC_VRF_BOUNDS_IBP = 0,   /* interval propagation */
    NNC_VRF_BOUNDS_CROWN = 1, /* linear bounds by back-substitution */
    NNC_VRF_BOUNDS_ALPHA = 2  /* alpha-CROWN: optimised slopes per bound, from CROWN's */
} nnc_vrf_bound_method;
typedef struct nnc_vrf_bounder nnc_vrf_bounder;
/* value: the name of a run-time value (a node's output), or NULL for the
 * model's output.  Returns OK; UNSUPPORTED (an operator without a sound
 * transformer; the model must have one float input and one output);
 * INVALID (no such value); NOMEM. */
NNC_API nnc_status nnc_vrf_bounder_create(nnc_vrf_bounder **out, const nnc_model *m, const char *value, char *err,
                                          size_t errlen);
NNC_API int64_t nnc_vrf_bounder_num_inputs(const nnc_vrf_bounder *b);
NNC_API int64_t nnc_vrf_bounder_num_values(const nnc_vrf_bounder *b); /* elements bounded */
/* Bounds of every element over [lo, hi] (num_inputs each) into out_lo,
 * out_hi (num_values each): the output intervals (IBP; crown and alpha
 * with CROWN on the hidden layers), then, for the outputs, CROWN's
 * back-substitution of +y_j and -y_j, optimised with iters alpha steps;
 * a value's bounds are the engine's intervals, alpha's after optimising
 * each hidden neuron's slopes.  Outward-rounded: every value the model
 * computes in exact arithmetic on its stored weights lies within them.
 * Returns OK; ARG (a bad method, iters < 1 with alpha, lo > hi somewhere);
 * NOMEM.  One thread at a time per bounder. */
NNC_API nnc_status nnc_vrf_bounder_box(nnc_vrf_bounder *b, nnc_vrf_bound_method method, int iters, const double *lo,
                                       const double *hi, double *out_lo, double *out_hi);
NNC_API void nnc_vrf_bounder_destroy(nnc_vrf_bounder *b);

#ifdef __cplusplus
}
#endif
#endif
