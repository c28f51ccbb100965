/* Bound refinement (verifier/alpha.c, verifier/relusplit.c and the hooks in
 * verifier/bounds.c), on random ReLU / LeakyReLU networks:
 *  - any lower slopes in [0, 1]: the objective bounds are below the exact
 *    objective (MPFR, 256 bits) at sampled points and box corners;
 *  - the slope gradient matches finite differences of the bound;
 *  - alpha-CROWN never loosens CROWN and tightens it on some networks;
 *  - random ReLU split assignments: the bounds hold for every sampled point
 *    that satisfies the splits, and "infeasible" only when none does;
 *  - ReLU-split branch and bound, per sub-problem (relusplit.c) and batched
 *    (babdense.c), never certifies a property that sampling shows violated,
 *    and certifies more than CROWN alone;
 *  - convolutional ReLU chains: the chain extracted with its linear nodes
 *    composed computes the model, and the batched search on it is sound. */
#include "common/isa.h"
#include "nncert/model.h"
#include "tests/unit/harness.h"
#include "tests/unit/onnx_builder.h"
#include "verifier/refine_impl.h"
#include "verifier/sample_impl.h"

#include <check.h>
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Deadlines of the searches here: far enough that none stops on time (each
 * is bounded by its node, step or split budget), so that what the tests
 * compare (the same tree on 1 and 3 threads, on two instruction-set paths)
 * does not depend on the machine's speed; under qemu-user (make test-arm64)
 * this suite runs 10-50 times slower than on the host. */
#define FAR_S 600

#define MAXW 12

/* x -> Gemm -> act -> Gemm -> act -> Gemm -> y; act ReLU, LeakyReLU(0.2),
 * Sigmoid or Tanh. */
typedef struct mlp {
    int w[4];     /* widths: input, hidden, hidden, output */
    int leaky;
    int smooth;   /* 1 Sigmoid, 2 Tanh (then leaky is ignored) */
    int norm;     /* the input first becomes (x - mean) / sd (Sub, Div by scalars) */
    int out_relu; /* a ReLU after the output layer */
    float mean, sd;
    float W[3][MAXW * MAXW], bias[3][MAXW];
} mlp;

static nnc_model *mlp_build(mlp *t)
{
    t->w[0] = 2 + rnd_below(3);
    t->w[1] = 4 + rnd_below(8);
    t->w[2] = 4 + rnd_below(8);
    t->w[3] = 2 + rnd_below(3);
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < t->w[k + 1]; j++) {
            t->bias[k][j] = (float)(urand() - 0.5);
            for (int i = 0; i < t->w[k]; i++) t->W[k][j * t->w[k] + i] = (float)(urand() * 2 - 1);
        }
    static const char *names[3][3] = {{"x", "W0", "b0"}, {"a1", "W1", "b1"}, {"a2", "W2", "b2"}};
    static const char *gout[3][1] = {{"h1"}, {"h2"}, {"y"}}, *ain[2][1] = {{"h1"}, {"h2"}}, *aout[2][1] = {{"a1"}, {"a2"}};
    static const char *wn[3] = {"W0", "W1", "W2"}, *bn[3] = {"b0", "b1", "b2"};
    static const char *names0[3] = {"xn", "W0", "b0"}, *ylin[1] = {"ylin"}, *yout[1] = {"y"};
    mb b;
    mb_init(&b, 13);
    int64_t xd[2] = {1, t->w[0]};
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    int nn = 0;
    if (t->norm) {
        t->mean = (float)(urand() - 0.5);
        t->sd = (float)(0.3 + urand());
        int64_t one[1] = {1};
        static const char *sin_[2] = {"x", "mean"}, *sout[1] = {"xc"}, *din[2] = {"xc", "sd"}, *dout[1] = {"xn"};
        b.inits[6] = tensor_floats("mean", 1, one, &t->mean, 1);
        b.inits[7] = tensor_floats("sd", 1, one, &t->sd, 1);
        b.nodes[nn++] = node("Sub", "norm_sub", 2, sin_, 1, sout);
        b.nodes[nn++] = node("Div", "norm_div", 2, din, 1, dout);
    }
    for (int k = 0; k < 3; k++) {
        int64_t wd[2] = {t->w[k + 1], t->w[k]}, bd[1] = {t->w[k + 1]};
        b.inits[2 * k] = tensor_floats(wn[k], 2, wd, t->W[k], (size_t)(t->w[k + 1] * t->w[k]));
        b.inits[2 * k + 1] = tensor_floats(bn[k], 1, bd, t->bias[k], (size_t)t->w[k + 1]);
        Onnx__NodeProto *g = node("Gemm", wn[k], 3, k == 0 && t->norm ? names0 : names[k], 1,
                                  k == 2 && t->out_relu ? ylin : gout[k]);
        node_attr(g, attr_int("transB", 1));
        b.nodes[nn++] = g;
        if (k < 2) {
            const char *op = t->smooth == 1 ? "Sigmoid" : t->smooth == 2 ? "Tanh" : t->leaky ? "LeakyRelu" : "Relu";
            Onnx__NodeProto *a = node(op, bn[k], 1, ain[k], 1, aout[k]);
            if (t->leaky && !t->smooth) node_attr(a, attr_float("alpha", 0.2f));
            b.nodes[nn++] = a;
        }
    }
    if (t->out_relu) b.nodes[nn++] = node("Relu", "out_relu", 1, ylin, 1, yout);
    b.graph.n_initializer = t->norm ? 8 : 6;
    b.graph.n_node = nn;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return m;
}

/* Reference forward pass in MPFR at 256 bits (relative error far below
 * 2^-200 for these sizes, so it stands for exact arithmetic against the
 * 1e-12 tolerances below).  Out: y (rounded to nearest), pre_sign and pre
 * (pre-activations in flat neuron order), each optional. */
static void mlp_eval_exact(const mlp *t, const double *x, double *y, int *pre_sign, double *pre)
{
    mpfr_t a[MAXW], h[MAXW], p;
    mpfr_init2(p, 256);
    for (int i = 0; i < MAXW; i++) {
        mpfr_init2(a[i], 256);
        mpfr_init2(h[i], 256);
    }
    for (int i = 0; i < t->w[0]; i++) {
        mpfr_set_d(a[i], x[i], MPFR_RNDN);
        if (t->norm) {
            mpfr_sub_d(a[i], a[i], t->mean, MPFR_RNDN);
            mpfr_div_d(a[i], a[i], t->sd, MPFR_RNDN);
        }
    }
    int f = 0;
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < t->w[k + 1]; j++) {
            mpfr_set_d(h[j], t->bias[k][j], MPFR_RNDN);
            for (int i = 0; i < t->w[k]; i++) {
                mpfr_mul_d(p, a[i], t->W[k][j * t->w[k] + i], MPFR_RNDN);
                mpfr_add(h[j], h[j], p, MPFR_RNDN);
            }
        }
        for (int j = 0; j < t->w[k + 1]; j++) {
            if (k == 2) {
                y[j] = mpfr_get_d(h[j], MPFR_RNDN);
                if (t->out_relu && y[j] < 0) y[j] = 0;
                continue;
            }
            if (pre_sign) pre_sign[f] = mpfr_sgn(h[j]);
            if (pre) pre[f] = mpfr_get_d(h[j], MPFR_RNDN);
            f++;
            if (t->smooth == 1) { /* 1 / (1 + exp(-h)) */
                mpfr_neg(a[j], h[j], MPFR_RNDN);
                mpfr_exp(a[j], a[j], MPFR_RNDN);
                mpfr_add_ui(a[j], a[j], 1, MPFR_RNDN);
                mpfr_ui_div(a[j], 1, a[j], MPFR_RNDN);
            } else if (t->smooth == 2) {
                mpfr_tanh(a[j], h[j], MPFR_RNDN);
            } else if (mpfr_sgn(h[j]) < 0) {
                if (t->leaky) mpfr_mul_d(a[j], h[j], (double)0.2f, MPFR_RNDN);
                else mpfr_set_zero(a[j], 1);
            } else {
                mpfr_set(a[j], h[j], MPFR_RNDN);
            }
        }
    }
    mpfr_clear(p);
    for (int i = 0; i < MAXW; i++) {
        mpfr_clear(a[i]);
        mpfr_clear(h[i]);
    }
}

static void random_box(int n, double *lo, double *hi, double rmax)
{
    for (int i = 0; i < n; i++) {
        double c = urand() * 2 - 1, r = 0.01 + urand() * rmax;
        lo[i] = c - r;
        hi[i] = c + r;
    }
}

/* Point s of a test set: box corners first, then uniform points. */
static void test_point(int s, int n, const double *lo, const double *hi, double *x)
{
    for (int i = 0; i < n; i++) x[i] = s < (1 << n) ? ((s >> i) & 1 ? hi[i] : lo[i]) : lo[i] + urand() * (hi[i] - lo[i]);
}

static void random_objective(int no, double *C)
{
    for (int j = 0; j < no; j++) C[j] = urand() * 2 - 1;
}

/* Every test point of the box where neuron f's pre-activation is on side
 * (side 0: every point) has objective C . y >= lb, up to rounding. */
static void expect_bound_holds(const mlp *t, const double *lo, const double *hi, const double *C, double lb, int64_t f,
                               int side, int npts, int trial)
{
    double x[4], y[4], pre[2 * MAXW];
    for (int s = 0; s < npts; s++) {
        test_point(s, t->w[0], lo, hi, x);
        mlp_eval_exact(t, x, y, NULL, pre);
        if (side * pre[f] < 0) continue;
        double v = 0;
        for (int j = 0; j < t->w[3]; j++) v += C[j] * y[j];
        if (!(v >= lb - 1e-12 * (1 + fabs(v))))
            ck_abort_msg("seed %llu trial %d (neuron %lld side %d): objective %.17g below bound %.17g", (unsigned long long)g_seed, trial,
                         (long long)f, side, v, lb);
    }
}

START_TEST(test_any_slopes_sound)
{
    char err[NNC_ERRBUF_SIZE];
    int tried = 0;
    for (int trial = 0; trial < 30; trial++) {
        mlp t = {0};
        t.leaky = trial % 3 == 2;
        nnc_model *m = mlp_build(&t);
        nnc_bnd *b;
        ck_assert_int_eq(nnc_bnd_create(&b, m, err, sizeof err), NNC_STATUS_OK);
        double lo[4], hi[4], C[4], alpha[2 * MAXW], lb, rl[2 * MAXW], rh[2 * MAXW];
        random_box(t.w[0], lo, hi, 1.0);
        random_objective(t.w[3], C);
        ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
        int64_t nr = nnc_bnd_relu_count(b);
        ck_assert_int_eq(nr, t.w[1] + t.w[2]);
        for (int k = 0; k < 5; k++) {
            for (int64_t f = 0; f < nr; f++) alpha[f] = k == 0 ? 0 : k == 1 ? 1 : urand();
            nnc_bnd_set_slopes(b, alpha);
            ck_assert_int_eq(nnc_bnd_objective_grad(b, C, 0.0, &lb, NULL, NULL, NULL, NULL), NNC_STATUS_OK);
            ck_assert(isfinite(lb));
            expect_bound_holds(&t, lo, hi, C, lb, 0, 0, 400, trial);
        }
        /* the branching estimate (nnc_bnd_split_lower): the bound with one
         * neuron fixed to a side holds on that side's points of the box, the
         * relaxation is restored afterwards, and neurons out of range are
         * refused */
        ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
        nnc_bnd_relu_bounds(b, rl, rh);
        double l, l0, l1;
        ck_assert_int_eq(nnc_bnd_objective_grad(b, C, 0.0, &l0, NULL, NULL, NULL, NULL), NNC_STATUS_OK);
        ck_assert_int_eq(nnc_bnd_split_lower(b, C, nr, 1, &l), NNC_STATUS_ARG);
        ck_assert_int_eq(nnc_bnd_split_lower(b, C, -1, 1, &l), NNC_STATUS_ARG);
        for (int64_t f = 0; f < nr; f++) {
            if (!(rl[f] < 0 && rh[f] > 0)) continue;
            tried++;
            for (int side = -1; side <= 1; side += 2) {
                ck_assert_int_eq(nnc_bnd_split_lower(b, C, f, side, &l), NNC_STATUS_OK);
                ck_assert(!isnan(l));
                expect_bound_holds(&t, lo, hi, C, l, f, side, 300, trial);
            }
        }
        ck_assert_int_eq(nnc_bnd_objective_grad(b, C, 0.0, &l1, NULL, NULL, NULL, NULL), NNC_STATUS_OK);
        ck_assert(l0 == l1);
        nnc_bnd_destroy(b);
        nnc_mdl_destroy(m);
    }
    ck_assert_msg(tried > 20, "seed %llu: only %d unstable neurons tried", (unsigned long long)g_seed, tried);
}
END_TEST

/* Sigmoid and tanh nets: any line slopes give sound bounds (exact
 * evaluation), the slope gradient matches finite differences, and alpha on
 * the hidden layers (nnc_alpha_intermediate, on ReLU nets too) only narrows
 * intervals (never the first layer's, exact already), which keep holding every sampled pre-activation, and the
 * objective bound after it still holds. */
START_TEST(test_smooth_and_intermediate_sound)
{
    char err[NNC_ERRBUF_SIZE];
    int agree = 0, total = 0, narrowed_any = 0;
    for (int trial = 0; trial < 40; trial++) {
        mlp t = {0};
        t.smooth = trial % 4 < 2 ? 1 + trial % 2 : 0; /* sigmoid, tanh, relu, leaky */
        t.leaky = trial % 4 == 3;
        nnc_model *m = mlp_build(&t);
        nnc_bnd *b;
        ck_assert_int_eq(nnc_bnd_create(&b, m, err, sizeof err), NNC_STATUS_OK);
        double lo[4], hi[4], C[4], x[4], y[4], pre[2 * MAXW], lb;
        double ts[4 * MAXW], t2[4 * MAXW], g[4 * MAXW], dir[4 * MAXW];
        random_box(t.w[0], lo, hi, 1.5);
        random_objective(t.w[3], C);
        ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
        int64_t ns = nnc_bnd_smooth_count(b), nr = nnc_bnd_relu_count(b), nn = nr + ns;
        ck_assert_int_eq(nn, t.w[1] + t.w[2]);
        ck_assert_int_eq(ns, t.smooth ? nn : 0);
        /* the first hidden layer's pre-activations are an affine map of the
         * box (exact intervals, skipped by nnc_alpha_intermediate) */
        for (int64_t f = 0; f < nn; f++) ck_assert_int_eq(nnc_bnd_pre_exact(b, f), f < t.w[1]);
        if (t.smooth) {
            for (int k = 0; k < 4; k++) {
                for (int64_t f = 0; f < 2 * ns; f++) ts[f] = k == 0 ? 0 : k == 1 ? 1 : urand();
                nnc_bnd_set_smooth_slopes(b, ts);
                ck_assert_int_eq(nnc_bnd_objective_grad(b, C, 0.0, &lb, NULL, NULL, NULL, NULL), NNC_STATUS_OK);
                ck_assert(isfinite(lb));
                expect_bound_holds(&t, lo, hi, C, lb, 0, 0, 300, trial);
            }
            /* gradient against a finite difference, from interior slopes */
            double l0, l1, h = 1e-6, gd = 0;
            for (int64_t f = 0; f < 2 * ns; f++) {
                ts[f] = 0.2 + 0.6 * urand();
                dir[f] = urand() - 0.5;
            }
            nnc_bnd_set_smooth_slopes(b, ts);
            nnc_bnd_set_smooth_grad(b, g);
            ck_assert_int_eq(nnc_bnd_objective_grad(b, C, 0.0, &l0, NULL, NULL, NULL, NULL), NNC_STATUS_OK);
            nnc_bnd_set_smooth_grad(b, NULL);
            for (int64_t f = 0; f < 2 * ns; f++) {
                t2[f] = ts[f] + h * dir[f];
                gd += g[f] * dir[f];
            }
            nnc_bnd_set_smooth_slopes(b, t2);
            ck_assert_int_eq(nnc_bnd_objective_grad(b, C, 0.0, &l1, NULL, NULL, NULL, NULL), NNC_STATUS_OK);
            total++;
            if (fabs((l1 - l0) / h - gd) <= 1e-3 * (1 + fabs(gd))) agree++;
            ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
        }
        /* two passes, as verify runs them on sigmoid/tanh nets: the second
         * (twice the steps) starts from the bounds the first narrowed */
        for (int pass = 0; pass < 2; pass++) {
            double cl[2 * MAXW], ch[2 * MAXW];
            for (int64_t f = 0; f < nn; f++) nnc_bnd_pre_bounds(b, f, &cl[f], &ch[f]);
            int64_t narrowed = 0;
            ck_assert_int_eq(nnc_alpha_intermediate(b, 10 << pass, nnc_rfn_now() + FAR_S, &narrowed), NNC_STATUS_OK);
            if (pass == 0) narrowed_any += narrowed > 0;
            ck_assert(!nnc_bnd_infeasible(b));
            for (int64_t f = 0; f < nn; f++) {
                double l, u;
                nnc_bnd_pre_bounds(b, f, &l, &u);
                ck_assert_msg(l >= cl[f] && u <= ch[f], "seed %llu trial %d pass %d: neuron %lld widened", (unsigned long long)g_seed, trial, pass,
                              (long long)f);
                if (f < t.w[1]) ck_assert(l == cl[f] && u == ch[f]);
            }
            for (int s = 0; s < 300; s++) {
                test_point(s, t.w[0], lo, hi, x);
                mlp_eval_exact(&t, x, y, NULL, pre);
                for (int64_t f = 0; f < nn; f++) {
                    double l, u;
                    nnc_bnd_pre_bounds(b, f, &l, &u);
                    if (!(pre[f] >= l - 1e-12 * (1 + fabs(l)) && pre[f] <= u + 1e-12 * (1 + fabs(u))))
                        ck_abort_msg("seed %llu trial %d pass %d: neuron %lld pre-activation %.17g outside [%.17g, %.17g]", (unsigned long long)g_seed,
                                     trial, pass, (long long)f, pre[f], l, u);
                }
            }
            ck_assert_int_eq(nnc_bnd_objective_grad(b, C, 0.0, &lb, NULL, NULL, NULL, NULL), NNC_STATUS_OK);
            expect_bound_holds(&t, lo, hi, C, lb, 0, 0, 300, trial);
        }
        nnc_bnd_destroy(b);
        nnc_mdl_destroy(m);
    }
    ck_assert_msg(agree >= total * 7 / 10, "seed %llu: smooth gradient agrees with finite differences on %d/%d", (unsigned long long)g_seed,
                  agree, total);
    ck_assert_msg(narrowed_any >= 10, "seed %llu: alpha narrowed hidden bounds in only %d of 40 nets", (unsigned long long)g_seed, narrowed_any);
}
END_TEST

START_TEST(test_slope_gradient)
{
    char err[NNC_ERRBUF_SIZE];
    int agree = 0, total = 0;
    for (int trial = 0; trial < 40; trial++) {
        mlp t = {0};
        t.leaky = 0;
        nnc_model *m = mlp_build(&t);
        nnc_bnd *b;
        ck_assert_int_eq(nnc_bnd_create(&b, m, err, sizeof err), NNC_STATUS_OK);
        double lo[4], hi[4], C[4], a[2 * MAXW], a2[2 * MAXW], g[2 * MAXW], dir[2 * MAXW], l0, l1;
        random_box(t.w[0], lo, hi, 1.0);
        random_objective(t.w[3], C);
        ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
        int64_t nr = nnc_bnd_relu_count(b);
        for (int64_t f = 0; f < nr; f++) {
            a[f] = 0.2 + 0.6 * urand();
            dir[f] = urand() - 0.5;
        }
        nnc_bnd_set_slopes(b, a);
        ck_assert_int_eq(nnc_bnd_objective_grad(b, C, 0.0, &l0, NULL, g, NULL, NULL), NNC_STATUS_OK);
        double h = 1e-6, gd = 0;
        for (int64_t f = 0; f < nr; f++) {
            a2[f] = a[f] + h * dir[f];
            gd += g[f] * dir[f];
        }
        nnc_bnd_set_slopes(b, a2);
        ck_assert_int_eq(nnc_bnd_objective_grad(b, C, 0.0, &l1, NULL, NULL, NULL, NULL), NNC_STATUS_OK);
        double fd = (l1 - l0) / h;
        /* the bound is piecewise linear in the slopes: away from a kink the
         * directional derivative is exact up to rounding */
        total++;
        if (fabs(fd - gd) <= 1e-4 * (1 + fabs(gd))) agree++;
        nnc_bnd_destroy(b);
        nnc_mdl_destroy(m);
    }
    ck_assert_msg(agree >= total * 8 / 10, "seed %llu: gradient agrees with finite differences on %d/%d", (unsigned long long)g_seed, agree, total);
}
END_TEST

START_TEST(test_alpha_tightens)
{
    char err[NNC_ERRBUF_SIZE];
    int better = 0;
    for (int trial = 0; trial < 30; trial++) {
        mlp t = {0};
        t.leaky = trial % 2;
        nnc_model *m = mlp_build(&t);
        nnc_bnd *b;
        ck_assert_int_eq(nnc_bnd_create(&b, m, err, sizeof err), NNC_STATUS_OK);
        double lo[4], hi[4], C[4], d = 0, crown, lw, tgt = INFINITY, x[4], y[4];
        random_box(t.w[0], lo, hi, 1.0);
        random_objective(t.w[3], C);
        ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
        ck_assert_int_eq(nnc_bnd_linear_lower(b, 1, C, &d, &crown, NULL), NNC_STATUS_OK);
        lw = crown;
        ck_assert_int_eq(nnc_alpha_lower(b, 1, C, &tgt, &lw, NULL, 30, INFINITY), NNC_STATUS_OK);
        ck_assert(lw >= crown);
        if (lw > crown + 1e-9 * (1 + fabs(crown))) better++;
        for (int s = 0; s < 300; s++) {
            test_point(s, t.w[0], lo, hi, x);
            mlp_eval_exact(&t, x, y, NULL, NULL);
            double v = 0;
            for (int j = 0; j < t.w[3]; j++) v += C[j] * y[j];
            if (!(v >= lw - 1e-12 * (1 + fabs(v)))) ck_abort_msg("seed %llu trial %d: alpha bound %.17g above %.17g", (unsigned long long)g_seed, trial, lw, v);
        }
        /* the slopes are CROWN's again afterwards */
        double again;
        ck_assert_int_eq(nnc_bnd_linear_lower(b, 1, C, &d, &again, NULL), NNC_STATUS_OK);
        ck_assert(again == crown);
        nnc_bnd_destroy(b);
        nnc_mdl_destroy(m);
    }
    ck_assert_msg(better >= 5, "seed %llu: alpha tightened only %d/30 bounds", (unsigned long long)g_seed, better);
}
END_TEST

START_TEST(test_random_splits_sound)
{
    char err[NNC_ERRBUF_SIZE];
    int infeasible_seen = 0, feasible_checked = 0;
    for (int trial = 0; trial < 120; trial++) {
        mlp t = {0};
        t.leaky = trial % 3 == 1;
        nnc_model *m = mlp_build(&t);
        nnc_bnd *b;
        ck_assert_int_eq(nnc_bnd_create(&b, m, err, sizeof err), NNC_STATUS_OK);
        double lo[4], hi[4], C[4], x[4], y[4], lb, pre[2 * MAXW], rl[2 * MAXW], rh[2 * MAXW];
        int sg[2 * MAXW];
        random_box(t.w[0], lo, hi, 1.0);
        random_objective(t.w[3], C);
        int64_t nr = nnc_bnd_relu_count(b);
        signed char split[2 * MAXW];
        for (int64_t f = 0; f < nr; f++) split[f] = (signed char)(rnd_below(4) == 0 ? (rnd_below(2) ? 1 : -1) : 0);
        int warm = trial % 2, infeasible = 0;
        if (warm) {
            /* the branch-and-bound warm start: a parent with some of the
             * splits, its bounds saved, the child computed from them with
             * CROWN from a random order position on */
            signed char parent[2 * MAXW];
            for (int64_t f = 0; f < nr; f++) parent[f] = rnd_below(2) ? split[f] : 0;
            nnc_bnd_set_splits(b, parent);
            ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
            double *state = malloc(sizeof(double) * (nnc_bnd_state_doubles(b) + 1));
            ck_assert_ptr_nonnull(state);
            nnc_bnd_state_save(b, state);
            int parent_infeasible = nnc_bnd_infeasible(b);
            nnc_bnd_set_splits(b, split);
            ck_assert_int_eq(nnc_bnd_compute_warm(b, lo, hi, state, rnd_below(8)), NNC_STATUS_OK);
            infeasible = nnc_bnd_infeasible(b) || parent_infeasible;
            free(state);
        } else {
            nnc_bnd_set_splits(b, split);
            ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
            infeasible = nnc_bnd_infeasible(b);
        }
        if (!infeasible) {
            ck_assert_int_eq(nnc_bnd_objective_grad(b, C, 0.0, &lb, NULL, NULL, NULL, NULL), NNC_STATUS_OK);
            nnc_bnd_relu_bounds(b, rl, rh);
        }
        int satisfying = 0;
        for (int s = 0; s < 2000; s++) {
            test_point(s, t.w[0], lo, hi, x);
            mlp_eval_exact(&t, x, y, sg, pre);
            int ok = 1;
            for (int64_t f = 0; f < nr && ok; f++) ok = !(split[f] > 0 && sg[f] < 0) && !(split[f] < 0 && sg[f] > 0);
            if (!ok) continue;
            satisfying++;
            if (infeasible)
                ck_abort_msg("seed %llu trial %d (warm %d): split constraints called infeasible, point %d satisfies them", (unsigned long long)g_seed,
                             trial, warm, s);
            double v = 0;
            for (int j = 0; j < t.w[3]; j++) v += C[j] * y[j];
            if (!(v >= lb - 1e-12 * (1 + fabs(v))))
                ck_abort_msg("seed %llu trial %d (warm %d): objective %.17g below split bound %.17g", (unsigned long long)g_seed, trial, warm, v, lb);
            for (int64_t f = 0; f < nr; f++)
                if (!(pre[f] >= rl[f] - 1e-12 * (1 + fabs(pre[f])) && pre[f] <= rh[f] + 1e-12 * (1 + fabs(pre[f]))))
                    ck_abort_msg("seed %llu trial %d (warm %d): pre-activation %lld = %.17g outside [%.17g, %.17g]", (unsigned long long)g_seed,
                                 trial, warm, (long long)f, pre[f], rl[f], rh[f]);
        }
        infeasible_seen += infeasible;
        feasible_checked += satisfying > 0;
        nnc_bnd_set_splits(b, NULL);
        nnc_bnd_destroy(b);
        nnc_mdl_destroy(m);
    }
    /* both branches of the test were exercised */
    ck_assert_msg(infeasible_seen > 0 && feasible_checked > 0, "seed %llu: infeasible %d, feasible with points %d", (unsigned long long)g_seed,
                  infeasible_seen, feasible_checked);
}
END_TEST

/* The property "C . y > thr everywhere in the box", as one unsafe row
 * C . y <= thr.  thr below the sampled minimum by a margin may be
 * certified; thr at or above a sampled value is violated and must not be. */
START_TEST(test_relusplit_certify)
{
    char err[NNC_ERRBUF_SIZE];
    int cert_split = 0, cert_crown = 0;
    for (int trial = 0; trial < 30; trial++) {
        mlp t = {0};
        t.leaky = trial % 4 == 3;
        nnc_model *m = mlp_build(&t);
        nnc_bnd *b, *b3[3];
        ck_assert_int_eq(nnc_bnd_create(&b, m, err, sizeof err), NNC_STATUS_OK);
        for (int i = 0; i < 3; i++) ck_assert_int_eq(nnc_bnd_create(&b3[i], m, err, sizeof err), NNC_STATUS_OK);
        double lo[4], hi[4], C[4], x[4], y[4];
        random_box(t.w[0], lo, hi, 0.5);
        random_objective(t.w[3], C);
        double vmin = INFINITY;
        for (int s = 0; s < 3000; s++) {
            test_point(s, t.w[0], lo, hi, x);
            mlp_eval_exact(&t, x, y, NULL, NULL);
            double v = 0;
            for (int j = 0; j < t.w[3]; j++) v += C[j] * y[j];
            vmin = fmin(vmin, v);
        }
        int dstart[2] = {0, 1};
        for (int side = 0; side < 2; side++) {
            /* side 0: thr = vmin (violated: some sample reaches it); side 1: thr slightly below */
            double d = side == 0 ? vmin : vmin - 0.02 * (1 + fabs(vmin));
            nnc_rfn_problem p = {1, 1, t.w[3], C, &d, dstart, NULL, NULL};
            int cert = 0;
            uint64_t nodes = 0;
            ck_assert_int_eq(nnc_rsp_certify(&b, 1, lo, hi, &p, 5, nnc_rfn_now() + FAR_S, 4000, &cert, &nodes), NNC_STATUS_OK);
            /* the same with three engines bounding sub-problems in parallel */
            int cert3 = 0;
            uint64_t nodes3 = 0;
            ck_assert_int_eq(nnc_rsp_certify(b3, 3, lo, hi, &p, 5, nnc_rfn_now() + FAR_S, 4000, &cert3, &nodes3), NNC_STATUS_OK);
            if (side == 0) {
                ck_assert_msg(!cert, "seed %llu trial %d: certified a violated property", (unsigned long long)g_seed, trial);
                ck_assert_msg(!cert3, "seed %llu trial %d: certified a violated property (3 engines)", (unsigned long long)g_seed, trial);
                continue;
            }
            /* both explore the whole tree when they certify: same verdict
             * unless one ran out of its node budget */
            if (cert != cert3)
                ck_assert_msg(nodes >= 4000 || nodes3 >= 4000, "seed %llu trial %d: 1 engine %d (%llu nodes), 3 engines %d (%llu)",
                              (unsigned long long)g_seed, trial, cert, (unsigned long long)nodes, cert3, (unsigned long long)nodes3);
            if (cert && cert3) /* a certified tree is explored whole: the same sub-problems */
                ck_assert_msg(nodes == nodes3, "seed %llu trial %d: %llu sub-problems on 1 engine, %llu on 3", (unsigned long long)g_seed, trial,
                              (unsigned long long)nodes, (unsigned long long)nodes3);
            cert_split += cert;
            double zero = 0, lw;
            ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
            ck_assert_int_eq(nnc_bnd_linear_lower(b, 1, C, &zero, &lw, NULL), NNC_STATUS_OK);
            cert_crown += lw > d;
            if (getenv("NNC_TEST_VERBOSE")) printf("trial %d thr %g crown %g cert %d nodes %llu\n", trial, d, lw, cert, (unsigned long long)nodes);
            if (lw > d) ck_assert_msg(cert, "seed %llu trial %d: CROWN certifies, ReLU splitting does not", (unsigned long long)g_seed, trial);
        }
        for (int i = 0; i < 3; i++) nnc_bnd_destroy(b3[i]);
        nnc_bnd_destroy(b);
        nnc_mdl_destroy(m);
    }
    ck_assert_msg(cert_split > cert_crown, "seed %llu: ReLU splits certified %d, CROWN %d of 30", (unsigned long long)g_seed, cert_split, cert_crown);
}
END_TEST

/* nnc_bbd_certify with o (its threads on the CPU's instruction-set path,
 * then threads2 on the generic path): both succeed and, when same_tree and neither reached o.max_nodes, end
 * with the same outcome after the same sub-problems.  Out: cert[0], cert[1]
 * the two outcomes, *nodes the first run's sub-problems. */
static void bbd_certify_twice(nnc_bbd *e, const double *lo, const double *hi, const double *rl, const double *rh,
                              const nnc_rfn_problem *p, nnc_bbd_opts o, int threads2, int same_tree, int trial,
                              int cert[2], uint64_t *nodes)
{
    uint64_t n2 = 0;
    cert[0] = cert[1] = 0;
    o.deadline = nnc_rfn_now() + FAR_S;
    ck_assert_int_eq(nnc_bbd_certify(e, lo, hi, rl, rh, p, &o, &cert[0], nodes), NNC_STATUS_OK);
    int t1 = o.threads;
    o.threads = threads2;
    o.deadline = nnc_rfn_now() + FAR_S;
    /* the second run on the generic path: the sparse products' vector
     * twins must give the same tree */
    nnc_isa_set_cap(NNC_ISA_GENERIC);
    ck_assert_int_eq(nnc_bbd_certify(e, lo, hi, rl, rh, p, &o, &cert[1], &n2), NNC_STATUS_OK);
    nnc_isa_set_cap(-1);
    if (same_tree && *nodes < o.max_nodes && n2 < o.max_nodes)
        ck_assert_msg(cert[0] == cert[1] && *nodes == n2, "seed %llu trial %d: %d thread(s) %d (%llu nodes), %d threads %d (%llu)",
                      (unsigned long long)g_seed, trial, t1, cert[0], (unsigned long long)*nodes, threads2, cert[1], (unsigned long long)n2);
}

/* The batched engine (verifier/babdense.c) on the same random ReLU nets,
 * some with an input normalisation (Sub, Div) and some with a ReLU on the
 * output: never certifies a property that sampling shows violated (one disjunct,
 * or two of which only one is reachable), certifies whatever CROWN does
 * and more, and gives the same tree on 1 and 3 threads. */
START_TEST(test_bbd_certify)
{
    char err[NNC_ERRBUF_SIZE];
    int cert_bbd = 0, cert_crown = 0, cert_rsps = 0;
    for (int trial = 0; trial < 40; trial++) {
        mlp t = {0};
        t.leaky = trial % 8 == 7;
        t.norm = trial % 3 == 1;
        t.out_relu = trial % 4 == 2;
        nnc_model *m = mlp_build(&t);
        nnc_bbd *e;
        nnc_status cs = nnc_bbd_create(&e, m, err, sizeof err);
        if (t.leaky) { /* LeakyRelu is not a dense ReLU chain */
            ck_assert_int_eq(cs, NNC_STATUS_UNSUPPORTED);
            nnc_mdl_destroy(m);
            continue;
        }
        ck_assert_msg(cs == NNC_STATUS_OK, "%s", err);
        nnc_bnd *b;
        ck_assert_int_eq(nnc_bnd_create(&b, m, err, sizeof err), NNC_STATUS_OK);
        int64_t nr = nnc_bbd_relu_count(e);
        ck_assert_int_eq(nr, nnc_bnd_relu_count(b));
        double lo[4], hi[4], C[8], x[4], y[4], rl[3 * MAXW], rh[3 * MAXW];
        random_box(t.w[0], lo, hi, 0.5);
        random_objective(t.w[3], C);
        random_objective(t.w[3], C + 4);
        double vmin = INFINITY, vmin2 = INFINITY;
        for (int s = 0; s < 3000; s++) {
            test_point(s, t.w[0], lo, hi, x);
            mlp_eval_exact(&t, x, y, NULL, NULL);
            double v = 0, v2 = 0;
            for (int j = 0; j < t.w[3]; j++) {
                v += C[j] * y[j];
                v2 += C[4 + j] * y[j];
            }
            vmin = fmin(vmin, v);
            vmin2 = fmin(vmin2, v2);
        }
        ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
        nnc_bnd_relu_bounds(b, rl, rh);
        double zero = 0, lw;
        ck_assert_int_eq(nnc_bnd_linear_lower(b, 1, C, &zero, &lw, NULL), NNC_STATUS_OK);
        /* rows stored n_out apart: move the second objective next to the first */
        double C2[8];
        for (int j = 0; j < t.w[3]; j++) {
            C2[j] = C[j];
            C2[t.w[3] + j] = C[4 + j];
        }
        for (int side = 0; side < 3; side++) {
            /* 0: thr vmin (violated); 1: slightly below; 2: two disjuncts,
             * the second reachable (thr vmin2): violated */
            double d[2] = {side == 0 ? vmin : vmin - 0.02 * (1 + fabs(vmin)), vmin2};
            int dstart[3] = {0, 1, 2};
            nnc_rfn_problem p = {side == 2 ? 2 : 1, side == 2 ? 2 : 1, t.w[3], C2, d, dstart, NULL, NULL};
            int cc[2];
            uint64_t nodes = 0;
            /* every third trial: the sub-problems' hidden bounds optimised,
             * in half of those only from about a millisecond into the
             * search (a switch in time: the tree may then differ), in some
             * only those of the neurons that carry half of the parent's
             * relaxation loss */
            nnc_bbd_opts o = {1, 16, 10, 4, trial % 2 ? 10 : 0, 0, 4000, trial % 4 == 3 ? 6 : 0, NULL, NULL, 0, 0,
                              trial % 3 == 2 ? 3 : 0, trial % 6 == 5 ? 2e-6 : 0, trial % 9 == 2 || trial % 9 == 8 ? 0.5 : 0, NULL, NULL, 0,
                              NULL, NULL, 0};
            bbd_certify_twice(e, lo, hi, rl, rh, &p, o, 3, side == 1 && o.interm_share == 0, trial, cc, &nodes);
            if (side != 1) {
                ck_assert_msg(!cc[0] && !cc[1], "seed %llu trial %d side %d: certified a violated property", (unsigned long long)g_seed, trial, side);
                continue;
            }
            int cert = cc[0];
            cert_bbd += cert;
            cert_crown += lw > d[0];
            int cert_rsp = 0;
            uint64_t nodes_rsp = 0;
            ck_assert_int_eq(nnc_rsp_certify(&b, 1, lo, hi, &p, 5, nnc_rfn_now() + FAR_S, 4000, &cert_rsp, &nodes_rsp), NNC_STATUS_OK);
            cert_rsps += cert_rsp;
            if (getenv("NNC_TEST_VERBOSE"))
                printf("bbd trial %d thr %g crown %g cert %d nodes %llu (per sub-problem: %d, %llu)\n", trial, d[0], lw, cert,
                       (unsigned long long)nodes, cert_rsp, (unsigned long long)nodes_rsp);
            if (lw > d[0] + 1e-9 * (1 + fabs(d[0])))
                ck_assert_msg(cert, "seed %llu trial %d: CROWN certifies, the batched search does not", (unsigned long long)g_seed, trial);
        }
        nnc_bnd_destroy(b);
        nnc_bbd_destroy(e);
        nnc_mdl_destroy(m);
    }
    ck_assert_msg(cert_bbd > cert_crown, "seed %llu: batched search certified %d, CROWN %d", (unsigned long long)g_seed, cert_bbd, cert_crown);
    /* (not every time as many: the two searches split differently) */
    ck_assert_msg(cert_bbd + 2 >= cert_rsps, "seed %llu: batched search certified %d, per sub-problem %d", (unsigned long long)g_seed, cert_bbd, cert_rsps);
}
END_TEST

/* A random ReLU net of trial (an input normalisation one trial in three,
 * a ReLU on the output one in four) with its batched engine and its bound
 * context. */
static nnc_model *bbd_net(int trial, mlp *t, nnc_bbd **e, nnc_bnd **b)
{
    char err[NNC_ERRBUF_SIZE];
    memset(t, 0, sizeof *t);
    t->norm = trial % 3 == 1;
    t->out_relu = trial % 4 == 2;
    nnc_model *m = mlp_build(t);
    ck_assert_msg(nnc_bbd_create(e, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(nnc_bnd_create(b, m, err, sizeof err), NNC_STATUS_OK);
    return m;
}

/* The least of C . y over n test points of the box [lo, hi] (exact). */
static double sampled_min(const mlp *t, const double *lo, const double *hi, const double *C, int n)
{
    double vmin = INFINITY, x[4], y[4];
    for (int s = 0; s < n; s++) {
        test_point(s, t->w[0], lo, hi, x);
        mlp_eval_exact(t, x, y, NULL, NULL);
        double v = 0;
        for (int j = 0; j < t->w[3]; j++) v += C[j] * y[j];
        vmin = fmin(vmin, v);
    }
    return vmin;
}

/* A team over threads (nncert/team.h): the all-gather through a shared
 * table and a barrier. */
#define TT_MAX 3
typedef struct tt_shared {
    pthread_barrier_t bar;
    int size;
    int fail_at; /* > 0: this exchange fails on every rank (a rank died), counted from 1 */
    const void *buf[TT_MAX];
    size_t len[TT_MAX];
} tt_shared;

typedef struct tt_rank {
    tt_shared *sh;
    nnc_team team;
    /* the search this rank runs, and what it gave */
    nnc_bbd *e;
    const double *lo, *hi, *rl, *rh;
    const nnc_rfn_problem *p;
    nnc_bbd_opts o;
    int cert;
    uint64_t nodes;
    nnc_status st;
    char err[NNC_ERRBUF_SIZE];
    int calls; /* exchanges so far */
} tt_rank;

static nnc_status tt_allgather(void *ctx, const void *mine, size_t len, unsigned char **all, size_t *lens, char *err,
                               size_t errlen)
{
    tt_rank *r = ctx;
    tt_shared *sh = r->sh;
    if (++r->calls == sh->fail_at) /* (on every rank alike: no barrier waits for the dead) */
        return nnc_err(err, errlen, NNC_STATUS_IO, "rank %d did not answer within 1 s", sh->size - 1);
    sh->buf[r->team.rank] = mine;
    sh->len[r->team.rank] = len;
    pthread_barrier_wait(&sh->bar);
    size_t tot = 0;
    for (int q = 0; q < sh->size; q++) tot += sh->len[q];
    unsigned char *b = malloc(tot + 1);
    ck_assert_ptr_nonnull(b);
    for (int q = 0, at = 0; q < sh->size; q++) {
        memcpy(b + at, sh->buf[q], sh->len[q]);
        lens[q] = sh->len[q];
        at += (int)sh->len[q];
    }
    pthread_barrier_wait(&sh->bar); /* (every rank has copied the others' bytes) */
    *all = b;
    return NNC_STATUS_OK;
}

static void *tt_search(void *arg)
{
    tt_rank *r = arg;
    r->o.team = &r->team;
    r->o.team_err = r->err;
    r->o.team_errlen = sizeof r->err;
    r->err[0] = 0;
    r->st = nnc_bbd_certify(r->e, r->lo, r->hi, r->rl, r->rh, r->p, &r->o, &r->cert, &r->nodes);
    return NULL;
}

/* size ranks (threads) run the search of rk[q] (each its own options, with
 * the team set); exchange fail_at (> 0) fails. */
static void tt_run(tt_rank *rk, int size, int fail_at)
{
    tt_shared sh = {.size = size, .fail_at = fail_at};
    pthread_t th[TT_MAX];
    ck_assert_int_eq(pthread_barrier_init(&sh.bar, NULL, (unsigned)size), 0);
    for (int q = 0; q < size; q++) {
        rk[q].sh = &sh;
        rk[q].team = (nnc_team){q, size, tt_allgather, &rk[q]};
        ck_assert_int_eq(pthread_create(&th[q], NULL, tt_search, &rk[q]), 0);
    }
    for (int q = 0; q < size; q++) pthread_join(th[q], NULL);
    pthread_barrier_destroy(&sh.bar);
}

/* The batched search by a team (nnc_bbd_opts.team; mpirun -np N nncert
 * verify): on random ReLU nets with chunks of 3 items (passes of many
 * chunks, split among the ranks; the variables each rank changed found
 * per chunk, or from a copy as on the device), 2 and 3 ranks, each on 1 or
 * 2 threads, grow the tree one process grows: the same outcome after the same
 * sub-problems, the root's refined bounds the same bits, with and without
 * the root's splits and optimised hidden bounds; a rank that searches
 * another box ends the search on every rank, named, as does an exchange
 * that fails (a rank died). */
START_TEST(test_bbd_team)
{
    int certified = 0, split = 0;
    for (int trial = 0; trial < 12; trial++) {
        mlp t;
        nnc_bbd *e;
        nnc_bnd *b;
        nnc_model *m = bbd_net(trial, &t, &e, &b);
        /* half the trials find the changed variables as the device's passes do */
        ck_assert_int_eq(nnc_bbd_test_tune(e, 3, trial / 2 % 2), 0);
        ck_assert_int_eq(nnc_bbd_test_tune(e, 0, 0), -1);
        int64_t nr = nnc_bbd_relu_count(e);
        double lo[4], hi[4], hi2[4], C[4], rl[3 * MAXW], rh[3 * MAXW];
        double sl[TT_MAX + 1][3 * MAXW], sh[TT_MAX + 1][3 * MAXW];
        random_box(t.w[0], lo, hi, 0.6);
        random_objective(t.w[3], C);
        double vmin = sampled_min(&t, lo, hi, C, 3000);
        ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
        nnc_bnd_relu_bounds(b, rl, rh);
        /* odd trials violated (the sampled least value), even ones just below it */
        double d = trial % 2 ? vmin : vmin - 0.01 * (1 + fabs(vmin));
        int dstart[2] = {0, 1};
        nnc_rfn_problem p = {1, 1, t.w[3], C, &d, dstart, NULL, NULL};
        nnc_bbd_opts o = {1, 8, 6, 3, trial % 3 ? 6 : 0, nnc_rfn_now() + FAR_S, 300, trial % 3 == 2 ? 3 : 0,
                          sl[0], sh[0], 0, 0, trial % 4 < 2 ? 3 : 0, 0, trial % 4 == 1 ? 0.5 : 0, NULL, NULL, 0,
                          NULL, NULL, 0};
        int cert1;
        uint64_t nodes1;
        ck_assert_int_eq(nnc_bbd_certify(e, lo, hi, rl, rh, &p, &o, &cert1, &nodes1), NNC_STATUS_OK);
        if (trial % 2) ck_assert_msg(!cert1, "seed %llu trial %d: certified a violated property", (unsigned long long)g_seed, trial);
        certified += cert1;
        split += nodes1 > 1;
        for (int size = 2; size <= TT_MAX; size++) {
            tt_rank rk[TT_MAX];
            for (int q = 0; q < size; q++) {
                rk[q] = (tt_rank){.e = e, .lo = lo, .hi = hi, .rl = rl, .rh = rh, .p = &p, .o = o};
                rk[q].o.threads = 1 + (q + trial) % 2;
                rk[q].o.deadline = nnc_rfn_now() + FAR_S;
                rk[q].o.root_rl = sl[q + 1];
                rk[q].o.root_rh = sh[q + 1];
            }
            tt_run(rk, size, 0);
            for (int q = 0; q < size; q++) {
                ck_assert_msg(rk[q].st == NNC_STATUS_OK, "trial %d rank %d of %d: %s", trial, q, size, rk[q].err);
                ck_assert_msg(rk[q].cert == cert1 && rk[q].nodes == nodes1,
                              "seed %llu trial %d rank %d of %d: %d after %llu sub-problems, one process %d after %llu",
                              (unsigned long long)g_seed, trial, q, size, rk[q].cert, (unsigned long long)rk[q].nodes, cert1,
                              (unsigned long long)nodes1);
                ck_assert_msg(memcmp(sl[q + 1], sl[0], sizeof(double) * (size_t)nr) == 0 &&
                                  memcmp(sh[q + 1], sh[0], sizeof(double) * (size_t)nr) == 0,
                              "seed %llu trial %d rank %d of %d: the root's bounds differ from one process's",
                              (unsigned long long)g_seed, trial, q, size);
            }
        }
        /* rank 1 searches a box one ulp wider in its first input */
        memcpy(hi2, hi, sizeof hi);
        hi2[0] = nextafter(hi[0], INFINITY);
        tt_rank rk[2], rk3[3];
        for (int q = 0; q < 2; q++) {
            rk[q] = (tt_rank){.e = e, .lo = lo, .hi = q ? hi2 : hi, .rl = rl, .rh = rh, .p = &p, .o = o};
            rk[q].o.root_rl = rk[q].o.root_rh = NULL;
            rk[q].o.deadline = nnc_rfn_now() + FAR_S;
        }
        tt_run(rk, 2, 0);
        for (int q = 0; q < 2; q++) {
            ck_assert_msg(rk[q].st == NNC_STATUS_INVALID && !rk[q].cert, "trial %d rank %d: status %d cert %d", trial, q,
                          (int)rk[q].st, rk[q].cert);
            ck_assert_msg(strstr(rk[q].err, "rank 1 ") != NULL, "trial %d rank %d: %s", trial, q, rk[q].err);
        }
        /* rank 2 of 3 dies at an exchange inside the search (the 2nd or
         * 3rd: every search has the first, the root's estimate and its
         * main pass): the others end it with the team's error, nothing
         * certified */
        for (int q = 0; q < 3; q++) {
            rk3[q] = (tt_rank){.e = e, .lo = lo, .hi = hi, .rl = rl, .rh = rh, .p = &p, .o = o};
            rk3[q].o.root_rl = rk3[q].o.root_rh = NULL;
            rk3[q].o.deadline = nnc_rfn_now() + FAR_S;
        }
        tt_run(rk3, 3, 2 + trial % 2);
        for (int q = 0; q < 3; q++)
            ck_assert_msg(rk3[q].st == NNC_STATUS_IO && !rk3[q].cert && strstr(rk3[q].err, "rank 2 did not answer"),
                          "trial %d rank %d: status %d cert %d: %s", trial, q, (int)rk3[q].st, rk3[q].cert, rk3[q].err);
        nnc_bnd_destroy(b);
        nnc_bbd_destroy(e);
        nnc_mdl_destroy(m);
    }
    /* the trees compared are real ones: some certified, some split */
    ck_assert_msg(certified > 0 && split > 2, "seed %llu: %d certified, %d split", (unsigned long long)g_seed, certified, split);
}
END_TEST

/* The root's hidden bounds by ReLU splits (nnc_bbd_opts.root_splits), on
 * the same random nets, wider boxes: every sampled point's exact
 * pre-activations (MPFR) lie within them, they never widen alpha's, they
 * narrow them on some nets, and the search still never certifies a
 * violated property. */
START_TEST(test_bbd_root_splits)
{
    int narrowed = 0, nets = 0;
    for (int trial = 0; trial < 40; trial++) {
        mlp t;
        nnc_bbd *e;
        nnc_bnd *b;
        nnc_model *m = bbd_net(trial, &t, &e, &b);
        int64_t nr = nnc_bbd_relu_count(e);
        double lo[4], hi[4], C[4], x[4], y[4], pre[3 * MAXW];
        double rl[3 * MAXW], rh[3 * MAXW], al[3 * MAXW], ah[3 * MAXW], sl[3 * MAXW], sh[3 * MAXW];
        random_box(t.w[0], lo, hi, 1.5);
        random_objective(t.w[3], C);
        ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
        nnc_bnd_relu_bounds(b, rl, rh);
        double vmin = sampled_min(&t, lo, hi, C, 2000);
        /* threshold vmin: violated, so the root stays open and the splits run */
        int dstart[2] = {0, 1}, cert = 1;
        nnc_rfn_problem p = {1, 1, t.w[3], C, &vmin, dstart, NULL, NULL};
        uint64_t nodes;
        nnc_bbd_opts o = {1, 16, 10, 4, 10, nnc_rfn_now() + FAR_S, 0, 0, al, ah, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL, 0};
        ck_assert_int_eq(nnc_bbd_certify(e, lo, hi, rl, rh, &p, &o, &cert, &nodes), NNC_STATUS_OK);
        ck_assert_int_eq(cert, 0);
        /* one net in three: room for the trees of only one to three neurons
         * (the widest relaxations), a few leaves split per round */
        size_t lb = (size_t)nr + 1 + sizeof(float) * 2 * (size_t)nr, cap = trial % 3 == 0 ? 8 * lb * (2 + trial % 5) : 0;
        o = (nnc_bbd_opts){1, 16, 10, 4, 10, nnc_rfn_now() + FAR_S, 0, 2 + trial % 15, sl, sh, 0, cap, 0, 0, 0, NULL, NULL, 0,
                            NULL, NULL, 0};
        ck_assert_int_eq(nnc_bbd_certify(e, lo, hi, rl, rh, &p, &o, &cert, &nodes), NNC_STATUS_OK);
        ck_assert_int_eq(cert, 0);
        int nar = 0;
        for (int64_t f = 0; f < nr; f++) {
            ck_assert_msg(sl[f] >= al[f] && sh[f] <= ah[f], "seed %llu trial %d neuron %lld: [%g, %g] wider than alpha's [%g, %g]",
                          (unsigned long long)g_seed, trial, (long long)f, sl[f], sh[f], al[f], ah[f]);
            nar += sl[f] > al[f] || sh[f] < ah[f];
        }
        mlp lin = t; /* the output before its ReLU: the last ReLU layer's pre-activations */
        lin.out_relu = 0;
        int nh = t.w[1] + t.w[2];
        ck_assert_int_eq(nr, nh + (t.out_relu ? t.w[3] : 0));
        for (int s = 0; s < 2000; s++) {
            test_point(s, t.w[0], lo, hi, x);
            mlp_eval_exact(&lin, x, y, NULL, pre);
            for (int j = 0; j < t.w[3] && t.out_relu; j++) pre[nh + j] = y[j];
            for (int64_t f = 0; f < nr; f++)
                ck_assert_msg(pre[f] >= sl[f] && pre[f] <= sh[f], "seed %llu trial %d point %d neuron %lld: %.17g outside [%.17g, %.17g]",
                              (unsigned long long)g_seed, trial, s, (long long)f, pre[f], sl[f], sh[f]);
        }
        /* the search from these bounds never certifies the sampled value
         * (a violated property) */
        o.max_nodes = 2000;
        o.root_rl = o.root_rh = NULL;
        ck_assert_int_eq(nnc_bbd_certify(e, lo, hi, rl, rh, &p, &o, &cert, &nodes), NNC_STATUS_OK);
        ck_assert_msg(!cert, "seed %llu trial %d: certified a violated property", (unsigned long long)g_seed, trial);
        narrowed += nar > 0;
        nets++;
        nnc_bnd_destroy(b);
        nnc_bbd_destroy(e);
        nnc_mdl_destroy(m);
    }
    if (getenv("NNC_TEST_VERBOSE")) printf("root splits: %d of %d nets narrowed\n", narrowed, nets);
    ck_assert_msg(narrowed > 0, "seed %llu: the splits narrowed no bound on %d nets", (unsigned long long)g_seed, nets);
}
END_TEST

/* x [1,1,4,4] or [1,1,5,5] -> Conv (2 or 3 channels, 2x2 or 3x3, pads 0 or 1, bias) ->
 * BatchNormalization (some) -> Relu -> AveragePool 2x2 (some) -> Flatten ->
 * Gemm -> Relu -> Gemm (or, one in four, one Gemm to the output): a
 * convolutional ReLU chain. */
static nnc_model *cnn_build(int trial, int *n_in)
{
    int C = 2 + trial % 2, k = 2 + (trial / 2) % 2, pad = (trial / 4) % 2, bn = trial % 3 == 0, pool = trial % 5 != 1;
    int one = trial % 4 == 3, X = 4 + (trial / 8) % 2;
    int H = X + 2 * pad - k + 1, P = pool ? (H / 2) : H, F = C * P * P, Hd = one ? 3 : 6, O = 3;
    static float K[3 * 9], kb[3], sc[3], sh[3], mean[3], var[3], W1[6 * 3 * 36], b1[6], W2[3 * 6], b2[3];
    for (int i = 0; i < C * k * k; i++) K[i] = (float)(urand() * 2 - 1);
    for (int c = 0; c < C; c++) {
        kb[c] = (float)(urand() - 0.5);
        sc[c] = (float)(0.5 + urand());
        sh[c] = (float)(urand() - 0.5);
        mean[c] = (float)(urand() - 0.5);
        var[c] = (float)(0.2 + urand());
    }
    for (int i = 0; i < Hd * F; i++) W1[i] = (float)(urand() * 2 - 1) / (float)sqrt(F);
    for (int i = 0; i < Hd; i++) b1[i] = (float)(urand() - 0.5);
    for (int i = 0; i < O * Hd; i++) W2[i] = (float)(urand() * 2 - 1);
    for (int i = 0; i < O; i++) b2[i] = (float)(urand() - 0.5);
    mb b;
    mb_init(&b, 13);
    int64_t xd[4] = {1, 1, X, X}, kd[4] = {C, 1, k, k}, cd[1] = {C}, w1d[2] = {Hd, F}, h1d[1] = {Hd}, w2d[2] = {O, Hd},
            od[1] = {O}, pads[4] = {pad, pad, pad, pad}, k22[2] = {2, 2};
    mb_input(&b, "x", 4, xd);
    mb_output(&b, "y");
    int ni = 0, nn = 0;
    b.inits[ni++] = tensor_floats("K", 4, kd, K, (size_t)(C * k * k));
    b.inits[ni++] = tensor_floats("kb", 1, cd, kb, (size_t)C);
    b.inits[ni++] = tensor_floats("sc", 1, cd, sc, (size_t)C);
    b.inits[ni++] = tensor_floats("sh", 1, cd, sh, (size_t)C);
    b.inits[ni++] = tensor_floats("mean", 1, cd, mean, (size_t)C);
    b.inits[ni++] = tensor_floats("var", 1, cd, var, (size_t)C);
    b.inits[ni++] = tensor_floats("W1", 2, w1d, W1, (size_t)(Hd * F));
    b.inits[ni++] = tensor_floats("b1", 1, h1d, b1, (size_t)Hd);
    if (!one) {
        b.inits[ni++] = tensor_floats("W2", 2, w2d, W2, (size_t)(O * Hd));
        b.inits[ni++] = tensor_floats("b2", 1, od, b2, (size_t)O);
    }
    static const char *ci[3] = {"x", "K", "kb"}, *co[1] = {"c"}, *bi[5] = {"c", "sc", "sh", "mean", "var"}, *bo[1] = {"cb"},
                      *r1i[1] = {"c"}, *r1ib[1] = {"cb"}, *r1o[1] = {"r1"}, *pi[1] = {"r1"}, *po[1] = {"p"}, *fi[1] = {"p"},
                      *fip[1] = {"r1"}, *fo[1] = {"f"}, *g1i[3] = {"f", "W1", "b1"}, *g1o[1] = {"g1"}, *r2i[1] = {"g1"},
                      *r2o[1] = {"r2"}, *g2i[3] = {"r2", "W2", "b2"}, *g2o[1] = {"y"};
    b.nodes[nn] = node("Conv", "conv", 3, ci, 1, co);
    node_attr(b.nodes[nn++], attr_ints("pads", 4, pads));
    if (bn) b.nodes[nn++] = node("BatchNormalization", "bn", 5, bi, 1, bo);
    b.nodes[nn++] = node("Relu", "r1", 1, bn ? r1ib : r1i, 1, r1o);
    if (pool) {
        b.nodes[nn] = node("AveragePool", "pool", 1, pi, 1, po);
        node_attr(b.nodes[nn], attr_ints("kernel_shape", 2, k22));
        node_attr(b.nodes[nn++], attr_ints("strides", 2, k22));
    }
    b.nodes[nn++] = node("Flatten", "flat", 1, pool ? fi : fip, 1, fo);
    static const char *g1y[1] = {"y"};
    b.nodes[nn] = node("Gemm", "g1", 3, g1i, 1, one ? g1y : g1o);
    node_attr(b.nodes[nn++], attr_int("transB", 1));
    if (!one) {
        b.nodes[nn++] = node("Relu", "r2", 1, r2i, 1, r2o);
        b.nodes[nn] = node("Gemm", "g2", 3, g2i, 1, g2o);
        node_attr(b.nodes[nn++], attr_int("transB", 1));
    }
    b.graph.n_initializer = ni;
    b.graph.n_node = nn;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    *n_in = X * X;
    return m;
}

/* A chain extracted with NNC_SMP_CHAIN_LINEAR at x (float64, dense or
 * sparse layers); also the sum over layers of the stored weights' error
 * bounds times the largest |input| (a bound on what they change). */
static void chain_eval_pre(const nnc_smp_chain *ch, const double *x, double *y, double *pre);
static void chain_eval(const nnc_smp_chain *ch, const double *x, double *y) { chain_eval_pre(ch, x, y, NULL); }

/* The same, with pre (optional) getting the pre-activations of every
 * ReLU layer's neurons, in order. */
static void chain_eval_pre(const nnc_smp_chain *ch, const double *x, double *y, double *pre)
{
    double a[512], z[512];
    memcpy(a, x, sizeof(double) * (size_t)ch->n_in);
    for (int l = 0; l < ch->n_layers; l++) {
        const nnc_gpu_dense *D = &ch->layers[l];
        const nnc_smp_lin *S = ch->lin ? &ch->lin[l] : NULL;
        ck_assert_int_le(D->N, 512);
        for (int j = 0; j < D->N; j++) {
            double t = D->b[j];
            if (D->w)
                for (int i = 0; i < D->K; i++) t += D->w[(size_t)i * (size_t)D->N + (size_t)j] * a[i];
            else
                for (int64_t q = S->ptr[j]; q < S->ptr[j + 1]; q++) t += S->sw[q] * a[S->idx[q]];
            if (pre && D->relu) pre[j] = t;
            z[j] = D->relu && t < 0 ? 0 : t;
        }
        if (pre && D->relu) pre += D->N;
        memcpy(a, z, sizeof(double) * (size_t)D->N);
    }
    memcpy(y, a, sizeof(double) * (size_t)ch->n_out);
}

/* The batched search on a small net (3 outputs) at objective C over the
 * box: with threshold vmin (the least sampled value: violated) it certifies
 * nothing, on 1 or 2 threads; slightly below, it certifies where CROWN does,
 * with the same tree on 1 and 2 threads; counts in *cert_bbd, *cert_crown.
 * With rl (room for the model's ReLU bounds) the root's bounds are left
 * there. */
static void bbd_two_sides(nnc_bbd *e, nnc_bnd *b, const double *lo, const double *hi, const double *C, double vmin, int trial,
                          int *cert_bbd, int *cert_crown, double *rl_out)
{
    int64_t nm = nnc_bbd_model_relu_count(e);
    double *rl = rl_out ? rl_out : malloc(sizeof(double) * 2 * (size_t)nm), *rh = rl + nm;
    ck_assert_int_eq(nnc_bnd_compute(b, lo, hi, 1), NNC_STATUS_OK);
    nnc_bnd_relu_bounds(b, rl, rh);
    double zero = 0, lw;
    ck_assert_int_eq(nnc_bnd_linear_lower(b, 1, C, &zero, &lw, NULL), NNC_STATUS_OK);
    for (int side = 0; side < 2; side++) {
        double d[1] = {side == 0 ? vmin : vmin - 0.02 * (1 + fabs(vmin))};
        int dstart[2] = {0, 1};
        nnc_rfn_problem p = {1, 1, 3, C, d, dstart, NULL, NULL};
        int cc[2];
        uint64_t nodes = 0;
        /* every third trial: the sub-problems' hidden bounds optimised */
        nnc_bbd_opts o = {1, 16, 10, 4, trial % 2 ? 10 : 0, 0, 3000, trial % 4 == 3 ? 6 : 0, NULL, NULL, 0, 0,
                          trial % 3 == 2 ? 3 : 0, 0, trial % 3 == 2 && trial % 2 ? 0.5 : 0, NULL, NULL, 0,
                          NULL, NULL, 0};
        bbd_certify_twice(e, lo, hi, rl, rh, &p, o, 2, side == 1, trial, cc, &nodes);
        if (side == 0) {
            ck_assert_msg(!cc[0] && !cc[1], "seed %llu trial %d: certified a violated property", (unsigned long long)g_seed, trial);
            continue;
        }
        int cert = cc[0];
        if (lw > d[0] + 1e-9 * (1 + fabs(d[0])))
            ck_assert_msg(cert, "seed %llu trial %d: CROWN certifies, the batched search does not", (unsigned long long)g_seed, trial);
        *cert_bbd += cert;
        *cert_crown += lw > d[0];
        if (getenv("NNC_TEST_VERBOSE"))
            printf("trial %d: crown %g thr %g cert %d nodes %llu\n", trial, lw, d[0], cert, (unsigned long long)nodes);
    }
    if (!rl_out) free(rl);
}

/* Convolutional ReLU chains (Conv, BatchNormalization, AveragePool between
 * the Gemms): NNC_SMP_CHAIN_LINEAR composes them into two ReLU layers and
 * an output layer that compute the model (against the float64 runtime),
 * with error bounds on the composed weights that are small and nonzero;
 * the batched search on them never certifies a property that sampling
 * shows violated, and certifies whatever CROWN does. */
START_TEST(test_bbd_conv)
{
    char err[NNC_ERRBUF_SIZE];
    int cert_bbd = 0, cert_crown = 0;
    for (int trial = 0; trial < 48; trial++) {
        int n;
        nnc_model *m = cnn_build(trial, &n);
        nnc_smp_chain *ch;
        ck_assert_msg(nnc_smp_chain_extract_from(&ch, m, m->inputs[0], 0, NNC_SMP_CHAIN_LINEAR, err, sizeof err) ==
                          NNC_STATUS_OK, "%s", err);
        int one = trial % 4 == 3;
        ck_assert_int_eq(ch->n_layers, one ? 2 : 3);
        ck_assert_msg(nnc_smp_chain_check_finite(ch, err, sizeof err) == NNC_STATUS_OK, "trial %d: %s", trial, err);
        ck_assert(ch->layers[0].relu && (one || ch->layers[1].relu) && !ch->layers[ch->n_layers - 1].relu);
        ck_assert(ch->layers[0].w == NULL); /* the conv stays sparse */
        /* pooled: the pool went into the next Gemm, whose weights now carry error bounds */
        ck_assert(trial % 5 == 1 || (ch->lin[1].werr != NULL && ch->lin[1].berr != NULL));
        if (ch->lin[1].werr) {
            const nnc_gpu_dense *D = &ch->layers[1];
            double emax = 0, wmax = 0;
            for (int64_t q = 0; q < (int64_t)D->K * D->N; q++) {
                emax = fmax(emax, ch->lin[1].werr[q]);
                wmax = fmax(wmax, fabs(D->w[q]));
            }
            ck_assert_msg(emax > 0 && emax < 1e-14 * wmax, "trial %d: composed weights' error bound %g (weights to %g)", trial,
                          emax, wmax);
        }
        nnc_smp_chain *plain;
        ck_assert_int_eq(nnc_smp_chain_extract(&plain, m, err, sizeof err), NNC_STATUS_UNSUPPORTED);
        nnc_runtime *rt;
        ck_assert_int_eq(nnc_rt_create(&rt, m, NNC_PRECISION_F64, 1, err, sizeof err), NNC_STATUS_OK);
        double lo[25], hi[25], x[25], y[3], yc[3], C[3];
        random_box(n, lo, hi, 0.3);
        random_objective(3, C);
        double vmin = INFINITY;
        for (int s = 0; s < 6000; s++) {
            for (int i = 0; i < n; i++) x[i] = s < 256 ? (urand() < 0.5 ? lo[i] : hi[i]) : lo[i] + urand() * (hi[i] - lo[i]);
            const void *in[1] = {x};
            void *out[1] = {y};
            ck_assert_int_eq(nnc_rt_run(rt, 1, in, out, err, sizeof err), NNC_STATUS_OK);
            chain_eval(ch, x, yc);
            double v = 0;
            for (int j = 0; j < 3; j++) {
                ck_assert_msg(fabs(y[j] - yc[j]) <= 1e-9 * (1 + fabs(y[j])), "trial %d: runtime %g, chain %g", trial, y[j],
                              yc[j]);
                v += C[j] * y[j];
            }
            vmin = fmin(vmin, v);
        }
        nnc_rt_destroy(rt);
        nnc_smp_chain_free(ch);
        nnc_bbd *e;
        ck_assert_msg(nnc_bbd_create(&e, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        nnc_bnd *b;
        ck_assert_int_eq(nnc_bnd_create(&b, m, err, sizeof err), NNC_STATUS_OK);
        ck_assert_int_eq(nnc_bbd_relu_count(e), nnc_bnd_relu_count(b));
        bbd_two_sides(e, b, lo, hi, C, vmin, trial, &cert_bbd, &cert_crown, NULL);
        nnc_bnd_destroy(b);
        nnc_bbd_destroy(e);
        nnc_mdl_destroy(m);
    }
    ck_assert_msg(cert_bbd > cert_crown, "seed %llu: batched search certified %d, CROWN %d", (unsigned long long)g_seed, cert_bbd, cert_crown);
}
END_TEST

/* x [1,1,X,X] -> Conv 3x3 (C channels) -> Relu = h -> Conv -> Relu [-> Conv
 * -> Relu] -> Conv, + (or -) the shortcut: h itself or a 1x1 Conv of h
 * (listed before the main branch in some nets) -> Relu -> Flatten -> Gemm ->
 * Relu -> Gemm: a residual block whose skip spans one or two ReLU layers. */
static nnc_model *res_build(int trial, int *n_in)
{
    int C = 2, X = 4 + trial % 2, deep = (trial / 2) % 2, conv_sc = (trial / 4) % 2, first = (trial / 8) % 2;
    int sub = trial % 7 == 3, F = C * X * X, Hd = 5, O = 3;
    static float K0[2 * 9], k0b[2], Ka[2 * 2 * 9], kab[2], Kc[2 * 2 * 9], kcb[2], Kb[2 * 2 * 9], kbb[2], Ks[2 * 2], ksb[2],
        W1[5 * 2 * 25], b1[5], W2[3 * 5], b2[3];
    for (int i = 0; i < C * 9; i++) K0[i] = (float)(urand() * 2 - 1) / 2;
    for (int i = 0; i < C * C * 9; i++) {
        Ka[i] = (float)(urand() * 2 - 1) / 3;
        Kb[i] = (float)(urand() * 2 - 1) / 3;
        Kc[i] = (float)(urand() * 2 - 1) / 3;
    }
    for (int i = 0; i < C * C; i++) Ks[i] = (float)(urand() * 2 - 1);
    for (int c = 0; c < C; c++) {
        k0b[c] = (float)(urand() - 0.5);
        kab[c] = (float)(urand() - 0.5);
        kbb[c] = (float)(urand() - 0.5);
        kcb[c] = (float)(urand() - 0.5);
        ksb[c] = (float)(urand() - 0.5);
    }
    for (int i = 0; i < Hd * F; i++) W1[i] = (float)(urand() * 2 - 1) / (float)sqrt(F) * 2;
    for (int i = 0; i < Hd; i++) b1[i] = (float)(urand() - 0.5);
    for (int i = 0; i < O * Hd; i++) W2[i] = (float)(urand() * 2 - 1);
    for (int i = 0; i < O; i++) b2[i] = (float)(urand() - 0.5);
    mb b;
    mb_init(&b, 13);
    int64_t xd[4] = {1, 1, X, X}, k0d[4] = {C, 1, 3, 3}, kd[4] = {C, C, 3, 3}, ksd[4] = {C, C, 1, 1}, cd[1] = {C},
            w1d[2] = {Hd, F}, h1d[1] = {Hd}, w2d[2] = {O, Hd}, od[1] = {O}, pads[4] = {1, 1, 1, 1};
    mb_input(&b, "x", 4, xd);
    mb_output(&b, "y");
    int ni = 0, nn = 0;
    b.inits[ni++] = tensor_floats("K0", 4, k0d, K0, (size_t)(C * 9));
    b.inits[ni++] = tensor_floats("k0b", 1, cd, k0b, (size_t)C);
    b.inits[ni++] = tensor_floats("Ka", 4, kd, Ka, (size_t)(C * C * 9));
    b.inits[ni++] = tensor_floats("kab", 1, cd, kab, (size_t)C);
    b.inits[ni++] = tensor_floats("Kb", 4, kd, Kb, (size_t)(C * C * 9));
    b.inits[ni++] = tensor_floats("kbb", 1, cd, kbb, (size_t)C);
    if (deep) {
        b.inits[ni++] = tensor_floats("Kc", 4, kd, Kc, (size_t)(C * C * 9));
        b.inits[ni++] = tensor_floats("kcb", 1, cd, kcb, (size_t)C);
    }
    if (conv_sc) {
        b.inits[ni++] = tensor_floats("Ks", 4, ksd, Ks, (size_t)(C * C));
        b.inits[ni++] = tensor_floats("ksb", 1, cd, ksb, (size_t)C);
    }
    b.inits[ni++] = tensor_floats("W1", 2, w1d, W1, (size_t)(Hd * F));
    b.inits[ni++] = tensor_floats("b1", 1, h1d, b1, (size_t)Hd);
    b.inits[ni++] = tensor_floats("W2", 2, w2d, W2, (size_t)(O * Hd));
    b.inits[ni++] = tensor_floats("b2", 1, od, b2, (size_t)O);
    static const char *c0i[3] = {"x", "K0", "k0b"}, *c0o[1] = {"c0"}, *r0i[1] = {"c0"}, *r0o[1] = {"h"},
                      *cai[3] = {"h", "Ka", "kab"}, *cao[1] = {"ca"}, *rai[1] = {"ca"}, *rao[1] = {"ra"},
                      *cci[3] = {"ra", "Kc", "kcb"}, *cco[1] = {"cc"}, *rci[1] = {"cc"}, *rco[1] = {"rc"},
                      *cbi[3] = {"ra", "Kb", "kbb"}, *cbid[3] = {"rc", "Kb", "kbb"}, *cbo[1] = {"cb"},
                      *csi[3] = {"h", "Ks", "ksb"}, *cso[1] = {"s"}, *adi[2] = {"cb", "s"}, *adih[2] = {"cb", "h"},
                      *ado[1] = {"ad"}, *r1i[1] = {"ad"}, *r1o[1] = {"r1"}, *fi[1] = {"r1"}, *fo[1] = {"f"},
                      *g1i[3] = {"f", "W1", "b1"}, *g1o[1] = {"g1"}, *r2i[1] = {"g1"}, *r2o[1] = {"r2"},
                      *g2i[3] = {"r2", "W2", "b2"}, *g2o[1] = {"y"};
    b.nodes[nn] = node("Conv", "c0", 3, c0i, 1, c0o);
    node_attr(b.nodes[nn++], attr_ints("pads", 4, pads));
    b.nodes[nn++] = node("Relu", "r0", 1, r0i, 1, r0o);
    if (conv_sc && first) b.nodes[nn++] = node("Conv", "cs", 3, csi, 1, cso);
    b.nodes[nn] = node("Conv", "ca", 3, cai, 1, cao);
    node_attr(b.nodes[nn++], attr_ints("pads", 4, pads));
    b.nodes[nn++] = node("Relu", "ra", 1, rai, 1, rao);
    if (deep) {
        b.nodes[nn] = node("Conv", "cc", 3, cci, 1, cco);
        node_attr(b.nodes[nn++], attr_ints("pads", 4, pads));
        b.nodes[nn++] = node("Relu", "rc", 1, rci, 1, rco);
    }
    b.nodes[nn] = node("Conv", "cb", 3, deep ? cbid : cbi, 1, cbo);
    node_attr(b.nodes[nn++], attr_ints("pads", 4, pads));
    if (conv_sc && !first) b.nodes[nn++] = node("Conv", "cs", 3, csi, 1, cso);
    b.nodes[nn++] = node(sub ? "Sub" : "Add", "ad", 2, conv_sc ? adi : adih, 1, ado);
    b.nodes[nn++] = node("Relu", "r1", 1, r1i, 1, r1o);
    b.nodes[nn++] = node("Flatten", "flat", 1, fi, 1, fo);
    b.nodes[nn] = node("Gemm", "g1", 3, g1i, 1, g1o);
    node_attr(b.nodes[nn++], attr_int("transB", 1));
    b.nodes[nn++] = node("Relu", "r2", 1, r2i, 1, r2o);
    b.nodes[nn] = node("Gemm", "g2", 3, g2i, 1, g2o);
    node_attr(b.nodes[nn++], attr_int("transB", 1));
    b.graph.n_initializer = ni;
    b.graph.n_node = nn;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    *n_in = X * X;
    return m;
}

/* Residual nets (res_build): nnc_smp_chain_extract_res gives a chain that
 * computes the model (against the float64 runtime), whose carried neurons'
 * pre-activations are their originals' outputs and whose other neurons are
 * the model's ReLU neurons once each, in order; the batched search on it
 * never certifies a property that sampling shows violated, certifies
 * whatever CROWN does (and more, over the nets), gives the same tree on 1
 * and 2 threads, and its root bounds (alpha, some with ReLU splits)
 * contain every sampled point's pre-activations. */
START_TEST(test_bbd_residual)
{
    char err[NNC_ERRBUF_SIZE];
    int cert_bbd = 0, cert_crown = 0;
    for (int trial = 0; trial < 32; trial++) {
        int n;
        nnc_model *m = res_build(trial, &n);
        nnc_smp_chain *ch, *plain;
        ck_assert_int_eq(nnc_smp_chain_extract_from(&plain, m, m->inputs[0], 0, NNC_SMP_CHAIN_LINEAR, err, sizeof err),
                         NNC_STATUS_UNSUPPORTED);
        ck_assert_msg(nnc_smp_chain_extract_res(&ch, m, m->inputs[0], 0, err, sizeof err) == NNC_STATUS_OK, "trial %d: %s",
                      trial, err);
        nnc_bnd *b;
        ck_assert_int_eq(nnc_bnd_create(&b, m, err, sizeof err), NNC_STATUS_OK);
        int64_t nm = nnc_bnd_relu_count(b), nc = 0, next = 0;
        ck_assert_int_eq(ch->n_model_relu, nm);
        for (int l = 0; l + 1 < ch->n_layers; l++) {
            ck_assert(ch->layers[l].relu);
            nc += ch->layers[l].N;
        }
        ck_assert(!ch->layers[ch->n_layers - 1].relu);
        int64_t copies = 0;
        for (int64_t f = 0; f < nc; f++) {
            if (ch->carry_from[f] >= 0) {
                ck_assert(ch->carry_from[f] < f);
                ck_assert_int_eq(ch->relu_src[f], ch->relu_src[ch->carry_from[f]]);
                copies++;
                continue;
            }
            ck_assert_int_eq(ch->relu_src[f], next++); /* the model's neurons, in order, once each */
        }
        ck_assert_int_eq(next, nm);
        int X = 4 + trial % 2, deep = (trial / 2) % 2;
        ck_assert_int_eq(copies, (int64_t)(1 + deep) * 2 * X * X); /* h through one or two ReLU layers */
        nnc_runtime *rt;
        ck_assert_int_eq(nnc_rt_create(&rt, m, NNC_PRECISION_F64, 1, err, sizeof err), NNC_STATUS_OK);
        double lo[25], hi[25], x[25], y[3], yc[3], C[3], pre[512], post[512];
        ck_assert_int_le(nc, 512);
        random_box(n, lo, hi, 0.4);
        random_objective(3, C);
        double vmin = INFINITY;
        for (int s = 0; s < 4000; s++) {
            for (int i = 0; i < n; i++) x[i] = s < 256 ? (urand() < 0.5 ? lo[i] : hi[i]) : lo[i] + urand() * (hi[i] - lo[i]);
            const void *in[1] = {x};
            void *out[1] = {y};
            ck_assert_int_eq(nnc_rt_run(rt, 1, in, out, err, sizeof err), NNC_STATUS_OK);
            chain_eval_pre(ch, x, yc, pre);
            double v = 0;
            for (int j = 0; j < 3; j++) {
                ck_assert_msg(fabs(y[j] - yc[j]) <= 1e-9 * (1 + fabs(y[j])), "trial %d: runtime %g, chain %g", trial, y[j],
                              yc[j]);
                v += C[j] * y[j];
            }
            for (int64_t f = 0; f < nc; f++) post[f] = pre[f] > 0 ? pre[f] : 0;
            for (int64_t f = 0; f < nc; f++)
                if (ch->carry_from[f] >= 0) ck_assert(pre[f] == post[ch->carry_from[f]]);
            vmin = fmin(vmin, v);
        }
        nnc_rt_destroy(rt);
        nnc_bbd *e;
        ck_assert_msg(nnc_bbd_create(&e, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        ck_assert_int_eq(nnc_bbd_relu_count(e), nc);
        ck_assert_int_eq(nnc_bbd_model_relu_count(e), nm);
        double *rl = malloc(sizeof(double) * 2 * (size_t)nm), *rh = rl + nm;
        double *sl = malloc(sizeof(double) * 2 * (size_t)nc), *sh = sl + nc;
        bbd_two_sides(e, b, lo, hi, C, vmin, trial, &cert_bbd, &cert_crown, rl);
        /* the root's bounds (chain order), alpha then (some nets) ReLU
         * splits, against the violated threshold (so the splits run) */
        int dstart[2] = {0, 1}, cert;
        uint64_t nodes;
        nnc_rfn_problem p = {1, 1, 3, C, &vmin, dstart, NULL, NULL};
        nnc_bbd_opts o = {1, 16, 10, 4, 10, nnc_rfn_now() + FAR_S, 0, trial % 2 ? 8 : 0, sl, sh, 0, 0, 0, 0, 0, NULL, NULL, 0,
                          NULL, NULL, 0};
        ck_assert_int_eq(nnc_bbd_certify(e, lo, hi, rl, rh, &p, &o, &cert, &nodes), NNC_STATUS_OK);
        ck_assert(!cert);
        for (int s = 0; s < 2000; s++) {
            for (int i = 0; i < n; i++) x[i] = s < 128 ? (urand() < 0.5 ? lo[i] : hi[i]) : lo[i] + urand() * (hi[i] - lo[i]);
            chain_eval_pre(ch, x, yc, pre);
            for (int64_t f = 0; f < nc; f++)
                ck_assert_msg(pre[f] >= sl[f] - 1e-12 * (1 + fabs(pre[f])) && pre[f] <= sh[f] + 1e-12 * (1 + fabs(pre[f])),
                              "seed %llu trial %d neuron %lld: %.17g outside [%.17g, %.17g]", (unsigned long long)g_seed, trial, (long long)f, pre[f],
                              sl[f], sh[f]);
        }
        free(rl);
        free(sl);
        nnc_smp_chain_free(ch);
        nnc_bnd_destroy(b);
        nnc_bbd_destroy(e);
        nnc_mdl_destroy(m);
    }
    ck_assert_msg(cert_bbd > cert_crown, "seed %llu: batched search certified %d, CROWN %d", (unsigned long long)g_seed, cert_bbd, cert_crown);
}
END_TEST

int main(void)
{
    harness_seed("test_refine");
    Suite *su = suite_create("refine");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_any_slopes_sound);
    tcase_add_test(tc, test_slope_gradient);
    tcase_add_test(tc, test_smooth_and_intermediate_sound);
    tcase_add_test(tc, test_alpha_tightens);
    tcase_add_test(tc, test_random_splits_sound);
    tcase_add_test(tc, test_relusplit_certify);
    tcase_add_test(tc, test_bbd_certify);
    tcase_add_test(tc, test_bbd_root_splits);
    tcase_add_test(tc, test_bbd_team);
    tcase_add_test(tc, test_bbd_conv);
    tcase_add_test(tc, test_bbd_residual);
    suite_add_tcase(su, tc);
    return check_main_run(su);
}
