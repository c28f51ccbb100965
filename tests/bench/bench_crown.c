/* CROWN margin benchmark: bench_crown MODEL IMAGES.csv EPS COUNT
 * For the first COUNT images (ERAN csv: label, 784 pixels 0..255), the box
 * clip(x +- EPS, 0, 1); prints one CSV record per image:
 *   image,label,margin_lower,ms_per_image
 * where margin_lower is the certified lower bound of min_j (y_label - y_j),
 * and the median time of 5 runs of the full bound computation (intermediate
 * CROWN bounds plus the margin objectives). */
#include "tests/bench/mnist_margin_impl.h"

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
    int count = atoi(argv[4]), label, rc;
    mnist_bench mb;
    if ((rc = mnist_bench_open(&mb, "bench_crown", argv[1], argv[2])) != 0) return rc;
    printf("image,label,margin_lower,ms_per_image\n");
    double lo[MNIST_PIXELS], hi[MNIST_PIXELS], d[MNIST_MAX_OUTPUTS] = {0}, lw[MNIST_MAX_OUTPUTS];
    for (int img = 0; img < count && mnist_bench_next(&mb, eps, &label, lo, hi); img++) {
        int nobj = mnist_bench_objectives(&mb, label);
        double t[5], margin = 0;
        for (int r = 0; r < 5; r++) {
            double t0 = nnc_rfn_now();
            nnc_bnd_compute(mb.b, lo, hi, 1);
            nnc_bnd_linear_lower(mb.b, nobj, mb.C, d, lw, NULL);
            t[r] = nnc_rfn_now() - t0;
            margin = mnist_bench_margin(lw, nobj);
        }
        qsort(t, 5, sizeof(double), cmpd);
        printf("%d,%d,%.6f,%.3f\n", img, label, margin, 1e3 * t[2]);
    }
    mnist_bench_close(&mb);
    return 0;
}
