/* Helpers shared by the prover's unit tests, on top of the suites' harness
 * (tests/unit/harness.h: the seed, CHECK, the rng streams, harness_main):
 * random field elements drawn from a stream. */
#ifndef NNC_PROVER_TEST_UTIL_H
#define NNC_PROVER_TEST_UTIL_H

#include <stdint.h>

#include "prover/tower_impl.h"
#include "tests/unit/harness.h"

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

#endif
