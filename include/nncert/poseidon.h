/* nncert zk: the Poseidon hash over the BN254 scalar field Fr, with
 * exactly circomlib's parameters, so a value hashed here equals
 * circomlib's Poseidon(n) template and circomlibjs's poseidon([...]).
 *
 * Parameters (Grassi et al., "Poseidon", USENIX Security 2021, as circomlib
 * instantiates them): state width t = n + 1 for n = 1..16 inputs, S-box
 * x^5, 8 full rounds (4 before and 4 after the partial rounds), partial
 * rounds 56,57,56,60,60,63,64,63,60,66,60,65,70,60,64,68 for t = 2..17.
 * The round constants come from the paper's Grain LFSR and the MDS matrix
 * is the Cauchy matrix 1/(x_i + y_j) drawn from the same stream; both are
 * computed by zk/poseidon.c itself at first use (no copied tables).
 *
 * Round structure (one round, state s[0..t-1]):
 *   s[i] += c[round*t + i]              add round constants
 *   s[i] = s[i]^5  (all i in a full round, only i = 0 in a partial round)
 *   s = M * s,  s'[i] = sum_j m[i*t + j] * s[j]
 * The hash of in[0..n-1] starts from s = (0, in[0], ..., in[n-1]) and
 * returns s[0] after the last round.
 *
 * Thread safety: each width's tables are built once, at its first use,
 * under a lock, and are read-only afterwards; every function here is
 * reentrant. */
#ifndef NNC_ZK_POSEIDON_H
#define NNC_ZK_POSEIDON_H

#include "nncert/prover.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Smallest and largest supported state width (inputs = t - 1). */
#define NNC_PRV_POSEIDON_T_MIN 2
#define NNC_PRV_POSEIDON_T_MAX 17
/* Full rounds for every t (half before, half after the partial rounds). */
#define NNC_PRV_POSEIDON_FULL_ROUNDS 8

/* Parameters for one state width t.
 *   c: t*(n_full + n_partial) round constants, round-major
 *      (c[round*t + i] is added to s[i] in round `round`), Montgomery form.
 *   m: t*t MDS matrix, row-major (s'[i] = sum_j m[i*t + j] s[j]), Montgomery. */
typedef struct nnc_prv_poseidon_params {
    int t, n_full, n_partial;
    const nnc_prv_fr *c;
    const nnc_prv_fr *m;
} nnc_prv_poseidon_params;

/* The parameters for width t; the first use of a width builds its tables
 * (milliseconds; static storage, no malloc).
 * Returns: a pointer to static read-only data; NULL if t is outside 2..17. */
NNC_API const nnc_prv_poseidon_params *nnc_prv_poseidon_params_get(int t);

/* out = circomlib poseidon([in[0], ..., in[n-1]]).
 * in, out: Montgomery form; out may point into in.
 * Returns: NNC_STATUS_OK; NNC_STATUS_ARG if n is outside 1..16.
 * NULL pointers are programmer errors (assert). */
NNC_API nnc_status nnc_prv_poseidon_hash(nnc_prv_fr *out, const nnc_prv_fr *in, size_t n);

/* Applies the full Poseidon permutation (all n_full + n_partial rounds) of
 * p to state[0 .. p->t - 1] in place (Montgomery form).  p: from
 * nnc_prv_poseidon_params_get. */
NNC_API void nnc_prv_poseidon_permute(nnc_prv_fr *state, const nnc_prv_poseidon_params *p);

#ifdef __cplusplus
}
#endif

#endif
