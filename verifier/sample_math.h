/* Per-element formulas of the verifier's sampling stage and of batched
 * interval bounds, shared by the CPU path (verifier/sample.c) and the CUDA
 * kernels (gpu/verify.cu): one definition, compiled by gcc (-std=c11) and
 * nvcc (C++17), so the CPU unit tests exercise the formulas the GPU runs.
 *
 * Bit-exactness across compilers: every double operation whose result must
 * be identical on both sides is written with NNC_SMP_ADD / NNC_SMP_MUL,
 * which on the device are the round-to-nearest intrinsics __dadd_rn /
 * __dmul_rn (nvcc would otherwise contract a*b+c into one FMA); gcc in ISO
 * C mode (-std=c11) does not contract.  Loops run in the same order on both
 * sides. */
#ifndef NNC_SAMPLE_MATH_H
#define NNC_SAMPLE_MATH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define NNC_SMP_HD __host__ __device__ static inline
#else
#define NNC_SMP_HD static inline
#endif

#ifdef __CUDA_ARCH__
#define NNC_SMP_ADD(a, b) __dadd_rn((a), (b))
#define NNC_SMP_MUL(a, b) __dmul_rn((a), (b))
#else
#define NNC_SMP_ADD(a, b) ((a) + (b))
#define NNC_SMP_MUL(a, b) ((a) * (b))
#endif

#define NNC_SMP_U64 1.1102230246251565404e-16 /* unit roundoff of double, 2^-53 */
#define NNC_SMP_U32 5.9604644775390625e-08    /* unit roundoff of float, 2^-24 */

/* Returns: coordinate lo + u (hi - lo) of a uniform draw u in (0, 1],
 * clamped to hi (u = 1 can round past it).  The sampling stage's point
 * formula: verify.c has always drawn points this way. */
NNC_SMP_HD double nnc_smp_coord(double lo, double hi, double u)
{
    double v = NNC_SMP_ADD(lo, NNC_SMP_MUL(u, NNC_SMP_ADD(hi, -lo)));
    return v > hi ? hi : v;
}

/* Returns: the first leaf i with cum[i] >= pick (cum: running sums of the
 * open leaves' volumes, n >= 1 entries); n - 1 when pick exceeds them all. */
NNC_SMP_HD size_t nnc_smp_pick_leaf(const double *cum, size_t n, double pick)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cum[mid] < pick) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Returns: the violation margin of output y (n_out values) for an unsafe set
 * given as a disjunction of conjunctions of rows C[r] . y <= d[r] (row r has
 * n_out coefficients; disjunct j owns rows dstart[j] .. dstart[j + 1] - 1):
 * min over disjuncts of max over its rows of C[r] . y - d[r].  y is in the
 * unsafe set iff the margin is <= 0.  Same operation order as verify.c's
 * margin(). */
NNC_SMP_HD double nnc_smp_margin(const double *C, const double *d, const int *dstart, int ndisj, int n_out,
                                 const double *y)
{
    double best = INFINITY;
    for (int j = 0; j < ndisj; j++) {
        double worst = -INFINITY;
        for (int r = dstart[j]; r < dstart[j + 1]; r++) {
            double v = -d[r];
            for (int i = 0; i < n_out; i++) v = NNC_SMP_ADD(v, NNC_SMP_MUL(C[(size_t)r * (size_t)n_out + (size_t)i], y[i]));
            if (v > worst) worst = v;
        }
        if (worst < best) best = worst;
    }
    return best;
}

/* Returns: gamma_n = n u / (1 - n u), the relative error bound of a sum of n
 * rounded terms with unit roundoff u (Higham, Accuracy and Stability of
 * Numerical Algorithms, 3.1), rounded up generously; +inf when n u >= 1/2. */
NNC_SMP_HD double nnc_smp_gamma(double n, double u)
{
    double nu = n * u;
    if (!(nu < 0.5)) return INFINITY;
    return nu / (1.0 - nu) * (1.0 + 1e-10);
}

/* Sound interval of one neuron z = sum_k w[k] x[k] + b over the box
 * lo[k] <= x[k] <= hi[k] (K inputs, weight stride ws), in exact real
 * arithmetic, computed in round-to-nearest double with an explicit error
 * term: the two sums are each within gamma_{K+1} * sum_k |w_k| max(|lo_k|,
 * |hi_k|) (+ |b|) of their exact values (any summation order), and the final
 * subtraction / addition is pushed one more ulp outward with nextafter.
 * Underflow adds at most 2^-1022 per operation (the (K + 2) * 2^-1021 term).
 * Out: *zlo <= z <= *zhi for every x in the box. */
NNC_SMP_HD void nnc_smp_interval_neuron(const double *w, size_t ws, int K, double b, const double *lo,
                                        const double *hi, double *zlo, double *zhi)
{
    double sl = b, sh = b, a = fabs(b);
    for (int k = 0; k < K; k++) {
        double wk = w[(size_t)k * ws];
        double l = lo[k], h = hi[k];
        double p = wk >= 0 ? NNC_SMP_MUL(wk, l) : NNC_SMP_MUL(wk, h);
        double q = wk >= 0 ? NNC_SMP_MUL(wk, h) : NNC_SMP_MUL(wk, l);
        sl = NNC_SMP_ADD(sl, p);
        sh = NNC_SMP_ADD(sh, q);
        a = NNC_SMP_ADD(a, NNC_SMP_MUL(fabs(wk), fmax(fabs(l), fabs(h))));
    }
    double e = NNC_SMP_ADD(NNC_SMP_MUL(nnc_smp_gamma((double)K + 2.0, NNC_SMP_U64), a),
                           ((double)K + 2.0) * 4.4501477170144028e-308);
    *zlo = nextafter(NNC_SMP_ADD(sl, -e), -HUGE_VAL);
    *zhi = nextafter(NNC_SMP_ADD(sh, e), HUGE_VAL);
}

#endif
