/* libFuzzer target: the GCSR0001 graph reader (models/spmm.h).  An accepted
 * graph must satisfy the CSR invariants, and a product with it must run
 * without faults.  (The fuzz build leaves gpu/ out, so the TC-GNN
 * translation is exercised by tests/unit/test_spmm.c instead.) */
#include "models/spmm.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    nnc_mdl_csr32 a;
    char err[256];
    if (nnc_mdl_csr32_parse_gcsr(&a, data, size, err, sizeof err) != NNC_STATUS_OK) {
        if (a.row_ptr || a.col || a.val) abort(); /* nothing left allocated on failure */
        return 0;
    }
    if (nnc_mdl_csr32_check(&a, NULL, 0) != NNC_STATUS_OK) abort();
    if (a.rows <= 4096) {
        float *x = calloc((size_t)a.cols * 3 + 1, sizeof(float)), *y = calloc((size_t)a.rows * 3 + 1, sizeof(float));
        if (x && y) nnc_mdl_spmm_rows(&a, 0, a.rows, x, 3, y);
        free(x);
        free(y);
    }
    nnc_mdl_csr32_free(&a);
    return 0;
}
