/* Bound transformer of a product of two run-time operands (internal to the
 * verifier module; used by verifier/bounds.c): the batched MatMul
 *   out[q][i][j] = sum_k A[q][i][k] * B[q][k][j]
 * with A and B both bounded values, as in a DLRM's pairwise dot-product
 * interaction Z Z^T.
 *
 * Each product term a * b with a in [al, ah], b in [bl, bh] gets McCormick's
 * planes:  a b >= bl a + al b - al bl   (from (a - al)(b - bl) >= 0)
 *          a b <= bh a + al b - al bh   (from (a - al)(bh - b) >= 0).
 * Their slopes are the interval endpoints themselves (exact doubles); only
 * the intercepts are computed, summed over k per output element with
 * outward rounding, so each output's two planes hold in exact arithmetic.
 * When one operand is a point (an embedding row with fixed ids) the planes
 * coincide with the exact product.  Back-substitution takes the lower plane
 * for a nonnegative objective coefficient and the upper one otherwise; its
 * rounding is covered by bounds.c's GAMMA * |L| . ew term, with ew below. */
#ifndef NNC_BILINEAR_IMPL_H
#define NNC_BILINEAR_IMPL_H

#include <stdint.h>

typedef struct nnc_bil_geom {
    int64_t batch, M, K, N; /* A: batch x M x K, B: batch x K x N, out: batch x M x N */
} nnc_bil_geom;

/* Interval of every output ([ol, oh], outward), the summed intercepts of its
 * lower and upper planes (cl, cu; -inf / +inf when an operand bound is not
 * finite, and the planes are then unused), and its error weight ew (an upper
 * bound of sum_k |slopes| |operands| + |intercept|).  gamma bounds the
 * relative error of a K-term dot product (bounds.c's GAMMA). */
void nnc_bil_ibp(const nnc_bil_geom *g, double gamma, const double *al, const double *ah, const double *bl,
                 const double *bh, double *ol, double *oh, double *cl, double *cu, double *ew);

/* Back-substitute nobj rows L (nobj x out elements) through the planes:
 * La (nobj x A elements) and Lb (nobj x B elements) are accumulated into,
 * csum[o] receives the rows' intercept sums  sum_j L_j (L_j >= 0 ? cl_j : cu_j). */
void nnc_bil_back(const nnc_bil_geom *g, int nobj, const double *L, const double *al, const double *bl,
                  const double *bh, const double *cl, const double *cu, double *La, double *Lb, double *csum);

/* The plane each output's recorded coefficient rec selected (lower for
 * rec >= 0), evaluated at operand values za, zb (alpha-CROWN's gradient
 * needs the relaxed network at the bound's minimiser). */
void nnc_bil_eval_planes(const nnc_bil_geom *g, const double *rec, const double *al, const double *bl, const double *bh,
                         const double *cl, const double *cu, const double *za, const double *zb, double *out);

#endif
