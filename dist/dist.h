/* nncert dist: multi-process host code over MPI.  The caller (the CLI)
 * initialises MPI and passes a communicator in; nothing here calls
 * MPI_Init or MPI_Finalize.
 *
 * Prefix nnc_dist. */
#ifndef NNC_DIST_H
#define NNC_DIST_H

#include "nncert/nnc.h"
#include "nncert/team.h"
#include "dist/comm.h"

#ifdef NNC_HAVE_MPI
#include <mpi.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef NNC_HAVE_MPI
/* A team (nncert/team.h) over the ranks of comm, which is duplicated (the
 * team's messages never meet the caller's) and given MPI_ERRORS_RETURN, so
 * that a failed exchange comes back as an error naming the rank.  wait_s: how
 * long a rank waits in one exchange for another rank's bytes, after its own
 * are sent, before failing with "rank Q did not answer within S s".
 * Returns OK, ARG (wait_s not positive), NOMEM, IO (an MPI call failed).
 * Out: *out, released with nnc_dist_team_destroy (before MPI_Finalize). */
nnc_status nnc_dist_team_create(nnc_team **out, MPI_Comm comm, double wait_s, char *err, size_t errlen);
#endif

void nnc_dist_team_destroy(nnc_team *t);

/* Out: the exchanges a team of nnc_dist_team_create made so far, and the
 * wall seconds this rank spent in them (waiting for the others included). */
void nnc_dist_team_stats(const nnc_team *t, uint64_t *exchanges, double *seconds);

/* Whether this build has MPI (NNC_HAVE_MPI). */
int nnc_dist_have_mpi(void);

#ifdef __cplusplus
}
#endif

#endif
