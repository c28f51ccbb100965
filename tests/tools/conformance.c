/* ONNX backend node-test conformance for the models module.
 *
 * Usage: conformance [--verbose] [DATA_DIR [TEST...]]
 *   DATA_DIR  folder of ONNX node tests (default /usr/share/libonnx-testdata/data/node):
 *             DATA_DIR/<test>/model.onnx and DATA_DIR/<test>/test_data_set_<k>/{input,output}_<i>.pb
 *   TEST      run only the named tests (all when none is given)
 *
 * Each test ends as exactly one of:
 *   PASS  every data set matches the reference outputs in every mode below;
 *   FAIL  a supported model gave a wrong result or an error that is not an
 *         unsupported-feature error;
 *   SKIP  the loader or prepare refused the model with NNC_STATUS_UNSUPPORTED
 *         (an operator, element type, attribute or opset nncert lacks); the
 *         reason printed is the library's own message.
 *
 * Modes (a test passes only when all that apply pass):
 *   run     integer graph inputs bound as constants (ONNX shape inputs such as
 *           Reshape's shape or Slice's starts), float inputs fed at run time;
 *           precision F64 when a float input (or, without float inputs, an
 *           output) is double, else F32; default prepare options
 *   f64     as run, in F64 precision, when run used F32
 *   nofold  as run, with constant and BatchNormalization folding off, so that
 *           nodes on constants execute in the runtime's kernels
 *   fold    every input bound, so that the whole graph is constant-folded
 *   intrt   integer inputs fed at run time too (only when the model has one;
 *           an UNSUPPORTED answer from prepare here means that the operator
 *           needs the input as a constant, and the mode does not apply)
 *   batch   as run, with 3 samples: the test data is sample 1, samples 0 and
 *           2 hold other float data (x / 2 + 1/4, x * 2 - 1); only sample 1 is
 *           compared, so a kernel that mixes up samples fails
 * In the modes after run, UNSUPPORTED from prepare makes the mode not apply
 * (reported with --verbose); any other error or mismatch is a FAIL.
 *
 * Comparison (as ONNX's backend tests): |got - want| <= atol + rtol * |want|,
 * float32 rtol 1e-4 atol 1e-5, double rtol 1e-7 atol 1e-10, NaN equals NaN,
 * integers and bools exactly; the output's element type, rank and dimensions
 * must equal the reference's.
 *
 * Output: with --verbose one line per test ("PASS name", "SKIP name: why");
 * always "FAIL name: why" per failure and the final line
 *   conformance: R ran, P passed, F failed, S skipped (unsupported)
 * where R = P + F.  Exit status 1 when F > 0, 2 on usage or I/O errors. */
#include "nncert/model.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_DIR "/usr/share/libonnx-testdata/data/node"
#define MAX_IO 64                        /* inputs or outputs per test */
#define MAX_PB_BYTES ((size_t)256 << 20) /* one test tensor */

/* Program options. */
static struct {
    int verbose;
    const char *dir;
    char **only; /* test names to run, n_only of them (0: all) */
    int n_only;
} g;

typedef enum outcome { OUT_PASS = 0, OUT_SKIP = 1, OUT_FAIL = 2, OUT_NA = 3 } outcome;

typedef enum mode { MODE_RUN, MODE_F64, MODE_NOFOLD, MODE_FOLD, MODE_INTRT, MODE_BATCH, MODE_COUNT } mode;
static const char *const mode_names[MODE_COUNT] = {"run", "f64", "nofold", "fold", "intrt", "batch"};
#define BATCH 3         /* samples in MODE_BATCH */
#define BATCH_SAMPLE 1  /* the one holding the test data */

/* One data set: the reference tensors, in graph order. */
typedef struct dataset {
    int n_in, n_out;
    nnc_tensor in[MAX_IO];
    nnc_tensor out[MAX_IO];
} dataset;

/* The graph inputs of the parsed (unprepared) model, in file order. */
typedef struct graph_inputs {
    int n;
    char *name[MAX_IO];
    nnc_dtype dtype[MAX_IO];
} graph_inputs;

static outcome result(char *why, size_t whylen, outcome o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static outcome result(char *why, size_t whylen, outcome o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return o;
}

static void dataset_free(dataset *d)
{
    for (int k = 0; k < d->n_in; k++) nnc_tensor_clear(&d->in[k]);
    for (int k = 0; k < d->n_out; k++) nnc_tensor_clear(&d->out[k]);
    d->n_in = d->n_out = 0;
}

/* Writes "a/b" into out.  Returns: 0, or -1 when it does not fit. */
static int path_join(char *out, size_t len, const char *a, const char *b)
{
    int n = snprintf(out, len, "%s/%s", a, b);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static nnc_status read_pb(const char *path, nnc_tensor *t, char *err, size_t errlen)
{
    unsigned char *buf;
    size_t len;
    nnc_status st = nnc_read_file(path, MAX_PB_BYTES, &buf, &len, err, errlen);
    if (st) return st;
    char inner[NNC_ERRBUF_SIZE] = "";
    st = nnc_tensor_parse_pb(t, buf, len, inner, sizeof inner);
    free(buf);
    if (st) nnc_err(err, errlen, st, "%s: %s", path, inner);
    return st;
}

/* Reads <set>/input_<k>.pb and <set>/output_<k>.pb for as many k as exist. */
static outcome read_dataset(const char *set, dataset *d, char *why, size_t whylen)
{
    char path[4096], err[NNC_ERRBUF_SIZE];
    memset(d, 0, sizeof *d);
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0;; k++) {
            char leaf[32];
            snprintf(leaf, sizeof leaf, "%s_%d.pb", pass ? "output" : "input", k);
            if (path_join(path, sizeof path, set, leaf)) return result(why, whylen, OUT_FAIL, "%s: path too long", set);
            if (!file_exists(path)) break;
            if (k >= MAX_IO) return result(why, whylen, OUT_FAIL, "%s: more than %d tensors", set, MAX_IO);
            nnc_tensor *t = pass ? &d->out[k] : &d->in[k];
            nnc_status st = read_pb(path, t, err, sizeof err);
            if (st) return result(why, whylen, st == NNC_STATUS_UNSUPPORTED ? OUT_SKIP : OUT_FAIL, "%s", err);
            if (pass) d->n_out++;
            else d->n_in++;
        }
    }
    return OUT_PASS;
}

static int input_index(const graph_inputs *gi, const char *name)
{
    for (int k = 0; k < gi->n; k++)
        if (strcmp(gi->name[k], name) == 0) return k;
    return -1;
}

static int same_float(double got, double want, double rtol, double atol)
{
    if (isnan(want)) return isnan(got);
    if (got == want) return 1; /* also equal infinities */
    return fabs(got - want) <= atol + rtol * fabs(want);
}

/* Compares runtime output j of one sample with the reference. */
static outcome compare_output(const nnc_model *m, int j, nnc_precision prec, const void *got, const nnc_tensor *want,
                              char *why, size_t whylen)
{
    nnc_tensor_info info;
    nnc_mdl_output_info(m, j, &info);
    if (info.dtype != want->dtype)
        return result(why, whylen, OUT_FAIL, "output %d ('%s'): element type %s, expected %s", j, info.name,
                      nnc_dtype_name(info.dtype), nnc_dtype_name(want->dtype));
    int same = info.rank == want->rank && info.numel == want->numel;
    for (int d = 0; same && d < info.rank; d++) same = info.dims[d] == want->dims[d];
    if (!same) {
        char a[256] = "", b[256] = "";
        for (int d = 0; d < info.rank; d++)
            snprintf(a + strlen(a), sizeof a - strlen(a), "%s%lld", d ? "," : "", (long long)info.dims[d]);
        for (int d = 0; d < want->rank; d++)
            snprintf(b + strlen(b), sizeof b - strlen(b), "%s%lld", d ? "," : "", (long long)want->dims[d]);
        return result(why, whylen, OUT_FAIL, "output %d ('%s'): shape [%s], expected [%s]", j, info.name, a, b);
    }
    int isf = nnc_dtype_is_float(want->dtype);
    double rtol = want->dtype == NNC_DTYPE_DOUBLE ? 1e-7 : 1e-4, atol = want->dtype == NNC_DTYPE_DOUBLE ? 1e-10 : 1e-5;
    int64_t bad = 0, first = -1;
    double fg = 0, fw = 0;
    for (int64_t k = 0; k < want->numel; k++) {
        int ok;
        if (isf) {
            double v = prec == NNC_PRECISION_F32 ? (double)((const float *)got)[k] : ((const double *)got)[k];
            ok = same_float(v, want->f[k], rtol, atol);
            if (!ok && first < 0) { fg = v; fw = want->f[k]; }
        } else {
            int64_t v = ((const int64_t *)got)[k];
            ok = v == want->i[k];
            if (!ok && first < 0) { fg = (double)v; fw = (double)want->i[k]; }
        }
        if (!ok) {
            if (first < 0) first = k;
            bad++;
        }
    }
    if (bad)
        return result(why, whylen, OUT_FAIL, "output %d ('%s'): %lld of %lld elements differ; first at %lld: got %.9g, expected %.9g",
                      j, info.name, (long long)bad, (long long)want->numel, (long long)first, fg, fw);
    return OUT_PASS;
}

/* Precision of the run mode: see the header. */
static nnc_precision pick_precision(const graph_inputs *gi, const dataset *d)
{
    int any_float = 0;
    for (int k = 0; k < gi->n; k++) {
        if (gi->dtype[k] == NNC_DTYPE_DOUBLE) return NNC_PRECISION_F64;
        any_float |= gi->dtype[k] == NNC_DTYPE_FLOAT;
    }
    if (any_float) return NNC_PRECISION_F32;
    for (int k = 0; k < d->n_out; k++)
        if (d->out[k].dtype == NNC_DTYPE_DOUBLE) return NNC_PRECISION_F64;
    return NNC_PRECISION_F32;
}

/* Binds input k of the data set as a constant of model m. */
static nnc_status bind_const(nnc_model *m, const graph_inputs *gi, int k, const nnc_tensor *t, char *err, size_t errlen)
{
    nnc_status st;
    if (t->dtype == NNC_DTYPE_FLOAT) {
        float *f = malloc((size_t)(t->numel ? t->numel : 1) * sizeof *f);
        if (f == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        for (int64_t e = 0; e < t->numel; e++) f[e] = (float)t->f[e];
        st = nnc_mdl_bind_input(m, gi->name[k], t->dtype, t->rank, t->dims, f, err, errlen);
        free(f);
    } else {
        st = nnc_mdl_bind_input(m, gi->name[k], t->dtype, t->rank, t->dims, t->f ? (const void *)t->f : (const void *)t->i,
                                err, errlen);
    }
    return st;
}

/* One evaluation of model_path on data set d in mode md. */
static outcome run_mode(const char *model_path, const graph_inputs *gi, const dataset *d, mode md, nnc_precision prec,
                        char *why, size_t whylen)
{
    char err[NNC_ERRBUF_SIZE] = "";
    nnc_model *m = NULL;
    nnc_runtime *rt = NULL;
    void *in_buf[MAX_IO] = {0}, *out_buf[MAX_IO] = {0};
    outcome o = OUT_PASS;
    nnc_status st = nnc_mdl_parse_file(&m, model_path, err, sizeof err);
    if (st) return result(why, whylen, st == NNC_STATUS_UNSUPPORTED ? OUT_SKIP : OUT_FAIL, "%s", err);
    for (int k = 0; k < gi->n; k++) {
        const nnc_tensor *t = &d->in[k];
        int bind = md == MODE_FOLD || (md != MODE_INTRT && !nnc_dtype_is_float(gi->dtype[k]));
        st = bind ? bind_const(m, gi, k, t, err, sizeof err)
                  : nnc_mdl_set_input_shape(m, gi->name[k], t->rank, t->dims, err, sizeof err);
        if (st) {
            o = result(why, whylen, OUT_FAIL, "input %d ('%s'): %s", k, gi->name[k], err);
            goto done;
        }
    }
    nnc_prepare_opts po;
    nnc_prepare_opts_default(&po);
    if (md == MODE_NOFOLD) po.fold_constants = po.fold_batchnorm = 0;
    st = nnc_mdl_prepare(m, &po, err, sizeof err);
    if (st == NNC_STATUS_UNSUPPORTED) {
        o = result(why, whylen, md == MODE_RUN ? OUT_SKIP : OUT_NA, "%s", err);
        goto done;
    }
    if (st) {
        o = result(why, whylen, OUT_FAIL, "prepare: %s", err);
        goto done;
    }
    if (nnc_mdl_num_outputs(m) != d->n_out) {
        o = result(why, whylen, OUT_FAIL, "model has %d outputs, the data set %d", nnc_mdl_num_outputs(m), d->n_out);
        goto done;
    }
    int batch = md == MODE_BATCH ? BATCH : 1, at = md == MODE_BATCH ? BATCH_SAMPLE : 0;
    if ((st = nnc_rt_create(&rt, m, prec, batch, err, sizeof err))) {
        o = result(why, whylen, OUT_FAIL, "runtime: %s", err);
        goto done;
    }
    int n_rt = nnc_mdl_num_inputs(m);
    for (int k = 0; k < n_rt; k++) {
        nnc_tensor_info info;
        nnc_mdl_input_info(m, k, &info);
        int src = input_index(gi, info.name);
        if (src < 0) {
            o = result(why, whylen, OUT_FAIL, "runtime input '%s' is not a graph input", info.name);
            goto done;
        }
        const nnc_tensor *t = &d->in[src];
        if (info.numel != t->numel) {
            o = result(why, whylen, OUT_FAIL, "input '%s': %lld elements after prepare, data has %lld", info.name,
                       (long long)info.numel, (long long)t->numel);
            goto done;
        }
        int isf = nnc_dtype_is_float(info.dtype);
        size_t es = !isf ? sizeof(int64_t) : prec == NNC_PRECISION_F32 ? sizeof(float) : sizeof(double);
        in_buf[k] = malloc((size_t)batch * (size_t)(t->numel ? t->numel : 1) * es);
        if (in_buf[k] == NULL) {
            o = result(why, whylen, OUT_FAIL, "out of memory");
            goto done;
        }
        for (int b = 0; b < batch; b++)
            for (int64_t e = 0; e < t->numel; e++) {
                int64_t at_e = (int64_t)b * t->numel + e;
                double v = t->f ? t->f[e] : (double)t->i[e];
                if (b != at && isf) v = b < at ? v / 2 + 0.25 : v * 2 - 1; /* other samples' data */
                if (!isf) ((int64_t *)in_buf[k])[at_e] = t->i ? t->i[e] : (int64_t)t->f[e];
                else if (prec == NNC_PRECISION_F32) ((float *)in_buf[k])[at_e] = (float)v;
                else ((double *)in_buf[k])[at_e] = v;
            }
    }
    for (int j = 0; j < d->n_out; j++) {
        nnc_tensor_info info;
        nnc_mdl_output_info(m, j, &info);
        size_t es = !nnc_dtype_is_float(info.dtype) ? sizeof(int64_t) : prec == NNC_PRECISION_F32 ? sizeof(float) : sizeof(double);
        out_buf[j] = calloc((size_t)batch * (size_t)(info.numel ? info.numel : 1), es);
        if (out_buf[j] == NULL) {
            o = result(why, whylen, OUT_FAIL, "out of memory");
            goto done;
        }
    }
    if ((st = nnc_rt_run(rt, batch, (const void *const *)in_buf, out_buf, err, sizeof err))) {
        o = result(why, whylen, OUT_FAIL, "run: %s", err);
        goto done;
    }
    for (int j = 0; j < d->n_out && o == OUT_PASS; j++) {
        nnc_tensor_info info;
        nnc_mdl_output_info(m, j, &info);
        size_t es = !nnc_dtype_is_float(info.dtype) ? sizeof(int64_t) : prec == NNC_PRECISION_F32 ? sizeof(float) : sizeof(double);
        const char *got = (const char *)out_buf[j] + (size_t)at * (size_t)info.numel * es;
        o = compare_output(m, j, prec, got, &d->out[j], why, whylen);
    }
done:
    for (int k = 0; k < MAX_IO; k++) {
        free(in_buf[k]);
        free(out_buf[k]);
    }
    nnc_rt_destroy(rt);
    nnc_mdl_destroy(m);
    return o;
}

static int has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static int select_sets(const struct dirent *e) { return has_prefix(e->d_name, "test_data_set_"); }

static int select_tests(const struct dirent *e) { return e->d_name[0] != '.'; }

/* Runs one test folder. */
static outcome run_test(const char *test, char *why, size_t whylen)
{
    char tdir[4096], model_path[4096 + 16], err[NNC_ERRBUF_SIZE] = "";
    if (path_join(tdir, sizeof tdir, g.dir, test) || path_join(model_path, sizeof model_path, tdir, "model.onnx"))
        return result(why, whylen, OUT_FAIL, "%s/%s: path too long", g.dir, test);
    /* The "real" model folders ship without model.onnx (downloaded on demand). */
    if (!file_exists(model_path)) return result(why, whylen, OUT_SKIP, "%s: not present", model_path);
    nnc_model *m0 = NULL;
    nnc_status st = nnc_mdl_parse_file(&m0, model_path, err, sizeof err);
    if (st) return result(why, whylen, st == NNC_STATUS_UNSUPPORTED ? OUT_SKIP : OUT_FAIL, "%s", err);
    graph_inputs gi = {0};
    outcome o = OUT_PASS;
    if (nnc_mdl_num_inputs(m0) > MAX_IO) {
        nnc_mdl_destroy(m0);
        return result(why, whylen, OUT_FAIL, "more than %d inputs", MAX_IO);
    }
    for (int k = 0; k < nnc_mdl_num_inputs(m0); k++) {
        nnc_tensor_info info;
        nnc_mdl_input_info(m0, k, &info);
        gi.name[k] = strdup(info.name);
        gi.dtype[k] = info.dtype;
        gi.n++;
        if (gi.name[k] == NULL) o = result(why, whylen, OUT_FAIL, "out of memory");
    }
    nnc_mdl_destroy(m0);

    struct dirent **sets = NULL;
    int n_sets = o == OUT_PASS ? scandir(tdir, &sets, select_sets, alphasort) : 0;
    if (n_sets <= 0 && o == OUT_PASS) o = result(why, whylen, OUT_FAIL, "%s: no test_data_set_* folder", tdir);
    for (int s = 0; s < n_sets && o == OUT_PASS; s++) {
        char set[4096 + 256];
        if (path_join(set, sizeof set, tdir, sets[s]->d_name)) {
            o = result(why, whylen, OUT_FAIL, "%s: path too long", tdir);
            break;
        }
        dataset d;
        o = read_dataset(set, &d, why, whylen);
        if (o == OUT_PASS && d.n_in != gi.n)
            o = result(why, whylen, OUT_FAIL, "%s: %d input tensors for %d graph inputs", sets[s]->d_name, d.n_in, gi.n);
        for (int k = 0; k < gi.n && o == OUT_PASS; k++)
            if (d.in[k].dtype != gi.dtype[k])
                o = result(why, whylen, OUT_FAIL, "%s: input %d is %s, the graph declares %s", sets[s]->d_name, k,
                           nnc_dtype_name(d.in[k].dtype), nnc_dtype_name(gi.dtype[k]));
        nnc_precision prec = pick_precision(&gi, &d);
        int has_int = 0;
        for (int k = 0; k < gi.n; k++) has_int |= !nnc_dtype_is_float(gi.dtype[k]);
        for (int md = 0; md < MODE_COUNT && o == OUT_PASS; md++) {
            if (md == MODE_F64 && prec == NNC_PRECISION_F64) continue;
            if (md == MODE_INTRT && !has_int) continue;
            char mwhy[1024];
            outcome r = run_mode(model_path, &gi, &d, (mode)md, md == MODE_F64 ? NNC_PRECISION_F64 : prec, mwhy, sizeof mwhy);
            if (r == OUT_NA) {
                if (g.verbose && md != MODE_INTRT)
                    printf("  note %s [%s]: mode does not apply: %s\n", test, mode_names[md], mwhy);
            } else if (r == OUT_SKIP) {
                o = result(why, whylen, OUT_SKIP, "%s", mwhy);
            } else if (r == OUT_FAIL) {
                o = result(why, whylen, OUT_FAIL, "[%s, %s] %s", sets[s]->d_name, mode_names[md], mwhy);
            }
        }
        dataset_free(&d);
    }
    for (int s = 0; s < n_sets; s++) free(sets[s]);
    free(sets);
    for (int k = 0; k < gi.n; k++) free(gi.name[k]);
    return o;
}

static int selected(const char *name)
{
    if (g.n_only == 0) return 1;
    for (int k = 0; k < g.n_only; k++)
        if (strcmp(g.only[k], name) == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int a = 1;
    g.dir = DEFAULT_DIR;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "--verbose") == 0 || strcmp(argv[a], "-v") == 0) {
            g.verbose = 1;
        } else {
            fprintf(stderr, "usage: %s [--verbose] [DATA_DIR [TEST...]]\n", argv[0]);
            return 2;
        }
    }
    if (a < argc) g.dir = argv[a++];
    g.only = argv + a;
    g.n_only = argc - a;

    struct dirent **tests = NULL;
    int n = scandir(g.dir, &tests, select_tests, alphasort);
    if (n < 0) {
        fprintf(stderr, "conformance: cannot list %s\n", g.dir);
        return 2;
    }
    int ran = 0, passed = 0, failed = 0, skipped = 0;
    /* skips for an operator nncert lacks are summarised per operator; every
     * other skip (a type or feature of a supported operator) is listed */
    char ops[512][64];
    int op_count[512], n_ops = 0;
    for (int t = 0; t < n; t++) {
        const char *name = tests[t]->d_name;
        char tdir[4096];
        struct stat st;
        if (!selected(name) || path_join(tdir, sizeof tdir, g.dir, name) || stat(tdir, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        char why[2048] = "";
        outcome o = run_test(name, why, sizeof why);
        if (o == OUT_PASS) {
            ran++;
            passed++;
            if (g.verbose) printf("PASS %s\n", name);
        } else if (o == OUT_SKIP) {
            skipped++;
            const char *op = strstr(why, "operator ");
            char opname[64];
            if (op && sscanf(op, "operator %63s is not supported", opname) == 1 && strstr(op, "is not supported")) {
                int k;
                for (k = 0; k < n_ops; k++)
                    if (strcmp(ops[k], opname) == 0) break;
                if (k == n_ops && n_ops < 512) {
                    snprintf(ops[n_ops], sizeof ops[n_ops], "%s", opname);
                    op_count[n_ops++] = 0;
                }
                if (k < 512) op_count[k]++;
                if (g.verbose) printf("SKIP %s: %s\n", name, why);
            } else {
                printf("SKIP %s: %.300s\n", name, why);
            }
        } else {
            ran++;
            failed++;
            printf("FAIL %s: %s\n", name, why);
        }
        fflush(stdout);
    }
    for (int t = 0; t < n; t++) free(tests[t]);
    free(tests);
    if (n_ops) {
        printf("skipped, operator not supported:");
        for (int k = 0; k < n_ops; k++) printf(" %s (%d)", ops[k], op_count[k]);
        printf("\n");
    }
    printf("conformance: %d ran, %d passed, %d failed, %d skipped (unsupported)\n", ran, passed, failed, skipped);
    return failed ? 1 : 0;
}
