/* Soundness of the bound propagation (verifier/bounds.c):
 *  - on random small networks (Gemm, ReLU, LeakyReLU, Sigmoid, Tanh), the fast
 *    interval bounds contain interval bounds computed with MPFR at 256 bits
 *    with directed rounding (an independent reference);
 *  - 10^5 concrete samples of each network (float64 runtime) lie inside the
 *    CROWN output bounds, and every linear objective's sampled value is at
 *    least its certified lower bound;
 *  - CROWN is at least as tight as IBP on the objectives;
 *  - the same on random small residual conv nets (Conv with padding, ReLU,
 *    a second Conv added back to its input, AveragePool, Flatten, Gemm):
 *    IBP against an MPFR interval reference, samples inside CROWN;
 *  - convs of random strides, asymmetric pads, dilations and groups: the
 *    same, and on one-point boxes CROWN within rounding of the runtime. */
#include "nncert/model.h"
#include "tests/unit/harness.h"
#include "tests/unit/onnx_builder.h"
#include "verifier/bounds_impl.h"

#include <check.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct net {
    int n0, n1, n2, n3; /* widths */
    int act;            /* second activation: 0 relu, 1 leaky 0.1, 2 sigmoid, 3 tanh */
    float *W1, *b1, *W2, *b2, *W3, *b3;
} net;

static void random_net(net *t, int act)
{
    t->n0 = 3 + rnd_below(4);
    t->n1 = 4 + rnd_below(8);
    t->n2 = 4 + rnd_below(8);
    t->n3 = 2 + rnd_below(3);
    t->act = act;
    float **ps[6] = {&t->W1, &t->b1, &t->W2, &t->b2, &t->W3, &t->b3};
    int sz[6] = {t->n1 * t->n0, t->n1, t->n2 * t->n1, t->n2, t->n3 * t->n2, t->n3};
    for (int k = 0; k < 6; k++) {
        *ps[k] = malloc(sizeof(float) * (size_t)sz[k]);
        for (int j = 0; j < sz[k]; j++) (*ps[k])[j] = (float)(urand() * 2 - 1);
    }
}

static nnc_model *build(const net *t)
{
    static const char *g1i[3] = {"x", "W1", "b1"}, *g1o[1] = {"h1"}, *r1i[1] = {"h1"}, *r1o[1] = {"a1"};
    static const char *g2i[3] = {"a1", "W2", "b2"}, *g2o[1] = {"h2"}, *r2i[1] = {"h2"}, *r2o[1] = {"a2"};
    static const char *g3i[3] = {"a2", "W3", "b3"}, *g3o[1] = {"y"};
    static const char *acts[4] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh"};
    int64_t xd[2] = {1, t->n0}, w1d[2] = {t->n1, t->n0}, b1d[1] = {t->n1}, w2d[2] = {t->n2, t->n1}, b2d[1] = {t->n2},
            w3d[2] = {t->n3, t->n2}, b3d[1] = {t->n3};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_floats("W1", 2, w1d, t->W1, (size_t)(t->n1 * t->n0));
    b.inits[1] = tensor_floats("b1", 1, b1d, t->b1, (size_t)t->n1);
    b.inits[2] = tensor_floats("W2", 2, w2d, t->W2, (size_t)(t->n2 * t->n1));
    b.inits[3] = tensor_floats("b2", 1, b2d, t->b2, (size_t)t->n2);
    b.inits[4] = tensor_floats("W3", 2, w3d, t->W3, (size_t)(t->n3 * t->n2));
    b.inits[5] = tensor_floats("b3", 1, b3d, t->b3, (size_t)t->n3);
    b.graph.n_initializer = 6;
    Onnx__NodeProto *g1 = node("Gemm", "g1", 3, g1i, 1, g1o), *g2 = node("Gemm", "g2", 3, g2i, 1, g2o),
                    *g3 = node("Gemm", "g3", 3, g3i, 1, g3o);
    node_attr(g1, attr_int("transB", 1));
    node_attr(g2, attr_int("transB", 1));
    node_attr(g3, attr_int("transB", 1));
    Onnx__NodeProto *a2 = node(acts[t->act], "act2", 1, r2i, 1, r2o);
    if (t->act == 1) node_attr(a2, attr_float("alpha", 0.1f));
    b.nodes[0] = g1;
    b.nodes[1] = node("Relu", "act1", 1, r1i, 1, r1o);
    b.nodes[2] = g2;
    b.nodes[3] = a2;
    b.nodes[4] = g3;
    b.graph.n_node = 5;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return m;
}

/* MPFR interval propagation with directed rounding. */
static void mp_affine(int no, int ni, const float *W, const float *bias, mpfr_t *lo, mpfr_t *hi, mpfr_t *olo, mpfr_t *ohi)
{
    mpfr_t t;
    mpfr_init2(t, 256);
    for (int j = 0; j < no; j++) {
        mpfr_set_d(olo[j], bias[j], MPFR_RNDD);
        mpfr_set_d(ohi[j], bias[j], MPFR_RNDU);
        for (int i = 0; i < ni; i++) {
            double w = W[j * ni + i];
            mpfr_mul_d(t, w >= 0 ? lo[i] : hi[i], w, MPFR_RNDD);
            mpfr_add(olo[j], olo[j], t, MPFR_RNDD);
            mpfr_mul_d(t, w >= 0 ? hi[i] : lo[i], w, MPFR_RNDU);
            mpfr_add(ohi[j], ohi[j], t, MPFR_RNDU);
        }
    }
    mpfr_clear(t);
}

static void mp_act(int act, int n, mpfr_t *v, mpfr_rnd_t rnd)
{
    mpfr_t t;
    mpfr_init2(t, 256);
    mpfr_rnd_t opp = rnd == MPFR_RNDD ? MPFR_RNDU : MPFR_RNDD;
    for (int j = 0; j < n; j++) {
        switch (act) {
        case 0:
            if (mpfr_sgn(v[j]) < 0) mpfr_set_zero(v[j], 1);
            break;
        case 1:
            if (mpfr_sgn(v[j]) < 0) mpfr_mul_d(v[j], v[j], (double)0.1f, rnd);
            break;
        case 2: /* 1 / (1 + exp(-x)) */
            mpfr_neg(t, v[j], MPFR_RNDN);
            mpfr_exp(t, t, opp);
            mpfr_add_ui(t, t, 1, opp);
            mpfr_ui_div(v[j], 1, t, rnd);
            break;
        default:
            mpfr_tanh(v[j], v[j], rnd);
            break;
        }
    }
    mpfr_clear(t);
}

static mpfr_t *mp_vec(int n)
{
    mpfr_t *v = malloc(sizeof(mpfr_t) * (size_t)n);
    for (int j = 0; j < n; j++) mpfr_init2(v[j], 256);
    return v;
}

/* The fast IBP output bounds of b (after nnc_bnd_compute with crown 0)
 * contain the MPFR interval bounds [yl, yh] of the same network, and are
 * not much looser: the fast bounds are IBP too. */
static void expect_ibp_matches_mpfr(const nnc_bnd *b, int trial, int n_out, mpfr_t *yl, mpfr_t *yh)
{
    const double *olo = nnc_bnd_out_lo(b), *ohi = nnc_bnd_out_hi(b);
    for (int j = 0; j < n_out; j++) {
        ck_assert_msg(mpfr_cmp_d(yl[j], olo[j]) >= 0, "seed %llu trial %d: IBP lower %.17g above MPFR %.17g", (unsigned long long)g_seed, trial,
                      olo[j], mpfr_get_d(yl[j], MPFR_RNDD));
        ck_assert_msg(mpfr_cmp_d(yh[j], ohi[j]) <= 0, "seed %llu trial %d: IBP upper %.17g below MPFR %.17g", (unsigned long long)g_seed, trial,
                      ohi[j], mpfr_get_d(yh[j], MPFR_RNDU));
        double a = mpfr_get_d(yl[j], MPFR_RNDD), z = mpfr_get_d(yh[j], MPFR_RNDU), w = z - a;
        /* the engine's rounding allowance (GAMMA ew) is relative to the
         * magnitudes involved, so a zero-width output gets a few 1e-12 */
        ck_assert_msg(ohi[j] - olo[j] <= w * (1 + 1e-9) + 1e-10 * (1 + fabs(a) + fabs(z)), "seed %llu trial %d: IBP width %.17g, MPFR %.17g", (unsigned long long)g_seed, trial,
                      ohi[j] - olo[j], w);
    }
}

/* reps x 1000 points of the box [lo, hi] (every tenth a corner-like point)
 * run through m's float64 runtime: every output inside [clo, chi] and every
 * objective C[o] . y at least lower[o] (up to the sample's own rounding). */
static void expect_samples_inside(const nnc_model *m, int trial, int reps, int n_in, const double *lo, const double *hi,
                                  int n_out, const double *clo, const double *chi, int nobj, const double *C,
                                  const double *lower)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_runtime *rt;
    int batch = 1000;
    ck_assert_int_eq(nnc_rt_create(&rt, m, NNC_PRECISION_F64, batch, err, sizeof err), NNC_STATUS_OK);
    double *xs = malloc(sizeof(double) * (size_t)(batch * n_in)), *ys = malloc(sizeof(double) * (size_t)(batch * n_out));
    for (int rep = 0; rep < reps; rep++) {
        for (int s = 0; s < batch; s++)
            for (int i = 0; i < n_in; i++) {
                double u = urand();
                xs[s * n_in + i] = (s % 10 == 0) ? (u < 0.5 ? lo[i] : hi[i]) : lo[i] + u * (hi[i] - lo[i]);
            }
        const void *in[1] = {xs};
        void *out[1] = {ys};
        ck_assert_int_eq(nnc_rt_run(rt, batch, in, out, err, sizeof err), NNC_STATUS_OK);
        /* (plain comparisons: a Check assertion per sample would dominate the run time) */
        for (int s = 0; s < batch; s++) {
            const double *y = ys + s * n_out;
            for (int j = 0; j < n_out; j++)
                if (!(y[j] >= clo[j] && y[j] <= chi[j]))
                    ck_abort_msg("seed %llu trial %d: sample output %.17g outside [%.17g, %.17g]", (unsigned long long)g_seed, trial, y[j], clo[j],
                                 chi[j]);
            for (int o = 0; o < nobj; o++) {
                double v = 0;
                for (int j = 0; j < n_out; j++) v += C[o * n_out + j] * y[j];
                /* the sample is computed in float64 (rounded); allow its own rounding */
                if (!(v >= lower[o] - 1e-12 * (1 + fabs(v))))
                    ck_abort_msg("seed %llu trial %d: objective %d value %.17g below bound %.17g", (unsigned long long)g_seed, trial, o, v, lower[o]);
            }
        }
    }
    nnc_rt_destroy(rt);
    free(xs);
    free(ys);
}

START_TEST(test_random_networks)
{
    char err[NNC_ERRBUF_SIZE];
    for (int trial = 0; trial < 24; trial++) {
        net t;
        random_net(&t, trial % 4);
        nnc_model *m = build(&t);
        double lo[8], hi[8];
        for (int i = 0; i < t.n0; i++) {
            double c = urand() * 2 - 1, r = urand() * (trial % 3 == 0 ? 1.0 : 0.1);
            lo[i] = c - r;
            hi[i] = c + r;
        }
        nnc_bnd *b;
        ck_assert_int_eq(nnc_bnd_create(&b, m, err, sizeof err), NNC_STATUS_OK);
        /* IBP against MPFR */
        ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 0), NNC_STATUS_OK);
        mpfr_t *x0l = mp_vec(t.n0), *x0h = mp_vec(t.n0), *l1 = mp_vec(t.n1), *h1 = mp_vec(t.n1), *l2 = mp_vec(t.n2),
               *h2 = mp_vec(t.n2), *l3 = mp_vec(t.n3), *h3 = mp_vec(t.n3);
        for (int i = 0; i < t.n0; i++) {
            mpfr_set_d(x0l[i], lo[i], MPFR_RNDD);
            mpfr_set_d(x0h[i], hi[i], MPFR_RNDU);
        }
        mp_affine(t.n1, t.n0, t.W1, t.b1, x0l, x0h, l1, h1);
        mp_act(0, t.n1, l1, MPFR_RNDD);
        mp_act(0, t.n1, h1, MPFR_RNDU);
        mp_affine(t.n2, t.n1, t.W2, t.b2, l1, h1, l2, h2);
        mp_act(t.act, t.n2, l2, MPFR_RNDD);
        mp_act(t.act, t.n2, h2, MPFR_RNDU);
        mp_affine(t.n3, t.n2, t.W3, t.b3, l2, h2, l3, h3);
        expect_ibp_matches_mpfr(b, trial, t.n3, l3, h3);
        /* CROWN: objectives y_j and y_0 - y_j */
        ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
        int nobj = 2 * t.n3;
        double *C = calloc((size_t)(nobj * t.n3), sizeof(double)), d[16] = {0}, lower[16], ibp_lower[16];
        for (int j = 0; j < t.n3; j++) {
            C[j * t.n3 + j] = 1;
            C[(t.n3 + j) * t.n3 + 0] += 1;
            C[(t.n3 + j) * t.n3 + j] -= 1;
        }
        ck_assert_int_eq(nnc_bnd_linear_lower(b, nobj, C, d, lower, NULL), NNC_STATUS_OK);
        double clo[8], chi[8];
        memcpy(clo, nnc_bnd_out_lo(b), sizeof(double) * (size_t)t.n3);
        memcpy(chi, nnc_bnd_out_hi(b), sizeof(double) * (size_t)t.n3);
        for (int o = 0; o < nobj; o++) { /* CROWN never looser than IBP (taken as a max) */
            double s = 0;
            for (int j = 0; j < t.n3; j++) s += C[o * t.n3 + j] >= 0 ? C[o * t.n3 + j] * clo[j] : C[o * t.n3 + j] * chi[j];
            ibp_lower[o] = s;
            ck_assert(lower[o] >= ibp_lower[o] - 1e-9 * (1 + fabs(s)));
        }
        /* 10^5 samples */
        expect_samples_inside(m, trial, 100, t.n0, lo, hi, t.n3, clo, chi, nobj, C, lower);
        free(C);
        nnc_bnd_destroy(b);
        nnc_mdl_destroy(m);
        mpfr_t *vecs[8] = {x0l, x0h, l1, h1, l2, h2, l3, h3};
        int lens[8] = {t.n0, t.n0, t.n1, t.n1, t.n2, t.n2, t.n3, t.n3};
        for (int k = 0; k < 8; k++) {
            for (int j = 0; j < lens[k]; j++) mpfr_clear(vecs[k][j]);
            free(vecs[k]);
        }
        free(t.W1); free(t.b1); free(t.W2); free(t.b2); free(t.W3); free(t.b3);
    }
}
END_TEST

/* MPFR interval image of a 3x3 convolution with padding 1, stride 1:
 * [ci][h][w] -> [co][h][w]. */
static void mp_conv3(int ci, int co, int H, int W, const float *K, const float *bias, mpfr_t *lo, mpfr_t *hi,
                     mpfr_t *olo, mpfr_t *ohi)
{
    mpfr_t t;
    mpfr_init2(t, 256);
    for (int o = 0; o < co; o++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int j = (o * H + y) * W + x;
                mpfr_set_d(olo[j], bias[o], MPFR_RNDD);
                mpfr_set_d(ohi[j], bias[o], MPFR_RNDU);
                for (int c = 0; c < ci; c++)
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++) {
                            int iy = y + ky - 1, ix = x + kx - 1;
                            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                            int i = (c * H + iy) * W + ix;
                            double w = K[((o * ci + c) * 3 + ky) * 3 + kx];
                            mpfr_mul_d(t, w >= 0 ? lo[i] : hi[i], w, MPFR_RNDD);
                            mpfr_add(olo[j], olo[j], t, MPFR_RNDD);
                            mpfr_mul_d(t, w >= 0 ? hi[i] : lo[i], w, MPFR_RNDU);
                            mpfr_add(ohi[j], ohi[j], t, MPFR_RNDU);
                        }
            }
    mpfr_clear(t);
}

static void free_vec(mpfr_t *v, int n)
{
    for (int j = 0; j < n; j++) mpfr_clear(v[j]);
    free(v);
}

/* A random box of n0 inputs (radius up to 0.5 on every third trial, else
 * 0.05; lo and hi malloc'd) and a bound engine of m with its IBP bounds. */
static nnc_bnd *box_and_ibp(const nnc_model *m, int n0, int trial, double **lo, double **hi)
{
    char err[NNC_ERRBUF_SIZE];
    *lo = malloc(sizeof(double) * (size_t)n0);
    *hi = malloc(sizeof(double) * (size_t)n0);
    for (int i = 0; i < n0; i++) {
        double c = urand() * 2 - 1, r = urand() * (trial % 3 == 0 ? 0.5 : 0.05);
        (*lo)[i] = c - r;
        (*hi)[i] = c + r;
    }
    nnc_bnd *b;
    ck_assert_msg(nnc_bnd_create(&b, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(nnc_bnd_compute(b, *lo, *hi, 0), NNC_STATUS_OK);
    return b;
}

/* CROWN on [lo, hi] (n_out <= 4 outputs): the objectives C (2 n_out rows:
 * y_j, then y_0 - y_j) and their lower bounds, and the output bounds. */
static void crown_outputs(nnc_bnd *b, const double *lo, const double *hi, int n_out, double *C, double *lower,
                          double *clo, double *chi)
{
    double d[8] = {0};
    memset(C, 0, sizeof(double) * (size_t)(2 * n_out * n_out));
    for (int j = 0; j < n_out; j++) {
        C[j * n_out + j] = 1;
        C[(n_out + j) * n_out + 0] += 1;
        C[(n_out + j) * n_out + j] -= 1;
    }
    ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_bnd_linear_lower(b, 2 * n_out, C, d, lower, NULL), NNC_STATUS_OK);
    memcpy(clo, nnc_bnd_out_lo(b), sizeof(double) * (size_t)n_out);
    memcpy(chi, nnc_bnd_out_hi(b), sizeof(double) * (size_t)n_out);
}

START_TEST(test_random_residual_convnets)
{
    char err[NNC_ERRBUF_SIZE];
    for (int trial = 0; trial < 12; trial++) {
        int C0 = 1 + rnd_below(2), C1 = 2 + rnd_below(2), H = 4 + 2 * rnd_below(2), W = 4 + 2 * rnd_below(2), n3 = 2 + rnd_below(3);
        int HW = H * W, P = C1 * (H / 2) * (W / 2);
        float *K1 = malloc(sizeof(float) * (size_t)(C1 * C0 * 9)), *b1 = malloc(sizeof(float) * (size_t)C1);
        float *K2 = malloc(sizeof(float) * (size_t)(C1 * C1 * 9)), *b2 = malloc(sizeof(float) * (size_t)C1);
        float *W3 = malloc(sizeof(float) * (size_t)(n3 * P)), *b3 = malloc(sizeof(float) * (size_t)n3);
        for (int k = 0; k < C1 * C0 * 9; k++) K1[k] = (float)(urand() - 0.5);
        for (int k = 0; k < C1 * C1 * 9; k++) K2[k] = (float)(urand() - 0.5);
        for (int k = 0; k < n3 * P; k++) W3[k] = (float)(urand() * 2 - 1);
        for (int k = 0; k < C1; k++) b1[k] = (float)(urand() - 0.5), b2[k] = (float)(urand() - 0.5);
        for (int k = 0; k < n3; k++) b3[k] = (float)(urand() - 0.5);
        static const char *c1i[3] = {"x", "K1", "b1"}, *c1o[1] = {"h1"}, *r1i[1] = {"h1"}, *r1o[1] = {"a1"};
        static const char *c2i[3] = {"a1", "K2", "b2"}, *c2o[1] = {"h2"}, *ai[2] = {"h2", "a1"}, *ao[1] = {"s"};
        static const char *r2i[1] = {"s"}, *r2o[1] = {"a2"}, *pi[1] = {"a2"}, *po[1] = {"p"}, *fi[1] = {"p"}, *fo[1] = {"f"};
        static const char *gi[3] = {"f", "W3", "b3"}, *go[1] = {"y"};
        int64_t xd[4] = {1, C0, H, W}, k1d[4] = {C1, C0, 3, 3}, b1d[1] = {C1}, k2d[4] = {C1, C1, 3, 3}, w3d[2] = {n3, P},
                b3d[1] = {n3};
        static const int64_t pads[4] = {1, 1, 1, 1}, k22[2] = {2, 2};
        mb bld;
        mb_init(&bld, 13);
        mb_input(&bld, "x", 4, xd);
        mb_output(&bld, "y");
        bld.inits[0] = tensor_floats("K1", 4, k1d, K1, (size_t)(C1 * C0 * 9));
        bld.inits[1] = tensor_floats("b1", 1, b1d, b1, (size_t)C1);
        bld.inits[2] = tensor_floats("K2", 4, k2d, K2, (size_t)(C1 * C1 * 9));
        bld.inits[3] = tensor_floats("b2", 1, b1d, b2, (size_t)C1);
        bld.inits[4] = tensor_floats("W3", 2, w3d, W3, (size_t)(n3 * P));
        bld.inits[5] = tensor_floats("b3", 1, b3d, b3, (size_t)n3);
        bld.graph.n_initializer = 6;
        bld.nodes[0] = node("Conv", "c1", 3, c1i, 1, c1o);
        node_attr(bld.nodes[0], attr_ints("pads", 4, pads));
        bld.nodes[1] = node("Relu", "r1", 1, r1i, 1, r1o);
        bld.nodes[2] = node("Conv", "c2", 3, c2i, 1, c2o);
        node_attr(bld.nodes[2], attr_ints("pads", 4, pads));
        bld.nodes[3] = node("Add", "add", 2, ai, 1, ao);
        bld.nodes[4] = node("Relu", "r2", 1, r2i, 1, r2o);
        bld.nodes[5] = node("AveragePool", "pool", 1, pi, 1, po);
        node_attr(bld.nodes[5], attr_ints("kernel_shape", 2, k22));
        node_attr(bld.nodes[5], attr_ints("strides", 2, k22));
        bld.nodes[6] = node("Flatten", "flat", 1, fi, 1, fo);
        bld.nodes[7] = node("Gemm", "g", 3, gi, 1, go);
        node_attr(bld.nodes[7], attr_int("transB", 1));
        bld.graph.n_node = 8;
        nnc_model *m;
        ck_assert_msg(mb_load(&bld, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        int n0 = C0 * HW;
        double *lo, *hi;
        nnc_bnd *b = box_and_ibp(m, n0, trial, &lo, &hi);
        /* the MPFR reference: the same interval arithmetic, exact up to directed rounding */
        mpfr_t *xl = mp_vec(n0), *xh = mp_vec(n0), *l1 = mp_vec(C1 * HW), *h1 = mp_vec(C1 * HW), *l2 = mp_vec(C1 * HW),
               *h2 = mp_vec(C1 * HW), *pl = mp_vec(P), *ph = mp_vec(P), *yl = mp_vec(n3), *yh = mp_vec(n3);
        for (int i = 0; i < n0; i++) {
            mpfr_set_d(xl[i], lo[i], MPFR_RNDD);
            mpfr_set_d(xh[i], hi[i], MPFR_RNDU);
        }
        mp_conv3(C0, C1, H, W, K1, b1, xl, xh, l1, h1);
        mp_act(0, C1 * HW, l1, MPFR_RNDD);
        mp_act(0, C1 * HW, h1, MPFR_RNDU);
        mp_conv3(C1, C1, H, W, K2, b2, l1, h1, l2, h2);
        for (int j = 0; j < C1 * HW; j++) { /* the residual: s = conv2(a1) + a1 */
            mpfr_add(l2[j], l2[j], l1[j], MPFR_RNDD);
            mpfr_add(h2[j], h2[j], h1[j], MPFR_RNDU);
        }
        mp_act(0, C1 * HW, l2, MPFR_RNDD);
        mp_act(0, C1 * HW, h2, MPFR_RNDU);
        for (int c = 0; c < C1; c++) /* 2x2 average pool, stride 2 */
            for (int y = 0; y < H / 2; y++)
                for (int x = 0; x < W / 2; x++) {
                    int j = (c * (H / 2) + y) * (W / 2) + x;
                    mpfr_set_zero(pl[j], 1);
                    mpfr_set_zero(ph[j], 1);
                    for (int dy = 0; dy < 2; dy++)
                        for (int dx = 0; dx < 2; dx++) {
                            int i = (c * H + 2 * y + dy) * W + 2 * x + dx;
                            mpfr_add(pl[j], pl[j], l2[i], MPFR_RNDD);
                            mpfr_add(ph[j], ph[j], h2[i], MPFR_RNDU);
                        }
                    mpfr_div_ui(pl[j], pl[j], 4, MPFR_RNDD);
                    mpfr_div_ui(ph[j], ph[j], 4, MPFR_RNDU);
                }
        mp_affine(n3, P, W3, b3, pl, ph, yl, yh);
        expect_ibp_matches_mpfr(b, trial, n3, yl, yh);
        double olo[4], ohi[4];
        memcpy(olo, nnc_bnd_out_lo(b), sizeof(double) * (size_t)n3);
        memcpy(ohi, nnc_bnd_out_hi(b), sizeof(double) * (size_t)n3);
        /* CROWN: the outputs and their differences against 2 * 10^4 samples */
        int nobj = 2 * n3;
        double C[2 * 4 * 4], lower[8], clo[4], chi[4];
        crown_outputs(b, lo, hi, n3, C, lower, clo, chi);
        for (int j = 0; j < n3; j++) ck_assert(clo[j] >= olo[j] - 1e-9 && chi[j] <= ohi[j] + 1e-9);
        expect_samples_inside(m, trial, 20, n0, lo, hi, n3, clo, chi, nobj, C, lower);
        free(lo); free(hi);
        nnc_bnd_destroy(b);
        nnc_mdl_destroy(m);
        free_vec(xl, n0); free_vec(xh, n0);
        free_vec(l1, C1 * HW); free_vec(h1, C1 * HW); free_vec(l2, C1 * HW); free_vec(h2, C1 * HW);
        free_vec(pl, P); free_vec(ph, P); free_vec(yl, n3); free_vec(yh, n3);
        free(K1); free(b1); free(K2); free(b2); free(W3); free(b3);
    }
}
END_TEST

/* conv geometry: stride, asymmetric pads, dilation, groups */
typedef struct cgeo {
    int C, H, W, M, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW, G, OH, OW;
} cgeo;

static void random_cgeo(cgeo *g, int C)
{
    for (;;) {
        g->C = C;
        g->G = (C % 2 == 0 && rnd_below(2)) ? 2 : 1;
        g->M = g->G * (1 + rnd_below(3));
        g->H = 5 + rnd_below(5);
        g->W = 5 + rnd_below(5);
        g->KH = 1 + rnd_below(3);
        g->KW = 1 + rnd_below(3);
        g->SH = 1 + rnd_below(3);
        g->SW = 1 + rnd_below(3);
        g->PT = rnd_below(3);
        g->PL = rnd_below(3);
        g->PB = rnd_below(3);
        g->PR = rnd_below(3);
        g->DH = 1 + rnd_below(2);
        g->DW = 1 + rnd_below(2);
        int eh = g->H + g->PT + g->PB - g->DH * (g->KH - 1) - 1, ew = g->W + g->PL + g->PR - g->DW * (g->KW - 1) - 1;
        if (eh < 0 || ew < 0) continue;
        g->OH = eh / g->SH + 1;
        g->OW = ew / g->SW + 1;
        return;
    }
}

/* MPFR interval image of the convolution g (weights K [M][C/G][KH][KW]). */
static void mp_conv(const cgeo *g, const float *K, const float *bias, mpfr_t *lo, mpfr_t *hi, mpfr_t *olo, mpfr_t *ohi)
{
    mpfr_t t;
    mpfr_init2(t, 256);
    int cg = g->C / g->G, mg = g->M / g->G;
    for (int o = 0; o < g->M; o++)
        for (int y = 0; y < g->OH; y++)
            for (int x = 0; x < g->OW; x++) {
                int j = (o * g->OH + y) * g->OW + x;
                mpfr_set_d(olo[j], bias[o], MPFR_RNDD);
                mpfr_set_d(ohi[j], bias[o], MPFR_RNDU);
                for (int c = 0; c < cg; c++)
                    for (int ky = 0; ky < g->KH; ky++)
                        for (int kx = 0; kx < g->KW; kx++) {
                            int iy = y * g->SH - g->PT + ky * g->DH, ix = x * g->SW - g->PL + kx * g->DW;
                            if (iy < 0 || iy >= g->H || ix < 0 || ix >= g->W) continue;
                            int i = (((o / mg) * cg + c) * g->H + iy) * g->W + ix;
                            double w = K[((o * cg + c) * g->KH + ky) * g->KW + kx];
                            mpfr_mul_d(t, w >= 0 ? lo[i] : hi[i], w, MPFR_RNDD);
                            mpfr_add(olo[j], olo[j], t, MPFR_RNDD);
                            mpfr_mul_d(t, w >= 0 ? hi[i] : lo[i], w, MPFR_RNDU);
                            mpfr_add(ohi[j], ohi[j], t, MPFR_RNDU);
                        }
            }
    mpfr_clear(t);
}

static Onnx__NodeProto *conv_node(const char *name, const char **in, const char **out, const cgeo *g)
{
    int64_t ks[2] = {g->KH, g->KW}, st[2] = {g->SH, g->SW}, pd[4] = {g->PT, g->PL, g->PB, g->PR}, dl[2] = {g->DH, g->DW};
    Onnx__NodeProto *n = node("Conv", name, 3, in, 1, out);
    node_attr(n, attr_ints("kernel_shape", 2, ks));
    node_attr(n, attr_ints("strides", 2, st));
    node_attr(n, attr_ints("pads", 4, pd));
    node_attr(n, attr_ints("dilations", 2, dl));
    node_attr(n, attr_int("group", g->G));
    return n;
}

/* Conv -> ReLU -> Conv -> Flatten -> Gemm with random strides, asymmetric
 * pads, dilations and groups: IBP against the MPFR reference, samples inside
 * CROWN, and on one-point boxes (every ReLU stable, the bounds exact up to
 * rounding) the CROWN bounds bracket the runtime's output tightly, which
 * checks the index arithmetic of both directions of every conv path. */
START_TEST(test_conv_geometries)
{
    char err[NNC_ERRBUF_SIZE];
    for (int trial = 0; trial < 24; trial++) {
        cgeo g1, g2;
        random_cgeo(&g1, trial >= 22 ? 12 : 1 + rnd_below(4));
        if (trial >= 22) { /* more columns than one block of conv_gemm's scratch */
            g1.H = g1.W = 40;
            g1.KH = g1.KW = 3;
            g1.SH = g1.SW = 1;
            g1.DH = g1.DW = 1;
            g1.PT = g1.PL = g1.PB = g1.PR = 1;
            g1.OH = g1.OW = 40;
        }
        random_cgeo(&g2, g1.M);
        g2.H = g1.OH;
        g2.W = g1.OW;
        { /* the second conv's output size on the first one's output */
            int eh = g2.H + g2.PT + g2.PB - g2.DH * (g2.KH - 1) - 1, ew = g2.W + g2.PL + g2.PR - g2.DW * (g2.KW - 1) - 1;
            if (eh < 0 || ew < 0) g2.KH = g2.KW = g2.DH = g2.DW = 1, eh = g2.H + g2.PT + g2.PB - 1, ew = g2.W + g2.PL + g2.PR - 1;
            g2.OH = eh / g2.SH + 1;
            g2.OW = ew / g2.SW + 1;
        }
        int n0 = g1.C * g1.H * g1.W, n1 = g1.M * g1.OH * g1.OW, n2 = g2.M * g2.OH * g2.OW, n3 = 2 + rnd_below(3);
        int k1n = g1.M * (g1.C / g1.G) * g1.KH * g1.KW, k2n = g2.M * (g2.C / g2.G) * g2.KH * g2.KW;
        float *K1 = malloc(sizeof(float) * (size_t)k1n), *b1 = malloc(sizeof(float) * (size_t)g1.M);
        float *K2 = malloc(sizeof(float) * (size_t)k2n), *b2 = malloc(sizeof(float) * (size_t)g2.M);
        float *W3 = malloc(sizeof(float) * (size_t)(n3 * n2)), *b3 = malloc(sizeof(float) * (size_t)n3);
        for (int k = 0; k < k1n; k++) K1[k] = (float)(urand() - 0.5);
        for (int k = 0; k < k2n; k++) K2[k] = (float)(urand() - 0.5);
        for (int k = 0; k < n3 * n2; k++) W3[k] = (float)(urand() * 2 - 1);
        for (int k = 0; k < g1.M; k++) b1[k] = (float)(urand() - 0.5);
        for (int k = 0; k < g2.M; k++) b2[k] = (float)(urand() - 0.5);
        for (int k = 0; k < n3; k++) b3[k] = (float)(urand() - 0.5);
        static const char *c1i[3] = {"x", "K1", "b1"}, *c1o[1] = {"h1"}, *r1i[1] = {"h1"}, *r1o[1] = {"a1"};
        static const char *c2i[3] = {"a1", "K2", "b2"}, *c2o[1] = {"h2"}, *fi[1] = {"h2"}, *fo[1] = {"f"};
        static const char *gi[3] = {"f", "W3", "b3"}, *go[1] = {"y"};
        int64_t xd[4] = {1, g1.C, g1.H, g1.W}, k1d[4] = {g1.M, g1.C / g1.G, g1.KH, g1.KW}, b1d[1] = {g1.M},
                k2d[4] = {g2.M, g2.C / g2.G, g2.KH, g2.KW}, b2d[1] = {g2.M}, w3d[2] = {n3, n2}, b3d[1] = {n3};
        mb bld;
        mb_init(&bld, 13);
        mb_input(&bld, "x", 4, xd);
        mb_output(&bld, "y");
        bld.inits[0] = tensor_floats("K1", 4, k1d, K1, (size_t)k1n);
        bld.inits[1] = tensor_floats("b1", 1, b1d, b1, (size_t)g1.M);
        bld.inits[2] = tensor_floats("K2", 4, k2d, K2, (size_t)k2n);
        bld.inits[3] = tensor_floats("b2", 1, b2d, b2, (size_t)g2.M);
        bld.inits[4] = tensor_floats("W3", 2, w3d, W3, (size_t)(n3 * n2));
        bld.inits[5] = tensor_floats("b3", 1, b3d, b3, (size_t)n3);
        bld.graph.n_initializer = 6;
        bld.nodes[0] = conv_node("c1", c1i, c1o, &g1);
        bld.nodes[1] = node("Relu", "r1", 1, r1i, 1, r1o);
        bld.nodes[2] = conv_node("c2", c2i, c2o, &g2);
        bld.nodes[3] = node("Flatten", "flat", 1, fi, 1, fo);
        bld.nodes[4] = node("Gemm", "g", 3, gi, 1, go);
        node_attr(bld.nodes[4], attr_int("transB", 1));
        bld.graph.n_node = 5;
        nnc_model *m;
        ck_assert_msg(mb_load(&bld, &m, err, sizeof err) == NNC_STATUS_OK, "seed %llu trial %d: %s", (unsigned long long)g_seed, trial, err);
        double *lo, *hi;
        nnc_bnd *b = box_and_ibp(m, n0, trial, &lo, &hi);
        mpfr_t *xl = mp_vec(n0), *xh = mp_vec(n0), *l1 = mp_vec(n1), *h1 = mp_vec(n1), *l2 = mp_vec(n2), *h2 = mp_vec(n2),
               *yl = mp_vec(n3), *yh = mp_vec(n3);
        for (int i = 0; i < n0; i++) {
            mpfr_set_d(xl[i], lo[i], MPFR_RNDD);
            mpfr_set_d(xh[i], hi[i], MPFR_RNDU);
        }
        mp_conv(&g1, K1, b1, xl, xh, l1, h1);
        mp_act(0, n1, l1, MPFR_RNDD);
        mp_act(0, n1, h1, MPFR_RNDU);
        mp_conv(&g2, K2, b2, l1, h1, l2, h2);
        mp_affine(n3, n2, W3, b3, l2, h2, yl, yh);
        expect_ibp_matches_mpfr(b, trial, n3, yl, yh);
        /* CROWN on the box: samples inside */
        int nobj = 2 * n3;
        double C[2 * 4 * 4], d[8] = {0}, lower[8], clo[4], chi[4];
        crown_outputs(b, lo, hi, n3, C, lower, clo, chi);
        expect_samples_inside(m, trial, 5, n0, lo, hi, n3, clo, chi, nobj, C, lower);
        /* one-point boxes: CROWN brackets the runtime's value within rounding */
        nnc_runtime *rt;
        ck_assert_int_eq(nnc_rt_create(&rt, m, NNC_PRECISION_F64, 1, err, sizeof err), NNC_STATUS_OK);
        for (int pt = 0; pt < 4; pt++) {
            for (int i = 0; i < n0; i++) lo[i] = hi[i] = urand() * 2 - 1;
            double y[4];
            const void *in[1] = {lo};
            void *out[1] = {y};
            ck_assert_int_eq(nnc_rt_run(rt, 1, in, out, err, sizeof err), NNC_STATUS_OK);
            ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
            ck_assert_int_eq(nnc_bnd_linear_lower(b, nobj, C, d, lower, NULL), NNC_STATUS_OK);
            const double *ol = nnc_bnd_out_lo(b), *oh = nnc_bnd_out_hi(b);
            for (int j = 0; j < n3; j++) {
                /* the rounding allowance grows with the net (GAMMA ~ its
                 * largest value): 2e-7 on the 19200-input trials; a wrong
                 * index moves a bound by far more */
                double tol = 1e-6 * (1 + fabs(y[j]));
                ck_assert_msg(ol[j] <= y[j] + 1e-12 * (1 + fabs(y[j])) && oh[j] >= y[j] - 1e-12 * (1 + fabs(y[j])),
                              "seed %llu trial %d: output %.17g outside [%.17g, %.17g]", (unsigned long long)g_seed, trial, y[j], ol[j], oh[j]);
                ck_assert_msg(oh[j] - ol[j] <= tol, "seed %llu trial %d: point bounds [%.17g, %.17g] around %.17g", (unsigned long long)g_seed,
                              trial, ol[j], oh[j], y[j]);
                ck_assert_msg(fabs(lower[j] - y[j]) <= tol, "seed %llu trial %d: objective %d bound %.17g, value %.17g",
                              (unsigned long long)g_seed, trial, j, lower[j], y[j]);
            }
        }
        nnc_rt_destroy(rt);
        free(lo); free(hi);
        nnc_bnd_destroy(b);
        nnc_mdl_destroy(m);
        free_vec(xl, n0); free_vec(xh, n0); free_vec(l1, n1); free_vec(h1, n1); free_vec(l2, n2); free_vec(h2, n2);
        free_vec(yl, n3); free_vec(yh, n3);
        free(K1); free(b1); free(K2); free(b2); free(W3); free(b3);
    }
}
END_TEST

/* The zoo CNN (Conv, folded BatchNorm, MaxPool, Gemm) on a small box around
 * the sample image: samples inside the bounds. */
START_TEST(test_zoo_cnn_samples)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    ck_assert_int_eq(nnc_mdl_load(&m, "models/zoo/cnn.onnx", err, sizeof err), NNC_STATUS_OK);
    nnc_inputs in;
    ck_assert_int_eq(nnc_mdl_read_inputs(m, "models/zoo/sample_input.json", &in, err, sizeof err), NNC_STATUS_OK);
    double lo[784], hi[784];
    for (int i = 0; i < 784; i++) {
        lo[i] = fmax(0.0, in.data[0][i] - 0.01);
        hi[i] = fmin(1.0, in.data[0][i] + 0.01);
    }
    nnc_bnd *b;
    ck_assert_msg(nnc_bnd_create(&b, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
    const double *olo = nnc_bnd_out_lo(b), *ohi = nnc_bnd_out_hi(b);
    nnc_runtime *rt;
    int batch = 200;
    ck_assert_int_eq(nnc_rt_create(&rt, m, NNC_PRECISION_F64, batch, err, sizeof err), NNC_STATUS_OK);
    double *xs = malloc(sizeof(double) * 784 * (size_t)batch), ys[2000];
    for (int rep = 0; rep < 10; rep++) {
        for (int s = 0; s < batch; s++)
            for (int i = 0; i < 784; i++) xs[s * 784 + i] = lo[i] + urand() * (hi[i] - lo[i]);
        const void *ip[1] = {xs};
        void *op[1] = {ys};
        ck_assert_int_eq(nnc_rt_run(rt, batch, ip, op, err, sizeof err), NNC_STATUS_OK);
        for (int k = 0; k < batch * 10; k++)
            if (!(ys[k] >= olo[k % 10] && ys[k] <= ohi[k % 10])) ck_abort_msg("sample %d output %d outside its bounds", k / 10, k % 10);
    }
    /* the label's margin is certified positive for so small a box? just check ordering sanity */
    for (int j = 0; j < 10; j++) ck_assert(olo[j] <= ohi[j]);
    free(xs);
    nnc_rt_destroy(rt);
    nnc_bnd_destroy(b);
    nnc_inputs_clear(&in);
    nnc_mdl_destroy(m);
}
END_TEST

/* A branching network: two Gemm branches (ReLU, Tanh) joined by Concat with
 * a constant block, then Add of a third branch, then a Gemm: samples lie
 * inside the bounds. */
START_TEST(test_concat_and_add_branches)
{
    static float W1[12], b1[4], W2[9], b2[3], W3[16], b3[4], W4[24], b4[3], C[1] = {0.5f};
    float *ws[8] = {W1, b1, W2, b2, W3, b3, W4, b4};
    int sz[8] = {12, 4, 9, 3, 16, 4, 24, 3};
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < sz[k]; j++) ws[k][j] = (float)(urand() * 2 - 1);
    static const char *g1i[3] = {"x", "W1", "b1"}, *g1o[1] = {"h1"}, *r1i[1] = {"h1"}, *r1o[1] = {"a1"};
    static const char *g2i[3] = {"x", "W2", "b2"}, *g2o[1] = {"h2"}, *t2i[1] = {"h2"}, *t2o[1] = {"a2"};
    static const char *ci[3] = {"a1", "a2", "C"}, *co[1] = {"cat"};       /* 4 + 3 + 1 = 8 */
    static const char *g3i[3] = {"cat", "W3", "b3"}, *g3o[1] = {"h3"};     /* 8 -> 2 */
    static const char *g4i[3] = {"x", "W4", "b4"}, *g4o[1] = {"h4"};
    static const char *ai[2] = {"h3", "h4"}, *ao[1] = {"y"}; /* [1,2] + [1,2] */
    int64_t xd[2] = {1, 3}, w1d[2] = {4, 3}, b1d[1] = {4}, w2d[2] = {3, 3}, b2d[1] = {3}, cd[2] = {1, 1}, w3d[2] = {2, 8},
            b3d[1] = {2}, w4d[2] = {2, 3}, b4d[1] = {2};
    mb m;
    mb_init(&m, 13);
    mb_input(&m, "x", 2, xd);
    mb_output(&m, "y");
    m.inits[0] = tensor_floats("W1", 2, w1d, W1, 12);
    m.inits[1] = tensor_floats("b1", 1, b1d, b1, 4);
    m.inits[2] = tensor_floats("W2", 2, w2d, W2, 9);
    m.inits[3] = tensor_floats("b2", 1, b2d, b2, 3);
    m.inits[4] = tensor_floats("C", 2, cd, C, 1);
    m.inits[5] = tensor_floats("W3", 2, w3d, W3, 16);
    m.inits[6] = tensor_floats("b3", 1, b3d, b3, 2);
    m.inits[7] = tensor_floats("W4", 2, w4d, W4, 6);
    m.inits[8] = tensor_floats("b4", 1, b4d, b4, 2);
    m.graph.n_initializer = 9;
    Onnx__NodeProto *nodes[7] = {node("Gemm", "g1", 3, g1i, 1, g1o), node("Relu", "r1", 1, r1i, 1, r1o),
                                 node("Gemm", "g2", 3, g2i, 1, g2o), node("Tanh", "t2", 1, t2i, 1, t2o),
                                 node("Concat", "cat", 3, ci, 1, co), node("Gemm", "g3", 3, g3i, 1, g3o),
                                 node("Gemm", "g4", 3, g4i, 1, g4o)};
    for (int k = 0; k < 7; k++) {
        if (k == 0 || k == 2 || k == 5 || k == 6) node_attr(nodes[k], attr_int("transB", 1));
        m.nodes[k] = nodes[k];
    }
    node_attr(nodes[4], attr_int("axis", 1));
    m.nodes[7] = node("Add", "add", 2, ai, 1, ao);
    m.graph.n_node = 8;
    nnc_model *model;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&m, &model, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_bnd *b;
    ck_assert_msg(nnc_bnd_create(&b, model, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    double lo[3] = {-0.4, 0.1, -1}, hi[3] = {0.2, 0.6, 0.3};
    ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
    double olo[2], ohi[2], Cm[4] = {1, -1, -1, 1}, d[2] = {0, 0}, lw[2];
    memcpy(olo, nnc_bnd_out_lo(b), sizeof olo);
    memcpy(ohi, nnc_bnd_out_hi(b), sizeof ohi);
    ck_assert_int_eq(nnc_bnd_linear_lower(b, 2, Cm, d, lw, NULL), NNC_STATUS_OK);
    nnc_runtime *rt;
    ck_assert_int_eq(nnc_rt_create(&rt, model, NNC_PRECISION_F64, 1000, err, sizeof err), NNC_STATUS_OK);
    double xs[3000], ys[2000];
    for (int rep = 0; rep < 50; rep++) {
        for (int k = 0; k < 3000; k++) xs[k] = lo[k % 3] + urand() * (hi[k % 3] - lo[k % 3]);
        const void *ip[1] = {xs};
        void *op[1] = {ys};
        ck_assert_int_eq(nnc_rt_run(rt, 1000, ip, op, err, sizeof err), NNC_STATUS_OK);
        for (int s2 = 0; s2 < 1000; s2++) {
            const double *y = ys + 2 * s2;
            if (!(y[0] >= olo[0] && y[0] <= ohi[0] && y[1] >= olo[1] && y[1] <= ohi[1])) ck_abort_msg("sample outside the bounds");
            if (!(y[0] - y[1] >= lw[0] - 1e-12 && y[1] - y[0] >= lw[1] - 1e-12)) ck_abort_msg("objective below its bound");
        }
    }
    nnc_rt_destroy(rt);
    nnc_bnd_destroy(b);
    nnc_mdl_destroy(model);
}
END_TEST

int main(void)
{
    harness_seed("test_bounds");
    Suite *su = suite_create("bounds");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_networks);
    tcase_add_test(tc, test_zoo_cnn_samples);
    tcase_add_test(tc, test_concat_and_add_branches);
    tcase_add_test(tc, test_random_residual_convnets);
    tcase_add_test(tc, test_conv_geometries);
    suite_add_tcase(su, tc);
    return check_main_run(su);
}
