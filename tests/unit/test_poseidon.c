/* Unit tests of zk/poseidon.c.
 *
 * Ground truth here is an independent model written with GMP integers mod r:
 * its own Grain LFSR (a plain 80-entry shift register moved with memmove,
 * as the Poseidon reference script shifts its list) and its own round loop,
 * sharing no code with the library's Montgomery-form implementation.  It is
 * compared entry by entry on every round constant and MDS entry of every
 * width, and on hashes of 0, r-1 and random inputs.  Three published
 * circomlib test vectors pin the model itself; the full comparison with
 * circomlibjs is tests/e2e/poseidon.sh. */
#include <gmp.h>
#include <pthread.h>
#include <string.h>

#include "nncert/poseidon.h"
#include "tests/unit/prover_test_util.h"

static const char *R_DEC = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
static const int RP[16] = {56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68};

/* ---- the GMP model ---- */

typedef struct model_lfsr { unsigned char b[80]; } model_lfsr;

static unsigned model_shift(model_lfsr *s)
{
    unsigned nb = s->b[62] ^ s->b[51] ^ s->b[38] ^ s->b[23] ^ s->b[13] ^ s->b[0];
    memmove(s->b, s->b + 1, 79);
    s->b[79] = (unsigned char)nb;
    return nb;
}

static void model_seed(model_lfsr *s, int t, int rp)
{
    /* 80 bits: "01" "0000" bin12(254) bin12(t) bin10(8) bin10(rp) 1^30 */
    char bits[81];
    int k = 0;
    const int vals[6] = {1, 0, 254, t, 8, rp}, lens[6] = {2, 4, 12, 12, 10, 10};
    for (int f = 0; f < 6; f++)
        for (int i = lens[f] - 1; i >= 0; i--)
            bits[k++] = (char)('0' + ((vals[f] >> i) & 1));
    while (k < 80)
        bits[k++] = '1';
    for (int i = 0; i < 80; i++)
        s->b[i] = (unsigned char)(bits[i] - '0');
    for (int i = 0; i < 160; i++)
        model_shift(s);
}

static unsigned model_bit(model_lfsr *s)
{
    for (;;) {
        unsigned a = model_shift(s), b = model_shift(s);
        if (a)
            return b;
    }
}

/* x = next 254 bits, first bit most significant */
static void model_bits(mpz_t x, model_lfsr *s)
{
    mpz_set_ui(x, 0);
    for (int i = 0; i < 254; i++) {
        mpz_mul_2exp(x, x, 1);
        mpz_add_ui(x, x, model_bit(s));
    }
}

typedef struct model_params {
    int t, rounds;
    mpz_t c[17 * 76];
    mpz_t m[17][17];
} model_params;

static void model_build(model_params *p, int t, const mpz_t r)
{
    model_lfsr s;
    mpz_t v[34], sum;
    p->t = t;
    p->rounds = 8 + RP[t - 2];
    model_seed(&s, t, RP[t - 2]);
    for (int k = 0; k < t * p->rounds; k++) {
        mpz_init(p->c[k]);
        do
            model_bits(p->c[k], &s);
        while (mpz_cmp(p->c[k], r) >= 0);
    }
    for (int i = 0; i < 2 * t; i++)
        mpz_init(v[i]);
    mpz_init(sum);
    for (int i = 0; i < t; i++)
        for (int j = 0; j < t; j++)
            mpz_init(p->m[i][j]);
    for (int ok = 0; !ok;) {
        int dup;
        do {
            for (int i = 0; i < 2 * t; i++) {
                model_bits(v[i], &s);
                mpz_mod(v[i], v[i], r);
            }
            dup = 0;
            for (int i = 0; i < 2 * t; i++)
                for (int j = 0; j < i; j++)
                    dup |= mpz_cmp(v[i], v[j]) == 0;
        } while (dup);
        ok = 1;
        for (int i = 0; i < t; i++)
            for (int j = 0; j < t; j++) {
                mpz_add(sum, v[i], v[t + j]);
                mpz_mod(sum, sum, r);
                if (!mpz_invert(p->m[i][j], sum, r))
                    ok = 0;
            }
    }
    for (int i = 0; i < 2 * t; i++)
        mpz_clear(v[i]);
    mpz_clear(sum);
}

static void model_clear(model_params *p)
{
    for (int k = 0; k < p->t * p->rounds; k++)
        mpz_clear(p->c[k]);
    for (int i = 0; i < p->t; i++)
        for (int j = 0; j < p->t; j++)
            mpz_clear(p->m[i][j]);
}

/* out = poseidon(in[0..t-2]) by the textbook round loop, integers mod r */
static void model_hash(mpz_t out, const model_params *p, mpz_t *in, const mpz_t r)
{
    const int t = p->t;
    mpz_t s[17], n[17], x;
    mpz_init(x);
    for (int i = 0; i < t; i++) {
        mpz_init(n[i]);
        mpz_init_set(s[i], i ? in[i - 1] : x);
    }
    for (int rd = 0; rd < p->rounds; rd++) {
        for (int i = 0; i < t; i++) {
            mpz_add(s[i], s[i], p->c[rd * t + i]);
            if (i == 0 || rd < 4 || rd >= p->rounds - 4)
                mpz_powm_ui(s[i], s[i], 5, r);
            else
                mpz_mod(s[i], s[i], r);
        }
        for (int i = 0; i < t; i++) {
            mpz_set_ui(n[i], 0);
            for (int j = 0; j < t; j++)
                mpz_addmul(n[i], p->m[i][j], s[j]);
        }
        for (int i = 0; i < t; i++)
            mpz_mod(s[i], n[i], r);
    }
    mpz_set(out, s[0]);
    for (int i = 0; i < t; i++) {
        mpz_clear(s[i]);
        mpz_clear(n[i]);
    }
    mpz_clear(x);
}

/* ---- conversions ---- */

static void fr_from_mpz(nnc_prv_fr *out, const mpz_t x)
{
    char buf[100];
    gmp_snprintf(buf, sizeof buf, "%Zd", x);
    CHECK(nnc_prv_fr_parse_dec(out, buf, 0, NULL, 0) == NNC_STATUS_OK);
}

static void fr_to_mpz(mpz_t out, const nnc_prv_fr *a)
{
    char buf[NNC_PRV_DEC_BUFSIZE];
    CHECK(nnc_prv_fr_serialize_dec(buf, sizeof buf, a) == NNC_STATUS_OK);
    CHECK(mpz_set_str(out, buf, 10) == 0);
}

static int fr_eq_mpz(const nnc_prv_fr *a, const mpz_t x)
{
    mpz_t y;
    int eq;
    mpz_init(y);
    fr_to_mpz(y, a);
    eq = mpz_cmp(x, y) == 0;
    mpz_clear(y);
    return eq;
}

/* ---- tests ---- */

/* circomlib's own test vectors (circomlib test/poseidoncircuit.js and
 * circomlibjs test/poseidon.js): poseidon([1]), ([1,2]), ([1,2,3,4]). */
START_TEST(test_published_vectors)
{
    static const struct { size_t n; const char *out; } v[] = {
        {1, "18586133768512220936620570745912940619677854269274689475585506675881198879027"},
        {2, "7853200120776062878684798364095072458815029376092732009249414926327459813530"},
        {4, "18821383157269793795438455681495246036402687001665670618754263018637548127333"},
    };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        nnc_prv_fr in[4], out, want;
        char dec[2] = {0, 0};
        for (size_t i = 0; i < v[k].n; i++) {
            dec[0] = (char)('1' + i);
            CHECK(nnc_prv_fr_parse_dec(&in[i], dec, 0, NULL, 0) == NNC_STATUS_OK);
        }
        CHECK(nnc_prv_fr_parse_dec(&want, v[k].out, 0, NULL, 0) == NNC_STATUS_OK);
        CHECK(nnc_prv_poseidon_hash(&out, in, v[k].n) == NNC_STATUS_OK);
        CHECK(memcmp(&out, &want, sizeof out) == 0);
    }
}
END_TEST

/* Every constant and hashes of 0, r-1 and random inputs equal the GMP
 * model, for width t = 2 + _i. */
START_TEST(test_against_model)
{
    const int t = 2 + _i;
    model_params *mp = malloc(sizeof *mp);
    const nnc_prv_poseidon_params *p = nnc_prv_poseidon_params_get(t);
    mpz_t r, in[16], want;
    rng g = rng_for(0x9051d0 + (uint64_t)t);
    ck_assert_ptr_nonnull(mp);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->t, t);
    ck_assert_int_eq(p->n_full, 8);
    ck_assert_int_eq(p->n_partial, RP[t - 2]);
    mpz_init_set_str(r, R_DEC, 10);
    model_build(mp, t, r);
    for (int k = 0; k < t * mp->rounds; k++)
        CHECK(fr_eq_mpz(&p->c[k], mp->c[k]));
    for (int i = 0; i < t; i++)
        for (int j = 0; j < t; j++)
            CHECK(fr_eq_mpz(&p->m[i * t + j], mp->m[i][j]));

    mpz_init(want);
    for (int i = 0; i < t - 1; i++)
        mpz_init(in[i]);
    for (int trial = 0; trial < 6; trial++) {
        nnc_prv_fr fin[16], out;
        for (int i = 0; i < t - 1; i++) {
            if (trial == 0)
                mpz_set_ui(in[i], 0);
            else if (trial == 1)
                mpz_sub_ui(in[i], r, 1);
            else {
                mpz_set_ui(in[i], 0);
                for (int w = 0; w < 4; w++) {
                    mpz_mul_2exp(in[i], in[i], 64);
                    mpz_add_ui(in[i], in[i], (unsigned long)rng_next(&g));
                }
                mpz_mod(in[i], in[i], r);
            }
            fr_from_mpz(&fin[i], in[i]);
        }
        model_hash(want, mp, in, r);
        CHECK(nnc_prv_poseidon_hash(&out, fin, (size_t)t - 1) == NNC_STATUS_OK);
        CHECK(fr_eq_mpz(&out, want));
    }
    for (int i = 0; i < t - 1; i++)
        mpz_clear(in[i]);
    mpz_clear(want);
    mpz_clear(r);
    model_clear(mp);
    free(mp);
}
END_TEST

START_TEST(test_api)
{
    nnc_prv_fr in[17], out, s[17], h;
    rng g = rng_for(0xa91);
    ck_assert_ptr_null(nnc_prv_poseidon_params_get(1));
    ck_assert_ptr_null(nnc_prv_poseidon_params_get(18));
    ck_assert_ptr_null(nnc_prv_poseidon_params_get(-5));
    ck_assert_int_eq(nnc_prv_poseidon_hash(&out, in, 0), NNC_STATUS_ARG);
    memset(in, 0, sizeof in);
    ck_assert_int_eq(nnc_prv_poseidon_hash(&out, in, 17), NNC_STATUS_ARG);
    /* the same pointer on every call */
    ck_assert_ptr_eq(nnc_prv_poseidon_params_get(5), nnc_prv_poseidon_params_get(5));

    for (size_t n = 1; n <= 16; n++) {
        for (size_t i = 0; i < n; i++) {
            char dec[32];
            snprintf(dec, sizeof dec, "%llu", (unsigned long long)rng_next(&g));
            CHECK(nnc_prv_fr_parse_dec(&in[i], dec, 0, NULL, 0) == NNC_STATUS_OK);
        }
        /* hash = permute((0, in...))[0] */
        memset(&s[0], 0, sizeof s[0]);
        memcpy(&s[1], in, n * sizeof in[0]);
        nnc_prv_poseidon_permute(s, nnc_prv_poseidon_params_get((int)n + 1));
        CHECK(nnc_prv_poseidon_hash(&h, in, n) == NNC_STATUS_OK);
        CHECK(memcmp(&h, &s[0], sizeof h) == 0);
        /* out may alias in */
        nnc_prv_fr copy[16];
        memcpy(copy, in, sizeof copy);
        CHECK(nnc_prv_poseidon_hash(&copy[n - 1], copy, n) == NNC_STATUS_OK);
        CHECK(memcmp(&copy[n - 1], &h, sizeof h) == 0);
        /* every input matters: changing in[i] changes the hash */
        for (size_t i = 0; i < n; i++) {
            memcpy(copy, in, sizeof copy);
            copy[i].v[0] ^= 1; /* stays < r: r's low limb leaves room */
            CHECK(nnc_prv_poseidon_hash(&out, copy, n) == NNC_STATUS_OK);
            CHECK(memcmp(&out, &h, sizeof h) != 0);
        }
    }
}
END_TEST

/* The permutation (computed with sparse partial rounds, zk/poseidon.c)
 * equals the plain rounds of the header on whole random states, and on the
 * states 0 and all r - 1, for width t = 2 + _i. */
static void plain_permute(nnc_fr *s, const nnc_prv_poseidon_params *p)
{
    const int t = p->t, half = p->n_full / 2;
    for (int r = 0; r < p->n_full + p->n_partial; r++) {
        const int full = r < half || r >= half + p->n_partial;
        nnc_fr y[17];
        for (int i = 0; i < t; i++) {
            nnc_fr_add(&s[i], &s[i], &p->c[r * t + i]);
            if (full || i == 0) {
                nnc_fr x = s[i];
                nnc_fr_mul(&s[i], &x, &x);
                nnc_fr_mul(&s[i], &s[i], &s[i]);
                nnc_fr_mul(&s[i], &s[i], &x);
            }
        }
        for (int i = 0; i < t; i++) {
            nnc_fr_set_zero(&y[i]);
            for (int j = 0; j < t; j++) {
                nnc_fr pr;
                nnc_fr_mul(&pr, &p->m[i * t + j], &s[j]);
                nnc_fr_add(&y[i], &y[i], &pr);
            }
        }
        memcpy(s, y, (size_t)t * sizeof y[0]);
    }
}

START_TEST(test_permute_plain)
{
    const int t = 2 + _i;
    const nnc_prv_poseidon_params *p = nnc_prv_poseidon_params_get(t);
    rng g = rng_for(0x5ba75e + (uint64_t)t);
    ck_assert_ptr_nonnull(p);
    for (int trial = 0; trial < 40; trial++) {
        nnc_fr a[17], b[17];
        for (int i = 0; i < t; i++) {
            if (trial == 0)
                nnc_fr_set_zero(&a[i]);
            else if (trial == 1) {
                nnc_fr_set_one(&a[i]);
                nnc_fr_neg(&a[i], &a[i]);
            } else
                rng_fr_uniform(&a[i], &g);
        }
        memcpy(b, a, sizeof a);
        nnc_prv_poseidon_permute(a, p);
        plain_permute(b, p);
        for (int i = 0; i < t; i++)
            CHECK(nnc_fr_eq(&a[i], &b[i]));
    }
}
END_TEST

/* First use from several threads at once (Check forks each test, so the
 * tables are unbuilt here): all see the same finished tables. */
typedef struct race_arg { nnc_prv_fr out[16]; } race_arg;
static void *race_main(void *a)
{
    race_arg *ra = a;
    nnc_prv_fr in[16];
    memset(in, 0, sizeof in);
    for (size_t n = 16; n >= 1; n--)
        (void)nnc_prv_poseidon_hash(&ra->out[n - 1], in, n);
    return NULL;
}

START_TEST(test_first_use_threads)
{
    enum { N = 4 };
    pthread_t th[N];
    static race_arg ra[N];
    nnc_prv_fr in[16], want;
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, race_main, &ra[i]), 0);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    memset(in, 0, sizeof in);
    for (size_t n = 1; n <= 16; n++) {
        CHECK(nnc_prv_poseidon_hash(&want, in, n) == NNC_STATUS_OK);
        for (int i = 0; i < N; i++)
            CHECK(memcmp(&ra[i].out[n - 1], &want, sizeof want) == 0);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("poseidon");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_first_use_threads);
    tcase_add_test(tc, test_published_vectors);
    tcase_add_loop_test(tc, test_against_model, 0, 16);
    tcase_add_test(tc, test_api);
    tcase_add_loop_test(tc, test_permute_plain, 0, 16);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_main("test_poseidon", suite);
}
