/* One instruction-set path of the direct convolution (kernels_impl.h's
 * dconv_image and the functions under it: the strip kernel, the channel
 * kernel, the epilogue, the phase planes), included by kernels_impl.h
 * once per path, so that the epilogue and the phase planes are compiled
 * for the path's vectors too, not only the inner kernel.  Define before
 * including:
 *   DC_SFX(x)  the path's name for function x (FN(x##_avx2), ...)
 *   DC_BYTES   the vector width in bytes (16, 32 or 64)
 *   DC_ATTR    its target attribute (or nothing)
 *   DC_FMA(a, w, v)  a <- fma(w, v, a) lane by lane (w a scalar), one rounding
 *   DC_PAIR, DC_FMA2(a, c, w, v, u)  optional: two strips at a time (below)
 *   DC_ROW512  optional: the phase planes in AVX-512 vectors: rows by masked loads
 *              (phase_row), stride-1 maps by expanding loads (phase_map)
 *   DC_GATHER(base, ip)  optional: a vector of base[ip[l]], 0 where ip[l] < 0 (phase_map)
 *   DC_CNB     optional: vectors of output channels per tile of the channel kernel (default 1)
 * and T as kernels_impl.h does.
 *
 * dconv_strip(xp, toff, ntap, wp, acc, ld, rows, rstep, rlen): acc[j ld + q]
 * for q = r rstep + x, r in [0, rows), x in [0, rlen) rounded up to the
 * vector width, and the NNC_DC_MB channels j of the block
 * whose filters wp holds ([tap][NNC_DC_MB]): s = 0; s = fma(w_t, x_t, s)
 * over the taps t in order, one rounding per tap (DC_FMA: the AVX paths'
 * fused multiply-add instructions, the generic path libm's fma, which is
 * correctly rounded), so every path and every width gives the same bits.
 * The eight accumulators and the input vector fit the sixteen vector
 * registers of SSE2 and AVX2.  With DC_PAIR defined (AVX-512, 32
 * registers), two strips go together: sixteen accumulators, two input
 * vectors and the eight weights broadcast once for both, so a tap's
 * sixteen products need ten loads where two single strips need twenty
 * (each product's own broadcast); each output's sum is the same. */

/* the eight accumulators x0 .. x7 into rows o, o + ld, ... */
#define DC_STORE8(o, x)                                                                                                \
    do {                                                                                                               \
        memcpy((o) + 0 * ld, &x##0, sizeof x##0);                                                                      \
        memcpy((o) + 1 * ld, &x##1, sizeof x##1);                                                                      \
        memcpy((o) + 2 * ld, &x##2, sizeof x##2);                                                                      \
        memcpy((o) + 3 * ld, &x##3, sizeof x##3);                                                                      \
        memcpy((o) + 4 * ld, &x##4, sizeof x##4);                                                                      \
        memcpy((o) + 5 * ld, &x##5, sizeof x##5);                                                                      \
        memcpy((o) + 6 * ld, &x##6, sizeof x##6);                                                                      \
        memcpy((o) + 7 * ld, &x##7, sizeof x##7);                                                                      \
    } while (0)

DC_ATTR static void DC_SFX(dconv_strip)(const T *xp, const int64_t *toff, int64_t ntap, const T *wp, T *acc,
                                        int64_t ld, int64_t rows, int64_t rstep, int64_t rlen)
{
    typedef T vec __attribute__((vector_size(DC_BYTES)));
    const int64_t W = (int64_t)(DC_BYTES / sizeof(T));
    int64_t n = (rlen + W - 1) / W, i = 0;
#ifdef DC_PAIR
    for (; i + 1 < rows * n; i += 2) {
        int64_t q0 = i / n * rstep + i % n * W, q1 = (i + 1) / n * rstep + (i + 1) % n * W;
        vec a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0};
        vec c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0}, c4 = {0}, c5 = {0}, c6 = {0}, c7 = {0};
        for (int64_t t = 0; t < ntap; t++) {
            vec v, u;
            memcpy(&v, xp + toff[t] + q0, sizeof v);
            memcpy(&u, xp + toff[t] + q1, sizeof u);
            const T *w = wp + t * NNC_DC_MB;
            DC_FMA2(a0, c0, w[0], v, u);
            DC_FMA2(a1, c1, w[1], v, u);
            DC_FMA2(a2, c2, w[2], v, u);
            DC_FMA2(a3, c3, w[3], v, u);
            DC_FMA2(a4, c4, w[4], v, u);
            DC_FMA2(a5, c5, w[5], v, u);
            DC_FMA2(a6, c6, w[6], v, u);
            DC_FMA2(a7, c7, w[7], v, u);
        }
        T *o = acc + q0, *p = acc + q1;
        DC_STORE8(o, a);
        DC_STORE8(p, c);
    }
#endif
    for (; i < rows * n; i++) {
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
        DC_STORE8(o, a);
    }
}

/* One output row of the epilogue: o[x] = (a[x sx] + bv) (+ r[x]) (ReLU'd),
 * x in [0, n); r a fused residual Add's operand or NULL. */
DC_ATTR static inline __attribute__((always_inline)) void DC_SFX(epi_row)(T *restrict o, const T *restrict a, int64_t sx,
                                                                          int64_t n, T bv, const T *restrict r,
                                                                          int relu)
{
    if (r && relu)
        for (int64_t x = 0; x < n; x++) o[x] = ACTF(relu)((a[x * sx] + bv) + r[x]);
    else if (r)
        for (int64_t x = 0; x < n; x++) o[x] = (a[x * sx] + bv) + r[x];
    else if (relu)
        for (int64_t x = 0; x < n; x++) o[x] = ACTF(relu)(a[x * sx] + bv);
    else
        for (int64_t x = 0; x < n; x++) o[x] = a[x * sx] + bv;
}

#ifndef DC_CNB
#define DC_CNB 1
#endif
/* The channel kernel (small outputs, where strips of pixels would leave
 * lanes idle): one tile of 8 output pixels, a row of 8 columns (two = 0)
 * or two rows of 4 (two = 1) from xb, output rows rs and columns sx apart
 * in the layout (the phase planes: Wq and 1; the kernel's own: sh cWx and
 * sw), times nb (<= DC_CNB) vectors of output channels whose filters wc
 * holds ([tap][Mq]); each pixel's input broadcast, the same fma per tap
 * in the same order as the strips, so the same bits.  Out: a[p][v], pixel
 * p (p / 4, p % 4 of the two rows, or column p) and channel vector v. */
typedef T DC_SFX(cvec) __attribute__((vector_size(DC_BYTES)));
DC_ATTR static inline __attribute__((always_inline)) void DC_SFX(chan_acc)(const T *xb, const int64_t *toff,
                                                                           int64_t ntap, const T *wc, int64_t Mq,
                                                                           int64_t rs, int64_t sx, int two, int nb,
                                                                           DC_SFX(cvec) a[8][DC_CNB])
{
    const int64_t W = (int64_t)(DC_BYTES / sizeof(T));
    for (int p = 0; p < 8; p++)
        for (int v = 0; v < DC_CNB; v++) a[p][v] = (DC_SFX(cvec)){0};
    for (int64_t t = 0; t < ntap; t++) {
        const T *x = xb + toff[t], *w = wc + t * Mq;
        DC_SFX(cvec) wv[DC_CNB];
        for (int v = 0; v < nb; v++) memcpy(&wv[v], w + v * W, sizeof wv[v]);
        for (int p = 0; p < 8; p++) {
            T xv = two ? x[(p >> 2) * rs + (p & 3) * sx] : x[p * sx];
            for (int v = 0; v < nb; v++) DC_FMA(a[p][v], xv, wv[v]);
        }
    }
}

/* chan_acc's tile into the accumulators: pixel (i, j) of the tile, channel
 * vector v at o + i orow + j Mq + v W. */
DC_ATTR static inline __attribute__((always_inline)) void DC_SFX(chan_tile)(const T *xb, const int64_t *toff,
                                                                            int64_t ntap, const T *wc, int64_t Mq,
                                                                            int64_t rs, int64_t sx, T *o, int64_t orow,
                                                                            int two, int nb)
{
    const int64_t W = (int64_t)(DC_BYTES / sizeof(T));
    DC_SFX(cvec) a[8][DC_CNB];
    DC_SFX(chan_acc)(xb, toff, ntap, wc, Mq, rs, sx, two, nb, a);
    for (int p = 0; p < 8; p++)
        for (int v = 0; v < nb; v++)
            memcpy(o + (two ? (p >> 2) * orow + (p & 3) * Mq : p * Mq) + v * W, &a[p][v], sizeof a[p][v]);
}

#ifdef DC_TILE_OUT
/* chan_tile with its epilogue in the tile: the same accumulators, then per
 * vector v of channels the bias added (bv[v]: channel ob + v W's on, 0
 * past the channels or without a bias) and the tile transposed into the
 * output planes by DC_TILE_OUT
 * (pixels 0-3 at o, 4-7 at o + off1 in channel ob's plane, n0 and n1 of
 * them inside, planes cs apart; r the residual likewise, or NULL): per
 * element relu((a + b) + r) as epi_row computes it, with no pass over
 * the accumulators in memory. */
DC_ATTR static inline __attribute__((always_inline)) void DC_SFX(chan_tile_out)(const T *xb, const int64_t *toff,
                                                                                int64_t ntap, const T *wc, int64_t Mq,
                                                                                int64_t rs, int64_t sx, int two, int nb,
                                                                                int64_t nch,
                                                                                const DC_SFX(cvec) *bv, T *o, int64_t cs,
                                                                                const T *r, int64_t off1, int n0,
                                                                                int n1, int relu)
{
    const int64_t W = (int64_t)(DC_BYTES / sizeof(T));
    DC_SFX(cvec) a[8][DC_CNB];
    DC_SFX(chan_acc)(xb, toff, ntap, wc, Mq, rs, sx, two, nb, a);
    for (int v = 0; v < nb; v++) {
        int64_t nv = nch - v * W < W ? nch - v * W : W;
        DC_SFX(cvec) x[8];
        for (int p = 0; p < 8; p++) x[p] = a[p][v] + bv[v];
        DC_TILE_OUT((const T *)x, (int)nv, o + v * W * cs, cs, r ? r + v * W * cs : NULL, off1, n0, n1, relu);
    }
}
#endif

/* Channels [ob, ob + DC_CNB W) of one image by the channel kernel, then
 * their epilogue (bias, residual, ReLU) into the output planes O: in the
 * tile where the path has DC_TILE_OUT, else through the accumulators
 * (pixel (oy, ox)'s channels at (oy OWp + ox) Mq).  The input layout: x0,
 * the taps' offsets toff, output rows rs and columns sx apart (chan_acc). */
DC_ATTR static inline __attribute__((always_inline)) void DC_SFX(chan_tiles)(const FN(geom) *g, const FN(dcwork) *k,
                                                                             const T *x0, const int64_t *toff,
                                                                             int64_t rs, int64_t sx, int64_t M,
                                                                             const T *bias, int relu, const T *R,
                                                                             int two, int64_t ob, T *O)
{
    const FN(dcgeom) *d = &k->d;
    const int64_t W = (int64_t)(DC_BYTES / sizeof(T)), Mq = d->Mq, oh = g->oh, ow = g->ow;
    const int64_t OWp = two ? 4 : (ow + 7) / 8 * 8, orow = OWp * Mq, ntap = d->ntap;
    const int64_t m1 = ob + DC_CNB * W < M ? ob + DC_CNB * W : M;
    const int full = m1 - ob > (DC_CNB - 1) * W; /* all DC_CNB vectors hold channels */
    const T *wc = k->wc + ob;
#ifdef DC_TILE_OUT
    const int64_t cs = oh * ow, off1 = two ? ow : 4;
    /* the block's bias vectors, once for all its tiles */
    DC_SFX(cvec) b[DC_CNB];
    for (int v = 0; v < DC_CNB; v++) {
        b[v] = (DC_SFX(cvec)){0};
        for (int64_t l = 0; bias && l < W && ob + v * W + l < m1; l++) b[v][l] = bias[ob + v * W + l];
    }
    for (int64_t oy = 0; oy < oh; oy += 1 + two)
        for (int64_t ox = 0; ox < ow; ox += two ? 4 : 8) {
            const T *xb = x0 + oy * rs + ox * sx;
            int64_t at = (ob * oh + oy) * ow + ox, left = ow - ox;
            int n0 = left < 4 ? (int)left : 4, n1 = two ? n0 : left - 4 < 0 ? 0 : left - 4 < 4 ? (int)(left - 4) : 4;
            const T *r = R ? R + at : NULL;
            if (two && full)
                DC_SFX(chan_tile_out)(xb, toff, ntap, wc, Mq, rs, sx, 1, DC_CNB, m1 - ob, b, O + at, cs, r, off1, n0, n1, relu);
            else if (two)
                DC_SFX(chan_tile_out)(xb, toff, ntap, wc, Mq, rs, sx, 1, 1, m1 - ob, b, O + at, cs, r, off1, n0, n1, relu);
            else if (full)
                DC_SFX(chan_tile_out)(xb, toff, ntap, wc, Mq, rs, sx, 0, DC_CNB, m1 - ob, b, O + at, cs, r, off1, n0, n1, relu);
            else
                DC_SFX(chan_tile_out)(xb, toff, ntap, wc, Mq, rs, sx, 0, 1, m1 - ob, b, O + at, cs, r, off1, n0, n1, relu);
        }
    (void)orow;
#else
    for (int64_t oy = 0; oy < oh; oy += 1 + two)
        for (int64_t ox = 0; ox < ow; ox += two ? 4 : 8) {
            const T *xb = x0 + oy * rs + ox * sx;
            T *o = k->acc + (oy * OWp + ox) * Mq + ob;
            if (two && full) DC_SFX(chan_tile)(xb, toff, ntap, wc, Mq, rs, sx, o, orow, 1, DC_CNB);
            else if (two) DC_SFX(chan_tile)(xb, toff, ntap, wc, Mq, rs, sx, o, orow, 1, 1);
            else if (full) DC_SFX(chan_tile)(xb, toff, ntap, wc, Mq, rs, sx, o, orow, 0, DC_CNB);
            else DC_SFX(chan_tile)(xb, toff, ntap, wc, Mq, rs, sx, o, orow, 0, 1);
        }
    for (int64_t mo = ob; mo < m1; mo++)
        for (int64_t oy = 0; oy < oh; oy++)
            DC_SFX(epi_row)(O + (mo * oh + oy) * ow, k->acc + oy * orow + mo, Mq, ow, bias ? bias[mo] : (T)0,
                            R ? R + (mo * oh + oy) * ow : NULL, relu);
#endif
}

/* chan_tiles with the column step a constant where it is 1 or 2 (the
 * broadcasts' addresses then take no multiplication) */
DC_ATTR static void DC_SFX(chan_block)(const FN(geom) *g, const FN(dcwork) *k, const T *x0, const int64_t *toff,
                                       int64_t rs, int64_t sx, int64_t M, const T *bias, int relu, const T *R, int two,
                                       int64_t ob, T *O)
{
    if (sx == 1) DC_SFX(chan_tiles)(g, k, x0, toff, rs, 1, M, bias, relu, R, two, ob, O);
    else if (sx == 2) DC_SFX(chan_tiles)(g, k, x0, toff, rs, 2, M, bias, relu, R, two, ob, O);
    else DC_SFX(chan_tiles)(g, k, x0, toff, rs, sx, M, bias, relu, R, two, ob, O);
}

/* Block m0 of NNC_DC_MB output channels of one image (dconv_image): the
 * strips, then the bias (and ReLU) into the output planes O; with pg (a
 * MaxPool after the ReLU, every window inside, no padding or dilation), the
 * pool's output planes instead: each window's maximum of the ReLU'd values.
 * Those are +0 or above and never NaN, so the pool's own result (pool_px)
 * has the same bits whatever the order, and relu(max of the non-NaN v)
 * equals it: a v > 0 is its own ReLU, and with none the result is +0. */
DC_ATTR static inline void DC_SFX(dconv_block)(const FN(geom) *g, const FN(dcwork) *k, int64_t M, const T *bias, int relu,
                                                const FN(geom) *pg, const T *R, int64_t rows, int64_t rstep, int64_t rlen,
                                                int64_t m0, T *O)
{
    const FN(dcgeom) *d = &k->d;
    int64_t Qr = d->Qr, Wq = d->Wq, m1 = m0 + NNC_DC_MB < M ? m0 + NNC_DC_MB : M;
    DC_SFX(dconv_strip)(k->xp, k->toff, d->ntap, k->wp + m0 * d->ntap, k->acc + m0 * Qr, Qr, rows, rstep, rlen);
    if (pg) {
        /* relu(max v), the max skipping NaNs from -inf: the maximum of the
         * relu(v) (+0 when no v > 0).  Per pool row, in chunks of columns:
         * the window rows' maximum per column (contiguous, vectorised),
         * then each window's columns */
#ifdef DC_POOL_ROW
        if (pg->kw <= 16 && pg->sw <= 16) {
            for (int64_t mo = m0; mo < m1; mo++)
                for (int64_t py = 0; py < pg->oh; py++)
                    DC_POOL_ROW(O + (mo * pg->oh + py) * pg->ow, k->acc + mo * Qr + py * pg->sh * Wq, Wq, pg->kh, pg->kw,
                                pg->sw, pg->ow, bias ? bias[mo] : (T)0);
            return;
        }
#endif
        enum { CW = NNC_DC_POOL_COLS };
        T cm[CW];
        int64_t span = CW - pg->kw < pg->sw ? 1 : (CW - pg->kw) / pg->sw + 1; /* outputs per chunk */
        for (int64_t mo = m0; mo < m1; mo++) {
            T bv = bias ? bias[mo] : (T)0;
            const T *a = k->acc + mo * Qr;
            T *o = O + mo * pg->oh * pg->ow;
            for (int64_t py = 0; py < pg->oh; py++)
                for (int64_t p0 = 0; p0 < pg->ow; p0 += span) {
                    int64_t p1 = p0 + span < pg->ow ? p0 + span : pg->ow;
                    int64_t ncol = (p1 - 1 - p0) * pg->sw + pg->kw;
                    const T *w = a + py * pg->sh * Wq + p0 * pg->sw;
                    for (int64_t c = 0; c < ncol; c++) cm[c] = -(T)INFINITY;
                    for (int64_t ki = 0; ki < pg->kh; ki++) {
                        const T *r = w + ki * Wq;
                        for (int64_t c = 0; c < ncol; c++) {
                            T v = r[c] + bv;
                            cm[c] = v > cm[c] ? v : cm[c];
                        }
                    }
                    for (int64_t px = p0; px < p1; px++) {
                        const T *q = cm + (px - p0) * pg->sw;
                        T mx = -(T)INFINITY;
                        for (int64_t kj = 0; kj < pg->kw; kj++) mx = q[kj] > mx ? q[kj] : mx;
                        o[py * pg->ow + px] = ACTF(relu)(mx);
                    }
                }
        }
        return;
    }
    for (int64_t mo = m0; mo < m1; mo++)
        for (int64_t oy = 0; oy < g->oh; oy++)
            DC_SFX(epi_row)(O + (mo * g->oh + oy) * g->ow, k->acc + mo * Qr + oy * Wq, 1, g->ow, bias ? bias[mo] : (T)0,
                            R ? R + (mo * g->oh + oy) * g->ow : NULL, relu);
}

/* dr[j] = sr[s j] for j in [j0, j1): one input row's columns into the row
 * of its phase plane.  With DC_ROW512 (AVX-512), in vectors: masked loads
 * read only the row's own elements (a load never touches memory past
 * them), and a stride of 2 takes the even lanes of two vectors. */
DC_ATTR static inline void DC_SFX(phase_row)(T *restrict dr, const T *restrict sr, int64_t j0, int64_t j1, int64_t s)
{
#ifdef DC_ROW512
    const int64_t W = (int64_t)(DC_BYTES / sizeof(T));
    if (s == 1) {
        for (int64_t j = j0; j < j1; j += W) {
            int64_t n = j1 - j < W ? j1 - j : W;
            TVSTOREN512(dr + j, n, TVLOADN512(sr + j, n));
        }
        return;
    }
    if (s == 2) {
        for (int64_t j = j0; j < j1; j += W) {
            int64_t n = j1 - j < W ? j1 - j : W, m = 2 * n - 1; /* outputs, inputs read */
            TVSTOREN512(dr + j, n, TVEVEN512(TVLOADN512(sr + 2 * j, m < W ? m : W),
                                              TVLOADN512(sr + 2 * j + W, m > W ? m - W : 0)));
        }
        return;
    }
#endif
    if (s == 1) {
        if (j1 > j0) memcpy(dr + j0, sr + j0, sizeof(T) * (size_t)(j1 - j0));
    } else if (s == 2) /* a constant stride for the compiler */
        for (int64_t j = j0; j < j1; j++) dr[j] = sr[2 * j];
    else
        for (int64_t j = j0; j < j1; j++) dr[j] = sr[j * s];
}

/* dst[q] = src[map[q]], or 0 where map[q] < 0, for q in [0, n): a
 * channel's phase planes from its input plane, with DC_GATHER a vector of
 * them at a time (masked lanes never read); with contig (the map's
 * entries >= 0 are 0, 1, 2, ... in order: stride 1) and AVX-512, by
 * expanding loads of consecutive elements instead. */
DC_ATTR static inline void DC_SFX(phase_map)(T *restrict dst, const T *restrict src, const int32_t *restrict map,
                                             int64_t n, int contig)
{
    int64_t q = 0;
#ifdef DC_GATHER
    typedef T vec __attribute__((vector_size(DC_BYTES)));
    const int64_t W = (int64_t)(DC_BYTES / sizeof(T));
#ifdef DC_ROW512
    if (contig) /* the inputs in order: each vector's lanes from the next ones (an expanding load) */
        for (const T *p = src; q + W <= n; q += W) {
            uint64_t m = TVMAPMASK512(map + q);
            vec v = TVEXPAND512(m, p);
            memcpy(dst + q, &v, sizeof v);
            p += __builtin_popcountll(m);
        }
#endif
    for (; q + W <= n; q += W) {
        vec v = DC_GATHER(src, map + q);
        memcpy(dst + q, &v, sizeof v);
    }
#endif
    for (; q < n; q++) dst[q] = map[q] >= 0 ? src[map[q]] : (T)0;
}

#ifdef DC_ROW512
/* dst's nv vectors from the channel's input plane src by the permute plan
 * (nperm steps per vector at perm: kernels_impl.h's dconv_prepare): the same elements as
 * phase_map, two loads and a permute per step instead of a gather. */
DC_ATTR static inline void DC_SFX(phase_perm)(T *restrict dst, const T *restrict src, int nperm,
                                              const nnc_dcperm *perm, int64_t nv)
{
    for (int64_t v = 0; v < nv; v++) {
        const nnc_dcperm *o = perm + v * NNC_DC_PERM_OPS;
        TVEC512 acc = TVZERO512;
        for (int i = 0; i < nperm; i++) acc = TVPERMSTEP512(acc, src, o + i);
        memcpy(dst + v * (int64_t)(DC_BYTES / sizeof(T)), &acc, sizeof acc);
    }
}
#endif

/* The phase planes of one image's cg input planes X into k->xp: with the
 * map, every element of each channel's planes in one pass (narrow inputs,
 * where a pass per row would cost more than the row), then the over-read
 * slack zeroed; else all zero (padding, rows or columns past the input,
 * the slack), then each input row's columns into the row of its phase (a
 * run of memory when the stride is 1). */
DC_ATTR static void DC_SFX(phase_planes)(const FN(geom) *g, const FN(dcwork) *k, const T *X, int64_t cg)
{
    const FN(dcgeom) *d = &k->d;
    int64_t sh = g->sh, sw = g->sw, Wq = d->Wq;
    T *xp = k->xp;
    if (k->map) {
        const int64_t hw = g->h * g->w;
#ifdef DC_ROW512
        /* (the plan's vectors run past a channel's planes into the next
         * channel's, written after them, and the last one's into the
         * slack, zeroed below) */
        if (k->perm)
            for (int64_t c = 0; c < cg; c++)
                DC_SFX(phase_perm)(xp + c * d->chan, X + c * hw, k->nperm, k->perm, (d->chan + NNC_DC_VW - 1) / NNC_DC_VW);
        else
#endif
            for (int64_t c = 0; c < cg; c++) DC_SFX(phase_map)(xp + c * d->chan, X + c * hw, k->map, d->chan, k->contig);
        memset(xp + cg * d->chan, 0, sizeof(T) * (size_t)d->xslack);
    } else {
        memset(xp, 0, sizeof(T) * (size_t)(cg * d->chan + d->xslack));
        int64_t rp0 = g->pt % sh, ri0 = g->pt / sh; /* input row 0's phase and row in it */
        /* everything the loop reads in locals: its vector stores may alias
         * anything, so fields would be reloaded after each */
        const int64_t h = g->h, w = g->w, pl = g->pl, Hq = d->Hq, plane = d->plane, chan = d->chan;
        const int64_t *jb = k->jb;
        for (int64_t c = 0; c < cg; c++) {
            T *dc = xp + c * chan;
            const T *src = X + c * h * w - pl;
            for (int64_t iy = 0, rp = rp0, ri = ri0; iy < h && ri < Hq; iy++, src += w) {
                T *dst = dc + rp * sw * plane + ri * Wq;
                for (int64_t r = 0; r < sw; r++) DC_SFX(phase_row)(dst + r * plane, src + r, jb[2 * r], jb[2 * r + 1], sw);
                if (++rp == sh) rp = 0, ri++;
            }
        }
    }
}

/* One image: X its cg input planes of the group, O the M output planes;
 * bias (or NULL) and relu applied on the way out; intra: threads it may use. */
DC_ATTR static void DC_SFX(dconv_image)(const FN(geom) *g, const FN(dcwork) *k, const T *X, int64_t cg, int64_t M, const T *bias,
                            int relu, const FN(geom) *pg, const T *R, int intra, T *O)
{
    const FN(dcgeom) *d = &k->d;
    int64_t sh = g->sh, sw = g->sw, Wq = d->Wq, Qr = d->Qr;
    T *xp = k->xp;
    const int64_t vw = (int64_t)(DC_BYTES / sizeof(T));
    /* strips of pixels, or the channel kernel (not with a fused pool) */
    int64_t rows, rstep, rlen, lanes_c;
    int two;
    if (FN(dc_plan)(g, d, M, vw, &rows, &rstep, &rlen, &two, &lanes_c) && !pg) {
        /* its own layout where there is one: the input in place, or its
         * zero-padded copy (expanding loads on AVX-512); else the phase
         * planes (below) */
        const T *x0 = xp;
        const int64_t *toff = k->toff;
        int64_t rs = Wq, sx = 1;
        if (d->cWx) {
            toff = k->toffc, rs = sh * d->cWx, sx = sw;
            if (d->cdirect) x0 = X;
            else {
                const int64_t hw = g->h * g->w;
                for (int64_t c = 0; c < cg; c++) DC_SFX(phase_map)(xp + c * d->cplane, X + c * hw, k->mapc, d->cplane, 1);
                memset(xp + cg * d->cplane, 0, sizeof(T) * (size_t)d->xslack);
            }
        } else
            DC_SFX(phase_planes)(g, k, X, cg);
        int64_t nblk = (M + DC_CNB * vw - 1) / (DC_CNB * vw);
        int par = intra > 1 && nblk > 1 && d->ntap * lanes_c >= NNC_DC_PAR_MACS ? (nblk < intra ? (int)nblk : intra) : 1;
        if (par > 1) {
#pragma omp parallel for num_threads(par) schedule(static)
            for (int64_t bi = 0; bi < nblk; bi++)
                DC_SFX(chan_block)(g, k, x0, toff, rs, sx, M, bias, relu, R, two, bi * DC_CNB * vw, O);
        } else
            for (int64_t bi = 0; bi < nblk; bi++)
                DC_SFX(chan_block)(g, k, x0, toff, rs, sx, M, bias, relu, R, two, bi * DC_CNB * vw, O);
        return;
    }
    DC_SFX(phase_planes)(g, k, X, cg);
    /* blocks of NNC_DC_MB channels, each bias (and ReLU) applied while its
     * accumulators are in cache; over intra threads when the image is
     * large enough to pay for the team (each block's work is the same
     * whichever thread does it) */
    int64_t nblk = d->Mp / NNC_DC_MB;
    int par = intra > 1 && nblk > 1 && d->ntap * Qr * d->Mp >= NNC_DC_PAR_MACS ? (nblk < intra ? (int)nblk : intra) : 1;
    if (par > 1) { /* (no OpenMP region at all otherwise: even an inactive one costs a team) */
#pragma omp parallel for num_threads(par) schedule(static)
        for (int64_t bi = 0; bi < nblk; bi++)
            DC_SFX(dconv_block)(g, k, M, bias, relu, pg, R, rows, rstep, rlen, bi * NNC_DC_MB, O);
    } else
        for (int64_t bi = 0; bi < nblk; bi++)
            DC_SFX(dconv_block)(g, k, M, bias, relu, pg, R, rows, rstep, rlen, bi * NNC_DC_MB, O);
}

#undef DC_SFX
#undef DC_BYTES
#undef DC_ATTR
#undef DC_FMA
#undef DC_PAIR
#undef DC_FMA2
#undef DC_ROW512
#undef DC_GATHER
#undef DC_STORE8
#undef DC_CNB
#undef DC_TILE_OUT
#undef DC_POOL_ROW
