/* Reference kernels, instantiated twice: with T = float (kernels_f32.c) and
 * T = double (kernels_f64.c).  Define before including:
 *   T        the float type
 *   FN(x)    name mangling, e.g. x##_f32
 *   GEMM     cblas_sgemm or cblas_dgemm
 *   TEXP, TTANH  the libm functions for T
 * Float-typed values hold T; integer-typed values hold int64_t.  Constants are
 * one shared copy (x->batched[v] == 0); run-time values hold x->batch samples
 * of numel elements each. */

#include "common/act.h"
#include "common/isa.h"
#include "models/embbag_impl.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The element-wise loops of the window ops, im2col and the activations are
 * built for AVX-512 and AVX2 besides the baseline, chosen at load time.  They
 * only move, compare, add in a fixed order and divide (no FMA on any of
 * these targets), so every clone gives the same bits. */
#ifndef NNC_KERN_CLONES
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define NNC_KERN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NNC_KERN_CLONES
#endif
#endif

#define VAL(v) (&x->m->vals[(v)])
#define NUMEL(v) (x->m->vals[(v)].numel)
#define TP(v, b) ((T *)x->buf[(v)] + (x->batched[(v)] ? (size_t)(b) * (size_t)NUMEL(v) : 0))
#define IP(v, b) ((int64_t *)x->buf[(v)] + (x->batched[(v)] ? (size_t)(b) * (size_t)NUMEL(v) : 0))

static size_t FN(esize)(nnc_dtype t) { return nnc_dtype_is_float(t) ? sizeof(T) : sizeof(int64_t); }

static char *FN(bp)(const nnc_exec *x, int v, int b)
{
    size_t es = FN(esize)(VAL(v)->dtype);
    return (char *)x->buf[v] + (x->batched[v] ? (size_t)b * (size_t)NUMEL(v) * es : 0);
}

/* Row-major strides of a shape. */
static void FN(strides)(int rank, const int64_t *dims, int64_t *st)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        st[d] = s;
        s *= dims[d];
    }
}

/* Flat index k of a tensor with row-major strides `from` -> sum of its
 * multi-index components times ta and times tb (two permuted, reduced or
 * broadcast layouts at once: both operands of a binary op). */
static inline void FN(remap2)(int64_t k, int r, const int64_t *from, const int64_t *ta, const int64_t *tb,
                              int64_t *oa, int64_t *ob)
{
    *oa = *ob = 0;
    for (int d = 0; d < r; d++) {
        int64_t i = k / from[d];
        k -= i * from[d];
        *oa += i * ta[d];
        *ob += i * tb[d];
    }
}
/* The same for one layout `to`. */
static inline int64_t FN(remap)(int64_t k, int r, const int64_t *from, const int64_t *to)
{
    int64_t off, unused; /* dead after inlining */
    FN(remap2)(k, r, from, to, to, &off, &unused);
    return off;
}

/* ----------------------------------------------------------- elementwise */

static T FN(bin)(nnc_op op, T a, T b)
{
    switch (op) {
    case NNC_OP_ADD: return a + b;
    case NNC_OP_SUB: return a - b;
    case NNC_OP_MUL: return a * b;
    default: return a / b;
    }
}

/* v reduced to the range of integer type t, as ONNX arithmetic in that type
 * wraps (two's complement; GCC and Clang define the narrowing conversions).
 * Integer values of every type are held as int64_t; a UINT64 holds its bit
 * pattern. */
static int64_t FN(wrap)(nnc_dtype t, int64_t v)
{
    switch (t) {
    case NNC_DTYPE_BOOL: return v != 0;
    case NNC_DTYPE_INT8: return (int8_t)v;
    case NNC_DTYPE_UINT8: return (uint8_t)v;
    case NNC_DTYPE_INT16: return (int16_t)v;
    case NNC_DTYPE_UINT16: return (uint16_t)v;
    case NNC_DTYPE_INT32: return (int32_t)v;
    case NNC_DTYPE_UINT32: return (uint32_t)v;
    default: return v;
    }
}

/* Integer Add/Sub/Mul/Div in type t.  Div truncates toward zero (C and
 * onnxruntime); division by zero, undefined in ONNX, gives 0. */
static int64_t FN(bini)(nnc_op op, nnc_dtype t, int64_t a, int64_t b)
{
    switch (op) {
    case NNC_OP_ADD: return FN(wrap)(t, (int64_t)((uint64_t)a + (uint64_t)b));
    case NNC_OP_SUB: return FN(wrap)(t, (int64_t)((uint64_t)a - (uint64_t)b));
    case NNC_OP_MUL: return FN(wrap)(t, (int64_t)((uint64_t)a * (uint64_t)b));
    default:
        if (b == 0) return 0;
        if (t == NNC_DTYPE_UINT64) return (int64_t)((uint64_t)a / (uint64_t)b);
        return a == INT64_MIN && b == -1 ? INT64_MIN : FN(wrap)(t, a / b);
    }
}

static int FN(binary)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *va = VAL(n->in[0]), *vb = VAL(n->in[1]), *vo = VAL(n->out[0]);
    int r = vo->rank, isf = nnc_dtype_is_float(vo->dtype);
    int64_t sa[NNC_MAX_RANK], sb[NNC_MAX_RANK], so[NNC_MAX_RANK], ta[NNC_MAX_RANK], tb[NNC_MAX_RANK];
    FN(strides)(va->rank, va->dims, ta);
    FN(strides)(vb->rank, vb->dims, tb);
    for (int d = 0; d < r; d++) {
        int da = d - (r - va->rank), db = d - (r - vb->rank);
        sa[d] = (da >= 0 && va->dims[da] != 1) ? ta[da] : 0;
        sb[d] = (db >= 0 && vb->dims[db] != 1) ? tb[db] : 0;
    }
    FN(strides)(r, vo->dims, so);
    int64_t inner = r ? vo->dims[r - 1] : 1, ia = r ? sa[r - 1] : 0, ib = r ? sb[r - 1] : 0;
    int64_t rows = inner ? vo->numel / inner : 0;
    for (int b = 0; b < x->batch; b++) {
        if (isf) {
            const T *A = TP(n->in[0], b), *B = TP(n->in[1], b);
            T *O = TP(n->out[0], b);
            if (va->numel == vo->numel && vb->numel == vo->numel) {
                for (int64_t k = 0; k < vo->numel; k++) O[k] = FN(bin)(n->op, A[k], B[k]);
                continue;
            }
            for (int64_t row = 0; row < rows; row++) {
                int64_t oa, ob;
                FN(remap2)(row * inner, r - 1, so, sa, sb, &oa, &ob);
                T *o = O + row * inner;
                const T *pa = A + oa, *pb = B + ob;
                if (ia && ib)
                    for (int64_t k = 0; k < inner; k++) o[k] = FN(bin)(n->op, pa[k], pb[k]);
                else if (ia)
                    for (int64_t k = 0; k < inner; k++) o[k] = FN(bin)(n->op, pa[k], pb[0]);
                else
                    for (int64_t k = 0; k < inner; k++) o[k] = FN(bin)(n->op, pa[k * ia], pb[k * ib]);
            }
        } else {
            const int64_t *A = IP(n->in[0], b), *B = IP(n->in[1], b);
            int64_t *O = IP(n->out[0], b);
            for (int64_t row = 0; row < rows; row++) {
                int64_t oa, ob;
                FN(remap2)(row * inner, r - 1, so, sa, sb, &oa, &ob);
                for (int64_t k = 0; k < inner; k++) O[row * inner + k] = FN(bini)(n->op, vo->dtype, A[oa + k * ia], B[ob + k * ib]);
            }
        }
    }
    return 0;
}

NNC_KERN_CLONES static int FN(unary)(const nnc_exec *x, const nnc_node *n)
{
    int64_t cnt = NUMEL(n->out[0]);
    T alpha = (T)n->fp[0];
    for (int b = 0; b < x->batch; b++) {
        const T *a = TP(n->in[0], b);
        T *o = TP(n->out[0], b);
        switch (n->op) {
        case NNC_OP_RELU:
            for (int64_t k = 0; k < cnt; k++) o[k] = ACTF(relu)(a[k]);
            break;
        case NNC_OP_LEAKYRELU:
            for (int64_t k = 0; k < cnt; k++) o[k] = ACTF(leaky)(a[k], alpha);
            break;
        case NNC_OP_SIGMOID:
            for (int64_t k = 0; k < cnt; k++) o[k] = ACTF(sigmoid)(a[k]);
            break;
        default:
            for (int64_t k = 0; k < cnt; k++) o[k] = ACTF(tanh)(a[k]);
            break;
        }
    }
    return 0;
}

static int FN(copy)(const nnc_exec *x, const nnc_node *n)
{
    if (n->op == NNC_OP_DROPOUT && n->n_out > 1 && n->out[1] >= 0) { /* inference mask: all true */
        int mv = n->out[1];
        for (int b = 0; b < x->batch; b++)
            for (int64_t k = 0; k < NUMEL(mv); k++) {
                if (nnc_dtype_is_float(VAL(mv)->dtype)) TP(mv, b)[k] = 1;
                else IP(mv, b)[k] = 1;
            }
    }
    if (x->buf[n->out[0]] == x->buf[n->in[0]]) return 0; /* aliased by the runtime */
    size_t bytes = (size_t)NUMEL(n->out[0]) * FN(esize)(VAL(n->out[0])->dtype);
    for (int b = 0; b < x->batch; b++) memcpy(FN(bp)(x, n->out[0], b), FN(bp)(x, n->in[0], b), bytes);
    return 0;
}

static int FN(softmax)(const nnc_exec *x, const nnc_node *n)
{
    int64_t outer = n->p[0], len = n->p[1], inner = n->p[2];
    for (int b = 0; b < x->batch; b++) {
        const T *a = TP(n->in[0], b);
        T *o = TP(n->out[0], b);
        for (int64_t i = 0; i < outer; i++)
            for (int64_t j = 0; j < inner; j++) {
                const T *p = a + i * len * inner + j;
                T *q = o + i * len * inner + j;
                T mx = p[0], s = 0;
                for (int64_t k = 1; k < len; k++) mx = p[k * inner] > mx ? p[k * inner] : mx;
                for (int64_t k = 0; k < len; k++) s += (q[k * inner] = TEXP(p[k * inner] - mx));
                for (int64_t k = 0; k < len; k++) q[k * inner] /= s;
            }
    }
    return 0;
}

/* ---------------------------------------------------------- data movement */

static int FN(transpose)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vi = VAL(n->in[0]), *vo = VAL(n->out[0]);
    size_t es = FN(esize)(vi->dtype);
    int r = vi->rank;
    int64_t si[NNC_MAX_RANK], so[NNC_MAX_RANK], sp[NNC_MAX_RANK];
    FN(strides)(r, vi->dims, si);
    FN(strides)(r, vo->dims, so);
    for (int d = 0; d < r; d++) sp[d] = si[n->p[d]];
    for (int b = 0; b < x->batch; b++) {
        const char *a = FN(bp)(x, n->in[0], b);
        char *o = FN(bp)(x, n->out[0], b);
        for (int64_t k = 0; k < vo->numel; k++) memcpy(o + (size_t)k * es, a + (size_t)FN(remap)(k, r, so, sp) * es, es);
    }
    return 0;
}

static int FN(concat)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vo = VAL(n->out[0]);
    size_t es = FN(esize)(vo->dtype);
    int64_t axis = n->p[0], outer = 1, inner = 1;
    for (int d = 0; d < axis; d++) outer *= vo->dims[d];
    for (int d = (int)axis + 1; d < vo->rank; d++) inner *= vo->dims[d];
    for (int b = 0; b < x->batch; b++) {
        char *o = FN(bp)(x, n->out[0], b);
        for (int64_t i = 0; i < outer; i++)
            for (int k = 0; k < n->n_in; k++) {
                size_t chunk = (size_t)(VAL(n->in[k])->dims[axis] * inner) * es;
                memcpy(o, FN(bp)(x, n->in[k], b) + (size_t)i * chunk, chunk);
                o += chunk;
            }
    }
    return 0;
}

static int FN(slice)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vi = VAL(n->in[0]), *vo = VAL(n->out[0]);
    size_t es = FN(esize)(vi->dtype);
    int r = vi->rank;
    int64_t si[NNC_MAX_RANK], so[NNC_MAX_RANK];
    FN(strides)(r, vi->dims, si);
    FN(strides)(r, vo->dims, so);
    for (int b = 0; b < x->batch; b++) {
        const char *a = FN(bp)(x, n->in[0], b);
        char *o = FN(bp)(x, n->out[0], b);
        for (int64_t k = 0; k < vo->numel; k++) {
            int64_t rem = k, off = 0;
            for (int d = 0; d < r; d++) {
                int64_t i = rem / so[d];
                rem -= i * so[d];
                off += (n->p[d] + i * n->p[8 + d]) * si[d];
            }
            memcpy(o + (size_t)k * es, a + (size_t)off * es, es);
        }
    }
    return 0;
}

/* Pad as onnxruntime defines it: negative pads first crop the input (the
 * kept part of dimension d is [lo, lo + slen)), then the non-negative pads
 * are filled by the mode relative to the cropped part. */
static int FN(pad)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vi = VAL(n->in[0]), *vo = VAL(n->out[0]);
    int r = vi->rank, isf = nnc_dtype_is_float(vi->dtype);
    size_t es = FN(esize)(vi->dtype);
    int64_t si[NNC_MAX_RANK], so[NNC_MAX_RANK], lo[NNC_MAX_RANK], pb[NNC_MAX_RANK], slen[NNC_MAX_RANK];
    FN(strides)(r, vi->dims, si);
    FN(strides)(r, vo->dims, so);
    for (int d = 0; d < r; d++) {
        int64_t b = n->p[d], e = n->p[8 + d];
        lo[d] = b < 0 ? -b : 0;
        pb[d] = b > 0 ? b : 0;
        slen[d] = vi->dims[d] - lo[d] - (e < 0 ? -e : 0);
    }
    int vv = n->p[17] ? n->in[2] : -1; /* constant_value fed at run time */
    if (nnc_pad_is_identity(x->m, n)) return FN(copy)(x, n); /* an exporter's Pad of zeros (the runtime aliases it) */
    for (int b = 0; b < x->batch; b++) {
        T fv = vv >= 0 ? (isf ? TP(vv, b)[0] : (T)IP(vv, b)[0]) : (T)n->fp[0];
        int64_t iv = vv >= 0 ? (isf ? (int64_t)n->fp[0] : IP(vv, b)[0]) : (int64_t)n->fp[0];
        const char *a = FN(bp)(x, n->in[0], b);
        char *o = FN(bp)(x, n->out[0], b);
        if (n->p[16] == 0 && r > 0) {
            /* constant mode, row by row along the last axis: the value
             * before and after the row's source segment, and on rows
             * whose index lies outside on another axis (the same values
             * as the element-wise loop below) */
            const void *pv = isf ? (const void *)&fv : (const void *)&iv;
            int64_t W = vo->dims[r - 1], b0 = pb[r - 1], len = slen[r - 1] > 0 ? slen[r - 1] : 0;
            int64_t m0 = b0 < W ? b0 : W, m1 = b0 + len < W ? b0 + len : W; /* [m0, m1): copied */
            if (m1 < m0) m1 = m0;
            for (int64_t row = 0; W > 0 && row < vo->numel / W; row++) {
                int64_t rem = row * W, off = 0;
                int outside = 0;
                for (int d = 0; d < r - 1; d++) {
                    int64_t i = rem / so[d];
                    rem -= i * so[d];
                    int64_t sd = i - pb[d];
                    if (sd < 0 || sd >= slen[d]) outside = 1;
                    off += (lo[d] + sd) * si[d];
                }
                char *orow = o + (size_t)(row * W) * es;
                for (int64_t k = 0; k < W; k++)
                    if (outside || k < m0 || k >= m1) memcpy(orow + (size_t)k * es, pv, es);
                if (!outside && m1 > m0)
                    memcpy(orow + (size_t)m0 * es, a + (size_t)(off + lo[r - 1] + (m0 - b0)) * es, (size_t)(m1 - m0) * es);
            }
            continue;
        }
        for (int64_t k = 0; k < vo->numel; k++) {
            int64_t rem = k, off = 0;
            int outside = 0;
            for (int d = 0; d < r; d++) {
                int64_t i = rem / so[d];
                rem -= i * so[d];
                int64_t s = i - pb[d], len = slen[d];
                if (s < 0 || s >= len) {
                    if (n->p[16] == 0) outside = 1;
                    else if (n->p[16] == 2) s = s < 0 ? 0 : len - 1;
                    else if (n->p[16] == 3) { /* wrap: the kept part repeats (len > 0: ops.c) */
                        s %= len;
                        if (s < 0) s += len;
                    } else {
                        int64_t period = 2 * (len - 1);
                        if (period == 0) s = 0;
                        else {
                            s %= period;
                            if (s < 0) s += period;
                            if (s >= len) s = period - s;
                        }
                    }
                }
                off += (lo[d] + s) * si[d];
            }
            if (outside) {
                if (isf) memcpy(o + (size_t)k * es, &fv, es);
                else memcpy(o + (size_t)k * es, &iv, es);
            } else {
                memcpy(o + (size_t)k * es, a + (size_t)off * es, es);
            }
        }
    }
    return 0;
}

static int FN(gather)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vd = VAL(n->in[0]), *vi = VAL(n->in[1]);
    size_t es = FN(esize)(vd->dtype);
    int64_t axis = n->p[0], outer = 1, inner = 1, alen = vd->dims[axis];
    for (int d = 0; d < axis; d++) outer *= vd->dims[d];
    for (int d = (int)axis + 1; d < vd->rank; d++) inner *= vd->dims[d];
    for (int b = 0; b < x->batch; b++) {
        const char *a = FN(bp)(x, n->in[0], b);
        const int64_t *idx = IP(n->in[1], b);
        char *o = FN(bp)(x, n->out[0], b);
        for (int64_t k = 0; k < vi->numel; k++)
            if (idx[k] < -alen || idx[k] >= alen) return 1;
        for (int64_t i = 0; i < outer; i++)
            for (int64_t k = 0; k < vi->numel; k++) {
                int64_t j = idx[k] < 0 ? idx[k] + alen : idx[k];
                memcpy(o, a + (size_t)((i * alen + j) * inner) * es, (size_t)inner * es);
                o += (size_t)inner * es;
            }
    }
    return 0;
}

/* Float to integer conversion truncates toward zero; a value outside int64
 * (or NaN), undefined in ONNX, gives INT64_MIN before narrowing.  A UINT64
 * target takes [2^63, 2^64) through uint64_t. */
static int64_t FN(f2i)(double v, nnc_dtype to)
{
    if (to == NNC_DTYPE_BOOL) return v != 0; /* NaN is true, as in C */
    if (to == NNC_DTYPE_UINT64 && v >= 9223372036854775808.0 && v < 18446744073709551616.0)
        return (int64_t)(uint64_t)v;
    if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
    return FN(wrap)(to, (int64_t)v);
}

static int FN(cast)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vi = VAL(n->in[0]);
    nnc_dtype to = (nnc_dtype)n->p[0];
    int64_t cnt = vi->numel;
    for (int b = 0; b < x->batch; b++) {
        if (nnc_dtype_is_float(vi->dtype)) {
            const T *a = TP(n->in[0], b);
            if (nnc_dtype_is_float(to)) {
                T *o = TP(n->out[0], b);
                for (int64_t k = 0; k < cnt; k++) o[k] = to == NNC_DTYPE_FLOAT ? (T)(float)a[k] : a[k];
            } else {
                int64_t *o = IP(n->out[0], b);
                for (int64_t k = 0; k < cnt; k++) o[k] = FN(f2i)((double)a[k], to);
            }
        } else {
            const int64_t *a = IP(n->in[0], b);
            int from_u64 = vi->dtype == NNC_DTYPE_UINT64;
            if (nnc_dtype_is_float(to)) {
                T *o = TP(n->out[0], b);
                for (int64_t k = 0; k < cnt; k++) {
                    if (to == NNC_DTYPE_FLOAT) o[k] = from_u64 ? (T)(float)(uint64_t)a[k] : (T)(float)a[k];
                    else o[k] = from_u64 ? (T)(uint64_t)a[k] : (T)a[k];
                }
            } else {
                int64_t *o = IP(n->out[0], b);
                for (int64_t k = 0; k < cnt; k++) o[k] = FN(wrap)(to, a[k]);
            }
        }
    }
    return 0;
}

static int FN(constant)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vo = VAL(n->out[0]);
    const nnc_attr *a = n->n_attrs ? &n->attrs[0] : NULL;
    int isf = nnc_dtype_is_float(vo->dtype);
    for (int b = 0; b < x->batch; b++) {
        for (int64_t k = 0; k < vo->numel; k++) {
            double fv = 0;
            int64_t iv = 0;
            if (n->op == NNC_OP_CONSTANTOFSHAPE) {
                const nnc_attr *va = nnc_node_attr(n, "value");
                if (va && va->t) {
                    fv = va->t->f ? va->t->f[0] : 0;
                    iv = va->t->i ? va->t->i[0] : 0;
                }
            } else if (a == NULL) {
                /* unreachable: shape inference requires the attribute */
            } else if (a->t) {
                fv = a->t->f ? a->t->f[k] : 0;
                iv = a->t->i ? a->t->i[k] : 0;
            } else if (a->type == NNC_ATTR_FLOAT) {
                fv = a->f;
            } else if (a->type == NNC_ATTR_INT) {
                iv = a->i;
            } else if (a->type == NNC_ATTR_FLOATS) {
                fv = a->floats[k];
            } else {
                iv = a->ints[k];
            }
            if (isf) TP(n->out[0], b)[k] = (T)fv;
            else IP(n->out[0], b)[k] = iv;
        }
    }
    return 0;
}

static int FN(shape)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vi = VAL(n->in[0]), *vo = VAL(n->out[0]);
    for (int b = 0; b < x->batch; b++)
        for (int64_t k = 0; k < vo->numel; k++) IP(n->out[0], b)[k] = vi->dims[n->p[0] + k];
    return 0;
}

/* ----------------------------------------------------------- dense algebra */

/* out[r, c] = beta * C broadcast (Gemm's unidirectional rule, mode bits in p[5]). */
static void FN(fill_bias)(T *o, int64_t M, int64_t N, const T *c, int64_t mode, T beta)
{
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            o[i * N + j] = beta * c[((mode & 1) ? i * ((mode & 2) ? N : 1) : 0) + ((mode & 2) ? j : 0)];
}

/* A product whose rows are stacked over samples goes to BLAS in blocks of
 * NNC_GEMM_ROWS rows counted from the call's first row: BLAS may take
 * another path (and rounding) for another row count, so this keeps a row's
 * arithmetic independent of how many samples the call holds; the runtime's
 * tiles hold a multiple of NNC_GEMM_ROWS samples (models/runtime.c), so it
 * is independent of the tiling too. */
static void FN(gemm_rows)(CBLAS_TRANSPOSE tb, int64_t rows, int64_t N, int64_t K, T alpha, const T *A, int64_t lda,
                          const T *B, int64_t ldb, T beta, T *C, int64_t ldc)
{
    for (int64_t r0 = 0; r0 < rows; r0 += NNC_GEMM_ROWS) {
        int64_t m = rows - r0 < NNC_GEMM_ROWS ? rows - r0 : NNC_GEMM_ROWS;
        GEMM(CblasRowMajor, CblasNoTrans, tb, (int)m, (int)N, (int)K, alpha, A + r0 * lda, (int)lda, B, (int)ldb, beta,
             C + r0 * ldc, (int)ldc);
    }
}

static int FN(gemm)(const nnc_exec *x, const nnc_node *n)
{
    int ta = (int)n->p[0], tb = (int)n->p[1];
    int64_t M = n->p[2], N = n->p[3], K = n->p[4], mode = n->p[5];
    T alpha = (T)n->fp[0], beta = (T)n->fp[1];
    int va = n->in[0], vb = n->in[1], vc = n->n_in > 2 ? n->in[2] : -1;
    int has_c = vc >= 0 && beta != 0;
    int64_t lda = ta ? M : K, ldb = tb ? K : N;
    /* Stack the batch into the rows when A is per-sample and the rest shared. */
    int fuse = x->batched[va] && !x->batched[vb] && !ta && (vc < 0 || !x->batched[vc]);
    int reps = fuse ? 1 : x->batch;
    int64_t rows = fuse ? M * x->batch : M;
    for (int b = 0; b < reps; b++) {
        T *o = TP(n->out[0], b);
        if (has_c) {
            const T *c = TP(vc, b);
            if (fuse)
                for (int s = 0; s < x->batch; s++) FN(fill_bias)(o + (size_t)s * M * N, M, N, c, mode, beta);
            else
                FN(fill_bias)(o, M, N, c, mode, beta);
        }
        if (rows && N && K && fuse) /* BLAS refuses K = 0 (lda or ldb would be 0) */
            FN(gemm_rows)(tb ? CblasTrans : CblasNoTrans, rows, N, K, alpha, TP(va, b), lda, TP(vb, b), ldb,
                          has_c ? (T)1 : (T)0, o, N);
        else if (rows && N && K)
            GEMM(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)rows, (int)N, (int)K,
                 alpha, TP(va, b), (int)lda, TP(vb, b), (int)ldb, has_c ? (T)1 : (T)0, o, (int)N);
        else if (!has_c) /* an empty product is 0 */
            for (int64_t k = 0; k < rows * N; k++) o[k] = 0;
    }
    return 0;
}

/* CSR [M,K] times dense [K,N] (N = 1 for a vector). */
static void FN(spmm)(const nnc_csr *a, const T *bm, int64_t N, T *o)
{
    for (int64_t r = 0; r < a->rows; r++) {
        T *orow = o + r * N;
        for (int64_t j = 0; j < N; j++) orow[j] = 0;
        for (int64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++) {
            T v = (T)a->val[k];
            const T *brow = bm + a->col[k] * N;
            for (int64_t j = 0; j < N; j++) orow[j] += v * brow[j];
        }
    }
}

static int FN(matmul)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *va = VAL(n->in[0]), *vb = VAL(n->in[1]), *vo = VAL(n->out[0]);
    int64_t M = va->rank == 1 ? 1 : va->dims[va->rank - 2], K = va->dims[va->rank - 1];
    int64_t N = vb->rank == 1 ? 1 : vb->dims[vb->rank - 1];
    if (va->sparse) {
        for (int b = 0; b < x->batch; b++) FN(spmm)(va->sparse, TP(n->in[1], b), N, TP(n->out[0], b));
        return 0;
    }
    if (K == 0) { /* empty inner dimension: every entry is an empty sum */
        for (int b = 0; b < x->batch; b++)
            for (int64_t k = 0; k < vo->numel; k++) TP(n->out[0], b)[k] = 0;
        return 0;
    }
    int ba = va->rank > 2 ? va->rank - 2 : 0, bb = vb->rank > 2 ? vb->rank - 2 : 0;
    int br = ba > bb ? ba : bb;
    if (bb == 0 && !x->batched[n->in[1]] && x->batched[n->in[0]]) {
        /* shared right operand: one product over batch * leading dims * M rows */
        int64_t rows = va->numel / K * x->batch;
        if (rows && N)
            FN(gemm_rows)(CblasNoTrans, rows, N, K, (T)1, TP(n->in[0], 0), K, TP(n->in[1], 0), N, (T)0, TP(n->out[0], 0), N);
        return 0;
    }
    int64_t nbatch = 1, sa[NNC_MAX_RANK], sb[NNC_MAX_RANK], od[NNC_MAX_RANK];
    for (int d = 0; d < br; d++) {
        od[d] = vo->dims[d];
        nbatch *= od[d];
    }
    /* element strides of each operand's matrices over the broadcast batch dims */
    int64_t ma = M * K, mb = K * N, acc_a = ma, acc_b = mb;
    for (int d = br - 1; d >= 0; d--) {
        int da = d - (br - ba), db = d - (br - bb);
        int64_t la = da >= 0 ? va->dims[da] : 1, lb = db >= 0 ? vb->dims[db] : 1;
        sa[d] = la == 1 ? 0 : acc_a;
        sb[d] = lb == 1 ? 0 : acc_b;
        acc_a *= la;
        acc_b *= lb;
    }
    for (int b = 0; b < x->batch; b++) {
        const T *A = TP(n->in[0], b), *B = TP(n->in[1], b);
        T *O = TP(n->out[0], b);
        for (int64_t t = 0; t < nbatch; t++) {
            int64_t rem = t, oa = 0, ob = 0;
            for (int d = br - 1; d >= 0; d--) {
                int64_t i = rem % od[d];
                rem /= od[d];
                oa += i * sa[d];
                ob += i * sb[d];
            }
            if (M && N)
                GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K, (T)1, A + oa, (int)K, B + ob,
                     (int)N, (T)0, O + t * M * N, (int)N);
        }
    }
    return 0;
}

/* ------------------------------------------------------- convolution, pools */

/* Geometry of a (1-D or 2-D) window op: X [N, C, H, W] -> [N, M, OH, OW]
 * (model_impl.h's nnc_window). */
typedef nnc_window FN(geom);

static void FN(geometry)(const nnc_model *m, const nnc_node *n, FN(geom) *g) { *g = nnc_window_of(m, n); }

/* ---- direct convolution: no im2col.  The input of one image is copied,
 * zero-padded, into sh x sw phase planes per channel: padded element (R, C)
 * (input row R - pt, column C - pl) goes to phase (R mod sh, C mod sw) at
 * (R / sh, C / sw) of a Hq x Wq plane.  Output q = oy Wq + ox of the
 * phase-width grid (columns ox >= ow are discarded) then reads tap
 * (c, ki, kj) at a fixed offset + q, so a strip of consecutive q is one
 * contiguous load per tap, across output rows, whatever the stride.  Each
 * output is s = 0; s = fma(w_t, x_t, s) for the taps t in (c, ki, kj)
 * order, one rounding per tap on every path (dconv_strip_impl.h), so every
 * instruction-set path gives the same bits, which test_runtime checks
 * against that definition. */
#define NNC_DC_MB 8                          /* output channels per block */
/* an image's products (padded) worth a thread team: resnet_4b at batch 1
 * on 2 threads ran 5.9k/s with 2^16 (the team's start and barrier cost more
 * than half of a 4 x 4 layer), 8.9k/s with 2^18, 6.9k/s with 2^19 (one
 * thread: 6.9k/s) */
#define NNC_DC_PAR_MACS ((int64_t)1 << 18)
#define NNC_DC_VW ((int64_t)(64 / sizeof(T))) /* rows of outputs padded to 64 bytes, the widest path's vector */
/* Inputs at most this many columns wide get their phase planes through a
 * map, one pass per channel (dconv_image).  Copied row by row, resnet_4b's
 * rows of 8 and 16 columns cost 10 to 14 TSC cycles each, about a fifth of
 * its time at batch 64; through the map (AVX-512, 2 threads, batch 64)
 * resnet_4b ran 26.2k/s against 20.5k/s, the zoo CNN (28 columns) 134k/s
 * against 106k/s; 16 or 64 here changed no model by more than the noise */
#define NNC_DC_MAP_W 32

#ifndef NNC_DCPERM_DEFINED
#define NNC_DCPERM_DEFINED
/* One step of the permute plan (dconv_prepare): two vectors of v lanes
 * from input elements [off, off + 2 v) of a channel's plane, loaded where
 * bits of m0 and m1 are set (the lanes inside the plane; the others read
 * as 0, never touching memory past it), lane l of the destination vector
 * taking element off + idx[l] where bit l of lanes is set. */
typedef struct nnc_dcperm {
    int32_t off;
    uint16_t lanes, m0, m1, pad;
    uint8_t idx[16];
} nnc_dcperm;
#endif
#define NNC_DC_PERM_OPS 4 /* steps per destination vector at most, else gathers */

/* Phase-plane geometry of a direct convolution. */
typedef struct FN(dcgeom) {
    int64_t Hq, Wq, plane, chan, Q, Qr, Mp, ntap;
    int64_t mapn; /* entries of the phase planes' map (dconv_prepare), 0: none */
    int64_t Mq;   /* output channels of the channel kernel's filters: M padded to two of the widest vectors */
    int64_t nacc; /* accumulators: the strips' (Mp Qr) or the channel kernel's, the more */
    /* The channel kernel's own layout, where it saves the phase planes (a
     * stride > 1, or no padding): the input read in place (cdirect: every
     * tile's reads inside it), or copied zero-padded into planes of Hp x Wp
     * by a map (mapcn entries: narrow inputs, none cropped, so an expanding
     * load per vector).  A tap (c, ki, kj) of the pixel at (oy, ox) then
     * reads c cplane + (oy sh + ki dh) cWx + ox sw + kj dw; cWx 0: none. */
    int64_t cWx, cplane, mapcn;
    int cdirect;
    int64_t xslack; /* over-read slack after the planes (zeroed) */
} FN(dcgeom);

/* The channel kernel's tile shape: two rows of 4 outputs (1), or a row of 8 (0). */
static int FN(dc_two)(const FN(geom) *g) { return g->ow <= 4 && g->oh % 2 == 0; }

/* The layout of one image's outputs for a path of vw elements per vector:
 * strips along the phase-width grid q = oy Wq + ox, or row by row over the
 * ow real columns when that takes fewer strips (8 x 8 outputs on a 10-wide
 * grid: 8 strips of 8, not 10) and the last row's strip stays inside the
 * accumulators' row of Qr (*rows, *rstep, *rlen as dconv_strip takes them;
 * the same taps per output); or the channel kernel, where it leaves fewer
 * lanes idle (small outputs: 4 x 4 pixels are 2 strips of 16 on AVX-512,
 * half of them past the row ends; *two its tile shape, *lanes its lanes).
 * Returns 1 for the channel kernel. */
static int FN(dc_plan)(const FN(geom) *g, const FN(dcgeom) *d, int64_t M, int64_t vw, int64_t *rows, int64_t *rstep,
                       int64_t *rlen, int *two, int64_t *lanes)
{
    int64_t vr = (g->ow + vw - 1) / vw;
    *rows = 1, *rstep = 0, *rlen = d->Q;
    if (g->oh * vr < (d->Q + vw - 1) / vw && (g->oh - 1) * d->Wq + vr * vw <= d->Qr)
        *rows = g->oh, *rstep = d->Wq, *rlen = g->ow;
    *two = FN(dc_two)(g);
    int64_t tiles = *two ? g->oh / 2 : g->oh * ((g->ow + 7) / 8);
    int64_t lanes_s = *rows * ((*rlen + vw - 1) / vw) * vw * d->Mp;
    *lanes = tiles * 8 * ((M + vw - 1) / vw * vw);
    /* as many lanes either way: the channel kernel where it has a layout of
     * its own (no phase planes to build; its epilogue in the tile) */
    return *lanes < lanes_s || (*lanes == lanes_s && d->cWx);
}

/* Of window geometry g, for one group: cg input channels, M filters. */
static void FN(dc_geometry)(const FN(geom) *g, int64_t cg, int64_t M, FN(dcgeom) *d)
{
    int64_t Hp = (g->oh - 1) * g->sh + (g->kh - 1) * g->dh + 1, Wp = (g->ow - 1) * g->sw + (g->kw - 1) * g->dw + 1;
    d->Hq = (Hp + g->sh - 1) / g->sh;
    d->Wq = (Wp + g->sw - 1) / g->sw;
    d->plane = d->Hq * d->Wq;
    d->chan = g->sh * g->sw * d->plane;
    d->Q = (g->oh - 1) * d->Wq + g->ow;
    d->Qr = (d->Q + NNC_DC_VW - 1) / NNC_DC_VW * NNC_DC_VW;
    d->Mp = (M + NNC_DC_MB - 1) / NNC_DC_MB * NNC_DC_MB;
    d->ntap = cg * g->kh * g->kw;
    d->Mq = (M + 2 * NNC_DC_VW - 1) / (2 * NNC_DC_VW) * (2 * NNC_DC_VW);
    d->mapn = g->w <= NNC_DC_MAP_W && g->h * g->w < INT32_MAX ? (d->chan + 15) / 16 * 16 : 0;
    /* the channel kernel's layout: tiles of 8 columns (or 2 rows of 4)
     * read 7 sw (3 sw) elements past a row's last output at most: inside
     * the input in place only when they hold no column past ow */
    d->cWx = d->cplane = d->mapcn = 0;
    d->cdirect = g->pt == 0 && g->pl == 0 && (g->oh - 1) * g->sh + (g->kh - 1) * g->dh < g->h &&
                 (g->ow - 1) * g->sw + (g->kw - 1) * g->dw < g->w && (FN(dc_two)(g) ? g->ow == 4 : g->ow % 8 == 0);
    if (d->cdirect) d->cWx = g->w, d->cplane = g->h * g->w;
    else if (d->mapn && (g->sh > 1 || g->sw > 1) && g->h + g->pt <= Hp && g->w + g->pl <= Wp && Hp * Wp < INT32_MAX)
        d->cWx = Wp, d->cplane = Hp * Wp, d->mapcn = (Hp * Wp + 15) / 16 * 16;
    d->xslack = NNC_DC_VW + 8 * g->sw;
    /* the channel kernel's accumulators where some path may choose it */
    d->nacc = d->Mp * d->Qr;
    int64_t rows, rstep, rlen, lanes;
    int two;
    for (int64_t vw = 16 / (int64_t)sizeof(T); vw <= NNC_DC_VW; vw *= 2)
        if (FN(dc_plan)(g, d, M, vw, &rows, &rstep, &rlen, &two, &lanes)) {
            int64_t c = (g->oh + 1) / 2 * 2 * ((g->ow + 7) / 8 * 8) * d->Mq;
            if (c > d->nacc) d->nacc = c;
        }
}

/* Destination vectors of a channel's phase planes (NNC_DC_VW lanes), and
 * the bytes of the permute plan that fills them (an int64: its steps per
 * vector, 0 for none; then the steps), 8-byte multiples. */
static int64_t FN(dc_plan_vecs)(const FN(dcgeom) *d) { return d->mapn ? (d->chan + NNC_DC_VW - 1) / NNC_DC_VW : 0; }
static size_t FN(dc_plan_bytes)(const FN(dcgeom) *d)
{
    size_t nv = (size_t)FN(dc_plan_vecs)(d);
    return nv ? 8 + nv * NNC_DC_PERM_OPS * sizeof(nnc_dcperm) : 0;
}

/* Bytes of one group's prepared part (8-byte aligned). */
static size_t FN(dconv_prep_bytes)(const FN(dcgeom) *d, int64_t sw)
{
    return ((size_t)((d->Mp + d->Mq) * d->ntap) * sizeof(T) + 7) / 8 * 8 + (size_t)(2 * d->ntap + 2 * sw) * sizeof(int64_t) +
           (size_t)(d->mapn + d->mapcn) * sizeof(int32_t) + FN(dc_plan_bytes)(d);
}

/* Whether n runs as a direct convolution: weights shared by the samples. */
static int FN(dconv_ok)(int per_sample) { return !per_sample; }

/* Scratch (in T) of a direct convolution of n. */
static int64_t FN(dconv_scratch)(const nnc_model *m, const nnc_node *n)
{
    int64_t group = n->p[10], cg;
    FN(geom) g;
    FN(dcgeom) d;
    FN(geometry)(m, n, &g);
    cg = g.c / group;
    FN(dc_geometry)(&g, cg, m->vals[n->in[1]].dims[0] / group, &d);
    /* one group's prepared part when not prepared beforehand, phase
     * planes + over-read slack, accumulators (see dconv_prepare) */
    return (int64_t)((FN(dconv_prep_bytes)(&d, g.sw) + sizeof(T) - 1) / sizeof(T)) + cg * d.chan + d.xslack + d.nacc;
}

/* A direct convolution's state: the prepared part (one group's filters
 * packed tap-major per block of NNC_DC_MB channels, zero past M; the taps'
 * offsets in the phase planes; each column phase's input columns; for
 * narrow inputs, the map of a channel's phase planes), built
 * once per runtime (nnc_op_conv_prep) or per call into scratch, the
 * filters also tap-major over all channels for the channel kernel; then the
 * phase planes and the accumulators of the current image, in scratch. */
typedef struct FN(dcwork) {
    FN(dcgeom) d;
    T *wp, *wc, *xp, *acc; /* wc: the channel kernel's filters, [tap][Mq] */
    int64_t *toff, *jb; /* jb[2 r], jb[2 r + 1]: phase r's first and end column j with input inside */
    int32_t *map;       /* or NULL: element q of a channel's phase planes is its input plane's element
                           map[q], or 0 where map[q] < 0 (padding); d.mapn entries */
    int contig;         /* with map: its entries >= 0 are 0, 1, 2, ... in order (stride 1: the planes
                           hold every input element, rows after rows, none cropped) */
    const nnc_dcperm *perm; /* with map, strided, or NULL: the permute plan, nperm steps for the */
    int nperm;              /* destination vector v of NNC_DC_VW lanes at perm + v NNC_DC_PERM_OPS */
    int64_t *toffc;         /* with d.cWx: the taps' offsets in the channel kernel's layout */
    int32_t *mapc;          /* with d.mapcn: element q of its padded planes is input element mapc[q] (or 0) */
} FN(dcwork);

/* Point k's prepared part at area (8-byte aligned, dconv_prep_bytes) and,
 * with W != NULL, fill it from the group's filters W [M][cg kh kw]. */
static void FN(dconv_prepare)(const FN(geom) *g, int64_t cg, const T *W, int64_t M, void *area, FN(dcwork) *k)
{
    FN(dc_geometry)(g, cg, M, &k->d);
    const FN(dcgeom) *d = &k->d;
    int64_t sh = g->sh, sw = g->sw, ntap = d->ntap;
    k->wp = area;
    k->wc = k->wp + d->Mp * ntap;
    k->toff = (int64_t *)(void *)((char *)area + ((size_t)((d->Mp + d->Mq) * ntap) * sizeof(T) + 7) / 8 * 8);
    k->toffc = k->toff + ntap;
    k->jb = k->toffc + ntap;
    k->map = d->mapn ? (int32_t *)(void *)(k->jb + 2 * sw) : NULL;
    k->mapc = d->mapcn ? (int32_t *)(void *)(k->jb + 2 * sw) + d->mapn : NULL;
    /* (not when the planes crop rows or columns of the input: an output
     * cropped for a fused pool, pool_crop) */
    k->contig = sh == 1 && sw == 1 && g->h + g->pt <= d->Hq && g->w + g->pl <= d->Wq;
    int64_t *plan_ok = d->mapn ? (int64_t *)(void *)((int32_t *)(void *)(k->jb + 2 * sw) + d->mapn + d->mapcn) : NULL;
    nnc_dcperm *perm = plan_ok ? (nnc_dcperm *)(void *)(plan_ok + 1) : NULL;
    k->perm = NULL;
    if (W == NULL) {
        if (plan_ok && *plan_ok) k->perm = perm, k->nperm = (int)*plan_ok;
        return;
    }
    for (int64_t m0 = 0; m0 < d->Mp; m0 += NNC_DC_MB)
        for (int64_t t = 0; t < ntap; t++)
            for (int64_t j = 0; j < NNC_DC_MB; j++)
                k->wp[m0 * ntap + t * NNC_DC_MB + j] = m0 + j < M ? W[(m0 + j) * ntap + t] : (T)0;
    for (int64_t t = 0; t < ntap; t++)
        for (int64_t m = 0; m < d->Mq; m++) k->wc[t * d->Mq + m] = m < M ? W[m * ntap + t] : (T)0;
    for (int64_t c = 0, t = 0; c < cg; c++)
        for (int64_t ki = 0; ki < g->kh; ki++)
            for (int64_t kj = 0; kj < g->kw; kj++) {
                int64_t ry = ki * g->dh, rx = kj * g->dw;
                k->toffc[t] = c * d->cplane + ry * d->cWx + rx;
                k->toff[t++] = c * d->chan + ((ry % sh) * sw + rx % sw) * d->plane + (ry / sh) * d->Wq + rx / sw;
            }
    /* the channel kernel's padded planes: element (R, C) holds input (R - pt, C - pl) */
    for (int64_t q = 0; q < d->mapcn; q++) {
        int64_t iy = q / d->cWx - g->pt, ix = q % d->cWx - g->pl;
        k->mapc[q] = q < d->cplane && iy >= 0 && iy < g->h && ix >= 0 && ix < g->w ? (int32_t)(iy * g->w + ix) : -1;
    }
    for (int64_t r = 0; r < sw; r++) { /* column phase r: padded column C = j sw + r, input column C - pl */
        int64_t j0 = g->pl - r > 0 ? (g->pl - r + sw - 1) / sw : 0;
        int64_t j1 = g->w + g->pl - r > 0 ? (g->w + g->pl - r + sw - 1) / sw : 0;
        if (j1 > d->Wq) j1 = d->Wq;
        if (j0 > j1) j0 = j1;
        k->jb[2 * r] = j0;
        k->jb[2 * r + 1] = j1;
    }
    /* the map: element q of phase (rp, r)'s plane at (i, j) holds padded
     * element (i sh + rp, j sw + r), input (i sh + rp - pt, j sw + r - pl);
     * -1 (a zero) in the phases no tap reads (a 1 x 1 kernel of stride 2
     * reads one of its four) */
    for (int64_t q = 0; q < d->mapn; q++) {
        int64_t ph = q / d->plane, i = q % d->plane / d->Wq, j = q % d->Wq;
        int64_t iy = i * sh + ph / sw - g->pt, ix = j * sw + ph % sw - g->pl;
        int used_r = 0, used_c = 0;
        for (int64_t ki = 0; ki < g->kh && !used_r; ki++) used_r = ki * g->dh % sh == ph / sw;
        for (int64_t kj = 0; kj < g->kw && !used_c; kj++) used_c = kj * g->dw % sw == ph % sw;
        k->map[q] = q < d->chan && used_r && used_c && iy >= 0 && iy < g->h && ix >= 0 && ix < g->w
                        ? (int32_t)(iy * g->w + ix)
                        : -1;
    }
    /* the permute plan (strided maps; stride 1 takes expanding loads): each
     * destination vector's lanes in steps, each step the lanes whose input
     * elements lie within 2 NNC_DC_VW of the lowest one left, so a step is
     * two loads and a two-source permute where a gather reads lane by lane;
     * none when some vector would take more than NNC_DC_PERM_OPS steps.
     * Every vector takes as many steps as the most any takes (the others
     * empty, zeroed here: no lanes, nothing loaded), so the loop's branches
     * follow a fixed count, not a per-vector one */
    if (!d->mapn) return;
    const int64_t PW = NNC_DC_VW, nv = FN(dc_plan_vecs)(d), hw = g->h * g->w;
    int ok = !k->contig, most = 0;
    memset(perm, 0, sizeof *perm * (size_t)(nv * NNC_DC_PERM_OPS));
    for (int64_t v = 0; v < nv && ok; v++) {
        const int32_t *e = k->map + v * PW;
        uint32_t left = 0;
        for (int64_t l = 0; l < PW; l++) left |= (uint32_t)(e[l] >= 0) << l;
        int cnt = 0;
        for (; left && ok; cnt++) {
            if (cnt == NNC_DC_PERM_OPS) {
                ok = 0;
                break;
            }
            int32_t lo = INT32_MAX;
            for (int64_t l = 0; l < PW; l++)
                if (left >> l & 1 && e[l] < lo) lo = e[l];
            nnc_dcperm *o = perm + v * NNC_DC_PERM_OPS + cnt;
            o->off = lo;
            int64_t n0 = hw - lo < PW ? hw - lo : PW, n1 = hw - lo - PW <= 0 ? 0 : hw - lo - PW < PW ? hw - lo - PW : PW;
            o->m0 = (uint16_t)((1u << n0) - 1);
            o->m1 = (uint16_t)((1u << n1) - 1);
            for (int64_t l = 0; l < PW; l++)
                if (left >> l & 1 && e[l] - lo < 2 * PW) {
                    o->lanes |= (uint16_t)(1u << l);
                    o->idx[l] = (uint8_t)(e[l] - lo);
                }
            left &= ~(uint32_t)o->lanes;
        }
        most = cnt > most ? cnt : most;
    }
    *plan_ok = ok ? most : 0;
    if (ok) k->perm = perm, k->nperm = most;
}

/* The direct convolution of one image per instruction-set path
 * (dconv_strip_impl.h: the inner kernel, the epilogue and the phase
 * planes, each compiled for the path), chosen by nnc_isa(), so
 * NNC_ISA=generic runs the baseline's code here too: the vector width is
 * the path's own (a 64-byte vector on AVX2 spilled half of its sixteen
 * accumulators).  Every path gives the same bits. */
typedef void (*FN(dcimage))(const FN(geom) *, const FN(dcwork) *, const T *, int64_t, int64_t, const T *, int,
                            const FN(geom) *, const T *, int, T *);
#define DC_SFX(x) FN(x##_generic)
#define DC_BYTES 16
#define DC_ATTR
/* lane by lane through libm's fma (TFMA): correctly rounded, in hardware
 * where the CPU has it */
#define DC_FMA(a, w, v)                                                                                                \
    do {                                                                                                               \
        for (int l_ = 0; l_ < (int)(DC_BYTES / sizeof(T)); l_++) (a)[l_] = TFMA((w), (v)[l_], (a)[l_]);                  \
    } while (0)
#include "models/dconv_strip_impl.h"
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NNC_DC_X86 1
#include <immintrin.h>
#define DC_SFX(x) FN(x##_avx2)
#define DC_BYTES 32
#define DC_ATTR __attribute__((target("avx2,fma")))
#define DC_FMA(a, w, v) ((a) = TVFMA256((w), (v), (a)))
#define DC_GATHER(base, ip) TVGATHER256((base), (ip))
#ifdef TVTILEOUT256
#define DC_TILE_OUT(x, nch, o, cs, r, off1, n0, n1, relu) TVTILEOUT256((x), (nch), (o), (cs), (r), (off1), (n0), (n1), (relu))
#endif
#include "models/dconv_strip_impl.h"
#define DC_SFX(x) FN(x##_avx512)
#define DC_BYTES 64
#define DC_ATTR __attribute__((target("avx512f")))
#define DC_FMA(a, w, v) ((a) = TVFMA512((w), (v), (a)))
#define DC_PAIR 1
#define DC_ROW512 1
#define DC_CNB 2
#define DC_GATHER(base, ip) TVGATHER512((base), (ip))
#ifdef TVTILEOUT512
#define DC_TILE_OUT(x, nch, o, cs, r, off1, n0, n1, relu) TVTILEOUT512((x), (nch), (o), (cs), (r), (off1), (n0), (n1), (relu))
#endif
#ifdef TVPOOLROW512
#define DC_POOL_ROW(o, a, Wq, kh, kw, sw, n, b) TVPOOLROW512((o), (a), (Wq), (kh), (kw), (sw), (n), (b))
#endif
/* a <- fma(w, v, a), c <- fma(w, u, c), w broadcast once */
#define DC_FMA2(a, c, w, v, u)                                                                                         \
    do {                                                                                                               \
        TVEC512 b_ = TVSET512(w);                                                                                      \
        (a) = TVFMAV512(b_, (v), (a));                                                                                 \
        (c) = TVFMAV512(b_, (u), (c));                                                                                 \
    } while (0)
#include "models/dconv_strip_impl.h"
#endif

/* The path's image function. */
static FN(dcimage) FN(dconv_image_pick)(void)
{
#ifdef NNC_DC_X86
    nnc_isa_level l = nnc_isa();
    if (l >= NNC_ISA_AVX512) return FN(dconv_image_avx512);
    if (l >= NNC_ISA_AVX2) return FN(dconv_image_avx2);
#endif
    return FN(dconv_image_generic);
}

/* g cropped to the rows and columns of its output that a MaxPool fused
 * after it (pool, every window inside) reads: the convolution computes
 * only those (VeriVital's Convnet_maxpool: 24 x 24 of 27 x 27). */
static void FN(pool_crop)(const nnc_model *m, const nnc_node *pool, FN(geom) *g)
{
    FN(geom) pg;
    FN(geometry)(m, pool, &pg);
    int64_t h = (pg.oh - 1) * pg.sh + pg.kh, w = (pg.ow - 1) * pg.sw + pg.kw;
    if (h < g->oh) g->oh = h;
    if (w < g->ow) g->ow = w;
}

/* The prepared parts of Conv n's direct path for every group, malloc'd
 * into *out (NULL when n does not run directly: weights or bias not
 * constant), for its output cropped as pool_crop does when pool != NULL
 * (the MaxPool the runtime fuses after it, as conv's x->pool).  Returns 0,
 * or -1 when out of memory. */
static int FN(conv_prep)(const nnc_model *m, const nnc_node *n, const nnc_node *pool, void **out)
{
    *out = NULL;
    const nnc_value *vw = &m->vals[n->in[1]];
    if (vw->kind != NNC_VAL_CONST || vw->f == NULL || vw->sparse) return 0;
    if (n->n_in > 2 && n->in[2] >= 0 && m->vals[n->in[2]].kind != NNC_VAL_CONST) return 0;
    FN(geom) g;
    FN(geometry)(m, n, &g);
    if (pool) FN(pool_crop)(m, pool, &g);
    int64_t group = n->p[10], M = vw->dims[0] / group, cg = g.c / group, kdim = cg * g.kh * g.kw;
    FN(dcwork) k;
    FN(dc_geometry)(&g, cg, M, &k.d);
    size_t pb = FN(dconv_prep_bytes)(&k.d, g.sw);
    T *W = malloc(sizeof(T) * (size_t)(M * kdim + 1));
    char *blob = malloc(pb * (size_t)group + 8);
    if (!W || !blob) {
        free(W);
        free(blob);
        return -1;
    }
    for (int64_t gi = 0; gi < group; gi++) {
        /* the runtime's weights: the stored values in T */
        for (int64_t q = 0; q < M * kdim; q++) W[q] = (T)vw->f[gi * M * kdim + q];
        FN(dconv_prepare)(&g, cg, W, M, blob + (size_t)gi * pb, &k);
    }
    free(W);
    *out = blob;
    return 0;
}

/* Images per im2col chunk so that scratch stays within a fixed budget. */
#define NNC_CONV_BUDGET ((int64_t)8 << 20) /* elements */
static int64_t FN(conv_chunk)(const FN(geom) *g, int64_t kdim, int64_t m, int64_t images)
{
    int64_t per = kdim * g->oh * g->ow;
    int64_t c = per ? NNC_CONV_BUDGET / per : images;
    (void)m;
    if (c < 1) c = 1;
    return c < images ? c : images;
}

static size_t FN(conv_scratch)(const nnc_model *m, const nnc_node *n, int batch)
{
    const nnc_value *vi = &m->vals[n->in[0]], *vw = &m->vals[n->in[1]], *vo = &m->vals[n->out[0]];
    int64_t kdim = vw->dims[1] * vw->dims[2] * (vw->rank > 3 ? vw->dims[3] : 1), M = vw->dims[0] / n->p[10];
    int64_t oh = vo->dims[2], ow = vo->rank > 3 ? vo->dims[3] : 1;
    int64_t per = kdim * oh * ow, images = vi->dims[0] * batch;
    (void)M;
    int64_t c = per ? NNC_CONV_BUDGET / per : images;
    if (c < 1) c = 1;
    if (c > images) c = images;
    int64_t d = FN(dconv_scratch)(m, n);
    return (size_t)(c * per > d ? c * per : d) * sizeof(T);
}

/* One image's columns: cols[(c kh + ki) kw + kj][ld * . + p] for the cg
 * channels at X (each output pixel's window taps; zeros in the padding). */
NNC_KERN_CLONES static void FN(im2col)(const FN(geom) *gp, const T *X, int64_t cg, T *cols, int64_t ld)
{
    const FN(geom) g = *gp;
    for (int64_t c = 0; c < cg; c++)
        for (int64_t ki = 0; ki < g.kh; ki++)
            for (int64_t kj = 0; kj < g.kw; kj++) {
                T *row = cols + ((c * g.kh + ki) * g.kw + kj) * ld;
                /* output columns whose input column ix = ox sw - pl + kj dw
                 * lies in [0, w): [o0, o1); zeros outside */
                int64_t base = kj * g.dw - g.pl, sw = g.sw;
                int64_t o0 = base >= 0 ? 0 : (-base + sw - 1) / sw;
                int64_t o1 = g.w - base > 0 ? (g.w - base + sw - 1) / sw : 0;
                if (o1 > g.ow) o1 = g.ow;
                if (o0 > o1) o0 = o1;
                for (int64_t oy = 0; oy < g.oh; oy++) {
                    int64_t iy = oy * g.sh - g.pt + ki * g.dh;
                    T *restrict r = row + oy * g.ow;
                    if (iy < 0 || iy >= g.h) {
                        for (int64_t ox = 0; ox < g.ow; ox++) r[ox] = 0;
                        continue;
                    }
                    const T *restrict xr = X + (c * g.h + iy) * g.w + base;
                    for (int64_t ox = 0; ox < o0; ox++) r[ox] = 0;
                    if (sw == 1)
                        for (int64_t ox = o0; ox < o1; ox++) r[ox] = xr[ox];
                    else
                        for (int64_t ox = o0; ox < o1; ox++) r[ox] = xr[ox * sw];
                    for (int64_t ox = o1; ox < g.ow; ox++) r[ox] = 0;
                }
            }
}

/* Where sample b of node n's output goes: the output of the Relu fused
 * after it (x->relu_out), or of the Add fused after it (x->add_out), else
 * its own. */
static T *FN(out_base)(const nnc_exec *x, const nnc_node *n, int64_t b)
{
    return x->relu_out > 0 ? TP(x->relu_out - 1, b) : x->add_out > 0 ? TP(x->add_out - 1, b) : TP(n->out[0], b);
}

static int FN(conv)(const nnc_exec *x, const nnc_node *n)
{
    FN(geom) g;
    FN(geometry)(x->m, n, &g);
    const nnc_value *vw = VAL(n->in[1]), *vo = VAL(n->out[0]);
    int64_t group = n->p[10], Mtot = vw->dims[0], M = Mtot / group, cg = g.c / group;
    int64_t kdim = cg * g.kh * g.kw, P = g.oh * g.ow;
    int vb = n->n_in > 2 ? n->in[2] : -1;
    /* Weights or bias fed per sample: a chunk must not span two samples. */
    int per_sample = x->batched[n->in[1]] || (vb >= 0 && x->batched[vb]);
    int64_t images = g.n * x->batch;
    int64_t chunk = FN(conv_chunk)(&g, kdim, M, per_sample ? g.n : images);
    T *cols = (T *)x->scratch_d;
    int64_t in_img = g.c * g.h * g.w, out_img = Mtot * P;
    int relu = x->relu_out > 0; /* a following Relu fused: write its output */
    if (FN(dconv_ok)(per_sample)) {
        /* a MaxPool fused after that Relu: write the pool's output */
        FN(geom) pgeo;
        int64_t pimg = 0, PP = 0;
        if (relu && x->pool) {
            FN(geometry)(x->m, x->pool, &pgeo);
            PP = pgeo.oh * pgeo.ow;
            pimg = Mtot * PP;
        }
        const FN(geom) *pg = relu && x->pool ? &pgeo : NULL;
        /* with the pool, only the outputs its windows read (as conv_prep
         * prepared x->prep for it) */
        FN(geom) gd = g;
        if (pg) FN(pool_crop)(x->m, x->pool, &gd);
        for (int64_t gi = 0; gi < group; gi++) {
            FN(dcwork) k;
            /* the prepared part: the runtime's (x->prep, one per group), else
             * built here at the start of scratch; the image's after it */
            FN(dc_geometry)(&gd, cg, M, &k.d);
            size_t pb = FN(dconv_prep_bytes)(&k.d, gd.sw);
            if (x->prep) FN(dconv_prepare)(&gd, cg, NULL, M, (char *)x->prep + (size_t)gi * pb, &k);
            else FN(dconv_prepare)(&gd, cg, TP(n->in[1], 0) + gi * M * kdim, M, cols, &k);
            k.xp = x->prep ? cols : (T *)(void *)((char *)cols + pb);
            k.acc = k.xp + cg * k.d.chan + k.d.xslack;
            FN(dcimage) image = FN(dconv_image_pick)();
            for (int64_t gimg = 0; gimg < images; gimg++) {
                int64_t b = gimg / g.n, nn = gimg % g.n;
                T *O = pg ? TP(x->pool->out[0], b) + nn * pimg + gi * M * PP
                          : FN(out_base)(x, n, b) + nn * out_img + gi * M * P;
                const T *R = x->add_in > 0 ? TP(x->add_in - 1, b) + nn * out_img + gi * M * P : NULL;
                image(&gd, &k, TP(n->in[0], b) + nn * in_img + gi * cg * g.h * g.w, cg, M,
                                vb >= 0 ? TP(vb, 0) + gi * M : NULL, relu, pg, R, x->intra, O);
            }
        }
        return 0;
    }
    for (int64_t i0 = 0, cnt; i0 < images; i0 += cnt) {
        cnt = images - i0 < chunk ? images - i0 : chunk;
        if (per_sample && cnt > g.n - i0 % g.n) cnt = g.n - i0 % g.n;
        int64_t LP = cnt * P, ws = per_sample ? i0 / g.n : 0; /* sample of the weights */
        for (int64_t gi = 0; gi < group; gi++) {
            /* cols[k][img * P + p] */
            for (int64_t img = 0; img < cnt; img++) {
                int64_t gimg = i0 + img, b = gimg / g.n, nn = gimg % g.n;
                FN(im2col)(&g, TP(n->in[0], b) + nn * in_img + gi * cg * g.h * g.w, cg, cols + img * P, LP);
            }
            const T *W = TP(n->in[1], ws) + gi * M * kdim;
            /* each image's product straight into its output planes, then
             * the bias (and a fused ReLU) in place while they are in cache */
            for (int64_t img = 0; img < cnt; img++) {
                int64_t gimg = i0 + img, b = gimg / g.n, nn = gimg % g.n;
                T *O = FN(out_base)(x, n, b) + nn * out_img + gi * M * P;
                if (M && P && kdim)
                    GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)P, (int)kdim, (T)1, W, (int)kdim,
                         cols + img * P, (int)LP, (T)0, O, (int)P);
                else
                    for (int64_t k = 0; k < M * P; k++) O[k] = 0;
                for (int64_t mo = 0; mo < M; mo++) {
                    T bias = vb >= 0 ? TP(vb, ws)[gi * M + mo] : (T)0;
                    T *o = O + mo * P;
                    if (relu)
                        for (int64_t p = 0; p < P; p++) o[p] = ACTF(relu)(o[p] + bias);
                    else
                        for (int64_t p = 0; p < P; p++) o[p] += bias;
                }
            }
        }
    }
    (void)vo;
    return 0;
}

/* One output pixel of a pool, bounds checked (the border).  The taps'
 * order is part of the function: an average sums them row by row (ki, then
 * kj); a max takes them column by column (kj, then ki), so that the
 * interior can reduce each column first (a later NaN wins; among equal
 * values, such as -0 and +0, the first stays). */
static T FN(pool_px)(const FN(geom) *g, const T *xp, int64_t oy, int64_t ox, int is_max, int incl, int64_t pb, int64_t pr)
{
    T acc = is_max ? -(T)INFINITY : (T)0;
    int64_t cnt = 0, padded = 0;
    int64_t na = is_max ? g->kw : g->kh, nb = is_max ? g->kh : g->kw;
    for (int64_t i = 0; i < na; i++)
        for (int64_t j = 0; j < nb; j++) {
            int64_t ki = is_max ? j : i, kj = is_max ? i : j;
            int64_t iy = oy * g->sh - g->pt + ki * g->dh, ix = ox * g->sw - g->pl + kj * g->dw;
            if (iy >= -g->pt && iy < g->h + pb && ix >= -g->pl && ix < g->w + pr) padded++;
            if (iy < 0 || iy >= g->h || ix < 0 || ix >= g->w) continue;
            T v = xp[iy * g->w + ix];
            if (is_max) acc = (v > acc || v != v) ? v : acc;
            else acc += v;
            cnt++;
        }
    if (!is_max) acc = (incl ? padded : cnt) ? acc / (T)(incl ? padded : cnt) : (T)0;
    return acc;
}

/* Outputs [*o0, *o1) of an axis whose window (k taps, dilation d, stride
 * s, begin pad p) lies inside an input of len elements. */
static void FN(inside)(int64_t on, int64_t s, int64_t p, int64_t k, int64_t d, int64_t len, int64_t *o0, int64_t *o1)
{
    int64_t a = (p + s - 1) / s, lim = len - 1 + p - (k - 1) * d;
    int64_t b = lim < 0 ? 0 : lim / s + 1;
    if (b > on) b = on;
    if (a > b) a = b;
    *o0 = a;
    *o1 = b;
}

/* K taps side by side (window width and stride K) into the outputs
 * o[0, cnt), in order (a later NaN wins a max; among equal values the
 * earlier stays); K a constant where it is called, so each loop
 * vectorises. */
static inline __attribute__((always_inline)) void FN(pool_taps)(T *restrict o, const T *restrict xr, int64_t cnt, int K,
                                                               int is_max)
{
    if (is_max)
        for (int64_t k = 0; k < cnt; k++) {
            T a = o[k];
            for (int j = 0; j < K; j++) {
                T v = xr[K * k + j];
                a = v != v ? v : v > a ? v : a;
            }
            o[k] = a;
        }
    else
        for (int64_t k = 0; k < cnt; k++) {
            T a = o[k];
            for (int j = 0; j < K; j++) a = a + xr[K * k + j];
            o[k] = a;
        }
}

/* pool_taps in one pass when g's windows sit side by side (width = stride
 * = 2, 3 or 4, no dilation), K a constant in each call.  Returns 1, or 0
 * (nothing done) for other windows. */
static inline __attribute__((always_inline)) int FN(pool_side)(const FN(geom) *g, T *restrict o, const T *restrict xr,
                                                              int64_t cnt, int is_max)
{
    if (g->kw != g->sw || g->dw != 1 || g->sw < 2 || g->sw > 4) return 0;
    if (g->sw == 2) FN(pool_taps)(o, xr, cnt, 2, is_max);
    else if (g->sw == 3) FN(pool_taps)(o, xr, cnt, 3, is_max);
    else FN(pool_taps)(o, xr, cnt, 4, is_max);
    return 1;
}

/* Interior outputs [x0, x1) of max-pool row oy into o: each window
 * column's maximum over the window rows first (contiguous, so it
 * vectorises), then the maximum of those column maxima in kj order; the
 * same value as pool_px's (kj, ki) order (see there).  Output columns in
 * chunks whose window columns fit a stack buffer; a window wider than the
 * buffer takes pool_px. */
#define NNC_POOL_COLS 1024
static inline __attribute__((always_inline)) void FN(pool_max_row)(const FN(geom) *g, const T *xp, int64_t oy, int64_t x0,
                                                                  int64_t x1, T *o)
{
    T colmax[NNC_POOL_COLS];
    int64_t sw = g->sw, span = (g->kw - 1) * g->dw + 1;
    if (span > NNC_POOL_COLS) {
        for (int64_t ox = x0; ox < x1; ox++) o[ox - x0] = FN(pool_px)(g, xp, oy, ox, 1, 0, 0, 0);
        return;
    }
    int64_t per = (NNC_POOL_COLS - span) / sw + 1; /* outputs per chunk */
    for (int64_t k0 = x0; k0 < x1; k0 += per) {
        int64_t cnt = x1 - k0 < per ? x1 - k0 : per, ncol = (cnt - 1) * sw + span;
        const T *base = xp + (oy * g->sh - g->pt) * g->w + k0 * sw - g->pl;
        T *restrict cm = colmax;
        for (int64_t c = 0; c < ncol; c++) cm[c] = -(T)INFINITY;
        for (int64_t ki = 0; ki < g->kh; ki++) {
            const T *restrict xr = base + ki * g->dh * g->w;
            for (int64_t c = 0; c < ncol; c++) {
                T v = xr[c], a = cm[c];
                cm[c] = v != v ? v : v > a ? v : a;
            }
        }
        T *restrict oc = o + (k0 - x0);
        for (int64_t k = 0; k < cnt; k++) oc[k] = -(T)INFINITY;
        if (FN(pool_side)(g, oc, cm, cnt, 1)) continue;
        for (int64_t kj = 0; kj < g->kw; kj++) {
            const T *restrict cc = cm + kj * g->dw;
            for (int64_t k = 0; k < cnt; k++) {
                T v = cc[k * sw], a = oc[k];
                oc[k] = v != v ? v : v > a ? v : a;
            }
        }
    }
}

NNC_KERN_CLONES static int FN(pool)(const nnc_exec *x, const nnc_node *n)
{
    FN(geom) g;
    FN(geometry)(x->m, n, &g);
    int is_max = n->op == NNC_OP_MAXPOOL, incl = g.count_include_pad;
    int64_t pb = g.pb, pr = g.pr; /* bottom, right pads */
    /* the interior, where every window lies inside the input, row by row
     * over the output columns (vectorisable); each output takes its taps
     * in pool_px's order, so the result is the same */
    int64_t y0, y1, x0, x1;
    FN(inside)(g.oh, g.sh, g.pt, g.kh, g.dh, g.h, &y0, &y1);
    FN(inside)(g.ow, g.sw, g.pl, g.kw, g.dw, g.w, &x0, &x1);
    T taps = (T)(g.kh * g.kw);
    for (int b = 0; b < x->batch; b++) {
        const T *X = TP(n->in[0], b);
        T *O = TP(n->out[0], b);
        for (int64_t pl = 0; pl < g.n * g.c; pl++) {
            const T *xp = X + pl * g.h * g.w;
            T *op = O + pl * g.oh * g.ow;
            for (int64_t oy = 0; oy < g.oh; oy++) {
                T *orow = op + oy * g.ow;
                int inner = oy >= y0 && oy < y1;
                int64_t b0 = inner ? x0 : g.ow, b1 = inner ? x1 : g.ow; /* border: [0, b0) and [b1, ow) */
                for (int64_t ox = 0; ox < b0; ox++) orow[ox] = FN(pool_px)(&g, xp, oy, ox, is_max, incl, pb, pr);
                for (int64_t ox = b1; ox < g.ow; ox++) orow[ox] = FN(pool_px)(&g, xp, oy, ox, is_max, incl, pb, pr);
                if (!inner || x0 >= x1) continue;
                T *restrict o = orow + x0;
                int64_t cnt = x1 - x0, sw = g.sw;
                if (is_max) {
                    FN(pool_max_row)(&g, xp, oy, x0, x1, o);
                    continue;
                }
                for (int64_t k = 0; k < cnt; k++) o[k] = (T)0;
                for (int64_t ki = 0; ki < g.kh; ki++) {
                    const T *xr = xp + (oy * g.sh - g.pt + ki * g.dh) * g.w + x0 * sw - g.pl;
                    if (FN(pool_side)(&g, o, xr, cnt, 0)) continue;
                    for (int64_t kj = 0; kj < g.kw; kj++) {
                        const T *restrict xc = xr + kj * g.dw;
                        for (int64_t k = 0; k < cnt; k++) o[k] += xc[k * sw];
                    }
                }
                if (!is_max)
                    for (int64_t k = 0; k < cnt; k++) o[k] /= taps;
            }
        }
    }
    return 0;
}

static int FN(gap)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vi = VAL(n->in[0]);
    int64_t planes = vi->dims[0] * vi->dims[1], sz = vi->numel / (planes ? planes : 1);
    for (int b = 0; b < x->batch; b++) {
        const T *X = TP(n->in[0], b);
        T *O = TP(n->out[0], b);
        for (int64_t p = 0; p < planes; p++) {
            T s = 0;
            for (int64_t k = 0; k < sz; k++) s += X[p * sz + k];
            O[p] = sz ? s / (T)sz : (T)0;
        }
    }
    return 0;
}

static int FN(batchnorm)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vi = VAL(n->in[0]);
    int64_t C = vi->dims[1], inner = 1;
    for (int d = 2; d < vi->rank; d++) inner *= vi->dims[d];
    T eps = (T)n->fp[0];
    for (int b = 0; b < x->batch; b++) {
        const T *sc = TP(n->in[1], b), *bi = TP(n->in[2], b), *mu = TP(n->in[3], b), *var = TP(n->in[4], b);
        const T *X = TP(n->in[0], b);
        T *O = TP(n->out[0], b);
        for (int64_t i = 0; i < vi->dims[0]; i++)
            for (int64_t c = 0; c < C; c++) {
                T a = sc[c] / (T)sqrt((double)(var[c] + eps));
                const T *xp = X + (i * C + c) * inner;
                T *o = O + (i * C + c) * inner;
                for (int64_t k = 0; k < inner; k++) o[k] = (xp[k] - mu[c]) * a + bi[c];
            }
    }
    return 0;
}

static int FN(reduce)(const nnc_exec *x, const nnc_node *n)
{
    const nnc_value *vi = VAL(n->in[0]), *vo = VAL(n->out[0]);
    unsigned mask = (unsigned)n->p[0];
    int r = vi->rank, isf = nnc_dtype_is_float(vi->dtype);
    int64_t si[NNC_MAX_RANK], ostride[NNC_MAX_RANK], acc = 1, cnt = 1;
    FN(strides)(r, vi->dims, si);
    for (int d = r - 1; d >= 0; d--) {
        if (mask >> d & 1) {
            ostride[d] = 0;
            cnt *= vi->dims[d];
        } else {
            ostride[d] = acc;
            acc *= vi->dims[d];
        }
    }
    for (int b = 0; b < x->batch; b++) {
        if (isf) {
            const T *X = TP(n->in[0], b);
            T *O = TP(n->out[0], b);
            for (int64_t k = 0; k < vo->numel; k++) O[k] = 0;
            for (int64_t k = 0; k < vi->numel; k++) O[FN(remap)(k, r, si, ostride)] += X[k];
            if (n->op == NNC_OP_REDUCEMEAN)
                for (int64_t k = 0; k < vo->numel; k++) O[k] = cnt ? O[k] / (T)cnt : (T)NAN;
        } else {
            const int64_t *X = IP(n->in[0], b);
            int64_t *O = IP(n->out[0], b);
            for (int64_t k = 0; k < vo->numel; k++) O[k] = 0;
            for (int64_t k = 0; k < vi->numel; k++) {
                int64_t off = FN(remap)(k, r, si, ostride);
                O[off] = (int64_t)((uint64_t)O[off] + (uint64_t)X[k]);
            }
            for (int64_t k = 0; k < vo->numel; k++)
                O[k] = FN(wrap)(vo->dtype, (n->op == NNC_OP_REDUCEMEAN && cnt) ? O[k] / cnt : O[k]);
        }
    }
    return 0;
}

/* ------------------------------------------------------------- dispatch */

static int FN(exec)(const nnc_exec *x, const nnc_node *n)
{
    switch (n->op) {
    case NNC_OP_ADD: case NNC_OP_SUB: case NNC_OP_MUL: case NNC_OP_DIV: return FN(binary)(x, n);
    case NNC_OP_RELU: case NNC_OP_LEAKYRELU: case NNC_OP_SIGMOID: case NNC_OP_TANH: return FN(unary)(x, n);
    case NNC_OP_IDENTITY: case NNC_OP_DROPOUT: case NNC_OP_FLATTEN: case NNC_OP_RESHAPE:
    case NNC_OP_SQUEEZE: case NNC_OP_UNSQUEEZE: return FN(copy)(x, n);
    case NNC_OP_SOFTMAX: return FN(softmax)(x, n);
    case NNC_OP_TRANSPOSE: return FN(transpose)(x, n);
    case NNC_OP_CONCAT: return FN(concat)(x, n);
    case NNC_OP_SLICE: return FN(slice)(x, n);
    case NNC_OP_PAD: return FN(pad)(x, n);
    case NNC_OP_GATHER: return FN(gather)(x, n);
    case NNC_OP_CAST: return FN(cast)(x, n);
    case NNC_OP_CONSTANT: case NNC_OP_CONSTANTOFSHAPE: return FN(constant)(x, n);
    case NNC_OP_SHAPE: return FN(shape)(x, n);
    case NNC_OP_GEMM: return FN(gemm)(x, n);
    case NNC_OP_MATMUL: return FN(matmul)(x, n);
    case NNC_OP_CONV: return FN(conv)(x, n);
    case NNC_OP_MAXPOOL: case NNC_OP_AVERAGEPOOL: return FN(pool)(x, n);
    case NNC_OP_GLOBALAVERAGEPOOL: return FN(gap)(x, n);
    case NNC_OP_BATCHNORM: return FN(batchnorm)(x, n);
    case NNC_OP_REDUCESUM: case NNC_OP_REDUCEMEAN: return FN(reduce)(x, n);
    case NNC_OP_EMBEDBAG: return FN(nnc_embbag_exec)(x, n);
    case NNC_OP_COUNT: break;
    }
    return 1;
}

#undef VAL
#undef NUMEL
#undef TP
#undef IP
