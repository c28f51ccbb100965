/* nncert zk: the NN-to-circuit compiler.
 *
 * A circuit builder (nnc_prv_cb) holds wires with their witness values and
 * rank-1 constraints over linear combinations (nnc_prv_lc); gadgets add the
 * constraints of one operation and compute its witness at the same time, so
 * a built circuit always comes with the witness of the sample it was built
 * for.  nnc_prv_zk_compile turns a quantised model (zk/quant.h) into a
 * circuit whose public signals are
 *     [ output[0..n_out) , model_commitment , input_commitment ]
 * (circom order: public outputs first, then public inputs), written as
 * circom .r1cs / snarkjs .wtns files.
 *
 * Privacy types (ZENO): a tensor is public (its values are constants of the
 * circuit) or private (witness wires).  A product with a public constant is
 * folded into a linear combination and costs no constraint; only
 * private-by-private products and range checks cost constraints.  A private
 * tensor is committed inside the circuit: its values are range-checked,
 * knit-packed floor(NNC_PRV_ZK_PACK_BITS / bits) to a field element (the range
 * checks make the packing injective) and hashed with Poseidon (circomlib's
 * parameters); a public tensor's commitment is computed natively and
 * constrained to equal the public input.  Both commitments use the same
 * function, nnc_prv_zk_commit.
 *
 * Signed integers v are encoded as field elements v mod r.
 *
 * Thread safety: a builder is used by one thread at a time. */
#ifndef NNC_ZK_CIRCUIT_H
#define NNC_ZK_CIRCUIT_H

#include "zk/quant.h"
#include "nncert/prover.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of a field element used by knit packing (r > 2^253). */
#define NNC_PRV_ZK_PACK_BITS 248
/* Packed elements absorbed per Poseidon call (t = 17: chaining value + 15 + length slot). */
#define NNC_PRV_ZK_RATE 15

/* ---------------------------------------------------------------- builder */

/* Wire classes, in circom's wire order. */
typedef enum nnc_prv_wire_class {
    NNC_PRV_WIRE_PUB_OUT = 0, NNC_PRV_WIRE_PUB_IN = 1, NNC_PRV_WIRE_PRV_IN = 2, NNC_PRV_WIRE_INTERNAL = 3
} nnc_prv_wire_class;

/* A linear combination sum coef_i * w[wire_i]; wire 0 is the constant 1.
 * Wires are builder ids (renumbered into circom order by nnc_prv_cb_finish).
 * Terms may repeat a wire until nnc_prv_lc_compact merges them. */
typedef struct nnc_prv_lc {
    uint32_t n, cap;
    nnc_prv_r1cs_term *t;
} nnc_prv_lc;

typedef struct nnc_prv_cb nnc_prv_cb;

/* Per-section statistics (one section per layer). */
typedef struct nnc_prv_cb_section {
    char name[64];
    uint64_t constraints, wires;
} nnc_prv_cb_section;

nnc_status nnc_prv_cb_create(nnc_prv_cb **out);
void nnc_prv_cb_destroy(nnc_prv_cb *cb);
/* Sticky error: the first failure of any builder call (out of memory, a
 * witness value outside a gadget's range); NNC_STATUS_OK while none. */
nnc_status nnc_prv_cb_status(const nnc_prv_cb *cb, char *err, size_t errlen);
/* Set the sticky error (the first one wins). */
void nnc_prv_cb_fail(nnc_prv_cb *cb, nnc_status st, const char *msg);
/* A witness value outside what a gadget accepts: the sticky error
 * NNC_STATUS_INVALID, except in count-only mode, where wires hold no values. */
void nnc_prv_cb_fail_value(nnc_prv_cb *cb, const char *what);
/* Start counting constraints and wires under a new name. */
void nnc_prv_cb_begin(nnc_prv_cb *cb, const char *name);
const nnc_prv_cb_section *nnc_prv_cb_sections(const nnc_prv_cb *cb, int *n);
uint64_t nnc_prv_cb_n_constraints(const nnc_prv_cb *cb);
/* Nonzero terms over all constraints (before merging). */
uint64_t nnc_prv_cb_n_terms(const nnc_prv_cb *cb);
/* Bytes of R1CS terms a builder may hold (checked at every constraint; the
 * first constraint over the limit sets NNC_STATUS_LIMIT): half of
 * nnc_machine_memory_bytes(), since nnc_prv_cb_finish holds the terms twice
 * and a proving key holds another copy of the A and B terms.  Count-only
 * builders store no terms and have no limit. */
uint64_t nnc_prv_cb_max_term_bytes(void);
/* on = 1 (before any wire but the constant 1 and any constraint; later, it
 * sets the sticky error): only count wires, constraints and terms (for
 * models too large to hold; 4 bytes per wire).  Wires then hold no values:
 * every wire but the constant 1 reads as 0, which leaves the counts as they
 * are since the circuit never depends on witness values.
 * nnc_prv_cb_finish then refuses. */
void nnc_prv_cb_set_count_only(nnc_prv_cb *cb, int on);
uint32_t nnc_prv_cb_n_wires(const nnc_prv_cb *cb);   /* including wire 0 */
/* on = 1 (before any wire but the constant 1 and any constraint, and not in
 * count-only mode; else it sets the sticky error): build the witness only,
 * for a circuit whose constraints are known (a proving key holds them).
 * Wires hold their values as usual; a constraint keeps only the values of
 * its A and B combinations on the witness (what a prover needs: C w is
 * their product when the witness satisfies it), so long combinations need
 * not be formed at all (nnc_prv_cb_constrain_values).  The wires and
 * constraints are those of the full build, in the same order; terms are not
 * counted.  nnc_prv_cb_finish then refuses; nnc_prv_cb_finish_witness
 * gives the witness. */
void nnc_prv_cb_set_witness_only(nnc_prv_cb *cb, int on);
int nnc_prv_cb_witness_only(const nnc_prv_cb *cb);
/* Witness-only mode: a constraint given by the values of its A and B
 * combinations (the C combination's value is their product on a satisfying
 * witness).  Outside it: the sticky error. */
void nnc_prv_cb_constrain_values(nnc_prv_cb *cb, const nnc_prv_fr *a, const nnc_prv_fr *b);
/* Witness-only mode: the stored A w of constraint i (to fill in a value
 * computed later, with the wire's own through nnc_prv_cb_value), or NULL
 * outside the mode or past the last constraint. */
nnc_prv_fr *nnc_prv_cb_constraint_a(nnc_prv_cb *cb, uint64_t i);

/* A new wire of class cls holding value v.  Returns its id (0 on failure,
 * with the sticky error set). */
uint32_t nnc_prv_cb_wire(nnc_prv_cb *cb, nnc_prv_wire_class cls, const nnc_prv_fr *v);
/* The witness value of wire id (tests tamper with it through this pointer). */
nnc_prv_fr *nnc_prv_cb_value(nnc_prv_cb *cb, uint32_t id);
/* Add the constraint <a> * <b> = <c> (copies the terms). */
void nnc_prv_cb_constrain(nnc_prv_cb *cb, const nnc_prv_lc *a, const nnc_prv_lc *b, const nnc_prv_lc *c);

/* Out: *r (nnc_prv_r1cs_clear) and *w (nnc_prv_fr_vec_clear, may be NULL):
 * wires in circom order, each linear combination sorted by wire and merged.
 * *map (may be NULL; free()) receives the final index of every builder id. */
nnc_status nnc_prv_cb_finish(nnc_prv_cb *cb, nnc_prv_r1cs *r, nnc_prv_fr_vec *w, uint32_t **map,
                             char *err, size_t errlen);
/* The same, renumbering the builder's terms in place and handing them to *r
 * (no second copy: for large circuits); the builder can then only be
 * destroyed (every later call fails). */
nnc_status nnc_prv_cb_finish_move(nnc_prv_cb *cb, nnc_prv_r1cs *r, nnc_prv_fr_vec *w, uint32_t **map,
                                  char *err, size_t errlen);

/* The witness of a witness-only build, in circom's wire order, and the
 * values A w, B w of every constraint (ab[2 i], ab[2 i + 1]; the prover's
 * quotient needs nothing else of the circuit). */
typedef struct nnc_prv_cb_witness {
    nnc_prv_fr_vec w;
    nnc_prv_fr *ab;
    uint32_t n_constraints, n_pub_out, n_pub_in, n_prv_in;
} nnc_prv_cb_witness;
/* Out: *out (nnc_prv_cb_witness_clear, which wipes the constraint values).
 * The builder keeps its wires (nnc_prv_cb_value) but every later call that
 * adds to it or finishes it fails. */
nnc_status nnc_prv_cb_finish_witness(nnc_prv_cb *cb, nnc_prv_cb_witness *out, char *err, size_t errlen);
void nnc_prv_cb_witness_clear(nnc_prv_cb_witness *x);

/* ---- linear combinations (values are evaluated on the builder's witness) ---- */
void nnc_prv_lc_clear(nnc_prv_lc *lc);               /* frees; *lc = empty */
void nnc_prv_lc_reset(nnc_prv_lc *lc);               /* n = 0, keeps memory */
/* Room for n terms in all, allocated to exactly that when it must grow. */
void nnc_prv_lc_reserve(nnc_prv_cb *cb, nnc_prv_lc *lc, uint32_t n);
void nnc_prv_lc_term(nnc_prv_cb *cb, nnc_prv_lc *lc, uint32_t wire, const nnc_prv_fr *coef);
void nnc_prv_lc_term_i(nnc_prv_cb *cb, nnc_prv_lc *lc, uint32_t wire, int64_t coef);
void nnc_prv_lc_add(nnc_prv_cb *cb, nnc_prv_lc *dst, const nnc_prv_lc *src, const nnc_prv_fr *k); /* dst += k src */
void nnc_prv_lc_add_i(nnc_prv_cb *cb, nnc_prv_lc *dst, const nnc_prv_lc *src, int64_t k);
void nnc_prv_lc_copy(nnc_prv_cb *cb, nnc_prv_lc *dst, const nnc_prv_lc *src);
void nnc_prv_lc_compact(nnc_prv_cb *cb, nnc_prv_lc *lc); /* merge equal wires, drop zeros */
void nnc_prv_lc_eval(const nnc_prv_cb *cb, nnc_prv_fr *out, const nnc_prv_lc *lc);
/* 1 when lc uses no wire but 0 (a public constant). */
int nnc_prv_lc_is_const(const nnc_prv_lc *lc);

/* Field <-> signed integers.  Returns 0, or -1 when |v| >= 2^62. */
void nnc_prv_fr_from_i64(nnc_prv_fr *out, int64_t v);
int nnc_prv_fr_to_i64(int64_t *out, const nnc_prv_fr *a);

/* ---------------------------------------------------------------- gadgets
 * Each documents its constraint cost; x, a, b are linear combinations. */

/* Unsigned range check: x = sum bits[i] 2^i, bits boolean.  n + 1 constraints.
 * Out: bits[n] wire ids (may be NULL). */
void nnc_prv_g_bits(nnc_prv_cb *cb, const nnc_prv_lc *x, int n, uint32_t *bits);
/* A new private signed value v in [-2^(n-1), 2^(n-1)) carried by n boolean
 * wires of class cls and no wire of its own: *x = sum 2^i b_i - 2^(n-1).
 * n constraints (a range check that costs no linear constraint); 1 <= n <= 62.
 * Returns: b_0's id; the n bits are the consecutive wires from it (valid
 * while the sticky error is unset). */
uint32_t nnc_prv_g_signed_bits(nnc_prv_cb *cb, nnc_prv_lc *x, int64_t v, int n, nnc_prv_wire_class cls);
/* The combination nnc_prv_g_signed_bits returned for the bits at wires
 * bit0 .. bit0 + n - 1, term for term (so a caller can keep 4 bytes per
 * value and rebuild it where used); allocated to its exact size. */
void nnc_prv_lc_signed_bits(nnc_prv_cb *cb, nnc_prv_lc *x, uint32_t bit0, int n);
/* Signed range check x in [-2^(n-1), 2^(n-1)).  n + 1 constraints.
 * Returns: the wire of the "x >= 0" bit. */
uint32_t nnc_prv_g_range_signed(nnc_prv_cb *cb, const nnc_prv_lc *x, int n);
/* *out = a * b: free (a scaled copy) when either is a public constant,
 * else one constraint and one product wire. */
void nnc_prv_g_mul(nnc_prv_cb *cb, nnc_prv_lc *out, const nnc_prv_lc *a, const nnc_prv_lc *b);
/* Requantisation y = floor((acc + 2^(s-1)) / 2^s) (s = 0: y = acc), y in
 * signed rbits: acc + 2^(s-1) = y 2^s + rem, 0 <= rem < 2^s, both by bits.
 * s + rbits + 1 constraints.  Out: *y (a combination of y's bits);
 * *nonneg (may be NULL) the wire of "y >= 0". */
void nnc_prv_g_requant(nnc_prv_cb *cb, nnc_prv_lc *y, uint32_t *nonneg, const nnc_prv_lc *acc, int s, int rbits);
/* The same requantisation for an accumulator the caller constrains itself
 * (e.g. inside a knit-packed sum): given its value a, allocates the
 * remainder's s bits and y's rbits bits (the wire order of
 * nnc_prv_g_requant) and returns *acc = y 2^s + rem - 2^(s-1) (s = 0: y), a
 * combination that lies in [-2^(rbits-1+s) - 2^(s-1), 2^(rbits-1+s) - 2^(s-1))
 * for every witness.  s + rbits constraints. */
void nnc_prv_g_requant_open(nnc_prv_cb *cb, nnc_prv_lc *y, uint32_t *nonneg, nnc_prv_lc *acc, int64_t a, int s, int rbits);
/* Witness-only mode (else the sticky error): nnc_prv_g_requant of an
 * accumulator given by its value a instead of its combination: the same
 * wires and constraints, the accumulator's long combination never formed. */
void nnc_prv_g_requant_value(nnc_prv_cb *cb, nnc_prv_lc *y, uint32_t *nonneg, int64_t a, int s, int rbits);
/* Division by a public constant d >= 1 with rounding: y = floor((x + floor(d/2)) / d),
 * remainder range-checked below d; y in signed rbits. */
void nnc_prv_g_divround(nnc_prv_cb *cb, nnc_prv_lc *y, const nnc_prv_lc *x, int64_t d, int rbits);
/* ReLU y = max(x, 0) given the wire of "x >= 0" (from a range check):
 * one constraint.  nonneg = 0: range-checks x in signed rbits first. */
void nnc_prv_g_relu(nnc_prv_cb *cb, nnc_prv_lc *y, const nnc_prv_lc *x, uint32_t nonneg, int rbits);
/* y = max(x[0..k)), all in signed rbits: k range checks of y - x[i] and
 * k - 1 products proving one difference is 0.  Out: *y a new wire. */
void nnc_prv_g_max(nnc_prv_cb *cb, nnc_prv_lc *y, const nnc_prv_lc *x, int k, int rbits);
/* One-hot lookup: y[d] = table[idx][d], idx in [0, V).  V + 2 constraints.
 * Out: y[D]. */
void nnc_prv_g_gather(nnc_prv_cb *cb, nnc_prv_lc *y, const nnc_prv_lc *idx, const int64_t *table, int64_t V, int64_t D);
/* y = a wire equal to x (one constraint), of class cls. */
uint32_t nnc_prv_g_wire_of(nnc_prv_cb *cb, const nnc_prv_lc *x, nnc_prv_wire_class cls);
/* Poseidon permutation on state[t] (circomlib's parameters for width t):
 * x^5 S-boxes cost 3 constraints each; round constants and MDS fold into
 * the combinations.  Returns: 0, or -1 for t outside 2..17. */
int nnc_prv_g_poseidon(nnc_prv_cb *cb, nnc_prv_lc *state, int t);

/* ---------------------------------------------------------------- knit packing
 *
 * ZENO's knit encoding of products: k dot products of one shared input
 * vector x[0..K) with k weight rows, z_i = add_i + sum_j w_ij x_j, cost K
 * product constraints and one linear constraint instead of k K products:
 *     P_j = (sum_i w_ij B^i) * x_j                 (j < K; free when x_j is constant)
 *     sum_j P_j + sum_i B^i add_i - sum_i B^i z_i = 0,        B = 2^n.
 * The second line holds mod r; it pins every z_i when the caller guarantees,
 * for every witness the rest of the circuit accepts, |d_i| < B with
 * d_i = add_i + sum_j w_ij x_j - z_i over the integers (the values of
 * range-checked wires), and k n <= NNC_PRV_KNIT_FIELD_BITS: then
 * |sum_i d_i B^i| <= B^k - 1 < r, so the sum is 0 over the integers, and
 * base-B digits of size below B are all 0.  No offsets are needed: the
 * digits are signed differences, bounded in absolute value. */

/* r > 2^253: packed sums of magnitude below 2^253 do not wrap. */
#define NNC_PRV_KNIT_FIELD_BITS 253

/* The smallest n with 2^n > dmax (dmax: a bound on every |d_i|); 64 when
 * dmax >= 2^63. */
int nnc_prv_knit_base_bits(uint64_t dmax);
/* Products packed per constraint for base 2^n: floor(253 / n). */
int nnc_prv_knit_slots(int n);
/* The packed constraints above.  Row i of the weights is
 * w[wi[j] + i wstride] (j < K), the input x[xi[j]]; add (may be NULL) and z
 * hold k combinations each.  Requires 1 <= k <= nnc_prv_knit_slots(n).
 * Cost: one constraint per j with a non-constant x[xi[j]] (and a
 * non-constant weight row), plus one. */
void nnc_prv_g_knit_dot(nnc_prv_cb *cb, const nnc_prv_lc *z, const nnc_prv_lc *add, int k, int n, const nnc_prv_lc *w,
                        const int64_t *wi, int64_t wstride, const nnc_prv_lc *x, const int64_t *xi, int64_t K);

/* Witness-only mode (else the sticky error): nnc_prv_g_knit_dot with the
 * weights given by their integer values wv (indexed as w; the weights are
 * private wires, so no packed row is a constant): the same wires and
 * constraints, the packed rows never formed as combinations. */
void nnc_prv_g_knit_dot_values(nnc_prv_cb *cb, const nnc_prv_lc *z, const nnc_prv_lc *add, int k, int n, const int64_t *wv,
                               const int64_t *wi, int64_t wstride, const nnc_prv_lc *x, const int64_t *xi, int64_t K);

/* ---------------------------------------------------------------- commitments */

/* A tensor to commit: values v[n], each in signed `bits` bits. */
typedef struct nnc_prv_zk_segment {
    const int64_t *v;      /* native values (NULL in the circuit form) */
    const nnc_prv_lc *lc;  /* circuit values (NULL in the native form) */
    int64_t n;
    int bits;
    int ranged;            /* circuit form: 1 when every lc is already a signed `bits`-bit
                            * decomposition (nnc_prv_g_signed_bits): not range-checked again */
    const uint32_t *bit0;  /* circuit form, in place of lc (which is then NULL): value i is the
                            * signed `bits`-bit decomposition at wires bit0[i] .. bit0[i] + bits - 1
                            * (nnc_prv_lc_signed_bits), so not range-checked again */
} nnc_prv_zk_segment;

/* Native commitment: elements e = knit-packed segments (slot = v + 2^(bits-1),
 * floor(248/bits) slots per element, a new element at each segment start),
 * then h = Poseidon([len, e0..e14]), h = Poseidon([h, e15..e29]), ...
 * (zero-padded), len = the number of packed elements.
 * Returns: NNC_STATUS_INVALID when a value is out of its range. */
nnc_status nnc_prv_zk_commit(nnc_prv_fr *out, const nnc_prv_zk_segment *seg, int n_seg, char *err, size_t errlen);
/* The same inside the circuit: range-checks every value (of segments not
 * `ranged`), packs, hashes.  The packed elements are built as the hash
 * absorbs them (at most NNC_PRV_ZK_RATE at a time), so a commitment to many
 * values holds little beyond its segments.
 * Out: *out a combination equal to the commitment. */
void nnc_prv_g_commit(nnc_prv_cb *cb, nnc_prv_lc *out, const nnc_prv_zk_segment *seg, int n_seg);

/* ---------------------------------------------------------------- models */

typedef enum nnc_prv_zk_privacy {
    NNC_PRV_ZK_PRIVATE_INPUT = 1,    /* weights public (in the circuit), input private */
    NNC_PRV_ZK_PRIVATE_WEIGHTS = 2,  /* input public (in the circuit), weights private: the
                                      * weights and biases of Gemm/MatMul/Conv; Add constants,
                                      * graph adjacency and embedding tables stay public */
    NNC_PRV_ZK_PRIVATE_BOTH = 3,
    NNC_PRV_ZK_UNPACKED = 4          /* flag, for ablations: no knit packing (one constraint
                                      * per private-by-private product) */
} nnc_prv_zk_privacy;

/* What nnc_prv_zk_compile builds. */
typedef enum nnc_prv_zk_build {
    NNC_PRV_ZK_BUILD_FULL = 0,   /* constraints and witness */
    NNC_PRV_ZK_BUILD_COUNT = 1,  /* counts only (nnc_prv_cb_set_count_only) */
    NNC_PRV_ZK_BUILD_WITNESS = 2 /* the witness and each constraint's A w and B w
                                  * (nnc_prv_cb_set_witness_only): dense and
                                  * convolutional sums with public weights are
                                  * computed in integers, not as combinations */
} nnc_prv_zk_build;

/* Build the circuit of q for the quantised input qin (one array per model
 * input; the witness is that sample's; NULL: all zero), as mode says.
 * priv may carry NNC_PRV_ZK_UNPACKED.
 * Out: *cb (nnc_prv_cb_destroy); out_vals (may be NULL) the proven integer
 *      outputs, numel of the output tensor.
 * Returns: NNC_STATUS_OK, or the builder's error (e.g. a value outside the
 *      range its layer checks). */
nnc_status nnc_prv_zk_compile(nnc_prv_cb **cb, const nnc_qmodel *q, nnc_prv_zk_privacy priv,
                              nnc_prv_zk_build mode, const int64_t *const *qin, int64_t *out_vals, char *err,
                              size_t errlen);
/* The model commitment (public input n_out) for q: weights, biases and the
 * layer parameters, committed as nnc_prv_zk_commit does. */
nnc_status nnc_prv_zk_model_commitment(nnc_prv_fr *out, const nnc_qmodel *q, char *err, size_t errlen);
/* The input commitment (public input n_out + 1). */
nnc_status nnc_prv_zk_input_commitment(nnc_prv_fr *out, const nnc_qmodel *q, const int64_t *const *qin,
                                       char *err, size_t errlen);
/* Whether the public signals pub of a proof of inference (the outputs, then
 * the model and input commitments) are those of the model in model_path,
 * quantised with `bits` (calibrated on the inputs in calib_path, or NULL),
 * and, with input_path (one sample), of that input: the check after the
 * proof verifies (`nncert check --model --input`, the gate).
 * Out: *bound 1 when they are; else 0 and why, a sentence.
 * Returns OK whatever *bound; the loader's and the quantiser's codes. */
nnc_status nnc_prv_zk_check_binding(const nnc_prv_fr_vec *pub, const char *model_path, int bits, const char *calib_path,
                                    const char *input_path, int *bound, char *why, size_t whylen, char *err,
                                    size_t errlen);

/* As nnc_prv_zk_check_binding, and that z is the key of the circuit the
 * model compiles to with privacy priv (and, with private weights, the
 * input: a circuit constant then, so input_path is required), set up from
 * the powers of tau file ptau_path and through at least one contribution
 * (nnc_prv_zkey_verify): what ties a proof to a model, since anyone can make
 * a key for another circuit with the same public signals.
 * Out: *bound, why as there; *n_contrib the key's contributions.
 * Returns OK whatever *bound; ARG for private weights without the input;
 * the loaders' codes. */
nnc_status nnc_prv_zk_check_model(const nnc_prv_fr_vec *pub, const nnc_prv_zkey *z, const char *ptau_path,
                                  const char *model_path, int bits, const char *calib_path, const char *input_path,
                                  int priv, int *bound, uint32_t *n_contrib, char *why, size_t whylen, char *err,
                                  size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
