/* gnn_robust: node-robustness specs for graph models, and a soundness check
 * of the verifier's bounds on them.
 *
 *   gnn_robust MODEL X.npy --node T --perturb I,J,... --eps E
 *              [--spec OUT.vnnlib] [--samples N] [--seed S]
 *
 * MODEL takes X [N, F] (one graph) and gives logits [N, C].  The spec
 * (format: models/zoo/README-gnn.md) is VNN-LIB over the flattened X:
 * X_(i*F+k) in [x - E, x + E] for the perturbed nodes i, pinned to x (zero
 * width) for every other node; the unsafe set is "some class j != label has
 * Y_(T*C+j) >= Y_(T*C+label)", label = node T's predicted class at X.  Since
 * A is a constant, only nodes within the model's hop count of T can matter.
 *
 * With --samples N (default 2000): IBP and CROWN output bounds of the box
 * (verifier/bounds_impl.h) are computed, N uniform points of the box are run
 * by the float64 runtime, and every output must lie inside both.  Prints
 * "label L ibp_width W crown_width V samples N outside 0"; exits 1 when a
 * sample falls outside, 64/65 on bad arguments or data.  The lower bounds
 * of the margins y_label - y_j from back-substitution (nnc_bnd_linear_lower)
 * are printed beside the interval ones and checked against the samples too. */
#include "nncert/model.h"
#include "verifier/bounds_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs;
static double unif(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (double)(rs >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    const char *model = NULL, *xpath = NULL, *spec = NULL, *perturb = NULL;
    long node = -1, samples = 2000;
    double eps = -1;
    rs = 88172645463325252ULL;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--node") == 0 && v) node = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--perturb") == 0 && v) perturb = argv[++i];
        else if (strcmp(argv[i], "--eps") == 0 && v) eps = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "--spec") == 0 && v) spec = argv[++i];
        else if (strcmp(argv[i], "--samples") == 0 && v) samples = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--seed") == 0 && v) rs ^= strtoull(argv[++i], NULL, 10) * 0x9E3779B97F4A7C15ULL;
        else if (argv[i][0] != '-' && !model) model = argv[i];
        else if (argv[i][0] != '-' && !xpath) xpath = argv[i];
        else {
            fprintf(stderr, "gnn_robust: bad argument '%s'\n", argv[i]);
            return 64;
        }
    }
    if (!model || !xpath || node < 0 || !perturb || !(eps >= 0) || samples < 0) {
        fprintf(stderr, "usage: gnn_robust MODEL X.npy --node T --perturb I,J,... --eps E [--spec OUT] [--samples N]\n");
        return 64;
    }
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_inputs in;
    if (nnc_mdl_load(&m, model, err, sizeof err) || nnc_mdl_read_inputs(m, xpath, &in, err, sizeof err)) {
        fprintf(stderr, "gnn_robust: %s\n", err);
        return 65;
    }
    nnc_tensor_info ti, to;
    nnc_mdl_input_info(m, 0, &ti);
    nnc_mdl_output_info(m, 0, &to);
    if (ti.rank != 2 || to.rank != 2 || to.dims[0] != ti.dims[0] || node >= ti.dims[0] || in.batch != 1) {
        fprintf(stderr, "gnn_robust: the model must map X [N,F] to logits [N,C] and --node be < N\n");
        return 65;
    }
    int64_t N = ti.dims[0], F = ti.dims[1], C = to.dims[1], nin = N * F, nout = N * C;
    double *lo = malloc((size_t)nin * sizeof(double)), *hi = malloc((size_t)nin * sizeof(double));
    double *y = malloc((size_t)nout * sizeof(double)), *xs = malloc((size_t)nin * sizeof(double));
    unsigned char *pert = calloc((size_t)N, 1);
    for (const char *p = perturb; *p;) {
        char *end;
        long i = strtol(p, &end, 10);
        if (end == p || i < 0 || i >= N) {
            fprintf(stderr, "gnn_robust: bad node list '%s'\n", perturb);
            return 64;
        }
        pert[i] = 1;
        p = *end == ',' ? end + 1 : end;
    }
    const double *x = in.data[0];
    nnc_runtime *rt;
    if (nnc_rt_create(&rt, m, NNC_PRECISION_F64, 1, err, sizeof err)) {
        fprintf(stderr, "gnn_robust: %s\n", err);
        return 70;
    }
    const void *ins[1];
    void *outs[1] = {y};
    ins[0] = x;
    nnc_rt_run(rt, 1, ins, outs, err, sizeof err);
    int label = 0;
    for (int j = 1; j < C; j++)
        if (y[node * C + j] > y[node * C + label]) label = j;
    for (int64_t i = 0; i < N; i++)
        for (int64_t k = 0; k < F; k++) {
            double e = pert[i] ? eps : 0.0;
            lo[i * F + k] = x[i * F + k] - e;
            hi[i * F + k] = x[i * F + k] + e;
        }
    if (spec) {
        FILE *f = fopen(spec, "w");
        if (f == NULL) {
            fprintf(stderr, "gnn_robust: cannot write %s\n", spec);
            return 73;
        }
        fprintf(f, "; node robustness: node %ld keeps class %d when the features of nodes %s move by %.17g\n", node,
                label, perturb, eps);
        for (int64_t i = 0; i < nin; i++) fprintf(f, "(declare-const X_%lld Real)\n", (long long)i);
        for (int64_t j = 0; j < nout; j++) fprintf(f, "(declare-const Y_%lld Real)\n", (long long)j);
        for (int64_t i = 0; i < nin; i++)
            fprintf(f, "(assert (>= X_%lld %.17g))\n(assert (<= X_%lld %.17g))\n", (long long)i, lo[i], (long long)i, hi[i]);
        fprintf(f, "(assert (or\n");
        for (int j = 0; j < C; j++)
            if (j != label)
                fprintf(f, "  (and (>= Y_%lld Y_%lld))\n", (long long)(node * C + j), (long long)(node * C + label));
        fprintf(f, "))\n");
        if (fclose(f) != 0) return 73;
    }
    int outside = 0;
    double wi = 0, wc = 0, ibp_margin = INFINITY, lin_margin = INFINITY;
    double mlo[64], mlin[64];
    int mj[64];
    if (C > 64) {
        fprintf(stderr, "gnn_robust: more than 64 classes\n");
        return 69;
    }
    if (samples > 0) {
        nnc_bnd *b;
        if (nnc_bnd_create(&b, m, err, sizeof err)) {
            fprintf(stderr, "gnn_robust: %s\n", err);
            return 69;
        }
        double *ilo = malloc((size_t)nout * sizeof(double)), *ihi = malloc((size_t)nout * sizeof(double));
        double *clo = malloc((size_t)nout * sizeof(double)), *chi = malloc((size_t)nout * sizeof(double));
        nnc_bnd_compute(b, lo, hi, 0);
        memcpy(ilo, nnc_bnd_out_lo(b), (size_t)nout * sizeof(double));
        memcpy(ihi, nnc_bnd_out_hi(b), (size_t)nout * sizeof(double));
        nnc_bnd_compute(b, lo, hi, 1);
        memcpy(clo, nnc_bnd_out_lo(b), (size_t)nout * sizeof(double));
        memcpy(chi, nnc_bnd_out_hi(b), (size_t)nout * sizeof(double));
        for (int j = 0; j < C; j++) {
            wi += ihi[node * C + j] - ilo[node * C + j];
            wc += chi[node * C + j] - clo[node * C + j];
        }
        /* margins y_label - y_j by back-substitution through the network (A
         * enters as a fixed linear map) against the interval difference */
        double *cm = calloc((size_t)C * (size_t)nout, sizeof(double)), *d0 = calloc((size_t)C, sizeof(double));
        int nobj = 0;
        for (int j = 0; j < C; j++)
            if (j != label) {
                cm[(size_t)nobj * nout + node * C + label] = 1.0;
                cm[(size_t)nobj * nout + node * C + j] = -1.0;
                mlo[nobj] = clo[node * C + label] - chi[node * C + j];
                mj[nobj++] = j;
            }
        if (nnc_bnd_linear_lower(b, nobj, cm, d0, mlin, NULL) != NNC_STATUS_OK) {
            fprintf(stderr, "gnn_robust: linear bounds failed\n");
            return 70;
        }
        for (int o = 0; o < nobj; o++) {
            if (mlo[o] < ibp_margin) ibp_margin = mlo[o];
            if (mlin[o] < lin_margin) lin_margin = mlin[o];
        }
        free(cm);
        free(d0);
        for (long s = 0; s < samples; s++) {
            for (int64_t i = 0; i < nin; i++) {
                double u = s == 0 ? 0.0 : s == 1 ? 1.0 : unif(); /* the two extreme corners first */
                xs[i] = lo[i] + u * (hi[i] - lo[i]);
            }
            ins[0] = xs;
            nnc_rt_run(rt, 1, ins, outs, err, sizeof err);
            for (int o = 0; o < C - 1; o++) {
                double v = y[node * C + label] - y[node * C + mj[o]];
                if (!(v >= mlin[o] - 1e-9 * (1 + fabs(v))) && outside++ < 5)
                    fprintf(stderr, "gnn_robust: sample %ld margin to class %d = %.17g below the linear bound %.17g\n", s,
                            mj[o], v, mlin[o]);
            }
            for (int64_t j = 0; j < nout; j++)
                if (!(y[j] >= ilo[j] && y[j] <= ihi[j] && y[j] >= clo[j] && y[j] <= chi[j])) {
                    if (outside++ < 5)
                        fprintf(stderr, "gnn_robust: sample %ld output %lld = %.17g outside [%.17g, %.17g] / [%.17g, %.17g]\n",
                                s, (long long)j, y[j], ilo[j], ihi[j], clo[j], chi[j]);
                }
        }
        free(ilo); free(ihi); free(clo); free(chi);
        nnc_bnd_destroy(b);
    }
    printf("label %d ibp_width %.6g crown_width %.6g margin_lower ibp %.6g linear %.6g samples %ld outside %d\n", label,
           wi, wc, ibp_margin, lin_margin, samples, outside);
    nnc_rt_destroy(rt);
    nnc_inputs_clear(&in);
    nnc_mdl_destroy(m);
    free(lo); free(hi); free(y); free(xs); free(pert);
    return outside ? 1 : 0;
}
