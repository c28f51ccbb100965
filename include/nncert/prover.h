/* nncert prover module: BN254 (alt_bn128) arithmetic, and later MSM, NTT,
 * R1CS and Groth16 with snarkjs-compatible files.
 *
 * Curve and fields (as EIP-196/197, snarkjs, arkworks and rapidsnark use them):
 *   Fq  base field,   p = 21888242871839275222246405745257275088696311157297823662689037894645226208583
 *   Fr  scalar field, r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
 *   G1: y^2 = x^3 + 3 over Fq, cofactor 1, generator (1, 2)
 *   G2: y^2 = x^3 + 3/(9+u) over Fq2 = Fq[u]/(u^2+1), the order-r subgroup
 *       of the sextic twist, generator as in snarkjs/EIP-197.
 *
 * Representation (the same in this header, in the inline formulas of
 * prover/field_impl.h, prover/tower_impl.h, prover/curve_impl.h and in gpu/):
 *   a field element is 4 little-endian 64-bit limbs holding a*2^256 mod m
 *   (Montgomery form), always fully reduced (< m).  Affine points store the
 *   point at infinity as x = y = 0, which is not on either curve (b != 0).
 *
 * Other modules use the functions below; code inside prover/ and gpu/ uses
 * the inline formulas in the *_impl.h headers directly.
 *
 * Thread safety: no function here keeps state; all are reentrant. */
#ifndef NNC_PROVER_H
#define NNC_PROVER_H

#include "nncert/nnc.h"
#include "nncert/team.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a canonical field element encoding (Fq and Fr). */
#define NNC_PRV_FIELD_BYTES 32
/* Buffer size for a decimal field element: at most 77 digits plus NUL. */
#define NNC_PRV_DEC_BUFSIZE 80

/* Returns: NNC_PRV_FIELD_BYTES. */
NNC_API size_t nnc_prv_field_bytes(void);
/* Returns: NNC_PRV_DEC_BUFSIZE. */
NNC_API size_t nnc_prv_dec_bufsize(void);

/* Element of Fr (exponents, witness values).  v: Montgomery form, < r. */
typedef struct nnc_prv_fr { uint64_t v[4]; } nnc_prv_fr;
/* Element of Fq (point coordinates).  v: Montgomery form, < p. */
typedef struct nnc_prv_fq { uint64_t v[4]; } nnc_prv_fq;
/* Element c0 + c1*u of Fq2 = Fq[u]/(u^2 + 1). */
typedef struct nnc_prv_fq2 { nnc_prv_fq c0, c1; } nnc_prv_fq2;

/* G1 point in affine form; x = y = 0 encodes infinity. */
typedef struct nnc_prv_g1 { nnc_prv_fq x, y; } nnc_prv_g1;
/* G1 point in Jacobian form: (X/Z^2, Y/Z^3); Z = 0 is infinity. */
typedef struct nnc_prv_g1_jac { nnc_prv_fq x, y, z; } nnc_prv_g1_jac;
/* G2 point in affine form; x = y = 0 encodes infinity. */
typedef struct nnc_prv_g2 { nnc_prv_fq2 x, y; } nnc_prv_g2;
/* G2 point in Jacobian form: (X/Z^2, Y/Z^3); Z = 0 is infinity. */
typedef struct nnc_prv_g2_jac { nnc_prv_fq2 x, y, z; } nnc_prv_g2_jac;

/* Byte order of a 32-byte canonical encoding. */
typedef enum nnc_prv_endian {
    NNC_PRV_ENDIAN_BIG = 0,    /* most significant byte first (EIP-197, JSON hex) */
    NNC_PRV_ENDIAN_LITTLE = 1  /* least significant byte first (zkey, wtns files) */
} nnc_prv_endian;

/* ---- fields ---- */

/* Parse a decimal integer.
 * Returns: NNC_STATUS_OK; NNC_STATUS_PARSE for anything but an optional '-'
 *          followed by 1..200 decimal digits; NNC_STATUS_INVALID when reduce
 *          is 0 and the value is negative or not below the modulus.
 * Out: *out (unchanged on failure); err/errlen as in nncert/nnc.h.
 * In:  s, NUL-terminated; reduce: nonzero to accept any integer and reduce
 *      it mod r (circom's convention for negative inputs). */
NNC_API nnc_status nnc_prv_fr_parse_dec(nnc_prv_fr *out, const char *s, int reduce, char *err, size_t errlen);
/* As nnc_prv_fr_parse_dec, modulo p. */
NNC_API nnc_status nnc_prv_fq_parse_dec(nnc_prv_fq *out, const char *s, int reduce, char *err, size_t errlen);

/* Write the canonical value (0 <= a < modulus) in decimal, no sign, NUL-terminated.
 * Returns: NNC_STATUS_OK, or NNC_STATUS_LIMIT (out set to "" when outlen > 0)
 *          when outlen is below the length needed (at most NNC_PRV_DEC_BUFSIZE).
 * Out: out, outlen its size. */
NNC_API nnc_status nnc_prv_fr_serialize_dec(char *out, size_t outlen, const nnc_prv_fr *a);
NNC_API nnc_status nnc_prv_fq_serialize_dec(char *out, size_t outlen, const nnc_prv_fq *a);

/* Parse a 32-byte canonical encoding.
 * Returns: NNC_STATUS_OK, or NNC_STATUS_INVALID when the value is >= the
 *          modulus (then *out is unchanged).
 * In: in[32] in byte order e. */
NNC_API nnc_status nnc_prv_fr_parse_b32(nnc_prv_fr *out, const unsigned char *in, nnc_prv_endian e);
NNC_API nnc_status nnc_prv_fq_parse_b32(nnc_prv_fq *out, const unsigned char *in, nnc_prv_endian e);
/* Out: out[32], the canonical value in byte order e. */
NNC_API void nnc_prv_fr_serialize_b32(unsigned char *out, const nnc_prv_fr *a, nnc_prv_endian e);
NNC_API void nnc_prv_fq_serialize_b32(unsigned char *out, const nnc_prv_fq *a, nnc_prv_endian e);

/* ---- curves ---- */

/* Out: the snarkjs/EIP-197 generator. */
NNC_API void nnc_prv_g1_generator(nnc_prv_g1 *out);
NNC_API void nnc_prv_g2_generator(nnc_prv_g2 *out);

/* Returns: 1 if p is infinity or satisfies the curve equation, else 0. */
NNC_API int nnc_prv_g1_is_on_curve(const nnc_prv_g1 *p);
NNC_API int nnc_prv_g2_is_on_curve(const nnc_prv_g2 *p);
/* Returns: 1 if p is in the order-r group (G1: on the curve, the cofactor
 *          is 1; G2: on the twist and [r]p = infinity), else 0.  Use this on
 *          every point read from a file. Variable time (points are public). */
NNC_API int nnc_prv_g1_is_valid(const nnc_prv_g1 *p);
NNC_API int nnc_prv_g2_is_valid(const nnc_prv_g2 *p);

/* Out: *out = a + b.  In: a, b on the curve (infinity allowed); out may alias. */
NNC_API void nnc_prv_g1_add(nnc_prv_g1 *out, const nnc_prv_g1 *a, const nnc_prv_g1 *b);
NNC_API void nnc_prv_g2_add(nnc_prv_g2 *out, const nnc_prv_g2 *a, const nnc_prv_g2 *b);
/* Out: *out = -a. */
NNC_API void nnc_prv_g1_neg(nnc_prv_g1 *out, const nnc_prv_g1 *a);
NNC_API void nnc_prv_g2_neg(nnc_prv_g2 *out, const nnc_prv_g2 *a);

/* Out: *out = [k]p.  In: p on the curve; k any Fr element.
 * The plain form runs in time independent of k (fixed 4-bit windows,
 * table scans and selects by mask); _var branches on k (wNAF, faster). */
NNC_API void nnc_prv_g1_mul(nnc_prv_g1 *out, const nnc_prv_g1 *p, const nnc_prv_fr *k);
NNC_API void nnc_prv_g1_mul_var(nnc_prv_g1 *out, const nnc_prv_g1 *p, const nnc_prv_fr *k);
NNC_API void nnc_prv_g2_mul(nnc_prv_g2 *out, const nnc_prv_g2 *p, const nnc_prv_fr *k);
NNC_API void nnc_prv_g2_mul_var(nnc_prv_g2 *out, const nnc_prv_g2 *p, const nnc_prv_fr *k);

/* Returns: 1 if a and b are the same point. */
NNC_API int nnc_prv_g1_eq(const nnc_prv_g1 *a, const nnc_prv_g1 *b);
NNC_API int nnc_prv_g2_eq(const nnc_prv_g2 *a, const nnc_prv_g2 *b);

/* Parse affine coordinates in decimal (snarkjs JSON: G1 ["x","y","1"],
 * G2 [["x0","x1"],["y0","y1"],["1","0"]] with x = x0 + x1*u); "0","0"
 * (and 0 for every G2 component) is infinity.
 * Returns: NNC_STATUS_OK, NNC_STATUS_PARSE for a bad number,
 *          NNC_STATUS_INVALID for a coordinate >= p or a point not on the
 *          curve (G2: or not in the order-r subgroup).
 * Out: *out (unchanged on failure). */
NNC_API nnc_status nnc_prv_g1_parse_dec(nnc_prv_g1 *out, const char *x, const char *y, char *err, size_t errlen);
NNC_API nnc_status nnc_prv_g2_parse_dec(nnc_prv_g2 *out, const char *x0, const char *x1, const char *y0, const char *y1,
                                        char *err, size_t errlen);

/* ---- multi-scalar multiplication (prover/msm.c) ---- */


/* Multi-scalar multiplication: *out = sum_{i<n} [scalars[i]] points[i].
 * Variable time: branches on the scalars and the points (as the MSMs of
 * snarkjs and rapidsnark do); not for scalars that must stay secret from
 * someone who can time the prover.
 * Out: *out, affine (infinity as x = y = 0); never fails: without memory it
 *      falls back to a slower single-threaded method that allocates nothing.
 * In:  points[n], each in the group (on the curve, G2: in the order-r
 *      subgroup) or infinity (x = y = 0); scalars[n], Fr elements in
 *      Montgomery form (reduced); n may be 0 (then *out = infinity);
 *      threads: worker threads, <= 0 for the number of online CPUs. */
NNC_API void nnc_prv_g1_msm(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n,
                            int threads);
NNC_API void nnc_prv_g2_msm(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n,
                            int threads);
/* *out = sum_i [s1_i] p1_i + sum_i [s2_i] p2_i, as one MSM over the
 * n1 + n2 inputs (cheaper than two: one set of bucket sums, a wider
 * window); the arrays as for nnc_prv_g1_msm. */
NNC_API void nnc_prv_g1_msm2(nnc_prv_g1 *out, const nnc_prv_g1 *p1, const nnc_prv_fr *s1, size_t n1,
                             const nnc_prv_g1 *p2, const nnc_prv_fr *s2, size_t n2, int threads);

/* ---- NTT over Fr (prover/ntt.c) ---- */


/* Largest transform: 2^NNC_PRV_NTT_MAX_LOG elements (2^27 for a coset with
 * the default shift, which needs a 2n-th root). */
#define NNC_PRV_NTT_MAX_LOG 28

/* In-place NTT of a[n] over Fr (Montgomery form), natural order in and out.
 * Returns: NNC_STATUS_OK; NNC_STATUS_INVALID when n is not a power of two
 *          (n = 0 included); NNC_STATUS_LIMIT when n > 2^28;
 *          NNC_STATUS_NOMEM when the twiddle table (32 n bytes) cannot be
 *          allocated.  On failure a is unchanged.
 * In/Out: a[n], coefficients -> values a(w_n^i) (inverse = 0), or values ->
 *         coefficients (inverse != 0, including the 1/n scaling).
 * In: threads, <= 0 for the number of online CPUs (small n use one). */
NNC_API nnc_status nnc_prv_ntt(nnc_prv_fr *a, size_t n, int inverse, int threads);

/* Coset NTT: coefficients -> values a(g w_n^i), i < n.
 * In: shift = &g, any nonzero element, or NULL for g = w_(2n) (the
 *     snarkjs/rapidsnark Groth16 coset, see the top of prover/ntt_impl.h).
 * Returns: as nnc_prv_ntt; also NNC_STATUS_LIMIT for n > 2^27 with
 *          shift = NULL, NNC_STATUS_INVALID for a zero shift. */
NNC_API nnc_status nnc_prv_coset_ntt(nnc_prv_fr *a, size_t n, const nnc_prv_fr *shift, int threads);
/* Inverse of nnc_prv_coset_ntt with the same shift: values at g w_n^i ->
 * coefficients. */
NNC_API nnc_status nnc_prv_coset_intt(nnc_prv_fr *a, size_t n, const nnc_prv_fr *shift, int threads);

/* Values on the domain -> values on the coset: for each of the np arrays
 * polys[p][n], A(w_n^i) in, A(g w_n^i) out (i < n), with g as for
 * nnc_prv_coset_ntt.  The result equals nnc_prv_ntt (inverse) followed by
 * nnc_prv_coset_ntt, bit for bit (the Groth16 prover's quotient step).  On
 * CPUs with AVX-512 IFMA (unless NNC_NO_IFMA is set, see prover/fq_ifma.h)
 * and n >= 8 it runs as one fused 8-lane transform (prover/ntt_ifma.h),
 * with an extra buffer of 40 n bytes.
 * Returns: as nnc_prv_coset_ntt; on failure the arrays may be partly
 *          transformed. */
NNC_API nnc_status nnc_prv_ntt_to_coset(nnc_prv_fr *const *polys, int np, size_t n, const nnc_prv_fr *shift,
                                        int threads);

/* Out: *out, the principal n-th root of unity w_n used by the transforms.
 * Returns: NNC_STATUS_OK, NNC_STATUS_INVALID (n not a power of two) or
 *          NNC_STATUS_LIMIT (n > 2^28). */
NNC_API nnc_status nnc_prv_ntt_root(nnc_prv_fr *out, size_t n);

/* ---- pairing (prover/pairing.c) ---- */

/* Returns: 1 iff prod_i e(p[i], q[i]) = 1 (optimal ate pairing, one final
 * exponentiation); points at infinity contribute 1.  Inputs must be valid
 * points (nnc_prv_g1_is_valid / nnc_prv_g2_is_valid). */
NNC_API int nnc_prv_pairing_check(const nnc_prv_g1 *p, const nnc_prv_g2 *q, size_t n);

/* ==== circom / snarkjs files (prover/formats.c, r1cs.c, wtns.c, zkey.c,
 * snarkjson.c); the encodings are described in prover/formats_impl.h ==== */

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
 * Out: *out (clear it with nnc_prv_r1cs_clear); err/errlen as in nncert/nnc.h.
 * In: in[0..len). */
NNC_API nnc_status nnc_prv_r1cs_parse(nnc_prv_r1cs *out, const unsigned char *in, size_t len, char *err, size_t errlen);
NNC_API nnc_status nnc_prv_r1cs_read_file(nnc_prv_r1cs *out, const char *path, char *err, size_t errlen);
/* Write sections in circom's order (constraints 2, header 1, wire map 3 when
 * wire_label != NULL), so a file circom wrote is reproduced byte for byte.
 * Returns: NNC_STATUS_OK; NNC_STATUS_INVALID if r is inconsistent (wire out of
 * range, lc_start not a partition of terms); NNC_STATUS_LIMIT (see top). */
NNC_API nnc_status nnc_prv_r1cs_serialize(unsigned char *out, size_t *outlen, const nnc_prv_r1cs *r);
NNC_API nnc_status nnc_prv_r1cs_write_file(const char *path, const nnc_prv_r1cs *r, char *err, size_t errlen);
/* Frees the arrays and zeroes *r.  r may be all zero. */
NNC_API void nnc_prv_r1cs_clear(nnc_prv_r1cs *r);

/* Check that w[0..n) satisfies every constraint.
 * Returns: NNC_STATUS_OK; NNC_STATUS_INVALID naming the first violated
 * constraint, or when n != n_wires or w[0] != 1.
 * Out: *bad (may be NULL) the index of that constraint, or UINT32_MAX. */
NNC_API nnc_status nnc_prv_r1cs_check_witness(uint32_t *bad, const nnc_prv_r1cs *r, const nnc_prv_fr *w, size_t n,
                                              char *err, size_t errlen);

/* ---------------------------------------------------------------- vectors, .wtns */

/* A vector of Fr elements (a witness, or public inputs). */
typedef struct nnc_prv_fr_vec {
    size_t n;
    nnc_prv_fr *v;    /* n entries, malloc'd (NULL when n = 0) */
} nnc_prv_fr_vec;

NNC_API void nnc_prv_fr_vec_clear(nnc_prv_fr_vec *v);

/* .wtns version 2 (snarkjs wtns calculate, circom witness generators):
 * header (n8 = 32, prime r, nWitness u32), witness section (standard form).
 * Returns: as at the top (values >= r: NNC_STATUS_INVALID). */
NNC_API nnc_status nnc_prv_wtns_parse(nnc_prv_fr_vec *out, const unsigned char *in, size_t len, char *err,
                                      size_t errlen);
NNC_API nnc_status nnc_prv_wtns_read_file(nnc_prv_fr_vec *out, const char *path, char *err, size_t errlen);
/* Returns: NNC_STATUS_OK; NNC_STATUS_LIMIT (capacity, or more than 2^32-1 values). */
NNC_API nnc_status nnc_prv_wtns_serialize(unsigned char *out, size_t *outlen, const nnc_prv_fr_vec *w);
NNC_API nnc_status nnc_prv_wtns_write_file(const char *path, const nnc_prv_fr_vec *w, char *err, size_t errlen);

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
    int numeric_order;       /* write sections 1..10 in numeric order (snarkjs zkey
                              * contribute/beacon); else setup's order */
} nnc_prv_zkey;

/* Flags for nnc_prv_zkey_parse. */
/* Check every B2 point for membership in the order-r subgroup ([r]P = 0, about
 * 0.1 ms per point).  Without it, B2 points are checked to lie on the twist;
 * the six header points are always fully checked and G1 has cofactor 1. */
#define NNC_PRV_ZKEY_CHECK_SUBGROUP 1u
/* Leave the coefficient section unread (its size is still checked against
 * its declared count): n_coefs = 0, coefs = NULL.  For a prover given A w
 * and B w by the witness's builder, which then never pages the largest
 * section of a big model's key in. */
#define NNC_PRV_ZKEY_SKIP_COEFS 2u

/* Read a .zkey file image.  Every coordinate must be below q and every point
 * on its curve (infinity allowed); header points must be in the subgroup.
 * Returns: as at the top.  Out: *out (nnc_prv_zkey_clear). */
NNC_API nnc_status nnc_prv_zkey_parse(nnc_prv_zkey *out, const unsigned char *in, size_t len, unsigned flags, char *err,
                                      size_t errlen);
NNC_API nnc_status nnc_prv_zkey_read_file(nnc_prv_zkey *out, const char *path, unsigned flags, char *err,
                                          size_t errlen);
/* Sections in the order snarkjs groth16 setup writes them (1,2,4,3,9,8,5,6,7,10),
 * or 1..10 when z->numeric_order (zkey contribute and beacon); section 10
 * only when contributions != NULL.
 * Returns: NNC_STATUS_OK; NNC_STATUS_INVALID for inconsistent counts/indices. */
NNC_API nnc_status nnc_prv_zkey_serialize(unsigned char *out, size_t *outlen, const nnc_prv_zkey *z);
NNC_API nnc_status nnc_prv_zkey_write_file(const char *path, const nnc_prv_zkey *z, char *err, size_t errlen);
NNC_API void nnc_prv_zkey_clear(nnc_prv_zkey *z);

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
NNC_API nnc_status nnc_prv_g16_proof_parse_json(nnc_prv_g16_proof *out, const char *text, size_t len, char *err,
                                                size_t errlen);
NNC_API nnc_status nnc_prv_g16_proof_read_file(nnc_prv_g16_proof *out, const char *path, char *err, size_t errlen);
NNC_API nnc_status nnc_prv_g16_proof_serialize_json(char *out, size_t *outlen, const nnc_prv_g16_proof *p);
NNC_API nnc_status nnc_prv_g16_proof_write_file(const char *path, const nnc_prv_g16_proof *p, char *err, size_t errlen);

/* public.json: an array of decimal strings, each in [0, r) (a value >= r or
 * negative is refused with NNC_STATUS_INVALID, as snarkjs groth16 verify does). */
NNC_API nnc_status nnc_prv_public_parse_json(nnc_prv_fr_vec *out, const char *text, size_t len, char *err,
                                             size_t errlen);
NNC_API nnc_status nnc_prv_public_read_file(nnc_prv_fr_vec *out, const char *path, char *err, size_t errlen);
NNC_API nnc_status nnc_prv_public_serialize_json(char *out, size_t *outlen, const nnc_prv_fr_vec *pub);
NNC_API nnc_status nnc_prv_public_write_file(const char *path, const nnc_prv_fr_vec *pub, char *err, size_t errlen);

/* verification_key.json: protocol groth16, curve bn128, nPublic, vk_alpha_1,
 * vk_beta_2, vk_gamma_2, vk_delta_2, vk_alphabeta_12 (optional on input; when
 * present it must equal snarkjs's e(alpha1, beta2), else NNC_STATUS_INVALID),
 * IC (nPublic + 1 points).  Points are checked as for proofs. */
NNC_API nnc_status nnc_prv_g16_vk_parse_json(nnc_prv_g16_vk *out, const char *text, size_t len, char *err,
                                             size_t errlen);
NNC_API nnc_status nnc_prv_g16_vk_read_file(nnc_prv_g16_vk *out, const char *path, char *err, size_t errlen);
/* Writes vk_alphabeta_12 only when has_alphabeta (snarkjs groth16 verify does
 * not read it). */
NNC_API nnc_status nnc_prv_g16_vk_serialize_json(char *out, size_t *outlen, const nnc_prv_g16_vk *vk);
NNC_API nnc_status nnc_prv_g16_vk_write_file(const char *path, const nnc_prv_g16_vk *vk, char *err, size_t errlen);
/* The verification key of a proving key, vk_alphabeta_12 included: the same
 * bytes as snarkjs zkey export verificationkey once written.  Out: *out (nnc_prv_g16_vk_clear).
 * Returns: NNC_STATUS_OK or NNC_STATUS_NOMEM. */
NNC_API nnc_status nnc_prv_g16_vk_from_zkey(nnc_prv_g16_vk *out, const nnc_prv_zkey *z);
/* A Solidity contract Groth16Verifier whose verifyProof(pA, pB, pC,
 * pubSignals) checks proofs under vk with the EVM's BN254 precompiles; the
 * arguments are those `zkey export soliditycalldata` prints, as for
 * snarkjs's verifiers (prover/solidity.c).
 * Returns: NNC_STATUS_OK; IO when writing to f failed; INVALID without IC. */
NNC_API nnc_status nnc_prv_g16_vk_write_solidity(FILE *f, const nnc_prv_g16_vk *vk);
NNC_API void nnc_prv_g16_vk_clear(nnc_prv_g16_vk *vk);

/* ==== point compression (prover/compress.c; layouts in prover/compress_impl.h) ==== */

#define NNC_PRV_G1_COMPRESSED_BYTES 32
#define NNC_PRV_G2_COMPRESSED_BYTES 64

/* Flag bits, in byte 0 (snarkjs) or in the last byte (arkworks). */
#define NNC_PRV_COMPRESS_FLAG_GREATEST 0x80 /* y > -y */
#define NNC_PRV_COMPRESS_FLAG_INFINITY 0x40

typedef enum nnc_prv_compress_fmt {
    NNC_PRV_COMPRESS_SNARKJS = 0,  /* ffjavascript toRprCompressed: big-endian, flags in byte 0 */
    NNC_PRV_COMPRESS_ARKWORKS = 1  /* ark-serialize compressed: little-endian, flags in the last byte */
} nnc_prv_compress_fmt;

/* Out: out[32], the compressed encoding of p in format fmt (for a fmt that
 *      is neither value: 0xff bytes, which no decoder accepts).
 * In:  p on the curve or infinity (x = y = 0); other pairs are encoded
 *      from their x and y all the same. */
NNC_API void nnc_prv_g1_compress(unsigned char out[32], const nnc_prv_g1 *p, nnc_prv_compress_fmt fmt);
/* As nnc_prv_g1_compress, out[64]. */
NNC_API void nnc_prv_g2_compress(unsigned char out[64], const nnc_prv_g2 *p, nnc_prv_compress_fmt fmt);

/* Decode a compressed point (rules above).
 * Returns: NNC_STATUS_OK; NNC_STATUS_INVALID for an encoding that is not a
 *          point of the group; NNC_STATUS_ARG for an unknown fmt.
 * Out: *out (unchanged on failure); err/errlen as in nncert/nnc.h. */
NNC_API nnc_status nnc_prv_g1_decompress(nnc_prv_g1 *out, const unsigned char in[32], nnc_prv_compress_fmt fmt,
                                         char *err, size_t errlen);
NNC_API nnc_status nnc_prv_g2_decompress(nnc_prv_g2 *out, const unsigned char in[64], nnc_prv_compress_fmt fmt,
                                         char *err, size_t errlen);

/* ==== Groth16 (prover/groth16.c) ==== */

/* Single-party setup for development: random toxic waste (libsodium),
 * wiped before returning.  Production keys need a ceremony.
 * Out: *z (nnc_prv_zkey_clear). */
NNC_API nnc_status nnc_prv_g16_setup(nnc_prv_zkey *z, const nnc_prv_r1cs *cs, char *err, size_t errlen);
/* Returns: 1 when z's coefficient section is the one circuit cs's key holds
 * (the A then B terms of each constraint, then A[n_constraints + s][s] = 1
 * for every public wire s, as setup writes them), else 0. */
NNC_API int nnc_prv_g16_coefs_match(const nnc_prv_zkey *z, const nnc_prv_r1cs *cs);
/* As nnc_prv_g16_setup.  flags: NNC_PRV_G16_SETUP_NO_COEFS leaves out the
 * coefficient section (z->n_coefs = 0; one entry per A and B term, the
 * largest part of a key for big circuits): such a key can only prove with
 * the circuit at hand (nnc_prv_g16_prove_r1cs with cs) and cannot be
 * written to a .zkey file. */
#define NNC_PRV_G16_SETUP_NO_COEFS 1u
NNC_API nnc_status nnc_prv_g16_setup_flags(nnc_prv_zkey *z, const nnc_prv_r1cs *cs, unsigned flags, char *err,
                                           size_t errlen);

/* ==== The phase-2 ceremony, as snarkjs (prover/mpc.c) ====
 *
 * A powers-of-tau file (.ptau, snarkjs powersoftau ... prepare phase2) is
 * the trust anchor; groth16 setup makes a circuit's first key from it (no
 * secret: delta = 1, so the key is insecure until someone contributes);
 * each contribution multiplies delta by a secret k and the L and H
 * sections by 1/k and appends a record (public key and proof of knowledge
 * of k) to section 10; verify recomputes the first key from the circuit
 * and the .ptau and checks the chain of records and the final key.
 * Keys and records are byte-compatible with snarkjs 0.7.6 in both
 * directions (the beacon is deterministic and equals snarkjs's byte for
 * byte; a contribution mixes in OS randomness). */

/* A mapped .ptau file (version 1, bn128).  Only what phase 2 reads is
 * decoded, on demand. */
typedef struct nnc_prv_ptau {
    uint32_t power;            /* holds 2^power powers of tau */
    uint32_t ceremony_power;
    int prepared;              /* has the Lagrange sections 12..15 */
    const unsigned char *map;  /* the whole file */
    size_t len;
    int mapped;                /* map is nnc_prv_ptau_open's mapping */
    uint64_t off[16], size[16];/* sections 1..15 */
} nnc_prv_ptau;

/* Map the file at path (nnc_prv_ptau_clear unmaps it), or read the image
 * in[0..len), which must outlive *p.
 * Returns: NNC_STATUS_OK, or PARSE / UNSUPPORTED / IO as at the top (a
 * section whose size disagrees with the header's power is PARSE).  Points
 * are decoded, and checked on their curves, when used.
 * Out: *p (nnc_prv_ptau_clear). */
NNC_API nnc_status nnc_prv_ptau_open(nnc_prv_ptau *p, const char *path, char *err, size_t errlen);
NNC_API nnc_status nnc_prv_ptau_parse(nnc_prv_ptau *p, const unsigned char *in, size_t len, char *err, size_t errlen);
NNC_API void nnc_prv_ptau_clear(nnc_prv_ptau *p);

/* The first key of circuit cs from a prepared .ptau: byte for byte what
 * snarkjs groth16 setup writes (section 10 = the circuit hash and no
 * contributions).  Deterministic.  threads < 1: one per online CPU.
 * Returns: NNC_STATUS_OK; LIMIT when the circuit needs more rows than the
 * .ptau holds (the message names both) or a domain of 2^28; UNSUPPORTED for
 * an unprepared .ptau; INVALID for a point off its curve.
 * Out: *z (nnc_prv_zkey_clear). */
NNC_API nnc_status nnc_prv_g16_setup_ptau(nnc_prv_zkey *z, const nnc_prv_r1cs *cs, const nnc_prv_ptau *p, int threads,
                                          char *err, size_t errlen);

/* One record of section 10. */
typedef struct nnc_prv_mpc_contrib {
    nnc_prv_g1 delta_after, g1_s, g1_sx;
    nnc_prv_g2 g2_spx;
    unsigned char transcript[64];
    uint32_t type;                 /* 0 contribution, 1 beacon */
    char name[256];                /* "" when none */
    uint32_t num_iter_exp;         /* beacon */
    unsigned char beacon_hash[255];
    uint32_t beacon_len;
    unsigned char hash[64];        /* the contribution hash (BLAKE2b of its public key) */
    size_t raw_off, raw_len;       /* the record's bytes in section 10 */
} nnc_prv_mpc_contrib;

typedef struct nnc_prv_mpc {
    unsigned char cs_hash[64];     /* the circuit hash */
    uint32_t n;
    nnc_prv_mpc_contrib *c;        /* n records, oldest first */
} nnc_prv_mpc;

/* Parse section 10 of z (points checked on their curves and in G2's
 * subgroup).  Returns: OK; PARSE for a malformed section or none.
 * Out: *m (nnc_prv_mpc_clear). */
NNC_API nnc_status nnc_prv_mpc_parse(nnc_prv_mpc *m, const nnc_prv_zkey *z, char *err, size_t errlen);
NNC_API void nnc_prv_mpc_clear(nnc_prv_mpc *m);

/* Contribute to z in place: a secret k from OS randomness mixed with
 * entropy (may be NULL or ""), as snarkjs zkey contribute; name may be NULL.
 * Out: *z (delta times k, L and H times 1/k, one record more, sections to
 * be written in numeric order), hash[64] the contribution hash. */
NNC_API nnc_status nnc_prv_zkey_contribute(nnc_prv_zkey *z, const char *entropy, const char *name,
                                           unsigned char hash[64], int threads, char *err, size_t errlen);
/* As contribute with k derived from a public beacon: SHA-256 applied
 * 2^num_iter_exp times to beacon[0..len) (10 <= num_iter_exp <= 63,
 * 1 <= len <= 255), as snarkjs zkey beacon. */
NNC_API nnc_status nnc_prv_zkey_beacon(nnc_prv_zkey *z, const unsigned char *beacon, size_t len, uint32_t num_iter_exp,
                                       const char *name, unsigned char hash[64], int threads, char *err, size_t errlen);

/* Verify that z is circuit cs's key from p: the first key recomputed, the
 * chain of contributions, the final delta, and L and H by random linear
 * combinations (fresh 254-bit scalars; a wrong key passes with probability
 * about 2^-250).
 * Out: *ok 1 valid, 0 not (why: one line naming the failed check);
 *      *m the parsed contributions (valid only when *ok; nnc_prv_mpc_clear).
 * Returns: NNC_STATUS_OK whenever a verdict was reached; other statuses for
 *          unreadable input (err). */
NNC_API nnc_status nnc_prv_zkey_verify(int *ok, char *why, size_t whylen, nnc_prv_mpc *m, const nnc_prv_r1cs *cs,
                                       const nnc_prv_ptau *p, const nnc_prv_zkey *z, int threads, char *err,
                                       size_t errlen);

/* Helpers exposed for tests: ffjavascript's ChaCha stream seeded with the
 * 8 big-endian words of seed[32] (words out, in order); hashToG2. */
NNC_API void nnc_prv_mpc_chacha_words(uint32_t *out, size_t n, const unsigned char seed[32]);
NNC_API void nnc_prv_mpc_hash_to_g2(nnc_prv_g2 *out, const unsigned char hash[64]);

/* Prove with key z and full witness w (w[0] = 1).
 * Out: *proof; *pub the public signals w[1 .. n_public] (nnc_prv_fr_vec_clear).
 * threads < 1: one per online CPU. */
NNC_API nnc_status nnc_prv_g16_prove(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                     const nnc_prv_fr_vec *w, int threads, char *err, size_t errlen);
/* As nnc_prv_g16_prove, calling progress (when not NULL) from the calling
 * thread after each stage: its name and the estimated fraction of the work
 * done, nondecreasing in [0, 1]. */
NNC_API nnc_status nnc_prv_g16_prove_progress(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                              const nnc_prv_fr_vec *w, int threads,
                                              void (*progress)(void *ctx, const char *stage, double fraction),
                                              void *progress_ctx, char *err, size_t errlen);

/* As nnc_prv_g16_prove_progress; with cs not NULL, A w and B w come from
 * the circuit cs (which must be the one z was set up for: same wires,
 * public signals and room in the domain) instead of the key's coefficient
 * section, which may then be absent (NNC_PRV_G16_SETUP_NO_COEFS). */
NNC_API nnc_status nnc_prv_g16_prove_r1cs(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                          const nnc_prv_r1cs *cs, const nnc_prv_fr_vec *w, int threads,
                                          void (*progress)(void *ctx, const char *stage, double fraction),
                                          void *progress_ctx, char *err, size_t errlen);

/* Where a proof's MSMs and NTTs run, other than this CPU: functions with
 * the contracts of nnc_prv_g1_msm, nnc_prv_g2_msm, nnc_prv_ntt and
 * nnc_prv_coset_ntt (as nncert/gpu.h's nnc_gpu_g1_msm, nnc_gpu_g2_msm,
 * nnc_gpu_ntt and nnc_gpu_coset_ntt, which give the CPU's results bit for
 * bit), returning OK or a status with err set. */
typedef struct nnc_prv_backend {
    nnc_status (*g1_msm)(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n, char *err,
                         size_t errlen);
    nnc_status (*g2_msm)(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n, char *err,
                         size_t errlen);
    nnc_status (*ntt)(nnc_prv_fr *a, size_t n, int inverse, char *err, size_t errlen);
    nnc_status (*coset_ntt)(nnc_prv_fr *a, size_t n, int inverse, const nnc_prv_fr *shift, char *err, size_t errlen);
} nnc_prv_backend;

/* As nnc_prv_g16_prove_r1cs, with the MSMs (A, B in G2 and G1, C, H) and
 * the quotient's NTTs (each of A w, B w, C w: inverse NTT, then coset NTT)
 * on be; be NULL: the CPU.  A status from be ends the proof with it (err
 * from be). */
NNC_API nnc_status nnc_prv_g16_prove_on(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                        const nnc_prv_r1cs *cs, const nnc_prv_fr_vec *w, int threads,
                                        const nnc_prv_backend *be,
                                        void (*progress)(void *ctx, const char *stage, double fraction),
                                        void *progress_ctx, char *err, size_t errlen);

/* As nnc_prv_g16_prove_on, by the ranks of team (nncert/team.h; NULL: this
 * process alone), every rank calling it with the same key and witness: each
 * MSM is split into the ranks' contiguous index ranges and its partial sums
 * added, the quotient's three polynomials are transformed on ranks p % R and
 * exchanged, and rank 0 draws the blinding r, s and sends it to the others
 * (which hold the witness already).  Every rank ends with the same proof,
 * the one a single process gives for that r and s. */
NNC_API nnc_status nnc_prv_g16_prove_team(nnc_prv_g16_proof *proof, nnc_prv_fr_vec *pub, const nnc_prv_zkey *z,
                                          const nnc_prv_r1cs *cs, const nnc_prv_fr_vec *w, int threads,
                                          const nnc_prv_backend *be, const nnc_team *team,
                                          void (*progress)(void *ctx, const char *stage, double fraction),
                                          void *progress_ctx, char *err, size_t errlen);

/* Out: *valid = 1 when the proof verifies.  Returns INVALID (and *valid = 0)
 * for a wrong number of public inputs or points off the curve or subgroup. */
NNC_API nnc_status nnc_prv_g16_verify(int *valid, const nnc_prv_g16_vk *vk, const nnc_prv_fr_vec *pub,
                                      const nnc_prv_g16_proof *proof, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
