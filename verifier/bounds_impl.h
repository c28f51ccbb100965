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

/* The back-substitution loops (here and in symfwd.c) are built for AVX-512
 * and AVX2 besides the baseline, chosen at load time.  None of these targets
 * has FMA, and the loops fix their summation order (NNC_BND_SW partial
 * sums), so every clone computes the same roundings: the bounds, hence the
 * branch-and-bound tree, do not depend on the CPU. */
#define NNC_BND_SW 8
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define NNC_BND_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), optimize("O3", "no-trapping-math")))
#else
#define NNC_BND_CLONES
#endif

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

/* Warm start for branch and bound over ReLU splits: the bounds of every
 * value after a compute (nnc_bnd_state_doubles doubles) are saved, and a
 * sub-problem of that one (same box, more splits) is computed as IBP
 * intersected with the saved bounds (they hold on the sub-problem too),
 * with CROWN tightening only at order positions >= crown_from (INT_MAX:
 * none, the intermediate bounds stay the parent's, as in beta-CROWN; the
 * position of a split neuron's node: nnc_bnd_pre_pos).  An intersection
 * that comes out empty marks the sub-problem infeasible. */
size_t nnc_bnd_state_doubles(const nnc_bnd *b);
void nnc_bnd_state_save(const nnc_bnd *b, double *state);
nnc_status nnc_bnd_compute_warm(nnc_bnd *b, const double *lo, const double *hi, const double *state, int crown_from);

/* A function the engine's long passes (alpha-CROWN's steps) call now and
 * then, on the thread that runs them, for progress reports; NULL: none.
 * It must not touch b.  nnc_bnd_tick calls it. */
void nnc_bnd_set_tick(nnc_bnd *b, void (*fn)(void *ctx), void *ctx);
void nnc_bnd_tick(nnc_bnd *b);

/* After nnc_bnd_compute: the interval bounds of the model's output. */
const double *nnc_bnd_out_lo(const nnc_bnd *b);
const double *nnc_bnd_out_hi(const nnc_bnd *b);
/* After nnc_bnd_compute: the interval bounds the engine holds for value v of
 * the model (IBP, intersected with CROWN's where it tightened a
 * pre-activation, and with what nnc_alpha_intermediate narrowed).  Returns
 * its element count, or -1 when v is not a run-time value (a constant, out
 * of range). */
int64_t nnc_bnd_value_bounds(const nnc_bnd *b, int v, const double **lo, const double **hi);

/* Sound lower bounds of nobj linear objectives  C[o] . out + d[o]  over the
 * current box, by back-substitution (taking the better of it and IBP).
 * Out: lower[o]; when lam != NULL, lam[o * n_in ..] receives the linear
 * coefficients on the input whose minimisation gave the bound (used to pick
 * counterexample candidates). */
nnc_status nnc_bnd_linear_lower(nnc_bnd *b, int nobj, const double *C, const double *d, double *lower, double *lam);

/* The ReLU / LeakyReLU (leak in [0, 1]) relaxation CROWN uses for a
 * pre-activation in [l, u]: lines  al z + bl <= act(z) <= au z + bu  valid on
 * [l, u] in exact arithmetic (slopes and intercepts rounded to keep them so),
 * lower slope chosen adaptively (1 when u >= -l, else leak). */
void nnc_bnd_relax_relu(double l, double u, double leak, double *al, double *bl, double *au, double *bu);

/* ---- refinement: optimisable ReLU lower slopes and ReLU splits ----
 * ReLU/LeakyReLU neurons are numbered 0 .. nnc_bnd_relu_count()-1, node by
 * node in topological order.  A neuron is unstable when its pre-activation
 * interval contains 0 strictly. */
int64_t nnc_bnd_relu_count(const nnc_bnd *b);

/* Split constraints used by every later nnc_bnd_compute: split[f] = +1
 * restricts to the points where neuron f's pre-activation is >= 0, -1 to
 * <= 0, 0 none.  The bounds computed are then valid on the part of the box
 * that satisfies all constraints (not on the rest).  The array is borrowed
 * (NULL: no splits) and must outlive its use. */
void nnc_bnd_set_splits(nnc_bnd *b, const signed char *split);

/* After nnc_bnd_compute: 1 when the bounds prove that no point of the box
 * satisfies the split constraints (the sub-problem is empty). */
int nnc_bnd_infeasible(const nnc_bnd *b);

/* The terms of a CONV node (constant float weights) or an AVERAGEPOOL node
 * of m as a sparse matrix by output: output j = sum of w[k] x[idx[k]] for k
 * in [ptr[j], ptr[j + 1]) (a conv's bias not included; an average pool's
 * weights 1/count rounded to nearest).  Out: *ptr (numel(out) + 1), *idx,
 * *w, malloc'd.  Returns 0; 1 (nothing allocated) when there would be more
 * than max_nnz terms or the input has 2^31 elements or more; -1 when out of
 * memory. */
int nnc_bnd_conv_csr(const nnc_model *m, const nnc_node *n, int64_t max_nnz, int64_t **ptr, int32_t **idx, double **w);

/* After nnc_bnd_compute: pre-activation bounds of every ReLU neuron. */
void nnc_bnd_relu_bounds(const nnc_bnd *b, double *lo, double *hi);

/* Lower-line slopes of the ReLU relaxations (alpha of alpha-CROWN).  get
 * reads all of them; set changes those of unstable neurons, clipped to
 * [leak, 1] where every slope gives a sound line.  nnc_bnd_compute resets
 * them to CROWN's adaptive choice; intermediate bounds are not recomputed. */
void nnc_bnd_get_slopes(const nnc_bnd *b, double *alpha);
void nnc_bnd_set_slopes(nnc_bnd *b, const double *alpha);

/* Sigmoid / tanh neurons, numbered 0 .. nnc_bnd_smooth_count()-1 node by
 * node in topological order, each with two line slopes (lower, upper) as
 * fractions t in [0, 1] of the function's largest derivative on the
 * neuron's interval: t[2k] the lower line's, t[2k+1] the upper's.  Every
 * slope gives valid lines (the intercepts are the extrema of f(y) - a y on
 * the interval, widened for rounding and libm error).  nnc_bnd_compute
 * sets both to the chord slope; get reads, set changes them (clipped to
 * [0, 1]); intermediate bounds are not recomputed.  set_smooth_grad
 * borrows an array of 2 n_smooth where nnc_bnd_objective_grad and
 * nnc_bnd_pre_grad then also write the bound's gradient with respect to
 * these t (NULL: none). */
int64_t nnc_bnd_smooth_count(const nnc_bnd *b);
void nnc_bnd_get_smooth_slopes(const nnc_bnd *b, double *t);
void nnc_bnd_set_smooth_slopes(nnc_bnd *b, const double *t);
void nnc_bnd_set_smooth_grad(nnc_bnd *b, double *g);

/* Multipliers of the split constraints (beta-CROWN), n_relu entries >= 0,
 * read by nnc_bnd_objective_grad only (per objective), when splits are set:
 * it bounds  C . out + d - sum_f beta_f s_f z_f, a lower bound of the
 * objective wherever the constraints s_f z_f >= 0 hold.  Borrowed; NULL: none. */
void nnc_bnd_set_beta(nnc_bnd *b, const double *beta);

/* Sound lower bound of one objective  C . out + d  by back-substitution with
 * the current slopes and multipliers (no IBP), with optional, per ReLU neuron:
 * grad, the (sub)gradient of that bound with respect to the slopes;
 * gbeta, its (sub)gradient with respect to the multipliers;
 * coef, the objective's coefficient on the neuron's output (BaBSR scores).
 * lam (n_in) as in nnc_bnd_linear_lower. */
nnc_status nnc_bnd_objective_grad(nnc_bnd *b, const double *C, double d, double *lower, double *lam, double *grad,
                                  double *gbeta, double *coef);

/* The lower bound nnc_bnd_objective_grad gives for C . out once neuron f
 * is split to side +1 (pre-activation >= 0) or -1 (<= 0), with every other
 * bound and relaxation as they are: the neuron's lines become its exact
 * piece there.  A branching estimate (filtered smart branching): sound on
 * that child, though looser than the child's own bounds.  Returns ARG for f
 * out of range. */
nnc_status nnc_bnd_split_lower(nnc_bnd *b, const double *C, int64_t f, int side, double *lower);

/* Intermediate bounds by optimised slopes (alpha-CROWN on the hidden
 * layers), over neurons f in [0, n_relu + n_smooth): ReLU neuron f, then
 * sigmoid/tanh neuron f - n_relu.  pre_grad is nnc_bnd_objective_grad for
 * the objective sign * z_f, neuron f's pre-activation (sign +1: its lower
 * bound, -1: minus its upper bound), by back-substitution from f's node with
 * the current slopes (grad: n_relu entries, 0 for neurons at or after f's
 * node); ARG for f out of range or sign not +-1.  pre_pos is f's node's
 * order position.  pre_exact says whether f's pre-activation interval is
 * exact (IBP of at most one mixing linear map of the input: no slope or
 * multiplier can narrow it).  pre_bounds reads f's pre-activation interval.
 * pre_narrow intersects it with [l, u] (enclosures of it on this problem)
 * and rebuilds the neuron's relaxation (adaptive slope) and output
 * interval; returns 1 when they cross beyond rounding (the problem is
 * empty; nnc_bnd_infeasible then says so), else 0.  Later bounds are not
 * recomputed: they stay valid, and nnc_bnd_state_save keeps the narrowed
 * ones for sub-problems. */
nnc_status nnc_bnd_pre_grad(nnc_bnd *b, int64_t f, int sign, double *lower, double *grad, double *gbeta);
int nnc_bnd_pre_pos(const nnc_bnd *b, int64_t f);
int nnc_bnd_pre_exact(const nnc_bnd *b, int64_t f);
void nnc_bnd_pre_bounds(const nnc_bnd *b, int64_t f, double *l, double *u);
int nnc_bnd_pre_narrow(nnc_bnd *b, int64_t f, double l, double u);

#endif
