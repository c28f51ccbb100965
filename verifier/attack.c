/* Falsification by projected gradient descent (method in attack_impl.h):
 * on dense ReLU chains with their own float64 forward and reverse pass, on
 * any other graph the bound engine covers (Conv, residual Add, pooling,
 * BatchNormalization, Sigmoid, Tanh, ...) through the bound engine on the
 * one-point box [x, x]. */
#include "verifier/attack_impl.h"

#include "verifier/bounds_impl.h"
#include "verifier/sample_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* slope of the surrogate's inactive ReLUs on plateaus */
#define NNC_ATK_LEAK 0.3
/* first step sizes (of the box width), cycled over the starts: large ones
 * explore faces and corners, small ones stay in the start's region */
#define NNC_ATK_NETA 3
static const double etas[NNC_ATK_NETA] = {0.5, 0.1, 0.02};

struct nnc_atk {
    nnc_smp_chain *ch; /* dense chain, or NULL: graph mode through bnd */
    nnc_bnd *bnd;      /* graph mode: the bound engine of the model */
    int n, n_out, nl;
    double **z;      /* per layer: pre-activations (N) */
    double **h;      /* per layer: outputs (N); h[-1] is the input */
    double *ga, *gb; /* reverse-pass scratch: wmax */
    double *x, *g, *xs, *y; /* n, n, starts scratch, n_out */
    int xs_cap;
};

int nnc_atk_num_inputs(const nnc_atk *a) { return a->n; }
int nnc_atk_num_outputs(const nnc_atk *a) { return a->n_out; }

void nnc_atk_destroy(nnc_atk *a)
{
    if (a == NULL) return;
    for (int l = 0; l < a->nl; l++) {
        if (a->z) free(a->z[l]);
        if (a->h) free(a->h[l]);
    }
    free(a->z);
    free(a->h);
    free(a->ga);
    free(a->gb);
    free(a->x);
    free(a->g);
    free(a->xs);
    free(a->y);
    nnc_smp_chain_free(a->ch);
    nnc_bnd_destroy(a->bnd);
    free(a);
}

/* Graph mode: at a point x the bound engine on the box [x, x] has every
 * ReLU fixed on its side (a pre-activation within rounding of 0 keeps a
 * relaxation with slopes in [0, 1], a subgradient), every Sigmoid, Tanh and
 * MaxPool relaxed around x; back-substitution of an objective c . y then
 * returns the linear coefficients on the input, the gradient of c . f at x,
 * and the interval of the output brackets f(x) within rounding.  The engine
 * already has every operator's transformer, so any model it bounds can be
 * attacked. */
nnc_status nnc_atk_create_graph(nnc_atk **out, const nnc_model *m, char *err, size_t errlen)
{
    *out = NULL;
    nnc_bnd *b;
    nnc_status st = nnc_bnd_create(&b, m, err, errlen);
    if (st) return st;
    nnc_atk *a = calloc(1, sizeof *a);
    if (a == NULL) {
        nnc_bnd_destroy(b);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    a->bnd = b;
    a->n = (int)nnc_bnd_num_inputs(b);
    a->n_out = (int)nnc_bnd_num_outputs(b);
    a->x = malloc(sizeof(double) * (size_t)a->n + 8);
    a->g = malloc(sizeof(double) * (size_t)a->n + 8);
    a->y = malloc(sizeof(double) * (size_t)a->n_out + 8);
    a->ga = malloc(sizeof(double) * (size_t)a->n_out + 8);
    if (!a->x || !a->g || !a->y || !a->ga) {
        nnc_atk_destroy(a);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    *out = a;
    return NNC_STATUS_OK;
}

/* Graph mode's forward pass: the output at x (midpoints of the one-point
 * box's output intervals, which bracket it within rounding), or NULL. */
static const double *graph_forward(nnc_atk *a, const double *x)
{
    if (nnc_bnd_compute(a->bnd, x, x, 0)) return NULL;
    const double *lo = nnc_bnd_out_lo(a->bnd), *hi = nnc_bnd_out_hi(a->bnd);
    for (int i = 0; i < a->n_out; i++) a->y[i] = 0.5 * lo[i] + 0.5 * hi[i];
    return a->y;
}

nnc_status nnc_atk_create(nnc_atk **out, const nnc_model *m, char *err, size_t errlen)
{
    *out = NULL;
    nnc_smp_chain *ch;
    nnc_status st = nnc_smp_chain_extract(&ch, m, err, errlen);
    if (st == NNC_STATUS_UNSUPPORTED) return nnc_atk_create_graph(out, m, err, errlen);
    if (st) return st;
    nnc_atk *a = calloc(1, sizeof *a);
    if (a == NULL) {
        nnc_smp_chain_free(ch);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    a->ch = ch;
    a->n = ch->n_in;
    a->n_out = ch->n_out;
    a->nl = ch->n_layers;
    int wmax = a->n;
    a->z = calloc((size_t)a->nl, sizeof(double *));
    a->h = calloc((size_t)a->nl, sizeof(double *));
    if (!a->z || !a->h) goto nomem;
    for (int l = 0; l < a->nl; l++) {
        int N = ch->layers[l].N;
        if (N > wmax) wmax = N;
        a->z[l] = malloc(sizeof(double) * (size_t)N + 8);
        a->h[l] = malloc(sizeof(double) * (size_t)N + 8);
        if (!a->z[l] || !a->h[l]) goto nomem;
    }
    a->ga = malloc(sizeof(double) * (size_t)wmax + 8);
    a->gb = malloc(sizeof(double) * (size_t)wmax + 8);
    a->x = malloc(sizeof(double) * (size_t)a->n + 8);
    a->g = malloc(sizeof(double) * (size_t)a->n + 8);
    a->y = malloc(sizeof(double) * (size_t)a->n_out + 8);
    if (!a->ga || !a->gb || !a->x || !a->g || !a->y) goto nomem;
    *out = a;
    return NNC_STATUS_OK;
nomem:
    nnc_atk_destroy(a);
    return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
}

/* Forward pass keeping pre-activations and outputs; returns the output. */
static const double *forward(nnc_atk *a, const double *x)
{
    const double *in = x;
    for (int l = 0; l < a->nl; l++) {
        const nnc_gpu_dense *D = &a->ch->layers[l];
        double *z = a->z[l], *h = a->h[l];
        for (int j = 0; j < D->N; j++) z[j] = D->b[j];
        for (int k = 0; k < D->K; k++) {
            double v = in[k];
            if (v == 0) continue;
            const double *w = D->w + (size_t)k * (size_t)D->N;
            for (int j = 0; j < D->N; j++) z[j] += v * w[j];
        }
        for (int j = 0; j < D->N; j++) h[j] = D->relu ? (z[j] > 0 ? z[j] : 0) : z[j];
        in = h;
    }
    return in;
}

/* Hinge loss of disjunct j at output out with offset kappa; gy (n_out,
 * may be NULL) receives the sum of the rows whose hinge is active. */
static double hinge(const nnc_atk_problem *p, int j, int no, double kappa, const double *out, double *gy)
{
    double loss = 0;
    if (gy)
        for (int i = 0; i < no; i++) gy[i] = 0;
    for (int r = p->dstart[j]; r < p->dstart[j + 1]; r++) {
        const double *Cr = p->C + (size_t)r * (size_t)no;
        double v = -p->d[r];
        for (int i = 0; i < no; i++) v += Cr[i] * out[i];
        if (v + kappa > 0) {
            loss += v + kappa;
            if (gy)
                for (int i = 0; i < no; i++) gy[i] += Cr[i];
        }
    }
    return loss;
}

/* j >= 0: the hinge loss of disjunct j; j = -1 (the joint objective): the
 * smallest of the disjuncts' losses, the margin to the nearest unsafe
 * disjunct (for robustness specs, the margin loss of the true class over
 * the best other class), with that disjunct's gradient. */
static double loss_grad(nnc_atk *a, const nnc_atk_problem *p, int j, double kappa, double leak, const double *x,
                        double *g, double *y)
{
    const double *out = a->ch ? forward(a, x) : graph_forward(a, x);
    if (out == NULL) return NAN;
    int no = a->n_out;
    if (y && y != out) memcpy(y, out, sizeof(double) * (size_t)no);
    if (j < 0) {
        double best = INFINITY;
        for (int jj = 0; jj < p->ndisj; jj++) {
            double l = hinge(p, jj, no, kappa, out, NULL);
            if (l < best) {
                best = l;
                j = jj;
            }
        }
    }
    double *gy = a->ga; /* dL/dy */
    double loss = hinge(p, j, no, kappa, out, gy);
    if (g == NULL) return loss;
    if (a->ch == NULL) { /* graph mode: back-substitution of gy . y on [x, x] */
        double lower;
        if (loss == 0) {
            for (int i = 0; i < a->n; i++) g[i] = 0;
            return loss;
        }
        return nnc_bnd_objective_grad(a->bnd, gy, 0, &lower, g, NULL, NULL, NULL) ? NAN : loss;
    }
    /* reverse pass: gz = gh * relu'(z); gh_prev = W gz */
    double *gh = gy, *gn = a->gb;
    for (int l = a->nl - 1; l >= 0; l--) {
        const nnc_gpu_dense *D = &a->ch->layers[l];
        if (D->relu)
            for (int jj = 0; jj < D->N; jj++)
                if (!(a->z[l][jj] > 0)) gh[jj] *= leak;
        double *dst = l == 0 ? g : gn;
        for (int k = 0; k < D->K; k++) {
            const double *w = D->w + (size_t)k * (size_t)D->N;
            double s = 0;
            for (int jj = 0; jj < D->N; jj++) s += w[jj] * gh[jj];
            dst[k] = s;
        }
        if (l > 0) {
            double *t = gh;
            gh = gn;
            gn = t;
        }
    }
    return loss;
}

double nnc_atk_loss_grad(nnc_atk *a, const nnc_atk_problem *p, int j, double kappa, const double *x, double *g,
                         double *y)
{
    return loss_grad(a, p, j, kappa, 0, x, g, y);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether y lies in disjunct j (float64 sums). */
static int in_one(const nnc_atk_problem *p, int j, int no, const double *y)
{
    for (int r = p->dstart[j]; r < p->dstart[j + 1]; r++) {
        const double *Cr = p->C + (size_t)r * (size_t)no;
        double v = -p->d[r];
        for (int i = 0; i < no; i++) v += Cr[i] * y[i];
        if (!(v <= 0)) return 0;
    }
    return 1;
}

/* The disjunct that contains y: j itself (j >= 0), the first one (j = -1),
 * or -1 when none does. */
static int in_disjunct(const nnc_atk_problem *p, int j, int no, const double *y)
{
    if (j >= 0) return in_one(p, j, no, y) ? j : -1;
    for (int jj = 0; jj < p->ndisj; jj++)
        if (in_one(p, jj, no, y)) return jj;
    return -1;
}

/* One descent from x (in/out) on disjunct j: signed gradient steps scaled
 * by the box widths, from eta0 of the width down to 1e-6 of it
 * geometrically.  Returns 1 when check accepted a point. */
static int descend(nnc_atk *a, const nnc_atk_problem *p, int j, const double *lo, const double *hi, double *x,
                   int steps, double eta0, nnc_atk_check_fn check, void *cctx, uint64_t *evals)
{
    int n = a->n;
    double *g = a->g, *y = a->y;
    double kappa = 0, ymax = 0;
    int rejected = 0;
    const double eta_end = 1e-6;
    double decay = steps > 1 ? pow(eta_end / eta0, 1.0 / (double)(steps - 1)) : 1, eta = eta0;
    for (int t = 0; t < steps; t++, eta *= decay) {
        double loss = loss_grad(a, p, j, kappa, 0, x, g, y);
        (*evals)++;
        if (!isfinite(loss)) return 0;
        int flat = 1;
        for (int i = 0; i < n && flat; i++) flat = g[i] == 0;
        if (flat && loss > 0 && a->ch != NULL) {
            /* on a plateau (a layer with every ReLU off): follow the
             * gradient of the leaky surrogate towards the neurons that would
             * turn on usefully */
            loss_grad(a, p, j, kappa, NNC_ATK_LEAK, x, g, NULL);
        }
        if (t == 0)
            for (int i = 0; i < a->n_out; i++) ymax = fmax(ymax, fabs(y[i]));
        int jin = in_disjunct(p, j, a->n_out, y);
        if (jin >= 0) {
            if (check(cctx, jin, x)) return 1;
            /* rejected (rounding to float32, or the runtime's sums): aim
             * further inside */
            if (++rejected > 8) return 0;
            kappa = kappa > 0 ? 4 * kappa : 1e-7 * (1 + ymax);
            continue;
        }
        for (int i = 0; i < n; i++) {
            double w = hi[i] - lo[i];
            x[i] -= eta * w * (g[i] > 0 ? 1.0 : g[i] < 0 ? -1.0 : 0.0);
        }
        for (int i = 0; i < n; i++) x[i] = x[i] < lo[i] ? lo[i] : x[i] > hi[i] ? hi[i] : x[i];
    }
    /* the last point */
    if (!isfinite(loss_grad(a, p, j, 0, 0, x, NULL, y))) return 0;
    (*evals)++;
    int jin = in_disjunct(p, j, a->n_out, y);
    return jin >= 0 && check(cctx, jin, x);
}

nnc_status nnc_atk_run(nnc_atk *a, const nnc_atk_problem *p, const double *lo, const double *hi,
                       const double *starts, int nstarts, const nnc_atk_opts *o, nnc_atk_check_fn check,
                       void *check_ctx, int *found, uint64_t *evals)
{
    int n = a->n;
    *found = 0;
    *evals = 0;
    /* corners: all of them in a spread order while there are few; in more
     * dimensions the two extreme ones (every input at its upper bound, then
     * every one at its lower: on image boxes the brightest and darkest
     * images, which reach regions that descents from the centre and from
     * random points miss: MNIST 256x6 prop_1 at eps 0.05), each with every
     * first step size */
    int ncorner = 0;
    if (n < 20) {
        long long all = 1LL << n;
        ncorner = all < o->max_corners ? (int)all : o->max_corners;
    } else if (o->max_corners > 0) {
        ncorner = o->max_corners < 2 * NNC_ATK_NETA ? o->max_corners : 2 * NNC_ATK_NETA;
    }
    int total = nstarts + 1 + ncorner + o->restarts;
    if (o->restarts > a->xs_cap) {
        double *nx = realloc(a->xs, sizeof(double) * (size_t)o->restarts * (size_t)n + 8);
        if (nx == NULL) return NNC_STATUS_NOMEM;
        a->xs = nx;
        a->xs_cap = o->restarts;
    }
    if (o->restarts > 0) nnc_smp_box_points(a->xs, o->restarts, n, o->seed, o->sub0, lo, hi);
    double *x = a->x;
    /* starts in rounds over the disjuncts, so every disjunct gets its first
     * starts before the deadline */
    for (int s = 0; s < total; s++) {
        /* j = -1 first: the joint objective (the nearest disjunct's margin),
         * then each disjunct on its own */
        for (int j = p->ndisj > 1 ? -1 : 0; j < p->ndisj; j++) {
            if (now_s() > o->deadline) return NNC_STATUS_OK;
            if (o->tick) o->tick(o->tick_ctx);
            double eta = etas[s % NNC_ATK_NETA];
            if (s < nstarts) {
                memcpy(x, starts + (size_t)s * (size_t)n, sizeof(double) * (size_t)n);
            } else if (s == nstarts) {
                for (int i = 0; i < n; i++) x[i] = 0.5 * lo[i] + 0.5 * hi[i];
            } else if (s <= nstarts + ncorner) {
                long long bits = s - nstarts - 1;
                if (n >= 20) { /* the extreme corners */
                    for (int i = 0; i < n; i++) x[i] = bits % 2 == 0 ? hi[i] : lo[i];
                    eta = etas[bits / 2 % NNC_ATK_NETA];
                } else { /* corners in a spread order: bit-reversed index */
                    long long rb = 0;
                    for (int i = 0; i < n; i++)
                        if (bits >> i & 1) rb |= 1LL << (n - 1 - i);
                    if (ncorner < (1LL << n)) rb = bits * 2654435761LL % (1LL << n);
                    for (int i = 0; i < n; i++) x[i] = (rb >> i & 1) ? hi[i] : lo[i];
                }
            } else {
                memcpy(x, a->xs + (size_t)(s - nstarts - 1 - ncorner) * (size_t)n, sizeof(double) * (size_t)n);
            }
            for (int i = 0; i < n; i++) x[i] = x[i] < lo[i] ? lo[i] : x[i] > hi[i] ? hi[i] : x[i];
            if (descend(a, p, j, lo, hi, x, o->steps, eta, check, check_ctx, evals)) {
                *found = 1;
                return NNC_STATUS_OK;
            }
        }
    }
    return NNC_STATUS_OK;
}
