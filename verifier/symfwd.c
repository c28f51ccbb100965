/* Forward symbolic interval bounds for dense ReLU chains, then one CROWN
 * back-substitution from the objectives (method and rounding analysis in
 * symfwd_impl.h). */
#include "verifier/symfwd_impl.h"

#include "verifier/bounds_impl.h"
#include "verifier/sample_impl.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Absolute slack for underflow: each rounded operation that underflows errs
 * by at most 2^-1075, and no bound here sums more than 10^6 of them. */
#define NNC_SFW_TINY 1e-300

static double up(double x) { return x + fabs(x) * 4 * DBL_EPSILON + 4.9e-324; }
static double down(double x) { return x - fabs(x) * 4 * DBL_EPSILON - 4.9e-324; }

/* One dense layer  z = h W + b  (W [K][N] row-major, the chain's copy), its
 * split weights and, after a bound, its bounds and relaxations. */
typedef struct sfw_layer {
    int K, N, relu;
    const double *w, *b;    /* the chain's */
    double *wp, *wm, *wa;   /* max(W, 0), min(W, 0), |W|: [K][N] */
    double *F;              /* pre-activation functions: 2 (n + 1) rows of N (low rows, then up rows) */
    double *lo, *hi;        /* pre-activation bounds */
    double *hmag;           /* bound on |h_k| of the layer input (K) */
    double *ewa;            /* back-substitution error weights of the affine map: |W|^T hmag + |b| */
    double *flam, *fs, *ft; /* forward relaxation per neuron (relu layers) */
    double *al, *au, *bu, *ewr; /* CROWN relaxation (bl = 0) and its error weights */
} sfw_layer;

struct nnc_sfw {
    nnc_smp_chain *ch;
    int n, n_out, nl, wmax;
    double gamma;
    sfw_layer *ly;
    double *S, *Z1, *Z2;      /* 2 (n + 1) x wmax: current functions; products */
    double *M;                /* wmax: per-neuron function magnitudes */
    double *vf;               /* n + 1: forward objective function */
    double *xlo, *xhi, *xmag; /* n: the box and max(|lo|, |hi|) */
    double *ya, *yb;          /* wmax: evaluation scratch */
    double *La, *Lb;          /* 2 wmax x wmax: back-substitution rows */
    double *rc, *ra, *re, *rl; /* 2 wmax: per row constant, sum of |constants|, error, result */
    double *ll, *lu, *ul, *uu; /* wmax: ranges of the current layer's low and up functions */
    double *plo, *phi;        /* wmax: bounds of the current layer's input (the previous output) */
    int *sel;                 /* wmax: unstable neurons */
    const double *cap_lo, *cap_hi; /* nnc_sfw_set_caps: enclosures of the ReLU pre-activations, or NULL */
};

int nnc_sfw_num_inputs(const nnc_sfw *s) { return s->n; }
int nnc_sfw_num_outputs(const nnc_sfw *s) { return s->n_out; }
int nnc_sfw_num_layers(const nnc_sfw *s) { return s->nl; }

void nnc_sfw_destroy(nnc_sfw *s)
{
    if (s == NULL) return;
    for (int l = 0; s->ly && l < s->nl; l++) {
        sfw_layer *L = &s->ly[l];
        free(L->wp); free(L->wm); free(L->wa); free(L->F); free(L->lo); free(L->hi); free(L->hmag); free(L->ewa);
        free(L->flam); free(L->fs); free(L->ft); free(L->al); free(L->au); free(L->bu); free(L->ewr);
    }
    free(s->ly);
    free(s->S); free(s->Z1); free(s->Z2); free(s->M); free(s->vf);
    free(s->La); free(s->Lb); free(s->rc); free(s->ra); free(s->re); free(s->rl); free(s->ll); free(s->lu); free(s->ul); free(s->uu); free(s->plo); free(s->phi); free(s->sel);
    free(s->xlo); free(s->xhi); free(s->xmag); free(s->ya); free(s->yb);
    nnc_smp_chain_free(s->ch);
    free(s);
}

static double dmax(double a, double b) { return a > b ? a : b; } /* operands never NaN here */

static double *dalloc(size_t n) { return malloc(sizeof(double) * (n + 1)); }

nnc_status nnc_sfw_create(nnc_sfw **out, const nnc_model *m, char *err, size_t errlen)
{
    *out = NULL;
    nnc_smp_chain *ch;
    /* the objective is bounded from the last layer's pre-activation functions */
    nnc_status st = nnc_smp_chain_extract_affine(&ch, m, err, errlen);
    if (st) return st;
    nnc_sfw *s = calloc(1, sizeof *s);
    if (s == NULL) {
        nnc_smp_chain_free(ch);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    s->ch = ch;
    s->n = ch->n_in;
    s->n_out = ch->n_out;
    s->nl = ch->n_layers;
    s->ly = calloc((size_t)s->nl, sizeof(sfw_layer));
    if (s->ly == NULL) goto nomem;
    int wmax = s->n, kmax = 1;
    for (int l = 0; l < s->nl; l++) {
        const nnc_gpu_dense *D = &ch->layers[l];
        sfw_layer *L = &s->ly[l];
        L->K = D->K;
        L->N = D->N;
        L->relu = D->relu;
        L->w = D->w;
        L->b = D->b;
        if (D->N > wmax) wmax = D->N;
        if (D->K > kmax) kmax = D->K;
        size_t kn = (size_t)D->K * (size_t)D->N, N = (size_t)D->N;
        L->wp = dalloc(kn); L->wm = dalloc(kn); L->wa = dalloc(kn);
        L->F = dalloc(2 * (size_t)(s->n + 1) * N);
        L->lo = dalloc(N); L->hi = dalloc(N); L->hmag = dalloc((size_t)D->K); L->ewa = dalloc(N);
        L->flam = dalloc(N); L->fs = dalloc(N); L->ft = dalloc(N);
        L->al = dalloc(N); L->au = dalloc(N); L->bu = dalloc(N); L->ewr = dalloc(N);
        if (!L->wp || !L->wm || !L->wa || !L->F || !L->lo || !L->hi || !L->hmag || !L->ewa || !L->flam || !L->fs ||
            !L->ft || !L->al || !L->au || !L->bu || !L->ewr)
            goto nomem;
        for (size_t k = 0; k < kn; k++) {
            double v = D->w[k];
            L->wp[k] = v > 0 ? v : 0;
            L->wm[k] = v < 0 ? v : 0;
            L->wa[k] = fabs(v);
        }
    }
    s->wmax = wmax;
    /* the longest sum formed: 2K + 1 terms in a layer, n + 1 in a
     * concretisation, wmax + 1 in a back-substitution step; doubled */
    int lmax = 2 * kmax + 1;
    if (s->n + 1 > lmax) lmax = s->n + 1;
    if (wmax + 1 > lmax) lmax = wmax + 1;
    s->gamma = (double)(2 * lmax + 16) * DBL_EPSILON;
    size_t rows = 2 * (size_t)(s->n + 1);
    s->S = dalloc(rows * (size_t)wmax);
    s->Z1 = dalloc(rows * (size_t)wmax);
    s->Z2 = dalloc(rows * (size_t)wmax);
    s->M = dalloc((size_t)wmax);
    size_t rmax = 2 * (size_t)wmax;
    s->La = dalloc(rmax * (size_t)wmax);
    s->Lb = dalloc(rmax * (size_t)wmax);
    s->rc = dalloc(rmax); s->ra = dalloc(rmax); s->re = dalloc(rmax); s->rl = dalloc(rmax);
    s->ll = dalloc((size_t)wmax); s->lu = dalloc((size_t)wmax);
    s->ul = dalloc((size_t)wmax); s->uu = dalloc((size_t)wmax);
    s->plo = dalloc((size_t)wmax); s->phi = dalloc((size_t)wmax);
    s->sel = malloc(sizeof(int) * ((size_t)wmax + 1));
    s->vf = dalloc((size_t)s->n + 1);
    s->xlo = dalloc((size_t)s->n);
    s->xhi = dalloc((size_t)s->n);
    s->xmag = dalloc((size_t)s->n);
    s->ya = dalloc((size_t)wmax);
    s->yb = dalloc((size_t)wmax);
    if (!s->La || !s->Lb || !s->rc || !s->ra || !s->re || !s->rl || !s->ll || !s->lu || !s->ul || !s->uu || !s->plo || !s->phi || !s->sel)
        goto nomem;
    if (!s->S || !s->Z1 || !s->Z2 || !s->M || !s->vf || !s->xlo || !s->xhi || !s->xmag ||
        !s->ya || !s->yb)
        goto nomem;
    *out = s;
    return NNC_STATUS_OK;
nomem:
    nnc_sfw_destroy(s);
    return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
}

/* Range of the affine function  c . x + c0  (coefficients with stride st)
 * over the box, outward: *mn <= min, *mx >= max. */
static void range_fn(const nnc_sfw *s, const double *c, size_t st, double *mn, double *mx)
{
    int n = s->n;
    double c0 = c[(size_t)n * st];
    double a = c0, b = c0, t = fabs(c0);
    for (int i = 0; i < n; i++) {
        double ci = c[(size_t)i * st];
        double p = ci >= 0 ? ci * s->xlo[i] : ci * s->xhi[i];
        double q = ci >= 0 ? ci * s->xhi[i] : ci * s->xlo[i];
        a += p;
        b += q;
        t += fabs(ci) * s->xmag[i];
    }
    double e = up(s->gamma * t * (1 + s->gamma) + NNC_SFW_TINY);
    *mn = down(a - e);
    *mx = up(b + e);
}

/* Magnitude bound of a function: sum_i |c_i| max|x_i| + |c0| (unrounded: the
 * callers inflate). */
static double mag_fn(const nnc_sfw *s, const double *c, size_t st)
{
    double t = fabs(c[(size_t)s->n * st]);
    for (int i = 0; i < s->n; i++) t += fabs(c[(size_t)i * st]) * s->xmag[i];
    return t;
}

/* Back-substitution of `rows` rows held in s->La (rows x N of layer top, row
 * stride N) from layer top's output (top_relu = 1: after its ReLU) or its
 * pre-activation (0) down to the input, with the CROWN lines of the layers
 * below.  Out: lower[r], sound lower bounds of the rows' objectives over the
 * box; s->La (rows x n) their input coefficients. */
NNC_BND_CLONES static void backsub_rows(nnc_sfw *s, int top, int rows, int top_relu, double *lower)
{
    double g = s->gamma;
    double *A = s->La, *B = s->Lb, *cst = s->rc, *cabs = s->ra, *err = s->re;
    for (int r = 0; r < rows; r++) cst[r] = cabs[r] = err[r] = 0;
    /* The sums below use SW (NNC_BND_SW) independent partial sums (vectorised, and free of
     * one long dependency chain): the error bound gamma sum |terms| holds for
     * any summation order. */
    enum { SW = NNC_BND_SW };
    for (int l = top; l >= 0; l--) {
        const sfw_layer *L = &s->ly[l];
        int K = L->K, N = L->N, N8 = N / SW * SW;
        if (L->relu && (l < top || top_relu)) {
            /* positive coefficients take the lower line (intercept 0), negative
             * the upper; split into positive and negative parts (one of them is
             * zero, so each product is rounded once), free of branches */
            const double *restrict ewr = L->ewr, *restrict al = L->al, *restrict au = L->au, *restrict bu = L->bu;
            for (int r = 0; r < rows; r++) {
                double *restrict row = A + (size_t)r * (size_t)N;
                double ep[SW] = {0}, ap[SW] = {0};
                int j = 0;
                /* the same roundings as the tail, as selects, in two passes of
                 * one reduction each (which the compiler vectorises) */
                for (; j < N8; j += SW)
                    for (int u = 0; u < SW; u++) ep[u] += fabs(row[j + u]) * ewr[j + u];
                for (j = 0; j < N8; j += SW)
                    for (int u = 0; u < SW; u++) {
                        double v = row[j + u], pa = al[j + u], na = au[j + u], nb = bu[j + u];
                        row[j + u] = v * (v > 0 ? pa : na);
                        ap[u] += v < 0 ? v * nb : 0.0;
                    }
                for (; j < N; j++) {
                    double v = row[j], vp = v > 0 ? v : 0.0, vn = v < 0 ? v : 0.0;
                    ep[0] += (vp - vn) * ewr[j];
                    row[j] = vp * al[j] + vn * au[j];
                    ap[0] += vn * bu[j];
                }
                double e = 0, add = 0;
                for (int u = 0; u < SW; u++) {
                    e += ep[u];
                    add += ap[u];
                }
                err[r] += g * e;
                cst[r] += add;
                cabs[r] += fabs(cst[r]);
            }
        }
        const double *restrict ewa = L->ewa, *restrict bb = L->b;
        for (int r = 0; r < rows; r++) {
            const double *restrict row = A + (size_t)r * (size_t)N;
            double ep[SW] = {0}, ap[SW] = {0};
            int j = 0;
            for (; j < N8; j += SW)
                for (int u = 0; u < SW; u++) {
                    ep[u] += fabs(row[j + u]) * ewa[j + u];
                    ap[u] += row[j + u] * bb[j + u];
                }
            for (; j < N; j++) {
                ep[0] += fabs(row[j]) * ewa[j];
                ap[0] += row[j] * bb[j];
            }
            double e = 0, a = 0;
            for (int u = 0; u < SW; u++) {
                e += ep[u];
                a += ap[u];
            }
            err[r] += g * e;
            cst[r] += a;
            cabs[r] += fabs(cst[r]);
        }
        /* B[rows x K] = A[rows x N] W^T */
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, K, N, 1.0, A, N, L->w, N, 0.0, B, K);
        double *t = A;
        A = B;
        B = t;
    }
    if (A != s->La) memcpy(s->La, A, sizeof(double) * (size_t)rows * (size_t)s->n);
    for (int r = 0; r < rows; r++) {
        const double *li = s->La + (size_t)r * (size_t)s->n;
        double v = cst[r], a = fabs(cst[r]);
        for (int i = 0; i < s->n; i++) {
            double p = li[i] >= 0 ? li[i] * s->xlo[i] : li[i] * s->xhi[i];
            v += p;
            a += fabs(p);
        }
        double e = up(((err[r] + g * cabs[r]) * (1 + g) + g * a) * (1 + g) + NNC_SFW_TINY);
        lower[r] = down(v - e);
    }
}

/* CROWN bounds of layer l's unstable pre-activations (lo < 0 < hi),
 * intersected into lo / hi: rows +e_j and -e_j, back-substituted. */
static void refine_layer(nnc_sfw *s, int l)
{
    sfw_layer *L = &s->ly[l];
    int N = L->N, cnt = 0;
    for (int j = 0; j < N; j++)
        if (L->lo[j] < 0 && L->hi[j] > 0) s->sel[cnt++] = j;
    for (int c0 = 0; c0 < cnt; c0 += s->wmax) {
        int cn = cnt - c0 < s->wmax ? cnt - c0 : s->wmax;
        memset(s->La, 0, sizeof(double) * 2 * (size_t)cn * (size_t)N);
        for (int k = 0; k < cn; k++) {
            s->La[(size_t)k * (size_t)N + (size_t)s->sel[c0 + k]] = 1;
            s->La[(size_t)(cn + k) * (size_t)N + (size_t)s->sel[c0 + k]] = -1;
        }
        backsub_rows(s, l, 2 * cn, 0, s->rl);
        for (int k = 0; k < cn; k++) {
            int j = s->sel[c0 + k];
            double lo = s->rl[k], hi = -s->rl[cn + k];
            if (lo > L->lo[j]) L->lo[j] = lo;
            if (hi < L->hi[j]) L->hi[j] = hi;
            if (L->lo[j] > L->hi[j]) { /* only within rounding (the box is not empty): keep an enclosure */
                double a = fmin(L->lo[j], L->hi[j]), b = fmax(L->lo[j], L->hi[j]);
                L->lo[j] = down(a);
                L->hi[j] = up(b);
            }
        }
    }
}

/* The forward pass: every layer's pre-activation functions and bounds
 * (refined by CROWN where `refine` and a ReLU precedes), and the relaxations
 * of both passes. */
static void forward(nnc_sfw *s, int refine)
{
    int n = s->n, n1 = n + 1, relu_before = 0;
    double g = s->gamma;
    size_t W = (size_t)s->wmax;
    size_t cap_off = 0;
    /* functions of the input itself: low = up = x_k */
    double *S = s->S;
    memset(S, 0, sizeof(double) * 2 * (size_t)n1 * W);
    for (int k = 0; k < n; k++) {
        S[(size_t)k * W + (size_t)k] = 1;
        S[(size_t)(n1 + k) * W + (size_t)k] = 1;
    }
    double *hm = s->ly[0].hmag;
    for (int k = 0; k < n; k++) {
        hm[k] = s->xmag[k];
        s->plo[k] = s->xlo[k];
        s->phi[k] = s->xhi[k];
    }
    for (int l = 0; l < s->nl; l++) {
        sfw_layer *L = &s->ly[l];
        int K = L->K, N = L->N;
        /* magnitudes of the input functions (both sides) */
        for (int k = 0; k < K; k++) s->M[k] = dmax(mag_fn(s, S + k, W), mag_fn(s, S + (size_t)n1 * W + k, W));
        /* Z1 = S W+, Z2 = S W- (2 n1 rows) */
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2 * n1, N, K, 1.0, S, (int)W, L->wp, N, 0.0, s->Z1, (int)W);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2 * n1, N, K, 1.0, S, (int)W, L->wm, N, 0.0, s->Z2, (int)W);
        /* error terms and back-substitution weights: |W|^T M, |W|^T hmag */
        double *eM = s->ya, *eH = L->ewa;
        for (int j = 0; j < N; j++) eM[j] = eH[j] = fabs(L->b[j]);
        for (int k = 0; k < K; k++) {
            const double *wa = L->wa + (size_t)k * (size_t)N;
            double mk = s->M[k], hk = L->hmag[k];
            for (int j = 0; j < N; j++) {
                eM[j] += wa[j] * mk;
                eH[j] += wa[j] * hk;
            }
        }
        double *F = L->F;
        size_t Nn = (size_t)N;
        for (int r = 0; r < n1; r++) {
            const double *z1l = s->Z1 + (size_t)r * W, *z1u = s->Z1 + (size_t)(n1 + r) * W;
            const double *z2l = s->Z2 + (size_t)r * W, *z2u = s->Z2 + (size_t)(n1 + r) * W;
            double *fl = F + (size_t)r * Nn, *fu = F + (size_t)(n1 + r) * Nn;
            for (int j = 0; j < N; j++) {
                fl[j] = z1l[j] + z2u[j];
                fu[j] = z1u[j] + z2l[j];
            }
        }
        double *fl0 = F + (size_t)n * Nn, *fu0 = F + (size_t)(n1 + n) * Nn;
        for (int j = 0; j < N; j++) {
            eH[j] = up(eH[j] * (1 + g));
            double e = up(g * eM[j] * (1 + g) + NNC_SFW_TINY);
            fl0[j] = down(down(fl0[j] + L->b[j]) - e);
            fu0[j] = up(up(fu0[j] + L->b[j]) + e);
        }
        /* concrete bounds: the low function's range [ll, lu], the up one's [ul, uu] */
        for (int j = 0; j < N; j++) {
            range_fn(s, F + j, Nn, &s->ll[j], &s->lu[j]);
            range_fn(s, F + (size_t)n1 * Nn + j, Nn, &s->ul[j], &s->uu[j]);
        }
        /* and interval arithmetic from the previous layer's bounds: sums of
         * K + 1 terms, within gamma (|W|^T max(|plo|, |phi|) + |b|) = gamma eH */
        double *il = s->Z1, *ih = s->Z2;
        memcpy(il, L->b, sizeof(double) * Nn);
        memcpy(ih, L->b, sizeof(double) * Nn);
        for (int k = 0; k < K; k++) {
            const double *wp = L->wp + (size_t)k * Nn, *wm = L->wm + (size_t)k * Nn;
            double pl = s->plo[k], ph = s->phi[k];
            for (int j = 0; j < N; j++) {
                il[j] += wp[j] * pl + wm[j] * ph;
                ih[j] += wp[j] * ph + wm[j] * pl;
            }
        }
        for (int j = 0; j < N; j++) {
            double e = up(g * eH[j] + NNC_SFW_TINY), a = down(il[j] - e), b = up(ih[j] + e);
            L->lo[j] = s->ll[j] > a ? s->ll[j] : a;
            L->hi[j] = s->uu[j] < b ? s->uu[j] : b;
        }
        if (L->relu && s->cap_lo) {
            /* enclosures known over a superset of the box (the parent leaf's
             * bounds): intersected, so neurons they fix skip refinement */
            const double *cl = s->cap_lo + cap_off, *cu = s->cap_hi + cap_off;
            for (int j = 0; j < N; j++) {
                if (cl[j] > L->lo[j]) L->lo[j] = cl[j];
                if (cu[j] < L->hi[j]) L->hi[j] = cu[j];
                if (L->lo[j] > L->hi[j]) { /* both enclose a non-empty range: only within rounding */
                    double a = fmin(L->lo[j], L->hi[j]), b = fmax(L->lo[j], L->hi[j]);
                    L->lo[j] = down(a);
                    L->hi[j] = up(b);
                }
            }
        }
        if (L->relu) cap_off += (size_t)N;
        if (refine && L->relu && relu_before) refine_layer(s, l);
        relu_before |= L->relu;
        /* relaxations and the next layer's functions */
        double *hn = l + 1 < s->nl ? s->ly[l + 1].hmag : NULL;
        double *Sn = S; /* written in place: S is no longer read */
        for (int j = 0; j < N; j++) {
            double zl = L->lo[j], zu = L->hi[j]; /* the neuron's bounds (refined) */
            double ll = s->ll[j], lu = s->lu[j], ul = s->ul[j], uu = s->uu[j];
            double lam = 1, fs = 1, ft = 0;
            if (L->relu) {
                if (zu <= 0) {
                    lam = fs = 0;
                } else if (zl < 0) {
                    /* lower: any slope in [0, 1] is valid; the parallel one */
                    lam = lu <= 0 ? 0.0 : (ll >= 0 ? 1.0 : lu / (lu - ll));
                    if (!(lam >= 0)) lam = 0;
                    if (lam > 1) lam = 1;
                    if (uu <= 0) {
                        fs = 0; /* relu(z) <= relu(up(x)) = 0 */
                    } else if (ul < 0) { /* upper: chord of relu over [ul, uu], rounded so it stays above */
                        fs = up(uu / down(uu - ul));
                        if (fs > 1) fs = 1;
                        ft = up(-fs * ul);
                    }
                }
                L->flam[j] = lam;
                L->fs[j] = fs;
                L->ft[j] = ft;
                double al, bl, au, bu;
                nnc_bnd_relax_relu(zl, zu, 0.0, &al, &bl, &au, &bu);
                L->al[j] = al;
                L->au[j] = au;
                L->bu[j] = bu;
                L->ewr[j] = up((dmax(fabs(al), fabs(au)) * dmax(fabs(zl), fabs(zu)) + fabs(bu)) * (1 + g));
            }
            if (hn) hn[j] = L->relu ? (zu > 0 ? zu : 0) : dmax(fabs(zl), fabs(zu));
            s->plo[j] = L->relu ? (zl > 0 ? zl : 0) : zl; /* the layer's output bounds */
            s->phi[j] = L->relu ? (zu > 0 ? zu : 0) : zu;
            if (l + 1 == s->nl) continue;
            /* next functions: column j of Sn; scaling errs by at most u per
             * product, u lam M (low) and u fs M (up), plus the intercept */
            double ml = lam == 1 ? 0 : mag_fn(s, F + j, Nn), mu = fs == 1 ? 0 : mag_fn(s, F + (size_t)n1 * Nn + j, Nn);
            for (int r = 0; r < n1; r++) {
                Sn[(size_t)r * W + (size_t)j] = lam * F[(size_t)r * Nn + (size_t)j];
                Sn[(size_t)(n1 + r) * W + (size_t)j] = fs * F[(size_t)(n1 + r) * Nn + (size_t)j];
            }
            if (lam != 1 && lam != 0) {
                double *c0 = &Sn[(size_t)n * W + (size_t)j];
                *c0 = down(*c0 - up(g * lam * ml * (1 + g) + NNC_SFW_TINY));
            }
            if (ft != 0 || (fs != 1 && fs != 0)) { /* fs capped at 1 still needs its intercept */
                double *c0 = &Sn[(size_t)(n1 + n) * W + (size_t)j];
                *c0 = up(up(*c0 + ft) + up(g * (fs * mu + ft) * (1 + g) + NNC_SFW_TINY));
            }
        }
    }
}

/* Lower bound of c . y from the output functions themselves.  Out: vf (n + 1). */
static double forward_objective(nnc_sfw *s, const double *c)
{
    const sfw_layer *L = &s->ly[s->nl - 1];
    int n1 = s->n + 1;
    size_t Nn = (size_t)L->N;
    double *v = s->vf, m = 0;
    memset(v, 0, sizeof(double) * (size_t)n1);
    for (int j = 0; j < L->N; j++) {
        if (c[j] == 0) continue;
        const double *f = L->F + (c[j] > 0 ? 0 : (size_t)n1 * Nn) + (size_t)j;
        for (int r = 0; r < n1; r++) v[r] += c[j] * f[(size_t)r * Nn];
        m += fabs(c[j]) * mag_fn(s, f, Nn);
    }
    v[s->n] = down(v[s->n] - up(s->gamma * m * (1 + s->gamma) + NNC_SFW_TINY));
    double mn, mx;
    range_fn(s, v, 1, &mn, &mx);
    return mn;
}

/* Lower bound of c . y from the output's interval bounds (s->plo / s->phi
 * after the forward pass). */
static double interval_objective(const nnc_sfw *s, const double *c)
{
    double v = 0, a = 0;
    for (int j = 0; j < s->n_out; j++) {
        double p = c[j] >= 0 ? c[j] * s->plo[j] : c[j] * s->phi[j];
        v += p;
        a += fabs(p);
    }
    return down(v - up(s->gamma * a * (1 + s->gamma) + NNC_SFW_TINY));
}

nnc_status nnc_sfw_bound(nnc_sfw *s, const double *lo, const double *hi, int refine, int nobj, const double *C,
                         const double *d, double *lower, double *lam)
{
    int n = s->n, no = s->n_out;
    for (int i = 0; i < n; i++) {
        if (!isfinite(lo[i]) || !isfinite(hi[i]) || !(lo[i] <= hi[i])) return NNC_STATUS_ARG;
        s->xlo[i] = lo[i];
        s->xhi[i] = hi[i];
        s->xmag[i] = dmax(fabs(lo[i]), fabs(hi[i]));
    }
    forward(s, refine);
    int top_relu = s->ly[s->nl - 1].relu, rmax = 2 * s->wmax;
    for (int o0 = 0; o0 < nobj; o0 += rmax) {
        int cn = nobj - o0 < rmax ? nobj - o0 : rmax;
        memcpy(s->La, C + (size_t)o0 * (size_t)no, sizeof(double) * (size_t)cn * (size_t)no);
        backsub_rows(s, s->nl - 1, cn, top_relu, s->rl);
        for (int k = 0; k < cn; k++) {
            int o = o0 + k;
            double b = s->rl[k], f = forward_objective(s, C + (size_t)o * (size_t)no);
            double ib = interval_objective(s, C + (size_t)o * (size_t)no);
            double best = b >= f ? b : f;
            lower[o] = down((ib > best ? ib : best) + d[o]);
            /* the coefficients of the back-substituted bound, whichever bound
             * won: they describe the objective's sensitivity to each input
             * (split choice, candidate corners) better than the others */
            if (lam) memcpy(lam + (size_t)o * (size_t)n, s->La + (size_t)k * (size_t)n, sizeof(double) * (size_t)n);
        }
    }
    return NNC_STATUS_OK;
}

void nnc_sfw_set_caps(nnc_sfw *s, const double *lo, const double *hi)
{
    s->cap_lo = lo && hi ? lo : NULL;
    s->cap_hi = lo && hi ? hi : NULL;
}

int64_t nnc_sfw_relu_count(const nnc_sfw *s)
{
    int64_t t = 0;
    for (int l = 0; l < s->nl; l++)
        if (s->ly[l].relu) t += s->ly[l].N;
    return t;
}

void nnc_sfw_relu_bounds(const nnc_sfw *s, double *lo, double *hi)
{
    size_t off = 0;
    for (int l = 0; l < s->nl; l++) {
        const sfw_layer *L = &s->ly[l];
        if (!L->relu) continue;
        memcpy(lo + off, L->lo, sizeof(double) * (size_t)L->N);
        memcpy(hi + off, L->hi, sizeof(double) * (size_t)L->N);
        off += (size_t)L->N;
    }
}

void nnc_sfw_layer(const nnc_sfw *s, int l, int *K, int *N, int *relu, const double **w, const double **b,
                   const double **pre_lo, const double **pre_hi, const double **flam, const double **fs,
                   const double **ft)
{
    const sfw_layer *L = &s->ly[l];
    *K = L->K;
    *N = L->N;
    *relu = L->relu;
    *w = L->w;
    *b = L->b;
    *pre_lo = L->lo;
    *pre_hi = L->hi;
    *flam = L->flam;
    *fs = L->fs;
    *ft = L->ft;
}

void nnc_sfw_functions(const nnc_sfw *s, int l, double *low, double *upf)
{
    const sfw_layer *L = &s->ly[l];
    int n1 = s->n + 1;
    size_t Nn = (size_t)L->N;
    for (int j = 0; j < L->N; j++)
        for (int r = 0; r < n1; r++) {
            low[(size_t)j * (size_t)n1 + (size_t)r] = L->F[(size_t)r * Nn + (size_t)j];
            upf[(size_t)j * (size_t)n1 + (size_t)r] = L->F[(size_t)(n1 + r) * Nn + (size_t)j];
        }
}

void nnc_sfw_eval(nnc_sfw *s, const double *x, double *y)
{
    double *a = s->ya, *b = s->yb;
    memcpy(a, x, sizeof(double) * (size_t)s->n);
    for (int l = 0; l < s->nl; l++) {
        const sfw_layer *L = &s->ly[l];
        memcpy(b, L->b, sizeof(double) * (size_t)L->N);
        cblas_dgemv(CblasRowMajor, CblasTrans, L->K, L->N, 1.0, L->w, L->N, a, 1, 1.0, b, 1);
        if (L->relu)
            for (int j = 0; j < L->N; j++) b[j] = b[j] > 0 ? b[j] : 0;
        double *t = a;
        a = b;
        b = t;
    }
    memcpy(y, a, sizeof(double) * (size_t)s->n_out);
}
