/* libFuzzer target: the circom .r1cs reader (prover/r1cs.c).  Invariants:
 * a file that parses serializes to an image that parses again to the same
 * image; the witness check runs on any parsed system. */
#include "prover/formats_impl.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    nnc_prv_r1cs r, r2;
    char err[256];
    unsigned char *b1, *b2;
    size_t n1 = 0, n2 = 0;
    if (nnc_prv_r1cs_parse(&r, data, size, err, sizeof err) != NNC_STATUS_OK)
        return 0;
    if (nnc_prv_r1cs_serialize(NULL, &n1, &r) != NNC_STATUS_LIMIT || n1 == 0)
        abort();
    b1 = malloc(n1);
    if (nnc_prv_r1cs_serialize(b1, &n1, &r) != NNC_STATUS_OK)
        abort();
    if (nnc_prv_r1cs_parse(&r2, b1, n1, err, sizeof err) != NNC_STATUS_OK)
        abort();
    n2 = n1;
    b2 = malloc(n2);
    if (nnc_prv_r1cs_serialize(b2, &n2, &r2) != NNC_STATUS_OK || n2 != n1 || memcmp(b1, b2, n1) != 0)
        abort();
    if (r.n_wires <= 4096) {
        /* all-ones witness: any outcome, no crash */
        nnc_prv_fr *w = malloc(r.n_wires * sizeof *w);
        uint32_t i, bad;
        const char one[] = "1";
        for (i = 0; i < r.n_wires; i++)
            nnc_prv_fr_parse_dec(&w[i], one, 0, NULL, 0);
        (void)nnc_prv_r1cs_check_witness(&bad, &r, w, r.n_wires, err, sizeof err);
        free(w);
    }
    free(b1);
    free(b2);
    nnc_prv_r1cs_clear(&r);
    nnc_prv_r1cs_clear(&r2);
    return 0;
}
