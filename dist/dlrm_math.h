/* Per-element formulas of distributed DLRM lookups, compiled by gcc
 * (dist/dlrm_exec.c) and nvcc (gpu/dlrm_nccl.cu) alike, so the GPU serves
 * exactly the bytes the CPU path serves. */
#ifndef NNC_DLRM_MATH_H
#define NNC_DLRM_MATH_H

#include <stdint.h>

#if defined(__CUDACC__)
#define NNC_DLRM_HD static inline __host__ __device__
#else
#define NNC_DLRM_HD static inline
#endif

/* Index of global row `id` among a device's held rows: local maps global
 * rows to held indices (-1: not held); NULL means every row, in order. */
NNC_DLRM_HD int64_t nnc_dlrm_held_index(const int64_t *local, int64_t id) { return local ? local[id] : id; }

/* Column c of a served row: the held rows are `w` floats each (the
 * device's slice of the table's columns). */
NNC_DLRM_HD float nnc_dlrm_gathered(const float *rows, const int64_t *local, int64_t w, int64_t id, int64_t c)
{
    return rows[nnc_dlrm_held_index(local, id) * w + c];
}

#endif
