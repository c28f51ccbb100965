/* nncert plan: OPER-style placement of a DLRM's embedding tables on D
 * devices from an access trace (dist/dlrm.h), beside the table-wise and
 * row-wise baselines. */
#include "cli/cli.h"
#include "dist/dlrm.h"
#include "nncert/model.h"

#include <stdlib.h>
#include <string.h>

enum { P_TRACE, P_DEVICES, P_MEM, P_MEM_BW, P_NET_BW, P_MEASURE, P_JSON };
static const nnc_cli_opt plan_opts[] = {
    [P_TRACE] = {"--trace", "FILE", "the access trace (required)"},
    [P_DEVICES] = {"--devices", "D", "devices (1..64, required)"},
    [P_MEM] = {"--mem-per-device", "BYTES", "table bytes one device may hold (default 1.25 x total / D)"},
    [P_MEM_BW] = {"--mem-bw", "GBS", "device memory bandwidth in GB/s (default 900)"},
    [P_NET_BW] = {"--net-bw", "GBS", "all-to-all bandwidth per device in GB/s (default 50)"},
    [P_MEASURE] = {"--measure", NULL, "also execute each plan on the trace with D simulated\n"
                                      "devices and print the measured counters"},
    [P_JSON] = {"--json", "FILE", "write the plans and costs as JSON"},
};
static const nnc_cli_doc plan_cli = NNC_CLI_DOC(
    "plan",
    "usage: nncert plan MODEL --trace FILE --devices D [options]\n",
    "Place the embedding tables of MODEL (a DLRM: Gather on a table followed by\n"
    "ReduceSum/ReduceMean, fed by an integer input) on D devices, using the\n"
    "per-row access frequencies of the trace, and print the plan with its\n"
    "predicted per-device cost beside the table-wise and row-wise baselines.\n"
    "The search replicates the hottest rows while memory allows and places the\n"
    "other rows one by one where the slowest device grows least; the column-\n"
    "wise and data-parallel plans are candidates too.\n"
    "\n"
    "Trace: one sample per line, the model's dense inputs then one field per\n"
    "table, comma-separated; a table's field holds its bag's ids joined by ':'.\n"
    "Samples are split over the devices in contiguous blocks.\n",
    plan_opts, "");

typedef struct plan_row {
    const char *name;
    nnc_dlrm_plan plan;
    nnc_dlrm_cost pred, meas;
    int measured;
} plan_row;

typedef struct plan_doc {
    const plan_row *rows;
    int n;
    int devices;
    int64_t samples;
} plan_doc;

static nnc_status write_plan_json(FILE *f, const void *arg, char *err, size_t errlen)
{
    const plan_doc *d = arg;
    (void)err; (void)errlen;
    fprintf(f, "{\"devices\": %d, \"samples\": %lld, \"plans\": {", d->devices, (long long)d->samples);
    for (int i = 0; i < d->n; i++) {
        const plan_row *r = &d->rows[i];
        fprintf(f, "%s\"%s\": {\"tables\": [", i ? ", " : "", r->name);
        for (int t = 0; t < r->plan.n_tables; t++) {
            fprintf(f, "%s{\"kind\": \"%s\"", t ? ", " : "", nnc_dlrm_shard_name(r->plan.kind[t]));
            if (r->plan.kind[t] == NNC_DLRM_SHARD_TABLE) fprintf(f, ", \"device\": %d", r->plan.device[t]);
            if (r->plan.kind[t] == NNC_DLRM_SHARD_MIXED) {
                int64_t rep = 0;
                for (int64_t x = 0; x < r->plan.tables[t].rows; x++) rep += r->plan.owner[t][x] < 0;
                fprintf(f, ", \"replicated_rows\": %lld", (long long)rep);
            }
            fprintf(f, "}");
        }
        fprintf(f, "], \"predicted\": ");
        nnc_dlrm_cost_write_json(f, &r->pred);
        if (r->measured) {
            fprintf(f, ", \"measured\": ");
            nnc_dlrm_cost_write_json(f, &r->meas);
        }
        fprintf(f, "}");
    }
    fprintf(f, "}}\n");
    return ferror(f) ? NNC_STATUS_IO : NNC_STATUS_OK;
}

static int same_counts(const nnc_dlrm_cost *a, const nnc_dlrm_cost *b)
{
    for (int k = 0; k < a->devices; k++)
        if (a->lookups[k] != b->lookups[k] || a->read_bytes[k] != b->read_bytes[k] || a->sent[k] != b->sent[k] ||
            a->recv[k] != b->recv[k] || a->mem_bytes[k] != b->mem_bytes[k])
            return 0;
    return 1;
}

int nnc_cmd_plan(int argc, char **argv)
{
    const char *model = NULL, *trace_path = NULL, *json = NULL;
    uint64_t devices = 0, mem = 0;
    int measure = 0;
    nnc_dlrm_opts o;
    nnc_dlrm_opts_default(&o);
    const char *v;
    int k, rc0;
    for (int i = 0; (k = nnc_cli_getopt(&plan_cli, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        double x;
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG:
            if ((rc0 = nnc_cli_one_positional(&plan_cli, v, &model, "MODEL")) != EXIT_OK) return rc0;
            break;
        case P_MEASURE: measure = 1; break;
        case P_TRACE: trace_path = v; break;
        case P_JSON: json = v; break;
        case P_DEVICES:
            if (nnc_cli_parse_u64(v, &devices) || devices < 1 || devices > NNC_DLRM_MAX_DEVICES)
                return nnc_cli_usage_error("plan", "--devices must be 1..64");
            break;
        case P_MEM:
            if (nnc_cli_parse_u64(v, &mem) || mem < 1 || mem > (uint64_t)INT64_MAX)
                return nnc_cli_usage_error("plan", "--mem-per-device must be a positive byte count");
            break;
        case P_MEM_BW: case P_NET_BW:
            if (nnc_cli_parse_double(v, &x) || !(x > 0) || x > 1e9)
                return nnc_cli_usage_error("plan", "--mem-bw and --net-bw must be positive GB/s");
            if (k == P_MEM_BW) o.mem_bw_gbs = x;
            else o.net_bw_gbs = x;
            break;
        }
    }
    if (!model || !trace_path || !devices) return nnc_cli_usage_error("plan", "MODEL, --trace FILE and --devices D are required");
    o.mem_per_device = (int64_t)mem;
    char err[NNC_ERRBUF_SIZE];
    nnc_dlrm_model dm;
    nnc_trace tr;
    nnc_dlrm_stats *st = NULL;
    plan_row rows[3];
    memset(rows, 0, sizeof rows);
    memset(&tr, 0, sizeof tr);
    nnc_status s = nnc_dlrm_model_load(&dm, model, err, sizeof err);
    if (s) return nnc_cli_fail(s, err);
    int rc = EXIT_OK;
    if ((s = nnc_mdl_trace_read(&tr, trace_path, dm.n_dense, dm.n_tables, err, sizeof err)) ||
        (s = nnc_dlrm_stats_create(&st, &tr, dm.tables, dm.n_tables, (int)devices, err, sizeof err)) ||
        (s = nnc_dlrm_plan_search(&rows[0].plan, st, &o, err, sizeof err)) ||
        (s = nnc_dlrm_plan_uniform(&rows[1].plan, st, NNC_DLRM_SHARD_TABLE, &o, err, sizeof err)) ||
        (s = nnc_dlrm_plan_uniform(&rows[2].plan, st, NNC_DLRM_SHARD_ROW, &o, err, sizeof err))) {
        rc = nnc_cli_fail(s, err);
        goto done;
    }
    rows[0].name = "chosen";
    rows[1].name = "table_wise";
    rows[2].name = "row_wise";
    for (int i = 0; i < 3; i++) {
        nnc_dlrm_predict(&rows[i].pred, &rows[i].plan, st, &o);
        if (measure) {
            if ((s = nnc_dlrm_exec_sim(NULL, &rows[i].meas, &rows[i].plan, &tr, dm.weights, dm.modes, &o, err, sizeof err))) {
                rc = nnc_cli_fail(s, err);
                goto done;
            }
            rows[i].measured = 1;
        }
    }
    printf("model:   %s (%d embedding tables, %d dense inputs)\n", model, dm.n_tables, dm.n_dense);
    printf("trace:   %s (%lld samples)\n", trace_path, (long long)tr.n_samples);
    printf("devices: %d; bandwidths %.6g GB/s memory, %.6g GB/s all-to-all\n\n", (int)devices, o.mem_bw_gbs, o.net_bw_gbs);
    printf("chosen plan:\n");
    for (int t = 0; t < dm.n_tables; t++) {
        const nnc_dlrm_plan *p = &rows[0].plan;
        printf("  table %d (%s, %lld x %lld): %s", t, dm.info[t].input, (long long)dm.tables[t].rows,
               (long long)dm.tables[t].dim, nnc_dlrm_shard_name(p->kind[t]));
        if (p->kind[t] == NNC_DLRM_SHARD_TABLE) printf(" on device %d", p->device[t]);
        if (p->kind[t] == NNC_DLRM_SHARD_MIXED) {
            int64_t rep = 0, per[NNC_DLRM_MAX_DEVICES] = {0};
            for (int64_t r = 0; r < dm.tables[t].rows; r++) {
                if (p->owner[t][r] < 0) rep++;
                else per[p->owner[t][r]]++;
            }
            printf(": %lld hot rows replicated, rows per device", (long long)rep);
            for (int k = 0; k < (int)devices; k++) printf(" %lld", (long long)per[k]);
        }
        printf("\n");
    }
    printf("\n%-11s %-6s %12s %12s %14s %14s %12s\n", "plan", "device", "lookups", "read_bytes", "sent_bytes", "recv_bytes", "time_us");
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < (int)devices; k++) {
            const nnc_dlrm_cost *c = &rows[i].pred;
            printf("%-11s %-6d %12lld %12lld %14lld %14lld %12.4f\n", rows[i].name, k, (long long)c->lookups[k],
                   (long long)c->read_bytes[k], (long long)c->sent[k], (long long)c->recv[k], c->time_us[k]);
        }
    double base = rows[1].pred.max_time_us < rows[2].pred.max_time_us ? rows[1].pred.max_time_us : rows[2].pred.max_time_us;
    printf("\npredicted max per-device time: chosen %.4f us, table-wise %.4f us, row-wise %.4f us (%.2fx lower than the better baseline)\n",
           rows[0].pred.max_time_us, rows[1].pred.max_time_us, rows[2].pred.max_time_us,
           rows[0].pred.max_time_us > 0 ? base / rows[0].pred.max_time_us : 1.0);
    if (measure)
        for (int i = 0; i < 3; i++)
            printf("measured %-10s max %.4f us; counters %s the prediction\n", rows[i].name, rows[i].meas.max_time_us,
                   same_counts(&rows[i].pred, &rows[i].meas) ? "equal" : "DIFFER FROM");
    if (json) {
        plan_doc d = {rows, 3, (int)devices, tr.n_samples};
        rc = nnc_cli_write_atomic(json, write_plan_json, &d);
    }
    if (measure)
        for (int i = 0; i < 3; i++)
            if (!same_counts(&rows[i].pred, &rows[i].meas)) rc = EXIT_SOFTWARE;
done:
    for (int i = 0; i < 3; i++) nnc_dlrm_plan_free(&rows[i].plan);
    nnc_dlrm_stats_destroy(st);
    nnc_mdl_trace_clear(&tr);
    nnc_dlrm_model_free(&dm);
    return rc;
}
