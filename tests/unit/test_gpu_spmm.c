/* GPU SpMM (gpu/spmm.cu) against the CPU kernel (models/spmm.h) on the same
 * inputs: the CUDA-core path and the multi-GPU NCCL path bit for bit, the
 * tensor-core (tf32) paths within the stated tolerance
 *   |y - cpu| <= 2^-9 * sum_k |a_k x_k| + 2 * gamma_n * sum_k |a_k x_k|,
 * on random, power-law and (when ../shared is present) Cora and PubMed
 * graphs; prints "time spmm GRAPH F MODE gpu_ms cpu_ms" lines.  Without a
 * CUDA build or a device it reports skipped and exits 77. */
#include "gpu_test_impl.h"
#include "gpu/spmm_translate.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check_graph(const char *name, const nnc_mdl_csr32 *a, int ndev)
{
    static const int64_t Fs[] = {1, 16, 33, 64, 128, 256};
    char err[NNC_ERRBUF_SIZE];
    for (size_t f = 0; f < sizeof Fs / sizeof *Fs; f++) {
        int64_t F = Fs[f];
        size_t nx = (size_t)a->cols * F, ny = (size_t)a->rows * F;
        float *x = malloc(nx * sizeof(float) + 4), *cpu = malloc(ny * sizeof(float) + 4), *gpu = malloc(ny * sizeof(float) + 4);
        for (size_t k = 0; k < nx; k++) x[k] = (float)sin(0.61 * (double)k);
        nnc_mdl_spmm_plan *p;
        nnc_mdl_spmm_plan_create(&p, a, 2, NULL, 0);
        double t = gpu_test_now();
        nnc_mdl_spmm(p, x, F, cpu);
        double cpu_ms = (gpu_test_now() - t) * 1e3;
        nnc_mdl_spmm_plan_destroy(p);
        static const char *modes[3] = {"auto", "csr", "tc"};
        for (int mode = 0; mode < 3; mode++) {
            double ms = 0;
            checks++;
            if (nnc_gpu_spmm_f32(a, x, F, gpu, (nnc_gpu_spmm_mode)mode, 5, &ms, err, sizeof err) != NNC_STATUS_OK) {
                printf("FAIL %s F=%lld %s: %s\n", name, (long long)F, modes[mode], err);
                failures++;
                continue;
            }
            int bad = 0;
            for (int32_t r = 0; r < a->rows && !bad; r++)
                for (int64_t j = 0; j < F; j++) {
                    double s = 0, n = a->row_ptr[r + 1] - a->row_ptr[r], u = FLT_EPSILON / 2;
                    for (int32_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++)
                        s += fabs((double)a->val[k] * x[(int64_t)a->col[k] * F + j]);
                    double tol = mode == NNC_GPU_SPMM_CSR ? 0.0 : ldexp(1.0, -9) * s + 2 * n * u / (1 - n * u) * s;
                    double d = fabs((double)gpu[(size_t)r * F + j] - cpu[(size_t)r * F + j]);
                    if (!(d <= tol)) {
                        printf("FAIL %s F=%lld %s: row %d col %lld gpu %.9g cpu %.9g (tol %g)\n", name, (long long)F,
                               modes[mode], (int)r, (long long)j, gpu[(size_t)r * F + j], cpu[(size_t)r * F + j], tol);
                        bad = 1;
                        break;
                    }
                }
            failures += bad;
            printf("time spmm %s %lld %s %.4f %.4f\n", name, (long long)F, modes[mode], ms, cpu_ms);
        }
        checks++;
        if (nnc_gpu_spmm_multi_f32(a, x, F, gpu, ndev, err, sizeof err) != NNC_STATUS_OK ||
            memcmp(gpu, cpu, ny * sizeof(float)) != 0) {
            printf("FAIL %s F=%lld nccl x%d: %s\n", name, (long long)F, ndev, err[0] ? err : "differs from the CPU");
            failures++;
        }
        free(x);
        free(cpu);
        free(gpu);
    }
}

int main(void)
{
    char err[NNC_ERRBUF_SIZE] = "";
    int count = gpu_test_devices_or_skip();
    int ndev = count < 2 ? count : 2;
    nnc_mdl_csr32 g, a;
    nnc_mdl_graph_powerlaw(&g, 20001, 10.0, 2.3, 7, NULL, 0);
    nnc_mdl_csr32_gcn_norm(&a, &g, NULL, 0);
    check_graph("powerlaw20001", &a, ndev);
    nnc_mdl_csr32_free(&g);
    nnc_mdl_csr32_free(&a);
    nnc_mdl_graph_powerlaw(&g, 37, 4.0, 2.5, 1, NULL, 0); /* a partial last window */
    nnc_mdl_csr32_gcn_norm(&a, &g, NULL, 0);
    check_graph("powerlaw37", &a, ndev);
    nnc_mdl_csr32_free(&g);
    nnc_mdl_csr32_free(&a);
    const char *sh = getenv("SHARED");
    static const char *names[2] = {"cora", "pubmed"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/data/graphs/converted/%s.csr", sh && *sh ? sh : "../shared", names[i]);
        if (access(path, R_OK) != 0 || nnc_mdl_csr32_read_gcsr(&g, path, err, sizeof err) != NNC_STATUS_OK) continue;
        nnc_mdl_csr32_gcn_norm(&a, &g, NULL, 0);
        check_graph(names[i], &a, ndev);
        nnc_mdl_csr32_free(&g);
        nnc_mdl_csr32_free(&a);
    }
    printf("%s: Checks: %d, Failures: %d, Errors: 0\n", failures ? "FAIL" : "100%", checks, failures);
    return failures ? 1 : 0;
}
