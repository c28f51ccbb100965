/* Groth16 setup, prove and verify (prover/groth16.c), on the snarkjs
 * file structures of prover/formats_impl.h. */
#ifndef NNC_PRV_GROTH16_IMPL_H
#define NNC_PRV_GROTH16_IMPL_H

#include "prover/formats_impl.h"

/* Single-party setup for development: random toxic waste (libsodium),
 * wiped before returning.  Production keys need a ceremony.
 * Out: *z (nnc_prv_zkey_clear). */
nnc_status nnc_prv_g16_setup(nnc_prv_zkey *z, const nnc_prv_r1cs *cs, char *err, size_t errlen);

/* Prove with key z and full witness w (w[0] = 1).
 * Out: *proof; *pub the public signals w[1 .. n_public] (nnc_prv_fr_vec_clear).
 * threads < 1: one per online CPU. */
nnc_status nnc_prv_g16_prove(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                             const nnc_prv_fr_vec *w, int threads, char *err, size_t errlen);

/* Out: *valid = 1 when the proof verifies.  Returns INVALID (and *valid = 0)
 * for a wrong number of public inputs or points off the curve or subgroup. */
nnc_status nnc_prv_g16_verify(int *valid, const nnc_prv_g16_vk *vk, const nnc_prv_fr_vec *pub,
                              const nnc_prv_g16_proof *proof, char *err, size_t errlen);

#endif
