/* The verifier's report: result names, release, the counterexample, its JSON
 * form, and the progress lines (see verify_impl.h). */
#include "verifier/verify_impl.h"

const char *nnc_vrf_result_name(nnc_vrf_result r)
{
    return r == NNC_VRF_HOLDS ? "holds" : r == NNC_VRF_VIOLATED ? "violated" : "unknown";
}

void nnc_vrf_report_clear(nnc_vrf_report *rep)
{
    if (rep == NULL) return;
    free(rep->cex_input);
    free(rep->cex_output);
    rep->cex_input = rep->cex_output = NULL;
}

/* The report's counterexample (it has none): case kcase, copies of the
 * doubles at in (n_in) and out (n_out), which need not be aligned (an
 * exchange's bytes).  Returns 0, or -1 (no memory: still none). */
int nnc_vrfi_report_cex(nnc_vrf_report *r, int n_in, int n_out, int kcase, const void *in, const void *out)
{
    r->cex_input = malloc(sizeof(double) * (size_t)n_in + 8);
    r->cex_output = malloc(sizeof(double) * (size_t)n_out + 8);
    if (!r->cex_input || !r->cex_output) {
        free(r->cex_input);
        free(r->cex_output);
        r->cex_input = r->cex_output = NULL;
        return -1;
    }
    memcpy(r->cex_input, in, sizeof(double) * (size_t)n_in);
    memcpy(r->cex_output, out, sizeof(double) * (size_t)n_out);
    r->has_counterexample = 1;
    r->counterexample_case = kcase;
    return 0;
}

/* A progress report in phase (sd, stot: samples drawn and wanted), at a
 * phase change or NNC_VRF_PROGRESS_S after the last; only from the calling
 * thread (a worker's leaves report through worker 0, which is it). */
void nnc_vrfi_report_progress(ctx *c, const char *phase, uint64_t sd, uint64_t stot)
{
    progress *g = c->prog;
    /* only the calling thread: a worker's nested, inactive parallel region
     * also says thread 0 */
    if (c->o->progress == NULL || g == NULL || !pthread_equal(pthread_self(), g->owner)) return;
    g->current = phase;
    double t = now_s();
    /* a new phase shows at once unless phases alternate fast (ACAS Xu's
     * leaves: bounds, exact, bounds, ... thousands a second) */
    if (t - g->last < (phase == g->phase ? NNC_VRF_PROGRESS_S : 0.1)) return;
    g->phase = phase;
    g->last = t;
    nnc_vrf_progress p = {g->leaves, g->open, g->cert, sd, stot, t - c->t0, phase, c->rsp_nodes};
    c->o->progress(c->o->progress_ctx, &p);
}

/* nodes: the leaf's sub-problems so far, or UINT64_MAX inside a pass
 * (then the count of the last tick) */
void nnc_vrfi_rsp_tick(void *p, uint64_t nodes)
{
    ctx *c = p;
    if (c->prog == NULL || !pthread_equal(pthread_self(), c->prog->owner)) return;
    if (nodes == UINT64_MAX) nodes = c->rsp_tick_nodes;
    c->rsp_tick_nodes = nodes;
    uint64_t saved = c->rsp_nodes;
    c->rsp_nodes += nodes; /* as it will be once this leaf is done */
    nnc_vrfi_report_progress(c, "relu-split", 0, 0);
    c->rsp_nodes = saved;
}

/* the attack's starts (nnc_atk_opts.tick) */
void nnc_vrfi_attack_tick(void *p) { nnc_vrfi_report_progress(p, "falsification", 0, 0); }

/* alpha-CROWN's steps (nnc_bnd_set_tick): in the phase that runs them
 * ("alpha", or the ReLU splits' sub-problems, whose count it keeps) */
void nnc_vrfi_alpha_tick(void *p)
{
    ctx *c = p;
    const char *ph = c->prog && c->prog->current ? c->prog->current : "alpha";
    if (strcmp(ph, "relu-split") == 0) nnc_vrfi_rsp_tick(c, UINT64_MAX);
    else nnc_vrfi_report_progress(c, ph, 0, 0);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fputs("null", f);
}

nnc_status nnc_vrf_report_write_json(FILE *f, const nnc_vrf_report *r, char *err, size_t errlen)
{
    fprintf(f, "{\n  \"format\": \"%s\",\n  \"result\": \"%s\",\n  \"violation_fraction\": {\"lower\": ",
            NNC_VRF_REPORT_FORMAT, nnc_vrf_result_name(r->result));
    json_num(f, r->violation_lo);
    fputs(", \"upper\": ", f);
    json_num(f, r->violation_hi);
    fputs("},\n  \"confidence\": ", f);
    json_num(f, r->confidence);
    fputs(",\n  \"certified_safe_fraction\": ", f);
    json_num(f, r->certified_safe_fraction);
    fputs(",\n  \"certified_unsafe_fraction\": ", f);
    json_num(f, r->certified_unsafe_fraction);
    fputs(",\n  \"open_fraction\": ", f);
    json_num(f, r->open_fraction);
    fprintf(f, ",\n  \"samples\": %llu,\n  \"sample_violations\": %llu,\n", (unsigned long long)r->samples,
            (unsigned long long)r->sample_violations);
    fprintf(f, "  \"leaves\": {\"total\": %llu, \"safe\": %llu, \"unsafe\": %llu, \"open\": %llu},\n",
            (unsigned long long)r->leaves, (unsigned long long)r->leaves_safe, (unsigned long long)r->leaves_unsafe,
            (unsigned long long)r->leaves_open);
    fprintf(f, "  \"relu_split_nodes\": %llu,\n", (unsigned long long)r->relu_split_nodes);
    fprintf(f, "  \"ranks\": %d,\n", r->ranks > 0 ? r->ranks : 1);
    fputs("  \"counterexample\": ", f);
    if (r->has_counterexample && r->cex_input) {
        fprintf(f, "{\"case\": %d, \"input\": [", r->counterexample_case);
        for (int i = 0; i < r->n_in; i++) {
            if (i) fputs(", ", f);
            json_num(f, r->cex_input[i]);
        }
        fputs("], \"output\": [", f);
        for (int i = 0; i < r->n_out; i++) {
            if (i) fputs(", ", f);
            json_num(f, r->cex_output[i]);
        }
        fputs("]}", f);
    } else {
        fputs("null", f);
    }
    fprintf(f, ",\n  \"seed\": %llu,\n  \"time_s\": ", (unsigned long long)r->seed);
    json_num(f, r->time_s);
    fputs(",\n  \"model_sha256\": \"", f);
    for (int i = 0; i < 32; i++) fprintf(f, "%02x", r->model_sha256[i]);
    fputs("\"\n}\n", f);
    if (ferror(f)) return nnc_err(err, errlen, NNC_STATUS_IO, "writing the report failed");
    return NNC_STATUS_OK;
}
