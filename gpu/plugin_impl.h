/* Internal: the table of function pointers through which libnncert reaches
 * the CUDA unit.  In a CUDA build (make GPU=1) the .cu files are linked into
 * a separate shared object, libnncert-gpu.so, together with the CUDA
 * libraries (cudart, cuBLAS, cuRAND, NCCL); bin/nncert and libnncert.{a,so}
 * link none of them.  The plugin exports one symbol, NNC_GPU_PLUGIN_SYMBOL,
 * a const nnc_gpu_plugin (gpu/plugin_table.cu); gpu/plugin.c loads it with
 * dlopen the first time a GPU function is called and forwards the public
 * nnc_gpu_* / nnc_dlrm_exec_nccl calls to it.
 *
 * The entries are the functions of nncert/gpu.h, gpu/spmm_translate.h and
 * dist/dlrm.h with the same signatures and contracts.  A plugin is accepted
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

    /* nncert/gpu.h */
    nnc_status (*device_count)(int *count, char *err, size_t errlen);
    nnc_status (*activation_f32)(nnc_gpu_act act, float alpha, const float *in, float *out, size_t n, char *err,
                                 size_t errlen);
    nnc_status (*smp_create)(nnc_gpu_smp **out, const nnc_gpu_dense *layers, int n_layers, int max_batch, char *err,
                             size_t errlen);
    void (*smp_destroy)(nnc_gpu_smp *g);
    nnc_status (*smp_case)(nnc_gpu_smp *g, const double *leaves, const double *cum, size_t nopen, double tw, int nrows,
                           const double *C, const double *d, const int *dstart, int ndisj, double tau, char *err,
                           size_t errlen);
    nnc_status (*smp_run)(nnc_gpu_smp *g, uint64_t seed, uint64_t sub0, int cnt, signed char *verdict, double *xs,
                          char *err, size_t errlen);
    nnc_status (*ibp_dense)(const nnc_gpu_dense *layers, int n_layers, int nbox, const double *lo, const double *hi,
                            double *out_lo, double *out_hi, char *err, size_t errlen);
    nnc_status (*bab_create)(nnc_gpu_bab **out, const nnc_gpu_dense *layers, int n_layers, double gamma, char *err,
                             size_t errlen);
    void (*bab_destroy)(nnc_gpu_bab *g);
    nnc_status (*bab_run)(nnc_gpu_bab *g, const nnc_gpu_bab_pass *ps, char *err, size_t errlen);
    nnc_status (*g1_msm)(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n, char *err,
                         size_t errlen);
    nnc_status (*g2_msm)(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n, char *err,
                         size_t errlen);
    nnc_status (*ntt)(nnc_prv_fr *a, size_t n, int inverse, char *err, size_t errlen);
    nnc_status (*coset_ntt)(nnc_prv_fr *a, size_t n, int inverse, const nnc_prv_fr *shift, char *err, size_t errlen);
    nnc_status (*embbag_f32)(float *out, const float *table, int64_t rows, int64_t dim, const nnc_embbag_bags *bags,
                             nnc_embbag_mode mode, int allow_empty, double *kernel_s, char *err, size_t errlen);
    /* gpu/spmm_translate.h */
    nnc_status (*spmm_f32)(const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y, nnc_gpu_spmm_mode mode,
                           int reps, double *ms, char *err, size_t errlen);
    nnc_status (*spmm_multi_f32)(const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y, int ndev, char *err,
                                 size_t errlen);
    /* dist/dlrm.h */
    nnc_status (*dlrm_exec_nccl)(float *pooled, nnc_dlrm_cost *measured, const nnc_dlrm_plan *p,
                                 const nnc_trace *trace, const double *const *weights, const nnc_embbag_mode *modes,
                                 const nnc_dlrm_opts *o, char *err, size_t errlen);
} nnc_gpu_plugin;

#ifdef __cplusplus
}
#endif
#endif
