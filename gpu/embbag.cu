// CUDA embedding bags: one warp per bag, each lane accumulating float4
// column chunks (vectorised 16-byte loads when dim % 4 == 0, else one float
// per lane).  Every column is summed in id order and finished by the same
// formula as the CPU kernel (models/embbag_math.h), so the results are
// bit-identical to nnc_mdl_embbag_f32.
#include "nncert/gpu.h"
#include "gpu/cuda_check_impl.h"
#include "models/embbag_math.h"

#include <cuda_runtime.h>

// bounds[b] .. bounds[b+1]: bag b's ids
__global__ static void embbag_vec4(float *out, const float *table, int64_t dim, const int64_t *ids,
                                   const int64_t *bounds, int64_t n_bags, int mean)
{
    int64_t bag = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (bag >= n_bags) return;
    int64_t s = bounds[bag], e = bounds[bag + 1], q = dim / 4;
    for (int64_t c = lane; c < q; c += 32) {
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int64_t k = s; k < e; k++) {
            float4 w = __ldg((const float4 *)(table + ids[k] * dim) + c);
            acc.x = __fadd_rn(acc.x, w.x);
            acc.y = __fadd_rn(acc.y, w.y);
            acc.z = __fadd_rn(acc.z, w.z);
            acc.w = __fadd_rn(acc.w, w.w);
        }
        float4 r = make_float4(nnc_eb_finish_f32(acc.x, e - s, mean), nnc_eb_finish_f32(acc.y, e - s, mean),
                               nnc_eb_finish_f32(acc.z, e - s, mean), nnc_eb_finish_f32(acc.w, e - s, mean));
        ((float4 *)(out + bag * dim))[c] = r;
    }
}

__global__ static void embbag_scalar(float *out, const float *table, int64_t dim, const int64_t *ids,
                                     const int64_t *bounds, int64_t n_bags, int mean)
{
    int64_t bag = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (bag >= n_bags) return;
    int64_t s = bounds[bag], e = bounds[bag + 1];
    for (int64_t j = lane; j < dim; j += 32) {
        float acc = 0.f;
        for (int64_t k = s; k < e; k++) acc = __fadd_rn(acc, __ldg(table + ids[k] * dim + j));
        out[bag * dim + j] = nnc_eb_finish_f32(acc, e - s, mean);
    }
}

extern "C" nnc_status nnc_gpu_embbag_f32(float *out, const float *table, int64_t rows, int64_t dim,
                                         const nnc_embbag_bags *bags, nnc_embbag_mode mode, int allow_empty,
                                         double *kernel_s, char *err, size_t errlen)
{
    nnc_status st = nnc_mdl_embbag_check(bags, rows, allow_empty, err, errlen);
    if (st) return st;
    if (kernel_s) *kernel_s = 0;
    int64_t nb = bags->n_bags, n = bags->n_ids;
    if (nb == 0 || dim == 0) return NNC_STATUS_OK;
    float *d_out = NULL, *d_tab = NULL;
    int64_t *d_ids = NULL, *d_bnd = NULL, *bnd = (int64_t *)malloc((size_t)(nb + 1) * sizeof(int64_t));
    cudaEvent_t t0 = NULL, t1 = NULL;
    if (bnd == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int64_t b = 0; b < nb; b++) bnd[b] = bags->offsets ? bags->offsets[b] : b * bags->bag_len;
    bnd[nb] = n;
    NNC_CUDA_CHECK_GOTO(cudaMalloc(&d_out, (size_t)(nb * dim) * sizeof(float)), done);
    NNC_CUDA_CHECK_GOTO(cudaMalloc(&d_tab, (size_t)(rows * dim > 0 ? rows * dim : 1) * sizeof(float)), done);
    NNC_CUDA_CHECK_GOTO(cudaMalloc(&d_ids, (size_t)(n > 0 ? n : 1) * sizeof(int64_t)), done);
    NNC_CUDA_CHECK_GOTO(cudaMalloc(&d_bnd, (size_t)(nb + 1) * sizeof(int64_t)), done);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(d_tab, table, (size_t)(rows * dim) * sizeof(float), cudaMemcpyHostToDevice), done);
    if (n) NNC_CUDA_CHECK_GOTO(cudaMemcpy(d_ids, bags->ids, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice), done);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(d_bnd, bnd, (size_t)(nb + 1) * sizeof(int64_t), cudaMemcpyHostToDevice), done);
    NNC_CUDA_CHECK_GOTO(cudaEventCreate(&t0), done);
    NNC_CUDA_CHECK_GOTO(cudaEventCreate(&t1), done);
    {
        const int threads = 256; // 8 warps, 8 bags per block
        unsigned blocks = (unsigned)((nb * 32 + threads - 1) / threads);
        int m = mode == NNC_EMBBAG_MODE_MEAN;
        NNC_CUDA_CHECK_GOTO(cudaEventRecord(t0), done);
        if (dim % 4 == 0) embbag_vec4<<<blocks, threads>>>(d_out, d_tab, dim, d_ids, d_bnd, nb, m);
        else embbag_scalar<<<blocks, threads>>>(d_out, d_tab, dim, d_ids, d_bnd, nb, m);
        NNC_CUDA_CHECK_GOTO(cudaGetLastError(), done);
        NNC_CUDA_CHECK_GOTO(cudaEventRecord(t1), done);
        NNC_CUDA_CHECK_GOTO(cudaEventSynchronize(t1), done);
        float ms = 0;
        NNC_CUDA_CHECK_GOTO(cudaEventElapsedTime(&ms, t0, t1), done);
        if (kernel_s) *kernel_s = ms * 1e-3;
    }
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(out, d_out, (size_t)(nb * dim) * sizeof(float), cudaMemcpyDeviceToHost), done);
done:
    if (t0) cudaEventDestroy(t0);
    if (t1) cudaEventDestroy(t1);
    cudaFree(d_out);
    cudaFree(d_tab);
    cudaFree(d_ids);
    cudaFree(d_bnd);
    free(bnd);
    return st;
}
