/* nncert GPU backend, plain C interface (callers never include CUDA headers).
 * Built from the .cu files in gpu/ with nvcc when nvcc is found (make GPU=1, the default
 * then); with make GPU=0 every function reports NNC_STATUS_UNSUPPORTED and
 * callers stay on the CPU path.  Prefix: nnc_gpu_. */
#ifndef NNC_GPU_H
#define NNC_GPU_H

#include "common/nnc.h"
#include "prover/prover.h"

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

/* Returns: 1 when this build contains the CUDA unit. */
int nnc_gpu_compiled(void);

/* Out: *count, the number of usable CUDA devices (0 without a driver or device).
 * Returns: OK, or UNSUPPORTED in a build without the CUDA unit. */
nnc_status nnc_gpu_device_count(int *count, char *err, size_t errlen);

/* Apply an activation to n floats on device 0 (host buffers in and out,
 * copied over), with the same per-element math as the CPU (common/act.h).
 * Used by the equality check gpu/check.sh and the unit test. */
nnc_status nnc_gpu_activation_f32(nnc_gpu_act act, float alpha, const float *in, float *out, size_t n,
                                  char *err, size_t errlen);

/* ---- Groth16 prover kernels (gpu/msm.cu, gpu/ntt.cu) ----
 * Same inputs, outputs and conventions as the CPU functions in
 * prover/msm_impl.h and prover/ntt_impl.h, and byte-identical results
 * (tests/unit/test_gpu_prover.c checks).  Host buffers in and out, copied
 * to device 0.  Returns: NNC_STATUS_OK; NNC_STATUS_UNSUPPORTED for a build
 * without CUDA or a CUDA failure (err names the call, file and line);
 * NNC_STATUS_INVALID / NNC_STATUS_LIMIT for sizes as the CPU functions;
 * the MSM also NNC_STATUS_LIMIT when n * windows exceeds 2^31 - 1. */

/* *out = sum_{i<n} [scalars[i]] points[i]; as nnc_prv_g1_msm / nnc_prv_g2_msm. */
nnc_status nnc_gpu_g1_msm(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n,
                          char *err, size_t errlen);
nnc_status nnc_gpu_g2_msm(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n,
                          char *err, size_t errlen);
/* In-place NTT of a[n]; as nnc_prv_ntt. */
nnc_status nnc_gpu_ntt(nnc_prv_fr *a, size_t n, int inverse, char *err, size_t errlen);
/* In-place coset NTT (inverse = 0, as nnc_prv_coset_ntt) or its inverse
 * (as nnc_prv_coset_intt); shift NULL is w_(2n). */
nnc_status nnc_gpu_coset_ntt(nnc_prv_fr *a, size_t n, int inverse, const nnc_prv_fr *shift, char *err,
                             size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
