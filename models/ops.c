/* Operator table: ONNX names, shape inference (with attribute parsing into
 * node->p / node->fp) and dispatch to the float/double kernels.
 *
 * Parsed parameters by operator (indices into node->p unless noted):
 *   GEMM       0 transA, 1 transB, 2 M, 3 N, 4 K, 5 C broadcast mode; fp0 alpha, fp1 beta
 *   MATMUL     (shapes read from the values at run time)
 *   CONV       0..1 kernel, 2..3 stride, 4..7 pads (top, left, bottom, right),
 *              8..9 dilation, 10 group, 11 spatial rank (1 or 2)
 *   MAXPOOL/AVERAGEPOOL  as CONV for 0..9 and 11; 12 count_include_pad
 *   TRANSPOSE  0..rank-1 perm
 *   SLICE      0..7 start, 8..15 step, 16..23 output length per axis
 *   PAD        0..7 begin pads, 8..15 end pads (negative: crop that many first),
 *              16 mode (0 constant, 1 reflect, 2 edge, 3 wrap), 17 1 when the pad value
 *              is input 2 read at run time; fp0 the constant pad value otherwise
 *   CONCAT     0 axis
 *   GATHER     0 axis
 *   SOFTMAX    0 outer, 1 axis length, 2 inner
 *   REDUCE*    0 bitmask of reduced axes
 *   LEAKYRELU  fp0 alpha
 *   BATCHNORM  fp0 epsilon
 *   CAST       0 target dtype
 */
#include "models/model_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[NNC_OP_COUNT] = {
#define NNC_OP(code, name) name,
#include "models/ops_list.h"
#undef NNC_OP
};

nnc_op nnc_op_lookup(const char *op_type)
{
    for (int k = 0; k < NNC_OP_COUNT; k++)
        if (strcmp(op_names[k], op_type) == 0) return (nnc_op)k;
    return NNC_OP_COUNT;
}

const char *nnc_op_name(nnc_op op) { return op < NNC_OP_COUNT ? op_names[op] : "?"; }

const char *nnc_mdl_supported_ops(void)
{
    return
#define NNC_OP(code, name) name " "
#include "models/ops_list.h"
#undef NNC_OP
        ;
}

/* ------------------------------------------------------------- helpers */

#define FAIL(st, ...) return nnc_err(err, errlen, st, __VA_ARGS__)
#define BAD(...) FAIL(NNC_STATUS_INVALID, __VA_ARGS__)

static const nnc_value *in_val(const nnc_model *m, const nnc_node *n, int i)
{
    if (i >= n->n_in || n->in[i] < 0) return NULL;
    return &m->vals[n->in[i]];
}

static nnc_status set_out(nnc_model *m, nnc_node *n, int o, nnc_dtype dt, int rank, const int64_t *dims,
                          char *err, size_t errlen)
{
    if (o >= n->n_out || n->out[o] < 0) return NNC_STATUS_OK;
    nnc_value *v = &m->vals[n->out[o]];
    if (rank > NNC_MAX_RANK) FAIL(NNC_STATUS_LIMIT, "node '%s' (%s): output rank %d exceeds %d", n->name, n->op_type, rank, NNC_MAX_RANK);
    for (int d = 0; d < rank; d++)
        if (dims[d] < 0) BAD("node '%s' (%s): inferred a negative output dimension", n->name, n->op_type);
    int64_t numel;
    if (nnc_shape_numel(rank, dims, nnc_dtype_size(dt) ? nnc_dtype_size(dt) : 8, &numel) != 0)
        FAIL(NNC_STATUS_LIMIT, "node '%s' (%s): output '%s' would exceed the %llu-byte tensor limit",
             n->name, n->op_type, v->name, (unsigned long long)nnc_max_tensor_bytes());
    v->dtype = dt;
    v->rank = rank;
    for (int d = 0; d < rank; d++) v->dims[d] = dims[d];
    v->numel = numel;
    return NNC_STATUS_OK;
}

/* Read a constant integer tensor (1-D or scalar) input. Returns count or -1. */
static int const_ints(const nnc_model *m, const nnc_node *n, int i, int64_t *out, int max)
{
    const nnc_value *v = in_val(m, n, i);
    if (v == NULL || v->kind != NNC_VAL_CONST || v->i == NULL || v->rank > 1 || v->numel > max) return -1;
    for (int64_t k = 0; k < v->numel; k++) out[k] = v->i[k];
    return (int)v->numel;
}

/* Axes from the attribute (old opsets) or the given input (new opsets). */
static int axes_of(const nnc_model *m, const nnc_node *n, int input, int64_t *axes, int *count)
{
    const nnc_attr *a = nnc_node_attr(n, "axes");
    if (a && a->type == NNC_ATTR_INTS) {
        if (a->n > NNC_MAX_RANK) return -1;
        memcpy(axes, a->ints, (size_t)a->n * sizeof *axes);
        *count = a->n;
        return 0;
    }
    if (input >= 0 && input < n->n_in && n->in[input] >= 0) {
        int c = const_ints(m, n, input, axes, NNC_MAX_RANK);
        if (c < 0) return -2;
        *count = c;
        return 0;
    }
    *count = -1; /* not given */
    return 0;
}

static int norm_axis(int64_t axis, int rank, int64_t *out)
{
    if (axis < -rank || axis >= rank) return -1;
    *out = axis < 0 ? axis + rank : axis;
    return 0;
}

static nnc_status need_inputs(const nnc_model *m, const nnc_node *n, int k, char *err, size_t errlen)
{
    for (int i = 0; i < k; i++)
        if (in_val(m, n, i) == NULL) BAD("node '%s' (%s): required input %d is missing", n->name, n->op_type, i);
    return NNC_STATUS_OK;
}

static nnc_status broadcast(const nnc_model *m, nnc_node *n, int a, int b, int *rank, int64_t *dims,
                            char *err, size_t errlen)
{
    const nnc_value *va = in_val(m, n, a), *vb = in_val(m, n, b);
    int r = va->rank > vb->rank ? va->rank : vb->rank;
    for (int d = 0; d < r; d++) {
        int da = d - (r - va->rank), db = d - (r - vb->rank);
        int64_t x = da >= 0 ? va->dims[da] : 1, y = db >= 0 ? vb->dims[db] : 1;
        if (x != y && x != 1 && y != 1)
            BAD("node '%s' (%s): shapes of '%s' and '%s' do not broadcast (dimension %d: %lld vs %lld)",
                n->name, n->op_type, va->name, vb->name, d, (long long)x, (long long)y);
        dims[d] = x == 1 ? y : x;
    }
    *rank = r;
    return NNC_STATUS_OK;
}

/* Spatial window parameters shared by Conv and the pools. X is [N,C,spatial...]. */
static nnc_status window_params(const nnc_model *m, nnc_node *n, const nnc_value *x, const int64_t *kernel,
                                int64_t *out_spatial, char *err, size_t errlen)
{
    int sr = x->rank - 2;
    if (sr < 1 || sr > 2) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): only 1-D and 2-D spatial inputs are supported (input rank %d)",
                             n->name, n->op_type, x->rank);
    n->p[11] = sr;
    const nnc_attr *st = nnc_node_attr(n, "strides"), *dl = nnc_node_attr(n, "dilations"), *pd = nnc_node_attr(n, "pads");
    if ((st && st->n != sr) || (dl && dl->n != sr) || (pd && pd->n != 2 * sr))
        BAD("node '%s' (%s): strides/dilations/pads do not match the %d spatial dimensions", n->name, n->op_type, sr);
    int64_t ceil_mode = nnc_attr_int(n, "ceil_mode", 0);
    const nnc_attr *ap = nnc_node_attr(n, "auto_pad");
    const char *auto_pad = (ap && ap->s) ? ap->s : "NOTSET";
    for (int d = 0; d < 2; d++) {
        n->p[0 + d] = 1;
        n->p[2 + d] = 1;
        n->p[8 + d] = 1;
        n->p[4 + d] = n->p[6 + d] = 0;
    }
    for (int d = 0; d < sr; d++) {
        int64_t k = kernel[d];
        int64_t s = st ? st->ints[d] : 1, di = dl ? dl->ints[d] : 1;
        if (k < 1 || s < 1 || di < 1 || k > (1 << 20) || s > (1 << 20) || di > (1 << 20))
            BAD("node '%s' (%s): kernel, stride and dilation must be positive", n->name, n->op_type);
        int64_t pb = pd ? pd->ints[d] : 0, pe = pd ? pd->ints[sr + d] : 0;
        if (pb < 0 || pe < 0 || pb > (1 << 20) || pe > (1 << 20)) BAD("node '%s' (%s): negative or huge pads", n->name, n->op_type);
        int64_t in = x->dims[2 + d], ek = (k - 1) * di + 1, out;
        if (strcmp(auto_pad, "SAME_UPPER") == 0 || strcmp(auto_pad, "SAME_LOWER") == 0) {
            out = (in + s - 1) / s;
            int64_t total = (out - 1) * s + ek - in;
            if (total < 0) total = 0;
            pb = strcmp(auto_pad, "SAME_UPPER") == 0 ? total / 2 : total - total / 2;
            pe = total - pb;
        } else if (strcmp(auto_pad, "VALID") == 0) {
            pb = pe = 0;
            out = in >= ek ? (in - ek) / s + 1 : 0;
        } else if (strcmp(auto_pad, "NOTSET") == 0) {
            int64_t span = in + pb + pe - ek;
            if (span < 0) BAD("node '%s' (%s): kernel larger than the padded input", n->name, n->op_type);
            out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
            /* ceil mode: the last window must start inside the input or left pad */
            if (ceil_mode && (out - 1) * s >= in + pb) out--;
        } else {
            BAD("node '%s' (%s): unknown auto_pad '%s'", n->name, n->op_type, auto_pad);
        }
        if (out < 1) BAD("node '%s' (%s): empty output", n->name, n->op_type);
        n->p[0 + d] = k;
        n->p[2 + d] = s;
        n->p[4 + d] = pb;
        n->p[6 + d] = pe;
        n->p[8 + d] = di;
        out_spatial[d] = out;
    }
    return NNC_STATUS_OK;
}

/* A Conv's or pool's output, [N, channels, spatial...], from its window
 * (window_params, which sets n->p). */
static nnc_status window_out(nnc_model *m, nnc_node *n, const nnc_value *x, const int64_t *kernel, int64_t channels,
                             char *err, size_t errlen)
{
    int64_t dims[NNC_MAX_RANK] = {0}, sp[2];
    nnc_status st = window_params(m, n, x, kernel, sp, err, errlen);
    if (st) return st;
    dims[0] = x->dims[0];
    dims[1] = channels;
    for (int d = 0; d < x->rank - 2; d++) dims[2 + d] = sp[d];
    return set_out(m, n, 0, x->dtype, x->rank, dims, err, errlen);
}

/* --------------------------------------------------------- shape rules */

/* The shape rule of Add, Sub, Mul and Div. */
static nnc_status infer_add(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    int rank = 0;
    if ((st = need_inputs(m, n, 2, err, errlen))) return st;
    const nnc_value *y = in_val(m, n, 1);
    if (nnc_dtype_is_float(x->dtype) != nnc_dtype_is_float(y->dtype))
        BAD("node '%s' (%s): operand types differ (%s, %s)", n->name, n->op_type, nnc_dtype_name(x->dtype), nnc_dtype_name(y->dtype));
    if ((st = broadcast(m, n, 0, 1, &rank, dims, err, errlen))) return st;
    return set_out(m, n, 0, x->dtype, rank, dims, err, errlen);
}

/* The shape rule of Relu, Sigmoid, Tanh and LeakyRelu. */
static nnc_status infer_relu(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    if (!nnc_dtype_is_float(x->dtype))
        FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): input type %s is not supported (float, double)", n->name, n->op_type, nnc_dtype_name(x->dtype));
    n->fp[0] = nnc_attr_float(n, "alpha", 0.01);
    return set_out(m, n, 0, x->dtype, x->rank, x->dims, err, errlen);
}

/* The shape rule of Identity and Dropout. */
static nnc_status infer_identity(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    if (n->op == NNC_OP_DROPOUT && n->n_in > 2 && in_val(m, n, 2)) {
        const nnc_value *t = in_val(m, n, 2);
        if (t->kind != NNC_VAL_CONST || (t->i && t->i[0]))
            FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Dropout): training mode is not supported", n->name);
    }
    if (x->sparse) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): sparse input", n->name, n->op_type);
    /* Dropout's mask: all true; of type T before opset 10, bool from 10 */
    if (n->op == NNC_OP_DROPOUT && (st = set_out(m, n, 1, m->opset >= 10 ? NNC_DTYPE_BOOL : x->dtype, x->rank, x->dims, err, errlen)))
        return st;
    return set_out(m, n, 0, x->dtype, x->rank, x->dims, err, errlen);
}

/* The shape rule of Softmax. */
static nnc_status infer_softmax(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    if (!nnc_dtype_is_float(x->dtype)) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Softmax): needs a float input", n->name);
    int64_t axis;
    if (x->rank == 0) BAD("node '%s' (Softmax): scalar input", n->name);
    if (norm_axis(nnc_attr_int(n, "axis", m->opset >= 13 ? -1 : 1), x->rank, &axis))
        BAD("node '%s' (Softmax): axis out of range", n->name);
    int64_t outer = 1, len = 1, inner = 1;
    for (int d = 0; d < x->rank; d++) {
        if (d < axis) outer *= x->dims[d];
        else if (m->opset >= 13 ? d == axis : 1) len *= x->dims[d];
        else inner *= x->dims[d];
    }
    n->p[0] = outer;
    n->p[1] = len;
    n->p[2] = inner;
    return set_out(m, n, 0, x->dtype, x->rank, x->dims, err, errlen);
}

/* The shape rule of Flatten. */
static nnc_status infer_flatten(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    int64_t axis = nnc_attr_int(n, "axis", 1);
    if (axis < 0) axis += x->rank;
    if (axis < 0 || axis > x->rank) BAD("node '%s' (Flatten): axis out of range", n->name);
    dims[0] = dims[1] = 1;
    for (int d = 0; d < x->rank; d++) dims[d < axis ? 0 : 1] *= x->dims[d];
    return set_out(m, n, 0, x->dtype, 2, dims, err, errlen);
}

/* The shape rule of Reshape. */
static nnc_status infer_reshape(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    if ((st = need_inputs(m, n, m->opset >= 5 ? 2 : 1, err, errlen))) return st;
    int64_t shp[NNC_MAX_RANK + 1];
    int c;
    const nnc_attr *sa = nnc_node_attr(n, "shape");
    if (n->n_in >= 2) {
        c = const_ints(m, n, 1, shp, NNC_MAX_RANK + 1);
        if (c < 0) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Reshape): the target shape must be a constant of at most %d ints (after folding)",
                        n->name, NNC_MAX_RANK);
    } else if (sa && sa->type == NNC_ATTR_INTS && sa->n <= NNC_MAX_RANK) {
        c = sa->n;
        memcpy(shp, sa->ints, (size_t)c * sizeof *shp);
    } else {
        BAD("node '%s' (Reshape): no target shape", n->name);
    }
    if (c > NNC_MAX_RANK) FAIL(NNC_STATUS_LIMIT, "node '%s' (Reshape): rank too large", n->name);
    int allowzero = (int)nnc_attr_int(n, "allowzero", 0);
    int infer = -1;
    int64_t known = 1;
    for (int d = 0; d < c; d++) {
        int64_t s = shp[d];
        if (s == 0 && !allowzero) {
            if (d >= x->rank) BAD("node '%s' (Reshape): 0 copies a dimension the input lacks", n->name);
            s = x->dims[d];
        }
        if (s == -1) {
            if (infer >= 0) BAD("node '%s' (Reshape): more than one -1 in the target shape", n->name);
            infer = d;
            dims[d] = 1;
            continue;
        }
        if (s < 0) BAD("node '%s' (Reshape): invalid target dimension %lld", n->name, (long long)s);
        dims[d] = s;
        if (s && known > INT64_MAX / s) FAIL(NNC_STATUS_LIMIT, "node '%s' (Reshape): target shape overflows", n->name);
        known *= s;
    }
    if (infer >= 0) {
        if (known == 0 || x->numel % known) BAD("node '%s' (Reshape): cannot infer -1 for %lld elements", n->name, (long long)x->numel);
        dims[infer] = x->numel / known;
    } else if (known != x->numel) {
        BAD("node '%s' (Reshape): target shape has %lld elements, input '%s' has %lld", n->name, (long long)known, x->name,
            (long long)x->numel);
    }
    return set_out(m, n, 0, x->dtype, c, dims, err, errlen);
}

/* The shape rule of Transpose. */
static nnc_status infer_transpose(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    const nnc_attr *pa = nnc_node_attr(n, "perm");
    unsigned seen = 0;
    if (pa && pa->n != x->rank) BAD("node '%s' (Transpose): perm has %d entries for rank %d", n->name, pa->n, x->rank);
    for (int d = 0; d < x->rank; d++) {
        int64_t p = pa ? pa->ints[d] : x->rank - 1 - d;
        if (p < 0) p += x->rank;
        if (p < 0 || p >= x->rank || (seen >> p & 1)) BAD("node '%s' (Transpose): perm is not a permutation", n->name);
        seen |= 1u << p;
        n->p[d] = p;
        dims[d] = x->dims[p];
    }
    return set_out(m, n, 0, x->dtype, x->rank, dims, err, errlen);
}

/* The shape rule of Squeeze and Unsqueeze. */
static nnc_status infer_squeeze(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    int rank = 0;
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    int64_t axes[NNC_MAX_RANK];
    int c;
    int r = axes_of(m, n, 1, axes, &c);
    if (r == -1) FAIL(NNC_STATUS_LIMIT, "node '%s' (%s): too many axes", n->name, n->op_type);
    if (r == -2) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): axes must be a constant", n->name, n->op_type);
    if (n->op == NNC_OP_SQUEEZE) {
        unsigned mask = 0;
        if (c < 0) {
            for (int d = 0; d < x->rank; d++)
                if (x->dims[d] == 1) mask |= 1u << d;
        } else {
            for (int k = 0; k < c; k++) {
                int64_t a;
                if (norm_axis(axes[k], x->rank, &a)) BAD("node '%s' (Squeeze): axis out of range", n->name);
                if (x->dims[a] != 1) BAD("node '%s' (Squeeze): dimension %lld is %lld, not 1", n->name, (long long)a, (long long)x->dims[a]);
                mask |= 1u << a;
            }
        }
        rank = 0;
        for (int d = 0; d < x->rank; d++)
            if (!(mask >> d & 1)) dims[rank++] = x->dims[d];
    } else {
        if (c < 0) BAD("node '%s' (Unsqueeze): axes missing", n->name);
        int out_rank = x->rank + c;
        if (out_rank > NNC_MAX_RANK) FAIL(NNC_STATUS_LIMIT, "node '%s' (Unsqueeze): rank too large", n->name);
        unsigned mask = 0;
        for (int k = 0; k < c; k++) {
            int64_t a;
            if (norm_axis(axes[k], out_rank, &a) || (mask >> a & 1)) BAD("node '%s' (Unsqueeze): bad axes", n->name);
            mask |= 1u << a;
        }
        int j = 0;
        for (int d = 0; d < out_rank; d++) dims[d] = (mask >> d & 1) ? 1 : x->dims[j++];
        rank = out_rank;
    }
    return set_out(m, n, 0, x->dtype, rank, dims, err, errlen);
}

/* The shape rule of Concat. */
static nnc_status infer_concat(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    int64_t axis;
    if (norm_axis(nnc_attr_int(n, "axis", 0), x->rank, &axis)) BAD("node '%s' (Concat): axis out of range", n->name);
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = 0;
    for (int i = 0; i < n->n_in; i++) {
        const nnc_value *v = in_val(m, n, i);
        if (v == NULL) BAD("node '%s' (Concat): empty input name", n->name);
        if (v->rank != x->rank || nnc_dtype_is_float(v->dtype) != nnc_dtype_is_float(x->dtype))
            BAD("node '%s' (Concat): inputs differ in rank or type", n->name);
        for (int d = 0; d < x->rank; d++)
            if (d != axis && v->dims[d] != x->dims[d]) BAD("node '%s' (Concat): input '%s' differs in dimension %d", n->name, v->name, d);
        dims[axis] += v->dims[axis];
    }
    n->p[0] = axis;
    return set_out(m, n, 0, x->dtype, x->rank, dims, err, errlen);
}

/* The shape rule of Slice. */
static nnc_status infer_slice(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    int64_t starts[NNC_MAX_RANK], ends[NNC_MAX_RANK], axes[NNC_MAX_RANK], steps[NNC_MAX_RANK];
    int ns, ne, na = -1, nst = -1;
    if (m->opset < 10) {
        const nnc_attr *as = nnc_node_attr(n, "starts"), *ae = nnc_node_attr(n, "ends"), *aa = nnc_node_attr(n, "axes");
        if (!as || !ae || as->n > NNC_MAX_RANK || ae->n != as->n) BAD("node '%s' (Slice): starts/ends attributes missing", n->name);
        ns = ne = as->n;
        memcpy(starts, as->ints, (size_t)ns * 8);
        memcpy(ends, ae->ints, (size_t)ne * 8);
        if (aa) {
            if (aa->n != ns) BAD("node '%s' (Slice): axes length differs", n->name);
            na = aa->n;
            memcpy(axes, aa->ints, (size_t)na * 8);
        }
    } else {
        if ((st = need_inputs(m, n, 3, err, errlen))) return st;
        ns = const_ints(m, n, 1, starts, NNC_MAX_RANK);
        ne = const_ints(m, n, 2, ends, NNC_MAX_RANK);
        if (in_val(m, n, 3)) na = const_ints(m, n, 3, axes, NNC_MAX_RANK);
        if (in_val(m, n, 4)) nst = const_ints(m, n, 4, steps, NNC_MAX_RANK);
        if (ns < 0 || ne != ns || (in_val(m, n, 3) && na != ns) || (in_val(m, n, 4) && nst != ns))
            FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Slice): starts/ends/axes/steps must be constants of equal length", n->name);
    }
    for (int d = 0; d < x->rank; d++) {
        n->p[d] = 0;
        n->p[8 + d] = 1;
        n->p[16 + d] = x->dims[d];
    }
    unsigned seen = 0;
    for (int k = 0; k < ns; k++) {
        int64_t a = na >= 0 ? axes[k] : k, step = nst >= 0 ? steps[k] : 1;
        if (norm_axis(a, x->rank, &a) || (seen >> a & 1)) BAD("node '%s' (Slice): bad axes", n->name);
        seen |= 1u << a;
        if (step == 0) BAD("node '%s' (Slice): step 0", n->name);
        /* ONNX Slice-13: a negative start or end counts from the end; then
         * start is clamped to [0, len] (positive step) or [0, len - 1]
         * (negative step), end to [0, len] or [-1, len - 1].  The counts
         * below cannot overflow for any int64 start, end and step. */
        int64_t len = x->dims[a], s = starts[k], e = ends[k], cnt;
        if (s < 0) s += len;
        if (e < 0) e += len;
        if (step > 0) {
            s = s < 0 ? 0 : (s > len ? len : s);
            e = e < 0 ? 0 : (e > len ? len : e);
            cnt = e > s ? (int64_t)((uint64_t)(e - s - 1) / (uint64_t)step) + 1 : 0;
        } else {
            s = s < 0 ? 0 : (s > len - 1 ? len - 1 : s);
            e = e < -1 ? -1 : (e > len - 1 ? len - 1 : e);
            cnt = (len > 0 && s > e) ? (int64_t)((uint64_t)(s - e - 1) / (0 - (uint64_t)step)) + 1 : 0;
        }
        n->p[a] = s;
        n->p[8 + a] = step;
        n->p[16 + a] = cnt;
    }
    for (int d = 0; d < x->rank; d++) dims[d] = n->p[16 + d];
    return set_out(m, n, 0, x->dtype, x->rank, dims, err, errlen);
}

/* The shape rule of Pad. */
static nnc_status infer_pad(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    int64_t pads[2 * NNC_MAX_RANK];
    int np;
    double value = 0;
    n->p[17] = 0;
    const nnc_attr *ma = nnc_node_attr(n, "mode");
    const char *mode = (ma && ma->s) ? ma->s : "constant";
    if (m->opset < 11) {
        const nnc_attr *pa = nnc_node_attr(n, "pads");
        if (!pa || pa->n > 2 * NNC_MAX_RANK) BAD("node '%s' (Pad): pads attribute missing", n->name);
        np = pa->n;
        memcpy(pads, pa->ints, (size_t)np * 8);
        value = nnc_attr_float(n, "value", 0.0);
    } else {
        if ((st = need_inputs(m, n, 2, err, errlen))) return st;
        np = const_ints(m, n, 1, pads, 2 * NNC_MAX_RANK);
        if (np < 0) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Pad): pads must be a constant", n->name);
        const nnc_value *cv = in_val(m, n, 2);
        if (cv) {
            if (cv->numel != 1 || cv->rank > 1 || nnc_dtype_is_float(cv->dtype) != nnc_dtype_is_float(x->dtype))
                BAD("node '%s' (Pad): constant_value must be one element of the input's type", n->name);
            if (cv->kind == NNC_VAL_CONST) value = cv->f ? cv->f[0] : (double)cv->i[0];
            else n->p[17] = 1;
        }
        if (n->n_in > 3 && in_val(m, n, 3)) {
            /* Pad-18: the pads of the listed axes only, the others 0 */
            int64_t ax[NNC_MAX_RANK], full[2 * NNC_MAX_RANK] = {0};
            int na = const_ints(m, n, 3, ax, NNC_MAX_RANK);
            if (na < 0) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Pad): axes must be a constant of at most %d values", n->name, NNC_MAX_RANK);
            if (np != 2 * na) BAD("node '%s' (Pad): %d pads for %d axes", n->name, np, na);
            unsigned seen = 0;
            for (int k = 0; k < na; k++) {
                int64_t a;
                if (norm_axis(ax[k], x->rank, &a)) BAD("node '%s' (Pad): axis %lld out of range", n->name, (long long)ax[k]);
                if (seen >> a & 1) BAD("node '%s' (Pad): axis %lld repeated", n->name, (long long)ax[k]);
                seen |= 1u << a;
                full[a] = pads[k];
                full[x->rank + a] = pads[na + k];
            }
            np = 2 * x->rank;
            memcpy(pads, full, sizeof(int64_t) * (size_t)np);
        }
    }
    if (np != 2 * x->rank) BAD("node '%s' (Pad): %d pads for rank %d", n->name, np, x->rank);
    if (strcmp(mode, "constant") == 0) n->p[16] = 0;
    else if (strcmp(mode, "reflect") == 0) n->p[16] = 1;
    else if (strcmp(mode, "edge") == 0) n->p[16] = 2;
    else if (strcmp(mode, "wrap") == 0 && m->opset >= 19) n->p[16] = 3;
    else FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Pad): mode '%s' is not supported", n->name, mode);
    for (int d = 0; d < x->rank; d++) {
        int64_t b = pads[d], e = pads[x->rank + d];
        if (b > (1 << 24) || e > (1 << 24) || b < -(1 << 24) || e < -(1 << 24))
            FAIL(NNC_STATUS_LIMIT, "node '%s' (Pad): pads too large", n->name);
        /* negative pads crop; the kept part has slen elements */
        int64_t slen = x->dims[d] - (b < 0 ? -b : 0) - (e < 0 ? -e : 0);
        if (slen < 0) BAD("node '%s' (Pad): negative pads remove more than dimension %d holds", n->name, d);
        if (n->p[16] == 1 && ((b > 0 && b >= slen) || (e > 0 && e >= slen)))
            BAD("node '%s' (Pad): reflect pads must be smaller than the dimension", n->name);
        if ((n->p[16] == 2 || n->p[16] == 3) && slen == 0 && (b > 0 || e > 0))
            BAD("node '%s' (Pad): %s padding of an empty dimension", n->name, mode);
        n->p[d] = b;
        n->p[8 + d] = e;
        dims[d] = slen + (b > 0 ? b : 0) + (e > 0 ? e : 0);
    }
    n->fp[0] = value;
    return set_out(m, n, 0, x->dtype, x->rank, dims, err, errlen);
}

/* The shape rule of Gemm. */
static nnc_status infer_gemm(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    if ((st = need_inputs(m, n, 2, err, errlen))) return st;
    const nnc_value *b = in_val(m, n, 1), *c = in_val(m, n, 2);
    if (x->rank != 2 || b->rank != 2) BAD("node '%s' (Gemm): A and B must be 2-D (got rank %d and %d)", n->name, x->rank, b->rank);
    if (!nnc_dtype_is_float(x->dtype) || !nnc_dtype_is_float(b->dtype)) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Gemm): needs float inputs", n->name);
    int64_t ta = nnc_attr_int(n, "transA", 0), tb = nnc_attr_int(n, "transB", 0);
    int64_t M = ta ? x->dims[1] : x->dims[0], K = ta ? x->dims[0] : x->dims[1];
    int64_t K2 = tb ? b->dims[1] : b->dims[0], N = tb ? b->dims[0] : b->dims[1];
    if (K != K2) BAD("node '%s' (Gemm): inner dimensions differ (%lld vs %lld)", n->name, (long long)K, (long long)K2);
    n->p[0] = ta; n->p[1] = tb; n->p[2] = M; n->p[3] = N; n->p[4] = K;
    n->fp[0] = nnc_attr_float(n, "alpha", 1.0);
    n->fp[1] = nnc_attr_float(n, "beta", 1.0);
    n->p[5] = 0;
    if (c) { /* unidirectional broadcast of C to [M, N]: mode bits 1 rows vary, 2 cols vary */
        int64_t cr = c->rank >= 2 ? c->dims[c->rank - 2] : 1, cc = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
        if (c->rank > 2 || (cr != 1 && cr != M) || (cc != 1 && cc != N) || !nnc_dtype_is_float(c->dtype))
            BAD("node '%s' (Gemm): C does not broadcast to [%lld, %lld]", n->name, (long long)M, (long long)N);
        n->p[5] = (cr == M && M != 1 ? 1 : 0) | (cc == N && N != 1 ? 2 : 0) | 4;
    }
    dims[0] = M;
    dims[1] = N;
    return set_out(m, n, 0, x->dtype, 2, dims, err, errlen);
}

/* The shape rule of MatMul. */
static nnc_status infer_matmul(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    int rank = 0;
    if ((st = need_inputs(m, n, 2, err, errlen))) return st;
    const nnc_value *b = in_val(m, n, 1);
    if (!nnc_dtype_is_float(x->dtype) || !nnc_dtype_is_float(b->dtype)) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (MatMul): needs float inputs", n->name);
    if (x->rank == 0 || b->rank == 0) BAD("node '%s' (MatMul): scalar operand", n->name);
    if (b->sparse) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (MatMul): a sparse right operand is not supported", n->name);
    int64_t M = x->rank == 1 ? 1 : x->dims[x->rank - 2], K = x->dims[x->rank - 1];
    int64_t K2 = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2], N = b->rank == 1 ? 1 : b->dims[b->rank - 1];
    if (K != K2) BAD("node '%s' (MatMul): inner dimensions differ (%lld vs %lld)", n->name, (long long)K, (long long)K2);
    if (x->sparse && b->rank != 2 && b->rank != 1) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (MatMul): sparse times rank-%d", n->name, b->rank);
    int ba = x->rank > 2 ? x->rank - 2 : 0, bb = b->rank > 2 ? b->rank - 2 : 0;
    int br = ba > bb ? ba : bb;
    for (int d = 0; d < br; d++) {
        int da = d - (br - ba), db = d - (br - bb);
        int64_t p = da >= 0 ? x->dims[da] : 1, q = db >= 0 ? b->dims[db] : 1;
        if (p != q && p != 1 && q != 1) BAD("node '%s' (MatMul): batch dimensions do not broadcast", n->name);
        dims[d] = p == 1 ? q : p;
    }
    rank = br;
    if (x->rank >= 2) dims[rank++] = M;
    if (b->rank >= 2) dims[rank++] = N;
    return set_out(m, n, 0, x->dtype, rank, dims, err, errlen);
}

/* The shape rule of Conv. */
static nnc_status infer_conv(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    if ((st = need_inputs(m, n, 2, err, errlen))) return st;
    const nnc_value *w = in_val(m, n, 1), *b = in_val(m, n, 2);
    if (!nnc_dtype_is_float(x->dtype) || !nnc_dtype_is_float(w->dtype)) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Conv): needs float inputs", n->name);
    if (w->rank != x->rank) BAD("node '%s' (Conv): weight rank %d differs from input rank %d", n->name, w->rank, x->rank);
    int64_t group = nnc_attr_int(n, "group", 1);
    if (x->rank < 3) BAD("node '%s' (Conv): input rank %d", n->name, x->rank);
    if (group < 1 || x->dims[1] % group || w->dims[0] % group || w->dims[1] * group != x->dims[1])
        BAD("node '%s' (Conv): channels (%lld in, weight %lldx%lld) do not match group %lld", n->name, (long long)x->dims[1],
            (long long)w->dims[0], (long long)w->dims[1], (long long)group);
    const nnc_attr *ks = nnc_node_attr(n, "kernel_shape");
    int64_t kernel[2] = {1, 1};
    for (int d = 0; d + 2 < w->rank && d < 2; d++) {
        kernel[d] = w->dims[2 + d];
        if (ks && (ks->n != w->rank - 2 || ks->ints[d] != kernel[d])) BAD("node '%s' (Conv): kernel_shape disagrees with the weights", n->name);
    }
    if (b && (b->rank != 1 || b->dims[0] != w->dims[0])) BAD("node '%s' (Conv): bias must have %lld elements", n->name, (long long)w->dims[0]);
    n->p[10] = group;
    return window_out(m, n, x, kernel, w->dims[0], err, errlen);
}

/* The shape rule of MaxPool and AveragePool. */
static nnc_status infer_maxpool(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    if (!nnc_dtype_is_float(x->dtype)) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): needs a float input", n->name, n->op_type);
    const nnc_attr *ks = nnc_node_attr(n, "kernel_shape");
    if (x->rank < 3) BAD("node '%s' (%s): input rank %d", n->name, n->op_type, x->rank);
    if (!ks || ks->n != x->rank - 2) BAD("node '%s' (%s): kernel_shape missing or of the wrong length", n->name, n->op_type);
    if (nnc_attr_int(n, "storage_order", 0) != 0) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (MaxPool): storage_order 1", n->name);
    int64_t kernel[2] = {1, 1};
    for (int d = 0; d < ks->n && d < 2; d++) kernel[d] = ks->ints[d];
    n->p[12] = nnc_attr_int(n, "count_include_pad", 0);
    return window_out(m, n, x, kernel, x->dims[1], err, errlen);
}

/* The shape rule of GlobalAveragePool. */
static nnc_status infer_globalaveragepool(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    if (!nnc_dtype_is_float(x->dtype) || x->rank < 3) BAD("node '%s' (GlobalAveragePool): needs a float input of rank >= 3", n->name);
    memcpy(dims, x->dims, sizeof dims);
    for (int d = 2; d < x->rank; d++) dims[d] = 1;
    return set_out(m, n, 0, x->dtype, x->rank, dims, err, errlen);
}

/* The shape rule of BatchNormalization. */
static nnc_status infer_batchnorm(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    if ((st = need_inputs(m, n, 5, err, errlen))) return st;
    if (x->rank < 2 || !nnc_dtype_is_float(x->dtype)) BAD("node '%s' (BatchNormalization): needs a float input of rank >= 2", n->name);
    if (nnc_attr_int(n, "training_mode", 0)) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (BatchNormalization): training mode", n->name);
    if (m->opset < 9 && nnc_attr_int(n, "spatial", 1) == 0)
        FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (BatchNormalization): spatial = 0 (per-activation statistics)", n->name);
    for (int i = 1; i < 5; i++) {
        const nnc_value *v = in_val(m, n, i);
        if (v->numel != x->dims[1] || !nnc_dtype_is_float(v->dtype))
            BAD("node '%s' (BatchNormalization): parameter '%s' must have %lld float elements", n->name, v->name, (long long)x->dims[1]);
    }
    n->fp[0] = nnc_attr_float(n, "epsilon", (double)1e-5f);
    return set_out(m, n, 0, x->dtype, x->rank, x->dims, err, errlen);
}

/* The shape rule of Constant. */
static nnc_status infer_constant(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    int64_t dims[NNC_MAX_RANK] = {0};
    const nnc_attr *a = n->n_attrs ? &n->attrs[0] : NULL;
    if (n->n_attrs != 1) BAD("node '%s' (Constant): needs exactly one value attribute", n->name);
    if (strcmp(a->name, "value") == 0 && a->t) {
        return set_out(m, n, 0, a->t->dtype, a->t->rank, a->t->dims, err, errlen);
    } else if (strcmp(a->name, "value_float") == 0 || strcmp(a->name, "value_int") == 0) {
        return set_out(m, n, 0, a->name[6] == 'f' ? NNC_DTYPE_FLOAT : NNC_DTYPE_INT64, 0, dims, err, errlen);
    } else if (strcmp(a->name, "value_floats") == 0 || strcmp(a->name, "value_ints") == 0) {
        dims[0] = a->n;
        return set_out(m, n, 0, a->name[6] == 'f' ? NNC_DTYPE_FLOAT : NNC_DTYPE_INT64, 1, dims, err, errlen);
    }
    FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Constant): attribute '%s' is not supported", n->name, a->name);
}

/* The shape rule of ConstantOfShape. */
static nnc_status infer_constantofshape(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    int64_t shp[NNC_MAX_RANK];
    int c = const_ints(m, n, 0, shp, NNC_MAX_RANK);
    if (c < 0) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (ConstantOfShape): shape must be a constant", n->name);
    const nnc_attr *a = nnc_node_attr(n, "value");
    nnc_dtype dt = NNC_DTYPE_FLOAT;
    if (a && a->t) {
        if (a->t->numel != 1) BAD("node '%s' (ConstantOfShape): value must have one element", n->name);
        dt = a->t->dtype;
    }
    return set_out(m, n, 0, dt, c, shp, err, errlen);
}

/* The shape rule of Shape. */
static nnc_status infer_shape(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    int64_t s = nnc_attr_int(n, "start", 0), e = nnc_attr_int(n, "end", x->rank);
    if (s < 0) s += x->rank;
    if (e < 0) e += x->rank;
    s = s < 0 ? 0 : (s > x->rank ? x->rank : s);
    e = e < 0 ? 0 : (e > x->rank ? x->rank : e);
    n->p[0] = s;
    dims[0] = e > s ? e - s : 0;
    return set_out(m, n, 0, NNC_DTYPE_INT64, 1, dims, err, errlen);
}

/* The shape rule of Cast. */
static nnc_status infer_cast(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    int64_t to = nnc_attr_int(n, "to", -1);
    if (nnc_dtype_size((nnc_dtype)to) == 0 || to == 10 || to == 8)
        FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (Cast): target type %lld is not supported", n->name, (long long)to);
    n->p[0] = to;
    return set_out(m, n, 0, (nnc_dtype)to, x->rank, x->dims, err, errlen);
}

/* The shape rule of Gather. */
static nnc_status infer_gather(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    int rank = 0;
    if ((st = need_inputs(m, n, 2, err, errlen))) return st;
    const nnc_value *ix = in_val(m, n, 1);
    if (nnc_dtype_is_float(ix->dtype)) BAD("node '%s' (Gather): indices must be integers", n->name);
    int64_t axis;
    if (x->rank == 0 || norm_axis(nnc_attr_int(n, "axis", 0), x->rank, &axis)) BAD("node '%s' (Gather): axis out of range", n->name);
    if (x->rank + ix->rank - 1 > NNC_MAX_RANK) FAIL(NNC_STATUS_LIMIT, "node '%s' (Gather): rank too large", n->name);
    if (ix->kind == NNC_VAL_CONST)
        for (int64_t k = 0; k < ix->numel; k++)
            if (ix->i[k] < -x->dims[axis] || ix->i[k] >= x->dims[axis])
                BAD("node '%s' (Gather): index %lld out of range [%lld, %lld)", n->name, (long long)ix->i[k],
                    (long long)-x->dims[axis], (long long)x->dims[axis]);
    n->p[0] = axis;
    rank = 0;
    for (int d = 0; d < axis; d++) dims[rank++] = x->dims[d];
    for (int d = 0; d < ix->rank; d++) dims[rank++] = ix->dims[d];
    for (int d = (int)axis + 1; d < x->rank; d++) dims[rank++] = x->dims[d];
    return set_out(m, n, 0, x->dtype, rank, dims, err, errlen);
}

/* The shape rule of ReduceSum and ReduceMean. */
static nnc_status infer_reducesum(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    nnc_status st;
    int64_t dims[NNC_MAX_RANK] = {0};
    int rank = 0;
    if ((st = need_inputs(m, n, 1, err, errlen))) return st;
    int64_t axes[NNC_MAX_RANK];
    int c;
    /* axes: an input from ReduceSum-13 and ReduceMean-18 on, with noop_with_empty_axes */
    int axes_in = (n->op == NNC_OP_REDUCESUM && m->opset >= 13) || (n->op == NNC_OP_REDUCEMEAN && m->opset >= 18);
    int r = axes_of(m, n, axes_in ? 1 : -1, axes, &c);
    if (r == -1) FAIL(NNC_STATUS_LIMIT, "node '%s' (%s): too many axes", n->name, n->op_type);
    if (r == -2) FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): axes must be a constant", n->name, n->op_type);
    int keep = (int)nnc_attr_int(n, "keepdims", 1);
    unsigned mask = 0;
    /* axes empty or omitted: all axes, or none with ReduceSum-13's noop_with_empty_axes */
    int noop = axes_in && nnc_attr_int(n, "noop_with_empty_axes", 0);
    if (c <= 0) mask = noop ? 0 : (1u << x->rank) - 1;
    for (int k = 0; k < c; k++) {
        int64_t a;
        if (norm_axis(axes[k], x->rank, &a)) BAD("node '%s' (%s): axis out of range", n->name, n->op_type);
        mask |= 1u << a;
    }
    n->p[0] = mask;
    rank = 0;
    for (int d = 0; d < x->rank; d++) {
        if (mask >> d & 1) {
            if (keep) dims[rank++] = 1;
        } else {
            dims[rank++] = x->dims[d];
        }
    }
    return set_out(m, n, 0, x->dtype, rank, dims, err, errlen);
}

/* The shape rule of EmbeddingBag: only made by fusion, after inference (models/embbag.c). */
static nnc_status infer_embedbag(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen)
{
    FAIL(NNC_STATUS_UNSUPPORTED, "node '%s': EmbeddingBag is nncert's internal fused operator, not an ONNX operator", n->name);
}

/* Each operator's shape rule (the ops_list.h row's SHAPE_RULE_ below): a
 * rule that an operator lacks fails to compile. */
#define SHAPE_RULE_ADD infer_add
#define SHAPE_RULE_AVERAGEPOOL infer_maxpool
#define SHAPE_RULE_BATCHNORM infer_batchnorm
#define SHAPE_RULE_CAST infer_cast
#define SHAPE_RULE_CONCAT infer_concat
#define SHAPE_RULE_CONSTANT infer_constant
#define SHAPE_RULE_CONSTANTOFSHAPE infer_constantofshape
#define SHAPE_RULE_CONV infer_conv
#define SHAPE_RULE_DIV infer_add
#define SHAPE_RULE_DROPOUT infer_identity
#define SHAPE_RULE_EMBEDBAG infer_embedbag
#define SHAPE_RULE_FLATTEN infer_flatten
#define SHAPE_RULE_GATHER infer_gather
#define SHAPE_RULE_GEMM infer_gemm
#define SHAPE_RULE_GLOBALAVERAGEPOOL infer_globalaveragepool
#define SHAPE_RULE_IDENTITY infer_identity
#define SHAPE_RULE_LEAKYRELU infer_relu
#define SHAPE_RULE_MATMUL infer_matmul
#define SHAPE_RULE_MAXPOOL infer_maxpool
#define SHAPE_RULE_MUL infer_add
#define SHAPE_RULE_PAD infer_pad
#define SHAPE_RULE_REDUCEMEAN infer_reducesum
#define SHAPE_RULE_REDUCESUM infer_reducesum
#define SHAPE_RULE_RELU infer_relu
#define SHAPE_RULE_RESHAPE infer_reshape
#define SHAPE_RULE_SHAPE infer_shape
#define SHAPE_RULE_SIGMOID infer_relu
#define SHAPE_RULE_SLICE infer_slice
#define SHAPE_RULE_SOFTMAX infer_softmax
#define SHAPE_RULE_SQUEEZE infer_squeeze
#define SHAPE_RULE_SUB infer_add
#define SHAPE_RULE_TANH infer_relu
#define SHAPE_RULE_TRANSPOSE infer_transpose
#define SHAPE_RULE_UNSQUEEZE infer_squeeze
typedef nnc_status (*infer_fn)(nnc_model *m, nnc_node *n, const nnc_value *x, char *err, size_t errlen);
static const infer_fn infer_rule[NNC_OP_COUNT] = {
#define NNC_OP(code, name) [NNC_OP_##code] = SHAPE_RULE_##code,
#include "models/ops_list.h"
#undef NNC_OP
};

nnc_status nnc_op_infer(nnc_model *m, nnc_node *n, char *err, size_t errlen)
{
    const nnc_value *x = in_val(m, n, 0);
    /* Extra outputs: only Dropout's mask (constant in inference; prepare turns
     * it into a constant value) is supported. */
    for (int o = 1; o < n->n_out; o++) {
        if (n->out[o] < 0 || (n->op == NNC_OP_DROPOUT && o == 1)) continue;
        if (n->op == NNC_OP_DROPOUT || n->op == NNC_OP_BATCHNORM || n->op == NNC_OP_MAXPOOL) {
            FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): optional output %d (training or index output) is not supported",
                 n->name, n->op_type, o);
        }
        BAD("node '%s' (%s): too many outputs", n->name, n->op_type);
    }
    for (int i = 0; i < n->n_in; i++) {
        const nnc_value *v = in_val(m, n, i);
        if (v && v->rank < 0) BAD("node '%s' (%s): input '%s' has no known shape", n->name, n->op_type, v->name);
        if (v && v->sparse && n->op != NNC_OP_MATMUL && n->op != NNC_OP_IDENTITY)
            FAIL(NNC_STATUS_UNSUPPORTED, "node '%s' (%s): sparse input '%s' is only supported as the left operand of MatMul",
                 n->name, n->op_type, v->name);
    }

    if (n->op >= 0 && n->op < NNC_OP_COUNT) return infer_rule[n->op](m, n, x, err, errlen);
    FAIL(NNC_STATUS_UNSUPPORTED, "node '%s': operator %s is not supported", n->name, n->op_type);
}

/* --------------------------------------------------------------- folding */

nnc_status nnc_op_fold(nnc_model *m, nnc_node *n, char *err, size_t errlen)
{
    int nv = m->n_vals;
    void **buf = calloc((size_t)nv, sizeof(void *));
    unsigned char *batched = calloc((size_t)nv, 1);
    if (!buf || !batched) {
        free(buf);
        free(batched);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] < 0) continue;
        nnc_value *v = &m->vals[n->in[i]];
        buf[n->in[i]] = v->f ? (void *)v->f : (void *)v->i;
    }
    nnc_status st = NNC_STATUS_OK;
    for (int o = 0; o < n->n_out; o++) {
        if (n->out[o] < 0) continue;
        nnc_value *v = &m->vals[n->out[o]];
        void *p = malloc((size_t)(v->numel ? v->numel : 1) * 8);
        if (p == NULL) {
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory while folding node '%s'", n->name);
            break;
        }
        if (nnc_dtype_is_float(v->dtype)) v->f = p;
        else v->i = p;
        buf[n->out[o]] = p;
    }
    size_t scratch = st ? 0 : nnc_op_scratch_bytes(m, n, 1, NNC_PRECISION_F64);
    if (n->op == NNC_OP_CONV && !st) /* weights and input must be dense constants here */
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i] >= 0 && buf[n->in[i]] == NULL) st = nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "node '%s': cannot fold", n->name);
    double *sc = NULL;
    if (!st && scratch) {
        sc = malloc(scratch);
        if (sc == NULL) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory while folding node '%s'", n->name);
    }
    if (!st) {
        nnc_exec x = {m, 1, buf, batched, sc, scratch, 0, NULL, 1, NULL, 0, 0};
        if (nnc_op_exec_f64(&x, n) != 0)
            st = nnc_err(err, errlen, NNC_STATUS_INVALID, "node '%s' (%s): an index is out of range", n->name, n->op_type);
        for (int o = 0; o < n->n_out; o++) {
            if (n->out[o] < 0) continue;
            nnc_value *v = &m->vals[n->out[o]];
            v->kind = NNC_VAL_CONST;
            v->producer = -1;
            if (v->dtype == NNC_DTYPE_FLOAT) /* ONNX semantics: the folded value is a float32 */
                for (int64_t k = 0; k < v->numel; k++) v->f[k] = (float)v->f[k];
        }
    }
    free(sc);
    free(buf);
    free(batched);
    return st;
}

size_t nnc_op_scratch_bytes(const nnc_model *m, const nnc_node *n, int batch, nnc_precision prec)
{
    if (n->op != NNC_OP_CONV) return 0;
    return prec == NNC_PRECISION_F32 ? nnc_op_conv_scratch_f32(m, n, batch) : nnc_op_conv_scratch_f64(m, n, batch);
}
