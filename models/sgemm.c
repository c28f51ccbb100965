/* Single-precision GEMM against a constant right operand, for the runtime's
 * dense layers:  C[M,N] = A[M,K] * op(B) + bias  (op(B) = B or B^T, [K,N]),
 * where B is a weight matrix known when the runtime is created.
 *
 * B is packed once into panels of NNC_SG_NR columns:  panel p holds
 * op(B)[k][p*NR + j] at Bp[(p*K + k)*NR + j], zero-padded past N.  A is
 * packed per call into row blocks of NNC_SG_MR rows, k-major:
 * Ap[k*MR + i] = A[m0 + i][k], zero-padded past M.  The micro-kernel keeps an
 * MR x NR tile of C in 24 AVX-512 registers.  On processors without AVX-512F
 * (checked at run time) nnc_sgemm_packed falls back to cblas_sgemm on the
 * unpacked copy, so the result is the same function either way (up to the
 * order of float additions). */
#include "models/sgemm.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NNC_SG_X86 1
#endif

#define MR NNC_SG_MR
#define NR NNC_SG_NR

struct nnc_sgemm_b {
    int64_t K, N, panels;
    float *packed; /* panels * K * NR floats, 64-byte aligned */
    float *plain;  /* op(B) as a row-major [K,N] copy, for the fallback */
};

static int have_avx512(void)
{
#ifdef NNC_SG_X86
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx512f") ? 1 : 0;
    }
    return cached;
#else
    return 0;
#endif
}

nnc_sgemm_b *nnc_sgemm_pack_b(const double *b, int64_t K, int64_t N, int trans)
{
    nnc_sgemm_b *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    p->K = K;
    p->N = N;
    p->panels = (N + NR - 1) / NR;
    size_t bytes = (size_t)(p->panels * K * NR) * sizeof(float);
    p->packed = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    p->plain = malloc((size_t)(K * N + 1) * sizeof(float));
    if (p->packed == NULL || p->plain == NULL) {
        nnc_sgemm_free_b(p);
        return NULL;
    }
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++) p->plain[k * N + n] = (float)(trans ? b[n * K + k] : b[k * N + n]);
    for (int64_t pn = 0; pn < p->panels; pn++)
        for (int64_t k = 0; k < K; k++)
            for (int64_t j = 0; j < NR; j++) {
                int64_t n = pn * NR + j;
                p->packed[(pn * K + k) * NR + j] = n < N ? p->plain[k * N + n] : 0.0f;
            }
    return p;
}

void nnc_sgemm_free_b(nnc_sgemm_b *p)
{
    if (p == NULL) return;
    free(p->packed);
    free(p->plain);
    free(p);
}

size_t nnc_sgemm_scratch_floats(int64_t M, int64_t K)
{
    return (size_t)(((M + MR - 1) / MR) * MR * K) + 64;
}

#ifdef NNC_SG_X86
/* One MR x NR tile: acc = Ap(MR x K) * Bp(K x NR); then C = acc + bias,
 * rows < rows, columns < cols (masked store). */
__attribute__((target("avx512f"))) static void kernel(int64_t K, const float *Ap, const float *Bp, float *C, int64_t ldc,
                                                       int rows, int cols, const float *bias, int relu)
{
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    __m512 c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00;
    __m512 c80 = c00, c81 = c00, c90 = c00, c91 = c00, ca0 = c00, ca1 = c00, cb0 = c00, cb1 = c00;
    for (int64_t k = 0; k < K; k++) {
        __m512 b0 = _mm512_load_ps(Bp), b1 = _mm512_load_ps(Bp + 16);
        __m512 a;
#define STEP(i, x0, x1)                   \
    a = _mm512_set1_ps(Ap[i]);            \
    x0 = _mm512_fmadd_ps(a, b0, x0);      \
    x1 = _mm512_fmadd_ps(a, b1, x1);
        STEP(0, c00, c01) STEP(1, c10, c11) STEP(2, c20, c21) STEP(3, c30, c31)
        STEP(4, c40, c41) STEP(5, c50, c51) STEP(6, c60, c61) STEP(7, c70, c71)
        STEP(8, c80, c81) STEP(9, c90, c91) STEP(10, ca0, ca1) STEP(11, cb0, cb1)
#undef STEP
        Ap += MR;
        Bp += NR;
    }
    __m512 acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51},
                         {c60, c61}, {c70, c71}, {c80, c81}, {c90, c91}, {ca0, ca1}, {cb0, cb1}};
    __mmask16 m0 = cols >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << cols) - 1);
    __mmask16 m1 = cols >= 32 ? (__mmask16)0xFFFF : cols <= 16 ? (__mmask16)0 : (__mmask16)((1u << (cols - 16)) - 1);
    __m512 bias0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
    __m512 bias1 = bias ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
    __m512 zero = _mm512_setzero_ps();
    for (int i = 0; i < rows; i++) {
        __m512 v0 = _mm512_add_ps(acc[i][0], bias0), v1 = _mm512_add_ps(acc[i][1], bias1);
        if (relu) {
            v0 = _mm512_max_ps(v0, zero);
            v1 = _mm512_max_ps(v1, zero);
        }
        _mm512_mask_storeu_ps(C + i * ldc, m0, v0);
        _mm512_mask_storeu_ps(C + i * ldc + 16, m1, v1);
    }
}

typedef struct job {
    const nnc_sgemm_b *b;
    const float *A, *bias;
    float *C, *Ap;
    int64_t M, blk0, blk1;
    int relu;
} job;

/* Row blocks are handled in groups of NNC_SG_GROUP: the group's A blocks are
 * packed once, then every B panel runs over the whole group, so a B panel
 * (K x NR floats) and the group's packed A both stay in the L2 cache. */
#define NNC_SG_GROUP 8
static void *run_blocks(void *arg)
{
    const job *j = arg;
    int64_t K = j->b->K, N = j->b->N;
    for (int64_t g0 = j->blk0; g0 < j->blk1; g0 += NNC_SG_GROUP) {
        int64_t g1 = g0 + NNC_SG_GROUP < j->blk1 ? g0 + NNC_SG_GROUP : j->blk1;
        for (int64_t blk = g0; blk < g1; blk++) {
            int64_t m0 = blk * MR;
            int rows = (int)(j->M - m0 < MR ? j->M - m0 : MR);
            float *Ap = j->Ap + blk * MR * K;
            /* row by row: sequential reads, writes strided by MR */
            for (int i = 0; i < rows; i++) {
                const float *src = j->A + (m0 + i) * K;
                for (int64_t k = 0; k < K; k++) Ap[k * MR + i] = src[k];
            }
            for (int i = rows; i < MR; i++)
                for (int64_t k = 0; k < K; k++) Ap[k * MR + i] = 0.0f;
        }
        for (int64_t pn = 0; pn < j->b->panels; pn++) {
            int cols = (int)(N - pn * NR < NR ? N - pn * NR : NR);
            for (int64_t blk = g0; blk < g1; blk++) {
                int64_t m0 = blk * MR;
                int rows = (int)(j->M - m0 < MR ? j->M - m0 : MR);
                kernel(K, j->Ap + blk * MR * K, j->b->packed + pn * K * NR, j->C + m0 * N + pn * NR, N, rows, cols,
                       j->bias ? j->bias + pn * NR : NULL, j->relu);
            }
        }
    }
    return NULL;
}
#endif

void nnc_sgemm_packed(const nnc_sgemm_b *b, int64_t M, const float *A, const float *bias, int relu, float *C,
                      float *scratch, int threads)
{
    int64_t K = b->K, N = b->N;
#ifdef NNC_SG_X86
    if (have_avx512() && M >= NNC_SG_MIN_M) {
        int64_t blocks = (M + MR - 1) / MR;
        if (threads < 1) threads = 1;
        if (threads > 8) threads = 8;
        /* a thread costs tens of microseconds to start: only split large products */
        if (blocks < 2 * threads || 2.0 * (double)M * (double)N * (double)K < 4e7) threads = 1;
        job jobs[8];
        for (int t = 0; t < threads; t++)
            jobs[t] = (job){b, A, bias, C, scratch, M, blocks * t / threads, blocks * (t + 1) / threads, relu};
        /* OpenMP's pool keeps its threads between calls (starting a thread
         * per call costs more than a small layer); built without OpenMP
         * (the fuzz targets) the loop runs serially */
#pragma omp parallel for num_threads(threads) schedule(static, 1)
        for (int t = 0; t < threads; t++) run_blocks(&jobs[t]);
        return;
    }
#endif
    (void)scratch;
    (void)threads;
    if (bias)
        for (int64_t i = 0; i < M; i++) memcpy(C + i * N, bias, (size_t)N * sizeof(float));
    if (M && N)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K, 1.0f, A, (int)K, b->plain, (int)N,
                    bias ? 1.0f : 0.0f, C, (int)N);
    if (relu)
        for (int64_t i = 0; i < M * N; i++) C[i] = C[i] > 0.0f ? C[i] : 0.0f;
}
