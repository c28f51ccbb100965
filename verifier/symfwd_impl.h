/* Forward symbolic interval bounds for dense ReLU chains (internal to the
 * verifier module; ReluVal / Neurify / DeepPoly-forward style).
 *
 * For a model that is a chain of dense layers (nnc_smp_chain: Gemm/MatMul,
 * bias Add, input Sub/Add, Relu, reshaping views) and a box X of its n
 * inputs, every neuron z carries two affine functions of the input,
 *     low(x) <= z(x) <= up(x)   for every x in X (exact real arithmetic),
 * pushed through each dense layer exactly (positive weights take low,
 * negative ones up) and through each ReLU with the relaxation
 *     up:  relu(z) <= s (up(x) - ul),  s = uu / (uu - ul)   (ul < 0 < uu)
 *     low: relu(z) >= lam low(x),      lam = lu / (lu - ll) (ll < 0 < lu)
 * where [ll, lu] and [ul, uu] are the ranges of low and up over X (Neurify's
 * symbolic intervals: the chord of relu over the range of the function, not
 * of z).  One layer costs O(K N n), against O(K N) per neuron and layer for
 * CROWN's back-substitution of every intermediate bound: on ACAS Xu (5
 * inputs, 6 x 50 ReLUs) about 20 times less per box.
 *
 * The concrete pre-activation bounds [ll, uu] it produces then feed one
 * CROWN back-substitution from the objectives only; the objective bound is
 * the larger of that and the forward functions' own bound.
 *
 * Soundness in floating point.  Round-to-nearest throughout, with explicit
 * error terms (the scheme of bounds.c): each coefficient of a new function is
 * a dot product of at most 2K + 1 terms, within gamma sum |terms| of its
 * exact value whatever the order (Higham 3.5, FMA included), so at any x of
 * the box the computed function is within
 *     gamma (sum_k |W_kj| M_k + |b_j|),   M_k = max over X of sum_i |c_ki| |x_i| + |c_k0|,
 * of the exact one; that amount is subtracted from low's constant and added
 * to up's.  ReLU scalings add u s M (similarly bounded), slopes are rounded
 * so the lines stay valid, and concretisation over the box has its own
 * gamma term.  Back-substitution bounds its error as bounds.c does
 * (gamma |Lambda| . ew per layer).  tests/unit/test_symfwd.c checks the bounds
 * against an MPFR (256-bit) propagation of the same relaxations and against
 * 10^5 concrete samples.
 *
 * A context is used by one thread at a time. */
#ifndef NNC_SYMFWD_IMPL_H
#define NNC_SYMFWD_IMPL_H

#include "nncert/nnc.h"
#include "models/model_impl.h"

typedef struct nnc_sfw nnc_sfw;

/* Out: *out for model m.  Returns OK; UNSUPPORTED when m is not a dense
 * chain (err says where) or has no ReLU-free output layer shape it takes;
 * NOMEM. */
nnc_status nnc_sfw_create(nnc_sfw **out, const nnc_model *m, char *err, size_t errlen);
void nnc_sfw_destroy(nnc_sfw *s);

int nnc_sfw_num_inputs(const nnc_sfw *s);
int nnc_sfw_num_outputs(const nnc_sfw *s);

/* Sound lower bounds of nobj objectives  C[o] . y + d[o]  (C: nobj x n_out)
 * over the box [lo, hi] (n_in each, lo <= hi).  refine = 0: intermediate
 * bounds from the forward functions only (cheapest); 1: each neuron still
 * unstable after them (and after a ReLU layer) gets CROWN's back-substituted
 * bounds too, intersected (as tight as full CROWN, at a fraction of its cost
 * where the forward bounds already fix most neurons).
 * Out: lower[o]; when lam != NULL, lam[o * n_in ..] the input coefficients
 * of the linear bound that gave lower[o] (for split choice and candidates).
 * Returns OK, or ARG when the box is not finite. */
nnc_status nnc_sfw_bound(nnc_sfw *s, const double *lo, const double *hi, int refine, int nobj, const double *C,
                         const double *d, double *lower, double *lam);

/* After nnc_sfw_bound: the pre-activation bounds of every ReLU neuron, in
 * the order of nnc_bnd's flat ReLU index (chain order), into lo / hi
 * (nnc_sfw_relu_count values each). */
int64_t nnc_sfw_relu_count(const nnc_sfw *s);
void nnc_sfw_relu_bounds(const nnc_sfw *s, double *lo, double *hi);

/* Caps for the following nnc_sfw_bound calls (until changed): lo / hi
 * (nnc_sfw_relu_count values each, the order of nnc_sfw_relu_bounds) must
 * enclose every ReLU pre-activation over the boxes bounded then, e.g. the
 * bounds of a box containing them (a parent leaf's).  They are intersected
 * with the computed bounds before those decide which neurons are stable and
 * which are refined: sound whenever the caps are.  NULL (either): none.  The
 * arrays are read, not copied: they must outlive the calls. */
void nnc_sfw_set_caps(nnc_sfw *s, const double *lo, const double *hi);

/* ---- inspection (tests) ---- after nnc_sfw_bound:
 * number of layers; layer l's output width and whether a ReLU follows it;
 * its pre-activation bounds; the forward relaxation used at its ReLU: per
 * neuron, low' = flam * low, up' = fs * up + ft (1, 1, 0 when stable active;
 * 0, 0, 0 when stable inactive); and the layer's weights ([K][N]) and bias. */
int nnc_sfw_num_layers(const nnc_sfw *s);
void nnc_sfw_layer(const nnc_sfw *s, int l, int *K, int *N, int *relu, const double **w, const double **b,
                   const double **pre_lo, const double **pre_hi, const double **flam, const double **fs,
                   const double **ft);
/* The symbolic functions of layer l's pre-activations, as the last call left
 * them: N rows of n_in + 1 values (coefficients, then constant) for low and
 * for up. */
void nnc_sfw_functions(const nnc_sfw *s, int l, double *low, double *up);

/* Out: y (n_out), the chain evaluated at x in float64 (no error bound: for
 * screening counterexample candidates only). */
void nnc_sfw_eval(nnc_sfw *s, const double *x, double *y);

#endif
