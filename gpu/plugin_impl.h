/* Internal: the table of function pointers through which libnncert reaches
 * the CUDA unit.  In a CUDA build (make GPU=1) the .cu files are linked into
 * a separate shared object, libnncert-gpu.so, together with the CUDA
 * libraries (cudart, cuBLAS, cuRAND, NCCL); bin/nncert and libnncert.{a,so}
 * link none of them.  The plugin exports one symbol, NNC_GPU_PLUGIN_SYMBOL,
 * a const nnc_gpu_plugin (gpu/plugin_table.cu); gpu/plugin.c loads it with
 * dlopen the first time a GPU function is called and forwards the public
 * nnc_gpu_* / nnc_dlrm_exec_nccl calls to it.
 *
 * The entries are the functions gpu/backend_list.h lists (of nncert/gpu.h,
 * gpu/spmm_translate.h and dist/dlrm.h), with the same signatures and
 * contracts.  A plugin is accepted
 * only when abi, size, version and struct sizes equal the loader's. */
#ifndef NNC_GPU_PLUGIN_IMPL_H
#define NNC_GPU_PLUGIN_IMPL_H

#include "dist/dlrm.h"
#include "nncert/gpu.h"
#include "gpu/spmm_translate.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NNC_GPU_PLUGIN_ABI 1
#define NNC_GPU_PLUGIN_SYMBOL "nnc_gpu_plugin_v1"
#define NNC_GPU_PLUGIN_FILE "libnncert-gpu.so"
/* The environment variable naming the plugin's path; when set, only that
 * file is tried. */
#define NNC_GPU_PLUGIN_ENV "NNCERT_GPU_PLUGIN"

/* The sizes of the structs that cross the table, in the plugin's build: a
 * plugin built from sources with other layouts is refused, not called. */
#define NNC_GPU_PLUGIN_NSIZES 13
#define NNC_GPU_PLUGIN_SIZES                                                                                  \
    {                                                                                                         \
        sizeof(nnc_gpu_dense), sizeof(nnc_prv_g1), sizeof(nnc_prv_g2), sizeof(nnc_prv_fr),                    \
            sizeof(nnc_embbag_bags), sizeof(nnc_mdl_csr32), sizeof(nnc_dlrm_plan), sizeof(nnc_dlrm_cost),     \
            sizeof(nnc_trace), sizeof(nnc_dlrm_opts), sizeof(nnc_gpu_bab_item), sizeof(nnc_gpu_bab_pass),     \
            NNC_GPU_BAB_BND_BYTES(0)                                                                          \
    }

typedef struct nnc_gpu_plugin {
    uint32_t abi;        /* NNC_GPU_PLUGIN_ABI */
    uint32_t size;       /* sizeof(nnc_gpu_plugin) in the plugin's build */
    const char *version; /* NNC_VERSION_STRING of the plugin's build */
    uint32_t sizes[NNC_GPU_PLUGIN_NSIZES]; /* NNC_GPU_PLUGIN_SIZES, bytes */

    /* the entry points (gpu/backend_list.h), in its order */
#define NNC_GPU_FN(name, field, params, args, init) nnc_status(*field) params;
#define NNC_GPU_DESTROY(name, field, type) void (*field)(type * g);
#include "gpu/backend_list.h"
#undef NNC_GPU_FN
#undef NNC_GPU_DESTROY
} nnc_gpu_plugin;

#ifdef __cplusplus
}
#endif
#endif
