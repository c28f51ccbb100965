/* The verifier through names and files (nncert/verifier.h, "by name"):
 * the verify and bounds commands' model loader, the verify options by their
 * command-line names, a run from a spec file to the JSON report, and the
 * bounds of a box.  The CLI (cli/nncert.c, cli/cmd_bounds.c) and the Python
 * package (python/nncert) both stand on these, so both give one answer. */
#include "nncert/verifier.h"

#include "nncert/model.h"
#include "nncert/embbag.h"
#include "models/model_impl.h"
#include "nncert/spec.h"
#include "verifier/bounds_impl.h"
#include "verifier/refine_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

nnc_status nnc_vrf_load_model(nnc_model **out, const char *path, char *err, size_t errlen)
{
    nnc_status st = nnc_mdl_parse_file(out, path, err, errlen);
    if (st) return st;
    nnc_prepare_opts po;
    nnc_prepare_opts_default(&po);
    po.fold_batchnorm = 0; /* see the module comment */
    char inner[NNC_ERRBUF_SIZE];
    if ((st = nnc_mdl_prepare(*out, &po, inner, sizeof inner))) {
        nnc_err(err, errlen, st, "%s: %s", path, inner);
        nnc_mdl_destroy(*out);
        *out = NULL;
    }
    return st;
}

nnc_vrf_opts *nnc_vrf_opts_new(void)
{
    nnc_vrf_opts *o = malloc(sizeof *o);
    if (o) nnc_vrf_opts_default(o);
    return o;
}

void nnc_vrf_opts_destroy(nnc_vrf_opts *o) { free(o); /* (free(NULL) does nothing) */ }

/* name equals want, '_' in name read as '-' */
static int name_is(const char *name, const char *want)
{
    for (; *name && *want; name++, want++)
        if (*name != *want && !(*name == '_' && *want == '-')) return 0;
    return *name == *want;
}

/* "on", "true", "1" -> 1; "off", "false", "0" -> 0; else -1 */
static int parse_bool(const char *v)
{
    if (!strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "1")) return 1;
    if (!strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "0")) return 0;
    return -1;
}

/* value v of a bounded count, or "auto" (NNC_VRF_AUTO) when allow_auto */
static int parse_count(const char *v, int allow_auto, uint64_t lo, uint64_t hi, int *out)
{
    uint64_t n;
    if (allow_auto && !strcmp(v, "auto")) {
        *out = NNC_VRF_AUTO;
        return 0;
    }
    if (nnc_parse_u64(v, &n) || n < lo || n > hi) return -1;
    *out = (int)n;
    return 0;
}

nnc_status nnc_vrf_opts_set(nnc_vrf_opts *o, const char *name, const char *v, char *err, size_t errlen)
{
    int bad = 0, b;
    if (name_is(name, "samples")) bad = nnc_parse_u64(v, &o->samples);
    else if (name_is(name, "seed")) bad = nnc_parse_u64(v, &o->seed);
    else if (name_is(name, "max-leaves")) bad = nnc_parse_u64(v, &o->max_leaves) || o->max_leaves == 0;
    else if (name_is(name, "threads")) bad = parse_count(v, 0, 1, 256, &o->threads);
    else if (name_is(name, "alpha-iters")) bad = parse_count(v, 1, 0, 100000, &o->alpha_iters);
    else if (name_is(name, "relu-split-batch")) bad = parse_count(v, 1, 0, NNC_VRF_RELU_SPLIT_BATCH_MAX, &o->relu_split_batch);
    else if (name_is(name, "relu-split")) {
        bad = strcmp(v, "auto") && (b = parse_bool(v)) < 0;
        if (!bad) o->relu_split = strcmp(v, "auto") ? (b ? NNC_VRF_ON : NNC_VRF_OFF) : NNC_VRF_AUTO;
    } else if (name_is(name, "exact")) {
        bad = strcmp(v, "auto") && strcmp(v, "off");
        if (!bad) o->exact = strcmp(v, "auto") ? NNC_VRF_OFF : NNC_VRF_AUTO;
    } else if (name_is(name, "symbolic")) {
        static const struct {
            const char *name;
            nnc_vrf_symbolic mode;
        } modes[] = {{"auto", NNC_VRF_SYMBOLIC_AUTO}, {"off", NNC_VRF_SYMBOLIC_OFF},
                     {"cascade", NNC_VRF_SYMBOLIC_CASCADE}, {"own", NNC_VRF_SYMBOLIC_OWN}};
        bad = 1;
        for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
            if (!strcmp(v, modes[k].name)) o->symbolic = modes[k].mode, bad = 0;
    } else if (name_is(name, "confidence")) bad = nnc_parse_double(v, &o->confidence) || !(o->confidence > 0 && o->confidence < 1);
    else if (name_is(name, "timeout")) bad = nnc_parse_double(v, &o->timeout_s) || o->timeout_s < 0;
    else if (name_is(name, "max-violation"))
        bad = nnc_parse_double(v, &o->max_violation) || o->max_violation < 0 || o->max_violation > 1;
    else if (name_is(name, "device")) {
        bad = strcmp(v, "cpu") && strcmp(v, "gpu");
        if (!bad) o->device = strcmp(v, "gpu") ? NNC_VRF_DEVICE_CPU : NNC_VRF_DEVICE_GPU;
    } else if (name_is(name, "split")) {
        bad = (b = parse_bool(v)) < 0;
        if (!bad) o->split = b;
    } else if (name_is(name, "ibp")) {
        bad = (b = parse_bool(v)) < 0;
        if (!bad) o->crown = !b;
    } else if (name_is(name, "stop-on-counterexample")) {
        bad = (b = parse_bool(v)) < 0;
        if (!bad) o->stop_on_counterexample = b;
    } else {
        return nnc_err(err, errlen, NNC_STATUS_ARG, "unknown verify option '%s'", name);
    }
    if (bad) return nnc_err(err, errlen, NNC_STATUS_ARG, "bad value '%s' for verify option '%s'", v, name);
    return NNC_STATUS_OK;
}

nnc_status nnc_vrf_opts_clash(const nnc_vrf_opts *o, char *err, size_t errlen)
{
    const char *c = NULL;
    /* (the command line's spellings at the end: the CLI reports these) */
    if (!o->crown && o->alpha_iters > 0)
        c = "ibp (interval bounds only) and alpha_iters > 0 (optimised linear bounds) contradict each other "
            "(on the command line: --ibp and --alpha-iters N)";
    else if (!o->crown && o->relu_split == NNC_VRF_ON)
        c = "ibp and relu_split on contradict each other: ReLU splits refine linear bounds (on the command line: "
            "--ibp and --relu-split on)";
    else if (!o->split && o->relu_split == NNC_VRF_ON)
        c = "split off and relu_split on contradict each other (on the command line: --no-split and --relu-split on)";
    else if (o->relu_split == NNC_VRF_OFF && o->relu_split_batch > 0)
        c = "relu_split_batch sizes the ReLU splits, which relu_split off turns off (on the command line: "
            "--relu-split-batch N and --relu-split off)";
    return c ? nnc_err(err, errlen, NNC_STATUS_ARG, "%s", c) : NNC_STATUS_OK;
}

nnc_status nnc_vrf_run_json(const nnc_model *m, const char *spec_path, const nnc_vrf_opts *o, char **json, char *err,
                            size_t errlen)
{
    *json = NULL;
    nnc_status cst = nnc_vrf_opts_clash(o, err, errlen);
    if (cst) return cst;
    nnc_spec *spec;
    nnc_status st = nnc_spc_parse_file(&spec, spec_path, err, errlen);
    if (st) return st;
    nnc_vrf_report r;
    st = nnc_vrf_run(m, spec, o, &r, err, errlen);
    nnc_spc_destroy(spec);
    if (st) return st;
    size_t len = 0;
    FILE *f = open_memstream(json, &len);
    if (f == NULL) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory for the report");
    else {
        st = nnc_vrf_report_write_json(f, &r, err, errlen);
        if (fclose(f) != 0 && !st) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory for the report");
        if (st) {
            free(*json);
            *json = NULL;
        }
    }
    nnc_vrf_report_clear(&r);
    return st;
}

void nnc_vrf_free(void *p) { free(p); }

struct nnc_vrf_bounder {
    nnc_bnd *b;
    int value; /* the model's value whose bounds are wanted, or -1: the outputs */
    int64_t n_in, n_val;
};

nnc_status nnc_vrf_bounder_create(nnc_vrf_bounder **out, const nnc_model *m, const char *value, char *err,
                                  size_t errlen)
{
    *out = NULL;
    nnc_vrf_bounder *v = calloc(1, sizeof *v);
    if (v == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    nnc_status st = nnc_bnd_create(&v->b, m, err, errlen);
    if (st) {
        free(v);
        return st;
    }
    v->value = -1;
    v->n_in = nnc_bnd_num_inputs(v->b);
    v->n_val = nnc_bnd_num_outputs(v->b);
    if (value) {
        const double *vl, *vh;
        v->value = nnc_mdl_find_value(m, value);
        v->n_val = v->value >= 0 ? nnc_bnd_value_bounds(v->b, v->value, &vl, &vh) : -1;
        if (v->n_val < 0) {
            nnc_vrf_bounder_destroy(v);
            return nnc_err(err, errlen, NNC_STATUS_INVALID,
                           "no run-time value named '%s' in the prepared model (a layer is named by the output "
                           "name of a node of the ONNX file)", value);
        }
    }
    *out = v;
    return NNC_STATUS_OK;
}

int64_t nnc_vrf_bounder_num_inputs(const nnc_vrf_bounder *v) { return v->n_in; }

int64_t nnc_vrf_bounder_num_values(const nnc_vrf_bounder *v) { return v->n_val; }

void nnc_vrf_bounder_destroy(nnc_vrf_bounder *v)
{
    if (v == NULL) return;
    nnc_bnd_destroy(v->b);
    free(v);
}

/* The output intervals (IBP, with CROWN on the hidden layers for crown and
 * alpha), then for crown and alpha back-substitution of the rows +e_j (lower
 * bounds) and -e_j (minus the upper bounds), then for alpha their
 * optimisation from CROWN's values; each step only ever tightens a bound. */
nnc_status nnc_vrf_bounder_box(nnc_vrf_bounder *v, nnc_vrf_bound_method method, int iters, const double *lo,
                               const double *hi, double *olo, double *ohi)
{
    if (method < NNC_VRF_BOUNDS_IBP || method > NNC_VRF_BOUNDS_ALPHA || (method == NNC_VRF_BOUNDS_ALPHA && iters < 1))
        return NNC_STATUS_ARG;
    for (int64_t k = 0; k < v->n_in; k++)
        if (!(lo[k] <= hi[k])) return NNC_STATUS_ARG;
    nnc_bnd *b = v->b;
    int n_out = (int)v->n_val;
    nnc_status st = nnc_bnd_compute(b, lo, hi, method != NNC_VRF_BOUNDS_IBP);
    if (st) return st;
    if (v->value >= 0) { /* an intermediate value: the engine's intervals */
        int64_t narrowed;
        if (method == NNC_VRF_BOUNDS_ALPHA && (st = nnc_alpha_intermediate(b, iters, INFINITY, &narrowed))) return st;
        const double *vl, *vh;
        nnc_bnd_value_bounds(b, v->value, &vl, &vh);
        memcpy(olo, vl, sizeof(double) * (size_t)n_out);
        memcpy(ohi, vh, sizeof(double) * (size_t)n_out);
        return NNC_STATUS_OK;
    }
    memcpy(olo, nnc_bnd_out_lo(b), sizeof(double) * (size_t)n_out);
    memcpy(ohi, nnc_bnd_out_hi(b), sizeof(double) * (size_t)n_out);
    if (method == NNC_VRF_BOUNDS_IBP) return NNC_STATUS_OK;
    int nobj = 2 * n_out;
    double *C = calloc((size_t)nobj * (size_t)n_out + 1, sizeof(double));
    double *lw = malloc(sizeof(double) * (size_t)nobj + 8), *tg = malloc(sizeof(double) * (size_t)nobj + 8);
    double *zero = calloc((size_t)nobj + 1, sizeof(double));
    if (!C || !lw || !tg || !zero) {
        free(C); free(lw); free(tg); free(zero);
        return NNC_STATUS_NOMEM;
    }
    for (int j = 0; j < n_out; j++) {
        C[(size_t)j * (size_t)n_out + (size_t)j] = 1;
        C[(size_t)(n_out + j) * (size_t)n_out + (size_t)j] = -1;
        tg[j] = tg[n_out + j] = INFINITY;
    }
    st = nnc_bnd_linear_lower(b, nobj, C, zero, lw, NULL);
    if (!st && method == NNC_VRF_BOUNDS_ALPHA) st = nnc_alpha_lower(b, nobj, C, tg, lw, NULL, iters, INFINITY);
    for (int j = 0; !st && j < n_out; j++) {
        if (lw[j] > olo[j]) olo[j] = lw[j];
        if (-lw[n_out + j] < ohi[j]) ohi[j] = -lw[n_out + j];
    }
    free(C); free(lw); free(tg); free(zero);
    return st;
}

nnc_status nnc_vrf_dlrm_fix(nnc_model *m, nnc_spec **spec, const char *trace_path, uint64_t sample, char *err,
                            size_t errlen)
{
    int nin = nnc_mdl_num_inputs(m), n_int = 0, fin = -1;
    int64_t n_dense = 0, n_ids = 0, off = 0, pos = 0;
    for (int i = 0; i < nin; i++) {
        nnc_tensor_info ti;
        nnc_mdl_input_info(m, i, &ti);
        if (nnc_dtype_is_float(ti.dtype)) {
            fin = fin < 0 ? i : -2;
            n_dense = ti.numel;
            off = pos;
        } else {
            n_int++;
            n_ids += ti.numel;
        }
        pos += ti.numel;
    }
    if (n_int == 0) {
        if (trace_path) return nnc_err(err, errlen, NNC_STATUS_ARG, "a trace is for models with categorical (integer) inputs");
        return NNC_STATUS_OK;
    }
    if (fin < 0)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "verify needs exactly one float input beside the categorical ones");
    int64_t **ids = calloc((size_t)n_int, sizeof *ids);
    double *fixed = malloc((size_t)(n_ids + 1) * sizeof *fixed);
    nnc_trace tr;
    memset(&tr, 0, sizeof tr);
    nnc_spec *kept = NULL;
    nnc_status s = NNC_STATUS_OK;
    if (!ids || !fixed) {
        s = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    if (trace_path) {
        if (nnc_spc_num_inputs(*spec) != n_dense) {
            s = nnc_err(err, errlen, NNC_STATUS_INVALID, "with a trace the spec covers the %lld dense inputs; it has %d",
                        (long long)n_dense, nnc_spc_num_inputs(*spec));
            goto done;
        }
        if ((s = nnc_mdl_trace_read(&tr, trace_path, (int)n_dense, n_int, err, errlen))) goto done;
        if (sample < 1 || tr.n_samples < 1 || sample > (uint64_t)tr.n_samples) {
            s = nnc_err(err, errlen, NNC_STATUS_ARG, "sample %llu is not in the trace (samples 1 .. %lld)",
                        (unsigned long long)sample, (long long)tr.n_samples);
            goto done;
        }
        int64_t smp = (int64_t)sample - 1;
        for (int i = 0, t = 0; i < nin; i++) {
            nnc_tensor_info ti;
            nnc_mdl_input_info(m, i, &ti);
            if (nnc_dtype_is_float(ti.dtype)) continue;
            int64_t b = smp * n_int + t;
            if (tr.offsets[b + 1] - tr.offsets[b] != ti.numel) {
                s = nnc_err(err, errlen, NNC_STATUS_INVALID, "trace sample %llu's bag %d holds %lld ids, the model's input '%s' %lld",
                            (unsigned long long)sample, t, (long long)(tr.offsets[b + 1] - tr.offsets[b]), ti.name,
                            (long long)ti.numel);
                goto done;
            }
            ids[t++] = tr.ids + tr.offsets[b];
        }
    } else {
        if (nnc_spc_num_inputs(*spec) != n_dense + n_ids) {
            s = nnc_err(err, errlen, NNC_STATUS_INVALID,
                        "the spec has %d inputs; this DLRM takes %lld dense and %lld categorical ones (a spec over all of them, "
                        "the ids fixed, or a trace with a spec over the dense ones)",
                        nnc_spc_num_inputs(*spec), (long long)n_dense, (long long)n_ids);
            goto done;
        }
        if ((s = nnc_spc_keep_inputs(&kept, fixed, *spec, (int)off, (int)n_dense, err, errlen))) goto done;
        int64_t *all = malloc((size_t)(n_ids + 1) * sizeof *all);
        if (all == NULL) {
            s = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            goto done;
        }
        for (int64_t k = 0; k < n_ids; k++) {
            if (!(fixed[k] >= -9007199254740992.0 && fixed[k] <= 9007199254740992.0) || fixed[k] != (double)(int64_t)fixed[k]) {
                free(all);
                s = nnc_err(err, errlen, NNC_STATUS_INVALID, "categorical input %lld is fixed to %.17g, not an integer id",
                            (long long)k, fixed[k]);
                goto done;
            }
            all[k] = (int64_t)fixed[k];
        }
        /* ids[t] point into all: the integer inputs' values in input order */
        int64_t at = 0;
        for (int i = 0, t = 0; i < nin; i++) {
            nnc_tensor_info ti;
            nnc_mdl_input_info(m, i, &ti);
            if (nnc_dtype_is_float(ti.dtype)) continue;
            ids[t++] = all + at;
            at += ti.numel;
        }
        s = nnc_mdl_embbag_fix_ids(m, (const int64_t *const *)ids, err, errlen);
        free(all);
        if (s) goto done;
        nnc_spc_destroy(*spec);
        *spec = kept;
        kept = NULL;
        goto done;
    }
    s = nnc_mdl_embbag_fix_ids(m, (const int64_t *const *)ids, err, errlen);
done:
    nnc_spc_destroy(kept);
    nnc_mdl_trace_clear(&tr);
    free(ids);
    free(fixed);
    return s;
}

int64_t nnc_vrf_declared_batch(const nnc_model *m)
{
    if (nnc_mdl_num_inputs(m) != 1 || nnc_mdl_num_outputs(m) != 1) return 1;
    nnc_tensor_info ti, to;
    nnc_mdl_input_info(m, 0, &ti);
    nnc_mdl_output_info(m, 0, &to);
    if (ti.dynamic_leading || ti.rank < 2 || ti.dims[0] < 2 || to.rank < 1 || to.dims[0] != ti.dims[0]) return 1;
    return ti.dims[0];
}

nnc_status nnc_vrf_check_row(const nnc_model *m, int64_t row, int64_t spec_in, int64_t spec_out, const char *what,
                             const char *opt, char *err, size_t errlen)
{
    int64_t B = nnc_vrf_declared_batch(m);
    nnc_tensor_info ti = {0}, to = {0};
    if (B > 1) { /* one input and one output */
        nnc_mdl_input_info(m, 0, &ti);
        nnc_mdl_output_info(m, 0, &to);
    }
    int one = B > 1 && spec_in == ti.numel / B && spec_out == to.numel / B; /* a one-sample spec */
    if (row >= 0 && B == 1)
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "%s picks a sample of a model whose input declares a fixed batch; this model's does not", opt);
    if (row >= B)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s %lld: the model's input declares %lld samples (0 to %lld)", opt,
                       (long long)row, (long long)B, (long long)(B - 1));
    if (row >= 0 && spec_in >= 0 && !one)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s %lld: %s has %lld inputs and %lld outputs, one sample of the model %lld and %lld",
                       opt, (long long)row, what, (long long)spec_in, (long long)spec_out, (long long)(ti.numel / B),
                       (long long)(to.numel / B));
    if (row < 0 && (spec_in >= 0 ? one : B > 1))
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "the model's input '%s' declares a batch of %lld samples: give %s K (0 to %lld) for %s of one sample",
                       ti.name, (long long)B, opt, (long long)(B - 1), spec_in >= 0 ? "a spec" : "the spec");
    return NNC_STATUS_OK;
}

nnc_status nnc_vrf_fit_spec(nnc_model *m, nnc_spec **spec, const char *trace_path, uint64_t sample, int64_t row,
                            const char *row_opt, char *err, size_t errlen)
{
    nnc_status st = nnc_vrf_dlrm_fix(m, spec, trace_path, sample, err, errlen);
    if (st) return st;
    if (trace_path == NULL &&
        (st = nnc_vrf_check_row(m, row, nnc_spc_num_inputs(*spec), nnc_spc_num_outputs(*spec), "the spec", row_opt, err,
                                errlen)))
        return st;
    if (row < 0) return NNC_STATUS_OK;
    nnc_spec *whole;
    if ((st = nnc_spc_embed_sample(&whole, *spec, (int)nnc_vrf_declared_batch(m), (int)row, err, errlen))) return st;
    nnc_spc_destroy(*spec);
    *spec = whole;
    return NNC_STATUS_OK;
}
