/* Batches of fixed-base scalar multiplications [k_i]G by the generator of
 * G1 or G2 (prover/fixedbase.c): what a Groth16 setup spends its time on
 * (about eight per circuit wire).
 *
 * Method: a comb of 64 four-bit windows over a precomputed table
 * T[w][d] = [d 16^w]G (d = 0..15, affine, 1024 points), so one product is
 * 64 complete mixed additions and no doubling, and each entry is read by
 * scanning its whole 16-point row with masks (no memory index or branch
 * depends on k_i: the scalars of a setup are toxic waste).  Results are
 * normalised to affine 256 at a time with one field inversion (Montgomery's
 * trick, zero Z selected by mask), and the batch is split over threads.
 * On CPUs with AVX-512 IFMA, G1 runs the comb 8 scalars at a time
 * (prover/fq_ifma.h: rows selected by mask per lane, complete projective
 * additions); NNC_NO_IFMA=1 forces the scalar comb. */
#ifndef NNC_PRV_FIXEDBASE_IMPL_H
#define NNC_PRV_FIXEDBASE_IMPL_H

#include "nncert/prover.h"

/* out[i] = [k[i]]G1 (affine; infinity as x = y = 0) for i < n.
 * threads < 1: one per online CPU.  out and k must not overlap.
 * Returns: 0, or -1 when memory for the table ran out (out unset). */
int nnc_prv_g1_gen_mul_batch(nnc_prv_g1 *out, const nnc_prv_fr *k, size_t n, int threads);
/* As nnc_prv_g1_gen_mul_batch, in G2. */
int nnc_prv_g2_gen_mul_batch(nnc_prv_g2 *out, const nnc_prv_fr *k, size_t n, int threads);

#endif
