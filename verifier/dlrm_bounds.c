/* Interval bounds of a DLRM with its categorical ids fixed and its dense
 * features in a box (nncert/verifier.h, nnc_vrf_dlrm_bounds).
 *
 * The ids are taken as fixed values of their integer inputs: each fused
 * embedding bag is a sum of known rows, bounded with its rounding error
 * (folding it would round the sum to float32, a different number from the
 * exact one the bounds are about); then the bottom MLP, the
 * pairwise dot-product interaction (a MatMul of two run-time operands:
 * products of bounded terms), the index selection of the lower triangle,
 * and the top MLP.  Each value gets an interval, propagated node by node.
 *
 * Soundness (exact real arithmetic on the stored weights): a dot product of
 * n terms is formed in round-to-nearest double; its computed endpoint
 * differs from the exact one by at most gamma(n + 3) * sum |terms|
 * (gamma(k) = k u / (1 - k u), u = 2^-53, covering the products, the sum,
 * alpha/beta scaling and the bias), which is subtracted from lower and added
 * to upper endpoints, which are then rounded outward by one ulp.  An
 * interval product [a] * [b] is the min/max of the four endpoint products,
 * inside the same error term.  Sigmoid is monotone; its libm error (< 4 ulp)
 * is covered by a 64-ulp relative widening plus 1e-300. */
#include "nncert/verifier.h"
#include "models/model_impl.h"
#include "verifier/bounds_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double gamma_n(int64_t n)
{
    double nu = (double)n * (DBL_EPSILON / 2);
    return nu / (1 - nu) * (1 + DBL_EPSILON); /* inflated once for its own rounding */
}

/* Outward by e, plus an absolute 2^-1000 that covers the underflow of
 * subnormal products (at most 2^-1075 each, for any realistic term count),
 * which a relative error term alone does not. */
static double down(double x, double e) { return nextafter(x - e - 0x1p-1000, -INFINITY); }
static double up(double x, double e) { return nextafter(x + e + 0x1p-1000, INFINITY); }

typedef struct ivals {
    double **lo, **hi;   /* per float value */
    const int64_t **ids; /* per integer graph input: the fixed ids */
} ivals;

#define FAIL(st, ...) return nnc_err(err, errlen, st, __VA_ARGS__)

/* Row-major index of out element k with dims od after Transpose perm. */
static int64_t transpose_src(int64_t k, const nnc_value *in, const nnc_value *out, const int64_t *perm)
{
    int64_t idx[NNC_MAX_RANK], src = 0, st = 1;
    for (int d = out->rank - 1; d >= 0; d--) {
        idx[d] = k % out->dims[d];
        k /= out->dims[d];
    }
    int64_t sidx[NNC_MAX_RANK];
    for (int d = 0; d < out->rank; d++) sidx[perm[d]] = idx[d];
    for (int d = in->rank - 1; d >= 0; d--) {
        src += sidx[d] * st;
        st *= in->dims[d];
    }
    return src;
}

static nnc_status node_bounds(const nnc_model *m, const nnc_node *n, ivals *iv, char *err, size_t errlen)
{
    const nnc_value *o = &m->vals[n->out[0]], *x = &m->vals[n->in[0]];
    double *ol = iv->lo[n->out[0]], *oh = iv->hi[n->out[0]];
    const double *xl = iv->lo[n->in[0]], *xh = iv->hi[n->in[0]];
    switch (n->op) {
    case NNC_OP_IDENTITY: case NNC_OP_DROPOUT: case NNC_OP_FLATTEN: case NNC_OP_RESHAPE:
    case NNC_OP_SQUEEZE: case NNC_OP_UNSQUEEZE:
        memcpy(ol, xl, (size_t)o->numel * sizeof *ol);
        memcpy(oh, xh, (size_t)o->numel * sizeof *oh);
        return NNC_STATUS_OK;
    case NNC_OP_RELU:
        for (int64_t k = 0; k < o->numel; k++) {
            ol[k] = xl[k] > 0 ? xl[k] : 0;
            oh[k] = xh[k] > 0 ? xh[k] : 0;
        }
        return NNC_STATUS_OK;
    case NNC_OP_SIGMOID:
        for (int64_t k = 0; k < o->numel; k++) {
            double a = 1 / (1 + exp(-xl[k])), b = 1 / (1 + exp(-xh[k]));
            ol[k] = down(a, 64 * DBL_EPSILON * a + 1e-300);
            oh[k] = up(b, 64 * DBL_EPSILON * b + 1e-300);
        }
        return NNC_STATUS_OK;
    case NNC_OP_TRANSPOSE:
        for (int64_t k = 0; k < o->numel; k++) {
            int64_t s = transpose_src(k, x, o, n->p);
            ol[k] = xl[s];
            oh[k] = xh[s];
        }
        return NNC_STATUS_OK;
    case NNC_OP_CONCAT: {
        int64_t axis = n->p[0], outer = 1, inner = 1, pos = 0;
        for (int d = 0; d < axis; d++) outer *= o->dims[d];
        for (int d = (int)axis + 1; d < o->rank; d++) inner *= o->dims[d];
        for (int i = 0; i < n->n_in; i++) {
            const nnc_value *v = &m->vals[n->in[i]];
            int64_t len = v->dims[axis] * inner;
            for (int64_t a = 0; a < outer; a++) {
                memcpy(ol + a * o->dims[axis] * inner + pos, iv->lo[n->in[i]] + a * len, (size_t)len * sizeof *ol);
                memcpy(oh + a * o->dims[axis] * inner + pos, iv->hi[n->in[i]] + a * len, (size_t)len * sizeof *oh);
            }
            pos += len;
        }
        return NNC_STATUS_OK;
    }
    case NNC_OP_GATHER: {
        const nnc_value *ix = &m->vals[n->in[1]];
        if (ix->kind != NNC_VAL_CONST) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Gather): run-time indices", n->name);
        int64_t axis = n->p[0], outer = 1, inner = 1, alen = x->dims[axis], k = 0;
        for (int d = 0; d < axis; d++) outer *= x->dims[d];
        for (int d = (int)axis + 1; d < x->rank; d++) inner *= x->dims[d];
        for (int64_t a = 0; a < outer; a++)
            for (int64_t i = 0; i < ix->numel; i++) {
                int64_t j = ix->i[i] < 0 ? ix->i[i] + alen : ix->i[i];
                memcpy(ol + k, xl + (a * alen + j) * inner, (size_t)inner * sizeof *ol);
                memcpy(oh + k, xh + (a * alen + j) * inner, (size_t)inner * sizeof *oh);
                k += inner;
            }
        return NNC_STATUS_OK;
    }
    case NNC_OP_GEMM: {
        const nnc_value *b = &m->vals[n->in[1]];
        const nnc_value *c = n->n_in > 2 && n->in[2] >= 0 ? &m->vals[n->in[2]] : NULL;
        if (n->p[0] || b->kind != NNC_VAL_CONST || !b->f || (c && (c->kind != NNC_VAL_CONST || !c->f)))
            FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Gemm): needs constant B and C and transA = 0", n->name);
        int64_t M = n->p[2], N = n->p[3], K = n->p[4];
        double alpha = n->fp[0], beta = n->fp[1], g = gamma_n(K + 3);
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double sl = 0, sh = 0, mag = 0;
                for (int64_t k = 0; k < K; k++) {
                    double w = alpha * (n->p[1] ? b->f[j * K + k] : b->f[k * N + j]);
                    double l = xl[i * K + k], h = xh[i * K + k];
                    sl += w >= 0 ? w * l : w * h;
                    sh += w >= 0 ? w * h : w * l;
                    mag += fabs(w) * fmax(fabs(l), fabs(h));
                }
                if (c) {
                    double cv = beta * c->f[((n->p[5] & 1) ? i * ((n->p[5] & 2) ? N : 1) : 0) + ((n->p[5] & 2) ? j : 0)];
                    sl += cv;
                    sh += cv;
                    mag += fabs(cv);
                }
                ol[i * N + j] = down(sl, g * mag);
                oh[i * N + j] = up(sh, g * mag);
            }
        return NNC_STATUS_OK;
    }
    case NNC_OP_MATMUL: {
        const nnc_value *b = &m->vals[n->in[1]];
        if (x->rank < 2 || b->rank < 2 || x->rank != b->rank || x->sparse || b->sparse)
            FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (MatMul): only equal-rank operands of rank >= 2", n->name);
        int64_t M = x->dims[x->rank - 2], K = x->dims[x->rank - 1], N = b->dims[b->rank - 1], batch = 1;
        for (int d = 0; d + 2 < x->rank; d++) {
            if (x->dims[d] != b->dims[d]) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (MatMul): broadcast batch dimensions", n->name);
            batch *= x->dims[d];
        }
        const double *bl = iv->lo[n->in[1]], *bh = iv->hi[n->in[1]];
        double g = gamma_n(K + 1);
        for (int64_t q = 0; q < batch; q++)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    double sl = 0, sh = 0, mag = 0;
                    for (int64_t k = 0; k < K; k++) {
                        double al = xl[(q * M + i) * K + k], ah = xh[(q * M + i) * K + k];
                        double cl = bl[(q * K + k) * N + j], ch = bh[(q * K + k) * N + j];
                        double p1 = al * cl, p2 = al * ch, p3 = ah * cl, p4 = ah * ch;
                        sl += fmin(fmin(p1, p2), fmin(p3, p4));
                        sh += fmax(fmax(p1, p2), fmax(p3, p4));
                        mag += fmax(fmax(fabs(p1), fabs(p2)), fmax(fabs(p3), fabs(p4)));
                    }
                    ol[(q * M + i) * N + j] = down(sl, g * mag);
                    oh[(q * M + i) * N + j] = up(sh, g * mag);
                }
        return NNC_STATUS_OK;
    }
    case NNC_OP_EMBEDBAG: { /* p: 0 mode, 1 rows, 2 dim, 3 bag length, 4 bags (models/embbag_impl.h) */
        const int64_t *ids = iv->ids[n->in[1]];
        const nnc_value *tab = &m->vals[n->in[0]];
        int64_t rows = n->p[1], dim = n->p[2], L = n->p[3];
        if (ids == NULL || !tab->f) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (EmbeddingBag): ids must be fixed graph inputs", n->name);
        double g = gamma_n(L + 1);
        for (int64_t b = 0; b < n->p[4]; b++)
            for (int64_t j = 0; j < dim; j++) {
                double s = 0, mag = 0;
                for (int64_t i = 0; i < L; i++) {
                    int64_t r = ids[b * L + i];
                    if (r < -rows || r >= rows) FAIL(NNC_STATUS_INVALID, "node '%s': id %lld out of range", n->name, (long long)r);
                    double w = tab->f[(r < 0 ? r + rows : r) * dim + j];
                    s += w;
                    mag += fabs(w);
                }
                double l = down(s, g * mag), h = up(s, g * mag);
                if (n->p[0] == 1) { /* mean: one more rounding, relative */
                    l /= (double)L;
                    h /= (double)L;
                    l = down(l, DBL_EPSILON * fabs(l));
                    h = up(h, DBL_EPSILON * fabs(h));
                }
                ol[b * dim + j] = l;
                oh[b * dim + j] = h;
            }
        return NNC_STATUS_OK;
    }
    case NNC_OP_REDUCESUM: case NNC_OP_REDUCEMEAN: {
        /* output element of input element k: drop the reduced axes */
        unsigned mask = (unsigned)n->p[0];
        int64_t cnt = 1, ostride[NNC_MAX_RANK], acc = 1;
        for (int d = x->rank - 1; d >= 0; d--) {
            if (mask >> d & 1) {
                ostride[d] = 0;
                cnt *= x->dims[d];
            } else {
                ostride[d] = acc;
                acc *= x->dims[d];
            }
        }
        double *mag = calloc((size_t)(o->numel + 1), sizeof *mag);
        if (mag == NULL) FAIL(NNC_STATUS_NOMEM, "out of memory");
        for (int64_t k = 0; k < o->numel; k++) ol[k] = oh[k] = 0;
        for (int64_t k = 0; k < x->numel; k++) {
            int64_t r = k, off = 0;
            for (int d = x->rank - 1; d >= 0; d--) {
                off += (r % x->dims[d]) * ostride[d];
                r /= x->dims[d];
            }
            ol[off] += xl[k];
            oh[off] += xh[k];
            mag[off] += fmax(fabs(xl[k]), fabs(xh[k]));
        }
        double g = gamma_n(cnt + 1);
        for (int64_t k = 0; k < o->numel; k++) {
            ol[k] = down(ol[k], g * mag[k]);
            oh[k] = up(oh[k], g * mag[k]);
            if (n->op == NNC_OP_REDUCEMEAN) { /* one more rounding, relative */
                if (cnt == 0) {
                    free(mag);
                    FAIL(NNC_STATUS_UNSUPPORTED, "node '%s': mean of nothing", n->name);
                }
                double a = ol[k] / (double)cnt, b = oh[k] / (double)cnt;
                ol[k] = down(a, DBL_EPSILON * fabs(a));
                oh[k] = up(b, DBL_EPSILON * fabs(b));
            }
        }
        free(mag);
        return NNC_STATUS_OK;
    }
    default:
        FAIL(NNC_STATUS_UNSUPPORTED, "node '%s': DLRM bounds have no transformer for %s", n->name, nnc_op_name(n->op));
    }
}

nnc_status nnc_vrf_dlrm_bounds(const char *path, const int64_t *const *ids, const double *lo, const double *hi,
                               double *out_lo, double *out_hi, char *err, size_t errlen)
{
    nnc_model *m;
    nnc_status st = nnc_mdl_load(&m, path, err, errlen);
    if (st) return st;
    int fin = -1;
    for (int i = 0; i < m->n_inputs; i++)
        if (nnc_dtype_is_float(m->vals[m->inputs[i]].dtype)) fin = fin == -1 ? m->inputs[i] : -2;
    if (fin < 0 || m->n_outputs != 1) {
        nnc_mdl_destroy(m);
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "DLRM bounds need one float input and one output");
    }
    ivals iv = {calloc((size_t)m->n_vals, sizeof(double *)), calloc((size_t)m->n_vals, sizeof(double *)),
                calloc((size_t)m->n_vals, sizeof(int64_t *))};
    if (!iv.lo || !iv.hi || !iv.ids) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto free_iv;
    }
    for (int v = 0; v < m->n_vals; v++) {
        const nnc_value *val = &m->vals[v];
        if (val->rank < 0 || !nnc_dtype_is_float(val->dtype)) continue;
        iv.lo[v] = malloc((size_t)(val->numel + 1) * sizeof(double));
        iv.hi[v] = malloc((size_t)(val->numel + 1) * sizeof(double));
        if (!iv.lo[v] || !iv.hi[v]) {
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            goto free_iv;
        }
        if (val->kind == NNC_VAL_CONST && val->f) {
            memcpy(iv.lo[v], val->f, (size_t)val->numel * sizeof(double));
            memcpy(iv.hi[v], val->f, (size_t)val->numel * sizeof(double));
        }
    }
    for (int i = 0, t = 0; i < m->n_inputs; i++)
        if (!nnc_dtype_is_float(m->vals[m->inputs[i]].dtype)) iv.ids[m->inputs[i]] = ids[t++];
    int in = fin;
    for (int64_t k = 0; k < m->vals[in].numel; k++) {
        if (!(lo[k] <= hi[k])) {
            st = nnc_err(err, errlen, NNC_STATUS_ARG, "box element %lld: lower bound above upper", (long long)k);
            goto free_iv;
        }
        iv.lo[in][k] = lo[k];
        iv.hi[in][k] = hi[k];
    }
    for (int t = 0; t < m->n_order && !st; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        if (n->n_out != 1 || !iv.lo[n->out[0]]) {
            st = nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "node '%s' (%s): not a float node with one output", n->name, n->op_type);
            break;
        }
        st = node_bounds(m, n, &iv, err, errlen);
        /* 0 * inf in a product makes NaN, which comparisons (ReLU) would
         * silently turn into a finite bound: refuse instead */
        for (int64_t k = 0; !st && k < m->vals[n->out[0]].numel; k++)
            if (isnan(iv.lo[n->out[0]][k]) || isnan(iv.hi[n->out[0]][k]))
                st = nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED,
                             "node '%s' (%s): the bounds overflow (NaN); narrow the box", n->name, n->op_type);
    }
    if (!st) {
        int ov = m->outputs[0];
        memcpy(out_lo, iv.lo[ov], (size_t)m->vals[ov].numel * sizeof(double));
        memcpy(out_hi, iv.hi[ov], (size_t)m->vals[ov].numel * sizeof(double));
    }
free_iv:
    for (int v = 0; v < m->n_vals; v++) {
        if (iv.lo) free(iv.lo[v]);
        if (iv.hi) free(iv.hi[v]);
    }
    free(iv.lo);
    free(iv.hi);
    free(iv.ids);
    nnc_mdl_destroy(m);
    return st;
}

nnc_status nnc_vrf_output_bounds(const nnc_model *m, const double *lo, const double *hi, int linear, double *out_lo,
                                 double *out_hi, char *err, size_t errlen)
{
    nnc_vrf_bounder *v;
    nnc_status st = nnc_vrf_bounder_create(&v, m, NULL, err, errlen);
    if (st) return st;
    for (int64_t k = 0; k < nnc_vrf_bounder_num_inputs(v); k++)
        if (!(lo[k] <= hi[k])) {
            nnc_vrf_bounder_destroy(v);
            return nnc_err(err, errlen, NNC_STATUS_ARG, "box element %lld: lower bound above upper", (long long)k);
        }
    st = nnc_vrf_bounder_box(v, linear ? NNC_VRF_BOUNDS_CROWN : NNC_VRF_BOUNDS_IBP, 0, lo, hi, out_lo, out_hi);
    if (st == NNC_STATUS_NOMEM) nnc_err(err, errlen, st, "out of memory in the bound computation");
    else if (st) nnc_err(err, errlen, st, "bound computation failed");
    nnc_vrf_bounder_destroy(v);
    return st;
}
