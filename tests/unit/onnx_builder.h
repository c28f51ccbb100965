/* In-memory ONNX model builder for the unit tests, on the protobuf-c
 * bindings generated from Debian's onnx.proto.  The protobuf messages are
 * carved from a static pool (never freed: each test runs in its own forked
 * process), so LeakSanitizer has nothing to report for them. */
#ifndef NNC_TEST_ONNX_BUILDER_H
#define NNC_TEST_ONNX_BUILDER_H

#include "nncert/model.h"
#include "onnx.pb-c.h"

#include <stdlib.h>
#include <string.h>

#define MB_POOL_BYTES ((size_t)32 << 20)
static unsigned char mb_pool[MB_POOL_BYTES];
static size_t mb_pool_used;

/* Zeroed memory from the pool; aborts when it runs out. */
static inline void *mb_calloc(size_t n, size_t size)
{
    size_t bytes = (n * size + 15) & ~(size_t)15;
    if (bytes == 0) bytes = 16;
    if (MB_POOL_BYTES - mb_pool_used < bytes) abort();
    void *p = mb_pool + mb_pool_used;
    mb_pool_used += bytes;
    memset(p, 0, bytes);
    return p;
}


typedef struct mb {
    Onnx__ModelProto model;
    Onnx__GraphProto graph;
    Onnx__OperatorSetIdProto opset;
    Onnx__OperatorSetIdProto *opsets[1];
    Onnx__NodeProto *nodes[16];
    Onnx__TensorProto *inits[16];
    Onnx__SparseTensorProto *sparse[4];
    Onnx__ValueInfoProto *inputs[4], *outputs[4];
} mb;

static inline void mb_init(mb *b, int64_t opset)
{
    memset(b, 0, sizeof *b);
    onnx__model_proto__init(&b->model);
    onnx__graph_proto__init(&b->graph);
    onnx__operator_set_id_proto__init(&b->opset);
    b->opset.domain = "";
    b->opset.has_version = 1;
    b->opset.version = opset;
    b->opsets[0] = &b->opset;
    b->model.has_ir_version = 1;
    b->model.ir_version = 8;
    b->model.n_opset_import = 1;
    b->model.opset_import = b->opsets;
    b->model.graph = &b->graph;
    b->graph.node = b->nodes;
    b->graph.initializer = b->inits;
    b->graph.sparse_initializer = b->sparse;
    b->graph.input = b->inputs;
    b->graph.output = b->outputs;
}

static inline Onnx__ValueInfoProto *vinfo(const char *name, int32_t type, int rank, const int64_t *dims)
{
    Onnx__ValueInfoProto *v = mb_calloc(1, sizeof *v);
    Onnx__TypeProto *t = mb_calloc(1, sizeof *t);
    Onnx__TypeProto__Tensor *tt = mb_calloc(1, sizeof *tt);
    Onnx__TensorShapeProto *s = mb_calloc(1, sizeof *s);
    onnx__value_info_proto__init(v);
    onnx__type_proto__init(t);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(s);
    s->n_dim = (size_t)rank;
    s->dim = mb_calloc((size_t)rank + 1, sizeof *s->dim);
    for (int d = 0; d < rank; d++) {
        Onnx__TensorShapeProto__Dimension *dim = mb_calloc(1, sizeof *dim);
        onnx__tensor_shape_proto__dimension__init(dim);
        if (dims[d] < 0) {
            dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            dim->dim_param = "N";
        } else {
            dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dim->dim_value = dims[d];
        }
        s->dim[d] = dim;
    }
    tt->has_elem_type = 1;
    tt->elem_type = type;
    tt->shape = s;
    t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    t->tensor_type = tt;
    v->name = (char *)name;
    v->type = t;
    return v;
}

static inline void mb_input(mb *b, const char *name, int rank, const int64_t *dims)
{
    b->inputs[b->graph.n_input++] = vinfo(name, 1, rank, dims);
}

static inline void mb_output(mb *b, const char *name)
{
    int64_t d[1] = {1};
    b->outputs[b->graph.n_output++] = vinfo(name, 1, 0, d);
}

static inline Onnx__TensorProto *tensor(const char *name, int rank, const int64_t *dims)
{
    Onnx__TensorProto *t = mb_calloc(1, sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    t->n_dims = (size_t)rank;
    t->dims = mb_calloc((size_t)rank + 1, sizeof(int64_t));
    memcpy(t->dims, dims, (size_t)rank * sizeof(int64_t));
    t->has_data_type = 1;
    t->data_type = 1;
    return t;
}

static inline Onnx__TensorProto *tensor_floats(const char *name, int rank, const int64_t *dims, const float *v, size_t n)
{
    Onnx__TensorProto *t = tensor(name, rank, dims);
    t->n_float_data = n;
    t->float_data = mb_calloc(n + 1, sizeof(float));
    memcpy(t->float_data, v, n * sizeof(float));
    return t;
}

static inline Onnx__TensorProto *tensor_raw(const char *name, int rank, const int64_t *dims, const float *v, size_t n)
{
    Onnx__TensorProto *t = tensor(name, rank, dims);
    t->has_raw_data = 1;
    t->raw_data.len = n * 4;
    t->raw_data.data = mb_calloc(n * 4 + 1, 1);
    for (size_t k = 0; k < n; k++) {
        uint32_t u;
        memcpy(&u, &v[k], 4);
        for (int j = 0; j < 4; j++) t->raw_data.data[4 * k + j] = (uint8_t)(u >> (8 * j)); /* little-endian */
    }
    return t;
}

static inline Onnx__TensorProto *tensor_i64(const char *name, int rank, const int64_t *dims, const int64_t *v, size_t n)
{
    Onnx__TensorProto *t = tensor(name, rank, dims);
    t->data_type = 7;
    t->n_int64_data = n;
    t->int64_data = mb_calloc(n + 1, sizeof(int64_t));
    memcpy(t->int64_data, v, n * sizeof(int64_t));
    return t;
}

static inline Onnx__NodeProto *node(const char *op, const char *name, int nin, const char **in, int nout, const char **out)
{
    Onnx__NodeProto *n = mb_calloc(1, sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = (char *)op;
    n->name = (char *)name;
    n->n_input = (size_t)nin;
    n->input = (char **)in;
    n->n_output = (size_t)nout;
    n->output = (char **)out;
    return n;
}

static inline Onnx__AttributeProto *attr_int(const char *name, int64_t v)
{
    Onnx__AttributeProto *a = mb_calloc(1, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    a->has_i = 1;
    a->i = v;
    return a;
}

static inline void node_attr(Onnx__NodeProto *n, Onnx__AttributeProto *a)
{
    Onnx__AttributeProto **arr = mb_calloc(n->n_attribute + 1, sizeof *arr);
    if (n->n_attribute) memcpy(arr, n->attribute, n->n_attribute * sizeof *arr);
    arr[n->n_attribute++] = a;
    n->attribute = arr;
}

static inline unsigned char *mb_pack(mb *b, size_t *len)
{
    *len = onnx__model_proto__get_packed_size(&b->model);
    unsigned char *buf = malloc(*len + 1); /* the caller frees it */
    onnx__model_proto__pack(&b->model, buf);
    return buf;
}

/* Parse+prepare from a builder; returns status, fills err. */
static inline nnc_status mb_load(mb *b, nnc_model **m, char *err, size_t errlen)
{
    size_t len;
    unsigned char *buf = mb_pack(b, &len);
    nnc_status st = nnc_mdl_parse(m, buf, len, NULL, err, errlen);
    free(buf);
    if (st) return st;
    st = nnc_mdl_prepare(*m, NULL, err, errlen);
    if (st) {
        nnc_mdl_destroy(*m);
        *m = NULL;
    }
    return st;
}


/* x [1, nin] -> Gemm(W1 [nh, nin], b1) -> act ("Relu", "Sigmoid", ...) ->
 * Gemm(W2 [nout, nh], b2) -> y; returns mb_load's status. */
static inline nnc_status mb_mlp1(nnc_model **out, int64_t nin, int64_t nh, int64_t nout, const float *W1, const float *B1,
                                 const char *act, const float *W2, const float *B2, char *err, size_t errlen)
{
    static const char *g1i[3] = {"x", "W1", "b1"}, *g1o[1] = {"h"}, *ri[1] = {"h"}, *ro[1] = {"a"},
                      *g2i[3] = {"a", "W2", "b2"}, *g2o[1] = {"y"};
    int64_t xd[2] = {1, nin}, w1d[2] = {nh, nin}, b1d[1] = {nh}, w2d[2] = {nout, nh}, b2d[1] = {nout};
    mb m;
    mb_init(&m, 13);
    mb_input(&m, "x", 2, xd);
    mb_output(&m, "y");
    m.inits[0] = tensor_floats("W1", 2, w1d, W1, (size_t)(nh * nin));
    m.inits[1] = tensor_floats("b1", 1, b1d, B1, (size_t)nh);
    m.inits[2] = tensor_floats("W2", 2, w2d, W2, (size_t)(nout * nh));
    m.inits[3] = tensor_floats("b2", 1, b2d, B2, (size_t)nout);
    m.graph.n_initializer = 4;
    m.nodes[0] = node("Gemm", "g1", 3, g1i, 1, g1o);
    node_attr(m.nodes[0], attr_int("transB", 1));
    m.nodes[1] = node(act, "r", 1, ri, 1, ro);
    m.nodes[2] = node("Gemm", "g2", 3, g2i, 1, g2o);
    node_attr(m.nodes[2], attr_int("transB", 1));
    m.graph.n_node = 3;
    return mb_load(&m, out, err, errlen);
}

static inline Onnx__AttributeProto *attr_ints(const char *name, int n, const int64_t *v)
{
    Onnx__AttributeProto *a = mb_calloc(1, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    a->n_ints = (size_t)n;
    a->ints = mb_calloc((size_t)n + 1, sizeof(int64_t));
    memcpy(a->ints, v, (size_t)n * sizeof(int64_t));
    return a;
}

static inline Onnx__AttributeProto *attr_str(const char *name, const char *v)
{
    Onnx__AttributeProto *a = mb_calloc(1, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    a->has_s = 1;
    a->s.len = strlen(v);
    a->s.data = (uint8_t *)v;
    return a;
}

static inline Onnx__AttributeProto *attr_float(const char *name, float v)
{
    Onnx__AttributeProto *a = mb_calloc(1, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    a->has_f = 1;
    a->f = v;
    return a;
}

#endif
