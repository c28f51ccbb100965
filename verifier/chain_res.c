/* Residual connections in a chain (nnc_smp_chain_extract_res).
 *
 * The walk keeps a basis: the values the next layer reads, laid out one
 * after another (the outputs of the last ReLU layer, then the earlier ReLU
 * outputs still needed, each a segment; views of a segment are aliases of
 * it).  Linear nodes after a ReLU layer build pending values, each a chain
 * of linear layers (nnc_smp_chain_step) over one segment or, after a
 * residual Add, over the whole basis.  At a ReLU the pending value it reads
 * is composed into one layer over the basis, the segments still needed
 * later get identity rows after it, and that layer, with the ReLU, is the
 * chain's next.  A carried segment is the output of a ReLU, so it is >= 0
 * and the ReLU on its copy changes nothing: the chain computes the model
 * exactly, weights and their rounding bounds (werr, berr) included.
 *
 * A residual Add or Sub sums the two operands' layers term by term; where
 * both have a term on the same input the float64 sum is rounded, and its
 * error (eps |sum|) goes into werr, as for a bias sum into berr. */
#include "verifier/sample_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double err_up(double s) { return s * (1 + 8 * DBL_EPSILON) + 4.9e-324; }

/* A sparse layer under construction: N rows over the basis. */
typedef struct res_rows {
    int64_t N, nnz;
    int64_t *ptr;
    int32_t *idx;
    double *sw, *werr, *b, *berr;
} res_rows;

typedef struct res_seg {
    int val;         /* a model value (several entries share off: aliases) */
    int64_t off, n;  /* its place in the basis */
    int nonneg;      /* a ReLU's output */
} res_seg;

typedef struct res_pend {
    int val;           /* the value it computes so far */
    nnc_smp_chain *ch; /* linear layers over basis[off .. off + K) */
    int64_t off, K;
    int bias_ok;
} res_pend;

typedef struct res_walk {
    const nnc_model *m;
    nnc_smp_chain *out;
    res_seg *seg;
    int nseg;
    res_pend *pend;
    int npend;
    int64_t W;     /* basis width */
    int64_t base;  /* chain index of the basis's first neuron (-1: the basis is the input) */
    int64_t nrelu; /* chain ReLU neurons so far */
    int64_t mrelu; /* model ReLU neurons so far */
    int *last_use; /* per value: the last order position reading it (n_order: the output) */
    int *uses;     /* per value: how many node inputs read it */
} res_walk;

static void rows_free(res_rows *r)
{
    free(r->ptr); free(r->idx); free(r->sw); free(r->werr); free(r->b); free(r->berr);
    memset(r, 0, sizeof *r);
}

static int rows_alloc(res_rows *r, int64_t N, int64_t cap)
{
    memset(r, 0, sizeof *r);
    r->N = N;
    r->ptr = malloc(sizeof(int64_t) * (size_t)(N + 1));
    r->idx = malloc(sizeof(int32_t) * (size_t)(cap + 1));
    r->sw = malloc(sizeof(double) * (size_t)(cap + 1));
    r->werr = malloc(sizeof(double) * (size_t)(cap + 1));
    r->b = calloc((size_t)N + 1, sizeof(double));
    r->berr = calloc((size_t)N + 1, sizeof(double));
    if (!r->ptr || !r->idx || !r->sw || !r->werr || !r->b || !r->berr) {
        rows_free(r);
        return -1;
    }
    r->ptr[0] = 0;
    return 0;
}

/* Layer (D, S) over basis[off ..] as rows over the basis, weights and bias
 * times sign (+-1, exact). */
static int rows_of_layer(const nnc_gpu_dense *D, const nnc_smp_lin *S, int64_t off, double sign, res_rows *r)
{
    int64_t N = D->N, K = D->K, cap = 0;
    if (D->w) {
        for (int64_t q = 0; q < K * N; q++) cap += D->w[q] != 0 || (S && S->werr && S->werr[q] != 0);
    } else cap = S->ptr[N];
    if (rows_alloc(r, N, cap)) return -1;
    for (int64_t j = 0; j < N; j++) {
        if (D->w) {
            for (int64_t i = 0; i < K; i++) {
                double w = D->w[i * N + j], e = S && S->werr ? S->werr[i * N + j] : 0.0;
                if (w == 0 && e == 0) continue;
                r->idx[r->nnz] = (int32_t)(off + i);
                r->sw[r->nnz] = sign * w;
                r->werr[r->nnz++] = e;
            }
        } else {
            for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) {
                r->idx[r->nnz] = (int32_t)(off + S->idx[q]);
                r->sw[r->nnz] = sign * S->sw[q];
                r->werr[r->nnz++] = S->werr ? S->werr[q] : 0.0;
            }
        }
        r->ptr[j + 1] = r->nnz;
        r->b[j] = D->b ? sign * D->b[j] : 0.0;
        r->berr[j] = S && S->berr ? S->berr[j] : 0.0;
    }
    return 0;
}

/* Append identity rows on basis[off .. off + n) (times sign) to r (grown). */
static int rows_append_identity(res_rows *r, int64_t off, int64_t n, double sign)
{
    int64_t N = r->N + n, nnz = r->nnz + n;
    int64_t *p = realloc(r->ptr, sizeof(int64_t) * (size_t)(N + 1));
    if (p) r->ptr = p;
    int32_t *ix = realloc(r->idx, sizeof(int32_t) * (size_t)(nnz + 1));
    if (ix) r->idx = ix;
    double *sw = realloc(r->sw, sizeof(double) * (size_t)(nnz + 1));
    if (sw) r->sw = sw;
    double *we = realloc(r->werr, sizeof(double) * (size_t)(nnz + 1));
    if (we) r->werr = we;
    double *b = realloc(r->b, sizeof(double) * (size_t)(N + 1));
    if (b) r->b = b;
    double *be = realloc(r->berr, sizeof(double) * (size_t)(N + 1));
    if (be) r->berr = be;
    if (!p || !ix || !sw || !we || !b || !be) return -1;
    for (int64_t i = 0; i < n; i++) {
        r->idx[r->nnz] = (int32_t)(off + i);
        r->sw[r->nnz] = sign;
        r->werr[r->nnz++] = 0;
        r->b[r->N] = r->berr[r->N] = 0;
        r->ptr[++r->N] = r->nnz;
    }
    return 0;
}

/* s = a + b, row by row (both N rows over a basis of W); terms on the same
 * input summed, their rounding added to werr. */
static int rows_sum(const res_rows *a, const res_rows *b, int64_t W, res_rows *s)
{
    if (a->N != b->N || rows_alloc(s, a->N, a->nnz + b->nnz)) return -1;
    int64_t *at = malloc(sizeof(int64_t) * (size_t)(W + 1));
    if (at == NULL) {
        rows_free(s);
        return -1;
    }
    for (int64_t i = 0; i < W; i++) at[i] = -1;
    for (int64_t j = 0; j < a->N; j++) {
        int64_t q0 = s->nnz;
        const res_rows *src[2] = {a, b};
        for (int h = 0; h < 2; h++)
            for (int64_t q = src[h]->ptr[j]; q < src[h]->ptr[j + 1]; q++) {
                int32_t i = src[h]->idx[q];
                if (at[i] < 0) {
                    at[i] = s->nnz;
                    s->idx[s->nnz] = i;
                    s->sw[s->nnz] = src[h]->sw[q];
                    s->werr[s->nnz++] = src[h]->werr[q];
                } else {
                    double v = s->sw[at[i]] + src[h]->sw[q];
                    s->werr[at[i]] = err_up(s->werr[at[i]] + src[h]->werr[q] + fabs(v) * DBL_EPSILON);
                    s->sw[at[i]] = v;
                }
            }
        for (int64_t q = q0; q < s->nnz; q++) at[s->idx[q]] = -1;
        s->ptr[j + 1] = s->nnz;
        /* a sum with a zero is exact; any other may round */
        double v = a->b[j] + b->b[j];
        s->b[j] = v;
        s->berr[j] = a->b[j] == 0 || b->b[j] == 0 ? a->berr[j] + b->berr[j]
                                                   : err_up(a->berr[j] + b->berr[j] + fabs(v) * DBL_EPSILON);
    }
    free(at);
    return 0;
}

/* Append a layer to ch: rows r over K inputs (taken over) or, with r NULL,
 * the layer (D, S) itself (taken over, then cleared). */
static nnc_status push_layer_to(nnc_smp_chain *ch, int64_t K, res_rows *r, nnc_gpu_dense *D, nnc_smp_lin *S, int relu)
{
    int64_t N = r ? r->N : D->N;
    if (K < 1 || N < 1 || K > INT32_MAX / 2 || N > INT32_MAX / 2) return NNC_STATUS_UNSUPPORTED;
    nnc_gpu_dense *nl = realloc(ch->layers, sizeof *nl * (size_t)(ch->n_layers + 1));
    if (nl == NULL) return NNC_STATUS_NOMEM;
    ch->layers = nl;
    nnc_smp_lin *ll = realloc(ch->lin, sizeof *ll * (size_t)(ch->n_layers + 1));
    if (ll == NULL) return NNC_STATUS_NOMEM;
    ch->lin = ll;
    nnc_gpu_dense *L = &nl[ch->n_layers];
    nnc_smp_lin *s = &ll[ch->n_layers];
    memset(L, 0, sizeof *L);
    memset(s, 0, sizeof *s);
    if (r) {
        L->K = (int)K;
        L->N = (int)N;
        L->b = r->b;
        s->ptr = r->ptr;
        s->idx = r->idx;
        s->sw = r->sw;
        s->werr = r->werr;
        s->berr = r->berr;
        memset(r, 0, sizeof *r);
    } else {
        *L = *D;
        *s = *S;
        memset(D, 0, sizeof *D);
        memset(S, 0, sizeof *S);
    }
    L->relu = relu;
    ch->n_layers++;
    ch->n_lin = ch->n_layers;
    return NNC_STATUS_OK;
}

static int seg_of(const res_walk *w, int v)
{
    for (int i = 0; i < w->nseg; i++)
        if (w->seg[i].val == v) return i;
    return -1;
}

static int pend_of(const res_walk *w, int v)
{
    for (int i = 0; i < w->npend; i++)
        if (w->pend[i].val == v) return i;
    return -1;
}

static void pend_drop(res_walk *w, int i)
{
    nnc_smp_chain_free(w->pend[i].ch);
    w->pend[i] = w->pend[--w->npend];
}

/* Pending value i composed into one layer (in place). */
static nnc_status pend_compose(res_pend *p)
{
    nnc_status st = nnc_smp_lin_sync(p->ch);
    if (!st) st = nnc_smp_lin_compose(p->ch);
    if (!st && p->ch->n_layers != 1) st = NNC_STATUS_UNSUPPORTED;
    return st;
}

/* Operand v of a residual Add/Sub as rows over the basis (a pending value
 * is consumed). */
static nnc_status operand_rows(res_walk *w, int v, double sign, res_rows *r, const char **why)
{
    int s = seg_of(w, v), p = pend_of(w, v);
    if (s >= 0) return rows_alloc(r, 0, 0) || rows_append_identity(r, w->seg[s].off, w->seg[s].n, sign)
                           ? NNC_STATUS_NOMEM : NNC_STATUS_OK;
    if (p < 0) {
        *why = "an operand is not computed from the input";
        return NNC_STATUS_UNSUPPORTED;
    }
    if (w->uses[v] != 1) {
        *why = "a computed value is used twice";
        return NNC_STATUS_UNSUPPORTED;
    }
    nnc_status st = pend_compose(&w->pend[p]);
    if (!st && rows_of_layer(&w->pend[p].ch->layers[0], &w->pend[p].ch->lin[0], w->pend[p].off, sign, r))
        st = NNC_STATUS_NOMEM;
    pend_drop(w, p);
    return st;
}

static nnc_status grow_src(nnc_smp_chain *out, int64_t n)
{
    int64_t *a = realloc(out->relu_src, sizeof(int64_t) * (size_t)(n + 1));
    if (a) out->relu_src = a;
    int64_t *b = realloc(out->carry_from, sizeof(int64_t) * (size_t)(n + 1));
    if (b) out->carry_from = b;
    return a && b ? NNC_STATUS_OK : NNC_STATUS_NOMEM;
}

/* The ReLU node n at order position t, on pending value p: the chain's next
 * layer. */
static nnc_status relu_stage(res_walk *w, const nnc_node *n, int t, int p, const char **why)
{
    res_pend *pd = &w->pend[p];
    int64_t nu = w->m->vals[pd->val].numel;
    nnc_status st = pend_compose(pd);
    if (st) return st;
    /* segments read after t, each once (aliases share off) */
    res_seg *keep = malloc(sizeof(res_seg) * (size_t)(w->nseg + 1));
    int *live = calloc((size_t)w->nseg + 1, sizeof(int));
    if (!keep || !live) {
        free(keep);
        free(live);
        return NNC_STATUS_NOMEM;
    }
    int64_t N = nu;
    for (int i = 0; i < w->nseg; i++)
        if (w->last_use[w->seg[i].val] > t)
            for (int k = 0; k < w->nseg; k++) live[k] |= w->seg[k].off == w->seg[i].off;
    /* another pending value (a branch computed before this ReLU in the
     * order, read after it) stays pending: the segment it reads is carried
     * and it reads the copy */
    for (int i = 0; i < w->npend && !st; i++) {
        if (i == p) continue;
        int k = 0;
        while (k < w->nseg && !(w->seg[k].off == w->pend[i].off && w->seg[k].n == w->pend[i].K)) k++;
        if (k == w->nseg) {
            *why = "a computed value crosses a ReLU layer";
            st = NNC_STATUS_UNSUPPORTED;
            break;
        }
        for (int q = 0; q < w->nseg; q++) live[q] |= w->seg[q].off == w->seg[k].off;
    }
    for (int i = 0; i < w->nseg && !st; i++) {
        if (!live[i]) continue;
        if (!w->seg[i].nonneg || w->base < 0) {
            *why = "a residual connection from a value that is not a ReLU output";
            st = NNC_STATUS_UNSUPPORTED;
        }
        /* 2: the first live entry of its place, the one carried */
        int first = 1;
        for (int k = 0; k < i; k++) first &= !(live[k] && w->seg[k].off == w->seg[i].off);
        if (first) {
            live[i] = 2;
            N += w->seg[i].n;
        }
    }
    if (!st) st = grow_src(w->out, w->nrelu + N);
    if (st) {
        free(keep);
        free(live);
        return st;
    }
    nnc_gpu_dense *D = &pd->ch->layers[0];
    nnc_smp_lin *S = &pd->ch->lin[0];
    int64_t c = w->nrelu, nkeep = 0, pos = nu;
    for (int64_t j = 0; j < nu; j++) {
        w->out->relu_src[c + j] = w->mrelu + j;
        w->out->carry_from[c + j] = -1;
    }
    if (N == nu && pd->off == 0 && pd->K == w->W) {
        st = push_layer_to(w->out, w->W, NULL, D, S, 1);
    } else {
        res_rows r;
        if (rows_of_layer(D, S, pd->off, 1.0, &r)) st = NNC_STATUS_NOMEM;
        for (int i = 0; i < w->nseg && !st; i++) {
            if (live[i] != 2) continue;
            if (rows_append_identity(&r, w->seg[i].off, w->seg[i].n, 1.0)) {
                st = NNC_STATUS_NOMEM;
                break;
            }
            for (int64_t j = 0; j < w->seg[i].n; j++) {
                int64_t from = w->base + w->seg[i].off + j;
                w->out->carry_from[c + pos + j] = from;
                w->out->relu_src[c + pos + j] = w->out->relu_src[from];
            }
            /* the segment (every alias of it, every pending value on it) moves to pos */
            for (int q = 0; q < w->npend; q++)
                if (q != p && w->pend[q].off == w->seg[i].off) w->pend[q].off = -1 - pos;
            for (int k = 0; k < w->nseg; k++)
                if (live[k] && w->seg[k].off == w->seg[i].off && k != i) keep[nkeep++] = (res_seg){w->seg[k].val, pos, w->seg[k].n, 1};
            keep[nkeep++] = (res_seg){w->seg[i].val, pos, w->seg[i].n, 1};
            pos += w->seg[i].n;
        }
        if (!st) st = push_layer_to(w->out, w->W, &r, NULL, NULL, 1);
        rows_free(&r);
    }
    free(live);
    if (st) {
        free(keep);
        return st;
    }
    /* the new basis: the ReLU's output, then the carried segments */
    w->seg[0] = (res_seg){n->out[0], 0, nu, 1};
    memcpy(w->seg + 1, keep, sizeof(res_seg) * (size_t)nkeep);
    w->nseg = 1 + (int)nkeep;
    free(keep);
    for (int q = 0; q < w->npend; q++)
        if (q != p) w->pend[q].off = -1 - w->pend[q].off;
    pend_drop(w, p);
    w->base = w->nrelu;
    w->nrelu += N;
    w->mrelu += nu;
    w->W = N;
    return NNC_STATUS_OK;
}

static int is_view(const nnc_model *m, const nnc_node *n)
{
    if (n->op == NNC_OP_IDENTITY || n->op == NNC_OP_DROPOUT || n->op == NNC_OP_FLATTEN || n->op == NNC_OP_RESHAPE ||
        n->op == NNC_OP_SQUEEZE || n->op == NNC_OP_UNSQUEEZE)
        return m->vals[n->out[0]].numel == m->vals[n->in[0]].numel;
    if (n->op != NNC_OP_PAD || m->vals[n->out[0]].numel != m->vals[n->in[0]].numel) return 0;
    for (int q = 0; q < 16; q++)
        if (n->p[q]) return 0;
    return 1;
}

static int is_const(const nnc_model *m, int v) { return v < 0 || m->vals[v].kind == NNC_VAL_CONST; }

/* One node of the walk. */
static nnc_status res_step(res_walk *w, const nnc_node *n, int t, const char **why)
{
    const nnc_model *m = w->m;
    if (n->n_in < 1 || n->n_out != 1) {
        *why = "not a single-output node";
        return NNC_STATUS_UNSUPPORTED;
    }
    if ((n->op == NNC_OP_ADD || n->op == NNC_OP_SUB) && n->n_in == 2 && !is_const(m, n->in[0]) && !is_const(m, n->in[1])) {
        int64_t N = m->vals[n->out[0]].numel;
        if (m->vals[n->in[0]].numel != N || m->vals[n->in[1]].numel != N) {
            *why = "a residual connection with broadcasting";
            return NNC_STATUS_UNSUPPORTED;
        }
        res_rows a = {0}, b = {0}, s = {0};
        nnc_status st = operand_rows(w, n->in[0], 1.0, &a, why);
        if (!st) st = operand_rows(w, n->in[1], n->op == NNC_OP_SUB ? -1.0 : 1.0, &b, why);
        if (!st && rows_sum(&a, &b, w->W, &s)) st = NNC_STATUS_NOMEM;
        rows_free(&a);
        rows_free(&b);
        res_pend p = {n->out[0], calloc(1, sizeof(nnc_smp_chain)), 0, w->W, 0};
        if (!st && p.ch == NULL) st = NNC_STATUS_NOMEM;
        if (!st) st = push_layer_to(p.ch, w->W, &s, NULL, NULL, 0);
        rows_free(&s);
        if (st) {
            nnc_smp_chain_free(p.ch);
            return st;
        }
        w->pend[w->npend++] = p;
        return NNC_STATUS_OK;
    }
    int u = n->in[0];
    for (int i = 0; i < n->n_in && is_const(m, u); i++) u = n->in[i];
    int s = seg_of(w, u), p = pend_of(w, u);
    if (n->op == NNC_OP_RELU) {
        if (p < 0 || w->uses[u] != 1) {
            *why = p < 0 ? "a ReLU of a value that is not computed by linear layers" : "a computed value is used twice";
            return NNC_STATUS_UNSUPPORTED;
        }
        return relu_stage(w, n, t, p, why);
    }
    if (s >= 0 && is_view(m, n)) {
        w->seg[w->nseg++] = (res_seg){n->out[0], w->seg[s].off, w->seg[s].n, w->seg[s].nonneg};
        return NNC_STATUS_OK;
    }
    if (s >= 0) {
        res_pend q = {u, calloc(1, sizeof(nnc_smp_chain)), w->seg[s].off, w->seg[s].n, 0};
        if (q.ch == NULL) return NNC_STATUS_NOMEM;
        q.ch->float_weights = 1;
        w->pend[w->npend++] = q;
        p = w->npend - 1;
    } else if (p < 0) {
        *why = "its input is not computed from the model's input";
        return NNC_STATUS_UNSUPPORTED;
    } else if (w->uses[u] != 1) {
        *why = "a computed value is used twice";
        return NNC_STATUS_UNSUPPORTED;
    }
    int bad = 0;
    nnc_status st = nnc_smp_chain_step(w->pend[p].ch, m, n, NNC_SMP_CHAIN_LINEAR, &w->pend[p].val, &w->pend[p].bias_ok, &bad);
    if (!st && bad) {
        *why = "not a linear node of a chain";
        st = NNC_STATUS_UNSUPPORTED;
    }
    return st;
}

nnc_status nnc_smp_chain_extract_res(nnc_smp_chain **out, const nnc_model *m, int v0, int t0, char *err, size_t errlen)
{
    *out = NULL;
    int nv = m->n_vals, cap = m->n_order - t0 + 2;
    res_walk w = {m, calloc(1, sizeof(nnc_smp_chain)), NULL, 0, NULL, 0, m->vals[v0].numel, -1, 0, 0, NULL, NULL};
    w.seg = malloc(sizeof(res_seg) * (size_t)cap);
    w.pend = malloc(sizeof(res_pend) * (size_t)cap);
    w.last_use = malloc(sizeof(int) * (size_t)(nv + 1));
    w.uses = calloc((size_t)nv + 1, sizeof(int));
    nnc_status st = NNC_STATUS_OK;
    const char *why = NULL;
    const nnc_node *at = NULL;
    if (!w.out || !w.seg || !w.pend || !w.last_use || !w.uses) st = NNC_STATUS_NOMEM;
    else if (m->n_outputs != 1) {
        why = "needs one output";
        st = NNC_STATUS_UNSUPPORTED;
    }
    if (!st) {
        for (int v = 0; v < nv; v++) w.last_use[v] = -1;
        for (int t = t0; t < m->n_order; t++) {
            const nnc_node *n = &m->nodes[m->order[t]];
            for (int i = 0; i < n->n_in; i++)
                if (n->in[i] >= 0 && !is_const(m, n->in[i])) {
                    w.last_use[n->in[i]] = t;
                    w.uses[n->in[i]]++;
                }
        }
        w.last_use[m->outputs[0]] = m->n_order;
        w.uses[m->outputs[0]]++;
        w.seg[w.nseg++] = (res_seg){v0, 0, m->vals[v0].numel, 0};
    }
    for (int t = t0; t < m->n_order && !st; t++) {
        at = &m->nodes[m->order[t]];
        st = res_step(&w, at, t, &why);
    }
    if (!st) {
        at = NULL;
        int o = m->outputs[0], p = pend_of(&w, o), s = seg_of(&w, o);
        if (p >= 0 && w.npend == 1) {
            res_pend *pd = &w.pend[p];
            if (!(st = pend_compose(pd))) {
                if (pd->off == 0 && pd->K == w.W) st = push_layer_to(w.out, w.W, NULL, &pd->ch->layers[0], &pd->ch->lin[0], 0);
                else {
                    res_rows r;
                    st = rows_of_layer(&pd->ch->layers[0], &pd->ch->lin[0], pd->off, 1.0, &r) ? NNC_STATUS_NOMEM
                                                                                             : push_layer_to(w.out, w.W, &r, NULL, NULL, 0);
                    rows_free(&r);
                }
            }
        } else if (!(s >= 0 && w.npend == 0 && w.seg[s].n == w.W && w.out->n_layers > 0)) {
            why = "the output is not the end of the chain";
            st = NNC_STATUS_UNSUPPORTED;
        }
    }
    for (int i = 0; i < w.npend; i++) nnc_smp_chain_free(w.pend[i].ch);
    free(w.seg); free(w.pend); free(w.last_use); free(w.uses);
    if (!st && w.out->n_layers < 2) {
        why = "no ReLU layer";
        st = NNC_STATUS_UNSUPPORTED;
    }
    if (st) {
        nnc_smp_chain_free(w.out);
        if (st == NNC_STATUS_NOMEM) return nnc_err(err, errlen, st, "out of memory");
        if (at) return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "not a residual ReLU chain at node '%s' (%s): %s",
                               at->name ? at->name : "?", at->op_type ? at->op_type : "?", why ? why : "unsupported");
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "not a residual ReLU chain: %s", why ? why : "unsupported");
    }
    nnc_smp_chain *ch = w.out;
    ch->float_weights = 0;
    ch->n_model_relu = w.mrelu;
    ch->n_in = ch->layers[0].K;
    ch->n_out = ch->layers[ch->n_layers - 1].N;
    *out = ch;
    return NNC_STATUS_OK;
}
