/* The verifier's sampling stage (verifier/sample.c, verifier/sample_math.h):
 *  - the vectorised Philox points equal, bit for bit, the scalar reference
 *    and an independent copy of the formula verify.c always used (so --seed
 *    gives the same samples as before), over odd/even dimensions, several
 *    leaves and subsequences past 2^40;
 *  - the a priori error bounds behind the fast verdicts hold: on random
 *    dense chains, the float32 and float64 runtimes' outputs lie within
 *    e_fast / e_ref of the exact output (MPFR, 256 bits), which lies within
 *    y_abs; the batched interval bounds contain the exact outputs;
 *  - the graph analysis's bounds (sample_graph.c) hold for the runtimes on
 *    random conv nets with residual Adds, Pads and pools and on each such
 *    node alone: |f32 - f64| <= e_fast + e_ref at corners and random points;
 *    both analyses give no bound (+inf) where float32 may overflow, also
 *    inside a sum whose result is small; the graph analysis refuses a
 *    constant output and sub-normal weights that are not floats;
 *  - the sampler's verdicts equal the float64 reference runtime's on the zoo
 *    MLP and the zoo CNN for several radii (with the fast path really used),
 *    and with the tolerance forced to +inf (everything re-decided);
 *  - dense-chain extraction accepts Gemm/Relu and MatMul+Add chains and
 *    refuses the zoo CNN and Gemm with alpha != 1. */
#include "common/philox.h"
#include "nncert/model.h"
#include "tests/unit/harness.h"
#include "tests/unit/onnx_builder.h"
#include "verifier/sample_impl.h"
#include "verifier/sample_math.h"

#include <check.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The sampling loop of verify.c before the sampler existed, verbatim in
 * substance: the independent reference for "same samples for a seed". */
static void old_point(double *x, int n, uint64_t sd, uint64_t sub, double *const *leaves, const double *cum,
                      size_t nopen, double tw)
{
    nnc_philox_state ph;
    nnc_philox_init(&ph, sd, sub, 0);
    double u2[2];
    nnc_philox_uniform2_double(&ph, u2);
    double pick = u2[0] * tw;
    size_t lo_i = 0, hi_i = nopen - 1;
    while (lo_i < hi_i) {
        size_t mid = (lo_i + hi_i) / 2;
        if (cum[mid] < pick) lo_i = mid + 1;
        else hi_i = mid;
    }
    const double *box = leaves[lo_i];
    for (int i = 0; i < n; i += 2) {
        nnc_philox_uniform2_double(&ph, u2);
        for (int t = 0; t < 2 && i + t < n; t++) {
            double v = box[i + t] + u2[t] * (box[n + i + t] - box[i + t]);
            x[i + t] = v > box[n + i + t] ? box[n + i + t] : v;
        }
    }
}

START_TEST(test_points_bit_identical)
{
    int dims[5] = {1, 2, 7, 16, 785};
    for (int di = 0; di < 5; di++) {
        int n = dims[di];
        size_t nopen = 1 + (size_t)rnd_below(5);
        double **leaves = malloc(sizeof(double *) * nopen), *cum = malloc(sizeof(double) * nopen), tw = 0;
        for (size_t l = 0; l < nopen; l++) {
            leaves[l] = malloc(sizeof(double) * 2 * (size_t)n);
            for (int i = 0; i < n; i++) {
                double a = urand() * 4 - 2, w = urand();
                leaves[l][i] = a;
                leaves[l][n + i] = i % 5 == 0 ? a : a + w; /* some degenerate dimensions */
            }
            tw += urand() + 0.01;
            cum[l] = tw;
        }
        int cnt = 37 + rnd_below(200);
        uint64_t sd = rnd() >> 1, sub0 = ((uint64_t)rnd_below(3) << 40) + (rnd() >> 33); /* 63 and 31 random bits: the ranges the former draws gave */
        double *xs = malloc(sizeof(double) * (size_t)cnt * (size_t)n), *xr = malloc(sizeof(double) * (size_t)n),
               *xo = malloc(sizeof(double) * (size_t)n);
        nnc_smp_points(xs, cnt, n, sd, sub0, leaves, cum, nopen, tw);
        for (int s = 0; s < cnt; s++) {
            nnc_smp_point_ref(xr, n, sd, sub0 + (uint64_t)s, leaves, cum, nopen, tw);
            old_point(xo, n, sd, sub0 + (uint64_t)s, leaves, cum, nopen, tw);
            ck_assert_msg(memcmp(xr, xo, sizeof(double) * (size_t)n) == 0, "n %d sample %d: reference differs from the old formula", n, s);
            ck_assert_msg(memcmp(xr, xs + (size_t)s * (size_t)n, sizeof(double) * (size_t)n) == 0,
                          "n %d sample %d: vectorised point differs", n, s);
        }
        /* the falsification round's points: the box, coordinates from block 0 */
        const double *lo = leaves[0], *hi = leaves[0] + n;
        nnc_smp_box_points(xs, cnt, n, sd, sub0, lo, hi);
        for (int s = 0; s < cnt; s++) {
            nnc_philox_state ph;
            nnc_philox_init(&ph, sd, sub0 + (uint64_t)s, 0);
            double u2[2];
            for (int i = 0; i < n; i += 2) { /* verify.c's loop before the sampler */
                nnc_philox_uniform2_double(&ph, u2);
                for (int t = 0; t < 2 && i + t < n; t++) {
                    double v = lo[i + t] + u2[t] * (hi[i + t] - lo[i + t]);
                    xo[i + t] = v > hi[i + t] ? hi[i + t] : v;
                }
            }
            nnc_smp_box_point_ref(xr, n, sd, sub0 + (uint64_t)s, lo, hi);
            ck_assert_msg(memcmp(xr, xo, sizeof(double) * (size_t)n) == 0, "n %d box sample %d: reference differs", n, s);
            ck_assert_msg(memcmp(xr, xs + (size_t)s * (size_t)n, sizeof(double) * (size_t)n) == 0,
                          "n %d box sample %d: vectorised point differs", n, s);
        }
        for (size_t l = 0; l < nopen; l++) free(leaves[l]);
        free(leaves); free(cum); free(xs); free(xr); free(xo);
    }
}
END_TEST

/* A random chain: n0 inputs, Gemm(transB)+Relu layers, last without Relu;
 * weights float values of magnitude up to `scale`. */
typedef struct chain_net {
    int nl, w[5];
    float *W[4], *b[4];
    double ls[4]; /* per-layer weight scale; 0: the scale argument */
} chain_net;

static nnc_model *build_chain(chain_net *t, double scale)
{
    static const char *names[4][6] = {{"x", "W0", "b0", "h0", "h0", "a0"}, {"a0", "W1", "b1", "h1", "h1", "a1"},
                                      {"a1", "W2", "b2", "h2", "h2", "a2"}, {"a2", "W3", "b3", "h3", "h3", "a3"}};
    static const char *wn[4] = {"W0", "W1", "W2", "W3"}, *bn[4] = {"b0", "b1", "b2", "b3"};
    mb b;
    mb_init(&b, 13);
    int64_t xd[2] = {1, t->w[0]};
    mb_input(&b, "x", 2, xd);
    int nn = 0;
    for (int l = 0; l < t->nl; l++) {
        int K = t->w[l], N = t->w[l + 1];
        t->W[l] = malloc(sizeof(float) * (size_t)(K * N));
        t->b[l] = malloc(sizeof(float) * (size_t)N);
        double sc = t->ls[l] != 0 ? t->ls[l] : scale;
        for (int k = 0; k < K * N; k++) t->W[l][k] = (float)((urand() * 2 - 1) * sc);
        for (int j = 0; j < N; j++) t->b[l][j] = (float)((urand() * 2 - 1) * sc);
        int64_t wd[2] = {N, K}, bd[1] = {N};
        b.inits[2 * l] = tensor_floats(wn[l], 2, wd, t->W[l], (size_t)(K * N));
        b.inits[2 * l + 1] = tensor_floats(bn[l], 1, bd, t->b[l], (size_t)N);
        const char **gi = &names[l][0], **go = &names[l][3];
        Onnx__NodeProto *g = node("Gemm", "g", 3, gi, 1, go);
        node_attr(g, attr_int("transB", 1));
        b.nodes[nn++] = g;
        if (l + 1 < t->nl) b.nodes[nn++] = node("Relu", "r", 1, &names[l][4], 1, &names[l][5]);
    }
    b.graph.n_initializer = (size_t)(2 * t->nl);
    b.graph.n_node = (size_t)nn;
    mb_output(&b, names[t->nl - 1][3]);
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return m;
}

static void free_chain(chain_net *t)
{
    for (int l = 0; l < t->nl; l++) {
        free(t->W[l]);
        free(t->b[l]);
    }
}

/* Exact output (256-bit MPFR, rounded to nearest double at the end). */
static void exact_out(const chain_net *t, const double *x, double *y)
{
    mpfr_t a[64], h[64], p;
    mpfr_init2(p, 256);
    for (int i = 0; i < 64; i++) {
        mpfr_init2(a[i], 256);
        mpfr_init2(h[i], 256);
    }
    for (int i = 0; i < t->w[0]; i++) mpfr_set_d(a[i], x[i], MPFR_RNDN);
    for (int l = 0; l < t->nl; l++) {
        int K = t->w[l], N = t->w[l + 1];
        for (int j = 0; j < N; j++) {
            mpfr_set_d(h[j], t->b[l][j], MPFR_RNDN);
            for (int k = 0; k < K; k++) {
                mpfr_mul_d(p, a[k], t->W[l][j * K + k], MPFR_RNDN);
                mpfr_add(h[j], h[j], p, MPFR_RNDN);
            }
            if (l + 1 < t->nl && mpfr_sgn(h[j]) < 0) mpfr_set_zero(h[j], 1);
        }
        for (int j = 0; j < N; j++) mpfr_set(a[j], h[j], MPFR_RNDN);
    }
    for (int j = 0; j < t->w[t->nl]; j++) y[j] = mpfr_get_d(a[j], MPFR_RNDN);
    for (int i = 0; i < 64; i++) {
        mpfr_clear(a[i]);
        mpfr_clear(h[i]);
    }
    mpfr_clear(p);
}

START_TEST(test_error_bounds_and_ibp_sound)
{
    char err[NNC_ERRBUF_SIZE];
    int tight_reps = 0;
    for (int rep = 0; rep < 12; rep++) {
        chain_net t;
        memset(&t, 0, sizeof t);
        t.nl = 2 + rnd_below(3);
        for (int l = 0; l <= t.nl; l++) t.w[l] = 2 + rnd_below(40);
        double scale = rep % 3 == 0 ? 30 : rep % 3 == 1 ? 1 : 1e-3;
        nnc_model *m = build_chain(&t, scale);
        nnc_smp_chain *ch;
        ck_assert_msg(nnc_smp_chain_extract(&ch, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        ck_assert_int_eq(ch->n_layers, t.nl);
        ck_assert_int_eq(ch->float_weights, 1);
        int n = t.w[0], no = t.w[t.nl], P = 400;
        double *lo = malloc(sizeof(double) * (size_t)n), *hi = malloc(sizeof(double) * (size_t)n);
        for (int i = 0; i < n; i++) {
            double c = (urand() * 2 - 1) * 3, r = urand() * (rep % 2 ? 0.01 : 2);
            lo[i] = c - r;
            hi[i] = c + r;
        }
        double ef[64], er[64], ya[64], olo[64], ohi[64];
        ck_assert(nnc_smp_chain_errors(ch, lo, hi, NNC_SMP_U32, 1, ef, er, ya) == NNC_STATUS_OK);
        ck_assert(nnc_smp_ibp_batch(ch, 1, lo, hi, olo, ohi) == NNC_STATUS_OK);
        nnc_runtime *r32, *r64;
        ck_assert(nnc_rt_create(&r32, m, NNC_PRECISION_F32, 1, err, sizeof err) == NNC_STATUS_OK);
        ck_assert(nnc_rt_create(&r64, m, NNC_PRECISION_F64, 1, err, sizeof err) == NNC_STATUS_OK);
        double x[64], y64[64], yex[64];
        float xf[64], yf[64];
        int tight32 = 0;
        for (int s = 0; s < P; s++) {
            for (int i = 0; i < n; i++) {
                double u = s == 0 ? 0 : s == 1 ? 1 : urand();
                x[i] = fmin(lo[i] + u * (hi[i] - lo[i]), hi[i]);
                xf[i] = (float)x[i];
            }
            const void *i64[1] = {x}, *i32[1] = {xf};
            void *o64[1] = {y64}, *o32[1] = {yf};
            ck_assert(nnc_rt_run(r64, 1, i64, o64, err, sizeof err) == NNC_STATUS_OK);
            ck_assert(nnc_rt_run(r32, 1, i32, o32, err, sizeof err) == NNC_STATUS_OK);
            exact_out(&t, x, yex);
            for (int j = 0; j < no; j++) {
                /* the exact value was rounded once to double: allow that ulp */
                double slack = fabs(yex[j]) * 2.3e-16 + 1e-300;
                ck_assert_msg(fabs((double)yf[j] - yex[j]) <= ef[j] + slack, "rep %d: f32 error %g > bound %g", rep,
                              fabs((double)yf[j] - yex[j]), ef[j]);
                ck_assert_msg(fabs(y64[j] - yex[j]) <= er[j] + slack, "rep %d: f64 error %g > bound %g", rep,
                              fabs(y64[j] - yex[j]), er[j]);
                ck_assert_msg(fabs(yex[j]) <= ya[j] + slack, "rep %d: |y| %g > bound %g", rep, fabs(yex[j]), ya[j]);
                ck_assert_msg(yex[j] >= olo[j] && yex[j] <= ohi[j], "rep %d: exact %.17g outside [%.17g, %.17g]", rep,
                              yex[j], olo[j], ohi[j]);
            }
        }
        /* the bound is not vacuous: below the outputs' magnitude */
        double ya_max = 0;
        for (int j = 0; j < no; j++) ya_max = fmax(ya_max, ya[j]);
        for (int j = 0; j < no; j++) tight32 += isfinite(ef[j]) && ef[j] <= 1e-2 * ya_max;
        tight_reps += tight32 > 0;
        nnc_rt_destroy(r32);
        nnc_rt_destroy(r64);
        nnc_smp_chain_free(ch);
        nnc_mdl_destroy(m);
        free_chain(&t);
        free(lo);
        free(hi);
    }
    /* deep random chains with large weights can have every output's bound
     * loose (seen at some seeds): the bound must be useful on most nets */
    ck_assert_msg(tight_reps >= 9, "float32 error bounds loose on %d of 12 random chains", 12 - tight_reps);
}
END_TEST

/* A random conv net for the graph analysis (sample_graph.c): x [1, C, H, W]
 * -> Conv (3x3, pad 1, stride 1 or 2) -> Relu -> Conv (3x3, pad 1) -> Add
 * (the residual: the first Relu's output) -> Relu -> Pad (constant, one
 * side, or none) -> MaxPool or AveragePool (2x2, stride 2, with or without
 * padding) -> Flatten -> Gemm (10 outputs, bias).  Weights with full float
 * mantissas, scaled by 1 / sqrt(fan-in). */
static nnc_model *build_convnet(int variant)
{
    int C = 1 + rnd_below(3), M = 2 + rnd_below(5), H = 4 + rnd_below(6), W = 4 + rnd_below(6), s = 1 + rnd_below(2);
    int OH = (H - 1) / s + 1, OW = (W - 1) / s + 1, pad = variant % 3, ppad = variant % 2;
    int PH = OH + (pad == 1), PW = OW + (pad == 1); /* after the Pad */
    int QH = (PH + 2 * ppad - 2) / 2 + 1, QW = (PW + 2 * ppad - 2) / 2 + 1, F = M * QH * QW;
    static float w1[6 * 3 * 9], b1[6], w2[6 * 6 * 9], b2[6], g[6 * 10 * 10 * 10], gb[10];
    for (int i = 0; i < M * C * 9; i++) w1[i] = (float)((urand() * 2 - 1) / sqrt(C * 9.0) * (1 + 0x1p-20 * urand()));
    for (int i = 0; i < M * M * 9; i++) w2[i] = (float)((urand() * 2 - 1) / sqrt(M * 9.0) * (1 + 0x1p-20 * urand()));
    for (int i = 0; i < M; i++) b1[i] = (float)(urand() - 0.5), b2[i] = (float)(urand() - 0.5);
    for (int i = 0; i < 10 * F; i++) g[i] = (float)((urand() * 2 - 1) / sqrt((double)F));
    for (int i = 0; i < 10; i++) gb[i] = (float)(urand() - 0.5);
    int64_t xd[4] = {1, C, H, W}, w1d[4] = {M, C, 3, 3}, w2d[4] = {M, M, 3, 3}, bd[1] = {M}, gd[2] = {10, F},
            gbd[1] = {10}, pdd[1] = {8}, k3[2] = {3, 3}, p1[4] = {1, 1, 1, 1}, st[2] = {s, s}, k2[2] = {2, 2},
            s2[2] = {2, 2}, pp[4] = {ppad, ppad, ppad, ppad};
    int64_t pads[8] = {0, 0, 0, 0, 0, 0, pad == 1, pad == 1}; /* bottom and right of the spatial axes */
    static const char *c1i[3] = {"x", "w1", "b1"}, *c1o[1] = {"c1"}, *r1i[1] = {"c1"}, *r1o[1] = {"r1"},
                      *c2i[3] = {"r1", "w2", "b2"}, *c2o[1] = {"c2"}, *ai[2] = {"c2", "r1"}, *ao[1] = {"a"},
                      *r2i[1] = {"a"}, *r2o[1] = {"r2"}, *pi[2] = {"r2", "pads"}, *po[1] = {"p"}, *qi[1] = {"p"},
                      *qo[1] = {"q"}, *fi[1] = {"q"}, *fo[1] = {"f"}, *gi[3] = {"f", "g", "gb"}, *go[1] = {"y"};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 4, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_floats("w1", 4, w1d, w1, (size_t)(M * C * 9));
    b.inits[1] = tensor_floats("b1", 1, bd, b1, (size_t)M);
    b.inits[2] = tensor_floats("w2", 4, w2d, w2, (size_t)(M * M * 9));
    b.inits[3] = tensor_floats("b2", 1, bd, b2, (size_t)M);
    b.inits[4] = tensor_floats("g", 2, gd, g, (size_t)(10 * F));
    b.inits[5] = tensor_floats("gb", 1, gbd, gb, 10);
    b.inits[6] = tensor_i64("pads", 1, pdd, pads, 8);
    b.graph.n_initializer = 7;
    int k = 0;
    Onnx__NodeProto *c1 = b.nodes[k++] = node("Conv", "c1", 3, c1i, 1, c1o);
    node_attr(c1, attr_ints("kernel_shape", 2, k3));
    node_attr(c1, attr_ints("pads", 4, p1));
    node_attr(c1, attr_ints("strides", 2, st));
    b.nodes[k++] = node("Relu", "r1", 1, r1i, 1, r1o);
    Onnx__NodeProto *c2 = b.nodes[k++] = node("Conv", "c2", 3, c2i, 1, c2o);
    node_attr(c2, attr_ints("kernel_shape", 2, k3));
    node_attr(c2, attr_ints("pads", 4, p1));
    b.nodes[k++] = node("Add", "res", 2, ai, 1, ao);
    r2o[0] = pad ? "r2" : "p"; /* without a Pad, the pool reads the Relu */
    b.nodes[k++] = node("Relu", "r2", 1, r2i, 1, r2o);
    if (pad) b.nodes[k++] = node("Pad", "pad", 2, pi, 1, po); /* pad 2: all zeros, the runtime's copy */
    Onnx__NodeProto *q = b.nodes[k++] = node(variant % 4 < 2 ? "MaxPool" : "AveragePool", "pool", 1, qi, 1, qo);
    node_attr(q, attr_ints("kernel_shape", 2, k2));
    node_attr(q, attr_ints("strides", 2, s2));
    node_attr(q, attr_ints("pads", 4, pp));
    b.nodes[k++] = node("Flatten", "flat", 1, fi, 1, fo);
    Onnx__NodeProto *gm = b.nodes[k++] = node("Gemm", "fc", 3, gi, 1, go);
    node_attr(gm, attr_int("transB", 1));
    b.graph.n_node = k;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return m;
}

/* Runs model m at P points of the box [lo, hi] (corners, a checkerboard
 * and random points; float points unless in_round) in both runtimes and
 * checks the graph analysis's bounds: |f32 - f64| <= e_fast + e_ref and
 * |f64| <= y_abs + e_ref on every output.  Returns 1 when the float32
 * bound is useful (at most 1% of the largest y_abs). */
static int check_graph_bounds(nnc_model *m, const double *lo, const double *hi, int in_round, int P, int rep)
{
    char err[NNC_ERRBUF_SIZE];
    int n = (int)m->vals[m->inputs[0]].numel, no = (int)m->vals[m->outputs[0]].numel;
    double *x = malloc(sizeof(double) * (size_t)n), *ef = malloc(sizeof(double) * (size_t)no);
    double *er = malloc(sizeof(double) * (size_t)no), *ya = malloc(sizeof(double) * (size_t)no);
    double *y64 = malloc(sizeof(double) * (size_t)no);
    float *xf = malloc(sizeof(float) * (size_t)n), *yf = malloc(sizeof(float) * (size_t)no);
    ck_assert(nnc_smp_graph_errors(m, lo, hi, NNC_SMP_U32, in_round, ef, er, ya) == NNC_STATUS_OK);
    nnc_runtime *r32, *r64;
    ck_assert(nnc_rt_create(&r32, m, NNC_PRECISION_F32, 1, err, sizeof err) == NNC_STATUS_OK);
    ck_assert(nnc_rt_create(&r64, m, NNC_PRECISION_F64, 1, err, sizeof err) == NNC_STATUS_OK);
    for (int s = 0; s < P; s++) {
        for (int i = 0; i < n; i++) {
            double u = s == 0 ? 0 : s == 1 ? 1 : s == 2 ? (i % 2) : urand();
            x[i] = fmin(lo[i] + u * (hi[i] - lo[i]), hi[i]);
            if (!in_round) x[i] = fmin(fmax((double)(float)x[i], lo[i]), hi[i]);
            xf[i] = (float)x[i];
        }
        const void *i64[1] = {x}, *i32[1] = {xf};
        void *o64[1] = {y64}, *o32[1] = {yf};
        ck_assert(nnc_rt_run(r64, 1, i64, o64, err, sizeof err) == NNC_STATUS_OK);
        ck_assert(nnc_rt_run(r32, 1, i32, o32, err, sizeof err) == NNC_STATUS_OK);
        for (int j = 0; j < no; j++) {
            ck_assert_msg(fabs((double)yf[j] - y64[j]) <= ef[j] + er[j], "rep %d point %d output %d: |f32 - f64| %g > %g",
                          rep, s, j, fabs((double)yf[j] - y64[j]), ef[j] + er[j]);
            ck_assert_msg(fabs(y64[j]) <= ya[j] + er[j], "rep %d: |y| %g > %g", rep, fabs(y64[j]), ya[j] + er[j]);
        }
    }
    double ya_max = 0, ef_max = 0;
    for (int j = 0; j < no; j++) ya_max = fmax(ya_max, ya[j]), ef_max = fmax(ef_max, ef[j]);
    nnc_rt_destroy(r32);
    nnc_rt_destroy(r64);
    free(x); free(ef); free(er); free(ya); free(y64); free(xf); free(yf);
    return ef_max <= 1e-2 * ya_max;
}

/* One node on x [1, 2, 6, 7]: Add or Sub of a scalar, AveragePool or
 * MaxPool (3x3, stride 2, pads 1, average counting the pads or not), Pad
 * by a constant; kind 0 .. 5. */
static nnc_model *build_one_node(int kind)
{
    static const char *ai[2] = {"x", "c"}, *ao[1] = {"y"}, *qi[1] = {"x"}, *pi[3] = {"x", "pads", "pv"};
    int64_t xd[4] = {1, 2, 6, 7}, sd[1] = {1}, pdd[1] = {8}, k3[2] = {3, 3}, s2[2] = {2, 2}, p1[4] = {1, 1, 1, 1};
    int64_t pads[8] = {0, 0, 1, 0, 0, 1, 2, 1};
    float c[1] = {(float)(urand() * 8 - 4)}, pv[1] = {0.75f};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 4, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_floats("c", 1, sd, c, 1);
    b.inits[1] = tensor_i64("pads", 1, pdd, pads, 8);
    b.inits[2] = tensor_floats("pv", 1, sd, pv, 1);
    b.graph.n_initializer = 3;
    Onnx__NodeProto *q;
    if (kind < 2) {
        b.nodes[0] = node(kind ? "Sub" : "Add", "op", 2, ai, 1, ao);
    } else if (kind < 5) {
        q = b.nodes[0] = node(kind == 4 ? "MaxPool" : "AveragePool", "op", 1, qi, 1, ao);
        node_attr(q, attr_ints("kernel_shape", 2, k3));
        node_attr(q, attr_ints("strides", 2, s2));
        node_attr(q, attr_ints("pads", 4, p1));
        if (kind == 3) node_attr(q, attr_int("count_include_pad", 1));
    } else {
        b.nodes[0] = node("Pad", "op", 3, pi, 1, ao);
    }
    b.graph.n_node = 1;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return m;
}

/* x [1, 3] -> Gemm (W [3, 3], transB) and, with tail, -> Relu -> Add(r, r). */
static nnc_model *overflow_net(const float *W, int tail)
{
    static const char *gi[2] = {"x", "W"}, *go[1] = {"h"}, *yo[1] = {"y"}, *ri[1] = {"h"}, *ro[1] = {"r"},
                      *ai[2] = {"r", "r"};
    int64_t xd[2] = {1, 3}, wd[2] = {3, 3};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_floats("W", 2, wd, W, 9);
    b.graph.n_initializer = 1;
    Onnx__NodeProto *g = b.nodes[0] = node("Gemm", "g", 2, gi, 1, tail ? go : yo);
    node_attr(g, attr_int("transB", 1));
    b.graph.n_node = 1;
    if (tail) {
        b.nodes[1] = node("Relu", "relu", 1, ri, 1, ro);
        b.nodes[2] = node("Add", "add", 2, ai, 1, yo);
        b.graph.n_node = 3;
    }
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return m;
}

/* The graph analysis's bounds hold for the runtimes themselves: on random
 * conv nets with residual Adds, Pads and pools, and on each of those nodes
 * alone (where its own rounding is the whole error), over random boxes,
 * every output of the float32 runtime lies within e_fast + e_ref of the
 * float64 runtime's, which lies within y_abs + e_ref of 0, at the box's
 * corners and random points, float inputs (no input rounding) and double
 * ones (rounded to float for the float32 runtime); the bound is not
 * vacuous on most nets.  Models it does not cover are refused by name. */
START_TEST(test_graph_error_bounds)
{
    char err[NNC_ERRBUF_SIZE];
    int useful = 0;
    for (int rep = 0; rep < 24; rep++) {
        nnc_model *m = build_convnet(rep);
        ck_assert_msg(nnc_smp_graph_check(m, err, sizeof err) == NNC_STATUS_OK, "rep %d: %s", rep, err);
        int n = (int)m->vals[m->inputs[0]].numel;
        double *lo = malloc(sizeof(double) * (size_t)n), *hi = malloc(sizeof(double) * (size_t)n);
        for (int i = 0; i < n; i++) { /* float ends: a float point inside rounds inside */
            double c = (urand() * 2 - 1) * (rep % 3 == 0 ? 20 : 1), r = urand() * (rep % 4 == 0 ? 0.01 : 1);
            lo[i] = (float)(c - r);
            hi[i] = (float)(c + r);
        }
        useful += check_graph_bounds(m, lo, hi, rep % 2, 200, rep);
        nnc_mdl_destroy(m);
        free(lo);
        free(hi);
    }
    ck_assert_msg(useful >= 20, "the bound is loose on %d of 24 random conv nets", 24 - useful);
    for (int rep = 0; rep < 36; rep++) {
        nnc_model *m = build_one_node(rep % 6);
        ck_assert_msg(nnc_smp_graph_check(m, err, sizeof err) == NNC_STATUS_OK, "kind %d: %s", rep % 6, err);
        double lo[84], hi[84];
        for (int i = 0; i < 84; i++) {
            double c = (urand() * 2 - 1) * 10, r = urand();
            lo[i] = (float)(c - r);
            hi[i] = (float)(c + r);
        }
        check_graph_bounds(m, lo, hi, 0, 400, 100 + rep);
        nnc_mdl_destroy(m);
    }
    /* where float32 may overflow, no bound: an input beyond float's range,
     * and a product inside a Gemm (2^100 x 2^29) although every node's
     * value stays small (2^100 (x0 - x1) = 0 at x0 = x1); x -> Gemm ->
     * Relu -> Add(r, r) */
    {
        /* rows 0, 1: 2^100 (x0 - x1), row 2: x2 */
        static const float W[9] = {0x1p100f, -0x1p100f, 0, -0x1p100f, 0x1p100f, 0, 0, 0, 1};
        nnc_model *m = overflow_net(W, 1), *mc = overflow_net(W, 0);
        ck_assert_msg(nnc_smp_graph_check(m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        nnc_smp_chain *ch;
        ck_assert_msg(nnc_smp_chain_extract(&ch, mc, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        double ef[3], er[3], ya[3];
        double lo[3] = {1, 1, 1}, hi[3] = {2, 2, 2}, blo[3] = {0x1p29, 0x1p29, 1}, bhi[3] = {0x1p29, 0x1p29, 2};
        for (int chain = 0; chain < 2; chain++) { /* the graph's analysis, the dense chains' (the Gemm alone) */
            for (int big = 0; big < 2; big++) {
                const double *l = big ? blo : lo, *h = big ? bhi : hi;
                ck_assert((chain ? nnc_smp_chain_errors(ch, l, h, NNC_SMP_U32, 1, ef, er, ya)
                                 : nnc_smp_graph_errors(m, l, h, NNC_SMP_U32, 1, ef, er, ya)) == NNC_STATUS_OK);
                ck_assert_msg(big ? isinf(ef[0]) : isfinite(ef[0]), "%s, %s box: e_fast %g", chain ? "chain" : "graph",
                              big ? "2^29 (a product past float's range)" : "small", ef[0]);
            }
        }
        nnc_smp_chain_free(ch);
        nnc_mdl_destroy(mc);
        /* weights 2^-40 (x0 - x1): every sum small, but x0 = x1 = 1e39 is
         * infinite in float32 (inf - inf) */
        int vw = m->nodes[m->order[0]].in[1];
        for (int i = 0; i < 2; i++) {
            m->vals[vw].f[i * 3] = i ? -0x1p-40 : 0x1p-40;
            m->vals[vw].f[i * 3 + 1] = i ? 0x1p-40 : -0x1p-40;
        }
        double flo[3] = {1e39, 1e39, 1}, fhi[3] = {1e39, 1e39, 1};
        ck_assert(nnc_smp_graph_errors(m, flo, fhi, NNC_SMP_U32, 1, ef, er, ya) == NNC_STATUS_OK);
        ck_assert_msg(isinf(ef[0]) && isinf(ef[2]), "an input past float's range: %g %g", ef[0], ef[2]);
        /* a weight below float's normal range that is not a float (a folded
         * constant): refused; an exact float there: taken */
        m->vals[vw].f[8] = 1e-40;
        ck_assert(nnc_smp_graph_check(m, err, sizeof err) == NNC_STATUS_UNSUPPORTED);
        m->vals[vw].f[8] = 0x1p-140;
        ck_assert_msg(nnc_smp_graph_check(m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        nnc_mdl_destroy(m);
    }
    /* a model whose output is a constant (no node computes it): refused,
     * and the sampler then screens nothing (no bounds to read) */
    {
        static const char *ai[2] = {"a", "c"}, *ao[1] = {"y"};
        float A[2] = {1, 2}, C[2] = {3, 4};
        int64_t xd[2] = {1, 2}, cd[2] = {1, 2};
        mb b;
        mb_init(&b, 13);
        mb_input(&b, "x", 2, xd);
        mb_output(&b, "y");
        b.inits[0] = tensor_floats("a", 2, cd, A, 2);
        b.inits[1] = tensor_floats("c", 2, cd, C, 2);
        b.graph.n_initializer = 2;
        b.nodes[0] = node("Add", "const", 2, ai, 1, ao);
        b.graph.n_node = 1;
        nnc_model *m;
        if (mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK) {
            ck_assert(nnc_smp_graph_check(m, err, sizeof err) == NNC_STATUS_UNSUPPORTED);
            nnc_smp *s;
            if (nnc_smp_create(&s, m, 0, err, sizeof err) == NNC_STATUS_OK) {
                double lo[2] = {0, 0}, hi[2] = {1, 1}, C2[2] = {1, -1}, d2[1] = {0}, one = 1;
                double root[4] = {0, 0, 1, 1}, *leaves[1] = {root};
                int ds[2] = {0, 1};
                nnc_smp_case sc = {1, 0, leaves, &one, 1, 1, lo, hi, 1, 1, C2, d2, ds};
                ck_assert(nnc_smp_case_begin(s, &sc, err, sizeof err) == NNC_STATUS_OK);
                nnc_smp_destroy(s);
            }
            nnc_mdl_destroy(m);
        }
    }
    /* the zoo CNN (Conv, MaxPool, Gemm, a folded constant) is covered; a
     * Softmax is not: refused by name */
    nnc_model *m;
    ck_assert(nnc_mdl_load(&m, "models/zoo/cnn.onnx", err, sizeof err) == NNC_STATUS_OK);
    ck_assert_msg(nnc_smp_graph_check(m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_mdl_destroy(m);
    static const char *si[1] = {"x"}, *so[1] = {"y"};
    int64_t xd[2] = {1, 4};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    b.nodes[0] = node("Softmax", "probs", 1, si, 1, so);
    b.graph.n_node = 1;
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert(nnc_smp_graph_check(m, err, sizeof err) == NNC_STATUS_UNSUPPORTED);
    ck_assert_msg(strstr(err, "probs") != NULL, "%s", err);
    nnc_mdl_destroy(m);
}
END_TEST

/* The running per-sample bound of the float32 screen (sample_run.c) covers
 * the real float32-vs-float64 difference: on random chains of ordinary
 * scale and on adversarially scaled ones (layers alternating 1e+-12,
 * weights near float's underflow or overflow, wide inputs), 10^5+ samples
 * in all, |y32 - y64| <= s for every output and |margin32 - margin64| <=
 * tau for random unsafe rows; the vector and portable builds agree bit for
 * bit; and on ordinary nets the bound is far below the outputs (not vacuous). */
START_TEST(test_running_bound)
{
    char err[NNC_ERRBUF_SIZE];
    uint64_t checked = 0, finite = 0;
    for (int rep = 0; rep < 14; rep++) {
        chain_net t;
        memset(&t, 0, sizeof t);
        t.nl = 2 + rnd_below(3);
        for (int l = 0; l <= t.nl; l++) t.w[l] = 2 + rnd_below(40);
        double scale = 1, xs_scale = 3;
        int adversarial = rep >= 8;
        switch (rep % 8) {
        case 0: scale = 30; break;
        case 1: scale = 1; break;
        case 2: scale = 1e-3; break;
        case 3: scale = 0.3; xs_scale = 1e3; break;
        default: scale = 1; break;
        }
        if (adversarial) {
            for (int l = 0; l < t.nl; l++) {
                static const double pick[6] = {1e12, 1e-12, 1e-19, 1e18, 1e-2, 1e3};
                t.ls[l] = (rep == 8) ? (l % 2 ? 1e-12 : 1e12) : pick[rnd_below(6)];
            }
            xs_scale = rep % 2 ? 1e-15 : 1e9;
        }
        nnc_model *m = build_chain(&t, scale);
        nnc_smp_chain *ch;
        ck_assert_msg(nnc_smp_chain_extract(&ch, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        nnc_smp_run *run;
        ck_assert(nnc_smp_run_create(&run, ch) == NNC_STATUS_OK);
        int n = t.w[0], no = t.w[t.nl], B = 1024, nb = 9;
        nnc_runtime *r64;
        ck_assert(nnc_rt_create(&r64, m, NNC_PRECISION_F64, B, err, sizeof err) == NNC_STATUS_OK);
        double *x = malloc(sizeof(double) * (size_t)(B * n)), *y64 = malloc(sizeof(double) * (size_t)(B * no));
        float *y = malloc(sizeof(float) * (size_t)(B * no)), *sb = malloc(sizeof(float) * (size_t)(B * no));
        float *y2 = malloc(sizeof(float) * (size_t)(B * no)), *sb2 = malloc(sizeof(float) * (size_t)(B * no));
        /* random rows C . y <= d, three disjuncts of one or two rows */
        double C[4 * 64], d[4];
        int dstart[4] = {0, 1, 2, 4};
        for (int r = 0; r < 4; r++) {
            for (int i = 0; i < no; i++) C[r * no + i] = rnd_below(3) == 0 ? (urand() * 2 - 1) : 0;
            C[r * no + rnd_below(no)] = 1;
            d[r] = urand() - 0.5;
        }
        double c0[64], rad[64];
        for (int i = 0; i < n; i++) {
            c0[i] = (urand() * 2 - 1) * xs_scale;
            rad[i] = urand() * xs_scale;
        }
        double ymax = 0, smax = 0;
        for (int b = 0; b < nb; b++) {
            int cnt = b == nb - 1 ? 1 + rnd_below(B) : B;
            for (int q = 0; q < cnt; q++)
                for (int i = 0; i < n; i++) x[q * n + i] = c0[i] + (urand() * 2 - 1) * rad[i];
            const void *in[1] = {x};
            void *out[1] = {y64};
            ck_assert(nnc_rt_run(r64, cnt, in, out, err, sizeof err) == NNC_STATUS_OK);
            ck_assert(nnc_smp_run_eval(run, cnt, x, y, sb, 1) == NNC_STATUS_OK);
            ck_assert(nnc_smp_run_eval(run, cnt, x, y2, sb2, 0) == NNC_STATUS_OK);
            ck_assert_msg(memcmp(y, y2, sizeof(float) * (size_t)(cnt * no)) == 0 &&
                              memcmp(sb, sb2, sizeof(float) * (size_t)(cnt * no)) == 0,
                          "rep %d: vector and portable screens differ", rep);
            for (int q = 0; q < cnt; q++) {
                const float *yq = y + q * no, *sq = sb + q * no;
                const double *rq = y64 + q * no;
                int allfin = 1;
                for (int i = 0; i < no; i++) {
                    checked++;
                    if (!(isfinite(sq[i]) && isfinite(yq[i]))) {
                        allfin = 0;
                        continue;
                    }
                    finite++;
                    double diff = fabs((double)yq[i] - rq[i]);
                    ck_assert_msg(diff <= (double)sq[i], "rep %d sample %d out %d: |y32 - y64| = %g > bound %g", rep,
                                  q, i, diff, (double)sq[i]);
                    ymax = fmax(ymax, fabs(rq[i]));
                    smax = fmax(smax, (double)sq[i]);
                }
                if (!allfin) continue;
                double yd[64];
                for (int i = 0; i < no; i++) yd[i] = yq[i];
                double tau = nnc_smp_run_tolerance(C, d, 4, no, yq, sq);
                double m32 = nnc_smp_margin(C, d, dstart, 3, no, yd), m64 = nnc_smp_margin(C, d, dstart, 3, no, rq);
                ck_assert_msg(fabs(m32 - m64) <= tau, "rep %d: margins differ by %g > tau %g", rep, fabs(m32 - m64), tau);
            }
        }
        if (!adversarial)
            ck_assert_msg(smax <= 1e-3 * ymax, "rep %d: running bound %g not below outputs %g", rep, smax, ymax);
        free(x); free(y64); free(y); free(sb); free(y2); free(sb2);
        nnc_rt_destroy(r64);
        nnc_smp_run_free(run);
        nnc_smp_chain_free(ch);
        nnc_mdl_destroy(m);
        free_chain(&t);
    }
    ck_assert_msg(checked >= 100000, "only %llu outputs checked", (unsigned long long)checked);
    ck_assert_msg(finite >= checked / 2, "bounds mostly infinite: %llu of %llu", (unsigned long long)finite,
                  (unsigned long long)checked);
}
END_TEST

/* The running-bound screen decides a deep random net whose a priori box
 * tolerance is useless, with verdicts equal to the float64 reference. */
START_TEST(test_run_mode_verdicts)
{
    char err[NNC_ERRBUF_SIZE];
    chain_net t;
    memset(&t, 0, sizeof t);
    t.nl = 4;
    int wd[5] = {6, 40, 40, 40, 5};
    memcpy(t.w, wd, sizeof wd);
    nnc_model *m = build_chain(&t, 0.4);
    int n = 6, no = 5;
    double C[4 * 5] = {0}, d[4] = {0, 0, 0, 0};
    int dstart[2] = {0, 1};
    C[1] = 1; /* unsafe: y1 - y0 <= d, d the median over a pilot sample */
    C[0] = -1;
    double root[12];
    for (int i = 0; i < n; i++) {
        root[i] = -4;
        root[n + i] = 4;
    }
    double *leaves[1] = {root}, cum[1] = {1};
    nnc_smp *s;
    ck_assert_msg(nnc_smp_create(&s, m, 0, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_runtime *ref;
    ck_assert(nnc_rt_create(&ref, m, NNC_PRECISION_F64, 1024, err, sizeof err) == NNC_STATUS_OK);
    int B = nnc_smp_batch_max(s);
    double *xs = malloc(sizeof(double) * (size_t)(B * n)), *ys = malloc(sizeof(double) * (size_t)(B * no));
    unsigned char *hit = malloc((size_t)B);
    uint64_t hits = 0;
    {
        nnc_smp_box_points(xs, B, n, 3, 0, root, root + n);
        const void *i64[1] = {xs};
        void *o64[1] = {ys};
        ck_assert(nnc_rt_run(ref, B, i64, o64, err, sizeof err) == NNC_STATUS_OK);
        double *v = malloc(sizeof(double) * (size_t)B);
        for (int i = 0; i < B; i++) v[i] = ys[i * no + 1] - ys[i * no];
        for (int i = 1; i < B; i++) /* insertion sort: small */
            for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
                double tmp = v[j]; v[j] = v[j - 1]; v[j - 1] = tmp;
            }
        d[0] = v[B / 2];
        free(v);
    }
    for (int mode = 1; mode <= 2; mode++) {
        nnc_smp_case sc = {77, 5, leaves, cum, 1, 1, root, root + n, 1, 1, C, d, dstart};
        ck_assert(nnc_smp_case_begin(s, &sc, err, sizeof err) == NNC_STATUS_OK);
        if (mode == 2) nnc_smp_set_mode(s, NNC_SMP_MODE_RUN);
        uint64_t f0, r0, f1, r1;
        nnc_smp_counts(s, &f0, &r0);
        for (int b = 0; b < 4; b++) {
            ck_assert(nnc_smp_batch(s, (uint64_t)b * (uint64_t)B, B, xs, hit, err, sizeof err) == NNC_STATUS_OK);
            const void *i64[1] = {xs};
            void *o64[1] = {ys};
            ck_assert(nnc_rt_run(ref, B, i64, o64, err, sizeof err) == NNC_STATUS_OK);
            for (int i = 0; i < B; i++) {
                int want = nnc_smp_margin(C, d, dstart, 1, no, ys + (size_t)i * (size_t)no) <= 0;
                ck_assert_msg(hit[i] == want, "mode %d sample %d: verdict %d, reference %d", mode, i, hit[i], want);
                hits += (uint64_t)want;
            }
        }
        nnc_smp_counts(s, &f1, &r1);
        /* mode 1: the case's own choice (box screen, or the running one
         * after a hand-over); mode 2: the running screen, kept to the end */
        if (mode == 2) ck_assert_int_eq(nnc_smp_get_mode(s), NNC_SMP_MODE_RUN);
        ck_assert_msg(f1 - f0 > 3 * (uint64_t)B / 2, "mode %d: fast %llu, rechecked %llu", mode,
                      (unsigned long long)(f1 - f0), (unsigned long long)(r1 - r0));
    }
    ck_assert_msg(hits > 0 && hits < 8 * (uint64_t)B, "hits %llu of %d: the comparison would be vacuous",
                  (unsigned long long)hits, 8 * B);
    free(xs); free(ys); free(hit);
    nnc_rt_destroy(ref);
    nnc_smp_destroy(s);
    nnc_mdl_destroy(m);
    free_chain(&t);
}
END_TEST

/* The zoo MLP with robustness rows for label 9 around the sample input. */
START_TEST(test_verdicts_equal_reference)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    /* _i 0: the zoo MLP (a dense chain), 1: the zoo CNN (the graph analysis) */
    const char *path = _i ? "models/zoo/cnn.onnx" : "models/zoo/mlp.onnx";
    if (nnc_mdl_load(&m, path, err, sizeof err) != NNC_STATUS_OK) {
        ck_abort_msg("%s: %s", path, err);
    }
    nnc_inputs in;
    ck_assert_msg(nnc_mdl_read_inputs(m, "models/zoo/sample_input.json", &in, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    int n = 784, no = 10;
    double C[9 * 10], d[9];
    int dstart[10];
    memset(C, 0, sizeof C);
    for (int r = 0; r < 9; r++) { /* unsafe: y9 - y_r <= 0 */
        C[r * 10 + 9] = 1;
        C[r * 10 + r] = -1;
        d[r] = 0;
        dstart[r] = r;
    }
    dstart[9] = 9;
    nnc_smp *s;
    ck_assert_msg(nnc_smp_create(&s, m, 0, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_runtime *ref;
    ck_assert(nnc_rt_create(&ref, m, NNC_PRECISION_F64, 1024, err, sizeof err) == NNC_STATUS_OK);
    int B = nnc_smp_batch_max(s);
    double *xs = malloc(sizeof(double) * (size_t)B * (size_t)n), *ys = malloc(sizeof(double) * (size_t)B * (size_t)no);
    unsigned char *hit = malloc((size_t)B);
    double *root = malloc(sizeof(double) * 2 * (size_t)n), *leaf2 = malloc(sizeof(double) * 2 * (size_t)n);
    double eps[4] = {0.02, 0.06, 0.12, 0.2};
    uint64_t total_hits = 0;
    for (int e = 0; e < 4; e++) {
        for (int i = 0; i < n; i++) {
            root[i] = fmax(in.data[0][i] - eps[e], 0);
            root[n + i] = fmin(in.data[0][i] + eps[e], 1);
        }
        /* two open leaves: the root's lower half in dimension 400 and the root */
        memcpy(leaf2, root, sizeof(double) * 2 * (size_t)n);
        leaf2[n + 400] = 0.5 * root[400] + 0.5 * root[n + 400];
        double *leaves[2] = {leaf2, root}, cum[2] = {0.5, 1.5};
        for (int force = 0; force < 2; force++) {
            nnc_smp_case sc = {1234 + (uint64_t)e, (uint64_t)e << 40, leaves, cum, 2, 1.5, root, root + n, 9, 9, C, d, dstart};
            ck_assert(nnc_smp_case_begin(s, &sc, err, sizeof err) == NNC_STATUS_OK);
            if (force) nnc_smp_set_tolerance(s, INFINITY);
            uint64_t f0, r0, f1, r1;
            nnc_smp_counts(s, &f0, &r0);
            for (int b = 0; b < 3; b++) {
                int cnt = b == 2 ? 333 : B;
                ck_assert_msg(nnc_smp_batch(s, (uint64_t)b * (uint64_t)B, cnt, xs, hit, err, sizeof err) == NNC_STATUS_OK, "%s", err);
                const void *i64[1] = {xs};
                void *o64[1] = {ys};
                ck_assert(nnc_rt_run(ref, cnt, i64, o64, err, sizeof err) == NNC_STATUS_OK);
                for (int i = 0; i < cnt; i++) {
                    int want = nnc_smp_margin(C, d, dstart, 9, no, ys + (size_t)i * (size_t)no) <= 0;
                    ck_assert_msg(hit[i] == want, "eps %g sample %d: verdict %d, reference %d", eps[e], i, hit[i], want);
                    total_hits += (uint64_t)want;
                }
            }
            nnc_smp_counts(s, &f1, &r1);
            if (force) ck_assert_msg(f1 == f0, "tolerance +inf: nothing may be decided fast");
            else if (e < 2) ck_assert_msg(f1 - f0 > (r1 - r0), "%s eps %g: fast path decided %llu, rechecked %llu", path, eps[e],
                                          (unsigned long long)(f1 - f0), (unsigned long long)(r1 - r0));
        }
    }
    ck_assert_msg(total_hits > 0, "no violating samples: the comparison would be vacuous");
    free(xs); free(ys); free(hit); free(root); free(leaf2);
    nnc_rt_destroy(ref);
    nnc_smp_destroy(s);
    nnc_inputs_clear(&in);
    nnc_mdl_destroy(m);
}
END_TEST

START_TEST(test_chain_extraction)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_smp_chain *ch;
    ck_assert(nnc_mdl_load(&m, "models/zoo/mlp.onnx", err, sizeof err) == NNC_STATUS_OK);
    ck_assert_msg(nnc_smp_chain_extract(&ch, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(ch->n_in, 784);
    ck_assert_int_eq(ch->n_out, 10);
    ck_assert_int_eq(ch->layers[ch->n_layers - 1].relu, 0);
    ck_assert_int_eq(ch->layers[0].relu, 1);
    nnc_smp_chain_free(ch);
    nnc_mdl_destroy(m);
    ck_assert(nnc_mdl_load(&m, "models/zoo/cnn.onnx", err, sizeof err) == NNC_STATUS_OK);
    ck_assert(nnc_smp_chain_extract(&ch, m, err, sizeof err) == NNC_STATUS_UNSUPPORTED);
    ck_assert_msg(strstr(err, "Conv") != NULL, "%s", err);
    /* the GPU sampler refuses it with that reason (or for want of CUDA) */
    nnc_smp *s;
    ck_assert(nnc_smp_create(&s, m, 1, err, sizeof err) == NNC_STATUS_UNSUPPORTED);
    ck_assert_msg(strstr(err, "--device gpu") != NULL, "%s", err);
    nnc_mdl_destroy(m);

    /* MatMul + Add(bias) + Relu + MatMul: a chain with biases; alpha != 1: not */
    static const char *mi[2] = {"x", "W"}, *mo[1] = {"h"}, *ai[2] = {"h", "b"}, *ao[1] = {"hb"}, *ri[1] = {"hb"},
                      *ro[1] = {"a"}, *m2i[2] = {"a", "V"}, *m2o[1] = {"y"};
    float W[6] = {1, -2, 0.5f, 3, -1, 0.25f}, bv[3] = {0.5f, -0.5f, 1}, V[3] = {1, 2, -1};
    int64_t xd[2] = {1, 2}, wd[2] = {2, 3}, bd[1] = {3}, vd[2] = {3, 1};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_floats("W", 2, wd, W, 6);
    b.inits[1] = tensor_floats("b", 1, bd, bv, 3);
    b.inits[2] = tensor_floats("V", 2, vd, V, 3);
    b.graph.n_initializer = 3;
    b.nodes[0] = node("MatMul", "mm", 2, mi, 1, mo);
    b.nodes[1] = node("Add", "add", 2, ai, 1, ao);
    b.nodes[2] = node("Relu", "relu", 1, ri, 1, ro);
    b.nodes[3] = node("MatMul", "mm2", 2, m2i, 1, m2o);
    b.graph.n_node = 4;
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_msg(nnc_smp_chain_extract(&ch, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(ch->n_layers, 2);
    ck_assert(ch->layers[0].relu == 1 && ch->layers[1].relu == 0);
    ck_assert(ch->layers[0].b[1] == -0.5 && ch->layers[0].w[1 * 3 + 2] == 0.25 && ch->layers[1].w[2] == -1);
    nnc_smp_chain_free(ch);
    nnc_mdl_destroy(m);

}
END_TEST

START_TEST(test_gemm_alpha_refused)
{
    char err[NNC_ERRBUF_SIZE];
    static const char *gi[3] = {"x", "W", "b"}, *go[1] = {"y"};
    float W[4] = {1, 2, 3, 4}, bv[2] = {0, 1};
    int64_t xd[2] = {1, 2}, wd[2] = {2, 2}, bd[1] = {2};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_floats("W", 2, wd, W, 4);
    b.inits[1] = tensor_floats("b", 1, bd, bv, 2);
    b.graph.n_initializer = 2;
    Onnx__NodeProto *g = node("Gemm", "scaled", 3, gi, 1, go);
    node_attr(g, attr_float("alpha", 0.5f));
    b.nodes[0] = g;
    b.graph.n_node = 1;
    nnc_model *m;
    nnc_smp_chain *ch;
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert(nnc_smp_chain_extract(&ch, m, err, sizeof err) == NNC_STATUS_UNSUPPORTED);
    ck_assert_msg(strstr(err, "scaled") != NULL, "%s", err);
    nnc_mdl_destroy(m);
}
END_TEST

int main(void)
{
    harness_seed("test_sample");
    Suite *su = suite_create("sample");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_points_bit_identical);
    tcase_add_test(tc, test_error_bounds_and_ibp_sound);
    tcase_add_test(tc, test_graph_error_bounds);
    tcase_add_loop_test(tc, test_verdicts_equal_reference, 0, 2);
    tcase_add_test(tc, test_running_bound);
    tcase_add_test(tc, test_run_mode_verdicts);
    tcase_add_test(tc, test_chain_extraction);
    tcase_add_test(tc, test_gemm_alpha_refused);
    suite_add_tcase(su, tc);
    return check_main_run(su);
}
