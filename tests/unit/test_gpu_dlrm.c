/* Execution of embedding placements with one GPU per device and NCCL
 * (gpu/dlrm_nccl.cu) against the simulated run (dist/dlrm_exec.c), on the
 * zoo DLRM and its trace and on random tables: for every uniform plan kind
 * and the searched plan, D = 1 .. min(GPUs, 4), the pooled embeddings are
 * bit-identical and every counter (lookups, bytes read, sent, received,
 * memory) is equal.  Without the CUDA unit or a device it reports
 * "skipped" and exits 77. */
#include "gpu_test_impl.h"
#include "dist/dlrm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_cost(const nnc_dlrm_cost *a, const nnc_dlrm_cost *b)
{
    if (a->devices != b->devices) return 0;
    for (int k = 0; k < a->devices; k++)
        if (a->lookups[k] != b->lookups[k] || a->read_bytes[k] != b->read_bytes[k] || a->sent[k] != b->sent[k] ||
            a->recv[k] != b->recv[k] || a->mem_bytes[k] != b->mem_bytes[k])
            return 0;
    return 1;
}

/* Every plan for D devices: NCCL run == simulated run.  Returns failures. */
static int check_world(const char *name, const nnc_trace *tr, const nnc_dlrm_table *tabs, int T, const double *const *w,
                       const nnc_embbag_mode *modes, int D)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_dlrm_stats *st;
    nnc_dlrm_opts o;
    nnc_dlrm_opts_default(&o);
    if (nnc_dlrm_stats_create(&st, tr, tabs, T, D, err, sizeof err)) {
        printf("FAIL %s: %s\n", name, err);
        return 1;
    }
    int64_t dsum = 0;
    for (int t = 0; t < T; t++) dsum += tabs[t].dim;
    size_t bytes = (size_t)(tr->n_samples * dsum) * sizeof(float);
    float *a = malloc(bytes + 4), *g = malloc(bytes + 4);
    int failed = 0;
    static const char *names[] = {"table", "row", "column", "replicated", "searched"};
    for (int kind = 0; kind <= 4; kind++) {
        nnc_dlrm_plan p;
        nnc_dlrm_cost cs, cg;
        nnc_status s = kind < 4 ? nnc_dlrm_plan_uniform(&p, st, (nnc_dlrm_shard)kind, &o, err, sizeof err)
                                : nnc_dlrm_plan_search(&p, st, &o, err, sizeof err);
        if (s == NNC_STATUS_LIMIT) continue; /* no plan fits the default memory limit */
        if (s) {
            printf("FAIL %s plan %s: %s\n", name, names[kind], err);
            failed++;
            continue;
        }
        memset(a, 0, bytes);
        memset(g, 0xff, bytes);
        double t0 = gpu_test_now();
        if (nnc_dlrm_exec_sim(a, &cs, &p, tr, w, modes, &o, err, sizeof err)) {
            printf("FAIL %s sim %s: %s\n", name, names[kind], err);
            failed++;
        } else if (nnc_dlrm_exec_nccl(g, &cg, &p, tr, w, modes, &o, err, sizeof err)) {
            printf("FAIL %s nccl %s D=%d: %s\n", name, names[kind], D, err);
            failed++;
        } else {
            int ok = memcmp(a, g, bytes) == 0 && same_cost(&cs, &cg);
            printf("%s dlrm nccl %s D=%d plan %s: pooled %s, counters %s (%.3f s)\n", ok ? "ok" : "FAIL", name, D, names[kind],
                   memcmp(a, g, bytes) == 0 ? "equal" : "DIFFER", same_cost(&cs, &cg) ? "equal" : "DIFFER", gpu_test_now() - t0);
            failed += !ok;
        }
        nnc_dlrm_plan_free(&p);
    }
    free(a);
    free(g);
    nnc_dlrm_stats_destroy(st);
    return failed;
}

int main(void)
{
    char err[NNC_ERRBUF_SIZE];
    int count = gpu_test_devices_or_skip(), failed = 0;
    harness_set_seed(0x2545F4914F6CDD1Dull); /* fixed random tables: rnd() */
    int dmax = count < 4 ? count : 4;
    /* the zoo DLRM with its trace */
    nnc_dlrm_model dm;
    nnc_trace tr;
    if (nnc_dlrm_model_load(&dm, "models/zoo/dlrm.onnx", err, sizeof err) ||
        nnc_mdl_trace_read(&tr, "models/zoo/dlrm_trace.txt", dm.n_dense, dm.n_tables, err, sizeof err)) {
        printf("FAIL zoo: %s\n", err);
        return 1;
    }
    for (int D = 1; D <= dmax; D++) failed += check_world("zoo", &tr, dm.tables, dm.n_tables, dm.weights, dm.modes, D);
    nnc_mdl_trace_clear(&tr);
    nnc_dlrm_model_free(&dm);
    /* random tables (odd widths, rows never read, empty bags) */
    for (int round = 0; round < 6; round++) {
        int T = 1 + (int)(rnd() % 4);
        nnc_dlrm_table tabs[4];
        nnc_embbag_mode modes[4];
        double *w[4];
        int64_t S = 16 + (int64_t)(rnd() % 200), n = 0;
        for (int t = 0; t < T; t++) {
            tabs[t].rows = 1 + (int64_t)(rnd() % 500);
            tabs[t].dim = 1 + (int64_t)(rnd() % 37);
            modes[t] = (nnc_embbag_mode)(rnd() % 2);
            w[t] = malloc((size_t)(tabs[t].rows * tabs[t].dim) * sizeof(double));
            for (int64_t i = 0; i < tabs[t].rows * tabs[t].dim; i++) w[t][i] = (float)((double)(rnd() % 2001) / 1000.0 - 1.0);
        }
        nnc_trace rt;
        memset(&rt, 0, sizeof rt);
        rt.n_samples = S;
        rt.n_tables = T;
        rt.offsets = malloc((size_t)(S * T + 1) * sizeof(int64_t));
        rt.ids = malloc((size_t)(S * T * 6 + 1) * sizeof(int64_t));
        rt.offsets[0] = 0;
        for (int64_t s = 0; s < S; s++)
            for (int t = 0; t < T; t++) {
                int len = (int)(rnd() % 7);
                for (int k = 0; k < len; k++) {
                    double u = (double)(rnd() % 1000000) / 1000000.0;
                    rt.ids[n++] = (int64_t)(u * u * (double)tabs[t].rows);
                }
                rt.offsets[s * T + t + 1] = n;
            }
        const double *wp[4] = {w[0], T > 1 ? w[1] : NULL, T > 2 ? w[2] : NULL, T > 3 ? w[3] : NULL};
        char name[32];
        snprintf(name, sizeof name, "random%d", round);
        failed += check_world(name, &rt, tabs, T, wp, modes, 1 + (int)(rnd() % (unsigned)dmax));
        for (int t = 0; t < T; t++) free(w[t]);
        free(rt.offsets);
        free(rt.ids);
    }
    printf("%s: NCCL execution of DLRM plans\n", failed ? "FAIL" : "ok");
    return failed ? 1 : 0;
}
