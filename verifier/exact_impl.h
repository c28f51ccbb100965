/* Exact decision of small input boxes for dense ReLU chains (internal to the
 * verifier module; the star-set / activation-pattern method of Reluplex,
 * Marabou and nnenum, with sound linear-programming certificates).
 *
 * On a box X of the inputs, every activation pattern of the ReLU neurons
 * makes the network affine, and the set of inputs with that pattern is a
 * polytope: the box and one half-space per neuron whose sign is not fixed
 * by the box alone.  nnc_xct_decide enumerates the patterns depth-first,
 * neuron by neuron in chain order: a neuron whose pre-activation keeps one
 * sign over the current polytope (shown by a linear program) takes that
 * phase; otherwise the search branches on both.  A polytope shown empty is
 * dropped.  At the output, each disjunct of the unsafe set is a few more
 * half-spaces: the pattern is safe when each disjunct's polytope is empty.
 * Unlike interval or linear relaxations, this decides boxes however small
 * the property's margin is on them; its cost grows with the number of
 * neurons the box leaves unstable, so the verifier uses it only on leaves
 * with few (see verify.c).
 *
 * Soundness.  The linear programs are solved in floating point by a dual
 * simplex method and are never trusted: every conclusion is a Lagrangian
 * (or Farkas) certificate, multipliers mu >= 0 of the polytope's
 * half-spaces a_i . x <= b_i, evaluated with outward rounding:
 *     min over X of (c + sum mu_i a_i) . x - sum mu_i b_i + c0
 * is a lower bound of c . x + c0 over the polytope, for any mu >= 0, and
 * above 0 with c = 0 it shows the polytope empty (nnc_xct_lp_bound).  The
 * affine functions of a pattern are computed in round-to-nearest with an
 * error term per neuron (|exact - computed| <= e over the box, for every
 * point of the pattern: the bound of symfwd_impl.h, gamma sum |terms|
 * plus the propagated errors), and every half-space is widened by it, so
 * each polytope contains every point of its pattern.  A point of an unsafe
 * polytope is only a candidate: the caller validates it concretely.
 * tests/unit/test_exact.c checks the linear programs against vertex
 * enumeration and the decisions against dense sampling and brute force.
 *
 * A context is used by one thread at a time. */
#ifndef NNC_EXACT_IMPL_H
#define NNC_EXACT_IMPL_H

#include "nncert/nnc.h"
#include "models/model_impl.h"
#include "verifier/refine_impl.h"

#include <stdint.h>

typedef struct nnc_xct nnc_xct;

/* Out: *out for model m (a dense ReLU chain, nnc_smp_chain_extract).
 * Returns OK; UNSUPPORTED when m is not such a chain or has non-finite
 * weights; NOMEM. */
nnc_status nnc_xct_create(nnc_xct **out, const nnc_model *m, char *err, size_t errlen);
void nnc_xct_destroy(nnc_xct *e);

/* Number of ReLU neurons (the order of nnc_sfw_relu_bounds). */
int64_t nnc_xct_relu_count(const nnc_xct *e);

enum {
    NNC_XCT_SAFE = 0,  /* certified: no point of the box reaches the unsafe set */
    NNC_XCT_OPEN = 1,  /* not decided (budget, deadline, or an unvalidated candidate) */
    NNC_XCT_FOUND = 2  /* the check accepted a candidate */
};

/* Validates a candidate x (n_in values inside the box): 1 when it is a
 * counterexample. */
typedef int (*nnc_xct_check)(void *ctx, const double *x);

/* Decide the box [lo, hi] against the unsafe set p.  cap_lo / cap_hi: NULL,
 * or sound enclosures of the ReLU pre-activations over the box (e.g. the
 * symbolic engine's, nnc_sfw_relu_bounds).  At most max_lps linear programs,
 * until deadline (CLOCK_MONOTONIC seconds).  chk: NULL, or called with the
 * candidates found (the search then ends: FOUND when it accepts, else OPEN).
 * Out: *outcome (NNC_XCT_*); *lps, the linear programs solved.
 * Returns OK, ARG (box not finite), NOMEM. */
nnc_status nnc_xct_decide(nnc_xct *e, const double *lo, const double *hi, const double *cap_lo, const double *cap_hi,
                          const nnc_rfn_problem *p, uint64_t max_lps, double deadline, nnc_xct_check chk,
                          void *chk_ctx, int *outcome, uint64_t *lps);

/* ---- the linear programs (exposed for tests) ----
 * min c . x  subject to  A x <= b (m rows of n, row-major) and lo <= x <= hi
 * (finite, lo <= hi), by the dual simplex method from the box's best vertex. */
enum { NNC_XCT_LP_OPTIMAL = 0, NNC_XCT_LP_INFEASIBLE = 1, NNC_XCT_LP_FAILED = 2 };

/* Out: x (n: the optimal vertex, or the last one), mu (m: multipliers, >= 0;
 * at OPTIMAL the dual solution, at INFEASIBLE a Farkas combination).
 * Returns NNC_XCT_LP_*; FAILED on an iteration limit or a singular basis. */
int nnc_xct_lp_solve(int n, int m, const double *A, const double *b, const double *lo, const double *hi,
                     const double *c, double *x, double *mu);

/* A sound lower bound of c . x + c0 over {lo <= x <= hi, A x <= b} in exact
 * arithmetic on the given values, from any multipliers mu >= 0 (see above);
 * -INFINITY when an input is not finite.  With c = NULL (zero) and c0 = 0, a
 * result > 0 proves the set empty. */
double nnc_xct_lp_bound(int n, int m, const double *A, const double *b, const double *lo, const double *hi,
                        const double *c, double c0, const double *mu);

#endif
