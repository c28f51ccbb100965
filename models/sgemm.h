/* Float32 GEMM against a constant, pre-packed right operand (models/sgemm.c).
 * Internal to the models module. */
#ifndef NNC_SGEMM_H
#define NNC_SGEMM_H

#include <stddef.h>
#include <stdint.h>

#define NNC_SG_MR 12    /* rows of a C tile */
#define NNC_SG_NR 32    /* columns of a C tile (two AVX-512 vectors, four AVX2) */

typedef struct nnc_sgemm_b nnc_sgemm_b;

/* Pack op(B) for C = A op(B): b holds B as doubles, [K,N] (trans = 0) or
 * [N,K] (trans = 1).  Returns NULL when out of memory. */
nnc_sgemm_b *nnc_sgemm_pack_b(const double *b, int64_t K, int64_t N, int trans);
void nnc_sgemm_free_b(nnc_sgemm_b *p);

/* Floats of scratch nnc_sgemm_packed needs for M rows. */
size_t nnc_sgemm_scratch_floats(int64_t M, int64_t K);

/* C[M,N] = A[M,K] op(B) (+ bias[N] when bias != NULL), then max(., 0) when
 * relu.  A and C row-major and dense; scratch as sized above; up to
 * `threads` threads. */
void nnc_sgemm_packed(const nnc_sgemm_b *b, int64_t M, const float *A, const float *bias, int relu, float *C,
                      float *scratch, int threads);

#endif
