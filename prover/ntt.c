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
#include "prover/ntt_ifma.h"
#include "prover/fq_ifma.h"

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

/* A team of threads running one worker function over a job: the workers
 * wait at the gate until every thread that could be created exists, then
 * read the team size. */
typedef struct ntt_team {
    ntt_barrier bar;
    int nthreads; /* set before the gate opens */
    int go;       /* gate, under bar.mu */
} ntt_team;

typedef struct ntt_worker {
    void *job;
    ntt_team *team;
    int id;
} ntt_worker;

/* Returns: the team size, once the gate is open. */
static int ntt_team_wait(ntt_team *tm)
{
    int T;
    pthread_mutex_lock(&tm->bar.mu);
    while (!tm->go)
        pthread_cond_wait(&tm->bar.cv, &tm->bar.mu);
    T = tm->nthreads;
    pthread_mutex_unlock(&tm->bar.mu);
    return T;
}

/* Returns: the team for a transform of 2^m elements: threads (<= 0: the
 * online CPUs), one below 2^NNC_NTT_MT_LOG elements, at most 256. */
static int ntt_team_size(int threads, int m)
{
    if (threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c < 1 ? 1 : (int)c;
    }
    if (m < NNC_NTT_MT_LOG)
        return 1;
    return threads > 256 ? 256 : threads;
}

/* Runs fn on up to T threads (the caller is one of them; a thread that
 * cannot be created just makes the team smaller) and returns when all end. */
static void ntt_team_run(ntt_team *tm, int T, void *(*fn)(void *), void *job)
{
    ntt_worker wk[256];
    pthread_t tid[256];
    int t, created = 0;
    if (T > 256)
        T = 256;
    if (T < 1)
        T = 1;
    memset(tm, 0, sizeof *tm);
    pthread_mutex_init(&tm->bar.mu, NULL);
    pthread_cond_init(&tm->bar.cv, NULL);
    for (t = 0; t < T; t++) {
        wk[t].job = job;
        wk[t].team = tm;
        wk[t].id = t;
    }
    for (t = 1; t < T; t++) {
        if (pthread_create(&tid[t], NULL, fn, &wk[t]) != 0)
            break;
        created = t;
    }
    pthread_mutex_lock(&tm->bar.mu);
    tm->nthreads = created + 1;
    tm->bar.count = created + 1;
    tm->go = 1;
    pthread_cond_broadcast(&tm->bar.cv);
    pthread_mutex_unlock(&tm->bar.mu);
    fn(&wk[0]);
    for (t = 1; t <= created; t++)
        pthread_join(tid[t], NULL);
    pthread_cond_destroy(&tm->bar.cv);
    pthread_mutex_destroy(&tm->bar.mu);
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
} ntt_job;

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
    ntt_job *jb = (ntt_job *)wk->job;
    ntt_barrier *bar = &wk->team->bar;
    nnc_fr *a = jb->a;
    size_t n = jb->n, lo, hi, i, h;
    int T = ntt_team_wait(wk->team), id = wk->id;

    if (jb->pre) {
        ntt_share(&lo, &hi, n, id, T);
        ntt_scale_powers(a, lo, hi, &jb->pre_g);
        ntt_barrier_wait(bar);
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
    ntt_barrier_wait(bar);
    for (i = (size_t)id; i < (n >> jb->lb); i += (size_t)T)
        ntt_block(a + (i << jb->lb), jb->tw, jb->lb);
    ntt_barrier_wait(bar);
    for (h = (size_t)1 << jb->lb; h < n; h *= 2) {
        size_t k;
        ntt_share(&lo, &hi, n / 2, id, T);
        for (k = lo; k < hi; k++) {
            size_t j = k & (h - 1), i0 = ((k - j) << 1) + j;
            nnc_ntt_butterfly(&a[i0], &a[i0 + h], &jb->tw[h + j]);
        }
        ntt_barrier_wait(bar);
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
            ntt_barrier_wait(bar);
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
    ntt_team tm;
    nnc_fr *tw;
    int m = nnc_ntt_log2(n), T;

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
    T = ntt_team_size(threads, m);
    jb.lb = m < NNC_NTT_BLOCK_LOG ? m : NNC_NTT_BLOCK_LOG;
    while (jb.lb > 1 && (n >> jb.lb) < (size_t)T * 2)
        jb.lb--; /* at least two blocks per thread */
    ntt_team_run(&tm, T, ntt_work, &jb);
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

/* ---------------------------------------------------- values -> coset values */

/* The 8-lane path of nnc_prv_ntt_to_coset (prover/ntt_ifma.h): every thread
 * runs the same phases over its share of the columns, separated by the
 * barrier, for each polynomial in turn. */
typedef struct ntt_cjob {
    nnc_fr *const *polys;
    int np;
    size_t m;             /* columns: n / 8 */
    int lm, lb;           /* m = 2^lm; runs of 2^lb columns stay in cache */
    unsigned char *buf;   /* m columns of NNC_NTT_IFMA_COL bytes */
    uint64_t (*twi)[5];   /* [m] scaled w_(2h)^-j at h + j */
    uint64_t (*twf)[5];   /* [m] scaled w_(2h)^j at h + j */
    nnc_fr wn_inv, wn, g, ninv;
    nnc_ntt_ifma_mid base; /* steps and 8-point twiddles (start values per thread) */
} ntt_cjob;

/* Out: *r = x^e for a 64-bit e. */
static void fr_pow_u64(nnc_fr *r, const nnc_fr *x, uint64_t e)
{
    const uint64_t k[4] = {e, 0, 0, 0};
    nnc_fr_pow(r, x, k);
}

/* 3-bit reversal */
static const int ntt_rho[8] = {0, 4, 2, 6, 1, 5, 3, 7};

/* The per-column pass's start values for column c0. */
static void ntt_mid_start(nnc_ntt_ifma_mid *mid, const ntt_cjob *jb, size_t c0)
{
    nnc_fr w1[8], s[8], w2[8], gc;
    int i;
    fr_pow_u64(&gc, &jb->g, (uint64_t)c0);
    for (i = 0; i < 8; i++) {
        fr_pow_u64(&w1[i], &jb->wn_inv, (uint64_t)c0 * (uint64_t)ntt_rho[i]);
        fr_pow_u64(&w2[i], &jb->wn, (uint64_t)c0 * (uint64_t)ntt_rho[i]);
        fr_pow_u64(&s[i], &jb->g, (uint64_t)jb->m * (uint64_t)i);
        nnc_fr_mul(&s[i], &s[i], &gc);
        nnc_fr_mul(&s[i], &s[i], &jb->ninv);
    }
    *mid = jb->base;
    nnc_ntt_ifma_vec_set(&mid->w1, w1);
    nnc_ntt_ifma_vec_set(&mid->s, s);
    nnc_ntt_ifma_vec_set(&mid->w2, w2);
}

static void *ntt_cwork(void *arg)
{
    ntt_worker *wk = (ntt_worker *)arg;
    ntt_cjob *jb = (ntt_cjob *)wk->job;
    ntt_barrier *bar = &wk->team->bar;
    size_t m = jb->m, L = (size_t)1 << jb->lb, lo, hi, clo, chi, h;
    int T = ntt_team_wait(wk->team), id = wk->id, p;
    nnc_ntt_ifma_mid mid;

    ntt_share(&lo, &hi, m >> jb->lb, id, T); /* runs of 2^lb columns */
    clo = lo << jb->lb;
    chi = hi << jb->lb;
    ntt_share(&lo, &hi, m, id, T); /* columns of the per-column pass */
    ntt_mid_start(&mid, jb, lo);
    for (p = 0; p < jb->np; p++) {
        nnc_fr *a = jb->polys[p];
        size_t klo, khi;
        nnc_ntt_ifma_load_dit(jb->buf, a, jb->lm, clo, chi, jb->lb, (const uint64_t (*)[5])jb->twi);
        ntt_barrier_wait(bar);
        ntt_share(&klo, &khi, m / 2, id, T);
        for (h = L; h < m; h *= 2) {
            nnc_ntt_ifma_stage(jb->buf, h, klo, khi, (const uint64_t (*)[5])jb->twi, 0);
            ntt_barrier_wait(bar);
        }
        nnc_ntt_ifma_middle(jb->buf, lo, hi, &mid);
        ntt_barrier_wait(bar);
        for (h = m / 2; h >= L && h >= 1; h /= 2) {
            nnc_ntt_ifma_stage(jb->buf, h, klo, khi, (const uint64_t (*)[5])jb->twf, 1);
            ntt_barrier_wait(bar);
        }
        nnc_ntt_ifma_dif_store(a, jb->buf, jb->lm, clo, chi, jb->lb, (const uint64_t (*)[5])jb->twf);
        ntt_barrier_wait(bar); /* the buffer is free for the next polynomial */
    }
    return NULL;
}

/* Out: tw[h + j] = scaled x^(j m / (2h)) for h = 1 .. m/2, j < h, with x a
 * primitive m-th root of unity (tw[0] unused). */
static void ntt_ifma_twiddles(uint64_t (*tw)[5], size_t m, const nnc_fr *x)
{
    nnc_fr t;
    size_t h, j;
    nnc_fr_set_one(&t);
    nnc_ntt_ifma_scaled(tw[0], &t);
    if (m < 2)
        return;
    for (j = 0; j < m / 2; j++) {
        nnc_ntt_ifma_scaled(tw[m / 2 + j], &t);
        nnc_fr_mul(&t, &t, x);
    }
    for (h = m / 4; h >= 1; h /= 2)
        for (j = 0; j < h; j++)
            memcpy(tw[h + j], tw[2 * h + 2 * j], sizeof tw[0]);
}

/* The 8-lane transform of all polynomials; n >= 8, g != 0. */
static nnc_status ntt_to_coset_ifma(nnc_fr *const *polys, int np, size_t n, const nnc_fr *g, int threads)
{
    ntt_cjob jb;
    ntt_team tm;
    nnc_fr one, w8, w8i, w4, w4i, v[8];
    int m = nnc_ntt_log2(n), T, i;

    memset(&jb, 0, sizeof jb);
    jb.polys = polys;
    jb.np = np;
    jb.m = n / 8;
    jb.lm = m - 3;
    jb.buf = (unsigned char *)aligned_alloc(64, jb.m * NNC_NTT_IFMA_COL);
    jb.twi = (uint64_t (*)[5])malloc(jb.m * sizeof *jb.twi);
    jb.twf = (uint64_t (*)[5])malloc(jb.m * sizeof *jb.twf);
    if (!jb.buf || !jb.twi || !jb.twf) {
        free(jb.buf);
        free(jb.twi);
        free(jb.twf);
        return NNC_STATUS_NOMEM;
    }
    nnc_ntt_root_log(&jb.wn, m);
    nnc_fr_inv_var(&jb.wn_inv, &jb.wn);
    jb.g = *g;
    nnc_fr_set_u64(&jb.ninv, (uint64_t)n);
    nnc_fr_inv_var(&jb.ninv, &jb.ninv);
    {
        nnc_fr wm, wmi; /* w_m = w_n^8 */
        fr_pow_u64(&wm, &jb.wn, 8);
        nnc_fr_inv_var(&wmi, &wm);
        ntt_ifma_twiddles(jb.twi, jb.m, &wmi);
        ntt_ifma_twiddles(jb.twf, jb.m, &wm);
    }
    /* steps: w_n^-rho(r), g, w_n^rho(l) */
    for (i = 0; i < 8; i++)
        fr_pow_u64(&v[i], &jb.wn_inv, (uint64_t)ntt_rho[i]);
    nnc_ntt_ifma_vec_set(&jb.base.d1, v);
    for (i = 0; i < 8; i++)
        v[i] = *g;
    nnc_ntt_ifma_vec_set(&jb.base.ds, v);
    for (i = 0; i < 8; i++)
        fr_pow_u64(&v[i], &jb.wn, (uint64_t)ntt_rho[i]);
    nnc_ntt_ifma_vec_set(&jb.base.d2, v);
    /* 8-point twiddles: half-span 2 on lanes 3 and 7 (w_4), half-span 4 on
     * lanes 4..7 (w_8^0..3) */
    nnc_fr_set_one(&one);
    fr_pow_u64(&w8, &jb.wn, (uint64_t)(n / 8));
    nnc_fr_inv_var(&w8i, &w8);
    nnc_fr_sqr(&w4, &w8);
    nnc_fr_sqr(&w4i, &w8i);
    for (i = 0; i < 8; i++)
        v[i] = (i & 3) == 3 ? w4 : one;
    nnc_ntt_ifma_vec_set(&jb.base.tf2, v);
    for (i = 0; i < 8; i++)
        v[i] = (i & 3) == 3 ? w4i : one;
    nnc_ntt_ifma_vec_set(&jb.base.ti2, v);
    for (i = 0; i < 8; i++)
        if (i < 4)
            v[i] = one;
        else
            fr_pow_u64(&v[i], &w8, (uint64_t)(i - 4));
    nnc_ntt_ifma_vec_set(&jb.base.tf4, v);
    for (i = 4; i < 8; i++)
        fr_pow_u64(&v[i], &w8i, (uint64_t)(i - 4));
    nnc_ntt_ifma_vec_set(&jb.base.ti4, v);

    T = ntt_team_size(threads, m);
    /* runs of 2^lb columns (320 KiB at lb = 10), at least two per thread */
    jb.lb = jb.lm < 10 ? jb.lm : 10;
    while (jb.lb > 0 && (jb.m >> jb.lb) < (size_t)T * 2)
        jb.lb--;
    ntt_team_run(&tm, T, ntt_cwork, &jb);
    free(jb.buf);
    free(jb.twi);
    free(jb.twf);
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_ntt_to_coset(nnc_prv_fr *const *polys, int np, size_t n, const nnc_prv_fr *shift,
                                int threads)
{
    nnc_fr g;
    nnc_status st = ntt_coset_shift(&g, n, shift);
    int p;
    if (st != NNC_STATUS_OK)
        return st;
    if (n >= 8 && nnc_fq_ifma_enabled()) {
        st = ntt_to_coset_ifma(polys, np, n, &g, threads);
        if (st != NNC_STATUS_NOMEM)
            return st;
    }
    for (p = 0; p < np; p++) {
        if ((st = ntt_run(polys[p], n, 1, NULL, NULL, threads)) != NNC_STATUS_OK ||
            (st = ntt_run(polys[p], n, 0, &g, NULL, threads)) != NNC_STATUS_OK)
            return st;
    }
    return NNC_STATUS_OK;
}
