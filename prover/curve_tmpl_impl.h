/* Short-Weierstrass group law for y^2 = x^3 + b (a = 0), written once for
 * G1 (over Fq) and G2 (over Fq2).  prover/curve_impl.h includes this file
 * once per group after defining:
 *   NNC_CRV_F(op)   the field function for op   (nnc_fq_##op, nnc_fq2_##op)
 *   NNC_CRV_G(op)   the group function name     (nnc_g1_##op, nnc_g2_##op)
 *   NNC_CRV_FE      the field element type
 *   NNC_CRV_AFF     affine point {x, y}; x = y = 0 encodes infinity
 *   NNC_CRV_JAC     Jacobian point {x, y, z} = (x/z^2, y/z^3); z = 0 is infinity
 * and a function NNC_CRV_G(set_b)(NNC_CRV_FE *r) giving the coefficient b.
 *
 * Formulas are those of the Explicit-Formulas Database for a = 0:
 * dbl-2009-l, add-2007-bl, madd-2007-bl.  Functions without _var select by
 * masks and do not branch on coordinates or scalars; _var ones branch.
 * Outputs may alias inputs.  Inputs are assumed on the curve (check points
 * from outside with the is_on_curve / subgroup functions first).
 * No include guard: included once per group. */

#define F_ NNC_CRV_F
#define G_ NNC_CRV_G
#define FE_ NNC_CRV_FE
#define AFF_ NNC_CRV_AFF
#define JAC_ NNC_CRV_JAC

NNC_FORCEINLINE void G_(aff_set_inf)(AFF_ *r)
{
    F_(set_zero)(&r->x);
    F_(set_zero)(&r->y);
}
NNC_FORCEINLINE int G_(aff_is_inf)(const AFF_ *a) { return F_(is_zero)(&a->x) & F_(is_zero)(&a->y); }
NNC_FORCEINLINE void G_(jac_set_inf)(JAC_ *r)
{
    F_(set_one)(&r->x);
    F_(set_one)(&r->y);
    F_(set_zero)(&r->z);
}
NNC_FORCEINLINE int G_(jac_is_inf)(const JAC_ *a) { return F_(is_zero)(&a->z); }
/* r = a if flag, else unchanged; flag is 0 or 1 and is not branched on. */
NNC_FORCEINLINE void G_(jac_cmov)(JAC_ *r, const JAC_ *a, int flag)
{
    F_(cmov)(&r->x, &a->x, flag);
    F_(cmov)(&r->y, &a->y, flag);
    F_(cmov)(&r->z, &a->z, flag);
}

/* r = (x, y, 1), or (1, 1, 0) for infinity */
NNC_INLINE void G_(aff_to_jac)(JAC_ *r, const AFF_ *a)
{
    JAC_ inf;
    int is_inf = G_(aff_is_inf)(a);
    G_(jac_set_inf)(&inf);
    r->x = a->x;
    r->y = a->y;
    F_(set_one)(&r->z);
    G_(jac_cmov)(r, &inf, is_inf);
}

/* r = (X/Z^2, Y/Z^3); infinity gives (0, 0) because inv(0) = 0. */
NNC_NOINLINE void G_(jac_to_aff)(AFF_ *r, const JAC_ *a)
{
    FE_ zi, zi2, zi3;
    F_(inv)(&zi, &a->z);
    F_(sqr)(&zi2, &zi);
    F_(mul)(&zi3, &zi2, &zi);
    F_(mul)(&r->x, &a->x, &zi2);
    F_(mul)(&r->y, &a->y, &zi3);
}
NNC_NOINLINE void G_(jac_to_aff_var)(AFF_ *r, const JAC_ *a)
{
    FE_ zi, zi2, zi3;
    F_(inv_var)(&zi, &a->z);
    F_(sqr)(&zi2, &zi);
    F_(mul)(&zi3, &zi2, &zi);
    F_(mul)(&r->x, &a->x, &zi2);
    F_(mul)(&r->y, &a->y, &zi3);
}

/* Returns: 1 if a is infinity or y^2 = x^3 + b, else 0. */
NNC_NOINLINE int G_(aff_is_on_curve)(const AFF_ *a)
{
    FE_ l, r, b;
    G_(set_b)(&b);
    F_(sqr)(&l, &a->y);
    F_(sqr)(&r, &a->x);
    F_(mul)(&r, &r, &a->x);
    F_(add)(&r, &r, &b);
    return F_(eq)(&l, &r) | G_(aff_is_inf)(a);
}
/* Returns: 1 if a is infinity or Y^2 = X^3 + b Z^6, else 0. */
NNC_NOINLINE int G_(jac_is_on_curve)(const JAC_ *a)
{
    FE_ l, r, z6, b;
    G_(set_b)(&b);
    F_(sqr)(&l, &a->y);
    F_(sqr)(&r, &a->x);
    F_(mul)(&r, &r, &a->x);
    F_(sqr)(&z6, &a->z);
    F_(mul)(&z6, &z6, &a->z);
    F_(sqr)(&z6, &z6);
    F_(mul)(&z6, &z6, &b);
    F_(add)(&r, &r, &z6);
    return F_(eq)(&l, &r) | G_(jac_is_inf)(a);
}

NNC_FORCEINLINE void G_(aff_neg)(AFF_ *r, const AFF_ *a)
{
    r->x = a->x;
    F_(neg)(&r->y, &a->y); /* -0 = 0 keeps infinity */
}
NNC_FORCEINLINE void G_(jac_neg)(JAC_ *r, const JAC_ *a)
{
    r->x = a->x;
    F_(neg)(&r->y, &a->y);
    r->z = a->z;
}
NNC_FORCEINLINE int G_(aff_eq)(const AFF_ *a, const AFF_ *b)
{
    return F_(eq)(&a->x, &b->x) & F_(eq)(&a->y, &b->y);
}
/* Returns: 1 if a and b are the same point (X1 Z2^2 = X2 Z1^2, Y1 Z2^3 = Y2 Z1^3). */
NNC_NOINLINE int G_(jac_eq)(const JAC_ *a, const JAC_ *b)
{
    FE_ z1z1, z2z2, u1, u2, s1, s2;
    int ia = G_(jac_is_inf)(a), ib = G_(jac_is_inf)(b);
    F_(sqr)(&z1z1, &a->z);
    F_(sqr)(&z2z2, &b->z);
    F_(mul)(&u1, &a->x, &z2z2);
    F_(mul)(&u2, &b->x, &z1z1);
    F_(mul)(&s1, &a->y, &z2z2);
    F_(mul)(&s1, &s1, &b->z);
    F_(mul)(&s2, &b->y, &z1z1);
    F_(mul)(&s2, &s2, &a->z);
    return (ia & ib) | (((ia | ib) ^ 1) & F_(eq)(&u1, &u2) & F_(eq)(&s1, &s2));
}

/* r = 2a (dbl-2009-l: 2M + 5S).  Infinity stays infinity (Z3 = 2 Y1 Z1). */
NNC_NOINLINE void G_(jac_dbl)(JAC_ *r, const JAC_ *a)
{
    FE_ A, B, C, D, E, Fv, t, z3;
    F_(mul)(&z3, &a->y, &a->z);
    F_(dbl)(&z3, &z3);
    F_(sqr)(&A, &a->x);
    F_(sqr)(&B, &a->y);
    F_(sqr)(&C, &B);
    F_(add)(&D, &a->x, &B);
    F_(sqr)(&D, &D);
    F_(sub)(&D, &D, &A);
    F_(sub)(&D, &D, &C);
    F_(dbl)(&D, &D);
    F_(dbl)(&E, &A);
    F_(add)(&E, &E, &A);
    F_(sqr)(&Fv, &E);
    F_(dbl)(&t, &D);
    F_(sub)(&r->x, &Fv, &t);
    F_(sub)(&t, &D, &r->x);
    F_(mul)(&t, &E, &t);
    F_(dbl)(&C, &C);
    F_(dbl)(&C, &C);
    F_(dbl)(&C, &C);
    F_(sub)(&r->y, &t, &C);
    r->z = z3;
}

/* Core of add-2007-bl for a, b not infinity (11M + 5S).
 * Out: r (z = 0 when a = -b); *h0 = [U1 == U2], *r0 = [S1 == S2], so
 * *h0 & *r0 means a = b and r is not the sum. */
NNC_NOINLINE void G_(jac_add_core)(JAC_ *r, int *h0, int *r0, const JAC_ *a, const JAC_ *b)
{
    FE_ z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    F_(sqr)(&z1z1, &a->z);
    F_(sqr)(&z2z2, &b->z);
    F_(mul)(&u1, &a->x, &z2z2);
    F_(mul)(&u2, &b->x, &z1z1);
    F_(mul)(&s1, &a->y, &b->z);
    F_(mul)(&s1, &s1, &z2z2);
    F_(mul)(&s2, &b->y, &a->z);
    F_(mul)(&s2, &s2, &z1z1);
    F_(sub)(&h, &u2, &u1);
    F_(sub)(&rr, &s2, &s1);
    *h0 = F_(is_zero)(&h);
    *r0 = F_(is_zero)(&rr);
    F_(dbl)(&i, &h);
    F_(sqr)(&i, &i);
    F_(mul)(&j, &h, &i);
    F_(dbl)(&rr, &rr);
    F_(mul)(&v, &u1, &i);
    /* Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H, before r->z may overwrite a->z */
    F_(add)(&t, &a->z, &b->z);
    F_(sqr)(&t, &t);
    F_(sub)(&t, &t, &z1z1);
    F_(sub)(&t, &t, &z2z2);
    F_(mul)(&r->z, &t, &h);
    F_(sqr)(&t, &rr);
    F_(sub)(&t, &t, &j);
    F_(sub)(&t, &t, &v);
    F_(sub)(&r->x, &t, &v);
    F_(sub)(&t, &v, &r->x);
    F_(mul)(&t, &t, &rr);
    F_(mul)(&s1, &s1, &j);
    F_(dbl)(&s1, &s1);
    F_(sub)(&r->y, &t, &s1);
}

/* r = a + b for any a, b (infinity, a = b, a = -b included).  Computes both
 * the sum and the double of a and selects by mask: time independent of the
 * points. */
NNC_INLINE void G_(jac_add)(JAC_ *r, const JAC_ *a, const JAC_ *b)
{
    JAC_ s, d;
    int h0, r0, ia = G_(jac_is_inf)(a), ib = G_(jac_is_inf)(b);
    G_(jac_add_core)(&s, &h0, &r0, a, b);
    G_(jac_dbl)(&d, a);
    G_(jac_cmov)(&s, &d, h0 & r0);
    G_(jac_cmov)(&s, b, ia);
    G_(jac_cmov)(&s, a, ib);
    *r = s;
}
/* r = a + b, branching on the special cases. */
NNC_INLINE void G_(jac_add_var)(JAC_ *r, const JAC_ *a, const JAC_ *b)
{
    int h0, r0;
    JAC_ s;
    if (G_(jac_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (G_(jac_is_inf)(b)) {
        *r = *a;
        return;
    }
    G_(jac_add_core)(&s, &h0, &r0, a, b);
    if (h0 && r0)
        G_(jac_dbl)(r, a);
    else
        *r = s; /* h0 alone: a = -b, s.z = 0 */
}

/* Core of madd-2007-bl for a not infinity, b affine and not infinity
 * (7M + 4S).  Out as for jac_add_core. */
NNC_NOINLINE void G_(jac_add_aff_core)(JAC_ *r, int *h0, int *r0, const JAC_ *a, const AFF_ *b)
{
    FE_ z1z1, u2, s2, h, hh, i, j, rr, v, t, y1j;
    F_(sqr)(&z1z1, &a->z);
    F_(mul)(&u2, &b->x, &z1z1);
    F_(mul)(&s2, &b->y, &a->z);
    F_(mul)(&s2, &s2, &z1z1);
    F_(sub)(&h, &u2, &a->x);
    F_(sub)(&rr, &s2, &a->y);
    *h0 = F_(is_zero)(&h);
    *r0 = F_(is_zero)(&rr);
    F_(sqr)(&hh, &h);
    F_(dbl)(&i, &hh);
    F_(dbl)(&i, &i);
    F_(mul)(&j, &h, &i);
    F_(dbl)(&rr, &rr);
    F_(mul)(&v, &a->x, &i);
    F_(mul)(&y1j, &a->y, &j);
    F_(dbl)(&y1j, &y1j);
    /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
    F_(add)(&t, &a->z, &h);
    F_(sqr)(&t, &t);
    F_(sub)(&t, &t, &z1z1);
    F_(sub)(&r->z, &t, &hh);
    F_(sqr)(&t, &rr);
    F_(sub)(&t, &t, &j);
    F_(sub)(&t, &t, &v);
    F_(sub)(&r->x, &t, &v);
    F_(sub)(&t, &v, &r->x);
    F_(mul)(&t, &t, &rr);
    F_(sub)(&r->y, &t, &y1j);
}
/* r = a + b (b affine), all cases, selection by mask. */
NNC_INLINE void G_(jac_add_aff)(JAC_ *r, const JAC_ *a, const AFF_ *b)
{
    JAC_ s, d, bj;
    int h0, r0, ia = G_(jac_is_inf)(a), ib = G_(aff_is_inf)(b);
    G_(jac_add_aff_core)(&s, &h0, &r0, a, b);
    G_(jac_dbl)(&d, a);
    G_(aff_to_jac)(&bj, b);
    G_(jac_cmov)(&s, &d, h0 & r0);
    G_(jac_cmov)(&s, &bj, ia);
    G_(jac_cmov)(&s, a, ib);
    *r = s;
}
/* r = a + b (b affine), branching on the special cases. */
NNC_INLINE void G_(jac_add_aff_var)(JAC_ *r, const JAC_ *a, const AFF_ *b)
{
    int h0, r0;
    JAC_ s;
    if (G_(aff_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (G_(jac_is_inf)(a)) {
        G_(aff_to_jac)(r, b);
        return;
    }
    G_(jac_add_aff_core)(&s, &h0, &r0, a, b);
    if (h0 && r0)
        G_(jac_dbl)(r, a);
    else
        *r = s;
}

/* r = [k]p, k a 256-bit integer (little-endian limbs, not reduced).
 * Fixed 4-bit windows from the top: 256 doublings and 64 complete additions
 * of an entry read from a 16-point table by scanning it all; no branch or
 * memory index depends on k or p. */
NNC_NOINLINE void G_(jac_mul)(JAC_ *r, const JAC_ *p, const uint64_t k[4])
{
    JAC_ tab[16], acc, sel;
    int i, j;
    G_(jac_set_inf)(&tab[0]);
    tab[1] = *p;
    for (i = 2; i < 16; i++)
        G_(jac_add)(&tab[i], &tab[i - 1], p);
    G_(jac_set_inf)(&acc);
    for (i = 63; i >= 0; i--) {
        uint32_t nib = (uint32_t)(k[i >> 4] >> ((i & 15) * 4)) & 15;
        G_(jac_dbl)(&acc, &acc);
        G_(jac_dbl)(&acc, &acc);
        G_(jac_dbl)(&acc, &acc);
        G_(jac_dbl)(&acc, &acc);
        sel = tab[0];
        for (j = 1; j < 16; j++) {
            int hit = (int)((((uint32_t)j ^ nib) - 1) >> 31); /* 1 iff j == nib */
            G_(jac_cmov)(&sel, &tab[j], hit);
        }
        G_(jac_add)(&acc, &acc, &sel);
    }
    *r = acc;
}

/* r = [k]p, variable time: width-5 NAF of k over the odd multiples
 * p, 3p, ..., 15p. */
NNC_NOINLINE void G_(jac_mul_var)(JAC_ *r, const JAC_ *p, const uint64_t k[4])
{
    JAC_ tab[8], p2, acc, t;
    int8_t naf[258];
    uint64_t e[5];
    int n = 0, i;
    e[0] = k[0];
    e[1] = k[1];
    e[2] = k[2];
    e[3] = k[3];
    e[4] = 0;
    /* naf[i] in {0, +-1, +-3, ..., +-15}, k = sum naf[i] 2^i; e stays < 2^257 */
    while (e[0] | e[1] | e[2] | e[3] | e[4]) {
        int d = 0;
        if (e[0] & 1) {
            uint64_t c, br;
            d = (int)(e[0] & 31);
            if (d >= 16)
                d -= 32;
            if (d > 0) {
                br = nnc_sbb64(&e[0], e[0], (uint64_t)d, 0);
                for (i = 1; i < 5; i++)
                    br = nnc_sbb64(&e[i], e[i], 0, br);
            } else {
                c = nnc_adc64(&e[0], e[0], (uint64_t)(-d), 0);
                for (i = 1; i < 5; i++)
                    c = nnc_adc64(&e[i], e[i], 0, c);
            }
        }
        naf[n++] = (int8_t)d;
        for (i = 0; i < 4; i++)
            e[i] = (e[i] >> 1) | (e[i + 1] << 63);
        e[4] >>= 1;
    }
    tab[0] = *p;
    G_(jac_dbl)(&p2, p);
    for (i = 1; i < 8; i++)
        G_(jac_add_var)(&tab[i], &tab[i - 1], &p2);
    G_(jac_set_inf)(&acc);
    for (i = n - 1; i >= 0; i--) {
        int d = naf[i];
        if (!G_(jac_is_inf)(&acc))
            G_(jac_dbl)(&acc, &acc);
        if (d > 0) {
            G_(jac_add_var)(&acc, &acc, &tab[(d - 1) / 2]);
        } else if (d < 0) {
            G_(jac_neg)(&t, &tab[(-d - 1) / 2]);
            G_(jac_add_var)(&acc, &acc, &t);
        }
    }
    *r = acc;
}

#undef F_
#undef G_
#undef FE_
#undef AFF_
#undef JAC_
