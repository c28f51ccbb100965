/* Sampling benchmark: bench_sampling MODEL SPEC SAMPLES
 * 1. samples per second of the verifier's estimate on the open region (no
 *    branch and bound: the whole box is sampled), next to the float32
 *    runtime's batch-1024 throughput measured in the same run;
 * 2. samples needed for a +-0.001 interval at 99.9% confidence, without and
 *    with the certified-volume reduction: with branch and bound, only the
 *    open fraction f is sampled and the interval on the violation fraction
 *    is f times the interval on the open part's rate, so the half-width
 *    needed there is 0.001 / f.
 * Prints CSV records: metric,value. */
#include "models/model.h"
#include "specs/spec.h"
#include "verifier/stats_impl.h"
#include "verifier/verifier.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_sampling MODEL SPEC SAMPLES\n");
        return 64;
    }
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_spec *s;
    if (nnc_mdl_load(&m, argv[1], err, sizeof err) || nnc_spc_parse_file(&s, argv[2], err, sizeof err)) {
        fprintf(stderr, "bench_sampling: %s\n", err);
        return 65;
    }
    uint64_t N = strtoull(argv[3], NULL, 10);
    /* runtime throughput, float32, batch 1024 */
    nnc_runtime *rt;
    nnc_tensor_info ti, to;
    nnc_mdl_input_info(m, 0, &ti);
    nnc_mdl_output_info(m, 0, &to);
    int B = 1024;
    float *x = calloc((size_t)(ti.numel * B), sizeof(float)), *y = calloc((size_t)(to.numel * B), sizeof(float));
    if (nnc_rt_create(&rt, m, NNC_PRECISION_F32, B, err, sizeof err)) return 70;
    const void *in[1] = {x};
    void *out[1] = {y};
    nnc_rt_run(rt, B, in, out, err, sizeof err);
    double t0 = now();
    int reps = 20;
    for (int r = 0; r < reps; r++) nnc_rt_run(rt, B, in, out, err, sizeof err);
    double rt_rate = reps * B / (now() - t0);
    nnc_rt_destroy(rt);
    /* sampling only */
    nnc_vrf_opts o;
    nnc_vrf_opts_default(&o);
    o.split = 0;
    o.samples = N;
    nnc_vrf_report rep;
    t0 = now();
    if (nnc_vrf_run(m, s, &o, &rep, err, sizeof err)) {
        fprintf(stderr, "bench_sampling: %s\n", err);
        return 70;
    }
    double samp_rate = (double)rep.samples / (now() - t0);
    double p = rep.samples ? (double)rep.sample_violations / (double)rep.samples : 0.5;
    nnc_vrf_report_free(&rep);
    /* branch and bound, then the open fraction */
    o.split = 1;
    o.samples = 1000;
    o.timeout_s = 20;
    if (nnc_vrf_run(m, s, &o, &rep, err, sizeof err)) return 70;
    double f = rep.open_fraction;
    double q = rep.samples ? (double)rep.sample_violations / (double)rep.samples : 0.5;
    uint64_t n_plain = 0, n_reduced = 0;
    nnc_vrf_cp_samples_needed(0.001, 0.999, p, &n_plain, err, sizeof err);
    if (f > 0 && 0.001 / f < 0.5) nnc_vrf_cp_samples_needed(0.001 / f, 0.999, q, &n_reduced, err, sizeof err);
    printf("metric,value\n");
    printf("runtime_f32_batch1024_inferences_per_s,%.0f\n", rt_rate);
    printf("verifier_samples_per_s,%.0f\n", samp_rate);
    printf("sampling_over_runtime_ratio,%.3f\n", samp_rate / rt_rate);
    printf("violation_rate_whole_box,%.6g\n", p);
    printf("open_fraction_after_branch_and_bound,%.6g\n", f);
    printf("violation_rate_open_part,%.6g\n", q);
    printf("samples_needed_pm0.001_99.9pct_without_reduction,%llu\n", (unsigned long long)n_plain);
    printf("samples_needed_pm0.001_99.9pct_with_reduction,%llu\n", (unsigned long long)n_reduced);
    nnc_vrf_report_free(&rep);
    nnc_spc_destroy(s);
    nnc_mdl_destroy(m);
    free(x);
    free(y);
    return 0;
}
