/* libFuzzer target: the VNN-LIB parser.  Invariants checked on every
 * successful parse: the normal form is well formed (finite non-empty boxes,
 * ascending indices, non-zero finite coefficients, at least one disjunct per
 * case), and writing it out and parsing the text again gives an equal spec.
 * A reparse may only fail with NNC_STATUS_LIMIT (the written form of a spec
 * at the edge of a resource limit can need more atoms than the original). */
#include "nncert/spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void check_lin(const nnc_spc_lin *l, int nvars, int min_terms)
{
    if (l->n < min_terms || !isfinite(l->rhs) || (signbit(l->rhs) && l->rhs == 0)) abort();
    for (int t = 0; t < l->n; t++) {
        if (l->idx[t] < 0 || l->idx[t] >= nvars) abort();
        if (t > 0 && l->idx[t] <= l->idx[t - 1]) abort();
        if (!isfinite(l->coef[t]) || l->coef[t] == 0) abort();
    }
}

static void check_form(const nnc_spec *s)
{
    int nin = nnc_spc_num_inputs(s), nout = nnc_spc_num_outputs(s), total = 0;
    if (nin < 1 || nout < 1 || nnc_spc_num_cases(s) < 1) abort();
    for (int k = 0; k < nnc_spc_num_cases(s); k++) {
        const double *lo = nnc_spc_case_lo(s, k), *hi = nnc_spc_case_hi(s, k);
        for (int i = 0; i < nin; i++)
            if (!isfinite(lo[i]) || !isfinite(hi[i]) || !(lo[i] <= hi[i])) abort();
        for (int i = 0; i < nnc_spc_case_num_input_cons(s, k); i++) {
            nnc_spc_lin l;
            nnc_spc_case_input_con(s, k, i, &l);
            check_lin(&l, nin, 2);
        }
        int nd = nnc_spc_case_num_disjuncts(s, k);
        if (nd < 1) abort();
        total += nd;
        for (int j = 0; j < nd; j++)
            for (int i = 0; i < nnc_spc_disjunct_size(s, k, j); i++) {
                nnc_spc_lin l;
                nnc_spc_disjunct_con(s, k, j, i, &l);
                check_lin(&l, nout, 1);
            }
        (void)nnc_spc_in_region(s, k, lo);
    }
    if (total != nnc_spc_total_disjuncts(s)) abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    nnc_spec *s;
    char err[256];
    if (nnc_spc_parse(&s, (const char *)data, size, err, sizeof err) != NNC_STATUS_OK) return 0;
    check_form(s);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL) abort();
    if (nnc_spc_write_vnnlib(f, s, err, sizeof err) != NNC_STATUS_OK) abort();
    fclose(f);
    nnc_spec *t;
    nnc_status st = nnc_spc_parse(&t, buf, len, err, sizeof err);
    if (st == NNC_STATUS_OK) {
        if (!nnc_spc_equal(s, t) || !nnc_spc_equal(t, s)) abort();
        nnc_spc_destroy(t);
    } else if (st != NNC_STATUS_LIMIT) {
        fprintf(stderr, "reparse failed: %s\n%s\n", err, buf);
        abort();
    }
    free(buf);
    nnc_spc_destroy(s);
    return 0;
}
