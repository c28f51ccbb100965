/* McCormick relaxation of a MatMul of two bounded operands (see
 * verifier/bilinear_impl.h).  Rounding: every double operation is
 * round-to-nearest; each rounded intercept or interval endpoint is moved
 * outward explicitly, so nothing depends on the FPU's rounding mode. */
#include "verifier/bilinear_impl.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

/* Outward by 4 ulp-ish relative plus an absolute 2^-1070 that covers the
 * underflow of one product (at most 2^-1075 each). */
static double up(double x) { return x + fabs(x) * 4 * DBL_EPSILON + 0x1p-1070; }
static double down(double x) { return x - fabs(x) * 4 * DBL_EPSILON - 0x1p-1070; }

#define AIX(q, i, k) (((q) * g->M + (i)) * g->K + (k))
#define BIX(q, k, j) (((q) * g->K + (k)) * g->N + (j))
#define OIX(q, i, j) (((q) * g->M + (i)) * g->N + (j))

void nnc_bil_ibp(const nnc_bil_geom *g, double gamma, const double *al, const double *ah, const double *bl,
                 const double *bh, double *ol, double *oh, double *cl, double *cu, double *ew)
{
    for (int64_t q = 0; q < g->batch; q++)
        for (int64_t i = 0; i < g->M; i++)
            for (int64_t j = 0; j < g->N; j++) {
                double sl = 0, sh = 0, mag = 0, il = 0, iu = 0, slope = 0;
                int finite = 1;
                for (int64_t k = 0; k < g->K; k++) {
                    double a0 = al[AIX(q, i, k)], a1 = ah[AIX(q, i, k)], b0 = bl[BIX(q, k, j)], b1 = bh[BIX(q, k, j)];
                    if (!(isfinite(a0) && isfinite(a1) && isfinite(b0) && isfinite(b1))) {
                        finite = 0;
                        break;
                    }
                    double p1 = a0 * b0, p2 = a0 * b1, p3 = a1 * b0, p4 = a1 * b1;
                    sl += fmin(fmin(p1, p2), fmin(p3, p4));
                    sh += fmax(fmax(p1, p2), fmax(p3, p4));
                    double pm = fmax(fmax(fabs(p1), fabs(p2)), fmax(fabs(p3), fabs(p4)));
                    mag += pm;
                    /* intercepts -a0 b0 (lower plane) and -a0 b1 (upper), each
                     * rounded outward, summed outward */
                    il = down(il + down(-p1));
                    iu = up(iu + up(-p2));
                    slope += 2 * pm; /* |b| |a| + |a| |b| over the box */
                }
                int64_t o = OIX(q, i, j);
                if (!finite) {
                    ol[o] = -INFINITY;
                    oh[o] = INFINITY;
                    cl[o] = -INFINITY;
                    cu[o] = INFINITY;
                    ew[o] = INFINITY;
                    continue;
                }
                double e = up(gamma * mag * (1 + gamma)) + (double)g->K * 0x1p-1070;
                ol[o] = down(sl - e);
                oh[o] = up(sh + e);
                cl[o] = il;
                cu[o] = iu;
                ew[o] = up(up(slope * (1 + gamma)) + fmax(fabs(il), fabs(iu)));
            }
}

void nnc_bil_back(const nnc_bil_geom *g, int nobj, const double *L, const double *al, const double *bl,
                  const double *bh, const double *cl, const double *cu, double *La, double *Lb, double *csum)
{
    int64_t no = g->batch * g->M * g->N, na = g->batch * g->M * g->K, nb = g->batch * g->K * g->N;
    for (int o = 0; o < nobj; o++) {
        const double *Lo = L + (size_t)o * (size_t)no;
        double *A = La + (size_t)o * (size_t)na, *B = Lb + (size_t)o * (size_t)nb, s = 0;
        for (int64_t q = 0; q < g->batch; q++)
            for (int64_t i = 0; i < g->M; i++)
                for (int64_t j = 0; j < g->N; j++) {
                    double l = Lo[OIX(q, i, j)];
                    if (l == 0) continue;
                    const double *bs = l > 0 ? bl : bh; /* the slope on a: bl (lower plane), bh (upper) */
                    s += l * (l > 0 ? cl[OIX(q, i, j)] : cu[OIX(q, i, j)]);
                    if (!isfinite(cl[OIX(q, i, j)]) || !isfinite(cu[OIX(q, i, j)])) continue; /* s is infinite: no bound */
                    for (int64_t k = 0; k < g->K; k++) {
                        A[AIX(q, i, k)] += l * bs[BIX(q, k, j)];
                        B[BIX(q, k, j)] += l * al[AIX(q, i, k)];
                    }
                }
        csum[o] = s;
    }
}

void nnc_bil_eval_planes(const nnc_bil_geom *g, const double *rec, const double *al, const double *bl, const double *bh,
                         const double *cl, const double *cu, const double *za, const double *zb, double *out)
{
    for (int64_t q = 0; q < g->batch; q++)
        for (int64_t i = 0; i < g->M; i++)
            for (int64_t j = 0; j < g->N; j++) {
                int64_t o = OIX(q, i, j);
                int lower = rec[o] >= 0;
                double s = lower ? cl[o] : cu[o];
                for (int64_t k = 0; k < g->K; k++)
                    s += (lower ? bl[BIX(q, k, j)] : bh[BIX(q, k, j)]) * za[AIX(q, i, k)] + al[AIX(q, i, k)] * zb[BIX(q, k, j)];
                out[o] = isfinite(s) ? s : 0;
            }
}
