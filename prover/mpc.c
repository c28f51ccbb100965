/* The Groth16 phase-2 ceremony of snarkjs 0.7.6: powers-of-tau files,
 * groth16 setup from them, zkey contribute / beacon / verify.
 *
 * .ptau (binfileutils container "ptau", version 1; snarkjs
 * powersoftau_new.js, powersoftau_preparephase2.js), points as in a .zkey
 * (affine, Montgomery, little-endian; infinity all zero):
 *   1  n8 u32 = 32, q, power u32, ceremonyPower u32
 *   2  tauG1:       tau^i G1, i < 2^(power+1) - 1
 *   3  tauG2:       tau^i G2, i < 2^power
 *   4  alphaTauG1:  alpha tau^i G1, i < 2^power
 *   5  betaTauG1:   beta tau^i G1, i < 2^power
 *   6  betaG2:      beta G2
 *   7  contributions (phase 1; not read here)
 *   12 the Lagrange basis at tau of every domain 2^k, k = 0 .. power + 1,
 *      concatenated (domain m starts at point m - 1), times G1
 *   13, 14, 15 the same for tauG2, alphaTauG1, betaTauG1, k = 0 .. power.
 *
 * Setup (zkey_new.js): for domain m (the least power of two above the
 * constraints plus the public signals), with L_c, LA_c, LB_c, L2_c the
 * Lagrange points of row c in sections 12, 14, 15, 13:
 *   A_s  = sum_c A[c][s] L_c,   B1_s = sum_c B[c][s] L_c,   B2_s = sum_c B[c][s] L2_c,
 *   IC_s (s <= nPublic) or C_s = sum_c (A[c][s] LB_c + B[c][s] LA_c + C[c][s] L_c),
 * plus, for every public wire s (wire 0 included), row nConstraints + s:
 * A_s += L_(nc+s), IC_s += LB_(nc+s).  H_j = point (2m - 1) + (2j + 1) of
 * section 12: the odd Lagrange points of domain 2m.  alpha1, beta1, beta2
 * from sections 4, 5, 6; gamma2 = delta2 = G2, delta1 = G1.
 *
 * The circuit hash (BLAKE2b-512) runs over the "uncompressed" encodings
 * (affine, canonical, big-endian, G2 as x.c1 x.c0 y.c1 y.c0) of alpha1,
 * beta1, beta2, gamma2, delta1, delta2, then (count as a big-endian u32
 * first) IC, the H powers tau^(m+i) - tau^i from section 2, C, A, B1, B2.
 * snarkjs hashes m - 1 H powers for m <= 2^14 and m for larger domains (its
 * chunk loop); both are reproduced.
 *
 * Contributions (zkey_contribute.js, zkey_beacon.js, keypair.js; the
 * randomness is ffjavascript's: ChaCha20 with the seed words as the key and
 * a zero nonce, field elements drawn as four 64-bit words (high word first),
 * masked to 254 bits, redrawn when >= p, and taken as Montgomery
 * representations, i.e. the element is v / 2^256): a secret k and a point
 * g1_s from the stream, g1_sx = k g1_s, the transcript BLAKE2b(circuit hash,
 * every earlier record's public key, g1_s, g1_sx), g2_sp = hashToG2
 * (transcript), g2_spx = k g2_sp; delta times k, L and H times 1/k.  A
 * contribution seeds the stream from BLAKE2b(64 OS random bytes, the
 * entropy text); a beacon from SHA-256 applied 2^e times to its hash. */
#include "prover/groth16_impl.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prover/curve_impl.h"
#include "prover/field_impl.h"

#define G1B NNC_PRV_ZKEY_G1_BYTES
#define G2B NNC_PRV_ZKEY_G2_BYTES
#define REC_FIXED (3u * G1B + G2B + 64u + 8u) /* a record without its params */

/* ------------------------------------------------------------ encodings */

/* LEM: the file form.  Returns: 1 if both coordinates are below q. */
static int lem_fq(nnc_fq *out, const unsigned char *p)
{
    const uint64_t q[4] = NNC_FQ_MODULUS_INIT;
    nnc_fe4_int_from_b32(out->v, p, NNC_PRV_ENDIAN_LITTLE);
    return (int)(nnc_fe4_lt_mask(out->v, q) & 1);
}

static int lem_g1(nnc_prv_g1 *out, const unsigned char *p)
{
    return lem_fq(&out->x, p) && lem_fq(&out->y, p + 32) && nnc_prv_g1_is_on_curve(out);
}

static int lem_g2(nnc_prv_g2 *out, const unsigned char *p)
{
    return lem_fq(&out->x.c0, p) && lem_fq(&out->x.c1, p + 32) && lem_fq(&out->y.c0, p + 64) &&
           lem_fq(&out->y.c1, p + 96) && nnc_prv_g2_is_on_curve(out);
}

static void put_lem_fq(unsigned char *out, const nnc_fq *a) { nnc_fe4_int_to_b32(out, a->v, NNC_PRV_ENDIAN_LITTLE); }

static void put_lem_g1(unsigned char *out, const nnc_prv_g1 *p)
{
    put_lem_fq(out, &p->x);
    put_lem_fq(out + 32, &p->y);
}

static void put_lem_g2(unsigned char *out, const nnc_prv_g2 *p)
{
    put_lem_fq(out, &p->x.c0);
    put_lem_fq(out + 32, &p->x.c1);
    put_lem_fq(out + 64, &p->y.c0);
    put_lem_fq(out + 96, &p->y.c1);
}

/* U: what the hashes read (infinity, x = y = 0, gives zeros). */
static void put_u_g1(unsigned char out[64], const nnc_prv_g1 *p)
{
    nnc_fq_get_b32(out, &p->x, NNC_PRV_ENDIAN_BIG);
    nnc_fq_get_b32(out + 32, &p->y, NNC_PRV_ENDIAN_BIG);
}

static void put_u_g2(unsigned char out[128], const nnc_prv_g2 *p)
{
    nnc_fq_get_b32(out, &p->x.c1, NNC_PRV_ENDIAN_BIG);
    nnc_fq_get_b32(out + 32, &p->x.c0, NNC_PRV_ENDIAN_BIG);
    nnc_fq_get_b32(out + 64, &p->y.c1, NNC_PRV_ENDIAN_BIG);
    nnc_fq_get_b32(out + 96, &p->y.c0, NNC_PRV_ENDIAN_BIG);
}

static void hash_g1(crypto_generichash_state *h, const nnc_prv_g1 *p)
{
    unsigned char b[64];
    put_u_g1(b, p);
    crypto_generichash_update(h, b, sizeof b);
}

static void hash_g2(crypto_generichash_state *h, const nnc_prv_g2 *p)
{
    unsigned char b[128];
    put_u_g2(b, p);
    crypto_generichash_update(h, b, sizeof b);
}

static void hash_u32(crypto_generichash_state *h, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v};
    crypto_generichash_update(h, b, 4);
}

static uint32_t rd_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* ------------------------------------------------------------ randomness */

/* ffjavascript's ChaCha: the ChaCha20 block function, key = the 8 seed
 * words, block counter in words 12..15 from 0 (libsodium's 64-bit counter
 * and zero nonce: the same words below 2^64 blocks). */
typedef struct mpc_rng {
    unsigned char key[32];
    uint64_t block;
    uint32_t buf[16];
    int pos;
} mpc_rng;

static void rng_init(mpc_rng *r, const unsigned char seed[32])
{
    for (int i = 0; i < 8; i++) {
        uint32_t w = (uint32_t)seed[4 * i] << 24 | (uint32_t)seed[4 * i + 1] << 16 | (uint32_t)seed[4 * i + 2] << 8 |
                     seed[4 * i + 3];
        wr_le32(r->key + 4 * i, w);
    }
    r->block = 0;
    r->pos = 16;
}

static uint32_t rng_u32(mpc_rng *r)
{
    if (r->pos == 16) {
        static const unsigned char nonce[8] = {0};
        unsigned char out[64] = {0};
        crypto_stream_chacha20_xor_ic(out, out, sizeof out, nonce, r->block++, r->key);
        for (int i = 0; i < 16; i++) r->buf[i] = rd_le32(out + 4 * i);
        sodium_memzero(out, sizeof out);
        r->pos = 0;
    }
    return r->buf[r->pos++];
}

static void rng_wipe(mpc_rng *r) { sodium_memzero(r, sizeof *r); }

/* A field element as F.fromRng: limbs v drawn low limb first, each as
 * (high word, low word), masked to 254 bits, redrawn while v >= p; the
 * limbs are the Montgomery representation (element v / 2^256). */
static void rng_fe(uint64_t v[4], mpc_rng *r, const uint64_t p[4])
{
    do {
        for (int i = 0; i < 4; i++) {
            uint64_t hi = rng_u32(r);
            v[i] = hi << 32 | rng_u32(r);
        }
        v[3] &= (UINT64_C(1) << 62) - 1;
    } while (!(nnc_fe4_lt_mask(v, p) & 1));
}

static void g1_from_rng(nnc_prv_g1 *out, mpc_rng *r)
{
    const uint64_t q[4] = NNC_FQ_MODULUS_INIT;
    nnc_fq x, rhs, b, y;
    int greatest;
    do {
        rng_fe(x.v, r, q);
        greatest = (int)(rng_u32(r) & 1);
        nnc_fq_sqr(&rhs, &x);
        nnc_fq_mul(&rhs, &rhs, &x);
        nnc_g1_set_b(&b);
        nnc_fq_add(&rhs, &rhs, &b);
    } while (!nnc_fq_is_square(&rhs));
    nnc_fq_sqrt(&y, &rhs);
    if (nnc_fq_greatest(&y) != greatest) nnc_fq_neg(&y, &y);
    out->x = x;
    out->y = y;
}

static void g2_from_rng(nnc_prv_g2 *out, mpc_rng *r)
{
    /* the cofactor of the twist, 2q - r */
    static const uint64_t cof[4] = {0x345f2299c0f9fa8dULL, 0x06ceecda572a2489ULL, 0xb85045b68181585eULL,
                                    0x30644e72e131a029ULL};
    const uint64_t q[4] = NNC_FQ_MODULUS_INIT;
    nnc_fq2 x, rhs, b, y;
    nnc_g2 p;
    nnc_g2_jac j, k;
    int greatest;
    do {
        rng_fe(x.c0.v, r, q);
        rng_fe(x.c1.v, r, q);
        greatest = (int)(rng_u32(r) & 1);
        nnc_fq2_sqr(&rhs, &x);
        nnc_fq2_mul(&rhs, &rhs, &x);
        nnc_g2_set_b(&b);
        nnc_fq2_add(&rhs, &rhs, &b);
    } while (!nnc_fq2_is_square(&rhs));
    nnc_fq2_sqrt(&y, &rhs);
    if (nnc_fq2_greatest(&y) != greatest) nnc_fq2_neg(&y, &y);
    p.x = x;
    p.y = y;
    nnc_g2_aff_to_jac(&j, &p);
    nnc_g2_jac_mul_var(&k, &j, cof);
    nnc_g2_jac_to_aff_var(out, &k);
}

void nnc_prv_mpc_chacha_words(uint32_t *out, size_t n, const unsigned char seed[32])
{
    mpc_rng r;
    rng_init(&r, seed);
    for (size_t i = 0; i < n; i++) out[i] = rng_u32(&r);
    rng_wipe(&r);
}

void nnc_prv_mpc_hash_to_g2(nnc_prv_g2 *out, const unsigned char hash[64])
{
    mpc_rng r;
    rng_init(&r, hash);
    g2_from_rng(out, &r);
    rng_wipe(&r);
}

/* ------------------------------------------------------------ .ptau */

void nnc_prv_ptau_clear(nnc_prv_ptau *p)
{
    if (p == NULL) return;
    if (p->mapped) nnc_prv_file_unmap(p->map, p->len);
    memset(p, 0, sizeof *p);
}

nnc_status nnc_prv_ptau_parse(nnc_prv_ptau *p, const unsigned char *in, size_t len, char *err, size_t errlen)
{
    const uint64_t qmod[4] = NNC_FQ_MODULUS_INIT;
    nnc_prv_bin b;
    nnc_prv_rd r;
    nnc_status st;
    memset(p, 0, sizeof *p);
    p->map = in;
    p->len = len;
    if ((st = nnc_prv_bin_open(&b, in, len, "ptau", 1, 1, err, errlen)) ||
        (st = nnc_prv_bin_section(&r, &b, in, 1, 0, "ptau", err, errlen)) ||
        (st = nnc_prv_rd_prime(&r, qmod, "ptau base field", err, errlen)))
        goto fail;
    if (!nnc_prv_rd_u32(&r, &p->power) || !nnc_prv_rd_u32(&r, &p->ceremony_power) || r.pos != r.len) {
        st = nnc_err(err, errlen, NNC_STATUS_PARSE, "ptau header section has %zu bytes (44 expected)", r.len);
        goto fail;
    }
    if (p->power < 1 || p->power > 28) {
        st = nnc_err(err, errlen, NNC_STATUS_PARSE, "ptau power %u is outside 1..28", p->power);
        goto fail;
    }
    uint64_t n = UINT64_C(1) << p->power;
    const struct {
        uint32_t id;
        uint64_t bytes;
        int optional;
        const char *what;
    } want[] = {{2, (2 * n - 1) * G1B, 0, "tauG1"},          {3, n * G2B, 0, "tauG2"},
                {4, n * G1B, 0, "alphaTauG1"},               {5, n * G1B, 0, "betaTauG1"},
                {6, G2B, 0, "betaG2"},                       {12, (4 * n - 1) * G1B, 1, "Lagrange tauG1"},
                {13, (2 * n - 1) * G2B, 1, "Lagrange tauG2"}, {14, (2 * n - 1) * G1B, 1, "Lagrange alphaTauG1"},
                {15, (2 * n - 1) * G1B, 1, "Lagrange betaTauG1"}};
    int have = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if ((st = nnc_prv_bin_section(&r, &b, in, want[i].id, want[i].optional, "ptau", err, errlen))) goto fail;
        if (r.p == NULL) continue;
        if (r.len != want[i].bytes) {
            st = nnc_err(err, errlen, NNC_STATUS_PARSE, "ptau section %u (%s) has %zu bytes; power %u needs %llu",
                         want[i].id, want[i].what, r.len, p->power, (unsigned long long)want[i].bytes);
            goto fail;
        }
        p->off[want[i].id] = (uint64_t)(r.p - in);
        p->size[want[i].id] = r.len;
        if (want[i].id >= 12) have++;
    }
    if (have != 0 && have != 4) {
        st = nnc_err(err, errlen, NNC_STATUS_PARSE, "ptau has %d of the 4 Lagrange sections (12..15)", have);
        goto fail;
    }
    p->prepared = have == 4;
    return NNC_STATUS_OK;
fail:
    memset(p, 0, sizeof *p);
    return st;
}

nnc_status nnc_prv_ptau_open(nnc_prv_ptau *p, const char *path, char *err, size_t errlen)
{
    const unsigned char *map;
    size_t len;
    nnc_status st;
    memset(p, 0, sizeof *p);
    if ((st = nnc_prv_file_map(&map, &len, path, err, errlen))) return st;
    if ((st = nnc_prv_ptau_parse(p, map, len, err, errlen))) {
        nnc_prv_file_unmap(map, len);
        return st;
    }
    p->mapped = 1;
    return NNC_STATUS_OK;
}

/* Decode n points of section sec from point index first (G1). */
static nnc_status ptau_g1s(nnc_prv_g1 *out, const nnc_prv_ptau *p, uint32_t sec, uint64_t first, uint64_t n,
                           char *err, size_t errlen)
{
    const unsigned char *base = p->map + p->off[sec];
    for (uint64_t i = 0; i < n; i++)
        if (!lem_g1(&out[i], base + (first + i) * G1B))
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "ptau section %u point %llu is not a valid G1 point", sec,
                           (unsigned long long)(first + i));
    return NNC_STATUS_OK;
}

static nnc_status ptau_g2s(nnc_prv_g2 *out, const nnc_prv_ptau *p, uint32_t sec, uint64_t first, uint64_t n,
                           char *err, size_t errlen)
{
    const unsigned char *base = p->map + p->off[sec];
    for (uint64_t i = 0; i < n; i++)
        if (!lem_g2(&out[i], base + (first + i) * G2B))
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "ptau section %u point %llu is not on the twist", sec,
                           (unsigned long long)(first + i));
    return NNC_STATUS_OK;
}

/* ------------------------------------------------------------ setup */

/* A term of a sparse combination: coef times point pt, summed into wire. */
typedef struct comb_term {
    uint32_t wire;
    const void *pt;
    nnc_fr coef;
} comb_term;

/* out[w] = sum of the terms of wire w (G1 when g2 == 0, else G2), for
 * w < nw: terms bucketed by wire (stable), then one MSM per wire. */
static nnc_status comb_run(void *out, int g2, comb_term *t, uint64_t nt, uint32_t nw, int threads)
{
    uint64_t *start = calloc((size_t)nw + 1, sizeof *start);
    comb_term *s = malloc((nt ? nt : 1) * sizeof *s);
    nnc_status st = NNC_STATUS_OK;
    if (!start || !s) {
        st = NNC_STATUS_NOMEM;
        goto done;
    }
    for (uint64_t i = 0; i < nt; i++) start[t[i].wire + 1]++;
    uint64_t maxc = 0;
    for (uint32_t w = 0; w < nw; w++) {
        if (start[w + 1] > maxc) maxc = start[w + 1];
        start[w + 1] += start[w];
    }
    {
        uint64_t *pos = malloc(((size_t)nw + 1) * sizeof *pos);
        if (!pos) {
            st = NNC_STATUS_NOMEM;
            goto done;
        }
        memcpy(pos, start, ((size_t)nw + 1) * sizeof *pos);
        for (uint64_t i = 0; i < nt; i++) s[pos[t[i].wire]++] = t[i];
        free(pos);
    }
    int fail = 0;
#pragma omp parallel num_threads(threads) reduction(| : fail)
    {
        size_t psz = g2 ? sizeof(nnc_prv_g2) : sizeof(nnc_prv_g1);
        unsigned char *pts = malloc((maxc ? maxc : 1) * psz);
        nnc_fr *sc = malloc((maxc ? maxc : 1) * sizeof *sc);
        if (!pts || !sc) fail = 1;
#pragma omp for schedule(dynamic, 64)
        for (uint32_t w = 0; w < nw; w++) {
            if (!pts || !sc) continue;
            uint64_t n = start[w + 1] - start[w];
            for (uint64_t k = 0; k < n; k++) {
                memcpy(pts + k * psz, s[start[w] + k].pt, psz);
                sc[k] = s[start[w] + k].coef;
            }
            if (g2)
                nnc_prv_g2_msm((nnc_prv_g2 *)out + w, (const nnc_prv_g2 *)pts, sc, n, 1);
            else
                nnc_prv_g1_msm((nnc_prv_g1 *)out + w, (const nnc_prv_g1 *)pts, sc, n, 1);
        }
        free(pts);
        free(sc);
    }
    if (fail) st = NNC_STATUS_NOMEM;
done:
    free(start);
    free(s);
    return st;
}

nnc_status nnc_prv_g16_setup_ptau(nnc_prv_zkey *z, const nnc_prv_r1cs *cs, const nnc_prv_ptau *p, int threads,
                                  char *err, size_t errlen)
{
    memset(z, 0, sizeof *z);
    if (threads < 1) threads = nnc_prv_online_threads();
    if (!p->prepared)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED,
                       "the powers of tau file is not prepared for phase 2 (no Lagrange sections; run snarkjs "
                       "powersoftau prepare phase2)");
    uint32_t npub = cs->n_pub_out + cs->n_pub_in, nv = cs->n_wires, nc = cs->n_constraints;
    uint64_t rows = (uint64_t)nc + npub; /* snarkjs: log2(rows) + 1 */
    if (nv < npub + 1) return nnc_err(err, errlen, NNC_STATUS_INVALID, "r1cs has fewer wires than public signals");
    uint32_t k = 1; /* (snarkjs's log2(0) is 0: at least 2 rows) */
    while (k < 40 && (UINT64_C(1) << k) <= rows) k++;
    if (k >= 28)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "the circuit needs a domain of 2^%u rows; at most 2^27 is supported",
                       k);
    if (k > p->power)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT,
                       "the circuit needs 2^%u rows (%u constraints, %u public signals); the powers of tau file holds 2^%u",
                       k, nc, npub, p->power);
    uint64_t m = UINT64_C(1) << k;
    /* snarkjs hashes m H powers for m >= 2^15: tau^(2m-1) must be in section 2 */
    uint64_t nh = m <= (UINT64_C(1) << 14) ? m - 1 : m;
    if (m + nh - 1 >= 2 * (UINT64_C(1) << p->power) - 1)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT,
                       "a domain of 2^%u rows from a powers of tau file of power %u: snarkjs's circuit hash reads past "
                       "its tauG1 section there; use a file of power %u or more",
                       k, p->power, k + 1);
    for (uint64_t e = 0; e < cs->n_terms; e++)
        if (cs->terms[e].wire >= nv)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "r1cs term %llu uses wire %u of %u", (unsigned long long)e,
                           cs->terms[e].wire, nv);
    nnc_status st = NNC_STATUS_OK;
    nnc_prv_g1 *L = malloc(m * sizeof *L), *LA = malloc(m * sizeof *LA), *LB = malloc(m * sizeof *LB);
    nnc_prv_g2 *L2 = malloc(m * sizeof *L2);
    comb_term *t = NULL;
    nnc_prv_g1 *icc = NULL;
    uint64_t nterm = 0;
    if (!L || !LA || !LB || !L2) goto nomem;
    if ((st = ptau_g1s(L, p, 12, m - 1, m, err, errlen)) || (st = ptau_g1s(LA, p, 14, m - 1, m, err, errlen)) ||
        (st = ptau_g1s(LB, p, 15, m - 1, m, err, errlen)) || (st = ptau_g2s(L2, p, 13, m - 1, m, err, errlen)))
        goto done;

    z->n_vars = nv;
    z->n_public = npub;
    z->domain_size = (uint32_t)m;
    if ((st = ptau_g1s(&z->alpha1, p, 4, 0, 1, err, errlen)) || (st = ptau_g1s(&z->beta1, p, 5, 0, 1, err, errlen)) ||
        (st = ptau_g2s(&z->beta2, p, 6, 0, 1, err, errlen)))
        goto done;
    nnc_prv_g2_generator(&z->gamma2);
    nnc_prv_g1_generator(&z->delta1);
    nnc_prv_g2_generator(&z->delta2);

    uint64_t nab = 0, ncc = 0;
    for (uint32_t c = 0; c < nc; c++) {
        nab += cs->lc_start[3 * (uint64_t)c + 2] - cs->lc_start[3 * (uint64_t)c];
        ncc += cs->lc_start[3 * (uint64_t)c + 3] - cs->lc_start[3 * (uint64_t)c];
    }
    z->coefs = malloc((nab + npub + 1) * sizeof *z->coefs);
    z->ic = calloc((size_t)npub + 1, sizeof *z->ic);
    z->a = calloc(nv, sizeof *z->a);
    z->b1 = calloc(nv, sizeof *z->b1);
    z->b2 = calloc(nv, sizeof *z->b2);
    z->c = calloc((size_t)nv - npub, sizeof *z->c);
    z->h = malloc(m * sizeof *z->h);
    icc = calloc(nv, sizeof *icc);
    t = malloc((ncc + npub + 1) * sizeof *t);
    if (!z->coefs || !z->ic || !z->a || !z->b1 || !z->b2 || !z->c || !z->h || !icc || !t) goto nomem;

    nnc_fr one;
    nnc_fr_set_one(&one);
    nnc_prv_g16_coefs(z, cs);
    /* A: the A terms at L, plus the public rows */
    for (uint32_t c = 0; c < nc; c++)
        for (uint64_t e = cs->lc_start[3 * (uint64_t)c]; e < cs->lc_start[3 * (uint64_t)c + 1]; e++)
            t[nterm++] = (comb_term){cs->terms[e].wire, &L[c], cs->terms[e].coef};
    for (uint32_t s = 0; s <= npub; s++) t[nterm++] = (comb_term){s, &L[nc + s], one};
    if ((st = comb_run(z->a, 0, t, nterm, nv, threads))) goto nomem;
    /* B1 and B2: the B terms at L and L2 */
    nterm = 0;
    for (uint32_t c = 0; c < nc; c++)
        for (uint64_t e = cs->lc_start[3 * (uint64_t)c + 1]; e < cs->lc_start[3 * (uint64_t)c + 2]; e++)
            t[nterm++] = (comb_term){cs->terms[e].wire, &L[c], cs->terms[e].coef};
    if ((st = comb_run(z->b1, 0, t, nterm, nv, threads))) goto nomem;
    for (uint64_t i = 0; i < nterm; i++) t[i].pt = &L2[(const nnc_prv_g1 *)t[i].pt - L];
    if ((st = comb_run(z->b2, 1, t, nterm, nv, threads))) goto nomem;
    /* IC and C: A at LB, B at LA, C at L, plus the public rows at LB */
    nterm = 0;
    for (uint32_t c = 0; c < nc; c++) {
        const nnc_prv_g1 *at[3] = {&LB[c], &LA[c], &L[c]};
        for (uint32_t mat = 0; mat < 3; mat++)
            for (uint64_t e = cs->lc_start[3 * (uint64_t)c + mat]; e < cs->lc_start[3 * (uint64_t)c + mat + 1]; e++)
                t[nterm++] = (comb_term){cs->terms[e].wire, at[mat], cs->terms[e].coef};
    }
    for (uint32_t s = 0; s <= npub; s++) t[nterm++] = (comb_term){s, &LB[nc + s], one};
    if ((st = comb_run(icc, 0, t, nterm, nv, threads))) goto nomem;
    memcpy(z->ic, icc, ((size_t)npub + 1) * sizeof *icc);
    memcpy(z->c, icc + npub + 1, ((size_t)nv - npub - 1) * sizeof *icc);
    /* H: the odd Lagrange points of domain 2m */
    {
        const unsigned char *base = p->map + p->off[12] + (2 * m - 1) * G1B;
        for (uint64_t j = 0; j < m; j++)
            if (!lem_g1(&z->h[j], base + (2 * j + 1) * G1B)) {
                st = nnc_err(err, errlen, NNC_STATUS_INVALID, "ptau section 12 point %llu is not a valid G1 point",
                             (unsigned long long)(2 * m - 1 + 2 * j + 1));
                goto done;
            }
    }

    /* the circuit hash */
    {
        crypto_generichash_state h;
        unsigned char cs_hash[64];
        crypto_generichash_init(&h, NULL, 0, 64);
        hash_g1(&h, &z->alpha1);
        hash_g1(&h, &z->beta1);
        hash_g2(&h, &z->beta2);
        hash_g2(&h, &z->gamma2);
        hash_g1(&h, &z->delta1);
        hash_g2(&h, &z->delta2);
        hash_u32(&h, npub + 1);
        for (uint32_t i = 0; i <= npub; i++) hash_g1(&h, &z->ic[i]);
        hash_u32(&h, (uint32_t)(m - 1));
        for (uint64_t i = 0; i < nh; i++) {
            nnc_prv_g1 hi, lo;
            if ((st = ptau_g1s(&hi, p, 2, m + i, 1, err, errlen)) || (st = ptau_g1s(&lo, p, 2, i, 1, err, errlen)))
                goto done;
            nnc_prv_g1_neg(&lo, &lo);
            nnc_prv_g1_add(&hi, &hi, &lo);
            hash_g1(&h, &hi);
        }
        hash_u32(&h, nv - npub - 1);
        for (uint32_t i = 0; i < nv - npub - 1; i++) hash_g1(&h, &z->c[i]);
        hash_u32(&h, nv);
        for (uint32_t i = 0; i < nv; i++) hash_g1(&h, &z->a[i]);
        hash_u32(&h, nv);
        for (uint32_t i = 0; i < nv; i++) hash_g1(&h, &z->b1[i]);
        hash_u32(&h, nv);
        for (uint32_t i = 0; i < nv; i++) hash_g2(&h, &z->b2[i]);
        crypto_generichash_final(&h, cs_hash, 64);
        z->contributions = malloc(68);
        if (!z->contributions) goto nomem;
        memcpy(z->contributions, cs_hash, 64);
        wr_le32(z->contributions + 64, 0);
        z->contributions_len = 68;
    }
    goto done;
nomem:
    st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory setting up a key of %u wires and domain 2^%u", nv, k);
done:
    free(L);
    free(LA);
    free(LB);
    free(L2);
    free(t);
    free(icc);
    if (st) nnc_prv_zkey_clear(z);
    return st;
}

/* ------------------------------------------------------------ section 10 */

void nnc_prv_mpc_clear(nnc_prv_mpc *m)
{
    if (m == NULL) return;
    free(m->c);
    memset(m, 0, sizeof *m);
}

/* U(deltaAfter) U(g1_s) U(g1_sx) U(g2_spx) transcript: 384 bytes. */
static void hash_pubkey(crypto_generichash_state *h, const nnc_prv_mpc_contrib *c)
{
    hash_g1(h, &c->delta_after);
    hash_g1(h, &c->g1_s);
    hash_g1(h, &c->g1_sx);
    hash_g2(h, &c->g2_spx);
    crypto_generichash_update(h, c->transcript, 64);
}

static void contrib_hash(nnc_prv_mpc_contrib *c)
{
    crypto_generichash_state h;
    crypto_generichash_init(&h, NULL, 0, 64);
    hash_pubkey(&h, c);
    crypto_generichash_final(&h, c->hash, 64);
}

nnc_status nnc_prv_mpc_parse(nnc_prv_mpc *m, const nnc_prv_zkey *z, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    const unsigned char *p = z->contributions;
    size_t len = z->contributions_len, pos;
    if (p == NULL)
        return nnc_err(err, errlen, NNC_STATUS_PARSE,
                       "the key has no contributions section (10): it was not set up from a powers of tau file "
                       "(nncert's single-party setup?)");
    if (len < 68) return nnc_err(err, errlen, NNC_STATUS_PARSE, "zkey contributions section has %zu bytes (68 at least)", len);
    memcpy(m->cs_hash, p, 64);
    uint32_t n = rd_le32(p + 64);
    if (n > (len - 68) / REC_FIXED)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "zkey contributions section declares %u records in %zu bytes", n, len);
    m->c = calloc(n ? n : 1, sizeof *m->c);
    if (!m->c) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    m->n = n;
    pos = 68;
    for (uint32_t i = 0; i < n; i++) {
        nnc_prv_mpc_contrib *c = &m->c[i];
        if (len - pos < REC_FIXED) goto trunc;
        c->raw_off = pos;
        if (!lem_g1(&c->delta_after, p + pos) || !lem_g1(&c->g1_s, p + pos + G1B) ||
            !lem_g1(&c->g1_sx, p + pos + 2 * G1B) || !lem_g2(&c->g2_spx, p + pos + 3 * G1B) ||
            !nnc_prv_g2_is_valid(&c->g2_spx)) {
            nnc_prv_mpc_clear(m);
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "zkey contribution %u has a point off its curve or subgroup",
                           i + 1);
        }
        pos += 3 * G1B + G2B;
        memcpy(c->transcript, p + pos, 64);
        pos += 64;
        c->type = rd_le32(p + pos);
        uint32_t plen = rd_le32(p + pos + 4);
        pos += 8;
        if (plen > len - pos) goto trunc;
        size_t end = pos + plen;
        int last = 0;
        while (pos < end) {
            int id = p[pos++];
            if (id <= last || id > 3) {
                nnc_prv_mpc_clear(m);
                return nnc_err(err, errlen, NNC_STATUS_PARSE, "zkey contribution %u: parameter %d %s", i + 1, id,
                               id <= last ? "out of order" : "not recognised");
            }
            last = id;
            if (pos >= end) goto trunc;
            if (id == 2) {
                c->num_iter_exp = p[pos++];
                continue;
            }
            size_t l = p[pos++];
            if (l > end - pos) goto trunc;
            if (id == 1) {
                memcpy(c->name, p + pos, l);
                c->name[l] = 0;
            } else {
                memcpy(c->beacon_hash, p + pos, l);
                c->beacon_len = (uint32_t)l;
            }
            pos += l;
        }
        c->raw_len = pos - c->raw_off;
        contrib_hash(c);
    }
    if (pos != len) {
        nnc_prv_mpc_clear(m);
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "zkey contributions section has %zu bytes after its records",
                       len - pos);
    }
    return NNC_STATUS_OK;
trunc:
    nnc_prv_mpc_clear(m);
    return nnc_err(err, errlen, NNC_STATUS_PARSE, "zkey contributions section is truncated");
}

/* ------------------------------------------------------------ contribute */

/* Every point of pts[n] times k (constant time: k is secret). */
static void g1_scale(nnc_prv_g1 *pts, uint64_t n, const nnc_fr *k, int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static, 256)
    for (uint64_t i = 0; i < n; i++) nnc_prv_g1_mul(&pts[i], &pts[i], k);
}

/* The contribution of the key derived from rng (shared by contribute and
 * beacon): z updated in place, the record appended to section 10. */
static nnc_status apply_key(nnc_prv_zkey *z, mpc_rng *rng, uint32_t type, const char *name, uint32_t exp,
                            const unsigned char *beacon, size_t blen, unsigned char hash[64], int threads, char *err,
                            size_t errlen)
{
    const uint64_t rm[4] = NNC_FR_MODULUS_INIT;
    nnc_prv_mpc m;
    nnc_status st;
    size_t nlen = name ? strlen(name) : 0;
    if (threads < 1) threads = nnc_prv_online_threads();
    if (nlen > 255) return nnc_err(err, errlen, NNC_STATUS_ARG, "contribution name longer than 255 bytes");
    if ((st = nnc_prv_mpc_parse(&m, z, err, errlen))) return st;
    if (m.n == UINT32_MAX) {
        nnc_prv_mpc_clear(&m);
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "the key has 2^32 - 1 contributions");
    }
    nnc_prv_mpc_contrib c;
    memset(&c, 0, sizeof c);
    nnc_fr k, kinv;
    rng_fe(k.v, rng, rm);
    g1_from_rng(&c.g1_s, rng);
    nnc_prv_g1_mul(&c.g1_sx, &c.g1_s, &k);
    {
        crypto_generichash_state h;
        crypto_generichash_init(&h, NULL, 0, 64);
        crypto_generichash_update(&h, m.cs_hash, 64);
        for (uint32_t i = 0; i < m.n; i++) hash_pubkey(&h, &m.c[i]);
        hash_g1(&h, &c.g1_s);
        hash_g1(&h, &c.g1_sx);
        crypto_generichash_final(&h, c.transcript, 64);
    }
    nnc_prv_g2 sp;
    nnc_prv_mpc_hash_to_g2(&sp, c.transcript);
    nnc_prv_g2_mul(&c.g2_spx, &sp, &k);
    nnc_prv_g1_mul(&z->delta1, &z->delta1, &k);
    nnc_prv_g2_mul(&z->delta2, &z->delta2, &k);
    c.delta_after = z->delta1;
    nnc_fr_inv(&kinv, &k);
    g1_scale(z->c, (uint64_t)z->n_vars - z->n_public - 1, &kinv, threads);
    g1_scale(z->h, z->domain_size, &kinv, threads);
    sodium_memzero(&k, sizeof k);
    sodium_memzero(&kinv, sizeof kinv);
    contrib_hash(&c);
    memcpy(hash, c.hash, 64);
    nnc_prv_mpc_clear(&m);

    /* the record: points, transcript, type, params */
    size_t plen = (nlen ? 2 + nlen : 0) + (type == 1 ? 2 + 2 + blen : 0);
    size_t rlen = REC_FIXED + plen, old = z->contributions_len;
    unsigned char *nb = realloc(z->contributions, old + rlen);
    if (!nb) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    z->contributions = nb;
    unsigned char *r = nb + old;
    put_lem_g1(r, &c.delta_after);
    put_lem_g1(r + G1B, &c.g1_s);
    put_lem_g1(r + 2 * G1B, &c.g1_sx);
    put_lem_g2(r + 3 * G1B, &c.g2_spx);
    r += 3 * G1B + G2B;
    memcpy(r, c.transcript, 64);
    r += 64;
    wr_le32(r, type);
    wr_le32(r + 4, (uint32_t)plen);
    r += 8;
    if (nlen) {
        *r++ = 1;
        *r++ = (unsigned char)nlen;
        memcpy(r, name, nlen);
        r += nlen;
    }
    if (type == 1) {
        *r++ = 2;
        *r++ = (unsigned char)exp;
        *r++ = 3;
        *r++ = (unsigned char)blen;
        memcpy(r, beacon, blen);
    }
    wr_le32(nb + 64, rd_le32(nb + 64) + 1);
    z->contributions_len = old + rlen;
    z->numeric_order = 1;
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_zkey_contribute(nnc_prv_zkey *z, const char *entropy, const char *name, unsigned char hash[64],
                                   int threads, char *err, size_t errlen)
{
    unsigned char os[64], seed[64];
    crypto_generichash_state h;
    mpc_rng rng;
    randombytes_buf(os, sizeof os);
    crypto_generichash_init(&h, NULL, 0, 64);
    crypto_generichash_update(&h, os, sizeof os);
    if (entropy) crypto_generichash_update(&h, (const unsigned char *)entropy, strlen(entropy));
    crypto_generichash_final(&h, seed, 64);
    rng_init(&rng, seed);
    nnc_status st = apply_key(z, &rng, 0, name, 0, NULL, 0, hash, threads, err, errlen);
    sodium_memzero(os, sizeof os);
    sodium_memzero(seed, sizeof seed);
    sodium_memzero(&h, sizeof h);
    rng_wipe(&rng);
    return st;
}

/* SHA-256 applied 2^exp times to beacon[0..len). */
static void beacon_digest(unsigned char out[32], const unsigned char *beacon, size_t len, uint32_t exp)
{
    crypto_hash_sha256(out, beacon, len);
    for (uint64_t i = 1; i >> exp == 0; i++) crypto_hash_sha256(out, out, 32);
}

nnc_status nnc_prv_zkey_beacon(nnc_prv_zkey *z, const unsigned char *beacon, size_t len, uint32_t num_iter_exp,
                               const char *name, unsigned char hash[64], int threads, char *err, size_t errlen)
{
    if (len < 1 || len > 255) return nnc_err(err, errlen, NNC_STATUS_ARG, "the beacon hash has %zu bytes (1..255)", len);
    if (num_iter_exp < 10 || num_iter_exp > 63)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "the beacon's iteration exponent %u is outside 10..63", num_iter_exp);
    unsigned char d[32];
    mpc_rng rng;
    beacon_digest(d, beacon, len, num_iter_exp);
    rng_init(&rng, d);
    nnc_status st = apply_key(z, &rng, 1, name, num_iter_exp, beacon, len, hash, threads, err, errlen);
    rng_wipe(&rng);
    return st;
}

/* ------------------------------------------------------------ verify */

/* e(a1, b2) == e(b1, a2); false when a point is infinity (as snarkjs). */
static int same_ratio(const nnc_prv_g1 *a1, const nnc_prv_g1 *b1, const nnc_prv_g2 *a2, const nnc_prv_g2 *b2)
{
    nnc_prv_g1 p[2];
    nnc_prv_g2 q[2];
    if (nnc_g1_aff_is_inf(a1) || nnc_g1_aff_is_inf(b1) || nnc_g2_aff_is_inf(a2) || nnc_g2_aff_is_inf(b2)) return 0;
    p[0] = *a1;
    nnc_prv_g1_neg(&p[1], b1);
    q[0] = *b2;
    q[1] = *a2;
    return nnc_prv_pairing_check(p, q, 2);
}

/* Random linear combinations of x[n] (the first key's) and y[n] (the
 * key's): y = x / delta for the key's delta iff e(Rx, G2) = e(Ry, delta2). */
static int lincomb_ratio(const nnc_prv_g1 *x, const nnc_prv_g1 *y, uint64_t n, const nnc_prv_g2 *delta2, int threads,
                         int *nomem)
{
    if (n == 0) return 1;
    nnc_fr *rho = malloc(n * sizeof *rho);
    if (!rho) {
        *nomem = 1;
        return 0;
    }
    for (uint64_t i = 0; i < n; i++) nnc_prv_fr_random(&rho[i]);
    nnc_prv_g1 rx, ry, p[2];
    nnc_prv_g2 q[2];
    nnc_prv_g1_msm(&rx, x, rho, n, threads);
    nnc_prv_g1_msm(&ry, y, rho, n, threads);
    free(rho);
    p[0] = rx;
    nnc_prv_g2_generator(&q[0]);
    nnc_prv_g1_neg(&p[1], &ry);
    q[1] = *delta2;
    return nnc_prv_pairing_check(p, q, 2);
}

static int g1s_eq(const nnc_prv_g1 *a, const nnc_prv_g1 *b, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (!nnc_prv_g1_eq(&a[i], &b[i])) return 0;
    return 1;
}

#define FAIL(...)                                  \
    do {                                           \
        snprintf(why, whylen, __VA_ARGS__);        \
        goto verdict;                              \
    } while (0)

nnc_status nnc_prv_zkey_verify(int *ok, char *why, size_t whylen, nnc_prv_mpc *out, const nnc_prv_r1cs *cs,
                               const nnc_prv_ptau *p, const nnc_prv_zkey *z, int threads, char *err, size_t errlen)
{
    nnc_prv_zkey init;
    nnc_prv_mpc m;
    nnc_status st;
    *ok = 0;
    memset(out, 0, sizeof *out);
    if (why && whylen) why[0] = 0;
    if (threads < 1) threads = nnc_prv_online_threads();
    if ((st = nnc_prv_mpc_parse(&m, z, err, errlen))) return st;
    if ((st = nnc_prv_g16_setup_ptau(&init, cs, p, threads, err, errlen))) {
        nnc_prv_mpc_clear(&m);
        return st;
    }
    /* the chain of contributions */
    crypto_generichash_state acc;
    nnc_prv_g1 cur;
    nnc_prv_g1_generator(&cur);
    crypto_generichash_init(&acc, NULL, 0, 64);
    crypto_generichash_update(&acc, m.cs_hash, 64);
    for (uint32_t i = 0; i < m.n; i++) {
        const nnc_prv_mpc_contrib *c = &m.c[i];
        crypto_generichash_state h = acc;
        unsigned char tr[64];
        hash_g1(&h, &c->g1_s);
        hash_g1(&h, &c->g1_sx);
        crypto_generichash_final(&h, tr, 64);
        if (memcmp(tr, c->transcript, 64) != 0) FAIL("contribution #%u: its transcript does not follow the chain", i + 1);
        nnc_prv_g2 sp;
        nnc_prv_mpc_hash_to_g2(&sp, c->transcript);
        if (!same_ratio(&c->g1_s, &c->g1_sx, &sp, &c->g2_spx))
            FAIL("contribution #%u: its G1 and G2 public keys are not for the same secret", i + 1);
        if (!same_ratio(&cur, &c->delta_after, &sp, &c->g2_spx))
            FAIL("contribution #%u: its delta is not the previous one times its secret", i + 1);
        if (c->type == 1) {
            const uint64_t rm[4] = NNC_FR_MODULUS_INIT;
            unsigned char d[32];
            mpc_rng rng;
            nnc_fr k;
            nnc_prv_g1 s, sx;
            if (c->num_iter_exp < 10 || c->num_iter_exp > 63 || c->beacon_len == 0)
                FAIL("contribution #%u: a beacon without a usable hash and iteration exponent", i + 1);
            beacon_digest(d, c->beacon_hash, c->beacon_len, c->num_iter_exp);
            rng_init(&rng, d);
            rng_fe(k.v, &rng, rm);
            g1_from_rng(&s, &rng);
            rng_wipe(&rng);
            nnc_prv_g1_mul_var(&sx, &s, &k);
            if (!nnc_prv_g1_eq(&s, &c->g1_s) || !nnc_prv_g1_eq(&sx, &c->g1_sx))
                FAIL("contribution #%u: its key is not the one its beacon derives", i + 1);
        } else if (c->type != 0) {
            FAIL("contribution #%u: unknown type %u", i + 1, c->type);
        }
        hash_pubkey(&acc, c);
        cur = c->delta_after;
    }
    /* the key against the first key */
    if (z->n_vars != init.n_vars || z->n_public != init.n_public || z->domain_size != init.domain_size)
        FAIL("the key is for another circuit: %u wires, %u public signals, domain %u (the circuit: %u, %u, %u)", z->n_vars,
             z->n_public, z->domain_size, init.n_vars, init.n_public, init.domain_size);
    if (!nnc_prv_g1_eq(&z->alpha1, &init.alpha1) || !nnc_prv_g1_eq(&z->beta1, &init.beta1) ||
        !nnc_prv_g2_eq(&z->beta2, &init.beta2) || !nnc_prv_g2_eq(&z->gamma2, &init.gamma2))
        FAIL("the key's alpha, beta or gamma is not the powers of tau file's");
    if (!nnc_prv_g1_eq(&z->delta1, &cur)) FAIL("the key's delta1 is not the last contribution's");
    {
        nnc_prv_g1 g1;
        nnc_prv_g2 g2;
        nnc_prv_g1_generator(&g1);
        nnc_prv_g2_generator(&g2);
        if (!same_ratio(&g1, &cur, &g2, &z->delta2)) FAIL("the key's delta2 does not match its delta1");
    }
    if (memcmp(m.cs_hash, init.contributions, 64) != 0) FAIL("the key's circuit hash is not this circuit's");
    if (!g1s_eq(z->ic, init.ic, (uint64_t)init.n_public + 1)) FAIL("the key's IC section is not this circuit's");
    if (!nnc_prv_g16_coefs_match(z, cs)) FAIL("the key's coefficient section is not this circuit's");
    if (!g1s_eq(z->a, init.a, init.n_vars)) FAIL("the key's A section is not this circuit's");
    if (!g1s_eq(z->b1, init.b1, init.n_vars)) FAIL("the key's B1 section is not this circuit's");
    for (uint32_t i = 0; i < init.n_vars; i++)
        if (!nnc_prv_g2_eq(&z->b2[i], &init.b2[i])) FAIL("the key's B2 section is not this circuit's");
    int nomem = 0;
    if (!lincomb_ratio(init.c, z->c, (uint64_t)init.n_vars - init.n_public - 1, &z->delta2, threads, &nomem)) {
        if (nomem) goto nomem;
        FAIL("the key's L section is not the circuit's divided by delta");
    }
    if (!lincomb_ratio(init.h, z->h, init.domain_size, &z->delta2, threads, &nomem)) {
        if (nomem) goto nomem;
        FAIL("the key's H section is not the circuit's divided by delta");
    }
    *ok = 1;
verdict:
    nnc_prv_zkey_clear(&init);
    if (*ok)
        *out = m;
    else
        nnc_prv_mpc_clear(&m);
    return NNC_STATUS_OK;
nomem:
    nnc_prv_zkey_clear(&init);
    nnc_prv_mpc_clear(&m);
    return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory verifying the key");
}
#undef FAIL
