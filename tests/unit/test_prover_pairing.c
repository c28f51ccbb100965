/* BN254 optimal ate pairing (prover/pairing.c, prover/pairing_impl.h):
 * constants recomputed with GMP, sparse and cyclotomic Fq12 helpers against
 * the plain tower formulas, Miller-loop steps against the group law, the
 * final exponentiation against a plain power with exponent (p^12 - 1)/r,
 * known answers from the independent reference in
 * prover/gen_pairing_constants.py and from snarkjs's ffjavascript (whose
 * pairing is this one to the power 2x(6x^2+3x+1)), bilinearity,
 * non-degeneracy, the product
 * check (Groth16-shaped 4-pair checks, batches over NNC_PAIRING_BATCH), and
 * the EIP-197 precompile vectors of go-ethereum.
 *
 * Random scalars come from a seed printed at start; NNC_TEST_SEED=<n>
 * replays a run. */
#include "nncert/prover.h"
#include "prover/pairing_impl.h"

#include "tests/vectors/bn254_pairing_kat.h"
#include "tests/vectors/bn256_pairing_vectors.h"

#include <check.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/unit/prover_test_util.h"

#define FQ_DEC "21888242871839275222246405745257275088696311157297823662689037894645226208583"
#define FR_DEC "21888242871839275222246405745257275088548364400416034343698204186575808495617"

static void rand_fq6(nnc_fq6 *e, rng *r)
{
    rng_fq2_uniform(&e->c0, r);
    rng_fq2_uniform(&e->c1, r);
    rng_fq2_uniform(&e->c2, r);
}
static void rand_fq12(nnc_fq12 *e, rng *r)
{
    rand_fq6(&e->c0, r);
    rand_fq6(&e->c1, r);
}
/* nonzero Fr element */
static void rand_fr(nnc_fr *k, rng *r)
{
    do
        rng_fr_uniform(k, r);
    while (nnc_fr_is_zero(k));
}

/* The integer of a GMP value as n little-endian limbs (zero-padded). */
static void mpz_limbs(uint64_t *out, size_t n, const mpz_t z)
{
    size_t count = 0;
    memset(out, 0, n * sizeof *out);
    ck_assert(mpz_sizeinbase(z, 2) <= 64 * n);
    mpz_export(out, &count, -1, sizeof(uint64_t), 0, 0, z);
}

/* r = [k]G for the generators; k an Fr element */
static void g1_gen_mul(nnc_g1 *r, const nnc_fr *k)
{
    nnc_g1 g;
    nnc_g1_generator(&g);
    nnc_prv_g1_mul_var(r, &g, k);
}
static void g2_gen_mul(nnc_g2 *r, const nnc_fr *k)
{
    nnc_g2 g;
    nnc_g2_generator(&g);
    nnc_prv_g2_mul_var(r, &g, k);
}

/* r = a^k for k in Fr (as an integer) */
static void fq12_pow_fr(nnc_fq12 *r, const nnc_fq12 *a, const nnc_fr *k)
{
    uint64_t e[4];
    nnc_fr_to_int(e, k);
    nnc_fq12_pow(r, a, e, 4);
}

/* a -> a^((p^6 - 1)(p^2 + 1)), into the cyclotomic subgroup */
static void easy_part(nnc_fq12 *r, const nnc_fq12 *a)
{
    nnc_fq12 inv, t;
    nnc_fq12_inv(&inv, a);
    nnc_fq12_conj(&t, a);
    nnc_fq12_mul(&t, &t, &inv);
    nnc_fq12_frobenius(&inv, &t, 2);
    nnc_fq12_mul(r, &t, &inv);
}

static void fq12_from_dec(nnc_fq12 *r, const char *const dec[12])
{
    nnc_fq *c[12] = {&r->c0.c0.c0, &r->c0.c0.c1, &r->c0.c1.c0, &r->c0.c1.c1,
                     &r->c0.c2.c0, &r->c0.c2.c1, &r->c1.c0.c0, &r->c1.c0.c1,
                     &r->c1.c1.c0, &r->c1.c1.c1, &r->c1.c2.c0, &r->c1.c2.c1};
    int i;
    for (i = 0; i < 12; i++)
        ck_assert_int_eq(nnc_prv_fq_parse_dec(c[i], dec[i], 0, NULL, 0), NNC_STATUS_OK);
}

/* ---- constants ---- */

START_TEST(test_constants)
{
    const nnc_fq2 k1x = NNC_PAIRING_FROB1_X_INIT, k1y = NNC_PAIRING_FROB1_Y_INIT;
    const nnc_fq2 k2x = NNC_PAIRING_FROB2_X_INIT;
    const nnc_fq2 t6[6] = NNC_FQ6_FROB_C1_INIT;
    const nnc_fq2 t12[12] = NNC_FQ12_FROB_C1_INIT;
    static const signed char ate[NNC_PAIRING_ATE_NAF_LEN] = NNC_PAIRING_ATE_NAF_INIT;
    static const signed char xn[NNC_PAIRING_X_NAF_LEN] = NNC_PAIRING_X_NAF_INIT;
    mpz_t p, r, x, e, s;
    uint64_t el[4];
    nnc_fq2 xi, v, w;
    nnc_fr k;
    nnc_g2 q, a, b;
    rng rg = rng_for(1);
    int i, t;

    mpz_inits(p, r, x, e, s, NULL);
    mpz_set_str(p, FQ_DEC, 10);
    mpz_set_str(r, FR_DEC, 10);
    mpz_set_ui(x, 0);
    mpz_import(x, 1, -1, sizeof(uint64_t), 0, 0, (uint64_t[]){NNC_PAIRING_X});
    /* p and r as polynomials in x */
    mpz_set_ui(e, 36);
    mpz_mul(e, e, x);
    mpz_add_ui(e, e, 36);
    mpz_mul(e, e, x);
    mpz_add_ui(e, e, 24);
    mpz_mul(e, e, x);
    mpz_add_ui(e, e, 6);
    mpz_mul(e, e, x);
    mpz_add_ui(e, e, 1);
    CHECK(mpz_cmp(e, p) == 0);
    /* digit lists */
    mpz_set_ui(s, 0);
    for (i = 0; i < NNC_PAIRING_ATE_NAF_LEN; i++) {
        mpz_mul_2exp(s, s, 1);
        if (ate[i] > 0) mpz_add_ui(s, s, 1);
        if (ate[i] < 0) mpz_sub_ui(s, s, 1);
        if (i > 0) CHECK(!(ate[i] && ate[i - 1]));
    }
    mpz_mul_ui(e, x, 6);
    mpz_add_ui(e, e, 2);
    CHECK(mpz_cmp(s, e) == 0 && ate[0] == 1);
    mpz_set_ui(s, 0);
    for (i = 0; i < NNC_PAIRING_X_NAF_LEN; i++) {
        mpz_mul_2exp(s, s, 1);
        if (xn[i] > 0) mpz_add_ui(s, s, 1);
        if (xn[i] < 0) mpz_sub_ui(s, s, 1);
    }
    CHECK(mpz_cmp(s, x) == 0 && xn[0] == 1);

    /* twist Frobenius coefficients: powers of xi = 9 + u */
    nnc_fq_set_u64(&xi.c0, 9);
    nnc_fq_set_u64(&xi.c1, 1);
    mpz_sub_ui(e, p, 1);
    mpz_divexact_ui(e, e, 3);
    mpz_limbs(el, 4, e);
    nnc_fq2_pow(&v, &xi, el, 4);
    CHECK(nnc_fq2_eq(&v, &k1x));
    mpz_sub_ui(e, p, 1);
    mpz_divexact_ui(e, e, 2);
    mpz_limbs(el, 4, e);
    nnc_fq2_pow(&v, &xi, el, 4);
    CHECK(nnc_fq2_eq(&v, &k1y));
    mpz_mul(e, p, p);
    mpz_sub_ui(e, e, 1);
    mpz_divexact_ui(e, e, 3);
    {
        uint64_t big[8];
        mpz_limbs(big, 8, e);
        nnc_fq2_pow(&v, &xi, big, 8);
        CHECK(nnc_fq2_eq(&v, &k2x));
        CHECK(nnc_fq_is_zero(&k2x.c1));
        mpz_mul(e, p, p);
        mpz_sub_ui(e, e, 1);
        mpz_divexact_ui(e, e, 2);
        mpz_limbs(big, 8, e);
        nnc_fq2_pow(&v, &xi, big, 8);
        nnc_fq2_set_one(&w);
        nnc_fq2_neg(&w, &w);
        CHECK(nnc_fq2_eq(&v, &w)); /* xi^((p^2-1)/2) = -1 */
    }
    /* agreement with the tower's Frobenius tables (prover/tower_impl.h) */
    CHECK(nnc_fq2_eq(&k1x, &t6[1]));
    nnc_fq2_mul(&v, &t12[1], &t6[1]);
    CHECK(nnc_fq2_eq(&v, &k1y));
    CHECK(nnc_fq2_eq(&k2x, &t6[2]));

    /* pi(q) = [p]q and -pi^2(q) = [-p^2]q on G2 */
    mpz_mod(e, p, r);
    mpz_limbs(el, 4, e);
    ck_assert(nnc_fr_from_int(&k, el));
    for (t = 0; t < 3; t++) {
        nnc_fr kk;
        rand_fr(&kk, &rg);
        g2_gen_mul(&q, &kk);
        nnc_pairing_g2_frob(&a, &q);
        nnc_prv_g2_mul_var(&b, &q, &k);
        CHECK(nnc_g2_aff_eq(&a, &b));
        CHECK(nnc_prv_g2_is_valid(&a));
        nnc_pairing_g2_frob2_neg(&a, &q);
        nnc_fr_mul(&kk, &k, &k);
        nnc_fr_neg(&kk, &kk);
        nnc_prv_g2_mul_var(&b, &q, &kk);
        CHECK(nnc_g2_aff_eq(&a, &b));
    }
    mpz_clears(p, r, x, e, s, NULL);
}
END_TEST

/* ---- Fq12 helpers ---- */

START_TEST(test_fq12_helpers)
{
    rng rg = rng_for(2);
    mpz_t p;
    uint64_t pl[4];
    int t;
    mpz_init_set_str(p, FQ_DEC, 10);
    mpz_limbs(pl, 4, p);
    mpz_clear(p);
    for (t = 0; t < 20; t++) {
        nnc_fq12 a, b, c, d;
        nnc_fq6 a6, b6, c6;
        nnc_pairing_line l;
        rand_fq12(&a, &rg);
        /* mul_by_01 = full Fq6 product with b2 = 0 */
        rand_fq6(&a6, &rg);
        rand_fq6(&b6, &rg);
        nnc_fq2_set_zero(&b6.c2);
        nnc_fq6_mul(&c6, &a6, &b6);
        nnc_fq6_mul_by_01(&a6, &a6, &b6.c0, &b6.c1); /* aliasing output */
        CHECK(nnc_fq6_eq(&a6, &c6));
        /* mul_by_034 = full product with the sparse element */
        rng_fq2_uniform(&l.c0, &rg);
        rng_fq2_uniform(&l.c3, &rg);
        rng_fq2_uniform(&l.c4, &rg);
        nnc_fq12_set_zero(&b);
        b.c0.c0 = l.c0;
        b.c1.c0 = l.c3;
        b.c1.c1 = l.c4;
        nnc_fq12_mul(&c, &a, &b);
        d = a;
        nnc_fq12_mul_by_034(&d, &d, &l);
        CHECK(nnc_fq12_eq(&c, &d));
        /* the tower's Frobenius is the p-th power */
        nnc_fq12_frobenius(&c, &a, 1);
        nnc_fq12_pow(&d, &a, pl, 4);
        CHECK(nnc_fq12_eq(&c, &d));
        /* cyclotomic squaring and exponentiation by x */
        easy_part(&a, &a);
        nnc_fq12_conj(&b, &a);
        nnc_fq12_mul(&b, &b, &a);
        CHECK(nnc_fq12_is_one(&b)); /* a^(p^6 + 1) = 1 */
        nnc_fq12_sqr(&c, &a);
        d = a;
        nnc_fq12_cyclotomic_sqr(&d, &d);
        CHECK(nnc_fq12_eq(&c, &d));
        if (t < 4) {
            const uint64_t xe[1] = {NNC_PAIRING_X};
            nnc_fq12_pow(&c, &a, xe, 1);
            nnc_fq12_cyclotomic_exp_x(&d, &a);
            CHECK(nnc_fq12_eq(&c, &d));
        }
    }
}
END_TEST

/* ---- Miller loop steps ---- */

/* Returns: 1 if the line (before evaluation) vanishes at the untwisted
 * point s: c0 ys + c3 xs + c4 = 0 (see nnc_pairing_dbl_step). */
static int line_through(const nnc_pairing_line *l, const nnc_g2 *s)
{
    nnc_fq2 a, b;
    nnc_fq2_mul(&a, &l->c0, &s->y);
    nnc_fq2_mul(&b, &l->c3, &s->x);
    nnc_fq2_add(&a, &a, &b);
    nnc_fq2_add(&a, &a, &l->c4);
    return nnc_fq2_is_zero(&a);
}

static void proj_to_aff(nnc_g2 *r, const nnc_g2_proj *t)
{
    nnc_fq2 zi;
    nnc_fq2_inv(&zi, &t->z);
    nnc_fq2_mul(&r->x, &t->x, &zi);
    nnc_fq2_mul(&r->y, &t->y, &zi);
}

START_TEST(test_steps)
{
    rng rg = rng_for(3);
    int t;
    for (t = 0; t < 10; t++) {
        nnc_fr k1, k2;
        nnc_g2 q1, q2, sum, got, neg;
        nnc_g2_proj tp;
        nnc_pairing_line l;
        nnc_fq2 lam;
        rand_fr(&k1, &rg);
        rand_fr(&k2, &rg);
        g2_gen_mul(&q1, &k1);
        g2_gen_mul(&q2, &k2);
        /* random projective representative of q1 */
        rng_fq2_uniform(&lam, &rg);
        nnc_g2_proj_from_aff(&tp, &q1);
        nnc_fq2_mul(&tp.x, &tp.x, &lam);
        nnc_fq2_mul(&tp.y, &tp.y, &lam);
        nnc_fq2_mul(&tp.z, &tp.z, &lam);
        nnc_pairing_dbl_step(&tp, &l);
        proj_to_aff(&got, &tp);
        nnc_prv_g2_add(&sum, &q1, &q1);
        CHECK(nnc_g2_aff_eq(&got, &sum));
        CHECK(line_through(&l, &q1));
        nnc_g2_aff_neg(&neg, &sum);
        CHECK(line_through(&l, &neg));
        CHECK(!line_through(&l, &q2));
        /* addition step from 2 q1 */
        nnc_pairing_add_step(&tp, &l, &q2);
        proj_to_aff(&got, &tp);
        CHECK(line_through(&l, &sum));
        CHECK(line_through(&l, &q2));
        nnc_prv_g2_add(&sum, &sum, &q2);
        CHECK(nnc_g2_aff_eq(&got, &sum));
        nnc_g2_aff_neg(&neg, &sum);
        CHECK(line_through(&l, &neg));
    }
}
END_TEST

/* The loop's T ends at [6x+2]Q: replay the digit walk with the step
 * functions and compare with a scalar multiplication. */
START_TEST(test_loop_point)
{
    static const signed char naf[NNC_PAIRING_ATE_NAF_LEN] = NNC_PAIRING_ATE_NAF_INIT;
    nnc_g2 q, qn, got, want;
    nnc_g2_proj t;
    nnc_pairing_line l;
    nnc_fr k;
    int i;
    nnc_g2_generator(&q);
    nnc_g2_aff_neg(&qn, &q);
    nnc_g2_proj_from_aff(&t, &q);
    for (i = 1; i < NNC_PAIRING_ATE_NAF_LEN; i++) {
        nnc_pairing_dbl_step(&t, &l);
        if (naf[i])
            nnc_pairing_add_step(&t, &l, naf[i] > 0 ? &q : &qn);
    }
    proj_to_aff(&got, &t);
    {
        /* 6x+2 < r, as an Fr element */
        uint64_t v[4];
        mpz_t a;
        mpz_init(a);
        mpz_import(a, 1, -1, sizeof(uint64_t), 0, 0, (uint64_t[]){NNC_PAIRING_X});
        mpz_mul_ui(a, a, 6);
        mpz_add_ui(a, a, 2);
        mpz_limbs(v, 4, a);
        mpz_clear(a);
        ck_assert(nnc_fr_from_int(&k, v));
    }
    nnc_prv_g2_mul_var(&want, &q, &k);
    CHECK(nnc_g2_aff_eq(&got, &want));
}
END_TEST

/* ---- final exponentiation and known answers ---- */

START_TEST(test_final_exp)
{
    rng rg = rng_for(4);
    mpz_t p, r, e;
    uint64_t el[48];
    size_t nl;
    nnc_fq12 f, a, b;
    int t;
    mpz_inits(p, r, e, NULL);
    mpz_set_str(p, FQ_DEC, 10);
    mpz_set_str(r, FR_DEC, 10);
    mpz_pow_ui(e, p, 12);
    mpz_sub_ui(e, e, 1);
    ck_assert(mpz_divisible_p(e, r));
    mpz_divexact(e, e, r);
    nl = (mpz_sizeinbase(e, 2) + 63) / 64;
    ck_assert(nl <= 48);
    mpz_limbs(el, nl, e);
    for (t = 0; t < 2; t++) {
        rand_fq12(&f, &rg);
        nnc_prv_final_exp(&a, &f);
        nnc_fq12_pow(&b, &f, el, nl);
        CHECK(nnc_fq12_eq(&a, &b));
    }
    /* aliasing */
    b = f;
    nnc_prv_final_exp(&b, &b);
    CHECK(nnc_fq12_eq(&a, &b));
    nnc_fq12_set_one(&f);
    nnc_prv_final_exp(&f, &f);
    CHECK(nnc_fq12_is_one(&f));
    mpz_clears(p, r, e, NULL);
}
END_TEST

START_TEST(test_known_answers)
{
    nnc_fq12 want, got;
    nnc_g1 p;
    nnc_g2 q;
    nnc_fr a, b;
    nnc_g1_generator(&p);
    nnc_g2_generator(&q);
    fq12_from_dec(&want, KAT_E_G1_G2);
    nnc_prv_pairing(&got, &p, &q);
    CHECK(nnc_fq12_eq(&got, &want));
    ck_assert_int_eq(nnc_prv_fr_parse_dec(&a, KAT_A, 0, NULL, 0), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_prv_fr_parse_dec(&b, KAT_B, 0, NULL, 0), NNC_STATUS_OK);
    g1_gen_mul(&p, &a);
    g2_gen_mul(&q, &b);
    fq12_from_dec(&want, KAT_E_AG1_BG2);
    nnc_prv_pairing(&got, &p, &q);
    CHECK(nnc_fq12_eq(&got, &want));
}
END_TEST

/* snarkjs (ffjavascript 0.3.1, wasmcurves) uses the Fuentes-Castaneda et
 * al. final exponentiation, which computes the canonical pairing raised to
 * m = 2x(6x^2 + 3x + 1).  Value of buildBn128().pairing(G1.g, G2.g) there,
 * coefficients in tower order (Gt.toObject nests w, v, u as here). */
static const char *const FFJS_E_G1_G2[12] = {
    "17264119758069723980713015158403419364912226240334615592005620718956030922389",
    "1300711225518851207585954685848229181392358478699795190245709208408267917898",
    "8894217292938489450175280157304813535227569267786222825147475294561798790624",
    "1829859855596098509359522796979920150769875799037311140071969971193843357227",
    "4968700049505451466697923764727215585075098085662966862137174841375779106779",
    "12814315002058128940449527172080950701976819591738376253772993495204862218736",
    "4233474252585134102088637248223601499779641130562251948384759786370563844606",
    "9420544134055737381096389798327244442442230840902787283326002357297404128074",
    "13457906610892676317612909831857663099224588803620954529514857102808143524905",
    "5122435115068592725432309312491733755581898052459744089947319066829791570839",
    "8891987925005301465158626530377582234132838601606565363865129986128301774627",
    "440796048150724096437130979851431985500142692666486515369083499585648077975"};

START_TEST(test_snarkjs_pairing)
{
    nnc_fq12 e, want;
    nnc_g1 p;
    nnc_g2 q;
    uint64_t m[4];
    mpz_t z, t;
    mpz_inits(z, t, NULL);
    mpz_import(z, 1, -1, sizeof(uint64_t), 0, 0, (uint64_t[]){NNC_PAIRING_X});
    mpz_mul(t, z, z);
    mpz_mul_ui(t, t, 6);
    mpz_addmul_ui(t, z, 3);
    mpz_add_ui(t, t, 1);
    mpz_mul(t, t, z);
    mpz_mul_2exp(t, t, 1); /* m = 2x(6x^2 + 3x + 1) */
    mpz_limbs(m, 4, t);
    mpz_clears(z, t, NULL);
    nnc_g1_generator(&p);
    nnc_g2_generator(&q);
    nnc_prv_pairing(&e, &p, &q);
    nnc_fq12_pow(&e, &e, m, 4);
    fq12_from_dec(&want, FFJS_E_G1_G2);
    CHECK(nnc_fq12_eq(&e, &want));
}
END_TEST

/* ---- properties ---- */

START_TEST(test_nondegenerate_order)
{
    nnc_fq12 e, t;
    nnc_g1 p, inf1;
    nnc_g2 q, inf2;
    uint64_t rl[4] = NNC_FR_MODULUS_INIT;
    nnc_g1_generator(&p);
    nnc_g2_generator(&q);
    nnc_prv_pairing(&e, &p, &q);
    CHECK(!nnc_fq12_is_one(&e));
    nnc_fq12_pow(&t, &e, rl, 4);
    CHECK(nnc_fq12_is_one(&t));
    /* GT elements are unitary: e^(p^6) = e^-1 */
    nnc_fq12_conj(&t, &e);
    nnc_fq12_mul(&t, &t, &e);
    CHECK(nnc_fq12_is_one(&t));
    /* infinity on either side */
    nnc_g1_aff_set_inf(&inf1);
    nnc_g2_aff_set_inf(&inf2);
    nnc_prv_pairing(&t, &inf1, &q);
    CHECK(nnc_fq12_is_one(&t));
    nnc_prv_pairing(&t, &p, &inf2);
    CHECK(nnc_fq12_is_one(&t));
    nnc_prv_pairing(&t, &inf1, &inf2);
    CHECK(nnc_fq12_is_one(&t));
    CHECK(nnc_prv_pairing_check(&p, &q, 0) == 1);
    CHECK(nnc_prv_pairing_check(&p, &q, 1) == 0);
    CHECK(nnc_prv_pairing_check(&inf1, &q, 1) == 1);
    CHECK(nnc_prv_pairing_check(&p, &inf2, 1) == 1);
}
END_TEST

START_TEST(test_bilinearity)
{
    rng rg = rng_for(5);
    nnc_fq12 e, e1, e2, e3, e4;
    nnc_g1 g1, ap, abp;
    nnc_g2 g2, bq, abq;
    nnc_fr a, b, ab;
    int t;
    nnc_g1_generator(&g1);
    nnc_g2_generator(&g2);
    nnc_prv_pairing(&e, &g1, &g2);
    for (t = 0; t < 3; t++) {
        rand_fr(&a, &rg);
        rand_fr(&b, &rg);
        if (t == 0) {
            nnc_fr_set_one(&a); /* a = -1 */
            nnc_fr_neg(&a, &a);
        }
        nnc_fr_mul(&ab, &a, &b);
        g1_gen_mul(&ap, &a);
        g1_gen_mul(&abp, &ab);
        g2_gen_mul(&bq, &b);
        g2_gen_mul(&abq, &ab);
        nnc_prv_pairing(&e1, &ap, &bq);
        fq12_pow_fr(&e2, &e, &ab);
        nnc_prv_pairing(&e3, &abp, &g2);
        nnc_prv_pairing(&e4, &g1, &abq);
        CHECK(nnc_fq12_eq(&e1, &e2));
        CHECK(nnc_fq12_eq(&e1, &e3));
        CHECK(nnc_fq12_eq(&e1, &e4));
    }
    /* e(P1 + P2, Q) = e(P1, Q) e(P2, Q) for non-generator bases */
    {
        nnc_g1 p1, p2, ps;
        nnc_g2 q;
        rand_fr(&a, &rg);
        g1_gen_mul(&p1, &a);
        rand_fr(&a, &rg);
        g1_gen_mul(&p2, &a);
        rand_fr(&a, &rg);
        g2_gen_mul(&q, &a);
        nnc_prv_g1_add(&ps, &p1, &p2);
        nnc_prv_pairing(&e1, &p1, &q);
        nnc_prv_pairing(&e2, &p2, &q);
        nnc_prv_pairing(&e3, &ps, &q);
        nnc_fq12_mul(&e1, &e1, &e2);
        CHECK(nnc_fq12_eq(&e1, &e3));
    }
}
END_TEST

START_TEST(test_miller_product)
{
    rng rg = rng_for(6);
    nnc_g1 p[NNC_PAIRING_BATCH + 3];
    nnc_g2 q[NNC_PAIRING_BATCH + 3];
    nnc_fq12 all, one, prod;
    nnc_fr k;
    size_t i, n = NNC_PAIRING_BATCH + 3;
    for (i = 0; i < n; i++) {
        rand_fr(&k, &rg);
        g1_gen_mul(&p[i], &k);
        rand_fr(&k, &rg);
        g2_gen_mul(&q[i], &k);
    }
    nnc_g1_aff_set_inf(&p[2]); /* infinity pairs are skipped */
    nnc_g2_aff_set_inf(&q[5]);
    nnc_prv_miller_loop(&all, p, q, n);
    nnc_fq12_set_one(&prod);
    for (i = 0; i < n; i++) {
        nnc_prv_miller_loop(&one, &p[i], &q[i], 1);
        if (i == 2 || i == 5)
            CHECK(nnc_fq12_is_one(&one));
        nnc_fq12_mul(&prod, &prod, &one);
    }
    CHECK(nnc_fq12_eq(&all, &prod));
    nnc_prv_miller_loop(&one, p, q, 0);
    CHECK(nnc_fq12_is_one(&one));
}
END_TEST

START_TEST(test_pairing_check)
{
    rng rg = rng_for(7);
    nnc_fr a, b, ab, one;
    nnc_g1 g1, p[2 * NNC_PAIRING_BATCH + 2];
    nnc_g2 g2, q[2 * NNC_PAIRING_BATCH + 2];
    size_t i;
    int t;
    nnc_g1_generator(&g1);
    nnc_g2_generator(&g2);
    nnc_fr_set_one(&one);
    for (t = 0; t < 2; t++) {
        /* e(aP, bQ) e(-abP, Q) = 1 */
        rand_fr(&a, &rg);
        rand_fr(&b, &rg);
        nnc_fr_mul(&ab, &a, &b);
        g1_gen_mul(&p[0], &a);
        g2_gen_mul(&q[0], &b);
        nnc_fr_neg(&ab, &ab);
        g1_gen_mul(&p[1], &ab);
        q[1] = g2;
        CHECK(nnc_prv_pairing_check(p, q, 2) == 1);
        /* one scalar off by one */
        nnc_fr_add(&ab, &a, &one);
        g1_gen_mul(&p[0], &ab);
        CHECK(nnc_prv_pairing_check(p, q, 2) == 0);
        g1_gen_mul(&p[0], &a);
        nnc_fr_add(&ab, &b, &one);
        g2_gen_mul(&q[0], &ab);
        CHECK(nnc_prv_pairing_check(p, q, 2) == 0);
    }
    /* Groth16 shape: e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta), checked
     * as e(-A, B) e(alpha, beta) e(L, gamma) e(C, delta) = 1 */
    for (t = 0; t < 2; t++) {
        nnc_fr s[8], c, u;
        for (i = 0; i < 8; i++)
            rand_fr(&s[i], &rg);
        /* c = (s0 s1 - s2 s3 - s4 s5) / s7 */
        nnc_fr_mul(&c, &s[0], &s[1]);
        nnc_fr_mul(&u, &s[2], &s[3]);
        nnc_fr_sub(&c, &c, &u);
        nnc_fr_mul(&u, &s[4], &s[5]);
        nnc_fr_sub(&c, &c, &u);
        nnc_fr_inv(&u, &s[7]);
        nnc_fr_mul(&s[6], &c, &u);
        nnc_fr_neg(&u, &s[0]);
        g1_gen_mul(&p[0], &u);
        for (i = 1; i < 4; i++)
            g1_gen_mul(&p[i], &s[2 * i]);
        for (i = 0; i < 4; i++)
            g2_gen_mul(&q[i], &s[2 * i + 1]);
        CHECK(nnc_prv_pairing_check(p, q, 4) == 1);
        nnc_fr_add(&u, &s[6], &one);
        g1_gen_mul(&p[3], &u);
        CHECK(nnc_prv_pairing_check(p, q, 4) == 0);
    }
    /* more pairs than a batch: (P_i, Q_i), (-P_i, Q_i) */
    for (i = 0; i < NNC_PAIRING_BATCH + 1; i++) {
        rand_fr(&a, &rg);
        g1_gen_mul(&p[2 * i], &a);
        nnc_g1_aff_neg(&p[2 * i + 1], &p[2 * i]);
        rand_fr(&b, &rg);
        g2_gen_mul(&q[2 * i], &b);
        q[2 * i + 1] = q[2 * i];
    }
    CHECK(nnc_prv_pairing_check(p, q, 2 * NNC_PAIRING_BATCH + 2) == 1);
    q[2 * NNC_PAIRING_BATCH + 1] = g2;
    CHECK(nnc_prv_pairing_check(p, q, 2 * NNC_PAIRING_BATCH + 2) == 0);
}
END_TEST

/* ---- EIP-197 vectors ---- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decode one 32-byte big-endian word of hex into an Fq element. */
static void fq_from_hexword(nnc_fq *r, const char *h)
{
    unsigned char b[32];
    int i;
    for (i = 0; i < 32; i++) {
        int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);
        ck_assert(hi >= 0 && lo >= 0);
        b[i] = (unsigned char)(hi * 16 + lo);
    }
    ck_assert_int_eq(nnc_prv_fq_parse_b32(r, b, NNC_PRV_ENDIAN_BIG), NNC_STATUS_OK);
}

/* Parse an EIP-197 input (imaginary part first in G2) into pairs,
 * repeated `reps` times.  Returns: the number of pairs. */
static size_t parse_eip197(nnc_g1 *p, nnc_g2 *q, size_t cap, const char *hex, size_t reps)
{
    size_t len = strlen(hex), n = len / 384, i, k = 0, rp;
    ck_assert(len % 384 == 0);
    for (rp = 0; rp < reps; rp++) {
        for (i = 0; i < n; i++, k++) {
            const char *h = hex + 384 * i;
            ck_assert(k < cap);
            fq_from_hexword(&p[k].x, h);
            fq_from_hexword(&p[k].y, h + 64);
            fq_from_hexword(&q[k].x.c1, h + 128);
            fq_from_hexword(&q[k].x.c0, h + 192);
            fq_from_hexword(&q[k].y.c1, h + 256);
            fq_from_hexword(&q[k].y.c0, h + 320);
        }
    }
    return k;
}

START_TEST(test_eip197_vectors)
{
    size_t nv = sizeof BN256_PAIRING_VECTORS / sizeof BN256_PAIRING_VECTORS[0], v, i, n;
    nnc_g1 p[16];
    nnc_g2 q[16];
    ck_assert(nv >= 5);
    for (v = 0; v < nv; v++) {
        const bn256_pairing_vector *tv = &BN256_PAIRING_VECTORS[v];
        n = parse_eip197(p, q, 16, tv->input, 1);
        for (i = 0; i < n; i++) {
            ck_assert_msg(nnc_prv_g1_is_valid(&p[i]), "%s: G1 point %zu invalid", tv->name, i);
            ck_assert_msg(nnc_prv_g2_is_valid(&q[i]), "%s: G2 point %zu invalid", tv->name, i);
        }
        ck_assert_msg(nnc_prv_pairing_check(p, q, n) == tv->expected, "%s: expected %d",
                      tv->name, tv->expected);
    }
    /* ten_point_match_1 / _2: five copies of two_point_match_2 / _3 */
    for (v = 0; v < nv; v++) {
        const bn256_pairing_vector *tv = &BN256_PAIRING_VECTORS[v];
        if (strcmp(tv->name, "two_point_match_2") && strcmp(tv->name, "two_point_match_3"))
            continue;
        n = parse_eip197(p, q, 16, tv->input, 5);
        ck_assert_uint_eq(n, 10);
        ck_assert_msg(nnc_prv_pairing_check(p, q, n) == 1, "ten_point from %s", tv->name);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prover_pairing");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_constants);
    tcase_add_test(tc, test_fq12_helpers);
    tcase_add_test(tc, test_steps);
    tcase_add_test(tc, test_loop_point);
    tcase_add_test(tc, test_final_exp);
    tcase_add_test(tc, test_known_answers);
    tcase_add_test(tc, test_snarkjs_pairing);
    tcase_add_test(tc, test_nondegenerate_order);
    tcase_add_test(tc, test_bilinearity);
    tcase_add_test(tc, test_miller_product);
    tcase_add_test(tc, test_pairing_check);
    tcase_add_test(tc, test_eip197_vectors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return harness_main("test_prover_pairing", suite); }
