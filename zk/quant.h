/* nncert quantisation: a prepared float model -> a fixed-point integer
 * program (nnc_qmodel) whose exact integer semantics the zk circuit
 * compiler (zk/circuit.h) reproduces constraint by constraint.
 *
 * Representation: every tensor t has a power-of-two scale 2^frac[t]; a real
 * value x is stored as the integer q = round(x * 2^frac).  Scales are chosen
 * per tensor from calibration data so that the calibration maximum fits in
 * `bits` signed bits; every activation that the circuit range-checks must lie
 * in [-2^(rbits-1), 2^(rbits-1)), rbits = bits + NNC_Q_HEADROOM_BITS.
 *
 * Layer semantics (integers, batch of one sample, all arithmetic exact):
 *   DENSE   acc[m][n] = sum_k x[m][k] w[n][k] + b[n]    (w: [N][K], b at frac fx+fw)
 *   CONV    acc = the usual NCHW cross-correlation + b  (batch 1, groups)
 *   SPMM    acc[r][f] = sum_c A[r][c] x[c][f]            (A: public CSR adjacency)
 *   then    y = floor((acc + 2^(shift-1)) / 2^shift)     (shift > 0; shift 0: y = acc)
 *           and y must lie in the rbits range.
 *   RELU    y = max(x, 0)
 *   MAXPOOL y = max over the window (padding ignored)
 *   AVGPOOL y = floor((sum + floor(d/2)) / d), d the window count
 *   ADD     y = a * 2^(fy-fa) + b * 2^(fy-fb), fy = max(fa, fb) (b may be a constant)
 *   GATHER  y[i][:] = table[idx[i]][:]                   (idx: integer input, frac 0)
 *   RESHAPE y = x (wiring only: Flatten, Reshape, Identity, Dropout, Squeeze...)
 *
 * Thread safety: a built nnc_qmodel is read-only. */
#ifndef NNC_QUANT_H
#define NNC_QUANT_H

#include "nncert/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Extra signed bits allowed above the calibration maximum. */
#define NNC_Q_HEADROOM_BITS 2
/* Accepted --bits range. */
#define NNC_Q_MIN_BITS 4
#define NNC_Q_MAX_BITS 24

typedef enum nnc_q_kind {
    NNC_Q_DENSE = 0, NNC_Q_CONV, NNC_Q_SPMM, NNC_Q_RELU, NNC_Q_MAXPOOL, NNC_Q_AVGPOOL,
    NNC_Q_ADD, NNC_Q_GATHER, NNC_Q_RESHAPE
} nnc_q_kind;

/* One tensor of the integer program (per sample). */
typedef struct nnc_q_tensor {
    int rank;
    int64_t dims[NNC_MAX_RANK];
    int64_t numel;
    int frac;          /* scale 2^frac */
    int rbits;         /* values lie in [-2^(rbits-1), 2^(rbits-1)); 0: not checked here */
    int is_input;      /* a graph input (index into nnc_qmodel.inputs order) */
    int is_int;        /* integer graph input (Gather indices), frac 0 */
    int64_t int_range; /* is_int: indices lie in [0, int_range) */
} nnc_q_tensor;

typedef struct nnc_q_layer {
    nnc_q_kind kind;
    const char *op;        /* ONNX operator name (static) */
    char *name;            /* node name */
    int in, in2, out;      /* tensor indices; in2 = -1 when unused */
    /* DENSE: M rows, N outputs, K inner.  SPMM: M = rows of A, N = features, K = cols of A. */
    int64_t M, N, K;
    int64_t *w;            /* DENSE [N][K], CONV [O][C/g][kh][kw], GATHER table [V][D], ADD constant (numel of out) */
    int64_t nw;
    int64_t *b;            /* bias at frac fin+fw, or NULL */
    int wfrac;             /* weight scale */
    int wbits;             /* weights fit in wbits signed bits */
    int shift;             /* requantisation shift (>= 0) */
    /* CONV/POOL window: C in channels, H, W in, OC, OH, OW out */
    int64_t C, H, W, OC, OH, OW, kh, kw, sh, sw, ph, pw, group, dh, dw;
    int count_include_pad;
    /* SPMM adjacency (CSR, values at wfrac). */
    int64_t *row_ptr, *col;
    /* ADD: shifts applied to each operand (left shifts, >= 0). */
    int lsh_a, lsh_b;
    /* GATHER: V rows, D columns. */
    int64_t V, D;
} nnc_q_layer;

typedef struct nnc_qmodel {
    int bits;
    nnc_q_tensor *t;
    int n_t;
    nnc_q_layer *l;
    int n_l;
    int *inputs, n_inputs;     /* tensor indices of the graph inputs, model order */
    int output;                /* tensor index of the single output */
    uint8_t model_sha256[32];
} nnc_qmodel;

/* Quantise a prepared model.
 * In: m (one output; supported operators: Gemm/MatMul with a constant
 *     right operand, MatMul with a sparse constant left operand, Conv, Add,
 *     Relu, MaxPool, AveragePool, GlobalAveragePool, Gather on a constant
 *     table, Flatten/Reshape/Identity/Dropout/Squeeze/Unsqueeze);
 *     bits in [NNC_Q_MIN_BITS, NNC_Q_MAX_BITS];
 *     calib: n_calib samples, calib[i] = n_calib * numel(input i) doubles
 *     (NULL or n_calib = 0: 32 deterministic uniform samples in [0, 1]).
 * Returns: NNC_STATUS_OK; NNC_STATUS_UNSUPPORTED naming the first operator
 *     that has no integer form; NNC_STATUS_ARG for bits out of range.
 * Out: *out (nnc_qmodel_clear). */
nnc_status nnc_qmodel_build(nnc_qmodel *out, const nnc_model *m, int bits, const double *const *calib,
                            int n_calib, char *err, size_t errlen);
void nnc_qmodel_clear(nnc_qmodel *q);

/* Quantise one sample of float inputs: q = round(x * 2^frac), integers as is.
 * Out: qin[i] (numel of input i each, caller-allocated).
 * Returns: NNC_STATUS_INVALID when a value leaves the input's rbits range. */
nnc_status nnc_qmodel_quantize_inputs(const nnc_qmodel *q, const double *const *in, int64_t *const *qin,
                                      char *err, size_t errlen);

/* Run the integer program on one sample.
 * Out: vals[t] for every tensor (malloc'd array of n_t pointers, each numel
 *      int64; free with nnc_qmodel_free_values), or NULL.
 * Returns: NNC_STATUS_INVALID naming the layer when a value leaves its range. */
nnc_status nnc_qmodel_run(const nnc_qmodel *q, const int64_t *const *qin, int64_t ***vals,
                          char *err, size_t errlen);
void nnc_qmodel_free_values(const nnc_qmodel *q, int64_t **vals);

/* The taps of one output of a CONV or pool layer: the input element indices
 * xi[k] and (CONV) weight indices wi[k] inside the image, padding skipped.
 * Returns: the count (at most (C/group) kh kw; pools: kh kw).
 * In: c the output channel, oy, ox the output position; wi may be NULL. */
int64_t nnc_qmodel_window(const nnc_q_layer *l, int64_t c, int64_t oy, int64_t ox, int64_t *xi, int64_t *wi);

/* The sums of a DENSE or CONV layer before requantisation, bias included:
 * y[i] for every output i (numel of the layer's output), from the input
 * values x (the integer program's, or a circuit's witness).
 * Returns: 0, or -1 when out of memory. */
int nnc_qmodel_layer_sums(const nnc_q_layer *l, const int64_t *x, int64_t *y);

/* Multiply-accumulates of one inference (DENSE, CONV, SPMM nonzeros). */
int64_t nnc_qmodel_macs(const nnc_qmodel *q);

#ifdef __cplusplus
}
#endif
#endif
