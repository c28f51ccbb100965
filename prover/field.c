/* Public field API of the prover module: decimal conversion (GMP) and
 * canonical byte encodings.  The arithmetic itself is in prover/field_impl.h. */
#include "nncert/prover.h"

#include <gmp.h>
#include <string.h>

#include "prover/field_impl.h"

size_t nnc_prv_field_bytes(void) { return NNC_PRV_FIELD_BYTES; }
size_t nnc_prv_dec_bufsize(void) { return NNC_PRV_DEC_BUFSIZE; }

/* Longest decimal string accepted (digits). */
#define NNC_PRV_DEC_MAX_DIGITS 200

/* Parse s into canonical limbs x[4] modulo the modulus m (canonical integer).
 * Returns: as nnc_prv_fr_parse_dec. */
static nnc_status nnc_prv_parse_dec_int(uint64_t x[4], const char *s, int reduce,
                                        const uint64_t m[4], const char *field,
                                        char *err, size_t errlen)
{
    const char *d = s;
    size_t n, cnt = 0;
    mpz_t v, mod;
    nnc_status st = NNC_STATUS_OK;
    if (*d == '-')
        d++;
    n = strlen(d);
    if (n == 0 || n > NNC_PRV_DEC_MAX_DIGITS || strspn(d, "0123456789") != n)
        return nnc_err(err, errlen, NNC_STATUS_PARSE,
                       "not a decimal integer (optional '-', 1 to %d digits): \"%.40s\"",
                       NNC_PRV_DEC_MAX_DIGITS, s);
    mpz_init(v);
    mpz_init(mod);
    mpz_set_str(v, s, 10); /* validated above; cannot fail */
    mpz_import(mod, 4, -1, sizeof(uint64_t), 0, 0, m);
    if (reduce) {
        mpz_mod(v, v, mod); /* non-negative result */
    } else if (mpz_sgn(v) < 0 || mpz_cmp(v, mod) >= 0) {
        st = nnc_err(err, errlen, NNC_STATUS_INVALID, "%s element out of range [0, modulus): \"%.40s%s\"",
                     field, s, strlen(s) > 40 ? "..." : "");
    }
    if (st == NNC_STATUS_OK) {
        x[0] = x[1] = x[2] = x[3] = 0;
        mpz_export(x, &cnt, -1, sizeof(uint64_t), 0, 0, v); /* cnt <= 4 since v < m */
    }
    mpz_clear(mod);
    mpz_clear(v);
    return st;
}

/* Write the canonical integer x[4] in decimal. */
static nnc_status nnc_prv_serialize_dec_int(char *out, size_t outlen, const uint64_t x[4])
{
    char buf[NNC_PRV_DEC_BUFSIZE];
    mpz_t v;
    size_t len;
    mpz_init(v);
    mpz_import(v, 4, -1, sizeof(uint64_t), 0, 0, x);
    /* x < 2^256 has at most 78 digits; mpz_sizeinbase may say one more */
    mpz_get_str(buf, 10, v);
    mpz_clear(v);
    len = strlen(buf);
    if (len + 1 > outlen) {
        if (outlen > 0)
            out[0] = '\0';
        return NNC_STATUS_LIMIT;
    }
    memcpy(out, buf, len + 1);
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_fr_parse_dec(nnc_prv_fr *out, const char *s, int reduce, char *err, size_t errlen)
{
    const nnc_fe4_mod m = NNC_FR_MOD_INIT;
    uint64_t x[4];
    nnc_status st = nnc_prv_parse_dec_int(x, s, reduce, m.p, "Fr", err, errlen);
    if (st == NNC_STATUS_OK)
        (void)nnc_fr_from_int(out, x);
    return st;
}

nnc_status nnc_prv_fq_parse_dec(nnc_prv_fq *out, const char *s, int reduce, char *err, size_t errlen)
{
    const nnc_fe4_mod m = NNC_FQ_MOD_INIT;
    uint64_t x[4];
    nnc_status st = nnc_prv_parse_dec_int(x, s, reduce, m.p, "Fq", err, errlen);
    if (st == NNC_STATUS_OK)
        (void)nnc_fq_from_int(out, x);
    return st;
}

nnc_status nnc_prv_fr_serialize_dec(char *out, size_t outlen, const nnc_prv_fr *a)
{
    uint64_t x[4];
    nnc_fr_to_int(x, a);
    return nnc_prv_serialize_dec_int(out, outlen, x);
}

nnc_status nnc_prv_fq_serialize_dec(char *out, size_t outlen, const nnc_prv_fq *a)
{
    uint64_t x[4];
    nnc_fq_to_int(x, a);
    return nnc_prv_serialize_dec_int(out, outlen, x);
}

nnc_status nnc_prv_fr_parse_b32(nnc_prv_fr *out, const unsigned char *in, nnc_prv_endian e)
{
    nnc_fr t;
    if (!nnc_fr_set_b32(&t, in, e))
        return NNC_STATUS_INVALID;
    *out = t;
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_fq_parse_b32(nnc_prv_fq *out, const unsigned char *in, nnc_prv_endian e)
{
    nnc_fq t;
    if (!nnc_fq_set_b32(&t, in, e))
        return NNC_STATUS_INVALID;
    *out = t;
    return NNC_STATUS_OK;
}

void nnc_prv_fr_serialize_b32(unsigned char *out, const nnc_prv_fr *a, nnc_prv_endian e)
{
    nnc_fr_get_b32(out, a, e);
}

void nnc_prv_fq_serialize_b32(unsigned char *out, const nnc_prv_fq *a, nnc_prv_endian e)
{
    nnc_fq_get_b32(out, a, e);
}
