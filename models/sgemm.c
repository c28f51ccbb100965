/* Single-precision GEMM against a constant right operand, for the runtime's
 * dense layers:  C[M,N] = A[M,K] * op(B) + bias  (op(B) = B or B^T, [K,N]),
 * where B is a weight matrix known when the runtime is created.
 *
 * The function, on every path (common/isa.h) and for every M, thread count
 * and row partition: each element is one fmaf chain in k order,
 *     s = 0;  for k = 0 .. K-1:  s = fmaf(A[i][k], op(B)[k][n], s);
 *     C[i][n] = s + bias[n]  (then max(., 0) when relu; NaN gives 0),
 * so a row's result does not depend on the other rows of the call (the
 * distributed DLRM and GNN runs rely on it) nor on the vector width.
 *
 * B is packed once into panels of NNC_SG_NR columns:  panel p holds
 * op(B)[k][p*NR + j] at Bp[(p*K + k)*NR + j], zero-padded past N.  Full
 * blocks of NNC_SG_MR rows are packed per call, k-major
 * (Ap[k*MR + i] = A[m0 + i][k]), and run through an MR x NR micro-kernel:
 * 24 zmm accumulators on AVX-512, four 6 x 16 quarters on AVX2.  The last
 * M mod MR rows, when at least NNC_SG_TAIL_BLOCK, are packed as one more
 * block padded with zero rows, whose results are not stored; fewer take a
 * row kernel on the unpacked A, which reads all of B once per row.  The
 * generic path runs the chain with fmaf on the row-major copy of op(B). */
#include "models/sgemm.h"

#include "common/isa.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NNC_SG_X86 1
#endif

#define MR NNC_SG_MR
#define NR NNC_SG_NR
/* Tail rows from which a padded block beats the row kernel.  Zoo MLP
 * (784-256-256-10) on an AVX-512 EPYC, 1 thread, least batch latency, row
 * kernel against padded block: batch 4 42/65 us, 5 51/65, 6 62/66, 7
 * 73/66; batch 16 (12 + 4) 109/130 us, 28 (24 + 4) 173/195.  At 2 threads
 * and batch 1024 in tiles of 47 (11 tail rows each): 2.4e5 inferences/s
 * with row kernels, 3.0e5 for tiles of 49 (1 tail row). */
#define NNC_SG_TAIL_BLOCK 7

struct nnc_sgemm_b {
    int64_t K, N, panels;
    float *packed; /* panels * K * NR floats, 64-byte aligned */
    float *plain;  /* op(B) as a row-major [K,N] copy, for the generic path */
};

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

/* Epilogue of one element: the chain's sum plus the bias, then ReLU. */
static inline float finish(float s, float bias, int relu)
{
    float v = s + bias;
    return relu ? (v > 0.0f ? v : 0.0f) : v;
}

/* Generic path: rows [r0, r1), the fmaf chain per element on op(B)'s
 * row-major copy, the partial sums kept in C's row. */
static void rows_generic(const nnc_sgemm_b *b, int64_t r0, int64_t r1, const float *A, const float *bias, int relu,
                         float *C)
{
    int64_t K = b->K, N = b->N;
    for (int64_t i = r0; i < r1; i++) {
        float *c = C + i * N;
        const float *a = A + i * K;
        for (int64_t n = 0; n < N; n++) c[n] = 0.0f;
        for (int64_t k = 0; k < K; k++) {
            const float *bk = b->plain + k * N;
            float ak = a[k];
            for (int64_t n = 0; n < N; n++) c[n] = fmaf(ak, bk[n], c[n]);
        }
        for (int64_t n = 0; n < N; n++) c[n] = finish(c[n], bias ? bias[n] : 0.0f, relu);
    }
}

#ifdef NNC_SG_X86
/* ----------------------------------------------------------- AVX-512 */

/* One MR x NR tile: acc = Ap(MR x K) * Bp(K x NR); then C = acc + bias,
 * rows < rows, columns < cols (masked store). */
__attribute__((target("avx512f"))) static void kernel_z(int64_t K, const float *Ap, const float *Bp, float *C,
                                                         int64_t ldc, int rows, int cols, const float *bias, int relu)
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
        if (relu) { /* max(v, 0) returns its second operand, 0, for NaN */
            v0 = _mm512_max_ps(v0, zero);
            v1 = _mm512_max_ps(v1, zero);
        }
        _mm512_mask_storeu_ps(C + i * ldc, m0, v0);
        _mm512_mask_storeu_ps(C + i * ldc + 16, m1, v1);
    }
}

/* One row of A (unpacked) against every panel, two panels (4 chains) at a time. */
__attribute__((target("avx512f"))) static void row_z(const nnc_sgemm_b *b, const float *a, const float *bias,
                                                      int relu, float *c)
{
    int64_t K = b->K, N = b->N;
    __m512 zero = _mm512_setzero_ps();
    for (int64_t p0 = 0; p0 < b->panels; p0 += 2) {
        int np = b->panels - p0 < 2 ? 1 : 2;
        const float *B0 = b->packed + p0 * K * NR, *B1 = B0 + (np == 2 ? K * NR : 0);
        __m512 x0 = zero, x1 = zero, x2 = zero, x3 = zero;
        for (int64_t k = 0; k < K; k++) {
            __m512 av = _mm512_set1_ps(a[k]);
            x0 = _mm512_fmadd_ps(av, _mm512_load_ps(B0 + k * NR), x0);
            x1 = _mm512_fmadd_ps(av, _mm512_load_ps(B0 + k * NR + 16), x1);
            x2 = _mm512_fmadd_ps(av, _mm512_load_ps(B1 + k * NR), x2);
            x3 = _mm512_fmadd_ps(av, _mm512_load_ps(B1 + k * NR + 16), x3);
        }
        __m512 xs[4] = {x0, x1, x2, x3};
        for (int q = 0; q < 2 * np; q++) {
            int64_t n0 = p0 * NR + 16 * q;
            if (n0 >= N) break;
            int w = N - n0 < 16 ? (int)(N - n0) : 16;
            __mmask16 m = w == 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << w) - 1);
            __m512 v = _mm512_add_ps(xs[q], bias ? _mm512_maskz_loadu_ps(m, bias + n0) : zero);
            if (relu) v = _mm512_max_ps(v, zero);
            _mm512_mask_storeu_ps(c + n0, m, v);
        }
    }
}

/* ----------------------------------------------------------- AVX2 */

/* Stores the first w (1..8) lanes of v at dst. */
__attribute__((target("avx2,fma"))) static inline void store_y(float *dst, __m256 v, int w)
{
    if (w == 8) {
        _mm256_storeu_ps(dst, v);
        return;
    }
    float t[8];
    _mm256_storeu_ps(t, v);
    memcpy(dst, t, (size_t)w * sizeof(float));
}

/* The first w (0..8) floats at src, zero past them. */
__attribute__((target("avx2,fma"))) static inline __m256 load_y(const float *src, int w)
{
    if (w >= 8) return _mm256_loadu_ps(src);
    float t[8] = {0};
    if (w > 0) memcpy(t, src, (size_t)w * sizeof(float));
    return _mm256_loadu_ps(t);
}

/* Final values of n columns from column n0: acc + bias, ReLU, stored. */
__attribute__((target("avx2,fma"))) static inline void finish_y(float *c, __m256 acc, const float *bias, int64_t n0,
                                                               int64_t N, int relu)
{
    if (n0 >= N) return;
    int w = N - n0 < 8 ? (int)(N - n0) : 8;
    __m256 v = _mm256_add_ps(acc, bias ? load_y(bias + n0, w) : _mm256_setzero_ps());
    if (relu) v = _mm256_max_ps(v, _mm256_setzero_ps()); /* second operand, 0, for NaN */
    store_y(c + n0, v, w);
}

/* A 6 x 16 quarter of an MR x NR tile: rows r0..r0+5 of the packed block,
 * columns h*16 .. h*16+15 of the panel. */
__attribute__((target("avx2,fma"))) static void quarter_y(int64_t K, const float *Ap, const float *Bp, int r0, int h,
                                                          float *C, int64_t ldc, int rows, int64_t n0, int64_t N,
                                                          const float *bias, int relu)
{
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    const float *ap = Ap + r0, *bp = Bp + 16 * h;
    for (int64_t k = 0; k < K; k++) {
        __m256 b0 = _mm256_load_ps(bp), b1 = _mm256_load_ps(bp + 8), a;
#define STEP(i, x0, x1)                 \
    a = _mm256_broadcast_ss(ap + i);    \
    x0 = _mm256_fmadd_ps(a, b0, x0);    \
    x1 = _mm256_fmadd_ps(a, b1, x1);
        STEP(0, c00, c01) STEP(1, c10, c11) STEP(2, c20, c21) STEP(3, c30, c31) STEP(4, c40, c41) STEP(5, c50, c51)
#undef STEP
        ap += MR;
        bp += NR;
    }
    __m256 acc[6][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
    for (int i = 0; i < 6 && r0 + i < rows; i++) {
        float *c = C + (int64_t)(r0 + i) * ldc;
        finish_y(c, acc[i][0], bias, n0 + 16 * h, N, relu);
        finish_y(c, acc[i][1], bias, n0 + 16 * h + 8, N, relu);
    }
}

/* One row of A (unpacked) against every panel: 4 chains of 8 columns. */
__attribute__((target("avx2,fma"))) static void row_y(const nnc_sgemm_b *b, const float *a, const float *bias,
                                                      int relu, float *c)
{
    int64_t K = b->K, N = b->N;
    for (int64_t pn = 0; pn < b->panels; pn++) {
        const float *B0 = b->packed + pn * K * NR;
        __m256 x0 = _mm256_setzero_ps(), x1 = x0, x2 = x0, x3 = x0;
        for (int64_t k = 0; k < K; k++) {
            __m256 av = _mm256_broadcast_ss(a + k);
            x0 = _mm256_fmadd_ps(av, _mm256_load_ps(B0 + k * NR), x0);
            x1 = _mm256_fmadd_ps(av, _mm256_load_ps(B0 + k * NR + 8), x1);
            x2 = _mm256_fmadd_ps(av, _mm256_load_ps(B0 + k * NR + 16), x2);
            x3 = _mm256_fmadd_ps(av, _mm256_load_ps(B0 + k * NR + 24), x3);
        }
        int64_t n0 = pn * NR;
        finish_y(c, x0, bias, n0, N, relu);
        finish_y(c, x1, bias, n0 + 8, N, relu);
        finish_y(c, x2, bias, n0 + 16, N, relu);
        finish_y(c, x3, bias, n0 + 24, N, relu);
    }
}
#endif

#ifdef NNC_SG_X86
/* The k-major copy of a block of MR rows of A (rows of them, the rest
 * zeros): Ap[k MR + i] = A[i K + k].  On AVX-512 16 columns at a time: the
 * rows' 16 floats loaded (each row prefetched 1 KiB ahead), then a 16 x 16
 * transposition in registers (rows past `rows` zero), 12 of its rows
 * stored contiguously; a scalar loop for the last K mod 16 columns.  The
 * copy took a fifth of the zoo MLP's time at batch 1024 (Zen 5, 1 thread),
 * most of it waiting on the first layer's inputs from memory; this way the
 * batch ran 5-8% faster (noisy runs). */
_Static_assert(MR <= 16, "pack_z transposes blocks of at most 16 rows");
__attribute__((target("avx512f"))) static void pack_z(const float *A, int64_t K, int rows, float *Ap)
{
    int64_t k0 = 0;
    for (; k0 + 16 <= K; k0 += 16) {
        __m512 r[16], t[16];
        for (int i = 0; i < rows; i++) /* (the address by integers: it may lie past the array) */
            _mm_prefetch((const char *)((uintptr_t)(A + i * K + k0) + 1024), _MM_HINT_T0);
        for (int i = 0; i < 16; i++) r[i] = i < rows ? _mm512_loadu_ps(A + i * K + k0) : _mm512_setzero_ps();
        /* 4 x 4 blocks of 4 x 4: unpack pairs, then quads, within 128-bit lanes */
        for (int i = 0; i < 16; i += 2) {
            t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
            t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
        }
        for (int i = 0; i < 16; i += 4) {
            r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
            r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
            r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
            r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
        }
        /* r[4 q + c] lane group g: rows 4 q .. 4 q + 3 at column 4 g + c;
         * gather the 128-bit groups: column 4 g + c is groups g of
         * r[c], r[4 + c], r[8 + c], r[12 + c] */
        for (int c = 0; c < 4; c++) {
            __m512 lo = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88), hi = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x88);
            __m512 lo2 = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xDD), hi2 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xDD);
            t[c] = _mm512_shuffle_f32x4(lo, hi, 0x88);      /* column c */
            t[8 + c] = _mm512_shuffle_f32x4(lo, hi, 0xDD);  /* column 8 + c */
            t[4 + c] = _mm512_shuffle_f32x4(lo2, hi2, 0x88); /* column 4 + c */
            t[12 + c] = _mm512_shuffle_f32x4(lo2, hi2, 0xDD); /* column 12 + c */
        }
        for (int c = 0; c < 16; c++) _mm512_mask_storeu_ps(Ap + (k0 + c) * MR, (__mmask16)((1u << MR) - 1), t[c]);
    }
    for (; k0 < K; k0++)
        for (int i = 0; i < MR; i++) Ap[k0 * MR + i] = i < rows ? A[i * K + k0] : 0.0f;
}

static void pack_block(const float *A, int64_t K, int rows, float *Ap, int isa)
{
    if (isa == NNC_ISA_AVX512) {
        pack_z(A, K, rows, Ap);
        return;
    }
    /* row by row: sequential reads, writes strided by MR; a padded
     * block's missing rows are zeros */
    for (int i = 0; i < MR; i++) {
        if (i < rows) {
            const float *src = A + i * K;
            for (int64_t k = 0; k < K; k++) Ap[k * MR + i] = src[k];
        } else
            for (int64_t k = 0; k < K; k++) Ap[k * MR + i] = 0.0f;
    }
}

typedef struct job {
    const nnc_sgemm_b *b;
    const float *A, *bias;
    float *C, *Ap;
    int64_t M, blk0, blk1;
    int relu, isa;
} job;

/* Row blocks are handled in groups of NNC_SG_GROUP: the group's A blocks are
 * packed once, then every B panel runs over the whole group, so a B panel
 * (K x NR floats) and the group's packed A both stay in the L2 cache.  The
 * last block may be a padded one (fewer than MR of its rows stored). */
#define NNC_SG_GROUP 8
static void run_blocks(const job *j)
{
    int64_t K = j->b->K, N = j->b->N;
    for (int64_t g0 = j->blk0; g0 < j->blk1; g0 += NNC_SG_GROUP) {
        int64_t g1 = g0 + NNC_SG_GROUP < j->blk1 ? g0 + NNC_SG_GROUP : j->blk1;
        for (int64_t blk = g0; blk < g1; blk++) {
            float *Ap = j->Ap + blk * MR * K;
            int rows = j->M - blk * MR < MR ? (int)(j->M - blk * MR) : MR;
            pack_block(j->A + blk * MR * K, K, rows, Ap, j->isa);
        }
        for (int64_t pn = 0; pn < j->b->panels; pn++) {
            int cols = (int)(N - pn * NR < NR ? N - pn * NR : NR);
            const float *Bp = j->b->packed + pn * K * NR;
            const float *bias = j->bias ? j->bias + pn * NR : NULL;
            for (int64_t blk = g0; blk < g1; blk++) {
                const float *Ap = j->Ap + blk * MR * K;
                float *C = j->C + blk * MR * N;
                int rows = j->M - blk * MR < MR ? (int)(j->M - blk * MR) : MR;
                if (j->isa == NNC_ISA_AVX512) {
                    kernel_z(K, Ap, Bp, C + pn * NR, N, rows, cols, bias, j->relu);
                } else {
                    for (int h = 0; h < 2 && 16 * h < cols; h++)
                        for (int r0 = 0; r0 < rows; r0 += 6)
                            quarter_y(K, Ap, Bp, r0, h, C, N, rows, pn * NR, N, j->bias, j->relu);
                }
            }
        }
    }
}
#endif

void nnc_sgemm_packed(const nnc_sgemm_b *b, int64_t M, const float *A, const float *bias, int relu, float *C,
                      float *scratch, int threads)
{
    if (M <= 0 || b->N <= 0) return;
    int isa = nnc_isa();
#ifdef NNC_SG_X86
    int64_t K = b->K, N = b->N;
    if (isa >= NNC_ISA_AVX2) {
        /* blocks (the last one padded where the tail is long), then the
         * rows from `tail` by the row kernel */
        int64_t blocks = M / MR + (M % MR >= NNC_SG_TAIL_BLOCK), tail = blocks * MR < M ? blocks * MR : M;
        if (blocks > 0) {
            if (threads < 1) threads = 1;
            if (threads > 8) threads = 8;
            /* a thread costs tens of microseconds to start: only split large products */
            if (blocks < 2 * threads || 2.0 * (double)M * (double)N * (double)K < 4e7) threads = 1;
            job jobs[8];
            for (int t = 0; t < threads; t++)
                jobs[t] = (job){b, A, bias, C, scratch, M, blocks * t / threads, blocks * (t + 1) / threads, relu, isa};
            /* OpenMP's pool keeps its threads between calls (starting a thread
             * per call costs more than a small layer); built without OpenMP
             * (the fuzz targets) the loop runs serially */
#pragma omp parallel for num_threads(threads) schedule(static, 1)
            for (int t = 0; t < threads; t++) run_blocks(&jobs[t]);
        }
        for (int64_t i = tail; i < M; i++) {
            if (isa == NNC_ISA_AVX512) row_z(b, A + i * K, bias, relu, C + i * N);
            else row_y(b, A + i * K, bias, relu, C + i * N);
        }
        return;
    }
#endif
    (void)scratch;
    (void)threads;
    (void)isa;
    rows_generic(b, 0, M, A, bias, relu, C);
}
