/* SVG plots written by nncert itself (no external plotting tool). */
#include "nncert/verifier.h"

#include <math.h>
#include <stdio.h>

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

double nnc_vrf_svg_tick_step(double span, int most)
{
    double raw = span / most, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* A tick label with the decimals the step needs (a 1-2-5 step has one
 * significant digit), -0 as 0. */
static void tick_label(char *buf, size_t len, double v, double step)
{
    if (fabs(v) < step * 1e-9) v = 0;
    int decimals = (int)fmax(0, -floor(log10(step) + 1e-9));
    snprintf(buf, len, "%.*f", decimals > 15 ? 15 : decimals, v);
}

nnc_status nnc_vrf_svg_sweep(FILE *f, const char *title, const double *eps, const double *lo, const double *hi,
                             const nnc_vrf_result *res, int n, char *err, size_t errlen)
{
    const double W = 640, H = 420, L = 78, R = 20, T = 64, B = 56; /* pixels: size and margins */
    double x0 = n ? eps[0] : 0, x1 = n ? eps[n - 1] : 1, ymax = 0;
    for (int i = 0; i < n; i++) ymax = fmax(ymax, hi[i]);
    if (!(ymax > 0)) ymax = 1e-3;
    if (x1 <= x0) x1 = x0 + 1;
    /* the axes end on a tick: at most 6 intervals on x (labels 90 px
     * apart at least), 5 on y */
    double xs = nnc_vrf_svg_tick_step(x1 - x0, 6), ys = nnc_vrf_svg_tick_step(ymax * 1.05, 5);
    double xa = floor(x0 / xs + 1e-9) * xs, xb = ceil(x1 / xs - 1e-9) * xs;
    if (xb <= xa) xb = xa + xs;
    double ytop = ceil(ymax * 1.05 / ys - 1e-9) * ys;
#define PX(x) (L + ((x) - xa) / (xb - xa) * (W - L - R))
#define PY(y) (H - B - (y) / ytop * (H - T - B))
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"nncert-sweep\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text class=\"title\" x=\"%.0f\" y=\"22\" "
               "font-size=\"14\">", L);
    xml_text(f, title);
    fputs("</text>\n", f);
    /* legend, one row under the title: the two bounds, then the markers */
    static const char *const mark_fill[3] = {"#31a354", "#de2d26", "#969696"};
    static const char *const mark_name[3] = {"holds", "violated", "unknown"};
    double lx = L, ly = 44;
    fprintf(f, "<g class=\"legend\">\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#08519c\" "
               "stroke-width=\"2\"/><text x=\"%.0f\" y=\"%.0f\">upper bound</text>\n", lx, ly, lx + 22, ly, lx + 27, ly + 4);
    lx += 110;
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#6baed6\" stroke-width=\"2\" "
               "stroke-dasharray=\"5 3\"/><text x=\"%.0f\" y=\"%.0f\">lower bound</text>\n", lx, ly, lx + 22, ly, lx + 27, ly + 4);
    lx += 110;
    for (int k = 0; res && k < 3; k++, lx += 80)
        fprintf(f, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"4\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 5,
                ly, mark_fill[k], lx + 13, ly + 4, mark_name[k]);
    fputs("</g>\n", f);
    /* band */
    fputs("<polygon fill=\"#9ecae1\" fill-opacity=\"0.6\" stroke=\"none\" points=\"", f);
    for (int i = 0; i < n; i++) fprintf(f, "%.2f,%.2f ", PX(eps[i]), PY(hi[i]));
    for (int i = n - 1; i >= 0; i--) fprintf(f, "%.2f,%.2f ", PX(eps[i]), PY(lo[i]));
    fputs("\"/>\n", f);
    for (int e = 0; e < 2; e++) {
        fprintf(f, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", e ? "upper" : "lower",
                e ? "#08519c" : "#6baed6", e ? "" : " stroke-dasharray=\"5 3\"");
        for (int i = 0; i < n; i++) fprintf(f, "%.2f,%.2f ", PX(eps[i]), PY(e ? hi[i] : lo[i]));
        fputs("\"/>\n", f);
    }
    /* a marker on both bounds of each point, coloured by its verdict */
    for (int i = 0; res && i < n; i++) {
        int k = res[i] == NNC_VRF_HOLDS ? 0 : res[i] == NNC_VRF_VIOLATED ? 1 : 2;
        for (int e = 0; e < 2; e++)
            fprintf(f, "<circle class=\"point %s\" cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"%s\" stroke=\"white\"><title>eps "
                       "%.6g: %s, [%.6g, %.6g]</title></circle>\n", mark_name[k], PX(eps[i]), PY(e ? hi[i] : lo[i]),
                    mark_fill[k], eps[i], mark_name[k], lo[i], hi[i]);
    }
    /* axes and ticks */
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, H - B, W - R, H - B);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, T, L, H - B);
    char lab[40];
    for (int k = 0; xa + k * xs <= xb + xs * 1e-9 && k <= 12; k++) {
        double xv = xa + k * xs;
        tick_label(lab, sizeof lab, xv, xs);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"black\"/>"
                   "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
                PX(xv), H - B, PX(xv), H - B + 5, PX(xv), H - B + 19, lab);
    }
    for (int k = 0; k * ys <= ytop + ys * 1e-9 && k <= 12; k++) {
        double yv = k * ys;
        tick_label(lab, sizeof lab, yv, ys);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"black\"/>"
                   "<text class=\"tick\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                L - 5, PY(yv), L, PY(yv), L - 8, PY(yv) + 4, lab);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">epsilon (L-inf radius)</text>\n", (L + W - R) / 2, H - 14);
    fprintf(f, "<text x=\"16\" y=\"%.0f\" transform=\"rotate(-90 16 %.0f)\" text-anchor=\"middle\">violation fraction "
               "(bounds)</text>\n", (T + H - B) / 2, (T + H - B) / 2);
    fputs("</svg>\n", f);
#undef PX
#undef PY
    if (ferror(f)) return nnc_err(err, errlen, NNC_STATUS_IO, "writing the plot failed");
    return NNC_STATUS_OK;
}
