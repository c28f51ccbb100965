/* The GPU interface in a build without the CUDA unit (make GPU=0). */
#include "gpu/gpu.h"

#ifndef NNC_HAVE_CUDA
int nnc_gpu_compiled(void) { return 0; }

nnc_status nnc_gpu_device_count(int *count, char *err, size_t errlen)
{
    *count = 0;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}

nnc_status nnc_gpu_activation_f32(nnc_gpu_act act, float alpha, const float *in, float *out, size_t n,
                                  char *err, size_t errlen)
{
    (void)act; (void)alpha; (void)in; (void)out; (void)n;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}

nnc_status nnc_gpu_g1_msm(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n,
                          char *err, size_t errlen)
{
    (void)out; (void)points; (void)scalars; (void)n;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}

nnc_status nnc_gpu_g2_msm(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n,
                          char *err, size_t errlen)
{
    (void)out; (void)points; (void)scalars; (void)n;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}

nnc_status nnc_gpu_ntt(nnc_prv_fr *a, size_t n, int inverse, char *err, size_t errlen)
{
    (void)a; (void)n; (void)inverse;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}

nnc_status nnc_gpu_coset_ntt(nnc_prv_fr *a, size_t n, int inverse, const nnc_prv_fr *shift, char *err,
                             size_t errlen)
{
    (void)a; (void)n; (void)inverse; (void)shift;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}
#endif
