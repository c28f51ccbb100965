/* gate module tests: number layout, canonical JSON, Ed25519 attestations
 * (every single-byte edit of a signed summary is rejected), key files,
 * configuration validation, and the JUnit/Markdown/HTML writers on a run
 * whose names need escaping. */
#include "gate/gate_impl.h"

#include "nncert/json.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char *canon_of(const char *text, const char *skip)
{
    nnc_json_doc *d;
    char err[NNC_ERRBUF_SIZE], *out = NULL;
    size_t n;
    ck_assert_msg(nnc_json_parse(&d, text, strlen(text), err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_status st = nnc_gate_canonical_json(&out, &n, nnc_json_root(d), skip, err, sizeof err);
    nnc_json_doc_destroy(d);
    if (st) return NULL;
    ck_assert_uint_eq(n, strlen(out));
    return out;
}

START_TEST(test_fmt_num)
{
    /* the text Python's repr gives (an integral value as an int) */
    static const struct { double v; const char *want; } cases[] = {
        {0, "0"}, {-0.0, "0"}, {1, "1"}, {60, "60"}, {0.5, "0.5"}, {0.001, "0.001"}, {1e-4, "0.0001"},
        {1e-5, "1e-05"}, {0.003793238654902116, "0.003793238654902116"}, {123456.5, "123456.5"},
        {1e16, "1e+16"}, {1.5e16, "1.5e+16"}, {0.1 + 0.2, "0.30000000000000004"}, {-2.5, "-2.5"},
        {1e300, "1e+300"}, {5e-324, "5e-324"}, {1234567890123456.0, "1234567890123456"}};
    char buf[40];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nnc_gate_fmt_num(buf, sizeof buf, cases[i].v);
        ck_assert_msg(strcmp(buf, cases[i].want) == 0, "%.17g -> %s, want %s", cases[i].v, buf, cases[i].want);
    }
    /* round trip on pseudo-random doubles (random bit patterns, a fixed stream) */
    rng r = rng_for(1);
    for (int i = 0; i < 20000; i++) {
        uint64_t x = rng_next(&r);
        double v;
        memcpy(&v, &x, sizeof v);
        if (!isfinite(v)) continue;
        nnc_gate_fmt_num(buf, sizeof buf, v);
        ck_assert_msg(strtod(buf, NULL) == v, "%.17g -> %s", v, buf);
    }
}
END_TEST

START_TEST(test_canonical)
{
    char *c = canon_of("{ \"b\" : [1, 2.50, {\"z\":null, \"a\":true}], \"a\": \"x\\ty\\u0001\\\"\\\\\\/\\u00e9\" }", NULL);
    ck_assert_str_eq(c, "{\"a\":\"x\\ty\\u0001\\\"\\\\/\xc3\xa9\",\"b\":[1,2.50,{\"a\":true,\"z\":null}]}");
    free(c);
    c = canon_of("{\"signature\": 1, \"k\": {\"signature\": 2}}", "signature");
    ck_assert_str_eq(c, "{\"k\":{\"signature\":2}}"); /* only the top-level member is left out */
    free(c);
    /* duplicates are ambiguous: the reader refuses them before canonicalisation */
    static const char *const dups[] = {"{\"a\": 1, \"a\": 2}", "[{\"x\": {\"a\": 1, \"a\": 1}}]"};
    for (size_t k = 0; k < 2; k++) {
        nnc_json_doc *d;
        char err[NNC_ERRBUF_SIZE];
        ck_assert_int_eq(nnc_json_parse(&d, dups[k], strlen(dups[k]), err, sizeof err), NNC_STATUS_PARSE);
    }
    c = canon_of("{}", NULL);
    ck_assert_str_eq(c, "{}");
    free(c);
}
END_TEST

static const char summary[] =
    "{\n  \"format\": \"nncert-gate-summary-1\",\n  \"passed\": true,\n  \"seed\": 7,\n"
    "  \"checks\": [{\"name\": \"a\", \"status\": \"pass\", \"violation_fraction\": {\"lower\": 0, \"upper\": 0.00379}}]\n}\n";

START_TEST(test_sign_verify_every_byte)
{
    uint8_t pk[32], sk[64], pk2[32], sk2[64];
    nnc_gate_keygen(pk, sk);
    nnc_gate_keygen(pk2, sk2);
    char *s, err[NNC_ERRBUF_SIZE];
    size_t n;
    ck_assert_int_eq(nnc_gate_attest_sign(&s, &n, summary, strlen(summary), sk, err, sizeof err), NNC_STATUS_OK);
    int valid = 0;
    ck_assert_int_eq(nnc_gate_attest_verify(&valid, s, n, pk, err, sizeof err), NNC_STATUS_OK);
    ck_assert_msg(valid == 1, "%s", err);
    ck_assert_int_eq(nnc_gate_attest_verify(&valid, s, n, pk2, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(valid, 0);
    /* re-signing replaces the signature: still one member, valid under the new key */
    char *s2;
    size_t n2;
    ck_assert_int_eq(nnc_gate_attest_sign(&s2, &n2, s, n, sk2, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_gate_attest_verify(&valid, s2, n2, pk2, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(valid, 1);
    ck_assert_ptr_eq(strstr(strstr(s2, "\"signature\"") + 1, "\"signature\""), NULL);
    free(s2);
    /* any byte replaced by a non-space character it is not: rejected, either
     * as not JSON or as not matching the signature */
    char *t = malloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        memcpy(t, s, n + 1);
        t[i] = t[i] == 'X' ? 'Y' : 'X';
        valid = -1;
        nnc_status st = nnc_gate_attest_verify(&valid, t, n, pk, err, sizeof err);
        ck_assert_msg(st != NNC_STATUS_OK || valid == 0, "edit at byte %zu accepted", i);
    }
    /* a digit changed inside the signed numbers, keeping valid JSON */
    memcpy(t, s, n + 1);
    char *u = strstr(t, "0.00379");
    ck_assert_ptr_nonnull(u);
    u[6] = '8';
    ck_assert_int_eq(nnc_gate_attest_verify(&valid, t, n, pk, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(valid, 0);
    /* a second signature member: refused as JSON (two members of one name,
     * which readers resolve differently), naming it */
    char *dup = malloc(n + 64);
    snprintf(dup, n + 64, "{\"signature\": {}, %s", s + 1);
    valid = -1;
    ck_assert_int_eq(nnc_gate_attest_verify(&valid, dup, strlen(dup), pk, err, sizeof err), NNC_STATUS_PARSE);
    ck_assert_ptr_nonnull(strstr(err, "\"signature\" twice"));
    ck_assert_int_ne(valid, 1);
    free(dup);
    /* unsigned */
    ck_assert_int_eq(nnc_gate_attest_verify(&valid, summary, strlen(summary), pk, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(valid, 0);
    ck_assert_int_eq(nnc_gate_attest_verify(&valid, "[1]", 3, pk, err, sizeof err), NNC_STATUS_PARSE);
    free(t);
    free(s);
}
END_TEST

START_TEST(test_key_files)
{
    char dir[] = "/tmp/nncert_gate_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char pub[64], sec[64];
    snprintf(pub, sizeof pub, "%s/k.pub", dir);
    snprintf(sec, sizeof sec, "%s/k.sec", dir);
    uint8_t pk[32], sk[64], rk[64];
    nnc_gate_keygen(pk, sk);
    char err[NNC_ERRBUF_SIZE];
    ck_assert_int_eq(nnc_gate_key_write_file(sec, sk, 1, 0, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_gate_key_write_file(pub, pk, 0, 0, err, sizeof err), NNC_STATUS_OK);
    struct stat sb;
    ck_assert_int_eq(stat(sec, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 0777, 0600);
    ck_assert_int_eq(nnc_gate_key_write_file(sec, sk, 1, 0, err, sizeof err), NNC_STATUS_IO); /* no overwrite */
    ck_assert_int_eq(nnc_gate_key_read_file(rk, sec, 1, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(memcmp(rk, sk, 64), 0);
    ck_assert_int_eq(nnc_gate_key_read_file(rk, pub, 0, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(memcmp(rk, pk, 32), 0);
    ck_assert_int_eq(nnc_gate_key_read_file(rk, pub, 1, err, sizeof err), NNC_STATUS_INVALID); /* wrong kind */
    ck_assert_int_eq(nnc_gate_key_read_file(rk, sec, 0, err, sizeof err), NNC_STATUS_INVALID);
    /* a secret key whose public half was swapped for another key's */
    uint8_t pk2[32], sk2[64];
    nnc_gate_keygen(pk2, sk2);
    memcpy(sk + 32, pk2, 32);
    ck_assert_int_eq(nnc_gate_key_write_file(sec, sk, 1, 1, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_gate_key_read_file(rk, sec, 1, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert_ptr_nonnull(strstr(err, "does not match"));
    ck_assert_int_eq(nnc_gate_key_read_file(rk, "/nonexistent/k", 1, err, sizeof err), NNC_STATUS_IO);
    /* no temporary files left beside the keys */
    char cmd[128];
    snprintf(cmd, sizeof cmd, "test $(ls %s | wc -l) -eq 2", dir);
    ck_assert_int_eq(system(cmd), 0);
    unlink(pub);
    unlink(sec);
    rmdir(dir);
}
END_TEST

START_TEST(test_config_errors)
{
    static const struct { const char *text, *msg; } bad[] = {
        {"[]", "must be a JSON object"},
        {"{}", "\"checks\" must be a non-empty array"},
        {"{\"checks\": [], \"x\": 1}", "unknown member \"x\""},
        {"{\"checks\": [1]}", "checks[0] must be an object"},
        {"{\"checks\": [{\"type\": \"verify\"}]}", "\"name\" is required"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"prove\"}]}", "\"type\" must be"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"verify\", \"model\": \"m\"}]}", "\"spec\" is required"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"verify\", \"model\": \"m\", \"spec\": \"s\", \"samples\": -1}]}", "\"samples\" must be an integer"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"verify\", \"model\": \"m\", \"spec\": \"s\", \"samples\": 1.5}]}", "\"samples\" must be an integer"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"verify\", \"model\": \"m\", \"spec\": \"s\", \"max_violation\": 2}]}", "\"max_violation\" must be"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"verify\", \"model\": \"m\", \"spec\": \"s\", \"confidence\": 0}]}", "\"confidence\" must be"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"verify\", \"model\": \"m\", \"spec\": \"s\", \"split\": 1}]}", "\"split\" must be"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"verify\", \"model\": \"m\", \"spec\": \"s\", \"bounds\": \"x\"}]}", "\"bounds\" must be"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"verify\", \"model\": \"m\", \"spec\": \"s\", \"sweep\": {\"eps\": [1, 0]}}]}", "\"eps\" must be"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"verify\", \"model\": \"m\", \"spec\": \"s\", \"sweep\": {\"eps\": [0, 1], \"points\": 1}}]}", "\"points\" must be"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"verification_key\": \"v\", \"public\": \"p\"}]}", "\"proof\" is required"},
        /* the key: one of verification_key and proving_key; a model needs a proving key and a ptau */
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"verification_key\": \"v\", \"proving_key\": \"k\", \"public\": \"p\", \"proof\": \"q\"}]}", "one of \"verification_key\" and \"proving_key\""},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"public\": \"p\", \"proof\": \"q\"}]}", "one of \"verification_key\" and \"proving_key\""},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"verification_key\": \"v\", \"public\": \"p\", \"proof\": \"q\", \"model\": \"m\", \"ptau\": \"t\"}]}", "cannot be tied"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"proving_key\": \"k\", \"public\": \"p\", \"proof\": \"q\", \"model\": \"m\"}]}", "needs \"proving_key\" and \"ptau\""},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"proving_key\": \"k\", \"public\": \"p\", \"proof\": \"q\", \"ptau\": \"t\"}]}", "need \"model\""},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"proving_key\": \"k\", \"public\": \"p\", \"proof\": \"q\", \"model\": \"m\", \"ptau\": \"t\", \"private\": \"all\"}]}", "\"private\" must be"},
        {"{\"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"verification_key\": \"v\", \"public\": \"p\", \"proof\": \"q\", \"samples\": 1}]}", "unknown member \"samples\""},
        {"{\"checks\": [{\"name\": \"a\\n\", \"type\": \"groth16\", \"verification_key\": \"v\", \"public\": \"p\", \"proof\": \"q\"}]}", "control character"},
        {"{\"tolerance\": -0.1, \"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"verification_key\": \"v\", \"public\": \"p\", \"proof\": \"q\"}]}", "\"tolerance\""},
        {"{\"seed\": 18446744073709551616, \"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"verification_key\": \"v\", \"public\": \"p\", \"proof\": \"q\"}]}", "\"seed\""},
        {"{\"seed\": \"1\", \"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"verification_key\": \"v\", \"public\": \"p\", \"proof\": \"q\"}]}", "\"seed\""},
    };
    char err[NNC_ERRBUF_SIZE];
    /* a member given twice: refused by the JSON reader itself, naming it */
    static const char twice[] = "{\"checks\": [{\"name\": \"a\", \"type\": \"groth16\", \"verification_key\": \"v\", "
                                "\"public\": \"p\", \"proof\": \"q\", \"proof\": \"q\"}]}";
    nnc_gate_config *cfg2 = (nnc_gate_config *)1;
    ck_assert_int_eq(nnc_gate_config_parse(&cfg2, twice, strlen(twice), ".", "c.json", err, sizeof err), NNC_STATUS_PARSE);
    ck_assert_ptr_null(cfg2);
    ck_assert_msg(strstr(err, "member name \"proof\" twice") && strncmp(err, "c.json: ", 8) == 0, "'%s'", err);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nnc_gate_config *cfg = (nnc_gate_config *)1;
        nnc_status st = nnc_gate_config_parse(&cfg, bad[i].text, strlen(bad[i].text), ".", "c.json", err, sizeof err);
        ck_assert_msg(st == NNC_STATUS_INVALID, "case %zu: status %d (%s)", i, st, err);
        ck_assert_ptr_null(cfg);
        ck_assert_msg(strstr(err, bad[i].msg) && strncmp(err, "c.json: ", 8) == 0, "case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
    }
    nnc_gate_config *cfg;
    ck_assert_int_eq(nnc_gate_config_parse(&cfg, "{\"checks\": [", 12, ".", "c.json", err, sizeof err), NNC_STATUS_PARSE);
    /* a good one: defaults, relative paths taken from the base folder */
    const char *ok = "{\"seed\": 18446744073709551615, \"checks\": [{\"name\": \"v\", \"type\": \"verify\", \"model\": \"m.onnx\", \"spec\": \"/abs/s\"}]}";
    ck_assert_int_eq(nnc_gate_config_parse(&cfg, ok, strlen(ok), "dir", "c.json", err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_gate_config_num_checks(cfg), 1);
    ck_assert_str_eq(cfg->checks[0].path[0], "dir/m.onnx");
    ck_assert_str_eq(cfg->checks[0].path[1], "/abs/s");
    ck_assert(cfg->checks[0].seed == UINT64_MAX);
    ck_assert(cfg->checks[0].max_violation == 0 && cfg->checks[0].confidence == 0.999 && cfg->checks[0].split == 1);
    nnc_gate_config_destroy(cfg);
}
END_TEST

/* The document a writer produces, as a string (free). */
static char *render(nnc_status (*fn)(FILE *, const nnc_gate_run *, char *, size_t), const nnc_gate_run *run)
{
    char *buf = NULL, err[NNC_ERRBUF_SIZE];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(fn(f, run, err, sizeof err), NNC_STATUS_OK);
    fclose(f);
    return buf;
}

/* A run whose check names need escaping in every output format. */
START_TEST(test_writers_escape)
{
    const char *text = "{\"name\": \"suite <&>\", \"checks\": [{\"name\": \"a<b>&\\\"c'|d\", \"type\": \"groth16\", "
                       "\"verification_key\": \"/nonexistent/vk\", \"public\": \"p\", \"proof\": \"q\"}]}";
    nnc_gate_config *cfg;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_int_eq(nnc_gate_config_parse(&cfg, text, strlen(text), ".", "c.json", err, sizeof err), NNC_STATUS_OK);
    nnc_gate_run *run;
    nnc_gate_opts o;
    nnc_gate_opts_default(&o);
    ck_assert_int_eq(nnc_gate_run_checks(&run, cfg, &o, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_gate_run_overall(run), NNC_GATE_ERROR);
    ck_assert_int_eq(nnc_gate_run_first_error(run), NNC_STATUS_IO);
    char *buf = render(nnc_gate_write_junit, run);
    ck_assert_ptr_nonnull(strstr(buf, "name=\"a&lt;b&gt;&amp;&quot;c&apos;|d\""));
    ck_assert_ptr_nonnull(strstr(buf, "<testsuites name=\"suite &lt;&amp;&gt;\""));
    ck_assert_ptr_nonnull(strstr(buf, "errors=\"1\""));
    ck_assert_ptr_nonnull(strstr(buf, "<error message="));
    /* the suite's start in UTC (this year's, from the run) and the host */
    {
        char want[32], host[256] = "";
        time_t now = time(NULL);
        struct tm tmv;
        gmtime_r(&now, &tmv);
        strftime(want, sizeof want, " timestamp=\"%Y-", &tmv);
        ck_assert_ptr_nonnull(strstr(buf, want));
        ck_assert_int_eq(gethostname(host, sizeof host - 1), 0);
        char hw[300];
        snprintf(hw, sizeof hw, " hostname=\"%s\"", host);
        ck_assert_msg(strstr(buf, hw) != NULL, "no %s in the JUnit report", hw);
    }
    free(buf);
    buf = render(nnc_gate_write_markdown, run);
    ck_assert_ptr_nonnull(strstr(buf, "| a<b>&\"c'\\|d | groth16 | error |"));
    free(buf);
    buf = render(nnc_gate_write_html, run);
    ck_assert_ptr_nonnull(strstr(buf, "<td>a&lt;b&gt;&amp;&quot;c&apos;|d</td>"));
    ck_assert_ptr_null(strstr(buf, "fig-volumes")); /* no verify check, no volume figure */
    free(buf);
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(nnc_gate_write_summary(f, run, NULL, err, sizeof err), NNC_STATUS_OK);
    fclose(f);
    nnc_json_doc *d;
    ck_assert_msg(nnc_json_parse(&d, buf, len, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    const nnc_json *c = nnc_json_get(nnc_json_root(d), "checks")->child;
    ck_assert_str_eq(nnc_json_get(c, "name")->str, "a<b>&\"c'|d");
    ck_assert_int_eq(nnc_json_get(nnc_json_get(c, "verification_key"), "sha256")->type, NNC_JSON_NULL);
    nnc_json_doc_destroy(d);
    free(buf);
    nnc_gate_run_destroy(run);
    nnc_gate_config_destroy(cfg);
}
END_TEST

START_TEST(test_volumes_svg)
{
    const char *labels[2] = {"x<1>", "y"};
    double safe[2] = {0.25, 1}, unsafe[2] = {0.5, 0}, open[2] = {0.25000001, 0};
    char *buf = NULL, err[NNC_ERRBUF_SIZE];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(nnc_gate_svg_volumes(f, "t", labels, safe, unsafe, open, 2, err, sizeof err), NNC_STATUS_OK);
    fclose(f);
    /* plot width 440 px from x = 180: the first bar's pieces end at 290, 510 and are clipped at 620 */
    ck_assert_ptr_nonnull(strstr(buf, "class=\"safe\" x=\"180.00\" y=\"40.0\" width=\"110.00\""));
    ck_assert_ptr_nonnull(strstr(buf, "class=\"unsafe\" x=\"290.00\" y=\"40.0\" width=\"220.00\""));
    ck_assert_ptr_nonnull(strstr(buf, "class=\"open\" x=\"510.00\" y=\"40.0\" width=\"110.00\""));
    ck_assert_ptr_nonnull(strstr(buf, ">x&lt;1&gt;</text>"));
    free(buf);
}
END_TEST

int main(void)
{
    harness_set_seed(0); /* inputs that never vary */
    Suite *s = suite_create("gate");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_fmt_num);
    tcase_add_test(tc, test_canonical);
    tcase_add_test(tc, test_sign_verify_every_byte);
    tcase_add_test(tc, test_key_files);
    tcase_add_test(tc, test_config_errors);
    tcase_add_test(tc, test_writers_escape);
    tcase_add_test(tc, test_volumes_svg);
    suite_add_tcase(s, tc);
    return check_main_run(s);
}
