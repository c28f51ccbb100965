/* Groth16 setup, prove and verify (prover/groth16.c), on the snarkjs
 * file structures of prover/formats_impl.h. */
#ifndef NNC_PRV_GROTH16_IMPL_H
#define NNC_PRV_GROTH16_IMPL_H

#include "prover/formats_impl.h"

/* The Groth16 API is declared in prover/prover.h. */

#endif
