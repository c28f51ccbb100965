/* NTT over Fr (prover/ntt.c): the root of unity against 5^((r-1)/2^28)
 * computed with GMP, the transform against naive evaluation at the roots
 * (n = 1 .. 64), coset transforms against evaluation at g w^i (default and
 * explicit shifts), inverse(forward) = identity up to 2^14, products by NTT
 * against the schoolbook product (and, for large n, against evaluation at a
 * random point), equal results for 1, 2, 3 threads, the error codes, and
 * the fused values -> coset values transform against the two steps.
 *
 * Random values come from a seed printed at start; NNC_TEST_SEED=<n>
 * replays a run. */
#include "nncert/prover.h"
#include "prover/ntt_impl.h"
#include "prover/fq_ifma.h"

#include <check.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/unit/prover_test_util.h"

static nnc_fr *rand_vec(size_t n, rng *r)
{
    nnc_fr *a = malloc((n ? n : 1) * sizeof *a);
    size_t i;
    CHECK(a != NULL);
    for (i = 0; i < n; i++)
        rng_fr_uniform(&a[i], r);
    return a;
}

/* Returns: a(x) = sum_j a_j x^j, Horner. */
static nnc_fr eval(const nnc_fr *a, size_t n, const nnc_fr *x)
{
    nnc_fr s;
    size_t j;
    nnc_fr_set_zero(&s);
    for (j = n; j-- > 0;) {
        nnc_fr_mul(&s, &s, x);
        nnc_fr_add(&s, &s, &a[j]);
    }
    return s;
}

static int vec_eq(const nnc_fr *a, const nnc_fr *b, size_t n) { return memcmp(a, b, n * sizeof *a) == 0; }

/* 5^((r-1)/2^28) by GMP equals the root the transforms use; w_n has order n. */
START_TEST(test_roots)
{
    mpz_t r, e, b, w;
    uint64_t x[4] = {0, 0, 0, 0};
    nnc_fr got, t, one, minus_one;
    size_t cnt;
    int m, i;
    mpz_inits(r, e, b, w, NULL);
    mpz_set_str(r, "21888242871839275222246405745257275088548364400416034343698204186575808495617", 10);
    mpz_sub_ui(e, r, 1);
    mpz_fdiv_q_2exp(e, e, 28);
    mpz_set_ui(b, 5);
    mpz_powm(w, b, e, r);
    mpz_export(x, &cnt, -1, 8, 0, 0, w);
    CHECK(cnt <= 4);
    CHECK(nnc_prv_ntt_root(&got, (size_t)1 << 28) == NNC_STATUS_OK);
    {
        uint64_t have[4];
        nnc_fr_to_int(have, &got);
        CHECK(memcmp(have, x, sizeof x) == 0);
    }
    nnc_fr_set_one(&one);
    nnc_fr_neg(&minus_one, &one);
    for (m = 0; m <= 28; m++) {
        CHECK(nnc_prv_ntt_root(&got, (size_t)1 << m) == NNC_STATUS_OK);
        t = got;
        for (i = 0; i < m; i++) {
            if (i == m - 1)
                CHECK(nnc_fr_eq(&t, &minus_one)); /* w^(n/2) = -1: order exactly n */
            nnc_fr_sqr(&t, &t);
        }
        CHECK(nnc_fr_eq(&t, &one));
    }
    mpz_clears(r, e, b, w, NULL);
}
END_TEST

/* NTT(a)_i = a(w^i), and the inverse gives a back, for small n. */
START_TEST(test_naive)
{
    static const size_t sizes[] = {1, 2, 4, 8, 16, 64};
    size_t si, i;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        rng r = rng_for(10 + si);
        nnc_fr *a = rand_vec(n, &r), *v = malloc(n * sizeof *v), w, x;
        CHECK(v != NULL);
        memcpy(v, a, n * sizeof *a);
        CHECK(nnc_prv_ntt(v, n, 0, 1) == NNC_STATUS_OK);
        CHECK(nnc_prv_ntt_root(&w, n) == NNC_STATUS_OK);
        nnc_fr_set_one(&x);
        for (i = 0; i < n; i++) {
            nnc_fr e = eval(a, n, &x);
            CHECK(nnc_fr_eq(&e, &v[i]));
            nnc_fr_mul(&x, &x, &w);
        }
        CHECK(nnc_prv_ntt(v, n, 1, 1) == NNC_STATUS_OK);
        CHECK(vec_eq(v, a, n));
        free(a);
        free(v);
    }
}
END_TEST

/* Coset NTT_i = a(g w^i) for the default g = w_(2n) (where x^n = -1) and
 * for g = 5; the coset inverse undoes it. */
START_TEST(test_coset)
{
    static const size_t sizes[] = {1, 2, 8, 16, 64};
    size_t si, i;
    int which;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (which = 0; which < 2; which++) {
            size_t n = sizes[si];
            rng r = rng_for(20 + si * 2 + (size_t)which);
            nnc_fr *a = rand_vec(n, &r), *v = malloc(n * sizeof *v), w, g, x, five;
            const nnc_fr *shift = NULL;
            CHECK(v != NULL);
            nnc_fr_set_u64(&five, 5);
            if (which == 0) {
                CHECK(nnc_prv_ntt_root(&g, 2 * n) == NNC_STATUS_OK);
                /* g^n = -1 on the default coset, so Z(g w^i) = (g w^i)^n - 1 = -2 */
                nnc_fr_set_one(&x);
                for (i = 0; i < n; i++)
                    nnc_fr_mul(&x, &x, &g);
                nnc_fr_set_one(&w);
                nnc_fr_neg(&w, &w);
                CHECK(nnc_fr_eq(&x, &w));
            } else {
                g = five;
                shift = &five;
            }
            memcpy(v, a, n * sizeof *a);
            CHECK(nnc_prv_coset_ntt(v, n, shift, 1) == NNC_STATUS_OK);
            CHECK(nnc_prv_ntt_root(&w, n) == NNC_STATUS_OK);
            x = g;
            for (i = 0; i < n; i++) {
                nnc_fr e = eval(a, n, &x);
                CHECK(nnc_fr_eq(&e, &v[i]));
                nnc_fr_mul(&x, &x, &w);
            }
            CHECK(nnc_prv_coset_intt(v, n, shift, 1) == NNC_STATUS_OK);
            CHECK(vec_eq(v, a, n));
            free(a);
            free(v);
        }
    }
}
END_TEST

/* Inverse after forward is the identity; 1, 2 and 3 threads give the same
 * bytes (n >= 2^12 takes the threaded path). */
START_TEST(test_roundtrip_threads)
{
    int m;
    for (m = 0; m <= 14; m++) {
        size_t n = (size_t)1 << m;
        rng r = rng_for(40 + (uint64_t)m);
        nnc_fr *a = rand_vec(n, &r), *v1 = malloc(n * sizeof *v1), *v2 = malloc(n * sizeof *v2);
        int th;
        CHECK(v1 && v2);
        memcpy(v1, a, n * sizeof *a);
        CHECK(nnc_prv_ntt(v1, n, 0, 1) == NNC_STATUS_OK);
        for (th = 2; th <= 3 && m >= 10; th++) {
            memcpy(v2, a, n * sizeof *a);
            CHECK(nnc_prv_ntt(v2, n, 0, th) == NNC_STATUS_OK);
            CHECK(vec_eq(v1, v2, n));
        }
        if (m >= 12) { /* coset path with threads against one thread */
            memcpy(v2, a, n * sizeof *a);
            CHECK(nnc_prv_coset_ntt(v2, n, NULL, 2) == NNC_STATUS_OK);
            CHECK(nnc_prv_coset_intt(v2, n, NULL, 3) == NNC_STATUS_OK);
            CHECK(vec_eq(v2, a, n));
        }
        CHECK(nnc_prv_ntt(v1, n, 1, m >= 12 ? 2 : 0) == NNC_STATUS_OK);
        CHECK(vec_eq(v1, a, n));
        free(a);
        free(v1);
        free(v2);
    }
}
END_TEST

/* c = a * b by NTT (degrees < n/2) equals the schoolbook product (n <= 1024)
 * or, for 2^13, agrees with a(x) b(x) at random points. */
START_TEST(test_convolution)
{
    static const size_t sizes[] = {2, 8, 64, 1024, 8192};
    size_t si, i, j;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si], h = n / 2;
        rng r = rng_for(60 + si);
        nnc_fr *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *fa = malloc(n * sizeof *fa),
               *fb = malloc(n * sizeof *fb), t;
        int th = n >= 4096 ? 2 : 1;
        CHECK(a && b && fa && fb);
        for (i = 0; i < h; i++) {
            rng_fr_uniform(&a[i], &r);
            rng_fr_uniform(&b[i], &r);
        }
        memcpy(fa, a, n * sizeof *a);
        memcpy(fb, b, n * sizeof *b);
        CHECK(nnc_prv_ntt(fa, n, 0, th) == NNC_STATUS_OK);
        CHECK(nnc_prv_ntt(fb, n, 0, th) == NNC_STATUS_OK);
        for (i = 0; i < n; i++)
            nnc_fr_mul(&fa[i], &fa[i], &fb[i]);
        CHECK(nnc_prv_ntt(fa, n, 1, th) == NNC_STATUS_OK); /* fa = a * b */
        if (n <= 1024) {
            nnc_fr *c = calloc(n, sizeof *c);
            CHECK(c != NULL);
            for (i = 0; i < h; i++)
                for (j = 0; j < h; j++) {
                    nnc_fr_mul(&t, &a[i], &b[j]);
                    nnc_fr_add(&c[i + j], &c[i + j], &t);
                }
            CHECK(vec_eq(c, fa, n));
            free(c);
        } else {
            int k;
            for (k = 0; k < 3; k++) {
                nnc_fr x, ea, eb, ec;
                rng_fr_uniform(&x, &r);
                ea = eval(a, n, &x);
                eb = eval(b, n, &x);
                ec = eval(fa, n, &x);
                nnc_fr_mul(&ea, &ea, &eb);
                CHECK(nnc_fr_eq(&ea, &ec));
            }
            CHECK(nnc_fr_is_zero(&fa[n - 1])); /* degree n - 2 */
        }
        free(a);
        free(b);
        free(fa);
        free(fb);
    }
}
END_TEST

/* Bad sizes and shifts are refused and leave the data alone. */
START_TEST(test_errors)
{
    nnc_fr a[8], save[8], zero, w;
    rng r = rng_for(90);
    size_t i;
    for (i = 0; i < 8; i++)
        rng_fr_uniform(&a[i], &r);
    memcpy(save, a, sizeof a);
    nnc_fr_set_zero(&zero);
    CHECK(nnc_prv_ntt(a, 0, 0, 1) == NNC_STATUS_INVALID);
    CHECK(nnc_prv_ntt(a, 3, 0, 1) == NNC_STATUS_INVALID);
    CHECK(nnc_prv_ntt(a, 6, 1, 1) == NNC_STATUS_INVALID);
    CHECK(nnc_prv_coset_ntt(a, 5, NULL, 1) == NNC_STATUS_INVALID);
    CHECK(nnc_prv_coset_ntt(a, 8, &zero, 1) == NNC_STATUS_INVALID);
    CHECK(nnc_prv_coset_intt(a, 8, &zero, 1) == NNC_STATUS_INVALID);
    /* sizes past the two-adicity are refused before a is touched */
    CHECK(nnc_prv_ntt(a, (size_t)1 << 29, 0, 1) == NNC_STATUS_LIMIT);
    CHECK(nnc_prv_coset_ntt(a, (size_t)1 << 28, NULL, 1) == NNC_STATUS_LIMIT);
    CHECK(nnc_prv_ntt_root(&w, (size_t)1 << 29) == NNC_STATUS_LIMIT);
    CHECK(nnc_prv_ntt_root(&w, 12) == NNC_STATUS_INVALID);
    CHECK(vec_eq(a, save, 8));
    /* n = 1 is the identity for every variant */
    CHECK(nnc_prv_ntt(a, 1, 0, 1) == NNC_STATUS_OK);
    CHECK(nnc_prv_ntt(a, 1, 1, 1) == NNC_STATUS_OK);
    CHECK(nnc_prv_coset_ntt(a, 1, NULL, 1) == NNC_STATUS_OK);
    CHECK(vec_eq(a, save, 8));
}
END_TEST

/* Values -> coset values (nnc_prv_ntt_to_coset) equal the inverse NTT
 * followed by the coset NTT, bit for bit: n = 1 .. 2^14, one to three
 * polynomials per call, the default, a fixed and a random shift, 1-3
 * threads, inputs with 0, 1 and r - 1 among random values; with the 8-lane
 * path (when the CPU has IFMA) and with NNC_NO_IFMA=1. */
START_TEST(test_to_coset)
{
    int m, pass;
    if (!nnc_fq_ifma_cpu())
        fprintf(stderr, "test_to_coset: no AVX-512 IFMA on this CPU: the scalar path only\n");
    for (pass = 0; pass < 2; pass++) {
        setenv("NNC_NO_IFMA", pass ? "1" : "0", 1);
        for (m = 0; m <= 14; m++) {
            size_t n = (size_t)1 << m, i;
            rng r = rng_for(300 + (uint64_t)m + 100 * (uint64_t)pass);
            int np = 1 + m % 3, p, which = m % 3, th = m >= 12 ? 1 + m % 3 : 1;
            nnc_fr *in[3], *got[3], *want, g, *shift = NULL, minus1;
            nnc_fr_set_one(&minus1);
            nnc_fr_neg(&minus1, &minus1);
            if (which == 1) {
                nnc_fr_set_u64(&g, 5);
                shift = &g;
            } else if (which == 2) {
                rng_fr_uniform(&g, &r);
                shift = &g;
            }
            want = malloc(n * sizeof *want);
            CHECK(want != NULL);
            for (p = 0; p < np; p++) {
                in[p] = rand_vec(n, &r);
                got[p] = malloc(n * sizeof *got[p]);
                CHECK(got[p] != NULL);
                if (n >= 4) {
                    nnc_fr_set_zero(&in[p][0]);
                    nnc_fr_set_one(&in[p][n / 2]);
                    in[p][n - 1] = minus1;
                }
                memcpy(got[p], in[p], n * sizeof *in[p]);
            }
            CHECK(nnc_prv_ntt_to_coset(got, np, n, shift, th) == NNC_STATUS_OK);
            for (p = 0; p < np; p++) {
                memcpy(want, in[p], n * sizeof *want);
                CHECK(nnc_prv_ntt(want, n, 1, 1) == NNC_STATUS_OK);
                CHECK(nnc_prv_coset_ntt(want, n, shift, 1) == NNC_STATUS_OK);
                for (i = 0; i < n; i++)
                    if (memcmp(&want[i], &got[p][i], sizeof want[i]) != 0)
                        ck_abort_msg("n=%zu poly %d index %zu (pass %d, threads %d, shift %d) differs", n, p, i,
                                     pass, th, which);
                free(in[p]);
                free(got[p]);
            }
            free(want);
        }
    }
    unsetenv("NNC_NO_IFMA");
    /* errors: a zero shift, n not a power of two */
    {
        nnc_fr a[8], zero, *pa = a;
        rng r = rng_for(399);
        for (m = 0; m < 8; m++)
            rng_fr_uniform(&a[m], &r);
        nnc_fr_set_zero(&zero);
        CHECK(nnc_prv_ntt_to_coset(&pa, 1, 8, &zero, 1) == NNC_STATUS_INVALID);
        CHECK(nnc_prv_ntt_to_coset(&pa, 1, 6, NULL, 1) == NNC_STATUS_INVALID);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prover_ntt");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_roots);
    tcase_add_test(tc, test_naive);
    tcase_add_test(tc, test_coset);
    tcase_add_test(tc, test_roundtrip_threads);
    tcase_add_test(tc, test_convolution);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_to_coset);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return harness_main("test_prover_ntt", suite); }
