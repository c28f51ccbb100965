/* Internal IR of the models module.  Not part of the public API. */
#ifndef NNC_MODEL_IMPL_H
#define NNC_MODEL_IMPL_H

#include "nncert/model.h"

/* Compressed sparse rows of a 2-D constant.  Invariants (checked at load):
 * row_ptr[0] = 0, row_ptr non-decreasing, row_ptr[rows] = nnz, column
 * indices strictly increasing within a row and < cols. */
typedef struct nnc_csr {
    int64_t rows, cols, nnz;
    int64_t *row_ptr; /* rows + 1 */
    int64_t *col;     /* nnz */
    double *val;      /* nnz, exact copies of the stored values */
} nnc_csr;

typedef enum nnc_val_kind {
    NNC_VAL_INPUT = 0, /* graph input, fed per sample by the runtime */
    NNC_VAL_CONST = 1, /* initializer or folded value, one copy for all samples */
    NNC_VAL_NODE = 2   /* produced by a node at run time */
} nnc_val_kind;

/* A named tensor of the graph. */
typedef struct nnc_value {
    char *name;
    nnc_dtype dtype;
    int rank;                   /* -1 while unknown */
    int64_t dims[NNC_MAX_RANK]; /* per sample */
    int64_t numel;
    int dynamic_leading;        /* graph inputs and outputs: dims[0] was declared
                                   symbolic (a dim_param) in the file */
    nnc_val_kind kind;
    int producer;               /* node index for NNC_VAL_NODE, else -1 */
    int is_output;
    /* Constant payload (kind == NNC_VAL_CONST), exactly one of: */
    double *f;                  /* float types: numel values; stored weights exactly
                                   (a FLOAT's are float-representable), values
                                   folded at prepare time as computed in double */
    int64_t *i;                 /* integer and bool types: numel values */
    nnc_csr *sparse;            /* sparse 2-D float constant */
} nnc_value;

typedef enum nnc_attr_type {
    NNC_ATTR_FLOAT = 1, NNC_ATTR_INT = 2, NNC_ATTR_STRING = 3, NNC_ATTR_TENSOR = 4,
    NNC_ATTR_FLOATS = 6, NNC_ATTR_INTS = 7, NNC_ATTR_STRINGS = 8
} nnc_attr_type;

typedef struct nnc_attr {
    char *name;
    nnc_attr_type type;
    double f;
    int64_t i;
    char *s;
    int n;              /* count for FLOATS / INTS */
    double *floats;
    int64_t *ints;
    nnc_value *t;       /* TENSOR: a detached constant value (owned) */
} nnc_attr;

/* Operator codes; the table in ops.c is indexed by them. */
typedef enum nnc_op {
#define NNC_OP(code, name) NNC_OP_##code,
#include "models/ops_list.h"
#undef NNC_OP
    NNC_OP_COUNT
} nnc_op;

#define NNC_MAX_NODE_IO 64

typedef struct nnc_node {
    char *name;
    char *op_type;
    nnc_op op;
    int n_in, n_out;
    int *in;            /* value indices; -1 for an omitted optional input */
    int *out;
    int n_attrs;
    nnc_attr *attrs;
    int dead;           /* removed by folding / dead-code elimination */
    /* Parsed, op-specific parameters filled by shape inference. */
    int64_t p[4 * NNC_MAX_RANK + 8];
    double fp[4];
} nnc_node;

struct nnc_model {
    nnc_value *vals;
    int n_vals, cap_vals;
    nnc_node *nodes;
    int n_nodes;
    int *order;         /* live nodes in topological order (after prepare) */
    int n_order;
    int *inputs, n_inputs;     /* value indices of non-constant graph inputs */
    int *outputs, n_outputs;
    int64_t opset;
    int64_t ir_version;
    char *producer;
    uint8_t sha256[32];
    int prepared;
};

/* Helpers shared by the module's files (models/ir.c, the IR's primitives,
 * which call nothing else of models/). */
/* Returns: a malloc'd copy of s ("" for NULL), or NULL when out of memory. */
char *nnc_strdup(const char *s);
int nnc_mdl_find_value(const nnc_model *m, const char *name);
int nnc_mdl_add_value(nnc_model *m, const char *name);  /* -1 on OOM */
void nnc_value_free_payload(nnc_value *v);
const nnc_attr *nnc_node_attr(const nnc_node *n, const char *name);
int64_t nnc_attr_int(const nnc_node *n, const char *name, int64_t dflt);
double nnc_attr_float(const nnc_node *n, const char *name, double dflt);
size_t nnc_dtype_size(nnc_dtype t);
/* Returns: 0 and sets *numel, or -1 when a dim is negative or the product
 * overflows or exceeds the byte limit for elements of elem_size bytes. */
int nnc_shape_numel(int rank, const int64_t *dims, size_t elem_size, int64_t *numel);

/* Shape inference for one node (ops.c): sets output value types and the
 * node's parsed parameters. */
nnc_status nnc_op_infer(nnc_model *m, nnc_node *n, char *err, size_t errlen);
/* Look an ONNX op_type up; returns NNC_OP_COUNT when unsupported. */
nnc_op nnc_op_lookup(const char *op_type);
const char *nnc_op_name(nnc_op op);

/* Evaluate one node whose inputs are all constants, producing constant
 * outputs (in double / int64).  Used by constant folding. */
nnc_status nnc_op_fold(nnc_model *m, nnc_node *n, char *err, size_t errlen);

/* ---- execution ---- */

/* Columns of a fused MaxPool's row buffer (kernels_impl.h, dconv_block):
 * the runtime fuses only pools whose window is at most this wide. */
#define NNC_DC_POOL_COLS 256

/* Buffers of one evaluation.  For value v: buf[v] points to its data,
 * batched[v] says whether it holds `batch` samples (stride numel) or one
 * shared copy (constants). Float values hold T = float or double by
 * precision; integer values hold int64_t. */
typedef struct nnc_exec {
    const nnc_model *m;
    int batch;
    void **buf;
    const unsigned char *batched;
    double *scratch_d;     /* scratch space, scratch_bytes bytes */
    size_t scratch_bytes;
    int relu_out;          /* Conv only: 1 + the value of a Relu fused after it
                              (its output written, with the ReLU), or 0 */
    const void *prep;      /* Conv only: its nnc_op_conv_prep_* data, or NULL */
    int intra;             /* threads a node may use inside (0 or 1: the caller's only) */
    const nnc_node *pool;  /* Conv with relu_out only: a MaxPool fused after
                              that Relu (the pool's output written instead of
                              the Relu's; nnc_rt_create checks its window), or NULL */
    int add_in;            /* Conv only: 1 + the value a residual Add fused after
                              it adds to its output (same shape), or 0; the
                              sum is then written to the Relu's output with
                              the ReLU (relu_out) or to the Add's (add_out) */
    int add_out;           /* with add_in and no relu_out: 1 + the Add's output */
} nnc_exec;

/* A Conv or pool node's window, decoded here only: ops.c's window_params
 * keeps it in n->p (p[0..1] kernel, p[2..3] strides, p[4..5] begin pads,
 * p[6..7] end pads, p[8..9] dilations, per spatial axis; p[10] a Conv's
 * group, p[11] the spatial rank, p[12] a pool's count_include_pad).  The
 * input is [n, c, h, w], the output [n, m, oh, ow]; a 1-D window reads as
 * h x 1 (its second axis: kernel, stride and dilation 1, no pads). */
typedef struct nnc_window {
    int64_t n, c, h, w, m, oh, ow;
    int64_t kh, kw, sh, sw, dh, dw;
    int64_t pt, pl, pb, pr; /* pads: top, left, bottom, right */
    int64_t group;          /* Conv's; 1 for the pools */
    int count_include_pad;  /* AveragePool's */
} nnc_window;

static inline nnc_window nnc_window_of(const nnc_model *m, const nnc_node *n)
{
    const nnc_value *x = &m->vals[n->in[0]], *y = &m->vals[n->out[0]];
    int two = n->p[11] == 2;
    nnc_window g;
    g.n = x->dims[0];
    g.c = x->dims[1];
    g.h = x->dims[2];
    g.w = two ? x->dims[3] : 1;
    g.m = y->dims[1];
    g.oh = y->dims[2];
    g.ow = two ? y->dims[3] : 1;
    g.kh = n->p[0];
    g.kw = two ? n->p[1] : 1;
    g.sh = n->p[2];
    g.sw = two ? n->p[3] : 1;
    g.dh = n->p[8];
    g.dw = two ? n->p[9] : 1;
    g.pt = n->p[4];
    g.pl = two ? n->p[5] : 0;
    g.pb = n->p[6];
    g.pr = two ? n->p[7] : 0;
    g.group = n->op == NNC_OP_CONV ? n->p[10] : 1;
    g.count_include_pad = (int)n->p[12];
    return g;
}

/* Whether Pad node n of m pads and crops nothing (its begin and end pads,
 * p[d] and p[8 + d], zero over the input's rank): its output is its input,
 * which the runtime then shares as a view. */
static inline int nnc_pad_is_identity(const nnc_model *m, const nnc_node *n)
{
    for (int d = 0; d < m->vals[n->in[0]].rank; d++)
        if (n->p[d] != 0 || n->p[8 + d] != 0) return 0;
    return 1;
}

/* Rows per BLAS call of a product stacked over samples (kernels_impl.h);
 * the runtime's tiles hold a multiple of it in samples. */
#define NNC_GEMM_ROWS 16

/* Bytes of scratch node n needs for `batch` samples in precision prec. */
size_t nnc_op_scratch_bytes(const nnc_model *m, const nnc_node *n, int batch, nnc_precision prec);
/* Run node n on x's buffers.  Float values are float (f32) or double (f64);
 * integer values are int64_t in both. */
/* Returns: 0, or non-zero when the data is out of range (a Gather index). */
int nnc_op_exec_f32(const nnc_exec *x, const nnc_node *n);
int nnc_op_exec_f64(const nnc_exec *x, const nnc_node *n);
size_t nnc_op_conv_scratch_f32(const nnc_model *m, const nnc_node *n, int batch);
size_t nnc_op_conv_scratch_f64(const nnc_model *m, const nnc_node *n, int batch);
/* The prepared (packed) filters of Conv n's direct path, malloc'd into *out
 * for nnc_exec.prep (NULL when n does not run directly).  Returns 0, or -1
 * when out of memory. */
int nnc_op_conv_prep_f32(const nnc_model *m, const nnc_node *n, const nnc_node *pool, void **out);
int nnc_op_conv_prep_f64(const nnc_model *m, const nnc_node *n, const nnc_node *pool, void **out);

#endif
