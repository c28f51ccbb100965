/* Exact binomial confidence intervals (Clopper–Pearson) for the sampled part
 * of a violation fraction, computed with MPFR and rounded outward.
 *
 * Definitions (X ~ Binomial(n, p), alpha = 1 - confidence, theta = alpha/2,
 * all in exact real arithmetic, confidence taken exactly as the double given):
 *   lo(k, n) = the p with P(X >= k; n, p) = theta     (0 when k = 0)
 *   hi(k, n) = the p with P(X <= k; n, p) = theta     (1 when k = n)
 * Both tails are strictly monotone in p on (0, 1), so each root is unique;
 * lo(k, n) = 1 - hi(n - k, n).  Closed forms: hi(0, n) = 1 - theta^(1/n),
 * lo(n, n) = theta^(1/n).
 *
 * Soundness: every binomial tail is enclosed by MPFR directed rounding
 * (MPFR rounds each operation correctly in the requested direction, and
 * every term, ratio and sum is a monotone expression of positive numbers),
 * so a bound is accepted only when the enclosure certifies the side of the
 * root it lies on; the returned doubles are then rounded outward again.
 * Hence true_lo >= *lo and true_hi <= *hi always.  Tightness: the other side
 * is certified too (or bisection runs to that width), so
 *   true_lo - *lo <= 2^-50 * min(true_lo, 1 - true_lo) + 1 ulp,
 * and likewise for hi; far inside the 1e-12 relative slack the callers
 * assume.
 *
 * Thread safety: no globals; each call owns its MPFR variables.  MPFR keeps
 * per-thread caches (constants, Bernoulli numbers for lngamma), freed by
 * mpfr_free_cache at thread exit if the caller wishes. */
#ifndef NNC_VRF_STATS_IMPL_H
#define NNC_VRF_STATS_IMPL_H

#include <stdint.h>

#include "nncert/nnc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Two-sided Clopper–Pearson interval for k successes in n trials.
 *
 * Returns: NNC_STATUS_OK; NNC_STATUS_ARG when n = 0, k > n, or confidence is
 *          not in the open interval (0, 1) (NaN included); err names which.
 * Out:     lo, hi: lo <= true lower bound, hi >= true upper bound (rounded
 *          outward, see above); lo = 0 exactly when k = 0, hi = 1 exactly
 *          when k = n.  Both non-NULL.
 * In:      k, n: successes and trials; confidence: e.g. 0.999.
 * Time: grows with sqrt(k (n - k) / n), the binomial standard deviation at
 * the bound.  Measured on one core (-O2): <= 0.01 s for k <= 1000 at any n
 * (n = 1e12 included), 0.05 s for n = 1e6 and k = n/2, 0.2 s for n = 1e8,
 * 0.9 s for n = 1e9 (k = n/2). */
nnc_status nnc_vrf_clopper_pearson(uint64_t k, uint64_t n, double confidence, double *lo, double *hi,
                                   char *err, size_t errlen);

/* Testing knobs for nnc_vrf_clopper_pearson_ex: each selects a slower or
 * less direct route that must give the same (sound) interval. */
#define NNC_VRF_CP_FORCE_BISECT   1u /* certified bisection only, no Newton */
#define NNC_VRF_CP_NO_CLOSED_FORM 2u /* k = 0 and k = n by the general solver */
#define NNC_VRF_CP_NO_SYMMETRY    4u /* solve each bound in p directly, never as 1 - (other bound) */

/* As nnc_vrf_clopper_pearson, with flags a bitwise OR of NNC_VRF_CP_*. */
nnc_status nnc_vrf_clopper_pearson_ex(uint64_t k, uint64_t n, double confidence, unsigned flags,
                                      double *lo, double *hi, char *err, size_t errlen);

/* Largest n nnc_vrf_cp_samples_needed searches (1.7e10, half-width ~1.3e-5
 * at 99.9%); needs beyond it report NNC_STATUS_LIMIT. */
#define NNC_VRF_CP_SAMPLES_MAX ((uint64_t)1 << 34)

/* Sample size for a target Clopper–Pearson half-width: the n at which
 * hi - lo (as returned above, so outward-rounded) for k = floor(p_guess * n + 0.5)
 * first drops to 2 * half_width or below.  The width is not exactly
 * monotone in n (k is rounded), so this is found by a search that assumes
 * it is: the result satisfies width(n) <= 2 * half_width < width(n - 1)
 * (n = 1 excepted).  Cost: ~20 interval computations at sizes near n:
 * 0.2 s for +-0.001 at 99.9% (n = 2.7e6), 1.7 s for +-0.0001 (n = 2.7e8),
 * ~25 s near the cap.  Needs whose normal-approximation estimate already
 * exceeds the cap are refused at once.
 *
 * Returns: NNC_STATUS_OK; NNC_STATUS_ARG when half_width is not in (0, 0.5],
 *          confidence not in (0, 1) or p_guess not in [0, 1];
 *          NNC_STATUS_LIMIT when n would exceed NNC_VRF_CP_SAMPLES_MAX.
 * Out:     n_out (non-NULL).
 * In:      half_width, e.g. 0.001; confidence, e.g. 0.999; p_guess, the
 *          expected proportion (0.5 is the worst case). */
nnc_status nnc_vrf_cp_samples_needed(double half_width, double confidence, double p_guess, uint64_t *n_out,
                                     char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
