/* The runtime's dense products (models/sgemm.h) on every instruction-set
 * path (common/isa.h): each element is the fmaf chain in k order plus the
 * bias, then ReLU, bit for bit, on the generic, AVX2 and AVX-512 paths that
 * this CPU has, for every row count M (full micro-kernel blocks, the row
 * tail, one row), odd K and N (panel tails), with and without bias and
 * ReLU, on one and two threads; and a row's result does not depend on the
 * other rows of the call (the distributed DLRM and GNN runs rely on it).
 * Also: the run-time selection itself (NNC_ISA parsing, caps). */
#include "models/sgemm.h"
#include "common/isa.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* floats of mixed magnitudes and signs, some exact zeros */
static float rndf(void)
{
    uint32_t r = (uint32_t)rnd();
    if (r % 17 == 0) return 0.0f;
    return (float)ldexp(urand() * 2 - 1, (int)(r % 9) - 4);
}

/* The definition: s = 0; s = fmaf(a_k, b_kn, s) for k ascending; s + bias; ReLU. */
static void reference(const float *A, const double *B, int trans, const float *bias, int relu, int64_t M, int64_t K,
                      int64_t N, float *C)
{
    for (int64_t i = 0; i < M; i++)
        for (int64_t n = 0; n < N; n++) {
            float s = 0.0f;
            for (int64_t k = 0; k < K; k++)
                s = fmaf(A[i * K + k], (float)(trans ? B[n * K + k] : B[k * N + n]), s);
            float v = s + (bias ? bias[n] : 0.0f);
            C[i * N + n] = relu ? (v > 0.0f ? v : 0.0f) : v;
        }
}

/* C = A op(B) (+ bias, ReLU) for each row count Ms[0..nM) against the
 * definition, bit for bit, on every path this CPU has and on one and two
 * threads; rows past M are never written (a padded block stores none of
 * its padding rows); and a row alone (M = 1) equals the same row inside
 * the call of the most rows. */
static void check_products(int64_t K, int64_t N, const int64_t *Ms, size_t nM, int trans, int relu, int use_bias)
{
    int levels = (int)nnc_isa() + 1; /* the paths up to NNC_ISA's cap (the CPU's without it) */
    int64_t Mmax = 0;
    for (size_t mi = 0; mi < nM; mi++) Mmax = Ms[mi] > Mmax ? Ms[mi] : Mmax;
    double *B = malloc(sizeof(double) * (size_t)(K * N));
    float *bias = malloc(sizeof(float) * (size_t)N), *A = malloc(sizeof(float) * (size_t)(Mmax * K));
    float *want = malloc(sizeof(float) * (size_t)(Mmax * N)), *got = malloc(sizeof(float) * (size_t)(Mmax * N));
    float *row = malloc(sizeof(float) * (size_t)N);
    for (int64_t q = 0; q < K * N; q++) B[q] = rndf();
    for (int64_t q = 0; q < N; q++) bias[q] = rndf();
    for (int64_t q = 0; q < Mmax * K; q++) A[q] = rndf();
    nnc_sgemm_b *pb = nnc_sgemm_pack_b(B, K, N, trans);
    ck_assert_ptr_nonnull(pb);
    float *scratch = malloc(sizeof(float) * nnc_sgemm_scratch_floats(Mmax, K));
    for (size_t mi = 0; mi < nM; mi++) {
        int64_t M = Ms[mi];
        reference(A, B, trans, use_bias ? bias : NULL, relu, M, K, N, want);
        for (int lv = 0; lv < levels; lv++)
            for (int threads = 1; threads <= 2; threads++) {
                nnc_isa_set_cap(lv);
                ck_assert_int_eq(nnc_isa(), lv);
                memset(got, 0xff, sizeof(float) * (size_t)(Mmax * N));
                nnc_sgemm_packed(pb, M, A, use_bias ? bias : NULL, relu, got, scratch, threads);
                int64_t q = 0; /* the first element that differs from the definition */
                while (q < M * N && memcmp(&got[q], &want[q], sizeof(float)) == 0) q++;
                ck_assert_msg(q == M * N, /* (the message's operands are read only on failure) */
                                  "%s, M=%lld K=%lld N=%lld trans=%d relu=%d bias=%d threads=%d: "
                                  "C[%lld][%lld] = %a, want %a",
                                  nnc_isa_name((nnc_isa_level)lv), (long long)M, (long long)K, (long long)N, trans,
                                  relu, use_bias, threads, (long long)(q / N), (long long)(q % N), (double)got[q],
                                  (double)want[q]);
                int64_t w = M * N; /* the first element past row M - 1 that was written */
                while (w < Mmax * N && ((unsigned char *)got)[4 * w] == 0xff) w++;
                ck_assert_msg(w == Mmax * N, "%s, M=%lld: C row %lld written", nnc_isa_name((nnc_isa_level)lv),
                              (long long)M, (long long)(w / N));
            }
    }
    nnc_isa_set_cap(-1);
    nnc_sgemm_packed(pb, Mmax, A, use_bias ? bias : NULL, relu, got, scratch, 2);
    for (int64_t i = 0; i < Mmax; i += 7) {
        nnc_sgemm_packed(pb, 1, A + i * K, use_bias ? bias : NULL, relu, row, scratch, 1);
        ck_assert(memcmp(row, got + i * N, sizeof(float) * (size_t)N) == 0);
    }
    nnc_sgemm_free_b(pb);
    free(scratch);
    free(B);
    free(bias);
    free(A);
    free(want);
    free(got);
    free(row);
}

START_TEST(test_paths_bit_identical)
{
    static const int64_t Ks[] = {1, 3, 17, 64, 200};
    static const int64_t Ns[] = {1, 10, 31, 32, 33, 70};
    /* tails of 1 to 6 rows take the row kernel, longer ones a padded block */
    static const int64_t Ms[] = {1, 2, 3, 4, 6, 7, 11, 12, 13, 20, 24, 30, 31, 37, 100};
    for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ki++)
        for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++) {
            int trans = (int)(rnd() & 1), relu = (int)(rnd() & 1), use_bias = (int)(rnd() % 3 != 0);
            check_products(Ks[ki], Ns[ni], Ms, sizeof Ms / sizeof Ms[0], trans, relu, use_bias);
        }
}
END_TEST

/* Products large enough that two threads split the row blocks (the last one
 * padded or followed by row-kernel rows), as above. */
START_TEST(test_threaded_blocks)
{
    const int64_t K = 700, N = 300;
    static const int64_t Ms[] = {99, 102, 103, 104, 107};
    for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; mi++) /* sgemm.c's threshold for threads */
        ck_assert(2.0 * (double)Ms[mi] * (double)N * (double)K >= 4e7);
    check_products(K, N, Ms, sizeof Ms / sizeof Ms[0], 0, 1, 1);
}
END_TEST

START_TEST(test_isa_selection)
{
    char err[128];
    nnc_isa_level cpu = nnc_isa_cpu();
    ck_assert(cpu >= NNC_ISA_GENERIC && cpu <= NNC_ISA_AVX512);
    nnc_isa_set_cap(NNC_ISA_GENERIC);
    ck_assert_int_eq(nnc_isa(), NNC_ISA_GENERIC);
    ck_assert_int_eq(nnc_isa_adx(), 0);
    ck_assert_int_eq(nnc_isa_ifma(), 0);
    nnc_isa_set_cap(NNC_ISA_AVX512);
    ck_assert_int_le(nnc_isa(), cpu); /* a cap never raises the level */
    nnc_isa_set_cap(-1);
    ck_assert_str_eq(nnc_isa_name(NNC_ISA_AVX2), "avx2");
    setenv("NNC_ISA", "avx3", 1);
    ck_assert_int_eq(nnc_isa_env_check(err, sizeof err), -1);
    ck_assert_msg(strstr(err, "avx3") != NULL, "%s", err);
    setenv("NNC_ISA", "generic", 1);
    ck_assert_int_eq(nnc_isa_env_check(err, sizeof err), 0);
    unsetenv("NNC_ISA");
    ck_assert_int_eq(nnc_isa_env_check(err, sizeof err), 0);
    char d[200];
    nnc_isa_describe(d, sizeof d);
    ck_assert_msg(strstr(d, nnc_isa_name(nnc_isa())) == d, "%s", d);
}
END_TEST

int main(void)
{
    harness_seed("test_sgemm");
    Suite *s = suite_create("sgemm");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_paths_bit_identical);
    tcase_add_test(tc, test_threaded_blocks);
    tcase_add_test(tc, test_isa_selection);
    suite_add_tcase(s, tc);
    return check_main_run(s);
}
