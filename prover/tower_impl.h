/* BN254 extension tower, inline formulas for gcc and nvcc:
 *   Fq2  = Fq[u]  / (u^2 + 1)
 *   Fq6  = Fq2[v] / (v^3 - xi),  xi = 9 + u
 *   Fq12 = Fq6[w] / (w^2 - v)
 * the tower of EIP-197, snarkjs (ffjavascript), arkworks and rapidsnark.
 *
 * Every coefficient is an Fq element in Montgomery form, fully reduced (see
 * prover/field_impl.h).  Outputs may alias inputs.  Functions without _var
 * do not branch on element values; exponents passed to _pow are public. */
#ifndef NNC_PRV_TOWER_IMPL_H
#define NNC_PRV_TOWER_IMPL_H

#include "prover/field_impl.h"

typedef nnc_prv_fq2 nnc_fq2;
/* c0 + c1*v + c2*v^2 */
typedef struct nnc_fq6 { nnc_fq2 c0, c1, c2; } nnc_fq6;
/* c0 + c1*w */
typedef struct nnc_fq12 { nnc_fq6 c0, c1; } nnc_fq12;

/* ---- Fq2 ---- */

NNC_FORCEINLINE void nnc_fq2_set_zero(nnc_fq2 *r) { nnc_fq_set_zero(&r->c0); nnc_fq_set_zero(&r->c1); }
NNC_FORCEINLINE void nnc_fq2_set_one(nnc_fq2 *r) { nnc_fq_set_one(&r->c0); nnc_fq_set_zero(&r->c1); }
NNC_FORCEINLINE int nnc_fq2_is_zero(const nnc_fq2 *a) { return nnc_fq_is_zero(&a->c0) & nnc_fq_is_zero(&a->c1); }
NNC_FORCEINLINE int nnc_fq2_is_one(const nnc_fq2 *a) { return nnc_fq_is_one(&a->c0) & nnc_fq_is_zero(&a->c1); }
NNC_FORCEINLINE int nnc_fq2_eq(const nnc_fq2 *a, const nnc_fq2 *b)
{
    return nnc_fq_eq(&a->c0, &b->c0) & nnc_fq_eq(&a->c1, &b->c1);
}
/* r = flag ? a : r, flag in {0,1} */
NNC_FORCEINLINE void nnc_fq2_cmov(nnc_fq2 *r, const nnc_fq2 *a, int flag)
{
    nnc_fq_cmov(&r->c0, &a->c0, flag);
    nnc_fq_cmov(&r->c1, &a->c1, flag);
}
NNC_FORCEINLINE void nnc_fq2_add(nnc_fq2 *r, const nnc_fq2 *a, const nnc_fq2 *b)
{
    nnc_fq_add(&r->c0, &a->c0, &b->c0);
    nnc_fq_add(&r->c1, &a->c1, &b->c1);
}
NNC_FORCEINLINE void nnc_fq2_dbl(nnc_fq2 *r, const nnc_fq2 *a)
{
    nnc_fq_dbl(&r->c0, &a->c0);
    nnc_fq_dbl(&r->c1, &a->c1);
}
NNC_FORCEINLINE void nnc_fq2_sub(nnc_fq2 *r, const nnc_fq2 *a, const nnc_fq2 *b)
{
    nnc_fq_sub(&r->c0, &a->c0, &b->c0);
    nnc_fq_sub(&r->c1, &a->c1, &b->c1);
}
NNC_FORCEINLINE void nnc_fq2_neg(nnc_fq2 *r, const nnc_fq2 *a)
{
    nnc_fq_neg(&r->c0, &a->c0);
    nnc_fq_neg(&r->c1, &a->c1);
}
/* r = c0 - c1*u, which is also a^p (the Frobenius map) */
NNC_FORCEINLINE void nnc_fq2_conj(nnc_fq2 *r, const nnc_fq2 *a)
{
    r->c0 = a->c0;
    nnc_fq_neg(&r->c1, &a->c1);
}
/* r = a * b for b in Fq */
NNC_INLINE void nnc_fq2_mul_fq(nnc_fq2 *r, const nnc_fq2 *a, const nnc_fq *b)
{
    nnc_fq_mul(&r->c0, &a->c0, b);
    nnc_fq_mul(&r->c1, &a->c1, b);
}
/* r = a * b, Karatsuba: 3 Fq products. */
NNC_INLINE void nnc_fq2_mul(nnc_fq2 *r, const nnc_fq2 *a, const nnc_fq2 *b)
{
    nnc_fq t0, t1, s0, s1;
    nnc_fq_mul(&t0, &a->c0, &b->c0);
    nnc_fq_mul(&t1, &a->c1, &b->c1);
    nnc_fq_add(&s0, &a->c0, &a->c1);
    nnc_fq_add(&s1, &b->c0, &b->c1);
    nnc_fq_mul(&s0, &s0, &s1);
    nnc_fq_sub(&r->c0, &t0, &t1);
    nnc_fq_sub(&s0, &s0, &t0);
    nnc_fq_sub(&r->c1, &s0, &t1);
}
/* r = a^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 Fq products. */
NNC_INLINE void nnc_fq2_sqr(nnc_fq2 *r, const nnc_fq2 *a)
{
    nnc_fq s, d, t;
    nnc_fq_add(&s, &a->c0, &a->c1);
    nnc_fq_sub(&d, &a->c0, &a->c1);
    nnc_fq_mul(&t, &a->c0, &a->c1);
    nnc_fq_mul(&r->c0, &s, &d);
    nnc_fq_dbl(&r->c1, &t);
}
/* r = a * xi, xi = 9 + u: (9 c0 - c1) + (c0 + 9 c1) u */
NNC_INLINE void nnc_fq2_mul_by_xi(nnc_fq2 *r, const nnc_fq2 *a)
{
    nnc_fq t0, t1;
    nnc_fq_dbl(&t0, &a->c0);
    nnc_fq_dbl(&t0, &t0);
    nnc_fq_dbl(&t0, &t0);
    nnc_fq_add(&t0, &t0, &a->c0); /* 9 c0 */
    nnc_fq_dbl(&t1, &a->c1);
    nnc_fq_dbl(&t1, &t1);
    nnc_fq_dbl(&t1, &t1);
    nnc_fq_add(&t1, &t1, &a->c1); /* 9 c1 */
    nnc_fq_sub(&t0, &t0, &a->c1);
    nnc_fq_add(&r->c1, &t1, &a->c0);
    r->c0 = t0;
}
/* r = a^-1 = conj(a) / (c0^2 + c1^2); 0 for a = 0. */
NNC_NOINLINE void nnc_fq2_inv(nnc_fq2 *r, const nnc_fq2 *a)
{
    nnc_fq t0, t1;
    nnc_fq_sqr(&t0, &a->c0);
    nnc_fq_sqr(&t1, &a->c1);
    nnc_fq_add(&t0, &t0, &t1);
    nnc_fq_inv(&t0, &t0);
    nnc_fq_mul(&r->c0, &a->c0, &t0);
    nnc_fq_mul(&t1, &a->c1, &t0);
    nnc_fq_neg(&r->c1, &t1);
}
/* As nnc_fq2_inv, variable time. */
NNC_NOINLINE void nnc_fq2_inv_var(nnc_fq2 *r, const nnc_fq2 *a)
{
    nnc_fq t0, t1;
    nnc_fq_sqr(&t0, &a->c0);
    nnc_fq_sqr(&t1, &a->c1);
    nnc_fq_add(&t0, &t0, &t1);
    nnc_fq_inv_var(&t0, &t0);
    nnc_fq_mul(&r->c0, &a->c0, &t0);
    nnc_fq_mul(&t1, &a->c1, &t0);
    nnc_fq_neg(&r->c1, &t1);
}
/* r = a^e, e a public integer of n little-endian limbs (leading zero bits
 * are skipped, so the time depends on e only). */
NNC_NOINLINE void nnc_fq2_pow(nnc_fq2 *r, const nnc_fq2 *a, const uint64_t *e, size_t n)
{
    nnc_fq2 acc, base = *a;
    size_t i;
    int b, started = 0;
    nnc_fq2_set_one(&acc);
    for (i = n; i-- > 0;) {
        for (b = 63; b >= 0; b--) {
            if (started)
                nnc_fq2_sqr(&acc, &acc);
            if ((e[i] >> b) & 1) {
                nnc_fq2_mul(&acc, &acc, &base);
                started = 1;
            }
        }
    }
    *r = acc;
}
/* r = a^(p^i): conjugation for odd i. */
NNC_FORCEINLINE void nnc_fq2_frobenius(nnc_fq2 *r, const nnc_fq2 *a, unsigned i)
{
    nnc_fq2 t;
    nnc_fq2_conj(&t, a);
    *r = *a;
    nnc_fq2_cmov(r, &t, (int)(i & 1));
}
/* Returns: 1 if a is a square in Fq2 (0 is): its norm c0^2 + c1^2 is a
 * square in Fq. */
NNC_NOINLINE int nnc_fq2_is_square(const nnc_fq2 *a)
{
    nnc_fq t0, t1;
    nnc_fq_sqr(&t0, &a->c0);
    nnc_fq_sqr(&t1, &a->c1);
    nnc_fq_add(&t0, &t0, &t1);
    return nnc_fq_is_square(&t0);
}
/* Returns: 1 if a is a square, then r^2 = a; else 0 (r unspecified).
 * Algorithm 9 of Adj and Rodriguez-Henriquez, "Square root computation over
 * even extension fields" (p = 3 mod 4); both branches are computed and
 * selected by mask. */
NNC_NOINLINE int nnc_fq2_sqrt(nnc_fq2 *r, const nnc_fq2 *a)
{
    const uint64_t e34[4] = NNC_FQ_SQRT3_EXP_INIT; /* (p-3)/4 */
    const uint64_t e12[4] = NNC_FQ_HALF_EXP_INIT;  /* (p-1)/2 */
    nnc_fq2 a1, alpha, x0, t, x, b, chk, minus1;
    int ok;
    nnc_fq2_pow(&a1, a, e34, 4);
    nnc_fq2_sqr(&alpha, &a1);
    nnc_fq2_mul(&alpha, &alpha, a);   /* alpha = a^((p-1)/2) */
    nnc_fq2_mul(&x0, &a1, a);         /* x0 = a^((p+1)/4) */
    nnc_fq2_set_one(&minus1);
    nnc_fq2_neg(&minus1, &minus1);
    /* alpha = -1: x = u * x0 */
    nnc_fq_neg(&x.c0, &x0.c1);
    x.c1 = x0.c0;
    /* otherwise: x = (1 + alpha)^((p-1)/2) * x0 */
    nnc_fq2_set_one(&t);
    nnc_fq2_add(&t, &t, &alpha);
    nnc_fq2_pow(&b, &t, e12, 4);
    nnc_fq2_mul(&b, &b, &x0);
    nnc_fq2_cmov(&x, &b, nnc_fq2_eq(&alpha, &minus1) ^ 1);
    nnc_fq2_sqr(&chk, &x);
    ok = nnc_fq2_eq(&chk, a);
    *r = x;
    return ok;
}

/* ---- Frobenius coefficients (prover/gen_constants.py), Montgomery form ---- */
/* xi^((p^i - 1)/3), i = 0..5 */
#define NNC_FQ6_FROB_C1_INIT \
    { \
    {{{0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL, 0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0xb5773b104563ab30ULL, 0x347f91c8a9aa6454ULL, 0x7a007127242e0991ULL, 0x1956bcd8118214ecULL}}, \
     {{0x6e849f1ea0aa4757ULL, 0xaa1c7b6d89f89141ULL, 0xb6e713cdfae0ca3aULL, 0x26694fbb4e82ebc3ULL}}}, \
    {{{0x3350c88e13e80b9cULL, 0x7dce557cdb5e56b9ULL, 0x6001b4b8b615564aULL, 0x2682e617020217e0ULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0xc9af22f716ad6badULL, 0xb311782a4aa662b2ULL, 0x19eeaf64e248c7f4ULL, 0x20273e77e3439f82ULL}}, \
     {{0xacc02860f7ce93acULL, 0x3933d5817ba76b4cULL, 0x69e6188b446c8467ULL, 0x0a46036d4417cc55ULL}}}, \
    {{{0x71930c11d782e155ULL, 0xa6bb947cffbe3323ULL, 0xaa303344d4741444ULL, 0x2c3b3f0d26594943ULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0xf91aba2654e8e3b1ULL, 0x4771cb2fdc92ce12ULL, 0xdcb16ae0fc8bdf35ULL, 0x274aa195cd9d8be4ULL}}, \
     {{0x5cfc50ae18811f8bULL, 0x4bb28433cb43988cULL, 0x4fd35f13c3b56219ULL, 0x301949bd2fc8883aULL}}} }
/* xi^(2(p^i - 1)/3), i = 0..5 */
#define NNC_FQ6_FROB_C2_INIT \
    { \
    {{{0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL, 0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0x7361d77f843abe92ULL, 0xa5bb2bd3273411fbULL, 0x9c941f314b3e2399ULL, 0x15df9cddbb9fd3ecULL}}, \
     {{0x5dddfd154bd8c949ULL, 0x62cb29a5a4445b60ULL, 0x37bc870a0c7dd2b9ULL, 0x24830a9d3171f0fdULL}}}, \
    {{{0x71930c11d782e155ULL, 0xa6bb947cffbe3323ULL, 0xaa303344d4741444ULL, 0x2c3b3f0d26594943ULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0x448a93a57b6762dfULL, 0xbfd62df528fdeadfULL, 0xd858f5d00e9bd47aULL, 0x06b03d4d3476ec58ULL}}, \
     {{0x2b19daf4bcc936d1ULL, 0xa1a54e7a56f4299fULL, 0xb533eee05adeaef1ULL, 0x170c812b84dda0b2ULL}}}, \
    {{{0x3350c88e13e80b9cULL, 0x7dce557cdb5e56b9ULL, 0x6001b4b8b615564aULL, 0x2682e617020217e0ULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0x843420f1d8dadbd6ULL, 0x31f010c9183fcdb2ULL, 0x436330b527a76049ULL, 0x13d47447f11adfe4ULL}}, \
     {{0xef494023a857fa74ULL, 0x2a925d02d5ab101aULL, 0x83b015829ba62f10ULL, 0x2539111d0c13aea3ULL}}} }
/* xi^((p^i - 1)/6), i = 0..11 */
#define NNC_FQ12_FROB_C1_INIT \
    { \
    {{{0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL, 0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0xaf9ba69633144907ULL, 0xca6b1d7387afb78aULL, 0x11bded5ef08a2087ULL, 0x02f34d751a1f3a7cULL}}, \
     {{0xa222ae234c492d72ULL, 0xd00f02a4565de15bULL, 0xdc2ff3a253dfc926ULL, 0x10a75716b3899551ULL}}}, \
    {{{0xca8d800500fa1bf2ULL, 0xf0c5d61468b39769ULL, 0x0e201271ad0d4418ULL, 0x04290f65bad856e6ULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0x365316184e46d97dULL, 0x0af7129ed4c96d9fULL, 0x659da72fca1009b5ULL, 0x08116d8983a20d23ULL}}, \
     {{0xb1df4af7c39c1939ULL, 0x3d9f02878a73bf7fULL, 0x9b2220928caf0ae0ULL, 0x26684515eff054a6ULL}}}, \
    {{{0x3350c88e13e80b9cULL, 0x7dce557cdb5e56b9ULL, 0x6001b4b8b615564aULL, 0x2682e617020217e0ULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0x86b76f821b329076ULL, 0x408bf52b4d19b614ULL, 0x53dfb9d0d985e92dULL, 0x051e20146982d2a7ULL}}, \
     {{0x0fbc9cd47752ebc7ULL, 0x6d8fffe33415de24ULL, 0xbef22cf038cf41b9ULL, 0x15c0edff3c66bf54ULL}}}, \
    {{{0x68c3488912edefaaULL, 0x8d087f6872aabf4fULL, 0x51e1a24709081231ULL, 0x2259d6b14729c0faULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0x8c84e580a568b440ULL, 0xcd164d1de0c21302ULL, 0xa692585790f737d5ULL, 0x2d7100fdc71265adULL}}, \
     {{0x99fdddf38c33cfd5ULL, 0xc77267ed1213e931ULL, 0xdc2052142da18f36ULL, 0x1fbcf75c2da80ad7ULL}}}, \
    {{{0x71930c11d782e155ULL, 0xa6bb947cffbe3323ULL, 0xaa303344d4741444ULL, 0x2c3b3f0d26594943ULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0x05cd75fe8a3623caULL, 0x8c8a57f293a85ceeULL, 0x52b29e86b7714ea8ULL, 0x2852e0e95d8f9306ULL}}, \
     {{0x8a41411f14e0e40eULL, 0x59e26809ddfe0b0dULL, 0x1d2e2523f4d24d7dULL, 0x09fc095cf1414b83ULL}}}, \
    {{{0x08cfc388c494f1abULL, 0x19b315148d1373d4ULL, 0x584e90fdcb6c0213ULL, 0x09e1685bdf2f8849ULL}}, \
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}}, \
    {{{0xb5691c94bd4a6cd1ULL, 0x56f575661b581478ULL, 0x64708be5a7fb6f30ULL, 0x2b462e5e77aecd82ULL}}, \
     {{0x2c63ef42612a1180ULL, 0x29f16aae345bec69ULL, 0xf95e18c648b216a4ULL, 0x1aa36073a4cae0d4ULL}}} }

/* ---- Fq6 ---- */

NNC_FORCEINLINE void nnc_fq6_set_zero(nnc_fq6 *r)
{
    nnc_fq2_set_zero(&r->c0);
    nnc_fq2_set_zero(&r->c1);
    nnc_fq2_set_zero(&r->c2);
}
NNC_FORCEINLINE void nnc_fq6_set_one(nnc_fq6 *r)
{
    nnc_fq2_set_one(&r->c0);
    nnc_fq2_set_zero(&r->c1);
    nnc_fq2_set_zero(&r->c2);
}
NNC_FORCEINLINE int nnc_fq6_is_zero(const nnc_fq6 *a)
{
    return nnc_fq2_is_zero(&a->c0) & nnc_fq2_is_zero(&a->c1) & nnc_fq2_is_zero(&a->c2);
}
NNC_FORCEINLINE int nnc_fq6_eq(const nnc_fq6 *a, const nnc_fq6 *b)
{
    return nnc_fq2_eq(&a->c0, &b->c0) & nnc_fq2_eq(&a->c1, &b->c1) & nnc_fq2_eq(&a->c2, &b->c2);
}
NNC_FORCEINLINE void nnc_fq6_cmov(nnc_fq6 *r, const nnc_fq6 *a, int flag)
{
    nnc_fq2_cmov(&r->c0, &a->c0, flag);
    nnc_fq2_cmov(&r->c1, &a->c1, flag);
    nnc_fq2_cmov(&r->c2, &a->c2, flag);
}
NNC_INLINE void nnc_fq6_add(nnc_fq6 *r, const nnc_fq6 *a, const nnc_fq6 *b)
{
    nnc_fq2_add(&r->c0, &a->c0, &b->c0);
    nnc_fq2_add(&r->c1, &a->c1, &b->c1);
    nnc_fq2_add(&r->c2, &a->c2, &b->c2);
}
NNC_INLINE void nnc_fq6_dbl(nnc_fq6 *r, const nnc_fq6 *a)
{
    nnc_fq2_dbl(&r->c0, &a->c0);
    nnc_fq2_dbl(&r->c1, &a->c1);
    nnc_fq2_dbl(&r->c2, &a->c2);
}
NNC_INLINE void nnc_fq6_sub(nnc_fq6 *r, const nnc_fq6 *a, const nnc_fq6 *b)
{
    nnc_fq2_sub(&r->c0, &a->c0, &b->c0);
    nnc_fq2_sub(&r->c1, &a->c1, &b->c1);
    nnc_fq2_sub(&r->c2, &a->c2, &b->c2);
}
NNC_INLINE void nnc_fq6_neg(nnc_fq6 *r, const nnc_fq6 *a)
{
    nnc_fq2_neg(&r->c0, &a->c0);
    nnc_fq2_neg(&r->c1, &a->c1);
    nnc_fq2_neg(&r->c2, &a->c2);
}
/* r = a * v = xi c2 + c0 v + c1 v^2 */
NNC_INLINE void nnc_fq6_mul_by_v(nnc_fq6 *r, const nnc_fq6 *a)
{
    nnc_fq2 t;
    nnc_fq2_mul_by_xi(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}
/* r = a * b for b in Fq2 */
NNC_INLINE void nnc_fq6_mul_fq2(nnc_fq6 *r, const nnc_fq6 *a, const nnc_fq2 *b)
{
    nnc_fq2_mul(&r->c0, &a->c0, b);
    nnc_fq2_mul(&r->c1, &a->c1, b);
    nnc_fq2_mul(&r->c2, &a->c2, b);
}
/* r = a * b, Karatsuba over the cubic extension: 6 Fq2 products
 * (Devegili, O hEigeartaigh, Scott, Dahab 2006, section 4). */
NNC_NOINLINE void nnc_fq6_mul(nnc_fq6 *r, const nnc_fq6 *a, const nnc_fq6 *b)
{
    nnc_fq2 v0, v1, v2, s, t, c0, c1, c2;
    nnc_fq2_mul(&v0, &a->c0, &b->c0);
    nnc_fq2_mul(&v1, &a->c1, &b->c1);
    nnc_fq2_mul(&v2, &a->c2, &b->c2);
    /* c0 = ((a1 + a2)(b1 + b2) - v1 - v2) xi + v0 */
    nnc_fq2_add(&s, &a->c1, &a->c2);
    nnc_fq2_add(&t, &b->c1, &b->c2);
    nnc_fq2_mul(&s, &s, &t);
    nnc_fq2_sub(&s, &s, &v1);
    nnc_fq2_sub(&s, &s, &v2);
    nnc_fq2_mul_by_xi(&s, &s);
    nnc_fq2_add(&c0, &s, &v0);
    /* c1 = (a0 + a1)(b0 + b1) - v0 - v1 + xi v2 */
    nnc_fq2_add(&s, &a->c0, &a->c1);
    nnc_fq2_add(&t, &b->c0, &b->c1);
    nnc_fq2_mul(&s, &s, &t);
    nnc_fq2_sub(&s, &s, &v0);
    nnc_fq2_sub(&s, &s, &v1);
    nnc_fq2_mul_by_xi(&t, &v2);
    nnc_fq2_add(&c1, &s, &t);
    /* c2 = (a0 + a2)(b0 + b2) - v0 - v2 + v1 */
    nnc_fq2_add(&s, &a->c0, &a->c2);
    nnc_fq2_add(&t, &b->c0, &b->c2);
    nnc_fq2_mul(&s, &s, &t);
    nnc_fq2_sub(&s, &s, &v0);
    nnc_fq2_sub(&s, &s, &v2);
    nnc_fq2_add(&c2, &s, &v1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}
/* r = a^2, CH-SQR2 (Chung-Hasan): 2 Fq2 products and 3 squarings. */
NNC_NOINLINE void nnc_fq6_sqr(nnc_fq6 *r, const nnc_fq6 *a)
{
    nnc_fq2 s0, s1, s2, s3, s4, t;
    nnc_fq2_sqr(&s0, &a->c0);
    nnc_fq2_mul(&s1, &a->c0, &a->c1);
    nnc_fq2_dbl(&s1, &s1);
    nnc_fq2_sub(&t, &a->c0, &a->c1);
    nnc_fq2_add(&t, &t, &a->c2);
    nnc_fq2_sqr(&s2, &t);
    nnc_fq2_mul(&s3, &a->c1, &a->c2);
    nnc_fq2_dbl(&s3, &s3);
    nnc_fq2_sqr(&s4, &a->c2);
    /* c2 = s1 + s2 + s3 - s0 - s4 */
    nnc_fq2_add(&t, &s1, &s2);
    nnc_fq2_add(&t, &t, &s3);
    nnc_fq2_sub(&t, &t, &s0);
    nnc_fq2_sub(&r->c2, &t, &s4);
    /* c0 = xi s3 + s0, c1 = xi s4 + s1 */
    nnc_fq2_mul_by_xi(&s3, &s3);
    nnc_fq2_add(&r->c0, &s3, &s0);
    nnc_fq2_mul_by_xi(&s4, &s4);
    nnc_fq2_add(&r->c1, &s4, &s1);
}
/* r = a^-1 (0 for a = 0) via the adjugate:
 *   t0 = a0^2 - xi a1 a2,  t1 = xi a2^2 - a0 a1,  t2 = a1^2 - a0 a2,
 *   a^-1 = (t0 + t1 v + t2 v^2) / (a0 t0 + xi (a2 t1 + a1 t2)). */
NNC_NOINLINE void nnc_fq6_inv(nnc_fq6 *r, const nnc_fq6 *a)
{
    nnc_fq2 t0, t1, t2, s, d;
    nnc_fq2_sqr(&t0, &a->c0);
    nnc_fq2_mul(&s, &a->c1, &a->c2);
    nnc_fq2_mul_by_xi(&s, &s);
    nnc_fq2_sub(&t0, &t0, &s);
    nnc_fq2_sqr(&t1, &a->c2);
    nnc_fq2_mul_by_xi(&t1, &t1);
    nnc_fq2_mul(&s, &a->c0, &a->c1);
    nnc_fq2_sub(&t1, &t1, &s);
    nnc_fq2_sqr(&t2, &a->c1);
    nnc_fq2_mul(&s, &a->c0, &a->c2);
    nnc_fq2_sub(&t2, &t2, &s);
    nnc_fq2_mul(&d, &a->c2, &t1);
    nnc_fq2_mul(&s, &a->c1, &t2);
    nnc_fq2_add(&d, &d, &s);
    nnc_fq2_mul_by_xi(&d, &d);
    nnc_fq2_mul(&s, &a->c0, &t0);
    nnc_fq2_add(&d, &d, &s);
    nnc_fq2_inv(&d, &d);
    nnc_fq2_mul(&r->c0, &t0, &d);
    nnc_fq2_mul(&r->c1, &t1, &d);
    nnc_fq2_mul(&r->c2, &t2, &d);
}
/* r = a^(p^i), any i (the map has order 6 on Fq6). */
NNC_NOINLINE void nnc_fq6_frobenius(nnc_fq6 *r, const nnc_fq6 *a, unsigned i)
{
    const nnc_fq2 k1[6] = NNC_FQ6_FROB_C1_INIT;
    const nnc_fq2 k2[6] = NNC_FQ6_FROB_C2_INIT;
    nnc_fq2_frobenius(&r->c0, &a->c0, i);
    nnc_fq2_frobenius(&r->c1, &a->c1, i);
    nnc_fq2_mul(&r->c1, &r->c1, &k1[i % 6]);
    nnc_fq2_frobenius(&r->c2, &a->c2, i);
    nnc_fq2_mul(&r->c2, &r->c2, &k2[i % 6]);
}

/* ---- Fq12 ---- */

NNC_FORCEINLINE void nnc_fq12_set_zero(nnc_fq12 *r)
{
    nnc_fq6_set_zero(&r->c0);
    nnc_fq6_set_zero(&r->c1);
}
NNC_FORCEINLINE void nnc_fq12_set_one(nnc_fq12 *r)
{
    nnc_fq6_set_one(&r->c0);
    nnc_fq6_set_zero(&r->c1);
}
NNC_FORCEINLINE int nnc_fq12_is_zero(const nnc_fq12 *a)
{
    return nnc_fq6_is_zero(&a->c0) & nnc_fq6_is_zero(&a->c1);
}
NNC_FORCEINLINE int nnc_fq12_is_one(const nnc_fq12 *a)
{
    nnc_fq12 one;
    nnc_fq12_set_one(&one);
    return nnc_fq6_eq(&a->c0, &one.c0) & nnc_fq6_eq(&a->c1, &one.c1);
}
NNC_FORCEINLINE int nnc_fq12_eq(const nnc_fq12 *a, const nnc_fq12 *b)
{
    return nnc_fq6_eq(&a->c0, &b->c0) & nnc_fq6_eq(&a->c1, &b->c1);
}
NNC_FORCEINLINE void nnc_fq12_cmov(nnc_fq12 *r, const nnc_fq12 *a, int flag)
{
    nnc_fq6_cmov(&r->c0, &a->c0, flag);
    nnc_fq6_cmov(&r->c1, &a->c1, flag);
}
NNC_INLINE void nnc_fq12_add(nnc_fq12 *r, const nnc_fq12 *a, const nnc_fq12 *b)
{
    nnc_fq6_add(&r->c0, &a->c0, &b->c0);
    nnc_fq6_add(&r->c1, &a->c1, &b->c1);
}
NNC_INLINE void nnc_fq12_sub(nnc_fq12 *r, const nnc_fq12 *a, const nnc_fq12 *b)
{
    nnc_fq6_sub(&r->c0, &a->c0, &b->c0);
    nnc_fq6_sub(&r->c1, &a->c1, &b->c1);
}
NNC_INLINE void nnc_fq12_neg(nnc_fq12 *r, const nnc_fq12 *a)
{
    nnc_fq6_neg(&r->c0, &a->c0);
    nnc_fq6_neg(&r->c1, &a->c1);
}
/* r = c0 - c1 w = a^(p^6); the inverse of a when a has norm 1 (after the
 * easy part of the final exponentiation). */
NNC_INLINE void nnc_fq12_conj(nnc_fq12 *r, const nnc_fq12 *a)
{
    r->c0 = a->c0;
    nnc_fq6_neg(&r->c1, &a->c1);
}
/* r = a * b, Karatsuba: 3 Fq6 products. */
NNC_NOINLINE void nnc_fq12_mul(nnc_fq12 *r, const nnc_fq12 *a, const nnc_fq12 *b)
{
    nnc_fq6 v0, v1, s, t;
    nnc_fq6_mul(&v0, &a->c0, &b->c0);
    nnc_fq6_mul(&v1, &a->c1, &b->c1);
    nnc_fq6_add(&s, &a->c0, &a->c1);
    nnc_fq6_add(&t, &b->c0, &b->c1);
    nnc_fq6_mul(&s, &s, &t);
    nnc_fq6_sub(&s, &s, &v0);
    nnc_fq6_sub(&r->c1, &s, &v1);
    nnc_fq6_mul_by_v(&v1, &v1);
    nnc_fq6_add(&r->c0, &v0, &v1);
}
/* r = a^2, complex squaring: 2 Fq6 products. */
NNC_NOINLINE void nnc_fq12_sqr(nnc_fq12 *r, const nnc_fq12 *a)
{
    nnc_fq6 ab, s, t;
    nnc_fq6_mul(&ab, &a->c0, &a->c1);
    nnc_fq6_add(&s, &a->c0, &a->c1);
    nnc_fq6_mul_by_v(&t, &a->c1);
    nnc_fq6_add(&t, &t, &a->c0);
    nnc_fq6_mul(&s, &s, &t);          /* (a0 + a1)(a0 + v a1) */
    nnc_fq6_sub(&s, &s, &ab);
    nnc_fq6_mul_by_v(&t, &ab);
    nnc_fq6_sub(&r->c0, &s, &t);
    nnc_fq6_dbl(&r->c1, &ab);
}
/* r = a^-1 = (a0 - a1 w) / (a0^2 - v a1^2); 0 for a = 0. */
NNC_NOINLINE void nnc_fq12_inv(nnc_fq12 *r, const nnc_fq12 *a)
{
    nnc_fq6 t0, t1;
    nnc_fq6_sqr(&t0, &a->c0);
    nnc_fq6_sqr(&t1, &a->c1);
    nnc_fq6_mul_by_v(&t1, &t1);
    nnc_fq6_sub(&t0, &t0, &t1);
    nnc_fq6_inv(&t0, &t0);
    nnc_fq6_mul(&r->c0, &a->c0, &t0);
    nnc_fq6_mul(&t1, &a->c1, &t0);
    nnc_fq6_neg(&r->c1, &t1);
}
/* r = a^(p^i), any i (the map has order 12). */
NNC_NOINLINE void nnc_fq12_frobenius(nnc_fq12 *r, const nnc_fq12 *a, unsigned i)
{
    const nnc_fq2 k[12] = NNC_FQ12_FROB_C1_INIT;
    nnc_fq6_frobenius(&r->c0, &a->c0, i);
    nnc_fq6_frobenius(&r->c1, &a->c1, i);
    nnc_fq6_mul_fq2(&r->c1, &r->c1, &k[i % 12]);
}
/* r = a^e, e a public integer of n little-endian limbs (time depends on e only). */
NNC_NOINLINE void nnc_fq12_pow(nnc_fq12 *r, const nnc_fq12 *a, const uint64_t *e, size_t n)
{
    nnc_fq12 acc, base = *a;
    size_t i;
    int b, started = 0;
    nnc_fq12_set_one(&acc);
    for (i = n; i-- > 0;) {
        for (b = 63; b >= 0; b--) {
            if (started)
                nnc_fq12_sqr(&acc, &acc);
            if ((e[i] >> b) & 1) {
                nnc_fq12_mul(&acc, &acc, &base);
                started = 1;
            }
        }
    }
    *r = acc;
}

#endif
