/* Multi-process graph aggregation as MGG does it (Wang et al., "MGG:
 * Accelerating Graph Neural Networks with Fine-Grained Intra-Kernel
 * Communication-Computation Pipelining on Multi-GPU Platforms", OSDI'23),
 * over Open MPI between processes.  Prefix nnc_dist_gnn_.
 *
 * For each sparse matrix A the rows are split into one contiguous range per
 * rank with about equal cost (non-zeros + rows: balanced edges).  A rank
 * aggregates only its rows.  The rows of X it needs but does not own (its
 * halo: the columns its rows reference outside its range) arrive from their
 * owners by MPI_Isend/MPI_Irecv; meanwhile it aggregates its interior rows
 * (those referencing only owned X rows), then, once the halo is in, its
 * boundary rows.  The output rows are then gathered on every rank
 * (MPI_Allgatherv), because the dense layers around the aggregation run
 * replicated on every rank.
 *
 * Each row is summed by the same kernel in the same order as in one process
 * (models/spmm.h), with the halo rows moved byte for byte, so a run over P
 * ranks gives bit-identical outputs to a run in one process.
 *
 * Built with MPI when mpicc is found (NNC_HAVE_MPI); otherwise attach
 * reports UNSUPPORTED.  Use from one thread per process.  The caller owns
 * MPI (initialises and ends it) and passes the communicator. */
#ifndef NNC_DIST_GNN_H
#define NNC_DIST_GNN_H

#include "dist/comm.h"
#include "nncert/model.h"
#include "models/spmm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nnc_dist_gnn nnc_dist_gnn;

/* The partition of one matrix as rank `me` of S sees it (used by the MPI
 * path here and the NCCL path in gpu/spmm.cu).  The buffers at the end
 * belong to the MPI path. */
struct nnc_dist_halo {
    const nnc_mdl_csr32 *a;  /* the matrix (borrowed from the runtime) */
    int32_t *r0;             /* size + 1 row bounds of every rank */
    nnc_mdl_csr32 local;     /* own rows; column c -> c - r0 (owned) or nown + halo slot */
    int32_t nown, nhalo;
    int32_t *recv_ptr;       /* size + 1: halo slots from each peer (halo sorted by global id) */
    int32_t *send_ptr;       /* size + 1 into send_rows */
    int32_t *send_rows;      /* owned rows (global ids) each peer needs */
    int32_t *interior, ninterior; /* local rows touching only owned columns */
    int32_t *boundary, nboundary;
    float *xloc, *sendbuf;   /* (nown + nhalo) * F and send_ptr[size] * F floats */
    int64_t cap_f;           /* F the buffers are sized for */
    int *counts, *displs;    /* Allgatherv, in floats */
};

typedef struct nnc_dist_halo nnc_dist_halo;

/* Build rank me's partition of A among S ranks.  Returns NULL when out of
 * memory.  A is borrowed (p->a). */
nnc_dist_halo *nnc_dist_halo_build(const nnc_mdl_csr32 *a, int me, int S);
void nnc_dist_halo_free(nnc_dist_halo *p);

/* Route rt's float32 sparse products through the partitioned aggregation
 * over the ranks of comm (the caller initialised MPI and keeps comm valid
 * until detach; the library never initialises or ends MPI).  Every rank
 * must load the same model and run the same inputs.  rt NULL: no hook (the
 * caller drives nnc_dist_gnn_spmm itself).
 * Returns: OK; ARG when MPI is not initialised or comm is
 * NNC_DIST_COMM_NONE; UNSUPPORTED in a build without MPI; NOMEM. */
nnc_status nnc_dist_gnn_attach(nnc_dist_gnn **out, nnc_runtime *rt, nnc_dist_comm comm, char *err, size_t errlen);

/* Restore rt's CPU kernel and free the partitions.  NULL is a no-op. */
void nnc_dist_gnn_detach(nnc_dist_gnn *d, nnc_runtime *rt);

/* Y = A X, partitioned as above (the nnc_mdl_spmm_fn the runtime calls).
 * Collective: every rank calls it with the same A, F and full-size X; every
 * rank gets the full Y.  Only the owned rows of X are read locally.  The
 * partition is cached per matrix (by its address) for the context's life:
 * A must stay unchanged and allocated until detach. */
void nnc_dist_gnn_spmm(void *d, const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y);

/* Row range [*r0, *r1) rank `rank` of `size` owns for A (balanced cost). */
void nnc_dist_gnn_rows(const nnc_mdl_csr32 *a, int rank, int size, int32_t *r0, int32_t *r1);

#ifdef __cplusplus
}
#endif
#endif
