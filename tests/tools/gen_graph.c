/* gen_graph: write a synthetic power-law graph (nnc_mdl_graph_powerlaw,
 * fast Chung-Lu on Philox) as a GCSR0001 adjacency file, so the graph models,
 * demo and tests run without ../shared.
 *
 *   gen_graph --nodes N --degree D [--gamma G] [--seed S] --out FILE.csr
 *
 * Prints "nodes N edges E max_degree M isolated I" on success. */
#include "models/spmm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return *s && *end == 0;
}

int main(int argc, char **argv)
{
    double n = 0, deg = -1, gamma = 2.5, seed = 0;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        double *slot = NULL;
        if (strcmp(argv[i], "--help") == 0) {
            printf("usage: gen_graph --nodes N --degree D [--gamma G] [--seed S] --out FILE.csr\n");
            return 0;
        }
        if (i + 1 >= argc) break;
        if (strcmp(argv[i], "--nodes") == 0) slot = &n;
        else if (strcmp(argv[i], "--degree") == 0) slot = &deg;
        else if (strcmp(argv[i], "--gamma") == 0) slot = &gamma;
        else if (strcmp(argv[i], "--seed") == 0) slot = &seed;
        else if (strcmp(argv[i], "--out") == 0) {
            out = argv[++i];
            continue;
        }
        if (slot == NULL || !parse(argv[++i], slot)) {
            fprintf(stderr, "gen_graph: bad option or value near '%s'\n", argv[i]);
            return 64;
        }
    }
    if (out == NULL || n < 1 || n != (double)(int32_t)n || seed < 0 || seed != (double)(uint64_t)seed) {
        fprintf(stderr, "usage: gen_graph --nodes N --degree D [--gamma G] [--seed S] --out FILE.csr\n");
        return 64;
    }
    char err[NNC_ERRBUF_SIZE];
    nnc_mdl_csr32 g;
    if (nnc_mdl_graph_powerlaw(&g, (int32_t)n, deg, gamma, (uint64_t)seed, err, sizeof err) != NNC_STATUS_OK ||
        nnc_mdl_csr32_write_gcsr(&g, 0, 0, out, err, sizeof err) != NNC_STATUS_OK) {
        fprintf(stderr, "gen_graph: %s\n", err);
        return 65;
    }
    int32_t maxd = 0, iso = 0;
    for (int32_t r = 0; r < g.rows; r++) {
        int32_t d = g.row_ptr[r + 1] - g.row_ptr[r];
        maxd = d > maxd ? d : maxd;
        iso += d == 0;
    }
    printf("nodes %d edges %d max_degree %d isolated %d\n", (int)g.rows, (int)g.nnz / 2, (int)maxd, (int)iso);
    nnc_mdl_csr32_free(&g);
    return 0;
}
