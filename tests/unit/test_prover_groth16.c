/* Groth16 setup and prove (prover/groth16.c) on random satisfiable R1CS
 * built here by hand: proofs from the key's coefficient section and from
 * the circuit (nnc_prv_g16_prove_r1cs) both verify, for keys with and
 * without the coefficient section; a witness that breaks one constraint
 * gives a proof that does not verify; a key without coefficients refuses
 * to prove without the circuit and to be written as a .zkey; a circuit
 * that does not match the key is refused.  (Interop with snarkjs and
 * circom is in tests/e2e/groth16.sh.)
 *
 * Random values come from a seed printed at start; NNC_TEST_SEED=<n>
 * replays a run. */
#include "nncert/prover.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/prover_test_util.h"

/* A random circuit: wire 0 = 1, wires 1 .. npub public, then one wire per
 * constraint k: (A_k w) (B_k w) = w_c with A_k, B_k random combinations
 * (1-3 terms, random coefficients, some small) of earlier wires, and C_k =
 * 1 * w_c.  *w gets the satisfying witness. */
static void random_circuit(nnc_prv_r1cs *cs, nnc_prv_fr_vec *w, uint32_t npub, uint32_t ncons, rng *r)
{
    uint32_t nw = 1 + npub + ncons, k, i;
    uint64_t cap = (uint64_t)ncons * 7, nt = 0;
    memset(cs, 0, sizeof *cs);
    cs->n_wires = nw;
    cs->n_pub_in = npub;
    cs->n_constraints = ncons;
    cs->n_labels = nw;
    cs->lc_start = malloc((3 * (size_t)ncons + 1) * sizeof *cs->lc_start);
    cs->terms = malloc(cap * sizeof *cs->terms);
    w->v = malloc(nw * sizeof *w->v);
    w->n = nw;
    CHECK(cs->lc_start && cs->terms && w->v);
    nnc_fr_set_one(&w->v[0]);
    for (i = 1; i <= npub; i++)
        rng_fr_uniform(&w->v[i], r);
    for (k = 0; k < ncons; k++) {
        uint32_t c = 1 + npub + k;
        nnc_fr val[2];
        for (int m = 0; m < 2; m++) {
            int nterm = 1 + (int)(rng_next(r) % 3);
            cs->lc_start[3 * (size_t)k + (size_t)m] = nt;
            nnc_fr_set_zero(&val[m]);
            for (int t = 0; t < nterm; t++) {
                nnc_prv_r1cs_term *tm = &cs->terms[nt++];
                nnc_fr p;
                tm->wire = (uint32_t)(rng_next(r) % c);
                if (rng_next(r) & 1)
                    nnc_fr_set_u64(&tm->coef, 1 + rng_next(r) % 100);
                else
                    rng_fr_uniform(&tm->coef, r);
                nnc_fr_mul(&p, &tm->coef, &w->v[tm->wire]);
                nnc_fr_add(&val[m], &val[m], &p);
            }
        }
        cs->lc_start[3 * (size_t)k + 2] = nt;
        cs->terms[nt].wire = c;
        nnc_fr_set_one(&cs->terms[nt].coef);
        nt++;
        nnc_fr_mul(&w->v[c], &val[0], &val[1]);
    }
    cs->lc_start[3 * (size_t)ncons] = nt;
    cs->n_terms = nt;
}

/* Returns: 1 if the proof verifies with z's verification key. */
static int verifies(const nnc_prv_zkey *z, const nnc_prv_fr_vec *pub, const nnc_prv_g16_proof *proof)
{
    nnc_prv_g16_vk vk;
    char err[256];
    int valid = 0;
    CHECK(nnc_prv_g16_vk_from_zkey(&vk, z) == NNC_STATUS_OK);
    CHECK(nnc_prv_g16_verify(&valid, &vk, pub, proof, err, sizeof err) == NNC_STATUS_OK);
    nnc_prv_g16_vk_clear(&vk);
    return valid;
}

START_TEST(test_prove_paths)
{
    static const uint32_t sizes[][2] = {{1, 3}, {2, 60}, {3, 500}};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        rng r = rng_for(700 + si);
        nnc_prv_r1cs cs;
        nnc_prv_fr_vec w, pub;
        nnc_prv_zkey z, zn;
        nnc_prv_g16_proof proof;
        char err[256];
        uint32_t bad;
        random_circuit(&cs, &w, sizes[si][0], sizes[si][1], &r);
        CHECK(nnc_prv_r1cs_check_witness(&bad, &cs, w.v, w.n, err, sizeof err) == NNC_STATUS_OK);
        CHECK(nnc_prv_g16_setup(&z, &cs, err, sizeof err) == NNC_STATUS_OK);
        CHECK(z.n_coefs > 0);
        CHECK(nnc_prv_g16_setup_flags(&zn, &cs, NNC_PRV_G16_SETUP_NO_COEFS, err, sizeof err) == NNC_STATUS_OK);
        CHECK(zn.n_coefs == 0 && zn.coefs == NULL);
        /* key coefficients, and the circuit, on the full key */
        CHECK(nnc_prv_g16_prove(&proof, &pub, &z, &w, 2, err, sizeof err) == NNC_STATUS_OK);
        CHECK(verifies(&z, &pub, &proof));
        nnc_prv_fr_vec_clear(&pub);
        CHECK(nnc_prv_g16_prove_r1cs(&proof, &pub, &z, &cs, &w, 1, NULL, NULL, err, sizeof err) == NNC_STATUS_OK);
        CHECK(verifies(&z, &pub, &proof));
        nnc_prv_fr_vec_clear(&pub);
        /* the key without coefficients: the circuit only */
        CHECK(nnc_prv_g16_prove_r1cs(&proof, &pub, &zn, &cs, &w, 2, NULL, NULL, err, sizeof err) == NNC_STATUS_OK);
        CHECK(verifies(&zn, &pub, &proof));
        CHECK(!verifies(&z, &pub, &proof)); /* another key's proof */
        nnc_prv_fr_vec_clear(&pub);
        CHECK(nnc_prv_g16_prove(&proof, &pub, &zn, &w, 1, err, sizeof err) == NNC_STATUS_INVALID);
        CHECK(strstr(err, "no coefficient section") != NULL);
        {
            unsigned char buf[64];
            size_t len = sizeof buf;
            CHECK(nnc_prv_zkey_serialize(buf, &len, &zn) == NNC_STATUS_INVALID);
        }
        /* one constraint broken: no valid proof from either path */
        {
            uint32_t c = 1 + sizes[si][0] + (uint32_t)(rng_next(&r) % sizes[si][1]);
            nnc_fr one;
            nnc_fr_set_one(&one);
            nnc_fr_add(&w.v[c], &w.v[c], &one);
            CHECK(nnc_prv_r1cs_check_witness(&bad, &cs, w.v, w.n, err, sizeof err) != NNC_STATUS_OK);
            CHECK(nnc_prv_g16_prove(&proof, &pub, &z, &w, 1, err, sizeof err) == NNC_STATUS_OK);
            CHECK(!verifies(&z, &pub, &proof));
            nnc_prv_fr_vec_clear(&pub);
            CHECK(nnc_prv_g16_prove_r1cs(&proof, &pub, &zn, &cs, &w, 1, NULL, NULL, err, sizeof err) ==
                  NNC_STATUS_OK);
            CHECK(!verifies(&zn, &pub, &proof));
            nnc_prv_fr_vec_clear(&pub);
            nnc_fr_sub(&w.v[c], &w.v[c], &one);
        }
        /* a circuit that is not the key's */
        cs.n_pub_in++;
        CHECK(nnc_prv_g16_prove_r1cs(&proof, &pub, &zn, &cs, &w, 1, NULL, NULL, err, sizeof err) ==
              NNC_STATUS_INVALID);
        CHECK(strstr(err, "does not match the key") != NULL);
        cs.n_pub_in--;
        nnc_prv_zkey_clear(&z);
        nnc_prv_zkey_clear(&zn);
        nnc_prv_r1cs_clear(&cs);
        nnc_prv_fr_vec_clear(&w);
    }
}
END_TEST

/* A backend (nnc_prv_backend, as --device gpu dispatches to the CUDA
 * kernels) made of the CPU's functions, counting its calls; mode 1: its
 * NTT runs forward where asked for the inverse (a wrong kernel); mode 2:
 * its coset NTT fails. */
static int be_mode, be_g1, be_g2, be_ntt, be_coset;

static nnc_status be_g1_msm(nnc_prv_g1 *out, const nnc_prv_g1 *p, const nnc_prv_fr *s, size_t n, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    be_g1++;
    nnc_prv_g1_msm(out, p, s, n, 1);
    return NNC_STATUS_OK;
}

static nnc_status be_g2_msm(nnc_prv_g2 *out, const nnc_prv_g2 *p, const nnc_prv_fr *s, size_t n, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    be_g2++;
    nnc_prv_g2_msm(out, p, s, n, 1);
    return NNC_STATUS_OK;
}

static nnc_status be_ntt_fn(nnc_prv_fr *a, size_t n, int inverse, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    be_ntt += inverse == 1;
    return nnc_prv_ntt(a, n, be_mode == 1 ? 0 : inverse, 1);
}

static nnc_status be_coset_fn(nnc_prv_fr *a, size_t n, int inverse, const nnc_prv_fr *shift, char *err, size_t errlen)
{
    be_coset += inverse == 0;
    if (be_mode == 2) return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "backend: coset NTT failed");
    return inverse ? nnc_prv_coset_intt(a, n, shift, 1) : nnc_prv_coset_ntt(a, n, shift, 1);
}

/* Proofs with the MSMs and NTTs on a backend: every one of them goes there
 * (three NTTs and three coset NTTs, four G1 MSMs, one in G2), the proof
 * verifies, from the key's coefficients and from the circuit; a backend
 * that computes the wrong transform gives a proof that does not verify,
 * and one that fails ends the proof with its status and message. */
START_TEST(test_backend)
{
    const nnc_prv_backend be = {be_g1_msm, be_g2_msm, be_ntt_fn, be_coset_fn};
    static const uint32_t sizes[][2] = {{2, 60}, {3, 500}};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        rng r = rng_for(900 + si);
        nnc_prv_r1cs cs;
        nnc_prv_fr_vec w, pub;
        nnc_prv_zkey z;
        nnc_prv_g16_proof proof;
        char err[256];
        random_circuit(&cs, &w, sizes[si][0], sizes[si][1], &r);
        CHECK(nnc_prv_g16_setup(&z, &cs, err, sizeof err) == NNC_STATUS_OK);
        for (int with_cs = 0; with_cs < 2; with_cs++) {
            be_mode = be_g1 = be_g2 = be_ntt = be_coset = 0;
            CHECK(nnc_prv_g16_prove_on(&proof, &pub, &z, with_cs ? &cs : NULL, &w, 1, &be, NULL, NULL, err,
                                       sizeof err) == NNC_STATUS_OK);
            CHECK(be_g1 == 4 && be_g2 == 1 && be_ntt == 3 && be_coset == 3);
            CHECK(verifies(&z, &pub, &proof));
            nnc_prv_fr_vec_clear(&pub);
        }
        be_mode = 1;
        CHECK(nnc_prv_g16_prove_on(&proof, &pub, &z, &cs, &w, 1, &be, NULL, NULL, err, sizeof err) == NNC_STATUS_OK);
        CHECK(!verifies(&z, &pub, &proof));
        nnc_prv_fr_vec_clear(&pub);
        be_mode = 2;
        err[0] = 0;
        CHECK(nnc_prv_g16_prove_on(&proof, &pub, &z, &cs, &w, 1, &be, NULL, NULL, err, sizeof err) ==
              NNC_STATUS_UNSUPPORTED);
        CHECK(strstr(err, "coset NTT failed") != NULL);
        nnc_prv_zkey_clear(&z);
        nnc_prv_r1cs_clear(&cs);
        nnc_prv_fr_vec_clear(&w);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prover_groth16");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_prove_paths);
    tcase_add_test(tc, test_backend);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return harness_main("test_prover_groth16", suite); }
