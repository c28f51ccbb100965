// CUDA unit of the verifier: the sampling stage on the device and batched
// interval bounds of dense chains (see nncert/gpu.h and verifier/sample_impl.h).
//
// Points: sample s draws from curand_init(seed, sub0 + s, 0) with cuRAND's
// curandStatePhilox4_32_10_t: curand_uniform2_double picks the leaf (first
// double) and then gives two coordinates per call, exactly the words and the
// conversions of common/philox.h on the CPU, and the coordinate formula is
// nnc_smp_coord (verifier/sample_math.h), whose operations are the
// round-to-nearest intrinsics on the device: the GPU draws the CPU's points
// bit for bit.  Forward pass: cublasDgemm per layer (pedantic math mode: no
// reduced-precision or emulated shortcuts), then a bias + ReLU kernel
// (common/act.h); margins with nnc_smp_margin.  Verdicts farther than tau
// from the boundary are final; the host re-decides the rest on the CPU.
//
// Every CUDA and cuBLAS call goes through NNC_CUDA_CHECK_GOTO / V_BLAS, which record the
// statement, file and line in the caller's error buffer and jump to the
// function's cleanup with NNC_STATUS_DEVICE, never aborting.
#include "common/act.h"
#include "nncert/gpu.h"
#include "gpu/cuda_check_impl.h"
#include "verifier/sample_math.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <stdlib.h>
#include <string.h>

#define V_BLAS(call) NNC_CUBLAS_CHECK_GOTO(call, fail)

#define V_THREADS 256

struct nnc_gpu_smp {
    int n_layers, max_batch, n_in, n_out, width;
    int *K, *N, *relu;       /* host, per layer */
    double **w, **b;         /* device, per layer: w [K][N] row-major, b [N] */
    cublasHandle_t blas;
    int have_blas;
    double *x, *y;           /* device, max_batch * width each (ping-pong) */
    signed char *verdict;    /* device, max_batch */
    double *leaves, *cum;    /* device, current case */
    size_t nopen;
    double tw, tau;
    double *C, *d;           /* device */
    int *dstart;             /* device */
    int nrows, ndisj;
};

extern "C" void nnc_gpu_smp_destroy(nnc_gpu_smp *g)
{
    if (g == NULL) return;
    for (int l = 0; l < g->n_layers; l++) {
        if (g->w) cudaFree(g->w[l]);
        if (g->b) cudaFree(g->b[l]);
    }
    free(g->w); free(g->b); free(g->K); free(g->N); free(g->relu);
    cudaFree(g->x); cudaFree(g->y); cudaFree(g->verdict);
    cudaFree(g->leaves); cudaFree(g->cum); cudaFree(g->C); cudaFree(g->d); cudaFree(g->dstart);
    if (g->have_blas) cublasDestroy(g->blas);
    free(g);
}

extern "C" nnc_status nnc_gpu_smp_create(nnc_gpu_smp **out, const nnc_gpu_dense *layers, int n_layers, int max_batch,
                                         char *err, size_t errlen)
{
    *out = NULL;
    nnc_status st = NNC_STATUS_OK;
    if (n_layers < 1 || max_batch < 1) return nnc_err(err, errlen, NNC_STATUS_ARG, "GPU sampler: no layers or batch");
    nnc_gpu_smp *g = (nnc_gpu_smp *)calloc(1, sizeof *g);
    if (g == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    g->n_layers = n_layers;
    g->max_batch = max_batch;
    g->n_in = layers[0].K;
    g->n_out = layers[n_layers - 1].N;
    g->width = g->n_in;
    g->K = (int *)calloc((size_t)n_layers, sizeof(int));
    g->N = (int *)calloc((size_t)n_layers, sizeof(int));
    g->relu = (int *)calloc((size_t)n_layers, sizeof(int));
    g->w = (double **)calloc((size_t)n_layers, sizeof(double *));
    g->b = (double **)calloc((size_t)n_layers, sizeof(double *));
    if (!g->K || !g->N || !g->relu || !g->w || !g->b) {
        nnc_gpu_smp_destroy(g);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    for (int l = 0; l < n_layers; l++) {
        const nnc_gpu_dense *L = &layers[l];
        g->K[l] = L->K;
        g->N[l] = L->N;
        g->relu[l] = L->relu;
        if (L->N > g->width) g->width = L->N;
        size_t wb = sizeof(double) * (size_t)L->K * (size_t)L->N;
        NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->w[l], wb), fail);
        NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->b[l], sizeof(double) * (size_t)L->N), fail);
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->w[l], L->w, wb, cudaMemcpyHostToDevice), fail);
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->b[l], L->b, sizeof(double) * (size_t)L->N, cudaMemcpyHostToDevice), fail);
    }
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->x, sizeof(double) * (size_t)max_batch * (size_t)g->width), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->y, sizeof(double) * (size_t)max_batch * (size_t)g->width), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->verdict, (size_t)max_batch), fail);
    V_BLAS(cublasCreate(&g->blas));
    g->have_blas = 1;
    /* IEEE float64 products, no emulation or reduced-precision reductions:
     * the error bound behind tau assumes rounded float64 operations */
    V_BLAS(cublasSetMathMode(g->blas, CUBLAS_PEDANTIC_MATH));
    *out = g;
    return NNC_STATUS_OK;
fail:
    nnc_gpu_smp_destroy(g);
    return st;
}

extern "C" nnc_status nnc_gpu_smp_case(nnc_gpu_smp *g, const double *leaves, const double *cum, size_t nopen,
                                       double tw, int nrows, const double *C, const double *d, const int *dstart,
                                       int ndisj, double tau, char *err, size_t errlen)
{
    nnc_status st = NNC_STATUS_OK;
    if (nopen < 1 || ndisj < 1) return nnc_err(err, errlen, NNC_STATUS_ARG, "GPU sampler: empty case");
    cudaFree(g->leaves); cudaFree(g->cum); cudaFree(g->C); cudaFree(g->d); cudaFree(g->dstart);
    g->leaves = g->cum = g->C = g->d = NULL;
    g->dstart = NULL;
    size_t lb = sizeof(double) * 2 * (size_t)g->n_in * nopen, cb = sizeof(double) * (size_t)(nrows ? nrows : 1) * (size_t)g->n_out;
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->leaves, lb), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->cum, sizeof(double) * nopen), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->C, cb), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->d, sizeof(double) * (size_t)(nrows ? nrows : 1)), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&g->dstart, sizeof(int) * (size_t)(ndisj + 1)), fail);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->leaves, leaves, lb, cudaMemcpyHostToDevice), fail);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->cum, cum, sizeof(double) * nopen, cudaMemcpyHostToDevice), fail);
    if (nrows) {
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->C, C, sizeof(double) * (size_t)nrows * (size_t)g->n_out, cudaMemcpyHostToDevice), fail);
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->d, d, sizeof(double) * (size_t)nrows, cudaMemcpyHostToDevice), fail);
    }
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(g->dstart, dstart, sizeof(int) * (size_t)(ndisj + 1), cudaMemcpyHostToDevice), fail);
    g->nopen = nopen;
    g->tw = tw;
    g->tau = tau;
    g->nrows = nrows;
    g->ndisj = ndisj;
    return NNC_STATUS_OK;
fail:
    return st;
}

/* One thread per sample: the CPU's nnc_smp_point_ref with cuRAND. */
__global__ static void sample_kernel(uint64_t seed, uint64_t sub0, int cnt, int n, const double *leaves,
                                     const double *cum, size_t nopen, double tw, double *x)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= cnt) return;
    curandStatePhilox4_32_10_t st;
    curand_init(seed, sub0 + (uint64_t)s, 0, &st);
    double2 u = curand_uniform2_double(&st);
    const double *box = leaves + nnc_smp_pick_leaf(cum, nopen, NNC_SMP_MUL(u.x, tw)) * 2 * (size_t)n;
    double *xs = x + (size_t)s * (size_t)n;
    for (int i = 0; i < n; i += 2) {
        u = curand_uniform2_double(&st);
        xs[i] = nnc_smp_coord(box[i], box[n + i], u.x);
        if (i + 1 < n) xs[i + 1] = nnc_smp_coord(box[i + 1], box[n + i + 1], u.y);
    }
}

__global__ static void bias_act_kernel(double *y, const double *b, int N, size_t total, int relu)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    double v = NNC_SMP_ADD(y[i], b[i % (size_t)N]);
    y[i] = relu ? nnc_relu_f64(v) : v;
}

__global__ static void margin_kernel(const double *y, int cnt, int n_out, const double *C, const double *d,
                                     const int *dstart, int ndisj, double tau, signed char *verdict)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= cnt) return;
    const double *ys = y + (size_t)s * (size_t)n_out;
    for (int i = 0; i < n_out; i++)
        if (!isfinite(ys[i])) { /* as the CPU screen: a non-finite output is re-decided */
            verdict[s] = -1;
            return;
        }
    double m = nnc_smp_margin(C, d, dstart, ndisj, n_out, ys);
    verdict[s] = m < -tau ? 1 : m > tau ? 0 : -1; /* NaN: -1 */
}

static unsigned blocks_for(size_t n) { return (unsigned)((n + V_THREADS - 1) / V_THREADS); }

extern "C" nnc_status nnc_gpu_smp_run(nnc_gpu_smp *g, uint64_t seed, uint64_t sub0, int cnt, signed char *verdict,
                                      double *xs, char *err, size_t errlen)
{
    nnc_status st = NNC_STATUS_OK;
    if (cnt < 1 || cnt > g->max_batch || g->leaves == NULL)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "GPU sampler: batch of %d outside 1..%d or no case", cnt, g->max_batch);
    const double one = 1.0, zero = 0.0;
    double *in = g->x, *out = g->y;
    sample_kernel<<<blocks_for((size_t)cnt), V_THREADS>>>(seed, sub0, cnt, g->n_in, g->leaves, g->cum, g->nopen, g->tw,
                                                          g->x);
    NNC_CUDA_CHECK_GOTO(cudaGetLastError(), fail);
    if (xs) NNC_CUDA_CHECK_GOTO(cudaMemcpy(xs, g->x, sizeof(double) * (size_t)cnt * (size_t)g->n_in, cudaMemcpyDeviceToHost), fail);
    for (int l = 0; l < g->n_layers; l++) {
        /* row-major out[cnt][N] = in[cnt][K] w[K][N] is column-major
         * out^T (N x cnt) = w^T (N x K, ld N) in^T (K x cnt, ld K) */
        V_BLAS(cublasDgemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, g->N[l], cnt, g->K[l], &one, g->w[l], g->N[l], in,
                           g->K[l], &zero, out, g->N[l]));
        size_t total = (size_t)cnt * (size_t)g->N[l];
        bias_act_kernel<<<blocks_for(total), V_THREADS>>>(out, g->b[l], g->N[l], total, g->relu[l]);
        NNC_CUDA_CHECK_GOTO(cudaGetLastError(), fail);
        double *t = in;
        in = out;
        out = t;
    }
    margin_kernel<<<blocks_for((size_t)cnt), V_THREADS>>>(in, cnt, g->n_out, g->C, g->d, g->dstart, g->ndisj, g->tau,
                                                          g->verdict);
    NNC_CUDA_CHECK_GOTO(cudaGetLastError(), fail);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(verdict, g->verdict, (size_t)cnt, cudaMemcpyDeviceToHost), fail);
    return NNC_STATUS_OK;
fail:
    return st;
}

/* One thread per (box, neuron): nnc_smp_interval_neuron, as the CPU's
 * nnc_smp_ibp_batch computes it. */
__global__ static void ibp_kernel(const double *w, const double *b, int K, int N, int relu, int nbox, const double *lo,
                                  const double *hi, double *olo, double *ohi)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)nbox * (size_t)N) return;
    size_t box = t / (size_t)N;
    int j = (int)(t % (size_t)N);
    double zl, zh;
    nnc_smp_interval_neuron(w + j, (size_t)N, K, b[j], lo + box * (size_t)K, hi + box * (size_t)K, &zl, &zh);
    if (relu) {
        zl = zl > 0 ? zl : 0;
        zh = zh > 0 ? zh : 0;
    }
    olo[t] = zl;
    ohi[t] = zh;
}

extern "C" nnc_status nnc_gpu_ibp_dense(const nnc_gpu_dense *layers, int n_layers, int nbox, const double *lo,
                                        const double *hi, double *out_lo, double *out_hi, char *err, size_t errlen)
{
    nnc_status st = NNC_STATUS_OK;
    if (n_layers < 1 || nbox < 1) return NNC_STATUS_OK;
    int width = layers[0].K;
    for (int l = 0; l < n_layers; l++)
        if (layers[l].N > width) width = layers[l].N;
    size_t vb = sizeof(double) * (size_t)nbox * (size_t)width, nin = (size_t)nbox * (size_t)layers[0].K;
    double *a_lo = NULL, *a_hi = NULL, *b_lo = NULL, *b_hi = NULL, *w = NULL, *bias = NULL;
    size_t wmax = 0;
    for (int l = 0; l < n_layers; l++)
        if ((size_t)layers[l].K * (size_t)layers[l].N > wmax) wmax = (size_t)layers[l].K * (size_t)layers[l].N;
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&a_lo, vb), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&a_hi, vb), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&b_lo, vb), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&b_hi, vb), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&w, sizeof(double) * wmax), fail);
    NNC_CUDA_CHECK_GOTO(cudaMalloc((void **)&bias, sizeof(double) * (size_t)width), fail);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(a_lo, lo, sizeof(double) * nin, cudaMemcpyHostToDevice), fail);
    NNC_CUDA_CHECK_GOTO(cudaMemcpy(a_hi, hi, sizeof(double) * nin, cudaMemcpyHostToDevice), fail);
    for (int l = 0; l < n_layers; l++) {
        const nnc_gpu_dense *L = &layers[l];
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(w, L->w, sizeof(double) * (size_t)L->K * (size_t)L->N, cudaMemcpyHostToDevice), fail);
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(bias, L->b, sizeof(double) * (size_t)L->N, cudaMemcpyHostToDevice), fail);
        size_t total = (size_t)nbox * (size_t)L->N;
        ibp_kernel<<<blocks_for(total), V_THREADS>>>(w, bias, L->K, L->N, L->relu, nbox, a_lo, a_hi, b_lo, b_hi);
        NNC_CUDA_CHECK_GOTO(cudaGetLastError(), fail);
        double *t = a_lo;
        a_lo = b_lo;
        b_lo = t;
        t = a_hi;
        a_hi = b_hi;
        b_hi = t;
    }
    {
        size_t ob = sizeof(double) * (size_t)nbox * (size_t)layers[n_layers - 1].N;
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(out_lo, a_lo, ob, cudaMemcpyDeviceToHost), fail);
        NNC_CUDA_CHECK_GOTO(cudaMemcpy(out_hi, a_hi, ob, cudaMemcpyDeviceToHost), fail);
    }
fail:
    cudaFree(a_lo); cudaFree(a_hi); cudaFree(b_lo); cudaFree(b_hi); cudaFree(w); cudaFree(bias);
    return st;
}
