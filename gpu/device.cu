// CUDA unit: device discovery and the activation kernels.  Every CUDA call
// goes through NNC_CUDA_CHECK, which records the statement, file and line in
// the caller's error buffer and returns an nnc_status instead of aborting.
#include "common/act.h"
#include "nncert/gpu.h"
#include "gpu/cuda_check_impl.h"

#include <cuda_runtime.h>

extern "C" int nnc_gpu_compiled(void) { return 1; }

extern "C" nnc_status nnc_gpu_device_count(int *count, char *err, size_t errlen)
{
    *count = 0;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) return NNC_STATUS_OK;
    NNC_CUDA_CHECK(e);
    *count = n;
    return NNC_STATUS_OK;
}

__global__ static void act_kernel(int act, float alpha, const float *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    switch (act) {
    case NNC_GPU_ACT_RELU: out[i] = nnc_relu_f32(x); break;
    case NNC_GPU_ACT_LEAKY: out[i] = nnc_leaky_f32(x, alpha); break;
    case NNC_GPU_ACT_SIGMOID: out[i] = nnc_sigmoid_f32(x); break;
    default: out[i] = nnc_tanh_f32(x); break;
    }
}

extern "C" nnc_status nnc_gpu_activation_f32(nnc_gpu_act act, float alpha, const float *in, float *out, size_t n,
                                             char *err, size_t errlen)
{
    if (n == 0) return NNC_STATUS_OK;
    float *d_in = NULL, *d_out = NULL;
    NNC_CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    cudaError_t e = cudaMalloc(&d_out, n * sizeof(float));
    if (e != cudaSuccess) {
        cudaFree(d_in);
        NNC_CUDA_CHECK(e);
    }
    nnc_status st = NNC_STATUS_OK;
    if ((e = cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice)) == cudaSuccess) {
        unsigned blocks = (unsigned)((n + 255) / 256);
        act_kernel<<<blocks, 256>>>((int)act, alpha, d_in, d_out, n);
        e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    }
    if (e != cudaSuccess)
        st = nnc_err(err, errlen, NNC_STATUS_DEVICE, "CUDA: activation kernel failed: %s", cudaGetErrorString(e));
    cudaFree(d_in);
    cudaFree(d_out);
    return st;
}
