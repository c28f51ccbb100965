/* The box screen's error bound for models that are not dense chains
 * (sample.c): a priori forward error analysis of the runtime's evaluation
 * of the prepared model graph, node by node, over a box.
 *
 * For every value of the graph it carries, per element, a sound interval
 * [lo, hi] of the exact value (real arithmetic on the prepared model's
 * stored weights) over the box, H = max(|lo|, |hi|), and bounds ef, er on
 * the distance of the float32 runtime's and of the float64 reference's
 * computed value from that exact value.  The rules, with u the evaluator's
 * unit roundoff, gamma_n = n u / (1 - n u) (Higham 3.1) and tiny the most
 * an underflowing or flushed operation loses (2^-126 in float32 with
 * flush-to-zero, 2^-1022 in float64):
 *   - Conv, Gemm, MatMul (constant weights and bias, alpha = beta = 1):
 *     an output is a sum of K products and a bias, computed in any order,
 *     with or without fused multiply-adds (the runtime's direct convolution
 *     chains fmas and then adds the bias; sgemm blocks), so it is within
 *     sum |w| e + gamma_{K+1} (sum |w| (H + e) + |b|) + (K + 2) tiny of the
 *     exact one (the err_step rule of sample.c); a padded tap multiplies an
 *     exact 0.  The float32 runtime holds each weight and bias rounded to
 *     float (a value folded in double, such as a BatchNormalization's, is
 *     not one), off by u of it: one more u, so gamma_{K+2} there;
 *   - Add, Sub (two computed values of one shape, or a constant scalar,
 *     rounded to float likewise):
 *     e_x + e_y + gamma_2 (H_x + e_x + H_y + e_y) + tiny (gamma_1 in float64);
 *   - Relu and MaxPool are 1-Lipschitz and exact: e passes (the window's
 *     largest);
 *   - AveragePool: a sum of the window's c elements, then a division by
 *     its count: sum e / c + gamma_{c+1} sum (H + e) / c + (c + 1) tiny;
 *   - views (Flatten, Reshape, Identity, Squeeze, Unsqueeze) and Pad in
 *     constant mode by a float value: each element copied or the pad value,
 *     exactly.
 * Constants must be finite and in float's range.  Intervals are summed in round-to-nearest double
 * with an explicit error term and pushed one ulp outward, as
 * nnc_smp_interval_neuron does.  Any other node makes the model
 * unsupported (the sampler then decides every sample by the reference);
 * so does a float32 value that may overflow, per box (e_fast = +inf): an
 * input, a node's value, or any product or partial sum inside a node (its
 * magnitudes' sum reaching 2^126). */
#include "verifier/bounds_impl.h"
#include "verifier/sample_impl.h"
#include "verifier/sample_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TINY64 4.4501477170144028e-308 /* 2^-1021: one double operation's underflow, generously */

/* A value's per-element bounds (numel each); H is max(|lo|, |hi|). */
typedef struct gval {
    double *lo, *hi, *ef, *er;
} gval;

static void gval_free(gval *g)
{
    free(g->lo);
    free(g->hi);
    free(g->ef);
    free(g->er);
    memset(g, 0, sizeof *g);
}

static int gval_alloc(gval *g, int64_t n)
{
    size_t b = sizeof(double) * (size_t)(n > 0 ? n : 1);
    g->lo = malloc(b);
    g->hi = malloc(b);
    g->ef = malloc(b);
    g->er = malloc(b);
    if (g->lo && g->hi && g->ef && g->er) return 0;
    gval_free(g);
    return -1;
}

static double H_of(const gval *g, int64_t i) { return fmax(fabs(g->lo[i]), fabs(g->hi[i])); }

/* 1 when v is a dense constant whose values are finite and within float's
 * range (a value folded at prepare time, in double, may not be a float:
 * the float32 runtime rounds it, which the rules cover, in float's normal
 * range; below it only exact floats). */
static int float_const(const nnc_model *m, int v)
{
    if (v < 0 || v >= m->n_vals) return 0;
    const nnc_value *c = &m->vals[v];
    if (c->kind != NNC_VAL_CONST || c->f == NULL || c->sparse) return 0;
    for (int64_t i = 0; i < c->numel; i++) {
        double a = fabs(c->f[i]);
        if (!(a <= 0x1p126)) return 0; /* also NaN */
        /* below float's normal range a rounded weight errs by up to 2^-150,
         * not u of it: only exact floats there */
        if (a < 0x1p-126 && (double)(float)c->f[i] != c->f[i]) return 0;
    }
    return 1;
}

/* 1 when v is computed per sample (the graph input or a node's output). */
static int computed(const nnc_model *m, int v)
{
    return v >= 0 && v < m->n_vals && (m->vals[v].kind == NNC_VAL_NODE || m->vals[v].kind == NNC_VAL_INPUT);
}

static int same_shape(const nnc_value *a, const nnc_value *b)
{
    if (a->rank != b->rank || a->numel != b->numel) return 0;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d] != b->dims[d]) return 0;
    return 1;
}

static int is_view(nnc_op op)
{
    return op == NNC_OP_IDENTITY || op == NNC_OP_FLATTEN || op == NNC_OP_RESHAPE || op == NNC_OP_SQUEEZE ||
           op == NNC_OP_UNSQUEEZE || op == NNC_OP_DROPOUT;
}

/* Why node n is outside the analysis, or NULL. */
static const char *node_unsupported(const nnc_model *m, const nnc_node *n)
{
    const nnc_value *o = &m->vals[n->out[0]];
    if (n->n_out != 1 && !(n->op == NNC_OP_DROPOUT && (n->n_out == 1 || n->out[1] < 0))) return "more than one output";
    if (!nnc_dtype_is_float(o->dtype)) return "not a float value";
    if (is_view(n->op) || n->op == NNC_OP_RELU)
        return computed(m, n->in[0]) && m->vals[n->in[0]].numel == o->numel ? NULL : "not elementwise";
    switch (n->op) {
    case NNC_OP_CONV:
        if (!computed(m, n->in[0]) || !float_const(m, n->in[1])) return "weights not constant floats";
        if (n->n_in > 2 && n->in[2] >= 0 && !float_const(m, n->in[2])) return "bias not constant floats";
        return m->vals[n->in[0]].rank == n->p[11] + 2 ? NULL : "input rank";
    case NNC_OP_MAXPOOL:
    case NNC_OP_AVERAGEPOOL:
        return computed(m, n->in[0]) && m->vals[n->in[0]].rank == n->p[11] + 2 ? NULL : "input rank";
    case NNC_OP_GEMM:
        if (n->p[0] != 0 || n->fp[0] != 1.0) return "transA or alpha";
        if (!computed(m, n->in[0]) || !float_const(m, n->in[1])) return "B not constant floats";
        if (n->n_in > 2 && n->in[2] >= 0 && (!float_const(m, n->in[2]) || n->fp[1] != 1.0)) return "C or beta";
        return NULL;
    case NNC_OP_MATMUL: {
        const nnc_value *b = &m->vals[n->in[1]];
        if (!computed(m, n->in[0]) || !float_const(m, n->in[1]) || b->rank != 2) return "B not a constant matrix";
        const nnc_value *a = &m->vals[n->in[0]];
        return a->rank >= 1 && a->dims[a->rank - 1] == b->dims[0] && o->numel == a->numel / b->dims[0] * b->dims[1]
                   ? NULL
                   : "shapes";
    }
    case NNC_OP_PAD:
        if (!computed(m, n->in[0]) || nnc_pad_is_identity(m, n)) return computed(m, n->in[0]) ? NULL : "input";
        return n->p[16] == 0 && !n->p[17] && (double)(float)n->fp[0] == n->fp[0] ? NULL : "not a constant float pad";
    case NNC_OP_ADD:
    case NNC_OP_SUB: {
        int a = n->in[0], b = n->in[1];
        if (computed(m, a) && computed(m, b)) return same_shape(&m->vals[a], &m->vals[b]) ? NULL : "broadcast";
        if (computed(m, a) && float_const(m, b) && m->vals[b].numel == 1) return NULL;
        if (computed(m, b) && float_const(m, a) && m->vals[a].numel == 1) return NULL;
        return "operands";
    }
    default:
        return "operator";
    }
}

nnc_status nnc_smp_graph_check(const nnc_model *m, char *err, size_t errlen)
{
    if (m->n_inputs != 1 || m->n_outputs != 1 || !nnc_dtype_is_float(m->vals[m->inputs[0]].dtype))
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "not one float input and one output");
    if (m->vals[m->outputs[0]].kind != NNC_VAL_NODE)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "the output is not computed by a node");
    for (int k = 0; k < m->n_order; k++) {
        const nnc_node *n = &m->nodes[m->order[k]];
        const char *why = node_unsupported(m, n);
        if (why) return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "node '%s' (%s): %s", n->name, n->op_type, why);
    }
    return NNC_STATUS_OK;
}

/* Sums over the terms of one output: interval ends (from b), magnitude,
 * and the two error propagations. */
typedef struct acc {
    double sl, sh, a, sef, ser, saf, sar;
} acc;

static void acc_init(acc *s, double b)
{
    *s = (acc){b, b, fabs(b), 0, 0, 0, 0};
}

static void acc_term(acc *s, double w, const gval *x, int64_t i)
{
    double l = x->lo[i], h = x->hi[i], aw = fabs(w), H = fmax(fabs(l), fabs(h));
    s->sl += w >= 0 ? w * l : w * h;
    s->sh += w >= 0 ? w * h : w * l;
    s->a += aw * H;
    s->sef += aw * x->ef[i];
    s->ser += aw * x->er[i];
    s->saf += aw * (H + x->ef[i]);
    s->sar += aw * (H + x->er[i]);
}

/* Output j of a sum of K terms and bias b (acc), as the rules above say. */
static void acc_out(const acc *s, double b, int64_t K, double uf, double tf, gval *y, int64_t j)
{
    double e = nnc_smp_gamma((double)K + 2.0, NNC_SMP_U64) * s->a + ((double)K + 2.0) * TINY64;
    y->lo[j] = nextafter(s->sl - e, -HUGE_VAL);
    y->hi[j] = nextafter(s->sh + e, HUGE_VAL);
    y->ef[j] = s->sef + nnc_smp_gamma((double)K + 2.0, uf) * (s->saf + fabs(b)) + ((double)K + 3.0) * tf;
    if (!(s->saf + fabs(b) < 0x1p126)) y->ef[j] = INFINITY; /* a float32 product or partial sum may overflow */
    y->er[j] = s->ser + nnc_smp_gamma((double)K + 1.0, NNC_SMP_U64) * (s->sar + fabs(b)) + ((double)K + 2.0) * TINY64;
}

/* Terms of a Conv at most (per node; more: the analysis gives up, e_fast +inf) */
#define NNC_SMP_GRAPH_MAX_TERMS ((int64_t)1 << 24)

/* Returns 0, 1 when the Conv has more than NNC_SMP_GRAPH_MAX_TERMS terms,
 * -1 when out of memory. */
static int conv_node(const nnc_model *m, const nnc_node *n, const gval *x, double uf, double tf, gval *y)
{
    int64_t *ptr;
    int32_t *idx;
    double *w;
    int r = nnc_bnd_conv_csr(m, n, NNC_SMP_GRAPH_MAX_TERMS, &ptr, &idx, &w);
    if (r) return r;
    const nnc_value *vo = &m->vals[n->out[0]];
    const double *B = n->n_in > 2 && n->in[2] >= 0 ? m->vals[n->in[2]].f : NULL;
    int64_t plane = vo->numel / (vo->dims[0] * vo->dims[1]), Mt = vo->dims[1];
    for (int64_t j = 0; j < vo->numel; j++) {
        double b = B ? B[j / plane % Mt] : 0;
        acc s;
        acc_init(&s, b);
        for (int64_t k = ptr[j]; k < ptr[j + 1]; k++) acc_term(&s, w[k], x, idx[k]);
        acc_out(&s, b, ptr[j + 1] - ptr[j], uf, tf, y, j);
    }
    free(ptr);
    free(idx);
    free(w);
    return 0;
}

/* Out: *overflow set when a window holds no input element (a MaxPool's
 * output is then -inf). */
static void pool_node(const nnc_model *m, const nnc_node *n, const gval *x, double uf, double tf, gval *y,
                      int *overflow)
{
    nnc_window g = nnc_window_of(m, n); /* (as the runtime's kernels read it) */
    int is_max = n->op == NNC_OP_MAXPOOL, incl = g.count_include_pad;
    for (int64_t pl = 0; pl < g.n * g.c; pl++)
        for (int64_t oy = 0; oy < g.oh; oy++)
            for (int64_t ox = 0; ox < g.ow; ox++) {
                int64_t cnt = 0, padded = 0, j = (pl * g.oh + oy) * g.ow + ox;
                double sl = 0, sh = 0, sa = 0, sef = 0, ser = 0, saf = 0, sar = 0;
                double ml = -HUGE_VAL, mh = -HUGE_VAL, mef = 0, mer = 0;
                for (int64_t ki = 0; ki < g.kh; ki++)
                    for (int64_t kj = 0; kj < g.kw; kj++) {
                        int64_t iy = oy * g.sh - g.pt + ki * g.dh, ix = ox * g.sw - g.pl + kj * g.dw;
                        if (iy >= -g.pt && iy < g.h + g.pb && ix >= -g.pl && ix < g.w + g.pr) padded++;
                        if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                        int64_t i = (pl * g.h + iy) * g.w + ix;
                        double H = H_of(x, i);
                        cnt++;
                        ml = fmax(ml, x->lo[i]);
                        mh = fmax(mh, x->hi[i]);
                        mef = fmax(mef, x->ef[i]);
                        mer = fmax(mer, x->er[i]);
                        sl += x->lo[i];
                        sh += x->hi[i];
                        sa += H;
                        sef += x->ef[i];
                        ser += x->er[i];
                        saf += H + x->ef[i];
                        sar += H + x->er[i];
                    }
                if (is_max) {
                    if (cnt == 0) *overflow = 1;
                    y->lo[j] = ml;
                    y->hi[j] = mh;
                    y->ef[j] = mef;
                    y->er[j] = mer;
                    continue;
                }
                double div = (double)(incl ? padded : cnt);
                if (div == 0) { /* the runtime writes 0 */
                    y->lo[j] = y->hi[j] = y->ef[j] = y->er[j] = 0;
                    continue;
                }
                double e = nnc_smp_gamma((double)cnt + 2.0, NNC_SMP_U64) * sa / div + ((double)cnt + 2.0) * TINY64;
                y->lo[j] = nextafter(sl / div - e, -HUGE_VAL);
                y->hi[j] = nextafter(sh / div + e, HUGE_VAL);
                y->ef[j] = sef / div + nnc_smp_gamma((double)cnt + 1.0, uf) * saf / div + ((double)cnt + 1.0) * tf;
                if (!(saf < 0x1p126)) y->ef[j] = INFINITY; /* the float32 sum may overflow */
                y->er[j] = ser / div + nnc_smp_gamma((double)cnt + 1.0, NNC_SMP_U64) * sar / div +
                           ((double)cnt + 1.0) * TINY64;
            }
}

/* Pad in constant mode (negative pads crop): each output element is an
 * input element or the pad value, exactly. */
static void pad_node(const nnc_model *m, const nnc_node *n, const gval *x, gval *y)
{
    const nnc_value *vi = &m->vals[n->in[0]], *vo = &m->vals[n->out[0]];
    int r = vi->rank;
    double c = n->fp[0];
    for (int64_t k = 0; k < vo->numel; k++) {
        int64_t rem = k, off = 0, sin = 1;
        int outside = 0;
        for (int d = r - 1; d >= 0; d--) { /* from the last axis: strides built on the way */
            int64_t i = rem % vo->dims[d], b = n->p[d], e = n->p[8 + d];
            int64_t lo = b < 0 ? -b : 0, pb = b > 0 ? b : 0, slen = vi->dims[d] - lo - (e < 0 ? -e : 0);
            int64_t sd = i - pb;
            rem /= vo->dims[d];
            if (sd < 0 || sd >= slen) outside = 1;
            off += (lo + sd) * sin;
            sin *= vi->dims[d];
        }
        if (outside) {
            y->lo[k] = y->hi[k] = c;
            y->ef[k] = y->er[k] = 0;
        } else {
            y->lo[k] = x->lo[off];
            y->hi[k] = x->hi[off];
            y->ef[k] = x->ef[off];
            y->er[k] = x->er[off];
        }
    }
}

/* Gemm (transA 0, alpha 1, beta 1 or no C) and MatMul by a constant matrix. */
static void gemm_node(const nnc_model *m, const nnc_node *n, const gval *x, double uf, double tf, gval *y)
{
    int64_t M, N, K, tb = 0, mode = 0;
    const double *B = m->vals[n->in[1]].f, *C = NULL;
    if (n->op == NNC_OP_GEMM) {
        tb = n->p[1];
        M = n->p[2];
        N = n->p[3];
        K = n->p[4];
        mode = n->p[5];
        if (n->n_in > 2 && n->in[2] >= 0) C = m->vals[n->in[2]].f;
    } else {
        const nnc_value *b = &m->vals[n->in[1]];
        K = b->dims[0];
        N = b->dims[1];
        M = m->vals[n->in[0]].numel / K;
    }
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double b = C ? C[((mode & 1) ? i * ((mode & 2) ? N : 1) : 0) + ((mode & 2) ? j : 0)] : 0;
            acc s;
            acc_init(&s, b);
            for (int64_t k = 0; k < K; k++) acc_term(&s, tb ? B[j * K + k] : B[k * N + j], x, i * K + k);
            acc_out(&s, b, K, uf, tf, y, i * N + j);
        }
}

/* Add or Sub of x and y (sy = +1 or -1 on y), or of x and a constant c (y NULL). */
static void add_node(int64_t cnt, const gval *x, double sx, const gval *y, double sy, double c, double uf, double tf,
                     gval *z)
{
    double g = nnc_smp_gamma(2.0, uf), g64 = nnc_smp_gamma(1.0, NNC_SMP_U64);
    for (int64_t i = 0; i < cnt; i++) {
        double xl = sx > 0 ? x->lo[i] : -x->hi[i], xh = sx > 0 ? x->hi[i] : -x->lo[i];
        double yl = y ? (sy > 0 ? y->lo[i] : -y->hi[i]) : c, yh = y ? (sy > 0 ? y->hi[i] : -y->lo[i]) : c;
        double Hx = H_of(x, i), Hy = y ? H_of(y, i) : fabs(c), efy = y ? y->ef[i] : 0, ery = y ? y->er[i] : 0;
        double e = g64 * (Hx + Hy) + TINY64;
        z->lo[i] = nextafter(xl + yl - e, -HUGE_VAL);
        z->hi[i] = nextafter(xh + yh + e, HUGE_VAL);
        z->ef[i] = x->ef[i] + efy + g * (Hx + x->ef[i] + Hy + efy) + tf;
        if (!(Hx + x->ef[i] + Hy + efy < 0x1p126)) z->ef[i] = INFINITY;
        z->er[i] = x->er[i] + ery + g64 * (Hx + x->er[i] + Hy + ery) + TINY64;
    }
}

nnc_status nnc_smp_graph_errors(const nnc_model *m, const double *lo, const double *hi, double u_fast, int in_round,
                                double *e_fast, double *e_ref, double *y_abs)
{
    nnc_status st = NNC_STATUS_OK;
    double tf = u_fast > 1e-10 ? 1.1754943508222875e-38 : TINY64;
    int nv = m->n_vals, overflow = 0;
    gval *val = calloc((size_t)nv, sizeof *val);
    int *last = malloc(sizeof(int) * (size_t)nv);
    if (!val || !last) {
        free(val);
        free(last);
        return NNC_STATUS_NOMEM;
    }
    /* each value's last reader (its arrays are freed after it) */
    for (int v = 0; v < nv; v++) last[v] = -1;
    for (int k = 0; k < m->n_order; k++) {
        const nnc_node *n = &m->nodes[m->order[k]];
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i] >= 0) last[n->in[i]] = k;
    }
    int vin = m->inputs[0], vout = m->outputs[0];
    int64_t nin = m->vals[vin].numel;
    if (gval_alloc(&val[vin], nin)) goto nomem;
    for (int64_t i = 0; i < nin; i++) {
        double H = fmax(fabs(lo[i]), fabs(hi[i]));
        val[vin].lo[i] = lo[i];
        val[vin].hi[i] = hi[i];
        val[vin].ef[i] = in_round ? u_fast * H + tf : 0;
        val[vin].er[i] = 0;
        if (!(H < 0x1p126)) overflow = 1; /* beyond float: the float32 input is infinite (NaN: too) */
    }
    for (int k = 0; k < m->n_order; k++) {
        const nnc_node *n = &m->nodes[m->order[k]];
        int vo = n->out[0];
        int64_t cnt = m->vals[vo].numel;
        gval *y = &val[vo];
        if (gval_alloc(y, cnt)) goto nomem;
        const gval *x = &val[n->in[0]];
        if (n->op == NNC_OP_PAD && !nnc_pad_is_identity(m, n)) {
            pad_node(m, n, x, y);
        } else if (is_view(n->op) || n->op == NNC_OP_RELU || n->op == NNC_OP_PAD) {
            memcpy(y->lo, x->lo, sizeof(double) * (size_t)cnt);
            memcpy(y->hi, x->hi, sizeof(double) * (size_t)cnt);
            memcpy(y->ef, x->ef, sizeof(double) * (size_t)cnt);
            memcpy(y->er, x->er, sizeof(double) * (size_t)cnt);
            if (n->op == NNC_OP_RELU)
                for (int64_t i = 0; i < cnt; i++) {
                    y->lo[i] = fmax(y->lo[i], 0.0);
                    y->hi[i] = fmax(y->hi[i], 0.0);
                }
        } else if (n->op == NNC_OP_CONV) {
            int r = conv_node(m, n, x, u_fast, tf, y);
            if (r < 0) goto nomem;
            if (r > 0) { /* too many terms to list: no bound */
                overflow = 1;
                for (int64_t i = 0; i < cnt; i++) y->lo[i] = -HUGE_VAL, y->hi[i] = HUGE_VAL, y->ef[i] = y->er[i] = INFINITY;
            }
        } else if (n->op == NNC_OP_MAXPOOL || n->op == NNC_OP_AVERAGEPOOL) {
            pool_node(m, n, x, u_fast, tf, y, &overflow);
        } else if (n->op == NNC_OP_GEMM || n->op == NNC_OP_MATMUL) {
            gemm_node(m, n, x, u_fast, tf, y);
        } else { /* Add, Sub (node_unsupported admits no other) */
            double s = n->op == NNC_OP_SUB ? -1.0 : 1.0;
            int a = n->in[0], b = n->in[1];
            if (computed(m, a) && computed(m, b)) add_node(cnt, &val[a], 1.0, &val[b], s, 0, u_fast, tf, y);
            else if (computed(m, a)) add_node(cnt, &val[a], 1.0, NULL, 0, s * m->vals[b].f[0], u_fast, tf, y);
            else add_node(cnt, &val[b], s, NULL, 0, m->vals[a].f[0], u_fast, tf, y);
        }
        for (int64_t i = 0; i < cnt; i++)
            if (!(H_of(y, i) + y->ef[i] < 0x1p126)) overflow = 1; /* also catches NaN */
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i] >= 0 && last[n->in[i]] == k && n->in[i] != vout) gval_free(&val[n->in[i]]);
    }
    for (int64_t i = 0; i < m->vals[vout].numel; i++) {
        e_fast[i] = overflow ? INFINITY : val[vout].ef[i];
        e_ref[i] = val[vout].er[i];
        y_abs[i] = H_of(&val[vout], i);
    }
    goto done;
nomem:
    st = NNC_STATUS_NOMEM;
done:
    for (int v = 0; v < nv; v++) gval_free(&val[v]);
    free(val);
    free(last);
    return st;
}
