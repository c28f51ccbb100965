/* Poseidon over BN254 Fr with circomlib's parameters (see prover/poseidon.h).
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
#include "prover/poseidon.h"

#include <assert.h>
#include <pthread.h>
#include <string.h>

#include "prover/field_impl.h"

#define POS_N_WIDTHS (NNC_PRV_POSEIDON_T_MAX - NNC_PRV_POSEIDON_T_MIN + 1)
#define POS_FIELD_BITS 254
/* sum over t = 2..17 of t*(8 + R_P(t)), and of t*t (checked when built) */
#define POS_TOTAL_C 10854
#define POS_TOTAL_M 1784

/* Partial rounds for t = 2..17 (circomlib's N_ROUNDS_P: the paper's
 * security bound with margin, rounded up to a multiple of t). */
static const int pos_partial_rounds[POS_N_WIDTHS] = {56, 57, 56, 60, 60, 63, 64, 63,
                                                     60, 66, 60, 65, 70, 60, 64, 68};

/* Built once by pos_build (pthread_once), read-only afterwards. */
static nnc_prv_fr pos_c_store[POS_TOTAL_C];
static nnc_prv_fr pos_m_store[POS_TOTAL_M];
static nnc_prv_poseidon_params pos_params[POS_N_WIDTHS];
static pthread_once_t pos_once = PTHREAD_ONCE_INIT;

/* The Grain LFSR: 80 state bits in a ring, pos = index of the oldest. */
typedef struct pos_grain {
    unsigned char bit[80];
    unsigned pos;
} pos_grain;

/* Clocks the register once.  Returns: the new bit. */
static unsigned pos_grain_clock(pos_grain *g)
{
    const unsigned p = g->pos;
    unsigned nb = g->bit[(p + 62) % 80] ^ g->bit[(p + 51) % 80] ^ g->bit[(p + 38) % 80] ^
                  g->bit[(p + 23) % 80] ^ g->bit[(p + 13) % 80] ^ g->bit[p];
    g->bit[p] = (unsigned char)nb; /* the oldest bit leaves, the new one enters */
    g->pos = (p + 1) % 80;
    return nb;
}

/* Seeds g with the instance description (step 1) and discards 160 bits. */
static void pos_grain_init(pos_grain *g, int t, int r_f, int r_p)
{
    const struct { unsigned value, bits; } field[] = {
        {1, 2}, {0, 4}, {POS_FIELD_BITS, 12}, {(unsigned)t, 12}, {(unsigned)r_f, 10}, {(unsigned)r_p, 10}};
    unsigned k = 0;
    for (size_t f = 0; f < sizeof field / sizeof field[0]; f++)
        for (unsigned b = field[f].bits; b-- > 0;)
            g->bit[k++] = (unsigned char)((field[f].value >> b) & 1);
    while (k < 80)
        g->bit[k++] = 1;
    g->pos = 0;
    for (int i = 0; i < 160; i++)
        pos_grain_clock(g);
}

/* Returns: the next self-shrunk output bit (step 3). */
static unsigned pos_grain_bit(pos_grain *g)
{
    while (pos_grain_clock(g) == 0)
        pos_grain_clock(g);
    return pos_grain_clock(g);
}

/* Out: x, the next POS_FIELD_BITS output bits as an integer, most
 * significant bit first (little-endian limbs). */
static void pos_grain_int(uint64_t x[4], pos_grain *g)
{
    x[0] = x[1] = x[2] = x[3] = 0;
    for (int i = POS_FIELD_BITS - 1; i >= 0; i--)
        x[i / 64] |= (uint64_t)pos_grain_bit(g) << (i % 64);
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

/* Out: m[0 .. t*t-1], the Cauchy MDS matrix of step 5. */
static void pos_build_mds(nnc_fr *m, pos_grain *g, int t)
{
    nnc_fr v[2 * NNC_PRV_POSEIDON_T_MAX];
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
                nnc_fr s;
                nnc_fr_add(&s, &v[i], &v[t + j]);
                ok = !nnc_fr_is_zero(&s);
                nnc_fr_inv_var(&m[i * t + j], &s);
            }
        if (ok)
            return;
    }
}

static void pos_build(void)
{
    size_t oc = 0, om = 0;
    for (int k = 0; k < POS_N_WIDTHS; k++) {
        const int t = k + NNC_PRV_POSEIDON_T_MIN, rp = pos_partial_rounds[k];
        const int rf = NNC_PRV_POSEIDON_FULL_ROUNDS;
        const size_t nc = (size_t)t * (size_t)(rf + rp), nm = (size_t)t * (size_t)t;
        pos_grain g;
        assert(oc + nc <= POS_TOTAL_C && om + nm <= POS_TOTAL_M);
        pos_grain_init(&g, t, rf, rp);
        for (size_t i = 0; i < nc; i++)
            pos_grain_fr_rejected(&pos_c_store[oc + i], &g);
        pos_build_mds(&pos_m_store[om], &g, t);
        pos_params[k].t = t;
        pos_params[k].n_full = rf;
        pos_params[k].n_partial = rp;
        pos_params[k].c = &pos_c_store[oc];
        pos_params[k].m = &pos_m_store[om];
        oc += nc;
        om += nm;
    }
    assert(oc == POS_TOTAL_C && om == POS_TOTAL_M);
}

const nnc_prv_poseidon_params *nnc_prv_poseidon_params_get(int t)
{
    if (t < NNC_PRV_POSEIDON_T_MIN || t > NNC_PRV_POSEIDON_T_MAX)
        return NULL;
    pthread_once(&pos_once, pos_build);
    return &pos_params[t - NNC_PRV_POSEIDON_T_MIN];
}

/* x = x^5 */
static inline void pos_sbox(nnc_fr *x)
{
    nnc_fr x2, x4;
    nnc_fr_sqr(&x2, x);
    nnc_fr_sqr(&x4, &x2);
    nnc_fr_mul(x, &x4, x);
}

void nnc_prv_poseidon_permute(nnc_prv_fr *state, const nnc_prv_poseidon_params *p)
{
    const int t = p->t, half = p->n_full / 2, rounds = p->n_full + p->n_partial;
    nnc_fr tmp[NNC_PRV_POSEIDON_T_MAX];
    assert(state && t >= NNC_PRV_POSEIDON_T_MIN && t <= NNC_PRV_POSEIDON_T_MAX);
    for (int r = 0; r < rounds; r++) {
        const nnc_fr *c = &p->c[(size_t)r * (size_t)t];
        const int full = r < half || r >= half + p->n_partial;
        for (int i = 0; i < t; i++)
            nnc_fr_add(&state[i], &state[i], &c[i]);
        if (full)
            for (int i = 0; i < t; i++)
                pos_sbox(&state[i]);
        else
            pos_sbox(&state[0]);
        for (int i = 0; i < t; i++) {
            nnc_fr acc, prod;
            nnc_fr_set_zero(&acc);
            for (int j = 0; j < t; j++) {
                nnc_fr_mul(&prod, &p->m[i * t + j], &state[j]);
                nnc_fr_add(&acc, &acc, &prod);
            }
            tmp[i] = acc;
        }
        memcpy(state, tmp, (size_t)t * sizeof tmp[0]);
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
