/* Soundness of the forward symbolic bounds (verifier/symfwd.c) on random
 * dense ReLU chains (input Sub, 2 to 4 Gemm+Relu layers, a Gemm output),
 * random boxes (some with zero-width dimensions), both modes (refine 0/1):
 *  - the computed pre-activation functions enclose, on the whole box, the
 *    functions obtained by propagating the engine's own relaxations exactly
 *    (MPFR, 256 bits): the rounding slack is enough;
 *  - every objective's lower bound is at most the exact (MPFR) value of the
 *    bounds it is taken from (back-substitution with the same lines, the
 *    output functions, the output intervals);
 *  - at 500 points (corners included) evaluated exactly in MPFR, every
 *    pre-activation lies in its bounds and every objective above its bound;
 *  - 10^5 samples through the float64 runtime respect the objective bounds;
 *  - models that are not chains, and bad boxes, are refused;
 *  - the verifier's four leaf-bound modes (--symbolic off, cascade, own,
 *    auto, the last also with --exact off) never contradict each other nor a
 *    sampled violation, and every counterexample they report violates.
 * (Tightness against CROWN is not asserted: with different intermediate
 * bounds CROWN's adaptive lower slopes can flip, either way.) */
#include "nncert/model.h"
#include "tests/unit/chain_builder_impl.h"
#include "verifier/bounds_impl.h"
#include "verifier/symfwd_impl.h"
#include "nncert/verifier.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PREC 256
#define MAXL 5
#define MAXW 16

static mpfr_t *mpv(int n)
{
    mpfr_t *v = malloc(sizeof(mpfr_t) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) mpfr_init2(v[i], PREC);
    return v;
}

static void mpv_free(mpfr_t *v, int n)
{
    for (int i = 0; i < n; i++) mpfr_clear(v[i]);
    free(v);
}

/* max (rnd = RNDU) or min (RNDD) over the box of  c . x + c[n]  (c: n + 1 values) */
static void mp_extreme(mpfr_t out, mpfr_t *c, int n, const double *lo, const double *hi, int want_max)
{
    mpfr_t t;
    mpfr_init2(t, PREC);
    mpfr_rnd_t r = want_max ? MPFR_RNDU : MPFR_RNDD;
    mpfr_set(out, c[n], r);
    for (int i = 0; i < n; i++) {
        int use_hi = (mpfr_sgn(c[i]) >= 0) == (want_max != 0);
        mpfr_mul_d(t, c[i], use_hi ? hi[i] : lo[i], r);
        mpfr_add(out, out, t, r);
    }
    mpfr_clear(t);
}

typedef struct layer_view {
    int K, N, relu;
    const double *w, *b, *lo, *hi, *flam, *fs, *ft;
} layer_view;

/* cap_lo / cap_hi: caps (nnc_sfw_set_caps) for the bound, or NULL */
static void check_trial_capped(nnc_model *m, int n0, const double *lo, const double *hi, int refine, int trial,
                               const double *cap_lo, const double *cap_hi)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_sfw *s;
    ck_assert_msg(nnc_sfw_create(&s, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_sfw_set_caps(s, cap_lo, cap_hi);
    int n = nnc_sfw_num_inputs(s), no = nnc_sfw_num_outputs(s), nl = nnc_sfw_num_layers(s);
    ck_assert_int_eq(n, n0);
    /* objectives: +e_j, -e_j, y_0 - y_j */
    int nobj = 3 * no;
    double *C = calloc((size_t)(nobj * no), sizeof(double)), *d = calloc((size_t)nobj, sizeof(double));
    double *lower = malloc(sizeof(double) * (size_t)nobj), *lam = malloc(sizeof(double) * (size_t)(nobj * n));
    for (int j = 0; j < no; j++) {
        C[j * no + j] = 1;
        C[(no + j) * no + j] = -1;
        C[(2 * no + j) * no + 0] += 1;
        C[(2 * no + j) * no + j] -= 1;
        d[2 * no + j] = 0.25 * j; /* a constant term too */
    }
    ck_assert_int_eq(nnc_sfw_bound(s, lo, hi, refine, nobj, C, d, lower, lam), NNC_STATUS_OK);
    layer_view L[MAXL + 2];
    for (int l = 0; l < nl; l++)
        nnc_sfw_layer(s, l, &L[l].K, &L[l].N, &L[l].relu, &L[l].w, &L[l].b, &L[l].lo, &L[l].hi, &L[l].flam, &L[l].fs,
                      &L[l].ft);
    int n1 = n + 1;
    /* 1. exact propagation of the engine's relaxations: reference functions
     *    of each layer's input, low (rl) and up (ru), [K][n1] */
    mpfr_t *rl = mpv(MAXW * n1), *ru = mpv(MAXW * n1), *zl = mpv(MAXW * n1), *zu = mpv(MAXW * n1), *dd = mpv(n1);
    mpfr_t t, ext;
    mpfr_inits2(PREC, t, ext, (mpfr_ptr)0);
    for (int k = 0; k < n; k++)
        for (int r = 0; r < n1; r++) {
            mpfr_set_ui(rl[k * n1 + r], r == k, MPFR_RNDN);
            mpfr_set_ui(ru[k * n1 + r], r == k, MPFR_RNDN);
        }
    double *fl = malloc(sizeof(double) * MAXW * (size_t)n1), *fu = malloc(sizeof(double) * MAXW * (size_t)n1);
    for (int l = 0; l < nl; l++) {
        int K = L[l].K, N = L[l].N;
        ck_assert(K <= MAXW && N <= MAXW);
        nnc_sfw_functions(s, l, fl, fu);
        for (int j = 0; j < N; j++) {
            for (int r = 0; r < n1; r++) {
                mpfr_set_d(zl[j * n1 + r], r == n ? L[l].b[j] : 0.0, MPFR_RNDN);
                mpfr_set_d(zu[j * n1 + r], r == n ? L[l].b[j] : 0.0, MPFR_RNDN);
                for (int k = 0; k < K; k++) {
                    double w = L[l].w[k * N + j];
                    mpfr_mul_d(t, w >= 0 ? rl[k * n1 + r] : ru[k * n1 + r], w, MPFR_RNDN);
                    mpfr_add(zl[j * n1 + r], zl[j * n1 + r], t, MPFR_RNDN);
                    mpfr_mul_d(t, w >= 0 ? ru[k * n1 + r] : rl[k * n1 + r], w, MPFR_RNDN);
                    mpfr_add(zu[j * n1 + r], zu[j * n1 + r], t, MPFR_RNDN);
                }
            }
            /* fast low - exact low <= 0 and fast up - exact up >= 0 on the box */
            for (int r = 0; r < n1; r++) {
                mpfr_set_d(dd[r], fl[j * n1 + r], MPFR_RNDN);
                mpfr_sub(dd[r], dd[r], zl[j * n1 + r], MPFR_RNDN);
            }
            mp_extreme(ext, dd, n, lo, hi, 1);
            ck_assert_msg(mpfr_sgn(ext) <= 0, "seed %llu trial %d refine %d: layer %d neuron %d: low function above the exact one by %g",
                          (unsigned long long)g_seed, trial, refine, l, j, mpfr_get_d(ext, MPFR_RNDU));
            for (int r = 0; r < n1; r++) {
                mpfr_set_d(dd[r], fu[j * n1 + r], MPFR_RNDN);
                mpfr_sub(dd[r], dd[r], zu[j * n1 + r], MPFR_RNDN);
            }
            mp_extreme(ext, dd, n, lo, hi, 0);
            ck_assert_msg(mpfr_sgn(ext) >= 0, "seed %llu trial %d refine %d: layer %d neuron %d: up function below the exact one by %g",
                          (unsigned long long)g_seed, trial, refine, l, j, -mpfr_get_d(ext, MPFR_RNDD));
        }
        /* the relaxation to the next layer's input */
        for (int j = 0; j < N; j++)
            for (int r = 0; r < n1; r++) {
                if (L[l].relu) {
                    mpfr_mul_d(rl[j * n1 + r], zl[j * n1 + r], L[l].flam[j], MPFR_RNDN);
                    mpfr_mul_d(ru[j * n1 + r], zu[j * n1 + r], L[l].fs[j], MPFR_RNDN);
                    if (r == n) mpfr_add_d(ru[j * n1 + r], ru[j * n1 + r], L[l].ft[j], MPFR_RNDN);
                } else {
                    mpfr_set(rl[j * n1 + r], zl[j * n1 + r], MPFR_RNDN);
                    mpfr_set(ru[j * n1 + r], zu[j * n1 + r], MPFR_RNDN);
                }
            }
    }
    /* 2. each objective's bound against the exact values of its sources */
    const layer_view *top = &L[nl - 1];
    mpfr_t *lm = mpv(MAXW), *lh = mpv(MAXW), best, v2;
    mpfr_inits2(PREC, best, v2, (mpfr_ptr)0);
    nnc_sfw_functions(s, nl - 1, fl, fu);
    for (int o = 0; o < nobj; o++) {
        const double *c = C + o * no;
        mpfr_t cst;
        mpfr_init2(cst, PREC);
        mpfr_set_d(cst, d[o], MPFR_RNDN);
        for (int j = 0; j < no; j++) mpfr_set_d(lm[j], c[j], MPFR_RNDN);
        for (int l = nl - 1; l >= 0; l--) {
            int K = L[l].K, N = L[l].N;
            if (L[l].relu && l < nl - 1) {
                for (int j = 0; j < N; j++) {
                    double al, bl, au, bu;
                    nnc_bnd_relax_relu(L[l].lo[j], L[l].hi[j], 0.0, &al, &bl, &au, &bu);
                    if (mpfr_sgn(lm[j]) >= 0) {
                        mpfr_mul_d(lm[j], lm[j], al, MPFR_RNDN);
                    } else {
                        mpfr_mul_d(t, lm[j], bu, MPFR_RNDN);
                        mpfr_add(cst, cst, t, MPFR_RNDN);
                        mpfr_mul_d(lm[j], lm[j], au, MPFR_RNDN);
                    }
                }
            }
            for (int j = 0; j < N; j++) {
                mpfr_mul_d(t, lm[j], L[l].b[j], MPFR_RNDN);
                mpfr_add(cst, cst, t, MPFR_RNDN);
            }
            for (int k = 0; k < K; k++) {
                mpfr_set_zero(lh[k], 1);
                for (int j = 0; j < N; j++) {
                    mpfr_mul_d(t, lm[j], L[l].w[k * N + j], MPFR_RNDN);
                    mpfr_add(lh[k], lh[k], t, MPFR_RNDN);
                }
            }
            for (int k = 0; k < K; k++) mpfr_set(lm[k], lh[k], MPFR_RNDN);
        }
        for (int i = 0; i < n; i++) mpfr_set(dd[i], lm[i], MPFR_RNDN);
        mpfr_set(dd[n], cst, MPFR_RNDN);
        mp_extreme(best, dd, n, lo, hi, 0);
        /* the output functions */
        for (int r = 0; r < n1; r++) {
            mpfr_set_d(dd[r], r == n ? d[o] : 0.0, MPFR_RNDN);
            for (int j = 0; j < no; j++) {
                mpfr_set_d(t, c[j] >= 0 ? fl[j * n1 + r] : fu[j * n1 + r], MPFR_RNDN);
                mpfr_mul_d(t, t, c[j], MPFR_RNDN);
                mpfr_add(dd[r], dd[r], t, MPFR_RNDN);
            }
        }
        mp_extreme(v2, dd, n, lo, hi, 0);
        if (mpfr_cmp(v2, best) > 0) mpfr_set(best, v2, MPFR_RNDN);
        /* the output intervals */
        mpfr_set_d(v2, d[o], MPFR_RNDN);
        for (int j = 0; j < no; j++) {
            mpfr_set_d(t, c[j] >= 0 ? top->lo[j] : top->hi[j], MPFR_RNDN);
            mpfr_mul_d(t, t, c[j], MPFR_RNDN);
            mpfr_add(v2, v2, t, MPFR_RNDN);
        }
        if (mpfr_cmp(v2, best) > 0) mpfr_set(best, v2, MPFR_RNDN);
        ck_assert_msg(mpfr_cmp_d(best, lower[o]) >= 0, "seed %llu trial %d refine %d: objective %d bound %.17g above its exact source %.17g",
                      (unsigned long long)g_seed, trial, refine, o, lower[o], mpfr_get_d(best, MPFR_RNDN));
        mpfr_clear(cst);
    }
    /* 3. exact evaluation at points of the box */
    mpfr_t *h = mpv(MAXW), *z = mpv(MAXW);
    double x[8];
    for (int p = 0; p < 500; p++) {
        for (int i = 0; i < n; i++) {
            double u = urand();
            x[i] = p < 64 ? (((p >> (i % 6)) & 1) ? hi[i] : lo[i]) : lo[i] + u * (hi[i] - lo[i]);
            if (x[i] > hi[i]) x[i] = hi[i];
            mpfr_set_d(h[i], x[i], MPFR_RNDN);
        }
        for (int l = 0; l < nl; l++) {
            int K = L[l].K, N = L[l].N;
            for (int j = 0; j < N; j++) {
                mpfr_set_d(z[j], L[l].b[j], MPFR_RNDN);
                for (int k = 0; k < K; k++) {
                    mpfr_mul_d(t, h[k], L[l].w[k * N + j], MPFR_RNDN);
                    mpfr_add(z[j], z[j], t, MPFR_RNDN);
                }
                if (!(mpfr_cmp_d(z[j], L[l].lo[j]) >= 0 && mpfr_cmp_d(z[j], L[l].hi[j]) <= 0))
                    ck_abort_msg("seed %llu trial %d refine %d: layer %d neuron %d: exact %.17g outside [%.17g, %.17g]", (unsigned long long)g_seed, trial,
                                 refine, l, j, mpfr_get_d(z[j], MPFR_RNDN), L[l].lo[j], L[l].hi[j]);
            }
            for (int j = 0; j < N; j++) {
                mpfr_set(h[j], z[j], MPFR_RNDN);
                if (L[l].relu && mpfr_sgn(h[j]) < 0) mpfr_set_zero(h[j], 1);
            }
        }
        for (int o = 0; o < nobj; o++) {
            mpfr_set_d(v2, d[o], MPFR_RNDN);
            for (int j = 0; j < no; j++) {
                mpfr_mul_d(t, h[j], C[o * no + j], MPFR_RNDN);
                mpfr_add(v2, v2, t, MPFR_RNDN);
            }
            if (mpfr_cmp_d(v2, lower[o]) < 0)
                ck_abort_msg("seed %llu trial %d refine %d: objective %d exact %.17g below bound %.17g", (unsigned long long)g_seed, trial, refine, o,
                             mpfr_get_d(v2, MPFR_RNDN), lower[o]);
        }
    }
    /* 4. 10^5 float64 runtime samples */
    nnc_runtime *rt;
    int batch = 1000;
    ck_assert_int_eq(nnc_rt_create(&rt, m, NNC_PRECISION_F64, batch, err, sizeof err), NNC_STATUS_OK);
    double *xs = malloc(sizeof(double) * (size_t)(batch * n)), *ys = malloc(sizeof(double) * (size_t)(batch * no));
    for (int rep = 0; rep < 100; rep++) {
        for (int q = 0; q < batch * n; q++) {
            int i = q % n;
            double u = urand();
            xs[q] = (q / n) % 10 == 0 ? (u < 0.5 ? lo[i] : hi[i]) : fmin(hi[i], lo[i] + u * (hi[i] - lo[i]));
        }
        const void *in[1] = {xs};
        void *out[1] = {ys};
        ck_assert_int_eq(nnc_rt_run(rt, batch, in, out, err, sizeof err), NNC_STATUS_OK);
        for (int q = 0; q < batch; q++)
            for (int o = 0; o < nobj; o++) {
                double v = d[o];
                for (int j = 0; j < no; j++) v += C[o * no + j] * ys[q * no + j];
                if (!(v >= lower[o] - 1e-12 * (1 + fabs(v))))
                    ck_abort_msg("seed %llu trial %d refine %d: sample objective %d %.17g below bound %.17g", (unsigned long long)g_seed, trial, refine, o, v,
                                 lower[o]);
            }
    }
    nnc_rt_destroy(rt);
    free(xs); free(ys); free(fl); free(fu);
    mpv_free(rl, MAXW * n1); mpv_free(ru, MAXW * n1); mpv_free(zl, MAXW * n1); mpv_free(zu, MAXW * n1); mpv_free(dd, n1);
    mpv_free(lm, MAXW); mpv_free(lh, MAXW); mpv_free(h, MAXW); mpv_free(z, MAXW);
    mpfr_clears(t, ext, best, v2, (mpfr_ptr)0);
    free(C); free(d); free(lower); free(lam);
    nnc_sfw_destroy(s);
}

static void check_trial(nnc_model *m, int n0, const double *lo, const double *hi, int refine, int trial)
{
    check_trial_capped(m, n0, lo, hi, refine, trial, NULL, NULL);
}

START_TEST(test_random_chains)
{
    for (int trial = 0; trial < 16; trial++) {
        int n0 = 2 + rnd_below(4), nh = 2 + rnd_below(3), no = 2 + rnd_below(3), w[4];
        for (int l = 0; l < nh; l++) w[l] = 4 + rnd_below(10);
        nnc_model *m = build_chain(n0, nh, w, no, 0);
        double lo[8], hi[8];
        for (int i = 0; i < n0; i++) {
            double c = urand() * 2 - 1, r = urand() * (trial % 3 == 0 ? 1.0 : trial % 3 == 1 ? 0.2 : 0.02);
            if (trial % 4 == 3 && i == 0) r = 0; /* a fixed input, as in ACAS Xu's properties */
            lo[i] = c - r;
            hi[i] = c + r;
        }
        check_trial(m, n0, lo, hi, 0, trial);
        check_trial(m, n0, lo, hi, 1, trial);
        nnc_mdl_destroy(m);
    }
}
END_TEST

/* Caps from a parent box (the verifier's children reuse their parent's
 * bounds): on a random sub-box, the capped engine passes every check of
 * check_trial (MPFR reference, exact points, 10^5 samples) and its ReLU
 * bounds lie within the caps; somewhere the caps tighten a bound. */
START_TEST(test_parent_caps)
{
    char err[NNC_ERRBUF_SIZE];
    int tighter = 0;
    /* 12 nets, more (up to 48) while the caps have tightened nothing: on
     * some seeds no bound of the first 12 gets tighter */
    for (int trial = 0; trial < 12 || (tighter == 0 && trial < 48); trial++) {
        int n0 = 2 + rnd_below(4), nh = 2 + rnd_below(3), no = 2 + rnd_below(3), w[4];
        for (int l = 0; l < nh; l++) w[l] = 4 + rnd_below(10);
        nnc_model *m = build_chain(n0, nh, w, no, 0);
        double lo[8], hi[8], clo[8], chi[8];
        for (int i = 0; i < n0; i++) {
            double c = urand() * 2 - 1, r = urand() * (trial % 2 == 0 ? 1.0 : 0.2);
            lo[i] = c - r;
            hi[i] = c + r;
            /* the child: a random sub-box (one side halved as a split does, or shrunk anywhere) */
            double a = urand(), b = urand(), t0 = fmin(a, b), t1 = fmax(a, b);
            if (trial % 3 == 0) { t0 = i == 0 ? 0.5 : 0.0; t1 = 1.0; }
            clo[i] = lo[i] + t0 * (hi[i] - lo[i]);
            chi[i] = fmin(hi[i], lo[i] + t1 * (hi[i] - lo[i]));
        }
        nnc_sfw *s;
        ck_assert_msg(nnc_sfw_create(&s, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        int P = (int)nnc_sfw_relu_count(s), no2 = nnc_sfw_num_outputs(s);
        double *plo = malloc(sizeof(double) * (size_t)P), *phi = malloc(sizeof(double) * (size_t)P);
        double *ulo = malloc(sizeof(double) * (size_t)P), *uhi = malloc(sizeof(double) * (size_t)P);
        double *klo = malloc(sizeof(double) * (size_t)P), *khi = malloc(sizeof(double) * (size_t)P);
        double *C = calloc((size_t)no2, sizeof(double)), d = 0, lw;
        C[0] = 1;
        ck_assert_int_eq(nnc_sfw_bound(s, lo, hi, 1, 1, C, &d, &lw, NULL), NNC_STATUS_OK);
        nnc_sfw_relu_bounds(s, plo, phi);
        /* the child's cheap bound (no refinement, as the verifier caps it) */
        int rf = trial % 4 == 1;
        ck_assert_int_eq(nnc_sfw_bound(s, clo, chi, rf, 1, C, &d, &lw, NULL), NNC_STATUS_OK);
        nnc_sfw_relu_bounds(s, ulo, uhi);
        nnc_sfw_set_caps(s, plo, phi);
        ck_assert_int_eq(nnc_sfw_bound(s, clo, chi, rf, 1, C, &d, &lw, NULL), NNC_STATUS_OK);
        nnc_sfw_relu_bounds(s, klo, khi);
        /* (not: never looser than uncapped at later layers; the relaxations
         * are not monotone in the intermediate bounds) */
        for (int j = 0; j < P; j++) {
            ck_assert_msg(klo[j] >= plo[j] && khi[j] <= phi[j], "seed %llu trial %d: neuron %d outside its caps", (unsigned long long)g_seed, trial, j);
            tighter += klo[j] > ulo[j] || khi[j] < uhi[j];
        }
        nnc_sfw_destroy(s);
        check_trial_capped(m, n0, clo, chi, 0, trial, plo, phi);
        check_trial_capped(m, n0, clo, chi, 1, trial, plo, phi);
        free(plo); free(phi); free(ulo); free(uhi); free(klo); free(khi); free(C);
        nnc_mdl_destroy(m);
    }
    /* the caps did something somewhere (else this test tests nothing) */
    ck_assert_int_gt(tighter, 0);
}
END_TEST

START_TEST(test_rejects_non_chains)
{
    int w[2] = {5, 5};
    nnc_model *m = build_chain(3, 2, w, 2, 1); /* a Sigmoid inside */
    char err[NNC_ERRBUF_SIZE];
    nnc_sfw *s = NULL;
    ck_assert_int_eq(nnc_sfw_create(&s, m, err, sizeof err), NNC_STATUS_UNSUPPORTED);
    ck_assert_ptr_null(s);
    nnc_mdl_destroy(m);
    /* a box with NaN or lo > hi is refused */
    m = build_chain(3, 2, w, 2, 0);
    ck_assert_int_eq(nnc_sfw_create(&s, m, err, sizeof err), NNC_STATUS_OK);
    double lo[3] = {0, 0, 0}, hi[3] = {1, NAN, 1}, C[2] = {1, 0}, d = 0, lower;
    ck_assert_int_eq(nnc_sfw_bound(s, lo, hi, 1, 1, C, &d, &lower, NULL), NNC_STATUS_ARG);
    hi[1] = -1;
    ck_assert_int_eq(nnc_sfw_bound(s, lo, hi, 0, 1, C, &d, &lower, NULL), NNC_STATUS_ARG);
    nnc_sfw_destroy(s);
    nnc_mdl_destroy(m);
}
END_TEST

/* A chain whose output layer ends in a ReLU: the forward engine refuses it
 * (its objective bound would use pre-ReLU functions), and every --symbolic
 * mode finds the violation.  y_2i = relu(x_i - c_i), y_2i+1 = relu(c_i - x_i),
 * y_8 = relu(x_0 - 10); unsafe: y_0 + ... + y_7 - y_8 <= 0.001, reached at
 * x = c where every output is 0.  (A negative objective coefficient on an
 * inactive ReLU output once gave "holds" here.) */
START_TEST(test_relu_output_layer)
{
    enum { NI = 4, NO = 2 * NI + 1 };
    mb b;
    mb_init(&b, 13);
    int64_t xd[2] = {1, NI}, wd[2] = {NO, NI}, bd[1] = {NO};
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    float W[NO * NI] = {0}, bb[NO];
    const float c[NI] = {0.3712f, -0.2291f, 0.5417f, -0.6133f};
    for (int i = 0; i < NI; i++) {
        W[(2 * i) * NI + i] = 1;
        bb[2 * i] = -c[i];
        W[(2 * i + 1) * NI + i] = -1;
        bb[2 * i + 1] = c[i];
    }
    W[(NO - 1) * NI] = 1;
    bb[NO - 1] = -10;
    b.inits[0] = tensor_floats("W", 2, wd, W, NO * NI);
    b.inits[1] = tensor_floats("B", 1, bd, bb, NO);
    static const char *gi[3] = {"x", "W", "B"}, *go[1] = {"z"}, *ri[1] = {"z"}, *ro[1] = {"y"};
    Onnx__NodeProto *g = node("Gemm", "g", 3, gi, 1, go);
    node_attr(g, attr_int("transB", 1));
    b.nodes[0] = g;
    b.nodes[1] = node("Relu", "r", 1, ri, 1, ro);
    b.graph.n_initializer = 2;
    b.graph.n_node = 2;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    char text[4096];
    int p = 0;
    for (int i = 0; i < NI; i++) p += sprintf(text + p, "(declare-const X_%d Real)\n", i);
    for (int j = 0; j < NO; j++) p += sprintf(text + p, "(declare-const Y_%d Real)\n", j);
    for (int i = 0; i < NI; i++) p += sprintf(text + p, "(assert (>= X_%d -1))\n(assert (<= X_%d 1))\n", i, i);
    p += sprintf(text + p, "(assert (<= (- (+");
    for (int j = 0; j < NO - 1; j++) p += sprintf(text + p, " Y_%d", j);
    sprintf(text + p, ") Y_%d) 0.001))\n", NO - 1);
    nnc_spec *sp;
    ck_assert_msg(nnc_spc_parse(&sp, text, strlen(text), err, sizeof err) == NNC_STATUS_OK, "%s", err);
    const int modes[4] = {0, -1, 1, 2};
    for (int k = 0; k < 4; k++) {
        nnc_vrf_opts o;
        nnc_vrf_opts_default(&o);
        o.symbolic = modes[k];
        o.timeout_s = 20;
        nnc_vrf_report r;
        ck_assert_msg(nnc_vrf_run(m, sp, &o, &r, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        ck_assert_msg(r.result != NNC_VRF_HOLDS, "symbolic mode %d says holds on a violated property", modes[k]);
        nnc_vrf_report_clear(&r);
    }
    nnc_sfw *s = NULL;
    ck_assert_int_eq(nnc_sfw_create(&s, m, err, sizeof err), NNC_STATUS_UNSUPPORTED);
    ck_assert_ptr_null(s);
    nnc_spc_destroy(sp);
    nnc_mdl_destroy(m);
}
END_TEST

/* Threshold properties  Y_0 >= t  on random chains over [-1, 1]^3, t just
 * above the sampled maximum (mostly holds) or at a sampled quantile (violated). */
START_TEST(test_verifier_modes_agree)
{
    char err[NNC_ERRBUF_SIZE];
    for (int trial = 0; trial < 8; trial++) {
        int w[3] = {6 + rnd_below(6), 6 + rnd_below(6), 6 + rnd_below(6)};
        nnc_model *m = build_chain(3, 3, w, 2, 0);
        nnc_runtime *rt;
        int B = 1000;
        ck_assert_int_eq(nnc_rt_create(&rt, m, NNC_PRECISION_F64, B, err, sizeof err), NNC_STATUS_OK);
        double *xs = malloc(sizeof(double) * 3 * (size_t)B), *ys = malloc(sizeof(double) * 2 * (size_t)B), *y0 = malloc(sizeof(double) * 20 * (size_t)B);
        for (int rep = 0; rep < 20; rep++) {
            for (int q = 0; q < 3 * B; q++) xs[q] = urand() * 2 - 1;
            const void *in[1] = {xs};
            void *out[1] = {ys};
            ck_assert_int_eq(nnc_rt_run(rt, B, in, out, err, sizeof err), NNC_STATUS_OK);
            for (int q = 0; q < B; q++) y0[rep * B + q] = ys[2 * q];
        }
        double mx = -INFINITY, t;
        for (int q = 0; q < 20 * B; q++) mx = fmax(mx, y0[q]);
        int want_violated = trial % 2;
        if (want_violated) { /* a value some sample exceeds */
            int above = 0;
            t = mx - 0.05 * (1 + fabs(mx));
            for (int q = 0; q < 20 * B; q++) above += y0[q] >= t;
            ck_assert(above > 0);
        } else {
            t = mx + 0.02 * (1 + fabs(mx));
        }
        char text[1024];
        snprintf(text, sizeof text,
                 "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const X_2 Real)\n(declare-const Y_0 Real)\n"
                 "(declare-const Y_1 Real)\n(assert (>= X_0 -1))\n(assert (<= X_0 1))\n(assert (>= X_1 -1))\n(assert (<= X_1 1))\n"
                 "(assert (>= X_2 -1))\n(assert (<= X_2 1))\n(assert (>= Y_0 %.17g))\n", t);
        nnc_spec *sp;
        ck_assert_msg(nnc_spc_parse(&sp, text, strlen(text), err, sizeof err) == NNC_STATUS_OK, "%s", err);
        int modes[5] = {0, 1, 2, -1, -1}, res[5];
        for (int k = 0; k < 5; k++) {
            nnc_vrf_opts o;
            nnc_vrf_opts_default(&o);
            o.symbolic = modes[k];
            o.exact = k == 4 ? 0 : -1; /* auto with and without the exact leaf decision */
            o.samples = 0;
            o.timeout_s = 20;
            o.max_leaves = 20000;
            o.stop_on_counterexample = 1;
            nnc_vrf_report r;
            ck_assert_msg(nnc_vrf_run(m, sp, &o, &r, err, sizeof err) == NNC_STATUS_OK, "%s", err);
            res[k] = r.result;
            if (want_violated) ck_assert_msg(r.result != NNC_VRF_HOLDS, "seed %llu trial %d mode %d: holds, yet a sample violates", (unsigned long long)g_seed, trial, modes[k]);
            if (r.result == NNC_VRF_VIOLATED) {
                ck_assert(r.has_counterexample && r.cex_input);
                const void *in[1] = {r.cex_input};
                void *out[1] = {ys};
                ck_assert_int_eq(nnc_rt_run(rt, 1, in, out, err, sizeof err), NNC_STATUS_OK);
                ck_assert_msg(ys[0] >= t, "seed %llu trial %d mode %d: counterexample output %.17g below %.17g", (unsigned long long)g_seed, trial, modes[k], ys[0], t);
            }
            nnc_vrf_report_clear(&r);
        }
        for (int a = 0; a < 5; a++)
            for (int b2 = 0; b2 < 5; b2++)
                ck_assert_msg(!(res[a] == NNC_VRF_HOLDS && res[b2] == NNC_VRF_VIOLATED), "seed %llu trial %d: modes disagree", (unsigned long long)g_seed, trial);
        nnc_spc_destroy(sp);
        nnc_rt_destroy(rt);
        free(xs); free(ys); free(y0);
        nnc_mdl_destroy(m);
    }
}
END_TEST

int main(void)
{
    harness_seed("test_symfwd");
    Suite *su = suite_create("symfwd");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_random_chains);
    tcase_add_test(tc, test_parent_caps);
    tcase_add_test(tc, test_rejects_non_chains);
    tcase_add_test(tc, test_relu_output_layer);
    tcase_add_test(tc, test_verifier_modes_agree);
    suite_add_tcase(su, tc);
    return check_main_run(su);
}
