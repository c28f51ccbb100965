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
#include "models/kernels_impl.h"

int nnc_op_exec_f32(const nnc_exec *x, const nnc_node *n) { return exec_f32(x, n); }
size_t nnc_op_conv_scratch_f32(const nnc_model *m, const nnc_node *n, int batch) { return conv_scratch_f32(m, n, batch); }
int nnc_op_conv_prep_f32(const nnc_model *m, const nnc_node *n, void **out) { return conv_prep_f32(m, n, out); }
