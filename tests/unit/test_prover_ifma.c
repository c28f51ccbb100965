/* The AVX-512 IFMA Fq unit (prover/fq_ifma.c):
 *   - 8-lane Montgomery product (radix 2^260), sum and difference against
 *     GMP on random values and edge values (0, 1, 2, (p-1)/2, p-1, p-2,
 *     near-all-ones limbs; for the product's first operand also values up
 *     to 2^256 - 1);
 *   - the batched affine additions against the scalar affine formulas,
 *     batches of 1 .. 40 and 1024 additions with doublings mixed in;
 *   - the bucket sums (8 lanes of complete projective additions) against
 *     plain running sums, with infinity, equal and opposite buckets;
 *   - G1 MSMs (automatic method, affine buckets with and without GLV, 1
 *     and 2 threads) with IFMA on and off (NNC_NO_IFMA=1) against the naive
 *     method and the discrete-log reference: sizes 256 .. 9000, zero
 *     scalars, infinity points, one point repeated (doublings in the
 *     batches), P next to -P.
 * Without IFMA on the CPU the program prints "skipped" and exits 77
 * (tests/run_all.sh counts that as a skip).  NNC_TEST_SEED=<n> replays. */
#include "nncert/prover.h"
#include "prover/fq_ifma.h"
#include "prover/msm_impl.h"

#include <check.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/prover_test_util.h"

static const char *p_hex = "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47";

static void limbs_to_mpz(mpz_t r, const uint64_t x[4])
{
    mpz_import(r, 4, -1, sizeof(uint64_t), 0, 0, x);
}

static void mpz_to_limbs4(uint64_t x[4], const mpz_t v)
{
    size_t cnt = 0;
    memset(x, 0, 4 * sizeof x[0]);
    mpz_export(x, &cnt, -1, sizeof(uint64_t), 0, 0, v);
}

/* Value number i of a stream mixing edge values and uniform ones; below p,
 * or (wide) below 2^256. */
static void pick(uint64_t x[4], rng *r, int wide)
{
    static const uint64_t pm[4] = NNC_FQ_MODULUS_INIT;
    unsigned t = (unsigned)(rng_next(r) % 16);
    uint64_t d;
    int j;
    switch (t) {
    case 0: memset(x, 0, 32); return;
    case 1: memset(x, 0, 32); x[0] = 1 + rng_next(r) % 3; return;
    case 2: /* p - 1 - small */
    {
        uint64_t br;
        d = 1 + rng_next(r) % 1000;
        br = nnc_sbb64(&x[0], pm[0], d, 0);
        br = nnc_sbb64(&x[1], pm[1], 0, br);
        br = nnc_sbb64(&x[2], pm[2], 0, br);
        (void)nnc_sbb64(&x[3], pm[3], 0, br);
        return;
    }
    case 3: /* (p-1)/2 and neighbours */
    {
        static const uint64_t h[4] = NNC_FQ_HALF_EXP_INIT;
        memcpy(x, h, 32);
        x[0] += rng_next(r) % 3;
        return;
    }
    case 4: /* one limb all ones, others random, kept below p */
        for (j = 0; j < 4; j++)
            x[j] = rng_next(r);
        x[rng_next(r) % 3] = ~0ULL;
        x[3] &= 0x2fffffffffffffffULL;
        return;
    case 5:
        if (wide) { /* near 2^256 */
            for (j = 0; j < 4; j++)
                x[j] = ~0ULL;
            x[0] -= rng_next(r) % 1000;
            return;
        }
        /* fall through */
    default:
        do {
            for (j = 0; j < 4; j++)
                x[j] = rng_next(r);
            if (!wide)
                x[3] &= 0x3fffffffffffffffULL;
        } while (!wide && !(nnc_fe4_lt_mask(x, pm) & 1));
        return;
    }
}

START_TEST(test_ops)
{
    rng r = rng_for(1);
    uint64_t a[8][4], b[8][4], got[8][4], want[4];
    mpz_t p, ma, mb, mr, rinv;
    int round, i, op;
    mpz_inits(p, ma, mb, mr, rinv, NULL);
    mpz_set_str(p, p_hex, 16);
    mpz_set_ui(rinv, 1);
    mpz_mul_2exp(rinv, rinv, 260);
    CHECK(mpz_invert(rinv, rinv, p));
    for (round = 0; round < 3000; round++) {
        for (op = 0; op < 3; op++) {
            for (i = 0; i < 8; i++) {
                pick(a[i], &r, op == 0);
                pick(b[i], &r, 0);
            }
            if (op == 0)
                nnc_fq_ifma_mul8(got, (const uint64_t (*)[4])a, (const uint64_t (*)[4])b);
            else if (op == 1)
                nnc_fq_ifma_add8(got, (const uint64_t (*)[4])a, (const uint64_t (*)[4])b);
            else
                nnc_fq_ifma_sub8(got, (const uint64_t (*)[4])a, (const uint64_t (*)[4])b);
            for (i = 0; i < 8; i++) {
                limbs_to_mpz(ma, a[i]);
                limbs_to_mpz(mb, b[i]);
                if (op == 0) {
                    mpz_mul(mr, ma, mb);
                    mpz_mul(mr, mr, rinv);
                } else if (op == 1) {
                    mpz_add(mr, ma, mb);
                } else {
                    mpz_sub(mr, ma, mb);
                }
                mpz_mod(mr, mr, p);
                mpz_to_limbs4(want, mr);
                if (memcmp(want, got[i], sizeof want) != 0)
                    ck_abort_msg("op %d lane %d round %d: a=%016llx..%016llx b=%016llx..%016llx (seed %llu)",
                                 op, i, round, (unsigned long long)a[i][3], (unsigned long long)a[i][0],
                                 (unsigned long long)b[i][3], (unsigned long long)b[i][0],
                                 (unsigned long long)g_seed);
            }
        }
    }
    mpz_clears(p, ma, mb, mr, rinv, NULL);
}
END_TEST

/* Batches of nq additions into distinct buckets, every 5th a doubling,
 * against nnc_prv_g1_add. */
START_TEST(test_batch_add)
{
    enum { CAP = 1024 };
    static const size_t sizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 40, CAP};
    rng r = rng_for(2);
    nnc_prv_g1 gen, *bk = malloc(2 * CAP * sizeof *bk), *want = malloc(2 * CAP * sizeof *want),
                    *qp = malloc(CAP * sizeof *qp);
    nnc_prv_fq *qd = malloc(CAP * sizeof *qd);
    uint32_t *qb = malloc(CAP * sizeof *qb);
    unsigned char *qdbl = malloc(CAP);
    void *scratch = malloc(nnc_g1_ifma_scratch_bytes(CAP));
    size_t si, k;
    CHECK(bk && want && qp && qd && qb && qdbl && scratch);
    nnc_prv_g1_generator(&gen);
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t nq = sizes[si];
        for (k = 0; k < 2 * CAP; k++)
            memset(&bk[k], 0, sizeof bk[k]);
        for (k = 0; k < nq; k++) {
            nnc_fr e;
            uint32_t b = (uint32_t)(2 * k + (rng_next(&r) & 1)); /* distinct, not in order */
            qb[nq - 1 - k] = b;
            rng_fr_uniform(&e, &r);
            nnc_prv_g1_mul_var(&bk[b], &gen, &e);
            if (k % 5 == 4) {
                qp[nq - 1 - k] = bk[b];
                qdbl[nq - 1 - k] = 1;
                nnc_fq_dbl(&qd[nq - 1 - k], &bk[b].y);
            } else {
                rng_fr_uniform(&e, &r);
                nnc_prv_g1_mul_var(&qp[nq - 1 - k], &gen, &e);
                qdbl[nq - 1 - k] = 0;
                nnc_fq_sub(&qd[nq - 1 - k], &qp[nq - 1 - k].x, &bk[b].x);
            }
        }
        memcpy(want, bk, 2 * CAP * sizeof *bk);
        for (k = 0; k < nq; k++)
            nnc_prv_g1_add(&want[qb[k]], &want[qb[k]], &qp[k]);
        nnc_g1_ifma_add_batch(bk, qb, qp, qd, qdbl, nq, scratch);
        for (k = 0; k < 2 * CAP; k++)
            if (memcmp(&bk[k], &want[k], sizeof bk[k]) != 0)
                ck_abort_msg("batch of %zu: bucket %zu differs (seed %llu)", nq, k,
                             (unsigned long long)g_seed);
    }
    free(bk);
    free(want);
    free(qp);
    free(qd);
    free(qb);
    free(qdbl);
    free(scratch);
}
END_TEST

/* Bucket sums sum_b b B_b for h = 8 .. 4096 (also h not a multiple of 8),
 * every 7th bucket infinity, some buckets equal or opposite to their
 * neighbour (the running sums meet doublings and infinity), against
 * running sums with nnc_prv_g1_add. */
START_TEST(test_bucket_sum)
{
    static const size_t hs[] = {8, 9, 64, 100, 1024, 4096};
    rng r = rng_for(3);
    nnc_prv_g1 gen, *bk = malloc((4096 + 1) * sizeof *bk), run, acc, got;
    size_t hi, b;
    CHECK(bk != NULL);
    nnc_prv_g1_generator(&gen);
    for (hi = 0; hi < sizeof hs / sizeof hs[0]; hi++) {
        size_t h = hs[hi];
        nnc_prv_g1_jac rj;
        memset(&bk[0], 0, sizeof bk[0]);
        for (b = 1; b <= h; b++) {
            nnc_fr e;
            unsigned t = (unsigned)(rng_next(&r) % 8);
            if (b % 7 == 3) {
                memset(&bk[b], 0, sizeof bk[b]);
            } else if (t == 0 && b > 1) {
                bk[b] = bk[b - 1];
            } else if (t == 1 && b > 1) {
                nnc_prv_g1_neg(&bk[b], &bk[b - 1]);
            } else {
                rng_fr_uniform(&e, &r);
                nnc_prv_g1_mul_var(&bk[b], &gen, &e);
            }
        }
        memset(&run, 0, sizeof run);
        memset(&acc, 0, sizeof acc);
        for (b = h; b >= 1; b--) {
            nnc_prv_g1_add(&run, &run, &bk[b]);
            nnc_prv_g1_add(&acc, &acc, &run);
        }
        nnc_g1_ifma_bucket_sum(&rj, bk, h);
        nnc_g1_jac_to_aff_var(&got, &rj);
        if (memcmp(&got, &acc, sizeof got) != 0)
            ck_abort_msg("bucket sum h=%zu differs (seed %llu)", h, (unsigned long long)g_seed);
    }
    free(bk);
}
END_TEST

/* P_i = [e_i] G: a pool of 16 random multiples, the others P_(i-1) + pool[j]. */
static void make_points(nnc_prv_g1 *p, nnc_fr *e, size_t n, rng *r)
{
    nnc_prv_g1 gen, pool[16];
    nnc_fr pe[16];
    size_t i;
    nnc_prv_g1_generator(&gen);
    for (i = 0; i < 16; i++) {
        rng_fr_uniform(&pe[i], r);
        nnc_prv_g1_mul_var(&pool[i], &gen, &pe[i]);
    }
    for (i = 0; i < n; i++) {
        unsigned j = (unsigned)(rng_next(r) % 16);
        if (i == 0) {
            p[i] = pool[j];
            e[i] = pe[j];
        } else {
            nnc_prv_g1_add(&p[i], &p[i - 1], &pool[j]);
            nnc_fr_add(&e[i], &e[i - 1], &pe[j]);
        }
    }
}

/* [sum k_i e_i] G */
static void ref_dlog(nnc_prv_g1 *out, const nnc_fr *e, const nnc_fr *k, size_t n)
{
    nnc_fr s, t;
    nnc_prv_g1 gen;
    size_t i;
    nnc_fr_set_zero(&s);
    for (i = 0; i < n; i++) {
        nnc_fr_mul(&t, &e[i], &k[i]);
        nnc_fr_add(&s, &s, &t);
    }
    nnc_prv_g1_generator(&gen);
    nnc_prv_g1_mul_var(out, &gen, &s);
}

/* Every bucket configuration with IFMA on and off against want. */
static void run_both(const nnc_prv_g1 *p, const nnc_fr *k, size_t n, const nnc_prv_g1 *want, const char *what)
{
    static const struct {
        nnc_msm_method m;
        int c;
        const char *name;
    } cf[] = {{NNC_MSM_METHOD_AUTO, 0, "auto"},
              {NNC_MSM_METHOD_AFFINE, 0, "affine"},
              {NNC_MSM_METHOD_AFFINE, 5, "affine c=5"},
              {NNC_MSM_METHOD_AFFINE, 12, "affine c=12"},
              {NNC_MSM_METHOD_AFFINE_PLAIN, 0, "affine plain"}};
    size_t ci;
    int th, off;
    for (off = 0; off < 2; off++) {
        if (off)
            setenv("NNC_NO_IFMA", "1", 1);
        else
            unsetenv("NNC_NO_IFMA");
        CHECK(nnc_fq_ifma_enabled() == !off);
        for (ci = 0; ci < sizeof cf / sizeof cf[0]; ci++) {
            for (th = 1; th <= 2; th++) {
                nnc_prv_g1 got;
                memset(&got, 0xa5, sizeof got);
                nnc_prv_g1_msm_cfg(&got, p, k, n, th, cf[ci].m, cf[ci].c);
                if (memcmp(&got, want, sizeof got) != 0)
                    ck_abort_msg("%s n=%zu %s threads %d ifma %s: wrong sum (seed %llu)", what, n,
                                 cf[ci].name, th, off ? "off" : "on", (unsigned long long)g_seed);
            }
        }
    }
    unsetenv("NNC_NO_IFMA");
}

START_TEST(test_msm)
{
    static const size_t sizes[] = {256, 1000, 4097, 9000};
    size_t si, i, n;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        rng r = rng_for(100 + si);
        nnc_prv_g1 *p, want, naive;
        nnc_fr *e, *k;
        int kind;
        n = sizes[si];
        p = malloc(n * sizeof *p);
        e = malloc(n * sizeof *e);
        k = malloc(n * sizeof *k);
        CHECK(p && e && k);
        make_points(p, e, n, &r);
        for (kind = 0; kind < 4; kind++) {
            for (i = 0; i < n; i++) {
                if (kind == 0) {
                    rng_fr_uniform(&k[i], &r);
                } else if (kind == 1) { /* zero, small and 128-bit scalars */
                    uint64_t x[4] = {rng_next(&r), rng_next(&r), 0, 0};
                    unsigned t = (unsigned)(rng_next(&r) % 4);
                    if (t == 0)
                        nnc_fr_set_zero(&k[i]);
                    else if (t == 1)
                        nnc_fr_set_u64(&k[i], rng_next(&r) % 100);
                    else
                        CHECK(nnc_fr_from_int(&k[i], x));
                } else {
                    rng_fr_uniform(&k[i], &r);
                }
            }
            if (kind == 2) /* infinity points (e = 0) every 3rd */
                for (i = 0; i < n; i += 3) {
                    memset(&p[i], 0, sizeof p[i]);
                    nnc_fr_set_zero(&e[i]);
                }
            ref_dlog(&want, e, k, n);
            if (kind == 3 || n <= 1000) {
                nnc_prv_g1_msm_cfg(&naive, p, k, n, 1, NNC_MSM_METHOD_NAIVE, 0);
                CHECK(memcmp(&naive, &want, sizeof want) == 0);
            }
            run_both(p, k, n, &want, kind == 0 ? "random" : kind == 1 ? "small scalars" : kind == 2 ? "infinity" : "random 2");
            if (kind == 2)
                make_points(p, e, n, &r);
        }
        free(p);
        free(e);
        free(k);
    }
}
END_TEST

/* One point and one scalar repeated (every batched addition into a bucket
 * after the first meets the bucket's own point: doublings), and P, -P pairs. */
START_TEST(test_msm_degenerate)
{
    enum { N = 3000 };
    rng r = rng_for(7);
    nnc_prv_g1 *p = malloc(N * sizeof *p), gen, want;
    nnc_fr *e = malloc(N * sizeof *e), *k = malloc(N * sizeof *k), s;
    size_t i;
    CHECK(p && e && k);
    nnc_prv_g1_generator(&gen);
    rng_fr_uniform(&s, &r);
    for (i = 0; i < N; i++) {
        nnc_fr_set_u64(&e[i], 11);
        nnc_prv_g1_mul_var(&p[i], &gen, &e[i]);
        k[i] = s;
    }
    ref_dlog(&want, e, k, N);
    run_both(p, k, N, &want, "same point and scalar");
    /* pairs of a point repeated with scalars 1 and 1: [2] P_i in one bucket */
    make_points(p, e, N, &r);
    for (i = 0; i + 1 < N; i += 2) {
        p[i + 1] = p[i];
        e[i + 1] = e[i];
        nnc_fr_set_u64(&k[i], 1 + i % 200);
        k[i + 1] = k[i];
    }
    ref_dlog(&want, e, k, N);
    run_both(p, k, N, &want, "repeated pairs");
    for (i = 0; i + 1 < N; i += 2) {
        nnc_prv_g1_neg(&p[i + 1], &p[i]);
        nnc_fr_neg(&e[i + 1], &e[i]);
        rng_fr_uniform(&k[i], &r);
        k[i + 1] = k[i];
    }
    memset(&want, 0, sizeof want);
    run_both(p, k, N, &want, "P,-P pairs");
    free(p);
    free(e);
    free(k);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prover_ifma");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_ops);
    tcase_add_test(tc, test_batch_add);
    tcase_add_test(tc, test_bucket_sum);
    tcase_add_test(tc, test_msm);
    tcase_add_test(tc, test_msm_degenerate);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!nnc_fq_ifma_cpu()) {
        printf("skipped: no AVX-512 IFMA (avx512f, avx512ifma, avx512vl) on this CPU or in this build\n");
        return 77;
    }
    return harness_main("test_prover_ifma", suite);
}
