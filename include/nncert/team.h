/* A team: the processes that run one job together (one verification under
 * mpirun -np N), seen by the engines through one collective, so that they
 * stay free of MPI.  dist/dist.h makes a team over an MPI communicator the
 * caller (the CLI) has initialised; tests may make one over threads.
 *
 * Every rank calls the collectives in the same order with the same sizes
 * agreed beforehand where a size matters; a rank that stops calling them
 * (dead, hung, or gone down an error path) makes the others' call fail
 * after the team's time-out with an error naming it, never hang for ever.
 *
 * Prefix nnc_team. */
#ifndef NNC_TEAM_H
#define NNC_TEAM_H

#include "nncert/nnc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nnc_team {
    int rank, size; /* 0 <= rank < size */
    /* All-gather: every rank's len bytes (lengths may differ by rank).
     * Out: *all, malloc'd (the caller frees it), holds them in rank order;
     *      lens[q] (size entries, the caller's) rank q's length.
     * Returns OK, NOMEM, IO
     * (a rank failed or did not answer in time: err names the rank). */
    nnc_status (*allgather)(void *ctx, const void *mine, size_t len, unsigned char **all, size_t *lens, char *err,
                            size_t errlen);
    void *ctx;
} nnc_team;

/* Rank t->rank's share [*lo, *hi) of n items split among the ranks: R
 * contiguous ranges in rank order, the first n % R one longer. */
static inline void nnc_team_share(const nnc_team *t, uint64_t n, uint64_t *lo, uint64_t *hi)
{
    uint64_t R = (uint64_t)t->size, q = (uint64_t)t->rank, per = n / R, rem = n % R;
    *lo = q * per + (q < rem ? q : rem);
    *hi = *lo + per + (q < rem ? 1 : 0);
}

#ifdef __cplusplus
}
#endif

#endif
