/* Helpers shared by the prover's unit tests: a replayable seed, a check
 * macro that reports it, and a splitmix64 stream per test tag. */
#ifndef NNC_PROVER_TEST_UTIL_H
#define NNC_PROVER_TEST_UTIL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t g_seed; /* set once in main, before the runner forks */

/* Check's ck_assert records every passing assertion; CHECK reports only
 * failures (with the seed), so loops stay fast. */
#define CHECK(cond)                                                                           \
    do {                                                                                      \
        if (!(cond))                                                                          \
            ck_abort_msg("%s:%d: %s (seed %llu)", __FILE__, __LINE__, #cond,                  \
                         (unsigned long long)g_seed);                                         \
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

/* main() of a prover test: seed from NNC_TEST_SEED (else the clock), printed
 * so a failure replays, then the suite.  Returns the process exit code. */
static inline int prover_test_main(const char *name, Suite *(*suite)(void))
{
    const char *env = getenv("NNC_TEST_SEED");
    g_seed = (env && *env) ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    printf("%s: seed %llu (replay with NNC_TEST_SEED=%llu)\n", name, (unsigned long long)g_seed,
           (unsigned long long)g_seed);
    fflush(stdout);
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

#endif
