/* gen_input MODEL SEED BATCH LO HI: print a JSON object {"inputs": {NAME:
 * {"shape": [...], "data": [...]}}} of uniform random float32 values in
 * [LO, HI] for every model input, BATCH samples stacked on the leading axis.
 * Used by the differential tests (same file fed to nncert and onnxruntime). */
#include "nncert/model.h"

#include <stdio.h>
#include <stdlib.h>

static uint64_t rng_state;
static double uniform01(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: gen_input MODEL SEED BATCH LO HI\n");
        return 64;
    }
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    if (nnc_mdl_load(&m, argv[1], err, sizeof err)) {
        fprintf(stderr, "gen_input: %s\n", err);
        return 65;
    }
    rng_state = strtoull(argv[2], NULL, 10);
    int batch = atoi(argv[3]);
    double lo = atof(argv[4]), hi = atof(argv[5]);
    printf("{\"inputs\": {");
    for (int i = 0; i < nnc_mdl_num_inputs(m); i++) {
        nnc_tensor_info t;
        nnc_mdl_input_info(m, i, &t);
        printf("%s\"%s\": {\"shape\": [", i ? ", " : "", t.name);
        for (int d = 0; d < t.rank; d++) printf("%s%lld", d ? ", " : "", (long long)(d == 0 ? t.dims[0] * batch : t.dims[d]));
        printf("], \"data\": [");
        for (int64_t k = 0; k < t.numel * batch; k++) printf("%s%.9g", k ? ", " : "", (double)(float)(lo + (hi - lo) * uniform01()));
        printf("]}");
    }
    printf("}}\n");
    nnc_mdl_destroy(m);
    return 0;
}
