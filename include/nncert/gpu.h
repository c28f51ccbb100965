/* nncert GPU backend, plain C interface (callers never include CUDA headers).
 * Built from the .cu files in gpu/ with nvcc when nvcc is found (make GPU=1, the default
 * then) into the plugin libnncert-gpu.so, which libnncert loads on the first
 * call of any of these functions (gpu/plugin.c; a plugin that cannot be
 * loaded makes them report NNC_STATUS_DEVICE naming the file and
 * dlerror()); with make GPU=0 every function reports NNC_STATUS_UNSUPPORTED
 * and callers stay on the CPU path.  A CUDA, cuBLAS or NCCL call that fails
 * is reported as NNC_STATUS_DEVICE, naming the call, file and line.
 * Prefix: nnc_gpu_. */
#ifndef NNC_GPU_H
#define NNC_GPU_H

#include "nncert/nnc.h"
#include "nncert/embbag.h"
#include "nncert/prover.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Activation codes for nnc_gpu_activation_f32. */
typedef enum nnc_gpu_act {
    NNC_GPU_ACT_RELU = 0,
    NNC_GPU_ACT_LEAKY = 1,
    NNC_GPU_ACT_SIGMOID = 2,
    NNC_GPU_ACT_TANH = 3
} nnc_gpu_act;

/* Returns: 1 when this build has the CUDA unit (as the plugin; this call
 * does not load it). */
NNC_API int nnc_gpu_compiled(void);

/* Out: *count, the number of usable CUDA devices (0 without a driver or device).
 * Returns: OK; UNSUPPORTED in a build without the CUDA unit; DEVICE where
 * the plugin cannot be loaded. */
NNC_API nnc_status nnc_gpu_device_count(int *count, char *err, size_t errlen);

/* Apply an activation to n floats on device 0 (host buffers in and out,
 * copied over), with the same per-element math as the CPU (common/act.h).
 * Used by the equality check gpu/check.sh and the unit test. */
NNC_API nnc_status nnc_gpu_activation_f32(nnc_gpu_act act, float alpha, const float *in, float *out, size_t n,
                                          char *err, size_t errlen);

/* ---- Verifier: sampling and batched interval bounds (gpu/verify.cu) ----
 * For models that are chains of dense layers (verifier/sample_impl.h).  The
 * per-element formulas are those of verifier/sample_math.h and the random
 * points those of common/philox.h (cuRAND's Philox4x32-10 with the same
 * seed / subsequence / offset mapping), so the CPU tests exercise them. */

/* One dense layer: y = act(x w + b), w [K][N] row-major, b N values, act
 * ReLU (relu = 1) or the identity. */
typedef struct nnc_gpu_dense {
    int K, N;
    double *w;
    double *b;
    int relu;
} nnc_gpu_dense;

typedef struct nnc_gpu_smp nnc_gpu_smp; /* device buffers, cuBLAS handle; one thread at a time */

/* Upload the layers (copied) for batches of up to max_batch samples. */
NNC_API nnc_status nnc_gpu_smp_create(nnc_gpu_smp **out, const nnc_gpu_dense *layers, int n_layers, int max_batch,
                                      char *err, size_t errlen);
NNC_API void nnc_gpu_smp_destroy(nnc_gpu_smp *g);

/* Set the case: nopen open leaves packed in leaves[nopen][2 * n_in] (lo then
 * hi), their running volume sums cum (tw = cum[nopen - 1]); the unsafe set as
 * nnc_smp_margin takes it (nrows rows of n_out coefficients C, right-hand
 * sides d, disjunct starts dstart[ndisj + 1]); tau the decision tolerance. */
NNC_API nnc_status nnc_gpu_smp_case(nnc_gpu_smp *g, const double *leaves, const double *cum, size_t nopen, double tw,
                                    int nrows, const double *C, const double *d, const int *dstart, int ndisj,
                                    double tau, char *err, size_t errlen);

/* Draw samples with subsequences sub0 .. sub0 + cnt - 1 of seed on the device
 * (curand_init(seed, sub, 0) + curand_uniform2_double), evaluate them in
 * float64 (cublasDgemm + bias/ReLU kernels), compute their margins.
 * Out: verdict[i] = 1 (margin < -tau), 0 (margin > tau) or -1 (undecided);
 *      xs[cnt][n_in] the points when xs != NULL. */
NNC_API nnc_status nnc_gpu_smp_run(nnc_gpu_smp *g, uint64_t seed, uint64_t sub0, int cnt, signed char *verdict,
                                   double *xs, char *err, size_t errlen);

/* Sound interval bounds of a dense chain's outputs for nbox boxes in one
 * batch (one thread per box and neuron, nnc_smp_interval_neuron): equal bit
 * for bit to nnc_smp_ibp_batch on the CPU. */
NNC_API nnc_status nnc_gpu_ibp_dense(const nnc_gpu_dense *layers, int n_layers, int nbox, const double *lo,
                                     const double *hi, double *out_lo, double *out_hi, char *err, size_t errlen);

/* ---- Verifier: batched beta-CROWN passes (gpu/bab.cu) ----
 * The passes of verifier/babdense.c's branch and bound over ReLU splits
 * for a chain of dense layers (every layer's w set; ReLU after every layer
 * but the last), on many items at once: cuBLAS products (float64 for the
 * sound bounds, float32 for the optimisation) and per-element kernels with
 * the formulas of verifier/bab_math.h, which the CPU passes use too.  The
 * sound pass bounds every rounding error as the CPU's does (any summation
 * order), so its bounds hold on the device as on the host; they agree with
 * the CPU's to within those error terms, and the optimised variables to
 * within float32 rounding of a different summation order. */

/* A sub-problem's bounds, one block of bytes laid out as nr1 = nr + 1
 * entries each of: rl, rh, au, bu (double), auf, buf (float), state
 * (signed char): the pre-activation bounds, the unstable neurons' upper
 * lines, their float32 copies and -1 / +1 / 0 for inactive / active /
 * unstable.  NNC_GPU_BAB_BND_BYTES(nr) bytes. */
#define NNC_GPU_BAB_BND_BYTES(nr) ((size_t)((nr) + 1) * (4 * sizeof(double) + 2 * sizeof(float) + 1))

/* One item of a pass. */
typedef struct nnc_gpu_bab_item {
    int32_t dom;           /* its sub-problem: an index into the pass's split and bnd */
    int32_t row;           /* an objective row of C (target d[row]); -1: the bound of neuron nj of layer ktop */
    int32_t nj;
    signed char sgn;       /* neuron bounds: +1 the lower bound of z, -1 minus its upper bound */
    signed char ovr_side;  /* with ovr >= 0: one more split of neuron ovr to this side (a trial) */
    int64_t ovr;
} nnc_gpu_bab_item;

/* One pass over n items of one leaf (every item of a pass is an objective
 * row, or every one a neuron bound).  mode >= 0: that many Adam steps on
 * each item's variables (float32), the best kept, then its sound float64
 * bound; -1: one float32 estimate (not sound); -2: the sound bound with
 * CROWN's adaptive slopes and no multipliers (ab unused). */
typedef struct nnc_gpu_bab_pass {
    int mode, ktop;          /* ktop = L - 1: objective rows; else bounds of layer ktop's neurons */
    size_t n;
    const nnc_gpu_bab_item *items;
    size_t ndom;
    const signed char *const *split; /* per sub-problem: nr split signs (+1, -1, 0) */
    const void *const *bnd;          /* per sub-problem: its bounds (NNC_GPU_BAB_BND_BYTES) */
    int nrows, n_out;
    const double *C, *d;             /* objectives: nrows rows of n_out coefficients; targets */
    const double *lo, *hi, *xmag;    /* the leaf: its box (n_in each) and max |x| on it */
    const float *lof, *hif;          /* float32 copies of lo, hi */
    const double *ew;                /* error weights, per layer per output (sum of the layers' N) */
    float *ab;     /* in/out, n x 2 nr: slopes (nr) then multipliers (nr) per item (mode != -2) */
    double *lower; /* out, n */
    float *coef;   /* out, n x nr: the last estimate's coefficient on each ReLU output; or NULL */
    void (*tick)(void *ctx); /* or NULL: called between optimisation steps, on the calling thread */
    void *tick_ctx;
} nnc_gpu_bab_pass;

typedef struct nnc_gpu_bab nnc_gpu_bab; /* device copies of the chain, cuBLAS handle, pass buffers */

/* Upload the chain (layers[k].w all set, K of each = N of the one before),
 * with gamma the dot-product error factor of its longest sum (as the CPU
 * pass's).  Returns OK; INVALID for a chain without w or a ReLU layer count
 * other than n_layers - 1; NOMEM; UNSUPPORTED without CUDA; DEVICE without
 * a device, or for a CUDA / cuBLAS failure (device memory included; err
 * names the call). */
NNC_API nnc_status nnc_gpu_bab_create(nnc_gpu_bab **out, const nnc_gpu_dense *layers, int n_layers, double gamma,
                                      char *err, size_t errlen);
NNC_API void nnc_gpu_bab_destroy(nnc_gpu_bab *g);

/* Run one pass.  Calls from several threads are serialised.  Returns OK,
 * INVALID (bad sizes or indices), DEVICE (a CUDA / cuBLAS failure: err
 * names the call). */
NNC_API nnc_status nnc_gpu_bab_run(nnc_gpu_bab *g, const nnc_gpu_bab_pass *ps, char *err, size_t errlen);

/* ---- Groth16 prover kernels (gpu/msm.cu, gpu/ntt.cu) ----
 * Same inputs, outputs and conventions as the CPU functions in
 * prover/msm_impl.h and prover/ntt_impl.h, and byte-identical results
 * (tests/unit/test_gpu_prover.c checks).  Host buffers in and out, copied
 * to device 0.  Returns: NNC_STATUS_OK; NNC_STATUS_UNSUPPORTED for a build
 * without CUDA; NNC_STATUS_DEVICE for a CUDA failure (err names the call,
 * file and line);
 * NNC_STATUS_INVALID / NNC_STATUS_LIMIT for sizes as the CPU functions;
 * the MSM also NNC_STATUS_LIMIT when n * windows exceeds 2^31 - 1. */

/* *out = sum_{i<n} [scalars[i]] points[i]; as nnc_prv_g1_msm / nnc_prv_g2_msm. */
NNC_API nnc_status nnc_gpu_g1_msm(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n,
                                  char *err, size_t errlen);
NNC_API nnc_status nnc_gpu_g2_msm(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n,
                                  char *err, size_t errlen);
/* In-place NTT of a[n]; as nnc_prv_ntt. */
NNC_API nnc_status nnc_gpu_ntt(nnc_prv_fr *a, size_t n, int inverse, char *err, size_t errlen);
/* In-place coset NTT (inverse = 0, as nnc_prv_coset_ntt) or its inverse
 * (as nnc_prv_coset_intt); shift NULL is w_(2n). */
NNC_API nnc_status nnc_gpu_coset_ntt(nnc_prv_fr *a, size_t n, int inverse, const nnc_prv_fr *shift, char *err,
                                     size_t errlen);

/* Embedding bags on device 0 (gpu/embbag.cu: one warp per bag), as
 * nnc_mdl_embbag_f32 and bit-identical to it (models/embbag_math.h); host
 * buffers in and out.  Out: *kernel_s (may be NULL) the kernel's seconds. */
NNC_API nnc_status nnc_gpu_embbag_f32(float *out, const float *table, int64_t rows, int64_t dim,
                                      const nnc_embbag_bags *bags, nnc_embbag_mode mode, int allow_empty,
                                      double *kernel_s, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
