/* gen_chain N OUT.r1cs OUT.wtns: a synthetic circuit of N + 1 constraints
 * (t_0 = a b, t_i = t_{i-1} a + b, c = t_{N-1}; public output c, public
 * input a = 3, private input b = 11) written as circom's .r1cs and the
 * satisfying witness as snarkjs's .wtns, for prover benchmarks at sizes that
 * circom2 (WebAssembly) would take many minutes to compile. */
#include "prover/field_impl.h"
#include "prover/formats_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen_chain N OUT.r1cs OUT.wtns\n");
        return 64;
    }
    long n = atol(argv[1]);
    if (n < 1 || n > (1L << 26)) {
        fprintf(stderr, "gen_chain: N out of range\n");
        return 64;
    }
    uint32_t nc = (uint32_t)n + 1, nw = (uint32_t)n + 4;
    nnc_prv_r1cs r;
    memset(&r, 0, sizeof r);
    r.n_wires = nw;
    r.n_pub_out = 1;
    r.n_pub_in = 1;
    r.n_prv_in = 1;
    r.n_labels = nw;
    r.n_constraints = nc;
    r.lc_start = malloc(sizeof(uint64_t) * (3 * (size_t)nc + 1));
    r.terms = malloc(sizeof(nnc_prv_r1cs_term) * (5 * (size_t)nc));
    nnc_prv_fr_vec w = {nw, malloc(sizeof(nnc_prv_fr) * nw)};
    if (!r.lc_start || !r.terms || !w.v) return 70;
    nnc_fr one, mone, a, b;
    nnc_fr_set_one(&one);
    nnc_fr_neg(&mone, &one);
    nnc_fr_set_u64(&a, 3);
    nnc_fr_set_u64(&b, 11);
    uint64_t t = 0;
#define TERM(wire_, coef_) (r.terms[t].wire = (wire_), r.terms[t].coef = (coef_), t++)
    for (uint32_t i = 0; i < nc; i++) {
        r.lc_start[3 * i] = t;
        if (i == 0) TERM(2, one);
        else if (i < (uint32_t)n) TERM(4 + i - 1, one);
        else TERM(0, one);
        r.lc_start[3 * i + 1] = t;
        if (i == 0) TERM(3, one);
        else if (i < (uint32_t)n) TERM(2, one);
        else TERM(4 + (uint32_t)n - 1, one);
        r.lc_start[3 * i + 2] = t;
        if (i == 0) TERM(4, one);
        else if (i < (uint32_t)n) {
            TERM(4 + i, one);
            TERM(3, mone);
        } else {
            TERM(1, one);
        }
    }
    r.lc_start[3 * nc] = t;
    r.n_terms = t;
    w.v[0] = one;
    w.v[2] = a;
    w.v[3] = b;
    nnc_fr_mul(&w.v[4], &a, &b);
    for (uint32_t i = 1; i < (uint32_t)n; i++) {
        nnc_fr_mul(&w.v[4 + i], &w.v[4 + i - 1], &a);
        nnc_fr_add(&w.v[4 + i], &w.v[4 + i], &b);
    }
    w.v[1] = w.v[4 + n - 1];
    char err[NNC_ERRBUF_SIZE];
    uint32_t bad;
    if (nnc_prv_r1cs_check_witness(&bad, &r, w.v, w.n, err, sizeof err) ||
        nnc_prv_r1cs_write_file(argv[2], &r, err, sizeof err) || nnc_prv_wtns_write_file(argv[3], &w, err, sizeof err)) {
        fprintf(stderr, "gen_chain: %s\n", err);
        return 70;
    }
    free(r.lc_start);
    free(r.terms);
    free(w.v);
    return 0;
}
