/* 8-lane BN254 Fq arithmetic with AVX-512 IFMA (prover/fq_ifma.c) and the
 * batched affine additions of the G1 MSM's bucket accumulation built on it.
 * Host code only: the CUDA units never include this header.
 *
 * Vector representation (inside prover/fq_ifma.c): an element is 5 limbs
 * of 52 bits, limb j of the 8 lanes in one 512-bit register, holding
 * v = a * 2^260 mod p (Montgomery radix 2^260), every limb < 2^52; between
 * operations v < 2p (weakly reduced), and v < p wherever it is stored.
 *
 * The 4x64 form of the rest of the prover (prover/field_impl.h) holds
 * a * 2^256 mod p.  The same bits read as a 5x52 vector element therefore
 * stand for a / 16; the batched addition below works on such scaled
 * coordinates (x/16, y/16) throughout, so points go in and out by a plain
 * bit split, with no product (the constants that keep the formulas exact
 * are derived in prover/fq_ifma.c).
 *
 * Run-time dispatch: the vector code is compiled with target attributes,
 * so the rest of the build stays generic; nnc_fq_ifma_enabled() says
 * whether to call it. */
#ifndef NNC_PRV_FQ_IFMA_H
#define NNC_PRV_FQ_IFMA_H

#include <stddef.h>
#include <stdint.h>

#include "nncert/prover.h"

/* Returns: 1 if this build has the IFMA code and the CPU supports
 * AVX-512 F, IFMA and VL, else 0. */
int nnc_fq_ifma_cpu(void);

/* Returns: nnc_isa_ifma() (common/isa.h): 1 when the CPU has IFMA, the
 * level in use is avx512 (NNC_ISA), and the environment variable NNC_NO_IFMA
 * is unset, "" or "0" (anything else forces the scalar path; read on every
 * call); else 0. */
int nnc_fq_ifma_enabled(void);

/* ---- 8-lane operations on 4x64 integers (for tests) ----
 * Each array holds 8 little-endian 4x64 integers, lane i at [i][0..3].
 * Only to be called when nnc_fq_ifma_cpu() is 1. */

/* Out: r[i] = a[i] * b[i] * 2^-260 mod p, fully reduced.
 * In: a[i] < 2^256, b[i] < p. */
void nnc_fq_ifma_mul8(uint64_t r[8][4], const uint64_t a[8][4], const uint64_t b[8][4]);
/* Out: r[i] = a[i] + b[i] mod p.  In: a[i], b[i] < p. */
void nnc_fq_ifma_add8(uint64_t r[8][4], const uint64_t a[8][4], const uint64_t b[8][4]);
/* Out: r[i] = a[i] - b[i] mod p.  In: a[i], b[i] < p. */
void nnc_fq_ifma_sub8(uint64_t r[8][4], const uint64_t a[8][4], const uint64_t b[8][4]);

/* ---- batched affine additions (prover/msm_impl.h, G1) ---- */

/* Returns: bytes of scratch nnc_g1_ifma_add_batch needs for up to cap
 * additions. */
size_t nnc_g1_ifma_scratch_bytes(size_t cap);

/* For k < nq: bk[qb[k]] = bk[qb[k]] + qp[k] in affine coordinates
 * (4x64 Montgomery form, as nnc_prv_g1), with one shared inversion.
 * In: the qb[k] are distinct; no bucket is infinity; qd[k] = x_P - x_B
 * (nonzero) when qdbl[k] == 0, else qd[k] = 2 y_B (nonzero) and P = B.
 * scratch: nnc_g1_ifma_scratch_bytes(nq) bytes, any alignment.
 * The results equal those of the scalar formulas bit for bit (the field
 * elements are unique).  Only to be called when nnc_fq_ifma_cpu() is 1. */
void nnc_g1_ifma_add_batch(nnc_prv_g1 *bk, const uint32_t *qb, const nnc_prv_g1 *qp, const nnc_prv_fq *qd,
                           const unsigned char *qdbl, size_t nq, void *scratch);

/* Out: *r = sum_(b=1..h) b bk[b] (Jacobian, 4x64 form) for affine buckets
 * bk[1..h] (bk[0] unused, infinity as x = y = 0), h >= 8: 8 lanes take
 * h/8 consecutive buckets each, by running sums with complete projective
 * additions.  Only to be called when nnc_fq_ifma_cpu() is 1. */
void nnc_g1_ifma_bucket_sum(nnc_prv_g1_jac *r, const nnc_prv_g1 *bk, size_t h);

/* ---- fixed-base comb (prover/fixedbase.c) ---- */

/* Out: out[0..4] = the 52-bit limbs of the 4x64 integer in (< 2^256). */
static inline void nnc_ifma_split52(uint64_t out[5], const uint64_t in[4])
{
    const uint64_t m = 0xfffffffffffffULL;
    out[0] = in[0] & m;
    out[1] = ((in[0] >> 52) | (in[1] << 12)) & m;
    out[2] = ((in[1] >> 40) | (in[2] << 24)) & m;
    out[3] = ((in[2] >> 28) | (in[3] << 36)) & m;
    out[4] = in[3] >> 16;
}

/* Out: t5[e][0..4], t5[e][5..9] = the 52-bit limbs of the coordinates x, y
 * of t[e] (4x64 form), e < n: the comb table as nnc_g1_ifma_comb8 reads it. */
void nnc_g1_ifma_comb_table(uint64_t (*t5)[10], const nnc_prv_g1 *t, size_t n);

/* Out: out[s] = sum over the 64 four-bit windows w of T[w][d_w(k[s])]
 * (Jacobian, 4x64 form; infinity with Z = 0) for the 8 integers k[s] < 2^256
 * (d_w: bits 4w .. 4w+3), where T[w][d] is entry 16 w + d of the table t5
 * (nnc_g1_ifma_comb_table of the comb's T[w][d] = [d 16^w]G) and T[w][0]
 * is infinity.  Constant time in the k[s]: every entry of a row is read and
 * selected by mask; the additions are complete (Renes-Costello-Batina).
 * Only to be called when nnc_fq_ifma_cpu() is 1. */
void nnc_g1_ifma_comb8(nnc_prv_g1_jac out[8], const uint64_t k[8][4], const uint64_t (*t5)[10]);

/* As nnc_g1_ifma_comb_table and nnc_g1_ifma_comb8 on G2 (the twist over
 * Fq2): t5[e] holds the limbs of x.c0, x.c1, y.c0, y.c1. */
void nnc_g2_ifma_comb_table(uint64_t (*t5)[20], const nnc_prv_g2 *t, size_t n);
void nnc_g2_ifma_comb8(nnc_prv_g2_jac out[8], const uint64_t k[8][4], const uint64_t (*t5)[20]);

#endif
