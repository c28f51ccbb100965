/* BN254 fields: Fq and Fr (prover/field_impl.h), the tower Fq2/Fq6/Fq12
 * (prover/tower_impl.h) and the public conversions (nncert/prover.h),
 * checked against GMP as the oracle.  The generic 4-limb layer is also run
 * exhaustively on small primes and randomly on a prime just below 2^256,
 * which exercises the carry paths BN254's moduli (< 2^254) never reach.
 *
 * Random inputs come from a seed printed at start; NNC_TEST_SEED=<n> replays
 * a run. */
#include "nncert/prover.h"
#include "prover/tower_impl.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------- helpers */

/* (each test draws from its own stream: rng_for(tag), tests/unit/harness.h) */

static void limbs_to_mpz(mpz_t out, const uint64_t x[4]) { mpz_import(out, 4, -1, 8, 0, 0, x); }
static void mpz_to_limbs(uint64_t x[4], const mpz_t v)
{
    size_t cnt = 0;
    CHECK(mpz_sgn(v) >= 0 && mpz_sizeinbase(v, 2) <= 256);
    x[0] = x[1] = x[2] = x[3] = 0;
    mpz_export(x, &cnt, -1, 8, 0, 0, v);
}

/* A random integer in [0, m): uniform 3/5 of the time, otherwise a
 * structured value: limbs drawn from {0, 1, 2^63, 2^64-1, random} reduced
 * mod m, a small value, or m minus a small value. */
static void rand_mod(mpz_t out, rng *r, const mpz_t m)
{
    uint64_t x[4];
    unsigned kind = (unsigned)(rng_next(r) % 5);
    int i;
    if (kind < 3) {
        for (i = 0; i < 4; i++) x[i] = rng_next(r);
        limbs_to_mpz(out, x);
        mpz_mod(out, out, m);
    } else if (kind == 3) {
        for (i = 0; i < 4; i++) {
            static const uint64_t pat[4] = {0, 1, 0x8000000000000000ULL, ~0ULL};
            uint64_t c = rng_next(r) % 5;
            x[i] = c < 4 ? pat[c] : rng_next(r);
        }
        limbs_to_mpz(out, x);
        mpz_mod(out, out, m);
    } else {
        mpz_set_ui(out, rng_next(r) % 4);
        if (rng_next(r) & 1) {
            mpz_sub(out, m, out);
            mpz_sub_ui(out, out, 1);
        }
    }
}

/* ----------------------------------------------- per-field test harness */

/* Fq and Fr seen through one table of wrappers over uint64_t[4] limbs
 * (Montgomery form), so the same checks run on both. */
typedef struct field_ops {
    const char *name;
    const char *modulus;
    void (*add)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*sub)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*mul)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*sqr)(uint64_t *, const uint64_t *);
    void (*dbl)(uint64_t *, const uint64_t *);
    void (*neg)(uint64_t *, const uint64_t *);
    void (*inv)(uint64_t *, const uint64_t *);
    void (*inv_var)(uint64_t *, const uint64_t *);
    void (*pow)(uint64_t *, const uint64_t *, const uint64_t *);
    int (*sqrt)(uint64_t *, const uint64_t *);
    int (*is_square)(const uint64_t *);
    void (*inv_batch)(uint64_t *, const uint64_t *, size_t);
    int (*from_int)(uint64_t *, const uint64_t *);
    void (*to_int)(uint64_t *, const uint64_t *);
    void (*set_u64)(uint64_t *, uint64_t);
    int (*set_b32)(uint64_t *, const unsigned char *, nnc_prv_endian);
    void (*get_b32)(unsigned char *, const uint64_t *, nnc_prv_endian);
    int (*is_zero)(const uint64_t *);
    int (*is_one)(const uint64_t *);
    int (*eq)(const uint64_t *, const uint64_t *);
    void (*cmov)(uint64_t *, const uint64_t *, int);
    nnc_fe4_mod mod;
} field_ops;

/* Wrappers: in-place forms (r aliasing an input) on purpose. */
#define DEF_WRAPPERS(P, T)                                                                        \
    static void P##_w_add(uint64_t *r, const uint64_t *a, const uint64_t *b)                      \
    { T x, y; memcpy(x.v, a, 32); memcpy(y.v, b, 32); P##_add(&x, &x, &y); memcpy(r, x.v, 32); } \
    static void P##_w_sub(uint64_t *r, const uint64_t *a, const uint64_t *b)                      \
    { T x, y; memcpy(x.v, a, 32); memcpy(y.v, b, 32); P##_sub(&y, &x, &y); memcpy(r, y.v, 32); } \
    static void P##_w_mul(uint64_t *r, const uint64_t *a, const uint64_t *b)                      \
    { T x, y; memcpy(x.v, a, 32); memcpy(y.v, b, 32); P##_mul(&y, &x, &y); memcpy(r, y.v, 32); } \
    static void P##_w_sqr(uint64_t *r, const uint64_t *a)                                         \
    { T x; memcpy(x.v, a, 32); P##_sqr(&x, &x); memcpy(r, x.v, 32); }                             \
    static void P##_w_dbl(uint64_t *r, const uint64_t *a)                                         \
    { T x; memcpy(x.v, a, 32); P##_dbl(&x, &x); memcpy(r, x.v, 32); }                             \
    static void P##_w_neg(uint64_t *r, const uint64_t *a)                                         \
    { T x; memcpy(x.v, a, 32); P##_neg(&x, &x); memcpy(r, x.v, 32); }                             \
    static void P##_w_inv(uint64_t *r, const uint64_t *a)                                         \
    { T x; memcpy(x.v, a, 32); P##_inv(&x, &x); memcpy(r, x.v, 32); }                             \
    static void P##_w_inv_var(uint64_t *r, const uint64_t *a)                                     \
    { T x; memcpy(x.v, a, 32); P##_inv_var(&x, &x); memcpy(r, x.v, 32); }                         \
    static void P##_w_pow(uint64_t *r, const uint64_t *a, const uint64_t *e)                      \
    { T x; memcpy(x.v, a, 32); P##_pow(&x, &x, e); memcpy(r, x.v, 32); }                          \
    static int P##_w_sqrt(uint64_t *r, const uint64_t *a)                                         \
    { T x; int ok; memcpy(x.v, a, 32); ok = P##_sqrt(&x, &x); memcpy(r, x.v, 32); return ok; }   \
    static int P##_w_is_square(const uint64_t *a)                                                 \
    { T x; memcpy(x.v, a, 32); return P##_is_square(&x); }                                        \
    static void P##_w_inv_batch(uint64_t *out, const uint64_t *in, size_t n)                      \
    {                                                                                             \
        T *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);                                 \
        memcpy(a, in, n * 32);                                                                    \
        P##_inv_batch(b, a, n);                                                                   \
        memcpy(out, b, n * 32);                                                                   \
        free(a);                                                                                  \
        free(b);                                                                                  \
    }                                                                                             \
    static int P##_w_from_int(uint64_t *r, const uint64_t *x)                                     \
    { T y; int ok; memcpy(y.v, r, 32); ok = P##_from_int(&y, x); memcpy(r, y.v, 32); return ok; } \
    static void P##_w_to_int(uint64_t *x, const uint64_t *a)                                      \
    { T y; memcpy(y.v, a, 32); P##_to_int(x, &y); }                                               \
    static void P##_w_set_u64(uint64_t *r, uint64_t v)                                            \
    { T y; P##_set_u64(&y, v); memcpy(r, y.v, 32); }                                              \
    static int P##_w_set_b32(uint64_t *r, const unsigned char *b, nnc_prv_endian e)               \
    { T y; int ok; memcpy(y.v, r, 32); ok = P##_set_b32(&y, b, e); memcpy(r, y.v, 32); return ok; } \
    static void P##_w_get_b32(unsigned char *b, const uint64_t *a, nnc_prv_endian e)              \
    { T y; memcpy(y.v, a, 32); P##_get_b32(b, &y, e); }                                           \
    static int P##_w_is_zero(const uint64_t *a) { T y; memcpy(y.v, a, 32); return P##_is_zero(&y); } \
    static int P##_w_is_one(const uint64_t *a) { T y; memcpy(y.v, a, 32); return P##_is_one(&y); } \
    static int P##_w_eq(const uint64_t *a, const uint64_t *b)                                     \
    { T x, y; memcpy(x.v, a, 32); memcpy(y.v, b, 32); return P##_eq(&x, &y); }                    \
    static void P##_w_cmov(uint64_t *r, const uint64_t *a, int f)                                 \
    { T x, y; memcpy(x.v, r, 32); memcpy(y.v, a, 32); P##_cmov(&x, &y, f); memcpy(r, x.v, 32); }

#define OPS_INIT(P)                                                                              \
    P##_w_add, P##_w_sub, P##_w_mul, P##_w_sqr, P##_w_dbl, P##_w_neg, P##_w_inv, P##_w_inv_var,  \
        P##_w_pow, P##_w_sqrt, P##_w_is_square, P##_w_inv_batch, P##_w_from_int, P##_w_to_int,   \
        P##_w_set_u64, P##_w_set_b32, P##_w_get_b32, P##_w_is_zero, P##_w_is_one, P##_w_eq,      \
        P##_w_cmov

DEF_WRAPPERS(nnc_fq, nnc_fq)
DEF_WRAPPERS(nnc_fr, nnc_fr)

#define FQ_DEC "21888242871839275222246405745257275088696311157297823662689037894645226208583"
#define FR_DEC "21888242871839275222246405745257275088548364400416034343698204186575808495617"

static const field_ops FIELDS[2] = {
    {"Fq", FQ_DEC, OPS_INIT(nnc_fq), NNC_FQ_MOD_INIT},
    {"Fr", FR_DEC, OPS_INIT(nnc_fr), NNC_FR_MOD_INIT},
};

/* Per-field GMP context: m, R = 2^256. */
typedef struct fctx {
    const field_ops *f;
    mpz_t m, R, Rinv;
} fctx;
static void fctx_init(fctx *c, const field_ops *f)
{
    c->f = f;
    mpz_init_set_str(c->m, f->modulus, 10);
    mpz_init(c->R);
    mpz_setbit(c->R, 256);
    mpz_init(c->Rinv);
    CHECK(mpz_invert(c->Rinv, c->R, c->m));
}
static void fctx_clear(fctx *c)
{
    mpz_clear(c->m);
    mpz_clear(c->R);
    mpz_clear(c->Rinv);
}
/* element (Montgomery) from integer v < m, via the GMP oracle only */
static void to_elem(const fctx *c, uint64_t e[4], const mpz_t v)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul(t, v, c->R);
    mpz_mod(t, t, c->m);
    mpz_to_limbs(e, t);
    mpz_clear(t);
}
/* integer of element e, via the GMP oracle only; also checks e < m */
static void from_elem(const fctx *c, mpz_t v, const uint64_t e[4])
{
    limbs_to_mpz(v, e);
    CHECK_MSG(mpz_cmp(v, c->m) < 0, "%s element not reduced", c->f->name);
    mpz_mul(v, v, c->Rinv);
    mpz_mod(v, v, c->m);
}
static void expect(const fctx *c, const uint64_t e[4], const mpz_t want, const char *op, const mpz_t a,
                   const mpz_t b)
{
    mpz_t got;
    mpz_init(got);
    from_elem(c, got, e);
    if (mpz_cmp(got, want) != 0) {
        gmp_fprintf(stderr, "%s %s mismatch (seed %llu)\n a = %Zd\n b = %Zd\n got  %Zd\n want %Zd\n",
                    c->f->name, op, (unsigned long long)g_seed, a, b, got, want);
        ck_abort_msg("%s %s mismatch", c->f->name, op);
    }
    mpz_clear(got);
}

/* The edge values of the issue: 0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2, and
 * all-ones limb patterns reduced mod m. */
#define N_EDGE 12
static void edge_value(const fctx *c, mpz_t v, int i)
{
    uint64_t x[4];
    switch (i) {
    case 0: mpz_set_ui(v, 0); break;
    case 1: mpz_set_ui(v, 1); break;
    case 2: mpz_set_ui(v, 2); break;
    case 3: mpz_sub_ui(v, c->m, 1); break;
    case 4: mpz_sub_ui(v, c->m, 2); break;
    case 5: mpz_sub_ui(v, c->m, 1); mpz_fdiv_q_2exp(v, v, 1); break;
    case 6: mpz_add_ui(v, c->m, 1); mpz_fdiv_q_2exp(v, v, 1); break;
    case 7: x[0] = x[1] = x[2] = x[3] = ~0ULL; limbs_to_mpz(v, x); mpz_mod(v, v, c->m); break;
    case 8: x[0] = ~0ULL; x[1] = x[2] = x[3] = 0; limbs_to_mpz(v, x); break;
    case 9: x[0] = x[1] = ~0ULL; x[2] = x[3] = 0; limbs_to_mpz(v, x); break;
    case 10: x[0] = x[1] = x[2] = ~0ULL; x[3] = 0; limbs_to_mpz(v, x); break;
    default: x[0] = 0; x[1] = x[2] = x[3] = ~0ULL; limbs_to_mpz(v, x); mpz_mod(v, v, c->m); break;
    }
}

#define N_RANDOM 10000 /* per cheap operation and field */
#define N_SLOW 1000    /* per inversion, power, square root */

/* ---------------------------------------------------------- field tests */

START_TEST(test_constants)
{
    const field_ops *f = &FIELDS[_i];
    fctx c;
    mpz_t t, u;
    uint64_t x[4];
    fctx_init(&c, f);
    mpz_inits(t, u, NULL);
    limbs_to_mpz(t, f->mod.p);
    CHECK(mpz_cmp(t, c.m) == 0);
    CHECK(mpz_probab_prime_p(c.m, 30) > 0);
    /* n0 * p = -1 mod 2^64 */
    CHECK(f->mod.n0 * f->mod.p[0] == ~0ULL);
    mpz_mod(t, c.R, c.m);
    limbs_to_mpz(u, f->mod.one);
    CHECK(mpz_cmp(t, u) == 0);
    mpz_mul(t, t, c.R);
    mpz_mod(t, t, c.m);
    limbs_to_mpz(u, f->mod.r2);
    CHECK(mpz_cmp(t, u) == 0);
    mpz_mul(t, t, c.R);
    mpz_mod(t, t, c.m);
    limbs_to_mpz(u, f->mod.r3);
    CHECK(mpz_cmp(t, u) == 0);
    if (_i == 0) {
        const uint64_t e1[4] = NNC_FQ_SQRT_EXP_INIT, e2[4] = NNC_FQ_SQRT3_EXP_INIT,
                       e3[4] = NNC_FQ_HALF_EXP_INIT;
        CHECK(mpz_fdiv_ui(c.m, 4) == 3);
        mpz_add_ui(t, c.m, 1); mpz_fdiv_q_2exp(t, t, 2); limbs_to_mpz(u, e1); CHECK(mpz_cmp(t, u) == 0);
        mpz_sub_ui(t, c.m, 3); mpz_fdiv_q_2exp(t, t, 2); limbs_to_mpz(u, e2); CHECK(mpz_cmp(t, u) == 0);
        mpz_sub_ui(t, c.m, 1); mpz_fdiv_q_2exp(t, t, 1); limbs_to_mpz(u, e3); CHECK(mpz_cmp(t, u) == 0);
    } else {
        const uint64_t e3[4] = NNC_FR_HALF_EXP_INIT, ets[4] = NNC_FR_TS_EXP_INIT, rmod[4] = NNC_FR_MODULUS_INIT;
        const nnc_fr root = NNC_FR_ROOT_OF_UNITY_INIT;
        nnc_fr w;
        mpz_t tt;
        int k;
        limbs_to_mpz(t, rmod);
        CHECK(mpz_cmp(t, c.m) == 0);
        mpz_sub_ui(t, c.m, 1); mpz_fdiv_q_2exp(t, t, 1); limbs_to_mpz(u, e3); CHECK(mpz_cmp(t, u) == 0);
        mpz_init(tt);
        mpz_sub_ui(tt, c.m, 1);
        CHECK(mpz_scan1(tt, 0) == NNC_FR_TWO_ADICITY);
        mpz_fdiv_q_2exp(tt, tt, NNC_FR_TWO_ADICITY); /* t */
        mpz_sub_ui(t, tt, 1); mpz_fdiv_q_2exp(t, t, 1); limbs_to_mpz(u, ets); CHECK(mpz_cmp(t, u) == 0);
        /* 5 is a non-residue and the root is 5^t */
        mpz_set_ui(t, 5);
        CHECK(mpz_legendre(t, c.m) == -1);
        mpz_powm(t, t, tt, c.m);
        from_elem(&c, u, root.v);
        CHECK(mpz_cmp(t, u) == 0);
        /* of order exactly 2^28 */
        w = root;
        for (k = 0; k < NNC_FR_TWO_ADICITY - 1; k++) nnc_fr_sqr(&w, &w);
        CHECK(!nnc_fr_is_one(&w));
        nnc_fr_sqr(&w, &w);
        CHECK(nnc_fr_is_one(&w));
        mpz_clear(tt);
    }
    (void)x;
    mpz_clears(t, u, NULL);
    fctx_clear(&c);
}
END_TEST

START_TEST(test_int_conversion_and_bytes)
{
    const field_ops *f = &FIELDS[_i];
    fctx c;
    rng r = rng_for(100 + (uint64_t)_i);
    mpz_t v, w;
    uint64_t x[4], e[4], e2[4];
    unsigned char be[32], le[32], ref[32];
    size_t cnt;
    int i, k;
    fctx_init(&c, f);
    mpz_inits(v, w, NULL);
    for (i = 0; i < N_RANDOM + N_EDGE; i++) {
        if (i < N_EDGE) edge_value(&c, v, i);
        else rand_mod(v, &r, c.m);
        mpz_to_limbs(x, v);
        memset(e, 0xa5, sizeof e);
        CHECK(f->from_int(e, x));
        to_elem(&c, e2, v);
        CHECK(memcmp(e, e2, 32) == 0); /* Montgomery representation x*R mod m */
        f->to_int(e2, e);
        CHECK(memcmp(e2, x, 32) == 0);
        /* bytes against mpz_export */
        f->get_b32(be, e, NNC_PRV_ENDIAN_BIG);
        f->get_b32(le, e, NNC_PRV_ENDIAN_LITTLE);
        memset(ref, 0, 32);
        mpz_export(ref + 32 - (mpz_sizeinbase(v, 256) * (mpz_sgn(v) != 0)), &cnt, 1, 1, 1, 0, v);
        CHECK(memcmp(be, ref, 32) == 0);
        for (k = 0; k < 32; k++) CHECK(le[k] == be[31 - k]);
        memset(e2, 0, 32);
        CHECK(f->set_b32(e2, be, NNC_PRV_ENDIAN_BIG) && memcmp(e2, e, 32) == 0);
        memset(e2, 0, 32);
        CHECK(f->set_b32(e2, le, NNC_PRV_ENDIAN_LITTLE) && memcmp(e2, e, 32) == 0);
    }
    /* m, m+1, 2^256-1 and random values >= m are refused, output zeroed */
    for (i = 0; i < 1000; i++) {
        if (i == 0) mpz_set(v, c.m);
        else if (i == 1) mpz_add_ui(v, c.m, 1);
        else if (i == 2) { mpz_set_ui(v, 0); mpz_setbit(v, 256); mpz_sub_ui(v, v, 1); }
        else {
            for (k = 0; k < 4; k++) x[k] = rng_next(&r);
            limbs_to_mpz(v, x);
            if (mpz_cmp(v, c.m) < 0) continue;
        }
        mpz_to_limbs(x, v);
        memset(e, 0x5a, sizeof e);
        CHECK(!f->from_int(e, x));
        CHECK(f->is_zero(e));
        nnc_fe4_int_to_b32(be, x, NNC_PRV_ENDIAN_BIG);
        memset(e, 0x5a, sizeof e);
        CHECK(!f->set_b32(e, be, NNC_PRV_ENDIAN_BIG));
        CHECK(f->is_zero(e));
        nnc_fe4_int_to_b32(le, x, NNC_PRV_ENDIAN_LITTLE);
        memset(e, 0x5a, sizeof e);
        CHECK(!f->set_b32(e, le, NNC_PRV_ENDIAN_LITTLE));
        CHECK(f->is_zero(e));
    }
    /* set_u64 */
    for (i = 0; i < 1000; i++) {
        uint64_t u = i < 4 ? (uint64_t[]){0, 1, 2, ~0ULL}[i] : rng_next(&r) >> (rng_next(&r) % 64);
        f->set_u64(e, u);
        mpz_set_ui(w, 0);
        mpz_import(w, 1, -1, 8, 0, 0, &u);
        expect(&c, e, w, "set_u64", w, w);
    }
    mpz_clears(v, w, NULL);
    fctx_clear(&c);
}
END_TEST

START_TEST(test_add_sub_neg_dbl)
{
    const field_ops *f = &FIELDS[_i];
    fctx c;
    rng r = rng_for(200 + (uint64_t)_i);
    mpz_t a, b, want;
    uint64_t ea[4], eb[4], er[4];
    int i, j;
    fctx_init(&c, f);
    mpz_inits(a, b, want, NULL);
    for (i = 0; i < N_RANDOM + N_EDGE * N_EDGE; i++) {
        if (i < N_EDGE * N_EDGE) {
            edge_value(&c, a, i / N_EDGE);
            edge_value(&c, b, i % N_EDGE);
        } else {
            rand_mod(a, &r, c.m);
            rand_mod(b, &r, c.m);
        }
        to_elem(&c, ea, a);
        to_elem(&c, eb, b);
        f->add(er, ea, eb);
        mpz_add(want, a, b); mpz_mod(want, want, c.m);
        expect(&c, er, want, "add", a, b);
        f->sub(er, ea, eb);
        mpz_sub(want, a, b); mpz_mod(want, want, c.m);
        expect(&c, er, want, "sub", a, b);
        f->neg(er, ea);
        mpz_neg(want, a); mpz_mod(want, want, c.m);
        expect(&c, er, want, "neg", a, b);
        f->dbl(er, ea);
        mpz_mul_2exp(want, a, 1); mpz_mod(want, want, c.m);
        expect(&c, er, want, "dbl", a, b);
        /* eq, is_zero, is_one, cmov */
        CHECK(f->eq(ea, eb) == (mpz_cmp(a, b) == 0));
        CHECK(f->is_zero(ea) == (mpz_sgn(a) == 0));
        CHECK(f->is_one(ea) == (mpz_cmp_ui(a, 1) == 0));
        for (j = 0; j < 2; j++) {
            memcpy(er, ea, 32);
            f->cmov(er, eb, j);
            CHECK(memcmp(er, j ? eb : ea, 32) == 0);
        }
    }
    mpz_clears(a, b, want, NULL);
    fctx_clear(&c);
}
END_TEST

START_TEST(test_mul_sqr)
{
    const field_ops *f = &FIELDS[_i];
    fctx c;
    rng r = rng_for(300 + (uint64_t)_i);
    mpz_t a, b, want;
    uint64_t ea[4], eb[4], er[4];
    int i;
    fctx_init(&c, f);
    mpz_inits(a, b, want, NULL);
    for (i = 0; i < N_RANDOM + N_EDGE * N_EDGE; i++) {
        if (i < N_EDGE * N_EDGE) {
            edge_value(&c, a, i / N_EDGE);
            edge_value(&c, b, i % N_EDGE);
        } else {
            rand_mod(a, &r, c.m);
            rand_mod(b, &r, c.m);
        }
        to_elem(&c, ea, a);
        to_elem(&c, eb, b);
        f->mul(er, ea, eb);
        mpz_mul(want, a, b); mpz_mod(want, want, c.m);
        expect(&c, er, want, "mul", a, b);
        f->sqr(er, ea);
        mpz_mul(want, a, a); mpz_mod(want, want, c.m);
        expect(&c, er, want, "sqr", a, a);
    }
    /* Montgomery multiplication of raw limbs: the largest inputs (m-1)^2 */
    mpz_sub_ui(a, c.m, 1);
    mpz_to_limbs(ea, a);
    f->mul(er, ea, ea);
    limbs_to_mpz(want, er);
    mpz_mul(b, a, a); mpz_mul(b, b, c.Rinv); mpz_mod(b, b, c.m);
    CHECK(mpz_cmp(want, b) == 0);
    mpz_clears(a, b, want, NULL);
    fctx_clear(&c);
}
END_TEST

START_TEST(test_inv_pow)
{
    const field_ops *f = &FIELDS[_i];
    fctx c;
    rng r = rng_for(400 + (uint64_t)_i);
    mpz_t a, e, want;
    uint64_t ea[4], ee[4], er[4], er2[4], one[4];
    int i, k;
    fctx_init(&c, f);
    mpz_inits(a, e, want, NULL);
    memcpy(one, f->mod.one, 32);
    for (i = 0; i < N_SLOW + N_EDGE; i++) {
        if (i < N_EDGE) edge_value(&c, a, i);
        else rand_mod(a, &r, c.m);
        to_elem(&c, ea, a);
        f->inv(er, ea);
        f->inv_var(er2, ea);
        if (mpz_sgn(a) == 0) {
            CHECK(f->is_zero(er) && f->is_zero(er2));
        } else {
            CHECK(mpz_invert(want, a, c.m));
            expect(&c, er, want, "inv", a, a);
            expect(&c, er2, want, "inv_var", a, a);
            f->mul(er, er, ea);
            CHECK(memcmp(er, one, 32) == 0);
        }
        /* pow with a random (public) exponent, including 0 and 1 */
        if (i % 7 == 0) mpz_set_ui(e, (unsigned long)(i / 7) % 3);
        else {
            for (k = 0; k < 4; k++) ee[k] = rng_next(&r);
            limbs_to_mpz(e, ee);
            mpz_fdiv_q_2exp(e, e, rng_next(&r) % 256);
        }
        mpz_to_limbs(ee, e);
        f->pow(er, ea, ee);
        mpz_powm(want, a, e, c.m);
        expect(&c, er, want, "pow", a, e);
    }
    mpz_clears(a, e, want, NULL);
    fctx_clear(&c);
}
END_TEST

START_TEST(test_sqrt)
{
    const field_ops *f = &FIELDS[_i];
    fctx c;
    rng r = rng_for(500 + (uint64_t)_i);
    mpz_t a, b, got;
    uint64_t ea[4], er[4], es[4];
    int i, ok, leg, squares = 0, nonsquares = 0;
    fctx_init(&c, f);
    mpz_inits(a, b, got, NULL);
    for (i = 0; i < 2 * N_SLOW + N_EDGE; i++) {
        if (i < N_EDGE) edge_value(&c, a, i);
        else rand_mod(a, &r, c.m);
        if (i >= N_EDGE && (i & 1)) { /* make every other one a square */
            mpz_mul(a, a, a);
            mpz_mod(a, a, c.m);
        }
        to_elem(&c, ea, a);
        leg = mpz_legendre(a, c.m);
        ok = f->sqrt(er, ea);
        CHECK_EQ(f->is_square(ea), leg >= 0);
        if (leg >= 0) {
            CHECK_MSG(ok, "%s sqrt failed on a square (seed %llu)", f->name, (unsigned long long)g_seed);
            f->sqr(es, er);
            CHECK(memcmp(es, ea, 32) == 0);
            squares++;
        } else {
            CHECK_MSG(!ok, "%s sqrt accepted a non-square", f->name);
            from_elem(&c, got, er); /* output still a reduced element */
            nonsquares++;
        }
    }
    CHECK(squares > N_SLOW && nonsquares > N_SLOW / 4);
    mpz_clears(a, b, got, NULL);
    fctx_clear(&c);
}
END_TEST

START_TEST(test_inv_batch)
{
    const field_ops *f = &FIELDS[_i];
    fctx c;
    rng r = rng_for(600 + (uint64_t)_i);
    mpz_t a;
    enum { MAXN = 300 };
    uint64_t *in = malloc(MAXN * 32), *out = malloc(MAXN * 32), one_inv[4];
    size_t n, k;
    int round;
    fctx_init(&c, f);
    mpz_init(a);
    for (round = 0; round < 30; round++) {
        n = round < 4 ? (size_t)round : 1 + rng_next(&r) % MAXN;
        for (k = 0; k < n; k++) {
            if (rng_next(&r) % 8 == 0) mpz_set_ui(a, 0); /* zeros stay zeros */
            else rand_mod(a, &r, c.m);
            to_elem(&c, in + 4 * k, a);
        }
        f->inv_batch(out, in, n);
        for (k = 0; k < n; k++) {
            f->inv(one_inv, in + 4 * k);
            CHECK_MSG(memcmp(one_inv, out + 4 * k, 32) == 0, "%s inv_batch n=%zu k=%zu", f->name, n, k);
        }
    }
    mpz_clear(a);
    free(in);
    free(out);
    fctx_clear(&c);
}
END_TEST

/* ------------------------------------------- generic layer, other moduli */

static void make_mod(nnc_fe4_mod *m, const mpz_t p)
{
    mpz_t t, R, w;
    uint64_t pinv;
    mpz_inits(t, R, w, NULL);
    mpz_to_limbs(m->p, p);
    mpz_set_ui(w, 0);
    mpz_setbit(w, 64);
    CHECK(mpz_invert(t, p, w));
    mpz_sub(t, w, t); /* -p^-1 mod 2^64 */
    pinv = 0;
    { size_t cnt; mpz_export(&pinv, &cnt, -1, 8, 0, 0, t); }
    m->n0 = pinv;
    mpz_set_ui(R, 0);
    mpz_setbit(R, 256);
    mpz_mod(t, R, p);
    mpz_to_limbs(m->one, t);
    mpz_mul(t, t, R); mpz_mod(t, t, p);
    mpz_to_limbs(m->r2, t);
    mpz_mul(t, t, R); mpz_mod(t, t, p);
    mpz_to_limbs(m->r3, t);
    mpz_clears(t, R, w, NULL);
}

/* Every add, sub, neg, mul and inverse on small primes against plain
 * integer arithmetic (exhaustive, as secp256k1's tests_exhaustive does). */
START_TEST(test_exhaustive_small_primes)
{
    static const unsigned long primes[] = {3, 5, 13, 251, 1009};
    size_t pi;
    for (pi = 0; pi < sizeof primes / sizeof primes[0]; pi++) {
        unsigned long p = primes[pi], a, b;
        nnc_fe4_mod m;
        mpz_t mp;
        uint64_t (*el)[4] = malloc(p * sizeof *el), r[4], r2[4], x[4];
        mpz_init_set_ui(mp, p);
        make_mod(&m, mp);
        for (a = 0; a < p; a++) {
            x[0] = a; x[1] = x[2] = x[3] = 0;
            CHECK(nnc_fe4_from_int(el[a], x, &m));
            nnc_fe4_to_int(r, el[a], &m);
            CHECK(r[0] == a && r[1] == 0 && r[2] == 0 && r[3] == 0);
        }
        x[0] = p;
        CHECK(!nnc_fe4_from_int(r, x, &m));
        for (a = 0; a < p; a++) {
            nnc_fe4_neg(r, el[a], &m);
            CHECK(memcmp(r, el[(p - a) % p], 32) == 0);
            nnc_fe4_inv(r, el[a], &m);
            nnc_fe4_inv_var(r2, el[a], &m);
            CHECK(memcmp(r, r2, 32) == 0);
            if (a == 0) {
                CHECK(nnc_fe4_is_zero(r));
            } else {
                nnc_fe4_mul(r2, r, el[a], &m);
                CHECK(memcmp(r2, m.one, 32) == 0);
            }
            for (b = 0; b < p; b++) {
                nnc_fe4_add(r, el[a], el[b], &m);
                CHECK(memcmp(r, el[(a + b) % p], 32) == 0);
                nnc_fe4_sub(r, el[a], el[b], &m);
                CHECK(memcmp(r, el[(a + p - b) % p], 32) == 0);
                nnc_fe4_mul(r, el[a], el[b], &m);
                CHECK(memcmp(r, el[(a * b) % p], 32) == 0);
            }
        }
        free(el);
        mpz_clear(mp);
    }
}
END_TEST

/* Moduli near 2^256 and 2^64 exercise the carry out of the top limb in add
 * and the fifth word of the Montgomery product. */
START_TEST(test_generic_large_moduli)
{
    rng r = rng_for(700);
    const char *mods[] = {
        /* 2^256 - 189, the largest prime below 2^256 */
        "115792089237316195423570985008687907853269984665640564039457584007913129639747",
        /* 2^255 - 19 */
        "57896044618658097711785492504343953926634992332820282019728792003956564819949",
        /* secp256k1's p */
        "115792089237316195423570985008687907853269984665640564039457584007908834671663",
        /* 2^64 + 13 */
        "18446744073709551629",
    };
    size_t mi;
    mpz_t p, a, b, want, got, R, Rinv;
    mpz_inits(p, a, b, want, got, R, Rinv, NULL);
    mpz_setbit(R, 256);
    for (mi = 0; mi < sizeof mods / sizeof mods[0]; mi++) {
        nnc_fe4_mod m;
        uint64_t ea[4], eb[4], er[4];
        int i;
        mpz_set_str(p, mods[mi], 10);
        CHECK(mpz_probab_prime_p(p, 30) > 0);
        make_mod(&m, p);
        CHECK(mpz_invert(Rinv, R, p));
        for (i = 0; i < 3000; i++) {
            uint64_t x[4];
            rand_mod(a, &r, p);
            rand_mod(b, &r, p);
            mpz_to_limbs(x, a);
            CHECK(nnc_fe4_from_int(ea, x, &m));
            mpz_to_limbs(x, b);
            CHECK(nnc_fe4_from_int(eb, x, &m));
#define CHECK_OP(call, expr)                                                     \
    do {                                                                         \
        call;                                                                    \
        nnc_fe4_to_int(x, er, &m);                                               \
        limbs_to_mpz(got, x);                                                    \
        expr;                                                                    \
        mpz_mod(want, want, p);                                                  \
        CHECK_MSG(mpz_cmp(got, want) == 0, "%s modulus %zu: " #call, "", mi); \
    } while (0)
            CHECK_OP(nnc_fe4_add(er, ea, eb, &m), mpz_add(want, a, b));
            CHECK_OP(nnc_fe4_sub(er, ea, eb, &m), mpz_sub(want, a, b));
            CHECK_OP(nnc_fe4_neg(er, ea, &m), mpz_neg(want, a));
            CHECK_OP(nnc_fe4_mul(er, ea, eb, &m), mpz_mul(want, a, b));
            if (i % 10 == 0 && mpz_sgn(a) != 0) {
                CHECK(mpz_invert(want, a, p));
                CHECK_OP(nnc_fe4_inv(er, ea, &m), (void)0);
                CHECK_OP(nnc_fe4_inv_var(er, ea, &m), (void)0);
            }
#undef CHECK_OP
        }
    }
    mpz_clears(p, a, b, want, got, R, Rinv, NULL);
}
END_TEST

/* ------------------------------------------------------------- tower */

static void rand_fq(nnc_fq *e, rng *r)
{
    uint64_t x[4];
    int k;
    do {
        for (k = 0; k < 4; k++) x[k] = rng_next(r);
        x[3] &= 0x3fffffffffffffffULL;
    } while (!nnc_fq_from_int(e, x));
}
static void rand_fq2(nnc_fq2 *e, rng *r) { rand_fq(&e->c0, r); rand_fq(&e->c1, r); }
static void rand_fq6(nnc_fq6 *e, rng *r) { rand_fq2(&e->c0, r); rand_fq2(&e->c1, r); rand_fq2(&e->c2, r); }
static void rand_fq12(nnc_fq12 *e, rng *r) { rand_fq6(&e->c0, r); rand_fq6(&e->c1, r); }
static void fq_to_mpz(mpz_t v, const nnc_fq *a)
{
    uint64_t x[4];
    nnc_fq_to_int(x, a);
    limbs_to_mpz(v, x);
}

START_TEST(test_fq2)
{
    rng r = rng_for(800);
    mpz_t p, a0, a1, b0, b1, t, u, w0, w1;
    nnc_fq2 a, b, c, d, one, xi;
    const uint64_t pe[4] = NNC_FQ_MODULUS_INIT;
    int i, sq = 0, nsq = 0;
    mpz_inits(a0, a1, b0, b1, t, u, w0, w1, NULL);
    mpz_init_set_str(p, FQ_DEC, 10);
    nnc_fq2_set_one(&one);
    nnc_fq_set_u64(&xi.c0, 9);
    nnc_fq_set_one(&xi.c1);
    for (i = 0; i < 3000; i++) {
        rand_fq2(&a, &r);
        rand_fq2(&b, &r);
        if (i == 0) nnc_fq2_set_zero(&a);
        if (i == 1) nnc_fq_set_zero(&b.c1);
        fq_to_mpz(a0, &a.c0); fq_to_mpz(a1, &a.c1);
        fq_to_mpz(b0, &b.c0); fq_to_mpz(b1, &b.c1);
        /* mul against the schoolbook product with u^2 = -1 */
        nnc_fq2_mul(&c, &a, &b);
        mpz_mul(w0, a0, b0); mpz_submul(w0, a1, b1); mpz_mod(w0, w0, p);
        mpz_mul(w1, a0, b1); mpz_addmul(w1, a1, b0); mpz_mod(w1, w1, p);
        fq_to_mpz(t, &c.c0); CHECK(mpz_cmp(t, w0) == 0);
        fq_to_mpz(t, &c.c1); CHECK(mpz_cmp(t, w1) == 0);
        /* sqr == mul(a, a), in place */
        c = a;
        nnc_fq2_sqr(&c, &c);
        nnc_fq2_mul(&d, &a, &a);
        CHECK(nnc_fq2_eq(&c, &d));
        /* add/sub/neg/conj */
        nnc_fq2_add(&c, &a, &b);
        nnc_fq2_sub(&c, &c, &b);
        CHECK(nnc_fq2_eq(&c, &a));
        nnc_fq2_neg(&c, &a);
        nnc_fq2_add(&c, &c, &a);
        CHECK(nnc_fq2_is_zero(&c));
        nnc_fq2_conj(&c, &a);
        nnc_fq2_mul(&c, &c, &a); /* the norm, in Fq */
        mpz_mul(t, a0, a0); mpz_addmul(t, a1, a1); mpz_mod(t, t, p);
        fq_to_mpz(u, &c.c0);
        CHECK(mpz_cmp(t, u) == 0 && nnc_fq_is_zero(&c.c1));
        /* mul_by_xi == mul by 9 + u; mul_fq == mul by (b0, 0) */
        nnc_fq2_mul_by_xi(&c, &a);
        nnc_fq2_mul(&d, &a, &xi);
        CHECK(nnc_fq2_eq(&c, &d));
        nnc_fq2_mul_fq(&c, &a, &b.c0);
        d.c0 = b.c0;
        nnc_fq_set_zero(&d.c1);
        nnc_fq2_mul(&d, &a, &d);
        CHECK(nnc_fq2_eq(&c, &d));
        /* inverses */
        nnc_fq2_inv(&c, &a);
        nnc_fq2_inv_var(&d, &a);
        CHECK(nnc_fq2_eq(&c, &d));
        nnc_fq2_mul(&c, &c, &a);
        CHECK(nnc_fq2_is_zero(&a) ? nnc_fq2_is_zero(&c) : nnc_fq2_is_one(&c));
        if (i < 300) { /* Frobenius == a^p */
            nnc_fq2_frobenius(&c, &a, 1);
            nnc_fq2_pow(&d, &a, pe, 4);
            CHECK(nnc_fq2_eq(&c, &d));
            nnc_fq2_frobenius(&c, &a, 2);
            CHECK(nnc_fq2_eq(&c, &a));
        }
        if (i < 600) { /* sqrt: squares and random elements */
            int ok, want;
            if (i & 1) nnc_fq2_sqr(&a, &a);
            fq_to_mpz(a0, &a.c0); fq_to_mpz(a1, &a.c1);
            mpz_mul(t, a0, a0); mpz_addmul(t, a1, a1); mpz_mod(t, t, p);
            want = mpz_legendre(t, p) >= 0;
            CHECK_EQ(nnc_fq2_is_square(&a), want);
            ok = nnc_fq2_sqrt(&c, &a);
            CHECK_EQ(ok, want);
            if (ok) {
                nnc_fq2_sqr(&d, &c);
                CHECK(nnc_fq2_eq(&d, &a));
                sq++;
            } else {
                nsq++;
            }
        }
    }
    CHECK(sq > 300 && nsq > 50);
    /* -1 = u^2 has the roots +-u; u * u = -1 */
    nnc_fq2_set_zero(&a);
    nnc_fq_set_one(&a.c1);
    nnc_fq2_sqr(&c, &a);
    nnc_fq2_neg(&d, &one);
    CHECK(nnc_fq2_eq(&c, &d));
    CHECK(nnc_fq2_sqrt(&c, &d));
    nnc_fq2_sqr(&c, &c);
    CHECK(nnc_fq2_eq(&c, &d));
    mpz_clears(p, a0, a1, b0, b1, t, u, w0, w1, NULL);
}
END_TEST

/* Schoolbook Fq6 product with v^3 = xi, independent of the Karatsuba form. */
static void fq6_mul_ref(nnc_fq6 *r, const nnc_fq6 *a, const nnc_fq6 *b)
{
    const nnc_fq2 *x[3] = {&a->c0, &a->c1, &a->c2}, *y[3] = {&b->c0, &b->c1, &b->c2};
    nnc_fq2 c[5], t;
    int i, j;
    for (i = 0; i < 5; i++) nnc_fq2_set_zero(&c[i]);
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            nnc_fq2_mul(&t, x[i], y[j]);
            nnc_fq2_add(&c[i + j], &c[i + j], &t);
        }
    nnc_fq2_mul_by_xi(&t, &c[3]);
    nnc_fq2_add(&r->c0, &c[0], &t);
    nnc_fq2_mul_by_xi(&t, &c[4]);
    nnc_fq2_add(&r->c1, &c[1], &t);
    r->c2 = c[2];
}
static void fq6_pow_ref(nnc_fq6 *r, const nnc_fq6 *a, const uint64_t e[4])
{
    nnc_fq6 acc, base = *a;
    int i;
    nnc_fq6_set_one(&acc);
    for (i = 0; i < 256; i++) {
        if ((e[i / 64] >> (i % 64)) & 1) fq6_mul_ref(&acc, &acc, &base);
        fq6_mul_ref(&base, &base, &base);
    }
    *r = acc;
}

START_TEST(test_fq6)
{
    rng r = rng_for(900);
    const uint64_t pe[4] = NNC_FQ_MODULUS_INIT;
    nnc_fq6 a, b, c, d, e, v;
    nnc_fq2 xi;
    int i;
    unsigned k;
    /* v^3 = xi */
    nnc_fq6_set_zero(&v);
    nnc_fq2_set_one(&v.c1);
    nnc_fq6_mul(&c, &v, &v);
    nnc_fq6_mul(&c, &c, &v);
    nnc_fq_set_u64(&xi.c0, 9);
    nnc_fq_set_one(&xi.c1);
    CHECK(nnc_fq2_eq(&c.c0, &xi) && nnc_fq2_is_zero(&c.c1) && nnc_fq2_is_zero(&c.c2));
    for (i = 0; i < 1000; i++) {
        rand_fq6(&a, &r);
        rand_fq6(&b, &r);
        if (i == 0) nnc_fq6_set_zero(&a);
        nnc_fq6_mul(&c, &a, &b);
        fq6_mul_ref(&d, &a, &b);
        CHECK(nnc_fq6_eq(&c, &d));
        c = a;
        nnc_fq6_sqr(&c, &c);
        fq6_mul_ref(&d, &a, &a);
        CHECK(nnc_fq6_eq(&c, &d));
        nnc_fq6_mul_by_v(&c, &a);
        nnc_fq6_mul(&d, &a, &v);
        CHECK(nnc_fq6_eq(&c, &d));
        nnc_fq6_mul_fq2(&c, &a, &b.c0);
        e = b;
        nnc_fq2_set_zero(&e.c1);
        nnc_fq2_set_zero(&e.c2);
        nnc_fq6_mul(&d, &a, &e);
        CHECK(nnc_fq6_eq(&c, &d));
        nnc_fq6_inv(&c, &a);
        nnc_fq6_mul(&d, &c, &a);
        if (i == 0) CHECK(nnc_fq6_is_zero(&c));
        else {
            nnc_fq6_set_one(&e);
            CHECK(nnc_fq6_eq(&d, &e));
        }
        nnc_fq6_add(&c, &a, &b);
        nnc_fq6_sub(&c, &c, &a);
        CHECK(nnc_fq6_eq(&c, &b));
        nnc_fq6_neg(&c, &a);
        nnc_fq6_add(&c, &c, &a);
        CHECK(nnc_fq6_is_zero(&c));
        nnc_fq6_dbl(&c, &a);
        nnc_fq6_add(&d, &a, &a);
        CHECK(nnc_fq6_eq(&c, &d));
        if (i < 20) { /* Frobenius: a^p, and the map composes: frob_i = frob_1^i */
            nnc_fq6_frobenius(&c, &a, 1);
            fq6_pow_ref(&d, &a, pe);
            CHECK(nnc_fq6_eq(&c, &d));
            d = a;
            for (k = 1; k <= 6; k++) {
                nnc_fq6_frobenius(&d, &d, 1);
                nnc_fq6_frobenius(&c, &a, k);
                CHECK(nnc_fq6_eq(&c, &d));
            }
            CHECK(nnc_fq6_eq(&d, &a)); /* order 6 */
        }
    }
}
END_TEST

START_TEST(test_fq12)
{
    rng r = rng_for(1000);
    const uint64_t pe[4] = NNC_FQ_MODULUS_INIT;
    nnc_fq12 a, b, c, d, e, w;
    int i;
    unsigned k;
    /* w^2 = v */
    nnc_fq12_set_zero(&w);
    nnc_fq2_set_one(&w.c1.c0);
    nnc_fq12_sqr(&c, &w);
    nnc_fq12_set_zero(&d);
    nnc_fq2_set_one(&d.c0.c1);
    CHECK(nnc_fq12_eq(&c, &d));
    for (i = 0; i < 300; i++) {
        rand_fq12(&a, &r);
        rand_fq12(&b, &r);
        if (i == 0) nnc_fq12_set_zero(&a);
        /* mul against the schoolbook form with w^2 = v */
        nnc_fq12_mul(&c, &a, &b);
        {
            nnc_fq6 t0, t1, t2;
            fq6_mul_ref(&t0, &a.c0, &b.c0);
            fq6_mul_ref(&t1, &a.c1, &b.c1);
            nnc_fq6_mul_by_v(&t1, &t1);
            nnc_fq6_add(&d.c0, &t0, &t1);
            fq6_mul_ref(&t0, &a.c0, &b.c1);
            fq6_mul_ref(&t2, &a.c1, &b.c0);
            nnc_fq6_add(&d.c1, &t0, &t2);
        }
        CHECK(nnc_fq12_eq(&c, &d));
        c = a;
        nnc_fq12_sqr(&c, &c);
        nnc_fq12_mul(&d, &a, &a);
        CHECK(nnc_fq12_eq(&c, &d));
        /* (a b) c = a (b c), (a + b) c = a c + b c */
        rand_fq12(&e, &r);
        nnc_fq12_mul(&c, &a, &b);
        nnc_fq12_mul(&c, &c, &e);
        nnc_fq12_mul(&d, &b, &e);
        nnc_fq12_mul(&d, &a, &d);
        CHECK(nnc_fq12_eq(&c, &d));
        nnc_fq12_add(&c, &a, &b);
        nnc_fq12_mul(&c, &c, &e);
        nnc_fq12_mul(&d, &a, &e);
        nnc_fq12_mul(&e, &b, &e);
        nnc_fq12_add(&d, &d, &e);
        CHECK(nnc_fq12_eq(&c, &d));
        nnc_fq12_sub(&c, &c, &d);
        CHECK(nnc_fq12_is_zero(&c));
        nnc_fq12_neg(&c, &a);
        nnc_fq12_add(&c, &c, &a);
        CHECK(nnc_fq12_is_zero(&c));
        /* inverse */
        nnc_fq12_inv(&c, &a);
        nnc_fq12_mul(&d, &c, &a);
        CHECK(i == 0 ? nnc_fq12_is_zero(&c) : nnc_fq12_is_one(&d));
        if (i > 0 && i < 8) {
            nnc_fq12_frobenius(&c, &a, 1);
            nnc_fq12_pow(&d, &a, pe, 4);
            CHECK(nnc_fq12_eq(&c, &d));
            d = a;
            for (k = 1; k <= 12; k++) {
                nnc_fq12_frobenius(&d, &d, 1);
                nnc_fq12_frobenius(&c, &a, k);
                CHECK(nnc_fq12_eq(&c, &d));
                if (k == 6) { /* a^(p^6) is the conjugate */
                    nnc_fq12_conj(&e, &a);
                    CHECK(nnc_fq12_eq(&e, &d));
                }
            }
            CHECK(nnc_fq12_eq(&d, &a));
        }
    }
    /* pow: small exponents against repeated products */
    rand_fq12(&a, &r);
    nnc_fq12_set_one(&d);
    for (k = 0; k < 20; k++) {
        uint64_t ek[2] = {k, 0};
        nnc_fq12_pow(&c, &a, ek, 2);
        CHECK(nnc_fq12_eq(&c, &d));
        nnc_fq12_mul(&d, &d, &a);
    }
}
END_TEST

/* ---------------------------------------------------------- public API */

START_TEST(test_public_dec_and_bytes)
{
    char buf[NNC_PRV_DEC_BUFSIZE], err[NNC_ERRBUF_SIZE];
    nnc_prv_fr a, b;
    nnc_prv_fq q;
    unsigned char be[32], le[32];
    rng r = rng_for(1100);
    mpz_t m, v;
    int i;
    static const char *bad[] = {"", "-", "+1", " 1", "1 ", "1 2", "0x10", "12a", "--1", "1.0"};
    CHECK_EQ(nnc_prv_field_bytes(), NNC_PRV_FIELD_BYTES);
    CHECK_EQ(nnc_prv_dec_bufsize(), NNC_PRV_DEC_BUFSIZE);
    mpz_init_set_str(m, FR_DEC, 10);
    mpz_init(v);
    for (i = 0; i < 2000; i++) {
        char *s;
        rand_mod(v, &r, m);
        s = mpz_get_str(NULL, 10, v);
        CHECK_EQ(nnc_prv_fr_parse_dec(&a, s, 0, err, sizeof err), NNC_STATUS_OK);
        CHECK_EQ(nnc_prv_fr_serialize_dec(buf, sizeof buf, &a), NNC_STATUS_OK);
        CHECK(strcmp(buf, s) == 0);
        nnc_prv_fr_serialize_b32(be, &a, NNC_PRV_ENDIAN_BIG);
        nnc_prv_fr_serialize_b32(le, &a, NNC_PRV_ENDIAN_LITTLE);
        CHECK_EQ(nnc_prv_fr_parse_b32(&b, be, NNC_PRV_ENDIAN_BIG), NNC_STATUS_OK);
        CHECK(nnc_fr_eq(&a, &b));
        CHECK_EQ(nnc_prv_fr_parse_b32(&b, le, NNC_PRV_ENDIAN_LITTLE), NNC_STATUS_OK);
        CHECK(nnc_fr_eq(&a, &b));
        free(s);
    }
    /* reduce: -1 -> r-1, r -> 0, r+5 -> 5; strict mode refuses them */
    CHECK_EQ(nnc_prv_fr_parse_dec(&a, "-1", 1, err, sizeof err), NNC_STATUS_OK);
    nnc_prv_fr_serialize_dec(buf, sizeof buf, &a);
    mpz_sub_ui(v, m, 1);
    CHECK_EQ(mpz_cmp_si(v, 0) > 0, 1);
    {
        char *s = mpz_get_str(NULL, 10, v);
        CHECK(strcmp(buf, s) == 0);
        free(s);
    }
    CHECK_EQ(nnc_prv_fr_parse_dec(&a, FR_DEC, 1, err, sizeof err), NNC_STATUS_OK);
    CHECK(nnc_fr_is_zero(&a));
    CHECK_EQ(nnc_prv_fr_parse_dec(&a, "21888242871839275222246405745257275088548364400416034343698204186575808495622",
                                          1, err, sizeof err), NNC_STATUS_OK);
    nnc_prv_fr_serialize_dec(buf, sizeof buf, &a);
    CHECK(strcmp(buf, "5") == 0);
    nnc_fr_set_u64(&b, 77);
    a = b;
    CHECK_EQ(nnc_prv_fr_parse_dec(&a, "-1", 0, err, sizeof err), NNC_STATUS_INVALID);
    CHECK_EQ(nnc_prv_fr_parse_dec(&a, FR_DEC, 0, err, sizeof err), NNC_STATUS_INVALID);
    CHECK(strstr(err, "out of range") != NULL);
    CHECK(nnc_fr_eq(&a, &b)); /* unchanged on failure */
    for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        CHECK_EQ(nnc_prv_fr_parse_dec(&a, bad[i], 1, err, sizeof err), NNC_STATUS_PARSE);
        CHECK(nnc_fr_eq(&a, &b));
    }
    {
        char longs[260];
        memset(longs, '9', 201);
        longs[201] = '\0';
        CHECK_EQ(nnc_prv_fr_parse_dec(&a, longs, 1, NULL, 0), NNC_STATUS_PARSE);
        longs[200] = '\0'; /* 200 digits: accepted when reducing */
        CHECK_EQ(nnc_prv_fr_parse_dec(&a, longs, 1, NULL, 0), NNC_STATUS_OK);
        mpz_set_str(v, longs, 10);
        mpz_mod(v, v, m);
        nnc_prv_fr_serialize_dec(buf, sizeof buf, &a);
        CHECK(mpz_cmp_ui(v, 0) > 0);
        {
            char *s = mpz_get_str(NULL, 10, v);
            CHECK(strcmp(buf, s) == 0);
            free(s);
        }
    }
    /* leading zeros are fine */
    CHECK_EQ(nnc_prv_fr_parse_dec(&a, "000123", 0, NULL, 0), NNC_STATUS_OK);
    nnc_prv_fr_serialize_dec(buf, sizeof buf, &a);
    CHECK(strcmp(buf, "123") == 0);
    /* short output buffers */
    CHECK_EQ(nnc_prv_fr_serialize_dec(buf, 4, &a), NNC_STATUS_OK);
    CHECK_EQ(nnc_prv_fr_serialize_dec(buf, 3, &a), NNC_STATUS_LIMIT);
    CHECK(strcmp(buf, "") == 0);
    CHECK_EQ(nnc_prv_fr_serialize_dec(buf, 0, &a), NNC_STATUS_LIMIT);
    /* Fq: p - 1 accepted, p refused, the values differ from Fr's */
    mpz_set_str(v, FQ_DEC, 10);
    mpz_sub_ui(v, v, 1);
    {
        char *s = mpz_get_str(NULL, 10, v);
        CHECK_EQ(nnc_prv_fq_parse_dec(&q, s, 0, NULL, 0), NNC_STATUS_OK);
        nnc_prv_fq_serialize_dec(buf, sizeof buf, &q);
        CHECK(strcmp(buf, s) == 0);
        CHECK_EQ(nnc_prv_fr_parse_dec(&a, s, 0, NULL, 0), NNC_STATUS_INVALID);
        free(s);
    }
    CHECK_EQ(nnc_prv_fq_parse_dec(&q, FQ_DEC, 0, NULL, 0), NNC_STATUS_INVALID);
    CHECK_EQ(nnc_prv_fq_parse_dec(&q, FR_DEC, 0, NULL, 0), NNC_STATUS_OK);
    nnc_prv_fq_serialize_b32(be, &q, NNC_PRV_ENDIAN_BIG);
    CHECK_EQ(nnc_prv_fr_parse_b32(&a, be, NNC_PRV_ENDIAN_BIG), NNC_STATUS_INVALID);
    CHECK_EQ(nnc_prv_fq_parse_b32(&q, be, NNC_PRV_ENDIAN_BIG), NNC_STATUS_OK);
    memset(be, 0xff, 32);
    CHECK_EQ(nnc_prv_fq_parse_b32(&q, be, NNC_PRV_ENDIAN_LITTLE), NNC_STATUS_INVALID);
    mpz_clears(m, v, NULL);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prover_field");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_constants, 0, 2);
    tcase_add_loop_test(tc, test_int_conversion_and_bytes, 0, 2);
    tcase_add_loop_test(tc, test_add_sub_neg_dbl, 0, 2);
    tcase_add_loop_test(tc, test_mul_sqr, 0, 2);
    tcase_add_loop_test(tc, test_inv_pow, 0, 2);
    tcase_add_loop_test(tc, test_sqrt, 0, 2);
    tcase_add_loop_test(tc, test_inv_batch, 0, 2);
    tcase_add_test(tc, test_exhaustive_small_primes);
    tcase_add_test(tc, test_generic_large_moduli);
    tcase_add_test(tc, test_fq2);
    tcase_add_test(tc, test_fq6);
    tcase_add_test(tc, test_fq12);
    tcase_add_test(tc, test_public_dec_and_bytes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return harness_main("test_prover_field", suite); }
