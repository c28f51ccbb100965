/* The phase-2 ceremony's randomness and records (prover/mpc.c): the ChaCha
 * stream and hashToG2 against vectors computed with snarkjs 0.7.6's own
 * libraries (ffjavascript 0.3.1: ChaCha, G2.fromRng; @noble/hashes blake2b),
 * and the contributions-section reader on well-formed and malformed
 * sections.  Byte-for-byte interop of whole keys (setup, beacon) and the
 * cross-verification of chains with snarkjs are in tests/e2e/ceremony.sh. */
#include "nncert/prover.h"

#include <check.h>
#include <sodium.h>
#include <string.h>

#include "tests/unit/prover_test_util.h"

static void unhex(unsigned char *out, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1);
        out[i] = (unsigned char)v;
    }
}

/* snarkjs's "uncompressed" encoding of a G2 point: x.c1 x.c0 y.c1 y.c0,
 * canonical, big-endian. */
static void g2_u(unsigned char out[128], const nnc_prv_g2 *p)
{
    nnc_prv_fq_serialize_b32(out, &p->x.c1, NNC_PRV_ENDIAN_BIG);
    nnc_prv_fq_serialize_b32(out + 32, &p->x.c0, NNC_PRV_ENDIAN_BIG);
    nnc_prv_fq_serialize_b32(out + 64, &p->y.c1, NNC_PRV_ENDIAN_BIG);
    nnc_prv_fq_serialize_b32(out + 96, &p->y.c0, NNC_PRV_ENDIAN_BIG);
}

START_TEST(test_chacha_vector)
{
    /* seed words 1..8 (big-endian bytes) */
    static const uint32_t want[20] = {0x8891120d, 0xa1d7fd60, 0x546a15d9, 0xf896cad8, 0x12976914, 0x7cf5a49d, 0x9ec2376e,
                                      0xafb55bc1, 0x45ce27df, 0xf262b106, 0x5f4bfe50, 0x4f55bc97, 0xfed515ad, 0x8f1f349c,
                                      0xed0e540e, 0x6c57863b, 0xee8cb87d, 0x987b993a, 0x888d6c84, 0xd273c55a};
    unsigned char seed[32] = {0};
    uint32_t got[20];
    for (int i = 0; i < 8; i++) seed[4 * i + 3] = (unsigned char)(i + 1);
    nnc_prv_mpc_chacha_words(got, 20, seed);
    for (int i = 0; i < 20; i++) CHECK_EQ(got[i], want[i]);
}
END_TEST

START_TEST(test_hash_to_g2_vectors)
{
    unsigned char h[64], u[128], want[128];
    nnc_prv_g2 p;
    /* hashToG2(BLAKE2b-512("abc")) */
    crypto_generichash(h, 64, (const unsigned char *)"abc", 3, NULL, 0);
    unhex(want, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1", 32);
    CHECK(memcmp(h, want, 32) == 0);
    nnc_prv_mpc_hash_to_g2(&p, h);
    CHECK(nnc_prv_g2_is_valid(&p));
    g2_u(u, &p);
    unhex(want,
          "226e4d8402f7b67d877f046fe49c2c37ea91d56d37cbdbd4c921828e27fcfca40db96695d6d790fa79499e1b9b004a120ff056de244d9"
          "fe1b1df0fe284eb9c36150862ec99f094ed6af5ac3158022bd7d2bd68a32cc11c945482a59c317327b5240f5e9d8d554224ad9cb7b1974"
          "74bb4ff6421381517939dbf43dc9fb7fa1999",
          128);
    CHECK(memcmp(u, want, 128) == 0);
    /* G2.fromRng(ChaCha(seed 0)) */
    memset(h, 0, sizeof h);
    nnc_prv_mpc_hash_to_g2(&p, h);
    CHECK(nnc_prv_g2_is_valid(&p));
    g2_u(u, &p);
    unhex(want,
          "016da982561548ef17438fc5f16af2d06348e246801233dd863f85b937a4222700144b14ebc33ed4f1073eb8fbf150648e59b395a0eed9"
          "487bf24562f4b287240791424b86388b676df73f8d5ffa9de420358cdeda710a5d964cb92ce42cd590043450a9c3c386c5224786dee534"
          "23d7747da0de49d80575539d8dcc2d8213ef",
          128);
    CHECK(memcmp(u, want, 128) == 0);
}
END_TEST

/* The file form of a coordinate: its Montgomery limbs, little-endian. */
static void put_lem(unsigned char *out, const nnc_prv_fq *a)
{
    for (int i = 0; i < 32; i++) out[i] = (unsigned char)(a->v[i / 8] >> (8 * (i % 8)));
}

/* A section 10 with one record (generator points, type 0) and params. */
static size_t section(unsigned char *b, const unsigned char *params, uint32_t plen, uint32_t count)
{
    nnc_prv_g1 g1;
    nnc_prv_g2 g2;
    nnc_prv_g1_generator(&g1);
    nnc_prv_g2_generator(&g2);
    memset(b, 0x5a, 64);
    for (int i = 0; i < 4; i++) b[64 + i] = (unsigned char)(count >> (8 * i));
    unsigned char *r = b + 68;
    for (int k = 0; k < 3; k++, r += 64) {
        put_lem(r, &g1.x);
        put_lem(r + 32, &g1.y);
    }
    put_lem(r, &g2.x.c0);
    put_lem(r + 32, &g2.x.c1);
    put_lem(r + 64, &g2.y.c0);
    put_lem(r + 96, &g2.y.c1);
    r += 128;
    memset(r, 0x11, 64);
    r += 64;
    memset(r, 0, 4);
    for (int i = 0; i < 4; i++) r[4 + i] = (unsigned char)(plen >> (8 * i));
    r += 8;
    memcpy(r, params, plen);
    return (size_t)(r + plen - b);
}

static nnc_status parse(const unsigned char *b, size_t len, nnc_prv_mpc *m)
{
    nnc_prv_zkey z;
    char err[256];
    memset(&z, 0, sizeof z);
    z.contributions = (unsigned char *)b;
    z.contributions_len = len;
    return nnc_prv_mpc_parse(m, &z, err, sizeof err);
}

START_TEST(test_contributions_section)
{
    unsigned char b[1024];
    nnc_prv_mpc m;
    static const unsigned char named[] = {1, 5, 'A', 'l', 'i', 'c', 'e'};
    size_t n = section(b, named, sizeof named, 1);
    CHECK_EQ(parse(b, n, &m), NNC_STATUS_OK);
    CHECK_EQ(m.n, 1);
    CHECK(strcmp(m.c[0].name, "Alice") == 0);
    CHECK_EQ(m.c[0].raw_off, 68);
    CHECK_EQ(m.c[0].raw_len, n - 68);
    nnc_prv_mpc_clear(&m);
    /* a beacon's params: name, exponent, hash */
    static const unsigned char beacon[] = {1, 1, 'B', 2, 12, 3, 2, 0xab, 0xcd};
    n = section(b, beacon, sizeof beacon, 1);
    CHECK_EQ(parse(b, n, &m), NNC_STATUS_OK);
    CHECK_EQ(m.c[0].num_iter_exp, 12);
    CHECK_EQ(m.c[0].beacon_len, 2);
    CHECK_EQ(m.c[0].beacon_hash[1], 0xcd);
    nnc_prv_mpc_clear(&m);
    /* refused: params out of order, an unknown param, a length past the end,
     * a truncated record, bytes after the records, a count the bytes cannot hold */
    static const unsigned char order[] = {2, 12, 1, 1, 'B'}, unknown[] = {4, 0}, past[] = {1, 9, 'A'};
    n = section(b, order, sizeof order, 1);
    CHECK_EQ(parse(b, n, &m), NNC_STATUS_PARSE);
    n = section(b, unknown, sizeof unknown, 1);
    CHECK_EQ(parse(b, n, &m), NNC_STATUS_PARSE);
    n = section(b, past, sizeof past, 1);
    CHECK_EQ(parse(b, n, &m), NNC_STATUS_PARSE);
    n = section(b, named, sizeof named, 1);
    CHECK_EQ(parse(b, n - 1, &m), NNC_STATUS_PARSE);
    CHECK_EQ(parse(b, n - 300, &m), NNC_STATUS_PARSE);
    b[n] = 0;
    CHECK_EQ(parse(b, n + 1, &m), NNC_STATUS_PARSE);
    n = section(b, named, sizeof named, 1000000);
    CHECK_EQ(parse(b, n, &m), NNC_STATUS_PARSE);
    CHECK_EQ(parse(b, 67, &m), NNC_STATUS_PARSE);
    CHECK(m.c == NULL && m.n == 0);
    /* a point off the curve */
    n = section(b, named, sizeof named, 1);
    b[68 + 70] ^= 1;
    CHECK_EQ(parse(b, n, &m), NNC_STATUS_INVALID);
    /* no section at all */
    CHECK_EQ(parse(NULL, 0, &m), NNC_STATUS_PARSE);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prover_mpc");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_chacha_vector);
    tcase_add_test(tc, test_hash_to_g2_vectors);
    tcase_add_test(tc, test_contributions_section);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return harness_main("test_prover_mpc", suite); }
