/* Batched reference runtime: buffer planning and execution. */
#include "models/model_impl.h"
#include "models/sgemm.h"
#include "models/spmm.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Bytes of batched values per tile (tile_bytes: half a core's L2 cache): a
 * batch is evaluated in tiles of rt->tile samples, each run through the
 * whole graph while its values are still in cache, the tiles in parallel.
 * A tile holds at most rt->tile samples, which depends on the model, the
 * precision and the CPU's cache only; a run splits
 * its batch into tiles as equal as that allows, as many as the threads (or
 * a multiple) where the batch has room, so no thread waits on another's
 * larger tile.  Every kernel computes a sample's values from that sample
 * alone, in an order that does not depend on the other samples of its call,
 * so a sample's result depends on neither its tile nor the thread count;
 * products that BLAS runs over stacked samples are the exception (their row
 * blocks of NNC_GEMM_ROWS count from the call's first row, kernels_impl.h),
 * so with them every tile holds a multiple of NNC_GEMM_ROWS samples and
 * their blocks fall where they would untiled.
 *
 * Two segments: where the values of a suffix of the order (those it writes,
 * and those it reads from before it) take at most 1/NNC_RT_TAIL_RATIO of a
 * sample's bytes, as a convolutional net's dense head after its Flatten,
 * the batch goes through the prefix tile by tile and then through that
 * suffix in tiles sized by its own bytes: its products then see many
 * samples at once (a dense layer's weights read once per tile, not once per
 * few samples).  Every batched value has a buffer of its own for the whole
 * batch, so the suffix reads the prefix's results of every tile. */
#define NNC_RT_TILE_MIN_BYTES ((uint64_t)1 << 18) /* where the L2 is unknown or smaller */
#define NNC_RT_TILE_MAX_BYTES ((uint64_t)1 << 22)
#define NNC_RT_TAIL_RATIO 8
#define NNC_RT_THREADS 2 /* default threads of a runtime */

/* A dense layer run by the packed float32 GEMM (models/sgemm.c): a Gemm or
 * MatMul with a constant 2-D right operand on per-sample rows, optionally
 * followed by the Add of a constant bias row and a Relu, which are then
 * skipped (their outputs alias this node's output). */
typedef struct fused_dense {
    nnc_sgemm_b *b;
    float *bias;    /* N values, or NULL */
    int relu;
    int out;        /* value written (the last fused node's output) */
    int64_t rows;   /* rows per sample */
} fused_dense;

struct nnc_runtime {
    const nnc_model *m;
    nnc_precision prec;
    int max_batch;
    void **buf;              /* per value */
    unsigned char *batched;  /* per value */
    unsigned char *owned;    /* per value: buf[v] allocated here */
    int *alias;              /* per value: value whose buffer it shares, or -1 */
    int tile;                /* most samples per tile (see tile_bytes) */
    int granule;             /* a tile holds a multiple of this many samples */
    int seg;                 /* > 0: the tail segment's first position in m->order (see above), else 0 */
    int tile2;               /* with seg: most samples per tile of the tail */
    void **scratch;          /* per thread, scratch_bytes each (a tile's needs) */
    size_t scratch_bytes;
    void ***tbuf;            /* per thread: buf offset to its tile */
    fused_dense **dense;     /* per position in m->order, or NULL */
    unsigned char *skip;     /* per position in m->order: fused into an earlier node */
    int *relu_after;         /* per position: 1 + the value of the Relu fused after a Conv, or 0 */
    int *add_in, *add_out;   /* per position: a Conv's fused residual Add (see nnc_exec), or 0 */
    int *pool_after;         /* per position: 1 + the position of a MaxPool fused after that Relu, or 0 */
    void **prep;             /* per position: a Conv's prepared filters (nnc_op_conv_prep_*), or NULL */
    int threads;
    /* float32 sparse products (MatMul with a sparse constant left operand) */
    nnc_mdl_csr32 **sp_a;          /* per position in m->order, or NULL */
    nnc_mdl_spmm_plan **sp_plan;   /* per position, with sp_a */
    nnc_mdl_spmm_fn sp_fn;         /* replacement kernel (nnc_rt_set_spmm) or NULL */
    void *sp_ctx;
    const void **ext;        /* per value: caller-supplied data (nnc_rt_set_value), or NULL */
};

static size_t elem_size(nnc_precision p, nnc_dtype t)
{
    if (!nnc_dtype_is_float(t)) return sizeof(int64_t);
    return p == NNC_PRECISION_F32 ? sizeof(float) : sizeof(double);
}

/* Whether node n's first output is its first input's data unchanged: the
 * runtime shares the buffer, and the kernel (copy) sees the alias. */
static int is_view(const nnc_model *m, const nnc_node *n)
{
    nnc_op op = n->op;
    return op == NNC_OP_IDENTITY || op == NNC_OP_DROPOUT || op == NNC_OP_FLATTEN || op == NNC_OP_RESHAPE ||
           op == NNC_OP_SQUEEZE || op == NNC_OP_UNSQUEEZE || (op == NNC_OP_PAD && nnc_pad_is_identity(m, n));
}

void nnc_rt_destroy(nnc_runtime *rt)
{
    if (rt == NULL) return;
    if (rt->buf)
        for (int v = 0; v < rt->m->n_vals; v++)
            if (rt->owned[v]) free(rt->buf[v]);
    free(rt->buf);
    free(rt->batched);
    free(rt->owned);
    free(rt->alias);
    for (int k = 0; rt->scratch && k < rt->threads; k++) free(rt->scratch[k]);
    free(rt->scratch);
    for (int k = 0; rt->tbuf && k < rt->threads; k++) free(rt->tbuf[k]);
    free(rt->tbuf);
    if (rt->dense)
        for (int t = 0; t < rt->m->n_order; t++)
            if (rt->dense[t]) {
                nnc_sgemm_free_b(rt->dense[t]->b);
                free(rt->dense[t]->bias);
                free(rt->dense[t]);
            }
    free(rt->dense);
    free(rt->skip);
    free(rt->relu_after);
    free(rt->add_in);
    free(rt->add_out);
    free(rt->pool_after);
    for (int t = 0; rt->prep && t < rt->m->n_order; t++) free(rt->prep[t]);
    free(rt->prep);
    if (rt->sp_a)
        for (int t = 0; t < rt->m->n_order; t++)
            if (rt->sp_a[t]) {
                nnc_mdl_spmm_plan_destroy(rt->sp_plan[t]);
                nnc_mdl_csr32_free(rt->sp_a[t]);
                free(rt->sp_a[t]);
            }
    free(rt->sp_a);
    free(rt->sp_plan);
    free(rt->ext);
    free(rt);
}

/* Number of live nodes reading value v, plus one if it is a graph output. */
static int uses(const nnc_model *m, int v, int *only)
{
    int c = m->vals[v].is_output;
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i] == v) {
                c++;
                *only = t;
            }
    }
    return c;
}

static const nnc_value *dense_const(const nnc_model *m, int v)
{
    if (v < 0) return NULL;
    const nnc_value *val = &m->vals[v];
    return (val->kind == NNC_VAL_CONST && val->f && !val->sparse) ? val : NULL;
}

/* Plan the fused dense layers of a float32 runtime.  Returns 0 or -1 (OOM). */
static int plan_dense(nnc_runtime *rt)
{
    const nnc_model *m = rt->m;
    rt->dense = calloc((size_t)m->n_order + 1, sizeof *rt->dense);
    if (!rt->skip) rt->skip = calloc((size_t)m->n_order + 1, 1);
    if (!rt->dense || !rt->skip) return -1;
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        if (rt->skip[t] || (n->op != NNC_OP_GEMM && n->op != NNC_OP_MATMUL)) continue;
        const nnc_value *a = &m->vals[n->in[0]], *b = dense_const(m, n->in[1]);
        if (b == NULL || b->rank != 2 || a->kind == NNC_VAL_CONST || a->sparse || !nnc_dtype_is_float(a->dtype)) continue;
        int64_t K, N, trans = 0;
        double alpha = 1.0;
        const double *bias_src = NULL;
        int bias_mode = 0; /* 0 none, 1 per column, 2 scalar */
        double beta = 1.0;
        if (n->op == NNC_OP_GEMM) {
            if (n->p[0]) continue; /* transA */
            trans = n->p[1];
            K = n->p[4];
            N = n->p[3];
            alpha = n->fp[0];
            beta = n->fp[1];
            if (n->n_in > 2 && n->in[2] >= 0 && beta != 0) {
                const nnc_value *c = dense_const(m, n->in[2]);
                if (c == NULL || (n->p[5] & 1)) continue; /* C varying along rows */
                bias_src = c->f;
                bias_mode = (n->p[5] & 2) ? 1 : 2;
            }
        } else {
            if (a->rank < 1) continue;
            K = b->dims[0];
            N = b->dims[1];
        }
        if (K == 0 || N == 0) continue; /* empty product: the kernels write the zeros */
        fused_dense *d = calloc(1, sizeof *d);
        if (d == NULL) return -1;
        rt->dense[t] = d;
        d->rows = a->numel / (K ? K : 1);
        d->out = n->out[0];
        double *bsc = NULL;
        if (alpha != 1.0) {
            bsc = malloc((size_t)(b->numel ? b->numel : 1) * sizeof(double));
            if (bsc == NULL) return -1;
            for (int64_t k = 0; k < b->numel; k++) bsc[k] = alpha * b->f[k];
        }
        d->b = nnc_sgemm_pack_b(bsc ? bsc : b->f, K, N, (int)trans);
        free(bsc);
        if (d->b == NULL) return -1;
        if (bias_mode) {
            d->bias = malloc((size_t)(N ? N : 1) * sizeof(float));
            if (d->bias == NULL) return -1;
            for (int64_t j = 0; j < N; j++) d->bias[j] = (float)(beta * bias_src[bias_mode == 1 ? j : 0]);
        }
        /* MatMul -> Add(constant bias row) */
        int only = -1, next;
        /* (only stays -1 when the one use is being a graph output) */
        if (n->op == NNC_OP_MATMUL && uses(m, d->out, &only) == 1 && only >= 0 && m->nodes[m->order[only]].op == NNC_OP_ADD) {
            const nnc_node *add = &m->nodes[m->order[only]];
            int other = add->in[0] == d->out ? add->in[1] : add->in[0];
            const nnc_value *c = dense_const(m, other), *ov = &m->vals[add->out[0]];
            if (c && c->numel == N && c->dims[c->rank - 1] == N && ov->numel == m->vals[d->out].numel) {
                d->bias = malloc((size_t)(N ? N : 1) * sizeof(float));
                if (d->bias == NULL) return -1;
                for (int64_t j = 0; j < N; j++) d->bias[j] = (float)c->f[j];
                rt->skip[only] = 1;
                d->out = add->out[0];
            }
        }
        /* -> Relu */
        next = -1;
        if (uses(m, d->out, &next) == 1 && next >= 0 && m->nodes[m->order[next]].op == NNC_OP_RELU) {
            rt->skip[next] = 1;
            d->relu = 1;
            d->out = m->nodes[m->order[next]].out[0];
        }
    }
    return 0;
}

/* Returns: the bytes of a tile, half a core's L2 cache as the C library
 * reports it, within [NNC_RT_TILE_MIN_BYTES, NNC_RT_TILE_MAX_BYTES].
 * Measured on an Intel Xeon with 2 MiB of L2 (resnet_4b, 2 threads, batch
 * 1024, with the tail segment): 76 ms a batch with 256 KiB tiles (one
 * sample), 64 ms with 1 MiB, 68 ms with 2 MiB. */
static uint64_t tile_bytes(void)
{
    long l2 = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
    l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    uint64_t b = l2 > 0 ? (uint64_t)l2 / 2 : NNC_RT_TILE_MIN_BYTES;
    return b < NNC_RT_TILE_MIN_BYTES ? NNC_RT_TILE_MIN_BYTES : b > NNC_RT_TILE_MAX_BYTES ? NNC_RT_TILE_MAX_BYTES : b;
}

/* Samples per tile for values of `bytes` per sample: tile_bytes() worth, a
 * multiple of the granule, at most max_batch. */
static int tile_cap(uint64_t bytes, int max_batch, int granule)
{
    uint64_t tile = bytes ? tile_bytes() / bytes : (uint64_t)max_batch;
    if (tile < 1) tile = 1;
    if (granule > 1) tile = tile < (uint64_t)granule ? (uint64_t)granule : tile / (uint64_t)granule * (uint64_t)granule;
    return tile > (uint64_t)max_batch ? max_batch : (int)tile;
}

/* The tail segment (see NNC_RT_TAIL_RATIO): the least position s > 0 such
 * that the batched values written at positions >= s, and those read there
 * but written before s (or inputs), take at most per_sample /
 * NNC_RT_TAIL_RATIO bytes a sample (*bytes); 0 when there is none or the
 * tail runs no node.  O(nodes x values), once per runtime. */
static int tail_start(const nnc_runtime *rt, uint64_t per_sample, uint64_t *bytes)
{
    const nnc_model *m = rt->m;
    /* per value, the position writing it (-1: an input) and the last reading it (-1: none) */
    int *first = malloc(sizeof(int) * ((size_t)m->n_vals + 1)), *last = malloc(sizeof(int) * ((size_t)m->n_vals + 1));
    int best = 0, runs_from = m->n_order; /* the first position at or after which a node runs */
    if (first == NULL || last == NULL) goto out;
    for (int v = 0; v < m->n_vals; v++) first[v] = last[v] = -1;
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        for (int o = 0; o < n->n_out; o++)
            if (n->out[o] >= 0) first[n->out[o]] = t;
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i] >= 0) last[n->in[i]] = t;
    }
    for (int t = m->n_order - 1; t >= 0 && rt->skip && rt->skip[t]; t--) runs_from = t;
    for (int s = 1; s < runs_from && !best; s++) {
        uint64_t b = 0;
        for (int v = 0; v < m->n_vals; v++) {
            if (!rt->batched[v]) continue;
            int own = rt->alias[v] < 0; /* a view's bytes are its source's */
            if ((first[v] >= s && own) || (first[v] < s && last[v] >= s))
                b += (uint64_t)m->vals[v].numel * elem_size(rt->prec, m->vals[v].dtype);
        }
        if (b * NNC_RT_TAIL_RATIO <= per_sample) {
            best = s;
            *bytes = b;
        }
    }
out:
    free(first);
    free(last);
    return best;
}

nnc_status nnc_rt_create(nnc_runtime **out, const nnc_model *m, nnc_precision prec, int max_batch,
                         char *err, size_t errlen)
{
    *out = NULL;
    if (!m->prepared) return nnc_err(err, errlen, NNC_STATUS_ARG, "model is not prepared");
    if (max_batch < 1) return nnc_err(err, errlen, NNC_STATUS_ARG, "batch size must be at least 1");
    nnc_runtime *rt = calloc(1, sizeof *rt);
    if (rt == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    rt->m = m;
    rt->prec = prec;
    rt->max_batch = max_batch;
    int nv = m->n_vals;
    rt->buf = calloc((size_t)nv + 1, sizeof(void *));
    rt->batched = calloc((size_t)nv + 1, 1);
    rt->owned = calloc((size_t)nv + 1, 1);
    rt->alias = malloc(((size_t)nv + 1) * sizeof(int));
    if (!rt->buf || !rt->batched || !rt->owned || !rt->alias) goto nomem;
    for (int v = 0; v < nv; v++) rt->alias[v] = -1;
    uint64_t limit = nnc_max_tensor_bytes();
    /* constants */
    for (int v = 0; v < nv; v++) {
        const nnc_value *val = &m->vals[v];
        if (val->kind == NNC_VAL_INPUT) rt->batched[v] = 1;
        if (val->kind != NNC_VAL_CONST || val->sparse) continue;
        if (val->i) {
            rt->buf[v] = val->i;
        } else if (val->f && prec == NNC_PRECISION_F64) {
            rt->buf[v] = val->f;
        } else if (val->f) {
            float *c = malloc((size_t)(val->numel ? val->numel : 1) * sizeof(float));
            if (c == NULL) goto nomem;
            for (int64_t k = 0; k < val->numel; k++) c[k] = (float)val->f[k];
            rt->buf[v] = c;
            rt->owned[v] = 1;
        }
    }
    /* node outputs */
    uint64_t per_sample = 0; /* bytes of the batched values of one sample */
    for (int k = 0; k < m->n_inputs; k++)
        per_sample += (uint64_t)m->vals[m->inputs[k]].numel * elem_size(prec, m->vals[m->inputs[k]].dtype);
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        for (int o = 0; o < n->n_out; o++) {
            int v = n->out[o];
            if (v < 0) continue;
            const nnc_value *val = &m->vals[v];
            rt->batched[v] = 1;
            if (o == 0 && is_view(m, n) && rt->batched[n->in[0]] && !m->vals[n->in[0]].sparse) {
                int src = n->in[0];
                rt->alias[v] = rt->alias[src] >= 0 ? rt->alias[src] : src;
                continue;
            }
            uint64_t bytes = (uint64_t)val->numel * elem_size(prec, val->dtype);
            if (bytes && (uint64_t)max_batch > limit / bytes) {
                nnc_err(err, errlen, NNC_STATUS_LIMIT,
                        "tensor '%s' needs %llu bytes per sample; %d samples exceed the %llu-byte limit (NNCERT_MAX_TENSOR_BYTES)",
                        val->name, (unsigned long long)bytes, max_batch, (unsigned long long)limit);
                nnc_rt_destroy(rt);
                return NNC_STATUS_LIMIT;
            }
            rt->owned[v] = 1; /* allocated below, once the total is known to fit */
            per_sample += bytes;
        }
    }
    /* every batched value for max_batch samples: refused up front, with the
     * size it needs, when above the memory (each term is below the tensor
     * limit, so the sum of at most n_vals terms does not overflow) */
    uint64_t total = 0;
    for (int v = 0; v < nv; v++)
        if (rt->owned[v] && rt->batched[v] && !rt->buf[v])
            total += (uint64_t)m->vals[v].numel * elem_size(prec, m->vals[v].dtype) * (uint64_t)max_batch;
    uint64_t mem = nnc_machine_memory_bytes();
    if (total > mem) {
        nnc_err(err, errlen, NNC_STATUS_LIMIT,
                "the runtime needs %.1f MiB of activations for %d samples; the memory is %.1f MiB (RAM plus swap, or "
                "NNCERT_MEMORY_BYTES): use a smaller batch",
                (double)total / 1048576.0, max_batch, (double)mem / 1048576.0);
        nnc_rt_destroy(rt);
        return NNC_STATUS_LIMIT;
    }
    for (int v = 0; v < nv; v++)
        if (rt->owned[v] && rt->batched[v] && !rt->buf[v]) {
            uint64_t bytes = (uint64_t)m->vals[v].numel * elem_size(prec, m->vals[v].dtype);
            if ((rt->buf[v] = malloc(bytes ? (size_t)(bytes * (uint64_t)max_batch) : 1)) == NULL) goto nomem;
        }
    /* Conv: its filters packed once; Conv -> Relu (the Conv's only use): the
     * Conv writes the Relu's output */
    if (!(rt->prep = calloc((size_t)m->n_order + 1, sizeof(void *)))) goto nomem;
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        if (n->op != NNC_OP_CONV) continue;
        if ((prec == NNC_PRECISION_F32 ? nnc_op_conv_prep_f32 : nnc_op_conv_prep_f64)(m, n, NULL, &rt->prep[t])) goto nomem;
    }
    if (!(rt->relu_after = calloc((size_t)m->n_order + 1, sizeof(int)))) goto nomem;
    if (!rt->skip && !(rt->skip = calloc((size_t)m->n_order + 1, 1))) goto nomem;
    for (int t = 0, next; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        next = -1;
        if (n->op != NNC_OP_CONV || rt->skip[t] || uses(m, n->out[0], &next) != 1 || next < 0) continue;
        const nnc_node *r = &m->nodes[m->order[next]];
        if (r->op != NNC_OP_RELU || rt->alias[r->out[0]] >= 0 || !rt->owned[r->out[0]]) continue;
        rt->relu_after[t] = r->out[0] + 1;
        rt->skip[next] = 1;
    }
    /* Conv -> Add (the Conv's only use) -> Relu (the Add's only use, or
     * none), the Conv direct: the Conv's epilogue adds the Add's other
     * operand (same shape, written at an earlier position, so ready when
     * the Conv runs) and applies the ReLU, writing the last node's output;
     * the Add's and the Relu's nodes are skipped.  a + r has the bits of
     * r + a, so the sum is the Add's in either operand order */
    if (!(rt->add_in = calloc((size_t)m->n_order + 1, sizeof(int))) ||
        !(rt->add_out = calloc((size_t)m->n_order + 1, sizeof(int))))
        goto nomem;
    for (int t = 0, next, rn; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        next = rn = -1;
        if (n->op != NNC_OP_CONV || rt->skip[t] || rt->relu_after[t] || !rt->prep[t] || uses(m, n->out[0], &next) != 1 ||
            next < 0)
            continue;
        const nnc_node *a = &m->nodes[m->order[next]];
        if (a->op != NNC_OP_ADD || a->n_in != 2 || rt->skip[next] || rt->alias[a->out[0]] >= 0 || !rt->owned[a->out[0]])
            continue;
        int r = a->in[0] == n->out[0] ? a->in[1] : a->in[0];
        const nnc_value *rv = &m->vals[r], *cv = &m->vals[n->out[0]];
        int same = r != n->out[0] && rt->batched[r] && !rv->sparse && rv->dtype == cv->dtype && rv->rank == cv->rank;
        for (int k = 0; same && k < cv->rank; k++) same = rv->dims[k] == cv->dims[k];
        int ready = m->vals[r].kind == NNC_VAL_INPUT;
        for (int u = 0; u < t && !ready; u++) ready = m->nodes[m->order[u]].out[0] == r && m->nodes[m->order[u]].n_out == 1;
        if (!same || !ready) continue;
        rt->add_in[t] = r + 1;
        rt->add_out[t] = a->out[0] + 1;
        rt->skip[next] = 1;
        if (uses(m, a->out[0], &rn) == 1 && rn >= 0) {
            const nnc_node *q = &m->nodes[m->order[rn]];
            if (q->op == NNC_OP_RELU && !rt->skip[rn] && rt->alias[q->out[0]] < 0 && rt->owned[q->out[0]]) {
                rt->relu_after[t] = q->out[0] + 1;
                rt->add_out[t] = 0;
                rt->skip[rn] = 1;
            }
        }
    }
    /* Conv -> Relu -> MaxPool (the Relu's only use), the Conv direct (its
     * filters prepared) and every window inside the Relu's output (no
     * padding, dilation 1): the Conv writes the pool's output from its
     * accumulators, and the Relu's output is never written.  The ReLU's
     * values are +0 or above, never NaN, so their maximum has the same bits
     * in any order (kernels_impl.h, dconv_block) */
    if (!(rt->pool_after = calloc((size_t)m->n_order + 1, sizeof(int)))) goto nomem;
    for (int t = 0, next; t < m->n_order; t++) {
        next = -1;
        if (!rt->relu_after[t] || rt->add_in[t] || !rt->prep[t] || uses(m, rt->relu_after[t] - 1, &next) != 1 ||
            next < 0)
            continue;
        const nnc_node *q = &m->nodes[m->order[next]];
        if (q->op != NNC_OP_MAXPOOL || rt->skip[next] || rt->alias[q->out[0]] >= 0 || !rt->owned[q->out[0]]) continue;
        nnc_window g = nnc_window_of(m, q); /* (a 1-D window: w, ow, kw, sw, dw 1, no left or right pads) */
        int inside = m->vals[q->in[0]].rank == m->vals[q->out[0]].rank && (g.oh - 1) * g.sh + g.kh <= g.h &&
                     (g.ow - 1) * g.sw + g.kw <= g.w && g.pt == 0 && g.pl == 0 && g.pb == 0 && g.pr == 0 &&
                     g.dh == 1 && g.dw == 1 && g.kw <= NNC_DC_POOL_COLS;
        if (!inside) continue;
        rt->pool_after[t] = next + 1;
        rt->skip[next] = 1;
        /* the Conv prepared again for the outputs the pool reads only (the
         * kernel crops its geometry alike, prepared or not) */
        const nnc_node *cv = &m->nodes[m->order[t]];
        free(rt->prep[t]);
        rt->prep[t] = NULL;
        if ((prec == NNC_PRECISION_F32 ? nnc_op_conv_prep_f32 : nnc_op_conv_prep_f64)(m, cv, q, &rt->prep[t])) goto nomem;
    }
    if (prec == NNC_PRECISION_F32 && plan_dense(rt) != 0) goto nomem;
    /* products that BLAS runs with the samples stacked into rows (Gemm and
     * MatMul other than the packed dense layers): their rows go in blocks
     * of NNC_GEMM_ROWS (kernels_impl.h), so the tile then holds a multiple
     * of that many samples and the blocks fall where they would untiled */
    int stacked = 0;
    for (int t = 0; t < m->n_order; t++) {
        nnc_op op = m->nodes[m->order[t]].op;
        stacked |= (op == NNC_OP_GEMM || op == NNC_OP_MATMUL) && !(rt->dense && rt->dense[t]) && !(rt->skip && rt->skip[t]);
    }
    rt->granule = stacked ? NNC_GEMM_ROWS : 1;
    rt->tile = tile_cap(per_sample, max_batch, rt->granule);
    uint64_t tail = 0;
    if ((rt->seg = tail_start(rt, per_sample, &tail)) > 0) rt->tile2 = tile_cap(tail, max_batch, rt->granule);
    for (int t = 0; t < m->n_order; t++) {
        int tl = rt->seg > 0 && t >= rt->seg ? rt->tile2 : rt->tile;
        size_t sc = nnc_op_scratch_bytes(m, &m->nodes[m->order[t]], tl, prec);
        if (sc > rt->scratch_bytes) rt->scratch_bytes = sc;
    }
    if (prec == NNC_PRECISION_F32) {
        for (int t = 0; t < m->n_order; t++)
            if (rt->dense[t]) {
                const nnc_node *n = &m->nodes[m->order[t]];
                int64_t K = m->vals[n->in[0]].numel / rt->dense[t]->rows;
                int tl = rt->seg > 0 && t >= rt->seg ? rt->tile2 : rt->tile;
                size_t sc = nnc_sgemm_scratch_floats(rt->dense[t]->rows * tl, K) * sizeof(float);
                if (sc > rt->scratch_bytes) rt->scratch_bytes = sc;
            }
        rt->sp_a = calloc((size_t)m->n_order + 1, sizeof *rt->sp_a);
        rt->sp_plan = calloc((size_t)m->n_order + 1, sizeof *rt->sp_plan);
        if (!rt->sp_a || !rt->sp_plan) goto nomem;
        for (int t = 0; t < m->n_order; t++) {
            const nnc_node *n = &m->nodes[m->order[t]];
            if (n->op != NNC_OP_MATMUL || !m->vals[n->in[0]].sparse) continue;
            nnc_mdl_csr32 *a = calloc(1, sizeof *a);
            if (a == NULL) goto nomem;
            nnc_status st = nnc_mdl_csr32_from_csr(a, m->vals[n->in[0]].sparse, NULL, 0);
            if (st == NNC_STATUS_OK) st = nnc_mdl_spmm_plan_create(&rt->sp_plan[t], a, NNC_RT_THREADS, NULL, 0);
            if (st != NNC_STATUS_OK) {
                nnc_mdl_csr32_free(a);
                free(a);
                if (st == NNC_STATUS_NOMEM) goto nomem;
                continue; /* too large for int32 indices: the generic kernel runs it */
            }
            rt->sp_a[t] = a;
        }
    }
    if (nnc_rt_set_threads(rt, NNC_RT_THREADS) != NNC_STATUS_OK) goto nomem;
    *out = rt;
    return NNC_STATUS_OK;
nomem:
    nnc_rt_destroy(rt);
    return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory while creating the runtime");
}

void nnc_rt_set_spmm(nnc_runtime *rt, void (*fn)(void *ctx, const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y),
                     void *ctx)
{
    rt->sp_fn = fn;
    rt->sp_ctx = ctx;
}

nnc_status nnc_rt_set_threads(nnc_runtime *rt, int threads)
{
    if (threads < 1) return NNC_STATUS_ARG;
    int nv = rt->m->n_vals;
    void **sc = calloc((size_t)threads, sizeof *sc);
    void ***tb = calloc((size_t)threads, sizeof *tb);
    int ok = sc && tb;
    for (int k = 0; k < threads && ok; k++) {
        tb[k] = malloc(((size_t)nv + 1) * sizeof(void *));
        sc[k] = rt->scratch_bytes ? malloc(rt->scratch_bytes) : NULL;
        ok = tb[k] && (sc[k] || !rt->scratch_bytes);
    }
    if (!ok) {
        for (int k = 0; k < threads && sc && tb; k++) {
            free(sc[k]);
            free(tb[k]);
        }
        free(sc);
        free(tb);
        return NNC_STATUS_NOMEM;
    }
    for (int k = 0; rt->scratch && k < rt->threads; k++) {
        free(rt->scratch[k]);
        free(rt->tbuf[k]);
    }
    free(rt->scratch);
    free(rt->tbuf);
    rt->scratch = sc;
    rt->tbuf = tb;
    rt->threads = threads;
    return NNC_STATUS_OK;
}

/* Run samples [b0, b0 + nb) (one tile) through the nodes at positions
 * [t0, t1) of the order with the buffers and scratch of thread slot k;
 * intra: threads for the products inside.  Returns 0, or the position in
 * m->order of a node that failed. */
static int run_tile(nnc_runtime *rt, int k, int b0, int nb, int intra, int t0, int t1)
{
    const nnc_model *m = rt->m;
    void **buf = rt->tbuf[k];
    for (int v = 0; v < m->n_vals; v++) {
        const nnc_value *val = &m->vals[v];
        buf[v] = rt->batched[v] && rt->buf[v]
                     ? (char *)rt->buf[v] + (size_t)b0 * (size_t)val->numel * elem_size(rt->prec, val->dtype)
                     : rt->buf[v];
    }
    nnc_exec x = {m, nb, buf, rt->batched, rt->scratch[k], rt->scratch_bytes, 0, NULL, intra, NULL, 0, 0};
    for (int t = t0; t < t1; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        if (rt->skip && rt->skip[t]) continue;
        if (rt->ext && rt->ext[n->out[0]]) {
            const nnc_value *v = &m->vals[n->out[0]];
            size_t bytes = (size_t)v->numel * elem_size(rt->prec, v->dtype);
            memcpy(buf[n->out[0]], (const char *)rt->ext[n->out[0]] + (size_t)b0 * bytes, (size_t)nb * bytes);
            continue;
        }
        if (rt->dense && rt->dense[t]) {
            const fused_dense *d = rt->dense[t];
            nnc_sgemm_packed(d->b, d->rows * nb, (const float *)buf[n->in[0]], d->bias, d->relu, (float *)buf[d->out],
                             (float *)rt->scratch[k], intra);
            continue;
        }
        if (rt->sp_a && rt->sp_a[t]) {
            const nnc_value *xv = &m->vals[n->in[1]];
            int64_t F = xv->rank == 1 ? 1 : xv->dims[1];
            size_t xs = rt->batched[n->in[1]] ? (size_t)xv->numel : 0, ys = (size_t)m->vals[n->out[0]].numel;
            for (int b = 0; b < nb; b++) {
                const float *xb = (const float *)buf[n->in[1]] + (size_t)b * xs;
                float *yb = (float *)buf[n->out[0]] + (size_t)b * ys;
                if (rt->sp_fn) rt->sp_fn(rt->sp_ctx, rt->sp_a[t], xb, F, yb);
                else nnc_mdl_spmm(rt->sp_plan[t], xb, F, yb);
            }
            continue;
        }
        x.relu_out = rt->relu_after[t];
        x.add_in = rt->add_in[t];
        x.add_out = rt->add_out[t];
        x.pool = rt->pool_after[t] ? &m->nodes[m->order[rt->pool_after[t] - 1]] : NULL;
        x.prep = rt->prep[t];
        int rc = rt->prec == NNC_PRECISION_F32 ? nnc_op_exec_f32(&x, n) : nnc_op_exec_f64(&x, n);
        if (rc) return t + 1;
    }
    return 0;
}

/* Samples per tile for a batch run on `par` threads: at most cap, a
 * multiple of rt->granule (or the whole batch), and the tiles as many as
 * the threads or a multiple of them where each can still hold a granule. */
static int tile_size(const nnc_runtime *rt, int cap, int batch, int par)
{
    int g = rt->granule;
    int n = (batch + cap - 1) / cap, most = (batch + g - 1) / g;
    if (par > 1 && n % par != 0) {
        int up = (n + par - 1) / par * par;
        if (up <= most) n = up;
    }
    int size = (batch + n - 1) / n;
    size = (size + g - 1) / g * g;
    return size < cap ? size : cap;
}

nnc_status nnc_rt_run(nnc_runtime *rt, int batch, const void *const *inputs, void *const *outputs,
                      char *err, size_t errlen)
{
    const nnc_model *m = rt->m;
    if (batch < 1 || batch > rt->max_batch)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "batch %d outside 1..%d", batch, rt->max_batch);
    for (int k = 0; k < m->n_inputs; k++) rt->buf[m->inputs[k]] = (void *)inputs[k];
    for (int t = 0; t < m->n_order; t++) {
        const nnc_node *n = &m->nodes[m->order[t]];
        for (int o = 0; o < n->n_out; o++)
            if (n->out[o] >= 0 && rt->alias[n->out[o]] >= 0) rt->buf[n->out[o]] = rt->buf[rt->alias[n->out[o]]];
    }
    /* tiles in parallel, each on one thread; not with sparse products
     * (their plans are threaded, and a replacement kernel may not be
     * reentrant) */
    int par = rt->threads, failed = 0;
    if (rt->sp_a)
        for (int t = 0; t < m->n_order && par > 1; t++)
            if (rt->sp_a[t]) par = 1;
    /* OpenBLAS single-threaded inside the tiles, however many run at once:
     * its threading splits a product's rows and may change their rounding,
     * which must depend on neither the batch nor the thread count */
    int blas = openblas_get_num_threads();
    openblas_set_num_threads(1);
    int *rc = NULL;
    /* the tail segment only where its tiles come out larger for this batch */
    int size1 = tile_size(rt, rt->tile, batch, par), size2 = rt->seg > 0 ? tile_size(rt, rt->tile2, batch, par) : 0;
    int nseg = size2 > size1 ? 2 : 1;
    for (int sg = 0; sg < nseg && !failed; sg++) {
        int t0 = sg ? rt->seg : 0, t1 = nseg == 2 && !sg ? rt->seg : m->n_order;
        int size = sg ? size2 : size1, ntiles = (batch + size - 1) / size;
        int p = par > ntiles ? ntiles : par;
        if (p <= 1) {
            for (int i = 0; i < ntiles && !failed; i++) {
                int b0 = i * size, nb = batch - b0 < size ? batch - b0 : size;
                failed = run_tile(rt, 0, b0, nb, rt->threads, t0, t1);
            }
            continue;
        }
        free(rc);
        if ((rc = calloc((size_t)ntiles, sizeof(int))) == NULL) {
            openblas_set_num_threads(blas);
            return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        }
#pragma omp parallel for num_threads(p) schedule(dynamic, 1)
        for (int i = 0; i < ntiles; i++) {
#ifdef _OPENMP
            int k = omp_get_thread_num();
#else
            int k = 0;
#endif
            int b0 = i * size, nb = batch - b0 < size ? batch - b0 : size;
            rc[i] = run_tile(rt, k, b0, nb, 1, t0, t1);
        }
        for (int i = 0; i < ntiles && !failed; i++) failed = rc[i];
    }
    free(rc);
    openblas_set_num_threads(blas);
    if (failed) {
        const nnc_node *n = &m->nodes[m->order[failed - 1]];
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "node '%s' (%s): an index in the input is out of range", n->name,
                       n->op_type);
    }
    for (int k = 0; k < m->n_outputs; k++) {
        int v = m->outputs[k];
        const nnc_value *val = &m->vals[v];
        size_t bytes = (size_t)val->numel * elem_size(rt->prec, val->dtype);
        for (int b = 0; b < batch; b++) {
            const char *src = (const char *)rt->buf[v] + (rt->batched[v] ? (size_t)b * bytes : 0);
            if (bytes) memcpy((char *)outputs[k] + (size_t)b * bytes, src, bytes);
        }
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_rt_set_value(nnc_runtime *rt, const char *name, const void *data, char *err, size_t errlen)
{
    const nnc_model *m = rt->m;
    int v = nnc_mdl_find_value(m, name), t;
    if (v < 0) return nnc_err(err, errlen, NNC_STATUS_ARG, "no value named '%s'", name);
    for (t = 0; t < m->n_order; t++)
        if (m->nodes[m->order[t]].out[0] == v) break;
    /* only a node's whole, separately stored output can be replaced */
    if (t == m->n_order || m->nodes[m->order[t]].n_out != 1 || !rt->owned[v] || (rt->skip && rt->skip[t]) ||
        (rt->dense && rt->dense[t]) || rt->relu_after[t] || rt->add_in[t])
        return nnc_err(err, errlen, NNC_STATUS_ARG, "value '%s' is not the output of a single-output node", name);
    if (rt->ext == NULL && (rt->ext = calloc((size_t)m->n_vals + 1, sizeof *rt->ext)) == NULL)
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    rt->ext[v] = data;
    return NNC_STATUS_OK;
}
