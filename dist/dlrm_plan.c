/* Embedding-table placement for DLRMs: access statistics, the cost model and
 * the OPER-style heuristic search (dist/dlrm.h).  Plain C; no device code. */
#include "dist/dlrm.h"
#include "dist/dlrm_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *nnc_dlrm_shard_name(nnc_dlrm_shard s)
{
    switch (s) {
    case NNC_DLRM_SHARD_TABLE: return "table";
    case NNC_DLRM_SHARD_ROW: return "row";
    case NNC_DLRM_SHARD_COLUMN: return "column";
    case NNC_DLRM_SHARD_REPLICATED: return "replicated";
    case NNC_DLRM_SHARD_MIXED: return "mixed";
    }
    return "?";
}

void nnc_dlrm_opts_default(nnc_dlrm_opts *o)
{
    o->mem_bw_gbs = 900.0;
    o->net_bw_gbs = 50.0;
    o->mem_per_device = 0;
}

/* Device o owns samples [n*o/D, n*(o+1)/D) (integer division). */
int nnc_dlrm_sample_device(int64_t s, int64_t n, int devices)
{
    int o = (int)((s * devices) / n);
    while (o + 1 < devices && n * (o + 1) / devices <= s) o++;
    while (o > 0 && n * o / devices > s) o--;
    return o;
}

void nnc_dlrm_plan_free(nnc_dlrm_plan *p)
{
    if (p == NULL) return;
    if (p->owner)
        for (int t = 0; t < p->n_tables; t++) free(p->owner[t]);
    free(p->owner);
    free(p->tables);
    free(p->kind);
    free(p->device);
    memset(p, 0, sizeof *p);
}

void nnc_dlrm_stats_destroy(nnc_dlrm_stats *s)
{
    if (s == NULL) return;
    for (int t = 0; t < s->n_tables; t++) {
        free(s->cnt ? s->cnt[t] : NULL);
        free(s->total ? s->total[t] : NULL);
    }
    free(s->cnt);
    free(s->total);
    free(s->tables);
    free(s);
}

nnc_status nnc_dlrm_stats_create(nnc_dlrm_stats **out, const nnc_trace *trace, const nnc_dlrm_table *tables,
                                 int n_tables, int devices, char *err, size_t errlen)
{
    *out = NULL;
    if (devices < 1 || devices > NNC_DLRM_MAX_DEVICES)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "devices must be 1..%d", NNC_DLRM_MAX_DEVICES);
    if (trace->n_samples < devices)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "the trace has %lld samples, fewer than the %d devices",
                       (long long)trace->n_samples, devices);
    if (trace->n_tables != n_tables)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "the trace has %d categorical fields, the model %d tables",
                       trace->n_tables, n_tables);
    nnc_dlrm_stats *s = calloc(1, sizeof *s);
    if (s == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    s->devices = devices;
    s->n_tables = n_tables;
    s->n_samples = trace->n_samples;
    s->tables = malloc((size_t)(n_tables ? n_tables : 1) * sizeof *s->tables);
    s->cnt = calloc((size_t)(n_tables ? n_tables : 1), sizeof *s->cnt);
    s->total = calloc((size_t)(n_tables ? n_tables : 1), sizeof *s->total);
    if (!s->tables || !s->cnt || !s->total) goto nomem;
    for (int t = 0; t < n_tables; t++) {
        s->tables[t] = tables[t];
        if (tables[t].rows < 0 || tables[t].dim < 1 ||
            (uint64_t)tables[t].rows * (uint64_t)devices * 8u > nnc_max_tensor_bytes()) {
            nnc_dlrm_stats_destroy(s);
            return nnc_err(err, errlen, NNC_STATUS_LIMIT, "table %d: %lld rows are too many for the statistics", t,
                           (long long)tables[t].rows);
        }
        s->cnt[t] = calloc((size_t)(tables[t].rows * devices + 1), sizeof(int64_t));
        s->total[t] = calloc((size_t)(tables[t].rows + 1), sizeof(int64_t));
        if (!s->cnt[t] || !s->total[t]) goto nomem;
    }
    for (int64_t smp = 0; smp < trace->n_samples; smp++) {
        int o = nnc_dlrm_sample_device(smp, trace->n_samples, devices);
        for (int t = 0; t < n_tables; t++) {
            int64_t b = smp * n_tables + t;
            for (int64_t k = trace->offsets[b]; k < trace->offsets[b + 1]; k++) {
                int64_t r = trace->ids[k];
                if (r < 0 || r >= tables[t].rows) {
                    nnc_dlrm_stats_destroy(s);
                    return nnc_err(err, errlen, NNC_STATUS_INVALID, "trace sample %lld: id %lld is outside table %d's %lld rows",
                                   (long long)smp + 1, (long long)r, t, (long long)tables[t].rows);
                }
                s->cnt[t][r * devices + o]++;
                s->total[t][r]++;
            }
        }
    }
    *out = s;
    return NNC_STATUS_OK;
nomem:
    nnc_dlrm_stats_destroy(s);
    return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
}

/* --------------------------------------------------------- cost model */

void nnc_dlrm_slice(int64_t dim, int devices, int k, int64_t *c0, int64_t *c1)
{
    *c0 = dim * k / devices;
    *c1 = dim * (k + 1) / devices;
}

int nnc_dlrm_row_device(const nnc_dlrm_plan *p, int t, int64_t r)
{
    switch (p->kind[t]) {
    case NNC_DLRM_SHARD_TABLE: return p->device[t];
    case NNC_DLRM_SHARD_ROW: {
        int64_t block = (p->tables[t].rows + p->devices - 1) / p->devices;
        return (int)(r / (block ? block : 1));
    }
    case NNC_DLRM_SHARD_MIXED: return p->owner[t][r];
    default: return -1; /* replicated, or every device (column) */
    }
}

void nnc_dlrm_cost_write_json(FILE *f, const nnc_dlrm_cost *c)
{
    static const char *names[] = {"lookups", "read_bytes", "sent_bytes", "recv_bytes", "mem_bytes"};
    const int64_t *arr[] = {c->lookups, c->read_bytes, c->sent, c->recv, c->mem_bytes};
    fprintf(f, "{");
    for (int a = 0; a < 5; a++) {
        fprintf(f, "\"%s\": [", names[a]);
        for (int k = 0; k < c->devices; k++) fprintf(f, "%s%lld", k ? ", " : "", (long long)arr[a][k]);
        fprintf(f, "], ");
    }
    fprintf(f, "\"time_us\": [");
    for (int k = 0; k < c->devices; k++) fprintf(f, "%s%.6g", k ? ", " : "", c->time_us[k]);
    fprintf(f, "], \"max_time_us\": %.6g}", c->max_time_us);
}

static double bw_us(double gbs) { return gbs * 1e3; } /* GB/s -> bytes per microsecond */

void nnc_dlrm_finish_cost(nnc_dlrm_cost *c, const nnc_dlrm_opts *o)
{
    c->max_time_us = 0;
    for (int k = 0; k < c->devices; k++) {
        c->time_us[k] = (double)c->read_bytes[k] / bw_us(o->mem_bw_gbs) +
                        (double)(c->sent[k] + c->recv[k]) / bw_us(o->net_bw_gbs);
        if (c->time_us[k] > c->max_time_us) c->max_time_us = c->time_us[k];
    }
}

/* Counters of row r of table t served by device k (the owner), bytes wide. */
static void add_owned(nnc_dlrm_cost *c, const nnc_dlrm_stats *st, int t, int64_t r, int k, int64_t bytes)
{
    int D = st->devices;
    int64_t f = st->total[t][r];
    c->lookups[k] += f;
    c->read_bytes[k] += f * bytes;
    for (int o = 0; o < D; o++) {
        int64_t n = st->cnt[t][r * D + o];
        if (o == k || n == 0) continue;
        c->sent[o] += 8 * n;       /* ids out */
        c->recv[k] += 8 * n;
        c->sent[k] += bytes * n;   /* rows back */
        c->recv[o] += bytes * n;
    }
}

static void add_replicated(nnc_dlrm_cost *c, const nnc_dlrm_stats *st, int t, int64_t r, int64_t bytes)
{
    int D = st->devices;
    for (int o = 0; o < D; o++) {
        int64_t n = st->cnt[t][r * D + o];
        c->lookups[o] += n;
        c->read_bytes[o] += n * bytes;
    }
}

void nnc_dlrm_predict(nnc_dlrm_cost *c, const nnc_dlrm_plan *p, const nnc_dlrm_stats *st, const nnc_dlrm_opts *o)
{
    memset(c, 0, sizeof *c);
    int D = p->devices;
    c->devices = D;
    for (int t = 0; t < p->n_tables; t++) {
        int64_t rows = p->tables[t].rows, dim = p->tables[t].dim, rb = 4 * dim;
        for (int64_t r = 0; r < rows; r++) {
            if (p->kind[t] == NNC_DLRM_SHARD_COLUMN) {
                for (int k = 0; k < D; k++) {
                    int64_t c0, c1;
                    nnc_dlrm_slice(dim, D, k, &c0, &c1);
                    c->mem_bytes[k] += 4 * (c1 - c0);
                    if (c1 > c0 && st->total[t][r]) add_owned(c, st, t, r, k, 4 * (c1 - c0));
                }
                continue;
            }
            int k = nnc_dlrm_row_device(p, t, r);
            if (k < 0) {
                for (int j = 0; j < D; j++) c->mem_bytes[j] += rb;
                if (st->total[t][r]) add_replicated(c, st, t, r, rb);
            } else {
                c->mem_bytes[k] += rb;
                if (st->total[t][r]) add_owned(c, st, t, r, k, rb);
            }
        }
    }
    nnc_dlrm_finish_cost(c, o);
}

/* ------------------------------------------------------------- plans */

static nnc_status plan_alloc(nnc_dlrm_plan *p, const nnc_dlrm_stats *st, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    int T = st->n_tables;
    p->devices = st->devices;
    p->n_tables = T;
    p->tables = malloc((size_t)(T ? T : 1) * sizeof *p->tables);
    p->kind = calloc((size_t)(T ? T : 1), sizeof *p->kind);
    p->device = calloc((size_t)(T ? T : 1), sizeof *p->device);
    p->owner = calloc((size_t)(T ? T : 1), sizeof *p->owner);
    if (!p->tables || !p->kind || !p->device || !p->owner) {
        nnc_dlrm_plan_free(p);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    memcpy(p->tables, st->tables, (size_t)T * sizeof *p->tables);
    return NNC_STATUS_OK;
}

static int64_t total_bytes(const nnc_dlrm_stats *st)
{
    int64_t b = 0;
    for (int t = 0; t < st->n_tables; t++) b += st->tables[t].rows * st->tables[t].dim * 4;
    return b;
}

static int64_t capacity(const nnc_dlrm_stats *st, const nnc_dlrm_opts *o)
{
    if (o->mem_per_device > 0) return o->mem_per_device;
    return (int64_t)ceil(1.25 * (double)total_bytes(st) / st->devices);
}

/* Predicted time on every device of table t placed whole on device k. */
static void table_delta(double *dt, const nnc_dlrm_stats *st, int t, int k, const nnc_dlrm_opts *o)
{
    int D = st->devices;
    int64_t rb = 4 * st->tables[t].dim, f = 0, per[NNC_DLRM_MAX_DEVICES] = {0};
    for (int64_t r = 0; r < st->tables[t].rows; r++) {
        f += st->total[t][r];
        for (int j = 0; j < D; j++) per[j] += st->cnt[t][r * D + j];
    }
    double nb = bw_us(o->net_bw_gbs);
    for (int j = 0; j < D; j++) dt[j] = j == k ? 0 : (double)per[j] * (double)(8 + rb) / nb;
    for (int j = 0; j < D; j++)
        if (j != k) dt[k] += (double)per[j] * (double)(8 + rb) / nb;
    dt[k] += (double)(f * rb) / bw_us(o->mem_bw_gbs);
}

nnc_status nnc_dlrm_plan_uniform(nnc_dlrm_plan *p, const nnc_dlrm_stats *st, nnc_dlrm_shard kind,
                                 const nnc_dlrm_opts *o, char *err, size_t errlen)
{
    if (kind == NNC_DLRM_SHARD_MIXED) return nnc_err(err, errlen, NNC_STATUS_ARG, "a mixed plan comes from the search");
    nnc_status s = plan_alloc(p, st, err, errlen);
    if (s) return s;
    int D = st->devices, T = st->n_tables;
    for (int t = 0; t < T; t++) p->kind[t] = kind;
    if (kind != NNC_DLRM_SHARD_TABLE) return NNC_STATUS_OK;
    /* greedy: tables by their single-device time, largest first, each on the
     * device that keeps the maximum lowest */
    double (*delta)[NNC_DLRM_MAX_DEVICES] = malloc((size_t)(T ? T : 1) * sizeof *delta);
    int *order = malloc((size_t)(T ? T : 1) * sizeof *order);
    if (!delta || !order) {
        free(delta);
        free(order);
        nnc_dlrm_plan_free(p);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    double load[NNC_DLRM_MAX_DEVICES] = {0}, w[NNC_DLRM_MAX_DEVICES];
    for (int t = 0; t < T; t++) {
        table_delta(delta[t], st, t, 0, o);
        order[t] = t;
    }
    for (int a = 1; a < T; a++) /* insertion sort by descending delta on its own device */
        for (int b = a; b > 0 && delta[order[b]][0] > delta[order[b - 1]][0]; b--) {
            int x = order[b];
            order[b] = order[b - 1];
            order[b - 1] = x;
        }
    for (int a = 0; a < T; a++) {
        int t = order[a], best = 0;
        double best_max = INFINITY;
        for (int k = 0; k < D; k++) {
            table_delta(w, st, t, k, o);
            double mx = 0;
            for (int j = 0; j < D; j++) mx = fmax(mx, load[j] + w[j]);
            if (mx < best_max) {
                best_max = mx;
                best = k;
            }
        }
        table_delta(w, st, t, best, o);
        for (int j = 0; j < D; j++) load[j] += w[j];
        p->device[t] = best;
    }
    free(delta);
    free(order);
    return NNC_STATUS_OK;
}

typedef struct hot_row {
    double heat; /* bytes read per pass */
    int t;
    int64_t r;
} hot_row;

static int by_heat(const void *a, const void *b)
{
    double x = ((const hot_row *)a)->heat, y = ((const hot_row *)b)->heat;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The predicted time increments of row (t, r) owned by device k. */
static void row_delta(double *dt, const nnc_dlrm_stats *st, int t, int64_t r, int k, const nnc_dlrm_opts *o)
{
    int D = st->devices;
    int64_t rb = 4 * st->tables[t].dim;
    double nb = bw_us(o->net_bw_gbs);
    dt[k] = (double)(st->total[t][r] * rb) / bw_us(o->mem_bw_gbs);
    for (int j = 0; j < D; j++) {
        if (j == k) continue;
        double x = (double)st->cnt[t][r * D + j] * (double)(8 + rb) / nb;
        dt[j] = x;
        dt[k] += x;
    }
}

static nnc_status search_mixed(nnc_dlrm_plan *p, const nnc_dlrm_stats *st, const nnc_dlrm_opts *o, int64_t cap,
                               char *err, size_t errlen)
{
    nnc_status s = plan_alloc(p, st, err, errlen);
    if (s) return s;
    int D = st->devices, T = st->n_tables;
    int64_t n = 0;
    for (int t = 0; t < T; t++) n += st->tables[t].rows;
    hot_row *h = malloc((size_t)(n ? n : 1) * sizeof *h);
    if (h == NULL) goto nomem;
    n = 0;
    for (int t = 0; t < T; t++) {
        p->kind[t] = NNC_DLRM_SHARD_MIXED;
        p->owner[t] = malloc((size_t)(st->tables[t].rows + 1) * sizeof(int32_t));
        if (p->owner[t] == NULL) goto nomem;
        for (int64_t r = 0; r < st->tables[t].rows; r++) {
            p->owner[t][r] = 0;
            h[n].heat = (double)st->total[t][r] * (double)(4 * st->tables[t].dim);
            h[n].t = t;
            h[n++].r = r;
        }
    }
    qsort(h, (size_t)n, sizeof *h, by_heat);
    /* 1. replicate the hottest rows while every device can still hold its
     *    share of the rest: replicated + rest / D <= cap */
    int64_t rest = total_bytes(st), rep = 0, i = 0;
    double load[NNC_DLRM_MAX_DEVICES] = {0}, w[NNC_DLRM_MAX_DEVICES], best_w[NNC_DLRM_MAX_DEVICES];
    int64_t mem[NNC_DLRM_MAX_DEVICES] = {0};
    double mb = bw_us(o->mem_bw_gbs);
    for (; i < n && h[i].heat > 0 && D > 1; i++) {
        int64_t rb = 4 * st->tables[h[i].t].dim;
        if ((double)(rep + rb) + (double)(rest - rb) / D > 0.98 * (double)cap) break;
        rep += rb;
        rest -= rb;
        p->owner[h[i].t][h[i].r] = -1;
        for (int j = 0; j < D; j++) load[j] += (double)(st->cnt[h[i].t][h[i].r * D + j] * rb) / mb;
    }
    for (int j = 0; j < D; j++) mem[j] = rep;
    /* 2. the other rows, hottest first, where the maximum grows least */
    for (; i < n; i++) {
        int t = h[i].t;
        int64_t r = h[i].r, rb = 4 * st->tables[t].dim;
        int best = -1;
        double best_max = INFINITY, best_own = INFINITY;
        if (h[i].heat == 0) { /* never read: only memory matters */
            for (int k = 0; k < D; k++)
                if (best < 0 || mem[k] < mem[best]) best = k;
            p->owner[t][r] = best;
            mem[best] += rb;
            continue;
        }
        for (int k = 0; k < D; k++) {
            if (mem[k] + rb > cap) continue;
            memset(w, 0, sizeof w);
            row_delta(w, st, t, r, k, o);
            double mx = 0;
            for (int j = 0; j < D; j++) mx = fmax(mx, load[j] + w[j]);
            if (mx < best_max || (mx == best_max && load[k] + w[k] < best_own)) {
                best_max = mx;
                best_own = load[k] + w[k];
                best = k;
                memcpy(best_w, w, sizeof w);
            }
        }
        if (best < 0) { /* nothing fits: the least-filled device */
            for (int k = 0; k < D; k++)
                if (best < 0 || mem[k] < mem[best]) best = k;
            memset(best_w, 0, sizeof best_w);
            row_delta(best_w, st, t, r, best, o);
        }
        p->owner[t][r] = best;
        mem[best] += rb;
        for (int j = 0; j < D; j++) load[j] += best_w[j];
    }
    free(h);
    return NNC_STATUS_OK;
nomem:
    free(h);
    nnc_dlrm_plan_free(p);
    return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
}

static int fits(const nnc_dlrm_cost *c, int64_t cap)
{
    for (int k = 0; k < c->devices; k++)
        if (c->mem_bytes[k] > cap) return 0;
    return 1;
}

nnc_status nnc_dlrm_plan_search(nnc_dlrm_plan *out, const nnc_dlrm_stats *st, const nnc_dlrm_opts *o,
                                char *err, size_t errlen)
{
    int64_t cap = capacity(st, o);
    nnc_dlrm_plan best, cand;
    nnc_dlrm_cost c;
    nnc_status s = search_mixed(&best, st, o, cap, err, errlen);
    if (s) return s;
    nnc_dlrm_predict(&c, &best, st, o);
    double best_t = fits(&c, cap) ? c.max_time_us : INFINITY;
    static const nnc_dlrm_shard kinds[] = {NNC_DLRM_SHARD_TABLE, NNC_DLRM_SHARD_ROW, NNC_DLRM_SHARD_COLUMN,
                                           NNC_DLRM_SHARD_REPLICATED};
    for (int a = 0; a < 4; a++) {
        if ((s = nnc_dlrm_plan_uniform(&cand, st, kinds[a], o, err, errlen))) {
            nnc_dlrm_plan_free(&best);
            return s;
        }
        nnc_dlrm_predict(&c, &cand, st, o);
        if (fits(&c, cap) && c.max_time_us < best_t) {
            nnc_dlrm_plan_free(&best);
            best = cand;
            best_t = c.max_time_us;
        } else {
            nnc_dlrm_plan_free(&cand);
        }
    }
    if (best_t == INFINITY) {
        nnc_dlrm_plan_free(&best);
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "no placement fits %lld bytes per device", (long long)cap);
    }
    *out = best;
    return NNC_STATUS_OK;
}
