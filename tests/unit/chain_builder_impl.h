/* Random dense ReLU chains for the verifier's unit tests (test_symfwd.c,
 * test_exact.c, test_gpu_bab.c): an input Sub, Gemm+Relu layers, a Gemm
 * output, weights from the harness's default stream (urand(); the test
 * seeds it). */
#ifndef NNC_CHAIN_BUILDER_IMPL_H
#define NNC_CHAIN_BUILDER_IMPL_H

#include "nncert/model.h"
#include "tests/unit/harness.h"
#include "tests/unit/onnx_builder.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Model: Sub(x, mu) then nh Gemm+Relu layers and a Gemm output. */
static nnc_model *build_chain(int n0, int nh, const int *widths, int n_out, int act_last_sigmoid)
{
    static char names[64][16];
    int nn = 0;
    mb b;
    mb_init(&b, 13);
    int64_t xd[2] = {1, n0};
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    float *mu = malloc(sizeof(float) * (size_t)n0);
    for (int i = 0; i < n0; i++) mu[i] = (float)(urand() - 0.5);
    int64_t md[1] = {n0};
    b.inits[0] = tensor_floats("mu", 1, md, mu, (size_t)n0);
    free(mu);
    void *owned[4 * 16];
    int nown = 0;
    int ni = 1;
    static const char *sub_in[2] = {"x", "mu"}, *sub_out[1] = {"h0"};
    b.nodes[0] = node("Sub", "sub", 2, sub_in, 1, sub_out);
    int nodes = 1, K = n0;
    const char *prev = "h0";
    for (int l = 0; l <= nh; l++) {
        int N = l < nh ? widths[l] : n_out;
        float *W = malloc(sizeof(float) * (size_t)(N * K)), *bb = malloc(sizeof(float) * (size_t)N);
        double sc = 1.5 / sqrt((double)K);
        for (int j = 0; j < N * K; j++) W[j] = (float)((urand() * 2 - 1) * sc);
        for (int j = 0; j < N; j++) bb[j] = (float)((urand() * 2 - 1) * 0.3);
        char *wn = names[nn++], *bn = names[nn++], *zn = names[nn++], *an = names[nn++], *gn = names[nn++], *rn = names[nn++];
        snprintf(wn, 16, "W%d", l);
        snprintf(bn, 16, "b%d", l);
        snprintf(zn, 16, l < nh ? "z%d" : "y", l);
        snprintf(an, 16, "a%d", l);
        snprintf(gn, 16, "g%d", l);
        snprintf(rn, 16, "r%d", l);
        int64_t wd[2] = {N, K}, bd[1] = {N};
        b.inits[ni++] = tensor_floats(wn, 2, wd, W, (size_t)(N * K));
        b.inits[ni++] = tensor_floats(bn, 1, bd, bb, (size_t)N);
        free(W);
        free(bb);
        const char **gi = malloc(sizeof(char *) * 3), **go = malloc(sizeof(char *)), **ri = malloc(sizeof(char *)),
                   **ro = malloc(sizeof(char *));
        ck_assert(nown + 4 <= (int)(sizeof owned / sizeof owned[0]));
        owned[nown++] = gi; owned[nown++] = go; owned[nown++] = ri; owned[nown++] = ro;
        gi[0] = prev; gi[1] = wn; gi[2] = bn;
        go[0] = zn;
        Onnx__NodeProto *g = node("Gemm", gn, 3, gi, 1, go);
        node_attr(g, attr_int("transB", 1));
        b.nodes[nodes++] = g;
        if (l < nh) {
            ri[0] = zn;
            ro[0] = an;
            b.nodes[nodes++] = node(act_last_sigmoid && l == nh - 1 ? "Sigmoid" : "Relu", rn, 1, ri, 1, ro);
            prev = an;
        }
        K = N;
    }
    b.graph.n_initializer = (size_t)ni;
    b.graph.n_node = (size_t)nodes;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    for (int i = 0; i < nown; i++) free(owned[i]);
    return m;
}

#endif
