/* Categorical ids of a DLRM fixed to constants (nncert/embbag.h,
 * nnc_mdl_embbag_fix_ids): what verifying a DLRM over its dense features
 * needs.  The fused EmbeddingBag nodes stay nodes (their pooled sums are
 * not folded: the bounds take the exact sum of the stored rows, which a
 * folded double would round). */
#include "nncert/embbag.h"
#include "models/embbag_impl.h"

#include <stdlib.h>
#include <string.h>

nnc_status nnc_mdl_embbag_fix_ids(nnc_model *m, const int64_t *const *ids, char *err, size_t errlen)
{
    if (!m->prepared) return nnc_err(err, errlen, NNC_STATUS_ARG, "fixing ids needs a prepared model");
    int n_int = 0;
    /* check everything first: the model is changed only when all is well */
    for (int k = 0; k < m->n_inputs; k++) {
        int v = m->inputs[k];
        if (nnc_dtype_is_float(m->vals[v].dtype)) continue;
        for (int t = 0; t < m->n_order; t++) {
            const nnc_node *n = &m->nodes[m->order[t]];
            for (int s = 0; s < n->n_in; s++) {
                if (n->in[s] != v) continue;
                if (n->op != NNC_OP_EMBEDBAG || s != 1)
                    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED,
                                   "integer input '%s' feeds node '%s' (%s), not only embedding bags", m->vals[v].name,
                                   n->name, n->op_type);
                int64_t rows = n->p[1];
                for (int64_t i = 0; i < m->vals[v].numel; i++)
                    if (ids[n_int][i] < -rows || ids[n_int][i] >= rows)
                        return nnc_err(err, errlen, NNC_STATUS_INVALID, "input '%s': id %lld is outside the table's %lld rows",
                                       m->vals[v].name, (long long)ids[n_int][i], (long long)rows);
            }
        }
        if (m->vals[v].is_output)
            return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "integer input '%s' is also a graph output", m->vals[v].name);
        n_int++;
    }
    int64_t **copy = calloc((size_t)n_int + 1, sizeof *copy);
    if (copy == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int k = 0, t = 0; k < m->n_inputs; k++) {
        const nnc_value *val = &m->vals[m->inputs[k]];
        if (nnc_dtype_is_float(val->dtype)) continue;
        copy[t] = malloc((size_t)(val->numel + 1) * sizeof(int64_t));
        if (copy[t] == NULL) {
            for (int j = 0; j < t; j++) free(copy[j]);
            free(copy);
            return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        }
        memcpy(copy[t], ids[t], (size_t)val->numel * sizeof(int64_t));
        t++;
    }
    int w = 0;
    for (int k = 0, t = 0; k < m->n_inputs; k++) {
        nnc_value *val = &m->vals[m->inputs[k]];
        if (nnc_dtype_is_float(val->dtype)) {
            m->inputs[w++] = m->inputs[k];
            continue;
        }
        val->kind = NNC_VAL_CONST;
        val->i = copy[t++];
        val->dynamic_leading = 0;
    }
    m->n_inputs = w;
    free(copy);
    return NNC_STATUS_OK;
}
