/* Linear nodes in a chain (nnc_smp_chain_extract_from with
 * NNC_SMP_CHAIN_LINEAR): Conv, AveragePool and BatchNormalization as
 * sparse layers, and runs of layers without a ReLU between them composed
 * into one.
 *
 * Soundness: a composed weight is a float64 sum of products, so it differs
 * from the exact one.  Each layer carries, per weight and per bias, an upper
 * bound on that difference (nnc_smp_lin.werr, berr), which the engines that
 * bound the chain add to their error terms.  For C = A B (terms a_ij, b_jn,
 * with error bounds ea, eb on them), the stored c_in errs by at most
 *   gamma (sum_j |a_ij| |b_jn|) + sum_j (ea |b_jn| + |a_ij| eb + ea eb),
 * gamma bounding the rounding of a sum of M + 1 products in any order
 * (Higham 3.5; here (M + 4) eps, twice gamma_{M+2}).  Every term of the
 * bound is accumulated in float64 and scaled by (1 + 4 gamma) to cover its
 * own rounding. */
#include "verifier/sample_impl.h"

#include "verifier/bounds_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* At most this many weights in a composed dense layer. */
#define NNC_SMP_LIN_DENSE_MAX ((int64_t)1 << 26)
/* At most this many terms in a sparse layer. */
#define NNC_SMP_LIN_SPARSE_MAX ((int64_t)1 << 27)

static double err_up(double s) { return s * (1 + 8 * DBL_EPSILON) + 4.9e-324; }

void nnc_smp_lin_free(nnc_smp_lin *l)
{
    free(l->ptr); free(l->idx); free(l->sw); free(l->werr); free(l->berr);
    memset(l, 0, sizeof *l);
}

nnc_status nnc_smp_lin_sync(nnc_smp_chain *ch)
{
    if (ch->n_lin >= ch->n_layers) return NNC_STATUS_OK;
    nnc_smp_lin *nl = realloc(ch->lin, sizeof *nl * (size_t)ch->n_layers);
    if (nl == NULL) return NNC_STATUS_NOMEM;
    ch->lin = nl;
    for (int l = ch->n_lin; l < ch->n_layers; l++) memset(&nl[l], 0, sizeof nl[l]);
    ch->n_lin = ch->n_layers;
    return NNC_STATUS_OK;
}

/* Append a sparse layer K -> N (its terms taken over, freed on failure),
 * bias zero. */
static nnc_status push_sparse(nnc_smp_chain *ch, int64_t K, int64_t N, int64_t *ptr, int32_t *idx, double *sw)
{
    nnc_gpu_dense *nl = NULL;
    if (K < 1 || N < 1 || K > INT32_MAX / 2 || N > INT32_MAX / 2) goto unsupported;
    if ((nl = realloc(ch->layers, sizeof *nl * (size_t)(ch->n_layers + 1))) == NULL) goto nomem;
    ch->layers = nl;
    nnc_gpu_dense *L = &nl[ch->n_layers];
    memset(L, 0, sizeof *L);
    L->K = (int)K;
    L->N = (int)N;
    if ((L->b = calloc((size_t)N, sizeof(double))) == NULL) goto nomem;
    ch->n_layers++;
    if (nnc_smp_lin_sync(ch)) goto nomem;
    nnc_smp_lin *s = &ch->lin[ch->n_layers - 1];
    s->ptr = ptr;
    s->idx = idx;
    s->sw = sw;
    return NNC_STATUS_OK;
unsupported:
    free(ptr); free(idx); free(sw);
    return NNC_STATUS_UNSUPPORTED;
nomem:
    free(ptr); free(idx); free(sw);
    return NNC_STATUS_NOMEM;
}

/* A sparse diagonal layer of n elements: weights and bias by channel
 * (element j's channel (j / inner) % nch). */
static nnc_status push_diag(nnc_smp_chain *ch, int64_t n, int64_t inner, int64_t nch, const double *wc,
                            const double *bc, const double *ewc, const double *ebc)
{
    int64_t *ptr = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int32_t *idx = malloc(sizeof(int32_t) * (size_t)(n + 1));
    double *sw = malloc(sizeof(double) * (size_t)(n + 1));
    if (!ptr || !idx || !sw || n >= INT32_MAX) {
        free(ptr); free(idx); free(sw);
        return n >= INT32_MAX ? NNC_STATUS_UNSUPPORTED : NNC_STATUS_NOMEM;
    }
    for (int64_t j = 0; j < n; j++) {
        ptr[j] = j;
        idx[j] = (int32_t)j;
        sw[j] = wc[(j / inner) % nch];
    }
    ptr[n] = n;
    nnc_status st = push_sparse(ch, n, n, ptr, idx, sw);
    if (st) return st;
    nnc_gpu_dense *L = &ch->layers[ch->n_layers - 1];
    nnc_smp_lin *s = &ch->lin[ch->n_layers - 1];
    if (ewc && ((s->werr = malloc(sizeof(double) * (size_t)n)) == NULL)) return NNC_STATUS_NOMEM;
    if (ebc && ((s->berr = malloc(sizeof(double) * (size_t)n)) == NULL)) return NNC_STATUS_NOMEM;
    for (int64_t j = 0; j < n; j++) {
        int64_t c = (j / inner) % nch;
        L->b[j] = bc ? bc[c] : 0.0;
        if (ewc) s->werr[j] = ewc[c];
        if (ebc) s->berr[j] = ebc[c];
    }
    ch->float_weights = 0;
    return NNC_STATUS_OK;
}

nnc_status nnc_smp_lin_push_add(nnc_smp_chain *ch, int64_t n, const double *c, int64_t nc, double sign)
{
    if (nc != 1 && nc != n) return NNC_STATUS_UNSUPPORTED;
    double one = 1.0;
    double *bc = malloc(sizeof(double) * (size_t)nc);
    if (bc == NULL) return NNC_STATUS_NOMEM;
    for (int64_t j = 0; j < nc; j++) bc[j] = sign * c[j]; /* exact */
    nnc_status st = NNC_STATUS_OK;
    if (nc == 1) st = push_diag(ch, n, 1, 1, &one, bc, NULL, NULL);
    else {
        double *ones = malloc(sizeof(double) * (size_t)n);
        if (ones == NULL) st = NNC_STATUS_NOMEM;
        for (int64_t j = 0; ones && j < n; j++) ones[j] = 1.0;
        if (ones) st = push_diag(ch, n, 1, n, ones, bc, NULL, NULL);
        free(ones);
    }
    free(bc);
    return st;
}

nnc_status nnc_smp_lin_push_conv(nnc_smp_chain *ch, const nnc_model *m, const nnc_node *n)
{
    int64_t *ptr;
    int32_t *idx;
    double *sw;
    int r = nnc_bnd_conv_csr(m, n, NNC_SMP_LIN_SPARSE_MAX, &ptr, &idx, &sw);
    if (r) return r < 0 ? NNC_STATUS_NOMEM : NNC_STATUS_UNSUPPORTED;
    const nnc_value *x = &m->vals[n->in[0]], *y = &m->vals[n->out[0]];
    int64_t N = y->numel;
    nnc_status st = push_sparse(ch, x->numel, N, ptr, idx, sw);
    if (st) return st;
    nnc_gpu_dense *L = &ch->layers[ch->n_layers - 1];
    nnc_smp_lin *s = &ch->lin[ch->n_layers - 1];
    if (n->op == NNC_OP_AVERAGEPOOL) {
        /* the weights 1/count, rounded to nearest */
        int64_t nnz = s->ptr[N];
        if ((s->werr = malloc(sizeof(double) * (size_t)(nnz + 1))) == NULL) return NNC_STATUS_NOMEM;
        for (int64_t k = 0; k < nnz; k++) s->werr[k] = err_up(fabs(s->sw[k]) * DBL_EPSILON);
        ch->float_weights = 0;
        return NNC_STATUS_OK;
    }
    const nnc_value *bias = n->n_in > 2 && n->in[2] >= 0 ? &m->vals[n->in[2]] : NULL;
    if (bias) {
        int64_t M = y->dims[1], inner = N / (y->dims[0] * M);
        if (bias->kind != NNC_VAL_CONST || !bias->f || bias->sparse || bias->numel != M) return NNC_STATUS_UNSUPPORTED;
        for (int64_t j = 0; j < N; j++) L->b[j] = bias->f[(j / inner) % M];
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_smp_lin_push_batchnorm(nnc_smp_chain *ch, const nnc_model *m, const nnc_node *n)
{
    const nnc_value *x = &m->vals[n->in[0]], *v[4];
    if (x->rank < 2 || x->dims[0] != 1) return NNC_STATUS_UNSUPPORTED;
    int64_t C = x->dims[1], inner = x->numel / C;
    for (int i = 0; i < 4; i++) {
        v[i] = n->n_in > i + 1 && n->in[i + 1] >= 0 ? &m->vals[n->in[i + 1]] : NULL;
        if (!v[i] || v[i]->kind != NNC_VAL_CONST || !v[i]->f || v[i]->sparse || v[i]->numel != C)
            return NNC_STATUS_UNSUPPORTED;
    }
    double *a = malloc(sizeof(double) * 4 * (size_t)C);
    if (a == NULL) return NNC_STATUS_NOMEM;
    double *b = a + C, *ea = b + C, *eb = ea + C;
    nnc_status st = NNC_STATUS_OK;
    for (int64_t c = 0; c < C && !st; c++) {
        double sc = v[0]->f[c], bi = v[1]->f[c], mean = v[2]->f[c], var = v[3]->f[c] + n->fp[0];
        if (!(var > 0) || !isfinite(var) || !isfinite(sc) || !isfinite(bi) || !isfinite(mean)) {
            st = NNC_STATUS_UNSUPPORTED;
            break;
        }
        /* y = a x + b, a = scale / sqrt(var + eps), b = bias - mean a: each
         * of the four roundings relative 2^-53 at most */
        a[c] = sc / sqrt(var);
        b[c] = bi - mean * a[c];
        ea[c] = err_up(fabs(a[c]) * 4 * DBL_EPSILON);
        eb[c] = err_up((fabs(bi) + 2 * fabs(mean * a[c])) * 4 * DBL_EPSILON);
    }
    if (!st) st = push_diag(ch, x->numel, inner, C, a, b, ea, eb);
    free(a);
    return st;
}

/* ---- composition ---- */

/* Column j of layer A (its terms on A's inputs): *cnt terms (i[], a[],
 * e[]), from scratch buffers of A->K entries. */
static int64_t col_terms(const nnc_gpu_dense *A, const nnc_smp_lin *la, int64_t j, int32_t *ii, double *aa,
                         double *ee)
{
    int64_t c = 0;
    if (A->w) {
        for (int64_t i = 0; i < A->K; i++) {
            double a = A->w[i * A->N + j];
            double e = la && la->werr ? la->werr[i * A->N + j] : 0.0;
            if (a == 0 && e == 0) continue;
            ii[c] = (int32_t)i;
            aa[c] = a;
            ee[c++] = e;
        }
        return c;
    }
    for (int64_t k = la->ptr[j]; k < la->ptr[j + 1]; k++) {
        ii[c] = la->idx[k];
        aa[c] = la->sw[k];
        ee[c++] = la->werr ? la->werr[k] : 0.0;
    }
    return c;
}

/* Compose layers l and l + 1 of ch (no ReLU after l) into layer l. */
static nnc_status compose(nnc_smp_chain *ch, int l)
{
    nnc_gpu_dense *A = &ch->layers[l], *B = &ch->layers[l + 1];
    nnc_smp_lin *la = &ch->lin[l], *lb = &ch->lin[l + 1];
    int64_t K = A->K, M = A->N, N = B->N;
    if (B->K != M) return NNC_STATUS_UNSUPPORTED;
    double g = (double)(M + 4) * DBL_EPSILON, sc = 1 + 4 * g;
    int sparse = A->w == NULL && B->w == NULL;
    if (!sparse && K * N > NNC_SMP_LIN_DENSE_MAX) return NNC_STATUS_UNSUPPORTED;
    nnc_status st = NNC_STATUS_NOMEM;
    int32_t *ii = malloc(sizeof(int32_t) * (size_t)(K + 1));
    double *aa = malloc(sizeof(double) * (size_t)(K + 1)), *ee = malloc(sizeof(double) * (size_t)(K + 1));
    double *cb = calloc((size_t)N, sizeof(double)), *sb = calloc((size_t)N, sizeof(double));
    double *eb = calloc((size_t)N, sizeof(double));
    /* dense result: value, sum of |terms|, propagated errors (K x N each);
     * sparse: one output's accumulators over K and the terms so far */
    double *cw = NULL, *cs = NULL, *ce = NULL;
    int64_t *cptr = NULL, cap = 0, nnz = 0;
    int32_t *cidx = NULL, *mark = NULL;
    double *csw = NULL, *cerr = NULL;
    if (!ii || !aa || !ee || !cb || !sb || !eb) goto done;
    if (!sparse) {
        if (!(cw = calloc((size_t)(K * N), sizeof(double))) || !(cs = calloc((size_t)(K * N), sizeof(double))) ||
            !(ce = calloc((size_t)(K * N), sizeof(double))))
            goto done;
    } else {
        cap = la->ptr[M] > lb->ptr[N] ? la->ptr[M] : lb->ptr[N];
        if (!(cptr = malloc(sizeof(int64_t) * (size_t)(N + 1))) || !(cidx = malloc(sizeof(int32_t) * (size_t)(cap + 1))) ||
            !(csw = malloc(sizeof(double) * (size_t)(cap + 1))) || !(cerr = malloc(sizeof(double) * (size_t)(cap + 1))) ||
            !(cw = calloc((size_t)K, sizeof(double))) || !(cs = calloc((size_t)K, sizeof(double))) ||
            !(ce = calloc((size_t)K, sizeof(double))) || !(mark = malloc(sizeof(int32_t) * (size_t)(K + 1))))
            goto done;
        for (int64_t i = 0; i < K; i++) mark[i] = -1;
    }
    for (int64_t n = 0; n < N; n++) {
        double bb = B->b ? B->b[n] : 0.0;
        cb[n] = bb;
        sb[n] = fabs(bb);
        eb[n] = lb->berr ? lb->berr[n] : 0.0;
    }
    if (B->w) { /* by A's outputs j: C[i][:] += a_ij B[j][:] */
        for (int64_t j = 0; j < M; j++) {
            const double *bw = B->w + j * N, *be = lb->werr ? lb->werr + j * N : NULL;
            double ab = A->b ? A->b[j] : 0.0, eab = la->berr ? la->berr[j] : 0.0;
            for (int64_t n = 0; n < N; n++) {
                double e = be ? be[n] : 0.0;
                cb[n] += ab * bw[n];
                sb[n] += fabs(ab) * fabs(bw[n]);
                eb[n] += eab * fabs(bw[n]) + fabs(ab) * e + eab * e;
            }
            int64_t c = col_terms(A, la, j, ii, aa, ee);
            for (int64_t t = 0; t < c; t++) {
                double a = aa[t], ea = ee[t];
                double *crow = cw + (int64_t)ii[t] * N, *srow = cs + (int64_t)ii[t] * N, *erow = ce + (int64_t)ii[t] * N;
                for (int64_t n = 0; n < N; n++) {
                    double e = be ? be[n] : 0.0;
                    crow[n] += a * bw[n];
                    srow[n] += fabs(a) * fabs(bw[n]);
                    erow[n] += ea * fabs(bw[n]) + fabs(a) * e + ea * e;
                }
            }
        }
    } else { /* by B's outputs n: its terms (j, b), then A's column j */
        for (int64_t n = 0; n < N; n++) {
            int64_t n0 = nnz;
            if (sparse) cptr[n] = nnz;
            for (int64_t k = lb->ptr[n]; k < lb->ptr[n + 1]; k++) {
                int64_t j = lb->idx[k];
                double b = lb->sw[k], e = lb->werr ? lb->werr[k] : 0.0;
                double ab = A->b ? A->b[j] : 0.0, eab = la->berr ? la->berr[j] : 0.0;
                cb[n] += ab * b;
                sb[n] += fabs(ab) * fabs(b);
                eb[n] += eab * fabs(b) + fabs(ab) * e + eab * e;
                int64_t c = col_terms(A, la, j, ii, aa, ee);
                for (int64_t t = 0; t < c; t++) {
                    int64_t i = ii[t], q = sparse ? i : i * N + n;
                    if (sparse && mark[i] < 0) {
                        /* first term of output n on input i */
                        if (nnz >= cap) {
                            int64_t nc = cap * 2 + 16;
                            if (nc > NNC_SMP_LIN_SPARSE_MAX) {
                                st = NNC_STATUS_UNSUPPORTED;
                                goto done;
                            }
                            int32_t *ni = realloc(cidx, sizeof(int32_t) * (size_t)nc);
                            if (ni) cidx = ni;
                            double *nw = realloc(csw, sizeof(double) * (size_t)nc);
                            if (nw) csw = nw;
                            double *ne = realloc(cerr, sizeof(double) * (size_t)nc);
                            if (ne) cerr = ne;
                            if (!ni || !nw || !ne) goto done;
                            cap = nc;
                        }
                        mark[i] = (int32_t)nnz;
                        cidx[nnz++] = (int32_t)i;
                        cw[i] = cs[i] = ce[i] = 0;
                    }
                    cw[q] += aa[t] * b;
                    cs[q] += fabs(aa[t]) * fabs(b);
                    ce[q] += ee[t] * fabs(b) + fabs(aa[t]) * e + ee[t] * e;
                }
            }
            if (sparse)
                for (int64_t k = n0; k < nnz; k++) {
                    int32_t i = cidx[k];
                    csw[k] = cw[i];
                    cerr[k] = err_up((g * cs[i] + ce[i]) * sc);
                    mark[i] = -1;
                }
        }
        if (sparse) cptr[N] = nnz;
    }
    /* the new layer l */
    for (int64_t n = 0; n < N; n++) eb[n] = err_up((g * sb[n] + eb[n]) * sc);
    free(A->w);
    free(A->b);
    nnc_smp_lin_free(la);
    A->K = (int)K;
    A->N = (int)N;
    A->b = cb;
    cb = NULL;
    la->berr = eb;
    eb = NULL;
    if (sparse) {
        A->w = NULL;
        la->ptr = cptr;
        la->idx = cidx;
        la->sw = csw;
        la->werr = cerr;
        cptr = NULL;
        cidx = NULL;
        csw = cerr = NULL;
    } else {
        for (int64_t q = 0; q < K * N; q++) cs[q] = err_up((g * cs[q] + ce[q]) * sc);
        A->w = cw;
        la->werr = cs;
        cw = cs = NULL;
    }
    A->relu = B->relu;
    free(B->w);
    free(B->b);
    nnc_smp_lin_free(lb);
    memmove(&ch->layers[l + 1], &ch->layers[l + 2], sizeof *ch->layers * (size_t)(ch->n_layers - l - 2));
    memmove(&ch->lin[l + 1], &ch->lin[l + 2], sizeof *ch->lin * (size_t)(ch->n_layers - l - 2));
    ch->n_layers--;
    ch->n_lin--;
    ch->float_weights = 0;
    st = NNC_STATUS_OK;
done:
    free(ii); free(aa); free(ee); free(cb); free(sb); free(eb);
    free(cw); free(cs); free(ce); free(cptr); free(cidx); free(mark); free(csw); free(cerr);
    return st;
}

nnc_status nnc_smp_lin_compose(nnc_smp_chain *ch)
{
    for (int l = 0; l + 1 < ch->n_layers;) {
        if (ch->layers[l].relu) {
            l++;
            continue;
        }
        nnc_status st = compose(ch, l);
        if (st) return st;
    }
    return NNC_STATUS_OK;
}
