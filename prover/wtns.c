/* snarkjs .wtns version 2: reader and writer.
 *
 * Sections: 1 header   n8 u32, prime r (n8 bytes), nWitness u32
 *           2 witness  nWitness x n8 bytes, standard form, little-endian. */
#include "prover/formats_impl.h"

#include <stdlib.h>
#include <string.h>

#include "prover/field_impl.h"

#define WTNS_HEADER_BYTES 40u /* 4 + 32 + 4 */

void nnc_prv_fr_vec_clear(nnc_prv_fr_vec *v)
{
    if (v == NULL) return;
    free(v->v);
    v->v = NULL;
    v->n = 0;
}

static nnc_status wtns_parse(void *out, const unsigned char *in, size_t len, unsigned flags, char *err,
                             size_t errlen)
{
    const uint64_t rmod[4] = NNC_FR_MODULUS_INIT;
    nnc_prv_fr_vec *o = out;
    nnc_prv_bin b;
    nnc_prv_rd h, d;
    nnc_status st;
    uint32_t n, i;

    if ((st = nnc_prv_bin_open(&b, in, len, "wtns", 2, 2, err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_bin_section(&h, &b, in, 1, 0, "wtns", err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_bin_section(&d, &b, in, 2, 0, "wtns", err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_rd_prime(&h, rmod, "wtns", err, errlen)) != NNC_STATUS_OK)
        return st;
    if (!nnc_prv_rd_u32(&h, &n) || h.pos != h.len)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "wtns header section has %zu bytes (%u expected)", h.len,
                       WTNS_HEADER_BYTES);
    if ((uint64_t)n * 32 != d.len)
        return nnc_err(err, errlen, NNC_STATUS_PARSE,
                       "wtns declares %u values but its witness section holds %zu bytes (%llu expected)", n, d.len,
                       (unsigned long long)n * 32);
    o->v = nnc_prv_alloc_array(n, sizeof *o->v, &st);
    if (o->v == NULL)
        return nnc_err(err, errlen, st, "wtns with %u values: cannot allocate", n);
    o->n = n;
    for (i = 0; i < n; i++) {
        uint64_t x[4];
        nnc_fe4_int_from_b32(x, d.p + (size_t)i * 32, NNC_PRV_ENDIAN_LITTLE);
        if (!nnc_fr_from_int(&o->v[i], x))
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "wtns value %u is not below the field prime", i);
    }
    return NNC_STATUS_OK;
}

static void wtns_clear(void *v) { nnc_prv_fr_vec_clear(v); }
static const nnc_prv_reader wtns_reader = {sizeof(nnc_prv_fr_vec), wtns_parse, wtns_clear};

nnc_status nnc_prv_wtns_parse(nnc_prv_fr_vec *out, const unsigned char *in, size_t len, char *err, size_t errlen)
{
    return nnc_prv_read_mem(&wtns_reader, out, in, len, 0, err, errlen);
}

nnc_status nnc_prv_wtns_read_file(nnc_prv_fr_vec *out, const char *path, char *err, size_t errlen)
{
    return nnc_prv_read_file(&wtns_reader, out, path, 0, err, errlen);
}

static nnc_status wtns_emit(nnc_prv_sink *s, const void *obj)
{
    const nnc_prv_fr_vec *w = obj;
    const uint64_t rmod[4] = NNC_FR_MODULUS_INIT;
    size_t i;
    if (w->n > UINT32_MAX)
        return NNC_STATUS_LIMIT;
    if (w->n > 0 && w->v == NULL)
        return NNC_STATUS_INVALID;
    nnc_prv_sink_bin_header(s, "wtns", 2, 2);
    nnc_prv_sink_section(s, 1, WTNS_HEADER_BYTES);
    nnc_prv_sink_prime(s, rmod);
    nnc_prv_sink_u32(s, (uint32_t)w->n);
    nnc_prv_sink_section(s, 2, 32 * (uint64_t)w->n);
    for (i = 0; i < w->n; i++) {
        unsigned char b[32];
        nnc_fr_get_b32(b, &w->v[i], NNC_PRV_ENDIAN_LITTLE);
        nnc_prv_sink_put(s, b, 32);
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_wtns_serialize(unsigned char *out, size_t *outlen, const nnc_prv_fr_vec *w)
{
    return nnc_prv_emit_mem(out, outlen, wtns_emit, w);
}

nnc_status nnc_prv_wtns_write_file(const char *path, const nnc_prv_fr_vec *w, char *err, size_t errlen)
{
    return nnc_prv_emit_file(path, wtns_emit, w, "wtns", err, errlen);
}
