/* libFuzzer target: the DLRM access-trace reader (nncert/embbag.h) and the
 * bag checker on what it reads.  The first byte picks the dense and
 * categorical field counts; the rest is the trace text. */
#include "nncert/embbag.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size < 1) return 0;
    int n_dense = data[0] & 3, n_tables = (data[0] >> 2) & 3;
    nnc_trace t;
    char err[256];
    if (nnc_mdl_trace_parse(&t, (const char *)data + 1, size - 1, n_dense, n_tables, err, sizeof err) != NNC_STATUS_OK) {
        if (t.dense || t.ids || t.offsets) abort(); /* nothing half-returned */
        return 0;
    }
    int64_t nb = t.n_samples * n_tables;
    if (t.n_samples < 1 || t.offsets[0] != 0) abort();
    for (int64_t b = 0; b < nb; b++)
        if (t.offsets[b + 1] < t.offsets[b]) abort();
    volatile float s = 0;
    for (int64_t k = 0; k < t.n_samples * n_dense; k++) s += t.dense[k];
    int64_t n = t.offsets[nb], rows = 1;
    for (int64_t k = 0; k < n; k++) {
        if (t.ids[k] < 0) abort();
        if (t.ids[k] >= rows) rows = t.ids[k] + 1;
    }
    /* every bag as read is valid for a table of max id + 1 rows */
    nnc_embbag_bags b = {t.ids, n, t.offsets, nb, 0};
    if (nb > 0 && nnc_mdl_embbag_check(&b, rows, 1, err, sizeof err) != NNC_STATUS_OK) abort();
    nnc_mdl_trace_clear(&t);
    return 0;
}
