/* Per-element activation functions shared by the CPU kernels
 * (models/kernels_impl.h) and the CUDA kernels (the .cu files in gpu/): one definition,
 * compiled by gcc and nvcc, so both paths compute the same function. */
#ifndef NNC_ACT_H
#define NNC_ACT_H

#include <math.h>

#ifdef __CUDACC__
#define NNC_HD __host__ __device__ static inline
#else
#define NNC_HD static inline
#endif

NNC_HD float nnc_relu_f32(float x) { return x > 0.0f ? x : 0.0f; }
NNC_HD double nnc_relu_f64(double x) { return x > 0.0 ? x : 0.0; }
NNC_HD float nnc_leaky_f32(float x, float a) { return x >= 0.0f ? x : a * x; }
NNC_HD double nnc_leaky_f64(double x, double a) { return x >= 0.0 ? x : a * x; }
/* Sigmoid written so that exp never overflows: for x < 0 use e^x / (1 + e^x). */
NNC_HD float nnc_sigmoid_f32(float x) { return x >= 0.0f ? 1.0f / (1.0f + expf(-x)) : expf(x) / (1.0f + expf(x)); }
NNC_HD double nnc_sigmoid_f64(double x) { return x >= 0.0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x)); }
NNC_HD float nnc_tanh_f32(float x) { return tanhf(x); }
NNC_HD double nnc_tanh_f64(double x) { return tanh(x); }

#endif
