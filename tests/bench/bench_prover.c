/* Benchmark of the Groth16 prover's kernels: G1 multi-scalar multiplication
 * (prover/msm.c) and the NTT over Fr (prover/ntt.c).
 *
 * Prints CSV, one record per case:  op,n,threads,median_s
 *   op:        g1_msm, g2_msm, ntt (forward, natural order), coset_ntt,
 *              ntt_to_coset (domain values -> coset values, the Groth16
 *              quotient step: the fused 8-lane transform on CPUs with
 *              AVX-512 IFMA); the same with the suffix _scalar run with
 *              NNC_NO_IFMA=1 (the 4x64 code), on IFMA CPUs only;
 *              with --sweep also g1_msm_jac_cC / g1_msm_aff_cC (forced
 *              method and window width C), for tuning nnc_msm_window
 *   median_s:  median wall-clock seconds of the repetitions
 * Usage: bench_prover [--max-log M] [--reps R] [--sweep] [--g2]
 *   sizes n = 2^12, 2^16, 2^18 up to 2^M (default 18); threads 1 and 2.
 * Inputs: random scalars; points G, 2G, 3G, ... (the MSM's cost does not
 * depend on which points). */
#include "nncert/prover.h"
#include "prover/msm_impl.h"
#include "prover/ntt_impl.h"
#include "prover/fq_ifma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
    int max_log; /* largest n = 2^max_log */
    int reps;    /* repetitions per case (median reported) */
    int sweep;   /* also every window width for the forced methods */
    int g2;      /* also G2 MSMs */
} g = {18, 5, 0, 0};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t rng_s = 0x243f6a8885a308d3ULL;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rand_fr(nnc_fr *k)
{
    uint64_t x[4];
    do {
        x[0] = rng_next();
        x[1] = rng_next();
        x[2] = rng_next();
        x[3] = rng_next() & 0x3fffffffffffffffULL;
    } while (!nnc_fr_from_int(k, x));
}

/* p[i] = (i + 1) G, normalised with one batched inversion. */
static void make_g1_points(nnc_g1 *p, size_t n)
{
    nnc_g1_jac *j = malloc(n * sizeof *j);
    nnc_fq *z = malloc(n * sizeof *z), *zi = malloc(n * sizeof *zi), t;
    nnc_g1 gen;
    size_t i;
    if (!j || !z || !zi) {
        fprintf(stderr, "bench_prover: out of memory\n");
        exit(1);
    }
    nnc_g1_generator(&gen);
    nnc_g1_aff_to_jac(&j[0], &gen);
    for (i = 1; i < n; i++)
        nnc_g1_jac_add_aff_var(&j[i], &j[i - 1], &gen);
    for (i = 0; i < n; i++)
        z[i] = j[i].z;
    nnc_fq_inv_batch(zi, z, n);
    for (i = 0; i < n; i++) {
        nnc_fq_sqr(&t, &zi[i]);
        nnc_fq_mul(&p[i].x, &j[i].x, &t);
        nnc_fq_mul(&t, &t, &zi[i]);
        nnc_fq_mul(&p[i].y, &j[i].y, &t);
    }
    free(j);
    free(z);
    free(zi);
}

/* p[i] = (i + 1) G2 (Jacobian chain, one inversion each: only for small n). */
static void make_g2_points(nnc_g2 *p, size_t n)
{
    nnc_g2_jac a;
    nnc_g2 gen;
    size_t i;
    nnc_g2_generator(&gen);
    nnc_g2_aff_to_jac(&a, &gen);
    for (i = 0; i < n; i++) {
        nnc_g2_jac_to_aff_var(&p[i], &a);
        nnc_g2_jac_add_aff_var(&a, &a, &gen);
    }
}

typedef enum { OP_G1, OP_G2, OP_NTT, OP_COSET, OP_TO_COSET } op_kind;

typedef struct bench_case {
    op_kind op;
    size_t n;
    int threads;
    nnc_msm_method method;
    int c;
    const nnc_g1 *p1;
    const nnc_g2 *p2;
    const nnc_fr *k;
    nnc_fr *work; /* NTT buffer, refilled from k before each repetition */
} bench_case;

static double run_once(const bench_case *bc)
{
    double t0, t1;
    nnc_g1 o1;
    nnc_g2 o2;
    if (bc->op == OP_NTT || bc->op == OP_COSET || bc->op == OP_TO_COSET)
        memcpy(bc->work, bc->k, bc->n * sizeof *bc->k);
    t0 = now_s();
    switch (bc->op) {
    case OP_G1:
        nnc_prv_g1_msm_cfg(&o1, bc->p1, bc->k, bc->n, bc->threads, bc->method, bc->c);
        break;
    case OP_G2:
        nnc_prv_g2_msm_cfg(&o2, bc->p2, bc->k, bc->n, bc->threads, bc->method, bc->c);
        break;
    case OP_NTT:
        if (nnc_prv_ntt(bc->work, bc->n, 0, bc->threads) != NNC_STATUS_OK)
            exit(1);
        break;
    case OP_COSET:
        if (nnc_prv_coset_ntt(bc->work, bc->n, NULL, bc->threads) != NNC_STATUS_OK)
            exit(1);
        break;
    case OP_TO_COSET: {
        nnc_fr *w = bc->work;
        if (nnc_prv_ntt_to_coset(&w, 1, bc->n, NULL, bc->threads) != NNC_STATUS_OK)
            exit(1);
        break;
    }
    }
    t1 = now_s();
    return t1 - t0;
}

/* As report, once more with NNC_NO_IFMA=1 as op_scalar, on IFMA CPUs. */
static void report(const char *op, const bench_case *bc);
static void report_both(const char *op, const bench_case *bc)
{
    char name[64];
    report(op, bc);
    if (!nnc_fq_ifma_cpu())
        return;
    snprintf(name, sizeof name, "%s_scalar", op);
    setenv("NNC_NO_IFMA", "1", 1);
    report(name, bc);
    unsetenv("NNC_NO_IFMA");
}

static void report(const char *op, const bench_case *bc)
{
    double t[64];
    int r, reps = g.reps > 64 ? 64 : g.reps;
    for (r = 0; r < reps; r++)
        t[r] = run_once(bc);
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    printf("%s,%zu,%d,%.6f\n", op, bc->n, bc->threads, t[reps / 2]);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    static const int logs[] = {12, 16, 18, 20, 22};
    nnc_g1 *p1;
    nnc_g2 *p2 = NULL;
    nnc_fr *k, *work;
    size_t nmax, i, li;
    int a;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--max-log") && a + 1 < argc)
            g.max_log = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            g.reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--sweep"))
            g.sweep = 1;
        else if (!strcmp(argv[a], "--g2"))
            g.g2 = 1;
        else {
            fprintf(stderr, "usage: bench_prover [--max-log M] [--reps R] [--sweep] [--g2]\n");
            return 2;
        }
    }
    if (g.max_log < 12 || g.max_log > 22 || g.reps < 1) {
        fprintf(stderr, "bench_prover: --max-log must be 12..22, --reps >= 1\n");
        return 2;
    }
    nmax = (size_t)1 << g.max_log;
    p1 = malloc(nmax * sizeof *p1);
    k = malloc(nmax * sizeof *k);
    work = malloc(nmax * sizeof *work);
    if (!p1 || !k || !work) {
        fprintf(stderr, "bench_prover: out of memory\n");
        return 1;
    }
    make_g1_points(p1, nmax);
    for (i = 0; i < nmax; i++)
        rand_fr(&k[i]);
    if (g.g2) {
        size_t n2 = nmax < ((size_t)1 << 16) ? nmax : ((size_t)1 << 16);
        p2 = malloc(n2 * sizeof *p2);
        if (!p2)
            return 1;
        make_g2_points(p2, n2);
    }

    printf("op,n,threads,median_s\n");
    for (li = 0; li < sizeof logs / sizeof logs[0] && logs[li] <= g.max_log; li++) {
        size_t n = (size_t)1 << logs[li];
        int th;
        for (th = 1; th <= 2; th++) {
            bench_case bc = {OP_G1, n, th, NNC_MSM_METHOD_AUTO, 0, p1, p2, k, work};
            report_both("g1_msm", &bc);
            if (g.g2 && n <= ((size_t)1 << 16)) {
                bc.op = OP_G2;
                report("g2_msm", &bc);
            }
            bc.op = OP_NTT;
            report("ntt", &bc);
            bc.op = OP_COSET;
            report("coset_ntt", &bc);
            bc.op = OP_TO_COSET;
            report_both("ntt_to_coset", &bc);
            if (g.sweep && th == 1) {
                int c, lg = logs[li];
                char name[64];
                bc.op = OP_G1;
                for (c = lg - 6; c <= lg - 1; c++) {
                    if (c < 2 || c > NNC_MSM_MAX_WINDOW)
                        continue;
                    bc.c = c;
                    bc.method = NNC_MSM_METHOD_JAC;
                    snprintf(name, sizeof name, "g1_msm_jac_c%d", c);
                    report(name, &bc);
                    bc.method = NNC_MSM_METHOD_AFFINE;
                    snprintf(name, sizeof name, "g1_msm_aff_c%d", c);
                    report(name, &bc);
                }
            }
        }
    }
    free(p1);
    free(p2);
    free(k);
    free(work);
    return 0;
}
