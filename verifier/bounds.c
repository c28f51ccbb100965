/* Sound interval and linear (CROWN-style) bounds over the IR.
 *
 * Rounding.  All arithmetic is IEEE double in round-to-nearest.  With
 * u = 2^-53 and K the largest fan-in of any operator, GAMMA = (K + 16) * 2u
 * bounds the relative error of every dot product and product we form
 * (|fl(sum a_i b_i) - sum a_i b_i| <= gamma_K sum |a_i b_i|, Higham 3.5).
 *
 * Each node carries an error-weight vector ew (one entry per output element):
 * for a linear node y = sum_s J_s x_s + b it is  sum_s |J_s| m_s + |b|, with
 * m_s = max(|lo|, |hi|) of input s; for a relaxed nonlinear node it is
 * max(|slope|) m + max(|intercept|).  Back-substituting objective rows L
 * through the node commits an absolute error of at most GAMMA * |L| . ew per
 * row, which is accumulated in err[] and subtracted at the end, together with
 * the error of the final concretisation over the input box.  Interval bounds
 * (IBP) use the same weights: [c - r - GAMMA * ew', c + r + GAMMA * ew'].
 * The sums that form err and ew are nonnegative and are inflated by
 * (1 + GAMMA) before use.  Elementwise transcendental functions (sigmoid,
 * tanh) are evaluated by libm, whose error is below 4 ulp; their bounds are
 * widened by NNC_LIBM_REL relative plus NNC_LIBM_ABS absolute. */
#include "verifier/bounds_impl.h"
#include "verifier/bilinear_impl.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NNC_LIBM_REL (64 * DBL_EPSILON)
#define NNC_LIBM_ABS 1e-300
#define NNC_BND_CHUNK 128 /* neurons per back-substitution batch */

typedef struct node_info {
    int lin;          /* 1 linear in its run-time inputs, 0 relaxed nonlinear */
    double *wt;       /* GEMM/MATMUL: effective weights [K][N] (alpha folded) */
    double *wabs;     /* |wt| */
    double *bias;     /* constant term per output element, or NULL */
    int64_t *ia, *ib; /* index maps: output element -> input element (slot 0 / 1), -1 none */
    int id_a, id_b;   /* ADD/SUB/MUL/DIV: ia / ib is the identity (same shape, no broadcast) */
    double *ew;       /* error weights, numel(out) */
    double *cbias;    /* linear nodes: the constant term (lin_bias), or NULL when all zero */
    /* relaxation of a nonlinear node, numel(out) each */
    double *al, *bl, *au, *bu;
    int64_t *arg;     /* MAXPOOL: chosen input index; -1 */
    double *sxl, *sxu; /* SIGMOID/TANH: where f(y) - al y is least and f(y) - au y greatest
                          on the input interval (the intercepts' arguments: slope gradients) */
    int bil;          /* MATMUL of two run-time operands: McCormick planes (bilinear.c),
                         their summed intercepts in bl (lower) and bu (upper) */
    nnc_bil_geom bg;
    int64_t rows, K, N; /* GEMM/MATMUL geometry */
    /* CONV/AVERAGEPOOL as a sparse matrix: output element j's terms are
     * (cv_idx[k], cv_w[k]) for k in [cv_ptr[j], cv_ptr[j+1]), in the order
     * of the loop nest they replace (same sums, same roundings); NULL when
     * too large (the loop nest is used) */
    int64_t *cv_ptr;
    int32_t *cv_idx;
    double *cv_w;
    /* CONV as GEMMs over column blocks (conv_gemm): |weights| [M][C/G KH KW]
     * and a column scratch of cv_colcap doubles; NULL when not used */
    double *cv_wabs, *cv_col;
    int64_t cv_colcap;
} node_info;

struct nnc_bnd {
    void (*tick)(void *ctx); /* nnc_bnd_set_tick: called by long passes (progress), or NULL */
    void *tick_ctx;
    const nnc_model *m;
    int in_v, out_v, nv;
    double gamma;
    double **lo, **hi;   /* per value: numel bounds (constants: NULL) */
    double **L;          /* per value: back-substitution rows (scratch), or NULL when unused */
    double **Lbuf;       /* per value: storage behind L, Lcap doubles, kept between passes */
    size_t *Lcap;
    unsigned char *exact_ibp; /* per value: IBP is exact (at most one mixing linear map from the input) */
    node_info *ni;       /* per node (index into m->nodes) */
    int *pos;            /* per value: position of its producer in m->order, -1 */
    unsigned char *needs_crown; /* per value: 0, or feeds a nonlinear node (1 ReLU-like, 2 other) */
    const double *box_lo, *box_hi;
    /* refinement (see the end of this file; used by alpha.c, relusplit.c) */
    int64_t *relu_off;        /* per order position: first flat ReLU index of a ReLU/LeakyReLU node, else -1 */
    int64_t n_relu;           /* ReLU/LeakyReLU neurons in all */
    int64_t *smooth_off;      /* per order position: first flat index of a SIGMOID/TANH node, else -1 */
    int64_t n_smooth;         /* SIGMOID/TANH neurons in all */
    const signed char *split; /* n_relu entries, +1 pre-activation >= 0, -1 <= 0, 0 free; or NULL */
    int infeasible;           /* last compute: the split constraints admit no point of the box */
    double **rec;             /* per nonlinear node's output value: objective-0 row recorded by backsub */
    int recording;
    int64_t *pre_off;         /* per value: flat ReLU index of its first element when it feeds a ReLU, else -1 */
    const double *beta;       /* n_relu split multipliers (>= 0) for objective_grad, or NULL */
    double *gsmooth;          /* 2 n_smooth: where objective_grad writes the smooth-slope gradient, or NULL */
    int beta_on;              /* backsub adds -beta s z to row 0 at split pre-activations */
    size_t *soff;             /* per value: offset of its lo/hi pair in a saved state
                                 (nnc_bnd_state_save); soff[nv]: the state's size */
};

static double up(double x) { return x + fabs(x) * 4 * DBL_EPSILON + 4.9e-324; }
static double down(double x) { return x - fabs(x) * 4 * DBL_EPSILON - 4.9e-324; }

static int is_var(const nnc_bnd *b, int v) { return v >= 0 && b->m->vals[v].kind != NNC_VAL_CONST; }
static const nnc_value *V(const nnc_bnd *b, int v) { return &b->m->vals[v]; }

int64_t nnc_bnd_num_inputs(const nnc_bnd *b) { return V(b, b->in_v)->numel; }
int64_t nnc_bnd_num_outputs(const nnc_bnd *b) { return V(b, b->out_v)->numel; }
const double *nnc_bnd_out_lo(const nnc_bnd *b) { return b->lo[b->out_v]; }
const double *nnc_bnd_out_hi(const nnc_bnd *b) { return b->hi[b->out_v]; }

int64_t nnc_bnd_value_bounds(const nnc_bnd *b, int v, const double **lo, const double **hi)
{
    if (v < 0 || v >= b->nv || b->lo[v] == NULL) return -1;
    *lo = b->lo[v];
    *hi = b->hi[v];
    return V(b, v)->numel;
}

static void strides(int rank, const int64_t *dims, int64_t *st)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        st[d] = s;
        s *= dims[d];
    }
}

/* Broadcast map: output element j of `out` -> element of operand `a`. */
static int64_t *broadcast_map(const nnc_value *out, const nnc_value *a)
{
    int64_t *map = malloc((size_t)(out->numel + 1) * sizeof(int64_t));
    if (map == NULL) return NULL;
    int64_t so[NNC_MAX_RANK], sa[NNC_MAX_RANK], ta[NNC_MAX_RANK];
    strides(out->rank, out->dims, so);
    strides(a->rank, a->dims, ta);
    for (int d = 0; d < out->rank; d++) {
        int da = d - (out->rank - a->rank);
        sa[d] = (da >= 0 && a->dims[da] != 1) ? ta[da] : 0;
    }
    for (int64_t j = 0; j < out->numel; j++) {
        int64_t rem = j, off = 0;
        for (int d = 0; d < out->rank; d++) {
            int64_t i = rem / so[d];
            rem -= i * so[d];
            off += i * sa[d];
        }
        map[j] = off;
    }
    return map;
}

/* Output element -> input element maps of data-movement nodes (-1: padding). */
static int64_t *movement_map(const nnc_model *m, const nnc_node *n)
{
    const nnc_value *vi = &m->vals[n->in[0]], *vo = &m->vals[n->out[0]];
    int64_t *map = malloc((size_t)(vo->numel + 1) * sizeof(int64_t));
    if (map == NULL) return NULL;
    int r = vi->rank;
    int64_t si[NNC_MAX_RANK], so[NNC_MAX_RANK];
    strides(r, vi->dims, si);
    strides(vo->rank, vo->dims, so);
    if (n->op == NNC_OP_GATHER) { /* constant indices (supported()), negative ones from the end */
        const nnc_value *ix = &m->vals[n->in[1]];
        int64_t axis = n->p[0], alen = vi->dims[axis], inner = 1, j = 0;
        for (int d = (int)axis + 1; d < r; d++) inner *= vi->dims[d];
        for (int64_t a = 0; a < (alen ? vi->numel / (alen * inner) : 0); a++)
            for (int64_t i = 0; i < ix->numel; i++)
                for (int64_t e = 0; e < inner; e++) map[j++] = (a * alen + (ix->i[i] < 0 ? ix->i[i] + alen : ix->i[i])) * inner + e;
        return map;
    }
    for (int64_t j = 0; j < vo->numel; j++) {
        if (n->op != NNC_OP_TRANSPOSE && n->op != NNC_OP_SLICE && n->op != NNC_OP_PAD) {
            map[j] = j; /* reshape-like: same flat order */
            continue;
        }
        int64_t rem = j, off = 0;
        int outside = 0;
        for (int d = 0; d < vo->rank; d++) {
            int64_t i = rem / so[d];
            rem -= i * so[d];
            if (n->op == NNC_OP_TRANSPOSE) off += i * si[n->p[d]];
            else if (n->op == NNC_OP_SLICE) off += (n->p[d] + i * n->p[8 + d]) * si[d];
            else {
                int64_t s = i - n->p[d];
                if (s < 0 || s >= vi->dims[d]) outside = 1;
                off += s * si[d];
            }
        }
        map[j] = outside ? -1 : off;
    }
    return map;
}

/* Whether input slot s of linear node n is one of its run-time operands that
 * back-substitution and IBP go through (other slots are constants or shapes). */
static int lin_slot(const nnc_bnd *b, const nnc_node *n, int s)
{
    if (s >= n->n_in || !is_var(b, n->in[s])) return 0;
    switch (n->op) {
    case NNC_OP_ADD: case NNC_OP_SUB: case NNC_OP_MUL: case NNC_OP_MATMUL: return s < 2;
    case NNC_OP_CONCAT: return 1;
    default: return s == 0;
    }
}

static int supported(const nnc_bnd *b, const nnc_node *n)
{
    int a = is_var(b, n->in[0]), c = n->n_in > 1 ? is_var(b, n->in[1]) : 0;
    switch (n->op) {
    case NNC_OP_ADD: case NNC_OP_SUB: return a || c;
    case NNC_OP_MUL: return a != c;
    case NNC_OP_DIV: return a && !c;
    case NNC_OP_GEMM: return a && !c && !n->p[0] && (n->n_in < 3 || n->in[2] < 0 || !is_var(b, n->in[2]));
    case NNC_OP_MATMUL: {
        const nnc_value *x = V(b, n->in[0]), *w = V(b, n->in[1]);
        if (a && !c) return w->rank <= 2 && !w->sparse;
        if (!a && c) return x->sparse != NULL;
        if (a && c && x->rank >= 2 && x->rank == w->rank && !x->sparse && !w->sparse &&
            x->dims[x->rank - 1] == w->dims[w->rank - 2]) { /* bilinear.c: no broadcasting */
            for (int d = 0; d + 2 < x->rank; d++)
                if (x->dims[d] != w->dims[d]) return 0;
            return 1;
        }
        return 0;
    }
    case NNC_OP_EMBEDBAG: { /* ids fixed (nnc_mdl_embbag_fix_ids): a constant node */
        const nnc_value *ix = V(b, n->in[1]);
        if (a || c || !V(b, n->in[0])->f || !ix->i) return 0;
        for (int64_t i = 0; i < ix->numel; i++)
            if (ix->i[i] < -n->p[1] || ix->i[i] >= n->p[1]) return 0;
        return 1;
    }
    case NNC_OP_GATHER: {
        const nnc_value *ix = n->n_in > 1 ? V(b, n->in[1]) : NULL;
        if (!a || ix == NULL || is_var(b, n->in[1]) || ix->i == NULL) return 0;
        for (int64_t i = 0; i < ix->numel; i++) /* checked here: the movement map trusts them */
            if (ix->i[i] < -V(b, n->in[0])->dims[n->p[0]] || ix->i[i] >= V(b, n->in[0])->dims[n->p[0]]) return 0;
        return 1;
    }
    case NNC_OP_CONV:
        return a && !c && (n->n_in < 3 || n->in[2] < 0 || !is_var(b, n->in[2]));
    case NNC_OP_BATCHNORM:
        for (int i = 1; i < 5; i++)
            if (is_var(b, n->in[i])) return 0;
        return a;
    case NNC_OP_PAD: return a && n->p[16] == 0 && n->p[17] == 0; /* constant mode, constant value */
    case NNC_OP_CONCAT:
        for (int i = 0; i < n->n_in; i++)
            if (is_var(b, n->in[i])) return 1;
        return 0;
    case NNC_OP_LEAKYRELU: return a && n->fp[0] >= 0 && n->fp[0] <= 1; /* relaxation needs 0 <= alpha <= 1 */
    case NNC_OP_RELU: case NNC_OP_SIGMOID: case NNC_OP_TANH:
    case NNC_OP_MAXPOOL: case NNC_OP_AVERAGEPOOL: case NNC_OP_GLOBALAVERAGEPOOL:
    case NNC_OP_FLATTEN: case NNC_OP_RESHAPE: case NNC_OP_IDENTITY: case NNC_OP_DROPOUT:
    case NNC_OP_SQUEEZE: case NNC_OP_UNSQUEEZE: case NNC_OP_TRANSPOSE: case NNC_OP_SLICE:
        return a;
    default:
        return 0;
    }
}

void nnc_bnd_destroy(nnc_bnd *b)
{
    if (b == NULL) return;
    for (int v = 0; v < b->nv; v++) {
        if (b->lo) free(b->lo[v]);
        if (b->hi) free(b->hi[v]);
        if (b->Lbuf) free(b->Lbuf[v]);
    }
    if (b->ni)
        for (int k = 0; k < b->m->n_nodes; k++) {
            node_info *x = &b->ni[k];
            free(x->wt); free(x->wabs); free(x->bias); free(x->cbias); free(x->ia); free(x->ib); free(x->ew);
            free(x->al); free(x->bl); free(x->au); free(x->bu); free(x->arg); free(x->sxl); free(x->sxu);
            free(x->cv_ptr); free(x->cv_idx); free(x->cv_w); free(x->cv_wabs); free(x->cv_col);
        }
    free(b->lo); free(b->hi); free(b->L); free(b->Lbuf); free(b->Lcap); free(b->exact_ibp); free(b->ni); free(b->pos);
    free(b->needs_crown);
    if (b->rec)
        for (int v = 0; v < b->nv; v++) free(b->rec[v]);
    free(b->rec); free(b->relu_off); free(b->smooth_off); free(b->pre_off); free(b->soff);
    free(b);
}

static int64_t fan_in(const nnc_model *m, const nnc_node *n)
{
    switch (n->op) {
    case NNC_OP_GEMM: return n->p[4] + 1;
    case NNC_OP_MATMUL: {
        const nnc_value *x = &m->vals[n->in[0]];
        int64_t k = x->sparse ? x->sparse->cols : x->dims[x->rank - 1];
        /* two run-time operands: 2K slope terms and an intercept per output */
        return (m->vals[n->in[1]].kind != NNC_VAL_CONST && x->kind != NNC_VAL_CONST) ? 2 * k + 2 : k + 1;
    }
    case NNC_OP_EMBEDBAG: return n->p[3] + 2;
    case NNC_OP_CONV: {
        const nnc_value *w = &m->vals[n->in[1]];
        return w->numel / (w->dims[0] ? w->dims[0] : 1) + 1;
    }
    case NNC_OP_AVERAGEPOOL: {
        nnc_window g = nnc_window_of(m, n);
        return g.kh * g.kw;
    }
    case NNC_OP_GLOBALAVERAGEPOOL: {
        const nnc_value *x = &m->vals[n->in[0]];
        return x->numel / ((x->dims[0] * x->dims[1]) != 0 ? x->dims[0] * x->dims[1] : 1);
    }
    default: return 2;
    }
}

static void lin_bias(const nnc_bnd *b, const nnc_node *n, double *out);
static int refine_setup(nnc_bnd *b);
static void apply_split(nnc_bnd *b, int t, const nnc_node *n);
static int conv_csr(nnc_bnd *b, const nnc_node *n);
static int conv_gemm_setup(nnc_bnd *b, const nnc_node *n);

nnc_status nnc_bnd_create(nnc_bnd **out, const nnc_model *m, char *err, size_t errlen)
{
    *out = NULL;
    if (m->n_inputs != 1 || m->n_outputs != 1)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "the verifier needs a model with one input and one output (this one has %d and %d)",
                       m->n_inputs, m->n_outputs);
    nnc_bnd *b = calloc(1, sizeof *b);
    if (b == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    b->m = m;
    b->nv = m->n_vals;
    b->in_v = m->inputs[0];
    b->out_v = m->outputs[0];
    if (!nnc_dtype_is_float(V(b, b->in_v)->dtype) || !nnc_dtype_is_float(V(b, b->out_v)->dtype)) {
        nnc_bnd_destroy(b);
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "the verifier needs float input and output");
    }
    b->lo = calloc((size_t)b->nv, sizeof(double *));
    b->hi = calloc((size_t)b->nv, sizeof(double *));
    b->L = calloc((size_t)b->nv, sizeof(double *));
    b->Lbuf = calloc((size_t)b->nv, sizeof(double *));
    b->Lcap = calloc((size_t)b->nv, sizeof(size_t));
    b->exact_ibp = calloc((size_t)b->nv, 1);
    b->ni = calloc((size_t)m->n_nodes + 1, sizeof(node_info));
    b->pos = malloc((size_t)b->nv * sizeof(int));
    b->needs_crown = calloc((size_t)b->nv, 1);
    if (!b->lo || !b->hi || !b->L || !b->Lbuf || !b->Lcap || !b->exact_ibp || !b->ni || !b->pos || !b->needs_crown) goto nomem;
    b->exact_ibp[m->inputs[0]] = 1;
    for (int v = 0; v < b->nv; v++) b->pos[v] = -1;
    int64_t kmax = 2;
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        node_info *x = &b->ni[m->order[t]];
        b->pos[n->out[0]] = t;
        if (!supported(b, n)) {
            nnc_status st = nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED,
                                    "node '%s': the verifier has no sound bound transformer for %s with these operands",
                                    n->name, n->op_type);
            nnc_bnd_destroy(b);
            return st;
        }
        int64_t f = fan_in(m, n);
        if (f > kmax) kmax = f;
        /* exact IBP: elementwise-affine and reshaping steps keep it; one
         * mixing linear map (Gemm, MatMul, Conv, pooling) may follow */
        {
            int var = n->in[0] >= 0 && is_var(b, n->in[0]) ? n->in[0] : (n->n_in > 1 ? n->in[1] : -1);
            int two_vars = n->n_in > 1 && is_var(b, n->in[0]) && is_var(b, n->in[1]);
            int elementwise = n->op == NNC_OP_ADD || n->op == NNC_OP_SUB || n->op == NNC_OP_MUL || n->op == NNC_OP_DIV ||
                              n->op == NNC_OP_BATCHNORM || n->op == NNC_OP_FLATTEN || n->op == NNC_OP_RESHAPE ||
                              n->op == NNC_OP_IDENTITY || n->op == NNC_OP_DROPOUT || n->op == NNC_OP_SQUEEZE ||
                              n->op == NNC_OP_UNSQUEEZE || n->op == NNC_OP_TRANSPOSE || n->op == NNC_OP_SLICE || n->op == NNC_OP_PAD;
            int mixing = n->op == NNC_OP_GEMM || n->op == NNC_OP_MATMUL || n->op == NNC_OP_CONV ||
                         n->op == NNC_OP_AVERAGEPOOL || n->op == NNC_OP_GLOBALAVERAGEPOOL;
            if (var >= 0 && !two_vars && b->exact_ibp[var] == 1 && elementwise) b->exact_ibp[n->out[0]] = 1;
            else if (var >= 0 && !two_vars && b->exact_ibp[var] == 1 && mixing) b->exact_ibp[n->out[0]] = 2;
            else if (var >= 0 && !two_vars && b->exact_ibp[var] == 2 && elementwise && n->op != NNC_OP_PAD) b->exact_ibp[n->out[0]] = 2;
        }
        int64_t no = V(b, n->out[0])->numel;
        x->bil = n->op == NNC_OP_MATMUL && is_var(b, n->in[0]) && is_var(b, n->in[1]);
        x->lin = !(n->op == NNC_OP_RELU || n->op == NNC_OP_LEAKYRELU || n->op == NNC_OP_SIGMOID || n->op == NNC_OP_TANH ||
                   n->op == NNC_OP_MAXPOOL || x->bil);
        if (!x->lin) {
            /* 1: feeds a piecewise-linear node (refine unstable neurons only), 2: a smooth one or MaxPool */
            int kind = (n->op == NNC_OP_RELU || n->op == NNC_OP_LEAKYRELU) ? 1 : 2;
            if (!x->bil && b->needs_crown[n->in[0]] < kind) b->needs_crown[n->in[0]] = (unsigned char)kind;
            x->al = malloc((size_t)(no + 1) * sizeof(double));
            x->bl = malloc((size_t)(no + 1) * sizeof(double));
            x->au = malloc((size_t)(no + 1) * sizeof(double));
            x->bu = malloc((size_t)(no + 1) * sizeof(double));
            if (!x->al || !x->bl || !x->au || !x->bu) goto nomem;
            if (n->op == NNC_OP_MAXPOOL && !(x->arg = malloc((size_t)(no + 1) * sizeof(int64_t)))) goto nomem;
            if ((n->op == NNC_OP_SIGMOID || n->op == NNC_OP_TANH) &&
                (!(x->sxl = calloc((size_t)no + 1, sizeof(double))) || !(x->sxu = calloc((size_t)no + 1, sizeof(double)))))
                goto nomem;
        }
        x->ew = calloc((size_t)no + 1, sizeof(double));
        if (x->ew == NULL) goto nomem;
        switch (n->op) {
        case NNC_OP_ADD: case NNC_OP_SUB: case NNC_OP_MUL: case NNC_OP_DIV:
            x->ia = broadcast_map(V(b, n->out[0]), V(b, n->in[0]));
            x->ib = broadcast_map(V(b, n->out[0]), V(b, n->in[1]));
            if (!x->ia || !x->ib) goto nomem;
            x->id_a = x->id_b = V(b, n->in[0])->numel == no && V(b, n->in[1])->numel == no;
            for (int64_t j = 0; j < no && (x->id_a || x->id_b); j++) {
                x->id_a &= x->ia[j] == j;
                x->id_b &= x->ib[j] == j;
            }
            break;
        case NNC_OP_TRANSPOSE: case NNC_OP_SLICE: case NNC_OP_PAD: case NNC_OP_GATHER:
            if (!(x->ia = movement_map(m, n))) goto nomem;
            break;
        case NNC_OP_CONCAT: { /* output element -> (ib: input slot, ia: element of that input) */
            const nnc_value *vo = V(b, n->out[0]);
            int64_t axis = n->p[0], outer = 1, inner = 1;
            for (int d = 0; d < axis; d++) outer *= vo->dims[d];
            for (int d = (int)axis + 1; d < vo->rank; d++) inner *= vo->dims[d];
            x->ia = malloc(sizeof(int64_t) * (size_t)(vo->numel + 1));
            x->ib = malloc(sizeof(int64_t) * (size_t)(vo->numel + 1));
            if (!x->ia || !x->ib) goto nomem;
            int64_t j = 0;
            for (int64_t o = 0; o < outer; o++)
                for (int s2 = 0; s2 < n->n_in; s2++) {
                    int64_t chunk = V(b, n->in[s2])->dims[axis] * inner;
                    for (int64_t e = 0; e < chunk; e++, j++) {
                        x->ib[j] = s2;
                        x->ia[j] = o * chunk + e;
                    }
                }
            break;
        }
        case NNC_OP_GEMM: case NNC_OP_MATMUL: {
            const nnc_value *a = V(b, n->in[0]), *w = V(b, n->in[1]);
            if (x->bil) {
                int64_t batch = 1;
                for (int d = 0; d + 2 < a->rank; d++) batch *= a->dims[d];
                x->bg = (nnc_bil_geom){batch, a->dims[a->rank - 2], a->dims[a->rank - 1], w->dims[w->rank - 1]};
            }
            if (a->sparse || x->bil) break;
            int64_t K, N;
            if (n->op == NNC_OP_GEMM) {
                K = n->p[4];
                N = n->p[3];
            } else {
                K = w->dims[0];
                N = w->rank == 1 ? 1 : w->dims[1];
            }
            x->K = K;
            x->N = N;
            x->rows = K ? a->numel / K : 0;
            x->wt = malloc((size_t)(K * N + 1) * sizeof(double));
            if (x->wt == NULL) goto nomem;
            double alpha = n->op == NNC_OP_GEMM ? n->fp[0] : 1.0;
            int tb = n->op == NNC_OP_GEMM && n->p[1];
            for (int64_t k = 0; k < K; k++)
                for (int64_t j = 0; j < N; j++) x->wt[k * N + j] = alpha * (tb ? w->f[j * K + k] : w->f[k * N + j]);
            x->wabs = malloc((size_t)(K * N + 1) * sizeof(double));
            if (x->wabs == NULL) goto nomem;
            for (int64_t k = 0; k < K * N; k++) x->wabs[k] = fabs(x->wt[k]);
            if (n->op == NNC_OP_GEMM && n->n_in > 2 && n->in[2] >= 0 && n->fp[1] != 0) {
                const nnc_value *c = V(b, n->in[2]);
                int64_t M = n->p[2], mode = n->p[5];
                x->bias = malloc((size_t)(M * N + 1) * sizeof(double));
                if (x->bias == NULL) goto nomem;
                for (int64_t i = 0; i < M; i++)
                    for (int64_t j = 0; j < N; j++)
                        x->bias[i * N + j] = n->fp[1] * c->f[((mode & 1) ? i * ((mode & 2) ? N : 1) : 0) + ((mode & 2) ? j : 0)];
            }
            break;
        }
        default:
            break;
        }
    }
    /* gamma must cover the longest sum formed: fan-ins, and the sums over all
     * elements of a value in back-substitution and concretisation */
    for (int v = 0; v < b->nv; v++)
        if (V(b, v)->numel + 1 > kmax) kmax = V(b, v)->numel + 1;
    b->gamma = (double)(kmax + 16) * DBL_EPSILON;
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        node_info *x = &b->ni[m->order[t]];
        if (!x->lin) continue;
        int64_t no = V(b, n->out[0])->numel;
        x->cbias = malloc(sizeof(double) * (size_t)(no + 1));
        if (x->cbias == NULL) goto nomem;
        lin_bias(b, n, x->cbias);
        int any = 0;
        for (int64_t j = 0; j < no && !any; j++) any = x->cbias[j] != 0;
        if (!any) {
            free(x->cbias);
            x->cbias = NULL;
        }
    }
    for (int v = 0; v < b->nv; v++) {
        if (V(b, v)->kind == NNC_VAL_CONST) continue;
        int64_t n = V(b, v)->numel;
        b->lo[v] = malloc((size_t)(n + 1) * sizeof(double));
        b->hi[v] = malloc((size_t)(n + 1) * sizeof(double));
        if (!b->lo[v] || !b->hi[v]) goto nomem;
    }
    if (!(b->soff = malloc(sizeof(size_t) * ((size_t)b->nv + 1)))) goto nomem;
    b->soff[0] = 0;
    for (int v = 0; v < b->nv; v++) b->soff[v + 1] = b->soff[v] + (b->lo[v] ? 2 * (size_t)V(b, v)->numel : 0);
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        if (b->ni[m->order[t]].lin && (n->op == NNC_OP_CONV || n->op == NNC_OP_AVERAGEPOOL) &&
            (conv_csr(b, n) != 0 || conv_gemm_setup(b, n) != 0))
            goto nomem;
    }
    if (refine_setup(b) != 0) goto nomem;
    *out = b;
    return NNC_STATUS_OK;
nomem:
    nnc_bnd_destroy(b);
    return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory while preparing the bounds");
}

/* ------------------------------------------------------------------------
 * Linear nodes as  y = sum_s J_s x_s + bias.  lin_apply computes, for the
 * run-time input in slot s, y += J_s x (mode 0) or y += |J_s| x (mode 1);
 * lin_back computes Lin += L J_s (mode 0) or |L| |J_s| (mode 1) for nobj rows.
 * Constant operands contribute to lin_bias. */

static double conv_w(const nnc_value *w, int64_t co, int64_t ci, int64_t ky, int64_t kx, int64_t KH, int64_t KW)
{
    (void)w;
    return w->f[((co * w->dims[1] + ci) * KH + ky) * KW + kx];
}

typedef struct cgeom { int64_t N, C, H, W, M, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW, G; } cgeom;
static void conv_geom(const nnc_model *m, const nnc_node *n, cgeom *g)
{
    nnc_window w = nnc_window_of(m, n);
    g->N = w.n; g->C = w.c; g->H = w.h; g->W = w.w;
    g->M = w.m; g->OH = w.oh; g->OW = w.ow;
    g->KH = w.kh; g->KW = w.kw; g->SH = w.sh; g->SW = w.sw;
    g->PT = w.pt; g->PL = w.pl; g->DH = w.dh; g->DW = w.dw;
    g->G = w.group;
}

/* The terms of a CONV or AVERAGEPOOL node, output element by output
 * element, in one fixed order.  fill == 0: applied to one row, as the
 * other linear nodes (back: d[i] += s[j] w, mode: |.|; forward: d[j] += w
 * s[i]); fill == 1: counted into ptr (numel(out) + 1) and, where idx != NULL,
 * stored into idx/w. */
static void conv_terms(const nnc_model *m, const nnc_node *n, int fill, int64_t *ptr, int32_t *idx, double *wv,
                       const double *s, double *d, int back, int mode)
{
    cgeom g;
    conv_geom(m, n, &g);
    const nnc_value *w = n->op == NNC_OP_CONV ? &m->vals[n->in[1]] : NULL;
    int64_t cg = g.C / g.G, mg = g.M / g.G;
    nnc_window win = nnc_window_of(m, n);
    int64_t pb = win.pb, pr = win.pr;
    int64_t k = 0;
    for (int64_t nn = 0; nn < g.N; nn++)
        for (int64_t co = 0; co < g.M; co++)
            for (int64_t oy = 0; oy < g.OH; oy++)
                for (int64_t ox = 0; ox < g.OW; ox++) {
                    int64_t j = ((nn * g.M + co) * g.OH + oy) * g.OW + ox;
                    double cnt = 1.0;
                    if (w == NULL) { /* average pool divisor, as the runtime computes it */
                        int64_t c1 = 0, c2 = 0;
                        for (int64_t ky = 0; ky < g.KH; ky++)
                            for (int64_t kx = 0; kx < g.KW; kx++) {
                                int64_t iy = oy * g.SH - g.PT + ky * g.DH, ix = ox * g.SW - g.PL + kx * g.DW;
                                if (iy >= -g.PT && iy < g.H + pb && ix >= -g.PL && ix < g.W + pr) c2++;
                                if (iy >= 0 && iy < g.H && ix >= 0 && ix < g.W) c1++;
                            }
                        cnt = (double)(win.count_include_pad ? c2 : c1);
                    }
                    if (fill) ptr[j] = k;
                    int64_t c0 = w ? (co / mg) * cg : co, cn = w ? cg : 1;
                    for (int64_t ci = 0; ci < cn; ci++)
                        for (int64_t ky = 0; ky < g.KH; ky++) {
                            int64_t iy = oy * g.SH - g.PT + ky * g.DH;
                            if (iy < 0 || iy >= g.H) continue;
                            for (int64_t kx = 0; kx < g.KW; kx++) {
                                int64_t ix = ox * g.SW - g.PL + kx * g.DW;
                                if (ix < 0 || ix >= g.W) continue;
                                int64_t i = ((nn * g.C + c0 + ci) * g.H + iy) * g.W + ix;
                                double w_ = w ? conv_w(w, co, ci, ky, kx, g.KH, g.KW) : 1.0 / cnt;
                                if (fill) {
                                    if (idx) {
                                        idx[k] = (int32_t)i;
                                        wv[k] = w_;
                                    }
                                    k++;
                                    continue;
                                }
                                if (mode) w_ = fabs(w_);
                                if (back) d[i] += (mode ? fabs(s[j]) : s[j]) * w_;
                                else d[j] += w_ * s[i];
                            }
                        }
                }
    if (fill) ptr[m->vals[n->out[0]].numel] = k;
}

int nnc_bnd_conv_csr(const nnc_model *m, const nnc_node *n, int64_t max_nnz, int64_t **ptr_out, int32_t **idx_out,
                     double **w_out)
{
    *ptr_out = NULL;
    *idx_out = NULL;
    *w_out = NULL;
    int64_t no = m->vals[n->out[0]].numel;
    if (m->vals[n->in[0]].numel >= INT32_MAX) return 1;
    int64_t *ptr = malloc(sizeof(int64_t) * (size_t)(no + 1));
    if (ptr == NULL) return -1;
    conv_terms(m, n, 1, ptr, NULL, NULL, NULL, NULL, 0, 0);
    int64_t nnz = ptr[no];
    if (nnz > max_nnz) {
        free(ptr);
        return 1;
    }
    int32_t *idx = malloc(sizeof(int32_t) * (size_t)(nnz + 1));
    double *wv = malloc(sizeof(double) * (size_t)(nnz + 1));
    if (!idx || !wv) {
        free(ptr); free(idx); free(wv);
        return -1;
    }
    conv_terms(m, n, 1, ptr, idx, wv, NULL, NULL, 0, 0);
    *ptr_out = ptr;
    *idx_out = idx;
    *w_out = wv;
    return 0;
}

/* Precompute a CONV/AVERAGEPOOL node's terms (node_info.cv_*), unless its
 * input has 2^31 elements or more, or the terms would take more than
 * NNC_BND_CONV_CSR_MAX entries (the loop nest is used then).
 * Returns 0, or -1 when out of memory. */
#define NNC_BND_CONV_CSR_MAX ((int64_t)1 << 26)
static int conv_csr(nnc_bnd *b, const nnc_node *n)
{
    node_info *x = &b->ni[n - b->m->nodes];
    return nnc_bnd_conv_csr(b->m, n, NNC_BND_CONV_CSR_MAX, &x->cv_ptr, &x->cv_idx, &x->cv_w) < 0 ? -1 : 0;
}

/* Column blocks of conv_gemm: at most this many doubles of scratch (one
 * output row of columns at least; past NNC_BND_COL_ROW_MAX for one row the
 * node keeps the sparse terms). */
#define NNC_BND_COL_MAX ((int64_t)1 << 15)
#define NNC_BND_COL_ROW_MAX ((int64_t)1 << 22)

/* Prepare a CONV node for conv_gemm (2-D, weights stored).  Returns 0, or
 * -1 when out of memory. */
static int conv_gemm_setup(nnc_bnd *b, const nnc_node *n)
{
    node_info *x = &b->ni[n - b->m->nodes];
    const nnc_value *w = V(b, n->in[1]);
    if (n->op != NNC_OP_CONV || w->f == NULL) return 0;
    cgeom g;
    conv_geom(b->m, n, &g);
    int64_t k2 = (g.C / g.G) * g.KH * g.KW, row = k2 * g.OW, all = row * g.OH;
    if (g.G < 1 || k2 < 1 || row < 1 || row > NNC_BND_COL_ROW_MAX) return 0;
    x->cv_colcap = all < NNC_BND_COL_MAX ? all : (row > NNC_BND_COL_MAX ? row : NNC_BND_COL_MAX);
    x->cv_col = malloc(sizeof(double) * (size_t)x->cv_colcap);
    x->cv_wabs = malloc(sizeof(double) * (size_t)(g.M * k2));
    if (!x->cv_col || !x->cv_wabs) {
        free(x->cv_col); free(x->cv_wabs);
        x->cv_col = x->cv_wabs = NULL;
        return -1;
    }
    for (int64_t k = 0; k < g.M * k2; k++) x->cv_wabs[k] = fabs(w->f[k]);
    return 0;
}

/* A CONV node as GEMMs (OpenBLAS), for nobj rows: forward y += J x (mode 0)
 * or |J| x (mode 1) through columns gathered from x (im2col), backward
 * Lin += L J (mode 0 only) through columns W^T L scattered onto Lin
 * (col2im).  Each output (forward) or input (backward) element receives the
 * same products as in the loop nest, summed in another order; the rounding
 * bound GAMMA sum |terms| (see the top of this file) holds in any order, so
 * the bounds stay sound.  Returns 1 when done, 0 when the caller must use
 * the sparse terms (no column scratch, or backward mode 1). */
NNC_BND_CLONES static int conv_gemm(const nnc_bnd *b, const nnc_node *n, const node_info *x, int back, int mode, int nobj,
                     const double *src, double *dst)
{
    if (x->cv_col == NULL || (back && mode)) return 0;
    cgeom g;
    conv_geom(b->m, n, &g);
    const double *W = mode ? x->cv_wabs : V(b, n->in[1])->f;
    int64_t cg = g.C / g.G, mg = g.M / g.G, k2 = cg * g.KH * g.KW, P = g.OH * g.OW, HW = g.H * g.W;
    int64_t ni = g.N * g.C * HW, no = g.N * g.M * P;
    int64_t rows = x->cv_colcap / (k2 * g.OW); /* output rows per column block */
    double *col = x->cv_col;
    for (int o = 0; o < nobj; o++)
        for (int64_t nn = 0; nn < g.N; nn++)
            for (int64_t gi = 0; gi < g.G; gi++) {
                const double *Wg = W + gi * mg * k2;
                const double *xin = back ? NULL : src + (size_t)o * (size_t)ni + (nn * g.C + gi * cg) * HW;
                double *din = back ? dst + (size_t)o * (size_t)ni + (nn * g.C + gi * cg) * HW : NULL;
                const double *yo = back ? src + (size_t)o * (size_t)no + (nn * g.M + gi * mg) * P : NULL;
                double *dy = back ? NULL : dst + (size_t)o * (size_t)no + (nn * g.M + gi * mg) * P;
                for (int64_t oy0 = 0; oy0 < g.OH; oy0 += rows) {
                    int64_t oy1 = oy0 + rows < g.OH ? oy0 + rows : g.OH, pc = (oy1 - oy0) * g.OW, p0 = oy0 * g.OW;
                    if (back) /* col [k2 x pc] = Wg^T L block */
                        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)k2, (int)pc, (int)mg, 1.0, Wg, (int)k2,
                                    yo + p0, (int)P, 0.0, col, (int)pc);
                    /* columns <-> input: row r = (ci, ky, kx), column (oy, ox) */
                    for (int64_t ci = 0; ci < cg; ci++)
                        for (int64_t ky = 0; ky < g.KH; ky++)
                            for (int64_t kx = 0; kx < g.KW; kx++) {
                                double *cr = col + ((ci * g.KH + ky) * g.KW + kx) * pc;
                                /* ix = ox SW + off within [0, W) for ox in [a, e) */
                                int64_t off = kx * g.DW - g.PL, sw = g.SW, a = off >= 0 ? 0 : (-off + sw - 1) / sw;
                                int64_t e = g.W - off > 0 ? (g.W - off + sw - 1) / sw : 0;
                                if (e > g.OW) e = g.OW;
                                if (a > e) a = e;
                                for (int64_t oy = oy0; oy < oy1; oy++) {
                                    int64_t iy = oy * g.SH - g.PT + ky * g.DH;
                                    double *c = cr + (oy - oy0) * g.OW;
                                    if (iy < 0 || iy >= g.H) {
                                        if (!back) memset(c, 0, sizeof(double) * (size_t)g.OW);
                                        continue;
                                    }
                                    int64_t base = ci * HW + iy * g.W + off;
                                    if (back) {
                                        double *restrict dd = din + base;
                                        const double *restrict cc = c;
                                        if (sw == 1)
                                            for (int64_t ox = a; ox < e; ox++) dd[ox] += cc[ox];
                                        else
                                            for (int64_t ox = a; ox < e; ox++) dd[ox * sw] += cc[ox];
                                    } else {
                                        const double *restrict xx = xin + base;
                                        double *restrict cc = c;
                                        for (int64_t ox = 0; ox < a; ox++) cc[ox] = 0.0;
                                        if (sw == 1)
                                            for (int64_t ox = a; ox < e; ox++) cc[ox] = xx[ox];
                                        else
                                            for (int64_t ox = a; ox < e; ox++) cc[ox] = xx[ox * sw];
                                        for (int64_t ox = e; ox < g.OW; ox++) cc[ox] = 0.0;
                                    }
                                }
                            }
                    if (!back) /* y block [mg x pc] += Wg col */
                        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)mg, (int)pc, (int)k2, 1.0, Wg, (int)k2,
                                    col, (int)pc, 1.0, dy + p0, (int)P);
                }
            }
    return 1;
}

/* One linear node, applied forward to one vector (rows = 1) or backward to
 * nobj rows.  fwd: y[no] += J x[ni]; back: Lin[o][ni] += L[o][no] J. */
static void lin_op(const nnc_bnd *b, const nnc_node *n, int slot, int back, int mode, int nobj, const double *src, double *dst)
{
    const nnc_model *m = b->m;
    const node_info *x = &b->ni[n - m->nodes];
    const nnc_value *vi = V(b, n->in[slot]), *vo = V(b, n->out[0]);
    int64_t ni = vi->numel, no = vo->numel;
    switch (n->op) {
    case NNC_OP_GEMM: case NNC_OP_MATMUL:
        if (vi->sparse == NULL && !(n->op == NNC_OP_MATMUL && slot == 1)) {
            const double *W = mode ? x->wabs : x->wt;
            const double *S = src;
            double *Sa = NULL;
            int64_t rows = x->rows * nobj;
            int64_t slen = back ? rows * x->N : rows * x->K;
            if (mode) {
                Sa = malloc((size_t)(slen + 1) * sizeof(double));
                if (Sa == NULL) abort();
                for (int64_t k = 0; k < slen; k++) Sa[k] = fabs(src[k]);
                S = Sa;
            }
            if (rows && x->K && x->N) {
                if (back) /* Lin[rows x K] += L[rows x N] W^T */
                    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)x->K, (int)x->N, 1.0, S, (int)x->N, W,
                                (int)x->N, 1.0, dst, (int)x->K);
                else
                    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)x->N, (int)x->K, 1.0, S, (int)x->K, W,
                                (int)x->N, 1.0, dst, (int)x->N);
            }
            free(Sa);
            return;
        } else {
            /* sparse constant A [R,K] times run-time X [K,Nc] */
            const nnc_csr *A = V(b, n->in[0])->sparse;
            const nnc_value *X = V(b, n->in[1]);
            int64_t Nc = X->rank == 1 ? 1 : X->dims[1];
            for (int o = 0; o < nobj; o++) {
                const double *s = src + (size_t)o * (back ? no : ni);
                double *d = dst + (size_t)o * (back ? ni : no);
                for (int64_t r = 0; r < A->rows; r++)
                    for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++) {
                        double a = mode ? fabs(A->val[k]) : A->val[k];
                        for (int64_t j = 0; j < Nc; j++) {
                            if (back) d[A->col[k] * Nc + j] += (mode ? fabs(s[r * Nc + j]) : s[r * Nc + j]) * a;
                            else d[r * Nc + j] += a * s[A->col[k] * Nc + j];
                        }
                    }
            }
            return;
        }
    default:
        break;
    }
    for (int o = 0; o < nobj; o++) {
        const double *s = src + (size_t)o * (back ? no : ni);
        double *d = dst + (size_t)o * (back ? ni : no);
#define ACC(j_out, i_in, w)                                                        \
    do {                                                                           \
        double w_ = (w);                                                           \
        if (mode) w_ = fabs(w_);                                                   \
        if (back) d[i_in] += (mode ? fabs(s[j_out]) : s[j_out]) * w_;              \
        else d[j_out] += w_ * s[i_in];                                             \
    } while (0)
        switch (n->op) {
        case NNC_OP_ADD: case NNC_OP_SUB: {
            const int64_t *map = slot == 0 ? x->ia : x->ib;
            double sg = (n->op == NNC_OP_SUB && slot == 1) ? -1.0 : 1.0;
            if (back && (slot == 0 ? x->id_a : x->id_b)) { /* d += sg s (|s|): no index map, no aliasing */
                double *restrict dd = d;
                const double *restrict ss = s;
                if (mode)
                    for (int64_t j = 0; j < no; j++) dd[j] += fabs(ss[j]);
                else if (sg > 0)
                    for (int64_t j = 0; j < no; j++) dd[j] += ss[j];
                else
                    for (int64_t j = 0; j < no; j++) dd[j] -= ss[j];
                break;
            }
            for (int64_t j = 0; j < no; j++) ACC(j, map[j], sg);
            break;
        }
        case NNC_OP_MUL: case NNC_OP_DIV: {
            const int64_t *map = slot == 0 ? x->ia : x->ib, *cm = slot == 0 ? x->ib : x->ia;
            const double *cv = V(b, n->in[1 - slot])->f;
            for (int64_t j = 0; j < no; j++) ACC(j, map[j], n->op == NNC_OP_MUL ? cv[cm[j]] : 1.0 / cv[cm[j]]);
            break;
        }
        case NNC_OP_TRANSPOSE: case NNC_OP_SLICE: case NNC_OP_PAD: case NNC_OP_GATHER:
            for (int64_t j = 0; j < no; j++)
                if (x->ia[j] >= 0) ACC(j, x->ia[j], 1.0);
            break;
        case NNC_OP_CONCAT:
            for (int64_t j = 0; j < no; j++)
                if (x->ib[j] == slot) ACC(j, x->ia[j], 1.0);
            break;
        case NNC_OP_FLATTEN: case NNC_OP_RESHAPE: case NNC_OP_IDENTITY: case NNC_OP_DROPOUT:
        case NNC_OP_SQUEEZE: case NNC_OP_UNSQUEEZE:
            if (mode)
                for (int64_t j = 0; j < no; j++) d[j] += fabs(s[j]);
            else
                for (int64_t j = 0; j < no; j++) d[j] += s[j];
            break;
        case NNC_OP_BATCHNORM: {
            const nnc_value *sc = V(b, n->in[1]), *var = V(b, n->in[4]);
            int64_t C = vi->dims[1], inner = ni / ((vi->dims[0] * C) != 0 ? vi->dims[0] * C : 1);
            for (int64_t j = 0; j < no; j++) {
                int64_t c = (j / inner) % C;
                ACC(j, j, sc->f[c] / sqrt(var->f[c] + n->fp[0]));
            }
            break;
        }
        case NNC_OP_CONV: case NNC_OP_AVERAGEPOOL:
            if (o == 0 && conv_gemm(b, n, x, back, mode, nobj, src, dst)) return;
            if (x->cv_ptr) { /* the precomputed terms (conv_csr), mode and direction hoisted */
                const int64_t *ptr = x->cv_ptr;
                const int32_t *idx = x->cv_idx;
                const double *cw = x->cv_w;
                if (back) {
                    for (int64_t j = 0; j < no; j++) {
                        double sj = mode ? fabs(s[j]) : s[j];
                        if (sj == 0) continue;
                        if (mode)
                            for (int64_t k = ptr[j]; k < ptr[j + 1]; k++) d[idx[k]] += sj * fabs(cw[k]);
                        else
                            for (int64_t k = ptr[j]; k < ptr[j + 1]; k++) d[idx[k]] += sj * cw[k];
                    }
                } else {
                    for (int64_t j = 0; j < no; j++) {
                        double dj = d[j];
                        if (mode)
                            for (int64_t k = ptr[j]; k < ptr[j + 1]; k++) dj += fabs(cw[k]) * s[idx[k]];
                        else
                            for (int64_t k = ptr[j]; k < ptr[j + 1]; k++) dj += cw[k] * s[idx[k]];
                        d[j] = dj;
                    }
                }
                break;
            }
            conv_terms(b->m, n, 0, NULL, NULL, NULL, s, d, back, mode);
            break;
        case NNC_OP_GLOBALAVERAGEPOOL: {
            int64_t planes = vi->dims[0] * vi->dims[1], sz = planes ? ni / planes : 0;
            for (int64_t p = 0; p < planes; p++)
                for (int64_t k = 0; k < sz; k++) ACC(p, p * sz + k, 1.0 / (double)sz);
            break;
        }
        default:
            abort(); /* excluded by supported() */
        }
#undef ACC
    }
}

/* A fused EmbeddingBag with fixed ids (nnc_mdl_embbag_fix_ids): sum (mean)
 * of its bags' stored rows, in double (out), and sum |rows| (mag), which
 * bounds the rounding of that sum with GAMMA >= gamma(L + 2); either may be
 * NULL.  p: 0 mode, 1 rows, 2 dim, 3 bag length, 4 bags (embbag_impl.h). */
static void embbag_sums(const nnc_bnd *b, const nnc_node *n, double *out, double *mag)
{
    const double *tab = V(b, n->in[0])->f;
    const int64_t *ids = V(b, n->in[1])->i;
    int64_t rows = n->p[1], dim = n->p[2], L = n->p[3];
    for (int64_t k = 0; k < n->p[4]; k++)
        for (int64_t j = 0; j < dim; j++) {
            double s = 0, a = 0;
            for (int64_t i = 0; i < L; i++) {
                int64_t r = ids[k * L + i] < 0 ? ids[k * L + i] + rows : ids[k * L + i]; /* in range: checked when fixed */
                s += tab[r * dim + j];
                a += fabs(tab[r * dim + j]);
            }
            if (out) out[k * dim + j] = n->p[0] == 1 ? s / (double)L : s;
            if (mag) mag[k * dim + j] = a;
        }
}

/* Constant term of a linear node (numel(out)); NULL-safe: writes into out. */
static void lin_bias(const nnc_bnd *b, const nnc_node *n, double *out)
{
    const node_info *x = &b->ni[n - b->m->nodes];
    const nnc_value *vo = V(b, n->out[0]);
    int64_t no = vo->numel;
    memset(out, 0, (size_t)no * sizeof(double));
    switch (n->op) {
    case NNC_OP_ADD: case NNC_OP_SUB:
        for (int s = 0; s < 2; s++) {
            if (is_var(b, n->in[s])) continue;
            const double *cv = V(b, n->in[s])->f;
            const int64_t *map = s == 0 ? x->ia : x->ib;
            double sg = (n->op == NNC_OP_SUB && s == 1) ? -1.0 : 1.0;
            for (int64_t j = 0; j < no; j++) out[j] += sg * cv[map[j]];
        }
        break;
    case NNC_OP_GEMM:
        if (x->bias) {
            int64_t per = x->rows * x->N;
            for (int64_t j = 0; j < no; j++) out[j] = x->bias[j % (per ? per : 1)];
        }
        break;
    case NNC_OP_PAD:
        for (int64_t j = 0; j < no; j++)
            if (x->ia[j] < 0) out[j] = n->fp[0];
        break;
    case NNC_OP_EMBEDBAG:
        embbag_sums(b, n, out, NULL);
        break;
    case NNC_OP_CONCAT:
        for (int64_t j = 0; j < no; j++) {
            int v = n->in[x->ib[j]];
            if (!is_var(b, v)) out[j] = V(b, v)->f ? V(b, v)->f[x->ia[j]] : (double)V(b, v)->i[x->ia[j]];
        }
        break;
    case NNC_OP_CONV:
        if (n->n_in > 2 && n->in[2] >= 0) {
            const double *bv = V(b, n->in[2])->f;
            const nnc_value *vo2 = vo;
            int64_t M = vo2->dims[1], inner = no / ((vo2->dims[0] * M) != 0 ? vo2->dims[0] * M : 1);
            for (int64_t j = 0; j < no; j++) out[j] = bv[(j / inner) % M];
        }
        break;
    case NNC_OP_BATCHNORM: {
        const nnc_value *vi = V(b, n->in[0]);
        const double *sc = V(b, n->in[1])->f, *bb = V(b, n->in[2])->f, *mu = V(b, n->in[3])->f, *var = V(b, n->in[4])->f;
        int64_t C = vi->dims[1], inner = no / ((vi->dims[0] * C) != 0 ? vi->dims[0] * C : 1);
        for (int64_t j = 0; j < no; j++) {
            int64_t c = (j / inner) % C;
            out[j] = bb[c] - mu[c] * (sc[c] / sqrt(var[c] + n->fp[0]));
        }
        break;
    }
    default:
        break;
    }
}

/* ------------------------------------------------------------ relaxations */

/* ReLU / LeakyReLU lines valid on [l, u], rounded so they stay valid. */
static void relax_relu(double l, double u, double alpha, int adaptive, double *al, double *bl, double *au, double *bu)
{
    if (l >= 0) { *al = 1; *bl = 0; *au = 1; *bu = 0; return; }
    if (u <= 0) { *al = alpha; *bl = 0; *au = alpha; *bu = 0; return; }
    /* upper: chord through (l, alpha l) and (u, u); slope and intercept rounded up.
     * s >= (u - alpha l)/(u - l) exactly and t >= -s l + alpha l keep the line
     * above both endpoints, hence above the function between them. */
    double s = up((u - alpha * l) / down(u - l));
    if (s > 1) s = 1;
    if (s < alpha) s = alpha;
    *au = s;
    *bu = up(up(-s * l) + alpha * l);
    if (*bu < 0) *bu = 0;
    /* lower: y (if alpha <= 1) or alpha y; CROWN's adaptive choice */
    *bl = 0;
    *al = (adaptive && u >= -l) ? 1.0 : alpha;
}

void nnc_bnd_relax_relu(double l, double u, double leak, double *al, double *bl, double *au, double *bu)
{
    relax_relu(l, u, leak, 1, al, bl, au, bu);
}

static double sigm(double x) { return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x)); }

/* Sigmoid / tanh lines of slope a on [l, u] (finite, l <= u): intercepts
 * *b_lo <= f(y) - a y <= *b_hi from its extrema, which lie at the ends or
 * where f'(y) = a; *y_lo, *y_hi: where they are attained. */
static void smooth_intercepts(int is_tanh, double l, double u, double a, double *b_lo, double *b_hi, double *y_lo,
                              double *y_hi)
{
    double pts[4] = {l, u, l, u};
    int np = 2;
    /* f'(y) = a: sigmoid s(1-s) = a -> s = (1 +- sqrt(1-4a))/2; tanh 1 - t^2 = a -> t = +-sqrt(1-a) */
    double disc = is_tanh ? 1.0 - a : 1.0 - 4.0 * a;
    if (a > 0 && disc > 0) {
        double r = sqrt(disc);
        for (int sg = -1; sg <= 1; sg += 2) {
            double v = is_tanh ? sg * r : 0.5 * (1.0 + sg * r);
            double y = is_tanh ? atanh(v) : log(v / (1.0 - v));
            if (isfinite(y) && y > l && y < u) pts[np++] = y;
        }
    }
    double gmin = INFINITY, gmax = -INFINITY;
    *y_lo = l;
    *y_hi = u;
    for (int k = 0; k < np; k++) {
        double f = is_tanh ? tanh(pts[k]) : sigm(pts[k]);
        double g = f - a * pts[k];
        if (g < gmin) { gmin = g; *y_lo = pts[k]; }
        if (g > gmax) { gmax = g; *y_hi = pts[k]; }
    }
    /* margins: libm error in f, rounding of a*y, and the stationary point
     * located inexactly (g is flat there: second-order error) */
    double mag = fabs(a) * fmax(fabs(l), fabs(u)) + 1.0;
    double margin = NNC_LIBM_REL * mag + 1e-13 * (u - l) * (u - l) + NNC_LIBM_ABS;
    *b_lo = gmin - margin;
    *b_hi = gmax + margin;
}

/* The largest derivative of sigmoid / tanh on [l, u] (at the point of
 * [l, u] nearest 0). */
static double smooth_dmax(int is_tanh, double l, double u)
{
    double y = l > 0 ? l : u < 0 ? u : 0.0;
    if (is_tanh) {
        double t = tanh(y);
        return 1.0 - t * t;
    }
    double s = sigm(y);
    return s * (1.0 - s);
}

/* Sigmoid / tanh: both slopes the chord slope (CROWN's choice; alpha-CROWN
 * then optimises each, nnc_bnd_set_smooth_slopes). */
static void relax_smooth(int is_tanh, double l, double u, double *al, double *bl, double *au, double *bu, double *yl,
                         double *yu)
{
    double fl = is_tanh ? tanh(l) : sigm(l), fu = is_tanh ? tanh(u) : sigm(u);
    double a = (u - l) > 1e-12 ? (fu - fl) / (u - l) : 0.0;
    if (!(a >= 0) || !isfinite(a)) a = 0.0;
    *al = *au = a;
    smooth_intercepts(is_tanh, l, u, a, bl, bu, yl, yu);
}

/* Error weight of a relaxed element on the input interval [l, u]:
 * max(|slope|) max(|l|, |u|) + max(|intercept|) (see the top of the file). */
static void relax_ew(node_info *x, int64_t j, double l, double u)
{
    x->ew[j] = fmax(fabs(x->al[j]), fabs(x->au[j])) * fmax(fabs(l), fabs(u)) + fmax(fabs(x->bl[j]), fabs(x->bu[j]));
}

/* ------------------------------------------------------------------ IBP */


/* Interval of a linear node's output; also fills its error weights. */
static nnc_status ibp_linear(nnc_bnd *b, const nnc_node *n)
{
    node_info *x = &b->ni[n - b->m->nodes];
    int64_t no = V(b, n->out[0])->numel;
    double *c = calloc((size_t)no + 1, sizeof(double)), *r = calloc((size_t)no + 1, sizeof(double));
    double *e = x->ew;
    if (!c || !r) {
        free(c);
        free(r);
        return NNC_STATUS_NOMEM;
    }
    if (x->cbias) memcpy(c, x->cbias, (size_t)no * sizeof(double));
    for (int64_t j = 0; j < no; j++) e[j] = fabs(c[j]);
    if (n->op == NNC_OP_EMBEDBAG) embbag_sums(b, n, NULL, e); /* its sum's error scales with sum |rows| */
    for (int s = 0; s < n->n_in; s++) {
        int v = n->in[s];
        if (!lin_slot(b, n, s)) continue;
        int64_t ni = V(b, v)->numel;
        double *mid = malloc((size_t)(ni + 1) * sizeof(double)), *rad = malloc((size_t)(ni + 1) * sizeof(double)),
               *mg = malloc((size_t)(ni + 1) * sizeof(double));
        if (!mid || !rad || !mg) {
            free(mid); free(rad); free(mg); free(c); free(r);
            return NNC_STATUS_NOMEM;
        }
        for (int64_t i = 0; i < ni; i++) {
            double l = b->lo[v][i], h = b->hi[v][i];
            mid[i] = 0.5 * l + 0.5 * h;
            rad[i] = up(fmax(h - mid[i], mid[i] - l));
            mg[i] = fmax(fabs(l), fabs(h));
        }
        lin_op(b, n, s, 0, 0, 1, mid, c);
        lin_op(b, n, s, 0, 1, 1, rad, r);
        lin_op(b, n, s, 0, 1, 1, mg, e);
        free(mid); free(rad); free(mg);
    }
    double *lo = b->lo[n->out[0]], *hi = b->hi[n->out[0]];
    double g = b->gamma;
    for (int64_t j = 0; j < no; j++) {
        e[j] = up(e[j] * (1 + g));
        double slack = up(g * (e[j] + r[j]));
        lo[j] = down(c[j] - up(r[j] + slack));
        hi[j] = up(c[j] + up(r[j] + slack));
    }
    free(c);
    free(r);
    return NNC_STATUS_OK;
}

/* Interval and relaxation of a nonlinear node from its input's bounds. */
static void ibp_nonlinear(nnc_bnd *b, const nnc_node *n)
{
    node_info *x = &b->ni[n - b->m->nodes];
    int vi = n->in[0], vo = n->out[0];
    int64_t no = V(b, vo)->numel;
    double *lo = b->lo[vo], *hi = b->hi[vo];
    if (x->bil) {
        int vb = n->in[1];
        nnc_bil_ibp(&x->bg, b->gamma, b->lo[vi], b->hi[vi], b->lo[vb], b->hi[vb], lo, hi, x->bl, x->bu, x->ew);
        return;
    }
    if (n->op == NNC_OP_MAXPOOL) {
        cgeom g;
        conv_geom(b->m, n, &g);
        for (int64_t p = 0; p < g.N * g.C; p++)
            for (int64_t oy = 0; oy < g.OH; oy++)
                for (int64_t ox = 0; ox < g.OW; ox++) {
                    int64_t j = (p * g.OH + oy) * g.OW + ox, best = -1;
                    double ml = -INFINITY, mh = -INFINITY, second_hi = -INFINITY;
                    for (int64_t ky = 0; ky < g.KH; ky++)
                        for (int64_t kx = 0; kx < g.KW; kx++) {
                            int64_t iy = oy * g.SH - g.PT + ky * g.DH, ix = ox * g.SW - g.PL + kx * g.DW;
                            if (iy < 0 || iy >= g.H || ix < 0 || ix >= g.W) continue;
                            int64_t i = (p * g.H + iy) * g.W + ix;
                            if (b->lo[vi][i] > ml) { ml = b->lo[vi][i]; best = i; }
                            if (b->hi[vi][i] > mh) mh = b->hi[vi][i];
                        }
                    for (int64_t ky = 0; ky < g.KH; ky++)
                        for (int64_t kx = 0; kx < g.KW; kx++) {
                            int64_t iy = oy * g.SH - g.PT + ky * g.DH, ix = ox * g.SW - g.PL + kx * g.DW;
                            if (iy < 0 || iy >= g.H || ix < 0 || ix >= g.W) continue;
                            int64_t i = (p * g.H + iy) * g.W + ix;
                            if (i != best && b->hi[vi][i] > second_hi) second_hi = b->hi[vi][i];
                        }
                    lo[j] = ml;
                    hi[j] = mh;
                    x->arg[j] = best;
                    /* lower: z >= x_best; upper: z <= mh, or z = x_best when it dominates */
                    x->al[j] = 1;
                    x->bl[j] = 0;
                    if (ml >= second_hi) {
                        x->au[j] = 1;
                        x->bu[j] = 0;
                    } else {
                        x->au[j] = 0;
                        x->bu[j] = mh;
                    }
                    x->ew[j] = fmax(fabs(ml), fabs(mh)) + fabs(mh);
                }
        return;
    }
    for (int64_t j = 0; j < no; j++) {
        double l = b->lo[vi][j], u = b->hi[vi][j];
        if (n->op == NNC_OP_RELU || n->op == NNC_OP_LEAKYRELU) {
            double alpha = n->op == NNC_OP_RELU ? 0.0 : n->fp[0]; /* in [0, 1]: supported() */
            relax_relu(l, u, alpha, 1, &x->al[j], &x->bl[j], &x->au[j], &x->bu[j]);
            lo[j] = l >= 0 ? l : down(alpha * l);
            hi[j] = u >= 0 ? u : up(alpha * u);
        } else {
            int th = n->op == NNC_OP_TANH;
            double yl = l, yu = u;
            if (isfinite(l) && isfinite(u)) relax_smooth(th, l, u, &x->al[j], &x->bl[j], &x->au[j], &x->bu[j], &yl, &yu);
            x->sxl[j] = yl;
            x->sxu[j] = yu;
            double fl = th ? tanh(l) : sigm(l), fu = th ? tanh(u) : sigm(u);
            lo[j] = fl - NNC_LIBM_REL * fabs(fl) - NNC_LIBM_ABS;
            hi[j] = fu + NNC_LIBM_REL * fabs(fu) + NNC_LIBM_ABS;
        }
        if (!isfinite(l) || !isfinite(u)) {
            /* monotone function, unbounded input: constant bounds only */
            x->al[j] = x->au[j] = 0;
            x->bl[j] = lo[j];
            x->bu[j] = hi[j];
            x->ew[j] = INFINITY;
            continue;
        }
        relax_ew(x, j, l, u);
    }
}

/* ------------------------------------------------------- back-substitution */

/* Zeroed rows for value v (nobj x numel), in storage kept between passes.
 * Returns 0, or -1 when out of memory. */
static int take_rows(nnc_bnd *b, int v, int nobj)
{
    size_t need = (size_t)nobj * (size_t)V(b, v)->numel + 1;
    if (b->Lcap[v] < need) {
        free(b->Lbuf[v]);
        b->Lbuf[v] = malloc(need * sizeof(double));
        b->Lcap[v] = b->Lbuf[v] ? need : 0;
        if (b->Lbuf[v] == NULL) return -1;
    }
    memset(b->Lbuf[v], 0, need * sizeof(double));
    b->L[v] = b->Lbuf[v];
    return 0;
}

/* Back-substitute nobj rows Lroot (over value root) to the input.
 * Out: Lin (nobj x n_in, zero when independent), c[nobj], err[nobj] (>= 0). */
NNC_BND_CLONES static nnc_status backsub(nnc_bnd *b, int root, int nobj, const double *Lroot, double *Lin, double *c, double *err)
{
    const nnc_model *m = b->m;
    int64_t nin = V(b, b->in_v)->numel;
    for (int v = 0; v < b->nv; v++) b->L[v] = NULL;
    memset(c, 0, (size_t)nobj * sizeof(double));
    memset(err, 0, (size_t)nobj * sizeof(double));
    double *cabs = calloc((size_t)nobj + 1, sizeof(double));
    if (cabs == NULL) return NNC_STATUS_NOMEM;
    size_t rs = (size_t)V(b, root)->numel;
    if (take_rows(b, root, nobj) != 0) { free(cabs); return NNC_STATUS_NOMEM; }
    memcpy(b->L[root], Lroot, (size_t)nobj * rs * sizeof(double));
    int start = b->pos[root];
    double g = b->gamma;
    for (int t = start; t >= 0; t--) {
        const nnc_node *n = &m->nodes[m->order[t]];
        int vo = n->out[0];
        double *L = b->L[vo];
        if (L == NULL) continue;
        const node_info *x = &b->ni[m->order[t]];
        int64_t no = V(b, vo)->numel;
        if (b->beta_on && b->pre_off[vo] >= 0) {
            /* beta-CROWN: on the split region s z >= 0, so f >= f - beta s z
             * for beta >= 0 (s = +-1; beta acts on objective 0 only) */
            const signed char *sp = b->split + b->pre_off[vo];
            const double *bt = b->beta + b->pre_off[vo];
            /* the subtraction rounds the coefficient: |delta_j| <= u |L_j'|,
             * an error of at most u |L_j'| max|z_j| <= u |L_j'| ew_j */
            double dsum = 0;
            for (int64_t j = 0; j < no; j++)
                if (sp[j] && bt[j] > 0) {
                    L[j] -= bt[j] * (double)sp[j];
                    if (L[j] != 0) dsum += fabs(L[j]) * x->ew[j];
                }
            err[0] += DBL_EPSILON * dsum * (1 + g);
        }
        /* rounding error committed here: gamma * |L| . ew */
        const double *ew = x->ew;
        for (int o = 0; o < nobj; o++) {
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0; /* nonnegative terms: any order is fine */
            const double *Lo = L + (size_t)o * no;
            int64_t j = 0;
            for (; j + 4 <= no; j += 4) {
                s0 += fabs(Lo[j]) * ew[j];
                s1 += fabs(Lo[j + 1]) * ew[j + 1];
                s2 += fabs(Lo[j + 2]) * ew[j + 2];
                s3 += fabs(Lo[j + 3]) * ew[j + 3];
            }
            for (; j < no; j++) s0 += fabs(Lo[j]) * ew[j];
            err[o] += g * ((s0 + s1) + (s2 + s3));
        }
        if (x->lin) {
            const double *bias = x->cbias;
            for (int o = 0; o < nobj && bias; o++) {
                /* NNC_BND_SW partial sums (vectorised; the rounding bound
                 * gamma sum |terms| holds in any summation order) */
                double ps[NNC_BND_SW] = {0}, s = 0;
                const double *Lo = L + (size_t)o * no;
                int64_t j = 0;
                for (; j + NNC_BND_SW <= no; j += NNC_BND_SW)
                    for (int u = 0; u < NNC_BND_SW; u++) ps[u] += Lo[j + u] * bias[j + u];
                for (; j < no; j++) ps[0] += Lo[j] * bias[j];
                for (int u = 0; u < NNC_BND_SW; u++) s += ps[u];
                c[o] += s;
                cabs[o] += fabs(c[o]);
            }
            for (int s = 0; s < n->n_in; s++) {
                int v = n->in[s];
                if (!lin_slot(b, n, s)) continue;
                if (b->L[v] == NULL && take_rows(b, v, nobj) != 0) { free(cabs); return NNC_STATUS_NOMEM; }
                lin_op(b, n, s, 1, 0, nobj, L, b->L[v]);
            }
        } else if (x->bil) {
            int va = n->in[0], vb = n->in[1];
            double *cs = malloc(sizeof(double) * ((size_t)nobj + 1));
            if (cs == NULL || (b->L[va] == NULL && take_rows(b, va, nobj) != 0) ||
                (b->L[vb] == NULL && take_rows(b, vb, nobj) != 0)) {
                free(cs);
                free(cabs);
                return NNC_STATUS_NOMEM;
            }
            if (b->recording) memcpy(b->rec[vo], L, sizeof(double) * (size_t)no);
            nnc_bil_back(&x->bg, nobj, L, b->lo[va], b->lo[vb], b->hi[vb], x->bl, x->bu, b->L[va], b->L[vb], cs);
            for (int o = 0; o < nobj; o++) {
                c[o] += cs[o];
                cabs[o] += fabs(c[o]);
            }
            free(cs);
        } else {
            int v = n->in[0];
            int64_t ni = V(b, v)->numel;
            if (b->L[v] == NULL && take_rows(b, v, nobj) != 0) { free(cabs); return NNC_STATUS_NOMEM; }
            const double *al = x->al, *au = x->au, *bl = x->bl, *bu = x->bu;
            const int64_t *arg = n->op == NNC_OP_MAXPOOL ? x->arg : NULL;
            for (int o = 0; o < nobj; o++) {
                const double *Lo = L + (size_t)o * no;
                double *Li = b->L[v] + (size_t)o * ni;
                double s = 0;
                if (b->recording && o == 0) memcpy(b->rec[vo], Lo, sizeof(double) * (size_t)no);
                if (arg == NULL) {
                    /* branch-free: positive weight takes the lower line, negative
                     * the upper; the intercepts in NNC_BND_SW partial sums */
                    double ps[NNC_BND_SW] = {0};
                    const double *restrict lo_ = Lo, *restrict al_ = al, *restrict au_ = au, *restrict bl_ = bl, *restrict bu_ = bu;
                    double *restrict li_ = Li; /* another node's rows */
                    int64_t j = 0;
                    for (; j + NNC_BND_SW <= no; j += NNC_BND_SW)
                        for (int u = 0; u < NNC_BND_SW; u++) {
                            double l = lo_[j + u], pa = al_[j + u], na = au_[j + u], pb = bl_[j + u], nb = bu_[j + u];
                            double a = l > 0 ? pa : na, bb = l > 0 ? pb : nb;
                            li_[j + u] += l * a;                /* slopes are finite */
                            ps[u] += l != 0 ? l * bb : 0.0;     /* intercepts may be infinite */
                        }
                    for (; j < no; j++) {
                        double l = Lo[j], a = l > 0 ? al[j] : au[j], bb = l > 0 ? bl[j] : bu[j];
                        Li[j] += l * a;
                        ps[0] += l != 0 ? l * bb : 0.0;
                    }
                    for (int u = 0; u < NNC_BND_SW; u++) s += ps[u];
                } else {
                    for (int64_t j = 0; j < no; j++) {
                        double l = Lo[j];
                        if (l == 0) continue;
                        int64_t i = arg[j];
                        double a = l >= 0 ? al[j] : au[j], bb = l >= 0 ? bl[j] : bu[j];
                        if (i >= 0) Li[i] += l * a;
                        s += l * bb;
                    }
                }
                c[o] += s;
                cabs[o] += fabs(c[o]);
            }
        }
        if (vo != b->in_v) b->L[vo] = NULL; /* consumed; its storage is reused */
    }
    if (b->L[b->in_v]) memcpy(Lin, b->L[b->in_v], (size_t)nobj * (size_t)nin * sizeof(double));
    else memset(Lin, 0, (size_t)nobj * (size_t)nin * sizeof(double));
    for (int o = 0; o < nobj; o++) err[o] += g * cabs[o];
    free(cabs);
    return NNC_STATUS_OK;
}

/* Lower bound of Lin . x + c - err over the box. */
static double concretize(const nnc_bnd *b, const double *L, double c, double err)
{
    int64_t nin = V(b, b->in_v)->numel;
    double s = c, a = fabs(c);
    for (int64_t i = 0; i < nin; i++) {
        double v = L[i] >= 0 ? L[i] * b->box_lo[i] : L[i] * b->box_hi[i];
        s += v;
        a += fabs(v);
    }
    double e = up((err + b->gamma * a) * (1 + b->gamma));
    return down(s - e);
}

static nnc_status compute(nnc_bnd *b, const double *lo, const double *hi, int crown, const double *state,
                          int crown_from);

/* Intersect element j of value vo's bounds with [l, u], both enclosures of
 * it.  Where the two cross the enclosure is kept (the crossing point,
 * widened by rounding).  Returns 1 when they cross by more than rounding
 * (1e-9 relative): then no point has that value, and 0 otherwise. */
static int narrow(nnc_bnd *b, int vo, int64_t j, double l, double u)
{
    double *lo = b->lo[vo], *hi = b->hi[vo];
    if (l > lo[j]) lo[j] = l;
    if (u < hi[j]) hi[j] = u;
    if (!(lo[j] > hi[j])) return 0;
    int empty = lo[j] > hi[j] + 1e-9 * (1 + fabs(hi[j]));
    double mid = lo[j];
    lo[j] = down(fmin(mid, hi[j]));
    hi[j] = up(fmax(mid, hi[j]));
    return empty;
}

nnc_status nnc_bnd_compute(nnc_bnd *b, const double *lo, const double *hi, int crown)
{
    return compute(b, lo, hi, crown, NULL, 0);
}

size_t nnc_bnd_state_doubles(const nnc_bnd *b) { return b->soff[b->nv]; }

void nnc_bnd_state_save(const nnc_bnd *b, double *state)
{
    for (int v = 0; v < b->nv; v++) {
        if (!b->lo[v]) continue;
        size_t no = (size_t)V(b, v)->numel;
        memcpy(state + b->soff[v], b->lo[v], no * sizeof(double));
        memcpy(state + b->soff[v] + no, b->hi[v], no * sizeof(double));
    }
}

nnc_status nnc_bnd_compute_warm(nnc_bnd *b, const double *lo, const double *hi, const double *state, int crown_from)
{
    return compute(b, lo, hi, 1, state, crown_from);
}

/* The bounds of every value: IBP, intersected with state (a saved parent's
 * bounds, valid on a superset of this problem) when state != NULL, then
 * CROWN-tightened where crown != 0 at order positions >= crown_from. */
static nnc_status compute(nnc_bnd *b, const double *lo, const double *hi, int crown, const double *state,
                          int crown_from)
{
    const nnc_model *m = b->m;
    int64_t nin = V(b, b->in_v)->numel;
    memcpy(b->lo[b->in_v], lo, (size_t)nin * sizeof(double));
    memcpy(b->hi[b->in_v], hi, (size_t)nin * sizeof(double));
    b->box_lo = b->lo[b->in_v];
    b->box_hi = b->hi[b->in_v];
    b->infeasible = 0;
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        int vo = n->out[0];
        nnc_status st;
        if (b->ni[m->order[t]].lin) {
            if ((st = ibp_linear(b, n))) return st;
        } else {
            if (b->split) apply_split(b, t, n);
            ibp_nonlinear(b, n);
        }
        int64_t no = V(b, vo)->numel;
        if (state) { /* the parent's bounds hold here too: keep the tighter of each pair */
            const double *sl = state + b->soff[vo], *sh = sl + no;
            for (int64_t j = 0; j < no; j++) /* crossing beyond rounding: an empty split problem */
                if (narrow(b, vo, j, sl[j], sh[j])) b->infeasible = 1;
        }
        if (!crown || t < crown_from || !b->needs_crown[vo] || b->exact_ibp[vo] || no > NNC_BND_CROWN_MAX_NEURONS)
            continue;
        /* CROWN on this pre-activation: rows +e_j and -e_j, in chunks of
         * NNC_BND_CHUNK neurons to bound memory */
        /* neurons worth refining: for piecewise-linear consumers only the
         * unstable ones (the relaxation of a stable neuron is already exact) */
        int64_t *sel = malloc(sizeof(int64_t) * (size_t)(no + 1));
        if (sel == NULL) return NNC_STATUS_NOMEM;
        int64_t nsel = 0;
        for (int64_t j = 0; j < no; j++)
            if (b->needs_crown[vo] == 2 || (b->lo[vo][j] < 0 && b->hi[vo][j] > 0)) sel[nsel++] = j;
        int64_t chunk = nsel < NNC_BND_CHUNK ? nsel : NNC_BND_CHUNK;
        if (chunk == 0) {
            free(sel);
            continue;
        }
        int nobj = (int)(2 * chunk);
        double *Lr = calloc((size_t)nobj * (size_t)no + 1, sizeof(double));
        double *Li = malloc((size_t)nobj * (size_t)nin * sizeof(double) + 8);
        double *cc = malloc((size_t)nobj * sizeof(double) + 8), *ee = malloc((size_t)nobj * sizeof(double) + 8);
        if (!Lr || !Li || !cc || !ee) {
            free(Lr); free(Li); free(cc); free(ee); free(sel);
            return NNC_STATUS_NOMEM;
        }
        st = NNC_STATUS_OK;
        for (int64_t j0 = 0; j0 < nsel && st == NNC_STATUS_OK; j0 += chunk) {
            int64_t cn = nsel - j0 < chunk ? nsel - j0 : chunk;
            memset(Lr, 0, (size_t)nobj * (size_t)no * sizeof(double));
            for (int64_t k = 0; k < cn; k++) {
                Lr[(size_t)k * (size_t)no + (size_t)sel[j0 + k]] = 1.0;
                Lr[(size_t)(cn + k) * (size_t)no + (size_t)sel[j0 + k]] = -1.0;
            }
            st = backsub(b, vo, (int)(2 * cn), Lr, Li, cc, ee);
            if (st) break;
            for (int64_t k = 0; k < cn; k++) {
                int64_t j = sel[j0 + k];
                double l = concretize(b, Li + (size_t)k * (size_t)nin, cc[k], ee[k]);
                double u = -concretize(b, Li + (size_t)(cn + k) * (size_t)nin, cc[cn + k], ee[cn + k]);
                narrow(b, vo, j, l, u); /* crossing only within rounding */
            }
        }
        free(sel);
        free(Lr); free(Li); free(cc); free(ee);
        if (st) return st;
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_bnd_linear_lower(nnc_bnd *b, int nobj, const double *C, const double *d, double *lower, double *lam)
{
    int64_t nin = V(b, b->in_v)->numel, nout = V(b, b->out_v)->numel;
    double *Li = malloc((size_t)nobj * (size_t)nin * sizeof(double) + 8);
    double *cc = malloc((size_t)nobj * sizeof(double) + 8), *ee = malloc((size_t)nobj * sizeof(double) + 8);
    if (!Li || !cc || !ee) {
        free(Li); free(cc); free(ee);
        return NNC_STATUS_NOMEM;
    }
    nnc_status st = backsub(b, b->out_v, nobj, C, Li, cc, ee);
    if (st == NNC_STATUS_OK) {
        const double *lo = b->lo[b->out_v], *hi = b->hi[b->out_v];
        for (int o = 0; o < nobj; o++) {
            double cr = concretize(b, Li + (size_t)o * (size_t)nin, cc[o] + d[o], ee[o]);
            /* IBP on the objective */
            double s = d[o], a = fabs(d[o]);
            for (int64_t j = 0; j < nout; j++) {
                double cj = C[(size_t)o * (size_t)nout + (size_t)j];
                double v = cj >= 0 ? cj * lo[j] : cj * hi[j];
                s += v;
                a += fabs(v);
            }
            double ib = down(s - up(b->gamma * a * (1 + b->gamma)));
            lower[o] = cr > ib ? cr : ib;
        }
        if (lam) memcpy(lam, Li, (size_t)nobj * (size_t)nin * sizeof(double));
    }
    free(Li); free(cc); free(ee);
    return st;
}

/* ------------------------------------------------------------ refinement
 * Hooks for alpha-CROWN (verifier/alpha.c) and ReLU splitting
 * (verifier/relusplit.c).  ReLU/LeakyReLU neurons get a flat index: node by
 * node in topological order, element by element. */

static int is_relu(const nnc_node *n) { return n->op == NNC_OP_RELU || n->op == NNC_OP_LEAKYRELU; }
static double relu_leak(const nnc_node *n) { return n->op == NNC_OP_RELU ? 0.0 : n->fp[0]; }

static int refine_setup(nnc_bnd *b)
{
    const nnc_model *m = b->m;
    if (m->n_order < 0 || b->nv < 0) return -1;
    b->relu_off = malloc(sizeof(int64_t) * ((size_t)m->n_order + 1));
    b->smooth_off = malloc(sizeof(int64_t) * ((size_t)m->n_order + 1));
    b->rec = calloc((size_t)b->nv + 1, sizeof(double *));
    b->pre_off = malloc(sizeof(int64_t) * ((size_t)b->nv + 1));
    if (!b->relu_off || !b->smooth_off || !b->rec || !b->pre_off) return -1;
    for (int v = 0; v < b->nv; v++) b->pre_off[v] = -1;
    b->n_relu = 0;
    b->n_smooth = 0;
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        b->relu_off[t] = -1;
        b->smooth_off[t] = -1;
        if (n->op == NNC_OP_SIGMOID || n->op == NNC_OP_TANH) {
            b->smooth_off[t] = b->n_smooth;
            b->n_smooth += V(b, n->out[0])->numel;
        }
        if (is_relu(n)) {
            if (b->pre_off[n->in[0]] < 0) b->pre_off[n->in[0]] = b->n_relu;
            b->relu_off[t] = b->n_relu;
            b->n_relu += V(b, n->out[0])->numel;
        }
        if (!b->ni[m->order[t]].lin && !(b->rec[n->out[0]] = calloc((size_t)V(b, n->out[0])->numel + 1, sizeof(double))))
            return -1;
    }
    return 0;
}

/* Split constraints of a ReLU node narrow its input's interval: the bounds
 * then hold on the part of the box where the constraints hold, and the
 * relaxation built from them is the exact linear piece. */
static void apply_split(nnc_bnd *b, int t, const nnc_node *n)
{
    if (b->relu_off[t] < 0) return;
    const signed char *sp = b->split + b->relu_off[t];
    double *lo = b->lo[n->in[0]], *hi = b->hi[n->in[0]];
    int64_t no = V(b, n->out[0])->numel;
    for (int64_t j = 0; j < no; j++) {
        if (sp[j] > 0) {
            if (hi[j] < 0) b->infeasible = 1;
            if (lo[j] < 0) lo[j] = 0;
        } else if (sp[j] < 0) {
            if (lo[j] > 0) b->infeasible = 1;
            if (hi[j] > 0) hi[j] = 0;
        }
    }
}

int64_t nnc_bnd_relu_count(const nnc_bnd *b) { return b->n_relu; }

void nnc_bnd_set_splits(nnc_bnd *b, const signed char *split) { b->split = split; }

void nnc_bnd_set_beta(nnc_bnd *b, const double *beta) { b->beta = beta; }

int nnc_bnd_infeasible(const nnc_bnd *b) { return b->infeasible; }

void nnc_bnd_relu_bounds(const nnc_bnd *b, double *lo, double *hi)
{
    const nnc_model *m = b->m;
    for (int t = 0; t < m->n_order; t++) {
        if (b->relu_off[t] < 0) continue;
        const nnc_node *n = &m->nodes[m->order[t]];
        int64_t no = V(b, n->out[0])->numel;
        memcpy(lo + b->relu_off[t], b->lo[n->in[0]], sizeof(double) * (size_t)no);
        memcpy(hi + b->relu_off[t], b->hi[n->in[0]], sizeof(double) * (size_t)no);
    }
}

void nnc_bnd_get_slopes(const nnc_bnd *b, double *alpha)
{
    const nnc_model *m = b->m;
    for (int t = 0; t < m->n_order; t++)
        if (b->relu_off[t] >= 0)
            memcpy(alpha + b->relu_off[t], b->ni[m->order[t]].al,
                   sizeof(double) * (size_t)V(b, m->nodes[m->order[t]].out[0])->numel);
}

/* Any lower line  y >= a x  with leak <= a <= 1 is valid for every x; the
 * error weight is recomputed because |a| may now exceed the upper slope. */
void nnc_bnd_set_slopes(nnc_bnd *b, const double *alpha)
{
    const nnc_model *m = b->m;
    for (int t = 0; t < m->n_order; t++) {
        if (b->relu_off[t] < 0) continue;
        const nnc_node *n = &m->nodes[m->order[t]];
        node_info *x = &b->ni[m->order[t]];
        const double *l = b->lo[n->in[0]], *u = b->hi[n->in[0]];
        double leak = relu_leak(n);
        int64_t no = V(b, n->out[0])->numel;
        for (int64_t j = 0; j < no; j++) {
            if (!(l[j] < 0 && u[j] > 0) || !isfinite(l[j]) || !isfinite(u[j])) continue;
            double a = alpha[b->relu_off[t] + j];
            if (!(a >= leak)) a = leak; /* NaN too */
            if (a > 1) a = 1;
            x->al[j] = a;
            relax_ew(x, j, l[j], u[j]);
        }
    }
}

/* nnc_bnd_objective_grad for the objective C . root + d over value root's
 * elements; gradients of ReLU neurons at or after root's node are 0. */
static nnc_status objective_grad_at(nnc_bnd *b, int root, const double *C, double d, double *lower, double *lam,
                                    double *grad, double *gbeta, double *coef)
{
    const nnc_model *m = b->m;
    int64_t nin = V(b, b->in_v)->numel;
    for (int v = 0; v < b->nv; v++)
        if (b->rec[v]) memset(b->rec[v], 0, sizeof(double) * (size_t)V(b, v)->numel);
    double *Li = malloc(sizeof(double) * (size_t)(nin + 1)), cc, ee;
    double **z = calloc((size_t)b->nv, sizeof(double *));
    nnc_status st = NNC_STATUS_NOMEM;
    if (!Li || !z) goto out;
    b->recording = 1;
    b->beta_on = b->beta != NULL && b->split != NULL;
    st = backsub(b, root, 1, C, Li, &cc, &ee);
    b->recording = 0;
    b->beta_on = 0;
    if (st) goto out;
    *lower = concretize(b, Li, cc + d, ee);
    if (lam) memcpy(lam, Li, sizeof(double) * (size_t)nin);
    if (grad == NULL && coef == NULL && gbeta == NULL && b->gsmooth == NULL) goto out;
    /* d lower / d L at a value is the relaxed network evaluated forward at
     * the minimiser x* of the linear bound, each neuron on the line its
     * coefficient selected; hence d lower / d alpha_j = coef_j * z_j(x*). */
    st = NNC_STATUS_NOMEM;
    if (!(z[b->in_v] = malloc(sizeof(double) * (size_t)(nin + 1)))) goto out;
    for (int64_t i = 0; i < nin; i++) z[b->in_v][i] = Li[i] >= 0 ? b->box_lo[i] : b->box_hi[i];
    int last = b->pos[root] < 0 ? -1 : b->pos[root];
    if (b->gsmooth) memset(b->gsmooth, 0, sizeof(double) * 2 * (size_t)b->n_smooth);
    if (last + 1 < m->n_order) { /* neurons after root: not reached by its rows */
        int64_t f0 = INT64_MAX;
        for (int t = last + 1; t < m->n_order; t++)
            if (b->relu_off[t] >= 0 && b->relu_off[t] < f0) f0 = b->relu_off[t];
        for (int64_t f = f0; f < b->n_relu; f++) {
            if (grad) grad[f] = 0;
            if (gbeta) gbeta[f] = 0;
            if (coef) coef[f] = 0;
        }
    }
    for (int t = 0; t <= last; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        const node_info *x = &b->ni[m->order[t]];
        int vo = n->out[0];
        int64_t no = V(b, vo)->numel;
        if (!(z[vo] = calloc((size_t)no + 1, sizeof(double)))) goto out;
        if (x->lin) {
            if (x->cbias) memcpy(z[vo], x->cbias, sizeof(double) * (size_t)no);
            for (int s = 0; s < n->n_in; s++)
                if (lin_slot(b, n, s) && z[n->in[s]]) lin_op(b, n, s, 0, 0, 1, z[n->in[s]], z[vo]);
        } else if (x->bil) {
            if (z[n->in[0]] && z[n->in[1]])
                nnc_bil_eval_planes(&x->bg, b->rec[vo], b->lo[n->in[0]], b->lo[n->in[1]], b->hi[n->in[1]], x->bl, x->bu,
                                    z[n->in[0]], z[n->in[1]], z[vo]);
        } else {
            const double *zi = z[n->in[0]];
            for (int64_t j = 0; j < no; j++) {
                int64_t i = n->op == NNC_OP_MAXPOOL ? x->arg[j] : j;
                double xi = (i >= 0 && zi) ? zi[i] : 0;
                z[vo][j] = b->rec[vo][j] >= 0 ? x->al[j] * xi + x->bl[j] : x->au[j] * xi + x->bu[j];
            }
        }
        if (b->relu_off[t] >= 0) {
            const double *l = b->lo[n->in[0]], *u = b->hi[n->in[0]], *zi = z[n->in[0]];
            for (int64_t j = 0; j < no; j++) {
                int64_t f = b->relu_off[t] + j;
                double cj = b->rec[vo][j];
                if (coef) coef[f] = cj;
                if (grad) grad[f] = (cj > 0 && l[j] < 0 && u[j] > 0 && zi) ? cj * zi[j] : 0;
                if (gbeta) gbeta[f] = (b->split && b->split[f] && zi) ? -(double)b->split[f] * zi[j] : 0;
            }
        }
        if (b->smooth_off[t] >= 0 && b->gsmooth) {
            /* a line's intercept is the extremum of f(y) - a y, attained at
             * sxl / sxu: d (a z + b(a)) / d a = z - sx (Danskin); the slope
             * is t * dmax, so d / d t has the factor dmax */
            const double *l = b->lo[n->in[0]], *u = b->hi[n->in[0]], *zi = z[n->in[0]];
            int th = n->op == NNC_OP_TANH;
            double *gs = b->gsmooth + 2 * b->smooth_off[t];
            for (int64_t j = 0; j < no; j++) {
                double cj = b->rec[vo][j];
                gs[2 * j] = gs[2 * j + 1] = 0;
                if (!zi || cj == 0 || !isfinite(l[j]) || !isfinite(u[j]) || !(l[j] < u[j])) continue;
                double dm = smooth_dmax(th, l[j], u[j]);
                if (cj > 0) gs[2 * j] = cj * (zi[j] - x->sxl[j]) * dm;
                else gs[2 * j + 1] = cj * (zi[j] - x->sxu[j]) * dm;
            }
        }
    }
    st = NNC_STATUS_OK;
out:
    if (z)
        for (int v = 0; v < b->nv; v++) free(z[v]);
    free(z);
    free(Li);
    return st;
}

nnc_status nnc_bnd_objective_grad(nnc_bnd *b, const double *C, double d, double *lower, double *lam, double *grad,
                                  double *gbeta, double *coef)
{
    return objective_grad_at(b, b->out_v, C, d, lower, lam, grad, gbeta, coef);
}

/* Neuron f's node position, input value and element: f < n_relu a ReLU
 * neuron, else sigmoid/tanh neuron f - n_relu (f in range). */
static int neuron_at(const nnc_bnd *b, int64_t f, int *v, int64_t *j)
{
    const int64_t *off = f < b->n_relu ? b->relu_off : b->smooth_off;
    int64_t k = f < b->n_relu ? f : f - b->n_relu;
    int t = -1;
    for (int p = 0; p < b->m->n_order; p++)
        if (off[p] >= 0 && off[p] <= k) t = p;
    *v = b->m->nodes[b->m->order[t]].in[0];
    *j = k - off[t];
    return t;
}

int nnc_bnd_pre_pos(const nnc_bnd *b, int64_t f)
{
    int v;
    int64_t j;
    return neuron_at(b, f, &v, &j);
}

nnc_status nnc_bnd_pre_grad(nnc_bnd *b, int64_t f, int sign, double *lower, double *grad, double *gbeta)
{
    if (f < 0 || f >= b->n_relu + b->n_smooth || (sign != 1 && sign != -1)) return NNC_STATUS_ARG;
    int v;
    int64_t j;
    neuron_at(b, f, &v, &j);
    double *C = calloc((size_t)V(b, v)->numel + 1, sizeof(double));
    if (C == NULL) return NNC_STATUS_NOMEM;
    C[j] = sign;
    nnc_status st = objective_grad_at(b, v, C, 0.0, lower, NULL, grad, gbeta, NULL);
    free(C);
    return st;
}

int nnc_bnd_pre_exact(const nnc_bnd *b, int64_t f)
{
    int v;
    int64_t j;
    neuron_at(b, f, &v, &j);
    return b->exact_ibp[v] != 0;
}

void nnc_bnd_pre_bounds(const nnc_bnd *b, int64_t f, double *l, double *u)
{
    int v;
    int64_t j;
    neuron_at(b, f, &v, &j);
    *l = b->lo[v][j];
    *u = b->hi[v][j];
}

int nnc_bnd_pre_narrow(nnc_bnd *b, int64_t f, double l, double u)
{
    int v;
    int64_t j;
    int t = neuron_at(b, f, &v, &j);
    const nnc_node *n = &b->m->nodes[b->m->order[t]];
    node_info *x = &b->ni[b->m->order[t]];
    int empty = narrow(b, v, j, l, u);
    if (empty) b->infeasible = 1;
    /* the neuron's relaxation and output interval from its new bounds (as
     * ibp_nonlinear; the other consumers of v keep their wider, still valid
     * relaxations) */
    double lo = b->lo[v][j], hi = b->hi[v][j];
    if (!isfinite(lo) || !isfinite(hi)) return empty;
    int vo = n->out[0];
    double ol, oh;
    if (is_relu(n)) {
        double leak = relu_leak(n);
        relax_relu(lo, hi, leak, 1, &x->al[j], &x->bl[j], &x->au[j], &x->bu[j]);
        ol = lo >= 0 ? lo : down(leak * lo);
        oh = hi >= 0 ? hi : up(leak * hi);
    } else {
        int th = n->op == NNC_OP_TANH;
        relax_smooth(th, lo, hi, &x->al[j], &x->bl[j], &x->au[j], &x->bu[j], &x->sxl[j], &x->sxu[j]);
        double fl = th ? tanh(lo) : sigm(lo), fu = th ? tanh(hi) : sigm(hi);
        ol = fl - NNC_LIBM_REL * fabs(fl) - NNC_LIBM_ABS;
        oh = fu + NNC_LIBM_REL * fabs(fu) + NNC_LIBM_ABS;
    }
    if (ol > b->lo[vo][j]) b->lo[vo][j] = ol;
    if (oh < b->hi[vo][j]) b->hi[vo][j] = oh;
    relax_ew(x, j, lo, hi);
    return empty;
}

nnc_status nnc_bnd_split_lower(nnc_bnd *b, const double *C, int64_t f, int side, double *lower)
{
    if (f < 0 || f >= b->n_relu) return NNC_STATUS_ARG;
    int v;
    int64_t j;
    int t = neuron_at(b, f, &v, &j);
    const nnc_node *n = &b->m->nodes[b->m->order[t]];
    node_info *x = &b->ni[b->m->order[t]];
    double l = b->lo[v][j], u = b->hi[v][j];
    double sv[5] = {x->al[j], x->bl[j], x->au[j], x->bu[j], x->ew[j]};
    /* the exact piece on the child's side: slope 1 (active) or the leak */
    double a = side > 0 ? 1.0 : relu_leak(n);
    x->al[j] = x->au[j] = a;
    x->bl[j] = x->bu[j] = 0;
    x->ew[j] = fabs(a) * fmax(fabs(l), fabs(u));
    nnc_status st = nnc_bnd_objective_grad(b, C, 0.0, lower, NULL, NULL, NULL, NULL);
    x->al[j] = sv[0]; x->bl[j] = sv[1]; x->au[j] = sv[2]; x->bu[j] = sv[3]; x->ew[j] = sv[4];
    return st;
}

int64_t nnc_bnd_smooth_count(const nnc_bnd *b) { return b->n_smooth; }

void nnc_bnd_set_smooth_grad(nnc_bnd *b, double *g) { b->gsmooth = g; }

void nnc_bnd_get_smooth_slopes(const nnc_bnd *b, double *t)
{
    const nnc_model *m = b->m;
    for (int p = 0; p < m->n_order; p++) {
        if (b->smooth_off[p] < 0) continue;
        const nnc_node *n = &m->nodes[m->order[p]];
        const node_info *x = &b->ni[m->order[p]];
        const double *l = b->lo[n->in[0]], *u = b->hi[n->in[0]];
        int th = n->op == NNC_OP_TANH;
        double *tt = t + 2 * b->smooth_off[p];
        for (int64_t j = 0; j < V(b, n->out[0])->numel; j++) {
            double dm = isfinite(l[j]) && isfinite(u[j]) ? smooth_dmax(th, l[j], u[j]) : 0;
            tt[2 * j] = dm > 0 ? fmin(1.0, x->al[j] / dm) : 0;
            tt[2 * j + 1] = dm > 0 ? fmin(1.0, x->au[j] / dm) : 0;
        }
    }
}

/* Any slope a gives valid lines once the intercepts are the extrema of
 * f(y) - a y on the interval (smooth_intercepts); a = t dmax, t in [0, 1]. */
void nnc_bnd_set_smooth_slopes(nnc_bnd *b, const double *t)
{
    const nnc_model *m = b->m;
    for (int p = 0; p < m->n_order; p++) {
        if (b->smooth_off[p] < 0) continue;
        const nnc_node *n = &m->nodes[m->order[p]];
        node_info *x = &b->ni[m->order[p]];
        const double *l = b->lo[n->in[0]], *u = b->hi[n->in[0]];
        int th = n->op == NNC_OP_TANH;
        const double *tt = t + 2 * b->smooth_off[p];
        for (int64_t j = 0; j < V(b, n->out[0])->numel; j++) {
            if (!isfinite(l[j]) || !isfinite(u[j]) || !(l[j] < u[j])) continue;
            double dm = smooth_dmax(th, l[j], u[j]), tl = tt[2 * j], tu = tt[2 * j + 1], bl, bu, y;
            tl = tl >= 0 ? fmin(tl, 1.0) : 0; /* NaN too */
            tu = tu >= 0 ? fmin(tu, 1.0) : 0;
            x->al[j] = tl * dm;
            x->au[j] = tu * dm;
            smooth_intercepts(th, l[j], u[j], x->al[j], &bl, &bu, &x->sxl[j], &y);
            x->bl[j] = bl;
            smooth_intercepts(th, l[j], u[j], x->au[j], &bl, &bu, &y, &x->sxu[j]);
            x->bu[j] = bu;
            relax_ew(x, j, l[j], u[j]);
        }
    }
}

void nnc_bnd_set_tick(nnc_bnd *b, void (*fn)(void *ctx), void *ctx)
{
    b->tick = fn;
    b->tick_ctx = ctx;
}

void nnc_bnd_tick(nnc_bnd *b)
{
    if (b->tick) b->tick(b->tick_ctx);
}
