/* libFuzzer target: the snarkjs JSON readers (prover/snarkjson.c) for
 * proof.json, public.json and verification_key.json, each tried on every
 * input.  Invariant: what parses is written in snarkjs's layout, and that
 * text parses again to the same bytes. */
#include "prover/formats_impl.h"

#include <stdlib.h>
#include <string.h>

typedef nnc_status (*ser_fn)(char *, size_t *, const void *);

static void again(ser_fn ser, const void *obj, int kind)
{
    size_t n = 0, n2;
    char *t, *t2;
    char err[256];
    nnc_status st;
    if (ser(NULL, &n, obj) != NNC_STATUS_LIMIT || n == 0)
        abort();
    t = malloc(n);
    if (ser(t, &n, obj) != NNC_STATUS_OK)
        abort();
    n2 = n;
    t2 = malloc(n2);
    if (kind == 0) {
        nnc_prv_g16_proof p;
        st = nnc_prv_g16_proof_parse_json(&p, t, n, err, sizeof err);
        if (st == NNC_STATUS_OK)
            st = nnc_prv_g16_proof_serialize_json(t2, &n2, &p);
    } else if (kind == 1) {
        nnc_prv_fr_vec v;
        st = nnc_prv_public_parse_json(&v, t, n, err, sizeof err);
        if (st == NNC_STATUS_OK)
            st = nnc_prv_public_serialize_json(t2, &n2, &v);
        nnc_prv_fr_vec_clear(&v);
    } else {
        nnc_prv_g16_vk vk;
        st = nnc_prv_g16_vk_parse_json(&vk, t, n, err, sizeof err);
        if (st == NNC_STATUS_OK)
            st = nnc_prv_g16_vk_serialize_json(t2, &n2, &vk);
        nnc_prv_g16_vk_clear(&vk);
    }
    if (st != NNC_STATUS_OK || n2 != n || memcmp(t, t2, n) != 0)
        abort();
    free(t);
    free(t2);
}

static nnc_status ser_proof(char *o, size_t *l, const void *x) { return nnc_prv_g16_proof_serialize_json(o, l, x); }
static nnc_status ser_public(char *o, size_t *l, const void *x) { return nnc_prv_public_serialize_json(o, l, x); }
static nnc_status ser_vk(char *o, size_t *l, const void *x) { return nnc_prv_g16_vk_serialize_json(o, l, x); }

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const char *t = (const char *)data;
    char err[256];
    nnc_prv_g16_proof p;
    nnc_prv_fr_vec v;
    nnc_prv_g16_vk vk;
    if (nnc_prv_g16_proof_parse_json(&p, t, size, err, sizeof err) == NNC_STATUS_OK)
        again(ser_proof, &p, 0);
    if (nnc_prv_public_parse_json(&v, t, size, err, sizeof err) == NNC_STATUS_OK)
        again(ser_public, &v, 1);
    nnc_prv_fr_vec_clear(&v);
    if (nnc_prv_g16_vk_parse_json(&vk, t, size, err, sizeof err) == NNC_STATUS_OK)
        again(ser_vk, &vk, 2);
    nnc_prv_g16_vk_clear(&vk);
    return 0;
}
