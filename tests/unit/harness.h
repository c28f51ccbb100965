/* The unit suites' harness, included by every tests/unit/test_*.c (directly
 * or through prover_test_util.h and gpu_test_impl.h):
 *
 *  - the suite's seed, g_seed: NNC_TEST_SEED, else the clock, printed before
 *    any test runs so that a failure replays (harness_seed);
 *  - random numbers from a counter-based generator, never libc's rand():
 *    draw i of stream TAG is a fixed function of (g_seed, TAG, i), so a test
 *    sees the same numbers whatever ran before it (rng_for, rng_next, ...);
 *  - CHECK macros that report only failures, with the seed (Check's
 *    ck_assert records every passing assertion, which slows long loops);
 *  - CHECK_ILLEGAL: a call that an argument check must refuse;
 *  - the end of main(): run a suite (harness_main, check_main_run).
 *
 * A suite that runs outside Check's runner (the GPU suites, which count
 * their checks and exit 77 without a device) defines HARNESS_OWN_CHECK and
 * its own CHECK before including this header. */
#ifndef NNC_TEST_HARNESS_H
#define NNC_TEST_HARNESS_H

#include "nncert/nnc.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The suite's seed: set once in main, before the runner forks. */
__attribute__((unused)) static uint64_t g_seed;

/* ---- counter-based random numbers ----------------------------------------
 * A stream is a key and a counter: draw i is SplitMix64's output function
 * (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
 * OOPSLA 2014) of key + (i + 1) * golden gamma.  No draw depends on the
 * draws before it, only on its index. */
typedef struct rng {
    uint64_t s; /* key + (draws so far) * gamma */
} rng;

static inline uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Returns: stream TAG of the suite's seed (distinct tags: independent
 * streams; call after g_seed is set). */
static inline rng rng_for(uint64_t tag)
{
    rng r = {g_seed ^ (tag * 0xd1b54a32d192ed03ULL)};
    rng_next(&r);
    return r;
}

/* Returns: uniform in [0, n), n >= 1 (Lemire's multiply-shift with
 * rejection: no modulo bias). */
static inline uint64_t rng_below(rng *r, uint64_t n)
{
    unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t t = (0 - n) % n;
        while (lo < t) {
            m = (unsigned __int128)rng_next(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* Returns: uniform in [0, 1), 53 random bits. */
static inline double rng_unif(rng *r) { return (double)(rng_next(r) >> 11) * 0x1p-53; }

/* The suite's default stream (stream 0 of the seed, set by harness_seed),
 * for tests that draw one sequence: rnd() 64 bits, rnd_below(n) in [0, n),
 * urand() in [0, 1).  Check forks each test from main's state, so every
 * test starts from the stream's first draw. */
__attribute__((unused)) static rng g_rng;
__attribute__((unused)) static uint64_t rnd(void) { return rng_next(&g_rng); }
__attribute__((unused)) static int rnd_below(int n) { return (int)rng_below(&g_rng, (uint64_t)n); }
__attribute__((unused)) static double urand(void) { return rng_unif(&g_rng); }

/* ---- checks -------------------------------------------------------------- */
#ifndef HARNESS_OWN_CHECK
/* cond holds; a failure names it, the line and the seed. */
#define CHECK(cond)                                                                                         \
    do {                                                                                                    \
        if (!(cond)) ck_abort_msg("%s:%d: %s (seed %llu)", __FILE__, __LINE__, #cond, (unsigned long long)g_seed); \
    } while (0)
/* cond holds; a failure prints the message (printf arguments). */
#define CHECK_MSG(cond, ...)                                                                                \
    do {                                                                                                    \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);                                                             \
    } while (0)
/* a == b as integers; a failure shows both values. */
#define CHECK_EQ(a, b)                                                                                      \
    do {                                                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                                                 \
        if (a_ != b_)                                                                                       \
            ck_abort_msg("%s:%d: %s == %s: %lld != %lld (seed %llu)", __FILE__, __LINE__, #a, #b, a_, b_,   \
                         (unsigned long long)g_seed);                                                       \
    } while (0)
/* An argument check: CALL, which writes its error to the char array ERR,
 * returns NNC_STATUS_ARG with a one-line message there (as every nnc_*
 * function does for an argument outside its contract).  ERR is cleared
 * first, so a message left by an earlier call cannot pass for this one. */
#define CHECK_ILLEGAL(call, err)                                                                            \
    do {                                                                                                    \
        (err)[0] = 0;                                                                                       \
        nnc_status st_ = (call);                                                                            \
        if (st_ != NNC_STATUS_ARG)                                                                          \
            ck_abort_msg("%s:%d: %s: status %d, not NNC_STATUS_ARG", __FILE__, __LINE__, #call, (int)st_);  \
        if ((err)[0] == 0 || strchr((err), '\n') != NULL)                                                   \
            ck_abort_msg("%s:%d: %s: no one-line error ('%s')", __FILE__, __LINE__, #call, (err));          \
    } while (0)
#endif

/* ---- main ---------------------------------------------------------------- */

/* A fixed seed (suites whose inputs never vary): g_seed, and g_rng its
 * stream 0. */
static inline void harness_set_seed(uint64_t seed)
{
    g_seed = seed;
    g_rng = rng_for(0);
}

/* Sets g_seed from NNC_TEST_SEED, else the clock, and g_rng to its stream
 * 0; prints "name: seed N (replay with NNC_TEST_SEED=N)" before any test
 * runs.  Returns: the seed. */
static inline uint64_t harness_seed(const char *name)
{
    const char *env = getenv("NNC_TEST_SEED");
    harness_set_seed((env && *env) ? strtoull(env, NULL, 10) : (uint64_t)time(NULL));
    printf("%s: seed %llu (replay with NNC_TEST_SEED=%llu)\n", name, (unsigned long long)g_seed,
           (unsigned long long)g_seed);
    fflush(stdout);
    return g_seed;
}

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

/* main() of a suite: the seed, then the suite.  Returns the exit code. */
static inline int harness_main(const char *name, Suite *(*suite)(void))
{
    harness_seed(name);
    return check_main_run(suite());
}

#endif
