/* nncert specs module: VNN-LIB parsing into a normal form, the L-inf
 * robustness builder, and VNN-LIB output.
 *
 * Normal form.  A spec has n_in inputs X_0..X_{n_in-1}, n_out outputs
 * Y_0..Y_{n_out-1} and a list of CASES (a disjunction).  Case k has
 *   - an input box: lo[i] <= X_i <= hi[i] for every i, all bounds finite,
 *     lo[i] <= hi[i] (lo == hi allowed);
 *   - optional extra linear input constraints  sum_i a_i X_i <= b  (each with
 *     at least two variables; single-variable ones are folded into the box);
 *   - the unsafe output set, a disjunction of DISJUNCTS; each disjunct is a
 *     conjunction of linear output constraints  sum_j c_j Y_j <= d.  A
 *     disjunct with no constraint is "true" (every output is unsafe).
 * The property is VIOLATED iff for some case k some x in box k satisfying
 * case k's input constraints has f(x) in one of case k's disjuncts.  This is
 * the VNN-LIB reading: the assertions describe a counterexample.
 *
 * What the parser accepts (an SMT-LIB subset, as used by VNN-COMP):
 *   (declare-const X_i Real) / (declare-const Y_j Real), also
 *   (declare-fun X_i () Real); inputs must be X_0..X_{n-1} and outputs
 *   Y_0..Y_{m-1}, each declared once, before use, n,m >= 1.
 *   (assert F) where F is built from
 *     (and F*) (or F*) true false
 *     (<= T T ...) (>= T T ...) (= T T ...) (< T T ...) (> T T ...)  (chains)
 *   and the terms T are linear:
 *     numeral/decimal (optionally signed: -0.5, 1e-05), X_i, Y_j,
 *     (+ T ...) (- T) (- T T ...) (* T ...) with at most one non-constant
 *     factor, (/ T c) with a non-zero constant c.
 *   (check-sat) (get-model) (exit) (set-logic L) are accepted and ignored;
 *   comments run from ';' to the end of the line.
 * The assertions are conjoined and the whole formula is brought into the
 * normal form by distributing and over or; atoms that mention only inputs
 * shape the cases, atoms that mention only outputs shape the disjuncts.
 * Cases whose input region (box and extra constraints) is identical are
 * merged, so the cases of a parsed spec are pairwise distinct; distinct
 * cases may still overlap (the property is violated if any case is).
 *
 * Strict comparisons: < and > are read as <= and >=.  The boundary of the
 * unsafe set has measure zero, so the violation fraction is unchanged; a
 * counterexample found exactly on the boundary is reported as violating.
 *
 * Numbers are converted by strtod (in the "C" locale) from literals matching
 * [+-]?(digits[.digits*]|.digits)([eE][+-]?digits)?; NaN, infinities, hex
 * floats and out-of-range literals are refused.  Coefficients are combined
 * in double arithmetic; a bound with a coefficient other than +-1
 * (e.g. (<= (* 3 X_0) 1)) is divided and rounded outward, so the box always
 * contains the stated region.
 *
 * Refused with NNC_STATUS_UNSUPPORTED: products of two variables, division by
 * a variable, atoms mixing inputs and outputs, sorts other than Real,
 * variables not named X_i / Y_j, not/=>/ite/let/distinct and other SMT-LIB
 * operators.  Every error message is one line naming the line and column.
 *
 * Thread safety: parsing uses no global state; a spec is immutable after it
 * is built and may be shared by threads. */
#ifndef NNC_SPEC_H
#define NNC_SPEC_H

#include "nncert/nnc.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Resource limits; going past one yields NNC_STATUS_LIMIT. */
#define NNC_SPC_MAX_VARS 10000000         /* inputs (and, separately, outputs) */
#define NNC_SPC_MAX_DEPTH 256             /* parenthesis nesting */
#define NNC_SPC_MAX_CASES 100000          /* cases, also while normalising */
#define NNC_SPC_MAX_DISJUNCTS 100000      /* disjuncts, all cases together */
#define NNC_SPC_MAX_REFS (1 << 25)        /* atom occurrences in the normal form */
#define NNC_SPC_MAX_BOX (1 << 24)         /* cases * inputs */
#define NNC_SPC_MAX_WORK ((int64_t)1 << 28) /* normalisation steps */
#define NNC_SPC_MAX_FILE_BYTES ((size_t)1 << 30)

typedef struct nnc_spec nnc_spec;

/* A linear constraint  sum_{t < n} coef[t] * V[idx[t]] <= rhs, where V is X
 * for input constraints and Y for output constraints.  idx is strictly
 * increasing, coef are finite and non-zero, rhs is finite (never -0).  The
 * arrays are owned by the spec. */
typedef struct nnc_spc_lin {
    int n;              /* terms, >= 1 */
    const int *idx;     /* variable indices, ascending */
    const double *coef; /* coefficients */
    double rhs;
} nnc_spc_lin;

/* Parse VNN-LIB text.
 * Returns: NNC_STATUS_OK; PARSE (syntax, undeclared or twice-declared
 *   variable, unknown operator, bad number), UNSUPPORTED (see above),
 *   INVALID (missing or empty input bound, no inputs/outputs, assertions
 *   with no satisfiable case, arithmetic overflow), LIMIT (see the limits),
 *   NOMEM.  On failure err holds "line L, column C: ...".
 * Out: *out, a spec to release with nnc_spc_destroy (NULL on failure).
 * In: text[0..len) (need not be NUL-terminated). */
NNC_API nnc_status nnc_spc_parse(nnc_spec **out, const char *text, size_t len, char *err, size_t errlen);

/* Read a file (at most NNC_SPC_MAX_FILE_BYTES) and parse it; messages are
 * prefixed with the path.  Returns NNC_STATUS_IO when it cannot be read. */
NNC_API nnc_status nnc_spc_parse_file(nnc_spec **out, const char *path, char *err, size_t errlen);

/* Release a spec (NULL is allowed). */
NNC_API void nnc_spc_destroy(nnc_spec *s);

/* The standard L-inf robustness spec around x: one case with box
 *   lo[i] = max(x[i] - eps, clip_lo), hi[i] = min(x[i] + eps, clip_hi)
 * (x[i] -/+ eps rounded outward), unsafe iff some class j != label has
 * Y_j >= Y_label: disjuncts j = 0..n_out-1, j != label, each the single
 * constraint  Y_label - Y_j <= 0.  Pass -INFINITY / INFINITY for no clipping.
 * Returns: NNC_STATUS_ARG for n_in < 1, n_out < 2, label outside
 *   [0, n_out), eps negative or not finite, x not finite, clip_lo > clip_hi
 *   or NaN, or a box that clipping empties (x[i] further than eps outside
 *   [clip_lo, clip_hi]); LIMIT for n_in or n_out over NNC_SPC_MAX_VARS. */
NNC_API nnc_status nnc_spc_linf(nnc_spec **out, const double *x, int n_in, int n_out, int label, double eps,
                                double clip_lo, double clip_hi, char *err, size_t errlen);

/* Write s as VNN-LIB text that nnc_spc_parse reads back into an equal spec
 * (nnc_spc_equal), numbers printed with 17 significant digits.  One case is
 * written as top-level asserts; several cases as one (assert (or (and box...
 * (or disjuncts...)) ...)).  Returns NNC_STATUS_IO when writing fails. */
NNC_API nnc_status nnc_spc_write_vnnlib(FILE *f, const nnc_spec *s, char *err, size_t errlen);

/* Returns: NNC_STATUS_OK when the spec's input and output counts equal the
 * model's, else NNC_STATUS_INVALID with a message naming both numbers. */
NNC_API nnc_status nnc_spc_check_model_dims(const nnc_spec *s, int64_t n_in, int64_t n_out, char *err, size_t errlen);

/* The spec over inputs X_off .. X_{off+n_keep-1} alone (renumbered from 0),
 * for a model whose other inputs are fixed (specs/spec_fix.c): every other
 * input must have lo == hi, the same value in every case, and no case may
 * have extra linear input constraints.  Output constraints are kept.
 * Out: *out (release with nnc_spc_destroy); fixed (n_in - n_keep values:
 *   the dropped inputs' values in input order).
 * Returns: OK; INVALID naming a dropped input that is not fixed, or fixed
 *   differently in two cases; UNSUPPORTED for input constraints; ARG for a
 *   range outside [0, n_in); NOMEM. */
NNC_API nnc_status nnc_spc_keep_inputs(nnc_spec **out, double *fixed, const nnc_spec *s, int off, int n_keep, char *err,
                                       size_t errlen);

/* The spec of one sample (s: n_in inputs, n_out outputs) as a spec of a
 * model whose input holds `rows` samples of n_in values and whose output
 * rows samples of n_out values (a declared batch; verify --row): sample
 * `row` takes s's boxes, every other sample is fixed at the centre of
 * them, and the output constraints move to sample row's outputs.
 * Returns: OK; ARG (row outside [0, rows)); UNSUPPORTED for linear input
 * constraints; LIMIT past NNC_SPC_MAX_VARS or NNC_SPC_MAX_BOX; NOMEM. */
NNC_API nnc_status nnc_spc_embed_sample(nnc_spec **out, const nnc_spec *s, int rows, int row, char *err, size_t errlen);
/* Returns: 1 when a and b are the same normal form (same counts, bounds,
 * constraints, in the same order; doubles compared with ==), else 0. */
NNC_API int nnc_spc_equal(const nnc_spec *a, const nnc_spec *b);

/* ---- accessors (k a case in [0, num_cases), j a disjunct of case k) ---- */
NNC_API int nnc_spc_num_inputs(const nnc_spec *s);
NNC_API int nnc_spc_num_outputs(const nnc_spec *s);
NNC_API int nnc_spc_num_cases(const nnc_spec *s);
/* Returns: n_in lower / upper bounds of case k's box. */
NNC_API const double *nnc_spc_case_lo(const nnc_spec *s, int k);
NNC_API const double *nnc_spc_case_hi(const nnc_spec *s, int k);
/* Extra linear input constraints of case k (usually 0). */
NNC_API int nnc_spc_case_num_input_cons(const nnc_spec *s, int k);
NNC_API void nnc_spc_case_input_con(const nnc_spec *s, int k, int i, nnc_spc_lin *out);
/* The unsafe output set of case k: num_disjuncts >= 1 conjunctions. */
NNC_API int nnc_spc_case_num_disjuncts(const nnc_spec *s, int k);
NNC_API int nnc_spc_disjunct_size(const nnc_spec *s, int k, int j);
NNC_API void nnc_spc_disjunct_con(const nnc_spec *s, int k, int j, int i, nnc_spc_lin *out);
/* Total disjuncts over all cases. */
NNC_API int nnc_spc_total_disjuncts(const nnc_spec *s);

/* Scatter l into dense[0..n) (zeros elsewhere); n must exceed every index. */
NNC_API void nnc_spc_lin_dense(const nnc_spc_lin *l, double *dense, int n);

/* Returns: 1 when x (n_in values) lies in case k's box and satisfies its
 * input constraints, else 0.  Sums are evaluated in double arithmetic. */
NNC_API int nnc_spc_in_region(const nnc_spec *s, int k, const double *x);

/* Returns: the first disjunct of case k that y (n_out values) satisfies, or
 * -1 when y is safe for case k.  Sums are evaluated in double arithmetic: a
 * verdict on a point within rounding of a boundary needs exact re-checking. */
NNC_API int nnc_spc_unsafe_disjunct(const nnc_spec *s, int k, const double *y);

#ifdef __cplusplus
}
#endif
#endif
