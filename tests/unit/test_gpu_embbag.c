/* The CUDA embedding-bag kernel (gpu/embbag.cu) against the CPU kernel
 * (models/embbag.c), bit for bit, on fixed and variable bags, sum and mean,
 * widths that take the float4 path and the scalar path; prints one timing
 * line per width ("time embbag dim D lookups gpu_kernel_s cpu_s").  Without
 * the CUDA unit or a device it reports "skipped" and exits 77. */
#include "gpu_test_impl.h"
#include "nncert/embbag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char err[NNC_ERRBUF_SIZE] = "";
    int failed = 0;
    gpu_test_devices_or_skip();
    harness_set_seed(88172645463325252ull); /* fixed inputs: rnd(), urand() */
    static const int64_t dims[] = {1, 3, 16, 64, 100, 128};
    for (int di = 0; di < 6; di++)
        for (int var = 0; var < 2; var++)
            for (int mean = 0; mean < 2; mean++) {
                int64_t dim = dims[di], rows = 100000, nb = 20000, L = 16;
                int64_t *off = malloc((size_t)nb * sizeof *off), n = 0;
                for (int64_t b = 0; b < nb; b++) {
                    off[b] = n;
                    n += var ? (int64_t)(rnd() % 33) : L; /* variable bags include empty ones */
                }
                int64_t *ids = malloc((size_t)(n + 1) * sizeof *ids);
                float *w = malloc((size_t)(rows * dim) * sizeof *w);
                float *a = malloc((size_t)(nb * dim) * sizeof *a), *g = malloc((size_t)(nb * dim) * sizeof *g);
                for (int64_t i = 0; i < rows * dim; i++) w[i] = (float)(urand() - 0.5);
                for (int64_t i = 0; i < n; i++) ids[i] = (int64_t)(rnd() % (uint64_t)rows);
                nnc_embbag_bags b = {ids, n, var ? off : NULL, nb, L};
                nnc_embbag_mode m = mean ? NNC_EMBBAG_MODE_MEAN : NNC_EMBBAG_MODE_SUM;
                double t0 = gpu_test_now(), ks = 0;
                if (nnc_mdl_embbag_f32(a, w, rows, dim, &b, m, 1, 0, err, sizeof err)) {
                    printf("FAIL cpu: %s\n", err);
                    return 1;
                }
                double cpu = gpu_test_now() - t0;
                if (nnc_gpu_embbag_f32(g, w, rows, dim, &b, m, 1, &ks, err, sizeof err)) {
                    printf("FAIL gpu: %s\n", err);
                    return 1;
                }
                int same = memcmp(a, g, (size_t)(nb * dim) * sizeof *a) == 0;
                printf("%s embbag dim %lld %s %s\n", same ? "ok" : "FAIL", (long long)dim, var ? "variable" : "fixed",
                       mean ? "mean" : "sum");
                failed |= !same;
                if (!var && !mean) printf("time embbag dim %lld lookups %lld %.6f %.6f\n", (long long)dim, (long long)n, ks, cpu);
                free(off); free(ids); free(w); free(a); free(g);
            }
    /* bad bags are refused before any device work */
    int64_t bad_ids[2] = {0, 7};
    float w1[4] = {0}, o1[4];
    nnc_embbag_bags bad = {bad_ids, 2, NULL, 2, 1};
    if (nnc_gpu_embbag_f32(o1, w1, 4, 1, &bad, NNC_EMBBAG_MODE_SUM, 0, NULL, err, sizeof err) != NNC_STATUS_INVALID) {
        printf("FAIL: an id out of range was accepted\n");
        failed = 1;
    }
    printf("%s\n", failed ? "FAILED" : "all GPU embedding bags equal the CPU's");
    return failed;
}
