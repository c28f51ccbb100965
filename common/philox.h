/* Philox4x32-10 counter-based random numbers, bit-compatible with cuRAND's
 * device API for curandStatePhilox4_32_10_t (CURAND_RNG_PSEUDO_PHILOX4_32_10),
 * so that a seed gives the same samples on the CPU path and in CUDA kernels.
 * One definition, compiled by gcc (-std=c11) and nvcc (C++17).
 *
 * The block function is Random123's philox4x32 with 10 rounds (Salmon et al.,
 * SC'11): multipliers 0xD2511F53, 0xCD9E8D57, Weyl key increments
 * 0x9E3779B9, 0xBB67AE85; tests/unit/test_stats.c checks Random123's
 * known-answer vectors.
 *
 * Stream: a seed selects the key; the 128-bit counter ctr = (x, y, z, w),
 * x least significant, numbers blocks of four 32-bit words.  cuRAND's
 * curand_init(seed, subsequence, offset, &st) gives
 *     key = (lo32(seed), hi32(seed))
 *     ctr = (0, 0, lo32(subsequence), hi32(subsequence)), advanced by offset/4
 *     next word = word offset%4 of philox(ctr, key)
 * so word number i (i = 0, 1, ...) of subsequence s is word i%4 of the block
 * with counter s*2^64 + i/4: subsequences are 2^66 words long and follow each
 * other without a gap.  nnc_philox_state mirrors curandStatePhilox4_32_10_t
 * (ctr, output, key, STATE) and every function below names the cuRAND one it
 * reproduces, including cuRAND's carry quirk in skipahead (see
 * nnc_philox_ctr_add_).  The Box-Muller fields are left out: nncert draws
 * only uniforms.
 *
 * Uniform conversions (cuRAND's curand_uniform.h):
 *   float  (0,1]:  x * 2^-32 + 2^-33 in float arithmetic   (_curand_uniform)
 *   double (0,1]:  x * 2^-32 + 2^-32 in double, exact      (_curand_uniform_double)
 *   double (0,1]:  z * 2^-53 + 2^-54, z = x ^ (y << 21)    (_curand_uniform_double_hq)
 * In each the product is exact (a power-of-two scaling of an exactly
 * converted integer), so a fused multiply-add gives the same result as
 * separate operations: nvcc's FMA contraction cannot make the paths differ.
 * The float form rounds x to 24 bits first and can return exactly 1.0f
 * (x >= 2^32 - 128); the _hq form can return 1.0 (z = 2^53 - 1 rounds up, ties
 * to even); none returns 0.  Sampling code must treat 1.0 as a possible
 * draw (a closed box). */
#ifndef NNC_PHILOX_H
#define NNC_PHILOX_H

#include <stdint.h>

#ifdef __CUDACC__
#define NNC_PHILOX_HD __host__ __device__ static inline
#else
#define NNC_PHILOX_HD static inline
#endif

#define NNC_PHILOX_M0 0xD2511F53u /* round multiplier for ctr[0] */
#define NNC_PHILOX_M1 0xCD9E8D57u /* round multiplier for ctr[2] */
#define NNC_PHILOX_W0 0x9E3779B9u /* key[0] increment per round (golden ratio) */
#define NNC_PHILOX_W1 0xBB67AE85u /* key[1] increment per round (sqrt(3) - 1) */

/* Position in one stream, equal field for field to cuRAND's state. */
typedef struct nnc_philox_state {
    uint32_t ctr[4]; /* counter of the block in out; ctr[0] least significant */
    uint32_t out[4]; /* nnc_philox4x32_10(ctr, key), always current */
    uint32_t key[2]; /* lo32(seed), hi32(seed) */
    uint32_t idx;    /* 0..3: out[idx] is the next word returned (cuRAND's STATE) */
} nnc_philox_state;

/* One Philox round: cuRAND's _philox4x32round. */
NNC_PHILOX_HD void nnc_philox_round_(uint32_t c[4], uint32_t k0, uint32_t k1)
{
    uint64_t p0 = (uint64_t)NNC_PHILOX_M0 * c[0];
    uint64_t p1 = (uint64_t)NNC_PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t y = c[1], w = c[3];
    c[0] = hi1 ^ y ^ k0;
    c[1] = lo1;
    c[2] = hi0 ^ w ^ k1;
    c[3] = lo0;
}

/* Out: out[4], the block for counter ctr[4] under key key[2]; out may alias
 * ctr.  Equals Random123's philox4x32_R(10, ctr, key) and cuRAND's
 * curand_Philox4x32_10 (the key is bumped between rounds, not before the
 * first). */
NNC_PHILOX_HD void nnc_philox4x32_10(uint32_t out[4], const uint32_t ctr[4], const uint32_t key[2])
{
    uint32_t c[4], k0 = key[0], k1 = key[1];
    int r;
    c[0] = ctr[0];
    c[1] = ctr[1];
    c[2] = ctr[2];
    c[3] = ctr[3];
    for (r = 0; r < 10; r++) {
        if (r > 0) {
            k0 += NNC_PHILOX_W0;
            k1 += NNC_PHILOX_W1;
        }
        nnc_philox_round_(c, k0, k1);
    }
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    out[3] = c[3];
}

/* ctr += n (blocks): cuRAND's Philox_State_Incr(s, n), kept bit-exact with
 * its carry test: a carry out of ctr[1] is detected as (nhi <= ctr[1]) after
 * the add, where nhi = hi32(n) plus the carry from ctr[0]; when hi32(n) is
 * 0xffffffff and ctr[0] carries, nhi wraps to 0 and that carry is dropped.
 * Only skips of at least 2^64 - 2^32 blocks can meet this. */
NNC_PHILOX_HD void nnc_philox_ctr_add_(uint32_t ctr[4], uint64_t n)
{
    uint32_t nlo = (uint32_t)n, nhi = (uint32_t)(n >> 32);
    ctr[0] += nlo;
    if (ctr[0] < nlo) nhi++;
    ctr[1] += nhi;
    if (nhi <= ctr[1]) return;
    if (++ctr[2]) return;
    ++ctr[3];
}

/* ctr += 1 (block): cuRAND's Philox_State_Incr(s). */
NNC_PHILOX_HD void nnc_philox_ctr_inc_(uint32_t ctr[4])
{
    if (++ctr[0]) return;
    if (++ctr[1]) return;
    if (++ctr[2]) return;
    ++ctr[3];
}

/* Skip n words: cuRAND's skipahead(n, &st).  The block is recomputed. */
NNC_PHILOX_HD void nnc_philox_skipahead(nnc_philox_state *st, uint64_t n)
{
    st->idx += (uint32_t)(n & 3u);
    n /= 4;
    if (st->idx > 3) {
        n += 1;
        st->idx -= 4;
    }
    nnc_philox_ctr_add_(st->ctr, n);
    nnc_philox4x32_10(st->out, st->ctr, st->key);
}

/* Skip n subsequences (n * 2^66 words): cuRAND's skipahead_sequence(n, &st),
 * which adds n to the high 64 bits of the counter (ctr[2], ctr[3]). */
NNC_PHILOX_HD void nnc_philox_skipahead_sequence(nnc_philox_state *st, uint64_t n)
{
    uint32_t nlo = (uint32_t)n, nhi = (uint32_t)(n >> 32);
    st->ctr[2] += nlo;
    if (st->ctr[2] < nlo) nhi++;
    st->ctr[3] += nhi;
    nnc_philox4x32_10(st->out, st->ctr, st->key);
}

/* Out: st positioned at word `offset` of subsequence `subsequence` of the
 * stream `seed`: cuRAND's curand_init(seed, subsequence, offset, &st). */
NNC_PHILOX_HD void nnc_philox_init(nnc_philox_state *st, uint64_t seed, uint64_t subsequence, uint64_t offset)
{
    st->ctr[0] = st->ctr[1] = st->ctr[2] = st->ctr[3] = 0;
    st->key[0] = (uint32_t)seed;
    st->key[1] = (uint32_t)(seed >> 32);
    st->idx = 0;
    nnc_philox_skipahead_sequence(st, subsequence);
    nnc_philox_skipahead(st, offset);
}

/* Returns: the next 32-bit word, advancing one word: cuRAND's curand(&st). */
NNC_PHILOX_HD uint32_t nnc_philox_next_u32(nnc_philox_state *st)
{
    uint32_t r = st->out[st->idx & 3u];
    if (++st->idx == 4) {
        nnc_philox_ctr_inc_(st->ctr);
        nnc_philox4x32_10(st->out, st->ctr, st->key);
        st->idx = 0;
    }
    return r;
}

/* Out: r[4], the next four words, advancing four words: cuRAND's
 * curand4(&st).  Same words, same final state as four nnc_philox_next_u32
 * calls (tested), at one block computation. */
NNC_PHILOX_HD void nnc_philox_next4_u32(nnc_philox_state *st, uint32_t r[4])
{
    uint32_t t[4], i;
    t[0] = st->out[0];
    t[1] = st->out[1];
    t[2] = st->out[2];
    t[3] = st->out[3];
    nnc_philox_ctr_inc_(st->ctr);
    nnc_philox4x32_10(st->out, st->ctr, st->key);
    for (i = 0; i < 4; i++) {
        uint32_t j = (st->idx & 3u) + i;
        r[i] = j < 4 ? t[j] : st->out[j - 4];
    }
}

/* Returns: x * 2^-32 + 2^-33 rounded to float, in (0, 1]: cuRAND's
 * _curand_uniform(unsigned int) with CURAND_2POW32_INV = 2^-32 exactly. */
NNC_PHILOX_HD float nnc_philox_u32_to_float(uint32_t x)
{
    return (float)x * 2.3283064365386963e-10f + 1.16415321826934814e-10f;
}

/* Returns: (x + 1) * 2^-32, exact, in (0, 1]: cuRAND's
 * _curand_uniform_double(unsigned int), used by curand_uniform_double for
 * Philox (32 random bits only). */
NNC_PHILOX_HD double nnc_philox_u32_to_double(uint32_t x)
{
    return (double)x * 2.3283064365386963e-10 + 2.3283064365386963e-10;
}

/* Returns: z * 2^-53 + 2^-54 rounded to double, z = x ^ (y << 21) < 2^53, in
 * (0, 1]: cuRAND's _curand_uniform_double_hq(x, y), the conversion behind
 * curand_uniform2_double.  Bits 21..31 of z are x ^ y, as in cuRAND. */
NNC_PHILOX_HD double nnc_philox_u32x2_to_double(uint32_t x, uint32_t y)
{
    uint64_t z = (uint64_t)x ^ ((uint64_t)y << 21);
    return (double)z * 1.1102230246251565404e-16 + 5.5511151231257827021e-17;
}

/* Returns: the next uniform float in (0, 1], one word: curand_uniform(&st). */
NNC_PHILOX_HD float nnc_philox_uniform_float(nnc_philox_state *st)
{
    return nnc_philox_u32_to_float(nnc_philox_next_u32(st));
}

/* Returns: the next uniform double in (0, 1] from ONE word (32 bits):
 * curand_uniform_double(&st) for Philox. */
NNC_PHILOX_HD double nnc_philox_uniform_double32(nnc_philox_state *st)
{
    return nnc_philox_u32_to_double(nnc_philox_next_u32(st));
}

/* Out: r[2], two uniform doubles with 53 random bits each, from the next four
 * words (w0,w1) and (w2,w3): curand_uniform2_double(&st). */
NNC_PHILOX_HD void nnc_philox_uniform2_double(nnc_philox_state *st, double r[2])
{
    uint32_t w[4];
    nnc_philox_next4_u32(st, w);
    r[0] = nnc_philox_u32x2_to_double(w[0], w[1]);
    r[1] = nnc_philox_u32x2_to_double(w[2], w[3]);
}

#endif
