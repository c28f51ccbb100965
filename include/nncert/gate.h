/* nncert gate module: the CI safety gate, its reports and signed attestations.
 *
 * A gate configuration (JSON, schema in README.md "nncert gate") lists
 * checks:
 *   verify    a model against a VNN-LIB spec: passes when the upper bound of
 *             the violation fraction (nncert/verifier.h) is <= max_violation
 *             at the stated confidence; an undecided bound fails;
 *   groth16   a proof.json / public.json / verification_key.json triple
 *             (nncert/prover.h): passes when the proof verifies;
 *   baseline  one per verify check when a baseline summary is given: passes
 *             unless the violation fraction's upper bound grew by more than
 *             the tolerance over the baseline's check of the same name.
 * A run writes a JSON summary (the attestation: SHA-256 of the config and of
 * every model, spec, key, public-input and proof file, the nncert version
 * and the seeds), JUnit XML (one testcase per check), Markdown, and an HTML
 * report with SVG figures drawn here.
 *
 * Attestations are signed with Ed25519 (libsodium) over
 *   "nncert-attestation-v1\n" || canonical(summary without "signature")
 * where canonical() is JSON with object members sorted by key (byte order),
 * no whitespace, strings escaped only where JSON requires (", \, control
 * characters; \b \f \n \r \t short forms, others \u00xx) and numbers kept as
 * their source text.  Summaries are written with shortest round-trip numbers,
 * so a standard JSON library re-serialising them (sort keys, compact
 * separators, no ASCII escaping) reproduces the same bytes.
 *
 * Prefix nnc_gate_.  No global state; runs may proceed in parallel threads or
 * processes (outputs go through unique temporary files). */
#ifndef NNC_GATE_H
#define NNC_GATE_H

#include "nncert/nnc.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NNC_GATE_PUBLICKEYBYTES 32
#define NNC_GATE_SECRETKEYBYTES 64 /* libsodium's layout: seed || public key */
#define NNC_GATE_SIGNATUREBYTES 64
/* Most checks one configuration may list. */
#define NNC_GATE_MAX_CHECKS 1000
/* Most sweep points of one verify check. */
#define NNC_GATE_MAX_SWEEP 100

typedef enum nnc_gate_status {
    NNC_GATE_PASS = 0,
    NNC_GATE_FAIL = 1,    /* ran, and the property or proof did not meet the bar */
    NNC_GATE_ERROR = 2,   /* could not run: unreadable or malformed input */
    NNC_GATE_SKIPPED = 3  /* baseline check without a counterpart */
} nnc_gate_status;

/* Returns: "pass", "fail", "error" or "skipped". */
NNC_API const char *nnc_gate_status_name(nnc_gate_status s);

/* A parsed configuration; immutable after parsing. */
typedef struct nnc_gate_config nnc_gate_config;
/* The results of one run of a configuration. */
typedef struct nnc_gate_run nnc_gate_run;

/* Read and validate a configuration (strict: unknown members, wrong types
 * and out-of-range values are refused, naming the member).  Relative paths
 * in it are taken from the configuration file's folder.
 * Returns: OK, IO (unreadable), PARSE (bad JSON), INVALID (bad schema),
 *          LIMIT (more than NNC_GATE_MAX_CHECKS checks).
 * Out: *cfg (nnc_gate_config_destroy). */
NNC_API nnc_status nnc_gate_config_read_file(nnc_gate_config **cfg, const char *path, char *err, size_t errlen);
/* As above from text[0..len); base_dir resolves relative paths ("." if NULL);
 * config_name is recorded in the summary. */
NNC_API nnc_status nnc_gate_config_parse(nnc_gate_config **cfg, const char *text, size_t len, const char *base_dir,
                                         const char *config_name, char *err, size_t errlen);
NNC_API void nnc_gate_config_destroy(nnc_gate_config *cfg);
/* Returns: the number of checks the configuration lists. */
NNC_API int nnc_gate_config_num_checks(const nnc_gate_config *cfg);

typedef struct nnc_gate_opts {
    const char *baseline;  /* a previous summary (overrides the config's), or NULL */
    double tolerance;      /* < 0: the config's (default 0) */
    /* called before each check starts (may be NULL): index, total, name */
    void (*progress)(void *ctx, int index, int total, const char *name);
    void *progress_ctx;
} nnc_gate_opts;

NNC_API void nnc_gate_opts_default(nnc_gate_opts *o);

/* Run every check.  A check that cannot run is recorded as an error; the run
 * itself fails only for a bad baseline file (IO, PARSE, INVALID) or NOMEM.
 * Out: *run (nnc_gate_run_destroy). */
NNC_API nnc_status nnc_gate_run_checks(nnc_gate_run **run, const nnc_gate_config *cfg, const nnc_gate_opts *o,
                                       char *err, size_t errlen);
NNC_API void nnc_gate_run_destroy(nnc_gate_run *run);

/* Returns: the number of result rows (checks plus baseline comparisons). */
NNC_API int nnc_gate_run_num_results(const nnc_gate_run *run);
/* Out: *name, *status, *message of row i (pointers live as long as run). */
NNC_API void nnc_gate_run_result(const nnc_gate_run *run, int i, const char **name, nnc_gate_status *status,
                                 const char **message);
/* Returns: PASS when every row passed or was skipped, FAIL when some row
 * failed and none errored, ERROR when some row errored. */
NNC_API nnc_gate_status nnc_gate_run_overall(const nnc_gate_run *run);
/* Returns: the library status of the first errored row (OK if none), for
 * choosing an exit code. */
NNC_API nnc_status nnc_gate_run_first_error(const nnc_gate_run *run);

/* Writers.  Each writes the whole document to f; IO on a write error.
 * summary: the JSON attestation, signed when sk != NULL (sk: a secret key of
 * NNC_GATE_SECRETKEYBYTES bytes). */
NNC_API nnc_status nnc_gate_write_summary(FILE *f, const nnc_gate_run *run, const uint8_t *sk, char *err,
                                          size_t errlen);
NNC_API nnc_status nnc_gate_write_junit(FILE *f, const nnc_gate_run *run, char *err, size_t errlen);
NNC_API nnc_status nnc_gate_write_markdown(FILE *f, const nnc_gate_run *run, char *err, size_t errlen);
/* A self-contained HTML page with the figures inline (SVG). */
NNC_API nnc_status nnc_gate_write_html(FILE *f, const nnc_gate_run *run, char *err, size_t errlen);

/* Stacked horizontal bars, one per row: certified-safe, certified-unsafe and
 * open fractions of the input volume (each in [0, 1]), with a legend. */
NNC_API nnc_status nnc_gate_svg_volumes(FILE *f, const char *title, const char *const *labels, const double *safe,
                                        const double *unsafe, const double *open, int n, char *err, size_t errlen);

/* ---- attestations (gate/attest.c) ---- */

/* Out: a fresh key pair (libsodium randombytes). */
NNC_API void nnc_gate_keygen(uint8_t pk[NNC_GATE_PUBLICKEYBYTES], uint8_t sk[NNC_GATE_SECRETKEYBYTES]);
/* Key files are one line of text: "ed25519-public:" or "ed25519-secret:"
 * followed by the key in lowercase hex.  The secret key file is created with
 * mode 0600.  Writers are atomic (temporary file, then rename); with
 * overwrite = 0 an existing file is refused (IO).
 * Reading the wrong kind, or a secret key whose public half does not match
 * its seed, is INVALID. */
NNC_API nnc_status nnc_gate_key_write_file(const char *path, const uint8_t *key, int secret, int overwrite, char *err,
                                           size_t errlen);
NNC_API nnc_status nnc_gate_key_read_file(uint8_t *key, const char *path, int secret, char *err, size_t errlen);

/* The canonical form (see the top) of v, leaving out the object member named
 * skip_key of the top object (NULL: none).  Duplicate member names are
 * INVALID.  Out: *out (malloc'd, NUL-terminated; free), *outlen. */
struct nnc_json;
NNC_API nnc_status nnc_gate_canonical_json(char **out, size_t *outlen, const struct nnc_json *v, const char *skip_key,
                                           char *err, size_t errlen);

/* Add (or replace) the "signature" member of the JSON object text[0..len).
 * Out: *out (malloc'd, NUL-terminated; free), *outlen. */
NNC_API nnc_status nnc_gate_attest_sign(char **out, size_t *outlen, const char *text, size_t len,
                                        const uint8_t sk[NNC_GATE_SECRETKEYBYTES], char *err, size_t errlen);
/* Check a signed summary against pk.
 * Returns: OK with *valid = 1 (valid) or 0 (tampered content, another key,
 *          missing or malformed signature: err says which); PARSE when the
 *          text is not JSON. */
NNC_API nnc_status nnc_gate_attest_verify(int *valid, const char *text, size_t len,
                                          const uint8_t pk[NNC_GATE_PUBLICKEYBYTES], char *err, size_t errlen);

/* Out: out[32], SHA-256 of the file's bytes.  Returns: OK or IO. */
NNC_API nnc_status nnc_gate_sha256_file(uint8_t out[32], const char *path, char *err, size_t errlen);

/* Write the document FN produces to PATH atomically: a unique temporary file
 * (mkstemp) beside PATH with the given mode, renamed over PATH; on any
 * failure PATH is untouched.  Returns: FN's status, or IO. */
NNC_API nnc_status nnc_gate_write_atomic(const char *path, unsigned mode,
                                         nnc_status (*fn)(FILE *, const void *, char *, size_t), const void *arg,
                                         char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
