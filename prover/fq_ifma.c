/* 8-lane BN254 Fq arithmetic with AVX-512 IFMA and the batched affine
 * additions of the G1 bucket accumulation (see prover/fq_ifma.h for the
 * representation).
 *
 * Scaled coordinates.  Read as a vector element (radix 2^260), the 4x64
 * bits of a*2^256 mod p stand for a/16.  Write X = x/16, Y = y/16 for the
 * coordinates of B (bucket, index 1) and P (point, index 2).  With
 * lambda = N / D:
 *   addition  D = X2 - X1 = (x2 - x1)/16   (qd as loaded),  N = Y2 - Y1,
 *   doubling  D = 2 Y1    = 2 y1 / 16      (qd as loaded),  N = 48 X1^2
 *             (3 x1^2 / (2 y1) = 3 * 256 X1^2 / (32 Y1) = 48 X1^2 / (2 Y1)),
 * and L = lambda / 4 = N / (4 D):
 *   X3 = x3/16 = lambda^2/16 - X1 - X2 = L^2 - X1 - X2,
 *   Y3 = y3/16 = lambda (X1 - X3) - Y1 = 4 L (X1 - X3) - Y1.
 * The results are again the 4x64 bits of x3, y3.  The batch inversion
 * gives 1/(4 D) directly: the 8 lane totals T (vector bits t = T 2^260)
 * need u = 2^260 / (4 T) as vector bits, u = 2^518 / t mod p, which is
 * the scalar Montgomery inverse (2^512 / t) times 2^262 * 2^-256, i.e. one
 * scalar product by the 4x64 constant 2^262 mod p (NNC_IFMA_K). */
#include "prover/fq_ifma.h"

#include <stdlib.h>
#include <string.h>

#include "prover/curve_impl.h"
#include "common/isa.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(NNC_NO_IFMA_BUILD)
#define NNC_IFMA_BUILD 1
#endif

/* 2^262 mod p (little-endian 4x64): see the top of this file. */
static const nnc_fq NNC_IFMA_K = {{0x9d0709d62af99842ULL, 0xf7214c0419c29186ULL, 0xa603f5090339546dULL,
                                   0x1b906c52ac7a88eaULL}};

int nnc_fq_ifma_cpu(void)
{
#ifdef NNC_IFMA_BUILD
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma") &&
           __builtin_cpu_supports("avx512vl");
#else
    return 0;
#endif
}

int nnc_fq_ifma_enabled(void)
{
#ifdef NNC_IFMA_BUILD
    return nnc_isa_ifma(); /* NNC_ISA and NNC_NO_IFMA (common/isa.h) */
#else
    return 0;
#endif
}

void nnc_g1_ifma_comb_table(uint64_t (*t5)[10], const nnc_prv_g1 *t, size_t n)
{
    size_t e;
    for (e = 0; e < n; e++) {
        nnc_ifma_split52(t5[e], t[e].x.v);
        nnc_ifma_split52(t5[e] + 5, t[e].y.v);
    }
}

void nnc_g2_ifma_comb_table(uint64_t (*t5)[20], const nnc_prv_g2 *t, size_t n)
{
    size_t e;
    for (e = 0; e < n; e++) {
        nnc_ifma_split52(t5[e], t[e].x.c0.v);
        nnc_ifma_split52(t5[e] + 5, t[e].x.c1.v);
        nnc_ifma_split52(t5[e] + 10, t[e].y.c0.v);
        nnc_ifma_split52(t5[e] + 15, t[e].y.c1.v);
    }
}

/* Replace t[0..7] (4x64, each nonzero, < p) with 2^518 / t[i] mod p:
 * Montgomery's trick over the 8 lanes, one inversion. */
static void ifma_lanes_inv(nnc_fq t[8])
{
    nnc_fq pre[8], inv, u;
    int j;
    pre[0] = t[0];
    for (j = 1; j < 8; j++)
        nnc_fq_mul(&pre[j], &pre[j - 1], &t[j]);
    nnc_fq_inv_var(&inv, &pre[7]);          /* 2^512 / prod, as 4x64 bits */
    nnc_fq_mul(&inv, &inv, &NNC_IFMA_K);    /* times 2^6 */
    for (j = 7; j > 0; j--) {
        nnc_fq_mul(&u, &inv, &pre[j - 1]);
        nnc_fq_mul(&inv, &inv, &t[j]);
        t[j] = u;
    }
    t[0] = inv;
}

#ifdef NNC_IFMA_BUILD

#include "prover/ifma_impl.h"

/* The operations modulo p used below. */
IFMA_INLINE v5 ifma_mul(const v5 *a, const v5 *b) { return ifma_mulm(a, b, &IFMA_FQ); }
IFMA_INLINE v5 ifma_add(const v5 *a, const v5 *b) { return ifma_addm(a, b, &IFMA_FQ); }
IFMA_INLINE v5 ifma_sub(const v5 *a, const v5 *b) { return ifma_subm(a, b, &IFMA_FQ); }
IFMA_INLINE v5 ifma_canon(v5 a) { return ifma_canonm(a, &IFMA_FQ); }

IFMA_FN void nnc_fq_ifma_mul8(uint64_t r[8][4], const uint64_t a[8][4], const uint64_t b[8][4])
{
    v5 x = ifma_load8(a), y = ifma_load8(b), z = ifma_mul(&x, &y);
    z = ifma_canon(z);
    ifma_store8(r, &z);
}

IFMA_FN void nnc_fq_ifma_add8(uint64_t r[8][4], const uint64_t a[8][4], const uint64_t b[8][4])
{
    v5 x = ifma_load8(a), y = ifma_load8(b), z = ifma_add(&x, &y);
    z = ifma_canon(z);
    ifma_store8(r, &z);
}

IFMA_FN void nnc_fq_ifma_sub8(uint64_t r[8][4], const uint64_t a[8][4], const uint64_t b[8][4])
{
    v5 x = ifma_load8(a), y = ifma_load8(b), z = ifma_sub(&x, &y);
    z = ifma_canon(z);
    ifma_store8(r, &z);
}

/* ---- batched affine additions ---- */

size_t nnc_g1_ifma_scratch_bytes(size_t cap)
{
    /* prefix products and denominators: one v5 each per group of 8 */
    return 2 * ((cap + 7) / 8) * 5 * 64;
}

/* Gather field element number `off` (in 64-bit words) of the records at
 * the word indices idx (8 lanes), lanes outside k left 0. */
IFMA_INLINE v5 ifma_gather(__mmask8 k, __m512i idx, const uint64_t *base)
{
    const long long *b = (const long long *)(const void *)base;
    const __m512i z = _mm512_setzero_si512();
    return ifma_from64(_mm512_mask_i64gather_epi64(z, k, idx, b, 8),
                       _mm512_mask_i64gather_epi64(z, k, idx, b + 1, 8),
                       _mm512_mask_i64gather_epi64(z, k, idx, b + 2, 8),
                       _mm512_mask_i64gather_epi64(z, k, idx, b + 3, 8));
}

/* 8x8 transpose of 64-bit words: r[i] word j <-> r[j] word i (its own
 * inverse).  Rows are points (8 words: x then y, 4x64 each), columns the
 * limbs of 8 lanes. */
IFMA_INLINE void ifma_transpose8(__m512i r[8])
{
    __m512i t[8], u[8];
    int i;
    _Pragma("GCC unroll 8")
    for (i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);     /* words 0,2,4,6 */
        t[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]); /* words 1,3,5,7 */
    }
    /* u[0]: words 0|4 of rows 0-3, u[1]: 2|6 of rows 0-3, u[2]/u[3] the same
     * for rows 4-7; u[4..7] the odd words */
    u[0] = _mm512_shuffle_i64x2(t[0], t[2], 0x88);
    u[1] = _mm512_shuffle_i64x2(t[0], t[2], 0xdd);
    u[2] = _mm512_shuffle_i64x2(t[4], t[6], 0x88);
    u[3] = _mm512_shuffle_i64x2(t[4], t[6], 0xdd);
    u[4] = _mm512_shuffle_i64x2(t[1], t[3], 0x88);
    u[5] = _mm512_shuffle_i64x2(t[1], t[3], 0xdd);
    u[6] = _mm512_shuffle_i64x2(t[5], t[7], 0x88);
    u[7] = _mm512_shuffle_i64x2(t[5], t[7], 0xdd);
    r[0] = _mm512_shuffle_i64x2(u[0], u[2], 0x88);
    r[4] = _mm512_shuffle_i64x2(u[0], u[2], 0xdd);
    r[2] = _mm512_shuffle_i64x2(u[1], u[3], 0x88);
    r[6] = _mm512_shuffle_i64x2(u[1], u[3], 0xdd);
    r[1] = _mm512_shuffle_i64x2(u[4], u[6], 0x88);
    r[5] = _mm512_shuffle_i64x2(u[4], u[6], 0xdd);
    r[3] = _mm512_shuffle_i64x2(u[5], u[7], 0x88);
    r[7] = _mm512_shuffle_i64x2(u[5], u[7], 0xdd);
}

/* Load the points pt[0..7] (those in mask k; the others read as (0, 0))
 * into x, y. */
IFMA_INLINE void ifma_load_pts(v5 *x, v5 *y, const nnc_prv_g1 *const pt[8], __mmask8 k)
{
    __m512i r[8];
    int j;
    _Pragma("GCC unroll 8")
    for (j = 0; j < 8; j++)
        r[j] = ((k >> j) & 1) ? _mm512_loadu_si512((const void *)pt[j]) : _mm512_setzero_si512();
    ifma_transpose8(r);
    *x = ifma_from64(r[0], r[1], r[2], r[3]);
    *y = ifma_from64(r[4], r[5], r[6], r[7]);
}

/* Store canonical x, y as the points pt[j] for j in mask k. */
IFMA_INLINE void ifma_store_pts(nnc_prv_g1 *const pt[8], __mmask8 k, const v5 *x, const v5 *y)
{
    __m512i r[8];
    int j;
    ifma_to64(r, x);
    ifma_to64(r + 4, y);
    ifma_transpose8(r);
    _Pragma("GCC unroll 8")
    for (j = 0; j < 8; j++)
        if ((k >> j) & 1)
            _mm512_storeu_si512((void *)pt[j], r[j]);
}

IFMA_INLINE __mmask8 ifma_lanes(size_t nq, size_t k)
{
    return nq - k >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (nq - k)) - 1);
}

/* Lanes of group g whose addition is a doubling. */
IFMA_INLINE __mmask8 ifma_dbl_mask(const unsigned char *qdbl, size_t k, __mmask8 lanes)
{
    unsigned m = 0, j;
    _Pragma("GCC unroll 8")
    for (j = 0; j < 8; j++)
        if (((lanes >> j) & 1) && qdbl[k + j])
            m |= 1u << j;
    return (__mmask8)m;
}

#define VPRE(g, j) (pre + 8 * (5 * (g) + (j)))
#define VDEN(g, j) (den + 8 * (5 * (g) + (j)))

IFMA_FN void nnc_g1_ifma_add_batch(nnc_prv_g1 *bk, const uint32_t *qb, const nnc_prv_g1 *qp,
                                   const nnc_prv_fq *qd, const unsigned char *qdbl, size_t nq,
                                   void *scratch)
{
    size_t ng = (nq + 7) / 8, g;
    /* pre, den: ng groups of 5 limb vectors, unaligned (VPRE/VDEN address them) */
    long long *pre = (long long *)scratch, *den = pre + 40 * ng;
    v5 acc, inv;
    const __m512i iota4 = _mm512_set_epi64(28, 24, 20, 16, 12, 8, 4, 0);  /* records of 4 words */
    __m512i l[4];
    nnc_fq t[8];
    uint64_t lt[4][8];
    int i, j;
    v5 one;
    if (nq == 0)
        return;
    one.l[0] = ifma_bc(1);
    _Pragma("GCC unroll 8")
    for (j = 1; j < 5; j++)
        one.l[j] = _mm512_setzero_si512();

    /* forward: den[g] = D of group g (1 in unused lanes), pre[g] = den[0] ... den[g] */
    for (g = 0; g < ng; g++) {
        __mmask8 k = ifma_lanes(nq, 8 * g);
        v5 d = ifma_gather(k, iota4, qd[8 * g].v);
        if (k != 0xff)
            _Pragma("GCC unroll 8")
            for (j = 0; j < 5; j++)
                d.l[j] = _mm512_mask_blend_epi64(k, one.l[j], d.l[j]);
        acc = g == 0 ? d : ifma_mul(&acc, &d);
        _Pragma("GCC unroll 8")
        for (j = 0; j < 5; j++) {
            _mm512_storeu_si512((void *)VDEN(g, j), d.l[j]);
            _mm512_storeu_si512((void *)VPRE(g, j), acc.l[j]);
        }
    }

    /* the 8 lane totals: 1 / (4 D_0 ... D_last) per lane, as vector bits */
    acc = ifma_canon(acc);
    ifma_to64(l, &acc);
    _Pragma("GCC unroll 8")
    for (j = 0; j < 4; j++)
        _mm512_storeu_si512((void *)lt[j], l[j]);
    _Pragma("GCC unroll 8")
    for (i = 0; i < 8; i++)
        _Pragma("GCC unroll 8")
        for (j = 0; j < 4; j++)
            t[i].v[j] = lt[j][i];
    ifma_lanes_inv(t);
    _Pragma("GCC unroll 8")
    for (i = 0; i < 8; i++)
        _Pragma("GCC unroll 8")
        for (j = 0; j < 4; j++)
            lt[j][i] = t[i].v[j];
    inv = ifma_from64(_mm512_loadu_si512((const void *)lt[0]), _mm512_loadu_si512((const void *)lt[1]),
                      _mm512_loadu_si512((const void *)lt[2]), _mm512_loadu_si512((const void *)lt[3]));

    /* backward: I = 1 / (4 D_g), then the additions of group g */
    for (g = ng; g-- > 0;) {
        __mmask8 k = ifma_lanes(nq, 8 * g), dbl;
        nnc_prv_g1 *bp[8];
        const nnc_prv_g1 *pp[8];
        v5 I, x1, y1, x2, y2, n, lam, x3, y3, u, pv, dv;
        if (g > 0) {
            _Pragma("GCC unroll 8")
            for (j = 0; j < 5; j++) {
                pv.l[j] = _mm512_loadu_si512((const void *)VPRE(g - 1, j));
                dv.l[j] = _mm512_loadu_si512((const void *)VDEN(g, j));
            }
            I = ifma_mul(&inv, &pv);
            inv = ifma_mul(&inv, &dv);
        } else {
            I = inv;
        }
        for (j = 0; j < 8; j++) {
            size_t kk = 8 * g + ((k >> j) & 1 ? (size_t)j : 0);
            bp[j] = &bk[qb[kk]];
            pp[j] = &qp[kk];
        }
        ifma_load_pts(&x1, &y1, (const nnc_prv_g1 *const *)bp, k);
        ifma_load_pts(&x2, &y2, (const nnc_prv_g1 *const *)pp, k);
        n = ifma_sub(&y2, &y1);
        dbl = ifma_dbl_mask(qdbl, 8 * g, k);
        if (dbl) { /* N = 48 X1^2 in the doubling lanes */
            v5 s = ifma_mul(&x1, &x1), s3 = ifma_add(&s, &s);
            s3 = ifma_add(&s3, &s);
            _Pragma("GCC unroll 8")
            for (i = 0; i < 4; i++)
                s3 = ifma_add(&s3, &s3);
            _Pragma("GCC unroll 8")
            for (j = 0; j < 5; j++)
                n.l[j] = _mm512_mask_blend_epi64(dbl, n.l[j], s3.l[j]);
        }
        lam = ifma_mul(&n, &I); /* L = lambda / 4 */
        x3 = ifma_mul(&lam, &lam);
        x3 = ifma_sub(&x3, &x1);
        x3 = ifma_sub(&x3, &x2);
        u = ifma_sub(&x1, &x3);
        u = ifma_add(&u, &u);
        u = ifma_add(&u, &u);
        y3 = ifma_mul(&lam, &u);
        y3 = ifma_sub(&y3, &y1);
        x3 = ifma_canon(x3);
        y3 = ifma_canon(y3);
        ifma_store_pts(bp, k, &x3, &y3);
    }
}
#undef VPRE
#undef VDEN

/* ---- bucket sums ----
 * Homogeneous projective points (X : Y : Z), x = X/Z, y = Y/Z, in the
 * vector representation; infinity is (0 : Y : 0), Y != 0.  An affine
 * bucket's 4x64 bits (x/16, y/16 as vector elements) with Z = 1/16 (the
 * vector element whose bits are those of the 4x64 one, 2^256 mod p) is
 * the point (x : y : 1). */

typedef struct vp3 { v5 x, y, z; } vp3;

/* 2^256 mod p: the 4x64 one, as vector element 1/16. */
static const uint64_t IFMA_ONE64[4] = {0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL, 0x666ea36f7879462cULL,
                                       0x0e0a77c19a07df2fULL};

IFMA_INLINE v5 ifma_one64(void)
{
    return ifma_from64(ifma_bc(IFMA_ONE64[0]), ifma_bc(IFMA_ONE64[1]), ifma_bc(IFMA_ONE64[2]),
                       ifma_bc(IFMA_ONE64[3]));
}

/* 9 a = 3b a for b = 3. */
IFMA_INLINE v5 ifma_mul9(const v5 *a)
{
    v5 t = ifma_add(a, a);
    t = ifma_add(&t, &t);
    t = ifma_add(&t, &t);
    return ifma_add(&t, a);
}

/* r = P + Q by the complete formulas for a = 0 (Renes, Costello, Batina
 * 2016, algorithm 7: 12 products, 2 by 3b): every input, infinity and
 * P = +-Q included, on a curve of odd order (BN254 G1, and the twist
 * E'(Fq2) of order r (2p - r)).  T the element type, MUL/ADD/SUB its
 * operations (pointers in, value out), MUL3B(x) the product by 3b. */
#define IFMA_PADD(T, MUL, ADD, SUB, MUL3B, r, P, Q)                                                                \
    do {                                                                                                          \
        T t0, t1, t2, t3, t4, x3, y3, z3;                                                                         \
        t0 = MUL(&(P)->x, &(Q)->x);                                                                               \
        t1 = MUL(&(P)->y, &(Q)->y);                                                                               \
        t2 = MUL(&(P)->z, &(Q)->z);                                                                               \
        t3 = ADD(&(P)->x, &(P)->y);                                                                               \
        t4 = ADD(&(Q)->x, &(Q)->y);                                                                               \
        t3 = MUL(&t3, &t4);                                                                                       \
        t4 = ADD(&t0, &t1);                                                                                       \
        t3 = SUB(&t3, &t4);                                                                                       \
        t4 = ADD(&(P)->y, &(P)->z);                                                                               \
        x3 = ADD(&(Q)->y, &(Q)->z);                                                                               \
        t4 = MUL(&t4, &x3);                                                                                       \
        x3 = ADD(&t1, &t2);                                                                                       \
        t4 = SUB(&t4, &x3);                                                                                       \
        x3 = ADD(&(P)->x, &(P)->z);                                                                               \
        y3 = ADD(&(Q)->x, &(Q)->z);                                                                               \
        x3 = MUL(&x3, &y3);                                                                                       \
        y3 = ADD(&t0, &t2);                                                                                       \
        y3 = SUB(&x3, &y3);                                                                                       \
        x3 = ADD(&t0, &t0);                                                                                       \
        t0 = ADD(&x3, &t0);                                                                                       \
        t2 = MUL3B(&t2);                                                                                          \
        z3 = ADD(&t1, &t2);                                                                                       \
        t1 = SUB(&t1, &t2);                                                                                       \
        y3 = MUL3B(&y3);                                                                                          \
        x3 = MUL(&t4, &y3);                                                                                       \
        t2 = MUL(&t3, &t1);                                                                                       \
        x3 = SUB(&t2, &x3);                                                                                       \
        y3 = MUL(&y3, &t0);                                                                                       \
        t1 = MUL(&t1, &z3);                                                                                       \
        y3 = ADD(&t1, &y3);                                                                                       \
        t0 = MUL(&t0, &t3);                                                                                       \
        z3 = MUL(&z3, &t4);                                                                                       \
        z3 = ADD(&z3, &t0);                                                                                       \
        (r)->x = x3;                                                                                              \
        (r)->y = y3;                                                                                              \
        (r)->z = z3;                                                                                              \
    } while (0)

/* P + Q on G1 (b = 3: 3b = 9, by additions). */
IFMA_INLINE vp3 ifma_padd(const vp3 *P, const vp3 *Q)
{
    vp3 r;
    IFMA_PADD(v5, ifma_mul, ifma_add, ifma_sub, ifma_mul9, &r, P, Q);
    return r;
}

/* Out: out[i] = lane i of P as a Jacobian point in 4x64 form. */
IFMA_INLINE void ifma_to_jac8(nnc_g1_jac out[8], const vp3 *P)
{
    const __m512i idx = _mm512_set_epi64(84, 72, 60, 48, 36, 24, 12, 0); /* records of 12 words */
    v5 one = ifma_one64(), zz, c[3];
    long long *b = (long long *)(void *)out;
    int i, j;
    /* (X Z, Y Z^2, Z) is the Jacobian form; times 1/16 each gives 4x64 bits */
    zz = ifma_mul(&P->z, &P->z);
    c[0] = ifma_mul(&P->x, &P->z);
    c[1] = ifma_mul(&P->y, &zz);
    c[0] = ifma_mul(&c[0], &one);
    c[1] = ifma_mul(&c[1], &one);
    c[2] = ifma_mul(&P->z, &one);
    c[0] = ifma_canon(c[0]);
    c[1] = ifma_canon(c[1]);
    c[2] = ifma_canon(c[2]);
    _Pragma("GCC unroll 8")
    for (i = 0; i < 3; i++) {
        __m512i l[4];
        ifma_to64(l, &c[i]);
        _Pragma("GCC unroll 8")
        for (j = 0; j < 4; j++)
            _mm512_i64scatter_epi64(b + 4 * i + j, idx, l[j], 8);
    }
}

IFMA_FN void nnc_g1_ifma_bucket_sum(nnc_prv_g1_jac *r, const nnc_prv_g1 *bk, size_t h)
{
    size_t L = (h + 7) / 8, t;
    const __m512i z = _mm512_setzero_si512();
    vp3 run, acc, B;
    v5 one = ifma_one64(), zero;
    nnc_g1_jac rs[8], as[8], R, T;
    uint64_t k[4] = {L, 0, 0, 0};
    int j, s;
    for (j = 0; j < 5; j++)
        zero.l[j] = z;
    run.x = zero;
    run.y = one;
    run.z = zero;
    acc = run;
    /* lane s: buckets lo_s + L - 1 down to lo_s (those above h are infinity,
     * met first, while run is still infinity) */
    for (t = 0; t < L; t++) {
        __m512i nz = z;
        __mmask8 in = 0, inf;
        const nnc_prv_g1 *pt[8];
        for (s = 0; s < 8; s++) {
            size_t b = (size_t)s * L + L - t; /* lo_s + L - 1 - t */
            pt[s] = &bk[b <= h ? b : 0];
            in |= (__mmask8)((b <= h) << s);
        }
        ifma_load_pts(&B.x, &B.y, (const nnc_prv_g1 *const *)pt, in);
        _Pragma("GCC unroll 8")
        for (j = 0; j < 5; j++)
            nz = _mm512_or_si512(nz, _mm512_or_si512(B.x.l[j], B.y.l[j]));
        inf = _mm512_cmpeq_epi64_mask(nz, z); /* (0, 0) or not loaded */
        _Pragma("GCC unroll 8")
        for (j = 0; j < 5; j++) {
            B.y.l[j] = _mm512_mask_blend_epi64(inf, B.y.l[j], one.l[j]);
            B.z.l[j] = _mm512_mask_blend_epi64(inf, one.l[j], z);
        }
        run = ifma_padd(&run, &B);
        acc = ifma_padd(&acc, &run);
    }
    /* sum_b b B_b = sum_s acc_s + L sum_s s run_s */
    ifma_to_jac8(rs, &run);
    ifma_to_jac8(as, &acc);
    nnc_g1_jac_set_inf(&R);
    nnc_g1_jac_set_inf(&T);
    for (s = 7; s >= 1; s--) {
        nnc_g1_jac_add_var(&R, &R, &rs[s]);
        nnc_g1_jac_add_var(&T, &T, &R);
    }
    nnc_g1_jac_mul_var(&T, &T, k);
    for (s = 0; s < 8; s++)
        nnc_g1_jac_add_var(&T, &T, &as[s]);
    *r = T;
}

/* Lane s: the four-bit digit w (bits 4w .. 4w+3) of k[s]. */
IFMA_INLINE __m512i comb_digits(const uint64_t k[8][4], int w)
{
    uint64_t nb[8];
    int s;
    for (s = 0; s < 8; s++)
        nb[s] = (k[s][w >> 4] >> ((w & 15) * 4)) & 15;
    return _mm512_loadu_si512((const void *)nb);
}

IFMA_FN void nnc_g1_ifma_comb8(nnc_prv_g1_jac out[8], const uint64_t k[8][4], const uint64_t (*t5)[10])
{
    const __m512i z = _mm512_setzero_si512();
    v5 one = ifma_one64(), zero;
    vp3 acc, q;
    int w, d, j;
    for (j = 0; j < 5; j++)
        zero.l[j] = z;
    acc.x = zero;
    acc.y = one;
    acc.z = zero;
    for (w = 0; w < 64; w++) {
        __m512i nib = comb_digits(k, w);
        /* d = 0: infinity (0 : 1 : 0); the 4x64 coordinates read as vector
         * elements are x/16, y/16, and z = 1/16 (one64) keeps (x : y : 1) */
        q.x = zero;
        q.y = one;
        q.z = zero;
        for (d = 1; d < 16; d++) {
            const uint64_t *e = t5[w * 16 + d];
            __mmask8 m = _mm512_cmpeq_epi64_mask(nib, _mm512_set1_epi64(d));
            _Pragma("GCC unroll 8")
            for (j = 0; j < 5; j++) {
                q.x.l[j] = _mm512_mask_blend_epi64(m, q.x.l[j], ifma_bc(e[j]));
                q.y.l[j] = _mm512_mask_blend_epi64(m, q.y.l[j], ifma_bc(e[5 + j]));
                q.z.l[j] = _mm512_mask_blend_epi64(m, q.z.l[j], one.l[j]);
            }
        }
        acc = ifma_padd(&acc, &q);
    }
    ifma_to_jac8(out, &acc);
}

/* ---- G2 over Fq2 = Fq[u]/(u^2 + 1), 8 lanes ---- */

typedef struct v52 { v5 c0, c1; } v52;
typedef struct vq3 { v52 x, y, z; } vq3;

IFMA_INLINE v52 f2_add(const v52 *a, const v52 *b)
{
    v52 r;
    r.c0 = ifma_add(&a->c0, &b->c0);
    r.c1 = ifma_add(&a->c1, &b->c1);
    return r;
}

IFMA_INLINE v52 f2_sub(const v52 *a, const v52 *b)
{
    v52 r;
    r.c0 = ifma_sub(&a->c0, &b->c0);
    r.c1 = ifma_sub(&a->c1, &b->c1);
    return r;
}

/* Karatsuba: three products, each with the vector product's factor 1/16
 * (so the Fq2 product carries it once, as on G1). */
IFMA_INLINE v52 f2_mul(const v52 *a, const v52 *b)
{
    v5 t0 = ifma_mul(&a->c0, &b->c0), t1 = ifma_mul(&a->c1, &b->c1), sa = ifma_add(&a->c0, &a->c1),
       sb = ifma_add(&b->c0, &b->c1), t2 = ifma_mul(&sa, &sb);
    v52 r;
    r.c0 = ifma_sub(&t0, &t1);
    t2 = ifma_sub(&t2, &t0);
    r.c1 = ifma_sub(&t2, &t1);
    return r;
}

/* P + Q on the twist; k3b: 3 b2 as a scaled constant (its product adds no
 * factor, like the additions of ifma_mul9 on G1). */
IFMA_INLINE vq3 ifma_padd2(const vq3 *P, const vq3 *Q, const v52 *k3b)
{
    vq3 r;
#define IFMA_G2_MUL3B(x) f2_mul(x, k3b)
    IFMA_PADD(v52, f2_mul, f2_add, f2_sub, IFMA_G2_MUL3B, &r, P, Q);
#undef IFMA_G2_MUL3B
    return r;
}

/* Out: out[i] = lane i of P as a Jacobian G2 point in 4x64 form (as
 * ifma_to_jac8). */
IFMA_INLINE void ifma_to_jac8_g2(nnc_g2_jac out[8], const vq3 *P)
{
    const __m512i idx = _mm512_set_epi64(168, 144, 120, 96, 72, 48, 24, 0); /* records of 24 words */
    v5 one = ifma_one64(), c[6];
    v52 zz, xz, yzz;
    long long *b = (long long *)(void *)out;
    int i, j;
    zz = f2_mul(&P->z, &P->z);
    xz = f2_mul(&P->x, &P->z);
    yzz = f2_mul(&P->y, &zz);
    c[0] = ifma_mul(&xz.c0, &one);
    c[1] = ifma_mul(&xz.c1, &one);
    c[2] = ifma_mul(&yzz.c0, &one);
    c[3] = ifma_mul(&yzz.c1, &one);
    c[4] = ifma_mul(&P->z.c0, &one);
    c[5] = ifma_mul(&P->z.c1, &one);
    _Pragma("GCC unroll 8")
    for (i = 0; i < 6; i++) {
        __m512i l[4];
        c[i] = ifma_canon(c[i]);
        ifma_to64(l, &c[i]);
        _Pragma("GCC unroll 8")
        for (j = 0; j < 4; j++)
            _mm512_i64scatter_epi64(b + 4 * i + j, idx, l[j], 8);
    }
}

IFMA_FN void nnc_g2_ifma_comb8(nnc_prv_g2_jac out[8], const uint64_t k[8][4], const uint64_t (*t5)[20])
{
    const __m512i z = _mm512_setzero_si512();
    v5 one = ifma_one64(), zero;
    v52 k3b, zero2, one2;
    vq3 acc, q;
    nnc_fq2 b;
    nnc_fq s16, c;
    uint64_t kl[2][5];
    int w, d, j;
    /* 3 b2, scaled: the 4x64 bits of 3 b2 2^260, i.e. (3 b2) 16 in 4x64 form */
    nnc_g2_set_b(&b);
    nnc_fq_set_u64(&s16, 48);
    nnc_fq_mul(&c, &b.c0, &s16);
    nnc_ifma_split52(kl[0], c.v);
    nnc_fq_mul(&c, &b.c1, &s16);
    nnc_ifma_split52(kl[1], c.v);
    for (j = 0; j < 5; j++) {
        k3b.c0.l[j] = ifma_bc(kl[0][j]);
        k3b.c1.l[j] = ifma_bc(kl[1][j]);
        zero.l[j] = z;
    }
    zero2.c0 = zero2.c1 = zero;
    one2.c0 = one;
    one2.c1 = zero;
    acc.x = zero2;
    acc.y = one2;
    acc.z = zero2;
    for (w = 0; w < 64; w++) {
        __m512i nib = comb_digits(k, w);
        q.x = zero2; /* d = 0: infinity */
        q.y = one2;
        q.z = zero2;
        for (d = 1; d < 16; d++) {
            const uint64_t *e = t5[w * 16 + d];
            __mmask8 m = _mm512_cmpeq_epi64_mask(nib, _mm512_set1_epi64(d));
            _Pragma("GCC unroll 8")
            for (j = 0; j < 5; j++) {
                q.x.c0.l[j] = _mm512_mask_blend_epi64(m, q.x.c0.l[j], ifma_bc(e[j]));
                q.x.c1.l[j] = _mm512_mask_blend_epi64(m, q.x.c1.l[j], ifma_bc(e[5 + j]));
                q.y.c0.l[j] = _mm512_mask_blend_epi64(m, q.y.c0.l[j], ifma_bc(e[10 + j]));
                q.y.c1.l[j] = _mm512_mask_blend_epi64(m, q.y.c1.l[j], ifma_bc(e[15 + j]));
                q.z.c0.l[j] = _mm512_mask_blend_epi64(m, q.z.c0.l[j], one.l[j]);
            }
        }
        acc = ifma_padd2(&acc, &q, &k3b);
    }
    ifma_to_jac8_g2(out, &acc);
}

#else /* no IFMA code in this build */

void nnc_g2_ifma_comb8(nnc_prv_g2_jac out[8], const uint64_t k[8][4], const uint64_t (*t5)[20])
{
    (void)out, (void)k, (void)t5;
    abort();
}

void nnc_g1_ifma_comb8(nnc_prv_g1_jac out[8], const uint64_t k[8][4], const uint64_t (*t5)[10])
{
    (void)out, (void)k, (void)t5;
    abort();
}

size_t nnc_g1_ifma_scratch_bytes(size_t cap)
{
    (void)cap;
    return 0;
}

void nnc_fq_ifma_mul8(uint64_t r[8][4], const uint64_t a[8][4], const uint64_t b[8][4])
{
    (void)r, (void)a, (void)b;
    abort();
}

void nnc_fq_ifma_add8(uint64_t r[8][4], const uint64_t a[8][4], const uint64_t b[8][4])
{
    (void)r, (void)a, (void)b;
    abort();
}

void nnc_fq_ifma_sub8(uint64_t r[8][4], const uint64_t a[8][4], const uint64_t b[8][4])
{
    (void)r, (void)a, (void)b;
    abort();
}

void nnc_g1_ifma_add_batch(nnc_prv_g1 *bk, const uint32_t *qb, const nnc_prv_g1 *qp, const nnc_prv_fq *qd,
                           const unsigned char *qdbl, size_t nq, void *scratch)
{
    (void)bk, (void)qb, (void)qp, (void)qd, (void)qdbl, (void)nq, (void)scratch;
    (void)ifma_lanes_inv;
    abort();
}

void nnc_g1_ifma_bucket_sum(nnc_prv_g1_jac *r, const nnc_prv_g1 *bk, size_t h)
{
    (void)r, (void)bk, (void)h;
    abort();
}

#endif
