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
#define NNC_GPU_FN(name, field, params, args, init) name,
#define NNC_GPU_DESTROY(name, field, type) name,
#include "gpu/backend_list.h"
#undef NNC_GPU_FN
#undef NNC_GPU_DESTROY
};
}
