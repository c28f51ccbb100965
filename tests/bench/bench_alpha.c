/* alpha-CROWN margin benchmark: bench_alpha MODEL IMAGES.csv EPS COUNT ITERS
 * For the first COUNT images (ERAN csv: label, 784 pixels 0..255), the box
 * clip(x +- EPS, 0, 1); prints one CSV record per image:
 *   image,label,crown_margin_lower,alpha_margin_lower,crown_ms,alpha_ms
 * where a margin is the certified lower bound of min_j (y_label - y_j): with
 * CROWN's adaptive slopes, and with ITERS steps of optimised slopes per
 * objective (verifier/alpha.c; intermediate bounds CROWN's).  alpha_ms
 * includes the CROWN pass it starts from. */
#include "models/model.h"
#include "verifier/refine_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bench_alpha MODEL IMAGES.csv EPS COUNT ITERS\n");
        return 64;
    }
    double eps = atof(argv[3]);
    int count = atoi(argv[4]), iters = atoi(argv[5]);
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_bnd *b;
    if (nnc_mdl_load(&m, argv[1], err, sizeof err) || nnc_bnd_create(&b, m, err, sizeof err)) {
        fprintf(stderr, "bench_alpha: %s\n", err);
        return 65;
    }
    int n = (int)nnc_bnd_num_inputs(b), no = (int)nnc_bnd_num_outputs(b);
    FILE *f = fopen(argv[2], "r");
    if (f == NULL || n != 784 || no > 64) {
        fprintf(stderr, "bench_alpha: cannot read %s, or the model is not 784 -> at most 64\n", argv[2]);
        return 66;
    }
    printf("image,label,crown_margin_lower,alpha_margin_lower,crown_ms,alpha_ms\n");
    char line[16384];
    double *C = malloc(sizeof(double) * (size_t)(no * no)), d[64] = {0}, lw[64], target[64];
    for (int o = 0; o < 64; o++) target[o] = INFINITY; /* optimise fully, as auto_LiRPA does */
    for (int img = 0; img < count && fgets(line, sizeof line, f); img++) {
        char *p = line;
        int label = (int)strtol(p, &p, 10);
        double lo[784], hi[784];
        for (int i = 0; i < 784; i++) {
            if (*p == ',') p++;
            double x = strtod(p, &p) / 255.0;
            lo[i] = fmax(0.0, x - eps);
            hi[i] = fmin(1.0, x + eps);
        }
        memset(C, 0, sizeof(double) * (size_t)(no * no));
        int nobj = 0;
        for (int j = 0; j < no; j++) {
            if (j == label) continue;
            C[nobj * no + label] = 1;
            C[nobj * no + j] = -1;
            nobj++;
        }
        double t0 = nnc_rfn_now();
        if (nnc_bnd_compute(b, lo, hi, 1) || nnc_bnd_linear_lower(b, nobj, C, d, lw, NULL)) return 70;
        double t1 = nnc_rfn_now(), crown = INFINITY;
        for (int o = 0; o < nobj; o++) crown = fmin(crown, lw[o]);
        if (nnc_alpha_lower(b, nobj, C, target, lw, NULL, iters, INFINITY)) return 70;
        double t2 = nnc_rfn_now(), alpha = INFINITY;
        for (int o = 0; o < nobj; o++) alpha = fmin(alpha, lw[o]);
        printf("%d,%d,%.6f,%.6f,%.3f,%.3f\n", img, label, crown, alpha, 1e3 * (t1 - t0), 1e3 * (t2 - t0));
    }
    free(C);
    fclose(f);
    nnc_bnd_destroy(b);
    nnc_mdl_destroy(m);
    return 0;
}
