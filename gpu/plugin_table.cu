// The one symbol libnncert-gpu.so exports (gpu/plugin.map): the table of the
// CUDA unit's entry points that gpu/plugin.c looks up with dlsym.
#include "gpu/plugin_impl.h"

extern "C" {
extern const nnc_gpu_plugin nnc_gpu_plugin_v1;
const nnc_gpu_plugin nnc_gpu_plugin_v1 = {
    NNC_GPU_PLUGIN_ABI,
    (uint32_t)sizeof(nnc_gpu_plugin),
    NNC_VERSION_STRING,
    NNC_GPU_PLUGIN_SIZES,
    nnc_gpu_device_count,
    nnc_gpu_activation_f32,
    nnc_gpu_smp_create,
    nnc_gpu_smp_destroy,
    nnc_gpu_smp_case,
    nnc_gpu_smp_run,
    nnc_gpu_ibp_dense,
    nnc_gpu_bab_create,
    nnc_gpu_bab_destroy,
    nnc_gpu_bab_run,
    nnc_gpu_g1_msm,
    nnc_gpu_g2_msm,
    nnc_gpu_ntt,
    nnc_gpu_coset_ntt,
    nnc_gpu_embbag_f32,
    nnc_gpu_spmm_f32,
    nnc_gpu_spmm_multi_f32,
    nnc_dlrm_exec_nccl,
};
}
