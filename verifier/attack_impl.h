/* Falsification by projected gradient descent (internal to the verifier).
 *
 * For a model that the bound engine covers (bounds_impl.h) and an unsafe set
 * that is a disjunction of conjunctions of linear output constraints
 * C[r] . y <= d[r], it searches the input box for a point of the unsafe set:
 * from each start point, first on the joint objective (the smallest of the
 * disjuncts' losses below: the margin to the nearest unsafe disjunct), then
 * on each disjunct, signed-gradient steps (scaled by the box
 * widths, step size decaying geometrically) on the hinge loss
 *     L(x) = sum over the disjunct's rows of max(0, C[r] . f(x) - d[r] + kappa),
 * projected back into the box after each step.  f and its gradient are
 * evaluated in float64 through the chain (a forward pass that keeps the
 * pre-activations, then the reverse pass: y -> C rows, through each ReLU's
 * active set, through W^T).  kappa > 0 aims strictly inside the region so
 * that the point survives rounding to float32; it grows when a point the
 * loss accepts is rejected by the caller's check.  On a model that is not a
 * dense chain (Conv, residual Add, pooling, Sigmoid, ...) f and the gradient
 * come from the bound engine on the one-point box [x, x] (attack.c).
 *
 * The attack only proposes points: nnc_atk_run hands each one whose float64
 * chain output lies in the unsafe set to a caller-supplied check (the
 * verifier's concrete float64 + float32 re-evaluation) and stops when the
 * check accepts one.  It never reports a point itself.
 *
 * Deterministic: start points are corners, the centre and Philox points of
 * the box keyed by the seed; no threads.  A context is used by one thread at
 * a time. */
#ifndef NNC_ATTACK_IMPL_H
#define NNC_ATTACK_IMPL_H

#include "nncert/nnc.h"
#include "models/model_impl.h"

typedef struct nnc_atk nnc_atk;

/* Out: *out for model m.  Returns OK; UNSUPPORTED when the bound engine
 * does not cover m (the attack is then skipped); NOMEM. */
nnc_status nnc_atk_create(nnc_atk **out, const nnc_model *m, char *err, size_t errlen);
/* As nnc_atk_create, always in graph mode (the bound engine's gradient),
 * also for a dense chain (tests compare the two modes).  UNSUPPORTED when
 * the bound engine does not cover m. */
nnc_status nnc_atk_create_graph(nnc_atk **out, const nnc_model *m, char *err, size_t errlen);
void nnc_atk_destroy(nnc_atk *a);

int nnc_atk_num_inputs(const nnc_atk *a);
int nnc_atk_num_outputs(const nnc_atk *a);

/* The unsafe set: rows C[r] . y <= d[r] (C: nrows x n_out), disjunct j owning
 * rows [dstart[j], dstart[j+1]). */
typedef struct nnc_atk_problem {
    int nrows, ndisj;
    const double *C, *d;
    const int *dstart;
} nnc_atk_problem;

/* Hinge loss of disjunct j (j = -1: the joint objective) at x (see above)
 * with offset kappa, and its
 * gradient g (n_in; a subgradient at kinks).  Out: y (n_out, may be NULL),
 * the chain's float64 output at x.  Returns the loss. */
double nnc_atk_loss_grad(nnc_atk *a, const nnc_atk_problem *p, int j, double kappa, const double *x, double *g,
                         double *y);

/* Called with a candidate x (n_in) whose float64 chain output lies in
 * disjunct j; returns 1 to accept it (the search stops), 0 to go on. */
typedef int (*nnc_atk_check_fn)(void *ctx, int j, const double *x);

typedef struct nnc_atk_opts {
    int restarts;   /* random start points per disjunct, besides the centre and corners */
    int max_corners; /* corners tried as starts (all 2^n when n is small enough) */
    int steps;      /* gradient steps per start */
    uint64_t seed, sub0; /* Philox key and first subsequence of the random starts */
    double deadline; /* CLOCK_MONOTONIC seconds; stop past it */
    void (*tick)(void *ctx); /* called before each start (progress), or NULL */
    void *tick_ctx;
} nnc_atk_opts;

/* Search the box [lo, hi].  starts (nstarts x n_in, may be NULL) are tried
 * first, then the centre, corners and random points.
 * Out: *found = 1 when check accepted a point; *evals, gradient evaluations.
 * Returns OK or NOMEM. */
nnc_status nnc_atk_run(nnc_atk *a, const nnc_atk_problem *p, const double *lo, const double *hi,
                       const double *starts, int nstarts, const nnc_atk_opts *o, nnc_atk_check_fn check,
                       void *check_ctx, int *found, uint64_t *evals);

#endif
