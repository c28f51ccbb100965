/* Internals shared by dist/dlrm_plan.c, dist/dlrm_exec.c and gpu/dlrm_nccl.cu. */
#ifndef NNC_DLRM_IMPL_H
#define NNC_DLRM_IMPL_H

#include "dist/dlrm.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- the steps of one execution (dist/dlrm_exec.c), shared by the
 * simulated, MPI and NCCL runs ---- */

/* What device k holds. */
typedef struct nnc_dlrm_store {
    int n_tables;
    float **rows;      /* per table: held rows, width[t] floats each */
    int64_t **local;   /* per table: global row -> held index or -1; NULL: all rows, index = row */
    int64_t *width, *c0;
    int64_t mem;       /* bytes held */
} nnc_dlrm_store;

/* One requester's lookups of one table served by one device. */
typedef struct nnc_dlrm_reqs {
    int64_t *ids, *slot; /* ids and the lookup positions they fill */
    int64_t n, cap;
} nnc_dlrm_reqs;

/* Returns 0, or -1 when out of memory. */
int nnc_dlrm_store_build(nnc_dlrm_store *s, const nnc_dlrm_plan *p, int k, const double *const *weights);
void nnc_dlrm_store_free(nnc_dlrm_store *s);
int nnc_dlrm_req_push(nnc_dlrm_reqs *q, int64_t id, int64_t slot);
/* Serve ids from the store (n * width floats into out), counting the reads
 * as device k's.  Returns -1 when a row is not held. */
int nnc_dlrm_serve(float *out, const nnc_dlrm_store *s, int t, const int64_t *ids, int64_t n, nnc_dlrm_cost *c, int k);
/* Route requester o's lookups of table t (samples [s0, s1)) to q[0..D);
 * local pieces are served into asm_rows at once unless queue_local.
 * Returns 0, -1 (a row not held), -2 (out of memory). */
int nnc_dlrm_route(float *asm_rows, nnc_dlrm_reqs *q, const nnc_dlrm_store *own, const nnc_dlrm_plan *p, const nnc_trace *tr,
                   int t, int o, int64_t s0, int64_t s1, nnc_dlrm_cost *c, int queue_local);
/* Pool the assembled rows (P * dim, lookup order) of samples [s0, s1) into
 * pooled (rows of dsum floats, this table at column off), CPU kernel. */
nnc_status nnc_dlrm_pool(float *pooled, const float *asm_rows, int64_t P, const nnc_trace *tr, int t, int64_t s0, int64_t s1,
                         int64_t dim, int64_t dsum, int64_t off, nnc_embbag_mode mode, char *err, size_t errlen);
int64_t nnc_dlrm_block_lookups(const nnc_trace *tr, int t, int64_t s0, int64_t s1);
nnc_status nnc_dlrm_check_inputs(const nnc_dlrm_plan *p, const nnc_trace *tr, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
