/* Sound bound propagation over the IR (internal to the verifier module).
 *
 * Two engines on one prepared model with a single float input:
 *   - interval bound propagation (IBP): lo/hi for every value;
 *   - linear relaxation with back-substitution (CROWN/DeepPoly style):
 *     for objectives  sum_j C[o][j] * out[j], a bound  L[o] . x + c[o] - err[o]
 *     valid for every x in the input box, with per-neuron linear relaxations
 *     of ReLU / LeakyReLU / Sigmoid / Tanh / MaxPool built from the
 *     intermediate bounds.  Intermediate bounds of every nonlinear node's
 *     input are themselves tightened by back-substitution (CROWN), up to
 *     NNC_BND_CROWN_MAX_NEURONS neurons per layer (IBP beyond).
 *
 * Soundness with respect to exact real arithmetic on the stored weights: every
 * floating-point step runs in round-to-nearest, and each one's rounding error
 * is bounded explicitly (gamma times the sum of absolute products, standard
 * forward error analysis of dot products) and subtracted from lower bounds /
 * added to upper bounds; see bounds.c.  Nothing depends on the FPU rounding
 * mode or on the BLAS's summation order. */
#ifndef NNC_BOUNDS_IMPL_H
#define NNC_BOUNDS_IMPL_H

#include "models/model_impl.h"

#define NNC_BND_CROWN_MAX_NEURONS 4096

typedef struct nnc_bnd nnc_bnd;

/* Check that every live node has a sound transformer, and set up.
 * Returns: OK, UNSUPPORTED naming the first operator without one, NOMEM. */
nnc_status nnc_bnd_create(nnc_bnd **out, const nnc_model *m, char *err, size_t errlen);
void nnc_bnd_destroy(nnc_bnd *b);

/* Input and output sizes (per sample). */
int64_t nnc_bnd_num_inputs(const nnc_bnd *b);
int64_t nnc_bnd_num_outputs(const nnc_bnd *b);

/* Compute the intermediate bounds of every value for the box [lo, hi]:
 * IBP always, then CROWN-tightened intermediate bounds when crown != 0. */
nnc_status nnc_bnd_compute(nnc_bnd *b, const double *lo, const double *hi, int crown);

/* After nnc_bnd_compute: the interval bounds of the model's output. */
const double *nnc_bnd_out_lo(const nnc_bnd *b);
const double *nnc_bnd_out_hi(const nnc_bnd *b);

/* Sound lower bounds of nobj linear objectives  C[o] . out + d[o]  over the
 * current box, by back-substitution (taking the better of it and IBP).
 * Out: lower[o]; when lam != NULL, lam[o * n_in ..] receives the linear
 * coefficients on the input whose minimisation gave the bound (used to pick
 * counterexample candidates). */
nnc_status nnc_bnd_linear_lower(nnc_bnd *b, int nobj, const double *C, const double *d, double *lower, double *lam);

#endif
