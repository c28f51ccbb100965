/* Public curve API of the prover module; the formulas are in
 * prover/curve_impl.h. */
#include "nncert/prover.h"

#include "prover/curve_impl.h"

void nnc_prv_g1_generator(nnc_prv_g1 *out) { nnc_g1_generator(out); }
void nnc_prv_g2_generator(nnc_prv_g2 *out) { nnc_g2_generator(out); }

int nnc_prv_g1_is_on_curve(const nnc_prv_g1 *p) { return nnc_g1_aff_is_on_curve(p); }
int nnc_prv_g2_is_on_curve(const nnc_prv_g2 *p) { return nnc_g2_aff_is_on_curve(p); }

int nnc_prv_g1_is_valid(const nnc_prv_g1 *p)
{
    return nnc_g1_aff_is_on_curve(p); /* cofactor 1 */
}

int nnc_prv_g2_is_valid(const nnc_prv_g2 *p)
{
    nnc_g2_jac j;
    if (!nnc_g2_aff_is_on_curve(p))
        return 0;
    nnc_g2_aff_to_jac(&j, p);
    return nnc_g2_jac_in_subgroup_var(&j);
}

void nnc_prv_g1_add(nnc_prv_g1 *out, const nnc_prv_g1 *a, const nnc_prv_g1 *b)
{
    nnc_g1_jac j;
    nnc_g1_aff_to_jac(&j, a);
    nnc_g1_jac_add_aff(&j, &j, b);
    nnc_g1_jac_to_aff(out, &j);
}

void nnc_prv_g2_add(nnc_prv_g2 *out, const nnc_prv_g2 *a, const nnc_prv_g2 *b)
{
    nnc_g2_jac j;
    nnc_g2_aff_to_jac(&j, a);
    nnc_g2_jac_add_aff(&j, &j, b);
    nnc_g2_jac_to_aff(out, &j);
}

void nnc_prv_g1_neg(nnc_prv_g1 *out, const nnc_prv_g1 *a) { nnc_g1_aff_neg(out, a); }
void nnc_prv_g2_neg(nnc_prv_g2 *out, const nnc_prv_g2 *a) { nnc_g2_aff_neg(out, a); }

/* Body of the scalar multiplications: out = [k]p in Jacobian coordinates of
 * group G, with the constant-time (SUFFIX empty) or the variable-time
 * (SUFFIX _var) multiplication and normalisation. */
#define CURVE_MUL_BODY(G, SUFFIX)                 \
    {                                             \
        uint64_t e[4];                            \
        nnc_##G##_jac j;                          \
        nnc_fr_to_int(e, k);                      \
        nnc_##G##_aff_to_jac(&j, p);              \
        nnc_##G##_jac_mul##SUFFIX(&j, &j, e);     \
        nnc_##G##_jac_to_aff##SUFFIX(out, &j);    \
    }

void nnc_prv_g1_mul(nnc_prv_g1 *out, const nnc_prv_g1 *p, const nnc_prv_fr *k) CURVE_MUL_BODY(g1, )
void nnc_prv_g1_mul_var(nnc_prv_g1 *out, const nnc_prv_g1 *p, const nnc_prv_fr *k) CURVE_MUL_BODY(g1, _var)
void nnc_prv_g2_mul(nnc_prv_g2 *out, const nnc_prv_g2 *p, const nnc_prv_fr *k) CURVE_MUL_BODY(g2, )
void nnc_prv_g2_mul_var(nnc_prv_g2 *out, const nnc_prv_g2 *p, const nnc_prv_fr *k) CURVE_MUL_BODY(g2, _var)

int nnc_prv_g1_eq(const nnc_prv_g1 *a, const nnc_prv_g1 *b) { return nnc_g1_aff_eq(a, b); }
int nnc_prv_g2_eq(const nnc_prv_g2 *a, const nnc_prv_g2 *b) { return nnc_g2_aff_eq(a, b); }

nnc_status nnc_prv_g1_parse_dec(nnc_prv_g1 *out, const char *x, const char *y,
                                char *err, size_t errlen)
{
    nnc_prv_g1 p;
    nnc_status st;
    if ((st = nnc_prv_fq_parse_dec(&p.x, x, 0, err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_fq_parse_dec(&p.y, y, 0, err, errlen)) != NNC_STATUS_OK)
        return st;
    if (!nnc_prv_g1_is_valid(&p))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "G1 point not on the curve y^2 = x^3 + 3");
    *out = p;
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_g2_parse_dec(nnc_prv_g2 *out, const char *x0, const char *x1,
                                const char *y0, const char *y1, char *err, size_t errlen)
{
    nnc_prv_g2 p;
    nnc_status st;
    if ((st = nnc_prv_fq_parse_dec(&p.x.c0, x0, 0, err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_fq_parse_dec(&p.x.c1, x1, 0, err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_fq_parse_dec(&p.y.c0, y0, 0, err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_fq_parse_dec(&p.y.c1, y1, 0, err, errlen)) != NNC_STATUS_OK)
        return st;
    if (!nnc_g2_aff_is_on_curve(&p))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "G2 point not on the twist y^2 = x^3 + 3/(9+u)");
    if (!nnc_prv_g2_is_valid(&p))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "G2 point not in the order-r subgroup");
    *out = p;
    return NNC_STATUS_OK;
}
