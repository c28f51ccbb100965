/* DLRM embedding placement (dist/dlrm.h) on random tables and traces (bags of
 * 0..6 ids, rows never read, dims below the device count): for every kind
 * of plan and the search, the counters predicted from the statistics equal
 * the ones counted while executing the plan with simulated devices, the
 * pooled embeddings equal the single-process kernel's bit for bit, the
 * search respects the memory limit and never predicts worse than the
 * uniform plans that fit it, and one device never communicates.
 *
 * Random inputs come from a seed printed at start; NNC_TEST_SEED=<n> replays. */
#include "dist/dlrm.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct world {
    int T;
    nnc_dlrm_table tab[4];
    double *w[4];
    nnc_embbag_mode modes[4];
    nnc_trace tr;
} world;

/* Random tables and a trace over them (Zipf-like: squares of uniform ranks). */
static void make_world(world *W)
{
    memset(W, 0, sizeof *W);
    W->T = 1 + (int)(rnd() % 4);
    int64_t S = 8 + (int64_t)(rnd() % 60);
    for (int t = 0; t < W->T; t++) {
        W->tab[t].rows = 1 + (int64_t)(rnd() % 300);
        W->tab[t].dim = 1 + (int64_t)(rnd() % 9);
        W->modes[t] = (nnc_embbag_mode)(rnd() % 2);
        W->w[t] = malloc((size_t)(W->tab[t].rows * W->tab[t].dim) * sizeof(double));
        for (int64_t i = 0; i < W->tab[t].rows * W->tab[t].dim; i++) W->w[t][i] = (float)((double)(rnd() % 2001) / 1000.0 - 1.0);
    }
    W->tr.n_samples = S;
    W->tr.n_tables = W->T;
    W->tr.offsets = malloc((size_t)(S * W->T + 1) * sizeof(int64_t));
    W->tr.ids = malloc((size_t)(S * W->T * 6 + 1) * sizeof(int64_t));
    int64_t n = 0;
    W->tr.offsets[0] = 0;
    for (int64_t s = 0; s < S; s++)
        for (int t = 0; t < W->T; t++) {
            int len = (int)(rnd() % 7);
            for (int k = 0; k < len; k++) {
                double u = (double)(rnd() % 1000000) / 1000000.0;
                W->tr.ids[n++] = (int64_t)(u * u * (double)W->tab[t].rows);
            }
            W->tr.offsets[s * W->T + t + 1] = n;
        }
}

static void free_world(world *W)
{
    for (int t = 0; t < W->T; t++) free(W->w[t]);
    free(W->tr.offsets);
    free(W->tr.ids);
}

static int same(const nnc_dlrm_cost *a, const nnc_dlrm_cost *b)
{
    for (int k = 0; k < a->devices; k++)
        if (a->lookups[k] != b->lookups[k] || a->read_bytes[k] != b->read_bytes[k] || a->sent[k] != b->sent[k] ||
            a->recv[k] != b->recv[k] || a->mem_bytes[k] != b->mem_bytes[k])
            return 0;
    return a->devices == b->devices;
}

START_TEST(predicted_equals_executed)
{
    char err[NNC_ERRBUF_SIZE];
    for (int round = 0; round < 40; round++) {
        world W;
        make_world(&W);
        int D = 1 + (int)(rnd() % 6);
        if (D > W.tr.n_samples) D = (int)W.tr.n_samples;
        nnc_dlrm_stats *st;
        nnc_dlrm_opts o;
        nnc_dlrm_opts_default(&o);
        CHECK(nnc_dlrm_stats_create(&st, &W.tr, W.tab, W.T, D, err, sizeof err) == NNC_STATUS_OK);
        int64_t dsum = 0;
        for (int t = 0; t < W.T; t++) dsum += W.tab[t].dim;
        /* the reference: every bag pooled by one process */
        float *ref = malloc((size_t)(W.tr.n_samples * dsum) * sizeof *ref), *got = malloc((size_t)(W.tr.n_samples * dsum) * sizeof *got);
        for (int64_t s = 0; s < W.tr.n_samples; s++)
            for (int t = 0, off = 0; t < W.T; off += (int)W.tab[t].dim, t++) {
                int64_t dim = W.tab[t].dim, b = s * W.T + t, off0 = 0;
                float *tf = malloc((size_t)(W.tab[t].rows * dim) * sizeof *tf);
                for (int64_t i = 0; i < W.tab[t].rows * dim; i++) tf[i] = (float)W.w[t][i];
                nnc_embbag_bags bags = {W.tr.ids + W.tr.offsets[b], W.tr.offsets[b + 1] - W.tr.offsets[b], &off0, 1, 0};
                CHECK(nnc_mdl_embbag_f32(ref + s * dsum + off, tf, W.tab[t].rows, dim, &bags, W.modes[t], 1, 1, err, sizeof err) == NNC_STATUS_OK);
                free(tf);
            }
        const double *wp[4] = {W.w[0], W.w[1], W.w[2], W.w[3]};
        static const nnc_dlrm_shard kinds[] = {NNC_DLRM_SHARD_TABLE, NNC_DLRM_SHARD_ROW, NNC_DLRM_SHARD_COLUMN,
                                               NNC_DLRM_SHARD_REPLICATED};
        double best_uniform = INFINITY;
        int64_t total = 0;
        for (int t = 0; t < W.T; t++) total += W.tab[t].rows * W.tab[t].dim * 4;
        int64_t cap = (int64_t)ceil(1.25 * (double)total / D);
        for (int a = 0; a <= 4; a++) {
            nnc_dlrm_plan p;
            nnc_dlrm_cost pred, meas;
            if (a < 4) {
                CHECK(nnc_dlrm_plan_uniform(&p, st, kinds[a], &o, err, sizeof err) == NNC_STATUS_OK);
            } else {
                nnc_status s = nnc_dlrm_plan_search(&p, st, &o, err, sizeof err);
                CHECK(s == NNC_STATUS_OK || s == NNC_STATUS_LIMIT);
                if (s) continue;
            }
            nnc_dlrm_predict(&pred, &p, st, &o);
            memset(got, 0xff, (size_t)(W.tr.n_samples * dsum) * sizeof *got);
            CHECK(nnc_dlrm_exec_sim(got, &meas, &p, &W.tr, wp, W.modes, &o, err, sizeof err) == NNC_STATUS_OK);
            CHECK(same(&pred, &meas));
            CHECK(fabs(pred.max_time_us - meas.max_time_us) <= 1e-9 * (1 + pred.max_time_us));
            CHECK(memcmp(got, ref, (size_t)(W.tr.n_samples * dsum) * sizeof *got) == 0);
            int64_t lookups = 0, sent = 0, recv = 0;
            for (int k = 0; k < D; k++) {
                lookups += pred.lookups[k];
                sent += pred.sent[k];
                recv += pred.recv[k];
            }
            CHECK(sent == recv);
            if (D == 1) CHECK(sent == 0);
            if (a < 4 && kinds[a] != NNC_DLRM_SHARD_COLUMN) CHECK(lookups == W.tr.offsets[W.tr.n_samples * W.T]);
            int fits = 1;
            for (int k = 0; k < D; k++) fits &= pred.mem_bytes[k] <= cap;
            if (a < 4 && fits && pred.max_time_us < best_uniform) best_uniform = pred.max_time_us;
            if (a == 4) {
                CHECK(fits);
                CHECK(pred.max_time_us <= best_uniform);
            }
            nnc_dlrm_plan_free(&p);
        }
        free(ref);
        free(got);
        nnc_dlrm_stats_destroy(st);
        free_world(&W);
    }
}
END_TEST

START_TEST(bad_input)
{
    char err[NNC_ERRBUF_SIZE];
    world W;
    make_world(&W);
    nnc_dlrm_stats *st;
    W.tr.ids[0] = W.tab[0].rows; /* out of range (the first bag may be empty: force one id) */
    W.tr.offsets[1] = W.tr.offsets[1] ? W.tr.offsets[1] : 1;
    for (int64_t b = 1; b < W.tr.n_samples * W.T; b++)
        if (W.tr.offsets[b + 1] < W.tr.offsets[b]) W.tr.offsets[b + 1] = W.tr.offsets[b];
    CHECK(nnc_dlrm_stats_create(&st, &W.tr, W.tab, W.T, 2, err, sizeof err) == NNC_STATUS_INVALID);
    CHECK(strstr(err, "is outside table 0") != NULL);
    CHECK_ILLEGAL(nnc_dlrm_stats_create(&st, &W.tr, W.tab, W.T, 0, err, sizeof err), err);
    CHECK_ILLEGAL(nnc_dlrm_stats_create(&st, &W.tr, W.tab, W.T, 65, err, sizeof err), err);
    CHECK(nnc_dlrm_stats_create(&st, &W.tr, W.tab, W.T + 1, 2, err, sizeof err) == NNC_STATUS_INVALID);
    free_world(&W);
}
END_TEST

int main(void)
{
    harness_seed("test_dlrm_plan");
    Suite *s = suite_create("dlrm_plan");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, predicted_equals_executed);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return check_main_run(s);
}
