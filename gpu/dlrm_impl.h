/* Internals shared by gpu/dlrm_plan.c and gpu/dlrm_exec.c. */
#ifndef NNC_DLRM_IMPL_H
#define NNC_DLRM_IMPL_H

#include "gpu/dlrm.h"

struct nnc_dlrm_stats {
    int devices, n_tables;
    int64_t n_samples;
    nnc_dlrm_table *tables;
    int64_t **cnt;    /* [t][r * devices + o]: reads of row r by device o's samples */
    int64_t **total;  /* [t][r]: reads of row r */
};

/* Columns [*c0, *c1) of a COLUMN shard on device k. */
void nnc_dlrm_slice(int64_t dim, int devices, int k, int64_t *c0, int64_t *c1);
/* The device holding row r of table t, or -1 (replicated; every device for COLUMN). */
int nnc_dlrm_row_device(const nnc_dlrm_plan *p, int t, int64_t r);
/* Fill time_us and max_time_us from the counters. */
void nnc_dlrm_finish_cost(nnc_dlrm_cost *c, const nnc_dlrm_opts *o);

#endif
