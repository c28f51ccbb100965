/* BN254 prime fields Fq and Fr: inline formulas shared by the CPU path and
 * the CUDA kernels (gcc -std=c11 and nvcc -x cu both compile this header).
 *
 * Representation: an element is 4 little-endian 64-bit limbs v[0..3] holding
 * a*R mod m, R = 2^256 (Montgomery form), always fully reduced: 0 <= v < m.
 * Every function takes and returns reduced elements, and every output
 * pointer may alias any input unless its comment says otherwise.
 *
 * The generic layer (nnc_fe4_*) works for any odd modulus m < 2^256 given in
 * an nnc_fe4_mod; tests run it exhaustively on small primes.  nnc_fq_* and
 * nnc_fr_* bind it to the BN254 moduli with the constants as immediates.
 *
 * Timing: functions without a _var suffix do not branch on or index memory by
 * element values (selection is by masks); _var ones may.  Exponents and
 * scalars that are part of the algorithm (p-2, (p+1)/4) are public. */
#ifndef NNC_PRV_FIELD_IMPL_H
#define NNC_PRV_FIELD_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "nncert/prover.h"

/* NNC_FORCEINLINE: limb primitives and the Montgomery product, always inlined.
 * NNC_INLINE:      small formulas; the compiler decides.
 * NNC_NOINLINE:    long formulas (powers, inversions, extension-field and
 *                  point arithmetic).  On the device they stay real calls:
 *                  inlining them all multiplies code size and ptxas time
 *                  (minutes per kernel); the host compiler decides freely. */
#if defined(__CUDACC__)
#define NNC_HD __host__ __device__
#define NNC_INLINE static inline __host__ __device__
#define NNC_FORCEINLINE static __forceinline__ __host__ __device__
#define NNC_NOINLINE static inline __noinline__ __host__ __device__
#else
#define NNC_HD
#define NNC_INLINE static inline
#define NNC_NOINLINE static inline
#if defined(__GNUC__)
#define NNC_FORCEINLINE static inline __attribute__((always_inline))
#else
#define NNC_FORCEINLINE static inline
#endif
#endif

typedef nnc_prv_fq nnc_fq;
typedef nnc_prv_fr nnc_fr;

/* A modulus and its Montgomery constants, R = 2^256. */
typedef struct nnc_fe4_mod {
    uint64_t p[4];    /* odd modulus, little-endian limbs, 2 < p < 2^256 */
    uint64_t n0;      /* -p^-1 mod 2^64 */
    uint64_t one[4];  /* R mod p (1 in Montgomery form) */
    uint64_t r2[4];   /* R^2 mod p (converts into Montgomery form) */
    uint64_t r3[4];   /* R^3 mod p (used by the binary inversion) */
} nnc_fe4_mod;

/* Constants from prover/gen_constants.py; test_prover_field recomputes them. */
#define NNC_FQ_MOD_INIT                                                                 \
    {{0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}, \
     0x87d20782e4866389ULL,                                                             \
     {0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL, 0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL}, \
     {0xf32cfc5b538afa89ULL, 0xb5e71911d44501fbULL, 0x47ab1eff0a417ff6ULL, 0x06d89f71cab8351fULL}, \
     {0xb1cd6dafda1530dfULL, 0x62f210e6a7283db6ULL, 0xef7f0b0c0ada0afbULL, 0x20fd6e902d592544ULL}}
#define NNC_FR_MOD_INIT                                                                 \
    {{0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}, \
     0xc2e1f593efffffffULL,                                                             \
     {0xac96341c4ffffffbULL, 0x36fc76959f60cd29ULL, 0x666ea36f7879462eULL, 0x0e0a77c19a07df2fULL}, \
     {0x1bb8e645ae216da7ULL, 0x53fe3ab1e35c59e3ULL, 0x8c49833d53bb8085ULL, 0x0216d0b17f4e44a5ULL}, \
     {0x5e94d8e1b4bf0040ULL, 0x2a489cbe1cfbb6b8ULL, 0x893cc664a19fcfedULL, 0x0cf8594b7fcc657cULL}}

/* The moduli as integers (little-endian limbs); r is also the group order. */
#define NNC_FQ_MODULUS_INIT \
    {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}
#define NNC_FR_MODULUS_INIT \
    {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}

/* Exponents (canonical integers, little-endian limbs). */
#define NNC_FQ_SQRT_EXP_INIT /* (p+1)/4 */ \
    {0x4f082305b61f3f52ULL, 0x65e05aa45a1c72a3ULL, 0x6e14116da0605617ULL, 0x0c19139cb84c680aULL}
#define NNC_FQ_SQRT3_EXP_INIT /* (p-3)/4 */ \
    {0x4f082305b61f3f51ULL, 0x65e05aa45a1c72a3ULL, 0x6e14116da0605617ULL, 0x0c19139cb84c680aULL}
#define NNC_FQ_HALF_EXP_INIT /* (p-1)/2 */ \
    {0x9e10460b6c3e7ea3ULL, 0xcbc0b548b438e546ULL, 0xdc2822db40c0ac2eULL, 0x183227397098d014ULL}
#define NNC_FR_HALF_EXP_INIT /* (r-1)/2 */ \
    {0xa1f0fac9f8000000ULL, 0x9419f4243cdcb848ULL, 0xdc2822db40c0ac2eULL, 0x183227397098d014ULL}
/* r - 1 = 2^NNC_FR_TWO_ADICITY * t, t odd. */
#define NNC_FR_TWO_ADICITY 28
#define NNC_FR_TS_EXP_INIT /* (t-1)/2 */ \
    {0xcdcb848a1f0fac9fULL, 0x0c0ac2e9419f4243ULL, 0x098d014dc2822db4ULL, 0x0000000183227397ULL}
#define NNC_FR_ROOT_OF_UNITY_INIT /* 5^t: order 2^28, Montgomery form */ \
    {{0x636e735580d13d9cULL, 0xa22bf3742445ffd6ULL, 0x56452ac01eb203d8ULL, 0x1860ef942963f9e7ULL}}

/* ---- 64-bit limb primitives ---- */

#if !defined(__CUDA_ARCH__)
__extension__ typedef unsigned __int128 nnc_u128;
#endif

/* Returns: the high word of a*b + c + d; *lo gets the low word.
 * Never overflows: (2^64-1)^2 + 2*(2^64-1) = 2^128 - 1. */
NNC_FORCEINLINE uint64_t nnc_mac64(uint64_t *lo, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
#if defined(__CUDA_ARCH__)
    uint64_t l = a * b, h = __umul64hi(a, b);
    l += c;
    h += (l < c);
    l += d;
    h += (l < d);
    *lo = l;
    return h;
#else
    nnc_u128 t = (nnc_u128)a * b + c + d;
    *lo = (uint64_t)t;
    return (uint64_t)(t >> 64);
#endif
}

/* Returns: the carry (0/1) of a + b + carry; *r gets the sum. carry in {0,1}.
 * On x86-64 hosts (not nvcc) the ADC/SBB intrinsics, which gcc chains
 * through the carry flag; elsewhere portable compares. */
#if defined(__x86_64__) && !defined(__CUDACC__) && !defined(NNC_FE4_NO_ASM)
#define NNC_FE4_X86_CARRY 1
#include <immintrin.h>
#endif
NNC_FORCEINLINE uint64_t nnc_adc64(uint64_t *r, uint64_t a, uint64_t b, uint64_t carry)
{
#ifdef NNC_FE4_X86_CARRY
    unsigned long long s;
    unsigned char c = _addcarry_u64((unsigned char)carry, a, b, &s);
    *r = s;
    return c;
#else
    uint64_t s = a + carry;
    uint64_t c = (s < carry);
    s += b;
    c += (s < b);
    *r = s;
    return c;
#endif
}

/* Returns: the borrow (0/1) of a - b - borrow; *r gets the difference. */
NNC_FORCEINLINE uint64_t nnc_sbb64(uint64_t *r, uint64_t a, uint64_t b, uint64_t borrow)
{
#ifdef NNC_FE4_X86_CARRY
    unsigned long long d;
    unsigned char o = _subborrow_u64((unsigned char)borrow, a, b, &d);
    *r = d;
    return o;
#else
    uint64_t d = a - b;
    uint64_t o = (a < b);
    o |= (d < borrow);
    *r = d - borrow;
    return o;
#endif
}

/* ---- generic 4-limb Montgomery arithmetic (any odd modulus < 2^256) ---- */

/* Returns: all-ones if a < b (as 256-bit integers), else 0. */
NNC_FORCEINLINE uint64_t nnc_fe4_lt_mask(const uint64_t a[4], const uint64_t b[4])
{
    uint64_t d, br = 0;
    br = nnc_sbb64(&d, a[0], b[0], br);
    br = nnc_sbb64(&d, a[1], b[1], br);
    br = nnc_sbb64(&d, a[2], b[2], br);
    br = nnc_sbb64(&d, a[3], b[3], br);
    return 0 - br;
}

/* Returns: 1 if a == 0, else 0. */
NNC_FORCEINLINE int nnc_fe4_is_zero(const uint64_t a[4])
{
    uint64_t t = a[0] | a[1] | a[2] | a[3];
    return (int)(((t | (0 - t)) >> 63) ^ 1);
}

/* Returns: 1 if a == b, else 0. */
NNC_FORCEINLINE int nnc_fe4_eq(const uint64_t a[4], const uint64_t b[4])
{
    uint64_t t = (a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]);
    return (int)(((t | (0 - t)) >> 63) ^ 1);
}

/* r = flag ? a : r.  flag in {0,1}. */
NNC_FORCEINLINE void nnc_fe4_cmov(uint64_t r[4], const uint64_t a[4], int flag)
{
    uint64_t m = 0 - (uint64_t)flag;
    r[0] ^= m & (r[0] ^ a[0]);
    r[1] ^= m & (r[1] ^ a[1]);
    r[2] ^= m & (r[2] ^ a[2]);
    r[3] ^= m & (r[3] ^ a[3]);
}

/* r = a + b mod p.  In: a, b < p. */
NNC_FORCEINLINE void nnc_fe4_add(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                                 const nnc_fe4_mod *m)
{
    uint64_t s[4], d[4], c = 0, br = 0, keep;
    c = nnc_adc64(&s[0], a[0], b[0], c);
    c = nnc_adc64(&s[1], a[1], b[1], c);
    c = nnc_adc64(&s[2], a[2], b[2], c);
    c = nnc_adc64(&s[3], a[3], b[3], c);
    br = nnc_sbb64(&d[0], s[0], m->p[0], br);
    br = nnc_sbb64(&d[1], s[1], m->p[1], br);
    br = nnc_sbb64(&d[2], s[2], m->p[2], br);
    br = nnc_sbb64(&d[3], s[3], m->p[3], br);
    /* s + c*2^256 < p exactly when the subtraction borrowed and c == 0 */
    keep = 0 - (br & (c ^ 1));
    r[0] = (s[0] & keep) | (d[0] & ~keep);
    r[1] = (s[1] & keep) | (d[1] & ~keep);
    r[2] = (s[2] & keep) | (d[2] & ~keep);
    r[3] = (s[3] & keep) | (d[3] & ~keep);
}

/* r = a - b mod p.  In: a, b < p. */
NNC_FORCEINLINE void nnc_fe4_sub(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                                 const nnc_fe4_mod *m)
{
    uint64_t d[4], br = 0, c = 0, mask;
    br = nnc_sbb64(&d[0], a[0], b[0], br);
    br = nnc_sbb64(&d[1], a[1], b[1], br);
    br = nnc_sbb64(&d[2], a[2], b[2], br);
    br = nnc_sbb64(&d[3], a[3], b[3], br);
    mask = 0 - br;
    c = nnc_adc64(&r[0], d[0], m->p[0] & mask, c);
    c = nnc_adc64(&r[1], d[1], m->p[1] & mask, c);
    c = nnc_adc64(&r[2], d[2], m->p[2] & mask, c);
    (void)nnc_adc64(&r[3], d[3], m->p[3] & mask, c);
}

/* r = -a mod p.  In: a < p. */
NNC_FORCEINLINE void nnc_fe4_neg(uint64_t r[4], const uint64_t a[4], const nnc_fe4_mod *m)
{
    uint64_t d[4], br = 0;
    uint64_t nz = 0 - (uint64_t)(nnc_fe4_is_zero(a) ^ 1);
    br = nnc_sbb64(&d[0], m->p[0], a[0], br);
    br = nnc_sbb64(&d[1], m->p[1], a[1], br);
    br = nnc_sbb64(&d[2], m->p[2], a[2], br);
    (void)nnc_sbb64(&d[3], m->p[3], a[3], br);
    r[0] = d[0] & nz;
    r[1] = d[1] & nz;
    r[2] = d[2] & nz;
    r[3] = d[3] & nz;
}

/* One CIOS round: t += a * bi, then t = (t + q p) / 2^64 with q chosen so
 * that the low word vanishes. */
#define NNC_FE4_CIOS_ROUND(bi)                                 \
    do {                                                       \
        c = nnc_mac64(&t0, a[0], (bi), t0, 0);                 \
        c = nnc_mac64(&t1, a[1], (bi), t1, c);                 \
        c = nnc_mac64(&t2, a[2], (bi), t2, c);                 \
        c = nnc_mac64(&t3, a[3], (bi), t3, c);                 \
        t4 += c;                                               \
        t5 = (t4 < c);                                         \
        q = t0 * m->n0;                                        \
        c = nnc_mac64(&lo, q, m->p[0], t0, 0); /* lo == 0 */   \
        c = nnc_mac64(&t0, q, m->p[1], t1, c);                 \
        c = nnc_mac64(&t1, q, m->p[2], t2, c);                 \
        c = nnc_mac64(&t2, q, m->p[3], t3, c);                 \
        t3 = t4 + c;                                           \
        t4 = t5 + (t3 < c);                                    \
    } while (0)

/* r = a * b * R^-1 mod p (Montgomery product), CIOS, rounds unrolled.
 * In: a < 2^256, b < p (in particular any two elements).  After each round
 * t = t4*2^256 + (t3..t0) < 2p, so t4 <= 1 and one conditional subtraction
 * reduces the result below p. */
NNC_FORCEINLINE void nnc_fe4_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                                 const nnc_fe4_mod *m)
{
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5, c, q, lo;
    uint64_t b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    uint64_t d[4], br = 0, keep;
    NNC_FE4_CIOS_ROUND(b0);
    NNC_FE4_CIOS_ROUND(b1);
    NNC_FE4_CIOS_ROUND(b2);
    NNC_FE4_CIOS_ROUND(b3);
    (void)lo;
    br = nnc_sbb64(&d[0], t0, m->p[0], br);
    br = nnc_sbb64(&d[1], t1, m->p[1], br);
    br = nnc_sbb64(&d[2], t2, m->p[2], br);
    br = nnc_sbb64(&d[3], t3, m->p[3], br);
    keep = 0 - (br & (t4 ^ 1)); /* t < p */
    r[0] = (t0 & keep) | (d[0] & ~keep);
    r[1] = (t1 & keep) | (d[1] & ~keep);
    r[2] = (t2 & keep) | (d[2] & ~keep);
    r[3] = (t3 & keep) | (d[3] & ~keep);
}
#undef NNC_FE4_CIOS_ROUND

/* NNC_FE4_ADX: the BN254 products below use MULX/ADCX/ADOX (BMI2 + ADX)
 * where the CPU has them, chosen at run time (nnc_isa_adx(), common/isa.h;
 * NNC_ISA=generic turns them off): the instructions sit in assembly text,
 * so no file needs -mbmi2 -madx and the binary runs on any x86-64.
 * NNC_FE4_NO_ASM leaves them out of the build.  CUDA code never sees them. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && \
    !defined(NNC_FE4_NO_ASM)
#define NNC_FE4_ADX 1
#include "common/isa.h"

/* One CIOS round of nnc_fe4_mul_adx in assembly text: t += a b_i, then
 * t = (t + q p) / 2^64 with q = t0 n0 mod 2^64.  The five words of t are
 * the operands T0..T4 (T4 is written, not read: it starts the round as
 * zero, so the first product's high word goes straight into it), and
 * after the round t is (T1 T2 T3 T4) with T0 = 0: the next round renames
 * instead of moving words.  Two carry chains (CF through ADCX on the low
 * words, OF through ADOX on the high words) run interleaved; since a, b < p
 * and p < 2^254, t < 2p before and after every round and every partial sum
 * fits five words, so neither chain carries out of T4. */
#define NNC_FE4_ADX_ROUND(T0, T1, T2, T3, T4, BI)                                                              \
    "movq " BI ", %%rdx\n\t"                                                                                    \
    "xorl %k[z], %k[z]\n\t"                                                                                     \
    "mulxq 0(%[a]), %[lo], %[hi]\n\tadcxq %[lo], %[" #T0 "]\n\tadoxq %[hi], %[" #T1 "]\n\t"                     \
    "mulxq 8(%[a]), %[lo], %[hi]\n\tadcxq %[lo], %[" #T1 "]\n\tadoxq %[hi], %[" #T2 "]\n\t"                     \
    "mulxq 16(%[a]), %[lo], %[hi]\n\tadcxq %[lo], %[" #T2 "]\n\tadoxq %[hi], %[" #T3 "]\n\t"                    \
    "mulxq 24(%[a]), %[lo], %[" #T4 "]\n\tadcxq %[lo], %[" #T3 "]\n\t"                                          \
    "adoxq %[z], %[" #T4 "]\n\tadcxq %[z], %[" #T4 "]\n\t"                                                      \
    "movq %[n0], %%rdx\n\timulq %[" #T0 "], %%rdx\n\t"                                                         \
    "xorl %k[z], %k[z]\n\t"                                                                                     \
    "mulxq 0(%[p]), %[lo], %[hi]\n\tadcxq %[lo], %[" #T0 "]\n\tadoxq %[hi], %[" #T1 "]\n\t"                     \
    "mulxq 8(%[p]), %[lo], %[hi]\n\tadcxq %[lo], %[" #T1 "]\n\tadoxq %[hi], %[" #T2 "]\n\t"                     \
    "mulxq 16(%[p]), %[lo], %[hi]\n\tadcxq %[lo], %[" #T2 "]\n\tadoxq %[hi], %[" #T3 "]\n\t"                    \
    "mulxq 24(%[p]), %[lo], %[hi]\n\tadcxq %[lo], %[" #T3 "]\n\tadoxq %[hi], %[" #T4 "]\n\t"                    \
    "adcxq %[z], %[" #T4 "]\n\t"

/* As nnc_fe4_mul for a, b < p and p < 2^254: the four rounds in one
 * assembly block, so t stays in registers and the compiler keeps its own
 * values live across the product (no memory clobber: the block declares
 * the words of a, b and p it reads). */
NNC_FORCEINLINE void nnc_fe4_mul_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                                     const nnc_fe4_mod *m)
{
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4, lo, hi, z, d[4], br = 0, keep;
    __asm__(NNC_FE4_ADX_ROUND(t0, t1, t2, t3, t4, "0(%[b])")
            NNC_FE4_ADX_ROUND(t1, t2, t3, t4, t0, "8(%[b])")
            NNC_FE4_ADX_ROUND(t2, t3, t4, t0, t1, "16(%[b])")
            NNC_FE4_ADX_ROUND(t3, t4, t0, t1, t2, "24(%[b])")
            : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "=&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
            : [a] "r"(a), [b] "r"(b), [p] "r"(m->p), [n0] "rm"(m->n0), "m"(*(const uint64_t(*)[4])a),
              "m"(*(const uint64_t(*)[4])b), "m"(*(const uint64_t(*)[4])m->p)
            : "rdx", "cc");
    /* t = (t2 t1 t0 t4), < 2p */
    br = nnc_sbb64(&d[0], t4, m->p[0], br);
    br = nnc_sbb64(&d[1], t0, m->p[1], br);
    br = nnc_sbb64(&d[2], t1, m->p[2], br);
    br = nnc_sbb64(&d[3], t2, m->p[3], br);
    keep = 0 - br; /* t < p */
    r[0] = (t4 & keep) | (d[0] & ~keep);
    r[1] = (t0 & keep) | (d[1] & ~keep);
    r[2] = (t1 & keep) | (d[2] & ~keep);
    r[3] = (t2 & keep) | (d[3] & ~keep);
}
#undef NNC_FE4_ADX_ROUND

/* nnc_fe4_mul_adx where the CPU has BMI2 and ADX, else nnc_fe4_mul (the
 * same function); the test is one load of a cached flag and a branch that
 * always goes the same way. */
NNC_FORCEINLINE void nnc_fe4_mul_sel(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                                     const nnc_fe4_mod *m)
{
    int on = nnc_isa_adx_state;
    if (__builtin_expect(on < 0, 0)) on = nnc_isa_adx();
    if (__builtin_expect(on, 1)) nnc_fe4_mul_adx(r, a, b, m);
    else nnc_fe4_mul(r, a, b, m);
}
#define NNC_FE4_MUL_ELEM nnc_fe4_mul_sel
/* the assembly reads p from memory: a static copy, not one built on the
 * stack at every product */
#define NNC_FE4_MUL_MOD static
#else
#define NNC_FE4_MUL_ELEM nnc_fe4_mul
#define NNC_FE4_MUL_MOD
#endif

/* r = a^e (Montgomery in, Montgomery out), e a public 256-bit exponent in
 * little-endian limbs.  Fixed 4-bit windows; the table index depends only on
 * e, so the time does not depend on a.  a^0 = 1 (also for a = 0). */
NNC_NOINLINE void nnc_fe4_pow(uint64_t r[4], const uint64_t a[4], const uint64_t e[4],
                            const nnc_fe4_mod *m)
{
    uint64_t tab[16][4], acc[4];
    int i, j, started = 0;
    for (j = 0; j < 4; j++) {
        tab[0][j] = m->one[j];
        tab[1][j] = a[j];
    }
    for (i = 2; i < 16; i++)
        nnc_fe4_mul(tab[i], tab[i - 1], a, m);
    for (j = 0; j < 4; j++)
        acc[j] = m->one[j];
    for (i = 63; i >= 0; i--) {
        unsigned nib = (unsigned)(e[i >> 4] >> ((i & 15) * 4)) & 15;
        if (started) {
            nnc_fe4_mul(acc, acc, acc, m);
            nnc_fe4_mul(acc, acc, acc, m);
            nnc_fe4_mul(acc, acc, acc, m);
            nnc_fe4_mul(acc, acc, acc, m);
        }
        if (nib) {
            nnc_fe4_mul(acc, acc, tab[nib], m);
            started = 1;
        }
    }
    for (j = 0; j < 4; j++)
        r[j] = acc[j];
}

/* r = a^-1 (0 for a = 0) by Fermat, a^(p-2).  Requires p prime. */
NNC_INLINE void nnc_fe4_inv(uint64_t r[4], const uint64_t a[4], const nnc_fe4_mod *m)
{
    uint64_t e[4], br;
    br = nnc_sbb64(&e[0], m->p[0], 2, 0);
    br = nnc_sbb64(&e[1], m->p[1], 0, br);
    br = nnc_sbb64(&e[2], m->p[2], 0, br);
    (void)nnc_sbb64(&e[3], m->p[3], 0, br);
    nnc_fe4_pow(r, a, e, m);
}

/* x = (x + (x odd ? p : 0)) / 2 mod p.  In: x < p. */
NNC_FORCEINLINE void nnc_fe4_half(uint64_t x[4], const nnc_fe4_mod *m)
{
    uint64_t mask = 0 - (x[0] & 1), c = 0;
    c = nnc_adc64(&x[0], x[0], m->p[0] & mask, c);
    c = nnc_adc64(&x[1], x[1], m->p[1] & mask, c);
    c = nnc_adc64(&x[2], x[2], m->p[2] & mask, c);
    c = nnc_adc64(&x[3], x[3], m->p[3] & mask, c);
    x[0] = (x[0] >> 1) | (x[1] << 63);
    x[1] = (x[1] >> 1) | (x[2] << 63);
    x[2] = (x[2] >> 1) | (x[3] << 63);
    x[3] = (x[3] >> 1) | (c << 63);
}

/* r = a^-1 (0 for a = 0) by the binary extended Euclidean algorithm.
 * Variable time.  Requires p prime.  With x = aR the loop computes
 * x^-1 = a^-1 R^-1; the Montgomery product with R^3 gives a^-1 R. */
NNC_NOINLINE void nnc_fe4_inv_var(uint64_t r[4], const uint64_t a[4], const nnc_fe4_mod *m)
{
    uint64_t u[4], v[4], x1[4] = {1, 0, 0, 0}, x2[4] = {0, 0, 0, 0};
    const uint64_t one_int[4] = {1, 0, 0, 0};
    int j;
    if (nnc_fe4_is_zero(a)) {
        r[0] = r[1] = r[2] = r[3] = 0;
        return;
    }
    for (j = 0; j < 4; j++) {
        u[j] = a[j];
        v[j] = m->p[j];
    }
    /* invariants: x1*a' = u, x2*a' = v (mod p) for a' = aR; u, v > 0 */
    while (!nnc_fe4_eq(u, one_int) && !nnc_fe4_eq(v, one_int)) {
        while ((u[0] & 1) == 0) {
            u[0] = (u[0] >> 1) | (u[1] << 63);
            u[1] = (u[1] >> 1) | (u[2] << 63);
            u[2] = (u[2] >> 1) | (u[3] << 63);
            u[3] >>= 1;
            nnc_fe4_half(x1, m);
        }
        while ((v[0] & 1) == 0) {
            v[0] = (v[0] >> 1) | (v[1] << 63);
            v[1] = (v[1] >> 1) | (v[2] << 63);
            v[2] = (v[2] >> 1) | (v[3] << 63);
            v[3] >>= 1;
            nnc_fe4_half(x2, m);
        }
        if (!nnc_fe4_lt_mask(u, v)) {
            uint64_t br = 0;
            br = nnc_sbb64(&u[0], u[0], v[0], br);
            br = nnc_sbb64(&u[1], u[1], v[1], br);
            br = nnc_sbb64(&u[2], u[2], v[2], br);
            (void)nnc_sbb64(&u[3], u[3], v[3], br);
            nnc_fe4_sub(x1, x1, x2, m);
        } else {
            uint64_t br = 0;
            br = nnc_sbb64(&v[0], v[0], u[0], br);
            br = nnc_sbb64(&v[1], v[1], u[1], br);
            br = nnc_sbb64(&v[2], v[2], u[2], br);
            (void)nnc_sbb64(&v[3], v[3], u[3], br);
            nnc_fe4_sub(x2, x2, x1, m);
        }
    }
    nnc_fe4_mul(r, nnc_fe4_eq(u, one_int) ? x1 : x2, m->r3, m);
}

/* Out: r, the canonical integer of a (a*R^-1).  r is not an element. */
NNC_FORCEINLINE void nnc_fe4_to_int(uint64_t r[4], const uint64_t a[4], const nnc_fe4_mod *m)
{
    const uint64_t one_int[4] = {1, 0, 0, 0};
    nnc_fe4_mul(r, a, one_int, m);
}

/* Returns: 1 and sets r = x*R mod p if the integer x < p; else 0 and r = 0. */
NNC_FORCEINLINE int nnc_fe4_from_int(uint64_t r[4], const uint64_t x[4], const nnc_fe4_mod *m)
{
    uint64_t mask = nnc_fe4_lt_mask(x, m->p);
    nnc_fe4_mul(r, x, m->r2, m); /* x < 2^256 suffices for the product's bound here */
    r[0] &= mask;
    r[1] &= mask;
    r[2] &= mask;
    r[3] &= mask;
    return (int)(mask & 1);
}

/* Out: r = the integer as 32 bytes in order e.  In: x canonical integer. */
NNC_FORCEINLINE void nnc_fe4_int_to_b32(unsigned char *out, const uint64_t x[4], nnc_prv_endian e)
{
    int i;
    for (i = 0; i < 32; i++) {
        unsigned char byte = (unsigned char)(x[i >> 3] >> ((i & 7) * 8));
        out[e == NNC_PRV_ENDIAN_LITTLE ? i : 31 - i] = byte;
    }
}

/* Out: x = the integer in 32 bytes of order e. */
NNC_FORCEINLINE void nnc_fe4_int_from_b32(uint64_t x[4], const unsigned char *in, nnc_prv_endian e)
{
    int i;
    x[0] = x[1] = x[2] = x[3] = 0;
    for (i = 0; i < 32; i++) {
        uint64_t byte = in[e == NNC_PRV_ENDIAN_LITTLE ? i : 31 - i];
        x[i >> 3] |= byte << ((i & 7) * 8);
    }
}

/* ---- Fq and Fr ----
 * Each field gets the same set of functions; NNC_FE4_FIELD defines them for
 * a prefix (nnc_fq / nnc_fr), its element type and its modulus initialiser.
 *   set_zero, set_one, set_u64, copy, is_zero, is_one, eq, cmov,
 *   add, dbl, sub, neg, mul, sqr, pow (public exponent), inv (Fermat),
 *   inv_var (binary Euclid), inv_batch (Montgomery's trick),
 *   to_int / from_int (canonical integers), get_b32 / set_b32. */
#define NNC_FE4_FIELD(P, T, MODINIT)                                                          \
    NNC_FORCEINLINE void P##_set_zero(T *r) { r->v[0] = r->v[1] = r->v[2] = r->v[3] = 0; }    \
    NNC_FORCEINLINE void P##_set_one(T *r)                                                    \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        r->v[0] = m.one[0]; r->v[1] = m.one[1]; r->v[2] = m.one[2]; r->v[3] = m.one[3];       \
    }                                                                                         \
    /* r = x (any 64-bit value; x < m since m > 2^253) */                                      \
    NNC_FORCEINLINE void P##_set_u64(T *r, uint64_t x)                                        \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        const uint64_t t[4] = {x, 0, 0, 0};                                                   \
        nnc_fe4_mul(r->v, t, m.r2, &m);                                                       \
    }                                                                                         \
    NNC_FORCEINLINE int P##_is_zero(const T *a) { return nnc_fe4_is_zero(a->v); }             \
    NNC_FORCEINLINE int P##_eq(const T *a, const T *b) { return nnc_fe4_eq(a->v, b->v); }     \
    NNC_FORCEINLINE int P##_is_one(const T *a)                                                \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        return nnc_fe4_eq(a->v, m.one);                                                       \
    }                                                                                         \
    /* r = flag ? a : r, flag in {0,1} */                                                     \
    NNC_FORCEINLINE void P##_cmov(T *r, const T *a, int flag) { nnc_fe4_cmov(r->v, a->v, flag); } \
    NNC_FORCEINLINE void P##_add(T *r, const T *a, const T *b)                                \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        nnc_fe4_add(r->v, a->v, b->v, &m);                                                    \
    }                                                                                         \
    NNC_FORCEINLINE void P##_dbl(T *r, const T *a)                                            \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        nnc_fe4_add(r->v, a->v, a->v, &m);                                                    \
    }                                                                                         \
    NNC_FORCEINLINE void P##_sub(T *r, const T *a, const T *b)                                \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        nnc_fe4_sub(r->v, a->v, b->v, &m);                                                    \
    }                                                                                         \
    NNC_FORCEINLINE void P##_neg(T *r, const T *a)                                            \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        nnc_fe4_neg(r->v, a->v, &m);                                                          \
    }                                                                                         \
    NNC_INLINE void P##_mul(T *r, const T *a, const T *b)                                     \
    {                                                                                         \
        NNC_FE4_MUL_MOD const nnc_fe4_mod m = MODINIT;                                        \
        NNC_FE4_MUL_ELEM(r->v, a->v, b->v, &m);                                               \
    }                                                                                         \
    NNC_INLINE void P##_sqr(T *r, const T *a)                                                 \
    {                                                                                         \
        NNC_FE4_MUL_MOD const nnc_fe4_mod m = MODINIT;                                        \
        NNC_FE4_MUL_ELEM(r->v, a->v, a->v, &m);                                               \
    }                                                                                         \
    /* r = a^e, e a public integer (little-endian limbs) */                                   \
    NNC_INLINE void P##_pow(T *r, const T *a, const uint64_t e[4])                            \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        nnc_fe4_pow(r->v, a->v, e, &m);                                                       \
    }                                                                                         \
    /* r = a^-1, 0 for a = 0 */                                                               \
    NNC_INLINE void P##_inv(T *r, const T *a)                                                 \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        nnc_fe4_inv(r->v, a->v, &m);                                                          \
    }                                                                                         \
    NNC_INLINE void P##_inv_var(T *r, const T *a)                                             \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        nnc_fe4_inv_var(r->v, a->v, &m);                                                      \
    }                                                                                         \
    /* out[i] = in[i]^-1 (0 stays 0) with one inversion and 3(n-1) products.                  \
     * out and in must not overlap.  Selection by masks, no branch on values. */             \
    NNC_NOINLINE void P##_inv_batch(T *out, const T *in, size_t n)                            \
    {                                                                                         \
        T acc, t, x;                                                                          \
        size_t i;                                                                             \
        if (n == 0) return;                                                                   \
        P##_set_one(&acc);                                                                    \
        for (i = 0; i < n; i++) { /* out[i] = product of the nonzero in[0..i-1] */            \
            out[i] = acc;                                                                     \
            P##_mul(&t, &acc, &in[i]);                                                        \
            P##_cmov(&acc, &t, P##_is_zero(&in[i]) ^ 1);                                      \
        }                                                                                     \
        P##_inv(&acc, &acc); /* acc = inverse of the product of all nonzero in[] */           \
        for (i = n; i-- > 0;) {                                                               \
            int z = P##_is_zero(&in[i]);                                                      \
            P##_mul(&x, &acc, &out[i]);                                                       \
            P##_mul(&t, &acc, &in[i]);                                                        \
            P##_cmov(&acc, &t, z ^ 1);                                                        \
            P##_set_zero(&t);                                                                 \
            P##_cmov(&x, &t, z);                                                              \
            out[i] = x;                                                                       \
        }                                                                                     \
    }                                                                                         \
    /* Out: x, the canonical integer of a */                                                  \
    NNC_FORCEINLINE void P##_to_int(uint64_t x[4], const T *a)                                \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        nnc_fe4_to_int(x, a->v, &m);                                                          \
    }                                                                                         \
    /* Returns: 1 if the integer x < modulus (then r = x), else 0 (r = 0) */            \
    NNC_FORCEINLINE int P##_from_int(T *r, const uint64_t x[4])                               \
    {                                                                                         \
        const nnc_fe4_mod m = MODINIT;                                                        \
        return nnc_fe4_from_int(r->v, x, &m);                                                 \
    }                                                                                         \
    NNC_FORCEINLINE void P##_get_b32(unsigned char *out, const T *a, nnc_prv_endian e)        \
    {                                                                                         \
        uint64_t x[4];                                                                        \
        P##_to_int(x, a);                                                                     \
        nnc_fe4_int_to_b32(out, x, e);                                                        \
    }                                                                                         \
    /* Returns: 1 if the 32 bytes encode a value < modulus (then r is set), else 0 (r = 0) */         \
    NNC_FORCEINLINE int P##_set_b32(T *r, const unsigned char *in, nnc_prv_endian e)          \
    {                                                                                         \
        uint64_t x[4];                                                                        \
        nnc_fe4_int_from_b32(x, in, e);                                                       \
        return P##_from_int(r, x);                                                            \
    }

NNC_FE4_FIELD(nnc_fq, nnc_fq, NNC_FQ_MOD_INIT)
NNC_FE4_FIELD(nnc_fr, nnc_fr, NNC_FR_MOD_INIT)

/* Returns: 1 if a is a square in Fq (0 is), else 0.  Euler's criterion. */
NNC_INLINE int nnc_fq_is_square(const nnc_fq *a)
{
    const uint64_t e[4] = NNC_FQ_HALF_EXP_INIT;
    nnc_fq t;
    nnc_fq_pow(&t, a, e);
    return nnc_fq_is_one(&t) | nnc_fq_is_zero(a);
}

/* Returns: 1 if a is a square; then r^2 = a (r = a^((p+1)/4), p = 3 mod 4).
 * Otherwise 0, and r = a^((p+1)/4) is not a root.  Constant time. */
NNC_NOINLINE int nnc_fq_sqrt(nnc_fq *r, const nnc_fq *a)
{
    const uint64_t e[4] = NNC_FQ_SQRT_EXP_INIT;
    nnc_fq c, c2;
    int ok;
    nnc_fq_pow(&c, a, e);
    nnc_fq_sqr(&c2, &c);
    ok = nnc_fq_eq(&c2, a);
    *r = c;
    return ok;
}

/* Returns: 1 if a is a square in Fr (0 is), else 0. */
NNC_INLINE int nnc_fr_is_square(const nnc_fr *a)
{
    const uint64_t e[4] = NNC_FR_HALF_EXP_INIT;
    nnc_fr t;
    nnc_fr_pow(&t, a, e);
    return nnc_fr_is_one(&t) | nnc_fr_is_zero(a);
}

/* Returns: 1 if a is a square, then r^2 = a; else 0 (r unspecified, in range).
 * Constant-time Tonelli-Shanks (RFC 9380, appendix I.4) with the
 * non-residue 5: a fixed sequence of products, selection by masks. */
NNC_NOINLINE int nnc_fr_sqrt(nnc_fr *r, const nnc_fr *a)
{
    const uint64_t c3[4] = NNC_FR_TS_EXP_INIT;
    const nnc_fr c5 = NNC_FR_ROOT_OF_UNITY_INIT;
    nnc_fr z, t, b, c, zt, tt, chk;
    int i, j, e;
    nnc_fr_pow(&z, a, c3);   /* z = a^((t-1)/2) */
    nnc_fr_sqr(&t, &z);
    nnc_fr_mul(&t, &t, a);   /* t = a^t */
    nnc_fr_mul(&z, &z, a);   /* z = a^((t+1)/2) */
    b = t;
    c = c5;
    for (i = NNC_FR_TWO_ADICITY; i >= 2; i--) {
        for (j = 1; j <= i - 2; j++)
            nnc_fr_sqr(&b, &b);
        e = nnc_fr_is_one(&b);
        nnc_fr_mul(&zt, &z, &c);
        nnc_fr_cmov(&z, &zt, e ^ 1);
        nnc_fr_sqr(&c, &c);
        nnc_fr_mul(&tt, &t, &c);
        nnc_fr_cmov(&t, &tt, e ^ 1);
        b = t;
    }
    nnc_fr_sqr(&chk, &z);
    e = nnc_fr_eq(&chk, a);
    *r = z;
    return e;
}

#endif
