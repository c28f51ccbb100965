/* dist_gnn_check: under mpirun, check the partitioned aggregation
 * (dist/gnn.h) against the single-process kernel, bit for bit, on
 * power-law graphs at several F.  Each rank poisons (NaN) every row of X it
 * does not own, so a correct result proves the halo rows really came over
 * MPI from their owners.  Prints "dist_gnn_check: ranks P ok" on rank 0 and
 * exits 0; exits 1 on a mismatch, 77 in a build without MPI. */
#include "dist/gnn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NNC_HAVE_MPI
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char err[NNC_ERRBUF_SIZE];
    static const int32_t ns[3] = {1, 37, 3001};
    static const int64_t Fs[4] = {1, 16, 33, 128};
    for (int gi = 0; gi < 3; gi++) {
        nnc_mdl_csr32 g, a;
        if (nnc_mdl_graph_powerlaw(&g, ns[gi], 8.0, 2.3, 11, err, sizeof err) ||
            nnc_mdl_csr32_gcn_norm(&a, &g, err, sizeof err)) {
            fprintf(stderr, "dist_gnn_check: %s\n", err);
            MPI_Abort(MPI_COMM_WORLD, 70);
        }
        nnc_mdl_csr32_free(&g);
        /* no runtime: drive the aggregation directly (MPI is already
         * initialised); one context per matrix, as the partition is cached */
        nnc_dist_gnn *d;
        if (nnc_dist_gnn_attach(&d, NULL, MPI_COMM_WORLD, err, sizeof err) != NNC_STATUS_OK) MPI_Abort(MPI_COMM_WORLD, 70);
        int32_t r0, r1;
        nnc_dist_gnn_rows(&a, rank, size, &r0, &r1);
        for (int fi = 0; fi < 4; fi++) {
            int64_t F = Fs[fi];
            size_t nx = (size_t)a.rows * F;
            float *x = malloc(nx * sizeof(float) + 4), *y = malloc(nx * sizeof(float) + 4),
                  *ref = malloc(nx * sizeof(float) + 4);
            for (size_t k = 0; k < nx; k++) x[k] = (float)sin(0.37 * (double)k + gi);
            nnc_mdl_spmm_rows_ref(&a, 0, a.rows, x, F, ref);
            for (int32_t r = 0; r < a.rows; r++)
                if (r < r0 || r >= r1)
                    for (int64_t j = 0; j < F; j++) x[(size_t)r * F + j] = NAN;
            nnc_dist_gnn_spmm(d, &a, x, F, y);
            nnc_dist_gnn_spmm(d, &a, x, F, y); /* the cached partition, again */
            if (memcmp(y, ref, nx * sizeof(float)) != 0) {
                fprintf(stderr, "dist_gnn_check: rank %d: n=%d F=%lld differs from one process\n", rank, (int)a.rows,
                        (long long)F);
                bad = 1;
            }
            free(x);
            free(y);
            free(ref);
        }
        nnc_dist_gnn_detach(d, NULL);
        nnc_mdl_csr32_free(&a);
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any) printf("dist_gnn_check: ranks %d ok\n", size);
    MPI_Finalize();
    return any ? 1 : 0;
}
#else
int main(void)
{
    printf("dist_gnn_check: built without MPI, skipped\n");
    return 77;
}
#endif
