/* Batched beta-CROWN branch and bound over ReLU splits for dense ReLU
 * chains (method, soundness argument and parameters in refine_impl.h). */
#include "verifier/refine_impl.h"

#include "verifier/sample_impl.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Items (one objective row of one sub-problem) per chunk: the rows of each
 * product one thread forms. */
#define BBD_CHUNK 64

static double up(double x) { return x + fabs(x) * 4 * DBL_EPSILON + 4.9e-324; }
static double down(double x) { return x - fabs(x) * 4 * DBL_EPSILON - 4.9e-324; }

struct nnc_bbd {
    nnc_smp_chain *ch;
    int L, n_in, n_out, wmax;
    int64_t nr;   /* ReLU neurons: the outputs of layers 0 .. L-2 */
    int64_t *off; /* off[k]: the first neuron of layer k (k < L), off[L-1] = nr */
    double gamma; /* dot-product error factor of the longest sum (Higham 3.5) */
};

void nnc_bbd_destroy(nnc_bbd *e)
{
    if (e == NULL) return;
    nnc_smp_chain_free(e->ch);
    free(e->off);
    free(e);
}

int64_t nnc_bbd_relu_count(const nnc_bbd *e) { return e->nr; }

nnc_status nnc_bbd_create(nnc_bbd **out, const nnc_model *m, char *err, size_t errlen)
{
    *out = NULL;
    nnc_smp_chain *ch;
    nnc_status st = nnc_smp_chain_extract_affine(&ch, m, err, errlen);
    if (st) return st;
    for (int l = 0; l + 1 < ch->n_layers; l++)
        if (!ch->layers[l].relu || ch->layers[l].N != ch->layers[l + 1].K) {
            nnc_smp_chain_free(ch);
            return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "layer %d is not followed by a ReLU", l);
        }
    nnc_bbd *e = calloc(1, sizeof *e);
    if (e == NULL || (e->off = malloc(sizeof(int64_t) * (size_t)(ch->n_layers + 1))) == NULL) {
        free(e);
        nnc_smp_chain_free(ch);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    e->ch = ch;
    e->L = ch->n_layers;
    e->n_in = ch->n_in;
    e->n_out = ch->n_out;
    int lmax = e->n_in;
    e->nr = 0;
    for (int l = 0; l < e->L; l++) {
        e->off[l] = e->nr;
        if (l + 1 < e->L) e->nr += ch->layers[l].N;
        if (ch->layers[l].N > lmax) lmax = ch->layers[l].N;
        if (ch->layers[l].K > lmax) lmax = ch->layers[l].K;
    }
    e->wmax = lmax;
    /* the longest sum: a product's lmax terms, plus a few partial sums */
    e->gamma = (double)(2 * (lmax + 2 * e->L + 4) + 16) * DBL_EPSILON;
    *out = e;
    return NNC_STATUS_OK;
}

/* ---- one leaf's fixed data ---- */

typedef struct bbd_root {
    const double *lo, *hi;   /* the leaf box */
    const double *rl, *rh;   /* ReLU pre-activation bounds on the leaf */
    double *au, *bu;         /* upper lines of the unstable neurons (nr) */
    double *ew;              /* per layer, per output: error weight of a coefficient (sum N_k) */
    int64_t *ewoff;          /* ew offsets per layer */
    double *xmag;            /* n_in: max |x| on the box */
} bbd_root;

static void root_free(bbd_root *r)
{
    free(r->au); free(r->bu); free(r->ew); free(r->ewoff); free(r->xmag);
}

/* Error weights: a coefficient mu_j on z_kj errs the bound by at most
 *   gamma |mu_j| (sum_i |W_k[i][j]| hmax_i + |b_j|)   (the product mu W^T and mu . b)
 * + 2 eps |mu_j| zmax_kj                               (the rounding of mu_j itself)
 * where hmax bounds |h_{k-1}| (|x| for k = 0) and zmax |z_k| on the leaf. */
static nnc_status root_init(const nnc_bbd *e, const double *lo, const double *hi, const double *rl, const double *rh,
                            bbd_root *r)
{
    memset(r, 0, sizeof *r);
    r->lo = lo; r->hi = hi; r->rl = rl; r->rh = rh;
    int64_t tot = 0;
    r->ewoff = malloc(sizeof(int64_t) * (size_t)(e->L + 1));
    if (r->ewoff == NULL) return NNC_STATUS_NOMEM;
    for (int k = 0; k < e->L; k++) {
        r->ewoff[k] = tot;
        tot += e->ch->layers[k].N;
    }
    r->ewoff[e->L] = tot;
    r->au = malloc(sizeof(double) * (size_t)(e->nr + 1));
    r->bu = malloc(sizeof(double) * (size_t)(e->nr + 1));
    r->ew = malloc(sizeof(double) * (size_t)(tot + 1));
    r->xmag = malloc(sizeof(double) * (size_t)(e->n_in + 1));
    double *hm = malloc(sizeof(double) * (size_t)(e->wmax + 1));
    if (!r->au || !r->bu || !r->ew || !r->xmag || !hm) {
        free(hm);
        return NNC_STATUS_NOMEM;
    }
    for (int i = 0; i < e->n_in; i++) r->xmag[i] = fmax(fabs(lo[i]), fabs(hi[i]));
    for (int64_t f = 0; f < e->nr; f++) {
        double al, bl;
        r->au[f] = r->bu[f] = 0;
        if (rl[f] < 0 && rh[f] > 0) nnc_bnd_relax_relu(rl[f], rh[f], 0.0, &al, &bl, &r->au[f], &r->bu[f]);
    }
    double g = e->gamma;
    for (int k = 0; k < e->L; k++) {
        const nnc_gpu_dense *D = &e->ch->layers[k];
        for (int i = 0; i < D->K; i++)
            hm[i] = k == 0 ? r->xmag[i] : fmax(0.0, rh[e->off[k - 1] + i]);
        double *ew = r->ew + r->ewoff[k];
        for (int j = 0; j < D->N; j++) ew[j] = 0;
        for (int i = 0; i < D->K; i++) {
            const double *w = D->w + (size_t)i * (size_t)D->N;
            for (int j = 0; j < D->N; j++) ew[j] += fabs(w[j]) * hm[i];
        }
        for (int j = 0; j < D->N; j++) {
            double v = ew[j] * (1 + 2 * g) + (D->b ? fabs(D->b[j]) : 0.0);
            double z = k + 1 < e->L ? fmax(fabs(rl[e->off[k] + j]), fabs(rh[e->off[k] + j])) : 0.0;
            ew[j] = up(up(g * v) + 4 * DBL_EPSILON * z);
        }
    }
    free(hm);
    return NNC_STATUS_OK;
}

/* ---- items: one objective row of one sub-problem ---- */

typedef struct bbd_item {
    const signed char *s; /* the sub-problem's splits (nr) */
    int64_t ovr;          /* one more split (a branching trial), or -1 */
    signed char ovr_side;
    int row;              /* the objective: row of p->C, target p->d[row] */
} bbd_item;

static inline int split_of(const bbd_item *it, int64_t f)
{
    return f == it->ovr ? it->ovr_side : it->s[f];
}

/* A thread's scratch for a chunk of up to BBD_CHUNK items. */
typedef struct bbd_ws {
    double *mu;   /* CH x wmax */
    double *lam;  /* CH x (n_in + nr): coefficients on x, then on each h (layer order) */
    double *zh;   /* CH x (wmax), two of them: forward values */
    double *zh2;
    double *hh;   /* CH x wmax */
    double *zall; /* CH x nr: forward pre-activations at the relaxation's minimiser */
    double *cst, *err, *aux; /* CH each */
    double *ga, *gb;        /* CH x nr gradients */
    double *ma, *va, *mb, *vb; /* Adam moments */
    double *best;           /* CH x 2 nr: best variables */
} bbd_ws;

static void ws_free(bbd_ws *w)
{
    free(w->mu); free(w->lam); free(w->zh); free(w->zh2); free(w->hh); free(w->zall); free(w->cst); free(w->err);
    free(w->aux); free(w->ga); free(w->gb); free(w->ma); free(w->va); free(w->mb); free(w->vb); free(w->best);
}

static int ws_init(const nnc_bbd *e, bbd_ws *w)
{
    memset(w, 0, sizeof *w);
    size_t C = BBD_CHUNK, W = (size_t)e->wmax + 1, nr = (size_t)e->nr + 1;
    w->mu = malloc(sizeof(double) * C * W);
    w->lam = malloc(sizeof(double) * C * ((size_t)e->n_in + nr));
    w->zh = malloc(sizeof(double) * C * W);
    w->zh2 = malloc(sizeof(double) * C * W);
    w->hh = malloc(sizeof(double) * C * W);
    w->zall = malloc(sizeof(double) * C * nr);
    w->cst = malloc(sizeof(double) * C);
    w->err = malloc(sizeof(double) * C);
    w->aux = malloc(sizeof(double) * C);
    w->ga = malloc(sizeof(double) * C * nr);
    w->gb = malloc(sizeof(double) * C * nr);
    w->ma = malloc(sizeof(double) * C * nr);
    w->va = malloc(sizeof(double) * C * nr);
    w->mb = malloc(sizeof(double) * C * nr);
    w->vb = malloc(sizeof(double) * C * nr);
    w->best = malloc(sizeof(double) * C * 2 * nr);
    return w->mu && w->lam && w->zh && w->zh2 && w->hh && w->zall && w->cst && w->err && w->aux && w->ga && w->gb &&
                   w->ma && w->va && w->mb && w->vb && w->best
               ? 0
               : -1;
}

/* Sound lower bounds of items it[0..R) (R <= BBD_CHUNK), each with its
 * slopes ab[i * 2nr ..] (alpha, nr) and multipliers (beta, nr) after them.
 * Also leaves in w->lam the coefficients of the bound on x and on every h. */
static void backward(const nnc_bbd *e, const bbd_root *rt, const nnc_rfn_problem *p, int R, const bbd_item *it,
                     const double *ab, double *lower, bbd_ws *w)
{
    int L = e->L;
    int64_t nr = e->nr, ls = (int64_t)e->n_in + nr;
    int N = e->ch->layers[L - 1].N;
    double g = e->gamma;
    for (int i = 0; i < R; i++) {
        memcpy(w->mu + (size_t)i * (size_t)N, p->C + (size_t)it[i].row * (size_t)p->n_out, sizeof(double) * (size_t)N);
        w->cst[i] = w->err[i] = w->aux[i] = 0;
    }
    for (int k = L - 1; k >= 0; k--) {
        const nnc_gpu_dense *D = &e->ch->layers[k];
        int K = D->K;
        N = D->N;
        const double *ew = rt->ew + rt->ewoff[k];
        for (int i = 0; i < R; i++) {
            const double *mu = w->mu + (size_t)i * (size_t)N;
            double cb = 0, er = 0;
            for (int j = 0; j < N; j++) {
                if (D->b) cb += mu[j] * D->b[j];
                er += fabs(mu[j]) * ew[j];
            }
            w->cst[i] += cb;
            w->aux[i] += fabs(cb);
            w->err[i] += er;
        }
        /* coefficients on this layer's input: lam = mu W^T */
        int64_t lo = k == 0 ? 0 : (int64_t)e->n_in + e->off[k - 1];
        double *lam = w->lam + lo;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, R, K, N, 1.0, w->mu, N, D->w, N, 0.0, lam, (int)ls);
        if (k == 0) {
            for (int i = 0; i < R; i++) {
                const double *lm = lam + (size_t)i * (size_t)ls;
                double c = 0, ca = 0;
                for (int j = 0; j < K; j++) {
                    double x = lm[j] >= 0 ? rt->lo[j] : rt->hi[j];
                    c += lm[j] * x;
                    ca += fabs(lm[j]) * rt->xmag[j];
                }
                w->cst[i] += c;
                w->aux[i] += fabs(c) + ca;
            }
            break;
        }
        /* the ReLU of layer k-1: relaxations, splits and multipliers */
        int64_t o = e->off[k - 1];
        for (int i = 0; i < R; i++) {
            const double *lm = lam + (size_t)i * (size_t)ls;
            const double *al = ab + (size_t)i * 2 * (size_t)nr, *be = al + nr;
            double *mu = w->mu + (size_t)i * (size_t)K;
            double t = 0, ta = 0;
            for (int j = 0; j < K; j++) {
                int64_t f = o + j;
                int s = split_of(&it[i], f);
                double l = rt->rl[f], u = rt->rh[f], v = lm[j];
                if (s < 0) mu[j] = be[f]; /* h = 0, and -beta (-z) */
                else if (s > 0) mu[j] = v - be[f];
                else if (u <= 0) mu[j] = 0;
                else if (l >= 0) mu[j] = v;
                else if (v >= 0) mu[j] = v * al[f];
                else {
                    mu[j] = v * rt->au[f];
                    double tb = v * rt->bu[f];
                    t += tb;
                    ta += fabs(tb);
                }
            }
            w->cst[i] += t;
            w->aux[i] += fabs(t) + ta;
        }
        N = K;
    }
    for (int i = 0; i < R; i++) {
        double E = up(up(w->err[i] + g * w->aux[i]) * (1 + 2 * g));
        double lw = down(w->cst[i] - E);
        lower[i] = lw == lw ? lw : -INFINITY;
    }
}

/* Gradients of the bound backward() computed (w->lam as it left them) with
 * respect to the slopes (ga) and multipliers (gb): the forward values of the
 * relaxed network at the minimising input. */
static void forward_grad(const nnc_bbd *e, const bbd_root *rt, int R, const bbd_item *it, const double *ab,
                         bbd_ws *w)
{
    int L = e->L;
    int64_t nr = e->nr, ls = (int64_t)e->n_in + nr;
    int n = e->n_in;
    double *x = w->hh;
    for (int i = 0; i < R; i++) {
        const double *lm = w->lam + (size_t)i * (size_t)ls;
        for (int j = 0; j < n; j++) x[(size_t)i * (size_t)n + (size_t)j] = lm[j] >= 0 ? rt->lo[j] : rt->hi[j];
    }
    int K = n;
    for (int k = 0; k + 1 < L; k++) {
        const nnc_gpu_dense *D = &e->ch->layers[k];
        int N = D->N;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, R, N, K, 1.0, x, K, D->w, N, 0.0, w->zh, N);
        int64_t o = e->off[k];
        for (int i = 0; i < R; i++) {
            double *z = w->zh + (size_t)i * (size_t)N, *h = w->hh + (size_t)i * (size_t)N;
            const double *lm = w->lam + (size_t)i * (size_t)ls + n + o;
            const double *al = ab + (size_t)i * 2 * (size_t)nr;
            double *ga = w->ga + (size_t)i * (size_t)nr + o, *gb = w->gb + (size_t)i * (size_t)nr + o;
            for (int j = 0; j < N; j++) {
                int64_t f = o + j;
                double zz = z[j] + (D->b ? D->b[j] : 0.0);
                int s = split_of(&it[i], f);
                double l = rt->rl[f], u = rt->rh[f];
                ga[j] = gb[j] = 0;
                if (s < 0) {
                    h[j] = 0;
                    gb[j] = zz;
                } else if (s > 0) {
                    h[j] = zz;
                    gb[j] = -zz;
                } else if (u <= 0) h[j] = 0;
                else if (l >= 0) h[j] = zz;
                else if (lm[j] >= 0) {
                    h[j] = al[f] * zz;
                    ga[j] = lm[j] * zz;
                } else h[j] = rt->au[f] * zz + rt->bu[f];
            }
        }
        x = w->hh;
        K = N;
        /* h was written over x: the next product reads h (zh holds z) */
    }
}

/* Adam hyper-parameters (as alpha-beta-CROWN's defaults). */
#define BBD_LR_ALPHA 0.1
#define BBD_LR_BETA 0.05
#define BBD_B1 0.9
#define BBD_B2 0.999

/* Optimise items it[0..R) for iters steps (their variables ab, in place:
 * left at the best bound's).  Out: lower[i] (the best sound bound).  lam in
 * w is the last pass's. */
static void optimise_chunk(const nnc_bbd *e, const bbd_root *rt, const nnc_rfn_problem *p, int R, const bbd_item *it,
                           double *ab, int iters, double *lower, bbd_ws *w)
{
    int64_t nr = e->nr;
    size_t vn = 2 * (size_t)nr;
    double cur[BBD_CHUNK];
    for (int i = 0; i < R; i++) lower[i] = -INFINITY;
    memset(w->ma, 0, sizeof(double) * (size_t)R * (size_t)nr);
    memset(w->va, 0, sizeof(double) * (size_t)R * (size_t)nr);
    memset(w->mb, 0, sizeof(double) * (size_t)R * (size_t)nr);
    memset(w->vb, 0, sizeof(double) * (size_t)R * (size_t)nr);
    /* the learning rates decay to 0.98^20 of their start over the run (as
     * alpha-beta-CROWN's 0.98 a step over its 20 steps) */
    double b1t = 1, b2t = 1, lr = 1, decay = pow(0.98, 20.0 / (iters > 0 ? iters : 1));
    for (int t = 0;; t++) {
        backward(e, rt, p, R, it, ab, cur, w);
        int open = 0;
        for (int i = 0; i < R; i++) {
            if (cur[i] > lower[i]) {
                lower[i] = cur[i];
                memcpy(w->best + (size_t)i * vn, ab + (size_t)i * vn, sizeof(double) * vn);
            }
            open += !(lower[i] > p->d[it[i].row]);
        }
        if (t >= iters || open == 0) break;
        forward_grad(e, rt, R, it, ab, w);
        b1t *= BBD_B1;
        b2t *= BBD_B2;
        for (int i = 0; i < R; i++) {
            if (lower[i] > p->d[it[i].row]) continue; /* done: its variables stay */
            double *al = ab + (size_t)i * vn, *be = al + nr;
            const double *ga = w->ga + (size_t)i * (size_t)nr, *gb = w->gb + (size_t)i * (size_t)nr;
            double *ma = w->ma + (size_t)i * (size_t)nr, *va = w->va + (size_t)i * (size_t)nr;
            double *mb = w->mb + (size_t)i * (size_t)nr, *vb = w->vb + (size_t)i * (size_t)nr;
            for (int64_t f = 0; f < nr; f++) {
                int s = split_of(&it[i], f);
                if (s == 0 && !(rt->rl[f] < 0 && rt->rh[f] > 0)) continue;
                double gr = s ? gb[f] : ga[f];
                double *m = s ? &mb[f] : &ma[f], *v = s ? &vb[f] : &va[f];
                *m = BBD_B1 * *m + (1 - BBD_B1) * gr;
                *v = BBD_B2 * *v + (1 - BBD_B2) * gr * gr;
                double step = (s ? BBD_LR_BETA : BBD_LR_ALPHA) * lr * (*m / (1 - b1t)) / (sqrt(*v / (1 - b2t)) + 1e-8);
                if (s) {
                    double nb = be[f] + step;
                    be[f] = nb > 0 ? nb : 0;
                } else {
                    double na = al[f] + step;
                    al[f] = na < 0 ? 0 : na > 1 ? 1 : na;
                }
            }
        }
        lr *= decay;
    }
    for (int i = 0; i < R; i++) memcpy(ab + (size_t)i * vn, w->best + (size_t)i * vn, sizeof(double) * vn);
}

/* ---- the search ---- */

/* A sub-problem: its splits and, per disjunct still open, the row chosen
 * for it and its warm start (alpha, beta as floats; NULL: cold). */
typedef struct bbd_dom {
    signed char *s;
    int nit;
    int *rows;
    float *ab; /* nit x 2 nr, or NULL */
} bbd_dom;

static void dom_free(bbd_dom *d)
{
    free(d->s);
    free(d->rows);
    free(d->ab);
}

/* CROWN's adaptive slopes and zero multipliers. */
static void init_vars(const nnc_bbd *e, const bbd_root *rt, double *ab)
{
    for (int64_t f = 0; f < e->nr; f++) {
        ab[f] = rt->rh[f] >= -rt->rl[f] ? 1.0 : 0.0;
        ab[e->nr + f] = 0;
    }
}

/* Run the items [0, n) through fn in chunks of BBD_CHUNK on the threads. */
typedef struct bbd_pass {
    const nnc_bbd *e;
    const bbd_root *rt;
    const nnc_rfn_problem *p;
    bbd_item *items;
    double *ab;      /* n x 2 nr */
    double *lower;   /* n */
    double *coef;    /* n x nr, or NULL: the bound's coefficient on each h */
    int iters;       /* < 0: one backward pass (no optimisation) */
} bbd_pass;

static void run_pass(const bbd_pass *ps, size_t n, bbd_ws *ws, int threads)
{
    const nnc_bbd *e = ps->e;
    size_t nch = (n + BBD_CHUNK - 1) / BBD_CHUNK, vn = 2 * (size_t)e->nr;
    int64_t ls = (int64_t)e->n_in + e->nr;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1 && nch > 1)
    for (size_t c = 0; c < nch; c++) {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        bbd_ws *w = &ws[t];
        size_t i0 = c * BBD_CHUNK;
        int R = (int)(n - i0 < BBD_CHUNK ? n - i0 : BBD_CHUNK);
        if (ps->iters < 0) backward(e, ps->rt, ps->p, R, ps->items + i0, ps->ab + i0 * vn, ps->lower + i0, w);
        else optimise_chunk(e, ps->rt, ps->p, R, ps->items + i0, ps->ab + i0 * vn, ps->iters, ps->lower + i0, w);
        if (ps->coef)
            for (int i = 0; i < R; i++)
                memcpy(ps->coef + (i0 + (size_t)i) * (size_t)e->nr, w->lam + (size_t)i * (size_t)ls + e->n_in,
                       sizeof(double) * (size_t)e->nr);
    }
}

/* The neurons to try (filtered smart branching): the nc best by the score
 * |coef_f| (-l u / (u - l)) among unstable, unsplit neurons; unstable ones
 * with a zero coefficient only when there is nothing else. */
static int candidates(const nnc_bbd *e, const bbd_root *rt, const signed char *s, const double *coef, int kmax,
                      int64_t *cand)
{
    double sc[NNC_BBD_FSB_CANDIDATES];
    int nc = 0;
    int64_t any = -1;
    double best_any = -1;
    for (int64_t f = 0; f < e->nr; f++) {
        double l = rt->rl[f], u = rt->rh[f];
        if (s[f] || !(l < 0 && u > 0)) continue;
        double gap = -l * u / (u - l), v = fabs(coef[f]) * gap;
        if (gap > best_any) {
            best_any = gap;
            any = f;
        }
        if (!(v > 0)) continue;
        int k = nc < kmax ? nc++ : kmax;
        if (k == kmax) {
            if (v <= sc[k - 1]) continue;
            k--;
        }
        while (k > 0 && sc[k - 1] < v) {
            sc[k] = sc[k - 1];
            cand[k] = cand[k - 1];
            k--;
        }
        sc[k] = v;
        cand[k] = f;
    }
    if (nc == 0 && any >= 0) cand[nc++] = any;
    return nc;
}

nnc_status nnc_bbd_certify(nnc_bbd *e, const double *lo, const double *hi, const double *rl, const double *rh,
                           const nnc_rfn_problem *p, const nnc_bbd_opts *o, int *certified, uint64_t *nodes)
{
    *certified = 0;
    *nodes = 0;
    int threads = o->threads > 0 ? o->threads : 1;
    int64_t nr = e->nr;
    size_t vn = 2 * (size_t)nr;
    if (p->n_out != e->n_out) return NNC_STATUS_ARG;
    for (int j = 0; j < p->ndisj; j++) /* a disjunct without rows is reachable everywhere */
        if (p->dstart[j] >= p->dstart[j + 1]) return NNC_STATUS_OK;
    bbd_root rt;
    nnc_status st = root_init(e, lo, hi, rl, rh, &rt);
    bbd_ws *ws = calloc((size_t)threads, sizeof(bbd_ws));
    int B = o->batch > 0 ? o->batch : 1;
    size_t icap = (size_t)B * (size_t)p->ndisj, tcap = (size_t)B * 2 * NNC_BBD_FSB_CANDIDATES;
    if (icap < (size_t)p->nrows) icap = (size_t)p->nrows;
    size_t cap = icap > tcap ? icap : tcap;
    bbd_item *items = malloc(sizeof(bbd_item) * cap);
    double *ab = malloc(sizeof(double) * cap * vn);
    double *lower = malloc(sizeof(double) * cap);
    double *coef = malloc(sizeof(double) * icap * (size_t)nr);
    bbd_dom *batch = malloc(sizeof(bbd_dom) * (size_t)B);
    int64_t *cand = malloc(sizeof(int64_t) * (size_t)B * NNC_BBD_FSB_CANDIDATES);
    int *ncand = malloc(sizeof(int) * (size_t)B), *hard = malloc(sizeof(int) * (size_t)B);
    int64_t *pick = malloc(sizeof(int64_t) * (size_t)B);
    size_t scap = 1024, top = 0, held = 0;
    bbd_dom *stack = malloc(sizeof(bbd_dom) * scap);
    signed char *s0 = calloc((size_t)nr + 1, 1);
    int ok = !st && ws && items && ab && lower && coef && batch && cand && ncand && hard && pick && stack && s0;
    for (int t = 0; t < threads && ok; t++) ok = ws_init(e, &ws[t]) == 0;
    if (!ok) {
        if (!st) st = NNC_STATUS_NOMEM;
        goto out;
    }
    int failed = 0;
    {
        /* the root: every row by CROWN, then per disjunct its best row */
        for (int r = 0; r < p->nrows; r++) {
            items[r] = (bbd_item){s0, -1, 0, r};
            init_vars(e, &rt, ab + (size_t)r * vn);
        }
        bbd_pass ps = {e, &rt, p, items, ab, lower, NULL, -1};
        run_pass(&ps, (size_t)p->nrows, ws, threads);
        bbd_dom d0 = {s0, 0, malloc(sizeof(int) * (size_t)p->ndisj), NULL};
        s0 = NULL;
        if (d0.rows == NULL) {
            dom_free(&d0);
            st = NNC_STATUS_NOMEM;
            goto out;
        }
        for (int j = 0; j < p->ndisj; j++) {
            int br = p->dstart[j];
            for (int r = p->dstart[j]; r < p->dstart[j + 1]; r++)
                if (lower[r] - p->d[r] > lower[br] - p->d[br]) br = r;
            d0.rows[d0.nit++] = br;
        }
        stack[top++] = d0;
    }
    while (top > 0 && !failed && !st) {
        if (nnc_rfn_now() > o->deadline || *nodes >= o->max_nodes) {
            failed = 1;
            break;
        }
        /* a batch: the top B sub-problems of the stack */
        int m = 0;
        size_t ni = 0;
        while (m < B && top > 0 && *nodes + (uint64_t)m < o->max_nodes) {
            bbd_dom *d = &batch[m];
            *d = stack[--top];
            if (d->ab) held -= sizeof(float) * vn * (size_t)d->nit;
            for (int q = 0; q < d->nit; q++, ni++) {
                items[ni] = (bbd_item){d->s, -1, 0, d->rows[q]};
                double *a = ab + ni * vn;
                if (d->ab)
                    for (size_t v = 0; v < vn; v++) a[v] = d->ab[(size_t)q * vn + v];
                else init_vars(e, &rt, a);
            }
            m++;
        }
        bbd_pass ps = {e, &rt, p, items, ab, lower, coef, o->iters};
        run_pass(&ps, ni, ws, threads);
        *nodes += (uint64_t)m;
        if (p->tick) p->tick(p->tick_ctx, *nodes);
        /* per sub-problem: the disjuncts left open, the hardest one's
         * candidates */
        size_t nt = 0;
        size_t q0 = 0;
        for (int k = 0; k < m; k++) {
            bbd_dom *d = &batch[k];
            int keep = 0;
            hard[k] = -1;
            for (int q = 0; q < d->nit; q++) {
                size_t i = q0 + (size_t)q;
                if (lower[i] > p->d[items[i].row]) continue;
                if (hard[k] < 0 || lower[i] - p->d[items[i].row] < lower[q0 + (size_t)hard[k]] - p->d[items[q0 + (size_t)hard[k]].row])
                    hard[k] = q;
                keep++;
            }
            ncand[k] = 0;
            if (keep > 0) {
                size_t h = q0 + (size_t)hard[k];
                ncand[k] = candidates(e, &rt, d->s, coef + h * (size_t)nr, o->fsb, cand + (size_t)k * NNC_BBD_FSB_CANDIDATES);
                if (ncand[k] == 0) {
                    /* nothing left to split: the network is affine here and
                     * only the multipliers can close the gap (or show the
                     * splits contradictory), so optimise them longer */
                    bbd_pass sp = {e, &rt, p, items + q0, ab + q0 * vn, lower + q0, NULL, 10 * o->iters};
                    run_pass(&sp, (size_t)d->nit, ws, threads);
                    for (int q = 0; q < d->nit; q++) failed |= !(lower[q0 + (size_t)q] > p->d[items[q0 + (size_t)q].row]);
                }
                nt += ncand[k] > 1 ? 2 * (size_t)ncand[k] : 0;
            }
            q0 += (size_t)d->nit;
        }
        /* the trials: both children of each candidate, by one pass each
         * from the hardest row's variables */
        double *tab = NULL;
        bbd_item *tit = NULL;
        double *tlo = NULL;
        if (nt > 0 && !failed) {
            tab = malloc(sizeof(double) * nt * vn);
            tit = malloc(sizeof(bbd_item) * nt);
            tlo = malloc(sizeof(double) * nt);
            if (!tab || !tit || !tlo) st = NNC_STATUS_NOMEM;
            size_t t = 0;
            q0 = 0;
            for (int k = 0; k < m && !st; k++) {
                if (ncand[k] > 1) {
                    size_t h = q0 + (size_t)hard[k];
                    for (int c = 0; c < ncand[k]; c++)
                        for (int side = 1; side >= -1; side -= 2, t++) {
                            tit[t] = (bbd_item){batch[k].s, cand[(size_t)k * NNC_BBD_FSB_CANDIDATES + c], (signed char)side,
                                                items[h].row};
                            memcpy(tab + t * vn, ab + h * vn, sizeof(double) * vn);
                        }
                }
                q0 += (size_t)batch[k].nit;
            }
            if (!st) {
                bbd_pass tp = {e, &rt, p, tit, tab, tlo, NULL, -1};
                run_pass(&tp, nt, ws, threads);
            }
        }
        size_t t = 0;
        for (int k = 0; k < m; k++) {
            pick[k] = ncand[k] > 0 ? cand[(size_t)k * NNC_BBD_FSB_CANDIDATES] : -1;
            if (ncand[k] > 1 && tlo) {
                double best = -INFINITY;
                for (int c = 0; c < ncand[k]; c++, t += 2) {
                    double v = fmin(tlo[t], tlo[t + 1]);
                    if (v > best) { /* ties (and NaN) keep the better score */
                        best = v;
                        pick[k] = cand[(size_t)k * NNC_BBD_FSB_CANDIDATES + c];
                    }
                }
            }
        }
        free(tab);
        free(tit);
        free(tlo);
        /* children, pushed so that the batch's first sub-problem's end on top */
        if (top + 2 * (size_t)m > scap) {
            size_t nc = scap;
            while (top + 2 * (size_t)m > nc) nc *= 2;
            bbd_dom *ns = realloc(stack, sizeof(bbd_dom) * nc);
            if (ns == NULL) st = NNC_STATUS_NOMEM;
            else {
                stack = ns;
                scap = nc;
            }
        }
        size_t qend = ni;
        for (int k = m - 1; k >= 0; k--) {
            bbd_dom *d = &batch[k];
            size_t qs = qend - (size_t)d->nit;
            qend = qs;
            if (st || failed || ncand[k] == 0 || pick[k] < 0) {
                dom_free(d);
                continue;
            }
            int keep = 0;
            for (int q = 0; q < d->nit; q++) keep += !(lower[qs + (size_t)q] > p->d[items[qs + (size_t)q].row]);
            int warm = held + 2 * sizeof(float) * vn * (size_t)keep <= NNC_BBD_WARM_BYTES;
            bbd_dom c1 = {d->s, 0, malloc(sizeof(int) * (size_t)keep), warm ? malloc(sizeof(float) * vn * (size_t)keep) : NULL};
            bbd_dom c2 = {malloc((size_t)nr + 1), 0, malloc(sizeof(int) * (size_t)keep),
                          warm ? malloc(sizeof(float) * vn * (size_t)keep) : NULL};
            d->s = NULL;
            if (!c1.rows || !c2.rows || !c2.s || (warm && (!c1.ab || !c2.ab))) {
                dom_free(&c1);
                dom_free(&c2);
                dom_free(d);
                st = NNC_STATUS_NOMEM;
                continue;
            }
            for (int q = 0; q < d->nit; q++) {
                size_t i = qs + (size_t)q;
                if (lower[i] > p->d[items[i].row]) continue;
                if (warm)
                    for (size_t v = 0; v < vn; v++)
                        c1.ab[(size_t)c1.nit * vn + v] = c2.ab[(size_t)c1.nit * vn + v] = (float)ab[i * vn + v];
                c1.rows[c1.nit++] = c2.rows[c2.nit++] = items[i].row;
            }
            memcpy(c2.s, c1.s, (size_t)nr);
            c1.s[pick[k]] = 1;
            c2.s[pick[k]] = -1;
            if (warm) held += 2 * sizeof(float) * vn * (size_t)keep;
            dom_free(d);
            stack[top++] = c2;
            stack[top++] = c1;
        }
    }
    if (!st && !failed && top == 0) *certified = 1;
out:
    for (size_t i = 0; stack && i < top; i++) dom_free(&stack[i]);
    for (int t = 0; ws && t < threads; t++) ws_free(&ws[t]);
    free(ws); free(items); free(ab); free(lower); free(coef); free(batch); free(cand); free(ncand);
    free(hard); free(pick); free(stack); free(s0);
    root_free(&rt);
    return st;
}
