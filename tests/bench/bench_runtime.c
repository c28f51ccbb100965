/* Runtime throughput benchmark: bench_runtime MODEL NAME BATCH REPEATS
 * Prints one CSV record: tool,version,model,batch,median_s,inferences_per_s
 * (median over REPEATS timed batches after warm-up; float32). */
#include "models/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bench_runtime MODEL NAME BATCH REPEATS\n");
        return 64;
    }
    int batch = atoi(argv[3]), reps = atoi(argv[4]);
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_runtime *rt;
    if (nnc_mdl_load(&m, argv[1], err, sizeof err) || nnc_rt_create(&rt, m, NNC_PRECISION_F32, batch, err, sizeof err)) {
        fprintf(stderr, "bench_runtime: %s\n", err);
        return 65;
    }
    nnc_tensor_info ti, to;
    nnc_mdl_input_info(m, 0, &ti);
    nnc_mdl_output_info(m, 0, &to);
    float *x = malloc(sizeof(float) * (size_t)(ti.numel * batch)), *y = malloc(sizeof(float) * (size_t)(to.numel * batch));
    srand(1);
    for (int64_t k = 0; k < ti.numel * batch; k++) x[k] = (float)rand() / (float)RAND_MAX;
    const void *ins[1] = {x};
    void *outs[1] = {y};
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int w = 0; w < 3; w++) nnc_rt_run(rt, batch, ins, outs, err, sizeof err);
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        if (nnc_rt_run(rt, batch, ins, outs, err, sizeof err)) {
            fprintf(stderr, "bench_runtime: %s\n", err);
            return 70;
        }
        t[r] = now() - t0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    printf("nncert,%s,%s,%d,%.9f,%.1f\n", NNC_VERSION_STRING, argv[2], batch, med, batch / med);
    free(t);
    free(x);
    free(y);
    nnc_rt_destroy(rt);
    nnc_mdl_destroy(m);
    return 0;
}
