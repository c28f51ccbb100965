/* BN254 optimal ate pairing  e: G1 x G2 -> GT (the order-r subgroup of Fq12*):
 *   e(P, Q) = (f_{6x+2,Q}(P) * l_{T,Q1}(P) * l_{T+Q1,-Q2}(P))^((p^12 - 1)/r)
 * with T = [6x+2]Q, Q1 = pi(Q), Q2 = pi^2(Q), x = 4965661367192848881.
 * The exponent is the canonical one, as in go-ethereum's bn256; the script
 * prover/gen_pairing_constants.py --vectors has an independent reference
 * implementation.  snarkjs/ffjavascript's final exponentiation (Fuentes-
 * Castaneda et al.) yields this value to the power m = 2x(6x^2 + 3x + 1);
 * the unit test checks e(G1, G2)^m against ffjavascript's value.
 *
 * Representation:
 *   - Fq12 as in prover/tower_impl.h (w^2 = v, v^3 = xi = 9 + u); G2 points
 *     lie on the D-type twist y^2 = x^3 + 3/xi and untwist to E(Fq12) by
 *     (x, y) -> (x w^2, y w^3).
 *   - The Miller loop keeps T in homogeneous projective coordinates
 *     (X/Z, Y/Z) and multiplies by sparse lines c0 + c3 w + c4 v w
 *     ("034": coefficients of w^0, w^1, w^3).  Line values are scaled by
 *     factors in Fq2, which the final exponentiation sends to 1.
 *
 * Inputs must be valid group elements (nnc_prv_g1_is_valid,
 * nnc_prv_g2_is_valid); points at infinity contribute 1.  Other points give
 * unspecified values (never undefined behaviour).  Timing depends only on
 * the number of pairs and on which points are infinity (the loop digits
 * are public constants), not on coordinates.  All functions are reentrant
 * and keep no state.
 *
 * The inline helpers after the API (sparse and cyclotomic Fq12 products,
 * Miller-loop steps, twisted Frobenius) serve prover/pairing.c and
 * tests/unit/test_prover_pairing.c. */
#ifndef NNC_PRV_PAIRING_IMPL_H
#define NNC_PRV_PAIRING_IMPL_H

#include "prover/curve_impl.h"
#include "prover/pairing_constants_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- public API (implemented in prover/pairing.c) ---- */

/* Miller loops of the pairs (p[i], q[i]), multiplied together; infinity
 * pairs contribute 1, so n = 0 gives 1.  The result is meaningful only
 * after nnc_prv_final_exp.
 * Out: *out.
 * In:  p[n], q[n] valid points (not checked); n any size (processed in
 *      batches of NNC_PAIRING_BATCH sharing the Fq12 squarings). */
void nnc_prv_miller_loop(nnc_fq12 *out, const nnc_prv_g1 *p, const nnc_prv_g2 *q, size_t n);

/* Final exponentiation: *out = f^((p^12 - 1)/r), in GT.
 * Easy part f^((p^6 - 1)(p^2 + 1)), hard part (p^4 - p^2 + 1)/r by the
 * Devegili-Scott-Dahab / Scott et al. addition chain in x (three
 * exponentiations by x with cyclotomic squarings).
 * Out: *out (may alias f).
 * In:  f nonzero (every Miller loop value is). */
void nnc_prv_final_exp(nnc_fq12 *out, const nnc_fq12 *f);

/* The reduced pairing e(p, q); 1 if either point is infinity.
 * Out: *out.  In: p, q valid points. */
void nnc_prv_pairing(nnc_fq12 *out, const nnc_prv_g1 *p, const nnc_prv_g2 *q);

/* Returns: 1 if prod_i e(p[i], q[i]) == 1 (one final exponentiation of the
 *          product of the Miller loops), else 0.  n = 0 returns 1.
 * In: p[n], q[n] valid points (callers check points read from outside
 *     first, e.g. Groth16 proof elements); infinity pairs contribute 1. */
int nnc_prv_pairing_check(const nnc_prv_g1 *p, const nnc_prv_g2 *q, size_t n);

/* Pairs per multi-Miller loop batch (the projective T points live on the stack). */
#define NNC_PAIRING_BATCH 8

/* ---- inline helpers ---- */

/* G2 point in homogeneous projective form: (X/Z, Y/Z); used only for the
 * running point T of the Miller loop, which is never infinity there. */
typedef struct nnc_g2_proj { nnc_fq2 x, y, z; } nnc_g2_proj;

/* A line through points of the twist, untwisted and evaluated at a G1
 * point: c0 + c3 w + c4 v w in Fq12 (other coefficients 0). */
typedef struct nnc_pairing_line { nnc_fq2 c0, c3, c4; } nnc_pairing_line;

/* r = a * (b0 + b1 v), 5 Fq2 products. */
NNC_INLINE void nnc_fq6_mul_by_01(nnc_fq6 *r, const nnc_fq6 *a, const nnc_fq2 *b0, const nnc_fq2 *b1)
{
    nnc_fq2 v0, v1, t0, t1, t2, s;
    nnc_fq2_mul(&v0, &a->c0, b0);
    nnc_fq2_mul(&v1, &a->c1, b1);
    /* c0 = a0 b0 + xi a2 b1 */
    nnc_fq2_add(&s, &a->c1, &a->c2);
    nnc_fq2_mul(&t0, &s, b1);
    nnc_fq2_sub(&t0, &t0, &v1);
    nnc_fq2_mul_by_xi(&t0, &t0);
    nnc_fq2_add(&t0, &t0, &v0);
    /* c2 = a2 b0 + a1 b1 */
    nnc_fq2_add(&s, &a->c0, &a->c2);
    nnc_fq2_mul(&t2, &s, b0);
    nnc_fq2_sub(&t2, &t2, &v0);
    nnc_fq2_add(&t2, &t2, &v1);
    /* c1 = a0 b1 + a1 b0 */
    nnc_fq2_add(&s, b0, b1);
    nnc_fq2_add(&t1, &a->c0, &a->c1);
    nnc_fq2_mul(&t1, &t1, &s);
    nnc_fq2_sub(&t1, &t1, &v0);
    nnc_fq2_sub(&t1, &t1, &v1);
    r->c0 = t0;
    r->c1 = t1;
    r->c2 = t2;
}

/* r = a * l for a line l = c0 + c3 w + c4 v w: 13 Fq2 products instead of 18.
 * With l = L0 + L1 w, L0 = c0, L1 = c3 + c4 v:
 *   r0 = a0 L0 + v a1 L1,  r1 = (a0 + a1)(L0 + L1) - a0 L0 - a1 L1. */
NNC_NOINLINE void nnc_fq12_mul_by_034(nnc_fq12 *r, const nnc_fq12 *a, const nnc_pairing_line *l)
{
    nnc_fq6 t0, t1, s;
    nnc_fq2 l0;
    nnc_fq6_mul_fq2(&t0, &a->c0, &l->c0);
    nnc_fq6_mul_by_01(&t1, &a->c1, &l->c3, &l->c4);
    nnc_fq6_add(&s, &a->c0, &a->c1);
    nnc_fq2_add(&l0, &l->c0, &l->c3);
    nnc_fq6_mul_by_01(&s, &s, &l0, &l->c4);
    nnc_fq6_sub(&s, &s, &t0);
    nnc_fq6_sub(&r->c1, &s, &t1);
    nnc_fq6_mul_by_v(&t1, &t1);
    nnc_fq6_add(&r->c0, &t0, &t1);
}

/* r = a^2 for a in the cyclotomic subgroup (a^(p^6+1) = 1, e.g. after the
 * easy part of the final exponentiation); wrong for other a.
 * Granger and Scott, "Faster squaring in the cyclotomic subgroup of sixth
 * degree extensions" (PKC 2010).  With s = w^3 (s^2 = xi) and
 * Fq4 = Fq2[s], a = A + B w + C w^2 for
 *   A = z0 + z1 s = a.c0.c0 + a.c1.c1 s,
 *   B = z2 + z3 s = a.c1.c0 + a.c0.c2 s,
 *   C = z4 + z5 s = a.c0.c1 + a.c1.c2 s,
 * and a^2 = (3A^2 - 2 conj(A)) + (3 s C^2 + 2 conj(B)) w + (3B^2 - 2 conj(C)) w^2,
 * conj(z + z' s) = z - z' s: 6 Fq2 products (each Fq4 square costs 2). */
NNC_NOINLINE void nnc_fq12_cyclotomic_sqr(nnc_fq12 *r, const nnc_fq12 *a)
{
    nnc_fq2 t0, t1, t2, t3, t4, t5, tmp, u, z;
    const nnc_fq2 *z0 = &a->c0.c0, *z4 = &a->c0.c1, *z3 = &a->c0.c2;
    const nnc_fq2 *z2 = &a->c1.c0, *z1 = &a->c1.c1, *z5 = &a->c1.c2;
    /* (t0 + t1 s) = (z0 + z1 s)^2 */
    nnc_fq2_mul(&tmp, z0, z1);
    nnc_fq2_mul_by_xi(&u, z1);
    nnc_fq2_add(&u, &u, z0);
    nnc_fq2_add(&t0, z0, z1);
    nnc_fq2_mul(&t0, &t0, &u);
    nnc_fq2_sub(&t0, &t0, &tmp);
    nnc_fq2_mul_by_xi(&u, &tmp);
    nnc_fq2_sub(&t0, &t0, &u);
    nnc_fq2_dbl(&t1, &tmp);
    /* (t2 + t3 s) = (z2 + z3 s)^2 */
    nnc_fq2_mul(&tmp, z2, z3);
    nnc_fq2_mul_by_xi(&u, z3);
    nnc_fq2_add(&u, &u, z2);
    nnc_fq2_add(&t2, z2, z3);
    nnc_fq2_mul(&t2, &t2, &u);
    nnc_fq2_sub(&t2, &t2, &tmp);
    nnc_fq2_mul_by_xi(&u, &tmp);
    nnc_fq2_sub(&t2, &t2, &u);
    nnc_fq2_dbl(&t3, &tmp);
    /* (t4 + t5 s) = (z4 + z5 s)^2 */
    nnc_fq2_mul(&tmp, z4, z5);
    nnc_fq2_mul_by_xi(&u, z5);
    nnc_fq2_add(&u, &u, z4);
    nnc_fq2_add(&t4, z4, z5);
    nnc_fq2_mul(&t4, &t4, &u);
    nnc_fq2_sub(&t4, &t4, &tmp);
    nnc_fq2_mul_by_xi(&u, &tmp);
    nnc_fq2_sub(&t4, &t4, &u);
    nnc_fq2_dbl(&t5, &tmp);
    /* z0' = 3 t0 - 2 z0 */
    nnc_fq2_sub(&z, &t0, z0);
    nnc_fq2_dbl(&z, &z);
    nnc_fq2_add(&r->c0.c0, &z, &t0);
    /* z1' = 3 t1 + 2 z1 */
    nnc_fq2_add(&z, &t1, z1);
    nnc_fq2_dbl(&z, &z);
    nnc_fq2_add(&u, &z, &t1);
    /* z2' = 3 xi t5 + 2 z2 */
    nnc_fq2_mul_by_xi(&tmp, &t5);
    nnc_fq2_add(&z, &tmp, z2);
    nnc_fq2_dbl(&z, &z);
    nnc_fq2_add(&r->c1.c0, &z, &tmp);
    r->c1.c1 = u;
    /* z3' = 3 t4 - 2 z3 */
    nnc_fq2_sub(&z, &t4, z3);
    nnc_fq2_dbl(&z, &z);
    nnc_fq2_add(&r->c0.c2, &z, &t4);
    /* z4' = 3 t2 - 2 z4 */
    nnc_fq2_sub(&z, &t2, z4);
    nnc_fq2_dbl(&z, &z);
    nnc_fq2_add(&r->c0.c1, &z, &t2);
    /* z5' = 3 t3 + 2 z5 */
    nnc_fq2_add(&z, &t3, z5);
    nnc_fq2_dbl(&z, &z);
    nnc_fq2_add(&r->c1.c2, &z, &t3);
}

/* r = a^x, x the BN parameter, for a in the cyclotomic subgroup (there
 * conj(a) = a^-1): NAF digits of x, cyclotomic squarings. */
NNC_NOINLINE void nnc_fq12_cyclotomic_exp_x(nnc_fq12 *r, const nnc_fq12 *a)
{
    const signed char naf[NNC_PAIRING_X_NAF_LEN] = NNC_PAIRING_X_NAF_INIT;
    nnc_fq12 acc = *a, ainv;
    int i;
    nnc_fq12_conj(&ainv, a);
    for (i = 1; i < NNC_PAIRING_X_NAF_LEN; i++) {
        nnc_fq12_cyclotomic_sqr(&acc, &acc);
        if (naf[i] > 0)
            nnc_fq12_mul(&acc, &acc, a);
        else if (naf[i] < 0)
            nnc_fq12_mul(&acc, &acc, &ainv);
    }
    *r = acc;
}

/* r = (x, y, 1) */
NNC_INLINE void nnc_g2_proj_from_aff(nnc_g2_proj *r, const nnc_g2 *a)
{
    r->x = a->x;
    r->y = a->y;
    nnc_fq2_set_one(&r->z);
}

/* Doubling step: t = 2t and l = the tangent line at t (before doubling)
 * without its G1 factors: c0 = -2YZ (times yP later), c3 = 3X^2 (times xP),
 * c4 = 3b'Z^2 - Y^2.  Costello, Lange, Naehrig (PKC 2010) homogeneous
 * formulas as arranged by Aranha et al. (EUROCRYPT 2011) for a D-type twist.
 * t must not be infinity or 2-torsion (true for multiples of a G2 point). */
NNC_NOINLINE void nnc_pairing_dbl_step(nnc_g2_proj *t, nnc_pairing_line *l)
{
    const nnc_fe4_mod m = NNC_FQ_MOD_INIT;
    nnc_fq2 a, b, c, e, f, g, h, j, e2, bt;
    nnc_g2_set_b(&bt);
    nnc_fq2_mul(&a, &t->x, &t->y);
    nnc_fe4_half(a.c0.v, &m);
    nnc_fe4_half(a.c1.v, &m);        /* A = XY/2 */
    nnc_fq2_sqr(&b, &t->y);          /* B = Y^2 */
    nnc_fq2_sqr(&c, &t->z);          /* C = Z^2 */
    nnc_fq2_dbl(&e, &c);
    nnc_fq2_add(&e, &e, &c);
    nnc_fq2_mul(&e, &e, &bt);        /* E = 3 b' C */
    nnc_fq2_dbl(&f, &e);
    nnc_fq2_add(&f, &f, &e);         /* F = 3E */
    nnc_fq2_add(&g, &b, &f);
    nnc_fe4_half(g.c0.v, &m);
    nnc_fe4_half(g.c1.v, &m);        /* G = (B + F)/2 */
    nnc_fq2_add(&h, &t->y, &t->z);
    nnc_fq2_sqr(&h, &h);
    nnc_fq2_sub(&h, &h, &b);
    nnc_fq2_sub(&h, &h, &c);         /* H = (Y + Z)^2 - B - C = 2YZ */
    nnc_fq2_sqr(&j, &t->x);          /* J = X^2 */
    nnc_fq2_sqr(&e2, &e);
    /* line */
    nnc_fq2_neg(&l->c0, &h);
    nnc_fq2_dbl(&l->c3, &j);
    nnc_fq2_add(&l->c3, &l->c3, &j);
    nnc_fq2_sub(&l->c4, &e, &b);
    /* X3 = A (B - F), Y3 = G^2 - 3 E^2, Z3 = B H */
    nnc_fq2_sub(&f, &b, &f);
    nnc_fq2_mul(&t->x, &a, &f);
    nnc_fq2_sqr(&g, &g);
    nnc_fq2_dbl(&j, &e2);
    nnc_fq2_add(&j, &j, &e2);
    nnc_fq2_sub(&t->y, &g, &j);
    nnc_fq2_mul(&t->z, &b, &h);
}

/* Addition step: t = t + q and l = the line through t and q without its G1
 * factors: c0 = X - xq Z (times yP), c3 = -(Y - yq Z) (times xP),
 * c4 = (Y - yq Z) xq - (X - xq Z) yq.  q affine, t != +-q, neither infinity. */
NNC_NOINLINE void nnc_pairing_add_step(nnc_g2_proj *t, nnc_pairing_line *l, const nnc_g2 *q)
{
    nnc_fq2 theta, lambda, c, d, e, f, g, h, s;
    nnc_fq2_mul(&theta, &q->y, &t->z);
    nnc_fq2_sub(&theta, &t->y, &theta);  /* Y - yq Z */
    nnc_fq2_mul(&lambda, &q->x, &t->z);
    nnc_fq2_sub(&lambda, &t->x, &lambda); /* X - xq Z */
    nnc_fq2_sqr(&c, &theta);
    nnc_fq2_sqr(&d, &lambda);
    nnc_fq2_mul(&e, &lambda, &d);
    nnc_fq2_mul(&f, &t->z, &c);
    nnc_fq2_mul(&g, &t->x, &d);
    nnc_fq2_dbl(&h, &g);
    nnc_fq2_sub(&h, &f, &h);
    nnc_fq2_add(&h, &h, &e);             /* H = E + F - 2G */
    /* line */
    l->c0 = lambda;
    nnc_fq2_neg(&l->c3, &theta);
    nnc_fq2_mul(&l->c4, &theta, &q->x);
    nnc_fq2_mul(&s, &lambda, &q->y);
    nnc_fq2_sub(&l->c4, &l->c4, &s);
    /* X3 = lambda H, Y3 = theta (G - H) - E Y, Z3 = Z E */
    nnc_fq2_mul(&t->x, &lambda, &h);
    nnc_fq2_sub(&g, &g, &h);
    nnc_fq2_mul(&g, &theta, &g);
    nnc_fq2_mul(&s, &e, &t->y);
    nnc_fq2_sub(&t->y, &g, &s);
    nnc_fq2_mul(&t->z, &t->z, &e);
}

/* l = l evaluated at the affine G1 point p: c0 *= yP, c3 *= xP. */
NNC_INLINE void nnc_pairing_line_eval(nnc_pairing_line *l, const nnc_g1 *p)
{
    nnc_fq2_mul_fq(&l->c0, &l->c0, &p->y);
    nnc_fq2_mul_fq(&l->c3, &l->c3, &p->x);
}

/* r = pi(q), the p-power Frobenius carried to the twist: [p]q on G2.
 * q affine, not infinity (infinity maps to (0, 0) as well). */
NNC_INLINE void nnc_pairing_g2_frob(nnc_g2 *r, const nnc_g2 *q)
{
    const nnc_fq2 kx = NNC_PAIRING_FROB1_X_INIT, ky = NNC_PAIRING_FROB1_Y_INIT;
    nnc_fq2 x, y;
    nnc_fq2_conj(&x, &q->x);
    nnc_fq2_conj(&y, &q->y);
    nnc_fq2_mul(&r->x, &x, &kx);
    nnc_fq2_mul(&r->y, &y, &ky);
}

/* r = -pi^2(q) = (x xi^((p^2-1)/3), y): [-p^2]q on G2. */
NNC_INLINE void nnc_pairing_g2_frob2_neg(nnc_g2 *r, const nnc_g2 *q)
{
    const nnc_fq2 kx = NNC_PAIRING_FROB2_X_INIT;
    nnc_fq2_mul_fq(&r->x, &q->x, &kx.c0); /* kx is in Fq */
    r->y = q->y;
}

#ifdef __cplusplus
}
#endif
#endif
