// NTT over Fr on the GPU, with the field formulas of prover/field_impl.h
// and the conventions of prover/ntt_impl.h (natural order in and out,
// root w_n = 5^((r-1)/2^28) squared down, inverse = forward then
// A_i <- A_(-i mod n) / n, default coset shift w_(2n)), so the results are
// the CPU's byte for byte.
//
// Steps: (coset: a_j *= g^j) -> bit-reversal copy -> the first
// min(log n, 10) stages of every 1024-element block in shared memory ->
// each remaining stage as one kernel (one thread per butterfly) ->
// (inverse: reorder and scale) -> (inverse coset: a_j *= g^-j).
// Powers x^j (twiddles, coset factors) come from two host tables,
// x^j = lo[j mod 1024] * hi[j / 1024], so the host does ~1024 + n/1024
// products and the device one per element.
#include "nncert/gpu.h"
#include "gpu/cuda_check_impl.h"
#include "prover/ntt_impl.h"

#include <cuda_runtime.h>
#include <vector>

namespace {

struct dev_buf {
    void *p = nullptr;
    dev_buf() = default;
    dev_buf(const dev_buf &) = delete;
    dev_buf &operator=(const dev_buf &) = delete;
    ~dev_buf() { if (p) cudaFree(p); }
    nnc_fr *fr() const { return static_cast<nnc_fr *>(p); }
};

const unsigned kThreads = 256;
const int kSharedLog = 10; /* stages done in shared memory: blocks of 2^10 elements, 32 KiB */

unsigned blocks_for(size_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

/* Power tables of x for exponents < count: lo[i] = x^i (i < 1024),
 * hi[i] = x^(1024 i) (i < ceil(count / 1024)). */
void pow_tables(std::vector<nnc_fr> &lo, std::vector<nnc_fr> &hi, const nnc_fr &x, size_t count)
{
    size_t nh = (count + 1023) / 1024;
    nnc_fr t;
    lo.resize(1024);
    hi.resize(nh ? nh : 1);
    nnc_fr_set_one(&lo[0]);
    for (size_t i = 1; i < 1024; i++) nnc_fr_mul(&lo[i], &lo[i - 1], &x);
    nnc_fr_mul(&t, &lo[1023], &x); /* x^1024 */
    nnc_fr_set_one(&hi[0]);
    for (size_t i = 1; i < hi.size(); i++) nnc_fr_mul(&hi[i], &hi[i - 1], &t);
}

// out[j] = x^j for j < count.
__global__ void k_pow_fill(nnc_fr *out, const nnc_fr *lo, const nnc_fr *hi, size_t count)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    nnc_fr a = lo[j & 1023], b = hi[j >> 10];
    nnc_fr_mul(&out[j], &a, &b);
}

// a[j] *= x^j for j < n.
__global__ void k_mul_pow(nnc_fr *a, const nnc_fr *lo, const nnc_fr *hi, size_t n)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    nnc_fr x = lo[j & 1023], y = hi[j >> 10], v = a[j];
    nnc_fr_mul(&x, &x, &y);
    nnc_fr_mul(&a[j], &v, &x);
}

// tw[t] for 1 <= t < n/2 from the top stage tw[n/2 + j] = w_n^j:
// tw[h + j] = w_(2h)^j = w_n^(j n / (2h)).
__global__ void k_tw_lower(nnc_fr *tw, size_t n)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t == 0 || t >= n / 2) return;
    size_t h = 1;
    while (2 * h <= t) h *= 2;
    tw[t] = tw[n / 2 + (t - h) * (n / (2 * h))];
}

__global__ void k_bitrev(nnc_fr *out, const nnc_fr *in, size_t n, int m)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[nnc_ntt_bitrev(i, m)] = in[i];
}

// Stages with half-span 1 .. 2^(lb-1) on each block of 2^lb elements; 2^(lb-1) threads per block.
__global__ void k_stages_shared(nnc_fr *a, const nnc_fr *tw, int lb)
{
    __shared__ nnc_fr sh[1 << kSharedLog];
    const size_t L = (size_t)1 << lb, half = L / 2, base = (size_t)blockIdx.x * L;
    const size_t t = threadIdx.x;
    sh[t] = a[base + t];
    sh[t + half] = a[base + t + half];
    __syncthreads();
    for (size_t h = 1; h < L; h *= 2) {
        size_t j = t & (h - 1), i0 = 2 * (t - j) + j;
        nnc_fr w = tw[h + j];
        nnc_ntt_butterfly(&sh[i0], &sh[i0 + h], &w);
        __syncthreads();
    }
    a[base + t] = sh[t];
    a[base + t + half] = sh[t + half];
}

// One stage of half-span h: thread k < n/2 does one butterfly.
__global__ void k_stage(nnc_fr *a, const nnc_fr *tw, size_t n, size_t h)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n / 2) return;
    size_t j = k & (h - 1), i0 = 2 * (k - j) + j;
    nnc_fr w = tw[h + j];
    nnc_ntt_butterfly(&a[i0], &a[i0 + h], &w);
}

// out[i] = in[-i mod n] / n.
__global__ void k_inv_fix(nnc_fr *out, const nnc_fr *in, size_t n, nnc_fr ninv)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    nnc_fr v = in[(n - i) & (n - 1)];
    nnc_fr_mul(&out[i], &v, &ninv);
}

nnc_status gpu_ntt(nnc_fr *a, size_t n, int inverse, int coset, const nnc_fr *shift, char *err, size_t errlen)
{
    int m = nnc_ntt_log2(n);
    if (m < 0) return nnc_err(err, errlen, NNC_STATUS_INVALID, "GPU NTT: size %zu is not a power of two", n);
    if (m > NNC_PRV_NTT_MAX_LOG || (coset && !shift && m + 1 > NNC_PRV_NTT_MAX_LOG))
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "GPU NTT: size %zu exceeds the field's 2-adicity", n);
    nnc_fr g;
    if (coset) {
        if (shift && nnc_fr_is_zero(shift)) return nnc_err(err, errlen, NNC_STATUS_INVALID, "GPU NTT: zero coset shift");
        if (shift)
            g = *shift;
        else
            nnc_ntt_root_log(&g, m + 1);
        if (inverse) nnc_fr_inv_var(&g, &g);
    }
    if (n == 1) return NNC_STATUS_OK;

    const size_t bytes = n * sizeof(nnc_fr);
    std::vector<nnc_fr> lo, hi;
    dev_buf d_a, d_b, d_tw, d_lo, d_hi, d_glo, d_ghi;
    NNC_CUDA_CHECK(cudaMalloc(&d_a.p, bytes));
    NNC_CUDA_CHECK(cudaMalloc(&d_b.p, bytes));
    NNC_CUDA_CHECK(cudaMalloc(&d_tw.p, bytes));
    NNC_CUDA_CHECK(cudaMemcpy(d_a.p, a, bytes, cudaMemcpyHostToDevice));

    /* twiddles: top stage w_n^j, then the lower stages from it */
    nnc_fr w;
    nnc_ntt_root_log(&w, m);
    pow_tables(lo, hi, w, n / 2);
    NNC_CUDA_CHECK(cudaMalloc(&d_lo.p, lo.size() * sizeof(nnc_fr)));
    NNC_CUDA_CHECK(cudaMalloc(&d_hi.p, hi.size() * sizeof(nnc_fr)));
    NNC_CUDA_CHECK(cudaMemcpy(d_lo.p, lo.data(), lo.size() * sizeof(nnc_fr), cudaMemcpyHostToDevice));
    NNC_CUDA_CHECK(cudaMemcpy(d_hi.p, hi.data(), hi.size() * sizeof(nnc_fr), cudaMemcpyHostToDevice));
    k_pow_fill<<<blocks_for(n / 2), kThreads>>>(d_tw.fr() + n / 2, d_lo.fr(), d_hi.fr(), n / 2);
    NNC_CUDA_CHECK(cudaGetLastError());
    k_tw_lower<<<blocks_for(n / 2), kThreads>>>(d_tw.fr(), n);
    NNC_CUDA_CHECK(cudaGetLastError());

    if (coset) {
        pow_tables(lo, hi, g, n);
        NNC_CUDA_CHECK(cudaMalloc(&d_glo.p, lo.size() * sizeof(nnc_fr)));
        NNC_CUDA_CHECK(cudaMalloc(&d_ghi.p, hi.size() * sizeof(nnc_fr)));
        NNC_CUDA_CHECK(cudaMemcpy(d_glo.p, lo.data(), lo.size() * sizeof(nnc_fr), cudaMemcpyHostToDevice));
        NNC_CUDA_CHECK(cudaMemcpy(d_ghi.p, hi.data(), hi.size() * sizeof(nnc_fr), cudaMemcpyHostToDevice));
        if (!inverse) {
            k_mul_pow<<<blocks_for(n), kThreads>>>(d_a.fr(), d_glo.fr(), d_ghi.fr(), n);
            NNC_CUDA_CHECK(cudaGetLastError());
        }
    }

    k_bitrev<<<blocks_for(n), kThreads>>>(d_b.fr(), d_a.fr(), n, m);
    NNC_CUDA_CHECK(cudaGetLastError());
    const int lb = m < kSharedLog ? m : kSharedLog;
    k_stages_shared<<<(unsigned)(n >> lb), 1u << (lb - 1)>>>(d_b.fr(), d_tw.fr(), lb);
    NNC_CUDA_CHECK(cudaGetLastError());
    for (size_t h = (size_t)1 << lb; h < n; h *= 2) {
        k_stage<<<blocks_for(n / 2), kThreads>>>(d_b.fr(), d_tw.fr(), n, h);
        NNC_CUDA_CHECK(cudaGetLastError());
    }
    nnc_fr *res = d_b.fr();
    if (inverse) {
        nnc_fr ninv;
        nnc_fr_set_u64(&ninv, (uint64_t)n);
        nnc_fr_inv_var(&ninv, &ninv);
        k_inv_fix<<<blocks_for(n), kThreads>>>(d_a.fr(), d_b.fr(), n, ninv);
        NNC_CUDA_CHECK(cudaGetLastError());
        res = d_a.fr();
        if (coset) {
            k_mul_pow<<<blocks_for(n), kThreads>>>(res, d_glo.fr(), d_ghi.fr(), n);
            NNC_CUDA_CHECK(cudaGetLastError());
        }
    }
    NNC_CUDA_CHECK(cudaMemcpy(a, res, bytes, cudaMemcpyDeviceToHost));
    return NNC_STATUS_OK;
}

} // namespace

extern "C" nnc_status nnc_gpu_ntt(nnc_prv_fr *a, size_t n, int inverse, char *err, size_t errlen)
{
    return gpu_ntt(a, n, inverse != 0, 0, nullptr, err, errlen);
}

extern "C" nnc_status nnc_gpu_coset_ntt(nnc_prv_fr *a, size_t n, int inverse, const nnc_prv_fr *shift, char *err,
                                        size_t errlen)
{
    return gpu_ntt(a, n, inverse != 0, 1, shift, err, errlen);
}
