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
 * The public half of this header (down to "internal") is the API other
 * modules use; it belongs in prover/prover.h once the prover's API settles.
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

#include "prover/prover.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- .r1cs */

/* One term coef * w[wire] of a linear combination. */
typedef struct nnc_prv_r1cs_term {
    uint32_t wire;    /* < n_wires */
    nnc_prv_fr coef;  /* Montgomery form, as every nnc_prv_fr */
} nnc_prv_r1cs_term;

/* A rank-1 constraint system <A_i,w> * <B_i,w> = <C_i,w> (circom .r1cs v1).
 * Wire 0 is the constant 1, then n_pub_out outputs, n_pub_in public inputs,
 * n_prv_in private inputs, then internal wires.
 * Linear combination k of constraint i (k = 0 A, 1 B, 2 C) is
 * terms[lc_start[3*i+k] .. lc_start[3*i+k+1]), in file order. */
typedef struct nnc_prv_r1cs {
    uint32_t n_wires;        /* including wire 0 */
    uint32_t n_pub_out;
    uint32_t n_pub_in;
    uint32_t n_prv_in;
    uint64_t n_labels;       /* signals in the circom symbol table (>= wires used) */
    uint32_t n_constraints;
    uint64_t *lc_start;      /* 3*n_constraints + 1 entries, nondecreasing, last = n_terms */
    nnc_prv_r1cs_term *terms;/* n_terms entries */
    uint64_t n_terms;
    uint64_t *wire_label;    /* n_wires entries (section 3, circom's signal ids), or
                              * NULL: no map section (snarkjs does not need it) */
} nnc_prv_r1cs;

/* Read an .r1cs file image (version 1, bn128 prime, no custom gates; the
 * wire map section is optional, and without it nWires must not exceed
 * nnc_max_tensor_bytes() / 32, else NNC_STATUS_LIMIT).
 * Returns: NNC_STATUS_OK or a status as listed at the top.
 * Out: *out (clear it with nnc_prv_r1cs_clear); err/errlen as in common/nnc.h.
 * In: in[0..len). */
nnc_status nnc_prv_r1cs_parse(nnc_prv_r1cs *out, const unsigned char *in, size_t len,
                              char *err, size_t errlen);
nnc_status nnc_prv_r1cs_read_file(nnc_prv_r1cs *out, const char *path, char *err, size_t errlen);
/* Write sections in circom's order (constraints 2, header 1, wire map 3 when
 * wire_label != NULL), so a file circom wrote is reproduced byte for byte.
 * Returns: NNC_STATUS_OK; NNC_STATUS_INVALID if r is inconsistent (wire out of
 * range, lc_start not a partition of terms); NNC_STATUS_LIMIT (see top). */
nnc_status nnc_prv_r1cs_serialize(unsigned char *out, size_t *outlen, const nnc_prv_r1cs *r);
nnc_status nnc_prv_r1cs_write_file(const char *path, const nnc_prv_r1cs *r, char *err, size_t errlen);
/* Frees the arrays and zeroes *r.  r may be all zero. */
void nnc_prv_r1cs_clear(nnc_prv_r1cs *r);

/* Check that w[0..n) satisfies every constraint.
 * Returns: NNC_STATUS_OK; NNC_STATUS_INVALID naming the first violated
 * constraint, or when n != n_wires or w[0] != 1.
 * Out: *bad (may be NULL) the index of that constraint, or UINT32_MAX. */
nnc_status nnc_prv_r1cs_check_witness(uint32_t *bad, const nnc_prv_r1cs *r, const nnc_prv_fr *w,
                                      size_t n, char *err, size_t errlen);

/* ---------------------------------------------------------------- vectors, .wtns */

/* A vector of Fr elements (a witness, or public inputs). */
typedef struct nnc_prv_fr_vec {
    size_t n;
    nnc_prv_fr *v;    /* n entries, malloc'd (NULL when n = 0) */
} nnc_prv_fr_vec;

void nnc_prv_fr_vec_clear(nnc_prv_fr_vec *v);

/* .wtns version 2 (snarkjs wtns calculate, circom witness generators):
 * header (n8 = 32, prime r, nWitness u32), witness section (standard form).
 * Returns: as at the top (values >= r: NNC_STATUS_INVALID). */
nnc_status nnc_prv_wtns_parse(nnc_prv_fr_vec *out, const unsigned char *in, size_t len,
                              char *err, size_t errlen);
nnc_status nnc_prv_wtns_read_file(nnc_prv_fr_vec *out, const char *path, char *err, size_t errlen);
/* Returns: NNC_STATUS_OK; NNC_STATUS_LIMIT (capacity, or more than 2^32-1 values). */
nnc_status nnc_prv_wtns_serialize(unsigned char *out, size_t *outlen, const nnc_prv_fr_vec *w);
nnc_status nnc_prv_wtns_write_file(const char *path, const nnc_prv_fr_vec *w, char *err, size_t errlen);

/* ---------------------------------------------------------------- .zkey (Groth16) */

/* One entry of the coefficient section: the nonzero entries of the A and B
 * matrices plus, for each public wire s <= n_public, A[n_constraints + s][s] = 1. */
typedef struct nnc_prv_zkey_coef {
    uint32_t matrix;      /* 0 = A, 1 = B */
    uint32_t constraint;  /* row, < domain_size */
    uint32_t signal;      /* wire, < n_vars */
    nnc_prv_fr value;     /* the coefficient (Montgomery form; converted from the file's v*R^2) */
} nnc_prv_zkey_coef;

/* A snarkjs Groth16 proving key (.zkey version 1, protocol 1, bn128). */
typedef struct nnc_prv_zkey {
    uint32_t n_vars;         /* wires, including wire 0 */
    uint32_t n_public;       /* public outputs + public inputs (wire 0 not counted) */
    uint32_t domain_size;    /* power of two, 1 .. 2^28 */
    nnc_prv_g1 alpha1, beta1, delta1;
    nnc_prv_g2 beta2, gamma2, delta2;
    nnc_prv_g1 *ic;          /* n_public + 1 */
    nnc_prv_zkey_coef *coefs;/* n_coefs, in file order */
    uint32_t n_coefs;
    nnc_prv_g1 *a;           /* n_vars */
    nnc_prv_g1 *b1;          /* n_vars */
    nnc_prv_g2 *b2;          /* n_vars */
    nnc_prv_g1 *c;           /* n_vars - n_public - 1; c[i] belongs to wire n_public + 1 + i */
    nnc_prv_g1 *h;           /* domain_size */
    unsigned char *contributions; /* raw section 10 (MPC transcript), or NULL: not written */
    size_t contributions_len;
} nnc_prv_zkey;

/* Flags for nnc_prv_zkey_parse. */
/* Check every B2 point for membership in the order-r subgroup ([r]P = 0, about
 * 0.1 ms per point).  Without it, B2 points are checked to lie on the twist;
 * the six header points are always fully checked and G1 has cofactor 1. */
#define NNC_PRV_ZKEY_CHECK_SUBGROUP 1u

/* Read a .zkey file image.  Every coordinate must be below q and every point
 * on its curve (infinity allowed); header points must be in the subgroup.
 * Returns: as at the top.  Out: *out (nnc_prv_zkey_clear). */
nnc_status nnc_prv_zkey_parse(nnc_prv_zkey *out, const unsigned char *in, size_t len,
                              unsigned flags, char *err, size_t errlen);
nnc_status nnc_prv_zkey_read_file(nnc_prv_zkey *out, const char *path, unsigned flags,
                                  char *err, size_t errlen);
/* Sections in the order snarkjs groth16 setup writes them (1,2,4,3,9,8,5,6,7,10);
 * section 10 only when contributions != NULL.
 * Returns: NNC_STATUS_OK; NNC_STATUS_INVALID for inconsistent counts/indices. */
nnc_status nnc_prv_zkey_serialize(unsigned char *out, size_t *outlen, const nnc_prv_zkey *z);
nnc_status nnc_prv_zkey_write_file(const char *path, const nnc_prv_zkey *z, char *err, size_t errlen);
void nnc_prv_zkey_clear(nnc_prv_zkey *z);

/* ---------------------------------------------------------------- JSON */

/* proof.json */
typedef struct nnc_prv_g16_proof {
    nnc_prv_g1 a;
    nnc_prv_g2 b;
    nnc_prv_g1 c;
} nnc_prv_g16_proof;

/* verification_key.json */
typedef struct nnc_prv_g16_vk {
    uint32_t n_public;
    nnc_prv_g1 alpha1;
    nnc_prv_g2 beta2, gamma2, delta2;
    nnc_prv_g1 *ic;               /* n_public + 1, malloc'd */
    int has_alphabeta;            /* 1 when alphabeta is set */
    /* vk_alphabeta_12 as snarkjs computes it: e(alpha1, beta2)^m with e the
     * canonical optimal ate pairing (nnc_prv_pairing) and m = 2z(6z^2+3z+1),
     * z = 4965661367192848881 (snarkjs's final exponentiation; see
     * prover/snarkjson.c).  In Fq12 = Fq6[w], Fq6 = Fq2[v], Fq2 = Fq[u]:
     * alphabeta[6*i + 2*j + k] is the u^k coefficient of the v^j coefficient
     * of the w^i coefficient, the order snarkjs nests them in JSON. */
    nnc_prv_fq alphabeta[12];
} nnc_prv_g16_vk;

/* Largest n_public / number of public inputs a JSON reader accepts. */
#define NNC_PRV_JSON_MAX_PUBLIC (1u << 24)

/* Parse proof.json text[0..len): "pi_a", "pi_b", "pi_c" (G1/G2 as at the top;
 * z must be "1", or "0" for infinity), "protocol" "groth16" and "curve"
 * "bn128" when present (anything else: NNC_STATUS_UNSUPPORTED).  Points must
 * be on the curve and in the subgroup (NNC_STATUS_INVALID). */
nnc_status nnc_prv_g16_proof_parse_json(nnc_prv_g16_proof *out, const char *text, size_t len,
                                        char *err, size_t errlen);
nnc_status nnc_prv_g16_proof_read_file(nnc_prv_g16_proof *out, const char *path, char *err, size_t errlen);
nnc_status nnc_prv_g16_proof_serialize_json(char *out, size_t *outlen, const nnc_prv_g16_proof *p);
nnc_status nnc_prv_g16_proof_write_file(const char *path, const nnc_prv_g16_proof *p, char *err, size_t errlen);

/* public.json: an array of decimal strings, each in [0, r) (a value >= r or
 * negative is refused with NNC_STATUS_INVALID, as snarkjs groth16 verify does). */
nnc_status nnc_prv_public_parse_json(nnc_prv_fr_vec *out, const char *text, size_t len,
                                     char *err, size_t errlen);
nnc_status nnc_prv_public_read_file(nnc_prv_fr_vec *out, const char *path, char *err, size_t errlen);
nnc_status nnc_prv_public_serialize_json(char *out, size_t *outlen, const nnc_prv_fr_vec *pub);
nnc_status nnc_prv_public_write_file(const char *path, const nnc_prv_fr_vec *pub, char *err, size_t errlen);

/* verification_key.json: protocol groth16, curve bn128, nPublic, vk_alpha_1,
 * vk_beta_2, vk_gamma_2, vk_delta_2, vk_alphabeta_12 (optional on input; when
 * present it must equal snarkjs's e(alpha1, beta2), else NNC_STATUS_INVALID),
 * IC (nPublic + 1 points).  Points are checked as for proofs. */
nnc_status nnc_prv_g16_vk_parse_json(nnc_prv_g16_vk *out, const char *text, size_t len,
                                     char *err, size_t errlen);
nnc_status nnc_prv_g16_vk_read_file(nnc_prv_g16_vk *out, const char *path, char *err, size_t errlen);
/* Writes vk_alphabeta_12 only when has_alphabeta (snarkjs groth16 verify does
 * not read it). */
nnc_status nnc_prv_g16_vk_serialize_json(char *out, size_t *outlen, const nnc_prv_g16_vk *vk);
nnc_status nnc_prv_g16_vk_write_file(const char *path, const nnc_prv_g16_vk *vk, char *err, size_t errlen);
/* The verification key of a proving key, vk_alphabeta_12 included: the same
 * bytes as snarkjs zkey export verificationkey once written.  Out: *out (nnc_prv_g16_vk_clear).
 * Returns: NNC_STATUS_OK or NNC_STATUS_NOMEM. */
nnc_status nnc_prv_g16_vk_from_zkey(nnc_prv_g16_vk *out, const nnc_prv_zkey *z);
void nnc_prv_g16_vk_clear(nnc_prv_g16_vk *vk);

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

/* malloc(n * size) with the nnc_max_tensor_bytes() limit and overflow check.
 * Returns: the block (n = 0: a valid 1-byte block) or NULL with *st set to
 * NNC_STATUS_LIMIT or NNC_STATUS_NOMEM. */
void *nnc_prv_alloc_array(uint64_t n, size_t size, nnc_status *st);

#ifdef __cplusplus
}
#endif
#endif
