/* Quantitative correctness of the verifier (verifier/verify.c):
 *  - a linear classifier over the unit square, whose exact violation
 *    fraction is a polygon area: the reported interval contains it in every
 *    one of 40 seeded runs, and narrows as the sample grows;
 *  - a 2-input ReLU network: the interval is consistent with certified
 *    bounds from an exhaustive fine grid (cells classified by exact interval
 *    arithmetic on the piecewise-linear network);
 *  - holds / violated verdicts and counterexample validation. */
#include "nncert/spec.h"
#include "tests/unit/onnx_builder.h"
#include "nncert/verifier.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* y = W x + b for x in R^2, W [n_out, 2] (Gemm, transB) */
static nnc_model *linear_model(int n_out, const float *W, const float *b)
{
    static const char *gi[3] = {"x", "W", "b"}, *go[1] = {"y"};
    int64_t xd[2] = {1, 2}, wd[2] = {n_out, 2}, bd[1] = {n_out};
    mb m;
    mb_init(&m, 13);
    mb_input(&m, "x", 2, xd);
    mb_output(&m, "y");
    m.inits[0] = tensor_floats("W", 2, wd, W, (size_t)(2 * n_out));
    m.inits[1] = tensor_floats("b", 1, bd, b, (size_t)n_out);
    m.graph.n_initializer = 2;
    m.nodes[0] = node("Gemm", "g", 3, gi, 1, go);
    node_attr(m.nodes[0], attr_int("transB", 1));
    m.graph.n_node = 1;
    nnc_model *model;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&m, &model, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return model;
}

/* 2 -> 8 -> 1 ReLU network with fixed weights */
static const float R1[16] = {1.0f, -0.5f, -0.7f, 1.2f, 0.3f, 0.9f, -1.1f, -0.4f, 0.8f, 0.8f, -0.6f, 0.2f, 1.5f, -1.3f, 0.1f, -0.9f};
static const float RB1[8] = {-0.2f, 0.1f, -0.4f, 0.5f, -0.6f, 0.0f, -0.3f, 0.4f};
static const float R2[8] = {1.0f, -1.0f, 0.7f, -0.8f, 1.2f, -0.5f, 0.9f, -0.6f};
static const float RB2[1] = {0.05f};

static nnc_model *relu_model(void)
{
    nnc_model *model;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_mlp1(&model, 2, 8, 1, R1, RB1, "Relu", R2, RB2, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return model;
}

static nnc_spec *spec_of(const char *text)
{
    nnc_spec *s;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(nnc_spc_parse(&s, text, strlen(text), err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return s;
}

/* Area of {x in [0,1]^2 : a x0 + b x1 + c >= 0} by clipping the square. */
static double halfplane_area(double a, double b, double c)
{
    double px[8] = {0, 1, 1, 0}, py[8] = {0, 0, 1, 1}, qx[8], qy[8];
    int n = 4, m = 0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        double fi = a * px[i] + b * py[i] + c, fj = a * px[j] + b * py[j] + c;
        if (fi >= 0) { qx[m] = px[i]; qy[m] = py[i]; m++; }
        if ((fi >= 0) != (fj >= 0)) {
            double t = fi / (fi - fj);
            qx[m] = px[i] + t * (px[j] - px[i]);
            qy[m] = py[i] + t * (py[j] - py[i]);
            m++;
        }
    }
    double area = 0;
    for (int i = 0; i < m; i++) {
        int j = (i + 1) % m;
        area += qx[i] * qy[j] - qx[j] * qy[i];
    }
    return fabs(area) / 2;
}

START_TEST(test_linear_exact_fraction)
{
    const float W[2] = {1.0f, 0.75f}, b[1] = {-1.0f};
    nnc_model *m = linear_model(1, W, b);
    nnc_spec *s = spec_of("(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
                          "(assert (>= X_0 0))(assert (<= X_0 1))(assert (>= X_1 0))(assert (<= X_1 1))"
                          "(assert (>= Y_0 0))");
    double exact = halfplane_area(1.0, 0.75, -1.0);
    char err[NNC_ERRBUF_SIZE];
    nnc_vrf_opts o;
    nnc_vrf_opts_default(&o);
    o.max_leaves = 64;
    o.samples = 2000;
    o.confidence = 0.999;
    double width_small = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        o.seed = seed;
        nnc_vrf_report r;
        ck_assert_msg(nnc_vrf_run(m, s, &o, &r, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        ck_assert_msg(r.violation_lo <= exact && exact <= r.violation_hi, "seed %llu: exact %.9f outside [%.9f, %.9f]",
                      (unsigned long long)seed, exact, r.violation_lo, r.violation_hi);
        ck_assert(r.certified_safe_fraction > 0.3 && r.certified_unsafe_fraction > 0.1);
        ck_assert_int_eq(r.result, NNC_VRF_VIOLATED);
        ck_assert(r.has_counterexample);
        /* the counterexample really violates: W x + b >= 0 (as stored floats) */
        double y = (double)W[0] * r.cex_input[0] + (double)W[1] * r.cex_input[1] + (double)b[0];
        ck_assert(y >= 0);
        width_small += r.violation_hi - r.violation_lo;
        nnc_vrf_report_clear(&r);
    }
    /* 16x the samples: Clopper-Pearson width shrinks about 4x */
    double width_big = 0;
    o.samples = 32000;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        o.seed = seed;
        nnc_vrf_report r;
        ck_assert_int_eq(nnc_vrf_run(m, s, &o, &r, err, sizeof err), NNC_STATUS_OK);
        ck_assert(r.violation_lo <= exact && exact <= r.violation_hi);
        width_big += r.violation_hi - r.violation_lo;
        nnc_vrf_report_clear(&r);
    }
    ck_assert_msg(width_big / 5 < 0.4 * (width_small / 40), "widths %g (32000 samples) vs %g (2000)", width_big / 5, width_small / 40);
    nnc_spc_destroy(s);
    nnc_mdl_destroy(m);
}
END_TEST

/* Exact interval evaluation of the ReLU network over a cell (no rounding
 * issues: the certified grid bounds use a margin well above float error). */
static void cell_range(double x0, double x1, double y0, double y1, double *lo, double *hi)
{
    double l = RB2[0], h = RB2[0];
    for (int j = 0; j < 8; j++) {
        double a = R1[2 * j], b = R1[2 * j + 1];
        double hl = RB1[j] + fmin(a * x0, a * x1) + fmin(b * y0, b * y1);
        double hh = RB1[j] + fmax(a * x0, a * x1) + fmax(b * y0, b * y1);
        hl = fmax(hl, 0);
        hh = fmax(hh, 0);
        l += R2[j] >= 0 ? R2[j] * hl : R2[j] * hh;
        h += R2[j] >= 0 ? R2[j] * hh : R2[j] * hl;
    }
    *lo = l - 1e-9;
    *hi = h + 1e-9;
}

/* Certified bounds [*glo, *ghi] of the exact fraction of [-1,1]^2 where the
 * relu model's output is >= 0, from a G x G grid of cells. */
static void grid_fraction(int G, double *glo, double *ghi)
{
    double sure = 0, maybe = 0;
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            double lo, hi;
            cell_range(-1 + 2.0 * i / G, -1 + 2.0 * (i + 1) / G, -1 + 2.0 * j / G, -1 + 2.0 * (j + 1) / G, &lo, &hi);
            if (lo >= 0) sure += 1;
            else if (hi >= 0) maybe += 1;
        }
    *glo = sure / ((double)G * G);
    *ghi = (sure + maybe) / ((double)G * G);
}

/* The ReLU model's property over [-1, 1]^2 that grid_fraction measures. */
static const char RELU_BOX_SPEC[] = "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
                                    "(assert (>= X_0 -1))(assert (<= X_0 1))(assert (>= X_1 -1))(assert (<= X_1 1))"
                                    "(assert (>= Y_0 0))";

START_TEST(test_relu_grid_consistency)
{
    nnc_model *m = relu_model();
    nnc_spec *s = spec_of(RELU_BOX_SPEC);
    /* certified grid bounds of the exact fraction */
    int G = 512;
    double glo, ghi;
    grid_fraction(G, &glo, &ghi);
    ck_assert(ghi - glo < 0.05);
    char err[NNC_ERRBUF_SIZE];
    nnc_vrf_opts o;
    nnc_vrf_opts_default(&o);
    o.max_leaves = 400;
    o.samples = 4000;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        o.seed = seed;
        nnc_vrf_report r;
        ck_assert_msg(nnc_vrf_run(m, s, &o, &r, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        /* the exact value lies in [glo, ghi] and, with high confidence, in ours */
        ck_assert_msg(r.violation_lo <= ghi && r.violation_hi >= glo, "seed %llu: [%g, %g] vs grid [%g, %g]",
                      (unsigned long long)seed, r.violation_lo, r.violation_hi, glo, ghi);
        /* certified parts agree with the grid: certified unsafe <= exact <= 1 - certified safe */
        ck_assert(r.certified_unsafe_fraction <= ghi + 1e-12);
        ck_assert(1 - r.certified_safe_fraction >= glo - 1e-12);
        nnc_vrf_report_clear(&r);
    }
    nnc_spc_destroy(s);
    nnc_mdl_destroy(m);
}
END_TEST

/* Two reports of the same run, equal in every field but the time. */
static void same_report(const nnc_vrf_report *a, const nnc_vrf_report *b, int threads)
{
    ck_assert_msg(a->result == b->result && a->violation_lo == b->violation_lo && a->violation_hi == b->violation_hi &&
                      a->certified_safe_fraction == b->certified_safe_fraction &&
                      a->certified_unsafe_fraction == b->certified_unsafe_fraction && a->open_fraction == b->open_fraction &&
                      a->samples == b->samples && a->sample_violations == b->sample_violations && a->leaves == b->leaves &&
                      a->leaves_safe == b->leaves_safe && a->leaves_unsafe == b->leaves_unsafe &&
                      a->leaves_open == b->leaves_open && a->has_counterexample == b->has_counterexample,
                  "threads %d: reports differ", threads);
    if (a->has_counterexample) {
        ck_assert_int_eq(a->counterexample_case, b->counterexample_case);
        ck_assert(memcmp(a->cex_input, b->cex_input, sizeof(double) * (size_t)a->n_in) == 0);
        ck_assert(memcmp(a->cex_output, b->cex_output, sizeof(double) * (size_t)a->n_out) == 0);
    }
}

/* Leaves bounded on several threads: for a given thread count the report is
 * the same run after run (leaves are merged in queue order, each worker's
 * leaves fixed by their batch position), and every thread count gives a
 * sound report. */
START_TEST(test_threads_deterministic)
{
    nnc_model *m = relu_model();
    nnc_spec *s = spec_of(RELU_BOX_SPEC);
    int G = 256;
    double glo, ghi;
    grid_fraction(G, &glo, &ghi);
    char err[NNC_ERRBUF_SIZE];
    for (int threads = 1; threads <= 4; threads++) {
        nnc_vrf_opts o;
        nnc_vrf_opts_default(&o);
        o.max_leaves = 3000;
        o.samples = 3000;
        o.seed = 7;
        o.threads = threads;
        nnc_vrf_report r[3];
        for (int t = 0; t < 3; t++) {
            ck_assert_msg(nnc_vrf_run(m, s, &o, &r[t], err, sizeof err) == NNC_STATUS_OK, "%s", err);
            if (t) same_report(&r[0], &r[t], threads);
        }
        ck_assert(r[0].leaves >= 3000);
        ck_assert_int_eq(r[0].result, NNC_VRF_VIOLATED);
        ck_assert(r[0].cex_output[0] >= 0);
        ck_assert_msg(r[0].violation_lo <= ghi && r[0].violation_hi >= glo, "threads %d: [%g, %g] vs grid [%g, %g]",
                      threads, r[0].violation_lo, r[0].violation_hi, glo, ghi);
        ck_assert(r[0].certified_unsafe_fraction <= ghi + 1e-12);
        ck_assert(1 - r[0].certified_safe_fraction >= glo - 1e-12);
        for (int t = 0; t < 3; t++) nnc_vrf_report_clear(&r[t]);
    }
    nnc_spc_destroy(s);
    nnc_mdl_destroy(m);
}
END_TEST

/* Largest certified upper bound of the ReLU model's output over the cells
 * of a G x G grid of [-1, 1]^2: the output never exceeds it. */
static double grid_max(int G)
{
    double mx = -INFINITY;
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            double lo, hi;
            cell_range(-1 + 2.0 * i / G, -1 + 2.0 * (i + 1) / G, -1 + 2.0 * j / G, -1 + 2.0 * (j + 1) / G, &lo, &hi);
            mx = fmax(mx, hi);
        }
    return mx;
}

/* Report invariants of one case's tree: the certified and open fractions
 * add up to the box (the leaves have dyadic volumes, exact in a double: a
 * leaf lost or counted twice shows), and the leaves are a binary tree's
 * nodes: twice its terminal leaves, less one. */
static void tree_invariants(const nnc_vrf_report *r, const char *what, int v)
{
    double sum = r->certified_safe_fraction + r->certified_unsafe_fraction + r->open_fraction;
    ck_assert_msg(sum == 1.0, "%s %d: safe %.17g + unsafe %.17g + open %.17g = %.17g", what, v, r->certified_safe_fraction,
                  r->certified_unsafe_fraction, r->open_fraction, sum);
    ck_assert_msg(r->leaves == 2 * (r->leaves_safe + r->leaves_unsafe + r->leaves_open) - 1,
                  "%s %d: %llu leaves, %llu safe, %llu unsafe, %llu open", what, v, (unsigned long long)r->leaves,
                  (unsigned long long)r->leaves_safe, (unsigned long long)r->leaves_unsafe, (unsigned long long)r->leaves_open);
}

/* --symbolic auto: the symbolic engine's own splits first, then the cascade
 * from where they stopped (its certified volume and open leaves kept).  The
 * switch forced after a few leaves (symbolic_own_leaves): the tree stays
 * whole (tree_invariants), the volume certified before the switch is kept
 * (at least that of an own-mode run stopped there), and the answers agree
 * with cascade-only and own-only runs and with the certified grid, on a
 * violated property and on one that holds (output below a certified grid
 * maximum); with the split dimension chosen by influence score, by
 * look-ahead, and auto (three phases). */
START_TEST(test_symbolic_switch)
{
    nnc_model *m = relu_model();
    int G = 256;
    double glo, ghi;
    grid_fraction(G, &glo, &ghi);
    double ymax = grid_max(512);
    ck_assert(ymax < 2.8);
    static const char HOLDS_SPEC[] = "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
                                     "(assert (>= X_0 -1))(assert (<= X_0 1))(assert (>= X_1 -1))(assert (<= X_1 1))"
                                     "(assert (>= Y_0 2.8))";
    char err[NNC_ERRBUF_SIZE];
    for (int t = 0; t < 6; t++) {
        /* the split choice: influence score, look-ahead, auto (with symbolic
         * auto: a plain phase, a look-ahead one, then the cascade) */
        int holds = t & 1, la = t < 2 ? 0 : t < 4 ? 3 : -1;
        nnc_spec *s = spec_of(holds ? HOLDS_SPEC : RELU_BOX_SPEC);
        nnc_vrf_opts o;
        nnc_vrf_opts_default(&o);
        o.split_lookahead = la;
        o.max_leaves = holds ? 100000 : 1500;
        o.samples = 2000;
        o.seed = 3;
        o.timeout_s = 1e6; /* leaf budgets only: the same tree on every machine */
        o.exact = 0;       /* it decides this small model at the root: no frontier to switch on */
        nnc_vrf_report ref[2];
        for (int mode = 1; mode <= 2; mode++) { /* cascade, own */
            o.symbolic = mode;
            ck_assert_msg(nnc_vrf_run(m, s, &o, &ref[mode - 1], err, sizeof err) == NNC_STATUS_OK, "%s", err);
            tree_invariants(&ref[mode - 1], holds ? "holds, mode" : "violated, mode", mode);
            ck_assert_int_eq(ref[mode - 1].result, holds ? NNC_VRF_HOLDS : NNC_VRF_VIOLATED);
        }
        static const uint64_t own_leaves[] = {1, 3, 8, 25, 90};
        int switched = 0;
        for (int threads = 1; threads <= 2; threads++)
            for (size_t li = 0; li < sizeof own_leaves / sizeof own_leaves[0]; li++) {
                uint64_t L = own_leaves[li];
                /* own mode stopped after L leaves: the first phase's tree */
                nnc_vrf_opts oo = o;
                oo.threads = threads;
                oo.symbolic = 2;
                oo.max_leaves = L;
                nnc_vrf_report first, r;
                ck_assert_msg(nnc_vrf_run(m, s, &oo, &first, err, sizeof err) == NNC_STATUS_OK, "%s", err);
                nnc_vrf_opts oa = o;
                oa.threads = threads;
                oa.symbolic = -1;
                oa.symbolic_own_leaves = L;
                ck_assert_msg(nnc_vrf_run(m, s, &oa, &r, err, sizeof err) == NNC_STATUS_OK, "%s", err);
                tree_invariants(&r, holds ? "holds, own leaves" : "violated, own leaves", (int)L);
                switched += first.open_fraction > 0;
                ck_assert_msg(r.certified_safe_fraction >= first.certified_safe_fraction &&
                                  r.certified_unsafe_fraction >= first.certified_unsafe_fraction,
                              "own leaves %d: certified volume lost at the switch (%g, %g before; %g, %g after)", (int)L,
                              first.certified_safe_fraction, first.certified_unsafe_fraction, r.certified_safe_fraction,
                              r.certified_unsafe_fraction);
                ck_assert(r.leaves > first.leaves || first.open_fraction == 0);
                if (holds) {
                    ck_assert_int_eq(r.result, NNC_VRF_HOLDS);
                    ck_assert(r.certified_safe_fraction == 1 && r.violation_hi == 0);
                } else {
                    ck_assert_int_eq(r.result, NNC_VRF_VIOLATED);
                    ck_assert(r.cex_output[0] >= 0);
                    ck_assert_msg(r.violation_lo <= ghi && r.violation_hi >= glo, "own leaves %d: [%g, %g] vs grid [%g, %g]",
                                  (int)L, r.violation_lo, r.violation_hi, glo, ghi);
                    ck_assert(r.certified_unsafe_fraction <= ghi + 1e-12);
                    ck_assert(1 - r.certified_safe_fraction >= glo - 1e-12);
                }
                nnc_vrf_report_clear(&first);
                nnc_vrf_report_clear(&r);
            }
        ck_assert_msg(switched >= 4, "test %d: %d switches", t, switched); /* from frontiers of several sizes */
        for (int i = 0; i < 2; i++) nnc_vrf_report_clear(&ref[i]);
        nnc_spc_destroy(s);
    }
    nnc_mdl_destroy(m);
}
END_TEST

/* The look-ahead split choice (and the plain one) never splits a degenerate
 * input (a zero-width dimension would give children equal to their parent:
 * the tree would never close); on the line x1 = 0.25 the property holds and
 * is proved, with the tree whole. */
START_TEST(test_lookahead_degenerate_dim)
{
    nnc_model *m = relu_model();
    ck_assert(grid_max(512) < 2.8);
    nnc_spec *s = spec_of("(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
                          "(assert (>= X_0 -1))(assert (<= X_0 1))(assert (>= X_1 0.25))(assert (<= X_1 0.25))"
                          "(assert (>= Y_0 2.8))");
    char err[NNC_ERRBUF_SIZE];
    for (int la = -1; la <= 8; la++) {
        for (int mode = -1; mode <= 2; mode++) {
            if (mode == 0) continue;
            nnc_vrf_opts o;
            nnc_vrf_opts_default(&o);
            o.split_lookahead = la;
            o.symbolic = mode;
            o.symbolic_own_leaves = 2;
            o.max_leaves = 20000;
            o.timeout_s = 1e6;
            nnc_vrf_report r;
            ck_assert_msg(nnc_vrf_run(m, s, &o, &r, err, sizeof err) == NNC_STATUS_OK, "%s", err);
            ck_assert_msg(r.result == NNC_VRF_HOLDS, "look-ahead %d, mode %d: %s after %llu leaves", la, mode,
                          nnc_vrf_result_name(r.result), (unsigned long long)r.leaves);
            tree_invariants(&r, "degenerate input, look-ahead", la);
            nnc_vrf_report_clear(&r);
        }
    }
    nnc_spc_destroy(s);
    nnc_mdl_destroy(m);
}
END_TEST

/* y = x0 + x1 on [0,1]^2, which is never below -0.5: *s says it is (a
 * property that holds) */
static nnc_model *holding_case(nnc_spec **s)
{
    const float W[2] = {1.0f, 1.0f}, b[1] = {0.0f};
    *s = spec_of("(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
                 "(assert (>= X_0 0))(assert (<= X_0 1))(assert (>= X_1 0))(assert (<= X_1 1))"
                 "(assert (<= Y_0 -0.5))");
    return linear_model(1, W, b);
}

START_TEST(test_holds_and_bad_dims)
{
    nnc_spec *s;
    nnc_model *m = holding_case(&s);
    char err[NNC_ERRBUF_SIZE];
    nnc_vrf_report r;
    ck_assert_int_eq(nnc_vrf_run(m, s, NULL, &r, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(r.result, NNC_VRF_HOLDS);
    ck_assert(r.violation_hi == 0 && r.certified_safe_fraction == 1);
    nnc_vrf_report_clear(&r);
    nnc_spc_destroy(s);
    /* boundary: y <= 0 is reached only at the corner (measure zero): the
     * fraction's upper bound must still be sound, the verdict not "holds" */
    s = spec_of("(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
                "(assert (>= X_0 0))(assert (<= X_0 1))(assert (>= X_1 0))(assert (<= X_1 1))"
                "(assert (<= Y_0 0))");
    nnc_vrf_opts o;
    nnc_vrf_opts_default(&o);
    o.max_leaves = 50;
    ck_assert_int_eq(nnc_vrf_run(m, s, &o, &r, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_ne(r.result, NNC_VRF_HOLDS);
    nnc_vrf_report_clear(&r);
    nnc_spc_destroy(s);
    /* dimension mismatch */
    s = spec_of("(declare-const X_0 Real)(declare-const Y_0 Real)(assert (>= X_0 0))(assert (<= X_0 1))(assert (<= Y_0 0))");
    ck_assert_int_eq(nnc_vrf_run(m, s, NULL, &r, err, sizeof err), NNC_STATUS_INVALID);
    nnc_spc_destroy(s);
    nnc_mdl_destroy(m);
}
END_TEST

/* The switches' names (nnc_vrf_opts_set) give their enum values, and
 * nnc_vrf_run refuses values outside the enums instead of reading them as
 * one of them. */
START_TEST(test_opts_enums)
{
    nnc_spec *s;
    nnc_model *m = holding_case(&s);
    char err[NNC_ERRBUF_SIZE];
    nnc_vrf_opts o;
    nnc_vrf_opts_default(&o);
    ck_assert(o.relu_split == NNC_VRF_AUTO && o.exact == NNC_VRF_AUTO && o.symbolic == NNC_VRF_SYMBOLIC_AUTO);
    static const struct {
        const char *v;
        nnc_vrf_symbolic mode;
    } sym[] = {{"off", NNC_VRF_SYMBOLIC_OFF}, {"cascade", NNC_VRF_SYMBOLIC_CASCADE}, {"own", NNC_VRF_SYMBOLIC_OWN},
               {"auto", NNC_VRF_SYMBOLIC_AUTO}};
    for (size_t k = 0; k < sizeof sym / sizeof sym[0]; k++) {
        ck_assert_int_eq(nnc_vrf_opts_set(&o, "symbolic", sym[k].v, err, sizeof err), NNC_STATUS_OK);
        ck_assert_int_eq(o.symbolic, sym[k].mode);
    }
    CHECK_ILLEGAL(nnc_vrf_opts_set(&o, "symbolic", "2", err, sizeof err), err);
    ck_assert_int_eq(o.symbolic, NNC_VRF_SYMBOLIC_AUTO); /* unchanged */
    ck_assert_int_eq(nnc_vrf_opts_set(&o, "relu-split", "on", err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(o.relu_split, NNC_VRF_ON);
    ck_assert_int_eq(nnc_vrf_opts_set(&o, "relu-split", "off", err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(o.relu_split, NNC_VRF_OFF);
    ck_assert_int_eq(nnc_vrf_opts_set(&o, "exact", "off", err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(o.exact, NNC_VRF_OFF);
    nnc_vrf_report r;
    ck_assert_msg(nnc_vrf_run(m, s, &o, &r, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(r.result, NNC_VRF_HOLDS);
    nnc_vrf_report_clear(&r);
    for (int k = 0; k < 3; k++) {
        nnc_vrf_opts_default(&o);
        if (k == 0) o.relu_split = (nnc_vrf_switch)2;
        if (k == 1) o.exact = (nnc_vrf_switch)-2;
        if (k == 2) o.symbolic = (nnc_vrf_symbolic)3;
        CHECK_ILLEGAL(nnc_vrf_run(m, s, &o, &r, err, sizeof err), err);
        ck_assert(strstr(err, k == 2 ? "symbolic" : "relu_split and exact") != NULL);
    }
    nnc_spc_destroy(s);
    nnc_mdl_destroy(m);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("verifier");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_linear_exact_fraction);
    tcase_add_test(tc, test_relu_grid_consistency);
    tcase_add_test(tc, test_holds_and_bad_dims);
    tcase_add_test(tc, test_opts_enums);
    tcase_add_test(tc, test_threads_deterministic);
    tcase_add_test(tc, test_symbolic_switch);
    tcase_add_test(tc, test_lookahead_degenerate_dim);
    suite_add_tcase(su, tc);
    return check_main_run(su);
}
