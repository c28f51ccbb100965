/* NTT over Fr (CPU): radix-2 decimation in time, in place, with the
 * per-stage twiddle table of prover/ntt_impl.h (conventions there).
 *
 * Threads: every thread runs the same phases over its own share, separated
 * by a barrier: (coset shift) -> bit reversal -> the first NNC_NTT_BLOCK_LOG
 * stages inside blocks of 2^NNC_NTT_BLOCK_LOG elements (blocks dealt out
 * round-robin; a block stays in L2) -> each later stage split evenly by
 * butterfly -> (inverse: reorder and scale) -> (coset: unshift). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prover/ntt_impl.h"

/* Stages done block-locally: blocks of 2^12 elements (128 KiB). */
#define NNC_NTT_BLOCK_LOG 12
/* Below 2^NNC_NTT_MT_LOG elements one thread does everything. */
#define NNC_NTT_MT_LOG 12

/* Barrier of a fixed party count (mutex + condition; counts are set after
 * the threads exist, so a failed pthread_create just means fewer). */
typedef struct ntt_barrier {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int count;    /* parties */
    int waiting;  /* arrived in this round */
    unsigned gen; /* round number */
} ntt_barrier;

static void ntt_barrier_wait(ntt_barrier *b)
{
    unsigned g;
    pthread_mutex_lock(&b->mu);
    g = b->gen;
    if (++b->waiting == b->count) {
        b->waiting = 0;
        b->gen++;
        pthread_cond_broadcast(&b->cv);
    } else {
        while (g == b->gen)
            pthread_cond_wait(&b->cv, &b->mu);
    }
    pthread_mutex_unlock(&b->mu);
}

typedef struct ntt_job {
    nnc_fr *a;
    const nnc_fr *tw; /* [n], see nnc_ntt_twiddles */
    size_t n;
    int m;            /* n = 2^m */
    int inverse;
    int pre;          /* multiply a_j by pre_g^j before the transform */
    int post;         /* multiply a_j by post_g^j after it */
    nnc_fr pre_g, post_g;
    nnc_fr ninv;      /* 1/n, for the inverse */
    int lb;           /* stages 1..lb are block-local (blocks of 2^lb) */
    int nthreads;     /* set before the gate opens */
    int go;           /* gate, under bar.mu */
    ntt_barrier bar;
} ntt_job;

typedef struct ntt_worker {
    ntt_job *job;
    int id;
} ntt_worker;

/* [lo, hi) = share id of T of the range [0, len). */
static void ntt_share(size_t *lo, size_t *hi, size_t len, int id, int T)
{
    *lo = len * (size_t)id / (size_t)T;
    *hi = len * (size_t)(id + 1) / (size_t)T;
}

/* a[j] *= g^j for j in [lo, hi). */
static void ntt_scale_powers(nnc_fr *a, size_t lo, size_t hi, const nnc_fr *g)
{
    const uint64_t e[4] = {(uint64_t)lo, 0, 0, 0};
    nnc_fr x;
    size_t j;
    if (lo >= hi)
        return;
    nnc_fr_pow(&x, g, e);
    for (j = lo; j < hi; j++) {
        nnc_fr_mul(&a[j], &a[j], &x);
        nnc_fr_mul(&x, &x, g);
    }
}

/* Stages with half-spans 1 .. 2^(lb-1) on the block a[0 .. 2^lb). */
static void ntt_block(nnc_fr *a, const nnc_fr *tw, int lb)
{
    size_t L = (size_t)1 << lb, h, s, j;
    for (h = 1; h < L; h *= 2)
        for (s = 0; s < L; s += 2 * h)
            for (j = 0; j < h; j++)
                nnc_ntt_butterfly(&a[s + j], &a[s + j + h], &tw[h + j]);
}

static void *ntt_work(void *arg)
{
    ntt_worker *wk = (ntt_worker *)arg;
    ntt_job *jb = wk->job;
    nnc_fr *a = jb->a;
    size_t n = jb->n, lo, hi, i, h;
    int T, id = wk->id;

    pthread_mutex_lock(&jb->bar.mu);
    while (!jb->go)
        pthread_cond_wait(&jb->bar.cv, &jb->bar.mu);
    T = jb->nthreads;
    pthread_mutex_unlock(&jb->bar.mu);

    if (jb->pre) {
        ntt_share(&lo, &hi, n, id, T);
        ntt_scale_powers(a, lo, hi, &jb->pre_g);
        ntt_barrier_wait(&jb->bar);
    }
    /* bit reversal: pair (i, rev i) belongs to the owner of its smaller index */
    ntt_share(&lo, &hi, n, id, T);
    for (i = lo; i < hi; i++) {
        size_t r = nnc_ntt_bitrev(i, jb->m);
        if (i < r) {
            nnc_fr t = a[i];
            a[i] = a[r];
            a[r] = t;
        }
    }
    ntt_barrier_wait(&jb->bar);
    for (i = (size_t)id; i < (n >> jb->lb); i += (size_t)T)
        ntt_block(a + (i << jb->lb), jb->tw, jb->lb);
    ntt_barrier_wait(&jb->bar);
    for (h = (size_t)1 << jb->lb; h < n; h *= 2) {
        size_t k;
        ntt_share(&lo, &hi, n / 2, id, T);
        for (k = lo; k < hi; k++) {
            size_t j = k & (h - 1), i0 = ((k - j) << 1) + j;
            nnc_ntt_butterfly(&a[i0], &a[i0 + h], &jb->tw[h + j]);
        }
        ntt_barrier_wait(&jb->bar);
    }
    if (jb->inverse) {
        /* A_i <- A_(-i mod n) / n: pairs (i, n - i) for 0 < i < n/2, owner i */
        ntt_share(&lo, &hi, n / 2 + 1, id, T);
        for (i = lo; i < hi; i++) {
            if (i == 0 || 2 * i == n) {
                nnc_fr_mul(&a[i], &a[i], &jb->ninv);
            } else if (i < n - i) {
                nnc_fr t;
                nnc_fr_mul(&t, &a[i], &jb->ninv);
                nnc_fr_mul(&a[i], &a[n - i], &jb->ninv);
                a[n - i] = t;
            }
        }
        if (jb->post)
            ntt_barrier_wait(&jb->bar);
    }
    if (jb->post) {
        ntt_share(&lo, &hi, n, id, T);
        ntt_scale_powers(a, lo, hi, &jb->post_g);
    }
    return NULL;
}

/* The transform with optional coset shifts; pre/post g may be NULL. */
static nnc_status ntt_run(nnc_fr *a, size_t n, int inverse, const nnc_fr *pre_g, const nnc_fr *post_g,
                          int threads)
{
    ntt_job jb;
    ntt_worker wk[256];
    pthread_t tid[256];
    nnc_fr *tw;
    int m = nnc_ntt_log2(n), T, t, created = 0;

    if (m < 0)
        return NNC_STATUS_INVALID;
    if (m > NNC_PRV_NTT_MAX_LOG)
        return NNC_STATUS_LIMIT;
    if (n == 1) /* a(g) = a_0 for every g: nothing to do */
        return NNC_STATUS_OK;
    if (!(tw = (nnc_fr *)malloc(n * sizeof *tw)))
        return NNC_STATUS_NOMEM;
    nnc_ntt_twiddles(tw, n, m);

    memset(&jb, 0, sizeof jb);
    jb.a = a;
    jb.tw = tw;
    jb.n = n;
    jb.m = m;
    jb.inverse = inverse;
    if (pre_g) {
        jb.pre = 1;
        jb.pre_g = *pre_g;
    }
    if (post_g) {
        jb.post = 1;
        jb.post_g = *post_g;
    }
    if (inverse) {
        nnc_fr_set_u64(&jb.ninv, (uint64_t)n);
        nnc_fr_inv_var(&jb.ninv, &jb.ninv);
    }
    if (threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c < 1 ? 1 : (int)c;
    }
    T = m < NNC_NTT_MT_LOG ? 1 : threads;
    if (T > 256)
        T = 256;
    jb.lb = m < NNC_NTT_BLOCK_LOG ? m : NNC_NTT_BLOCK_LOG;
    while (jb.lb > 1 && (n >> jb.lb) < (size_t)T * 2)
        jb.lb--; /* at least two blocks per thread */
    pthread_mutex_init(&jb.bar.mu, NULL);
    pthread_cond_init(&jb.bar.cv, NULL);
    for (t = 0; t < T; t++) {
        wk[t].job = &jb;
        wk[t].id = t;
    }
    for (t = 1; t < T; t++) {
        if (pthread_create(&tid[t], NULL, ntt_work, &wk[t]) != 0)
            break;
        created = t;
    }
    pthread_mutex_lock(&jb.bar.mu);
    jb.nthreads = created + 1;
    jb.bar.count = created + 1;
    jb.go = 1;
    pthread_cond_broadcast(&jb.bar.cv);
    pthread_mutex_unlock(&jb.bar.mu);
    ntt_work(&wk[0]);
    for (t = 1; t <= created; t++)
        pthread_join(tid[t], NULL);
    pthread_cond_destroy(&jb.bar.cv);
    pthread_mutex_destroy(&jb.bar.mu);
    free(tw);
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_ntt_root(nnc_prv_fr *out, size_t n)
{
    int m = nnc_ntt_log2(n);
    if (m < 0)
        return NNC_STATUS_INVALID;
    if (m > NNC_PRV_NTT_MAX_LOG)
        return NNC_STATUS_LIMIT;
    nnc_ntt_root_log(out, m);
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_ntt(nnc_prv_fr *a, size_t n, int inverse, int threads)
{
    return ntt_run(a, n, inverse != 0, NULL, NULL, threads);
}

/* Out: *g, the shift: *shift, or w_(2n) when shift is NULL. */
static nnc_status ntt_coset_shift(nnc_fr *g, size_t n, const nnc_prv_fr *shift)
{
    int m = nnc_ntt_log2(n);
    if (m < 0)
        return NNC_STATUS_INVALID;
    if (shift) {
        if (nnc_fr_is_zero(shift))
            return NNC_STATUS_INVALID;
        *g = *shift;
        return NNC_STATUS_OK;
    }
    if (m + 1 > NNC_PRV_NTT_MAX_LOG)
        return NNC_STATUS_LIMIT;
    nnc_ntt_root_log(g, m + 1);
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_coset_ntt(nnc_prv_fr *a, size_t n, const nnc_prv_fr *shift, int threads)
{
    nnc_fr g;
    nnc_status st = ntt_coset_shift(&g, n, shift);
    if (st != NNC_STATUS_OK)
        return st;
    return ntt_run(a, n, 0, &g, NULL, threads);
}

nnc_status nnc_prv_coset_intt(nnc_prv_fr *a, size_t n, const nnc_prv_fr *shift, int threads)
{
    nnc_fr g;
    nnc_status st = ntt_coset_shift(&g, n, shift);
    if (st != NNC_STATUS_OK)
        return st;
    nnc_fr_inv_var(&g, &g);
    return ntt_run(a, n, 1, NULL, &g, threads);
}
