/* Branch and bound over ReLU splits (BaB-style, as in beta-CROWN: the
 * split constraints enter the bounds through the clamped intermediate bounds
 * and, with alpha_iters > 0, through optimised multipliers; see
 * refine_impl.h for what it may certify). */
#include "verifier/refine_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bound the current sub-problem.  Out: *open_row, the row (of an open
 * disjunct) whose bound is closest to its threshold, or -1 when every
 * disjunct is impossible (the sub-problem is certified). */
static nnc_status bound_sub(nnc_bnd *b, const nnc_rfn_problem *p, int alpha_iters, double deadline, double *zero,
                            double *lw, int *open_row)
{
    nnc_status st = nnc_bnd_linear_lower(b, p->nrows, p->C, zero, lw, NULL);
    if (st) return st;
    *open_row = -1;
    double best = -INFINITY;
    for (int j = 0; j < p->ndisj; j++) {
        int killed = 0;
        for (int r = p->dstart[j]; r < p->dstart[j + 1] && !killed; r++) killed = lw[r] > p->d[r];
        /* alpha on the disjunct's rows, best first, until one is impossible */
        for (int r = p->dstart[j]; r < p->dstart[j + 1] && !killed && alpha_iters > 0; r++) {
            if ((st = nnc_alpha_lower(b, 1, p->C + (size_t)r * (size_t)p->n_out, p->d + r, lw + r, NULL, alpha_iters,
                                      deadline)))
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
} rsp_node;

nnc_status nnc_rsp_certify(nnc_bnd *b, const double *lo, const double *hi, const nnc_rfn_problem *p, int alpha_iters,
                           double deadline, uint64_t max_nodes, int *certified, uint64_t *nodes)
{
    *certified = 0;
    *nodes = 0;
    int64_t nr = nnc_bnd_relu_count(b);
    if (nr == 0 || p->nrows == 0) return NNC_STATUS_OK;
    for (int j = 0; j < p->ndisj; j++) /* a disjunct without rows is reachable everywhere */
        if (p->dstart[j] >= p->dstart[j + 1]) return NNC_STATUS_OK;
    size_t cap = 64, top = 0, nst = nnc_bnd_state_doubles(b);
    rsp_node *stack = malloc(sizeof(rsp_node) * cap);
    double *zero = calloc((size_t)p->nrows + 1, sizeof(double)), *lw = malloc(sizeof(double) * (size_t)(p->nrows + 1));
    double *rl = malloc(sizeof(double) * (size_t)(nr + 1)), *rh = malloc(sizeof(double) * (size_t)(nr + 1));
    double *coef = malloc(sizeof(double) * (size_t)(nr + 1));
    nnc_status st = NNC_STATUS_NOMEM;
    if (!stack || !zero || !lw || !rl || !rh || !coef || !(stack[0].s = calloc((size_t)nr, 1))) goto out;
    stack[0].state = NULL;
    stack[0].crown_from = 0;
    top = 1;
    st = NNC_STATUS_OK;
    int failed = 0;
    while (top > 0 && !failed) {
        if (nnc_rfn_now() > deadline || *nodes >= max_nodes) {
            failed = 1;
            break;
        }
        rsp_node nd = stack[--top];
        signed char *s = nd.s;
        nnc_bnd_set_splits(b, s);
        /* a child starts from its parent's bounds; CROWN re-tightens only
         * the values after the new split (on MNIST 256x2, 10 s: 2556
         * sub-problems against 1072 with a full recomputation and 1781
         * keeping the parent's intermediate bounds, whose looser
         * relaxations cost more alpha steps; on ERAN 9x200 this and
         * keeping the parent's bounds were about equal) */
        if (nd.state) st = nnc_bnd_compute_warm(b, lo, hi, nd.state, nd.crown_from);
        else st = nnc_bnd_compute(b, lo, hi, 1);
        free(nd.state);
        (*nodes)++;
        int open_row = -1;
        if (!st && !nnc_bnd_infeasible(b)) st = bound_sub(b, p, alpha_iters, deadline, zero, lw, &open_row);
        if (st || open_row < 0) {
            free(s);
            if (st) break;
            continue;
        }
        /* pick the neuron to split */
        double lb;
        if ((st = nnc_bnd_objective_grad(b, p->C + (size_t)open_row * (size_t)p->n_out, 0.0, &lb, NULL, NULL, NULL, coef))) {
            free(s);
            break;
        }
        nnc_bnd_relu_bounds(b, rl, rh);
        int64_t pick = -1;
        double best = -1, best_any = -1;
        int64_t pick_any = -1;
        for (int64_t f = 0; f < nr; f++) {
            if (s[f] || !(rl[f] < 0 && rh[f] > 0)) continue;
            double gap = -rl[f] * rh[f] / (rh[f] - rl[f]); /* intercept of the upper line */
            double sc = fabs(coef[f]) * gap;
            if (sc > best) { best = sc; pick = f; }
            if (gap > best_any) { best_any = gap; pick_any = f; }
        }
        if (best <= 0) pick = pick_any;
        if (pick < 0 && alpha_iters > 0) {
            /* nothing left to split: only the multipliers can still close the
             * gap (the network is affine here), so optimise them longer */
            if ((st = bound_sub(b, p, 10 * alpha_iters, deadline, zero, lw, &open_row))) {
                free(s);
                break;
            }
            if (open_row < 0) {
                free(s);
                continue;
            }
        }
        if (pick < 0) { /* this sub-problem stays open */
            free(s);
            failed = 1;
            break;
        }
        if (top + 2 > cap) {
            rsp_node *ns = realloc(stack, sizeof(rsp_node) * cap * 2);
            if (ns == NULL) { free(s); st = NNC_STATUS_NOMEM; break; }
            stack = ns;
            cap *= 2;
        }
        /* the children's warm start: b's value bounds hold on this
         * sub-problem (bound_sub and the pick change slopes only), hence on
         * both children */
        signed char *t = malloc((size_t)nr);
        double *st1 = malloc(sizeof(double) * (nst + 1)), *st2 = malloc(sizeof(double) * (nst + 1));
        if (!t || !st1 || !st2) {
            free(s); free(t); free(st1); free(st2);
            st = NNC_STATUS_NOMEM;
            break;
        }
        nnc_bnd_state_save(b, st1);
        memcpy(st2, st1, sizeof(double) * nst);
        memcpy(t, s, (size_t)nr);
        s[pick] = 1;
        t[pick] = -1;
        int from = nnc_bnd_relu_pos(b, pick);
        stack[top++] = (rsp_node){t, st1, from};
        stack[top++] = (rsp_node){s, st2, from};
    }
    if (!st && !failed && top == 0) *certified = 1;
out:
    nnc_bnd_set_splits(b, NULL);
    if (stack)
        for (size_t i = 0; i < top; i++) {
            free(stack[i].s);
            free(stack[i].state);
        }
    free(stack); free(zero); free(lw); free(rl); free(rh); free(coef);
    return st;
}
