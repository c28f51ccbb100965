/* Multi-scalar multiplication (prover/msm.c): every method (automatic,
 * naive, Jacobian and affine-bucket Pippenger at several window widths,
 * the allocation-free fallback) and thread counts 1 and 2 against two
 * references on G1 and G2:
 *   - the points are P_i = [e_i] G with known e_i, so the sum is
 *     [sum_i k_i e_i mod r] G, one scalar multiplication;
 *   - for n <= 100 also the plain sum of nnc_prv_g*_mul_var(P_i, k_i).
 * Sizes n = 0, 1, 2, 3, 17, 100, 1000; random and edge scalars (0, 1, r-1,
 * small, repeated), repeated points, P next to -P, infinity; the Booth
 * recoding on its own against GMP.
 *
 * Random values come from a seed printed at start; NNC_TEST_SEED=<n>
 * replays a run. */
#include "nncert/prover.h"
#include "prover/msm_impl.h"

#include <check.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/unit/prover_test_util.h"

/* Scalars.  kind 0: uniform.  kind 1: edge values: 0, 1, 2, r-1, r-2,
 * small, 2^j, and a few values repeated across the array. */
static void make_scalars(nnc_fr *k, size_t n, int kind, rng *r)
{
    nnc_fr rep[3];
    size_t i;
    for (i = 0; i < 3; i++)
        rng_fr_uniform(&rep[i], r);
    for (i = 0; i < n; i++) {
        unsigned t = kind == 0 ? 0 : (unsigned)(rng_next(r) % 9);
        switch (t) {
        case 1: nnc_fr_set_zero(&k[i]); break;
        case 2: nnc_fr_set_one(&k[i]); break;
        case 3: nnc_fr_set_one(&k[i]); nnc_fr_neg(&k[i], &k[i]); break; /* r - 1 */
        case 4: nnc_fr_set_u64(&k[i], 2); nnc_fr_neg(&k[i], &k[i]); break;
        case 5: nnc_fr_set_u64(&k[i], rng_next(r) % 1000); break;
        case 6: {
            uint64_t x[4] = {0, 0, 0, 0};
            unsigned j = (unsigned)(rng_next(r) % 254);
            x[j / 64] = (uint64_t)1 << (j % 64);
            CHECK(nnc_fr_from_int(&k[i], x));
            break;
        }
        case 7: case 8: k[i] = rep[rng_next(r) % 3]; break;
        default: rng_fr_uniform(&k[i], r); break;
        }
    }
}

/* Points P_i = [e_i] G and their discrete logs e_i.  A pool of 16 random
 * multiples of G; the others are P_(i-1) + pool[j] (one addition each).
 * kind 1 also puts in infinity (e = 0), repeats of earlier points and
 * negations -P_j (e = -e_j) right after P_j. */
#define DEF_POINTS(G, AFF)                                                              \
    static void make_points_##G(AFF *p, nnc_fr *e, size_t n, int kind, rng *r)          \
    {                                                                                   \
        AFF gen, pool[16];                                                              \
        nnc_fr pe[16];                                                                  \
        size_t i;                                                                       \
        nnc_prv_##G##_generator(&gen);                                                  \
        for (i = 0; i < 16; i++) {                                                      \
            rng_fr_uniform(&pe[i], r);                                                 \
            nnc_prv_##G##_mul_var(&pool[i], &gen, &pe[i]);                              \
        }                                                                               \
        for (i = 0; i < n; i++) {                                                       \
            unsigned t = kind == 0 ? 0 : (unsigned)(rng_next(r) % 6);                   \
            unsigned j = (unsigned)(rng_next(r) % 16);                                  \
            if (i == 0 || t == 0 || t == 1) {                                           \
                if (i == 0) {                                                           \
                    p[i] = pool[j];                                                     \
                    e[i] = pe[j];                                                       \
                } else {                                                                \
                    nnc_prv_##G##_add(&p[i], &p[i - 1], &pool[j]);                      \
                    nnc_fr_add(&e[i], &e[i - 1], &pe[j]);                               \
                }                                                                       \
            } else if (t == 2) { /* infinity */                                         \
                memset(&p[i], 0, sizeof p[i]);                                          \
                nnc_fr_set_zero(&e[i]);                                                 \
            } else if (t == 3 || t == 4) { /* repeat */                                 \
                size_t s = (size_t)(rng_next(r) % i);                                   \
                p[i] = p[s];                                                            \
                e[i] = e[s];                                                            \
            } else { /* negation of the previous one */                                 \
                nnc_prv_##G##_neg(&p[i], &p[i - 1]);                                    \
                nnc_fr_neg(&e[i], &e[i - 1]);                                           \
            }                                                                           \
        }                                                                               \
    }
DEF_POINTS(g1, nnc_prv_g1)
DEF_POINTS(g2, nnc_prv_g2)

/* *out = [sum k_i e_i] G */
#define DEF_REF(G, AFF)                                                                 \
    static void ref_dlog_##G(AFF *out, const nnc_fr *e, const nnc_fr *k, size_t n)      \
    {                                                                                   \
        nnc_fr s, t;                                                                    \
        AFF gen;                                                                        \
        size_t i;                                                                       \
        nnc_fr_set_zero(&s);                                                            \
        for (i = 0; i < n; i++) {                                                       \
            nnc_fr_mul(&t, &e[i], &k[i]);                                               \
            nnc_fr_add(&s, &s, &t);                                                     \
        }                                                                               \
        nnc_prv_##G##_generator(&gen);                                                  \
        nnc_prv_##G##_mul_var(out, &gen, &s);                                           \
    }                                                                                   \
    static void ref_naive_##G(AFF *out, const AFF *p, const nnc_fr *k, size_t n)        \
    {                                                                                   \
        AFF t;                                                                          \
        size_t i;                                                                       \
        memset(out, 0, sizeof *out);                                                    \
        for (i = 0; i < n; i++) {                                                       \
            nnc_prv_##G##_mul(&t, &p[i], &k[i]);                                        \
            nnc_prv_##G##_add(out, out, &t);                                            \
        }                                                                               \
    }
DEF_REF(g1, nnc_prv_g1)
DEF_REF(g2, nnc_prv_g2)

/* A configuration and the sizes it runs on (tiny windows over many points
 * and wide windows over few only make the test slow). */
typedef struct cfg {
    nnc_msm_method method;
    int c;
    size_t nmin, nmax;
    int both_threads; /* also with 2 threads */
    int g1_only;      /* the code is shared by G1 and G2: slow cases once */
    const char *name;
} cfg;

static const cfg cfgs[] = {
    {NNC_MSM_METHOD_AUTO, 0, 0, 100000, 1, 0, "auto"},
    {NNC_MSM_METHOD_NAIVE, 0, 0, 100, 0, 0, "naive"},
    {NNC_MSM_METHOD_NOHEAP, 0, 0, 300, 0, 0, "noheap"},
    {NNC_MSM_METHOD_JAC, 0, 0, 100000, 1, 0, "jac"},
    {NNC_MSM_METHOD_JAC, 1, 0, 17, 1, 0, "jac c=1"},
    {NNC_MSM_METHOD_JAC, 5, 0, 300, 1, 0, "jac c=5"},
    {NNC_MSM_METHOD_AFFINE, 0, 0, 100000, 1, 0, "affine"},
    {NNC_MSM_METHOD_AFFINE, 1, 0, 17, 1, 0, "aff c=1"},
    {NNC_MSM_METHOD_AFFINE, 2, 0, 17, 1, 0, "aff c=2"},
    {NNC_MSM_METHOD_AFFINE, 4, 0, 100, 1, 0, "aff c=4"},
    {NNC_MSM_METHOD_AFFINE, 8, 0, 100000, 1, 0, "aff c=8"},
    {NNC_MSM_METHOD_AFFINE, 12, 1000, 100000, 0, 1, "aff c=12"}, /* 2^11 buckets > batch of 1024 */
    {NNC_MSM_METHOD_AFFINE_PLAIN, 0, 0, 100000, 1, 1, "aff plain"}, /* G1 without GLV (large n) */
};

/* Runs every configuration for n on (p, k) and compares with want byte for byte. */
#define DEF_RUN(G, AFF)                                                                         \
    static void run_all_##G(const AFF *p, const nnc_fr *k, size_t n, const AFF *want,           \
                            const char *what)                                                   \
    {                                                                                           \
        size_t ci;                                                                              \
        int th;                                                                                 \
        for (ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {                                 \
            if (n < cfgs[ci].nmin || n > cfgs[ci].nmax || (cfgs[ci].g1_only && #G[1] != '1'))  \
                continue;                                                                       \
            /* threads: shared code too; G2 tries 2 only on the automatic path */            \
            for (th = 1; th <= (cfgs[ci].both_threads && (#G[1] == '1' || ci == 0) ? 2 : 1); th++) { \
                AFF got;                                                                        \
                memset(&got, 0xa5, sizeof got);                                                 \
                if (cfgs[ci].method == NNC_MSM_METHOD_AUTO)                                     \
                    nnc_prv_##G##_msm(&got, p, k, n, th);                                       \
                else                                                                            \
                    nnc_prv_##G##_msm_cfg(&got, p, k, n, th, cfgs[ci].method, cfgs[ci].c);      \
                if (memcmp(&got, want, sizeof got) != 0)                                        \
                    ck_abort_msg(#G " msm %s n=%zu method %s threads %d: wrong sum (seed %llu)", \
                                 what, n, cfgs[ci].name, th, (unsigned long long)g_seed);       \
            }                                                                                   \
        }                                                                                       \
        /* in equal runs of at most 37 terms (a large MSM's path), both bucket kinds */      \
        for (int jac = 0; jac < 2 && n >= 100; jac++) {                                         \
            AFF got;                                                                            \
            nnc_msm_set_run_terms(37);                                                          \
            nnc_prv_##G##_msm_cfg(&got, p, k, n, 2, jac ? NNC_MSM_METHOD_JAC : NNC_MSM_METHOD_AFFINE, 0); \
            nnc_msm_set_run_terms(0);                                                           \
            if (memcmp(&got, want, sizeof got) != 0)                                            \
                ck_abort_msg(#G " msm %s n=%zu in runs of 37, %s buckets: wrong sum (seed %llu)", what, n, \
                             jac ? "Jacobian" : "affine", (unsigned long long)g_seed);          \
        }                                                                                       \
    }
DEF_RUN(g1, nnc_prv_g1)
DEF_RUN(g2, nnc_prv_g2)

#define DEF_SIZES_TEST(G, AFF)                                                          \
    static void sizes_##G(void)                                                         \
    {                                                                                   \
        static const size_t sizes[] = {0, 1, 2, 3, 17, 100, 1000};                      \
        size_t si;                                                                      \
        int kind;                                                                       \
        for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {                       \
            for (kind = 0; kind < 2; kind++) {                                          \
                size_t n = sizes[si];                                                   \
                rng r = rng_for(1000 * si + (size_t)kind + 1);                          \
                AFF *p = malloc((n + 1) * sizeof *p), want, naive;                      \
                nnc_fr *e = malloc((n + 1) * sizeof *e), *k = malloc((n + 1) * sizeof *k); \
                CHECK(p && e && k);                                                     \
                make_points_##G(p, e, n, kind, &r);                                     \
                make_scalars(k, n, kind, &r);                                           \
                ref_dlog_##G(&want, e, k, n);                                           \
                if (n <= 100) {                                                         \
                    ref_naive_##G(&naive, p, k, n);                                     \
                    CHECK(memcmp(&naive, &want, sizeof want) == 0);                     \
                }                                                                       \
                run_all_##G(p, k, n, &want, kind ? "edge" : "random");                  \
                free(p);                                                                \
                free(e);                                                                \
                free(k);                                                                \
            }                                                                           \
        }                                                                               \
    }
DEF_SIZES_TEST(g1, nnc_prv_g1)
DEF_SIZES_TEST(g2, nnc_prv_g2)

START_TEST(test_sizes_g1) { sizes_g1(); }
END_TEST

START_TEST(test_sizes_g2) { sizes_g2(); }
END_TEST

/* Degenerate inputs: one point and one scalar repeated (every addition into
 * a bucket is a doubling), P and -P with equal scalars (sum infinity), all
 * points infinity, all scalars zero, scalars r-1 (= -1). */
#define DEF_DEGENERATE(G, AFF)                                                          \
    static void degenerate_##G(void)                                                    \
    {                                                                                   \
        enum { N = 300 };                                                               \
        AFF p[N], want, gen;                                                            \
        nnc_fr e[N], k[N], s;                                                           \
        rng r = rng_for(77);                                                            \
        size_t i;                                                                       \
        nnc_prv_##G##_generator(&gen);                                                  \
        rng_fr_uniform(&s, &r);                                                        \
        /* one point, one scalar */                                                     \
        for (i = 0; i < N; i++) {                                                       \
            nnc_fr_set_u64(&e[i], 7);                                                   \
            nnc_prv_##G##_mul_var(&p[i], &gen, &e[i]);                                  \
            k[i] = s;                                                                   \
        }                                                                               \
        ref_dlog_##G(&want, e, k, N);                                                   \
        run_all_##G(p, k, N, &want, "same point and scalar");                           \
        /* P, -P pairs with equal scalars: infinity */                                  \
        for (i = 0; i + 1 < N; i += 2) {                                                \
            rng_fr_uniform(&e[i], &r);                                                 \
            nnc_prv_##G##_mul_var(&p[i], &gen, &e[i]);                                  \
            nnc_prv_##G##_neg(&p[i + 1], &p[i]);                                        \
            nnc_fr_neg(&e[i + 1], &e[i]);                                               \
            rng_fr_uniform(&k[i], &r);                                                 \
            k[i + 1] = k[i];                                                            \
        }                                                                               \
        memset(&want, 0, sizeof want);                                                  \
        run_all_##G(p, k, N, &want, "P,-P pairs");                                      \
        /* all scalars r - 1: -(sum P_i) */                                             \
        for (i = 0; i < N; i++) {                                                       \
            nnc_fr_set_one(&k[i]);                                                      \
            nnc_fr_neg(&k[i], &k[i]);                                                   \
        }                                                                               \
        ref_dlog_##G(&want, e, k, N);                                                   \
        run_all_##G(p, k, N, &want, "scalars r-1");                                     \
        /* all scalars zero */                                                          \
        for (i = 0; i < N; i++)                                                         \
            nnc_fr_set_zero(&k[i]);                                                     \
        memset(&want, 0, sizeof want);                                                  \
        run_all_##G(p, k, N, &want, "scalars 0");                                       \
        /* all points infinity */                                                       \
        for (i = 0; i < N; i++) {                                                       \
            memset(&p[i], 0, sizeof p[i]);                                              \
            rng_fr_uniform(&k[i], &r);                                                 \
        }                                                                               \
        run_all_##G(p, k, N, &want, "points infinity");                                 \
    }
DEF_DEGENERATE(g1, nnc_prv_g1)
DEF_DEGENERATE(g2, nnc_prv_g2)

START_TEST(test_degenerate_g1) { degenerate_g1(); }
END_TEST

START_TEST(test_degenerate_g2) { degenerate_g2(); }
END_TEST

/* Booth digits: sum_w d_w 2^(cw) = k, |d_w| <= 2^(c-1), for every width. */
START_TEST(test_digits)
{
    rng r = rng_for(5);
    mpz_t k, s, t;
    int trial, c, w;
    mpz_inits(k, s, t, NULL);
    for (trial = 0; trial < 200; trial++) {
        uint64_t x[4];
        nnc_fr f;
        if (trial == 0) {
            nnc_fr_set_zero(&f);
        } else if (trial == 1) {
            nnc_fr_set_one(&f);
            nnc_fr_neg(&f, &f); /* r - 1 */
        } else if (trial == 2) {
            nnc_fr_set_one(&f);
        } else {
            rng_fr_uniform(&f, &r);
        }
        nnc_fr_to_int(x, &f);
        mpz_import(k, 4, -1, 8, 0, 0, x);
        for (c = 1; c <= NNC_MSM_MAX_WINDOW; c++) {
            mpz_set_ui(s, 0);
            for (w = NNC_MSM_NWIN(c) - 1; w >= 0; w--) {
                int d = nnc_msm_digit(x, w, c);
                CHECK(d >= -(1 << (c - 1)) && d <= (1 << (c - 1)));
                mpz_mul_2exp(s, s, (mp_bitcnt_t)c);
                if (d >= 0)
                    mpz_add_ui(s, s, (unsigned long)d);
                else
                    mpz_sub_ui(s, s, (unsigned long)-d);
            }
            CHECK(mpz_cmp(s, k) == 0);
        }
    }
    /* the window choice stays in range */
    for (w = 0; w < 40; w++) {
        c = nnc_msm_window((size_t)1 << (w % 40), w & 1);
        CHECK(c >= 2 && c <= 16);
    }
    mpz_clears(k, s, t, NULL);
}
END_TEST

/* GLV: beta x is [lambda] on G1, and the split k = +-k1 +- k2 lambda (mod r)
 * with k1, k2 < 2^128, checked with GMP on edge scalars (0, 1, 2, r-1, r-2,
 * lambda, lambda^2, (r-1)/2, (r+1)/2, 2^127, 2^128 - 1, 2^128, 2^253, each
 * also minus one) and thousands of random ones. */
static const char *const glv_lambda_hex = "b3c4d79d41a917585bfc41088d8daaa78b17ea66b99c90dd";
static const char *const glv_beta_hex = "59e26bcea0d48bacd4f263f1acdb5c4f5763473177fffffe";

static void mpz_to_limbs(uint64_t x[4], const mpz_t v)
{
    size_t cnt = 0;
    x[0] = x[1] = x[2] = x[3] = 0;
    mpz_export(x, &cnt, -1, 8, 0, 0, v);
}

START_TEST(test_glv_endomorphism)
{
    rng r = rng_for(11);
    mpz_t lam, beta;
    uint64_t l[4], b[4];
    nnc_fq fb;
    int trial;
    mpz_init_set_str(lam, glv_lambda_hex, 16);
    mpz_init_set_str(beta, glv_beta_hex, 16);
    mpz_to_limbs(l, lam);
    mpz_to_limbs(b, beta);
    CHECK(nnc_fq_from_int(&fb, b));
    for (trial = 0; trial < 20; trial++) {
        nnc_fr e;
        nnc_prv_g1 gen, p, want, phi;
        nnc_g1_jac j;
        nnc_prv_g1_generator(&gen);
        rng_fr_uniform(&e, &r);
        nnc_prv_g1_mul_var(&p, &gen, &e);
        nnc_g1_aff_to_jac(&j, &p);
        nnc_g1_jac_mul_var(&j, &j, l);
        nnc_g1_jac_to_aff_var(&want, &j);
        phi = p;
        nnc_fq_mul(&phi.x, &p.x, &fb);
        CHECK(memcmp(&phi, &want, sizeof want) == 0);
    }
    mpz_clears(lam, beta, NULL);
}
END_TEST

START_TEST(test_glv_split)
{
    rng r = rng_for(12);
    mpz_t rm, lam, k, a, b, t, bound;
    uint64_t x[4];
    int trial, ntrial = 20000;
    mpz_inits(rm, k, a, b, t, bound, NULL);
    mpz_set_str(rm, "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001", 16);
    mpz_init_set_str(lam, glv_lambda_hex, 16);
    mpz_setbit(bound, 128);
    for (trial = 0; trial < ntrial; trial++) {
        uint64_t k1[2], k2[2];
        int n1, n2, e = trial / 2;
        switch (e) {
        case 0: mpz_set_ui(k, 0); break;
        case 1: mpz_set_ui(k, 1); break;
        case 2: mpz_set_ui(k, 2); break;
        case 3: mpz_sub_ui(k, rm, 1); break;
        case 4: mpz_sub_ui(k, rm, 2); break;
        case 5: mpz_set(k, lam); break;
        case 6: mpz_mul(k, lam, lam); mpz_mod(k, k, rm); break;
        case 7: mpz_sub_ui(k, rm, 1); mpz_fdiv_q_2exp(k, k, 1); break;
        case 8: mpz_add_ui(k, rm, 1); mpz_fdiv_q_2exp(k, k, 1); break;
        case 9: mpz_set_ui(k, 0); mpz_setbit(k, 127); break;
        case 10: mpz_set_ui(k, 0); mpz_setbit(k, 128); mpz_sub_ui(k, k, 1); break;
        case 11: mpz_set_ui(k, 0); mpz_setbit(k, 128); break;
        case 12: mpz_set_ui(k, 0); mpz_setbit(k, 253); break;
        default: {
            nnc_fr f;
            rng_fr_uniform(&f, &r);
            nnc_fr_to_int(x, &f);
            mpz_import(k, 4, -1, 8, 0, 0, x);
        }
        }
        if (e <= 12 && (trial & 1) && mpz_sgn(k) > 0)
            mpz_sub_ui(k, k, 1); /* each edge value and its predecessor */
        CHECK(mpz_cmp(k, rm) < 0);
        mpz_to_limbs(x, k);
        nnc_msm_glv_split(k1, &n1, k2, &n2, x);
        mpz_import(a, 2, -1, 8, 0, 0, k1);
        mpz_import(b, 2, -1, 8, 0, 0, k2);
        CHECK(mpz_cmp(a, bound) < 0 && mpz_cmp(b, bound) < 0);
        if (n1)
            mpz_neg(a, a);
        if (n2)
            mpz_neg(b, b);
        mpz_mul(t, b, lam);
        mpz_add(t, t, a);
        mpz_sub(t, t, k);
        CHECK(mpz_divisible_p(t, rm));
        /* the split of a small k is k itself */
        if (mpz_sizeinbase(k, 2) <= 64 && mpz_sgn(k) >= 0)
            CHECK(!n1 && !n2 && k1[0] == x[0] && k1[1] == 0 && k2[0] == 0 && k2[1] == 0);
    }
    mpz_clears(rm, lam, k, a, b, t, bound, NULL);
}
END_TEST

/* G1 MSMs of 9000 points (the preparation of the terms split over two
 * threads at 2) whose scalars make the GLV terms and the bit-length
 * ordering matter: random, near r (negated), near 2^128 and lambda
 * multiples, small, mixed, against the discrete-log reference. */
START_TEST(test_glv_msm)
{
    enum { N = 9000 };
    rng r = rng_for(13);
    nnc_prv_g1 *p = malloc(N * sizeof *p), want, got;
    nnc_fr *e = malloc(N * sizeof *e), *k = malloc(N * sizeof *k), lamf;
    uint64_t l[4];
    mpz_t lam;
    int kind, th;
    size_t i;
    CHECK(p && e && k);
    mpz_init_set_str(lam, glv_lambda_hex, 16);
    mpz_to_limbs(l, lam);
    CHECK(nnc_fr_from_int(&lamf, l));
    make_points_g1(p, e, N, 0, &r);
    for (kind = 0; kind < 5; kind++) {
        for (i = 0; i < N; i++) {
            unsigned t = kind < 4 ? (unsigned)kind : (unsigned)(rng_next(&r) % 4);
            uint64_t x[4] = {rng_next(&r), rng_next(&r), 0, 0};
            switch (t) {
            case 0: rng_fr_uniform(&k[i], &r); break;
            case 1: /* r - small: negated to small */
                nnc_fr_set_u64(&k[i], rng_next(&r) >> (rng_next(&r) % 64));
                nnc_fr_neg(&k[i], &k[i]);
                break;
            case 2: /* around 2^128 and its negation */
                x[2] = rng_next(&r) & 1;
                CHECK(nnc_fr_from_int(&k[i], x));
                if (rng_next(&r) & 1)
                    nnc_fr_neg(&k[i], &k[i]);
                break;
            default: /* a + b lambda with small a, b */
                nnc_fr_set_u64(&k[i], rng_next(&r) % 1000);
                {
                    nnc_fr bb;
                    nnc_fr_set_u64(&bb, rng_next(&r) % 1000);
                    nnc_fr_mul(&bb, &bb, &lamf);
                    nnc_fr_add(&k[i], &k[i], &bb);
                }
                break;
            }
        }
        ref_dlog_g1(&want, e, k, N);
        for (th = 1; th <= 2; th++) {
            nnc_prv_g1_msm(&got, p, k, N, th);
            CHECK(memcmp(&got, &want, sizeof want) == 0);
            nnc_prv_g1_msm_cfg(&got, p, k, N, th, NNC_MSM_METHOD_JAC, 0);
            CHECK(memcmp(&got, &want, sizeof want) == 0);
            nnc_prv_g1_msm_cfg(&got, p, k, N, th, NNC_MSM_METHOD_AFFINE, 13);
            CHECK(memcmp(&got, &want, sizeof want) == 0);
            nnc_prv_g1_msm_cfg(&got, p, k, N, th, NNC_MSM_METHOD_AFFINE_PLAIN, 0);
            CHECK(memcmp(&got, &want, sizeof want) == 0);
        }
    }
    mpz_clear(lam);
    free(p);
    free(e);
    free(k);
}
END_TEST

/* nnc_prv_g1_msm2 (two segments, one Pippenger run or several) equals [sum k_i e_i] G
 * over both: empty segments, tiny (naive and Jacobian methods), and sizes
 * where the preparation threads' shares cross the segment boundary from
 * either side; edge scalars and degenerate points; 1 and 2 threads. */
START_TEST(test_msm2)
{
    static const size_t split[][2] = {{0, 0}, {0, 5}, {7, 0}, {3, 4}, {100, 300}, {5000, 6000}, {6000, 5000}};
    size_t si;
    int kind, th;
    for (si = 0; si < sizeof split / sizeof split[0]; si++) {
        for (kind = 0; kind < 2; kind++) {
            size_t n1 = split[si][0], n2 = split[si][1], n = n1 + n2;
            rng r = rng_for(500 + 2 * si + (size_t)kind);
            nnc_prv_g1 *p = malloc((n + 1) * sizeof *p), want, got;
            nnc_fr *e = malloc((n + 1) * sizeof *e), *k = malloc((n + 1) * sizeof *k);
            CHECK(p && e && k);
            make_points_g1(p, e, n, kind, &r);
            make_scalars(k, n, kind, &r);
            ref_dlog_g1(&want, e, k, n);
            /* in one run, and in runs of 3000 and 777 terms (equal runs
             * across the segments: a large MSM's path, NNC_MSM_RUN_BYTES) */
            static const size_t runs[] = {0, 3000, 777};
            for (size_t ri = 0; ri < sizeof runs / sizeof runs[0]; ri++)
                for (th = 1; th <= 2; th++) {
                    nnc_msm_set_run_terms(runs[ri]);
                    nnc_prv_g1_msm2(&got, p, k, n1, p + n1, k + n1, n2, th);
                    nnc_msm_set_run_terms(0);
                    if (memcmp(&got, &want, sizeof want) != 0)
                        ck_abort_msg("msm2 %zu + %zu points, kind %d, %d threads, runs of %zu: wrong sum", n1, n2, kind,
                                     th, runs[ri]);
                }
            free(p);
            free(e);
            free(k);
        }
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prover_msm");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_digits);
    tcase_add_test(tc, test_glv_endomorphism);
    tcase_add_test(tc, test_glv_split);
    tcase_add_test(tc, test_glv_msm);
    tcase_add_test(tc, test_msm2);
    tcase_add_test(tc, test_sizes_g1);
    tcase_add_test(tc, test_degenerate_g1);
    tcase_add_test(tc, test_sizes_g2);
    tcase_add_test(tc, test_degenerate_g2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return harness_main("test_prover_msm", suite); }
