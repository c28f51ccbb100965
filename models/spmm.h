/* Sparse times dense products for graph workloads (GCN / GraphSAGE / GIN
 * aggregation):  Y[rows,F] = A[rows,cols] X[cols,F],  A in float32 CSR.
 *
 * Used by the runtime for MatMul with a sparse constant left operand, by the
 * multi-process aggregation (dist/gnn.c), the GPU kernels' CPU reference
 * (gpu/spmm.cu) and the benchmarks.  Prefix nnc_mdl_ (models module).
 *
 * Summation order (a contract the bit-exact checks rely on): every output
 * element is
 *     y = 0;  for k = row_ptr[r] .. row_ptr[r+1]-1:  y = fmaf(val[k], x[col[k]][j], y);
 * in that order, whatever the thread count, the vector width or the way the
 * rows are split across processes.  nnc_mdl_spmm_rows_ref is that loop
 * written plainly; the vectorised kernel gives the same bits.
 *
 * Thread safety: a plan is read-only after creation and may be used by
 * several threads at once (each with its own output). */
#ifndef NNC_SPMM_H
#define NNC_SPMM_H

#include "nncert/nnc.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Float32 CSR.  Invariants (nnc_mdl_csr32_check): 0 <= rows, cols < 2^31,
 * row_ptr[0] = 0, row_ptr non-decreasing, row_ptr[rows] = nnz, column
 * indices strictly increasing within a row and < cols.  The arrays are owned
 * by whoever filled the struct. */
typedef struct nnc_mdl_csr32 {
    int32_t rows, cols;
    int32_t nnz;
    int32_t *row_ptr; /* rows + 1 */
    int32_t *col;     /* nnz */
    float *val;       /* nnz */
} nnc_mdl_csr32;

/* Check the CSR invariants.
 * Returns: OK; INVALID naming the first offending row/entry (column out of
 * range, unsorted or duplicate columns, row_ptr not starting at 0, decreasing
 * or not ending at nnz); LIMIT for a negative or oversize count. */
nnc_status nnc_mdl_csr32_check(const nnc_mdl_csr32 *a, char *err, size_t errlen);

/* Free the three arrays of a CSR filled by this module (not the struct). */
void nnc_mdl_csr32_free(nnc_mdl_csr32 *a);

/* Read a GCSR0001 adjacency file (shared/data/graphs/MANIFEST.md: int32
 * header n_nodes, nnz, n_features, n_classes; row_ptr; col_idx) into *out,
 * pattern values 1.  The CSR is checked (nnc_mdl_csr32_check).
 * Returns: OK; IO; PARSE (magic, size); INVALID (CSR invariants). */
nnc_status nnc_mdl_csr32_read_gcsr(nnc_mdl_csr32 *out, const char *path, char *err, size_t errlen);
/* The same from the file's bytes (PARSE also for a size that does not
 * match the header; INVALID for broken CSR invariants). */
nnc_status nnc_mdl_csr32_parse_gcsr(nnc_mdl_csr32 *out, const unsigned char *buf, size_t len, char *err, size_t errlen);

/* Write a GCSR0001 file (n_features and n_classes header fields as given). */
nnc_status nnc_mdl_csr32_write_gcsr(const nnc_mdl_csr32 *a, int32_t n_features, int32_t n_classes, const char *path,
                                    char *err, size_t errlen);

/* GCN normalisation:  out = D^-1/2 (A + I) D^-1/2  for a square pattern A
 * without self loops (a stored diagonal entry is kept once), deg_i = the
 * number of entries of row i of A + I.  Values are computed in double and
 * rounded once to float: value(i,j) = (float)(1 / sqrt(deg_i * deg_j)). */
nnc_status nnc_mdl_csr32_gcn_norm(nnc_mdl_csr32 *out, const nnc_mdl_csr32 *a, char *err, size_t errlen);

/* Synthetic power-law graph (fast Chung-Lu): node i has weight
 * w_i = (i + 1)^(-1/(gamma - 1)); n * avg_deg / 2 edge draws each pick both
 * endpoints independently with probability proportional to w (inverse CDF
 * on Philox4x32-10 uniforms keyed by seed), then self loops are dropped and
 * the edges symmetrised and deduplicated.  Degrees follow a power law with
 * exponent gamma; the mean degree is a little under avg_deg (collisions).
 * The graph is a function of (n, avg_deg, gamma, seed) only.
 * Returns: OK; ARG for n < 1, n > 2^24, avg_deg outside [0, 1000],
 * gamma <= 2; NOMEM. */
nnc_status nnc_mdl_graph_powerlaw(nnc_mdl_csr32 *out, int32_t n, double avg_deg, double gamma, uint64_t seed,
                                  char *err, size_t errlen);

/* Convert the IR's CSR (int64 indices, double values) to float32 CSR; values
 * are rounded to float (exact for a FLOAT sparse_initializer).
 * Returns: OK; LIMIT when a count does not fit int32; NOMEM. */
struct nnc_csr;
nnc_status nnc_mdl_csr32_from_csr(nnc_mdl_csr32 *out, const struct nnc_csr *c, char *err, size_t errlen);

/* A replacement for the runtime's float32 sparse product (see
 * nnc_rt_set_spmm in nncert/model.h): must write Y = A X with the order above. */
typedef void (*nnc_mdl_spmm_fn)(void *ctx, const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y);

/* Execution plan: the row blocks threads take, heaviest first. */
typedef struct nnc_mdl_spmm_plan nnc_mdl_spmm_plan;

/* Build a plan for A with up to `threads` threads (>= 1).  A is borrowed: it
 * must outlive the plan and stay unchanged.  A is not checked here.
 * Returns: OK or NOMEM. */
nnc_status nnc_mdl_spmm_plan_create(nnc_mdl_spmm_plan **out, const nnc_mdl_csr32 *a, int threads, char *err,
                                    size_t errlen);
void nnc_mdl_spmm_plan_destroy(nnc_mdl_spmm_plan *p);

/* Y[rows,F] = A X[cols,F] (row-major, dense, not aliasing), F >= 1. */
void nnc_mdl_spmm(const nnc_mdl_spmm_plan *p, const float *x, int64_t F, float *y);

/* Rows r0..r1-1 of Y = A X, on the calling thread, vectorised when the CPU
 * allows.  y points at row 0 of Y (rows outside the range are untouched).
 * x_row(c) is x + c*F; rows of X that no entry in the range references
 * need not hold valid data. */
void nnc_mdl_spmm_rows(const nnc_mdl_csr32 *a, int32_t r0, int32_t r1, const float *x, int64_t F, float *y);

/* The same rows, plain scalar fmaf loop (the reference for the order). */
void nnc_mdl_spmm_rows_ref(const nnc_mdl_csr32 *a, int32_t r0, int32_t r1, const float *x, int64_t F, float *y);

/* Bytes an SpMM must move at least (the bandwidth-bound model): row_ptr
 * (4 (rows+1)), col and val (8 nnz), X read once (4 cols F) and Y written
 * once (4 rows F).  Time at bandwidth B bytes/s is at least this / B. */
double nnc_mdl_spmm_bytes(const nnc_mdl_csr32 *a, int64_t F);

#ifdef __cplusplus
}
#endif
#endif
