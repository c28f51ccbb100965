/* Multi-process aggregation with halo exchange; see dist/gnn.h. */
#include "dist/gnn.h"

#include <stdlib.h>
#include <string.h>

#ifdef NNC_HAVE_MPI
#include <mpi.h>
#endif

void nnc_dist_gnn_rows(const nnc_mdl_csr32 *a, int rank, int size, int32_t *r0, int32_t *r1)
{
    /* first row whose cumulative cost (nnz + rows before it) reaches
     * part * total / size: a function of A and the rank count only, so every
     * rank computes the same split */
    int64_t total = (int64_t)a->nnz + a->rows;
    int32_t b[2];
    for (int e = 0; e < 2; e++) {
        int part = rank + e;
        if (part == 0) { b[e] = 0; continue; }
        if (part == size) { b[e] = a->rows; continue; }
        int64_t target = total * part / size;
        int32_t lo = 0, hi = a->rows; /* smallest r with cost(r) >= target */
        while (lo < hi) {
            int32_t mid = lo + (hi - lo) / 2;
            if ((int64_t)a->row_ptr[mid] + mid >= target) hi = mid;
            else lo = mid + 1;
        }
        b[e] = lo;
    }
    *r0 = b[0];
    *r1 = b[1];
}

/* ---- the partition of one matrix (MPI and NCCL alike) ---- */

void nnc_dist_halo_free(nnc_dist_halo *p)
{
    if (p == NULL) return;
    free(p->r0);
    nnc_mdl_csr32_free(&p->local);
    free(p->recv_ptr);
    free(p->send_ptr);
    free(p->send_rows);
    free(p->interior);
    free(p->boundary);
    free(p->xloc);
    free(p->sendbuf);
    free(p->counts);
    free(p->displs);
    free(p);
}

/* Columns referenced by rows [r0, r1) of a that lie in [c0, c1), distinct,
 * ascending, appended to out (mark: scratch of a->cols bytes, zero, left zero). */
static int32_t distinct_cols(const nnc_mdl_csr32 *a, int32_t r0, int32_t r1, int32_t c0, int32_t c1, unsigned char *mark,
                             int32_t *out)
{
    int32_t n = 0;
    for (int32_t k = a->row_ptr[r0]; k < a->row_ptr[r1]; k++) {
        int32_t c = a->col[k];
        if (c >= c0 && c < c1 && !mark[c]) {
            mark[c] = 1;
            n++;
        }
    }
    int32_t m = 0;
    for (int32_t c = c0; c < c1 && m < n; c++)
        if (mark[c]) {
            mark[c] = 0;
            out[m++] = c;
        }
    return n;
}

nnc_dist_halo *nnc_dist_halo_build(const nnc_mdl_csr32 *a, int me, int S)
{
    if (S < 1 || me < 0 || me >= S) return NULL;
    nnc_dist_halo *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    p->a = a;
    p->r0 = malloc(((size_t)S + 1) * sizeof(int32_t));
    p->recv_ptr = calloc((size_t)S + 1, sizeof(int32_t));
    p->send_ptr = calloc((size_t)S + 1, sizeof(int32_t));
    p->counts = malloc((size_t)S * sizeof(int));
    p->displs = malloc((size_t)S * sizeof(int));
    unsigned char *mark = calloc((size_t)a->cols + 1, 1);
    int32_t *halo = malloc(((size_t)a->nnz + 1) * sizeof(int32_t));
    p->send_rows = malloc(((size_t)a->nnz + 1) * sizeof(int32_t));
    if (!p->r0 || !p->recv_ptr || !p->send_ptr || !p->counts || !p->displs || !mark || !halo || !p->send_rows) goto fail;
    for (int q = 0; q < S; q++) nnc_dist_gnn_rows(a, q, S, &p->r0[q], &p->r0[q + 1]);
    int32_t lo, hi;
    nnc_dist_gnn_rows(a, me, S, &lo, &hi);
    p->nown = hi - lo;
    /* halo from each owner q: the columns of my rows inside q's range */
    for (int q = 0; q < S; q++) {
        int32_t n = q == me ? 0 : distinct_cols(a, lo, hi, p->r0[q], p->r0[q + 1], mark, halo + p->recv_ptr[q]);
        p->recv_ptr[q + 1] = p->recv_ptr[q] + n;
    }
    p->nhalo = p->recv_ptr[S];
    /* what each peer q needs from me: the columns of q's rows inside my range */
    for (int q = 0; q < S; q++) {
        int32_t n = q == me ? 0 : distinct_cols(a, p->r0[q], p->r0[q + 1], lo, hi, mark, p->send_rows + p->send_ptr[q]);
        p->send_ptr[q + 1] = p->send_ptr[q] + n;
    }
    /* local CSR: same entries in the same order, columns renumbered */
    int32_t base = a->row_ptr[lo], nnz = a->row_ptr[hi] - base;
    p->local.rows = p->nown;
    p->local.cols = p->nown + p->nhalo;
    p->local.nnz = nnz;
    p->local.row_ptr = malloc(((size_t)p->nown + 1) * sizeof(int32_t));
    p->local.col = malloc(((size_t)nnz + 1) * sizeof(int32_t));
    p->local.val = malloc(((size_t)nnz + 1) * sizeof(float));
    p->interior = malloc(((size_t)p->nown + 1) * sizeof(int32_t));
    p->boundary = malloc(((size_t)p->nown + 1) * sizeof(int32_t));
    if (!p->local.row_ptr || !p->local.col || !p->local.val || !p->interior || !p->boundary) goto fail;
    for (int32_t i = 0; i <= p->nown; i++) p->local.row_ptr[i] = a->row_ptr[lo + i] - base;
    for (int32_t i = 0; i < p->nown; i++) {
        int remote = 0;
        for (int32_t k = a->row_ptr[lo + i]; k < a->row_ptr[lo + i + 1]; k++) {
            int32_t c = a->col[k], lc;
            if (c >= lo && c < hi) {
                lc = c - lo;
            } else { /* binary search in the sorted halo */
                int32_t l = 0, h = p->nhalo - 1;
                while (l < h) {
                    int32_t mid = l + (h - l) / 2;
                    if (halo[mid] >= c) h = mid;
                    else l = mid + 1;
                }
                lc = p->nown + l;
                remote = 1;
            }
            p->local.col[k - base] = lc;
            p->local.val[k - base] = a->val[k];
        }
        if (remote) p->boundary[p->nboundary++] = i;
        else p->interior[p->ninterior++] = i;
    }
    free(mark);
    free(halo);
    return p;
fail:
    free(mark);
    free(halo);
    nnc_dist_halo_free(p);
    return NULL;
}

#ifdef NNC_HAVE_MPI

struct nnc_dist_gnn {
    MPI_Comm comm; /* the caller's */
    int rank, size, failed;
    nnc_dist_halo **parts;
    int nparts;
};

static nnc_dist_halo *part_get(nnc_dist_gnn *d, const nnc_mdl_csr32 *a)
{
    for (int i = 0; i < d->nparts; i++)
        if (d->parts[i]->a == a) return d->parts[i];
    nnc_dist_halo **np = realloc(d->parts, ((size_t)d->nparts + 1) * sizeof *np);
    if (np == NULL) return NULL;
    d->parts = np;
    nnc_dist_halo *p = nnc_dist_halo_build(a, d->rank, d->size);
    if (p == NULL) return NULL;
    d->parts[d->nparts++] = p;
    return p;
}

/* Row-at-a-time aggregation of a list of local rows. */
static void rows_list(const nnc_mdl_csr32 *l, const int32_t *rows, int32_t n, const float *xloc, int64_t F, float *yloc)
{
    for (int32_t i = 0; i < n;) {
        int32_t j = i + 1; /* run of consecutive rows: one call */
        while (j < n && rows[j] == rows[j - 1] + 1) j++;
        nnc_mdl_spmm_rows(l, rows[i], rows[j - 1] + 1, xloc, F, yloc);
        i = j;
    }
}

void nnc_dist_gnn_spmm(void *ctx, const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y)
{
    nnc_dist_gnn *d = ctx;
    nnc_dist_halo *p = part_get(d, a);
    int S = d->size, me = d->rank;
    if (p && p->cap_f < F) {
        free(p->xloc);
        free(p->sendbuf);
        p->xloc = malloc(((size_t)(p->nown + p->nhalo) * (size_t)F + 1) * sizeof(float));
        p->sendbuf = malloc(((size_t)p->send_ptr[S] * (size_t)F + 1) * sizeof(float));
        p->cap_f = (p->xloc && p->sendbuf) ? F : 0;
    }
    int too_big = (double)a->rows * (double)F > 2147483647.0;
    if (p == NULL || p->cap_f < F || too_big) {
        /* out of memory (or counts beyond MPI's int): abort the job rather
         * than let the ranks disagree */
        MPI_Abort(d->comm, 70);
        return;
    }
    size_t row = (size_t)F * sizeof(float);
    MPI_Request *req = malloc(2 * (size_t)S * sizeof(MPI_Request));
    int nreq = 0;
    if (req == NULL) MPI_Abort(d->comm, 70);
    for (int q = 0; q < S; q++) {
        int32_t n = p->recv_ptr[q + 1] - p->recv_ptr[q];
        if (n)
            MPI_Irecv(p->xloc + (size_t)(p->nown + p->recv_ptr[q]) * F, (int)(n * F), MPI_FLOAT, q, 0x6E6E, d->comm,
                      &req[nreq++]);
    }
    for (int q = 0; q < S; q++) {
        int32_t n = p->send_ptr[q + 1] - p->send_ptr[q];
        if (n == 0) continue;
        float *sb = p->sendbuf + (size_t)p->send_ptr[q] * F;
        for (int32_t i = 0; i < n; i++) memcpy(sb + (size_t)i * F, x + (size_t)p->send_rows[p->send_ptr[q] + i] * F, row);
        MPI_Isend(sb, (int)(n * F), MPI_FLOAT, q, 0x6E6E, d->comm, &req[nreq++]);
    }
    /* owned rows of X, then the interior rows while the halo is in flight */
    memcpy(p->xloc, x + (size_t)p->r0[me] * F, (size_t)p->nown * row);
    float *yloc = y + (size_t)p->r0[me] * F;
    rows_list(&p->local, p->interior, p->ninterior, p->xloc, F, yloc);
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    rows_list(&p->local, p->boundary, p->nboundary, p->xloc, F, yloc);
    free(req);
    for (int q = 0; q < S; q++) {
        p->counts[q] = (int)((int64_t)(p->r0[q + 1] - p->r0[q]) * F);
        p->displs[q] = (int)((int64_t)p->r0[q] * F);
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, y, p->counts, p->displs, MPI_FLOAT, d->comm);
}

nnc_status nnc_dist_gnn_attach(nnc_dist_gnn **out, nnc_runtime *rt, nnc_dist_comm comm, char *err, size_t errlen)
{
    *out = NULL;
    int init = 0;
    MPI_Initialized(&init);
    if (!init || comm == MPI_COMM_NULL)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "distributed aggregation: MPI is not initialised (the caller does that)");
    nnc_dist_gnn *d = calloc(1, sizeof *d);
    if (d == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    d->comm = comm;
    MPI_Comm_rank(comm, &d->rank);
    MPI_Comm_size(comm, &d->size);
    if (rt) nnc_rt_set_spmm(rt, nnc_dist_gnn_spmm, d);
    *out = d;
    return NNC_STATUS_OK;
}

void nnc_dist_gnn_detach(nnc_dist_gnn *d, nnc_runtime *rt)
{
    if (d == NULL) return;
    if (rt) nnc_rt_set_spmm(rt, NULL, NULL);
    for (int i = 0; i < d->nparts; i++) nnc_dist_halo_free(d->parts[i]);
    free(d->parts);
    free(d);
}

#else /* no MPI */

struct nnc_dist_gnn {
    int unused;
};

nnc_status nnc_dist_gnn_attach(nnc_dist_gnn **out, nnc_runtime *rt, nnc_dist_comm comm, char *err, size_t errlen)
{
    (void)rt;
    (void)comm;
    *out = NULL;
    return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "this build has no MPI (install Open MPI's mpicc and rebuild)");
}

void nnc_dist_gnn_detach(nnc_dist_gnn *d, nnc_runtime *rt)
{
    (void)d;
    (void)rt;
}

void nnc_dist_gnn_spmm(void *d, const nnc_mdl_csr32 *a, const float *x, int64_t F, float *y)
{
    (void)d;
    nnc_mdl_spmm_rows(a, 0, a->rows, x, F, y);
}

#endif
