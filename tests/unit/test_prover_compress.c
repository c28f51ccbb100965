/* Compressed G1/G2 points (prover/compress.c, prover/compress_impl.h):
 *   - snarkjs layout against tests/vectors/compress_vectors.h, written by
 *     ffjavascript 0.3.1 itself (tests/vectors/gen_compress_vectors.js):
 *     [k]G for pairs k, r-k (both signs of y), infinity, and raw (x, y)
 *     pairs at the edges of the sign rule;
 *   - arkworks layout against the vectors published in aptos-core's
 *     bn254_algebra.move (produced there by ark-bn254 0.4 through the Move
 *     natives: generator, [7]G, -[7]G, infinity for G1 and G2), and against
 *     the byte-reversed snarkjs vectors (arkworks = reverse(snarkjs), which
 *     follows from the two libraries' sources and which the published
 *     vectors confirm);
 *   - round trips on random points, both formats, P and -P;
 *   - rejection of x >= p, x not on the curve, points outside the G2
 *     subgroup, and every flag combination the writers never produce;
 *   - random byte strings: whatever decodes compresses back to the same bytes.
 *
 * Random inputs come from a seed printed at start; NNC_TEST_SEED=<n>
 * replays a run. */
#include "prover/compress_impl.h"
#include "prover/curve_impl.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/vectors/compress_vectors.h"

#include "tests/unit/prover_test_util.h"

static void unhex(unsigned char *out, const char *hex, size_t n)
{
    size_t i;
    ck_assert_uint_eq(strlen(hex), 2 * n);
    for (i = 0; i < n; i++) {
        unsigned v;
        ck_assert(sscanf(hex + 2 * i, "%2x", &v) == 1);
        out[i] = (unsigned char)v;
    }
}
static void reverse(unsigned char *out, const unsigned char *in, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        out[i] = in[n - 1 - i];
}
static void fq_dec(nnc_fq *a, const char *s)
{
    char err[NNC_ERRBUF_SIZE] = "";
    ck_assert_msg(nnc_prv_fq_parse_dec(a, s, 0, err, sizeof err) == NNC_STATUS_OK, "%s", err);
}
static void fr_dec(nnc_fr *a, const char *s)
{
    char err[NNC_ERRBUF_SIZE] = "";
    ck_assert_msg(nnc_prv_fr_parse_dec(a, s, 0, err, sizeof err) == NNC_STATUS_OK, "%s", err);
}
/* one line, not empty */
static int one_line(const char *err) { return err[0] != '\0' && strchr(err, '\n') == NULL; }

static const nnc_prv_compress_fmt FMTS[2] = {NNC_PRV_COMPRESS_SNARKJS, NNC_PRV_COMPRESS_ARKWORKS};

/* ---------------------------------------------------------------- snarkjs vectors */

START_TEST(test_snarkjs_vectors_g1)
{
    size_t i, n = sizeof NNC_CV_G1 / sizeof NNC_CV_G1[0];
    int seen_flag = 0, seen_noflag = 0, seen_inf = 0;
    for (i = 0; i < n; i++) {
        const nnc_cv_g1 *v = &NNC_CV_G1[i];
        unsigned char want[32], ark[32], got[32];
        nnc_g1 p, q, g;
        nnc_fr k;
        char err[NNC_ERRBUF_SIZE] = "";
        unhex(want, v->comp, 32);
        reverse(ark, want, 32);
        fq_dec(&p.x, v->x);
        fq_dec(&p.y, v->y);
        /* the vector is [k]G by our own arithmetic too */
        fr_dec(&k, v->k);
        nnc_prv_g1_generator(&g);
        nnc_prv_g1_mul_var(&q, &g, &k);
        CHECK_MSG(nnc_prv_g1_eq(&q, &p), "G1 vector %zu is not [k]G", i);

        nnc_prv_g1_compress(got, &p, NNC_PRV_COMPRESS_SNARKJS);
        CHECK_MSG(memcmp(got, want, 32) == 0, "G1 vector %zu: snarkjs bytes differ", i);
        nnc_prv_g1_compress(got, &p, NNC_PRV_COMPRESS_ARKWORKS);
        CHECK_MSG(memcmp(got, ark, 32) == 0, "G1 vector %zu: arkworks bytes differ", i);
        CHECK_MSG(nnc_prv_g1_decompress(&q, want, NNC_PRV_COMPRESS_SNARKJS, err, sizeof err) == NNC_STATUS_OK,
                  "G1 vector %zu: %s", i, err);
        CHECK(nnc_prv_g1_eq(&q, &p));
        CHECK_MSG(nnc_prv_g1_decompress(&q, ark, NNC_PRV_COMPRESS_ARKWORKS, err, sizeof err) == NNC_STATUS_OK,
                  "G1 vector %zu: %s", i, err);
        CHECK(nnc_prv_g1_eq(&q, &p));
        seen_inf |= want[0] == 0x40;
        seen_flag |= want[0] & 0x80;
        seen_noflag |= !(want[0] & 0xc0);
    }
    CHECK(seen_inf && seen_flag && seen_noflag);
}
END_TEST

START_TEST(test_snarkjs_vectors_g2)
{
    size_t i, n = sizeof NNC_CV_G2 / sizeof NNC_CV_G2[0];
    int seen_flag = 0, seen_noflag = 0, seen_inf = 0;
    for (i = 0; i < n; i++) {
        const nnc_cv_g2 *v = &NNC_CV_G2[i];
        unsigned char want[64], ark[64], got[64];
        nnc_g2 p, q, g;
        nnc_fr k;
        char err[NNC_ERRBUF_SIZE] = "";
        unhex(want, v->comp, 64);
        reverse(ark, want, 64);
        fq_dec(&p.x.c0, v->x0);
        fq_dec(&p.x.c1, v->x1);
        fq_dec(&p.y.c0, v->y0);
        fq_dec(&p.y.c1, v->y1);
        fr_dec(&k, v->k);
        nnc_prv_g2_generator(&g);
        nnc_prv_g2_mul_var(&q, &g, &k);
        CHECK_MSG(nnc_prv_g2_eq(&q, &p), "G2 vector %zu is not [k]G", i);

        nnc_prv_g2_compress(got, &p, NNC_PRV_COMPRESS_SNARKJS);
        CHECK_MSG(memcmp(got, want, 64) == 0, "G2 vector %zu: snarkjs bytes differ", i);
        nnc_prv_g2_compress(got, &p, NNC_PRV_COMPRESS_ARKWORKS);
        CHECK_MSG(memcmp(got, ark, 64) == 0, "G2 vector %zu: arkworks bytes differ", i);
        CHECK_MSG(nnc_prv_g2_decompress(&q, want, NNC_PRV_COMPRESS_SNARKJS, err, sizeof err) == NNC_STATUS_OK,
                  "G2 vector %zu: %s", i, err);
        CHECK(nnc_prv_g2_eq(&q, &p));
        CHECK_MSG(nnc_prv_g2_decompress(&q, ark, NNC_PRV_COMPRESS_ARKWORKS, err, sizeof err) == NNC_STATUS_OK,
                  "G2 vector %zu: %s", i, err);
        CHECK(nnc_prv_g2_eq(&q, &p));
        seen_inf |= want[0] == 0x40;
        seen_flag |= want[0] & 0x80;
        seen_noflag |= !(want[0] & 0xc0);
    }
    CHECK(seen_inf && seen_flag && seen_noflag);
}
END_TEST

/* Raw (x, y) pairs: the sign rule at y = (p-1)/2, (p+1)/2, y = 0, and the
 * Fq2 branch y.c1 = 0, as ffjavascript applies it. */
START_TEST(test_snarkjs_sign_rule)
{
    size_t i;
    int flags1 = 0, flags2 = 0;
    for (i = 0; i < sizeof NNC_CV_G1_RAW / sizeof NNC_CV_G1_RAW[0]; i++) {
        const nnc_cv_g1 *v = &NNC_CV_G1_RAW[i];
        unsigned char want[32], got[32], ark[32];
        nnc_g1 p;
        unhex(want, v->comp, 32);
        fq_dec(&p.x, v->x);
        fq_dec(&p.y, v->y);
        nnc_prv_g1_compress(got, &p, NNC_PRV_COMPRESS_SNARKJS);
        CHECK_MSG(memcmp(got, want, 32) == 0, "G1 raw %zu: bytes differ", i);
        nnc_prv_g1_compress(got, &p, NNC_PRV_COMPRESS_ARKWORKS);
        reverse(ark, want, 32);
        CHECK(memcmp(got, ark, 32) == 0);
        flags1 |= 1 << (want[0] >> 7);
    }
    for (i = 0; i < sizeof NNC_CV_G2_RAW / sizeof NNC_CV_G2_RAW[0]; i++) {
        const nnc_cv_g2 *v = &NNC_CV_G2_RAW[i];
        unsigned char want[64], got[64], ark[64];
        nnc_g2 p;
        unhex(want, v->comp, 64);
        fq_dec(&p.x.c0, v->x0);
        fq_dec(&p.x.c1, v->x1);
        fq_dec(&p.y.c0, v->y0);
        fq_dec(&p.y.c1, v->y1);
        nnc_prv_g2_compress(got, &p, NNC_PRV_COMPRESS_SNARKJS);
        CHECK_MSG(memcmp(got, want, 64) == 0, "G2 raw %zu: bytes differ", i);
        nnc_prv_g2_compress(got, &p, NNC_PRV_COMPRESS_ARKWORKS);
        reverse(ark, want, 64);
        CHECK(memcmp(got, ark, 64) == 0);
        flags2 |= 1 << (want[0] >> 7);
    }
    CHECK(flags1 == 3 && flags2 == 3); /* both flag values occur */
}
END_TEST

/* ---------------------------------------------------------------- arkworks vectors */

/* aptos-labs/aptos-core, aptos-move/framework/aptos-stdlib/sources/cryptography/
 * bn254_algebra.move (FormatG1Compr / FormatG2Compr, "other implementation(s)
 * using this format: ark-bn254-0.4.0"), test constants G1_INF_SERIALIZED_COMP,
 * G1_GENERATOR_SERIALIZED_COMP, G1_GENERATOR_MUL_BY_7_SERIALIZED_COMP,
 * G1_GENERATOR_MUL_BY_7_NEG_SERIALIZED_COMP and the same for G2. */
static const char ARK_G1_INF[] = "0000000000000000000000000000000000000000000000000000000000000040";
static const char ARK_G1_GEN[] = "0100000000000000000000000000000000000000000000000000000000000000";
static const char ARK_G1_7[] = "78e0ffab866b3a9876bd01b8ecc66fcb86936277f425539a758dbbd32e2b0717";
static const char ARK_G1_M7[] = "78e0ffab866b3a9876bd01b8ecc66fcb86936277f425539a758dbbd32e2b0797";
static const char ARK_G2_INF[] =
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000040";
static const char ARK_G2_GEN[] =
    "edf692d95cbdde46ddda5ef7d422436779445c5e66006a42761e1f12efde0018"
    "c212f3aeb785e49712e7a9353349aaf1255dfb31b7bf60723a480d9293938e19";
static const char ARK_G2_7[] =
    "08b328aa2a1490c3892ae375ba53a257162f1cde012e70edf8fc27435ddc4b22"
    "55243646bade3e596dee466e51d40fbe631e55841e085d6ae2bd9a5a01ba0329";
static const char ARK_G2_M7[] =
    "08b328aa2a1490c3892ae375ba53a257162f1cde012e70edf8fc27435ddc4b22"
    "55243646bade3e596dee466e51d40fbe631e55841e085d6ae2bd9a5a01ba03a9";

START_TEST(test_arkworks_published)
{
    const char *g1hex[4] = {ARK_G1_INF, ARK_G1_GEN, ARK_G1_7, ARK_G1_M7};
    const char *g2hex[4] = {ARK_G2_INF, ARK_G2_GEN, ARK_G2_7, ARK_G2_M7};
    nnc_g1 g1, p1[4], q1;
    nnc_g2 g2, p2[4], q2;
    nnc_fr seven;
    char err[NNC_ERRBUF_SIZE] = "";
    int i;
    nnc_prv_g1_generator(&g1);
    nnc_prv_g2_generator(&g2);
    nnc_fr_set_u64(&seven, 7);
    nnc_g1_aff_set_inf(&p1[0]);
    p1[1] = g1;
    nnc_prv_g1_mul(&p1[2], &g1, &seven);
    nnc_prv_g1_neg(&p1[3], &p1[2]);
    nnc_g2_aff_set_inf(&p2[0]);
    p2[1] = g2;
    nnc_prv_g2_mul(&p2[2], &g2, &seven);
    nnc_prv_g2_neg(&p2[3], &p2[2]);
    for (i = 0; i < 4; i++) {
        unsigned char w1[32], w2[64], o1[32], o2[64];
        unhex(w1, g1hex[i], 32);
        unhex(w2, g2hex[i], 64);
        nnc_prv_g1_compress(o1, &p1[i], NNC_PRV_COMPRESS_ARKWORKS);
        nnc_prv_g2_compress(o2, &p2[i], NNC_PRV_COMPRESS_ARKWORKS);
        CHECK_MSG(memcmp(o1, w1, 32) == 0, "arkworks G1 vector %d differs", i);
        CHECK_MSG(memcmp(o2, w2, 64) == 0, "arkworks G2 vector %d differs", i);
        CHECK_MSG(nnc_prv_g1_decompress(&q1, w1, NNC_PRV_COMPRESS_ARKWORKS, err, sizeof err) == NNC_STATUS_OK,
                  "%s", err);
        CHECK(nnc_prv_g1_eq(&q1, &p1[i]));
        CHECK_MSG(nnc_prv_g2_decompress(&q2, w2, NNC_PRV_COMPRESS_ARKWORKS, err, sizeof err) == NNC_STATUS_OK,
                  "%s", err);
        CHECK(nnc_prv_g2_eq(&q2, &p2[i]));
    }
}
END_TEST

/* ---------------------------------------------------------------- round trips */

START_TEST(test_round_trip_random)
{
    rng r = rng_for(1);
    nnc_g1 g1;
    nnc_g2 g2;
    int i, f, neg;
    nnc_prv_g1_generator(&g1);
    nnc_prv_g2_generator(&g2);
    for (i = 0; i < 64; i++) {
        nnc_fr k;
        nnc_g1 p[2], q;
        nnc_g2 P[2], Q;
        unsigned char b1[2][2][32], b2[2][2][64], t1[32], t2[64];
        char err[NNC_ERRBUF_SIZE] = "";
        rng_fr_uniform(&k, &r);
        nnc_prv_g1_mul_var(&p[0], &g1, &k);
        nnc_prv_g1_neg(&p[1], &p[0]);
        if (i < 24) { /* G2 is slower: fewer */
            nnc_prv_g2_mul_var(&P[0], &g2, &k);
            nnc_prv_g2_neg(&P[1], &P[0]);
        }
        for (neg = 0; neg < 2; neg++) {
            for (f = 0; f < 2; f++) {
                nnc_prv_g1_compress(b1[neg][f], &p[neg], FMTS[f]);
                CHECK_MSG(nnc_prv_g1_decompress(&q, b1[neg][f], FMTS[f], err, sizeof err) == NNC_STATUS_OK,
                          "%s (seed %llu)", err, (unsigned long long)g_seed);
                CHECK(nnc_prv_g1_eq(&q, &p[neg]));
                if (i < 24) {
                    nnc_prv_g2_compress(b2[neg][f], &P[neg], FMTS[f]);
                    CHECK_MSG(nnc_prv_g2_decompress(&Q, b2[neg][f], FMTS[f], err, sizeof err) ==
                                  NNC_STATUS_OK,
                              "%s (seed %llu)", err, (unsigned long long)g_seed);
                    CHECK(nnc_prv_g2_eq(&Q, &P[neg]));
                }
            }
            /* arkworks = snarkjs reversed */
            reverse(t1, b1[neg][0], 32);
            CHECK(memcmp(t1, b1[neg][1], 32) == 0);
            if (i < 24) {
                reverse(t2, b2[neg][0], 64);
                CHECK(memcmp(t2, b2[neg][1], 64) == 0);
            }
        }
        /* P and -P: same x, opposite sign flag */
        CHECK((b1[0][0][0] ^ b1[1][0][0]) == 0x80 && memcmp(b1[0][0] + 1, b1[1][0] + 1, 31) == 0);
        if (i < 24)
            CHECK((b2[0][0][0] ^ b2[1][0][0]) == 0x80 && memcmp(b2[0][0] + 1, b2[1][0] + 1, 63) == 0);
    }
}
END_TEST

/* ---------------------------------------------------------------- rejection */

/* decompress must fail with INVALID, one line of err, *out unchanged */
#define EXPECT_BAD1(bytes, fmt, needle)                                                        \
    do {                                                                                       \
        nnc_g1 o_;                                                                             \
        char e_[NNC_ERRBUF_SIZE] = "";                                                         \
        memset(&o_, 0xa5, sizeof o_);                                                          \
        CHECK(nnc_prv_g1_decompress(&o_, (bytes), (fmt), e_, sizeof e_) == NNC_STATUS_INVALID); \
        CHECK_MSG(one_line(e_) && strstr(e_, (needle)) != NULL, "line %d: \"%s\"", __LINE__, e_); \
        CHECK(o_.x.v[0] == 0xa5a5a5a5a5a5a5a5ULL && o_.y.v[3] == 0xa5a5a5a5a5a5a5a5ULL);       \
    } while (0)
#define EXPECT_BAD2(bytes, fmt, needle)                                                        \
    do {                                                                                       \
        nnc_g2 o_;                                                                             \
        char e_[NNC_ERRBUF_SIZE] = "";                                                         \
        memset(&o_, 0xa5, sizeof o_);                                                          \
        CHECK(nnc_prv_g2_decompress(&o_, (bytes), (fmt), e_, sizeof e_) == NNC_STATUS_INVALID); \
        CHECK_MSG(one_line(e_) && strstr(e_, (needle)) != NULL, "line %d: \"%s\"", __LINE__, e_); \
        CHECK(o_.x.c0.v[0] == 0xa5a5a5a5a5a5a5a5ULL && o_.y.c1.v[3] == 0xa5a5a5a5a5a5a5a5ULL); \
    } while (0)

/* p, big-endian */
static const char P_HEX[] = "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47";

/* in[n] in snarkjs layout -> the same value in format fmt */
static void to_fmt(unsigned char *out, const unsigned char *be, size_t n, nnc_prv_compress_fmt fmt)
{
    if (fmt == NNC_PRV_COMPRESS_ARKWORKS)
        reverse(out, be, n);
    else
        memcpy(out, be, n);
}

START_TEST(test_reject_g1)
{
    unsigned char pbe[32], be[32], b[32];
    int f, flag;
    unhex(pbe, P_HEX, 32);
    for (f = 0; f < 2; f++) {
        nnc_prv_compress_fmt fmt = FMTS[f];
        for (flag = 0; flag < 2; flag++) {
            unsigned fl = flag ? 0x80 : 0;
            /* x = p, p + 1, 2^254 - 1 */
            memcpy(be, pbe, 32);
            be[0] |= (unsigned char)fl;
            to_fmt(b, be, 32, fmt);
            EXPECT_BAD1(b, fmt, "not below the field modulus");
            be[31]++;
            to_fmt(b, be, 32, fmt);
            EXPECT_BAD1(b, fmt, "not below the field modulus");
            memset(be, 0xff, 32);
            be[0] = (unsigned char)(0x3f | fl);
            to_fmt(b, be, 32, fmt);
            EXPECT_BAD1(b, fmt, "not below the field modulus");
        }
        /* flags: 0xC0 with zeros; 0x40 with a nonzero x; 0xC0 on a real point */
        memset(be, 0, 32);
        be[0] = 0xc0;
        to_fmt(b, be, 32, fmt);
        EXPECT_BAD1(b, fmt, "infinity flag together with the sign flag");
        memset(be, 0, 32);
        be[0] = 0x40;
        be[31] = 1;
        to_fmt(b, be, 32, fmt);
        EXPECT_BAD1(b, fmt, "infinity flag with a nonzero x");
        memset(be, 0, 32);
        be[0] = 0x41;
        to_fmt(b, be, 32, fmt);
        EXPECT_BAD1(b, fmt, "infinity flag with a nonzero x");
        memset(be, 0, 32);
        be[0] = 0xc0;
        be[31] = 1; /* x = 1, the generator's */
        to_fmt(b, be, 32, fmt);
        EXPECT_BAD1(b, fmt, "infinity flag together with the sign flag");
    }
    /* x with x^3 + 3 not a square: find the first few and check them */
    {
        int found = 0;
        uint64_t xi;
        for (xi = 1; found < 5 && xi < 1000; xi++) {
            nnc_fq x, rhs, three;
            unsigned char w[32];
            nnc_fq_set_u64(&x, xi);
            nnc_fq_sqr(&rhs, &x);
            nnc_fq_mul(&rhs, &rhs, &x);
            nnc_fq_set_u64(&three, 3);
            nnc_fq_add(&rhs, &rhs, &three);
            nnc_fq_get_b32(be, &x, NNC_PRV_ENDIAN_BIG);
            if (nnc_fq_is_square(&rhs)) {
                nnc_g1 q;
                CHECK(nnc_prv_g1_decompress(&q, be, NNC_PRV_COMPRESS_SNARKJS, NULL, 0) == NNC_STATUS_OK);
                nnc_prv_g1_compress(w, &q, NNC_PRV_COMPRESS_SNARKJS);
                CHECK(memcmp(w, be, 32) == 0 && nnc_prv_g1_is_valid(&q));
                continue;
            }
            found++;
            for (f = 0; f < 2; f++) {
                for (flag = 0; flag < 2; flag++) {
                    memcpy(w, be, 32);
                    w[0] |= (unsigned char)(flag ? 0x80 : 0);
                    to_fmt(b, w, 32, FMTS[f]);
                    EXPECT_BAD1(b, FMTS[f], "not a square");
                }
            }
        }
        CHECK(found == 5);
    }
}
END_TEST

START_TEST(test_reject_g2)
{
    unsigned char pbe[32], be[64], b[64];
    nnc_g2 g;
    int f, flag;
    unhex(pbe, P_HEX, 32);
    nnc_prv_g2_generator(&g);
    for (f = 0; f < 2; f++) {
        nnc_prv_compress_fmt fmt = FMTS[f];
        for (flag = 0; flag < 2; flag++) {
            unsigned fl = flag ? 0x80 : 0;
            /* a valid encoding with x.c1 or x.c0 replaced by p */
            nnc_prv_g2_compress(be, &g, NNC_PRV_COMPRESS_SNARKJS);
            memcpy(be, pbe, 32);
            be[0] |= (unsigned char)fl;
            to_fmt(b, be, 64, fmt);
            EXPECT_BAD2(b, fmt, "x.c1 not below the field modulus");
            nnc_prv_g2_compress(be, &g, NNC_PRV_COMPRESS_SNARKJS);
            memcpy(be + 32, pbe, 32);
            to_fmt(b, be, 64, fmt);
            EXPECT_BAD2(b, fmt, "x.c0 not below the field modulus");
            memset(be, 0xff, 64);
            be[0] = (unsigned char)(0x3f | fl);
            to_fmt(b, be, 64, fmt);
            EXPECT_BAD2(b, fmt, "x.c1 not below the field modulus");
        }
        memset(be, 0, 64);
        be[0] = 0xc0;
        to_fmt(b, be, 64, fmt);
        EXPECT_BAD2(b, fmt, "infinity flag together with the sign flag");
        memset(be, 0, 64);
        be[0] = 0x40;
        be[63] = 1;
        to_fmt(b, be, 64, fmt);
        EXPECT_BAD2(b, fmt, "infinity flag with a nonzero x");
        memset(be, 0, 64);
        be[0] = 0x40;
        be[20] = 0x80;
        to_fmt(b, be, 64, fmt);
        EXPECT_BAD2(b, fmt, "infinity flag with a nonzero x");
        nnc_prv_g2_compress(be, &g, NNC_PRV_COMPRESS_SNARKJS);
        be[0] |= 0x40;
        to_fmt(b, be, 64, fmt);
        EXPECT_BAD2(b, fmt, "infinity flag");
    }
    /* x = (k, 1): some have x^3 + b2 non-square, the others give twist
     * points that are not in the order-r subgroup (the cofactor is ~2^254) */
    {
        int nonsq = 0, notsub = 0;
        uint64_t k;
        for (k = 0; k < 40 && (nonsq < 3 || notsub < 3); k++) {
            nnc_g2 q;
            nnc_fq2 rhs, b2;
            nnc_fq_set_u64(&q.x.c0, k);
            nnc_fq_set_u64(&q.x.c1, 1);
            nnc_fq2_sqr(&rhs, &q.x);
            nnc_fq2_mul(&rhs, &rhs, &q.x);
            nnc_g2_set_b(&b2);
            nnc_fq2_add(&rhs, &rhs, &b2);
            if (!nnc_fq2_sqrt(&q.y, &rhs)) {
                nonsq++;
                for (f = 0; f < 2; f++) {
                    nnc_fq2_set_one(&q.y); /* compress looks at x and the sign of y only */
                    nnc_prv_g2_compress(b, &q, FMTS[f]);
                    EXPECT_BAD2(b, FMTS[f], "not a square");
                }
                continue;
            }
            CHECK(nnc_prv_g2_is_on_curve(&q) && !nnc_prv_g2_is_valid(&q));
            notsub++;
            for (f = 0; f < 2; f++) {
                nnc_g2 nq;
                nnc_prv_g2_compress(b, &q, FMTS[f]);
                EXPECT_BAD2(b, FMTS[f], "not in the order-r subgroup");
                nnc_prv_g2_neg(&nq, &q);
                nnc_prv_g2_compress(b, &nq, FMTS[f]);
                EXPECT_BAD2(b, FMTS[f], "not in the order-r subgroup");
            }
        }
        CHECK(nonsq >= 3 && notsub >= 3);
    }
}
END_TEST

/* Every flag value on a valid x and on x = 0; err may be NULL; an unknown
 * format is refused. */
START_TEST(test_flags_and_args)
{
    nnc_g1 g, ng, q;
    nnc_g2 g2, ng2, q2;
    unsigned char be[32], be2[64], b[64];
    nnc_fq three, s;
    int f, fl;
    char err[8];
    nnc_prv_g1_generator(&g);
    nnc_prv_g1_neg(&ng, &g);
    nnc_prv_g2_generator(&g2);
    nnc_prv_g2_neg(&ng2, &g2);
    for (f = 0; f < 2; f++) {
        for (fl = 0; fl < 4; fl++) {
            nnc_prv_g1_compress(be, &g, NNC_PRV_COMPRESS_SNARKJS);
            be[0] = (unsigned char)((be[0] & 0x3f) | (fl << 6));
            to_fmt(b, be, 32, FMTS[f]);
            if (fl == 0 || fl == 2) {
                CHECK(nnc_prv_g1_decompress(&q, b, FMTS[f], NULL, 0) == NNC_STATUS_OK);
                CHECK(nnc_prv_g1_eq(&q, fl == 0 ? &g : &ng));
            } else {
                CHECK(nnc_prv_g1_decompress(&q, b, FMTS[f], NULL, 0) == NNC_STATUS_INVALID);
            }
            nnc_prv_g2_compress(be2, &g2, NNC_PRV_COMPRESS_SNARKJS);
            be2[0] = (unsigned char)((be2[0] & 0x3f) | (fl << 6));
            to_fmt(b, be2, 64, FMTS[f]);
            if (fl == 0 || fl == 2) {
                CHECK(nnc_prv_g2_decompress(&q2, b, FMTS[f], NULL, 0) == NNC_STATUS_OK);
                CHECK(nnc_prv_g2_eq(&q2, fl == 0 ? &g2 : &ng2));
            } else {
                CHECK(nnc_prv_g2_decompress(&q2, b, FMTS[f], NULL, 0) == NNC_STATUS_INVALID);
            }
        }
    }
    /* x = 0 without the infinity flag: the point (0, +-sqrt 3) when 3 is a
     * square mod p, otherwise no point; never infinity */
    nnc_fq_set_u64(&three, 3);
    memset(be, 0, 32);
    for (fl = 0; fl < 2; fl++) {
        nnc_status st;
        be[0] = (unsigned char)(fl << 7);
        st = nnc_prv_g1_decompress(&q, be, NNC_PRV_COMPRESS_SNARKJS, NULL, 0);
        if (nnc_fq_sqrt(&s, &three)) {
            unsigned char w[32];
            CHECK(st == NNC_STATUS_OK && nnc_fq_is_zero(&q.x) && !nnc_g1_aff_is_inf(&q));
            nnc_prv_g1_compress(w, &q, NNC_PRV_COMPRESS_SNARKJS);
            CHECK(memcmp(w, be, 32) == 0);
        } else {
            CHECK(st == NNC_STATUS_INVALID);
        }
    }
    /* a short err buffer is filled and terminated */
    memset(err, 'x', sizeof err);
    memset(be, 0, 32);
    be[0] = 0xc0;
    CHECK(nnc_prv_g1_decompress(&q, be, NNC_PRV_COMPRESS_SNARKJS, err, sizeof err) == NNC_STATUS_INVALID);
    CHECK(memchr(err, '\0', sizeof err) != NULL);
    /* unknown format */
    CHECK(nnc_prv_g1_decompress(&q, be, (nnc_prv_compress_fmt)7, NULL, 0) == NNC_STATUS_ARG);
    CHECK(nnc_prv_g2_decompress(&q2, be2, (nnc_prv_compress_fmt)7, NULL, 0) == NNC_STATUS_ARG);
    nnc_prv_g1_compress(be, &g, (nnc_prv_compress_fmt)7);
    nnc_prv_g2_compress(be2, &g2, (nnc_prv_compress_fmt)7);
    for (f = 0; f < 64; f++)
        CHECK(be2[f] == 0xff && be[f % 32] == 0xff);
}
END_TEST

/* Random bytes: whatever decodes is a valid point and compresses back to
 * exactly the input (one encoding per point).  Bytes are drawn with the top
 * byte small often enough that x < p is common. */
START_TEST(test_random_bytes_canonical)
{
    rng r = rng_for(2);
    int i, j, f, ok1 = 0, ok2 = 0;
    for (i = 0; i < 3000; i++) {
        unsigned char in[64], w[64];
        nnc_g1 q;
        nnc_g2 q2;
        for (j = 0; j < 64; j++)
            in[j] = (unsigned char)rng_next(&r);
        f = (int)(rng_next(&r) & 1);
        /* snarkjs layout first; make byte 0's low bits small half the time */
        if (rng_next(&r) & 1)
            in[0] = (unsigned char)((in[0] & 0xc0) | (in[0] & 0x1f));
        if ((rng_next(&r) & 7) == 0)
            in[0] &= 0x3f; /* flags clear more often */
        to_fmt(w, in, 32, (nnc_prv_compress_fmt)f);
        if (nnc_prv_g1_decompress(&q, w, FMTS[f], NULL, 0) == NNC_STATUS_OK) {
            unsigned char back[32];
            ok1++;
            CHECK(nnc_prv_g1_is_valid(&q));
            nnc_prv_g1_compress(back, &q, FMTS[f]);
            CHECK(memcmp(back, w, 32) == 0);
        }
        if (i < 300) {
            to_fmt(w, in, 64, (nnc_prv_compress_fmt)f);
            if (nnc_prv_g2_decompress(&q2, w, FMTS[f], NULL, 0) == NNC_STATUS_OK) {
                unsigned char back[64];
                ok2++;
                nnc_prv_g2_compress(back, &q2, FMTS[f]);
                CHECK(memcmp(back, w, 64) == 0);
            }
        }
    }
    CHECK(ok1 > 300); /* about a quarter decode */
    (void)ok2;        /* random G2 x is almost never in the subgroup */
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prover_compress");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_snarkjs_vectors_g1);
    tcase_add_test(tc, test_snarkjs_vectors_g2);
    tcase_add_test(tc, test_snarkjs_sign_rule);
    tcase_add_test(tc, test_arkworks_published);
    tcase_add_test(tc, test_round_trip_random);
    tcase_add_test(tc, test_reject_g1);
    tcase_add_test(tc, test_reject_g2);
    tcase_add_test(tc, test_flags_and_args);
    tcase_add_test(tc, test_random_bytes_canonical);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return harness_main("test_prover_compress", suite); }
