/* Batched beta-CROWN branch and bound over ReLU splits for dense ReLU
 * chains (method, soundness argument and parameters in refine_impl.h). */
#include "verifier/refine_impl.h"

#include "common/isa.h"
#include "verifier/bab_math.h"
#include "verifier/sample_impl.h"

#include <cblas.h>
#include <float.h>
#include <sodium.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Items (an objective row or a neuron bound of a sub-problem) per chunk:
 * the rows of each product one thread forms.  Larger chunks spend less of
 * the products' time packing the weights (OpenBLAS copies a layer's matrix
 * per call): MNIST 256x4 prop_7 eps 0.05, --timeout 60, sub-problems bounded
 * with chunks of 64, 128, 256 and 512 items: 24.2k, 27.0k, 34.1-34.9k and
 * 27.5k (the last leaves a thread idle in rounds of fewer items); chunks
 * sized by the round's items (an eighth or a quarter of them, 64 to 256):
 * 28.0k and 28.5k.  A model whose thread scratch for BBD_CHUNK items would
 * pass BBD_WS_BYTES (wide convolutional chains) takes half as many, down to
 * BBD_CHUNK_MIN (nnc_bbd.chunk).  The chunk depends on the model only, so
 * the search's tree does not depend on the thread count. */
#define BBD_CHUNK 256
#define BBD_CHUNK_MIN 64
#define BBD_WS_BYTES ((size_t)64 << 20)

#define up(x) nnc_bab_up(x)
#define down(x) nnc_bab_down(x)

/* An elementwise map of the input before the chain (an input
 * normalisation): x op c, c one value or one per element. */
typedef struct bbd_pre {
    int op; /* NNC_OP_SUB, _ADD, _MUL, _DIV */
    const double *c;
    int64_t nc;
} bbd_pre;

struct nnc_bbd {
    nnc_smp_chain *ch;
    int L, n_in, n_out, wmax;
    int64_t nr;   /* ReLU neurons: the outputs of layers 0 .. L-2 */
    int64_t *off; /* off[k]: the first neuron of layer k (k < L), off[L-1] = nr */
    double gamma; /* dot-product error factor of the longest sum (Higham 3.5) */
    float **wf, **bf; /* per layer: float32 copies of W and b (b 0 where absent) */
    bbd_pre *pre;     /* the input's elementwise maps, in order (constants borrowed from the model) */
    int npre;
    int64_t np; /* Anderson variables: one per term of a sparse first layer (0: none) */
    size_t nv;  /* variables of an item: alpha (nr), beta (nr), then the np of Anderson's relaxation */
    int chunk;  /* items per chunk of a pass (BBD_CHUNK_MIN .. BBD_CHUNK) */
    int diff_copy; /* test hook: a team's passes find the changed variables from a copy, as on the device */
};

/* Layer k's sparse terms and rounding bounds, or NULL (dense, exact). */
static const nnc_smp_lin *lin_of(const nnc_bbd *e, int k)
{
    return e->ch->lin && k < e->ch->n_lin ? &e->ch->lin[k] : NULL;
}

void nnc_bbd_destroy(nnc_bbd *e)
{
    if (e == NULL) return;
    for (int l = 0; e->wf && l < e->L; l++) {
        free(e->wf[l]);
        free(e->bf[l]);
    }
    free(e->wf);
    free(e->bf);
    free(e->pre);
    nnc_smp_chain_free(e->ch);
    free(e->off);
    free(e);
}

int64_t nnc_bbd_relu_count(const nnc_bbd *e) { return e->nr; }

int nnc_bbd_is_dense(const nnc_bbd *e)
{
    for (int k = 0; k < e->L; k++)
        if (e->ch->layers[k].w == NULL) return 0;
    return 1;
}

int64_t nnc_bbd_model_relu_count(const nnc_bbd *e) { return e->ch->relu_src ? e->ch->n_model_relu : e->nr; }

int nnc_bbd_gpu_ok(const nnc_bbd *e) { return nnc_bbd_is_dense(e) && e->np == 0; }

nnc_status nnc_bbd_gpu_create(const nnc_bbd *e, nnc_gpu_bab **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!nnc_bbd_gpu_ok(e))
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED,
                       "GPU branch and bound: the chain has sparse layers (convolution, pooling)");
    return nnc_gpu_bab_create(out, e->ch->layers, e->L, e->gamma, err, errlen);
}

/* The leading elementwise maps of m's input by finite constants (Sub, Add,
 * Mul, Div by a nonzero; views between them): *npre of them into pre (at
 * most maxpre), *v the value after them, *t the order position of the next
 * node. */
static void input_maps(const nnc_model *m, bbd_pre *pre, int maxpre, int *npre, int *v, int *t)
{
    int cur = m->inputs[0];
    int64_t n = m->vals[cur].numel;
    int k = 0;
    *npre = 0;
    for (; k < m->n_order; k++) {
        const nnc_node *nd = &m->nodes[m->order[k]];
        if (nd->n_in < 1 || nd->in[0] != cur || m->vals[nd->out[0]].numel != n) break;
        if (nd->op == NNC_OP_IDENTITY || nd->op == NNC_OP_FLATTEN || nd->op == NNC_OP_RESHAPE ||
            nd->op == NNC_OP_SQUEEZE || nd->op == NNC_OP_UNSQUEEZE) {
            cur = nd->out[0];
            continue;
        }
        if (nd->op != NNC_OP_SUB && nd->op != NNC_OP_ADD && nd->op != NNC_OP_MUL && nd->op != NNC_OP_DIV) break;
        const nnc_value *c = nd->n_in == 2 && nd->in[1] >= 0 ? &m->vals[nd->in[1]] : NULL;
        if (!c || c->kind != NNC_VAL_CONST || !c->f || c->sparse || (c->numel != 1 && c->numel != n) || *npre >= maxpre)
            break;
        int okc = 1;
        for (int64_t j = 0; j < c->numel && okc; j++) okc = isfinite(c->f[j]) && (nd->op != NNC_OP_DIV || c->f[j] != 0);
        if (!okc) break;
        pre[(*npre)++] = (bbd_pre){nd->op, c->f, c->numel};
        cur = nd->out[0];
    }
    *v = cur;
    *t = k;
}

static size_t ws_item_bytes(const nnc_bbd *e);

nnc_status nnc_bbd_create(nnc_bbd **out, const nnc_model *m, char *err, size_t errlen)
{
    *out = NULL;
    (void)nnc_isa(); /* the CPU probed here, before the search's threads ask (sparse_rows_*) */
    if (m->n_inputs != 1 || m->n_outputs != 1 || !nnc_dtype_is_float(m->vals[m->inputs[0]].dtype))
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "not a dense chain: needs one float input and one output");
    bbd_pre pre[8];
    int npre, v0, t0;
    input_maps(m, pre, 8, &npre, &v0, &t0);
    nnc_smp_chain *ch;
    nnc_status st = nnc_smp_chain_extract_from(&ch, m, v0, t0, NNC_SMP_CHAIN_LINEAR, err, errlen);
    if (st == NNC_STATUS_UNSUPPORTED) {
        /* residual connections: carried through the ReLU layers between */
        char rerr[NNC_ERRBUF_SIZE];
        st = nnc_smp_chain_extract_res(&ch, m, v0, t0, rerr, sizeof rerr);
        if (st) {
            char perr[NNC_ERRBUF_SIZE];
            snprintf(perr, sizeof perr, "%s", err);
            st = nnc_err(err, errlen, st, "%s; %s", perr, rerr);
        }
    }
    if (st) return st;
    st = nnc_smp_chain_check_finite(ch, err, errlen);
    for (int l = 0; l + 1 < ch->n_layers && !st; l++)
        if (!ch->layers[l].relu)
            st = nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "layer %d is not followed by a ReLU", l);
    if (!st && ch->layers[ch->n_layers - 1].relu) {
        /* the output is a ReLU's: an identity layer after it keeps every
         * ReLU inside the chain */
        int N = ch->layers[ch->n_layers - 1].N;
        nnc_gpu_dense *nl = realloc(ch->layers, sizeof *nl * (size_t)(ch->n_layers + 1));
        if (nl == NULL) st = NNC_STATUS_NOMEM;
        else {
            ch->layers = nl;
            nnc_gpu_dense *D = &nl[ch->n_layers++];
            memset(D, 0, sizeof *D);
            D->K = D->N = N;
            if ((D->w = calloc((size_t)N * (size_t)N, sizeof(double))) == NULL) st = NNC_STATUS_NOMEM;
            for (int j = 0; D->w && j < N; j++) D->w[(size_t)j * (size_t)N + (size_t)j] = 1;
            ch->n_out = N;
        }
        if (st) st = nnc_err(err, errlen, st, "out of memory");
    }
    if (st) {
        nnc_smp_chain_free(ch);
        return st;
    }
    nnc_bbd *e = calloc(1, sizeof *e);
    if (e == NULL || (e->off = malloc(sizeof(int64_t) * (size_t)(ch->n_layers + 1))) == NULL ||
        (npre && (e->pre = malloc(sizeof(bbd_pre) * (size_t)npre)) == NULL)) {
        if (e) free(e->off);
        free(e);
        nnc_smp_chain_free(ch);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    if (npre) memcpy(e->pre, pre, sizeof(bbd_pre) * (size_t)npre);
    e->npre = npre;
    e->ch = ch;
    e->L = ch->n_layers;
    e->n_in = ch->n_in;
    e->n_out = ch->n_out;
    int lmax = e->n_in;
    e->nr = 0;
    for (int l = 0; l < e->L; l++) {
        e->off[l] = e->nr;
        if (l + 1 < e->L) e->nr += ch->layers[l].N;
        if (ch->layers[l].N > lmax) lmax = ch->layers[l].N;
        if (ch->layers[l].K > lmax) lmax = ch->layers[l].K;
    }
    e->wmax = lmax;
    e->wf = calloc((size_t)e->L, sizeof(float *));
    e->bf = calloc((size_t)e->L, sizeof(float *));
    for (int l = 0; e->wf && e->bf && l < e->L; l++) {
        const nnc_gpu_dense *D = &ch->layers[l];
        const nnc_smp_lin *S = lin_of(e, l);
        size_t kn = D->w ? (size_t)D->K * (size_t)D->N : (size_t)S->ptr[D->N];
        const double *wsrc = D->w ? D->w : S->sw;
        if (!(e->wf[l] = malloc(sizeof(float) * (kn + 1))) || !(e->bf[l] = malloc(sizeof(float) * (size_t)D->N))) break;
        for (size_t q = 0; q < kn; q++) e->wf[l][q] = (float)wsrc[q];
        for (int j = 0; j < D->N; j++) e->bf[l][j] = D->b ? (float)D->b[j] : 0.0f;
    }
    if (!e->wf || !e->bf || !e->bf[e->L - 1]) {
        nnc_bbd_destroy(e);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    /* a sparse first layer (a convolution) gets Anderson's relaxation (anderson_d) */
    e->np = e->L > 1 && ch->layers[0].w == NULL ? lin_of(e, 0)->ptr[ch->layers[0].N] : 0;
    e->nv = 2 * (size_t)e->nr + (size_t)e->np;
    for (e->chunk = BBD_CHUNK; e->chunk > BBD_CHUNK_MIN && (size_t)e->chunk * ws_item_bytes(e) > BBD_WS_BYTES;)
        e->chunk /= 2;
    if (e->nv >= INT32_MAX) { /* optimise_chunk indexes variables by int32 */
        nnc_bbd_destroy(e);
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "too many ReLU neurons for the batched search");
    }
    /* the longest sum: a product's lmax terms, plus a few partial sums */
    e->gamma = (double)(2 * (lmax + 2 * e->L + 4) + 16) * DBL_EPSILON;
    *out = e;
    return NNC_STATUS_OK;
}

/* ---- the layers' products: dense (OpenBLAS) or sparse (Conv, pooling) ---- */

/* The sparse products (Conv, pooling layers) work on blocks of BBD_LANES
 * rows held feature-major (xt[k * BBD_LANES + l], row l of the block), so
 * that each sparse term is one vector operation across the block's rows
 * rather than a dependent scalar add.  Every entry still sums its terms in
 * the order of the row-by-row loop they replace (ascending q for an
 * output; ascending j, then q, for an input of the transposed product),
 * from +0, with products and sums unfused (babdense.o has
 * -ffp-contract=off), so results are bit for bit those of that loop on
 * every instruction-set path.  A term skipped there for a zero multiplier
 * adds +-0 here (the weights are finite), which leaves a sum started at +0
 * unchanged. */
#define BBD_LANES 16

#define BBD_SPARSE_KERNELS(T, SFX, ATTR)                                                                           \
    /* yt (N x lanes) = xt gathered: y_j = sum_q w[q] x[idx[q]] */                                                  \
    ATTR static void gather_##SFX(const int64_t *ptr, const int32_t *idx, const T *w, int N,                       \
                                  const T *restrict xt, T *restrict yt)                                             \
    {                                                                                                               \
        for (int j = 0; j < N; j++) {                                                                               \
            T acc[BBD_LANES] = {0};                                                                                 \
            for (int64_t q = ptr[j]; q < ptr[j + 1]; q++) {                                                         \
                const T *restrict x = xt + (size_t)idx[q] * BBD_LANES;                                              \
                T c = w[q];                                                                                         \
                for (int l = 0; l < BBD_LANES; l++) acc[l] += c * x[l];                                             \
            }                                                                                                       \
            memcpy(yt + (size_t)j * BBD_LANES, acc, sizeof acc);                                                    \
        }                                                                                                           \
    }                                                                                                               \
    /* yt (K x lanes) = xt (N x lanes) scattered: y[idx[q]] += w[q] x_j */                                          \
    ATTR static void scatter_##SFX(const int64_t *ptr, const int32_t *idx, const T *w, int N, int K,               \
                                   const T *restrict xt, T *restrict yt)                                            \
    {                                                                                                               \
        memset(yt, 0, sizeof(T) * (size_t)K * BBD_LANES);                                                           \
        for (int j = 0; j < N; j++) {                                                                               \
            const T *restrict x = xt + (size_t)j * BBD_LANES;                                                       \
            int nz = 0;                                                                                             \
            for (int l = 0; l < BBD_LANES; l++) nz |= x[l] != 0;                                                    \
            if (!nz) continue;                                                                                      \
            for (int64_t q = ptr[j]; q < ptr[j + 1]; q++) {                                                         \
                T *restrict y = yt + (size_t)idx[q] * BBD_LANES;                                                    \
                T c = w[q];                                                                                         \
                for (int l = 0; l < BBD_LANES; l++) y[l] += c * x[l];                                               \
            }                                                                                                       \
        }                                                                                                           \
    }

/* Rows [i0, i0 + lanes) of a (R x n, row stride ld) into at (n x lanes),
 * rows past R as zeros; and back.  Then y (R x N, stride ldy) = the sparse
 * layer S (weights w) applied to x (R x K, stride ldx): forward (tr 0: y_j =
 * sum_q w x[idx]) or transposed (tr 1, x R x N, y R x K: y[idx] += w x_j);
 * xt, yt: scratch of lanes x max(K, N). */
#define BBD_SPARSE_ROWS(T, S)                                                                                      \
    static void to_lanes_##S(const T *a, int R, int n, size_t ld, int i0, T *at)                                   \
    {                                                                                                               \
        for (int l = 0; l < BBD_LANES; l++) {                                                                       \
            const T *r = i0 + l < R ? a + (size_t)(i0 + l) * ld : NULL;                                             \
            for (int k = 0; k < n; k++) at[(size_t)k * BBD_LANES + (size_t)l] = r ? r[k] : (T)0;                    \
        }                                                                                                           \
    }                                                                                                               \
    static void from_lanes_##S(const T *at, int R, int n, T *a, size_t ld, int i0)                                 \
    {                                                                                                               \
        for (int l = 0; l < BBD_LANES && i0 + l < R; l++) {                                                         \
            T *r = a + (size_t)(i0 + l) * ld;                                                                       \
            for (int k = 0; k < n; k++) r[k] = at[(size_t)k * BBD_LANES + (size_t)l];                               \
        }                                                                                                           \
    }                                                                                                               \
    static void sparse_rows_##S(const nnc_smp_lin *L, const T *w, int tr, int R, int K, int N, const T *x,          \
                                size_t ldx, T *y, size_t ldy, T *xt, T *yt)                                         \
    {                                                                                                               \
        int nin = tr ? N : K, nout = tr ? K : N;                                                                    \
        nnc_isa_level isa = nnc_isa();                                                                              \
        for (int i0 = 0; i0 < R; i0 += BBD_LANES) {                                                                 \
            to_lanes_##S(x, R, nin, ldx, i0, xt);                                                                   \
            BBD_SPARSE_DISPATCH(S)                                                                                  \
            {                                                                                                       \
                (void)isa;                                                                                          \
                if (tr) scatter_##S##_generic(L->ptr, L->idx, w, N, K, xt, yt);                                     \
                else gather_##S##_generic(L->ptr, L->idx, w, N, xt, yt);                                            \
            }                                                                                                       \
            from_lanes_##S(yt, R, nout, y, ldy, i0);                                                                \
        }                                                                                                           \
    }

BBD_SPARSE_KERNELS(float, f_generic, )
BBD_SPARSE_KERNELS(double, d_generic, )
#if defined(__x86_64__) && defined(__GNUC__)
BBD_SPARSE_KERNELS(float, f_avx2, __attribute__((target("avx2"))))
BBD_SPARSE_KERNELS(float, f_avx512, __attribute__((target("avx512f"))))
BBD_SPARSE_KERNELS(double, d_avx2, __attribute__((target("avx2"))))
BBD_SPARSE_KERNELS(double, d_avx512, __attribute__((target("avx512f"))))
#define BBD_SPARSE_DISPATCH(S)                                                                                     \
    if (isa >= NNC_ISA_AVX512) {                                                                                    \
        if (tr) scatter_##S##_avx512(L->ptr, L->idx, w, N, K, xt, yt);                                              \
        else gather_##S##_avx512(L->ptr, L->idx, w, N, xt, yt);                                                     \
    } else if (isa >= NNC_ISA_AVX2) {                                                                               \
        if (tr) scatter_##S##_avx2(L->ptr, L->idx, w, N, K, xt, yt);                                                \
        else gather_##S##_avx2(L->ptr, L->idx, w, N, xt, yt);                                                       \
    } else
#else
#define BBD_SPARSE_DISPATCH(S)
#endif
BBD_SPARSE_ROWS(float, f)
BBD_SPARSE_ROWS(double, d)

/* lam (R x K, row stride ldl) = mu (R x N) W_k^T, in float64; xt, yt
 * scratch (sparse_rows_d). */
static void back_d(const nnc_bbd *e, int k, int R, const double *mu, double *lam, int ldl, double *xt, double *yt)
{
    const nnc_gpu_dense *D = &e->ch->layers[k];
    int K = D->K, N = D->N;
    if (D->w) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, R, K, N, 1.0, mu, N, D->w, N, 0.0, lam, ldl);
        return;
    }
    const nnc_smp_lin *S = lin_of(e, k);
    sparse_rows_d(S, S->sw, 1, R, K, N, mu, (size_t)N, lam, (size_t)ldl, xt, yt);
}

/* The same as back_d in float32; xt, yt scratch (sparse_rows_f). */
static void back_f(const nnc_bbd *e, int k, int R, const float *mu, float *lam, int ldl, float *xt, float *yt)
{
    const nnc_gpu_dense *D = &e->ch->layers[k];
    int K = D->K, N = D->N;
    const float *wf = e->wf[k];
    if (D->w) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, R, K, N, 1.0f, mu, N, wf, N, 0.0f, lam, ldl);
        return;
    }
    sparse_rows_f(lin_of(e, k), wf, 1, R, K, N, mu, (size_t)N, lam, (size_t)ldl, xt, yt);
}

/* lam (K) = sg W_k[:, j]: exact (one nonzero product per entry). */
static void col_d(const nnc_bbd *e, int k, int j, double sg, double *lam)
{
    const nnc_gpu_dense *D = &e->ch->layers[k];
    if (D->w) {
        for (int q = 0; q < D->K; q++) lam[q] = sg * D->w[(size_t)q * (size_t)D->N + (size_t)j];
        return;
    }
    const nnc_smp_lin *S = lin_of(e, k);
    memset(lam, 0, sizeof(double) * (size_t)D->K);
    for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) lam[S->idx[q]] += sg * S->sw[q];
}

static void col_f(const nnc_bbd *e, int k, int j, float sg, float *lam)
{
    const nnc_gpu_dense *D = &e->ch->layers[k];
    const float *wf = e->wf[k];
    if (D->w) {
        for (int q = 0; q < D->K; q++) lam[q] = sg * wf[(size_t)q * (size_t)D->N + (size_t)j];
        return;
    }
    const nnc_smp_lin *S = lin_of(e, k);
    memset(lam, 0, sizeof(float) * (size_t)D->K);
    for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) lam[S->idx[q]] += sg * wf[q];
}

/* z (R x N) = x (R x K) W_k, in float32 (no bias); xt, yt scratch. */
static void fwd_f(const nnc_bbd *e, int k, int R, const float *x, float *z, float *xt, float *yt)
{
    const nnc_gpu_dense *D = &e->ch->layers[k];
    int K = D->K, N = D->N;
    if (D->w) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, R, N, K, 1.0f, x, K, e->wf[k], N, 0.0f, z, N);
        return;
    }
    sparse_rows_f(lin_of(e, k), e->wf[k], 0, R, K, N, x, (size_t)K, z, (size_t)N, xt, yt);
}

/* ew[j] = sum_i |W_k[i][j]| hm[i], and er[j] the bound on the error of
 * layer k's stored weights and bias on output j: sum_i werr_ij hm[i] +
 * berr_j (0 when exact). */
static void abs_fwd(const nnc_bbd *e, int k, const double *hm, double *ew, double *er)
{
    const nnc_gpu_dense *D = &e->ch->layers[k];
    const nnc_smp_lin *S = lin_of(e, k);
    int K = D->K, N = D->N;
    for (int j = 0; j < N; j++) ew[j] = er[j] = 0;
    if (D->w) {
        for (int i = 0; i < K; i++) {
            const double *w = D->w + (size_t)i * (size_t)N;
            const double *we = S && S->werr ? S->werr + (size_t)i * (size_t)N : NULL;
            for (int j = 0; j < N; j++) ew[j] += fabs(w[j]) * hm[i];
            for (int j = 0; we && j < N; j++) er[j] += we[j] * hm[i];
        }
    } else
        for (int j = 0; j < N; j++)
            for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) {
                ew[j] += fabs(S->sw[q]) * hm[S->idx[q]];
                if (S->werr) er[j] += S->werr[q] * hm[S->idx[q]];
            }
    for (int j = 0; S && S->berr && j < N; j++) er[j] += S->berr[j];
}

/* ---- one leaf's fixed data ---- */

typedef struct bbd_root {
    double *lo, *hi;         /* the leaf box, through the input's elementwise maps (outward) */
    double *ew;              /* per layer, per output: error weight of a coefficient (sum N_k) */
    int64_t *ewoff;          /* ew offsets per layer */
    double *xmag;            /* n_in: max |x| on the box */
    float *lof, *hif;        /* float32 copies of lo, hi */
    int *layer_of;           /* nr: each neuron's layer */
    double *lb, *ub;         /* np: per term of a sparse first layer, its input's end where w x is least, most */
    float *lbf, *ubf;        /* float32 copies */
    nnc_gpu_bab *gpu;        /* or NULL: the passes on the device (nnc_bbd_opts.gpu) */
    char gpu_err[NNC_ERRBUF_SIZE]; /* why the device failed (then gpu is NULL), or "" */
    /* a team's search (refine_impl.h, Teams), or team NULL */
    const nnc_team *team;
    double tbase;            /* this rank's nnc_rfn_now() when the search began */
    double tel;              /* the agreed clock: the slowest rank's time since then, at the last exchange */
    uint32_t tseq;           /* exchanges so far */
    nnc_status tst;          /* a failed exchange: the search ends with it (the clock then reads +inf) */
    nnc_status lst;          /* a failure of this rank's own (out of memory), told to the others at
                                the search's last exchange (team_end); the clock reads +inf too */
    char *terr;              /* its message (terrlen bytes) */
    size_t terrlen;
    size_t *tlens;           /* size: the ranks' lengths of an exchange */
} bbd_root;

static void root_free(bbd_root *r)
{
    free(r->ew); free(r->ewoff); free(r->xmag); free(r->lof); free(r->hif); free(r->layer_of); free(r->lo);
    free(r->lb); free(r->lbf); free(r->tlens);
}

/* A team's clock counts the search's seconds from this (the same on every
 * rank, and far from 0, which means no deadline to a pass). */
#define BBD_TEAM_EPOCH 1e6

/* The clock of the search's decisions by time: the wall clock, or in a
 * team the agreed one (the same double on every rank between exchanges,
 * so that every rank's comparisons with the agreed deadlines come out
 * alike), +inf after a failure, so that every deadline has passed. */
static double bclock(const bbd_root *rt)
{
    if (rt->team == NULL) return nnc_rfn_now();
    return rt->tst || rt->lst ? INFINITY : BBD_TEAM_EPOCH + rt->tel;
}

/* This rank's own clock, in bclock's units: a pass's chunks past its
 * deadline are skipped by it (their bounds are exchanged). */
static double bclock_local(const bbd_root *rt)
{
    return rt->team ? BBD_TEAM_EPOCH + (nnc_rfn_now() - rt->tbase) : nnc_rfn_now();
}

/* Exchange header: the search's tag, the exchange's number, the sender's
 * time since the search began, and -1, or at the sender's last exchange
 * (team_end) the status it ends with. */
typedef struct bbd_xhdr {
    uint32_t tag, seq;
    double el;
    int32_t end;
} bbd_xhdr;
#define BBD_XTAG 0x62626478u /* "bbdx" */

/* A team exchange (every rank, in the same order): mine (len bytes) to
 * every rank; end -1, or this rank's last exchange (team_end) with the
 * status it ends with.  Out: *all (malloc'd) the ranks' bytes in rank order
 * without their headers, rt->tlens[q] rank q's length.  Moves the agreed
 * clock to the slowest rank's.  On failure (rt->tst, rt->terr set; *all
 * NULL) the search has ended: later calls fail at once.  A rank at its last
 * exchange while this one is not (it failed on its own, or went another
 * way) is a failure named after it. */
static nnc_status team_xchg(bbd_root *rt, const void *mine, size_t len, unsigned char **all, int32_t end)
{
    const nnc_team *t = rt->team;
    *all = NULL;
    if (rt->tst) return rt->tst;
    bbd_xhdr h = {BBD_XTAG, rt->tseq++, nnc_rfn_now() - rt->tbase, end};
    unsigned char *buf = malloc(sizeof h + len), *raw = NULL;
    if (buf == NULL) { /* (a last exchange is only a header: it does not come here) */
        rt->lst = NNC_STATUS_NOMEM;
        return rt->lst;
    }
    memcpy(buf, &h, sizeof h);
    if (len) memcpy(buf + sizeof h, mine, len);
    nnc_status st = t->allgather(t->ctx, buf, sizeof h + len, &raw, rt->tlens, rt->terr, rt->terrlen);
    free(buf);
    if (st) {
        rt->tst = st;
        return st;
    }
    size_t in = 0, out = 0;
    double el = rt->tel;
    /* a rank that ended with a failure first (it may be out of step for it) */
    for (int q = 0; q < t->size && !st; q++) {
        bbd_xhdr hq;
        if (rt->tlens[q] < sizeof hq) {
            st = nnc_err(rt->terr, rt->terrlen, NNC_STATUS_INVALID, "rank %d sent a malformed exchange in the ReLU-split search", q);
            break;
        }
        memcpy(&hq, raw + in, sizeof hq);
        in += rt->tlens[q];
        if (hq.tag == BBD_XTAG && hq.end > 0)
            st = nnc_err(rt->terr, rt->terrlen, (nnc_status)hq.end, "rank %d ended the ReLU-split search: %s", q,
                         nnc_status_string((nnc_status)hq.end));
    }
    in = 0;
    for (int q = 0; q < t->size && !st; q++) {
        bbd_xhdr hq;
        memcpy(&hq, raw + in, sizeof hq);
        if (hq.tag != BBD_XTAG || hq.seq != h.seq || (hq.end >= 0) != (end >= 0)) {
            st = nnc_err(rt->terr, rt->terrlen, NNC_STATUS_INVALID,
                         "rank %d is out of step in the ReLU-split search (exchange %u where %u was due)", q,
                         (unsigned)hq.seq, (unsigned)h.seq);
            break;
        }
        if (hq.el > el && isfinite(hq.el)) el = hq.el;
        size_t l = rt->tlens[q] - sizeof hq;
        memmove(raw + out, raw + in + sizeof hq, l);
        rt->tlens[q] = l;
        in += l + sizeof hq;
        out += l;
    }
    if (st) {
        free(raw);
        rt->tst = st;
        return st;
    }
    rt->tel = el;
    *all = raw;
    return NNC_STATUS_OK;
}

/* A sub-problem's ReLU pre-activation bounds and the relaxations they give
 * (one allocation). */
typedef struct bbd_bnd {
    double *rl, *rh, *au, *bu; /* nr each: bounds; upper lines of the unstable neurons */
    float *auf, *buf;          /* float32 copies of au, bu */
    signed char *state;        /* -1 inactive (u <= 0), +1 active (l >= 0), 0 unstable */
    int refs;                  /* sub-problems sharing it (bnd_release) */
    size_t *held;              /* the search's count of bytes held, kept up to date */
} bbd_bnd;

static size_t bnd_bytes(int64_t nr);

/* The data after the header is one block as the GPU passes take it
 * (NNC_GPU_BAB_BND_BYTES: rl, rh, au, bu, auf, buf, state, nr + 1 each). */
static bbd_bnd *bnd_alloc(int64_t nr, size_t *held)
{
    size_t n = (size_t)nr + 1;
    bbd_bnd *b = malloc(sizeof *b + NNC_GPU_BAB_BND_BYTES(nr));
    if (b == NULL) return NULL;
    b->refs = 1;
    b->held = held;
    *held += bnd_bytes(nr);
    double *d = (double *)(b + 1);
    b->rl = d; b->rh = d + n; b->au = d + 2 * n; b->bu = d + 3 * n;
    float *f = (float *)(d + 4 * n);
    b->auf = f; b->buf = f + n;
    b->state = (signed char *)(f + 2 * n);
    return b;
}

static size_t bnd_bytes(int64_t nr)
{
    return sizeof(bbd_bnd) + NNC_GPU_BAB_BND_BYTES(nr);
}

/* Drop one sub-problem's share of b (freed with the last). */
static void bnd_release(bbd_bnd *b, int64_t nr)
{
    if (b == NULL || --b->refs > 0) return;
    *b->held -= bnd_bytes(nr);
    free(b);
}

static bbd_bnd *bnd_copy(const bbd_bnd *src, int64_t nr)
{
    bbd_bnd *b = bnd_alloc(nr, src->held);
    if (b == NULL) return NULL;
    memcpy(b->rl, src->rl, NNC_GPU_BAB_BND_BYTES(nr));
    return b;
}

/* Set neuron f's bounds to [l, u] and its relaxation from them. */
static void bnd_set(bbd_bnd *b, int64_t f, double l, double u)
{
    double al, bl;
    b->rl[f] = l;
    b->rh[f] = u;
    b->au[f] = b->bu[f] = 0;
    b->state[f] = u <= 0 ? -1 : l >= 0 ? 1 : 0;
    if (l < 0 && u > 0) nnc_bnd_relax_relu(l, u, 0.0, &al, &bl, &b->au[f], &b->bu[f]);
    b->auf[f] = (float)b->au[f];
    b->buf[f] = (float)b->bu[f];
}

/* Error weights: a coefficient mu_j on z_kj errs the bound by at most
 *   gamma |mu_j| (sum_i |W_k[i][j]| hmax_i + |b_j|)   (the product mu W^T and mu . b)
 * + 2 eps |mu_j| zmax_kj                               (the rounding of mu_j itself)
 * where hmax bounds |h_{k-1}| (|x| for k = 0) and zmax |z_k| on the leaf
 * (hence on every sub-problem of it). */
static nnc_status root_init(const nnc_bbd *e, const double *lo, const double *hi, const double *rl, const double *rh,
                            bbd_root *r)
{
    memset(r, 0, sizeof *r);
    if ((r->lo = malloc(sizeof(double) * 2 * (size_t)(e->n_in + 1))) == NULL) return NNC_STATUS_NOMEM;
    r->hi = r->lo + e->n_in + 1;
    for (int i = 0; i < e->n_in; i++) {
        double a = lo[i], b = hi[i];
        for (int k = 0; k < e->npre; k++) {
            const bbd_pre *q = &e->pre[k];
            double c = q->c[q->nc == 1 ? 0 : i], na, nb;
            switch (q->op) {
            case NNC_OP_SUB: na = down(a - c); nb = up(b - c); break;
            case NNC_OP_ADD: na = down(a + c); nb = up(b + c); break;
            case NNC_OP_MUL:
                if (c >= 0) { na = down(a * c); nb = up(b * c); }
                else { na = down(b * c); nb = up(a * c); }
                break;
            default: /* NNC_OP_DIV, c != 0 */
                if (c > 0) { na = down(a / c); nb = up(b / c); }
                else { na = down(b / c); nb = up(a / c); }
            }
            a = na;
            b = nb;
        }
        r->lo[i] = a;
        r->hi[i] = b;
    }
    lo = r->lo;
    hi = r->hi;
    int64_t tot = 0;
    r->ewoff = malloc(sizeof(int64_t) * (size_t)(e->L + 1));
    if (r->ewoff == NULL) return NNC_STATUS_NOMEM;
    for (int k = 0; k < e->L; k++) {
        r->ewoff[k] = tot;
        tot += e->ch->layers[k].N;
    }
    r->ewoff[e->L] = tot;
    r->ew = malloc(sizeof(double) * (size_t)(tot + 1));
    r->xmag = malloc(sizeof(double) * (size_t)(e->n_in + 1));
    double *hm = malloc(sizeof(double) * (size_t)(e->wmax + 1)), *er = malloc(sizeof(double) * (size_t)(e->wmax + 1));
    r->lof = malloc(sizeof(float) * (size_t)(e->n_in + 1));
    r->hif = malloc(sizeof(float) * (size_t)(e->n_in + 1));
    r->layer_of = malloc(sizeof(int) * (size_t)(e->nr + 1));
    if (!r->ew || !r->xmag || !hm || !er || !r->lof || !r->hif || !r->layer_of) {
        free(hm);
        free(er);
        return NNC_STATUS_NOMEM;
    }
    for (int i = 0; i < e->n_in; i++) {
        r->xmag[i] = fmax(fabs(lo[i]), fabs(hi[i]));
        r->lof[i] = (float)lo[i];
        r->hif[i] = (float)hi[i];
    }
    for (int k = 0; k + 1 < e->L; k++)
        for (int64_t f = e->off[k]; f < e->off[k + 1]; f++) r->layer_of[f] = k;
    if (e->np > 0) {
        const nnc_smp_lin *S = lin_of(e, 0);
        r->lb = malloc(sizeof(double) * 2 * (size_t)e->np);
        r->lbf = malloc(sizeof(float) * 2 * (size_t)e->np);
        if (!r->lb || !r->lbf) {
            free(hm);
            free(er);
            return NNC_STATUS_NOMEM;
        }
        r->ub = r->lb + e->np;
        r->ubf = r->lbf + e->np;
        for (int64_t q = 0; q < e->np; q++) {
            int32_t i = S->idx[q];
            r->lb[q] = S->sw[q] >= 0 ? lo[i] : hi[i];
            r->ub[q] = S->sw[q] >= 0 ? hi[i] : lo[i];
            r->lbf[q] = (float)r->lb[q];
            r->ubf[q] = (float)r->ub[q];
        }
    }
    double g = e->gamma;
    for (int k = 0; k < e->L; k++) {
        const nnc_gpu_dense *D = &e->ch->layers[k];
        for (int i = 0; i < D->K; i++)
            hm[i] = k == 0 ? r->xmag[i] : fmax(0.0, rh[e->off[k - 1] + i]);
        double *ew = r->ew + r->ewoff[k];
        abs_fwd(e, k, hm, ew, er);
        for (int j = 0; j < D->N; j++) {
            double v = ew[j] * (1 + 2 * g) + (D->b ? fabs(D->b[j]) : 0.0);
            double z = k + 1 < e->L ? fmax(fabs(rl[e->off[k] + j]), fabs(rh[e->off[k] + j])) : 0.0;
            /* the stored weights' own error (a composed layer's), summed with g to spare */
            ew[j] = up(up(up(g * v) + 4 * DBL_EPSILON * z) + er[j] * (1 + 2 * g));
        }
    }
    free(hm);
    free(er);
    return NNC_STATUS_OK;
}

/* ---- items: one objective row, or one neuron bound, of one sub-problem ---- */

typedef struct bbd_item {
    const signed char *s; /* the sub-problem's splits (nr) */
    const bbd_bnd *b;     /* its bounds */
    int64_t ovr;          /* one more split (a branching trial), or -1 */
    signed char ovr_side;
    signed char sgn;      /* neuron bounds: +1 the lower bound of z, -1 minus the upper */
    int row;              /* the objective: row of p->C, target p->d[row]; -1: neuron nj */
    int nj;               /* of the pass's layer */
} bbd_item;

static inline int split_of(const bbd_item *it, int64_t f)
{
    return f == it->ovr ? it->ovr_side : it->s[f];
}

/* A thread's scratch for a chunk of up to e->chunk items: the sound pass
 * in float64, the optimisation in float32. */
typedef struct bbd_ws {
    int tick;                 /* 1: this thread may call the problem's tick (run_pass) */
    double *mu, *lam;         /* CH x wmax each (float64 pass) */
    double *cst, *err, *aux;  /* CH each */
    float *muf, *zhf, *hhf;   /* CH x wmax each */
    float *lamf;              /* CH x (n_in + nr): coefficients on x, then on each h (layer order) */
    float *gr;                /* CH x nv: gradients, as the variables */
    float *ma, *va;           /* CH x (nr + np): Adam moments, in the order of vidx */
    float *best;              /* CH x (nr + np): the best variables, in that order */
    float *aq;                /* CH x (nr + np): the variables now, in that order */
    float *gq;                /* nr + np: one item's gradients, in that order */
    int32_t *vidx;            /* CH x (nr + np): the variables optimised (offsets in an item's nv) */
    double *cur;              /* CH */
    double *vand;             /* CH x N0: a first-layer neuron's coefficient where Anderson's relaxation bounds it, else 0 */
    float *vandf, *hand;      /* CH x N0: the same in float32; the relaxed network's value there */
    float *cand;              /* CH x N0: Anderson's bracket c there (anderson_f, for forward_grad) */
    float *tbf;               /* wmax: one item's intercept terms of a layer (backward_f) */
    float *abc;               /* CH x nv: the variables of the items optimise_chunk still steps */
    float *abin;              /* CH x nv or NULL: a team's chunk's variables before it (diff_encode) */
    bbd_item *itc;            /* CH: those items */
    float *xt, *yt;           /* BBD_LANES x wmax each: the sparse products' blocks (sparse_rows_f) */
    double *xtd, *ytd;        /* the same for sparse_rows_d */
} bbd_ws;

static void ws_free(bbd_ws *w)
{
    free(w->mu); free(w->lam); free(w->cst); free(w->err); free(w->aux); free(w->muf); free(w->zhf); free(w->hhf);
    free(w->lamf); free(w->gr); free(w->ma); free(w->va); free(w->best); free(w->aq); free(w->gq); free(w->vidx);
    free(w->vand); free(w->vandf); free(w->hand); free(w->cand);
    free(w->cur); free(w->tbf); free(w->abc); free(w->itc); free(w->xt); free(w->yt); free(w->xtd); free(w->ytd);
    free(w->abin);
}

/* A thread's scratch per item of a chunk (ws_init's arrays, in bytes). */
static size_t ws_item_bytes(const nnc_bbd *e)
{
    size_t W = (size_t)e->wmax + 1, nr = (size_t)e->nr + 1, no = nr + (size_t)e->np;
    size_t n0 = (size_t)e->ch->layers[0].N + 1;
    return sizeof(double) * (2 * W + 4 + n0) +
           sizeof(float) * (3 * W + (size_t)e->n_in + nr + 2 * e->nv + 1 + 4 * no + 3 * n0) + sizeof(int32_t) * no +
           sizeof(bbd_item);
}

static int ws_init(const nnc_bbd *e, bbd_ws *w)
{
    memset(w, 0, sizeof *w);
    size_t C = (size_t)e->chunk, W = (size_t)e->wmax + 1, nr = (size_t)e->nr + 1;
    w->mu = malloc(sizeof(double) * C * W);
    w->lam = malloc(sizeof(double) * C * W);
    w->cst = malloc(sizeof(double) * C);
    w->err = malloc(sizeof(double) * C);
    w->aux = malloc(sizeof(double) * C);
    w->cur = malloc(sizeof(double) * C);
    w->muf = malloc(sizeof(float) * C * W);
    w->zhf = malloc(sizeof(float) * C * W);
    w->hhf = malloc(sizeof(float) * C * W);
    w->lamf = malloc(sizeof(float) * C * ((size_t)e->n_in + nr));
    size_t no = nr + (size_t)e->np, n0 = (size_t)e->ch->layers[0].N + 1;
    w->gr = malloc(sizeof(float) * C * (e->nv + 1));
    w->ma = malloc(sizeof(float) * C * no);
    w->va = malloc(sizeof(float) * C * no);
    w->best = malloc(sizeof(float) * C * no);
    w->aq = malloc(sizeof(float) * C * no);
    w->gq = malloc(sizeof(float) * no);
    w->vidx = malloc(sizeof(int32_t) * C * no);
    w->vand = malloc(sizeof(double) * C * n0);
    w->vandf = malloc(sizeof(float) * C * n0);
    w->hand = malloc(sizeof(float) * C * n0);
    w->cand = malloc(sizeof(float) * C * n0);
    w->tbf = malloc(sizeof(float) * W);
    w->abc = malloc(sizeof(float) * C * e->nv);
    w->itc = malloc(sizeof(bbd_item) * C);
    w->xt = malloc(sizeof(float) * BBD_LANES * W);
    w->yt = malloc(sizeof(float) * BBD_LANES * W);
    w->xtd = malloc(sizeof(double) * BBD_LANES * W);
    w->ytd = malloc(sizeof(double) * BBD_LANES * W);
    return w->mu && w->lam && w->cst && w->err && w->aux && w->cur && w->muf && w->zhf && w->hhf && w->lamf && w->gr &&
                   w->ma && w->va && w->vidx && w->best && w->aq && w->gq && w->vand && w->vandf && w->hand && w->cand && w->tbf && w->abc && w->itc && w->xt && w->yt && w->xtd && w->ytd
               ? 0
               : -1;
}

/* Anderson's relaxation of a first-layer ReLU (Anderson et al. 2020, the
 * ideal one for a neuron of the input box): for y = relu(w . x + b), x in
 * [lo, hi], lb_i / ub_i the end of x_i where w_i x_i is least / most, and
 * any p in [0, 1]^n,
 *   y <= sum_i p_i w_i (x_i - lb_i) + s (b + sum_i (p_i w_i lb_i + (1 - p_i) w_i ub_i))
 * holds with s = 1 where w . x + b >= 0 and s = 0 elsewhere (a convex
 * combination of the inequalities for the subsets I of inputs, I drawn with
 * probabilities p).  An item's bound takes it for the unstable, unsplit
 * first-layer neurons with a negative coefficient v (CROWN's chord is the
 * case p_i = u / (u - l)), s concretised over [0, 1]: v y >= v (sum_i p_i
 * w_i (x_i - lb_i) + max(0, c)), c the bracket.  On a neuron's terms it is
 * as strong as the convex hull of its graph over the box, where the chord
 * in z is not (verivital's avgpool net, eps 0.04: the bound of prop_7's
 * hardest row goes from -0.44, the chord's LP optimum, to about +0.49).
 *
 * anderson_d adds, for items i < R with first-layer coefficients w->vand
 * (0: not by this relaxation), their terms to the coefficients on x
 * (w->lam) and to cst, with error terms: each such neuron's terms err by
 * at most 3 |v| ew_j (the sums and products of its terms, gamma |v| sum
 * |w_i| |x|max each, and its stored weights' error). */
static void anderson_d(const nnc_bbd *e, const bbd_root *rt, int R, const float *ab, bbd_ws *w)
{
    const nnc_smp_lin *S = lin_of(e, 0);
    const nnc_gpu_dense *D = &e->ch->layers[0];
    int K = D->K, N = D->N;
    const double *ew = rt->ew + rt->ewoff[0];
    for (int i = 0; i < R; i++) {
        double *lm = w->lam + (size_t)i * (size_t)K;
        const double *va = w->vand + (size_t)i * (size_t)N;
        const float *pv = ab + (size_t)i * e->nv + 2 * (size_t)e->nr;
        double t = 0, ta = 0, er = 0;
        for (int j = 0; j < N; j++) {
            double v = va[j];
            if (v == 0) continue;
            double cl = 0, cs = D->b[j], ca = fabs(D->b[j]);
            for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) {
                double pq = pv[q], pw = pq * S->sw[q], rw = (1 - pq) * S->sw[q];
                lm[S->idx[q]] += v * pw;
                cl += pw * rt->lb[q];
                cs += pw * rt->lb[q] + rw * rt->ub[q];
                ca += fabs(pw * rt->lb[q]) + fabs(rw * rt->ub[q]);
            }
            double tb = v * (fmax(cs, 0.0) - cl);
            t += tb;
            ta += fabs(tb) + fabs(v) * (ca + fabs(cl));
            er += 3 * fabs(v) * ew[j];
        }
        w->cst[i] += t;
        w->aux[i] += fabs(t) + ta;
        w->err[i] += er;
    }
}

/* The same in float32 (no error terms), on w->lamf rows of stride ls,
 * adding to cur; each neuron's bracket c left in w->cand. */
static void anderson_f(const nnc_bbd *e, const bbd_root *rt, int R, const float *ab, float *lam, int64_t ls, bbd_ws *w)
{
    const nnc_smp_lin *S = lin_of(e, 0);
    const float *wf = e->wf[0], *bf = e->bf[0];
    int N = e->ch->layers[0].N;
    for (int i = 0; i < R; i++) {
        float *lm = lam + (size_t)i * (size_t)ls;
        const float *va = w->vandf + (size_t)i * (size_t)N;
        const float *pv = ab + (size_t)i * e->nv + 2 * (size_t)e->nr;
        float *cv = w->cand + (size_t)i * (size_t)N;
        float t = 0;
        for (int j = 0; j < N; j++) {
            float v = va[j];
            if (v == 0) continue;
            float cl = 0, cs = bf[j];
            for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) {
                float pw = pv[q] * wf[q];
                lm[S->idx[q]] += v * pw;
                cl += pw * rt->lbf[q];
                cs += pw * rt->lbf[q] + (wf[q] - pw) * rt->ubf[q];
            }
            cv[j] = cs;
            t += v * ((cs > 0 ? cs : 0) - cl);
        }
        w->cur[i] += t;
    }
}

/* Sound lower bounds, in float64 with every rounding error bounded
 * (refine_impl.h), of items it[0..R) (R <= e->chunk): objective rows
 * (ktop = L - 1) or bounds of neurons of layer ktop (sgn z_nj), each with
 * its slopes ab[i * 2nr ..] (alpha, nr) and multipliers (beta, nr) after
 * them, or (ab NULL) CROWN's adaptive slopes and no multipliers. */
static void backward(const nnc_bbd *e, const bbd_root *rt, const nnc_rfn_problem *p, int R, const bbd_item *it,
                     int ktop, const float *ab, double *lower, bbd_ws *w)
{
    int64_t nr = e->nr;
    int N = e->ch->layers[ktop].N;
    double g = e->gamma;
    int rows = it[0].row >= 0;
    for (int i = 0; i < R; i++) {
        if (rows)
            memcpy(w->mu + (size_t)i * (size_t)N, p->C + (size_t)it[i].row * (size_t)p->n_out, sizeof(double) * (size_t)N);
        w->cst[i] = w->err[i] = w->aux[i] = 0;
    }
    for (int k = ktop; k >= 0; k--) {
        const nnc_gpu_dense *D = &e->ch->layers[k];
        int K = D->K;
        N = D->N;
        const double *ew = rt->ew + rt->ewoff[k];
        if (k == ktop && !rows) {
            /* mu = sgn e_nj: lam = sgn W[:, nj] exactly */
            for (int i = 0; i < R; i++) {
                int j = it[i].nj;
                double sg = it[i].sgn;
                col_d(e, k, j, sg, w->lam + (size_t)i * (size_t)K);
                double cb = D->b ? sg * D->b[j] : 0.0;
                w->cst[i] = cb;
                w->aux[i] = fabs(cb);
                w->err[i] = ew[j];
            }
        } else {
            for (int i = 0; i < R; i++) {
                const double *mu = w->mu + (size_t)i * (size_t)N;
                double cb = 0, er = 0;
                for (int j = 0; j < N; j++) {
                    if (D->b) cb += mu[j] * D->b[j];
                    er += fabs(mu[j]) * ew[j];
                }
                w->cst[i] += cb;
                w->aux[i] += fabs(cb);
                w->err[i] += er;
            }
            /* coefficients on this layer's input: lam = mu W^T */
            back_d(e, k, R, w->mu, w->lam, K, w->xtd, w->ytd);
        }
        if (k == 0) {
            if (ktop > 0 && ab && e->np > 0) anderson_d(e, rt, R, ab, w);
            for (int i = 0; i < R; i++) {
                const double *lm = w->lam + (size_t)i * (size_t)K;
                double c = 0, ca = 0;
                for (int j = 0; j < K; j++) {
                    double x = lm[j] >= 0 ? rt->lo[j] : rt->hi[j];
                    c += lm[j] * x;
                    ca += fabs(lm[j]) * rt->xmag[j];
                }
                w->cst[i] += c;
                w->aux[i] += fabs(c) + ca;
            }
            break;
        }
        /* the ReLU of layer k-1: relaxations, splits and multipliers */
        int64_t o = e->off[k - 1];
        int and = k == 1 && ab && e->np > 0; /* first-layer upper bounds by Anderson's relaxation */
        for (int i = 0; i < R; i++) {
            const double *lm = w->lam + (size_t)i * (size_t)K;
            const float *al = ab ? ab + (size_t)i * e->nv : NULL, *be = ab ? al + nr : NULL;
            const bbd_bnd *bd = it[i].b;
            double *mu = w->mu + (size_t)i * (size_t)K;
            double *va = and ? w->vand + (size_t)i * (size_t)K : NULL;
            double t = 0, ta = 0;
            for (int j = 0; j < K; j++) {
                int64_t f = o + j;
                int s = split_of(&it[i], f);
                double l = bd->rl[f], u = bd->rh[f], v = lm[j], tb;
                if (va) va[j] = 0;
                if (va && s == 0 && l < 0 && u > 0 && v < 0) { /* Anderson's relaxation, below */
                    mu[j] = 0;
                    va[j] = v;
                    continue;
                }
                mu[j] = nnc_bab_back_d(s, l, u, v, be ? be[f] : 0.0, al ? al[f] : u >= -l ? 1.0 : 0.0, bd->au[f],
                                       bd->bu[f], &tb);
                t += tb;
                ta += fabs(tb);
            }
            w->cst[i] += t;
            w->aux[i] += fabs(t) + ta;
        }
    }
    for (int i = 0; i < R; i++) lower[i] = nnc_bab_lower(w->cst[i], w->err[i], w->aux[i], g);
}

/* Eight running sums, as two vectors of four floats (GCC's vector
 * extension; SSE registers on the baseline path): lanes 0-3 and 4-7 of
 * eight consecutive elements.  The sums below fold them, then the tail,
 * in a fixed order, so every path gives the same bits. */
typedef float bbd_v4f __attribute__((vector_size(16)));
typedef int32_t bbd_v4i __attribute__((vector_size(16)));

static inline bbd_v4f v4_load(const float *p)
{
    bbd_v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline float v8_fold(bbd_v4f a, bbd_v4f b, float tail)
{
    return tail + (((a[0] + b[0]) + (a[1] + b[1])) + ((a[2] + b[2]) + (a[3] + b[3])));
}

/* sum of x[0..n) */
static float sum8_f(const float *restrict x, int n)
{
    bbd_v4f a = {0}, b = {0};
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        a += v4_load(x + j);
        b += v4_load(x + j + 4);
    }
    float c = 0;
    for (; j < n; j++) c += x[j];
    return v8_fold(a, b, c);
}

/* x . y over [0, n) */
static float dot8_f(const float *restrict x, const float *restrict y, int n)
{
    bbd_v4f a = {0}, b = {0};
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        a += v4_load(x + j) * v4_load(y + j);
        b += v4_load(x + j + 4) * v4_load(y + j + 4);
    }
    float c = 0;
    for (; j < n; j++) c += x[j] * y[j];
    return v8_fold(a, b, c);
}

/* lm_j lo_j where lm_j >= 0, else lm_j hi_j, for four elements */
static inline bbd_v4f v4_corner(const float *lm, const float *lo, const float *hi)
{
    bbd_v4f v = v4_load(lm);
    bbd_v4i m = v >= 0;
    return v * (bbd_v4f)(((bbd_v4i)v4_load(lo) & m) | ((bbd_v4i)v4_load(hi) & ~m));
}

/* sum_j lm_j (lm_j >= 0 ? lo_j : hi_j), the least of lm . x over the box
 * [lo, hi], in float32 */
static float concretise_f(const float *restrict lm, const float *restrict lo, const float *restrict hi, int K)
{
    bbd_v4f a = {0}, b = {0};
    int j = 0;
    for (; j + 8 <= K; j += 8) {
        a += v4_corner(lm + j, lo + j, hi + j);
        b += v4_corner(lm + j + 4, lo + j + 4, hi + j + 4);
    }
    float c = 0;
    for (; j < K; j++) {
        float v = lm[j], x = lo[j], y = hi[j];
        c += v * (v >= 0 ? x : y);
    }
    return v8_fold(a, b, c);
}

/* x_j = lo_j where lm_j >= 0, else hi_j: the box's corner that minimises
 * lm . x. */
static void corner_f(float *restrict x, const float *restrict lm, const float *restrict lo, const float *restrict hi, int n)
{
    for (int j = 0; j < n; j++) {
        float a = lo[j], b = hi[j]; /* both loaded: a select the compiler vectorises */
        x[j] = lm[j] >= 0 ? a : b;
    }
}

/* nnc_bab_back_f over one layer's neurons 0..K) of an item with no trial
 * split among them and no Anderson relaxation: mu[j] its coefficient on
 * z_j, tb[j] its intercept term.  The cases are selects over values all
 * computed, in an order GCC 12 if-converts, so the loop vectorises
 * (restrict: the stores cannot change the splits). */
static void back_relu_f(int K, const signed char *restrict sp, const signed char *restrict st, const float *restrict lm,
                        const float *restrict be, const float *restrict al, const float *restrict au,
                        const float *restrict bu, float *restrict mu, float *restrict tb)
{
    for (int j = 0; j < K; j++) {
        int s = sp[j], t = st[j];
        float v = lm[j], b = be[j];
        float pa = v * al[j], pu = v * au[j], pc = v * bu[j], vb = v - b;
        float r = v >= 0 ? pa : pu, q = v >= 0 ? 0.0f : pc; /* (as nnc_bab_back_f, NaN included) */
        r = t > 0 ? v : r;
        r = t < 0 ? 0.0f : r;
        q = t != 0 ? 0.0f : q;
        r = s > 0 ? vb : r;
        r = s < 0 ? b : r;
        q = s != 0 ? 0.0f : q;
        mu[j] = r;
        tb[j] = q;
    }
}

/* nnc_bab_fwd_f over one layer's neurons 0..N) (pre-activation z + bf):
 * h their relaxed outputs; both gradients written for every neuron, read
 * only where they are a variable's (ga: unstable, unsplit; gb: split).
 * Selects, as back_relu_f, so the loop vectorises. */
static void fwd_relu_f(int N, const signed char *restrict sp, const signed char *restrict st, const float *restrict z,
                       const float *restrict bf, const float *restrict lm, const float *restrict al,
                       const float *restrict au, const float *restrict bu, float *restrict h, float *restrict ga,
                       float *restrict gb)
{
    for (int j = 0; j < N; j++) {
        int s = sp[j], t = st[j];
        float zz = z[j] + bf[j], l = lm[j];
        float pl = l * zz, pa = al[j] * zz, pu = au[j] * zz, nz = -zz;
        float pb = pu + bu[j];
        float hv = l >= 0 ? pa : pb, g = l >= 0 ? pl : 0.0f; /* (as nnc_bab_fwd_f, NaN included) */
        hv = t > 0 ? zz : hv;
        hv = t < 0 ? 0.0f : hv;
        hv = s > 0 ? zz : hv;
        hv = s < 0 ? 0.0f : hv;
        gb[j] = s < 0 ? zz : nz;
        ga[j] = g;
        h[j] = hv;
    }
}

/* The objective rows' bound in float32, without error terms (an estimate,
 * for the optimisation and the branching trials); leaves in w->lamf the
 * bound's coefficients on x and on every h. */
static void backward_f(const nnc_bbd *e, const bbd_root *rt, const nnc_rfn_problem *p, int R, const bbd_item *it,
                       int ktop, const float *ab, double *lower, bbd_ws *w)
{
    int64_t nr = e->nr, ls = (int64_t)e->n_in + nr;
    int N = e->ch->layers[ktop].N;
    int rows = it[0].row >= 0;
    for (int i = 0; i < R; i++) {
        if (rows) {
            const double *c = p->C + (size_t)it[i].row * (size_t)p->n_out;
            for (int j = 0; j < N; j++) w->muf[(size_t)i * (size_t)N + (size_t)j] = (float)c[j];
        }
        w->cur[i] = 0;
    }
    for (int k = ktop; k >= 0; k--) {
        int K = e->ch->layers[k].K;
        N = e->ch->layers[k].N;
        const float *bf = e->bf[k];
        int64_t lo = k == 0 ? 0 : (int64_t)e->n_in + e->off[k - 1];
        float *lam = w->lamf + lo;
        if (k == ktop && !rows) { /* mu = sgn e_nj */
            for (int i = 0; i < R; i++) {
                int j = it[i].nj;
                float sg = it[i].sgn;
                col_f(e, k, j, sg, lam + (size_t)i * (size_t)ls);
                w->cur[i] = sg * bf[j];
            }
        } else {
            for (int i = 0; i < R; i++) {
                w->cur[i] += dot8_f(w->muf + (size_t)i * (size_t)N, bf, N);
            }
            back_f(e, k, R, w->muf, lam, (int)ls, w->xt, w->yt);
        }
        if (k == 0) {
            if (ktop > 0 && e->np > 0) anderson_f(e, rt, R, ab, lam, ls, w);
            for (int i = 0; i < R; i++) w->cur[i] += concretise_f(lam + (size_t)i * (size_t)ls, rt->lof, rt->hif, K);
            break;
        }
        int64_t o = e->off[k - 1];
        int and = k == 1 && e->np > 0;
        for (int i = 0; i < R; i++) {
            const float *lm = lam + (size_t)i * (size_t)ls;
            const float *al = ab + (size_t)i * e->nv + o, *be = al + nr;
            const bbd_bnd *bd = it[i].b;
            const signed char *st = bd->state + o, *sp = it[i].s + o;
            const float *au = bd->auf + o, *bu = bd->buf + o;
            float *mu = w->muf + (size_t)i * (size_t)K;
            float *va = and ? w->vandf + (size_t)i * (size_t)K : NULL;
            int64_t fo = it[i].ovr >= o && it[i].ovr < o + K ? it[i].ovr - o : -1; /* the trial split */
            float *tb = w->tbf;
            if (va) {
                for (int j = 0; j < K; j++) {
                    int s = j == fo ? it[i].ovr_side : sp[j];
                    float v = lm[j];
                    va[j] = 0;
                    tb[j] = 0;
                    if (s == 0 && st[j] == 0 && v < 0) { /* Anderson's relaxation */
                        mu[j] = 0;
                        va[j] = v;
                        continue;
                    }
                    mu[j] = nnc_bab_back_f(s, st[j], v, be[j], al[j], au[j], bu[j], &tb[j]);
                }
            } else {
                /* vectorised (back_relu_f), the trial split after */
                back_relu_f(K, sp, st, lm, be, al, au, bu, mu, tb);
                if (fo >= 0)
                    mu[fo] = nnc_bab_back_f(it[i].ovr_side, st[fo], lm[fo], be[fo], al[fo], au[fo], bu[fo], &tb[fo]);
            }
            w->cur[i] += sum8_f(tb, K);
        }
    }
    for (int i = 0; i < R; i++) lower[i] = w->cur[i] == w->cur[i] ? w->cur[i] : -INFINITY;
}

/* Gradients of the bound backward_f computed (w->lamf, w->vandf as it left
 * them) with respect to the slopes, multipliers and Anderson variables
 * (w->gr, laid out as an item's variables): the forward values of the
 * relaxed network at the minimising input.  Meaningful only where a
 * variable is (unstable neurons' slopes, split neurons' multipliers, in the
 * layers before ktop; the first layer's Anderson variables), and read only
 * there (Adam, through w->vidx); the dense layers' loop (fwd_relu_f) writes
 * both gradients of every neuron. */
static void forward_grad(const nnc_bbd *e, const bbd_root *rt, int R, const bbd_item *it, int ktop, const float *ab,
                         bbd_ws *w)
{
    int64_t nr = e->nr, ls = (int64_t)e->n_in + nr;
    int n = e->n_in;
    float *x = w->hhf;
    for (int i = 0; i < R; i++) {
        const float *lm = w->lamf + (size_t)i * (size_t)ls;
        corner_f(x + (size_t)i * (size_t)n, lm, rt->lof, rt->hif, n);
    }
    int and = ktop > 0 && e->np > 0;
    if (and) {
        /* Anderson's first-layer relaxation (anderson_d): its variables'
         * gradients (0 where a neuron did not take it this time) and the
         * relaxed network's values there, from the brackets anderson_f left */
        const nnc_smp_lin *S = lin_of(e, 0);
        const float *wf = e->wf[0];
        int N0 = e->ch->layers[0].N;
        for (int i = 0; i < R; i++) {
            const float *xi = x + (size_t)i * (size_t)n, *va = w->vandf + (size_t)i * (size_t)N0;
            const float *cv = w->cand + (size_t)i * (size_t)N0;
            const float *pv = ab + (size_t)i * e->nv + 2 * (size_t)nr;
            float *gp = w->gr + (size_t)i * e->nv + 2 * (size_t)nr, *ha = w->hand + (size_t)i * (size_t)N0;
            for (int j = 0; j < N0; j++) {
                float v = va[j];
                if (v == 0) {
                    for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) gp[q] = 0;
                    continue;
                }
                float cs = cv[j], r = 0;
                for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) r += pv[q] * wf[q] * (xi[S->idx[q]] - rt->lbf[q]);
                int on = cs > 0;
                for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++)
                    gp[q] = v * wf[q] * ((xi[S->idx[q]] - rt->lbf[q]) + (on ? rt->lbf[q] - rt->ubf[q] : 0.0f));
                ha[j] = r + (on ? cs : 0.0f);
            }
        }
    }
    for (int k = 0; k < ktop; k++) {
        int N = e->ch->layers[k].N;
        const float *bf = e->bf[k];
        int64_t o = e->off[k];
        const nnc_smp_lin *S = lin_of(e, k);
        if (k + 1 == ktop && e->ch->layers[k].w == NULL) {
            /* a sparse last layer: only the outputs with a variable */
            const float *wf = e->wf[k];
            for (int i = 0; i < R; i++) {
                const float *xi = x + (size_t)i * (size_t)e->ch->layers[k].K;
                const float *lm = w->lamf + (size_t)i * (size_t)ls + n + o;
                const signed char *st = it[i].b->state + o, *sp = it[i].s + o;
                float *ga = w->gr + (size_t)i * e->nv + o, *gb = ga + nr;
                for (int j = 0; j < N; j++) {
                    int s = sp[j];
                    if (s == 0 && st[j]) continue;
                    if (s == 0 && lm[j] < 0) { /* the upper line (or Anderson's): no slope */
                        ga[j] = 0;
                        continue;
                    }
                    float zz = 0;
                    for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) zz += wf[q] * xi[S->idx[q]];
                    zz += bf[j];
                    if (s) gb[j] = s < 0 ? zz : -zz;
                    else ga[j] = lm[j] * zz;
                }
            }
            break;
        }
        fwd_f(e, k, R, x, w->zhf, w->xt, w->yt);
        for (int i = 0; i < R; i++) {
            const float *z = w->zhf + (size_t)i * (size_t)N;
            float *h = w->hhf + (size_t)i * (size_t)N;
            const float *lm = w->lamf + (size_t)i * (size_t)ls + n + o;
            const float *al = ab + (size_t)i * e->nv + o;
            const bbd_bnd *bd = it[i].b;
            const signed char *st = bd->state + o, *sp = it[i].s + o;
            const float *au = bd->auf + o, *bu = bd->buf + o;
            const float *ha = and && k == 0 ? w->hand + (size_t)i * (size_t)N : NULL;
            float *ga = w->gr + (size_t)i * e->nv + o, *gb = ga + nr;
            if (ha) {
                for (int j = 0; j < N; j++) {
                    float gv;
                    int which;
                    h[j] = nnc_bab_fwd_f(sp[j], st[j], z[j] + bf[j], lm[j], al[j], au[j], bu[j], &gv, &which);
                    if (which == 2) gb[j] = gv;
                    else if (which == 1) {
                        ga[j] = gv;
                        if (lm[j] < 0) h[j] = ha[j]; /* Anderson's upper bound in place of the line */
                    }
                }
                continue;
            }
            fwd_relu_f(N, sp, st, z, bf, lm, al, au, bu, h, ga, gb);
        }
        x = w->hhf;
    }
}

/* Optimise objective items it[0..R) (no trial splits) for iters steps in
 * float32, their variables ab left at the best estimate's; then bound them
 * soundly.  Out: lower[i], the sound float64 bound (w->lamf is left in
 * the order of the last step's open items: no coefficients out). */
static void optimise_chunk(const nnc_bbd *e, const bbd_root *rt, const nnc_rfn_problem *p, int R, const bbd_item *it,
                           int ktop, float *ab, int iters, double *lower, bbd_ws *w)
{
    /* the targets: an objective's threshold; a neuron bound's 0 (beyond,
     * the neuron is stable) */
    double tg[BBD_CHUNK];
    for (int i = 0; i < R; i++) tg[i] = it[i].row >= 0 ? p->d[it[i].row] : 0.0;
    int64_t nr = e->nr;
    size_t vn = e->nv, vs = (size_t)nr + (size_t)e->np;
    double cur[BBD_CHUNK], est[BBD_CHUNK];
    /* per item, the variables with a gradient, as offsets in its vn: slopes
     * of unstable neurons and multipliers of split ones, in the layers
     * before ktop (the rest have none), and the Anderson variables of the
     * unstable, unsplit first-layer neurons.  Moments and the best values
     * are kept in that order. */
    int64_t nv[BBD_CHUNK];
    const nnc_smp_lin *S0 = e->np > 0 && ktop > 0 ? lin_of(e, 0) : NULL;
    for (int i = 0; i < R; i++) {
        est[i] = -INFINITY;
        const signed char *sp = it[i].s, *st = it[i].b->state;
        int32_t *vi = w->vidx + (size_t)i * vs;
        int64_t c = 0;
        for (int64_t f = 0; f < e->off[ktop]; f++)
            if (sp[f]) vi[c++] = (int32_t)(nr + f);
            else if (!st[f]) {
                vi[c++] = (int32_t)f;
                if (S0 && f < e->off[1])
                    for (int64_t q = S0->ptr[f]; q < S0->ptr[f + 1]; q++) vi[c++] = (int32_t)(2 * nr + q);
            }
        nv[i] = c;
        memset(w->ma + (size_t)i * vs, 0, sizeof(float) * (size_t)c);
        memset(w->va + (size_t)i * vs, 0, sizeof(float) * (size_t)c);
    }
    /* the variables' values in vidx order, kept beside ab so that Adam's
     * update and the copy of the best are loops over contiguous arrays */
    for (int i = 0; i < R; i++) {
        const float *a = ab + (size_t)i * vn;
        const int32_t *vi = w->vidx + (size_t)i * vs;
        float *aq = w->aq + (size_t)i * vs;
        for (int64_t q = 0; q < nv[i]; q++) aq[q] = a[vi[q]];
        /* the best so far: the start (kept where no step's estimate is
         * finite, as never read uninitialised) */
        memcpy(w->best + (size_t)i * vs, aq, sizeof(float) * (size_t)nv[i]);
    }
    /* the learning rates decay to 0.98^20 of their start over the run (as
     * alpha-beta-CROWN's 0.98 a step over its 20 steps) */
    float b1t = 1, b2t = 1, lr = 1, decay = (float)pow(0.98, 20.0 / (iters > 0 ? iters : 1));
    /* The items still open (their estimate not past the target), compacted
     * at the end of each step so the next step's passes bound only those:
     * position k of the passes is item at[k], its item and variables at
     * itw[k] and abw + k vn (it and ab themselves until an item is done,
     * then copies in w->itc and w->abc; the per-item state above stays at
     * the item's own index).  Which items are dropped depends on the
     * chunk's items alone, so the search stays independent of the thread
     * count; an item's estimates may round differently than in a product
     * with more rows (OpenBLAS picks kernels by size), its sound bound is
     * computed as before. */
    int at[BBD_CHUNK], np = R;
    for (int i = 0; i < R; i++) at[i] = i;
    const bbd_item *itw = it;
    float *abw = ab;
    for (int t = 0;; t++) {
        if (w->tick) p->tick(p->tick_ctx, UINT64_MAX); /* progress (run_pass: the caller's thread) */
        backward_f(e, rt, p, np, itw, ktop, abw, cur, w);
        int open = 0;
        for (int k = 0; k < np; k++) {
            int i = at[k];
            if (cur[k] > est[i]) {
                est[i] = cur[k];
                memcpy(w->best + (size_t)i * vs, w->aq + (size_t)i * vs, sizeof(float) * (size_t)nv[i]);
            }
            open += !(est[i] > tg[i]);
        }
        if (t >= iters || open == 0) break;
        forward_grad(e, rt, np, itw, ktop, abw, w);
        b1t *= NNC_BAB_B1;
        b2t *= NNC_BAB_B2;
        float c1 = 1 / (1 - b1t), c2 = 1 / (1 - b2t);
        for (int k = 0; k < np; k++) {
            int i = at[k];
            if (est[i] > tg[i]) continue; /* done: its variables stay */
            float *a = abw + (size_t)k * vn;
            const float *g = w->gr + (size_t)k * vn;
            float *ma = w->ma + (size_t)i * vs, *va = w->va + (size_t)i * vs, *aq = w->aq + (size_t)i * vs;
            float *gq = w->gq;
            const int32_t *vi = w->vidx + (size_t)i * vs;
            int64_t n = nv[i];
            int32_t b0 = (int32_t)nr, b1 = (int32_t)(2 * nr); /* the multipliers' offsets (vidx is int32) */
            for (int64_t q = 0; q < n; q++) gq[q] = g[vi[q]];
            for (int64_t q = 0; q < n; q++) {
                int32_t f = vi[q];
                int beta = f >= b0 && f < b1;
                aq[q] = nnc_bab_adam(aq[q], gq[q], &ma[q], &va[q], (beta ? NNC_BAB_LR_BETA : NNC_BAB_LR_ALPHA) * lr,
                                     c1, c2, beta);
            }
            for (int64_t q = 0; q < n; q++) a[vi[q]] = aq[q];
        }
        if (open < np) { /* drop the items done from the next steps' passes */
            int m = 0;
            for (int k = 0; k < np; k++) {
                int i = at[k];
                if (est[i] > tg[i]) continue;
                if (abw != w->abc || m != k) memmove(w->abc + (size_t)m * vn, abw + (size_t)k * vn, sizeof(float) * vn);
                w->itc[m] = itw[k];
                at[m++] = i;
            }
            np = m;
            itw = w->itc;
            abw = w->abc;
        }
        lr *= decay;
    }
    for (int i = 0; i < R; i++) {
        float *a = ab + (size_t)i * vn;
        const int32_t *vi = w->vidx + (size_t)i * vs;
        const float *bs = w->best + (size_t)i * vs;
        for (int64_t q = 0; q < nv[i]; q++) a[vi[q]] = bs[q];
    }
    backward(e, rt, p, R, it, ktop, ab, lower, w);
}

/* ---- the search ---- */

/* A warm start: the parent's optimised variables, one block of nv floats
 * per disjunct still open, shared by the two children of its split. */
typedef struct bbd_warm {
    int refs;
    size_t bytes;
    size_t *held; /* the search's count of bytes held, kept up to date */
    float v[];
} bbd_warm;

static bbd_warm *warm_alloc(size_t nfloat, size_t *held)
{
    size_t bytes = sizeof(bbd_warm) + sizeof(float) * nfloat;
    bbd_warm *w = malloc(bytes);
    if (w == NULL) return NULL;
    w->refs = 1;
    w->bytes = bytes;
    w->held = held;
    *held += bytes;
    return w;
}

static void warm_release(bbd_warm *w)
{
    if (w == NULL || --w->refs > 0) return;
    *w->held -= w->bytes;
    free(w);
}

/* A sub-problem: its splits, its bounds (shared or owned) and the first
 * layer whose bounds its last split may tighten (kfrom; L: none), and per
 * disjunct still open the row chosen for it and its warm start (alpha,
 * beta and Anderson's variables as floats; NULL: cold). */
typedef struct bbd_dom {
    signed char *s;
    bbd_bnd *b;
    int kfrom;
    int nit;
    int *rows;
    bbd_warm *ab; /* nit x nv, or NULL */
    bbd_warm *cf; /* nr: the parent's hardest row's coefficients on each h, or NULL */
} bbd_dom;

static void dom_free(bbd_dom *d, int64_t nr)
{
    free(d->s);
    bnd_release(d->b, nr);
    free(d->rows);
    warm_release(d->ab);
    warm_release(d->cf);
    d->cf = NULL;
    d->s = NULL;
    d->b = NULL;
    d->rows = NULL;
    d->ab = NULL;
}

/* CROWN's adaptive slopes, zero multipliers, and Anderson's variables as
 * the chord. */
static void init_vars(const nnc_bbd *e, const bbd_bnd *b, float *ab)
{
    for (int64_t f = 0; f < e->nr; f++) {
        ab[f] = b->rh[f] >= -b->rl[f] ? 1.0f : 0.0f;
        ab[e->nr + f] = 0;
    }
    if (e->np > 0) { /* Anderson's p at the chord's slope u / (u - l): the chord's bound to start from */
        const nnc_smp_lin *S = lin_of(e, 0);
        float *pv = ab + 2 * (size_t)e->nr;
        for (int j = 0; j < e->ch->layers[0].N; j++) {
            double l = b->rl[j], u = b->rh[j];
            float c = l < 0 && u > 0 ? (float)(u / (u - l)) : 1.0f;
            for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) pv[q] = c;
        }
    }
}

/* Items [0, n) in chunks of e->chunk on the threads. */
typedef struct bbd_pass {
    const nnc_bbd *e;
    const bbd_root *rt;
    const nnc_rfn_problem *p;
    bbd_item *items;
    float *ab;       /* n x 2 nr (mode >= 0, or -1) */
    double *lower;   /* n */
    float *coef;     /* n x nr, or NULL: the bound's coefficient on each h (mode -1 only) */
    int mode;        /* >= 0: optimise that many steps, then bound soundly; -1: one float32 estimate
                        (not sound); -2: sound bounds with CROWN's slopes and no multipliers */
    int ktop;        /* L - 1: the items are objective rows; else bounds of layer ktop's neurons */
    double deadline; /* > 0: chunks not begun by then are skipped (their bounds -inf) */
    int ab_unread;   /* 1: nothing reads the optimised variables after the pass (a team's
                        exchange leaves them out: each rank keeps those of its own items) */
    /* a team's pass (run_pass), or NULL: per chunk, the variables its items
       changed (diff_encode), for the exchange; a skipped chunk none (NULL,
       length 0), one out of memory NULL, length SIZE_MAX */
    unsigned char **dbuf;
    size_t *dlen;
} bbd_pass;

static void gpu_tick(void *ctx)
{
    const nnc_rfn_problem *p = ctx;
    p->tick(p->tick_ctx, UINT64_MAX);
}

/* Items per call of the device's pass: the deadline is checked between. */
#define BBD_GPU_GROUP 2048

/* run_pass on the device (rt->gpu): items in groups of BBD_GPU_GROUP, each
 * group's sub-problems listed once (an item's neighbours usually share
 * it).  Returns the number of groups skipped past the deadline, or -1
 * where the device failed (err says why; nothing of the pass is then
 * trusted). */
static int run_pass_gpu(const bbd_pass *ps, size_t n, int may_tick, char *err, size_t errlen)
{
    const nnc_bbd *e = ps->e;
    const bbd_root *rt = ps->rt;
    size_t G = n < BBD_GPU_GROUP ? n : BBD_GPU_GROUP;
    nnc_gpu_bab_item *gi = malloc(sizeof *gi * G);
    const signed char **sp = malloc(sizeof *sp * G);
    const void **bp = malloc(sizeof *bp * G);
    int skipped = 0;
    if (!gi || !sp || !bp) {
        free(gi); free(sp); free(bp);
        nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        return -1;
    }
    for (size_t i0 = 0; i0 < n; i0 += G) {
        size_t R = n - i0 < G ? n - i0 : G, nd = 0;
        if (ps->deadline > 0 && bclock_local(ps->rt) > ps->deadline) {
            for (size_t i = 0; i < R; i++) ps->lower[i0 + i] = -INFINITY;
            skipped++;
            continue;
        }
        for (size_t i = 0; i < R; i++) {
            const bbd_item *it = &ps->items[i0 + i];
            if (nd == 0 || sp[nd - 1] != it->s || bp[nd - 1] != it->b->rl) {
                sp[nd] = it->s;
                bp[nd++] = it->b->rl;
            }
            gi[i] = (nnc_gpu_bab_item){.dom = (int32_t)(nd - 1), .row = it->row, .nj = it->nj, .sgn = it->sgn,
                                       .ovr_side = it->ovr_side, .ovr = it->ovr};
        }
        nnc_gpu_bab_pass gp = {
            .mode = ps->mode, .ktop = ps->ktop, .n = R, .items = gi, .ndom = nd, .split = sp, .bnd = bp,
            .nrows = ps->p->nrows, .n_out = ps->p->n_out, .C = ps->p->C, .d = ps->p->d,
            .lo = rt->lo, .hi = rt->hi, .xmag = rt->xmag, .lof = rt->lof, .hif = rt->hif, .ew = rt->ew,
            .ab = ps->ab ? ps->ab + i0 * e->nv : NULL, .lower = ps->lower + i0,
            .coef = ps->coef ? ps->coef + i0 * (size_t)e->nr : NULL,
            .tick = may_tick ? gpu_tick : NULL, .tick_ctx = (void *)ps->p};
        if (nnc_gpu_bab_run(rt->gpu, &gp, err, errlen) != NNC_STATUS_OK) {
            skipped = -1;
            break;
        }
        if (may_tick) ps->p->tick(ps->p->tick_ctx, UINT64_MAX);
    }
    free(gi);
    free(sp);
    free(bp);
    return skipped;
}

/* A team's record of the variables R items changed, from before (their
 * values before the pass) to after, bit for bit: per item a uint32 count m,
 * then m uint32 offsets in the item's nv and m floats.  Out: *out
 * (malloc'd), *len; returns 0, or -1 out of memory. */
static int diff_encode(const float *before, const float *after, int R, size_t vn, unsigned char **out, size_t *len)
{
    uint32_t *idx = malloc(sizeof(uint32_t) * (vn + 1));
    size_t cap = sizeof(uint32_t) * (size_t)R + 1024, at = 0;
    unsigned char *b = malloc(cap);
    if (!idx || !b) {
        free(idx);
        free(b);
        return -1;
    }
    for (int i = 0; i < R; i++) {
        const float *x = before + (size_t)i * vn, *y = after + (size_t)i * vn;
        uint32_t k = 0;
        for (size_t q = 0; q < vn; q++) {
            uint32_t u, v;
            memcpy(&u, &x[q], sizeof u);
            memcpy(&v, &y[q], sizeof v);
            idx[k] = (uint32_t)q;
            k += u != v;
        }
        size_t need = sizeof k + (sizeof(uint32_t) + sizeof(float)) * k + sizeof(uint32_t) * (size_t)(R - i - 1);
        if (cap - at < need) {
            size_t nc = 2 * cap > at + need ? 2 * cap : at + need;
            unsigned char *nb = realloc(b, nc);
            if (nb == NULL) {
                free(idx);
                free(b);
                return -1;
            }
            b = nb;
            cap = nc;
        }
        memcpy(b + at, &k, sizeof k);
        at += sizeof k;
        memcpy(b + at, idx, sizeof(uint32_t) * k);
        at += sizeof(uint32_t) * k;
        for (uint32_t j = 0; j < k; j++, at += sizeof(float)) memcpy(b + at, &y[idx[j]], sizeof(float));
    }
    free(idx);
    *out = b;
    *len = at;
    return 0;
}

/* A record of diff_encode applied to R items' variables ab (their values
 * before the pass, as on the sender).  Returns the bytes read, or 0 where
 * the record is malformed (an offset out of range, a short record). */
static size_t diff_apply(const unsigned char *r, size_t len, int R, size_t vn, float *ab)
{
    size_t at = 0;
    for (int i = 0; i < R; i++) {
        uint32_t k;
        if (len - at < sizeof k) return 0;
        memcpy(&k, r + at, sizeof k);
        at += sizeof k;
        if (k > vn || (len - at) / (sizeof(uint32_t) + sizeof(float)) < k) return 0;
        const unsigned char *oi = r + at, *vi = r + at + sizeof(uint32_t) * k;
        for (uint32_t j = 0; j < k; j++) {
            uint32_t o;
            memcpy(&o, oi + sizeof o * j, sizeof o);
            if (o >= vn) return 0;
            memcpy(ab + (size_t)i * vn + o, vi + sizeof(float) * j, sizeof(float));
        }
        at += (sizeof(uint32_t) + sizeof(float)) * k;
    }
    return at;
}

/* The items of chunk c of a pass of n items in chunks of CH. */
static size_t chunk_items(size_t n, size_t c, size_t CH) { return n - c * CH < CH ? n - c * CH : CH; }

/* One chunk (items c CH ...) of a pass on workspace w; returns 1 where it
 * was skipped past the deadline.  tick: w's thread may report progress. */
static int pass_chunk(const bbd_pass *ps, size_t n, size_t c, bbd_ws *w, int tick)
{
    const nnc_bbd *e = ps->e;
    size_t CH = (size_t)e->chunk, vn = e->nv, i0 = c * CH;
    int64_t ls = (int64_t)e->n_in + e->nr;
    int R = (int)chunk_items(n, c, CH);
    if (ps->deadline > 0 && bclock_local(ps->rt) > ps->deadline) {
        for (int i = 0; i < R; i++) ps->lower[i0 + (size_t)i] = -INFINITY;
        return 1;
    }
    w->tick = tick;
    int diff = ps->dbuf != NULL && ps->mode >= 0;
    if (diff && w->abin == NULL) w->abin = malloc(sizeof(float) * CH * vn);
    if (diff && w->abin) memcpy(w->abin, ps->ab + i0 * vn, sizeof(float) * vn * (size_t)R);
    if (ps->mode == -2) backward(e, ps->rt, ps->p, R, ps->items + i0, ps->ktop, NULL, ps->lower + i0, w);
    else if (ps->mode == -1)
        backward_f(e, ps->rt, ps->p, R, ps->items + i0, ps->ktop, ps->ab + i0 * vn, ps->lower + i0, w);
    else optimise_chunk(e, ps->rt, ps->p, R, ps->items + i0, ps->ktop, ps->ab + i0 * vn, ps->mode, ps->lower + i0, w);
    /* (out of memory: no record, and run_pass ends the search) */
    if (diff && (w->abin == NULL || diff_encode(w->abin, ps->ab + i0 * vn, R, vn, &ps->dbuf[c], &ps->dlen[c]))) {
        ps->dbuf[c] = NULL;
        ps->dlen[c] = SIZE_MAX;
    }
    if (ps->coef && ps->mode == -1) /* (optimise_chunk leaves w->lamf compacted) */
        for (int i = 0; i < R; i++)
            memcpy(ps->coef + (i0 + (size_t)i) * (size_t)e->nr, w->lamf + (size_t)i * (size_t)ls + e->n_in,
                   sizeof(float) * (size_t)e->nr);
    if (w->tick) ps->p->tick(ps->p->tick_ctx, UINT64_MAX);
    w->tick = 0;
    return 0;
}

/* Items [0, n) of ps on this process.  Returns the number of chunks
 * skipped past ps->deadline (0 without one). */
static int run_pass_local(const bbd_pass *ps, size_t n, bbd_ws *ws, int threads)
{
    size_t CH = (size_t)ps->e->chunk, nch = (n + CH - 1) / CH;
    int skipped = 0;
    /* progress ticks between chunks and optimisation steps (a pass on a
     * wide net takes seconds), only where the search is not itself a worker
     * of an active parallel region (leaves bounded side by side): inside
     * this pass's region, thread 0 is then the caller */
    int may_tick = ps->p->tick != NULL;
#ifdef _OPENMP
    may_tick &= !omp_in_parallel();
#endif
    if (ps->rt->gpu && n > 0) {
        char err[NNC_ERRBUF_SIZE];
        int s = run_pass_gpu(ps, n, may_tick, err, sizeof err);
        if (s >= 0) return s;
        /* the device failed: this pass, and the search's later ones, on
         * the CPU; nnc_bbd_certify reports it */
        bbd_root *rt = (bbd_root *)ps->rt; /* one search's, on its thread */
        snprintf(rt->gpu_err, sizeof rt->gpu_err, "%s", err);
        rt->gpu = NULL;
    }
    if (threads <= 1 || nch <= 1) {
        for (size_t c = 0; c < nch; c++) skipped += pass_chunk(ps, n, c, &ws[0], may_tick);
        return skipped;
    }
    /* chunks claimed one at a time; thread 0 (the caller, the one that may
     * report) keeps ticking while the others finish theirs, so a pass whose
     * last chunk runs on another thread still gives a line every second
     * (it sleeps between polls, where the barrier would have spun) */
    size_t next = 0, done = 0;
#pragma omp parallel num_threads(threads) reduction(+ : skipped)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        for (;;) {
            size_t c;
#pragma omp atomic capture
            c = next++;
            if (c >= nch) break;
            skipped += pass_chunk(ps, n, c, &ws[t], may_tick && t == 0);
#pragma omp atomic update
            done++;
        }
        while (may_tick && t == 0) {
            size_t d;
#pragma omp atomic read seq_cst
            d = done;
            if (d >= nch) break;
            ps->p->tick(ps->p->tick_ctx, UINT64_MAX); /* (rate-limited by the caller: cheap) */
            nanosleep(&(struct timespec){0, 200000}, NULL); /* 0.2 ms: the pass ends at most that late */
        }
    }
    return skipped;
}

/* Rank q's items [*i0, *i1) of a pass of n items: its share of the chunks
 * (nnc_team_share). */
static void team_range(const bbd_root *rt, int q, size_t n, size_t CH, size_t *i0, size_t *i1)
{
    nnc_team t = *rt->team;
    uint64_t c0, c1;
    t.rank = q;
    nnc_team_share(&t, (n + CH - 1) / CH, &c0, &c1);
    *i0 = c0 * CH < n ? c0 * CH : n;
    *i1 = c1 * CH < n ? c1 * CH : n;
}

/* Items [0, n) of ps: on this process, or in a team this rank's share of
 * the chunks, then every rank's bounds, optimised variables (mode >= 0) and
 * coefficients (ps->coef, mode -1) by one exchange (refine_impl.h, Teams).
 * Returns the number of chunks skipped past ps->deadline, over the team (all
 * of them once an exchange failed: their bounds -inf). */
static int run_pass(const bbd_pass *ps, size_t n, bbd_ws *ws, int threads)
{
    bbd_root *rt = (bbd_root *)ps->rt; /* one search's, on its thread */
    if (rt->team == NULL) return run_pass_local(ps, n, ws, threads);
    if (n == 0) return 0; /* (alike on every rank) */
    const nnc_bbd *e = ps->e;
    size_t CH = (size_t)e->chunk, vn = e->nv, nr = (size_t)e->nr, i0, i1;
    int gab = ps->ab != NULL && ps->mode >= 0 && !ps->ab_unread, gco = ps->coef != NULL && ps->mode == -1;
    int skipped = 0;
    team_range(rt, rt->team->rank, n, CH, &i0, &i1);
    size_t nc = (i1 - i0 + CH - 1) / CH, per = sizeof(double) + (gco ? sizeof(float) * nr : 0);
    unsigned char **dbuf = NULL, *mine = NULL, *all = NULL;
    size_t *dlen = NULL;
    if (!rt->tst && !rt->lst && gab) {
        dbuf = calloc(nc + 1, sizeof *dbuf);
        dlen = calloc(nc + 1, sizeof *dlen);
        if (!dbuf || !dlen) rt->lst = NNC_STATUS_NOMEM;
    }
    /* (after a failure the search ends; a failure of this rank's own is
     * told to the others at its last exchange, team_end) */
    if (!rt->tst && !rt->lst && i1 > i0) {
        bbd_pass sub = *ps;
        sub.items += i0;
        sub.lower += i0;
        if (sub.ab) sub.ab += i0 * vn;
        if (sub.coef) sub.coef += i0 * nr;
        /* the changed variables: per chunk as it ends (pass_chunk), or on
         * the device, whose passes do not go through it, from a copy of the
         * range's variables before the pass */
        float *before = NULL;
        if (dbuf && (rt->gpu || e->diff_copy) && (before = malloc(sizeof(float) * vn * (i1 - i0))) == NULL) rt->lst = NNC_STATUS_NOMEM;
        if (before) memcpy(before, sub.ab, sizeof(float) * vn * (i1 - i0));
        sub.dbuf = before ? NULL : dbuf;
        sub.dlen = before ? NULL : dlen;
        if (!rt->lst) skipped = run_pass_local(&sub, i1 - i0, ws, threads);
        for (size_t c = 0; before && c < nc; c++) {
            size_t R = chunk_items(i1 - i0, c, CH);
            if (diff_encode(before + c * CH * vn, sub.ab + c * CH * vn, (int)R, vn, &dbuf[c], &dlen[c])) {
                dbuf[c] = NULL;
                dlen[c] = SIZE_MAX;
            }
        }
        free(before);
    }
    /* the message: skipped chunks, bounds, coefficients, then per chunk
     * its record of changed variables (its length first) */
    size_t len = sizeof(int32_t) + per * (i1 - i0);
    for (size_t c = 0; dbuf && dlen && !rt->lst && c < nc; c++) {
        size_t R = chunk_items(i1 - i0, c, CH);
        if (dlen[c] == SIZE_MAX) rt->lst = NNC_STATUS_NOMEM;
        len += sizeof(uint64_t) + (dbuf[c] ? dlen[c] : sizeof(uint32_t) * R);
    }
    if (!rt->tst && !rt->lst && (mine = malloc(len)) == NULL) rt->lst = NNC_STATUS_NOMEM;
    if (mine) {
        unsigned char *w = mine;
        int32_t sk = skipped;
        memcpy(w, &sk, sizeof sk);
        w += sizeof sk;
        memcpy(w, ps->lower + i0, sizeof(double) * (i1 - i0));
        w += sizeof(double) * (i1 - i0);
        if (gco) memcpy(w, ps->coef + i0 * nr, sizeof(float) * nr * (i1 - i0));
        w += gco ? sizeof(float) * nr * (i1 - i0) : 0;
        for (size_t c = 0; dbuf && c < nc; c++) {
            size_t R = chunk_items(i1 - i0, c, CH);
            uint64_t l = dbuf[c] ? dlen[c] : sizeof(uint32_t) * R;
            memcpy(w, &l, sizeof l);
            w += sizeof l;
            if (dbuf[c]) memcpy(w, dbuf[c], dlen[c]);
            else memset(w, 0, (size_t)l); /* skipped: nothing changed */
            w += l;
        }
        team_xchg(rt, mine, len, &all, -1);
        free(mine);
    }
    for (size_t c = 0; dbuf && dlen && c < nc; c++) free(dbuf[c]);
    free(dbuf);
    free(dlen);
    skipped = 0;
    size_t off = 0;
    for (int q = 0; all && q < rt->team->size; q++) {
        size_t a, b, at = 0, ql = rt->tlens[q];
        team_range(rt, q, n, CH, &a, &b);
        const unsigned char *r = all + off;
        int ok = ql >= sizeof(int32_t) + per * (b - a);
        if (ok) {
            int32_t sk;
            memcpy(&sk, r, sizeof sk);
            at = sizeof sk;
            skipped += sk;
            if (q != rt->team->rank) {
                memcpy(ps->lower + a, r + at, sizeof(double) * (b - a));
                if (gco) memcpy(ps->coef + a * nr, r + at + sizeof(double) * (b - a), sizeof(float) * nr * (b - a));
            }
            at += per * (b - a);
        }
        for (size_t c = 0; ok && gab && a + c * CH < b; c++) {
            int R = (int)chunk_items(b - a, c, CH);
            uint64_t l;
            if (ql - at < sizeof l) { ok = 0; break; }
            memcpy(&l, r + at, sizeof l);
            at += sizeof l;
            if (l > ql - at) { ok = 0; break; }
            if (q != rt->team->rank && diff_apply(r + at, (size_t)l, R, vn, ps->ab + (a + c * CH) * vn) != l) { ok = 0; break; }
            at += (size_t)l;
        }
        if (!ok || at != ql) {
            rt->tst = nnc_err(rt->terr, rt->terrlen, NNC_STATUS_INVALID,
                              "rank %d sent a malformed pass in the ReLU-split search", q);
            break;
        }
        off += ql;
    }
    free(all);
    if (rt->tst || rt->lst) { /* the search ends: nothing of this pass is trusted */
        for (size_t i = 0; i < n; i++) ps->lower[i] = -INFINITY;
        return (int)((n + CH - 1) / CH);
    }
    return skipped;
}

/* An unstable neuron's relaxation gap: the intercept -l u / (u - l) of the
 * chord over [l, u]; BaBSR's score is |coef| times it (candidates, choose). */
static double relax_gap(double l, double u) { return -l * u / (u - l); }

/* The neurons to try (filtered smart branching): the kmax best by the score
 * |coef_f| relax_gap(l, u) among unstable, unsplit neurons f < fend;
 * unstable ones with a zero coefficient only when there is nothing else. */
static int candidates(const bbd_bnd *b, const signed char *s, const float *coef, int64_t fend, int kmax,
                      int64_t *cand)
{
    double sc[NNC_BBD_FSB_CANDIDATES];
    int nc = 0;
    int64_t any = -1;
    double best_any = -1;
    for (int64_t f = 0; f < fend; f++) {
        double l = b->rl[f], u = b->rh[f];
        if (s[f] || !(l < 0 && u > 0)) continue;
        double gap = relax_gap(l, u), v = fabs(coef[f]) * gap;
        if (gap > best_any) {
            best_any = gap;
            any = f;
        }
        if (!(v > 0)) continue;
        int k = nc < kmax ? nc++ : kmax;
        if (k == kmax) {
            if (v <= sc[k - 1]) continue;
            k--;
        }
        while (k > 0 && sc[k - 1] < v) {
            sc[k] = sc[k - 1];
            cand[k] = cand[k - 1];
            k--;
        }
        sc[k] = v;
        cand[k] = f;
    }
    if (nc == 0 && any >= 0) cand[nc++] = any;
    return nc;
}

/* A neuron's share of a bound's relaxation loss (BaBSR's score). */
typedef struct bbd_score {
    double v;
    int j;
} bbd_score;

/* Larger scores first; ties by index, so the order is the same everywhere. */
static int score_desc(const void *a, const void *b)
{
    const bbd_score *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? 1 : -1;
    return (x->j > y->j) - (x->j < y->j);
}

/* Scratch that grows with the round. */
typedef struct bbd_buf {
    bbd_item *items;
    float *ab;
    double *lower;
    size_t cap;   /* items and lower */
    size_t abcap; /* items' variables ab has room for (a buffer may be used without them first) */
    unsigned char *sel; /* tighten: one layer's neurons chosen (wmax) */
    bbd_score *sc;      /* tighten: their scores (wmax) */
} bbd_buf;

/* Branching trials: both children (the +1 side first) of each of the nc
 * candidates of item it (its splits, bounds and objective), each with the
 * item's optimised variables ab, into tb from index t.  Returns the index
 * after them. */
static size_t trial_items(const nnc_bbd *e, const bbd_item *it, const int64_t *cand, int nc, const float *ab, bbd_buf *tb,
                          size_t t)
{
    for (int c = 0; c < nc; c++)
        for (int side = 1; side >= -1; side -= 2, t++) {
            bbd_item x = *it;
            x.ovr = cand[c];
            x.ovr_side = (signed char)side;
            tb->items[t] = x;
            memcpy(tb->ab + t * e->nv, ab, sizeof(float) * e->nv);
        }
    return t;
}

/* The candidate whose worse child bounds highest (lower: the trials in
 * trial_items' order); ties, and NaN, keep the earlier, better-scored one. */
static int64_t trial_pick(const double *lower, const int64_t *cand, int nc)
{
    int64_t pick = cand[0];
    double best = -INFINITY;
    for (int c = 0; c < nc; c++) {
        double v = fmin(lower[2 * c], lower[2 * c + 1]);
        if (v > best) {
            best = v;
            pick = cand[c];
        }
    }
    return pick;
}

static int buf_reserve(bbd_buf *b, size_t n, size_t vn)
{
    if (n <= b->cap && (vn == 0 || n <= b->abcap)) return 0;
    size_t c = b->cap ? b->cap : 256;
    while (c < n) c *= 2;
    if (c > b->cap) {
        bbd_item *it = realloc(b->items, sizeof(bbd_item) * c);
        if (it) b->items = it;
        double *lw = realloc(b->lower, sizeof(double) * c);
        if (lw) b->lower = lw;
        if (!it || !lw) return -1;
        b->cap = c;
    }
    if (vn && b->abcap < c) {
        float *ab = realloc(b->ab, sizeof(float) * c * vn);
        if (ab == NULL) return -1;
        b->ab = ab;
        b->abcap = c;
    }
    return 0;
}

/* Hidden-layer bounds re-tightened with optimised variables (tighten,
 * iters > 0): the bytes of their variables per pass (nv floats an item:
 * 12 KB on MNIST 256x6), however large the batch; one sub-problem's items
 * always share a pass. */
#define BBD_TIGHT_BYTES ((size_t)64 << 20)

/* The unstable, unsplit neurons [o, o + N) of sub-problem d whose bounds
 * tighten re-tightens, as sel[j] = 1 (else 0).  With share < 1 and the
 * parent's coefficients, only the fewest, by largest score first, that
 * carry that share of the layer's relaxation loss for the parent's hardest
 * row (BaBSR's score; always at least the first, never
 * one of score 0); the others keep their bounds.  Returns how many. */
static size_t choose(const bbd_dom *d, int64_t o, int64_t N, double share, unsigned char *sel, bbd_score *sc)
{
    const signed char *sp = d->s + o, *st = d->b->state + o;
    size_t nu = 0;
    for (int64_t j = 0; j < N; j++) nu += sel[j] = !sp[j] && !st[j];
    if (!(share < 1) || d->cf == NULL) return nu;
    const float *cf = d->cf->v + o;
    const double *rl = d->b->rl + o, *rh = d->b->rh + o;
    double tot = 0, cum = 0;
    int ns = 0;
    for (int64_t j = 0; j < N; j++) {
        if (!sel[j]) continue;
        double v = fabs(cf[j]) * relax_gap(rl[j], rh[j]);
        sc[ns] = (bbd_score){v > 0 && v < INFINITY ? v : 0, (int)j}; /* (NaN, inf: 0, so the order is total) */
        tot += sc[ns++].v;
        sel[j] = 0;
    }
    qsort(sc, (size_t)ns, sizeof(sc[0]), score_desc);
    nu = 0;
    for (int q = 0; q < ns && sc[q].v > 0 && (q == 0 || cum < share * tot); q++) {
        cum += sc[q].v;
        sel[sc[q].j] = 1;
        nu++;
    }
    return nu;
}

/* Re-tighten the bounds of sub-problems batch[0..m) after their last split:
 * layer by layer from the first one it may change (kfrom), each unstable,
 * unsplit neuron's lower and upper bound with the sub-problem's splits and
 * bounds of the layers before, intersected with the bounds it has.
 * iters == 0: CROWN's slopes and no multipliers.  iters > 0: iters Adam
 * steps of the bound's own slopes and split multipliers (beta-CROWN, as
 * the objectives'), started from the variables the sub-problem inherited
 * for its first open objective (its warm start; CROWN's slopes where it
 * has none), then bounded soundly; a bound stops once it shows the neuron
 * stable; with lshare < 1, only the neurons choose picks for that share.
 * Out: dead[k] = 1 where the bounds cross (no point satisfies the splits:
 * the sub-problem is empty). */
static nnc_status tighten(const nnc_bbd *e, const bbd_root *rt, const nnc_rfn_problem *p, bbd_dom *batch, int m,
                          int *dead, int iters, double lshare, bbd_buf *nb, bbd_ws *ws, int threads, double deadline)
{
    size_t vn = iters > 0 ? e->nv : 0;
    for (int k = 1; k + 1 < e->L; k++) {
        int64_t o = e->off[k], N = e->off[k + 1] - o;
        size_t cap = vn ? BBD_TIGHT_BYTES / (sizeof(float) * vn) : SIZE_MAX;
        /* passes over the sub-problems [d0, d1), a sub-problem's items
         * never divided between two */
        for (int d0 = 0, d1; d0 < m; d0 = d1) {
            size_t n = 0;
            for (d1 = d0; d1 < m; d1++) {
                if (dead[d1] || batch[d1].kfrom > k) continue;
                size_t nu = choose(&batch[d1], o, N, vn ? lshare : 1, nb->sel, nb->sc);
                if (n > 0 && n + 2 * nu > cap) break;
                if (buf_reserve(nb, n + 2 * nu, vn)) return NNC_STATUS_NOMEM;
                for (int64_t j = 0; j < N; j++) {
                    if (!nb->sel[j]) continue;
                    for (int sg = 1; sg >= -1; sg -= 2, n++) {
                        nb->items[n] = (bbd_item){batch[d1].s, batch[d1].b, -1, 0, (signed char)sg, -1, (int)j};
                        if (vn == 0) continue;
                        if (batch[d1].ab) memcpy(nb->ab + n * vn, batch[d1].ab->v, sizeof(float) * vn);
                        else init_vars(e, batch[d1].b, nb->ab + n * vn);
                    }
                }
            }
            if (n == 0) continue;
            /* chunks skipped at the deadline keep their bounds (lower -inf) */
            bbd_pass ps = {e, rt, p, nb->items, vn ? nb->ab : NULL, nb->lower, NULL, vn ? iters : -2, k, deadline, 1,
                           NULL, NULL};
            run_pass(&ps, n, ws, threads);
            size_t i = 0;
            for (int d = d0; d < d1; d++) {
                if (dead[d] || batch[d].kfrom > k) continue;
                bbd_bnd *b = batch[d].b;
                for (; i < n && nb->items[i].b == b; i += 2) {
                    int64_t f = o + nb->items[i].nj;
                    double l = fmax(b->rl[f], nb->lower[i]), u = fmin(b->rh[f], -nb->lower[i + 1]);
                    if (l > u) {
                        dead[d] = 1;
                        continue;
                    }
                    if (l != b->rl[f] || u != b->rh[f]) bnd_set(b, f, l, u);
                }
                while (i < n && nb->items[i].b == b) i++; /* (after dead) */
            }
        }
    }
    return NNC_STATUS_OK;
}

/* ---- the root's hidden layers ---- */

/* A leaf of one neuron bound's split tree (refine_split): its splits (in
 * the layers before the neuron's), its optimised variables, its sound
 * bound. */
typedef struct rs_leaf {
    signed char *s; /* nr + 1 */
    float *ab;      /* nv */
    double lower;
} rs_leaf;

/* One neuron bound (sgn z_nj >= ...) and its tree's open leaves. */
typedef struct rs_obj {
    int nj;
    signed char sg;
    int done;     /* no more expansions */
    int expanded; /* leaves split so far */
    double fin;   /* the least bound of the leaves closed: shown > 0, or with nothing left to split */
    rs_leaf *lv;
    int nl, cap;
} rs_obj;

static void rs_leaf_free(rs_leaf *l)
{
    free(l->s);
    free(l->ab);
    l->s = NULL;
    l->ab = NULL;
}

/* The bound the tree proves: the least over its leaves, closed and open. */
static double rs_bound(const rs_obj *o)
{
    double v = o->fin;
    for (int i = 0; i < o->nl; i++) v = fmin(v, o->lv[i].lower);
    return v;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Adam steps per child of refine_split's trees, each warm-started from
 * its parent's optimised variables: more splits in the time rather than
 * more steps each.  MNIST at 60 s, the 16 instances left open with 20
 * steps: 256x4 prop_12 and 256x6 prop_10 eps 0.05 certified with 5 (19 s,
 * 17 s), none lost; with 2, prop_12 open again. */
#define BBD_RS_ITERS 5

/* Memory of the open leaves of refine_split's trees, all together, by
 * default (nnc_bbd_opts.root_split_bytes): past it no more splits. */
#define BBD_RS_BYTES ((size_t)256 << 20)

/* ReLU splits for the bounds of layer k's neurons that alpha left
 * unstable.  (MNIST 256x4 prop_0 eps 0.05, 12 unstable neurons of the
 * second hidden layer: their exact bounds, by a MILP, make 3 of them
 * stable and the others' intervals 30 to 45% narrower, where the triangle
 * LP stays within 0.5 of CROWN's.)  Each bound sgn z_j >= t is its own
 * branch and bound over the unstable neurons of the layers before k:
 * each round splits every tree's worst open leaf (filtered smart
 * branching, as the search's), its children bounded with their
 * optimised slopes and multipliers warm-started from it; a leaf whose
 * bound exceeds 0 is closed (the neuron is stable on it).  A tree's bound
 * is the least over its leaves, each sound, and the leaves cover the
 * box: a sound bound for the neuron.  A tree stops after budget
 * expansions, when every leaf is closed (then the neuron is stable and
 * the other side's tree stops too), or at the deadline.
 * In: rb's items [0, n), a neuron's two bounds after each other, with
 * their variables and sound bounds from the alpha pass.  iters: Adam steps
 * per child; cap: the open leaves' memory (BBD_RS_BYTES). */
static nnc_status refine_split(const nnc_bbd *e, const bbd_root *rt, const nnc_rfn_problem *p, bbd_dom *d, int k,
                               const bbd_buf *rb, size_t n, int iters, int fsb, int budget, size_t cap,
                               double deadline, bbd_ws *ws, int threads)
{
    int64_t nr = e->nr, o = e->off[k], fend = o; /* splits in the layers before k */
    size_t vn = e->nv, lbytes = (size_t)nr + 1 + sizeof(float) * vn;
    nnc_status st = NNC_STATUS_OK;
    rs_obj *ob = calloc(n + 1, sizeof(rs_obj));
    bbd_buf xb = {0}, tb = {0}; /* expansions (estimates, children); trials */
    float *coef = NULL;
    int64_t *cand = NULL;
    int *ncand = NULL;
    int64_t *pick = NULL;
    rs_leaf *ex = NULL, *kid = NULL; /* a round's leaves split, their children */
    int *exo = NULL, *kido = NULL; /* their bounds' indices */
    size_t excap = 0, kcap = 0, ne = 0;
    if (ob == NULL) return NNC_STATUS_NOMEM;
    {
        /* the objectives: both bounds of each neuron still unstable; when
         * their trees would not have room to grow, those of the neurons
         * with the widest relaxations (-l u / (u - l)) */
        size_t no = 0, held = 0, nun = 0, room = cap / (8 * lbytes);
        double cut = -INFINITY;
        for (size_t i = 0; i < n; i += 2) nun += d->b->state[o + rb->items[i].nj] == 0;
        if (2 * nun > room) {
            double *gap = malloc(sizeof(double) * (nun + 1));
            if (gap == NULL) st = NNC_STATUS_NOMEM;
            for (size_t i = 0, c = 0; gap && i < n; i += 2) {
                int64_t f = o + rb->items[i].nj;
                double l = d->b->rl[f], u = d->b->rh[f];
                if (d->b->state[f] == 0) gap[c++] = -l * u / (u - l);
            }
            if (gap) {
                qsort(gap, nun, sizeof(double), cmp_desc);
                cut = room >= 2 ? gap[room / 2 - 1] : INFINITY;
            }
            free(gap);
        }
        for (size_t i = 0; i < n && !st; i += 2) {
            int64_t f = o + rb->items[i].nj;
            if (d->b->state[f]) continue;
            double l = d->b->rl[f], u = d->b->rh[f];
            if (-l * u / (u - l) < cut || 2 * (no / 2 + 1) > room) continue;
            for (size_t q = i; q < i + 2; q++) {
                rs_obj *ov = &ob[no++];
                memset(ov, 0, sizeof *ov);
                ov->nj = rb->items[q].nj;
                ov->sg = rb->items[q].sgn;
                ov->fin = INFINITY;
                ov->lv = malloc(sizeof(rs_leaf) * 4);
                ov->cap = 4;
                if (ov->lv == NULL) { st = NNC_STATUS_NOMEM; break; }
                rs_leaf *l = &ov->lv[ov->nl++];
                l->s = calloc((size_t)nr + 1, 1);
                l->ab = malloc(sizeof(float) * vn);
                l->lower = rb->lower[q];
                if (!l->s || !l->ab) { st = NNC_STATUS_NOMEM; break; }
                memcpy(l->ab, rb->ab + q * vn, sizeof(float) * vn);
            }
            if (st) break;
        }
        /* rounds: every tree's worst open leaf (at most maxne a round, the
         * trees taken in turn), while the open leaves fit */
        held = no * lbytes;
        size_t rot = 0, maxne = cap / (sizeof(float) * vn * (2 * (size_t)fsb + 3));
        if (maxne < 1) maxne = 1;
        while (!st && bclock(rt) < deadline && held <= cap) {
            ne = 0;
            for (size_t qi = 0; qi < no && ne < maxne; qi++) {
                size_t q = (qi + rot) % no;
                rs_obj *ov = &ob[q];
                if (ov->done || ov->nl == 0) continue;
                if (ov->expanded >= budget) { ov->done = 1; continue; }
                int w = 0;
                for (int i = 1; i < ov->nl; i++)
                    if (ov->lv[i].lower < ov->lv[w].lower) w = i;
                if (ne >= excap) {
                    size_t nc = excap ? 2 * excap : 256;
                    rs_leaf *nx = realloc(ex, sizeof(rs_leaf) * nc);
                    if (nx) ex = nx;
                    int *nxo = realloc(exo, sizeof(int) * nc);
                    if (nxo) exo = nxo;
                    int64_t *nxc = realloc(cand, sizeof(int64_t) * nc * NNC_BBD_FSB_CANDIDATES);
                    if (nxc) cand = nxc;
                    int *nxn = realloc(ncand, sizeof(int) * nc);
                    if (nxn) ncand = nxn;
                    int64_t *nxp = realloc(pick, sizeof(int64_t) * nc);
                    if (nxp) pick = nxp;
                    float *nxf = realloc(coef, sizeof(float) * nc * (size_t)nr);
                    if (nxf) coef = nxf;
                    if (!nx || !nxo || !nxc || !nxn || !nxp || !nxf) { st = NNC_STATUS_NOMEM; break; }
                    excap = nc;
                }
                ex[ne] = ov->lv[w];
                exo[ne++] = (int)q;
                ov->lv[w] = ov->lv[--ov->nl];
                ov->expanded++;
            }
            if (st || ne == 0) break;
            rot += ne;
            /* candidates: coefficients with CROWN's slopes (as the search's) */
            if (buf_reserve(&xb, 2 * ne, vn) || buf_reserve(&tb, 2 * ne * (size_t)fsb, vn)) { st = NNC_STATUS_NOMEM; break; }
            for (size_t i = 0; i < ne; i++) {
                rs_obj *ov = &ob[exo[i]];
                xb.items[i] = (bbd_item){ex[i].s, d->b, -1, 0, ov->sg, -1, ov->nj};
                init_vars(e, d->b, xb.ab + i * vn);
            }
            bbd_pass cp = {e, rt, p, xb.items, xb.ab, xb.lower, coef, -1, k, 0, 0, NULL, NULL};
            run_pass(&cp, ne, ws, threads);
            size_t nt = 0;
            for (size_t i = 0; i < ne; i++) {
                ncand[i] = candidates(d->b, ex[i].s, coef + i * (size_t)nr, fend, fsb, cand + i * NNC_BBD_FSB_CANDIDATES);
                pick[i] = ncand[i] > 0 ? cand[i * NNC_BBD_FSB_CANDIDATES] : -1;
                if (ncand[i] > 1) nt = trial_items(e, &xb.items[i], cand + i * NNC_BBD_FSB_CANDIDATES, ncand[i], ex[i].ab, &tb, nt);
            }
            if (nt > 0) {
                bbd_pass tp = {e, rt, p, tb.items, tb.ab, tb.lower, NULL, -1, k, 0, 0, NULL, NULL};
                run_pass(&tp, nt, ws, threads);
            }
            nt = 0;
            for (size_t i = 0; i < ne; i++) {
                if (ncand[i] < 2) continue;
                pick[i] = trial_pick(tb.lower + nt, cand + i * NNC_BBD_FSB_CANDIDATES, ncand[i]);
                nt += 2 * (size_t)ncand[i];
            }
            /* the children, each with its own splits and variables */
            if (ne > kcap) {
                rs_leaf *nk = realloc(kid, sizeof(rs_leaf) * 2 * ne);
                if (nk) kid = nk;
                int *nko = realloc(kido, sizeof(int) * 2 * ne);
                if (nko) kido = nko;
                if (!nk || !nko) st = NNC_STATUS_NOMEM;
                else kcap = ne;
            }
            size_t nc = 0;
            for (size_t i = 0; i < ne && !st; i++) {
                rs_obj *ov = &ob[exo[i]];
                if (pick[i] < 0) { /* nothing to split: the leaf's bound is final */
                    ov->fin = fmin(ov->fin, ex[i].lower);
                    continue;
                }
                for (int c = 0; c < 2; c++, nc++) {
                    rs_leaf *kd = &kid[nc];
                    kido[nc] = exo[i];
                    kd->s = malloc((size_t)nr + 1);
                    kd->ab = malloc(sizeof(float) * vn);
                    if (!kd->s || !kd->ab) {
                        st = NNC_STATUS_NOMEM;
                        nc++;
                        break;
                    }
                    memcpy(kd->s, ex[i].s, (size_t)nr + 1);
                    kd->s[pick[i]] = c == 0 ? 1 : -1;
                    xb.items[nc] = (bbd_item){kd->s, d->b, -1, 0, ov->sg, -1, ov->nj};
                    memcpy(xb.ab + nc * vn, ex[i].ab, sizeof(float) * vn);
                }
            }
            for (size_t i = 0; i < ne; i++) rs_leaf_free(&ex[i]);
            held -= ne * lbytes;
            ne = 0;
            if (!st) {
                bbd_pass ps = {e, rt, p, xb.items, xb.ab, xb.lower, NULL, iters, k, 0, 0, NULL, NULL};
                run_pass(&ps, nc, ws, threads);
            }
            for (size_t i = 0; i < nc; i++) {
                rs_leaf *kd = &kid[i];
                rs_obj *ov = &ob[kido[i]];
                if (!st && xb.lower[i] > 0) ov->fin = fmin(ov->fin, xb.lower[i]); /* closed: stable there */
                else if (!st && ov->nl == ov->cap) {
                    rs_leaf *nl = realloc(ov->lv, sizeof(rs_leaf) * 2 * (size_t)ov->cap);
                    if (nl) {
                        ov->lv = nl;
                        ov->cap *= 2;
                    } else st = NNC_STATUS_NOMEM;
                }
                if (st || xb.lower[i] > 0) {
                    rs_leaf_free(kd);
                    continue;
                }
                memcpy(kd->ab, xb.ab + i * vn, sizeof(float) * vn);
                kd->lower = xb.lower[i];
                ov->lv[ov->nl++] = *kd;
                held += lbytes;
            }
            /* a tree with every leaf closed above 0 makes its neuron stable:
             * the other bound's tree has nothing left to gain */
            for (size_t q = 0; q < no; q++)
                if (ob[q].nl == 0 && ob[q].fin > 0) {
                    ob[q].done = 1;
                    ob[q ^ 1].done = 1;
                }
        }
        /* the bounds */
        for (size_t q = 0; q < no; q += 2) {
            int64_t f = o + ob[q].nj;
            double l = fmax(d->b->rl[f], rs_bound(&ob[q])), u = fmin(d->b->rh[f], -rs_bound(&ob[q + 1]));
            if (!st && l <= u && (l != d->b->rl[f] || u != d->b->rh[f])) bnd_set(d->b, f, l, u);
        }
        for (size_t q = 0; q < no; q++) {
            for (int i = 0; i < ob[q].nl; i++) rs_leaf_free(&ob[q].lv[i]);
            free(ob[q].lv);
        }
    }
    for (size_t i = 0; i < ne; i++) rs_leaf_free(&ex[i]); /* (after an error) */
    free(ob); free(ex); free(kid); free(kido); free(exo); free(cand); free(ncand); free(pick); free(coef);
    free(xb.items); free(xb.ab); free(xb.lower); free(tb.items); free(tb.ab); free(tb.lower);
    return st;
}

/* alpha-CROWN on the hidden layers of sub-problem d (no splits): layer by
 * layer from the second, each unstable neuron's lower and upper bound by
 * iters steps of its own slopes, bounded soundly and intersected with what
 * it had, until the deadline; then, with split_budget > 0, ReLU splits on
 * the neurons still unstable (refine_split, that many expansions per bound,
 * within an equal share of the time left per layer left). */
static nnc_status refine_root(const nnc_bbd *e, const bbd_root *rt, const nnc_rfn_problem *p, bbd_dom *d, int iters,
                              int fsb, int split_budget, size_t split_bytes, double deadline, bbd_buf *rb, bbd_ws *ws,
                              int threads)
{
    size_t vn = e->nv;
    nnc_status st = NNC_STATUS_OK;
    for (int k = 1; k + 1 < e->L && bclock(rt) < deadline && !st; k++) {
        size_t n = 0;
        int64_t o = e->off[k], N = e->off[k + 1] - o;
        for (int64_t j = 0; j < N; j++) {
            if (d->s[o + j] || d->b->state[o + j]) continue;
            if (buf_reserve(rb, n + 2, vn)) return NNC_STATUS_NOMEM;
            for (int sg = 1; sg >= -1; sg -= 2, n++) {
                rb->items[n] = (bbd_item){d->s, d->b, -1, 0, (signed char)sg, -1, (int)j};
                init_vars(e, d->b, rb->ab + n * vn);
            }
        }
        if (n == 0) continue;
        /* chunks not begun by the deadline keep their bounds (lower -inf) */
        bbd_pass ps = {e, rt, p, rb->items, rb->ab, rb->lower, NULL, iters, k, deadline, 0, NULL, NULL};
        run_pass(&ps, n, ws, threads);
        for (size_t i = 0; i < n; i += 2) {
            int64_t f = o + rb->items[i].nj;
            double l = fmax(d->b->rl[f], rb->lower[i]), u = fmin(d->b->rh[f], -rb->lower[i + 1]);
            if (l <= u && (l != d->b->rl[f] || u != d->b->rh[f])) bnd_set(d->b, f, l, u);
        }
        if (split_budget > 0) {
            double now = bclock(rt);
            st = refine_split(e, rt, p, d, k, rb, n, BBD_RS_ITERS, fsb, split_budget, split_bytes,
                              now + (deadline - now) / (e->L - 1 - k),
                              ws, threads);
        }
    }
    return st;
}

/* Whether sub-problem d (no splits) is certified by its rows' bounds
 * (iters steps from CROWN's slopes): every disjunct has a row above its
 * threshold.  ib: room for p->nrows items. */
static int root_certified(const nnc_bbd *e, const bbd_root *rt, const nnc_rfn_problem *p, bbd_dom *d, int iters,
                          bbd_buf *ib, bbd_ws *ws, int threads)
{
    for (int r = 0; r < p->nrows; r++) {
        ib->items[r] = (bbd_item){d->s, d->b, -1, 0, 1, r, 0};
        init_vars(e, d->b, ib->ab + (size_t)r * e->nv);
    }
    bbd_pass ps = {e, rt, p, ib->items, ib->ab, ib->lower, NULL, iters, e->L - 1, 0, 1, NULL, NULL};
    run_pass(&ps, (size_t)p->nrows, ws, threads);
    for (int j = 0; j < p->ndisj; j++) {
        int dead = 0;
        for (int r = p->dstart[j]; r < p->dstart[j + 1]; r++) dead |= ib->lower[r] > p->d[r];
        if (!dead) return 0;
    }
    return 1;
}

/* A team's first exchange (refine_impl.h, Teams): rt's clock starts; each
 * rank's digest of what it searches (the caller's box and ReLU bounds, the
 * problem, the options that shape the tree) must be rank 0's; the deadline
 * (*deadline in, this rank's nnc_rfn_now() clock) becomes the earliest
 * rank's, on the team's clock (bclock).  terr: NNC_ERRBUF_SIZE bytes for
 * the team's messages. */
static nnc_status team_begin(const nnc_bbd *e, bbd_root *rt, const nnc_bbd_opts *o, const double *lo,
                             const double *hi, const double *rl, const double *rh, const nnc_rfn_problem *p,
                             char *terr, double *deadline)
{
    rt->team = o->team;
    rt->terr = terr;
    rt->terrlen = NNC_ERRBUF_SIZE;
    rt->tbase = nnc_rfn_now();
    if ((rt->tlens = malloc(sizeof(size_t) * (size_t)o->team->size)) == NULL) /* (no exchange can be made) */
        return rt->tst = nnc_err(terr, NNC_ERRBUF_SIZE, NNC_STATUS_NOMEM, "out of memory");
    struct {
        unsigned char sha[32];
        double left;
    } mine, q0, qq;
    crypto_generichash_state h;
    crypto_generichash_init(&h, NULL, 0, sizeof mine.sha);
#define HASH(ptr, bytes) crypto_generichash_update(&h, (const unsigned char *)(ptr), (bytes))
    size_t ni = sizeof(double) * (size_t)e->n_in, nrb = sizeof(double) * (size_t)e->nr;
    HASH(lo, ni);
    HASH(hi, ni);
    HASH(rl, nrb);
    HASH(rh, nrb);
    int32_t shape[4] = {p->nrows, p->ndisj, p->n_out, e->chunk};
    HASH(shape, sizeof shape);
    HASH(p->C, sizeof(double) * (size_t)p->nrows * (size_t)p->n_out);
    HASH(p->d, sizeof(double) * (size_t)p->nrows);
    HASH(p->dstart, sizeof(int) * (size_t)(p->ndisj + 1));
    int32_t oi[7] = {o->batch, o->iters, o->fsb, o->root_iters, o->root_splits, o->interm_iters, o->root_rl != NULL};
    double od[3] = {o->root_max_s, o->interm_share, o->interm_loss_share};
    uint64_t ou[2] = {o->max_nodes, (uint64_t)o->root_split_bytes};
    HASH(oi, sizeof oi);
    HASH(od, sizeof od);
    HASH(ou, sizeof ou);
#undef HASH
    crypto_generichash_final(&h, mine.sha, sizeof mine.sha);
    mine.left = *deadline - rt->tbase;
    unsigned char *all = NULL;
    nnc_status st = team_xchg(rt, &mine, sizeof mine, &all, -1);
    if (st) return st;
    double left = mine.left;
    for (int q = 0; q < o->team->size && !st; q++) {
        if (rt->tlens[q] != sizeof mine) {
            st = nnc_err(terr, NNC_ERRBUF_SIZE, NNC_STATUS_INVALID, "rank %d sent a malformed exchange in the ReLU-split search", q);
            break;
        }
        memcpy(&qq, all + sizeof mine * (size_t)q, sizeof qq);
        if (q == 0) q0 = qq;
        if (memcmp(qq.sha, q0.sha, sizeof q0.sha) != 0)
            st = nnc_err(terr, NNC_ERRBUF_SIZE, NNC_STATUS_INVALID,
                         "rank %d runs the ReLU-split search on another box, bounds, property or options than rank 0", q);
        if (qq.left < left) left = qq.left;
    }
    free(all);
    if (st) return rt->tst = st;
    *deadline = BBD_TEAM_EPOCH + left;
    return NNC_STATUS_OK;
}

nnc_status nnc_bbd_certify(nnc_bbd *e, const double *lo, const double *hi, const double *rl, const double *rh,
                           const nnc_rfn_problem *p, const nnc_bbd_opts *o, int *certified, uint64_t *nodes)
{
    *certified = 0;
    *nodes = 0;
    int threads = o->threads > 0 ? o->threads : 1;
    int64_t nr = e->nr;
    size_t vn = e->nv;
    if (p->n_out != e->n_out) return NNC_STATUS_ARG;
    for (int j = 0; j < p->ndisj; j++) /* a disjunct without rows is reachable everywhere */
        if (p->dstart[j] >= p->dstart[j + 1]) return NNC_STATUS_OK;
    /* a residual chain's ReLU neurons from the model's: a carried copy's
     * pre-activation is its original's output */
    double *xrl = NULL;
    if (e->ch->relu_src) {
        if ((xrl = malloc(sizeof(double) * 2 * (size_t)(nr + 1))) == NULL) return NNC_STATUS_NOMEM;
        for (int64_t f = 0; f < nr; f++) {
            int64_t q = e->ch->relu_src[f];
            int copy = e->ch->carry_from[f] >= 0;
            xrl[f] = copy ? fmax(rl[q], 0.0) : rl[q];
            xrl[nr + f] = copy ? fmax(rh[q], 0.0) : rh[q];
        }
        rl = xrl;
        rh = xrl + nr;
    }
    bbd_root rt;
    nnc_status st = root_init(e, lo, hi, rl, rh, &rt);
    if (!st && nnc_bbd_gpu_ok(e)) rt.gpu = o->gpu;
    double deadline = o->deadline;
    char terr[NNC_ERRBUF_SIZE] = "";
    if (o->team && o->team->size > 1) { /* (every rank: one that failed tells the others at the end) */
        nnc_status bs = team_begin(e, &rt, o, lo, hi, rl, rh, p, terr, &deadline);
        if (!st) st = bs;
    }
    bbd_ws *ws = calloc((size_t)threads, sizeof(bbd_ws));
    int B = o->batch > 0 ? o->batch : 1;
    size_t icap = (size_t)B * (size_t)p->ndisj;
    if (icap < (size_t)p->nrows) icap = (size_t)p->nrows;
    bbd_buf ib = {0}, tb = {0}, nb = {0}; /* items; branching trials; neuron bounds */
    nb.sel = malloc((size_t)e->wmax);
    nb.sc = malloc(sizeof(bbd_score) * (size_t)e->wmax);
    float *coef = malloc(sizeof(float) * (size_t)B * (size_t)nr);
    bbd_dom *batch = malloc(sizeof(bbd_dom) * (size_t)B);
    int64_t *cand = malloc(sizeof(int64_t) * (size_t)B * NNC_BBD_FSB_CANDIDATES);
    int *ncand = malloc(sizeof(int) * (size_t)B), *hard = malloc(sizeof(int) * (size_t)B);
    int *hix = malloc(sizeof(int) * (size_t)B); /* a sub-problem's row in coef */
    int *dead = malloc(sizeof(int) * (size_t)B);
    double lsh = o->interm_loss_share > 0 && o->interm_loss_share < 1 ? o->interm_loss_share : 1;
    int64_t *pick = malloc(sizeof(int64_t) * (size_t)B);
    size_t scap = 1024, top = 0, held = 0;
    bbd_dom *stack = malloc(sizeof(bbd_dom) * scap);
    bbd_dom d0 = {calloc((size_t)nr + 1, 1), bnd_alloc(nr, &held), e->L, 0, malloc(sizeof(int) * (size_t)p->ndisj), NULL, NULL};
    int ok = !st && ws && coef && batch && cand && ncand && hard && hix && nb.sel && nb.sc && dead && pick && stack && d0.s && d0.b && d0.rows &&
             !buf_reserve(&ib, icap, vn) && !buf_reserve(&tb, (size_t)B * 2 * NNC_BBD_FSB_CANDIDATES, vn);
    for (int t = 0; t < threads && ok; t++) ok = ws_init(e, &ws[t]) == 0;
    if (!ok) {
        if (!st) st = NNC_STATUS_NOMEM;
        dom_free(&d0, nr);
        goto out;
    }
    int failed = 0;
    {
        /* the root: its hidden layers optimised; every row estimated with
         * CROWN's slopes, then per disjunct its best row */
        for (int64_t f = 0; f < nr; f++) bnd_set(d0.b, f, rl[f], rh[f]);
        if (o->root_iters > 0) {
            bbd_buf rb = {0};
            double now = bclock(&rt), rdl = now + 0.25 * (deadline - now);
            if (o->root_max_s > 0 && rdl > now + o->root_max_s) rdl = now + o->root_max_s;
            size_t sb = o->root_split_bytes > 0 ? o->root_split_bytes : BBD_RS_BYTES;
            st = refine_root(e, &rt, p, &d0, o->root_iters, o->fsb, 0, sb, rdl, &rb, ws, threads);
            /* the hidden layers' bounds by ReLU splits only where the
             * objectives stay open with alpha's */
            if (!st && o->root_splits > 0 && !root_certified(e, &rt, p, &d0, o->root_iters, &ib, ws, threads))
                st = refine_root(e, &rt, p, &d0, o->root_iters, o->fsb, o->root_splits, sb, rdl, &rb, ws, threads);
            free(rb.items); free(rb.ab); free(rb.lower);
        }
        if (o->root_rl)
            for (int64_t f = 0; f < nr; f++) {
                o->root_rl[f] = d0.b->rl[f];
                o->root_rh[f] = d0.b->rh[f];
            }
        for (int r = 0; r < p->nrows; r++) {
            ib.items[r] = (bbd_item){d0.s, d0.b, -1, 0, 1, r, 0};
            init_vars(e, d0.b, ib.ab + (size_t)r * vn);
        }
        bbd_pass ps = {e, &rt, p, ib.items, ib.ab, ib.lower, NULL, -1, e->L - 1, 0, 0, NULL, NULL};
        run_pass(&ps, (size_t)p->nrows, ws, threads);
        for (int j = 0; j < p->ndisj; j++) {
            int br = p->dstart[j];
            for (int r = p->dstart[j]; r < p->dstart[j + 1]; r++)
                if (ib.lower[r] - p->d[r] > ib.lower[br] - p->d[br]) br = r;
            d0.rows[d0.nit++] = br;
        }
        stack[top++] = d0;
    }
    /* when the sub-problems' hidden bounds start to be optimised */
    double t_opt = bclock(&rt);
    if (o->interm_share > 0 && deadline > t_opt) t_opt += o->interm_share * (deadline - t_opt);
    while (top > 0 && !failed && !st) {
        if (bclock(&rt) > deadline || *nodes >= o->max_nodes || held > NNC_BBD_MAX_BYTES) {
            failed = 1;
            break;
        }
        /* a batch: the top B sub-problems of the stack, their bounds
         * re-tightened after their last split */
        int m = 0;
        while (m < B && top > 0 && *nodes + (uint64_t)m < o->max_nodes) {
            batch[m] = stack[--top];
            dead[m] = 0;
            m++;
        }
        int ti = o->interm_iters > 0 && bclock(&rt) >= t_opt ? o->interm_iters : 0;
        if ((st = tighten(e, &rt, p, batch, m, dead, ti, lsh, &nb, ws, threads, deadline))) {
            for (int k = 0; k < m; k++) dom_free(&batch[k], nr);
            break;
        }
        size_t ni = 0;
        for (int k = 0; k < m; k++) {
            bbd_dom *d = &batch[k];
            if (dead[k]) continue;
            for (int q = 0; q < d->nit; q++, ni++) {
                ib.items[ni] = (bbd_item){d->s, d->b, -1, 0, 1, d->rows[q], 0};
                float *a = ib.ab + ni * vn;
                if (d->ab) memcpy(a, d->ab->v + (size_t)q * vn, sizeof(float) * vn);
                else init_vars(e, d->b, a);
            }
        }
        /* the round's main pass stops at the deadline (a round of wide
         * sub-problems can take seconds): then the search ends uncertified */
        bbd_pass ps = {e, &rt, p, ib.items, ib.ab, ib.lower, NULL, o->iters, e->L - 1, deadline, 0, NULL, NULL};
        failed = run_pass(&ps, ni, ws, threads) > 0;
        if (!failed) *nodes += (uint64_t)m;
        if (p->tick) p->tick(p->tick_ctx, *nodes);
        if (failed) {
            for (int k = 0; k < m; k++) dom_free(&batch[k], nr);
            break;
        }
        /* per sub-problem: the disjuncts left open, the hardest one */
        size_t nt = 0, q0 = 0, nh = 0;
        for (int k = 0; k < m; k++) {
            bbd_dom *d = &batch[k];
            double hgap = 0;
            hard[k] = -1;
            ncand[k] = 0;
            if (dead[k]) continue;
            for (int q = 0; q < d->nit; q++) {
                size_t i = q0 + (size_t)q;
                double gap = ib.lower[i] - p->d[ib.items[i].row];
                if (gap > 0) continue;
                if (hard[k] < 0 || gap < hgap) {
                    hard[k] = q;
                    hgap = gap;
                }
            }
            if (hard[k] >= 0) {
                /* its coefficients with CROWN's slopes and no multipliers
                 * choose the candidates (refine_impl.h) */
                tb.items[nh] = ib.items[q0 + (size_t)hard[k]];
                init_vars(e, d->b, tb.ab + nh * vn);
                nh++;
            }
            q0 += (size_t)d->nit;
        }
        /* open sub-problems left past the deadline: the branching passes
         * (thousands of items on a wide net) would only overrun it */
        if (nh > 0 && deadline > 0 && bclock(&rt) > deadline) {
            failed = 1;
            for (int k = 0; k < m; k++) dom_free(&batch[k], nr);
            break;
        }
        bbd_pass cp = {e, &rt, p, tb.items, tb.ab, tb.lower, coef, -1, e->L - 1, 0, 0, NULL, NULL};
        run_pass(&cp, nh, ws, threads);
        /* the candidates; sub-problems with none left get longer optimisation */
        q0 = 0;
        nh = 0;
        for (int k = 0; k < m; k++) {
            bbd_dom *d = &batch[k];
            if (dead[k]) continue;
            if (hard[k] >= 0) {
                ncand[k] = candidates(d->b, d->s, coef + nh * (size_t)nr, nr, o->fsb, cand + (size_t)k * NNC_BBD_FSB_CANDIDATES);
                hix[k] = (int)nh;
                nh++;
                if (ncand[k] == 0) {
                    /* nothing left to split: the network is affine here and
                     * only the multipliers can close the gap (or show the
                     * splits contradictory), so optimise them longer */
                    bbd_pass sp = {e, &rt, p, ib.items + q0, ib.ab + q0 * vn, ib.lower + q0, NULL, 10 * o->iters,
                                   e->L - 1, 0, 1, NULL, NULL};
                    run_pass(&sp, (size_t)d->nit, ws, threads);
                    for (int q = 0; q < d->nit; q++)
                        failed |= !(ib.lower[q0 + (size_t)q] > p->d[ib.items[q0 + (size_t)q].row]);
                }
                nt += ncand[k] > 1 ? 2 * (size_t)ncand[k] : 0;
            }
            q0 += (size_t)d->nit;
        }
        /* the trials: both children of each candidate, by one float32
         * estimate each from the hardest row's optimised variables */
        if (nt > 0 && !failed) {
            size_t t = 0;
            q0 = 0;
            for (int k = 0; k < m; k++) {
                if (dead[k]) continue;
                if (ncand[k] > 1) {
                    size_t h = q0 + (size_t)hard[k];
                    t = trial_items(e, &ib.items[h], cand + (size_t)k * NNC_BBD_FSB_CANDIDATES, ncand[k], ib.ab + h * vn, &tb, t);
                }
                q0 += (size_t)batch[k].nit;
            }
            bbd_pass tp = {e, &rt, p, tb.items, tb.ab, tb.lower, NULL, -1, e->L - 1, 0, 0, NULL, NULL};
            run_pass(&tp, nt, ws, threads);
        }
        size_t t = 0;
        for (int k = 0; k < m; k++) {
            pick[k] = ncand[k] > 0 ? cand[(size_t)k * NNC_BBD_FSB_CANDIDATES] : -1;
            if (ncand[k] > 1 && nt > 0 && !failed) {
                pick[k] = trial_pick(tb.lower + t, cand + (size_t)k * NNC_BBD_FSB_CANDIDATES, ncand[k]);
                t += 2 * (size_t)ncand[k];
            }
        }
        /* children, pushed so that the batch's first sub-problem's end on top */
        if (top + 2 * (size_t)m > scap) {
            size_t nc = scap;
            while (top + 2 * (size_t)m > nc) nc *= 2;
            bbd_dom *ns = realloc(stack, sizeof(bbd_dom) * nc);
            if (ns == NULL) st = NNC_STATUS_NOMEM;
            else {
                stack = ns;
                scap = nc;
            }
        }
        size_t qend = ni;
        for (int k = m - 1; k >= 0; k--) {
            bbd_dom *d = &batch[k];
            size_t qs = dead[k] ? qend : qend - (size_t)d->nit;
            qend = qs;
            if (st || failed || dead[k] || ncand[k] == 0 || pick[k] < 0) {
                dom_free(d, nr);
                continue;
            }
            int keep = 0;
            for (int q = 0; q < d->nit; q++) keep += !(ib.lower[qs + (size_t)q] > p->d[ib.items[qs + (size_t)q].row]);
            int warm = held + sizeof(float) * vn * (size_t)keep + 2 * bnd_bytes(nr) <= NNC_BBD_WARM_BYTES;
            int kf = rt.layer_of[pick[k]] + 1;
            /* a split in the last hidden layer re-tightens nothing, and a
             * split neuron's own bounds are never read again (its side
             * decides): both children keep the parent's bounds, shared;
             * otherwise each gets its own (tighten writes them) */
            int share = kf >= e->L - 1;
            bbd_bnd *pb = d->b, *b1 = pb, *b2 = pb;
            d->b = NULL;
            if (share) pb->refs++;
            else {
                b2 = bnd_copy(pb, nr);
                if (pb->refs > 1) {
                    b1 = bnd_copy(pb, nr);
                    bnd_release(pb, nr);
                }
            }
            /* the children's warm start: one copy, shared */
            bbd_warm *wb = warm ? warm_alloc(vn * (size_t)keep, &held) : NULL;
            if (wb) wb->refs = 2;
            bbd_warm *cw = NULL;
            if (!share && o->interm_iters > 0 && lsh < 1 && (cw = warm_alloc((size_t)nr, &held))) {
                cw->refs = 2;
                memcpy(cw->v, coef + (size_t)hix[k] * (size_t)nr, sizeof(float) * (size_t)nr);
            }
            bbd_dom c1 = {d->s, b1, kf, 0, malloc(sizeof(int) * (size_t)keep), wb, cw};
            bbd_dom c2 = {malloc((size_t)nr + 1), b2, kf, 0, malloc(sizeof(int) * (size_t)keep), wb, cw};
            d->s = NULL;
            if (!c1.rows || !c2.rows || !c2.s || !c1.b || !c2.b || (warm && !wb)) {
                dom_free(&c1, nr);
                dom_free(&c2, nr);
                dom_free(d, nr);
                st = NNC_STATUS_NOMEM;
                continue;
            }
            for (int q = 0; q < d->nit; q++) {
                size_t i = qs + (size_t)q;
                if (ib.lower[i] > p->d[ib.items[i].row]) continue;
                if (wb) memcpy(wb->v + (size_t)c1.nit * vn, ib.ab + i * vn, sizeof(float) * vn);
                c1.rows[c1.nit++] = c2.rows[c2.nit++] = ib.items[i].row;
            }
            memcpy(c2.s, c1.s, (size_t)nr);
            int64_t f = pick[k];
            c1.s[f] = 1;
            c2.s[f] = -1;
            if (!share) {
                bnd_set(c1.b, f, fmax(c1.b->rl[f], 0.0), c1.b->rh[f]);
                bnd_set(c2.b, f, c2.b->rl[f], fmin(c2.b->rh[f], 0.0));
            }
            dom_free(d, nr);
            stack[top++] = c2;
            stack[top++] = c1;
        }
    }
    if (!st && rt.tst) st = rt.tst; /* (a failed exchange fails the passes and ends the loops) */
    if (!st && !failed && top == 0) *certified = 1;
out:
    if (rt.team && !rt.tst) { /* team_end: the last exchange, every rank's status in it */
        unsigned char *all = NULL;
        team_xchg(&rt, NULL, 0, &all, (int32_t)(st ? st : rt.lst));
        free(all);
    }
    if (rt.tst) {
        if (!st) st = rt.tst;
        if (o->team_err) snprintf(o->team_err, o->team_errlen, "%s", terr);
        *certified = 0;
    }
    if (rt.gpu_err[0]) { /* finished on the CPU, but the device was asked for */
        if (o->gpu_err) snprintf(o->gpu_err, o->gpu_errlen, "%s", rt.gpu_err);
        if (!st) st = NNC_STATUS_DEVICE;
        *certified = 0;
    }
    for (size_t i = 0; stack && i < top; i++) dom_free(&stack[i], nr);
    for (int t = 0; ws && t < threads; t++) ws_free(&ws[t]);
    free(ws); free(coef); free(batch); free(cand); free(ncand); free(hard); free(hix); free(dead); free(pick); free(stack);
    free(ib.items); free(ib.ab); free(ib.lower); free(tb.items); free(tb.ab); free(tb.lower);
    free(nb.items); free(nb.ab); free(nb.lower); free(nb.sel); free(nb.sc);
    root_free(&rt);
    free(xrl);
    return st;
}

nnc_status nnc_bbd_test_pass(const nnc_bbd *e, const double *lo, const double *hi, const double *rl, const double *rh,
                             const signed char *split, const nnc_rfn_problem *p, int ktop, int mode,
                             nnc_gpu_bab *gpu, float *ab, double *lower, float *coef, char *err, size_t errlen)
{
    int64_t nr = e->nr;
    int rows = ktop == e->L - 1;
    if (ktop < 0 || ktop >= e->L || p->n_out != e->n_out || e->ch->relu_src || mode < -2)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "test pass: bad arguments");
    if (gpu && !nnc_bbd_gpu_ok(e)) return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "test pass: not for the GPU");
    size_t n = rows ? (size_t)p->nrows : 2 * (size_t)e->ch->layers[ktop].N, held = 0;
    bbd_root rt;
    bbd_ws ws;
    int wok = 0;
    nnc_status st = root_init(e, lo, hi, rl, rh, &rt);
    bbd_bnd *b = st ? NULL : bnd_alloc(nr, &held);
    signed char *s = calloc((size_t)nr + 1, 1);
    bbd_item *it = malloc(sizeof *it * n);
    if (!st && (!b || !s || !it || (wok = ws_init(e, &ws) == 0) == 0)) st = NNC_STATUS_NOMEM;
    if (!st) {
        rt.gpu = gpu;
        for (int64_t f = 0; f < nr; f++) bnd_set(b, f, rl[f], rh[f]);
        if (split) memcpy(s, split, (size_t)nr);
        for (size_t i = 0; i < n; i++)
            it[i] = rows ? (bbd_item){s, b, -1, 0, 1, (int)i, 0}
                         : (bbd_item){s, b, -1, 0, i % 2 ? -1 : 1, -1, (int)(i / 2)};
        bbd_pass ps = {e, &rt, p, it, ab, lower, coef, mode, ktop, 0, 0, NULL, NULL};
        run_pass(&ps, n, &ws, 1);
        if (rt.gpu_err[0]) st = nnc_err(err, errlen, NNC_STATUS_DEVICE, "%s", rt.gpu_err);
    }
    if (st == NNC_STATUS_NOMEM) nnc_err(err, errlen, st, "out of memory");
    if (wok) ws_free(&ws);
    free(it);
    free(s);
    bnd_release(b, nr);
    root_free(&rt);
    return st;
}

void nnc_bbd_test_init_vars(const nnc_bbd *e, const double *rl, const double *rh, float *ab)
{
    size_t held = 0;
    bbd_bnd *b = bnd_alloc(e->nr, &held);
    if (b == NULL) return;
    for (int64_t f = 0; f < e->nr; f++) bnd_set(b, f, rl[f], rh[f]);
    init_vars(e, b, ab);
    bnd_release(b, e->nr);
}

int nnc_bbd_test_tune(nnc_bbd *e, int chunk, int diff_copy)
{
    if (chunk < 1 || chunk > BBD_CHUNK) return -1;
    e->chunk = chunk;
    e->diff_copy = diff_copy != 0;
    return 0;
}
