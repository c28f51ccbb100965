/* The batched beta-CROWN passes on the device (gpu/bab.cu) against the CPU
 * passes (verifier/babdense.c), on random dense ReLU chains:
 *  - on the CPU first, whatever the machine: every objective's sound bound,
 *    with CROWN's slopes and optimised, is at most its least value over
 *    points drawn in the box (the float64 runtime's outputs);
 *  - the sound pass with CROWN's slopes (objective rows, and both bounds of
 *    every hidden neuron, with and without splits): device and CPU agree to
 *    1e-9 relative (the same formulas, verifier/bab_math.h, and summation
 *    orders that differ; each side's error terms cover its own);
 *  - the float32 estimate with random variables and splits: bounds and the
 *    coefficients on every ReLU output agree to 1e-3 relative;
 *  - optimised (20 Adam steps): the device's bound is sound (at most the
 *    sampled minimum), at least CROWN's, and within 10% of the CPU's;
 *  - timing: a 784-256x4-10 chain's hidden-layer bounds, optimised on each
 *    side, as "time bab_pass ITEMS STEPS gpu_s cpu_s".
 * Without a CUDA build or a device the CPU part runs and it then reports
 * "skipped" and exits 77 (1 when a CPU check failed), as the GPU tests do
 * (gpu_test_impl.h). */
#include "gpu_test_impl.h"
#include "nncert/model.h"
#include "tests/unit/chain_builder_impl.h"
#include "verifier/refine_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* One random instance: a chain, a box, its ReLU bounds (CROWN), the
 * robustness rows of label 0, and per row the least value met at S random
 * points of the box. */
typedef struct inst {
    nnc_model *m;
    nnc_bbd *e;
    int n_in, n_out, L;
    int64_t nr;
    double *lo, *hi, *rl, *rh;
    double *C, *d, *smin;
    int *dstart;
    nnc_rfn_problem p;
} inst;

static int inst_make(inst *t, int n0, int nh, const int *widths, int n_out, double eps, int S)
{
    char err[NNC_ERRBUF_SIZE];
    memset(t, 0, sizeof *t);
    t->m = build_chain(n0, nh, widths, n_out, 0);
    t->n_in = n0;
    t->n_out = n_out;
    CHECK(nnc_bbd_create(&t->e, t->m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    if (t->e == NULL) return -1;
    t->nr = nnc_bbd_relu_count(t->e);
    t->lo = malloc(sizeof(double) * (size_t)n0);
    t->hi = malloc(sizeof(double) * (size_t)n0);
    t->rl = malloc(sizeof(double) * (size_t)t->nr);
    t->rh = malloc(sizeof(double) * (size_t)t->nr);
    for (int i = 0; i < n0; i++) {
        double c = urand() - 0.5;
        t->lo[i] = c - eps;
        t->hi[i] = c + eps;
    }
    nnc_bnd *b;
    CHECK(nnc_bnd_create(&b, t->m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    CHECK(nnc_bnd_compute(b, t->lo, t->hi, 1) == NNC_STATUS_OK, "bounds");
    nnc_bnd_relu_bounds(b, t->rl, t->rh);
    nnc_bnd_destroy(b);
    int R = n_out - 1;
    t->C = calloc((size_t)R * (size_t)n_out, sizeof(double));
    t->d = calloc((size_t)R, sizeof(double));
    t->smin = malloc(sizeof(double) * (size_t)R);
    t->dstart = malloc(sizeof(int) * (size_t)(R + 1));
    for (int r = 0; r < R; r++) {
        t->C[(size_t)r * n_out] = 1;
        t->C[(size_t)r * n_out + r + 1] = -1;
        t->dstart[r] = r;
        t->smin[r] = INFINITY;
    }
    t->dstart[R] = R;
    t->p = (nnc_rfn_problem){R, R, n_out, t->C, t->d, t->dstart, NULL, NULL};
    nnc_runtime *rt;
    CHECK(nnc_rt_create(&rt, t->m, NNC_PRECISION_F64, 1, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    double *x = malloc(sizeof(double) * (size_t)n0), *y = malloc(sizeof(double) * (size_t)n_out);
    for (int s = 0; s < S; s++) {
        for (int i = 0; i < n0; i++) {
            double u = urand();
            x[i] = s < 2 ? (s ? t->hi[i] : t->lo[i]) : t->lo[i] + u * (t->hi[i] - t->lo[i]);
        }
        const void *in[1] = {x};
        void *out[1] = {y};
        CHECK(nnc_rt_run(rt, 1, in, out, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        for (int r = 0; r < R; r++) {
            double v = y[0] - y[r + 1];
            if (v < t->smin[r]) t->smin[r] = v;
        }
    }
    free(x);
    free(y);
    nnc_rt_destroy(rt);
    t->L = nh + 1;
    return 0;
}

static void inst_free(inst *t)
{
    nnc_bbd_destroy(t->e);
    nnc_mdl_destroy(t->m);
    free(t->lo); free(t->hi); free(t->rl); free(t->rh); free(t->C); free(t->d); free(t->smin); free(t->dstart);
}

/* Items of a pass over layer ktop (the objective rows at L - 1). */
static size_t items_of(const inst *t, const int *widths, int ktop)
{
    return ktop == t->L - 1 ? (size_t)t->p.nrows : 2 * (size_t)widths[ktop];
}

/* Random splits of about a tenth of the unstable neurons. */
static void random_splits(const inst *t, signed char *s)
{
    for (int64_t f = 0; f < t->nr; f++)
        s[f] = t->rl[f] < 0 && t->rh[f] > 0 && urand() < 0.1 ? (urand() < 0.5 ? 1 : -1) : 0;
}

/* Random variables in their ranges: slopes in [0, 1], multipliers >= 0. */
static void random_vars(const inst *t, float *ab, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int64_t f = 0; f < 2 * t->nr; f++)
            ab[i * 2 * (size_t)t->nr + (size_t)f] = (float)(f < t->nr ? urand() : 0.5 * urand());
}

static double rel(double a, double b) { return fabs(a - b) / (1 + fabs(b)); }

/* CPU: the objectives' sound bounds are below the sampled minima. */
static void cpu_sound(const inst *t)
{
    char err[NNC_ERRBUF_SIZE];
    size_t R = (size_t)t->p.nrows, nv = 2 * (size_t)t->nr;
    double *lw = malloc(sizeof(double) * R), *lo = malloc(sizeof(double) * R);
    float *ab = malloc(sizeof(float) * R * nv);
    CHECK(nnc_bbd_test_pass(t->e, t->lo, t->hi, t->rl, t->rh, NULL, &t->p, t->L - 1, -2, NULL, NULL, lw, NULL, err,
                            sizeof err) == NNC_STATUS_OK, "%s", err);
    for (size_t i = 0; i < R; i++) nnc_bbd_test_init_vars(t->e, t->rl, t->rh, ab + i * nv);
    CHECK(nnc_bbd_test_pass(t->e, t->lo, t->hi, t->rl, t->rh, NULL, &t->p, t->L - 1, 20, NULL, ab, lo, NULL, err,
                            sizeof err) == NNC_STATUS_OK, "%s", err);
    for (size_t r = 0; r < R; r++) {
        CHECK(lw[r] <= t->smin[r], "CPU CROWN bound %.17g above a value met %.17g (row %zu)", lw[r], t->smin[r], r);
        CHECK(lo[r] <= t->smin[r], "CPU optimised bound %.17g above a value met %.17g (row %zu)", lo[r], t->smin[r], r);
    }
    free(lw);
    free(lo);
    free(ab);
}

/* Device against CPU on one instance. */
static void compare(const inst *t, const int *widths)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_gpu_bab *g;
    CHECK(nnc_bbd_gpu_create(t->e, &g, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    if (g == NULL) return;
    size_t nv = 2 * (size_t)t->nr, nmax = (size_t)t->p.nrows;
    for (int k = 0; k + 1 < t->L; k++)
        if (2 * (size_t)widths[k] > nmax) nmax = 2 * (size_t)widths[k];
    double *lc = malloc(sizeof(double) * nmax), *lg = malloc(sizeof(double) * nmax);
    double *crown = malloc(sizeof(double) * nmax);
    float *abc = malloc(sizeof(float) * nmax * nv), *abg = malloc(sizeof(float) * nmax * nv);
    float *cc = malloc(sizeof(float) * nmax * (size_t)t->nr), *cg = malloc(sizeof(float) * nmax * (size_t)t->nr);
    signed char *s = malloc((size_t)t->nr);
    for (int sp = 0; sp < 2; sp++) {
        if (sp) random_splits(t, s);
        const signed char *spl = sp ? s : NULL;
        for (int k = 0; k < t->L; k++) {
            size_t n = items_of(t, widths, k);
            /* the sound pass with CROWN's slopes */
            CHECK(nnc_bbd_test_pass(t->e, t->lo, t->hi, t->rl, t->rh, spl, &t->p, k, -2, NULL, NULL, lc, NULL, err,
                                    sizeof err) == NNC_STATUS_OK, "%s", err);
            CHECK(nnc_bbd_test_pass(t->e, t->lo, t->hi, t->rl, t->rh, spl, &t->p, k, -2, g, NULL, lg, NULL, err,
                                    sizeof err) == NNC_STATUS_OK, "%s", err);
            for (size_t i = 0; i < n; i++)
                CHECK(rel(lg[i], lc[i]) <= 1e-9, "sound pass, layer %d, splits %d, item %zu: GPU %.17g CPU %.17g", k,
                      sp, i, lg[i], lc[i]);
            memcpy(crown, lc, sizeof(double) * n);
            /* the estimate with random variables */
            random_vars(t, abc, n);
            memcpy(abg, abc, sizeof(float) * n * nv);
            CHECK(nnc_bbd_test_pass(t->e, t->lo, t->hi, t->rl, t->rh, spl, &t->p, k, -1, NULL, abc, lc, cc, err,
                                    sizeof err) == NNC_STATUS_OK, "%s", err);
            CHECK(nnc_bbd_test_pass(t->e, t->lo, t->hi, t->rl, t->rh, spl, &t->p, k, -1, g, abg, lg, cg, err,
                                    sizeof err) == NNC_STATUS_OK, "%s", err);
            for (size_t i = 0; i < n; i++)
                CHECK(rel(lg[i], lc[i]) <= 1e-3, "estimate, layer %d, splits %d, item %zu: GPU %.9g CPU %.9g", k, sp,
                      i, lg[i], lc[i]);
            int64_t ktopoff = 0; /* the coefficients exist on the layers below ktop */
            for (int q = 0; q < k; q++) ktopoff += widths[q];
            size_t bad = 0;
            for (size_t i = 0; i < n; i++)
                for (int64_t f = 0; f < ktopoff; f++) {
                    size_t q = i * (size_t)t->nr + (size_t)f;
                    bad += rel(cg[q], cc[q]) > 1e-3;
                }
            CHECK(bad == 0, "estimate, layer %d, splits %d: %zu coefficients differ", k, sp, bad);
            /* optimised from CROWN's slopes */
            for (size_t i = 0; i < n; i++) {
                nnc_bbd_test_init_vars(t->e, t->rl, t->rh, abc + i * nv);
                memcpy(abg + i * nv, abc + i * nv, sizeof(float) * nv);
            }
            CHECK(nnc_bbd_test_pass(t->e, t->lo, t->hi, t->rl, t->rh, spl, &t->p, k, 20, NULL, abc, lc, NULL, err,
                                    sizeof err) == NNC_STATUS_OK, "%s", err);
            CHECK(nnc_bbd_test_pass(t->e, t->lo, t->hi, t->rl, t->rh, spl, &t->p, k, 20, g, abg, lg, NULL, err,
                                    sizeof err) == NNC_STATUS_OK, "%s", err);
            for (size_t i = 0; i < n; i++) {
                CHECK(lg[i] >= crown[i] - 1e-4 * (1 + fabs(crown[i])),
                      "optimised, layer %d, splits %d, item %zu: GPU %.9g below CROWN's %.9g", k, sp, i, lg[i], crown[i]);
                CHECK(rel(lg[i], lc[i]) <= 0.1, "optimised, layer %d, splits %d, item %zu: GPU %.9g CPU %.9g", k, sp,
                      i, lg[i], lc[i]);
                if (!sp && k == t->L - 1)
                    CHECK(lg[i] <= t->smin[i], "optimised, row %zu: GPU bound %.17g above a value met %.17g", i, lg[i],
                          t->smin[i]);
            }
        }
    }
    free(lc); free(lg); free(crown); free(abc); free(abg); free(cc); free(cg); free(s);
    nnc_gpu_bab_destroy(g);
}

/* The hidden-layer bounds of a 784-256x4-10 chain's last hidden layer,
 * optimised, on each side. */
static void timing(void)
{
    char err[NNC_ERRBUF_SIZE];
    int widths[4] = {256, 256, 256, 256};
    inst t;
    if (inst_make(&t, 784, 4, widths, 10, 0.02, 4)) return;
    nnc_gpu_bab *g;
    CHECK(nnc_bbd_gpu_create(t.e, &g, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    size_t n = 2 * 256, nv = 2 * (size_t)t.nr;
    int steps = 20;
    double *lw = malloc(sizeof(double) * n);
    float *ab = malloc(sizeof(float) * n * nv);
    double sec[2];
    for (int dev = 0; dev < 2 && g; dev++) {
        for (size_t i = 0; i < n; i++) nnc_bbd_test_init_vars(t.e, t.rl, t.rh, ab + i * nv);
        double t0 = gpu_test_now();
        CHECK(nnc_bbd_test_pass(t.e, t.lo, t.hi, t.rl, t.rh, NULL, &t.p, 3, steps, dev ? NULL : g, ab, lw, NULL, err,
                                sizeof err) == NNC_STATUS_OK, "%s", err);
        sec[dev] = gpu_test_now() - t0;
    }
    if (g) printf("time bab_pass %zu %d %.4f %.4f\n", n, steps, sec[0], sec[1]);
    free(lw);
    free(ab);
    nnc_gpu_bab_destroy(g);
    inst_free(&t);
}

/* One Check test (the random chains are built with Check's assertions),
 * run in the process: the CPU part, then, with a device, the comparison.
 * Sets *skip where there is no device. */
static int skip;

START_TEST(test_passes)
{
    harness_set_seed(20261207); /* fixed instances */
    enum { T = 6 };
    inst ts[T];
    int wd[T][3];
    int ok[T];
    for (int k = 0; k < T; k++) {
        int nh = 2 + k % 2;
        for (int l = 0; l < 3; l++) wd[k][l] = 8 + rnd_below(40);
        ok[k] = inst_make(&ts[k], 6 + rnd_below(30), nh, wd[k], 4 + k % 3, 0.05 + 0.1 * urand(), 2000) == 0;
        if (ok[k]) cpu_sound(&ts[k]);
    }
    printf("CPU passes: %d checks, %d failed\n", checks, failures);
    char err[NNC_ERRBUF_SIZE] = "";
    int count = 0;
    if (failures == 0 && (!nnc_gpu_compiled() || nnc_gpu_device_count(&count, err, sizeof err) != NNC_STATUS_OK ||
                          count == 0)) {
        printf("skipped: %s\n", !nnc_gpu_compiled() ? "built without CUDA (make GPU=0)"
                                 : err[0]                ? err
                                                         : "no CUDA device");
        skip = 1;
    } else if (failures == 0) {
        for (int k = 0; k < T; k++)
            if (ok[k]) compare(&ts[k], wd[k]);
        timing();
        printf("test_gpu_bab: %d checks, %d failed\n", checks, failures);
    }
    for (int k = 0; k < T; k++)
        if (ok[k]) inst_free(&ts[k]);
    ck_assert_msg(failures == 0, "%d of %d checks failed", failures, checks);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gpu_bab");
    TCase *tc = tcase_create("passes");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_passes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : skip ? 77 : 0;
}
