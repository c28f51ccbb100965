/* One leaf of the input split: its bounds (CROWN, alpha, the symbolic
 * engine, ReLU splits), exact decision and counterexample candidates, and a
 * batch of leaves on the workers (see verify_impl.h). */
#include "verifier/verify_impl.h"

/* Concrete check of a candidate: violating in float64 and in float32.
 * Records the first validated counterexample.  Returns 1 when validated. */
int nnc_vrfi_try_candidate(ctx *c, int k, const double *x)
{
    char err[NNC_ERRBUF_SIZE];
    double *y64 = c->cy, *xd = c->cx, *y32 = c->cy2;
    float *xf = c->fx, *y32f = c->fy;
    const void *in64[1] = {x};
    void *out64[1] = {y64};
    if (nnc_rt_run(c->rt64, 1, in64, out64, err, sizeof err)) return 0;
    if (nnc_spc_unsafe_disjunct(c->s, k, y64) < 0) return 0;
    for (int i = 0; i < c->n_in; i++) xf[i] = (float)x[i];
    /* the float32 input must itself lie in the region: the box the run
     * was asked about (opts box_lo/box_hi, as --sweep-eps sets them), else
     * the spec's (a sweep's counterexamples outside the spec's own box were
     * refused, so the sweep said unknown where a single run of the same box
     * said violated) */
    for (int i = 0; i < c->n_in; i++) xd[i] = xf[i];
    if (c->o->box_lo) {
        for (int i = 0; i < c->n_in; i++)
            if (!(xd[i] >= c->o->box_lo[i] && xd[i] <= c->o->box_hi[i])) return 0;
    } else if (!nnc_spc_in_region(c->s, k, xd)) {
        return 0;
    }
    const void *in32[1] = {xf};
    void *out32[1] = {y32f};
    if (nnc_rt_run(c->rt32, 1, in32, out32, err, sizeof err)) return 0;
    for (int i = 0; i < c->n_out; i++) y32[i] = y32f[i];
    if (nnc_spc_unsafe_disjunct(c->s, k, y32) < 0) return 0;
    /* and the float64 evaluation at the float32 input */
    in64[0] = xd;
    if (nnc_rt_run(c->rt64, 1, in64, out64, err, sizeof err)) return 0;
    if (nnc_spc_unsafe_disjunct(c->s, k, y64) < 0) return 0;
    nnc_vrf_report *r = c->rep;
    if (!r->has_counterexample && nnc_vrfi_report_cex(r, c->n_in, c->n_out, k, xd, y64)) return 0;
    return 1;
}

/* Optimisation steps of alpha-CROWN: auto (< 0) runs them only with many
 * inputs; with few, splitting the input box is cheaper per unit of bound
 * gained (measured on ACAS Xu, where 8 steps cost more time than the leaves
 * they save). */
static int alpha_iters(const ctx *c)
{
    if (c->o->alpha_iters >= 0) return c->o->alpha_iters;
    return c->n_in > NNC_VRF_RELU_SPLIT_MIN_INPUTS ? 8 : 0;
}

/* Returns 1 when lower bounds lw (rows of the case) show every disjunct
 * impossible: the leaf is safe. */
static int all_impossible(const ctx *c, const double *lw)
{
    for (int j = 0; j < c->ndisj; j++) {
        int impossible = 0;
        for (int r = c->dstart[j]; r < c->dstart[j + 1]; r++) impossible |= lw[r] > c->d[r];
        if (!impossible) return 0;
    }
    return 1;
}

/* The batched ReLU-split branch and bound of a ReLU chain's leaf
 * (nnc_bbd_certify, on every engine's thread): from the leaf's CROWN bounds,
 * its hidden layers' first optimised by its own batched alpha-CROWN (alpha
 * steps set). */
static nnc_status bbd_leaf(ctx *c, const double *box, const nnc_rfn_problem *p, double dl, int *cert, uint64_t *nodes)
{
    int n = c->n_in;
    nnc_bnd *b = c->rsp_bnd[0];
    int64_t nr = nnc_bbd_model_relu_count(c->bbd);
    double *rl = malloc(sizeof(double) * (size_t)(2 * nr + 1));
    if (rl == NULL) return NNC_STATUS_NOMEM;
    double *rh = rl + nr;
    nnc_bnd_set_splits(b, NULL);
    nnc_status st = nnc_bnd_compute(b, box, box + n, 1);
    if (!st) {
        nnc_bnd_relu_bounds(b, rl, rh);
        int batch = c->o->relu_split_batch > 0 ? c->o->relu_split_batch : NNC_VRF_BBD_BATCH;
        int iters = c->o->alpha_iters >= 0 ? c->o->alpha_iters : NNC_VRF_BBD_ITERS;
        nnc_bbd_opts bo = {c->rsp_nbnd, batch, iters, NNC_BBD_FSB_CANDIDATES, iters, dl, UINT64_MAX, NNC_VRF_BBD_ROOT_SPLITS,
                           NULL, NULL, NNC_VRF_BBD_ROOT_MAX_S, 0,
                           nnc_bbd_is_dense(c->bbd) ? NNC_VRF_BBD_INTERM_ITERS : 0, NNC_VRF_BBD_INTERM_SHARE,
                           NNC_VRF_BBD_INTERM_LOSS_SHARE, c->gbab, NULL, 0, c->bbd_team, c->team_err,
                           NNC_ERRBUF_SIZE};
        char gerr[NNC_ERRBUF_SIZE] = "";
        bo.gpu_err = gerr;
        bo.gpu_errlen = sizeof gerr;
        st = nnc_bbd_certify(c->bbd, box, box + n, rl, rh, p, &bo, cert, nodes);
        if (gerr[0]) {
#pragma omp critical(nnc_vrf_gpu_err)
            if (c->gpu_err[0] == 0) snprintf(c->gpu_err, NNC_ERRBUF_SIZE, "%s", gerr);
        }
    }
    free(rl);
    return st;
}

/* An open leaf: alpha-CROWN on the lower bounds lw[0..R) that leave their
 * disjunct possible, then (many inputs) ReLU splits; *kind becomes SAFE when
 * every disjunct is shown impossible.  The bounds in c->bnd are then stale. */
static nnc_status refine_leaf(ctx *c, const double *box, double *lw, double *lam, leaf_kind *kind)
{
    int n = c->n_in;
    double deadline = c->t0 + c->o->timeout_s;
    nnc_status st = NNC_STATUS_OK;
    nnc_bnd_set_tick(c->bnd, nnc_vrfi_alpha_tick, c); /* progress inside alpha's passes */
    c->rsp_tick_nodes = 0;
    /* a share of the time left for what follows (the smooth passes, the
     * ReLU splits), so later leaves still get theirs: half, or with many
     * inputs, where splitting the input box barely tightens the bounds,
     * most of it */
    double share = n > NNC_VRF_RELU_SPLIT_MIN_INPUTS ? NNC_VRF_RELU_SPLIT_SHARE_WIDE : 0.5;
    double now = nnc_rfn_now(), dl = now + share * (deadline - now);
    /* sigmoid/tanh nets, no ReLU splits to fall back on: passes of
     * alpha-CROWN, the hidden layers' bounds first, then the objectives;
     * each pass starts from the bounds the last one narrowed and takes twice
     * its steps, until the leaf is safe, a pass gains nothing, or the share
     * is spent.  (ERAN 6x200 sigmoid, eps 0.012: 4 instances hold after 8 +
     * 16 steps that stay open after 8.)  With few inputs one pass, as
     * splitting the input box is the better use of the time there. */
    int smooth = alpha_iters(c) > 0 && nnc_bnd_relu_count(c->bnd) == 0 && nnc_bnd_smooth_count(c->bnd) > 0;
    int passes = smooth && n > NNC_VRF_RELU_SPLIT_MIN_INPUTS;
    int it = alpha_iters(c), safe = 0;
    nnc_vrfi_report_progress(c, "alpha", 0, 0);
    for (int pass = 0; !st; pass++, it *= 2) {
        int64_t narrowed = 0;
        if (smooth) st = nnc_alpha_intermediate(c->bnd, it, pass == 0 ? now + 0.5 * (deadline - now) : dl, &narrowed);
        /* lam stays CROWN's: on ACAS Xu the split choice it gives needs
         * fewer leaves than the optimised bound's.  A leaf the whole team
         * searches (nnc_vrfi_classify_team): every rank must come to the
         * ReLU splits alike, so alpha takes all its steps, where a deadline
         * could stop the ranks at different ones. */
        if (!st) st = nnc_alpha_lower(c->bnd, c->nrows, c->C, c->d, lw, NULL, it, c->bbd_team ? INFINITY : pass == 0 ? deadline : dl);
        safe = !st && all_impossible(c, lw);
        if (!passes || safe || narrowed == 0 || nnc_rfn_now() > dl || it > INT_MAX / 2) break;
    }
    if (st || safe) {
        if (!st) *kind = LEAF_SAFE;
        return st;
    }
    if (c->o->relu_split == NNC_VRF_OFF || (c->o->relu_split == NNC_VRF_AUTO && n <= NNC_VRF_RELU_SPLIT_MIN_INPUTS))
        return NNC_STATUS_OK;
    now = nnc_rfn_now();
    dl = now + share * (deadline - now);
    nnc_rfn_problem p = {c->nrows, c->ndisj, c->n_out, c->C, c->d, c->dstart, nnc_vrfi_rsp_tick, c};
    nnc_vrfi_report_progress(c, "relu-split", 0, 0);
    int cert = 0;
    uint64_t nodes = 0;
    if (c->bbd) st = bbd_leaf(c, box, &p, dl, &cert, &nodes);
    else st = nnc_rsp_certify(c->rsp_bnd, c->rsp_nbnd, box, box + n, &p, alpha_iters(c), dl, UINT64_MAX, &cert, &nodes);
    c->rsp_nodes += nodes;
    if (!st && cert) *kind = LEAF_SAFE;
    return st;
}

/* Whether refine_leaf does anything for this model (it needs c->bnd). */
static int refines(const ctx *c)
{
    return alpha_iters(c) > 0 || c->o->relu_split == NNC_VRF_ON ||
           (c->o->relu_split == NNC_VRF_AUTO && c->n_in > NNC_VRF_RELU_SPLIT_MIN_INPUTS);
}

/* Intersect the leaf's ReLU bounds from CROWN (sfw == 0: c->bnd after
 * nnc_bnd_compute) or the symbolic engine (1: c->sfw after nnc_sfw_bound)
 * into its stored caps. */
static void cap_with(ctx *c, int sfw, double *cap_lo, double *cap_hi)
{
    int P = c->ncap;
    double *bl = c->cap_tmp, *bh = c->cap_tmp + P;
    if (sfw) nnc_sfw_relu_bounds(c->sfw, bl, bh);
    else nnc_bnd_relu_bounds(c->bnd, bl, bh);
    for (int j = 0; j < P; j++) {
        if (bl[j] > cap_lo[j]) cap_lo[j] = bl[j];
        if (bh[j] < cap_hi[j]) cap_hi[j] = bh[j];
        if (cap_lo[j] > cap_hi[j]) { /* both enclose a non-empty range: only within rounding */
            double a = fmin(cap_lo[j], cap_hi[j]), b = fmax(cap_lo[j], cap_hi[j]);
            cap_lo[j] = a - fabs(a) * 4 * DBL_EPSILON - 4.9e-324;
            cap_hi[j] = b + fabs(b) * 4 * DBL_EPSILON + 4.9e-324;
        }
    }
}

/* Lower bounds lw[2R] of the objectives CC (+ dd) over the leaf, and their
 * input coefficients lam; afterwards c->bnd holds the leaf's CROWN bounds
 * when refine_leaf may need them (unless the leaf is already safe).  With
 * the symbolic engine, a cascade: forward symbolic bounds first (a small
 * fraction of CROWN's cost), which settle many leaves on their own; where
 * they do not, either
 *   - (sym_splits = 0) CROWN as before, each row keeping the better bound
 *     and lam staying CROWN's: the tree is the one CROWN alone grows, minus
 *     the subtrees the symbolic bounds settle early; or
 *   - (sym_splits = 1) the symbolic engine again with CROWN refinement of the
 *     neurons it leaves unstable, its bounds and lam.  Its tighter
 *     intermediate bounds change the adaptive slopes, hence lam and every
 *     later split: on some ACAS Xu instances a tree 100 times smaller, on
 *     others one that never closes.  nnc_vrf_run tries it first, for half
 *     the time. */
static nnc_status leaf_bounds(ctx *c, double *box, const double *CC, const double *dd, double *lw, double *lam)
{
    int n = c->n_in, R2 = 2 * c->nrows;
    nnc_status st;
    if (c->sfw == NULL) {
        if ((st = nnc_bnd_compute(c->bnd, box, box + n, c->o->crown))) return st;
        return nnc_bnd_linear_lower(c->bnd, R2, CC, dd, lw, lam);
    }
    /* the cheap first bound only while it pays: it settles at least one leaf
     * in 8 (its cost is ~8% of CROWN's), re-tried on every 8th leaf */
    int first = c->s1_hits * 8 >= c->s1_tries || (c->rep->leaves & 7) == 0;
    double *cap_lo = box + 2 * n, *cap_hi = cap_lo + c->ncap, *cap_set = cap_hi + c->ncap;
    int capped = c->ncap > 0 && *cap_set == 1;
    if (first) {
        c->s1_tries++;
        nnc_sfw_set_caps(c->sfw, capped ? cap_lo : NULL, capped ? cap_hi : NULL);
        st = nnc_sfw_bound(c->sfw, box, box + n, 0, R2, CC, dd, lw, lam);
        nnc_sfw_set_caps(c->sfw, NULL, NULL);
        if (st) return st;
        if (all_impossible(c, lw)) {
            c->s1_hits++;
            return st;
        }
        if (c->ncap > 0) {
            /* within the caps (intersected with them): the children's */
            nnc_sfw_relu_bounds(c->sfw, cap_lo, cap_hi);
            *cap_set = capped = 1;
        }
    } else {
        for (int o = 0; o < R2; o++) lw[o] = -INFINITY;
    }
    double *lw2 = malloc(sizeof(double) * (size_t)R2 + 8), *lam2 = malloc(sizeof(double) * (size_t)R2 * (size_t)n + 8);
    if (!lw2 || !lam2) st = NNC_STATUS_NOMEM;
    else if (c->sym_splits) {
        /* uncapped: the caps would change this bound's relaxations, hence
         * lam and every later split (measured on ACAS Xu: one instance
         * gained, 4_7 prop_1, another lost, 5_9 prop_1).  Uncapped, the tree
         * is the one without caps, less the leaves the capped first bound
         * settles early. */
        st = nnc_sfw_bound(c->sfw, box, box + n, 1, R2, CC, dd, lw2, lam);
        if (!st && c->ncap > 0 && capped) cap_with(c, 1, cap_lo, cap_hi);
        else if (!st && c->ncap > 0) {
            nnc_sfw_relu_bounds(c->sfw, cap_lo, cap_hi);
            *cap_set = 1;
        }
    } else if (!(st = nnc_bnd_compute(c->bnd, box, box + n, c->o->crown))) {
        st = nnc_bnd_linear_lower(c->bnd, R2, CC, dd, lw2, lam);
        if (!st && c->bnd_caps && capped) cap_with(c, 0, cap_lo, cap_hi);
    }
    for (int o = 0; o < R2 && !st; o++)
        if (lw2[o] > lw[o]) lw[o] = lw2[o];
    if (!st && c->sym_splits && refines(c) && !all_impossible(c, lw)) st = nnc_bnd_compute(c->bnd, box, box + n, c->o->crown);
    free(lw2);
    free(lam2);
    return st;
}

/* A leaf's counterexample candidate.  With the symbolic engine, points whose
 * float64 chain output is clearly safe (margin above 1e-6 relative: the two
 * float64 evaluations differ by ~1e-14) skip the runtime's validation, which
 * costs more than the leaf's bounds; this only saves time, every reported
 * counterexample is still validated by nnc_vrfi_try_candidate.  *margin (may be NULL):
 * with the symbolic engine, that float64 margin (else unchanged). */
static int leaf_candidate(ctx *c, int k, const double *x, double *margin)
{
    if (c->sfw) {
        double *y = c->cy2, ymax = 0;
        nnc_sfw_eval(c->sfw, x, y);
        for (int i = 0; i < c->n_out; i++) ymax = fmax(ymax, fabs(y[i]));
        double mg = nnc_smp_margin(c->C, c->d, c->dstart, c->ndisj, c->n_out, y);
        if (margin) *margin = mg;
        if (mg > 1e-6 * (1 + ymax)) return 0;
    }
    return nnc_vrfi_try_candidate(c, k, x);
}

/* How far lower bounds lw (rows of the case) are from showing the leaf safe:
 * min over disjuncts of the best row's lw - d (> 0: safe). */
static double safe_margin(const ctx *c, const double *lw)
{
    double m = INFINITY;
    for (int j = 0; j < c->ndisj; j++) {
        double b = -INFINITY;
        for (int r = c->dstart[j]; r < c->dstart[j + 1]; r++) b = fmax(b, lw[r] - c->d[r]);
        m = fmin(m, b);
    }
    return m;
}

/* Candidates of the look-ahead split choice: auto (< 0) 3, measured on the
 * ACAS Xu prop_1 instances the plain influence score left open at 116 s
 * (2_8: 653 leaves, 0.4 s; 4_7: 159445 leaves, 76 s, both holding). */
static int lookahead(const ctx *c)
{
    if (c->plain_split) return 0;
    return c->o->split_lookahead >= 0 ? c->o->split_lookahead : NNC_VRF_LOOKAHEAD_DIMS;
}

/* Influence of input dimension i on the leaf's undecided lower bounds (lw,
 * with coefficients lam): its width times the summed |coefficients|; -1
 * for a dimension of no width. */
static double influence(const ctx *c, const double *box, const double *lw, const double *lam, int i)
{
    int n = c->n_in;
    double w = box[n + i] - box[i], s = 0;
    for (int r = 0; r < c->nrows; r++)
        if (!(lw[r] > c->d[r])) s += fabs(lam[(size_t)r * (size_t)n + (size_t)i]);
    return w > 0 ? w * (s + 1e-12) : -1;
}

/* Look-ahead split choice (FSB-style): of the split_lookahead dimensions
 * with the largest influence score (as classify ranks them), the one whose
 * worse child has the largest safe_margin under the cheap symbolic bound
 * (within the leaf's caps).  lw0, lam: the leaf's bounds (classify's).
 * *dim is classify's choice on entry, kept on ties.  Only a choice: every
 * child is bounded in full later. */
static nnc_status lookahead_dim(ctx *c, const double *box, const double *CC, const double *dd, const double *lw0,
                                const double *lam, int *dim)
{
    int n = c->n_in, R = c->nrows, K = lookahead(c);
    if (K > n) K = n;
    int *cand = malloc(sizeof(int) * (size_t)K + 8);
    double *cb = malloc(sizeof(double) * (size_t)(2 * n) + 8), *lw = malloc(sizeof(double) * (size_t)R + 8);
    double *lm = malloc(sizeof(double) * (size_t)R * (size_t)n + 8), *sc = malloc(sizeof(double) * (size_t)n + 8);
    nnc_status st = NNC_STATUS_OK;
    if (!cand || !cb || !lw || !lm || !sc) st = NNC_STATUS_NOMEM;
    int nc = 0;
    for (int i = 0; i < n && !st; i++) /* dimensions whose midpoint splits them */
        sc[i] = 0.5 * box[i] + 0.5 * box[n + i] > box[i] ? influence(c, box, lw0, lam, i) : -1;
    /* the chosen dimension first, then the next best by score */
    if (!st) cand[nc++] = *dim;
    while (!st && nc < K) {
        int b = -1;
        for (int i = 0; i < n; i++) {
            int taken = 0;
            for (int t = 0; t < nc; t++) taken |= cand[t] == i;
            if (!taken && sc[i] > 0 && (b < 0 || sc[i] > sc[b])) b = i;
        }
        if (b < 0) break;
        cand[nc++] = b;
    }
    const double *cap_lo = box + 2 * n, *cap_hi = cap_lo + c->ncap;
    int capped = c->ncap > 0 && cap_hi[c->ncap] == 1;
    double best = -INFINITY;
    int bdim = *dim;
    if (!st && nc > 1) nnc_sfw_set_caps(c->sfw, capped ? cap_lo : NULL, capped ? cap_hi : NULL);
    for (int t = 0; t < nc && nc > 1 && !st; t++) {
        int i = cand[t];
        double mid = 0.5 * box[i] + 0.5 * box[n + i], worse = INFINITY;
        for (int h = 0; h < 2 && !st; h++) {
            memcpy(cb, box, sizeof(double) * (size_t)(2 * n));
            if (h == 0) cb[n + i] = mid;
            else cb[i] = mid;
            /* the +C rows of CC: lower bounds of C.y */
            st = nnc_sfw_bound(c->sfw, cb, cb + n, 0, R, CC, dd, lw, lm);
            if (!st) worse = fmin(worse, safe_margin(c, lw));
        }
        if (!st && worse > best) {
            best = worse;
            bdim = i;
        }
    }
    if (nc > 1) nnc_sfw_set_caps(c->sfw, NULL, NULL);
    if (!st) *dim = bdim;
    free(cand); free(cb); free(lw); free(lm); free(sc);
    return st;
}

typedef struct xct_check_ctx {
    ctx *c;
    int k;
} xct_check_ctx;

static int xct_check(void *p, const double *x)
{
    xct_check_ctx *a = p;
    return nnc_vrfi_try_candidate(a->c, a->k, x);
}

/* An open leaf with few unstable ReLUs (by its stored bounds), lower bounds
 * lw, float64 margin mc at its centre (NaN: not known): decided by
 * enumerating its activation patterns (exact_impl.h); *kind becomes SAFE
 * when that certifies it. */
static nnc_status exact_leaf(ctx *c, int k, const double *box, const double *lw, double mc, leaf_kind *kind)
{
    int n = c->n_in;
    const double *cap_lo = box + 2 * n, *cap_hi = cap_lo + c->ncap;
    if (c->ncap == 0 || cap_hi[c->ncap] != 1) return NNC_STATUS_OK;
    nnc_vrfi_report_progress(c, "exact", 0, 0);
    int unstable = 0;
    for (int j = 0; j < c->ncap && unstable <= NNC_VRF_EXACT_MAX_UNSTABLE; j++) unstable += cap_lo[j] < 0 && cap_hi[j] > 0;
    if (unstable > NNC_VRF_EXACT_MAX_UNSTABLE) return NNC_STATUS_OK;
    /* only where splitting looks slow: the margin at the centre (an upper
     * bound of the leaf's least margin) below NNC_VRF_EXACT_KAPPA times the
     * bound's deficit.  Where the margin is large against the deficit a few
     * splits close the leaf for less than the enumeration costs. */
    if (!(mc < NNC_VRF_EXACT_KAPPA * -safe_margin(c, lw))) return NNC_STATUS_OK;
    nnc_rfn_problem p = {c->nrows, c->ndisj, c->n_out, c->C, c->d, c->dstart, NULL, NULL};
    xct_check_ctx cc = {c, k};
    int oc;
    uint64_t lps;
    nnc_status st = nnc_xct_decide(c->xct, box, box + n, cap_lo, cap_hi, &p, NNC_VRF_EXACT_LPS, c->t0 + c->o->timeout_s,
                                   xct_check, &cc, &oc, &lps);
    if (!st && oc == NNC_XCT_SAFE) *kind = LEAF_SAFE;
    return st;
}

/* Bound one leaf.  Out: kind; *split_dim the dimension to split when open. */
static nnc_status classify(ctx *c, int k, double *box, leaf_kind *kind, int *split_dim)
{
    int n = c->n_in, R = c->nrows;
    nnc_status st = NNC_STATUS_OK;
    /* objectives: +C rows (lower bounds of C.y) and -C rows (upper bounds) */
    double *CC = malloc(sizeof(double) * (size_t)(2 * R) * (size_t)c->n_out + 8);
    double *dd = calloc((size_t)(2 * R) + 1, sizeof(double)), *lw = malloc(sizeof(double) * (size_t)(2 * R) + 8);
    double *lam = malloc(sizeof(double) * (size_t)(2 * R) * (size_t)n + 8);
    if (!CC || !dd || !lw || !lam) {
        free(CC); free(dd); free(lw); free(lam);
        return NNC_STATUS_NOMEM;
    }
    for (int r = 0; r < R; r++)
        for (int i = 0; i < c->n_out; i++) {
            double v = c->C[(size_t)r * (size_t)c->n_out + (size_t)i];
            CC[(size_t)r * (size_t)c->n_out + (size_t)i] = v;
            CC[(size_t)(R + r) * (size_t)c->n_out + (size_t)i] = -v;
        }
    st = leaf_bounds(c, box, CC, dd, lw, lam);
    if (st) {
        free(CC); free(dd); free(lw); free(lam);
        return st;
    }
    int all_impossible = 1, some_certain = 0;
    for (int j = 0; j < c->ndisj; j++) {
        int impossible = 0, certain = 1;
        for (int r = c->dstart[j]; r < c->dstart[j + 1]; r++) {
            if (lw[r] > c->d[r]) impossible = 1;     /* min C.y > d: never satisfied */
            if (!(-lw[R + r] <= c->d[r])) certain = 0; /* max C.y <= d: always satisfied */
        }
        if (!impossible) all_impossible = 0;
        if (certain) some_certain = 1;
    }
    *kind = all_impossible ? LEAF_SAFE : some_certain ? LEAF_UNSAFE : LEAF_OPEN;
    *split_dim = -1;
    double centre_margin = NAN; /* the chain's float64 margin at the centre, when screened */
    if (*kind != LEAF_SAFE) {
        /* counterexample candidates: centre, and per open constraint the
         * corner minimising its linear lower bound */
        double *x = malloc(sizeof(double) * (size_t)n + 8);
        if (x != NULL) {
            for (int i = 0; i < n; i++) x[i] = 0.5 * box[i] + 0.5 * box[n + i];
            int found = leaf_candidate(c, k, x, &centre_margin);
            for (int r = 0; r < R && !found && !c->rep->has_counterexample; r++) {
                if (lw[r] > c->d[r]) continue;
                for (int i = 0; i < n; i++) x[i] = lam[(size_t)r * (size_t)n + (size_t)i] >= 0 ? box[i] : box[n + i];
                found = leaf_candidate(c, k, x, NULL);
            }
            free(x);
        }
    }
    /* refinement only where no validated counterexample lies in the leaf
     * (it could never certify it) */
    int cex_here = c->rep->has_counterexample && c->rep->counterexample_case == k && c->rep->cex_input != NULL;
    for (int i = 0; i < n && cex_here; i++) cex_here = c->rep->cex_input[i] >= box[i] && c->rep->cex_input[i] <= box[n + i];
    if (*kind == LEAF_OPEN && c->o->crown && !cex_here && (st = refine_leaf(c, box, lw, lam, kind))) {
        free(CC); free(dd); free(lw); free(lam);
        return st;
    }
    if (*kind == LEAF_OPEN && c->xct && !cex_here && (st = exact_leaf(c, k, box, lw, centre_margin, kind))) {
        free(CC); free(dd); free(lw); free(lam);
        return st;
    }
    if (*kind == LEAF_OPEN) {
        /* split the dimension with the largest influence on the undecided
         * lower bounds: width times summed |coefficient| */
        double best = -1, second = -1;
        for (int i = 0; i < n; i++) {
            double score = influence(c, box, lw, lam, i);
            if (score > best) {
                second = best;
                best = score;
                *split_dim = i;
            } else if (score > second) {
                second = score;
            }
        }
        /* look ahead only where the score does not decide clearly */
        int clear = second > 0 && best >= NNC_VRF_LOOKAHEAD_CLEAR * second;
        if (*split_dim >= 0 && c->sfw && lookahead(c) > 1 && !clear && (st = lookahead_dim(c, box, CC, dd, lw, lam, split_dim))) {
            free(CC); free(dd); free(lw); free(lam);
            return st;
        }
    }
    free(CC); free(dd); free(lw); free(lam);
    return NNC_STATUS_OK;
}

typedef struct atk_check_ctx {
    ctx *c;
    int k;
} atk_check_ctx;

/* The attack's candidates go through nnc_vrfi_try_candidate's float64 + float32
 * re-check, like every other counterexample. */
static int atk_check(void *p, int j, const double *x)
{
    (void)j;
    atk_check_ctx *a = p;
    return nnc_vrfi_try_candidate(a->c, a->k, x);
}

/* Gradient falsification over box (2n values), from starts (nstarts points)
 * first, with `restarts` random starts, until deadline. */
nnc_status nnc_vrfi_run_attack(ctx *c, int k, const double *box, const double *starts, int nstarts, int restarts,
                               double deadline)
{
    if (c->atk == NULL || c->nrows == 0) return NNC_STATUS_OK;
    nnc_atk_problem ap = {c->nrows, c->ndisj, c->C, c->d, c->dstart};
    nnc_atk_opts ao = {restarts, NNC_VRF_ATTACK_CORNERS, NNC_VRF_ATTACK_STEPS, c->o->seed ^ 0xa77ac4a77ac4ULL,
                       ((uint64_t)(k + 1) << 48) + c->atk_sub, deadline, nnc_vrfi_attack_tick, c};
    c->atk_sub += (uint64_t)restarts;
    if (c->team && c->team->rank != 0) return NNC_STATUS_OK; /* rank 0's, shared: nnc_vrfi_team_from_rank0 */
    atk_check_ctx cc = {c, k};
    int found = 0, n = c->n_in;
    uint64_t evals = 0;
    /* the search box: the floats inside box (nnc_vrfi_try_candidate wants the point's
              * float32 rounding in the region too, and the attack often ends on a
              * face, whose bound may not be a float) */
    double *fb = malloc(sizeof(double) * (size_t)(2 * n) + 8);
    if (fb == NULL) return NNC_STATUS_NOMEM;
    for (int i = 0; i < n; i++) {
        float l = (float)box[i], h = (float)box[n + i];
        if ((double)l < box[i]) l = nextafterf(l, INFINITY);
        if ((double)h > box[n + i]) h = nextafterf(h, -INFINITY);
        int ok = l <= h;
        fb[i] = ok ? (double)l : box[i];
        fb[n + i] = ok ? (double)h : box[n + i];
    }
    nnc_status st = nnc_atk_run(c->atk, &ap, fb, fb + n, starts, nstarts, &ao, atk_check, &cc, &found, &evals);
    free(fb);
    return st;
}

/* Bound leaves of the batch bx[0..nb) on the workers: all of them (idx
 * NULL), leaf i on worker i % nthreads, or (a team's share) leaves idx[j],
 * j < nl, on worker j % nthreads; each worker's leaves in batch order, so
 * that the outcomes (and every worker's heuristic state) depend only on the
 * batch, never on timing.  Workers see the report's counterexample as it was
 * at the batch start and record new ones in res (merged in batch order by
 * the caller). */
void nnc_vrfi_classify_batch(ctx *c, int k, double *const *bx, int nb, const int *idx, int nl, leaf_res *res)
{
    int T = c->nthreads;
    for (int t = 0; t < T; t++) {
        ctx *w = &c->workers[t];
        w->nrows = c->nrows;
        w->ndisj = c->ndisj;
        w->C = c->C;
        w->d = c->d;
        w->dstart = c->dstart;
        w->sym_splits = c->sym_splits;
        w->plain_split = c->plain_split;
        /* a batch of one leaf: its ReLU splits get every worker's engine */
        w->rsp_bnd = nb == 1 ? c->all_bnd : &w->bnd;
        w->rsp_nbnd = nb == 1 ? T : 1;
    }
    const nnc_vrf_report *g = c->rep;
#pragma omp parallel for num_threads(T) schedule(static, 1) if (T > 1 && nl > 1)
    for (int j = 0; j < nl; j++) {
        int i = idx ? idx[j] : j, t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        ctx *w = &c->workers[t];
        nnc_vrf_report *r = &w->wrep;
        r->has_counterexample = g->has_counterexample;
        r->counterexample_case = g->counterexample_case;
        r->cex_input = g->cex_input;
        r->cex_output = g->cex_output;
        r->leaves = w->wleaves++;
        leaf_res *o = &res[i];
        o->cex_in = o->cex_out = NULL;
        o->st = classify(w, k, bx[i], &o->kind, &o->dim);
        if (!g->has_counterexample && r->has_counterexample) {
            o->cex_case = r->counterexample_case;
            o->cex_in = r->cex_input;
            o->cex_out = r->cex_output;
        }
        r->has_counterexample = 0;
        r->cex_input = r->cex_output = NULL;
    }
}
