/* Knit packing of products (zk/circuit.h): k private-by-private
 * products that share one input x_j are computed by one constraint whose
 * left side packs the k weights in base B = 2^n; one linear constraint then
 * ties the packed sum over j to the k claimed results.  Soundness (the
 * bound on every digit) is argued in circuit.h and is the caller's to
 * establish; this file only builds the constraints and the witness. */
#include "zk/circuit.h"


#include "prover/field_impl.h"

int nnc_prv_knit_base_bits(uint64_t dmax)
{
    int n = 0; /* the bit length of dmax: 2^n > dmax >= 2^(n-1) */
    while (n < 64 && (dmax >> n) != 0) n++;
    return n < 1 ? 1 : n;
}

int nnc_prv_knit_slots(int n) { return n < 1 ? 0 : NNC_PRV_KNIT_FIELD_BITS / n; }

/* pw[i] = B^i = 2^(n i) for i < k (n i <= 253; pw holds
 * NNC_PRV_KNIT_FIELD_BITS elements).  Returns: 0, or -1 (sticky error set)
 * when k products do not fit the field. */
static int knit_powers(nnc_prv_cb *cb, int k, int n, nnc_prv_fr *pw)
{
    if (k < 1 || k > nnc_prv_knit_slots(n)) {
        nnc_prv_cb_fail(cb, NNC_STATUS_ARG, "knit packing: more products than the field holds");
        return -1;
    }
    nnc_prv_fr two_n;
    nnc_fr_set_one(&pw[0]);
    nnc_fr_set_one(&two_n);
    for (int b = 0; b < n; b++) nnc_fr_add(&two_n, &two_n, &two_n);
    for (int i = 1; i < k; i++) nnc_fr_mul(&pw[i], &pw[i - 1], &two_n);
    return 0;
}

void nnc_prv_g_knit_dot(nnc_prv_cb *cb, const nnc_prv_lc *z, const nnc_prv_lc *add, int k, int n, const nnc_prv_lc *w,
                        const int64_t *wi, int64_t wstride, const nnc_prv_lc *x, const int64_t *xi, int64_t K)
{
    nnc_prv_fr pw[NNC_PRV_KNIT_FIELD_BITS];
    if (knit_powers(cb, k, n, pw)) return;
    nnc_prv_lc row = {0}, p = {0}, tie = {0}, one = {0}, zero = {0};
    for (int64_t j = 0; j < K; j++) {
        nnc_prv_lc_reset(&row);
        for (int i = 0; i < k; i++) nnc_prv_lc_add(cb, &row, &w[wi[j] + i * wstride], &pw[i]);
        nnc_prv_g_mul(cb, &p, &row, &x[xi[j]]); /* P_j: one constraint unless a side is constant */
        nnc_prv_lc_add_i(cb, &tie, &p, 1);
    }
    for (int i = 0; i < k; i++) {
        nnc_prv_fr neg;
        if (add) nnc_prv_lc_add(cb, &tie, &add[i], &pw[i]);
        nnc_fr_neg(&neg, &pw[i]);
        nnc_prv_lc_add(cb, &tie, &z[i], &neg);
    }
    nnc_prv_lc_compact(cb, &tie);
    nnc_prv_lc_term_i(cb, &one, 0, 1);
    nnc_prv_cb_constrain(cb, &tie, &one, &zero); /* sum_j P_j + sum_i B^i (add_i - z_i) = 0 */
    nnc_prv_lc_clear(&row);
    nnc_prv_lc_clear(&p);
    nnc_prv_lc_clear(&tie);
    nnc_prv_lc_clear(&one);
}

void nnc_prv_g_knit_dot_values(nnc_prv_cb *cb, const nnc_prv_lc *z, const nnc_prv_lc *add, int k, int n, const int64_t *wv,
                               const int64_t *wi, int64_t wstride, const nnc_prv_lc *x, const int64_t *xi, int64_t K)
{
    if (!nnc_prv_cb_witness_only(cb)) {
        nnc_prv_cb_fail(cb, NNC_STATUS_ARG, "knit packing by values outside witness-only mode");
        return;
    }
    nnc_prv_fr pw[NNC_PRV_KNIT_FIELD_BITS], tie, rv, xv, pv, t;
    if (knit_powers(cb, k, n, pw)) return;
    nnc_fr_set_zero(&tie);
    for (int64_t j = 0; j < K; j++) {
        /* the packed row sum_i w_ij B^i (weights private: never a constant) */
        nnc_fr_set_zero(&rv);
        for (int i = 0; i < k; i++) {
            nnc_prv_fr_from_i64(&t, wv[wi[j] + i * wstride]);
            nnc_fr_mul(&t, &t, &pw[i]);
            nnc_fr_add(&rv, &rv, &t);
        }
        const nnc_prv_lc *xj = &x[xi[j]];
        nnc_prv_lc_eval(cb, &xv, xj);
        nnc_fr_mul(&pv, &rv, &xv);
        if (!nnc_prv_lc_is_const(xj)) { /* nnc_prv_g_mul's product wire and constraint */
            nnc_prv_cb_wire(cb, NNC_PRV_WIRE_INTERNAL, &pv);
            nnc_prv_cb_constrain_values(cb, &rv, &xv);
        }
        nnc_fr_add(&tie, &tie, &pv);
    }
    for (int i = 0; i < k; i++) {
        if (add) {
            nnc_prv_lc_eval(cb, &t, &add[i]);
            nnc_fr_mul(&t, &t, &pw[i]);
            nnc_fr_add(&tie, &tie, &t);
        }
        nnc_prv_lc_eval(cb, &t, &z[i]);
        nnc_fr_mul(&t, &t, &pw[i]);
        nnc_fr_sub(&tie, &tie, &t);
    }
    nnc_prv_fr one;
    nnc_fr_set_one(&one);
    nnc_prv_cb_constrain_values(cb, &tie, &one); /* the tie: sum_j P_j + sum_i B^i (add_i - z_i) = 0 */
}
