/* float instantiation of the reference kernels. */
#include "models/model_impl.h"
#define T float
#define FN(x) x##_f32
#define GEMM cblas_sgemm
#define TEXP expf
#define TTANH tanhf
#define ACTF(f) nnc_##f##_f32
/* fused multiply-add: scalar, and a broadcast scalar times a vector plus a
 * vector (the direct convolution's AVX2 and AVX-512 paths) */
#define TFMA fmaf
#define TVFMA256(w, v, a) _mm256_fmadd_ps(_mm256_set1_ps(w), (v), (a))
#define TVFMA512(w, v, a) _mm512_fmadd_ps(_mm512_set1_ps(w), (v), (a))
#define TVEC512 __m512
#define TVSET512(w) _mm512_set1_ps(w)
#define TVFMAV512(b, v, a) _mm512_fmadd_ps((b), (v), (a))
/* lanes [0, n) of p (the others 0, never read), stored into p; the even
 * lanes of lo:hi */
#define TVLOADN512(p, n) _mm512_maskz_loadu_ps((__mmask16)(((uint64_t)1 << (n)) - 1), (p))
#define TVSTOREN512(p, n, v) _mm512_mask_storeu_ps((p), (__mmask16)(((uint64_t)1 << (n)) - 1), (v))
#define TVEVEN512(lo, hi) _mm512_permutex2var_ps((lo), _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), (hi))
/* the lanes of ip's 16 indices that are >= 0; lanes m of consecutive elements from p */
#define TVMAPMASK512(ip) ((uint64_t)_mm512_cmpge_epi32_mask(_mm512_loadu_si512((const void *)(ip)), _mm512_setzero_si512()))
#define TVEXPAND512(m, p) _mm512_maskz_expandloadu_ps((__mmask16)(m), (p))
/* a step o of the permute plan (kernels_impl.h, nnc_dcperm) into acc (with
 * no lane of the second vector, its address stays inside the plane) */
#define TVZERO512 _mm512_setzero_ps()
#define TVPERMSTEP512(acc, src, o)                                                                                     \
    _mm512_mask_mov_ps((acc), (__mmask16)(o)->lanes,                                                                   \
                       _mm512_permutex2var_ps(_mm512_maskz_loadu_ps((__mmask16)(o)->m0, (src) + (o)->off),                                   \
                                              _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(o)->idx)), \
                                              _mm512_maskz_loadu_ps((__mmask16)(o)->m1, (src) + (o)->off + ((o)->m1 ? 16 : 0))))
/* base[ip[l]] for the lanes l whose index is >= 0, the others 0 (never read):
 * AVX-512, AVX2 */
#define TVGATHER512(base, ip)                                                                                          \
    __extension__({                                                                                                    \
        __m512i i_ = _mm512_loadu_si512((const void *)(ip));                                                           \
        __mmask16 m_ = _mm512_cmpge_epi32_mask(i_, _mm512_setzero_si512());                                           \
        _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m_, i_, (base), 4);                                              \
    })
#define TVGATHER256(base, ip)                                                                                          \
    __extension__({                                                                                                    \
        __m256i i_ = _mm256_loadu_si256((const __m256i *)(const void *)(ip));                                          \
        __m256 m_ = _mm256_castsi256_ps(_mm256_cmpgt_epi32(i_, _mm256_set1_epi32(-1)));                               \
        _mm256_mask_i32gather_ps(_mm256_setzero_ps(), (base), i_, m_, 4);                                              \
    })
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#include <math.h>
/* lanes mask of v into o: + the residual r there (when r), ReLU'd (when relu) */
__attribute__((target("avx512f"), always_inline)) static inline void tile_put512(float *o, const float *r,
                                                                                 __mmask16 mask, __m512 v, int relu)
{
    if (r) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, r));
    if (relu) v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ), v);
    _mm512_mask_storeu_ps(o, mask, v);
}
/* The channel kernel's tile into the output planes (dconv_strip_impl.h,
 * chan_tile_out), AVX-512: x + 16 p holds pixel p's 16 channels, bias added.
 * Transposed (unpack, then shuffle, within 128-bit lanes), s[c] holds in
 * lane j channel 4 j + c's pixels 0-3 and s[4 + c] its pixels 4-7; one
 * permute puts both in the low 8 lanes.  Those go to o + ch cs and
 * o + ch cs + off1 (n0 and n1 of them, the rest past the output's edge;
 * one store where off1 is 4), for the nch channels ch that exist, each plus
 * the residual r at the same place (r != NULL), then ReLU'd (relu): per
 * element relu((a + b) + r), as the scalar epilogue computes it. */
__attribute__((target("avx512f"), always_inline)) static inline void tile_out512(const float *x, int nch, float *o,
                                                                                 int64_t cs, const float *r,
                                                                                 int64_t off1, int n0, int n1, int relu)
{
    __m512 u[8], s[8];
    for (int i = 0; i < 4; i++) {
        __m512 a = _mm512_loadu_ps(x + 32 * i), b = _mm512_loadu_ps(x + 32 * i + 16);
        u[2 * i] = _mm512_unpacklo_ps(a, b);
        u[2 * i + 1] = _mm512_unpackhi_ps(a, b);
    }
    for (int h = 0; h < 2; h++) {
        s[4 * h + 0] = _mm512_shuffle_ps(u[4 * h + 0], u[4 * h + 2], 0x44);
        s[4 * h + 1] = _mm512_shuffle_ps(u[4 * h + 0], u[4 * h + 2], 0xEE);
        s[4 * h + 2] = _mm512_shuffle_ps(u[4 * h + 1], u[4 * h + 3], 0x44);
        s[4 * h + 3] = _mm512_shuffle_ps(u[4 * h + 1], u[4 * h + 3], 0xEE);
    }
    __mmask16 m0 = (__mmask16)((1u << n0) - 1), m1 = (__mmask16)((1u << n1) - 1), m01 = (__mmask16)(m0 | m1 << 4);
    for (int j = 0; j < 4; j++) {
        /* lanes 4 j .. 4 j + 3 of a, then of b */
        __m512i ix = _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 0, 0, 0, 0, 0, 0, 0, 0),
                                      _mm512_set1_epi32(4 * j));
        for (int c = 0; c < 4 && 4 * j + c < nch; c++) {
            int64_t at = (4 * j + c) * cs;
            __m512 v = _mm512_permutex2var_ps(s[c], ix, s[4 + c]);
            if (off1 == 4) {
                tile_put512(o + at, r ? r + at : NULL, m01, v, relu);
                continue;
            }
            tile_put512(o + at, r ? r + at : NULL, m0, v, relu);
            if (m1)
                tile_put512(o + at + off1, r ? r + at + off1 : NULL, m1,
                            _mm512_permutexvar_ps(_mm512_setr_epi32(4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7), v),
                            relu);
        }
    }
}
/* lanes [0, n) of v into o: + the residual r there (when r), ReLU'd (when relu) */
__attribute__((target("avx2,fma"), always_inline)) static inline void tile_put256(float *o, const float *r, int n,
                                                                                  __m256 v, int relu)
{
    __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    if (r) v = _mm256_add_ps(v, n == 8 ? _mm256_loadu_ps(r) : _mm256_maskload_ps(r, mask));
    if (relu) v = _mm256_and_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ), v);
    if (n == 8) _mm256_storeu_ps(o, v);
    else _mm256_maskstore_ps(o, mask, v);
}
/* tile_out512 on AVX2: x + 8 p holds pixel p's 8 channels; after the same
 * transposition within 128-bit lanes, channel 4 j + c's pixels 0-3 and
 * 4-7 are lane j of s[c] and of s[4 + c], joined by one lane permute. */
__attribute__((target("avx2,fma"), always_inline)) static inline void tile_out256(const float *x, int nch, float *o,
                                                                                  int64_t cs, const float *r,
                                                                                  int64_t off1, int n0, int n1, int relu)
{
    __m256 u[8], s[8];
    for (int i = 0; i < 4; i++) {
        __m256 a = _mm256_loadu_ps(x + 16 * i), b = _mm256_loadu_ps(x + 16 * i + 8);
        u[2 * i] = _mm256_unpacklo_ps(a, b);
        u[2 * i + 1] = _mm256_unpackhi_ps(a, b);
    }
    for (int h = 0; h < 2; h++) {
        s[4 * h + 0] = _mm256_shuffle_ps(u[4 * h + 0], u[4 * h + 2], 0x44);
        s[4 * h + 1] = _mm256_shuffle_ps(u[4 * h + 0], u[4 * h + 2], 0xEE);
        s[4 * h + 2] = _mm256_shuffle_ps(u[4 * h + 1], u[4 * h + 3], 0x44);
        s[4 * h + 3] = _mm256_shuffle_ps(u[4 * h + 1], u[4 * h + 3], 0xEE);
    }
    for (int c = 0; c < 8 && c < nch; c++) {
        int64_t at = c * cs;
        /* channel c = 4 j + i: lane j of s[i] and of s[4 + i] */
        __m256 v = c < 4 ? _mm256_permute2f128_ps(s[c], s[4 + c], 0x20) : _mm256_permute2f128_ps(s[c - 4], s[c], 0x31);
        if (off1 == 4) {
            tile_put256(o + at, r ? r + at : NULL, n1 ? 4 + n1 : n0, v, relu);
            continue;
        }
        tile_put256(o + at, r ? r + at : NULL, n0, v, relu);
        if (n1) tile_put256(o + at + off1, r ? r + at + off1 : NULL, n1, _mm256_permute2f128_ps(v, v, 0x11), relu);
    }
}
/* One output row of a MaxPool fused after Conv -> Relu (dconv_strip_impl.h,
 * dconv_block), AVX-512: o[px] = relu(m), m the maximum over the window
 * (kh rows Wq apart, kw columns from px sw) of a + b, NaNs skipped from
 * -inf, for px < n; kw, sw <= 16.  As the scalar loops: per column the
 * rows' maximum in row order, then per output its columns' in column order,
 * each step max(v, m) = v > m ? v : m, so the same bits.  In chunks of
 * outputs whose windows start within 32 columns: their columns' maxima in
 * three vectors, each window's by permutes of them shifted, then every
 * sw-th column by a permute (in registers: a store and shifted reloads
 * would wait on store forwarding). */
__attribute__((target("avx512f"), always_inline)) static inline void pool_row512(float *o, const float *a, int64_t Wq,
                                                                                 int64_t kh, int64_t kw, int64_t sw,
                                                                                 int64_t n, float b)
{
    const __m512 bv = _mm512_set1_ps(b), ninf = _mm512_set1_ps(-INFINITY);
    const int64_t P = sw <= 2 ? 16 : 32 / sw;
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i idx = _mm512_mullo_epi32(iota, _mm512_set1_epi32((int)sw));
    for (int64_t p0 = 0; p0 < n; p0 += P) {
        int64_t np = n - p0 < P ? n - p0 : P, ncol = (np - 1) * sw + kw; /* <= 47 */
        const float *w = a + p0 * sw;
        __m512 cm[3] = {ninf, ninf, ninf};
        for (int v = 0; v < 3 && 16 * v < ncol; v++) {
            int64_t c = 16 * v;
            __mmask16 m = (__mmask16)(ncol - c >= 16 ? 0xFFFF : (1u << (ncol - c)) - 1);
            for (int64_t ki = 0; ki < kh; ki++)
                cm[v] = _mm512_max_ps(_mm512_add_ps(_mm512_maskz_loadu_ps(m, w + ki * Wq + c), bv), cm[v]);
            cm[v] = _mm512_mask_mov_ps(ninf, m, cm[v]);
        }
        __m512 w0 = ninf, w1 = ninf;
        if (kw == sw && (sw == 2 || sw == 4)) {
            /* windows side by side, sw lanes each, none across a vector
             * (ncol = np sw <= 32): each window's maximum into all its
             * lanes by swaps within them.  The column maxima are never NaN
             * (a NaN a + b never wins a max against them) and the result
             * is ReLU'd, so any order of the max steps gives the bits the
             * column-order steps give (+0 and -0 both become +0) */
            w0 = _mm512_max_ps(_mm512_permute_ps(cm[0], 0xB1), cm[0]); /* pairs */
            w1 = _mm512_max_ps(_mm512_permute_ps(cm[1], 0xB1), cm[1]);
            if (sw == 4) { /* quads: the two pairs of each 128-bit lane */
                w0 = _mm512_max_ps(_mm512_permute_ps(w0, 0x4E), w0);
                w1 = _mm512_max_ps(_mm512_permute_ps(w1, 0x4E), w1);
            }
        } else {
            for (int64_t kj = 0; kj < kw; kj++) {
                __m512i sh = _mm512_add_epi32(iota, _mm512_set1_epi32((int)kj)); /* lanes kj .. kj + 15 of a:b */
                w0 = _mm512_max_ps(_mm512_permutex2var_ps(cm[0], sh, cm[1]), w0);
                w1 = _mm512_max_ps(_mm512_permutex2var_ps(cm[1], sh, cm[2]), w1);
            }
        }
        __m512 r = _mm512_permutex2var_ps(w0, idx, w1);
        r = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(r, _mm512_setzero_ps(), _CMP_GT_OQ), r);
        _mm512_mask_storeu_ps(o + p0, (__mmask16)((1u << np) - 1), r);
    }
}
#define TVPOOLROW512(o, a, Wq, kh, kw, sw, n, b) pool_row512((o), (a), (Wq), (kh), (kw), (sw), (n), (b))
#define TVTILEOUT256(x, nch, o, cs, r, off1, n0, n1, relu) tile_out256((x), (nch), (o), (cs), (r), (off1), (n0), (n1), (relu))
#define TVTILEOUT512(x, nch, o, cs, r, off1, n0, n1, relu) tile_out512((x), (nch), (o), (cs), (r), (off1), (n0), (n1), (relu))
#endif
#include "models/kernels_impl.h"

int nnc_op_exec_f32(const nnc_exec *x, const nnc_node *n) { return exec_f32(x, n); }
size_t nnc_op_conv_scratch_f32(const nnc_model *m, const nnc_node *n, int batch) { return conv_scratch_f32(m, n, batch); }
int nnc_op_conv_prep_f32(const nnc_model *m, const nnc_node *n, const nnc_node *pool, void **out)
{
    return conv_prep_f32(m, n, pool, out);
}
