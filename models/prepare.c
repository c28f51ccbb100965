/* Graph preparation: topological order, shape inference, constant folding,
 * BatchNormalization folding, dead-node removal, model introspection. */
#include "models/embbag_impl.h"
#include "models/model_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nnc_prepare_opts_default(nnc_prepare_opts *o)
{
    o->fold_batchnorm = 1;
    o->fold_constants = 1;
    o->fuse_embbag = 1;
}

/* Kahn's algorithm over node dependencies.  Out: m->order (all nodes). */
static nnc_status topo_sort(nnc_model *m, char *err, size_t errlen)
{
    int nn = m->n_nodes;
    int *indeg = calloc((size_t)nn + 1, sizeof(int));
    int *queue = malloc(((size_t)nn + 1) * sizeof(int));
    /* consumers as a CSR over values */
    int *cstart = calloc((size_t)m->n_vals + 1, sizeof(int));
    int total = 0;
    for (int k = 0; k < nn; k++) total += m->nodes[k].n_in;
    int *clist = malloc(((size_t)total + 1) * sizeof(int));
    free(m->order);
    m->order = malloc(((size_t)nn + 1) * sizeof(int));
    if (!indeg || !queue || !cstart || !clist || !m->order) {
        free(indeg); free(queue); free(cstart); free(clist);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    for (int k = 0; k < nn; k++)
        for (int i = 0; i < m->nodes[k].n_in; i++) {
            int v = m->nodes[k].in[i];
            if (v >= 0 && m->vals[v].kind == NNC_VAL_NODE) {
                indeg[k]++;
                cstart[v + 1]++;
            }
        }
    for (int v = 0; v < m->n_vals; v++) cstart[v + 1] += cstart[v];
    int *fill = calloc((size_t)m->n_vals + 1, sizeof(int));
    if (!fill) {
        free(indeg); free(queue); free(cstart); free(clist);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    for (int k = 0; k < nn; k++)
        for (int i = 0; i < m->nodes[k].n_in; i++) {
            int v = m->nodes[k].in[i];
            if (v >= 0 && m->vals[v].kind == NNC_VAL_NODE) clist[cstart[v] + fill[v]++] = k;
        }
    int head = 0, tail = 0;
    for (int k = 0; k < nn; k++)
        if (indeg[k] == 0) queue[tail++] = k;
    while (head < tail) {
        int k = queue[head++];
        m->order[m->n_order++] = k;
        for (int o = 0; o < m->nodes[k].n_out; o++) {
            int v = m->nodes[k].out[o];
            if (v < 0) continue;
            for (int c = cstart[v]; c < cstart[v + 1]; c++)
                if (--indeg[clist[c]] == 0) queue[tail++] = clist[c];
        }
    }
    nnc_status st = NNC_STATUS_OK;
    if (m->n_order != nn) {
        int bad = 0;
        for (int k = 0; k < nn; k++)
            if (indeg[k] > 0) { bad = k; break; }
        st = nnc_err(err, errlen, NNC_STATUS_INVALID, "graph has a cycle through node '%s' (%s)",
                     m->nodes[bad].name, m->nodes[bad].op_type);
    }
    free(indeg); free(queue); free(cstart); free(clist); free(fill);
    return st;
}

static int count_uses(const nnc_model *m, int v)
{
    int c = m->vals[v].is_output;
    for (int k = 0; k < m->n_nodes; k++) {
        if (m->nodes[k].dead) continue;
        for (int i = 0; i < m->nodes[k].n_in; i++) c += m->nodes[k].in[i] == v;
    }
    return c;
}

/* New constant value holding a copy of v's dense float data (for folding
 * without touching weights that other nodes may share). */
static int clone_const(nnc_model *m, int v, const char *suffix)
{
    char name[256];
    snprintf(name, sizeof name, "%.200s%s", m->vals[v].name, suffix);
    int nv = nnc_mdl_add_value(m, name);
    if (nv < 0) return -1;
    nnc_value *src = &m->vals[v], *dst = &m->vals[nv];
    dst->kind = NNC_VAL_CONST;
    dst->dtype = src->dtype;
    dst->rank = src->rank;
    memcpy(dst->dims, src->dims, sizeof dst->dims);
    dst->numel = src->numel;
    dst->f = malloc((size_t)(src->numel ? src->numel : 1) * sizeof(double));
    if (dst->f == NULL) return -1;
    memcpy(dst->f, src->f, (size_t)src->numel * sizeof(double));
    return nv;
}

/* Fold BatchNormalization node bn into the Conv/Gemm producing its input,
 * when legal: the producer's output feeds only bn, its weights and bias are
 * dense float constants, and for Gemm, C does not vary along rows.
 * The folded weights are computed in double: exact up to one rounding per
 * weight (the model is then no longer bit-identical to the file). */
static nnc_status fold_bn(nnc_model *m, nnc_node *bn, int *folded)
{
    *folded = 0;
    int xv = bn->in[0];
    if (m->vals[xv].kind != NNC_VAL_NODE) return NNC_STATUS_OK;
    nnc_node *p = &m->nodes[m->vals[xv].producer];
    if (p->dead || (p->op != NNC_OP_CONV && p->op != NNC_OP_GEMM) || count_uses(m, xv) != 1) return NNC_STATUS_OK;
    for (int i = 1; i < 5; i++)
        if (m->vals[bn->in[i]].kind != NNC_VAL_CONST || !m->vals[bn->in[i]].f) return NNC_STATUS_OK;
    int wv = p->in[1], cv = p->n_in > 2 ? p->in[2] : -1;
    if (m->vals[wv].kind != NNC_VAL_CONST || !m->vals[wv].f) return NNC_STATUS_OK;
    if (cv >= 0 && (m->vals[cv].kind != NNC_VAL_CONST || !m->vals[cv].f)) return NNC_STATUS_OK;
    int64_t C = m->vals[xv].dims[1];
    if (p->op == NNC_OP_GEMM && (m->vals[xv].rank != 2 || (p->p[5] & 1))) return NNC_STATUS_OK;
    const double *sc = m->vals[bn->in[1]].f, *bb = m->vals[bn->in[2]].f, *mu = m->vals[bn->in[3]].f, *var = m->vals[bn->in[4]].f;
    double eps = (double)(float)bn->fp[0];
    int nw = clone_const(m, wv, "_bnfold");
    if (nw < 0) return NNC_STATUS_NOMEM;
    /* new bias [C] */
    char name[256];
    snprintf(name, sizeof name, "%.200s_bnbias", m->vals[bn->out[0]].name);
    int nb = nnc_mdl_add_value(m, name);
    if (nb < 0) return NNC_STATUS_NOMEM;
    nnc_value *B = &m->vals[nb];
    B->kind = NNC_VAL_CONST;
    B->dtype = m->vals[xv].dtype;
    B->rank = 1;
    B->dims[0] = C;
    B->numel = C;
    B->f = malloc((size_t)(C ? C : 1) * sizeof(double));
    if (B->f == NULL) return NNC_STATUS_NOMEM;
    double *W = m->vals[nw].f;
    int64_t wn = m->vals[nw].numel;
    for (int64_t c = 0; c < C; c++) {
        double a = sc[c] / sqrt(var[c] + eps);
        double bias;
        if (p->op == NNC_OP_CONV) {
            bias = cv >= 0 ? m->vals[cv].f[c] : 0.0;
            int64_t per = wn / C;
            for (int64_t k = 0; k < per; k++) W[c * per + k] *= a;
        } else {
            /* Gemm: out = alpha A B + beta C; column c of op(B) scales by a */
            int64_t K = p->p[4];
            for (int64_t k = 0; k < K; k++) {
                if (p->p[1]) W[c * K + k] *= a * p->fp[0];
                else W[k * C + c] *= a * p->fp[0];
            }
            bias = 0.0;
            if (cv >= 0) bias = p->fp[1] * m->vals[cv].f[(p->p[5] & 2) ? c : 0];
        }
        B->f[c] = (bias - mu[c]) * a + bb[c];
    }
    /* rewire: the producer now writes bn's output */
    int out = bn->out[0];
    p->in[1] = nw;
    if (p->n_in < 3) p->n_in = 3;
    p->in[2] = nb;
    if (p->op == NNC_OP_GEMM) {
        p->fp[0] = 1.0;
        p->fp[1] = 1.0;
        p->p[5] = 2 | 4;
    }
    m->vals[out].producer = m->vals[xv].producer;
    m->vals[xv].producer = -1;
    p->out[0] = out;
    bn->dead = 1;
    *folded = 1;
    return NNC_STATUS_OK;
}

/* Inference-mode Dropout's mask output (all true, the input's shape; shape
 * inference typed it) becomes a constant value, so that every engine sees
 * Dropout with one output. */
static nnc_status const_dropout_mask(nnc_model *m, nnc_node *n, char *err, size_t errlen)
{
    if (n->op != NNC_OP_DROPOUT || n->n_out < 2 || n->out[1] < 0) return NNC_STATUS_OK;
    nnc_value *v = &m->vals[n->out[1]];
    size_t cnt = (size_t)(v->numel ? v->numel : 1);
    if (nnc_dtype_is_float(v->dtype)) {
        v->f = malloc(cnt * sizeof(double));
        if (v->f == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        for (size_t k = 0; k < cnt; k++) v->f[k] = 1.0;
    } else {
        v->i = malloc(cnt * sizeof(int64_t));
        if (v->i == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        for (size_t k = 0; k < cnt; k++) v->i[k] = 1;
    }
    v->kind = NNC_VAL_CONST;
    v->producer = -1;
    n->out[1] = -1;
    return NNC_STATUS_OK;
}

static int foldable(const nnc_model *m, const nnc_node *n)
{
    if (n->op == NNC_OP_SHAPE || n->op == NNC_OP_CONSTANT) return 1;
    for (int i = 0; i < n->n_in; i++) {
        int v = n->in[i];
        if (v < 0) continue;
        if (m->vals[v].kind != NNC_VAL_CONST || m->vals[v].sparse) return 0;
    }
    return 1;
}

/* The stored weights and biases of the layers that carry them (Gemm,
 * MatMul, Conv, BatchNormalization) must be finite: a NaN or an infinity
 * there makes every output NaN or infinite, which no verdict, bound or
 * proof can mean anything about.  (Other constants may be infinite on
 * purpose: Clip limits, attention masks.) */
static nnc_status check_weights_finite(const nnc_model *m, const nnc_node *n, char *err, size_t errlen)
{
    if (n->op != NNC_OP_GEMM && n->op != NNC_OP_MATMUL && n->op != NNC_OP_CONV && n->op != NNC_OP_BATCHNORM)
        return NNC_STATUS_OK;
    for (int s = 0; s < n->n_in; s++) {
        if (n->in[s] < 0) continue;
        const nnc_value *v = &m->vals[n->in[s]];
        if (v->kind != NNC_VAL_CONST || v->f == NULL) continue;
        for (int64_t k = 0; k < v->numel; k++)
            if (!isfinite(v->f[k]))
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s '%s': weight '%s' has %s at element %lld",
                               nnc_op_name(n->op), n->name ? n->name : "", v->name, isnan(v->f[k]) ? "a NaN" : "an infinity",
                               (long long)k);
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_mdl_prepare(nnc_model *m, const nnc_prepare_opts *opts, char *err, size_t errlen)
{
    nnc_prepare_opts def;
    if (opts == NULL) {
        nnc_prepare_opts_default(&def);
        opts = &def;
    }
    if (m->prepared) return nnc_err(err, errlen, NNC_STATUS_ARG, "model already prepared");
    nnc_status st = topo_sort(m, err, errlen);
    if (st) return st;
    for (int t = 0; t < m->n_order; t++) {
        nnc_node *n = &m->nodes[m->order[t]];
        if ((st = nnc_op_infer(m, n, err, errlen))) return st;
        if ((st = check_weights_finite(m, n, err, errlen))) return st;
        if ((st = const_dropout_mask(m, n, err, errlen))) return st;
        if (opts->fold_constants && foldable(m, n)) {
            if ((st = nnc_op_fold(m, n, err, errlen))) return st;
            n->dead = 1;
        }
    }
    if (opts->fold_batchnorm)
        for (int t = 0; t < m->n_order; t++) {
            nnc_node *n = &m->nodes[m->order[t]];
            int folded;
            if (n->dead || n->op != NNC_OP_BATCHNORM) continue;
            if ((st = fold_bn(m, n, &folded))) return nnc_err(err, errlen, st, "out of memory while folding BatchNormalization");
        }
    if (opts->fuse_embbag && (st = nnc_embbag_fuse(m, err, errlen))) return st;
    /* Dead-node removal: keep nodes reachable backwards from the outputs. */
    unsigned char *live = calloc((size_t)m->n_vals + 1, 1);
    if (live == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int k = 0; k < m->n_outputs; k++) live[m->outputs[k]] = 1;
    for (int t = m->n_order - 1; t >= 0; t--) {
        nnc_node *n = &m->nodes[m->order[t]];
        if (n->dead) continue;
        int used = 0;
        for (int o = 0; o < n->n_out; o++) used |= n->out[o] >= 0 && live[n->out[o]];
        if (!used) {
            n->dead = 1;
            continue;
        }
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i] >= 0) live[n->in[i]] = 1;
    }
    free(live);
    int w = 0;
    for (int t = 0; t < m->n_order; t++)
        if (!m->nodes[m->order[t]].dead) m->order[w++] = m->order[t];
    m->n_order = w;
    for (int k = 0; k < m->n_outputs; k++) {
        nnc_value *v = &m->vals[m->outputs[k]];
        if (v->rank < 0) return nnc_err(err, errlen, NNC_STATUS_INVALID, "graph output '%s' has no inferred shape", v->name);
        if (v->sparse) return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "graph output '%s' is sparse", v->name);
    }
    m->prepared = 1;
    return NNC_STATUS_OK;
}

/* ------------------------------------------------------------ introspection */

static void fill_info(const nnc_value *v, nnc_tensor_info *o)
{
    o->name = v->name;
    o->dtype = v->dtype;
    o->rank = v->rank;
    memcpy(o->dims, v->dims, sizeof o->dims);
    o->numel = v->numel;
    /* graph outputs: declared 'N' and one sample leading with 1 */
    o->dynamic_leading = v->dynamic_leading && v->kind != NNC_VAL_CONST && v->rank >= 1 && v->dims[0] == 1;
}

int nnc_mdl_num_inputs(const nnc_model *m) { return m->n_inputs; }
int nnc_mdl_num_outputs(const nnc_model *m) { return m->n_outputs; }
void nnc_mdl_input_info(const nnc_model *m, int i, nnc_tensor_info *out) { fill_info(&m->vals[m->inputs[i]], out); }
void nnc_mdl_output_info(const nnc_model *m, int i, nnc_tensor_info *out) { fill_info(&m->vals[m->outputs[i]], out); }
int64_t nnc_mdl_opset(const nnc_model *m) { return m->opset; }
int64_t nnc_mdl_ir_version(const nnc_model *m) { return m->ir_version; }
const char *nnc_mdl_producer(const nnc_model *m) { return m->producer ? m->producer : ""; }
int nnc_mdl_num_nodes(const nnc_model *m) { return m->n_order; }
const char *nnc_mdl_node_op(const nnc_model *m, int i) { return nnc_op_name(m->nodes[m->order[i]].op); }
const char *nnc_mdl_node_name(const nnc_model *m, int i) { return m->nodes[m->order[i]].name; }
void nnc_mdl_sha256(const nnc_model *m, uint8_t out[32]) { memcpy(out, m->sha256, 32); }

int64_t nnc_mdl_param_count(const nnc_model *m)
{
    unsigned char *seen = calloc((size_t)m->n_vals + 1, 1);
    if (seen == NULL) return -1;
    int64_t total = 0;
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        for (int i = 0; i < n->n_in; i++) {
            int v = n->in[i];
            if (v < 0 || seen[v] || m->vals[v].kind != NNC_VAL_CONST || !nnc_dtype_is_float(m->vals[v].dtype)) continue;
            seen[v] = 1;
            total += m->vals[v].sparse ? m->vals[v].sparse->nnz : m->vals[v].numel;
        }
    }
    free(seen);
    return total;
}
