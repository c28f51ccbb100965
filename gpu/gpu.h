/* nncert GPU backend, plain C interface (callers never include CUDA headers).
 * Built from the .cu files in gpu/ with nvcc when nvcc is found (make GPU=1, the default
 * then); with make GPU=0 every function reports NNC_STATUS_UNSUPPORTED and
 * callers stay on the CPU path.  Prefix: nnc_gpu_. */
#ifndef NNC_GPU_H
#define NNC_GPU_H

#include "common/nnc.h"

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

#ifdef __cplusplus
}
#endif
#endif
