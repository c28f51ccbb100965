/* Helpers shared by the prover's unit tests: a replayable seed, a check
 * macro that reports it, and a splitmix64 stream per test tag. */
#ifndef NNC_PROVER_TEST_UTIL_H
#define NNC_PROVER_TEST_UTIL_H

#include <check.h>
#include <stdint.h>

static uint64_t g_seed; /* set once in main, before the runner forks */

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

#endif
