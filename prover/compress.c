/* Compressed G1/G2 points in the snarkjs and arkworks layouts; the formats
 * and the decoding rules are described in prover/compress_impl.h.
 *
 * Both layouts are handled through the snarkjs one: an arkworks encoding is
 * the snarkjs encoding with its bytes reversed (x little-endian instead of
 * big-endian, Fq2 coefficients c0|c1 instead of c1|c0, flags in the last
 * byte instead of the first). */
#include "prover/compress_impl.h"

#include <string.h>

#include "prover/curve_impl.h"

#define FLAG_MASK (NNC_PRV_COMPRESS_FLAG_GREATEST | NNC_PRV_COMPRESS_FLAG_INFINITY)

static void reverse(unsigned char *out, const unsigned char *in, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        out[i] = in[n - 1 - i];
}

/* Out: out[n], the snarkjs-layout bytes be[n] (flags in be[0]) in format fmt. */
static void put(unsigned char *out, const unsigned char *be, size_t n, nnc_prv_compress_fmt fmt)
{
    if (fmt == NNC_PRV_COMPRESS_SNARKJS)
        memcpy(out, be, n);
    else if (fmt == NNC_PRV_COMPRESS_ARKWORKS)
        reverse(out, be, n);
    else
        memset(out, 0xff, n);
}

void nnc_prv_g1_compress(unsigned char out[32], const nnc_prv_g1 *p, nnc_prv_compress_fmt fmt)
{
    unsigned char be[32];
    int inf = nnc_g1_aff_is_inf(p), gr = nnc_fq_greatest(&p->y);
    nnc_fq_get_b32(be, &p->x, NNC_PRV_ENDIAN_BIG); /* x = 0 for infinity */
    be[0] |= (unsigned char)((inf ? NNC_PRV_COMPRESS_FLAG_INFINITY : 0) |
                             ((gr & (inf ^ 1)) ? NNC_PRV_COMPRESS_FLAG_GREATEST : 0));
    put(out, be, 32, fmt);
}

void nnc_prv_g2_compress(unsigned char out[64], const nnc_prv_g2 *p, nnc_prv_compress_fmt fmt)
{
    unsigned char be[64];
    int inf = nnc_g2_aff_is_inf(p), gr = nnc_fq2_greatest(&p->y);
    nnc_fq_get_b32(be, &p->x.c1, NNC_PRV_ENDIAN_BIG);
    nnc_fq_get_b32(be + 32, &p->x.c0, NNC_PRV_ENDIAN_BIG);
    be[0] |= (unsigned char)((inf ? NNC_PRV_COMPRESS_FLAG_INFINITY : 0) |
                             ((gr & (inf ^ 1)) ? NNC_PRV_COMPRESS_FLAG_GREATEST : 0));
    put(out, be, 64, fmt);
}

static const char *fmt_name(nnc_prv_compress_fmt fmt)
{
    return fmt == NNC_PRV_COMPRESS_ARKWORKS ? "arkworks" : "snarkjs";
}

/* Bring in[n] of format fmt into the snarkjs layout be[n] with the flags
 * removed from be[0] and returned in *flags; checks the flag combination.
 * Returns: 1 for the canonical infinity encoding (*flags = 0x40), 0 for a
 * finite point to decode, -1 (err set) for a bad flag combination. */
static int take(unsigned char *be, unsigned *flags, const unsigned char *in, size_t n,
                nnc_prv_compress_fmt fmt, const char *grp, char *err, size_t errlen)
{
    size_t i;
    unsigned char any = 0;
    if (fmt == NNC_PRV_COMPRESS_SNARKJS)
        memcpy(be, in, n);
    else
        reverse(be, in, n);
    *flags = be[0] & FLAG_MASK;
    be[0] &= (unsigned char)~FLAG_MASK;
    if (!(*flags & NNC_PRV_COMPRESS_FLAG_INFINITY))
        return 0;
    if (*flags & NNC_PRV_COMPRESS_FLAG_GREATEST) {
        nnc_err(err, errlen, NNC_STATUS_INVALID,
                "compressed %s point (%s): infinity flag together with the sign flag", grp,
                fmt_name(fmt));
        return -1;
    }
    for (i = 0; i < n; i++)
        any |= be[i];
    if (any) {
        nnc_err(err, errlen, NNC_STATUS_INVALID,
                "compressed %s point (%s): infinity flag with a nonzero x coordinate", grp,
                fmt_name(fmt));
        return -1;
    }
    return 1;
}

nnc_status nnc_prv_g1_decompress(nnc_prv_g1 *out, const unsigned char in[32],
                                 nnc_prv_compress_fmt fmt, char *err, size_t errlen)
{
    unsigned char be[32];
    unsigned flags;
    nnc_g1 p;
    nnc_fq rhs, b, ny;
    int t;
    if (fmt != NNC_PRV_COMPRESS_SNARKJS && fmt != NNC_PRV_COMPRESS_ARKWORKS)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "unknown point compression format %d", (int)fmt);
    t = take(be, &flags, in, 32, fmt, "G1", err, errlen);
    if (t < 0)
        return NNC_STATUS_INVALID;
    if (t > 0) {
        nnc_g1_aff_set_inf(out);
        return NNC_STATUS_OK;
    }
    if (!nnc_fq_set_b32(&p.x, be, NNC_PRV_ENDIAN_BIG))
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "compressed G1 point (%s): x coordinate not below the field modulus p",
                       fmt_name(fmt));
    nnc_fq_sqr(&rhs, &p.x);
    nnc_fq_mul(&rhs, &rhs, &p.x);
    nnc_g1_set_b(&b);
    nnc_fq_add(&rhs, &rhs, &b);
    if (!nnc_fq_sqrt(&p.y, &rhs))
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "compressed G1 point (%s): x^3 + 3 is not a square, no point with this x",
                       fmt_name(fmt));
    /* y != 0: E(Fq) has odd order r, so no point of order 2; the sign flag
     * therefore always tells y from -y (likewise in G2 below) */
    nnc_fq_neg(&ny, &p.y);
    nnc_fq_cmov(&p.y, &ny, nnc_fq_greatest(&p.y) ^ (flags == NNC_PRV_COMPRESS_FLAG_GREATEST));
    *out = p; /* cofactor 1: every curve point is in G1 */
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_g2_decompress(nnc_prv_g2 *out, const unsigned char in[64],
                                 nnc_prv_compress_fmt fmt, char *err, size_t errlen)
{
    unsigned char be[64];
    unsigned flags;
    nnc_g2 p;
    nnc_fq2 rhs, b, ny;
    int t;
    if (fmt != NNC_PRV_COMPRESS_SNARKJS && fmt != NNC_PRV_COMPRESS_ARKWORKS)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "unknown point compression format %d", (int)fmt);
    t = take(be, &flags, in, 64, fmt, "G2", err, errlen);
    if (t < 0)
        return NNC_STATUS_INVALID;
    if (t > 0) {
        nnc_g2_aff_set_inf(out);
        return NNC_STATUS_OK;
    }
    if (!nnc_fq_set_b32(&p.x.c1, be, NNC_PRV_ENDIAN_BIG))
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "compressed G2 point (%s): x.c1 not below the field modulus p", fmt_name(fmt));
    if (!nnc_fq_set_b32(&p.x.c0, be + 32, NNC_PRV_ENDIAN_BIG))
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "compressed G2 point (%s): x.c0 not below the field modulus p", fmt_name(fmt));
    nnc_fq2_sqr(&rhs, &p.x);
    nnc_fq2_mul(&rhs, &rhs, &p.x);
    nnc_g2_set_b(&b);
    nnc_fq2_add(&rhs, &rhs, &b);
    if (!nnc_fq2_sqrt(&p.y, &rhs))
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "compressed G2 point (%s): x^3 + 3/(9+u) is not a square, no point with this x",
                       fmt_name(fmt));
    nnc_fq2_neg(&ny, &p.y);
    nnc_fq2_cmov(&p.y, &ny, nnc_fq2_greatest(&p.y) ^ (flags == NNC_PRV_COMPRESS_FLAG_GREATEST));
    if (!nnc_prv_g2_is_valid(&p))
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "compressed G2 point (%s): on the twist but not in the order-r subgroup",
                       fmt_name(fmt));
    *out = p;
    return NNC_STATUS_OK;
}
