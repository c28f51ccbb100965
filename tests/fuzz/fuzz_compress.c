/* libFuzzer target: compressed G1/G2 points (prover/compress.c).
 *
 * Input: byte 0 selects the mode, the rest is the payload (zero-padded):
 *   bit 0  format: 0 snarkjs, 1 arkworks
 *   bit 1  group:  0 G1 (32 bytes), 1 G2 (64 bytes)
 *   bit 2  0: decode the payload as a compressed point;
 *          1: use the payload's first 32 bytes as a scalar k (reduced mod r)
 *             and encode [k]G
 * Invariants: no crash; every decodable payload is a valid point that
 * compresses back to the same bytes and decodes again to the same point;
 * decompress(compress(P)) == P for the [k]G points, and the arkworks bytes
 * are the snarkjs bytes reversed. */
#include "prover/compress_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void reverse(unsigned char *out, const unsigned char *in, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        out[i] = in[n - 1 - i];
}

/* k = the 32 bytes little-endian with the top three bits cleared (< 2^253 < r) */
static void scalar_from(nnc_prv_fr *k, const unsigned char *b)
{
    unsigned char t[32];
    memcpy(t, b, 32);
    t[31] &= 0x1f;
    if (nnc_prv_fr_parse_b32(k, t, NNC_PRV_ENDIAN_LITTLE) != NNC_STATUS_OK)
        abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    unsigned char in[64], enc[64], enc2[64], rev[64];
    unsigned mode;
    nnc_prv_compress_fmt fmt, other;
    char err[NNC_ERRBUF_SIZE];
    if (size == 0)
        return 0;
    mode = data[0];
    memset(in, 0, sizeof in);
    memcpy(in, data + 1, size - 1 < 64 ? size - 1 : 64);
    fmt = (mode & 1) ? NNC_PRV_COMPRESS_ARKWORKS : NNC_PRV_COMPRESS_SNARKJS;
    other = (mode & 1) ? NNC_PRV_COMPRESS_SNARKJS : NNC_PRV_COMPRESS_ARKWORKS;

    if (!(mode & 2)) { /* G1 */
        nnc_prv_g1 p, q;
        if (mode & 4) {
            nnc_prv_fr k;
            nnc_prv_g1 g;
            scalar_from(&k, in);
            nnc_prv_g1_generator(&g);
            nnc_prv_g1_mul_var(&p, &g, &k);
            nnc_prv_g1_compress(in, &p, fmt);
        }
        if (nnc_prv_g1_decompress(&p, in, fmt, err, sizeof err) != NNC_STATUS_OK) {
            if (mode & 4)
                abort(); /* an encoded group element must decode */
            if (err[0] == '\0' || memchr(err, '\n', strlen(err)) != NULL)
                abort();
            return 0;
        }
        if (!nnc_prv_g1_is_valid(&p))
            abort();
        nnc_prv_g1_compress(enc, &p, fmt);
        if (memcmp(enc, in, 32) != 0)
            abort();
        if (nnc_prv_g1_decompress(&q, enc, fmt, NULL, 0) != NNC_STATUS_OK || !nnc_prv_g1_eq(&p, &q))
            abort();
        nnc_prv_g1_compress(enc2, &p, other);
        reverse(rev, enc, 32);
        if (memcmp(rev, enc2, 32) != 0)
            abort();
        if (nnc_prv_g1_decompress(&q, enc2, other, NULL, 0) != NNC_STATUS_OK || !nnc_prv_g1_eq(&p, &q))
            abort();
    } else { /* G2 */
        nnc_prv_g2 p, q;
        if (mode & 4) {
            nnc_prv_fr k;
            nnc_prv_g2 g;
            scalar_from(&k, in);
            nnc_prv_g2_generator(&g);
            nnc_prv_g2_mul_var(&p, &g, &k);
            nnc_prv_g2_compress(in, &p, fmt);
        }
        if (nnc_prv_g2_decompress(&p, in, fmt, err, sizeof err) != NNC_STATUS_OK) {
            if (mode & 4)
                abort();
            if (err[0] == '\0' || memchr(err, '\n', strlen(err)) != NULL)
                abort();
            return 0;
        }
        if (!nnc_prv_g2_is_valid(&p))
            abort();
        nnc_prv_g2_compress(enc, &p, fmt);
        if (memcmp(enc, in, 64) != 0)
            abort();
        if (nnc_prv_g2_decompress(&q, enc, fmt, NULL, 0) != NNC_STATUS_OK || !nnc_prv_g2_eq(&p, &q))
            abort();
        nnc_prv_g2_compress(enc2, &p, other);
        reverse(rev, enc, 64);
        if (memcmp(rev, enc2, 64) != 0)
            abort();
        if (nnc_prv_g2_decompress(&q, enc2, other, NULL, 0) != NNC_STATUS_OK || !nnc_prv_g2_eq(&p, &q))
            abort();
    }
    return 0;
}
