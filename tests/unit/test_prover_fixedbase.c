/* Fixed-base batches (prover/fixedbase.c) against the generic constant-time
 * scalar multiplication nnc_prv_g1_mul / nnc_prv_g2_mul, on random scalars
 * and the edge values 0, 1, 2, r-1, 16^w and 16^w - 1 (carries across every
 * comb window), for batch sizes that end inside a block (and inside a group
 * of 8 lanes) and thread counts that split the batch unevenly; with the
 * 8-lane IFMA comb (on CPUs that have it) and with the scalar comb. */
#include "prover/field_impl.h"
#include "prover/fixedbase_impl.h"
#include "prover/fq_ifma.h"
#include "tests/unit/prover_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n scalars: the edge values first, then random ones */
static void scalars(nnc_prv_fr *k, size_t n, rng *g)
{
    const uint64_t rm1[4] = {0x43e1f593f0000000ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL};
    size_t i = 0;
    uint64_t x[4];
    for (uint64_t v = 0; v < 3 && i < n; v++) nnc_fr_set_u64(&k[i++], v);
    if (i < n) CHECK(nnc_fr_from_int(&k[i++], rm1));
    for (int w = 1; w < 63 && i + 1 < n; w += 7) {
        memset(x, 0, sizeof x);
        x[(4 * w) / 64] = 1ULL << ((4 * w) % 64); /* 16^w */
        CHECK(nnc_fr_from_int(&k[i++], x));
        memset(x, 0, sizeof x);
        for (int b = 0; b < 4 * w; b++) x[b / 64] |= 1ULL << (b % 64); /* 16^w - 1 */
        CHECK(nnc_fr_from_int(&k[i++], x));
    }
    while (i < n) {
        for (int l = 0; l < 4; l++) x[l] = rng_next(g);
        x[3] &= 0x0fffffffffffffffULL; /* < r */
        CHECK(nnc_fr_from_int(&k[i++], x));
    }
}

/* Batches of the sizes listed in group G (g1 or g2) equal nnc_prv_G_mul,
 * with 1 + s threads for the s-th size. */
#define BATCH_BODY(G, TAG, ...)                                                           \
    do {                                                                                  \
        static const size_t sizes[] = {__VA_ARGS__};                                      \
        rng g = rng_for(TAG);                                                             \
        nnc_prv_##G gen, want;                                                            \
        nnc_prv_##G##_generator(&gen);                                                    \
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {                     \
            size_t n = sizes[s];                                                          \
            nnc_prv_fr *k = malloc(n * sizeof *k);                                        \
            nnc_prv_##G *out = malloc(n * sizeof *out);                                   \
            ck_assert_ptr_nonnull(k);                                                     \
            ck_assert_ptr_nonnull(out);                                                   \
            scalars(k, n, &g);                                                            \
            ck_assert_int_eq(nnc_prv_##G##_gen_mul_batch(out, k, n, 1 + (int)s), 0);      \
            for (size_t i = 0; i < n; i++) {                                              \
                nnc_prv_##G##_mul(&want, &gen, &k[i]);                                    \
                CHECK(memcmp(&out[i], &want, sizeof want) == 0);                          \
            }                                                                             \
            free(k);                                                                      \
            free(out);                                                                    \
        }                                                                                 \
        ck_assert_int_eq(nnc_prv_##G##_gen_mul_batch(NULL, NULL, 0, 1), 0);               \
    } while (0)

START_TEST(test_g1_batch) { BATCH_BODY(g1, 0xfb1, 1, 31, 257, 700); }
END_TEST

START_TEST(test_g2_batch) { BATCH_BODY(g2, 0xfb2, 1, 13, 300); }
END_TEST

/* The scalar comb forced (NNC_NO_IFMA=1): on IFMA CPUs the tests above run
 * the 8-lane comb, these the scalar one. */
START_TEST(test_batch_scalar)
{
    if (!nnc_fq_ifma_cpu())
        fprintf(stderr, "test_prover_fixedbase: no AVX-512 IFMA on this CPU: the scalar comb only\n");
    setenv("NNC_NO_IFMA", "1", 1);
    BATCH_BODY(g1, 0xfb3, 9, 300);
    BATCH_BODY(g2, 0xfb4, 9, 40);
    unsetenv("NNC_NO_IFMA");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prover_fixedbase");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_g1_batch);
    tcase_add_test(tc, test_g2_batch);
    tcase_add_test(tc, test_batch_scalar);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_main("test_prover_fixedbase", suite);
}
