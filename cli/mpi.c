/* The command line's side of multi-process runs: it alone initialises and
 * ends MPI, and hands the library a team over MPI_COMM_WORLD (dist/dist.h)
 * or the communicator itself (dist/comm.h: run --distributed, dlrm-run). */
#include "cli/cli.h"
#include "dist/dist.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int nnc_cli_mpi_launched(void)
{
    /* Open MPI's mpirun, PMIx launchers (Open MPI 5, Slurm's srun
     * --mpi=pmix), PMI-1/2 launchers (MPICH's hydra, srun --mpi=pmi2) */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i]) != NULL) return 1;
    return 0;
}

#ifdef NNC_HAVE_MPI

/* MPI initialised (unless it is already) with one thread calling it.
 * Returns EXIT_OK, or EXIT_UNAVAILABLE (printed) when MPI_Init fails. */
static int mpi_init(const char *cmd)
{
    int init = 0, provided = 0;
    MPI_Initialized(&init);
    if (!init && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "nncert %s: MPI_Init failed\n", cmd);
        return EXIT_UNAVAILABLE;
    }
    return EXIT_OK;
}

int nnc_cli_mpi_begin(const char *cmd, double wait_s, nnc_team **team, int *rank)
{
    *team = NULL;
    *rank = 0;
    int rc = mpi_init(cmd);
    if (rc) return rc;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    char err[NNC_ERRBUF_SIZE];
    nnc_status st = nnc_dist_team_create(team, MPI_COMM_WORLD, wait_s, err, sizeof err);
    if (st) {
        fprintf(stderr, "nncert %s: --distributed: %s\n", cmd, err);
        int size = 1;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (size > 1) nnc_cli_mpi_abort(nnc_cli_exit_code(st)); /* the others would wait for this rank */
        MPI_Finalize();
        return nnc_cli_exit_code(st);
    }
    /* test hook (tests/e2e/mpi.sh): NNCERT_TEST_RANK_FAULT=R:die kills rank
     * R here, R:stall:S makes it S seconds late for the first exchange */
    const char *f = getenv("NNCERT_TEST_RANK_FAULT");
    int fr = -1, secs = 0;
    if (f && sscanf(f, "%d:", &fr) == 1 && fr == *rank) {
        if (strstr(f, ":die")) raise(SIGKILL);
        if (sscanf(f, "%*d:stall:%d", &secs) == 1 && secs > 0) sleep((unsigned)secs);
    }
    return EXIT_OK;
}

void nnc_cli_mpi_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
}

int nnc_cli_mpi_world_begin(const char *cmd, int force, nnc_dist_comm *comm, int *rank, int *size)
{
    *comm = NNC_DIST_COMM_NONE;
    *rank = 0;
    *size = 1;
    if (!force && !nnc_cli_mpi_launched()) return EXIT_OK;
    int rc = mpi_init(cmd);
    if (rc) return rc;
    *comm = MPI_COMM_WORLD;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return EXIT_OK;
}

void nnc_cli_mpi_world_end(nnc_dist_comm comm)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (comm != NNC_DIST_COMM_NONE && !fin) MPI_Finalize();
}

void nnc_cli_mpi_end(nnc_team *team)
{
    if (team && getenv("NNCERT_DIST_STATS")) {
        /* for benchmarks (tests/bench/bench_verify_mpi.sh): the share of
         * this rank's time spent in exchanges */
        uint64_t n = 0;
        double s = 0;
        nnc_dist_team_stats(team, &n, &s);
        fprintf(stderr, "nncert: rank %d: %llu exchanges, %.3f s in them\n", team->rank, (unsigned long long)n, s);
    }
    nnc_dist_team_destroy(team);
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
}

#else

int nnc_cli_mpi_begin(const char *cmd, double wait_s, nnc_team **team, int *rank)
{
    (void)wait_s;
    *team = NULL;
    *rank = 0;
    fprintf(stderr, "nncert %s: --distributed: this build has no MPI (install libopenmpi-dev and rebuild)\n", cmd);
    return EXIT_UNAVAILABLE;
}

void nnc_cli_mpi_abort(int code) { exit(code); }

int nnc_cli_mpi_world_begin(const char *cmd, int force, nnc_dist_comm *comm, int *rank, int *size)
{
    *comm = NNC_DIST_COMM_NONE;
    *rank = 0;
    *size = 1;
    if (!force) return EXIT_OK; /* under a launcher's variables: alone */
    fprintf(stderr, "nncert %s: --distributed: this build has no MPI (install libopenmpi-dev and rebuild)\n", cmd);
    return EXIT_UNAVAILABLE;
}

void nnc_cli_mpi_world_end(nnc_dist_comm comm) { (void)comm; }

void nnc_cli_mpi_end(nnc_team *team) { (void)team; }

#endif

int nnc_cli_mpi_run(const char *cmd, int dist, double wait_s, int (*body)(int, char **, const nnc_team *, int), int argc,
                    char **argv)
{
    /* a build without MPI under a launcher's variables (a single-task srun)
     * runs alone unless --distributed asks for the team */
    if (!dist && (!nnc_cli_mpi_launched() || !nnc_dist_have_mpi())) return body(argc, argv, NULL, 0);
    nnc_team *team = NULL;
    int rank = 0;
    int rc = nnc_cli_mpi_begin(cmd, wait_s, &team, &rank);
    if (rc) return rc;
    rc = body(argc, argv, team, rank);
    fflush(stdout);
    /* a failed rank ends the job: the others may be waiting for it */
    if (rc >= EXIT_USAGE && team->size > 1) nnc_cli_mpi_abort(rc);
    nnc_cli_mpi_end(team);
    return rc;
}
