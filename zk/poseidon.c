/* Poseidon over BN254 Fr with circomlib's parameters (see nncert/poseidon.h).
 *
 * The constants are not tables copied from anywhere: they are regenerated
 * here, once per process, by the procedure of the Poseidon authors'
 * reference script (generate_parameters_grain.sage, "Grain LFSR in
 * self-shrinking mode"), which is how circomlib's were produced:
 *
 *   1. An 80-bit LFSR is seeded with the instance description, most
 *      significant bit first: field type 1 (2 bits, prime field), S-box 0
 *      (4 bits, x^alpha), field size n = 254 (12 bits), t (12 bits),
 *      R_F (10 bits), R_P (10 bits), then 30 one bits.
 *   2. Feedback b[i+80] = b[i+62] ^ b[i+51] ^ b[i+38] ^ b[i+23] ^ b[i+13] ^ b[i];
 *      the first 160 output bits are discarded.
 *   3. Self-shrinking: bits are taken in pairs (a, b); b is output when a = 1
 *      and dropped when a = 0.
 *   4. A field element is 254 output bits read most significant first.
 *      Round constants: (R_F + R_P) * t of them, each redrawn while >= r.
 *   5. The MDS matrix continues the same stream: 2t elements reduced mod r,
 *      all redrawn together until they are pairwise distinct; x = the first
 *      t, y = the last t, M[i][j] = 1 / (x_i + y_j) (redrawn if any
 *      x_i + y_j = 0).  This is a Cauchy matrix, hence MDS.
 *
 * The reference script then runs three subspace-trail tests on the matrix
 * and draws another one on failure; for circomlib's sixteen widths the first
 * matrix drawn is the one circomlib uses, which test_poseidon checks entry by
 * entry against circomlibjs (tests/e2e/poseidon.sh), so those tests are not
 * repeated here. */
#include "nncert/poseidon.h"

#include <assert.h>
#include <pthread.h>
#include <string.h>

#include "prover/field_impl.h"
#include "prover/fq_ifma.h"
#include "zk/poseidon_ifma.h"

#define POS_N_WIDTHS (NNC_PRV_POSEIDON_T_MAX - NNC_PRV_POSEIDON_T_MIN + 1)
#define POS_FIELD_BITS 254
/* sum over t = 2..17 of t*(8 + R_P(t)), and of t*t (checked when built) */
#define POS_TOTAL_C 10854
#define POS_TOTAL_M 1784

/* Partial rounds for t = 2..17 (circomlib's N_ROUNDS_P: the paper's
 * security bound with margin, rounded up to a multiple of t). */
static const int pos_partial_rounds[POS_N_WIDTHS] = {56, 57, 56, 60, 60, 63, 64, 63,
                                                     60, 66, 60, 65, 70, 60, 64, 68};

/* Each width's part built at its first use (pos_ensure), read-only afterwards. */
static nnc_prv_fr pos_c_store[POS_TOTAL_C];
static nnc_prv_fr pos_m_store[POS_TOTAL_M];
static nnc_prv_poseidon_params pos_params[POS_N_WIDTHS];

/* The Grain LFSR, 16 clocks at a time: s holds the 80 state bits, the
 * oldest at bit 0 (bit k = b[i + k]).  The 16 bits b[i + 80 .. i + 95]
 * depend on taps at i + k .. i + k + 62 for k < 16, all inside the state,
 * so they are bits 0..15 of s ^ s>>13 ^ s>>23 ^ s>>38 ^ s>>51 ^ s>>62.
 * Self-shrunk output bits (step 3) wait in out, the next one at bit 63. */
typedef struct pos_grain {
    unsigned __int128 s;
    uint64_t out;
    int nout;
} pos_grain;

/* Step 3 for four clocked pairs (a, b) at a byte's bits (0, 1) .. (6, 7):
 * the b of each pair whose a is 1, as cnt bits (the first the highest). */
static struct { unsigned char cnt, bits; } pos_shrink[256];

static void pos_shrink_init(void)
{
    for (unsigned v = 0; v < 256; v++) {
        unsigned cnt = 0, bits = 0;
        for (int p = 0; p < 4; p++)
            if ((v >> (2 * p)) & 1) bits = (bits << 1) | ((v >> (2 * p + 1)) & 1), cnt++;
        pos_shrink[v].cnt = (unsigned char)cnt;
        pos_shrink[v].bits = (unsigned char)bits;
    }
}

/* Clocks the register 16 times.  Returns: the new bits, the first at bit 0. */
static unsigned pos_grain_clock16(pos_grain *g)
{
    const unsigned __int128 s = g->s;
    const unsigned nb = (unsigned)(s ^ (s >> 13) ^ (s >> 23) ^ (s >> 38) ^ (s >> 51) ^ (s >> 62)) & 0xFFFFu;
    g->s = (s >> 16) | ((unsigned __int128)nb << 64);
    return nb;
}

/* Seeds g with the instance description (step 1) and discards 160 bits. */
static void pos_grain_init(pos_grain *g, int t, int r_f, int r_p)
{
    const struct { unsigned value, bits; } field[] = {
        {1, 2}, {0, 4}, {POS_FIELD_BITS, 12}, {(unsigned)t, 12}, {(unsigned)r_f, 10}, {(unsigned)r_p, 10}};
    unsigned k = 0;
    g->s = 0;
    for (size_t f = 0; f < sizeof field / sizeof field[0]; f++)
        for (unsigned b = field[f].bits; b-- > 0;)
            g->s |= (unsigned __int128)((field[f].value >> b) & 1) << k++;
    while (k < 80)
        g->s |= (unsigned __int128)1 << k++;
    for (int i = 0; i < 160 / 16; i++)
        pos_grain_clock16(g);
    g->out = 0;
    g->nout = 0;
}

/* Returns: the next k <= 32 output bits, the first the highest. */
static uint64_t pos_grain_take(pos_grain *g, int k)
{
    while (g->nout < k) { /* at most 8 more: nout stays <= 39 */
        unsigned raw = pos_grain_clock16(g);
        for (int h = 0; h < 2; h++, raw >>= 8) {
            unsigned c = pos_shrink[raw & 0xFF].cnt;
            if (c) g->out |= (uint64_t)pos_shrink[raw & 0xFF].bits << (64 - g->nout - (int)c);
            g->nout += (int)c;
        }
    }
    uint64_t v = g->out >> (64 - k);
    g->out <<= k;
    g->nout -= k;
    return v;
}

/* Out: x, the next POS_FIELD_BITS output bits as an integer, most
 * significant bit first (little-endian limbs). */
static void pos_grain_int(uint64_t x[4], pos_grain *g)
{
    _Static_assert(POS_FIELD_BITS == 254, "bits 253..192 in x[3], then three whole limbs");
    x[3] = pos_grain_take(g, 30) << 32;
    x[3] |= pos_grain_take(g, 32);
    for (int l = 2; l >= 0; l--) {
        x[l] = pos_grain_take(g, 32) << 32;
        x[l] |= pos_grain_take(g, 32);
    }
}

/* Out: *out, the next element of Fr drawn by rejection (x >= r redrawn). */
static void pos_grain_fr_rejected(nnc_fr *out, pos_grain *g)
{
    uint64_t x[4];
    do
        pos_grain_int(x, g);
    while (!nnc_fr_from_int(out, x));
}

/* Out: *out, the next POS_FIELD_BITS-bit integer reduced mod r.  Since
 * 2^254 < 2r, one conditional subtraction reduces it. */
static void pos_grain_fr_reduced(nnc_fr *out, pos_grain *g)
{
    static const uint64_t r[4] = NNC_FR_MODULUS_INIT;
    uint64_t x[4];
    pos_grain_int(x, g);
    if (!nnc_fr_from_int(out, x)) {
        uint64_t borrow = 0;
        for (int i = 0; i < 4; i++) {
            uint64_t d = x[i] - r[i] - borrow;
            borrow = (x[i] < r[i]) | ((x[i] == r[i]) & borrow);
            x[i] = d;
        }
        int ok = nnc_fr_from_int(out, x);
        assert(ok && borrow == 0);
        (void)ok;
    }
}

/* Out: m[0 .. t*t-1], the Cauchy MDS matrix of step 5 (its t^2 inverses
 * by one batch inversion). */
static void pos_build_mds(nnc_fr *m, pos_grain *g, int t)
{
    nnc_fr v[2 * NNC_PRV_POSEIDON_T_MAX], sum[NNC_PRV_POSEIDON_T_MAX * NNC_PRV_POSEIDON_T_MAX];
    for (;;) {
        int distinct;
        do {
            for (int i = 0; i < 2 * t; i++)
                pos_grain_fr_reduced(&v[i], g);
            distinct = 1;
            for (int i = 0; i < 2 * t && distinct; i++)
                for (int j = i + 1; j < 2 * t && distinct; j++)
                    distinct = !nnc_fr_eq(&v[i], &v[j]);
        } while (!distinct);
        int ok = 1;
        for (int i = 0; i < t && ok; i++)
            for (int j = 0; j < t && ok; j++) {
                nnc_fr_add(&sum[i * t + j], &v[i], &v[t + j]);
                ok = !nnc_fr_is_zero(&sum[i * t + j]);
            }
        if (ok) {
            nnc_fr_inv_batch(m, sum, (size_t)t * (size_t)t);
            return;
        }
    }
}

/* Builds width k's constants and matrix at offsets oc, om of the stores. */
static void pos_build_width(int k, size_t oc, size_t om)
{
    const int t = k + NNC_PRV_POSEIDON_T_MIN, rp = pos_partial_rounds[k];
    const int rf = NNC_PRV_POSEIDON_FULL_ROUNDS;
    const size_t nc = (size_t)t * (size_t)(rf + rp);
    pos_grain g;
    pos_grain_init(&g, t, rf, rp);
    for (size_t i = 0; i < nc; i++)
        pos_grain_fr_rejected(&pos_c_store[oc + i], &g);
    pos_build_mds(&pos_m_store[om], &g, t);
    pos_params[k].t = t;
    pos_params[k].n_full = rf;
    pos_params[k].n_partial = rp;
    pos_params[k].c = &pos_c_store[oc];
    pos_params[k].m = &pos_m_store[om];
}

/* x = x^5 */
static inline void pos_sbox(nnc_fr *x)
{
    nnc_fr x2, x4;
    nnc_fr_sqr(&x2, x);
    nnc_fr_sqr(&x4, &x2);
    nnc_fr_mul(x, &x4, x);
}

/* ---- the permutation, computed in an equivalent cheaper form
 *
 * The Poseidon paper's appendix B (and circomlib's optimised templates): the
 * same function with the partial rounds' linear layers made sparse.
 *
 * 1. Constants.  A partial round's S-box touches s[0] only, so the part of
 *    its constant on s[1..t-1] may be added after the S-box, i.e. after the
 *    linear layer as M (0, c[1..]).  Pushed forward round by round, each
 *    partial round keeps one constant k_j (on s[0]) and the first full round
 *    after them absorbs what is left.
 * 2. Matrices.  Write a matrix A = [[a, v^T], [w, A^]] (A^ the lower right
 *    (t-1) x (t-1) block) as S D with D = diag(1, A^) and S sparse,
 *    S = [[a, u^T], [w, I]], u = A^^-T v.  D fixes s[0] and mixes only
 *    s[1..t-1], so it commutes with a partial round's constant and S-box:
 *    it moves back into the previous round's matrix.  From the last partial
 *    round back to the first: A = M, split, A = D M for the round before;
 *    the last full round before the partial rounds applies D_0 M (dense as
 *    before).  Every A has M's first row (D fixes row 0), so a = m[0] and
 *    v = m[0][1..] throughout; a partial round costs 2t - 1 products
 *    instead of t^2.  A^ is invertible: D M's block is A^_(j+1) M^, a
 *    product of blocks of a Cauchy matrix, all of whose square submatrices
 *    are invertible.
 *
 * test_poseidon compares this form with the plain rounds on random states
 * of every width, and with the GMP model and circomlibjs's outputs. */
typedef struct pos_fast {
    nnc_fr *c;   /* per round: t constants (full) or k_j (partial) */
    nnc_fr *pre; /* t*t: the matrix D_0 M of the last full round before the partial rounds */
    nnc_fr *u;   /* per partial round j: u_j (t-1) */
    nnc_fr *w;   /* per partial round j: w_j (t-1) */
} pos_fast;

/* sum over t of 8t + R_P (constants) and of 2 (t-1) R_P (sparse rows) */
#define POS_FAST_C 2208
#define POS_FAST_S 17292
static nnc_fr pos_fast_c[POS_FAST_C], pos_fast_pre[POS_TOTAL_M], pos_fast_s[POS_FAST_S];
static pos_fast pos_fast_tab[POS_N_WIDTHS];
static int pos_ready[POS_N_WIDTHS]; /* atomic: 1 once width k is built (pos_ensure) */
static pthread_mutex_t pos_mu = PTHREAD_MUTEX_INITIALIZER;
/* width k's 8-lane IFMA form (zk/poseidon_ifma.h), built with it where the
 * CPU has IFMA; the permutation uses it while nnc_fq_ifma_enabled() */
static nnc_pos_ifma *pos_vec[POS_N_WIDTHS];

/* Out: x = a y, a n x n row-major (x must not alias y). */
static void pos_matvec(nnc_fr *x, const nnc_fr *a, const nnc_fr *y, int n)
{
    for (int i = 0; i < n; i++) {
        nnc_fr acc, pr;
        nnc_fr_set_zero(&acc);
        for (int j = 0; j < n; j++) {
            nnc_fr_mul(&pr, &a[i * n + j], &y[j]);
            nnc_fr_add(&acc, &acc, &pr);
        }
        x[i] = acc;
    }
}

/* Out: c = a b, n x n row-major (c may alias a or b). */
static void pos_matmul(nnc_fr *c, const nnc_fr *a, const nnc_fr *b, int n)
{
    nnc_fr tmp[(NNC_PRV_POSEIDON_T_MAX - 1) * (NNC_PRV_POSEIDON_T_MAX - 1)];
    for (int i = 0; i < n; i++)
        for (int l = 0; l < n; l++) {
            nnc_fr acc, pr;
            nnc_fr_set_zero(&acc);
            for (int j = 0; j < n; j++) {
                nnc_fr_mul(&pr, &a[i * n + j], &b[j * n + l]);
                nnc_fr_add(&acc, &acc, &pr);
            }
            tmp[i * n + l] = acc;
        }
    memcpy(c, tmp, (size_t)n * (size_t)n * sizeof tmp[0]);
}

/* Out: p = a^e (e >= 1), n x n, by squaring. */
static void pos_matpow(nnc_fr *p, const nnc_fr *a, int e, int n)
{
    nnc_fr sq[(NNC_PRV_POSEIDON_T_MAX - 1) * (NNC_PRV_POSEIDON_T_MAX - 1)];
    int have = 0;
    memcpy(sq, a, (size_t)n * (size_t)n * sizeof sq[0]);
    for (; e > 0; e >>= 1) {
        if (e & 1) {
            if (have) pos_matmul(p, p, sq, n);
            else memcpy(p, sq, (size_t)n * (size_t)n * sizeof sq[0]);
            have = 1;
        }
        if (e > 1) pos_matmul(sq, sq, sq, n);
    }
}

/* Out: gt = (a^-1)^T, a n x n row-major, by Gauss-Jordan elimination.
 * Returns: 1, or 0 for a singular a (cannot happen for a block of a Cauchy
 * matrix, all of whose square submatrices are invertible). */
static int pos_inverse_t(nnc_fr *gt, const nnc_fr *a, int n)
{
    enum { N = NNC_PRV_POSEIDON_T_MAX - 1 };
    nnc_fr w[N * 2 * N]; /* [a | I], rows of 2n */
    const int n2 = 2 * n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n2; j++) {
            if (j < n) w[i * n2 + j] = a[i * n + j];
            else if (j - n == i) nnc_fr_set_one(&w[i * n2 + j]);
            else nnc_fr_set_zero(&w[i * n2 + j]);
        }
    for (int col = 0; col < n; col++) {
        int piv = col;
        while (piv < n && nnc_fr_is_zero(&w[piv * n2 + col]))
            piv++;
        if (piv == n)
            return 0;
        for (int j = 0; j < n2 && piv != col; j++) {
            nnc_fr tmp = w[col * n2 + j];
            w[col * n2 + j] = w[piv * n2 + j];
            w[piv * n2 + j] = tmp;
        }
        nnc_fr inv, f, pr;
        nnc_fr_inv_var(&inv, &w[col * n2 + col]);
        for (int j = 0; j < n2; j++)
            nnc_fr_mul(&w[col * n2 + j], &w[col * n2 + j], &inv);
        for (int i = 0; i < n; i++) {
            if (i == col || nnc_fr_is_zero(&w[i * n2 + col]))
                continue;
            f = w[i * n2 + col];
            for (int j = 0; j < n2; j++) {
                nnc_fr_mul(&pr, &f, &w[col * n2 + j]);
                nnc_fr_sub(&w[i * n2 + j], &w[i * n2 + j], &pr);
            }
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            gt[j * n + i] = w[i * n2 + n + j];
    return 1;
}

/* Fills pos_fast_tab[k] at the given offsets into the stores. */
static void pos_fast_build(int k, size_t oc, size_t om, size_t os)
{
    const nnc_prv_poseidon_params *p = &pos_params[k];
    const int t = p->t, half = p->n_full / 2, np = p->n_partial, n = t - 1;
    const nnc_fr *m = p->m;
    pos_fast *f = &pos_fast_tab[k];
    f->c = &pos_fast_c[oc];
    f->pre = &pos_fast_pre[om];
    f->u = &pos_fast_s[os];
    f->w = &pos_fast_s[os + (size_t)np * (size_t)n];
    /* 1. constants */
    nnc_fr acc[NNC_PRV_POSEIDON_T_MAX], cr[NNC_PRV_POSEIDON_T_MAX];
    size_t q = 0;
    for (int i = 0; i < t; i++)
        nnc_fr_set_zero(&acc[i]);
    for (int r = 0; r < p->n_full + np; r++) {
        const nnc_fr *c = &p->c[(size_t)r * (size_t)t];
        for (int i = 0; i < t; i++)
            nnc_fr_add(&cr[i], &c[i], &acc[i]);
        for (int i = 0; i < t; i++)
            nnc_fr_set_zero(&acc[i]);
        if (r < half || r >= half + np) {
            for (int i = 0; i < t; i++)
                f->c[q++] = cr[i];
            continue;
        }
        f->c[q++] = cr[0];
        for (int i = 0; i < t; i++) /* acc = M (0, cr[1..]) */
            for (int j = 1; j < t; j++) {
                nnc_fr pr;
                nnc_fr_mul(&pr, &m[i * t + j], &cr[j]);
                nnc_fr_add(&acc[i], &acc[i], &pr);
            }
    }
    assert(q == (size_t)p->n_full * (size_t)t + (size_t)np);
    /* 2. matrices.  With M^ = M's lower right block and m_c = M[1..][0],
     * the A of partial round j has A^ = M^^(np - j) (each step back is
     * A^ M^) and first column w_j = M^^(np - 1 - j) m_c, so
     * u_j = (M^^-T)^(np - j) v and w_j = M^ w_(j + 1), from the last round
     * back; the last full round before them applies diag(1, M^^np) M. */
    nnc_fr mh[(NNC_PRV_POSEIDON_T_MAX - 1) * (NNC_PRV_POSEIDON_T_MAX - 1)];
    nnc_fr gt[(NNC_PRV_POSEIDON_T_MAX - 1) * (NNC_PRV_POSEIDON_T_MAX - 1)]; /* (M^^-1)^T */
    nnc_fr pw[(NNC_PRV_POSEIDON_T_MAX - 1) * (NNC_PRV_POSEIDON_T_MAX - 1)];
    for (int i = 0; i < n; i++)
        for (int l = 0; l < n; l++)
            mh[i * n + l] = m[(i + 1) * t + (l + 1)];
    int ok = pos_inverse_t(gt, mh, n);
    assert(ok);
    (void)ok;
    for (int j = np - 1; j >= 0; j--) {
        nnc_fr *u = &f->u[(size_t)j * (size_t)n], *w = &f->w[(size_t)j * (size_t)n];
        if (j == np - 1) {
            pos_matvec(u, gt, &m[1], n);
            for (int i = 0; i < n; i++)
                w[i] = m[(i + 1) * t];
        } else {
            pos_matvec(u, gt, u + n, n);
            pos_matvec(w, mh, w + n, n);
        }
    }
    pos_matpow(pw, mh, np, n);
    memcpy(f->pre, m, (size_t)t * sizeof f->pre[0]);
    for (int i = 1; i < t; i++)
        for (int l = 0; l < t; l++) {
            nnc_fr acc, pr;
            nnc_fr_set_zero(&acc);
            for (int x = 1; x < t; x++) {
                nnc_fr_mul(&pr, &pw[(i - 1) * n + (x - 1)], &m[x * t + l]);
                nnc_fr_add(&acc, &acc, &pr);
            }
            f->pre[i * t + l] = acc;
        }
}

/* Builds width k (its constants, matrix and fast form) at its first use;
 * the stores hold every width at fixed offsets, so widths built by other
 * threads are never moved. */
static void pos_ensure(int k)
{
    if (__atomic_load_n(&pos_ready[k], __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&pos_mu);
    if (!pos_ready[k]) {
        /* width k's offsets into the stores (constants, matrix, fast
         * constants, sparse rows): the sizes of the widths before it; the
         * sums over all widths are the stores' sizes */
        size_t oc = 0, om = 0, ofc = 0, os = 0, koc = 0, kom = 0, kofc = 0, kos = 0;
        for (int i = 0; i < POS_N_WIDTHS; i++) {
            const size_t t = (size_t)(i + NNC_PRV_POSEIDON_T_MIN), np = (size_t)pos_partial_rounds[i];
            if (i == k) {
                koc = oc;
                kom = om;
                kofc = ofc;
                kos = os;
            }
            oc += t * (NNC_PRV_POSEIDON_FULL_ROUNDS + np);
            om += t * t;
            ofc += NNC_PRV_POSEIDON_FULL_ROUNDS * t + np;
            os += 2 * (t - 1) * np;
        }
        assert(oc == POS_TOTAL_C && om == POS_TOTAL_M && ofc == POS_FAST_C && os == POS_FAST_S);
        if (pos_shrink[0xFF].cnt == 0) pos_shrink_init(); /* (0xFF: four pairs out) */
        pos_build_width(k, koc, kom);
        pos_fast_build(k, kofc, kom, kos);
        const pos_fast *f = &pos_fast_tab[k];
        const nnc_prv_poseidon_params *p = &pos_params[k];
        pos_vec[k] = nnc_pos_ifma_build(p->t, p->n_full, p->n_partial, f->c, p->m, f->pre, f->u, f->w); /* NULL: none */
        __atomic_store_n(&pos_ready[k], 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&pos_mu);
}

const nnc_prv_poseidon_params *nnc_prv_poseidon_params_get(int t)
{
    if (t < NNC_PRV_POSEIDON_T_MIN || t > NNC_PRV_POSEIDON_T_MAX)
        return NULL;
    pos_ensure(t - NNC_PRV_POSEIDON_T_MIN);
    return &pos_params[t - NNC_PRV_POSEIDON_T_MIN];
}

/* s = A s, A t x t row-major. */
static void pos_dense(nnc_fr *s, const nnc_fr *a, int t)
{
    nnc_fr tmp[NNC_PRV_POSEIDON_T_MAX];
    pos_matvec(tmp, a, s, t);
    memcpy(s, tmp, (size_t)t * sizeof tmp[0]);
}

void nnc_prv_poseidon_permute(nnc_prv_fr *state, const nnc_prv_poseidon_params *p)
{
    const int t = p->t, half = p->n_full / 2, n = t - 1;
    assert(state && t >= NNC_PRV_POSEIDON_T_MIN && t <= NNC_PRV_POSEIDON_T_MAX);
    assert(p == &pos_params[t - NNC_PRV_POSEIDON_T_MIN]);
    const pos_fast *f = &pos_fast_tab[t - NNC_PRV_POSEIDON_T_MIN]; /* built with p */
    const nnc_pos_ifma *vec = pos_vec[t - NNC_PRV_POSEIDON_T_MIN];
    if (vec && nnc_fq_ifma_enabled()) {
        nnc_pos_ifma_permute(vec, state);
        return;
    }
    const nnc_fr *c = f->c;
    for (int r = 0; r < half; r++, c += t) {
        for (int i = 0; i < t; i++) {
            nnc_fr_add(&state[i], &state[i], &c[i]);
            pos_sbox(&state[i]);
        }
        pos_dense(state, r == half - 1 ? f->pre : p->m, t);
    }
    for (int j = 0; j < p->n_partial; j++, c++) {
        const nnc_fr *u = &f->u[(size_t)j * (size_t)n], *w = &f->w[(size_t)j * (size_t)n];
        nnc_fr s0, acc, prod;
        nnc_fr_add(&s0, &state[0], c);
        pos_sbox(&s0);
        nnc_fr_mul(&acc, &p->m[0], &s0);
        for (int i = 0; i < n; i++) {
            nnc_fr_mul(&prod, &u[i], &state[i + 1]);
            nnc_fr_add(&acc, &acc, &prod);
            nnc_fr_mul(&prod, &w[i], &s0);
            nnc_fr_add(&state[i + 1], &state[i + 1], &prod);
        }
        state[0] = acc;
    }
    for (int r = 0; r < half; r++, c += t) {
        for (int i = 0; i < t; i++) {
            nnc_fr_add(&state[i], &state[i], &c[i]);
            pos_sbox(&state[i]);
        }
        pos_dense(state, p->m, t);
    }
}

nnc_status nnc_prv_poseidon_hash(nnc_prv_fr *out, const nnc_prv_fr *in, size_t n)
{
    nnc_fr s[NNC_PRV_POSEIDON_T_MAX];
    const nnc_prv_poseidon_params *p;
    assert(out && in);
    if (n < 1 || n > NNC_PRV_POSEIDON_T_MAX - 1)
        return NNC_STATUS_ARG;
    p = nnc_prv_poseidon_params_get((int)n + 1);
    nnc_fr_set_zero(&s[0]);
    memcpy(&s[1], in, n * sizeof in[0]);
    nnc_prv_poseidon_permute(s, p);
    *out = s[0];
    return NNC_STATUS_OK;
}
