/* The IR's primitives: reading files, dtype and shape arithmetic, the
 * value table, node attributes, input binding and freeing a model.  The
 * front end (onnx_load.c) builds models with them; everything else in
 * models/ sits above this file, which calls nothing of models/ itself. */
#include "models/model_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *nnc_strdup(const char *s)
{
    if (s == NULL) s = "";
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

nnc_status nnc_read_file(const char *path, size_t max_bytes, unsigned char **buf,
                         size_t *len, char *err, size_t errlen)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return nnc_err(err, errlen, NNC_STATUS_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return nnc_err(err, errlen, NNC_STATUS_IO, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > (uint64_t)max_bytes) {
        fclose(f);
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "%s: file is %lld bytes, over the limit of %zu",
                       path, (long long)st.st_size, max_bytes);
    }
    size_t n = (size_t)st.st_size;
    unsigned char *b = malloc(n ? n : 1);
    if (b == NULL) {
        fclose(f);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "%s: cannot allocate %zu bytes", path, n);
    }
    if (n && fread(b, 1, n, f) != n) {
        free(b);
        fclose(f);
        return nnc_err(err, errlen, NNC_STATUS_IO, "%s: short read", path);
    }
    fclose(f);
    *buf = b;
    *len = n;
    return NNC_STATUS_OK;
}

int nnc_dtype_is_float(nnc_dtype t) { return t == NNC_DTYPE_FLOAT || t == NNC_DTYPE_DOUBLE; }

const char *nnc_dtype_name(nnc_dtype t)
{
    switch (t) {
    case NNC_DTYPE_FLOAT: return "float";
    case NNC_DTYPE_UINT8: return "uint8";
    case NNC_DTYPE_INT8: return "int8";
    case NNC_DTYPE_UINT16: return "uint16";
    case NNC_DTYPE_INT16: return "int16";
    case NNC_DTYPE_INT32: return "int32";
    case NNC_DTYPE_INT64: return "int64";
    case NNC_DTYPE_BOOL: return "bool";
    case NNC_DTYPE_DOUBLE: return "double";
    case NNC_DTYPE_UINT32: return "uint32";
    case NNC_DTYPE_UINT64: return "uint64";
    case NNC_DTYPE_UNDEFINED: break;
    }
    return "undefined";
}

size_t nnc_dtype_size(nnc_dtype t)
{
    switch (t) {
    case NNC_DTYPE_UINT8: case NNC_DTYPE_INT8: case NNC_DTYPE_BOOL: return 1;
    case NNC_DTYPE_UINT16: case NNC_DTYPE_INT16: return 2;
    case NNC_DTYPE_FLOAT: case NNC_DTYPE_INT32: case NNC_DTYPE_UINT32: return 4;
    case NNC_DTYPE_DOUBLE: case NNC_DTYPE_INT64: case NNC_DTYPE_UINT64: return 8;
    case NNC_DTYPE_UNDEFINED: break;
    }
    return 0;
}

int nnc_shape_numel(int rank, const int64_t *dims, size_t elem_size, int64_t *numel)
{
    uint64_t limit = nnc_max_tensor_bytes() / (elem_size ? elem_size : 1);
    uint64_t n = 1;
    if (rank < 0 || rank > NNC_MAX_RANK) return -1;
    for (int d = 0; d < rank; d++) {
        if (dims[d] < 0) return -1;
        if (dims[d] == 0) {
            n = 0;
            continue;
        }
        if (n != 0 && (uint64_t)dims[d] > limit / n) return -1;
        if (n != 0) n *= (uint64_t)dims[d];
    }
    if (n > limit) return -1;
    *numel = (int64_t)n;
    return 0;
}

void nnc_value_free_payload(nnc_value *v)
{
    free(v->f);
    free(v->i);
    v->f = NULL;
    v->i = NULL;
    if (v->sparse) {
        free(v->sparse->row_ptr);
        free(v->sparse->col);
        free(v->sparse->val);
        free(v->sparse);
        v->sparse = NULL;
    }
}

int nnc_mdl_find_value(const nnc_model *m, const char *name)
{
    for (int i = 0; i < m->n_vals; i++)
        if (strcmp(m->vals[i].name, name) == 0) return i;
    return -1;
}

int nnc_mdl_add_value(nnc_model *m, const char *name)
{
    if (m->n_vals == m->cap_vals) {
        int cap = m->cap_vals ? 2 * m->cap_vals : 64;
        nnc_value *nv = realloc(m->vals, (size_t)cap * sizeof *nv);
        if (nv == NULL) return -1;
        m->vals = nv;
        m->cap_vals = cap;
    }
    nnc_value *v = &m->vals[m->n_vals];
    memset(v, 0, sizeof *v);
    v->name = nnc_strdup(name);
    if (v->name == NULL) return -1;
    v->rank = -1;
    v->producer = -1;
    return m->n_vals++;
}

void nnc_tensor_clear(nnc_tensor *t)
{
    if (t == NULL) return;
    free(t->f);
    free(t->i);
    t->f = NULL;
    t->i = NULL;
}

static void free_node(nnc_node *n)
{
    free(n->name);
    free(n->op_type);
    free(n->in);
    free(n->out);
    for (int k = 0; k < n->n_attrs; k++) {
        nnc_attr *a = &n->attrs[k];
        free(a->name);
        free(a->s);
        free(a->floats);
        free(a->ints);
        if (a->t) {
            nnc_value_free_payload(a->t);
            free(a->t->name);
            free(a->t);
        }
    }
    free(n->attrs);
}

void nnc_mdl_destroy(nnc_model *m)
{
    if (m == NULL) return;
    for (int i = 0; i < m->n_vals; i++) {
        nnc_value_free_payload(&m->vals[i]);
        free(m->vals[i].name);
    }
    for (int i = 0; i < m->n_nodes; i++) free_node(&m->nodes[i]);
    free(m->vals);
    free(m->nodes);
    free(m->order);
    free(m->inputs);
    free(m->outputs);
    free(m->producer);
    free(m);
}

nnc_status nnc_mdl_bind_input(nnc_model *m, const char *name, nnc_dtype dtype, int rank,
                              const int64_t *dims, const void *data, char *err, size_t errlen)
{
    int idx = nnc_mdl_find_value(m, name);
    if (idx < 0 || m->vals[idx].kind != NNC_VAL_INPUT)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "'%s' is not a graph input", name);
    nnc_value *v = &m->vals[idx];
    if (rank < 0 || rank > NNC_MAX_RANK) return nnc_err(err, errlen, NNC_STATUS_LIMIT, "'%s': bad rank %d", name, rank);
    int64_t n;
    if (nnc_shape_numel(rank, dims, 8, &n) != 0) return nnc_err(err, errlen, NNC_STATUS_LIMIT, "'%s': bad shape", name);
    int is_float = nnc_dtype_is_float(dtype);
    void *p = malloc((size_t)(n ? n : 1) * 8);
    if (p == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int64_t k = 0; k < n; k++) {
        if (dtype == NNC_DTYPE_FLOAT) ((double *)p)[k] = ((const float *)data)[k];
        else if (is_float) ((double *)p)[k] = ((const double *)data)[k];
        else ((int64_t *)p)[k] = ((const int64_t *)data)[k];
    }
    v->dtype = dtype;
    v->rank = rank;
    memcpy(v->dims, dims, (size_t)rank * sizeof *dims);
    v->numel = n;
    v->kind = NNC_VAL_CONST;
    v->dynamic_leading = 0;
    if (is_float) v->f = p;
    else v->i = p;
    int w = 0;
    for (int k = 0; k < m->n_inputs; k++)
        if (m->inputs[k] != idx) m->inputs[w++] = m->inputs[k];
    m->n_inputs = w;
    return NNC_STATUS_OK;
}

nnc_status nnc_mdl_set_input_shape(nnc_model *m, const char *name, int rank, const int64_t *dims,
                                   char *err, size_t errlen)
{
    int idx = nnc_mdl_find_value(m, name);
    if (idx < 0 || m->vals[idx].kind != NNC_VAL_INPUT)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "'%s' is not a graph input", name);
    nnc_value *v = &m->vals[idx];
    int64_t n;
    if (rank < 0 || rank > NNC_MAX_RANK || nnc_shape_numel(rank, dims, nnc_dtype_size(v->dtype), &n) != 0)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "'%s': bad shape", name);
    v->rank = rank;
    memcpy(v->dims, dims, (size_t)rank * sizeof *dims);
    v->numel = n;
    v->dynamic_leading = 0;
    return NNC_STATUS_OK;
}

const nnc_attr *nnc_node_attr(const nnc_node *n, const char *name)
{
    for (int k = 0; k < n->n_attrs; k++)
        if (strcmp(n->attrs[k].name, name) == 0) return &n->attrs[k];
    return NULL;
}

int64_t nnc_attr_int(const nnc_node *n, const char *name, int64_t dflt)
{
    const nnc_attr *a = nnc_node_attr(n, name);
    return (a && a->type == NNC_ATTR_INT) ? a->i : dflt;
}

double nnc_attr_float(const nnc_node *n, const char *name, double dflt)
{
    const nnc_attr *a = nnc_node_attr(n, name);
    return (a && a->type == NNC_ATTR_FLOAT) ? a->f : dflt;
}
