/* Quantisation of a prepared model into the integer program of
 * zk/quant.h, its float twin (used for calibration) and the exact
 * integer reference runtime that the zk circuit reproduces. */
#include "zk/quant.h"
#include "models/model_impl.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAIL(st, ...) return nnc_err(err, errlen, st, __VA_ARGS__)

/* Float parameters kept while building (freed before returning). */
typedef struct qbuild {
    double **wf, **bf; /* per layer: float weights / bias, or NULL */
} qbuild;

static int64_t floordiv(int64_t a, int64_t d) /* d > 0 */
{
    int64_t q = a / d;
    return (a % d != 0 && a < 0) ? q - 1 : q;
}

static int64_t round_q(double x, int frac, int64_t lo, int64_t hi)
{
    double v = nearbyint(ldexp(x, frac));
    if (v < (double)lo) return lo;
    if (v > (double)hi) return hi;
    return (int64_t)v;
}

/* Smallest e with |x| <= 2^e for the largest |x| (x = 0: e = 0). */
static int exp_of(double maxabs)
{
    if (!(maxabs > 0)) return 0;
    int e;
    frexp(maxabs, &e); /* maxabs = f * 2^e, f in [0.5, 1) */
    if (ldexp(1.0, e - 1) >= maxabs) e--;
    return e;
}

void nnc_qmodel_clear(nnc_qmodel *q)
{
    if (!q) return;
    for (int i = 0; i < q->n_l; i++) {
        nnc_q_layer *l = &q->l[i];
        free(l->name);
        free(l->w);
        free(l->b);
        free(l->row_ptr);
        free(l->col);
    }
    free(q->l);
    free(q->t);
    free(q->inputs);
    memset(q, 0, sizeof *q);
}

static int add_tensor(nnc_qmodel *q, int rank, const int64_t *dims)
{
    nnc_q_tensor *t = realloc(q->t, (size_t)(q->n_t + 1) * sizeof *t);
    if (!t) return -1;
    q->t = t;
    nnc_q_tensor *x = &t[q->n_t];
    memset(x, 0, sizeof *x);
    x->rank = rank;
    x->numel = 1;
    for (int d = 0; d < rank; d++) {
        x->dims[d] = dims[d];
        x->numel *= dims[d];
    }
    return q->n_t++;
}

static nnc_q_layer *add_layer(nnc_qmodel *q, qbuild *qb, nnc_q_kind kind, const nnc_node *n)
{
    nnc_q_layer *l = realloc(q->l, (size_t)(q->n_l + 1) * sizeof *l);
    if (!l) return NULL;
    q->l = l;
    double **wf = realloc(qb->wf, (size_t)(q->n_l + 1) * sizeof *wf);
    if (!wf) return NULL;
    qb->wf = wf;
    double **bf = realloc(qb->bf, (size_t)(q->n_l + 1) * sizeof *bf);
    if (!bf) return NULL;
    qb->bf = bf;
    qb->wf[q->n_l] = qb->bf[q->n_l] = NULL;
    nnc_q_layer *x = &l[q->n_l++];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->op = nnc_op_name(n->op);
    x->name = strdup(n->name ? n->name : "");
    x->in = x->in2 = x->out = -1;
    return x->name ? x : NULL;
}

int64_t nnc_qmodel_window(const nnc_q_layer *l, int64_t c, int64_t oy, int64_t ox, int64_t *xi, int64_t *wi)
{
    int conv = l->kind == NNC_Q_CONV;
    int64_t cpg = conv ? l->C / l->group : 1, g = conv ? c / (l->OC / l->group) : 0, n = 0;
    for (int64_t ci = 0; ci < cpg; ci++)
        for (int64_t ky = 0; ky < l->kh; ky++)
            for (int64_t kx = 0; kx < l->kw; kx++) {
                int64_t iy = oy * l->sh - l->ph + ky * l->dh, ix = ox * l->sw - l->pw + kx * l->dw;
                if (iy < 0 || iy >= l->H || ix < 0 || ix >= l->W) continue;
                xi[n] = ((conv ? g * cpg + ci : c) * l->H + iy) * l->W + ix;
                if (wi) wi[n] = ((c * cpg + ci) * l->kh + ky) * l->kw + kx;
                n++;
            }
    return n;
}

/* The output columns [cols[2 kx], cols[2 kx + 1]) of a row whose tap kx
 * reads inside the input (ix = ox sw - pw + kx dw in [0, W)), for every
 * kx < kw.  Returns: cols (free()), or NULL on OOM. */
static int64_t *tap_cols(const nnc_q_layer *l)
{
    int64_t *cols = malloc((size_t)(2 * l->kw) * sizeof *cols);
    for (int64_t kx = 0; cols && kx < l->kw; kx++) {
        int64_t off = kx * l->dw - l->pw; /* ix = ox sw + off */
        int64_t a = off >= 0 ? 0 : (-off + l->sw - 1) / l->sw, b = l->W - 1 - off < 0 ? 0 : (l->W - 1 - off) / l->sw + 1;
        cols[2 * kx] = a < l->OW ? a : l->OW;
        cols[2 * kx + 1] = b < l->OW ? b : l->OW;
    }
    return cols;
}

/* A CONV layer's sums y[o][oy][ox] = b[o] + sum of x * w over the window
 * (padding skipped): each output's terms are added in nnc_qmodel_window's
 * order (channel, kernel row, kernel column), so the double sums are those
 * of a loop over the window, bit for bit; loops run along output rows.
 * Returns: 0, or -1 on OOM. */
#define CONV_SUMS(NAME, T)                                                                                                \
    static int NAME(const nnc_q_layer *l, const T *x, const T *w, const T *b, T *y)                                  \
    {                                                                                                                 \
        int64_t cpg = l->C / l->group, ocg = l->OC / l->group, plane = l->OH * l->OW;                                 \
        int64_t *cols = tap_cols(l);                                                                                  \
        if (!cols) return -1;                                                                                         \
        for (int64_t o = 0; o < l->OC; o++) {                                                                         \
            T *yo = y + o * plane;                                                                                    \
            T init = b ? b[o] : (T)0;                                                                                 \
            for (int64_t i = 0; i < plane; i++) yo[i] = init;                                                         \
            for (int64_t ci = 0; ci < cpg; ci++) {                                                                    \
                const T *xc = x + ((o / ocg) * cpg + ci) * l->H * l->W;                                               \
                const T *wc = w + (o * cpg + ci) * l->kh * l->kw;                                                     \
                for (int64_t ky = 0; ky < l->kh; ky++)                                                                \
                    for (int64_t oy = 0; oy < l->OH; oy++) {                                                          \
                        int64_t iy = oy * l->sh - l->ph + ky * l->dh;                                                 \
                        if (iy < 0 || iy >= l->H) continue;                                                           \
                        T *restrict yr = yo + oy * l->OW;                                                             \
                        for (int64_t kx = 0; kx < l->kw; kx++) {                                                      \
                            const T *restrict xr = xc + iy * l->W + kx * l->dw - l->pw;                               \
                            T wv = wc[ky * l->kw + kx];                                                               \
                            int64_t lo = cols[2 * kx], hi = cols[2 * kx + 1];                                         \
                            if (l->sw == 1)                                                                           \
                                for (int64_t ox = lo; ox < hi; ox++) yr[ox] += xr[ox] * wv;                           \
                            else                                                                                      \
                                for (int64_t ox = lo; ox < hi; ox++) yr[ox] += xr[ox * l->sw] * wv;                   \
                        }                                                                                             \
                    }                                                                                                 \
            }                                                                                                         \
        }                                                                                                             \
        free(cols);                                                                                                   \
        return 0;                                                                                                     \
    }
CONV_SUMS(conv_sums_f64, double)
CONV_SUMS(conv_sums_i64, int64_t)
#undef CONV_SUMS

int nnc_qmodel_layer_sums(const nnc_q_layer *l, const int64_t *x, int64_t *y)
{
    if (l->kind == NNC_Q_CONV) return conv_sums_i64(l, x, l->w, l->b, y);
    for (int64_t m = 0; m < l->M; m++)
        for (int64_t n = 0; n < l->N; n++) {
            const int64_t *xm = x + m * l->K, *wn = l->w + n * l->K;
            int64_t s = l->b ? l->b[n] : 0;
            for (int64_t k = 0; k < l->K; k++) s += xm[k] * wn[k];
            y[m * l->N + n] = s;
        }
    return 0;
}

/* Taps buffer for layer l (NULL on OOM; free()). */
static int64_t *window_buf(const nnc_q_layer *l)
{
    int64_t n = (l->kind == NNC_Q_CONV ? l->C / l->group : 1) * l->kh * l->kw;
    return malloc((size_t)(2 * n + 1) * sizeof(int64_t));
}

/* ------------------------------------------------------------ float twin */

/* Evaluate layer li in double.  v[t]: tensor values.  Returns: 0, -1 on OOM. */
static int eval_float(const nnc_qmodel *q, const qbuild *qb, int li, double **v)
{
    const nnc_q_layer *l = &q->l[li];
    const double *x = v[l->in], *w = qb->wf[li], *b = qb->bf[li];
    double *y = v[l->out];
    const nnc_q_tensor *to = &q->t[l->out];
    switch (l->kind) {
    case NNC_Q_DENSE:
        for (int64_t m = 0; m < l->M; m++)
            for (int64_t n = 0; n < l->N; n++) {
                double s = b ? b[n] : 0;
                for (int64_t k = 0; k < l->K; k++) s += x[m * l->K + k] * w[n * l->K + k];
                y[m * l->N + n] = s;
            }
        break;
    case NNC_Q_SPMM:
        for (int64_t r = 0; r < l->M; r++)
            for (int64_t f = 0; f < l->N; f++) {
                double s = 0;
                for (int64_t e = l->row_ptr[r]; e < l->row_ptr[r + 1]; e++) s += w[e] * x[l->col[e] * l->N + f];
                y[r * l->N + f] = s;
            }
        break;
    case NNC_Q_CONV:
        if (conv_sums_f64(l, x, w, b, y)) return -1;
        break;
    case NNC_Q_MAXPOOL: case NNC_Q_AVGPOOL: {
        int64_t *xi = window_buf(l);
        if (!xi) return -1;
        for (int64_t o = 0; o < l->OC; o++)
            for (int64_t oy = 0; oy < l->OH; oy++)
                for (int64_t ox = 0; ox < l->OW; ox++) {
                    int64_t cnt = nnc_qmodel_window(l, o, oy, ox, xi, NULL);
                    double s = l->kind == NNC_Q_MAXPOOL ? -INFINITY : 0;
                    for (int64_t k = 0; k < cnt; k++) {
                        if (l->kind == NNC_Q_MAXPOOL) s = x[xi[k]] > s ? x[xi[k]] : s;
                        else s += x[xi[k]];
                    }
                    if (l->kind == NNC_Q_AVGPOOL) s /= (double)(l->count_include_pad ? l->kh * l->kw : cnt);
                    y[(o * l->OH + oy) * l->OW + ox] = s;
                }
        free(xi);
        break;
    }
    case NNC_Q_RELU:
        for (int64_t i = 0; i < to->numel; i++) y[i] = x[i] > 0 ? x[i] : 0;
        break;
    case NNC_Q_ADD:
        for (int64_t i = 0; i < to->numel; i++) y[i] = x[i] + (l->in2 >= 0 ? v[l->in2][i] : w[i]);
        break;
    case NNC_Q_GATHER:
        for (int64_t i = 0; i < to->numel / l->D; i++) {
            int64_t r = (int64_t)x[i];
            if (r < 0) r += l->V;
            for (int64_t d = 0; d < l->D; d++) y[i * l->D + d] = (r >= 0 && r < l->V) ? w[r * l->D + d] : 0;
        }
        break;
    case NNC_Q_RESHAPE:
        memcpy(y, x, (size_t)to->numel * sizeof *y);
        break;
    }
    return 0;
}

/* ------------------------------------------------------------ building */

static const nnc_value *node_in(const nnc_model *m, const nnc_node *n, int i)
{
    return (i < n->n_in && n->in[i] >= 0) ? &m->vals[n->in[i]] : NULL;
}

/* Constant b broadcast (numpy rules) to the shape of out; NULL on OOM. */
static double *broadcast_const(const nnc_value *c, const nnc_value *out)
{
    double *r = malloc((size_t)out->numel * sizeof *r);
    if (!r) return NULL;
    for (int64_t i = 0; i < out->numel; i++) {
        int64_t rem = i, src = 0, stride = 1;
        for (int d = out->rank - 1; d >= 0; d--) {
            int64_t idx = rem % out->dims[d];
            rem /= out->dims[d];
            int cd = d - (out->rank - c->rank);
            if (cd >= 0) {
                if (c->dims[cd] != 1) src += idx * stride;
                stride *= c->dims[cd];
            }
        }
        r[i] = c->f ? c->f[src] : (double)c->i[src];
    }
    return r;
}

static nnc_status build_layers(nnc_qmodel *q, qbuild *qb, const nnc_model *m, int *map, char *err, size_t errlen)
{
    for (int oi = 0; oi < m->n_order; oi++) {
        const nnc_node *n = &m->nodes[m->order[oi]];
        const nnc_value *x = node_in(m, n, 0), *y = &m->vals[n->out[0]];
        const nnc_value *b1 = node_in(m, n, 1), *b2 = node_in(m, n, 2);
        int xin = x ? map[x - m->vals] : -1;
        nnc_q_layer *l = NULL;
#define NEED_X() do { if (xin < 0) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): the circuit compiler needs its first input to be computed, not constant", n->name, n->op_type); } while (0)
#define NEW(kind) do { if (!(l = add_layer(q, qb, kind, n))) FAIL(NNC_STATUS_NOMEM, "out of memory"); } while (0)
        switch (n->op) {
        case NNC_OP_GEMM: case NNC_OP_MATMUL: {
            if (n->op == NNC_OP_MATMUL && x && x->sparse) {
                int rin = map[b1 - m->vals];
                if (rin < 0 || (b1->rank != 1 && b1->rank != 2))
                    FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (MatMul): sparse adjacency times a constant", n->name);
                NEW(NNC_Q_SPMM);
                const nnc_csr *a = x->sparse;
                l->in = rin;
                l->M = a->rows; l->K = a->cols; l->N = b1->rank == 2 ? b1->dims[1] : 1;
                l->nw = a->nnz;
                l->row_ptr = malloc((size_t)(a->rows + 1) * sizeof *l->row_ptr);
                l->col = malloc((size_t)(a->nnz ? a->nnz : 1) * sizeof *l->col);
                qb->wf[q->n_l - 1] = malloc((size_t)(a->nnz ? a->nnz : 1) * sizeof(double));
                if (!l->row_ptr || !l->col || !qb->wf[q->n_l - 1]) FAIL(NNC_STATUS_NOMEM, "out of memory");
                memcpy(l->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof *l->row_ptr);
                memcpy(l->col, a->col, (size_t)a->nnz * sizeof *l->col);
                memcpy(qb->wf[q->n_l - 1], a->val, (size_t)a->nnz * sizeof(double));
                break;
            }
            NEED_X();
            if (!b1 || b1->kind != NNC_VAL_CONST || !b1->f || b1->rank != 2)
                FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): the circuit compiler needs a constant 2-D right operand (weights)", n->name, n->op_type);
            int tb = n->op == NNC_OP_GEMM ? (int)n->p[1] : 0;
            if (n->op == NNC_OP_GEMM && n->p[0])
                FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Gemm): transA = 1", n->name);
            NEW(NNC_Q_DENSE);
            l->in = xin;
            l->K = tb ? b1->dims[1] : b1->dims[0];
            l->N = tb ? b1->dims[0] : b1->dims[1];
            l->M = x->numel / l->K;
            double alpha = n->op == NNC_OP_GEMM ? n->fp[0] : 1, beta = n->op == NNC_OP_GEMM ? n->fp[1] : 1;
            double *w = malloc((size_t)(l->N * l->K) * sizeof *w);
            if (!w) FAIL(NNC_STATUS_NOMEM, "out of memory");
            qb->wf[q->n_l - 1] = w;
            for (int64_t nn = 0; nn < l->N; nn++)
                for (int64_t k = 0; k < l->K; k++)
                    w[nn * l->K + k] = alpha * (tb ? b1->f[nn * l->K + k] : b1->f[k * l->N + nn]);
            l->nw = l->N * l->K;
            if (n->op == NNC_OP_GEMM && b2) {
                if (b2->kind != NNC_VAL_CONST || !b2->f || (l->M > 1 && (n->p[5] & 1)))
                    FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Gemm): C must be a constant vector", n->name);
                double *bb = malloc((size_t)l->N * sizeof *bb);
                if (!bb) FAIL(NNC_STATUS_NOMEM, "out of memory");
                qb->bf[q->n_l - 1] = bb;
                for (int64_t nn = 0; nn < l->N; nn++) bb[nn] = beta * b2->f[b2->numel == 1 ? 0 : nn];
            }
            break;
        }
        case NNC_OP_CONV: {
            NEED_X();
            if (x->rank != 4 || x->dims[0] != 1 || !b1->f || b1->kind != NNC_VAL_CONST)
                FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Conv): the circuit compiler supports 2-D convolutions of one sample with constant weights", n->name);
            NEW(NNC_Q_CONV);
            l->in = xin;
            l->C = x->dims[1]; l->H = x->dims[2]; l->W = x->dims[3];
            l->OC = y->dims[1]; l->OH = y->dims[2]; l->OW = y->dims[3];
            nnc_window g = nnc_window_of(m, n); /* (2-D: x has rank 4) */
            l->kh = g.kh; l->kw = g.kw; l->sh = g.sh; l->sw = g.sw;
            l->ph = g.pt; l->pw = g.pl; l->dh = g.dh; l->dw = g.dw; l->group = g.group;
            l->nw = b1->numel;
            double *w = malloc((size_t)l->nw * sizeof *w);
            if (!w) FAIL(NNC_STATUS_NOMEM, "out of memory");
            memcpy(w, b1->f, (size_t)l->nw * sizeof *w);
            qb->wf[q->n_l - 1] = w;
            if (b2) {
                if (!b2->f) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Conv): non-constant bias", n->name);
                double *bb = malloc((size_t)l->OC * sizeof *bb);
                if (!bb) FAIL(NNC_STATUS_NOMEM, "out of memory");
                memcpy(bb, b2->f, (size_t)l->OC * sizeof *bb);
                qb->bf[q->n_l - 1] = bb;
            }
            break;
        }
        case NNC_OP_MAXPOOL: case NNC_OP_AVERAGEPOOL: case NNC_OP_GLOBALAVERAGEPOOL: {
            NEED_X();
            if (x->rank != 4 || x->dims[0] != 1)
                FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): the circuit compiler supports 2-D pools of one sample", n->name, n->op_type);
            NEW(n->op == NNC_OP_MAXPOOL ? NNC_Q_MAXPOOL : NNC_Q_AVGPOOL);
            l->in = xin;
            l->C = l->OC = x->dims[1]; l->H = x->dims[2]; l->W = x->dims[3];
            l->OH = y->dims[2]; l->OW = y->dims[3];
            if (n->op == NNC_OP_GLOBALAVERAGEPOOL) {
                l->kh = l->H; l->kw = l->W; l->sh = l->sw = l->dh = l->dw = 1;
            } else {
                nnc_window g = nnc_window_of(m, n);
                l->kh = g.kh; l->kw = g.kw; l->sh = g.sh; l->sw = g.sw;
                l->ph = g.pt; l->pw = g.pl; l->dh = g.dh; l->dw = g.dw;
                l->count_include_pad = g.count_include_pad;
            }
            break;
        }
        case NNC_OP_RELU:
            NEED_X();
            NEW(NNC_Q_RELU);
            l->in = xin;
            break;
        case NNC_OP_ADD: {
            const nnc_value *a = x, *c = b1;
            int ia = xin, ic = map[c - m->vals];
            if (ia < 0) { const nnc_value *t = a; a = c; c = t; int ti = ia; ia = ic; ic = ti; }
            if (ia < 0) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Add): both operands constant", n->name);
            if (a->numel != y->numel || (ic >= 0 && c->numel != y->numel))
                FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Add): broadcasting between computed tensors", n->name);
            if (ic < 0 && !c->f) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Add): integer constant", n->name);
            NEW(NNC_Q_ADD);
            l->in = ia;
            l->in2 = ic;
            if (ic < 0) {
                if (!(qb->wf[q->n_l - 1] = broadcast_const(c, y))) FAIL(NNC_STATUS_NOMEM, "out of memory");
                l->nw = y->numel;
            }
            break;
        }
        case NNC_OP_GATHER: {
            int ii = b1 ? map[b1 - m->vals] : -1;
            if (!x || x->kind != NNC_VAL_CONST || !x->f || x->rank != 2 || n->p[0] != 0 || ii < 0)
                FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Gather): the circuit compiler supports a constant 2-D table indexed along axis 0 by a computed tensor", n->name);
            if (!q->t[ii].is_int) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Gather): indices must come straight from an integer graph input", n->name);
            NEW(NNC_Q_GATHER);
            l->in = ii;
            l->V = x->dims[0]; l->D = x->dims[1];
            l->nw = x->numel;
            double *w = malloc((size_t)l->nw * sizeof *w);
            if (!w) FAIL(NNC_STATUS_NOMEM, "out of memory");
            memcpy(w, x->f, (size_t)l->nw * sizeof *w);
            qb->wf[q->n_l - 1] = w;
            if (q->t[ii].int_range == 0 || q->t[ii].int_range > l->V) q->t[ii].int_range = l->V;
            break;
        }
        case NNC_OP_FLATTEN: case NNC_OP_RESHAPE: case NNC_OP_IDENTITY: case NNC_OP_DROPOUT:
        case NNC_OP_SQUEEZE: case NNC_OP_UNSQUEEZE:
            NEED_X();
            NEW(NNC_Q_RESHAPE);
            l->in = xin;
            break;
        default:
            FAIL(NNC_STATUS_UNSUPPORTED, "node '%s': operator %s has no circuit gadget (supported: Gemm, MatMul, Conv, Add, Relu, MaxPool, AveragePool, GlobalAveragePool, Gather, Flatten, Reshape, Identity, Dropout, Squeeze, Unsqueeze)",
                 n->name, n->op_type);
        }
#undef NEED_X
#undef NEW
        int t = add_tensor(q, y->rank, y->dims);
        if (t < 0) FAIL(NNC_STATUS_NOMEM, "out of memory");
        q->l[q->n_l - 1].out = t;
        map[n->out[0]] = t;
        if (l->kind == NNC_Q_DENSE && q->t[t].numel != l->M * l->N)
            FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): batched operand shapes", n->name, n->op_type);
    }
    return NNC_STATUS_OK;
}

/* Choose scales from the calibration maxima and quantise the parameters. */
static nnc_status choose_scales(nnc_qmodel *q, const qbuild *qb, const double *maxabs, char *err, size_t errlen)
{
    const int B = q->bits, RB = q->bits + NNC_Q_HEADROOM_BITS;
    const int64_t wlo = -((int64_t)1 << (B - 1)), whi = ((int64_t)1 << (B - 1)) - 1;
    for (int i = 0; i < q->n_inputs; i++) {
        nnc_q_tensor *t = &q->t[q->inputs[i]];
        if (t->is_int) continue;
        t->frac = B - 1 - exp_of(maxabs[q->inputs[i]]);
        t->rbits = RB;
    }
    for (int li = 0; li < q->n_l; li++) {
        nnc_q_layer *l = &q->l[li];
        nnc_q_tensor *ti = &q->t[l->in], *to = &q->t[l->out];
        const double *wf = qb->wf[li];
        double wmax = 0;
        for (int64_t k = 0; wf && k < l->nw; k++) wmax = fmax(wmax, fabs(wf[k]));
        switch (l->kind) {
        case NNC_Q_DENSE: case NNC_Q_CONV: case NNC_Q_SPMM: {
            l->wfrac = B - 1 - exp_of(wmax);
            l->wbits = B;
            int fy = RB - NNC_Q_HEADROOM_BITS - 1 - exp_of(maxabs[l->out]);
            int facc = ti->frac + l->wfrac;
            if (fy > facc) fy = facc;
            l->shift = facc - fy;
            if (l->shift > 60) FAIL(NNC_STATUS_LIMIT, "layer '%s': requantisation shift %d too large", l->name, l->shift);
            to->frac = fy;
            to->rbits = RB;
            l->w = malloc((size_t)(l->nw ? l->nw : 1) * sizeof *l->w);
            if (!l->w) FAIL(NNC_STATUS_NOMEM, "out of memory");
            for (int64_t k = 0; k < l->nw; k++) l->w[k] = round_q(wf[k], l->wfrac, wlo, whi);
            if (qb->bf[li]) {
                int64_t nb = l->kind == NNC_Q_CONV ? l->OC : l->N;
                l->b = malloc((size_t)nb * sizeof *l->b);
                if (!l->b) FAIL(NNC_STATUS_NOMEM, "out of memory");
                for (int64_t k = 0; k < nb; k++) l->b[k] = round_q(qb->bf[li][k], facc, -((int64_t)1 << 52), (int64_t)1 << 52);
            }
            /* int64 accumulators: |acc| < K 2^(rbits-1) 2^(B-1) + |b| */
            int64_t fan = l->kind == NNC_Q_CONV ? (l->C / l->group) * l->kh * l->kw : l->K;
            if (ti->rbits + B + exp_of((double)fan) + 2 > 62) FAIL(NNC_STATUS_LIMIT, "layer '%s': accumulator would exceed 62 bits", l->name);
            break;
        }
        case NNC_Q_RELU: case NNC_Q_MAXPOOL: case NNC_Q_RESHAPE:
            to->frac = ti->frac;
            to->rbits = ti->rbits;
            to->is_int = ti->is_int;
            break;
        case NNC_Q_AVGPOOL:
            to->frac = ti->frac;
            to->rbits = ti->rbits;
            break;
        case NNC_Q_ADD: {
            int fb = l->in2 >= 0 ? q->t[l->in2].frac : ti->frac;
            int fy = ti->frac > fb ? ti->frac : fb;
            l->lsh_a = fy - ti->frac;
            l->lsh_b = fy - fb;
            int rb = ti->rbits + l->lsh_a;
            if (l->in2 >= 0) {
                int r2 = q->t[l->in2].rbits + l->lsh_b;
                rb = rb > r2 ? rb : r2;
            } else {
                l->w = malloc((size_t)(l->nw ? l->nw : 1) * sizeof *l->w);
                if (!l->w) FAIL(NNC_STATUS_NOMEM, "out of memory");
                for (int64_t k = 0; k < l->nw; k++) l->w[k] = round_q(wf[k], fy, -((int64_t)1 << (RB - 1)), ((int64_t)1 << (RB - 1)) - 1);
                rb = rb > RB ? rb : RB;
            }
            to->frac = fy;
            to->rbits = rb + 1;
            if (to->rbits > 60) FAIL(NNC_STATUS_LIMIT, "layer '%s': Add chain too wide", l->name);
            break;
        }
        case NNC_Q_GATHER:
            l->wfrac = B - 1 - exp_of(wmax);
            l->wbits = B;
            l->w = malloc((size_t)(l->nw ? l->nw : 1) * sizeof *l->w);
            if (!l->w) FAIL(NNC_STATUS_NOMEM, "out of memory");
            for (int64_t k = 0; k < l->nw; k++) l->w[k] = round_q(wf[k], l->wfrac, wlo, whi);
            to->frac = l->wfrac;
            to->rbits = B;
            break;
        }
    }
    return NNC_STATUS_OK;
}

/* The calibration samples [s0, s1) through the float twin: per tensor the
 * largest magnitude, into maxabs (n_t, zeroed by the caller).  Sample s is
 * calib's, or without calibration data the deterministic splitmix64 draws
 * of a sequential pass (draw d of the whole pass: seed + (d + 1) golden). */
typedef struct calib_job {
    const nnc_qmodel *q;
    const qbuild *qb;
    const double *const *calib;
    int n_calib, s0, s1, fail;
    double *maxabs;
} calib_job;

static void *calib_run(void *arg)
{
    calib_job *j = arg;
    const nnc_qmodel *q = j->q;
    int64_t per = 0; /* draws per sample */
    for (int i = 0; i < q->n_inputs; i++) per += q->t[q->inputs[i]].numel;
    double **v = calloc((size_t)q->n_t, sizeof *v);
    j->fail = v == NULL;
    for (int t = 0; !j->fail && t < q->n_t; t++) j->fail = !(v[t] = malloc((size_t)q->t[t].numel * sizeof(double)));
    for (int s = j->s0; s < j->s1 && !j->fail; s++) {
        uint64_t rs = 0x9e3779b97f4a7c15ull * (1 + (uint64_t)s * (uint64_t)per);
        for (int i = 0; i < q->n_inputs; i++) {
            const nnc_q_tensor *t = &q->t[q->inputs[i]];
            for (int64_t k = 0; k < t->numel; k++) {
                double x;
                if (j->calib && j->n_calib > 0) x = j->calib[i][(int64_t)s * t->numel + k];
                else { /* splitmix64: deterministic uniform [0,1) (indices: [0, range)) */
                    uint64_t z = (rs += 0x9e3779b97f4a7c15ull);
                    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
                    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
                    z ^= z >> 31;
                    x = (double)(z >> 11) * 0x1p-53;
                    if (t->is_int) x = floor(x * (double)t->int_range);
                }
                v[q->inputs[i]][k] = x;
            }
        }
        for (int li = 0; li < q->n_l && !j->fail; li++) j->fail = eval_float(q, j->qb, li, v) != 0;
        for (int t = 0; t < q->n_t && !j->fail; t++)
            for (int64_t k = 0; k < q->t[t].numel; k++) j->maxabs[t] = fmax(j->maxabs[t], fabs(v[t][k]));
    }
    if (v)
        for (int t = 0; t < q->n_t; t++) free(v[t]);
    free(v);
    return NULL;
}

#define CALIB_MAX_THREADS 8

/* Every calibration sample (calib's n_calib, else 32 drawn), over up to
 * one thread per online CPU.  Returns: 0, or -1 when out of memory. */
static int calib_all(const nnc_qmodel *q, const qbuild *qb, const double *const *calib, int n_calib, double *maxabs)
{
    int ns = (calib && n_calib > 0) ? n_calib : 32;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int T = cpus < 1 ? 1 : cpus > CALIB_MAX_THREADS ? CALIB_MAX_THREADS : (int)cpus;
    if (T > ns) T = ns;
    calib_job job[CALIB_MAX_THREADS];
    pthread_t tid[CALIB_MAX_THREADS];
    int started[CALIB_MAX_THREADS] = {0}, fail = 0;
    for (int t = 0; t < T; t++) {
        job[t] = (calib_job){q, qb, calib, n_calib, (int)((int64_t)ns * t / T), (int)((int64_t)ns * (t + 1) / T), 0,
                             calloc((size_t)q->n_t, sizeof(double))};
        if (!job[t].maxabs) fail = 1;
    }
    for (int t = 1; t < T && !fail; t++) started[t] = pthread_create(&tid[t], NULL, calib_run, &job[t]) == 0;
    if (!fail) calib_run(&job[0]);
    for (int t = 1; t < T; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else if (!fail) calib_run(&job[t]); /* a thread that could not start: its share here */
    }
    for (int t = 0; t < T; t++) {
        fail |= job[t].fail;
        for (int i = 0; !fail && i < q->n_t; i++) maxabs[i] = fmax(maxabs[i], job[t].maxabs[i]);
        free(job[t].maxabs);
    }
    return fail ? -1 : 0;
}

nnc_status nnc_qmodel_build(nnc_qmodel *out, const nnc_model *m, int bits, const double *const *calib,
                            int n_calib, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (bits < NNC_Q_MIN_BITS || bits > NNC_Q_MAX_BITS)
        FAIL(NNC_STATUS_ARG, "bits must lie in %d..%d (got %d)", NNC_Q_MIN_BITS, NNC_Q_MAX_BITS, bits);
    if (m->n_outputs != 1) FAIL(NNC_STATUS_UNSUPPORTED, "the circuit compiler needs a model with one output (it has %d)", m->n_outputs);
    nnc_qmodel *q = out;
    q->bits = bits;
    memcpy(q->model_sha256, m->sha256, 32);
    qbuild qb = {0};
    double *maxabs = NULL;
    nnc_status st = NNC_STATUS_OK;
    int *map = malloc((size_t)m->n_vals * sizeof *map);
    q->inputs = malloc((size_t)(m->n_inputs ? m->n_inputs : 1) * sizeof *q->inputs);
    if (!map || !q->inputs) { st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory"); goto done; }
    for (int i = 0; i < m->n_vals; i++) map[i] = -1;
    for (int i = 0; i < m->n_inputs; i++) {
        const nnc_value *iv = &m->vals[m->inputs[i]];
        int t = add_tensor(q, iv->rank, iv->dims);
        if (t < 0) { st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory"); goto done; }
        q->t[t].is_input = 1;
        q->t[t].is_int = !nnc_dtype_is_float(iv->dtype);
        map[m->inputs[i]] = t;
        q->inputs[q->n_inputs++] = t;
    }
    if ((st = build_layers(q, &qb, m, map, err, errlen))) goto done;
    q->output = map[m->outputs[0]];
    if (q->output < 0 || q->n_l == 0) { st = nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "the model output is not computed from its inputs"); goto done; }
    for (int i = 0; i < q->n_inputs; i++)
        if (q->t[q->inputs[i]].is_int && q->t[q->inputs[i]].int_range == 0) {
            st = nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "integer input %d is used other than as Gather indices", i);
            goto done;
        }

    /* Calibration on the float twin: the samples split over threads, each
     * with its own tensors; the per-tensor maxima are merged by fmax, so
     * the scales do not depend on the split. */
    maxabs = calloc((size_t)q->n_t, sizeof *maxabs);
    if (!maxabs) { st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory"); goto done; }
    if (calib_all(q, &qb, calib, n_calib, maxabs)) { st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory"); goto done; }
    st = choose_scales(q, &qb, maxabs, err, errlen);
done:
    for (int i = 0; i < q->n_l; i++) {
        if (qb.wf) free(qb.wf[i]);
        if (qb.bf) free(qb.bf[i]);
    }
    free(qb.wf);
    free(qb.bf);
    free(maxabs);
    free(map);
    if (st) nnc_qmodel_clear(q);
    return st;
}

/* ------------------------------------------------------------ integer runtime */

nnc_status nnc_qmodel_quantize_inputs(const nnc_qmodel *q, const double *const *in, int64_t *const *qin,
                                      char *err, size_t errlen)
{
    for (int i = 0; i < q->n_inputs; i++) {
        const nnc_q_tensor *t = &q->t[q->inputs[i]];
        for (int64_t k = 0; k < t->numel; k++) {
            double x = in[i][k];
            if (t->is_int) {
                if (x != floor(x) || x < 0 || x >= (double)t->int_range)
                    FAIL(NNC_STATUS_INVALID, "input %d element %lld: index %g outside [0, %lld)", i, (long long)k, x, (long long)t->int_range);
                qin[i][k] = (int64_t)x;
                continue;
            }
            double r = nearbyint(ldexp(x, t->frac)), lim = ldexp(1.0, t->rbits - 1);
            if (!(r >= -lim && r < lim))
                FAIL(NNC_STATUS_INVALID, "input %d element %lld: %g is outside the quantised range (|x| < %g)", i, (long long)k, x, ldexp(1.0, t->rbits - 1 - t->frac));
            qin[i][k] = (int64_t)r;
        }
    }
    return NNC_STATUS_OK;
}

void nnc_qmodel_free_values(const nnc_qmodel *q, int64_t **vals)
{
    if (!vals) return;
    for (int t = 0; t < q->n_t; t++) free(vals[t]);
    free(vals);
}

static int in_range(int64_t v, int rbits)
{
    return rbits <= 0 || (v >= -((int64_t)1 << (rbits - 1)) && v < ((int64_t)1 << (rbits - 1)));
}

static int64_t requant(int64_t acc, int shift)
{
    return shift == 0 ? acc : floordiv(acc + ((int64_t)1 << (shift - 1)), (int64_t)1 << shift);
}

nnc_status nnc_qmodel_run(const nnc_qmodel *q, const int64_t *const *qin, int64_t ***vals_out,
                          char *err, size_t errlen)
{
    *vals_out = NULL;
    int64_t **v = calloc((size_t)q->n_t, sizeof *v);
    if (!v) FAIL(NNC_STATUS_NOMEM, "out of memory");
    for (int t = 0; t < q->n_t; t++)
        if (!(v[t] = malloc((size_t)q->t[t].numel * sizeof **v))) {
            nnc_qmodel_free_values(q, v);
            FAIL(NNC_STATUS_NOMEM, "out of memory");
        }
    for (int i = 0; i < q->n_inputs; i++) memcpy(v[q->inputs[i]], qin[i], (size_t)q->t[q->inputs[i]].numel * sizeof **v);
    for (int li = 0; li < q->n_l; li++) {
        const nnc_q_layer *l = &q->l[li];
        const int64_t *x = v[l->in], *w = l->w;
        int64_t *y = v[l->out];
        const nnc_q_tensor *to = &q->t[l->out];
        switch (l->kind) {
        case NNC_Q_DENSE: case NNC_Q_CONV:
            if (nnc_qmodel_layer_sums(l, x, y)) {
                nnc_qmodel_free_values(q, v);
                FAIL(NNC_STATUS_NOMEM, "out of memory");
            }
            for (int64_t i = 0; i < to->numel; i++) y[i] = requant(y[i], l->shift);
            break;
        case NNC_Q_SPMM:
            for (int64_t r = 0; r < l->M; r++)
                for (int64_t f = 0; f < l->N; f++) {
                    int64_t s = 0;
                    for (int64_t e = l->row_ptr[r]; e < l->row_ptr[r + 1]; e++) s += w[e] * x[l->col[e] * l->N + f];
                    y[r * l->N + f] = requant(s, l->shift);
                }
            break;
        case NNC_Q_MAXPOOL: case NNC_Q_AVGPOOL: {
            int64_t *xi = window_buf(l);
            if (!xi) {
                nnc_qmodel_free_values(q, v);
                FAIL(NNC_STATUS_NOMEM, "out of memory");
            }
            for (int64_t o = 0; o < l->OC; o++)
                for (int64_t oy = 0; oy < l->OH; oy++)
                    for (int64_t ox = 0; ox < l->OW; ox++) {
                        int64_t cnt = nnc_qmodel_window(l, o, oy, ox, xi, NULL), s = 0;
                        if (l->kind == NNC_Q_MAXPOOL) {
                            for (int64_t k = 0; k < cnt; k++) s = (k == 0 || x[xi[k]] > s) ? x[xi[k]] : s;
                        } else {
                            int64_t d = l->count_include_pad ? l->kh * l->kw : cnt;
                            for (int64_t k = 0; k < cnt; k++) s += x[xi[k]];
                            s = floordiv(s + d / 2, d);
                        }
                        y[(o * l->OH + oy) * l->OW + ox] = s;
                    }
            free(xi);
            break;
        }
        case NNC_Q_RELU:
            for (int64_t i = 0; i < to->numel; i++) y[i] = x[i] > 0 ? x[i] : 0;
            break;
        case NNC_Q_ADD:
            for (int64_t i = 0; i < to->numel; i++)
                y[i] = x[i] * ((int64_t)1 << l->lsh_a) + (l->in2 >= 0 ? v[l->in2][i] : w[i]) * ((int64_t)1 << l->lsh_b);
            break;
        case NNC_Q_GATHER:
            for (int64_t i = 0; i < to->numel / l->D; i++)
                for (int64_t d = 0; d < l->D; d++) y[i * l->D + d] = w[x[i] * l->D + d];
            break;
        case NNC_Q_RESHAPE:
            memcpy(y, x, (size_t)to->numel * sizeof *y);
            break;
        }
        for (int64_t i = 0; i < to->numel; i++)
            if (!in_range(y[i], to->rbits)) {
                nnc_qmodel_free_values(q, v);
                FAIL(NNC_STATUS_INVALID, "layer '%s' (%s): value %lld at element %lld leaves the %d-bit range the circuit checks; compile with more bits or a calibration set closer to this input",
                     l->name, l->op, (long long)y[i], (long long)i, to->rbits);
            }
    }
    *vals_out = v;
    return NNC_STATUS_OK;
}

int64_t nnc_qmodel_macs(const nnc_qmodel *q)
{
    int64_t macs = 0;
    for (int li = 0; li < q->n_l; li++) {
        const nnc_q_layer *l = &q->l[li];
        if (l->kind == NNC_Q_DENSE) macs += l->M * l->N * l->K;
        else if (l->kind == NNC_Q_SPMM) macs += l->N * l->nw;
        else if (l->kind == NNC_Q_CONV) macs += l->OC * l->OH * l->OW * (l->C / l->group) * l->kh * l->kw;
    }
    return macs;
}
