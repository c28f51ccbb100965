/* CROWN margin benchmark: bench_crown MODEL IMAGES.csv EPS COUNT
 * For the first COUNT images (ERAN csv: label, 784 pixels 0..255), the box
 * clip(x +- EPS, 0, 1); prints one CSV record per image:
 *   image,label,margin_lower,ms_per_image
 * where margin_lower is the certified lower bound of min_j (y_label - y_j),
 * and the median time of 5 runs of the full bound computation (intermediate
 * CROWN bounds plus the margin objectives). */
#include "models/model.h"
#include "verifier/bounds_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bench_crown MODEL IMAGES.csv EPS COUNT\n");
        return 64;
    }
    double eps = atof(argv[3]);
    int count = atoi(argv[4]);
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_bnd *b;
    if (nnc_mdl_load(&m, argv[1], err, sizeof err) || nnc_bnd_create(&b, m, err, sizeof err)) {
        fprintf(stderr, "bench_crown: %s\n", err);
        return 65;
    }
    int n = (int)nnc_bnd_num_inputs(b), no = (int)nnc_bnd_num_outputs(b);
    FILE *f = fopen(argv[2], "r");
    if (f == NULL || n != 784) {
        fprintf(stderr, "bench_crown: cannot read %s or model input is not 784\n", argv[2]);
        return 66;
    }
    printf("image,label,margin_lower,ms_per_image\n");
    char line[16384];
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
        double *C = calloc((size_t)(no * no), sizeof(double)), d[64] = {0}, lw[64];
        int nobj = 0;
        for (int j = 0; j < no; j++) {
            if (j == label) continue;
            C[nobj * no + label] = 1;
            C[nobj * no + j] = -1;
            nobj++;
        }
        double t[5], margin = 0;
        for (int r = 0; r < 5; r++) {
            double t0 = now();
            nnc_bnd_compute(b, lo, hi, 1);
            nnc_bnd_linear_lower(b, nobj, C, d, lw, NULL);
            t[r] = now() - t0;
            margin = INFINITY;
            for (int o = 0; o < nobj; o++) margin = fmin(margin, lw[o]);
        }
        qsort(t, 5, sizeof(double), cmpd);
        printf("%d,%d,%.6f,%.3f\n", img, label, margin, 1e3 * t[2]);
        free(C);
    }
    fclose(f);
    nnc_bnd_destroy(b);
    nnc_mdl_destroy(m);
    return 0;
}
