/* nncert dlrm-run: evaluate a DLRM on a trace with its embedding tables
 * distributed over devices by a plan (dist/dlrm.h): one MPI rank per device
 * under mpirun, or simulated devices in this process (--devices). */
#include "cli/cli.h"
#include "dist/dlrm.h"
#include "nncert/model.h"

#include <stdlib.h>
#include <string.h>

enum { DR_TRACE, DR_PLAN, DR_DEVICES, DR_OUTPUT, DR_COUNTERS };
static const nnc_cli_opt dlrm_run_opts[] = {
    [DR_TRACE] = {"--trace", "FILE", "the samples (format: nncert plan --help)"},
    [DR_PLAN] = {"--plan", "KIND", "placement (default auto: the planner's choice)"},
    [DR_DEVICES] = {"--devices", "D", "simulated devices without mpirun (default 1)"},
    [DR_OUTPUT] = {"--output", "FILE", "write the outputs there instead of stdout"},
    [DR_COUNTERS] = {"--counters", "FILE", "write the measured per-device counters (JSON)"},
};
static const nnc_cli_doc dlrm_run_doc = NNC_CLI_DOC(
    "dlrm-run",
    "usage: nncert dlrm-run MODEL --trace FILE [--plan auto|table|row|column|replicated]\n"
    "                       [--devices D] [--output FILE] [--counters FILE]\n",
    "Evaluate the DLRM MODEL on every sample of the trace with its embedding\n"
    "tables placed on devices by a plan (as 'nncert plan' chooses it with\n"
    "--plan auto, the default): each device holds only its shards, requests\n"
    "the rows it lacks from their owners (MPI all-to-all), pools its samples'\n"
    "bags in id order and runs the dense layers on its samples; rank 0 prints\n"
    "the outputs as 'nncert run' does, bit-identical to a single process.\n"
    "Under mpirun every rank is a device; otherwise --devices D simulates D.\n"
    "Every bag of the trace must hold as many ids as the model's input.\n",
    dlrm_run_opts, "");

typedef struct run_doc {
    const nnc_model *m;
    const float *out;
    int64_t n;
} run_doc;

static nnc_status write_doc(FILE *f, const void *arg, char *err, size_t errlen)
{
    const run_doc *d = arg;
    nnc_tensor_info t;
    (void)err; (void)errlen;
    nnc_mdl_output_info(d->m, 0, &t);
    fprintf(f, "{\"outputs\": {");
    nnc_cli_json_str(f, t.name);
    fprintf(f, ": {\"type\": \"float\", \"shape\": [");
    if (t.rank == 0) fprintf(f, "%lld", (long long)d->n);
    for (int k = 0; k < t.rank; k++) fprintf(f, "%s%lld", k ? ", " : "", (long long)(k == 0 ? t.dims[0] * d->n : t.dims[k]));
    fprintf(f, "], \"data\": [");
    for (int64_t k = 0; k < t.numel * d->n; k++) fprintf(f, "%s%.9g", k ? ", " : "", (double)d->out[k]);
    fprintf(f, "]}}}\n");
    return ferror(f) ? NNC_STATUS_IO : NNC_STATUS_OK;
}

static nnc_status write_counters(FILE *f, const void *arg, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    nnc_dlrm_cost_write_json(f, arg);
    fputc('\n', f);
    return ferror(f) ? NNC_STATUS_IO : NNC_STATUS_OK;
}

/* Runs on every rank; ranks agree on every decision (same files, same
 * deterministic planner), so they fail or succeed together. */
static int dlrm_run(const char *model, const char *trace_path, const char *kind, int devices, const char *output,
                    const char *counters, int rank, int size, nnc_dist_comm comm)
{
    int mpi = comm != NNC_DIST_COMM_NONE;
    char err[NNC_ERRBUF_SIZE];
    nnc_dlrm_model dm;
    nnc_trace tr;
    nnc_dlrm_stats *st = NULL;
    nnc_dlrm_plan plan;
    nnc_dlrm_cost meas;
    nnc_dlrm_opts o;
    nnc_runtime *rt = NULL;
    float *pooled = NULL, *out = NULL, *all = NULL, *dense = NULL;
    float **emb = NULL;
    int64_t **ids = NULL;
    int rc = EXIT_OK;
    nnc_dlrm_opts_default(&o);
    memset(&plan, 0, sizeof plan);
    memset(&tr, 0, sizeof tr);
    nnc_status s = nnc_dlrm_model_load(&dm, model, err, sizeof err);
    if (s) return nnc_cli_fail(s, err);
    int D = mpi ? size : devices, T = dm.n_tables;
    if ((s = nnc_mdl_trace_read(&tr, trace_path, dm.n_dense, T, err, sizeof err)) ||
        (s = nnc_dlrm_stats_create(&st, &tr, dm.tables, T, D, err, sizeof err))) {
        rc = nnc_cli_fail(s, err);
        goto done;
    }
    if (nnc_mdl_num_outputs(dm.model) != 1 || nnc_mdl_num_inputs(dm.model) != T + 1) {
        rc = nnc_cli_fail(NNC_STATUS_UNSUPPORTED, "dlrm-run needs a model with one float input, one integer input per table and one output");
        goto done;
    }
    for (int t = 0; t < T; t++)
        for (int64_t smp = 0; smp < tr.n_samples; smp++) {
            int64_t b = smp * T + t, len = tr.offsets[b + 1] - tr.offsets[b];
            if (len != dm.info[t].bag_len) {
                char msg[256];
                snprintf(msg, sizeof msg, "trace sample %lld: table %d's bag holds %lld ids, the model's input '%s' %lld",
                         (long long)smp + 1, t, (long long)len, dm.info[t].input, (long long)dm.info[t].bag_len);
                rc = nnc_cli_fail(NNC_STATUS_INVALID, msg);
                goto done;
            }
        }
    if (strcmp(kind, "auto") == 0) s = nnc_dlrm_plan_search(&plan, st, &o, err, sizeof err);
    else {
        static const struct { const char *name; nnc_dlrm_shard k; } kinds[] = {
            {"table", NNC_DLRM_SHARD_TABLE}, {"row", NNC_DLRM_SHARD_ROW}, {"column", NNC_DLRM_SHARD_COLUMN},
            {"replicated", NNC_DLRM_SHARD_REPLICATED}};
        int k;
        for (k = 0; k < 4 && strcmp(kinds[k].name, kind) != 0; k++) {}
        if (k == 4) {
            rc = nnc_cli_usage_error("dlrm-run", "--plan must be auto, table, row, column or replicated");
            goto done;
        }
        s = nnc_dlrm_plan_uniform(&plan, st, kinds[k].k, &o, err, sizeof err);
    }
    if (s) {
        rc = nnc_cli_fail(s, err);
        goto done;
    }
    int64_t dsum = 0, N = tr.n_samples;
    for (int t = 0; t < T; t++) dsum += dm.tables[t].dim;
    pooled = calloc((size_t)(N * dsum + 1), sizeof *pooled);
    if (pooled == NULL) {
        rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    s = mpi ? nnc_dlrm_exec_mpi(comm, pooled, &meas, &plan, &tr, dm.weights, dm.modes, &o, err, sizeof err)
            : nnc_dlrm_exec_sim(pooled, &meas, &plan, &tr, dm.weights, dm.modes, &o, err, sizeof err);
    if (s) {
        rc = nnc_cli_fail(s, err);
        goto done;
    }
    /* dense layers: this rank's block (all blocks, one after another, when simulated) */
    nnc_tensor_info ot;
    nnc_mdl_output_info(dm.model, 0, &ot);
    out = malloc((size_t)(N * ot.numel + 1) * sizeof *out);
    dense = malloc((size_t)(N * dm.n_dense + 1) * sizeof *dense);
    emb = calloc((size_t)T, sizeof *emb);
    ids = calloc((size_t)T, sizeof *ids);
    if (!out || !dense || !emb || !ids) {
        rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    int64_t maxb = N / D + 1;
    if ((s = nnc_rt_create(&rt, dm.model, NNC_PRECISION_F32, (int)maxb, err, sizeof err))) {
        rc = nnc_cli_fail(s, err);
        goto done;
    }
    for (int t = 0; t < T; t++) {
        emb[t] = malloc((size_t)(maxb * dm.tables[t].dim) * sizeof(float));
        ids[t] = malloc((size_t)(maxb * dm.info[t].bag_len + 1) * sizeof(int64_t));
        if (!emb[t] || !ids[t]) {
            rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
            goto done;
        }
        if ((s = nnc_rt_set_value(rt, dm.info[t].output, emb[t], err, sizeof err))) {
            rc = nnc_cli_fail(s, err);
            goto done;
        }
    }
    for (int dev = mpi ? rank : 0; dev < (mpi ? rank + 1 : D); dev++) {
        int64_t s0 = N * dev / D, s1 = N * (dev + 1) / D, nb = s1 - s0;
        const void *in[NNC_DLRM_MAX_DEVICES + 65];
        void *outp[1] = {out + s0 * ot.numel};
        if (T + 1 > (int)(sizeof in / sizeof in[0])) {
            rc = nnc_cli_fail(NNC_STATUS_LIMIT, "too many tables");
            goto done;
        }
        memcpy(dense, tr.dense + s0 * dm.n_dense, (size_t)(nb * dm.n_dense) * sizeof(float));
        int ti = 0;
        for (int i = 0; i < nnc_mdl_num_inputs(dm.model); i++) {
            nnc_tensor_info it;
            nnc_mdl_input_info(dm.model, i, &it);
            if (nnc_dtype_is_float(it.dtype)) {
                in[i] = dense;
                continue;
            }
            int t = ti++;
            for (int64_t smp = s0; smp < s1; smp++) {
                memcpy(ids[t] + (smp - s0) * dm.info[t].bag_len, tr.ids + tr.offsets[smp * T + t],
                       (size_t)dm.info[t].bag_len * sizeof(int64_t));
            }
            in[i] = ids[t];
        }
        int64_t off = 0;
        for (int t = 0; t < T; t++) {
            for (int64_t smp = s0; smp < s1; smp++)
                memcpy(emb[t] + (smp - s0) * dm.tables[t].dim, pooled + smp * dsum + off, (size_t)dm.tables[t].dim * sizeof(float));
            off += dm.tables[t].dim;
        }
        if ((s = nnc_rt_run(rt, (int)nb, in, outp, err, sizeof err))) {
            rc = nnc_cli_fail(s, err);
            goto done;
        }
    }
    if (mpi) {
        int64_t s0 = N * rank / D, s1 = N * (rank + 1) / D;
        all = malloc((size_t)(N * ot.numel + 1) * sizeof *all);
        if (all == NULL || (s = nnc_dlrm_mpi_gather_f32(comm, all, out + s0 * ot.numel, s1 - s0, ot.numel, err, sizeof err))) {
            rc = nnc_cli_fail(all ? s : NNC_STATUS_NOMEM, all ? err : "out of memory");
            goto done;
        }
    }
    if (rank == 0) {
        run_doc d = {dm.model, mpi ? all : out, N};
        if (output) rc = nnc_cli_write_atomic(output, write_doc, &d);
        else if (write_doc(stdout, &d, err, sizeof err)) rc = EXIT_CANTCREAT;
        if (rc == EXIT_OK && counters) rc = nnc_cli_write_atomic(counters, write_counters, &meas);
    }
done:
    nnc_rt_destroy(rt);
    for (int t = 0; t < T && emb; t++) free(emb[t]);
    for (int t = 0; t < T && ids; t++) free(ids[t]);
    free(emb);
    free(ids);
    free(pooled);
    free(out);
    free(all);
    free(dense);
    nnc_dlrm_plan_free(&plan);
    nnc_dlrm_stats_destroy(st);
    nnc_mdl_trace_clear(&tr);
    nnc_dlrm_model_free(&dm);
    return rc;
}

int nnc_cmd_dlrm_run(int argc, char **argv)
{
    const char *model = NULL, *trace_path = NULL, *kind = "auto", *output = NULL, *counters = NULL;
    uint64_t devices = 1;
    const char *v;
    int k, rc0;
    for (int i = 0; (k = nnc_cli_getopt(&dlrm_run_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG:
            if ((rc0 = nnc_cli_one_positional(&dlrm_run_doc, v, &model, "MODEL")) != EXIT_OK) return rc0;
            break;
        case DR_TRACE: trace_path = v; break;
        case DR_PLAN: kind = v; break;
        case DR_OUTPUT: output = v; break;
        case DR_COUNTERS: counters = v; break;
        case DR_DEVICES:
            if (nnc_cli_parse_u64(v, &devices) || devices < 1 || devices > NNC_DLRM_MAX_DEVICES)
                return nnc_cli_usage_error("dlrm-run", "--devices must be 1..64");
            break;
        }
    }
    if (!model || !trace_path) return nnc_cli_usage_error("dlrm-run", "MODEL and --trace FILE are required");
    int rank, size;
    nnc_dist_comm comm;
    int rc = nnc_cli_mpi_world_begin("dlrm-run", 0, &comm, &rank, &size);
    if (rc) return rc;
    if (comm != NNC_DIST_COMM_NONE && size > NNC_DLRM_MAX_DEVICES) {
        nnc_cli_mpi_world_end(comm);
        return nnc_cli_usage_error("dlrm-run", "more than 64 MPI ranks");
    }
    rc = dlrm_run(model, trace_path, kind, (int)devices, output, counters, rank, size, comm);
    /* a rank that failed alone would leave the others waiting: agree first */
    nnc_dlrm_mpi_all(comm, rc == EXIT_OK);
    nnc_cli_mpi_world_end(comm);
    return rc;
}
