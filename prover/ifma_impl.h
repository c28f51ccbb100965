/* 8-lane arithmetic modulo a BN254 prime (p for Fq, r for Fr) with
 * AVX-512 IFMA: the representation, products, sums, differences and the
 * conversions from and to the 4x64 form of prover/field_impl.h.  Shared by
 * prover/fq_ifma.c (G1 bucket additions over Fq) and prover/ntt_ifma.c (the
 * NTT over Fr).  Host code only, included after <immintrin.h> by files that
 * define NNC_IFMA_BUILD; every function is compiled for the IFMA target by
 * attribute, so callers dispatch at run time (nnc_fq_ifma_enabled).
 *
 * An element is 5 limbs of 52 bits, limb j of the 8 lanes in one 512-bit
 * register, holding v = a * 2^260 mod q (Montgomery radix 2^260).  The 4x64
 * form elsewhere holds a * 2^256 mod q: the same bits read as a vector
 * element stand for a / 16, and a vector product of such bits by the
 * vector bits of c * 2^260 ("scaled" c) gives the 4x64 bits of a c. */
#ifndef NNC_PRV_IFMA_IMPL_H
#define NNC_PRV_IFMA_IMPL_H

#include <stdint.h>
#include <immintrin.h>

#define IFMA_FN __attribute__((target("avx512f,avx512ifma,avx512vl")))
#define IFMA_INLINE static inline __attribute__((always_inline, target("avx512f,avx512ifma,avx512vl")))

#define M52 0xfffffffffffffULL

/* An element of each of 8 lanes: limb j (< 2^52) of lane i in l[j] lane i. */
typedef struct v5 { __m512i l[5]; } v5;

/* A modulus q < 2^254 (the BN254 p or r): q and 2q in 5 limbs of 52 bits,
 * n0 = -q^-1 mod 2^52. */
typedef struct ifma_mod {
    uint64_t q[5], q2[5], n0;
} ifma_mod;

/* BN254 Fq (p) and Fr (r); tests/unit/test_prover_ifma.c checks every
 * limb against GMP. */
static const ifma_mod IFMA_FQ = {{0x8c16d87cfd47ULL, 0x916871ca8d3c2ULL, 0x181585d97816aULL, 0xa029b85045b68ULL,
                                  0x30644e72e131ULL},
                                 {0x1182db0f9fa8eULL, 0x22d0e3951a784ULL, 0x302b0bb2f02d5ULL, 0x405370a08b6d0ULL,
                                  0x60c89ce5c263ULL},
                                 0x20782e4866389ULL};
static const ifma_mod IFMA_FR = {{0x1f593f0000001ULL, 0x4879b9709143eULL, 0x181585d2833e8ULL, 0xa029b85045b68ULL,
                                  0x30644e72e131ULL},
                                 {0x3eb27e0000002ULL, 0x90f372e12287cULL, 0x302b0ba5067d0ULL, 0x405370a08b6d0ULL,
                                  0x60c89ce5c263ULL},
                                 0x1f593efffffffULL};

IFMA_INLINE __m512i ifma_bc(uint64_t x) { return _mm512_set1_epi64((long long)x); }

/* r = a - q if a >= q else a, for a < 2^260 with limbs < 2^52 (normalized)
 * and q (its limbs in qv) the modulus or twice it. */
IFMA_INLINE v5 ifma_csub(v5 a, const uint64_t qv[5])
{
    v5 d;
    const __m512i m = ifma_bc(M52);
    __m512i c;
    __mmask8 neg;
    int j;
    c = _mm512_setzero_si512();
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++) {
        __m512i x = _mm512_add_epi64(_mm512_sub_epi64(a.l[j], ifma_bc(qv[j])), c);
        c = _mm512_srai_epi64(x, 52); /* 0 or -1 */
        d.l[j] = j < 4 ? _mm512_and_si512(x, m) : x;
    }
    neg = _mm512_cmplt_epi64_mask(d.l[4], _mm512_setzero_si512()); /* a < q: keep a */
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++)
        d.l[j] = _mm512_mask_blend_epi64(neg, d.l[j], a.l[j]);
    return d;
}

/* The canonical form (< q) of a < 2q. */
IFMA_INLINE v5 ifma_canonm(v5 a, const ifma_mod *M) { return ifma_csub(a, M->q); }

/* Vector elements between operations are only weakly reduced: v < 2q,
 * limbs normalized (< 2^52); loads are canonical, and ifma_canon makes
 * every stored result canonical.
 *
 * Montgomery product r = a b 2^-260 mod q, limbs normalized, r < 2q.
 * In: a, b < 2^256 (limbs < 2^52): r < a b / 2^260 + q < 2^252 + q < 2q
 * (both BN254 moduli exceed 2^253),
 * no final subtraction.  Operand scanning: after round i
 * the accumulator t0..t5 (64-bit limbs, each a sum of at most 22 terms
 * below 2^52, so below 2^57) holds (a (b_0..b_i) + m q) / 2^(52 (i+1)). */
IFMA_INLINE v5 ifma_mulm(const v5 *a, const v5 *b, const ifma_mod *M)
{
    const __m512i z = _mm512_setzero_si512(), m = ifma_bc(M52), n0 = ifma_bc(M->n0);
    const __m512i p0 = ifma_bc(M->q[0]), p1 = ifma_bc(M->q[1]), p2 = ifma_bc(M->q[2]), p3 = ifma_bc(M->q[3]),
                  p4 = ifma_bc(M->q[4]);
    __m512i t0 = z, t1 = z, t2 = z, t3 = z, t4 = z, t5 = z, q, bi;
    v5 r;
    int i;
    _Pragma("GCC unroll 8")
    for (i = 0; i < 5; i++) {
        bi = b->l[i];
        t0 = _mm512_madd52lo_epu64(t0, a->l[0], bi);
        t1 = _mm512_madd52lo_epu64(t1, a->l[1], bi);
        t2 = _mm512_madd52lo_epu64(t2, a->l[2], bi);
        t3 = _mm512_madd52lo_epu64(t3, a->l[3], bi);
        t4 = _mm512_madd52lo_epu64(t4, a->l[4], bi);
        t1 = _mm512_madd52hi_epu64(t1, a->l[0], bi);
        t2 = _mm512_madd52hi_epu64(t2, a->l[1], bi);
        t3 = _mm512_madd52hi_epu64(t3, a->l[2], bi);
        t4 = _mm512_madd52hi_epu64(t4, a->l[3], bi);
        t5 = _mm512_madd52hi_epu64(t5, a->l[4], bi);
        q = _mm512_madd52lo_epu64(z, t0, n0); /* t0 + m q0 = 0 mod 2^52 */
        t0 = _mm512_madd52lo_epu64(t0, q, p0);
        t1 = _mm512_madd52lo_epu64(t1, q, p1);
        t2 = _mm512_madd52lo_epu64(t2, q, p2);
        t3 = _mm512_madd52lo_epu64(t3, q, p3);
        t4 = _mm512_madd52lo_epu64(t4, q, p4);
        t1 = _mm512_madd52hi_epu64(t1, q, p0);
        t2 = _mm512_madd52hi_epu64(t2, q, p1);
        t3 = _mm512_madd52hi_epu64(t3, q, p2);
        t4 = _mm512_madd52hi_epu64(t4, q, p3);
        t5 = _mm512_madd52hi_epu64(t5, q, p4);
        t0 = _mm512_add_epi64(t1, _mm512_srli_epi64(t0, 52));
        t1 = t2;
        t2 = t3;
        t3 = t4;
        t4 = t5;
        t5 = z;
    }
    /* value < 2^252 + q < 2q: normalize the limbs */
    t1 = _mm512_add_epi64(t1, _mm512_srli_epi64(t0, 52));
    r.l[0] = _mm512_and_si512(t0, m);
    t2 = _mm512_add_epi64(t2, _mm512_srli_epi64(t1, 52));
    r.l[1] = _mm512_and_si512(t1, m);
    t3 = _mm512_add_epi64(t3, _mm512_srli_epi64(t2, 52));
    r.l[2] = _mm512_and_si512(t2, m);
    t4 = _mm512_add_epi64(t4, _mm512_srli_epi64(t3, 52));
    r.l[3] = _mm512_and_si512(t3, m);
    r.l[4] = t4;
    return r;
}

/* r = a + b mod q, r < 2q.  In: a, b < 2q. */
IFMA_INLINE v5 ifma_addm(const v5 *a, const v5 *b, const ifma_mod *M)
{
    const __m512i m = ifma_bc(M52);
    __m512i c = _mm512_setzero_si512();
    v5 s;
    int j;
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++) {
        __m512i x = _mm512_add_epi64(_mm512_add_epi64(a->l[j], b->l[j]), c);
        c = _mm512_srli_epi64(x, 52);
        s.l[j] = j < 4 ? _mm512_and_si512(x, m) : x;
    }
    return ifma_csub(s, M->q2);
}

/* r = a - b mod q, r < 2q.  In: a, b < 2q. */
IFMA_INLINE v5 ifma_subm(const v5 *a, const v5 *b, const ifma_mod *M)
{
    const __m512i m = ifma_bc(M52);
    __m512i c = _mm512_setzero_si512();
    __mmask8 neg;
    v5 d;
    int j;
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++) {
        __m512i x = _mm512_add_epi64(_mm512_sub_epi64(a->l[j], b->l[j]), c);
        c = _mm512_srai_epi64(x, 52); /* 0 or -1 */
        d.l[j] = j < 4 ? _mm512_and_si512(x, m) : x;
    }
    neg = _mm512_cmplt_epi64_mask(d.l[4], _mm512_setzero_si512()); /* a < b: add 2q */
    c = _mm512_setzero_si512();
    _Pragma("GCC unroll 8")
    for (j = 0; j < 5; j++) {
        __m512i x = _mm512_add_epi64(_mm512_mask_add_epi64(d.l[j], neg, d.l[j], ifma_bc(M->q2[j])), c);
        c = _mm512_srai_epi64(x, 52);
        d.l[j] = j < 4 ? _mm512_and_si512(x, m) : x;
    }
    return d;
}

/* 5x52 limbs from the 4x64 limbs l0..l3 of the 8 lanes (any value < 2^256). */
IFMA_INLINE v5 ifma_from64(__m512i l0, __m512i l1, __m512i l2, __m512i l3)
{
    const __m512i m = ifma_bc(M52);
    v5 r;
    r.l[0] = _mm512_and_si512(l0, m);
    r.l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(l0, 52), _mm512_slli_epi64(l1, 12)), m);
    r.l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(l1, 40), _mm512_slli_epi64(l2, 24)), m);
    r.l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(l2, 28), _mm512_slli_epi64(l3, 36)), m);
    r.l[4] = _mm512_srli_epi64(l3, 16);
    return r;
}

/* The 4x64 limbs l[0..3] of a normalized element (limbs < 2^52, < 2^256). */
IFMA_INLINE void ifma_to64(__m512i l[4], const v5 *a)
{
    l[0] = _mm512_or_si512(a->l[0], _mm512_slli_epi64(a->l[1], 52));
    l[1] = _mm512_or_si512(_mm512_srli_epi64(a->l[1], 12), _mm512_slli_epi64(a->l[2], 40));
    l[2] = _mm512_or_si512(_mm512_srli_epi64(a->l[2], 24), _mm512_slli_epi64(a->l[3], 28));
    l[3] = _mm512_or_si512(_mm512_srli_epi64(a->l[3], 36), _mm512_slli_epi64(a->l[4], 16));
}

/* Lane i from the 4x64 integer at word offset idx[i] of x (idx: multiples
 * of 4), and the inverse: lane i of a (normalized, < 2^256) stored there. */
IFMA_INLINE v5 ifma_load8_idx(const uint64_t *x, __m512i idx)
{
    const long long *b = (const long long *)(const void *)x;
    return ifma_from64(_mm512_i64gather_epi64(idx, b, 8), _mm512_i64gather_epi64(idx, b + 1, 8),
                       _mm512_i64gather_epi64(idx, b + 2, 8), _mm512_i64gather_epi64(idx, b + 3, 8));
}

IFMA_INLINE void ifma_store8_idx(uint64_t *x, __m512i idx, const v5 *a)
{
    long long *b = (long long *)(void *)x;
    __m512i l[4];
    int j;
    ifma_to64(l, a);
    _Pragma("GCC unroll 8")
    for (j = 0; j < 4; j++)
        _mm512_i64scatter_epi64(b + j, idx, l[j], 8);
}

/* Load/store 8 lanes of 4x64 integers x[i][0..3] (lane-major in memory). */
IFMA_INLINE v5 ifma_load8(const uint64_t x[8][4])
{
    return ifma_load8_idx(&x[0][0], _mm512_set_epi64(28, 24, 20, 16, 12, 8, 4, 0));
}

IFMA_INLINE void ifma_store8(uint64_t x[8][4], const v5 *a)
{
    ifma_store8_idx(&x[0][0], _mm512_set_epi64(28, 24, 20, 16, 12, 8, 4, 0), a);
}

#endif /* NNC_PRV_IFMA_IMPL_H */
