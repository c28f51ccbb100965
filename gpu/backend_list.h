/* The CUDA backend's entry points, listed once (issue 23).  Each entry
 * generates the plugin table's field (gpu/plugin_impl.h), the table's value
 * in the plugin (gpu/plugin_table.cu), libnncert's function that forwards
 * to it (gpu/plugin.c) and, in a build without the CUDA unit, the stub that
 * refuses (gpu/backend_none.c).  The declarations, with their contracts,
 * stay in nncert/gpu.h, gpu/spmm_translate.h and dist/dlrm.h, and the
 * compiler checks every generated definition against them.  The table's
 * layout is this order: a new entry goes last and raises
 * NNC_GPU_PLUGIN_ABI.
 *
 *   NNC_GPU_FN(name, field, params, args, init): nnc_status name params;
 *     init: statements run first by the forwarder and the stub (clearing
 *     outputs), or nothing.
 *   NNC_GPU_DESTROY(name, field, type): void name(type *g); NULL does
 *     nothing (and loads no plugin).
 *
 * No include guard: the includer defines both macros, includes this, and
 * undefines them. */
NNC_GPU_FN(nnc_gpu_device_count, device_count, (int *count, char *err, size_t errlen), (count, err, errlen),
           *count = 0;)
NNC_GPU_FN(nnc_gpu_activation_f32, activation_f32,
           (nnc_gpu_act act, float alpha, const float *in, float *out, size_t n, char *err, size_t errlen),
           (act, alpha, in, out, n, err, errlen), )
NNC_GPU_FN(nnc_gpu_smp_create, smp_create,
           (nnc_gpu_smp **out, const nnc_gpu_dense *layers, int n_layers, int max_batch, char *err, size_t errlen),
           (out, layers, n_layers, max_batch, err, errlen), *out = NULL;)
NNC_GPU_DESTROY(nnc_gpu_smp_destroy, smp_destroy, nnc_gpu_smp)
NNC_GPU_FN(nnc_gpu_smp_case, smp_case,
           (nnc_gpu_smp *g, const double *leaves, const double *cum, size_t nopen, double tw, int nrows,
            const double *C, const double *d, const int *dstart, int ndisj, double tau, char *err, size_t errlen),
           (g, leaves, cum, nopen, tw, nrows, C, d, dstart, ndisj, tau, err, errlen), )
NNC_GPU_FN(nnc_gpu_smp_run, smp_run,
           (nnc_gpu_smp *g, uint64_t seed, uint64_t sub0, int cnt, signed char *verdict, double *xs, char *err,
            size_t errlen),
           (g, seed, sub0, cnt, verdict, xs, err, errlen), )
NNC_GPU_FN(nnc_gpu_ibp_dense, ibp_dense,
           (const nnc_gpu_dense *layers, int n_layers, int nbox, const double *lo, const double *hi, double *out_lo,
            double *out_hi, char *err, size_t errlen),
           (layers, n_layers, nbox, lo, hi, out_lo, out_hi, err, errlen), )
NNC_GPU_FN(nnc_gpu_bab_create, bab_create,
           (nnc_gpu_bab **out, const nnc_gpu_dense *layers, int n_layers, double gamma, char *err, size_t errlen),
           (out, layers, n_layers, gamma, err, errlen), *out = NULL;)
NNC_GPU_DESTROY(nnc_gpu_bab_destroy, bab_destroy, nnc_gpu_bab)
NNC_GPU_FN(nnc_gpu_bab_run, bab_run, (nnc_gpu_bab *g, const nnc_gpu_bab_pass *ps, char *err, size_t errlen),
           (g, ps, err, errlen), )
NNC_GPU_FN(nnc_gpu_g1_msm, g1_msm,
           (nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n, char *err, size_t errlen),
           (out, points, scalars, n, err, errlen), )
NNC_GPU_FN(nnc_gpu_g2_msm, g2_msm,
           (nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n, char *err, size_t errlen),
           (out, points, scalars, n, err, errlen), )
NNC_GPU_FN(nnc_gpu_ntt, ntt, (nnc_prv_fr *a, size_t n, int inverse, char *err, size_t errlen),
           (a, n, inverse, err, errlen), )
NNC_GPU_FN(nnc_gpu_coset_ntt, coset_ntt,
           (nnc_prv_fr *a, size_t n, int inverse, const nnc_prv_fr *shift, char *err, size_t errlen),
           (a, n, inverse, shift, err, errlen), )
NNC_GPU_FN(nnc_gpu_embbag_f32, embbag_f32,
           (float *out, const float *table, int64_t rows, int64_t dim, const nnc_embbag_bags *bags,
            nnc_embbag_mode mode, int allow_empty, double *kernel_s, char *err, size_t errlen),
           (out, table, rows, dim, bags, mode, allow_empty, kernel_s, err, errlen), )
/* gpu/spmm_translate.h */
NNC_GPU_FN(nnc_gpu_spmm_f32, spmm_f32,
           (const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y, nnc_gpu_spmm_mode mode, int reps,
            double *ms, char *err, size_t errlen),
           (a, x, F, y, mode, reps, ms, err, errlen), )
NNC_GPU_FN(nnc_gpu_spmm_multi_f32, spmm_multi_f32,
           (const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y, int ndev, char *err, size_t errlen),
           (a, x, F, y, ndev, err, errlen), )
/* dist/dlrm.h */
NNC_GPU_FN(nnc_dlrm_exec_nccl, dlrm_exec_nccl,
           (float *pooled, nnc_dlrm_cost *measured, const nnc_dlrm_plan *p, const nnc_trace *trace,
            const double *const *weights, const nnc_embbag_mode *modes, const nnc_dlrm_opts *o, char *err,
            size_t errlen),
           (pooled, measured, p, trace, weights, modes, o, err, errlen), )
