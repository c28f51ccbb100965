/* Batched reference runtime: buffer planning and execution. */
#include "models/model_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nnc_runtime {
    const nnc_model *m;
    nnc_precision prec;
    int max_batch;
    void **buf;              /* per value */
    unsigned char *batched;  /* per value */
    unsigned char *owned;    /* per value: buf[v] allocated here */
    int *alias;              /* per value: value whose buffer it shares, or -1 */
    void *scratch;
    size_t scratch_bytes;
};

static size_t elem_size(nnc_precision p, nnc_dtype t)
{
    if (!nnc_dtype_is_float(t)) return sizeof(int64_t);
    return p == NNC_PRECISION_F32 ? sizeof(float) : sizeof(double);
}

static int is_view_op(nnc_op op)
{
    return op == NNC_OP_IDENTITY || op == NNC_OP_DROPOUT || op == NNC_OP_FLATTEN || op == NNC_OP_RESHAPE ||
           op == NNC_OP_SQUEEZE || op == NNC_OP_UNSQUEEZE;
}

void nnc_rt_destroy(nnc_runtime *rt)
{
    if (rt == NULL) return;
    if (rt->buf)
        for (int v = 0; v < rt->m->n_vals; v++)
            if (rt->owned[v]) free(rt->buf[v]);
    free(rt->buf);
    free(rt->batched);
    free(rt->owned);
    free(rt->alias);
    free(rt->scratch);
    free(rt);
}

nnc_status nnc_rt_create(nnc_runtime **out, const nnc_model *m, nnc_precision prec, int max_batch,
                         char *err, size_t errlen)
{
    *out = NULL;
    if (!m->prepared) return nnc_err(err, errlen, NNC_STATUS_ARG, "model is not prepared");
    if (max_batch < 1) return nnc_err(err, errlen, NNC_STATUS_ARG, "batch size must be at least 1");
    nnc_runtime *rt = calloc(1, sizeof *rt);
    if (rt == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    rt->m = m;
    rt->prec = prec;
    rt->max_batch = max_batch;
    int nv = m->n_vals;
    rt->buf = calloc((size_t)nv + 1, sizeof(void *));
    rt->batched = calloc((size_t)nv + 1, 1);
    rt->owned = calloc((size_t)nv + 1, 1);
    rt->alias = malloc(((size_t)nv + 1) * sizeof(int));
    if (!rt->buf || !rt->batched || !rt->owned || !rt->alias) goto nomem;
    for (int v = 0; v < nv; v++) rt->alias[v] = -1;
    uint64_t limit = nnc_max_tensor_bytes();
    /* constants */
    for (int v = 0; v < nv; v++) {
        const nnc_value *val = &m->vals[v];
        if (val->kind == NNC_VAL_INPUT) rt->batched[v] = 1;
        if (val->kind != NNC_VAL_CONST || val->sparse) continue;
        if (val->i) {
            rt->buf[v] = val->i;
        } else if (val->f && prec == NNC_PRECISION_F64) {
            rt->buf[v] = val->f;
        } else if (val->f) {
            float *c = malloc((size_t)(val->numel ? val->numel : 1) * sizeof(float));
            if (c == NULL) goto nomem;
            for (int64_t k = 0; k < val->numel; k++) c[k] = (float)val->f[k];
            rt->buf[v] = c;
            rt->owned[v] = 1;
        }
    }
    /* node outputs */
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        size_t sc = nnc_op_scratch_bytes(m, n, max_batch, prec);
        if (sc > rt->scratch_bytes) rt->scratch_bytes = sc;
        for (int o = 0; o < n->n_out; o++) {
            int v = n->out[o];
            if (v < 0) continue;
            const nnc_value *val = &m->vals[v];
            rt->batched[v] = 1;
            if (o == 0 && is_view_op(n->op) && rt->batched[n->in[0]] && !m->vals[n->in[0]].sparse) {
                int src = n->in[0];
                rt->alias[v] = rt->alias[src] >= 0 ? rt->alias[src] : src;
                continue;
            }
            uint64_t bytes = (uint64_t)val->numel * elem_size(prec, val->dtype);
            if (bytes && (uint64_t)max_batch > limit / bytes) {
                nnc_err(err, errlen, NNC_STATUS_LIMIT,
                        "tensor '%s' needs %llu bytes per sample; %d samples exceed the %llu-byte limit (NNCERT_MAX_TENSOR_BYTES)",
                        val->name, (unsigned long long)bytes, max_batch, (unsigned long long)limit);
                nnc_rt_destroy(rt);
                return NNC_STATUS_LIMIT;
            }
            rt->buf[v] = malloc(bytes ? (size_t)(bytes * (uint64_t)max_batch) : 1);
            if (rt->buf[v] == NULL) goto nomem;
            rt->owned[v] = 1;
        }
    }
    if (rt->scratch_bytes) {
        rt->scratch = malloc(rt->scratch_bytes);
        if (rt->scratch == NULL) goto nomem;
    }
    *out = rt;
    return NNC_STATUS_OK;
nomem:
    nnc_rt_destroy(rt);
    return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory while creating the runtime");
}

nnc_status nnc_rt_run(nnc_runtime *rt, int batch, const void *const *inputs, void *const *outputs,
                      char *err, size_t errlen)
{
    const nnc_model *m = rt->m;
    if (batch < 1 || batch > rt->max_batch)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "batch %d outside 1..%d", batch, rt->max_batch);
    for (int k = 0; k < m->n_inputs; k++) rt->buf[m->inputs[k]] = (void *)inputs[k];
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        for (int o = 0; o < n->n_out; o++)
            if (n->out[o] >= 0 && rt->alias[n->out[o]] >= 0) rt->buf[n->out[o]] = rt->buf[rt->alias[n->out[o]]];
    }
    nnc_exec x = {m, batch, rt->buf, rt->batched, rt->scratch, rt->scratch_bytes};
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        int rc = rt->prec == NNC_PRECISION_F32 ? nnc_op_exec_f32(&x, n) : nnc_op_exec_f64(&x, n);
        if (rc) return nnc_err(err, errlen, NNC_STATUS_INVALID, "node '%s' (%s): an index in the input is out of range",
                               n->name, n->op_type);
    }
    for (int k = 0; k < m->n_outputs; k++) {
        int v = m->outputs[k];
        const nnc_value *val = &m->vals[v];
        size_t bytes = (size_t)val->numel * elem_size(rt->prec, val->dtype);
        for (int b = 0; b < batch; b++) {
            const char *src = (const char *)rt->buf[v] + (rt->batched[v] ? (size_t)b * bytes : 0);
            if (bytes) memcpy((char *)outputs[k] + (size_t)b * bytes, src, bytes);
        }
    }
    return NNC_STATUS_OK;
}
