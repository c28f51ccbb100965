/* The Poseidon permutation of zk/poseidon.c with AVX-512 IFMA: one
 * permutation at a time, its state of t <= 24 elements in three 8-lane
 * vectors (element i in lane i % 8 of vector i / 8), for the native
 * commitments (nnc_prv_zk_commit), whose hash chain leaves no two
 * permutations to run side by side.
 *
 * Full rounds: the round constants added and the S-boxes taken on every
 * lane at once; the MDS product as sum over j of (element j broadcast) times
 * column j of the matrix.  Partial rounds (the sparse form of
 * zk/poseidon.c): the S-box on lane 0, the new first element as a lane
 * product summed across the lanes, the others updated by one product each.
 * Elements stay in the 4x64 Montgomery bits of prover/field_impl.h, read as
 * 5x52 vectors (prover/ifma_impl.h): a product of such bits by a constant
 * "scaled" by 2^260 gives the bits of the product; the S-box, a product of
 * data by data, leaves x^5 2^-16, so every constant that multiplies an S-box
 * output is scaled by a further 2^16.  Each stored state is canonical, so
 * the result equals the scalar permutation's bit for bit
 * (tests/unit/test_poseidon.c checks every width).
 *
 * Host code only.  Call only where nnc_fq_ifma_cpu() is 1 (a table is
 * built only then). */
#ifndef NNC_ZK_POSEIDON_IFMA_H
#define NNC_ZK_POSEIDON_IFMA_H

#include "prover/field_impl.h"

typedef struct nnc_pos_ifma nnc_pos_ifma;

/* The vector tables of width t (2 .. 24) from the sparse form's constants:
 * c (per full round t, per partial round 1, in round order), the MDS
 * matrix m and the matrix pre of the last full round before the partial
 * rounds (t x t, row-major), and per partial round the rows u and w (t - 1
 * each).  Returns: NULL when out of memory, or when this build or CPU has
 * no IFMA.  A table lives for the process, as zk/poseidon.c's scalar
 * tables do. */
nnc_pos_ifma *nnc_pos_ifma_build(int t, int n_full, int n_partial, const nnc_fr *c, const nnc_fr *m, const nnc_fr *pre,
                                 const nnc_fr *u, const nnc_fr *w);
/* The permutation of state[t], in place. */
void nnc_pos_ifma_permute(const nnc_pos_ifma *v, nnc_fr *state);

#endif
