/* Per-element math of the embedding-bag operator, shared by the CPU kernel
 * (models/embbag.c) and the CUDA kernel (gpu/embbag.cu) so that both compute
 * bit-identical results.
 *
 * A bag's output column j is  acc_j = ((0 + w[i0][j]) + w[i1][j]) + ...
 * summed in the order of the bag's ids (no FMA, no reassociation), then for
 * mode MEAN divided once by the bag length: acc_j / (float)len.  This is
 * exactly what the unfused Gather + ReduceSum/ReduceMean reference kernels
 * compute (models/kernels_impl.h), so fusing never changes a model's outputs. */
#ifndef NNC_EMBBAG_MATH_H
#define NNC_EMBBAG_MATH_H

#include <stdint.h>

#if defined(__CUDACC__)
#define NNC_EB_FN static __host__ __device__ __forceinline__
#else
#define NNC_EB_FN static inline
#endif

/* Row of table index id in a table of `rows` rows, or -1 when out of range.
 * wrap_negative: ONNX Gather semantics (-rows..-1 count from the end);
 * otherwise (torch.nn.EmbeddingBag) every negative id is out of range. */
NNC_EB_FN int64_t nnc_eb_row(int64_t id, int64_t rows, int wrap_negative)
{
    if (id >= rows || id < (wrap_negative ? -rows : 0)) return -1;
    return id < 0 ? id + rows : id;
}

/* Final value of one output element: acc for SUM, acc / len for MEAN.
 * An empty MEAN bag gives 0, as torch.nn.EmbeddingBag does. */
NNC_EB_FN float nnc_eb_finish_f32(float acc, int64_t len, int mean)
{
    return (mean && len > 0) ? acc / (float)len : acc;
}

NNC_EB_FN double nnc_eb_finish_f64(double acc, int64_t len, int mean)
{
    return (mean && len > 0) ? acc / (double)len : acc;
}

#endif
