/* CPU sparse-dense product (graph aggregation), the CSR helpers around it
 * and the synthetic power-law graph generator.  See models/spmm.h.
 *
 * Kernel: one output row at a time, its F columns in chunks of up to 128
 * floats held in eight AVX-512 accumulators while the row's non-zeros
 * stream past (each one a broadcast value times a contiguous 16..128-float
 * slice of an X row); the chunk's tail is a masked load/store, so every F
 * takes the vector path.  Every element is accumulated with one fused
 * multiply-add per non-zero in column order, the order spmm.h promises, so
 * the vector kernel equals the scalar fmaf reference bit for bit.
 *
 * Scheduling: rows are cut into contiguous blocks of about equal cost
 * (non-zeros + 1 per row, so empty rows are not free), a row heavier than
 * the target cost being a block of its own; the blocks are sorted by cost,
 * heaviest first, and threads take them dynamically (longest processing
 * time first), so a few hub rows of a power-law graph start early instead
 * of finishing last.  Contiguous blocks keep Y writes and A reads
 * sequential. */
#include "models/spmm.h"
#include "models/model_impl.h"

#include "common/isa.h"
#include "common/philox.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NNC_SPMM_X86 1
#endif

/* ------------------------------------------------------------ CSR helpers */

nnc_status nnc_mdl_csr32_check(const nnc_mdl_csr32 *a, char *err, size_t errlen)
{
    if (a->rows < 0 || a->cols < 0 || a->nnz < 0)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "CSR: negative size (rows %d, cols %d, nnz %d)", (int)a->rows,
                       (int)a->cols, (int)a->nnz);
    if (a->row_ptr == NULL || (a->nnz > 0 && (a->col == NULL || a->val == NULL)))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "CSR: missing arrays");
    if (a->row_ptr[0] != 0)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "CSR: row_ptr[0] is %d, not 0", (int)a->row_ptr[0]);
    for (int32_t r = 0; r < a->rows; r++) {
        int32_t k0 = a->row_ptr[r], k1 = a->row_ptr[r + 1];
        if (k1 < k0)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "CSR: row_ptr decreases at row %d (%d -> %d)", (int)r,
                           (int)k0, (int)k1);
        if (k1 > a->nnz)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "CSR: row_ptr[%d] = %d exceeds nnz %d", (int)r + 1, (int)k1,
                           (int)a->nnz);
        for (int32_t k = k0; k < k1; k++) {
            if (a->col[k] < 0 || a->col[k] >= a->cols)
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "CSR: column %d of row %d (entry %d) is outside 0..%d",
                               (int)a->col[k], (int)r, (int)k, (int)a->cols - 1);
            if (k > k0 && a->col[k] == a->col[k - 1])
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "CSR: duplicate entry (%d, %d) at entry %d", (int)r,
                               (int)a->col[k], (int)k);
            if (k > k0 && a->col[k] < a->col[k - 1])
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "CSR: columns of row %d are not sorted (%d after %d, entry %d)",
                               (int)r, (int)a->col[k], (int)a->col[k - 1], (int)k);
        }
    }
    if (a->row_ptr[a->rows] != a->nnz)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "CSR: row_ptr[%d] = %d, not nnz = %d", (int)a->rows,
                       (int)a->row_ptr[a->rows], (int)a->nnz);
    return NNC_STATUS_OK;
}

void nnc_mdl_csr32_free(nnc_mdl_csr32 *a)
{
    if (a == NULL) return;
    free(a->row_ptr);
    free(a->col);
    free(a->val);
    a->row_ptr = a->col = NULL;
    a->val = NULL;
}

static int32_t get_i32(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    int32_t v;
    memcpy(&v, &u, 4);
    return v;
}

static void put_i32(unsigned char *p, int32_t v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(u >> (8 * i));
}

nnc_status nnc_mdl_csr32_parse_gcsr(nnc_mdl_csr32 *out, const unsigned char *buf, size_t len, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (len < 24 || memcmp(buf, "GCSR0001", 8) != 0)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "not a GCSR0001 file (magic or short header)");
    int32_t n = get_i32(buf + 8), nnz = get_i32(buf + 12);
    if (n < 0 || nnz < 0 || n == INT32_MAX)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "bad header (n_nodes %d, nnz %d)", (int)n, (int)nnz);
    uint64_t want = 24 + 4 * ((uint64_t)n + 1) + 4 * (uint64_t)nnz;
    if ((uint64_t)len != want)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "%zu bytes, the header (n_nodes %d, nnz %d) needs %llu", len, (int)n,
                       (int)nnz, (unsigned long long)want);
    out->row_ptr = malloc(((size_t)n + 1) * sizeof(int32_t));
    out->col = malloc(((size_t)nnz + 1) * sizeof(int32_t));
    out->val = malloc(((size_t)nnz + 1) * sizeof(float));
    if (!out->row_ptr || !out->col || !out->val) {
        nnc_mdl_csr32_free(out);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    out->rows = out->cols = n;
    out->nnz = nnz;
    for (int32_t i = 0; i <= n; i++) out->row_ptr[i] = get_i32(buf + 24 + 4 * (size_t)i);
    for (int32_t k = 0; k < nnz; k++) {
        out->col[k] = get_i32(buf + 24 + 4 * ((size_t)n + 1 + (size_t)k));
        out->val[k] = 1.0f;
    }
    nnc_status st = nnc_mdl_csr32_check(out, err, errlen);
    if (st != NNC_STATUS_OK) nnc_mdl_csr32_free(out);
    return st;
}

nnc_status nnc_mdl_csr32_read_gcsr(nnc_mdl_csr32 *out, const char *path, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (f == NULL) return nnc_err(err, errlen, NNC_STATUS_IO, "%s: cannot open", path);
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return nnc_err(err, errlen, NNC_STATUS_IO, "%s: cannot seek", path);
    }
    if ((uint64_t)size > nnc_max_tensor_bytes()) {
        fclose(f);
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "%s: %ld bytes exceed the tensor limit", path, size);
    }
    unsigned char *buf = malloc((size_t)size + 1);
    if (buf == NULL) {
        fclose(f);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "%s: out of memory", path);
    }
    size_t got = fread(buf, 1, (size_t)size, f);
    fclose(f);
    if (got != (size_t)size) {
        free(buf);
        return nnc_err(err, errlen, NNC_STATUS_IO, "%s: short read", path);
    }
    char sub[NNC_ERRBUF_SIZE];
    nnc_status st = nnc_mdl_csr32_parse_gcsr(out, buf, got, sub, sizeof sub);
    free(buf);
    if (st != NNC_STATUS_OK) return nnc_err(err, errlen, st, "%s: %s", path, sub);
    return NNC_STATUS_OK;
}

nnc_status nnc_mdl_csr32_write_gcsr(const nnc_mdl_csr32 *a, int32_t n_features, int32_t n_classes, const char *path,
                                    char *err, size_t errlen)
{
    if (a->rows != a->cols)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "%s: GCSR holds a square adjacency, not %dx%d", path, (int)a->rows,
                       (int)a->cols);
    FILE *f = fopen(path, "wb");
    if (f == NULL) return nnc_err(err, errlen, NNC_STATUS_IO, "%s: cannot create", path);
    unsigned char h[24], w[4];
    memcpy(h, "GCSR0001", 8);
    put_i32(h + 8, a->rows);
    put_i32(h + 12, a->nnz);
    put_i32(h + 16, n_features);
    put_i32(h + 20, n_classes);
    int ok = fwrite(h, 1, 24, f) == 24;
    for (int32_t i = 0; ok && i <= a->rows; i++) {
        put_i32(w, a->row_ptr[i]);
        ok = fwrite(w, 1, 4, f) == 4;
    }
    for (int32_t k = 0; ok && k < a->nnz; k++) {
        put_i32(w, a->col[k]);
        ok = fwrite(w, 1, 4, f) == 4;
    }
    if (fclose(f) != 0) ok = 0;
    if (!ok) {
        remove(path);
        return nnc_err(err, errlen, NNC_STATUS_IO, "%s: write failed", path);
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_mdl_csr32_gcn_norm(nnc_mdl_csr32 *out, const nnc_mdl_csr32 *a, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (a->rows != a->cols) return nnc_err(err, errlen, NNC_STATUS_ARG, "GCN normalisation needs a square matrix");
    int32_t n = a->rows;
    int64_t cap = (int64_t)a->nnz + n;
    if (cap > INT32_MAX) return nnc_err(err, errlen, NNC_STATUS_LIMIT, "GCN normalisation: too many entries");
    out->row_ptr = malloc(((size_t)n + 1) * sizeof(int32_t));
    out->col = malloc(((size_t)cap + 1) * sizeof(int32_t));
    out->val = malloc(((size_t)cap + 1) * sizeof(float));
    double *dinv = malloc(((size_t)n + 1) * sizeof(double));
    if (!out->row_ptr || !out->col || !out->val || !dinv) {
        free(dinv);
        nnc_mdl_csr32_free(out);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    /* merge the diagonal into each sorted row */
    int32_t k = 0;
    out->row_ptr[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        int placed = 0;
        for (int32_t q = a->row_ptr[i]; q < a->row_ptr[i + 1]; q++) {
            int32_t c = a->col[q];
            if (!placed && c >= i) {
                out->col[k++] = i;
                placed = 1;
                if (c == i) continue;
            }
            out->col[k++] = c;
        }
        if (!placed) out->col[k++] = i;
        out->row_ptr[i + 1] = k;
        dinv[i] = (double)(out->row_ptr[i + 1] - out->row_ptr[i]);
    }
    out->rows = out->cols = n;
    out->nnz = k;
    for (int32_t i = 0; i < n; i++)
        for (int32_t q = out->row_ptr[i]; q < out->row_ptr[i + 1]; q++)
            out->val[q] = (float)(1.0 / sqrt(dinv[i] * dinv[out->col[q]]));
    free(dinv);
    return NNC_STATUS_OK;
}

nnc_status nnc_mdl_csr32_from_csr(nnc_mdl_csr32 *out, const nnc_csr *c, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (c->rows >= INT32_MAX || c->cols >= INT32_MAX || c->nnz >= INT32_MAX)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "sparse matrix %lldx%lld with %lld entries exceeds the int32 CSR",
                       (long long)c->rows, (long long)c->cols, (long long)c->nnz);
    out->row_ptr = malloc(((size_t)c->rows + 1) * sizeof(int32_t));
    out->col = malloc(((size_t)c->nnz + 1) * sizeof(int32_t));
    out->val = malloc(((size_t)c->nnz + 1) * sizeof(float));
    if (!out->row_ptr || !out->col || !out->val) {
        nnc_mdl_csr32_free(out);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    out->rows = (int32_t)c->rows;
    out->cols = (int32_t)c->cols;
    out->nnz = (int32_t)c->nnz;
    for (int64_t i = 0; i <= c->rows; i++) out->row_ptr[i] = (int32_t)c->row_ptr[i];
    for (int64_t k = 0; k < c->nnz; k++) {
        out->col[k] = (int32_t)c->col[k];
        out->val[k] = (float)c->val[k];
    }
    return NNC_STATUS_OK;
}

/* ------------------------------------------------------ power-law graphs */

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

nnc_status nnc_mdl_graph_powerlaw(nnc_mdl_csr32 *out, int32_t n, double avg_deg, double gamma, uint64_t seed,
                                  char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || n > (1 << 24)) return nnc_err(err, errlen, NNC_STATUS_ARG, "graph: %d nodes outside 1..2^24", (int)n);
    if (!(avg_deg >= 0 && avg_deg <= 1000))
        return nnc_err(err, errlen, NNC_STATUS_ARG, "graph: average degree %g outside [0, 1000]", avg_deg);
    if (!(gamma > 2 && gamma < 100)) return nnc_err(err, errlen, NNC_STATUS_ARG, "graph: gamma %g must be in (2, 100)", gamma);
    int64_t draws = (int64_t)(avg_deg * n / 2.0);
    if (2 * draws > INT32_MAX) return nnc_err(err, errlen, NNC_STATUS_LIMIT, "graph: too many edges");
    double *cdf = malloc((size_t)n * sizeof(double));
    uint64_t *e = malloc(((size_t)draws * 2 + 1) * sizeof(uint64_t));
    if (!cdf || !e) {
        free(cdf);
        free(e);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "graph: out of memory");
    }
    double s = 0, ex = -1.0 / (gamma - 1.0);
    for (int32_t i = 0; i < n; i++) cdf[i] = (s += pow((double)i + 1.0, ex));
    nnc_philox_state st;
    nnc_philox_init(&st, seed, 0, 0);
    int64_t m = 0;
    for (int64_t d = 0; d < draws; d++) {
        int32_t v[2];
        for (int t = 0; t < 2; t++) {
            double u = nnc_philox_uniform_double32(&st) * s; /* (0, s] */
            int32_t lo = 0, hi = n - 1;                      /* first i with cdf[i] >= u */
            while (lo < hi) {
                int32_t mid = lo + (hi - lo) / 2;
                if (cdf[mid] >= u) hi = mid;
                else lo = mid + 1;
            }
            v[t] = lo;
        }
        if (v[0] == v[1]) continue;
        e[m++] = (uint64_t)v[0] << 32 | (uint32_t)v[1];
        e[m++] = (uint64_t)v[1] << 32 | (uint32_t)v[0];
    }
    free(cdf);
    qsort(e, (size_t)m, sizeof *e, cmp_u64);
    int64_t u = 0;
    for (int64_t q = 0; q < m; q++)
        if (u == 0 || e[q] != e[u - 1]) e[u++] = e[q];
    out->row_ptr = calloc((size_t)n + 1, sizeof(int32_t));
    out->col = malloc(((size_t)u + 1) * sizeof(int32_t));
    out->val = malloc(((size_t)u + 1) * sizeof(float));
    if (!out->row_ptr || !out->col || !out->val) {
        free(e);
        nnc_mdl_csr32_free(out);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "graph: out of memory");
    }
    for (int64_t q = 0; q < u; q++) {
        out->row_ptr[(e[q] >> 32) + 1]++;
        out->col[q] = (int32_t)(uint32_t)e[q];
        out->val[q] = 1.0f;
    }
    for (int32_t i = 0; i < n; i++) out->row_ptr[i + 1] += out->row_ptr[i];
    out->rows = out->cols = n;
    out->nnz = (int32_t)u;
    free(e);
    return NNC_STATUS_OK;
}

/* ----------------------------------------------------------------- kernels */

void nnc_mdl_spmm_rows_ref(const nnc_mdl_csr32 *a, int32_t r0, int32_t r1, const float *x, int64_t F, float *y)
{
    for (int32_t r = r0; r < r1; r++) {
        float *yr = y + (int64_t)r * F;
        for (int64_t j = 0; j < F; j++) {
            float acc = 0.0f;
            for (int32_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++)
                acc = fmaf(a->val[k], x[(int64_t)a->col[k] * F + j], acc);
            yr[j] = acc;
        }
    }
}

#ifdef NNC_SPMM_X86
/* One row, one chunk of NV*16 columns (the last vector masked).  always_inline
 * so that each NV gets its own copy with the accumulators in registers. */
static inline __attribute__((always_inline, target("avx512f"))) void
row_chunk(const int32_t *col, const float *val, int32_t k0, int32_t k1, const float *x, int64_t F, float *yr, int nv,
          __mmask16 last)
{
    /* the unroll pragmas let gcc keep acc[] in registers (-O2 alone leaves
     * loops of more than 3 iterations rolled, with acc[] in memory) */
    __m512 acc[8];
#pragma GCC unroll 8
    for (int i = 0; i < nv; i++) acc[i] = _mm512_setzero_ps();
    for (int32_t k = k0; k < k1; k++) {
        __m512 v = _mm512_set1_ps(val[k]);
        const float *xr = x + (int64_t)col[k] * F;
#pragma GCC unroll 8
        for (int i = 0; i < nv - 1; i++) acc[i] = _mm512_fmadd_ps(v, _mm512_loadu_ps(xr + 16 * i), acc[i]);
        acc[nv - 1] = _mm512_fmadd_ps(v, _mm512_maskz_loadu_ps(last, xr + 16 * (nv - 1)), acc[nv - 1]);
    }
#pragma GCC unroll 8
    for (int i = 0; i < nv - 1; i++) _mm512_storeu_ps(yr + 16 * i, acc[i]);
    _mm512_mask_storeu_ps(yr + 16 * (nv - 1), last, acc[nv - 1]);
}

__attribute__((target("avx512f"))) static void rows_avx512(const nnc_mdl_csr32 *a, int32_t r0, int32_t r1,
                                                            const float *x, int64_t F, float *y)
{
    for (int32_t r = r0; r < r1; r++) {
        int32_t k0 = a->row_ptr[r], k1 = a->row_ptr[r + 1];
        for (int64_t f0 = 0; f0 < F; f0 += 128) {
            int64_t w = F - f0 < 128 ? F - f0 : 128;
            int nv = (int)((w + 15) / 16);
            __mmask16 last = (w & 15) ? (__mmask16)((1u << (w & 15)) - 1u) : (__mmask16)0xFFFF;
            const float *xs = x + f0;
            float *yr = y + (int64_t)r * F + f0;
            switch (nv) {
            case 1: row_chunk(a->col, a->val, k0, k1, xs, F, yr, 1, last); break;
            case 2: row_chunk(a->col, a->val, k0, k1, xs, F, yr, 2, last); break;
            case 3: row_chunk(a->col, a->val, k0, k1, xs, F, yr, 3, last); break;
            case 4: row_chunk(a->col, a->val, k0, k1, xs, F, yr, 4, last); break;
            case 5: row_chunk(a->col, a->val, k0, k1, xs, F, yr, 5, last); break;
            case 6: row_chunk(a->col, a->val, k0, k1, xs, F, yr, 6, last); break;
            case 7: row_chunk(a->col, a->val, k0, k1, xs, F, yr, 7, last); break;
            default: row_chunk(a->col, a->val, k0, k1, xs, F, yr, 8, last); break;
            }
        }
    }
}

/* The AVX2 twin: chunks of up to 8 x 8 columns, the last vector masked. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
row_chunk_y(const int32_t *col, const float *val, int32_t k0, int32_t k1, const float *x, int64_t F, float *yr, int nv,
            __m256i last)
{
    __m256 acc[8];
#pragma GCC unroll 8
    for (int i = 0; i < nv; i++) acc[i] = _mm256_setzero_ps();
    for (int32_t k = k0; k < k1; k++) {
        __m256 v = _mm256_broadcast_ss(val + k);
        const float *xr = x + (int64_t)col[k] * F;
#pragma GCC unroll 8
        for (int i = 0; i < nv - 1; i++) acc[i] = _mm256_fmadd_ps(v, _mm256_loadu_ps(xr + 8 * i), acc[i]);
        acc[nv - 1] = _mm256_fmadd_ps(v, _mm256_maskload_ps(xr + 8 * (nv - 1), last), acc[nv - 1]);
    }
#pragma GCC unroll 8
    for (int i = 0; i < nv - 1; i++) _mm256_storeu_ps(yr + 8 * i, acc[i]);
    _mm256_maskstore_ps(yr + 8 * (nv - 1), last, acc[nv - 1]);
}

__attribute__((target("avx2,fma"))) static void rows_avx2(const nnc_mdl_csr32 *a, int32_t r0, int32_t r1,
                                                          const float *x, int64_t F, float *y)
{
    for (int32_t r = r0; r < r1; r++) {
        int32_t k0 = a->row_ptr[r], k1 = a->row_ptr[r + 1];
        for (int64_t f0 = 0; f0 < F; f0 += 64) {
            int64_t w = F - f0 < 64 ? F - f0 : 64;
            int nv = (int)((w + 7) / 8), t = (int)(w - 8 * (nv - 1)); /* 1..8 lanes in the last vector */
            __m256i last = _mm256_cmpgt_epi32(_mm256_set1_epi32(t), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            const float *xs = x + f0;
            float *yr = y + (int64_t)r * F + f0;
            switch (nv) {
            case 1: row_chunk_y(a->col, a->val, k0, k1, xs, F, yr, 1, last); break;
            case 2: row_chunk_y(a->col, a->val, k0, k1, xs, F, yr, 2, last); break;
            case 3: row_chunk_y(a->col, a->val, k0, k1, xs, F, yr, 3, last); break;
            case 4: row_chunk_y(a->col, a->val, k0, k1, xs, F, yr, 4, last); break;
            case 5: row_chunk_y(a->col, a->val, k0, k1, xs, F, yr, 5, last); break;
            case 6: row_chunk_y(a->col, a->val, k0, k1, xs, F, yr, 6, last); break;
            case 7: row_chunk_y(a->col, a->val, k0, k1, xs, F, yr, 7, last); break;
            default: row_chunk_y(a->col, a->val, k0, k1, xs, F, yr, 8, last); break;
            }
        }
    }
}
#endif

void nnc_mdl_spmm_rows(const nnc_mdl_csr32 *a, int32_t r0, int32_t r1, const float *x, int64_t F, float *y)
{
#ifdef NNC_SPMM_X86
    if (nnc_isa() >= NNC_ISA_AVX512) {
        rows_avx512(a, r0, r1, x, F, y);
        return;
    }
    if (nnc_isa() >= NNC_ISA_AVX2) {
        rows_avx2(a, r0, r1, x, F, y);
        return;
    }
#endif
    nnc_mdl_spmm_rows_ref(a, r0, r1, x, F, y);
}

double nnc_mdl_spmm_bytes(const nnc_mdl_csr32 *a, int64_t F)
{
    return 4.0 * ((double)a->rows + 1) + 8.0 * (double)a->nnz + 4.0 * (double)a->cols * (double)F +
           4.0 * (double)a->rows * (double)F;
}

/* ----------------------------------------------------------------- plans */

typedef struct spmm_block {
    int32_t r0, r1;
    int64_t cost; /* non-zeros + rows */
} spmm_block;

struct nnc_mdl_spmm_plan {
    const nnc_mdl_csr32 *a;
    int threads;
    int32_t nblocks;
    spmm_block *blocks; /* heaviest first */
    int64_t cost;       /* total */
};

static int cmp_block(const void *x, const void *y)
{
    const spmm_block *a = x, *b = y;
    if (a->cost != b->cost) return a->cost > b->cost ? -1 : 1;
    return a->r0 < b->r0 ? -1 : a->r0 > b->r0; /* deterministic order */
}

nnc_status nnc_mdl_spmm_plan_create(nnc_mdl_spmm_plan **out, const nnc_mdl_csr32 *a, int threads, char *err,
                                    size_t errlen)
{
    *out = NULL;
    nnc_mdl_spmm_plan *p = calloc(1, sizeof *p);
    if (p == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    p->a = a;
    p->threads = threads < 1 ? 1 : threads;
    p->cost = (int64_t)a->nnz + a->rows;
    /* about 16 blocks per thread balance the dynamic schedule; at least 512
     * cost units per block keep the per-block overhead small */
    int64_t target = p->cost / (16 * (int64_t)p->threads);
    if (target < 512) target = 512;
    p->blocks = malloc(((size_t)a->rows + 1) * sizeof *p->blocks); /* a block has at least one row */
    if (p->blocks == NULL) {
        free(p);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    int32_t nb = 0, r = 0;
    while (r < a->rows) {
        int32_t r0 = r;
        int64_t c = 0;
        while (r < a->rows) {
            int64_t rc = (int64_t)(a->row_ptr[r + 1] - a->row_ptr[r]) + 1;
            if (c > 0 && c + rc > target) break;
            c += rc;
            r++;
        }
        p->blocks[nb++] = (spmm_block){r0, r, c};
    }
    qsort(p->blocks, (size_t)nb, sizeof *p->blocks, cmp_block);
    p->nblocks = nb;
    *out = p;
    return NNC_STATUS_OK;
}

void nnc_mdl_spmm_plan_destroy(nnc_mdl_spmm_plan *p)
{
    if (p == NULL) return;
    free(p->blocks);
    free(p);
}

void nnc_mdl_spmm(const nnc_mdl_spmm_plan *p, const float *x, int64_t F, float *y)
{
    const nnc_mdl_csr32 *a = p->a;
    /* below ~1M multiply-adds (about 0.1 ms on one core) waking a second
     * thread costs more than it saves, and on a busy machine far more */
    int threads = ((double)p->cost * (double)F < 1048576.0 || p->nblocks < 2) ? 1 : p->threads;
    if (threads == 1) {
        nnc_mdl_spmm_rows(a, 0, a->rows, x, F, y);
        return;
    }
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int32_t b = 0; b < p->nblocks; b++) nnc_mdl_spmm_rows(a, p->blocks[b].r0, p->blocks[b].r1, x, F, y);
}
