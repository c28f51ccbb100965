/* GPU path of the verifier (gpu/verify.cu) against the CPU path, on the zoo
 * MLP (run from the repository root):
 *  - the device draws exactly the CPU's points (cuRAND Philox = common/philox.h),
 *    compared bit for bit;
 *  - every verdict the device decides equals the CPU float64 runtime's;
 *  - batched interval bounds equal nnc_smp_ibp_batch bit for bit;
 *  - nnc_vrf_run gives the same report (result, bounds, samples, violations,
 *    leaves, counterexample) with --device gpu as with cpu, for several
 *    specs and seeds;
 *  - timing: sampling throughput on CPU and GPU, as CSV lines
 *    "sampling,DEVICE,SAMPLES,SECONDS,SAMPLES_PER_S" into $NNC_GPU_CSV when set.
 * Without a CUDA build or a device it reports "skipped" and exits 77. */
#include "gpu_test_impl.h"
#include "nncert/model.h"
#include "nncert/spec.h"
#include "verifier/sample_impl.h"
#include "verifier/sample_math.h"
#include "nncert/verifier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void robust_rows(int label, double *C, double *d, int *dstart)
{
    memset(C, 0, sizeof(double) * 90);
    int r = 0;
    for (int j = 0; j < 10; j++) {
        if (j == label) continue;
        C[r * 10 + label] = 1; /* unsafe: y_label - y_j <= 0 */
        C[r * 10 + j] = -1;
        d[r] = 0;
        dstart[r] = r;
        r++;
    }
    dstart[9] = 9;
}

static void kernels(const nnc_model *m, const double *x0)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_smp_chain *ch;
    CHECK(nnc_smp_chain_extract(&ch, m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    if (failures) return;
    int n = 784, no = 10, B = 16384;
    double *root = malloc(sizeof(double) * 2 * (size_t)n), *leaf = malloc(sizeof(double) * 2 * (size_t)n);
    for (int i = 0; i < n; i++) {
        root[i] = fmax(x0[i] - 0.06, 0);
        root[n + i] = fmin(x0[i] + 0.06, 1);
    }
    memcpy(leaf, root, sizeof(double) * 2 * (size_t)n);
    leaf[n + 100] = 0.5 * root[100] + 0.5 * root[n + 100];
    double *packed = malloc(sizeof(double) * 4 * (size_t)n);
    memcpy(packed, leaf, sizeof(double) * 2 * (size_t)n);
    memcpy(packed + 2 * n, root, sizeof(double) * 2 * (size_t)n);
    double *leaves[2] = {leaf, root}, cum[2] = {0.5, 1.5}, C[90], d[9];
    int dstart[10];
    robust_rows(9, C, d, dstart);
    nnc_gpu_smp *g;
    CHECK(nnc_gpu_smp_create(&g, ch->layers, ch->n_layers, B, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    if (failures) return;
    double ef[10], er[10], ya[10];
    nnc_smp_chain_errors(ch, root, root + n, NNC_SMP_U64, 0, ef, er, ya);
    double tau = nnc_smp_margin_tolerance(C, d, 9, no, ef, er, ya);
    CHECK(nnc_gpu_smp_case(g, packed, cum, 2, 1.5, 9, C, d, dstart, 9, tau, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    double *xg = malloc(sizeof(double) * (size_t)B * (size_t)n), *xc = malloc(sizeof(double) * (size_t)B * (size_t)n);
    double *ys = malloc(sizeof(double) * 1024 * (size_t)no);
    signed char *v = malloc((size_t)B);
    uint64_t sub0 = ((uint64_t)1 << 40) + 7, und = 0, hits = 0;
    CHECK(nnc_gpu_smp_run(g, 99, sub0, B, v, xg, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_smp_points(xc, B, n, 99, sub0, leaves, cum, 2, 1.5);
    int diff = 0;
    for (size_t k = 0; k < (size_t)B * (size_t)n; k++) diff += memcmp(&xg[k], &xc[k], sizeof(double)) != 0;
    CHECK(diff == 0, "%d coordinates of the GPU's points differ from the CPU's", diff);
    nnc_runtime *ref;
    nnc_rt_create(&ref, m, NNC_PRECISION_F64, 1024, err, sizeof err);
    int wrong = 0;
    for (int b0 = 0; b0 < B; b0 += 1024) {
        const void *in[1] = {xc + (size_t)b0 * (size_t)n};
        void *out[1] = {ys};
        nnc_rt_run(ref, 1024, in, out, err, sizeof err);
        for (int i = 0; i < 1024; i++) {
            int want = nnc_smp_margin(C, d, dstart, 9, no, ys + (size_t)i * (size_t)no) <= 0;
            hits += (uint64_t)want;
            if (v[b0 + i] < 0) und++;
            else wrong += v[b0 + i] != want;
        }
    }
    CHECK(wrong == 0, "%d GPU verdicts differ from the CPU float64 runtime", wrong);
    CHECK(und < (uint64_t)B / 4, "%llu of %d samples undecided on the GPU (tau %g)", (unsigned long long)und, B, tau);
    printf("points: %d bit-identical; verdicts: %llu decided on the GPU, %llu near the boundary, %llu hits, tau %.3g\n",
           B * n, (unsigned long long)((uint64_t)B - und), (unsigned long long)und, (unsigned long long)hits, tau);
    /* batched interval bounds */
    int nbox = 512;
    double *lo = malloc(sizeof(double) * (size_t)nbox * (size_t)n), *hi = malloc(sizeof(double) * (size_t)nbox * (size_t)n);
    double *cl = malloc(sizeof(double) * (size_t)nbox * 10), *chh = malloc(sizeof(double) * (size_t)nbox * 10);
    double *gl = malloc(sizeof(double) * (size_t)nbox * 10), *gh = malloc(sizeof(double) * (size_t)nbox * 10);
    for (int b = 0; b < nbox; b++)
        for (int i = 0; i < n; i++) {
            double r = 0.001 * (double)(b % 50);
            lo[(size_t)b * (size_t)n + (size_t)i] = fmax(x0[i] - r, 0);
            hi[(size_t)b * (size_t)n + (size_t)i] = fmin(x0[i] + r, 1);
        }
    nnc_smp_ibp_batch(ch, nbox, lo, hi, cl, chh);
    double t0 = gpu_test_now();
    CHECK(nnc_gpu_ibp_dense(ch->layers, ch->n_layers, nbox, lo, hi, gl, gh, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    double tg = gpu_test_now() - t0;
    CHECK(memcmp(cl, gl, sizeof(double) * (size_t)nbox * 10) == 0 && memcmp(chh, gh, sizeof(double) * (size_t)nbox * 10) == 0,
          "batched interval bounds differ between GPU and CPU");
    printf("interval bounds of %d boxes: equal bit for bit (GPU %.4f s incl. transfers)\n", nbox, tg);
    nnc_rt_destroy(ref);
    nnc_gpu_smp_destroy(g);
    nnc_smp_chain_free(ch);
    free(root); free(leaf); free(packed); free(xg); free(xc); free(ys); free(v);
    free(lo); free(hi); free(cl); free(chh); free(gl); free(gh);
}

static void reports(const nnc_model *m, const double *x0)
{
    char err[NNC_ERRBUF_SIZE];
    double eps[3] = {0.02, 0.06, 0.12};
    int labels[2] = {9, 0};
    for (int li = 0; li < 2; li++)
        for (int e = 0; e < 3; e++) {
            nnc_spec *s;
            if (nnc_spc_linf(&s, x0, 784, 10, labels[li], eps[e], 0, 1, err, sizeof err)) {
                CHECK(0, "spec: %s", err);
                return;
            }
            for (uint64_t sd = 1; sd <= 2; sd++) {
                nnc_vrf_opts o;
                nnc_vrf_opts_default(&o);
                o.seed = sd;
                o.samples = 50000;
                o.crown = 0;          /* interval bounds: no time-dependent refinement */
                o.max_leaves = 24;    /* deterministic branch and bound (no timeout reached) */
                o.timeout_s = 600;
                nnc_vrf_report rc, rg;
                nnc_status a = nnc_vrf_run(m, s, &o, &rc, err, sizeof err);
                CHECK(a == NNC_STATUS_OK, "cpu run: %s", err);
                o.device = NNC_VRF_DEVICE_GPU;
                nnc_status b = nnc_vrf_run(m, s, &o, &rg, err, sizeof err);
                CHECK(b == NNC_STATUS_OK, "gpu run: %s", err);
                if (a || b) continue;
                int same = rc.result == rg.result && rc.samples == rg.samples &&
                           rc.sample_violations == rg.sample_violations && rc.violation_lo == rg.violation_lo &&
                           rc.violation_hi == rg.violation_hi && rc.leaves == rg.leaves &&
                           rc.leaves_open == rg.leaves_open && rc.has_counterexample == rg.has_counterexample &&
                           (!rc.has_counterexample ||
                            memcmp(rc.cex_input, rg.cex_input, sizeof(double) * 784) == 0);
                CHECK(same, "label %d eps %g seed %llu: reports differ (cpu %llu/%llu [%g, %g], gpu %llu/%llu [%g, %g])",
                      labels[li], eps[e], (unsigned long long)sd, (unsigned long long)rc.sample_violations,
                      (unsigned long long)rc.samples, rc.violation_lo, rc.violation_hi,
                      (unsigned long long)rg.sample_violations, (unsigned long long)rg.samples, rg.violation_lo,
                      rg.violation_hi);
                printf("report label %d eps %g seed %llu: %s, %llu of %llu samples violating, [%g, %g] on both\n",
                       labels[li], eps[e], (unsigned long long)sd, nnc_vrf_result_name(rc.result),
                       (unsigned long long)rc.sample_violations, (unsigned long long)rc.samples, rc.violation_lo,
                       rc.violation_hi);
                nnc_vrf_report_clear(&rc);
                nnc_vrf_report_clear(&rg);
            }
            nnc_spc_destroy(s);
        }
}

static void timing(const nnc_model *m, const double *x0)
{
    char err[NNC_ERRBUF_SIZE];
    const char *path = getenv("NNC_GPU_CSV");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) fprintf(f, "stage,device,samples,seconds,samples_per_s\n");
    nnc_spec *s;
    if (nnc_spc_linf(&s, x0, 784, 10, 9, 0.06, 0, 1, err, sizeof err)) return;
    uint64_t N[2] = {200000, 4000000};
    for (int dev = 0; dev < 2; dev++) {
        nnc_vrf_opts o;
        nnc_vrf_opts_default(&o);
        o.split = 0;
        o.crown = 0;
        o.samples = N[dev];
        o.device = dev;
        nnc_vrf_report r;
        double t0 = gpu_test_now();
        nnc_status st = nnc_vrf_run(m, s, &o, &r, err, sizeof err);
        double t = gpu_test_now() - t0;
        CHECK(st == NNC_STATUS_OK, "timing run: %s", err);
        if (st) continue;
        printf("time sampling %s: %llu samples in %.3f s = %.0f samples/s\n", dev ? "gpu" : "cpu",
               (unsigned long long)r.samples, t, (double)r.samples / t);
        if (f) fprintf(f, "sampling,%s,%llu,%.6f,%.0f\n", dev ? "gpu" : "cpu", (unsigned long long)r.samples, t,
                       (double)r.samples / t);
        nnc_vrf_report_clear(&r);
    }
    if (f) fclose(f);
    nnc_spc_destroy(s);
}

int main(void)
{
    char err[NNC_ERRBUF_SIZE] = "";
    gpu_test_devices_or_skip();
    nnc_model *m;
    nnc_prepare_opts po;
    nnc_prepare_opts_default(&po);
    po.fold_batchnorm = 0;
    nnc_inputs in;
    if (nnc_mdl_parse_file(&m, "models/zoo/mlp.onnx", err, sizeof err) || nnc_mdl_prepare(m, &po, err, sizeof err) ||
        nnc_mdl_read_inputs(m, "models/zoo/sample_input.json", &in, err, sizeof err)) {
        printf("FAIL: zoo MLP: %s\n", err);
        return 1;
    }
    kernels(m, in.data[0]);
    reports(m, in.data[0]);
    timing(m, in.data[0]);
    nnc_inputs_clear(&in);
    nnc_mdl_destroy(m);
    printf("%s: Checks: %d, Failures: %d\n", failures ? "FAIL" : "100%", checks, failures);
    return failures ? 1 : 0;
}
