/* alpha-CROWN: optimised lower slopes of the ReLU relaxations, and with
 * ReLU splits set, beta-CROWN's split multipliers (see refine_impl.h).  Each
 * objective gets its own slopes and multipliers, as in alpha/beta-CROWN;
 * only the final back-substitution is optimised, the intermediate bounds stay
 * CROWN's (cheaper, and every slope and multiplier vector still gives a sound
 * bound). */
#include "verifier/refine_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NNC_ALPHA_LR 0.1      /* Adam step, as auto_LiRPA's default lr_alpha */
#define NNC_ALPHA_DECAY 0.98  /* per step */

double nnc_rfn_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Projected Adam ascent on one objective's bound from the slopes and
 * multipliers in a[0..2nr) (overwritten); best, when not NULL, receives
 * those of the best bound (2nr).  Scratch g, m1, m2: 2nr each; li: n_in. */
static nnc_status ascend(nnc_bnd *b, const double *C, double target, double *lower, double *lam, int iters,
                         double deadline, double *a, double *best, double *g, double *m1, double *m2, double *li)
{
    int64_t nr = nnc_bnd_relu_count(b), nin = nnc_bnd_num_inputs(b);
    size_t sz = sizeof(double) * (size_t)nr;
    memset(m1, 0, 2 * sz);
    memset(m2, 0, 2 * sz);
    double lr = NNC_ALPHA_LR, p1 = 1, p2 = 1;
    for (int it = 0; it < iters; it++) {
        if (nnc_rfn_now() > deadline) break;
        double lb;
        nnc_bnd_set_slopes(b, a);
        nnc_status st = nnc_bnd_objective_grad(b, C, 0.0, &lb, li, g, g + nr, NULL);
        if (st) return st;
        if (lb > *lower) {
            *lower = lb;
            if (lam) memcpy(lam, li, sizeof(double) * (size_t)nin);
            if (best) memcpy(best, a, 2 * sz);
            if (lb > target) break;
        }
        /* projected Adam ascent on the bound */
        p1 *= 0.9;
        p2 *= 0.999;
        for (int64_t f = 0; f < 2 * nr; f++) {
            if (g[f] == 0 && m1[f] == 0) continue;
            m1[f] = 0.9 * m1[f] + 0.1 * g[f];
            m2[f] = 0.999 * m2[f] + 0.001 * g[f] * g[f];
            double step = lr * (m1[f] / (1 - p1)) / (sqrt(m2[f] / (1 - p2)) + 1e-12);
            double v = a[f] + step;
            a[f] = v < 0 ? 0 : (f < nr && v > 1) ? 1 : v; /* slopes in [0, 1], multipliers >= 0 */
        }
        lr *= NNC_ALPHA_DECAY;
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_alpha_lower(nnc_bnd *b, int nobj, const double *C, const double *target, double *lower, double *lam,
                           int iters, double deadline)
{
    return nnc_alpha_lower_from(b, nobj, C, target, lower, lam, iters, deadline, NULL);
}

nnc_status nnc_alpha_lower_from(nnc_bnd *b, int nobj, const double *C, const double *target, double *lower,
                                double *lam, int iters, double deadline, double *ab)
{
    int64_t nr = nnc_bnd_relu_count(b), nin = nnc_bnd_num_inputs(b), nout = nnc_bnd_num_outputs(b);
    if (nr == 0 || iters <= 0) return NNC_STATUS_OK;
    size_t sz = sizeof(double) * (size_t)(nr + 1);
    /* variables: slopes a[0..nr), multipliers a[nr..2nr) (zero gradient
     * where a neuron is not split) */
    double *a0 = malloc(sz), *a = malloc(2 * sz), *g = malloc(2 * sz), *m1 = malloc(2 * sz), *m2 = malloc(2 * sz);
    double *li = malloc(sizeof(double) * (size_t)(nin + 1));
    nnc_status st = NNC_STATUS_NOMEM;
    if (!a0 || !a || !g || !m1 || !m2 || !li) goto out;
    nnc_bnd_set_beta(b, a + nr);
    st = NNC_STATUS_OK;
    nnc_bnd_get_slopes(b, a0);
    for (int o = 0; o < nobj && !st; o++) {
        if (lower[o] > target[o]) continue;
        double *ao = ab ? ab + (size_t)o * 2 * (size_t)nr : NULL;
        if (ao) memcpy(a, ao, 2 * sizeof(double) * (size_t)nr);
        else {
            memcpy(a, a0, sizeof(double) * (size_t)nr);
            memset(a + nr, 0, sizeof(double) * (size_t)nr);
        }
        st = ascend(b, C + (size_t)o * (size_t)nout, target[o], lower + o, lam ? lam + (size_t)o * (size_t)nin : NULL,
                    iters, deadline, a, ao, g, m1, m2, li);
    }
    nnc_bnd_set_slopes(b, a0);
out:
    nnc_bnd_set_beta(b, NULL);
    free(a0); free(a); free(g); free(m1); free(m2); free(li);
    return st;
}
