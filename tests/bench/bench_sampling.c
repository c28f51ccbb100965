/* Sampling benchmark: bench_sampling MODEL SPEC SAMPLES
 * 1. samples per second of the verifier's estimate on the open region (no
 *    branch and bound: the whole box is sampled), for the whole run and for
 *    the sampling stage alone, next to the float32 runtime's batch-1024
 *    throughput measured in the same run (wall clock, and CPU time of the
 *    process, which a shared machine disturbs less);
 * 2. samples needed for a +-0.001 interval at 99.9% confidence, without and
 *    with the certified-volume reduction: with branch and bound, only the
 *    open fraction f is sampled and the interval on the violation fraction
 *    is f times the interval on the open part's rate, so the half-width
 *    needed there is 0.001 / f.
 * Prints CSV records: metric,value. */
#include "nncert/model.h"
#include "nncert/spec.h"
#include "verifier/stats_impl.h"
#include "verifier/sample_impl.h"
#include "nncert/verifier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of the whole process (all threads): on a shared machine the
 * wall-clock rates swing with the other jobs, the work per sample does not
 * (run with OMP_WAIT_POLICY=passive so that idle OpenMP threads do not spin). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The sampling stage alone, from the verifier's progress reports: samples
 * and wall time between its first and its last report (setup, bounds and
 * the falsification round before it are left out). */
typedef struct stage_clock {
    uint64_t first_done, last_done;
    double first_t, last_t;
} stage_clock;

static void on_progress(void *ctx, const nnc_vrf_progress *p)
{
    stage_clock *c = ctx;
    if (p->samples_done == 0) return;
    if (c->first_done == 0) {
        c->first_done = p->samples_done;
        c->first_t = p->elapsed_s;
    }
    c->last_done = p->samples_done;
    c->last_t = p->elapsed_s;
}

/* A/B of the CPU screens in one run: samples per second of the sampler
 * alone (points and verdicts, no report) over case 0's whole box with the
 * a priori box tolerance (mode BOX, the screen before the running bound),
 * the running per-sample bound (RUN) and no screen (REF); *undecided gets
 * the share of samples the screen left to the float64 reference. */
static double screen_rate(const nnc_model *m, const nnc_spec *sp, nnc_smp_mode mode, uint64_t N, double *undecided)
{
    char err[NNC_ERRBUF_SIZE];
    int n = nnc_spc_num_inputs(sp), no = (int)m->vals[m->outputs[0]].numel;
    int nd = nnc_spc_case_num_disjuncts(sp, 0), R = 0;
    for (int j = 0; j < nd; j++) R += nnc_spc_disjunct_size(sp, 0, j);
    double *C = calloc((size_t)(R + 1) * (size_t)no, sizeof(double)), *d = calloc((size_t)R + 1, sizeof(double));
    int *dstart = malloc(sizeof(int) * (size_t)(nd + 1));
    for (int j = 0, r = 0; j < nd; j++) {
        dstart[j] = r;
        for (int i = 0; i < nnc_spc_disjunct_size(sp, 0, j); i++, r++) {
            nnc_spc_lin l;
            nnc_spc_disjunct_con(sp, 0, j, i, &l);
            nnc_spc_lin_dense(&l, C + (size_t)r * (size_t)no, no);
            d[r] = l.rhs;
        }
    }
    dstart[nd] = R;
    double *root = malloc(sizeof(double) * 2 * (size_t)n), one = 1;
    memcpy(root, nnc_spc_case_lo(sp, 0), sizeof(double) * (size_t)n);
    memcpy(root + n, nnc_spc_case_hi(sp, 0), sizeof(double) * (size_t)n);
    double *leaves[1] = {root};
    nnc_smp *s;
    if (nnc_smp_create(&s, m, 0, err, sizeof err)) return 0;
    int B = nnc_smp_batch_max(s);
    double *xs = malloc(sizeof(double) * (size_t)B * (size_t)n);
    unsigned char *hit = malloc((size_t)B);
    nnc_smp_case sc = {1, 0, leaves, &one, 1, 1, root, root + n, R, nd, C, d, dstart};
    nnc_smp_case_begin(s, &sc, err, sizeof err);
    nnc_smp_set_mode(s, mode);
    uint64_t f0, r0, f1, r1;
    nnc_smp_counts(s, &f0, &r0);
    double t0 = now();
    for (uint64_t s0 = 0; s0 < N; s0 += (uint64_t)B)
        if (nnc_smp_batch(s, s0, B, xs, hit, err, sizeof err)) break;
    double rate = (double)((N + (uint64_t)B - 1) / (uint64_t)B * (uint64_t)B) / (now() - t0);
    nnc_smp_counts(s, &f1, &r1);
    *undecided = (double)(r1 - r0) / (double)(f1 - f0 + r1 - r0);
    nnc_smp_destroy(s);
    free(xs); free(hit); free(root); free(C); free(d); free(dstart);
    return rate;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
    /* the runtime and the sampling-only verifier alternately, ROUNDS times:
     * medians of each (both see the same machine; one round on a noisy
     * machine can be off by 2x either way) */
    enum { ROUNDS = 5 };
    double rt_r[ROUNDS], rt_c[ROUNDS], sp_r[ROUNDS], sp_c[ROUNDS], st_r[ROUNDS], p = 0.5;
    int reps = 20;
    nnc_vrf_opts o;
    nnc_vrf_opts_default(&o);
    o.split = 0;
    o.crown = 0; /* interval bounds on the one leaf: time goes to the sampling stage, not bound refinement */
    o.samples = N;
    nnc_vrf_report rep;
    double t0, c0;
    for (int round = 0; round < ROUNDS; round++) {
        t0 = now();
        c0 = cpu_now();
        for (int r = 0; r < reps; r++) nnc_rt_run(rt, B, in, out, err, sizeof err);
        rt_r[round] = reps * B / (now() - t0);
        rt_c[round] = reps * B / (cpu_now() - c0);
        stage_clock sc = {0, 0, 0, 0};
        o.progress = on_progress;
        o.progress_ctx = &sc;
        t0 = now();
        c0 = cpu_now();
        if (nnc_vrf_run(m, s, &o, &rep, err, sizeof err)) {
            fprintf(stderr, "bench_sampling: %s\n", err);
            return 70;
        }
        sp_r[round] = (double)rep.samples / (now() - t0);
        sp_c[round] = (double)rep.samples / (cpu_now() - c0);
        p = rep.samples ? (double)rep.sample_violations / (double)rep.samples : 0.5;
        st_r[round] = sc.last_t > sc.first_t ? (double)(sc.last_done - sc.first_done) / (sc.last_t - sc.first_t) : 0;
        nnc_vrf_report_clear(&rep);
    }
    nnc_rt_destroy(rt);
    double rt_rate = median(rt_r, ROUNDS), rt_cpu_rate = median(rt_c, ROUNDS), samp_rate = median(sp_r, ROUNDS),
           samp_cpu_rate = median(sp_c, ROUNDS), stage_rate = median(st_r, ROUNDS);
    o.progress = NULL;
    /* branch and bound, then the open fraction */
    o.split = 1;
    o.crown = 1;
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
    printf("sampling_stage_samples_per_s,%.0f\n", stage_rate);
    printf("sampling_stage_over_runtime_ratio,%.3f\n", stage_rate / rt_rate);
    printf("runtime_f32_batch1024_inferences_per_cpu_s,%.0f\n", rt_cpu_rate);
    printf("verifier_samples_per_cpu_s,%.0f\n", samp_cpu_rate);
    printf("sampling_over_runtime_ratio_cpu_time,%.3f\n", samp_cpu_rate / rt_cpu_rate);
    printf("violation_rate_whole_box,%.6g\n", p);
    printf("open_fraction_after_branch_and_bound,%.6g\n", f);
    printf("violation_rate_open_part,%.6g\n", q);
    printf("samples_needed_pm0.001_99.9pct_without_reduction,%llu\n", (unsigned long long)n_plain);
    printf("samples_needed_pm0.001_99.9pct_with_reduction,%llu\n", (unsigned long long)n_reduced);
    nnc_vrf_report_clear(&rep);
    /* the screens A/B, and the runtime again beside them (same minute) */
    double und_box, und_run, und_ref;
    double r_box = screen_rate(m, s, NNC_SMP_MODE_BOX, N / 2, &und_box);
    double r_run = screen_rate(m, s, NNC_SMP_MODE_RUN, N / 2, &und_run);
    double r_ref = screen_rate(m, s, NNC_SMP_MODE_REF, N / 4, &und_ref);
    nnc_rt_create(&rt, m, NNC_PRECISION_F32, B, err, sizeof err);
    t0 = now();
    for (int r = 0; r < reps; r++) nnc_rt_run(rt, B, in, out, err, sizeof err);
    double rt_rate2 = reps * B / (now() - t0);
    nnc_rt_destroy(rt);
    printf("runtime_f32_batch1024_inferences_per_s_again,%.0f\n", rt_rate2);
    printf("sampler_box_tolerance_samples_per_s,%.0f\n", r_box);
    printf("sampler_box_tolerance_undecided_share,%.4f\n", und_box);
    printf("sampler_running_bound_samples_per_s,%.0f\n", r_run);
    printf("sampler_running_bound_undecided_share,%.4f\n", und_run);
    printf("sampler_float64_only_samples_per_s,%.0f\n", r_ref);
    printf("sampler_running_over_runtime_ratio,%.3f\n", r_run / rt_rate2);
    printf("sampler_running_over_box_speedup,%.3f\n", r_run / r_box);
    nnc_spc_destroy(s);
    nnc_mdl_destroy(m);
    free(x);
    free(y);
    return 0;
}
