/* Embedding-bag throughput of nncert's CPU kernel (nncert/embbag.h).
 *
 *   bench_embbag DIM ROWS BAGS LEN ZIPF THREADS REPS IDS_OUT TABLE_OUT
 *
 * Builds a table [ROWS, DIM] of uniform floats and BAGS bags of LEN ids drawn
 * Zipf(ZIPF) over the rows (ranks scattered by a fixed permutation, as hashed
 * ids are), writes the ids (int64, little-endian) and the table (float32) to
 * the two files so that tests/bench/embbag_torch.py times
 * torch.nn.EmbeddingBag on exactly the same data, and prints one CSV record:
 *   impl,dim,rows,bags,len,zipf,threads,lookups_per_s (median of REPS),checksum */
#include "nncert/embbag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t s_rng = 0x9e3779b97f4a7c15ull;
static double urand(void)
{
    s_rng ^= s_rng << 13;
    s_rng ^= s_rng >> 7;
    s_rng ^= s_rng << 17;
    return (double)(s_rng >> 11) / 9007199254740992.0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 10) {
        fprintf(stderr, "usage: bench_embbag DIM ROWS BAGS LEN ZIPF THREADS REPS IDS_OUT TABLE_OUT\n");
        return 64;
    }
    int64_t dim = atoll(argv[1]), rows = atoll(argv[2]), bags = atoll(argv[3]), len = atoll(argv[4]);
    double a = atof(argv[5]);
    int threads = atoi(argv[6]), reps = atoi(argv[7]);
    if (dim < 1 || rows < 1 || bags < 1 || len < 1 || threads < 1 || reps < 1) return 64;
    float *w = malloc((size_t)(rows * dim) * sizeof *w), *out = malloc((size_t)(bags * dim) * sizeof *out);
    int64_t n = bags * len, *ids = malloc((size_t)n * sizeof *ids), *perm = malloc((size_t)rows * sizeof *perm);
    double *cdf = malloc((size_t)rows * sizeof *cdf), *t = malloc((size_t)reps * sizeof *t);
    if (!w || !out || !ids || !perm || !cdf || !t) return 70;
    for (int64_t i = 0; i < rows * dim; i++) w[i] = (float)(urand() * 2 - 1);
    double z = 0;
    for (int64_t r = 0; r < rows; r++) cdf[r] = (z += pow((double)(r + 1), -a));
    for (int64_t r = 0; r < rows; r++) perm[r] = r;
    for (int64_t r = rows - 1; r > 0; r--) {
        int64_t j = (int64_t)(urand() * (double)(r + 1)), x = perm[r];
        perm[r] = perm[j];
        perm[j] = x;
    }
    for (int64_t i = 0; i < n; i++) {
        double u = urand() * z;
        int64_t lo = 0, hi = rows - 1;
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            if (cdf[mid] < u) lo = mid + 1;
            else hi = mid;
        }
        ids[i] = perm[lo];
    }
    FILE *f = fopen(argv[8], "wb"), *g = fopen(argv[9], "wb");
    if (!f || !g || fwrite(ids, sizeof *ids, (size_t)n, f) != (size_t)n ||
        fwrite(w, sizeof *w, (size_t)(rows * dim), g) != (size_t)(rows * dim) || fclose(f) || fclose(g)) {
        fprintf(stderr, "bench_embbag: cannot write the data files\n");
        return 73;
    }
    nnc_embbag_bags b = {ids, n, NULL, bags, len};
    char err[NNC_ERRBUF_SIZE];
    for (int r = -1; r < reps; r++) { /* one warm-up */
        double t0 = now();
        if (nnc_mdl_embbag_f32(out, w, rows, dim, &b, NNC_EMBBAG_MODE_SUM, 0, threads, err, sizeof err)) {
            fprintf(stderr, "bench_embbag: %s\n", err);
            return 70;
        }
        if (r >= 0) t[r] = now() - t0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmpd);
    double sum = 0;
    for (int64_t i = 0; i < bags * dim; i++) sum += out[i];
    printf("nncert,%lld,%lld,%lld,%lld,%g,%d,%.0f,%.6e\n", (long long)dim, (long long)rows, (long long)bags, (long long)len, a,
           threads, (double)n / t[reps / 2], sum);
    free(w); free(out); free(ids); free(perm); free(cdf); free(t);
    return 0;
}
