/* libFuzzer target: the .npy reader. */
#include "nncert/model.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    double *v = NULL;
    int rank;
    int64_t dims[NNC_MAX_RANK];
    char err[256];
    if (nnc_npy_parse(data, size, &v, &rank, dims, err, sizeof err) == NNC_STATUS_OK) {
        int64_t n = 1;
        for (int d = 0; d < rank; d++) n *= dims[d];
        volatile double s = 0;
        for (int64_t k = 0; k < n; k++) s += v[k]; /* every element was written */
        free(v);
    } else if (v != NULL) {
        abort();
    }
    return 0;
}
