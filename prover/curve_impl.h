/* BN254 groups G1 and G2, inline formulas for gcc and nvcc.
 *   G1: y^2 = x^3 + 3 over Fq; the whole curve has prime order r.
 *   G2: y^2 = x^3 + b2 over Fq2, b2 = 3/(9+u) (the D-type sextic twist);
 *       the group is the order-r subgroup, the cofactor is ~2^254.
 * Functions (nnc_g1_* and nnc_g2_*, see prover/curve_tmpl_impl.h):
 *   aff_set_inf aff_is_inf jac_set_inf jac_is_inf aff_to_jac jac_to_aff[_var]
 *   aff_is_on_curve jac_is_on_curve aff_neg jac_neg aff_eq jac_eq jac_dbl
 *   jac_add[_var] jac_add_aff[_var] jac_mul[_var]
 * plus generators and the G2 subgroup check below.  Scalars are 256-bit
 * integers in little-endian 64-bit limbs (not Montgomery form). */
#ifndef NNC_PRV_CURVE_IMPL_H
#define NNC_PRV_CURVE_IMPL_H

#include "prover/tower_impl.h"

/* b = 3, Montgomery form */
NNC_FORCEINLINE void nnc_g1_set_b(nnc_fq *r)
{
    const nnc_fq b = {{0x7a17caa950ad28d7ULL, 0x1f6ac17ae15521b9ULL, 0x334bea4e696bd284ULL,
                       0x2a1f6744ce179d8eULL}};
    *r = b;
}
/* b2 = 3/(9+u) = 19485874751759354771024239261021720505790618469301721065564631296452457478373
 *              + 266929791119991161246907387137283842545076965332900288569378510910307636690 u */
NNC_FORCEINLINE void nnc_g2_set_b(nnc_fq2 *r)
{
    const nnc_fq2 b = {{{0x3bf938e377b802a8ULL, 0x020b1b273633535dULL, 0x26b7edf049755260ULL, 0x2514c6324384a86dULL}},
                       {{0x38e7ecccd1dcff67ULL, 0x65f0b37d93ce0d3eULL, 0xd749d0dd22ac00aaULL, 0x0141b9ce4a688d4dULL}}};
    *r = b;
}

/* Returns: 1 if a > -a, i.e. its canonical value is above (p - 1) / 2: the
 * "greatest" flag of compressed points and ffjavascript's isNegative. */
NNC_INLINE int nnc_fq_greatest(const nnc_fq *a)
{
    const uint64_t half[4] = NNC_FQ_HALF_EXP_INIT;
    uint64_t x[4];
    nnc_fq_to_int(x, a);
    return (int)(nnc_fe4_lt_mask(half, x) & 1);
}

/* Returns: 1 if a > -a in the order of snarkjs and arkworks: by c1, and by
 * c0 when c1 = 0. */
NNC_INLINE int nnc_fq2_greatest(const nnc_fq2 *a)
{
    int z = nnc_fq_is_zero(&a->c1);
    int g0 = nnc_fq_greatest(&a->c0), g1 = nnc_fq_greatest(&a->c1);
    return (g0 & z) | (g1 & (z ^ 1));
}

typedef nnc_prv_g1 nnc_g1;
typedef nnc_prv_g1_jac nnc_g1_jac;
typedef nnc_prv_g2 nnc_g2;
typedef nnc_prv_g2_jac nnc_g2_jac;

#define NNC_CRV_F(op) nnc_fq_##op
#define NNC_CRV_G(op) nnc_g1_##op
#define NNC_CRV_FE nnc_fq
#define NNC_CRV_AFF nnc_g1
#define NNC_CRV_JAC nnc_g1_jac
#include "prover/curve_tmpl_impl.h"
#undef NNC_CRV_F
#undef NNC_CRV_G
#undef NNC_CRV_FE
#undef NNC_CRV_AFF
#undef NNC_CRV_JAC

#define NNC_CRV_F(op) nnc_fq2_##op
#define NNC_CRV_G(op) nnc_g2_##op
#define NNC_CRV_FE nnc_fq2
#define NNC_CRV_AFF nnc_g2
#define NNC_CRV_JAC nnc_g2_jac
#include "prover/curve_tmpl_impl.h"
#undef NNC_CRV_F
#undef NNC_CRV_G
#undef NNC_CRV_FE
#undef NNC_CRV_AFF
#undef NNC_CRV_JAC

/* G1 generator (1, 2), Montgomery form. */
NNC_FORCEINLINE void nnc_g1_generator(nnc_g1 *r)
{
    const nnc_g1 g = {{{0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL, 0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL}},
                      {{0xa6ba871b8b1e1b3aULL, 0x14f1d651eb8e167bULL, 0xccdd46def0f28c58ULL, 0x1c14ef83340fbe5eULL}}};
    *r = g;
}
/* G2 generator of snarkjs/EIP-197, Montgomery form:
 *   x = 10857046999023057135944570762232829481370756359578518086990519993285655852781
 *     + 11559732032986387107991004021392285783925812861821192530917403151452391805634 u
 *   y = 8495653923123431417604973247489272438418190587263600148770280649306958101930
 *     + 4082367875863433681332203403145435568316851327593401208105741076214120093531 u */
NNC_FORCEINLINE void nnc_g2_generator(nnc_g2 *r)
{
    const nnc_g2 g = {{{{0x8e83b5d102bc2026ULL, 0xdceb1935497b0172ULL, 0xfbb8264797811adfULL, 0x19573841af96503bULL}},
                       {{0xafb4737da84c6140ULL, 0x6043dd5a5802d8c4ULL, 0x09e950fc52a02f86ULL, 0x14fef0833aea7b6bULL}}},
                      {{{0x619dfa9d886be9f6ULL, 0xfe7fd297f59e9b78ULL, 0xff9e1a62231b7dfeULL, 0x28fd7eebae9e4206ULL}},
                       {{0x64095b56c71856eeULL, 0xdc57f922327d3cbbULL, 0x55f935be33351076ULL, 0x0da4a0e693fd6482ULL}}}};
    *r = g;
}

/* Returns: 1 if the Jacobian point a is in the order-r subgroup, i.e.
 * [r]a = infinity (a assumed on the curve).  Variable time. */
NNC_NOINLINE int nnc_g1_jac_in_subgroup_var(const nnc_g1_jac *a)
{
    const uint64_t r[4] = NNC_FR_MODULUS_INIT;
    nnc_g1_jac t;
    nnc_g1_jac_mul_var(&t, a, r);
    return nnc_g1_jac_is_inf(&t);
}
NNC_NOINLINE int nnc_g2_jac_in_subgroup_var(const nnc_g2_jac *a)
{
    const uint64_t r[4] = NNC_FR_MODULUS_INIT;
    nnc_g2_jac t;
    nnc_g2_jac_mul_var(&t, a, r);
    return nnc_g2_jac_is_inf(&t);
}

#endif
