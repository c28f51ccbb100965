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

#include "common/nnc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a canonical field element encoding (Fq and Fr). */
#define NNC_PRV_FIELD_BYTES 32
/* Buffer size for a decimal field element: at most 77 digits plus NUL. */
#define NNC_PRV_DEC_BUFSIZE 80

/* Returns: NNC_PRV_FIELD_BYTES. */
size_t nnc_prv_field_bytes(void);
/* Returns: NNC_PRV_DEC_BUFSIZE. */
size_t nnc_prv_dec_bufsize(void);

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
 * Out: *out (unchanged on failure); err/errlen as in common/nnc.h.
 * In:  s, NUL-terminated; reduce: nonzero to accept any integer and reduce
 *      it mod r (circom's convention for negative inputs). */
nnc_status nnc_prv_fr_parse_dec(nnc_prv_fr *out, const char *s, int reduce,
                                char *err, size_t errlen);
/* As nnc_prv_fr_parse_dec, modulo p. */
nnc_status nnc_prv_fq_parse_dec(nnc_prv_fq *out, const char *s, int reduce,
                                char *err, size_t errlen);

/* Write the canonical value (0 <= a < modulus) in decimal, no sign, NUL-terminated.
 * Returns: NNC_STATUS_OK, or NNC_STATUS_LIMIT (out set to "" when outlen > 0)
 *          when outlen is below the length needed (at most NNC_PRV_DEC_BUFSIZE).
 * Out: out, outlen its size. */
nnc_status nnc_prv_fr_serialize_dec(char *out, size_t outlen, const nnc_prv_fr *a);
nnc_status nnc_prv_fq_serialize_dec(char *out, size_t outlen, const nnc_prv_fq *a);

/* Parse a 32-byte canonical encoding.
 * Returns: NNC_STATUS_OK, or NNC_STATUS_INVALID when the value is >= the
 *          modulus (then *out is unchanged).
 * In: in[32] in byte order e. */
nnc_status nnc_prv_fr_parse_b32(nnc_prv_fr *out, const unsigned char *in, nnc_prv_endian e);
nnc_status nnc_prv_fq_parse_b32(nnc_prv_fq *out, const unsigned char *in, nnc_prv_endian e);
/* Out: out[32], the canonical value in byte order e. */
void nnc_prv_fr_serialize_b32(unsigned char *out, const nnc_prv_fr *a, nnc_prv_endian e);
void nnc_prv_fq_serialize_b32(unsigned char *out, const nnc_prv_fq *a, nnc_prv_endian e);

/* ---- curves ---- */

/* Out: the snarkjs/EIP-197 generator. */
void nnc_prv_g1_generator(nnc_prv_g1 *out);
void nnc_prv_g2_generator(nnc_prv_g2 *out);

/* Returns: 1 if p is infinity or satisfies the curve equation, else 0. */
int nnc_prv_g1_is_on_curve(const nnc_prv_g1 *p);
int nnc_prv_g2_is_on_curve(const nnc_prv_g2 *p);
/* Returns: 1 if p is in the order-r group (G1: on the curve, the cofactor
 *          is 1; G2: on the twist and [r]p = infinity), else 0.  Use this on
 *          every point read from a file. Variable time (points are public). */
int nnc_prv_g1_is_valid(const nnc_prv_g1 *p);
int nnc_prv_g2_is_valid(const nnc_prv_g2 *p);

/* Out: *out = a + b.  In: a, b on the curve (infinity allowed); out may alias. */
void nnc_prv_g1_add(nnc_prv_g1 *out, const nnc_prv_g1 *a, const nnc_prv_g1 *b);
void nnc_prv_g2_add(nnc_prv_g2 *out, const nnc_prv_g2 *a, const nnc_prv_g2 *b);
/* Out: *out = -a. */
void nnc_prv_g1_neg(nnc_prv_g1 *out, const nnc_prv_g1 *a);
void nnc_prv_g2_neg(nnc_prv_g2 *out, const nnc_prv_g2 *a);

/* Out: *out = [k]p.  In: p on the curve; k any Fr element.
 * The plain form runs in time independent of k (fixed 4-bit windows,
 * table scans and selects by mask); _var branches on k (wNAF, faster). */
void nnc_prv_g1_mul(nnc_prv_g1 *out, const nnc_prv_g1 *p, const nnc_prv_fr *k);
void nnc_prv_g1_mul_var(nnc_prv_g1 *out, const nnc_prv_g1 *p, const nnc_prv_fr *k);
void nnc_prv_g2_mul(nnc_prv_g2 *out, const nnc_prv_g2 *p, const nnc_prv_fr *k);
void nnc_prv_g2_mul_var(nnc_prv_g2 *out, const nnc_prv_g2 *p, const nnc_prv_fr *k);

/* Returns: 1 if a and b are the same point. */
int nnc_prv_g1_eq(const nnc_prv_g1 *a, const nnc_prv_g1 *b);
int nnc_prv_g2_eq(const nnc_prv_g2 *a, const nnc_prv_g2 *b);

/* Parse affine coordinates in decimal (snarkjs JSON: G1 ["x","y","1"],
 * G2 [["x0","x1"],["y0","y1"],["1","0"]] with x = x0 + x1*u); "0","0"
 * (and 0 for every G2 component) is infinity.
 * Returns: NNC_STATUS_OK, NNC_STATUS_PARSE for a bad number,
 *          NNC_STATUS_INVALID for a coordinate >= p or a point not on the
 *          curve (G2: or not in the order-r subgroup).
 * Out: *out (unchanged on failure). */
nnc_status nnc_prv_g1_parse_dec(nnc_prv_g1 *out, const char *x, const char *y,
                                char *err, size_t errlen);
nnc_status nnc_prv_g2_parse_dec(nnc_prv_g2 *out, const char *x0, const char *x1,
                                const char *y0, const char *y1, char *err, size_t errlen);

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
void nnc_prv_g1_msm(nnc_prv_g1 *out, const nnc_prv_g1 *points, const nnc_prv_fr *scalars, size_t n,
                    int threads);
void nnc_prv_g2_msm(nnc_prv_g2 *out, const nnc_prv_g2 *points, const nnc_prv_fr *scalars, size_t n,
                    int threads);

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
nnc_status nnc_prv_ntt(nnc_prv_fr *a, size_t n, int inverse, int threads);

/* Coset NTT: coefficients -> values a(g w_n^i), i < n.
 * In: shift = &g, any nonzero element, or NULL for g = w_(2n) (the
 *     snarkjs/rapidsnark Groth16 coset, see the top of prover/ntt_impl.h).
 * Returns: as nnc_prv_ntt; also NNC_STATUS_LIMIT for n > 2^27 with
 *          shift = NULL, NNC_STATUS_INVALID for a zero shift. */
nnc_status nnc_prv_coset_ntt(nnc_prv_fr *a, size_t n, const nnc_prv_fr *shift, int threads);
/* Inverse of nnc_prv_coset_ntt with the same shift: values at g w_n^i ->
 * coefficients. */
nnc_status nnc_prv_coset_intt(nnc_prv_fr *a, size_t n, const nnc_prv_fr *shift, int threads);

/* Out: *out, the principal n-th root of unity w_n used by the transforms.
 * Returns: NNC_STATUS_OK, NNC_STATUS_INVALID (n not a power of two) or
 *          NNC_STATUS_LIMIT (n > 2^28). */
nnc_status nnc_prv_ntt_root(nnc_prv_fr *out, size_t n);

/* ---- pairing (prover/pairing.c) ---- */

/* Returns: 1 iff prod_i e(p[i], q[i]) = 1 (optimal ate pairing, one final
 * exponentiation); points at infinity contribute 1.  Inputs must be valid
 * points (nnc_prv_g1_is_valid / nnc_prv_g2_is_valid). */
int nnc_prv_pairing_check(const nnc_prv_g1 *p, const nnc_prv_g2 *q, size_t n);

#ifdef __cplusplus
}
#endif
#endif
