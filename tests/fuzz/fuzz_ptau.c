/* libFuzzer target: the snarkjs .ptau reader (prover/mpc.c) and, on a file
 * prepared for phase 2, groth16 setup of a fixed two-constraint circuit
 * from it (every point it reads decoded and checked).  Invariants: no
 * crash; a key that is set up writes and parses back. */
#include "prover/formats_impl.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    nnc_prv_ptau p;
    char err[256];
    if (nnc_prv_ptau_parse(&p, data, size, err, sizeof err) != NNC_STATUS_OK) return 0;
    if (!p.prepared || p.power > 6) {
        nnc_prv_ptau_clear(&p);
        return 0;
    }
    /* w1 * w2 = w3, w3 * 1 = w2 + w1; one public wire */
    nnc_prv_r1cs_term t[6];
    uint64_t lc[7] = {0, 1, 2, 3, 4, 5, 6};
    uint32_t wires[6] = {1, 2, 3, 3, 0, 2};
    memset(t, 0, sizeof t);
    for (int i = 0; i < 6; i++) {
        t[i].wire = wires[i];
        nnc_prv_fr_parse_dec(&t[i].coef, i == 5 ? "2" : "1", 0, err, sizeof err);
    }
    nnc_prv_r1cs cs = {4, 0, 1, 0, 4, 2, lc, t, 6, NULL};
    nnc_prv_zkey z;
    if (nnc_prv_g16_setup_ptau(&z, &cs, &p, 1, err, sizeof err) == NNC_STATUS_OK) {
        size_t n = 0;
        if (nnc_prv_zkey_serialize(NULL, &n, &z) != NNC_STATUS_LIMIT || n == 0) abort();
        unsigned char *b = malloc(n);
        nnc_prv_zkey z2;
        nnc_prv_mpc m;
        if (!b || nnc_prv_zkey_serialize(b, &n, &z) != NNC_STATUS_OK ||
            nnc_prv_zkey_parse(&z2, b, n, 0, err, sizeof err) != NNC_STATUS_OK ||
            nnc_prv_mpc_parse(&m, &z2, err, sizeof err) != NNC_STATUS_OK || m.n != 0)
            abort();
        nnc_prv_mpc_clear(&m);
        nnc_prv_zkey_clear(&z2);
        free(b);
        nnc_prv_zkey_clear(&z);
    }
    nnc_prv_ptau_clear(&p);
    return 0;
}
