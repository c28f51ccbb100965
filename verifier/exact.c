/* Exact decision of small input boxes for dense ReLU chains by enumerating
 * activation patterns, each conclusion a checked LP certificate (method and
 * rounding analysis in exact_impl.h). */
#include "verifier/exact_impl.h"

#include "verifier/sample_impl.h"

#include <cblas.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Inputs the linear programs take (their basis is held on the stack). */
#define NNC_XCT_MAX_IN 32
/* Absolute slack for underflow (as symfwd.c). */
#define NNC_XCT_TINY 1e-300

static double dmax(double a, double b) { return a > b ? a : b; } /* operands never NaN here */

static double up(double x) { return x + fabs(x) * 4 * DBL_EPSILON + 4.9e-324; }
static double down(double x) { return x - fabs(x) * 4 * DBL_EPSILON - 4.9e-324; }

/* ---------------------------------------------------------------------------
 * Linear programs: min c . x, A x <= b, lo <= x <= hi.  Constraint q < m is
 * row q of A; q = m + i is x_i <= hi_i; q = m + n + i is -x_i <= -lo_i. */

static double lp_dot(int n, int m, const double *A, int q, const double *v)
{
    if (q < m) {
        double s = 0;
        for (int i = 0; i < n; i++) s += A[(size_t)q * (size_t)n + (size_t)i] * v[i];
        return s;
    }
    return q < m + n ? v[q - m] : -v[q - m - n];
}

static double lp_rhs(int n, int m, const double *b, const double *lo, const double *hi, int q)
{
    return q < m ? b[q] : q < m + n ? hi[q - m] : -lo[q - m - n];
}

static double lp_norm(int n, int m, const double *A, int q)
{
    if (q >= m) return 1;
    double s = 0;
    for (int i = 0; i < n; i++) s = dmax(s, fabs(A[(size_t)q * (size_t)n + (size_t)i]));
    return s;
}

/* Binv = M^-1 (n x n, row-major) by Gauss-Jordan with partial pivoting;
 * M is destroyed.  Returns 0, or -1 when M is (numerically) singular. */
static int invert(int n, double *M, double *Binv)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) Binv[i * n + j] = i == j;
    for (int col = 0; col < n; col++) {
        int piv = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(M[r * n + col]) > fabs(M[piv * n + col])) piv = r;
        if (!(fabs(M[piv * n + col]) > 1e-12)) return -1;
        if (piv != col)
            for (int j = 0; j < n; j++) {
                double t = M[col * n + j]; M[col * n + j] = M[piv * n + j]; M[piv * n + j] = t;
                t = Binv[col * n + j]; Binv[col * n + j] = Binv[piv * n + j]; Binv[piv * n + j] = t;
            }
        double inv = 1.0 / M[col * n + col];
        for (int j = 0; j < n; j++) {
            M[col * n + j] *= inv;
            Binv[col * n + j] *= inv;
        }
        for (int r = 0; r < n; r++) {
            double f = M[r * n + col];
            if (r == col || f == 0) continue;
            for (int j = 0; j < n; j++) {
                M[r * n + j] -= f * M[col * n + j];
                Binv[r * n + j] -= f * Binv[col * n + j];
            }
        }
    }
    return 0;
}

int nnc_xct_lp_solve(int n, int m, const double *A, const double *b, const double *lo, const double *hi,
                     const double *c, double *x, double *mu)
{
    enum { N = NNC_XCT_MAX_IN };
    if (n < 1 || n > N || m < 0 || m > (1 << 24)) return NNC_XCT_LP_FAILED;
    int B[N], total = m + 2 * n, maxit = 50 + 4 * total;
    double M[N * N], Binv[N * N], y[N], w[N], rb[N], col[N], xmag = 0;
    /* per constraint: its row's scale, and 1 while in the basis */
    double *nrm = malloc(sizeof(double) * (size_t)total);
    unsigned char *inb = calloc((size_t)total, 1);
    int res = NNC_XCT_LP_FAILED;
    if (nrm == NULL || inb == NULL) goto out;
    for (int k = 0; k < m; k++) mu[k] = 0;
    for (int q = 0; q < total; q++) nrm[q] = lp_norm(n, m, A, q);
    for (int i = 0; i < n; i++) {
        /* the box's best vertex: dual feasible for any c */
        B[i] = c != NULL && c[i] < 0 ? m + i : m + n + i;
        inb[B[i]] = 1;
        xmag = dmax(xmag, dmax(fabs(lo[i]), fabs(hi[i])));
    }
    for (int it = 0; it < maxit; it++) {
        /* Binv = (rows of the basis)^-1: factored afresh every 16 pivots,
         * updated in rank one in between */
        if (it % 16 == 0) {
            for (int t = 0; t < n; t++) {
                int q = B[t];
                for (int i = 0; i < n; i++)
                    M[t * n + i] = q < m ? A[(size_t)q * (size_t)n + (size_t)i] : q < m + n ? (i == q - m) : -(double)(i == q - m - n);
            }
            if (invert(n, M, Binv)) goto out;
        }
        for (int t = 0; t < n; t++) rb[t] = lp_rhs(n, m, b, lo, hi, B[t]);
        /* vertex: rows of the basis tight; duals: c = -sum_t y_t a_{B[t]} */
        for (int s = 0; s < n; s++) {
            double v = 0, u = 0;
            for (int t = 0; t < n; t++) {
                v += Binv[s * n + t] * rb[t];
                u -= (c ? c[t] : 0) * Binv[t * n + s];
            }
            x[s] = v;
            y[s] = u;
        }
        /* the most violated constraint (relative to its row's scale) */
        int k = -1;
        double worst = 0;
        for (int q = 0; q < total; q++) {
            if (inb[q]) continue;
            double nr = nrm[q], rhs = lp_rhs(n, m, b, lo, hi, q);
            double viol = lp_dot(n, m, A, q, x) - rhs;
            if (!(nr > 0) || !(viol > 1e-10 * (1 + fabs(rhs) + nr * xmag))) continue;
            if (viol / nr > worst) {
                worst = viol / nr;
                k = q;
            }
        }
        if (k < 0) {
            for (int t = 0; t < n; t++)
                if (B[t] < m) mu[B[t]] = y[t] > 0 ? y[t] : 0;
            res = NNC_XCT_LP_OPTIMAL;
            goto out;
        }
        /* a_k = sum_t w_t a_{B[t]}; the leaving row keeps the duals >= 0 */
        double wmax = 0;
        for (int t = 0; t < n; t++) {
            double v = 0;
            for (int s = 0; s < n; s++) {
                double ak = k < m ? A[(size_t)k * (size_t)n + (size_t)s] : k < m + n ? (s == k - m) : -(double)(s == k - m - n);
                v += ak * Binv[s * n + t];
            }
            w[t] = v;
            wmax = dmax(wmax, fabs(v));
        }
        int p = -1;
        double best = INFINITY;
        for (int t = 0; t < n; t++) {
            if (!(w[t] > 1e-9 * wmax)) continue;
            double r = (y[t] > 0 ? y[t] : 0) / w[t];
            if (r < best || (r == best && w[t] > w[p])) {
                best = r;
                p = t;
            }
        }
        if (p < 0) {
            /* a_k x <= b_k contradicts the basis rows: a Farkas combination */
            if (k < m) mu[k] = 1;
            for (int t = 0; t < n; t++)
                if (B[t] < m && w[t] < 0) mu[B[t]] = -w[t];
            res = NNC_XCT_LP_INFEASIBLE;
            goto out;
        }
        inb[B[p]] = 0;
        inb[k] = 1;
        B[p] = k;
        /* row p becomes a_k: column p of Binv / w_p, column t minus w_t times it */
        for (int s = 0; s < n; s++) col[s] = Binv[s * n + p] / w[p];
        for (int s = 0; s < n; s++)
            for (int t = 0; t < n; t++) Binv[s * n + t] = t == p ? col[s] : Binv[s * n + t] - col[s] * w[t];
    }
out:
    free(nrm);
    free(inb);
    return res;
}

double nnc_xct_lp_bound(int n, int m, const double *A, const double *b, const double *lo, const double *hi,
                        const double *c, double c0, const double *mu)
{
    /* every sum below has at most m + n + 1 terms */
    double g = (double)(2 * (m + n) + 16) * DBL_EPSILON;
    if (!isfinite(c0)) return -INFINITY;
    double s = c0, sabs = fabs(c0);
    for (int k = 0; k < m; k++) {
        double u = mu[k];
        if (!(u >= 0) || !isfinite(u)) return -INFINITY;
        if (u == 0) continue;
        if (!isfinite(b[k])) return -INFINITY;
        s -= u * b[k];
        sabs += u * fabs(b[k]);
    }
    /* v = c + sum mu_k a_k, each coefficient within g * va of exact; the
     * minimum over the box of v . x, within g * sum |v_i| max|x_i| */
    double t = 0, tabs = 0, eabs = 0;
    for (int i = 0; i < n; i++) {
        double v = c ? c[i] : 0, va = fabs(v);
        for (int k = 0; k < m; k++)
            if (mu[k] != 0) {
                double a = A[(size_t)k * (size_t)n + (size_t)i];
                v += mu[k] * a;
                va += mu[k] * fabs(a);
            }
        if (!isfinite(v) || !isfinite(va) || !isfinite(lo[i]) || !isfinite(hi[i])) return -INFINITY;
        double xm = dmax(fabs(lo[i]), fabs(hi[i]));
        t += v >= 0 ? v * lo[i] : v * hi[i];
        tabs += fabs(v) * xm;
        eabs += va * xm;
    }
    double err = up(g * (tabs + sabs + eabs) * (1 + 2 * g) + NNC_XCT_TINY);
    double r = down(t + s - err);
    return isfinite(r) ? r : -INFINITY;
}

/* ---------------------------------------------------------------------------
 * Affine forms: n coefficients, a constant, and an error e, with
 * |exact value - (g . x + h)| <= e at every point of the box that has the
 * node's pattern.  Stride F = n + 2. */

struct nnc_xct {
    nnc_smp_chain *ch;
    double **wa;       /* per layer: |W| ([K][N]) */
    int n, n_out, wmax;
    int64_t nrelu;
    double gamma;
    double *fa, *fb;   /* wmax forms: a layer's input, its pre-activations */
    double *ma, *mb;   /* their magnitudes: >= max over the box of |g . x + h| */
    double *xmag, *cobj, *x, *mu, *neg, *alt, *cabs;
    double *A, *b;     /* rows of the current polytope */
    int64_t rcap;
};

int64_t nnc_xct_relu_count(const nnc_xct *e) { return e->nrelu; }

void nnc_xct_destroy(nnc_xct *e)
{
    if (e == NULL) return;
    for (int l = 0; e->wa && e->ch && l < e->ch->n_layers; l++) free(e->wa[l]);
    free(e->wa);
    nnc_smp_chain_free(e->ch);
    free(e->fa); free(e->fb); free(e->ma); free(e->mb); free(e->xmag); free(e->cobj); free(e->x); free(e->mu);
    free(e->neg); free(e->alt); free(e->cabs); free(e->A); free(e->b);
    free(e);
}

nnc_status nnc_xct_create(nnc_xct **out, const nnc_model *m, char *err, size_t errlen)
{
    *out = NULL;
    nnc_smp_chain *ch;
    /* the objective is bounded from the last layer's pre-activation functions */
    nnc_status st = nnc_smp_chain_extract_affine(&ch, m, err, errlen);
    if (st) return st;
    nnc_xct *e = calloc(1, sizeof *e);
    if (e == NULL) {
        nnc_smp_chain_free(ch);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    e->ch = ch;
    e->n = ch->n_in;
    e->n_out = ch->n_out;
    int wmax = e->n, lmax = e->n + 1;
    for (int l = 0; l < ch->n_layers; l++) {
        const nnc_gpu_dense *D = &ch->layers[l];
        if (D->relu) e->nrelu += D->N;
        if (D->N > wmax) wmax = D->N;
        if (D->K + 1 > lmax) lmax = D->K + 1;
    }
    if (e->n_out + 1 > lmax) lmax = e->n_out + 1;
    if ((e->wa = calloc((size_t)ch->n_layers, sizeof(double *))) == NULL) {
        nnc_xct_destroy(e);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    for (int l = 0; l < ch->n_layers; l++) {
        const nnc_gpu_dense *D = &ch->layers[l];
        size_t kn = (size_t)D->K * (size_t)D->N;
        if ((e->wa[l] = malloc(sizeof(double) * kn + 8)) == NULL) {
            nnc_xct_destroy(e);
            return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        }
        for (size_t q = 0; q < kn; q++) e->wa[l][q] = fabs(D->w[q]);
    }
    e->wmax = wmax;
    e->gamma = (double)(2 * lmax + 16) * DBL_EPSILON;
    size_t F = (size_t)e->n + 2;
    e->fa = malloc(sizeof(double) * (size_t)wmax * F);
    e->fb = malloc(sizeof(double) * (size_t)wmax * F);
    e->ma = malloc(sizeof(double) * (size_t)wmax);
    e->mb = malloc(sizeof(double) * (size_t)wmax);
    e->xmag = malloc(sizeof(double) * F);
    e->cobj = malloc(sizeof(double) * F);
    e->x = malloc(sizeof(double) * F);
    e->neg = malloc(sizeof(double) * F);
    e->alt = malloc(sizeof(double) * F);
    e->cabs = malloc(sizeof(double) * ((size_t)e->n_out + 1));
    if (!e->cabs || !e->fa || !e->fb || !e->ma || !e->mb || !e->xmag || !e->cobj || !e->x || !e->neg || !e->alt) {
        nnc_xct_destroy(e);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    *out = e;
    return NNC_STATUS_OK;
}

/* The N forms  out_j = sum_k W[k][j] in_k + bias_j  (W [K][N] row-major, wa
 * its absolute values, bias N values or NULL) from the K forms in (their
 * magnitudes min), with their errors and magnitudes mout: a dense layer's
 * pre-activations, or an unsafe row's combination of the outputs.  Every
 * coefficient is a sum of K + 1 terms, within gamma sum |terms| of exact
 * whatever the order BLAS sums them in. */
static void affine_forms(const nnc_xct *e, int K, int N, const double *W, const double *wa, const double *bias,
                         const double *in, const double *min, double *out, double *mout)
{
    int n = e->n, F = n + 2;
    double g = e->gamma;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, N, n + 1, K, 1.0, W, N, in, F, 0.0, out, F);
    /* errors: |W|^T e and |W|^T M, into column n + 1 and mout */
    cblas_dgemv(CblasRowMajor, CblasTrans, K, N, 1.0, wa, N, in + n + 1, F, 0.0, out + n + 1, F);
    cblas_dgemv(CblasRowMajor, CblasTrans, K, N, 1.0, wa, N, min, 1, 0.0, mout, 1);
    for (int j = 0; j < N; j++) {
        double *f = out + (size_t)j * (size_t)F, bj = bias ? bias[j] : 0.0;
        f[n] += bj;
        /* the two sums above carry their own rounding: (1 + g) covers it */
        f[n + 1] = up((f[n + 1] + g * (mout[j] + fabs(bj))) * (1 + 2 * g) + NNC_XCT_TINY);
        double mg = fabs(f[n]);
        for (int i = 0; i < n; i++) mg += fabs(f[i]) * e->xmag[i];
        mout[j] = up(mg * (1 + g) + NNC_XCT_TINY);
    }
}

/* Outward range of the exact value of form f over the box. */
static void form_range(const nnc_xct *e, const double *f, const double *lo, const double *hi, double *mn, double *mx)
{
    int n = e->n;
    double a = f[n], b = f[n], t = fabs(f[n]);
    for (int i = 0; i < n; i++) {
        a += f[i] >= 0 ? f[i] * lo[i] : f[i] * hi[i];
        b += f[i] >= 0 ? f[i] * hi[i] : f[i] * lo[i];
        t += fabs(f[i]) * e->xmag[i];
    }
    double err = up(up(e->gamma * t * (1 + e->gamma) + NNC_XCT_TINY) + f[n + 1]);
    *mn = down(a - err);
    *mx = up(b + err);
}

/* Append the half-space  s * (g . x) <= rhs  to the polytope. */
static void add_row(nnc_xct *e, int *nrows, const double *f, double s, double rhs)
{
    double *a = e->A + (size_t)*nrows * (size_t)e->n;
    for (int i = 0; i < e->n; i++) a[i] = s * f[i];
    e->b[*nrows] = rhs;
    (*nrows)++;
}

enum { NODE_DONE, NODE_OPEN, NODE_FOUND, NODE_BUDGET };

typedef struct search {
    nnc_xct *e;
    const double *lo, *hi, *cap_lo, *cap_hi;
    const nnc_rfn_problem *p;
    uint64_t lps, max_lps;
    double deadline;
    nnc_xct_check chk;
    void *chk_ctx;
    double **stack; /* nodes (node_pattern) */
    size_t top, cap;
} search;

/* The value of form f at x (float64, no error bound: heuristics only). */
static double form_at(int n, const double *f, const double *x)
{
    double v = f[n];
    for (int i = 0; i < n; i++) v += f[i] * x[i];
    return v;
}

/* A neuron's phase over the polytope of nrows rows: 2 active, -2 inactive,
 * 3 the polytope is empty; or both possible: 1 when the walk goes on with
 * the active phase and the inactive one is pushed, -1 the other way round,
 * alt then a point (approximately) of the pushed side.  [rl, rh]: its range
 * over the box.  wit: a point of the polytope (approximately; heuristic):
 * the form's sign there tells which phase is possible, so one linear
 * program (of the other phase) decides. */
static int lp_phase(search *S, const double *f, int nrows, double rl, double rh, const double *wit, double *alt)
{
    nnc_xct *e = S->e;
    int n = e->n;
    if (rl >= 0) return 2;
    if (rh <= 0) return -2;
    int act = form_at(n, f, wit) >= 0; /* this phase is possible: the LP tests the other */
    if (nrows == 0) { /* the box alone: its range is the LP's; the other side's best corner */
        for (int i = 0; i < n; i++) alt[i] = (f[i] >= 0) == act ? S->lo[i] : S->hi[i];
        return act ? 1 : -1;
    }
    /* act: min of g . x + c (active throughout when >= e); else min of -(g . x + c) */
    double sg = act ? 1 : -1;
    for (int i = 0; i < n; i++) e->neg[i] = sg * f[i];
    S->lps++;
    int r = nnc_xct_lp_solve(n, nrows, e->A, e->b, S->lo, S->hi, e->neg, alt, e->mu);
    if (r == NNC_XCT_LP_INFEASIBLE && nnc_xct_lp_bound(n, nrows, e->A, e->b, S->lo, S->hi, NULL, 0, e->mu) > 0)
        return 3;
    if (r == NNC_XCT_LP_OPTIMAL) {
        double lb = nnc_xct_lp_bound(n, nrows, e->A, e->b, S->lo, S->hi, e->neg, sg * f[n], e->mu);
        if (down(lb - f[n + 1]) >= 0) return act ? 2 : -2;
    }
    for (int i = 0; i < n; i++) alt[i] = fmin(fmax(alt[i], S->lo[i]), S->hi[i]);
    return act ? 1 : -1;
}

/* Whether the polytope (nrows rows) meets the unsafe disjunct j.  Returns
 * NODE_DONE (it does not: certified), NODE_OPEN, NODE_FOUND. */
static int disjunct(search *S, const double *yf, const double *ym, int nrows, int j)
{
    nnc_xct *e = S->e;
    const nnc_rfn_problem *p = S->p;
    int n = e->n, rows = nrows;
    double *u = e->fb; /* the output forms are in fa */
    for (int i = 0; i < n; i++) e->cobj[i] = 0;
    for (int r = p->dstart[j]; r < p->dstart[j + 1]; r++) {
        double um, mn, mx;
        const double *cr = p->C + (size_t)r * (size_t)p->n_out;
        for (int o = 0; o < p->n_out; o++) e->cabs[o] = fabs(cr[o]);
        affine_forms(e, p->n_out, 1, cr, e->cabs, NULL, yf, ym, u, &um);
        form_range(e, u, S->lo, S->hi, &mn, &mx);
        if (mn > p->d[r]) return NODE_DONE; /* this row alone is never met */
        /* C_r . y <= d_r  implies  g . x <= d_r - c + e */
        add_row(e, &rows, u, 1.0, up(up(p->d[r] - u[n]) + u[n + 1]));
        for (int i = 0; i < n; i++) e->cobj[i] += u[i];
    }
    S->lps++;
    int r = nnc_xct_lp_solve(n, rows, e->A, e->b, S->lo, S->hi, e->cobj, e->x, e->mu);
    if (r == NNC_XCT_LP_INFEASIBLE && nnc_xct_lp_bound(n, rows, e->A, e->b, S->lo, S->hi, NULL, 0, e->mu) > 0)
        return NODE_DONE;
    if (r != NNC_XCT_LP_OPTIMAL || S->chk == NULL) return NODE_OPEN;
    for (int i = 0; i < n; i++) e->x[i] = fmin(fmax(e->x[i], S->lo[i]), S->hi[i]);
    return S->chk(S->chk_ctx, e->x) ? NODE_FOUND : NODE_OPEN;
}

/* A node: its witness (n doubles: a point of its polytope, approximately),
 * then its pattern (nrelu values). */
static signed char *node_pattern(const nnc_xct *e, double *nd) { return (signed char *)(nd + e->n); }

/* Push a node with pattern s, neuron f set to phase ph, and witness wit. */
static int push(search *S, const signed char *s, const double *wit, int64_t f, signed char ph)
{
    if (S->top == S->cap) {
        size_t nc = S->cap ? 2 * S->cap : 16;
        double **ns = realloc(S->stack, sizeof *ns * nc);
        if (ns == NULL) return -1;
        S->stack = ns;
        S->cap = nc;
    }
    double *t = malloc(sizeof(double) * (size_t)S->e->n + (size_t)S->e->nrelu + 1);
    if (t == NULL) return -1;
    memcpy(t, wit, sizeof(double) * (size_t)S->e->n);
    signed char *ts = node_pattern(S->e, t);
    memcpy(ts, s, (size_t)S->e->nrelu);
    if (S->e->nrelu > 0) ts[f] = ph;
    S->stack[S->top++] = t;
    return 0;
}

/* Walk pattern s (0: undecided; +-1 split, a half-space; +-2 fixed without
 * one) from the input, deciding its undecided neurons and pushing the other
 * phase of each split.  Returns NODE_* or -1 (out of memory). */
static int node(search *S, double *nd)
{
    signed char *s = node_pattern(S->e, nd);
    const double *wit = nd;
    if (nnc_rfn_now() > S->deadline) return NODE_BUDGET;
    nnc_xct *e = S->e;
    const nnc_smp_chain *ch = e->ch;
    int n = e->n, nrows = 0;
    size_t F = (size_t)n + 2;
    double *pf = e->fa, *cf = e->fb, *pm = e->ma, *cm = e->mb;
    for (int i = 0; i < n; i++) { /* the inputs: x_i exactly */
        double *f = pf + (size_t)i * F;
        for (size_t t = 0; t < F; t++) f[t] = 0;
        f[i] = 1;
        pm[i] = e->xmag[i];
    }
    int64_t base = 0;
    for (int l = 0; l < ch->n_layers; l++) {
        const nnc_gpu_dense *D = &ch->layers[l];
        int N = D->N;
        affine_forms(e, D->K, N, D->w, e->wa[l], D->b, pf, pm, cf, cm);
        if (l + 1 == ch->n_layers) break; /* the outputs */
        for (int j = 0; j < N && D->relu; j++) {
            int64_t f = base + j;
            double *z = cf + (size_t)j * F;
            if (s[f] == 0) {
                double rl, rh;
                form_range(e, z, S->lo, S->hi, &rl, &rh);
                if (S->cap_lo && S->cap_lo[f] > rl) rl = S->cap_lo[f];
                if (S->cap_hi && S->cap_hi[f] < rh) rh = S->cap_hi[f];
                if (S->lps >= S->max_lps) return NODE_BUDGET;
                int ph = lp_phase(S, z, nrows, rl, rh, wit, e->alt);
                if (ph == 3) return NODE_DONE; /* no point of the box has this pattern */
                if ((ph == 1 || ph == -1) && push(S, s, e->alt, f, (signed char)-ph)) return -1;
                s[f] = (signed char)ph;
            }
            /* active: z >= 0, so g . x + c >= -e; inactive: g . x + c <= e */
            if (s[f] == 1) add_row(e, &nrows, z, -1.0, up(z[n] + z[n + 1]));
            if (s[f] == -1) add_row(e, &nrows, z, 1.0, up(z[n + 1] - z[n]));
            if (s[f] < 0) {
                for (size_t t = 0; t < F; t++) z[t] = 0;
                cm[j] = 0;
            }
        }
        if (D->relu) base += N;
        double *t = pf; pf = cf; cf = t;
        t = pm; pm = cm; cm = t;
    }
    /* cf: the output forms; disjunct() uses the other buffer as scratch */
    if (cf != e->fa) {
        memcpy(e->fa, cf, sizeof(double) * (size_t)e->n_out * F);
        memcpy(e->ma, cm, sizeof(double) * (size_t)e->n_out);
    }
    for (int j = 0; j < S->p->ndisj; j++) {
        if (S->lps >= S->max_lps) return NODE_BUDGET;
        int r = disjunct(S, e->fa, e->ma, nrows, j);
        if (r != NODE_DONE) return r;
    }
    return NODE_DONE;
}

nnc_status nnc_xct_decide(nnc_xct *e, const double *lo, const double *hi, const double *cap_lo, const double *cap_hi,
                          const nnc_rfn_problem *p, uint64_t max_lps, double deadline, nnc_xct_check chk,
                          void *chk_ctx, int *outcome, uint64_t *lps)
{
    *outcome = NNC_XCT_OPEN;
    *lps = 0;
    int n = e->n;
    if (n > NNC_XCT_MAX_IN || p->n_out != e->n_out) return NNC_STATUS_OK;
    for (int i = 0; i < n; i++) {
        if (!isfinite(lo[i]) || !isfinite(hi[i]) || !(lo[i] <= hi[i])) return NNC_STATUS_ARG;
        e->xmag[i] = fmax(fabs(lo[i]), fabs(hi[i]));
    }
    for (int j = 0; j < p->ndisj; j++) /* a disjunct without rows is met everywhere */
        if (p->dstart[j] >= p->dstart[j + 1]) return NNC_STATUS_OK;
    int maxr = 0;
    for (int j = 0; j < p->ndisj; j++) maxr = p->dstart[j + 1] - p->dstart[j] > maxr ? p->dstart[j + 1] - p->dstart[j] : maxr;
    int64_t need = e->nrelu + maxr + 1;
    if (need > e->rcap) {
        double *A = realloc(e->A, sizeof(double) * (size_t)need * (size_t)n), *b;
        if (A == NULL) return NNC_STATUS_NOMEM;
        e->A = A;
        if ((b = realloc(e->b, sizeof(double) * (size_t)need)) == NULL) return NNC_STATUS_NOMEM;
        e->b = b;
        double *mu = realloc(e->mu, sizeof(double) * (size_t)need);
        if (mu == NULL) return NNC_STATUS_NOMEM;
        e->mu = mu;
        e->rcap = need;
    }
    search S = {e, lo, hi, cap_lo, cap_hi, p, 0, max_lps, deadline, chk, chk_ctx, NULL, 0, 0};
    nnc_status st = NNC_STATUS_OK;
    signed char *root = calloc((size_t)e->nrelu + 1, 1);
    for (int i = 0; i < n; i++) e->x[i] = 0.5 * lo[i] + 0.5 * hi[i];
    if (root == NULL || push(&S, root, e->x, 0, 0)) {
        free(root);
        free(S.stack);
        return NNC_STATUS_NOMEM;
    }
    free(root);
    int res = NODE_DONE;
    while (S.top > 0 && res == NODE_DONE) {
        double *nd = S.stack[--S.top];
        res = node(&S, nd);
        free(nd);
        if (res < 0) st = NNC_STATUS_NOMEM;
    }
    while (S.top > 0) free(S.stack[--S.top]);
    free(S.stack);
    *lps = S.lps;
    if (res == NODE_DONE) *outcome = NNC_XCT_SAFE;
    else if (res == NODE_FOUND) *outcome = NNC_XCT_FOUND;
    return st;
}
