/* Fixed-base multiplication batches for the Groth16 setup; see
 * prover/fixedbase_impl.h. */
#include "prover/fixedbase_impl.h"

#include "prover/curve_impl.h"
#include "prover/field_impl.h"
#include "prover/tower_impl.h"
#include "prover/fq_ifma.h"

#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FB_BLOCK 256      /* products normalised per inversion */
#define FB_MAX_THREADS 64

/* Threads for n products: as asked (online CPUs when < 1), at most one per
 * block and FB_MAX_THREADS. */
static int fb_thread_count(int threads, size_t n)
{
    if (threads < 1) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c < 1 ? 1 : c > FB_MAX_THREADS ? FB_MAX_THREADS : (int)c;
    }
    if (threads > FB_MAX_THREADS) threads = FB_MAX_THREADS;
    size_t blocks = (n + FB_BLOCK - 1) / FB_BLOCK;
    if ((size_t)threads > blocks) threads = (int)blocks;
    return threads;
}

#define FB_F(op) nnc_fq_##op
#define FB_G(op) nnc_g1_##op
#define FB_FE nnc_fq
#define FB_AFF nnc_g1
#define FB_JAC nnc_g1_jac
#define FB_NAME(x) fb_g1_##x
/* the 8-lane IFMA comb where the CPU has it (NNC_NO_IFMA=1 off) */
#define FB_VEC_ON() nnc_fq_ifma_enabled()
#define FB_VEC_WORDS 10
#define FB_VEC_TABLE(t5, t, n) nnc_g1_ifma_comb_table(t5, t, n)
#define FB_VEC_COMB8(p, e, t5) nnc_g1_ifma_comb8(p, e, t5)
#include "prover/fixedbase_tmpl_impl.h"

#define FB_F(op) nnc_fq2_##op
#define FB_G(op) nnc_g2_##op
#define FB_FE nnc_fq2
#define FB_AFF nnc_g2
#define FB_JAC nnc_g2_jac
#define FB_NAME(x) fb_g2_##x
#define FB_VEC_ON() nnc_fq_ifma_enabled()
#define FB_VEC_WORDS 20
#define FB_VEC_TABLE(t5, t, n) nnc_g2_ifma_comb_table(t5, t, n)
#define FB_VEC_COMB8(p, e, t5) nnc_g2_ifma_comb8(p, e, t5)
#include "prover/fixedbase_tmpl_impl.h"

int nnc_prv_g1_gen_mul_batch(nnc_prv_g1 *out, const nnc_prv_fr *k, size_t n, int threads)
{
    return fb_g1_batch(out, k, n, threads);
}

int nnc_prv_g2_gen_mul_batch(nnc_prv_g2 *out, const nnc_prv_fr *k, size_t n, int threads)
{
    return fb_g2_batch(out, k, n, threads);
}
