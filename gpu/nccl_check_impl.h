// Internal to gpu/*.cu: checking NCCL calls.  A failed call records its
// statement, file, line and NCCL's message in the caller's (err, errlen)
// buffer as NNC_STATUS_DEVICE, stores the status in `st` and jumps to
// the caller's `done` label (where it frees its device buffers).
#ifndef NNC_GPU_NCCL_CHECK_IMPL_H
#define NNC_GPU_NCCL_CHECK_IMPL_H

#include "nncert/nnc.h"

#include <nccl.h>

#define NNC_NCCL_CHECK(call)                                                                        \
    do {                                                                                            \
        ncclResult_t r_ = (call);                                                                   \
        if (r_ != ncclSuccess) {                                                                    \
            st = nnc_err(err, errlen, NNC_STATUS_DEVICE, "NCCL: %s failed at %s:%d: %s", #call, \
                         __FILE__, __LINE__, ncclGetErrorString(r_));                               \
            goto done;                                                                              \
        }                                                                                           \
    } while (0)

#endif
