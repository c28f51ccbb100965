/* alpha-CROWN margin benchmark: bench_alpha MODEL IMAGES.csv EPS COUNT ITERS
 * For the first COUNT images (ERAN csv: label, 784 pixels 0..255), the box
 * clip(x +- EPS, 0, 1); prints one CSV record per image:
 *   image,label,crown_margin_lower,alpha_margin_lower,crown_ms,alpha_ms
 * where a margin is the certified lower bound of min_j (y_label - y_j): with
 * CROWN's adaptive slopes, and with ITERS steps of optimised slopes per
 * objective (verifier/alpha.c; intermediate bounds CROWN's).  alpha_ms
 * includes the CROWN pass it starts from. */
#include "tests/bench/mnist_margin_impl.h"

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bench_alpha MODEL IMAGES.csv EPS COUNT ITERS\n");
        return 64;
    }
    double eps = atof(argv[3]);
    int count = atoi(argv[4]), iters = atoi(argv[5]), label, rc;
    mnist_bench mb;
    if ((rc = mnist_bench_open(&mb, "bench_alpha", argv[1], argv[2])) != 0) return rc;
    printf("image,label,crown_margin_lower,alpha_margin_lower,crown_ms,alpha_ms\n");
    double lo[MNIST_PIXELS], hi[MNIST_PIXELS], d[MNIST_MAX_OUTPUTS] = {0}, lw[MNIST_MAX_OUTPUTS];
    double target[MNIST_MAX_OUTPUTS];
    for (int o = 0; o < MNIST_MAX_OUTPUTS; o++) target[o] = INFINITY; /* optimise fully, as auto_LiRPA does */
    for (int img = 0; img < count && mnist_bench_next(&mb, eps, &label, lo, hi); img++) {
        int nobj = mnist_bench_objectives(&mb, label);
        double t0 = nnc_rfn_now();
        if (nnc_bnd_compute(mb.b, lo, hi, 1) || nnc_bnd_linear_lower(mb.b, nobj, mb.C, d, lw, NULL)) return 70;
        double t1 = nnc_rfn_now(), crown = mnist_bench_margin(lw, nobj);
        if (nnc_alpha_lower(mb.b, nobj, mb.C, target, lw, NULL, iters, INFINITY)) return 70;
        double t2 = nnc_rfn_now(), alpha = mnist_bench_margin(lw, nobj);
        printf("%d,%d,%.6f,%.6f,%.3f,%.3f\n", img, label, crown, alpha, 1e3 * (t1 - t0), 1e3 * (t2 - t0));
    }
    mnist_bench_close(&mb);
    return 0;
}
