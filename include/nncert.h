/* nncert: the whole public API in one include.
 *
 * Build against an installed nncert with
 *     cc app.c $(pkg-config --cflags --libs nncert)
 * and include either this file or the part you use (<nncert/model.h>,
 * <nncert/verifier.h>, ...).  Every function these headers mark NNC_API is
 * exported by libnncert.so, and nothing else (tests/tools/api_check.py). */
#ifndef NNCERT_H
#define NNCERT_H

#include "nncert/nnc.h"       /* status codes, the error-message convention, limits */
#include "nncert/json.h"      /* strict JSON reader */
#include "nncert/team.h"      /* a team of ranks (a caller's communicator) */
#include "nncert/model.h"     /* ONNX loading, IR introspection, input files, batched runtime */
#include "nncert/embbag.h"    /* EmbeddingBag tables and access traces */
#include "nncert/spec.h"      /* VNN-LIB parser and writer, spec builders */
#include "nncert/verifier.h"  /* the quantitative verifier and its report */
#include "nncert/prover.h"    /* BN254, MSM, NTT, circom/snarkjs files, Groth16 */
#include "nncert/poseidon.h"  /* Poseidon with circomlib's parameters */
#include "nncert/gpu.h"       /* the CUDA backend (plain C interface) */
#include "nncert/gate.h"      /* the CI gate, reports, attestations */

#endif
