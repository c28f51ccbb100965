/* Multi-scalar multiplication sum_i [k_i] P_i on BN254 G1 and G2
 * (Pippenger's bucket method), shared by prover/msm.c and gpu/msm.cu.
 *
 * Scalar recoding.  A scalar is used as its canonical integer k < r < 2^254
 * (4 little-endian limbs, see nnc_fr_to_int).  With window width c it is
 * cut into NNC_MSM_NWIN(c) = ceil(255 / c) signed digits
 *     k = sum_w d_w 2^(c w),   d_w in [-2^(c-1), 2^(c-1)],
 * by Booth recoding: d_w = B_w + b_(cw-1) - 2^c b_(cw+c-1), where B_w is
 * the c-bit value of bits cw .. cw+c-1 and b_(-1) = 0.  This is the usual
 * "subtract 2^c and carry one into the next window when the digit exceeds
 * 2^(c-1)" rule, except that the carry is read off the next window's lowest
 * bit, so every digit is computed on its own (c + 1 bits of k, no state),
 * which lets threads and GPU threads take any window.  The sum telescopes
 * to k because c * NWIN >= 255 makes the top bit b_(c NWIN - 1) zero.
 * A digit d adds sign(d) P to bucket |d| of its window (buckets 1..2^(c-1),
 * negation is free in affine form); digit 0 adds nothing.
 *
 * This header has two parts:
 *   1. (include-guarded) the public API, the recoding and the window choice;
 *      plain C, compiled by gcc and nvcc.
 *   2. (only when NNC_MSM_G is defined) the CPU bucket code for one group,
 *      instantiated by prover/msm.c once per group like
 *      prover/curve_tmpl_impl.h. */
#ifndef NNC_PRV_MSM_IMPL_H
#define NNC_PRV_MSM_IMPL_H

#include "prover/curve_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The public MSM/NTT API is declared in nncert/prover.h. */

/* ---- internal: explicit method and window, for tests and benchmarks ---- */

typedef enum nnc_msm_method {
    NNC_MSM_METHOD_AUTO = 0,   /* what nnc_prv_g*_msm use: by n */
    NNC_MSM_METHOD_NAIVE = 1,  /* one wNAF multiplication per point, summed */
    NNC_MSM_METHOD_JAC = 2,    /* Pippenger, Jacobian buckets, mixed additions */
    NNC_MSM_METHOD_AFFINE = 3, /* Pippenger, affine buckets, batched inversions */
    NNC_MSM_METHOD_NOHEAP = 4, /* Pippenger, c = 6, stack buckets, 1 thread (the fallback) */
    NNC_MSM_METHOD_AFFINE_PLAIN = 5 /* AFFINE without the GLV split on G1 (as AFFINE on G2) */
} nnc_msm_method;

/* As nnc_prv_g1_msm with the method and the window width c forced.
 * c: 1..NNC_MSM_MAX_WINDOW, or 0 for the automatic choice (ignored by
 * NAIVE and NOHEAP). */
void nnc_prv_g1_msm_cfg(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n,
                        int threads, nnc_msm_method method, int c);
void nnc_prv_g2_msm_cfg(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n,
                        int threads, nnc_msm_method method, int c);

/* Tests: terms per Pippenger run (0, the default: as many as fit in
 * NNC_MSM_RUN_BYTES), so that small MSMs take the path that splits large
 * ones.  Not thread-safe: set it before the MSMs. */
void nnc_msm_set_run_terms(size_t terms);
extern size_t nnc_msm_run_terms;

/* GLV decomposition on G1 (host code, prover/msm.c): for an integer
 * k < 2^256 (in practice k < r), Out: k1, k2 < 2^128 (little-endian limbs)
 * and signs with k = (-1)^neg1 k1 + (-1)^neg2 k2 lambda (mod r), where
 * lambda = 0xb3c4d79d41a917585bfc41088d8daaa78b17ea66b99c90dd is the
 * eigenvalue of (x, y) -> (beta x, y), beta =
 * 0x59e26bcea0d48bacd4f263f1acdb5c4f5763473177fffffe. */
void nnc_msm_glv_split(uint64_t k1[2], int *neg1, uint64_t k2[2], int *neg2, const uint64_t k[4]);

#ifdef __cplusplus
}
#endif

/* Largest window width (2^(c-1) buckets per window and thread). */
#define NNC_MSM_MAX_WINDOW 22
/* Number of signed digits of width c for a 254-bit scalar: ceil(255 / c). */
#define NNC_MSM_NWIN(c) ((255 + (c) - 1) / (c))

/* Returns: the Booth digit d_w of width c (1 <= c <= NNC_MSM_MAX_WINDOW) of
 * the integer k < 2^254 held in kl little-endian limbs (those above read as
 * 0), in [-2^(c-1), 2^(c-1)] (see the top of this file). */
NNC_FORCEINLINE int nnc_msm_digit_n(const uint64_t *k, int kl, int w, int c)
{
    int pos = w * c - 1; /* lowest bit read: b_(cw-1) */
    uint64_t bits;
    if (pos < 0) {
        bits = (k[0] << 1);
    } else {
        int idx = pos >> 6, sh = pos & 63;
        bits = idx < kl ? k[idx] >> sh : 0;
        if (sh != 0 && idx + 1 < kl)
            bits |= k[idx + 1] << (64 - sh);
    }
    bits &= ((uint64_t)1 << (c + 1)) - 1; /* b_(cw-1) .. b_(cw+c-1) */
    return (int)(bits >> 1) + (int)(bits & 1) - (int)((bits >> c) << c);
}

/* The same for 4 limbs. */
NNC_FORCEINLINE int nnc_msm_digit(const uint64_t k[4], int w, int c) { return nnc_msm_digit_n(k, 4, w, c); }

/* Returns: the window width for n points (floor(log2 n) = lg):
 *   affine buckets: lg - 2 up to 2^10 points, lg - 3 up to 2^13, then lg - 4;
 *   Jacobian buckets: lg - 2;
 * clamped to 2..16.  Measured with one thread on BN254 G1 (best widths
 * 7, 8, 9-11, 10, 11-13 at 2^8, 2^10, 2^12, 2^14, 2^16 points; the cost
 * is flat within +-1 of these); see prover/msm.c. */
NNC_INLINE int nnc_msm_window(size_t n, int affine)
{
    int lg = 0, c;
    while (lg < 62 && ((size_t)1 << (lg + 1)) <= n)
        lg++; /* floor(log2 n) */
    c = lg - (!affine || lg <= 10 ? 2 : lg <= 13 ? 3 : 4);
    if (c < 2)
        c = 2;
    if (c > 16)
        c = 16;
    return c;
}

#endif /* NNC_PRV_MSM_IMPL_H */

/* ==== part 2: CPU bucket code for one group (prover/msm.c only) ====
 * Before including, define
 *   NNC_MSM_G(op)  the group functions (nnc_g1_##op), NNC_MSM_F(op) the
 *                  coordinate field's (nnc_fq_##op), NNC_MSM_FE its element,
 *   NNC_MSM_AFF, NNC_MSM_JAC the point types,
 *   NNC_MSM_P(name) the names of the generated functions (msm_g1_##name),
 * optionally NNC_MSM_ENDO(r, p) (AFF_ *r = [lambda] p, the endomorphism
 * GLV uses: only G1 has it here), optionally a vector bucket flush (G1:
 * prover/fq_ifma.h):
 *   NNC_MSM_VEC_ON()              int, evaluated once per MSM: use it;
 *   NNC_MSM_VEC_SCRATCH(cap)      bytes of its scratch for a batch of cap;
 *   NNC_MSM_VEC_FLUSH(bk, qb, qp, qd, qdbl, nq, scratch)  the queued
 *                                 additions, as aff_flush's scalar loop,
 *   NNC_MSM_VEC_REDUCE(r, bk, h)  optional: reduce_aff without Jacobian
 *                                 parts, used from NNC_MSM_VEC_REDUCE_MIN buckets,
 * and, once, NNC_MSM_NAIVE_BELOW / NNC_MSM_AFFINE_FROM (the sizes where
 * the automatic method changes) and int nnc_msm_default_threads(void);
 * include <pthread.h>, <stdlib.h>, <string.h> first.
 * Every generated function is static. */
#ifdef NNC_MSM_G

#ifndef NNC_MSM_HOT /* the field products inlined into the batch loops */
#define NNC_MSM_HOT __attribute__((flatten))
#endif
#define G_ NNC_MSM_G
#define F_ NNC_MSM_F
#define FE_ NNC_MSM_FE
#define AFF_ NNC_MSM_AFF
#define JAC_ NNC_MSM_JAC
#define P_ NNC_MSM_P

/* out[i] = in[i]^-1 for m >= 1 nonzero elements, by Montgomery's trick:
 * one variable-time inversion and 3(m-1) products.  pre[m] is scratch.
 * out may alias in. */
static void NNC_MSM_HOT P_(inv_batch_var)(FE_ *out, const FE_ *in, FE_ *pre, size_t m)
{
    FE_ inv, t;
    size_t i;
    pre[0] = in[0];
    for (i = 1; i < m; i++)
        F_(mul)(&pre[i], &pre[i - 1], &in[i]);
    F_(inv_var)(&inv, &pre[m - 1]);
    for (i = m - 1; i > 0; i--) {
        F_(mul)(&t, &inv, &pre[i - 1]); /* in[i]^-1 */
        F_(mul)(&inv, &inv, &in[i]);    /* (in[0] .. in[i-1])^-1 */
        out[i] = t;
    }
    out[0] = inv;
}

/* *r = sum_b b * bucket_b for Jacobian buckets[1..h] (index 0 unused):
 * running sums from the top, 2h additions. */
static void P_(reduce_jac)(JAC_ *r, const JAC_ *bk, size_t h)
{
    JAC_ run, acc;
    size_t b;
    G_(jac_set_inf)(&run);
    G_(jac_set_inf)(&acc);
    for (b = h; b >= 1; b--) {
        G_(jac_add_var)(&run, &run, &bk[b]);
        G_(jac_add_var)(&acc, &acc, &run);
    }
    *r = acc;
}

/* As reduce_jac for affine buckets bk (infinity as x = y = 0) plus the
 * Jacobian buckets jbk[b] where jused[b] != 0 (bucket b = bk[b] + jbk[b]). */
static void NNC_MSM_HOT P_(reduce_aff)(JAC_ *r, const AFF_ *bk, const JAC_ *jbk, const unsigned char *jused,
                           size_t h)
{
    JAC_ run, acc;
    size_t b;
    G_(jac_set_inf)(&run);
    G_(jac_set_inf)(&acc);
    for (b = h; b >= 1; b--) {
        G_(jac_add_aff_var)(&run, &run, &bk[b]);
        if (jused[b])
            G_(jac_add_var)(&run, &run, &jbk[b]);
        G_(jac_add_var)(&acc, &acc, &run);
    }
    *r = acc;
}

/* A prepared term: its scalar (kl limbs, little-endian, 2 when every
 * scalar of the run is below 2^128) and a reference to its input point,
 * tagged with what to apply to it: bit 0 negate, bit 1 the endomorphism
 * (the points are at least 8-byte aligned). */
#define NNC_MSM_TAG_NEG ((uintptr_t)1)
#define NNC_MSM_TAG_ENDO ((uintptr_t)2)
_Static_assert(_Alignof(AFF_) >= 4, "a tagged point reference needs its two low bits");

/* Returns: the point of the tagged term tg, negated once more when negd;
 * tmp holds it where it is not the input point itself. */
NNC_FORCEINLINE const AFF_ *P_(term_point)(AFF_ *tmp, uintptr_t tg, int negd)
{
    const AFF_ *p = (const AFF_ *)(tg & ~(NNC_MSM_TAG_NEG | NNC_MSM_TAG_ENDO));
#ifdef NNC_MSM_ENDO
    if (tg & NNC_MSM_TAG_ENDO) {
        NNC_MSM_ENDO(tmp, p);
        p = tmp;
    }
#endif
    if ((int)(tg & NNC_MSM_TAG_NEG) ^ negd) {
        G_(aff_neg)(tmp, p);
        p = tmp;
    }
    return p;
}

/* Window sum of window w over terms lo..hi-1 with Jacobian buckets:
 * *r = sum_i d_w(k_i) P_i.  bk: 2^(c-1) + 1 points of scratch. */
static void P_(window_jac)(JAC_ *r, const uintptr_t *tp, const uint64_t *ks, int kl, size_t lo, size_t hi,
                           int w, int c, JAC_ *bk)
{
    size_t h = (size_t)1 << (c - 1), b, i;
    AFF_ np;
    for (b = 0; b <= h; b++)
        G_(jac_set_inf)(&bk[b]);
    for (i = lo; i < hi; i++) {
        int d = nnc_msm_digit_n(ks + i * (size_t)kl, kl, w, c);
        if (d != 0) {
            const AFF_ *P = P_(term_point)(&np, tp[i], d < 0);
            d = d < 0 ? -d : d;
            G_(jac_add_aff_var)(&bk[d], &bk[d], P);
        }
    }
    P_(reduce_jac)(r, bk, h);
}

/* Scratch of the affine-bucket method for window width c, one per thread.
 * Buckets are affine; additions into them are queued (at most one per
 * bucket at a time, marked by stamp[b] == gen) and done in batches that
 * share one inversion.  A point whose bucket is already queued waits in
 * the deferred list for one of the next NNC_MSM_DEFER batches (deferred
 * points go first, so only another deferred point for the same bucket can
 * block it); if its bucket is taken in all of them (many points for one
 * bucket, e.g. scalars all 1, or correlated scalars), it goes into the
 * bucket's Jacobian part jbk[b] by a mixed addition instead, so a crowded
 * bucket costs no inversion per point. */
typedef struct P_(aff_scratch) {
    AFF_ *bk;        /* [h + 1] buckets, index 0 unused; infinity = (0, 0) */
    JAC_ *jbk;       /* [h + 1] Jacobian parts, valid where jused[b] */
    unsigned char *jused; /* [h + 1] */
    uint32_t *stamp; /* [h + 1] batch number of the queued addition, 0 = none */
    uint32_t gen;    /* number of the batch being filled, >= 1 */
    size_t h;        /* buckets: 2^(c-1) */
    size_t cap;      /* batch capacity */
    size_t nq;       /* queued additions */
    uint32_t *qb;    /* [cap] bucket of each queued addition */
    AFF_ *qp;        /* [cap] point to add (sign applied) */
    FE_ *qd;         /* [cap] denominator: x_P - x_B, or 2 y_B for a doubling */
    FE_ *tmp;        /* [cap] prefix products for the batch inversion */
    unsigned char *qdbl; /* [cap] 1 for a doubling (P = bucket) */
    size_t nd;       /* deferred points */
    uint32_t *db;    /* [cap] bucket of each deferred point */
    AFF_ *dp;        /* [cap] deferred point (sign applied) */
    unsigned char *dn; /* [cap] batches each deferred point has waited */
    int vec;         /* flush with NNC_MSM_VEC_FLUSH */
    unsigned char *vscratch; /* its scratch, NNC_MSM_VEC_SCRATCH(cap) bytes (when vec) */
} P_(aff_scratch);

#ifndef NNC_MSM_VEC_FLUSH
#define NNC_MSM_VEC_ON() 0
#define NNC_MSM_VEC_SCRATCH(cap) ((size_t)0 * (cap))
#endif

/* Returns: bytes of scratch for width c (aff_scratch_init's memory). */
static size_t P_(aff_scratch_bytes)(int c, size_t *cap)
{
    size_t h = (size_t)1 << (c - 1);
    size_t q = h < 1024 ? h : 1024;
    *cap = q;
    return (h + 1) * (sizeof(AFF_) + sizeof(JAC_) + sizeof(uint32_t) + 1) +
           q * (2 * sizeof(AFF_) + 2 * sizeof(FE_) + 2 * sizeof(uint32_t) + 2) + 192 +
           NNC_MSM_VEC_SCRATCH(q);
}

/* Carve the scratch out of mem (aff_scratch_bytes(c) bytes, 16-aligned). */
static void P_(aff_scratch_init)(P_(aff_scratch) *s, unsigned char *mem, int c, int vec)
{
    size_t h = (size_t)1 << (c - 1), q, off = 0;
    (void)P_(aff_scratch_bytes)(c, &q);
    s->cap = q;
    s->h = h;
#define NNC_MSM_CARVE(ptr, T, count)                   \
    do {                                              \
        (ptr) = (T *)(void *)(mem + off);             \
        off += ((count) * sizeof(T) + 15) & ~(size_t)15; \
    } while (0)
    NNC_MSM_CARVE(s->bk, AFF_, h + 1);
    NNC_MSM_CARVE(s->jbk, JAC_, h + 1);
    NNC_MSM_CARVE(s->jused, unsigned char, h + 1);
    NNC_MSM_CARVE(s->qp, AFF_, q);
    NNC_MSM_CARVE(s->dp, AFF_, q);
    NNC_MSM_CARVE(s->qd, FE_, q);
    NNC_MSM_CARVE(s->tmp, FE_, q);
    NNC_MSM_CARVE(s->stamp, uint32_t, h + 1);
    NNC_MSM_CARVE(s->qb, uint32_t, q);
    NNC_MSM_CARVE(s->db, uint32_t, q);
    NNC_MSM_CARVE(s->qdbl, unsigned char, q);
    NNC_MSM_CARVE(s->dn, unsigned char, q);
    NNC_MSM_CARVE(s->vscratch, unsigned char, NNC_MSM_VEC_SCRATCH(q));
    s->vec = vec;
#undef NNC_MSM_CARVE
}

/* Do the queued additions: bucket_b = bucket_b + P with
 * lambda = (y_P - y_B) / (x_P - x_B), or 3 x_B^2 / (2 y_B) for P = B,
 * x3 = lambda^2 - x_B - x_P, y3 = lambda (x_B - x3) - y_B. */
static void NNC_MSM_HOT P_(aff_flush)(P_(aff_scratch) *s)
{
    size_t k;
    FE_ lam, t, x3;
#ifdef NNC_MSM_VEC_FLUSH
    if (s->vec && s->nq > 0) {
        NNC_MSM_VEC_FLUSH(s->bk, s->qb, s->qp, s->qd, s->qdbl, s->nq, s->vscratch);
    } else
#endif
    if (s->nq > 0) {
        P_(inv_batch_var)(s->qd, s->qd, s->tmp, s->nq);
        for (k = 0; k < s->nq; k++) {
            AFF_ *B = &s->bk[s->qb[k]];
            const AFF_ *P = &s->qp[k];
            if (s->qdbl[k]) {
                F_(sqr)(&t, &B->x);
                F_(dbl)(&lam, &t);
                F_(add)(&t, &lam, &t);
            } else {
                F_(sub)(&t, &P->y, &B->y);
            }
            F_(mul)(&lam, &t, &s->qd[k]);
            F_(sqr)(&x3, &lam);
            F_(sub)(&x3, &x3, &B->x);
            F_(sub)(&x3, &x3, &P->x);
            F_(sub)(&t, &B->x, &x3);
            F_(mul)(&t, &t, &lam);
            F_(sub)(&B->y, &t, &B->y);
            B->x = x3;
        }
    }
    s->nq = 0;
    s->gen++;
    if (s->gen == 0) { /* wrapped after 2^32 batches: clear the stamps */
        size_t b;
        for (b = 0; b <= s->h; b++)
            s->stamp[b] = 0;
        s->gen = 1;
    }
}

/* Add P (not infinity) to bucket b, or queue it.
 * Returns: 0 if bucket b already has a queued addition (nothing done), else 1. */
static int P_(aff_add)(P_(aff_scratch) *s, uint32_t b, const AFF_ *P)
{
    AFF_ *B = &s->bk[b];
    size_t k;
    if (s->stamp[b] == s->gen)
        return 0;
    if (G_(aff_is_inf)(B)) {
        *B = *P;
        return 1;
    }
    k = s->nq;
    if (F_(eq)(&B->x, &P->x)) {
        if (!F_(eq)(&B->y, &P->y)) { /* P = -B */
            G_(aff_set_inf)(B);
            return 1;
        }
        F_(dbl)(&s->qd[k], &B->y); /* nonzero: the groups have no point of order 2 */
        s->qdbl[k] = 1;
    } else {
        F_(sub)(&s->qd[k], &P->x, &B->x);
        s->qdbl[k] = 0;
    }
    s->qb[k] = b;
    s->qp[k] = *P;
    s->stamp[b] = s->gen;
    s->nq = k + 1;
    return 1;
}

#ifdef NNC_MSM_VEC_REDUCE
/* The affine form of the n Jacobian points s->jbk[s->qb[k]] (none
 * infinity) into s->bk, sharing one inversion (the queue is empty: qb, qd
 * and tmp are free). */
static void NNC_MSM_HOT P_(fold_flush)(P_(aff_scratch) *s, size_t n)
{
    size_t k;
    FE_ t;
    if (n == 0)
        return;
    P_(inv_batch_var)(s->qd, s->qd, s->tmp, n);
    for (k = 0; k < n; k++) {
        const JAC_ *J = &s->jbk[s->qb[k]];
        AFF_ *B = &s->bk[s->qb[k]];
        F_(sqr)(&t, &s->qd[k]);
        F_(mul)(&B->x, &J->x, &t);
        F_(mul)(&t, &t, &s->qd[k]);
        F_(mul)(&B->y, &J->y, &t);
    }
}

/* bucket_b = bk[b] + jbk[b] as affine points in bk, for every b with
 * jused[b] (then cleared). */
static void P_(fold_jac)(P_(aff_scratch) *s)
{
    size_t b, n = 0;
    for (b = 1; b <= s->h; b++) {
        if (!s->jused[b])
            continue;
        s->jused[b] = 0;
        G_(jac_add_aff_var)(&s->jbk[b], &s->jbk[b], &s->bk[b]);
        if (G_(jac_is_inf)(&s->jbk[b])) {
            G_(aff_set_inf)(&s->bk[b]);
            continue;
        }
        s->qb[n] = (uint32_t)b;
        s->qd[n] = s->jbk[b].z;
        if (++n == s->cap) {
            P_(fold_flush)(s, n);
            n = 0;
        }
    }
    P_(fold_flush)(s, n);
}
#endif

/* Batches a deferred point may wait for its bucket before it is added to
 * the bucket's Jacobian part. */
#ifndef NNC_MSM_DEFER
#define NNC_MSM_DEFER 3
#endif

/* Points ahead whose bucket window_aff prefetches (the buckets of wide
 * windows do not stay in L1). */
#define NNC_MSM_PREFETCH 12

/* Window sum of window w over terms lo..hi-1 with affine buckets. */
static void P_(window_aff)(JAC_ *r, const uintptr_t *tp, const uint64_t *ks, int kl, size_t lo, size_t hi,
                           int w, int c, P_(aff_scratch) *s)
{
    size_t h = (size_t)1 << (c - 1), b, i = lo, k;
    AFF_ np;
    for (b = 0; b <= h; b++) {
        G_(aff_set_inf)(&s->bk[b]);
        s->stamp[b] = 0;
        s->jused[b] = 0;
    }
    s->gen = 1;
    s->nq = 0;
    s->nd = 0;
    while (i < hi || s->nd > 0) {
        /* deferred points first: each batch starts with none queued, so the
         * first deferred point of every bucket gets through; the others
         * for the same bucket wait again (kept in order, compacted in
         * place), up to NNC_MSM_DEFER batches, then go to its Jacobian part */
        size_t kept = 0;
        for (k = 0; k < s->nd; k++) {
            uint32_t db = s->db[k];
            if (P_(aff_add)(s, db, &s->dp[k]))
                continue;
            if (s->dn[k] < NNC_MSM_DEFER) {
                s->db[kept] = db;
                s->dp[kept] = s->dp[k];
                s->dn[kept] = (unsigned char)(s->dn[k] + 1);
                kept++;
            } else if (!s->jused[db]) {
                G_(aff_to_jac)(&s->jbk[db], &s->dp[k]);
                s->jused[db] = 1;
            } else {
                G_(jac_add_aff_var)(&s->jbk[db], &s->jbk[db], &s->dp[k]);
            }
        }
        s->nd = kept;
        while (i < hi && s->nq < s->cap && s->nd < s->cap) {
            int d = nnc_msm_digit_n(ks + i * (size_t)kl, kl, w, c);
            uintptr_t tg = tp[i];
            const AFF_ *P;
            if (i + NNC_MSM_PREFETCH < hi) { /* the bucket, stamp and point a few terms ahead */
                size_t a = i + NNC_MSM_PREFETCH;
                const char *q = (const char *)(tp[a] & ~(NNC_MSM_TAG_NEG | NNC_MSM_TAG_ENDO));
                int e = nnc_msm_digit_n(ks + a * (size_t)kl, kl, w, c);
                e = e < 0 ? -e : e;
                __builtin_prefetch(&s->bk[e]);
                __builtin_prefetch(&s->stamp[e]);
                __builtin_prefetch(q);
                __builtin_prefetch(q + sizeof(AFF_) - 1);
            }
            i++;
            if (d == 0) /* terms are never infinity */
                continue;
            P = P_(term_point)(&np, tg, d < 0);
            d = d < 0 ? -d : d;
            if (!P_(aff_add)(s, (uint32_t)d, P)) {
                s->db[s->nd] = (uint32_t)d;
                s->dp[s->nd] = *P;
                s->dn[s->nd] = 1;
                s->nd++;
            }
        }
        P_(aff_flush)(s);
    }
#ifdef NNC_MSM_VEC_REDUCE
    if (s->vec && h >= NNC_MSM_VEC_REDUCE_MIN) {
        P_(fold_jac)(s);
        NNC_MSM_VEC_REDUCE(r, s->bk, h);
        return;
    }
#endif
    P_(reduce_aff)(r, s->bk, s->jbk, s->jused, h);
}

/* *r = sum_i [k_i] P_i with window width 6 and buckets on the stack; one
 * thread, no allocation (scalars converted once per window). */
static void P_(msm_noheap)(JAC_ *r, const AFF_ *pts, const nnc_fr *sc, size_t n)
{
    enum { C = 6 };
    JAC_ bk[(1 << (C - 1)) + 1], ws;
    uint64_t k[4];
    AFF_ np;
    int w, j;
    size_t i;
    G_(jac_set_inf)(r);
    for (w = NNC_MSM_NWIN(C) - 1; w >= 0; w--) {
        for (j = 0; j < C; j++)
            G_(jac_dbl)(r, r);
        for (j = 0; j <= (1 << (C - 1)); j++)
            G_(jac_set_inf)(&bk[j]);
        for (i = 0; i < n; i++) {
            int d;
            nnc_fr_to_int(k, &sc[i]);
            d = nnc_msm_digit(k, w, C);
            if (d > 0) {
                G_(jac_add_aff_var)(&bk[d], &bk[d], &pts[i]);
            } else if (d < 0) {
                G_(aff_neg)(&np, &pts[i]);
                G_(jac_add_aff_var)(&bk[-d], &bk[-d], &np);
            }
        }
        P_(reduce_jac)(&ws, bk, (size_t)1 << (C - 1));
        G_(jac_add_var)(r, r, &ws);
    }
}

/* *r = sum_i [k_i] P_i, one wNAF multiplication per point. */
static void P_(msm_naive)(JAC_ *r, const AFF_ *pts, const nnc_fr *sc, size_t n)
{
    JAC_ t;
    uint64_t k[4];
    size_t i;
    G_(jac_set_inf)(r);
    for (i = 0; i < n; i++) {
        if (G_(aff_is_inf)(&pts[i]) || nnc_fr_is_zero(&sc[i]))
            continue;
        nnc_fr_to_int(k, &sc[i]);
        G_(aff_to_jac)(&t, &pts[i]);
        G_(jac_mul_var)(&t, &t, k);
        G_(jac_add_var)(r, r, &t);
    }
}

/* Returns: the bit length of the integer k (0 for k = 0). */
NNC_FORCEINLINE int P_(bitlen)(const uint64_t k[4])
{
    int i;
    for (i = 3; i >= 0; i--)
        if (k[i] != 0)
            return 64 * i + 64 - __builtin_clzll(k[i]);
    return 0;
}

/* The terms of input i: Out: ks[t] (canonical integers, nonzero), neg[t]
 * (apply -P), endo[t] (apply the endomorphism) for t < the count returned
 * (0 when k_i = 0 or P_i is infinity).  k is first replaced by r - k with
 * the sign flipped when k > (r-1)/2, so small negative scalars stay small;
 * on a group with an endomorphism a k of 129 bits or more is split by GLV. */
NNC_FORCEINLINE int P_(terms)(uint64_t ks[2][4], int neg[2], int endo[2], const AFF_ *p, const nnc_fr *sc,
                              int glv)
{
    static const uint64_t half[4] = {0xa1f0fac9f8000000ULL, 0x9419f4243cdcb848ULL, 0xdc2822db40c0ac2eULL,
                                     0x183227397098d014ULL}; /* (r-1)/2 */
    static const uint64_t rmod[4] = NNC_FR_MODULUS_INIT;
    uint64_t k[4];
    int s = 0;
    if (nnc_fr_is_zero(sc) || G_(aff_is_inf)(p))
        return 0;
    nnc_fr_to_int(k, sc);
    if (nnc_fe4_lt_mask(half, k) & 1) { /* k > (r-1)/2: use r - k and -P */
        uint64_t br = 0;
        br = nnc_sbb64(&k[0], rmod[0], k[0], br);
        br = nnc_sbb64(&k[1], rmod[1], k[1], br);
        br = nnc_sbb64(&k[2], rmod[2], k[2], br);
        (void)nnc_sbb64(&k[3], rmod[3], k[3], br);
        s = 1;
    }
#ifdef NNC_MSM_ENDO
    if (glv && (k[2] | k[3]) != 0) {
        uint64_t k1[2], k2[2];
        int n1, n2, t = 0;
        nnc_msm_glv_split(k1, &n1, k2, &n2, k);
        if ((k1[0] | k1[1]) != 0) {
            ks[t][0] = k1[0], ks[t][1] = k1[1], ks[t][2] = ks[t][3] = 0;
            neg[t] = s ^ n1, endo[t] = 0, t++;
        }
        if ((k2[0] | k2[1]) != 0) {
            ks[t][0] = k2[0], ks[t][1] = k2[1], ks[t][2] = ks[t][3] = 0;
            neg[t] = s ^ n2, endo[t] = 1, t++;
        }
        return t;
    }
#else
    (void)glv;
#endif
    memcpy(ks[0], k, sizeof k);
    neg[0] = s;
    endo[0] = 0;
    return 1;
}

/* Returns: 1 if splitting n full-size scalars by GLV (2n terms of 129
 * bits) is estimated cheaper than n terms of 255 bits, each at the window
 * nnc_msm_window picks for its term count: cost = terms * windows * 6
 * products (an affine bucket addition) + windows * 2^(c-1) * 27 (the
 * bucket sums, two Jacobian additions per bucket).  The window is clamped
 * at 16, so from about 2^19 points GLV only adds windows. */
/* The split's affine buckets (2^(c-1) points per thread) must fit in this:
 * past it their random accesses leave the L2 cache, which the estimate
 * below does not count.  G1 MSMs, 2 threads, GLV / plain time: 2^18 terms
 * (c 14 -> 15, 1 MiB of buckets) 1.47 on the IFMA path and 1.21 on AVX2,
 * 349525 terms 1.47 and 1.11; 2^14 to 2^17 terms (at most 512 KiB)
 * 0.95 to 1.18 (AVX-512 Xeon, 2 cores). */
#define NNC_MSM_GLV_BUCKET_BYTES ((size_t)512 << 10)
static int P_(glv_pays)(size_t n, int affine)
{
    int c1 = nnc_msm_window(n, affine), c2 = nnc_msm_window(2 * n, affine);
    if (affine && ((size_t)1 << (c2 - 1)) * sizeof(AFF_) > NNC_MSM_GLV_BUCKET_BYTES)
        return 0;
    double w1 = (255 + c1 - 1) / c1, w2 = (129 + c2 - 1) / c2;
    double plain = (double)n * w1 * 6 + w1 * (double)((size_t)1 << (c1 - 1)) * 27;
    double split = 2.0 * (double)n * w2 * 6 + w2 * (double)((size_t)1 << (c2 - 1)) * 27;
    return split < plain;
}

/* Inputs of an MSM: one or more runs of points and scalars, summed. */
typedef struct P_(seg) {
    const AFF_ *pts;
    const nnc_fr *sc;
    size_t n;
} P_(seg);

/* The preparation of the terms of inputs [lo, hi) (numbered across the
 * segments in order): with place = 0 count them by bit length into cnt[];
 * with place = 1 write them to tp/ks (kl limbs each), the next slot for bit
 * length L being cnt[L]. */
typedef struct P_(prep) {
    const P_(seg) *sg;
    int nseg;
    size_t lo, hi;
    int place;
    int glv;     /* split scalars of 129 bits or more by GLV */
    size_t cnt[257];
    uintptr_t *tp;
    uint64_t *ks;
    int kl;
} P_(prep);

#define NNC_MSM_PREP_MAX_THREADS 16
#define NNC_MSM_PREP_MIN_SHARE 4096 /* inputs per thread at least */

static void *P_(prep_run)(void *arg)
{
    P_(prep) *pr = (P_(prep) *)arg;
    size_t i, off = 0;
    int t, g;
    if (!pr->place)
        memset(pr->cnt, 0, sizeof pr->cnt);
    for (g = 0; g < pr->nseg; off += pr->sg[g].n, g++) {
        const AFF_ *pts = pr->sg[g].pts;
        const nnc_fr *sc = pr->sg[g].sc;
        size_t a = pr->lo > off ? pr->lo - off : 0, b = pr->hi - off;
        if (pr->hi <= off)
            break;
        if (b > pr->sg[g].n)
            b = pr->sg[g].n;
        for (i = a; i < b; i++) {
            uint64_t k[2][4];
            int neg[2], endo[2], nt = P_(terms)(k, neg, endo, &pts[i], &sc[i], pr->glv);
            for (t = 0; t < nt; t++) {
                size_t j;
                if (!pr->place) {
                    pr->cnt[P_(bitlen)(k[t])]++;
                    continue;
                }
                j = pr->cnt[P_(bitlen)(k[t])]++;
                memcpy(pr->ks + j * (size_t)pr->kl, k[t], sizeof(uint64_t) * (size_t)pr->kl);
                pr->tp[j] = (uintptr_t)&pts[i] | (neg[t] ? NNC_MSM_TAG_NEG : 0) | (endo[t] ? NNC_MSM_TAG_ENDO : 0);
            }
        }
    }
    return NULL;
}

/* prep_run on pr[0 .. T), one thread each (the caller takes pr[0]; a share
 * whose thread cannot start is done by the caller afterwards). */
static void P_(prep_all)(P_(prep) *pr, int T)
{
    pthread_t tid[NNC_MSM_PREP_MAX_THREADS];
    int ok[NNC_MSM_PREP_MAX_THREADS], t;
    for (t = 1; t < T; t++)
        ok[t] = pthread_create(&tid[t], NULL, P_(prep_run), &pr[t]) == 0;
    P_(prep_run)(&pr[0]);
    for (t = 1; t < T; t++) {
        if (ok[t])
            pthread_join(tid[t], NULL);
        else
            P_(prep_run)(&pr[t]);
    }
}

/* One Pippenger run over m prepared terms [ks_j] pts_j, sorted by the bit
 * length of ks_j, longest first: tasks (window, chunk of the terms whose
 * scalars reach the window) taken from a shared counter by the calling
 * thread and threads - 1 helpers. */
typedef struct P_(job) {
    const uintptr_t *tp;     /* tagged input points (see NNC_MSM_TAG_NEG) */
    const uint64_t *ks;      /* canonical scalars, kl limbs each */
    int kl;
    const size_t *above;     /* [257] above[L]: terms with scalar bit length >= L */
    int c, nwin, nchunk, affine;
    int vec;                   /* NNC_MSM_VEC_ON() */
    size_t scratch_bytes;      /* per thread */
    unsigned char *scratch;    /* threads * scratch_bytes */
    JAC_ *part;                /* [nwin * nchunk] window sums per chunk */
    pthread_mutex_t lock;
    int next;                  /* next task, under lock */
} P_(job);

typedef struct P_(worker) {
    P_(job) *job;
    int id;
} P_(worker);

static void *P_(work)(void *arg)
{
    P_(worker) *wk = (P_(worker) *)arg;
    P_(job) *jb = wk->job;
    unsigned char *mem = jb->scratch + (size_t)wk->id * jb->scratch_bytes;
    P_(aff_scratch) s;
    int ntask = jb->nwin * jb->nchunk;
    if (jb->affine)
        P_(aff_scratch_init)(&s, mem, jb->c, jb->vec);
    for (;;) {
        int t, w, ch, lw;
        size_t lo, hi, nw;
        pthread_mutex_lock(&jb->lock);
        t = jb->next++;
        pthread_mutex_unlock(&jb->lock);
        if (t >= ntask)
            break;
        w = t / jb->nchunk; /* window-major: one window's chunks run together */
        ch = t % jb->nchunk;
        /* window w reads bits cw-1 .. : only terms of bit length >= cw */
        lw = w * jb->c;
        nw = jb->above[lw > 256 ? 256 : lw];
        lo = nw * (size_t)ch / (size_t)jb->nchunk;
        hi = nw * (size_t)(ch + 1) / (size_t)jb->nchunk;
        if (jb->affine)
            P_(window_aff)(&jb->part[t], jb->tp, jb->ks, jb->kl, lo, hi, w, jb->c, &s);
        else
            P_(window_jac)(&jb->part[t], jb->tp, jb->ks, jb->kl, lo, hi, w, jb->c, (JAC_ *)(void *)mem);
    }
    return NULL;
}

/* *r = sum_i [sc_i] P_i over the n inputs of the nseg segments, by
 * Pippenger.  c: the window width, 0 for the automatic choice by the
 * number of terms.  Returns: 0 when memory ran out (nothing computed),
 * else 1. */
static int P_(msm_pippenger)(JAC_ *r, const P_(seg) *sg, int nseg, size_t n, int threads, int affine, int c,
                             int glv)
{
    P_(job) jb;
    P_(worker) *wk = NULL;
    pthread_t *tid = NULL;
    uint64_t *ks = NULL;
    uintptr_t *tp = NULL;
    size_t cap, m = 0, above[258];
    int w, ch, t, L, pt, started = 0, ntask, maxlen = 0, kl = 4;
    P_(prep) prep[NNC_MSM_PREP_MAX_THREADS];

    /* count the terms by bit length, then place them longest first; both
     * passes split over the threads (a share's slots of each length follow
     * those of the shares before it) */
    pt = threads > NNC_MSM_PREP_MAX_THREADS ? NNC_MSM_PREP_MAX_THREADS : threads;
    if ((size_t)pt > n / NNC_MSM_PREP_MIN_SHARE)
        pt = n / NNC_MSM_PREP_MIN_SHARE > 0 ? (int)(n / NNC_MSM_PREP_MIN_SHARE) : 1;
    for (t = 0; t < pt; t++) {
        prep[t].sg = sg;
        prep[t].nseg = nseg;
        prep[t].lo = n * (size_t)t / (size_t)pt;
        prep[t].hi = n * (size_t)(t + 1) / (size_t)pt;
        prep[t].place = 0;
        prep[t].glv = glv;
    }
    P_(prep_all)(prep, pt);
    memset(above, 0, sizeof above);
    for (t = 0; t < pt; t++)
        for (L = 0; L <= 256; L++)
            above[L] += prep[t].cnt[L];
    for (L = 256; L >= 0; L--)
        m += above[L];
    G_(jac_set_inf)(r);
    if (m == 0)
        return 1;
    for (L = 256; L >= 0; L--) {
        size_t slot = above[L + 1]; /* first slot of length L = terms longer than L */
        for (t = 0; t < pt; t++) {
            size_t cnt = prep[t].cnt[L];
            prep[t].cnt[L] = slot;
            slot += cnt;
        }
        above[L] += above[L + 1];
        if (maxlen == 0 && above[L] > 0)
            maxlen = L;
    }
#ifdef NNC_MSM_ENDO
    if (glv)
        kl = 2; /* every term below 2^128 (P_(terms)) */
#endif
    ks = (uint64_t *)malloc(m * (size_t)kl * sizeof *ks);
    tp = (uintptr_t *)malloc(m * sizeof *tp);
    if (!ks || !tp) {
        free(ks);
        free(tp);
        return 0;
    }
    for (t = 0; t < pt; t++) {
        prep[t].tp = tp;
        prep[t].ks = ks;
        prep[t].kl = kl;
        prep[t].place = 1;
    }
    P_(prep_all)(prep, pt);

    if (c <= 0 || c > NNC_MSM_MAX_WINDOW)
        c = nnc_msm_window(m, affine);
    memset(&jb, 0, sizeof jb);
    jb.tp = tp;
    jb.ks = ks;
    jb.kl = kl;
    jb.above = above;
    jb.c = c;
    /* digits up to bit maxlen (zero there) make the sum telescope */
    jb.nwin = (maxlen + 1 + c - 1) / c;
    jb.affine = affine;
    jb.vec = affine && NNC_MSM_VEC_ON();
    /* enough tasks for every thread to stay busy: >= 2 per thread */
    jb.nchunk = 1;
    if (threads > 1)
        jb.nchunk = (2 * threads + jb.nwin - 1) / jb.nwin;
    if ((size_t)jb.nchunk > m)
        jb.nchunk = (int)m;
    ntask = jb.nwin * jb.nchunk;
    if (threads > ntask)
        threads = ntask;
    jb.scratch_bytes = affine ? P_(aff_scratch_bytes)(c, &cap)
                              : (((size_t)1 << (c - 1)) + 1) * sizeof(JAC_);
    jb.scratch_bytes = (jb.scratch_bytes + 63) & ~(size_t)63;

    jb.part = (JAC_ *)malloc((size_t)ntask * sizeof(JAC_));
    while (threads > 1 && !(jb.scratch = (unsigned char *)malloc((size_t)threads * jb.scratch_bytes)))
        threads /= 2;
    if (!jb.scratch)
        jb.scratch = (unsigned char *)malloc(jb.scratch_bytes);
    if (threads > 1) {
        wk = (P_(worker) *)malloc((size_t)threads * sizeof *wk);
        tid = (pthread_t *)malloc((size_t)threads * sizeof *tid);
    }
    if (!jb.part || !jb.scratch || (threads > 1 && (!wk || !tid))) {
        free(ks);
        free(tp);
        free(jb.part);
        free(jb.scratch);
        free(wk);
        free(tid);
        return 0;
    }
    pthread_mutex_init(&jb.lock, NULL);

    if (threads > 1) {
        for (t = 1; t < threads; t++) {
            wk[t].job = &jb;
            wk[t].id = t;
            if (pthread_create(&tid[t], NULL, P_(work), &wk[t]) != 0)
                break; /* the threads started so far and this one do the rest */
            started = t;
        }
        wk[0].job = &jb;
        wk[0].id = 0;
        P_(work)(&wk[0]);
        for (t = 1; t <= started; t++)
            pthread_join(tid[t], NULL);
    } else {
        P_(worker) w0;
        w0.job = &jb;
        w0.id = 0;
        P_(work)(&w0);
    }
    pthread_mutex_destroy(&jb.lock);

    /* r = sum_w 2^(c w) sum_chunks part, by Horner from the top window */
    for (w = jb.nwin - 1; w >= 0; w--) {
        if (!G_(jac_is_inf)(r))
            for (t = 0; t < c; t++)
                G_(jac_dbl)(r, r);
        for (ch = 0; ch < jb.nchunk; ch++)
            G_(jac_add_var)(r, r, &jb.part[w * jb.nchunk + ch]);
    }
    free(ks);
    free(tp);
    free(jb.part);
    free(jb.scratch);
    free(wk);
    free(tid);
    return 1;
}

#ifndef NNC_MSM_RUN_BYTES
/* A Pippenger run lists its terms (a tagged reference to the point and the
 * scalar, 8 + 32 bytes, or two terms of 8 + 16 under GLV), sorted by
 * length: at most this many bytes of them, so that an MSM's memory beyond
 * its inputs stays bounded whatever its size.  A larger MSM is the sum of
 * equal runs over consecutive terms: the same group element; smaller runs
 * cost more bucket sums.  (When the runs held copies of the points, 64
 * more bytes a term: a 2^20-constraint proof, AVX-512 Xeon, 2 threads,
 * unsplit C+H run of 2^21 terms 192 MiB, peak 750 MiB, 3.1-3.5 s; runs of
 * 128 MiB: peak 665 MiB, 3.25-3.35 s; 64 MiB: 4.9-5.2 s, when runs of
 * 2^18.4 G1 terms still took the GLV split, NNC_MSM_GLV_BUCKET_BYTES.) */
#define NNC_MSM_RUN_BYTES ((size_t)128 << 20)
#endif

/* One Pippenger run over the n terms of sg, GLV as the method and n call
 * for.  Returns: 0 when memory ran out. */
static int P_(msm_run)(JAC_ *r, const P_(seg) *sg, int nseg, size_t n, int threads, nnc_msm_method method, int c)
{
    int affine = method != NNC_MSM_METHOD_JAC;
    return P_(msm_pippenger)(r, sg, nseg, n, threads, affine, c,
                             method != NNC_MSM_METHOD_AFFINE_PLAIN && P_(glv_pays)(n, affine));
}

/* *r = the sum over the terms of the nseg segments, by Pippenger runs of
 * at most `per` terms each.  Returns: 0 when memory ran out (r unset). */
static int P_(msm_runs)(JAC_ *r, const P_(seg) *sg, int nseg, size_t n, size_t per, int threads, nnc_msm_method method,
                        int c)
{
    int g = 0, ns;
    size_t off = 0;
    P_(seg) sub[8];
    if (n <= per || nseg > 8)
        return P_(msm_run)(r, sg, nseg, n, threads, method, c);
    per = (n + (n + per - 1) / per - 1) / ((n + per - 1) / per); /* runs of equal size, none left over small */
    G_(jac_set_inf)(r);
    while (g < nseg) {
        size_t tot = 0;
        JAC_ t;
        /* the next up to per terms, across the segments in order */
        for (ns = 0; g < nseg && tot < per; ns++) {
            size_t take = sg[g].n - off < per - tot ? sg[g].n - off : per - tot;
            sub[ns].pts = sg[g].pts + off;
            sub[ns].sc = sg[g].sc + off;
            sub[ns].n = take;
            tot += take;
            off += take;
            if (off == sg[g].n)
                g++, off = 0;
        }
        if (tot == 0)
            continue;
        if (!P_(msm_run)(&t, sub, ns, tot, threads, method, c))
            return 0;
        G_(jac_add_var)(r, r, &t);
    }
    return 1;
}

/* The entry point for one group: *out = the sum of the MSMs of the nseg
 * segments (Pippenger runs over all of them together, each within
 * NNC_MSM_RUN_BYTES), method and window chosen by the total size when
 * 0/AUTO (the window by each run's size). */
static void P_(msm_segs)(AFF_ *out, const P_(seg) *sg, int nseg, int threads, nnc_msm_method method, int c)
{
    JAC_ r, t;
    size_t n = 0;
    int g;
    for (g = 0; g < nseg; g++)
        n += sg[g].n;
    if (n == 0) {
        G_(aff_set_inf)(out);
        return;
    }
    if (threads <= 0)
        threads = nnc_msm_default_threads();
    if (method == NNC_MSM_METHOD_AUTO)
        method = n < NNC_MSM_NAIVE_BELOW ? NNC_MSM_METHOD_NAIVE
                 : n < NNC_MSM_AFFINE_FROM ? NNC_MSM_METHOD_JAC : NNC_MSM_METHOD_AFFINE;
    /* inputs per run: their terms within the budget (at most 2 x (8 + 16)
     * bytes an input under GLV, 8 + 32 without) */
    size_t per = NNC_MSM_RUN_BYTES / (2 * sizeof(uintptr_t) + 4 * sizeof(uint64_t));
    if (nnc_msm_run_terms > 0)
        per = nnc_msm_run_terms;
    else if (per < 4096)
        per = 4096;
    if (method != NNC_MSM_METHOD_NAIVE && method != NNC_MSM_METHOD_NOHEAP &&
        P_(msm_runs)(&r, sg, nseg, n, per, threads, method, c)) {
        G_(jac_to_aff_var)(out, &r);
        return;
    }
    /* one segment at a time: naive, no heap, or Pippenger out of memory */
    G_(jac_set_inf)(&r);
    for (g = 0; g < nseg; g++) {
        if (method == NNC_MSM_METHOD_NAIVE)
            P_(msm_naive)(&t, sg[g].pts, sg[g].sc, sg[g].n);
        else
            P_(msm_noheap)(&t, sg[g].pts, sg[g].sc, sg[g].n);
        G_(jac_add_var)(&r, &r, &t);
    }
    G_(jac_to_aff_var)(out, &r);
}

/* One segment. */
static void P_(msm)(AFF_ *out, const AFF_ *pts, const nnc_fr *sc, size_t n, int threads, nnc_msm_method method,
                    int c)
{
    P_(seg) sg;
    sg.pts = pts;
    sg.sc = sc;
    sg.n = n;
    P_(msm_segs)(out, &sg, 1, threads, method, c);
}

#undef G_
#undef F_
#undef FE_
#undef AFF_
#undef JAC_
#undef P_
#ifndef NNC_MSM_VEC_FLUSH
#undef NNC_MSM_VEC_ON
#undef NNC_MSM_VEC_SCRATCH
#endif

#endif /* NNC_MSM_G */
