/* A verification run by a team of ranks (nnc_vrf_opts.team): the handshake,
 * the exchanges of each batch's leaves, counterexamples and samples (see
 * verify_impl.h). */
#include "verifier/verify_impl.h"

/* A team exchange (collective: every rank, in the same order): mine, len
 * bytes, to every rank.  Out: *all (malloc'd) every rank's bytes in rank
 * order, c->tlens[q] rank q's length.  Each rank's elapsed time travels with
 * its bytes and moves the agreed clock (vnow) to the slowest rank's. */
nnc_status nnc_vrfi_team_gather(ctx *c, const void *mine, size_t len, unsigned char **all)
{
    const nnc_team *t = c->team;
    const size_t tl = sizeof(double);
    *all = NULL;
    unsigned char *buf = malloc(len + tl), *raw = NULL;
    if (buf == NULL) return nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_NOMEM, "out of memory");
    if (len) memcpy(buf, mine, len);
    double el = now_s() - c->t0;
    memcpy(buf + len, &el, tl);
    nnc_status st = t->allgather(t->ctx, buf, len + tl, &raw, c->tlens, c->team_err, NNC_ERRBUF_SIZE);
    free(buf);
    if (st) return st;
    size_t in = 0, out = 0;
    for (int q = 0; q < t->size; q++) {
        if (c->tlens[q] < tl) {
            free(raw);
            return nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_INVALID, "rank %d sent a malformed exchange", q);
        }
        size_t l = c->tlens[q] - tl;
        memmove(raw + out, raw + in, l);
        double e;
        memcpy(&e, raw + in + l, tl);
        if (e > c->tclock && isfinite(e)) c->tclock = e;
        c->tlens[q] = l;
        in += l + tl;
        out += l;
    }
    *all = raw;
    return NNC_STATUS_OK;
}

/* A counterexample as exchanged: status, flag, case, then n_in + n_out
 * doubles (zero without one). */
static size_t cex_rec_bytes(const ctx *c) { return 3 * sizeof(int32_t) + sizeof(double) * (size_t)(c->n_in + c->n_out); }

static void cex_pack(const ctx *c, unsigned char *p, nnc_status st, const double *in, const double *out, int kcase)
{
    int32_t h[3] = {(int32_t)st, in != NULL && out != NULL, kcase};
    memcpy(p, h, sizeof h);
    p += sizeof h;
    size_t ni = sizeof(double) * (size_t)c->n_in, no = sizeof(double) * (size_t)c->n_out;
    if (h[1]) {
        memcpy(p, in, ni);
        memcpy(p + ni, out, no);
    } else {
        memset(p, 0, ni + no);
    }
}

/* A packed counterexample into the report (which has none).  Returns the
 * packed status; NOMEM where the copy fails. */
static nnc_status cex_unpack(ctx *c, const unsigned char *p)
{
    int32_t h[3];
    memcpy(h, p, sizeof h);
    p += sizeof h;
    nnc_vrf_report *r = c->rep;
    if (h[0] || !h[1] || r->has_counterexample) return (nnc_status)h[0];
    return nnc_vrfi_report_cex(r, c->n_in, c->n_out, h[2], p, p + sizeof(double) * (size_t)c->n_in) ? NNC_STATUS_NOMEM
                                                                                         : NNC_STATUS_OK;
}

/* A digest (BLAKE2b, 32 bytes) of what the run checks: every case's box
 * (opts' replacement box included) and its constraint rows. */
static void spec_digest(const ctx *c, uint8_t out[32])
{
    crypto_generichash_state h;
    crypto_generichash_init(&h, NULL, 0, 32);
    const nnc_spec *sp = c->s;
    double *row = malloc(sizeof(double) * (size_t)(c->n_out + 1));
    for (int k = 0; k < nnc_spc_num_cases(sp); k++) {
        const double *lo = c->o->box_lo ? c->o->box_lo : nnc_spc_case_lo(sp, k);
        const double *hi = c->o->box_hi ? c->o->box_hi : nnc_spc_case_hi(sp, k);
        crypto_generichash_update(&h, (const unsigned char *)lo, sizeof(double) * (size_t)c->n_in);
        crypto_generichash_update(&h, (const unsigned char *)hi, sizeof(double) * (size_t)c->n_in);
        for (int j = 0; row && j < nnc_spc_case_num_disjuncts(sp, k); j++) {
            int32_t sz = nnc_spc_disjunct_size(sp, k, j);
            crypto_generichash_update(&h, (const unsigned char *)&sz, sizeof sz);
            for (int i = 0; i < sz; i++) {
                nnc_spc_lin l;
                nnc_spc_disjunct_con(sp, k, j, i, &l);
                memset(row, 0, sizeof(double) * (size_t)(c->n_out + 1));
                nnc_spc_lin_dense(&l, row, c->n_out);
                row[c->n_out] = l.rhs;
                crypto_generichash_update(&h, (const unsigned char *)row, sizeof(double) * (size_t)(c->n_out + 1));
            }
        }
    }
    free(row);
    crypto_generichash_final(&h, out, 32);
}

/* A team's first exchange: every rank must run the same model with the same
 * options (a mismatch would split the ranks' queues); the time budget is
 * rank 0's (each rank's caller may have measured what is left of it a little
 * differently).  Out: *timeout. */
nnc_status nnc_vrfi_team_handshake(ctx *c, const uint8_t sha[32], double *timeout)
{
    const nnc_vrf_opts *o = c->o;
    struct {
        uint8_t sha[32];  /* the model's */
        uint8_t spec[32]; /* the boxes and constraints the run uses */
        double timeout, confidence, max_violation;
        uint64_t seed, samples, max_leaves, own_leaves;
        int32_t threads, n_in, n_out, cases, opt[13];
    } me, q0, r0;
    memset(&me, 0, sizeof me);
    memcpy(me.sha, sha, 32);
    spec_digest(c, me.spec);
    me.timeout = o->timeout_s;
    me.confidence = o->confidence;
    me.max_violation = o->max_violation;
    me.seed = o->seed;
    me.samples = o->samples;
    me.max_leaves = o->max_leaves;
    me.own_leaves = o->symbolic_own_leaves;
    me.threads = c->nthreads;
    me.n_in = c->n_in;
    me.n_out = c->n_out;
    me.cases = nnc_spc_num_cases(c->s);
    /* the options and the engines this rank could build (an engine left out
     * for want of memory changes the leaves and the phases) */
    int32_t opt[13] = {o->crown, o->split, o->stop_on_counterexample, o->alpha_iters, o->relu_split, o->relu_split_batch,
                       o->symbolic, o->split_lookahead, o->exact, o->device, c->sfw != NULL, c->ncap, (c->bbd != NULL) |
                       (c->xct != NULL) << 1 | (c->atk != NULL) << 2 | (c->gbab != NULL) << 3};
    memcpy(me.opt, opt, sizeof opt);
    unsigned char *all = NULL;
    nnc_status st = nnc_vrfi_team_gather(c, &me, sizeof me, &all);
    for (int q = 0; !st && q < c->team->size; q++) {
        if (c->tlens[q] != sizeof me) {
            st = nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_INVALID, "rank %d sent a malformed exchange", q);
            break;
        }
        /* all but the budget, which is rank 0's */
        memcpy(&q0, all + sizeof me * (size_t)q, sizeof me);
        memcpy(&r0, all, sizeof me);
        q0.timeout = r0.timeout = 0;
        if (memcmp(&q0, &r0, sizeof me) != 0)
            st = nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_INVALID,
                         "rank %d runs another model, spec or options than rank 0 (every rank must run the same command)", q);
    }
    if (!st) memcpy(timeout, all + offsetof(__typeof__(me), timeout), sizeof *timeout);
    free(all);
    return st;
}

/* In a team, rank 0's status st0 and counterexample (what it alone
 * computed) to every rank.  Returns rank 0's status, or the exchange's. */
nnc_status nnc_vrfi_team_from_rank0(ctx *c, nnc_status st0)
{
    size_t rb = cex_rec_bytes(c);
    unsigned char *mine = malloc(rb), *all = NULL;
    if (mine == NULL) return nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_NOMEM, "out of memory");
    const nnc_vrf_report *r = c->rep;
    cex_pack(c, mine, st0, r->has_counterexample ? r->cex_input : NULL, r->has_counterexample ? r->cex_output : NULL,
             r->counterexample_case);
    nnc_status st = nnc_vrfi_team_gather(c, mine, c->team->rank == 0 ? rb : 0, &all);
    free(mine);
    if (!st && c->tlens[0] != rb) st = nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_INVALID, "rank 0 sent a malformed exchange");
    if (!st) st = cex_unpack(c, all);
    free(all);
    return st;
}

/* In a team, after each rank's share of a case's samples (st its status):
 * the counts summed, and, where the report had no counterexample before the
 * samples (had = 0), the lowest rank's validated one, which is the first in
 * sample order, as one process would have kept.  Returns the first failing
 * rank's status, or the exchange's. */
nnc_status nnc_vrfi_team_samples(ctx *c, nnc_status st, int had, uint64_t *hits, uint64_t *drawn)
{
    size_t cb = cex_rec_bytes(c), rec = 2 * sizeof(uint64_t) + cb;
    unsigned char *mine = malloc(rec), *all = NULL;
    if (mine == NULL) return nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_NOMEM, "out of memory");
    nnc_vrf_report *r = c->rep;
    int found = !had && r->has_counterexample;
    uint64_t cnt[2] = {*hits, *drawn};
    memcpy(mine, cnt, sizeof cnt);
    cex_pack(c, mine + sizeof cnt, st, found ? r->cex_input : NULL, found ? r->cex_output : NULL, r->counterexample_case);
    nnc_status xs = nnc_vrfi_team_gather(c, mine, rec, &all);
    free(mine);
    if (xs) return xs;
    if (found) {
        /* ours goes back; the lowest rank's comes in below */
        free(r->cex_input);
        free(r->cex_output);
        r->cex_input = r->cex_output = NULL;
        r->has_counterexample = 0;
    }
    *hits = *drawn = 0;
    nnc_status first = NNC_STATUS_OK;
    for (int q = 0; q < c->team->size; q++) {
        if (c->tlens[q] != rec) {
            free(all);
            return nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_INVALID, "rank %d sent a malformed exchange", q);
        }
        const unsigned char *p = all + rec * (size_t)q;
        memcpy(cnt, p, sizeof cnt);
        *hits += cnt[0];
        *drawn += cnt[1];
        nnc_status sq = had ? NNC_STATUS_OK : cex_unpack(c, p + sizeof cnt);
        if (had) {
            int32_t h0;
            memcpy(&h0, p + sizeof cnt, sizeof h0);
            sq = (nnc_status)h0;
        }
        if (sq && !first) first = sq;
    }
    free(all);
    return first;
}

/* A team's batch: this rank bounds the leaves of its global workers (leaf
 * i on global worker i % G, as one process with G threads would), then the
 * ranks exchange every leaf's outcome and its bytes (a leaf's bounding
 * writes its ReLU caps into it), so that each rank holds the whole batch's
 * res[] and leaves, as one process would.  A batch of one leaf of a ReLU
 * chain (an image net's whole box) is bounded by every rank, its ReLU-split
 * search's passes split among them (nnc_bbd_opts.team), and exchanged from
 * its owner like any other; the other ranks' worker 0 keeps the counters it
 * had (as one process's other workers would). */
nnc_status nnc_vrfi_classify_team(ctx *c, int k, double *const *bx, int nb, leaf_res *res, size_t leaf_bytes)
{
    int T = c->nthreads, G = c->G, g0 = c->gbase, nl = 0;
    size_t cb = cex_rec_bytes(c), rec = sizeof(int32_t) * 3 + cb + leaf_bytes;
    int *idx = calloc((size_t)nb + 1, sizeof(int)); /* (zeroed: read only below nl) */
    unsigned char *mine = NULL, *all = NULL;
    if (idx == NULL) return nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_NOMEM, "out of memory");
    for (int i = 0; i < nb; i++) {
        res[i].cex_in = res[i].cex_out = NULL; /* (the others' until unpacked: freeable on failure) */
        if (i % G >= g0 && i % G < g0 + T) idx[nl++] = i;
    }
    int together = nb == 1 && c->bbd != NULL && c->team->size > 1;
    if (together) {
        ctx *w = &c->workers[0], keep = *w;
        w->bbd_team = c->team;
        nnc_vrfi_classify_batch(c, k, bx, nb, (int[]){0}, 1, res);
        w->bbd_team = NULL;
        if (nl == 0) { /* not the owner: its counters as they were */
            w->wleaves = keep.wleaves;
            w->s1_tries = keep.s1_tries;
            w->s1_hits = keep.s1_hits;
            w->rsp_nodes = keep.rsp_nodes;
            free(res[0].cex_in); /* (the owner's, the same, comes below) */
            free(res[0].cex_out);
            res[0].cex_in = res[0].cex_out = NULL;
        }
    } else {
        nnc_vrfi_classify_batch(c, k, bx, nb, idx, nl, res);
    }
    nnc_status st = NNC_STATUS_OK;
    unsigned char *seen = calloc((size_t)nb, 1); /* every leaf from its owner, once */
    if ((mine = malloc(rec * (size_t)nl + 1)) == NULL || seen == NULL)
        st = nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_NOMEM, "out of memory");
    for (int j = 0; j < nl && !st; j++) {
        const leaf_res *o = &res[idx[j]];
        unsigned char *p = mine + rec * (size_t)j;
        int32_t h[3] = {idx[j], (int32_t)o->kind, o->dim};
        memcpy(p, h, sizeof h);
        cex_pack(c, p + sizeof h, o->st, o->cex_in, o->cex_out, o->cex_in ? o->cex_case : 0);
        memcpy(p + sizeof h + cb, bx[idx[j]], leaf_bytes);
    }
    if (!st) st = nnc_vrfi_team_gather(c, mine, rec * (size_t)nl, &all);
    free(mine);
    size_t off = 0;
    for (int q = 0; q < c->team->size && !st; q++) {
        if (c->tlens[q] % rec != 0) {
            st = nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_INVALID, "rank %d sent a malformed exchange", q);
            break;
        }
        for (size_t j = 0; j < c->tlens[q] / rec && !st; j++) {
            const unsigned char *p = all + off + rec * j;
            int32_t h[3];
            memcpy(h, p, sizeof h);
            int i = h[0];
            if (i < 0 || i >= nb || (i % G) / T != q || seen[i] || h[2] < -1 || h[2] >= c->n_in) {
                st = nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_INVALID, "rank %d sent a leaf it does not own", q);
                break;
            }
            seen[i] = 1;
            if (q == c->team->rank) continue; /* ours: res[i] and the leaf are as bounded here */
            leaf_res *o = &res[i];
            o->kind = (leaf_kind)h[1];
            o->dim = h[2];
            o->cex_in = o->cex_out = NULL;
            /* the leaf's counterexample through a scratch report */
            nnc_vrf_report *keep = c->rep, tmp;
            memset(&tmp, 0, sizeof tmp);
            c->rep = &tmp;
            o->st = cex_unpack(c, p + sizeof h);
            c->rep = keep;
            o->cex_in = tmp.cex_input;
            o->cex_out = tmp.cex_output;
            o->cex_case = tmp.counterexample_case;
            memcpy(bx[i], p + sizeof h + cb, leaf_bytes);
        }
        off += c->tlens[q];
    }
    for (int i = 0; i < nb && !st; i++)
        if (!seen[i]) st = nnc_err(c->team_err, NNC_ERRBUF_SIZE, NNC_STATUS_INVALID, "rank %d left leaf %d out", (i % G) / T, i);
    free(seen);
    free(all);
    free(idx);
    return st;
}
