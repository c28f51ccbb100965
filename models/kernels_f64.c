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
#include "models/kernels_impl.h"

int nnc_op_exec_f64(const nnc_exec *x, const nnc_node *n) { return exec_f64(x, n); }
size_t nnc_op_conv_scratch_f64(const nnc_model *m, const nnc_node *n, int batch) { return conv_scratch_f64(m, n, batch); }
int nnc_op_conv_prep_f64(const nnc_model *m, const nnc_node *n, void **out) { return conv_prep_f64(m, n, out); }
