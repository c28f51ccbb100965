/* Linear bounds through a DLRM with fixed ids (verifier/bilinear.c, the
 * EmbeddingBag / Gather / bilinear MatMul transformers of bounds.c,
 * nnc_mdl_embbag_fix_ids, nnc_spc_keep_inputs):
 *  - McCormick planes of random small products, point operands included,
 *    hold exactly (MPFR, 400 bits: exact for sums of double products) at
 *    random points and at every vertex, for IBP, the planes, and the
 *    back-substituted linear functions;
 *  - on the zoo DLRM the linear bounds are narrower than the interval
 *    bounds (nnc_vrf_dlrm_bounds) and contain 10^5 sampled points (float64
 *    runtime of the model with its ids fixed, batched), box vertices, and
 *    an MPFR evaluation of the exact model at points and vertices;
 *  - the model with fixed ids computes what the model computes with the
 *    same ids as inputs, bit for bit, in float32 and float64;
 *  - bad ids and specs: clear errors, nothing changed.
 * Random inputs come from a seed printed at start; NNC_TEST_SEED=<n> replays. */
#include "onnx_builder.h"
#include "nncert/embbag.h"
#include "models/model_impl.h"
#include "nncert/spec.h"
#include "verifier/bilinear_impl.h"
#include "nncert/verifier.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZOO "models/zoo/dlrm.onnx"
#define TRACE "models/zoo/dlrm_trace.txt"
#define PREC 400

/* mpfr value <= / >= a double */
static int mp_le_d(const mpfr_t a, double d) { return mpfr_cmp_d(a, d) <= 0; }
static int mp_ge_d(const mpfr_t a, double d) { return mpfr_cmp_d(a, d) >= 0; }

START_TEST(bilinear_planes_exact)
{
    mpfr_t y, t, acc;
    mpfr_inits2(PREC, y, t, acc, (mpfr_ptr)0);
    for (int trial = 0; trial < 300; trial++) {
        nnc_bil_geom g = {1 + (int64_t)(rnd() % 2), 1 + (int64_t)(rnd() % 3), 1 + (int64_t)(rnd() % 3), 1 + (int64_t)(rnd() % 3)};
        int64_t na = g.batch * g.M * g.K, nb = g.batch * g.K * g.N, no = g.batch * g.M * g.N;
        double al[18], ah[18], bl[18], bh[18], ol[18], oh[18], cl[18], cu[18], ew[18], a[18], b[18];
        double scale = ldexp(1.0, (int)(rnd() % 40) - 20);
        for (int64_t i = 0; i < na; i++) {
            al[i] = (urand() * 2 - 1) * scale;
            ah[i] = rnd() % 4 == 0 ? al[i] : al[i] + urand() * scale; /* a quarter are points */
        }
        for (int64_t i = 0; i < nb; i++) {
            bl[i] = (urand() * 2 - 1) * scale;
            bh[i] = rnd() % 4 == 0 ? bl[i] : bl[i] + urand() * scale;
        }
        nnc_bil_ibp(&g, 64 * 0x1p-52, al, ah, bl, bh, ol, oh, cl, cu, ew);
        /* back-substituted functions for +out_j (rows 0..no-1) and -out_j */
        double L[2 * 18 * 18] = {0}, La[2 * 18 * 18] = {0}, Lb[2 * 18 * 18] = {0}, cs[36];
        for (int64_t j = 0; j < no; j++) {
            L[j * no + j] = 1;
            L[(no + j) * no + j] = -1;
        }
        nnc_bil_back(&g, (int)(2 * no), L, al, bl, bh, cl, cu, La, Lb, cs);
        for (int pt = 0; pt < 40; pt++) {
            int vertex = pt < 20;
            for (int64_t i = 0; i < na; i++) a[i] = vertex ? (rnd() & 1 ? ah[i] : al[i]) : al[i] + (ah[i] - al[i]) * urand();
            for (int64_t i = 0; i < nb; i++) b[i] = vertex ? (rnd() & 1 ? bh[i] : bl[i]) : bl[i] + (bh[i] - bl[i]) * urand();
            for (int64_t q = 0; q < g.batch; q++)
                for (int64_t i = 0; i < g.M; i++)
                    for (int64_t j = 0; j < g.N; j++) {
                        int64_t o = (q * g.M + i) * g.N + j;
                        mpfr_set_zero(y, 1);
                        for (int64_t k = 0; k < g.K; k++) {
                            mpfr_set_d(t, a[(q * g.M + i) * g.K + k], MPFR_RNDN);
                            mpfr_mul_d(t, t, b[(q * g.K + k) * g.N + j], MPFR_RNDN);
                            mpfr_add(y, y, t, MPFR_RNDN);
                        }
                        CHECK(mp_ge_d(y, ol[o]) && mp_le_d(y, oh[o]));
                        /* the planes, exactly */
                        for (int up = 0; up < 2; up++) {
                            mpfr_set_d(acc, up ? cu[o] : cl[o], MPFR_RNDN);
                            for (int64_t k = 0; k < g.K; k++) {
                                int64_t ia = (q * g.M + i) * g.K + k, ib = (q * g.K + k) * g.N + j;
                                mpfr_set_d(t, up ? bh[ib] : bl[ib], MPFR_RNDN);
                                mpfr_mul_d(t, t, a[ia], MPFR_RNDN);
                                mpfr_add(acc, acc, t, MPFR_RNDN);
                                mpfr_set_d(t, al[ia], MPFR_RNDN);
                                mpfr_mul_d(t, t, b[ib], MPFR_RNDN);
                                mpfr_add(acc, acc, t, MPFR_RNDN);
                            }
                            CHECK(up ? mpfr_cmp(acc, y) >= 0 : mpfr_cmp(acc, y) <= 0);
                        }
                        /* back-substituted rows (sums of exact products here;
                         * bounds.c adds their rounding error) */
                        for (int s = 0; s < 2; s++) {
                            int64_t r = s * no + o;
                            mpfr_set_d(acc, cs[r], MPFR_RNDN);
                            for (int64_t k = 0; k < na; k++) {
                                mpfr_set_d(t, La[r * na + k], MPFR_RNDN);
                                mpfr_mul_d(t, t, a[k], MPFR_RNDN);
                                mpfr_add(acc, acc, t, MPFR_RNDN);
                            }
                            for (int64_t k = 0; k < nb; k++) {
                                mpfr_set_d(t, Lb[r * nb + k], MPFR_RNDN);
                                mpfr_mul_d(t, t, b[k], MPFR_RNDN);
                                mpfr_add(acc, acc, t, MPFR_RNDN);
                            }
                            if (s == 0) CHECK(mpfr_cmp(acc, y) <= 0);
                            else {
                                mpfr_neg(t, y, MPFR_RNDN);
                                CHECK(mpfr_cmp(acc, t) <= 0);
                            }
                        }
                        /* a point operand makes the planes exact up to rounding */
                    }
        }
    }
    mpfr_clears(y, t, acc, (mpfr_ptr)0);
}
END_TEST

/* A product of two run-time operands inside a model, neither a point (the
 * DLRM's interaction has point operands but for its unused diagonal):
 * x[1,5] -> Gemm -> Relu -> a[1,8]; MatMul(Reshape(a,[1,2,4]),
 * Reshape(a,[1,4,2])) -> [1,2,2] -> Reshape [1,4] -> Gemm -> y[1,2].  Linear
 * and interval output bounds over random boxes contain sampled points
 * (float64 runtime) and linear is never wider. */
START_TEST(bilinear_in_a_model)
{
    for (int trial = 0; trial < 20; trial++) {
        float W0[40], b0[8], W1[8], b1[2];
        for (int i = 0; i < 40; i++) W0[i] = (float)(urand() * 2 - 1);
        for (int i = 0; i < 8; i++) b0[i] = (float)(urand() - 0.3);
        for (int i = 0; i < 8; i++) W1[i] = (float)(urand() * 2 - 1);
        for (int i = 0; i < 2; i++) b1[i] = (float)(urand() - 0.5);
        static const char *g0in[] = {"x", "W0", "b0"}, *g0out[] = {"h"}, *rin[] = {"h"}, *rout[] = {"a"};
        static const char *s1in[] = {"a", "s1"}, *s1out[] = {"r1"}, *s2in[] = {"a", "s2"}, *s2out[] = {"r2"};
        static const char *min[] = {"r1", "r2"}, *mout[] = {"p"}, *s3in[] = {"p", "s3"}, *s3out[] = {"f"};
        static const char *g1in[] = {"f", "W1", "b1"}, *g1out[] = {"y"};
        mb b;
        mb_init(&b, 13);
        int64_t xd[2] = {1, 5}, w0d[2] = {8, 5}, b0d[1] = {8}, w1d[2] = {2, 4}, b1d[1] = {2}, sd[1] = {3}, s3d[1] = {2};
        int64_t s1[3] = {1, 2, 4}, s2[3] = {1, 4, 2}, s3[2] = {1, 4};
        mb_input(&b, "x", 2, xd);
        mb_output(&b, "y");
        b.inits[0] = tensor_floats("W0", 2, w0d, W0, 40);
        b.inits[1] = tensor_floats("b0", 1, b0d, b0, 8);
        b.inits[2] = tensor_floats("W1", 2, w1d, W1, 8);
        b.inits[3] = tensor_floats("b1", 1, b1d, b1, 2);
        b.inits[4] = tensor_i64("s1", 1, sd, s1, 3);
        b.inits[5] = tensor_i64("s2", 1, sd, s2, 3);
        b.inits[6] = tensor_i64("s3", 1, s3d, s3, 2);
        b.graph.n_initializer = 7;
        Onnx__NodeProto *g0 = node("Gemm", "g0", 3, g0in, 1, g0out), *g1 = node("Gemm", "g1", 3, g1in, 1, g1out);
        node_attr(g0, attr_int("transB", 1));
        node_attr(g1, attr_int("transB", 1));
        b.nodes[0] = g0;
        b.nodes[1] = node("Relu", "r", 1, rin, 1, rout);
        b.nodes[2] = node("Reshape", "s1", 2, s1in, 1, s1out);
        b.nodes[3] = node("Reshape", "s2", 2, s2in, 1, s2out);
        b.nodes[4] = node("MatMul", "mm", 2, min, 1, mout);
        b.nodes[5] = node("Reshape", "s3", 2, s3in, 1, s3out);
        b.nodes[6] = g1;
        b.graph.n_node = 7;
        nnc_model *m;
        char err[NNC_ERRBUF_SIZE];
        ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        double lo[5], hi[5], il[2], ih[2], ll[2], lh[2], eps = 0.05 + urand() * 0.5;
        for (int i = 0; i < 5; i++) {
            double c = urand() * 2 - 1;
            lo[i] = c - eps;
            hi[i] = c + eps;
        }
        CHECK(nnc_vrf_output_bounds(m, lo, hi, 0, il, ih, err, sizeof err) == NNC_STATUS_OK);
        CHECK(nnc_vrf_output_bounds(m, lo, hi, 1, ll, lh, err, sizeof err) == NNC_STATUS_OK);
        nnc_runtime *rt;
        ck_assert_int_eq(nnc_rt_create(&rt, m, NNC_PRECISION_F64, 1, err, sizeof err), NNC_STATUS_OK);
        for (int j = 0; j < 2; j++) CHECK(ll[j] >= il[j] && lh[j] <= ih[j]);
        for (int pt = 0; pt < 2000; pt++) {
            double x[5], y[2];
            for (int i = 0; i < 5; i++) x[i] = pt < 64 ? (rnd() & 1 ? hi[i] : lo[i]) : lo[i] + (hi[i] - lo[i]) * urand();
            const void *in[1] = {x};
            void *out[1] = {y};
            ck_assert_int_eq(nnc_rt_run(rt, 1, in, out, err, sizeof err), NNC_STATUS_OK);
            for (int j = 0; j < 2; j++) CHECK(y[j] >= ll[j] && y[j] <= lh[j]);
        }
        nnc_rt_destroy(rt);
        nnc_mdl_destroy(m);
    }
}
END_TEST

/* ---- the zoo DLRM ---- */

typedef struct sample {
    int64_t ids[32];      /* all ids, input order (14 in the zoo DLRM) */
    const int64_t *per[8];
    double dense[13];
} sample;

static int load_sample(sample *s, const nnc_model *m, int k)
{
    nnc_trace tr;
    char err[256];
    if (nnc_mdl_trace_read(&tr, TRACE, 13, 8, err, sizeof err)) return -1;
    int64_t at = 0;
    for (int t = 0; t < 8; t++) {
        int64_t b = (int64_t)k * 8 + t, n = tr.offsets[b + 1] - tr.offsets[b];
        memcpy(s->ids + at, tr.ids + tr.offsets[b], (size_t)n * sizeof(int64_t));
        s->per[t] = s->ids + at;
        at += n;
    }
    for (int i = 0; i < 13; i++) s->dense[i] = tr.dense[k * 13 + i];
    nnc_mdl_trace_clear(&tr);
    (void)m;
    return 0;
}

/* Exact evaluation of the prepared model with fixed ids in MPFR (the
 * operators of the zoo DLRM; sigmoid correctly rounded at PREC bits). */
typedef struct mpeval {
    const nnc_model *m;
    mpfr_t **v; /* per value, numel entries; NULL for unused */
} mpeval;

static void mp_value(mpeval *e, int v)
{
    const nnc_value *x = &e->m->vals[v];
    if (e->v[v]) return;
    e->v[v] = malloc(sizeof(mpfr_t) * (size_t)(x->numel + 1));
    for (int64_t k = 0; k < x->numel; k++) {
        mpfr_init2(e->v[v][k], PREC);
        if (x->kind == NNC_VAL_CONST && x->f) mpfr_set_d(e->v[v][k], x->f[k], MPFR_RNDN);
    }
}

static void mp_run(mpeval *e, const double *x, mpfr_t y)
{
    const nnc_model *m = e->m;
    mp_value(e, m->inputs[0]);
    for (int64_t k = 0; k < m->vals[m->inputs[0]].numel; k++) mpfr_set_d(e->v[m->inputs[0]][k], x[k], MPFR_RNDN);
    mpfr_t t;
    mpfr_init2(t, PREC);
    for (int s = 0; s < m->n_order; s++) {
        const nnc_node *n = &m->nodes[m->order[s]];
        const nnc_value *o = &m->vals[n->out[0]], *xi = &m->vals[n->in[0]];
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i] >= 0 && nnc_dtype_is_float(m->vals[n->in[i]].dtype)) mp_value(e, n->in[i]);
        mp_value(e, n->out[0]);
        mpfr_t *Y = e->v[n->out[0]], *X = xi->kind == NNC_VAL_CONST && !xi->f ? NULL : e->v[n->in[0]];
        switch (n->op) {
        case NNC_OP_GEMM: {
            const nnc_value *w = &m->vals[n->in[1]], *c = &m->vals[n->in[2]];
            int64_t N = n->p[3], K = n->p[4];
            ck_assert(n->p[0] == 0 && n->p[1] == 1 && n->fp[0] == 1 && n->fp[1] == 1 && n->p[2] == 1);
            for (int64_t j = 0; j < N; j++) {
                mpfr_set_d(Y[j], c->f[j], MPFR_RNDN);
                for (int64_t k = 0; k < K; k++) {
                    mpfr_mul_d(t, X[k], w->f[j * K + k], MPFR_RNDN);
                    mpfr_add(Y[j], Y[j], t, MPFR_RNDN);
                }
            }
            break;
        }
        case NNC_OP_RELU:
            for (int64_t k = 0; k < o->numel; k++) {
                if (mpfr_sgn(X[k]) > 0) mpfr_set(Y[k], X[k], MPFR_RNDN);
                else mpfr_set_zero(Y[k], 1);
            }
            break;
        case NNC_OP_SIGMOID:
            for (int64_t k = 0; k < o->numel; k++) {
                mpfr_neg(t, X[k], MPFR_RNDN);
                mpfr_exp(t, t, MPFR_RNDN);
                mpfr_add_ui(t, t, 1, MPFR_RNDN);
                mpfr_ui_div(Y[k], 1, t, MPFR_RNDN);
            }
            break;
        case NNC_OP_EMBEDBAG: {
            const nnc_value *tab = &m->vals[n->in[0]], *ix = &m->vals[n->in[1]];
            int64_t dim = n->p[2], L = n->p[3];
            for (int64_t b = 0; b < n->p[4]; b++)
                for (int64_t j = 0; j < dim; j++) {
                    mpfr_set_zero(Y[b * dim + j], 1);
                    for (int64_t i = 0; i < L; i++)
                        mpfr_add_d(Y[b * dim + j], Y[b * dim + j], tab->f[ix->i[b * L + i] * dim + j], MPFR_RNDN);
                    if (n->p[0] == 1) mpfr_div_si(Y[b * dim + j], Y[b * dim + j], (long)L, MPFR_RNDN);
                }
            break;
        }
        case NNC_OP_CONCAT: { /* axis 1 of [1, n] values */
            int64_t pos = 0;
            for (int i = 0; i < n->n_in; i++) {
                const nnc_value *vi = &m->vals[n->in[i]];
                for (int64_t k = 0; k < vi->numel; k++) mpfr_set(Y[pos + k], e->v[n->in[i]][k], MPFR_RNDN);
                pos += vi->numel;
            }
            break;
        }
        case NNC_OP_RESHAPE:
            for (int64_t k = 0; k < o->numel; k++) mpfr_set(Y[k], X[k], MPFR_RNDN);
            break;
        case NNC_OP_TRANSPOSE: { /* [1, A, B] -> [1, B, A] */
            ck_assert(n->p[0] == 0 && n->p[1] == 2 && n->p[2] == 1);
            int64_t A = xi->dims[1], B = xi->dims[2];
            for (int64_t a = 0; a < A; a++)
                for (int64_t b = 0; b < B; b++) mpfr_set(Y[b * A + a], X[a * B + b], MPFR_RNDN);
            break;
        }
        case NNC_OP_MATMUL: { /* [1, M, K] x [1, K, N] */
            mpfr_t *W = e->v[n->in[1]];
            int64_t M = xi->dims[1], K = xi->dims[2], N = m->vals[n->in[1]].dims[2];
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    mpfr_set_zero(Y[i * N + j], 1);
                    for (int64_t k = 0; k < K; k++) {
                        mpfr_mul(t, X[i * K + k], W[k * N + j], MPFR_RNDN);
                        mpfr_add(Y[i * N + j], Y[i * N + j], t, MPFR_RNDN);
                    }
                }
            break;
        }
        case NNC_OP_GATHER: { /* axis 1 of [1, n] */
            const nnc_value *ix = &m->vals[n->in[1]];
            for (int64_t k = 0; k < ix->numel; k++) mpfr_set(Y[k], X[ix->i[k]], MPFR_RNDN);
            break;
        }
        default:
            ck_abort_msg("MPFR reference: no %s", n->op_type);
        }
    }
    mpfr_set(y, e->v[m->outputs[0]][0], MPFR_RNDN);
    mpfr_clear(t);
}

static void mp_free(mpeval *e)
{
    for (int v = 0; v < e->m->n_vals; v++) {
        if (!e->v[v]) continue;
        for (int64_t k = 0; k < e->m->vals[v].numel; k++) mpfr_clear(e->v[v][k]);
        free(e->v[v]);
    }
    free(e->v);
}

START_TEST(dlrm_linear_tighter_and_sound)
{
    char err[256];
    nnc_model *plain, *fixed;
    if (nnc_mdl_load(&plain, ZOO, err, sizeof err) != NNC_STATUS_OK) ck_abort_msg("%s", err);
    const double eps_list[] = {0.01, 0.1, 0.5};
    uint64_t points = 0;
    double ratio_min = INFINITY;
    mpfr_t ymp;
    mpfr_init2(ymp, PREC);
    for (int c = 0; c < 9; c++) {
        int smp = (int)(rnd() % 256);
        double eps = eps_list[c % 3];
        sample s;
        ck_assert_int_eq(load_sample(&s, plain, smp), 0);
        ck_assert_int_eq(nnc_mdl_load(&fixed, ZOO, err, sizeof err), NNC_STATUS_OK);
        ck_assert_int_eq(nnc_mdl_embbag_fix_ids(fixed, s.per, err, sizeof err), NNC_STATUS_OK);
        ck_assert_int_eq(nnc_mdl_num_inputs(fixed), 1);
        double lo[13], hi[13], il, ih, ll, lh;
        for (int i = 0; i < 13; i++) {
            lo[i] = s.dense[i] - eps;
            hi[i] = s.dense[i] + eps;
        }
        CHECK(nnc_vrf_dlrm_bounds(ZOO, s.per, lo, hi, &il, &ih, err, sizeof err) == NNC_STATUS_OK);
        CHECK(nnc_vrf_output_bounds(fixed, lo, hi, 1, &ll, &lh, err, sizeof err) == NNC_STATUS_OK);
        /* tighter: strictly narrower than the interval bounds */
        CHECK(lh - ll < ih - il);
        if ((ih - il) / (lh - ll) < ratio_min) ratio_min = (ih - il) / (lh - ll);
        /* 10^5 points in all: uniform, then box vertices; float64, 1024 at a time */
        nnc_runtime *rt;
        ck_assert_int_eq(nnc_rt_create(&rt, fixed, NNC_PRECISION_F64, 1024, err, sizeof err), NNC_STATUS_OK);
        double *xs = malloc(sizeof(double) * 13 * 1024), ys[1024];
        int rounds = c < 8 ? 11 : 10;
        for (int r = 0; r < rounds; r++) {
            int B = r == rounds - 1 && c == 8 ? (int)(100000 - points) : 1024;
            if (B > 1024) B = 1024;
            for (int p = 0; p < B; p++)
                for (int i = 0; i < 13; i++)
                    xs[p * 13 + i] = r == 0 ? (rnd() & 1 ? hi[i] : lo[i]) : lo[i] + (hi[i] - lo[i]) * urand();
            const void *in[1] = {xs};
            void *out[1] = {ys};
            ck_assert_int_eq(nnc_rt_run(rt, B, in, out, err, sizeof err), NNC_STATUS_OK);
            for (int p = 0; p < B; p++) CHECK(ys[p] >= ll && ys[p] <= lh);
            points += (uint64_t)B;
        }
        /* the exact model (MPFR) at vertices and inside */
        mpeval e = {fixed, calloc((size_t)fixed->n_vals, sizeof(mpfr_t *))};
        for (int p = 0; p < 24; p++) {
            double x[13];
            for (int i = 0; i < 13; i++) x[i] = p < 12 ? (rnd() & 1 ? hi[i] : lo[i]) : lo[i] + (hi[i] - lo[i]) * urand();
            mp_run(&e, x, ymp);
            CHECK(mp_ge_d(ymp, ll) && mp_le_d(ymp, lh));
            CHECK(mp_ge_d(ymp, il) && mp_le_d(ymp, ih));
        }
        mp_free(&e);
        free(xs);
        nnc_rt_destroy(rt);
        nnc_mdl_destroy(fixed);
    }
    ck_assert_uint_eq(points, 100000);
    printf("linear bounds narrower than interval bounds by %.3gx at least; %llu points inside\n", ratio_min,
           (unsigned long long)points);
    mpfr_clear(ymp);
    nnc_mdl_destroy(plain);
}
END_TEST

/* Fixed ids compute what the ids as inputs compute, bit for bit. */
START_TEST(fixed_equals_inputs)
{
    char err[256];
    nnc_model *plain, *fixed;
    ck_assert_int_eq(nnc_mdl_load(&plain, ZOO, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_mdl_load(&fixed, ZOO, err, sizeof err), NNC_STATUS_OK);
    sample s;
    ck_assert_int_eq(load_sample(&s, plain, 5), 0);
    ck_assert_int_eq(nnc_mdl_embbag_fix_ids(fixed, s.per, err, sizeof err), NNC_STATUS_OK);
    for (int prec = 0; prec < 2; prec++) {
        nnc_runtime *ra, *rb;
        ck_assert_int_eq(nnc_rt_create(&ra, plain, (nnc_precision)prec, 64, err, sizeof err), NNC_STATUS_OK);
        ck_assert_int_eq(nnc_rt_create(&rb, fixed, (nnc_precision)prec, 64, err, sizeof err), NNC_STATUS_OK);
        double xd[64 * 13], yd[64], zd[64];
        float xf[64 * 13], yf[64], zf[64];
        int64_t idb[8][64 * 4];
        for (int p = 0; p < 64 * 13; p++) xf[p] = (float)(xd[p] = urand() * 4 - 2);
        const void *ina[9], *inb[1] = {prec ? (const void *)xd : (const void *)xf};
        ina[0] = inb[0];
        for (int t = 0; t < 8; t++) {
            nnc_tensor_info ti;
            nnc_mdl_input_info(plain, t + 1, &ti);
            for (int p = 0; p < 64; p++) memcpy(idb[t] + p * ti.numel, s.per[t], (size_t)ti.numel * sizeof(int64_t));
            ina[t + 1] = idb[t];
        }
        void *oa[1] = {prec ? (void *)yd : (void *)yf}, *ob[1] = {prec ? (void *)zd : (void *)zf};
        ck_assert_int_eq(nnc_rt_run(ra, 64, ina, oa, err, sizeof err), NNC_STATUS_OK);
        ck_assert_int_eq(nnc_rt_run(rb, 64, inb, ob, err, sizeof err), NNC_STATUS_OK);
        ck_assert(prec ? memcmp(yd, zd, sizeof yd) == 0 : memcmp(yf, zf, sizeof yf) == 0);
        nnc_rt_destroy(ra);
        nnc_rt_destroy(rb);
    }
    nnc_mdl_destroy(plain);
    nnc_mdl_destroy(fixed);
}
END_TEST

START_TEST(bad_ids_and_specs)
{
    char err[256];
    nnc_model *m;
    ck_assert_int_eq(nnc_mdl_load(&m, ZOO, err, sizeof err), NNC_STATUS_OK);
    int64_t ids[4] = {0};
    const int64_t *per[8] = {ids, ids, ids, ids, ids, ids, ids, ids};
    int64_t bad[4] = {1, 650, 2, 3}; /* table 7 has 650 rows */
    per[7] = bad;
    ck_assert_int_eq(nnc_mdl_embbag_fix_ids(m, per, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert(strstr(err, "650") != NULL);
    ck_assert_int_eq(nnc_mdl_num_inputs(m), 9); /* unchanged */
    /* the verifier refuses the model while its ids are inputs */
    double lo[13] = {0}, hi[13] = {0}, yl, yh;
    ck_assert_int_eq(nnc_vrf_output_bounds(m, lo, hi, 1, &yl, &yh, err, sizeof err), NNC_STATUS_UNSUPPORTED);
    nnc_mdl_destroy(m);
    /* specs: the dropped inputs must be fixed, equally in every case */
    const char *ok = "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const X_2 Real)(declare-const Y_0 Real)"
                     "(assert (>= X_0 -1))(assert (<= X_0 1))(assert (= X_1 7))(assert (= X_2 3))(assert (<= Y_0 0.5))";
    const char *loose = "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
                        "(assert (>= X_0 -1))(assert (<= X_0 1))(assert (>= X_1 7))(assert (<= X_1 8))(assert (<= Y_0 0.5))";
    const char *cases = "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
                        "(assert (or (and (>= X_0 -1) (<= X_0 1) (= X_1 7)) (and (>= X_0 2) (<= X_0 3) (= X_1 8))))"
                        "(assert (<= Y_0 0.5))";
    nnc_spec *s, *k;
    double fx[2];
    ck_assert_int_eq(nnc_spc_parse(&s, ok, strlen(ok), err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_spc_keep_inputs(&k, fx, s, 0, 1, err, sizeof err), NNC_STATUS_OK);
    ck_assert(fx[0] == 7 && fx[1] == 3 && nnc_spc_num_inputs(k) == 1 && nnc_spc_case_lo(k, 0)[0] == -1 &&
              nnc_spc_case_hi(k, 0)[0] == 1 && nnc_spc_total_disjuncts(k) == 1);
    double y = 0.4;
    ck_assert_int_eq(nnc_spc_unsafe_disjunct(k, 0, &y) >= 0, nnc_spc_unsafe_disjunct(s, 0, &y) >= 0);
    nnc_spc_destroy(k);
    ck_assert_int_eq(nnc_spc_keep_inputs(&k, fx, s, 1, 2, err, sizeof err), NNC_STATUS_INVALID); /* X_0 not fixed */
    CHECK_ILLEGAL(nnc_spc_keep_inputs(&k, fx, s, 2, 2, err, sizeof err), err);
    nnc_spc_destroy(s);
    ck_assert_int_eq(nnc_spc_parse(&s, loose, strlen(loose), err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_spc_keep_inputs(&k, fx, s, 0, 1, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert(strstr(err, "X_1 must be fixed") != NULL);
    nnc_spc_destroy(s);
    ck_assert_int_eq(nnc_spc_parse(&s, cases, strlen(cases), err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_spc_keep_inputs(&k, fx, s, 0, 1, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert(strstr(err, "case 1") != NULL);
    nnc_spc_destroy(s);
}
END_TEST

int main(void)
{
    harness_seed("test_dlrm_bounds");
    FILE *f = fopen(ZOO, "rb");
    if (f == NULL) {
        printf("skip: %s not found (run from the repository root)\n", ZOO);
        return 77;
    }
    fclose(f);
    Suite *s = suite_create("dlrm_bounds");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, bilinear_planes_exact);
    tcase_add_test(tc, bilinear_in_a_model);
    tcase_add_test(tc, dlrm_linear_tighter_and_sound);
    tcase_add_test(tc, fixed_equals_inputs);
    tcase_add_test(tc, bad_ids_and_specs);
    suite_add_tcase(s, tc);
    return check_main_run(s);
}
