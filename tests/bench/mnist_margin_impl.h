/* Shared by the MNIST margin benchmarks (bench_crown.c, bench_alpha.c): the
 * model with its bounds context, the ERAN image file (one image a line:
 * label, then 784 pixels 0..255), the L-inf box of each image and the margin
 * objectives y_label - y_j (j != label) whose lower bounds they report. */
#ifndef NNC_BENCH_MNIST_MARGIN_IMPL_H
#define NNC_BENCH_MNIST_MARGIN_IMPL_H

#include "nncert/model.h"
#include "verifier/refine_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MNIST_PIXELS 784
#define MNIST_MAX_OUTPUTS 64 /* the benches' per-objective arrays */

typedef struct mnist_bench {
    nnc_model *m;
    nnc_bnd *b;
    FILE *f;          /* the image file */
    int no;           /* model outputs, <= MNIST_MAX_OUTPUTS */
    double *C;        /* no x no: objective rows, row-major */
    char line[16384]; /* the current image's line */
} mnist_bench;

/* Load the model, create its bounds context and open the image file.
 * Returns: 0, or prints "name: problem" to stderr and returns the exit code
 * (65: the model; 66: the image file, or a model that is not
 * 784 -> at most MNIST_MAX_OUTPUTS). */
static inline int mnist_bench_open(mnist_bench *mb, const char *name, const char *model, const char *images)
{
    char err[NNC_ERRBUF_SIZE];
    memset(mb, 0, sizeof *mb);
    if (nnc_mdl_load(&mb->m, model, err, sizeof err) || nnc_bnd_create(&mb->b, mb->m, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", name, err);
        return 65;
    }
    mb->no = (int)nnc_bnd_num_outputs(mb->b);
    mb->f = fopen(images, "r");
    if (mb->f == NULL || nnc_bnd_num_inputs(mb->b) != MNIST_PIXELS || mb->no > MNIST_MAX_OUTPUTS) {
        fprintf(stderr, "%s: cannot read %s, or the model is not 784 -> at most 64\n", name, images);
        return 66;
    }
    mb->C = malloc(sizeof(double) * (size_t)(mb->no * mb->no));
    if (mb->C == NULL) {
        fprintf(stderr, "%s: out of memory\n", name);
        return 70;
    }
    return 0;
}

/* Read the next image.  Out: *label; lo, hi the box clip(x +- eps, 0, 1)
 * with pixels scaled to [0, 1].  Returns: 1, or 0 at the end of the file. */
static inline int mnist_bench_next(mnist_bench *mb, double eps, int *label, double lo[MNIST_PIXELS],
                                   double hi[MNIST_PIXELS])
{
    char *p = mb->line;
    if (fgets(mb->line, sizeof mb->line, mb->f) == NULL)
        return 0;
    *label = (int)strtol(p, &p, 10);
    for (int i = 0; i < MNIST_PIXELS; i++) {
        if (*p == ',') p++;
        double x = strtod(p, &p) / 255.0;
        lo[i] = fmax(0.0, x - eps);
        hi[i] = fmin(1.0, x + eps);
    }
    return 1;
}

/* Fill mb->C with the rows e_label - e_j, j != label, in order of j.
 * Returns: their count (no - 1). */
static inline int mnist_bench_objectives(mnist_bench *mb, int label)
{
    int no = mb->no, nobj = 0;
    memset(mb->C, 0, sizeof(double) * (size_t)(no * no));
    for (int j = 0; j < no; j++) {
        if (j == label) continue;
        mb->C[nobj * no + label] = 1;
        mb->C[nobj * no + j] = -1;
        nobj++;
    }
    return nobj;
}

/* Returns: the certified margin, min over the objectives' lower bounds. */
static inline double mnist_bench_margin(const double *lw, int nobj)
{
    double m = INFINITY;
    for (int o = 0; o < nobj; o++) m = fmin(m, lw[o]);
    return m;
}

static inline void mnist_bench_close(mnist_bench *mb)
{
    free(mb->C);
    if (mb->f != NULL) fclose(mb->f);
    nnc_bnd_destroy(mb->b);
    nnc_mdl_destroy(mb->m);
}

#endif
