/* nncert bench: the runtime's throughput and latency on a model, as
 * onnxruntime's perf test reports them: batches of random inputs run back to
 * back for a time, then inferences per second and the per-batch latency
 * (median, 90th percentile, extremes). */
#include "cli/cli.h"
#include "common/isa.h"
#include "nncert/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BE_BATCH_SIZE, BE_SECONDS, BE_THREADS, BE_PRECISION, BE_JSON };
static const nnc_cli_opt bench_opts[] = {
    [BE_BATCH_SIZE] = {"--batch-size", "N", "samples per batch (default 1; a model's declared batch\n"
                                            "counts as one sample, see README)"},
    [BE_SECONDS] = {"--seconds", "S", "measuring time after the warm-up (default 3); at least\n"
                                      "10 batches are timed"},
    [BE_THREADS] = {"--threads", "T", "runtime threads (default: the online processors)"},
    [BE_PRECISION] = {"--precision", "P", "f32 (default, the sampling and run path) or f64 (the\n"
                                          "verifier's reference path)"},
    [BE_JSON] = {"--json", "FILE", "write {\"format\": \"nncert-bench-1\", ...} there (-: stdout;\n"
                                   "see schema/bench.schema.json)"},
};
static const nnc_cli_doc bench_doc = NNC_CLI_DOC(
    "bench",
    "usage: nncert bench MODEL [--batch-size N] [--seconds S] [--threads T]\n"
    "                    [--precision f32|f64] [--json FILE]\n",
    "Run MODEL's runtime on batches of N random inputs (float inputs uniform in\n"
    "[0, 1), integer inputs 0) back to back for S seconds after a warm-up, and\n"
    "print inferences per second and the per-batch latency (median, p90, min,\n"
    "max), as onnxruntime's perf test does.\n",
    bench_opts, "Exit 0, or 64+ on errors.\n");

typedef struct bench_out {
    const char *model, *precision;
    int batch, threads;
    uint64_t batches;
    double seconds, ips, med, p90, lo, hi;
    char isa[160];
} bench_out;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of sorted t[0..n) (nearest rank). */
static double quantile(const double *t, uint64_t n, double q)
{
    uint64_t k = (uint64_t)ceil(q * (double)n);
    return t[k > 0 ? k - 1 : 0];
}

static nnc_status write_bench(FILE *f, const void *arg, char *err, size_t errlen)
{
    const bench_out *b = arg;
    fputs("{\"format\": \"nncert-bench-1\", \"model\": ", f);
    nnc_cli_json_str(f, b->model);
    fprintf(f, ", \"batch_size\": %d, \"threads\": %d, \"precision\": \"%s\", \"instruction_set\": ", b->batch,
            b->threads, b->precision);
    nnc_cli_json_str(f, b->isa);
    fprintf(f,
            ", \"batches\": %llu, \"seconds\": %.6f, \"inferences_per_s\": %.3f, \"latency_s\": {\"median\": %.9f, "
            "\"p90\": %.9f, \"min\": %.9f, \"max\": %.9f}}\n",
            (unsigned long long)b->batches, b->seconds, b->ips, b->med, b->p90, b->lo, b->hi);
    return ferror(f) ? nnc_err(err, errlen, NNC_STATUS_IO, "write failed") : NNC_STATUS_OK;
}

int nnc_cmd_bench(int argc, char **argv)
{
    const char *model = NULL, *json = NULL, *prec_s = "f32";
    uint64_t batch = 1, threads = 0;
    double seconds = 3;
    const char *v;
    int k, rc0;
    for (int i = 0; (k = nnc_cli_getopt(&bench_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        int bad = 0;
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG:
            if ((rc0 = nnc_cli_one_positional(&bench_doc, v, &model, "MODEL")) != EXIT_OK) return rc0;
            break;
        case BE_BATCH_SIZE: bad = nnc_cli_parse_u64(v, &batch) || batch == 0 || batch > 1000000; break;
        case BE_SECONDS: bad = nnc_cli_parse_double(v, &seconds) || !(seconds > 0) || seconds > 86400; break;
        case BE_THREADS: bad = nnc_cli_parse_u64(v, &threads) || threads == 0 || threads > 1024; break;
        case BE_PRECISION:
            prec_s = v;
            bad = strcmp(v, "f32") != 0 && strcmp(v, "f64") != 0;
            break;
        case BE_JSON: json = v; break;
        }
        if (bad) return nnc_cli_bad_value(&bench_doc, bench_opts[k].name, v);
    }
    if (model == NULL) return nnc_cli_usage_error("bench", "MODEL is required");
    if (json && nnc_cli_check_output(json) != EXIT_OK) return EXIT_CANTCREAT;
    if (threads == 0) {
        long np = sysconf(_SC_NPROCESSORS_ONLN);
        threads = np > 0 ? (uint64_t)np : 1;
    }
    nnc_precision prec = strcmp(prec_s, "f64") == 0 ? NNC_PRECISION_F64 : NNC_PRECISION_F32;
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_status st = nnc_mdl_load(&m, model, err, sizeof err);
    if (st) return nnc_cli_fail(st, err);
    nnc_runtime *rt = NULL;
    int rc = EXIT_OK, nin = nnc_mdl_num_inputs(m), nout = nnc_mdl_num_outputs(m);
    void **in = calloc((size_t)nin + 1, sizeof(void *)), **out = calloc((size_t)nout + 1, sizeof(void *));
    double *t = NULL;
    if (!in || !out) {
        rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    if ((st = nnc_rt_create(&rt, m, prec, (int)batch, err, sizeof err)) ||
        (st = nnc_rt_set_threads(rt, (int)threads))) {
        if (st == NNC_STATUS_NOMEM) snprintf(err, sizeof err, "out of memory for %llu threads", (unsigned long long)threads);
        rc = nnc_cli_fail(st, err);
        goto done;
    }
    /* inputs: floats uniform in [0, 1) from a fixed generator, integers 0
     * (an index valid in any non-empty table) */
    uint64_t g = 0x9e3779b97f4a7c15ULL;
    for (int k = 0; k < nin; k++) {
        nnc_tensor_info ti;
        nnc_mdl_input_info(m, k, &ti);
        size_t n = (size_t)ti.numel * (size_t)batch;
        int isf = nnc_dtype_is_float(ti.dtype);
        size_t es = !isf ? sizeof(int64_t) : prec == NNC_PRECISION_F32 ? sizeof(float) : sizeof(double);
        if ((in[k] = calloc(n + 1, es)) == NULL) {
            rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory for the inputs");
            goto done;
        }
        for (size_t q = 0; isf && q < n; q++) {
            g = g * 6364136223846793005ULL + 1442695040888963407ULL;
            double u = (double)(g >> 11) * 0x1p-53;
            if (prec == NNC_PRECISION_F32) ((float *)in[k])[q] = (float)u;
            else ((double *)in[k])[q] = u;
        }
    }
    for (int k = 0; k < nout; k++) {
        nnc_tensor_info to;
        nnc_mdl_output_info(m, k, &to);
        if ((out[k] = calloc((size_t)to.numel * (size_t)batch + 1, sizeof(double))) == NULL) {
            rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory for the outputs");
            goto done;
        }
    }
    /* warm-up: 3 batches or 10% of the time */
    double t0 = now();
    for (int w = 0; w < 3 || now() - t0 < 0.1 * seconds; w++) {
        if ((st = nnc_rt_run(rt, (int)batch, (const void *const *)in, out, err, sizeof err))) {
            rc = nnc_cli_fail(st, err);
            goto done;
        }
        if (now() - t0 > seconds) break;
    }
    size_t cap = 1024;
    uint64_t nb = 0;
    if ((t = malloc(sizeof(double) * cap)) == NULL) {
        rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    double start = now(), end = start;
    while (nb < 10 || end - start < seconds) {
        double a = now();
        if ((st = nnc_rt_run(rt, (int)batch, (const void *const *)in, out, err, sizeof err))) {
            rc = nnc_cli_fail(st, err);
            goto done;
        }
        end = now();
        if (nb == cap) {
            double *nt = realloc(t, sizeof(double) * cap * 2);
            if (nt == NULL) {
                rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
                goto done;
            }
            t = nt;
            cap *= 2;
        }
        t[nb++] = end - a;
    }
    qsort(t, (size_t)nb, sizeof *t, cmp_double);
    bench_out bo = {model, prec_s, (int)batch, (int)threads, nb, end - start, 0, 0, 0, t[0], t[nb - 1], ""};
    bo.ips = (double)nb * (double)batch / bo.seconds;
    bo.med = nb % 2 ? t[nb / 2] : 0.5 * (t[nb / 2 - 1] + t[nb / 2]);
    bo.p90 = quantile(t, nb, 0.9);
    nnc_isa_describe(bo.isa, sizeof bo.isa);
    if (!json || strcmp(json, "-") != 0) {
        printf("model:             %s\n", model);
        printf("batch size:        %d (%s, %d threads, %s)\n", bo.batch, prec_s, bo.threads, bo.isa);
        printf("batches:           %llu in %.3f s\n", (unsigned long long)nb, bo.seconds);
        printf("inferences/s:      %.1f\n", bo.ips);
        printf("latency per batch: median %.6f s, p90 %.6f s, min %.6f s, max %.6f s\n", bo.med, bo.p90, bo.lo, bo.hi);
    }
    if (json) rc = nnc_cli_write_atomic(json, write_bench, &bo);
done:
    free(t);
    for (int k = 0; in && k < nin; k++) free(in[k]);
    for (int k = 0; out && k < nout; k++) free(out[k]);
    free(in);
    free(out);
    nnc_rt_destroy(rt);
    nnc_mdl_destroy(m);
    return rc;
}
