/* The verifier's sampling stage (internal to the verifier module).
 *
 * Points.  Sample s of a case is drawn from its own Philox4x32-10
 * subsequence sub0 + s (offset 0) of the stream keyed by the seed: block 0's
 * first two words (curand_uniform2_double's first double) pick an open leaf
 * in proportion to its volume, and block 1 + i/2 gives coordinates i and i+1
 * (common/philox.h, verifier/sample_math.h).  The CPU computes the blocks of
 * a sample in vectorised form (AVX-512 when the CPU has it) and the GPU with
 * cuRAND's curandStatePhilox4_32_10_t; both give the same doubles as the
 * scalar nnc_philox_uniform2_double calls (tests/unit/test_sample.c).
 *
 * Verdicts.  A sample is a hit when the float64 reference runtime's output
 * (nnc_rt_run, NNC_PRECISION_F64, on the CPU) has violation margin <= 0.
 * That definition is kept bit for bit while a faster evaluator decides most
 * samples: for a model that is a chain of dense layers (Gemm/MatMul with
 * constant float weights, bias Add, Relu, Flatten-like views), a priori
 * forward error analysis over the case's box (interval bounds of every layer
 * and gamma_n = n u / (1 - n u) for each dot product, any summation order)
 * gives tau with |margin_fast(x) - margin_ref(x)| <= tau for every point x of
 * the box.  A fast margin > tau proves the reference margin > 0 (no hit), one
 * < -tau proves it < 0 (hit); the few samples within tau of the boundary, and
 * any non-finite fast margin, are re-decided by the reference runtime.  The
 * fast evaluators are the float32 runtime with its fused dense plan (CPU) and
 * cuBLAS float64 products (GPU).  On deep nets the box's tau is useless
 * (ACAS Xu: 26 against margins near 0.04), so the CPU then screens with a
 * running, per-sample bound instead (sample_run.c, formulas in
 * sample_math.h): float32 values with, beside each, a bound on its distance
 * to the reference's value built from the magnitudes actually met, where a
 * ReLU that is off by more than its bound stops the error.  So counts,
 * reports and counterexamples are identical on either path for a given seed.
 *
 * Thread safety: a sampler is used by one thread at a time. */
#ifndef NNC_SAMPLE_IMPL_H
#define NNC_SAMPLE_IMPL_H

#include "nncert/gpu.h"
#include "models/model_impl.h"

/* A model seen as a chain of dense layers: x_{l+1} = act(x_l W_l + b_l) with
 * W_l stored [K][N] row-major (a copy; exact stored weights), b_l N values
 * (zeros when the model has none) and act ReLU or the identity. */
/* What a layer of a chain extracted with NNC_SMP_CHAIN_LINEAR may carry
 * beyond nnc_gpu_dense: sparse terms in place of w, and bounds on the
 * rounding of weights it computed (a composition of linear nodes, an
 * average pool's 1/count, a folded BatchNormalization). */
typedef struct nnc_smp_lin {
    int64_t *ptr; /* sparse terms by output (then w is NULL): output j = sum  */
    int32_t *idx; /* of sw[k] x[idx[k]], k in [ptr[j], ptr[j + 1]), + b[j]  */
    double *sw;
    double *werr; /* per weight (K N dense, ptr[N] sparse), |exact - stored| at most; or NULL (exact) */
    double *berr; /* per output, the same for b; or NULL */
} nnc_smp_lin;

typedef struct nnc_smp_chain {
    int n_layers;
    nnc_gpu_dense *layers; /* owned, with their w and b */
    nnc_smp_lin *lin;      /* n_lin (= n_layers once extracted), or NULL: every layer dense and exact */
    int n_lin;
    int n_in, n_out;
    int float_weights;     /* 1: every weight and bias is a float value */
    /* A chain through residual connections (nnc_smp_chain_extract_res), or
     * NULL: per ReLU neuron of the chain (the outputs of its ReLU layers, in
     * order), the model's ReLU neuron it is (the nnc_bnd order: ReLU nodes
     * in topological order, n_model_relu neurons), and for a neuron that
     * carries an earlier ReLU output through a ReLU layer unchanged (its
     * pre-activation is that output, >= 0), the chain neuron it copies, else
     * -1.  A copy's model neuron is its original's. */
    int64_t *relu_src, *carry_from;
    int64_t n_model_relu;
} nnc_smp_chain;

/* Out: *out, the model's dense chain.  Returns OK, UNSUPPORTED (not such a
 * chain; err says which node), NOMEM. */
nnc_status nnc_smp_chain_extract(nnc_smp_chain **out, const nnc_model *m, char *err, size_t errlen);
/* The same for the part of m from value v0 (which the nodes at order
 * positions t0.. must continue as a chain) to its output.  flags
 * NNC_SMP_CHAIN_LINEAR: also Conv (constant weights), AveragePool,
 * BatchNormalization and Pad by nothing, as sparse layers (ch->lin), and
 * every run of layers without a ReLU between them composed into one layer
 * (in float64, each composed weight's rounding bounded in lin->werr, berr);
 * the result may then have any layer sparse. */
#define NNC_SMP_CHAIN_LINEAR 1u
nnc_status nnc_smp_chain_extract_from(nnc_smp_chain **out, const nnc_model *m, int v0, int t0, unsigned flags,
                                      char *err, size_t errlen);
void nnc_smp_chain_free(nnc_smp_chain *ch);

/* One node of a chain's walk (the loop of nnc_smp_chain_extract_from): the
 * chain ch's current value *cur (*bias_ok: an Add of a bias row may follow),
 * both updated.  *bad = 1 where n does not continue the chain as such.
 * Returns OK, UNSUPPORTED, NOMEM. */
nnc_status nnc_smp_chain_step(nnc_smp_chain *ch, const nnc_model *m, const nnc_node *n, unsigned flags, int *cur,
                              int *bias_ok, int *bad);

/* nnc_smp_chain_extract_from (NNC_SMP_CHAIN_LINEAR) for models whose ReLU
 * layers are joined by residual connections (chain_res.c): an Add or Sub of
 * two computed values, each an affine function of the outputs of the last
 * ReLU layer before it and of earlier ReLU outputs still needed.  Those
 * earlier outputs are carried through each ReLU layer between as extra
 * neurons of it with identity rows (relu(h) = h for h = relu(z) >= 0, so
 * the chain computes the model exactly), ch->relu_src and carry_from say
 * which is which.  A residual connection from the input itself (not a ReLU
 * output), a computed value used twice, or one that crosses a ReLU layer
 * without being a ReLU output is UNSUPPORTED (err says which node). */
nnc_status nnc_smp_chain_extract_res(nnc_smp_chain **out, const nnc_model *m, int v0, int t0, char *err, size_t errlen);

/* NNC_SMP_CHAIN_LINEAR's parts (chain_lin.c).  Each push appends one layer
 * (ReLU 0) and returns OK, UNSUPPORTED or NOMEM; on failure the chain may
 * hold a partial layer, to be freed with it. */
nnc_status nnc_smp_lin_sync(nnc_smp_chain *ch); /* ch->lin as long as ch->layers */
void nnc_smp_lin_free(nnc_smp_lin *l);
/* y = x + sign c (c: nc = 1 or n values) */
nnc_status nnc_smp_lin_push_add(nnc_smp_chain *ch, int64_t n, const double *c, int64_t nc, double sign);
/* a CONV (constant weights and bias) or AVERAGEPOOL node */
nnc_status nnc_smp_lin_push_conv(nnc_smp_chain *ch, const nnc_model *m, const nnc_node *n);
/* a BATCHNORMALIZATION node (constant parameters, batch 1) */
nnc_status nnc_smp_lin_push_batchnorm(nnc_smp_chain *ch, const nnc_model *m, const nnc_node *n);
/* every run of layers without a ReLU between them composed into one */
nnc_status nnc_smp_lin_compose(nnc_smp_chain *ch);

/* nnc_smp_chain_extract for the engines that follow a chain's affine
 * functions to its outputs (symfwd.c, exact.c): also refuses (UNSUPPORTED,
 * err says which) a non-finite weight or bias (NaN would pass a ReLU
 * relaxation as finite bounds) and an output layer ending in a ReLU (its
 * functions bound relu(z) on one side only). */
nnc_status nnc_smp_chain_extract_affine(nnc_smp_chain **out, const nnc_model *m, char *err, size_t errlen);
/* UNSUPPORTED (err names the layer) when a weight or bias of ch is not
 * finite (NaN would pass a relaxation as finite bounds), else OK. */
nnc_status nnc_smp_chain_check_finite(const nnc_smp_chain *ch, char *err, size_t errlen);

/* Sound interval bounds of the chain's outputs for nbox boxes at once (box b:
 * lo[b * n_in ..], hi[b * n_in ..]); out_lo/out_hi get nbox * n_out values.
 * The CPU reference of nnc_gpu_ibp_dense (the same per-neuron formula,
 * nnc_smp_interval_neuron, in the same order: equal bit for bit).
 * Returns OK or NOMEM. */
nnc_status nnc_smp_ibp_batch(const nnc_smp_chain *ch, int nbox, const double *lo, const double *hi, double *out_lo,
                             double *out_hi);

/* Per-output bounds of |fast - exact| and |ref - exact| and of |exact| over
 * the box [lo, hi], for the fast evaluator with unit roundoff u_fast that
 * rounds its input to that precision first (in_round = 1) or not.
 * Out: e_fast, e_ref, y_abs (n_out each).  Returns OK or NOMEM. */
nnc_status nnc_smp_chain_errors(const nnc_smp_chain *ch, const double *lo, const double *hi, double u_fast,
                                int in_round, double *e_fast, double *e_ref, double *y_abs);

/* The same bounds for a model that is not a dense chain, from the prepared
 * graph itself (verifier/sample_graph.c: Conv, Gemm, MatMul, Add, Sub,
 * Relu, MaxPool, AveragePool and views, constants of float values), for the
 * runtimes' evaluation of it.  nnc_smp_graph_check says whether m is such a
 * graph: OK, or UNSUPPORTED (err names the node).  nnc_smp_graph_errors
 * returns OK or NOMEM; e_fast is +inf where a float32 value may overflow.
 * Its bounds grow with each layer's sum |w| (the worst case of every
 * rounding): a shallow net gets a useful tolerance (VeriVital's Convnet
 * nets: about 0.002 to 0.02 against outputs of 1 to 100), a deep one not
 * (cifar10_resnet resnet_2b at eps 0.008: about 8, with CROWN's bounds for
 * the magnitudes too); the screen then hands every sample to the
 * reference after its first batch. */
nnc_status nnc_smp_graph_check(const nnc_model *m, char *err, size_t errlen);
nnc_status nnc_smp_graph_errors(const nnc_model *m, const double *lo, const double *hi, double u_fast, int in_round,
                                double *e_fast, double *e_ref, double *y_abs);

/* Returns: tau such that two evaluations of nnc_smp_margin at outputs within
 * e_fast + e_ref of each other (both below y_abs + max(e_fast, e_ref) in
 * magnitude) differ by at most tau. */
double nnc_smp_margin_tolerance(const double *C, const double *d, int nrows, int n_out, const double *e_fast,
                                const double *e_ref, const double *y_abs);

/* The float32 screen with a running error bound (verifier/sample_run.c):
 * the chain's float32 outputs and, per output, s >= |y - y64| where y64 is
 * the float64 reference runtime's output at the same (double) point. */
typedef struct nnc_smp_run nnc_smp_run;

/* Returns OK, UNSUPPORTED (weights not all float values) or NOMEM. */
nnc_status nnc_smp_run_create(nnc_smp_run **out, const nnc_smp_chain *ch);
void nnc_smp_run_free(nnc_smp_run *r);

/* Out: y[cnt][n_out], s[cnt][n_out] for the points xs[cnt][n_in], on up to
 * two threads; simd = 0 forces the portable build of the same code (equal
 * bit for bit).  Returns OK or NOMEM. */
nnc_status nnc_smp_run_eval(const nnc_smp_run *r, int cnt, const double *xs, float *y, float *s, int simd);

/* Out: x[n], the point of sample number `sub` (its Philox subsequence):
 * leaf picked by volume among nopen open leaves (leaves[i]: n lo then n hi),
 * coordinates drawn in it.  Scalar reference (nnc_philox_uniform2_double). */
void nnc_smp_point_ref(double *x, int n, uint64_t seed, uint64_t sub, double *const *leaves, const double *cum,
                       size_t nopen, double tw);

/* The same for samples sub0 .. sub0 + cnt - 1 into xs[cnt][n], vectorised and
 * on up to two threads; bit-identical to nnc_smp_point_ref. */
void nnc_smp_points(double *xs, int cnt, int n, uint64_t seed, uint64_t sub0, double *const *leaves,
                    const double *cum, size_t nopen, double tw);

/* Out: x[n], coordinates i, i+1 from block i/2 of subsequence `sub` (no
 * leaf pick): the falsification round's points.  Scalar reference. */
void nnc_smp_box_point_ref(double *x, int n, uint64_t seed, uint64_t sub, const double *lo, const double *hi);
/* The same for sub0 .. sub0 + cnt - 1 into xs[cnt][n], vectorised. */
void nnc_smp_box_points(double *xs, int cnt, int n, uint64_t seed, uint64_t sub0, const double *lo, const double *hi);

/* What one case's sampling needs. */
typedef struct nnc_smp_case {
    uint64_t seed, sub0;        /* sample s uses subsequence sub0 + s */
    double *const *leaves;      /* open leaves, n_in lo then n_in hi each */
    const double *cum;          /* running sums of their volumes */
    size_t nopen;
    double tw;                  /* cum[nopen - 1] */
    const double *box_lo, *box_hi; /* a box containing every leaf */
    int nrows, ndisj;           /* unsafe set, as nnc_smp_margin takes it */
    const double *C, *d;
    const int *dstart;
} nnc_smp_case;

typedef struct nnc_smp nnc_smp;

/* A sampler for model m on the CPU (device 0) or the GPU (device 1).
 * Returns OK; for the GPU, UNSUPPORTED when this build has no CUDA, no device
 * is found, or m is not a dense chain (err says which). */
nnc_status nnc_smp_create(nnc_smp **out, const nnc_model *m, int device, char *err, size_t errlen);
void nnc_smp_destroy(nnc_smp *s);

/* Returns: the largest cnt nnc_smp_batch takes. */
int nnc_smp_batch_max(const nnc_smp *s);

/* Start a case (the pointers in sc must stay valid until the next call). */
nnc_status nnc_smp_case_begin(nnc_smp *s, const nnc_smp_case *sc, char *err, size_t errlen);

/* Samples first .. first + cnt - 1 of the current case.
 * Out: hit[i] = 1 when sample first + i is a hit (see above), else 0;
 *      xs[i * n_in ..] its point for every hit (all points on the CPU).
 * Returns OK or a code from the runtime or the GPU. */
nnc_status nnc_smp_batch(nnc_smp *s, uint64_t first, int cnt, double *xs, unsigned char *hit, char *err,
                         size_t errlen);

/* Verdicts of cnt given points xs[cnt][n_in] inside the current case's box
 * (hit[i] as above), on the CPU.  Returns OK or a code from the runtime. */
nnc_status nnc_smp_decide(nnc_smp *s, int cnt, double *xs, unsigned char *hit, char *err, size_t errlen);

/* Counters since creation: samples decided by the fast evaluator, and
 * samples re-decided by the reference runtime. */
void nnc_smp_counts(const nnc_smp *s, uint64_t *fast, uint64_t *rechecked);

/* Test hook: force the tolerance of the current case (e.g. 0, or +inf to
 * recheck everything); either turns the running-bound screen off. */
void nnc_smp_set_tolerance(nnc_smp *s, double tau);

/* How the CPU screens the current case: the float32 runtime with the a
 * priori tolerance over the case's box, or the running per-sample bound
 * (sample_run.c), or not at all.  A case starts with the box screen when
 * its tolerance is finite and moves to the running bound when the box
 * screen leaves more than 5% of a batch undecided (or starts there when it
 * is infinite); more than 25% undecided by the running bound turns
 * screening off.  Only speed depends on it, never a verdict. */
typedef enum nnc_smp_mode {
    NNC_SMP_MODE_REF = 0,
    NNC_SMP_MODE_BOX = 1,
    NNC_SMP_MODE_RUN = 2
} nnc_smp_mode;

/* Test / benchmark hook: force the mode of the current case (BOX only
 * where a float32 runtime exists, RUN only for float-weight chains). */
void nnc_smp_set_mode(nnc_smp *s, nnc_smp_mode mode);
nnc_smp_mode nnc_smp_get_mode(const nnc_smp *s);

#endif
