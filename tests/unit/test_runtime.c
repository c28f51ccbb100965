/* The runtime's batched evaluation (models/runtime.c) and its window and
 * padding kernels (models/kernels_impl.h):
 *   - MaxPool and AveragePool of random geometries (kernels 1-4, strides
 *     1-3, asymmetric pads, dilations, ceil_mode, count_include_pad, NaNs
 *     in the input): every output equals the ONNX definition computed here
 *     tap by tap in the same order, bit for bit, in float32 and float64
 *     (the interior runs a separate row-wise loop);
 *   - Pad in constant mode with positive and negative pads on ranks 1-4:
 *     every element equals the definition (the kernel copies whole rows);
 *   - Conv of random geometries (strides 1-3, groups, dilations, asymmetric
 *     pads, channel counts that leave partial blocks) with constant weights
 *     (the direct path) equals the definition (taps in order, each a fused
 *     multiply-add, one rounding) bit for bit in float32 and float64 (weights fed at
 *     run time take im2col and OpenBLAS: the ONNX node tests);
 *   - tiles and threads: the zoo CNN and MLP at batches across several
 *     tiles give the same bits on 1, 2 and 3 threads, and match the
 *     single-tile run sample by sample where the products are ours. */
#include "nncert/model.h"
#include "onnx_builder.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* an int in [lo, hi] */
static int rndi(int lo, int hi) { return lo + rnd_below(hi - lo + 1); }
/* a float in [-4, 4) with a random 24-bit mantissa */
static float rndfull(void) { return (float)ldexp((double)(int32_t)(uint32_t)(rnd() >> 32) / 2147483648.0, 2); }

/* One 2-D pool window geometry. */
typedef struct pool_case {
    int is_max, C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, ceil, incl;
    int64_t oh, ow;
} pool_case;

static int64_t out_len(int len, int pb, int pe, int k, int d, int s, int ceil)
{
    int64_t span = (int64_t)len + pb + pe - ((int64_t)(k - 1) * d + 1);
    if (span < 0) return 0;
    int64_t o = ceil ? (span + s - 1) / s + 1 : span / s + 1;
    /* ceil mode: the last window must start inside the input or the begin pad */
    if (ceil && (o - 1) * s >= (int64_t)len + pb) o--;
    return o;
}

/* The definition, taps in row-major window order, computed in float32
 * (single: x holds float32 values) or float64. */
static double pool_ref(const pool_case *c, const double *x, int64_t oy, int64_t ox, int single)
{
    double accd = c->is_max ? -INFINITY : 0.0;
    float accf = (float)accd;
    int cnt = 0, padded = 0;
    /* an average's taps row by row, a max's column by column */
    int na = c->is_max ? c->kw : c->kh, nb = c->is_max ? c->kh : c->kw;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            int ki = c->is_max ? j : i, kj = c->is_max ? i : j;
            int64_t iy = oy * c->sh - c->pt + (int64_t)ki * c->dh, ix = ox * c->sw - c->pl + (int64_t)kj * c->dw;
            if (iy >= -c->pt && iy < c->H + c->pb && ix >= -c->pl && ix < c->W + c->pr) padded++;
            if (iy < 0 || iy >= c->H || ix < 0 || ix >= c->W) continue;
            double v = x[iy * c->W + ix];
            float vf = (float)v;
            if (c->is_max) {
                accd = (v > accd || v != v) ? v : accd;
                accf = (vf > accf || vf != vf) ? vf : accf;
            } else {
                accd += v;
                accf += vf;
            }
            cnt++;
        }
    int div = c->incl ? padded : cnt;
    if (single) return c->is_max ? accf : div ? (double)(accf / (float)div) : 0.0;
    return c->is_max ? accd : div ? accd / div : 0.0;
}

/* Runs m on B samples in precision prec (in and out: float or double by
 * prec) on `threads` threads. */
static void run_model(const nnc_model *m, int prec, int B, int threads, const void *in, void *out)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_runtime *rt;
    ck_assert_msg(nnc_rt_create(&rt, m, prec ? NNC_PRECISION_F64 : NNC_PRECISION_F32, B, err, sizeof err) == 0, "%s", err);
    ck_assert(nnc_rt_set_threads(rt, threads) == NNC_STATUS_OK);
    const void *ins[1] = {in};
    void *outs[1] = {out};
    ck_assert_msg(nnc_rt_run(rt, B, ins, outs, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_rt_destroy(rt);
}

static int same_bits_f(float a, float b) { return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }
static int same_bits_d(double a, double b) { return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

static nnc_status pool_model(const pool_case *c, nnc_model **m, char *err, size_t errlen)
{
    static const char *in[1] = {"x"}, *out[1] = {"y"};
    int64_t xd[4] = {1, c->C, c->H, c->W};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 4, xd);
    mb_output(&b, "y");
    b.nodes[0] = node(c->is_max ? "MaxPool" : "AveragePool", "p", 1, in, 1, out);
    int64_t k[2] = {c->kh, c->kw}, s[2] = {c->sh, c->sw}, p[4] = {c->pt, c->pl, c->pb, c->pr}, d[2] = {c->dh, c->dw};
    node_attr(b.nodes[0], attr_ints("kernel_shape", 2, k));
    node_attr(b.nodes[0], attr_ints("strides", 2, s));
    node_attr(b.nodes[0], attr_ints("pads", 4, p));
    if (c->is_max) node_attr(b.nodes[0], attr_ints("dilations", 2, d));
    else node_attr(b.nodes[0], attr_int("count_include_pad", c->incl));
    node_attr(b.nodes[0], attr_int("ceil_mode", c->ceil));
    b.graph.n_node = 1;
    return mb_load(&b, m, err, errlen);
}

START_TEST(test_pool_geometries)
{
    int tested = 0;
    for (int it = 0; it < 300; it++) {
        pool_case c = {0};
        c.is_max = (int)(rnd() & 1);
        c.C = rndi(1, 3);
        c.H = rndi(1, 19);
        c.W = rndi(1, 19);
        c.kh = rndi(1, 4);
        c.kw = rndi(1, 4);
        c.sh = rndi(1, 3);
        c.sw = rndi(1, 3);
        c.dh = c.is_max ? rndi(1, 2) : 1;
        c.dw = c.is_max ? rndi(1, 2) : 1;
        /* ONNX: pads smaller than the (dilated) kernel */
        c.pt = rndi(0, c.kh - 1);
        c.pl = rndi(0, c.kw - 1);
        c.pb = rndi(0, c.kh - 1);
        c.pr = rndi(0, c.kw - 1);
        c.ceil = (int)(rnd() % 3 == 0);
        c.incl = (int)(rnd() & 1);
        c.oh = out_len(c.H, c.pt, c.pb, c.kh, c.dh, c.sh, c.ceil);
        c.ow = out_len(c.W, c.pl, c.pr, c.kw, c.dw, c.sw, c.ceil);
        if (c.oh < 1 || c.ow < 1) continue;
        char err[NNC_ERRBUF_SIZE];
        nnc_model *m;
        ck_assert_msg(pool_model(&c, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        nnc_tensor_info to;
        nnc_mdl_output_info(m, 0, &to);
        ck_assert_int_eq(to.numel, (int64_t)c.C * c.oh * c.ow);
        int B = rndi(1, 5);
        int64_t nin = (int64_t)c.C * c.H * c.W, nout = to.numel;
        double *xd = malloc(sizeof(double) * (size_t)(B * nin)), *yd = malloc(sizeof(double) * (size_t)(B * nout));
        float *xf = malloc(sizeof(float) * (size_t)(B * nin)), *yf = malloc(sizeof(float) * (size_t)(B * nout));
        for (int64_t q = 0; q < B * nin; q++) {
            uint32_t r = rnd();
            /* some NaNs (max), equal values and signed zeros */
            xf[q] = r % 41 == 0 && c.is_max ? NAN : r % 13 == 0 ? (r & 64 ? -0.0f : 0.0f)
                                                                 : (float)((int)(rnd() % 2001) - 1000) / 256.0f;
            xd[q] = xf[q];
        }
        for (int prec = 0; prec < 2; prec++) {
            run_model(m, prec, B, 2, prec ? (const void *)xd : (const void *)xf, prec ? (void *)yd : (void *)yf);
            for (int b = 0; b < B; b++)
                for (int ch = 0; ch < c.C; ch++)
                    for (int64_t oy = 0; oy < c.oh; oy++)
                        for (int64_t ox = 0; ox < c.ow; ox++) {
                            int64_t o = ((int64_t)b * c.C + ch) * c.oh * c.ow + oy * c.ow + ox;
                            int64_t xo = ((int64_t)b * c.C + ch) * c.H * c.W;
                            double want = pool_ref(&c, xd + xo, oy, ox, !prec);
                            int ok = prec ? same_bits_d(yd[o], want) : same_bits_f(yf[o], (float)want);
                            ck_assert_msg(ok,
                                          "%s %s k%dx%d s%dx%d d%dx%d pads %d,%d,%d,%d ceil %d incl %d in %dx%d: "
                                          "output (%d,%d,%lld,%lld) differs from the definition",
                                          prec ? "f64" : "f32", c.is_max ? "MaxPool" : "AveragePool", c.kh, c.kw, c.sh,
                                          c.sw, c.dh, c.dw, c.pt, c.pl, c.pb, c.pr, c.ceil, c.incl, c.H, c.W, b, ch,
                                          (long long)oy, (long long)ox);
                        }
        }
        free(xd); free(yd); free(xf); free(yf);
        nnc_mdl_destroy(m);
        tested++;
    }
    ck_assert_int_gt(tested, 200);
}
END_TEST

START_TEST(test_pad_constant)
{
    for (int it = 0; it < 200; it++) {
        int r = rndi(1, 4);
        int64_t dims[4], od[4], pads[8];
        int64_t n = 1, on = 1;
        for (int d = 0; d < r; d++) {
            dims[d] = rndi(1, 6);
            /* crops that leave at least one element */
            int crop = (int)(dims[d] - 1) / 2;
            pads[d] = rndi(-crop, 3);
            pads[r + d] = rndi(-crop, 3);
            od[d] = dims[d] + pads[d] + pads[r + d];
            n *= dims[d];
            on *= od[d];
        }
        float value = (float)((int)(rnd() % 9) - 4) / 2.0f;
        static const char *in[3] = {"x", "pads", "v"}, *out[1] = {"y"};
        int64_t pd[1] = {2 * r}, vd[1] = {1};
        mb b;
        mb_init(&b, 13);
        mb_input(&b, "x", r, dims);
        mb_output(&b, "y");
        b.inits[0] = tensor_i64("pads", 1, pd, pads, (size_t)(2 * r));
        b.inits[1] = tensor_floats("v", 1, vd, &value, 1);
        b.graph.n_initializer = 2;
        b.nodes[0] = node("Pad", "p", 3, in, 1, out);
        b.graph.n_node = 1;
        char err[NNC_ERRBUF_SIZE];
        nnc_model *m;
        ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        int B = rndi(1, 3);
        float *x = malloc(sizeof(float) * (size_t)(B * n)), *y = malloc(sizeof(float) * (size_t)(B * on));
        for (int64_t q = 0; q < B * n; q++) x[q] = (float)q + 0.5f;
        run_model(m, 0, B, 2, x, y);
        for (int bb = 0; bb < B; bb++)
            for (int64_t k = 0; k < on; k++) {
                /* the definition: output index minus the begin pad, per axis */
                int64_t rem = k, src = 0, stride = on;
                int inside = 1;
                for (int d = 0; d < r; d++) {
                    stride /= od[d];
                    int64_t i = rem / stride - pads[d];
                    rem %= stride;
                    if (i < 0 || i >= dims[d]) inside = 0;
                    src = src * dims[d] + (inside ? i : 0);
                }
                float want = inside ? x[bb * n + src] : value;
                ck_assert_msg(same_bits_f(y[bb * on + k], want), "rank %d pads [%lld..]: element %lld is %g, want %g", r,
                              (long long)pads[0], (long long)k, (double)y[bb * on + k], (double)want);
            }
        free(x);
        free(y);
        nnc_mdl_destroy(m);
    }
}
END_TEST

/* One Conv geometry (2-D, NCHW). */
typedef struct conv_case {
    int C, M, H, W, kh, kw, s, dh, dw, pt, pl, pb, pr, group, bias;
    int64_t oh, ow;
} conv_case;

/* The definition the direct path computes: per output, the taps
 * in (c, ki, kj) order, padding taps included as products with 0, each tap
 * a fused multiply-add (one rounding: fmaf, fma); then the bias. */
__attribute__((optimize("fp-contract=off"))) static double conv_ref(const conv_case *c, const double *x, const double *w,
                                                                     const double *b, int m, int64_t oy, int64_t ox,
                                                                     int single)
{
    int cg = c->C / c->group, mg = c->M / c->group, g0 = m / mg;
    double sd = 0;
    float sf = 0;
    for (int ci = 0; ci < cg; ci++)
        for (int ki = 0; ki < c->kh; ki++)
            for (int kj = 0; kj < c->kw; kj++) {
                int64_t iy = oy * c->s - c->pt + (int64_t)ki * c->dh, ix = ox * c->s - c->pl + (int64_t)kj * c->dw;
                int inside = iy >= 0 && iy < c->H && ix >= 0 && ix < c->W;
                double xv = inside ? x[((int64_t)(g0 * cg + ci) * c->H + iy) * c->W + ix] : 0.0;
                double wv = w[(((int64_t)m * cg + ci) * c->kh + ki) * c->kw + kj];
                if (single) sf = fmaf((float)wv, (float)xv, sf);
                else sd = fma(wv, xv, sd);
            }
    if (single) return (double)(sf + (c->bias ? (float)b[m] : 0.0f));
    return sd + (c->bias ? b[m] : 0.0);
}

START_TEST(test_conv_geometries)
{
    int direct = 0, strided = 0, wide = 0;
    /* first, the layouts of the channel kernel (kernels_impl.h, dcgeom's
     * cWx): the input read in place (no padding, outputs of 4 x 4 and 8 x 8),
     * its padded copy (3 x 3 of stride 2 or 3, padding 1, even and odd
     * sizes), the phase planes (stride 1, or 1 x 1 of stride 2: a residual
     * net's shortcuts), and channel counts around a vector (15, 17, 20, 33) */
    static const int fixed[][8] = {/* C, M, H, W, k, s, pad, group */
                                   {8, 32, 9, 9, 3, 2, 0, 1},   {8, 32, 17, 17, 3, 2, 0, 1}, {4, 20, 9, 9, 3, 2, 0, 1},
                                   {16, 32, 16, 16, 3, 2, 1, 1}, {32, 32, 8, 8, 3, 2, 1, 1},  {3, 16, 32, 32, 3, 2, 1, 1},
                                   {5, 17, 9, 9, 3, 2, 1, 1},    {8, 32, 12, 12, 3, 3, 1, 1}, {4, 33, 8, 8, 3, 1, 1, 1},
                                   {16, 32, 16, 16, 1, 2, 0, 1}, {32, 32, 8, 8, 1, 2, 0, 1},  {6, 15, 8, 16, 1, 1, 0, 1},
                                   {4, 16, 7, 7, 2, 2, 0, 2}};
    const int nfixed = (int)(sizeof fixed / sizeof fixed[0]);
    for (int it = 0; it < 200 + nfixed; it++) {
        conv_case c = {0};
        if (it < nfixed) {
            const int *f = fixed[it];
            c = (conv_case){.C = f[0], .M = f[1], .H = f[2], .W = f[3], .kh = f[4], .kw = f[4], .s = f[5], .dh = 1,
                            .dw = 1, .pt = f[6], .pl = f[6], .pb = f[6], .pr = f[6], .group = f[7], .bias = it & 1};
            c.oh = ((int64_t)c.H + 2 * c.pt - c.kh) / c.s + 1;
            c.ow = ((int64_t)c.W + 2 * c.pl - c.kw) / c.s + 1;
            goto run;
        }
        c.group = rnd() % 4 == 0 ? rndi(2, 3) : 1;
        c.C = c.group * rndi(1, 4);
        c.M = c.group * rndi(1, 11); /* block tails of 8 channels */
        c.H = rndi(1, 13);
        /* inputs up to 32 columns wide get their phase planes through a
         * map, wider ones row by row (kernels_impl.h, NNC_DC_MAP_W) */
        c.W = rnd() % 4 == 0 ? rndi(29, 44) : rndi(1, 13);
        c.kh = rndi(1, 3);
        c.kw = rndi(1, 3);
        c.s = rnd() % 3 == 0 ? rndi(2, 3) : 1;
        c.dh = rndi(1, 2);
        c.dw = rndi(1, 2);
        c.pt = rndi(0, 2);
        c.pl = rndi(0, 2);
        c.pb = rndi(0, 2);
        c.pr = rndi(0, 2);
        c.bias = (int)(rnd() & 1);
        c.oh = ((int64_t)c.H + c.pt + c.pb - ((int64_t)(c.kh - 1) * c.dh + 1)) / c.s + 1;
        c.ow = ((int64_t)c.W + c.pl + c.pr - ((int64_t)(c.kw - 1) * c.dw + 1)) / c.s + 1;
        if ((int64_t)c.H + c.pt + c.pb < (int64_t)(c.kh - 1) * c.dh + 1 ||
            (int64_t)c.W + c.pl + c.pr < (int64_t)(c.kw - 1) * c.dw + 1)
            continue;
    run:;
        int cg = c.C / c.group;
        int64_t nw = (int64_t)c.M * cg * c.kh * c.kw;
        float *wf = malloc(sizeof(float) * (size_t)nw), bf[64];
        double *wd = malloc(sizeof(double) * (size_t)nw), bd[64];
        /* full mantissas: sums round, so the order of the taps shows */
        for (int64_t q = 0; q < nw; q++) wd[q] = wf[q] = rndfull();
        for (int q = 0; q < c.M; q++) bd[q] = bf[q] = rndfull();
        static const char *in3[3] = {"x", "w", "b"}, *out[1] = {"y"};
        int64_t xdims[4] = {1, c.C, c.H, c.W}, wdims[4] = {c.M, cg, c.kh, c.kw}, bdims[1] = {c.M};
        mb b;
        mb_init(&b, 13);
        mb_input(&b, "x", 4, xdims);
        mb_output(&b, "y");
        b.inits[0] = tensor_floats("w", 4, wdims, wf, (size_t)nw);
        b.inits[1] = tensor_floats("b", 1, bdims, bf, (size_t)c.M);
        b.graph.n_initializer = c.bias ? 2 : 1;
        b.nodes[0] = node("Conv", "c", c.bias ? 3 : 2, in3, 1, out);
        int64_t k[2] = {c.kh, c.kw}, st[2] = {c.s, c.s}, pads[4] = {c.pt, c.pl, c.pb, c.pr}, dil[2] = {c.dh, c.dw};
        node_attr(b.nodes[0], attr_ints("kernel_shape", 2, k));
        node_attr(b.nodes[0], attr_ints("strides", 2, st));
        node_attr(b.nodes[0], attr_ints("pads", 4, pads));
        node_attr(b.nodes[0], attr_ints("dilations", 2, dil));
        node_attr(b.nodes[0], attr_int("group", c.group));
        b.graph.n_node = 1;
        char err[NNC_ERRBUF_SIZE];
        nnc_model *m;
        ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        int B = rndi(1, 3);
        int64_t nin = (int64_t)c.C * c.H * c.W, nout = (int64_t)c.M * c.oh * c.ow;
        double *xd = malloc(sizeof(double) * (size_t)(B * nin)), *yd = malloc(sizeof(double) * (size_t)(B * nout));
        float *xf = malloc(sizeof(float) * (size_t)(B * nin)), *yf = malloc(sizeof(float) * (size_t)(B * nout));
        for (int64_t q = 0; q < B * nin; q++) xd[q] = xf[q] = rndfull();
        for (int prec = 0; prec < 2; prec++) {
            run_model(m, prec, B, 2, prec ? (const void *)xd : (const void *)xf, prec ? (void *)yd : (void *)yf);
            for (int bb = 0; bb < B; bb++)
                for (int mo = 0; mo < c.M; mo++)
                    for (int64_t oy = 0; oy < c.oh; oy++)
                        for (int64_t ox = 0; ox < c.ow; ox++) {
                            int64_t o = ((int64_t)bb * c.M + mo) * c.oh * c.ow + oy * c.ow + ox;
                            double want = conv_ref(&c, xd + bb * nin, wd, bd, mo, oy, ox, !prec);
                            double got = prec ? yd[o] : (double)yf[o];
                            /* constant weights run the direct path: the definition bit for bit */
                            int ok = prec ? same_bits_d(got, want) : same_bits_f((float)got, (float)want);
                            ck_assert_msg(ok,
                                          "%s Conv C%d M%d g%d %dx%d k%dx%d s%d d%dx%d pads %d,%d,%d,%d bias %d: "
                                          "output (%d,%d,%lld,%lld) %.17g, want %.17g",
                                          prec ? "f64" : "f32", c.C, c.M, c.group, c.H, c.W, c.kh, c.kw, c.s, c.dh, c.dw,
                                          c.pt, c.pl, c.pb, c.pr, c.bias, bb, mo, (long long)oy, (long long)ox, got, want);
                        }
        }
        if (c.s == 1) direct++;
        else strided++;
        wide += c.W > 32;
        free(wf); free(wd); free(xd); free(yd); free(xf); free(yf);
        nnc_mdl_destroy(m);
    }
    ck_assert_int_gt(direct, 100);
    ck_assert_int_gt(strided, 20);
    ck_assert_int_gt(wide, 20);
}
END_TEST

/* Conv -> Relu -> MaxPool with random geometries: where the runtime fuses
 * the pool into the direct convolution's epilogue (no pool padding or
 * dilation, every window inside), the pool's output equals the maximum,
 * window by window, of the unfused Conv -> Relu's output, bit for bit, in
 * float32 and float64; inputs include NaNs and infinities.  The fusion is
 * seen happen: the pool's output can no longer be replaced
 * (nnc_rt_set_value refuses a value a fused node would write). */
/* A random geometry for the fusion tests: groups 1 or 2, up to 3 input
 * and 11 output channels, 2-14 rows and columns, kernels up to 3x3,
 * stride 1 or 2, padding 0 or 1, no dilation, bias or not.  Returns 0, or
 * -1 where the kernel does not fit the padded input (draw again). */
static int fused_conv_case(conv_case *c)
{
    memset(c, 0, sizeof *c);
    c->group = rnd() % 4 == 0 ? 2 : 1;
    c->C = c->group * rndi(1, 3);
    c->M = c->group * rndi(1, 11);
    c->H = rndi(2, 14);
    /* a wide row now and then: a fused pool's row of outputs in chunks
     * (dconv_block, pool_row512: 16 columns of window starts and more) */
    c->W = rnd() % 4 == 0 ? rndi(30, 52) : rndi(2, 14);
    c->kh = rndi(1, 3);
    c->kw = rndi(1, 3);
    c->s = rnd() % 3 == 0 ? 2 : 1;
    c->pt = rndi(0, 1);
    c->pl = rndi(0, 1);
    c->pb = rndi(0, 1);
    c->pr = rndi(0, 1);
    c->bias = (int)(rnd() & 1);
    if (c->H + c->pt + c->pb < c->kh || c->W + c->pl + c->pr < c->kw) return -1;
    c->oh = ((int64_t)c->H + c->pt + c->pb - c->kh) / c->s + 1;
    c->ow = ((int64_t)c->W + c->pl + c->pr - c->kw) / c->s + 1;
    return 0;
}

/* Random full-mantissa filters of case c (malloc'd, returned) and biases
 * bf[0..M) (M <= 22), drawn in that order. */
static float *fused_conv_weights(const conv_case *c, float *bf)
{
    int64_t nw = (int64_t)c->M * (c->C / c->group) * c->kh * c->kw;
    float *wf = malloc(sizeof(float) * (size_t)nw);
    for (int64_t q = 0; q < nw; q++) wf[q] = rndfull();
    for (int q = 0; q < c->M; q++) bf[q] = rndfull();
    return wf;
}

static nnc_status crp_model(const conv_case *c, int pk[2], int ps[2], int pool, const float *wf, const float *bf,
                            nnc_model **m, char *err, size_t errlen)
{
    static const char *in3[3] = {"x", "w", "b"}, *cy[1] = {"y"}, *ry[1] = {"r"}, *pr[1] = {"p"};
    int cg = c->C / c->group;
    int64_t xdims[4] = {1, c->C, c->H, c->W}, wdims[4] = {c->M, cg, c->kh, c->kw}, bdims[1] = {c->M};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 4, xdims);
    mb_output(&b, pool ? "p" : "r");
    b.inits[0] = tensor_floats("w", 4, wdims, wf, (size_t)(c->M * cg * c->kh * c->kw));
    b.inits[1] = tensor_floats("b", 1, bdims, bf, (size_t)c->M);
    b.graph.n_initializer = c->bias ? 2 : 1;
    b.nodes[0] = node("Conv", "c", c->bias ? 3 : 2, in3, 1, cy);
    int64_t k[2] = {c->kh, c->kw}, st[2] = {c->s, c->s}, pads[4] = {c->pt, c->pl, c->pb, c->pr}, dil[2] = {1, 1};
    node_attr(b.nodes[0], attr_ints("kernel_shape", 2, k));
    node_attr(b.nodes[0], attr_ints("strides", 2, st));
    node_attr(b.nodes[0], attr_ints("pads", 4, pads));
    node_attr(b.nodes[0], attr_ints("dilations", 2, dil));
    node_attr(b.nodes[0], attr_int("group", c->group));
    b.nodes[1] = node("Relu", "rl", 1, cy, 1, ry);
    b.graph.n_node = 2;
    if (pool) {
        int64_t q[2] = {pk[0], pk[1]}, qs[2] = {ps[0], ps[1]};
        b.nodes[2] = node("MaxPool", "mp", 1, ry, 1, pr);
        node_attr(b.nodes[2], attr_ints("kernel_shape", 2, q));
        node_attr(b.nodes[2], attr_ints("strides", 2, qs));
        b.graph.n_node = 3;
    }
    return mb_load(&b, m, err, errlen);
}

START_TEST(test_conv_relu_maxpool)
{
    int fused = 0;
    for (int it = 0; it < 120; it++) {
        conv_case c;
        if (fused_conv_case(&c)) continue;
        int pk[2] = {rndi(1, 4), rndi(1, 4)}, ps[2] = {rndi(1, 4), rndi(1, 4)};
        if (it < 6) { /* rows of 16 outputs and more whose last windows end past column 32 */
            c.W = 40 + it, c.kw = 1, c.pl = c.pr = 0, c.s = 1, c.ow = c.W;
            c.oh = (int64_t)c.H + c.pt + c.pb - c.kh + 1;
            pk[1] = 3 + it % 2, ps[1] = 2;
        } else if (it < 10) { /* windows side by side (2x2 and 4x4 with their own stride), rows of 24 to 43 */
            c.W = 24 + 6 * (it - 6) + (it % 2), c.kw = 1, c.pl = c.pr = 0, c.s = 1, c.ow = c.W;
            c.oh = (int64_t)c.H + c.pt + c.pb - c.kh + 1;
            pk[0] = pk[1] = ps[0] = ps[1] = it % 2 ? 4 : 2;
        }
        if (pk[0] > c.oh || pk[1] > c.ow) continue;
        int64_t ph = (c.oh - pk[0]) / ps[0] + 1, pw = (c.ow - pk[1]) / ps[1] + 1;
        float bf[64], *wf = fused_conv_weights(&c, bf);
        char err[NNC_ERRBUF_SIZE];
        nnc_model *mr, *mp;
        ck_assert_msg(crp_model(&c, pk, ps, 0, wf, bf, &mr, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        ck_assert_msg(crp_model(&c, pk, ps, 1, wf, bf, &mp, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        nnc_runtime *rt;
        ck_assert(nnc_rt_create(&rt, mp, NNC_PRECISION_F32, 1, err, sizeof err) == 0);
        float dummy[1];
        fused += nnc_rt_set_value(rt, "p", dummy, err, sizeof err) != NNC_STATUS_OK;
        nnc_rt_destroy(rt);
        int B = rndi(1, 3);
        int64_t nin = (int64_t)c.C * c.H * c.W, nr = (int64_t)c.M * c.oh * c.ow, np = (int64_t)c.M * ph * pw;
        double *xd = malloc(sizeof(double) * (size_t)(B * nin)), *rd = malloc(sizeof(double) * (size_t)(B * nr));
        double *pd = malloc(sizeof(double) * (size_t)(B * np));
        float *xf = malloc(sizeof(float) * (size_t)(B * nin)), *rf = malloc(sizeof(float) * (size_t)(B * nr));
        float *pf = malloc(sizeof(float) * (size_t)(B * np));
        for (int64_t q = 0; q < B * nin; q++) {
            uint32_t r = rnd() % 64;
            xd[q] = xf[q] = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY : rndfull();
        }
        for (int prec = 0; prec < 2; prec++) {
            run_model(mr, prec, B, 2, prec ? (const void *)xd : (const void *)xf, prec ? (void *)rd : (void *)rf);
            run_model(mp, prec, B, 2, prec ? (const void *)xd : (const void *)xf, prec ? (void *)pd : (void *)pf);
            for (int64_t bm = 0; bm < (int64_t)B * c.M; bm++)
                for (int64_t py = 0; py < ph; py++)
                    for (int64_t px = 0; px < pw; px++) {
                        double want = -INFINITY;
                        for (int ki = 0; ki < pk[0]; ki++)
                            for (int kj = 0; kj < pk[1]; kj++) {
                                int64_t o = bm * c.oh * c.ow + (py * ps[0] + ki) * c.ow + px * ps[1] + kj;
                                double v = prec ? rd[o] : (double)rf[o];
                                ck_assert(v == v && !signbit(v)); /* the ReLU's values: +0 or above */
                                if (v > want) want = v;
                            }
                        int64_t o = (bm * ph + py) * pw + px;
                        int ok = prec ? same_bits_d(pd[o], want) : same_bits_f(pf[o], (float)want);
                        ck_assert_msg(ok, "%s C%d M%d g%d %dx%d k%dx%d s%d pool k%dx%d s%dx%d: (%lld,%lld,%lld) %.17g, want %.17g",
                                      prec ? "f64" : "f32", c.C, c.M, c.group, c.H, c.W, c.kh, c.kw, c.s, pk[0], pk[1],
                                      ps[0], ps[1], (long long)bm, (long long)py, (long long)px,
                                      prec ? pd[o] : (double)pf[o], want);
                    }
        }
        free(wf); free(xd); free(rd); free(pd); free(xf); free(rf); free(pf);
        nnc_mdl_destroy(mr);
        nnc_mdl_destroy(mp);
    }
    ck_assert_int_gt(fused, 60);
}
END_TEST

/* x -> Conv -> "c"; s -> Tanh -> "n" (before the Conv in the node order, or
 * after it: kind 1, 2), or s itself (kind 0); Add(c, that) or Add(that, c)
 * -> "a"; then Relu -> "y" (relu) or "a" the output.  With c_out, "c" is a
 * graph output too (two uses: nothing fused, the reference). */
static nnc_status cra_model(const conv_case *c, int kind, int swap, int relu, int c_out, const float *wf, const float *bf,
                            nnc_model **m, char *err, size_t errlen)
{
    static const char *in3[3] = {"x", "w", "b"}, *cy[1] = {"c"}, *sx[1] = {"s"}, *nx[1] = {"n"}, *ay[1] = {"a"},
                      *yy[1] = {"y"};
    static const char *add_cn[2] = {"c", "n"}, *add_nc[2] = {"n", "c"}, *add_cs[2] = {"c", "s"}, *add_sc[2] = {"s", "c"};
    int cg = c->C / c->group;
    int64_t xdims[4] = {1, c->C, c->H, c->W}, sdims[4] = {1, c->M, c->oh, c->ow}, wdims[4] = {c->M, cg, c->kh, c->kw},
            bdims[1] = {c->M};
    mb b;
    mb_init(&b, 13);
    mb_input(&b, "x", 4, xdims);
    mb_input(&b, "s", 4, sdims);
    mb_output(&b, relu ? "y" : "a");
    if (c_out) mb_output(&b, "c");
    b.inits[0] = tensor_floats("w", 4, wdims, wf, (size_t)(c->M * cg * c->kh * c->kw));
    b.inits[1] = tensor_floats("b", 1, bdims, bf, (size_t)c->M);
    b.graph.n_initializer = c->bias ? 2 : 1;
    int nn = 0;
    if (kind == 1) b.nodes[nn++] = node("Tanh", "ng", 1, sx, 1, nx);
    Onnx__NodeProto *cv = b.nodes[nn++] = node("Conv", "cv", c->bias ? 3 : 2, in3, 1, cy);
    int64_t k[2] = {c->kh, c->kw}, st[2] = {c->s, c->s}, pads[4] = {c->pt, c->pl, c->pb, c->pr}, dil[2] = {1, 1};
    node_attr(cv, attr_ints("kernel_shape", 2, k));
    node_attr(cv, attr_ints("strides", 2, st));
    node_attr(cv, attr_ints("pads", 4, pads));
    node_attr(cv, attr_ints("dilations", 2, dil));
    node_attr(cv, attr_int("group", c->group));
    if (kind == 2) b.nodes[nn++] = node("Tanh", "ng", 1, sx, 1, nx);
    b.nodes[nn++] = node("Add", "ad", 2, kind ? (swap ? add_nc : add_cn) : (swap ? add_sc : add_cs), 1, ay);
    if (relu) b.nodes[nn++] = node("Relu", "rl", 1, ay, 1, yy);
    b.graph.n_node = (size_t)nn;
    return mb_load(&b, m, err, errlen);
}

/* Conv -> Add -> Relu fused (the residual operand written before the Conv
 * runs): the same bits as unfused, on random geometries, operand orders and
 * producers of the operand, in float32 and float64, with NaN and infinities
 * among the inputs; fused exactly where the operand is ready (detected by
 * nnc_rt_set_value, which refuses a fused Conv's output). */
START_TEST(test_conv_add_relu)
{
    int fused = 0, cases = 0;
    for (int it = 0; it < 120; it++) {
        conv_case c;
        if (fused_conv_case(&c)) continue;
        int kind = (int)(rnd() % 3), swap = (int)(rnd() & 1), relu = rnd() % 4 != 0;
        float bf[64], *wf = fused_conv_weights(&c, bf);
        char err[NNC_ERRBUF_SIZE];
        nnc_model *mf, *mr;
        ck_assert_msg(cra_model(&c, kind, swap, relu, 0, wf, bf, &mf, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        ck_assert_msg(cra_model(&c, kind, swap, relu, 1, wf, bf, &mr, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        nnc_runtime *rt;
        float dummy[1];
        ck_assert(nnc_rt_create(&rt, mf, NNC_PRECISION_F32, 1, err, sizeof err) == 0);
        int fz = nnc_rt_set_value(rt, "c", dummy, err, sizeof err) != NNC_STATUS_OK;
        nnc_rt_destroy(rt);
        ck_assert(nnc_rt_create(&rt, mr, NNC_PRECISION_F32, 1, err, sizeof err) == 0);
        ck_assert_msg(nnc_rt_set_value(rt, "c", dummy, err, sizeof err) == NNC_STATUS_OK, "reference fused: %s", err);
        nnc_rt_destroy(rt);
        ck_assert_msg(fz == (kind != 2), "kind %d: fused %d", kind, fz); /* an operand written after the Conv: not */
        fused += fz;
        cases++;
        int B = rndi(1, 3);
        int64_t nin = (int64_t)c.C * c.H * c.W, no = (int64_t)c.M * c.oh * c.ow;
        double *xd = malloc(sizeof(double) * (size_t)(B * nin)), *sd = malloc(sizeof(double) * (size_t)(B * no));
        float *xf = malloc(sizeof(float) * (size_t)(B * nin)), *sf = malloc(sizeof(float) * (size_t)(B * no));
        double *yd[2], *cd = malloc(sizeof(double) * (size_t)(B * no));
        float *yf[2], *cf = malloc(sizeof(float) * (size_t)(B * no));
        for (int k = 0; k < 2; k++) {
            yd[k] = malloc(sizeof(double) * (size_t)(B * no));
            yf[k] = malloc(sizeof(float) * (size_t)(B * no));
        }
        for (int64_t q = 0; q < B * nin; q++) {
            uint32_t r = rnd() % 64;
            xd[q] = xf[q] = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY : rndfull();
        }
        for (int64_t q = 0; q < B * no; q++) {
            uint32_t r = rnd() % 64;
            sd[q] = sf[q] = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY : rndfull();
        }
        for (int prec = 0; prec < 2; prec++) {
            nnc_model *ms[2] = {mf, mr};
            for (int k = 0; k < 2; k++) {
                nnc_runtime *r2;
                ck_assert(nnc_rt_create(&r2, ms[k], prec ? NNC_PRECISION_F64 : NNC_PRECISION_F32, B, err, sizeof err) == 0);
                const void *ins[2] = {prec ? (const void *)xd : (const void *)xf, prec ? (const void *)sd : (const void *)sf};
                void *outs[2] = {prec ? (void *)yd[k] : (void *)yf[k], prec ? (void *)cd : (void *)cf};
                ck_assert_msg(nnc_rt_run(r2, B, ins, outs, err, sizeof err) == NNC_STATUS_OK, "%s", err);
                nnc_rt_destroy(r2);
            }
            for (int64_t q = 0; q < B * no; q++) {
                int ok = prec ? same_bits_d(yd[0][q], yd[1][q]) : same_bits_f(yf[0][q], yf[1][q]);
                ck_assert_msg(ok, "%s C%d M%d g%d %dx%d k%dx%d s%d kind %d swap %d relu %d: %lld: %.17g, want %.17g",
                              prec ? "f64" : "f32", c.C, c.M, c.group, c.H, c.W, c.kh, c.kw, c.s, kind, swap, relu,
                              (long long)q, prec ? yd[0][q] : (double)yf[0][q], prec ? yd[1][q] : (double)yf[1][q]);
            }
        }
        for (int k = 0; k < 2; k++) {
            free(yd[k]);
            free(yf[k]);
        }
        free(wf); free(xd); free(sd); free(xf); free(sf); free(cd); free(cf);
        nnc_mdl_destroy(mf);
        nnc_mdl_destroy(mr);
    }
    ck_assert_int_gt(fused, cases / 2);
}
END_TEST

/* A Conv of constants is folded at load time (float64, then rounded to
 * float32 as ONNX requires), by the direct path preparing its filters on
 * the fly: y = z + Conv(x0, w) with x0 and w initializers, run at z = 0. */
START_TEST(test_conv_folded)
{
    for (int it = 0; it < 40; it++) {
        conv_case c = {0};
        c.group = 1;
        c.C = rndi(1, 3);
        c.M = rndi(1, 10);
        c.H = rndi(2, 9);
        c.W = rndi(2, 9);
        c.kh = rndi(1, 2);
        c.kw = rndi(1, 2);
        c.s = rndi(1, 2);
        c.dh = c.dw = 1;
        c.pt = rndi(0, 1);
        c.pl = rndi(0, 1);
        c.pb = rndi(0, 1);
        c.pr = rndi(0, 1);
        c.oh = ((int64_t)c.H + c.pt + c.pb - c.kh) / c.s + 1;
        c.ow = ((int64_t)c.W + c.pl + c.pr - c.kw) / c.s + 1;
        int64_t nw = (int64_t)c.M * c.C * c.kh * c.kw, nin = (int64_t)c.C * c.H * c.W, nout = (int64_t)c.M * c.oh * c.ow;
        float *wf = malloc(sizeof(float) * (size_t)nw), *xf = malloc(sizeof(float) * (size_t)nin);
        double *wd = malloc(sizeof(double) * (size_t)nw), *xd = malloc(sizeof(double) * (size_t)nin);
        for (int64_t q = 0; q < nw; q++) wd[q] = wf[q] = rndfull();
        for (int64_t q = 0; q < nin; q++) xd[q] = xf[q] = rndfull();
        static const char *ci[2] = {"x0", "w"}, *co[1] = {"c"}, *ai[2] = {"z", "c"}, *ao[1] = {"y"};
        int64_t xdims[4] = {1, c.C, c.H, c.W}, wdims[4] = {c.M, c.C, c.kh, c.kw}, zdims[4] = {1, c.M, c.oh, c.ow};
        mb b;
        mb_init(&b, 13);
        mb_input(&b, "z", 4, zdims);
        mb_output(&b, "y");
        b.inits[0] = tensor_floats("x0", 4, xdims, xf, (size_t)nin);
        b.inits[1] = tensor_floats("w", 4, wdims, wf, (size_t)nw);
        b.graph.n_initializer = 2;
        b.nodes[0] = node("Conv", "c", 2, ci, 1, co);
        int64_t k[2] = {c.kh, c.kw}, st[2] = {c.s, c.s}, pads[4] = {c.pt, c.pl, c.pb, c.pr};
        node_attr(b.nodes[0], attr_ints("kernel_shape", 2, k));
        node_attr(b.nodes[0], attr_ints("strides", 2, st));
        node_attr(b.nodes[0], attr_ints("pads", 4, pads));
        b.nodes[1] = node("Add", "a", 2, ai, 1, ao);
        b.graph.n_node = 2;
        char err[NNC_ERRBUF_SIZE];
        nnc_model *m;
        ck_assert_msg(mb_load(&b, &m, err, sizeof err) == NNC_STATUS_OK, "%s", err);
        float *z = calloc((size_t)nout, sizeof(float)), *y = malloc(sizeof(float) * (size_t)nout);
        run_model(m, 0, 1, 2, z, y);
        for (int mo = 0; mo < c.M; mo++)
            for (int64_t oy = 0; oy < c.oh; oy++)
                for (int64_t ox = 0; ox < c.ow; ox++) {
                    float want = (float)conv_ref(&c, xd, wd, NULL, mo, oy, ox, 0), got = y[(mo * c.oh + oy) * c.ow + ox];
                    ck_assert_msg(got == want, "folded Conv C%d M%d %dx%d k%dx%d s%d: output (%d,%lld,%lld) %.9g, want %.9g",
                                  c.C, c.M, c.H, c.W, c.kh, c.kw, c.s, mo, (long long)oy, (long long)ox, (double)got,
                                  (double)want);
                }
        free(wf); free(xf); free(wd); free(xd); free(z); free(y);
        nnc_mdl_destroy(m);
    }
}
END_TEST

/* The zoo model at batch B (several tiles) on 1, 2 and 3 threads: the same
 * bits; singles: the batch-1 runs, which match sample by sample when the
 * model's products are the runtime's own (row-independent) kernels. */
static void tiles_case(const char *path, int B, int singles)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    ck_assert_msg(nnc_mdl_load(&m, path, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_tensor_info ti, to;
    nnc_mdl_input_info(m, 0, &ti);
    nnc_mdl_output_info(m, 0, &to);
    float *x = malloc(sizeof(float) * (size_t)(B * ti.numel));
    float *y[4];
    for (int k = 0; k < 4; k++) y[k] = malloc(sizeof(float) * (size_t)(B * to.numel));
    for (int64_t q = 0; q < B * ti.numel; q++) x[q] = (float)(rnd() % 1000) / 1000.0f;
    /* float64 too: its products run in OpenBLAS, in row blocks */
    double *xd = malloc(sizeof(double) * (size_t)(B * ti.numel)), *yd[3];
    for (int k = 0; k < 3; k++) yd[k] = malloc(sizeof(double) * (size_t)(B * to.numel));
    for (int64_t q = 0; q < B * ti.numel; q++) xd[q] = x[q];
    for (int th = 1; th <= 3; th++)
        for (int prec = 0; prec < 2; prec++) {
            void *out = prec ? (void *)yd[th - 1] : (void *)y[th - 1];
            run_model(m, prec, B, th, prec ? (const void *)xd : (const void *)x, out);
            size_t bytes = (prec ? sizeof(double) : sizeof(float)) * (size_t)(B * to.numel);
            if (th > 1)
                ck_assert_msg(memcmp(prec ? (void *)yd[0] : (void *)y[0], out, bytes) == 0,
                              "%s batch %d %s: %d threads differ from 1", path, B, prec ? "float64" : "float32", th);
        }
    for (int k = 0; k < 3; k++) free(yd[k]);
    free(xd);
    ck_assert(nnc_rt_set_threads(NULL, 0) == NNC_STATUS_ARG);
    if (singles) {
        nnc_runtime *rt;
        ck_assert(nnc_rt_create(&rt, m, NNC_PRECISION_F32, 1, err, sizeof err) == 0);
        for (int b = 0; b < B; b++) {
            const void *ins[1] = {x + (size_t)b * (size_t)ti.numel};
            void *outs[1] = {y[3] + (size_t)b * (size_t)to.numel};
            ck_assert(nnc_rt_run(rt, 1, ins, outs, err, sizeof err) == NNC_STATUS_OK);
        }
        nnc_rt_destroy(rt);
        ck_assert_msg(memcmp(y[0], y[3], sizeof(float) * (size_t)(B * to.numel)) == 0,
                      "%s: batch %d differs from single samples", path, B);
    }
    for (int k = 0; k < 4; k++) free(y[k]);
    free(x);
    nnc_mdl_destroy(m);
}

START_TEST(test_tiles_threads)
{
    tiles_case("models/zoo/cnn.onnx", 77, 1);
    tiles_case("models/zoo/mlp.onnx", 777, 1);
}
END_TEST

int main(void)
{
    harness_seed("test_runtime");
    Suite *s = suite_create("runtime");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_pool_geometries);
    tcase_add_test(tc, test_pad_constant);
    tcase_add_test(tc, test_conv_geometries);
    tcase_add_test(tc, test_conv_folded);
    tcase_add_test(tc, test_conv_relu_maxpool);
    tcase_add_test(tc, test_conv_add_relu);
    tcase_add_test(tc, test_tiles_threads);
    suite_add_tcase(s, tc);
    return check_main_run(s);
}
