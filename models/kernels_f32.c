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
#include "models/kernels_impl.h"

int nnc_op_exec_f32(const nnc_exec *x, const nnc_node *n) { return exec_f32(x, n); }
size_t nnc_op_conv_scratch_f32(const nnc_model *m, const nnc_node *n, int batch) { return conv_scratch_f32(m, n, batch); }
int nnc_op_conv_prep_f32(const nnc_model *m, const nnc_node *n, void **out) { return conv_prep_f32(m, n, out); }
