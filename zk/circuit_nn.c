/* The model compiler of zk/circuit.h: one gadget sequence per layer of a
 * quantised model (zk/quant.h), with the privacy types deciding which
 * tensors are constants and which are witness wires, and the commitments
 * that bind the proof to the model and the input. */
#include "zk/circuit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(st, ...) return nnc_err(err, errlen, st, __VA_ARGS__)

/* Header words committed before the parameters: format tag, bits, layer
 * count, then per layer its whole public geometry (see layer_header), so two
 * models that compute different functions never share a commitment. */
#define ZK_HDR_PER_LAYER 34
#define ZK_HDR_BITS 48
/* Committed width of a (possibly private) bias: public, never derived from
 * the private values, so the circuit's shape does not depend on them. */
#define ZK_BIAS_BITS 48
#define ZK_FORMAT_TAG 0x4e4e4331 /* "NNC1" */

/* Signed bits that hold every value of v[n] (at least 2). */
static int bits_for(const int64_t *v, int64_t n)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t a = v[i] < 0 ? -(v[i] + 1) : v[i];
        if (a > m) m = a;
    }
    int b = 1;
    while (b < 62 && (m >> (b - 1)) != 0) b++;
    return b < 2 ? 2 : b;
}

static int64_t *model_header(const nnc_qmodel *q, int64_t *n)
{
    *n = 3 + (int64_t)ZK_HDR_PER_LAYER * q->n_l;
    int64_t *h = malloc((size_t)*n * sizeof *h);
    if (!h) return NULL;
    h[0] = ZK_FORMAT_TAG;
    h[1] = q->bits;
    h[2] = q->n_l;
    for (int i = 0; i < q->n_l; i++) {
        const nnc_q_layer *l = &q->l[i];
        const int64_t v[ZK_HDR_PER_LAYER] = {
            l->kind, l->shift, l->wfrac, l->wbits, l->in, l->in2, l->out, l->M, l->N, l->K, l->nw, l->b != NULL,
            l->C, l->H, l->W, l->OC, l->OH, l->OW, l->kh, l->kw, l->sh, l->sw, l->ph, l->pw, l->group, l->dh, l->dw,
            l->count_include_pad, l->lsh_a, l->lsh_b, l->V, l->D,
            l->row_ptr ? l->M + 1 : 0, l->row_ptr ? l->row_ptr[l->M] : 0};
        memcpy(h + 3 + ZK_HDR_PER_LAYER * i, v, sizeof v);
    }
    return h;
}

/* ---------------------------------------------------------------- bounds
 *
 * bnd[t] >= |v| for every value v of tensor t in every witness the circuit
 * accepts, derived from public data only (the range checks each layer
 * makes), saturating at ZK_SAT.  They size the knit packing's base and the
 * committed width of dense biases. */
#define ZK_SAT ((uint64_t)1 << 62)

static uint64_t sat_add(uint64_t a, uint64_t b) { return a >= ZK_SAT || b >= ZK_SAT - a ? ZK_SAT : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return a && b > ZK_SAT / a ? ZK_SAT : a * b; }
static uint64_t pow2_sat(int e) { return e >= 62 ? ZK_SAT : (uint64_t)1 << (e < 0 ? 0 : e); }

static uint64_t max_abs(const int64_t *v, int64_t n)
{
    uint64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t a = v[i] < 0 ? (uint64_t)0 - (uint64_t)v[i] : (uint64_t)v[i];
        if (a > m) m = a;
    }
    return m;
}

static int input_bits(const nnc_q_tensor *t);

/* Returns: bnd[n_t] (free()), or NULL when out of memory. */
static uint64_t *zk_bounds(const nnc_qmodel *q)
{
    uint64_t *b = calloc((size_t)(q->n_t ? q->n_t : 1), sizeof *b);
    if (!b) return NULL;
    for (int i = 0; i < q->n_inputs; i++) /* committed in input_bits signed bits */
        b[q->inputs[i]] = pow2_sat(input_bits(&q->t[q->inputs[i]]) - 1);
    for (int li = 0; li < q->n_l; li++) {
        const nnc_q_layer *l = &q->l[li];
        uint64_t *y = &b[l->out], x = b[l->in], ry = pow2_sat(q->t[l->out].rbits - 1);
        switch (l->kind) {
        case NNC_Q_DENSE: case NNC_Q_CONV: case NNC_Q_SPMM: *y = ry; break;            /* requantised */
        case NNC_Q_RELU: case NNC_Q_MAXPOOL: case NNC_Q_RESHAPE: *y = x; break;        /* x, 0 or one of x */
        case NNC_Q_AVGPOOL: *y = x < ry ? x : ry; break;                               /* rounded mean; quotient checked */
        case NNC_Q_GATHER: *y = max_abs(l->w, l->V * l->D); break;                     /* a table row */
        case NNC_Q_ADD:
            *y = sat_add(sat_mul(x, pow2_sat(l->lsh_a)),
                         sat_mul(l->in2 >= 0 ? b[l->in2] : max_abs(l->w, q->t[l->out].numel), pow2_sat(l->lsh_b)));
            break;
        }
    }
    return b;
}

/* A DENSE/CONV layer's accumulator (before requantisation) for every
 * accepted witness: *A >= |sum_k w x| (fan-in times the weight and input
 * bounds), *Z >= |acc| (the requantisation's range: quotient in rbits
 * signed bits, remainder in s bits). */
static void acc_bounds(const nnc_qmodel *q, const nnc_q_layer *l, const uint64_t *bnd, uint64_t *A, uint64_t *Z)
{
    int64_t fan = l->kind == NNC_Q_CONV ? (l->C / l->group) * l->kh * l->kw : l->K;
    int wb = l->wbits < 2 ? 2 : l->wbits;
    *A = sat_mul(sat_mul((uint64_t)fan, pow2_sat(wb - 1)), bnd[l->in]);
    *Z = sat_add(pow2_sat(q->t[l->out].rbits - 1 + l->shift), l->shift ? pow2_sat(l->shift - 1) : 0);
}

/* Committed width of a DENSE/CONV bias: public, never derived from the
 * private values.  acc = b + sum w x with |acc| <= Z and |sum w x| <= A in
 * every proof, so a bias with |b| > A + Z admits no proof at all: the
 * width holding +-(A + Z) loses nothing (ZK_BIAS_BITS at most). */
static int dense_bias_bits(const nnc_qmodel *q, const nnc_q_layer *l, const uint64_t *bnd)
{
    uint64_t A, Z;
    acc_bounds(q, l, bnd, &A, &Z);
    int b = nnc_prv_knit_base_bits(sat_add(A, Z)) + 1;
    return b > ZK_BIAS_BITS ? ZK_BIAS_BITS : b < 2 ? 2 : b;
}

/* Parameter arrays of layer li (weights, then bias; for a sparse product
 * also the adjacency's row pointers and columns), with their sizes and
 * committed widths.  The widths of weights and biases that may be private
 * are public constants of the layer; the others are public values anyway. */
#define ZK_MAX_PARAMS 4
static int layer_params(const nnc_qmodel *q, int li, const uint64_t *bnd, const int64_t **p, int64_t *n, int *bits)
{
    const nnc_q_layer *l = &q->l[li];
    int k = 0, dense = l->kind == NNC_Q_DENSE || l->kind == NNC_Q_CONV;
    if (l->w && l->nw) {
        p[k] = l->w;
        n[k] = l->nw;
        bits[k] = dense ? (l->wbits < 2 ? 2 : l->wbits) : bits_for(l->w, l->nw);
        k++;
    }
    if (l->b) {
        p[k] = l->b;
        n[k] = l->kind == NNC_Q_CONV ? l->OC : l->N;
        bits[k] = dense ? dense_bias_bits(q, l, bnd) : bits_for(p[k], n[k]);
        k++;
    }
    if (l->kind == NNC_Q_SPMM && l->row_ptr && l->col) {
        p[k] = l->row_ptr;
        n[k] = l->M + 1;
        bits[k] = bits_for(p[k], n[k]);
        k++;
        p[k] = l->col;
        n[k] = l->row_ptr[l->M];
        bits[k] = bits_for(p[k], n[k] ? n[k] : 1);
        k++;
    }
    return k;
}

nnc_status nnc_prv_zk_model_commitment(nnc_prv_fr *out, const nnc_qmodel *q, char *err, size_t errlen)
{
    int64_t nh;
    int64_t *h = model_header(q, &nh);
    nnc_prv_zk_segment *seg = calloc((size_t)(1 + ZK_MAX_PARAMS * q->n_l), sizeof *seg);
    uint64_t *bnd = zk_bounds(q);
    if (!h || !seg || !bnd) {
        free(h);
        free(seg);
        free(bnd);
        FAIL(NNC_STATUS_NOMEM, "out of memory");
    }
    int ns = 0;
    seg[ns++] = (nnc_prv_zk_segment){h, NULL, nh, ZK_HDR_BITS, 0, NULL};
    for (int i = 0; i < q->n_l; i++) {
        const int64_t *p[ZK_MAX_PARAMS];
        int64_t n[ZK_MAX_PARAMS];
        int bits[ZK_MAX_PARAMS];
        int k = layer_params(q, i, bnd, p, n, bits);
        for (int j = 0; j < k; j++) seg[ns++] = (nnc_prv_zk_segment){p[j], NULL, n[j], bits[j], 0, NULL};
    }
    nnc_status st = nnc_prv_zk_commit(out, seg, ns, err, errlen);
    free(h);
    free(seg);
    free(bnd);
    return st;
}

static int input_bits(const nnc_q_tensor *t)
{
    if (!t->is_int) return t->rbits;
    int b = 2;
    while (b < 62 && ((int64_t)1 << (b - 1)) < t->int_range) b++;
    return b;
}

nnc_status nnc_prv_zk_input_commitment(nnc_prv_fr *out, const nnc_qmodel *q, const int64_t *const *qin,
                                       char *err, size_t errlen)
{
    nnc_prv_zk_segment seg[64];
    if (q->n_inputs > 64) FAIL(NNC_STATUS_LIMIT, "more than 64 inputs");
    for (int i = 0; i < q->n_inputs; i++) {
        const nnc_q_tensor *t = &q->t[q->inputs[i]];
        seg[i] = (nnc_prv_zk_segment){qin[i], NULL, t->numel, input_bits(t), 0, NULL};
    }
    return nnc_prv_zk_commit(out, seg, q->n_inputs, err, errlen);
}

/* ---------------------------------------------------------------- compile */

typedef struct zk_tensor {
    nnc_prv_lc *v;      /* numel combinations */
    uint32_t *nonneg;   /* "value >= 0" bit wires from a requantisation, or NULL */
    int64_t numel;
} zk_tensor;

typedef struct zk_ctx {
    nnc_prv_cb *cb;
    const nnc_qmodel *q;
    zk_tensor *t;
    uint32_t **pw0;     /* private weights: per layer (NULL: public), per parameter (w then b),
                         * the first of its bit wires (nnc_prv_g_signed_bits) */
    nnc_prv_lc *pw;     /* the current layer's private parameters as combinations
                         * (layer_pw_begin; NULL when public): 4 bytes per weight
                         * are kept, not a combination */
    uint64_t *bnd;      /* proven bounds per tensor (zk_bounds) */
    int knit;           /* 1: knit-pack private-by-private products */
} zk_ctx;

static void tensor_free(zk_tensor *t)
{
    if (!t->v) return;
    for (int64_t i = 0; i < t->numel; i++) nnc_prv_lc_clear(&t->v[i]);
    free(t->v);
    free(t->nonneg);
    memset(t, 0, sizeof *t);
}

static int tensor_alloc(zk_tensor *t, int64_t numel, int with_sign)
{
    t->numel = numel;
    t->v = calloc((size_t)(numel ? numel : 1), sizeof *t->v);
    t->nonneg = with_sign ? calloc((size_t)(numel ? numel : 1), sizeof *t->nonneg) : NULL;
    return (!t->v || (with_sign && !t->nonneg)) ? -1 : 0;
}

/* Parameters (weights, then bias) of layer li and their count. */
static int64_t n_params(const nnc_q_layer *l) { return l->nw + (l->b ? (l->kind == NNC_Q_CONV ? l->OC : l->N) : 0); }

/* z->pw = layer li's private parameters as combinations, rebuilt from
 * their bit wires (the combinations nnc_prv_g_signed_bits returned); NULL
 * when they are public. */
static void layer_pw_begin(zk_ctx *z, int li)
{
    z->pw = NULL;
    if (!z->pw0 || !z->pw0[li]) return;
    const int64_t *p[ZK_MAX_PARAMS];
    int64_t n[ZK_MAX_PARAMS];
    int bits[ZK_MAX_PARAMS];
    int k = layer_params(z->q, li, z->bnd, p, n, bits);
    if (!(z->pw = calloc((size_t)n_params(&z->q->l[li]), sizeof *z->pw))) {
        nnc_prv_cb_fail(z->cb, NNC_STATUS_NOMEM, "out of memory (private weights)");
        return;
    }
    for (int64_t j = 0, o = 0; j < k; o += n[j++]) /* as private_weights lays them out */
        for (int64_t i = o; i < o + n[j]; i++) nnc_prv_lc_signed_bits(z->cb, &z->pw[i], z->pw0[li][i], bits[j]);
}

static void layer_pw_end(zk_ctx *z, int li)
{
    if (!z->pw) return;
    for (int64_t i = 0; i < n_params(&z->q->l[li]); i++) nnc_prv_lc_clear(&z->pw[i]);
    free(z->pw);
    z->pw = NULL;
}

/* acc += w * x where w is parameter index k of layer li (constant or wire). */
static void mac(zk_ctx *z, nnc_prv_lc *acc, const nnc_prv_lc *x, int li, int64_t k, nnc_prv_lc *tmp)
{
    if (!z->pw) {
        int64_t w = z->q->l[li].w[k];
        if (w) nnc_prv_lc_add_i(z->cb, acc, x, w);
        return;
    }
    nnc_prv_g_mul(z->cb, tmp, x, &z->pw[k]);
    nnc_prv_lc_add_i(z->cb, acc, tmp, 1);
}

static void add_bias(zk_ctx *z, nnc_prv_lc *acc, int li, int64_t n)
{
    const nnc_q_layer *l = &z->q->l[li];
    if (!l->b) return;
    if (z->pw) nnc_prv_lc_add_i(z->cb, acc, &z->pw[l->nw + n], 1);
    else nnc_prv_lc_term_i(z->cb, acc, 0, l->b[n]);
}

static void finish_acc(zk_ctx *z, zk_tensor *y, int64_t i, nnc_prv_lc *acc, const nnc_q_layer *l)
{
    nnc_prv_lc_compact(z->cb, acc);
    nnc_prv_g_requant(z->cb, &y->v[i], &y->nonneg[i], acc, l->shift, z->q->t[l->out].rbits);
}

/* ---------------------------------------------------------------- knit packing */

/* Base bits n of the knit packing of DENSE/CONV layer li: every digit
 * d_i = b_i + sum_j w_ij x_j - acc_i has |d_i| <= A + |b| + Z, with acc_i
 * the requantisation's claimed accumulator (|acc_i| <= Z by its range
 * checks), |b_i| below its committed width and A from the range checks on
 * the weights (commitment) and inputs (bnd).  Returns: products per
 * constraint (< 2: do not pack). */
static int knit_plan(const zk_ctx *z, int li, int *n)
{
    const nnc_q_layer *l = &z->q->l[li];
    uint64_t A, Z;
    acc_bounds(z->q, l, z->bnd, &A, &Z);
    uint64_t d = sat_add(A, Z);
    if (l->b) d = sat_add(d, pow2_sat(dense_bias_bits(z->q, l, z->bnd) - 1));
    *n = nnc_prv_knit_base_bits(d);
    return d >= ZK_SAT ? 0 : nnc_prv_knit_slots(*n);
}

/* Witness values of a tensor or parameter array (one evaluation each). */
static int64_t *lc_values(zk_ctx *z, const nnc_prv_lc *v, int64_t n)
{
    int64_t *o = malloc((size_t)(n ? n : 1) * sizeof *o);
    if (!o) {
        nnc_prv_cb_fail(z->cb, NNC_STATUS_NOMEM, "out of memory");
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        nnc_prv_fr f;
        nnc_prv_lc_eval(z->cb, &f, &v[i]);
        if (nnc_prv_fr_to_i64(&o[i], &f)) {
            nnc_prv_cb_fail_value(z->cb, "knit packing: a value is not a small integer");
            o[i] = 0;
        }
    }
    return o;
}

/* One block of k outputs y->v[y0 + i ystride] (weight row i at wi[j] +
 * i wstride, bias pw[li][nw + o0 + i]) sharing the inputs x[xi[0..K)]:
 * requantisations whose accumulators the packed sum constrains. */
typedef struct knit_layer {
    int64_t *wv, *xv;   /* witness values of the weights (then biases) and of the input tensor */
    nnc_prv_lc *acc;    /* k accumulator combinations */
    int n;              /* base bits */
} knit_layer;

static void knit_block(zk_ctx *z, int li, const knit_layer *kl, zk_tensor *y, int64_t y0, int64_t ystride, int64_t o0, int k,
                       const int64_t *wi, int64_t wstride, const nnc_prv_lc *x, const int64_t *xi, int64_t K)
{
    const nnc_q_layer *l = &z->q->l[li];
    /* x may point past the start of the input tensor (a dense layer's sample
     * m): its values are read at the same place */
    const int64_t *xv = kl->xv + (x - z->t[l->in].v);
    for (int i = 0; i < k; i++) {
        int64_t a = l->b ? kl->wv[l->nw + o0 + i] : 0;
        for (int64_t j = 0; j < K; j++) a += kl->wv[wi[j] + i * wstride] * xv[xi[j]];
        int64_t yi = y0 + i * ystride;
        nnc_prv_g_requant_open(z->cb, &y->v[yi], &y->nonneg[yi], &kl->acc[i], a, l->shift, z->q->t[l->out].rbits);
    }
    if (nnc_prv_cb_witness_only(z->cb))
        nnc_prv_g_knit_dot_values(z->cb, kl->acc, l->b ? &z->pw[l->nw + o0] : NULL, k, kl->n, kl->wv, wi, wstride, x, xi, K);
    else
        nnc_prv_g_knit_dot(z->cb, kl->acc, l->b ? &z->pw[l->nw + o0] : NULL, k, kl->n, z->pw, wi, wstride, x, xi, K);
}

/* DENSE/CONV with private weights, k outputs per packed constraint. */
static nnc_status compile_knit(zk_ctx *z, int li, int k, int n, char *err, size_t errlen)
{
    const nnc_q_layer *l = &z->q->l[li];
    zk_tensor *x = &z->t[l->in], *y = &z->t[l->out];
    int64_t taps = l->kind == NNC_Q_CONV ? (l->C / l->group) * l->kh * l->kw : l->K;
    knit_layer kl = {lc_values(z, z->pw, n_params(l)), lc_values(z, x->v, x->numel), calloc((size_t)k, sizeof(nnc_prv_lc)), n};
    int64_t *xi = malloc((size_t)(2 * taps) * sizeof *xi), *wi = xi + taps;
    if (kl.wv && kl.xv && kl.acc && xi) {
        if (l->kind == NNC_Q_DENSE) {
            for (int64_t j = 0; j < l->K; j++) xi[j] = j;
            for (int64_t m = 0; m < l->M; m++)
                for (int64_t o0 = 0; o0 < l->N; o0 += k) {
                    int kk = l->N - o0 < k ? (int)(l->N - o0) : k;
                    for (int64_t j = 0; j < l->K; j++) wi[j] = o0 * l->K + j;
                    knit_block(z, li, &kl, y, m * l->N + o0, 1, o0, kk, wi, l->K, x->v + m * l->K, xi, l->K);
                }
        } else { /* blocks of output channels inside one group share the window */
            int64_t ocg = l->OC / l->group, plane = l->OH * l->OW;
            for (int64_t oy = 0; oy < l->OH; oy++)
                for (int64_t ox = 0; ox < l->OW; ox++)
                    for (int64_t g = 0; g < l->group; g++)
                        for (int64_t o0 = g * ocg; o0 < (g + 1) * ocg; o0 += k) {
                            int kk = (g + 1) * ocg - o0 < k ? (int)((g + 1) * ocg - o0) : k;
                            int64_t cnt = nnc_qmodel_window(l, o0, oy, ox, xi, wi);
                            knit_block(z, li, &kl, y, (o0 * l->OH + oy) * l->OW + ox, plane, o0, kk, wi, taps, x->v, xi, cnt);
                        }
        }
    } else {
        nnc_prv_cb_fail(z->cb, NNC_STATUS_NOMEM, "out of memory");
    }
    if (kl.acc)
        for (int i = 0; i < k; i++) nnc_prv_lc_clear(&kl.acc[i]);
    free(kl.acc);
    free(kl.wv);
    free(kl.xv);
    free(xi);
    return nnc_prv_cb_status(z->cb, err, errlen);
}

/* DENSE/CONV with public weights in witness-only mode: the sums in
 * integers (the accumulators' combinations are never formed), then the
 * requantisations of layer_ops's order. */
static nnc_status sums_by_value(zk_ctx *z, int li, char *err, size_t errlen)
{
    const nnc_q_layer *l = &z->q->l[li];
    zk_tensor *x = &z->t[l->in], *y = &z->t[l->out];
    int64_t *xv = lc_values(z, x->v, x->numel), *acc = malloc((size_t)(y->numel ? y->numel : 1) * sizeof *acc);
    if (xv && acc && nnc_qmodel_layer_sums(l, xv, acc) == 0) {
        for (int64_t i = 0; i < y->numel; i++)
            nnc_prv_g_requant_value(z->cb, &y->v[i], &y->nonneg[i], acc[i], l->shift, z->q->t[l->out].rbits);
    } else {
        nnc_prv_cb_fail(z->cb, NNC_STATUS_NOMEM, "out of memory");
    }
    free(xv);
    free(acc);
    return nnc_prv_cb_status(z->cb, err, errlen);
}

static nnc_status layer_ops(zk_ctx *z, int li, char *err, size_t errlen)
{
    const nnc_qmodel *q = z->q;
    const nnc_q_layer *l = &q->l[li];
    nnc_prv_cb *cb = z->cb;
    zk_tensor *x = &z->t[l->in], *y = &z->t[l->out];
    const nnc_q_tensor *to = &q->t[l->out];
    int sign = l->kind == NNC_Q_DENSE || l->kind == NNC_Q_CONV || l->kind == NNC_Q_SPMM || l->kind == NNC_Q_RESHAPE;
    if (tensor_alloc(y, to->numel, sign)) FAIL(NNC_STATUS_NOMEM, "out of memory");
    nnc_prv_lc acc = {0}, tmp = {0};
    int n = 0, k = (l->kind == NNC_Q_DENSE || l->kind == NNC_Q_CONV) && z->knit && z->pw ? knit_plan(z, li, &n) : 0;
    if (k >= 2) return compile_knit(z, li, k, n, err, errlen);
    if ((l->kind == NNC_Q_DENSE || l->kind == NNC_Q_CONV) && !z->pw && nnc_prv_cb_witness_only(cb))
        return sums_by_value(z, li, err, errlen);
    switch (l->kind) {
    case NNC_Q_DENSE:
        for (int64_t m = 0; m < l->M; m++)
            for (int64_t n = 0; n < l->N; n++) {
                nnc_prv_lc_reset(&acc);
                add_bias(z, &acc, li, n);
                for (int64_t k = 0; k < l->K; k++) mac(z, &acc, &x->v[m * l->K + k], li, n * l->K + k, &tmp);
                finish_acc(z, y, m * l->N + n, &acc, l);
            }
        break;
    case NNC_Q_SPMM: /* public adjacency: every product folds */
        for (int64_t r = 0; r < l->M; r++)
            for (int64_t f = 0; f < l->N; f++) {
                nnc_prv_lc_reset(&acc);
                for (int64_t e = l->row_ptr[r]; e < l->row_ptr[r + 1]; e++)
                    nnc_prv_lc_add_i(cb, &acc, &x->v[l->col[e] * l->N + f], l->w[e]);
                finish_acc(z, y, r * l->N + f, &acc, l);
            }
        break;
    case NNC_Q_CONV: {
        int64_t taps = (l->C / l->group) * l->kh * l->kw;
        int64_t *xi = malloc((size_t)(2 * taps) * sizeof *xi);
        if (!xi) FAIL(NNC_STATUS_NOMEM, "out of memory");
        for (int64_t o = 0; o < l->OC; o++)
            for (int64_t oy = 0; oy < l->OH; oy++)
                for (int64_t ox = 0; ox < l->OW; ox++) {
                    int64_t cnt = nnc_qmodel_window(l, o, oy, ox, xi, xi + taps);
                    nnc_prv_lc_reset(&acc);
                    add_bias(z, &acc, li, o);
                    for (int64_t k = 0; k < cnt; k++) mac(z, &acc, &x->v[xi[k]], li, xi[taps + k], &tmp);
                    finish_acc(z, y, (o * l->OH + oy) * l->OW + ox, &acc, l);
                }
        free(xi);
        break;
    }
    case NNC_Q_RELU:
        for (int64_t i = 0; i < to->numel; i++)
            nnc_prv_g_relu(cb, &y->v[i], &x->v[i], x->nonneg ? x->nonneg[i] : 0, q->t[l->in].rbits);
        break;
    case NNC_Q_MAXPOOL: case NNC_Q_AVGPOOL: {
        nnc_prv_lc *win = calloc((size_t)(l->kh * l->kw), sizeof *win);
        int64_t *xi = malloc((size_t)(l->kh * l->kw) * sizeof *xi);
        if (!win || !xi) {
            free(win);
            free(xi);
            FAIL(NNC_STATUS_NOMEM, "out of memory");
        }
        for (int64_t c = 0; c < l->C; c++)
            for (int64_t oy = 0; oy < l->OH; oy++)
                for (int64_t ox = 0; ox < l->OW; ox++) {
                    int64_t cnt = nnc_qmodel_window(l, c, oy, ox, xi, NULL);
                    nnc_prv_lc *out = &y->v[(c * l->OH + oy) * l->OW + ox];
                    nnc_prv_lc_reset(&acc);
                    for (int64_t k = 0; k < cnt; k++) {
                        if (l->kind == NNC_Q_MAXPOOL) nnc_prv_lc_copy(cb, &win[k], &x->v[xi[k]]);
                        else nnc_prv_lc_add_i(cb, &acc, &x->v[xi[k]], 1);
                    }
                    if (l->kind == NNC_Q_MAXPOOL) {
                        nnc_prv_g_max(cb, out, win, (int)cnt, q->t[l->in].rbits);
                    } else {
                        nnc_prv_lc_compact(cb, &acc);
                        nnc_prv_g_divround(cb, out, &acc, l->count_include_pad ? l->kh * l->kw : cnt, to->rbits);
                    }
                }
        for (int64_t i = 0; i < l->kh * l->kw; i++) nnc_prv_lc_clear(&win[i]);
        free(win);
        free(xi);
        break;
    }
    case NNC_Q_ADD:
        for (int64_t i = 0; i < to->numel; i++) {
            nnc_prv_lc_add_i(cb, &y->v[i], &x->v[i], (int64_t)1 << l->lsh_a);
            if (l->in2 >= 0) nnc_prv_lc_add_i(cb, &y->v[i], &z->t[l->in2].v[i], (int64_t)1 << l->lsh_b);
            else nnc_prv_lc_term_i(cb, &y->v[i], 0, l->w[i] * ((int64_t)1 << l->lsh_b));
            nnc_prv_lc_compact(cb, &y->v[i]);
        }
        break;
    case NNC_Q_GATHER:
        for (int64_t i = 0; i < to->numel / l->D; i++) nnc_prv_g_gather(cb, &y->v[i * l->D], &x->v[i], l->w, l->V, l->D);
        break;
    case NNC_Q_RESHAPE:
        for (int64_t i = 0; i < to->numel; i++) {
            nnc_prv_lc_copy(cb, &y->v[i], &x->v[i]);
            y->nonneg[i] = x->nonneg ? x->nonneg[i] : 0;
        }
        break;
    }
    nnc_prv_lc_clear(&acc);
    nnc_prv_lc_clear(&tmp);
    return nnc_prv_cb_status(cb, err, errlen);
}

static nnc_status compile_layer(zk_ctx *z, int li, char *err, size_t errlen)
{
    layer_pw_begin(z, li);
    nnc_status st = nnc_prv_cb_status(z->cb, err, errlen);
    if (!st) st = layer_ops(z, li, err, errlen);
    layer_pw_end(z, li);
    return st;
}

/* Private weights: a signed bit decomposition per parameter, with no wire
 * of its own (z->pw0 keeps its first bit wire); the model commitment is
 * computed in the circuit from the same segments nnc_prv_zk_model_commitment
 * hashes. */
static nnc_status private_weights(zk_ctx *z, nnc_prv_lc *commit, char *err, size_t errlen)
{
    const nnc_qmodel *q = z->q;
    nnc_prv_cb *cb = z->cb;
    int64_t nh;
    int64_t *h = model_header(q, &nh);
    nnc_prv_lc *hl = calloc((size_t)(nh ? nh : 1), sizeof *hl);
    nnc_prv_zk_segment *seg = calloc((size_t)(1 + ZK_MAX_PARAMS * q->n_l), sizeof *seg);
    nnc_prv_lc x = {0};
    z->pw0 = calloc((size_t)q->n_l, sizeof *z->pw0);
    nnc_status st = NNC_STATUS_OK;
    nnc_prv_lc *consts[ZK_MAX_PARAMS * 64];
    int64_t const_n[ZK_MAX_PARAMS * 64];
    int n_const = 0;
    if (!h || !hl || !seg || !z->pw0) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    for (int64_t i = 0; i < nh; i++) nnc_prv_lc_term_i(cb, &hl[i], 0, h[i]);
    int ns = 0;
    seg[ns++] = (nnc_prv_zk_segment){NULL, hl, nh, ZK_HDR_BITS, 0, NULL};
    for (int li = 0; li < q->n_l; li++) {
        const nnc_q_layer *l = &q->l[li];
        const int64_t *p[ZK_MAX_PARAMS];
        int64_t n[ZK_MAX_PARAMS];
        int bits[ZK_MAX_PARAMS];
        int k = layer_params(q, li, z->bnd, p, n, bits);
        if (k == 0 || (l->kind != NNC_Q_DENSE && l->kind != NNC_Q_CONV)) {
            /* Add constants, graph adjacency and embedding tables (Gather's
             * lookup gadget selects constants) stay public: committed as
             * constants of the circuit. */
            for (int j = 0; j < k; j++) {
                nnc_prv_lc *c = n_const < ZK_MAX_PARAMS * 64 ? calloc((size_t)(n[j] ? n[j] : 1), sizeof *c) : NULL;
                if (!c) { st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory (or more than 64 constant layers)"); goto done; }
                consts[n_const] = c;
                const_n[n_const++] = n[j];
                for (int64_t i = 0; i < n[j]; i++) nnc_prv_lc_term_i(cb, &c[i], 0, p[j][i]);
                seg[ns++] = (nnc_prv_zk_segment){NULL, c, n[j], bits[j], 0, NULL};
            }
            continue;
        }
        int64_t tot = n[0] + (k > 1 ? n[1] : 0);
        if (!(z->pw0[li] = malloc((size_t)tot * sizeof **z->pw0))) { st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory"); goto done; }
        int64_t o = 0;
        for (int j = 0; j < k; j++) {
            for (int64_t i = 0; i < n[j]; i++) z->pw0[li][o + i] = nnc_prv_g_signed_bits(cb, &x, p[j][i], bits[j], NNC_PRV_WIRE_PRV_IN);
            seg[ns++] = (nnc_prv_zk_segment){NULL, NULL, n[j], bits[j], 1, &z->pw0[li][o]};
            o += n[j];
        }
    }
    nnc_prv_g_commit(cb, commit, seg, ns);
done:
    nnc_prv_lc_clear(&x);
    for (int j = 0; j < n_const; j++) { /* the constant copies (private ones live in z->pw0) */
        for (int64_t i = 0; i < const_n[j]; i++) nnc_prv_lc_clear(&consts[j][i]);
        free(consts[j]);
    }
    if (hl)
        for (int64_t i = 0; i < nh; i++) nnc_prv_lc_clear(&hl[i]);
    free(hl);
    free(seg);
    free(h);
    return st ? st : nnc_prv_cb_status(cb, err, errlen);
}

/* The model commitment computed by another thread. */
typedef struct commit_bg {
    const nnc_qmodel *q; /* NULL: not started */
    pthread_t tid;
    int started;
    nnc_prv_fr c;
    nnc_status st;
    char err[NNC_ERRBUF_SIZE];
} commit_bg;

static void *commit_thread(void *arg)
{
    commit_bg *b = arg;
    b->st = nnc_prv_zk_model_commitment(&b->c, b->q, b->err, sizeof b->err);
    return NULL;
}

nnc_status nnc_prv_zk_compile(nnc_prv_cb **cbo, const nnc_qmodel *q, nnc_prv_zk_privacy priv,
                              nnc_prv_zk_build mode, const int64_t *const *qin, int64_t *out_vals, char *err,
                              size_t errlen)
{
    *cbo = NULL;
    zk_ctx z = {0};
    z.knit = !(priv & NNC_PRV_ZK_UNPACKED);
    priv = (nnc_prv_zk_privacy)(priv & ~NNC_PRV_ZK_UNPACKED);
    if (priv < NNC_PRV_ZK_PRIVATE_INPUT || priv > NNC_PRV_ZK_PRIVATE_BOTH) FAIL(NNC_STATUS_ARG, "unknown privacy setting");
    z.q = q;
    nnc_status st = nnc_prv_cb_create(&z.cb);
    if (st) FAIL(st, "out of memory");
    if (mode < NNC_PRV_ZK_BUILD_FULL || mode > NNC_PRV_ZK_BUILD_WITNESS) {
        nnc_prv_cb_destroy(z.cb);
        FAIL(NNC_STATUS_ARG, "unknown build mode");
    }
    nnc_prv_cb_set_count_only(z.cb, mode == NNC_PRV_ZK_BUILD_COUNT);
    nnc_prv_cb_set_witness_only(z.cb, mode == NNC_PRV_ZK_BUILD_WITNESS);
    nnc_prv_cb *cb = z.cb;
    commit_bg bg = {0};
    uint64_t commit_cons = 0;
    uint32_t commit_wire = 0;
    nnc_prv_lc commit = {0};
    nnc_prv_fr c;
    int64_t **zero = NULL;
    z.t = calloc((size_t)q->n_t, sizeof *z.t);
    z.bnd = zk_bounds(q);
    if (!z.t || !z.bnd) { st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory"); goto done; }
    if (!qin) { /* compile without an input: an all-zero sample */
        zero = calloc((size_t)q->n_inputs, sizeof *zero);
        if (!zero) { st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory"); goto done; }
        for (int i = 0; i < q->n_inputs; i++)
            if (!(zero[i] = calloc((size_t)q->t[q->inputs[i]].numel, sizeof **zero))) {
                st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
                goto done;
            }
        qin = (const int64_t *const *)zero;
    }

    /* Model commitment: public input 0. */
    nnc_prv_cb_begin(cb, "model commitment");
    if (priv & NNC_PRV_ZK_PRIVATE_WEIGHTS) {
        if ((st = private_weights(&z, &commit, err, errlen))) goto done;
        nnc_prv_g_wire_of(cb, &commit, NNC_PRV_WIRE_PUB_IN);
    } else if (mode == NNC_PRV_ZK_BUILD_WITNESS) {
        /* a hash of every weight, the longest serial part of a witness: a
         * second thread computes it while the layers are built; its wire
         * and its constraint (commitment * 1 = wire) are filled in after */
        bg.q = q;
        bg.started = pthread_create(&bg.tid, NULL, commit_thread, &bg) == 0;
        if (!bg.started) commit_thread(&bg);
        nnc_prv_fr f0, f1;
        nnc_prv_fr_from_i64(&f0, 0);
        nnc_prv_fr_from_i64(&f1, 1);
        commit_cons = nnc_prv_cb_n_constraints(cb);
        commit_wire = nnc_prv_cb_wire(cb, NNC_PRV_WIRE_PUB_IN, &f0);
        nnc_prv_cb_constrain_values(cb, &f0, &f1);
    } else {
        if ((st = nnc_prv_zk_model_commitment(&c, q, err, errlen))) goto done;
        nnc_prv_lc_term(cb, &commit, 0, &c);
        nnc_prv_g_wire_of(cb, &commit, NNC_PRV_WIRE_PUB_IN);
    }

    /* Inputs and their commitment: public input 1. */
    nnc_prv_cb_begin(cb, "input commitment");
    nnc_prv_zk_segment seg[64];
    if (q->n_inputs > 64) { st = nnc_err(err, errlen, NNC_STATUS_LIMIT, "more than 64 inputs"); goto done; }
    for (int i = 0; i < q->n_inputs; i++) {
        const nnc_q_tensor *t = &q->t[q->inputs[i]];
        zk_tensor *x = &z.t[q->inputs[i]];
        if (tensor_alloc(x, t->numel, 0)) { st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory"); goto done; }
        for (int64_t k = 0; k < t->numel; k++) {
            nnc_prv_fr v;
            nnc_prv_fr_from_i64(&v, qin[i][k]);
            if (priv & NNC_PRV_ZK_PRIVATE_INPUT) nnc_prv_g_signed_bits(cb, &x->v[k], qin[i][k], input_bits(t), NNC_PRV_WIRE_PRV_IN);
            else nnc_prv_lc_term(cb, &x->v[k], 0, &v);
        }
        seg[i] = (nnc_prv_zk_segment){NULL, x->v, t->numel, input_bits(t), (priv & NNC_PRV_ZK_PRIVATE_INPUT) != 0, NULL};
    }
    nnc_prv_lc_reset(&commit);
    if (priv & NNC_PRV_ZK_PRIVATE_INPUT) {
        nnc_prv_g_commit(cb, &commit, seg, q->n_inputs);
    } else {
        if ((st = nnc_prv_zk_input_commitment(&c, q, qin, err, errlen))) goto done;
        nnc_prv_lc_term(cb, &commit, 0, &c);
    }
    nnc_prv_g_wire_of(cb, &commit, NNC_PRV_WIRE_PUB_IN);
    if ((st = nnc_prv_cb_status(cb, err, errlen))) goto done;

    for (int li = 0; li < q->n_l; li++) {
        char name[64];
        snprintf(name, sizeof name, "%s (%s)", q->l[li].name[0] ? q->l[li].name : "layer", q->l[li].op);
        nnc_prv_cb_begin(cb, name);
        if ((st = compile_layer(&z, li, err, errlen))) goto done;
        /* Free tensors no later layer reads. */
        for (int t = 0; t < q->n_t; t++) {
            if (!z.t[t].v || t == q->output) continue;
            int used = 0;
            for (int lj = li + 1; lj < q->n_l && !used; lj++) used = q->l[lj].in == t || q->l[lj].in2 == t;
            if (!used) tensor_free(&z.t[t]);
        }
    }
    nnc_prv_cb_begin(cb, "outputs");
    zk_tensor *y = &z.t[q->output];
    for (int64_t i = 0; i < y->numel; i++) {
        uint32_t w = nnc_prv_g_wire_of(cb, &y->v[i], NNC_PRV_WIRE_PUB_OUT);
        if (out_vals && nnc_prv_fr_to_i64(&out_vals[i], nnc_prv_cb_value(cb, w))) out_vals[i] = 0;
    }
    st = nnc_prv_cb_status(cb, err, errlen);
done:
    if (bg.q) { /* the commitment thread: joined on every path */
        if (bg.started) pthread_join(bg.tid, NULL);
        if (!st && bg.st) st = nnc_err(err, errlen, bg.st, "%s", bg.err);
        if (!st && (st = nnc_prv_cb_status(cb, err, errlen)) == NNC_STATUS_OK) {
            *nnc_prv_cb_value(cb, commit_wire) = bg.c;
            *nnc_prv_cb_constraint_a(cb, commit_cons) = bg.c;
        }
    }
    nnc_prv_lc_clear(&commit);
    if (z.t)
        for (int t = 0; t < q->n_t; t++) tensor_free(&z.t[t]);
    free(z.t);
    free(z.bnd);
    if (z.pw0)
        for (int li = 0; li < q->n_l; li++) free(z.pw0[li]);
    free(z.pw0);
    if (zero)
        for (int i = 0; i < q->n_inputs; i++) free(zero[i]);
    free(zero);
    if (st) nnc_prv_cb_destroy(cb);
    else *cbo = cb;
    return st;
}
