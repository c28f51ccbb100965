/* Number-theoretic transform over Fr (BN254 scalar field), shared by
 * prover/ntt.c and gpu/ntt.cu (gcc and nvcc both compile this header).
 *
 * Domain.  For n = 2^m, m <= NNC_FR_TWO_ADICITY (28), w_n is the principal
 * n-th root of unity w_(2^28)^(2^(28-m)), with w_(2^28) = 5^((r-1)/2^28)
 * (NNC_FR_ROOT_OF_UNITY_INIT, the root snarkjs/ffjavascript, rapidsnark and
 * arkworks use).  The forward transform maps coefficients to values in
 * natural order:  A_i = sum_j a_j w_n^(i j),  i.e. A_i = a(w_n^i).
 * The inverse maps values back:  a_j = n^-1 sum_i A_i w_n^(-i j); it is
 * computed as the forward transform followed by A_i <- A_(-i mod n) / n.
 *
 * Coset.  nnc_prv_coset_ntt evaluates at g w_n^i: it multiplies a_j by g^j
 * and transforms.  The default shift g (shift = NULL) is w_(2n), the
 * principal 2n-th root of unity, so the coset is the odd powers of w_(2n),
 * where Z(x) = x^n - 1 equals -2.  This is the coset snarkjs
 * (groth16_prove: Fr.w[power + 1]) and rapidsnark use to compute the
 * quotient h(x) = (A B - C) / Z, and the one their proving keys' hExps
 * points are built for.  (arkworks uses the generator 5 instead; pass it
 * explicitly for that convention.)
 *
 * Algorithm: iterative radix-2 decimation in time: bit-reversal
 * permutation, then stages with half-span h = 1, 2, 4, ..., n/2, each doing
 * butterflies (u, v) -> (u + t v, u - t v) with t = w_(2h)^j.  Twiddles:
 * one table tw[n] with tw[h + j] = w_(2h)^j for every stage h, so each
 * stage reads a contiguous run (tw[0] unused). */
#ifndef NNC_PRV_NTT_IMPL_H
#define NNC_PRV_NTT_IMPL_H

#include "prover/field_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The public MSM/NTT API is declared in nncert/prover.h. */

#ifdef __cplusplus
}
#endif

/* ---- shared inline helpers ---- */

/* Returns: m with n = 2^m, or -1 if n is not a power of two (or 0). */
NNC_INLINE int nnc_ntt_log2(size_t n)
{
    int m = 0;
    if (n == 0 || (n & (n - 1)) != 0)
        return -1;
    while (((size_t)1 << m) != n)
        m++;
    return m;
}

/* Returns: the m-bit reversal of i. */
NNC_FORCEINLINE size_t nnc_ntt_bitrev(size_t i, int m)
{
    size_t r = 0;
    int b;
    for (b = 0; b < m; b++) {
        r = (r << 1) | (i & 1);
        i >>= 1;
    }
    return r;
}

/* Out: *w = w_(2^m), the principal 2^m-th root of unity.  In: 0 <= m <= 28. */
NNC_INLINE void nnc_ntt_root_log(nnc_fr *w, int m)
{
    const nnc_fr w28 = NNC_FR_ROOT_OF_UNITY_INIT;
    int i;
    *w = w28;
    for (i = m; i < NNC_FR_TWO_ADICITY; i++)
        nnc_fr_sqr(w, w);
}

/* Out: tw[h + j] = w_(2h)^j for h = 1, 2, ..., n/2 and j < h (tw[0] = 1).
 * In: n = 2^m, 1 <= n <= 2^28.  n/2 - 1 products. */
NNC_INLINE void nnc_ntt_twiddles(nnc_fr *tw, size_t n, int m)
{
    size_t h, j;
    nnc_fr w;
    nnc_fr_set_one(&tw[0]);
    if (n < 2)
        return;
    nnc_ntt_root_log(&w, m);
    /* top stage h = n/2: powers of w_n */
    nnc_fr_set_one(&tw[n / 2]);
    for (j = 1; j < n / 2; j++)
        nnc_fr_mul(&tw[n / 2 + j], &tw[n / 2 + j - 1], &w);
    /* w_(2h)^j = w_(4h)^(2j) */
    for (h = n / 4; h >= 1; h /= 2)
        for (j = 0; j < h; j++)
            tw[h + j] = tw[2 * h + 2 * j];
}

/* (*u, *v) <- (*u + t *v, *u - t *v). */
NNC_FORCEINLINE void nnc_ntt_butterfly(nnc_fr *u, nnc_fr *v, const nnc_fr *t)
{
    nnc_fr x;
    nnc_fr_mul(&x, v, t);
    nnc_fr_sub(v, u, &x);
    nnc_fr_add(u, u, &x);
}

#endif
