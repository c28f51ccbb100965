/* double instantiation of the reference kernels (also used by constant folding). */
#include "models/model_impl.h"
#define T double
#define FN(x) x##_f64
#define GEMM cblas_dgemm
#define TEXP exp
#define TTANH tanh
#define ACTF(f) nnc_##f##_f64
/* fused multiply-add, as in kernels_f32.c */
#define TFMA fma
#define TVFMA256(w, v, a) _mm256_fmadd_pd(_mm256_set1_pd(w), (v), (a))
#define TVFMA512(w, v, a) _mm512_fmadd_pd(_mm512_set1_pd(w), (v), (a))
#define TVEC512 __m512d
#define TVSET512(w) _mm512_set1_pd(w)
#define TVFMAV512(b, v, a) _mm512_fmadd_pd((b), (v), (a))
/* lanes [0, n) of p (the others 0, never read), stored into p; the even
 * lanes of lo:hi */
#define TVLOADN512(p, n) _mm512_maskz_loadu_pd((__mmask8)(((uint64_t)1 << (n)) - 1), (p))
#define TVSTOREN512(p, n, v) _mm512_mask_storeu_pd((p), (__mmask8)(((uint64_t)1 << (n)) - 1), (v))
#define TVEVEN512(lo, hi) _mm512_permutex2var_pd((lo), _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), (hi))
/* the lanes of ip's 8 indices that are >= 0; lanes m of consecutive elements from p */
#define TVMAPMASK512(ip)                                                                                               \
    ((uint64_t)_mm512_cmpge_epi32_mask(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)(ip))), \
                                       _mm512_setzero_si512()) &                                                       \
     0xff)
#define TVEXPAND512(m, p) _mm512_maskz_expandloadu_pd((__mmask8)(m), (p))
/* a step o of the permute plan (kernels_impl.h, nnc_dcperm) into acc (with
 * no lane of the second vector, its address stays inside the plane) */
#define TVZERO512 _mm512_setzero_pd()
#define TVPERMSTEP512(acc, src, o)                                                                                     \
    _mm512_mask_mov_pd((acc), (__mmask8)(o)->lanes,                                                                    \
                       _mm512_permutex2var_pd(_mm512_maskz_loadu_pd((__mmask8)(o)->m0, (src) + (o)->off),                                   \
                                              _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(o)->idx)), \
                                              _mm512_maskz_loadu_pd((__mmask8)(o)->m1, (src) + (o)->off + ((o)->m1 ? 8 : 0))))
/* base[ip[l]] for the lanes l whose index is >= 0, the others 0 (never read):
 * AVX-512, AVX2 */
#define TVGATHER512(base, ip)                                                                                          \
    __extension__({                                                                                                    \
        __m256i i_ = _mm256_loadu_si256((const __m256i *)(const void *)(ip));                                          \
        __mmask8 m_ = (__mmask8)_mm512_cmpge_epi32_mask(_mm512_castsi256_si512(i_), _mm512_setzero_si512());          \
        _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m_, i_, (base), 8);                                              \
    })
#define TVGATHER256(base, ip)                                                                                          \
    __extension__({                                                                                                    \
        __m128i i_ = _mm_loadu_si128((const __m128i *)(const void *)(ip));                                             \
        __m256d m_ = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpgt_epi32(i_, _mm_set1_epi32(-1))));             \
        _mm256_mask_i32gather_pd(_mm256_setzero_pd(), (base), i_, m_, 8);                                              \
    })
#include "models/kernels_impl.h"

int nnc_op_exec_f64(const nnc_exec *x, const nnc_node *n) { return exec_f64(x, n); }
size_t nnc_op_conv_scratch_f64(const nnc_model *m, const nnc_node *n, int batch) { return conv_scratch_f64(m, n, batch); }
int nnc_op_conv_prep_f64(const nnc_model *m, const nnc_node *n, const nnc_node *pool, void **out)
{
    return conv_prep_f64(m, n, pool, out);
}
