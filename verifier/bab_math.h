/* Per-element formulas of batched beta-CROWN (verifier/babdense.c), shared
 * by the CPU loops and the CUDA kernels of the same passes (gpu/bab.cu):
 * one definition, compiled by gcc (-std=c11) and nvcc (C++17), so the CPU
 * tests exercise the formulas the GPU runs.
 *
 * A pass bounds items (an objective row or one neuron bound of a
 * sub-problem) backwards through a ReLU chain: the coefficients mu on a
 * layer's outputs become lam = mu W^T on its inputs (a GEMM on either
 * side), and at each ReLU the step below turns the coefficient v on its
 * output into one on its pre-activation, with an intercept term.  The sound
 * pass runs in float64 and bounds every rounding error explicitly (the
 * error terms of refine_impl.h), so its bounds hold whatever the summation
 * order of the GEMMs and reductions and whether products are fused
 * (gamma_n holds for any order, and an FMA rounds once where a product and
 * a sum round twice).  The optimisation runs in float32 and is an
 * estimate; only the variables it leaves matter, and any of them is sound
 * (slopes in [0, 1], multipliers >= 0). */
#ifndef NNC_BAB_MATH_H
#define NNC_BAB_MATH_H

#include <float.h>
#include <math.h>

#ifdef __CUDACC__
#define NNC_BAB_HD __host__ __device__ static inline
#else
#define NNC_BAB_HD static inline
#endif

/* Adam's hyper-parameters (as alpha-beta-CROWN's defaults). */
#define NNC_BAB_LR_ALPHA 0.1f
#define NNC_BAB_LR_BETA 0.1f
#define NNC_BAB_B1 0.9f
#define NNC_BAB_B2 0.999f

/* x moved outwards by more than the rounding error of the one operation
 * that produced it (4 eps relative, and the least subnormal absolute). */
NNC_BAB_HD double nnc_bab_up(double x) { return x + fabs(x) * 4 * DBL_EPSILON + 4.9e-324; }
NNC_BAB_HD double nnc_bab_down(double x) { return x - fabs(x) * 4 * DBL_EPSILON - 4.9e-324; }

/* The sound pass's step through one ReLU neuron.  In: s its split (+1:
 * z >= 0, -1: z <= 0, 0: none), [l, u] its pre-activation bounds, v the
 * coefficient on its output, bt its multiplier (beta, 0 without), al its
 * lower line's slope (taken where it is unstable, unsplit and v >= 0), au,
 * bu its upper line (where v < 0).  Returns the coefficient on its
 * pre-activation; *tb the intercept's term (v bu for the upper line, else 0). */
NNC_BAB_HD double nnc_bab_back_d(int s, double l, double u, double v, double bt, double al, double au, double bu,
                                 double *tb)
{
    *tb = 0;
    if (s < 0) return bt; /* h = 0, and -beta (-z) */
    if (s > 0) return v - bt;
    if (u <= 0) return 0;
    if (l >= 0) return v;
    if (v >= 0) return v * al;
    *tb = v * bu;
    return v * au;
}

/* The same in float32 for the estimates, from the neuron's state st (-1:
 * inactive, +1: active, 0: unstable, as [l, u] says). */
NNC_BAB_HD float nnc_bab_back_f(int s, int st, float v, float bt, float al, float au, float bu, float *tb)
{
    *tb = 0;
    if (s < 0) return bt;
    if (s > 0) return v - bt;
    if (st < 0) return 0;
    if (st > 0) return v;
    if (v >= 0) return v * al;
    *tb = v * bu;
    return v * au;
}

/* The relaxed network's value at the input that minimises the bound, at
 * one ReLU neuron with pre-activation zz there (the forward half of the
 * gradient): returns its output h; *g its variable's gradient and the
 * return of *which: 1 the slope's, 2 the multiplier's, 0 none (a stable
 * neuron: nothing written).  lm is the bound's coefficient on h (>= 0: the
 * lower line al z, else the upper line au z + bu, whose slope is fixed:
 * gradient 0). */
NNC_BAB_HD float nnc_bab_fwd_f(int s, int st, float zz, float lm, float al, float au, float bu, float *g, int *which)
{
    *which = 0;
    if (s < 0) {
        *g = zz;
        *which = 2;
        return 0;
    }
    if (s > 0) {
        *g = -zz;
        *which = 2;
        return zz;
    }
    if (st < 0) return 0;
    if (st > 0) return zz;
    *which = 1;
    if (lm >= 0) {
        *g = lm * zz;
        return al * zz;
    }
    *g = 0;
    return au * zz + bu;
}

/* One Adam step (ascent) of variable a with gradient gr and moments *m, *v:
 * lr the step's rate (NNC_BAB_LR_* times the decay), c1 = 1 / (1 - b1^t),
 * c2 = 1 / (1 - b2^t).  Returns the new value, kept where it is sound:
 * a multiplier (beta = 1) >= 0, a slope or Anderson's p in [0, 1]. */
NNC_BAB_HD float nnc_bab_adam(float a, float gr, float *m, float *v, float lr, float c1, float c2, int beta)
{
    *m = NNC_BAB_B1 * *m + (1 - NNC_BAB_B1) * gr;
    *v = NNC_BAB_B2 * *v + (1 - NNC_BAB_B2) * gr * gr;
    float step = lr * (*m * c1) / (sqrtf(*v * c2) + 1e-8f);
    float nx = a + step;
    return beta ? (nx > 0 ? nx : 0) : (nx < 0 ? 0 : nx > 1 ? 1 : nx);
}

/* The sound lower bound of an item from its sums: cst the bound's value as
 * computed, err the bound on the error of the stored weights' products
 * (error weights), aux the sum of the magnitudes of the terms whose
 * roundings gamma bounds.  A NaN (an overflow on the way) gives -inf. */
NNC_BAB_HD double nnc_bab_lower(double cst, double err, double aux, double gamma)
{
    double E = nnc_bab_up(nnc_bab_up(err + gamma * aux) * (1 + 2 * gamma));
    double lw = nnc_bab_down(cst - E);
    return lw == lw ? lw : -INFINITY;
}

#endif
