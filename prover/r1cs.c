/* circom .r1cs version 1 (iden3 r1csfile): reader, writer, witness check.
 *
 * Sections: 1 header   n8 u32, prime (n8 bytes), nWires u32, nPubOut u32,
 *                      nPubIn u32, nPrvIn u32, nLabels u64, nConstraints u32
 *           2 constraints  per constraint A, B, C, each nTerms u32 then
 *                      nTerms x (wire u32, coefficient n8 bytes, standard form)
 *           3 wire map nWires x label u64 (optional for the reader; written
 *                      only when the struct has one)
 *           4, 5 custom gates (circom --O2 PLONK templates): refused. */
#include "prover/formats_impl.h"

#include <stdlib.h>
#include <string.h>

#include "prover/field_impl.h"

#define R1CS_HEADER_BYTES 64u  /* 4 + 32 + 4*4 + 8 + 4 */
#define R1CS_TERM_BYTES 36u    /* wire u32 + 32-byte coefficient */

void nnc_prv_r1cs_clear(nnc_prv_r1cs *r)
{
    if (r == NULL) return;
    free(r->lc_start);
    free(r->terms);
    free(r->wire_label);
    memset(r, 0, sizeof *r);
}

static nnc_status r1cs_parse(void *out, const unsigned char *in, size_t len, unsigned flags, char *err,
                             size_t errlen)
{
    const uint64_t rmod[4] = NNC_FR_MODULUS_INIT;
    nnc_prv_r1cs *o = out;
    nnc_prv_bin b;
    nnc_prv_rd h, c, m;
    nnc_status st;
    uint64_t nterms = 0, nlc, i, t, pos;
    uint32_t k;

    if ((st = nnc_prv_bin_open(&b, in, len, "r1cs", 1, 1, err, errlen)) != NNC_STATUS_OK)
        return st;
    if (b.count[4] || b.count[5])
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED,
                       "r1cs uses circom custom gates (PLONK only); Groth16 needs plain constraints");
    if ((st = nnc_prv_bin_section(&h, &b, in, 1, 0, "r1cs", err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_bin_section(&c, &b, in, 2, 0, "r1cs", err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_bin_section(&m, &b, in, 3, 1, "r1cs", err, errlen)) != NNC_STATUS_OK)
        return st;

    /* header */
    if ((st = nnc_prv_rd_prime(&h, rmod, "r1cs", err, errlen)) != NNC_STATUS_OK)
        return st;
    if (!nnc_prv_rd_u32(&h, &o->n_wires) || !nnc_prv_rd_u32(&h, &o->n_pub_out) ||
        !nnc_prv_rd_u32(&h, &o->n_pub_in) || !nnc_prv_rd_u32(&h, &o->n_prv_in) ||
        !nnc_prv_rd_u64(&h, &o->n_labels) || !nnc_prv_rd_u32(&h, &o->n_constraints) || h.pos != h.len)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "r1cs header section has %zu bytes (%u expected)", h.len,
                       R1CS_HEADER_BYTES);
    if (o->n_wires == 0 ||
        (uint64_t)o->n_pub_out + o->n_pub_in + o->n_prv_in + 1 > o->n_wires)
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "r1cs header: %u wires cannot hold the constant, %u outputs, %u public and %u private inputs",
                       o->n_wires, o->n_pub_out, o->n_pub_in, o->n_prv_in);

    /* constraints, first pass: structure and sizes, before any allocation */
    nlc = 3 * (uint64_t)o->n_constraints;
    if (nlc * 4 > c.len)
        return nnc_err(err, errlen, NNC_STATUS_PARSE,
                       "r1cs declares %u constraints but its constraint section holds only %zu bytes",
                       o->n_constraints, c.len);
    for (i = 0; i < nlc; i++) {
        uint32_t n;
        if (!nnc_prv_rd_u32(&c, &n) || (uint64_t)n * R1CS_TERM_BYTES > c.len - c.pos)
            return nnc_err(err, errlen, NNC_STATUS_PARSE,
                           "r1cs constraint section truncated in constraint %llu of %u",
                           (unsigned long long)(i / 3), o->n_constraints);
        c.pos += (size_t)n * R1CS_TERM_BYTES;
        nterms += n;
    }
    if (c.pos != c.len)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "r1cs constraint section has %zu bytes after constraint %u",
                       c.len - c.pos, o->n_constraints);
    /* without a wire map nothing in the file bounds nWires; a witness for it
     * (32 bytes a wire) must stay within the allocation limit */
    if (m.p == NULL && (uint64_t)o->n_wires > nnc_max_tensor_bytes() / 32)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT,
                       "r1cs declares %u wires, more than a witness may hold (NNCERT_MAX_TENSOR_BYTES)", o->n_wires);
    if (m.p != NULL && m.len != (uint64_t)o->n_wires * 8)
        return nnc_err(err, errlen, NNC_STATUS_PARSE,
                       "r1cs wire map section has %zu bytes; %u wires need %llu", m.len, o->n_wires,
                       (unsigned long long)o->n_wires * 8);

    o->lc_start = nnc_prv_alloc_array(nlc + 1, sizeof *o->lc_start, &st);
    o->terms = o->lc_start ? nnc_prv_alloc_array(nterms, sizeof *o->terms, &st) : NULL;
    o->wire_label = (o->terms && m.p) ? nnc_prv_alloc_array(o->n_wires, sizeof *o->wire_label, &st) : NULL;
    if (o->lc_start == NULL || o->terms == NULL || (m.p != NULL && o->wire_label == NULL))
        return nnc_err(err, errlen, st, "r1cs with %llu terms: cannot allocate", (unsigned long long)nterms);
    o->n_terms = nterms;

    /* second pass: values */
    c.pos = 0;
    for (i = 0, pos = 0; i < nlc; i++) {
        uint32_t n;
        nnc_prv_rd_u32(&c, &n);
        o->lc_start[i] = pos;
        for (k = 0; k < n; k++, pos++) {
            const unsigned char *p;
            uint64_t x[4];
            nnc_prv_r1cs_term *tm = &o->terms[pos];
            nnc_prv_rd_u32(&c, &tm->wire);
            nnc_prv_rd_bytes(&c, &p, 32);
            if (tm->wire >= o->n_wires)
                return nnc_err(err, errlen, NNC_STATUS_INVALID,
                               "r1cs constraint %llu uses wire %u but there are %u wires",
                               (unsigned long long)(i / 3), tm->wire, o->n_wires);
            nnc_fe4_int_from_b32(x, p, NNC_PRV_ENDIAN_LITTLE);
            if (!nnc_fr_from_int(&tm->coef, x))
                return nnc_err(err, errlen, NNC_STATUS_INVALID,
                               "r1cs constraint %llu has a coefficient not below the field prime",
                               (unsigned long long)(i / 3));
        }
    }
    o->lc_start[nlc] = pos;
    if (m.p != NULL)
        for (t = 0; t < o->n_wires; t++)
            nnc_prv_rd_u64(&m, &o->wire_label[t]);
    return NNC_STATUS_OK;
}

static void r1cs_clear(void *r) { nnc_prv_r1cs_clear(r); }
static const nnc_prv_reader r1cs_reader = {sizeof(nnc_prv_r1cs), r1cs_parse, r1cs_clear};

nnc_status nnc_prv_r1cs_parse(nnc_prv_r1cs *out, const unsigned char *in, size_t len, char *err, size_t errlen)
{
    return nnc_prv_read_mem(&r1cs_reader, out, in, len, 0, err, errlen);
}

nnc_status nnc_prv_r1cs_read_file(nnc_prv_r1cs *out, const char *path, char *err, size_t errlen)
{
    return nnc_prv_read_file(&r1cs_reader, out, path, 0, err, errlen);
}

/* Returns: NNC_STATUS_OK if r is consistent enough to write. */
static nnc_status r1cs_check(const nnc_prv_r1cs *r)
{
    uint64_t nlc = 3 * (uint64_t)r->n_constraints, i;
    if (r->n_wires == 0 || (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in + 1 > r->n_wires)
        return NNC_STATUS_INVALID;
    if (r->lc_start == NULL || r->lc_start[0] != 0 || r->lc_start[nlc] != r->n_terms ||
        (r->n_terms > 0 && r->terms == NULL))
        return NNC_STATUS_INVALID;
    for (i = 0; i < nlc; i++)
        if (r->lc_start[i + 1] < r->lc_start[i] || r->lc_start[i + 1] - r->lc_start[i] > UINT32_MAX)
            return NNC_STATUS_INVALID;
    for (i = 0; i < r->n_terms; i++)
        if (r->terms[i].wire >= r->n_wires)
            return NNC_STATUS_INVALID;
    return NNC_STATUS_OK;
}

static nnc_status r1cs_emit(nnc_prv_sink *s, const void *obj)
{
    const nnc_prv_r1cs *r = obj;
    const uint64_t rmod[4] = NNC_FR_MODULUS_INIT;
    uint64_t nlc = 3 * (uint64_t)r->n_constraints, i, t;
    nnc_status st = r1cs_check(r);
    if (st != NNC_STATUS_OK)
        return st;
    nnc_prv_sink_bin_header(s, "r1cs", 1, r->wire_label != NULL ? 3 : 2);

    nnc_prv_sink_section(s, 2, 4 * nlc + R1CS_TERM_BYTES * r->n_terms);
    for (i = 0; i < nlc; i++) {
        nnc_prv_sink_u32(s, (uint32_t)(r->lc_start[i + 1] - r->lc_start[i]));
        for (t = r->lc_start[i]; t < r->lc_start[i + 1]; t++) {
            unsigned char b[32];
            nnc_prv_sink_u32(s, r->terms[t].wire);
            nnc_fr_get_b32(b, &r->terms[t].coef, NNC_PRV_ENDIAN_LITTLE);
            nnc_prv_sink_put(s, b, 32);
        }
    }

    nnc_prv_sink_section(s, 1, R1CS_HEADER_BYTES);
    nnc_prv_sink_prime(s, rmod);
    nnc_prv_sink_u32(s, r->n_wires);
    nnc_prv_sink_u32(s, r->n_pub_out);
    nnc_prv_sink_u32(s, r->n_pub_in);
    nnc_prv_sink_u32(s, r->n_prv_in);
    nnc_prv_sink_u64(s, r->n_labels);
    nnc_prv_sink_u32(s, r->n_constraints);

    if (r->wire_label != NULL) {
        nnc_prv_sink_section(s, 3, 8 * (uint64_t)r->n_wires);
        for (t = 0; t < r->n_wires; t++)
            nnc_prv_sink_u64(s, r->wire_label[t]);
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_r1cs_serialize(unsigned char *out, size_t *outlen, const nnc_prv_r1cs *r)
{
    return nnc_prv_emit_mem(out, outlen, r1cs_emit, r);
}

nnc_status nnc_prv_r1cs_write_file(const char *path, const nnc_prv_r1cs *r, char *err, size_t errlen)
{
    return nnc_prv_emit_file(path, r1cs_emit, r, "r1cs", err, errlen);
}

/* Out: *acc = <terms[lo..hi), w>. */
static void r1cs_dot(nnc_fr *acc, const nnc_prv_r1cs_term *terms, uint64_t lo, uint64_t hi, const nnc_prv_fr *w)
{
    nnc_fr t;
    nnc_fr_set_zero(acc);
    for (; lo < hi; lo++) {
        nnc_fr_mul(&t, &terms[lo].coef, &w[terms[lo].wire]);
        nnc_fr_add(acc, acc, &t);
    }
}

nnc_status nnc_prv_r1cs_check_witness(uint32_t *bad, const nnc_prv_r1cs *r, const nnc_prv_fr *w,
                                      size_t n, char *err, size_t errlen)
{
    uint32_t i;
    if (bad != NULL)
        *bad = UINT32_MAX;
    if (n != r->n_wires)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "witness has %zu values, the r1cs %u wires", n,
                       r->n_wires);
    if (!nnc_fr_is_one(&w[0]))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "witness value 0 (the constant wire) is not 1");
    for (i = 0; i < r->n_constraints; i++) {
        const uint64_t *s = &r->lc_start[3 * (uint64_t)i];
        nnc_fr a, b, c;
        r1cs_dot(&a, r->terms, s[0], s[1], w);
        r1cs_dot(&b, r->terms, s[1], s[2], w);
        r1cs_dot(&c, r->terms, s[2], s[3], w);
        nnc_fr_mul(&a, &a, &b);
        if (!nnc_fr_eq(&a, &c)) {
            if (bad != NULL)
                *bad = i;
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "witness violates constraint %u of %u", i,
                           r->n_constraints);
        }
    }
    return NNC_STATUS_OK;
}
