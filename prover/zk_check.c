/* Whether a proof of inference's public signals belong to a model and an
 * input (prover/circuit.h, nnc_prv_zk_check_binding): `nncert check --model
 * --input` and the gate's groth16 checks with a model. */
#include "prover/circuit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

nnc_status nnc_prv_zk_check_binding(const nnc_prv_fr_vec *pub, const char *model_path, int bits, const char *calib_path,
                                    const char *input_path, int *bound, char *why, size_t whylen, char *err,
                                    size_t errlen)
{
    *bound = 0;
    why[0] = 0;
    nnc_model *m = NULL;
    nnc_qmodel q;
    memset(&q, 0, sizeof q);
    int64_t **qin = NULL;
    nnc_status st = nnc_mdl_load(&m, model_path, err, errlen);
    if (st) return st;
    nnc_inputs cal = {0}, in = {0};
    if (calib_path && (st = nnc_mdl_read_inputs(m, calib_path, &cal, err, errlen))) goto done;
    st = nnc_qmodel_build(&q, m, bits, calib_path ? (const double *const *)cal.data : NULL, calib_path ? cal.batch : 0,
                          err, errlen);
    if (calib_path) nnc_inputs_free(&cal);
    if (st) goto done;
    if (input_path) {
        if ((st = nnc_mdl_read_inputs(m, input_path, &in, err, errlen))) goto done;
        if (in.batch != 1) {
            nnc_inputs_free(&in);
            st = nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: the input must hold exactly one sample", input_path);
            goto done;
        }
        qin = calloc((size_t)q.n_inputs, sizeof *qin);
        for (int i = 0; qin && i < q.n_inputs && !st; i++)
            if (!(qin[i] = malloc((size_t)q.t[q.inputs[i]].numel * sizeof **qin + 1))) st = NNC_STATUS_NOMEM;
        if (!qin || st) {
            nnc_inputs_free(&in);
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            goto done;
        }
        st = nnc_qmodel_quantize_inputs(&q, (const double *const *)in.data, qin, err, errlen);
        nnc_inputs_free(&in);
        if (st) goto done;
    }
    nnc_prv_fr c;
    int64_t nout = q.t[q.output].numel;
    if (pub->n != (size_t)nout + 2) {
        snprintf(why, whylen, "the proof has %zu public signals; one for this model has %lld", pub->n, (long long)nout + 2);
    } else if ((st = nnc_prv_zk_model_commitment(&c, &q, err, errlen))) {
        goto done;
    } else if (memcmp(&c, &pub->v[nout], sizeof c) != 0) {
        snprintf(why, whylen, "the proof is for another model (model commitment differs)");
    } else if (qin && (st = nnc_prv_zk_input_commitment(&c, &q, (const int64_t *const *)qin, err, errlen))) {
        goto done;
    } else if (qin && memcmp(&c, &pub->v[nout + 1], sizeof c) != 0) {
        snprintf(why, whylen, "the proof is for another input (input commitment differs)");
    } else {
        *bound = 1;
    }
done:
    if (qin) {
        for (int i = 0; i < q.n_inputs; i++) free(qin[i]);
        free(qin);
    }
    nnc_qmodel_clear(&q); /* (a zeroed or half-built one too, as the CLI's jobs do) */
    if (m) nnc_mdl_destroy(m);
    return st;
}
