/* The exact box decision (verifier/exact.c):
 *  - its linear programs against brute-force vertex enumeration on random
 *    small LPs (the optimum, infeasibility), and the soundness of the
 *    certificate bound for any multipliers (never above the true minimum;
 *    never claiming a non-empty set empty);
 *  - its decisions on random dense ReLU chains (2 and 3 inputs) with the
 *    property "Y_0 >= t is unsafe": t well above the sampled maximum is
 *    certified, t below it never is and the validated candidate violates,
 *    and t just above the sampled maximum (a margin of 1e-7, where bounds
 *    that relax cannot decide) is never certified where 10^5 fresh samples
 *    or the verifier's branch and bound (exact decision off) find a
 *    violation;
 *  - disjunctions of conjunctions (two disjuncts, two rows each): never
 *    certified where a sample is unsafe, at most 3 of 20 left undecided;
 *  - bad boxes and models that are not chains are refused. */
#include "nncert/model.h"
#include "nncert/spec.h"
#include "tests/unit/chain_builder_impl.h"
#include "verifier/exact_impl.h"
#include "nncert/verifier.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- linear programs ---- */

/* Solve the n x n system of constraints idx (rows of A, or box rows m + i
 * for x_i <= hi_i, m + n + i for -x_i <= -lo_i) for equality.  Returns 0. */
static int vertex(int n, int m, const double *A, const double *b, const double *lo, const double *hi, const int *idx,
                  double *x)
{
    double M[16][17];
    for (int t = 0; t < n; t++) {
        int q = idx[t];
        for (int i = 0; i < n; i++) M[t][i] = q < m ? A[q * n + i] : q < m + n ? (i == q - m) : -(double)(i == q - m - n);
        M[t][n] = q < m ? b[q] : q < m + n ? hi[q - m] : -lo[q - m - n];
    }
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(M[r][c]) > fabs(M[p][c])) p = r;
        if (fabs(M[p][c]) < 1e-9) return -1;
        for (int j = 0; j <= n; j++) {
            double t = M[c][j]; M[c][j] = M[p][j]; M[p][j] = t;
        }
        for (int r = 0; r < n; r++) {
            if (r == c) continue;
            double f = M[r][c] / M[c][c];
            for (int j = 0; j <= n; j++) M[r][j] -= f * M[c][j];
        }
    }
    for (int i = 0; i < n; i++) x[i] = M[i][n] / M[i][i];
    return 0;
}

static int feasible(int n, int m, const double *A, const double *b, const double *lo, const double *hi, const double *x,
                    double tol)
{
    for (int i = 0; i < n; i++)
        if (x[i] < lo[i] - tol || x[i] > hi[i] + tol) return 0;
    for (int q = 0; q < m; q++) {
        double v = 0;
        for (int i = 0; i < n; i++) v += A[q * n + i] * x[i];
        if (v > b[q] + tol) return 0;
    }
    return 1;
}

/* min c . x over the polytope by enumerating every vertex; +inf when empty */
static double brute_min(int n, int m, const double *A, const double *b, const double *lo, const double *hi,
                        const double *c)
{
    int total = m + 2 * n, idx[16];
    double best = INFINITY, x[16];
    for (int i = 0; i < n; i++) idx[i] = i;
    for (;;) {
        if (vertex(n, m, A, b, lo, hi, idx, x) == 0 && feasible(n, m, A, b, lo, hi, x, 1e-9)) {
            double v = 0;
            for (int i = 0; i < n; i++) v += c[i] * x[i];
            if (v < best) best = v;
        }
        int t = n - 1;
        while (t >= 0 && idx[t] == total - n + t) t--;
        if (t < 0) break;
        idx[t]++;
        for (int u = t + 1; u < n; u++) idx[u] = idx[u - 1] + 1;
    }
    return best;
}

START_TEST(test_lp_against_vertices)
{
    int opt = 0, inf = 0;
    for (int trial = 0; trial < 3000; trial++) {
        int n = 1 + rnd_below(4), m = rnd_below(9);
        double A[8 * 4], b[8], lo[4], hi[4], c[4], x[4], mu[8], mu2[8];
        for (int i = 0; i < n; i++) {
            lo[i] = urand() * 4 - 2;
            hi[i] = lo[i] + (trial % 17 == 0 && i == 0 ? 0 : urand() * 3);
            c[i] = urand() * 2 - 1;
        }
        for (int q = 0; q < m; q++) {
            for (int i = 0; i < n; i++) A[q * n + i] = urand() * 2 - 1;
            b[q] = urand() * 2 - (trial % 3 == 0 ? 1.6 : 0.5);
        }
        double truth = brute_min(n, m, A, b, lo, hi, c);
        int r = nnc_xct_lp_solve(n, m, A, b, lo, hi, c, x, mu);
        ck_assert_msg(r != NNC_XCT_LP_FAILED, "seed %llu trial %d: the LP failed", (unsigned long long)g_seed, trial);
        for (int q = 0; q < m; q++) ck_assert(mu[q] >= 0);
        if (isinf(truth)) {
            inf++;
            ck_assert_msg(r == NNC_XCT_LP_INFEASIBLE, "seed %llu trial %d: empty polytope solved", (unsigned long long)g_seed, trial);
            ck_assert_msg(nnc_xct_lp_bound(n, m, A, b, lo, hi, NULL, 0, mu) > 0,
                          "seed %llu trial %d: the Farkas combination does not show the polytope empty", (unsigned long long)g_seed, trial);
            continue;
        }
        opt++;
        ck_assert_msg(r == NNC_XCT_LP_OPTIMAL, "seed %llu trial %d: a non-empty polytope called empty", (unsigned long long)g_seed, trial);
        ck_assert(feasible(n, m, A, b, lo, hi, x, 1e-7));
        double v = 0;
        for (int i = 0; i < n; i++) v += c[i] * x[i];
        ck_assert_msg(fabs(v - truth) <= 1e-7 * (1 + fabs(truth)), "seed %llu trial %d: optimum %.17g, vertices give %.17g",
                      (unsigned long long)g_seed, trial, v, truth);
        /* the certificate: sound, and tight at the dual solution */
        double lb = nnc_xct_lp_bound(n, m, A, b, lo, hi, c, 0.5, mu);
        ck_assert_msg(lb <= truth + 0.5, "seed %llu trial %d: bound %.17g above the minimum %.17g", (unsigned long long)g_seed, trial, lb, truth + 0.5);
        ck_assert_msg(lb >= truth + 0.5 - 1e-7 * (1 + fabs(truth)), "seed %llu trial %d: dual bound %.17g, minimum %.17g", (unsigned long long)g_seed,
                      trial, lb, truth + 0.5);
        /* any multipliers: still below the minimum, never "empty" */
        for (int q = 0; q < m; q++) mu2[q] = urand() < 0.3 ? 0 : urand() * 3;
        ck_assert(nnc_xct_lp_bound(n, m, A, b, lo, hi, c, 0.5, mu2) <= truth + 0.5);
        ck_assert(nnc_xct_lp_bound(n, m, A, b, lo, hi, NULL, 0, mu2) <= 0);
        if (m > 0) {
            mu2[0] = -1; /* negative multipliers are refused */
            ck_assert(nnc_xct_lp_bound(n, m, A, b, lo, hi, c, 0, mu2) == -INFINITY);
            mu2[0] = NAN;
            ck_assert(nnc_xct_lp_bound(n, m, A, b, lo, hi, c, 0, mu2) == -INFINITY);
        }
    }
    ck_assert(opt > 500 && inf > 100);
}
END_TEST

/* ---- decisions ---- */

typedef struct chk_ctx {
    nnc_runtime *rt;
    int n, n_out;
    const double *lo, *hi;
    int nrows, ndisj;
    const double *C, *d;
    const int *dstart;
    int calls;
} chk_ctx;

/* Whether float64 output y meets the unsafe set. */
static int unsafe_at(const chk_ctx *k, const double *y)
{
    for (int j = 0; j < k->ndisj; j++) {
        int all = 1;
        for (int r = k->dstart[j]; r < k->dstart[j + 1]; r++) {
            double v = 0;
            for (int o = 0; o < k->n_out; o++) v += k->C[r * k->n_out + o] * y[o];
            all &= v <= k->d[r];
        }
        if (all) return 1;
    }
    return 0;
}

static int chk_fn(void *p, const double *x)
{
    chk_ctx *k = p;
    k->calls++;
    for (int i = 0; i < k->n; i++) ck_assert(x[i] >= k->lo[i] && x[i] <= k->hi[i]);
    double y[8];
    const void *in[1] = {x};
    void *out[1] = {y};
    char err[NNC_ERRBUF_SIZE];
    ck_assert_int_eq(nnc_rt_run(k->rt, 1, in, out, err, sizeof err), NNC_STATUS_OK);
    return unsafe_at(k, y);
}

/* Whether any of ns uniform samples of the box (plus its corners) is unsafe;
 * *ymax the largest Y_0 seen. */
static int sampled_unsafe(const chk_ctx *k, nnc_runtime *rtb, int B, int ns, double *ymax)
{
    int n = k->n, found = 0;
    double *xs = malloc(sizeof(double) * (size_t)(n * B)), *ys = malloc(sizeof(double) * (size_t)(k->n_out * B));
    char err[NNC_ERRBUF_SIZE];
    *ymax = -INFINITY;
    for (int done = 0; done < ns; done += B) {
        for (int q = 0; q < B; q++)
            for (int i = 0; i < n; i++) {
                int corner = done == 0 && q < (1 << n);
                xs[q * n + i] = corner ? ((q >> i) & 1 ? k->hi[i] : k->lo[i]) : k->lo[i] + urand() * (k->hi[i] - k->lo[i]);
            }
        const void *in[1] = {xs};
        void *out[1] = {ys};
        ck_assert_int_eq(nnc_rt_run(rtb, B, in, out, err, sizeof err), NNC_STATUS_OK);
        for (int q = 0; q < B; q++) {
            *ymax = fmax(*ymax, ys[q * k->n_out]);
            found |= unsafe_at(k, ys + q * k->n_out);
        }
    }
    free(xs);
    free(ys);
    return found;
}

/* The exact context of m, a single-sample and a batched float64 runtime.
 * Returns the batch size. */
static int fixture(const nnc_model *m, nnc_xct **e, nnc_runtime **rt, nnc_runtime **rtb)
{
    char err[NNC_ERRBUF_SIZE];
    int B = 1000;
    ck_assert_msg(nnc_xct_create(e, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(nnc_rt_create(rt, m, NNC_PRECISION_F64, 1, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_rt_create(rtb, m, NNC_PRECISION_F64, B, err, sizeof err), NNC_STATUS_OK);
    return B;
}

static nnc_spec *threshold_spec(int n, const double *lo, const double *hi, double t)
{
    char text[2048];
    int len = 0;
    for (int i = 0; i < n; i++) len += snprintf(text + len, sizeof text - (size_t)len, "(declare-const X_%d Real)\n", i);
    len += snprintf(text + len, sizeof text - (size_t)len, "(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n");
    for (int i = 0; i < n; i++)
        len += snprintf(text + len, sizeof text - (size_t)len, "(assert (>= X_%d %.17g))\n(assert (<= X_%d %.17g))\n", i, lo[i],
                        i, hi[i]);
    snprintf(text + len, sizeof text - (size_t)len, "(assert (>= Y_0 %.17g))\n", t);
    nnc_spec *sp;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(nnc_spc_parse(&sp, text, strlen(text), err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return sp;
}

START_TEST(test_decide_thresholds)
{
    char err[NNC_ERRBUF_SIZE];
    int tight_certified = 0, found_cex = 0;
    for (int trial = 0; trial < 24; trial++) {
        int n = 2 + trial % 2, nh = 2 + (trial / 2) % 2;
        int w[3] = {4 + rnd_below(5), 4 + rnd_below(5), 4 + rnd_below(5)};
        nnc_model *m = build_chain(n, nh, w, 2, 0);
        nnc_xct *e;
        nnc_runtime *rt, *rtb;
        int B = fixture(m, &e, &rt, &rtb);
        double lo[3], hi[3];
        for (int i = 0; i < n; i++) {
            lo[i] = urand() * 2 - 1.5;
            hi[i] = lo[i] + 0.3 + urand() * 1.5;
        }
        double C[2] = {-1, 0}, d[1];
        int dstart[2] = {0, 1};
        nnc_rfn_problem p = {1, 1, 2, C, d, dstart, NULL, NULL};
        chk_ctx k = {rt, n, 2, lo, hi, 1, 1, C, d, dstart, 0};
        double smax;
        d[0] = INFINITY; /* nothing unsafe: the sampled maximum only */
        sampled_unsafe(&k, rtb, B, 20000, &smax);
        double scale = 1 + fabs(smax);
        int oc;
        uint64_t lps;
        /* well above: certified */
        d[0] = -(smax + 0.05 * scale);
        ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 1000000, INFINITY, chk_fn, &k, &oc, &lps), NNC_STATUS_OK);
        ck_assert_msg(oc == NNC_XCT_SAFE, "seed %llu trial %d: a margin of 5%% not certified (outcome %d, %llu LPs)", (unsigned long long)g_seed,
                      trial, oc, (unsigned long long)lps);
        /* below: never certified; the candidate validates */
        d[0] = -(smax - 1e-3 * scale);
        ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 1000000, INFINITY, chk_fn, &k, &oc, &lps), NNC_STATUS_OK);
        ck_assert_msg(oc == NNC_XCT_FOUND, "seed %llu trial %d: a sampled violation not found (outcome %d)", (unsigned long long)g_seed, trial, oc);
        found_cex++;
        ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 1000000, INFINITY, NULL, NULL, &oc, &lps), NNC_STATUS_OK);
        ck_assert_int_eq(oc, NNC_XCT_OPEN);
        /* just above the sampled maximum: whatever it says must agree with
         * fresh samples and with branch and bound */
        double t = smax + 1e-7 * scale;
        d[0] = -t;
        ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 1000000, INFINITY, chk_fn, &k, &oc, &lps), NNC_STATUS_OK);
        double smax2;
        int viol = sampled_unsafe(&k, rtb, B, 100000, &smax2);
        ck_assert_msg(!(oc == NNC_XCT_SAFE && viol), "seed %llu trial %d: certified, yet a sample reaches %.17g >= %.17g", (unsigned long long)g_seed,
                      trial, smax2, t);
        nnc_spec *sp = threshold_spec(n, lo, hi, t);
        nnc_vrf_opts o;
        nnc_vrf_opts_default(&o);
        o.exact = 0;
        o.samples = 0;
        o.timeout_s = 10;
        o.max_leaves = 200000;
        o.stop_on_counterexample = 1;
        nnc_vrf_report r;
        ck_assert_msg(nnc_vrf_run(m, sp, &o, &r, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        ck_assert_msg(!(oc == NNC_XCT_SAFE && r.result == NNC_VRF_VIOLATED),
                      "seed %llu trial %d: certified, branch and bound found a counterexample", (unsigned long long)g_seed, trial);
        ck_assert_msg(!(oc == NNC_XCT_FOUND && r.result == NNC_VRF_HOLDS),
                      "seed %llu trial %d: a validated candidate, branch and bound says holds", (unsigned long long)g_seed, trial);
        tight_certified += oc == NNC_XCT_SAFE;
        nnc_vrf_report_clear(&r);
        nnc_spc_destroy(sp);
        nnc_rt_destroy(rt);
        nnc_rt_destroy(rtb);
        nnc_xct_destroy(e);
        nnc_mdl_destroy(m);
    }
    /* the tight margin is where exactness shows: most such cases decided */
    printf("test_exact: tight margins certified in %d of 24 cases\n", tight_certified);
    ck_assert(found_cex == 24);
}
END_TEST

/* (Y_0 >= Y_1 and Y_0 >= t0) or (Y_1 >= t1 and Y_1 >= Y_0 + 0.1): against dense
 * sampling, both ways. */
START_TEST(test_decide_disjunctions)
{
    int safe = 0, found = 0, undecided = 0;
    for (int trial = 0; trial < 20; trial++) {
        int n = 2, w[2] = {5 + rnd_below(4), 5 + rnd_below(4)};
        nnc_model *m = build_chain(n, 2, w, 2, 0);
        nnc_xct *e;
        nnc_runtime *rt, *rtb;
        int B = fixture(m, &e, &rt, &rtb);
        double lo[2] = {-1, -1}, hi[2] = {1, 1};
        double C[8] = {-1, 1, -1, 0, 0, -1, 1, -1}, d[4] = {0, 0, 0, -0.1};
        int dstart[3] = {0, 2, 4};
        chk_ctx k = {rt, n, 2, lo, hi, 4, 2, C, d, dstart, 0};
        double smax;
        d[1] = d[2] = INFINITY;
        sampled_unsafe(&k, rtb, B, 20000, &smax);
        /* thresholds around the sampled maximum of Y_0 (Y_1's sits near) */
        d[1] = d[2] = -(smax + (trial % 2 ? 0.3 : -0.3) * (1 + fabs(smax)));
        nnc_rfn_problem p = {4, 2, 2, C, d, dstart, NULL, NULL};
        int oc;
        uint64_t lps;
        ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 1000000, INFINITY, chk_fn, &k, &oc, &lps), NNC_STATUS_OK);
        double s2;
        int viol = sampled_unsafe(&k, rtb, B, 100000, &s2);
        ck_assert_msg(!(oc == NNC_XCT_SAFE && viol), "seed %llu trial %d: certified, yet a sample is unsafe", (unsigned long long)g_seed, trial);
        /* open is allowed (an unsafe polytope that only touches the real
         * one within rounding gives a candidate that fails validation), but
         * rare: counted below */
        if (viol) ck_assert_msg(oc != NNC_XCT_SAFE, "seed %llu trial %d: sampled violation certified", (unsigned long long)g_seed, trial);
        undecided += oc == NNC_XCT_OPEN;
        safe += oc == NNC_XCT_SAFE;
        found += oc == NNC_XCT_FOUND;
        nnc_rt_destroy(rt);
        nnc_rt_destroy(rtb);
        nnc_xct_destroy(e);
        nnc_mdl_destroy(m);
    }
    ck_assert(safe > 0 && found > 0);
    ck_assert_msg(undecided <= 3, "seed %llu: %d of 20 undecided with a budget of 10^6 LPs", (unsigned long long)g_seed, undecided);
}
END_TEST

START_TEST(test_refusals)
{
    char err[NNC_ERRBUF_SIZE];
    int w[2] = {4, 4};
    nnc_model *m = build_chain(2, 2, w, 2, 0);
    nnc_xct *e;
    ck_assert_int_eq(nnc_xct_create(&e, m, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_xct_relu_count(e), 8);
    double C[2] = {-1, 0}, d[1] = {0};
    int dstart[2] = {0, 1};
    nnc_rfn_problem p = {1, 1, 2, C, d, dstart, NULL, NULL};
    int oc;
    uint64_t lps;
    double lo[2] = {0, 0}, hi[2] = {1, NAN};
    ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 100, INFINITY, NULL, NULL, &oc, &lps), NNC_STATUS_ARG);
    hi[1] = -1; /* lo > hi */
    ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 100, INFINITY, NULL, NULL, &oc, &lps), NNC_STATUS_ARG);
    /* a point box: decided by its value */
    hi[0] = hi[1] = 0;
    nnc_runtime *rt;
    ck_assert_int_eq(nnc_rt_create(&rt, m, NNC_PRECISION_F64, 1, err, sizeof err), NNC_STATUS_OK);
    double y[2];
    const void *in[1] = {lo};
    void *out[1] = {y};
    ck_assert_int_eq(nnc_rt_run(rt, 1, in, out, err, sizeof err), NNC_STATUS_OK);
    nnc_rt_destroy(rt);
    d[0] = -(y[0] + 1e-6 * (1 + fabs(y[0]))); /* unsafe: Y_0 above its value */
    ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 100, INFINITY, NULL, NULL, &oc, &lps), NNC_STATUS_OK);
    ck_assert_int_eq(oc, NNC_XCT_SAFE);
    d[0] = -(y[0] - 1e-6 * (1 + fabs(y[0]))); /* unsafe: Y_0 a little below it */
    ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 100, INFINITY, NULL, NULL, &oc, &lps), NNC_STATUS_OK);
    ck_assert_int_eq(oc, NNC_XCT_OPEN);
    /* the LP budget holds */
    hi[0] = hi[1] = 1;
    d[0] = 0;
    ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 0, INFINITY, NULL, NULL, &oc, &lps), NNC_STATUS_OK);
    ck_assert_int_eq(lps, 0);
    ck_assert_int_eq(nnc_xct_decide(e, lo, hi, NULL, NULL, &p, 3, INFINITY, NULL, NULL, &oc, &lps), NNC_STATUS_OK);
    ck_assert(lps <= 3);
    nnc_xct_destroy(e);
    nnc_mdl_destroy(m);
    /* a model that is not a dense chain */
    mb b;
    mb_init(&b, 13);
    int64_t xd[2] = {1, 2};
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    static const char *si[1] = {"x"}, *so[1] = {"y"};
    b.nodes[0] = node("Sigmoid", "s", 1, si, 1, so);
    b.graph.n_node = 1;
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(nnc_xct_create(&e, m, err, sizeof err), NNC_STATUS_UNSUPPORTED);
    ck_assert_ptr_null(e);
    nnc_mdl_destroy(m);
}
END_TEST

int main(void)
{
    harness_seed("test_exact");
    Suite *su = suite_create("exact");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_lp_against_vertices);
    tcase_add_test(tc, test_decide_thresholds);
    tcase_add_test(tc, test_decide_disjunctions);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(su, tc);
    return check_main_run(su);
}
