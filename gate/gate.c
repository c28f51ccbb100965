/* The CI gate: configuration, running the checks, the JSON summary
 * (see nncert/gate.h; reports in gate/report.c, signatures in gate/attest.c). */
#include "gate/gate_impl.h"

#include "nncert/json.h"
#include "nncert/model.h"
#include "zk/circuit.h"
#include "nncert/prover.h"
#include "nncert/spec.h"
#include "nncert/verifier.h"

#include <errno.h>
#include <math.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *nnc_gate_status_name(nnc_gate_status s)
{
    return s == NNC_GATE_PASS ? "pass" : s == NNC_GATE_FAIL ? "fail" : s == NNC_GATE_ERROR ? "error" : "skipped";
}

void nnc_gate_opts_default(nnc_gate_opts *o)
{
    memset(o, 0, sizeof *o);
    o->tolerance = -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The fewest significant digits that read back as v, laid out as Python's
 * float repr does (fixed notation for exponents -4 .. 15, else d.ddde+XX),
 * so that Python's json module reproduces the text byte for byte (an
 * integral value reads back as an int and prints without ".0" there). */
void nnc_gate_fmt_num(char *buf, size_t len, double v)
{
    if (v == 0) v = 0; /* -0 -> 0 */
    int p;
    for (p = 1; p < 17; p++) {
        snprintf(buf, len, "%.*e", p - 1, v);
        if (strtod(buf, NULL) == v) break;
    }
    snprintf(buf, len, "%.*e", p - 1, v);
    int exp = atoi(strchr(buf, 'e') + 1);
    if (exp >= -4 && exp < 16) snprintf(buf, len, "%.*f", p - 1 - exp > 0 ? p - 1 - exp : 0, v);
}

/* ------------------------------------------------------------ configuration */

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static char *resolve(const char *base, const char *p)
{
    if (p[0] == '/' || base == NULL || strcmp(base, ".") == 0) return dup_str(p);
    size_t n = strlen(base) + strlen(p) + 2;
    char *r = malloc(n);
    if (r) snprintf(r, n, "%s/%s", base, p);
    return r;
}

static void check_free(gate_check *c)
{
    free(c->name);
    for (int k = 0; k < GATE_MAX_FILES; k++) {
        free(c->raw[k]);
        free(c->path[k]);
    }
    for (int k = 0; k < c->nopt; k++) {
        free(c->opt_key[k]);
        free(c->opt_val[k]);
    }
}

void nnc_gate_config_destroy(nnc_gate_config *cfg)
{
    if (cfg == NULL) return;
    for (int i = 0; i < cfg->n; i++) check_free(&cfg->checks[i]);
    free(cfg->checks);
    free(cfg->name);
    free(cfg->config_name);
    free(cfg->baseline);
    free(cfg);
}

int nnc_gate_config_num_checks(const nnc_gate_config *cfg) { return cfg->n; }

/* Member readers: *where names the object for messages ("checks[3]"). */
static nnc_status get_string(const char **out, const nnc_json *obj, const char *key, int required, const char *where,
                             char *err, size_t errlen)
{
    const nnc_json *v = nnc_json_get(obj, key);
    *out = NULL;
    if (v == NULL) {
        if (required) return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"%s\" is required", where, key);
        return NNC_STATUS_OK;
    }
    if (v->type != NNC_JSON_STRING || v->len == 0 || strlen(v->str) != v->len)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"%s\" must be a non-empty string", where, key);
    *out = v->str;
    return NNC_STATUS_OK;
}

static nnc_status get_number(double *out, const nnc_json *obj, const char *key, double lo, double hi, int open_lo,
                             int open_hi, const char *where, char *err, size_t errlen)
{
    const nnc_json *v = nnc_json_get(obj, key);
    if (v == NULL) return NNC_STATUS_OK; /* keep the default */
    double x = v->num;
    if (v->type != NNC_JSON_NUMBER || !isfinite(x) || x < lo || x > hi || (open_lo && x == lo) || (open_hi && x == hi))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"%s\" must be a number in %c%g, %g%c", where, key,
                       open_lo ? '(' : '[', lo, hi, open_hi ? ')' : ']');
    *out = x;
    return NNC_STATUS_OK;
}

static nnc_status get_uint(uint64_t *out, const nnc_json *obj, const char *key, uint64_t lo, uint64_t hi,
                           const char *where, char *err, size_t errlen)
{
    const nnc_json *v = nnc_json_get(obj, key);
    if (v == NULL) return NNC_STATUS_OK;
    int ok = v->type == NNC_JSON_NUMBER && v->len >= 1 && v->len <= 20;
    for (size_t i = 0; ok && i < v->len; i++) ok = v->str[i] >= '0' && v->str[i] <= '9';
    errno = 0;
    uint64_t x = ok ? strtoull(v->str, NULL, 10) : 0;
    if (errno == ERANGE) ok = 0;
    if (!ok || x < lo || x > hi)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"%s\" must be an integer in [%llu, %llu]", where, key,
                       (unsigned long long)lo, (unsigned long long)hi);
    *out = x;
    return NNC_STATUS_OK;
}

/* Refuse members not in allowed (a typo would otherwise silently keep a
 * default); a member given twice never gets here (nnc_json_parse refuses
 * it, naming it). */
static nnc_status only_members(const nnc_json *obj, const char *const *allowed, const char *where, char *err,
                               size_t errlen)
{
    for (const nnc_json *c = obj->child; c; c = c->next) {
        int ok = 0;
        for (int k = 0; allowed[k] && !ok; k++) ok = strcmp(c->key, allowed[k]) == 0;
        if (!ok) return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: unknown member \"%s\"", where, c->key);
    }
    return NNC_STATUS_OK;
}

static nnc_status parse_sweep(gate_check *c, const nnc_json *s, const char *where, char *err, size_t errlen)
{
    static const char *const allowed[] = {"eps", "points", "clip", NULL};
    char w[96];
    snprintf(w, sizeof w, "%s.sweep", where);
    if (s->type != NNC_JSON_OBJECT) return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s must be an object", w);
    nnc_status st = only_members(s, allowed, w, err, errlen);
    if (st) return st;
    const nnc_json *e = nnc_json_get(s, "eps"), *cl = nnc_json_get(s, "clip");
    if (e == NULL || e->type != NNC_JSON_ARRAY || e->len != 2 || e->child->type != NNC_JSON_NUMBER ||
        e->child->next->type != NNC_JSON_NUMBER || !(e->child->num >= 0) || !(e->child->next->num >= e->child->num) ||
        !isfinite(e->child->next->num))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"eps\" must be [LO, HI] with 0 <= LO <= HI", w);
    c->sweep_lo = e->child->num;
    c->sweep_hi = e->child->next->num;
    if (cl) {
        if (cl->type != NNC_JSON_ARRAY || cl->len != 2 || cl->child->type != NNC_JSON_NUMBER ||
            cl->child->next->type != NNC_JSON_NUMBER || !(cl->child->num <= cl->child->next->num))
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"clip\" must be [LO, HI] with LO <= HI", w);
        c->clip_lo = cl->child->num;
        c->clip_hi = cl->child->next->num;
    }
    uint64_t pts = 5;
    if ((st = get_uint(&pts, s, "points", 2, NNC_GATE_MAX_SWEEP, w, err, errlen))) return st;
    c->sweep_points = (int)pts;
    return NNC_STATUS_OK;
}

/* The verify options a check may name beyond the gate's own fields (the
 * command's names, '_' for '-'): read by parse_run_options, compared with
 * a baseline's by baseline_find. */
static const char *const gate_opt_keys[GATE_MAX_OPTS] = {"threads", "alpha_iters", "relu_split", "relu_split_batch",
                                                         "symbolic", "exact", "stop_on_counterexample", "device"};

/* The verify options beyond the gate's own fields, with the command's
 * names and values (nnc_vrf_opts_set: '_' for '-'): numbers, strings,
 * true/false for on/off. */
static nnc_status parse_run_options(gate_check *c, const nnc_json *o, const char *w, char *err, size_t errlen)
{
    const char *const *keys = gate_opt_keys;
    nnc_vrf_opts_default(&c->vopts);
    for (int k = 0; k < GATE_MAX_OPTS; k++) {
        const nnc_json *v = nnc_json_get(o, keys[k]);
        if (v == NULL) continue;
        char val[64], inner[NNC_ERRBUF_SIZE];
        if (v->type == NNC_JSON_NUMBER && isfinite(v->num)) nnc_gate_fmt_num(val, sizeof val, v->num);
        else if (v->type == NNC_JSON_STRING && strlen(v->str) < sizeof val) snprintf(val, sizeof val, "%s", v->str);
        else if (v->type == NNC_JSON_TRUE || v->type == NNC_JSON_FALSE) snprintf(val, sizeof val, "%s", v->type == NNC_JSON_TRUE ? "on" : "off");
        else return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"%s\" must be a number, a string or true/false", w, keys[k]);
        nnc_status st = nnc_vrf_opts_set(&c->vopts, keys[k], val, inner, sizeof inner);
        if (st) return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"%s\": %s", w, keys[k], inner);
        if ((c->opt_key[c->nopt] = dup_str(keys[k])) == NULL || (c->opt_val[c->nopt++] = dup_str(val)) == NULL)
            return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    return NNC_STATUS_OK;
}

static nnc_status parse_check(gate_check *c, const nnc_json *o, int idx, const nnc_gate_config *cfg, const char *base,
                              char *err, size_t errlen)
{
    static const char *const verify_keys[] = {"name", "type", "model", "spec", "max_violation", "confidence",
                                              "samples", "timeout", "seed", "max_leaves", "split", "bounds", "sweep",
                                              "threads", "alpha_iters", "relu_split", "relu_split_batch", "symbolic",
                                              "exact", "stop_on_counterexample", "device", "trace", "sample",
                                              "row", NULL};
    static const char *const groth16_keys[] = {"name", "type", "verification_key", "proving_key", "public", "proof",
                                               "model", "input", "bits", "calib", "ptau", "private", NULL};
    char w[64];
    snprintf(w, sizeof w, "checks[%d]", idx);
    if (o->type != NNC_JSON_OBJECT) return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s must be an object", w);
    const char *name, *type;
    nnc_status st;
    if ((st = get_string(&name, o, "name", 1, w, err, errlen)) || (st = get_string(&type, o, "type", 1, w, err, errlen)))
        return st;
    if (strlen(name) > 200) return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"name\" is longer than 200 bytes", w);
    for (const char *p = name; *p; p++)
        if ((unsigned char)*p < 0x20) return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"name\" has a control character", w);
    const char *const *keys, *files[3];
    static const char *const verify_files[] = {"model", "spec", NULL}, *const g16_files[] = {"verification_key", "public", "proof"};
    if (strcmp(type, "verify") == 0) {
        c->kind = GATE_VERIFY;
        keys = verify_keys;
        memcpy(files, verify_files, sizeof files);
    } else if (strcmp(type, "groth16") == 0) {
        c->kind = GATE_GROTH16;
        keys = groth16_keys;
        memcpy(files, g16_files, sizeof files);
    } else {
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"type\" must be \"verify\" or \"groth16\"", w);
    }
    if ((st = only_members(o, keys, w, err, errlen))) return st;
    if ((c->name = dup_str(name)) == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    if (c->kind == GATE_GROTH16) {
        /* the key: a verification key, or a proving key (which a model needs) */
        int has_vk = nnc_json_get(o, "verification_key") != NULL, has_zk = nnc_json_get(o, "proving_key") != NULL;
        if (has_vk == has_zk)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s needs one of \"verification_key\" and \"proving_key\"", w);
        c->zkey = has_zk;
        if (has_zk) files[0] = "proving_key";
    }
    for (int k = 0; k < 3 && files[k]; k++) {
        const char *p;
        if ((st = get_string(&p, o, files[k], 1, w, err, errlen))) return st;
        if ((c->raw[k] = dup_str(p)) == NULL || (c->path[k] = resolve(base, p)) == NULL)
            return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    if (c->kind == GATE_VERIFY) {
        /* a DLRM's ids from a trace sample, as verify --trace FILE --sample K */
        const char *p;
        if ((st = get_string(&p, o, "trace", 0, w, err, errlen))) return st;
        if (p && ((c->raw[2] = dup_str(p)) == NULL || (c->path[2] = resolve(base, p)) == NULL))
            return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        c->trace_sample = 1;
        if ((st = get_uint(&c->trace_sample, o, "sample", 1, UINT64_MAX, w, err, errlen))) return st;
        if (!p && nnc_json_get(o, "sample"))
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"sample\" picks a sample of \"trace\", which is not given", w);
        /* a sample of a model that declares a batch, as verify --row K */
        uint64_t row = UINT64_MAX;
        if ((st = get_uint(&row, o, "row", 0, INT32_MAX, w, err, errlen))) return st;
        c->row = row == UINT64_MAX ? -1 : (int64_t)row;
        if (p && c->row >= 0)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"row\" picks a sample of a declared batch; \"trace\" fixes a DLRM's ids", w);
    }
    if (c->kind == GATE_GROTH16) {
        /* a proof of inference: bound to a model (and an input), as
         * `nncert check --model M [--bits B] [--calib FILE] [--input FILE]` */
        static const char *const opt_files[] = {"model", "input", "calib", "ptau"};
        for (int k = 0; k < 4; k++) {
            const char *p;
            if ((st = get_string(&p, o, opt_files[k], 0, w, err, errlen))) return st;
            if (p && ((c->raw[3 + k] = dup_str(p)) == NULL || (c->path[3 + k] = resolve(base, p)) == NULL))
                return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        }
        uint64_t bits = 8;
        if ((st = get_uint(&bits, o, "bits", NNC_Q_MIN_BITS, NNC_Q_MAX_BITS, w, err, errlen))) return st;
        c->bits = (int)bits;
        const char *pv;
        if ((st = get_string(&pv, o, "private", 0, w, err, errlen))) return st;
        c->priv = NNC_PRV_ZK_PRIVATE_INPUT;
        if (pv && strcmp(pv, "input") == 0) c->priv = NNC_PRV_ZK_PRIVATE_INPUT;
        else if (pv && strcmp(pv, "weights") == 0) c->priv = NNC_PRV_ZK_PRIVATE_WEIGHTS;
        else if (pv && strcmp(pv, "both") == 0) c->priv = NNC_PRV_ZK_PRIVATE_BOTH;
        else if (pv) return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"private\" must be \"input\", \"weights\" or \"both\"", w);
        if (!c->raw[3] && (c->raw[4] || c->raw[5] || c->raw[6] || pv || nnc_json_get(o, "bits")))
            return nnc_err(err, errlen, NNC_STATUS_INVALID,
                           "%s: \"input\", \"bits\", \"calib\", \"ptau\" and \"private\" need \"model\"", w);
        if (c->raw[3] && (!c->zkey || !c->raw[6]))
            return nnc_err(err, errlen, NNC_STATUS_INVALID,
                           "%s: \"model\" needs \"proving_key\" and \"ptau\": a verification key alone cannot be tied to "
                           "the model (anyone can make one that accepts a false output)",
                           w);
    }
    c->max_violation = 0;
    c->confidence = 0.999;
    c->timeout_s = 60;
    c->samples = 10000;
    c->seed = cfg->seed;
    c->max_leaves = 200000;
    c->split = 1;
    c->crown = 1;
    c->clip_lo = -INFINITY;
    c->clip_hi = INFINITY;
    if (c->kind != GATE_VERIFY) return NNC_STATUS_OK;
    const nnc_json *sw = nnc_json_get(o, "sweep"), *split = nnc_json_get(o, "split");
    const char *bounds = NULL;
    if (split && split->type != NNC_JSON_TRUE && split->type != NNC_JSON_FALSE)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"split\" must be true or false", w);
    c->split = split == NULL || split->type == NNC_JSON_TRUE;
    if ((st = get_string(&bounds, o, "bounds", 0, w, err, errlen))) return st;
    if (bounds && strcmp(bounds, "crown") != 0 && strcmp(bounds, "interval") != 0)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: \"bounds\" must be \"crown\" or \"interval\"", w);
    c->crown = bounds == NULL || strcmp(bounds, "crown") == 0;
    if ((st = get_number(&c->max_violation, o, "max_violation", 0, 1, 0, 0, w, err, errlen)) ||
        (st = get_number(&c->confidence, o, "confidence", 0, 1, 1, 1, w, err, errlen)) ||
        (st = get_number(&c->timeout_s, o, "timeout", 0, 1e7, 0, 0, w, err, errlen)) ||
        (st = get_uint(&c->samples, o, "samples", 0, (uint64_t)1 << 40, w, err, errlen)) ||
        (st = get_uint(&c->seed, o, "seed", 0, UINT64_MAX, w, err, errlen)) ||
        (st = get_uint(&c->max_leaves, o, "max_leaves", 1, (uint64_t)1 << 40, w, err, errlen)) ||
        (sw && (st = parse_sweep(c, sw, w, err, errlen))))
        return st;
    if ((st = parse_run_options(c, o, w, err, errlen))) return st;
    /* the check's own fields with the other options, as the command refuses them */
    nnc_vrf_opts chk = c->vopts;
    chk.split = c->split;
    chk.crown = c->crown;
    char inner[NNC_ERRBUF_SIZE];
    if (nnc_vrf_opts_clash(&chk, inner, sizeof inner))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: %s (\"bounds\": \"interval\" is ibp, \"split\": false is "
                       "split off)", w, inner);
    return NNC_STATUS_OK;
}

nnc_status nnc_gate_config_parse(nnc_gate_config **out, const char *text, size_t len, const char *base_dir,
                                 const char *config_name, char *err, size_t errlen)
{
    static const char *const top_keys[] = {"name", "seed", "baseline", "tolerance", "checks", NULL};
    *out = NULL;
    nnc_json_doc *doc;
    char inner[NNC_ERRBUF_SIZE];
    nnc_status st = nnc_json_parse(&doc, text, len, inner, sizeof inner);
    if (st) return nnc_err(err, errlen, st, "%s: %s", config_name ? config_name : "config", inner);
    nnc_gate_config *cfg = calloc(1, sizeof *cfg);
    if (cfg == NULL) {
        nnc_json_doc_destroy(doc);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    /* hash of the exact bytes, for the attestation */
    if (sodium_init() < 0) abort(); /* only fails without a random source */
    crypto_hash_sha256(cfg->sha256, (const unsigned char *)text, (unsigned long long)len);
    cfg->seed = 1;
    const nnc_json *root = nnc_json_root(doc), *checks;
    const char *name = NULL, *baseline = NULL;
    if (root->type != NNC_JSON_OBJECT) {
        st = nnc_err(inner, sizeof inner, NNC_STATUS_INVALID, "the configuration must be a JSON object");
        goto done;
    }
    if ((st = only_members(root, top_keys, "config", inner, sizeof inner)) ||
        (st = get_string(&name, root, "name", 0, "config", inner, sizeof inner)) ||
        (st = get_string(&baseline, root, "baseline", 0, "config", inner, sizeof inner)) ||
        (st = get_uint(&cfg->seed, root, "seed", 0, UINT64_MAX, "config", inner, sizeof inner)) ||
        (st = get_number(&cfg->tolerance, root, "tolerance", 0, 1, 0, 0, "config", inner, sizeof inner)))
        goto done;
    checks = nnc_json_get(root, "checks");
    if (checks == NULL || checks->type != NNC_JSON_ARRAY || checks->len == 0) {
        st = nnc_err(inner, sizeof inner, NNC_STATUS_INVALID, "config: \"checks\" must be a non-empty array");
        goto done;
    }
    if (checks->len > NNC_GATE_MAX_CHECKS) {
        st = nnc_err(inner, sizeof inner, NNC_STATUS_LIMIT, "config: more than %d checks", NNC_GATE_MAX_CHECKS);
        goto done;
    }
    cfg->name = dup_str(name ? name : "nncert gate");
    cfg->config_name = dup_str(config_name ? config_name : "config");
    cfg->checks = calloc(checks->len, sizeof *cfg->checks);
    if (baseline) cfg->baseline = resolve(base_dir, baseline);
    if (!cfg->name || !cfg->config_name || !cfg->checks || (baseline && !cfg->baseline)) {
        st = nnc_err(inner, sizeof inner, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    int i = 0;
    for (const nnc_json *c = checks->child; c; c = c->next, i++) {
        cfg->n = i + 1;
        if ((st = parse_check(&cfg->checks[i], c, i, cfg, base_dir, inner, sizeof inner))) goto done;
        for (int j = 0; j < i; j++)
            if (strcmp(cfg->checks[j].name, cfg->checks[i].name) == 0) {
                st = nnc_err(inner, sizeof inner, NNC_STATUS_INVALID, "checks[%d]: the name \"%s\" is used twice", i,
                             cfg->checks[i].name);
                goto done;
            }
    }
done:
    nnc_json_doc_destroy(doc);
    if (st) {
        nnc_gate_config_destroy(cfg);
        return nnc_err(err, errlen, st, "%s: %s", config_name ? config_name : "config", inner);
    }
    *out = cfg;
    return NNC_STATUS_OK;
}

/* Whole file into memory, at most max bytes. */
static nnc_status slurp(char **out, size_t *len, const char *path, size_t max, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return nnc_err(err, errlen, NNC_STATUS_IO, "%s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    nnc_status st = NNC_STATUS_OK;
    while (b) {
        if (n + 1 >= cap) {
            if (cap > max) {
                st = nnc_err(err, errlen, NNC_STATUS_LIMIT, "%s: larger than %zu bytes", path, max);
                break;
            }
            char *q = realloc(b, cap * 2);
            if (q == NULL) break;
            b = q;
            cap *= 2;
        }
        size_t k = fread(b + n, 1, cap - 1 - n, f);
        n += k;
        if (k == 0) break;
    }
    if (b == NULL || (!st && n + 1 >= cap)) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    else if (!st && ferror(f)) st = nnc_err(err, errlen, NNC_STATUS_IO, "%s: read error", path);
    fclose(f);
    if (st) {
        free(b);
        return st;
    }
    b[n] = 0;
    *out = b;
    *len = n;
    return NNC_STATUS_OK;
}

nnc_status nnc_gate_config_read_file(nnc_gate_config **cfg, const char *path, char *err, size_t errlen)
{
    char *text;
    size_t len;
    *cfg = NULL;
    nnc_status st = slurp(&text, &len, path, (size_t)16 << 20, err, errlen);
    if (st) return st;
    char *dir = dup_str(path);
    if (dir == NULL) {
        free(text);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    char *slash = strrchr(dir, '/');
    if (slash == NULL) strcpy(dir, ".");
    else if (slash == dir) dir[1] = 0;
    else *slash = 0;
    st = nnc_gate_config_parse(cfg, text, len, dir, path, err, errlen);
    free(dir);
    free(text);
    return st;
}

/* ------------------------------------------------------------ running */

static void row_error(gate_row *r, nnc_status st, const char *msg)
{
    r->status = NNC_GATE_ERROR;
    r->error = st;
    snprintf(r->message, sizeof r->message, "%s", msg);
}

/* Hash every file of the row first: the attestation names what was checked
 * even when a later step fails. Returns 0 when all could be read. */
static int hash_files(gate_row *r, const gate_check *c, const char *const *roles, int n)
{
    char err[NNC_ERRBUF_SIZE];
    int bad = 0;
    r->nfiles = 0;
    for (int k = 0; k < n; k++) {
        if (c->raw[k] == NULL) continue; /* an optional file not given */
        gate_file *gf = &r->files[r->nfiles++];
        gf->role = roles[k];
        gf->path = c->raw[k];
        nnc_status st = nnc_gate_sha256_file(gf->sha256, c->path[k], err, sizeof err);
        gf->hashed = st == NNC_STATUS_OK;
        if (st && !bad) {
            row_error(r, st, err);
            bad = 1;
        }
    }
    return bad;
}

static void run_verify(gate_row *r, const gate_check *c)
{
    static const char *const roles[] = {"model", "spec", "trace"};
    if (hash_files(r, c, roles, 3)) return;
    char err[NNC_ERRBUF_SIZE], inner[NNC_ERRBUF_SIZE];
    nnc_model *m = NULL;
    nnc_spec *spec = NULL;
    /* as `nncert verify`: no BatchNormalization folding, so the bounds cover
     * the stored model rather than one with rounded folded weights */
    nnc_status st = nnc_vrf_load_model(&m, c->path[0], inner, sizeof inner);
    if (st) {
        row_error(r, st, inner);
        return;
    }
    if ((st = nnc_spc_parse_file(&spec, c->path[1], err, sizeof err))) {
        row_error(r, st, err);
        goto done;
    }
    /* a DLRM's ids from the trace's sample or fixed by the spec; a declared
     * batch's sample "row" (as verify) */
    if ((st = nnc_vrf_fit_spec(m, &spec, c->path[2], c->trace_sample, c->row, "\"row\"", err, sizeof err))) {
        row_error(r, st, err);
        goto done;
    }
    nnc_vrf_opts o = c->vopts; /* the defaults with the check's other options */
    o.samples = c->samples;
    o.confidence = c->confidence;
    o.timeout_s = c->timeout_s;
    o.seed = c->seed;
    o.max_leaves = c->max_leaves;
    o.max_violation = c->max_violation;
    o.split = c->split;
    o.crown = c->crown;
    nnc_vrf_report rep;
    if ((st = nnc_vrf_run(m, spec, &o, &rep, err, sizeof err))) {
        row_error(r, st, err);
        goto done;
    }
    r->has_report = 1;
    r->result = rep.result;
    r->lo = rep.violation_lo;
    r->hi = rep.violation_hi;
    r->confidence = rep.confidence;
    r->safe = rep.certified_safe_fraction;
    r->unsafe = rep.certified_unsafe_fraction;
    r->open = rep.open_fraction;
    r->samples = rep.samples;
    r->sample_violations = rep.sample_violations;
    r->leaves = rep.leaves;
    if (rep.has_counterexample && rep.cex_input && rep.cex_output) {
        r->cex_in = malloc(sizeof(double) * (size_t)rep.n_in + 1);
        r->cex_out = malloc(sizeof(double) * (size_t)rep.n_out + 1);
        if (r->cex_in && r->cex_out) {
            memcpy(r->cex_in, rep.cex_input, sizeof(double) * (size_t)rep.n_in);
            memcpy(r->cex_out, rep.cex_output, sizeof(double) * (size_t)rep.n_out);
            r->has_cex = 1;
            r->cex_case = rep.counterexample_case;
            r->n_in = rep.n_in;
            r->n_out = rep.n_out;
        }
    }
    if (rep.max_violation_met == 1) {
        r->status = NNC_GATE_PASS;
        snprintf(r->message, sizeof r->message, "violation fraction in [%.6g, %.6g] at confidence %g, <= %g%s", r->lo,
                 r->hi, r->confidence, c->max_violation,
                 rep.has_counterexample ? "; a validated counterexample exists (kept in the summary): the violating "
                                          "part is within the threshold, not empty"
                                        : "");
    } else {
        r->status = NNC_GATE_FAIL;
        if (rep.max_violation_met == 0)
            snprintf(r->message, sizeof r->message, "violation fraction in [%.6g, %.6g] at confidence %g exceeds %g%s",
                     r->lo, r->hi, r->confidence, c->max_violation, rep.has_counterexample ? " (validated counterexample)" : "");
        else
            snprintf(r->message, sizeof r->message,
                     "undecided: violation fraction in [%.6g, %.6g] at confidence %g straddles %g (more samples or a "
                     "larger budget may decide it)", r->lo, r->hi, r->confidence, c->max_violation);
    }
    nnc_vrf_report_clear(&rep);
    if (c->sweep_points == 0) goto done;
    /* the violation fraction against the L-inf radius around the box centre */
    if (nnc_spc_num_cases(spec) != 1) {
        row_error(r, NNC_STATUS_UNSUPPORTED, "sweep: needs a spec with one input box");
        goto done;
    }
    int ni = nnc_spc_num_inputs(spec), np = c->sweep_points;
    const double *lo0 = nnc_spc_case_lo(spec, 0), *hi0 = nnc_spc_case_hi(spec, 0);
    double *box = malloc(sizeof(double) * 2 * (size_t)ni);
    r->sweep = malloc(sizeof(double) * GATE_SWEEP_COLS * (size_t)np);
    if (box == NULL || r->sweep == NULL) {
        free(box);
        row_error(r, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    o.max_violation = -1;
    o.box_lo = box;
    o.box_hi = box + ni;
    for (int i = 0; i < np; i++) {
        double eps = c->sweep_lo + (c->sweep_hi - c->sweep_lo) * i / (np - 1), *s = r->sweep + GATE_SWEEP_COLS * i;
        for (int k = 0; k < ni; k++) {
            double mid = 0.5 * lo0[k] + 0.5 * hi0[k];
            box[k] = fmax(mid - eps, c->clip_lo);
            box[ni + k] = fmin(mid + eps, c->clip_hi);
            if (box[k] > box[ni + k]) box[k] = box[ni + k] = fmin(fmax(mid, c->clip_lo), c->clip_hi);
        }
        if ((st = nnc_vrf_run(m, spec, &o, &rep, err, sizeof err))) {
            nnc_err(inner, sizeof inner, st, "sweep at eps %g: %s", eps, err);
            row_error(r, st, inner);
            break;
        }
        s[0] = eps;
        s[1] = rep.violation_lo;
        s[2] = rep.violation_hi;
        s[3] = rep.certified_safe_fraction;
        s[4] = rep.certified_unsafe_fraction;
        s[5] = rep.open_fraction;
        s[6] = (double)rep.result;
        r->nsweep = i + 1;
        nnc_vrf_report_clear(&rep);
    }
    free(box);
done:
    nnc_spc_destroy(spec);
    nnc_mdl_destroy(m);
}

static void run_groth16(gate_row *r, const gate_check *c)
{
    static const char *const vk_roles[] = {"verification_key", "public", "proof", "model", "input", "calib", "ptau"};
    static const char *const zk_roles[] = {"proving_key", "public", "proof", "model", "input", "calib", "ptau"};
    if (hash_files(r, c, c->zkey ? zk_roles : vk_roles, GATE_MAX_FILES)) return;
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_g16_vk vk;
    nnc_prv_zkey z = {0};
    nnc_prv_fr_vec pub;
    nnc_prv_g16_proof proof;
    nnc_status st;
    if (c->zkey) {
        if ((st = nnc_prv_zkey_read_file(&z, c->path[0], c->raw[3] ? NNC_PRV_ZKEY_CHECK_SUBGROUP : 0, err, sizeof err)) == NNC_STATUS_OK &&
            (st = nnc_prv_g16_vk_from_zkey(&vk, &z)) != NNC_STATUS_OK)
            snprintf(err, sizeof err, "%s: cannot build the verification key", c->raw[0]);
    } else {
        st = nnc_prv_g16_vk_read_file(&vk, c->path[0], err, sizeof err);
    }
    if (st) {
        nnc_prv_zkey_clear(&z);
        row_error(r, st, err);
        return;
    }
    if ((st = nnc_prv_public_read_file(&pub, c->path[1], err, sizeof err))) {
        nnc_prv_g16_vk_clear(&vk);
        nnc_prv_zkey_clear(&z);
        row_error(r, st, err);
        return;
    }
    int valid = 0;
    if ((st = nnc_prv_g16_proof_read_file(&proof, c->path[2], err, sizeof err)) == NNC_STATUS_OK)
        st = nnc_prv_g16_verify(&valid, &vk, &pub, &proof, err, sizeof err);
    nnc_prv_g16_vk_clear(&vk);
    int bound = 1;
    uint32_t n_contrib = 0;
    char why[512] = "";
    if (!st && valid && c->raw[3])
        st = nnc_prv_zk_check_model(&pub, &z, c->path[6], c->path[3], c->bits, c->path[5], c->path[4], c->priv, &bound,
                                    &n_contrib, why, sizeof why, err, sizeof err);
    nnc_prv_zkey_clear(&z);
    nnc_prv_fr_vec_clear(&pub);
    if (st) {
        row_error(r, st, err);
        return;
    }
    r->status = valid && bound ? NNC_GATE_PASS : NNC_GATE_FAIL;
    if (!valid) snprintf(r->message, sizeof r->message, "the proof does not verify");
    else if (!bound) snprintf(r->message, sizeof r->message, "the proof verifies, but %s", why);
    else if (c->raw[3])
        snprintf(r->message, sizeof r->message,
                 "the proof verifies, for this model%s; the key is the model's circuit's from the powers of tau file, "
                 "through %u contribution%s",
                 c->raw[4] ? " and this input" : "", n_contrib, n_contrib == 1 ? "" : "s");
    else snprintf(r->message, sizeof r->message, "the proof verifies (for this key; not tied to a model)");
}

/* The baseline's verify check NAME with an upper violation bound: *hi that
 * bound; differ (len bytes) lists the settings of c that the baseline's run
 * had otherwise, "" when none.  Returns 0 when there is no such check. */
static int baseline_find(const nnc_json *checks, const char *name, const gate_check *c, double *hi, char *differ,
                         size_t len)
{
    for (const nnc_json *b = checks->child; b; b = b->next) {
        const nnc_json *n = nnc_json_get(b, "name"), *t = nnc_json_get(b, "type");
        const nnc_json *vf = nnc_json_get(b, "violation_fraction"), *u = vf ? nnc_json_get(vf, "upper") : NULL;
        if (!(n && t && n->type == NNC_JSON_STRING && t->type == NNC_JSON_STRING && strcmp(n->str, name) == 0 &&
              strcmp(t->str, "verify") == 0 && u && u->type == NNC_JSON_NUMBER))
            continue;
        *hi = u->num;
        /* the settings that widen or narrow an interval by themselves */
        const struct { const char *key; double now; } num[] = {
            {"samples", (double)c->samples}, {"confidence", c->confidence}, {"timeout_s", c->timeout_s},
            {"seed", (double)c->seed}, {"max_leaves", (double)c->max_leaves}};
        differ[0] = 0;
        for (size_t k = 0; k < sizeof num / sizeof *num; k++) {
            const nnc_json *v = nnc_json_get(b, num[k].key);
            if (v && v->type == NNC_JSON_NUMBER && v->num == num[k].now) continue;
            char was[40] = "absent", now[40];
            if (v && v->type == NNC_JSON_NUMBER) nnc_gate_fmt_num(was, sizeof was, v->num);
            nnc_gate_fmt_num(now, sizeof now, num[k].now);
            size_t at = strlen(differ);
            snprintf(differ + at, len - at, "%s%s %s (baseline %s)", at ? ", " : "", num[k].key, now, was);
        }
        /* the verify options beyond those (as strings; absent: the default) */
        const nnc_json *bo = nnc_json_get(b, "options");
        for (int k = 0; k < GATE_MAX_OPTS; k++) {
            const nnc_json *v = bo && bo->type == NNC_JSON_OBJECT ? nnc_json_get(bo, gate_opt_keys[k]) : NULL;
            const char *was = v && v->type == NNC_JSON_STRING ? v->str : NULL, *now = NULL;
            for (int q = 0; q < c->nopt; q++)
                if (strcmp(c->opt_key[q], gate_opt_keys[k]) == 0) now = c->opt_val[q];
            if ((was == NULL) != (now == NULL) || (was && strcmp(was, now) != 0)) {
                size_t at = strlen(differ);
                snprintf(differ + at, len - at, "%s%s %s (baseline %s)", at ? ", " : "", gate_opt_keys[k], now ? now : "default",
                         was ? was : "default");
            }
        }
        const nnc_json *bs = nnc_json_get(b, "sample");
        if ((bs != NULL) != (c->raw[2] != NULL) || (bs && (bs->type != NNC_JSON_NUMBER || bs->num != (double)c->trace_sample))) {
            size_t at = strlen(differ);
            snprintf(differ + at, len - at, "%strace sample", at ? ", " : "");
        }
        const nnc_json *sp = nnc_json_get(b, "split"), *bd = nnc_json_get(b, "bounds");
        if (!sp || (sp->type == NNC_JSON_TRUE) != (c->split != 0) ||
            !bd || bd->type != NNC_JSON_STRING || strcmp(bd->str, c->crown ? "crown" : "interval") != 0) {
            size_t at = strlen(differ);
            snprintf(differ + at, len - at, "%ssplit or bounds", at ? ", " : "");
        }
        return 1;
    }
    return 0;
}

void nnc_gate_run_destroy(nnc_gate_run *run)
{
    if (run == NULL) return;
    for (int i = 0; i < run->n; i++) {
        free(run->rows[i].name);
        free(run->rows[i].sweep);
        free(run->rows[i].cex_in);
        free(run->rows[i].cex_out);
    }
    free(run->rows);
    free(run->baseline_path);
    free(run);
}

nnc_status nnc_gate_run_checks(nnc_gate_run **out, const nnc_gate_config *cfg, const nnc_gate_opts *o, char *err,
                               size_t errlen)
{
    *out = NULL;
    const char *bpath = o && o->baseline ? o->baseline : cfg->baseline;
    nnc_json_doc *bdoc = NULL;
    const nnc_json *bchecks = NULL;
    nnc_gate_run *run = calloc(1, sizeof *run);
    if (run == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    run->cfg = cfg;
    run->started = time(NULL);
    run->tolerance = o && o->tolerance >= 0 ? o->tolerance : cfg->tolerance;
    nnc_status st = NNC_STATUS_OK;
    if (bpath) {
        /* read before running anything: a missing baseline is a setup error */
        char *text = NULL, inner[NNC_ERRBUF_SIZE];
        size_t len;
        if ((run->baseline_path = dup_str(bpath)) == NULL) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        else if ((st = slurp(&text, &len, bpath, (size_t)256 << 20, err, errlen)) == NNC_STATUS_OK) {
            if (sodium_init() < 0) abort();
            crypto_hash_sha256(run->baseline_sha256, (const unsigned char *)text, (unsigned long long)len);
            if ((st = nnc_json_parse(&bdoc, text, len, inner, sizeof inner)))
                nnc_err(err, errlen, st, "baseline %s: %s", bpath, inner);
            else if ((bchecks = nnc_json_get(nnc_json_root(bdoc), "checks")) == NULL || bchecks->type != NNC_JSON_ARRAY)
                st = nnc_err(err, errlen, NNC_STATUS_INVALID, "baseline %s: not an nncert gate summary (no \"checks\" array)", bpath);
        }
        free(text);
    }
    int nverify = 0;
    for (int i = 0; i < cfg->n; i++) nverify += cfg->checks[i].kind == GATE_VERIFY;
    int cap = cfg->n + (bchecks ? nverify : 0);
    if (!st && (run->rows = calloc((size_t)cap, sizeof *run->rows)) == NULL)
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int i = 0; i < cfg->n && !st; i++) {
        const gate_check *c = &cfg->checks[i];
        gate_row *r = &run->rows[run->n++];
        r->kind = c->kind;
        r->chk = c;
        if ((r->name = dup_str(c->name)) == NULL) {
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            break;
        }
        if (o && o->progress) o->progress(o->progress_ctx, i, cfg->n, c->name);
        double t0 = now_s();
        if (c->kind == GATE_VERIFY) run_verify(r, c);
        else run_groth16(r, c);
        r->time_s = now_s() - t0;
    }
    for (int i = 0, n0 = run->n; bchecks && i < n0 && !st; i++) {
        gate_row *v = &run->rows[i], *r = &run->rows[run->n];
        if (v->kind != GATE_VERIFY) continue;
        size_t nl = strlen(v->name) + 16;
        if ((r->name = malloc(nl)) == NULL) {
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            break;
        }
        run->n++;
        snprintf(r->name, nl, "%s [baseline]", v->name);
        r->kind = GATE_BASELINE;
        r->chk = v->chk;
        r->has_base = baseline_find(bchecks, v->name, v->chk, &r->base_hi, r->differ, sizeof r->differ);
        r->hi = v->hi;
        r->has_report = v->has_report;
        if (!v->has_report) {
            r->status = NNC_GATE_SKIPPED;
            snprintf(r->message, sizeof r->message, "the check did not run");
        } else if (!r->has_base) {
            r->status = NNC_GATE_SKIPPED;
            snprintf(r->message, sizeof r->message, "no verify check of this name in the baseline");
        } else if (r->differ[0] && v->hi > r->base_hi + run->tolerance) {
            /* a wider interval from other settings is not a regression of the model */
            r->status = NNC_GATE_SKIPPED;
            snprintf(r->message, sizeof r->message,
                     "not compared: the upper bound rose from %.6g to %.6g, but the run's settings differ from the "
                     "baseline's: %s", r->base_hi, v->hi, r->differ);
        } else if (v->hi > r->base_hi + run->tolerance) {
            r->status = NNC_GATE_FAIL;
            snprintf(r->message, sizeof r->message,
                     "regression: the violation fraction's upper bound rose from %.6g to %.6g (tolerance %g)", r->base_hi,
                     v->hi, run->tolerance);
        } else {
            r->status = NNC_GATE_PASS;
            snprintf(r->message, sizeof r->message, "upper bound %.6g, baseline %.6g (tolerance %g)%s%s", v->hi,
                     r->base_hi, run->tolerance, r->differ[0] ? "; settings differ from the baseline's: " : "",
                     r->differ);
        }
    }
    nnc_json_doc_destroy(bdoc);
    if (st) {
        nnc_gate_run_destroy(run);
        return st;
    }
    *out = run;
    return NNC_STATUS_OK;
}

int nnc_gate_run_num_results(const nnc_gate_run *run) { return run->n; }

void nnc_gate_run_result(const nnc_gate_run *run, int i, const char **name, nnc_gate_status *status, const char **message)
{
    *name = run->rows[i].name;
    *status = run->rows[i].status;
    *message = run->rows[i].message;
}

nnc_gate_status nnc_gate_run_overall(const nnc_gate_run *run)
{
    nnc_gate_status s = NNC_GATE_PASS;
    for (int i = 0; i < run->n; i++) {
        if (run->rows[i].status == NNC_GATE_ERROR) return NNC_GATE_ERROR;
        if (run->rows[i].status == NNC_GATE_FAIL) s = NNC_GATE_FAIL;
    }
    return s;
}

nnc_status nnc_gate_run_first_error(const nnc_gate_run *run)
{
    for (int i = 0; i < run->n; i++)
        if (run->rows[i].status == NNC_GATE_ERROR) return run->rows[i].error ? run->rows[i].error : NNC_STATUS_INVALID;
    return NNC_STATUS_OK;
}

/* ------------------------------------------------------------ summary */

static void hex32(FILE *f, const uint8_t *h)
{
    fputc('"', f);
    for (int i = 0; i < 32; i++) fprintf(f, "%02x", h[i]);
    fputc('"', f);
}

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void jnum(FILE *f, double v)
{
    if (isnan(v)) {
        fputs("null", f);
        return;
    }
    char b[40];
    nnc_gate_fmt_num(b, sizeof b, v);
    fputs(b, f);
}

/* ", "KEY": NUMBER */
static void jkv(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    jnum(f, v);
}

static void write_row(FILE *f, const nnc_gate_run *run, const gate_row *r)
{
    static const char *const kinds[] = {"verify", "groth16", "baseline"};
    const gate_check *c = r->chk;
    fputs("{\"name\": ", f);
    jstr(f, r->name);
    fprintf(f, ", \"type\": \"%s\", \"status\": \"%s\", \"message\": ", kinds[r->kind], nnc_gate_status_name(r->status));
    jstr(f, r->message);
    fputs(", \"time_s\": ", f);
    jnum(f, r->time_s);
    for (int k = 0; k < r->nfiles; k++) {
        fprintf(f, ", \"%s\": {\"path\": ", r->files[k].role);
        jstr(f, r->files[k].path);
        fputs(", \"sha256\": ", f);
        if (r->files[k].hashed) hex32(f, r->files[k].sha256);
        else fputs("null", f);
        fputc('}', f);
    }
    if (r->kind == GATE_VERIFY) {
        jkv(f, "max_violation", c->max_violation);
        jkv(f, "confidence", c->confidence);
        fprintf(f, ", \"samples\": %llu, \"seed\": %llu, \"max_leaves\": %llu", (unsigned long long)c->samples,
                (unsigned long long)c->seed, (unsigned long long)c->max_leaves);
        jkv(f, "timeout_s", c->timeout_s);
        fprintf(f, ", \"split\": %s, \"bounds\": \"%s\"", c->split ? "true" : "false", c->crown ? "crown" : "interval");
        if (c->raw[2]) fprintf(f, ", \"sample\": %llu", (unsigned long long)c->trace_sample);
        if (c->row >= 0) fprintf(f, ", \"row\": %lld", (long long)c->row);
        if (c->nopt) {
            fputs(", \"options\": {", f);
            for (int k = 0; k < c->nopt; k++) {
                fputs(k ? ", " : "", f);
                jstr(f, c->opt_key[k]);
                fputs(": ", f);
                jstr(f, c->opt_val[k]);
            }
            fputc('}', f);
        }
    }
    if (r->kind == GATE_VERIFY && r->has_report) {
        fprintf(f, ", \"result\": \"%s\", \"violation_fraction\": {\"lower\": ", nnc_vrf_result_name(r->result));
        jnum(f, r->lo);
        jkv(f, "upper", r->hi);
        fputc('}', f);
        jkv(f, "certified_safe_fraction", r->safe);
        jkv(f, "certified_unsafe_fraction", r->unsafe);
        jkv(f, "open_fraction", r->open);
        fprintf(f, ", \"sample_violations\": %llu, \"leaves\": %llu", (unsigned long long)r->sample_violations,
                (unsigned long long)r->leaves);
        fputs(", \"counterexample\": ", f);
        if (r->has_cex) {
            fprintf(f, "{\"case\": %d, \"input\": [", r->cex_case);
            for (int i = 0; i < r->n_in; i++) {
                fputs(i ? ", " : "", f);
                jnum(f, r->cex_in[i]);
            }
            fputs("], \"output\": [", f);
            for (int i = 0; i < r->n_out; i++) {
                fputs(i ? ", " : "", f);
                jnum(f, r->cex_out[i]);
            }
            fputs("]}", f);
        } else {
            fputs("null", f);
        }
        if (r->nsweep) {
            fputs(", \"sweep\": [", f);
            for (int i = 0; i < r->nsweep; i++) {
                static const char *const keys[] = {"eps", "lower", "upper", "safe", "unsafe", "open"};
                const double *sw = r->sweep + GATE_SWEEP_COLS * i;
                fputs(i ? ", {" : "{", f);
                for (int k = 0; k < 6; k++) {
                    fprintf(f, "%s\"%s\": ", k ? ", " : "", keys[k]);
                    jnum(f, sw[k]);
                }
                fprintf(f, ", \"result\": \"%s\"}", nnc_vrf_result_name((nnc_vrf_result)sw[6]));
            }
            fputc(']', f);
        }
    }
    if (r->kind == GATE_BASELINE) {
        fputs(", \"check\": ", f);
        jstr(f, c->name);
        jkv(f, "upper", r->has_report ? r->hi : NAN); /* NAN: null */
        jkv(f, "baseline_upper", r->has_base ? r->base_hi : NAN);
        jkv(f, "tolerance", run->tolerance);
        if (r->has_base) {
            fputs(", \"settings_differ\": ", f);
            jstr(f, r->differ);
        }
    }
    fputc('}', f);
}

static nnc_status summary_text(FILE *f, const nnc_gate_run *run)
{
    const nnc_gate_config *cfg = run->cfg;
    int cnt[4] = {0};
    for (int i = 0; i < run->n; i++) cnt[run->rows[i].status]++;
    fputs("{\n  \"format\": \"nncert-gate-summary-1\",\n  \"nncert_version\": ", f);
    jstr(f, NNC_VERSION_STRING);
    fputs(",\n  \"name\": ", f);
    jstr(f, cfg->name);
    fputs(",\n  \"config\": {\"path\": ", f);
    jstr(f, cfg->config_name);
    fputs(", \"sha256\": ", f);
    hex32(f, cfg->sha256);
    fprintf(f, "},\n  \"seed\": %llu,\n  \"baseline\": ", (unsigned long long)cfg->seed);
    if (run->baseline_path) {
        fputs("{\"path\": ", f);
        jstr(f, run->baseline_path);
        fputs(", \"sha256\": ", f);
        hex32(f, run->baseline_sha256);
        jkv(f, "tolerance", run->tolerance);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fprintf(f, ",\n  \"passed\": %s,\n  \"counts\": {\"tests\": %d, \"passed\": %d, \"failures\": %d, \"errors\": %d, "
               "\"skipped\": %d},\n  \"checks\": [\n",
            nnc_gate_run_overall(run) == NNC_GATE_PASS ? "true" : "false", run->n, cnt[0], cnt[1], cnt[2], cnt[3]);
    for (int i = 0; i < run->n; i++) {
        fputs("    ", f);
        write_row(f, run, &run->rows[i]);
        fputs(i + 1 < run->n ? ",\n" : "\n", f);
    }
    fputs("  ]\n}\n", f);
    return NNC_STATUS_OK;
}

nnc_status nnc_gate_write_summary(FILE *f, const nnc_gate_run *run, const uint8_t *sk, char *err, size_t errlen)
{
    if (sk == NULL) {
        summary_text(f, run);
        return ferror(f) ? nnc_err(err, errlen, NNC_STATUS_IO, "writing the summary failed") : NNC_STATUS_OK;
    }
    char *text = NULL, *signed_text = NULL;
    size_t len = 0, slen = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    summary_text(m, run);
    if (fclose(m) != 0 || text == NULL) {
        free(text);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    nnc_status st = nnc_gate_attest_sign(&signed_text, &slen, text, len, sk, err, errlen);
    free(text);
    if (st) return st;
    fwrite(signed_text, 1, slen, f);
    free(signed_text);
    return ferror(f) ? nnc_err(err, errlen, NNC_STATUS_IO, "writing the summary failed") : NNC_STATUS_OK;
}
