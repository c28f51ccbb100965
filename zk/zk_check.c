/* Whether a proof of inference's public signals belong to a model and an
 * input (zk/circuit.h, nnc_prv_zk_check_binding): `nncert check --model
 * --input` and the gate's groth16 checks with a model. */
#include "zk/circuit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MODEL quantised with bits (calibrated on calib_path, or NULL), and the
 * quantised sample of input_path (or *qin = NULL without one). */
static nnc_status load_q(nnc_model **m, nnc_qmodel *q, int64_t ***qin, const char *model_path, int bits,
                         const char *calib_path, const char *input_path, char *err, size_t errlen)
{
    *m = NULL;
    memset(q, 0, sizeof *q);
    *qin = NULL;
    nnc_status st = nnc_mdl_load(m, model_path, err, errlen);
    if (st) return st;
    nnc_inputs cal = {0}, in = {0};
    if (calib_path && (st = nnc_mdl_read_inputs(*m, calib_path, &cal, err, errlen))) return st;
    st = nnc_qmodel_build(q, *m, bits, calib_path ? (const double *const *)cal.data : NULL, calib_path ? cal.batch : 0,
                          err, errlen);
    if (calib_path) nnc_inputs_clear(&cal);
    if (st || !input_path) return st;
    if ((st = nnc_mdl_read_inputs(*m, input_path, &in, err, errlen))) return st;
    if (in.batch != 1) {
        nnc_inputs_clear(&in);
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: the input must hold exactly one sample", input_path);
    }
    *qin = calloc((size_t)q->n_inputs, sizeof **qin);
    for (int i = 0; *qin && i < q->n_inputs && !st; i++)
        if (!((*qin)[i] = malloc((size_t)q->t[q->inputs[i]].numel * sizeof ***qin + 1))) st = NNC_STATUS_NOMEM;
    if (!*qin || st) {
        nnc_inputs_clear(&in);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    st = nnc_qmodel_quantize_inputs(q, (const double *const *)in.data, *qin, err, errlen);
    nnc_inputs_clear(&in);
    return st;
}

static void free_q(nnc_model *m, nnc_qmodel *q, int64_t **qin)
{
    if (qin) {
        for (int i = 0; i < q->n_inputs; i++) free(qin[i]);
        free(qin);
    }
    nnc_qmodel_clear(q); /* (a zeroed or half-built one too, as the CLI's jobs do) */
    if (m) nnc_mdl_destroy(m);
}

/* The public signals against q (and qin). */
static nnc_status binding(const nnc_prv_fr_vec *pub, const nnc_qmodel *q, int64_t **qin, int *bound, char *why,
                          size_t whylen, char *err, size_t errlen)
{
    nnc_prv_fr c;
    nnc_status st;
    int64_t nout = q->t[q->output].numel;
    if (pub->n != (size_t)nout + 2) {
        snprintf(why, whylen, "the proof has %zu public signals; one for this model has %lld", pub->n, (long long)nout + 2);
    } else if ((st = nnc_prv_zk_model_commitment(&c, q, err, errlen))) {
        return st;
    } else if (memcmp(&c, &pub->v[nout], sizeof c) != 0) {
        snprintf(why, whylen, "the proof is for another model (model commitment differs)");
    } else if (qin && (st = nnc_prv_zk_input_commitment(&c, q, (const int64_t *const *)qin, err, errlen))) {
        return st;
    } else if (qin && memcmp(&c, &pub->v[nout + 1], sizeof c) != 0) {
        snprintf(why, whylen, "the proof is for another input (input commitment differs)");
    } else {
        *bound = 1;
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_zk_check_binding(const nnc_prv_fr_vec *pub, const char *model_path, int bits, const char *calib_path,
                                    const char *input_path, int *bound, char *why, size_t whylen, char *err,
                                    size_t errlen)
{
    nnc_model *m;
    nnc_qmodel q;
    int64_t **qin;
    *bound = 0;
    why[0] = 0;
    nnc_status st = load_q(&m, &q, &qin, model_path, bits, calib_path, input_path, err, errlen);
    if (!st) st = binding(pub, &q, qin, bound, why, whylen, err, errlen);
    free_q(m, &q, qin);
    return st;
}

nnc_status nnc_prv_zk_check_model(const nnc_prv_fr_vec *pub, const nnc_prv_zkey *z, const char *ptau_path,
                                  const char *model_path, int bits, const char *calib_path, const char *input_path,
                                  int priv, int *bound, uint32_t *n_contrib, char *why, size_t whylen, char *err,
                                  size_t errlen)
{
    nnc_model *m;
    nnc_qmodel q;
    int64_t **qin;
    nnc_prv_cb *cb = NULL;
    nnc_prv_r1cs r = {0};
    nnc_prv_fr_vec w = {0};
    nnc_prv_ptau p = {0};
    nnc_prv_mpc mp = {0};
    int ok = 0;
    *bound = 0;
    *n_contrib = 0;
    why[0] = 0;
    if ((priv & NNC_PRV_ZK_PRIVATE_WEIGHTS) && !(priv & NNC_PRV_ZK_PRIVATE_INPUT) && !input_path)
        return nnc_err(err, errlen, NNC_STATUS_ARG,
                       "with private weights the input is a circuit constant: the key can be tied to the model only "
                       "with the input");
    nnc_status st = load_q(&m, &q, &qin, model_path, bits, calib_path, input_path, err, errlen);
    if (st) goto done;
    if ((st = binding(pub, &q, qin, bound, why, whylen, err, errlen)) || !*bound) goto done;
    *bound = 0;
    if (z->contributions == NULL) {
        snprintf(why, whylen, "the key was not set up from a powers of tau file (no contributions section), so it "
                              "cannot be tied to the model");
        goto done;
    }
    if ((st = nnc_prv_zk_compile(&cb, &q, (nnc_prv_zk_privacy)priv, 0, (const int64_t *const *)qin, NULL, err, errlen)) ||
        (st = nnc_prv_cb_finish_move(cb, &r, &w, NULL, err, errlen)) ||
        (st = nnc_prv_ptau_open(&p, ptau_path, err, errlen)))
        goto done;
    char kwhy[400];
    if ((st = nnc_prv_zkey_verify(&ok, kwhy, sizeof kwhy, &mp, &r, &p, z, 0, err, errlen))) goto done;
    if (!ok)
        snprintf(why, whylen, "the key is not the model's circuit's from %s: %s", ptau_path, kwhy);
    else if (mp.n == 0)
        snprintf(why, whylen, "the key has no contribution (delta = 1): anyone can forge proofs with it");
    else
        *bound = 1;
    *n_contrib = mp.n;
done:
    nnc_prv_mpc_clear(&mp);
    nnc_prv_ptau_clear(&p);
    nnc_prv_r1cs_clear(&r);
    nnc_prv_fr_vec_clear(&w);
    if (cb) nnc_prv_cb_destroy(cb);
    free_q(m, &q, qin);
    return st;
}
