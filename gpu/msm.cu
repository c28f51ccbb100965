// Multi-scalar multiplication on the GPU for BN254 G1 and G2, with the same
// inline field/curve formulas (prover/curve_impl.h) and the same Booth
// recoding (prover/msm_impl.h) as the CPU path in prover/msm.c.
//
// Pippenger by sorting (one pass for all windows):
//   1. scalars -> canonical integers (in place on the device);
//   2. for every (window w, point i): key = w (h + 1) + |d_w(k_i)|,
//      value = i | sign << 31  (h = 2^(c-1) buckets; bucket 0 = digit 0);
//   3. radix-sort the pairs by key (CUB), run-length encode the keys;
//   4. one thread per run sums its points (mixed Jacobian + affine
//      additions) into bucket[key];
//   5. per window, NNC_GPU_MSM_SEGS-style segments of buckets reduced in
//      parallel: a segment [lo, hi] gives sum_b (b - lo + 1) B_b and
//      sum_b B_b by running sums, then adds (lo - 1) sum_b B_b;
//   6. one thread per window adds its segments; the host combines the
//      window sums by Horner (c doublings each) and normalises with the
//      same formulas as the CPU, so results are byte-identical.
// Load balance: a run is summed by one thread, so scalars concentrated on
// few digits (all equal, say) make one thread do many additions: correct,
// slower.  Every CUDA call goes through NNC_CUDA_CHECK; device buffers are
// released by dev_buf's destructor on every return path.
#include "nncert/gpu.h"
#include "gpu/cuda_check_impl.h"
#include "prover/msm_impl.h"

#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <limits.h>
#include <string.h>

namespace {

// A device allocation freed when it goes out of scope.
struct dev_buf {
    void *p = nullptr;
    dev_buf() = default;
    dev_buf(const dev_buf &) = delete;
    dev_buf &operator=(const dev_buf &) = delete;
    ~dev_buf() { if (p) cudaFree(p); }
    template <class T> T *as() const { return static_cast<T *>(p); }
};

// Group traits: the curve_impl.h functions for one group.
struct g1_ops {
    typedef nnc_g1 aff;
    typedef nnc_g1_jac jac;
    static __host__ __device__ void set_inf(jac *r) { nnc_g1_jac_set_inf(r); }
    static __host__ __device__ int is_inf(const jac *a) { return nnc_g1_jac_is_inf(a); }
    static __host__ __device__ void add(jac *r, const jac *a, const jac *b) { nnc_g1_jac_add_var(r, a, b); }
    static __host__ __device__ void add_aff(jac *r, const jac *a, const aff *b) { nnc_g1_jac_add_aff_var(r, a, b); }
    static __host__ __device__ void dbl(jac *r, const jac *a) { nnc_g1_jac_dbl(r, a); }
    static __host__ __device__ void neg_aff(aff *r, const aff *a) { nnc_g1_aff_neg(r, a); }
    static __host__ void to_aff(aff *r, const jac *a) { nnc_g1_jac_to_aff_var(r, a); }
};
struct g2_ops {
    typedef nnc_g2 aff;
    typedef nnc_g2_jac jac;
    static __host__ __device__ void set_inf(jac *r) { nnc_g2_jac_set_inf(r); }
    static __host__ __device__ int is_inf(const jac *a) { return nnc_g2_jac_is_inf(a); }
    static __host__ __device__ void add(jac *r, const jac *a, const jac *b) { nnc_g2_jac_add_var(r, a, b); }
    static __host__ __device__ void add_aff(jac *r, const jac *a, const aff *b) { nnc_g2_jac_add_aff_var(r, a, b); }
    static __host__ __device__ void dbl(jac *r, const jac *a) { nnc_g2_jac_dbl(r, a); }
    static __host__ __device__ void neg_aff(aff *r, const aff *a) { nnc_g2_aff_neg(r, a); }
    static __host__ void to_aff(aff *r, const jac *a) { nnc_g2_jac_to_aff_var(r, a); }
};

const unsigned kThreads = 256;

unsigned blocks_for(size_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

// ks[i] = canonical integer of sc[i]; ks may alias sc (same 32-byte slots).
__global__ void k_to_int(uint64_t *ks, const nnc_fr *sc, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    nnc_fr s = sc[i];
    uint64_t x[4];
    nnc_fr_to_int(x, &s);
    for (int j = 0; j < 4; j++) ks[4 * i + j] = x[j];
}

// keys[w n + i] = w (h + 1) + |d|, vals[w n + i] = i | (d < 0) << 31.
__global__ void k_digits(uint32_t *keys, uint32_t *vals, const uint64_t *ks, size_t n, int c, int nwin)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t k[4] = {ks[4 * i], ks[4 * i + 1], ks[4 * i + 2], ks[4 * i + 3]};
    uint32_t hp1 = (1u << (c - 1)) + 1;
    for (int w = 0; w < nwin; w++) {
        int d = nnc_msm_digit(k, w, c);
        uint32_t mag = (uint32_t)(d < 0 ? -d : d);
        keys[(size_t)w * n + i] = (uint32_t)w * hp1 + mag;
        vals[(size_t)w * n + i] = (uint32_t)i | (d < 0 ? 0x80000000u : 0u);
    }
}

template <class G> __global__ void k_set_inf(typename G::jac *b, size_t m)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) G::set_inf(&b[i]);
}

// One thread per run of equal keys: bucket[key] = sum of its signed points.
template <class G>
__global__ void k_bucket_sum(typename G::jac *bk, const typename G::aff *pts, const uint32_t *ukeys,
                             const uint32_t *offs, const uint32_t *cnts, uint32_t nruns, const uint32_t *vals,
                             uint32_t hp1)
{
    uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nruns) return;
    uint32_t key = ukeys[r];
    if (key % hp1 == 0) return; /* digit 0 */
    typename G::jac acc;
    typename G::aff p;
    G::set_inf(&acc);
    for (uint32_t j = offs[r], e = offs[r] + cnts[r]; j < e; j++) {
        uint32_t v = vals[j];
        p = pts[v & 0x7fffffffu];
        if (v >> 31) G::neg_aff(&p, &p);
        G::add_aff(&acc, &acc, &p);
    }
    bk[key] = acc;
}

// Thread t = (window w, segment s) of segs per window: buckets lo..hi of
// window w; part[t] = sum_{b=lo..hi} b B_b.
template <class G>
__global__ void k_bucket_reduce(typename G::jac *part, const typename G::jac *bk, int nwin, uint32_t h, int segs)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nwin * segs) return;
    int w = t / segs, s = t % segs;
    uint32_t len = (h + (uint32_t)segs - 1) / (uint32_t)segs;
    uint32_t lo = 1 + (uint32_t)s * len, hi = lo + len - 1;
    typename G::jac run, acc, m;
    G::set_inf(&run);
    G::set_inf(&acc);
    if (hi > h) hi = h;
    if (lo > h) {
        part[t] = acc;
        return;
    }
    const typename G::jac *b = bk + (size_t)w * (h + 1);
    for (uint32_t i = hi; i >= lo; i--) {
        G::add(&run, &run, &b[i]);
        G::add(&acc, &acc, &run); /* acc = sum (i - lo + 1) B_i */
    }
    /* acc += (lo - 1) run, double-and-add from the top bit */
    uint32_t k = lo - 1;
    G::set_inf(&m);
    for (int bit = 31; bit >= 0; bit--) {
        if (!G::is_inf(&m)) G::dbl(&m, &m);
        if ((k >> bit) & 1) G::add(&m, &m, &run);
    }
    G::add(&acc, &acc, &m);
    part[t] = acc;
}

template <class G> __global__ void k_window_sum(typename G::jac *ws, const typename G::jac *part, int nwin, int segs)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nwin) return;
    typename G::jac acc;
    G::set_inf(&acc);
    for (int s = 0; s < segs; s++) G::add(&acc, &acc, &part[w * segs + s]);
    ws[w] = acc;
}

// Window width on the device: wider than the CPU's (more buckets, more
// parallel runs), 16 from 2^18 points on.
int gpu_window(size_t n)
{
    int lg = 0;
    while (lg < 62 && ((size_t)1 << (lg + 1)) <= n) lg++;
    int c = lg - 2;
    return c < 4 ? 4 : c > 16 ? 16 : c;
}

template <class G>
nnc_status gpu_msm(typename G::aff *out, const typename G::aff *points, const nnc_prv_fr *scalars, size_t n,
                   char *err, size_t errlen)
{
    typedef typename G::jac jac;
    typedef typename G::aff aff;
    if (n == 0) {
        memset(out, 0, sizeof *out);
        return NNC_STATUS_OK;
    }
    const int c = gpu_window(n), nwin = NNC_MSM_NWIN(c);
    const uint32_t h = 1u << (c - 1), hp1 = h + 1;
    const size_t items = n * (size_t)nwin, nbk = (size_t)nwin * hp1;
    if (n > 0x7fffffffu || items > (size_t)INT_MAX)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "GPU MSM: %zu points x %d windows exceed %d sort items", n,
                       nwin, INT_MAX);
    int end_bit = 1;
    while (end_bit < 32 && ((size_t)1 << end_bit) < nbk) end_bit++;
    const int segs_max = (int)(h < 512 ? h : 512);
    int segs = (int)((16384 + nwin - 1) / nwin); /* enough threads to fill the device */
    if (segs > segs_max) segs = segs_max;
    if (segs < 1) segs = 1;
    const size_t maxruns = items < nbk ? items : nbk;

    dev_buf d_pts, d_ks, d_keys, d_keys2, d_vals, d_vals2, d_ukeys, d_cnts, d_offs, d_nruns, d_bk, d_part, d_ws,
        d_tmp;
    NNC_CUDA_CHECK(cudaMalloc(&d_pts.p, n * sizeof(aff)));
    NNC_CUDA_CHECK(cudaMalloc(&d_ks.p, n * sizeof(nnc_fr)));
    NNC_CUDA_CHECK(cudaMalloc(&d_keys.p, items * sizeof(uint32_t)));
    NNC_CUDA_CHECK(cudaMalloc(&d_keys2.p, items * sizeof(uint32_t)));
    NNC_CUDA_CHECK(cudaMalloc(&d_vals.p, items * sizeof(uint32_t)));
    NNC_CUDA_CHECK(cudaMalloc(&d_vals2.p, items * sizeof(uint32_t)));
    NNC_CUDA_CHECK(cudaMalloc(&d_ukeys.p, maxruns * sizeof(uint32_t)));
    NNC_CUDA_CHECK(cudaMalloc(&d_cnts.p, maxruns * sizeof(uint32_t)));
    NNC_CUDA_CHECK(cudaMalloc(&d_offs.p, maxruns * sizeof(uint32_t)));
    NNC_CUDA_CHECK(cudaMalloc(&d_nruns.p, sizeof(int)));
    NNC_CUDA_CHECK(cudaMalloc(&d_bk.p, nbk * sizeof(jac)));
    NNC_CUDA_CHECK(cudaMalloc(&d_part.p, (size_t)nwin * segs * sizeof(jac)));
    NNC_CUDA_CHECK(cudaMalloc(&d_ws.p, (size_t)nwin * sizeof(jac)));

    NNC_CUDA_CHECK(cudaMemcpy(d_pts.p, points, n * sizeof(aff), cudaMemcpyHostToDevice));
    NNC_CUDA_CHECK(cudaMemcpy(d_ks.p, scalars, n * sizeof(nnc_fr), cudaMemcpyHostToDevice));
    k_to_int<<<blocks_for(n), kThreads>>>(d_ks.as<uint64_t>(), d_ks.as<nnc_fr>(), n);
    NNC_CUDA_CHECK(cudaGetLastError());
    k_digits<<<blocks_for(n), kThreads>>>(d_keys.as<uint32_t>(), d_vals.as<uint32_t>(), d_ks.as<uint64_t>(), n, c,
                                          nwin);
    NNC_CUDA_CHECK(cudaGetLastError());
    k_set_inf<G><<<blocks_for(nbk), kThreads>>>(d_bk.as<jac>(), nbk);
    NNC_CUDA_CHECK(cudaGetLastError());

    /* sort by key, then runs of equal keys and their offsets */
    size_t b1 = 0, b2 = 0, b3 = 0;
    NNC_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, b1, d_keys.as<uint32_t>(), d_keys2.as<uint32_t>(),
                                                   d_vals.as<uint32_t>(), d_vals2.as<uint32_t>(), (int)items, 0,
                                                   end_bit));
    NNC_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, b2, d_keys2.as<uint32_t>(), d_ukeys.as<uint32_t>(),
                                                      d_cnts.as<uint32_t>(), d_nruns.as<int>(), (int)items));
    NNC_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, b3, d_cnts.as<uint32_t>(), d_offs.as<uint32_t>(),
                                                 (int)maxruns));
    size_t tb = b1 > b2 ? b1 : b2;
    if (b3 > tb) tb = b3;
    NNC_CUDA_CHECK(cudaMalloc(&d_tmp.p, tb));
    NNC_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(d_tmp.p, b1, d_keys.as<uint32_t>(), d_keys2.as<uint32_t>(),
                                                   d_vals.as<uint32_t>(), d_vals2.as<uint32_t>(), (int)items, 0,
                                                   end_bit));
    NNC_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(d_tmp.p, b2, d_keys2.as<uint32_t>(), d_ukeys.as<uint32_t>(),
                                                      d_cnts.as<uint32_t>(), d_nruns.as<int>(), (int)items));
    int nruns = 0;
    NNC_CUDA_CHECK(cudaMemcpy(&nruns, d_nruns.p, sizeof(int), cudaMemcpyDeviceToHost));
    if (nruns <= 0 || (size_t)nruns > maxruns)
        return nnc_err(err, errlen, NNC_STATUS_DEVICE, "GPU MSM: %d runs of bucket keys (expected 1..%zu)",
                       nruns, maxruns);
    NNC_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(d_tmp.p, b3, d_cnts.as<uint32_t>(), d_offs.as<uint32_t>(), nruns));

    k_bucket_sum<G><<<blocks_for((size_t)nruns), kThreads>>>(d_bk.as<jac>(), d_pts.as<aff>(), d_ukeys.as<uint32_t>(),
                                                            d_offs.as<uint32_t>(), d_cnts.as<uint32_t>(),
                                                            (uint32_t)nruns, d_vals2.as<uint32_t>(), hp1);
    NNC_CUDA_CHECK(cudaGetLastError());
    k_bucket_reduce<G><<<blocks_for((size_t)nwin * segs), kThreads>>>(d_part.as<jac>(), d_bk.as<jac>(), nwin, h,
                                                                      segs);
    NNC_CUDA_CHECK(cudaGetLastError());
    k_window_sum<G><<<blocks_for((size_t)nwin), kThreads>>>(d_ws.as<jac>(), d_part.as<jac>(), nwin, segs);
    NNC_CUDA_CHECK(cudaGetLastError());

    jac ws[NNC_MSM_NWIN(4)], r; /* c >= 4 */
    NNC_CUDA_CHECK(cudaMemcpy(ws, d_ws.p, (size_t)nwin * sizeof(jac), cudaMemcpyDeviceToHost));
    G::set_inf(&r);
    for (int w = nwin - 1; w >= 0; w--) {
        if (!G::is_inf(&r))
            for (int t = 0; t < c; t++) G::dbl(&r, &r);
        G::add(&r, &r, &ws[w]);
    }
    G::to_aff(out, &r);
    return NNC_STATUS_OK;
}

} // namespace

extern "C" nnc_status nnc_gpu_g1_msm(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n,
                                     char *err, size_t errlen)
{
    return gpu_msm<g1_ops>(out, points, scalars, n, err, errlen);
}

extern "C" nnc_status nnc_gpu_g2_msm(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n,
                                     char *err, size_t errlen)
{
    return gpu_msm<g2_ops>(out, points, scalars, n, err, errlen);
}
