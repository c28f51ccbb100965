/* Loader, IR and runtime unit tests.  Models are built in memory with the
 * protobuf-c bindings generated from Debian's onnx.proto, so every storage
 * form and every malformed case is exercised without binary fixtures. */
#include "nncert/json.h"
#include "nncert/model.h"
#include "onnx.pb-c.h"
#include "tests/unit/onnx_builder.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* y = x W^T + c with a 2x3 Gemm (transB), then Relu. */
static void build_gemm_relu(mb *b, int storage)
{
    static const float W[6] = {1.5f, -2.0f, 0.25f, 0.5f, 1.0f, -1.0f};
    static const float C[2] = {0.125f, -0.5f};
    static const int64_t in_dims[2] = {1, 3}, wd[2] = {2, 3}, cd[1] = {2};
    static const char *gin[3] = {"x", "W", "C"}, *gout[1] = {"h"}, *rin[1] = {"h"}, *rout[1] = {"y"};
    mb_init(b, 13);
    mb_input(b, "x", 2, in_dims);
    mb_output(b, "y");
    if (storage == 0) {
        b->inits[0] = tensor_floats("W", 2, wd, W, 6);
        b->inits[1] = tensor_floats("C", 1, cd, C, 2);
    } else {
        b->inits[0] = tensor_raw("W", 2, wd, W, 6);
        b->inits[1] = tensor_raw("C", 1, cd, C, 2);
    }
    b->graph.n_initializer = 2;
    Onnx__NodeProto *g = node("Gemm", "gemm0", 3, gin, 1, gout);
    node_attr(g, attr_int("transB", 1));
    b->nodes[0] = g;
    b->nodes[1] = node("Relu", "relu0", 1, rin, 1, rout);
    b->graph.n_node = 2;
}

static void run1(nnc_model *m, nnc_precision p, const double *x, double *y, int batch)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_runtime *rt;
    ck_assert_int_eq(nnc_rt_create(&rt, m, p, batch, err, sizeof err), NNC_STATUS_OK);
    nnc_tensor_info ti, to;
    nnc_mdl_input_info(m, 0, &ti);
    nnc_mdl_output_info(m, 0, &to);
    size_t nin = (size_t)(ti.numel * batch), nout = (size_t)(to.numel * batch);
    if (p == NNC_PRECISION_F64) {
        const void *ins[1] = {x};
        void *outs[1] = {y};
        ck_assert_int_eq(nnc_rt_run(rt, batch, ins, outs, err, sizeof err), NNC_STATUS_OK);
    } else {
        float *xf = malloc(nin * sizeof(float)), *yf = malloc(nout * sizeof(float));
        for (size_t k = 0; k < nin; k++) xf[k] = (float)x[k];
        const void *ins[1] = {xf};
        void *outs[1] = {yf};
        ck_assert_int_eq(nnc_rt_run(rt, batch, ins, outs, err, sizeof err), NNC_STATUS_OK);
        for (size_t k = 0; k < nout; k++) y[k] = yf[k];
        free(xf);
        free(yf);
    }
    nnc_rt_destroy(rt);
}

static void check_gemm_relu(nnc_model *m)
{
    /* two samples; expected values computed by hand */
    const double x[6] = {1, 2, 3, -1, 0.5, 4};
    double y[4];
    const double e[4] = {0.125 + 1.5 - 4 + 0.75 > 0 ? 0.125 + 1.5 - 4 + 0.75 : 0, fmax(0, -0.5 + 0.5 + 2 - 3),
                         fmax(0, 0.125 - 1.5 - 1 + 1), fmax(0, -0.5 - 0.5 + 0.5 - 4)};
    run1(m, NNC_PRECISION_F64, x, y, 2);
    for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(y[k], e[k], 1e-12);
    run1(m, NNC_PRECISION_F32, x, y, 2);
    for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(y[k], e[k], 1e-6);
}

START_TEST(test_float_data_and_raw_data)
{
    for (int storage = 0; storage < 2; storage++) {
        mb b;
        build_gemm_relu(&b, storage);
        nnc_model *m;
        char err[NNC_ERRBUF_SIZE] = "";
        ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        ck_assert_int_eq(nnc_mdl_param_count(m), 8);
        check_gemm_relu(m);
        nnc_mdl_destroy(m);
    }
}
END_TEST

static void write_model(mb *b, const char *path)
{
    size_t len;
    unsigned char *buf = mb_pack(b, &len);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    fclose(f);
    free(buf);
}

START_TEST(test_external_data)
{
    /* W stored in an external file next to the model, at an offset */
    char dir[] = "/tmp/nncert_ext_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static const float W[6] = {1.5f, -2.0f, 0.25f, 0.5f, 1.0f, -1.0f};
    char path[256];
    snprintf(path, sizeof path, "%s/weights.bin", dir);
    FILE *f = fopen(path, "wb");
    unsigned char pad[8] = {0};
    fwrite(pad, 1, 8, f);
    for (int k = 0; k < 6; k++) {
        uint32_t u;
        memcpy(&u, &W[k], 4);
        unsigned char le[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
        fwrite(le, 1, 4, f);
    }
    fclose(f);
    mb b;
    build_gemm_relu(&b, 0);
    Onnx__TensorProto *t = b.inits[0];
    t->n_float_data = 0;
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    static Onnx__StringStringEntryProto kv[3];
    static Onnx__StringStringEntryProto *kvp[3] = {&kv[0], &kv[1], &kv[2]};
    for (int k = 0; k < 3; k++) onnx__string_string_entry_proto__init(&kv[k]);
    kv[0].key = "location"; kv[0].value = "weights.bin";
    kv[1].key = "offset"; kv[1].value = "8";
    kv[2].key = "length"; kv[2].value = "24";
    t->n_external_data = 3;
    t->external_data = kvp;
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    write_model(&b, path);
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE] = "";
    ck_assert_msg(nnc_mdl_load(&m, path, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    check_gemm_relu(m);
    nnc_mdl_destroy(m);
    /* a location escaping the folder is refused */
    kv[0].value = "../weights.bin";
    write_model(&b, path);
    ck_assert_int_eq(nnc_mdl_load(&m, path, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert_ptr_nonnull(strstr(err, "leaves the model's folder"));
    /* a file too short for offset + length */
    kv[0].value = "weights.bin";
    kv[1].value = "16";
    write_model(&b, path);
    ck_assert_int_eq(nnc_mdl_load(&m, path, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert_ptr_nonnull(strstr(err, "too short"));
}
END_TEST

START_TEST(test_int64_initializer_reshape_fold)
{
    /* x[1,6] -> Reshape(shape = int64 [2,3]) -> y; shape folded as a constant */
    mb b;
    mb_init(&b, 13);
    static const int64_t xd[2] = {1, 6}, sd[1] = {2}, sv[2] = {-1, 3};
    static const char *in[2] = {"x", "s"}, *out[1] = {"y"};
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_i64("s", 1, sd, sv, 2);
    b.graph.n_initializer = 1;
    b.nodes[0] = node("Reshape", "r", 2, in, 1, out);
    b.graph.n_node = 1;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE] = "";
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_tensor_info to;
    nnc_mdl_output_info(m, 0, &to);
    ck_assert_int_eq(to.rank, 2);
    ck_assert_int_eq(to.dims[0], 2);
    ck_assert_int_eq(to.dims[1], 3);
    nnc_mdl_destroy(m);
}
END_TEST

START_TEST(test_shape_chain_folding)
{
    /* Flatten the torch way: Reshape(x, Concat(Gather(Shape(x), 0), [-1])) folds to a constant shape */
    mb b;
    mb_init(&b, 13);
    static const int64_t xd[4] = {-1, 2, 2, 2}, zd[1] = {1}, zero[1] = {0}, m1[1] = {-1}, sc[0] = {};
    static const char *s_in[1] = {"x"}, *s_out[1] = {"shp"};
    static const char *g_in[2] = {"shp", "zero"}, *g_out[1] = {"n"};
    static const char *u_in[2] = {"n", "ax"}, *u_out[1] = {"n1"};
    static const char *c_in[2] = {"n1", "m1"}, *c_out[1] = {"target"};
    static const char *r_in[2] = {"x", "target"}, *r_out[1] = {"y"};
    (void)sc;
    mb_input(&b, "x", 4, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_i64("zero", 0, zd, zero, 1);
    b.inits[1] = tensor_i64("m1", 1, zd, m1, 1);
    b.inits[2] = tensor_i64("ax", 1, zd, zero, 1);
    b.graph.n_initializer = 3;
    b.nodes[0] = node("Shape", "shape", 1, s_in, 1, s_out);
    b.nodes[1] = node("Gather", "gather", 2, g_in, 1, g_out);
    b.nodes[2] = node("Unsqueeze", "unsq", 2, u_in, 1, u_out);
    b.nodes[3] = node("Concat", "concat", 2, c_in, 1, c_out);
    node_attr(b.nodes[3], attr_int("axis", 0));
    b.nodes[4] = node("Reshape", "reshape", 2, r_in, 1, r_out);
    b.graph.n_node = 5;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE] = "";
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(nnc_mdl_num_nodes(m), 1); /* only the Reshape is left */
    ck_assert_str_eq(nnc_mdl_node_op(m, 0), "Reshape");
    nnc_tensor_info ti, to;
    nnc_mdl_input_info(m, 0, &ti);
    ck_assert_int_eq(ti.dynamic_leading, 1);
    nnc_mdl_output_info(m, 0, &to);
    ck_assert_int_eq(to.rank, 2);
    ck_assert_int_eq(to.dims[0], 1);
    ck_assert_int_eq(to.dims[1], 8);
    double x[16], y[16];
    for (int k = 0; k < 16; k++) x[k] = k * 0.5 - 3;
    run1(m, NNC_PRECISION_F64, x, y, 2);
    for (int k = 0; k < 16; k++) ck_assert_double_eq(y[k], x[k]);
    nnc_mdl_destroy(m);
}
END_TEST

START_TEST(test_sparse_initializer)
{
    /* A (3x3 sparse) @ X (3x2 input) */
    mb b;
    mb_init(&b, 13);
    static const int64_t xd[2] = {3, 2}, ad[2] = {3, 3}, nz[1] = {4}, nz2[2] = {4, 2};
    static const float av[4] = {1.0f, 2.0f, -1.0f, 0.5f};
    static const int64_t lin[4] = {0, 2, 4, 6};   /* (0,0) (0,2) (1,1) (2,0) */
    static const char *in[2] = {"A", "x"}, *out[1] = {"y"};
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    Onnx__SparseTensorProto *sp = mb_calloc(1, sizeof *sp);
    onnx__sparse_tensor_proto__init(sp);
    sp->values = tensor_floats("A", 1, nz, av, 4);
    sp->indices = tensor_i64("A_idx", 1, nz, lin, 4);
    sp->n_dims = 2;
    sp->dims = (int64_t *)ad;
    b.sparse[0] = sp;
    b.graph.n_sparse_initializer = 1;
    b.nodes[0] = node("MatMul", "spmm", 2, in, 1, out);
    b.graph.n_node = 1;
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE] = "";
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    ck_assert_int_eq(nnc_mdl_param_count(m), 4);
    const double x[6] = {1, 2, 3, 4, 5, 6};
    double y[6];
    run1(m, NNC_PRECISION_F64, x, y, 1);
    const double e[6] = {1 + 10, 2 + 12, -3, -4, 0.5, 1};
    for (int k = 0; k < 6; k++) ck_assert_double_eq_tol(y[k], e[k], 1e-12);
    nnc_mdl_destroy(m);
    /* the same with [NNZ,2] coordinate indices */
    static const int64_t coo[8] = {0, 0, 0, 2, 1, 1, 2, 0};
    sp->indices = tensor_i64("A_idx", 2, nz2, coo, 8);
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    run1(m, NNC_PRECISION_F64, x, y, 1);
    for (int k = 0; k < 6; k++) ck_assert_double_eq_tol(y[k], e[k], 1e-12);
    nnc_mdl_destroy(m);
    /* out of range, unsorted and duplicate indices are refused */
    static const int64_t bad_range[4] = {0, 2, 4, 9}, bad_order[4] = {0, 4, 2, 6}, bad_dup[4] = {0, 2, 2, 6};
    const int64_t *bads[3] = {bad_range, bad_order, bad_dup};
    const char *msgs[3] = {"outside", "out of order", "duplicate"};
    for (int k = 0; k < 3; k++) {
        sp->indices = tensor_i64("A_idx", 1, nz, bads[k], 4);
        ck_assert_int_eq(mb_load(&b, &m, err, sizeof err), NNC_STATUS_INVALID);
        ck_assert_msg(strstr(err, msgs[k]) != NULL, "%s", err);
    }
}
END_TEST

START_TEST(test_batchnorm_fold)
{
    /* Conv(1->2, 1x1) then BatchNormalization: folded, same outputs as unfolded */
    mb b;
    mb_init(&b, 13);
    static const int64_t xd[4] = {1, 1, 2, 2}, wd[4] = {2, 1, 1, 1}, cd[1] = {2};
    static const float w[2] = {2.0f, -1.0f}, bias[2] = {0.5f, 0.25f}, sc[2] = {1.5f, 0.5f}, bb[2] = {0.1f, -0.2f},
                       mu[2] = {0.3f, -0.4f}, var[2] = {4.0f, 0.25f};
    static const char *cin[3] = {"x", "w", "b"}, *cout_[1] = {"c"};
    static const char *bin[5] = {"c", "sc", "bb", "mu", "var"}, *bout[1] = {"y"};
    mb_input(&b, "x", 4, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_floats("w", 4, wd, w, 2);
    b.inits[1] = tensor_floats("b", 1, cd, bias, 2);
    b.inits[2] = tensor_floats("sc", 1, cd, sc, 2);
    b.inits[3] = tensor_floats("bb", 1, cd, bb, 2);
    b.inits[4] = tensor_floats("mu", 1, cd, mu, 2);
    b.inits[5] = tensor_floats("var", 1, cd, var, 2);
    b.graph.n_initializer = 6;
    b.nodes[0] = node("Conv", "conv", 3, cin, 1, cout_);
    b.nodes[1] = node("BatchNormalization", "bn", 5, bin, 1, bout);
    b.graph.n_node = 2;
    size_t len;
    unsigned char *buf = mb_pack(&b, &len);
    char err[NNC_ERRBUF_SIZE] = "";
    nnc_model *folded, *plain;
    nnc_prepare_opts o;
    nnc_prepare_opts_default(&o);
    ck_assert_int_eq(nnc_mdl_parse(&folded, buf, len, NULL, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_mdl_prepare(folded, &o, err, sizeof err), NNC_STATUS_OK);
    o.fold_batchnorm = 0;
    ck_assert_int_eq(nnc_mdl_parse(&plain, buf, len, NULL, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_mdl_prepare(plain, &o, err, sizeof err), NNC_STATUS_OK);
    free(buf);
    ck_assert_int_eq(nnc_mdl_num_nodes(folded), 1);
    ck_assert_str_eq(nnc_mdl_node_op(folded, 0), "Conv");
    ck_assert_int_eq(nnc_mdl_num_nodes(plain), 2);
    const double x[4] = {1, -2, 0.5, 3};
    double y1[8], y2[8];
    run1(folded, NNC_PRECISION_F64, x, y1, 1);
    run1(plain, NNC_PRECISION_F64, x, y2, 1);
    for (int k = 0; k < 8; k++) {
        int c = k / 4;
        double conv = (double)w[c] * x[k % 4] + (double)bias[c];
        double e = ((conv - (double)mu[c]) / sqrt((double)var[c] + (double)1e-5f)) * (double)sc[c] + (double)bb[c];
        ck_assert_double_eq_tol(y2[k], e, 1e-12);
        ck_assert_double_eq_tol(y1[k], e, 1e-12);
    }
    nnc_mdl_destroy(folded);
    nnc_mdl_destroy(plain);
}
END_TEST

/* ------------------------------------------------------------- bad input */

static void expect_fail(mb *b, nnc_status want, const char *needle)
{
    nnc_model *m = NULL;
    char err[NNC_ERRBUF_SIZE] = "";
    nnc_status st = mb_load(b, &m, err, sizeof err);
    ck_assert_msg(st == want, "status %d (%s), wanted %d", st, err, want);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
    ck_assert_ptr_null(strchr(err, '\n'));
}

START_TEST(test_raw_data_length_mismatch)
{
    mb b;
    build_gemm_relu(&b, 1);
    b.inits[0]->raw_data.len = 20; /* shape needs 24 */
    expect_fail(&b, NNC_STATUS_INVALID, "raw_data has 20 bytes");
}
END_TEST

START_TEST(test_negative_and_overflowing_dims)
{
    mb b;
    build_gemm_relu(&b, 0);
    b.inits[0]->dims[0] = -2;
    expect_fail(&b, NNC_STATUS_INVALID, "negative dimension");
    build_gemm_relu(&b, 0);
    b.inits[0]->dims[0] = INT64_MAX / 2;
    b.inits[0]->dims[1] = 7;
    expect_fail(&b, NNC_STATUS_LIMIT, "limit");
    /* a 100 GB declared tensor with no data: refused before any allocation */
    build_gemm_relu(&b, 0);
    b.inits[0]->dims[0] = 25000000000LL / 3;
    b.inits[0]->dims[1] = 3;
    expect_fail(&b, NNC_STATUS_LIMIT, "tensor limit");
    /* a 100 GB graph input */
    build_gemm_relu(&b, 0);
    int64_t huge[2] = {25000000000LL, 3};
    b.inputs[0] = vinfo("x", 1, 2, huge);
    expect_fail(&b, NNC_STATUS_LIMIT, "limit");
}
END_TEST

START_TEST(test_cycle_and_missing_input)
{
    static const char *a_in[1] = {"b"}, *a_out[1] = {"a"}, *b_in[1] = {"a"}, *b_out[1] = {"b"};
    static const char *c_in[1] = {"nowhere"}, *c_out[1] = {"y"};
    static const int64_t xd[2] = {1, 3};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "b");
    b.nodes[0] = node("Relu", "ra", 1, a_in, 1, a_out);
    b.nodes[1] = node("Relu", "rb", 1, b_in, 1, b_out);
    b.graph.n_node = 2;
    expect_fail(&b, NNC_STATUS_INVALID, "cycle");
    mb_init(&b, 13);
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    b.nodes[0] = node("Relu", "r", 1, c_in, 1, c_out);
    b.graph.n_node = 1;
    expect_fail(&b, NNC_STATUS_INVALID, "input 'nowhere' is not produced");
}
END_TEST

START_TEST(test_unsupported_operator_and_opset)
{
    static const char *in[1] = {"x"}, *out[1] = {"y"};
    static const int64_t xd[2] = {1, 3};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    b.nodes[0] = node("Erf", "my_erf", 1, in, 1, out);
    b.graph.n_node = 1;
    expect_fail(&b, NNC_STATUS_UNSUPPORTED, "node 'my_erf': operator Erf is not supported; supported: Add");
    mb_init(&b, 22);
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    b.nodes[0] = node("Relu", "r", 1, in, 1, out);
    b.graph.n_node = 1;
    expect_fail(&b, NNC_STATUS_UNSUPPORTED, "opset 22 is not supported (nncert supports opsets 7 to 21)");
    /* Pad: mode wrap only from opset 19; the axes input (18) names each axis once */
    static const char *p_in[4] = {"x", "p", "", "a"}, *p_out[1] = {"y"};
    static const int64_t pd[1] = {4}, ad[1] = {2}, pads[4] = {1, 1, 0, 0}, axes[2][2] = {{0, 1}, {1, -1}};
    for (int k = 0; k < 2; k++) {
        mb_init(&b, k == 0 ? 18 : 19);
        mb_input(&b, "x", 2, xd);
        mb_output(&b, "y");
        b.inits[0] = tensor_i64("p", 1, pd, pads, 4);
        b.inits[1] = tensor_i64("a", 1, ad, axes[k], 2);
        b.graph.n_initializer = 2;
        b.nodes[0] = node("Pad", "pad", 4, p_in, 1, p_out);
        if (k == 0) node_attr(b.nodes[0], attr_str("mode", "wrap"));
        b.graph.n_node = 1;
        if (k == 0) expect_fail(&b, NNC_STATUS_UNSUPPORTED, "node 'pad' (Pad): mode 'wrap' is not supported");
        else expect_fail(&b, NNC_STATUS_INVALID, "node 'pad' (Pad): axis -1 repeated");
    }
}
END_TEST

START_TEST(test_truncated_and_garbage_bytes)
{
    mb b;
    build_gemm_relu(&b, 1);
    size_t len;
    unsigned char *buf = mb_pack(&b, &len);
    char err[NNC_ERRBUF_SIZE];
    int ok = 0;
    /* every strict prefix either fails cleanly or (rarely) parses to a
     * smaller valid message, which prepare must then reject or accept sanely */
    for (size_t cut = 0; cut < len; cut++) {
        nnc_model *m = NULL;
        nnc_status st = nnc_mdl_parse(&m, buf, cut, NULL, err, sizeof err);
        if (st == NNC_STATUS_OK) {
            st = nnc_mdl_prepare(m, NULL, err, sizeof err);
            nnc_mdl_destroy(m);
            ok += st == NNC_STATUS_OK;
        } else {
            ck_assert_ptr_null(m);
            ck_assert(strlen(err) > 0);
        }
    }
    ck_assert_int_lt(ok, 3);
    free(buf);
    const char junk[] = "this is not an onnx model, just text\n";
    nnc_model *m = NULL;
    ck_assert_int_ne(nnc_mdl_parse(&m, junk, sizeof junk - 1, NULL, err, sizeof err), NNC_STATUS_OK);
    ck_assert_ptr_null(m);
    const unsigned char npy[] = "\x93NUMPY\x01\x00";
    ck_assert_int_ne(nnc_mdl_parse(&m, npy, sizeof npy - 1, NULL, err, sizeof err), NNC_STATUS_OK);
}
END_TEST

/* ---------------------------------------------------------------- inputs */

START_TEST(test_json_parser)
{
    nnc_json_doc *d;
    char err[NNC_ERRBUF_SIZE];
    const char *ok = "{\"a\": [1, -2.5e3, 0.125], \"s\": \"x\\u00e9\\n\", \"t\": true, \"n\": null}";
    ck_assert_int_eq(nnc_json_parse(&d, ok, strlen(ok), err, sizeof err), NNC_STATUS_OK);
    const nnc_json *a = nnc_json_get(nnc_json_root(d), "a");
    ck_assert_int_eq(a->len, 3);
    ck_assert_double_eq(a->child->next->num, -2500.0);
    ck_assert_str_eq(nnc_json_get(nnc_json_root(d), "s")->str, "x\xc3\xa9\n");
    nnc_json_doc_destroy(d);
    const char *bad[] = {"[1, 2", "{\"a\" 1}", "[01]", "[1.]", "\"abc", "[1] x", "{\"a\": tru}", "[-]", "\"\\ud800\"",
                         /* a member name with NUL would read as a shorter name (two texts, one meaning) */
                         "{\"verdict\\u0000x\": 1}"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(nnc_json_parse(&d, bad[k], strlen(bad[k]), err, sizeof err), NNC_STATUS_PARSE);
        ck_assert_ptr_nonnull(strstr(err, "line 1 column"));
    }
    /* two members of one name: one reader keeps the first, snarkjs (JSON.parse)
     * the last, so one proof file would verify in one tool and fail in the
     * other; refused, at any depth, with the name */
    const char *dup[] = {"{\"pi_a\": [1], \"pi_c\": 2, \"pi_a\": [3]}", "[{\"x\": {\"k\": 1, \"j\": 2, \"k\": 1}}]",
                         "{\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4, \"a\": 5}"};
    const char *dupname[] = {"\"pi_a\" twice", "\"k\" twice", "\"a\" twice"};
    for (size_t k = 0; k < sizeof dup / sizeof dup[0]; k++) {
        ck_assert_int_eq(nnc_json_parse(&d, dup[k], strlen(dup[k]), err, sizeof err), NNC_STATUS_PARSE);
        ck_assert_msg(strstr(err, dupname[k]) != NULL, "'%s' lacks %s", err, dupname[k]);
    }
    /* equal values under distinct names, and the same name in sibling objects, are fine */
    const char *fine = "{\"a\": {\"k\": 1}, \"b\": {\"k\": 1}, \"ab\": 1, \"A\": 1}";
    ck_assert_int_eq(nnc_json_parse(&d, fine, strlen(fine), err, sizeof err), NNC_STATUS_OK);
    nnc_json_doc_destroy(d);
    char deep[200];
    memset(deep, '[', 199);
    deep[199] = 0;
    ck_assert_int_eq(nnc_json_parse(&d, deep, 199, err, sizeof err), NNC_STATUS_LIMIT);
}
END_TEST

START_TEST(test_inputs_json_and_npy)
{
    mb b;
    build_gemm_relu(&b, 0);
    nnc_model *m;
    char err[NNC_ERRBUF_SIZE] = "";
    ck_assert_int_eq(mb_load(&b, &m, err, sizeof err), NNC_STATUS_OK);
    nnc_inputs in;
    const char *j1 = "[[1, 2, 3], [4, 5, 6]]";
    ck_assert_int_eq(nnc_mdl_parse_inputs(m, (const unsigned char *)j1, strlen(j1), 0, &in, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(in.batch, 2);
    ck_assert_double_eq(in.data[0][5], 6);
    nnc_inputs_clear(&in);
    const char *j2 = "{\"x\": {\"shape\": [1,3], \"data\": [1,2,3]}}";
    ck_assert_int_eq(nnc_mdl_parse_inputs(m, (const unsigned char *)j2, strlen(j2), 0, &in, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(in.batch, 1);
    nnc_inputs_clear(&in);
    const char *bad[] = {"[1, 2]", "[[1,2,3],[4,5]]", "{\"y\": [1,2,3]}", "[1, \"a\", 3]", "[]"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        ck_assert_int_ne(nnc_mdl_parse_inputs(m, (const unsigned char *)bad[k], strlen(bad[k]), 0, &in, err, sizeof err),
                         NNC_STATUS_OK);
    /* .npy float32 [2,3] */
    unsigned char npy[256];
    const char *hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    size_t hl = 118 - 10; /* header padded so that 10 + hl is a multiple of 64 */
    memcpy(npy, "\x93NUMPY\x01\x00", 8);
    npy[8] = (unsigned char)hl;
    npy[9] = 0;
    memset(npy + 10, ' ', hl);
    memcpy(npy + 10, hdr, strlen(hdr));
    npy[10 + hl - 1] = '\n';
    for (int k = 0; k < 6; k++) {
        float v = (float)k - 2.5f;
        memcpy(npy + 10 + hl + 4 * k, &v, 4);
    }
    size_t nl = 10 + hl + 24;
    ck_assert_int_eq(nnc_mdl_parse_inputs(m, npy, nl, 1, &in, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(in.batch, 2);
    ck_assert_double_eq(in.data[0][0], -2.5);
    ck_assert_double_eq(in.data[0][5], 2.5);
    nnc_inputs_clear(&in);
    ck_assert_int_eq(nnc_mdl_parse_inputs(m, npy, nl - 1, 1, &in, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert_ptr_nonnull(strstr(err, ".npy: data has"));
    nnc_mdl_destroy(m);
}
END_TEST

/* The zoo models evaluate to the logits torch computed when it exported them. */
START_TEST(test_zoo_expected_outputs)
{
    const char *names[2] = {"mlp", "cnn"};
    unsigned char *buf;
    size_t len;
    char err[NNC_ERRBUF_SIZE] = "";
    ck_assert_int_eq(nnc_read_file("models/zoo/expected_outputs.json", 1 << 20, &buf, &len, err, sizeof err), NNC_STATUS_OK);
    nnc_json_doc *doc;
    ck_assert_int_eq(nnc_json_parse(&doc, (const char *)buf, len, err, sizeof err), NNC_STATUS_OK);
    for (int k = 0; k < 2; k++) {
        char path[64];
        snprintf(path, sizeof path, "models/zoo/%s.onnx", names[k]);
        nnc_model *m;
        ck_assert_msg(nnc_mdl_load(&m, path, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        nnc_inputs in;
        ck_assert_msg(nnc_mdl_read_inputs(m, "models/zoo/sample_input.json", &in, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        double y[10];
        run1(m, NNC_PRECISION_F64, in.data[0], y, 1);
        const nnc_json *logits = nnc_json_get(nnc_json_get(nnc_json_root(doc), names[k]), "logits")->child->child;
        for (int j = 0; j < 10; j++, logits = logits->next)
            ck_assert_msg(fabs(y[j] - logits->num) <= 1e-5 * fmax(1.0, fabs(logits->num)), "%s logit %d: %.9g vs %.9g",
                          names[k], j, y[j], logits->num);
        nnc_inputs_clear(&in);
        nnc_mdl_destroy(m);
    }
    nnc_json_doc_destroy(doc);
    free(buf);
}
END_TEST

/* The float32 runtime's packed-GEMM path (Gemm/MatMul with constant weights,
 * fused bias Add and Relu, row and column tails) equals the float64 runtime
 * to float32 accuracy, for batches large enough to take that path. */
static void f32_vs_f64(nnc_model *m, int batch, unsigned seed)
{
    rng r = rng_for(seed); /* fixed inputs: stream SEED of the suite's fixed seed */
    nnc_tensor_info ti, to;
    nnc_mdl_input_info(m, 0, &ti);
    nnc_mdl_output_info(m, 0, &to);
    size_t nin = (size_t)(ti.numel * batch), nout = (size_t)(to.numel * batch);
    double *x = malloc(nin * sizeof(double)), *y32 = malloc(nout * sizeof(double)), *y64 = malloc(nout * sizeof(double));
    for (size_t k = 0; k < nin; k++) x[k] = (float)(rng_unif(&r) * 2.0 - 1.0);
    run1(m, NNC_PRECISION_F32, x, y32, batch);
    run1(m, NNC_PRECISION_F64, x, y64, batch);
    double scale = 0;
    for (size_t k = 0; k < nout; k++) scale = fmax(scale, fabs(y64[k]));
    for (size_t k = 0; k < nout; k++)
        ck_assert_msg(fabs(y32[k] - y64[k]) <= 1e-5 * fmax(scale, 1.0), "batch %d output %zu: %.9g vs %.9g", batch, k, y32[k], y64[k]);
    free(x);
    free(y32);
    free(y64);
}

START_TEST(test_packed_gemm_paths)
{
    char err[NNC_ERRBUF_SIZE] = "";
    nnc_model *m;
    ck_assert_msg(nnc_mdl_load(&m, "models/zoo/mlp.onnx", err, sizeof err) == NNC_STATUS_OK, "%s", err);
    int batches[4] = {1, 24, 37, 130};
    for (int k = 0; k < 4; k++) f32_vs_f64(m, batches[k], 7u + (unsigned)k);
    nnc_mdl_destroy(m);
    /* MatMul([1,K] x [K,N]) -> Add(bias [N]) -> Relu, N = 45 (a column tail), and a
     * Gemm with transB = 0, alpha, beta and a scalar C */
    static float W1[20 * 45], b1[45], W2[45 * 7], c2[1] = {0.75f};
    for (int k = 0; k < 20 * 45; k++) W1[k] = (float)sin(k * 0.37);
    for (int k = 0; k < 45; k++) b1[k] = (float)cos(k * 1.3);
    for (int k = 0; k < 45 * 7; k++) W2[k] = (float)sin(k * 0.11 + 1);
    static const int64_t xd[2] = {1, 20}, w1d[2] = {20, 45}, b1d[1] = {45}, w2d[2] = {45, 7}, c2d[1] = {1};
    static const char *mi[2] = {"x", "W1"}, *mo[1] = {"h"}, *ai[2] = {"h", "b1"}, *ao[1] = {"h2"}, *ri[1] = {"h2"},
                      *ro[1] = {"h3"}, *gi[3] = {"h3", "W2", "c2"}, *go[1] = {"y"};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 2, xd);
    mb_output(&b, "y");
    b.inits[0] = tensor_floats("W1", 2, w1d, W1, 20 * 45);
    b.inits[1] = tensor_floats("b1", 1, b1d, b1, 45);
    b.inits[2] = tensor_floats("W2", 2, w2d, W2, 45 * 7);
    b.inits[3] = tensor_floats("c2", 1, c2d, c2, 1);
    b.graph.n_initializer = 4;
    b.nodes[0] = node("MatMul", "mm", 2, mi, 1, mo);
    b.nodes[1] = node("Add", "add", 2, ai, 1, ao);
    b.nodes[2] = node("Relu", "relu", 1, ri, 1, ro);
    b.nodes[3] = node("Gemm", "gemm", 3, gi, 1, go);
    node_attr(b.nodes[3], attr_float("alpha", 0.5f));
    node_attr(b.nodes[3], attr_float("beta", -2.0f));
    b.graph.n_node = 4;
    ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    for (int k = 0; k < 4; k++) f32_vs_f64(m, batches[k], 17u + (unsigned)k);
    nnc_mdl_destroy(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("loader");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_float_data_and_raw_data);
    tcase_add_test(tc, test_external_data);
    tcase_add_test(tc, test_int64_initializer_reshape_fold);
    tcase_add_test(tc, test_shape_chain_folding);
    tcase_add_test(tc, test_sparse_initializer);
    tcase_add_test(tc, test_batchnorm_fold);
    tcase_add_test(tc, test_raw_data_length_mismatch);
    tcase_add_test(tc, test_negative_and_overflowing_dims);
    tcase_add_test(tc, test_cycle_and_missing_input);
    tcase_add_test(tc, test_unsupported_operator_and_opset);
    tcase_add_test(tc, test_truncated_and_garbage_bytes);
    tcase_add_test(tc, test_json_parser);
    tcase_add_test(tc, test_inputs_json_and_npy);
    tcase_add_test(tc, test_zoo_expected_outputs);
    tcase_add_test(tc, test_packed_gemm_paths);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    harness_set_seed(0); /* inputs that never vary */
    return check_main_run(suite());
}
