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

#include "prover/prover.h"

/* Returns: 1 if this build has the IFMA code and the CPU supports
 * AVX-512 F, IFMA and VL, else 0. */
int nnc_fq_ifma_cpu(void);

/* Returns: nnc_fq_ifma_cpu(), except 0 when the environment variable
 * NNC_NO_IFMA is set to anything but "" or "0" (forces the scalar path).
 * Read on every call. */
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

#endif
