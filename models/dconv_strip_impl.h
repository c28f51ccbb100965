/* One instruction-set path of the direct convolution's inner kernel,
 * included by kernels_impl.h once per path.  Define before including:
 *   DC_NAME   the function's name
 *   DC_BYTES  the vector width in bytes (16, 32 or 64)
 *   DC_ATTR   its target attribute (or nothing)
 *   DC_FMA(a, w, v)  a <- fma(w, v, a) lane by lane (w a scalar), one rounding
 * and T as kernels_impl.h does.
 *
 * DC_NAME(xp, toff, ntap, wp, acc, ld, rows, rstep, rlen): acc[j ld + q]
 * for q = r rstep + x, r in [0, rows), x in [0, rlen) rounded up to the
 * vector width, and the NNC_DC_MB channels j of the block
 * whose filters wp holds ([tap][NNC_DC_MB]): s = 0; s = fma(w_t, x_t, s)
 * over the taps t in order, one rounding per tap (DC_FMA: the AVX paths'
 * fused multiply-add instructions, the generic path libm's fma, which is
 * correctly rounded), so every path and every width gives the same bits.
 * The eight accumulators and the input vector fit the sixteen vector
 * registers of SSE2 and AVX2 (AVX-512 has 32). */

DC_ATTR static void DC_NAME(const T *xp, const int64_t *toff, int64_t ntap, const T *wp, T *acc, int64_t ld,
                            int64_t rows, int64_t rstep, int64_t rlen)
{
    typedef T vec __attribute__((vector_size(DC_BYTES)));
    const int64_t W = (int64_t)(DC_BYTES / sizeof(T));
    for (int64_t i = 0, n = (rlen + W - 1) / W; i < rows * n; i++) {
        int64_t q0 = i / n * rstep + i % n * W;
        vec a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0};
        for (int64_t t = 0; t < ntap; t++) {
            vec v;
            memcpy(&v, xp + toff[t] + q0, sizeof v);
            const T *w = wp + t * NNC_DC_MB;
            DC_FMA(a0, w[0], v);
            DC_FMA(a1, w[1], v);
            DC_FMA(a2, w[2], v);
            DC_FMA(a3, w[3], v);
            DC_FMA(a4, w[4], v);
            DC_FMA(a5, w[5], v);
            DC_FMA(a6, w[6], v);
            DC_FMA(a7, w[7], v);
        }
        T *o = acc + q0;
        memcpy(o + 0 * ld, &a0, sizeof a0);
        memcpy(o + 1 * ld, &a1, sizeof a1);
        memcpy(o + 2 * ld, &a2, sizeof a2);
        memcpy(o + 3 * ld, &a3, sizeof a3);
        memcpy(o + 4 * ld, &a4, sizeof a4);
        memcpy(o + 5 * ld, &a5, sizeof a5);
        memcpy(o + 6 * ld, &a6, sizeof a6);
        memcpy(o + 7 * ld, &a7, sizeof a7);
    }
}

#undef DC_NAME
#undef DC_BYTES
#undef DC_ATTR
#undef DC_FMA
