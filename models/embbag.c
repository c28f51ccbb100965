/* Embedding bags: the CPU kernel, the fusion of Gather + ReduceSum/Mean into
 * one EmbeddingBag node, and the access-trace reader (nncert/embbag.h).
 *
 * Kernel layout: bags are split between OpenMP threads by output (each
 * thread owns whole bags, so no two threads write one output row).  Ids are
 * range-checked once, up front, so the kernels carry no bounds checks.  On
 * x86-64 with AVX-512 or AVX2 (detected at run time) widths 16/32/64/128
 * use the explicit kernels below: a bag's sum lives in 1-8 zmm (2-16 ymm)
 * registers, several equal-length bags are summed side by side to hide the
 * add latency, and the rows some lookups ahead are prefetched, since the ids
 * are random and each row is a cache miss otherwise.  Other widths and
 * machines use the portable loops (GCC target clones; on an AMD EPYC the
 * AVX2 clone of the portable loop was slower than the baseline one, 0.66-0.81x
 * at dim 16).  Every path sums each column in id order. */
#include "nncert/embbag.h"
#include "models/embbag_impl.h"
#include "models/embbag_math.h"
#include "common/isa.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Lookups ahead whose rows are prefetched (tuned on the bench: Zipf ids
 * over 200000 rows, dims 16-128; 8-24 all within noise, 16 best for dim 16). */
#ifndef EB_PREFETCH_AHEAD
#define EB_PREFETCH_AHEAD 16
#endif
/* Below this many row reads a call stays on one thread. */
#define EB_PARALLEL_MIN 16384

/* ----------------------------------------------------- id range check */

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define EB_X86 1
#include <immintrin.h>

static int eb_have_avx512(void) { return nnc_isa() >= NNC_ISA_AVX512; }

/* max over ids[0..n) taken as unsigned, 8 ids per vpmaxuq, 4 chains. */
__attribute__((target("avx512f"))) static uint64_t eb_ids_max_z(const int64_t *ids, int64_t n)
{
    __m512i m0 = _mm512_setzero_si512(), m1 = m0, m2 = m0, m3 = m0;
    int64_t k = 0;
    for (; k + 32 <= n; k += 32) {
        m0 = _mm512_max_epu64(m0, _mm512_loadu_si512((const void *)(ids + k)));
        m1 = _mm512_max_epu64(m1, _mm512_loadu_si512((const void *)(ids + k + 8)));
        m2 = _mm512_max_epu64(m2, _mm512_loadu_si512((const void *)(ids + k + 16)));
        m3 = _mm512_max_epu64(m3, _mm512_loadu_si512((const void *)(ids + k + 24)));
    }
    uint64_t m = _mm512_reduce_max_epu64(_mm512_max_epu64(_mm512_max_epu64(m0, m1), _mm512_max_epu64(m2, m3)));
    for (; k < n; k++) m = (uint64_t)ids[k] > m ? (uint64_t)ids[k] : m;
    return m;
}
#endif

/* The largest id, taken as unsigned (so any negative id exceeds every table
 * size); 0 for no ids. */
static uint64_t eb_ids_max(const int64_t *ids, int64_t n)
{
#ifdef EB_X86
    if (eb_have_avx512()) return eb_ids_max_z(ids, n);
#endif
    uint64_t m = 0;
    for (int64_t k = 0; k < n; k++) m = (uint64_t)ids[k] > m ? (uint64_t)ids[k] : m;
    return m;
}

/* ------------------------------------------------------------- checking */

static int64_t bag_begin(const nnc_embbag_bags *b, int64_t k)
{
    return b->offsets ? b->offsets[k] : k * b->bag_len;
}

static int64_t bag_end(const nnc_embbag_bags *b, int64_t k)
{
    if (!b->offsets) return (k + 1) * b->bag_len;
    return k + 1 < b->n_bags ? b->offsets[k + 1] : b->n_ids;
}

nnc_status nnc_mdl_embbag_check(const nnc_embbag_bags *bags, int64_t rows, int allow_empty,
                                char *err, size_t errlen)
{
    if (bags->n_bags < 0 || bags->n_ids < 0)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: negative bag or id count");
    if (bags->offsets == NULL) {
        if (bags->bag_len < 0 || (bags->bag_len > 0 && bags->n_bags > INT64_MAX / bags->bag_len) ||
            bags->n_bags * bags->bag_len != bags->n_ids)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: %lld bags of %lld ids do not match %lld ids",
                           (long long)bags->n_bags, (long long)bags->bag_len, (long long)bags->n_ids);
        if (bags->bag_len == 0 && bags->n_bags > 0 && !allow_empty)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: bag 0 is empty");
    } else {
        for (int64_t k = 0; k < bags->n_bags; k++) {
            int64_t o = bags->offsets[k];
            if (o < 0) return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: offset %lld of bag %lld is negative", (long long)o, (long long)k);
            if (k == 0 && o != 0) return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: the first offset is %lld, not 0", (long long)o);
            if (o > bags->n_ids)
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: offset %lld of bag %lld is past the %lld ids",
                               (long long)o, (long long)k, (long long)bags->n_ids);
            if (k > 0 && o < bags->offsets[k - 1])
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: offsets decrease at bag %lld (%lld after %lld)",
                               (long long)k, (long long)o, (long long)bags->offsets[k - 1]);
        }
        if (!allow_empty)
            for (int64_t k = 0; k < bags->n_bags; k++)
                if (bag_end(bags, k) == bag_begin(bags, k))
                    return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: bag %lld is empty", (long long)k);
        if (bags->n_bags == 0 && bags->n_ids > 0)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: %lld ids but no bags", (long long)bags->n_ids);
    }
    /* Every id is checked here, once, so the kernels below never bounds-check:
     * a branch-free pass (it vectorises) finds whether any id is bad, and only
     * then the slow loop finds the first one for the message.  The maximum
     * is taken unsigned, so a negative id counts as huge and is rejected. */
    if (rows < 0 || eb_ids_max(bags->ids, bags->n_ids) >= (uint64_t)rows)
        for (int64_t k = 0; k < bags->n_ids; k++)
            if (nnc_eb_row(bags->ids[k], rows, 0) < 0)
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: id %lld at position %lld is outside the table's rows [0, %lld)",
                               (long long)bags->ids[k], (long long)k, (long long)rows);
    return NNC_STATUS_OK;
}

/* ------------------------------------------------------------- kernels */

static inline void eb_prefetch(const float *table, int64_t dim, int64_t row)
{
#if defined(__GNUC__)
    const char *p = (const char *)(table + row * dim);
    for (int64_t b = 0; b < dim * (int64_t)sizeof(float); b += 64) __builtin_prefetch(p + b, 0, 1);
#else
    (void)table; (void)dim; (void)row;
#endif
}

/* The portable kernels are compiled for AVX-512, AVX2 and baseline code
 * (EB_PORTABLE below), picked at run time by nnc_isa() (common/isa.h): the
 * column loops vectorise to the widest registers allowed, while each column
 * is still summed in id order, so every width gives the same floats. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define EB_ISA_CLONES 1
#endif

/* One bag of width D (a compile-time constant), acc in registers.  ids are
 * validated row numbers; pf the ids after this bag whose rows to prefetch. */
#define EB_FIXED(D, SFX, ATTR)                                                                    \
    ATTR static void eb_bag_##D##SFX(float *restrict out, const float *restrict table,            \
                                     const int64_t *restrict ids, int64_t len, int64_t pf_len, int mean) \
    {                                                                                             \
        float acc[D];                                                                             \
        for (int j = 0; j < D; j++) acc[j] = 0.0f;                                                \
        for (int64_t k = 0; k < len; k++) {                                                       \
            if (k + EB_PREFETCH_AHEAD < pf_len) eb_prefetch(table, D, ids[k + EB_PREFETCH_AHEAD]); \
            const float *restrict w = table + ids[k] * D;                                         \
            for (int j = 0; j < D; j++) acc[j] += w[j];                                           \
        }                                                                                         \
        for (int j = 0; j < D; j++) out[j] = nnc_eb_finish_f32(acc[j], len, mean);                \
    }

#define EB_ANY(SFX, ATTR)                                                                         \
    ATTR static void eb_bag_any##SFX(float *restrict out, const float *restrict table, int64_t dim, \
                                     const int64_t *restrict ids, int64_t len, int64_t pf_len, int mean) \
    {                                                                                             \
        for (int64_t j = 0; j < dim; j++) out[j] = 0.0f;                                          \
        for (int64_t k = 0; k < len; k++) {                                                       \
            if (k + EB_PREFETCH_AHEAD < pf_len) eb_prefetch(table, dim, ids[k + EB_PREFETCH_AHEAD]); \
            const float *restrict w = table + ids[k] * dim;                                       \
            for (int64_t j = 0; j < dim; j++) out[j] += w[j];                                     \
        }                                                                                         \
        for (int64_t j = 0; j < dim; j++) out[j] = nnc_eb_finish_f32(out[j], len, mean);          \
    }

/* Every width for one target, and the dispatch over widths. */
#define EB_PORTABLE(SFX, ATTR)                                                                    \
    EB_FIXED(16, SFX, ATTR)                                                                       \
    EB_FIXED(32, SFX, ATTR)                                                                       \
    EB_FIXED(64, SFX, ATTR)                                                                       \
    EB_FIXED(128, SFX, ATTR)                                                                      \
    EB_ANY(SFX, ATTR)                                                                             \
    static void eb_bag##SFX(float *o, const float *table, int64_t dim, const int64_t *ids, int64_t len, \
                            int64_t pf, int mean)                                                 \
    {                                                                                             \
        switch (dim) {                                                                            \
        case 16: eb_bag_16##SFX(o, table, ids, len, pf, mean); break;                             \
        case 32: eb_bag_32##SFX(o, table, ids, len, pf, mean); break;                             \
        case 64: eb_bag_64##SFX(o, table, ids, len, pf, mean); break;                             \
        case 128: eb_bag_128##SFX(o, table, ids, len, pf, mean); break;                           \
        default: eb_bag_any##SFX(o, table, dim, ids, len, pf, mean); break;                       \
        }                                                                                         \
    }
EB_PORTABLE(_generic, )
#ifdef EB_ISA_CLONES
EB_PORTABLE(_avx2, __attribute__((target("avx2,fma"))))
EB_PORTABLE(_avx512, __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma"))))
#endif

typedef void (*eb_bag_fn)(float *, const float *, int64_t, const int64_t *, int64_t, int64_t, int);

/* The portable kernel for this process's instruction-set level. */
static eb_bag_fn eb_bag_pick(void)
{
#ifdef EB_ISA_CLONES
    if (nnc_isa() >= NNC_ISA_AVX512) return eb_bag_avx512;
    if (nnc_isa() >= NNC_ISA_AVX2) return eb_bag_avx2;
#endif
    return eb_bag_generic;
}

/* ---------------------------------------- AVX-512 and AVX2 kernels (x86-64)
 *
 * Chosen at run time (like models/sgemm.c and models/spmm.c) for widths 16,
 * 32, 64 and 128.  A bag's accumulator is NV zmm registers (16 floats each;
 * ymm, 8 floats, on AVX2 alone);
 * each column is still summed with one vaddps per id, in id order, so the
 * result is the reference's bit for bit (no FMA, no reassociation).  One
 * bag's sum is a chain of dependent adds (4 cycles each), which at dim 16
 * would bound a thread to one lookup per 4 cycles; so G equal-length bags are
 * summed side by side (independent chains; the order inside each bag is
 * unchanged).  Rows are prefetched EB_PREFETCH_AHEAD lookups ahead, every
 * cache line of the row including the last (a row need not be 64-byte
 * aligned). */
#ifdef EB_X86
#ifndef EB_PF_HINT
#define EB_PF_HINT _MM_HINT_T0
#endif
static inline __attribute__((always_inline)) void eb_prefetch_row(const float *row, int64_t dim)
{
    const char *p = (const char *)row;
    int64_t bytes = dim * (int64_t)sizeof(float);
    for (int64_t o = 0; o < bytes; o += 64) _mm_prefetch(p + o, EB_PF_HINT);
    _mm_prefetch(p + bytes - 1, EB_PF_HINT);
}

/* G bags of L ids each, first ids at ids[0], ids[L], ..., out rows likewise.
 * pf_last: the last index of ids[] that may be read for prefetching.  One
 * macro for both vector widths: PFX z (zmm, 16 floats per register, AVX-512)
 * or y (ymm, 8 floats, AVX2), NV registers per bag. */
#define EB_V_NAME_(PFX, NV, G) eb_##PFX##NV##_g##G
#define EB_V_NAME(PFX, NV, G) EB_V_NAME_(PFX, NV, G)
#define EB_V_GROUP(PFX, VT, LANES, ATTR, ZERO, LOAD, ADD, DIV, STORE, SET1, NV, G)                  \
    ATTR static void EB_V_NAME(PFX, NV, G)(float *restrict out, const float *restrict table,       \
                                           const int64_t *restrict ids, int64_t L, int64_t pf_last, \
                                           int mean)                                                \
    {                                                                                               \
        const int64_t D = LANES * NV;                                                               \
        VT acc[G][NV];                                                                              \
        for (int g = 0; g < G; g++)                                                                 \
            for (int v = 0; v < NV; v++) acc[g][v] = ZERO();                                        \
        for (int64_t i = 0; i < L; i++) {                                                           \
            /* ahead in the same bag, or past its end into the next group's bag g */               \
            int64_t a = i + EB_PREFETCH_AHEAD < L ? i + EB_PREFETCH_AHEAD                           \
                                                   : i + EB_PREFETCH_AHEAD + (G - 1) * L;           \
            for (int g = 0; g < G; g++) {                                                           \
                int64_t q = g * L + a;                                                              \
                eb_prefetch_row(table + ids[q < pf_last ? q : pf_last] * D, D);                     \
                const float *restrict w = table + ids[g * L + i] * D;                               \
                for (int v = 0; v < NV; v++) acc[g][v] = ADD(acc[g][v], LOAD(w + LANES * v));       \
            }                                                                                       \
        }                                                                                           \
        /* nnc_eb_finish_f32 per lane: one IEEE division by (float)L */                            \
        VT lenv = SET1((float)L);                                                                   \
        for (int g = 0; g < G; g++)                                                                 \
            for (int v = 0; v < NV; v++)                                                            \
                STORE(out + g * D + LANES * v, (mean && L > 0) ? DIV(acc[g][v], lenv) : acc[g][v]); \
    }
#define EB_Z_GROUP(NV, G)                                                                           \
    EB_V_GROUP(z, __m512, 16, __attribute__((target("avx512f"))), _mm512_setzero_ps, _mm512_loadu_ps, \
               _mm512_add_ps, _mm512_div_ps, _mm512_storeu_ps, _mm512_set1_ps, NV, G)
#define EB_Y_GROUP(NV, G)                                                                           \
    EB_V_GROUP(y, __m256, 8, __attribute__((target("avx2"))), _mm256_setzero_ps, _mm256_loadu_ps,    \
               _mm256_add_ps, _mm256_div_ps, _mm256_storeu_ps, _mm256_set1_ps, NV, G)
/* Bags summed side by side per width: enough independent add chains to keep
 * the adder busy, with G * NV <= 16 of the 32 zmm registers as accumulators
 * (tuned on the bench); with AVX2's 16 ymm registers, G * NV <= 8 (dim 128:
 * one bag, 16 accumulators, the rows read as memory operands). */
#ifndef EB_G16
#define EB_G16 4
#endif
#ifndef EB_G64
#define EB_G64 2
#endif
#ifndef EB_G128
#define EB_G128 2
#endif
EB_Z_GROUP(1, EB_G16)
EB_Z_GROUP(2, 4)
EB_Z_GROUP(4, EB_G64)
EB_Z_GROUP(8, EB_G128)
EB_Z_GROUP(1, 1)
EB_Z_GROUP(2, 1)
EB_Z_GROUP(4, 1)
EB_Z_GROUP(8, 1)
#ifndef EB_Y16
#define EB_Y16 4
#endif
#ifndef EB_Y32
#define EB_Y32 2
#endif
EB_Y_GROUP(2, EB_Y16)
EB_Y_GROUP(4, EB_Y32)
EB_Y_GROUP(2, 1)
EB_Y_GROUP(4, 1)
EB_Y_GROUP(8, 1)
EB_Y_GROUP(16, 1)

typedef void (*eb_v_fn)(float *restrict, const float *restrict, const int64_t *restrict, int64_t, int64_t, int);

/* The explicit kernels for width dim on this process's instruction-set
 * level (group kernel, single-bag kernel, G), or 0 when there are none. */
static int eb_v_pick(int64_t dim, eb_v_fn *grp, eb_v_fn *one)
{
    if (eb_have_avx512()) {
        switch (dim) {
        case 16: *grp = EB_V_NAME(z, 1, EB_G16); *one = eb_z1_g1; return EB_G16;
        case 32: *grp = eb_z2_g4; *one = eb_z2_g1; return 4;
        case 64: *grp = EB_V_NAME(z, 4, EB_G64); *one = eb_z4_g1; return EB_G64;
        case 128: *grp = EB_V_NAME(z, 8, EB_G128); *one = eb_z8_g1; return EB_G128;
        default: return 0;
        }
    }
    if (nnc_isa() >= NNC_ISA_AVX2) {
        switch (dim) {
        case 16: *grp = EB_V_NAME(y, 2, EB_Y16); *one = eb_y2_g1; return EB_Y16;
        case 32: *grp = EB_V_NAME(y, 4, EB_Y32); *one = eb_y4_g1; return EB_Y32;
        case 64: *grp = *one = eb_y8_g1; return 1;
        case 128: *grp = *one = eb_y16_g1; return 1;
        default: return 0;
        }
    }
    return 0;
}
#endif

/* Bags [0, n_bags) whose ids are all row numbers in [0, rows). */
static void eb_run_f32(float *out, const float *table, int64_t dim, const nnc_embbag_bags *b, int mean, int threads)
{
    int64_t nb = b->n_bags;
    int par = threads != 1 && b->n_ids >= EB_PARALLEL_MIN;
#ifdef _OPENMP
    int nt = threads > 0 ? threads : omp_get_max_threads();
#endif
#ifdef EB_X86
    eb_v_fn grp, one;
    int G = b->n_ids > 0 ? eb_v_pick(dim, &grp, &one) : 0;
    if (G) {
        int64_t pf_last = b->n_ids - 1;
        if (b->offsets == NULL) { /* equal lengths: groups of G bags, then the odd ones */
            int64_t L = b->bag_len, ng = nb / G;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nt) if (par)
#endif
            for (int64_t t = 0; t < nb - ng * G + ng; t++) {
                if (t < ng) grp(out + t * G * dim, table, b->ids + t * G * L, L, pf_last - t * G * L, mean);
                else {
                    int64_t k = ng * G + (t - ng);
                    one(out + k * dim, table, b->ids + k * L, L, pf_last - k * L, mean);
                }
            }
        } else {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nt) if (par)
#endif
            for (int64_t k = 0; k < nb; k++) {
                int64_t s = bag_begin(b, k);
                one(out + k * dim, table, b->ids + s, bag_end(b, k) - s, pf_last - s, mean);
            }
        }
        (void)par;
        return;
    }
#endif
    eb_bag_fn bag = eb_bag_pick();
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nt) if (par)
#endif
    for (int64_t k = 0; k < nb; k++) {
        int64_t s = bag_begin(b, k), len = bag_end(b, k) - s;
        /* prefetch across the bag boundary, up to the end of the ids */
        int64_t pf = b->n_ids - s;
        const int64_t *ids = b->ids + s;
        bag(out + k * dim, table, dim, ids, len, pf, mean);
    }
    (void)par;
}

nnc_status nnc_mdl_embbag_f32(float *out, const float *table, int64_t rows, int64_t dim,
                              const nnc_embbag_bags *bags, nnc_embbag_mode mode, int allow_empty,
                              int threads, char *err, size_t errlen)
{
    if (rows < 0 || dim < 0) return nnc_err(err, errlen, NNC_STATUS_INVALID, "embedding bag: negative table shape");
    if (mode != NNC_EMBBAG_MODE_SUM && mode != NNC_EMBBAG_MODE_MEAN)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "embedding bag: unknown mode %d", (int)mode);
    nnc_status st = nnc_mdl_embbag_check(bags, rows, allow_empty, err, errlen);
    if (st) return st;
    eb_run_f32(out, table, dim, bags, mode == NNC_EMBBAG_MODE_MEAN, threads);
    return NNC_STATUS_OK;
}

/* ---------------------------------------------------------- IR hooks */

/* Returns: 0 when every id is in [-rows, rows), and sets *neg when one is
 * negative (ONNX Gather counts those from the end). */
static int ids_in_range(const int64_t *ids, int64_t n, int64_t rows, int *neg)
{
    *neg = 0;
    if (rows >= 0 && eb_ids_max(ids, n) < (uint64_t)rows) return 0; /* the common case: all in [0, rows) */
    int any = 0;
    for (int64_t k = 0; k < n; k++) {
        if (nnc_eb_row(ids[k], rows, 1) < 0) return -1;
        any |= ids[k] < 0;
    }
    *neg = any;
    return 0;
}

/* Ids fixed to a constant (nnc_mdl_embbag_fix_ids) are one copy shared by
 * every sample: pool sample 0's bags, copy them to the others. */
static int eb_exec_shared(const nnc_exec *x, const nnc_node *n, size_t elem, int (*one)(const nnc_exec *, const nnc_node *))
{
    nnc_exec x1 = *x;
    x1.batch = 1;
    if (one(&x1, n)) return 1;
    char *out = x->buf[n->out[0]];
    size_t bytes = (size_t)(n->p[4] * n->p[2]) * elem;
    for (int s = 1; s < x->batch; s++) memcpy(out + (size_t)s * bytes, out, bytes);
    return 0;
}

int nnc_embbag_exec_f32(const nnc_exec *x, const nnc_node *n)
{
    if (x->batch > 1 && !x->batched[n->in[1]]) return eb_exec_shared(x, n, sizeof(float), nnc_embbag_exec_f32);
    const int64_t *ids = (const int64_t *)x->buf[n->in[1]];
    int64_t rows = n->p[1], dim = n->p[2], L = n->p[3], nb = n->p[4] * x->batch;
    int neg;
    /* ids are a run-time value (batched): the batch's bags are contiguous */
    if (ids_in_range(ids, nb * L, rows, &neg)) return 1;
    int64_t *norm = NULL;
    if (neg) { /* rare: a copy with the negative ids counted from the end */
        norm = malloc((size_t)(nb * L > 0 ? nb * L : 1) * sizeof *norm);
        if (norm == NULL) return 1;
        for (int64_t k = 0; k < nb * L; k++) norm[k] = nnc_eb_row(ids[k], rows, 1);
        ids = norm;
    }
    nnc_embbag_bags b = {ids, nb * L, NULL, nb, L};
    eb_run_f32((float *)x->buf[n->out[0]], (const float *)x->buf[n->in[0]], dim, &b,
               n->p[0] == NNC_EMBBAG_MODE_MEAN, 0);
    free(norm);
    return 0;
}

int nnc_embbag_exec_f64(const nnc_exec *x, const nnc_node *n)
{
    if (x->batch > 1 && !x->batched[n->in[1]]) return eb_exec_shared(x, n, sizeof(double), nnc_embbag_exec_f64);
    const int64_t *ids = (const int64_t *)x->buf[n->in[1]];
    const double *table = (const double *)x->buf[n->in[0]];
    double *out = (double *)x->buf[n->out[0]];
    int64_t rows = n->p[1], dim = n->p[2], L = n->p[3], nb = n->p[4] * x->batch;
    int neg;
    if (ids_in_range(ids, nb * L, rows, &neg)) return 1;
    for (int64_t k = 0; k < nb; k++) {
        double *o = out + k * dim;
        for (int64_t j = 0; j < dim; j++) o[j] = 0.0;
        for (int64_t i = 0; i < L; i++) {
            const double *w = table + nnc_eb_row(ids[k * L + i], rows, 1) * dim;
            for (int64_t j = 0; j < dim; j++) o[j] += w[j];
        }
        for (int64_t j = 0; j < dim; j++) o[j] = nnc_eb_finish_f64(o[j], L, n->p[0] == NNC_EMBBAG_MODE_MEAN);
    }
    return 0;
}

/* Live consumers of value v (graph output counts as one); *only the last. */
static int consumers(const nnc_model *m, int v, int *only)
{
    int c = m->vals[v].is_output;
    for (int k = 0; k < m->n_nodes; k++) {
        const nnc_node *n = &m->nodes[k];
        if (n->dead) continue;
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i] == v) {
                c++;
                *only = k;
            }
    }
    return c;
}

nnc_status nnc_embbag_fuse(nnc_model *m, char *err, size_t errlen)
{
    for (int t = 0; t < m->n_order; t++) {
        nnc_node *g = &m->nodes[m->order[t]];
        if (g->dead || g->op != NNC_OP_GATHER || g->n_in < 2 || g->n_out < 1 || g->out[0] < 0 || g->p[0] != 0) continue;
        const nnc_value *tab = &m->vals[g->in[0]], *ix = &m->vals[g->in[1]];
        if (tab->kind != NNC_VAL_CONST || !tab->f || tab->sparse || tab->rank != 2 || !nnc_dtype_is_float(tab->dtype)) continue;
        if (ix->kind == NNC_VAL_CONST || nnc_dtype_is_float(ix->dtype) || ix->rank < 1) continue;
        int r = -1;
        if (consumers(m, g->out[0], &r) != 1 || r < 0) continue;
        nnc_node *red = &m->nodes[r];
        if (red->op != NNC_OP_REDUCESUM && red->op != NNC_OP_REDUCEMEAN) continue;
        if ((unsigned)red->p[0] != 1u << (ix->rank - 1)) continue; /* exactly the bag axis */
        int64_t L = ix->dims[ix->rank - 1];
        if (L <= 0 || !nnc_dtype_is_float(m->vals[red->out[0]].dtype)) continue; /* an empty mean is NaN: keep the reference */
        int *in = realloc(red->in, 2 * sizeof(int));
        if (in == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        red->in = in;
        red->in[0] = g->in[0];
        red->in[1] = g->in[1];
        red->n_in = 2;
        red->p[0] = red->op == NNC_OP_REDUCEMEAN ? NNC_EMBBAG_MODE_MEAN : NNC_EMBBAG_MODE_SUM;
        red->p[1] = tab->dims[0];
        red->p[2] = tab->dims[1];
        red->p[3] = L;
        red->p[4] = ix->numel / L;
        red->op = NNC_OP_EMBEDBAG;
        g->dead = 1;
    }
    return NNC_STATUS_OK;
}

int nnc_mdl_embbag_tables(const nnc_model *m, nnc_mdl_table_info *out, int max)
{
    int c = 0;
    for (int i = 0; i < m->n_inputs; i++)
        for (int t = 0; t < m->n_order; t++) {
            const nnc_node *n = &m->nodes[m->order[t]];
            if (n->op != NNC_OP_EMBEDBAG || n->in[1] != m->inputs[i]) continue;
            if (c < max) {
                out[c].input = m->vals[m->inputs[i]].name;
                out[c].output = m->vals[n->out[0]].name;
                out[c].weights = m->vals[n->in[0]].f;
                out[c].rows = n->p[1];
                out[c].dim = n->p[2];
                out[c].bag_len = n->p[3];
                out[c].mode = (nnc_embbag_mode)n->p[0];
            }
            c++;
        }
    return c;
}

/* -------------------------------------------------------------- traces */

void nnc_mdl_trace_clear(nnc_trace *t)
{
    if (t == NULL) return;
    free(t->dense);
    free(t->ids);
    free(t->offsets);
    memset(t, 0, sizeof *t);
}

/* Growable arrays for the parser. */
static int grow(void **p, int64_t *cap, int64_t need, size_t es)
{
    if (need <= *cap) return 0;
    int64_t nc = *cap ? *cap : 256;
    while (nc < need) nc *= 2;
    if ((uint64_t)nc * es > nnc_max_tensor_bytes()) return -2;
    void *q = realloc(*p, (size_t)nc * es);
    if (q == NULL) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

nnc_status nnc_mdl_trace_parse(nnc_trace *out, const char *text, size_t len, int n_dense, int n_tables,
                               char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n_dense < 0 || n_tables < 0 || n_dense + n_tables == 0)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "trace: needs at least one dense or categorical field per sample");
    out->n_dense = n_dense;
    out->n_tables = n_tables;
    int64_t cap_d = 0, cap_i = 0, cap_o = 0, n_ids = 0, n_bags = 0;
    nnc_status st = NNC_STATUS_OK;
    int g;
    if ((g = grow((void **)&out->offsets, &cap_o, 1, sizeof(int64_t)))) goto grow_fail;
    out->offsets[0] = 0;
    size_t pos = 0;
    int64_t line = 0;
    char num[64];
    while (pos < len) {
        size_t eol = pos;
        while (eol < len && text[eol] != '\n') eol++;
        line++;
        size_t end = eol;
        if (end > pos && text[end - 1] == '\r') end--;
        size_t p = pos;
        pos = eol + 1;
        if (end == p || text[p] == '#') continue;
        int64_t s = out->n_samples;
        if ((g = grow((void **)&out->dense, &cap_d, (s + 1) * (n_dense ? n_dense : 1), sizeof(float)))) goto grow_fail;
        if ((g = grow((void **)&out->offsets, &cap_o, n_bags + n_tables + 1, sizeof(int64_t)))) goto grow_fail;
        for (int f = 0; f < n_dense + n_tables; f++) {
            size_t fe = p;
            while (fe < end && text[fe] != ',' && text[fe] != '\t') fe++;
            if (f < n_dense) {
                size_t l = fe - p;
                if (l == 0 || l >= sizeof num) {
                    st = nnc_err(err, errlen, NNC_STATUS_PARSE, "trace line %lld: dense field %d is %s", (long long)line, f + 1,
                                 l == 0 ? "empty (or the line is short)" : "too long");
                    goto fail;
                }
                memcpy(num, text + p, l);
                num[l] = 0;
                char *e;
                errno = 0;
                double v = strtod(num, &e);
                if (*e || errno == ERANGE || v != v) {
                    st = nnc_err(err, errlen, NNC_STATUS_PARSE, "trace line %lld: dense field %d ('%s') is not a finite number",
                                 (long long)line, f + 1, num);
                    goto fail;
                }
                out->dense[s * n_dense + f] = (float)v;
            } else {
                if (f > 0 && p > end) {
                    st = nnc_err(err, errlen, NNC_STATUS_PARSE, "trace line %lld: %d fields, expected %d", (long long)line, f,
                                 n_dense + n_tables);
                    goto fail;
                }
                size_t q = p;
                while (q < fe) {
                    size_t ie = q;
                    while (ie < fe && text[ie] != ':') ie++;
                    size_t l = ie - q;
                    if (l == 0 || l >= 24) {
                        st = nnc_err(err, errlen, NNC_STATUS_PARSE, "trace line %lld: categorical field %d has an empty or too long id",
                                     (long long)line, f - n_dense + 1);
                        goto fail;
                    }
                    memcpy(num, text + q, l);
                    num[l] = 0;
                    char *e;
                    errno = 0;
                    long long v = strtoll(num, &e, 10);
                    if (*e || errno == ERANGE || v < 0) {
                        st = nnc_err(err, errlen, NNC_STATUS_PARSE, "trace line %lld: categorical field %d: '%s' is not a row id (a non-negative integer)",
                                     (long long)line, f - n_dense + 1, num);
                        goto fail;
                    }
                    if ((g = grow((void **)&out->ids, &cap_i, n_ids + 1, sizeof(int64_t)))) goto grow_fail;
                    out->ids[n_ids++] = v;
                    q = ie + 1;
                }
                out->offsets[++n_bags] = n_ids;
            }
            if (fe >= end && f + 1 < n_dense + n_tables) {
                st = nnc_err(err, errlen, NNC_STATUS_PARSE, "trace line %lld: %d fields, expected %d", (long long)line, f + 1,
                             n_dense + n_tables);
                goto fail;
            }
            p = fe + 1;
        }
        if (p <= end) {
            st = nnc_err(err, errlen, NNC_STATUS_PARSE, "trace line %lld: more than %d fields", (long long)line, n_dense + n_tables);
            goto fail;
        }
        out->n_samples++;
    }
    if (out->n_samples == 0) {
        st = nnc_err(err, errlen, NNC_STATUS_PARSE, "trace: no samples");
        goto fail;
    }
    return NNC_STATUS_OK;
grow_fail:
    st = g == -2 ? nnc_err(err, errlen, NNC_STATUS_LIMIT, "trace: exceeds the %llu-byte tensor limit", (unsigned long long)nnc_max_tensor_bytes())
                 : nnc_err(err, errlen, NNC_STATUS_NOMEM, "trace: out of memory");
fail:
    nnc_mdl_trace_clear(out);
    return st;
}

nnc_status nnc_mdl_trace_read(nnc_trace *out, const char *path, int n_dense, int n_tables,
                              char *err, size_t errlen)
{
    unsigned char *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    nnc_status st = nnc_read_file(path, (size_t)nnc_max_tensor_bytes(), &buf, &len, err, errlen);
    if (st) return st;
    st = nnc_mdl_trace_parse(out, (const char *)buf, len, n_dense, n_tables, err, errlen);
    free(buf);
    return st;
}
