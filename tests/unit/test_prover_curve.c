/* BN254 G1 and G2 (prover/curve_impl.h and the public API in
 * nncert/prover.h): group laws, the constant-time and wNAF scalar
 * multiplications against each other and against known vectors computed by
 * the plain affine implementation in prover/gen_constants.py --vectors,
 * orders and subgroup checks, decimal parsing.
 *
 * Random scalars come from a seed printed at start; NNC_TEST_SEED=<n>
 * replays a run. */
#include "nncert/prover.h"
#include "prover/curve_impl.h"

#include <check.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prover_test_util.h"

#define FQ_DEC "21888242871839275222246405745257275088696311157297823662689037894645226208583"
#define FR_DEC "21888242871839275222246405745257275088548364400416034343698204186575808495617"

/* a random Fr element, sometimes a small or near-r one */
static void rand_fr(nnc_fr *k, rng *r)
{
    unsigned kind = (unsigned)(rng_next(r) % 8);
    if (kind == 0) {
        nnc_fr_set_u64(k, rng_next(r) % 64);
        return;
    }
    if (kind == 1) {
        nnc_fr_set_u64(k, 1 + rng_next(r) % 64);
        nnc_fr_neg(k, k);
        return;
    }
    rng_fr_uniform(k, r);
}

static void fr_int(uint64_t x[4], const nnc_fr *k) { nnc_fr_to_int(x, k); }

/* Random Jacobian representation of the same point: (X l^2, Y l^3, Z l). */
#define DEF_RESCALE(G, FE, RAND)                                                  \
    static void G##_rescale(G##_jac *p, rng *r)                                   \
    {                                                                             \
        FE l, l2, l3;                                                             \
        RAND(&l, r);                                                              \
        if (nnc_##FE##_is_zero(&l)) return;                                       \
        nnc_##FE##_sqr(&l2, &l);                                                  \
        nnc_##FE##_mul(&l3, &l2, &l);                                             \
        nnc_##FE##_mul(&p->x, &p->x, &l2);                                        \
        nnc_##FE##_mul(&p->y, &p->y, &l3);                                        \
        nnc_##FE##_mul(&p->z, &p->z, &l);                                         \
    }
typedef nnc_fq fq;
typedef nnc_fq2 fq2;
DEF_RESCALE(nnc_g1, fq, rng_fq_uniform)
DEF_RESCALE(nnc_g2, fq2, rng_fq2_uniform)

/* Known vectors (prover/gen_constants.py --vectors); k below in decimal */
#define KNOWN_K "8234104122482341265491137074636836252947884782870784360943022469005013929455"
static const char *const G1_2[2] = {
    "1368015179489954701390400359078579693043519447331113978918064868415326638035",
    "9918110051302171585080402603319702774565515993150576347155970296011118125764"};
static const char *const G1_3[2] = {
    "3353031288059533942658390886683067124040920775575537747144343083137631628272",
    "19321533766552368860946552437480515441416830039777911637913418824951667761761"};
static const char *const G1_K[2] = {
    "11650402473466308343147810157828709405002629083239427252717749646260595675099",
    "12705148232951133326101841362637835177319865853340579988301898117149740186427"};
static const char *const G2_2[4] = {
    "18029695676650738226693292988307914797657423701064905010927197838374790804409",
    "14583779054894525174450323658765874724019480979794335525732096752006891875705",
    "2140229616977736810657479771656733941598412651537078903776637920509952744750",
    "11474861747383700316476719153975578001603231366361248090558603872215261634898"};
static const char *const G2_K[4] = {
    "4134213916343724931760970732975602250786076528375749075160172169169044486969",
    "21558308526502507855325166439008393966717643700102272257425778227652387758205",
    "891189877208105314331199145787525421844052589013600536797344575232083382042",
    "2653326632600946096894137479864389653965751602244102699043300532605270979831"};
static const char *const G2_GEN[4] = {
    "10857046999023057135944570762232829481370756359578518086990519993285655852781",
    "11559732032986387107991004021392285783925812861821192530917403151452391805634",
    "8495653923123431417604973247489272438418190587263600148770280649306958101930",
    "4082367875863433681332203403145435568316851327593401208105741076214120093531"};

static void parse_g1(nnc_g1 *p, const char *const s[2])
{
    char err[NNC_ERRBUF_SIZE] = "";
    nnc_status st = nnc_prv_g1_parse_dec(p, s[0], s[1], err, sizeof err);
    ck_assert_msg(st == NNC_STATUS_OK, "%s", err);
}
static void parse_g2(nnc_g2 *p, const char *const s[4])
{
    char err[NNC_ERRBUF_SIZE] = "";
    nnc_status st = nnc_prv_g2_parse_dec(p, s[0], s[1], s[2], s[3], err, sizeof err);
    ck_assert_msg(st == NNC_STATUS_OK, "%s", err);
}

/* ---------------------------------------------------------------- tests */

START_TEST(test_constants_and_generators)
{
    nnc_fq2 b2, xi, three;
    nnc_fq b;
    nnc_g1 g1, p1;
    nnc_g2 g2, p2;
    char buf[NNC_PRV_DEC_BUFSIZE];
    /* b = 3, b2 * (9 + u) = 3 */
    nnc_g1_set_b(&b);
    nnc_prv_fq_serialize_dec(buf, sizeof buf, &b);
    ck_assert_str_eq(buf, "3");
    nnc_g2_set_b(&b2);
    nnc_fq_set_u64(&xi.c0, 9);
    nnc_fq_set_one(&xi.c1);
    nnc_fq2_mul(&b2, &b2, &xi);
    nnc_fq_set_u64(&three.c0, 3);
    nnc_fq_set_zero(&three.c1);
    ck_assert(nnc_fq2_eq(&b2, &three));
    /* generators: (1, 2), and G2 as snarkjs writes it */
    nnc_g1_generator(&g1);
    nnc_prv_fq_serialize_dec(buf, sizeof buf, &g1.x);
    ck_assert_str_eq(buf, "1");
    nnc_prv_fq_serialize_dec(buf, sizeof buf, &g1.y);
    ck_assert_str_eq(buf, "2");
    nnc_prv_g1_generator(&p1);
    ck_assert(nnc_prv_g1_eq(&p1, &g1));
    nnc_g2_generator(&g2);
    parse_g2(&p2, G2_GEN);
    ck_assert(nnc_g2_aff_eq(&p2, &g2));
    nnc_prv_g2_generator(&p2);
    ck_assert(nnc_prv_g2_eq(&p2, &g2));
    ck_assert(nnc_g1_aff_is_on_curve(&g1) && nnc_prv_g1_is_on_curve(&g1) && nnc_prv_g1_is_valid(&g1));
    ck_assert(nnc_g2_aff_is_on_curve(&g2) && nnc_prv_g2_is_on_curve(&g2) && nnc_prv_g2_is_valid(&g2));
    /* infinity encodings */
    nnc_g1_aff_set_inf(&p1);
    ck_assert(nnc_prv_g1_is_valid(&p1) && nnc_g1_aff_is_inf(&p1));
    nnc_g2_aff_set_inf(&p2);
    ck_assert(nnc_prv_g2_is_valid(&p2) && nnc_g2_aff_is_inf(&p2));
}
END_TEST

START_TEST(test_order)
{
    const uint64_t r[4] = NNC_FR_MODULUS_INIT;
    uint64_t rm1[4], rp1[4];
    nnc_g1 g1, t1, n1;
    nnc_g2 g2, t2, n2;
    nnc_g1_jac j1;
    nnc_g2_jac j2;
    memcpy(rm1, r, 32);
    rm1[0] -= 1;
    memcpy(rp1, r, 32);
    rp1[0] += 1;
    nnc_g1_generator(&g1);
    nnc_g2_generator(&g2);
    nnc_g1_aff_to_jac(&j1, &g1);
    nnc_g2_aff_to_jac(&j2, &g2);
    /* [r]G = O with both multiplications */
    {
        nnc_g1_jac o;
        nnc_g1_jac_mul(&o, &j1, r);
        ck_assert(nnc_g1_jac_is_inf(&o));
        nnc_g1_jac_mul_var(&o, &j1, r);
        ck_assert(nnc_g1_jac_is_inf(&o));
        ck_assert(nnc_g1_jac_in_subgroup_var(&j1));
        /* [r-1]G = -G, [r+1]G = G */
        nnc_g1_jac_mul(&o, &j1, rm1);
        nnc_g1_jac_to_aff(&t1, &o);
        nnc_g1_aff_neg(&n1, &g1);
        ck_assert(nnc_g1_aff_eq(&t1, &n1));
        nnc_g1_jac_mul_var(&o, &j1, rp1);
        nnc_g1_jac_to_aff_var(&t1, &o);
        ck_assert(nnc_g1_aff_eq(&t1, &g1));
    }
    {
        nnc_g2_jac o;
        nnc_g2_jac_mul(&o, &j2, r);
        ck_assert(nnc_g2_jac_is_inf(&o));
        nnc_g2_jac_mul_var(&o, &j2, r);
        ck_assert(nnc_g2_jac_is_inf(&o));
        ck_assert(nnc_g2_jac_in_subgroup_var(&j2));
        nnc_g2_jac_mul(&o, &j2, rm1);
        nnc_g2_jac_to_aff(&t2, &o);
        nnc_g2_aff_neg(&n2, &g2);
        ck_assert(nnc_g2_aff_eq(&t2, &n2));
        nnc_g2_jac_mul_var(&o, &j2, rp1);
        nnc_g2_jac_to_aff_var(&t2, &o);
        ck_assert(nnc_g2_aff_eq(&t2, &g2));
    }
}
END_TEST

START_TEST(test_known_vectors)
{
    nnc_g1 g1, want1, got1;
    nnc_g2 g2, want2, got2;
    nnc_fr k;
    nnc_g1_jac j1;
    nnc_g2_jac j2;
    char err[NNC_ERRBUF_SIZE];
    nnc_g1_generator(&g1);
    nnc_g2_generator(&g2);
    /* 2*G1 (the vector) by doubling, by addition, by multiplication */
    parse_g1(&want1, G1_2);
    nnc_g1_aff_to_jac(&j1, &g1);
    nnc_g1_jac_dbl(&j1, &j1);
    nnc_g1_jac_to_aff(&got1, &j1);
    ck_assert(nnc_g1_aff_eq(&got1, &want1));
    nnc_prv_g1_add(&got1, &g1, &g1);
    ck_assert(nnc_prv_g1_eq(&got1, &want1));
    nnc_fr_set_u64(&k, 2);
    nnc_prv_g1_mul(&got1, &g1, &k);
    ck_assert(nnc_prv_g1_eq(&got1, &want1));
    /* 3*G1 = 2G + G */
    parse_g1(&want1, G1_3);
    nnc_prv_g1_add(&got1, &got1, &g1);
    ck_assert(nnc_prv_g1_eq(&got1, &want1));
    nnc_fr_set_u64(&k, 3);
    nnc_prv_g1_mul_var(&got1, &g1, &k);
    ck_assert(nnc_prv_g1_eq(&got1, &want1));
    /* k*G1 */
    ck_assert_int_eq(nnc_prv_fr_parse_dec(&k, KNOWN_K, 0, err, sizeof err), NNC_STATUS_OK);
    parse_g1(&want1, G1_K);
    nnc_prv_g1_mul(&got1, &g1, &k);
    ck_assert(nnc_prv_g1_eq(&got1, &want1));
    nnc_prv_g1_mul_var(&got1, &g1, &k);
    ck_assert(nnc_prv_g1_eq(&got1, &want1));
    /* 2*G2, k*G2 */
    parse_g2(&want2, G2_2);
    nnc_prv_g2_add(&got2, &g2, &g2);
    ck_assert(nnc_prv_g2_eq(&got2, &want2));
    nnc_g2_aff_to_jac(&j2, &g2);
    nnc_g2_jac_dbl(&j2, &j2);
    nnc_g2_jac_to_aff_var(&got2, &j2);
    ck_assert(nnc_prv_g2_eq(&got2, &want2));
    parse_g2(&want2, G2_K);
    nnc_prv_g2_mul(&got2, &g2, &k);
    ck_assert(nnc_prv_g2_eq(&got2, &want2));
    nnc_prv_g2_mul_var(&got2, &g2, &k);
    ck_assert(nnc_prv_g2_eq(&got2, &want2));
}
END_TEST

/* The group law on G1 and G2, written once over a macro (G = group prefix). */
#define GROUP_LAW_TEST(G, N)                                                                     \
    {                                                                                            \
        rng r = rng_for(100 + N);                                                                \
        G gen, a_aff, b_aff, inf_aff, t_aff;                                                     \
        G##_jac g, a, b, s1, s2, s3, inf, na;                                                    \
        int i;                                                                                   \
        G##_generator(&gen);                                                                     \
        G##_aff_to_jac(&g, &gen);                                                                \
        G##_jac_set_inf(&inf);                                                                   \
        G##_aff_set_inf(&inf_aff);                                                               \
        for (i = 0; i < ITER; i++) {                                                             \
            nnc_fr ka, kb, kab;                                                                  \
            uint64_t ea[4], eb[4], eab[4];                                                       \
            rand_fr(&ka, &r);                                                                    \
            rand_fr(&kb, &r);                                                                    \
            if (i == 0) nnc_fr_set_zero(&ka);                                                    \
            if (i == 1) kb = ka;                                                                 \
            if (i == 2) nnc_fr_neg(&kb, &ka);                                                    \
            fr_int(ea, &ka);                                                                     \
            fr_int(eb, &kb);                                                                     \
            nnc_fr_add(&kab, &ka, &kb);                                                          \
            fr_int(eab, &kab);                                                                   \
            /* [a]G + [b]G == [a+b]G, constant-time and wNAF agree */                            \
            G##_jac_mul(&a, &g, ea);                                                             \
            G##_jac_mul_var(&s1, &g, ea);                                                        \
            CHECK(G##_jac_eq(&a, &s1));                                                          \
            G##_jac_mul_var(&b, &g, eb);                                                         \
            CHECK(G##_jac_is_on_curve(&a) && G##_jac_is_on_curve(&b));                           \
            G##_jac_add(&s1, &a, &b);                                                            \
            G##_jac_mul_var(&s2, &g, eab);                                                       \
            CHECK(G##_jac_eq(&s1, &s2));                                                         \
            G##_jac_add_var(&s3, &a, &b);                                                        \
            CHECK(G##_jac_eq(&s3, &s2));                                                         \
            /* commutativity; random Jacobian representations */                                 \
            G##_rescale(&a, &r);                                                                 \
            G##_rescale(&b, &r);                                                                 \
            G##_jac_add(&s3, &b, &a);                                                            \
            CHECK(G##_jac_eq(&s3, &s2));                                                         \
            /* mixed addition == full addition (both flavours) */                                \
            G##_jac_to_aff(&b_aff, &b);                                                          \
            G##_jac_to_aff_var(&t_aff, &b);                                                      \
            CHECK(G##_aff_eq(&b_aff, &t_aff));                                                   \
            CHECK(G##_aff_is_on_curve(&b_aff));                                                  \
            G##_jac_add_aff(&s3, &a, &b_aff);                                                    \
            CHECK(G##_jac_eq(&s3, &s2));                                                         \
            G##_jac_add_aff_var(&s3, &a, &b_aff);                                                \
            CHECK(G##_jac_eq(&s3, &s2));                                                         \
            /* doubling == adding to itself, in every form */                                    \
            G##_jac_to_aff(&a_aff, &a);                                                          \
            G##_jac_dbl(&s1, &a);                                                                \
            G##_jac_add(&s2, &a, &a);                                                            \
            CHECK(G##_jac_eq(&s1, &s2));                                                         \
            G##_jac_add_var(&s2, &a, &a);                                                        \
            CHECK(G##_jac_eq(&s1, &s2));                                                         \
            G##_jac_add_aff(&s2, &a, &a_aff);                                                    \
            CHECK(G##_jac_eq(&s1, &s2));                                                         \
            G##_jac_add_aff_var(&s2, &a, &a_aff);                                                \
            CHECK(G##_jac_eq(&s1, &s2));                                                         \
            /* a + (-a) = O; O + a = a + O = a */                                                \
            G##_jac_neg(&na, &a);                                                                \
            G##_jac_add(&s1, &a, &na);                                                           \
            CHECK(G##_jac_is_inf(&s1));                                                          \
            G##_jac_add_var(&s1, &na, &a);                                                       \
            CHECK(G##_jac_is_inf(&s1));                                                          \
            G##_aff_neg(&t_aff, &a_aff);                                                         \
            G##_jac_add_aff(&s1, &a, &t_aff);                                                    \
            CHECK(G##_jac_is_inf(&s1));                                                          \
            G##_jac_add_aff_var(&s1, &a, &t_aff);                                                \
            CHECK(G##_jac_is_inf(&s1));                                                          \
            G##_jac_add(&s1, &inf, &a);                                                          \
            CHECK(G##_jac_eq(&s1, &a));                                                          \
            G##_jac_add(&s1, &a, &inf);                                                          \
            CHECK(G##_jac_eq(&s1, &a));                                                          \
            G##_jac_add_var(&s1, &inf, &a);                                                      \
            CHECK(G##_jac_eq(&s1, &a));                                                          \
            G##_jac_add_aff(&s1, &a, &inf_aff);                                                  \
            CHECK(G##_jac_eq(&s1, &a));                                                          \
            G##_jac_add_aff(&s1, &inf, &a_aff);                                                  \
            CHECK(G##_jac_eq(&s1, &a));                                                          \
            G##_jac_add_aff_var(&s1, &inf, &a_aff);                                              \
            CHECK(G##_jac_eq(&s1, &a));                                                          \
            /* Jacobian vs affine: to_jac(to_aff(a)) == a, equality is by point */               \
            G##_aff_to_jac(&s1, &a_aff);                                                         \
            CHECK(G##_jac_eq(&s1, &a));                                                          \
            CHECK(G##_jac_is_inf(&a) == G##_aff_is_inf(&a_aff));                                 \
            CHECK(G##_jac_eq(&a, &b) == G##_aff_eq(&a_aff, &b_aff));                             \
            /* [a]([b]G) == [ab]G, sometimes */                                                  \
            if (i % 8 == 0) {                                                                    \
                nnc_fr_mul(&kab, &ka, &kb);                                                      \
                fr_int(eab, &kab);                                                               \
                G##_jac_mul(&s1, &b, ea);                                                        \
                G##_jac_mul_var(&s2, &g, eab);                                                   \
                CHECK(G##_jac_eq(&s1, &s2));                                                     \
            }                                                                                    \
        }                                                                                        \
        /* infinity: doubling, multiplication, conversion */                                    \
        G##_jac_dbl(&s1, &inf);                                                                  \
        CHECK(G##_jac_is_inf(&s1));                                                              \
        G##_jac_add(&s1, &inf, &inf);                                                            \
        CHECK(G##_jac_is_inf(&s1));                                                              \
        {                                                                                        \
            const uint64_t k7[4] = {7, 0, 0, 0};                                                 \
            G##_jac_mul(&s1, &inf, k7);                                                          \
            CHECK(G##_jac_is_inf(&s1));                                                          \
            G##_jac_mul_var(&s1, &inf, k7);                                                      \
            CHECK(G##_jac_is_inf(&s1));                                                          \
        }                                                                                        \
        G##_jac_to_aff(&t_aff, &inf);                                                            \
        CHECK(G##_aff_is_inf(&t_aff));                                                           \
        G##_aff_to_jac(&s1, &inf_aff);                                                           \
        CHECK(G##_jac_is_inf(&s1));                                                              \
        CHECK(G##_jac_eq(&s1, &inf) && !G##_jac_eq(&s1, &g));                                    \
    }

#define ITER 200
START_TEST(test_group_law_g1) GROUP_LAW_TEST(nnc_g1, 1)
END_TEST
#undef ITER
#define ITER 60
START_TEST(test_group_law_g2) GROUP_LAW_TEST(nnc_g2, 2)
END_TEST
#undef ITER

/* Edge scalars: 0, 1, 2, 15, 16, 17, 31, 32, 33, r-1, r, r+1, 2^255,
 * 2^256-1, all-ones limbs; ct and wNAF agree with repeated addition or with
 * reduction mod r. */
START_TEST(test_edge_scalars)
{
    const uint64_t rr[4] = NNC_FR_MODULUS_INIT;
    uint64_t ks[16][4];
    int n = 0, i, j;
    nnc_g1 gen1;
    nnc_g2 gen2;
    nnc_g1_jac g1, a1, b1;
    nnc_g2_jac g2, a2, b2;
    mpz_t k, r;
    mpz_inits(k, r, NULL);
    mpz_import(r, 4, -1, 8, 0, 0, rr);
    {
        static const uint64_t small[] = {0, 1, 2, 15, 16, 17, 31, 32, 33};
        for (i = 0; i < 9; i++) {
            memset(ks[n], 0, 32);
            ks[n++][0] = small[i];
        }
    }
    memcpy(ks[n], rr, 32); ks[n++][0] -= 1;
    memcpy(ks[n++], rr, 32);
    memcpy(ks[n], rr, 32); ks[n++][0] += 1;
    memset(ks[n], 0, 32); ks[n++][3] = 1ULL << 63;
    memset(ks[n++], 0xff, 32);
    memset(ks[n], 0, 32); ks[n][1] = ~0ULL; ks[n++][2] = ~0ULL;
    nnc_g1_generator(&gen1);
    nnc_g2_generator(&gen2);
    nnc_g1_aff_to_jac(&g1, &gen1);
    nnc_g2_aff_to_jac(&g2, &gen2);
    for (i = 0; i < n; i++) {
        uint64_t red[4];
        size_t cnt;
        mpz_import(k, 4, -1, 8, 0, 0, ks[i]);
        mpz_mod(k, k, r);
        memset(red, 0, 32);
        mpz_export(red, &cnt, -1, 8, 0, 0, k);
        nnc_g1_jac_mul(&a1, &g1, ks[i]);
        nnc_g1_jac_mul_var(&b1, &g1, ks[i]);
        CHECK(nnc_g1_jac_eq(&a1, &b1));
        nnc_g1_jac_mul_var(&b1, &g1, red);
        CHECK(nnc_g1_jac_eq(&a1, &b1));
        nnc_g2_jac_mul(&a2, &g2, ks[i]);
        nnc_g2_jac_mul_var(&b2, &g2, ks[i]);
        CHECK(nnc_g2_jac_eq(&a2, &b2));
        nnc_g2_jac_mul_var(&b2, &g2, red);
        CHECK(nnc_g2_jac_eq(&a2, &b2));
        if (ks[i][1] == 0 && ks[i][2] == 0 && ks[i][3] == 0) { /* small: repeated addition */
            nnc_g1_jac_set_inf(&b1);
            nnc_g2_jac_set_inf(&b2);
            for (j = 0; j < (int)ks[i][0]; j++) {
                nnc_g1_jac_add_aff_var(&b1, &b1, &gen1);
                nnc_g2_jac_add_aff_var(&b2, &b2, &gen2);
            }
            CHECK(nnc_g1_jac_eq(&a1, &b1));
            CHECK(nnc_g2_jac_eq(&a2, &b2));
        }
    }
    mpz_clears(k, r, NULL);
}
END_TEST

/* Points on the twist outside G2 (the cofactor is not 1), points off the
 * curves, coordinates out of range: all refused. */
START_TEST(test_validity_and_subgroup)
{
    rng r = rng_for(300);
    char err[NNC_ERRBUF_SIZE];
    char bx0[NNC_PRV_DEC_BUFSIZE], bx1[NNC_PRV_DEC_BUFSIZE], by0[NNC_PRV_DEC_BUFSIZE],
        by1[NNC_PRV_DEC_BUFSIZE];
    int found = 0, tries = 0;
    nnc_g1 p1, q1;
    nnc_g2 p2, q2;
    nnc_g2_jac j2;
    nnc_fr k;
    /* random points of E'(Fq2): x random, y = sqrt(x^3 + b2) */
    while (found < 5 && tries < 200) {
        nnc_fq2 rhs, b;
        tries++;
        rng_fq2_uniform(&p2.x, &r);
        nnc_fq2_sqr(&rhs, &p2.x);
        nnc_fq2_mul(&rhs, &rhs, &p2.x);
        nnc_g2_set_b(&b);
        nnc_fq2_add(&rhs, &rhs, &b);
        if (!nnc_fq2_sqrt(&p2.y, &rhs))
            continue;
        found++;
        CHECK(nnc_g2_aff_is_on_curve(&p2));
        CHECK(nnc_prv_g2_is_on_curve(&p2));
        CHECK(!nnc_prv_g2_is_valid(&p2));
        nnc_g2_aff_to_jac(&j2, &p2);
        CHECK(!nnc_g2_jac_in_subgroup_var(&j2));
        nnc_prv_fq_serialize_dec(bx0, sizeof bx0, &p2.x.c0);
        nnc_prv_fq_serialize_dec(bx1, sizeof bx1, &p2.x.c1);
        nnc_prv_fq_serialize_dec(by0, sizeof by0, &p2.y.c0);
        nnc_prv_fq_serialize_dec(by1, sizeof by1, &p2.y.c1);
        q2 = p2;
        CHECK_EQ(nnc_prv_g2_parse_dec(&q2, bx0, bx1, by0, by1, err, sizeof err), NNC_STATUS_INVALID);
        CHECK(strstr(err, "subgroup") != NULL);
        CHECK(nnc_g2_aff_eq(&q2, &p2)); /* unchanged */
        /* y + 1 is off the twist */
        {
            nnc_fq one;
            nnc_fq_set_one(&one);
            nnc_fq_add(&p2.y.c0, &p2.y.c0, &one);
            CHECK(!nnc_prv_g2_is_on_curve(&p2) && !nnc_prv_g2_is_valid(&p2));
            nnc_prv_fq_serialize_dec(by0, sizeof by0, &p2.y.c0);
            CHECK_EQ(nnc_prv_g2_parse_dec(&q2, bx0, bx1, by0, by1, err, sizeof err), NNC_STATUS_INVALID);
            CHECK(strstr(err, "not on the twist") != NULL);
        }
    }
    CHECK(found == 5);
    /* multiples of the generator are valid and parse back */
    for (int i = 0; i < 5; i++) {
        nnc_g1 gen1;
        nnc_g2 gen2;
        char x[NNC_PRV_DEC_BUFSIZE], y[NNC_PRV_DEC_BUFSIZE];
        rand_fr(&k, &r);
        nnc_prv_g1_generator(&gen1);
        nnc_prv_g2_generator(&gen2);
        nnc_prv_g1_mul(&p1, &gen1, &k);
        nnc_prv_g2_mul_var(&p2, &gen2, &k);
        CHECK(nnc_prv_g1_is_valid(&p1) && nnc_prv_g2_is_valid(&p2));
        nnc_prv_fq_serialize_dec(x, sizeof x, &p1.x);
        nnc_prv_fq_serialize_dec(y, sizeof y, &p1.y);
        CHECK_EQ(nnc_prv_g1_parse_dec(&q1, x, y, err, sizeof err), NNC_STATUS_OK);
        CHECK(nnc_prv_g1_eq(&p1, &q1));
        nnc_prv_fq_serialize_dec(bx0, sizeof bx0, &p2.x.c0);
        nnc_prv_fq_serialize_dec(bx1, sizeof bx1, &p2.x.c1);
        nnc_prv_fq_serialize_dec(by0, sizeof by0, &p2.y.c0);
        nnc_prv_fq_serialize_dec(by1, sizeof by1, &p2.y.c1);
        CHECK_EQ(nnc_prv_g2_parse_dec(&q2, bx0, bx1, by0, by1, err, sizeof err), NNC_STATUS_OK);
        CHECK(nnc_prv_g2_eq(&p2, &q2));
        /* negation and public add */
        nnc_prv_g1_neg(&q1, &p1);
        nnc_prv_g1_add(&q1, &q1, &p1);
        CHECK(nnc_g1_aff_is_inf(&q1));
        nnc_prv_g2_neg(&q2, &p2);
        nnc_prv_g2_add(&q2, &p2, &q2);
        CHECK(nnc_g2_aff_is_inf(&q2));
    }
    /* G1: off-curve, out-of-range, malformed */
    nnc_prv_g1_generator(&p1);
    q1 = p1;
    CHECK_EQ(nnc_prv_g1_parse_dec(&q1, "1", "3", err, sizeof err), NNC_STATUS_INVALID);
    CHECK(nnc_prv_g1_eq(&q1, &p1));
    CHECK_EQ(nnc_prv_g1_parse_dec(&q1, "0", "1", err, sizeof err), NNC_STATUS_INVALID);
    CHECK_EQ(nnc_prv_g1_parse_dec(&q1, FQ_DEC, "2", err, sizeof err), NNC_STATUS_INVALID);
    CHECK_EQ(nnc_prv_g1_parse_dec(&q1, "1", "two", err, sizeof err), NNC_STATUS_PARSE);
    CHECK_EQ(nnc_prv_g1_parse_dec(&q1, "0", "0", err, sizeof err), NNC_STATUS_OK);
    CHECK(nnc_g1_aff_is_inf(&q1));
    /* (x, y) with y^2 = x^3 + 3 but written with x + p is refused, not reduced */
    CHECK_EQ(nnc_prv_g1_parse_dec(&q1, "21888242871839275222246405745257275088696311157297823662689037894645226208584", "2",
                                  err, sizeof err), NNC_STATUS_INVALID);
    CHECK_EQ(nnc_prv_g2_parse_dec(&q2, "0", "0", "0", "0", err, sizeof err), NNC_STATUS_OK);
    CHECK(nnc_g2_aff_is_inf(&q2));
    /* G1 has cofactor 1: any solution of y^2 = x^3 + 3 is in the group */
    for (found = 0, tries = 0; found < 5 && tries < 200; tries++) {
        const uint64_t rr[4] = NNC_FR_MODULUS_INIT;
        nnc_fq rhs, b;
        nnc_g1_jac j1;
        rng_fq_uniform(&p1.x, &r);
        nnc_fq_sqr(&rhs, &p1.x);
        nnc_fq_mul(&rhs, &rhs, &p1.x);
        nnc_g1_set_b(&b);
        nnc_fq_add(&rhs, &rhs, &b);
        if (!nnc_fq_sqrt(&p1.y, &rhs))
            continue;
        found++;
        CHECK(nnc_prv_g1_is_valid(&p1));
        nnc_g1_aff_to_jac(&j1, &p1);
        nnc_g1_jac_mul_var(&j1, &j1, rr);
        CHECK(nnc_g1_jac_is_inf(&j1));
        rand_fr(&k, &r);
        nnc_prv_g1_mul(&q1, &p1, &k);
        nnc_prv_g1_mul_var(&p1, &p1, &k);
        CHECK(nnc_prv_g1_eq(&p1, &q1));
    }
    CHECK(found == 5);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prover_curve");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_constants_and_generators);
    tcase_add_test(tc, test_order);
    tcase_add_test(tc, test_known_vectors);
    tcase_add_test(tc, test_group_law_g1);
    tcase_add_test(tc, test_group_law_g2);
    tcase_add_test(tc, test_edge_scalars);
    tcase_add_test(tc, test_validity_and_subgroup);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_main("test_prover_curve", suite);
}
