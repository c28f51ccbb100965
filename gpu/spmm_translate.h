/* TC-GNN's sparse graph translation (Wang et al., "TC-GNN: Bridging Sparse
 * GNN Computation and Dense Tensor Cores on GPUs", USENIX ATC'23), plain C
 * so that the CPU tests check it and the CUDA kernels (gpu/spmm.cu) consume
 * it.  Prefix nnc_gpu_sgt_.
 *
 * The rows of A are cut into windows of NNC_SGT_H = 16 rows.  Within a
 * window the distinct column indices of its non-zeros are listed in
 * ascending order ("condensed" columns); consecutive groups of NNC_SGT_W = 8
 * of them form the window's 16x8 tiles, so a window with u distinct columns
 * has ceil(u/8) tiles however far apart the columns are.  A tile times the
 * 8 matching rows of X is one dense MMA; entry k of A sits in its window's
 * tile edge_pos[k] / 8, tile column edge_pos[k] % 8, tile row (row % 16).
 *
 * Windows whose tiles would be mostly zeros are cheaper on CUDA cores:
 * nnc_gpu_sgt_dense_window says which path a window takes. */
#ifndef NNC_GPU_SPMM_TRANSLATE_H
#define NNC_GPU_SPMM_TRANSLATE_H

#include "models/spmm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NNC_SGT_H 16 /* rows per window (the MMA's M) */
#define NNC_SGT_W 8  /* condensed columns per tile (the tf32 MMA's K) */
/* A window goes to the tensor cores when it has at least this many
 * non-zeros per 16x8 tile (1/16 of the tile); sparser windows run the
 * CUDA-core CSR kernel. */
#define NNC_SGT_MIN_TILE_NNZ 8

typedef struct nnc_gpu_sgt {
    int32_t rows, cols, nnz;
    int32_t n_windows;   /* ceil(rows / 16) */
    int32_t *win_col_ptr; /* n_windows + 1: offsets into win_cols */
    int32_t *win_cols;    /* condensed columns of each window, ascending */
    int32_t *win_tile_ptr; /* n_windows + 1: first tile of each window */
    int32_t *edge_pos;    /* nnz: index of entry k in its window's condensed list */
    int64_t n_tiles;
} nnc_gpu_sgt;

/* Translate a checked CSR (nnc_mdl_csr32_check).
 * Returns: OK or NOMEM.  Free with nnc_gpu_sgt_free. */
nnc_status nnc_gpu_sgt_build(nnc_gpu_sgt *out, const nnc_mdl_csr32 *a, char *err, size_t errlen);
void nnc_gpu_sgt_free(nnc_gpu_sgt *t);

/* Out: tile (16x8 floats, row-major, zeros where A has no entry) and
 * cols[8] (the A column of each tile column, -1 past the window's list).
 * In: window w, tile i of that window (0 <= i < tiles of w). */
void nnc_gpu_sgt_tile(float tile[NNC_SGT_H * NNC_SGT_W], int32_t cols[NNC_SGT_W], const nnc_gpu_sgt *t,
                      const nnc_mdl_csr32 *a, int32_t w, int32_t i);

/* Returns: 1 when window w should use the tensor-core path. */
int nnc_gpu_sgt_dense_window(const nnc_gpu_sgt *t, const nnc_mdl_csr32 *a, int32_t w);

/* ---- GPU SpMM (gpu/spmm.cu); without CUDA these report UNSUPPORTED ---- */

typedef enum nnc_gpu_spmm_mode {
    NNC_GPU_SPMM_AUTO = 0, /* tensor cores (tf32) for dense windows, CUDA cores for sparse ones */
    NNC_GPU_SPMM_CSR = 1,  /* CUDA cores only: spmm.h's order, bit-identical to the CPU */
    NNC_GPU_SPMM_TC = 2    /* every window on tensor cores */
} nnc_gpu_spmm_mode;

/* Y[rows,F] = A X[cols,F] on device 0 (host buffers in and out).  The
 * tensor-core path multiplies in tf32 (inputs rounded to 10 mantissa bits,
 * float accumulation): |y - exact| <= 2^-9 * sum_k |a_k x_k| + the float
 * summation error, the tolerance gpu/check.sh applies.  reps >= 1 kernel
 * launches are timed; *ms (may be NULL) gets the median in milliseconds.
 * Returns: OK; UNSUPPORTED (no CUDA build); DEVICE (no device, a CUDA
 * failure naming the call); NOMEM. */
nnc_status nnc_gpu_spmm_f32(const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y, nnc_gpu_spmm_mode mode, int reps,
                            double *ms, char *err, size_t errlen);

/* The same product over ndev GPUs of one process, as MGG splits it: rows by
 * balanced cost (nnc_dist_gnn_rows), each device holding only its own X
 * rows, halo rows exchanged with NCCL (ncclSend/ncclRecv in one group on a
 * communication stream) while the interior rows aggregate on a compute
 * stream; CUDA-core kernel, so bit-identical to the CPU.
 * Returns: as nnc_gpu_spmm_f32; ARG when ndev exceeds the device count. */
nnc_status nnc_gpu_spmm_multi_f32(const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y, int ndev, char *err,
                                  size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
