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

nnc_status nnc_alpha_lower(nnc_bnd *b, int nobj, const double *C, const double *target, double *lower, double *lam,
                           int iters, double deadline)
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
        memcpy(a, a0, sz);
        memset(a + nr, 0, sz);
        memset(m1, 0, 2 * sz);
        memset(m2, 0, 2 * sz);
        double lr = NNC_ALPHA_LR, p1 = 1, p2 = 1;
        for (int it = 0; it < iters; it++) {
            if (nnc_rfn_now() > deadline) break;
            double lb;
            nnc_bnd_set_slopes(b, a);
            if ((st = nnc_bnd_objective_grad(b, C + (size_t)o * (size_t)nout, 0.0, &lb, li, g, g + nr, NULL))) break;
            if (lb > lower[o]) {
                lower[o] = lb;
                if (lam) memcpy(lam + (size_t)o * (size_t)nin, li, sizeof(double) * (size_t)nin);
                if (lb > target[o]) break;
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
    }
    nnc_bnd_set_slopes(b, a0);
out:
    nnc_bnd_set_beta(b, NULL);
    free(a0); free(a); free(g); free(m1); free(m2); free(li);
    return st;
}
