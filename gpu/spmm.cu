// GPU SpMM for graph aggregation, as TC-GNN does it: the host translates A
// (gpu/spmm_translate.c: 16-row windows, condensed columns, 16x8 tiles);
// one warp per (window, 16 output columns) multiplies each 16x8 A tile by
// the 8 matching X rows with a tf32 WMMA (m16n16k8) on the tensor cores;
// windows too sparse for that (fewer than NNC_SGT_MIN_TILE_NNZ non-zeros per
// tile) run a CUDA-core CSR kernel, one warp per row, lanes along F, with the
// CPU's summation order (models/spmm.h), so that path is bit-identical to
// the CPU.  See gpu/spmm_translate.h for the interface.
#include "gpu/spmm_translate.h"
#include "gpu/cuda_check_impl.h"

#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <stdlib.h>
#include <vector>

using namespace nvcuda;

// One warp: window blockIdx.x, output columns 16*blockIdx.y .. +15.
__global__ static void sgt_tc_kernel(const int32_t *row_ptr, const float *val, const int32_t *edge_pos,
                                     const int32_t *win_col_ptr, const int32_t *win_cols, const int32_t *win_tile_ptr,
                                     const unsigned char *use_tc, int32_t rows, const float *x, int64_t F, float *y)
{
    __shared__ __align__(32) float As[NNC_SGT_H * NNC_SGT_W];
    __shared__ __align__(32) float Bs[NNC_SGT_W * 16];
    __shared__ __align__(32) float Cs[NNC_SGT_H * 16];
    int w = blockIdx.x, lane = threadIdx.x;
    if (!use_tc[w]) return;
    int64_t f0 = (int64_t)blockIdx.y * 16;
    int r0 = w * NNC_SGT_H, r1 = min(r0 + NNC_SGT_H, rows);
    int ntile = win_tile_ptr[w + 1] - win_tile_ptr[w];
    int cbase = win_col_ptr[w], u = win_col_ptr[w + 1] - cbase;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int t = 0; t < ntile; t++) {
        for (int q = lane; q < NNC_SGT_H * NNC_SGT_W; q += 32) As[q] = 0.0f;
        __syncwarp();
        // scatter the window's entries that fall in tile t
        for (int rr = 0; rr < r1 - r0; rr++)
            for (int k = row_ptr[r0 + rr] + lane; k < row_ptr[r0 + rr + 1]; k += 32) {
                int p = edge_pos[k];
                if (p / NNC_SGT_W == t) As[rr * NNC_SGT_W + p % NNC_SGT_W] = val[k];
            }
        // the 8 condensed X rows, 16 columns (zeros past the list or F)
        for (int q = lane; q < NNC_SGT_W * 16; q += 32) {
            int j = q / 16, cc = q % 16, ci = t * NNC_SGT_W + j;
            float v = 0.0f;
            if (ci < u && f0 + cc < F) v = x[(int64_t)win_cols[cbase + ci] * F + f0 + cc];
            Bs[q] = v;
        }
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, As, NNC_SGT_W);
        wmma::load_matrix_sync(fb, Bs, 16);
        for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
        for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
        wmma::mma_sync(c, fa, fb, c);
        __syncwarp();
    }
    wmma::store_matrix_sync(Cs, c, 16, wmma::mem_row_major);
    __syncwarp();
    for (int q = lane; q < NNC_SGT_H * 16; q += 32) {
        int rr = q / 16, cc = q % 16;
        if (r0 + rr < r1 && f0 + cc < F) y[(int64_t)(r0 + rr) * F + f0 + cc] = Cs[q];
    }
}

// One warp per row (rows of tensor-core windows skipped when use_tc is set),
// lanes along F; each element summed with fmaf in column order.
__global__ static void csr_kernel(const int32_t *row_ptr, const int32_t *col, const float *val, const unsigned char *use_tc,
                                  int32_t rows, const float *x, int64_t F, float *y)
{
    int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows || (use_tc && use_tc[row / NNC_SGT_H])) return;
    int k0 = row_ptr[row], k1 = row_ptr[row + 1];
    for (int64_t j = lane; j < F; j += 32) {
        float acc = 0.0f;
        for (int k = k0; k < k1; k++) acc = fmaf(val[k], x[(int64_t)col[k] * F + j], acc);
        y[row * F + j] = acc;
    }
}

template <typename T> static cudaError_t upload(T **d, const T *h, size_t n)
{
    cudaError_t e = cudaMalloc((void **)d, (n ? n : 1) * sizeof(T));
    if (e == cudaSuccess && n) e = cudaMemcpy(*d, h, n * sizeof(T), cudaMemcpyHostToDevice);
    return e;
}

extern "C" nnc_status nnc_gpu_spmm_f32(const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y,
                                       nnc_gpu_spmm_mode mode, int reps, double *ms, char *err, size_t errlen)
{
    nnc_status st = NNC_STATUS_OK;
    nnc_gpu_sgt t;
    int32_t *d_rp = NULL, *d_col = NULL, *d_pos = NULL, *d_wcp = NULL, *d_wc = NULL, *d_wtp = NULL;
    float *d_val = NULL, *d_x = NULL, *d_y = NULL;
    unsigned char *d_tc = NULL;
    cudaEvent_t ev0 = NULL, ev1 = NULL;
    std::vector<unsigned char> tc;
    std::vector<float> times;
    if (reps < 1) reps = 1;
    if ((st = nnc_gpu_sgt_build(&t, a, err, errlen)) != NNC_STATUS_OK) return st;
    tc.resize((size_t)t.n_windows + 1, 0);
    for (int32_t w = 0; w < t.n_windows; w++)
        tc[w] = mode == NNC_GPU_SPMM_TC ? 1 : mode == NNC_GPU_SPMM_CSR ? 0 : (unsigned char)nnc_gpu_sgt_dense_window(&t, a, w);
    NNC_CUDA_CHECK_GOTO(upload(&d_rp, a->row_ptr, (size_t)a->rows + 1), done);
    NNC_CUDA_CHECK_GOTO(upload(&d_col, a->col, (size_t)a->nnz), done);
    NNC_CUDA_CHECK_GOTO(upload(&d_val, a->val, (size_t)a->nnz), done);
    NNC_CUDA_CHECK_GOTO(upload(&d_pos, t.edge_pos, (size_t)a->nnz), done);
    NNC_CUDA_CHECK_GOTO(upload(&d_wcp, t.win_col_ptr, (size_t)t.n_windows + 1), done);
    NNC_CUDA_CHECK_GOTO(upload(&d_wc, t.win_cols, (size_t)t.win_col_ptr[t.n_windows]), done);
    NNC_CUDA_CHECK_GOTO(upload(&d_wtp, t.win_tile_ptr, (size_t)t.n_windows + 1), done);
    NNC_CUDA_CHECK_GOTO(upload(&d_tc, tc.data(), (size_t)t.n_windows + 1), done);
    NNC_CUDA_CHECK_GOTO(upload(&d_x, x, (size_t)a->cols * (size_t)F), done);
    NNC_CUDA_CHECK_GOTO(cudaMalloc(&d_y, ((size_t)a->rows * (size_t)F + 1) * sizeof(float)), done);
    NNC_CUDA_CHECK_GOTO(cudaEventCreate(&ev0), done);
    NNC_CUDA_CHECK_GOTO(cudaEventCreate(&ev1), done);
    for (int r = 0; r < reps + 1; r++) { // the first launch warms up and is not timed
        NNC_CUDA_CHECK_GOTO(cudaEventRecord(ev0), done);
        if (t.n_windows && mode != NNC_GPU_SPMM_CSR) {
            dim3 grid((unsigned)t.n_windows, (unsigned)((F + 15) / 16));
            sgt_tc_kernel<<<grid, 32>>>(d_rp, d_val, d_pos, d_wcp, d_wc, d_wtp, d_tc, a->rows, d_x, F, d_y);
            NNC_CUDA_CHECK_GOTO(cudaGetLastError(), done);
        }
        if (a->rows && mode != NNC_GPU_SPMM_TC) {
            unsigned blocks = (unsigned)(((int64_t)a->rows * 32 + 127) / 128);
            csr_kernel<<<blocks, 128>>>(d_rp, d_col, d_val, d_tc, a->rows, d_x, F, d_y);
            NNC_CUDA_CHECK_GOTO(cudaGetLastError(), done);
        }
        NNC_CUDA_CHECK_GOTO(cudaEventRecord(ev1), done);
        NNC_CUDA_CHECK_GOTO(cudaEventSynchronize(ev1), done);
        float t_ms = 0;
        NNC_CUDA_CHECK_GOTO(cudaEventElapsedTime(&t_ms, ev0, ev1), done);
        if (r > 0) times.push_back(t_ms);
    }
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(y, d_y, (size_t)a->rows * (size_t)F * sizeof(float), cudaMemcpyDeviceToHost), done);
    if (ms) {
        std::sort(times.begin(), times.end());
        *ms = times[times.size() / 2];
    }
done:
    if (ev0) cudaEventDestroy(ev0);
    if (ev1) cudaEventDestroy(ev1);
    cudaFree(d_rp); cudaFree(d_col); cudaFree(d_val); cudaFree(d_pos); cudaFree(d_wcp); cudaFree(d_wc);
    cudaFree(d_wtp); cudaFree(d_tc); cudaFree(d_x); cudaFree(d_y);
    nnc_gpu_sgt_free(&t);
    return st;
}

// ---------------------------------------------------------------- multi-GPU

#include "dist/gnn.h"

#include "gpu/nccl_check_impl.h"

// One warp per listed (local) row, as csr_kernel.
__global__ static void csr_rows_kernel(const int32_t *row_ptr, const int32_t *col, const float *val, const int32_t *list,
                                       int32_t n, const float *x, int64_t F, float *y)
{
    int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (i >= n) return;
    int32_t row = list[i];
    int k0 = row_ptr[row], k1 = row_ptr[row + 1];
    for (int64_t j = lane; j < F; j += 32) {
        float acc = 0.0f;
        for (int k = k0; k < k1; k++) acc = fmaf(val[k], x[(int64_t)col[k] * F + j], acc);
        y[(int64_t)row * F + j] = acc;
    }
}

// sendbuf row i = xloc row rows[i] (owned, local numbering).
__global__ static void pack_kernel(const int32_t *rows, int32_t n, const float *xloc, int64_t F, float *sendbuf)
{
    int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= (int64_t)n * F) return;
    int64_t i = q / F, j = q % F;
    sendbuf[q] = xloc[(int64_t)rows[i] * F + j];
}

struct nnc_gpu_dev_part {
    nnc_dist_halo *h;
    int32_t *rp, *col, *in_list, *bd_list, *send_local;
    float *val, *xloc, *sendbuf, *yloc;
    cudaStream_t comp, comm;
    cudaEvent_t halo_in;
};

extern "C" nnc_status nnc_gpu_spmm_multi_f32(const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y, int ndev,
                                             char *err, size_t errlen)
{
    nnc_status st = NNC_STATUS_OK;
    int count = 0;
    std::vector<nnc_gpu_dev_part> P;
    std::vector<ncclComm_t> comms;
    std::vector<int> devs;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    if (ndev < 1 || ndev > count)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "%d devices requested, %d present", ndev, count);
    P.assign((size_t)ndev, nnc_gpu_dev_part());
    comms.assign((size_t)ndev, (ncclComm_t)NULL);
    for (int d = 0; d < ndev; d++) devs.push_back(d);
    for (int d = 0; d < ndev; d++) {
        nnc_gpu_dev_part &p = P[d];
        p.h = nnc_dist_halo_build(a, d, ndev);
        if (p.h == NULL) {
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            goto done;
        }
        const nnc_dist_halo *h = p.h;
        std::vector<int32_t> sl((size_t)h->send_ptr[ndev] + 1);
        for (int32_t i = 0; i < h->send_ptr[ndev]; i++) sl[i] = h->send_rows[i] - h->r0[d];
        NNC_CUDA_CHECK_GOTO(cudaSetDevice(d), done);
        NNC_CUDA_CHECK_GOTO(cudaStreamCreate(&p.comp), done);
        NNC_CUDA_CHECK_GOTO(cudaStreamCreate(&p.comm), done);
        NNC_CUDA_CHECK_GOTO(cudaEventCreateWithFlags(&p.halo_in, cudaEventDisableTiming), done);
        NNC_CUDA_CHECK_GOTO(upload(&p.rp, h->local.row_ptr, (size_t)h->nown + 1), done);
        NNC_CUDA_CHECK_GOTO(upload(&p.col, h->local.col, (size_t)h->local.nnz), done);
        NNC_CUDA_CHECK_GOTO(upload(&p.val, h->local.val, (size_t)h->local.nnz), done);
        NNC_CUDA_CHECK_GOTO(upload(&p.in_list, h->interior, (size_t)h->ninterior), done);
        NNC_CUDA_CHECK_GOTO(upload(&p.bd_list, h->boundary, (size_t)h->nboundary), done);
        NNC_CUDA_CHECK_GOTO(upload(&p.send_local, sl.data(), (size_t)h->send_ptr[ndev]), done);
        // each device receives only its own rows of X
        NNC_CUDA_CHECK_GOTO(cudaMalloc(&p.xloc, ((size_t)(h->nown + h->nhalo) * (size_t)F + 1) * sizeof(float)), done);
        NNC_CUDA_CHECK_GOTO(cudaMalloc(&p.sendbuf, ((size_t)h->send_ptr[ndev] * (size_t)F + 1) * sizeof(float)), done);
        NNC_CUDA_CHECK_GOTO(cudaMalloc(&p.yloc, ((size_t)h->nown * (size_t)F + 1) * sizeof(float)), done);
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(p.xloc, x + (size_t)h->r0[d] * F, (size_t)h->nown * F * sizeof(float),
                                  cudaMemcpyHostToDevice), done);
    }
    NNC_NCCL_CHECK(ncclCommInitAll(comms.data(), ndev, devs.data()));
    // pack the rows peers need, on the communication streams
    for (int d = 0; d < ndev; d++) {
        nnc_gpu_dev_part &p = P[d];
        int64_t n = (int64_t)p.h->send_ptr[ndev] * F;
        NNC_CUDA_CHECK_GOTO(cudaSetDevice(d), done);
        if (n) pack_kernel<<<(unsigned)((n + 255) / 256), 256, 0, p.comm>>>(p.send_local, p.h->send_ptr[ndev], p.xloc, F, p.sendbuf);
        NNC_CUDA_CHECK_GOTO(cudaGetLastError(), done);
    }
    // halo exchange (communication streams) ...
    NNC_NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < ndev; d++) {
        const nnc_dist_halo *h = P[d].h;
        for (int q = 0; q < ndev; q++) {
            size_t ns = (size_t)(h->send_ptr[q + 1] - h->send_ptr[q]) * F, nr = (size_t)(h->recv_ptr[q + 1] - h->recv_ptr[q]) * F;
            if (ns) NNC_NCCL_CHECK(ncclSend(P[d].sendbuf + (size_t)h->send_ptr[q] * F, ns, ncclFloat, q, comms[d], P[d].comm));
            if (nr)
                NNC_NCCL_CHECK(ncclRecv(P[d].xloc + (size_t)(h->nown + h->recv_ptr[q]) * F, nr, ncclFloat, q, comms[d], P[d].comm));
        }
    }
    NNC_NCCL_CHECK(ncclGroupEnd());
    // ... while the interior rows aggregate (compute streams); then the boundary rows
    for (int d = 0; d < ndev; d++) {
        nnc_gpu_dev_part &p = P[d];
        const nnc_dist_halo *h = p.h;
        NNC_CUDA_CHECK_GOTO(cudaSetDevice(d), done);
        if (h->ninterior)
            csr_rows_kernel<<<(unsigned)(((int64_t)h->ninterior * 32 + 127) / 128), 128, 0, p.comp>>>(
                p.rp, p.col, p.val, p.in_list, h->ninterior, p.xloc, F, p.yloc);
        NNC_CUDA_CHECK_GOTO(cudaGetLastError(), done);
        NNC_CUDA_CHECK_GOTO(cudaEventRecord(p.halo_in, p.comm), done);
        NNC_CUDA_CHECK_GOTO(cudaStreamWaitEvent(p.comp, p.halo_in, 0), done);
        if (h->nboundary)
            csr_rows_kernel<<<(unsigned)(((int64_t)h->nboundary * 32 + 127) / 128), 128, 0, p.comp>>>(
                p.rp, p.col, p.val, p.bd_list, h->nboundary, p.xloc, F, p.yloc);
        NNC_CUDA_CHECK_GOTO(cudaGetLastError(), done);
        NNC_CUDA_CHECK_GOTO(cudaMemcpyAsync(y + (size_t)h->r0[d] * F, p.yloc, (size_t)h->nown * F * sizeof(float),
                                       cudaMemcpyDeviceToHost, p.comp), done);
    }
    for (int d = 0; d < ndev; d++) {
        NNC_CUDA_CHECK_GOTO(cudaSetDevice(d), done);
        NNC_CUDA_CHECK_GOTO(cudaStreamSynchronize(P[d].comp), done);
    }
done:
    for (int d = 0; d < (int)P.size(); d++) {
        nnc_gpu_dev_part &p = P[d];
        cudaSetDevice(d);
        if (comms[d]) ncclCommDestroy(comms[d]);
        cudaFree(p.rp); cudaFree(p.col); cudaFree(p.val); cudaFree(p.in_list); cudaFree(p.bd_list);
        cudaFree(p.send_local); cudaFree(p.xloc); cudaFree(p.sendbuf); cudaFree(p.yloc);
        if (p.comp) cudaStreamDestroy(p.comp);
        if (p.comm) cudaStreamDestroy(p.comm);
        if (p.halo_in) cudaEventDestroy(p.halo_in);
        nnc_dist_halo_free(p.h);
    }
    return st;
}
