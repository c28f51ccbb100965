/* Reports of a gate run: JUnit XML, Markdown, and an HTML page with SVG
 * figures drawn here (see nncert/gate.h). */
#include "gate/gate_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void nnc_gate_xml_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(c < 0x20 && c != '\t' && c != '\n' ? '?' : c, f);
        }
    }
}

static const char *const kind_names[] = {"verify", "groth16", "baseline"};

static void counts(const nnc_gate_run *run, int cnt[4], double *total)
{
    memset(cnt, 0, 4 * sizeof *cnt);
    *total = 0;
    for (int i = 0; i < run->n; i++) {
        cnt[run->rows[i].status]++;
        *total += run->rows[i].time_s;
    }
}

static void sha_hex(char out[65], const uint8_t *h)
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* JUnit XML as Ant/Jenkins, GitLab and GitHub reporters read it: testsuites >
 * testsuite > testcase, a failure, error or skipped element in a testcase
 * that did not pass, the counts as attributes, times in seconds. */
nnc_status nnc_gate_write_junit(FILE *f, const nnc_gate_run *run, char *err, size_t errlen)
{
    int cnt[4];
    double total;
    counts(run, cnt, &total);
    const char *suite = run->cfg->name;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", f);
    nnc_gate_xml_escape(f, suite);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n", run->n, cnt[1], cnt[2],
            cnt[3], total);
    /* the suite's start (UTC, the schema's timestamp without a zone) and host */
    char stamp[32] = "1970-01-01T00:00:00", host[256] = "localhost";
    struct tm tmv;
    if (gmtime_r(&run->started, &tmv)) strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tmv);
    if (gethostname(host, sizeof host) != 0 || host[0] == '\0') snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    fputs("  <testsuite name=\"", f);
    nnc_gate_xml_escape(f, suite);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\" timestamp=\"%s\" hostname=\"",
            run->n, cnt[1], cnt[2], cnt[3], total, stamp);
    nnc_gate_xml_escape(f, host);
    fputs("\">\n", f);
    char hex[65];
    sha_hex(hex, run->cfg->sha256);
    fprintf(f, "    <properties>\n      <property name=\"nncert.version\" value=\"%s\"/>\n", NNC_VERSION_STRING);
    fprintf(f, "      <property name=\"config.sha256\" value=\"%s\"/>\n", hex);
    fprintf(f, "      <property name=\"seed\" value=\"%llu\"/>\n    </properties>\n", (unsigned long long)run->cfg->seed);
    for (int i = 0; i < run->n; i++) {
        const gate_row *r = &run->rows[i];
        fputs("    <testcase name=\"", f);
        nnc_gate_xml_escape(f, r->name);
        fprintf(f, "\" classname=\"nncert.gate.%s\" time=\"%.3f\"", kind_names[r->kind], r->time_s);
        if (r->status == NNC_GATE_PASS) {
            fputs(">\n      <system-out>", f);
            nnc_gate_xml_escape(f, r->message);
            fputs("</system-out>\n    </testcase>\n", f);
            continue;
        }
        static const char *const elem[] = {"", "failure", "error", "skipped"};
        const char *type = r->status == NNC_GATE_ERROR ? nnc_status_string(r->error)
                           : r->kind == GATE_BASELINE  ? "regression"
                           : r->kind == GATE_GROTH16   ? "invalid-proof"
                                                       : "violation-bound";
        fprintf(f, ">\n      <%s message=\"", elem[r->status]);
        nnc_gate_xml_escape(f, r->message);
        if (r->status == NNC_GATE_SKIPPED) {
            fputs("\"/>\n    </testcase>\n", f);
            continue;
        }
        fputs("\" type=\"", f);
        nnc_gate_xml_escape(f, type);
        fputs("\">", f);
        nnc_gate_xml_escape(f, r->message);
        for (int k = 0; k < r->nfiles; k++) {
            fprintf(f, "\n%s: %s", r->files[k].role, r->files[k].path);
            if (r->files[k].hashed) {
                sha_hex(hex, r->files[k].sha256);
                fprintf(f, " (sha256 %s)", hex);
            }
        }
        fprintf(f, "</%s>\n    </testcase>\n", elem[r->status]);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return ferror(f) ? nnc_err(err, errlen, NNC_STATUS_IO, "writing the JUnit report failed") : NNC_STATUS_OK;
}

/* Markdown table cells: pipes and newlines would break the row. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n' || *s == '\r') fputc(' ', f);
        else fputc(*s, f);
    }
}

nnc_status nnc_gate_write_markdown(FILE *f, const nnc_gate_run *run, char *err, size_t errlen)
{
    int cnt[4];
    double total;
    counts(run, cnt, &total);
    nnc_gate_status all = nnc_gate_run_overall(run);
    fputs("## ", f);
    md_cell(f, run->cfg->name);
    fprintf(f, ": %s\n\n", all == NNC_GATE_PASS ? "PASSED" : all == NNC_GATE_FAIL ? "FAILED" : "ERROR");
    fprintf(f, "%d checks: %d passed, %d failed, %d errors, %d skipped (%.1f s).\n\n", run->n, cnt[0], cnt[1], cnt[2],
            cnt[3], total);
    fputs("| check | type | status | details |\n|---|---|---|---|\n", f);
    for (int i = 0; i < run->n; i++) {
        const gate_row *r = &run->rows[i];
        fputs("| ", f);
        md_cell(f, r->name);
        fprintf(f, " | %s | %s | ", kind_names[r->kind], nnc_gate_status_name(r->status));
        md_cell(f, r->message);
        fputs(" |\n", f);
    }
    char hex[65];
    sha_hex(hex, run->cfg->sha256);
    fprintf(f, "\nnncert %s, config `", NNC_VERSION_STRING);
    md_cell(f, run->cfg->config_name);
    fprintf(f, "` (sha256 `%s`), seed %llu.\n", hex, (unsigned long long)run->cfg->seed);
    return ferror(f) ? nnc_err(err, errlen, NNC_STATUS_IO, "writing the Markdown summary failed") : NNC_STATUS_OK;
}

/* A label of at most `most` characters: longer ones cut at a UTF-8
 * boundary and ended by "...", so that they fit beside a figure's bars (the
 * whole name stays in the bar's tooltip). */
static void short_label(FILE *f, const char *s, size_t most)
{
    size_t n = strlen(s);
    if (n <= most) {
        nnc_gate_xml_escape(f, s);
        return;
    }
    char buf[64];
    size_t k = most - 3 < sizeof buf - 1 ? most - 3 : sizeof buf - 1;
    while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80) k--; /* not inside a character */
    memcpy(buf, s, k);
    buf[k] = 0;
    nnc_gate_xml_escape(f, buf);
    fputs("...", f);
}

nnc_status nnc_gate_svg_volumes(FILE *f, const char *title, const char *const *labels, const double *safe,
                                const double *unsafe, const double *open, int n, char *err, size_t errlen)
{
    const double W = 640, L = 180, R = 20, T = 40, BAR = 22, GAP = 10, B = 60; /* pixels */
    const double H = T + n * (BAR + GAP) + B, PW = W - L - R;
    static const char *const colours[3] = {"#31a354", "#de2d26", "#bdbdbd"}, *const names[3] = {"certified safe", "certified unsafe", "open (sampled)"};
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"nncert-volumes\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" font-size=\"15\">", L);
    nnc_gate_xml_escape(f, title);
    fputs("</text>\n", f);
    for (int i = 0; i < n; i++) {
        double y = T + i * (BAR + GAP), v[3] = {safe[i], unsafe[i], open[i]}, x = L;
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", L - 8, y + BAR / 2 + 4);
        short_label(f, labels[i], 24);
        fputs("</text>\n", f);
        for (int k = 0; k < 3; k++) {
            /* open is rounded up, so the three may sum a hair above 1: clip */
            double w = fmax(0, fmin(v[k], 1)) * PW;
            if (x + w > L + PW) w = L + PW - x;
            fprintf(f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>", k == 0 ? "safe" : k == 1 ? "unsafe" : "open",
                    x, y, w, BAR, colours[k]);
            nnc_gate_xml_escape(f, labels[i]);
            fprintf(f, ": %s %.6g</title></rect>\n", names[k], v[k]);
            x += w;
        }
    }
    double ya = T + n * (BAR + GAP);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, ya, L + PW, ya);
    for (int k = 0; k <= 4; k++)
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.2f</text>\n", L + PW * k / 4, ya + 16, k / 4.0);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">fraction of the input volume</text>\n", L + PW / 2, ya + 32);
    for (int k = 0; k < 3; k++) {
        double x = L + k * 150;
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                x, ya + 42, colours[k], x + 16, ya + 52, names[k]);
    }
    fputs("</svg>\n", f);
    return ferror(f) ? nnc_err(err, errlen, NNC_STATUS_IO, "writing the plot failed") : NNC_STATUS_OK;
}

/* Per verify check: the violation-fraction interval [lo, hi] as a bar
 * (green when the check passed, red otherwise) against its max_violation (a
 * black tick), on one axis from 0. */
static nnc_status svg_intervals(FILE *f, const char *const *labels, const double *lo, const double *hi,
                                const double *maxv, const int *passed, int n, char *err, size_t errlen)
{
    const double W = 640, L = 200, R = 24, T = 40, BAR = 14, GAP = 14, B = 62; /* pixels */
    const double H = T + n * (BAR + GAP) + B, PW = W - L - R;
    double top = 0;
    for (int i = 0; i < n; i++) top = fmax(top, fmax(hi[i], maxv[i]));
    if (!(top > 0)) top = 0.01;
    /* the axis ends on a 1-2-5 tick, at most 5 intervals */
    double step = nnc_vrf_svg_tick_step(top * 1.05, 5), xmax = ceil(top * 1.05 / step - 1e-9) * step;
    if (xmax > 1) xmax = 1, step = 0.2;
#define PXI(x) (L + fmin(fmax((x), 0), xmax) / xmax * PW)
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"nncert-intervals\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" font-size=\"14\">"
               "violation fraction interval against max_violation</text>\n", L);
    for (int i = 0; i < n; i++) {
        double y = T + i * (BAR + GAP), x0 = PXI(lo[i]), x1 = PXI(hi[i]);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", L - 8, y + BAR / 2 + 4);
        short_label(f, labels[i], 28);
        fputs("</text>\n", f);
        /* an interval of width 0 still shows: at least 2 px */
        fprintf(f, "<rect class=\"interval %s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>",
                passed[i] ? "pass" : "fail", x1 - x0 < 2 ? x0 - 1 : x0, y, fmax(x1 - x0, 2), BAR,
                passed[i] ? "#31a354" : "#de2d26");
        nnc_gate_xml_escape(f, labels[i]);
        fprintf(f, ": [%.6g, %.6g], max_violation %.6g</title></rect>\n", lo[i], hi[i], maxv[i]);
        fprintf(f, "<line class=\"max-violation\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"black\" "
                   "stroke-width=\"2\"/>\n", PXI(maxv[i]), y - 4, PXI(maxv[i]), y + BAR + 4);
    }
    double ya = T + n * (BAR + GAP);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, ya, L + PW, ya);
    for (int k = 0; k * step <= xmax + step * 1e-9; k++) {
        double v = k * step;
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.3g</text>\n", PXI(v), ya + 16, v);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">violation fraction (interval at the check's "
               "confidence)</text>\n", L + PW / 2, ya + 34);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\" stroke-width=\"2\"/>"
               "<text x=\"%.0f\" y=\"%.0f\">max_violation</text>\n", L, ya + 44, L, ya + 56, L + 6, ya + 54);
    fputs("</svg>\n", f);
#undef PXI
    return ferror(f) ? nnc_err(err, errlen, NNC_STATUS_IO, "writing the plot failed") : NNC_STATUS_OK;
}

static const char html_style[] =
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}"
    ".pass{color:#1a7f37}.fail,.error{color:#cf222e}.skipped{color:#777}"
    "figure{margin:1.5em 0}code{font-size:90%}";

nnc_status nnc_gate_write_html(FILE *f, const nnc_gate_run *run, char *err, size_t errlen)
{
    int cnt[4];
    double total;
    counts(run, cnt, &total);
    nnc_gate_status all = nnc_gate_run_overall(run);
    const char *verdict = all == NNC_GATE_PASS ? "PASSED" : all == NNC_GATE_FAIL ? "FAILED" : "ERROR";
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>nncert gate: ", f);
    nnc_gate_xml_escape(f, run->cfg->name);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>nncert gate: ", html_style);
    nnc_gate_xml_escape(f, run->cfg->name);
    fprintf(f, "</h1>\n<p id=\"verdict\" class=\"%s\"><strong>%s</strong>: %d checks, %d passed, %d failed, %d errors, "
               "%d skipped (%.1f s)</p>\n", all == NNC_GATE_PASS ? "pass" : "fail", verdict, run->n, cnt[0], cnt[1], cnt[2],
            cnt[3], total);
    fputs("<table id=\"checks\">\n<tr><th>check</th><th>type</th><th>status</th><th>details</th></tr>\n", f);
    for (int i = 0; i < run->n; i++) {
        const gate_row *r = &run->rows[i];
        fputs("<tr><td>", f);
        nnc_gate_xml_escape(f, r->name);
        fprintf(f, "</td><td>%s</td><td class=\"%s\">%s</td><td>", kind_names[r->kind], nnc_gate_status_name(r->status),
                nnc_gate_status_name(r->status));
        nnc_gate_xml_escape(f, r->message);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    /* volumes: one bar per verify check that produced a report */
    int nv = 0;
    for (int i = 0; i < run->n; i++) nv += run->rows[i].kind == GATE_VERIFY && run->rows[i].has_report;
    nnc_status st = NNC_STATUS_OK;
    if (nv) {
        const char **labels = malloc(sizeof *labels * (size_t)nv);
        double *v = malloc(sizeof *v * 3 * (size_t)nv);
        if (labels == NULL || v == NULL) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        for (int i = 0, j = 0; i < run->n && !st; i++) {
            const gate_row *r = &run->rows[i];
            if (r->kind != GATE_VERIFY || !r->has_report) continue;
            labels[j] = r->name;
            v[j] = r->safe;
            v[nv + j] = r->unsafe;
            v[2 * nv + j] = r->open;
            j++;
        }
        if (!st) {
            double *iv = malloc(sizeof *iv * 3 * (size_t)nv);
            int *ok = malloc(sizeof *ok * (size_t)nv);
            if (iv == NULL || ok == NULL) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            for (int i = 0, j = 0; i < run->n && !st; i++) {
                const gate_row *r = &run->rows[i];
                if (r->kind != GATE_VERIFY || !r->has_report) continue;
                iv[j] = r->lo;
                iv[nv + j] = r->hi;
                iv[2 * nv + j] = r->chk->max_violation;
                ok[j++] = r->status == NNC_GATE_PASS;
            }
            if (!st) {
                fputs("<h2>Violation fraction</h2>\n<figure id=\"fig-intervals\">\n", f);
                st = svg_intervals(f, labels, iv, iv + nv, iv + 2 * nv, ok, nv, err, errlen);
                fputs("<figcaption>Each verify check's violation-fraction interval (at its confidence) against its "
                      "max_violation: the check passes when the interval ends at or below the mark.</figcaption>\n"
                      "</figure>\n", f);
            }
            free(iv);
            free(ok);
        }
        if (!st) {
            fputs("<h2>Certified volume</h2>\n<figure id=\"fig-volumes\">\n", f);
            st = nnc_gate_svg_volumes(f, "certified safe / unsafe / open volume", labels, v, v + nv, v + 2 * nv, nv, err, errlen);
            fputs("<figcaption>Share of each spec's input box that branch and bound certified safe or unsafe; the open "
                  "rest is bounded by sampling.</figcaption>\n</figure>\n", f);
        }
        free(labels);
        free(v);
    }
    for (int i = 0; i < run->n && !st; i++) {
        const gate_row *r = &run->rows[i];
        if (r->nsweep < 2) continue;
        int n = r->nsweep;
        double *a = malloc(sizeof *a * 6 * (size_t)n);
        nnc_vrf_result *res = malloc(sizeof *res * (size_t)n);
        const char **labels = malloc(sizeof *labels * (size_t)n);
        char(*lab)[32] = malloc(sizeof *lab * (size_t)n);
        if (a == NULL || res == NULL || labels == NULL || lab == NULL)
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        for (int k = 0; k < n && !st; k++) {
            for (int q = 0; q < 6; q++) a[q * n + k] = r->sweep[GATE_SWEEP_COLS * k + q];
            res[k] = (nnc_vrf_result)r->sweep[GATE_SWEEP_COLS * k + 6];
            snprintf(lab[k], sizeof lab[k], "eps %.4g", r->sweep[GATE_SWEEP_COLS * k]);
            labels[k] = lab[k];
        }
        if (!st) {
            fprintf(f, "<h2>Violation fraction against epsilon: ");
            nnc_gate_xml_escape(f, r->name);
            fprintf(f, "</h2>\n<figure class=\"fig-sweep\" id=\"fig-sweep-%d\">\n", i);
            char title[300];
            /* (the check's name heads the figure: a long one would not fit the plot's width) */
            snprintf(title, sizeof title, "violation fraction bounds (confidence %g)", r->chk->confidence);
            st = nnc_vrf_svg_sweep(f, title, a, a + n, a + 2 * n, res, n, err, errlen);
            fprintf(f, "<figcaption>Shaded: the interval containing the violation fraction at confidence %g, for L-inf "
                       "boxes of radius eps around the spec's centre.</figcaption>\n</figure>\n", r->chk->confidence);
            if (!st) {
                fprintf(f, "<figure class=\"fig-sweep-volumes\" id=\"fig-sweep-volumes-%d\">\n", i);
                st = nnc_gate_svg_volumes(f, "certified volume against epsilon", labels, a + 3 * n, a + 4 * n, a + 5 * n, n,
                                          err, errlen);
                fputs("</figure>\n", f);
            }
        }
        free(a);
        free(res);
        free(labels);
        free(lab);
    }
    char hex[65];
    sha_hex(hex, run->cfg->sha256);
    fprintf(f, "<p id=\"provenance\">nncert %s, config <code>", NNC_VERSION_STRING);
    nnc_gate_xml_escape(f, run->cfg->config_name);
    fprintf(f, "</code> (sha256 <code>%s</code>), seed %llu.</p>\n</body>\n</html>\n", hex, (unsigned long long)run->cfg->seed);
    if (!st && ferror(f)) st = nnc_err(err, errlen, NNC_STATUS_IO, "writing the HTML report failed");
    return st;
}
