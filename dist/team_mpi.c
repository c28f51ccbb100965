/* A team over MPI (see dist/dist.h and nncert/team.h).
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
#include <stdint.h>
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
    int *peer;        /* rcap: the rank of each request */
    MPI_Request *req; /* rcap */
    size_t rcap;
    unsigned char *sbuf; /* scap: this rank's bytes of the exchange under way */
    size_t scap;
    uint64_t mylen;      /* their length, as sent */
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

/* Room for n requests (the arrays grow; on failure they stay as they were). */
static int reserve(mpi_team *t, size_t n)
{
    if (n <= t->rcap) return 0;
    size_t cap = t->rcap ? t->rcap : 16;
    while (cap < n) cap *= 2;
    int *np = realloc(t->peer, sizeof(int) * cap);
    if (np == NULL) return -1;
    t->peer = np;
    MPI_Request *nr = realloc(t->req, sizeof(MPI_Request) * cap);
    if (nr == NULL) return -1;
    t->req = nr;
    t->rcap = cap;
    return 0;
}

/* Messages of at most CHUNK bytes (MPI counts are ints): a longer block
 * travels as consecutive chunks on one tag, which arrive in order. */
#define CHUNK ((size_t)1 << 30)

static size_t chunks(size_t len) { return (len + CHUNK - 1) / CHUNK; }

static nnc_status exchange(mpi_team *t, const void *mine, size_t len, unsigned char **all, size_t *lens, char *err,
                           size_t errlen)
{
    int me = t->pub.rank, R = t->pub.size, rc;
    size_t n = 0;
    *all = NULL;
    /* what is sent lives in the team until the next exchange: on a failure
     * the job is aborted with requests still posted, never into freed memory */
    if (len > t->scap) {
        unsigned char *nb = realloc(t->sbuf, len);
        if (nb == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory (%zu bytes to send)", len);
        t->sbuf = nb;
        t->scap = len;
    }
    if (len) memcpy(t->sbuf, mine, len);
    t->mylen = len;
    if (reserve(t, 2 * (size_t)R)) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int q = 0; q < R; q++) {
        if (q == me) continue;
        t->peer[n] = q;
        if ((rc = MPI_Irecv(&t->lens[q], 1, MPI_UINT64_T, q, TAG_LEN, t->comm, &t->req[n++])) != MPI_SUCCESS)
            return mpi_fail(err, errlen, "receiving a length", q, rc);
        t->peer[n] = q;
        if ((rc = MPI_Isend(&t->mylen, 1, MPI_UINT64_T, q, TAG_LEN, t->comm, &t->req[n++])) != MPI_SUCCESS)
            return mpi_fail(err, errlen, "sending a length", q, rc);
    }
    nnc_status st = wait_all(t, (int)n, "exchanging lengths", err, errlen);
    if (st) return st;
    t->lens[me] = len;
    size_t total = 0, nreq = 0;
    for (int q = 0; q < R; q++) {
        if (t->lens[q] > SIZE_MAX / 2 - total)
            return nnc_err(err, errlen, NNC_STATUS_IO, "rank %d announced %llu bytes", q, (unsigned long long)t->lens[q]);
        lens[q] = (size_t)t->lens[q];
        total += lens[q];
        if (q != me) nreq += chunks(lens[q]) + chunks(len);
    }
    if (nreq > INT_MAX || reserve(t, nreq)) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    unsigned char *buf = malloc(total + 1);
    if (buf == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory (%zu bytes from the ranks)", total);
    size_t off = 0;
    n = 0;
    for (int q = 0; q < R && !st; q++) {
        if (q == me) {
            if (len) memcpy(buf + off, mine, len);
            off += lens[q];
            continue;
        }
        for (size_t c0 = 0; c0 < lens[q] && !st; c0 += CHUNK) {
            size_t cl = lens[q] - c0 < CHUNK ? lens[q] - c0 : CHUNK;
            t->peer[n] = q;
            if ((rc = MPI_Irecv(buf + off + c0, (int)cl, MPI_BYTE, q, TAG_DATA, t->comm, &t->req[n++])) != MPI_SUCCESS)
                st = mpi_fail(err, errlen, "receiving", q, rc);
        }
        for (size_t c0 = 0; c0 < len && !st; c0 += CHUNK) {
            size_t cl = len - c0 < CHUNK ? len - c0 : CHUNK;
            t->peer[n] = q;
            if ((rc = MPI_Isend(t->sbuf + c0, (int)cl, MPI_BYTE, q, TAG_DATA, t->comm, &t->req[n++])) != MPI_SUCCESS)
                st = mpi_fail(err, errlen, "sending", q, rc);
        }
        off += lens[q];
    }
    if (!st) st = wait_all(t, (int)n, "exchanging data", err, errlen);
    /* the bytes sent may be secret (the prover's polynomials) */
    if (len) explicit_bzero(t->sbuf, len);
    if (st) return st; /* buf stays allocated: receives may still be posted into it (the job is aborted) */
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
    if (!t->lens || reserve(t, 2 * (size_t)R)) {
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
    free(t->sbuf);
    free(t);
}

#endif
