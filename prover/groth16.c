/* Groth16 on BN254, file-compatible with snarkjs (bn128): single-party setup
 * from a circom .r1cs, proving from a snarkjs .zkey and .wtns, verification
 * from verification_key.json / public.json / proof.json.
 *
 * Conventions are snarkjs's (groth16_prove.js, zkey_new.js):
 *   - the QAP domain H has n = domain_size points w^i; the .zkey stores the
 *     A and B matrix entries (C = A*B row by row on the domain), plus
 *     A[n_constraints + s][s] = 1 for every public wire s (wire 0 included);
 *   - h is handled on the coset g*H with g = w_2n, a primitive 2n-th root of
 *     unity, where Z(x) = x^n - 1 equals g^n - 1 = -2.  The prover evaluates
 *     P = A*B - C at the coset points and takes MSM(H section, P); so the
 *     setup stores H_i = [ L'_i(tau) Z(tau) / (-2 delta) ]_1 with L'_i the
 *     Lagrange basis of the coset:
 *       L'_i(x) = (x^n + 1) x_i / (-n (x - x_i)),  x_i = g w^i;
 *   - pi_a = alpha + sum w_j A_j + r delta, pi_b = beta + sum w_j B_j + s delta,
 *     pi_c = sum_private w_j C_j + MSM(H, P) + s pi_a + r pi_b1 - r s delta1.
 * Verification checks e(-A, B) e(alpha, beta) e(L, gamma) e(C, delta) = 1,
 * L = IC_0 + sum pub_i IC_i.
 *
 * Secrets (the toxic waste of setup, the blinding r and s of a proof) come
 * from libsodium's randombytes and are wiped with sodium_memzero. */
#include "prover/groth16_impl.h"

#include "prover/curve_impl.h"
#include "prover/field_impl.h"
#include "prover/fixedbase_impl.h"
#include "prover/msm_impl.h"
#include "prover/ntt_impl.h"
#include "prover/pairing_impl.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int nnc_prv_online_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

void nnc_prv_fr_random(nnc_fr *out)
{
    for (;;) {
        unsigned char b[32];
        randombytes_buf(b, sizeof b);
        b[31] &= 0x3f; /* < 2^254 */
        uint64_t x[4];
        nnc_fe4_int_from_b32(x, b, NNC_PRV_ENDIAN_LITTLE);
        sodium_memzero(b, sizeof b);
        int ok = nnc_fr_from_int(out, x);
        sodium_memzero(x, sizeof x);
        if (ok && !nnc_fr_is_zero(out)) return;
    }
}

/* x[i] <- 1 / x[i] for nonzero x (Montgomery's trick: one inversion). */
static int fr_batch_inv(nnc_fr *x, uint32_t n)
{
    nnc_fr *pre = malloc(sizeof(nnc_fr) * ((size_t)n + 1));
    if (pre == NULL) return -1;
    nnc_fr acc, inv, t;
    nnc_fr_set_one(&acc);
    for (uint32_t i = 0; i < n; i++) {
        pre[i] = acc;
        nnc_fr_mul(&acc, &acc, &x[i]);
    }
    nnc_fr_inv(&inv, &acc);
    for (uint32_t i = n; i-- > 0;) {
        nnc_fr_mul(&t, &inv, &pre[i]); /* 1 / x[i] */
        nnc_fr_mul(&inv, &inv, &x[i]);
        x[i] = t;
    }
    sodium_memzero(pre, sizeof(nnc_fr) * n);
    free(pre);
    return 0;
}

static int log2_exact(uint32_t n)
{
    int k = 0;
    while ((1u << k) < n) k++;
    return (1u << k) == n ? k : -1;
}

/* ---------------------------------------------------------------- verify */

nnc_status nnc_prv_g16_verify(int *valid, const nnc_prv_g16_vk *vk, const nnc_prv_fr_vec *pub,
                              const nnc_prv_g16_proof *proof, char *err, size_t errlen)
{
    *valid = 0;
    if (pub->n != vk->n_public)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "wrong number of public inputs: %zu given, the key expects %u",
                       (size_t)pub->n, vk->n_public);
    if (!nnc_prv_g1_is_valid(&proof->a) || !nnc_prv_g2_is_valid(&proof->b) || !nnc_prv_g1_is_valid(&proof->c))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "proof point not on the curve or not in the subgroup");
    /* L = IC_0 + sum pub_i IC_{i+1} */
    nnc_prv_g1 L = vk->ic[0];
    for (size_t i = 0; i < pub->n; i++) {
        nnc_prv_g1 t;
        nnc_prv_g1_mul_var(&t, &vk->ic[i + 1], &pub->v[i]);
        nnc_prv_g1_add(&L, &L, &t);
    }
    nnc_prv_g1 p[4];
    nnc_prv_g2 q[4];
    nnc_prv_g1_neg(&p[0], &proof->a);
    q[0] = proof->b;
    p[1] = vk->alpha1;
    q[1] = vk->beta2;
    p[2] = L;
    q[2] = vk->gamma2;
    p[3] = proof->c;
    q[3] = vk->delta2;
    *valid = nnc_prv_pairing_check(p, q, 4);
    return NNC_STATUS_OK;
}

/* ----------------------------------------------------------------- prove */

nnc_status nnc_prv_g16_prove(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                             const nnc_prv_fr_vec *w, int threads, char *err, size_t errlen)
{
    return nnc_prv_g16_prove_progress(proof, pub, z, w, threads, NULL, NULL, err, errlen);
}

/* Progress in rough work units: a G1 MSM point ~ 200 field multiplications,
 * a G2 point three times that, an NTT element log2(n)/2 per transform. */
#define G16_PROGRESS(stage, units)                                                                                   \
    do {                                                                                                            \
        if (progress) progress(progress_ctx, stage, (work_done += (units)) / total);                                     \
    } while (0)

nnc_status nnc_prv_g16_prove_progress(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                      const nnc_prv_fr_vec *w, int threads,
                                      void (*progress)(void *ctx, const char *stage, double fraction),
                                      void *progress_ctx, char *err, size_t errlen)
{
    return nnc_prv_g16_prove_r1cs(proof, pub, z, NULL, w, threads, progress, progress_ctx, err, errlen);
}

/* a[i] = (A w)_i, b[i] = (B w)_i on the n rows of the domain (zeroed by the
 * caller): from the key's coefficient section, or, when cs is not NULL,
 * from the circuit's A and B rows plus the rows snarkjs adds for the public
 * signals (A: wire s at row n_constraints + s, coefficient 1, s <= n_public),
 * exactly the entries nnc_prv_g16_setup writes to a key. */
static nnc_status g16_ab(nnc_fr *a, nnc_fr *b, const nnc_prv_zkey *z, const nnc_prv_r1cs *cs, const nnc_prv_fr_vec *w,
                         char *err, size_t errlen)
{
    uint32_t n = z->domain_size;
    nnc_fr t;
    if (cs == NULL) {
        if (z->n_coefs == 0)
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "the key has no coefficient section (set up without it)");
        for (uint32_t i = 0; i < z->n_coefs; i++) {
            const nnc_prv_zkey_coef *cf = &z->coefs[i];
            if (cf->constraint >= n || cf->signal >= z->n_vars || cf->matrix > 1)
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "key coefficient %u out of range", i);
            nnc_fr_mul(&t, &cf->value, &w->v[cf->signal]);
            nnc_fr *dst = cf->matrix == 0 ? &a[cf->constraint] : &b[cf->constraint];
            nnc_fr_add(dst, dst, &t);
        }
        return NNC_STATUS_OK;
    }
    uint64_t npub = (uint64_t)cs->n_pub_out + cs->n_pub_in;
    if (cs->n_wires != z->n_vars || npub != z->n_public || (uint64_t)cs->n_constraints + npub + 1 > n)
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "the circuit (%u wires, %llu public signals, %u constraints) does not match the key (%u wires, %u "
                       "public signals, domain %u)",
                       cs->n_wires, (unsigned long long)npub, cs->n_constraints, z->n_vars, z->n_public, n);
    for (uint32_t c = 0; c < cs->n_constraints; c++)
        for (int m = 0; m < 2; m++) {
            nnc_fr *dst = m == 0 ? &a[c] : &b[c];
            for (uint64_t e = cs->lc_start[3 * (uint64_t)c + (uint64_t)m]; e < cs->lc_start[3 * (uint64_t)c + (uint64_t)m + 1];
                 e++) {
                const nnc_prv_r1cs_term *term = &cs->terms[e];
                if (term->wire >= z->n_vars)
                    return nnc_err(err, errlen, NNC_STATUS_INVALID, "constraint %u uses wire %u of %u", c, term->wire, z->n_vars);
                nnc_fr_mul(&t, &term->coef, &w->v[term->wire]);
                nnc_fr_add(dst, dst, &t);
            }
        }
    for (uint64_t s = 0; s <= npub; s++) nnc_fr_add(&a[cs->n_constraints + s], &a[cs->n_constraints + s], &w->v[s]);
    return NNC_STATUS_OK;
}

/* g16_ab's a and b from values the witness's builder gave. */
static nnc_status g16_ab_given(nnc_fr *a, nnc_fr *b, const nnc_prv_zkey *z, const nnc_prv_g16_ab *ab, const nnc_prv_fr_vec *w,
                               char *err, size_t errlen)
{
    if ((uint64_t)ab->n_constraints + z->n_public + 1 > z->domain_size)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "%u constraints and %u public signals do not fit the key's domain of %u",
                       ab->n_constraints, z->n_public, z->domain_size);
    for (uint32_t c = 0; c < ab->n_constraints; c++) {
        a[c] = ab->ab[2 * (uint64_t)c];
        b[c] = ab->ab[2 * (uint64_t)c + 1];
    }
    for (uint64_t s = 0; s <= z->n_public; s++) nnc_fr_add(&a[ab->n_constraints + s], &a[ab->n_constraints + s], &w->v[s]);
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_g16_prove_r1cs(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                  const nnc_prv_r1cs *cs, const nnc_prv_fr_vec *w, int threads,
                                  void (*progress)(void *ctx, const char *stage, double fraction), void *progress_ctx,
                                  char *err, size_t errlen)
{
    return nnc_prv_g16_prove_on(proof, pub, z, cs, w, threads, NULL, progress, progress_ctx, err, errlen);
}

/* The prover's MSMs and NTTs on the backend be, or the CPU (be NULL). */
static nnc_status g1_msm_on(const nnc_prv_backend *be, nnc_prv_g1 *out, const nnc_prv_g1 *p, const nnc_prv_fr *s,
                            size_t n, int threads, char *err, size_t errlen)
{
    if (be) return be->g1_msm(out, p, s, n, err, errlen);
    nnc_prv_g1_msm(out, p, s, n, threads);
    return NNC_STATUS_OK;
}

static nnc_status g2_msm_on(const nnc_prv_backend *be, nnc_prv_g2 *out, const nnc_prv_g2 *p, const nnc_prv_fr *s,
                            size_t n, int threads, char *err, size_t errlen)
{
    if (be) return be->g2_msm(out, p, s, n, err, errlen);
    nnc_prv_g2_msm(out, p, s, n, threads);
    return NNC_STATUS_OK;
}

/* *out = [s1] p1 + [s2] p2 (sums of n1 and n2 terms): the CPU's one run. */
static nnc_status g1_msm2_on(const nnc_prv_backend *be, nnc_prv_g1 *out, const nnc_prv_g1 *p1, const nnc_prv_fr *s1,
                             size_t n1, const nnc_prv_g1 *p2, const nnc_prv_fr *s2, size_t n2, int threads, char *err,
                             size_t errlen)
{
    if (be == NULL) {
        nnc_prv_g1_msm2(out, p1, s1, n1, p2, s2, n2, threads);
        return NNC_STATUS_OK;
    }
    nnc_prv_g1 t;
    nnc_status st = be->g1_msm(out, p1, s1, n1, err, errlen);
    if (st == NNC_STATUS_OK) st = be->g1_msm(&t, p2, s2, n2, err, errlen);
    if (st == NNC_STATUS_OK) nnc_prv_g1_add(out, out, &t);
    return st;
}

/* Values on the domain -> values on the coset g H, for np polynomials. */
static nnc_status to_coset_on(const nnc_prv_backend *be, nnc_fr *const *polys, int np, uint32_t n, const nnc_fr *g,
                              int threads, char *err, size_t errlen)
{
    nnc_status st = NNC_STATUS_OK;
    if (be == NULL) {
        if ((st = nnc_prv_ntt_to_coset(polys, np, n, g, threads))) nnc_err(err, errlen, st, "NTT failed");
        return st;
    }
    for (int p = 0; p < np && st == NNC_STATUS_OK; p++) {
        st = be->ntt(polys[p], n, 1, err, errlen);
        if (st == NNC_STATUS_OK) st = be->coset_ntt(polys[p], n, 0, g, err, errlen);
    }
    return st;
}

/* ---- a team of ranks (nncert/team.h): the MSMs split by index ranges,
 * the quotient's polynomials by rank; every rank ends with the proof ---- */

/* Every rank's sz-byte value; each rank's at all + q * sz.  Returns OK or
 * the exchange's status (INVALID for a rank that sent another size). */
static nnc_status team_all(const nnc_team *t, const void *mine, size_t sz, unsigned char **all, char *err, size_t errlen)
{
    size_t *lens = malloc(sizeof(size_t) * (size_t)t->size);
    if (lens == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    nnc_status st = t->allgather(t->ctx, mine, sz, all, lens, err, errlen);
    for (int q = 0; st == NNC_STATUS_OK && q < t->size; q++)
        if (lens[q] != sz) st = nnc_err(err, errlen, NNC_STATUS_INVALID, "rank %d sent %zu bytes where %zu were due", q, lens[q], sz);
    if (st) {
        free(*all);
        *all = NULL;
    }
    free(lens);
    return st;
}

/* *acc <- the sum over the ranks of their *acc (G1 or G2: add). */
static nnc_status team_sum(const nnc_team *t, void *acc, size_t sz, void (*add)(void *, const void *, const void *),
                           char *err, size_t errlen)
{
    unsigned char *all = NULL;
    nnc_status st = team_all(t, acc, sz, &all, err, errlen);
    if (st) return st;
    memcpy(acc, all, sz);
    for (int q = 1; q < t->size; q++) add(acc, acc, all + sz * (size_t)q);
    /* partial sums of witness terms, unblinded */
    sodium_memzero(all, sz * (size_t)t->size);
    free(all);
    return NNC_STATUS_OK;
}

static void g1_add_v(void *o, const void *a, const void *b) { nnc_prv_g1_add(o, a, b); }
static void g2_add_v(void *o, const void *a, const void *b) { nnc_prv_g2_add(o, a, b); }

static nnc_status g1_msm_team(const nnc_team *t, const nnc_prv_backend *be, nnc_prv_g1 *out, const nnc_prv_g1 *p,
                              const nnc_prv_fr *s, size_t n, int threads, char *err, size_t errlen)
{
    if (t == NULL) return g1_msm_on(be, out, p, s, n, threads, err, errlen);
    uint64_t lo, hi;
    nnc_team_share(t, n, &lo, &hi);
    nnc_status st = g1_msm_on(be, out, p + lo, s + lo, hi - lo, threads, err, errlen);
    return st ? st : team_sum(t, out, sizeof *out, g1_add_v, err, errlen);
}

static nnc_status g2_msm_team(const nnc_team *t, const nnc_prv_backend *be, nnc_prv_g2 *out, const nnc_prv_g2 *p,
                              const nnc_prv_fr *s, size_t n, int threads, char *err, size_t errlen)
{
    if (t == NULL) return g2_msm_on(be, out, p, s, n, threads, err, errlen);
    uint64_t lo, hi;
    nnc_team_share(t, n, &lo, &hi);
    nnc_status st = g2_msm_on(be, out, p + lo, s + lo, hi - lo, threads, err, errlen);
    return st ? st : team_sum(t, out, sizeof *out, g2_add_v, err, errlen);
}

static nnc_status g1_msm2_team(const nnc_team *t, const nnc_prv_backend *be, nnc_prv_g1 *out, const nnc_prv_g1 *p1,
                               const nnc_prv_fr *s1, size_t n1, const nnc_prv_g1 *p2, const nnc_prv_fr *s2, size_t n2,
                               int threads, char *err, size_t errlen)
{
    if (t == NULL) return g1_msm2_on(be, out, p1, s1, n1, p2, s2, n2, threads, err, errlen);
    uint64_t l1, h1, l2, h2;
    nnc_team_share(t, n1, &l1, &h1);
    nnc_team_share(t, n2, &l2, &h2);
    nnc_status st = g1_msm2_on(be, out, p1 + l1, s1 + l1, h1 - l1, p2 + l2, s2 + l2, h2 - l2, threads, err, errlen);
    return st ? st : team_sum(t, out, sizeof *out, g1_add_v, err, errlen);
}

/* to_coset_on in a team: polynomial p on rank p % R, then every rank gets
 * every polynomial's values (n field elements each). */
static nnc_status to_coset_team(const nnc_team *t, const nnc_prv_backend *be, nnc_fr *const *polys, int np, uint32_t n,
                                const nnc_fr *g, int threads, char *err, size_t errlen)
{
    if (t == NULL || t->size == 1) return to_coset_on(be, polys, np, n, g, threads, err, errlen);
    nnc_status st = NNC_STATUS_OK;
    size_t pb = sizeof(nnc_fr) * (size_t)n, *lens = malloc(sizeof(size_t) * (size_t)t->size);
    unsigned char *mine = malloc(pb * (size_t)np + 1), *all = NULL;
    int nm = 0;
    if (!lens || !mine) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int p = t->rank; p < np && !st; p += t->size) {
        if ((st = to_coset_on(be, &polys[p], 1, n, g, threads, err, errlen))) break;
        memcpy(mine + pb * (size_t)nm++, polys[p], pb);
    }
    if (!st) st = t->allgather(t->ctx, mine, pb * (size_t)nm, &all, lens, err, errlen);
    size_t off = 0, got = 0;
    for (int q = 0; all && q < t->size; q++) got += lens[q];
    for (int q = 0; q < t->size && !st; q++) {
        int want = q < np ? (np - 1 - q) / t->size + 1 : 0;
        if (lens[q] != pb * (size_t)want) {
            st = nnc_err(err, errlen, NNC_STATUS_INVALID, "rank %d sent %zu bytes of polynomials", q, lens[q]);
            break;
        }
        for (int j = 0; j < want; j++) memcpy(polys[q + j * t->size], all + off + pb * (size_t)j, pb);
        off += lens[q];
    }
    /* the witness's images: wiped as the polynomials are */
    if (mine) sodium_memzero(mine, pb * (size_t)nm);
    if (all) sodium_memzero(all, got);
    free(mine);
    free(all);
    free(lens);
    return st;
}

/* A team's first exchange: every rank must prove with the same key and
 * witness (else the partial sums make a proof that does not verify).  A
 * digest (BLAKE2b) of the witness and of the key's sizes and fixed points
 * (alpha, beta, gamma, delta: a key made by another setup has others). */
static nnc_status team_same_inputs(const nnc_team *t, const nnc_prv_zkey *z, const nnc_prv_fr_vec *w, char *err,
                                   size_t errlen)
{
    if (t == NULL || t->size == 1) return NNC_STATUS_OK;
    unsigned char d[32], *all = NULL;
    crypto_generichash_state h;
    crypto_generichash_init(&h, NULL, 0, sizeof d);
    uint32_t dims[3] = {z->n_vars, z->n_public, z->domain_size};
    crypto_generichash_update(&h, (const unsigned char *)dims, sizeof dims);
    crypto_generichash_update(&h, (const unsigned char *)&z->alpha1, sizeof z->alpha1);
    crypto_generichash_update(&h, (const unsigned char *)&z->beta1, sizeof z->beta1);
    crypto_generichash_update(&h, (const unsigned char *)&z->beta2, sizeof z->beta2);
    crypto_generichash_update(&h, (const unsigned char *)&z->delta1, sizeof z->delta1);
    crypto_generichash_update(&h, (const unsigned char *)&z->delta2, sizeof z->delta2);
    crypto_generichash_update(&h, (const unsigned char *)w->v, sizeof(nnc_fr) * (size_t)w->n);
    crypto_generichash_final(&h, d, sizeof d);
    nnc_status st = team_all(t, d, sizeof d, &all, err, errlen);
    for (int q = 1; !st && q < t->size; q++)
        if (memcmp(all + sizeof d * (size_t)q, all, sizeof d) != 0)
            st = nnc_err(err, errlen, NNC_STATUS_INVALID, "rank %d proves with another key or witness than rank 0", q);
    free(all);
    return st;
}

/* The blinding r, s: drawn here, or by rank 0 of a team and sent to the
 * others (who hold the witness already), or fixed (rs_fixed: tests). */
static nnc_status blinding(const nnc_team *t, const nnc_fr *rs_fixed, nnc_fr *r, nnc_fr *s, char *err, size_t errlen)
{
    if (rs_fixed) {
        *r = rs_fixed[0];
        *s = rs_fixed[1];
        return NNC_STATUS_OK;
    }
    nnc_prv_fr_random(r);
    nnc_prv_fr_random(s);
    if (t == NULL || t->size == 1) return NNC_STATUS_OK;
    nnc_fr both[2] = {*r, *s};
    size_t *lens = malloc(sizeof(size_t) * (size_t)t->size);
    unsigned char *all = NULL;
    nnc_status st = lens ? t->allgather(t->ctx, both, t->rank == 0 ? sizeof both : 0, &all, lens, err, errlen)
                         : nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    if (!st && lens[0] != sizeof both) st = nnc_err(err, errlen, NNC_STATUS_INVALID, "rank 0 sent no blinding");
    if (!st) {
        memcpy(r, all, sizeof *r);
        memcpy(s, all + sizeof *r, sizeof *s);
    }
    sodium_memzero(both, sizeof both);
    size_t got = 0;
    for (int q = 0; all && q < t->size; q++) got += lens[q];
    if (all) sodium_memzero(all, got);
    free(all);
    free(lens);
    return st;
}

nnc_status nnc_prv_g16_prove_on(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                const nnc_prv_r1cs *cs, const nnc_prv_fr_vec *w, int threads,
                                const nnc_prv_backend *be,
                                void (*progress)(void *ctx, const char *stage, double fraction), void *progress_ctx,
                                char *err, size_t errlen)
{
    return nnc_prv_g16_prove_full(proof, pub, z, cs, NULL, w, threads, be, NULL, NULL, progress, progress_ctx, err, errlen);
}

nnc_status nnc_prv_g16_prove_team(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                  const nnc_prv_r1cs *cs, const nnc_prv_fr_vec *w, int threads, const nnc_prv_backend *be,
                                  const nnc_team *team,
                                  void (*progress)(void *ctx, const char *stage, double fraction), void *progress_ctx,
                                  char *err, size_t errlen)
{
    return nnc_prv_g16_prove_full(proof, pub, z, cs, NULL, w, threads, be, team, NULL, progress, progress_ctx, err, errlen);
}

/* n values of the witness's images (A w, B w, ...), or NULL: wiped and freed. */
static void fr_drop(nnc_fr *p, uint32_t n)
{
    if (p == NULL) return;
    sodium_memzero(p, sizeof(nnc_fr) * n);
    free(p);
}

/* The checks every prove makes before it reads the witness. */
static nnc_status g16_check_inputs(const nnc_prv_zkey *z, const nnc_prv_fr_vec *w, char *err, size_t errlen)
{
    if (w->n != z->n_vars)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "witness has %zu values, the key expects %u", (size_t)w->n, z->n_vars);
    nnc_fr one;
    nnc_fr_set_one(&one);
    if (!nnc_fr_eq(&w->v[0], &one)) return nnc_err(err, errlen, NNC_STATUS_INVALID, "witness wire 0 is not 1");
    int k = log2_exact(z->domain_size);
    if (k < 0 || k > 27)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "domain size %u is not a power of two <= 2^27", z->domain_size);
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_g16_ab_key(nnc_fr *a, nnc_fr *b, const nnc_prv_zkey *z, const nnc_prv_fr_vec *w,
                              const nnc_team *team, char *err, size_t errlen)
{
    nnc_status st = g16_check_inputs(z, w, err, errlen);
    if (!st) st = team_same_inputs(team, z, w, err, errlen); /* before anything that can fail on one rank alone */
    if (st) return st;
    memset(a, 0, sizeof(nnc_fr) * z->domain_size);
    memset(b, 0, sizeof(nnc_fr) * z->domain_size);
    if ((st = g16_ab(a, b, z, NULL, w, err, errlen))) { /* what it had summed: wiped */
        sodium_memzero(a, sizeof(nnc_fr) * z->domain_size);
        sodium_memzero(b, sizeof(nnc_fr) * z->domain_size);
    }
    return st;
}

static nnc_status g16_prove_ab(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z, nnc_fr *a,
                               nnc_fr *b, const nnc_prv_fr_vec *w, int threads, const nnc_prv_backend *be,
                               const nnc_team *team, const nnc_prv_fr *rs_fixed,
                               void (*progress)(void *ctx, const char *stage, double fraction), void *progress_ctx,
                               char *err, size_t errlen);

nnc_status nnc_prv_g16_prove_full(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                  const nnc_prv_r1cs *cs, const nnc_prv_g16_ab *ab, const nnc_prv_fr_vec *w, int threads,
                                  const nnc_prv_backend *be, const nnc_team *team, const nnc_prv_fr *rs_fixed,
                                  void (*progress)(void *ctx, const char *stage, double fraction), void *progress_ctx,
                                  char *err, size_t errlen)
{
    memset(proof, 0, sizeof *proof);
    memset(pub, 0, sizeof *pub);
    nnc_status st = g16_check_inputs(z, w, err, errlen);
    if (!st) st = team_same_inputs(team, z, w, err, errlen); /* before anything that can fail on one rank alone */
    if (st) return st;
    uint32_t n = z->domain_size;
    nnc_fr *a = calloc(n, sizeof(nnc_fr)), *b = calloc(n, sizeof(nnc_fr));
    if (!a || !b) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    } else {
        /* A w and B w on the domain */
        st = ab ? g16_ab_given(a, b, z, ab, w, err, errlen) : g16_ab(a, b, z, cs, w, err, errlen);
    }
    if (st) {
        fr_drop(a, n);
        fr_drop(b, n);
        return st;
    }
    return g16_prove_ab(proof, pub, z, a, b, w, threads, be, team, rs_fixed, progress, progress_ctx, err, errlen);
}

nnc_status nnc_prv_g16_prove_taking(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z, nnc_fr *a,
                                    nnc_fr *b, const nnc_prv_fr_vec *w, int threads, const nnc_prv_backend *be,
                                    const nnc_team *team,
                                    void (*progress)(void *ctx, const char *stage, double fraction),
                                    void *progress_ctx, char *err, size_t errlen)
{
    memset(proof, 0, sizeof *proof);
    memset(pub, 0, sizeof *pub);
    nnc_status st = g16_check_inputs(z, w, err, errlen);
    if (st) {
        fr_drop(a, z->domain_size);
        fr_drop(b, z->domain_size);
        return st;
    }
    return g16_prove_ab(proof, pub, z, a, b, w, threads, be, team, NULL, progress, progress_ctx, err, errlen);
}

/* The proof from A w and B w on the domain (a, b: taken over, wiped and
 * freed whatever happens), after g16_check_inputs and team_same_inputs. */
static nnc_status g16_prove_ab(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z, nnc_fr *a,
                               nnc_fr *b, const nnc_prv_fr_vec *w, int threads, const nnc_prv_backend *be,
                               const nnc_team *team, const nnc_prv_fr *rs_fixed,
                               void (*progress)(void *ctx, const char *stage, double fraction), void *progress_ctx,
                               char *err, size_t errlen)
{
    if (threads < 1) threads = nnc_prv_online_threads();
    uint32_t n = z->domain_size;
    int k = log2_exact(n);
    nnc_fr *c = calloc(n, sizeof(nnc_fr));
    nnc_prv_g1 *cpts = NULL;
    nnc_fr r, s, rs; /* the blinding */
    nnc_status st = NNC_STATUS_OK;
    if (!a || !b || !c) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    /* C w = (A w)(B w) on the domain */
    for (uint32_t i = 0; i < n; i++) nnc_fr_mul(&c[i], &a[i], &b[i]);
    /* to coefficients, then evaluated on the coset g H, g = w_2n */
    nnc_fr g;
    if ((st = nnc_prv_ntt_root(&g, 2 * (size_t)n))) {
        nnc_err(err, errlen, st, "no root of unity of order %u", 2 * n);
        goto done;
    }
    nnc_fr *polys[3] = {a, b, c};
    double work_done = 0, ntt_units = 6.0 * n * (k + 1) / 2, total = ntt_units + 200.0 * 5.0 * z->n_vars +
                                                                  200.0 * ((double)z->n_vars - z->n_public - 1 + n);
    G16_PROGRESS("polynomials", 0);
    if ((st = to_coset_team(team, be, polys, 3, n, &g, threads, err, errlen))) goto done;
    G16_PROGRESS("NTT", ntt_units);
    for (uint32_t i = 0; i < n; i++) {
        nnc_fr t;
        nnc_fr_mul(&t, &a[i], &b[i]);
        nnc_fr_sub(&a[i], &t, &c[i]); /* a now holds P = A*B - C on the coset */
    }
    /* B w and C w are used up: wiped and freed before the MSMs' memory */
    fr_drop(b, n);
    fr_drop(c, n);
    b = c = NULL;
    /* blinding */
    if ((st = blinding(team, rs_fixed, &r, &s, err, errlen))) goto done;
    nnc_fr_mul(&rs, &r, &s);
    nnc_prv_g1 t1, t2;
    /* pi_a */
    if ((st = g1_msm_team(team, be, &t1, z->a, w->v, z->n_vars, threads, err, errlen))) goto done;
    G16_PROGRESS("MSM A", 200.0 * z->n_vars);
    nnc_prv_g1_add(&t1, &t1, &z->alpha1);
    nnc_prv_g1_mul(&t2, &z->delta1, &r);
    nnc_prv_g1_add(&proof->a, &t1, &t2);
    /* pi_b in G2 and G1 */
    nnc_prv_g2 u1, u2;
    if ((st = g2_msm_team(team, be, &u1, z->b2, w->v, z->n_vars, threads, err, errlen))) goto done;
    G16_PROGRESS("MSM B2", 600.0 * z->n_vars);
    nnc_prv_g2_add(&u1, &u1, &z->beta2);
    nnc_prv_g2_mul(&u2, &z->delta2, &s);
    nnc_prv_g2_add(&proof->b, &u1, &u2);
    nnc_prv_g1 b1;
    if ((st = g1_msm_team(team, be, &t1, z->b1, w->v, z->n_vars, threads, err, errlen))) goto done;
    G16_PROGRESS("MSM B1", 200.0 * z->n_vars);
    nnc_prv_g1_add(&t1, &t1, &z->beta1);
    nnc_prv_g1_mul(&t2, &z->delta1, &s);
    nnc_prv_g1_add(&b1, &t1, &t2);
    /* pi_c */
    uint32_t npriv = z->n_vars - z->n_public - 1;
    /* one run on the CPU: C and H */
    if ((st = g1_msm2_team(team, be, &t1, z->c, w->v + z->n_public + 1, npriv, z->h, a, n, threads, err, errlen)))
        goto done;
    G16_PROGRESS("MSM C+H", 200.0 * ((double)npriv + n));
    nnc_prv_g1_mul(&t2, &proof->a, &s);
    nnc_prv_g1_add(&t1, &t1, &t2);
    nnc_prv_g1_mul(&t2, &b1, &r);
    nnc_prv_g1_add(&t1, &t1, &t2);
    nnc_fr_neg(&rs, &rs);
    nnc_prv_g1_mul(&t2, &z->delta1, &rs);
    nnc_prv_g1_add(&proof->c, &t1, &t2);
    /* public signals: wires 1 .. n_public */
    pub->v = malloc(sizeof(nnc_fr) * (z->n_public + 1));
    if (pub->v == NULL) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    pub->n = z->n_public;
    memcpy(pub->v, w->v + 1, sizeof(nnc_fr) * z->n_public);
done:
    /* the blinding, wherever the proof stopped */
    sodium_memzero(&r, sizeof r);
    sodium_memzero(&s, sizeof s);
    sodium_memzero(&rs, sizeof rs);
    /* A w, B w, C w: the witness's images */
    fr_drop(a, n);
    fr_drop(b, n);
    fr_drop(c, n);
    free(cpts);
    return st;
}
#undef G16_PROGRESS

/* ----------------------------------------------------------------- setup */

void nnc_prv_g16_coefs(nnc_prv_zkey *z, const nnc_prv_r1cs *cs)
{
    uint32_t n_public = cs->n_pub_out + cs->n_pub_in;
    nnc_fr one;
    nnc_fr_set_one(&one);
    z->n_coefs = 0;
    for (uint32_t c = 0; c < cs->n_constraints; c++)
        for (uint32_t m = 0; m < 2; m++)
            for (uint64_t e = cs->lc_start[3 * (uint64_t)c + m]; e < cs->lc_start[3 * (uint64_t)c + m + 1]; e++) {
                nnc_prv_zkey_coef *cf = &z->coefs[z->n_coefs++];
                cf->matrix = m;
                cf->constraint = c;
                cf->signal = cs->terms[e].wire;
                cf->value = cs->terms[e].coef;
            }
    for (uint32_t s = 0; s <= n_public; s++) {
        nnc_prv_zkey_coef *cf = &z->coefs[z->n_coefs++];
        cf->matrix = 0;
        cf->constraint = cs->n_constraints + s;
        cf->signal = s;
        cf->value = one;
    }
}

int nnc_prv_g16_coefs_match(const nnc_prv_zkey *z, const nnc_prv_r1cs *cs)
{
    uint64_t k = 0, npub = (uint64_t)cs->n_pub_out + cs->n_pub_in;
    nnc_fr one;
    nnc_fr_set_one(&one);
    for (uint32_t c = 0; c < cs->n_constraints; c++)
        for (uint32_t m = 0; m < 2; m++)
            for (uint64_t e = cs->lc_start[3 * (uint64_t)c + m]; e < cs->lc_start[3 * (uint64_t)c + m + 1]; e++, k++) {
                if (k >= z->n_coefs) return 0;
                const nnc_prv_zkey_coef *cf = &z->coefs[k];
                if (cf->matrix != m || cf->constraint != c || cf->signal != cs->terms[e].wire ||
                    !nnc_fr_eq(&cf->value, &cs->terms[e].coef))
                    return 0;
            }
    for (uint64_t s = 0; s <= npub; s++, k++)
        if (k >= z->n_coefs || z->coefs[k].matrix != 0 || z->coefs[k].constraint != cs->n_constraints + s ||
            z->coefs[k].signal != s || !nnc_fr_eq(&z->coefs[k].value, &one))
            return 0;
    return k == z->n_coefs;
}

nnc_status nnc_prv_g16_setup(nnc_prv_zkey *z, const nnc_prv_r1cs *cs, char *err, size_t errlen)
{
    return nnc_prv_g16_setup_flags(z, cs, 0, err, errlen);
}

nnc_status nnc_prv_g16_setup_flags(nnc_prv_zkey *z, const nnc_prv_r1cs *cs, unsigned flags, char *err, size_t errlen)
{
    memset(z, 0, sizeof *z);
    uint32_t n_public = cs->n_pub_out + cs->n_pub_in;
    uint64_t need = (uint64_t)cs->n_constraints + n_public + 1;
    uint32_t n = 1;
    while (n < need) n <<= 1;
    int k = log2_exact(n);
    if (need > (1u << 27)) return nnc_err(err, errlen, NNC_STATUS_LIMIT, "circuit too large: %llu rows", (unsigned long long)need);
    uint32_t nv = cs->n_wires;
    if (nv < n_public + 1) return nnc_err(err, errlen, NNC_STATUS_INVALID, "r1cs has fewer wires than public signals");
    /* toxic waste */
    nnc_fr tau, alpha, beta, gamma, delta, ginv, dinv;
    nnc_prv_fr_random(&tau);
    nnc_prv_fr_random(&alpha);
    nnc_prv_fr_random(&beta);
    nnc_prv_fr_random(&gamma);
    nnc_prv_fr_random(&delta);
    nnc_fr_inv(&ginv, &gamma);
    nnc_fr_inv(&dinv, &delta);
    nnc_status st = NNC_STATUS_OK;
    nnc_fr *u = calloc(nv, sizeof(nnc_fr)), *v = calloc(nv, sizeof(nnc_fr)), *wv = calloc(nv, sizeof(nnc_fr));
    nnc_fr *lag = calloc(n, sizeof(nnc_fr)), *den = calloc(n, sizeof(nnc_fr));
    nnc_fr *sc = calloc((size_t)nv + n, sizeof(nnc_fr));
    if (!u || !v || !wv || !lag || !den || !sc) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    /* Lagrange basis of H at tau: L_i = (tau^n - 1) w^i / (n (tau - w^i)) */
    nnc_fr w, wi, tn, one, nfr, t;
    if ((st = nnc_prv_ntt_root(&w, n))) {
        nnc_err(err, errlen, st, "no root of unity of order %u", n);
        goto done;
    }
    nnc_fr_set_one(&one);
    nnc_fr_set_u64(&nfr, n);
    tn = tau;
    for (int i = 0; i < k; i++) nnc_fr_sqr(&tn, &tn);
    nnc_fr zt; /* Z(tau) = tau^n - 1 */
    nnc_fr_sub(&zt, &tn, &one);
    wi = one;
    for (uint32_t i = 0; i < n; i++) {
        nnc_fr_sub(&t, &tau, &wi);
        nnc_fr_mul(&den[i], &t, &nfr);
        nnc_fr_mul(&wi, &wi, &w);
    }
    if (fr_batch_inv(den, n)) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    wi = one;
    for (uint32_t i = 0; i < n; i++) {
        nnc_fr_mul(&t, &zt, &wi);
        nnc_fr_mul(&lag[i], &t, &den[i]);
        nnc_fr_mul(&wi, &wi, &w);
    }
    /* u_j, v_j, w_j at tau from the constraints, plus the public rows */
    for (uint32_t c = 0; c < cs->n_constraints; c++) {
        nnc_fr *dst[3] = {u, v, wv};
        for (int m = 0; m < 3; m++)
            for (uint64_t e = cs->lc_start[3 * (uint64_t)c + (uint64_t)m]; e < cs->lc_start[3 * (uint64_t)c + (uint64_t)m + 1]; e++) {
                const nnc_prv_r1cs_term *term = &cs->terms[e];
                if (term->wire >= nv) {
                    st = nnc_err(err, errlen, NNC_STATUS_INVALID, "constraint %u uses wire %u of %u", c, term->wire, nv);
                    goto done;
                }
                nnc_fr_mul(&t, &term->coef, &lag[c]);
                nnc_fr_add(&dst[m][term->wire], &dst[m][term->wire], &t);
            }
    }
    for (uint32_t s = 0; s <= n_public; s++) nnc_fr_add(&u[s], &u[s], &lag[cs->n_constraints + s]);
    /* the key */
    z->n_vars = nv;
    z->n_public = n_public;
    z->domain_size = n;
    nnc_prv_g1 G1;
    nnc_prv_g2 G2;
    nnc_prv_g1_generator(&G1);
    nnc_prv_g2_generator(&G2);
    nnc_prv_g1_mul(&z->alpha1, &G1, &alpha);
    nnc_prv_g1_mul(&z->beta1, &G1, &beta);
    nnc_prv_g2_mul(&z->beta2, &G2, &beta);
    nnc_prv_g2_mul(&z->gamma2, &G2, &gamma);
    nnc_prv_g1_mul(&z->delta1, &G1, &delta);
    nnc_prv_g2_mul(&z->delta2, &G2, &delta);
    z->ic = calloc(n_public + 1, sizeof(nnc_prv_g1));
    z->a = calloc(nv, sizeof(nnc_prv_g1));
    z->b1 = calloc(nv, sizeof(nnc_prv_g1));
    z->b2 = calloc(nv, sizeof(nnc_prv_g2));
    z->c = calloc(nv - n_public, sizeof(nnc_prv_g1));
    z->h = calloc(n, sizeof(nnc_prv_g1));
    if (!z->ic || !z->a || !z->b1 || !z->b2 || !z->c || !z->h) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    /* sc[j] = (beta u_j + alpha v_j + w_j) / (gamma for public j, else delta);
     * the points are [scalar]G, computed in batches (prover/fixedbase.c) */
    for (uint32_t j = 0; j < nv; j++) {
        nnc_fr t2;
        nnc_fr_mul(&sc[j], &beta, &u[j]);
        nnc_fr_mul(&t2, &alpha, &v[j]);
        nnc_fr_add(&sc[j], &sc[j], &t2);
        nnc_fr_add(&sc[j], &sc[j], &wv[j]);
        nnc_fr_mul(&sc[j], &sc[j], j <= n_public ? &ginv : &dinv);
    }
    if (nnc_prv_g1_gen_mul_batch(z->a, u, nv, 0) || nnc_prv_g1_gen_mul_batch(z->b1, v, nv, 0) ||
        nnc_prv_g2_gen_mul_batch(z->b2, v, nv, 0) || nnc_prv_g1_gen_mul_batch(z->ic, sc, n_public + 1, 0) ||
        nnc_prv_g1_gen_mul_batch(z->c, sc + n_public + 1, nv - n_public - 1, 0)) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    /* H_i = L'_i(tau) Z(tau) / (-2 delta), L'_i(x) = (x^n + 1) x_i / (-n (x - x_i)), x_i = g w^i:
     * H_i = (tau^n + 1)(tau^n - 1) x_i / (2 n delta (tau - x_i)) */
    {
        nnc_fr g, xi, tp1, num, two;
        if ((st = nnc_prv_ntt_root(&g, 2 * (size_t)n))) {
            nnc_err(err, errlen, st, "no root of unity of order %u", 2 * n);
            goto done;
        }
        nnc_fr_add(&tp1, &tn, &one);
        nnc_fr_mul(&num, &tp1, &zt);
        nnc_fr_mul(&num, &num, &dinv);
        nnc_fr_set_u64(&two, 2);
        xi = g;
        for (uint32_t i = 0; i < n; i++) {
            nnc_fr_sub(&t, &tau, &xi);
            nnc_fr_mul(&t, &t, &nfr);
            nnc_fr_mul(&den[i], &t, &two);
            nnc_fr_mul(&xi, &xi, &w);
        }
        if (fr_batch_inv(den, n)) {
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            goto done;
        }
        xi = g;
        for (uint32_t i = 0; i < n; i++) {
            nnc_fr_mul(&t, &num, &xi);
            nnc_fr_mul(&sc[nv + i], &t, &den[i]);
            nnc_fr_mul(&xi, &xi, &w);
        }
        if (nnc_prv_g1_gen_mul_batch(z->h, sc + nv, n, 0)) {
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            goto done;
        }
    }
    /* coefficient section: A and B entries, then the public rows of A */
    if (flags & NNC_PRV_G16_SETUP_NO_COEFS) goto done;
    uint64_t ncoef = n_public + 1;
    for (uint32_t c = 0; c < cs->n_constraints; c++) ncoef += cs->lc_start[3 * (uint64_t)c + 2] - cs->lc_start[3 * (uint64_t)c];
    z->coefs = calloc(ncoef, sizeof(nnc_prv_zkey_coef));
    if (z->coefs == NULL) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    nnc_prv_g16_coefs(z, cs);
done:
    sodium_memzero(&tau, sizeof tau);
    sodium_memzero(&alpha, sizeof alpha);
    sodium_memzero(&beta, sizeof beta);
    sodium_memzero(&gamma, sizeof gamma);
    sodium_memzero(&delta, sizeof delta);
    sodium_memzero(&ginv, sizeof ginv);
    sodium_memzero(&dinv, sizeof dinv);
    if (lag) sodium_memzero(lag, sizeof(nnc_fr) * n);
    if (u) sodium_memzero(u, sizeof(nnc_fr) * nv);
    if (v) sodium_memzero(v, sizeof(nnc_fr) * nv);
    if (wv) sodium_memzero(wv, sizeof(nnc_fr) * nv);
    if (sc) sodium_memzero(sc, sizeof(nnc_fr) * ((size_t)nv + n));
    free(u); free(v); free(wv); free(lag); free(den); free(sc);
    if (st) nnc_prv_zkey_clear(z);
    return st;
}
