/* The end of a Check test program's main(), shared by the unit tests: run a
 * suite, and (for tests with random inputs) a seed that replays. */
#ifndef NNC_CHECK_MAIN_IMPL_H
#define NNC_CHECK_MAIN_IMPL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Run every test of s (the runner takes s over).
 * Returns: the process exit code, 0 when all passed, else 1. */
static inline int check_main_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

/* Returns: the seed from NNC_TEST_SEED, else the clock; prints it as
 * "name: seed N (replay with NNC_TEST_SEED=N)" before any test runs. */
static inline uint64_t check_main_seed(const char *name)
{
    const char *env = getenv("NNC_TEST_SEED");
    uint64_t seed = (env && *env) ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    printf("%s: seed %llu (replay with NNC_TEST_SEED=%llu)\n", name, (unsigned long long)seed,
           (unsigned long long)seed);
    fflush(stdout);
    return seed;
}

#endif
