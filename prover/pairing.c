/* BN254 optimal ate pairing: Miller loop, final exponentiation, product
 * check.  Formulas and conventions: prover/pairing_impl.h. */
#include "prover/pairing_impl.h"

/* f *= prod_i f_{6x+2,q[i]}(p[i]) * l_{T,pi(q[i])} * l_{T+pi(q[i]),-pi^2(q[i])},
 * for n <= NNC_PAIRING_BATCH pairs, none infinity.  Squarings of f are
 * shared by all pairs. */
static void miller_batch(nnc_fq12 *f, const nnc_g1 *p, const nnc_g2 *q, size_t n)
{
    static const signed char naf[NNC_PAIRING_ATE_NAF_LEN] = NNC_PAIRING_ATE_NAF_INIT;
    nnc_g2_proj t[NNC_PAIRING_BATCH];
    nnc_g2 qneg[NNC_PAIRING_BATCH], q1, q2;
    nnc_pairing_line l;
    nnc_fq12 acc;
    size_t j;
    int i;

    for (j = 0; j < n; j++) {
        nnc_g2_proj_from_aff(&t[j], &q[j]);
        nnc_g2_aff_neg(&qneg[j], &q[j]);
    }
    nnc_fq12_set_one(&acc);
    /* naf[0] = 1 is T = Q */
    for (i = 1; i < NNC_PAIRING_ATE_NAF_LEN; i++) {
        if (i > 1)
            nnc_fq12_sqr(&acc, &acc);
        for (j = 0; j < n; j++) {
            nnc_pairing_dbl_step(&t[j], &l);
            nnc_pairing_line_eval(&l, &p[j]);
            nnc_fq12_mul_by_034(&acc, &acc, &l);
        }
        if (naf[i] == 0)
            continue;
        for (j = 0; j < n; j++) {
            nnc_pairing_add_step(&t[j], &l, naf[i] > 0 ? &q[j] : &qneg[j]);
            nnc_pairing_line_eval(&l, &p[j]);
            nnc_fq12_mul_by_034(&acc, &acc, &l);
        }
    }
    for (j = 0; j < n; j++) {
        nnc_pairing_g2_frob(&q1, &q[j]);
        nnc_pairing_g2_frob2_neg(&q2, &q[j]);
        nnc_pairing_add_step(&t[j], &l, &q1);
        nnc_pairing_line_eval(&l, &p[j]);
        nnc_fq12_mul_by_034(&acc, &acc, &l);
        nnc_pairing_add_step(&t[j], &l, &q2); /* the last T is not needed */
        nnc_pairing_line_eval(&l, &p[j]);
        nnc_fq12_mul_by_034(&acc, &acc, &l);
    }
    nnc_fq12_mul(f, f, &acc);
}

void nnc_prv_miller_loop(nnc_fq12 *out, const nnc_prv_g1 *p, const nnc_prv_g2 *q, size_t n)
{
    nnc_g1 bp[NNC_PAIRING_BATCH];
    nnc_g2 bq[NNC_PAIRING_BATCH];
    nnc_fq12 f;
    size_t i, k = 0;

    nnc_fq12_set_one(&f);
    for (i = 0; i < n; i++) {
        if (nnc_g1_aff_is_inf(&p[i]) || nnc_g2_aff_is_inf(&q[i]))
            continue;
        bp[k] = p[i];
        bq[k] = q[i];
        if (++k == NNC_PAIRING_BATCH) {
            miller_batch(&f, bp, bq, k);
            k = 0;
        }
    }
    if (k)
        miller_batch(&f, bp, bq, k);
    *out = f;
}

void nnc_prv_final_exp(nnc_fq12 *out, const nnc_fq12 *f)
{
    nnc_fq12 t, inv, fp, fp2, fp3, fu, fu2, fu3, y0, y1, y2, y3, y4, y5, y6, t0, t1;

    /* easy part: t = f^((p^6 - 1)(p^2 + 1)); afterwards conj is the inverse */
    nnc_fq12_inv(&inv, f);
    nnc_fq12_conj(&t, f);
    nnc_fq12_mul(&t, &t, &inv);
    nnc_fq12_frobenius(&inv, &t, 2);
    nnc_fq12_mul(&t, &t, &inv);

    /* hard part t^((p^4 - p^2 + 1)/r) = y0 y1^2 y2^6 y3^12 y4^18 y5^30 y6^36
     * (Scott, Benger, Charlemagne, Dominguez Perez, Kachisa, "On the final
     * exponentiation for calculating pairings on ordinary elliptic curves",
     * Pairing 2009, section 5; the same chain as go-ethereum's bn256):
     *   y0 = t^(p + p^2 + p^3), y1 = 1/t, y2 = t^(x^2 p^2), y3 = 1/t^(x p),
     *   y4 = 1/(t^x t^(x^2 p)), y5 = 1/t^(x^2), y6 = 1/(t^(x^3) t^(x^3 p)). */
    nnc_fq12_frobenius(&fp, &t, 1);
    nnc_fq12_frobenius(&fp2, &t, 2);
    nnc_fq12_frobenius(&fp3, &t, 3);
    nnc_fq12_cyclotomic_exp_x(&fu, &t);
    nnc_fq12_cyclotomic_exp_x(&fu2, &fu);
    nnc_fq12_cyclotomic_exp_x(&fu3, &fu2);

    nnc_fq12_mul(&y0, &fp, &fp2);
    nnc_fq12_mul(&y0, &y0, &fp3);
    nnc_fq12_conj(&y1, &t);
    nnc_fq12_frobenius(&y2, &fu2, 2);
    nnc_fq12_frobenius(&y3, &fu, 1);
    nnc_fq12_conj(&y3, &y3);
    nnc_fq12_frobenius(&y4, &fu2, 1);
    nnc_fq12_mul(&y4, &y4, &fu);
    nnc_fq12_conj(&y4, &y4);
    nnc_fq12_conj(&y5, &fu2);
    nnc_fq12_frobenius(&y6, &fu3, 1);
    nnc_fq12_mul(&y6, &y6, &fu3);
    nnc_fq12_conj(&y6, &y6);

    /* vectorial addition chain for exponents (1, 2, 6, 12, 18, 30, 36) */
    nnc_fq12_cyclotomic_sqr(&t0, &y6);
    nnc_fq12_mul(&t0, &t0, &y4);
    nnc_fq12_mul(&t0, &t0, &y5);
    nnc_fq12_mul(&t1, &y3, &y5);
    nnc_fq12_mul(&t1, &t1, &t0);
    nnc_fq12_mul(&t0, &t0, &y2);
    nnc_fq12_cyclotomic_sqr(&t1, &t1);
    nnc_fq12_mul(&t1, &t1, &t0);
    nnc_fq12_cyclotomic_sqr(&t1, &t1);
    nnc_fq12_mul(&t0, &t1, &y1);
    nnc_fq12_mul(&t1, &t1, &y0);
    nnc_fq12_cyclotomic_sqr(&t0, &t0);
    nnc_fq12_mul(out, &t0, &t1);
}

void nnc_prv_pairing(nnc_fq12 *out, const nnc_prv_g1 *p, const nnc_prv_g2 *q)
{
    nnc_fq12 f;
    nnc_prv_miller_loop(&f, p, q, 1);
    nnc_prv_final_exp(out, &f);
}

int nnc_prv_pairing_check(const nnc_prv_g1 *p, const nnc_prv_g2 *q, size_t n)
{
    nnc_fq12 f;
    nnc_prv_miller_loop(&f, p, q, n);
    nnc_prv_final_exp(&f, &f);
    return nnc_fq12_is_one(&f);
}
