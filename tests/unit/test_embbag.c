/* Embedding bags (nncert/embbag.h): the kernel against a naive reference,
 * bit for bit (same summation order); bad bags; the Gather + ReduceSum/Mean
 * fusion against the unfused reference kernels; the trace reader.
 *
 * Random inputs come from a seed printed at start; NNC_TEST_SEED=<n> replays
 * a run. */
#include "nncert/embbag.h"
#include "nncert/model.h"
#include "tests/unit/harness.h"
#include "tests/unit/onnx_builder.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Returns: uniform in [-1, 1). */
static float rndf(void) { return (float)(urand() * 2.0 - 1.0); }

/* The definition, written plainly: bag b sums its rows in id order. */
static void naive(float *out, const float *w, int64_t dim, const nnc_embbag_bags *b, int mean)
{
    for (int64_t k = 0; k < b->n_bags; k++) {
        int64_t s = b->offsets ? b->offsets[k] : k * b->bag_len;
        int64_t e = b->offsets ? (k + 1 < b->n_bags ? b->offsets[k + 1] : b->n_ids) : (k + 1) * b->bag_len;
        for (int64_t j = 0; j < dim; j++) {
            float acc = 0.0f;
            for (int64_t i = s; i < e; i++) acc += w[b->ids[i] * dim + j];
            out[k * dim + j] = (mean && e > s) ? acc / (float)(e - s) : acc;
        }
    }
}

START_TEST(kernel_matches_naive)
{
    static const int64_t dims[] = {1, 3, 16, 32, 64, 100, 128};
    char err[NNC_ERRBUF_SIZE];
    for (int di = 0; di < 7; di++)
        for (int var = 0; var < 2; var++)
            for (int mean = 0; mean < 2; mean++) {
                int64_t dim = dims[di], rows = 1 + (int64_t)(rnd() % 3000);
                /* a few large cases take the multi-threaded path */
                int64_t nb = (dim == 16 || dim == 128) ? 6000 : 1 + (int64_t)(rnd() % 300);
                int64_t L = 1 + (int64_t)(rnd() % 6);
                int64_t *off = malloc((size_t)nb * sizeof *off);
                int64_t n = 0;
                for (int64_t k = 0; k < nb; k++) {
                    off[k] = n;
                    n += var ? 1 + (int64_t)(rnd() % 9) : L;
                }
                int64_t *ids = malloc((size_t)n * sizeof *ids);
                float *w = malloc((size_t)(rows * dim) * sizeof *w);
                float *o1 = malloc((size_t)(nb * dim) * sizeof *o1), *o2 = malloc((size_t)(nb * dim) * sizeof *o2);
                for (int64_t i = 0; i < rows * dim; i++) w[i] = rndf();
                for (int64_t i = 0; i < n; i++) ids[i] = (int64_t)(rnd() % (uint64_t)rows);
                nnc_embbag_bags b = {ids, n, var ? off : NULL, nb, L};
                naive(o1, w, dim, &b, mean);
                for (int threads = 1; threads <= 2; threads++) {
                    memset(o2, 0xff, (size_t)(nb * dim) * sizeof *o2);
                    CHECK(nnc_mdl_embbag_f32(o2, w, rows, dim, &b, mean ? NNC_EMBBAG_MODE_MEAN : NNC_EMBBAG_MODE_SUM, 0,
                                             threads, err, sizeof err) == NNC_STATUS_OK);
                    CHECK(memcmp(o1, o2, (size_t)(nb * dim) * sizeof *o1) == 0);
                }
                free(off); free(ids); free(w); free(o1); free(o2);
            }
}
END_TEST

/* A bad bag is refused with a message naming it, and nothing is written. */
static void expect_bad(const nnc_embbag_bags *b, int allow_empty, const char *want)
{
    float w[4 * 2] = {1, 2, 3, 4, 5, 6, 7, 8}, out[16], before[16];
    char err[NNC_ERRBUF_SIZE] = "";
    memset(out, 0x5a, sizeof out);
    memcpy(before, out, sizeof out);
    nnc_status st = nnc_mdl_embbag_f32(out, w, 4, 2, b, NNC_EMBBAG_MODE_SUM, allow_empty, 1, err, sizeof err);
    ck_assert_int_eq(st, NNC_STATUS_INVALID);
    ck_assert_msg(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
    ck_assert(memcmp(out, before, sizeof out) == 0);
}

START_TEST(bad_bags)
{
    int64_t ids_hi[] = {0, 4}, ids_neg[] = {1, -1}, ids[] = {0, 1, 2, 3};
    int64_t off_neg[] = {0, -1}, off_dec[] = {0, 3, 2}, off_first[] = {1, 2}, off_past[] = {0, 5}, off_empty[] = {0, 2, 2};
    expect_bad(&(nnc_embbag_bags){ids_hi, 2, NULL, 2, 1}, 0, "id 4 at position 1 is outside");
    expect_bad(&(nnc_embbag_bags){ids_neg, 2, NULL, 1, 2}, 0, "id -1 at position 1 is outside");
    expect_bad(&(nnc_embbag_bags){ids, 4, off_neg, 2, 0}, 0, "offset -1 of bag 1 is negative");
    expect_bad(&(nnc_embbag_bags){ids, 4, off_dec, 3, 0}, 0, "offsets decrease at bag 2");
    expect_bad(&(nnc_embbag_bags){ids, 4, off_first, 2, 0}, 0, "first offset is 1");
    expect_bad(&(nnc_embbag_bags){ids, 4, off_past, 2, 0}, 0, "past the 4 ids");
    expect_bad(&(nnc_embbag_bags){ids, 4, off_empty, 3, 0}, 0, "bag 1 is empty");
    expect_bad(&(nnc_embbag_bags){ids, 4, NULL, 3, 1}, 0, "3 bags of 1 ids do not match 4 ids");
}
END_TEST

/* The id range check scans 32 ids at a time with a scalar tail: one bad id
 * at every position of 100 (both parts), each kind of bad value, is found,
 * named by its position, and nothing is written. */
START_TEST(bad_id_every_position)
{
    enum { N = 100, R = 7, D = 16 };
    static const int64_t bad[] = {R, R + 1, -1, -R, INT64_MIN, INT64_MAX};
    float *w = calloc(R * D, sizeof *w), *out = malloc(N * D * sizeof *out);
    int64_t ids[N];
    char err[NNC_ERRBUF_SIZE], want[96];
    for (int v = 0; v < 6; v++)
        for (int pos = 0; pos < N; pos++) {
            for (int i = 0; i < N; i++) ids[i] = i % R;
            ids[pos] = bad[v];
            memset(out, 0x5a, N * D * sizeof *out);
            nnc_embbag_bags b = {ids, N, NULL, N / 4, 4};
            CHECK(nnc_mdl_embbag_f32(out, w, R, D, &b, NNC_EMBBAG_MODE_SUM, 0, 1, err, sizeof err) == NNC_STATUS_INVALID);
            snprintf(want, sizeof want, "id %lld at position %d is outside", (long long)bad[v], pos);
            ck_assert_msg(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
            for (int i = 0; i < N * D; i++) CHECK(((unsigned char *)out)[4 * i] == 0x5a);
        }
    /* the largest valid id passes */
    for (int i = 0; i < N; i++) ids[i] = R - 1;
    nnc_embbag_bags b = {ids, N, NULL, N / 4, 4};
    CHECK(nnc_mdl_embbag_f32(out, w, R, D, &b, NNC_EMBBAG_MODE_SUM, 0, 1, err, sizeof err) == NNC_STATUS_OK);
    free(w);
    free(out);
}
END_TEST

START_TEST(empty_bags_allowed)
{
    /* allow_empty: an empty bag pools to zeros (torch.nn.EmbeddingBag), also for mean */
    float w[3 * 2] = {1, 2, 3, 4, 5, 6}, out[3 * 2];
    int64_t ids[] = {2, 0, 1}, off[] = {0, 0, 2};
    char err[NNC_ERRBUF_SIZE];
    nnc_embbag_bags b = {ids, 3, off, 3, 0};
    ck_assert_int_eq(nnc_mdl_embbag_f32(out, w, 3, 2, &b, NNC_EMBBAG_MODE_MEAN, 1, 1, err, sizeof err), NNC_STATUS_OK);
    float want[] = {0, 0, 3, 4, 3, 4};
    ck_assert(memcmp(out, want, sizeof want) == 0);
    ck_assert_int_eq(nnc_mdl_embbag_f32(out, w, 3, 2, &b, NNC_EMBBAG_MODE_SUM, 0, 1, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert(strstr(err, "bag 0 is empty") != NULL);
}
END_TEST

/* Gather(table [R, D], ids [N, L]) -> Reduce over axis 1 (keepdims 0):
 * the pattern torch exports for Embedding(ids).sum(1) / .mean(1). */
static nnc_model *bag_model(int mean, int fuse, int64_t R, int64_t D, int64_t L, const float *w, int axis)
{
    static mb b;
    mb_init(&b, 13);
    int64_t td[2] = {R, D}, idd[2] = {1, L}, ax[1] = {axis}, one[1] = {1};
    b.inits[b.graph.n_initializer++] = tensor_floats("table", 2, td, w, (size_t)(R * D));
    b.inputs[b.graph.n_input++] = vinfo("ids", 7, 2, idd);
    static const char *gi[] = {"table", "ids"}, *go[] = {"g"}, *ri[] = {"g", "axes"}, *ro[] = {"out"};
    b.nodes[b.graph.n_node++] = node("Gather", "gather", 2, gi, 1, go);
    Onnx__NodeProto *r;
    if (mean) {
        r = node("ReduceMean", "reduce", 1, ri, 1, ro);
        Onnx__AttributeProto *a = attr_int("axes", 0);
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
        a->has_i = 0;
        a->n_ints = 1;
        a->ints = mb_calloc(1, sizeof(int64_t));
        a->ints[0] = axis;
        node_attr(r, a);
    } else {
        b.inits[b.graph.n_initializer++] = tensor_i64("axes", 1, one, ax, 1);
        r = node("ReduceSum", "reduce", 2, ri, 1, ro);
    }
    node_attr(r, attr_int("keepdims", 0));
    b.nodes[b.graph.n_node++] = r;
    mb_output(&b, "out");
    size_t len;
    unsigned char *buf = mb_pack(&b, &len);
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(nnc_mdl_parse(&m, buf, len, NULL, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    free(buf);
    nnc_prepare_opts o;
    nnc_prepare_opts_default(&o);
    o.fuse_embbag = fuse;
    ck_assert_msg(nnc_mdl_prepare(m, &o, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    return m;
}

static int has_op(const nnc_model *m, const char *op)
{
    for (int i = 0; i < nnc_mdl_num_nodes(m); i++)
        if (strcmp(nnc_mdl_node_op(m, i), op) == 0) return 1;
    return 0;
}

START_TEST(fused_equals_unfused)
{
    enum { R = 50, D = 16, L = 3, B = 40 };
    float w[R * D];
    for (int i = 0; i < R * D; i++) w[i] = rndf();
    int64_t ids[B * L];
    for (int i = 0; i < B * L; i++) ids[i] = (int64_t)(rnd() % (2 * R)) - R; /* ONNX Gather: -R..R-1 */
    char err[NNC_ERRBUF_SIZE];
    for (int mean = 0; mean < 2; mean++)
        for (int prec = 0; prec < 2; prec++) {
            nnc_model *fm = bag_model(mean, 1, R, D, L, w, 1), *um = bag_model(mean, 0, R, D, L, w, 1);
            ck_assert(has_op(fm, "EmbeddingBag") && !has_op(fm, "Gather"));
            ck_assert(!has_op(um, "EmbeddingBag") && has_op(um, "Gather"));
            nnc_runtime *fr, *ur;
            ck_assert_int_eq(nnc_rt_create(&fr, fm, (nnc_precision)prec, B, err, sizeof err), NNC_STATUS_OK);
            ck_assert_int_eq(nnc_rt_create(&ur, um, (nnc_precision)prec, B, err, sizeof err), NNC_STATUS_OK);
            double o1[B * D], o2[B * D];
            const void *in[1] = {ids};
            void *out1[1] = {o1}, *out2[1] = {o2};
            ck_assert_int_eq(nnc_rt_run(fr, B, in, out1, err, sizeof err), NNC_STATUS_OK);
            ck_assert_int_eq(nnc_rt_run(ur, B, in, out2, err, sizeof err), NNC_STATUS_OK);
            size_t bytes = (size_t)(B * D) * (prec ? sizeof(double) : sizeof(float));
            ck_assert(memcmp(o1, o2, bytes) == 0);
            /* an id out of range at run time: an error from both, not a read out of bounds */
            int64_t bad[B * L];
            memcpy(bad, ids, sizeof bad);
            bad[B * L - 1] = R;
            const void *inb[1] = {bad};
            ck_assert_int_eq(nnc_rt_run(fr, B, inb, out1, err, sizeof err), NNC_STATUS_INVALID);
            ck_assert(strstr(err, "out of range") != NULL);
            bad[B * L - 1] = -R - 1;
            ck_assert_int_eq(nnc_rt_run(fr, B, inb, out1, err, sizeof err), NNC_STATUS_INVALID);
            ck_assert_int_eq(nnc_rt_run(ur, B, inb, out2, err, sizeof err), NNC_STATUS_INVALID);
            nnc_rt_destroy(fr); nnc_rt_destroy(ur);
            nnc_mdl_destroy(fm); nnc_mdl_destroy(um);
        }
    /* a reduction over another axis is not a bag: left alone */
    nnc_model *m = bag_model(0, 1, R, D, L, w, 2);
    ck_assert(!has_op(m, "EmbeddingBag"));
    nnc_mdl_destroy(m);
    /* the table list the planner reads */
    m = bag_model(1, 1, R, D, L, w, 1);
    nnc_mdl_table_info ti[2];
    ck_assert_int_eq(nnc_mdl_embbag_tables(m, ti, 2), 1);
    ck_assert(ti[0].rows == R && ti[0].dim == D && ti[0].bag_len == L && ti[0].mode == NNC_EMBBAG_MODE_MEAN);
    ck_assert_str_eq(ti[0].input, "ids");
    nnc_mdl_destroy(m);
}
END_TEST

START_TEST(file_op_refused)
{
    static mb b;
    mb_init(&b, 13);
    int64_t d[2] = {1, 2};
    mb_input(&b, "x", 2, d);
    static const char *in[] = {"x"}, *out[] = {"y"};
    b.nodes[b.graph.n_node++] = node("EmbeddingBag", "eb", 1, in, 1, out);
    mb_output(&b, "y");
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_int_eq(mb_load(&b, &m, err, sizeof err), NNC_STATUS_UNSUPPORTED);
    ck_assert(strstr(err, "internal fused operator") != NULL);
}
END_TEST

START_TEST(trace_reader)
{
    const char *text = "# comment\r\n1.5,-2,7,3:9:12\r\n\n0,1e3,,4\n";
    nnc_trace t;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_msg(nnc_mdl_trace_parse(&t, text, strlen(text), 2, 2, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(t.n_samples, 2);
    ck_assert(t.dense[0] == 1.5f && t.dense[1] == -2.0f && t.dense[2] == 0.0f && t.dense[3] == 1000.0f);
    int64_t want_off[] = {0, 1, 4, 4, 5}, want_ids[] = {7, 3, 9, 12, 4};
    ck_assert(memcmp(t.offsets, want_off, sizeof want_off) == 0);
    ck_assert(memcmp(t.ids, want_ids, sizeof want_ids) == 0);
    nnc_mdl_trace_clear(&t);
    static const struct { const char *text, *want; } bad[] = {
        {"1,2,3\n", "line 1: 3 fields, expected 4"},
        {"1,2,3,4,5\n", "line 1: more than 4 fields"},
        {"1,x,3,4\n", "dense field 2 ('x') is not a finite number"},
        {"1,nan,3,4\n", "not a finite number"},
        {"1,2,3,-4\n", "'-4' is not a row id"},
        {"1,2,3,4::5\n", "empty or too long id"},
        {",2,3,4\n", "dense field 1 is empty"},
        {"# only a comment\n", "no samples"},
        {"1,2,3,4\n1,2\n", "line 2: 2 fields"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(nnc_mdl_trace_parse(&t, bad[k].text, strlen(bad[k].text), 2, 2, err, sizeof err), NNC_STATUS_PARSE);
        ck_assert_msg(strstr(err, bad[k].want) != NULL, "'%s': message '%s' lacks '%s'", bad[k].text, err, bad[k].want);
        ck_assert(t.dense == NULL && t.ids == NULL && t.offsets == NULL);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("embbag");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, kernel_matches_naive);
    tcase_add_test(tc, bad_bags);
    tcase_add_test(tc, bad_id_every_position);
    tcase_add_test(tc, empty_bags_allowed);
    tcase_add_test(tc, fused_equals_unfused);
    tcase_add_test(tc, file_op_refused);
    tcase_add_test(tc, trace_reader);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return harness_main("test_embbag", suite); }
