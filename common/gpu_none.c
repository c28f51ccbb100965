/* The GPU interface in a build without the CUDA unit (make GPU=0). */
#include "nncert/gpu.h"

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

nnc_status nnc_gpu_smp_create(nnc_gpu_smp **out, const nnc_gpu_dense *layers, int n_layers, int max_batch,
                              char *err, size_t errlen)
{
    (void)layers; (void)n_layers; (void)max_batch;
    *out = NULL;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}

void nnc_gpu_smp_destroy(nnc_gpu_smp *g) { (void)g; }

nnc_status nnc_gpu_smp_case(nnc_gpu_smp *g, const double *leaves, const double *cum, size_t nopen, double tw,
                            int nrows, const double *C, const double *d, const int *dstart, int ndisj, double tau,
                            char *err, size_t errlen)
{
    (void)g; (void)leaves; (void)cum; (void)nopen; (void)tw; (void)nrows; (void)C; (void)d; (void)dstart;
    (void)ndisj; (void)tau;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}

nnc_status nnc_gpu_smp_run(nnc_gpu_smp *g, uint64_t seed, uint64_t sub0, int cnt, signed char *verdict, double *xs,
                           char *err, size_t errlen)
{
    (void)g; (void)seed; (void)sub0; (void)cnt; (void)verdict; (void)xs;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}

nnc_status nnc_gpu_ibp_dense(const nnc_gpu_dense *layers, int n_layers, int nbox, const double *lo, const double *hi,
                             double *out_lo, double *out_hi, char *err, size_t errlen)
{
    (void)layers; (void)n_layers; (void)nbox; (void)lo; (void)hi; (void)out_lo; (void)out_hi;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}

nnc_status nnc_gpu_bab_create(nnc_gpu_bab **out, const nnc_gpu_dense *layers, int n_layers, double gamma, char *err,
                              size_t errlen)
{
    (void)layers; (void)n_layers; (void)gamma;
    *out = NULL;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}

void nnc_gpu_bab_destroy(nnc_gpu_bab *g) { (void)g; }

nnc_status nnc_gpu_bab_run(nnc_gpu_bab *g, const nnc_gpu_bab_pass *ps, char *err, size_t errlen)
{
    (void)g; (void)ps;
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
