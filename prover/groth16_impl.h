/* Groth16 setup, prove and verify (prover/groth16.c), on the snarkjs
 * file structures of prover/formats_impl.h. */
#ifndef NNC_PRV_GROTH16_IMPL_H
#define NNC_PRV_GROTH16_IMPL_H

#include "prover/formats_impl.h"

/* The Groth16 API is declared in nncert/prover.h. */

/* The coefficient section of circuit cs's key, in snarkjs's order: the A
 * then the B terms of each constraint, then A[n_constraints + s][s] = 1 for
 * every public wire s (wire 0 included).
 * Out: z->coefs (room for all of them, allocated by the caller), z->n_coefs. */
void nnc_prv_g16_coefs(nnc_prv_zkey *z, const nnc_prv_r1cs *cs);

/* A w and B w of each of n_constraints constraints, given by whoever built
 * the witness (ab[2 i], ab[2 i + 1]; zk/circuit.h's witness-only builds):
 * the prover then needs neither the circuit nor the key's coefficient
 * section.  Values that do not come from a satisfying witness give a proof
 * that does not verify. */
typedef struct nnc_prv_g16_ab {
    const nnc_prv_fr *ab;
    uint32_t n_constraints;
} nnc_prv_g16_ab;

/* nnc_prv_g16_prove_team with A w and B w from ab (NULL: from cs, or the
 * key when cs is NULL too) and the blinding given: rs_fixed[0] = r,
 * rs_fixed[1] = s (NULL: drawn).  A fixed blinding is for tests that
 * compare proofs only: a blinding used twice, or known, gives the witness
 * away. */
nnc_status nnc_prv_g16_prove_full(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                  const nnc_prv_r1cs *cs, const nnc_prv_g16_ab *ab, const nnc_prv_fr_vec *w, int threads,
                                  const nnc_prv_backend *be, const nnc_team *team, const nnc_prv_fr *rs_fixed,
                                  void (*progress)(void *ctx, const char *stage, double fraction), void *progress_ctx,
                                  char *err, size_t errlen);

/* Out: a, b (domain_size values each) = A w and B w on the domain, from
 * z's coefficient section, after the checks every prove makes of w (and,
 * in a team, that every rank has the same key and witness); on failure
 * whatever it had summed into a and b is wiped.  Returns OK, INVALID (w
 * does not fit z, a coefficient out of range, no coefficient section), or
 * the team's error. */
nnc_status nnc_prv_g16_ab_key(nnc_prv_fr *a, nnc_prv_fr *b, const nnc_prv_zkey *z, const nnc_prv_fr_vec *w,
                              const nnc_team *team, char *err, size_t errlen);
/* nnc_prv_g16_prove_team from A w and B w on the domain (a, b: malloc'd,
 * domain_size values each, as nnc_prv_g16_ab_key gives them, with the same
 * team: its check of the ranks' inputs is not repeated), which it
 * takes over (wipes and frees, whatever happens): the caller can release
 * the key's coefficient section before the proof's memory peaks. */
nnc_status nnc_prv_g16_prove_taking(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                    nnc_prv_fr *a, nnc_prv_fr *b, const nnc_prv_fr_vec *w, int threads, const nnc_prv_backend *be,
                                    const nnc_team *team,
                                    void (*progress)(void *ctx, const char *stage, double fraction),
                                    void *progress_ctx, char *err, size_t errlen);

/* Returns: the number of online CPUs, 1 .. 64. */
int nnc_prv_online_threads(void);
/* Out: *out, a uniformly random nonzero Fr element (libsodium's
 * randombytes, rejection sampling of 254 bits). */
void nnc_prv_fr_random(nnc_prv_fr *out);

#endif
