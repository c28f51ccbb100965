/* circom/snarkjs file formats (prover/formats_impl.h).
 *
 * Standalone part (always runs): files built with our writers from
 * hand-made objects round-trip, and hand-crafted malformed files (truncated,
 * wrong magic/version/prime/protocol, huge declared counts, values out of
 * range, points off the curve or outside the subgroup, bad JSON) get the
 * right status and a one-line message; random mutations never crash.
 *
 * Interop part (needs tests/peers: npm ci --prefix tests/peers, which pins
 * snarkjs and circom2): main() compiles a small circuit with circom2 and runs
 * snarkjs once (wtns calculate, powers of tau 2^6, groth16 setup, prove,
 * zkey export verificationkey, r1cs info) in a temporary folder.  The tests
 * then check that our readers parse every file, that the counts agree with
 * snarkjs r1cs info, that the witness satisfies the R1CS, that the zkey
 * coefficients are the r1cs's A and B, that our writers reproduce every file
 * byte for byte (r1cs, wtns, zkey, proof, public, verification key computed
 * from the zkey), and that snarkjs accepts files we write (r1cs info,
 * wtns check, groth16 setup/prove on a hand-made R1CS, export verificationkey
 * on a rewritten zkey, groth16 verify with our verification key).
 * Without the tools the standalone part runs and the program exits 77.
 *
 * Env: NNC_PEERS_BIN (default tests/peers/node_modules/.bin), NNC_TEST_SEED,
 * NNC_TEST_KEEP=1 keeps the temporary folder. */
#include "prover/formats_impl.h"
#include "prover/curve_impl.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prover_test_util.h"

static char g_dir[256];   /* temporary folder with the snarkjs files, "" when none */
static char g_bin[1024];  /* absolute path of node_modules/.bin */

/* st must be `want` with a nonempty one-line message in err */
#define CHECK_ST(st, want, err)                                                                  \
    do {                                                                                         \
        nnc_status s_ = (st);                                                                    \
        if (s_ != (want))                                                                        \
            ck_abort_msg("%s:%d: status %d (%s), want %d; message: %s", __FILE__, __LINE__,      \
                         (int)s_, nnc_status_string(s_), (int)(want), err);                      \
        if (s_ != NNC_STATUS_OK && ((err)[0] == '\0' || strchr((err), '\n') != NULL))            \
            ck_abort_msg("%s:%d: message not one line: \"%s\"", __FILE__, __LINE__, err);        \
    } while (0)

/* ---------------------------------------------------------------- helpers */

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b;
    long n;
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc(n > 0 ? (size_t)n + 1 : 1);
    *len = fread(b, 1, (size_t)n, f);
    b[*len] = 0;
    fclose(f);
    return b;
}

static char *path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
    return buf;
}

/* Runs a shell command in g_dir; returns its exit status (-1 if killed). */
static int sh(const char *fmt, ...)
{
    char cmd[8192];
    int n, rc;
    va_list ap;
    n = snprintf(cmd, sizeof cmd, "cd '%s' || exit 1; B='%s'; ", g_dir, g_bin);
    va_start(ap, fmt);
    vsnprintf(cmd + n, sizeof cmd - (size_t)n, fmt, ap);
    va_end(ap);
    rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Both files exist and have the same bytes. */
static int same_file(const char *a, const char *b)
{
    size_t la, lb;
    unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
    int same = x != NULL && y != NULL && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

/* "# of Wires: 7" in snarkjs r1cs info output (ANSI colours skipped). */
static long info_count(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (p == NULL)
        return -1;
    p += strlen(key);
    while (*p == ' ' || *p == ':')
        p++;
    return strtol(p, NULL, 10);
}

static void fr_u64(nnc_prv_fr *a, int64_t v)
{
    nnc_fr_set_u64(a, (uint64_t)(v < 0 ? -v : v));
    if (v < 0)
        nnc_fr_neg(a, a);
}

/* Offsets of the first section of a type in a binfileutils image. */
static int find_section(const unsigned char *b, size_t len, uint32_t type, size_t *off, uint64_t *size)
{
    nnc_prv_rd r = {b, len, 8};
    uint32_t ns, i, t;
    uint64_t s;
    if (!nnc_prv_rd_u32(&r, &ns))
        return 0;
    for (i = 0; i < ns; i++) {
        if (!nnc_prv_rd_u32(&r, &t) || !nnc_prv_rd_u64(&r, &s))
            return 0;
        if (t == type) {
            *off = r.pos;
            *size = s;
            return 1;
        }
        r.pos += (size_t)s;
    }
    return 0;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static void put_u64(unsigned char *p, uint64_t v)
{
    put_u32(p, (uint32_t)v);
    put_u32(p + 4, (uint32_t)(v >> 32));
}

/* ---------------------------------------------------------------- hand-made objects */

/* Wires: 0 one, 1 out (public output), 2 x (public input), 3 y (private), 4 t.
 *   x * y = t;  (t + 5x - 2) * (y - 1) = out;  0 * x = 0 (empty A and C). */
static void hand_r1cs(nnc_prv_r1cs *r)
{
    static const struct { uint32_t wire; int64_t c; } t[] = {
        {2, 1}, {3, 1}, {4, 1},                       /* c0: A, B, C */
        {4, 1}, {2, 5}, {0, -2}, {3, 1}, {0, -1}, {1, 1}, /* c1 */
        {2, 1},                                       /* c2: B */
    };
    static const uint64_t start[10] = {0, 1, 2, 3, 6, 8, 9, 9, 10, 10};
    size_t i;
    memset(r, 0, sizeof *r);
    r->n_wires = 5;
    r->n_pub_out = 1;
    r->n_pub_in = 1;
    r->n_prv_in = 1;
    r->n_labels = 5;
    r->n_constraints = 3;
    r->n_terms = sizeof t / sizeof t[0];
    r->lc_start = malloc(sizeof start);
    memcpy(r->lc_start, start, sizeof start);
    r->terms = malloc(r->n_terms * sizeof *r->terms);
    r->wire_label = malloc(5 * sizeof *r->wire_label);
    for (i = 0; i < 5; i++)
        r->wire_label[i] = i;
    for (i = 0; i < r->n_terms; i++) {
        r->terms[i].wire = t[i].wire;
        fr_u64(&r->terms[i].coef, t[i].c);
    }
}

/* x = 6, y = 7: t = 42, out = (42 + 30 - 2) * 6 = 420. */
static void hand_wtns(nnc_prv_fr_vec *w)
{
    static const int64_t v[5] = {1, 420, 6, 7, 42};
    size_t i;
    w->n = 5;
    w->v = malloc(5 * sizeof *w->v);
    for (i = 0; i < 5; i++)
        fr_u64(&w->v[i], v[i]);
}

static void g1_k(nnc_prv_g1 *p, int64_t k)
{
    nnc_prv_g1 g;
    nnc_prv_fr s;
    nnc_prv_g1_generator(&g);
    fr_u64(&s, k);
    if (k == 0)
        memset(p, 0, sizeof *p);
    else
        nnc_prv_g1_mul_var(p, &g, &s);
}

static void g2_k(nnc_prv_g2 *p, int64_t k)
{
    nnc_prv_g2 g;
    nnc_prv_fr s;
    nnc_prv_g2_generator(&g);
    fr_u64(&s, k);
    if (k == 0)
        memset(p, 0, sizeof *p);
    else
        nnc_prv_g2_mul_var(p, &g, &s);
}

/* A structurally valid Groth16 key (points are multiples of the generators,
 * not a real setup): 5 wires, 2 public, domain 8, some points at infinity. */
static void hand_zkey(nnc_prv_zkey *z)
{
    uint32_t i;
    memset(z, 0, sizeof *z);
    z->n_vars = 5;
    z->n_public = 2;
    z->domain_size = 8;
    g1_k(&z->alpha1, 2);
    g1_k(&z->beta1, 3);
    g2_k(&z->beta2, 3);
    g2_k(&z->gamma2, 1);
    g1_k(&z->delta1, 7);
    g2_k(&z->delta2, 7);
    z->ic = malloc(3 * sizeof *z->ic);
    z->a = malloc(5 * sizeof *z->a);
    z->b1 = malloc(5 * sizeof *z->b1);
    z->b2 = malloc(5 * sizeof *z->b2);
    z->c = malloc(2 * sizeof *z->c);
    z->h = malloc(8 * sizeof *z->h);
    for (i = 0; i < 3; i++)
        g1_k(&z->ic[i], 11 + i);
    for (i = 0; i < 5; i++) {
        g1_k(&z->a[i], i == 3 ? 0 : 20 + i);
        g1_k(&z->b1[i], i == 1 ? 0 : 30 + i);
        g2_k(&z->b2[i], i == 1 ? 0 : 40 + i);
    }
    g1_k(&z->c[0], -50);
    g1_k(&z->c[1], 51);
    for (i = 0; i < 8; i++)
        g1_k(&z->h[i], 60 + i);
    z->n_coefs = 4;
    z->coefs = malloc(4 * sizeof *z->coefs);
    for (i = 0; i < 4; i++) {
        z->coefs[i].matrix = i & 1;
        z->coefs[i].constraint = i;
        z->coefs[i].signal = 4 - i;
        fr_u64(&z->coefs[i].value, i == 2 ? -3 : (int64_t)i + 1);
    }
    z->contributions_len = 68;
    z->contributions = calloc(1, 68);
    z->contributions[0] = 0xab;
}

/* serialize into a new buffer (size query first), NUL-terminated */
typedef nnc_status (*ser_fn)(unsigned char *, size_t *, const void *);
static unsigned char *ser(ser_fn f, const void *obj, size_t *len)
{
    unsigned char *b;
    size_t n = 0;
    CHECK_EQ(f(NULL, &n, obj), NNC_STATUS_LIMIT);
    CHECK(n > 0);
    b = malloc(n + 1); /* NUL after the bytes, for strstr on JSON */
    b[n] = 0;
    *len = n - 1;
    CHECK_EQ(f(b, len, obj), NNC_STATUS_LIMIT); /* one byte short */
    CHECK_EQ(*len, n);
    CHECK_EQ(f(b, len, obj), NNC_STATUS_OK);
    CHECK_EQ(*len, n);
    return b;
}
static nnc_status ser_r1cs(unsigned char *o, size_t *l, const void *x) { return nnc_prv_r1cs_serialize(o, l, x); }
static nnc_status ser_wtns(unsigned char *o, size_t *l, const void *x) { return nnc_prv_wtns_serialize(o, l, x); }
static nnc_status ser_zkey(unsigned char *o, size_t *l, const void *x) { return nnc_prv_zkey_serialize(o, l, x); }
static nnc_status ser_proof(unsigned char *o, size_t *l, const void *x)
{
    return nnc_prv_g16_proof_serialize_json((char *)o, l, x);
}
static nnc_status ser_public(unsigned char *o, size_t *l, const void *x)
{
    return nnc_prv_public_serialize_json((char *)o, l, x);
}
static nnc_status ser_vk(unsigned char *o, size_t *l, const void *x) { return nnc_prv_g16_vk_serialize_json((char *)o, l, x); }

static int g1_eq(const nnc_prv_g1 *a, const nnc_prv_g1 *b) { return memcmp(a, b, sizeof *a) == 0; }
static int g2_eq(const nnc_prv_g2 *a, const nnc_prv_g2 *b) { return memcmp(a, b, sizeof *a) == 0; }

/* ---------------------------------------------------------------- standalone tests */

START_TEST(test_roundtrip_handmade)
{
    nnc_prv_r1cs r, r2;
    nnc_prv_fr_vec w, w2;
    nnc_prv_zkey z, z2;
    char err[NNC_ERRBUF_SIZE] = "";
    unsigned char *b, *b2;
    size_t n, n2;
    uint32_t bad;

    hand_r1cs(&r);
    hand_wtns(&w);
    CHECK_ST(nnc_prv_r1cs_check_witness(&bad, &r, w.v, w.n, err, sizeof err), NNC_STATUS_OK, err);
    fr_u64(&w.v[1], 421);
    CHECK_ST(nnc_prv_r1cs_check_witness(&bad, &r, w.v, w.n, err, sizeof err), NNC_STATUS_INVALID, err);
    CHECK_EQ(bad, 1);
    CHECK_ST(nnc_prv_r1cs_check_witness(&bad, &r, w.v, 4, err, sizeof err), NNC_STATUS_INVALID, err);
    fr_u64(&w.v[1], 420);

    b = ser(ser_r1cs, &r, &n);
    CHECK_ST(nnc_prv_r1cs_parse(&r2, b, n, err, sizeof err), NNC_STATUS_OK, err);
    CHECK_EQ(r2.n_wires, 5);
    CHECK_EQ(r2.n_constraints, 3);
    CHECK_EQ(r2.n_terms, 10);
    CHECK(r2.wire_label != NULL && r2.wire_label[4] == 4);
    CHECK(memcmp(r2.lc_start, r.lc_start, 10 * sizeof *r.lc_start) == 0);
    CHECK(memcmp(r2.terms, r.terms, r.n_terms * sizeof *r.terms) == 0);
    b2 = ser(ser_r1cs, &r2, &n2);
    CHECK(n == n2 && memcmp(b, b2, n) == 0);
    free(b);
    free(b2);
    /* without a wire map: two sections, read back without one */
    free(r2.wire_label);
    r2.wire_label = NULL;
    b = ser(ser_r1cs, &r2, &n);
    CHECK_EQ(b[8], 2);
    nnc_prv_r1cs_clear(&r2);
    CHECK_ST(nnc_prv_r1cs_parse(&r2, b, n, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(r2.wire_label == NULL && r2.n_terms == 10);
    free(b);

    b = ser(ser_wtns, &w, &n);
    CHECK_EQ(n, 12 + 12 + 40 + 12 + 5 * 32);
    CHECK_ST(nnc_prv_wtns_parse(&w2, b, n, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(w2.n == 5 && memcmp(w2.v, w.v, 5 * sizeof *w.v) == 0);
    free(b);

    hand_zkey(&z);
    b = ser(ser_zkey, &z, &n);
    CHECK_ST(nnc_prv_zkey_parse(&z2, b, n, NNC_PRV_ZKEY_CHECK_SUBGROUP, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(z2.n_vars == 5 && z2.n_public == 2 && z2.domain_size == 8 && z2.n_coefs == 4);
    CHECK(g2_eq(&z2.delta2, &z.delta2) && g1_eq(&z2.c[0], &z.c[0]) && g2_eq(&z2.b2[4], &z.b2[4]));
    CHECK(memcmp(z2.coefs, z.coefs, 4 * sizeof *z.coefs) == 0);
    CHECK(z2.contributions_len == 68 && z2.contributions[0] == 0xab);
    b2 = ser(ser_zkey, &z2, &n2);
    CHECK(n == n2 && memcmp(b, b2, n) == 0);
    free(b2);
    /* the coefficient section stores v*R^2: value 1 is R^2 mod r */
    {
        const nnc_fe4_mod fm = NNC_FR_MOD_INIT;
        size_t off;
        uint64_t sz, x[4];
        CHECK(find_section(b, n, 4, &off, &sz));
        CHECK_EQ(sz, 4 + 4 * 44);
        nnc_fe4_int_from_b32(x, b + off + 4 + 12, NNC_PRV_ENDIAN_LITTLE); /* coef 0, value 1 */
        CHECK(memcmp(x, fm.r2, sizeof x) == 0);
    }
    /* without contributions: 9 sections */
    free(z2.contributions);
    z2.contributions = NULL;
    z2.contributions_len = 0;
    free(b);
    b = ser(ser_zkey, &z2, &n);
    CHECK_EQ(b[8], 9);
    nnc_prv_zkey_clear(&z2);
    CHECK_ST(nnc_prv_zkey_parse(&z2, b, n, 0, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(z2.contributions == NULL);
    free(b);

    /* inconsistent objects are refused by the writers */
    r.terms[0].wire = 5;
    n = 0;
    CHECK_EQ(nnc_prv_r1cs_serialize(NULL, &n, &r), NNC_STATUS_INVALID);
    z.coefs[0].constraint = 8;
    CHECK_EQ(nnc_prv_zkey_serialize(NULL, &n, &z), NNC_STATUS_INVALID);

    nnc_prv_r1cs_clear(&r);
    nnc_prv_r1cs_clear(&r2);
    nnc_prv_fr_vec_clear(&w);
    nnc_prv_fr_vec_clear(&w2);
    nnc_prv_zkey_clear(&z);
    nnc_prv_zkey_clear(&z2);
}
END_TEST

/* every proper prefix of a valid file is refused with PARSE */
static void check_truncations(const unsigned char *b, size_t n, int kind)
{
    char err[NNC_ERRBUF_SIZE];
    size_t k;
    for (k = 0; k < n; k++) {
        nnc_status st;
        err[0] = 0;
        if (kind == 0) {
            nnc_prv_r1cs r;
            st = nnc_prv_r1cs_parse(&r, b, k, err, sizeof err);
        } else if (kind == 1) {
            nnc_prv_fr_vec w;
            st = nnc_prv_wtns_parse(&w, b, k, err, sizeof err);
        } else {
            nnc_prv_zkey z;
            st = nnc_prv_zkey_parse(&z, b, k, 0, err, sizeof err);
        }
        CHECK_ST(st, NNC_STATUS_PARSE, err);
    }
}

static nnc_status parse_r1cs_buf(const unsigned char *b, size_t n, char *err)
{
    nnc_prv_r1cs r;
    nnc_status st = nnc_prv_r1cs_parse(&r, b, n, err, NNC_ERRBUF_SIZE);
    nnc_prv_r1cs_clear(&r);
    return st;
}
static nnc_status parse_wtns_buf(const unsigned char *b, size_t n, char *err)
{
    nnc_prv_fr_vec w;
    nnc_status st = nnc_prv_wtns_parse(&w, b, n, err, NNC_ERRBUF_SIZE);
    nnc_prv_fr_vec_clear(&w);
    return st;
}
static nnc_status parse_zkey_buf(const unsigned char *b, size_t n, unsigned flags, char *err)
{
    nnc_prv_zkey z;
    nnc_status st = nnc_prv_zkey_parse(&z, b, n, flags, err, NNC_ERRBUF_SIZE);
    nnc_prv_zkey_clear(&z);
    return st;
}

/* BLS12-381's scalar field prime, little-endian (another curve's r1cs/wtns) */
static const unsigned char bls_r[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

START_TEST(test_malformed_r1cs)
{
    nnc_prv_r1cs r;
    unsigned char *b, *m;
    size_t n, ho, co;
    uint64_t hs, cs;
    char err[NNC_ERRBUF_SIZE];

    hand_r1cs(&r);
    b = ser(ser_r1cs, &r, &n);
    nnc_prv_r1cs_clear(&r);
    CHECK(find_section(b, n, 1, &ho, &hs) && find_section(b, n, 2, &co, &cs));
    m = malloc(n + 64);
    check_truncations(b, n, 0);

#define FRESH() memcpy(m, b, n)
    FRESH(); m[0] = 'R';
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + 4, 2);
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_UNSUPPORTED, err);
    FRESH(); memcpy(m + ho + 4, bls_r, 32);
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_UNSUPPORTED, err);
    CHECK(strstr(err, "bn128") != NULL);
    FRESH(); put_u32(m + ho, 48);
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_UNSUPPORTED, err);
    /* huge declared counts */
    FRESH(); put_u32(m + ho + 60, 0xffffffffu);
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + co, 0x7fffffffu); /* terms of constraint 0's A */
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u64(m + co - 8, (uint64_t)1 << 62); /* section size */
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + 8, 0x10000000u); /* nSections */
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + ho + 36, 0xffffffffu); /* nWires: the wire map no longer fits */
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_PARSE, err);
    /* fewer constraints than the section holds */
    FRESH(); put_u32(m + ho + 60, 2);
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_PARSE, err);
    /* inconsistent */
    FRESH(); put_u32(m + ho + 36, 3); /* 3 wires for 1 + 3 inputs/outputs */
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_INVALID, err);
    FRESH(); put_u32(m + co + 4, 5); /* first term's wire = nWires */
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_INVALID, err);
    FRESH(); memset(m + co + 8, 0xff, 32); /* coefficient >= r */
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_INVALID, err);
    /* sections: missing, duplicated, custom gates, unknown ones skipped */
    FRESH(); put_u32(m + co - 12, 7); /* constraints section retyped */
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + co - 12, 1);
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + 8, 4); memcpy(m + n, "\x04\0\0\0\x04\0\0\0\0\0\0\0\0\0\0\0", 16);
    CHECK_ST(parse_r1cs_buf(m, n + 16, err), NNC_STATUS_UNSUPPORTED, err);
    FRESH(); put_u32(m + 8, 4); memcpy(m + n, "\x09\0\0\0\x04\0\0\0\0\0\0\0\0\0\0\0", 16);
    CHECK_ST(parse_r1cs_buf(m, n + 16, err), NNC_STATUS_OK, err);
    /* a missing wire map is allowed, but then nWires is bounded by the limit */
    FRESH(); put_u32(m + 8, 2);
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_OK, err);
    put_u32(m + ho + 36, 0xffffffffu);
    CHECK_ST(parse_r1cs_buf(m, n, err), NNC_STATUS_LIMIT, err);
    CHECK_ST(parse_r1cs_buf(m, 0, err), NNC_STATUS_PARSE, err);
#undef FRESH
    free(m);
    free(b);
}
END_TEST

START_TEST(test_malformed_wtns)
{
    nnc_prv_fr_vec w;
    unsigned char *b, *m;
    size_t n, ho, dof;
    uint64_t hs, ds;
    char err[NNC_ERRBUF_SIZE];

    hand_wtns(&w);
    b = ser(ser_wtns, &w, &n);
    nnc_prv_fr_vec_clear(&w);
    CHECK(find_section(b, n, 1, &ho, &hs) && find_section(b, n, 2, &dof, &ds));
    m = malloc(n);
    check_truncations(b, n, 1);
#define FRESH() memcpy(m, b, n)
    FRESH(); memcpy(m, "zkey", 4);
    CHECK_ST(parse_wtns_buf(m, n, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + 4, 1);
    CHECK_ST(parse_wtns_buf(m, n, err), NNC_STATUS_UNSUPPORTED, err);
    FRESH(); memcpy(m + ho + 4, bls_r, 32);
    CHECK_ST(parse_wtns_buf(m, n, err), NNC_STATUS_UNSUPPORTED, err);
    FRESH(); put_u32(m + ho + 36, 0xffffffffu);
    CHECK_ST(parse_wtns_buf(m, n, err), NNC_STATUS_PARSE, err);
    CHECK(strstr(err, "4294967295") != NULL);
    FRESH(); put_u32(m + ho + 36, 4);
    CHECK_ST(parse_wtns_buf(m, n, err), NNC_STATUS_PARSE, err);
    FRESH(); memset(m + dof + 64, 0xff, 32);
    CHECK_ST(parse_wtns_buf(m, n, err), NNC_STATUS_INVALID, err);
    /* the value r itself is not reduced */
    FRESH(); {
        const uint64_t rm[4] = NNC_FR_MODULUS_INIT;
        nnc_fe4_int_to_b32(m + dof + 32, rm, NNC_PRV_ENDIAN_LITTLE);
    }
    CHECK_ST(parse_wtns_buf(m, n, err), NNC_STATUS_INVALID, err);
    /* allocation limit: 5 values need 160 bytes */
    setenv("NNCERT_MAX_TENSOR_BYTES", "100", 1);
    CHECK_ST(parse_wtns_buf(b, n, err), NNC_STATUS_LIMIT, err);
    unsetenv("NNCERT_MAX_TENSOR_BYTES");
    CHECK_ST(parse_wtns_buf(b, n, err), NNC_STATUS_OK, err);
#undef FRESH
    free(m);
    free(b);
}
END_TEST

/* A point on the twist outside the order-r subgroup. */
static void g2_non_subgroup(nnc_prv_g2 *p)
{
    nnc_fq2 x, y2, b;
    uint64_t k;
    for (k = 1;; k++) {
        nnc_fq_set_u64(&x.c0, k);
        nnc_fq_set_u64(&x.c1, 1);
        nnc_fq2_sqr(&y2, &x);
        nnc_fq2_mul(&y2, &y2, &x);
        nnc_g2_set_b(&b);
        nnc_fq2_add(&y2, &y2, &b);
        if (nnc_fq2_sqrt(&p->y, &y2)) {
            p->x = x;
            if (nnc_prv_g2_is_on_curve(p) && !nnc_prv_g2_is_valid(p))
                return;
        }
    }
}

START_TEST(test_malformed_zkey)
{
    nnc_prv_zkey z;
    unsigned char *b, *m;
    size_t n, o1, o2, o4, o5, o7;
    uint64_t s1, s2, s4, s5, s7;
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_g2 bad;

    hand_zkey(&z);
    g2_non_subgroup(&bad);
    z.b2[2] = bad;
    b = ser(ser_zkey, &z, &n);
    CHECK(find_section(b, n, 1, &o1, &s1) && find_section(b, n, 2, &o2, &s2) && find_section(b, n, 4, &o4, &s4) &&
          find_section(b, n, 5, &o5, &s5) && find_section(b, n, 7, &o7, &s7));
    m = malloc(n);
    check_truncations(b, n, 2);
#define FRESH() memcpy(m, b, n)
    /* B2 subgroup membership only on request */
    CHECK_ST(parse_zkey_buf(b, n, 0, err), NNC_STATUS_OK, err);
    CHECK_ST(parse_zkey_buf(b, n, NNC_PRV_ZKEY_CHECK_SUBGROUP, err), NNC_STATUS_INVALID, err);
    CHECK(strstr(err, "B2") != NULL && strstr(err, "subgroup") != NULL);
    /* header points always */
    FRESH(); memcpy(m + o2 + 84 + 64 + 64 + 128, &bad, 128); /* gamma2: our limbs are the file's bytes */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);
    CHECK(strstr(err, "gamma2") != NULL);
    FRESH(); memset(m + o2 + 84, 0, 64); /* alpha1 = infinity */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);

    FRESH(); memcpy(m, "zkeY", 4);
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + 4, 2);
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_UNSUPPORTED, err);
    FRESH(); put_u32(m + o1, 2);
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_UNSUPPORTED, err);
    CHECK(strstr(err, "plonk") != NULL);
    FRESH(); put_u32(m + o1, 10);
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_UNSUPPORTED, err);
    FRESH(); m[o2 + 4] ^= 2; /* q */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_UNSUPPORTED, err);
    FRESH(); memcpy(m + o2 + 40, bls_r, 32); /* r */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_UNSUPPORTED, err);
    FRESH(); put_u32(m + o2 + 72, 0xffffffffu); /* nVars */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + o2 + 76, 5); /* nPublic = nVars */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);
    FRESH(); put_u32(m + o2 + 80, 6);
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);
    FRESH(); put_u32(m + o2 + 80, 1u << 29);
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_LIMIT, err);
    FRESH(); put_u32(m + o2 + 80, 1u << 20); /* valid size, but H holds 8 points */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + o4, 0xffffffffu); /* coefficient count */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + o4 + 4, 2); /* matrix 2 */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);
    FRESH(); put_u32(m + o4 + 8, 8); /* row = domain size */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);
    FRESH(); memset(m + o4 + 16, 0xff, 32); /* value >= r */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);
    FRESH(); m[o5 + 64 + 5] ^= 1; /* A[1].x changed: off the curve */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);
    CHECK(strstr(err, "A point 1") != NULL);
    FRESH(); memset(m + o5, 0xff, 32); /* coordinate >= q */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);
    FRESH(); m[o7 + 3 * 128 + 100] ^= 1; /* B2[3] off the twist */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);
    FRESH(); put_u64(m + o7 - 8, s7 - 128);
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_PARSE, err);
    FRESH(); put_u32(m + o5 - 12, 3); /* A section typed as IC: duplicate */
    CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_PARSE, err);
#undef FRESH
    free(m);
    free(b);
    nnc_prv_zkey_clear(&z);
}
END_TEST

/* Point sections big enough to be decoded by several threads (domain
 * 2^14: H split in shares): a clean key reads back equal, and with bad
 * points in two shares the error names the lowest one, as one thread would. */
START_TEST(test_zkey_sections_threads)
{
    enum { D = 1 << 14 };
    nnc_prv_zkey z, z2;
    nnc_prv_g1 *h;
    unsigned char *b, *m;
    size_t n, o9;
    uint64_t s9;
    uint32_t i;
    char err[NNC_ERRBUF_SIZE];
    static const uint32_t bad[][2] = {{100, 12000}, {9000, 12000}, {16383, 16383}};
    hand_zkey(&z);
    h = malloc(D * sizeof *h);
    CHECK(h != NULL);
    for (i = 0; i < D; i++)
        g1_k(&h[i], 60 + (i % 8));
    free(z.h);
    z.h = h;
    z.domain_size = D;
    b = ser(ser_zkey, &z, &n);
    CHECK(find_section(b, n, 9, &o9, &s9) && s9 == (uint64_t)D * 64);
    CHECK_ST(nnc_prv_zkey_parse(&z2, b, n, 0, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(z2.domain_size == D && memcmp(z2.h, z.h, D * sizeof *h) == 0);
    nnc_prv_zkey_clear(&z2);
    m = malloc(n);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        memcpy(m, b, n);
        m[o9 + (size_t)bad[i][0] * 64 + 7] ^= 1;
        m[o9 + (size_t)bad[i][1] * 64 + 7] ^= 1;
        if (bad[i][0] == bad[i][1])
            m[o9 + (size_t)bad[i][1] * 64 + 40] ^= 1;
        CHECK_ST(parse_zkey_buf(m, n, 0, err), NNC_STATUS_INVALID, err);
        snprintf(want, sizeof want, "H point %u ", bad[i][0]);
        CHECK(strstr(err, want) != NULL);
    }
    free(m);
    free(b);
    nnc_prv_zkey_clear(&z);
}
END_TEST

static nnc_status parse_json_kind(int kind, const char *t, char *err)
{
    nnc_status st;
    if (kind == 0) {
        nnc_prv_g16_proof p;
        st = nnc_prv_g16_proof_parse_json(&p, t, strlen(t), err, NNC_ERRBUF_SIZE);
    } else if (kind == 1) {
        nnc_prv_fr_vec v;
        st = nnc_prv_public_parse_json(&v, t, strlen(t), err, NNC_ERRBUF_SIZE);
        nnc_prv_fr_vec_clear(&v);
    } else {
        nnc_prv_g16_vk vk;
        st = nnc_prv_g16_vk_parse_json(&vk, t, strlen(t), err, NNC_ERRBUF_SIZE);
        nnc_prv_g16_vk_clear(&vk);
    }
    return st;
}

/* replace the first occurrence of a by b in s (into out) */
static char *subst(const char *s, const char *a, const char *b)
{
    const char *p = strstr(s, a);
    char *o;
    if (p == NULL)
        ck_abort_msg("subst: \"%s\" not found", a);
    o = malloc(strlen(s) + strlen(b) + 1);
    memcpy(o, s, (size_t)(p - s));
    strcpy(o + (p - s), b);
    strcat(o, p + strlen(a));
    return o;
}

#define R_DEC "21888242871839275222246405745257275088548364400416034343698204186575808495617"
#define Q_DEC "21888242871839275222246405745257275088696311157297823662689037894645226208583"

START_TEST(test_json_handmade)
{
    nnc_prv_g16_proof p, p2;
    nnc_prv_fr_vec pub, pub2;
    nnc_prv_zkey z;
    nnc_prv_g16_vk vk, vk2;
    char err[NNC_ERRBUF_SIZE];
    unsigned char *b, *b2;
    size_t n, n2;
    char *t, *u;
    int64_t v[3] = {0, 1, -1};
    int i;

    /* proof: ordinary points and infinity */
    g1_k(&p.a, 5);
    g2_k(&p.b, 6);
    g1_k(&p.c, 0);
    b = ser(ser_proof, &p, &n);
    CHECK(strstr((char *)b, "\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]") != NULL);
    CHECK(b[n - 1] == '}');
    t = strndup((char *)b, n);
    CHECK_ST(nnc_prv_g16_proof_parse_json(&p2, t, n, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(g1_eq(&p2.a, &p.a) && g2_eq(&p2.b, &p.b) && g1_eq(&p2.c, &p.c));
    b2 = ser(ser_proof, &p2, &n2);
    CHECK(n == n2 && memcmp(b, b2, n) == 0);
    free(b2);
    /* the infinity of G2 */
    g2_k(&p.b, 0);
    b2 = ser(ser_proof, &p, &n2);
    CHECK(strstr((char *)b2, "[\n   \"0\",\n   \"0\"\n  ],\n  [\n   \"1\",\n   \"0\"\n  ],\n  [\n   \"0\",\n   \"0\"") != NULL);
    {
        char *t2 = strndup((char *)b2, n2);
        CHECK_ST(nnc_prv_g16_proof_parse_json(&p2, t2, n2, err, sizeof err), NNC_STATUS_OK, err);
        CHECK(g2_eq(&p2.b, &p.b));
        free(t2);
    }
    free(b2);

    u = subst(t, "groth16", "plonk");
    CHECK_ST(parse_json_kind(0, u, err), NNC_STATUS_UNSUPPORTED, err);
    free(u);
    u = subst(t, "bn128", "bls12381");
    CHECK_ST(parse_json_kind(0, u, err), NNC_STATUS_UNSUPPORTED, err);
    free(u);
    u = subst(t, "bn128", "BN-254");
    CHECK_ST(parse_json_kind(0, u, err), NNC_STATUS_OK, err);
    free(u);
    u = subst(t, "\"1\"\n ],\n \"pi_b\"", "\"2\"\n ],\n \"pi_b\"");
    CHECK_ST(parse_json_kind(0, u, err), NNC_STATUS_UNSUPPORTED, err);
    free(u);
    u = subst(t, "\"pi_a\": [\n  \"", "\"pi_a\": [\n  \"1");
    CHECK_ST(parse_json_kind(0, u, err), NNC_STATUS_INVALID, err);
    CHECK(strstr(err, "pi_a") != NULL);
    free(u);
    u = subst(t, "\"pi_a\": [\n  \"", "\"pi_a\": [\n  \"x");
    CHECK_ST(parse_json_kind(0, u, err), NNC_STATUS_PARSE, err);
    free(u);
    u = subst(t, "\"pi_c\"", "\"pi_d\"");
    CHECK_ST(parse_json_kind(0, u, err), NNC_STATUS_PARSE, err);
    free(u);
    u = subst(t, "\"pi_b\": [\n  [\n   \"", "\"pi_b\": [\n  [\n   \"1");
    CHECK_ST(parse_json_kind(0, u, err), NNC_STATUS_INVALID, err);
    free(u);
    CHECK_ST(parse_json_kind(0, "", err), NNC_STATUS_PARSE, err);
    CHECK_ST(parse_json_kind(0, "[]", err), NNC_STATUS_PARSE, err);
    free(t);
    free(b);
    /* a G2 point outside the subgroup */
    {
        nnc_prv_g2 bad;
        char d[4][NNC_PRV_DEC_BUFSIZE], js[1024];
        g2_non_subgroup(&bad);
        nnc_prv_fq_serialize_dec(d[0], sizeof d[0], &bad.x.c0);
        nnc_prv_fq_serialize_dec(d[1], sizeof d[1], &bad.x.c1);
        nnc_prv_fq_serialize_dec(d[2], sizeof d[2], &bad.y.c0);
        nnc_prv_fq_serialize_dec(d[3], sizeof d[3], &bad.y.c1);
        snprintf(js, sizeof js, "{\"pi_a\":[\"1\",\"2\",\"1\"],\"pi_b\":[[\"%s\",\"%s\"],[\"%s\",\"%s\"],[\"1\",\"0\"]],"
                 "\"pi_c\":[\"1\",\"2\"]}", d[0], d[1], d[2], d[3]);
        CHECK_ST(parse_json_kind(0, js, err), NNC_STATUS_INVALID, err);
        CHECK(strstr(err, "subgroup") != NULL);
    }

    /* public inputs */
    pub.n = 3;
    pub.v = malloc(3 * sizeof *pub.v);
    for (i = 0; i < 3; i++)
        fr_u64(&pub.v[i], v[i]);
    b = ser(ser_public, &pub, &n);
    CHECK(n == strlen("[\n \"0\",\n \"1\",\n \"" R_DEC "\"\n]"));
    CHECK(memcmp(b, "[\n \"0\",\n \"1\",\n \"2188", 20) == 0);
    CHECK_ST(nnc_prv_public_parse_json(&pub2, (char *)b, n, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(pub2.n == 3 && memcmp(pub2.v, pub.v, 3 * sizeof *pub.v) == 0);
    nnc_prv_fr_vec_clear(&pub2);
    free(b);
    CHECK_ST(parse_json_kind(1, "[\"" R_DEC "\"]", err), NNC_STATUS_INVALID, err);
    CHECK(strstr(err, "not reduced") != NULL);
    CHECK_ST(parse_json_kind(1, "[\"1\", \"-1\"]", err), NNC_STATUS_INVALID, err);
    CHECK_ST(parse_json_kind(1, "[\"1\", \"0x10\"]", err), NNC_STATUS_PARSE, err);
    CHECK_ST(parse_json_kind(1, "[\"1\", null]", err), NNC_STATUS_PARSE, err);
    CHECK_ST(parse_json_kind(1, "{}", err), NNC_STATUS_PARSE, err);
    CHECK_ST(parse_json_kind(1, "[\"1\",", err), NNC_STATUS_PARSE, err);
    CHECK_ST(parse_json_kind(1, "[]", err), NNC_STATUS_OK, err);
    CHECK_ST(parse_json_kind(1, "[12, \"13\"]", err), NNC_STATUS_OK, err);
    b = ser(ser_public, &(nnc_prv_fr_vec){0, NULL}, &n);
    CHECK(n == 2 && memcmp(b, "[]", 2) == 0);
    free(b);
    nnc_prv_fr_vec_clear(&pub);

    /* verification key from a (hand-made) zkey, with alphabeta */
    hand_zkey(&z);
    CHECK_EQ(nnc_prv_g16_vk_from_zkey(&vk, &z), NNC_STATUS_OK);
    CHECK(vk.has_alphabeta && vk.n_public == 2);
    b = ser(ser_vk, &vk, &n);
    t = strndup((char *)b, n);
    CHECK(strstr(t, "\"nPublic\": 2,\n \"vk_alpha_1\": [\n") != NULL);
    CHECK_ST(nnc_prv_g16_vk_parse_json(&vk2, t, n, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(vk2.has_alphabeta && memcmp(vk2.alphabeta, vk.alphabeta, sizeof vk.alphabeta) == 0);
    CHECK(g2_eq(&vk2.delta2, &vk.delta2) && g1_eq(&vk2.ic[2], &vk.ic[2]));
    b2 = ser(ser_vk, &vk2, &n2);
    CHECK(n == n2 && memcmp(b, b2, n) == 0);
    free(b2);
    nnc_prv_g16_vk_clear(&vk2);
    u = subst(t, "\"nPublic\": 2", "\"nPublic\": 3");
    CHECK_ST(parse_json_kind(2, u, err), NNC_STATUS_INVALID, err);
    free(u);
    u = subst(t, "\"nPublic\": 2", "\"nPublic\": \"2\"");
    CHECK_ST(parse_json_kind(2, u, err), NNC_STATUS_PARSE, err);
    free(u);
    u = subst(t, "\"nPublic\": 2", "\"nPublic\": 99999999999");
    CHECK_ST(parse_json_kind(2, u, err), NNC_STATUS_LIMIT, err);
    free(u);
    u = subst(t, "\"vk_alphabeta_12\": [\n  [\n   [\n    \"", "\"vk_alphabeta_12\": [\n  [\n   [\n    \"1");
    CHECK_ST(parse_json_kind(2, u, err), NNC_STATUS_INVALID, err);
    free(u);
    u = subst(t, "\"IC\": [\n  [\n   \"", "\"IC\": [\n  [\n   \"" Q_DEC);
    CHECK_ST(parse_json_kind(2, u, err), NNC_STATUS_INVALID, err);
    CHECK(strstr(err, "IC[0]") != NULL);
    free(u);
    u = subst(t, "\"protocol\": \"groth16\"", "\"protocol\": \"fflonk\"");
    CHECK_ST(parse_json_kind(2, u, err), NNC_STATUS_UNSUPPORTED, err);
    free(u);
    /* without alphabeta: accepted, and written without it */
    vk.has_alphabeta = 0;
    b2 = ser(ser_vk, &vk, &n2);
    CHECK(strstr((char *)b2, "alphabeta") == NULL);
    {
        char *t2 = strndup((char *)b2, n2);
        CHECK_ST(parse_json_kind(2, t2, err), NNC_STATUS_OK, err);
        free(t2);
    }
    free(b2);
    free(t);
    free(b);
    nnc_prv_g16_vk_clear(&vk);
    nnc_prv_zkey_clear(&z);
}
END_TEST

/* Random byte changes in valid files: any status, never a crash; whatever
 * parses serializes to something that parses to the same serialization. */
START_TEST(test_mutations)
{
    rng g = {g_seed ^ 0x5a5a};
    nnc_prv_r1cs r;
    nnc_prv_fr_vec w;
    nnc_prv_zkey z;
    unsigned char *src[3], *m;
    size_t len[3], k, it;
    char err[NNC_ERRBUF_SIZE];

    hand_r1cs(&r);
    hand_wtns(&w);
    hand_zkey(&z);
    src[0] = ser(ser_r1cs, &r, &len[0]);
    src[1] = ser(ser_wtns, &w, &len[1]);
    src[2] = ser(ser_zkey, &z, &len[2]);
    nnc_prv_r1cs_clear(&r);
    nnc_prv_fr_vec_clear(&w);
    nnc_prv_zkey_clear(&z);
    for (k = 0; k < 3; k++) {
        m = malloc(len[k]);
        for (it = 0; it < 600; it++) {
            unsigned nflip = 1 + (unsigned)(rng_next(&g) % 3), f;
            size_t n = len[k];
            nnc_status st;
            memcpy(m, src[k], n);
            for (f = 0; f < nflip; f++) {
                size_t at = (size_t)(rng_next(&g) % n);
                if (rng_next(&g) & 1)
                    m[at] ^= (unsigned char)(1u << (rng_next(&g) % 8));
                else if (at + 4 <= n)
                    put_u32(m + at, (uint32_t)rng_next(&g));
            }
            if (rng_next(&g) % 8 == 0)
                n = (size_t)(rng_next(&g) % n);
            err[0] = 0;
            if (k == 0) {
                st = nnc_prv_r1cs_parse(&r, m, n, err, sizeof err);
                if (st == NNC_STATUS_OK) {
                    size_t n1, n2;
                    unsigned char *b1 = ser(ser_r1cs, &r, &n1), *b2;
                    nnc_prv_r1cs_clear(&r);
                    CHECK_ST(nnc_prv_r1cs_parse(&r, b1, n1, err, sizeof err), NNC_STATUS_OK, err);
                    b2 = ser(ser_r1cs, &r, &n2);
                    CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0);
                    free(b1);
                    free(b2);
                }
                nnc_prv_r1cs_clear(&r);
            } else if (k == 1) {
                st = nnc_prv_wtns_parse(&w, m, n, err, sizeof err);
                nnc_prv_fr_vec_clear(&w);
            } else {
                st = nnc_prv_zkey_parse(&z, m, n, NNC_PRV_ZKEY_CHECK_SUBGROUP, err, sizeof err);
                if (st == NNC_STATUS_OK) {
                    size_t n1;
                    unsigned char *b1 = ser(ser_zkey, &z, &n1);
                    nnc_prv_zkey_clear(&z);
                    CHECK_ST(nnc_prv_zkey_parse(&z, b1, n1, NNC_PRV_ZKEY_CHECK_SUBGROUP, err, sizeof err),
                             NNC_STATUS_OK, err);
                    free(b1);
                }
                nnc_prv_zkey_clear(&z);
            }
            CHECK(st == NNC_STATUS_OK || st == NNC_STATUS_PARSE || st == NNC_STATUS_UNSUPPORTED ||
                  st == NNC_STATUS_INVALID || st == NNC_STATUS_LIMIT);
            if (st != NNC_STATUS_OK)
                CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
        }
        free(m);
        free(src[k]);
    }
}
END_TEST

/* ---------------------------------------------------------------- interop tests (snarkjs, circom2) */

static const char *CIRCUIT =
    "pragma circom 2.0.0;\n"
    "// y outputs d, e; a public input; b, c private\n"
    "template Poly() {\n"
    "    signal input a;\n"
    "    signal input b;\n"
    "    signal input c;\n"
    "    signal output d;\n"
    "    signal output e;\n"
    "    signal ab;\n"
    "    signal p[4];\n"
    "    ab <== a * b;\n"
    "    d <== ab * c + 7 * a - 3;\n"
    "    e <== (d - a) * (b + 2);\n"
    "    p[0] <== c * c;\n"
    "    for (var i = 1; i < 4; i++) {\n"
    "        p[i] <== p[i - 1] * (c - i) + 5 * b;\n"
    "    }\n"
    "}\n"
    "component main {public [a]} = Poly();\n";

/* Compile, set up, prove once.  Returns 0 on success. */
static int make_snarkjs_files(void)
{
    char p[512];
    FILE *f;
    int rc;
    time_t t0 = time(NULL);
    f = fopen(path_in(p, sizeof p, "poly.circom"), "w");
    if (f == NULL)
        return -1;
    fputs(CIRCUIT, f);
    fclose(f);
    f = fopen(path_in(p, sizeof p, "input.json"), "w");
    fputs("{\"a\": \"3\", \"b\": \"-5\", \"c\": \"11\"}\n", f);
    fclose(f);
    rc = sh("( \"$B/circom2\" poly.circom --r1cs --wasm -o . > circom.log 2>&1 ) & c=$!\n"
            "( \"$B/snarkjs\" powersoftau new bn128 6 p0.ptau && "
            "  \"$B/snarkjs\" powersoftau contribute p0.ptau p1.ptau --name=nncert -e=nncert-test && "
            "  \"$B/snarkjs\" powersoftau prepare phase2 p1.ptau pf.ptau ) > ptau.log 2>&1 & t=$!\n"
            "wait $c || exit 1\n"
            "wait $t || exit 1\n"
            "( \"$B/snarkjs\" wtns calculate poly_js/poly.wasm input.json w.wtns > wtns.log 2>&1 ) & w=$!\n"
            "\"$B/snarkjs\" groth16 setup poly.r1cs pf.ptau k.zkey > setup.log 2>&1 || exit 1\n"
            "wait $w || exit 1\n"
            "( \"$B/snarkjs\" r1cs info poly.r1cs > info.txt 2>&1 ) & i=$!\n"
            "( \"$B/snarkjs\" zkey export verificationkey k.zkey vk.json > vk.log 2>&1 ) & v=$!\n"
            "\"$B/snarkjs\" groth16 prove k.zkey w.wtns proof.json public.json > prove.log 2>&1 || exit 1\n"
            "wait $i || exit 1\n"
            "wait $v || exit 1\n");
    printf("test_prover_formats: snarkjs files in %s (%lds)\n", g_dir, (long)(time(NULL) - t0));
    if (rc != 0)
        sh("tail -n 5 *.log >&2");
    return rc;
}

START_TEST(test_snarkjs_r1cs)
{
    char p[512], err[NNC_ERRBUF_SIZE];
    nnc_prv_r1cs r;
    unsigned char *b, *f;
    size_t n, fl;
    char *info;

    CHECK_ST(nnc_prv_r1cs_read_file(&r, path_in(p, sizeof p, "poly.r1cs"), err, sizeof err), NNC_STATUS_OK, err);
    info = (char *)slurp(path_in(p, sizeof p, "info.txt"), &n);
    CHECK(info != NULL);
    CHECK_EQ(info_count(info, "# of Wires"), r.n_wires);
    CHECK_EQ(info_count(info, "# of Constraints"), r.n_constraints);
    CHECK_EQ(info_count(info, "# of Private Inputs"), r.n_prv_in);
    CHECK_EQ(info_count(info, "# of Public Inputs"), r.n_pub_in);
    CHECK_EQ(info_count(info, "# of Outputs"), r.n_pub_out);
    CHECK_EQ(info_count(info, "# of Labels"), r.n_labels);
    CHECK_EQ(r.n_constraints, 7);
    CHECK_EQ(r.n_pub_out, 2);
    CHECK_EQ(r.n_pub_in, 1);
    CHECK_EQ(r.n_prv_in, 2);
    CHECK(r.wire_label != NULL);
    free(info);
    /* byte for byte */
    b = ser(ser_r1cs, &r, &n);
    f = slurp(path_in(p, sizeof p, "poly.r1cs"), &fl);
    CHECK(n == fl && memcmp(b, f, n) == 0);
    free(b);
    free(f);
    CHECK_ST(nnc_prv_r1cs_write_file(path_in(p, sizeof p, "ours.r1cs"), &r, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(same_file(p, path_in(err, sizeof err, "poly.r1cs")));
    nnc_prv_r1cs_clear(&r);
}
END_TEST

START_TEST(test_snarkjs_wtns)
{
    char p[512], err[NNC_ERRBUF_SIZE];
    nnc_prv_r1cs r;
    nnc_prv_fr_vec w, pub;
    unsigned char *b, *f;
    size_t n, fl, i;
    uint32_t bad;
    nnc_prv_fr t;

    CHECK_ST(nnc_prv_r1cs_read_file(&r, path_in(p, sizeof p, "poly.r1cs"), err, sizeof err), NNC_STATUS_OK, err);
    CHECK_ST(nnc_prv_wtns_read_file(&w, path_in(p, sizeof p, "w.wtns"), err, sizeof err), NNC_STATUS_OK, err);
    CHECK_EQ(w.n, r.n_wires);
    CHECK(nnc_fr_is_one(&w.v[0]));
    CHECK_ST(nnc_prv_r1cs_check_witness(&bad, &r, w.v, w.n, err, sizeof err), NNC_STATUS_OK, err);
    /* outputs d = 3*(-5)*11 + 21 - 3 = -147, e = (-150) * (-3) = 450; input a = 3 */
    fr_u64(&t, -147);
    CHECK(nnc_fr_eq(&w.v[1], &t));
    fr_u64(&t, 450);
    CHECK(nnc_fr_eq(&w.v[2], &t));
    fr_u64(&t, 3);
    CHECK(nnc_fr_eq(&w.v[3], &t));
    /* public.json = w[1..nPublic] */
    CHECK_ST(nnc_prv_public_read_file(&pub, path_in(p, sizeof p, "public.json"), err, sizeof err), NNC_STATUS_OK, err);
    CHECK_EQ(pub.n, 3);
    for (i = 0; i < pub.n; i++)
        CHECK(nnc_fr_eq(&pub.v[i], &w.v[1 + i]));
    nnc_prv_fr_vec_clear(&pub);
    /* byte for byte */
    b = ser(ser_wtns, &w, &n);
    f = slurp(path_in(p, sizeof p, "w.wtns"), &fl);
    CHECK(n == fl && memcmp(b, f, n) == 0);
    free(b);
    free(f);
    /* a wrong witness is caught */
    nnc_fr_add(&w.v[5], &w.v[5], &w.v[0]);
    CHECK_ST(nnc_prv_r1cs_check_witness(&bad, &r, w.v, w.n, err, sizeof err), NNC_STATUS_INVALID, err);
    CHECK(bad < r.n_constraints);
    nnc_prv_fr_vec_clear(&w);
    nnc_prv_r1cs_clear(&r);
}
END_TEST

START_TEST(test_snarkjs_zkey)
{
    char p[512], q[512], err[NNC_ERRBUF_SIZE];
    nnc_prv_r1cs r;
    nnc_prv_zkey z;
    nnc_prv_g16_vk vk, vkf;
    unsigned char *b, *f;
    size_t n, fl;
    uint32_t i, c, k;
    uint64_t t, ci;

    CHECK_ST(nnc_prv_r1cs_read_file(&r, path_in(p, sizeof p, "poly.r1cs"), err, sizeof err), NNC_STATUS_OK, err);
    CHECK_ST(nnc_prv_zkey_read_file(&z, path_in(p, sizeof p, "k.zkey"), NNC_PRV_ZKEY_CHECK_SUBGROUP, err, sizeof err),
             NNC_STATUS_OK, err);
    CHECK_EQ(z.n_vars, r.n_wires);
    CHECK_EQ(z.n_public, r.n_pub_out + r.n_pub_in);
    CHECK_EQ(z.domain_size, 16); /* 7 constraints + 3 public + 1 rows */
    CHECK(z.contributions != NULL);
    /* coefficients: the A then B terms of each constraint in file order, then
     * A[nConstraints + s][s] = 1 for s = 0 .. nPublic */
    for (c = 0, ci = 0; c < r.n_constraints; c++)
        for (k = 0; k < 2; k++)
            for (t = r.lc_start[3 * c + k]; t < r.lc_start[3 * c + k + 1]; t++, ci++) {
                CHECK(ci < z.n_coefs);
                CHECK_EQ(z.coefs[ci].matrix, k);
                CHECK_EQ(z.coefs[ci].constraint, c);
                CHECK_EQ(z.coefs[ci].signal, r.terms[t].wire);
                CHECK(nnc_fr_eq(&z.coefs[ci].value, &r.terms[t].coef));
            }
    for (i = 0; i <= z.n_public; i++, ci++) {
        CHECK(ci < z.n_coefs);
        CHECK(z.coefs[ci].matrix == 0 && z.coefs[ci].constraint == r.n_constraints + i && z.coefs[ci].signal == i);
        CHECK(nnc_fr_is_one(&z.coefs[ci].value));
    }
    CHECK_EQ(ci, z.n_coefs);
    /* the key's points agree with snarkjs's verification key */
    CHECK_ST(nnc_prv_g16_vk_read_file(&vkf, path_in(p, sizeof p, "vk.json"), err, sizeof err), NNC_STATUS_OK, err);
    CHECK(vkf.has_alphabeta);
    CHECK_EQ(vkf.n_public, z.n_public);
    CHECK(g1_eq(&vkf.alpha1, &z.alpha1) && g2_eq(&vkf.beta2, &z.beta2) && g2_eq(&vkf.gamma2, &z.gamma2) &&
          g2_eq(&vkf.delta2, &z.delta2));
    for (i = 0; i <= z.n_public; i++)
        CHECK(g1_eq(&vkf.ic[i], &z.ic[i]));
    /* gamma2 is the generator after setup (snarkjs never changes it) */
    {
        nnc_prv_g2 g;
        nnc_prv_g2_generator(&g);
        CHECK(g2_eq(&z.gamma2, &g));
    }
    /* our verification key from the zkey: the same bytes as snarkjs's export */
    CHECK_EQ(nnc_prv_g16_vk_from_zkey(&vk, &z), NNC_STATUS_OK);
    CHECK_ST(nnc_prv_g16_vk_write_file(path_in(q, sizeof q, "ours_vk.json"), &vk, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(same_file(q, path_in(p, sizeof p, "vk.json")));
    nnc_prv_g16_vk_clear(&vk);
    nnc_prv_g16_vk_clear(&vkf);
    /* byte for byte */
    b = ser(ser_zkey, &z, &n);
    f = slurp(path_in(p, sizeof p, "k.zkey"), &fl);
    CHECK(n == fl && memcmp(b, f, n) == 0);
    free(b);
    free(f);
    /* a key we write differently (no contributions section) is accepted by snarkjs */
    free(z.contributions);
    z.contributions = NULL;
    z.contributions_len = 0;
    CHECK_ST(nnc_prv_zkey_write_file(path_in(p, sizeof p, "ours.zkey"), &z, err, sizeof err), NNC_STATUS_OK, err);
    CHECK_EQ(sh("\"$B/snarkjs\" zkey export verificationkey ours.zkey ours_export.json > ours_export.log 2>&1"), 0);
    CHECK(same_file(path_in(p, sizeof p, "ours_export.json"), path_in(q, sizeof q, "vk.json")));
    nnc_prv_zkey_clear(&z);
    nnc_prv_r1cs_clear(&r);
}
END_TEST

START_TEST(test_snarkjs_json)
{
    char p[512], err[NNC_ERRBUF_SIZE];
    const char *names[3] = {"proof.json", "public.json", "vk.json"};
    int k;
    for (k = 0; k < 3; k++) {
        size_t fl, n;
        unsigned char *f = slurp(path_in(p, sizeof p, names[k]), &fl), *b;
        CHECK(f != NULL);
        if (k == 0) {
            nnc_prv_g16_proof pr;
            CHECK_ST(nnc_prv_g16_proof_parse_json(&pr, (char *)f, fl, err, sizeof err), NNC_STATUS_OK, err);
            CHECK(nnc_prv_g1_is_valid(&pr.a) && nnc_prv_g2_is_valid(&pr.b) && nnc_prv_g1_is_valid(&pr.c));
            b = ser(ser_proof, &pr, &n);
        } else if (k == 1) {
            nnc_prv_fr_vec v;
            CHECK_ST(nnc_prv_public_parse_json(&v, (char *)f, fl, err, sizeof err), NNC_STATUS_OK, err);
            b = ser(ser_public, &v, &n);
            nnc_prv_fr_vec_clear(&v);
        } else {
            nnc_prv_g16_vk vk;
            CHECK_ST(nnc_prv_g16_vk_parse_json(&vk, (char *)f, fl, err, sizeof err), NNC_STATUS_OK, err);
            b = ser(ser_vk, &vk, &n);
            nnc_prv_g16_vk_clear(&vk);
        }
        if (!(n == fl && memcmp(b, f, n) == 0))
            ck_abort_msg("%s: our serialization differs from snarkjs's", names[k]);
        free(b);
        free(f);
    }
}
END_TEST

/* A hand-made R1CS and witness written by us drive snarkjs end to end. */
START_TEST(test_snarkjs_accepts_ours)
{
    char p[512], q[512], err[NNC_ERRBUF_SIZE];
    nnc_prv_r1cs r;
    nnc_prv_fr_vec w, pub;
    nnc_prv_zkey z;
    nnc_prv_g16_vk vk;
    nnc_prv_g16_proof pr;
    char *info;
    size_t n;
    nnc_prv_fr t;

    hand_r1cs(&r);
    hand_wtns(&w);
    CHECK_ST(nnc_prv_r1cs_write_file(path_in(p, sizeof p, "hand.r1cs"), &r, err, sizeof err), NNC_STATUS_OK, err);
    free(r.wire_label);
    r.wire_label = NULL;
    CHECK_ST(nnc_prv_r1cs_write_file(path_in(p, sizeof p, "hand_nomap.r1cs"), &r, err, sizeof err), NNC_STATUS_OK, err);
    CHECK_ST(nnc_prv_wtns_write_file(path_in(p, sizeof p, "hand.wtns"), &w, err, sizeof err), NNC_STATUS_OK, err);
    fr_u64(&w.v[4], 43);
    CHECK_ST(nnc_prv_wtns_write_file(path_in(p, sizeof p, "hand_bad.wtns"), &w, err, sizeof err), NNC_STATUS_OK, err);
    fr_u64(&w.v[4], 42);
    CHECK_EQ(sh("( \"$B/snarkjs\" r1cs info hand.r1cs > hand_info.txt 2>&1 ) & i=$!\n"
                "( \"$B/snarkjs\" wtns check hand.r1cs hand.wtns > hand_check.log 2>&1 ) & c=$!\n"
                "( \"$B/snarkjs\" wtns check hand_nomap.r1cs hand.wtns > hand_nomap.log 2>&1 ) & e=$!\n"
                "( \"$B/snarkjs\" wtns check hand.r1cs hand_bad.wtns > hand_bad.log 2>&1; echo $? > hand_bad.rc ) & d=$!\n"
                "\"$B/snarkjs\" groth16 setup hand.r1cs pf.ptau hand.zkey > hand_setup.log 2>&1 || exit 1\n"
                "wait $i || exit 1\n"
                "wait $c || exit 1\n"
                "wait $d || exit 1\n"
                "wait $e || exit 1\n"),
             0);
    info = (char *)slurp(path_in(p, sizeof p, "hand_info.txt"), &n);
    CHECK(info != NULL);
    CHECK_EQ(info_count(info, "# of Wires"), 5);
    CHECK_EQ(info_count(info, "# of Constraints"), 3);
    CHECK_EQ(info_count(info, "# of Private Inputs"), 1);
    CHECK_EQ(info_count(info, "# of Public Inputs"), 1);
    CHECK_EQ(info_count(info, "# of Outputs"), 1);
    CHECK_EQ(info_count(info, "# of Labels"), 5);
    free(info);
    info = (char *)slurp(path_in(p, sizeof p, "hand_check.log"), &n);
    CHECK(info != NULL && strstr(info, "WITNESS IS CORRECT") != NULL);
    free(info);
    info = (char *)slurp(path_in(p, sizeof p, "hand_nomap.log"), &n);
    CHECK(info != NULL && strstr(info, "WITNESS IS CORRECT") != NULL && strstr(info, "Labels:         5") != NULL);
    free(info);
    info = (char *)slurp(path_in(p, sizeof p, "hand_bad.rc"), &n);
    CHECK(info != NULL && atoi(info) != 0);
    free(info);

    /* prove with snarkjs, verify with snarkjs against the key we export */
    CHECK_ST(nnc_prv_zkey_read_file(&z, path_in(p, sizeof p, "hand.zkey"), NNC_PRV_ZKEY_CHECK_SUBGROUP, err, sizeof err),
             NNC_STATUS_OK, err);
    CHECK_EQ(z.n_vars, 5);
    CHECK_EQ(z.n_public, 2);
    CHECK_EQ(nnc_prv_g16_vk_from_zkey(&vk, &z), NNC_STATUS_OK);
    CHECK_ST(nnc_prv_g16_vk_write_file(path_in(p, sizeof p, "hand_vk.json"), &vk, err, sizeof err), NNC_STATUS_OK, err);
    CHECK_EQ(sh("\"$B/snarkjs\" groth16 prove hand.zkey hand.wtns hand_proof.json hand_public.json > hand_prove.log 2>&1 && "
                "\"$B/snarkjs\" groth16 verify hand_vk.json hand_public.json hand_proof.json > hand_verify.log 2>&1"),
             0);
    info = (char *)slurp(path_in(p, sizeof p, "hand_verify.log"), &n);
    CHECK(info != NULL && strstr(info, "OK") != NULL);
    free(info);
    CHECK_ST(nnc_prv_public_read_file(&pub, path_in(p, sizeof p, "hand_public.json"), err, sizeof err), NNC_STATUS_OK, err);
    CHECK_EQ(pub.n, 2);
    fr_u64(&t, 420);
    CHECK(nnc_fr_eq(&pub.v[0], &t));
    fr_u64(&t, 6);
    CHECK(nnc_fr_eq(&pub.v[1], &t));
    CHECK_ST(nnc_prv_g16_proof_read_file(&pr, path_in(p, sizeof p, "hand_proof.json"), err, sizeof err), NNC_STATUS_OK, err);
    /* proof and public inputs we rewrite verify too */
    CHECK_ST(nnc_prv_g16_proof_write_file(path_in(p, sizeof p, "hand_proof2.json"), &pr, err, sizeof err), NNC_STATUS_OK, err);
    CHECK_ST(nnc_prv_public_write_file(path_in(q, sizeof q, "hand_public2.json"), &pub, err, sizeof err), NNC_STATUS_OK, err);
    CHECK(same_file(p, path_in(err, sizeof err, "hand_proof.json")));
    CHECK(same_file(q, path_in(err, sizeof err, "hand_public.json")));
    nnc_prv_fr_vec_clear(&pub);
    nnc_prv_g16_vk_clear(&vk);
    nnc_prv_zkey_clear(&z);
    nnc_prv_fr_vec_clear(&w);
    nnc_prv_r1cs_clear(&r);
}
END_TEST

static Suite *suite(int interop)
{
    Suite *s = suite_create("prover_formats");
    TCase *tc = tcase_create("standalone");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_roundtrip_handmade);
    tcase_add_test(tc, test_malformed_r1cs);
    tcase_add_test(tc, test_malformed_wtns);
    tcase_add_test(tc, test_malformed_zkey);
    tcase_add_test(tc, test_zkey_sections_threads);
    tcase_add_test(tc, test_json_handmade);
    tcase_add_test(tc, test_mutations);
    suite_add_tcase(s, tc);
    if (interop) {
        tc = tcase_create("snarkjs");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_snarkjs_r1cs);
        tcase_add_test(tc, test_snarkjs_wtns);
        tcase_add_test(tc, test_snarkjs_zkey);
        tcase_add_test(tc, test_snarkjs_json);
        tcase_add_test(tc, test_snarkjs_accepts_ours);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    const char *bin = getenv("NNC_PEERS_BIN");
    char tool[1200], skip[256] = "";
    int failed, interop = 0;
    time_t t0 = time(NULL);

    harness_seed("test_prover_formats");
    if (realpath(bin && *bin ? bin : "tests/peers/node_modules/.bin", g_bin) == NULL)
        snprintf(skip, sizeof skip, "snarkjs and circom2 not installed (npm ci --prefix tests/peers)");
    snprintf(tool, sizeof tool, "%s/snarkjs", g_bin);
    if (!skip[0] && access(tool, X_OK) != 0)
        snprintf(skip, sizeof skip, "snarkjs not installed (npm ci --prefix tests/peers)");
    snprintf(tool, sizeof tool, "%s/circom2", g_bin);
    if (!skip[0] && access(tool, X_OK) != 0)
        snprintf(skip, sizeof skip, "circom2 not installed (npm ci --prefix tests/peers)");
    if (!skip[0] && system("node --version > /dev/null 2>&1") != 0)
        snprintf(skip, sizeof skip, "node not found");
    if (!skip[0]) {
        snprintf(g_dir, sizeof g_dir, "%s/nnc_formats_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (mkdtemp(g_dir) == NULL) {
            snprintf(skip, sizeof skip, "cannot create a temporary folder");
            g_dir[0] = 0;
        } else if (make_snarkjs_files() != 0) {
            printf("test_prover_formats: FAILED to run snarkjs/circom2 in %s\n", g_dir);
            return 1;
        } else {
            interop = 1;
        }
    }
    fflush(stdout);
    failed = check_main_run(suite(interop));
    if (g_dir[0] && !failed && !(getenv("NNC_TEST_KEEP") && *getenv("NNC_TEST_KEEP")))
        sh("cd / && rm -rf '%s'", g_dir);
    printf("test_prover_formats: %lds\n", (long)(time(NULL) - t0));
    if (failed)
        return 1;
    if (!interop) {
        printf("test_prover_formats: standalone tests passed; snarkjs interop skipped: %s\n", skip);
        return 77;
    }
    return 0;
}
