/* SVG plots written by nncert itself (no external plotting tool). */
#include "verifier/verifier.h"

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

nnc_status nnc_vrf_svg_sweep(FILE *f, const char *title, const double *eps, const double *lo, const double *hi, int n,
                             char *err, size_t errlen)
{
    const double W = 640, H = 400, L = 70, R = 20, T = 40, B = 50; /* pixels: size and margins */
    double x0 = n ? eps[0] : 0, x1 = n ? eps[n - 1] : 1, ymax = 0;
    for (int i = 0; i < n; i++) ymax = fmax(ymax, hi[i]);
    if (ymax <= 0) ymax = 1e-3;
    ymax *= 1.1;
    if (x1 <= x0) x1 = x0 + 1;
#define PX(x) (L + ((x) - x0) / (x1 - x0) * (W - L - R))
#define PY(y) (H - B - (y) / ymax * (H - T - B))
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" font-size=\"15\">", L);
    xml_text(f, title);
    fputs("</text>\n", f);
    /* band */
    fputs("<polygon fill=\"#9ecae1\" fill-opacity=\"0.6\" stroke=\"none\" points=\"", f);
    for (int i = 0; i < n; i++) fprintf(f, "%.2f,%.2f ", PX(eps[i]), PY(hi[i]));
    for (int i = n - 1; i >= 0; i--) fprintf(f, "%.2f,%.2f ", PX(eps[i]), PY(lo[i]));
    fputs("\"/>\n", f);
    for (int e = 0; e < 2; e++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", e ? "#08519c" : "#3182bd");
        for (int i = 0; i < n; i++) fprintf(f, "%.2f,%.2f ", PX(eps[i]), PY(e ? hi[i] : lo[i]));
        fputs("\"/>\n", f);
    }
    /* axes and ticks */
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, H - B, W - R, H - B);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, T, L, H - B);
    for (int k = 0; k <= 4; k++) {
        double xv = x0 + (x1 - x0) * k / 4, yv = ymax * k / 4;
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.3g</text>\n", PX(xv), H - B + 18, xv);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n", L - 6, PY(yv) + 4, yv);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">epsilon (L-inf radius)</text>\n", (L + W - R) / 2, H - 12);
    fprintf(f, "<text x=\"16\" y=\"%.0f\" transform=\"rotate(-90 16 %.0f)\" text-anchor=\"middle\">violation fraction (bounds)</text>\n",
            (T + H - B) / 2, (T + H - B) / 2);
    fputs("</svg>\n", f);
#undef PX
#undef PY
    if (ferror(f)) return nnc_err(err, errlen, NNC_STATUS_IO, "writing the plot failed");
    return NNC_STATUS_OK;
}
