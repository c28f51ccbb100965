/* nncert DLRM embedding distribution: OPER-style placement of embedding
 * tables across D devices (processes or GPUs), its cost model, and the
 * execution of a placement (simulated ranks in one process, or one MPI rank
 * per device).  Prefix: nnc_dlrm_.
 *
 * Execution model (the cost model counts exactly what execution does):
 * the trace's samples are split into D contiguous blocks, block o on device
 * o (data parallel for the dense layers, as in DLRM).  For every lookup of
 * row r of table t by a sample of device o, the devices serving it are
 *   TABLE, ROW, MIXED rows with an owner: the row's owner k;
 *   REPLICATED tables and MIXED replicated rows: o itself;
 *   COLUMN: every device k, each holding a slice of the columns.
 * A serving device reads the row (slice) from its memory: one lookup and
 * dim*4 bytes read.  When k != o, o sends k the 8-byte id and k sends back
 * the row (slice) bytes (OPER's fine-grained remote row access; two
 * all-to-alls per step).  Device o then pools the rows of each bag in id
 * order with the CPU kernel, so the pooled embeddings are bit-identical to a
 * single process's.
 *
 * Predicted time of device k (microseconds):
 *   read_bytes_k / mem_bw + (sent_k + recv_k) / net_bw
 * with mem_bw and net_bw in bytes/us from the options (defaults: 900 GB/s
 * device memory, 50 GB/s per-device all-to-all bandwidth).  A plan's cost is
 * the maximum over devices (the step waits for the slowest one).
 *
 * Thread safety: plans and statistics are read-only after creation. */
#ifndef NNC_DLRM_H
#define NNC_DLRM_H

#include "nncert/nnc.h"
#include "dist/comm.h"
#include "nncert/embbag.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NNC_DLRM_MAX_DEVICES 64

typedef enum nnc_dlrm_shard {
    NNC_DLRM_SHARD_TABLE = 0,      /* whole table on one device */
    NNC_DLRM_SHARD_ROW = 1,        /* contiguous row blocks of ceil(rows / D) */
    NNC_DLRM_SHARD_COLUMN = 2,     /* column slices [k*dim/D, (k+1)*dim/D) */
    NNC_DLRM_SHARD_REPLICATED = 3, /* a copy on every device (data parallel) */
    NNC_DLRM_SHARD_MIXED = 4       /* per row: an owner, or replicated */
} nnc_dlrm_shard;

/* Returns: "table", "row", "column", "replicated" or "mixed". */
const char *nnc_dlrm_shard_name(nnc_dlrm_shard s);

typedef struct nnc_dlrm_table {
    int64_t rows, dim;  /* float32 rows of dim values */
} nnc_dlrm_table;

/* Placement of every table. */
typedef struct nnc_dlrm_plan {
    int devices, n_tables;
    nnc_dlrm_table *tables;   /* n_tables */
    nnc_dlrm_shard *kind;     /* n_tables */
    int *device;              /* n_tables: the device of a TABLE shard */
    int32_t **owner;          /* n_tables: for MIXED, rows entries (device, or -1 replicated); else NULL */
} nnc_dlrm_plan;

void nnc_dlrm_plan_free(nnc_dlrm_plan *p);

/* Per-device counters of one pass over a trace (all of them are additive). */
typedef struct nnc_dlrm_cost {
    int devices;
    int64_t lookups[NNC_DLRM_MAX_DEVICES];    /* rows (slices) read */
    int64_t read_bytes[NNC_DLRM_MAX_DEVICES]; /* bytes of those rows */
    int64_t sent[NNC_DLRM_MAX_DEVICES];       /* bytes sent: ids and rows */
    int64_t recv[NNC_DLRM_MAX_DEVICES];       /* bytes received */
    int64_t mem_bytes[NNC_DLRM_MAX_DEVICES];  /* table bytes stored */
    double time_us[NNC_DLRM_MAX_DEVICES];     /* predicted, see above */
    double max_time_us;
} nnc_dlrm_cost;

typedef struct nnc_dlrm_opts {
    double mem_bw_gbs;        /* device memory bandwidth, GB/s (default 900) */
    double net_bw_gbs;        /* all-to-all bandwidth per device, GB/s (default 50) */
    int64_t mem_per_device;   /* bytes of tables a device may hold; 0: 1.25 * total / D */
} nnc_dlrm_opts;
void nnc_dlrm_opts_default(nnc_dlrm_opts *o);

/* Access statistics of a trace: per row, how often each device's samples
 * read it.  Opaque; read-only once made. */
typedef struct nnc_dlrm_stats nnc_dlrm_stats;

/* In: trace (its n_tables categorical fields are the tables, in order),
 *     tables[n_tables], devices 1..NNC_DLRM_MAX_DEVICES.
 * Returns: OK; INVALID when an id is outside its table; ARG for a bad
 *     device count or fewer samples than devices; NOMEM / LIMIT. */
nnc_status nnc_dlrm_stats_create(nnc_dlrm_stats **out, const nnc_trace *trace, const nnc_dlrm_table *tables,
                                 int n_tables, int devices, char *err, size_t errlen);
void nnc_dlrm_stats_destroy(nnc_dlrm_stats *s);

/* The device that owns sample s of n: device o owns [n*o/D, n*(o+1)/D). */
int nnc_dlrm_sample_device(int64_t s, int64_t n, int devices);

/* Baseline plans: every table of one kind.  TABLE places tables greedily,
 * largest predicted time first, on the device with the least time so far
 * (TorchRec's greedy table-wise placement); the memory limit is not applied
 * to baselines (mem_bytes shows what they need). */
nnc_status nnc_dlrm_plan_uniform(nnc_dlrm_plan *out, const nnc_dlrm_stats *st, nnc_dlrm_shard kind,
                                 const nnc_dlrm_opts *o, char *err, size_t errlen);

/* The heuristic search (OPER-style): replicate the hottest rows while the
 * memory limit allows, then place the other rows, hottest first, each on
 * the device that keeps the maximum predicted time lowest; the result is
 * compared with the uniform plans that fit the limit and the best is
 * returned.  Returns: OK, or LIMIT when no plan fits mem_per_device. */
nnc_status nnc_dlrm_plan_search(nnc_dlrm_plan *out, const nnc_dlrm_stats *st, const nnc_dlrm_opts *o,
                                char *err, size_t errlen);

/* Write c as one JSON object: {"lookups": [per device], "read_bytes",
 * "sent_bytes", "recv_bytes", "mem_bytes", "time_us": [...], "max_time_us"}. */
void nnc_dlrm_cost_write_json(FILE *f, const nnc_dlrm_cost *c);

/* The cost model evaluated from the statistics alone. */
void nnc_dlrm_predict(nnc_dlrm_cost *out, const nnc_dlrm_plan *p, const nnc_dlrm_stats *st, const nnc_dlrm_opts *o);

/* ---- execution ---- */

/* Execute a plan with the devices simulated in this process: every device
 * holds only its shards, builds its id requests, serves the requests it
 * receives from its shards, and pools its samples' bags.  Counts what it
 * actually reads and moves.
 * In: weights[t]: table t's rows*dim stored values (e.g. from
 *     nnc_mdl_embbag_tables); modes[t].
 * Out: pooled (n_samples * sum_t dim_t floats, sample-major, tables in
 *     order; NULL: not written), measured (lookups, bytes, memory; time_us
 *     from the same formula). */
nnc_status nnc_dlrm_exec_sim(float *pooled, nnc_dlrm_cost *measured, const nnc_dlrm_plan *p,
                             const nnc_trace *trace, const double *const *weights,
                             const nnc_embbag_mode *modes, const nnc_dlrm_opts *o, char *err, size_t errlen);

/* The same with one MPI rank per device: the ranks of comm (size =
 * p->devices; the caller initialised MPI).  Every rank passes the whole
 * trace and plan and gets back its own block of samples' pooled embeddings
 * (pooled holds n_samples * sum dim floats; only the rank's rows are
 * written) and its own counters in measured (other devices' entries zero).
 * Returns: UNSUPPORTED in a build without MPI; ARG for NNC_DIST_COMM_NONE. */
nnc_status nnc_dlrm_exec_mpi(nnc_dist_comm comm, float *pooled, nnc_dlrm_cost *measured, const nnc_dlrm_plan *p,
                             const nnc_trace *trace, const double *const *weights,
                             const nnc_embbag_mode *modes, const nnc_dlrm_opts *o, char *err, size_t errlen);

/* The same with one GPU per device, all driven by this process
 * (gpu/dlrm_nccl.cu; devices 0 .. p->devices-1 must exist): every GPU holds
 * its shards; ids and rows move between GPUs with NCCL send/receive groups
 * (one per direction and table: the all-to-alls of the MPI run), the
 * serving GPU gathers the rows with the CPU path's per-element formula
 * (dist/dlrm_math.h), and the requester's rows are pooled by the CPU kernel
 * in id order, so pooled and the counters equal nnc_dlrm_exec_sim's.
 * Returns: UNSUPPORTED in a build without CUDA; DEVICE naming the CUDA/NCCL
 * call that failed; ARG when fewer GPUs than devices are present. */
nnc_status nnc_dlrm_exec_nccl(float *pooled, nnc_dlrm_cost *measured, const nnc_dlrm_plan *p,
                              const nnc_trace *trace, const double *const *weights,
                              const nnc_embbag_mode *modes, const nnc_dlrm_opts *o, char *err, size_t errlen);

/* ---- a DLRM as an ONNX model plus a trace ---- */

/* A loaded model's embedding tables (nncert/embbag.h) in trace order. */
typedef struct nnc_dlrm_model {
    struct nnc_model *model;
    int n_tables;
    nnc_mdl_table_info *info;   /* n_tables */
    nnc_dlrm_table *tables;     /* n_tables */
    const double **weights;     /* n_tables, owned by the model */
    nnc_embbag_mode *modes;     /* n_tables */
    int n_dense;                /* float input elements per sample (the trace's dense fields) */
} nnc_dlrm_model;

/* Load MODEL; Returns: OK, or INVALID when it has no fused embedding bag fed
 * by a graph input (nncert info shows "EmbeddingBag" for those). */
nnc_status nnc_dlrm_model_load(nnc_dlrm_model *out, const char *path, char *err, size_t errlen);
void nnc_dlrm_model_free(nnc_dlrm_model *d);

/* ---- MPI (one rank per device), over the caller's communicator ----
 * Every rank of comm passes its block of rows (count * width floats, blocks
 * in rank order); rank 0 receives them all in out (total * width).  comm
 * NNC_DIST_COMM_NONE (one process): out gets mine. */
nnc_status nnc_dlrm_mpi_gather_f32(nnc_dist_comm comm, float *out, const float *mine, int64_t count, int64_t width,
                                   char *err, size_t errlen);
/* Logical AND of ok over the ranks of comm (ok itself for NNC_DIST_COMM_NONE). */
int nnc_dlrm_mpi_all(nnc_dist_comm comm, int ok);

#ifdef __cplusplus
}
#endif
#endif
