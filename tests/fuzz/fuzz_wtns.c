/* libFuzzer target: the snarkjs .wtns reader (prover/wtns.c).  Invariants:
 * the writer's image parses to the same values, and an input laid out as the
 * writer lays it out (same container and section headers) is reproduced byte
 * for byte. */
#include "prover/formats_impl.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    nnc_prv_fr_vec w, w2;
    char err[256];
    unsigned char *b;
    size_t n = 0;
    if (nnc_prv_wtns_parse(&w, data, size, err, sizeof err) != NNC_STATUS_OK)
        return 0;
    if (nnc_prv_wtns_serialize(NULL, &n, &w) != NNC_STATUS_LIMIT || n != 76 + 32 * w.n)
        abort();
    b = malloc(n);
    if (nnc_prv_wtns_serialize(b, &n, &w) != NNC_STATUS_OK)
        abort();
    if (nnc_prv_wtns_parse(&w2, b, n, err, sizeof err) != NNC_STATUS_OK || w2.n != w.n ||
        (w.n > 0 && memcmp(w.v, w2.v, w.n * sizeof *w.v) != 0))
        abort();
    /* same container header and section headers as ours: same bytes */
    if (size == n && memcmp(b, data, 24) == 0 && memcmp(b + 64, data + 64, 12) == 0 && memcmp(b, data, n) != 0)
        abort();
    free(b);
    nnc_prv_fr_vec_clear(&w);
    nnc_prv_fr_vec_clear(&w2);
    return 0;
}
