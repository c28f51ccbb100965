/* nncert gate, keygen and attest: the CI safety gate and its signed
 * attestations (library: nncert/gate.h). */
#include "cli/cli.h"
#include "nncert/gate.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* gate: G_JUNIT..G_HTML name the report files, in the order of the writers
 * in nnc_cmd_gate */
enum { G_OUT_DIR, G_JUNIT, G_SUMMARY, G_MARKDOWN, G_HTML, G_SIGN, G_BASELINE, G_TOLERANCE };
static const nnc_cli_opt gate_opts[] = {
    [G_OUT_DIR] = {"--out-dir", "DIR", "write DIR/junit.xml, DIR/summary.json, DIR/summary.md\n"
                                       "and DIR/report.html (DIR is created)"},
    [G_JUNIT] = {"--junit", "FILE", "JUnit XML, one testcase per check"},
    [G_SUMMARY] = {"--summary", "FILE", "JSON summary: results and the SHA-256 of the config and\n"
                                        "of every model, spec, key and proof file (attestation)"},
    [G_MARKDOWN] = {"--markdown", "FILE", "Markdown summary (e.g. for $GITHUB_STEP_SUMMARY)"},
    [G_HTML] = {"--html", "FILE", "HTML report with SVG figures"},
    [G_SIGN] = {"--sign", "SECKEY", "sign the summary with this Ed25519 key (nncert keygen)"},
    [G_BASELINE] = {"--baseline", "SUMMARY", "compare with this earlier summary (overrides CONFIG)"},
    [G_TOLERANCE] = {"--tolerance", "T", "allowed rise of the violation upper bound (default:\n"
                                         "CONFIG's, else 0)"},
};
static const nnc_cli_doc gate_doc = NNC_CLI_DOC(
    "gate",
    "usage: nncert gate CONFIG [--out-dir DIR] [--junit FILE] [--summary FILE] [--markdown FILE]\n"
    "                   [--html FILE] [--sign SECKEY] [--baseline SUMMARY] [--tolerance T]\n",
    "Run the checks CONFIG (JSON; schema in README.md) lists: verify a model\n"
    "against a spec with a maximum violation fraction at a confidence, check\n"
    "Groth16 proofs, and compare each verify check with a baseline summary so\n"
    "that a rise of the violation bound fails the gate.  Relative paths in\n"
    "CONFIG are taken from CONFIG's folder.\n",
    gate_opts,
    "Outputs are written atomically.  Exit codes: 0 every check passed, 1 some\n"
    "check failed, 64 usage, 65 bad config or input data, 66 unreadable input,\n"
    "69 unsupported feature, 73 cannot write an output.\n");

enum { K_FORCE };
static const nnc_cli_opt keygen_opts[] = {
    [K_FORCE] = {"--force", NULL, "overwrite existing files"},
};
static const nnc_cli_doc keygen_doc = NNC_CLI_DOC(
    "keygen",
    "usage: nncert keygen PUBKEY SECKEY [--force]\n",
    "Make an Ed25519 key pair for signing gate summaries.  SECKEY is created with\n"
    "mode 0600; existing files are not overwritten unless --force is given.\n",
    keygen_opts, "");

static const nnc_cli_doc attest_doc = {
    "attest",
    "usage: nncert attest verify SUMMARY PUBKEY\n",
    "Check the Ed25519 signature of a gate summary (nncert gate --sign) against\n"
    "PUBKEY.  Exit codes: 0 valid, 1 invalid (edited content, another key, no\n"
    "signature), 65 not JSON or a malformed key, 66 unreadable file.\n",
    NULL, 0, ""};

/* Writers for the atomic helper. */
typedef struct gate_out {
    const nnc_gate_run *run;
    const uint8_t *sk;
} gate_out;

static nnc_status w_summary(FILE *f, const void *a, char *err, size_t errlen)
{
    const gate_out *g = a;
    return nnc_gate_write_summary(f, g->run, g->sk, err, errlen);
}
static nnc_status w_junit(FILE *f, const void *a, char *err, size_t errlen)
{
    return nnc_gate_write_junit(f, ((const gate_out *)a)->run, err, errlen);
}
static nnc_status w_markdown(FILE *f, const void *a, char *err, size_t errlen)
{
    return nnc_gate_write_markdown(f, ((const gate_out *)a)->run, err, errlen);
}
static nnc_status w_html(FILE *f, const void *a, char *err, size_t errlen)
{
    return nnc_gate_write_html(f, ((const gate_out *)a)->run, err, errlen);
}

static void gate_progress(void *ctx, int i, int n, const char *name)
{
    (void)ctx;
    fprintf(stderr, "\r\033[K  check %d/%d: %s", i + 1, n, name);
    fflush(stderr);
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

int nnc_cmd_gate(int argc, char **argv)
{
    const char *config = NULL, *outdir = NULL, *sign = NULL;
    const char *path[4] = {NULL, NULL, NULL, NULL}; /* junit, summary, markdown, html */
    static const char *const deflt[4] = {"junit.xml", "summary.json", "summary.md", "report.html"};
    nnc_gate_opts o;
    nnc_gate_opts_default(&o);
    const char *v;
    int k, rc0;
    for (int i = 0; (k = nnc_cli_getopt(&gate_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG:
            if ((rc0 = nnc_cli_one_positional(&gate_doc, v, &config, "CONFIG")) != EXIT_OK) return rc0;
            break;
        case G_JUNIT: case G_SUMMARY: case G_MARKDOWN: case G_HTML: path[k - G_JUNIT] = v; break;
        case G_OUT_DIR: outdir = v; break;
        case G_SIGN: sign = v; break;
        case G_BASELINE: o.baseline = v; break;
        case G_TOLERANCE:
            if (nnc_cli_parse_double(v, &o.tolerance) || o.tolerance < 0 || o.tolerance > 1)
                return nnc_cli_usage_error("gate", "--tolerance must be a number in [0, 1]");
            break;
        }
    }
    if (config == NULL) return nnc_cli_usage_error("gate", "CONFIG is required");
    char err[NNC_ERRBUF_SIZE];
    uint8_t sk[NNC_GATE_SECRETKEYBYTES];
    nnc_status st;
    /* read the key first: a bad key must not cost a full run */
    if (sign && (st = nnc_gate_key_read_file(sk, sign, 1, err, sizeof err))) return nnc_cli_fail(st, err);
    nnc_gate_config *cfg;
    if ((st = nnc_gate_config_read_file(&cfg, config, err, sizeof err))) {
        sodium_memzero(sk, sizeof sk);
        return nnc_cli_fail(st, err);
    }
    char *owned[4] = {NULL, NULL, NULL, NULL};
    int rc = EXIT_OK;
    if (outdir) {
        if (mkdir(outdir, 0777) != 0 && access(outdir, W_OK) != 0) {
            fprintf(stderr, "nncert: error: cannot create %s\n", outdir);
            rc = EXIT_CANTCREAT;
        }
        for (int k = 0; k < 4 && rc == EXIT_OK; k++)
            if (path[k] == NULL) {
                if ((owned[k] = join(outdir, deflt[k])) == NULL) rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
                path[k] = owned[k];
            }
    }
    nnc_gate_run *run = NULL;
    if (rc == EXIT_OK) {
        if (isatty(2)) o.progress = gate_progress;
        st = nnc_gate_run_checks(&run, cfg, &o, err, sizeof err);
        if (o.progress) fputs("\r\033[K", stderr);
        if (st) rc = nnc_cli_fail(st, err);
    }
    if (run) {
        for (int i = 0; i < nnc_gate_run_num_results(run); i++) {
            const char *name, *msg;
            nnc_gate_status s;
            nnc_gate_run_result(run, i, &name, &s, &msg);
            printf("%-7s %s: %s\n", nnc_gate_status_name(s), name, msg);
        }
        gate_out g = {run, sign ? sk : NULL};
        nnc_status (*const fns[4])(FILE *, const void *, char *, size_t) = {w_junit, w_summary, w_markdown, w_html};
        for (int k = 0; k < 4; k++) {
            if (path[k] == NULL) continue;
            if ((st = nnc_gate_write_atomic(path[k], 0644, fns[k], &g, err, sizeof err))) {
                rc = st == NNC_STATUS_IO ? (fprintf(stderr, "nncert: error: %s\n", err), EXIT_CANTCREAT) : nnc_cli_fail(st, err);
                break;
            }
        }
        nnc_gate_status all = nnc_gate_run_overall(run);
        printf("gate %s\n", all == NNC_GATE_PASS ? "passed" : all == NNC_GATE_FAIL ? "FAILED" : "ERROR (a check could not run)");
        if (rc == EXIT_OK && all == NNC_GATE_FAIL) rc = EXIT_FAILED;
        if (rc == EXIT_OK && all == NNC_GATE_ERROR) rc = nnc_cli_exit_code(nnc_gate_run_first_error(run));
        nnc_gate_run_destroy(run);
    }
    for (int k = 0; k < 4; k++) free(owned[k]);
    nnc_gate_config_destroy(cfg);
    sodium_memzero(sk, sizeof sk);
    return rc;
}

int nnc_cmd_keygen(int argc, char **argv)
{
    const char *pos[2];
    int np = 0, force = 0;
    const char *v;
    int k, rc0;
    for (int i = 0; (k = nnc_cli_getopt(&keygen_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        if (k == NNC_CLI_EXIT) return rc0;
        if (k == K_FORCE) force = 1;
        else if (v[0] == '-') return nnc_cli_unknown_option("keygen", v);
        else if (np < 2) pos[np++] = v;
        else return nnc_cli_usage_error("keygen", "too many arguments");
    }
    if (np != 2) return nnc_cli_usage_error("keygen", "PUBKEY and SECKEY are required");
    if (strcmp(pos[0], pos[1]) == 0) return nnc_cli_usage_error("keygen", "PUBKEY and SECKEY must differ");
    uint8_t pk[NNC_GATE_PUBLICKEYBYTES], sk[NNC_GATE_SECRETKEYBYTES];
    char err[NNC_ERRBUF_SIZE];
    nnc_gate_keygen(pk, sk);
    /* secret first: a public key without its secret half is useless */
    nnc_status st = nnc_gate_key_write_file(pos[1], sk, 1, force, err, sizeof err);
    if (!st) st = nnc_gate_key_write_file(pos[0], pk, 0, force, err, sizeof err);
    sodium_memzero(sk, sizeof sk);
    if (st) {
        fprintf(stderr, "nncert: error: %s\n", err);
        return EXIT_CANTCREAT;
    }
    return EXIT_OK;
}

int nnc_cmd_attest(int argc, char **argv)
{
    const char *v;
    int rc0;
    for (int i = 0; i < argc;)
        if (nnc_cli_getopt(&attest_doc, argc, argv, &i, &v, &rc0) == NNC_CLI_EXIT) return rc0;
    if (argc < 1 || strcmp(argv[0], "verify") != 0) return nnc_cli_usage_error("attest", "unknown subcommand (verify)");
    if (argc != 3) return nnc_cli_usage_error("attest", "verify takes SUMMARY PUBKEY");
    char err[NNC_ERRBUF_SIZE];
    uint8_t pk[NNC_GATE_PUBLICKEYBYTES];
    nnc_status st = nnc_gate_key_read_file(pk, argv[2], 0, err, sizeof err);
    if (st) return nnc_cli_fail(st, err);
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        snprintf(err, sizeof err, "%s: cannot open", argv[1]);
        return nnc_cli_fail(NNC_STATUS_IO, err);
    }
    size_t cap = 1 << 16, n = 0, k;
    char *text = malloc(cap);
    while (text && (k = fread(text + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            char *q = cap < ((size_t)256 << 20) ? realloc(text, cap * 2) : NULL;
            if (q == NULL) {
                free(text);
                text = NULL;
            }
            text = q;
            cap *= 2;
        }
    }
    fclose(f);
    if (text == NULL) return nnc_cli_fail(NNC_STATUS_LIMIT, "the summary is too large (256 MiB at most)");
    int valid = 0;
    st = nnc_gate_attest_verify(&valid, text, n, pk, err, sizeof err);
    free(text);
    if (st) {
        char msg[NNC_ERRBUF_SIZE + 64];
        snprintf(msg, sizeof msg, "%s: %s", argv[1], err);
        return nnc_cli_fail(st, msg);
    }
    if (valid) printf("OK: the summary is signed by this key and unchanged\n");
    else printf("INVALID: %s\n", err);
    return valid ? EXIT_OK : EXIT_FAILED;
}
