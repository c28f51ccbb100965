/* GPU prover kernels (gpu/msm.cu, gpu/ntt.cu) against the CPU path
 * (prover/msm.c, prover/ntt.c) on the same inputs, byte for byte: G1 and G2
 * MSMs (random and edge scalars, infinity, P next to -P, one point and
 * scalar repeated), NTTs forward/inverse and on cosets.  Prints one timing
 * line per case: "time op n gpu_s cpu_s".  A known-answer MSM
 * ([1]G + [2]G = [3]G) runs first.  Without a CUDA build or a device the
 * program prints "skipped" and exits 77, which tests/run_all.sh counts as
 * a skip, never a pass.  NNC_TEST_SEED=<n> replays the random inputs. */
#include "gpu_test_impl.h"
#include "nncert/prover.h"
#include "prover/msm_impl.h"
#include "prover/ntt_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prover_test_util.h"

static int g_checks, g_fail;

static void rand_fr(nnc_fr *k) { rng_fr_uniform(k, &g_rng); }

/* kind 0: uniform; 1: edge values (0, 1, r-1, small, repeated);
 * 2: all equal */
static void make_scalars(nnc_fr *k, size_t n, int kind)
{
    nnc_fr rep;
    size_t i;
    rand_fr(&rep);
    for (i = 0; i < n; i++) {
        unsigned t = kind == 0 ? 0 : kind == 2 ? 9 : (unsigned)(rng_next(&g_rng) % 6);
        switch (t) {
        case 1: nnc_fr_set_zero(&k[i]); break;
        case 2: nnc_fr_set_one(&k[i]); break;
        case 3: nnc_fr_set_one(&k[i]); nnc_fr_neg(&k[i], &k[i]); break;
        case 4: nnc_fr_set_u64(&k[i], rng_next(&g_rng) % 100); break;
        case 9: case 5: k[i] = rep; break;
        default: rand_fr(&k[i]); break;
        }
    }
}

/* G1 points (Jacobian chain from a random multiple, one batched inversion);
 * kind 1 puts in infinity and -P_(i-1); kind 2 repeats one point. */
static void make_g1(nnc_g1 *p, size_t n, int kind)
{
    nnc_g1_jac *j, q;
    nnc_fq *z, *zi, t;
    nnc_g1 gen, step;
    nnc_fr s;
    size_t i;
    if (n == 0)
        return;
    j = malloc(n * sizeof *j);
    z = calloc(n, sizeof *z);
    zi = malloc(n * sizeof *zi);
    if (!j || !z || !zi)
        exit(1);
    nnc_g1_generator(&gen);
    rand_fr(&s);
    nnc_prv_g1_mul_var(&step, &gen, &s);
    nnc_g1_aff_to_jac(&q, &step);
    for (i = 0; i < n; i++) {
        j[i] = q;
        if (kind != 2)
            nnc_g1_jac_add_aff_var(&q, &q, i % 2 ? &gen : &step);
    }
    for (i = 0; i < n; i++)
        z[i] = j[i].z;
    nnc_fq_inv_batch(zi, z, n);
    for (i = 0; i < n; i++) {
        nnc_fq_sqr(&t, &zi[i]);
        nnc_fq_mul(&p[i].x, &j[i].x, &t);
        nnc_fq_mul(&t, &t, &zi[i]);
        nnc_fq_mul(&p[i].y, &j[i].y, &t);
    }
    if (kind == 1)
        for (i = 1; i < n; i++) {
            unsigned r = (unsigned)(rng_next(&g_rng) % 8);
            if (r == 0)
                memset(&p[i], 0, sizeof p[i]);
            else if (r == 1)
                nnc_g1_aff_neg(&p[i], &p[i - 1]);
        }
    free(j);
    free(z);
    free(zi);
}

static void make_g2(nnc_g2 *p, size_t n, int kind)
{
    nnc_g2 gen, step;
    nnc_g2_jac q;
    nnc_fr s;
    size_t i;
    nnc_g2_generator(&gen);
    rand_fr(&s);
    nnc_prv_g2_mul_var(&step, &gen, &s);
    nnc_g2_aff_to_jac(&q, &step);
    for (i = 0; i < n; i++) {
        nnc_g2_jac_to_aff_var(&p[i], &q);
        if (kind != 2)
            nnc_g2_jac_add_aff_var(&q, &q, i % 2 ? &gen : &step);
        if (kind == 1 && i > 0) {
            unsigned r = (unsigned)(rng_next(&g_rng) % 8);
            if (r == 0)
                memset(&p[i], 0, sizeof p[i]);
            else if (r == 1)
                nnc_g2_aff_neg(&p[i], &p[i - 1]);
        }
    }
}

static void check(int ok, const char *what, size_t n, const char *err)
{
    g_checks++;
    if (!ok) {
        g_fail++;
        printf("FAIL: %s n=%zu %s (seed %llu)\n", what, n, err ? err : "", (unsigned long long)g_seed);
    }
}

/* One MSM of n points and scalars of the given kind, on the GPU and the CPU:
 * over G2 when g2, else over G1. */
static void msm_case(int g2, size_t n, int kind)
{
    const char *op = g2 ? "g2_msm" : "g1_msm";
    size_t psize = g2 ? sizeof(nnc_g2) : sizeof(nnc_g1);
    void *p = malloc((n + 1) * psize);
    nnc_fr *k = malloc((n + 1) * sizeof *k);
    union { nnc_g1 g1; nnc_g2 g2; } cpu, gpu;
    char err[NNC_ERRBUF_SIZE] = "", name[64];
    double t0, t1, t2;
    nnc_status st;
    if (!p || !k)
        exit(1);
    if (g2)
        make_g2(p, n, kind);
    else
        make_g1(p, n, kind);
    make_scalars(k, n, kind);
    t0 = gpu_test_now();
    st = g2 ? nnc_gpu_g2_msm(&gpu.g2, p, k, n, err, sizeof err) : nnc_gpu_g1_msm(&gpu.g1, p, k, n, err, sizeof err);
    t1 = gpu_test_now();
    if (g2)
        nnc_prv_g2_msm(&cpu.g2, p, k, n, 0);
    else
        nnc_prv_g1_msm(&cpu.g1, p, k, n, 0);
    t2 = gpu_test_now();
    snprintf(name, sizeof name, "%s kind %d", op, kind);
    check(st == NNC_STATUS_OK && memcmp(&cpu, &gpu, psize) == 0, name, n, err);
    printf("time %s%s %zu %.6f %.6f\n", op, kind ? "_edge" : "", n, t1 - t0, t2 - t1);
    free(p);
    free(k);
}

/* variant 0: ntt, 1: intt, 2: coset (default shift), 3: coset inverse,
 * 4: coset with shift 5, 5: its inverse */
static void ntt_case(size_t n, int variant)
{
    static const char *names[] = {"ntt", "intt", "coset_ntt", "coset_intt", "coset5_ntt", "coset5_intt"};
    nnc_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), five;
    char err[NNC_ERRBUF_SIZE] = "";
    double t0, t1, t2;
    nnc_status sg, sc;
    size_t i;
    if (!a || !b)
        exit(1);
    for (i = 0; i < n; i++)
        rand_fr(&a[i]);
    memcpy(b, a, n * sizeof *a);
    nnc_fr_set_u64(&five, 5);
    t0 = gpu_test_now();
    if (variant < 2)
        sg = nnc_gpu_ntt(a, n, variant, err, sizeof err);
    else
        sg = nnc_gpu_coset_ntt(a, n, variant & 1, variant >= 4 ? &five : NULL, err, sizeof err);
    t1 = gpu_test_now();
    switch (variant) {
    case 0: case 1: sc = nnc_prv_ntt(b, n, variant, 0); break;
    case 2: sc = nnc_prv_coset_ntt(b, n, NULL, 0); break;
    case 3: sc = nnc_prv_coset_intt(b, n, NULL, 0); break;
    case 4: sc = nnc_prv_coset_ntt(b, n, &five, 0); break;
    default: sc = nnc_prv_coset_intt(b, n, &five, 0); break;
    }
    t2 = gpu_test_now();
    check(sg == NNC_STATUS_OK && sc == NNC_STATUS_OK && memcmp(a, b, n * sizeof *a) == 0, names[variant], n, err);
    printf("time %s %zu %.6f %.6f\n", names[variant], n, t1 - t0, t2 - t1);
    free(a);
    free(b);
}

int main(void)
{
    char err[NNC_ERRBUF_SIZE] = "";
    int v, kind;
    size_t i;
    gpu_test_devices_or_skip();
    harness_seed("test_gpu_prover"); /* g_rng: the inputs in the order drawn */

    { /* known answer first: [1]G + [2]G = [3]G */
        nnc_g1 p[2], got, want;
        nnc_fr k[2], three;
        nnc_g1_generator(&p[0]);
        p[1] = p[0];
        nnc_fr_set_u64(&k[0], 1);
        nnc_fr_set_u64(&k[1], 2);
        nnc_fr_set_u64(&three, 3);
        nnc_prv_g1_mul_var(&want, &p[0], &three);
        check(nnc_gpu_g1_msm(&got, p, k, 2, err, sizeof err) == NNC_STATUS_OK &&
                  memcmp(&got, &want, sizeof got) == 0,
              "known answer [1]G + [2]G", 2, err);
        if (g_fail) {
            printf("FAIL\n");
            return 1;
        }
    }
    {
        static const size_t g1n[] = {0, 1, 3, 100, 1000, 1 << 12, 1 << 16, 1 << 20};
        for (i = 0; i < sizeof g1n / sizeof g1n[0]; i++)
            for (kind = 0; kind < 2; kind++)
                msm_case(0, g1n[i], kind);
        msm_case(0, 1 << 12, 2); /* one point, one scalar: one long run */
    }
    {
        static const size_t g2n[] = {0, 1, 17, 1000, 1 << 14};
        for (i = 0; i < sizeof g2n / sizeof g2n[0]; i++)
            for (kind = 0; kind < 2; kind++)
                msm_case(1, g2n[i], kind);
        msm_case(1, 512, 2);
    }
    {
        static const int logs[] = {0, 1, 4, 10, 11, 16, 20, 22};
        for (i = 0; i < sizeof logs / sizeof logs[0]; i++)
            for (v = 0; v < 6; v++)
                ntt_case((size_t)1 << logs[i], v);
    }
    { /* bad sizes: the same codes as the CPU */
        nnc_fr a[4];
        memset(a, 0, sizeof a);
        check(nnc_gpu_ntt(a, 3, 0, err, sizeof err) == NNC_STATUS_INVALID, "ntt n=3 invalid", 3, NULL);
        check(nnc_gpu_coset_ntt(a, (size_t)1 << 28, 0, NULL, err, sizeof err) == NNC_STATUS_LIMIT,
              "coset n=2^28 limit", (size_t)1 << 28, NULL);
    }
    if (g_fail) {
        printf("FAIL: %d of %d checks\n", g_fail, g_checks);
        return 1;
    }
    printf("100%%: Checks: %d, Failures: 0, Errors: 0\n", g_checks);
    return 0;
}
