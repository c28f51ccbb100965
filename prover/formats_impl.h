/* circom / snarkjs files for Groth16 over BN254 ("bn128"): .r1cs, .wtns,
 * .zkey and the JSON files proof.json, public.json, verification_key.json.
 *
 * Binary files (iden3 binfileutils container), all integers little-endian:
 *   magic[4] ("r1cs" | "wtns" | "zkey"), version u32, nSections u32, then
 *   nSections times (type u32, size u64, size bytes of data), any order.
 * Field elements take n8 = 32 bytes, little-endian.  Which integer is stored
 * differs per file (checked against the output of snarkjs 0.7.6 and circom
 * 2.2.3 (npm circom2 0.2.23) by tests/unit/test_prover_formats.c):
 *   .r1cs  coefficients                 canonical value v            (standard form)
 *   .wtns  witness values               canonical value v            (standard form)
 *   .zkey  G1/G2 point coordinates      v*R mod q, R = 2^256          (Montgomery form)
 *   .zkey  coefficient section values   v*R^2 mod r                  ("double Montgomery":
 *          snarkjs and rapidsnark multiply them with standard-form witness
 *          values by one Montgomery product)
 * A zkey point at infinity is stored as x = y = 0 (all 64 or 128 bytes zero),
 * the same encoding nnc_prv_g1/g2 use.
 *
 * JSON (snarkjs writes JSON.stringify(obj, null, 1): one-space indent, no
 * trailing newline; the writers here produce the same bytes):
 *   G1 ["x","y","1"]; G2 [["x.c0","x.c1"],["y.c0","y.c1"],["1","0"]];
 *   infinity G1 ["0","1","0"], G2 [["0","0"],["1","0"],["0","0"]].
 *
 * The API other modules use (structs, readers, writers) is declared in
 * nncert/prover.h; this header keeps the helpers shared by the
 * implementation files.
 *
 * Readers are bounds-checked, compare declared counts with the bytes present
 * before allocating, and fail with one line naming the problem and:
 *   NNC_STATUS_PARSE        malformed: bad magic, truncated, section sizes
 *                           that disagree with the declared counts, bad JSON;
 *   NNC_STATUS_UNSUPPORTED  another curve/field, protocol (PLONK, FFLONK),
 *                           file version, or circom custom gates;
 *   NNC_STATUS_INVALID      well-formed but inconsistent: a field element not
 *                           below its modulus, a wire index out of range, a
 *                           point off the curve or outside the subgroup;
 *   NNC_STATUS_LIMIT        a declared size above what nncert handles
 *                           (domain above 2^28, an array above
 *                           nnc_max_tensor_bytes());
 *   NNC_STATUS_IO / NNC_STATUS_NOMEM as usual.
 * On failure the output struct is left cleared (all zero).
 *
 * Writers: _serialize(out, &outlen, x) writes into a caller buffer: In:
 * *outlen its capacity (out may be NULL when it is 0); Out: *outlen the bytes
 * the encoding needs.  Returns NNC_STATUS_LIMIT, writing nothing useful,
 * when the capacity is too small, so a first call with *outlen = 0 is the
 * size query.  _write_file writes a file (replacing it).
 *
 * Ownership: structs are plain values; a reader fills one with arrays from
 * malloc, and whoever fills one (reader or caller) frees it with _clear.
 * Thread safety: no state; distinct structs may be used from distinct threads. */
#ifndef NNC_PRV_FORMATS_IMPL_H
#define NNC_PRV_FORMATS_IMPL_H

#include <stdio.h>

#include "nncert/prover.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ internal
 * Shared by prover/formats.c, r1cs.c, wtns.c, zkey.c, snarkjson.c. */

/* Bytes of a G1 / G2 affine point in a zkey (Montgomery x, y). */
#define NNC_PRV_ZKEY_G1_BYTES 64
#define NNC_PRV_ZKEY_G2_BYTES 128
/* Largest domain: 2^NNC_FR_TWO_ADICITY. */
#define NNC_PRV_ZKEY_MAX_LOG_DOMAIN 28

/* Bounds-checked little-endian reader over in[0..len). */
typedef struct nnc_prv_rd {
    const unsigned char *p;
    size_t len, pos;
} nnc_prv_rd;

/* Returns: 1 and advances, or 0 (nothing read) when fewer bytes remain. */
int nnc_prv_rd_u32(nnc_prv_rd *r, uint32_t *v);
int nnc_prv_rd_u64(nnc_prv_rd *r, uint64_t *v);
int nnc_prv_rd_bytes(nnc_prv_rd *r, const unsigned char **p, size_t n);

/* Section table of a binfileutils container: the first occurrence and the
 * count of each type below NNC_PRV_BIN_MAX_TYPE (larger types are skipped). */
#define NNC_PRV_BIN_MAX_TYPE 32
typedef struct nnc_prv_bin {
    uint32_t version;
    uint64_t off[NNC_PRV_BIN_MAX_TYPE];   /* data offset in the file */
    uint64_t size[NNC_PRV_BIN_MAX_TYPE];  /* data bytes */
    uint32_t count[NNC_PRV_BIN_MAX_TYPE]; /* occurrences */
} nnc_prv_bin;

/* Parse the container header and section table; checks the magic, that the
 * version is in [vmin, vmax] (else UNSUPPORTED) and that every section lies
 * inside the file.  what: the file kind for messages ("r1cs"). */
nnc_status nnc_prv_bin_open(nnc_prv_bin *b, const unsigned char *in, size_t len, const char *magic,
                            uint32_t vmin, uint32_t vmax, char *err, size_t errlen);
/* Returns: NNC_STATUS_OK and *r over section type's data, or PARSE when the
 * section is missing (unless optional: then r->p = NULL) or repeated. */
nnc_status nnc_prv_bin_section(nnc_prv_rd *r, const nnc_prv_bin *b, const unsigned char *in,
                               uint32_t type, int optional, const char *magic, char *err, size_t errlen);
/* Checks the n8 / prime field header shared by r1cs, wtns and zkey:
 * n8 == 32 and the prime equals m (the canonical modulus); else UNSUPPORTED. */
nnc_status nnc_prv_rd_prime(nnc_prv_rd *r, const uint64_t m[4], const char *what, char *err, size_t errlen);

/* Output sink: a bounded memory buffer (counts beyond its capacity) or a FILE. */
typedef struct nnc_prv_sink {
    unsigned char *buf;   /* memory sink, or NULL */
    size_t cap;           /* capacity of buf */
    uint64_t len;         /* bytes produced so far (also past cap) */
    FILE *f;              /* file sink, or NULL */
    int failed;           /* a file write failed */
} nnc_prv_sink;

void nnc_prv_sink_put(nnc_prv_sink *s, const void *p, size_t n);
void nnc_prv_sink_u32(nnc_prv_sink *s, uint32_t v);
void nnc_prv_sink_u64(nnc_prv_sink *s, uint64_t v);
/* Container header (magic, version, nSections) and a section header. */
void nnc_prv_sink_bin_header(nnc_prv_sink *s, const char *magic, uint32_t version, uint32_t nsections);
void nnc_prv_sink_section(nnc_prv_sink *s, uint32_t type, uint64_t size);
/* n8 = 32 and the canonical modulus m, little-endian. */
void nnc_prv_sink_prime(nnc_prv_sink *s, const uint64_t m[4]);

/* A serializer: writes obj into s (never fails except through the sink). */
typedef nnc_status (*nnc_prv_emit_fn)(nnc_prv_sink *s, const void *obj);
/* Run emit into out[0..*outlen) as the _serialize functions describe. */
nnc_status nnc_prv_emit_mem(unsigned char *out, size_t *outlen, nnc_prv_emit_fn emit, const void *obj);
/* Run emit into a new file at path. */
nnc_status nnc_prv_emit_file(const char *path, nnc_prv_emit_fn emit, const void *obj, const char *what,
                             char *err, size_t errlen);

/* Map a whole file read-only.  Out: *p, *len (p may be NULL when len = 0);
 * release with nnc_prv_file_unmap. */
nnc_status nnc_prv_file_map(const unsigned char **p, size_t *len, const char *path, char *err, size_t errlen);
void nnc_prv_file_unmap(const unsigned char *p, size_t len);

/* A flag the _read_file functions add to a reader's flags (never a caller's:
 * the public _parse functions clear it): in[0..len) is a private read-only
 * mapping of a file, whose pages the parser may hand back once it has read
 * them (nnc_prv_release), so that a large file and what it parses into are
 * not both resident at the peak. */
#define NNC_PRV_READ_MAPPED (1u << 31)

/* With NNC_PRV_READ_MAPPED in flags: the whole pages inside p[0..n) are
 * dropped from memory (a later read faults them in again from the file,
 * with the same bytes).  Otherwise nothing. */
void nnc_prv_release(const void *p, size_t n, unsigned flags);

/* A reader of one file kind, shared by its _parse and _read_file functions:
 * parse fills *out (all zero on entry) from in[0..len) and may leave it
 * partly filled on failure; clear then frees that (NULL: parse leaves *out
 * clear itself).  flags: the kind's reader options (zkey: NNC_PRV_ZKEY_*),
 * 0 for the others. */
typedef struct nnc_prv_reader {
    size_t size; /* bytes of *out */
    nnc_status (*parse)(void *out, const unsigned char *in, size_t len, unsigned flags, char *err,
                        size_t errlen);
    void (*clear)(void *out);
} nnc_prv_reader;
/* The _parse functions: zero *out and run rd->parse; on failure *out is left
 * cleared (all zero), as the top of this file promises. */
nnc_status nnc_prv_read_mem(const nnc_prv_reader *rd, void *out, const unsigned char *in, size_t len, unsigned flags,
                            char *err, size_t errlen);
/* The _read_file functions: the same over the bytes of the file at path
 * (mapped read-only for the call); *out is zero when the file cannot be read. */
nnc_status nnc_prv_read_file(const nnc_prv_reader *rd, void *out, const char *path, unsigned flags, char *err,
                             size_t errlen);

/* malloc(n * size) with the nnc_max_tensor_bytes() limit and overflow check.
 * Returns: the block (n = 0: a valid 1-byte block) or NULL with *st set to
 * NNC_STATUS_LIMIT or NNC_STATUS_NOMEM. */
void *nnc_prv_alloc_array(uint64_t n, size_t size, nnc_status *st);

#ifdef __cplusplus
}
#endif
#endif
