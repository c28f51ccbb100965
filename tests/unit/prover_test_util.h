/* Helpers shared by the prover's unit tests: a replayable seed, a check
 * macro that reports it, a splitmix64 stream per test tag and uniform Fr
 * elements drawn from it. */
#ifndef NNC_PROVER_TEST_UTIL_H
#define NNC_PROVER_TEST_UTIL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "prover/tower_impl.h"
#include "tests/unit/check_main_impl.h"

static uint64_t g_seed; /* set once in main, before the runner forks */

/* Check's ck_assert records every passing assertion; CHECK reports only
 * failures (with the seed), so loops stay fast. */
#define CHECK(cond)                                                                           \
    do {                                                                                      \
        if (!(cond))                                                                          \
            ck_abort_msg("%s:%d: %s (seed %llu)", __FILE__, __LINE__, #cond,                  \
                         (unsigned long long)g_seed);                                         \
    } while (0)
/* a == b as integers; a failure shows both values. */
#define CHECK_EQ(a, b)                                                                        \
    do {                                                                                      \
        long long a_ = (long long)(a), b_ = (long long)(b);                                   \
        if (a_ != b_)                                                                         \
            ck_abort_msg("%s:%d: %s == %s: %lld != %lld (seed %llu)", __FILE__, __LINE__, #a, #b, \
                         a_, b_, (unsigned long long)g_seed);                                 \
    } while (0)

typedef struct rng { uint64_t s; } rng;
static inline uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline rng rng_for(uint64_t tag)
{
    rng r = {g_seed ^ (tag * 0xd1b54a32d192ed03ULL)};
    rng_next(&r);
    return r;
}

/* x = 254 random bits (the size of both BN254 moduli), little-endian limbs. */
static inline void rng_bits254(uint64_t x[4], rng *r)
{
    x[0] = rng_next(r);
    x[1] = rng_next(r);
    x[2] = rng_next(r);
    x[3] = rng_next(r) & 0x3fffffffffffffffULL;
}

/* Uniform elements of Fr, Fq and Fq2 (c0 first): 254 random bits, drawn
 * again until below the modulus. */
static inline void rng_fr_uniform(nnc_fr *k, rng *r)
{
    uint64_t x[4];
    do
        rng_bits254(x, r);
    while (!nnc_fr_from_int(k, x));
}
static inline void rng_fq_uniform(nnc_fq *e, rng *r)
{
    uint64_t x[4];
    do
        rng_bits254(x, r);
    while (!nnc_fq_from_int(e, x));
}
static inline void rng_fq2_uniform(nnc_fq2 *e, rng *r)
{
    rng_fq_uniform(&e->c0, r);
    rng_fq_uniform(&e->c1, r);
}

/* g_seed from NNC_TEST_SEED (else the clock), printed so a failure replays. */
static inline void prover_test_seed(const char *name)
{
    g_seed = check_main_seed(name);
}

/* main() of a prover test: the seed, then the suite.  Returns the process
 * exit code. */
static inline int prover_test_main(const char *name, Suite *(*suite)(void))
{
    prover_test_seed(name);
    return check_main_run(suite());
}

#endif
