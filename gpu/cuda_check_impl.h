// Internal to gpu/*.cu: checking CUDA runtime calls.  A failed call records
// its statement, file, line and CUDA's message in the caller's (err, errlen)
// buffer as NNC_STATUS_DEVICE instead of aborting.
#ifndef NNC_GPU_CUDA_CHECK_IMPL_H
#define NNC_GPU_CUDA_CHECK_IMPL_H

#include "nncert/nnc.h"

#include <cuda_runtime.h>

#define NNC_CUDA_ERROR(e_, what)                                                                        \
    nnc_err(err, errlen, NNC_STATUS_DEVICE, "CUDA: %s failed at %s:%d: %s", what, __FILE__, __LINE__, \
            cudaGetErrorString(e_))

// Return the error status from the enclosing function.
#define NNC_CUDA_CHECK(call)                                  \
    do {                                                      \
        cudaError_t e_ = (call);                              \
        if (e_ != cudaSuccess) return NNC_CUDA_ERROR(e_, #call); \
    } while (0)

// Store the error status in `st` and jump to `label` (for functions that
// free their device buffers there).
#define NNC_CUDA_CHECK_GOTO(call, label)         \
    do {                                         \
        cudaError_t e_ = (call);                 \
        if (e_ != cudaSuccess) {                 \
            st = NNC_CUDA_ERROR(e_, #call);      \
            goto label;                          \
        }                                        \
    } while (0)

// A cuBLAS call (cublas_v2.h included by the user), the same way: its
// statement, file, line and cuBLAS's message, status in `st`, then `label`.
#define NNC_CUBLAS_CHECK_GOTO(call, label)                                                                       \
    do {                                                                                                         \
        cublasStatus_t b_ = (call);                                                                              \
        if (b_ != CUBLAS_STATUS_SUCCESS) {                                                                       \
            st = nnc_err(err, errlen, NNC_STATUS_DEVICE, "cuBLAS: %s failed at %s:%d: %s", #call, __FILE__, \
                         __LINE__, cublasGetStatusString(b_));                                                   \
            goto label;                                                                                          \
        }                                                                                                        \
    } while (0)

#endif
