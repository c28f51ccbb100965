/* Branch and bound over ReLU splits (BaB-style, as in beta-CROWN: the
 * split constraints enter the bounds through the clamped intermediate bounds
 * and, with alpha_iters > 0, through optimised multipliers; see
 * refine_impl.h for what it may certify). */
#include "verifier/refine_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Filtered smart branching (FSB, as in beta-CROWN): the candidates with
 * the best BaBSR-style scores, each then scored by the bound of its worse
 * child (nnc_bnd_split_lower).  Each candidate costs two single-row
 * back-substitutions, a small part of a sub-problem's alpha steps. */
#ifndef NNC_RSP_FSB_CANDIDATES
#define NNC_RSP_FSB_CANDIDATES 8
#endif

/* At most this share of the time left goes to optimising the root's hidden
 * layer bounds (nnc_alpha_intermediate) before any split. */
#define NNC_RSP_INTERMEDIATE_SHARE 0.25

/* Memory for the warm starts on the stack (each sub-problem's parent
 * bounds, slopes and multipliers): past this many bytes, children are
 * pushed without them and bounded from scratch (slower, never larger). */
#define NNC_RSP_WARM_BYTES ((size_t)1 << 30)

/* Bound the current sub-problem, disjunct first (the parent's open one:
 * most sub-problems are open, and stay open on the disjunct that kept their
 * parent open, so the alpha steps on the others are saved), then the rest
 * in order.  ab (or NULL): the variables alpha starts from on the first row
 * of disjunct first (nnc_alpha_lower_from), left there as they end.
 * Out: *open_row, the row (of an open disjunct) whose bound is closest to
 * its threshold, or -1 when every disjunct is impossible (the sub-problem
 * is certified). */
static nnc_status bound_sub(nnc_bnd *b, const nnc_rfn_problem *p, int alpha_iters, double deadline, int first,
                            double *ab, double *zero, double *lw, int *open_row)
{
    nnc_status st = nnc_bnd_linear_lower(b, p->nrows, p->C, zero, lw, NULL);
    if (st) return st;
    *open_row = -1;
    double best = -INFINITY;
    if (first < 0 || first >= p->ndisj) first = 0;
    for (int jj = 0; jj < p->ndisj; jj++) {
        int j = jj == 0 ? first : jj <= first ? jj - 1 : jj;
        int killed = 0;
        for (int r = p->dstart[j]; r < p->dstart[j + 1] && !killed; r++) killed = lw[r] > p->d[r];
        /* alpha on the disjunct's rows, best first, until one is impossible */
        for (int r = p->dstart[j]; r < p->dstart[j + 1] && !killed && alpha_iters > 0; r++) {
            double *abr = jj == 0 && r == p->dstart[j] ? ab : NULL;
            if ((st = nnc_alpha_lower_from(b, 1, p->C + (size_t)r * (size_t)p->n_out, p->d + r, lw + r, NULL,
                                           alpha_iters, deadline, abr)))
                return st;
            killed = lw[r] > p->d[r];
        }
        if (killed) continue;
        for (int r = p->dstart[j]; r < p->dstart[j + 1]; r++)
            if (lw[r] - p->d[r] > best) {
                best = lw[r] - p->d[r];
                *open_row = r;
            }
        /* not killed, yet no row compared above -inf (NaN bounds): still open
         * (nnc_rsp_certify refuses disjuncts without rows, so the row exists) */
        if (*open_row < 0) *open_row = p->dstart[j];
        return NNC_STATUS_OK; /* one open disjunct suffices to split on */
    }
    return NNC_STATUS_OK;
}

/* A sub-problem on the depth-first stack: its splits, the bounds of its
 * parent (the warm start; NULL at the root) and the order position from
 * which its intermediate bounds are re-tightened by CROWN. */
typedef struct rsp_node {
    signed char *s;
    double *state;
    int crown_from;
    int first;  /* the disjunct that kept the parent open */
    double *ab; /* the parent's alpha variables on its first row, or NULL */
} rsp_node;

/* Bytes of a stacked sub-problem's warm start. */
static size_t warm_bytes(const rsp_node *nd, size_t nst, int64_t npar)
{
    return sizeof(double) * ((nd->state ? nst : 0) + (nd->ab ? (size_t)npar : 0));
}

static void node_free(rsp_node *nd)
{
    free(nd->s);
    free(nd->state);
    free(nd->ab);
}

/* One engine's scratch, and the outcome of the sub-problem it bounded. */
typedef struct rsp_work {
    double *zero, *lw, *rl, *rh, *coef, *score, *ab;
    int64_t *cand;
    /* outcome */
    nnc_status st;
    int closed;   /* certified or empty */
    int stuck;    /* open with nothing left to split */
    int64_t pick; /* the neuron to split */
    int open_disj; /* the disjunct of the open row */
    double *state; /* its bounds (the children's warm start), malloc'd */
} rsp_work;

static void work_free(rsp_work *w)
{
    free(w->zero); free(w->lw); free(w->rl); free(w->rh); free(w->coef); free(w->score); free(w->cand); free(w->ab);
    free(w->state);
}

static int work_init(rsp_work *w, int nrows, int64_t nr, int64_t npar)
{
    memset(w, 0, sizeof *w);
    w->zero = calloc((size_t)nrows + 1, sizeof(double));
    w->lw = malloc(sizeof(double) * (size_t)(nrows + 1));
    w->rl = malloc(sizeof(double) * (size_t)(nr + 1));
    w->rh = malloc(sizeof(double) * (size_t)(nr + 1));
    w->coef = malloc(sizeof(double) * (size_t)(nr + 1));
    w->score = malloc(sizeof(double) * NNC_RSP_FSB_CANDIDATES);
    w->cand = malloc(sizeof(int64_t) * NNC_RSP_FSB_CANDIDATES);
    w->ab = malloc(sizeof(double) * (size_t)(npar + 1));
    return w->zero && w->lw && w->rl && w->rh && w->coef && w->score && w->cand && w->ab ? 0 : -1;
}

/* The neuron to split: among the NNC_RSP_FSB_CANDIDATES unstable, unsplit
 * neurons with the largest BaBSR-style score |coef| * (-l u / (u - l)) (the
 * intercept of the upper line, weighted by the open row's coefficient), the
 * one whose worse child bounds the open row highest.  -1: none unstable. */
static nnc_status pick_neuron(nnc_bnd *b, const nnc_rfn_problem *p, int open_row, const signed char *s, int64_t nr,
                              rsp_work *w, int64_t *pick)
{
    const double *C = p->C + (size_t)open_row * (size_t)p->n_out;
    double lb;
    nnc_status st = nnc_bnd_objective_grad(b, C, 0.0, &lb, NULL, NULL, NULL, w->coef);
    if (st) return st;
    nnc_bnd_relu_bounds(b, w->rl, w->rh);
    int nc = 0;
    int64_t pick_any = -1;
    double best_any = -1;
    for (int64_t f = 0; f < nr; f++) {
        double l = w->rl[f], u = w->rh[f];
        if (s[f] || !(l < 0 && u > 0)) continue;
        double gap = -l * u / (u - l);
        double sc = fabs(w->coef[f]) * gap;
        if (gap > best_any) { best_any = gap; pick_any = f; }
        if (!(sc > 0)) continue;
        /* keep the nc best, sorted descending (insertion) */
        int k = nc < NNC_RSP_FSB_CANDIDATES ? nc++ : NNC_RSP_FSB_CANDIDATES;
        if (k == NNC_RSP_FSB_CANDIDATES) {
            if (sc <= w->score[k - 1]) continue;
            k--;
        }
        while (k > 0 && w->score[k - 1] < sc) {
            w->score[k] = w->score[k - 1];
            w->cand[k] = w->cand[k - 1];
            k--;
        }
        w->score[k] = sc;
        w->cand[k] = f;
    }
    *pick = nc > 0 ? w->cand[0] : pick_any;
    if (nc < 2) return NNC_STATUS_OK;
    double best = -INFINITY;
    for (int k = 0; k < nc; k++) {
        double l1, l2;
        if ((st = nnc_bnd_split_lower(b, C, w->cand[k], 1, &l1))) return st;
        if ((st = nnc_bnd_split_lower(b, C, w->cand[k], -1, &l2))) return st;
        double v = fmin(l1, l2);
        if (v > best) { /* ties (and NaN) keep the better BaBSR score */
            best = v;
            *pick = w->cand[k];
        }
    }
    return NNC_STATUS_OK;
}

/* Bound one sub-problem on engine b; the outcome goes to w.  At the root,
 * with alpha_iters > 0, the hidden layers' bounds are optimised first
 * (every sub-problem inherits them through the saved states). */
static void bound_node(nnc_bnd *b, const double *lo, const double *hi, const nnc_rfn_problem *p, int alpha_iters,
                       double deadline, const rsp_node *nd, int root, int64_t nr, size_t nst, rsp_work *w)
{
    w->closed = w->stuck = 0;
    w->pick = -1;
    w->state = NULL;
    nnc_bnd_set_splits(b, nd->s);
    /* a child starts from its parent's bounds; CROWN re-tightens only
     * the values after the new split (on MNIST 256x2, 10 s: 2556
     * sub-problems against 1072 with a full recomputation and 1781
     * keeping the parent's intermediate bounds, whose looser
     * relaxations cost more alpha steps; on ERAN 9x200 this and
     * keeping the parent's bounds were about equal) */
    nnc_status st = nd->state ? nnc_bnd_compute_warm(b, lo, hi, nd->state, nd->crown_from) : nnc_bnd_compute(b, lo, hi, 1);
    if (!st && root && alpha_iters > 0 && !nnc_bnd_infeasible(b)) {
        /* one pass: doubling passes while a pass narrows a bound (up to
         * the share) certified more of the tree on MNIST 256x4 prop_14 eps
         * 0.05 (39% against 8% in 30 s) but flipped no instance, and made
         * quick ones slow (256x2 eps 0.03: 2 s to 15 s; 256x4 prop_8 eps
         * 0.03: 6 s to 58 s), the passes using their whole share */
        double now = nnc_rfn_now();
        int64_t narrowed;
        st = nnc_alpha_intermediate(b, alpha_iters, now + NNC_RSP_INTERMEDIATE_SHARE * (deadline - now), &narrowed);
    }
    int open_row = -1;
    if (!st && !nnc_bnd_infeasible(b)) {
        /* alpha and beta warm-started from the parent's, as in beta-CROWN
         * (the slopes of neurons now stable are ignored, the multipliers of
         * the new split start at 0) */
        if (nd->ab) memcpy(w->ab, nd->ab, sizeof(double) * (size_t)nnc_alpha_param_count(b));
        else nnc_alpha_params_init(b, w->ab);
        st = bound_sub(b, p, alpha_iters, deadline, nd->first, w->ab, w->zero, w->lw, &open_row);
    }
    if (st || open_row < 0) {
        w->st = st;
        w->closed = !st;
        return;
    }
    for (w->open_disj = 0; w->open_disj + 1 < p->ndisj && p->dstart[w->open_disj + 1] <= open_row; w->open_disj++)
        ;
    if ((st = pick_neuron(b, p, open_row, nd->s, nr, w, &w->pick))) {
        w->st = st;
        return;
    }
    if (w->pick < 0 && alpha_iters > 0) {
        /* nothing left to split: only the multipliers can still close the
         * gap (the network is affine here), so optimise them longer */
        if ((st = bound_sub(b, p, 10 * alpha_iters, deadline, nd->first, NULL, w->zero, w->lw, &open_row))) {
            w->st = st;
            return;
        }
        if (open_row < 0) {
            w->closed = 1;
            return;
        }
    }
    if (w->pick < 0) {
        w->stuck = 1;
        return;
    }
    /* the children's warm start: b's value bounds hold on this sub-problem
     * (bound_sub and the pick change slopes only), hence on both children */
    if ((w->state = malloc(sizeof(double) * (nst + 1))) == NULL) {
        w->st = NNC_STATUS_NOMEM;
        return;
    }
    nnc_bnd_state_save(b, w->state);
    w->st = NNC_STATUS_OK;
}

nnc_status nnc_rsp_certify(nnc_bnd *const *bs, int nb, const double *lo, const double *hi, const nnc_rfn_problem *p,
                           int alpha_iters, double deadline, uint64_t max_nodes, int *certified, uint64_t *nodes)
{
    *certified = 0;
    *nodes = 0;
    if (nb < 1) return NNC_STATUS_ARG;
    int64_t nr = nnc_bnd_relu_count(bs[0]);
    if (nr == 0 || p->nrows == 0) return NNC_STATUS_OK;
    for (int j = 0; j < p->ndisj; j++) /* a disjunct without rows is reachable everywhere */
        if (p->dstart[j] >= p->dstart[j + 1]) return NNC_STATUS_OK;
    size_t cap = 64, top = 0, nst = nnc_bnd_state_doubles(bs[0]), held = 0;
    int64_t npar = nnc_alpha_param_count(bs[0]);
    rsp_node *stack = malloc(sizeof(rsp_node) * cap);
    rsp_node *batch = malloc(sizeof(rsp_node) * (size_t)nb);
    rsp_work *ws = calloc((size_t)nb, sizeof(rsp_work));
    nnc_status st = NNC_STATUS_NOMEM;
    int ready = stack && batch && ws;
    for (int i = 0; i < nb && ready; i++) ready = work_init(&ws[i], p->nrows, nr, npar) == 0;
    if (!ready || !(stack[0].s = calloc((size_t)nr, 1))) goto out;
    stack[0].state = NULL;
    stack[0].crown_from = 0;
    stack[0].first = 0;
    stack[0].ab = NULL;
    top = 1;
    st = NNC_STATUS_OK;
    int failed = 0;
    /* rounds: the top k sub-problems of the stack, one per engine, bounded
     * in parallel; their children pushed in batch order, so the tree
     * depends on nb, never on timing between the engines */
    while (top > 0 && !failed && !st) {
        if (nnc_rfn_now() > deadline || *nodes >= max_nodes) {
            failed = 1;
            break;
        }
        int k = 0;
        while (k < nb && top > 0 && *nodes + (uint64_t)k < max_nodes) batch[k++] = stack[--top];
#pragma omp parallel for num_threads(k) schedule(static, 1) if (k > 1)
        for (int i = 0; i < k; i++)
            bound_node(bs[i], lo, hi, p, alpha_iters, deadline, &batch[i], *nodes == 0 && i == 0, nr, nst, &ws[i]);
        *nodes += (uint64_t)k;
        if (p->tick) p->tick(p->tick_ctx, *nodes);
        if (top + 2 * (size_t)k > cap) {
            size_t nc = cap;
            while (top + 2 * (size_t)k > nc) nc *= 2;
            rsp_node *ns = realloc(stack, sizeof(rsp_node) * nc);
            if (ns == NULL) st = NNC_STATUS_NOMEM;
            else {
                stack = ns;
                cap = nc;
            }
        }
        /* the first of the batch was the top of the stack: its children go
         * on top again (depth first) */
        for (int i = 0; i < k; i++) held -= warm_bytes(&batch[i], nst, npar);
        for (int i = k - 1; i >= 0; i--) {
            rsp_work *w = &ws[i];
            rsp_node *nd = &batch[i];
            free(nd->state);
            free(nd->ab);
            if (!st && w->st) st = w->st;
            if (st || w->closed || w->stuck) {
                failed |= w->stuck;
                free(nd->s);
                free(w->state);
                w->state = NULL;
                continue;
            }
            /* children: the split, the bounds and (where the same disjunct
             * stayed open) the slopes and multipliers of this sub-problem */
            int keep_ab = alpha_iters > 0 && w->open_disj == (nd->first < p->ndisj ? nd->first : 0);
            rsp_node c1 = {nd->s, w->state, nnc_bnd_pre_pos(bs[i], w->pick), w->open_disj, NULL};
            w->state = NULL;
            if (held + 2 * (sizeof(double) * (nst + (keep_ab ? (size_t)npar : 0))) > NNC_RSP_WARM_BYTES) {
                free(c1.state); /* over the budget: both children start cold */
                c1.state = NULL;
                c1.crown_from = 0;
                keep_ab = 0;
            }
            rsp_node c2 = c1;
            c2.s = malloc((size_t)nr);
            c2.state = c1.state ? malloc(sizeof(double) * (nst + 1)) : NULL;
            if (keep_ab) {
                c1.ab = malloc(sizeof(double) * (size_t)(npar + 1));
                c2.ab = malloc(sizeof(double) * (size_t)(npar + 1));
            }
            if (!c2.s || (c1.state && !c2.state) || (keep_ab && (!c1.ab || !c2.ab))) {
                node_free(&c1);
                node_free(&c2);
                st = NNC_STATUS_NOMEM;
                continue;
            }
            if (c1.state) memcpy(c2.state, c1.state, sizeof(double) * nst);
            memcpy(c2.s, c1.s, (size_t)nr);
            if (keep_ab) {
                memcpy(c1.ab, w->ab, sizeof(double) * (size_t)npar);
                memcpy(c2.ab, w->ab, sizeof(double) * (size_t)npar);
            }
            c2.s[w->pick] = -1;
            c1.s[w->pick] = 1;
            held += warm_bytes(&c1, nst, npar) + warm_bytes(&c2, nst, npar);
            stack[top++] = c2;
            stack[top++] = c1;
        }
    }
    if (!st && !failed && top == 0) *certified = 1;
out:
    for (int i = 0; i < nb; i++) nnc_bnd_set_splits(bs[i], NULL);
    if (stack)
        for (size_t i = 0; i < top; i++) node_free(&stack[i]);
    for (int i = 0; ws && i < nb; i++) work_free(&ws[i]);
    free(ws); free(batch); free(stack);
    return st;
}
