/* nnc_dlrm_exec_nccl in a build without the CUDA unit (make GPU=0). */
#include "dist/dlrm.h"

#ifndef NNC_HAVE_CUDA
nnc_status nnc_dlrm_exec_nccl(float *pooled, nnc_dlrm_cost *measured, const nnc_dlrm_plan *p, const nnc_trace *trace,
                              const double *const *weights, const nnc_embbag_mode *modes, const nnc_dlrm_opts *o,
                              char *err, size_t errlen)
{
    (void)pooled; (void)measured; (void)p; (void)trace; (void)weights; (void)modes; (void)o;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without CUDA (make GPU=0)");
}
#endif
