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

#define NNC_MSM_G(op) nnc_g1_##op
#define NNC_MSM_F(op) nnc_fq_##op
#define NNC_MSM_FE nnc_fq
#define NNC_MSM_AFF nnc_g1
#define NNC_MSM_JAC nnc_g1_jac
#define NNC_MSM_P(name) msm_g1_##name
#include "prover/msm_impl.h"
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
