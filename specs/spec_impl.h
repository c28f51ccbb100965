/* Internal representation of nnc_spec, shared by spec.c (accessors,
 * builders) and vnnlib.c (parser, writer).  Not part of the public API. */
#ifndef NNC_SPEC_IMPL_H
#define NNC_SPEC_IMPL_H

#include "nncert/spec.h"

#include <stdint.h>

/* All arrays are owned by the spec and allocated by nnc_spc_alloc.
 * Linear constraints live in one pool (lin_*); cases and disjuncts refer to
 * pool entries by index, so a constraint shared by many disjuncts is stored
 * once. */
struct nnc_spec {
    int n_in, n_out, n_cases;
    double *lo, *hi;     /* n_cases * n_in, case-major; finite, lo <= hi, never -0 */
    int *in_off;         /* n_cases + 1: case k's input constraints are in_refs[in_off[k] .. in_off[k+1]) */
    int *in_refs;        /* pool indices (constraints over X, >= 2 terms) */
    int *dj_off;         /* n_cases + 1: case k's disjuncts are dj_off[k] .. dj_off[k+1]-1 */
    int n_dj;            /* disjuncts, all cases */
    int *con_off;        /* n_dj + 1: disjunct d's constraints are out_refs[con_off[d] .. con_off[d+1]) */
    int *out_refs;       /* pool indices (constraints over Y) */
    int n_lin;           /* pool size */
    int64_t *lin_off;    /* n_lin + 1: terms of constraint c are lin_idx/lin_coef[lin_off[c] .. lin_off[c+1]) */
    int *lin_idx;        /* ascending within a constraint */
    double *lin_coef;    /* finite, non-zero */
    double *lin_rhs;     /* n_lin, finite, never -0 */
};

/* Allocate a spec with every array sized (contents uninitialised except the
 * counts and in_off[0] = dj_off[0] = con_off[0] = lin_off[0] = 0).
 * Returns NULL when out of memory. */
nnc_spec *nnc_spc_alloc(int n_in, int n_out, int n_cases, int64_t n_in_refs, int n_dj,
                        int64_t n_out_refs, int n_lin, int64_t n_terms);

/* +0 for -0, x otherwise. */
static inline double nnc_spc_unneg0(double x) { return x == 0 ? 0.0 : x; }

#endif
