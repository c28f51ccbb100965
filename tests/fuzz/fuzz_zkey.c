/* libFuzzer target: the snarkjs Groth16 .zkey reader (prover/zkey.c), and
 * through a parsed key the verification-key JSON writer and reader
 * (prover/snarkjson.c), and the ceremony's contributions section
 * (prover/mpc.c).  Invariants: the writer's image parses to an equal key;
 * the verification key derived from it survives a JSON round trip; a
 * contributions section parses or is refused, and parsed records lie
 * inside it. */
#include "prover/formats_impl.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    nnc_prv_zkey z, z2;
    nnc_prv_g16_vk vk, vk2;
    char err[256];
    unsigned char *b, *b2;
    char *j;
    size_t n = 0, n2, nj = 0;
    unsigned flags = size > 0 && (data[size - 1] & 1) ? NNC_PRV_ZKEY_CHECK_SUBGROUP : 0;
    if (nnc_prv_zkey_parse(&z, data, size, flags, err, sizeof err) != NNC_STATUS_OK)
        return 0;
    if (nnc_prv_zkey_serialize(NULL, &n, &z) != NNC_STATUS_LIMIT || n == 0)
        abort();
    b = malloc(n);
    if (nnc_prv_zkey_serialize(b, &n, &z) != NNC_STATUS_OK)
        abort();
    if (nnc_prv_zkey_parse(&z2, b, n, 0, err, sizeof err) != NNC_STATUS_OK)
        abort();
    n2 = n;
    b2 = malloc(n2);
    if (nnc_prv_zkey_serialize(b2, &n2, &z2) != NNC_STATUS_OK || n2 != n || memcmp(b, b2, n) != 0)
        abort();
    if (z.contributions != NULL) {
        nnc_prv_mpc m;
        if (nnc_prv_mpc_parse(&m, &z, err, sizeof err) == NNC_STATUS_OK) {
            for (uint32_t i = 0; i < m.n; i++)
                if (m.c[i].raw_off + m.c[i].raw_len > z.contributions_len || m.c[i].beacon_len > 255) abort();
            nnc_prv_mpc_clear(&m);
        }
    }
    if (z.n_public < 64) {
        if (nnc_prv_g16_vk_from_zkey(&vk, &z) != NNC_STATUS_OK)
            abort();
        if (nnc_prv_g16_vk_serialize_json(NULL, &nj, &vk) != NNC_STATUS_LIMIT)
            abort();
        j = malloc(nj);
        if (nnc_prv_g16_vk_serialize_json(j, &nj, &vk) != NNC_STATUS_OK)
            abort();
        if (nnc_prv_g16_vk_parse_json(&vk2, j, nj, err, sizeof err) != NNC_STATUS_OK ||
            vk2.n_public != vk.n_public || !nnc_prv_g1_eq(&vk2.alpha1, &vk.alpha1) ||
            !nnc_prv_g2_eq(&vk2.delta2, &vk.delta2))
            abort();
        free(j);
        nnc_prv_g16_vk_clear(&vk);
        nnc_prv_g16_vk_clear(&vk2);
    }
    free(b);
    free(b2);
    nnc_prv_zkey_clear(&z);
    nnc_prv_zkey_clear(&z2);
    return 0;
}
