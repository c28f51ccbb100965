/* nncert dlrm-bounds: sound output bounds of a DLRM around one trace sample
 * (ids fixed, dense features in a box), checked against sampled points. */
#include "cli/cli.h"
#include "common/philox.h"
#include "dist/dlrm.h"
#include "nncert/model.h"
#include "nncert/verifier.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DB_TRACE, DB_SAMPLE, DB_EPS, DB_POINTS, DB_SEED };
static const nnc_cli_opt dlrm_bounds_opts[] = {
    [DB_TRACE] = {"--trace", "FILE", "the trace (required)"},
    [DB_SAMPLE] = {"--sample", "K", "its sample K (1-based, default 1): the categorical ids"},
    [DB_EPS] = {"--eps", "E", "every dense feature x_i in [x_i - E, x_i + E] (default 0.1)"},
    [DB_POINTS] = {"--points", "N", "points checked (default 1000)"},
    [DB_SEED] = {"--seed", "S", "their Philox seed (default 1)"},
};
static const nnc_cli_doc dlrm_bounds_doc = NNC_CLI_DOC(
    "dlrm-bounds",
    "usage: nncert dlrm-bounds MODEL --trace FILE [--sample K] [--eps E] [--points N] [--seed S]\n",
    "Bound the output of the DLRM MODEL for the categorical ids of trace sample K\n"
    "(1-based, default 1) with every dense feature x_i in [x_i - E, x_i + E]\n"
    "(default E 0.1), two ways, both sound in exact arithmetic on the stored\n"
    "weights: interval bounds through the MLPs and the pairwise dot-product\n"
    "interaction, and linear (CROWN) bounds with McCormick planes for the\n"
    "interaction's products (what 'nncert verify' uses).\n"
    "Then N points (default 1000) drawn uniformly from the box (Philox, seed S)\n"
    "are evaluated in float64 and must lie inside both.\n",
    dlrm_bounds_opts, "Exit 0 when they all do, 1 when one does not (a soundness failure).\n");

int nnc_cmd_dlrm_bounds(int argc, char **argv)
{
    const char *model = NULL, *trace_path = NULL;
    uint64_t sample = 1, points = 1000, seed = 1;
    double eps = 0.1;
    const char *v;
    int k, rc0;
    for (int i = 0; (k = nnc_cli_getopt(&dlrm_bounds_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        uint64_t *dst = k == DB_SAMPLE ? &sample : k == DB_POINTS ? &points : &seed;
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG:
            if ((rc0 = nnc_cli_one_positional(&dlrm_bounds_doc, v, &model, "MODEL")) != EXIT_OK) return rc0;
            break;
        case DB_TRACE: trace_path = v; break;
        case DB_EPS:
            if (nnc_cli_parse_double(v, &eps) || !(eps >= 0) || eps > 1e6) return nnc_cli_usage_error("dlrm-bounds", "--eps must be 0..1e6");
            break;
        case DB_SAMPLE: case DB_POINTS: case DB_SEED:
            if (nnc_cli_parse_u64(v, dst) || (dst != &seed && *dst < 1) || (dst == &points && *dst > 100000000))
                return nnc_cli_usage_error("dlrm-bounds", "--sample, --points must be positive integers, --seed an integer");
            break;
        }
    }
    if (!model || !trace_path) return nnc_cli_usage_error("dlrm-bounds", "MODEL and --trace FILE are required");
    char err[NNC_ERRBUF_SIZE];
    nnc_dlrm_model dm;
    nnc_trace tr;
    nnc_runtime *rt = NULL;
    memset(&tr, 0, sizeof tr);
    nnc_status s = nnc_dlrm_model_load(&dm, model, err, sizeof err);
    if (s) return nnc_cli_fail(s, err);
    int rc = EXIT_OK, T = dm.n_tables, nin = nnc_mdl_num_inputs(dm.model);
    double *lo = NULL, *hi = NULL, *olo = NULL, *ohi = NULL, *x = NULL, *y = NULL, *llo = NULL, *lhi = NULL;
    nnc_model *fixed = NULL;
    const int64_t **ids = calloc((size_t)T + 1, sizeof *ids);
    const void **in = calloc((size_t)nin + 1, sizeof *in);
    if ((s = nnc_mdl_trace_read(&tr, trace_path, dm.n_dense, T, err, sizeof err))) {
        rc = nnc_cli_fail(s, err);
        goto done;
    }
    if ((int64_t)sample > tr.n_samples) {
        rc = nnc_cli_usage_error("dlrm-bounds", "--sample is past the trace's last sample");
        goto done;
    }
    int64_t smp = (int64_t)sample - 1;
    nnc_tensor_info ot;
    nnc_mdl_output_info(dm.model, 0, &ot);
    lo = malloc((size_t)dm.n_dense * sizeof *lo);
    hi = malloc((size_t)dm.n_dense * sizeof *hi);
    x = malloc((size_t)dm.n_dense * sizeof *x);
    olo = malloc((size_t)ot.numel * sizeof *olo);
    ohi = malloc((size_t)ot.numel * sizeof *ohi);
    y = malloc((size_t)ot.numel * sizeof *y);
    llo = malloc((size_t)ot.numel * sizeof *llo);
    lhi = malloc((size_t)ot.numel * sizeof *lhi);
    if (!ids || !in || !lo || !hi || !x || !olo || !ohi || !y || !llo || !lhi) {
        rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    for (int t = 0; t < T; t++) {
        int64_t b = smp * T + t;
        if (tr.offsets[b + 1] - tr.offsets[b] != dm.info[t].bag_len) {
            rc = nnc_cli_fail(NNC_STATUS_INVALID, "the sample's bag lengths differ from the model's inputs");
            goto done;
        }
        ids[t] = tr.ids + tr.offsets[b];
    }
    for (int k = 0; k < dm.n_dense; k++) {
        lo[k] = (double)tr.dense[smp * dm.n_dense + k] - eps;
        hi[k] = (double)tr.dense[smp * dm.n_dense + k] + eps;
    }
    if ((s = nnc_vrf_dlrm_bounds(model, ids, lo, hi, olo, ohi, err, sizeof err)) ||
        (s = nnc_mdl_load(&fixed, model, err, sizeof err)) ||
        (s = nnc_mdl_embbag_fix_ids(fixed, ids, err, sizeof err)) ||
        (s = nnc_vrf_output_bounds(fixed, lo, hi, 1, llo, lhi, err, sizeof err)) ||
        (s = nnc_rt_create(&rt, dm.model, NNC_PRECISION_F64, 1, err, sizeof err))) {
        rc = nnc_cli_fail(s, err);
        goto done;
    }
    /* sampled points, decided by the float64 runtime with the same ids */
    int ti = 0;
    for (int i = 0; i < nin; i++) {
        nnc_tensor_info it;
        nnc_mdl_input_info(dm.model, i, &it);
        in[i] = nnc_dtype_is_float(it.dtype) ? (const void *)x : (const void *)ids[ti++];
    }
    nnc_philox_state ph;
    nnc_philox_init(&ph, seed, 0, 0);
    uint64_t outside = 0, outside_lin = 0;
    double ymin = INFINITY, ymax = -INFINITY;
    for (uint64_t p = 0; p < points; p++) {
        for (int k = 0; k < dm.n_dense; k++) {
            uint32_t a = nnc_philox_next_u32(&ph), b = nnc_philox_next_u32(&ph);
            x[k] = lo[k] + (hi[k] - lo[k]) * nnc_philox_u32x2_to_double(a, b);
            if (x[k] > hi[k]) x[k] = hi[k];
        }
        void *outp[1] = {y};
        if ((s = nnc_rt_run(rt, 1, in, outp, err, sizeof err))) {
            rc = nnc_cli_fail(s, err);
            goto done;
        }
        for (int64_t j = 0; j < ot.numel; j++) {
            if (!(y[j] >= olo[j] && y[j] <= ohi[j])) outside++;
            if (!(y[j] >= llo[j] && y[j] <= lhi[j])) outside_lin++;
            ymin = fmin(ymin, y[j]);
            ymax = fmax(ymax, y[j]);
        }
    }
    double wi = 0, wl = 0;
    printf("sample %llu, eps %g: interval bounds", (unsigned long long)sample, eps);
    for (int64_t j = 0; j < ot.numel; j++) printf(" [%.17g, %.17g]", olo[j], ohi[j]);
    printf("\nsample %llu, eps %g: linear bounds  ", (unsigned long long)sample, eps);
    for (int64_t j = 0; j < ot.numel; j++) {
        printf(" [%.17g, %.17g]", llo[j], lhi[j]);
        wi += ohi[j] - olo[j];
        wl += lhi[j] - llo[j];
    }
    printf("\nwidth: interval %.6g, linear %.6g (%.3gx narrower)\n", wi, wl, wl > 0 ? wi / wl : INFINITY);
    printf("%llu points sampled: outputs in [%.17g, %.17g], %llu outside the interval bounds, %llu outside the linear bounds\n",
           (unsigned long long)points, ymin, ymax, (unsigned long long)outside, (unsigned long long)outside_lin);
    if (outside || outside_lin) rc = EXIT_FAILED;
done:
    nnc_rt_destroy(rt);
    free(lo); free(hi); free(olo); free(ohi); free(x); free(y); free(llo); free(lhi);
    nnc_mdl_destroy(fixed);
    free(ids);
    free(in);
    nnc_mdl_trace_clear(&tr);
    nnc_dlrm_model_free(&dm);
    return rc;
}
