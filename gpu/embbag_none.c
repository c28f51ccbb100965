/* nnc_gpu_embbag_f32 in a build without the CUDA unit (make GPU=0). */
#include "nncert/gpu.h"

#ifndef NNC_HAVE_CUDA
nnc_status nnc_gpu_embbag_f32(float *out, const float *table, int64_t rows, int64_t dim,
                              const nnc_embbag_bags *bags, nnc_embbag_mode mode, int allow_empty,
                              double *kernel_s, char *err, size_t errlen)
{
    (void)out; (void)table; (void)rows; (void)dim; (void)bags; (void)mode; (void)allow_empty; (void)kernel_s;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}
#endif
