/* Execution of an embedding placement (dist/dlrm.h): every device holds only
 * its shards; requesters send ids to the devices serving them and receive
 * rows back; bags are pooled by the requester in id order.  The same per-
 * device steps run with simulated devices (nnc_dlrm_exec_sim, buffers moved
 * in memory) or one MPI rank per device (nnc_dlrm_exec_mpi, MPI_Alltoallv),
 * and both count what they read and move.  gpu/dlrm_nccl.cu drives one GPU
 * per device with the same routing, serving and pooling (dist/dlrm_impl.h). */
#include "dist/dlrm.h"
#include "dist/dlrm_impl.h"
#include "dist/dlrm_math.h"

#include <stdlib.h>
#include <string.h>
#ifdef NNC_HAVE_MPI
#include <mpi.h>
#endif

void nnc_dlrm_store_free(nnc_dlrm_store *s)
{
    for (int t = 0; t < s->n_tables; t++) {
        if (s->rows) free(s->rows[t]);
        if (s->local) free(s->local[t]);
    }
    free(s->rows);
    free(s->local);
    free(s->width);
    free(s->c0);
    memset(s, 0, sizeof *s);
}

int nnc_dlrm_store_build(nnc_dlrm_store *s, const nnc_dlrm_plan *p, int k, const double *const *weights)
{
    int T = p->n_tables;
    memset(s, 0, sizeof *s);
    s->n_tables = T;
    s->rows = calloc((size_t)T + 1, sizeof *s->rows);
    s->local = calloc((size_t)T + 1, sizeof *s->local);
    s->width = calloc((size_t)T + 1, sizeof *s->width);
    s->c0 = calloc((size_t)T + 1, sizeof *s->c0);
    if (!s->rows || !s->local || !s->width || !s->c0) return -1;
    for (int t = 0; t < T; t++) {
        int64_t rows = p->tables[t].rows, dim = p->tables[t].dim, held = 0, c0 = 0, c1 = dim;
        if (p->kind[t] == NNC_DLRM_SHARD_COLUMN) nnc_dlrm_slice(dim, p->devices, k, &c0, &c1);
        int all = p->kind[t] == NNC_DLRM_SHARD_COLUMN || p->kind[t] == NNC_DLRM_SHARD_REPLICATED;
        if (!all) {
            s->local[t] = malloc((size_t)(rows + 1) * sizeof(int64_t));
            if (s->local[t] == NULL) return -1;
            for (int64_t r = 0; r < rows; r++) {
                int d = nnc_dlrm_row_device(p, t, r);
                s->local[t][r] = (d == k || d < 0) ? held++ : -1;
            }
        } else {
            held = rows;
        }
        s->width[t] = c1 - c0;
        s->c0[t] = c0;
        s->rows[t] = malloc((size_t)(held * (c1 - c0) + 1) * sizeof(float));
        if (s->rows[t] == NULL) return -1;
        for (int64_t r = 0; r < rows; r++) {
            int64_t i = all ? r : s->local[t][r];
            if (i < 0) continue;
            for (int64_t c = c0; c < c1; c++) s->rows[t][i * (c1 - c0) + (c - c0)] = (float)weights[t][r * dim + c];
        }
        s->mem += held * (c1 - c0) * 4;
    }
    return 0;
}


int nnc_dlrm_req_push(nnc_dlrm_reqs *q, int64_t id, int64_t slot)
{
    if (q->n == q->cap) {
        int64_t nc = q->cap ? 2 * q->cap : 64;
        int64_t *a = realloc(q->ids, (size_t)nc * sizeof *a), *b;
        if (a == NULL) return -1;
        q->ids = a;
        b = realloc(q->slot, (size_t)nc * sizeof *b);
        if (b == NULL) return -1;
        q->slot = b;
        q->cap = nc;
    }
    q->ids[q->n] = id;
    q->slot[q->n++] = slot;
    return 0;
}

/* Serve ids from store s into out (n * width floats); counts the reads.
 * Returns: -1 when a row is not held (an inconsistent plan). */
int nnc_dlrm_serve(float *out, const nnc_dlrm_store *s, int t, const int64_t *ids, int64_t n, nnc_dlrm_cost *c, int k)
{
    int64_t w = s->width[t];
    for (int64_t i = 0; i < n; i++) {
        if (nnc_dlrm_held_index(s->local[t], ids[i]) < 0) return -1;
        for (int64_t c = 0; c < w; c++) out[i * w + c] = nnc_dlrm_gathered(s->rows[t], s->local[t], w, ids[i], c);
    }
    c->lookups[k] += n;
    c->read_bytes[k] += n * w * 4;
    return 0;
}

/* Requester o, table t: route its block's lookups.  Local pieces are served
 * at once into asm_rows (P * dim floats) unless queue_local (then they go to
 * q[o] like the others); remote ones go to q[k]. */
int nnc_dlrm_route(float *asm_rows, nnc_dlrm_reqs *q, const nnc_dlrm_store *own, const nnc_dlrm_plan *p, const nnc_trace *tr,
                   int t, int o, int64_t s0, int64_t s1, nnc_dlrm_cost *c, int queue_local)
{
    int T = tr->n_tables, D = p->devices;
    int64_t dim = p->tables[t].dim, P = 0;
    for (int64_t smp = s0; smp < s1; smp++) {
        int64_t b = smp * T + t;
        for (int64_t i = tr->offsets[b]; i < tr->offsets[b + 1]; i++, P++) {
            int64_t r = tr->ids[i];
            int lo = 0, hi = D; /* COLUMN: every device with a slice */
            if (p->kind[t] != NNC_DLRM_SHARD_COLUMN) {
                int d = nnc_dlrm_row_device(p, t, r);
                lo = d < 0 ? o : d;
                hi = lo + 1;
            }
            for (int k = lo; k < hi; k++) {
                int64_t c0, c1;
                if (p->kind[t] == NNC_DLRM_SHARD_COLUMN) {
                    nnc_dlrm_slice(dim, D, k, &c0, &c1);
                    if (c1 == c0) continue;
                }
                if (k == o && !queue_local) {
                    if (nnc_dlrm_serve(asm_rows + P * dim + own->c0[t], own, t, &r, 1, c, o)) return -1;
                } else if (nnc_dlrm_req_push(&q[k], r, P)) {
                    return -2;
                }
            }
        }
    }
    return 0;
}

/* Pool device o's bags of table t from the assembled rows (P * dim, in
 * lookup order) into pooled[(s - 0) * dsum + off + j]. */
nnc_status nnc_dlrm_pool(float *pooled, const float *asm_rows, int64_t P, const nnc_trace *tr, int t, int64_t s0, int64_t s1,
                       int64_t dim, int64_t dsum, int64_t off, nnc_embbag_mode mode, char *err, size_t errlen)
{
    int64_t nb = s1 - s0, T = tr->n_tables;
    int64_t *ids = malloc((size_t)(P + 1) * sizeof *ids), *offs = malloc((size_t)(nb + 1) * sizeof *offs);
    float *out = malloc((size_t)(nb * dim + 1) * sizeof *out);
    nnc_status st = NNC_STATUS_OK;
    if (!ids || !offs || !out) {
        st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    for (int64_t i = 0; i < P; i++) ids[i] = i;
    int64_t acc = 0;
    for (int64_t smp = s0; smp < s1; smp++) {
        int64_t b = smp * T + t;
        offs[smp - s0] = acc;
        acc += tr->offsets[b + 1] - tr->offsets[b];
    }
    nnc_embbag_bags bags = {ids, P, offs, nb, 0};
    st = nnc_mdl_embbag_f32(out, asm_rows, P, dim, &bags, mode, 1, 1, err, errlen);
    if (!st)
        for (int64_t smp = s0; smp < s1; smp++) memcpy(pooled + smp * dsum + off, out + (smp - s0) * dim, (size_t)dim * sizeof(float));
done:
    free(ids);
    free(offs);
    free(out);
    return st;
}

int64_t nnc_dlrm_block_lookups(const nnc_trace *tr, int t, int64_t s0, int64_t s1)
{
    int64_t P = 0, T = tr->n_tables;
    for (int64_t smp = s0; smp < s1; smp++) P += tr->offsets[smp * T + t + 1] - tr->offsets[smp * T + t];
    return P;
}

nnc_status nnc_dlrm_check_inputs(const nnc_dlrm_plan *p, const nnc_trace *tr, char *err, size_t errlen)
{
    if (tr->n_tables != p->n_tables)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "the trace has %d categorical fields, the plan %d tables", tr->n_tables, p->n_tables);
    if (tr->n_samples < p->devices)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "the trace has fewer samples than devices");
    for (int64_t b = 0; b < tr->n_samples * tr->n_tables; b++) {
        int t = (int)(b % tr->n_tables);
        for (int64_t i = tr->offsets[b]; i < tr->offsets[b + 1]; i++)
            if (tr->ids[i] < 0 || tr->ids[i] >= p->tables[t].rows)
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "trace sample %lld: id %lld is outside table %d's %lld rows",
                               (long long)(b / tr->n_tables) + 1, (long long)tr->ids[i], t, (long long)p->tables[t].rows);
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_dlrm_exec_sim(float *pooled, nnc_dlrm_cost *c, const nnc_dlrm_plan *p, const nnc_trace *tr,
                             const double *const *weights, const nnc_embbag_mode *modes, const nnc_dlrm_opts *o,
                             char *err, size_t errlen)
{
    nnc_status st = nnc_dlrm_check_inputs(p, tr, err, errlen);
    if (st) return st;
    int D = p->devices, T = p->n_tables;
    memset(c, 0, sizeof *c);
    c->devices = D;
    nnc_dlrm_store *ds = calloc((size_t)D, sizeof *ds);
    nnc_dlrm_reqs *q = calloc((size_t)D * (size_t)D, sizeof *q);          /* q[o * D + k] */
    float **asm_rows = calloc((size_t)D, sizeof *asm_rows);
    int64_t dsum = 0;
    for (int t = 0; t < T; t++) dsum += p->tables[t].dim;
    if (!ds || !q || !asm_rows) goto nomem;
    for (int k = 0; k < D; k++) {
        if (nnc_dlrm_store_build(&ds[k], p, k, weights)) goto nomem;
        c->mem_bytes[k] = ds[k].mem;
    }
    int64_t off = 0;
    for (int t = 0; t < T; t++) {
        int64_t dim = p->tables[t].dim;
        for (int oo = 0; oo < D; oo++) {
            int64_t s0 = tr->n_samples * oo / D, s1 = tr->n_samples * (oo + 1) / D;
            int64_t P = nnc_dlrm_block_lookups(tr, t, s0, s1);
            free(asm_rows[oo]);
            asm_rows[oo] = malloc((size_t)(P * dim + 1) * sizeof(float));
            if (asm_rows[oo] == NULL) goto nomem;
            for (int k = 0; k < D; k++) q[oo * D + k].n = 0;
            int rc = nnc_dlrm_route(asm_rows[oo], &q[oo * D], &ds[oo], p, tr, t, oo, s0, s1, c, 0);
            if (rc == -2) goto nomem;
            if (rc) {
                st = nnc_err(err, errlen, NNC_STATUS_INVALID, "plan: device %d lacks a row it should hold", oo);
                goto done;
            }
        }
        /* the exchange: ids o -> k, rows k -> o */
        for (int oo = 0; oo < D; oo++)
            for (int k = 0; k < D; k++) {
                nnc_dlrm_reqs *r = &q[oo * D + k];
                if (r->n == 0) continue;
                int64_t w = ds[k].width[t];
                float *reply = malloc((size_t)(r->n * w + 1) * sizeof(float));
                if (reply == NULL) goto nomem;
                c->sent[oo] += 8 * r->n;
                c->recv[k] += 8 * r->n;
                if (nnc_dlrm_serve(reply, &ds[k], t, r->ids, r->n, c, k)) {
                    free(reply);
                    st = nnc_err(err, errlen, NNC_STATUS_INVALID, "plan: device %d lacks a row it should hold", k);
                    goto done;
                }
                c->sent[k] += 4 * w * r->n;
                c->recv[oo] += 4 * w * r->n;
                for (int64_t i = 0; i < r->n; i++)
                    memcpy(asm_rows[oo] + r->slot[i] * dim + ds[k].c0[t], reply + i * w, (size_t)w * sizeof(float));
                free(reply);
            }
        for (int oo = 0; oo < D && pooled; oo++) {
            int64_t s0 = tr->n_samples * oo / D, s1 = tr->n_samples * (oo + 1) / D;
            if ((st = nnc_dlrm_pool(pooled, asm_rows[oo], nnc_dlrm_block_lookups(tr, t, s0, s1), tr, t, s0, s1, dim, dsum, off, modes[t], err, errlen)))
                goto done;
        }
        off += dim;
    }
    nnc_dlrm_finish_cost(c, o);
    goto done;
nomem:
    st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
done:
    for (int k = 0; ds && k < D; k++) nnc_dlrm_store_free(&ds[k]);
    for (int i = 0; q && i < D * D; i++) {
        free(q[i].ids);
        free(q[i].slot);
    }
    for (int k = 0; asm_rows && k < D; k++) free(asm_rows[k]);
    free(ds);
    free(q);
    free(asm_rows);
    return st;
}

#ifdef NNC_HAVE_MPI
nnc_status nnc_dlrm_exec_mpi(nnc_dist_comm comm, float *pooled, nnc_dlrm_cost *c, const nnc_dlrm_plan *p,
                             const nnc_trace *tr, const double *const *weights, const nnc_embbag_mode *modes,
                             const nnc_dlrm_opts *o, char *err, size_t errlen)
{
    if (comm == MPI_COMM_NULL) return nnc_err(err, errlen, NNC_STATUS_ARG, "no MPI communicator");
    int me, D;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &D);
    if (D != p->devices)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "the plan is for %d devices, MPI has %d ranks", p->devices, D);
    nnc_status st = nnc_dlrm_check_inputs(p, tr, err, errlen);
    if (st) return st;
    int T = p->n_tables;
    memset(c, 0, sizeof *c);
    c->devices = D;
    nnc_dlrm_store ds;
    nnc_dlrm_reqs *q = calloc((size_t)D, sizeof *q);
    int *scnt = calloc((size_t)D, sizeof(int)), *rcnt = calloc((size_t)D, sizeof(int));
    int *sdis = calloc((size_t)D, sizeof(int)), *rdis = calloc((size_t)D, sizeof(int));
    int64_t *sids = NULL, *rids = NULL;
    float *asm_rows = NULL, *sbuf = NULL, *rbuf = NULL;
    int64_t dsum = 0, off = 0, s0 = tr->n_samples * me / D, s1 = tr->n_samples * (me + 1) / D;
    for (int t = 0; t < T; t++) dsum += p->tables[t].dim;
    memset(&ds, 0, sizeof ds);
    int ok = q && scnt && rcnt && sdis && rdis && nnc_dlrm_store_build(&ds, p, me, weights) == 0;
    c->mem_bytes[me] = ds.mem;
    for (int t = 0; t < T && ok; t++) {
        int64_t dim = p->tables[t].dim, P = nnc_dlrm_block_lookups(tr, t, s0, s1);
        free(asm_rows);
        asm_rows = malloc((size_t)(P * dim + 1) * sizeof(float));
        if (asm_rows == NULL) { ok = 0; break; }
        for (int k = 0; k < D; k++) q[k].n = 0;
        int rc = nnc_dlrm_route(asm_rows, q, &ds, p, tr, t, me, s0, s1, c, 0);
        if (rc) { ok = rc == -2 ? 0 : -1; break; }
        /* ids: counts, then the ids themselves */
        int64_t ns = 0, nr = 0;
        for (int k = 0; k < D; k++) {
            scnt[k] = (int)q[k].n;
            sdis[k] = (int)ns;
            ns += q[k].n;
        }
        MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm);
        for (int k = 0; k < D; k++) {
            rdis[k] = (int)nr;
            nr += rcnt[k];
        }
        free(sids); free(rids);
        sids = malloc((size_t)(ns + 1) * sizeof *sids);
        rids = malloc((size_t)(nr + 1) * sizeof *rids);
        if (!sids || !rids) { ok = 0; break; }
        for (int k = 0; k < D; k++)
            if (q[k].n) memcpy(sids + sdis[k], q[k].ids, (size_t)q[k].n * sizeof *sids);
        MPI_Alltoallv(sids, scnt, sdis, MPI_INT64_T, rids, rcnt, rdis, MPI_INT64_T, comm);
        c->sent[me] += 8 * ns;
        c->recv[me] += 8 * nr;
        /* serve what the others asked for; rows back (my slice width w) */
        int64_t w = ds.width[t];
        free(sbuf);
        sbuf = malloc((size_t)(nr * w + 1) * sizeof *sbuf);
        if (sbuf == NULL) { ok = 0; break; }
        if (nnc_dlrm_serve(sbuf, &ds, t, rids, nr, c, me)) { ok = -1; break; }
        int64_t nback = 0;
        int *bs = scnt, *bsd = sdis, *br = rcnt, *brd = rdis; /* reuse: replies go the other way */
        int wk[NNC_DLRM_MAX_DEVICES];
        for (int k = 0; k < D; k++) {
            int64_t c0, c1 = dim;
            c0 = 0;
            if (p->kind[t] == NNC_DLRM_SHARD_COLUMN) nnc_dlrm_slice(dim, D, k, &c0, &c1);
            wk[k] = (int)(c1 - c0);
        }
        int64_t tot_s = 0;
        for (int k = 0; k < D; k++) {
            int64_t nreq = q[k].n;      /* what I asked k: k's width each */
            int64_t nserve = rcnt[k];   /* what k asked me: my width each */
            br[k] = (int)(nreq * wk[k]);
            bs[k] = (int)(nserve * w);
        }
        for (int k = 0; k < D; k++) {
            bsd[k] = (int)tot_s;
            tot_s += bs[k];
        }
        for (int k = 0; k < D; k++) {
            brd[k] = (int)nback;
            nback += br[k];
        }
        free(rbuf);
        rbuf = malloc((size_t)(nback + 1) * sizeof *rbuf);
        if (rbuf == NULL) { ok = 0; break; }
        MPI_Alltoallv(sbuf, bs, bsd, MPI_FLOAT, rbuf, br, brd, MPI_FLOAT, comm);
        c->sent[me] += 4 * tot_s;
        c->recv[me] += 4 * nback;
        for (int k = 0; k < D; k++) {
            if (k == me) continue;
            int64_t c0 = 0, c1;
            if (p->kind[t] == NNC_DLRM_SHARD_COLUMN) nnc_dlrm_slice(dim, D, k, &c0, &c1);
            for (int64_t i = 0; i < q[k].n; i++)
                memcpy(asm_rows + q[k].slot[i] * dim + c0, rbuf + brd[k] + i * wk[k], (size_t)wk[k] * sizeof(float));
        }
        if (pooled && (st = nnc_dlrm_pool(pooled, asm_rows, P, tr, t, s0, s1, dim, dsum, off, modes[t], err, errlen))) {
            ok = -1;
            break;
        }
        off += dim;
    }
    /* every rank must know whether all succeeded before anyone returns */
    int all_ok = ok == 1, glob = 0;
    MPI_Allreduce(&all_ok, &glob, 1, MPI_INT, MPI_MIN, comm);
    if (glob) {
        nnc_dlrm_cost sum;
        memset(&sum, 0, sizeof sum);
        MPI_Allreduce(c->lookups, sum.lookups, NNC_DLRM_MAX_DEVICES, MPI_INT64_T, MPI_SUM, comm);
        MPI_Allreduce(c->read_bytes, sum.read_bytes, NNC_DLRM_MAX_DEVICES, MPI_INT64_T, MPI_SUM, comm);
        MPI_Allreduce(c->sent, sum.sent, NNC_DLRM_MAX_DEVICES, MPI_INT64_T, MPI_SUM, comm);
        MPI_Allreduce(c->recv, sum.recv, NNC_DLRM_MAX_DEVICES, MPI_INT64_T, MPI_SUM, comm);
        MPI_Allreduce(c->mem_bytes, sum.mem_bytes, NNC_DLRM_MAX_DEVICES, MPI_INT64_T, MPI_SUM, comm);
        sum.devices = D;
        *c = sum;
        nnc_dlrm_finish_cost(c, o);
    } else if (!st) {
        st = ok == 0 ? nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory")
                     : nnc_err(err, errlen, NNC_STATUS_INVALID, "distributed lookup failed on %s", ok == 1 ? "another rank" : "this rank");
    }
    nnc_dlrm_store_free(&ds);
    for (int k = 0; q && k < D; k++) {
        free(q[k].ids);
        free(q[k].slot);
    }
    free(q); free(scnt); free(rcnt); free(sdis); free(rdis);
    free(sids); free(rids); free(asm_rows); free(sbuf); free(rbuf);
    return st;
}
#else
nnc_status nnc_dlrm_exec_mpi(nnc_dist_comm comm, float *pooled, nnc_dlrm_cost *c, const nnc_dlrm_plan *p,
                             const nnc_trace *tr, const double *const *weights, const nnc_embbag_mode *modes,
                             const nnc_dlrm_opts *o, char *err, size_t errlen)
{
    (void)comm; (void)pooled; (void)c; (void)p; (void)tr; (void)weights; (void)modes; (void)o;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this nncert was built without MPI");
}
#endif
