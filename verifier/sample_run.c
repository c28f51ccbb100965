/* The float32 screen with a running (per-sample) error bound: a dense
 * chain evaluated in float32 on tiles of 16 samples (one vector lane each),
 * with, beside every neuron's value, the bound s_j >= |ĥ_j - h64_j| on its
 * distance to the float64 reference runtime's value, built from the
 * magnitudes actually met (formulas and proof: verifier/sample_math.h).
 * Unlike the a priori bound over a whole box, it stays tight on deep nets
 * (ACAS Xu) because inactive ReLUs with a clear margin stop the error. */
#include "verifier/sample_impl.h"

#include "verifier/sample_math.h"
#include "common/isa.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LANES 16

typedef struct run_layer {
    int K, N, relu;
    float *w, *aw;        /* [K][N]: weights and their magnitudes */
    float *b, *gb, *t;    /* N: bias, rounded-up g |b|, underflow term */
    float a, g, c;        /* nnc_smp_run_consts(K) */
} run_layer;

struct nnc_smp_run {
    int n_layers, n_in, n_out, width;
    run_layer *L;
};

void nnc_smp_run_free(nnc_smp_run *r)
{
    if (r == NULL) return;
    for (int l = 0; l < r->n_layers; l++) {
        free(r->L[l].w); free(r->L[l].aw); free(r->L[l].b); free(r->L[l].gb); free(r->L[l].t);
    }
    free(r->L);
    free(r);
}

nnc_status nnc_smp_run_create(nnc_smp_run **out, const nnc_smp_chain *ch)
{
    *out = NULL;
    if (!ch->float_weights) return NNC_STATUS_UNSUPPORTED;
    nnc_smp_run *r = calloc(1, sizeof *r);
    if (r == NULL) return NNC_STATUS_NOMEM;
    r->L = calloc((size_t)ch->n_layers, sizeof *r->L);
    if (r->L == NULL) {
        free(r);
        return NNC_STATUS_NOMEM;
    }
    r->n_layers = ch->n_layers;
    r->n_in = ch->n_in;
    r->n_out = ch->n_out;
    r->width = ch->n_in;
    for (int l = 0; l < ch->n_layers; l++) {
        const nnc_gpu_dense *D = &ch->layers[l];
        run_layer *L = &r->L[l];
        size_t KN = (size_t)D->K * (size_t)D->N;
        L->K = D->K;
        L->N = D->N;
        L->relu = D->relu;
        if (D->N > r->width) r->width = D->N;
        L->w = malloc(sizeof(float) * KN);
        L->aw = malloc(sizeof(float) * KN);
        L->b = malloc(sizeof(float) * (size_t)D->N);
        L->gb = malloc(sizeof(float) * (size_t)D->N);
        L->t = malloc(sizeof(float) * (size_t)D->N);
        if (!L->w || !L->aw || !L->b || !L->gb || !L->t) {
            nnc_smp_run_free(r);
            return NNC_STATUS_NOMEM;
        }
        nnc_smp_run_consts(D->K, &L->a, &L->g, &L->c);
        for (size_t i = 0; i < KN; i++) { /* float values: exact */
            L->w[i] = (float)D->w[i];
            L->aw[i] = fabsf(L->w[i]);
        }
        for (int j = 0; j < D->N; j++) {
            double colsum = 0;
            for (int k = 0; k < D->K; k++) colsum += fabs(D->w[(size_t)k * (size_t)D->N + (size_t)j]);
            L->b[j] = (float)D->b[j];
            L->gb[j] = nnc_smp_float_up((double)L->g * fabs(D->b[j]) * (1 + 1e-15));
            L->t[j] = nnc_smp_float_up(0x1p-120 * (colsum * 1.001 + (double)D->K + 8.0));
        }
    }
    *out = r;
    return NNC_STATUS_OK;
}

/* Neurons j .. j + JB - 1 of one tile: JB share each input load. */
static inline __attribute__((always_inline)) void tile_block(const run_layer *L, int j, const int JB,
                                                             const float *restrict H, const float *restrict S,
                                                             float *restrict H2, float *restrict S2)
{
    float z[8][LANES], e[8][LANES];
    for (int jj = 0; jj < JB; jj++)
        for (int q = 0; q < LANES; q++) {
            z[jj][q] = L->b[j + jj];
            e[jj][q] = L->gb[j + jj];
        }
    for (int k = 0; k < L->K; k++) {
        const float *w = L->w + (size_t)k * (size_t)L->N + (size_t)j, *aw = L->aw + (size_t)k * (size_t)L->N + (size_t)j;
        for (int jj = 0; jj < JB; jj++)
            for (int q = 0; q < LANES; q++) {
                z[jj][q] += w[jj] * H[k * LANES + q];
                e[jj][q] += aw[jj] * S[k * LANES + q];
            }
    }
    for (int jj = 0; jj < JB; jj++)
        for (int q = 0; q < LANES; q++) {
            float zz = z[jj][q];
            S2[(j + jj) * LANES + q] = nnc_smp_run_out(zz, e[jj][q], L->c, L->t[j + jj], L->relu);
            H2[(j + jj) * LANES + q] = (L->relu && zz < 0) ? 0.0f : zz; /* NaN kept */
        }
}

/* One tile: H[k][LANES] values and S[k][LANES] bounds of the layer input;
 * on return H2/S2 hold the layer output.  The lane loops vectorise. */
static inline __attribute__((always_inline)) void tile_layer(const run_layer *L, float *restrict H,
                                                             float *restrict S, float *restrict H2,
                                                             float *restrict S2)
{
    /* S becomes D_k in place */
    for (int k = 0; k < L->K; k++)
        for (int q = 0; q < LANES; q++) S[k * LANES + q] = nnc_smp_run_in(S[k * LANES + q], H[k * LANES + q], L->a, L->g);
    int j = 0;
    for (; j + 8 <= L->N; j += 8) tile_block(L, j, 8, H, S, H2, S2);
    for (; j + 2 <= L->N; j += 2) tile_block(L, j, 2, H, S, H2, S2);
    for (; j < L->N; j++) tile_block(L, j, 1, H, S, H2, S2);
}

/* Tiles t0 .. t1 - 1 of the batch; buf: 4 * width * LANES floats. */
static inline __attribute__((always_inline)) void run_tiles(const nnc_smp_run *r, int cnt, const double *xs, float *y,
                                                            float *s, int t0, int t1, float *buf)
{
    size_t wl = (size_t)r->width * LANES;
    for (int t = t0; t < t1; t++) {
        float *H = buf, *S = buf + wl, *H2 = buf + 2 * wl, *S2 = buf + 3 * wl;
        int base = t * LANES, nl = cnt - base < LANES ? cnt - base : LANES;
        for (int k = 0; k < r->n_in; k++)
            for (int q = 0; q < LANES; q++) {
                double x = q < nl ? xs[(size_t)(base + q) * (size_t)r->n_in + (size_t)k] : 0.0;
                float xf = (float)x;
                H[k * LANES + q] = xf;
                S[k * LANES + q] = nnc_smp_float_up(fabs(x - (double)xf)); /* exact difference */
            }
        for (int l = 0; l < r->n_layers; l++) {
            tile_layer(&r->L[l], H, S, H2, S2);
            float *tmp = H; H = H2; H2 = tmp;
            tmp = S; S = S2; S2 = tmp;
        }
        for (int q = 0; q < nl; q++)
            for (int i = 0; i < r->n_out; i++) {
                y[(size_t)(base + q) * (size_t)r->n_out + (size_t)i] = H[i * LANES + q];
                s[(size_t)(base + q) * (size_t)r->n_out + (size_t)i] = S[i * LANES + q];
            }
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f,avx512dq,fma"))) static void run_tiles_avx512(const nnc_smp_run *r, int cnt,
                                                                             const double *xs, float *y, float *s,
                                                                             int t0, int t1, float *buf)
{
    run_tiles(r, cnt, xs, y, s, t0, t1, buf);
}
/* the same tiles on 8-float registers (the function is the same: -std=c11
 * contracts no float expression, so the ISA changes only the width) */
__attribute__((target("avx2,fma"))) static void run_tiles_avx2(const nnc_smp_run *r, int cnt, const double *xs,
                                                               float *y, float *s, int t0, int t1, float *buf)
{
    run_tiles(r, cnt, xs, y, s, t0, t1, buf);
}
#define NNC_SMP_RUN_X86 1
#endif

static void run_tiles_plain(const nnc_smp_run *r, int cnt, const double *xs, float *y, float *s, int t0, int t1,
                            float *buf)
{
    run_tiles(r, cnt, xs, y, s, t0, t1, buf);
}

int nnc_smp_run_width(const nnc_smp_run *r) { return r->width; }

nnc_status nnc_smp_run_eval(const nnc_smp_run *r, int cnt, const double *xs, float *y, float *s, int simd)
{
    void (*fn)(const nnc_smp_run *, int, const double *, float *, float *, int, int, float *) = run_tiles_plain;
#ifdef NNC_SMP_RUN_X86
    if (simd && nnc_isa() >= NNC_ISA_AVX512) fn = run_tiles_avx512;
    else if (simd && nnc_isa() >= NNC_ISA_AVX2) fn = run_tiles_avx2;
#endif
    int ntiles = (cnt + LANES - 1) / LANES, fail = 0;
    size_t per = 4 * (size_t)r->width * LANES;
#pragma omp parallel num_threads(ntiles >= 8 ? 2 : 1) reduction(| : fail)
    {
        float *buf = malloc(sizeof(float) * per);
        if (buf == NULL) fail = 1;
#pragma omp for schedule(static)
        for (int t = 0; t < ntiles; t++)
            if (buf) fn(r, cnt, xs, y, s, t, t + 1, buf);
        free(buf);
    }
    return fail ? NNC_STATUS_NOMEM : NNC_STATUS_OK;
}
