/* libFuzzer target: ONNX loader, preparation and (for small models) one
 * evaluation.  Looks for crashes, sanitizer reports and leaks. */
#include "nncert/model.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m = NULL;
    if (nnc_mdl_parse(&m, data, size, NULL, err, sizeof err) != NNC_STATUS_OK) {
        if (m != NULL || err[0] == 0) abort(); /* failure must leave no model and a message */
        return 0;
    }
    if (nnc_mdl_prepare(m, NULL, err, sizeof err) == NNC_STATUS_OK) {
        int nin = nnc_mdl_num_inputs(m), nout = nnc_mdl_num_outputs(m);
        int64_t total = 0;
        for (int i = 0; i < nin; i++) {
            nnc_tensor_info t;
            nnc_mdl_input_info(m, i, &t);
            total += t.numel;
        }
        nnc_runtime *rt;
        if (nin <= 8 && nout <= 8 && total <= 4096 &&
            nnc_rt_create(&rt, m, NNC_PRECISION_F64, 1, err, sizeof err) == NNC_STATUS_OK) {
            void *ins[8], *outs[8];
            for (int i = 0; i < nin; i++) {
                nnc_tensor_info t;
                nnc_mdl_input_info(m, i, &t);
                ins[i] = calloc((size_t)t.numel + 1, 8);
            }
            for (int j = 0; j < nout; j++) {
                nnc_tensor_info t;
                nnc_mdl_output_info(m, j, &t);
                outs[j] = (uint64_t)t.numel < (1u << 24) ? calloc((size_t)t.numel + 1, 8) : NULL;
            }
            int ok = 1;
            for (int j = 0; j < nout; j++) ok &= outs[j] != NULL;
            if (ok) nnc_rt_run(rt, 1, (const void *const *)ins, outs, err, sizeof err);
            for (int i = 0; i < nin; i++) free(ins[i]);
            for (int j = 0; j < nout; j++) free(outs[j]);
            nnc_rt_destroy(rt);
        }
    }
    nnc_mdl_destroy(m);
    return 0;
}
