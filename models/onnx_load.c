/* ONNX ModelProto -> nncert IR.  The protobuf bindings are generated at
 * build time by protoc-c from the onnx.proto of Debian's libonnx-dev. */
#include "models/model_impl.h"
#include "onnx.pb-c.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NNC_MAX_MODEL_BYTES ((size_t)2 << 30) /* protobuf's own 2 GiB limit */
#define NNC_MIN_OPSET 7
#define NNC_MAX_OPSET 21

/* ---------------------------------------------------------------- utils */

static int dtype_supported(int32_t t)
{
    switch (t) {
    case NNC_DTYPE_FLOAT: case NNC_DTYPE_DOUBLE: case NNC_DTYPE_UINT8: case NNC_DTYPE_INT8:
    case NNC_DTYPE_UINT16: case NNC_DTYPE_INT16: case NNC_DTYPE_INT32: case NNC_DTYPE_INT64:
    case NNC_DTYPE_BOOL: case NNC_DTYPE_UINT32: case NNC_DTYPE_UINT64:
        return 1;
    default:
        return 0;
    }
}

static const char *onnx_type_name(int32_t t)
{
    static const char *names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16",
                                  "int32", "int64", "string", "bool", "float16", "double",
                                  "uint32", "uint64", "complex64", "complex128", "bfloat16"};
    if (t >= 0 && t < (int32_t)(sizeof names / sizeof names[0])) return names[t];
    return "unknown";
}

/* --------------------------------------------------------- tensor data */

/* External data: location relative to basedir, no absolute path, no "..". */
static nnc_status read_external(const Onnx__TensorProto *t, const char *basedir, size_t want,
                                unsigned char **out, char *err, size_t errlen)
{
    const char *loc = NULL;
    long long off = 0, length = -1;
    for (size_t k = 0; k < t->n_external_data; k++) {
        const char *key = t->external_data[k]->key ? t->external_data[k]->key : "";
        const char *val = t->external_data[k]->value ? t->external_data[k]->value : "";
        char *end;
        if (strcmp(key, "location") == 0) loc = val;
        else if (strcmp(key, "offset") == 0) {
            errno = 0;
            off = strtoll(val, &end, 10);
            if (errno || *end || off < 0)
                return nnc_err(err, errlen, NNC_STATUS_PARSE, "tensor '%s': bad external data offset '%s'", t->name, val);
        } else if (strcmp(key, "length") == 0) {
            errno = 0;
            length = strtoll(val, &end, 10);
            if (errno || *end || length < 0)
                return nnc_err(err, errlen, NNC_STATUS_PARSE, "tensor '%s': bad external data length '%s'", t->name, val);
        }
    }
    if (loc == NULL || !*loc)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "tensor '%s': external data without a location", t->name);
    if (basedir == NULL)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "tensor '%s': external data needs the model's folder", t->name);
    if (loc[0] == '/' || strstr(loc, "..") != NULL)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "tensor '%s': external data location '%s' leaves the model's folder", t->name, loc);
    if (length >= 0 && (uint64_t)length != (uint64_t)want)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "tensor '%s': external data length %lld, shape needs %zu bytes",
                       t->name, length, want);
    size_t plen = strlen(basedir) + strlen(loc) + 2;
    char *path = malloc(plen);
    if (path == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    snprintf(path, plen, "%s/%s", basedir, loc);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        nnc_status st = nnc_err(err, errlen, NNC_STATUS_IO, "tensor '%s': external data %s: %s", t->name, path, strerror(errno));
        free(path);
        return st;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || (uint64_t)sb.st_size < (uint64_t)off + want) {
        fclose(f);
        nnc_status st = nnc_err(err, errlen, NNC_STATUS_INVALID, "tensor '%s': external file %s is too short for offset %lld + %zu bytes",
                                t->name, path, off, want);
        free(path);
        return st;
    }
    free(path);
    unsigned char *b = malloc(want ? want : 1);
    if (b == NULL) {
        fclose(f);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    if (fseeko(f, (off_t)off, SEEK_SET) != 0 || (want && fread(b, 1, want, f) != want)) {
        fclose(f);
        free(b);
        return nnc_err(err, errlen, NNC_STATUS_IO, "tensor '%s': external data read failed", t->name);
    }
    fclose(f);
    *out = b;
    return NNC_STATUS_OK;
}

static double le_float(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double le_double(const unsigned char *p)
{
    uint64_t u = 0;
    for (int k = 7; k >= 0; k--) u = u << 8 | p[k];
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static int64_t le_int(const unsigned char *p, nnc_dtype t)
{
    uint64_t u = 0;
    size_t n = nnc_dtype_size(t);
    for (int k = (int)n - 1; k >= 0; k--) u = u << 8 | p[k];
    switch (t) {
    case NNC_DTYPE_INT8: return (int8_t)u;
    case NNC_DTYPE_INT16: return (int16_t)u;
    case NNC_DTYPE_INT32: return (int32_t)u;
    case NNC_DTYPE_BOOL: return u != 0;
    default: return (int64_t)u;
    }
}

/* Convert a TensorProto's payload into a value's f/i arrays.
 * Out: v->dtype, rank, dims, numel, f or i. */
static nnc_status tensor_from_proto(nnc_value *v, const Onnx__TensorProto *t, const char *basedir,
                                    char *err, size_t errlen)
{
    const char *name = (t->name && *t->name) ? t->name : "(unnamed)";
    int32_t dt = t->has_data_type ? t->data_type : 0;
    if (!dtype_supported(dt))
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "tensor '%s': element type %s is not supported",
                       name, onnx_type_name(dt));
    if (t->segment)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "tensor '%s': segmented tensors are not supported", name);
    if (t->n_dims > NNC_MAX_RANK)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "tensor '%s': rank %zu exceeds the maximum %d",
                       name, t->n_dims, NNC_MAX_RANK);
    nnc_dtype type = (nnc_dtype)dt;
    size_t es = nnc_dtype_size(type);
    v->dtype = type;
    v->rank = (int)t->n_dims;
    for (size_t d = 0; d < t->n_dims; d++) {
        if (t->dims[d] < 0)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "tensor '%s': negative dimension %lld",
                           name, (long long)t->dims[d]);
        v->dims[d] = t->dims[d];
    }
    int64_t n;
    if (nnc_shape_numel(v->rank, v->dims, es, &n) != 0)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "tensor '%s': declared size exceeds the %llu-byte tensor limit",
                       name, (unsigned long long)nnc_max_tensor_bytes());
    v->numel = n;
    size_t want = (size_t)n * es;

    const unsigned char *raw = NULL;
    unsigned char *ext = NULL;
    int external = (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
    if (external) {
        nnc_status st = read_external(t, basedir, want, &ext, err, errlen);
        if (st) return st;
        raw = ext;
    } else if (t->has_raw_data) {
        if (t->raw_data.len != want)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "tensor '%s': raw_data has %zu bytes, shape and type need %zu",
                           name, t->raw_data.len, want);
        raw = t->raw_data.data;
    }

    int is_float = nnc_dtype_is_float(type);
    size_t alloc = (size_t)(n ? n : 1) * 8;
    if (is_float) v->f = malloc(alloc);
    else v->i = malloc(alloc);
    if ((is_float && !v->f) || (!is_float && !v->i)) {
        free(ext);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "tensor '%s': out of memory", name);
    }
    if (raw != NULL) {
        for (int64_t k = 0; k < n; k++) {
            const unsigned char *p = raw + (size_t)k * es;
            if (type == NNC_DTYPE_FLOAT) v->f[k] = le_float(p);
            else if (type == NNC_DTYPE_DOUBLE) v->f[k] = le_double(p);
            else v->i[k] = le_int(p, type);
        }
        free(ext);
        return NNC_STATUS_OK;
    }
    /* Typed fields. */
    size_t have;
    switch (type) {
    case NNC_DTYPE_FLOAT: have = t->n_float_data; break;
    case NNC_DTYPE_DOUBLE: have = t->n_double_data; break;
    case NNC_DTYPE_INT64: have = t->n_int64_data; break;
    case NNC_DTYPE_UINT32: case NNC_DTYPE_UINT64: have = t->n_uint64_data; break;
    default: have = t->n_int32_data; break;
    }
    if (have != (size_t)n)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "tensor '%s': has %zu stored elements, shape needs %lld",
                       name, have, (long long)n);
    for (int64_t k = 0; k < n; k++) {
        switch (type) {
        case NNC_DTYPE_FLOAT: v->f[k] = t->float_data[k]; break;
        case NNC_DTYPE_DOUBLE: v->f[k] = t->double_data[k]; break;
        case NNC_DTYPE_INT64: v->i[k] = t->int64_data[k]; break;
        case NNC_DTYPE_UINT32: case NNC_DTYPE_UINT64: v->i[k] = (int64_t)t->uint64_data[k]; break;
        case NNC_DTYPE_BOOL: v->i[k] = t->int32_data[k] != 0; break;
        default: v->i[k] = t->int32_data[k]; break;
        }
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_tensor_parse_pb(nnc_tensor *out, const void *buf, size_t len, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, buf);
    if (t == NULL) return nnc_err(err, errlen, NNC_STATUS_PARSE, "not a serialized ONNX TensorProto");
    nnc_value v;
    memset(&v, 0, sizeof v);
    nnc_status st = tensor_from_proto(&v, t, NULL, err, errlen);
    onnx__tensor_proto__free_unpacked(t, NULL);
    if (st) {
        nnc_value_free_payload(&v);
        return st;
    }
    out->dtype = v.dtype;
    out->rank = v.rank;
    memcpy(out->dims, v.dims, sizeof v.dims);
    out->numel = v.numel;
    out->f = v.f;
    out->i = v.i;
    return NNC_STATUS_OK;
}

/* Sparse initializer -> CSR (2-D) after validating indices. */
static nnc_status sparse_from_proto(nnc_value *v, const Onnx__SparseTensorProto *sp, const char *basedir,
                                    char *err, size_t errlen)
{
    if (sp->values == NULL || sp->indices == NULL)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "sparse_initializer: values or indices missing");
    const char *name = (sp->values->name && *sp->values->name) ? sp->values->name : "(unnamed)";
    if (sp->n_dims != 2)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "sparse_initializer '%s': rank %zu, only 2-D sparse tensors are supported",
                       name, sp->n_dims);
    nnc_value vals, idx;
    memset(&vals, 0, sizeof vals);
    memset(&idx, 0, sizeof idx);
    nnc_status st = tensor_from_proto(&vals, sp->values, basedir, err, errlen);
    if (st == NNC_STATUS_OK) st = tensor_from_proto(&idx, sp->indices, basedir, err, errlen);
    if (st) goto done;
    int64_t rows = sp->dims[0], cols = sp->dims[1];
    int64_t nnz = vals.numel;
    if (!nnc_dtype_is_float(vals.dtype)) {
        st = nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "sparse_initializer '%s': values must be float or double", name);
        goto done;
    }
    int64_t tot;
    int64_t dd[2] = {rows, cols};
    if (rows < 0 || cols < 0 || nnc_shape_numel(2, dd, 0, &tot) != 0 ||
        (uint64_t)rows + 1 > nnc_max_tensor_bytes() / 8) {
        st = nnc_err(err, errlen, NNC_STATUS_LIMIT, "sparse_initializer '%s': bad or too large dims", name);
        goto done;
    }
    if (vals.rank != 1 || idx.dtype != NNC_DTYPE_INT64 ||
        !((idx.rank == 1 && idx.dims[0] == nnz) || (idx.rank == 2 && idx.dims[0] == nnz && idx.dims[1] == 2))) {
        st = nnc_err(err, errlen, NNC_STATUS_INVALID, "sparse_initializer '%s': indices must be int64 [NNZ] or [NNZ,2] with NNZ = %lld values",
                     name, (long long)nnz);
        goto done;
    }
    nnc_csr *c = calloc(1, sizeof *c);
    if (c == NULL) { st = NNC_STATUS_NOMEM; goto done; }
    v->sparse = c;
    c->rows = rows;
    c->cols = cols;
    c->nnz = nnz;
    c->row_ptr = calloc((size_t)rows + 1, sizeof(int64_t));
    c->col = malloc((size_t)(nnz ? nnz : 1) * sizeof(int64_t));
    c->val = vals.f;
    vals.f = NULL;
    if (!c->row_ptr || !c->col) { st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory"); goto done; }
    int64_t prev = -1;
    for (int64_t k = 0; k < nnz; k++) {
        int64_t r, cc, lin;
        if (idx.rank == 1) {
            lin = idx.i[k];
            if (lin < 0 || (cols == 0) || lin / cols >= rows) goto range;
            r = lin / cols;
            cc = lin % cols;
        } else {
            r = idx.i[2 * k];
            cc = idx.i[2 * k + 1];
            if (r < 0 || r >= rows || cc < 0 || cc >= cols) goto range;
            lin = r * cols + cc;
        }
        if (lin <= prev) {
            st = nnc_err(err, errlen, NNC_STATUS_INVALID, "sparse_initializer '%s': index %lld is %s",
                         name, (long long)k, lin == prev ? "a duplicate" : "out of order (indices must be sorted)");
            goto done;
        }
        prev = lin;
        c->row_ptr[r + 1]++;
        c->col[k] = cc;
        continue;
    range:
        st = nnc_err(err, errlen, NNC_STATUS_INVALID, "sparse_initializer '%s': index %lld is outside the %lldx%lld shape",
                     name, (long long)k, (long long)rows, (long long)cols);
        goto done;
    }
    for (int64_t r = 0; r < rows; r++) c->row_ptr[r + 1] += c->row_ptr[r];
    v->dtype = vals.dtype;
    v->rank = 2;
    v->dims[0] = rows;
    v->dims[1] = cols;
    v->numel = tot;
done:
    nnc_value_free_payload(&vals);
    nnc_value_free_payload(&idx);
    return st;
}

/* ------------------------------------------------------------ the graph */

static nnc_status set_type_from_valueinfo(nnc_value *v, const Onnx__ValueInfoProto *vi, char *err, size_t errlen)
{
    if (vi->type == NULL || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || vi->type->tensor_type == NULL)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "graph input '%s': only tensor types are supported", v->name);
    const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
    int32_t dt = tt->has_elem_type ? tt->elem_type : 0;
    if (!dtype_supported(dt))
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "graph input '%s': element type %s is not supported",
                       v->name, onnx_type_name(dt));
    v->dtype = (nnc_dtype)dt;
    if (tt->shape == NULL)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "graph input '%s': no shape declared (static shapes are required)", v->name);
    if (tt->shape->n_dim > NNC_MAX_RANK)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "graph input '%s': rank %zu exceeds the maximum %d",
                       v->name, tt->shape->n_dim, NNC_MAX_RANK);
    v->rank = (int)tt->shape->n_dim;
    for (int d = 0; d < v->rank; d++) {
        const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];
        if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (dim->dim_value < 0)
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "graph input '%s': negative dimension %lld",
                               v->name, (long long)dim->dim_value);
            v->dims[d] = dim->dim_value;
        } else {
            if (d != 0)
                return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED,
                               "graph input '%s': symbolic dimension %d (only the leading batch dimension may be symbolic)",
                               v->name, d);
            v->dims[d] = 1;
            v->dynamic_leading = 1;
        }
    }
    if (nnc_shape_numel(v->rank, v->dims, nnc_dtype_size(v->dtype), &v->numel) != 0)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "graph input '%s': declared size exceeds the %llu-byte tensor limit",
                       v->name, (unsigned long long)nnc_max_tensor_bytes());
    return NNC_STATUS_OK;
}

static nnc_status copy_attr(nnc_attr *a, const Onnx__AttributeProto *ap, const char *node, char *err, size_t errlen)
{
    a->name = nnc_strdup(ap->name);
    if (a->name == NULL) return NNC_STATUS_NOMEM;
    int type = ap->has_type ? (int)ap->type : 0;
    if (!ap->has_type) { /* IR < 3 files may omit the type: infer it */
        if (ap->has_f) type = NNC_ATTR_FLOAT;
        else if (ap->has_i) type = NNC_ATTR_INT;
        else if (ap->has_s) type = NNC_ATTR_STRING;
        else if (ap->t) type = NNC_ATTR_TENSOR;
        else if (ap->n_floats) type = NNC_ATTR_FLOATS;
        else if (ap->n_ints) type = NNC_ATTR_INTS;
    }
    a->type = (nnc_attr_type)type;
    switch (type) {
    case NNC_ATTR_FLOAT: a->f = ap->f; break;
    case NNC_ATTR_INT: a->i = ap->i; break;
    case NNC_ATTR_STRING:
        a->s = malloc(ap->s.len + 1);
        if (a->s == NULL) return NNC_STATUS_NOMEM;
        if (ap->s.len) memcpy(a->s, ap->s.data, ap->s.len);
        a->s[ap->s.len] = 0;
        break;
    case NNC_ATTR_FLOATS:
        if (ap->n_floats > 1u << 20) return nnc_err(err, errlen, NNC_STATUS_LIMIT, "node '%s': attribute '%s' too long", node, a->name);
        a->n = (int)ap->n_floats;
        a->floats = malloc((ap->n_floats ? ap->n_floats : 1) * sizeof(double));
        if (a->floats == NULL) return NNC_STATUS_NOMEM;
        for (size_t k = 0; k < ap->n_floats; k++) a->floats[k] = ap->floats[k];
        break;
    case NNC_ATTR_INTS:
        if (ap->n_ints > 1u << 20) return nnc_err(err, errlen, NNC_STATUS_LIMIT, "node '%s': attribute '%s' too long", node, a->name);
        a->n = (int)ap->n_ints;
        a->ints = malloc((ap->n_ints ? ap->n_ints : 1) * sizeof(int64_t));
        if (a->ints == NULL) return NNC_STATUS_NOMEM;
        if (ap->n_ints) memcpy(a->ints, ap->ints, ap->n_ints * sizeof(int64_t));
        break;
    case NNC_ATTR_TENSOR: {
        if (ap->t == NULL) return nnc_err(err, errlen, NNC_STATUS_INVALID, "node '%s': tensor attribute '%s' is empty", node, a->name);
        a->t = calloc(1, sizeof *a->t);
        if (a->t == NULL) return NNC_STATUS_NOMEM;
        a->t->kind = NNC_VAL_CONST;
        a->t->producer = -1;
        nnc_status st = tensor_from_proto(a->t, ap->t, NULL, err, errlen);
        if (st) return st;
        break;
    }
    case NNC_ATTR_STRINGS:
        break; /* kept by name only; no supported operator reads one */
    default:
        break; /* graphs, sparse tensors, type protos: ignored (no supported op uses them) */
    }
    return NNC_STATUS_OK;
}

static nnc_status build_graph(nnc_model *m, const Onnx__ModelProto *mp, const char *basedir, char *err, size_t errlen)
{
    const Onnx__GraphProto *g = mp->graph;
    nnc_status st;
    m->ir_version = mp->has_ir_version ? mp->ir_version : 0;
    m->producer = nnc_strdup(mp->producer_name);
    m->opset = -1;
    for (size_t k = 0; k < mp->n_opset_import; k++) {
        const char *dom = mp->opset_import[k]->domain ? mp->opset_import[k]->domain : "";
        if (strcmp(dom, "") == 0 || strcmp(dom, "ai.onnx") == 0)
            m->opset = mp->opset_import[k]->has_version ? mp->opset_import[k]->version : 1;
    }
    if (m->opset < 0) {
        /* A graph of another domain's operators only (e.g. ai.onnx.preview.training)
         * is valid ONNX that nncert does not support; say so before the opset. */
        for (size_t k = 0; k < g->n_node; k++) {
            const char *dom = g->node[k]->domain ? g->node[k]->domain : "";
            if (*dom && strcmp(dom, "ai.onnx") != 0)
                return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED,
                               "node %zu: operator %s of domain '%s' is not supported (only the default ONNX domain)", k,
                               g->node[k]->op_type ? g->node[k]->op_type : "?", dom);
        }
        if (mp->n_opset_import == 0 && m->ir_version < 3) m->opset = NNC_MIN_OPSET; /* IR 1-2 had no opset_import */
        else return nnc_err(err, errlen, NNC_STATUS_INVALID, "model imports no version of the default ONNX operator set");
    }
    if (m->opset < NNC_MIN_OPSET || m->opset > NNC_MAX_OPSET)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "opset %lld is not supported (nncert supports opsets %d to %d)",
                       (long long)m->opset, NNC_MIN_OPSET, NNC_MAX_OPSET);
    if (g->n_node > 1000000 || g->n_initializer > 1000000 || g->n_input > 100000)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "graph has too many nodes or tensors");

    /* Initializers and sparse initializers: constants. */
    for (size_t k = 0; k < g->n_initializer; k++) {
        const Onnx__TensorProto *t = g->initializer[k];
        if (t->name == NULL || !*t->name)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "initializer %zu has no name", k);
        if (nnc_mdl_find_value(m, t->name) >= 0)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "initializer '%s' is defined twice", t->name);
        int vi = nnc_mdl_add_value(m, t->name);
        if (vi < 0) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        m->vals[vi].kind = NNC_VAL_CONST;
        if ((st = tensor_from_proto(&m->vals[vi], t, basedir, err, errlen))) return st;
    }
    for (size_t k = 0; k < g->n_sparse_initializer; k++) {
        const Onnx__SparseTensorProto *sp = g->sparse_initializer[k];
        const char *name = sp->values && sp->values->name ? sp->values->name : "";
        if (!*name) return nnc_err(err, errlen, NNC_STATUS_INVALID, "sparse_initializer %zu has no name", k);
        if (nnc_mdl_find_value(m, name) >= 0)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "initializer '%s' is defined twice", name);
        int vi = nnc_mdl_add_value(m, name);
        if (vi < 0) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        m->vals[vi].kind = NNC_VAL_CONST;
        if ((st = sparse_from_proto(&m->vals[vi], sp, basedir, err, errlen))) return st;
    }
    /* Graph inputs that are not initializers. */
    m->inputs = malloc((g->n_input ? g->n_input : 1) * sizeof(int));
    if (m->inputs == NULL) return NNC_STATUS_NOMEM;
    for (size_t k = 0; k < g->n_input; k++) {
        const Onnx__ValueInfoProto *vi = g->input[k];
        if (vi->name == NULL || !*vi->name) return nnc_err(err, errlen, NNC_STATUS_INVALID, "graph input %zu has no name", k);
        int idx = nnc_mdl_find_value(m, vi->name);
        if (idx >= 0) {
            if (m->vals[idx].kind == NNC_VAL_CONST) continue; /* initializer given as default */
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "graph input '%s' is declared twice", vi->name);
        }
        idx = nnc_mdl_add_value(m, vi->name);
        if (idx < 0) return NNC_STATUS_NOMEM;
        m->vals[idx].kind = NNC_VAL_INPUT;
        if ((st = set_type_from_valueinfo(&m->vals[idx], vi, err, errlen))) return st;
        m->inputs[m->n_inputs++] = idx;
    }
    /* Nodes. */
    m->nodes = calloc(g->n_node ? g->n_node : 1, sizeof(nnc_node));
    if (m->nodes == NULL) return NNC_STATUS_NOMEM;
    for (size_t k = 0; k < g->n_node; k++) {
        const Onnx__NodeProto *np = g->node[k];
        nnc_node *n = &m->nodes[m->n_nodes++];
        char fallback[32];
        snprintf(fallback, sizeof fallback, "#%zu", k);
        n->name = nnc_strdup(np->name && *np->name ? np->name : fallback);
        n->op_type = nnc_strdup(np->op_type);
        if (!n->name || !n->op_type) return NNC_STATUS_NOMEM;
        const char *dom = np->domain ? np->domain : "";
        if (*dom && strcmp(dom, "ai.onnx") != 0)
            return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "node '%s': operator %s of domain '%s' is not supported (only the default ONNX domain)",
                           n->name, n->op_type, dom);
        n->op = nnc_op_lookup(n->op_type);
        if (n->op == NNC_OP_COUNT)
            return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "node '%s': operator %s is not supported; supported: %s",
                           n->name, n->op_type, nnc_mdl_supported_ops());
        if (np->n_input > NNC_MAX_NODE_IO || np->n_output > NNC_MAX_NODE_IO || np->n_output == 0)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "node '%s': bad number of inputs or outputs", n->name);
        n->n_in = (int)np->n_input;
        n->n_out = (int)np->n_output;
        n->in = malloc(((size_t)n->n_in + 1) * sizeof(int));
        n->out = malloc((size_t)n->n_out * sizeof(int));
        n->attrs = calloc(np->n_attribute ? np->n_attribute : 1, sizeof(nnc_attr));
        if (!n->in || !n->out || !n->attrs) return NNC_STATUS_NOMEM;
        for (size_t a = 0; a < np->n_attribute; a++) {
            n->n_attrs++;
            if ((st = copy_attr(&n->attrs[a], np->attribute[a], n->name, err, errlen))) {
                if (st == NNC_STATUS_NOMEM) nnc_err(err, errlen, st, "out of memory");
                return st;
            }
        }
        for (int o = 0; o < n->n_out; o++) {
            const char *on = np->output[o] ? np->output[o] : "";
            if (!*on) { n->out[o] = -1; continue; } /* omitted optional output */
            int idx = nnc_mdl_find_value(m, on);
            if (idx >= 0)
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "node '%s': output '%s' is already defined elsewhere", n->name, on);
            idx = nnc_mdl_add_value(m, on);
            if (idx < 0) return NNC_STATUS_NOMEM;
            m->vals[idx].kind = NNC_VAL_NODE;
            m->vals[idx].producer = (int)k;
            n->out[o] = idx;
        }
        if (n->out[0] < 0) return nnc_err(err, errlen, NNC_STATUS_INVALID, "node '%s': first output has no name", n->name);
    }
    /* Resolve node inputs now that every producer is known (file order need
     * not be topological; the order is computed in prepare). */
    for (size_t k = 0; k < g->n_node; k++) {
        const Onnx__NodeProto *np = g->node[k];
        nnc_node *n = &m->nodes[k];
        for (int i = 0; i < n->n_in; i++) {
            const char *in = np->input[i] ? np->input[i] : "";
            if (!*in) { n->in[i] = -1; continue; }
            int idx = nnc_mdl_find_value(m, in);
            if (idx < 0)
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "node '%s': input '%s' is not produced by any node, initializer or graph input",
                               n->name, in);
            n->in[i] = idx;
        }
    }
    if (g->n_output == 0) return nnc_err(err, errlen, NNC_STATUS_INVALID, "graph declares no outputs");
    m->outputs = malloc(g->n_output * sizeof(int));
    if (m->outputs == NULL) return NNC_STATUS_NOMEM;
    for (size_t k = 0; k < g->n_output; k++) {
        const char *on = g->output[k]->name ? g->output[k]->name : "";
        int idx = nnc_mdl_find_value(m, on);
        if (idx < 0) return nnc_err(err, errlen, NNC_STATUS_INVALID, "graph output '%s' is not produced by any node", on);
        m->vals[idx].is_output = 1;
        m->outputs[m->n_outputs++] = idx;
        /* a declared symbolic leading dimension ('N'): nnc_mdl_output_info
         * reports it when the per-sample shape leads with 1 */
        const Onnx__TypeProto *ty = g->output[k]->type;
        if (ty && ty->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && ty->tensor_type && ty->tensor_type->shape &&
            ty->tensor_type->shape->n_dim >= 1 &&
            ty->tensor_type->shape->dim[0]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            m->vals[idx].kind != NNC_VAL_CONST)
            m->vals[idx].dynamic_leading = 1;
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_mdl_parse(nnc_model **out, const void *buf, size_t len, const char *basedir, char *err, size_t errlen)
{
    *out = NULL;
    if (len == 0) return nnc_err(err, errlen, NNC_STATUS_PARSE, "empty file: not an ONNX model");
    if (len >= 2 && ((const unsigned char *)buf)[0] == 0x1f && ((const unsigned char *)buf)[1] == 0x8b)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "gzip-compressed, not an ONNX model: decompress it first (gzip -dk)");
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, buf);
    if (mp == NULL)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "not an ONNX model: protobuf decoding failed (truncated or not a ModelProto)");
    if (mp->graph == NULL) {
        onnx__model_proto__free_unpacked(mp, NULL);
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "not an ONNX model: no graph");
    }
    nnc_model *m = calloc(1, sizeof *m);
    if (m == NULL) {
        onnx__model_proto__free_unpacked(mp, NULL);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    crypto_hash_sha256(m->sha256, buf, len);
    nnc_status st = build_graph(m, mp, basedir, err, errlen);
    onnx__model_proto__free_unpacked(mp, NULL);
    if (st) {
        if (st == NNC_STATUS_NOMEM) nnc_err(err, errlen, st, "out of memory while loading the model");
        nnc_mdl_destroy(m);
        return st;
    }
    *out = m;
    return NNC_STATUS_OK;
}

nnc_status nnc_mdl_parse_file(nnc_model **out, const char *path, char *err, size_t errlen)
{
    unsigned char *buf;
    size_t len;
    *out = NULL;
    nnc_status st = nnc_read_file(path, NNC_MAX_MODEL_BYTES, &buf, &len, err, errlen);
    if (st) return st;
    char *dir = nnc_strdup(path);
    if (dir == NULL) {
        free(buf);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else strcpy(dir, ".");
    char inner[NNC_ERRBUF_SIZE] = "";
    st = nnc_mdl_parse(out, buf, len, dir, inner, sizeof inner);
    if (st) nnc_err(err, errlen, st, "%s: %s", path, inner);
    free(dir);
    free(buf);
    return st;
}

