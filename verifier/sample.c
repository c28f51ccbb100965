/* The verifier's sampling stage: vectorised Philox points, dense-chain
 * extraction, the a priori float error bounds behind the fast verdicts, and
 * the CPU / GPU dispatch (see sample_impl.h for the method). */
#include "common/isa.h"
#include "verifier/sample_impl.h"

#include "common/philox.h"
#include "verifier/sample_math.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NNC_SMP_CPU_BATCH 1024  /* samples per runtime call on the CPU */
#define NNC_SMP_GPU_BATCH 16384 /* samples per device round trip (at most) */
#define NNC_SMP_GPU_BYTES ((size_t)64 << 20) /* host points buffer of a GPU batch */
/* Give up screening a case when more than this share of a batch needs the
 * reference runtime anyway (tau too loose for the box): then every sample
 * goes straight to it.  Only speed depends on it, never a verdict. */
#define NNC_SMP_MAX_RECHECK_SHARE 0.25
/* The box screen (one float32 GEMM per layer) hands over to the running
 * bound (about two) when more than this share of a batch is undecided:
 * a recheck costs several float32 evaluations. */
#define NNC_SMP_BOX_RECHECK_SHARE 0.05

/* ------------------------------------------------------------------ chain */

void nnc_smp_chain_free(nnc_smp_chain *ch)
{
    if (ch == NULL) return;
    for (int l = 0; l < ch->n_layers; l++) {
        free(ch->layers[l].w);
        free(ch->layers[l].b);
    }
    for (int l = 0; l < ch->n_lin; l++) nnc_smp_lin_free(&ch->lin[l]);
    free(ch->lin);
    free(ch->layers);
    free(ch->relu_src);
    free(ch->carry_from);
    free(ch);
}

nnc_status nnc_smp_chain_check_finite(const nnc_smp_chain *ch, char *err, size_t errlen)
{
    for (int l = 0; l < ch->n_layers; l++) {
        const nnc_gpu_dense *D = &ch->layers[l];
        const nnc_smp_lin *S = l < ch->n_lin ? &ch->lin[l] : NULL;
        int bad = 0;
        for (size_t k = 0; D->w && k < (size_t)D->K * (size_t)D->N && !bad; k++) bad = !isfinite(D->w[k]);
        for (int64_t k = 0; !D->w && S && S->ptr && k < S->ptr[D->N] && !bad; k++) bad = !isfinite(S->sw[k]);
        for (int j = 0; D->b && j < D->N && !bad; j++) bad = !isfinite(D->b[j]);
        for (int64_t k = 0; S && S->werr && k < (D->w ? (int64_t)D->K * D->N : S->ptr[D->N]) && !bad; k++)
            bad = !isfinite(S->werr[k]);
        for (int j = 0; S && S->berr && j < D->N && !bad; j++) bad = !isfinite(S->berr[j]);
        if (bad) return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "layer %d has a non-finite weight or bias", l);
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_smp_chain_extract_affine(nnc_smp_chain **out, const nnc_model *m, char *err, size_t errlen)
{
    nnc_smp_chain *ch;
    nnc_status st = nnc_smp_chain_extract(&ch, m, err, errlen);
    if (st) return st;
    st = nnc_smp_chain_check_finite(ch, err, errlen);
    if (!st && ch->layers[ch->n_layers - 1].relu)
        st = nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "the output layer ends in a ReLU");
    if (st) nnc_smp_chain_free(ch);
    else *out = ch;
    return st;
}

static const nnc_value *const_f(const nnc_model *m, int v)
{
    if (v < 0) return NULL;
    const nnc_value *val = &m->vals[v];
    return (val->kind == NNC_VAL_CONST && val->f && !val->sparse) ? val : NULL;
}

static int is_float_value(double v) { return (double)(float)v == v || !isfinite(v); }

/* Append a layer with weights B (rank 2, [K][N], or [N][K] when trans). */
static nnc_status push_layer(nnc_smp_chain *ch, const nnc_value *B, int64_t K, int64_t N, int trans)
{
    if (K < 1 || N < 1 || K > INT32_MAX / 2 || N > INT32_MAX / 2 || (uint64_t)K * (uint64_t)N > ((uint64_t)1 << 31))
        return NNC_STATUS_UNSUPPORTED;
    nnc_gpu_dense *nl = realloc(ch->layers, sizeof *nl * (size_t)(ch->n_layers + 1));
    if (nl == NULL) return NNC_STATUS_NOMEM;
    ch->layers = nl;
    nnc_gpu_dense *L = &nl[ch->n_layers];
    memset(L, 0, sizeof *L);
    L->K = (int)K;
    L->N = (int)N;
    L->w = malloc(sizeof(double) * (size_t)(K * N));
    L->b = calloc((size_t)N, sizeof(double));
    ch->n_layers++;
    if (!L->w || !L->b) return NNC_STATUS_NOMEM;
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++) {
            double v = trans ? B->f[j * K + k] : B->f[k * N + j];
            L->w[k * N + j] = v;
            if (!is_float_value(v)) ch->float_weights = 0;
        }
    return NNC_STATUS_OK;
}

/* Append y = x + sign * c (c: n values or one broadcast), as an identity
 * layer with that bias (-c is exact). */
static nnc_status push_identity(nnc_smp_chain *ch, int64_t n, const nnc_value *c, double sign)
{
    if (n < 1 || n > 4096) return NNC_STATUS_UNSUPPORTED;
    nnc_gpu_dense *nl = realloc(ch->layers, sizeof *nl * (size_t)(ch->n_layers + 1));
    if (nl == NULL) return NNC_STATUS_NOMEM;
    ch->layers = nl;
    nnc_gpu_dense *L = &nl[ch->n_layers];
    memset(L, 0, sizeof *L);
    L->K = L->N = (int)n;
    L->w = calloc((size_t)(n * n), sizeof(double));
    L->b = malloc(sizeof(double) * (size_t)n);
    ch->n_layers++;
    if (!L->w || !L->b) return NNC_STATUS_NOMEM;
    for (int64_t j = 0; j < n; j++) {
        L->w[j * n + j] = 1;
        L->b[j] = sign * c->f[c->numel == 1 ? 0 : j];
        if (!is_float_value(L->b[j])) ch->float_weights = 0;
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_smp_chain_extract(nnc_smp_chain **out, const nnc_model *m, char *err, size_t errlen)
{
    *out = NULL;
    if (m->n_inputs != 1 || m->n_outputs != 1 || !nnc_dtype_is_float(m->vals[m->inputs[0]].dtype))
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "not a dense chain: needs one float input and one output");
    return nnc_smp_chain_extract_from(out, m, m->inputs[0], 0, 0, err, errlen);
}

nnc_status nnc_smp_chain_step(nnc_smp_chain *ch, const nnc_model *m, const nnc_node *n, unsigned flags, int *cur,
                              int *bias_ok, int *bad)
{
    int lin = (flags & NNC_SMP_CHAIN_LINEAR) != 0;
    nnc_status st = NNC_STATUS_OK;
    *bad = 0;
    int64_t numel = m->vals[*cur].numel;
    switch (n->op) {
    case NNC_OP_IDENTITY: case NNC_OP_DROPOUT: case NNC_OP_FLATTEN: case NNC_OP_RESHAPE:
    case NNC_OP_SQUEEZE: case NNC_OP_UNSQUEEZE:
        if (n->in[0] != *cur || m->vals[n->out[0]].numel != numel) *bad = 1;
        else *cur = n->out[0];
        break;
    case NNC_OP_GEMM: {
        const nnc_value *B = const_f(m, n->in[1]);
        int64_t N = n->p[3], K = n->p[4];
        int has_c = n->n_in > 2 && n->in[2] >= 0 && n->fp[1] != 0;
        const nnc_value *Cb = has_c ? const_f(m, n->in[2]) : NULL;
        if (n->in[0] != *cur || n->p[0] || n->p[2] != 1 || numel != K || !B || B->rank != 2 || n->fp[0] != 1.0 ||
            (has_c && (!Cb || n->fp[1] != 1.0 || (n->p[5] & 1)))) {
            *bad = 1;
            break;
        }
        if ((st = push_layer(ch, B, K, N, (int)n->p[1])) || (lin && (st = nnc_smp_lin_sync(ch)))) break;
        if (has_c) {
            nnc_gpu_dense *L = &ch->layers[ch->n_layers - 1];
            for (int64_t j = 0; j < N; j++) {
                L->b[j] = Cb->f[(n->p[5] & 2) ? j : 0];
                if (!is_float_value(L->b[j])) ch->float_weights = 0;
            }
        }
        *cur = n->out[0];
        *bias_ok = 0;
        break;
    }
    case NNC_OP_MATMUL: {
        const nnc_value *B = const_f(m, n->in[1]);
        if (n->in[0] != *cur || !B || B->rank != 2 || numel != B->dims[0] || m->vals[n->out[0]].numel != B->dims[1]) {
            *bad = 1;
            break;
        }
        if ((st = push_layer(ch, B, B->dims[0], B->dims[1], 0)) || (lin && (st = nnc_smp_lin_sync(ch)))) break;
        *cur = n->out[0];
        *bias_ok = 1;
        break;
    }
    case NNC_OP_SUB:
    case NNC_OP_ADD: {
        int other = n->in[0] == *cur ? n->in[1] : n->in[0];
        const nnc_value *c = const_f(m, other);
        if ((n->in[0] != *cur && n->in[1] != *cur) || !c || m->vals[n->out[0]].numel != numel ||
            (n->op == NNC_OP_SUB && n->in[0] != *cur) || (c->numel != numel && c->numel != 1)) {
            *bad = 1;
            break;
        }
        if (!*bias_ok || n->op == NNC_OP_SUB) {
            /* x + c or x - c on its own (an input normalisation): an
             * identity layer with bias +-c, one rounding per element,
             * which the dot-product error bound covers */
            if (lin) st = nnc_smp_lin_push_add(ch, numel, c->f, c->numel, n->op == NNC_OP_SUB ? -1.0 : 1.0);
            else st = push_identity(ch, numel, c, n->op == NNC_OP_SUB ? -1.0 : 1.0);
            if (st) break;
            *cur = n->out[0];
            *bias_ok = 0;
            break;
        }
        nnc_gpu_dense *L = &ch->layers[ch->n_layers - 1];
        if (c->numel != L->N) {
            *bad = 1;
            break;
        }
        for (int j = 0; j < L->N; j++) {
            L->b[j] = c->f[j];
            if (!is_float_value(L->b[j])) ch->float_weights = 0;
        }
        *cur = n->out[0];
        *bias_ok = 0;
        break;
    }
    case NNC_OP_CONV: case NNC_OP_AVERAGEPOOL: case NNC_OP_BATCHNORM: {
        const nnc_value *w = n->op == NNC_OP_CONV ? const_f(m, n->in[1]) : NULL;
        if (!lin || n->in[0] != *cur || (n->op == NNC_OP_CONV && !w)) {
            *bad = 1;
            break;
        }
        st = n->op == NNC_OP_BATCHNORM ? nnc_smp_lin_push_batchnorm(ch, m, n) : nnc_smp_lin_push_conv(ch, m, n);
        if (st == NNC_STATUS_UNSUPPORTED) {
            st = NNC_STATUS_OK;
            *bad = 1;
            break;
        }
        *cur = n->out[0];
        *bias_ok = 0;
        break;
    }
    case NNC_OP_PAD: {
        /* by nothing: a view */
        int zero = lin && n->in[0] == *cur && m->vals[n->out[0]].numel == numel;
        for (int q = 0; q < 16 && zero; q++) zero = n->p[q] == 0;
        if (!zero) *bad = 1;
        else *cur = n->out[0];
        break;
    }
    case NNC_OP_RELU:
        if (n->in[0] != *cur || ch->n_layers == 0) {
            *bad = 1;
            break;
        }
        ch->layers[ch->n_layers - 1].relu = 1;
        *cur = n->out[0];
        *bias_ok = 0;
        break;
    default:
        *bad = 1;
    }
    return st;
}

nnc_status nnc_smp_chain_extract_from(nnc_smp_chain **out, const nnc_model *m, int v0, int t0, unsigned flags,
                                      char *err, size_t errlen)
{
    int lin = (flags & NNC_SMP_CHAIN_LINEAR) != 0;
    *out = NULL;
    nnc_smp_chain *ch = calloc(1, sizeof *ch);
    if (ch == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    ch->float_weights = 1;
    int cur = v0;
    int bias_ok = 0; /* an Add of a bias row may follow (right after a MatMul) */
    nnc_status st = NNC_STATUS_OK;
    const nnc_node *bad = NULL;
    for (int t = t0; t < m->n_order && !st && !bad; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        int b = 0;
        st = nnc_smp_chain_step(ch, m, n, flags, &cur, &bias_ok, &b);
        if (b) bad = n;
    }
    if (!st && !bad && (ch->n_layers == 0 || m->outputs[0] != cur)) bad = ch->n_layers ? NULL : &m->nodes[m->order[0]];
    if (!st && !bad && m->outputs[0] != cur) st = NNC_STATUS_UNSUPPORTED;
    if (!st && !bad && lin && !(st = nnc_smp_lin_sync(ch))) st = nnc_smp_lin_compose(ch);
    if (st || bad) {
        nnc_smp_chain_free(ch);
        if (st == NNC_STATUS_NOMEM) return nnc_err(err, errlen, st, "out of memory");
        if (bad) return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "not a dense chain at node '%s' (%s)",
                                bad->name ? bad->name : "?", bad->op_type ? bad->op_type : "?");
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "not a dense chain");
    }
    ch->n_in = ch->layers[0].K;
    ch->n_out = ch->layers[ch->n_layers - 1].N;
    for (int l = 1; l < ch->n_layers; l++)
        if (ch->layers[l].K != ch->layers[l - 1].N) {
            nnc_smp_chain_free(ch);
            return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "not a dense chain: layer sizes do not match");
        }
    *out = ch;
    return NNC_STATUS_OK;
}

static int chain_width(const nnc_smp_chain *ch)
{
    int w = ch->n_in;
    for (int l = 0; l < ch->n_layers; l++)
        if (ch->layers[l].N > w) w = ch->layers[l].N;
    return w;
}

/* One box through the chain; lo/hi hold the layer's input on entry and its
 * output on return (both arrays chain_width long). */
static void ibp_one(const nnc_smp_chain *ch, double *lo, double *hi, double *tlo, double *thi)
{
    for (int l = 0; l < ch->n_layers; l++) {
        const nnc_gpu_dense *L = &ch->layers[l];
        for (int j = 0; j < L->N; j++) {
            nnc_smp_interval_neuron(L->w + j, (size_t)L->N, L->K, L->b[j], lo, hi, &tlo[j], &thi[j]);
            if (L->relu) {
                tlo[j] = tlo[j] > 0 ? tlo[j] : 0;
                thi[j] = thi[j] > 0 ? thi[j] : 0;
            }
        }
        memcpy(lo, tlo, sizeof(double) * (size_t)L->N);
        memcpy(hi, thi, sizeof(double) * (size_t)L->N);
    }
}

nnc_status nnc_smp_ibp_batch(const nnc_smp_chain *ch, int nbox, const double *lo, const double *hi, double *out_lo,
                             double *out_hi)
{
    size_t w = (size_t)chain_width(ch);
    double *buf = malloc(sizeof(double) * 4 * w);
    if (buf == NULL) return NNC_STATUS_NOMEM;
    for (int b = 0; b < nbox; b++) {
        memcpy(buf, lo + (size_t)b * (size_t)ch->n_in, sizeof(double) * (size_t)ch->n_in);
        memcpy(buf + w, hi + (size_t)b * (size_t)ch->n_in, sizeof(double) * (size_t)ch->n_in);
        ibp_one(ch, buf, buf + w, buf + 2 * w, buf + 3 * w);
        memcpy(out_lo + (size_t)b * (size_t)ch->n_out, buf, sizeof(double) * (size_t)ch->n_out);
        memcpy(out_hi + (size_t)b * (size_t)ch->n_out, buf + w, sizeof(double) * (size_t)ch->n_out);
    }
    free(buf);
    return NNC_STATUS_OK;
}

/* Forward error analysis (Higham 3.5): with h the exact layer input, ĥ a
 * computed one, |ĥ - h| <= e and |h| <= H, the computed pre-activation
 * fl(ĥ W + b) is within  |W|^T e + gamma_{K+1} (|W|^T (H + e) + |b|)  of the
 * exact one (whatever the summation order or FMA use), plus (K + 2) times
 * the absolute error of an underflowing or flushed operation or operand
 * (2^-126 in float32 with flush-to-zero); ReLU is 1-Lipschitz and
 * exact.  The sums below are of non-negative terms in round-to-nearest; the
 * final tolerance is inflated by 1% to cover their (relative 1e-13) error. */
static void err_step(const nnc_gpu_dense *L, const double *H, const double *e, double u, double tiny, double *e_out)
{
    double g = nnc_smp_gamma((double)L->K + 1.0, u);
    for (int j = 0; j < L->N; j++) {
        double se = 0, sa = 0;
        for (int k = 0; k < L->K; k++) {
            double aw = fabs(L->w[(size_t)k * (size_t)L->N + (size_t)j]);
            se += aw * e[k];
            sa += aw * (H[k] + e[k]);
        }
        /* + one more tiny: the value itself may be flushed when read */
        e_out[j] = se + g * (sa + fabs(L->b[j])) + ((double)L->K + 2.0) * tiny;
        /* a product or partial sum of the evaluator may overflow (float32:
         * past 2^126, with room for rounding) although the layer's result
         * does not: no bound */
        if (!(sa + fabs(L->b[j]) < (u > 1e-10 ? 0x1p126 : 0x1p1022))) e_out[j] = INFINITY;
    }
}

nnc_status nnc_smp_chain_errors(const nnc_smp_chain *ch, const double *lo, const double *hi, double u_fast,
                                int in_round, double *e_fast, double *e_ref, double *y_abs)
{
    size_t w = (size_t)chain_width(ch);
    double *buf = malloc(sizeof(double) * 9 * w);
    if (buf == NULL) return NNC_STATUS_NOMEM;
    double *blo = buf, *bhi = buf + w, *tlo = buf + 2 * w, *thi = buf + 3 * w, *H = buf + 4 * w;
    double *ef = buf + 5 * w, *er = buf + 6 * w, *nf = buf + 7 * w, *nr = buf + 8 * w;
    /* float32 has subnormals down to 2^-149; a flush-to-zero kernel loses
     * up to 2^-126 per operation: take the larger */
    double tiny_fast = u_fast > 1e-10 ? 1.1754943508222875e-38 : 4.4501477170144028e-308;
    double tiny_ref = 4.4501477170144028e-308;
    int overflow = 0;
    for (int i = 0; i < ch->n_in; i++) {
        blo[i] = lo[i];
        bhi[i] = hi[i];
        H[i] = fmax(fabs(lo[i]), fabs(hi[i]));
        if (!(H[i] < 0x1p126)) overflow = 1;
        ef[i] = in_round ? u_fast * H[i] + tiny_fast : 0;
        er[i] = 0;
    }
    for (int l = 0; l < ch->n_layers; l++) {
        const nnc_gpu_dense *L = &ch->layers[l];
        err_step(L, H, ef, u_fast, tiny_fast, nf);
        err_step(L, H, er, NNC_SMP_U64, tiny_ref, nr);
        for (int j = 0; j < L->N; j++) {
            nnc_smp_interval_neuron(L->w + j, (size_t)L->N, L->K, L->b[j], blo, bhi, &tlo[j], &thi[j]);
            if (L->relu) {
                tlo[j] = fmax(tlo[j], 0.0);
                thi[j] = fmax(thi[j], 0.0);
            }
        }
        for (int j = 0; j < L->N; j++) {
            blo[j] = tlo[j];
            bhi[j] = thi[j];
            H[j] = fmax(fabs(tlo[j]), fabs(thi[j]));
            ef[j] = nf[j];
            er[j] = nr[j];
            if (!(H[j] + ef[j] < 0x1p126)) overflow = 1; /* also catches NaN */
        }
    }
    for (int i = 0; i < ch->n_out; i++) {
        /* a float32 value that may overflow (here or in an earlier layer:
         * H is the largest magnitude of each layer's interval) makes the
         * fast path's error unbounded: every sample is then rechecked */
        e_fast[i] = overflow ? INFINITY : ef[i];
        e_ref[i] = er[i];
        y_abs[i] = H[i];
    }
    free(buf);
    return NNC_STATUS_OK;
}

double nnc_smp_margin_tolerance(const double *C, const double *d, int nrows, int n_out, const double *e_fast,
                                const double *e_ref, const double *y_abs)
{
    /* |margin(a) - margin(b)| <= max_r |row_r(a) - row_r(b)| (min and max are
     * 1-Lipschitz), and each computed row is within gamma_{n_out+1} (|C_r| |y|
     * + |d_r|) of its exact value */
    double g = nnc_smp_gamma((double)n_out + 1.0, NNC_SMP_U64), tau = 0;
    for (int r = 0; r < nrows; r++) {
        double sd = 0, sy = 0;
        for (int i = 0; i < n_out; i++) {
            double ac = fabs(C[(size_t)r * (size_t)n_out + (size_t)i]);
            sd += ac * (e_fast[i] + e_ref[i]);
            sy += ac * (y_abs[i] + fmax(e_fast[i], e_ref[i]));
        }
        double t = sd + 2 * g * (sy + fabs(d[r]));
        if (!(t <= tau)) tau = t; /* NaN stays */
    }
    return isnan(tau) ? INFINITY : tau * 1.01 + 1e-300;
}

/* ----------------------------------------------------------------- points */

void nnc_smp_point_ref(double *x, int n, uint64_t seed, uint64_t sub, double *const *leaves, const double *cum,
                       size_t nopen, double tw)
{
    nnc_philox_state ph;
    nnc_philox_init(&ph, seed, sub, 0);
    double u2[2];
    nnc_philox_uniform2_double(&ph, u2);
    const double *box = leaves[nnc_smp_pick_leaf(cum, nopen, u2[0] * tw)];
    for (int i = 0; i < n; i += 2) {
        nnc_philox_uniform2_double(&ph, u2);
        for (int t = 0; t < 2 && i + t < n; t++) x[i + t] = nnc_smp_coord(box[i + t], box[n + i + t], u2[t]);
    }
}

#define NNC_SMP_ROUND(a, b, c, d, k0, k1)                                        \
    do {                                                                        \
        uint64_t p0_ = (uint64_t)NNC_PHILOX_M0 * (a), p1_ = (uint64_t)NNC_PHILOX_M1 * (c); \
        uint32_t na_ = (uint32_t)(p1_ >> 32) ^ (b) ^ (k0);                     \
        uint32_t nc_ = (uint32_t)(p0_ >> 32) ^ (d) ^ (k1);                     \
        (b) = (uint32_t)p1_;                                                    \
        (d) = (uint32_t)p0_;                                                    \
        (a) = na_;                                                              \
        (c) = nc_;                                                              \
    } while (0)

/* Blocks j0 .. nb - 1 of subsequence (c2, c3): counters (j, 0, c2, c3), the
 * words curand_uniform2_double consumes, converted to the two uniform
 * doubles of each block (u[2j], u[2j+1]).  Straight-line lanes so that the
 * compiler vectorises across j (nnc_philox4x32_10 written out). */
static inline __attribute__((always_inline)) void blocks_body(uint32_t k0, uint32_t k1, uint32_t c2, uint32_t c3,
                                                              int j0, int nb, double *restrict u)
{
    for (int j = j0; j < nb; j++) {
        uint32_t a = (uint32_t)j, b = 0, c = c2, d = c3, ka = k0, kb = k1;
        NNC_SMP_ROUND(a, b, c, d, ka, kb);
        for (int r = 1; r < 10; r++) {
            ka += NNC_PHILOX_W0;
            kb += NNC_PHILOX_W1;
            NNC_SMP_ROUND(a, b, c, d, ka, kb);
        }
        uint64_t z0 = (uint64_t)a ^ ((uint64_t)b << 21), z1 = (uint64_t)c ^ ((uint64_t)d << 21);
        /* z < 2^53: the signed conversion is exact and vectorises */
        u[2 * j] = (double)(int64_t)z0 * 1.1102230246251565404e-16 + 5.5511151231257827021e-17;
        u[2 * j + 1] = (double)(int64_t)z1 * 1.1102230246251565404e-16 + 5.5511151231257827021e-17;
    }
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define NNC_SMP_X86 1
#include <immintrin.h>

/* blocks_body with eight blocks per AVX-512 register: each 32-bit word sits
 * in a 64-bit lane, so _mm512_mul_epu32 gives the full 32x32 -> 64 product
 * of the low halves.  The high halves collect garbage from the XORs but are
 * never read by the multiplies, and are masked off before conversion. */
__attribute__((target("avx512f,avx512dq"))) static void blocks_avx512(uint32_t k0, uint32_t k1, uint32_t c2,
                                                                     uint32_t c3, int nb, double *restrict u)
{
    const __m512i m0 = _mm512_set1_epi64(NNC_PHILOX_M0), m1 = _mm512_set1_epi64(NNC_PHILOX_M1);
    const __m512i lo32 = _mm512_set1_epi64(0xffffffffLL), step = _mm512_set1_epi64(8);
    const __m512d scale = _mm512_set1_pd(1.1102230246251565404e-16), half = _mm512_set1_pd(5.5511151231257827021e-17);
    __m512i ka[10], kb[10];
    uint32_t x0 = k0, x1 = k1;
    for (int r = 0; r < 10; r++) {
        ka[r] = _mm512_set1_epi64(x0);
        kb[r] = _mm512_set1_epi64(x1);
        x0 += NNC_PHILOX_W0;
        x1 += NNC_PHILOX_W1;
    }
    __m512i jv = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i cc = _mm512_set1_epi64(c2), dd = _mm512_set1_epi64(c3);
    int j = 0;
    for (; j + 8 <= nb; j += 8, jv = _mm512_add_epi64(jv, step)) {
        __m512i a = jv, b = _mm512_setzero_si512(), c = cc, d = dd;
        for (int r = 0; r < 10; r++) {
            __m512i p0 = _mm512_mul_epu32(m0, a), p1 = _mm512_mul_epu32(m1, c);
            a = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), b, ka[r], 0x96); /* 3-way xor */
            c = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), d, kb[r], 0x96);
            b = p1;
            d = p0;
        }
        __m512i z0 = _mm512_xor_si512(_mm512_and_si512(a, lo32), _mm512_slli_epi64(_mm512_and_si512(b, lo32), 21));
        __m512i z1 = _mm512_xor_si512(_mm512_and_si512(c, lo32), _mm512_slli_epi64(_mm512_and_si512(d, lo32), 21));
        __m512d u0 = _mm512_add_pd(_mm512_mul_pd(_mm512_cvtepi64_pd(z0), scale), half);
        __m512d u1 = _mm512_add_pd(_mm512_mul_pd(_mm512_cvtepi64_pd(z1), scale), half);
        /* interleave to u[2j], u[2j+1] */
        const __m512i ilo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), ihi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
        _mm512_storeu_pd(u + 2 * j, _mm512_permutex2var_pd(u0, ilo, u1));
        _mm512_storeu_pd(u + 2 * j + 8, _mm512_permutex2var_pd(u0, ihi, u1));
    }
    blocks_body(k0, k1, c2, c3, j, nb, u); /* the tail, scalar */
}
#endif

#ifdef NNC_SMP_X86
/* blocks_body vectorised by the compiler on 4-lane AVX2 registers */
__attribute__((target("avx2,fma"))) static void blocks_avx2(uint32_t k0, uint32_t k1, uint32_t c2, uint32_t c3, int nb,
                                                            double *restrict u)
{
    blocks_body(k0, k1, c2, c3, 0, nb, u);
}
#endif

static void blocks_plain(uint32_t k0, uint32_t k1, uint32_t c2, uint32_t c3, int nb, double *restrict u)
{
    blocks_body(k0, k1, c2, c3, 0, nb, u);
}

/* Points of subsequences sub0 .. sub0 + cnt - 1: with leaves != NULL, block
 * 0 picks the leaf and coordinates start at block 1; with leaves == NULL
 * the box [lo, hi] is sampled from block 0 on. */
static void points(double *xs, int cnt, int n, uint64_t seed, uint64_t sub0, double *const *leaves,
                   const double *cum, size_t nopen, double tw, const double *lo, const double *hi)
{
    void (*blocks)(uint32_t, uint32_t, uint32_t, uint32_t, int, double *) = blocks_plain;
#ifdef NNC_SMP_X86
    if (nnc_isa() >= NNC_ISA_AVX512) blocks = blocks_avx512;
    else if (nnc_isa() >= NNC_ISA_AVX2) blocks = blocks_avx2;
#endif
    int pick = leaves != NULL, nb = pick + (n + 1) / 2;
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
#pragma omp parallel num_threads(cnt >= 64 ? 2 : 1)
    {
        double *u = malloc(sizeof(double) * 2 * (size_t)nb);
#pragma omp for schedule(dynamic, 16)
        for (int s = 0; s < cnt; s++) {
            double *x = xs + (size_t)s * (size_t)n;
            uint64_t sub = sub0 + (uint64_t)s;
            if (u == NULL) { /* no scratch: the scalar path, same values */
                if (pick) nnc_smp_point_ref(x, n, seed, sub, leaves, cum, nopen, tw);
                else nnc_smp_box_point_ref(x, n, seed, sub, lo, hi);
                continue;
            }
            blocks(k0, k1, (uint32_t)sub, (uint32_t)(sub >> 32), nb, u);
            const double *bl = lo, *bh = hi;
            if (pick) {
                bl = leaves[nnc_smp_pick_leaf(cum, nopen, u[0] * tw)];
                bh = bl + n;
            }
            const double *uc = u + 2 * pick;
            for (int i = 0; i < n; i++) x[i] = nnc_smp_coord(bl[i], bh[i], uc[i]);
        }
        free(u);
    }
}

void nnc_smp_points(double *xs, int cnt, int n, uint64_t seed, uint64_t sub0, double *const *leaves,
                    const double *cum, size_t nopen, double tw)
{
    points(xs, cnt, n, seed, sub0, leaves, cum, nopen, tw, NULL, NULL);
}

void nnc_smp_box_point_ref(double *x, int n, uint64_t seed, uint64_t sub, const double *lo, const double *hi)
{
    nnc_philox_state ph;
    nnc_philox_init(&ph, seed, sub, 0);
    double u2[2];
    for (int i = 0; i < n; i += 2) {
        nnc_philox_uniform2_double(&ph, u2);
        for (int t = 0; t < 2 && i + t < n; t++) x[i + t] = nnc_smp_coord(lo[i + t], hi[i + t], u2[t]);
    }
}

void nnc_smp_box_points(double *xs, int cnt, int n, uint64_t seed, uint64_t sub0, const double *lo, const double *hi)
{
    points(xs, cnt, n, seed, sub0, NULL, NULL, 0, 0, lo, hi);
}

/* ---------------------------------------------------------------- sampler */

struct nnc_smp {
    const nnc_model *m;
    int device;
    int n_in, n_out;
    int batch;
    nnc_smp_chain *chain;      /* NULL: not a dense chain */
    int graph;                 /* not a dense chain, but the box screen's graph analysis takes it */
    nnc_runtime *ref, *fast;   /* float64 reference; float32 fast (CPU: chains, graph) */
    nnc_gpu_smp *gpu;
    const nnc_smp_case *sc;
    double tau;                /* current case's tolerance; +inf: no screening */
    int screen;                /* screening on for the current case */
    nnc_smp_mode mode;         /* how the CPU screens it */
    int pinned;                /* mode forced by nnc_smp_set_mode: kept */
    double handover_tau;       /* box tolerance of the last case that handed over to RUN */
    nnc_smp_run *run;          /* running-bound screen (float-weight chains) */
    float *rs;                 /* batch * n_out: its bounds */
    double *ys, *ef, *er, *ya; /* batch * n_out; n_out each */
    float *xf, *yf;            /* batch * n_in, batch * n_out (CPU fast) */
    double *xr;                /* batch * n_in: points to recheck */
    int *idx;                  /* batch: their sample indices */
    signed char *verdict;      /* batch (GPU) */
    double *packed;            /* GPU: leaves packed for upload */
    uint64_t n_fast, n_recheck;
};

void nnc_smp_destroy(nnc_smp *s)
{
    if (s == NULL) return;
    nnc_rt_destroy(s->ref);
    nnc_rt_destroy(s->fast);
    nnc_gpu_smp_destroy(s->gpu);
    nnc_smp_chain_free(s->chain);
    nnc_smp_run_free(s->run);
    free(s->rs);
    free(s->ys); free(s->ef); free(s->er); free(s->ya);
    free(s->xf); free(s->yf); free(s->xr); free(s->idx); free(s->verdict); free(s->packed);
    free(s);
}

nnc_status nnc_smp_create(nnc_smp **out, const nnc_model *m, int device, char *err, size_t errlen)
{
    *out = NULL;
    if (m->n_inputs != 1 || m->n_outputs != 1)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "sampling needs a model with one input and one output");
    nnc_smp *s = calloc(1, sizeof *s);
    if (s == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    s->m = m;
    s->device = device;
    s->n_in = (int)m->vals[m->inputs[0]].numel;
    s->n_out = (int)m->vals[m->outputs[0]].numel;
    s->batch = NNC_SMP_CPU_BATCH;
    if (device) {
        /* the caller holds a batch of points on the host: bound its size */
        size_t per = sizeof(double) * (size_t)(s->n_in > 0 ? s->n_in : 1);
        s->batch = NNC_SMP_GPU_BYTES / per > NNC_SMP_GPU_BATCH ? NNC_SMP_GPU_BATCH : (int)(NNC_SMP_GPU_BYTES / per);
        if (s->batch < NNC_SMP_CPU_BATCH) s->batch = NNC_SMP_CPU_BATCH;
    }
    nnc_status st;
    char cerr[NNC_ERRBUF_SIZE] = "";
    st = nnc_smp_chain_extract(&s->chain, m, cerr, sizeof cerr);
    if (st == NNC_STATUS_NOMEM) goto fail_nomem;
    if (device) {
        int count = 0;
        if (st) {
            nnc_smp_destroy(s);
            return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "--device gpu: %s (the GPU path takes chains of Gemm/MatMul, bias Add and Relu)", cerr);
        }
        if ((st = nnc_gpu_device_count(&count, cerr, sizeof cerr)) || count == 0) {
            nnc_smp_destroy(s);
            return nnc_err(err, errlen, st ? st : NNC_STATUS_DEVICE, "--device gpu: %s", st ? cerr : "no CUDA device found");
        }
        if ((st = nnc_gpu_smp_create(&s->gpu, s->chain->layers, s->chain->n_layers, s->batch, cerr, sizeof cerr))) {
            nnc_smp_destroy(s);
            return nnc_err(err, errlen, st, "--device gpu: %s", cerr);
        }
    } else if (st == NNC_STATUS_OK && s->chain->float_weights) {
        /* the float32 runtime holds exactly the stored weights: screen with it */
        if ((st = nnc_rt_create(&s->fast, m, NNC_PRECISION_F32, s->batch, err, errlen))) {
            nnc_smp_destroy(s);
            return st;
        }
        if (nnc_smp_run_create(&s->run, s->chain) == NNC_STATUS_NOMEM) goto fail_nomem;
    } else if (st == NNC_STATUS_UNSUPPORTED && nnc_smp_graph_check(m, cerr, sizeof cerr) == NNC_STATUS_OK) {
        /* convolutions, residual Adds, pools: the box screen from the graph */
        if ((st = nnc_rt_create(&s->fast, m, NNC_PRECISION_F32, s->batch, err, errlen))) {
            nnc_smp_destroy(s);
            return st;
        }
        s->graph = 1;
    }
    if ((st = nnc_rt_create(&s->ref, m, NNC_PRECISION_F64, NNC_SMP_CPU_BATCH, err, errlen))) {
        nnc_smp_destroy(s);
        return st;
    }
    size_t B = (size_t)s->batch, ni = (size_t)s->n_in, no = (size_t)s->n_out;
    s->ys = malloc(sizeof(double) * B * no);
    s->ef = malloc(sizeof(double) * no);
    s->er = malloc(sizeof(double) * no);
    s->ya = malloc(sizeof(double) * no);
    s->xr = malloc(sizeof(double) * (size_t)NNC_SMP_CPU_BATCH * ni);
    s->idx = malloc(sizeof(int) * B);
    if (!s->ys || !s->ef || !s->er || !s->ya || !s->xr || !s->idx) goto fail_nomem;
    if (s->fast) {
        s->xf = malloc(sizeof(float) * B * ni);
        s->yf = malloc(sizeof(float) * B * no);
        if (!s->xf || !s->yf) goto fail_nomem;
    }
    if (s->run && (s->rs = malloc(sizeof(float) * B * no)) == NULL) goto fail_nomem;
    if (s->gpu && (s->verdict = malloc(B)) == NULL) goto fail_nomem;
    *out = s;
    return NNC_STATUS_OK;
fail_nomem:
    nnc_smp_destroy(s);
    return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory while setting up sampling");
}

int nnc_smp_batch_max(const nnc_smp *s) { return s->batch; }

void nnc_smp_counts(const nnc_smp *s, uint64_t *fast, uint64_t *rechecked)
{
    *fast = s->n_fast;
    *rechecked = s->n_recheck;
}

void nnc_smp_set_tolerance(nnc_smp *s, double tau)
{
    s->tau = tau;
    s->mode = s->fast && !isinf(tau) ? NNC_SMP_MODE_BOX : NNC_SMP_MODE_REF;
    s->screen = s->mode == NNC_SMP_MODE_BOX;
    s->pinned = 1;
}

void nnc_smp_set_mode(nnc_smp *s, nnc_smp_mode mode)
{
    if ((mode == NNC_SMP_MODE_BOX && !s->fast) || (mode == NNC_SMP_MODE_RUN && !s->run)) mode = NNC_SMP_MODE_REF;
    s->mode = mode;
    s->pinned = 1;
    s->screen = mode == NNC_SMP_MODE_BOX && isfinite(s->tau);
    if (mode == NNC_SMP_MODE_BOX && !s->screen) s->mode = NNC_SMP_MODE_REF;
}

nnc_smp_mode nnc_smp_get_mode(const nnc_smp *s) { return s->gpu ? NNC_SMP_MODE_REF : s->mode; }

nnc_status nnc_smp_case_begin(nnc_smp *s, const nnc_smp_case *sc, char *err, size_t errlen)
{
    s->sc = sc;
    s->tau = INFINITY;
    s->screen = 0;
    s->mode = NNC_SMP_MODE_REF;
    s->pinned = 0;
    if (!s->graph && (s->chain == NULL || (!s->fast && !s->gpu))) return NNC_STATUS_OK;
    /* fast evaluator: float32 on the CPU (its input rounded to float too),
     * float64 on the GPU (dense chains only); the bounds from the chain, or
     * from the graph's nodes (sample_graph.c) */
    nnc_status st = s->graph ? nnc_smp_graph_errors(s->m, sc->box_lo, sc->box_hi, NNC_SMP_U32, 1, s->ef, s->er, s->ya)
                             : nnc_smp_chain_errors(s->chain, sc->box_lo, sc->box_hi, s->gpu ? NNC_SMP_U64 : NNC_SMP_U32,
                                                    s->gpu ? 0 : 1, s->ef, s->er, s->ya);
    if (st) return nnc_err(err, errlen, st, "out of memory");
    s->tau = nnc_smp_margin_tolerance(sc->C, sc->d, sc->nrows, s->n_out, s->ef, s->er, s->ya);
    s->screen = isfinite(s->tau);
    s->mode = s->screen ? NNC_SMP_MODE_BOX : s->run ? NNC_SMP_MODE_RUN : NNC_SMP_MODE_REF;
    /* the same box tolerance handed over before (verify.c's falsification
     * round and sampling stage share the root box): skip the box screen */
    if (s->run && s->mode == NNC_SMP_MODE_BOX && s->tau == s->handover_tau) s->mode = NNC_SMP_MODE_RUN;
    if (s->gpu) {
        if (!s->screen) s->tau = INFINITY; /* every sample undecided: the GPU then only draws */
        size_t per = 2 * (size_t)s->n_in;
        free(s->packed);
        s->packed = malloc(sizeof(double) * per * (sc->nopen ? sc->nopen : 1));
        if (s->packed == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        for (size_t i = 0; i < sc->nopen; i++) memcpy(s->packed + i * per, sc->leaves[i], sizeof(double) * per);
        return nnc_gpu_smp_case(s->gpu, s->packed, sc->cum, sc->nopen, sc->tw, sc->nrows, sc->C, sc->d, sc->dstart,
                                sc->ndisj, s->tau, err, errlen);
    }
    return NNC_STATUS_OK;
}

/* Reference verdicts of the m points listed in idx (their coordinates in
 * xs, or regenerated when xs_has is 0), in runtime batches. */
static nnc_status recheck(nnc_smp *s, uint64_t first, const int *idx, int m, double *xs, int xs_has,
                          unsigned char *hit, char *err, size_t errlen)
{
    const nnc_smp_case *sc = s->sc;
    int n = s->n_in;
    for (int i0 = 0; i0 < m; i0 += NNC_SMP_CPU_BATCH) {
        int c = m - i0 < NNC_SMP_CPU_BATCH ? m - i0 : NNC_SMP_CPU_BATCH;
        for (int i = 0; i < c; i++) {
            double *x = xs + (size_t)idx[i0 + i] * (size_t)n;
            if (!xs_has) nnc_smp_point_ref(x, n, sc->seed, sc->sub0 + first + (uint64_t)idx[i0 + i], sc->leaves,
                                           sc->cum, sc->nopen, sc->tw);
            memcpy(s->xr + (size_t)i * (size_t)n, x, sizeof(double) * (size_t)n);
        }
        const void *in[1] = {s->xr};
        void *out[1] = {s->ys};
        nnc_status st = nnc_rt_run(s->ref, c, in, out, err, errlen);
        if (st) return st;
        for (int i = 0; i < c; i++)
            hit[idx[i0 + i]] = nnc_smp_margin(sc->C, sc->d, sc->dstart, sc->ndisj, s->n_out,
                                              s->ys + (size_t)i * (size_t)s->n_out) <= 0;
    }
    s->n_recheck += (uint64_t)m;
    return NNC_STATUS_OK;
}

nnc_status nnc_smp_batch(nnc_smp *s, uint64_t first, int cnt, double *xs, unsigned char *hit, char *err,
                         size_t errlen)
{
    const nnc_smp_case *sc = s->sc;
    int n = s->n_in;
    if (cnt < 1 || cnt > s->batch || sc == NULL) return nnc_err(err, errlen, NNC_STATUS_ARG, "bad sampling batch");
    int m = 0;
    nnc_status st;
    if (s->gpu) {
        if ((st = nnc_gpu_smp_run(s->gpu, sc->seed, sc->sub0 + first, cnt, s->verdict, NULL, err, errlen))) return st;
        for (int i = 0; i < cnt; i++) {
            if (s->verdict[i] < 0) s->idx[m++] = i;
            hit[i] = s->verdict[i] == 1;
        }
        s->n_fast += (uint64_t)(cnt - m);
        if ((st = recheck(s, first, s->idx, m, xs, 0, hit, err, errlen))) return st;
        /* the caller gets the point of every hit (counterexample candidates) */
        for (int i = 0; i < cnt; i++)
            if (hit[i] && s->verdict[i] == 1)
                nnc_smp_point_ref(xs + (size_t)i * (size_t)n, n, sc->seed, sc->sub0 + first + (uint64_t)i, sc->leaves,
                                  sc->cum, sc->nopen, sc->tw);
        return NNC_STATUS_OK;
    }
    nnc_smp_points(xs, cnt, n, sc->seed, sc->sub0 + first, sc->leaves, sc->cum, sc->nopen, sc->tw);
    return nnc_smp_decide(s, cnt, xs, hit, err, errlen);
}

/* Verdicts by the running-bound screen: a float32 margin farther than its
 * own sample's tolerance from 0 has the reference's sign. */
static nnc_status decide_run(nnc_smp *s, int cnt, double *xs, unsigned char *hit, char *err, size_t errlen)
{
    const nnc_smp_case *sc = s->sc;
    int no = s->n_out, m = 0;
    if (nnc_smp_run_eval(s->run, cnt, xs, s->yf, s->rs, 1)) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    double y[64], *yb = no <= 64 ? y : s->ys;
    for (int i = 0; i < cnt; i++) {
        const float *yf = s->yf + (size_t)i * (size_t)no;
        for (int j = 0; j < no; j++) yb[j] = yf[j];
        double tau = nnc_smp_run_tolerance(sc->C, sc->d, sc->nrows, no, yf, s->rs + (size_t)i * (size_t)no);
        double mg = nnc_smp_margin(sc->C, sc->d, sc->dstart, sc->ndisj, no, yb);
        if (mg < -tau) hit[i] = 1;
        else if (mg > tau) hit[i] = 0;
        else s->idx[m++] = i; /* near the boundary, or not finite (tau = +inf) */
    }
    s->n_fast += (uint64_t)(cnt - m);
    if ((double)m > NNC_SMP_MAX_RECHECK_SHARE * (double)cnt && !s->pinned) s->mode = NNC_SMP_MODE_REF;
    return recheck(s, 0, s->idx, m, xs, 1, hit, err, errlen);
}

nnc_status nnc_smp_decide(nnc_smp *s, int cnt, double *xs, unsigned char *hit, char *err, size_t errlen)
{
    const nnc_smp_case *sc = s->sc;
    int n = s->n_in, no = s->n_out, m = 0;
    nnc_status st;
    if (cnt < 1 || cnt > s->batch || sc == NULL) return nnc_err(err, errlen, NNC_STATUS_ARG, "bad sampling batch");
    if (!s->gpu && s->mode == NNC_SMP_MODE_RUN) return decide_run(s, cnt, xs, hit, err, errlen);
    if (!s->screen || s->gpu) {
        for (int i = 0; i < cnt; i++) s->idx[i] = i;
        return recheck(s, 0, s->idx, cnt, xs, 1, hit, err, errlen);
    }
    for (size_t k = 0; k < (size_t)cnt * (size_t)n; k++) s->xf[k] = (float)xs[k];
    const void *in[1] = {s->xf};
    void *out[1] = {s->yf};
    if ((st = nnc_rt_run(s->fast, cnt, in, out, err, errlen))) return st;
    double y[64], *yb = no <= 64 ? y : s->ys;
    for (int i = 0; i < cnt; i++) {
        int finite = 1;
        for (int j = 0; j < no; j++) {
            yb[j] = s->yf[(size_t)i * (size_t)no + (size_t)j];
            finite &= isfinite(yb[j]) != 0;
        }
        if (!finite) { /* the margin of a NaN or infinite output proves nothing */
            s->idx[m++] = i;
            continue;
        }
        double mg = nnc_smp_margin(sc->C, sc->d, sc->dstart, sc->ndisj, no, yb);
        if (mg < -s->tau) hit[i] = 1;
        else if (mg > s->tau) hit[i] = 0;
        else s->idx[m++] = i; /* near the boundary, or not finite */
    }
    s->n_fast += (uint64_t)(cnt - m);
    if ((double)m > NNC_SMP_BOX_RECHECK_SHARE * (double)cnt && !s->pinned) {
        s->screen = 0;
        s->mode = s->run ? NNC_SMP_MODE_RUN : NNC_SMP_MODE_REF;
        if (s->run) s->handover_tau = s->tau;
    }
    return recheck(s, 0, s->idx, m, xs, 1, hit, err, errlen);
}
