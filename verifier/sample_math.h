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

/* Running (a posteriori) error bound of the float32 screen, per sample.
 * Layer l maps float32 values ĥ (K of them) to ẑ_j = fl32(b_j + sum_k
 * w_kj ĥ_k) and ĥ'_j = relu(ẑ_j); the float64 reference maps its own h64 to
 * z64 likewise.  With s_k >= |ĥ_k - h64_k| (s = |x - fl32(x)| at the input),
 * gamma_f = gamma_{K+1}(2^-24), gamma_r = gamma_{K+1}(2^-53) and Higham's
 * bound for any summation order (FMA or not), |h64| <= |ĥ| + s gives
 *   |ẑ_j - z64_j| <= sum_k |w_kj| ((1 + gamma_r) s_k + (gamma_f + gamma_r) |ĥ_k|)
 *                    + (gamma_f + gamma_r) |b_j| + underflow terms  =: delta_j
 * and, ReLU being 1-Lipschitz, s'_j = delta_j; when ẑ_j <= -delta_j both
 * pre-activations are <= 0, both outputs 0, and s'_j = 0 (the mask that
 * keeps the bound from growing with the product of |W| over the layers).
 * The screen evaluates delta_j in float32 as acc_j = fl(g|b_j| + sum |w_kj|
 * D_k) with D_k = fl(a s_k + g |ĥ_k|) (a >= 1 + gamma_r, g >= gamma_f +
 * gamma_r, both rounded up to float), then fl(fl(acc c) + t_j): every
 * rounding of these non-negative sums loses at most a factor (1 - u), which
 * c = 1 + 2 gamma_{K+8}(2^-24) restores (six roundings beside the sum), and t_j >= 2^-120 (colsum_j + K +
 * 8) covers every underflowing or flushed product (2^-126 each, in the
 * screen's sums and in ẑ's).  Any overflow gives inf or NaN, which the
 * sampler treats as undecided. */

/* Returns: x rounded up to float. */
NNC_SMP_HD float nnc_smp_float_up(double x)
{
    float f = (float)x;
    if ((double)f < x) f = nextafterf(f, INFINITY);
    return f;
}

/* Out: the constants a, g, c of a layer with K inputs (see above). */
NNC_SMP_HD void nnc_smp_run_consts(int K, float *a, float *g, float *c)
{
    *a = nnc_smp_float_up(1.0 + nnc_smp_gamma((double)K + 1.0, NNC_SMP_U64));
    *g = nnc_smp_float_up(nnc_smp_gamma((double)K + 1.0, NNC_SMP_U32) + nnc_smp_gamma((double)K + 1.0, NNC_SMP_U64));
    *c = nnc_smp_float_up(1.0 + 2.0 * nnc_smp_gamma((double)K + 8.0, NNC_SMP_U32));
}

/* Returns: D_k = a s_k + g |ĥ_k|, the screen's weight of input k. */
NNC_SMP_HD float nnc_smp_run_in(float s, float h, float a, float g) { return a * s + g * fabsf(h); }

/* Returns: s'_j of a neuron whose float32 pre-activation is z and whose
 * error sum is acc: 0 when masked by ReLU, +inf when z is not finite. */
NNC_SMP_HD float nnc_smp_run_out(float z, float acc, float c, float t, int relu)
{
    float dl = acc * c + t;
    if (!(fabsf(z) <= 3.4028234663852886e38f)) return INFINITY;
    return (relu && z <= -dl) ? 0.0f : dl;
}

/* Returns: tau with |margin(y) - margin(y64)| <= tau for float32 outputs y
 * (n_out values) and any y64 with |y - y64| <= s elementwise, both margins
 * computed by nnc_smp_margin in double (each row within gamma_{n_out+1}
 * (|C_r| |y| + |d_r|) of its exact value); +inf when s or y is not finite. */
NNC_SMP_HD double nnc_smp_run_tolerance(const double *C, const double *d, int nrows, int n_out, const float *y,
                                        const float *s)
{
    double g = nnc_smp_gamma((double)n_out + 1.0, NNC_SMP_U64), tau = 0;
    for (int r = 0; r < nrows; r++) {
        double sd = 0, sy = 0;
        for (int i = 0; i < n_out; i++) {
            double ac = fabs(C[(size_t)r * (size_t)n_out + (size_t)i]);
            sd = NNC_SMP_ADD(sd, NNC_SMP_MUL(ac, (double)s[i]));
            sy = NNC_SMP_ADD(sy, NNC_SMP_MUL(ac, fabs((double)y[i])));
        }
        double t = sd + g * (2 * sy + sd + 2 * fabs(d[r]));
        if (isnan(t)) return INFINITY;
        if (t > tau) tau = t;
    }
    /* the sums above are of non-negative terms: 1% covers their rounding */
    return isfinite(tau) ? tau * 1.01 + 1e-300 : INFINITY;
}

#endif
