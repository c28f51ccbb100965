/* alpha-CROWN: optimised lower slopes of the ReLU relaxations and line
 * slopes of the sigmoid/tanh ones, and with ReLU splits set, beta-CROWN's
 * split multipliers (see refine_impl.h).  Each objective gets its own
 * slopes and multipliers, as in alpha/beta-CROWN (every slope and multiplier
 * vector gives a sound bound); nnc_alpha_intermediate optimises the hidden
 * layers' bounds (ReLU and sigmoid/tanh) the same way, neuron by neuron. */
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

/* The optimised variables, in one vector of nnc_alpha_param_count(b):
 * ReLU lower slopes [0, nr), split multipliers [nr, 2nr) (zero gradient
 * where a neuron is not split), sigmoid/tanh line slopes [2nr, 2nr + 2ns)
 * (fractions of the largest derivative, nnc_bnd_set_smooth_slopes). */
int64_t nnc_alpha_param_count(const nnc_bnd *b) { return 2 * nnc_bnd_relu_count(b) + 2 * nnc_bnd_smooth_count(b); }

void nnc_alpha_params_init(const nnc_bnd *b, double *a)
{
    int64_t nr = nnc_bnd_relu_count(b);
    nnc_bnd_get_slopes(b, a);
    memset(a + nr, 0, sizeof(double) * (size_t)nr);
    nnc_bnd_get_smooth_slopes(b, a + 2 * nr);
}

static void params_set(nnc_bnd *b, const double *a)
{
    int64_t nr = nnc_bnd_relu_count(b);
    nnc_bnd_set_slopes(b, a);
    nnc_bnd_set_smooth_slopes(b, a + 2 * nr);
}

/* Scratch of the ascent: np = nnc_alpha_param_count entries each, li n_in. */
typedef struct ascent {
    int64_t np;
    double *a0, *a, *g, *m1, *m2, *li;
} ascent;

static void ascent_free(ascent *w)
{
    free(w->a0); free(w->a); free(w->g); free(w->m1); free(w->m2); free(w->li);
}

/* Allocates the scratch and points b's multipliers and smooth-slope
 * gradient into it; returns NOMEM or OK.  Release with ascent_end. */
static nnc_status ascent_begin(nnc_bnd *b, ascent *w)
{
    int64_t nr = nnc_bnd_relu_count(b);
    w->np = nnc_alpha_param_count(b);
    size_t sz = sizeof(double) * (size_t)(w->np + 1);
    w->a0 = malloc(sz); w->a = malloc(sz); w->g = malloc(sz); w->m1 = malloc(sz); w->m2 = malloc(sz);
    w->li = malloc(sizeof(double) * (size_t)(nnc_bnd_num_inputs(b) + 1));
    if (!w->a0 || !w->a || !w->g || !w->m1 || !w->m2 || !w->li) {
        ascent_free(w);
        return NNC_STATUS_NOMEM;
    }
    nnc_bnd_set_beta(b, w->a + nr);
    nnc_bnd_set_smooth_grad(b, w->g + 2 * nr);
    return NNC_STATUS_OK;
}

static void ascent_end(nnc_bnd *b, ascent *w)
{
    nnc_bnd_set_beta(b, NULL);
    nnc_bnd_set_smooth_grad(b, NULL);
    ascent_free(w);
}

/* Projected Adam ascent on one objective's bound from the variables in
 * w->a (overwritten); best, when not NULL, receives those of the best
 * bound.  The objective: C . out, or with pre_f >= 0 pre_sign times neuron
 * pre_f's pre-activation. */
static nnc_status ascend(nnc_bnd *b, ascent *w, const double *C, int64_t pre_f, int pre_sign, double target,
                         double *lower, double *lam, int iters, double deadline, double *best)
{
    int64_t nr = nnc_bnd_relu_count(b), nin = nnc_bnd_num_inputs(b), np = w->np;
    double *a = w->a, *g = w->g, *m1 = w->m1, *m2 = w->m2;
    memset(m1, 0, sizeof(double) * (size_t)np);
    memset(m2, 0, sizeof(double) * (size_t)np);
    double lr = NNC_ALPHA_LR, p1 = 1, p2 = 1;
    for (int it = 0; it < iters; it++) {
        if (nnc_rfn_now() > deadline) break;
        nnc_bnd_tick(b); /* progress, at least every step */
        double lb;
        params_set(b, a);
        nnc_status st = pre_f >= 0 ? nnc_bnd_pre_grad(b, pre_f, pre_sign, &lb, g, g + nr)
                                   : nnc_bnd_objective_grad(b, C, 0.0, &lb, w->li, g, g + nr, NULL);
        if (st) return st;
        if (lb > *lower) {
            *lower = lb;
            if (lam) memcpy(lam, w->li, sizeof(double) * (size_t)nin);
            if (best) memcpy(best, a, sizeof(double) * (size_t)np);
            if (lb > target) break;
        }
        /* projected Adam ascent on the bound */
        p1 *= 0.9;
        p2 *= 0.999;
        for (int64_t f = 0; f < np; f++) {
            if (g[f] == 0 && m1[f] == 0) continue;
            m1[f] = 0.9 * m1[f] + 0.1 * g[f];
            m2[f] = 0.999 * m2[f] + 0.001 * g[f] * g[f];
            double step = lr * (m1[f] / (1 - p1)) / (sqrt(m2[f] / (1 - p2)) + 1e-12);
            double v = a[f] + step;
            /* slopes in [0, 1] (ReLU: set_slopes raises them to the leak),
             * multipliers >= 0 */
            a[f] = v < 0 ? 0 : ((f < nr || f >= 2 * nr) && v > 1) ? 1 : v;
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
    int64_t nin = nnc_bnd_num_inputs(b), nout = nnc_bnd_num_outputs(b);
    if (nnc_alpha_param_count(b) == 0 || iters <= 0) return NNC_STATUS_OK;
    ascent w;
    nnc_status st = ascent_begin(b, &w);
    if (st) return st;
    size_t sz = sizeof(double) * (size_t)w.np;
    nnc_alpha_params_init(b, w.a0);
    for (int o = 0; o < nobj && !st; o++) {
        if (lower[o] > target[o]) continue;
        double *ao = ab ? ab + (size_t)o * (size_t)w.np : NULL;
        memcpy(w.a, ao ? ao : w.a0, sz);
        st = ascend(b, &w, C + (size_t)o * (size_t)nout, -1, 0, target[o], lower + o,
                    lam ? lam + (size_t)o * (size_t)nin : NULL, iters, deadline, ao);
    }
    params_set(b, w.a0);
    ascent_end(b, &w);
    return st;
}

nnc_status nnc_alpha_intermediate(nnc_bnd *b, int iters, double deadline, int64_t *narrowed)
{
    int64_t nr = nnc_bnd_relu_count(b), ns = nnc_bnd_smooth_count(b);
    *narrowed = 0;
    if (nr + ns == 0 || iters <= 0) return NNC_STATUS_OK;
    ascent w;
    nnc_status st = ascent_begin(b, &w);
    if (st) return st;
    size_t sz = sizeof(double) * (size_t)w.np;
    /* neurons in topological order (ReLU and sigmoid/tanh indices merged by
     * their node's position): each one's bounds use the relaxations of the
     * layers before it, already narrowed */
    int64_t fr = 0, fs = nr;
    int pr = nr > 0 ? nnc_bnd_pre_pos(b, 0) : -1, ps = ns > 0 ? nnc_bnd_pre_pos(b, nr) : -1;
    while (!st && !nnc_bnd_infeasible(b) && (fr < nr || fs < nr + ns)) {
        int relu = fr < nr && (fs >= nr + ns || pr <= ps);
        int64_t f = relu ? fr++ : fs++;
        if (relu && fr < nr) pr = nnc_bnd_pre_pos(b, fr);
        if (!relu && fs < nr + ns) ps = nnc_bnd_pre_pos(b, fs);
        double l, u, nl = -INFINITY, nu = -INFINITY;
        nnc_bnd_pre_bounds(b, f, &l, &u);
        /* a stable ReLU is exact already; a smooth neuron gains from any
         * narrowing; an exact interval (an affine map of the input box) has
         * nothing to gain (the first layer of MNIST and VeriVital nets: on
         * Convnet_avgpool, 5299 neurons, 19% of a run before) */
        if (relu ? !(l < 0 && u > 0) : !(l < u && isfinite(l) && isfinite(u))) continue;
        if (nnc_bnd_pre_exact(b, f)) continue;
        if (nnc_rfn_now() > deadline) break;
        nnc_alpha_params_init(b, w.a0);
        for (int side = 1; side >= -1 && !st; side -= 2) {
            memcpy(w.a, w.a0, sz);
            /* lower bound of side * z_f; a ReLU past 0 is stable (done) */
            st = ascend(b, &w, NULL, f, side, relu ? 0.0 : INFINITY, side > 0 ? &nl : &nu, NULL, iters, deadline, NULL);
            params_set(b, w.a0);
        }
        if (st) break;
        if (nl > l || -nu < u) {
            nnc_bnd_pre_narrow(b, f, nl, -nu);
            (*narrowed)++;
        }
    }
    ascent_end(b, &w);
    return st;
}
