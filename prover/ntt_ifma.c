/* The 8-lane NTT kernels over Fr with AVX-512 IFMA: see prover/ntt_ifma.h
 * for the layout and the transform, prover/ifma_impl.h for the arithmetic.
 * Bounds: loads are canonical (< r), sums, differences and products stay
 * below 2r (prover/ifma_impl.h), and every store is made canonical. */
#include "prover/ntt_ifma.h"

#include <stdlib.h>
#include <string.h>

#include "prover/fq_ifma.h"
#include "prover/ntt_impl.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(NNC_NO_IFMA_BUILD)
#define NNC_IFMA_BUILD 1
#endif

void nnc_ntt_ifma_scaled(uint64_t out[5], const nnc_fr *x)
{
    nnc_fr s16, y;
    nnc_fr_set_u64(&s16, 16);
    nnc_fr_mul(&y, x, &s16); /* 4x64 bits of 16 x 2^256 = x 2^260 */
    nnc_ifma_split52(out, y.v);
}

void nnc_ntt_ifma_vec_set(nnc_ntt_ifma_vec *v, const nnc_fr x[8])
{
    int i, j;
    for (i = 0; i < 8; i++) {
        uint64_t t[5];
        nnc_ntt_ifma_scaled(t, &x[i]);
        for (j = 0; j < 5; j++)
            v->l[j][i] = t[j];
    }
}

#ifdef NNC_IFMA_BUILD

#include "prover/ifma_impl.h"

IFMA_INLINE v5 fr_mul(const v5 *a, const v5 *b) { return ifma_mulm(a, b, &IFMA_FR); }
IFMA_INLINE v5 fr_add(const v5 *a, const v5 *b) { return ifma_addm(a, b, &IFMA_FR); }
IFMA_INLINE v5 fr_sub(const v5 *a, const v5 *b) { return ifma_subm(a, b, &IFMA_FR); }

/* lane i of index vector: rho(i) * 4, the word offset of element rho(i) of
 * 8 consecutive 4x64 elements (rho: 3-bit reversal) */
#define NTT_RHO4 _mm512_set_epi64(28, 12, 20, 4, 24, 8, 16, 0)

IFMA_INLINE v5 v_ld(const v5 *p)
{
    v5 r;
    int j;
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++)
        r.l[j] = _mm512_load_si512((const void *)&p->l[j]);
    return r;
}

IFMA_INLINE void v_st(v5 *p, const v5 *a)
{
    int j;
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++)
        _mm512_store_si512((void *)&p->l[j], a->l[j]);
}

IFMA_INLINE v5 v_const(const nnc_ntt_ifma_vec *c)
{
    v5 r;
    int j;
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++)
        r.l[j] = _mm512_loadu_si512((const void *)c->l[j]);
    return r;
}

/* The same scaled twiddle in every lane. */
IFMA_INLINE v5 v_bcast(const uint64_t t[5])
{
    v5 r;
    int j;
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++)
        r.l[j] = _mm512_set1_epi64((long long)t[j]);
    return r;
}

/* Column from a[8 q .. 8 q + 7], lane i = a[8 q + rho(i)]. */
IFMA_INLINE v5 col_load(const nnc_fr *a8) { return ifma_load8_idx(a8->v, NTT_RHO4); }

/* a[8 q + rho(i)] = lane i of x (made canonical). */
IFMA_INLINE void col_store(nnc_fr *a8, v5 x)
{
    x = ifma_canonm(x, &IFMA_FR);
    ifma_store8_idx(a8->v, NTT_RHO4, &x);
}

/* (u, v) <- (u + t v, u - t v); t = 1 when tw is NULL. */
IFMA_INLINE void bfly_dit(v5 *u, v5 *v, const uint64_t *tw)
{
    v5 x = *v, a = *u;
    if (tw) {
        v5 t = v_bcast(tw);
        x = fr_mul(&x, &t);
    }
    *u = fr_add(&a, &x);
    *v = fr_sub(&a, &x);
}

/* (u, v) <- (u + v, (u - v) t); t = 1 when tw is NULL. */
IFMA_INLINE void bfly_dif(v5 *u, v5 *v, const uint64_t *tw)
{
    v5 a = *u, b = *v, d = fr_sub(&a, &b);
    *u = fr_add(&a, &b);
    if (tw) {
        v5 t = v_bcast(tw);
        d = fr_mul(&d, &t);
    }
    *v = d;
}

/* One radix-2 stage of an 8-point transform across the lanes of x: pairs
 * (l, l + s) for the lanes l with bit s clear, s = 1, 2, 4; t (upper
 * lanes: the pair's twiddle, lower lanes: 1) or NULL for t = 1.
 * dit: (u, v) <- (u + t v, u - t v); else (u, v) <- (u + v, (u - v) t). */
IFMA_INLINE v5 lanes_stage(v5 x, int s, const v5 *t, int dit)
{
    static const long long lo_idx[3][8] = {{0, 0, 2, 2, 4, 4, 6, 6}, {0, 1, 0, 1, 4, 5, 4, 5},
                                           {0, 1, 2, 3, 0, 1, 2, 3}};
    static const __mmask8 hi_mask[3] = {0xaa, 0xcc, 0xf0};
    int k = s == 1 ? 0 : s == 2 ? 1 : 2, j;
    __m512i il = _mm512_loadu_si512((const void *)lo_idx[k]);
    __m512i ih = _mm512_add_epi64(il, _mm512_set1_epi64(s));
    __mmask8 hm = hi_mask[k];
    v5 y = x, u, v, a, d, r;
    if (dit && t)
        y = fr_mul(&x, t);
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++) {
        u.l[j] = _mm512_permutexvar_epi64(il, x.l[j]);
        v.l[j] = _mm512_permutexvar_epi64(ih, y.l[j]);
    }
    a = fr_add(&u, &v);
    d = fr_sub(&u, &v);
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++)
        r.l[j] = _mm512_mask_blend_epi64(hm, a.l[j], d.l[j]);
    if (!dit && t)
        r = fr_mul(&r, t);
    return r;
}

IFMA_FN void nnc_ntt_ifma_stage(void *buf, size_t h, size_t k0, size_t k1, const uint64_t (*tw)[5], int dif)
{
    v5 *B = (v5 *)buf;
    size_t k;
    for (k = k0; k < k1; k++) {
        size_t j = k & (h - 1), c = ((k - j) << 1) + j;
        v5 u = v_ld(&B[c]), v = v_ld(&B[c + h]);
        if (dif)
            bfly_dif(&u, &v, j ? tw[h + j] : NULL);
        else
            bfly_dit(&u, &v, j ? tw[h + j] : NULL);
        v_st(&B[c], &u);
        v_st(&B[c + h], &v);
    }
}

IFMA_FN void nnc_ntt_ifma_load_dit(void *buf, const nnc_fr *a, int lm, size_t c0, size_t c1, int lb,
                                   const uint64_t (*tw)[5])
{
    v5 *B = (v5 *)buf;
    size_t L = (size_t)1 << lb, base, c, h;
    for (base = c0; base < c1; base += L) {
        for (c = base; c < base + L; c++) {
            v5 x = col_load(a + 8 * nnc_ntt_bitrev(c, lm));
            v_st(&B[c], &x);
        }
        for (h = 1; h < L; h *= 2)
            nnc_ntt_ifma_stage(B + base, h, 0, L / 2, tw, 0);
    }
}

IFMA_FN void nnc_ntt_ifma_middle(void *buf, size_t c0, size_t c1, const nnc_ntt_ifma_mid *mid)
{
    v5 *B = (v5 *)buf;
    v5 w1 = v_const(&mid->w1), d1 = v_const(&mid->d1), s = v_const(&mid->s), ds = v_const(&mid->ds),
       w2 = v_const(&mid->w2), d2 = v_const(&mid->d2), ti2 = v_const(&mid->ti2), ti4 = v_const(&mid->ti4),
       tf2 = v_const(&mid->tf2), tf4 = v_const(&mid->tf4);
    size_t c;
    for (c = c0; c < c1; c++) {
        v5 x = v_ld(&B[c]);
        /* inverse: lane twiddles, then the 8-point transform (bit-reversed
         * lanes in, natural out) */
        x = fr_mul(&x, &w1);
        x = lanes_stage(x, 1, NULL, 1);
        x = lanes_stage(x, 2, &ti2, 1);
        x = lanes_stage(x, 4, &ti4, 1);
        /* lane q: n a_k, k = c + m q: times g^k / n */
        x = fr_mul(&x, &s);
        /* forward: the 8-point transform (natural in, bit-reversed out),
         * then the lane twiddles */
        x = lanes_stage(x, 4, &tf4, 0);
        x = lanes_stage(x, 2, &tf2, 0);
        x = lanes_stage(x, 1, NULL, 0);
        x = fr_mul(&x, &w2);
        v_st(&B[c], &x);
        w1 = fr_mul(&w1, &d1);
        s = fr_mul(&s, &ds);
        w2 = fr_mul(&w2, &d2);
    }
}

IFMA_FN void nnc_ntt_ifma_dif_store(nnc_fr *a, void *buf, int lm, size_t c0, size_t c1, int lb,
                                    const uint64_t (*tw)[5])
{
    v5 *B = (v5 *)buf;
    size_t L = (size_t)1 << lb, base, c, h;
    for (base = c0; base < c1; base += L) {
        for (h = L / 2; h >= 1; h /= 2)
            nnc_ntt_ifma_stage(B + base, h, 0, L / 2, tw, 1);
        for (c = base; c < base + L; c++)
            col_store(a + 8 * nnc_ntt_bitrev(c, lm), v_ld(&B[c]));
    }
}

#else /* no IFMA code in this build */

void nnc_ntt_ifma_load_dit(void *buf, const nnc_fr *a, int lm, size_t c0, size_t c1, int lb,
                           const uint64_t (*tw)[5])
{
    (void)buf, (void)a, (void)lm, (void)c0, (void)c1, (void)lb, (void)tw;
    abort();
}

void nnc_ntt_ifma_stage(void *buf, size_t h, size_t k0, size_t k1, const uint64_t (*tw)[5], int dif)
{
    (void)buf, (void)h, (void)k0, (void)k1, (void)tw, (void)dif;
    abort();
}

void nnc_ntt_ifma_middle(void *buf, size_t c0, size_t c1, const nnc_ntt_ifma_mid *mid)
{
    (void)buf, (void)c0, (void)c1, (void)mid;
    abort();
}

void nnc_ntt_ifma_dif_store(nnc_fr *a, void *buf, int lm, size_t c0, size_t c1, int lb,
                            const uint64_t (*tw)[5])
{
    (void)a, (void)buf, (void)lm, (void)c0, (void)c1, (void)lb, (void)tw;
    abort();
}

#endif
