/* nncert embedding bags (models module): the pooled embedding lookup of
 * recommendation models (DLRM), and the reader of their access traces.
 *
 * In a model, Gather(table, ids) followed by ReduceSum/ReduceMean over the
 * ids' last axis (what torch.onnx emits for Embedding(...).sum/mean(dim), and
 * for EmbeddingBag with bags of one fixed length; EmbeddingBag with offsets
 * is exported by torch 1.13 as a Loop, which nncert does not load) is fused at
 * prepare time into one "EmbeddingBag" node run by the kernel below.
 *
 * Thread safety: the functions keep no state; a trace is read-only after it
 * is parsed. */
#ifndef NNC_EMBBAG_H
#define NNC_EMBBAG_H

#include "nncert/nnc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nnc_embbag_mode {
    NNC_EMBBAG_MODE_SUM = 0,
    NNC_EMBBAG_MODE_MEAN = 1
} nnc_embbag_mode;

/* Bags over an id array, as torch.nn.EmbeddingBag takes them: bag b holds
 * ids[offsets[b] .. offsets[b+1]) (the last bag ends at n_ids).  With
 * offsets == NULL every bag holds bag_len consecutive ids and
 * n_ids = n_bags * bag_len. */
typedef struct nnc_embbag_bags {
    const int64_t *ids;
    int64_t n_ids;
    const int64_t *offsets; /* n_bags entries, or NULL */
    int64_t n_bags;
    int64_t bag_len;        /* used when offsets == NULL */
} nnc_embbag_bags;

/* Check bags against a table of `rows` rows.
 * Returns: OK; NNC_STATUS_INVALID naming the first bad item: an id outside
 *     [0, rows), a negative or decreasing offset, an offset past n_ids, a
 *     first offset other than 0, or (unless allow_empty) an empty bag.
 * In: allow_empty: 1 accepts empty bags (they pool to zeros, as torch). */
NNC_API nnc_status nnc_mdl_embbag_check(const nnc_embbag_bags *bags, int64_t rows, int allow_empty,
                                        char *err, size_t errlen);

/* out[b * dim + j] = sum (or mean) over bag b's ids i of table[i * dim + j],
 * summed in id order (models/embbag_math.h).  Checks the bags first
 * (nnc_mdl_embbag_check) and writes nothing when they are bad.
 * In: threads: worker threads (bags are split between them; <= 1: serial). */
NNC_API nnc_status nnc_mdl_embbag_f32(float *out, const float *table, int64_t rows, int64_t dim,
                                      const nnc_embbag_bags *bags, nnc_embbag_mode mode, int allow_empty,
                                      int threads, char *err, size_t errlen);

/* ---- access traces ----
 * Text, one sample per line: n_dense numbers (the dense features), then
 * n_tables categorical fields (one bag per embedding table), separated by
 * commas or tabs.  A categorical field holds the bag's row ids as decimal
 * integers separated by ':' ("17" one lookup, "3:9:12" three, "" an empty
 * bag).  Blank lines and lines starting with '#' are skipped. */
typedef struct nnc_trace {
    int64_t n_samples;
    int n_dense, n_tables;
    float *dense;       /* n_samples * n_dense, sample-major */
    int64_t *ids;       /* every id, sample-major then table order */
    int64_t *offsets;   /* n_samples * n_tables + 1: bag (s, t) is
                           ids[offsets[s*n_tables+t] .. offsets[s*n_tables+t+1]) */
} nnc_trace;

/* Out: *out (release with nnc_mdl_trace_clear; zeroed on failure).
 * Returns: OK, NNC_STATUS_PARSE naming the line and field, NNC_STATUS_LIMIT
 * beyond nnc_max_tensor_bytes(), NNC_STATUS_NOMEM. */
NNC_API nnc_status nnc_mdl_trace_parse(nnc_trace *out, const char *text, size_t len, int n_dense, int n_tables,
                                       char *err, size_t errlen);
NNC_API nnc_status nnc_mdl_trace_read(nnc_trace *out, const char *path, int n_dense, int n_tables,
                                      char *err, size_t errlen);
NNC_API void nnc_mdl_trace_clear(nnc_trace *t);

/* A prepared model's embedding tables, in the order of the graph inputs
 * that feed them (one integer input per fused EmbeddingBag node). */
struct nnc_model;
typedef struct nnc_mdl_table_info {
    const char *input;  /* name of the graph input holding the ids */
    const char *output; /* name of the pooled value [bags per sample, dim] */
    const double *weights; /* rows * dim stored values (owned by the model) */
    int64_t rows, dim;
    int64_t bag_len;    /* ids per bag per sample in the model's input shape */
    nnc_embbag_mode mode;
} nnc_mdl_table_info;

/* Returns: the number of fused EmbeddingBag nodes fed directly by a graph
 * input; fills up to max entries of out (in graph-input order). */
NNC_API int nnc_mdl_embbag_tables(const struct nnc_model *m, nnc_mdl_table_info *out, int max);

/* Fix the categorical ids of a prepared model (models/embbag_fix.c): every
 * integer graph input becomes a constant holding ids[t] (t counts the integer
 * inputs in input order; per-sample element count each) and stops being an
 * input, so a DLRM becomes a model of its float input alone, which the
 * verifier takes.  The runtime then pools the same bags for every sample.
 * Returns: OK; UNSUPPORTED when an integer input feeds anything other than
 *     an EmbeddingBag's ids; INVALID naming an id outside its table (the
 *     model is unchanged then); NOMEM. */
NNC_API nnc_status nnc_mdl_embbag_fix_ids(struct nnc_model *m, const int64_t *const *ids, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
