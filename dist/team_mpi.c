/* A team over MPI (see dist/dist.h and common/team.h).
 *
 * The all-gather is point to point (every rank sends its length, then its
 * bytes, to every other rank), not MPI_Allgatherv: a collective that a dead
 * or hung rank never joins cannot be waited on with a time-out, nor can it
 * say who is missing.  Messages between two ranks on one tag never overtake
 * each other, so successive exchanges match in order.  Teams are small (a
 * rank per node or per core), and an exchange carries a batch of leaves:
 * the R^2 messages cost less than one leaf's bounds. */
#include "dist/dist.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int nnc_dist_have_mpi(void)
{
#ifdef NNC_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

#ifndef NNC_HAVE_MPI

void nnc_dist_team_destroy(nnc_team *t) { (void)t; }

void nnc_dist_team_stats(const nnc_team *t, uint64_t *exchanges, double *seconds)
{
    (void)t;
    *exchanges = 0;
    *seconds = 0;
}

#else

enum { TAG_LEN = 0x6e6e, TAG_DATA = 0x6e6f };

typedef struct mpi_team {
    nnc_team pub;
    MPI_Comm comm;
    double wait_s;
    uint64_t *lens;   /* size: the lengths received */
    int *peer;        /* 2 (size - 1): the rank of each request */
    MPI_Request *req; /* 2 (size - 1) */
    uint64_t n_ex;    /* exchanges so far, and the seconds spent in them */
    double ex_s;
} mpi_team;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static nnc_status mpi_fail(char *err, size_t errlen, const char *what, int peer, int code)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "MPI error %d", code);
    return nnc_err(err, errlen, NNC_STATUS_IO, "%s with rank %d failed: %s", what, peer, msg);
}

/* Wait for the n requests (peer[i] the rank of request i), polling with a
 * growing pause (20 us to 0.5 ms: a rank that waits leaves its core to the
 * others), until done or wait_s have passed. */
static nnc_status wait_all(mpi_team *t, int n, const char *what, char *err, size_t errlen)
{
    double start = mono_s();
    long pause_ns = 20000;
    int left = n;
    while (left > 0) {
        for (int i = 0; i < n; i++) {
            if (t->req[i] == MPI_REQUEST_NULL) continue;
            int done = 0;
            MPI_Status stt;
            int rc = MPI_Test(&t->req[i], &done, &stt);
            if (rc != MPI_SUCCESS) return mpi_fail(err, errlen, what, t->peer[i], rc);
            if (done) left--;
        }
        if (left == 0) break;
        if (mono_s() - start > t->wait_s) {
            for (int i = 0; i < n; i++)
                if (t->req[i] != MPI_REQUEST_NULL)
                    return nnc_err(err, errlen, NNC_STATUS_IO, "rank %d did not answer within %g s (%s)", t->peer[i],
                                   t->wait_s, what);
        }
        struct timespec ts = {0, pause_ns};
        nanosleep(&ts, NULL);
        if (pause_ns < 500000) pause_ns *= 2;
    }
    return NNC_STATUS_OK;
}

static nnc_status exchange(mpi_team *t, const void *mine, size_t len, unsigned char **all, size_t *lens, char *err,
                           size_t errlen);

static nnc_status mpi_allgather(void *ctx, const void *mine, size_t len, unsigned char **all, size_t *lens, char *err,
                                size_t errlen)
{
    mpi_team *t = ctx;
    double t0 = mono_s();
    nnc_status st = exchange(t, mine, len, all, lens, err, errlen);
    t->n_ex++;
    t->ex_s += mono_s() - t0;
    return st;
}

static nnc_status exchange(mpi_team *t, const void *mine, size_t len, unsigned char **all, size_t *lens, char *err,
                           size_t errlen)
{
    int me = t->pub.rank, R = t->pub.size, n = 0, rc;
    *all = NULL;
    if (len > INT_MAX) return nnc_err(err, errlen, NNC_STATUS_LIMIT, "an exchange of %zu bytes (at most %d)", len, INT_MAX);
    uint64_t ml = len;
    for (int q = 0; q < R; q++) {
        if (q == me) continue;
        t->peer[n] = q;
        if ((rc = MPI_Irecv(&t->lens[q], 1, MPI_UINT64_T, q, TAG_LEN, t->comm, &t->req[n++])) != MPI_SUCCESS)
            return mpi_fail(err, errlen, "receiving a length", q, rc);
        t->peer[n] = q;
        if ((rc = MPI_Isend(&ml, 1, MPI_UINT64_T, q, TAG_LEN, t->comm, &t->req[n++])) != MPI_SUCCESS)
            return mpi_fail(err, errlen, "sending a length", q, rc);
    }
    nnc_status st = wait_all(t, n, "exchanging lengths", err, errlen);
    if (st) return st;
    t->lens[me] = ml;
    size_t total = 0;
    for (int q = 0; q < R; q++) {
        if (t->lens[q] > INT_MAX) return nnc_err(err, errlen, NNC_STATUS_IO, "rank %d announced %llu bytes", q, (unsigned long long)t->lens[q]);
        lens[q] = (size_t)t->lens[q];
        total += lens[q];
    }
    unsigned char *buf = malloc(total + 1);
    if (buf == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory (%zu bytes from the ranks)", total);
    size_t off = 0;
    n = 0;
    for (int q = 0; q < R; q++) {
        if (q == me) {
            if (len) memcpy(buf + off, mine, len);
        } else {
            if (lens[q] > 0) {
                t->peer[n] = q;
                if ((rc = MPI_Irecv(buf + off, (int)lens[q], MPI_BYTE, q, TAG_DATA, t->comm, &t->req[n++])) != MPI_SUCCESS) {
                    st = mpi_fail(err, errlen, "receiving", q, rc);
                    break;
                }
            }
            if (len > 0) {
                t->peer[n] = q;
                if ((rc = MPI_Isend(mine, (int)len, MPI_BYTE, q, TAG_DATA, t->comm, &t->req[n++])) != MPI_SUCCESS) {
                    st = mpi_fail(err, errlen, "sending", q, rc);
                    break;
                }
            }
        }
        off += lens[q];
    }
    if (!st) st = wait_all(t, n, "exchanging data", err, errlen);
    if (st) {
        /* the job ends (the caller aborts it): the posted requests with it */
        free(buf);
        return st;
    }
    *all = buf;
    return NNC_STATUS_OK;
}

nnc_status nnc_dist_team_create(nnc_team **out, MPI_Comm comm, double wait_s, char *err, size_t errlen)
{
    *out = NULL;
    if (!(wait_s > 0)) return nnc_err(err, errlen, NNC_STATUS_ARG, "the wait limit must be positive");
    mpi_team *t = calloc(1, sizeof *t);
    if (t == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    int rc = MPI_Comm_dup(comm, &t->comm);
    if (rc != MPI_SUCCESS) {
        free(t);
        return mpi_fail(err, errlen, "duplicating the communicator", -1, rc);
    }
    MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(t->comm, &t->pub.rank);
    MPI_Comm_size(t->comm, &t->pub.size);
    int R = t->pub.size;
    t->wait_s = wait_s;
    t->lens = malloc(sizeof(uint64_t) * (size_t)R);
    t->peer = malloc(sizeof(int) * (size_t)(2 * R));
    t->req = malloc(sizeof(MPI_Request) * (size_t)(2 * R));
    if (!t->lens || !t->peer || !t->req) {
        nnc_dist_team_destroy(&t->pub);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    t->pub.allgather = mpi_allgather;
    t->pub.ctx = t;
    *out = &t->pub;
    return NNC_STATUS_OK;
}

void nnc_dist_team_stats(const nnc_team *pub, uint64_t *exchanges, double *seconds)
{
    const mpi_team *t = (const mpi_team *)pub;
    *exchanges = t->n_ex;
    *seconds = t->ex_s;
}

void nnc_dist_team_destroy(nnc_team *pub)
{
    if (pub == NULL) return;
    mpi_team *t = (mpi_team *)pub;
    MPI_Comm_free(&t->comm);
    free(t->lens);
    free(t->peer);
    free(t->req);
    free(t);
}

#endif
