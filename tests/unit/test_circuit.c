/* The NN-to-circuit compiler (zk/circuit.h) and the quantised reference
 * runtime (zk/quant.h).
 *
 * Soundness tests used throughout:
 *  - honest: the witness a gadget computes satisfies the R1CS;
 *  - every wire determined: adding 1 to any wire the gadget created breaks
 *    a constraint (an under-constrained wire would survive);
 *  - splice: the circuit built for other inputs has the same constraints
 *    (byte-identical .r1cs), and its witness with the inputs replaced by the
 *    first one's -- a consistent-looking witness for a wrong output -- is
 *    rejected;
 *  - exhaustive: on tiny ranges, every candidate output other than the right
 *    one is rejected. */
#include "zk/quant.h"
#include "zk/circuit.h"
#include "nncert/poseidon.h"
#include "nncert/prover.h"
#include "prover/groth16_impl.h"
#include "prover_test_util.h"
#include "onnx_builder.h"

#include <math.h>
#include <string.h>

static char err[NNC_ERRBUF_SIZE];

/* 1 when the builder's current witness satisfies its constraints. */
static int satisfied(nnc_prv_cb *cb)
{
    nnc_prv_r1cs r;
    nnc_prv_fr_vec w;
    CHECK(nnc_prv_cb_finish(cb, &r, &w, NULL, err, sizeof err) == NNC_STATUS_OK);
    int ok = nnc_prv_r1cs_check_witness(NULL, &r, w.v, w.n, NULL, 0) == NNC_STATUS_OK;
    nnc_prv_r1cs_clear(&r);
    nnc_prv_fr_vec_clear(&w);
    return ok;
}

/* Every wire in [first, n_wires) perturbed by +1 breaks a constraint. */
static void every_wire_determined(nnc_prv_cb *cb, uint32_t first)
{
    nnc_prv_fr one, save;
    nnc_prv_fr_from_i64(&one, 1);
    CHECK(satisfied(cb));
    for (uint32_t id = first; id < nnc_prv_cb_n_wires(cb); id++) {
        nnc_prv_fr *v = nnc_prv_cb_value(cb, id);
        save = *v;
        /* v = save + 1: to integer and back when small, else by evaluating
         * the constant combination save + 1 */
        int64_t iv;
        if (nnc_prv_fr_to_i64(&iv, &save) == 0) nnc_prv_fr_from_i64(v, iv + 1);
        else {
            nnc_prv_lc l = {0};
            nnc_prv_lc_term(cb, &l, 0, &save);
            nnc_prv_lc_term(cb, &l, 0, &one);
            nnc_prv_lc_eval(cb, v, &l);
            nnc_prv_lc_clear(&l);
        }
        if (satisfied(cb)) ck_abort_msg("wire %u is not determined by the constraints (seed %llu)", id, (unsigned long long)g_seed);
        *v = save;
    }
    CHECK(satisfied(cb));
}

static nnc_prv_cb *new_cb(void)
{
    nnc_prv_cb *cb;
    CHECK(nnc_prv_cb_create(&cb) == NNC_STATUS_OK);
    return cb;
}

/* A private input wire holding v, as a combination. */
static uint32_t input(nnc_prv_cb *cb, nnc_prv_lc *lc, int64_t v)
{
    nnc_prv_fr f;
    nnc_prv_fr_from_i64(&f, v);
    uint32_t id = nnc_prv_cb_wire(cb, NNC_PRV_WIRE_PRV_IN, &f);
    nnc_prv_lc_reset(lc);
    nnc_prv_lc_term_i(cb, lc, id, 1);
    return id;
}

static int64_t eval_i(nnc_prv_cb *cb, const nnc_prv_lc *lc)
{
    nnc_prv_fr v;
    int64_t x;
    nnc_prv_lc_eval(cb, &v, lc);
    CHECK(nnc_prv_fr_to_i64(&x, &v) == 0);
    return x;
}

static int64_t floordiv(int64_t a, int64_t d)
{
    int64_t q = a / d;
    return (a % d != 0 && a < 0) ? q - 1 : q;
}

START_TEST(test_field_ints)
{
    rng r = rng_for(1);
    for (int i = 0; i < 2000; i++) {
        int64_t v = (int64_t)(rng_next(&r) >> 3) - ((int64_t)1 << 60), back;
        nnc_prv_fr f;
        nnc_prv_fr_from_i64(&f, v);
        CHECK(nnc_prv_fr_to_i64(&back, &f) == 0 && back == v);
    }
}
END_TEST

START_TEST(test_bits_exhaustive)
{
    /* n = 4: every x in [-4, 20) and every boolean assignment of the bits */
    for (int64_t x = -4; x < 20; x++) {
        nnc_prv_cb *cb = new_cb();
        nnc_prv_lc lx = {0};
        uint32_t bits[4];
        input(cb, &lx, x >= 0 && x < 16 ? x : 0);
        nnc_prv_g_bits(cb, &lx, 4, bits);
        CHECK(nnc_prv_cb_status(cb, NULL, 0) == NNC_STATUS_OK);
        nnc_prv_fr_from_i64(nnc_prv_cb_value(cb, lx.t[0].wire), x); /* claim x */
        int accepted = 0;
        for (int a = 0; a < 16; a++) {
            for (int k = 0; k < 4; k++) nnc_prv_fr_from_i64(nnc_prv_cb_value(cb, bits[k]), (a >> k) & 1);
            accepted += satisfied(cb);
        }
        CHECK(accepted == (x >= 0 && x < 16));
        /* a non-boolean "bit" is rejected even when the sum matches */
        if (x == 2) {
            nnc_prv_fr_from_i64(nnc_prv_cb_value(cb, bits[0]), 2);
            for (int k = 1; k < 4; k++) nnc_prv_fr_from_i64(nnc_prv_cb_value(cb, bits[k]), 0);
            CHECK(!satisfied(cb));
        }
        nnc_prv_lc_clear(&lx);
        nnc_prv_cb_destroy(cb);
    }
    /* an out-of-range honest value is reported by the builder */
    nnc_prv_cb *cb = new_cb();
    nnc_prv_lc lx = {0};
    input(cb, &lx, 16);
    nnc_prv_g_bits(cb, &lx, 4, NULL);
    CHECK(nnc_prv_cb_status(cb, NULL, 0) == NNC_STATUS_INVALID);
    nnc_prv_lc_clear(&lx);
    nnc_prv_cb_destroy(cb);
}
END_TEST

START_TEST(test_requant)
{
    rng r = rng_for(2);
    for (int it = 0; it < 40; it++) {
        int s = (int)(rng_next(&r) % 9), rb = 8 + (int)(rng_next(&r) % 6);
        int64_t lim = ((int64_t)1 << (rb - 1)) << s;
        int64_t acc = (int64_t)(rng_next(&r) % (uint64_t)(2 * lim - (s ? ((int64_t)1 << (s - 1)) : 0))) - lim;
        nnc_prv_cb *cb = new_cb();
        nnc_prv_lc lx = {0}, y = {0};
        input(cb, &lx, acc);
        uint32_t first = nnc_prv_cb_n_wires(cb), nonneg;
        uint64_t c0 = nnc_prv_cb_n_constraints(cb);
        nnc_prv_g_requant(cb, &y, &nonneg, &lx, s, rb);
        CHECK(nnc_prv_cb_status(cb, err, sizeof err) == NNC_STATUS_OK);
        CHECK(nnc_prv_cb_n_constraints(cb) - c0 == (uint64_t)(s + rb + 1));
        int64_t want = s ? floordiv(acc + ((int64_t)1 << (s - 1)), (int64_t)1 << s) : acc;
        CHECK(eval_i(cb, &y) == want);
        int64_t nn;
        CHECK(nnc_prv_fr_to_i64(&nn, nnc_prv_cb_value(cb, nonneg)) == 0 && nn == (want >= 0));
        every_wire_determined(cb, first);
        nnc_prv_lc_clear(&lx);
        nnc_prv_lc_clear(&y);
        nnc_prv_cb_destroy(cb);
    }
}
END_TEST

/* Exhaustive: requant with s = 2, rbits = 4 -- every (y', rem') pair other
 * than the right one is rejected (the remainder and quotient bits are set
 * directly). */
START_TEST(test_requant_exhaustive)
{
    for (int64_t acc = -34; acc < 30; acc++) {
        nnc_prv_cb *cb = new_cb();
        nnc_prv_lc lx = {0}, y = {0};
        input(cb, &lx, acc);
        uint32_t first = nnc_prv_cb_n_wires(cb);
        nnc_prv_g_requant(cb, &y, NULL, &lx, 2, 4);
        CHECK(nnc_prv_cb_status(cb, NULL, 0) == NNC_STATUS_OK);
        CHECK(nnc_prv_cb_n_wires(cb) - first == 6); /* 2 remainder bits, then 4 quotient bits */
        int64_t want = floordiv(acc + 2, 4);
        int accepted = 0;
        for (int rem = 0; rem < 4; rem++)
            for (int64_t q = -8; q < 8; q++) {
                for (int k = 0; k < 2; k++) nnc_prv_fr_from_i64(nnc_prv_cb_value(cb, first + k), (rem >> k) & 1);
                for (int k = 0; k < 4; k++) nnc_prv_fr_from_i64(nnc_prv_cb_value(cb, first + 2 + k), ((q + 8) >> k) & 1);
                if (satisfied(cb)) {
                    accepted++;
                    CHECK(q == want && rem == acc + 2 - 4 * want);
                }
            }
        CHECK(accepted == 1);
        nnc_prv_lc_clear(&lx);
        nnc_prv_lc_clear(&y);
        nnc_prv_cb_destroy(cb);
    }
}
END_TEST

START_TEST(test_divround)
{
    const int64_t ds[] = {1, 3, 5, 6, 9, 12};
    for (size_t di = 0; di < sizeof ds / sizeof *ds; di++)
        for (int64_t x = -60; x <= 60; x += 7) {
            nnc_prv_cb *cb = new_cb();
            nnc_prv_lc lx = {0}, y = {0};
            input(cb, &lx, x);
            uint32_t first = nnc_prv_cb_n_wires(cb);
            nnc_prv_g_divround(cb, &y, &lx, ds[di], 8);
            CHECK(nnc_prv_cb_status(cb, NULL, 0) == NNC_STATUS_OK);
            CHECK(eval_i(cb, &y) == floordiv(x + ds[di] / 2, ds[di]));
            every_wire_determined(cb, first);
            nnc_prv_lc_clear(&lx);
            nnc_prv_lc_clear(&y);
            nnc_prv_cb_destroy(cb);
        }
}
END_TEST

START_TEST(test_relu_exhaustive)
{
    for (int64_t x = -8; x < 8; x++)
        for (int fused = 0; fused < 2; fused++) {
            nnc_prv_cb *cb = new_cb();
            nnc_prv_lc lx = {0}, y = {0}, q = {0};
            input(cb, &lx, 4 * x);
            uint32_t first = nnc_prv_cb_n_wires(cb), nonneg = 0;
            if (fused) nnc_prv_g_requant(cb, &q, &nonneg, &lx, 2, 4); /* q = x, sign bit reused */
            else nnc_prv_lc_add_i(cb, &q, &lx, 1);
            nnc_prv_g_relu(cb, &y, &q, nonneg, fused ? 4 : 6);
            CHECK(nnc_prv_cb_status(cb, NULL, 0) == NNC_STATUS_OK);
            int64_t want = fused ? (x > 0 ? x : 0) : (4 * x > 0 ? 4 * x : 0);
            CHECK(eval_i(cb, &y) == want);
            every_wire_determined(cb, first);
            /* every other output value is rejected */
            CHECK(y.n == 1);
            nnc_prv_fr *out = nnc_prv_cb_value(cb, y.t[0].wire);
            for (int64_t c = -40; c < 40; c++) {
                nnc_prv_fr_from_i64(out, c);
                CHECK(satisfied(cb) == (c == want));
            }
            nnc_prv_lc_clear(&lx);
            nnc_prv_lc_clear(&y);
            nnc_prv_lc_clear(&q);
            nnc_prv_cb_destroy(cb);
        }
}
END_TEST

/* Build max(x[0..3]) for given inputs; returns the builder. */
static nnc_prv_cb *build_max(const int64_t *xv, int k, nnc_prv_lc *y, uint32_t *in_ids)
{
    nnc_prv_cb *cb = new_cb();
    nnc_prv_lc x[8];
    memset(x, 0, sizeof x);
    for (int i = 0; i < k; i++) in_ids[i] = input(cb, &x[i], xv[i]);
    nnc_prv_g_max(cb, y, x, k, 5);
    for (int i = 0; i < k; i++) nnc_prv_lc_clear(&x[i]);
    return cb;
}

static int r1cs_equal(nnc_prv_cb *a, nnc_prv_cb *b)
{
    nnc_prv_r1cs ra, rb;
    size_t la = 0, lb = 0;
    CHECK(nnc_prv_cb_finish(a, &ra, NULL, NULL, err, sizeof err) == NNC_STATUS_OK);
    CHECK(nnc_prv_cb_finish(b, &rb, NULL, NULL, err, sizeof err) == NNC_STATUS_OK);
    nnc_prv_r1cs_serialize(NULL, &la, &ra);
    nnc_prv_r1cs_serialize(NULL, &lb, &rb);
    int eq = la == lb;
    if (eq) {
        unsigned char *ba = malloc(la), *bb = malloc(lb);
        nnc_prv_r1cs_serialize(ba, &la, &ra);
        nnc_prv_r1cs_serialize(bb, &lb, &rb);
        eq = memcmp(ba, bb, la) == 0;
        free(ba);
        free(bb);
    }
    nnc_prv_r1cs_clear(&ra);
    nnc_prv_r1cs_clear(&rb);
    return eq;
}

/* nnc_prv_cb_finish_move renumbers and merges in place: the same .r1cs and
 * witness as nnc_prv_cb_finish, including combinations that need sorting,
 * merging and dropping of cancelled terms; the builder is then consumed. */
START_TEST(test_finish_move)
{
    const int64_t xv[4] = {-7, 12, 3, 12};
    uint32_t ids[2][4];
    nnc_prv_cb *cb[2];
    nnc_prv_lc y[2] = {{0}, {0}}, a = {0}, c = {0};
    for (int k = 0; k < 2; k++) {
        cb[k] = build_max(xv, 4, &y[k], ids[k]);
        /* unsorted, with a repeated wire (3 + 2) and a cancelling pair (4 - 4) */
        nnc_prv_lc_reset(&a);
        nnc_prv_lc_term_i(cb[k], &a, ids[k][2], 3);
        nnc_prv_lc_term_i(cb[k], &a, ids[k][0], 1);
        nnc_prv_lc_term_i(cb[k], &a, ids[k][1], 4);
        nnc_prv_lc_term_i(cb[k], &a, ids[k][2], 2);
        nnc_prv_lc_term_i(cb[k], &a, ids[k][1], -4);
        nnc_prv_lc_reset(&c);
        nnc_prv_lc_term_i(cb[k], &c, ids[k][3], 1);
        nnc_prv_cb_constrain(cb[k], &a, &y[k], &c);
    }
    nnc_prv_r1cs r[2];
    nnc_prv_fr_vec w[2];
    CHECK(nnc_prv_cb_finish(cb[0], &r[0], &w[0], NULL, err, sizeof err) == NNC_STATUS_OK);
    CHECK(nnc_prv_cb_finish_move(cb[1], &r[1], &w[1], NULL, err, sizeof err) == NNC_STATUS_OK);
    CHECK_EQ(r[0].n_terms, r[1].n_terms);
    CHECK(r[1].n_terms < nnc_prv_cb_n_terms(cb[1])); /* something was merged */
    CHECK(memcmp(r[0].lc_start, r[1].lc_start, (size_t)(3 * r[0].n_constraints + 1) * sizeof *r[0].lc_start) == 0);
    for (uint64_t i = 0; i < r[0].n_terms; i++) { /* field by field: the struct has padding */
        CHECK_EQ(r[0].terms[i].wire, r[1].terms[i].wire);
        CHECK(memcmp(&r[0].terms[i].coef, &r[1].terms[i].coef, sizeof r[0].terms[i].coef) == 0);
    }
    CHECK_EQ(w[0].n, w[1].n);
    CHECK(memcmp(w[0].v, w[1].v, (size_t)w[0].n * sizeof *w[0].v) == 0);
    nnc_prv_r1cs r2;
    CHECK_ILLEGAL(nnc_prv_cb_finish(cb[1], &r2, NULL, NULL, err, sizeof err), err);
    for (int k = 0; k < 2; k++) {
        nnc_prv_r1cs_clear(&r[k]);
        nnc_prv_fr_vec_clear(&w[k]);
        nnc_prv_lc_clear(&y[k]);
        nnc_prv_cb_destroy(cb[k]);
    }
    nnc_prv_lc_clear(&a);
    nnc_prv_lc_clear(&c);
}
END_TEST

START_TEST(test_max)
{
    rng r = rng_for(3);
    { /* an empty window would leave the output free: refused */
        nnc_prv_cb *cb = new_cb();
        nnc_prv_lc y = {0}, x = {0};
        nnc_prv_g_max(cb, &y, &x, 0, 8);
        CHECK(nnc_prv_cb_status(cb, NULL, 0) != NNC_STATUS_OK);
        nnc_prv_lc_clear(&y);
        nnc_prv_cb_destroy(cb);
    }
    for (int it = 0; it < 30; it++) {
        int k = 1 + (int)(rng_next(&r) % 4);
        int64_t xv[4], xw[4];
        uint32_t ida[4], idb[4];
        for (int i = 0; i < k; i++) {
            xv[i] = (int64_t)(rng_next(&r) % 30) - 15;
            xw[i] = xv[i] + (int64_t)(rng_next(&r) % 3) - 1;
        }
        nnc_prv_lc ya = {0}, yb = {0};
        nnc_prv_cb *a = build_max(xv, k, &ya, ida), *b = build_max(xw, k, &yb, idb);
        int64_t ma = xv[0], mb_ = xw[0];
        for (int i = 1; i < k; i++) {
            ma = xv[i] > ma ? xv[i] : ma;
            mb_ = xw[i] > mb_ ? xw[i] : mb_;
        }
        CHECK(eval_i(a, &ya) == ma && eval_i(b, &yb) == mb_);
        every_wire_determined(a, k + 1);
        /* splice: b's witness with a's inputs claims max = mb_ */
        CHECK(r1cs_equal(a, b));
        for (int i = 0; i < k; i++) *nnc_prv_cb_value(b, idb[i]) = *nnc_prv_cb_value(a, ida[i]);
        if (ma != mb_) CHECK(!satisfied(b));
        nnc_prv_lc_clear(&ya);
        nnc_prv_lc_clear(&yb);
        nnc_prv_cb_destroy(a);
        nnc_prv_cb_destroy(b);
    }
}
END_TEST

START_TEST(test_gather)
{
    const int64_t table[5 * 3] = {1, -2, 3, 4, 5, -6, 7, 8, 9, -10, 11, 12, 0, 0, 1};
    for (int64_t ix = 0; ix < 5; ix++) {
        nnc_prv_cb *a = new_cb(), *b = new_cb();
        nnc_prv_lc la = {0}, lb = {0}, ya[3], yb[3];
        memset(ya, 0, sizeof ya);
        memset(yb, 0, sizeof yb);
        uint32_t ia = input(a, &la, ix), ib = input(b, &lb, (ix + 1) % 5);
        nnc_prv_g_gather(a, ya, &la, table, 5, 3);
        nnc_prv_g_gather(b, yb, &lb, table, 5, 3);
        for (int d = 0; d < 3; d++) CHECK(eval_i(a, &ya[d]) == table[ix * 3 + d]);
        every_wire_determined(a, ia + 1);
        CHECK(r1cs_equal(a, b));
        *nnc_prv_cb_value(b, ib) = *nnc_prv_cb_value(a, ia);
        CHECK(!satisfied(b));
        /* an index outside the table is reported */
        nnc_prv_cb *c = new_cb();
        nnc_prv_lc lc = {0};
        input(c, &lc, 5);
        nnc_prv_g_gather(c, ya, &lc, table, 5, 3);
        CHECK(nnc_prv_cb_status(c, NULL, 0) == NNC_STATUS_INVALID);
        for (int d = 0; d < 3; d++) {
            nnc_prv_lc_clear(&ya[d]);
            nnc_prv_lc_clear(&yb[d]);
        }
        nnc_prv_lc_clear(&la);
        nnc_prv_lc_clear(&lb);
        nnc_prv_lc_clear(&lc);
        nnc_prv_cb_destroy(a);
        nnc_prv_cb_destroy(b);
        nnc_prv_cb_destroy(c);
    }
}
END_TEST

START_TEST(test_mul_privacy)
{
    /* public constant products fold (no constraint); private ones cost one */
    nnc_prv_cb *cb = new_cb();
    nnc_prv_lc a = {0}, b = {0}, k = {0}, out = {0};
    input(cb, &a, 7);
    input(cb, &b, -3);
    nnc_prv_lc_term_i(cb, &k, 0, 5);
    uint64_t c0 = nnc_prv_cb_n_constraints(cb);
    nnc_prv_g_mul(cb, &out, &a, &k);
    CHECK(nnc_prv_cb_n_constraints(cb) == c0 && eval_i(cb, &out) == 35);
    nnc_prv_g_mul(cb, &out, &k, &b);
    CHECK(nnc_prv_cb_n_constraints(cb) == c0 && eval_i(cb, &out) == -15);
    uint32_t first = nnc_prv_cb_n_wires(cb);
    nnc_prv_g_mul(cb, &out, &a, &b);
    CHECK(nnc_prv_cb_n_constraints(cb) == c0 + 1 && eval_i(cb, &out) == -21);
    every_wire_determined(cb, first);
    nnc_prv_lc_clear(&a);
    nnc_prv_lc_clear(&b);
    nnc_prv_lc_clear(&k);
    nnc_prv_lc_clear(&out);
    nnc_prv_cb_destroy(cb);
}
END_TEST

START_TEST(test_poseidon_gadget)
{
    rng r = rng_for(4);
    for (int t = 2; t <= 17; t++) {
        nnc_prv_cb *cb = new_cb();
        nnc_prv_lc st[17];
        nnc_prv_fr in[16], want;
        memset(st, 0, sizeof st);
        for (int i = 0; i < t - 1; i++) {
            int64_t v = (int64_t)(rng_next(&r) >> 2);
            nnc_prv_fr_from_i64(&in[i], v);
            input(cb, &st[i + 1], v);
        }
        CHECK(nnc_prv_poseidon_hash(&want, in, (size_t)t - 1) == NNC_STATUS_OK);
        uint64_t c0 = nnc_prv_cb_n_constraints(cb);
        uint32_t first = nnc_prv_cb_n_wires(cb);
        CHECK(nnc_prv_g_poseidon(cb, st, t) == 0);
        const nnc_prv_poseidon_params *p = nnc_prv_poseidon_params_get(t);
        /* state[0] starts as the constant 0: its first S-box is free */
        uint64_t cost = nnc_prv_cb_n_constraints(cb) - c0;
        CHECK(cost == (uint64_t)3 * ((uint64_t)p->n_full * t + p->n_partial) - 3);
        nnc_prv_fr got;
        nnc_prv_lc_eval(cb, &got, &st[0]);
        CHECK(memcmp(&got, &want, sizeof got) == 0);
        if (t == 3) every_wire_determined(cb, first);
        else CHECK(satisfied(cb));
        for (int i = 0; i < t; i++) nnc_prv_lc_clear(&st[i]);
        nnc_prv_cb_destroy(cb);
    }
    CHECK(nnc_prv_g_poseidon(NULL, NULL, 18) == -1);
}
END_TEST

/* The permutation round by round, mixing every state word in every round
 * (the textbook form): the reference the gadget's unrolled partial rounds
 * must match constraint for constraint. */
static void ref_poseidon(nnc_prv_cb *cb, nnc_prv_lc *st, int t)
{
    const nnc_prv_poseidon_params *p = nnc_prv_poseidon_params_get(t);
    nnc_prv_lc ns[17], x2 = {0}, x4 = {0}, x5 = {0};
    memset(ns, 0, sizeof ns);
    for (int r = 0; r < p->n_full + p->n_partial; r++) {
        int full = r < p->n_full / 2 || r >= p->n_full / 2 + p->n_partial;
        for (int i = 0; i < t; i++) {
            nnc_prv_lc_term(cb, &st[i], 0, &p->c[r * t + i]);
            nnc_prv_lc_compact(cb, &st[i]);
            if (!full && i > 0) continue;
            nnc_prv_g_mul(cb, &x2, &st[i], &st[i]);
            nnc_prv_g_mul(cb, &x4, &x2, &x2);
            nnc_prv_g_mul(cb, &x5, &x4, &st[i]);
            nnc_prv_lc_copy(cb, &st[i], &x5);
        }
        for (int i = 0; i < t; i++) {
            nnc_prv_lc_reset(&ns[i]);
            for (int j = 0; j < t; j++) nnc_prv_lc_add(cb, &ns[i], &st[j], &p->m[i * t + j]);
            nnc_prv_lc_compact(cb, &ns[i]);
        }
        for (int i = 0; i < t; i++) nnc_prv_lc_copy(cb, &st[i], &ns[i]);
    }
    for (int i = 0; i < t; i++) nnc_prv_lc_clear(&ns[i]);
    nnc_prv_lc_clear(&x2);
    nnc_prv_lc_clear(&x4);
    nnc_prv_lc_clear(&x5);
}

START_TEST(test_poseidon_same_as_reference)
{
    rng r = rng_for(14);
    /* t = 17 and 3 with private inputs; t = 5 all constant (no constraint) */
    const int widths[3] = {17, 3, 5};
    for (int c = 0; c < 3; c++) {
        int t = widths[c];
        nnc_prv_cb *cb[2] = {new_cb(), new_cb()};
        nnc_prv_lc st[2][17];
        memset(st, 0, sizeof st);
        for (int i = 1; i < t; i++) {
            int64_t v = (int64_t)(rng_next(&r) >> 3);
            for (int k = 0; k < 2; k++) {
                if (c < 2) input(cb[k], &st[k][i], v);
                else nnc_prv_lc_term_i(cb[k], &st[k][i], 0, v);
            }
        }
        CHECK(nnc_prv_g_poseidon(cb[0], st[0], t) == 0);
        ref_poseidon(cb[1], st[1], t);
        for (int k = 0; k < 2; k++) {
            CHECK(nnc_prv_cb_status(cb[k], err, sizeof err) == NNC_STATUS_OK);
            for (int i = 0; i < t; i++) nnc_prv_g_wire_of(cb[k], &st[k][i], NNC_PRV_WIRE_PUB_OUT); /* the whole state */
        }
        CHECK(nnc_prv_cb_n_constraints(cb[0]) == nnc_prv_cb_n_constraints(cb[1]));
        CHECK(nnc_prv_cb_n_terms(cb[0]) == nnc_prv_cb_n_terms(cb[1]));
        CHECK((nnc_prv_cb_n_constraints(cb[0]) == (uint64_t)t) == (c == 2));
        nnc_prv_r1cs rr[2];
        nnc_prv_fr_vec w[2];
        for (int k = 0; k < 2; k++) CHECK(nnc_prv_cb_finish(cb[k], &rr[k], &w[k], NULL, err, sizeof err) == NNC_STATUS_OK);
        CHECK(rr[0].n_constraints == rr[1].n_constraints && rr[0].n_terms == rr[1].n_terms && w[0].n == w[1].n);
        CHECK(memcmp(rr[0].lc_start, rr[1].lc_start, (3 * (size_t)rr[0].n_constraints + 1) * sizeof *rr[0].lc_start) == 0);
        for (uint64_t i = 0; i < rr[0].n_terms; i++)
            CHECK(rr[0].terms[i].wire == rr[1].terms[i].wire &&
                  memcmp(&rr[0].terms[i].coef, &rr[1].terms[i].coef, sizeof rr[0].terms[i].coef) == 0);
        CHECK(memcmp(w[0].v, w[1].v, w[0].n * sizeof *w[0].v) == 0);
        CHECK(nnc_prv_r1cs_check_witness(NULL, &rr[0], w[0].v, w[0].n, NULL, 0) == NNC_STATUS_OK);
        for (int k = 0; k < 2; k++) {
            nnc_prv_r1cs_clear(&rr[k]);
            nnc_prv_fr_vec_clear(&w[k]);
            for (int i = 0; i < t; i++) nnc_prv_lc_clear(&st[k][i]);
            nnc_prv_cb_destroy(cb[k]);
        }
    }
}
END_TEST

START_TEST(test_commit)
{
    rng r = rng_for(5);
    int64_t a[70], b[5];
    for (int i = 0; i < 70; i++) a[i] = (int64_t)(rng_next(&r) % 256) - 128;
    for (int i = 0; i < 5; i++) b[i] = (int64_t)(rng_next(&r) % 2000) - 1000;
    nnc_prv_zk_segment ns[2] = {{a, NULL, 70, 8, 0, NULL}, {b, NULL, 5, 12, 0, NULL}};
    nnc_prv_fr want, got, other;
    CHECK(nnc_prv_zk_commit(&want, ns, 2, err, sizeof err) == NNC_STATUS_OK);
    /* one value changed: another commitment */
    a[3] ^= 1;
    CHECK(nnc_prv_zk_commit(&other, ns, 2, err, sizeof err) == NNC_STATUS_OK);
    CHECK(memcmp(&want, &other, sizeof want) != 0);
    a[3] ^= 1;
    /* out of range values are refused */
    b[0] = 2048;
    CHECK(nnc_prv_zk_commit(&other, ns, 2, err, sizeof err) == NNC_STATUS_INVALID);
    b[0] = -1000;
    CHECK(nnc_prv_zk_commit(&want, ns, 2, err, sizeof err) == NNC_STATUS_OK);
    /* the circuit form: private a, constant b */
    nnc_prv_cb *cb = new_cb();
    nnc_prv_lc la[70], lb[5], out = {0};
    memset(la, 0, sizeof la);
    memset(lb, 0, sizeof lb);
    uint32_t ids[70];
    for (int i = 0; i < 70; i++) ids[i] = input(cb, &la[i], a[i]);
    for (int i = 0; i < 5; i++) nnc_prv_lc_term_i(cb, &lb[i], 0, b[i]);
    nnc_prv_zk_segment cs[2] = {{NULL, la, 70, 8, 0, NULL}, {NULL, lb, 5, 12, 0, NULL}};
    uint64_t c0 = nnc_prv_cb_n_constraints(cb);
    nnc_prv_g_commit(cb, &out, cs, 2);
    CHECK(nnc_prv_cb_status(cb, err, sizeof err) == NNC_STATUS_OK);
    nnc_prv_lc_eval(cb, &got, &out);
    CHECK(memcmp(&got, &want, sizeof got) == 0);
    /* 70 range checks of 8 bits + one Poseidon (t = 17) over 4 elements
     * (31 + 31 + 8 slots of a, 1 of b); 14 of the 17 state words start
     * constant (0, the length, b's element, 11 padding zeros), so their
     * first S-boxes are free */
    const nnc_prv_poseidon_params *p = nnc_prv_poseidon_params_get(17);
    CHECK(nnc_prv_cb_n_constraints(cb) - c0 == 70 * 9 + 3 * ((uint64_t)p->n_full * 17 + p->n_partial) - 3 * 14);
    /* binding inside the circuit: the output wire is pinned, a changed input breaks it */
    uint32_t pin = nnc_prv_g_wire_of(cb, &out, NNC_PRV_WIRE_PUB_IN);
    (void)pin;
    CHECK(satisfied(cb));
    nnc_prv_fr save = *nnc_prv_cb_value(cb, ids[10]);
    nnc_prv_fr_from_i64(nnc_prv_cb_value(cb, ids[10]), a[10] + 1);
    CHECK(!satisfied(cb));
    *nnc_prv_cb_value(cb, ids[10]) = save;
    every_wire_determined(cb, ids[69] + 1);
    nnc_prv_lc_clear(&out);
    nnc_prv_cb_destroy(cb);

    /* a's values held by their bits alone (nnc_prv_g_signed_bits), given to
     * the commitment as bit wires (the private weights' compact form), with
     * an empty segment between: the same commitment, no range check again */
    cb = new_cb();
    uint32_t bit0[70];
    nnc_prv_lc x = {0}, re = {0};
    for (int i = 0; i < 70; i++) {
        bit0[i] = nnc_prv_g_signed_bits(cb, &x, a[i], 8, NNC_PRV_WIRE_PRV_IN);
        nnc_prv_lc_signed_bits(cb, &re, bit0[i], 8); /* rebuilt term for term */
        CHECK(re.n == x.n && re.n == 9 && re.cap == 9);
        for (uint32_t k = 0; k < re.n; k++)
            CHECK(re.t[k].wire == x.t[k].wire && memcmp(&re.t[k].coef, &x.t[k].coef, sizeof re.t[k].coef) == 0);
        CHECK(x.t[0].wire == bit0[i] && x.t[7].wire == bit0[i] + 7 && x.t[8].wire == 0);
    }
    nnc_prv_zk_segment bs[3] = {{NULL, NULL, 70, 8, 1, bit0}, {NULL, NULL, 0, 8, 1, bit0}, {NULL, lb, 5, 12, 0, NULL}};
    c0 = nnc_prv_cb_n_constraints(cb);
    CHECK(c0 == 70 * 8);
    nnc_prv_g_commit(cb, &out, bs, 3);
    CHECK(nnc_prv_cb_status(cb, err, sizeof err) == NNC_STATUS_OK);
    nnc_prv_lc_eval(cb, &got, &out);
    CHECK(memcmp(&got, &want, sizeof got) == 0);
    CHECK(nnc_prv_cb_n_constraints(cb) - c0 == 3 * ((uint64_t)p->n_full * 17 + p->n_partial) - 3 * 14);
    nnc_prv_g_wire_of(cb, &out, NNC_PRV_WIRE_PUB_IN);
    CHECK(satisfied(cb));
    nnc_prv_fr *bit = nnc_prv_cb_value(cb, bit0[10] + 3); /* a[10] with bit 3 flipped: not the committed value */
    save = *bit;
    int64_t bv = -1;
    CHECK(nnc_prv_fr_to_i64(&bv, bit) == 0 && (bv == 0 || bv == 1));
    nnc_prv_fr_from_i64(bit, 1 - bv);
    CHECK(!satisfied(cb));
    *bit = save;
    every_wire_determined(cb, bit0[69] + 8);
    nnc_prv_lc_clear(&x);
    nnc_prv_lc_clear(&re);
    for (int i = 0; i < 70; i++) nnc_prv_lc_clear(&la[i]);
    for (int i = 0; i < 5; i++) nnc_prv_lc_clear(&lb[i]);
    nnc_prv_lc_clear(&out);
    nnc_prv_cb_destroy(cb);
}
END_TEST

/* ---------------------------------------------------------------- models */

static float frand(rng *r, float scale) { return scale * ((float)(rng_next(r) >> 40) / (float)(1 << 24) * 2.0f - 1.0f); }

/* Conv(2->3, k3, p1) -> Relu -> MaxPool 2x2 -> AveragePool 3x3 s1 p1 ->
 * Flatten -> Gemm(3*3*3 -> 4) -> Add(const) -> Relu -> Gemm(4 -> 3) on a
 * [1,2,6,6] input. */
static nnc_model *small_cnn(uint64_t seed)
{
    static mb b;
    static float cw[3 * 2 * 9], cb_[3], g1[4 * 27], g1b[4], ad[4], g2[3 * 4], g2b[3];
    rng r = {seed};
    for (size_t i = 0; i < sizeof cw / 4; i++) cw[i] = frand(&r, 0.5f);
    for (size_t i = 0; i < 3; i++) cb_[i] = frand(&r, 0.2f);
    for (size_t i = 0; i < sizeof g1 / 4; i++) g1[i] = frand(&r, 0.4f);
    for (size_t i = 0; i < 4; i++) { g1b[i] = frand(&r, 0.1f); ad[i] = frand(&r, 0.3f); }
    for (size_t i = 0; i < sizeof g2 / 4; i++) g2[i] = frand(&r, 0.6f);
    for (size_t i = 0; i < 3; i++) g2b[i] = frand(&r, 0.1f);
    mb_init(&b, 13);
    static const int64_t xd[4] = {1, 2, 6, 6}, cwd[4] = {3, 2, 3, 3}, cbd[1] = {3}, g1d[2] = {4, 27}, g1bd[1] = {4},
                         add_d[2] = {1, 4}, g2d[2] = {3, 4}, g2bd[1] = {3};
    static const int64_t k3[2] = {3, 3}, k2[2] = {2, 2}, p1[4] = {1, 1, 1, 1};
    mb_input(&b, "x", 4, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_floats("cw", 4, cwd, cw, sizeof cw / 4);
    b.inits[1] = tensor_floats("cb", 1, cbd, cb_, 3);
    b.inits[2] = tensor_floats("g1", 2, g1d, g1, sizeof g1 / 4);
    b.inits[3] = tensor_floats("g1b", 1, g1bd, g1b, 4);
    b.inits[4] = tensor_floats("ad", 2, add_d, ad, 4);
    b.inits[5] = tensor_floats("g2", 2, g2d, g2, sizeof g2 / 4);
    b.inits[6] = tensor_floats("g2b", 1, g2bd, g2b, 3);
    b.graph.n_initializer = 7;
    static const char *i0[3] = {"x", "cw", "cb"}, *o0[1] = {"c"}, *i1[1] = {"c"}, *o1[1] = {"r"}, *i2[1] = {"r"}, *o2[1] = {"m"},
                      *i3[1] = {"m"}, *o3[1] = {"a"}, *i4[1] = {"a"}, *o4[1] = {"f"}, *i5[3] = {"f", "g1", "g1b"}, *o5[1] = {"h"},
                      *i6[2] = {"h", "ad"}, *o6[1] = {"h2"}, *i7[1] = {"h2"}, *o7[1] = {"hr"}, *i8[3] = {"hr", "g2", "g2b"},
                      *o8[1] = {"y"};
    b.nodes[0] = node("Conv", "conv", 3, i0, 1, o0);
    node_attr(b.nodes[0], attr_ints("pads", 4, p1));
    b.nodes[1] = node("Relu", "relu1", 1, i1, 1, o1);
    b.nodes[2] = node("MaxPool", "pool", 1, i2, 1, o2);
    node_attr(b.nodes[2], attr_ints("kernel_shape", 2, k2));
    node_attr(b.nodes[2], attr_ints("strides", 2, k2));
    b.nodes[3] = node("AveragePool", "avg", 1, i3, 1, o3);
    node_attr(b.nodes[3], attr_ints("kernel_shape", 2, k3));
    node_attr(b.nodes[3], attr_ints("pads", 4, p1));
    b.nodes[4] = node("Flatten", "flat", 1, i4, 1, o4);
    b.nodes[5] = node("Gemm", "fc1", 3, i5, 1, o5);
    node_attr(b.nodes[5], attr_int("transB", 1));
    b.nodes[6] = node("Add", "add", 2, i6, 1, o6);
    b.nodes[7] = node("Relu", "relu2", 1, i7, 1, o7);
    b.nodes[8] = node("Gemm", "fc2", 3, i8, 1, o8);
    node_attr(b.nodes[8], attr_int("transB", 1));
    b.graph.n_node = 9;
    nnc_model *m;
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return m;
}

/* Build the circuit for one quantised input; returns the builder. */
static nnc_prv_cb *compile(const nnc_qmodel *q, nnc_prv_zk_privacy priv, const int64_t *qin, int64_t *outv)
{
    nnc_prv_cb *cb;
    const int64_t *ins[1] = {qin};
    nnc_status st = nnc_prv_zk_compile(&cb, q, priv, 0, ins, outv, err, sizeof err);
    ck_assert_msg(st == NNC_STATUS_OK, "%s", err);
    return cb;
}

START_TEST(test_model_cnn)
{
    rng r = rng_for(6);
    nnc_model *m = small_cnn(rng_next(&r));
    nnc_qmodel q;
    ck_assert_msg(nnc_qmodel_build(&q, m, 8, NULL, 0, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    CHECK(q.n_l == 9 && nnc_qmodel_macs(&q) == 3 * 36 * 18 + 27 * 4 + 4 * 3);
    nnc_runtime *rt;
    CHECK(nnc_rt_create(&rt, m, NNC_PRECISION_F64, 1, err, sizeof err) == NNC_STATUS_OK);
    for (int it = 0; it < 4; it++) {
        double x[72], x2[72], yf[3];
        int64_t qa[72], qb_[72], oa[3], ob[3];
        for (int i = 0; i < 72; i++) {
            x[i] = (double)(rng_next(&r) % 1000) / 1000.0;
            x2[i] = (double)(rng_next(&r) % 1000) / 1000.0;
        }
        const double *xi[1] = {x}, *xi2[1] = {x2};
        int64_t *qi[1] = {qa}, *qi2[1] = {qb_};
        CHECK(nnc_qmodel_quantize_inputs(&q, xi, qi, err, sizeof err) == NNC_STATUS_OK);
        CHECK(nnc_qmodel_quantize_inputs(&q, xi2, qi2, err, sizeof err) == NNC_STATUS_OK);
        /* the integer reference stays near the float model */
        int64_t **vals;
        ck_assert_msg(nnc_qmodel_run(&q, (const int64_t *const *)qi, &vals, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        const void *rin[1] = {x};
        void *rout[1] = {yf};
        CHECK(nnc_rt_run(rt, 1, rin, rout, err, sizeof err) == NNC_STATUS_OK);
        const nnc_q_tensor *to = &q.t[q.output];
        for (int k = 0; k < 3; k++) ck_assert_msg(fabs(ldexp((double)vals[q.output][k], -to->frac) - yf[k]) < 0.15 + 0.1 * fabs(yf[k]),
                                                  "output %d: quantised %g float %g", k, ldexp((double)vals[q.output][k], -to->frac), yf[k]);
        for (int priv = NNC_PRV_ZK_PRIVATE_INPUT; priv <= NNC_PRV_ZK_PRIVATE_BOTH; priv++) {
            nnc_prv_cb *a = compile(&q, (nnc_prv_zk_privacy)priv, qa, oa);
            for (int k = 0; k < 3; k++) CHECK(oa[k] == vals[q.output][k]);   /* proven output = integer runtime */
            CHECK(satisfied(a));
            for (int u = 0; u < 2; u++) { /* count-only (no witness values) counts the same circuit */
                nnc_prv_cb *cnt, *full = u ? compile(&q, (nnc_prv_zk_privacy)(priv | NNC_PRV_ZK_UNPACKED), qa, NULL) : a;
                const int64_t *ins[1] = {qa};
                ck_assert_msg(nnc_prv_zk_compile(&cnt, &q, (nnc_prv_zk_privacy)(priv | (u ? NNC_PRV_ZK_UNPACKED : 0)), 1, ins, NULL, err,
                                                 sizeof err) == NNC_STATUS_OK, "%s", err);
                CHECK(nnc_prv_cb_n_constraints(cnt) == nnc_prv_cb_n_constraints(full));
                CHECK(nnc_prv_cb_n_wires(cnt) == nnc_prv_cb_n_wires(full));
                CHECK(nnc_prv_cb_n_terms(cnt) == nnc_prv_cb_n_terms(full));
                if (u) nnc_prv_cb_destroy(full);
                nnc_prv_cb_destroy(cnt);
            }
            if (priv == NNC_PRV_ZK_PRIVATE_WEIGHTS) { /* the input is a constant: a circuit per input */
                nnc_prv_cb_destroy(a);
                continue;
            }
            /* splice: the circuit for another input has the same constraints;
             * its witness with this input's wires claims a wrong output */
            nnc_prv_cb *b = compile(&q, (nnc_prv_zk_privacy)priv, qb_, ob);
            CHECK(r1cs_equal(a, b));
            nnc_prv_r1cs ra;
            nnc_prv_fr_vec wa, wb;
            CHECK(nnc_prv_cb_finish(a, &ra, &wa, NULL, err, sizeof err) == NNC_STATUS_OK);
            nnc_prv_r1cs rb_;
            CHECK(nnc_prv_cb_finish(b, &rb_, &wb, NULL, err, sizeof err) == NNC_STATUS_OK);
            uint32_t pin0 = 1 + ra.n_pub_out + ra.n_pub_in, pin1 = pin0 + ra.n_prv_in;
            for (uint32_t wv = pin0; wv < pin1; wv++) wb.v[wv] = wa.v[wv];
            CHECK(nnc_prv_r1cs_check_witness(NULL, &ra, wb.v, wb.n, NULL, 0) != NNC_STATUS_OK);
            /* tampered public output / model commitment / input commitment */
            for (uint32_t s = 1; s <= ra.n_pub_out + ra.n_pub_in; s++) {
                nnc_prv_fr save = wa.v[s];
                nnc_prv_fr_from_i64(&wa.v[s], 12345);
                CHECK(nnc_prv_r1cs_check_witness(NULL, &ra, wa.v, wa.n, NULL, 0) != NNC_STATUS_OK);
                wa.v[s] = save;
            }
            CHECK(nnc_prv_r1cs_check_witness(NULL, &ra, wa.v, wa.n, NULL, 0) == NNC_STATUS_OK);
            nnc_prv_r1cs_clear(&ra);
            nnc_prv_r1cs_clear(&rb_);
            nnc_prv_fr_vec_clear(&wa);
            nnc_prv_fr_vec_clear(&wb);
            nnc_prv_cb_destroy(a);
            nnc_prv_cb_destroy(b);
        }
        nnc_qmodel_free_values(&q, vals);
    }
    /* the model commitment changes with any weight */
    nnc_prv_fr c1, c2;
    CHECK(nnc_prv_zk_model_commitment(&c1, &q, err, sizeof err) == NNC_STATUS_OK);
    q.l[0].w[5] += 1;
    CHECK(nnc_prv_zk_model_commitment(&c2, &q, err, sizeof err) == NNC_STATUS_OK);
    CHECK(memcmp(&c1, &c2, sizeof c1) != 0);
    /* ... and with the layer geometry, weights unchanged (another function
     * over the same numbers must not share the commitment) */
    for (int g = 0; g < 3; g++) {
        nnc_q_layer save = q.l[0];
        if (g == 0) q.l[0].sh++;
        else if (g == 1) q.l[0].ph++;
        else { int64_t t = q.l[0].kh; q.l[0].kh = q.l[0].kw; q.l[0].kw = t; q.l[0].group++; }
        CHECK(nnc_prv_zk_model_commitment(&c1, &q, err, sizeof err) == NNC_STATUS_OK);
        CHECK(memcmp(&c1, &c2, sizeof c1) != 0);
        q.l[0] = save;
    }
    /* private weights: the circuit (constraints, hence the key) depends only
     * on public data, not on the weights' values */
    {
        double x[72];
        int64_t qa[72];
        for (int i = 0; i < 72; i++) x[i] = 0.5;
        const double *xi[1] = {x};
        int64_t *qi[1] = {qa};
        CHECK(nnc_qmodel_quantize_inputs(&q, xi, qi, err, sizeof err) == NNC_STATUS_OK);
        nnc_prv_cb *a = compile(&q, NNC_PRV_ZK_PRIVATE_BOTH, qa, NULL);
        int64_t *w = q.l[0].w;
        int64_t saved[4];
        for (int i = 0; i < 4; i++) {
            saved[i] = w[i];
            w[i] = i & 1 ? 1 : -1; /* small values: fewer bits than the others */
        }
        nnc_prv_cb *b = compile(&q, NNC_PRV_ZK_PRIVATE_BOTH, qa, NULL);
        CHECK(r1cs_equal(a, b));
        for (int i = 0; i < 4; i++) w[i] = saved[i];
        nnc_prv_cb_destroy(a);
        nnc_prv_cb_destroy(b);
    }
    nnc_rt_destroy(rt);
    nnc_qmodel_clear(&q);
    nnc_mdl_destroy(m);
}
END_TEST

/* The small CNN quantised to 6 bits and one random sample of it. */
static nnc_model *small_cnn_sample(rng *r, nnc_qmodel *q, int64_t qa[72])
{
    nnc_model *m = small_cnn(rng_next(r));
    ck_assert_msg(nnc_qmodel_build(q, m, 6, NULL, 0, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    double x[72];
    for (int i = 0; i < 72; i++) x[i] = (double)(rng_next(r) % 1000) / 1000.0;
    const double *xi[1] = {x};
    int64_t *qi[1] = {qa};
    CHECK(nnc_qmodel_quantize_inputs(q, xi, qi, err, sizeof err) == NNC_STATUS_OK);
    return m;
}

START_TEST(test_model_every_wire)
{
    /* the whole small CNN, private input: every wire determined */
    rng r = rng_for(7);
    nnc_qmodel q;
    int64_t qa[72];
    nnc_model *m = small_cnn_sample(&r, &q, qa);
    nnc_prv_cb *a = compile(&q, NNC_PRV_ZK_PRIVATE_INPUT, qa, NULL);
    every_wire_determined(a, 1);
    nnc_prv_cb_destroy(a);
    nnc_qmodel_clear(&q);
    nnc_mdl_destroy(m);
}
END_TEST

START_TEST(test_model_gather_sparse)
{
    /* y = A_sparse @ Gather(table, idx): an embedding then a graph layer */
    static mb b;
    mb_init(&b, 13);
    static const int64_t idd[1] = {4}, td[2] = {6, 3}, ad[2] = {4, 4}, nz[1] = {6};
    static const float tv[18] = {0.1f, -0.2f, 0.3f, 0.4f, 0.5f, -0.6f, 0.7f, 0.8f, 0.9f, -0.1f, 0.2f, 0.3f, 0.0f, 0.5f, -0.5f, 0.25f, 0.75f, -0.75f};
    static const float av[6] = {1.0f, 0.5f, -1.0f, 0.25f, 0.5f, 0.5f};
    static const int64_t lin[6] = {0, 3, 5, 6, 8, 15};
    b.inputs[b.graph.n_input++] = vinfo("idx", 7, 1, idd);
    mb_output(&b, "y");
    b.inits[0] = tensor_floats("T", 2, td, tv, 18);
    b.graph.n_initializer = 1;
    Onnx__SparseTensorProto *sp = mb_calloc(1, sizeof *sp);
    onnx__sparse_tensor_proto__init(sp);
    sp->values = tensor_floats("A", 1, nz, av, 6);
    sp->indices = tensor_i64("A_idx", 1, nz, lin, 6);
    sp->n_dims = 2;
    sp->dims = (int64_t *)ad;
    b.sparse[0] = sp;
    b.graph.n_sparse_initializer = 1;
    static const char *i0[2] = {"T", "idx"}, *o0[1] = {"e"}, *i1[2] = {"A", "e"}, *o1[1] = {"y"};
    b.nodes[0] = node("Gather", "embed", 2, i0, 1, o0);
    b.nodes[1] = node("MatMul", "graph", 2, i1, 1, o1);
    b.graph.n_node = 2;
    nnc_model *m;
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_qmodel q;
    ck_assert_msg(nnc_qmodel_build(&q, m, 8, NULL, 0, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    CHECK(q.n_l == 2 && q.l[0].kind == NNC_Q_GATHER && q.l[1].kind == NNC_Q_SPMM);
    int64_t ia[4] = {0, 5, 2, 2}, ib[4] = {1, 5, 3, 0}, oa[12], ob[12];
    int64_t **vals;
    const int64_t *qi[1] = {ia};
    ck_assert_msg(nnc_qmodel_run(&q, qi, &vals, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_prv_cb *a = compile(&q, NNC_PRV_ZK_PRIVATE_INPUT, ia, oa);
    for (int k = 0; k < 12; k++) CHECK(oa[k] == vals[q.output][k]);
    every_wire_determined(a, 1);
    nnc_prv_cb *c = compile(&q, NNC_PRV_ZK_PRIVATE_INPUT, ib, ob);
    CHECK(r1cs_equal(a, c));
    nnc_qmodel_free_values(&q, vals);
    /* an index outside the table */
    int64_t bad[4] = {0, 6, 0, 0};
    double bd[4] = {0, 6, 0, 0};
    const double *bdi[1] = {bd};
    int64_t *bi[1] = {bad};
    CHECK(nnc_qmodel_quantize_inputs(&q, bdi, bi, err, sizeof err) == NNC_STATUS_INVALID);
    nnc_prv_cb_destroy(a);
    nnc_prv_cb_destroy(c);
    nnc_qmodel_clear(&q);
    nnc_mdl_destroy(m);
}
END_TEST

START_TEST(test_unsupported)
{
    static mb b;
    mb_init(&b, 13);
    static const int64_t xd[2] = {1, 4};
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    static const char *i0[1] = {"x"}, *o0[1] = {"y"};
    b.nodes[0] = node("Sigmoid", "sig", 1, i0, 1, o0);
    b.graph.n_node = 1;
    nnc_model *m;
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_qmodel q;
    CHECK(nnc_qmodel_build(&q, m, 8, NULL, 0, err, sizeof err) == NNC_STATUS_UNSUPPORTED);
    ck_assert_msg(strstr(err, "Sigmoid") && strstr(err, "sig"), "%s", err);
    CHECK_ILLEGAL(nnc_qmodel_build(&q, m, 3, NULL, 0, err, sizeof err), err);
    nnc_mdl_destroy(m);
}
END_TEST

/* ---------------------------------------------------------------- knit packing */

/* A k x K knit-packed layer as the compiler builds it: private weights w
 * (wb signed bits), inputs x (xb bits) and biases (bb bits), each
 * range-checked; accumulators from nnc_prv_g_requant_open (shift s,
 * rbits rb); base bits n.  Out: the values of the proven y, the first wire
 * the knit part creates, ids of the quotient bits (rb per output). */
typedef struct knit_case {
    int k, K, wb, xb, bb, s, rb, n;
    int64_t w[64], x[16], b[8];
} knit_case;

static nnc_prv_cb *knit_build(const knit_case *c, int64_t *y, uint32_t *first, uint32_t *qbits)
{
    nnc_prv_cb *cb = new_cb();
    nnc_prv_lc w[64], x[16], b[8], acc[8], yl[8];
    memset(w, 0, sizeof w);
    memset(x, 0, sizeof x);
    memset(b, 0, sizeof b);
    memset(acc, 0, sizeof acc);
    memset(yl, 0, sizeof yl);
    for (int i = 0; i < c->k * c->K; i++) {
        input(cb, &w[i], c->w[i]);
        nnc_prv_g_range_signed(cb, &w[i], c->wb);
    }
    for (int j = 0; j < c->K; j++) {
        input(cb, &x[j], c->x[j]);
        nnc_prv_g_range_signed(cb, &x[j], c->xb);
    }
    for (int i = 0; i < c->k; i++) {
        input(cb, &b[i], c->b[i]);
        nnc_prv_g_range_signed(cb, &b[i], c->bb);
    }
    *first = nnc_prv_cb_n_wires(cb);
    int64_t idx[16];
    for (int j = 0; j < c->K; j++) idx[j] = j;
    for (int i = 0; i < c->k; i++) {
        int64_t a = c->b[i];
        for (int j = 0; j < c->K; j++) a += c->w[i * c->K + j] * c->x[j];
        uint32_t q0 = nnc_prv_cb_n_wires(cb) + (uint32_t)c->s; /* remainder bits come first */
        nnc_prv_g_requant_open(cb, &yl[i], NULL, &acc[i], a, c->s, c->rb);
        if (qbits)
            for (int t = 0; t < c->rb; t++) qbits[i * c->rb + t] = q0 + (uint32_t)t;
        y[i] = eval_i(cb, &yl[i]);
    }
    uint64_t c0 = nnc_prv_cb_n_constraints(cb);
    nnc_prv_g_knit_dot(cb, acc, b, c->k, c->n, w, idx, c->K, x, idx, c->K);
    CHECK(nnc_prv_cb_n_constraints(cb) - c0 == (uint64_t)c->K + 1); /* K products for k K MACs, one tie */
    for (int i = 0; i < 64; i++) nnc_prv_lc_clear(&w[i]);
    for (int i = 0; i < 16; i++) nnc_prv_lc_clear(&x[i]);
    for (int i = 0; i < 8; i++) {
        nnc_prv_lc_clear(&b[i]);
        nnc_prv_lc_clear(&acc[i]);
        nnc_prv_lc_clear(&yl[i]);
    }
    return cb;
}

/* The base from the bounds: |b + w.x - acc| <= K wmax xmax + bmax + Z. */
static int knit_n(const knit_case *c)
{
    uint64_t A = (uint64_t)c->K << (c->wb - 1 + c->xb - 1), bm = (uint64_t)1 << (c->bb - 1);
    uint64_t Z = ((uint64_t)1 << (c->rb - 1 + c->s)) + (c->s ? (uint64_t)1 << (c->s - 1) : 0);
    return nnc_prv_knit_base_bits(A + bm + Z);
}

START_TEST(test_knit_base)
{
    CHECK(nnc_prv_knit_base_bits(0) == 1 && nnc_prv_knit_base_bits(1) == 1 && nnc_prv_knit_base_bits(2) == 2);
    CHECK(nnc_prv_knit_base_bits(24) == 5 && nnc_prv_knit_base_bits(31) == 5 && nnc_prv_knit_base_bits(32) == 6);
    CHECK(nnc_prv_knit_base_bits(UINT64_MAX) == 64);
    CHECK(nnc_prv_knit_slots(5) == 50 && nnc_prv_knit_slots(26) == 9 && nnc_prv_knit_slots(253) == 1 && nnc_prv_knit_slots(254) == 0);
    /* more products than the field holds are refused */
    nnc_prv_cb *cb = new_cb();
    nnc_prv_lc z[2] = {{0}}, w[2] = {{0}}, x = {0};
    int64_t i0[1] = {0};
    input(cb, &w[0], 1);
    input(cb, &w[1], 1);
    input(cb, &x, 1);
    nnc_prv_g_knit_dot(cb, z, NULL, 2, 127, w, i0, 1, &x, i0, 1);
    CHECK(nnc_prv_cb_status(cb, NULL, 0) == NNC_STATUS_ARG);
    for (int i = 0; i < 2; i++) {
        nnc_prv_lc_clear(&z[i]);
        nnc_prv_lc_clear(&w[i]);
    }
    nnc_prv_lc_clear(&x);
    nnc_prv_cb_destroy(cb);
}
END_TEST

/* Random layers: the proven y equal the integer computation; every wire the
 * packing creates (products, remainder and quotient bits) is determined;
 * moving 1 between adjacent outputs is rejected (moves by B need digits
 * outside the range checks: test_knit_exhaustive). */
START_TEST(test_knit_random)
{
    rng r = rng_for(20);
    for (int it = 0; it < 12; it++) {
        knit_case c = {0};
        c.k = 2 + (int)(rng_next(&r) % 5);
        c.K = 1 + (int)(rng_next(&r) % 8);
        c.wb = 2 + (int)(rng_next(&r) % 7);
        c.xb = 2 + (int)(rng_next(&r) % 9);
        c.bb = 2 + (int)(rng_next(&r) % 10);
        c.s = (int)(rng_next(&r) % 4);
        c.n = 0;
        int64_t wm = (int64_t)1 << (c.wb - 1), xm = (int64_t)1 << (c.xb - 1), bm = (int64_t)1 << (c.bb - 1);
        for (int i = 0; i < c.k * c.K; i++) c.w[i] = (int64_t)(rng_next(&r) % (uint64_t)(2 * wm)) - wm;
        for (int j = 0; j < c.K; j++) c.x[j] = (int64_t)(rng_next(&r) % (uint64_t)(2 * xm)) - xm;
        for (int i = 0; i < c.k; i++) c.b[i] = (int64_t)(rng_next(&r) % (uint64_t)(2 * bm)) - bm;
        /* quotients in rb bits: every accumulator of these ranges fits */
        uint64_t amax = (uint64_t)c.K * (uint64_t)wm * (uint64_t)xm + (uint64_t)bm;
        c.rb = 2;
        while ((((uint64_t)1 << (c.rb - 1)) << c.s) <= amax + ((uint64_t)1 << c.s)) c.rb++;
        c.n = knit_n(&c);
        ck_assert_msg(c.k <= nnc_prv_knit_slots(c.n), "case %d: k %d n %d", it, c.k, c.n);
        int64_t y[8];
        uint32_t first, qb[8 * 64];
        nnc_prv_cb *cb = knit_build(&c, y, &first, qb);
        ck_assert_msg(nnc_prv_cb_status(cb, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        for (int i = 0; i < c.k; i++) {
            int64_t a = c.b[i];
            for (int j = 0; j < c.K; j++) a += c.w[i * c.K + j] * c.x[j];
            CHECK(y[i] == (c.s ? floordiv(a + ((int64_t)1 << (c.s - 1)), (int64_t)1 << c.s) : a));
        }
        every_wire_determined(cb, first);
        /* adjacent shifts of the quotients (the packed sum moves by
         * 2^s (B^(i+1) -+ B^i) or 2^s B^i (B - 1): never 0) */
        for (int i = 0; i + 1 < c.k; i++)
            for (int sh = 0; sh < 2; sh++) {
                int64_t d0 = sh ? -1 : 1, d1 = -d0;
                int64_t q0 = y[i] + d0, q1 = y[i + 1] + d1, lim = (int64_t)1 << (c.rb - 1);
                if (q0 < -lim || q0 >= lim || q1 < -lim || q1 >= lim) continue;
                nnc_prv_fr save[128];
                for (int t = 0; t < 2 * c.rb; t++) save[t] = *nnc_prv_cb_value(cb, qb[i * c.rb + t]);
                for (int t = 0; t < c.rb; t++) {
                    nnc_prv_fr_from_i64(nnc_prv_cb_value(cb, qb[i * c.rb + t]), ((q0 + lim) >> t) & 1);
                    nnc_prv_fr_from_i64(nnc_prv_cb_value(cb, qb[(i + 1) * c.rb + t]), ((q1 + lim) >> t) & 1);
                }
                CHECK(!satisfied(cb));
                for (int t = 0; t < 2 * c.rb; t++) *nnc_prv_cb_value(cb, qb[i * c.rb + t]) = save[t];
            }
        CHECK(satisfied(cb));
        nnc_prv_cb_destroy(cb);
    }
}
END_TEST

/* Exhaustive 2x2 layer (w, x in [-2, 2), bias in [-2, 2), s = 0, y in
 * 5 bits): for every weight/input/bias assignment the honest witness is
 * accepted; for a spread of them every one of the 32 x 32 candidate (y0, y1)
 * is tried and only the honest pair passes.  With a base one bit below
 * the bound, some assignment accepts a wrong pair (y0 + B, y1 - 1): the
 * bound is what makes the packing sound. */
static int knit_count_accepted(const knit_case *c, int64_t *wrong)
{
    int64_t y[2];
    uint32_t first, qb[2 * 5];
    nnc_prv_cb *cb = knit_build(c, y, &first, qb);
    CHECK(nnc_prv_cb_status(cb, NULL, 0) == NNC_STATUS_OK);
    nnc_prv_r1cs r;
    nnc_prv_fr_vec w;
    uint32_t *map;
    CHECK(nnc_prv_cb_finish(cb, &r, &w, &map, err, sizeof err) == NNC_STATUS_OK);
    CHECK(nnc_prv_r1cs_check_witness(NULL, &r, w.v, w.n, NULL, 0) == NNC_STATUS_OK);
    int accepted = 0;
    for (int64_t y0 = -16; y0 < 16; y0++)
        for (int64_t y1 = -16; y1 < 16; y1++) {
            for (int t = 0; t < 5; t++) {
                nnc_prv_fr_from_i64(&w.v[map[qb[t]]], ((y0 + 16) >> t) & 1);
                nnc_prv_fr_from_i64(&w.v[map[qb[5 + t]]], ((y1 + 16) >> t) & 1);
            }
            if (nnc_prv_r1cs_check_witness(NULL, &r, w.v, w.n, NULL, 0) == NNC_STATUS_OK) {
                accepted++;
                if (y0 != y[0] || y1 != y[1]) *wrong = y0 * 64 + y1;
            }
        }
    free(map);
    nnc_prv_r1cs_clear(&r);
    nnc_prv_fr_vec_clear(&w);
    nnc_prv_cb_destroy(cb);
    return accepted;
}

START_TEST(test_knit_exhaustive)
{
    knit_case c = {.k = 2, .K = 2, .wb = 2, .xb = 2, .bb = 2, .s = 0, .rb = 5};
    c.n = knit_n(&c); /* 2*2*2 + 2 + 16 = 26 -> B = 32 */
    CHECK(c.n == 5);
    int tried = 0, wrong_small = 0;
    for (int code = 0; code < 1 << 16; code++) { /* 4 weights, 2 inputs, 2 biases: 2 bits each */
        for (int i = 0; i < 4; i++) c.w[i] = ((code >> (2 * i)) & 3) - 2;
        for (int j = 0; j < 2; j++) c.x[j] = ((code >> (8 + 2 * j)) & 3) - 2;
        for (int i = 0; i < 2; i++) c.b[i] = ((code >> (12 + 2 * i)) & 3) - 2;
        int64_t y[2];
        uint32_t first;
        nnc_prv_cb *cb = knit_build(&c, y, &first, NULL);
        for (int i = 0; i < 2; i++) CHECK(y[i] == c.b[i] + c.w[2 * i] * c.x[0] + c.w[2 * i + 1] * c.x[1]);
        CHECK(satisfied(cb));
        nnc_prv_cb_destroy(cb);
        if (code % 251 == 0) {
            int64_t wrong = 0;
            CHECK(knit_count_accepted(&c, &wrong) == 1);
            tried++;
            knit_case small = c;
            small.n = c.n - 2; /* B = 8: a digit of 8 or more aliases */
            if (knit_count_accepted(&small, &wrong) > 1) wrong_small++;
        }
    }
    CHECK(tried >= 100);
    CHECK(wrong_small > 0);
}
END_TEST

/* The small CNN with everything private: the packed Conv and Gemm layers
 * (checked against the integer runtime in test_model_cnn) leave no wire
 * of the layers undetermined, and cost fewer constraints than one per MAC. */
START_TEST(test_model_knit)
{
    rng r = rng_for(21);
    nnc_qmodel q;
    int64_t qa[72];
    nnc_model *m = small_cnn_sample(&r, &q, qa);
    nnc_prv_cb *a = compile(&q, NNC_PRV_ZK_PRIVATE_BOTH, qa, NULL);
    int ns;
    const nnc_prv_cb_section *sec = nnc_prv_cb_sections(a, &ns);
    CHECK(ns == 2 + q.n_l + 1);
    uint32_t first = 1 + (uint32_t)(sec[0].wires + sec[1].wires); /* after the commitments */
    for (int li = 0; li < q.n_l; li++) {
        const nnc_q_layer *l = &q.l[li];
        if (l->kind != NNC_Q_DENSE && l->kind != NNC_Q_CONV) continue;
        int64_t outs = q.t[l->out].numel, macs = l->kind == NNC_Q_DENSE ? l->K * l->N : outs * (l->C / l->group) * l->kh * l->kw;
        /* requantisation bits per output, plus at most half a constraint per MAC (k >= 2) and a tie per block */
        uint64_t unpacked = (uint64_t)(macs + outs * (l->shift + q.t[l->out].rbits + 1));
        uint64_t bound = (uint64_t)(macs / 2 + outs * (l->shift + q.t[l->out].rbits + 1));
        ck_assert_msg(sec[2 + li].constraints <= bound && sec[2 + li].constraints < unpacked, "layer %d: %llu constraints", li,
                      (unsigned long long)sec[2 + li].constraints);
    }
    every_wire_determined(a, first);
    nnc_prv_cb_destroy(a);
    /* a bias beyond every accumulator's reach admits no proof: its committed
     * width refuses it, with public and with private weights */
    int last = q.n_l - 1;
    CHECK(q.l[last].b != NULL);
    int64_t save = q.l[last].b[0];
    q.l[last].b[0] = (int64_t)1 << 40;
    nnc_prv_fr c;
    CHECK(nnc_prv_zk_model_commitment(&c, &q, err, sizeof err) == NNC_STATUS_INVALID);
    nnc_prv_cb *bad;
    const int64_t *ins[1] = {qa};
    CHECK(nnc_prv_zk_compile(&bad, &q, NNC_PRV_ZK_PRIVATE_BOTH, 0, ins, NULL, err, sizeof err) == NNC_STATUS_INVALID && bad == NULL);
    q.l[last].b[0] = save;
    nnc_qmodel_clear(&q);
    nnc_mdl_destroy(m);
}
END_TEST

/* Witness-only builds: the full build's witness, wire for wire, and the
 * values of its A and B combinations, constraint for constraint. */
static void witness_only_matches(const nnc_qmodel *q, int priv, const int64_t *qa)
{
    const int64_t *ins[1] = {qa};
    nnc_prv_cb *full, *wo;
    ck_assert_msg(nnc_prv_zk_compile(&full, q, (nnc_prv_zk_privacy)priv, NNC_PRV_ZK_BUILD_FULL, ins, NULL, err, sizeof err) ==
                      NNC_STATUS_OK, "%s", err);
    ck_assert_msg(nnc_prv_zk_compile(&wo, q, (nnc_prv_zk_privacy)priv, NNC_PRV_ZK_BUILD_WITNESS, ins, NULL, err, sizeof err) ==
                      NNC_STATUS_OK, "%s", err);
    nnc_prv_r1cs r;
    nnc_prv_fr_vec w;
    nnc_prv_cb_witness x;
    CHECK(nnc_prv_cb_finish(wo, &r, &w, NULL, err, sizeof err) == NNC_STATUS_ARG); /* no constraints to give */
    CHECK(nnc_prv_cb_finish(full, &r, &w, NULL, err, sizeof err) == NNC_STATUS_OK);
    CHECK(nnc_prv_cb_finish_witness(full, &x, err, sizeof err) == NNC_STATUS_ARG);
    CHECK(nnc_prv_cb_finish_witness(wo, &x, err, sizeof err) == NNC_STATUS_OK);
    { /* handed out: the builder takes no more and gives nothing twice */
        nnc_prv_cb_witness again;
        nnc_prv_fr one;
        nnc_prv_fr_from_i64(&one, 1);
        nnc_prv_cb_constrain_values(wo, &one, &one);
        CHECK(nnc_prv_cb_constraint_a(wo, 0) == NULL);
        CHECK(nnc_prv_cb_finish_witness(wo, &again, err, sizeof err) == NNC_STATUS_ARG && again.ab == NULL);
    }
    ck_assert_msg(x.w.n == w.n && x.n_constraints == r.n_constraints && x.n_pub_out == r.n_pub_out && x.n_pub_in == r.n_pub_in &&
                      x.n_prv_in == r.n_prv_in,
                  "privacy %d: %zu wires, %u constraints in witness-only mode; %zu, %u in full", priv, (size_t)x.w.n, x.n_constraints,
                  (size_t)w.n, r.n_constraints);
    for (size_t i = 0; i < w.n; i++) ck_assert_msg(nnc_fr_eq(&x.w.v[i], &w.v[i]), "privacy %d: wire %zu differs", priv, i);
    for (uint32_t c = 0; c < r.n_constraints; c++)
        for (int k = 0; k < 2; k++) {
            nnc_prv_fr s, t;
            nnc_fr_set_zero(&s);
            for (uint64_t e = r.lc_start[3 * (uint64_t)c + k]; e < r.lc_start[3 * (uint64_t)c + k + 1]; e++) {
                nnc_fr_mul(&t, &r.terms[e].coef, &w.v[r.terms[e].wire]);
                nnc_fr_add(&s, &s, &t);
            }
            ck_assert_msg(nnc_fr_eq(&s, &x.ab[2 * (uint64_t)c + k]), "privacy %d: constraint %u's %c w differs", priv, c, "AB"[k]);
        }
    nnc_prv_cb_witness_clear(&x);
    CHECK(x.ab == NULL && x.w.v == NULL);
    nnc_prv_r1cs_clear(&r);
    nnc_prv_fr_vec_clear(&w);
    nnc_prv_cb_destroy(full);
    nnc_prv_cb_destroy(wo);
}

START_TEST(test_witness_only)
{
    rng r = rng_for(23);
    for (int it = 0; it < 3; it++) {
        nnc_qmodel q;
        int64_t qa[72];
        nnc_model *m = small_cnn_sample(&r, &q, qa);
        for (int priv = NNC_PRV_ZK_PRIVATE_INPUT; priv <= NNC_PRV_ZK_PRIVATE_BOTH; priv++)
            for (int u = 0; u < 2; u++) witness_only_matches(&q, priv | (u ? NNC_PRV_ZK_UNPACKED : 0), qa);
        nnc_qmodel_clear(&q);
        nnc_mdl_destroy(m);
    }
    /* the modes exclude each other, and a value-only constraint needs the mode */
    nnc_prv_cb *cb = new_cb();
    nnc_prv_fr one;
    nnc_fr_set_one(&one);
    nnc_prv_cb_constrain_values(cb, &one, &one);
    CHECK(nnc_prv_cb_status(cb, err, sizeof err) == NNC_STATUS_ARG);
    nnc_prv_cb_destroy(cb);
    cb = new_cb();
    nnc_prv_cb_set_count_only(cb, 1);
    nnc_prv_cb_set_witness_only(cb, 1);
    CHECK(nnc_prv_cb_status(cb, err, sizeof err) == NNC_STATUS_ARG);
    nnc_prv_cb_destroy(cb);
    cb = new_cb();
    nnc_prv_lc y = {0};
    nnc_prv_g_requant_value(cb, &y, NULL, 5, 1, 4);
    CHECK(nnc_prv_cb_status(cb, err, sizeof err) == NNC_STATUS_ARG);
    nnc_prv_lc_clear(&y);
    nnc_prv_cb_destroy(cb);
}
END_TEST

/* A proof from a witness-only build's A w and B w (no circuit, a key
 * without coefficients) is the proof from the circuit, for the same
 * blinding; a wrong A w value gives a proof that does not verify. */
START_TEST(test_prove_by_witness)
{
    rng r = rng_for(25);
    nnc_qmodel q;
    int64_t qa[72];
    nnc_model *m = small_cnn_sample(&r, &q, qa);
    const int64_t *ins[1] = {qa};
    nnc_prv_cb *full, *wo;
    CHECK(nnc_prv_zk_compile(&full, &q, NNC_PRV_ZK_PRIVATE_INPUT, NNC_PRV_ZK_BUILD_FULL, ins, NULL, err, sizeof err) == NNC_STATUS_OK);
    CHECK(nnc_prv_zk_compile(&wo, &q, NNC_PRV_ZK_PRIVATE_INPUT, NNC_PRV_ZK_BUILD_WITNESS, ins, NULL, err, sizeof err) == NNC_STATUS_OK);
    nnc_prv_r1cs cs;
    nnc_prv_fr_vec w, pub1, pub2;
    nnc_prv_cb_witness x;
    CHECK(nnc_prv_cb_finish(full, &cs, &w, NULL, err, sizeof err) == NNC_STATUS_OK);
    CHECK(nnc_prv_cb_finish_witness(wo, &x, err, sizeof err) == NNC_STATUS_OK);
    nnc_prv_zkey z, zc;
    ck_assert_msg(nnc_prv_g16_setup(&z, &cs, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    /* the key as a prover reads it without its coefficient section */
    size_t len = 0;
    CHECK(nnc_prv_zkey_serialize(NULL, &len, &z) == NNC_STATUS_LIMIT); /* the size */
    unsigned char *img = malloc(len);
    CHECK(img && nnc_prv_zkey_serialize(img, &len, &z) == NNC_STATUS_OK);
    CHECK(nnc_prv_zkey_parse(&zc, img, len, NNC_PRV_ZKEY_SKIP_COEFS, err, sizeof err) == NNC_STATUS_OK);
    CHECK(zc.n_coefs == 0 && zc.coefs == NULL && zc.n_vars == z.n_vars);
    nnc_prv_fr rs[2];
    nnc_prv_fr_from_i64(&rs[0], 1234567);
    nnc_prv_fr_from_i64(&rs[1], 7654321);
    nnc_prv_g16_proof p1, p2;
    nnc_prv_g16_ab given = {x.ab, x.n_constraints};
    CHECK(nnc_prv_g16_prove_full(&p1, &pub1, &z, &cs, NULL, &w, 1, NULL, NULL, rs, NULL, NULL, err, sizeof err) == NNC_STATUS_OK);
    ck_assert_msg(nnc_prv_g16_prove_full(&p2, &pub2, &zc, NULL, &given, &x.w, 1, NULL, NULL, rs, NULL, NULL, err, sizeof err) ==
                      NNC_STATUS_OK, "%s", err);
    CHECK(memcmp(&p1, &p2, sizeof p1) == 0 && pub1.n == pub2.n && memcmp(pub1.v, pub2.v, pub1.n * sizeof *pub1.v) == 0);
    /* without A w and B w, a key without coefficients cannot prove */
    nnc_prv_fr_vec_clear(&pub2);
    CHECK(nnc_prv_g16_prove_full(&p2, &pub2, &zc, NULL, NULL, &x.w, 1, NULL, NULL, rs, NULL, NULL, err, sizeof err) == NNC_STATUS_INVALID);
    nnc_prv_g16_vk vk;
    CHECK(nnc_prv_g16_vk_from_zkey(&vk, &z) == NNC_STATUS_OK);
    int valid = 0;
    CHECK(nnc_prv_g16_verify(&valid, &vk, &pub1, &p1, err, sizeof err) == NNC_STATUS_OK && valid);
    uint32_t c = (uint32_t)rng_below(&r, x.n_constraints);
    nnc_prv_fr one;
    nnc_prv_fr_from_i64(&one, 1);
    nnc_fr_add(&x.ab[2 * (uint64_t)c], &x.ab[2 * (uint64_t)c], &one);
    CHECK(nnc_prv_g16_prove_full(&p2, &pub2, &zc, NULL, &given, &x.w, 1, NULL, NULL, rs, NULL, NULL, err, sizeof err) == NNC_STATUS_OK);
    valid = 1;
    CHECK(nnc_prv_g16_verify(&valid, &vk, &pub2, &p2, err, sizeof err) == NNC_STATUS_OK);
    ck_assert_msg(!valid, "a proof from a wrong A w at constraint %u verifies", c);
    nnc_prv_g16_vk_clear(&vk);
    nnc_prv_fr_vec_clear(&pub1);
    nnc_prv_fr_vec_clear(&pub2);
    nnc_prv_zkey_clear(&z);
    nnc_prv_zkey_clear(&zc);
    free(img);
    nnc_prv_cb_witness_clear(&x);
    nnc_prv_r1cs_clear(&cs);
    nnc_prv_fr_vec_clear(&w);
    nnc_prv_cb_destroy(full);
    nnc_prv_cb_destroy(wo);
    nnc_qmodel_clear(&q);
    nnc_mdl_destroy(m);
}
END_TEST

/* nnc_qmodel_layer_sums on convolutions of random geometry (strides,
 * padding, dilation, groups) against sums over nnc_qmodel_window's taps. */
START_TEST(test_layer_sums)
{
    rng r = rng_for(24);
    for (int it = 0; it < 300; it++) {
        nnc_q_layer l;
        memset(&l, 0, sizeof l);
        l.kind = NNC_Q_CONV;
        l.group = 1 + (int64_t)rng_below(&r, 3);
        l.C = l.group * (1 + (int64_t)rng_below(&r, 3));
        l.OC = l.group * (1 + (int64_t)rng_below(&r, 3));
        l.H = 1 + (int64_t)rng_below(&r, 9);
        l.W = 1 + (int64_t)rng_below(&r, 9);
        l.kh = 1 + (int64_t)rng_below(&r, 4);
        l.kw = 1 + (int64_t)rng_below(&r, 4);
        l.sh = 1 + (int64_t)rng_below(&r, 3);
        l.sw = 1 + (int64_t)rng_below(&r, 3);
        l.dh = 1 + (int64_t)rng_below(&r, 2);
        l.dw = 1 + (int64_t)rng_below(&r, 2);
        l.ph = (int64_t)rng_below(&r, 3);
        l.pw = (int64_t)rng_below(&r, 3);
        int64_t eh = (l.kh - 1) * l.dh + 1, ew = (l.kw - 1) * l.dw + 1;
        if (l.H + 2 * l.ph < eh || l.W + 2 * l.pw < ew) continue;
        l.OH = (l.H + 2 * l.ph - eh) / l.sh + 1;
        l.OW = (l.W + 2 * l.pw - ew) / l.sw + 1;
        int64_t cpg = l.C / l.group, nx = l.C * l.H * l.W, ny = l.OC * l.OH * l.OW;
        l.nw = l.OC * cpg * l.kh * l.kw;
        int64_t *x = malloc((size_t)nx * sizeof *x), *y = malloc((size_t)ny * sizeof *y), *b = malloc((size_t)l.OC * sizeof *b),
                *xi = malloc((size_t)(2 * cpg * l.kh * l.kw) * sizeof *xi);
        l.w = malloc((size_t)l.nw * sizeof *l.w);
        for (int64_t i = 0; i < nx; i++) x[i] = (int64_t)rng_below(&r, 255) - 127;
        for (int64_t i = 0; i < l.nw; i++) l.w[i] = (int64_t)rng_below(&r, 255) - 127;
        for (int64_t i = 0; i < l.OC; i++) b[i] = (int64_t)rng_below(&r, 1 << 16) - (1 << 15);
        l.b = rng_below(&r, 2) ? b : NULL;
        CHECK(nnc_qmodel_layer_sums(&l, x, y) == 0);
        for (int64_t o = 0; o < l.OC; o++)
            for (int64_t oy = 0; oy < l.OH; oy++)
                for (int64_t ox = 0; ox < l.OW; ox++) {
                    int64_t cnt = nnc_qmodel_window(&l, o, oy, ox, xi, xi + cpg * l.kh * l.kw), s = l.b ? l.b[o] : 0;
                    for (int64_t k = 0; k < cnt; k++) s += x[xi[k]] * l.w[xi[cpg * l.kh * l.kw + k]];
                    ck_assert_msg(y[(o * l.OH + oy) * l.OW + ox] == s, "case %d (seed %llu): output (%lld, %lld, %lld)", it,
                                  (unsigned long long)g_seed, (long long)o, (long long)oy, (long long)ox);
                }
        free(x);
        free(y);
        free(b);
        free(xi);
        free(l.w);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("circuit");
    TCase *tc = tcase_create("gadgets");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_finish_move);
    tcase_add_test(tc, test_field_ints);
    tcase_add_test(tc, test_bits_exhaustive);
    tcase_add_test(tc, test_requant);
    tcase_add_test(tc, test_requant_exhaustive);
    tcase_add_test(tc, test_divround);
    tcase_add_test(tc, test_relu_exhaustive);
    tcase_add_test(tc, test_max);
    tcase_add_test(tc, test_gather);
    tcase_add_test(tc, test_mul_privacy);
    tcase_add_test(tc, test_poseidon_gadget);
    tcase_add_test(tc, test_poseidon_same_as_reference);
    tcase_add_test(tc, test_commit);
    tcase_add_test(tc, test_knit_base);
    tcase_add_test(tc, test_knit_random);
    tcase_add_test(tc, test_knit_exhaustive);
    suite_add_tcase(s, tc);
    TCase *tm = tcase_create("models");
    tcase_set_timeout(tm, 300);
    tcase_add_test(tm, test_model_cnn);
    tcase_add_test(tm, test_model_every_wire);
    tcase_add_test(tm, test_model_knit);
    tcase_add_test(tm, test_model_gather_sparse);
    tcase_add_test(tm, test_unsupported);
    tcase_add_test(tm, test_witness_only);
    tcase_add_test(tm, test_layer_sums);
    tcase_add_test(tm, test_prove_by_witness);
    suite_add_tcase(s, tm);
    return s;
}

int main(void) { return harness_main("test_circuit", suite); }
