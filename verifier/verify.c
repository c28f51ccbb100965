/* Branch and bound over the input box, then exact-confidence sampling of the
 * open leaves (see verifier.h for the method and its guarantees). */
#include "verifier/verify_impl.h"

void nnc_vrf_opts_default(nnc_vrf_opts *o)
{
    memset(o, 0, sizeof *o);
    o->samples = 10000;
    o->confidence = 0.999;
    o->timeout_s = 60;
    o->seed = 1;
    o->max_violation = -1;
    o->max_leaves = 200000;
    o->crown = 1;
    o->split = 1;
    o->alpha_iters = NNC_VRF_AUTO;
    o->relu_split = NNC_VRF_AUTO;
    o->relu_split_batch = NNC_VRF_AUTO;
    o->symbolic = NNC_VRF_SYMBOLIC_AUTO;
    o->split_lookahead = NNC_VRF_AUTO;
    o->exact = NNC_VRF_AUTO;
}

/* Exact volume of box relative to the root box, added to acc. */
static void add_volume(mpq_t acc, const double *box, const double *root, int n)
{
    mpq_t v, a, b;
    mpq_inits(v, a, b, NULL);
    mpq_set_ui(v, 1, 1);
    for (int i = 0; i < n; i++) {
        if (box[i] == root[i] && box[n + i] == root[n + i]) continue;
        /* widths as exact rationals: hi - lo computed exactly */
        mpq_set_d(a, box[n + i]);
        mpq_set_d(b, box[i]);
        mpq_sub(a, a, b);
        mpq_set_d(b, root[n + i]);
        mpq_t c0;
        mpq_init(c0);
        mpq_set_d(c0, root[i]);
        mpq_sub(b, b, c0);
        mpq_clear(c0);
        if (mpq_sgn(b) == 0) continue; /* degenerate dimension: not split */
        mpq_div(a, a, b);
        mpq_mul(v, v, a);
    }
    mpq_add(acc, acc, v);
    mpq_clears(v, a, b, NULL);
}

/* q as a double rounded in direction rnd (through 64 bits, both roundings
 * the same way, so the result is on the rnd side of q). */
static double mpq_round(const mpq_t q, mpfr_rnd_t rnd)
{
    mpfr_t f;
    mpfr_init2(f, 64);
    mpfr_set_q(f, q, rnd);
    double d = mpfr_get_d(f, rnd);
    mpfr_clear(f);
    return d;
}

static double mpq_down(const mpq_t q) { return mpq_round(q, MPFR_RNDD); }

static double mpq_up(const mpq_t q) { return mpq_round(q, MPFR_RNDU); }

static void leaf_list_free(leaf_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/* One case: branch and bound, then sampling.  Adds exact volumes (relative
 * to this case's box) to safe/unsafe/open, and returns the sampling outcome.
 * seed: NULL, or the open leaves of an earlier run_case on this case (taken
 * over, emptied): the queue starts from them instead of the whole box, and
 * the random falsification (its points are the earlier run's) is skipped.
 * frontier: NULL, or where the open leaves are handed over instead of being
 * sampled and freed (their volume is still added to open); the earlier run
 * of a seeded one.  own_leaves: > 0, the run stops splitting after that many
 * leaves (c->rep->leaves counted from its start). */
static nnc_status run_case(ctx *c, int k, double bb_deadline, uint64_t samples, leaf_list *seed, leaf_list *frontier,
                           uint64_t own_leaves, mpq_t safe, mpq_t unsafe, mpq_t open, uint64_t *hits, uint64_t *drawn)
{
    int n = c->n_in;
    const double *lo = c->o->box_lo ? c->o->box_lo : nnc_spc_case_lo(c->s, k);
    const double *hi = c->o->box_hi ? c->o->box_hi : nnc_spc_case_hi(c->s, k);
    size_t leaf_bytes = sizeof(double) * (size_t)(2 * n + (c->ncap > 0 ? 2 * c->ncap + 1 : 0));
    double *root = malloc(leaf_bytes);
    if (root == NULL) return NNC_STATUS_NOMEM;
    memcpy(root, lo, sizeof(double) * (size_t)n);
    memcpy(root + n, hi, sizeof(double) * (size_t)n);
    if (c->ncap > 0) root[2 * n + 2 * c->ncap] = 0; /* no caps yet */
    /* objectives of this case */
    int nd = nnc_spc_case_num_disjuncts(c->s, k), R = 0;
    for (int j = 0; j < nd; j++) R += nnc_spc_disjunct_size(c->s, k, j);
    c->ndisj = nd;
    c->nrows = R;
    c->C = calloc((size_t)(R ? R : 1) * (size_t)c->n_out, sizeof(double));
    c->d = malloc(sizeof(double) * (size_t)(R ? R : 1));
    c->dstart = malloc(sizeof(int) * (size_t)(nd + 1));
    if (!c->C || !c->d || !c->dstart) {
        free(root);
        return NNC_STATUS_NOMEM;
    }
    int r = 0;
    for (int j = 0; j < nd; j++) {
        c->dstart[j] = r;
        for (int i = 0; i < nnc_spc_disjunct_size(c->s, k, j); i++, r++) {
            nnc_spc_lin l;
            nnc_spc_disjunct_con(c->s, k, j, i, &l);
            nnc_spc_lin_dense(&l, c->C + (size_t)r * (size_t)c->n_out, c->n_out);
            c->d[r] = l.rhs;
        }
    }
    c->dstart[nd] = r;
    uint64_t leaves0 = c->rep->leaves;

    /* falsification: random points of the box (a Philox stream of its own,
     * disjoint from the estimate's) so that violated instances are found
     * before branch and bound spends its budget */
    if (seed == NULL) {
        /* verdicts as in the sampling stage (sample.c): the float64 runtime's */
        int B = NNC_VRF_EVAL_BATCH;
        double *xs = malloc(sizeof(double) * (size_t)B * (size_t)n);
        unsigned char *hit = malloc((size_t)B);
        char err[NNC_ERRBUF_SIZE];
        double *root_leaf[1] = {root}, one = 1;
        nnc_smp_case fc = {0, 0, root_leaf, &one, 1, 1, root, root + n, c->nrows, c->ndisj, c->C, c->d, c->dstart};
        int ok = xs && hit && nnc_smp_case_begin(c->smp, &fc, err, sizeof err) == NNC_STATUS_OK;
        for (int round = 0; ok && round < 4 && !c->rep->has_counterexample; round++) {
            nnc_smp_box_points(xs, B, n, c->o->seed ^ 0x5eed5eed5eedULL, ((uint64_t)(k + 1) << 48) + (uint64_t)(round * B), lo, hi);
            if (nnc_smp_decide(c->smp, B, xs, hit, err, sizeof err)) break;
            for (int sidx = 0; sidx < B && !c->rep->has_counterexample; sidx++)
                if (hit[sidx]) nnc_vrfi_try_candidate(c, k, xs + (size_t)sidx * (size_t)n);
        }
        free(xs);
        free(hit);
    }
    /* then projected gradient descent on the margin of each disjunct, from
     * the centre, corners and random points of the box (once per case) */
    if (!c->atk_done && !c->rep->has_counterexample) {
        c->atk_done = 1;
        double now = vnow(c);
        nnc_vrfi_report_progress(c, "falsification", 0, 0);
        double budget = fmin(NNC_VRF_ATTACK_TIME_SHARE * (bb_deadline - now), NNC_VRF_ATTACK_MAX_S);
        /* (the attack's own clock is the wall clock: rank 0's in a team) */
        nnc_status ast = nnc_vrfi_run_attack(c, k, root, NULL, 0, NNC_VRF_ATTACK_RESTARTS, now_s() + budget);
        if (c->team) ast = nnc_vrfi_team_from_rank0(c, ast);
        if (ast) {
            free(root);
            return ast;
        }
    }

    /* branch and bound: FIFO queue (largest leaves first) */
    size_t cap_leaves = NNC_VRF_MAX_OPEN_BYTES / leaf_bytes;
    if (cap_leaves < 16) cap_leaves = 16;
    size_t qcap = 1024, qh = 0, qt = 0;
    if (seed != NULL)
        while (qcap < seed->n + 2) qcap *= 2;
    double **q = malloc(sizeof(double *) * qcap);
    if (q == NULL) {
        free(root);
        if (seed != NULL) leaf_list_free(seed);
        return NNC_STATUS_NOMEM;
    }
    if (seed != NULL) {
        /* the earlier run's frontier, in its queue order (largest first) */
        for (size_t i = 0; i < seed->n; i++) q[qt++] = seed->v[i];
        free(seed->v);
        seed->v = NULL;
        seed->n = 0;
    } else {
        q[qt++] = root;
    }
    nnc_status st = NNC_STATUS_OK;
    double **open_leaves = NULL;
    size_t nopen = 0, open_cap = 0;
    uint64_t processed = 0;
    double batch_s = 0; /* the last batch's wall time */
    int bmax = NNC_VRF_BATCH_PER_THREAD * c->G;
    double **bx = malloc(sizeof(double *) * (size_t)bmax);
    leaf_res *res = malloc(sizeof(leaf_res) * (size_t)bmax);
    if (!bx || !res) st = NNC_STATUS_NOMEM;
    while (qh < qt && !st) {
        /* a batch from the head of the queue: the leaves the serial loop
         * would bound next, in the same order */
        int nb = (int)(qt - qh < (size_t)bmax ? qt - qh : (size_t)bmax);
        for (int i = 0; i < nb; i++) bx[i] = q[qh++];
        /* a batch the last one's time says would end past the deadline is
         * not begun (its leaves stay open): on wide nets a leaf's bounds
         * take seconds before any deadline is checked (resnet_4b: batches
         * begun just before it ended runs 6-14 s late) */
        double tb = vnow(c);
        int past0 = tb > bb_deadline || (processed > 0 && tb + batch_s > bb_deadline) ||
                    (c->o->stop_on_counterexample && c->rep->has_counterexample);
        int bounded = !(past0 && processed > 0);
        if (bounded) {
            if (c->team) {
                if ((st = nnc_vrfi_classify_team(c, k, bx, nb, res, leaf_bytes))) {
                    for (int j = 0; j < nb; j++) {
                        free(res[j].cex_in);
                        free(res[j].cex_out);
                        if (bx[j] != root) free(bx[j]);
                    }
                    break;
                }
            } else {
                nnc_vrfi_classify_batch(c, k, bx, nb, NULL, nb, res);
            }
            batch_s = vnow(c) - tb;
        }
        /* merge in batch order */
        int i;
        for (i = 0; i < nb; i++) {
            double *box = bx[i];
            int past = past0 || (c->o->stop_on_counterexample && c->rep->has_counterexample);
            int stop = !c->o->split || past || c->rep->leaves >= c->o->max_leaves || (qt - qh) + nopen + 2 > cap_leaves ||
                       (own_leaves > 0 && c->rep->leaves - leaves0 >= own_leaves);
            leaf_kind kind = LEAF_OPEN;
            int dim = -1;
            if (bounded) {
                if (res[i].cex_in != NULL && !c->rep->has_counterexample) {
                    nnc_vrf_report *r = c->rep;
                    r->has_counterexample = 1;
                    r->counterexample_case = res[i].cex_case;
                    r->cex_input = res[i].cex_in;
                    r->cex_output = res[i].cex_out;
                    res[i].cex_in = res[i].cex_out = NULL;
                }
                free(res[i].cex_in);
                free(res[i].cex_out);
                if (res[i].st) {
                    st = res[i].st;
                    break;
                }
                if (!(past && processed > 0)) { /* out of time: left open, unbounded */
                    kind = res[i].kind;
                    dim = res[i].dim;
                }
            }
            c->rep->leaves++;
            processed++;
            if (kind == LEAF_SAFE || kind == LEAF_UNSAFE) {
                add_volume(kind == LEAF_SAFE ? safe : unsafe, box, root, n);
                if (kind == LEAF_SAFE) c->rep->leaves_safe++;
                else c->rep->leaves_unsafe++;
                if (box != root) free(box);
            } else if (stop || dim < 0) {
                if (nopen == open_cap) {
                    open_cap = open_cap ? 2 * open_cap : 256;
                    double **no = realloc(open_leaves, sizeof(double *) * open_cap);
                    if (no == NULL) {
                        st = NNC_STATUS_NOMEM;
                        break;
                    }
                    open_leaves = no;
                }
                open_leaves[nopen++] = box;
            } else {
                double *a = malloc(leaf_bytes), *b2 = malloc(leaf_bytes);
                if (qt + 2 > qcap) {
                    /* compact the consumed prefix, then grow */
                    memmove(q, q + qh, sizeof(double *) * (qt - qh));
                    qt -= qh;
                    qh = 0;
                    if (qt + 2 > qcap) {
                        qcap *= 2;
                        double **nq = realloc(q, sizeof(double *) * qcap);
                        if (nq == NULL) st = NNC_STATUS_NOMEM;
                        else q = nq;
                    }
                }
                if (!a || !b2 || st) {
                    free(a);
                    free(b2);
                    st = NNC_STATUS_NOMEM;
                    break;
                }
                memcpy(a, box, leaf_bytes);
                memcpy(b2, box, leaf_bytes);
                double mid = 0.5 * box[dim] + 0.5 * box[n + dim];
                a[n + dim] = mid;
                b2[dim] = mid;
                q[qt++] = a;
                q[qt++] = b2;
                if (box != root) free(box);
            }
            if (c->prog && c->o->progress && now_s() - c->prog->last >= NNC_VRF_PROGRESS_S) {
                mpq_t tot;
                mpq_init(tot);
                mpq_add(tot, safe, unsafe);
                c->prog->leaves = c->rep->leaves;
                c->prog->open = (uint64_t)(qt - qh + nopen);
                c->prog->cert = mpq_get_d(tot);
                mpq_clear(tot);
                nnc_vrfi_report_progress(c, "bounds", 0, 0);
            }
        }
        if (st) {
            /* the batch's unmerged leaves (and their counterexamples) */
            for (int j = i; j < nb; j++) {
                if (bounded && j > i) {
                    free(res[j].cex_in);
                    free(res[j].cex_out);
                }
                if (bx[j] != root) free(bx[j]);
            }
        }
    }
    free(bx);
    free(res);
    /* whatever is left in the queue is open (stopped by an error) */
    for (size_t i = qh; i < qt; i++)
        if (q[i] != root) free(q[i]);
    free(q);
    if (st) {
        for (size_t i = 0; i < nopen; i++)
            if (open_leaves[i] != root) free(open_leaves[i]);
        free(open_leaves);
        free(root);
        return st;
    }
    c->rep->leaves_open += nopen;
    if (frontier != NULL) {
        /* handed over: their volume counted, no sampling */
        for (size_t i = 0; i < nopen; i++) {
            add_volume(open, open_leaves[i], root, n);
            if (open_leaves[i] == root) root = NULL; /* now the frontier's */
        }
        frontier->v = open_leaves;
        frontier->n = nopen;
        *hits = *drawn = 0;
        free(root);
        free(c->C); free(c->d); free(c->dstart);
        c->C = NULL; c->d = NULL; c->dstart = NULL;
        return NNC_STATUS_OK;
    }
    /* open volume, exact, and per-leaf sampling weights */
    double *cum = malloc(sizeof(double) * (nopen + 1));
    if (cum == NULL && nopen) st = NNC_STATUS_NOMEM;
    double tw = 0;
    for (size_t i = 0; i < nopen && !st; i++) {
        mpq_t v;
        mpq_init(v);
        add_volume(v, open_leaves[i], root, n);
        mpq_add(open, open, v);
        tw += mpq_get_d(v);
        cum[i] = tw;
        mpq_clear(v);
    }
    /* sampling: uniform over the union of open leaves */
    *hits = 0;
    *drawn = 0;
    if (!st && nopen && samples) {
        /* Each sample is decided by the float64 runtime at the sampled
         * (double) point: the verdict differs from exact arithmetic only for
         * points within float64 rounding of the unsafe set's boundary.  The
         * sampler (sample.c) decides most of them with a faster evaluator
         * whose error bound provably leaves that verdict unchanged. */
        nnc_smp_case sc = {c->o->seed, (uint64_t)k << 40, open_leaves, cum, nopen, tw, root, root + n,
                           c->nrows, c->ndisj, c->C, c->d, c->dstart};
        int B = nnc_smp_batch_max(c->smp);
        double *xs = malloc(sizeof(double) * (size_t)B * (size_t)n);
        unsigned char *hit = malloc((size_t)B);
        char err[NNC_ERRBUF_SIZE];
        /* in a team, this rank draws samples [s_lo, s_hi) (nnc_team_share) */
        uint64_t s_lo = 0, s_hi = samples;
        int had = c->rep->has_counterexample;
        if (c->team) nnc_team_share(c->team, samples, &s_lo, &s_hi);
        if (!xs || !hit) st = NNC_STATUS_NOMEM;
        else if (nnc_smp_case_begin(c->smp, &sc, err, sizeof err)) st = NNC_STATUS_INVALID;
        for (uint64_t s0 = s_lo; s0 < s_hi && !st; s0 += (uint64_t)B) {
            /* sample number s0+s of case k: Philox subsequence (k << 40) + s0 + s */
            int cnt = (int)(s_hi - s0 < (uint64_t)B ? s_hi - s0 : (uint64_t)B);
            if (nnc_smp_batch(c->smp, s0, cnt, xs, hit, err, sizeof err)) {
                st = NNC_STATUS_INVALID;
                break;
            }
            for (int s = 0; s < cnt; s++) {
                if (hit[s]) {
                    (*hits)++;
                    if (!c->rep->has_counterexample) nnc_vrfi_try_candidate(c, k, xs + (size_t)s * (size_t)n);
                }
            }
            *drawn += (uint64_t)cnt;
            if (c->prog) {
                c->prog->leaves = c->rep->leaves;
                c->prog->open = nopen;
            }
            nnc_vrfi_report_progress(c, "sampling", *drawn, s_hi - s_lo);
        }
        free(xs);
        free(hit);
        if (c->team) st = nnc_vrfi_team_samples(c, st, had, hits, drawn);
    }
    free(cum);
    for (size_t i = 0; i < nopen; i++)
        if (open_leaves[i] != root) free(open_leaves[i]);
    free(open_leaves);
    free(root);
    free(c->C); free(c->d); free(c->dstart);
    c->C = NULL; c->d = NULL; c->dstart = NULL;
    return st;
}

static void workers_destroy(ctx *c)
{
    for (int t = 1; c->workers && t < c->nthreads; t++) {
        ctx *w = &c->workers[t];
        nnc_bnd_destroy(w->bnd);
        nnc_sfw_destroy(w->sfw);
        nnc_xct_destroy(w->xct);
        nnc_rt_destroy(w->rt64);
        nnc_rt_destroy(w->rt32);
        free(w->cx); free(w->cy); free(w->cy2); free(w->fx); free(w->fy); free(w->cap_tmp);
    }
    free(c->workers);
    free(c->all_bnd);
    c->workers = NULL;
    c->all_bnd = NULL;
}

/* nthreads workers for the leaves: copies of c; worker 0 borrows c's bound
 * contexts, runtimes and scratch, the others get their own. */
static nnc_status workers_create(ctx *c, int nthreads, char *err, size_t errlen)
{
    c->nthreads = nthreads;
    c->workers = calloc((size_t)nthreads, sizeof(ctx));
    if (c->workers == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int t = 0; t < nthreads; t++) {
        ctx *w = &c->workers[t];
        *w = *c;
        w->workers = NULL;
        w->atk = NULL;
        w->smp = NULL;
        w->rt64b = NULL;
        w->o = c->o;
        w->rep = &w->wrep;
        w->team = NULL; /* the exchanges are the calling thread's */
        memset(&w->wrep, 0, sizeof w->wrep);
        if (t == 0) continue;
        w->bnd = NULL;
        w->sfw = NULL;
        w->xct = NULL;
        w->rt64 = w->rt32 = NULL;
        w->cx = w->cy = w->cy2 = w->cap_tmp = NULL;
        w->fx = w->fy = NULL;
    }
    /* (only now: a failure leaves every pointer owned once) */
    nnc_status st = NNC_STATUS_OK;
    for (int t = 1; t < nthreads && !st; t++) {
        ctx *w = &c->workers[t];
        if ((st = nnc_bnd_create(&w->bnd, c->m, err, errlen))) break;
        if (c->sfw) {
            char serr[NNC_ERRBUF_SIZE];
            if ((st = nnc_sfw_create(&w->sfw, c->m, serr, sizeof serr))) st = nnc_err(err, errlen, st, "%s", serr);
            if (st) break;
        }
        if (c->xct) {
            char serr[NNC_ERRBUF_SIZE];
            if ((st = nnc_xct_create(&w->xct, c->m, serr, sizeof serr))) st = nnc_err(err, errlen, st, "%s", serr);
            if (st) break;
        }
        if ((st = nnc_rt_create(&w->rt64, c->m, NNC_PRECISION_F64, 1, err, errlen))) break;
        if ((st = nnc_rt_create(&w->rt32, c->m, NNC_PRECISION_F32, 1, err, errlen))) break;
        w->cx = malloc(sizeof(double) * (size_t)c->n_in + 8);
        w->cy = malloc(sizeof(double) * (size_t)c->n_out + 8);
        w->cy2 = malloc(sizeof(double) * (size_t)c->n_out + 8);
        w->fx = malloc(sizeof(float) * (size_t)c->n_in + 8);
        w->fy = malloc(sizeof(float) * (size_t)c->n_out + 8);
        w->cap_tmp = malloc(sizeof(double) * 2 * (size_t)c->ncap + 8);
        if (!w->cx || !w->cy || !w->cy2 || !w->fx || !w->fy || !w->cap_tmp) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    if (!st && (c->all_bnd = malloc(sizeof(nnc_bnd *) * (size_t)nthreads)) == NULL)
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int t = 0; !st && t < nthreads; t++) c->all_bnd[t] = c->workers[t].bnd;
    if (st) workers_destroy(c);
    return st;
}

nnc_status nnc_vrf_run(const nnc_model *m, const nnc_spec *spec, const nnc_vrf_opts *opts, nnc_vrf_report *rep,
                       char *err, size_t errlen)
{
    nnc_vrf_opts def;
    if (opts == NULL) {
        nnc_vrf_opts_default(&def);
        opts = &def;
    }
    memset(rep, 0, sizeof *rep);
    if (!(opts->confidence > 0 && opts->confidence < 1)) return nnc_err(err, errlen, NNC_STATUS_ARG, "confidence must be in (0, 1)");
    if (!(opts->timeout_s >= 0)) return nnc_err(err, errlen, NNC_STATUS_ARG, "timeout must be non-negative");
    if (opts->relu_split_batch < -1 || opts->relu_split_batch > NNC_VRF_RELU_SPLIT_BATCH_MAX)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "relu_split_batch must be -1 or in [0, %d]", NNC_VRF_RELU_SPLIT_BATCH_MAX);
    if (opts->relu_split < NNC_VRF_AUTO || opts->relu_split > NNC_VRF_ON || opts->exact < NNC_VRF_AUTO ||
        opts->exact > NNC_VRF_ON)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "relu_split and exact must be NNC_VRF_AUTO, NNC_VRF_OFF or NNC_VRF_ON");
    if (opts->symbolic < NNC_VRF_SYMBOLIC_AUTO || opts->symbolic > NNC_VRF_SYMBOLIC_OWN)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "symbolic must be one of the nnc_vrf_symbolic values");
    if (opts->team && (opts->team->size < 1 || opts->team->rank < 0 || opts->team->rank >= opts->team->size ||
                       opts->team->allgather == NULL))
        return nnc_err(err, errlen, NNC_STATUS_ARG, "bad team (rank %d of %d)", opts->team->rank, opts->team->size);
    if ((opts->box_lo != NULL) != (opts->box_hi != NULL) || (opts->box_lo && nnc_spc_num_cases(spec) != 1))
        return nnc_err(err, errlen, NNC_STATUS_ARG, "a replacement box needs both bounds and a spec with one case");
    if (opts->box_lo)
        for (int i = 0; i < nnc_spc_num_inputs(spec); i++)
            if (!(opts->box_lo[i] <= opts->box_hi[i]) || !isfinite(opts->box_lo[i]) || !isfinite(opts->box_hi[i]))
                return nnc_err(err, errlen, NNC_STATUS_ARG, "replacement box: bad bounds for input %d", i);
    double t0 = now_s();
    /* OpenBLAS's own threads only for a single worker of a single process:
     * with several, each calls it at once, and its threads on top of ours
     * oversubscribe the cores (on 2 cores, 2 workers bounded half as many
     * ReLU-split sub-problems with OpenBLAS on 2 threads as on 1); a team's
     * ranks share their nodes' cores the same way */
    int blas_threads = openblas_get_num_threads();
    int workers = opts->threads > 0 ? opts->threads : NNC_VRF_THREADS_DEFAULT;
    if (workers > 1 || (opts->team && opts->team->size > 1)) openblas_set_num_threads(1);
    progress prog = {NULL, NULL, 0, 0, 0, -INFINITY, pthread_self()};
    ctx c;
    memset(&c, 0, sizeof c);
    char gpu_err[NNC_ERRBUF_SIZE] = "", team_err[NNC_ERRBUF_SIZE] = "";
    c.gpu_err = gpu_err;
    c.team_err = team_err;
    c.team = opts->team;
    rep->ranks = c.team ? c.team->size : 1;
    c.m = m;
    c.s = spec;
    c.o = opts;
    c.rep = rep;
    c.prog = &prog;
    c.t0 = t0;
    nnc_status st = nnc_bnd_create(&c.bnd, m, err, errlen);
    if (st) {
        openblas_set_num_threads(blas_threads);
        return st;
    }
    c.n_in = (int)nnc_bnd_num_inputs(c.bnd);
    c.n_out = (int)nnc_bnd_num_outputs(c.bnd);
    if (opts->symbolic != NNC_VRF_SYMBOLIC_OFF && opts->crown && c.n_in <= NNC_VRF_RELU_SPLIT_MIN_INPUTS) {
        /* not a dense chain (or no memory): CROWN alone, as before */
        char serr[NNC_ERRBUF_SIZE];
        if (nnc_sfw_create(&c.sfw, m, serr, sizeof serr) != NNC_STATUS_OK) c.sfw = NULL;
    }
    if (opts->crown && opts->relu_split_batch != 0 &&
        (opts->relu_split == NNC_VRF_ON || (opts->relu_split == NNC_VRF_AUTO && c.n_in > NNC_VRF_RELU_SPLIT_MIN_INPUTS))) {
        /* not a ReLU chain, plain or residual: nnc_rsp_certify's
         * sub-problem at a time */
        char serr[NNC_ERRBUF_SIZE];
        if (nnc_bbd_create(&c.bbd, m, serr, sizeof serr) != NNC_STATUS_OK) c.bbd = NULL;
        if (c.bbd && nnc_bbd_model_relu_count(c.bbd) != nnc_bnd_relu_count(c.bnd)) {
            nnc_bbd_destroy(c.bbd);
            c.bbd = NULL;
        }
    }
    if (c.sfw) {
        int64_t P = nnc_sfw_relu_count(c.sfw);
        c.ncap = P > 0 && P <= 100000 ? (int)P : 0;
        c.bnd_caps = c.ncap > 0 && nnc_bnd_relu_count(c.bnd) == P;
        char serr[NNC_ERRBUF_SIZE];
        if (c.ncap > 0 && opts->exact != NNC_VRF_OFF && nnc_xct_create(&c.xct, m, serr, sizeof serr) != NNC_STATUS_OK) c.xct = NULL;
    }
    if ((st = nnc_spc_check_model_dims(spec, c.n_in, c.n_out, err, errlen))) goto out;
    for (int k = 0; k < nnc_spc_num_cases(spec); k++)
        if (nnc_spc_case_num_input_cons(spec, k) > 0) {
            st = nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "case %d has linear input constraints beyond its box; only boxes are supported", k);
            goto out;
        }
    if ((st = nnc_rt_create(&c.rt64, m, NNC_PRECISION_F64, 1, err, errlen))) goto out;
    if ((st = nnc_rt_create(&c.rt32, m, NNC_PRECISION_F32, 1, err, errlen))) goto out;
    if ((st = nnc_rt_create(&c.rt64b, m, NNC_PRECISION_F64, NNC_VRF_EVAL_BATCH, err, errlen))) goto out;
    if ((st = nnc_smp_create(&c.smp, m, opts->device, err, errlen))) goto out;
    if (opts->device == NNC_VRF_DEVICE_GPU && c.bbd && nnc_bbd_gpu_ok(c.bbd)) {
        /* the ReLU-split search's passes on the device too (the sampler
         * has found one) */
        if ((st = nnc_bbd_gpu_create(c.bbd, &c.gbab, err, errlen))) goto out;
    }
    {
        /* a model the bound engine does not cover: no gradient falsification */
        char aerr[NNC_ERRBUF_SIZE];
        nnc_status ast = nnc_atk_create(&c.atk, m, aerr, sizeof aerr);
        if (ast == NNC_STATUS_NOMEM) {
            st = nnc_err(err, errlen, ast, "out of memory");
            goto out;
        }
        if (ast) c.atk = NULL;
    }
    rep->n_in = c.n_in;
    rep->n_out = c.n_out;
    c.cx = malloc(sizeof(double) * (size_t)c.n_in + 8);
    c.cy = malloc(sizeof(double) * (size_t)c.n_out + 8);
    c.cy2 = malloc(sizeof(double) * (size_t)c.n_out + 8);
    c.fx = malloc(sizeof(float) * (size_t)c.n_in + 8);
    c.fy = malloc(sizeof(float) * (size_t)c.n_out + 8);
    c.cap_tmp = malloc(sizeof(double) * 2 * (size_t)c.ncap + 8);
    if (!c.cx || !c.cy || !c.cy2 || !c.fx || !c.fy || !c.cap_tmp) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto out;
    }
    if ((st = workers_create(&c, workers, err, errlen))) goto out;
    c.G = workers * (c.team ? c.team->size : 1);
    c.gbase = c.team ? c.team->rank * workers : 0;
    if (c.team && (c.tlens = malloc(sizeof(size_t) * (size_t)c.team->size)) == NULL) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto out;
    }
    rep->seed = opts->seed;
    rep->confidence = opts->confidence;
    nnc_mdl_sha256(m, rep->model_sha256);
    double timeout = opts->timeout_s;
    if (c.team && (st = nnc_vrfi_team_handshake(&c, rep->model_sha256, &timeout))) {
        nnc_err(err, errlen, st, "%s", c.team_err);
        goto out;
    }
    int K = nnc_spc_num_cases(spec);
    double conf_k = 1.0 - (1.0 - opts->confidence) / K;
    /* total volume: each case's box has weight vol(box_k); fractions are
     * computed per case relative to its box, then combined by volume */
    mpq_t tot_safe, tot_unsafe, tot_open, tot_vol;
    mpq_inits(tot_safe, tot_unsafe, tot_open, tot_vol, NULL);
    /* per-case fraction bounds and volumes (volumes stay rationals: a product
     * of hundreds of widths underflows a double) */
    double *case_lo = calloc((size_t)K, sizeof(double)), *case_hi = calloc((size_t)K, sizeof(double));
    mpq_t *case_vol = malloc(sizeof(mpq_t) * (size_t)K);
    if (!case_lo || !case_hi || !case_vol) {
        free(case_lo); free(case_hi); free(case_vol);
        mpq_clears(tot_safe, tot_unsafe, tot_open, tot_vol, NULL);
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto out;
    }
    for (int k = 0; k < K; k++) mpq_init(case_vol[k]);
    int all_safe = 1;
    for (int k = 0; k < K && !st; k++) {
        mpq_t safe, unsafe, open, vk;
        mpq_inits(safe, unsafe, open, vk, NULL);
        const double *lo = opts->box_lo ? opts->box_lo : nnc_spc_case_lo(spec, k);
        const double *hi = opts->box_hi ? opts->box_hi : nnc_spc_case_hi(spec, k);
        mpq_set_ui(vk, 1, 1);
        mpq_t w, t;
        mpq_inits(w, t, NULL);
        for (int i = 0; i < c.n_in; i++) {
            mpq_set_d(w, hi[i]);
            mpq_set_d(t, lo[i]);
            mpq_sub(w, w, t);
            if (mpq_sgn(w) > 0) mpq_mul(vk, vk, w); /* degenerate dims: measure taken in the others */
        }
        mpq_clears(w, t, NULL);
        double deadline = (c.team ? 0 : t0) + timeout * (double)(k + 1) / K;
        uint64_t hits = 0, drawn = 0;
        c.atk_done = 0;
        c.atk_sub = 0;
        uint64_t ns = opts->samples / (uint64_t)K + (k == 0 ? opts->samples % (uint64_t)K : 0);
        /* phases, the last one sampling; each goes on from the previous
         * one's certified volume and open leaves (frontier), except after a
         * trial phase, which is forgotten (counters too) unless it decides
         * the case.  With the symbolic engine and auto: its own splits (see
         * leaf_bounds) until half of the case's time (or symbolic_own_leaves
         * leaves a phase), then the cascade; with the look-ahead choice auto,
         * first three trials from the root: the symbolic engine's look-ahead
         * splits until NNC_VRF_LOOKAHEAD_SHARE of the time (most cases the
         * look-ahead phase below decides close in a second from the root: at
         * 116 s, 1_4, 2_8, 3_7, 3_8, 3_9 and 4_9 prop_1 within 0.1-0.8 s of
         * its start), its plain influence-score splits until
         * NNC_VRF_PLAIN_SHARE, the cascade's until NNC_VRF_PLAIN_SHARE2 (the frontier a failed
         * heuristic leaves slows the other: 2_8 prop_1 closes in 0.4 s with
         * look-ahead from the root, not in 116 s after 11 s of plain splits;
         * 2_6 and 2_9 prop_1 the other way round; 5_8 and 3_5 prop_1 and 1_1
         * prop_5 close in 0.7 s, 5.3 s and 1.2 s with plain cascade splits from
         * the root, not in 116 s from the look-ahead frontier) */
        struct {
            int sym, plain, trial;
            double share; /* of the case's time, from its start */
        } ph[5];
        int nph = 0;
        if (c.sfw && opts->split && opts->symbolic == NNC_VRF_SYMBOLIC_OWN) {
            ph[nph].sym = 1, ph[nph].plain = 0, ph[nph].trial = 0, ph[nph++].share = 1;
        } else if (c.sfw && opts->split && opts->symbolic != NNC_VRF_SYMBOLIC_CASCADE) {
            if (opts->split_lookahead < 0) {
                ph[nph].sym = 1, ph[nph].plain = 0, ph[nph].trial = 1, ph[nph++].share = NNC_VRF_LOOKAHEAD_SHARE;
                ph[nph].sym = 1, ph[nph].plain = 1, ph[nph].trial = 1, ph[nph++].share = NNC_VRF_PLAIN_SHARE;
                ph[nph].sym = 0, ph[nph].plain = 1, ph[nph].trial = 1, ph[nph++].share = NNC_VRF_PLAIN_SHARE2;
            }
            ph[nph].sym = 1, ph[nph].plain = 0, ph[nph].trial = 0, ph[nph++].share = 0.5;
            ph[nph].sym = 0, ph[nph].plain = 0, ph[nph].trial = 0, ph[nph++].share = 1;
        } else {
            ph[nph].sym = 0, ph[nph].plain = 0, ph[nph].trial = 0, ph[nph++].share = 1;
        }
        leaf_list frontier = {NULL, 0};
        double case_t0 = vnow(&c);
        for (int p = 0; p < nph && !st; p++) {
            int last = p == nph - 1;
            uint64_t l0 = rep->leaves, ls = rep->leaves_safe, lu = rep->leaves_unsafe, lo0 = rep->leaves_open;
            c.sym_splits = ph[p].sym;
            c.plain_split = ph[p].plain;
            leaf_list seed = frontier;
            frontier.v = NULL;
            frontier.n = 0;
            st = run_case(&c, k, last ? deadline : case_t0 + ph[p].share * (deadline - case_t0), last ? ns : 0,
                          seed.n > 0 ? &seed : NULL, last ? NULL : &frontier, last ? 0 : opts->symbolic_own_leaves, safe,
                          unsafe, open, &hits, &drawn);
            leaf_list_free(&seed);
            c.sym_splits = c.plain_split = 0;
            if (st || last || mpq_sgn(open) == 0) break; /* decided: the frontier has no volume */
            mpq_set_ui(open, 0, 1);
            if (ph[p].trial) {
                leaf_list_free(&frontier);
                mpq_set_ui(safe, 0, 1);
                mpq_set_ui(unsafe, 0, 1);
                rep->leaves = l0;
                rep->leaves_safe = ls;
                rep->leaves_unsafe = lu;
                rep->leaves_open = lo0;
                continue;
            }
            /* the frontier's leaves are bounded again (and counted) by the next phase */
            rep->leaves -= frontier.n;
            rep->leaves_open -= frontier.n;
        }
        leaf_list_free(&frontier);
        if (st) {
            mpq_clears(safe, unsafe, open, vk, NULL);
            if (c.team_err[0]) nnc_err(err, errlen, st, "%s", c.team_err);
            else if (st == NNC_STATUS_NOMEM) nnc_err(err, errlen, st, "out of memory in branch and bound");
            else if (c.gpu_err[0]) nnc_err(err, errlen, st, "%s", c.gpu_err);
            else nnc_err(err, errlen, st, "bound computation failed");
            break;
        }
        rep->samples += drawn;
        rep->sample_violations += hits;
        double qlo = 0, qhi = 1;
        if (mpq_sgn(open) > 0) {
            if (drawn > 0) {
                if ((st = nnc_vrf_clopper_pearson(hits, drawn, conf_k, &qlo, &qhi, err, errlen))) {
                    mpq_clears(safe, unsafe, open, vk, NULL);
                    break;
                }
            }
            all_safe = 0;
        } else {
            qlo = qhi = 0;
        }
        if (mpq_sgn(unsafe) > 0) all_safe = 0;
        /* case fraction bounds: unsafe + open * q, outward */
        double u_lo = mpq_down(unsafe), u_hi = mpq_up(unsafe), o_hi = mpq_up(open), o_lo = mpq_down(open);
        double f_lo = u_lo + o_lo * qlo, f_hi = u_hi + o_hi * qhi;
        f_lo = f_lo - fabs(f_lo) * 4e-16;
        f_hi = f_hi + fabs(f_hi) * 4e-16;
        if (f_lo < 0) f_lo = 0;
        if (f_hi > 1) f_hi = 1;
        case_lo[k] = f_lo;
        case_hi[k] = f_hi;
        mpq_set(case_vol[k], vk);
        mpq_t sv;
        mpq_init(sv);
        mpq_mul(sv, safe, vk);
        mpq_add(tot_safe, tot_safe, sv);
        mpq_mul(sv, unsafe, vk);
        mpq_add(tot_unsafe, tot_unsafe, sv);
        mpq_mul(sv, open, vk);
        mpq_add(tot_open, tot_open, sv);
        mpq_add(tot_vol, tot_vol, vk);
        mpq_clear(sv);
        mpq_clears(safe, unsafe, open, vk, NULL);
    }
    if (!st) {
        /* volume-weighted combination, rounded outward (a few ulps of slack) */
        if (K == 1) {
            rep->violation_lo = case_lo[0];
            rep->violation_hi = case_hi[0];
        } else {
            double lo_sum = 0, hi_sum = 0;
            mpq_t w;
            mpq_init(w);
            for (int k = 0; k < K; k++) {
                if (mpq_sgn(tot_vol) > 0) mpq_div(w, case_vol[k], tot_vol);
                lo_sum += mpq_down(w) * case_lo[k];
                hi_sum += mpq_up(w) * case_hi[k];
            }
            mpq_clear(w);
            rep->violation_lo = fmax(0.0, lo_sum * (1 - 1e-14));
            rep->violation_hi = fmin(1.0, hi_sum * (1 + 1e-14));
        }
        mpq_t f;
        mpq_init(f);
        if (mpq_sgn(tot_vol) > 0) {
            mpq_div(f, tot_safe, tot_vol);
            rep->certified_safe_fraction = mpq_down(f);
            mpq_div(f, tot_unsafe, tot_vol);
            rep->certified_unsafe_fraction = mpq_down(f);
            mpq_div(f, tot_open, tot_vol);
            rep->open_fraction = mpq_up(f);
        }
        mpq_clear(f);
        if (all_safe && !rep->has_counterexample) {
            rep->result = NNC_VRF_HOLDS;
            rep->violation_lo = rep->violation_hi = 0;
        } else if (rep->has_counterexample) {
            rep->result = NNC_VRF_VIOLATED;
        } else {
            rep->result = NNC_VRF_UNKNOWN;
        }
        if (rep->has_counterexample && rep->violation_lo < 0) rep->violation_lo = 0;
        rep->max_violation_met = -1;
        if (opts->max_violation >= 0) {
            if (rep->violation_hi <= opts->max_violation) rep->max_violation_met = 1;
            else if (rep->violation_lo > opts->max_violation) rep->max_violation_met = 0;
        }
    }
    for (int k = 0; k < K; k++) mpq_clear(case_vol[k]);
    free(case_lo); free(case_hi); free(case_vol);
    mpq_clears(tot_safe, tot_unsafe, tot_open, tot_vol, NULL);
out:
    for (int t = 0; c.workers && t < c.nthreads; t++) rep->relu_split_nodes += c.workers[t].rsp_nodes;
    if (!st && c.team) {
        /* every rank's sub-problems */
        unsigned char *all = NULL;
        uint64_t mine = rep->relu_split_nodes, q64;
        if ((st = nnc_vrfi_team_gather(&c, &mine, sizeof mine, &all))) nnc_err(err, errlen, st, "%s", c.team_err);
        for (int q = 0; !st && q < c.team->size; q++) {
            if (c.tlens[q] != sizeof q64) {
                st = nnc_err(err, errlen, NNC_STATUS_INVALID, "rank %d sent a malformed exchange", q);
                break;
            }
            memcpy(&q64, all + sizeof q64 * (size_t)q, sizeof q64);
            if (q != c.team->rank) rep->relu_split_nodes += q64;
        }
        free(all);
    }
    rep->time_s = now_s() - t0;
    nnc_rt_destroy(c.rt64);
    nnc_rt_destroy(c.rt32);
    nnc_rt_destroy(c.rt64b);
    nnc_smp_destroy(c.smp);
    nnc_bnd_destroy(c.bnd);
    nnc_sfw_destroy(c.sfw);
    nnc_gpu_bab_destroy(c.gbab);
    nnc_bbd_destroy(c.bbd);
    nnc_xct_destroy(c.xct);
    nnc_atk_destroy(c.atk);
    workers_destroy(&c);
    openblas_set_num_threads(blas_threads);
    free(c.cx); free(c.cy); free(c.cy2); free(c.fx); free(c.fy); free(c.cap_tmp);
    free(c.tlens);
    if (st) nnc_vrf_report_clear(rep);
    return st;
}
