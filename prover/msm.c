/* Multi-scalar multiplication on BN254 G1 and G2 (CPU): Pippenger with
 * Booth-recoded signed windows, buckets filled by batched affine additions
 * (one shared inversion per batch of up to 1024 additions), threads taking
 * (window, chunk of points) tasks.  The algorithm and the recoding are
 * described in prover/msm_impl.h.
 *
 * Automatic method by n (measured with tests/bench/bench_prover.c):
 *   n < NNC_MSM_NAIVE_BELOW        one wNAF multiplication per point
 *   n < NNC_MSM_AFFINE_FROM        Jacobian buckets, window nnc_msm_window(n, 0)
 *   otherwise                      affine buckets,   window nnc_msm_window(n, 1) */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prover/msm_impl.h"
#include "prover/fq_ifma.h"

#define NNC_MSM_NAIVE_BELOW 8
#define NNC_MSM_AFFINE_FROM 256

/* Returns: the number of online CPUs, 1 if unknown, at most 256. */
static int nnc_msm_default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > 256 ? 256 : (int)n;
}

/* k1[2], k2[2] little-endian magnitudes with k = (-1)^neg1 k1 + (-1)^neg2 k2 lambda (mod r). */
static void glv_mul3(uint64_t r[3], const uint64_t *a, int an, const uint64_t *b, int bn)
{
    int i, j;
    r[0] = r[1] = r[2] = 0;
    for (i = 0; i < an; i++) {
        uint64_t carry = 0;
        for (j = 0; j < bn && i + j < 3; j++) {
            unsigned __int128 t = (unsigned __int128)a[i] * b[j] + r[i + j] + carry;
            r[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        if (i + j < 3)
            r[i + j] += carry;
    }
}

/* floor(k g / 2^256) for k < 2^256 and g of gn <= 3 limbs; the caller's
 * bounds keep it below 2^128. */
static void glv_mulhi(uint64_t out[2], const uint64_t k[4], const uint64_t *g, int gn)
{
    uint64_t t[7] = {0, 0, 0, 0, 0, 0, 0};
    int i, j;
    for (i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (j = 0; j < gn; j++) {
            unsigned __int128 x = (unsigned __int128)k[i] * g[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)x;
            carry = (uint64_t)(x >> 64);
        }
        t[i + gn] = carry;
    }
    out[0] = t[4];
    out[1] = t[5];
}

/* r = a - b mod 2^192 */
static void glv_sub3(uint64_t r[3], const uint64_t a[3], const uint64_t b[3])
{
    unsigned __int128 t;
    uint64_t br;
    t = (unsigned __int128)a[0] - b[0];
    r[0] = (uint64_t)t;
    br = (uint64_t)(t >> 64) & 1;
    t = (unsigned __int128)a[1] - b[1] - br;
    r[1] = (uint64_t)t;
    br = (uint64_t)(t >> 64) & 1;
    r[2] = a[2] - b[2] - br;
}

/* Out: m[2] = |x|, returns 1 if x < 0, for x a 192-bit two's complement
 * value with |x| < 2^128. */
static int glv_abs(uint64_t m[2], const uint64_t x[3])
{
    const uint64_t zero[3] = {0, 0, 0};
    uint64_t t[3];
    if (x[2] >> 63) {
        glv_sub3(t, zero, x);
        m[0] = t[0];
        m[1] = t[1];
        return 1;
    }
    m[0] = x[0];
    m[1] = x[1];
    return 0;
}

void nnc_msm_glv_split(uint64_t k1[2], int *neg1, uint64_t k2[2], int *neg2, const uint64_t k[4])
{
    /* g1 = floor(2^256 b2 / r), g2 = floor(2^256 |b1| / r); c_i = floor(k g_i / 2^256)
     * are the rounded-down coordinates of (k, 0) in the basis v1, v2 (error
     * below 1 + k/2^256 < 5/4 each), so (k1, k2) = (k, 0) - c1 v1 - c2 v2 =
     * e1 v1 + e2 v2 with e_i in [0, 5/4): k1 = e1 a1 + e2 a2 in [0, 2^128),
     * k2 = e1 b1 + e2 b2 in (-2^127, 2^64). */
    static const uint64_t g1[2] = {0xd91d232ec7e0b3d7ULL, 0x0000000000000002ULL};
    static const uint64_t g2[3] = {0x7a7bd9d4391eb18dULL, 0x4ccef014a773d2cfULL, 0x0000000000000002ULL};
    static const uint64_t a1[1] = {0x89d3256894d213e3ULL};                          /* = b2 */
    static const uint64_t a2[2] = {0x0be4e1541221250bULL, 0x6f4d8248eeb859fdULL};
    static const uint64_t mb1[2] = {0x8211bbeb7d4f1128ULL, 0x6f4d8248eeb859fcULL}; /* -b1 */
    uint64_t c1[2], c2[2], t[3], u[3], x[3];
    glv_mulhi(c1, k, g1, 2);
    glv_mulhi(c2, k, g2, 3);
    /* k1 = k - c1 a1 - c2 a2 */
    x[0] = k[0];
    x[1] = k[1];
    x[2] = k[2];
    glv_mul3(t, c1, 2, a1, 1);
    glv_sub3(x, x, t);
    glv_mul3(t, c2, 2, a2, 2);
    glv_sub3(x, x, t);
    *neg1 = glv_abs(k1, x);
    /* k2 = c1 |b1| - c2 b2 */
    glv_mul3(t, c1, 2, mb1, 2);
    glv_mul3(u, c2, 2, a1, 1);
    glv_sub3(x, t, u);
    *neg2 = glv_abs(k2, x);
}

/* phi(x, y) = (beta x, y) = [lambda](x, y) on G1 (beta a primitive cube root
 * of unity in Fq, Montgomery form; tests/unit/test_prover_msm.c checks the
 * pairing with lambda). */
static void msm_g1_endo(nnc_g1 *r, const nnc_g1 *p)
{
    static const nnc_fq beta = {{0x71930c11d782e155ULL, 0xa6bb947cffbe3323ULL, 0xaa303344d4741444ULL,
                                 0x2c3b3f0d26594943ULL}};
    nnc_fq_mul(&r->x, &p->x, &beta);
    r->y = p->y;
}

size_t nnc_msm_run_terms;
void nnc_msm_set_run_terms(size_t terms) { nnc_msm_run_terms = terms; }

#define NNC_MSM_ENDO(r, p) msm_g1_endo(r, p)
#define NNC_MSM_G(op) nnc_g1_##op
#define NNC_MSM_F(op) nnc_fq_##op
#define NNC_MSM_FE nnc_fq
#define NNC_MSM_AFF nnc_g1
#define NNC_MSM_JAC nnc_g1_jac
#define NNC_MSM_P(name) msm_g1_##name
/* G1 buckets: 8-lane IFMA flush where the CPU has it (NNC_NO_IFMA=1 off) */
#define NNC_MSM_VEC_ON() nnc_fq_ifma_enabled()
#define NNC_MSM_VEC_SCRATCH(cap) nnc_g1_ifma_scratch_bytes(cap)
#define NNC_MSM_VEC_FLUSH(bk, qb, qp, qd, qdbl, nq, scratch) \
    nnc_g1_ifma_add_batch(bk, qb, qp, qd, qdbl, nq, scratch)
#define NNC_MSM_VEC_REDUCE(r, bk, h) nnc_g1_ifma_bucket_sum(r, bk, h)
#define NNC_MSM_VEC_REDUCE_MIN 64
#include "prover/msm_impl.h"
#undef NNC_MSM_VEC_REDUCE
#undef NNC_MSM_VEC_REDUCE_MIN
#undef NNC_MSM_VEC_ON
#undef NNC_MSM_VEC_SCRATCH
#undef NNC_MSM_VEC_FLUSH
#undef NNC_MSM_ENDO
#undef NNC_MSM_G
#undef NNC_MSM_F
#undef NNC_MSM_FE
#undef NNC_MSM_AFF
#undef NNC_MSM_JAC
#undef NNC_MSM_P

#define NNC_MSM_G(op) nnc_g2_##op
#define NNC_MSM_F(op) nnc_fq2_##op
#define NNC_MSM_FE nnc_fq2
#define NNC_MSM_AFF nnc_g2
#define NNC_MSM_JAC nnc_g2_jac
#define NNC_MSM_P(name) msm_g2_##name
#include "prover/msm_impl.h"
#undef NNC_MSM_G
#undef NNC_MSM_F
#undef NNC_MSM_FE
#undef NNC_MSM_AFF
#undef NNC_MSM_JAC
#undef NNC_MSM_P

void nnc_prv_g1_msm(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n,
                    int threads)
{
    msm_g1_msm(out, points, scalars, n, threads, NNC_MSM_METHOD_AUTO, 0);
}

void nnc_prv_g1_msm2(nnc_prv_g1 *out, const nnc_prv_g1 *p1, const nnc_prv_fr *s1, size_t n1, const nnc_prv_g1 *p2,
                     const nnc_prv_fr *s2, size_t n2, int threads)
{
    msm_g1_seg sg[2];
    sg[0].pts = p1;
    sg[0].sc = s1;
    sg[0].n = n1;
    sg[1].pts = p2;
    sg[1].sc = s2;
    sg[1].n = n2;
    msm_g1_msm_segs(out, sg, 2, threads, NNC_MSM_METHOD_AUTO, 0);
}

void nnc_prv_g2_msm(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n,
                    int threads)
{
    msm_g2_msm(out, points, scalars, n, threads, NNC_MSM_METHOD_AUTO, 0);
}

void nnc_prv_g1_msm_cfg(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n,
                        int threads, nnc_msm_method method, int c)
{
    msm_g1_msm(out, points, scalars, n, threads, method, c);
}

void nnc_prv_g2_msm_cfg(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n,
                        int threads, nnc_msm_method method, int c)
{
    msm_g2_msm(out, points, scalars, n, threads, method, c);
}
