/* The communicator the library's MPI code runs over (dist/, the DLRM and
 * GNN multi-process paths), passed in by the caller, which initialised MPI:
 * an MPI_Comm where the build has MPI.  NNC_DIST_COMM_NONE: one process,
 * no MPI call is made.  The library never initialises or ends MPI. */
#ifndef NNC_DIST_COMM_H
#define NNC_DIST_COMM_H

#ifdef NNC_HAVE_MPI
#include <mpi.h>
typedef MPI_Comm nnc_dist_comm;
#define NNC_DIST_COMM_NONE MPI_COMM_NULL
#else
typedef int nnc_dist_comm;
#define NNC_DIST_COMM_NONE 0
#endif

#endif
