/* The 8-lane kernels of nnc_prv_ntt_to_coset (prover/ntt.c drives them
 * over its threads; prover/ntt_ifma.c implements them with AVX-512 IFMA).
 * Host code only.
 *
 * The transform.  For n = 8 m, the n values are kept as m columns of 8
 * lanes: column c, lane r holds element c + m r (each column one 5x52
 * vector element, prover/ifma_impl.h, 320 bytes).  Values on the domain
 * are turned into values on the coset g H by
 *   1. an inverse transform without the 1/n: decimation in time, its input
 *      read in bit-reversed order (column c of the buffer gets a[8 rev_m(c)
 *      + rho(r)], rho the 3-bit reversal: 8 consecutive elements), stages
 *      with half-span h < m inside each lane (twiddle w_(2h)^-(c mod h), the
 *      same for every lane), then per column the lane twiddles
 *      w_n^-(c rho(r)) and an 8-point transform across the lanes
 *      (bit-reversed lanes in, natural out: column c, lane q then holds
 *      n a_k, k = c + m q);
 *   2. per column a product by g^k / n;
 *   3. a forward transform by decimation in frequency: an 8-point transform
 *      across the lanes (natural in, bit-reversed out), lane twiddles
 *      w_n^(c rho(l)), stages with half-span h = m/2 .. 1 inside each lane
 *      (twiddle w_(2h)^(c mod h)); column p, lane l then holds A(g w_n^i)
 *      for i = rev_n(p + m l) = 8 rev_m(p) + rho(l), and is written there.
 * Steps 1 (the lane part), 2 and 3 (the lane part) run as one pass per
 * column (nnc_ntt_ifma_middle).  Constants are "scaled" (vector bits of
 * x 2^260, prover/ifma_impl.h), so a product with the 4x64 bits of data
 * gives 4x64 bits again; the output is canonical and equals the scalar
 * transforms' bit for bit.
 *
 * Every kernel may only be called when nnc_fq_ifma_cpu() is 1. */
#ifndef NNC_PRV_NTT_IFMA_H
#define NNC_PRV_NTT_IFMA_H

#include <stddef.h>
#include <stdint.h>

#include "prover/field_impl.h"

/* Bytes of one buffer column (a 5x52 vector element). */
#define NNC_NTT_IFMA_COL 320

/* A scaled constant for each of 8 lanes: limb j of lane i at [j][i]. */
typedef struct nnc_ntt_ifma_vec {
    uint64_t l[5][8];
} nnc_ntt_ifma_vec;

/* The per-column pass: start values for the first column c0 of a share
 * and the factors that step them to the next column. */
typedef struct nnc_ntt_ifma_mid {
    nnc_ntt_ifma_vec w1, d1; /* lanes r: w_n^-(c rho(r)); step w_n^-rho(r) */
    nnc_ntt_ifma_vec s, ds;  /* lanes q: g^(c + m q) / n; step g */
    nnc_ntt_ifma_vec w2, d2; /* lanes l: w_n^(c rho(l)); step w_n^rho(l) */
    /* 8-point transforms: half-span 2 and 4 twiddles on the upper lanes of
     * each pair (1 elsewhere), inverse (i) and forward (f) roots */
    nnc_ntt_ifma_vec ti2, ti4, tf2, tf4;
} nnc_ntt_ifma_mid;

/* Out: out[j] = limb j (52 bits) of the 4x64 bits of x 2^260 mod r, for x
 * in 4x64 Montgomery form (the scaled constant x). */
void nnc_ntt_ifma_scaled(uint64_t out[5], const nnc_fr *x);
/* Out: v lane i = the scaled x[i]. */
void nnc_ntt_ifma_vec_set(nnc_ntt_ifma_vec *v, const nnc_fr x[8]);

/* Columns [c0, c1) (multiples of 2^lb, lb <= lm) of buf from a (n = 2^(lm+3)
 * elements, canonical), then the stages of half-span 1 .. 2^(lb-1) on each
 * run of 2^lb columns.  tw: [m] scaled twiddles, tw[h + j] = w_(2h)^-j. */
void nnc_ntt_ifma_load_dit(void *buf, const nnc_fr *a, int lm, size_t c0, size_t c1, int lb,
                           const uint64_t (*tw)[5]);
/* Butterflies k0 .. k1-1 (of m/2) of the in-lane stage of half-span h:
 * columns c = 2 (k - j) + j and c + h, j = k mod h, twiddle tw[h + j];
 * decimation in time (dif = 0) or in frequency (dif = 1). */
void nnc_ntt_ifma_stage(void *buf, size_t h, size_t k0, size_t k1, const uint64_t (*tw)[5], int dif);
/* The per-column pass (steps 1-3 above) on columns [c0, c1); mid holds the
 * start values for column c0. */
void nnc_ntt_ifma_middle(void *buf, size_t c0, size_t c1, const nnc_ntt_ifma_mid *mid);
/* The stages of half-span 2^(lb-1) .. 1 (decimation in frequency, tw[h + j]
 * = w_(2h)^j) on each run of 2^lb columns in [c0, c1), then the columns,
 * canonical, to a in bit-reversed order. */
void nnc_ntt_ifma_dif_store(nnc_fr *a, void *buf, int lm, size_t c0, size_t c1, int lb,
                            const uint64_t (*tw)[5]);

#endif
