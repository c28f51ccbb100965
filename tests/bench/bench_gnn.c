/* GCN aggregation benchmark: Y = A_hat X with A_hat = D^-1/2 (A + I) D^-1/2
 * (models/spmm.h), X standard-normal-like float32 [N, F].
 *
 * Usage: bench_gnn [--runs R] [--threads T] NAME=PATH.csr|NAME=synthetic:N:DEG ...
 * Prints CSV: one "stream" record (a STREAM-like copy of 2 x 256 MiB with
 * the same threads: the machine's DRAM bandwidth, bytes read + written per
 * second) then, per graph and F in {16, 64, 128}, the median and minimum
 * time of R calls after 3 warm-ups, the bytes-moved model
 * (nnc_mdl_spmm_bytes), the fraction of the DRAM bandwidth bound it
 * reaches, and the fraction of a copy of the same number of bytes (the
 * tighter bound when the graph fits in cache). */
#include "models/spmm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Bytes per second of a parallel copy moving `bytes` in all (read + write
 * counted), so its arrays have the footprint of the SpMM they bound: the
 * DRAM bandwidth for large sizes, the cache bandwidth for cache-resident
 * ones.  Best of 5 timings of enough back-to-back copies to last >= 2 ms. */
static double stream_copy(int threads, double bytes)
{
    size_t n = (size_t)(bytes / 8.0);
    if (n < 1024) n = 1024;
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
    if (!a || !b) return 0;
#pragma omp parallel for num_threads(threads)
    for (size_t i = 0; i < n; i++) a[i] = (float)i, b[i] = 0;
    int inner = 1;
    double best = 1e30;
    for (int rep = 0; rep < 5 + 1; rep++) {
        double t = now();
        for (int k = 0; k < inner; k++) {
#pragma omp parallel for num_threads(threads)
            for (size_t i = 0; i < n; i++) b[i] = a[i] + (float)k;
        }
        t = (now() - t) / inner;
        if (rep == 0) { /* calibration */
            inner = (int)(2e-3 / (t > 1e-9 ? t : 1e-9)) + 1;
            continue;
        }
        if (t < best) best = t;
    }
    volatile float sink = b[n / 2];
    (void)sink;
    free(a);
    free(b);
    return 2.0 * (double)n * sizeof(float) / best;
}

int main(int argc, char **argv)
{
    int runs = 20, threads = 2;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (i + 1 >= argc) break;
        if (strcmp(argv[i], "--runs") == 0) runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--threads") == 0) threads = atoi(argv[i + 1]);
        else break;
    }
    if (i >= argc || runs < 1 || threads < 1) {
        fprintf(stderr, "usage: bench_gnn [--runs R] [--threads T] NAME=PATH.csr|NAME=synthetic:N:DEG ...\n");
        return 64;
    }
    double bw = stream_copy(threads, 512.0 * 1024 * 1024);
    printf("kind,graph,n,nnz,F,threads,median_ms,min_ms,bytes_model,gbps,bandwidth_gbps,fraction_of_bound,"
           "copy_same_bytes_gbps,fraction_of_same_bytes_copy\n");
    printf("stream,copy,0,0,0,%d,,,,,%.3f,,,\n", threads, bw / 1e9);
    for (; i < argc; i++) {
        char name[64], err[NNC_ERRBUF_SIZE];
        const char *eq = strchr(argv[i], '=');
        if (eq == NULL || eq - argv[i] >= (long)sizeof name) {
            fprintf(stderr, "bench_gnn: bad graph argument '%s'\n", argv[i]);
            return 64;
        }
        memcpy(name, argv[i], (size_t)(eq - argv[i]));
        name[eq - argv[i]] = 0;
        nnc_mdl_csr32 g, a;
        nnc_status st;
        int sn;
        double deg;
        if (sscanf(eq + 1, "synthetic:%d:%lf", &sn, &deg) == 2)
            st = nnc_mdl_graph_powerlaw(&g, sn, deg, 2.5, 1, err, sizeof err);
        else
            st = nnc_mdl_csr32_read_gcsr(&g, eq + 1, err, sizeof err);
        if (st != NNC_STATUS_OK || nnc_mdl_csr32_gcn_norm(&a, &g, err, sizeof err) != NNC_STATUS_OK) {
            fprintf(stderr, "bench_gnn: %s\n", err);
            return 65;
        }
        nnc_mdl_csr32_free(&g);
        nnc_mdl_spmm_plan *p;
        if (nnc_mdl_spmm_plan_create(&p, &a, threads, err, sizeof err) != NNC_STATUS_OK) return 70;
        static int Fs[3] = {16, 64, 128}; if (getenv("BENCH_FS")) sscanf(getenv("BENCH_FS"), "%d,%d,%d", &Fs[0], &Fs[1], &Fs[2]);
        for (int f = 0; f < 3; f++) {
            int64_t F = Fs[f];
            float *x = malloc((size_t)a.cols * F * sizeof(float)), *y = malloc((size_t)a.rows * F * sizeof(float));
            double *ts = malloc((size_t)runs * sizeof(double));
            if (!x || !y || !ts) return 70;
            uint64_t s = 0x9E3779B97F4A7C15ULL;
            for (int64_t k = 0; k < (int64_t)a.cols * F; k++) {
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                x[k] = (float)((double)(s >> 40) / 8388608.0 - 1.0);
            }
            for (int w = 0; w < 3; w++) nnc_mdl_spmm(p, x, F, y);
            for (int r = 0; r < runs; r++) {
                double t = now();
                nnc_mdl_spmm(p, x, F, y);
                ts[r] = now() - t;
            }
            qsort(ts, (size_t)runs, sizeof *ts, cmp_d);
            double med = runs % 2 ? ts[runs / 2] : 0.5 * (ts[runs / 2 - 1] + ts[runs / 2]);
            double bytes = nnc_mdl_spmm_bytes(&a, F), bwf = stream_copy(threads, bytes);
            printf("nncert,%s,%d,%d,%d,%d,%.4f,%.4f,%.0f,%.3f,%.3f,%.3f,%.3f,%.3f\n", name, (int)a.rows, (int)a.nnz, (int)F,
                   threads, med * 1e3, ts[0] * 1e3, bytes, bytes / med / 1e9, bw / 1e9, bytes / med / bw, bwf / 1e9,
                   bytes / med / bwf);
            free(x);
            free(y);
            free(ts);
        }
        nnc_mdl_spmm_plan_destroy(p);
        nnc_mdl_csr32_free(&a);
    }
    return 0;
}
