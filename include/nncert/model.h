/* nncert models module: ONNX loading, the IR, shape inference, constant
 * folding and the batched float reference runtime.
 *
 * Lifecycle:
 *   nnc_mdl_parse()      bytes -> graph (names, nodes, constants), no shapes yet
 *   nnc_mdl_bind_input() optional: turn a graph input into a constant
 *   nnc_mdl_prepare()    shape inference, constant folding, BN folding,
 *                        dead-node removal; after it the model is immutable
 *   nnc_mdl_load()       parse + prepare in one call
 *   nnc_rt_create()      a runtime (buffers for up to max_batch samples)
 *   nnc_rt_run()         evaluate a batch
 *
 * Batch convention: every shape in the IR is the shape of ONE sample as the
 * model declares it (a symbolic dimension such as "N" is taken as 1).  The
 * runtime evaluates `batch` independent samples stacked along a new outer
 * axis; for a model whose declared leading dimension is 1 this is exactly the
 * usual batched evaluation.
 *
 * Thread safety: a prepared nnc_model is read-only and may be shared by
 * threads; an nnc_runtime must be used by one thread at a time. */
#ifndef NNC_MODEL_H
#define NNC_MODEL_H

#include "nncert/nnc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NNC_MAX_RANK 8

/* Element types, numbered as ONNX TensorProto.DataType. */
typedef enum nnc_dtype {
    NNC_DTYPE_UNDEFINED = 0,
    NNC_DTYPE_FLOAT = 1,
    NNC_DTYPE_UINT8 = 2,
    NNC_DTYPE_INT8 = 3,
    NNC_DTYPE_UINT16 = 4,
    NNC_DTYPE_INT16 = 5,
    NNC_DTYPE_INT32 = 6,
    NNC_DTYPE_INT64 = 7,
    NNC_DTYPE_BOOL = 9,
    NNC_DTYPE_DOUBLE = 11,
    NNC_DTYPE_UINT32 = 12,
    NNC_DTYPE_UINT64 = 13
} nnc_dtype;

/* Returns: ONNX's name of the type ("float", "int64", ...). */
NNC_API const char *nnc_dtype_name(nnc_dtype t);
/* Returns: 1 for FLOAT and DOUBLE (computed in the runtime's precision). */
NNC_API int nnc_dtype_is_float(nnc_dtype t);

/* A tensor's static type as the user sees it. */
typedef struct nnc_tensor_info {
    const char *name;           /* owned by the model */
    nnc_dtype dtype;
    int rank;
    int64_t dims[NNC_MAX_RANK]; /* per sample, see the batch convention */
    int64_t numel;              /* product of dims (1 for rank 0) */
    int dynamic_leading;        /* 1 when dims[0] was symbolic in the file */
} nnc_tensor_info;

typedef struct nnc_model nnc_model;

/* Parse an ONNX ModelProto.
 * Returns: NNC_STATUS_OK, or a code with a one-line message in err.
 * Out: *out, a model to release with nnc_mdl_destroy (NULL on failure).
 * In: buf/len the serialized bytes; basedir the folder that external data
 *     locations are relative to (NULL: external data is refused). */
NNC_API nnc_status nnc_mdl_parse(nnc_model **out, const void *buf, size_t len, const char *basedir, char *err,
                                 size_t errlen);

/* Read a file and parse it (basedir = the file's folder). */
NNC_API nnc_status nnc_mdl_parse_file(nnc_model **out, const char *path, char *err, size_t errlen);

/* Bind a graph input to constant data before nnc_mdl_prepare (used for
 * shape-like integer inputs).  data holds numel elements of type dtype
 * (float for FLOAT, double for DOUBLE, int64_t for every integer type). */
NNC_API nnc_status nnc_mdl_bind_input(nnc_model *m, const char *name, nnc_dtype dtype, int rank, const int64_t *dims,
                                      const void *data, char *err, size_t errlen);

/* Override a graph input's declared shape before nnc_mdl_prepare. */
NNC_API nnc_status nnc_mdl_set_input_shape(nnc_model *m, const char *name, int rank, const int64_t *dims, char *err,
                                           size_t errlen);

typedef struct nnc_prepare_opts {
    int fold_batchnorm;    /* fold BatchNormalization into a preceding Conv/Gemm (default 1) */
    int fold_constants;    /* evaluate nodes whose inputs are all constant (default 1) */
    int fuse_embbag;       /* Gather(table) + ReduceSum/Mean -> EmbeddingBag (default 1; nncert/embbag.h) */
} nnc_prepare_opts;
NNC_API void nnc_prepare_opts_default(nnc_prepare_opts *o);

/* Shape inference, folding, checks.  opts may be NULL for defaults. */
NNC_API nnc_status nnc_mdl_prepare(nnc_model *m, const nnc_prepare_opts *opts, char *err, size_t errlen);

/* nnc_mdl_parse_file + nnc_mdl_prepare(default options). */
NNC_API nnc_status nnc_mdl_load(nnc_model **out, const char *path, char *err, size_t errlen);

NNC_API void nnc_mdl_destroy(nnc_model *m);

/* Introspection (valid after prepare). */
NNC_API int nnc_mdl_num_inputs(const nnc_model *m);
NNC_API int nnc_mdl_num_outputs(const nnc_model *m);
NNC_API void nnc_mdl_input_info(const nnc_model *m, int i, nnc_tensor_info *out);
NNC_API void nnc_mdl_output_info(const nnc_model *m, int i, nnc_tensor_info *out);
NNC_API int64_t nnc_mdl_opset(const nnc_model *m);
NNC_API int64_t nnc_mdl_ir_version(const nnc_model *m);
NNC_API const char *nnc_mdl_producer(const nnc_model *m);
/* Number of live nodes after prepare, and node i's operator name. */
NNC_API int nnc_mdl_num_nodes(const nnc_model *m);
NNC_API const char *nnc_mdl_node_op(const nnc_model *m, int i);
NNC_API const char *nnc_mdl_node_name(const nnc_model *m, int i);
/* Elements of all float constants used by live nodes. */
NNC_API int64_t nnc_mdl_param_count(const nnc_model *m);
/* SHA-256 of the bytes the model was parsed from. */
NNC_API void nnc_mdl_sha256(const nnc_model *m, uint8_t out[32]);
/* Returns: the comma-separated list of supported operator names (static). */
NNC_API const char *nnc_mdl_supported_ops(void);

/* A standalone tensor (e.g. a serialized ONNX TensorProto test vector). */
typedef struct nnc_tensor {
    nnc_dtype dtype;
    int rank;
    int64_t dims[NNC_MAX_RANK];
    int64_t numel;
    double *f;   /* float types (exact), or NULL */
    int64_t *i;  /* integer and bool types, or NULL */
} nnc_tensor;

/* Parse a serialized onnx.TensorProto (raw_data or typed fields).
 * Out: *out (release with nnc_tensor_clear). */
NNC_API nnc_status nnc_tensor_parse_pb(nnc_tensor *out, const void *buf, size_t len, char *err, size_t errlen);
NNC_API void nnc_tensor_clear(nnc_tensor *t);

/* Read a whole file into a fresh buffer (at most max_bytes).
 * Out: *buf (free()), *len. */
NNC_API nnc_status nnc_read_file(const char *path, size_t max_bytes, unsigned char **buf, size_t *len, char *err,
                                 size_t errlen);

/* ---- input files ---- */

/* Inputs for one evaluation, as doubles (integers exact up to 2^53). */
typedef struct nnc_inputs {
    int n;          /* = nnc_mdl_num_inputs */
    int batch;      /* samples */
    double **data;  /* data[i]: batch * numel(input i) values, sample-major */
} nnc_inputs;

/* Read the model's inputs from a file: a JSON array (nested to the input's
 * shape or flat; a multiple of the per-sample size is a batch), a .npy file
 * (float32/float64/int32/int64/uint8, C order), or a JSON object keyed by
 * input name whose members are arrays or {"shape": [...], "data": [...]}.
 * Out: *out, released with nnc_inputs_clear. */
NNC_API nnc_status nnc_mdl_read_inputs(const nnc_model *m, const char *path, nnc_inputs *out, char *err, size_t errlen);
/* Same, from bytes; is_npy selects the format. */
NNC_API nnc_status nnc_mdl_parse_inputs(const nnc_model *m, const unsigned char *buf, size_t len, int is_npy,
                                        nnc_inputs *out, char *err, size_t errlen);
NNC_API void nnc_inputs_clear(nnc_inputs *in);

/* Parse a .npy file's bytes.  Out: *data (malloc'd doubles), rank, dims. */
NNC_API nnc_status nnc_npy_parse(const unsigned char *buf, size_t len, double **data, int *rank,
                                 int64_t dims[NNC_MAX_RANK], char *err, size_t errlen);

/* ---- runtime ---- */

typedef enum nnc_precision {
    NNC_PRECISION_F32 = 0,
    NNC_PRECISION_F64 = 1
} nnc_precision;

typedef struct nnc_runtime nnc_runtime;

/* Returns: OK or a code (e.g. NNC_STATUS_LIMIT when buffers for max_batch
 * samples would exceed nnc_max_tensor_bytes() per tensor).
 * In: m, a prepared model that must outlive the runtime. */
NNC_API nnc_status nnc_rt_create(nnc_runtime **out, const nnc_model *m, nnc_precision prec, int max_batch, char *err,
                                 size_t errlen);
NNC_API void nnc_rt_destroy(nnc_runtime *rt);

/* Route the float32 runtime's sparse products (MatMul with a sparse constant
 * left operand, models/spmm.h) through fn(ctx, A, X, F, Y) instead of the
 * threaded CPU kernel; fn must give the same bits (spmm.h's order).  Used by
 * the multi-process aggregation (nnc_dist_gnn_*).  fn NULL restores the
 * kernel.  A float64 runtime ignores it. */
struct nnc_mdl_csr32;
NNC_API void nnc_rt_set_spmm(nnc_runtime *rt,
                             void (*fn)(void *ctx, const struct nnc_mdl_csr32 *a, const float *x, int64_t F, float *y),
                             void *ctx);

/* Supply the value NAME (the output of a single-output node) instead of
 * computing it: later nnc_rt_run calls skip that node and copy batch *
 * numel elements (the runtime's element types) from data.  data NULL
 * computes it again.  Distributed DLRM execution (dist/dlrm.h) feeds the
 * pooled embeddings it gathered from other processes this way. */
NNC_API nnc_status nnc_rt_set_value(nnc_runtime *rt, const char *name, const void *data, char *err, size_t errlen);

/* Threads of later nnc_rt_run calls (default 2; 1: the calling thread
 * only).  A batch is evaluated in tiles of samples sized by the model (about
 * 256 KiB of values each), the tiles in parallel, each on one thread; a
 * single tile uses the threads inside the packed dense products.  OpenBLAS
 * is set to one thread during a run (its products' row blocking and
 * rounding then depend on neither the batch nor the threads).  A model with sparse products runs its tiles one after another
 * (their kernel has its own two threads).  A sample's result does not
 * depend on the thread count.
 * Returns: OK, ARG (threads < 1) or NOMEM (the runtime unchanged). */
NNC_API nnc_status nnc_rt_set_threads(nnc_runtime *rt, int threads);

/* Evaluate `batch` samples (1 <= batch <= max_batch).
 * In: inputs[i] points to batch * numel(input i) elements: float (F32) or
 *     double (F64) for float inputs, int64_t for integer inputs, sample-major.
 * Out: outputs[j] receives batch * numel(output j) elements of the same
 *     convention. */
NNC_API nnc_status nnc_rt_run(nnc_runtime *rt, int batch, const void *const *inputs, void *const *outputs, char *err,
                              size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
