/* Gradient falsification (verifier/attack.c):
 *  - a 5-input ReLU network whose unsafe set is a small L1 ball (volume
 *    ~1e-9 of the box): the verifier's random falsification points all miss
 *    it, the attack finds a point inside, and the verifier (splitting off,
 *    so only the attack can find it) reports a validated counterexample
 *    that lies in the ball;
 *  - the attack's gradient agrees with central finite differences;
 *  - where the unsafe set is empty the attack hands no candidate to the
 *    check and the verifier reports none; every candidate it hands over
 *    violates (checked independently), and a rejecting check makes it go on
 *    without reporting anything;
 *  - graph mode (any model the bound engine covers: the gradient by
 *    back-substitution on the one-point box): on the same ReLU network the
 *    loss and gradient equal the chain mode's, and the attack finds the
 *    ball; on a Sigmoid network (not a dense chain) the gradient agrees
 *    with central differences and the joint objective (j = -1) is the
 *    smallest disjunct loss;
 *  - with many inputs (32) the two extreme corners are starts: on a net
 *    whose unsafe set lies near the all-upper corner and whose gradient
 *    everywhere else leads away from it (towards a safe plateau), the
 *    attack finds it, and does not from the centre and random starts
 *    alone (corners off). */
#include "nncert/spec.h"
#include "tests/unit/onnx_builder.h"
#include "verifier/attack_impl.h"
#include "verifier/sample_impl.h"
#include "nncert/verifier.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NI 5
static const float CEN[NI] = {0.3125f, 0.6875f, 0.5625f, 0.1875f, 0.8125f};

/* y = sum_i |x_i - CEN_i| - r : hidden relu(x_i - c_i), relu(c_i - x_i);
 * with sigmoid != 0 a Sigmoid replaces the Relu (not a dense chain) */
static nnc_model *ball_model(float r, int sigmoid)
{
    static float W1[2 * NI * NI], B1[2 * NI], W2[2 * NI], B2[1];
    memset(W1, 0, sizeof W1);
    for (int i = 0; i < NI; i++) {
        W1[(2 * i) * NI + i] = 1.0f;
        B1[2 * i] = -CEN[i];
        W1[(2 * i + 1) * NI + i] = -1.0f;
        B1[2 * i + 1] = CEN[i];
    }
    for (int j = 0; j < 2 * NI; j++) W2[j] = 1.0f;
    B2[0] = -r;
    nnc_model *model;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_mlp1(&model, NI, 2 * NI, 1, W1, B1, sigmoid ? "Sigmoid" : "Relu", W2, B2, err, sizeof err) ==
                      NNC_STATUS_OK,
                  "%s", err);
    return model;
}

/* the exact value of the network at x (float weights, double arithmetic
 * on these few terms is exact up to one rounding each; the test margins are
 * far larger) */
static double ball_value(const double *x, float r)
{
    double s = 0;
    for (int i = 0; i < NI; i++) s += fabs(x[i] - (double)CEN[i]);
    return s - (double)r;
}

static const char *BALL_SPEC = "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const X_2 Real)"
                               "(declare-const X_3 Real)(declare-const X_4 Real)(declare-const Y_0 Real)"
                               "(assert (>= X_0 0))(assert (<= X_0 1))(assert (>= X_1 0))(assert (<= X_1 1))"
                               "(assert (>= X_2 0))(assert (<= X_2 1))(assert (>= X_3 0))(assert (<= X_3 1))"
                               "(assert (>= X_4 0))(assert (<= X_4 1))(assert (<= Y_0 0))";

/* unsafe: 1 . y <= 0 */
static const double ONE_C[1] = {1.0}, ZERO_D[1] = {0.0};
static const int DSTART[2] = {0, 1};
static const nnc_atk_problem PROB = {1, 1, ONE_C, ZERO_D, DSTART};
static const double LO[NI] = {0, 0, 0, 0, 0}, HI[NI] = {1, 1, 1, 1, 1};

typedef struct rec {
    float r;
    int accept, calls, bad;
    double x[NI];
} rec;

static int record(void *p, int j, const double *x)
{
    rec *c = p;
    ck_assert_int_eq(j, 0);
    c->calls++;
    if (!(ball_value(x, c->r) <= 0)) c->bad++;
    for (int i = 0; i < NI; i++)
        if (!(x[i] >= LO[i] && x[i] <= HI[i])) c->bad++;
    memcpy(c->x, x, sizeof c->x);
    return c->accept;
}

static nnc_atk_opts opts(void)
{
    nnc_atk_opts o = {16, 32, 100, 7, 0, INFINITY, NULL, NULL};
    return o;
}

/* The attack on the ball of radius r, from random starts only (no centre
 * or corner help): the first point it hands over is accepted, lies in the
 * ball, and no point outside was handed over. */
static void expect_ball_found(nnc_atk *a, float r)
{
    rec c = {r, 1, 0, 0, {0}};
    nnc_atk_opts o = opts();
    o.max_corners = 0;
    int found = 0;
    uint64_t evals = 0;
    ck_assert_int_eq(nnc_atk_run(a, &PROB, LO, HI, NULL, 0, &o, record, &c, &found, &evals), NNC_STATUS_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(c.calls, 1);
    ck_assert_int_eq(c.bad, 0);
    ck_assert(ball_value(c.x, r) <= 0);
    ck_assert(evals > 0);
}

START_TEST(test_attack_finds_narrow_region)
{
    const float r = 0.02f; /* L1 ball of radius 0.02: volume (2r)^5 / 5! ~ 8.5e-10 */
    /* the verifier's random falsification points (4 rounds of 1024, seeds
     * as verify.c draws them for seeds 1..4) all miss it */
    double *xs = malloc(sizeof(double) * 4096 * NI);
    ck_assert_ptr_nonnull(xs);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        nnc_smp_box_points(xs, 4096, NI, seed ^ 0x5eed5eed5eedULL, (uint64_t)1 << 48, LO, HI);
        for (int s = 0; s < 4096; s++) ck_assert(ball_value(xs + (size_t)s * NI, r) > 0);
    }
    free(xs);
    nnc_model *m = ball_model(r, 0);
    char err[NNC_ERRBUF_SIZE];
    nnc_atk *a;
    ck_assert_msg(nnc_atk_create(&a, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(nnc_atk_num_inputs(a), NI);
    ck_assert_int_eq(nnc_atk_num_outputs(a), 1);
    /* gradient against central differences at points off the kinks */
    for (int t = 0; t < 20; t++) {
        double x[NI], g[NI], y, xp[NI];
        for (int i = 0; i < NI; i++) x[i] = fmod(0.137 * (t + 1) * (i + 3), 1.0);
        double L = nnc_atk_loss_grad(a, &PROB, 0, 0, x, g, &y);
        ck_assert(fabs(y - ball_value(x, r)) < 1e-12);
        ck_assert(fabs(L - fmax(0, y)) < 1e-15);
        for (int i = 0; i < NI; i++) {
            memcpy(xp, x, sizeof xp);
            xp[i] += 1e-7;
            double Lp = nnc_atk_loss_grad(a, &PROB, 0, 0, xp, NULL, NULL);
            xp[i] -= 2e-7;
            double Lm = nnc_atk_loss_grad(a, &PROB, 0, 0, xp, NULL, NULL);
            ck_assert_msg(fabs((Lp - Lm) / 2e-7 - g[i]) < 1e-6, "grad %d: %g vs %g", i, (Lp - Lm) / 2e-7, g[i]);
        }
    }
    /* the attack, from random starts only (no centre or corner help): found */
    expect_ball_found(a, r);
    nnc_atk_destroy(a);
    /* the verifier, box bounded once (no split, hence no leaf candidates
     * beyond the root's): violated, with a counterexample in the ball */
    nnc_spec *s;
    ck_assert_msg(nnc_spc_parse(&s, BALL_SPEC, strlen(BALL_SPEC), err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_vrf_opts vo;
    nnc_vrf_opts_default(&vo);
    vo.split = 0;
    vo.samples = 1000;
    nnc_vrf_report rep;
    ck_assert_msg(nnc_vrf_run(m, s, &vo, &rep, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(rep.result, NNC_VRF_VIOLATED);
    ck_assert(rep.has_counterexample && rep.cex_input != NULL);
    ck_assert(ball_value(rep.cex_input, r) <= 0);
    ck_assert(rep.cex_output[0] <= 0);
    ck_assert_uint_eq(rep.sample_violations, 0); /* sampling alone would not have found it */
    nnc_vrf_report_clear(&rep);
    nnc_spc_destroy(s);
    nnc_mdl_destroy(m);
}
END_TEST

START_TEST(test_attack_never_reports_safe_points)
{
    char err[NNC_ERRBUF_SIZE];
    /* r < 0: y >= 0.001 everywhere, the unsafe set y <= 0 is empty */
    nnc_model *m = ball_model(-0.001f, 0);
    nnc_atk *a;
    ck_assert_int_eq(nnc_atk_create(&a, m, err, sizeof err), NNC_STATUS_OK);
    rec c = {-0.001f, 1, 0, 0, {0}};
    nnc_atk_opts o = opts();
    o.restarts = 64;
    int found = 1;
    uint64_t evals = 0;
    ck_assert_int_eq(nnc_atk_run(a, &PROB, LO, HI, NULL, 0, &o, record, &c, &found, &evals), NNC_STATUS_OK);
    ck_assert_int_eq(found, 0);
    ck_assert_int_eq(c.calls, 0);
    ck_assert(evals > 1000);
    nnc_atk_destroy(a);
    nnc_spec *s;
    ck_assert_int_eq(nnc_spc_parse(&s, BALL_SPEC, strlen(BALL_SPEC), err, sizeof err), NNC_STATUS_OK);
    nnc_vrf_opts vo;
    nnc_vrf_opts_default(&vo);
    vo.split = 0;
    vo.samples = 100;
    nnc_vrf_report rep;
    ck_assert_int_eq(nnc_vrf_run(m, s, &vo, &rep, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_ne(rep.result, NNC_VRF_VIOLATED);
    ck_assert(!rep.has_counterexample);
    nnc_vrf_report_clear(&rep);
    nnc_mdl_destroy(m);
    /* a non-empty set and a check that rejects everything: every candidate
     * handed over violates, and nothing is reported */
    m = ball_model(0.05f, 0);
    ck_assert_int_eq(nnc_atk_create(&a, m, err, sizeof err), NNC_STATUS_OK);
    rec c2 = {0.05f, 0, 0, 0, {0}};
    o.restarts = 8;
    ck_assert_int_eq(nnc_atk_run(a, &PROB, LO, HI, NULL, 0, &o, record, &c2, &found, &evals), NNC_STATUS_OK);
    ck_assert_int_eq(found, 0);
    ck_assert(c2.calls > 0);
    ck_assert_int_eq(c2.bad, 0);
    /* given starts come first: one at the centre of the ball is accepted at once */
    double st[NI];
    for (int i = 0; i < NI; i++) st[i] = CEN[i];
    rec c3 = {0.05f, 1, 0, 0, {0}};
    ck_assert_int_eq(nnc_atk_run(a, &PROB, LO, HI, st, 1, &o, record, &c3, &found, &evals), NNC_STATUS_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(evals, 1);
    ck_assert_int_eq(c3.bad, 0);
    nnc_atk_destroy(a);
    nnc_spc_destroy(s);
    nnc_mdl_destroy(m);
}
END_TEST

START_TEST(test_attack_graph_mode)
{
    char err[NNC_ERRBUF_SIZE];
    const float r = 0.02f;
    /* the ReLU ball: graph mode equals chain mode (loss, gradient) off the kinks */
    nnc_model *m = ball_model(r, 0);
    nnc_atk *ac, *ag;
    ck_assert_msg(nnc_atk_create(&ac, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_msg(nnc_atk_create_graph(&ag, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(nnc_atk_num_inputs(ag), NI);
    ck_assert_int_eq(nnc_atk_num_outputs(ag), 1);
    for (int t = 0; t < 20; t++) {
        double x[NI], gc[NI], gg[NI], yc, yg;
        for (int i = 0; i < NI; i++) x[i] = fmod(0.137 * (t + 1) * (i + 3), 1.0);
        double Lc = nnc_atk_loss_grad(ac, &PROB, 0, 0, x, gc, &yc);
        double Lg = nnc_atk_loss_grad(ag, &PROB, 0, 0, x, gg, &yg);
        ck_assert_msg(fabs(yc - yg) < 1e-12 && fabs(Lc - Lg) < 1e-12, "t %d: y %g vs %g", t, yc, yg);
        for (int i = 0; i < NI; i++) ck_assert_msg(fabs(gc[i] - gg[i]) < 1e-12, "t %d grad %d: %g vs %g", t, i, gc[i], gg[i]);
    }
    expect_ball_found(ag, r);
    nnc_atk_destroy(ac);
    nnc_atk_destroy(ag);
    nnc_mdl_destroy(m);
    /* Sigmoid hidden layer: not a dense chain, attacked in graph mode; the
     * gradient against central differences */
    m = ball_model(r, 1);
    ck_assert_msg(nnc_atk_create(&ag, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    /* two disjuncts on the one output: y <= -1 and -y <= -1 (y >= 1) */
    static const double C2[2] = {1, -1}, D2[2] = {-1, -1};
    static const int DS2[3] = {0, 1, 2};
    nnc_atk_problem p2 = {2, 2, C2, D2, DS2};
    for (int t = 0; t < 10; t++) {
        double x[NI], g[NI], xp[NI], y;
        for (int i = 0; i < NI; i++) x[i] = fmod(0.291 * (t + 1) * (i + 2), 1.0);
        double L = nnc_atk_loss_grad(ag, &PROB, 0, 0, x, g, &y);
        ck_assert(isfinite(L));
        for (int i = 0; i < NI; i++) {
            memcpy(xp, x, sizeof xp);
            xp[i] += 1e-6;
            double Lp = nnc_atk_loss_grad(ag, &PROB, 0, 0, xp, NULL, NULL);
            xp[i] -= 2e-6;
            double Lm = nnc_atk_loss_grad(ag, &PROB, 0, 0, xp, NULL, NULL);
            double fd = (Lp - Lm) / 2e-6;
            ck_assert_msg(fabs(fd - g[i]) < 1e-5 * (1 + fabs(fd)), "sigmoid grad %d: %g vs %g", i, fd, g[i]);
        }
        double l0 = nnc_atk_loss_grad(ag, &p2, 0, 0, x, NULL, NULL), l1 = nnc_atk_loss_grad(ag, &p2, 1, 0, x, NULL, NULL);
        double lj = nnc_atk_loss_grad(ag, &p2, -1, 0, x, NULL, NULL);
        ck_assert(lj == fmin(l0, l1));
    }
    nnc_atk_destroy(ag);
    nnc_mdl_destroy(m);
}
END_TEST

/* 32 inputs, m = their mean: y = 0.1 + relu(m - 0.2) - 31 relu(m - 0.9).
 * y rises with m on [0.2, 0.9] and is flat (0.1) below 0.2, so descent from
 * the centre or from random points (m near 0.5) goes down to the plateau;
 * y <= 0 only for m >= 0.9267 (the all-upper corner has y = -2.2). */
#define NW 32
static nnc_model *trap_model(void)
{
    static float W1[2 * NW], B1[2] = {-0.2f, -0.9f}, W2[2] = {1.0f, -31.0f}, B2[1] = {0.1f};
    for (int i = 0; i < 2 * NW; i++) W1[i] = 1.0f / NW;
    nnc_model *model;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_mlp1(&model, NW, 2, 1, W1, B1, "Relu", W2, B2, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return model;
}

static double trap_value(const double *x)
{
    double s = 0;
    for (int i = 0; i < NW; i++) s += x[i];
    s /= NW;
    return 0.1 + fmax(0, s - 0.2) - 31 * fmax(0, s - 0.9);
}

typedef struct trap_rec {
    int calls, bad;
} trap_rec;

static int trap_record(void *p, int j, const double *x)
{
    trap_rec *c = p;
    c->calls++;
    for (int i = 0; i < NW; i++)
        if (!(x[i] >= 0 && x[i] <= 1)) c->bad++;
    if (!(trap_value(x) <= 1e-6)) c->bad++; /* float weights: 1/32 and 0.1 round */
    return 1;
}

START_TEST(test_attack_extreme_corners)
{
    nnc_model *m = trap_model();
    char err[NNC_ERRBUF_SIZE];
    double lo[NW], hi[NW];
    for (int i = 0; i < NW; i++) {
        lo[i] = 0;
        hi[i] = 1;
    }
    for (int graph = 0; graph <= 1; graph++) {
        nnc_atk *a;
        ck_assert_msg((graph ? nnc_atk_create_graph : nnc_atk_create)(&a, m, err, sizeof err) == NNC_STATUS_OK, "%s",
                      err);
        nnc_atk_opts o = opts();
        o.restarts = 64;
        o.max_corners = 0; /* centre and random starts only: all end on the plateau */
        trap_rec c = {0, 0};
        int found = 1;
        uint64_t evals = 0;
        ck_assert_int_eq(nnc_atk_run(a, &PROB, lo, hi, NULL, 0, &o, trap_record, &c, &found, &evals), NNC_STATUS_OK);
        ck_assert_int_eq(found, 0);
        ck_assert_int_eq(c.calls, 0);
        o = opts(); /* with the extreme corners: found, inside the unsafe set */
        o.restarts = 0;
        ck_assert_int_eq(nnc_atk_run(a, &PROB, lo, hi, NULL, 0, &o, trap_record, &c, &found, &evals), NNC_STATUS_OK);
        ck_assert_int_eq(found, 1);
        ck_assert_int_eq(c.calls, 1);
        ck_assert_int_eq(c.bad, 0);
        nnc_atk_destroy(a);
    }
    nnc_mdl_destroy(m);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("attack");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_attack_finds_narrow_region);
    tcase_add_test(tc, test_attack_never_reports_safe_points);
    tcase_add_test(tc, test_attack_graph_mode);
    tcase_add_test(tc, test_attack_extreme_corners);
    suite_add_tcase(su, tc);
    return check_main_run(su);
}
