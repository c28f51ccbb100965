/* Clopper–Pearson intervals with MPFR; see verifier/stats_impl.h for the
 * contract.
 *
 * Method.  One bound is the root p° of T(p) = theta for a binomial tail
 * T = P(X <= k) (TAIL_LOWER, decreasing in p) or T = P(X >= k) (TAIL_UPPER,
 * increasing).  Each bound is solved in whichever of p or 1 - p keeps the
 * root at or below about 1/2 (lo(k) = 1 - hi(n - k)), so that relative
 * precision in p is relative precision of the answer.
 *
 * T(p) is summed from its first term outward, t_j = C(n,j) p^j q^(n-j),
 * q = 1 - p, with the ratio recurrence t_{j-1}/t_j = j q / ((n-j+1) p)
 * (downward) or t_{j+1}/t_j = (n-j) p / ((j+1) q) (upward).  The ratio falls
 * monotonically along either direction, so once it is r < 1 the rest of the
 * sum is at most t * r / (1 - r).  Of the two ways to get T, directly or as
 * 1 - (the opposite tail), the one whose first ratio is below 1 is used; its
 * terms then decay from the first and the sum stops after a few binomial
 * standard deviations.  The first term is exp(log C(n,j) + j log p +
 * (n-j) log1p(-p)) with log C from mpfr_lngamma; the sum is kept as
 * t_first * R, R >= 1, so that underflow never touches R.
 *
 * Every quantity is carried as a pair of bounds computed with MPFR_RNDD and
 * MPFR_RNDU; all operands are positive and every operation is monotone, so
 * the pair encloses the exact value.  A point x is certified on one side of
 * p° only when the enclosure of T(x) is entirely on that side of theta.
 *
 * Root finding: Newton's method in u = log p on log T(p) - log theta,
 * safeguarded by a bracket, then the answer r is certified by the
 * enclosures at r -+ delta*min(r, 1-r) (delta = 2^-80, widened to 2^-50 if
 * needed): the outward point must certify T <= theta (soundness), the inward
 * point T > theta (tightness).  Should that fail, a certified bisection
 * gives the bound instead. */
#include "verifier/stats_impl.h"
#include "nncert/verifier.h" /* nnc_vrf_clopper_pearson: the API's declaration (NNC_API) */

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <mpfr.h>

_Static_assert(sizeof(unsigned long) >= sizeof(uint64_t), "mpfr_*_ui must take 64-bit counts");

#define CP_PREC 192            /* bits of every MPFR variable */
#define CP_NEGLIGIBLE_EXP 150  /* stop summing when the tail bound < R * 2^-150 */
#define CP_CHECK_EVERY 8       /* terms between remainder/early-exit checks */
#define CP_NEWTON_MAX 400      /* Newton iterations before falling back */
#define CP_NEWTON_TOL_EXP 110  /* Newton stops at |dp| <= 2^-110 min(p, 1-p) */
#define CP_BISECT_TOL_EXP 60   /* bisection stops at B - A <= 2^-60 min(A, 1-B) */
#define CP_BISECT_MAX 4000

typedef enum cp_tail {
    TAIL_LOWER, /* T(p) = P(X <= k): decreasing; the root is an upper bound hi */
    TAIL_UPPER  /* T(p) = P(X >= k): increasing; the root is a lower bound lo */
} cp_tail;

typedef enum cp_dec {
    DEC_UNKNOWN = 0, /* the enclosure of T(p) contains theta */
    DEC_LE,          /* certified T(p) <= theta */
    DEC_GT           /* certified T(p) > theta */
} cp_dec;

/* One solve: tail kind, k, n, theta and scratch.  [_dn, _up] pairs are
 * lower/upper bounds of the named exact quantity. */
typedef struct cp_ctx {
    uint64_t n, k;
    cp_tail tail;
    mpfr_t th_dn, th_up;   /* theta = (1 - confidence)/2 */
    mpfr_t log_th;         /* log theta, nearest: Newton only */
    mpfr_t lgn_dn, lgn_up; /* lngamma(n + 1) = log n! */
    int lc_have[3];        /* log C(n, j) cached for j = k-1, k, k+1 */
    mpfr_t lc_dn[3], lc_up[3];
    /* per-point values, set by cp_point */
    mpfr_t lp_dn, lp_up;   /* log p */
    mpfr_t lq_dn, lq_up;   /* log q = log1p(-p) */
    mpfr_t qp_dn, qp_up;   /* q / p */
    mpfr_t pq_dn, pq_up;   /* p / q */
    /* results of cp_tail_eval */
    mpfr_t T_dn, T_up;     /* the tail T(p) */
    mpfr_t logT;           /* log T, from the upper bounds: Newton only */
    /* scratch */
    mpfr_t L_dn, L_up, t0_dn, t0_up, a_dn, a_up, R_dn, R_up, r_dn, r_up, rem, x, y;
} cp_ctx;

#define CP_NVARS 36

static mpfr_ptr *cp_vars(cp_ctx *c, mpfr_ptr *v)
{
    int i = 0;
    v[i++] = c->th_dn; v[i++] = c->th_up; v[i++] = c->log_th;
    v[i++] = c->lgn_dn; v[i++] = c->lgn_up;
    v[i++] = c->lc_dn[0]; v[i++] = c->lc_dn[1]; v[i++] = c->lc_dn[2];
    v[i++] = c->lc_up[0]; v[i++] = c->lc_up[1]; v[i++] = c->lc_up[2];
    v[i++] = c->lp_dn; v[i++] = c->lp_up; v[i++] = c->lq_dn; v[i++] = c->lq_up;
    v[i++] = c->qp_dn; v[i++] = c->qp_up; v[i++] = c->pq_dn; v[i++] = c->pq_up;
    v[i++] = c->T_dn; v[i++] = c->T_up; v[i++] = c->logT;
    v[i++] = c->L_dn; v[i++] = c->L_up; v[i++] = c->t0_dn; v[i++] = c->t0_up;
    v[i++] = c->a_dn; v[i++] = c->a_up; v[i++] = c->R_dn; v[i++] = c->R_up;
    v[i++] = c->r_dn; v[i++] = c->r_up; v[i++] = c->rem; v[i++] = c->x; v[i++] = c->y;
    assert(i == CP_NVARS - 1);
    v[i] = NULL;
    return v;
}

static void cp_ctx_init(cp_ctx *c, uint64_t n, double confidence)
{
    mpfr_ptr v[CP_NVARS];
    cp_vars(c, v);
    for (int i = 0; v[i]; i++) mpfr_init2(v[i], CP_PREC);
    c->n = n;
    /* theta = (1 - confidence) / 2: the subtraction may be inexact when
     * confidence is tiny, hence the two roundings; halving is exact. */
    mpfr_set_d(c->x, confidence, MPFR_RNDN); /* exact: 192 > 53 bits */
    mpfr_ui_sub(c->th_dn, 1, c->x, MPFR_RNDD);
    mpfr_ui_sub(c->th_up, 1, c->x, MPFR_RNDU);
    mpfr_div_2ui(c->th_dn, c->th_dn, 1, MPFR_RNDD);
    mpfr_div_2ui(c->th_up, c->th_up, 1, MPFR_RNDU);
    mpfr_log(c->log_th, c->th_dn, MPFR_RNDN);
    mpfr_set_uj(c->x, n, MPFR_RNDN); /* exact */
    mpfr_add_ui(c->x, c->x, 1, MPFR_RNDN);
    mpfr_lngamma(c->lgn_dn, c->x, MPFR_RNDD);
    mpfr_lngamma(c->lgn_up, c->x, MPFR_RNDU);
}

static void cp_ctx_clear(cp_ctx *c)
{
    mpfr_ptr v[CP_NVARS];
    cp_vars(c, v);
    for (int i = 0; v[i]; i++) mpfr_clear(v[i]);
}

static void cp_ctx_select(cp_ctx *c, cp_tail tail, uint64_t k)
{
    c->tail = tail;
    c->k = k;
    c->lc_have[0] = c->lc_have[1] = c->lc_have[2] = 0;
}

/* Bounds of log C(n, j) for j in {k-1, k, k+1}, cached. */
static void cp_logc(cp_ctx *c, uint64_t j, mpfr_ptr *dn, mpfr_ptr *up)
{
    int s = (int)(j + 1 - c->k);
    assert(s >= 0 && s <= 2 && j <= c->n);
    if (!c->lc_have[s]) {
        /* log C = log n! - log j! - log (n-j)!; subtrahends rounded the other way */
        mpfr_set_uj(c->x, j, MPFR_RNDN);
        mpfr_add_ui(c->x, c->x, 1, MPFR_RNDN);
        mpfr_lngamma(c->y, c->x, MPFR_RNDU);
        mpfr_sub(c->lc_dn[s], c->lgn_dn, c->y, MPFR_RNDD);
        mpfr_lngamma(c->y, c->x, MPFR_RNDD);
        mpfr_sub(c->lc_up[s], c->lgn_up, c->y, MPFR_RNDU);
        mpfr_set_uj(c->x, c->n - j, MPFR_RNDN);
        mpfr_add_ui(c->x, c->x, 1, MPFR_RNDN);
        mpfr_lngamma(c->y, c->x, MPFR_RNDU);
        mpfr_sub(c->lc_dn[s], c->lc_dn[s], c->y, MPFR_RNDD);
        mpfr_lngamma(c->y, c->x, MPFR_RNDD);
        mpfr_sub(c->lc_up[s], c->lc_up[s], c->y, MPFR_RNDU);
        c->lc_have[s] = 1;
    }
    *dn = c->lc_dn[s];
    *up = c->lc_up[s];
}

/* Per-point bounds of log p, log q, q/p, p/q for p in (0, 1) (p exact). */
static void cp_point(cp_ctx *c, mpfr_srcptr p)
{
    mpfr_log(c->lp_dn, p, MPFR_RNDD);
    mpfr_log(c->lp_up, p, MPFR_RNDU);
    mpfr_neg(c->x, p, MPFR_RNDN); /* exact */
    mpfr_log1p(c->lq_dn, c->x, MPFR_RNDD);
    mpfr_log1p(c->lq_up, c->x, MPFR_RNDU);
    mpfr_ui_sub(c->y, 1, p, MPFR_RNDD); /* q_dn */
    mpfr_div(c->pq_up, p, c->y, MPFR_RNDU);
    mpfr_div(c->qp_dn, c->y, p, MPFR_RNDD);
    mpfr_ui_sub(c->y, 1, p, MPFR_RNDU); /* q_up */
    mpfr_div(c->pq_dn, p, c->y, MPFR_RNDD);
    mpfr_div(c->qp_up, c->y, p, MPFR_RNDU);
}

/* Bounds L_dn <= log t_j <= L_up, t_j = C(n,j) p^j q^(n-j). */
static void cp_logterm(cp_ctx *c, uint64_t j, mpfr_ptr L_dn, mpfr_ptr L_up)
{
    mpfr_ptr lc_dn, lc_up;
    cp_logc(c, j, &lc_dn, &lc_up);
    /* log p, log q <= 0; multiplying by a count preserves the bound order */
    mpfr_mul_ui(L_dn, c->lp_dn, (unsigned long)j, MPFR_RNDD);
    mpfr_add(L_dn, L_dn, lc_dn, MPFR_RNDD);
    mpfr_mul_ui(c->x, c->lq_dn, (unsigned long)(c->n - j), MPFR_RNDD);
    mpfr_add(L_dn, L_dn, c->x, MPFR_RNDD);
    mpfr_mul_ui(L_up, c->lp_up, (unsigned long)j, MPFR_RNDU);
    mpfr_add(L_up, L_up, lc_up, MPFR_RNDU);
    mpfr_mul_ui(c->x, c->lq_up, (unsigned long)(c->n - j), MPFR_RNDU);
    mpfr_add(L_up, L_up, c->x, MPFR_RNDU);
}

/* Ratio bounds [r_dn, r_up] of t_{j+dir}/t_j. */
static void cp_ratio(cp_ctx *c, uint64_t j, int dir)
{
    if (dir < 0) { /* j q / ((n-j+1) p), j >= 1 */
        mpfr_mul_ui(c->r_dn, c->qp_dn, (unsigned long)j, MPFR_RNDD);
        mpfr_div_ui(c->r_dn, c->r_dn, (unsigned long)(c->n - j + 1), MPFR_RNDD);
        mpfr_mul_ui(c->r_up, c->qp_up, (unsigned long)j, MPFR_RNDU);
        mpfr_div_ui(c->r_up, c->r_up, (unsigned long)(c->n - j + 1), MPFR_RNDU);
    } else { /* (n-j) p / ((j+1) q), j < n */
        mpfr_mul_ui(c->r_dn, c->pq_dn, (unsigned long)(c->n - j), MPFR_RNDD);
        mpfr_div_ui(c->r_dn, c->r_dn, (unsigned long)(j + 1), MPFR_RNDD);
        mpfr_mul_ui(c->r_up, c->pq_up, (unsigned long)(c->n - j), MPFR_RNDU);
        mpfr_div_ui(c->r_up, c->r_up, (unsigned long)(j + 1), MPFR_RNDU);
    }
}

/* Sets T_dn, T_up from the current sum: direct, T = t0 * R, or complement,
 * T = 1 - t0 * R.  R_up must already include the remainder bound. */
static void cp_tail_bounds(cp_ctx *c, int compl)
{
    if (!compl) {
        mpfr_mul(c->T_dn, c->t0_dn, c->R_dn, MPFR_RNDD);
        mpfr_mul(c->T_up, c->t0_up, c->R_up, MPFR_RNDU);
    } else {
        mpfr_mul(c->x, c->t0_up, c->R_up, MPFR_RNDU);
        mpfr_ui_sub(c->T_dn, 1, c->x, MPFR_RNDD);
        mpfr_mul(c->x, c->t0_dn, c->R_dn, MPFR_RNDD);
        mpfr_ui_sub(c->T_up, 1, c->x, MPFR_RNDU);
        if (mpfr_sgn(c->T_dn) < 0) mpfr_set_ui(c->T_dn, 0, MPFR_RNDN);
    }
}

static cp_dec cp_decide(const cp_ctx *c)
{
    if (mpfr_lessequal_p(c->T_up, c->th_dn)) return DEC_LE;
    if (mpfr_greater_p(c->T_dn, c->th_up)) return DEC_GT;
    return DEC_UNKNOWN;
}

/* Encloses T(p) in [T_dn, T_up] for p in (0, 1) exact.  With early set,
 * returns as soon as the enclosure decides T vs theta (then the enclosure is
 * only as tight as that needed); otherwise sums until the rest is below
 * R * 2^-CP_NEGLIGIBLE_EXP and also sets logT.  Returns the decision. */
static cp_dec cp_tail_eval(cp_ctx *c, mpfr_srcptr p, int early)
{
    uint64_t n = c->n, k = c->k, j;
    double pd = mpfr_get_d(p, MPFR_RNDN);
    int dir, compl;
    cp_dec dec = DEC_UNKNOWN;

    cp_point(c, p);
    /* Direct when the first ratio is below 1 (the estimate in doubles only
     * picks the faster of two sound routes). */
    if (c->tail == TAIL_LOWER) { /* P(X <= k): down from k, or 1 - P(X >= k+1) */
        assert(k < n);
        compl = (double)k >= ((double)n + 1.0) * pd;
        dir = compl ? +1 : -1;
        j = compl ? k + 1 : k;
    } else { /* P(X >= k): up from k, or 1 - P(X <= k-1) */
        assert(k > 0);
        compl = (double)k <= ((double)n + 1.0) * pd - 1.0;
        dir = compl ? -1 : +1;
        j = compl ? k - 1 : k;
    }
    cp_logterm(c, j, c->L_dn, c->L_up);
    mpfr_exp(c->t0_dn, c->L_dn, MPFR_RNDD);
    mpfr_exp(c->t0_up, c->L_up, MPFR_RNDU);
    mpfr_set_ui(c->a_dn, 1, MPFR_RNDN); /* current term / t0 */
    mpfr_set_ui(c->a_up, 1, MPFR_RNDN);
    mpfr_set_ui(c->R_dn, 1, MPFR_RNDN); /* sum of terms so far / t0 */
    mpfr_set_ui(c->R_up, 1, MPFR_RNDN);

    for (uint64_t step = 0;; step++) {
        int last = dir < 0 ? j == 0 : j == n;
        if (last) {
            cp_tail_bounds(c, compl);
            dec = cp_decide(c);
            break;
        }
        cp_ratio(c, j, dir);
        if (step % CP_CHECK_EVERY == 0) {
            /* rest <= a * r / (1 - r) when r < 1 (ratios only fall from here) */
            int bounded = mpfr_cmp_ui(c->r_up, 1) < 0;
            if (bounded) {
                mpfr_ui_sub(c->x, 1, c->r_up, MPFR_RNDD);
                mpfr_mul(c->rem, c->a_up, c->r_up, MPFR_RNDU);
                mpfr_div(c->rem, c->rem, c->x, MPFR_RNDU);
                mpfr_add(c->y, c->R_up, c->rem, MPFR_RNDU);
                mpfr_swap(c->y, c->R_up); /* R_up with the remainder */
                cp_tail_bounds(c, compl);
                mpfr_swap(c->y, c->R_up);
                dec = cp_decide(c);
                mpfr_mul_2si(c->x, c->R_dn, -CP_NEGLIGIBLE_EXP, MPFR_RNDD);
                if (mpfr_lessequal_p(c->rem, c->x) || (early && dec != DEC_UNKNOWN)) break;
            } else if (early) {
                /* partial sums alone can already decide one way */
                mpfr_set_inf(c->y, 1);
                mpfr_swap(c->y, c->R_up);
                cp_tail_bounds(c, compl);
                mpfr_swap(c->y, c->R_up);
                if (!compl && mpfr_greater_p(c->T_dn, c->th_up)) return DEC_GT;
                if (compl && mpfr_lessequal_p(c->T_up, c->th_dn)) return DEC_LE;
            }
        }
        mpfr_mul(c->a_dn, c->a_dn, c->r_dn, MPFR_RNDD);
        mpfr_mul(c->a_up, c->a_up, c->r_up, MPFR_RNDU);
        mpfr_add(c->R_dn, c->R_dn, c->a_dn, MPFR_RNDD);
        mpfr_add(c->R_up, c->R_up, c->a_up, MPFR_RNDU);
        j = dir < 0 ? j - 1 : j + 1;
    }
    if (!early) {
        if (!compl) { /* log T = log t0 + log R, free of underflow */
            mpfr_log(c->x, c->R_up, MPFR_RNDN);
            mpfr_add(c->logT, c->L_up, c->x, MPFR_RNDN);
        } else {
            mpfr_log(c->logT, c->T_up, MPFR_RNDN);
        }
    }
    return dec;
}

/* A rough first guess at the root in doubles: normal approximation with
 * the Abramowitz–Stegun 26.2.23 quantile, clamped into (0, 1). */
static double cp_guess(const cp_ctx *c, double theta)
{
    double n = (double)c->n, k = (double)c->k;
    double t = sqrt(-2.0 * log(theta));
    double z = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
                       (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
    double g;
    if (c->tail == TAIL_UPPER) {
        g = k / n - z * sqrt(k * (n - k + 1.0)) / (n * sqrt(n));
        if (!(g > 1e-3 * k / n)) g = 1e-3 * k / n;
    } else {
        g = (k + 1.0) / n + z * sqrt((k + 1.0) * (n - k)) / (n * sqrt(n));
        if (!(g < 1.0)) g = 0.5 * (1.0 + k / n);
    }
    if (!(g > 0.0)) g = DBL_MIN;
    if (!(g < 1.0)) g = 1.0 - DBL_EPSILON;
    return g;
}

/* m = a point strictly inside (A, B) (0 <= A < B <= 1), geometric toward
 * whichever end the bracket hugs.  Returns 0 when no such point exists. */
static int cp_midpoint(mpfr_ptr m, mpfr_srcptr A, mpfr_srcptr B, mpfr_ptr tmp)
{
    if (mpfr_zero_p(A)) {
        mpfr_div_2ui(m, B, 1, MPFR_RNDN);
    } else if (mpfr_cmp_ui(B, 1) == 0) {
        mpfr_ui_sub(m, 1, A, MPFR_RNDN);
        mpfr_div_2ui(m, m, 1, MPFR_RNDN);
        mpfr_ui_sub(m, 1, m, MPFR_RNDN);
    } else {
        mpfr_div(tmp, B, A, MPFR_RNDN);
        if (mpfr_cmp_ui(tmp, 4) > 0) {
            mpfr_mul(m, A, B, MPFR_RNDN);
            mpfr_sqrt(m, m, MPFR_RNDN);
        } else {
            mpfr_ui_sub(tmp, 1, A, MPFR_RNDN);
            mpfr_ui_sub(m, 1, B, MPFR_RNDN);
            mpfr_div(tmp, tmp, m, MPFR_RNDN);
            if (mpfr_cmp_ui(tmp, 4) > 0) { /* 1 - sqrt((1-A)(1-B)) */
                mpfr_ui_sub(tmp, 1, A, MPFR_RNDN);
                mpfr_mul(m, m, tmp, MPFR_RNDN);
                mpfr_sqrt(m, m, MPFR_RNDN);
                mpfr_ui_sub(m, 1, m, MPFR_RNDN);
            } else {
                mpfr_add(m, A, B, MPFR_RNDN);
                mpfr_div_2ui(m, m, 1, MPFR_RNDN);
            }
        }
    }
    return mpfr_greater_p(m, A) && mpfr_less_p(m, B);
}

/* Is B - A <= 2^-e * min(A, 1 - B)? */
static int cp_narrow(mpfr_srcptr A, mpfr_srcptr B, long e, mpfr_ptr t1, mpfr_ptr t2)
{
    mpfr_ui_sub(t1, 1, B, MPFR_RNDD);
    if (mpfr_greater_p(t1, A)) mpfr_set(t1, A, MPFR_RNDD);
    mpfr_mul_2si(t1, t1, -e, MPFR_RNDD);
    mpfr_sub(t2, B, A, MPFR_RNDU);
    return mpfr_lessequal_p(t2, t1);
}

/* The bound the solve returns: certified on the outward side of the root.
 * TAIL_LOWER: out >= p° (an upper bound); TAIL_UPPER: out <= p°.  Either
 * way it is the side where T(out) <= theta is certified. */
static void cp_bisect(cp_ctx *c, mpfr_ptr out)
{
    mpfr_t A, B, m, t1, t2;
    mpfr_inits2(CP_PREC, A, B, m, t1, t2, (mpfr_ptr)0);
    /* T(0) and T(1) are exact: 1 and 0 (LOWER, k < n), 0 and 1 (UPPER, k > 0) */
    mpfr_set_ui(A, 0, MPFR_RNDN);
    mpfr_set_ui(B, 1, MPFR_RNDN);
    for (int it = 0; it < CP_BISECT_MAX; it++) {
        if (cp_narrow(A, B, CP_BISECT_TOL_EXP, t1, t2)) break;
        if (!cp_midpoint(m, A, B, t1)) break;
        cp_dec d = cp_tail_eval(c, m, 1);
        int le = d == DEC_LE;
        if (c->tail == TAIL_LOWER) mpfr_set(le ? B : A, m, MPFR_RNDN);
        else mpfr_set(le ? A : B, m, MPFR_RNDN);
    }
    mpfr_set(out, c->tail == TAIL_LOWER ? B : A, MPFR_RNDN);
    mpfr_clears(A, B, m, t1, t2, (mpfr_ptr)0);
}

/* Newton in u = log p; returns 1 with r set when it converged. */
static int cp_newton(cp_ctx *c, mpfr_ptr r, double theta)
{
    mpfr_t A, B, h, g, np, t1, t2;
    int ok = 0;
    mpfr_inits2(CP_PREC, A, B, h, g, np, t1, t2, (mpfr_ptr)0);
    mpfr_set_ui(A, 0, MPFR_RNDN);
    mpfr_set_ui(B, 1, MPFR_RNDN);
    mpfr_set_d(r, cp_guess(c, theta), MPFR_RNDN);
    for (int it = 0; it < CP_NEWTON_MAX; it++) {
        cp_tail_eval(c, r, 0);
        mpfr_sub(h, c->logT, c->log_th, MPFR_RNDN); /* h = log T - log theta */
        if (mpfr_zero_p(h)) { ok = 1; break; }
        /* bracket: sign of h says which side of the root r is on */
        int left = (mpfr_sgn(h) > 0) == (c->tail == TAIL_LOWER);
        mpfr_set(left ? A : B, r, MPFR_RNDN);
        /* log |dh/du| = log t_k - log T + (LOWER) log(p/q) + log(n-k)
         *                                 (UPPER) log k */
        cp_logterm(c, c->k, t1, t2); /* t2 = log t_k upper */
        mpfr_sub(g, t2, c->logT, MPFR_RNDN);
        if (c->tail == TAIL_LOWER) {
            mpfr_sub(g, g, c->lq_up, MPFR_RNDN);
            mpfr_add(g, g, c->lp_up, MPFR_RNDN);
            mpfr_set_uj(t1, c->n - c->k, MPFR_RNDN);
        } else {
            mpfr_set_uj(t1, c->k, MPFR_RNDN);
        }
        mpfr_log(t1, t1, MPFR_RNDN);
        mpfr_add(g, g, t1, MPFR_RNDN);
        mpfr_exp(g, g, MPFR_RNDN);
        /* du = -h / (dh/du); dh/du < 0 for LOWER, > 0 for UPPER */
        mpfr_div(t1, h, g, MPFR_RNDN);
        if (c->tail == TAIL_UPPER) mpfr_neg(t1, t1, MPFR_RNDN);
        mpfr_exp(t2, t1, MPFR_RNDN);
        mpfr_mul(np, r, t2, MPFR_RNDN); /* p * e^du */
        /* converged when |np - r| <= 2^-TOL min(r, 1 - r) */
        mpfr_sub(t2, np, r, MPFR_RNDN);
        mpfr_abs(t2, t2, MPFR_RNDN);
        mpfr_ui_sub(t1, 1, r, MPFR_RNDN);
        if (mpfr_greater_p(t1, r)) mpfr_set(t1, r, MPFR_RNDN);
        mpfr_mul_2si(t1, t1, -CP_NEWTON_TOL_EXP, MPFR_RNDN);
        if (mpfr_number_p(np) && mpfr_lessequal_p(t2, t1)) {
            if (mpfr_greater_p(np, A) && mpfr_less_p(np, B)) mpfr_set(r, np, MPFR_RNDN);
            ok = 1;
            break;
        }
        if (!mpfr_number_p(np) || !mpfr_greater_p(np, A) || !mpfr_less_p(np, B)) {
            if (!cp_midpoint(np, A, B, t1)) break;
        }
        mpfr_set(r, np, MPFR_RNDN);
    }
    mpfr_clears(A, B, h, g, np, t1, t2, (mpfr_ptr)0);
    return ok;
}

/* Solves one tail for its certified bound (see cp_bisect for the side). */
static void cp_solve(cp_ctx *c, cp_tail tail, uint64_t k, double theta, unsigned flags, mpfr_ptr out)
{
    mpfr_t r, xo, xi, d;
    int done = 0;
    cp_ctx_select(c, tail, k);
    if (flags & NNC_VRF_CP_FORCE_BISECT) {
        cp_bisect(c, out);
        return;
    }
    mpfr_inits2(CP_PREC, r, xo, xi, d, (mpfr_ptr)0);
    if (cp_newton(c, r, theta)) {
        static const long delta_exp[] = {80, 64, 50};
        for (size_t i = 0; i < sizeof delta_exp / sizeof *delta_exp && !done; i++) {
            /* d = 2^-e min(r, 1 - r); xo outward of r, xi inward */
            mpfr_ui_sub(d, 1, r, MPFR_RNDN);
            if (mpfr_greater_p(d, r)) mpfr_set(d, r, MPFR_RNDN);
            mpfr_mul_2si(d, d, -delta_exp[i], MPFR_RNDN);
            if (tail == TAIL_LOWER) {
                mpfr_add(xo, r, d, MPFR_RNDU);
                mpfr_sub(xi, r, d, MPFR_RNDD);
            } else {
                mpfr_sub(xo, r, d, MPFR_RNDD);
                mpfr_add(xi, r, d, MPFR_RNDU);
            }
            if (mpfr_sgn(xi) <= 0 || mpfr_sgn(xo) <= 0 || mpfr_cmp_ui(xi, 1) >= 0 || mpfr_cmp_ui(xo, 1) >= 0)
                break; /* cannot happen for 0 < r < 1 at these deltas; bisect */
            if (cp_tail_eval(c, xo, 1) == DEC_LE && cp_tail_eval(c, xi, 1) == DEC_GT) {
                mpfr_set(out, xo, MPFR_RNDN);
                done = 1;
            }
        }
    }
    if (!done) cp_bisect(c, out);
    mpfr_clears(r, xo, xi, d, (mpfr_ptr)0);
}

nnc_status nnc_vrf_clopper_pearson_ex(uint64_t k, uint64_t n, double confidence, unsigned flags,
                                      double *lo, double *hi, char *err, size_t errlen)
{
    cp_ctx c;
    mpfr_t b;
    double theta;
    assert(lo && hi);
    if (n == 0) return nnc_err(err, errlen, NNC_STATUS_ARG, "Clopper-Pearson: no trials (n = 0)");
    if (k > n)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "Clopper-Pearson: %llu successes in %llu trials",
                       (unsigned long long)k, (unsigned long long)n);
    if (!(confidence > 0.0 && confidence < 1.0))
        return nnc_err(err, errlen, NNC_STATUS_ARG, "Clopper-Pearson: confidence %g not in (0, 1)", confidence);
    theta = 0.5 * (1.0 - confidence);
    if (!(theta > 0.0)) theta = DBL_MIN; /* only for the first guess */

    cp_ctx_init(&c, n, confidence);
    mpfr_init2(b, CP_PREC);
    int sym = !(flags & NNC_VRF_CP_NO_SYMMETRY);
    int closed = !(flags & NNC_VRF_CP_NO_CLOSED_FORM);

    /* lower bound */
    if (k == 0) {
        *lo = 0.0;
    } else if (k == n && closed) { /* theta^(1/n), every step rounded down */
        mpfr_log(b, c.th_dn, MPFR_RNDD);
        mpfr_div_ui(b, b, (unsigned long)n, MPFR_RNDD);
        mpfr_exp(b, b, MPFR_RNDD);
        *lo = mpfr_get_d(b, MPFR_RNDD);
    } else if (k <= n - k || !sym) { /* direct: P(X >= k) = theta */
        cp_solve(&c, TAIL_UPPER, k, theta, flags, b);
        *lo = mpfr_get_d(b, MPFR_RNDD);
    } else { /* lo(k) = 1 - hi(n - k) */
        cp_solve(&c, TAIL_LOWER, n - k, theta, flags, b);
        mpfr_ui_sub(b, 1, b, MPFR_RNDD);
        *lo = mpfr_get_d(b, MPFR_RNDD);
    }

    /* upper bound */
    if (k == n) {
        *hi = 1.0;
    } else if (k == 0 && closed) { /* 1 - theta^(1/n) = -expm1(log(theta)/n), rounded up */
        mpfr_log(b, c.th_dn, MPFR_RNDD);
        mpfr_div_ui(b, b, (unsigned long)n, MPFR_RNDD);
        mpfr_expm1(b, b, MPFR_RNDD);
        mpfr_neg(b, b, MPFR_RNDN);
        *hi = mpfr_get_d(b, MPFR_RNDU);
    } else if (k >= n - k && sym) { /* hi(k) = 1 - lo(n - k) */
        cp_solve(&c, TAIL_UPPER, n - k, theta, flags, b);
        mpfr_ui_sub(b, 1, b, MPFR_RNDU);
        *hi = mpfr_get_d(b, MPFR_RNDU);
    } else { /* direct: P(X <= k) = theta */
        cp_solve(&c, TAIL_LOWER, k, theta, flags, b);
        *hi = mpfr_get_d(b, MPFR_RNDU);
    }

    mpfr_clear(b);
    cp_ctx_clear(&c);
    return NNC_STATUS_OK;
}

nnc_status nnc_vrf_clopper_pearson(uint64_t k, uint64_t n, double confidence, double *lo, double *hi,
                                   char *err, size_t errlen)
{
    return nnc_vrf_clopper_pearson_ex(k, n, confidence, 0, lo, hi, err, errlen);
}

/* ---------------------------------------------------------- sample size */

static nnc_status cp_width(uint64_t n, double confidence, double p, double *w, char *err, size_t errlen)
{
    double lo, hi;
    uint64_t k = (uint64_t)floor(p * (double)n + 0.5);
    if (k > n) k = n;
    nnc_status st = nnc_vrf_clopper_pearson(k, n, confidence, &lo, &hi, err, errlen);
    *w = hi - lo; /* rounding of the difference is immaterial for a sample size */
    return st;
}

nnc_status nnc_vrf_cp_samples_needed(double half_width, double confidence, double p_guess, uint64_t *n_out,
                                     char *err, size_t errlen)
{
    const uint64_t cap = NNC_VRF_CP_SAMPLES_MAX;
    double target = 2.0 * half_width, w;
    uint64_t n, a, b;
    nnc_status st;
    assert(n_out);
    if (!(half_width > 0.0 && half_width <= 0.5))
        return nnc_err(err, errlen, NNC_STATUS_ARG, "sample size: half-width %g not in (0, 0.5]", half_width);
    if (!(confidence > 0.0 && confidence < 1.0))
        return nnc_err(err, errlen, NNC_STATUS_ARG, "sample size: confidence %g not in (0, 1)", confidence);
    if (!(p_guess >= 0.0 && p_guess <= 1.0))
        return nnc_err(err, errlen, NNC_STATUS_ARG, "sample size: proportion %g not in [0, 1]", p_guess);

    /* First guess: normal approximation, or the k = 0 closed form. */
    double theta = 0.5 * (1.0 - confidence), t = sqrt(-2.0 * log(theta > 0 ? theta : DBL_MIN));
    double z = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
                       (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
    double pq = p_guess * (1.0 - p_guess);
    double g = z * z * pq / (half_width * half_width);
    double g0 = -log(theta > 0 ? theta : DBL_MIN) / target;
    if (g < g0) g = g0;
    if (!(g >= 1.0)) g = 1.0;
    if (g > (double)cap) /* Clopper–Pearson needs about this many or more */
        return nnc_err(err, errlen, NNC_STATUS_LIMIT,
                       "sample size: about %.3g samples needed for half-width %g, more than the %llu searched",
                       g, half_width, (unsigned long long)cap);
    n = (uint64_t)g;

    /* Secant-like refinement: the width falls roughly as n^-1/2. */
    for (int it = 0; it < 8; it++) {
        if ((st = cp_width(n, confidence, p_guess, &w, err, errlen)) != NNC_STATUS_OK) return st;
        double f = (w / target) * (w / target) * (double)n;
        if (f > 2.0 * (double)cap) f = 2.0 * (double)cap;
        uint64_t nn = (uint64_t)ceil(f);
        if (nn < 1) nn = 1;
        if (nn > n + n / 2 + 1) nn = n + n / 2 + 1; /* damp early steps */
        if (nn + 8 > n && nn < n + 8) break;
        n = nn;
        if (n > cap) break;
    }
    if (n > cap) n = cap;

    /* Bracket (a, b]: width(a) > target (or a = 0), width(b) <= target. */
    if ((st = cp_width(n, confidence, p_guess, &w, err, errlen)) != NNC_STATUS_OK) return st;
    if (w <= target) {
        b = n;
        a = n;
        for (uint64_t d = 1;; d *= 2) {
            a = b > d ? b - d : 0;
            if (a == 0) break;
            if ((st = cp_width(a, confidence, p_guess, &w, err, errlen)) != NNC_STATUS_OK) return st;
            if (w > target) break;
            b = a;
        }
    } else {
        a = n;
        for (uint64_t d = 1;; d *= 2) {
            if (a >= cap)
                return nnc_err(err, errlen, NNC_STATUS_LIMIT,
                               "sample size: more than %llu samples needed for half-width %g",
                               (unsigned long long)cap, half_width);
            b = a + d > cap ? cap : a + d;
            if ((st = cp_width(b, confidence, p_guess, &w, err, errlen)) != NNC_STATUS_OK) return st;
            if (w <= target) break;
            a = b;
        }
    }
    while (b - a > 1) {
        uint64_t m = a + (b - a) / 2;
        if ((st = cp_width(m, confidence, p_guess, &w, err, errlen)) != NNC_STATUS_OK) return st;
        if (w <= target) b = m;
        else a = m;
    }
    *n_out = b;
    return NNC_STATUS_OK;
}
