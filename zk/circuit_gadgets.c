/* Gadgets of zk/circuit.h: range checks, products, requantisation,
 * ReLU, max, one-hot lookup, Poseidon and knit-packed commitments.  Each
 * gadget adds its constraints and computes its witness from the values of
 * its input combinations (not from the integer reference runtime, so the
 * two can be compared). */
#include "zk/circuit.h"
#include "nncert/poseidon.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prover/field_impl.h"

/* Constant helpers. */
static void fr_pow2(nnc_prv_fr *out, int k)
{
    nnc_prv_fr t;
    nnc_fr_set_one(out);
    while (k > 0) {
        int s = k > 62 ? 62 : k;
        nnc_fr_set_u64(&t, (uint64_t)1 << s);
        nnc_fr_mul(out, out, &t);
        k -= s;
    }
}

static void lc_one(nnc_prv_cb *cb, nnc_prv_lc *lc, uint32_t wire)
{
    nnc_prv_lc_reset(lc);
    nnc_prv_lc_term_i(cb, lc, wire, 1);
}

static int eval_i64(nnc_prv_cb *cb, int64_t *out, const nnc_prv_lc *x, const char *what)
{
    nnc_prv_fr v;
    nnc_prv_lc_eval(cb, &v, x);
    if (nnc_prv_fr_to_i64(out, &v)) {
        nnc_prv_cb_fail_value(cb, what);
        *out = 0;
        return -1;
    }
    return 0;
}

/* sum = sum_i 2^i w[bit0 + i] (i < n). */
static void lc_bits_sum(nnc_prv_cb *cb, nnc_prv_lc *sum, uint32_t bit0, int n)
{
    nnc_prv_fr p;
    nnc_prv_lc_reset(sum);
    for (int i = 0; i < n; i++) {
        fr_pow2(&p, i);
        nnc_prv_lc_term(cb, sum, bit0 + (uint32_t)i, &p);
    }
}

/* Allocate n boolean wires (consecutive ids) of class cls holding the bits
 * of u (n booleanity constraints); sum = sum 2^i bit_i.  bits (may be
 * NULL) receives the ids. */
static void bits_alloc_cls(nnc_prv_cb *cb, nnc_prv_lc *sum, uint64_t u, int n, uint32_t *bits, nnc_prv_wire_class cls)
{
    nnc_prv_lc b = {0};
    nnc_prv_fr v;
    uint32_t bit0 = 0;
    for (int i = 0; i < n; i++) {
        nnc_fr_set_u64(&v, (u >> i) & 1);
        uint32_t id = nnc_prv_cb_wire(cb, cls, &v);
        if (i == 0) bit0 = id;
        if (bits) bits[i] = id;
        lc_one(cb, &b, id);
        nnc_prv_cb_constrain(cb, &b, &b, &b); /* b * b = b */
    }
    nnc_prv_lc_clear(&b);
    lc_bits_sum(cb, sum, bit0, n);
}

static void bits_alloc(nnc_prv_cb *cb, nnc_prv_lc *sum, uint64_t u, int n, uint32_t *bits)
{
    bits_alloc_cls(cb, sum, u, n, bits, NNC_PRV_WIRE_INTERNAL);
}

/* Constraint (lc) * 1 = 0. */
static void assert_zero(nnc_prv_cb *cb, const nnc_prv_lc *lc)
{
    nnc_prv_lc one = {0}, zero = {0};
    nnc_prv_lc_term_i(cb, &one, 0, 1);
    nnc_prv_cb_constrain(cb, lc, &one, &zero);
    nnc_prv_lc_clear(&one);
}

static uint64_t checked_unsigned(nnc_prv_cb *cb, int64_t v, int n, const char *what)
{
    if (v < 0 || (n < 63 && v >= ((int64_t)1 << n))) {
        nnc_prv_cb_fail_value(cb, what);
        return 0;
    }
    return (uint64_t)v;
}

void nnc_prv_g_bits(nnc_prv_cb *cb, const nnc_prv_lc *x, int n, uint32_t *bits)
{
    int64_t v;
    nnc_prv_lc sum = {0}, d = {0};
    eval_i64(cb, &v, x, "range check: value is not a small integer");
    bits_alloc(cb, &sum, checked_unsigned(cb, v, n, "range check: value out of range"), n, bits);
    nnc_prv_lc_copy(cb, &d, x);
    nnc_prv_lc_add_i(cb, &d, &sum, -1);
    assert_zero(cb, &d);
    nnc_prv_lc_clear(&sum);
    nnc_prv_lc_clear(&d);
}

/* Whether n is a width the signed decompositions take (their id array and
 * offset assume 1..62); else the sticky error is set.  Returns 1 or 0. */
static int signed_width_ok(nnc_prv_cb *cb, int n)
{
    if (n >= 1 && n <= 62) return 1;
    nnc_prv_cb_fail(cb, NNC_STATUS_ARG, "signed bits: width outside 1..62");
    return 0;
}

uint32_t nnc_prv_g_signed_bits(nnc_prv_cb *cb, nnc_prv_lc *x, int64_t v, int n, nnc_prv_wire_class cls)
{
    uint32_t bits[64];
    if (!signed_width_ok(cb, n)) return 0;
    int64_t off = (int64_t)1 << (n - 1);
    bits_alloc_cls(cb, x, checked_unsigned(cb, v + off, n, "private value outside its committed width"), n, bits, cls);
    nnc_prv_lc_term_i(cb, x, 0, -off);
    return bits[0];
}

void nnc_prv_lc_signed_bits(nnc_prv_cb *cb, nnc_prv_lc *x, uint32_t bit0, int n)
{
    nnc_prv_lc_reset(x);
    if (!signed_width_ok(cb, n)) return;
    nnc_prv_lc_reserve(cb, x, (uint32_t)n + 1);
    lc_bits_sum(cb, x, bit0, n); /* the sum bits_alloc_cls builds */
    nnc_prv_lc_term_i(cb, x, 0, -((int64_t)1 << (n - 1)));
}

uint32_t nnc_prv_g_range_signed(nnc_prv_cb *cb, const nnc_prv_lc *x, int n)
{
    uint32_t bits[64];
    nnc_prv_lc s = {0};
    nnc_prv_lc_copy(cb, &s, x);
    nnc_prv_lc_term_i(cb, &s, 0, (int64_t)1 << (n - 1));
    nnc_prv_g_bits(cb, &s, n, bits);
    nnc_prv_lc_clear(&s);
    return bits[n - 1];
}

void nnc_prv_g_mul(nnc_prv_cb *cb, nnc_prv_lc *out, const nnc_prv_lc *a, const nnc_prv_lc *b)
{
    nnc_prv_fr va, vb, p;
    nnc_prv_lc_eval(cb, &va, a);
    nnc_prv_lc_eval(cb, &vb, b);
    nnc_prv_lc_reset(out);
    if (nnc_prv_lc_is_const(a)) {
        nnc_prv_lc_add(cb, out, b, &va);
        return;
    }
    if (nnc_prv_lc_is_const(b)) {
        nnc_prv_lc_add(cb, out, a, &vb);
        return;
    }
    nnc_fr_mul(&p, &va, &vb);
    uint32_t w = nnc_prv_cb_wire(cb, NNC_PRV_WIRE_INTERNAL, &p);
    lc_one(cb, out, w);
    nnc_prv_cb_constrain(cb, a, b, out);
}

static int64_t floordiv(int64_t a, int64_t d)
{
    int64_t q = a / d;
    return (a % d != 0 && a < 0) ? q - 1 : q;
}

/* y = quotient as a combination of rbits bits (signed), plus the
 * constraint x + c - d*y - rem = 0 where rem is given. */
static void quotient(nnc_prv_cb *cb, nnc_prv_lc *y, uint32_t *nonneg, const nnc_prv_lc *x, int64_t c, int64_t d,
                     int64_t q, const nnc_prv_lc *rem, int rbits)
{
    uint32_t bits[64];
    int64_t off = (int64_t)1 << (rbits - 1);
    int64_t u = q + off;
    bits_alloc(cb, y, checked_unsigned(cb, u, rbits, "requantised value outside its range (compile with more bits)"), rbits, bits);
    nnc_prv_lc_term_i(cb, y, 0, -off);
    if (nonneg) *nonneg = bits[rbits - 1];
    nnc_prv_lc t = {0};
    nnc_prv_lc_copy(cb, &t, x);
    nnc_prv_lc_term_i(cb, &t, 0, c);
    nnc_prv_lc_add_i(cb, &t, y, -d);
    nnc_prv_lc_add_i(cb, &t, rem, -1);
    assert_zero(cb, &t);
    nnc_prv_lc_clear(&t);
}

void nnc_prv_g_requant_open(nnc_prv_cb *cb, nnc_prv_lc *y, uint32_t *nonneg, nnc_prv_lc *acc, int64_t a, int s, int rbits)
{
    uint32_t bits[64];
    int64_t c = s ? (int64_t)1 << (s - 1) : 0, off = (int64_t)1 << (rbits - 1);
    int64_t q = floordiv(a + c, (int64_t)1 << s), r = a + c - q * ((int64_t)1 << s);
    nnc_prv_lc rem = {0};
    bits_alloc(cb, &rem, (uint64_t)r, s, NULL);
    bits_alloc(cb, y, checked_unsigned(cb, q + off, rbits, "requantised value outside its range (compile with more bits)"), rbits, bits);
    nnc_prv_lc_term_i(cb, y, 0, -off);
    if (nonneg) *nonneg = bits[rbits - 1];
    nnc_prv_lc_reset(acc);
    nnc_prv_lc_add_i(cb, acc, y, (int64_t)1 << s);
    nnc_prv_lc_add_i(cb, acc, &rem, 1);
    nnc_prv_lc_term_i(cb, acc, 0, -c);
    nnc_prv_lc_clear(&rem);
}

void nnc_prv_g_requant(nnc_prv_cb *cb, nnc_prv_lc *y, uint32_t *nonneg, const nnc_prv_lc *acc, int s, int rbits)
{
    int64_t a;
    nnc_prv_lc t = {0};
    eval_i64(cb, &a, acc, "accumulator is not a small integer");
    nnc_prv_g_requant_open(cb, y, nonneg, &t, a, s, rbits); /* t = y 2^s + rem - c */
    nnc_prv_lc_add_i(cb, &t, acc, -1);
    nnc_prv_lc_compact(cb, &t);
    assert_zero(cb, &t);
    nnc_prv_lc_clear(&t);
}

void nnc_prv_g_requant_value(nnc_prv_cb *cb, nnc_prv_lc *y, uint32_t *nonneg, int64_t a, int s, int rbits)
{
    if (!nnc_prv_cb_witness_only(cb)) {
        nnc_prv_cb_fail(cb, NNC_STATUS_ARG, "a requantisation by value outside witness-only mode");
        return;
    }
    nnc_prv_lc t = {0};
    nnc_prv_fr va, vb, fa;
    nnc_prv_g_requant_open(cb, y, nonneg, &t, a, s, rbits); /* t = y 2^s + rem - c */
    /* nnc_prv_g_requant's constraint (t - acc) * 1 = 0, by its values */
    nnc_prv_lc_eval(cb, &va, &t);
    nnc_prv_fr_from_i64(&fa, a);
    nnc_fr_sub(&va, &va, &fa);
    nnc_fr_set_one(&vb);
    nnc_prv_cb_constrain_values(cb, &va, &vb);
    nnc_prv_lc_clear(&t);
}

void nnc_prv_g_divround(nnc_prv_cb *cb, nnc_prv_lc *y, const nnc_prv_lc *x, int64_t d, int rbits)
{
    int k = 0;
    while (((int64_t)1 << k) < d) k++;
    if (((int64_t)1 << k) == d) {
        nnc_prv_g_requant(cb, y, NULL, x, k, rbits);
        return;
    }
    int64_t a, c = d / 2;
    eval_i64(cb, &a, x, "pool sum is not a small integer");
    int64_t q = floordiv(a + c, d), r = a + c - q * d;
    nnc_prv_lc rem = {0}, up = {0};
    bits_alloc(cb, &rem, (uint64_t)r, k, NULL); /* 0 <= rem < 2^k */
    nnc_prv_lc_term_i(cb, &up, 0, d - 1);        /* and d - 1 - rem >= 0 */
    nnc_prv_lc_add_i(cb, &up, &rem, -1);
    nnc_prv_g_bits(cb, &up, k, NULL);
    quotient(cb, y, NULL, x, c, d, q, &rem, rbits);
    nnc_prv_lc_clear(&rem);
    nnc_prv_lc_clear(&up);
}

void nnc_prv_g_relu(nnc_prv_cb *cb, nnc_prv_lc *y, const nnc_prv_lc *x, uint32_t nonneg, int rbits)
{
    nnc_prv_lc s = {0};
    if (nonneg == 0) nonneg = nnc_prv_g_range_signed(cb, x, rbits);
    lc_one(cb, &s, nonneg);
    nnc_prv_g_mul(cb, y, x, &s);
    nnc_prv_lc_clear(&s);
}

void nnc_prv_g_max(nnc_prv_cb *cb, nnc_prv_lc *y, const nnc_prv_lc *x, int k, int rbits)
{
    nnc_prv_fr best;
    int64_t bi = 0, xi;
    if (k < 1) { /* an empty window (all padding) would leave y unconstrained */
        nnc_prv_cb_fail(cb, NNC_STATUS_INVALID, "max: empty window");
        return;
    }
    nnc_prv_lc_eval(cb, &best, &x[0]);
    eval_i64(cb, &bi, &x[0], "max: input is not a small integer");
    for (int i = 1; i < k; i++) {
        eval_i64(cb, &xi, &x[i], "max: input is not a small integer");
        if (xi > bi) {
            bi = xi;
            nnc_prv_lc_eval(cb, &best, &x[i]);
        }
    }
    uint32_t w = nnc_prv_cb_wire(cb, NNC_PRV_WIRE_INTERNAL, &best);
    nnc_prv_lc d = {0}, p = {0}, np = {0}, zero = {0};
    for (int i = 0; i < k; i++) {
        lc_one(cb, &d, w);
        nnc_prv_lc_add_i(cb, &d, &x[i], -1);
        nnc_prv_g_bits(cb, &d, rbits, NULL); /* y - x[i] in [0, 2^rbits) */
        if (i == 0) {
            nnc_prv_lc_copy(cb, &p, &d);
            if (k == 1) {
                nnc_prv_lc one = {0};
                nnc_prv_lc_term_i(cb, &one, 0, 1);
                nnc_prv_cb_constrain(cb, &p, &one, &zero);
                nnc_prv_lc_clear(&one);
            }
        } else if (i < k - 1) {
            nnc_prv_g_mul(cb, &np, &p, &d);
            nnc_prv_lc_copy(cb, &p, &np);
        } else {
            nnc_prv_cb_constrain(cb, &p, &d, &zero); /* prod (y - x[i]) = 0 */
        }
    }
    lc_one(cb, y, w);
    nnc_prv_lc_clear(&d);
    nnc_prv_lc_clear(&p);
    nnc_prv_lc_clear(&np);
}

void nnc_prv_g_gather(nnc_prv_cb *cb, nnc_prv_lc *y, const nnc_prv_lc *idx, const int64_t *table, int64_t V, int64_t D)
{
    int64_t ix;
    eval_i64(cb, &ix, idx, "gather: index is not a small integer");
    if (ix < 0 || ix >= V) {
        nnc_prv_cb_fail_value(cb, "gather: index out of range");
        ix = 0;
    }
    nnc_prv_lc sum = {0}, pos = {0}, b = {0};
    nnc_prv_fr v;
    for (int64_t d = 0; d < D; d++) nnc_prv_lc_reset(&y[d]);
    for (int64_t r = 0; r < V; r++) {
        nnc_fr_set_u64(&v, r == ix);
        uint32_t s = nnc_prv_cb_wire(cb, NNC_PRV_WIRE_INTERNAL, &v);
        lc_one(cb, &b, s);
        nnc_prv_cb_constrain(cb, &b, &b, &b);
        nnc_prv_lc_term_i(cb, &sum, s, 1);
        nnc_prv_lc_term_i(cb, &pos, s, r);
        for (int64_t d = 0; d < D; d++) nnc_prv_lc_term_i(cb, &y[d], s, table[r * D + d]);
    }
    nnc_prv_lc_term_i(cb, &sum, 0, -1);
    assert_zero(cb, &sum);                 /* exactly one selector */
    nnc_prv_lc_add_i(cb, &pos, idx, -1);
    assert_zero(cb, &pos);                 /* at the index */
    nnc_prv_lc_clear(&sum);
    nnc_prv_lc_clear(&pos);
    nnc_prv_lc_clear(&b);
}

uint32_t nnc_prv_g_wire_of(nnc_prv_cb *cb, const nnc_prv_lc *x, nnc_prv_wire_class cls)
{
    nnc_prv_fr v;
    nnc_prv_lc one = {0}, c = {0};
    nnc_prv_lc_eval(cb, &v, x);
    uint32_t w = nnc_prv_cb_wire(cb, cls, &v);
    nnc_prv_lc_term_i(cb, &one, 0, 1);
    lc_one(cb, &c, w);
    nnc_prv_cb_constrain(cb, x, &one, &c);
    nnc_prv_lc_clear(&one);
    nnc_prv_lc_clear(&c);
    return w;
}

/* ---------------------------------------------------------------- Poseidon */

static void sbox(nnc_prv_cb *cb, nnc_prv_lc *x)
{
    nnc_prv_lc x2 = {0}, x4 = {0}, x5 = {0};
    nnc_prv_g_mul(cb, &x2, x, x);
    nnc_prv_g_mul(cb, &x4, &x2, &x2);
    nnc_prv_g_mul(cb, &x5, &x4, x);
    nnc_prv_lc_copy(cb, x, &x5);
    nnc_prv_lc_clear(&x2);
    nnc_prv_lc_clear(&x4);
    nnc_prv_lc_clear(&x5);
}

/* Powers M^0 .. M^n_partial of width t's MDS matrix (row-major t x t
 * each), built on first use and kept for the process. */
static pthread_mutex_t pos_pow_lock = PTHREAD_MUTEX_INITIALIZER;
static nnc_prv_fr *pos_pow[18];

static const nnc_prv_fr *mds_powers(const nnc_prv_poseidon_params *p)
{
    int t = p->t;
    size_t tt = (size_t)t * (size_t)t;
    pthread_mutex_lock(&pos_pow_lock);
    nnc_prv_fr *w = pos_pow[t];
    if (!w && (w = malloc((size_t)(p->n_partial + 1) * tt * sizeof *w))) {
        for (size_t e = 0; e < tt; e++) nnc_fr_set_zero(&w[e]);
        for (int i = 0; i < t; i++) nnc_fr_set_one(&w[(size_t)i * (size_t)t + (size_t)i]);
        for (int r = 1; r <= p->n_partial; r++) /* M^r = M M^(r-1) */
            for (int i = 0; i < t; i++)
                for (int j = 0; j < t; j++) {
                    nnc_prv_fr a, acc;
                    nnc_fr_set_zero(&acc);
                    for (int k = 0; k < t; k++) {
                        nnc_fr_mul(&a, &p->m[i * t + k], &w[(size_t)(r - 1) * tt + (size_t)k * (size_t)t + (size_t)j]);
                        nnc_fr_add(&acc, &acc, &a);
                    }
                    w[(size_t)r * tt + (size_t)i * (size_t)t + (size_t)j] = acc;
                }
        pos_pow[t] = w;
    }
    pthread_mutex_unlock(&pos_pow_lock);
    return w;
}

static int wire_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* *lc = sum_b v[b] w[basis[b]] over the nonzero v[b]; basis is increasing,
 * so the terms are already in the order nnc_prv_lc_compact leaves. */
static void lc_from_dense(nnc_prv_cb *cb, nnc_prv_lc *lc, const nnc_prv_fr *v, const uint32_t *basis, int64_t n)
{
    nnc_prv_lc_reset(lc);
    for (int64_t b = 0; b < n; b++)
        if (!nnc_fr_is_zero(&v[b])) nnc_prv_lc_term(cb, lc, basis[b], &v[b]);
}

/* The partial rounds r0 .. r0 + P - 1 of the permutation, with the state
 * kept as dense coefficients over a basis (wire 0, the wires of the
 * entering state, then each round's S-box output y_k) and unrolled:
 *     s_r = M^r s_0 + sum_{k<r} M^(r-k) (e_0 d_k + c_k),   d_k = y_k - u_k[0],
 * with u_r = s_r + c_r the S-box round's input.  Only u_r[0] is built in
 * each round (O(r t) products instead of the t^2 of a full mix) and the
 * whole state once at the end.  The combinations are the ones the plain
 * rounds build, term for term after nnc_prv_lc_compact (the same linear
 * forms, with zero terms dropped and wires in increasing order), so the
 * circuit is the same.  Returns: 0, or -1 when out of memory (sticky error
 * set). */
/* v[0 .. B0 + r) = s_r[i] less its round constants: row i of M^r s_0 plus
 * sum_{k<r} (M^(r-k))_i0 d_k (mp: the powers of M; s_0 is t x B0, d_k has
 * B0 + k + 1 coordinates in a row of B). */
static void state_word(nnc_prv_fr *v, const nnc_prv_fr *mp, int t, int i, int r, const nnc_prv_fr *s0, int64_t B0,
                       const nnc_prv_fr *d, int64_t B)
{
    size_t tt = (size_t)t * (size_t)t;
    const nnc_prv_fr *row = mp + (size_t)r * tt + (size_t)i * (size_t)t;
    nnc_prv_fr a;
    for (int64_t b = 0; b < B0 + r; b++) nnc_fr_set_zero(&v[b]);
    for (int j = 0; j < t; j++)
        if (!nnc_fr_is_zero(&row[j]))
            for (int64_t b = 0; b < B0; b++) {
                nnc_fr_mul(&a, &row[j], &s0[(size_t)j * (size_t)B0 + (size_t)b]);
                nnc_fr_add(&v[b], &v[b], &a);
            }
    for (int k = 0; k < r; k++) {
        const nnc_prv_fr *ck = &mp[(size_t)(r - k) * tt + (size_t)i * (size_t)t]; /* (M^(r-k))_i0 */
        for (int64_t b = 0; b < B0 + k + 1; b++) {
            nnc_fr_mul(&a, ck, &d[(size_t)k * (size_t)B + (size_t)b]);
            nnc_fr_add(&v[b], &v[b], &a);
        }
    }
}

static int partial_rounds(nnc_prv_cb *cb, const nnc_prv_poseidon_params *p, nnc_prv_lc *state, int r0)
{
    int t = p->t, P = p->n_partial;
    const nnc_prv_fr *mp = mds_powers(p);
    int64_t nw = 1;
    for (int i = 0; i < t; i++) nw += state[i].n;
    uint32_t *basis = malloc((size_t)(nw + P) * sizeof *basis);
    if (!mp || !basis) {
        free(basis);
        nnc_prv_cb_fail(cb, NNC_STATUS_NOMEM, "out of memory (Poseidon)");
        return -1;
    }
    int64_t B0 = 0;
    basis[B0++] = 0;
    for (int i = 0; i < t; i++)
        for (uint32_t k = 0; k < state[i].n; k++) basis[B0++] = state[i].t[k].wire;
    qsort(basis, (size_t)B0, sizeof *basis, wire_cmp);
    int64_t u = 0;
    for (int64_t b = 0; b < B0; b++)
        if (u == 0 || basis[b] != basis[u - 1]) basis[u++] = basis[b];
    B0 = u;
    int64_t B = B0 + P; /* row length: the entering basis, then y_0 .. y_(P-1) */
    nnc_prv_fr *s0 = calloc((size_t)t * (size_t)B0, sizeof *s0), *d = calloc((size_t)P * (size_t)B, sizeof *d);
    nnc_prv_fr *v = calloc((size_t)B, sizeof *v), *cv = calloc((size_t)(2 * t), sizeof *cv), *nc = cv + t, a;
    nnc_prv_lc x = {0};
    if (!s0 || !d || !v || !cv) {
        nnc_prv_cb_fail(cb, NNC_STATUS_NOMEM, "out of memory (Poseidon)");
        goto done;
    }
    for (int i = 0; i < t; i++)
        for (uint32_t k = 0; k < state[i].n; k++) {
            uint32_t *at = bsearch(&state[i].t[k].wire, basis, (size_t)B0, sizeof *basis, wire_cmp);
            nnc_prv_fr *e = &s0[(size_t)i * (size_t)B0 + (size_t)(at - basis)];
            nnc_fr_add(e, e, &state[i].t[k].coef);
        }
    for (int r = 0; r < P; r++) {
        const nnc_prv_fr *c = &p->c[(size_t)(r0 + r) * (size_t)t];
        /* v = u_r[0] = s_r[0] + c[0] */
        state_word(v, mp, t, 0, r, s0, B0, d, B);
        nnc_fr_add(&v[0], &v[0], &cv[0]);
        nnc_fr_add(&v[0], &v[0], &c[0]);
        lc_from_dense(cb, &x, v, basis, B0 + r);
        sbox(cb, &x);
        if (nnc_prv_cb_status(cb, NULL, 0)) goto done;
        /* d_r = y_r - u_r[0]; y_r is a new wire, above every basis wire so
         * far, or a constant when u_r[0] is one (its column then stays 0) */
        nnc_prv_fr *dr = &d[(size_t)r * (size_t)B];
        for (int64_t b = 0; b < B0 + r; b++) nnc_fr_neg(&dr[b], &v[b]);
        basis[B0 + r] = basis[B0 + r - 1];
        for (uint32_t k = 0; k < x.n; k++) {
            if (x.t[k].wire == 0) {
                nnc_fr_add(&dr[0], &dr[0], &x.t[k].coef);
            } else {
                basis[B0 + r] = x.t[k].wire;
                nnc_fr_add(&dr[B0 + r], &dr[B0 + r], &x.t[k].coef);
            }
        }
        /* cv = M (cv + c) */
        for (int i = 0; i < t; i++) nnc_fr_add(&cv[i], &cv[i], &c[i]);
        for (int i = 0; i < t; i++) {
            nnc_fr_set_zero(&nc[i]);
            for (int j = 0; j < t; j++) {
                nnc_fr_mul(&a, &p->m[i * t + j], &cv[j]);
                nnc_fr_add(&nc[i], &nc[i], &a);
            }
        }
        memcpy(cv, nc, (size_t)t * sizeof *cv);
    }
    for (int i = 0; i < t; i++) { /* the state leaving the partial rounds */
        state_word(v, mp, t, i, P, s0, B0, d, B);
        nnc_fr_add(&v[0], &v[0], &cv[i]);
        lc_from_dense(cb, &state[i], v, basis, B);
    }
done:
    nnc_prv_lc_clear(&x);
    free(basis);
    free(s0);
    free(d);
    free(v);
    free(cv);
    return nnc_prv_cb_status(cb, NULL, 0) ? -1 : 0;
}

/* Witness-only mode: x^5 of a value x (cst: a constant, no wires), or the
 * S-box's three product wires and constraints in sbox()'s order. */
static void sbox_value(nnc_prv_cb *cb, nnc_prv_fr *x, int cst, uint32_t *last)
{
    nnc_prv_fr x2, x4, x5;
    nnc_fr_sqr(&x2, x);
    nnc_fr_sqr(&x4, &x2);
    nnc_fr_mul(&x5, &x4, x);
    if (!cst) {
        nnc_prv_cb_wire(cb, NNC_PRV_WIRE_INTERNAL, &x2);
        nnc_prv_cb_constrain_values(cb, x, x);
        nnc_prv_cb_wire(cb, NNC_PRV_WIRE_INTERNAL, &x4);
        nnc_prv_cb_constrain_values(cb, &x2, &x2);
        *last = nnc_prv_cb_wire(cb, NNC_PRV_WIRE_INTERNAL, &x5);
        nnc_prv_cb_constrain_values(cb, &x4, x);
    }
    *x = x5;
}

/* nnc_prv_g_poseidon in witness-only mode: the permutation's values by
 * plain rounds, creating the wires and constraints of the full build: an
 * S-box on a non-constant element costs its three products.  Which elements
 * are constant follows from the entering state: an S-box keeps an element's
 * kind, and a mix by the MDS matrix (whose entries are all nonzero) gives
 * constants only from constants.  Each element leaves as its value: a
 * constant, or (non-constant in the full build) the last S-box wire plus
 * the constant that makes up the value, so later gadgets see the same kind
 * of combination (test_circuit compares the witness with the full build's
 * for every privacy setting). */
static int poseidon_by_value(nnc_prv_cb *cb, nnc_prv_lc *state, const nnc_prv_poseidon_params *p)
{
    const int t = p->t, half = p->n_full / 2, rounds = p->n_full + p->n_partial;
    nnc_prv_fr v[NNC_PRV_POSEIDON_T_MAX], nv[NNC_PRV_POSEIDON_T_MAX], a;
    int cst[NNC_PRV_POSEIDON_T_MAX], all = 1;
    uint32_t last = 0;
    nnc_prv_lc tmp = {0};
    for (int i = 0; i < t; i++) {
        nnc_prv_lc_copy(cb, &tmp, &state[i]);
        nnc_prv_lc_compact(cb, &tmp);
        cst[i] = nnc_prv_lc_is_const(&tmp);
        nnc_prv_lc_eval(cb, &v[i], &tmp);
    }
    nnc_prv_lc_clear(&tmp);
    for (int r = 0; r < rounds; r++) {
        int full = r < half || r >= half + p->n_partial;
        for (int i = 0; i < t; i++) {
            nnc_fr_add(&v[i], &v[i], &p->c[(size_t)r * (size_t)t + (size_t)i]);
            if (full || i == 0) sbox_value(cb, &v[i], cst[i], &last);
        }
        all = 1;
        for (int i = 0; i < t; i++) all &= cst[i];
        for (int i = 0; i < t; i++) {
            nnc_fr_set_zero(&nv[i]);
            for (int j = 0; j < t; j++) {
                nnc_fr_mul(&a, &p->m[i * t + j], &v[j]);
                nnc_fr_add(&nv[i], &nv[i], &a);
            }
        }
        for (int i = 0; i < t; i++) {
            v[i] = nv[i];
            cst[i] = all;
        }
    }
    for (int i = 0; i < t; i++) {
        nnc_prv_lc_reset(&state[i]);
        if (cst[i]) {
            nnc_prv_lc_term(cb, &state[i], 0, &v[i]);
            continue;
        }
        nnc_fr_sub(&a, &v[i], nnc_prv_cb_value(cb, last));
        nnc_prv_lc_term_i(cb, &state[i], last, 1);
        nnc_prv_lc_term(cb, &state[i], 0, &a);
    }
    return nnc_prv_cb_status(cb, NULL, 0) ? -1 : 0;
}

int nnc_prv_g_poseidon(nnc_prv_cb *cb, nnc_prv_lc *state, int t)
{
    const nnc_prv_poseidon_params *p = nnc_prv_poseidon_params_get(t);
    if (!p) return -1;
    if (nnc_prv_cb_witness_only(cb)) return poseidon_by_value(cb, state, p);
    int rounds = p->n_full + p->n_partial, half = p->n_full / 2;
    nnc_prv_lc *ns = calloc((size_t)t, sizeof *ns);
    if (!ns) {
        nnc_prv_cb_fail(cb, NNC_STATUS_NOMEM, "out of memory (Poseidon)");
        return 0;
    }
    for (int r = 0; r < rounds; r++) {
        if (r == half && p->n_partial > 0) {
            if (partial_rounds(cb, p, state, r)) break;
            r += p->n_partial - 1;
            continue;
        }
        int full = r < half || r >= half + p->n_partial;
        for (int i = 0; i < t; i++) {
            nnc_prv_lc_term(cb, &state[i], 0, &p->c[r * t + i]);
            nnc_prv_lc_compact(cb, &state[i]);
            if (full || i == 0) sbox(cb, &state[i]);
        }
        for (int i = 0; i < t; i++) {
            nnc_prv_lc_reset(&ns[i]);
            for (int j = 0; j < t; j++) nnc_prv_lc_add(cb, &ns[i], &state[j], &p->m[i * t + j]);
            nnc_prv_lc_compact(cb, &ns[i]);
        }
        for (int i = 0; i < t; i++) {
            nnc_prv_lc tmp = state[i];
            state[i] = ns[i];
            ns[i] = tmp;
        }
    }
    for (int i = 0; i < t; i++) nnc_prv_lc_clear(&ns[i]);
    free(ns);
    return 0;
}

/* ---------------------------------------------------------------- commitments */

/* an element's slots fill at most NNC_PRV_ZK_PACK_BITS bits: one integer of
 * four limbs below r (nnc_prv_zk_commit packs them so) */
_Static_assert(NNC_PRV_ZK_PACK_BITS <= 253, "packed commitment elements must stay below r");
static int seg_slots(int bits) { return NNC_PRV_ZK_PACK_BITS / bits; }

static int64_t n_elements(const nnc_prv_zk_segment *seg, int n_seg)
{
    int64_t e = 0;
    for (int s = 0; s < n_seg; s++) e += (seg[s].n + seg_slots(seg[s].bits) - 1) / seg_slots(seg[s].bits);
    return e;
}

nnc_status nnc_prv_zk_commit(nnc_prv_fr *out, const nnc_prv_zk_segment *seg, int n_seg, char *err, size_t errlen)
{
    int64_t ne = n_elements(seg, n_seg), k = 0;
    nnc_prv_fr *e = calloc((size_t)(ne ? ne : 1), sizeof *e);
    if (!e) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int s = 0; s < n_seg; s++) {
        int bits = seg[s].bits, slots = seg_slots(bits);
        if (bits < 1 || bits > 62) {
            free(e);
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "commitment segment %d: %d bits", s, bits);
        }
        int64_t off = (int64_t)1 << (bits - 1);
        /* an element's slots as one integer below 2^NNC_PRV_ZK_PACK_BITS < r:
         * its field value is sum (x_i + off) 2^(bits i), as the circuit's */
        uint64_t acc[4] = {0, 0, 0, 0};
        for (int64_t i = 0; i < seg[s].n; i++) {
            int64_t x = seg[s].v[i];
            if (x < -off || x >= off) {
                free(e);
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "commitment segment %d: value %lld outside %d signed bits", s,
                               (long long)x, bits);
            }
            uint64_t u = (uint64_t)(x + off);
            int sh = bits * (int)(i % slots), lw = sh / 64, lb = sh % 64;
            acc[lw] |= u << lb;
            if (lb + bits > 64) acc[lw + 1] |= u >> (64 - lb);
            if (i % slots == slots - 1 || i + 1 == seg[s].n) {
                int ok = nnc_fr_from_int(&e[k++], acc);
                assert(ok);
                (void)ok;
                memset(acc, 0, sizeof acc);
            }
        }
    }
    nnc_prv_fr in[NNC_PRV_ZK_RATE + 1], h;
    nnc_fr_set_u64(&h, (uint64_t)ne);
    int64_t i = 0;
    do {
        in[0] = h;
        for (int j = 0; j < NNC_PRV_ZK_RATE; j++) {
            if (i + j < ne) in[1 + j] = e[i + j];
            else nnc_fr_set_zero(&in[1 + j]);
        }
        nnc_status st = nnc_prv_poseidon_hash(&h, in, NNC_PRV_ZK_RATE + 1);
        if (st) {
            free(e);
            return nnc_err(err, errlen, st, "Poseidon unavailable");
        }
        i += NNC_PRV_ZK_RATE;
    } while (i < ne);
    free(e);
    *out = h;
    return NNC_STATUS_OK;
}

/* *u = value i of segment sg plus 2^(bits-1) (its unsigned slot). */
static void commit_slot(nnc_prv_cb *cb, nnc_prv_lc *u, const nnc_prv_zk_segment *sg, int64_t i)
{
    if (sg->bit0) nnc_prv_lc_signed_bits(cb, u, sg->bit0[i], sg->bits);
    else nnc_prv_lc_copy(cb, u, &sg->lc[i]);
    nnc_prv_lc_term_i(cb, u, 0, (int64_t)1 << (sg->bits - 1));
}

void nnc_prv_g_commit(nnc_prv_cb *cb, nnc_prv_lc *out, const nnc_prv_zk_segment *seg, int n_seg)
{
    int64_t ne = n_elements(seg, n_seg);
    nnc_prv_lc st[NNC_PRV_ZK_RATE + 2], u = {0}, h = {0};
    memset(st, 0, sizeof st);
    nnc_prv_fr sh;
    /* Range checks first (they make the packing injective), then the
     * packed elements, built as the hash absorbs them. */
    for (int s = 0; s < n_seg; s++) {
        if (seg[s].ranged || seg[s].bit0) continue; /* held by its bits already (nnc_prv_g_signed_bits) */
        for (int64_t i = 0; i < seg[s].n; i++) {
            commit_slot(cb, &u, &seg[s], i);
            if (nnc_prv_lc_is_const(&u)) { /* a public constant: checked here, costs nothing */
                int64_t x;
                if (eval_i64(cb, &x, &u, "commitment: constant out of range") == 0)
                    checked_unsigned(cb, x, seg[s].bits, "commitment: constant out of range");
            } else {
                nnc_prv_g_bits(cb, &u, seg[s].bits, NULL);
            }
        }
    }
    nnc_prv_lc_term_i(cb, &h, 0, ne);
    int s = 0;
    int64_t i = 0, k = 0; /* the next element starts at value i of segment s */
    do {
        nnc_prv_lc_reset(&st[0]); /* circomlib: state = [0, inputs...] */
        nnc_prv_lc_copy(cb, &st[1], &h);
        for (int j = 0; j < NNC_PRV_ZK_RATE; j++) {
            nnc_prv_lc *e = &st[2 + j];
            nnc_prv_lc_reset(e);
            if (k + j >= ne) continue;
            while (i >= seg[s].n) s++, i = 0; /* an element never spans two segments */
            int slots = seg_slots(seg[s].bits);
            for (int64_t o = 0; o < slots && i < seg[s].n; o++, i++) {
                commit_slot(cb, &u, &seg[s], i);
                fr_pow2(&sh, seg[s].bits * (int)o);
                nnc_prv_lc_add(cb, e, &u, &sh);
            }
            nnc_prv_lc_compact(cb, e);
        }
        nnc_prv_g_poseidon(cb, st, NNC_PRV_ZK_RATE + 2);
        nnc_prv_lc_copy(cb, &h, &st[0]);
        k += NNC_PRV_ZK_RATE;
    } while (k < ne);
    nnc_prv_lc_copy(cb, out, &h);
    for (int j = 0; j < NNC_PRV_ZK_RATE + 2; j++) nnc_prv_lc_clear(&st[j]);
    nnc_prv_lc_clear(&u);
    nnc_prv_lc_clear(&h);
}
