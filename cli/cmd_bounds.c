/* nncert bounds: sound lower and upper bounds of every output of a model over
 * an input box (a spec's, or an L-inf ball around an input), by interval
 * propagation, CROWN or alpha-CROWN: what auto_LiRPA's compute_bounds gives,
 * with outward rounding. */
#include "cli/cli.h"
#include "nncert/model.h"
#include "nncert/spec.h"
#include "nncert/verifier.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { B_SPEC, B_INPUT, B_EPS, B_CLIP, B_METHOD, B_ALPHA_ITERS, B_LAYER, B_JSON };
static const nnc_cli_opt bounds_opts[] = {
    [B_SPEC] = {"--spec", "SPEC", "the input boxes of SPEC (VNN-LIB), each in turn"},
    [B_INPUT] = {"--input", "FILE", "the box [x - E, x + E] around the input in FILE\n(read as for 'nncert run')"},
    [B_EPS] = {"--eps", "E", "that box's L-inf radius"},
    [B_CLIP] = {"--clip", "LO,HI", "that box clipped to [LO, HI]"},
    [B_METHOD] = {"--method", "M", "ibp (interval propagation), crown (linear bounds,\n"
                                    "default), alpha (alpha-CROWN: optimised relaxation\n"
                                    "slopes for each bound, starting from CROWN's)"},
    [B_ALPHA_ITERS] = {"--alpha-iters", "N", "alpha's optimisation steps per bound (default 20)"},
    [B_LAYER] = {"--layer", "NAME", "the bounds of the model's value NAME (an intermediate\n"
                                    "node's output) instead of the outputs: the intervals\n"
                                    "the engine holds for it (interval propagation over the\n"
                                    "hidden bounds that crown tightens by back-substitution\n"
                                    "and alpha by optimised slopes, neuron by neuron)"},
    [B_JSON] = {"--json", "FILE", "write {\"format\": \"nncert-bounds-1\", \"method\", \"layer\",\n"
                                  "\"boxes\": [{\"lower\": [...], \"upper\": [...]}]} there (-: stdout)"},
};
static const nnc_cli_doc bounds_doc = NNC_CLI_DOC(
    "bounds",
    "usage: nncert bounds MODEL (--spec SPEC | --input FILE --eps E [--clip LO,HI])\n"
    "                     [--method ibp|crown|alpha] [--alpha-iters N] [--layer NAME] [--json FILE]\n",
    "Sound lower and upper bounds of every output of MODEL over an input box:\n"
    "the box of SPEC (VNN-LIB; each of its input boxes in turn), or [x - E, x + E]\n"
    "around the input in FILE (read as for 'nncert run'), clipped to [LO, HI].\n"
    "Every value the model computes in exact arithmetic on its stored weights, for\n"
    "any input in the box, lies within the bounds (outward-rounded).\n",
    bounds_opts,
    "Prints one line per output (or element of NAME) and box otherwise.  Exit 0, or 64+ on errors.\n");

typedef struct bounds_out {
    const char *method, *layer; /* layer: NULL for the outputs */
    int nbox, n_out;
    const double *lo, *hi; /* nbox x n_out */
} bounds_out;

static void num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fputs("null", f);
}

static nnc_status write_bounds(FILE *f, const void *arg, char *err, size_t errlen)
{
    const bounds_out *b = arg;
    fprintf(f, "{\"format\": \"nncert-bounds-1\", \"method\": \"%s\", \"layer\": ", b->method);
    if (b->layer) nnc_cli_json_str(f, b->layer);
    else fputs("null", f);
    fputs(", \"boxes\": [", f);
    for (int k = 0; k < b->nbox; k++) {
        fputs(k ? ", {\"lower\": [" : "{\"lower\": [", f);
        for (int j = 0; j < b->n_out; j++) {
            if (j) fputs(", ", f);
            num(f, b->lo[(size_t)k * (size_t)b->n_out + (size_t)j]);
        }
        fputs("], \"upper\": [", f);
        for (int j = 0; j < b->n_out; j++) {
            if (j) fputs(", ", f);
            num(f, b->hi[(size_t)k * (size_t)b->n_out + (size_t)j]);
        }
        fputs("]}", f);
    }
    fputs("]}\n", f);
    return ferror(f) ? nnc_err(err, errlen, NNC_STATUS_IO, "write failed") : NNC_STATUS_OK;
}

int nnc_cmd_bounds(int argc, char **argv)
{
    const char *model = NULL, *specp = NULL, *input = NULL, *json = NULL, *method_s = "crown", *layer_s = NULL;
    double eps = -1, clip_lo = -INFINITY, clip_hi = INFINITY;
    uint64_t iters = 20;
    int clip_set = 0;
    const char *v;
    int k, rc0;
    for (int i = 0; (k = nnc_cli_getopt(&bounds_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        int bad = 0;
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG:
            if ((rc0 = nnc_cli_one_positional(&bounds_doc, v, &model, "MODEL")) != EXIT_OK) return rc0;
            break;
        case B_SPEC: specp = v; break;
        case B_INPUT: input = v; break;
        case B_JSON: json = v; break;
        case B_LAYER: layer_s = v; break;
        case B_METHOD:
            method_s = v;
            bad = strcmp(v, "ibp") != 0 && strcmp(v, "crown") != 0 && strcmp(v, "alpha") != 0;
            break;
        case B_EPS: bad = nnc_cli_parse_double(v, &eps) || eps < 0; break;
        case B_ALPHA_ITERS: bad = nnc_cli_parse_u64(v, &iters) || iters == 0 || iters > 100000; break;
        case B_CLIP: clip_set = 1, bad = nnc_cli_parse_clip(v, &clip_lo, &clip_hi); break;
        }
        if (bad) return nnc_cli_bad_value(&bounds_doc, bounds_opts[k].name, v);
    }
    if (model == NULL) return nnc_cli_usage_error("bounds", "MODEL is required");
    if ((specp != NULL) == (input != NULL))
        return nnc_cli_usage_error("bounds", "give the box either as --spec SPEC or as --input FILE --eps E");
    if (input && eps < 0) return nnc_cli_usage_error("bounds", "--input needs --eps E");
    if (specp && (eps >= 0 || clip_set))
        return nnc_cli_usage_error("bounds", "--eps and --clip make a box around --input; --spec brings its own");
    int method = strcmp(method_s, "ibp") == 0 ? 0 : strcmp(method_s, "crown") == 0 ? 1 : 2;
    if (json && nnc_cli_check_output(json) != EXIT_OK) return EXIT_CANTCREAT;
    char err[NNC_ERRBUF_SIZE], inner[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_status st = nnc_cli_load_unfolded(&m, model, err, sizeof err);
    if (st) return nnc_cli_fail(st, err);
    nnc_vrf_bounder *b = NULL;
    nnc_spec *spec = NULL;
    nnc_inputs in = {0};
    double *box = NULL, *olo = NULL, *ohi = NULL;
    int rc = EXIT_OK, nbox = 0;
    if ((st = nnc_vrf_bounder_create(&b, m, layer_s, inner, sizeof inner))) {
        nnc_err(err, sizeof err, st, "%s: %s", model, inner);
        rc = nnc_cli_fail(st, err);
        goto done;
    }
    int n_in = (int)nnc_vrf_bounder_num_inputs(b), n_out = (int)nnc_vrf_bounder_num_values(b);
    if (specp) {
        if ((st = nnc_spc_parse_file(&spec, specp, err, sizeof err))) {
            rc = nnc_cli_fail(st, err);
            goto done;
        }
        if (nnc_spc_num_inputs(spec) != n_in) {
            snprintf(err, sizeof err, "%s: %d inputs, the model has %d", specp, nnc_spc_num_inputs(spec), n_in);
            rc = nnc_cli_fail(NNC_STATUS_INVALID, err);
            goto done;
        }
        nbox = nnc_spc_num_cases(spec);
    } else {
        if ((st = nnc_mdl_read_inputs(m, input, &in, err, sizeof err))) {
            rc = nnc_cli_fail(st, err);
            goto done;
        }
        if (in.n != 1 || in.batch != 1) {
            rc = nnc_cli_fail(NNC_STATUS_INVALID, "bounds --input needs a model with one input and one sample");
            goto done;
        }
        /* the box as spec linf writes it: x -+ eps rounded outward, then
         * clipped (only the box is used: label and output count are
         * placeholders: the 2 outputs a robustness spec needs at least) */
        if ((st = nnc_spc_linf(&spec, in.data[0], n_in, 2, 0, eps, clip_lo, clip_hi, err, sizeof err))) {
            rc = nnc_cli_fail(st, err);
            goto done;
        }
        nbox = 1;
    }
    box = malloc(sizeof(double) * 2 * (size_t)n_in + 8);
    olo = malloc(sizeof(double) * (size_t)nbox * (size_t)n_out + 8);
    ohi = malloc(sizeof(double) * (size_t)nbox * (size_t)n_out + 8);
    if (!box || !olo || !ohi) {
        rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < nbox; k++) {
        memcpy(box, nnc_spc_case_lo(spec, k), sizeof(double) * (size_t)n_in);
        memcpy(box + n_in, nnc_spc_case_hi(spec, k), sizeof(double) * (size_t)n_in);
        double *kl = olo + (size_t)k * (size_t)n_out, *kh = ohi + (size_t)k * (size_t)n_out;
        if ((st = nnc_vrf_bounder_box(b, (nnc_vrf_bound_method)method, (int)iters, box, box + n_in, kl, kh))) {
            snprintf(err, sizeof err, "%s: bounding box %d failed (%s)", model, k, nnc_status_string(st));
            rc = nnc_cli_fail(st, err);
            goto done;
        }
        if (!json || strcmp(json, "-") != 0) {
            if (nbox > 1) printf("box %d\n", k);
            /* %.17g: the printed bounds are the sound doubles themselves */
            for (int j = 0; j < n_out; j++) printf("%s[%d]  [%.17g, %.17g]\n", layer_s ? layer_s : "y", j, kl[j], kh[j]);
        }
    }
    if (json) {
        bounds_out bo = {method_s, layer_s, nbox, n_out, olo, ohi};
        rc = nnc_cli_write_atomic(json, write_bounds, &bo);
    }
done:
    free(box); free(olo); free(ohi);
    if (input) nnc_inputs_clear(&in);
    nnc_spc_destroy(spec);
    nnc_vrf_bounder_destroy(b);
    nnc_mdl_destroy(m);
    return rc;
}
