// Batched beta-CROWN passes on the device (nncert/gpu.h, "Verifier: batched
// beta-CROWN passes"): the passes of verifier/babdense.c for a dense ReLU
// chain, on many items at once.  The layers' products are cuBLAS GEMMs
// (float64 for the sound bound, float32 for the optimisation); everything
// between them is a kernel over the items whose per-element formulas are
// those of verifier/bab_math.h, which the CPU passes call too.  Per-item
// sums are block reductions in a fixed order, so a pass gives the same
// numbers every time on one device.
//
// Every CUDA and cuBLAS call goes through NNC_CUDA_CHECK_GOTO / B_BLAS,
// which record the call, file and line in the caller's err buffer.
#include "nncert/gpu.h"
#include "gpu/cuda_check_impl.h"
#include "verifier/bab_math.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <mutex>
#include <new>
#include <stdlib.h>
#include <string.h>

#define B_BLAS(call) NNC_CUBLAS_CHECK_GOTO(call, fail)

#define B_THREADS 256 // per block; a power of two (block_sum)
#define B_GROUP 2048  // items bounded together: the pass's buffers hold this many

namespace {

struct dbuf {
    void *p = nullptr;
    size_t cap = 0;
};

// b holds at least `bytes` (its contents are not kept).
cudaError_t reserve(dbuf *b, size_t bytes)
{
    if (bytes <= b->cap && b->p) return cudaSuccess;
    cudaFree(b->p);
    b->p = nullptr;
    b->cap = 0;
    cudaError_t e = cudaMalloc(&b->p, bytes ? bytes : 1);
    if (e == cudaSuccess) b->cap = bytes;
    return e;
}

// One sub-problem's data on the device (NNC_GPU_BAB_BND_BYTES, then the
// splits at an 8-byte boundary).
struct dview {
    const double *rl, *rh, *au, *bu;
    const float *auf, *buf;
    const signed char *state, *split;
};

__device__ dview dom_view(const unsigned char *dom, size_t dstride, size_t bnd_bytes, int64_t nr, int d)
{
    const unsigned char *p = dom + (size_t)d * dstride;
    size_t n = (size_t)nr + 1;
    dview v;
    v.rl = (const double *)p;
    v.rh = v.rl + n;
    v.au = v.rl + 2 * n;
    v.bu = v.rl + 3 * n;
    v.auf = (const float *)(v.rl + 4 * n);
    v.buf = v.auf + n;
    v.state = (const signed char *)(v.auf + 2 * n);
    v.split = (const signed char *)(p + bnd_bytes);
    return v;
}

// The sum of every thread's v over the block, in a fixed order (sh:
// B_THREADS entries of shared memory).
template <typename T> __device__ T block_sum(T v, T *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = B_THREADS / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    T r = sh[0];
    __syncthreads();
    return r;
}

unsigned blocks_for(size_t n) { return (unsigned)((n + B_THREADS - 1) / B_THREADS); }

// ---- the sound pass (float64), as babdense.c's backward ----

// mu = the objective rows' coefficients; the sums start at 0.
__global__ void k_rows_d(const nnc_gpu_bab_item *it, const double *C, int n_out, int N, double *mu, double *cst,
                         double *err, double *aux)
{
    int i = blockIdx.x;
    const double *c = C + (size_t)it[i].row * (size_t)n_out;
    for (int j = threadIdx.x; j < N; j += B_THREADS) mu[(size_t)i * N + j] = c[j];
    if (threadIdx.x == 0) cst[i] = err[i] = aux[i] = 0;
}

// A neuron bound's first step: lam = sgn W[:, nj] (exact), the bias and the
// neuron's error weight.
__global__ void k_col_d(const nnc_gpu_bab_item *it, const double *w, const double *b, int K, int N, const double *ew,
                        double *lam, double *cst, double *err, double *aux)
{
    int i = blockIdx.x, j = it[i].nj;
    double sg = it[i].sgn;
    for (int q = threadIdx.x; q < K; q += B_THREADS) lam[(size_t)i * K + q] = sg * w[(size_t)q * N + j];
    if (threadIdx.x == 0) {
        double cb = sg * b[j];
        cst[i] = cb;
        aux[i] = fabs(cb);
        err[i] = ew[j];
    }
}

// The layer's bias and error weights against mu.
__global__ void k_bias_d(int N, const double *mu, const double *b, const double *ew, double *cst, double *err,
                         double *aux)
{
    __shared__ double sh[B_THREADS];
    int i = blockIdx.x;
    const double *m = mu + (size_t)i * N;
    double cb = 0, er = 0;
    for (int j = threadIdx.x; j < N; j += B_THREADS) {
        cb += m[j] * b[j];
        er += fabs(m[j]) * ew[j];
    }
    cb = block_sum(cb, sh);
    er = block_sum(er, sh);
    if (threadIdx.x == 0) {
        cst[i] += cb;
        aux[i] += fabs(cb);
        err[i] += er;
    }
}

// The least of lam . x over the box.
__global__ void k_conc_d(int K, const double *lam, const double *lo, const double *hi, const double *xmag,
                         double *cst, double *aux)
{
    __shared__ double sh[B_THREADS];
    int i = blockIdx.x;
    const double *lm = lam + (size_t)i * K;
    double c = 0, ca = 0;
    for (int j = threadIdx.x; j < K; j += B_THREADS) {
        double x = lm[j] >= 0 ? lo[j] : hi[j];
        c += lm[j] * x;
        ca += fabs(lm[j]) * xmag[j];
    }
    c = block_sum(c, sh);
    ca = block_sum(ca, sh);
    if (threadIdx.x == 0) {
        cst[i] += c;
        aux[i] += fabs(c) + ca;
    }
}

// The ReLU of the layer whose first neuron is o (K neurons): nnc_bab_back_d.
__global__ void k_relax_d(const nnc_gpu_bab_item *it, const unsigned char *dom, size_t dstride, size_t bnd_bytes,
                          int64_t nr, int64_t o, int K, const float *ab, const double *lam, double *mu, double *cst,
                          double *aux)
{
    __shared__ double sh[B_THREADS];
    int i = blockIdx.x;
    dview D = dom_view(dom, dstride, bnd_bytes, nr, it[i].dom);
    const float *al = ab ? ab + (size_t)i * 2 * (size_t)nr : nullptr, *be = ab ? al + nr : nullptr;
    const double *lm = lam + (size_t)i * K;
    double *m = mu + (size_t)i * K;
    double t = 0, ta = 0;
    for (int j = threadIdx.x; j < K; j += B_THREADS) {
        int64_t f = o + j;
        int s = f == it[i].ovr ? it[i].ovr_side : D.split[f];
        double l = D.rl[f], u = D.rh[f], tb;
        m[j] = nnc_bab_back_d(s, l, u, lm[j], be ? be[f] : 0.0, al ? al[f] : u >= -l ? 1.0 : 0.0, D.au[f], D.bu[f],
                              &tb);
        t += tb;
        ta += fabs(tb);
    }
    t = block_sum(t, sh);
    ta = block_sum(ta, sh);
    if (threadIdx.x == 0) {
        cst[i] += t;
        aux[i] += fabs(t) + ta;
    }
}

__global__ void k_lower(int R, const double *cst, const double *err, const double *aux, double gamma, double *lower)
{
    int i = blockIdx.x * B_THREADS + threadIdx.x;
    if (i < R) lower[i] = nnc_bab_lower(cst[i], err[i], aux[i], gamma);
}

// ---- the estimate (float32), as backward_f; coefficients in lamf (stride ls) ----

__global__ void k_rows_f(const nnc_gpu_bab_item *it, const double *C, int n_out, int N, float *mu, double *cur)
{
    int i = blockIdx.x;
    const double *c = C + (size_t)it[i].row * (size_t)n_out;
    for (int j = threadIdx.x; j < N; j += B_THREADS) mu[(size_t)i * N + j] = (float)c[j];
    if (threadIdx.x == 0) cur[i] = 0;
}

__global__ void k_col_f(const nnc_gpu_bab_item *it, const float *w, const float *b, int K, int N, float *lam,
                        size_t ls, double *cur)
{
    int i = blockIdx.x, j = it[i].nj;
    float sg = it[i].sgn;
    for (int q = threadIdx.x; q < K; q += B_THREADS) lam[(size_t)i * ls + q] = sg * w[(size_t)q * N + j];
    if (threadIdx.x == 0) cur[i] = sg * b[j];
}

__global__ void k_bias_f(int N, const float *mu, const float *b, double *cur)
{
    __shared__ float sh[B_THREADS];
    int i = blockIdx.x;
    const float *m = mu + (size_t)i * N;
    float cb = 0;
    for (int j = threadIdx.x; j < N; j += B_THREADS) cb += m[j] * b[j];
    cb = block_sum(cb, sh);
    if (threadIdx.x == 0) cur[i] += cb;
}

__global__ void k_conc_f(int K, const float *lam, size_t ls, const float *lo, const float *hi, double *cur)
{
    __shared__ float sh[B_THREADS];
    int i = blockIdx.x;
    const float *lm = lam + (size_t)i * ls;
    float c = 0;
    for (int j = threadIdx.x; j < K; j += B_THREADS) c += lm[j] * (lm[j] >= 0 ? lo[j] : hi[j]);
    c = block_sum(c, sh);
    if (threadIdx.x == 0) cur[i] += c;
}

__global__ void k_relax_f(const nnc_gpu_bab_item *it, const unsigned char *dom, size_t dstride, size_t bnd_bytes,
                          int64_t nr, int64_t o, int K, const float *ab, const float *lam, size_t ls, float *mu,
                          double *cur)
{
    __shared__ float sh[B_THREADS];
    int i = blockIdx.x;
    dview D = dom_view(dom, dstride, bnd_bytes, nr, it[i].dom);
    const float *al = ab + (size_t)i * 2 * (size_t)nr, *be = al + nr;
    const float *lm = lam + (size_t)i * ls;
    float *m = mu + (size_t)i * K;
    float t = 0;
    for (int j = threadIdx.x; j < K; j += B_THREADS) {
        int64_t f = o + j;
        int s = f == it[i].ovr ? it[i].ovr_side : D.split[f];
        float tb;
        m[j] = nnc_bab_back_f(s, D.state[f], lm[j], be[f], al[f], D.auf[f], D.buf[f], &tb);
        t += tb;
    }
    t = block_sum(t, sh);
    if (threadIdx.x == 0) cur[i] += t;
}

__global__ void k_cur_lower(int R, const double *cur, double *lower)
{
    int i = blockIdx.x * B_THREADS + threadIdx.x;
    if (i < R) lower[i] = cur[i] == cur[i] ? cur[i] : -INFINITY;
}

// ---- the gradient (forward_grad) and Adam (optimise_chunk) ----

// x = the box's corner that minimises lam . x
__global__ void k_corner(int R, int n, const float *lam, size_t ls, const float *lo, const float *hi, float *x)
{
    size_t t = (size_t)blockIdx.x * B_THREADS + threadIdx.x;
    if (t >= (size_t)R * (size_t)n) return;
    size_t i = t / (size_t)n;
    int j = (int)(t % (size_t)n);
    x[t] = lam[i * ls + j] >= 0 ? lo[j] : hi[j];
}

// One ReLU layer of the relaxed network at the corner: h, and the gradients
// of its variables (nnc_bab_fwd_f).
__global__ void k_fwd(const nnc_gpu_bab_item *it, const unsigned char *dom, size_t dstride, size_t bnd_bytes,
                      int64_t nr, int64_t o, int N, const float *ab, const float *z, const float *b, const float *lam,
                      size_t ls, float *h, float *gr)
{
    int i = blockIdx.x;
    dview D = dom_view(dom, dstride, bnd_bytes, nr, it[i].dom);
    const float *al = ab + (size_t)i * 2 * (size_t)nr;
    float *ga = gr + (size_t)i * 2 * (size_t)nr, *gb = ga + nr;
    const float *lm = lam + (size_t)i * ls;
    for (int j = threadIdx.x; j < N; j += B_THREADS) {
        int64_t f = o + j;
        float g;
        int which;
        h[(size_t)i * N + j] = nnc_bab_fwd_f(D.split[f], D.state[f], z[(size_t)i * N + j] + b[j], lm[f], al[f],
                                             D.auf[f], D.buf[f], &g, &which);
        if (which == 2) gb[f] = g;
        else if (which == 1) ga[f] = g;
    }
}

// The optimisation's targets: an objective's threshold, a neuron bound's 0.
__global__ void k_targets(int R, const nnc_gpu_bab_item *it, const double *d, double *tg, double *est)
{
    int i = blockIdx.x * B_THREADS + threadIdx.x;
    if (i >= R) return;
    tg[i] = it[i].row >= 0 ? d[it[i].row] : 0.0;
    est[i] = -INFINITY;
}

// Keep each item's best estimate and its variables; count the items not
// yet past their target.
__global__ void k_best(size_t nv, const double *cur, double *est, const double *tg, const float *ab, float *best,
                       int *open)
{
    int i = blockIdx.x;
    double c = cur[i], e = est[i];
    if (c > e)
        for (size_t q = threadIdx.x; q < nv; q += B_THREADS) best[(size_t)i * nv + q] = ab[(size_t)i * nv + q];
    __syncthreads();
    if (threadIdx.x == 0) {
        if (c > e) est[i] = e = c;
        if (!(e > tg[i])) atomicAdd(open, 1);
    }
}

// One Adam step on the variables that have a gradient: slopes of unstable,
// unsplit neurons and multipliers of split ones, before layer ktop (first
// neuron offk); items past their target keep theirs.
__global__ void k_adam(int R, int64_t nr, int64_t offk, const nnc_gpu_bab_item *it, const unsigned char *dom,
                       size_t dstride, size_t bnd_bytes, const double *est, const double *tg, const float *gr,
                       float *ab, float *ma, float *va, float lra, float lrb, float c1, float c2)
{
    size_t nv = 2 * (size_t)nr, t = (size_t)blockIdx.x * B_THREADS + threadIdx.x;
    if (t >= (size_t)R * nv) return;
    size_t i = t / nv;
    int64_t q = (int64_t)(t % nv);
    if (est[i] > tg[i]) return;
    int beta = q >= nr;
    int64_t f = beta ? q - nr : q;
    if (f >= offk) return;
    dview D = dom_view(dom, dstride, bnd_bytes, nr, it[i].dom);
    if (beta ? D.split[f] == 0 : (D.split[f] != 0 || D.state[f] != 0)) return;
    ab[t] = nnc_bab_adam(ab[t], gr[t], &ma[t], &va[t], beta ? lrb : lra, c1, c2, beta);
}

} // namespace

struct nnc_gpu_bab {
    std::mutex lock;
    int L = 0, n_in = 0, wmax = 0;
    int64_t nr = 0;
    int *K = nullptr, *N = nullptr;
    int64_t *off = nullptr;   // per layer, its first neuron (off[L - 1] = nr)
    int64_t *ewoff = nullptr; // per layer, its first error weight
    double **w = nullptr, **b = nullptr;
    float **wf = nullptr, **bf = nullptr;
    double gamma = 0;
    cublasHandle_t blas{};
    int have_blas = 0;
    // the pass's buffers
    dbuf dom, items, C, d, lo, hi, xmag, lof, hif, ew;
    dbuf ab, ma, va, best, gr, lamf, muf, zhf, hhf, mu, lam, cst, err, aux, cur, est, tg, lower, open;
    unsigned char *stage = nullptr; // host: the sub-problems packed for upload
    size_t stage_cap = 0;
};

extern "C" void nnc_gpu_bab_destroy(nnc_gpu_bab *g)
{
    if (g == nullptr) return;
    for (int k = 0; k < g->L; k++) {
        if (g->w) cudaFree(g->w[k]);
        if (g->b) cudaFree(g->b[k]);
        if (g->wf) cudaFree(g->wf[k]);
        if (g->bf) cudaFree(g->bf[k]);
    }
    dbuf *all[] = {&g->dom, &g->items, &g->C, &g->d, &g->lo, &g->hi, &g->xmag, &g->lof, &g->hif, &g->ew,
                   &g->ab, &g->ma, &g->va, &g->best, &g->gr, &g->lamf, &g->muf, &g->zhf, &g->hhf, &g->mu,
                   &g->lam, &g->cst, &g->err, &g->aux, &g->cur, &g->est, &g->tg, &g->lower, &g->open};
    for (dbuf *x : all) cudaFree(x->p);
    if (g->have_blas) cublasDestroy(g->blas);
    free(g->w); free(g->b); free(g->wf); free(g->bf); free(g->K); free(g->N); free(g->off); free(g->ewoff);
    free(g->stage);
    delete g;
}

extern "C" nnc_status nnc_gpu_bab_create(nnc_gpu_bab **out, const nnc_gpu_dense *layers, int n_layers, double gamma,
                                         char *err, size_t errlen)
{
    *out = nullptr;
    nnc_status st = NNC_STATUS_OK;
    if (n_layers < 1) return nnc_err(err, errlen, NNC_STATUS_INVALID, "GPU branch and bound: no layers");
    for (int k = 0; k < n_layers; k++) {
        const nnc_gpu_dense *D = &layers[k];
        if (D->w == nullptr || D->K < 1 || D->N < 1 || (k > 0 && D->K != layers[k - 1].N) ||
            (D->relu != 0) != (k + 1 < n_layers))
            return nnc_err(err, errlen, NNC_STATUS_INVALID,
                           "GPU branch and bound: layer %d is not a dense layer of a ReLU chain", k);
    }
    nnc_gpu_bab *g = new (std::nothrow) nnc_gpu_bab;
    if (g == nullptr) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    g->L = n_layers;
    g->n_in = layers[0].K;
    g->gamma = gamma;
    g->K = (int *)calloc((size_t)n_layers, sizeof(int));
    g->N = (int *)calloc((size_t)n_layers, sizeof(int));
    g->off = (int64_t *)calloc((size_t)n_layers + 1, sizeof(int64_t));
    g->ewoff = (int64_t *)calloc((size_t)n_layers + 1, sizeof(int64_t));
    g->w = (double **)calloc((size_t)n_layers, sizeof(double *));
    g->b = (double **)calloc((size_t)n_layers, sizeof(double *));
    g->wf = (float **)calloc((size_t)n_layers, sizeof(float *));
    g->bf = (float **)calloc((size_t)n_layers, sizeof(float *));
    float *hf = nullptr;
    double *hb = nullptr;
    if (!g->K || !g->N || !g->off || !g->ewoff || !g->w || !g->b || !g->wf || !g->bf) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto fail;
    }
    g->wmax = g->n_in;
    for (int k = 0; k < n_layers; k++) {
        const nnc_gpu_dense *D = &layers[k];
        size_t kn = (size_t)D->K * (size_t)D->N;
        g->K[k] = D->K;
        g->N[k] = D->N;
        g->off[k] = g->nr;
        if (k + 1 < n_layers) g->nr += D->N;
        g->ewoff[k + 1] = g->ewoff[k] + D->N;
        if (D->N > g->wmax) g->wmax = D->N;
        free(hf);
        free(hb);
        hf = (float *)malloc(sizeof(float) * (kn > (size_t)D->N ? kn : (size_t)D->N));
        hb = (double *)calloc((size_t)D->N, sizeof(double));
        if (!hf || !hb) {
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            goto fail;
        }
        if (D->b) memcpy(hb, D->b, sizeof(double) * (size_t)D->N);
        NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->w[k], sizeof(double) * kn), fail);
        NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->b[k], sizeof(double) * (size_t)D->N), fail);
        NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->wf[k], sizeof(float) * kn), fail);
        NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->bf[k], sizeof(float) * (size_t)D->N), fail);
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->w[k], D->w, sizeof(double) * kn, cudaMemcpyHostToDevice), fail);
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->b[k], hb, sizeof(double) * (size_t)D->N, cudaMemcpyHostToDevice), fail);
        for (size_t q = 0; q < kn; q++) hf[q] = (float)D->w[q];
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->wf[k], hf, sizeof(float) * kn, cudaMemcpyHostToDevice), fail);
        for (int j = 0; j < D->N; j++) hf[j] = (float)hb[j];
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->bf[k], hf, sizeof(float) * (size_t)D->N, cudaMemcpyHostToDevice), fail);
    }
    g->off[n_layers - 1] = g->nr;
    {
        cublasStatus_t bs = cublasCreate(&g->blas);
        if (bs != CUBLAS_STATUS_SUCCESS) {
            st = nnc_err(err, errlen, NNC_STATUS_DEVICE, "cuBLAS: cublasCreate failed: %s",
                         cublasGetStatusString(bs));
            goto fail;
        }
        g->have_blas = 1;
        /* IEEE float64 products as the sound pass's error terms assume (no
         * emulated or reduced-precision GEMM), float32 without TF32 */
        if ((bs = cublasSetMathMode(g->blas, CUBLAS_PEDANTIC_MATH)) != CUBLAS_STATUS_SUCCESS) {
            st = nnc_err(err, errlen, NNC_STATUS_DEVICE, "cuBLAS: cublasSetMathMode failed: %s",
                         cublasGetStatusString(bs));
            goto fail;
        }
    }
    free(hf);
    free(hb);
    *out = g;
    return NNC_STATUS_OK;
fail:
    free(hf);
    free(hb);
    nnc_gpu_bab_destroy(g);
    return st;
}

namespace {

// The sound bounds of items [0, R) of the group on the device (ab: their
// variables, or nullptr for CROWN's slopes) into g->lower.
nnc_status sound_pass(nnc_gpu_bab *g, int R, int ktop, int rows, int n_out, size_t dstride, size_t bnd_bytes,
                      const float *ab, char *err, size_t errlen)
{
    nnc_status st = NNC_STATUS_OK;
    const nnc_gpu_bab_item *it = (const nnc_gpu_bab_item *)g->items.p;
    double *mu = (double *)g->mu.p, *lam = (double *)g->lam.p;
    double *cst = (double *)g->cst.p, *er = (double *)g->err.p, *aux = (double *)g->aux.p;
    const double one = 1, zero = 0;
    if (rows) k_rows_d<<<R, B_THREADS>>>(it, (const double *)g->C.p, n_out, g->N[ktop], mu, cst, er, aux);
    for (int k = ktop; k >= 0; k--) {
        int K = g->K[k], N = g->N[k];
        const double *ew = (const double *)g->ew.p + g->ewoff[k];
        if (k == ktop && !rows)
            k_col_d<<<R, B_THREADS>>>(it, g->w[k], g->b[k], K, N, ew, lam, cst, er, aux);
        else {
            k_bias_d<<<R, B_THREADS>>>(N, mu, g->b[k], ew, cst, er, aux);
            B_BLAS(cublasDgemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, K, R, N, &one, g->w[k], N, mu, N, &zero, lam, K));
        }
        if (k == 0) {
            k_conc_d<<<R, B_THREADS>>>(K, lam, (const double *)g->lo.p, (const double *)g->hi.p,
                                       (const double *)g->xmag.p, cst, aux);
            break;
        }
        k_relax_d<<<R, B_THREADS>>>(it, (const unsigned char *)g->dom.p, dstride, bnd_bytes, g->nr, g->off[k - 1], K,
                                    ab, lam, mu, cst, aux);
    }
    k_lower<<<blocks_for((size_t)R), B_THREADS>>>(R, cst, er, aux, g->gamma, (double *)g->lower.p);
    NNC_CUDA_CHECK_GOTO(cudaGetLastError(), fail);
fail:
    return st;
}

// The float32 estimate of items [0, R) with their variables ab into g->cur,
// its coefficients in g->lamf.
nnc_status estimate(nnc_gpu_bab *g, int R, int ktop, int rows, int n_out, size_t dstride, size_t bnd_bytes,
                    const float *ab, char *err, size_t errlen)
{
    nnc_status st = NNC_STATUS_OK;
    const nnc_gpu_bab_item *it = (const nnc_gpu_bab_item *)g->items.p;
    size_t ls = (size_t)g->n_in + (size_t)g->nr;
    float *muf = (float *)g->muf.p, *lamf = (float *)g->lamf.p;
    double *cur = (double *)g->cur.p;
    const float one = 1, zero = 0;
    if (rows) k_rows_f<<<R, B_THREADS>>>(it, (const double *)g->C.p, n_out, g->N[ktop], muf, cur);
    for (int k = ktop; k >= 0; k--) {
        int K = g->K[k], N = g->N[k];
        float *lam = lamf + (k == 0 ? 0 : (size_t)g->n_in + (size_t)g->off[k - 1]);
        if (k == ktop && !rows) k_col_f<<<R, B_THREADS>>>(it, g->wf[k], g->bf[k], K, N, lam, ls, cur);
        else {
            k_bias_f<<<R, B_THREADS>>>(N, muf, g->bf[k], cur);
            B_BLAS(cublasSgemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, K, R, N, &one, g->wf[k], N, muf, N, &zero, lam,
                               (int)ls));
        }
        if (k == 0) {
            k_conc_f<<<R, B_THREADS>>>(K, lam, ls, (const float *)g->lof.p, (const float *)g->hif.p, cur);
            break;
        }
        k_relax_f<<<R, B_THREADS>>>(it, (const unsigned char *)g->dom.p, dstride, bnd_bytes, g->nr, g->off[k - 1], K,
                                    ab, lam, ls, muf, cur);
    }
    NNC_CUDA_CHECK_GOTO(cudaGetLastError(), fail);
fail:
    return st;
}

// The gradients of the last estimate with respect to the variables (g->gr).
nnc_status gradient(nnc_gpu_bab *g, int R, int ktop, size_t dstride, size_t bnd_bytes, const float *ab, char *err,
                    size_t errlen)
{
    nnc_status st = NNC_STATUS_OK;
    const nnc_gpu_bab_item *it = (const nnc_gpu_bab_item *)g->items.p;
    size_t ls = (size_t)g->n_in + (size_t)g->nr;
    const float *lamf = (const float *)g->lamf.p;
    float *x = (float *)g->hhf.p, *z = (float *)g->zhf.p;
    const float one = 1, zero = 0;
    k_corner<<<blocks_for((size_t)R * (size_t)g->n_in), B_THREADS>>>(R, g->n_in, lamf, ls, (const float *)g->lof.p,
                                                                    (const float *)g->hif.p, x);
    for (int k = 0; k < ktop; k++) {
        int K = g->K[k], N = g->N[k];
        B_BLAS(cublasSgemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, N, R, K, &one, g->wf[k], N, x, K, &zero, z, N));
        k_fwd<<<R, B_THREADS>>>(it, (const unsigned char *)g->dom.p, dstride, bnd_bytes, g->nr, g->off[k], N, ab, z,
                                g->bf[k], lamf + g->n_in, ls, x, (float *)g->gr.p);
    }
    NNC_CUDA_CHECK_GOTO(cudaGetLastError(), fail);
fail:
    return st;
}

} // namespace

extern "C" nnc_status nnc_gpu_bab_run(nnc_gpu_bab *g, const nnc_gpu_bab_pass *ps, char *err, size_t errlen)
{
    nnc_status st = NNC_STATUS_OK;
    std::lock_guard<std::mutex> hold(g->lock);
    (void)cudaGetLastError(); /* an error left by an earlier call is not this pass's */
    int L = g->L, ktop = ps->ktop;
    int64_t nr = g->nr;
    size_t nv = 2 * (size_t)nr, ls = (size_t)g->n_in + (size_t)nr, W = (size_t)g->wmax;
    if (ktop < 0 || ktop >= L || ps->mode < -2 || (ps->mode != -2 && ps->ab == nullptr) || ps->lower == nullptr ||
        (ps->n > 0 && (ps->items == nullptr || ps->ndom == 0)))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "GPU branch and bound: bad pass");
    if (ps->n == 0) return NNC_STATUS_OK;
    int rows = ps->items[0].row >= 0;
    if (rows && (ktop != L - 1 || ps->n_out != g->N[L - 1] || ps->C == nullptr || ps->d == nullptr))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "GPU branch and bound: objectives do not fit the chain");
    for (size_t i = 0; i < ps->n; i++) {
        const nnc_gpu_bab_item *x = &ps->items[i];
        if ((x->row >= 0) != rows || x->dom < 0 || (size_t)x->dom >= ps->ndom || x->row >= ps->nrows ||
            (!rows && (x->nj < 0 || x->nj >= g->N[ktop])) || x->ovr >= nr)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "GPU branch and bound: item %zu out of range", i);
    }
    // the sub-problems, packed: each one's bounds block, then its splits
    size_t bnd_bytes = (NNC_GPU_BAB_BND_BYTES(nr) + 7) & ~(size_t)7;
    size_t dstride = bnd_bytes + (((size_t)nr + 8) & ~(size_t)7);
    size_t dbytes = ps->ndom * dstride;
    if (dbytes > g->stage_cap) {
        unsigned char *s = (unsigned char *)realloc(g->stage, dbytes);
        if (s == nullptr) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        g->stage = s;
        g->stage_cap = dbytes;
    }
    memset(g->stage, 0, dbytes); /* the padding too */
    for (size_t q = 0; q < ps->ndom; q++) {
        memcpy(g->stage + q * dstride, ps->bnd[q], NNC_GPU_BAB_BND_BYTES(nr));
        memcpy(g->stage + q * dstride + bnd_bytes, ps->split[q], (size_t)nr);
    }
    size_t G = ps->n < B_GROUP ? ps->n : B_GROUP, n_in = (size_t)g->n_in;
    {
        /* items per group: at most half the device's free memory for their buffers */
        size_t fb = 0, tb = 0, per = 5 * nv * sizeof(float) + ls * sizeof(float) + W * (2 * sizeof(double) + 3 * sizeof(float)) +
                                     8 * sizeof(double) + sizeof(nnc_gpu_bab_item);
        cudaError_t e = cudaMemGetInfo(&fb, &tb);
        if (e != cudaSuccess) return NNC_CUDA_ERROR(e, "cudaMemGetInfo");
        size_t cap = fb / 2 / per;
        if (G > cap) G = cap > 0 ? cap : 1;
    }
    size_t nobj = rows ? (size_t)ps->nrows : 0;
    NNC_CUDA_CHECK_GOTO(reserve(&g->dom, dbytes), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->items, sizeof(nnc_gpu_bab_item) * G), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->C, sizeof(double) * (nobj * (size_t)ps->n_out + 1)), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->d, sizeof(double) * (nobj + 1)), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->lo, sizeof(double) * n_in), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->hi, sizeof(double) * n_in), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->xmag, sizeof(double) * n_in), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->lof, sizeof(float) * n_in), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->hif, sizeof(float) * n_in), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->ew, sizeof(double) * (size_t)g->ewoff[L]), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->mu, sizeof(double) * G * W), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->lam, sizeof(double) * G * W), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->cst, sizeof(double) * G), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->err, sizeof(double) * G), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->aux, sizeof(double) * G), fail);
    NNC_CUDA_CHECK_GOTO(reserve(&g->lower, sizeof(double) * G), fail);
    if (ps->mode != -2) {
        NNC_CUDA_CHECK_GOTO(reserve(&g->ab, sizeof(float) * G * nv), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->lamf, sizeof(float) * G * ls), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->muf, sizeof(float) * G * W), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->cur, sizeof(double) * G), fail);
    }
    if (ps->mode >= 0) {
        NNC_CUDA_CHECK_GOTO(reserve(&g->ma, sizeof(float) * G * nv), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->va, sizeof(float) * G * nv), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->best, sizeof(float) * G * nv), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->gr, sizeof(float) * G * nv), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->zhf, sizeof(float) * G * W), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->hhf, sizeof(float) * G * W), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->est, sizeof(double) * G), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->tg, sizeof(double) * G), fail);
        NNC_CUDA_CHECK_GOTO(reserve(&g->open, sizeof(int)), fail);
    }
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->dom.p, g->stage, dbytes, cudaMemcpyHostToDevice), fail);
    if (nobj) {
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->C.p, ps->C, sizeof(double) * nobj * (size_t)ps->n_out,
                                       cudaMemcpyHostToDevice), fail);
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->d.p, ps->d, sizeof(double) * nobj, cudaMemcpyHostToDevice), fail);
    }
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->lo.p, ps->lo, sizeof(double) * n_in, cudaMemcpyHostToDevice), fail);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->hi.p, ps->hi, sizeof(double) * n_in, cudaMemcpyHostToDevice), fail);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->xmag.p, ps->xmag, sizeof(double) * n_in, cudaMemcpyHostToDevice), fail);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->lof.p, ps->lof, sizeof(float) * n_in, cudaMemcpyHostToDevice), fail);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->hif.p, ps->hif, sizeof(float) * n_in, cudaMemcpyHostToDevice), fail);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->ew.p, ps->ew, sizeof(double) * (size_t)g->ewoff[L], cudaMemcpyHostToDevice),
                        fail);
    for (size_t i0 = 0; i0 < ps->n; i0 += G) {
        int R = (int)(ps->n - i0 < G ? ps->n - i0 : G);
        float *ab = (float *)g->ab.p;
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->items.p, ps->items + i0, sizeof(nnc_gpu_bab_item) * (size_t)R,
                                       cudaMemcpyHostToDevice), fail);
        if (ps->mode != -2)
            NNC_CUDA_CHECK_GOTO(cudaMemcpy(ab, ps->ab + i0 * nv, sizeof(float) * (size_t)R * nv,
                                           cudaMemcpyHostToDevice), fail);
        if (ps->mode == -2) {
            if ((st = sound_pass(g, R, ktop, rows, ps->n_out, dstride, bnd_bytes, nullptr, err, errlen))) goto fail;
        } else if (ps->mode == -1) {
            if ((st = estimate(g, R, ktop, rows, ps->n_out, dstride, bnd_bytes, ab, err, errlen))) goto fail;
            k_cur_lower<<<blocks_for((size_t)R), B_THREADS>>>(R, (const double *)g->cur.p, (double *)g->lower.p);
        } else {
            // optimise_chunk: Adam ascent on the estimate, the best variables kept
            size_t vb = sizeof(float) * (size_t)R * nv;
            NNC_CUDA_CHECK_GOTO(cudaMemset(g->ma.p, 0, vb), fail);
            NNC_CUDA_CHECK_GOTO(cudaMemset(g->va.p, 0, vb), fail);
            NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->best.p, ab, vb, cudaMemcpyDeviceToDevice), fail);
            k_targets<<<blocks_for((size_t)R), B_THREADS>>>(R, (const nnc_gpu_bab_item *)g->items.p,
                                                            (const double *)g->d.p, (double *)g->tg.p,
                                                            (double *)g->est.p);
            int iters = nv == 0 || g->off[ktop] == 0 ? 0 : ps->mode; /* no variables: the estimate once */
            float b1t = 1, b2t = 1, lr = 1, decay = (float)pow(0.98, 20.0 / (iters > 0 ? iters : 1));
            for (int t = 0;; t++) {
                if (ps->tick) ps->tick(ps->tick_ctx);
                if ((st = estimate(g, R, ktop, rows, ps->n_out, dstride, bnd_bytes, ab, err, errlen))) goto fail;
                int open = 0;
                NNC_CUDA_CHECK_GOTO(cudaMemset(g->open.p, 0, sizeof(int)), fail);
                k_best<<<R, B_THREADS>>>(nv, (const double *)g->cur.p, (double *)g->est.p, (const double *)g->tg.p, ab,
                                         (float *)g->best.p, (int *)g->open.p);
                NNC_CUDA_CHECK_GOTO(cudaMemcpy(&open, g->open.p, sizeof(int), cudaMemcpyDeviceToHost), fail);
                if (t >= iters || open == 0) break;
                if ((st = gradient(g, R, ktop, dstride, bnd_bytes, ab, err, errlen))) goto fail;
                b1t *= NNC_BAB_B1;
                b2t *= NNC_BAB_B2;
                float c1 = 1 / (1 - b1t), c2 = 1 / (1 - b2t);
                k_adam<<<blocks_for((size_t)R * nv), B_THREADS>>>(
                    R, nr, g->off[ktop], (const nnc_gpu_bab_item *)g->items.p, (const unsigned char *)g->dom.p,
                    dstride, bnd_bytes, (const double *)g->est.p, (const double *)g->tg.p, (const float *)g->gr.p,
                    ab, (float *)g->ma.p, (float *)g->va.p, NNC_BAB_LR_ALPHA * lr, NNC_BAB_LR_BETA * lr, c1, c2);
                NNC_CUDA_CHECK_GOTO(cudaGetLastError(), fail);
                lr *= decay;
            }
            NNC_CUDA_CHECK_GOTO(cudaMemcpy(ab, g->best.p, vb, cudaMemcpyDeviceToDevice), fail);
            if ((st = sound_pass(g, R, ktop, rows, ps->n_out, dstride, bnd_bytes, ab, err, errlen))) goto fail;
            NNC_CUDA_CHECK_GOTO(cudaMemcpy(ps->ab + i0 * nv, ab, vb, cudaMemcpyDeviceToHost), fail);
        }
        NNC_CUDA_CHECK_GOTO(cudaGetLastError(), fail);
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(ps->lower + i0, g->lower.p, sizeof(double) * (size_t)R, cudaMemcpyDeviceToHost),
                            fail);
        if (ps->coef && ps->mode != -2 && nr > 0)
            NNC_CUDA_CHECK_GOTO(cudaMemcpy2D(ps->coef + i0 * (size_t)nr, sizeof(float) * (size_t)nr,
                                             (const float *)g->lamf.p + g->n_in, sizeof(float) * ls,
                                             sizeof(float) * (size_t)nr, (size_t)R, cudaMemcpyDeviceToHost), fail);
    }
fail:
    return st;
}
