/* Shared pieces of the nncert command-line front end.
 *
 * Each command lives in its own file (cli/nncert.c for the model, verify,
 * spec and Groth16 commands, cli/cmd_*.c for the rest) and is listed once in
 * the command table in cli/nncert.c.  A command receives the arguments after
 * its name and returns the process exit code. */
#ifndef NNC_CLI_H
#define NNC_CLI_H

#include "nncert/nnc.h"
#include "dist/comm.h"

#include <stdint.h>
#include <stdio.h>

/* Exit codes (stable; see README.md). */
enum {
    EXIT_OK = 0,
    EXIT_FAILED = 1,       /* counterexample, invalid proof, failed gate */
    EXIT_UNKNOWN = 2,
    EXIT_USAGE = 64,
    EXIT_DATAERR = 65,
    EXIT_NOINPUT = 66,
    EXIT_UNAVAILABLE = 69,
    EXIT_SOFTWARE = 70,
    EXIT_CANTCREAT = 73,
    EXIT_LIMIT = 75
};

/* The exit code for a library status. */
int nnc_cli_exit_code(nnc_status st);
/* Print "nncert: error: MSG" and return the exit code for ST. */
int nnc_cli_fail(nnc_status st, const char *msg);
/* Print a usage error for command CMD (NULL: top level); returns EXIT_USAGE. */
int nnc_cli_usage_error(const char *cmd, const char *msg);
/* Usage errors that name the option: "unknown option 'OPT'" and "option
 * 'OPT' needs a value"; both return EXIT_USAGE. */
int nnc_cli_unknown_option(const char *cmd, const char *opt);
int nnc_cli_needs_value(const char *cmd, const char *opt);
/* Nonzero for "--help" and "-h". */
int nnc_cli_is_help(const char *arg);

/* ---- option tables (cli/options.c) ----------------------------------------
 * Each command declares its options once, in a table that both parses its
 * command line and prints its --help: the synopsis and the text around the
 * options are written by hand, the option list is generated from the table.
 * A command's code indexes the table with an enum of its own, the table
 * written with designated initializers ([V_SAMPLES] = {...}), so the two
 * cannot drift apart. */
typedef struct nnc_cli_opt {
    const char *name; /* "--samples"; NULL: not this command's (tables of
                       * commands that share one enum of indices) */
    const char *arg;  /* its value's placeholder ("N"); NULL: a flag */
    const char *help; /* what it does; each '\n' starts a line of the help column */
} nnc_cli_opt;

typedef struct nnc_cli_doc {
    const char *cmd;      /* "verify", "groth16 prove": as errors name it */
    const char *synopsis; /* the usage lines, "usage: nncert ..." included */
    const char *about;    /* the text between the synopsis and the options ("" none) */
    const nnc_cli_opt *opts;
    int nopts;
    const char *after; /* the text after the options ("" none) */
} nnc_cli_doc;

/* A doc from a static option table (opts an array, not a pointer). */
#define NNC_CLI_DOC(cmd, synopsis, about, opts, after) \
    {(cmd), (synopsis), (about), (opts), (int)(sizeof(opts) / sizeof((opts)[0])), (after)}

/* Print d's help: synopsis, about, the options (name and placeholder in a
 * 20-column field, the help beside it), after. */
void nnc_cli_help(FILE *f, const nnc_cli_doc *d);

/* nnc_cli_getopt's answers besides an option's index. */
enum { NNC_CLI_ARG = -1, NNC_CLI_END = -2, NNC_CLI_EXIT = -3 };

/* The next item of a command line (argv[*i..argc), *i advanced past it),
 * parsed against d's table ("--opt=value" was split into "--opt" "value"
 * by main).  Returns: an option's index into d->opts (*val its value, NULL
 * for a flag); NNC_CLI_ARG for a positional argument (*val); NNC_CLI_END
 * after the last; NNC_CLI_EXIT when the caller must return *rc: after
 * --help or -h (the help printed, EXIT_OK) and after an unknown option or a
 * missing value (a one-line error, EXIT_USAGE). */
int nnc_cli_getopt(const nnc_cli_doc *d, int argc, char **argv, int *i, const char **val, int *rc);

/* A command's one positional argument (what, "MODEL"): *slot = v when it is
 * not yet set.  Returns EXIT_OK, or EXIT_USAGE after a one-line error for
 * a second one ("more than one MODEL given") and for a single-dash word
 * that no table lists ("-x": an unknown option). */
int nnc_cli_one_positional(const nnc_cli_doc *d, const char *v, const char **slot, const char *what);

/* Returns: the index of option NAME in d's table, or -1. */
int nnc_cli_find(const nnc_cli_doc *d, const char *name);

/* "nncert CMD: bad value 'VAL' for OPT (see 'nncert CMD --help')";
 * returns EXIT_USAGE. */
int nnc_cli_bad_value(const nnc_cli_doc *d, const char *opt, const char *val);
/* Write S as a JSON string literal (quotes included). */
void nnc_cli_json_str(FILE *f, const char *s);
/* Write an output: "-" is standard output; a path naming something other
 * than a regular file (/dev/null, /dev/stdout, a FIFO) is written in place;
 * a regular file (through a symbolic link: its target) is replaced
 * atomically, FN writing a temporary file beside it that is then renamed
 * over it, so on any failure it is untouched.  Every write, flush and close
 * is checked.  Returns an exit code (EXIT_CANTCREAT on failure, with a
 * one-line error on stderr). */
int nnc_cli_write_atomic(const char *path, nnc_status (*fn)(FILE *, const void *, char *, size_t), const void *arg);
/* Before any work: whether PATH can be written as nnc_cli_write_atomic
 * would (its directory exists and is writable, or the file in place is).
 * Returns EXIT_OK, or EXIT_CANTCREAT after a one-line error on stderr. */
int nnc_cli_check_output(const char *path);
/* At exit: RC, or EXIT_CANTCREAT (with an error on stderr) when standard
 * output could not be written (a full disk, /dev/full, a closed pipe). */
int nnc_cli_finish_stdout(int rc);
/* Strict number parsing: the whole string, finite; 0 on success. */
int nnc_cli_parse_double(const char *s, double *out);
int nnc_cli_parse_u64(const char *s, uint64_t *out);
/* "LO,HI" with LO <= HI, both finite; 0 on success (lo, hi set). */
int nnc_cli_parse_clip(const char *s, double *lo, double *hi);
/* Parse and prepare the model at PATH without BatchNormalization folding
 * (folded weights are rounded products, a slightly different model from the
 * stored one that bounds must cover): what verify and bounds load. */
struct nnc_model;
nnc_status nnc_cli_load_unfolded(struct nnc_model **out, const char *path, char *err, size_t errlen);

/* A declared batch (ONNX files with a fixed leading dimension): B > 1 when
 * the model's one input declares B samples (not a symbolic N) and its one
 * output leads with B too; else 1. */
int64_t nnc_cli_declared_batch(const struct nnc_model *m);
/* Whether --row (row >= 0, or -1 when not given) fits a model: refused
 * (error printed, EXIT_DATAERR returned) for a model without a declared
 * batch, a row past it, a spec (spec_in inputs, spec_out outputs; -1 for
 * spec linf, which makes the spec) that is not of one sample, and a
 * one-sample spec (or spec linf) on a batch without --row.  EXIT_OK
 * otherwise: with row >= 0 the spec is of sample row. */
int nnc_cli_pick_row(const struct nnc_model *m, int64_t row, int64_t spec_in, int64_t spec_out, const char *what);

/* --device for the provers (cpu or gpu): *out NULL for the CPU; for the GPU,
 * *be filled with the CUDA kernels (nncert/gpu.h) and *out = be, once a CUDA
 * device answers.  Returns 0, or the exit code after printing why (usage
 * for another name; 69 without CUDA or a device). */
struct nnc_prv_backend;
int nnc_cli_prover_device(const char *cmd, const char *device, struct nnc_prv_backend *be,
                          const struct nnc_prv_backend **out);

/* cli/cmd_gate.c: the CI gate, signing keys, attestation checks. */
int nnc_cmd_gate(int argc, char **argv);
int nnc_cmd_keygen(int argc, char **argv);
int nnc_cmd_attest(int argc, char **argv);
int nnc_cmd_compile(int argc, char **argv);
int nnc_cmd_prove(int argc, char **argv);
int nnc_cmd_check(int argc, char **argv);
/* cli/cmd_plan.c, cli/cmd_dlrm_run.c: DLRM embedding placement and distributed runs. */
int nnc_cmd_plan(int argc, char **argv);
int nnc_cmd_dlrm_run(int argc, char **argv);
int nnc_cmd_dlrm_bounds(int argc, char **argv);
/* cli/cmd_bench.c: the runtime's throughput and latency on random batches. */
int nnc_cmd_bench(int argc, char **argv);
/* cli/cmd_bounds.c: sound output bounds over a box (ibp, crown, alpha). */
int nnc_cmd_bounds(int argc, char **argv);

/* Multi-process runs (cli/mpi.c): the command line alone initialises MPI. */
struct nnc_team;
/* Whether an MPI launcher (mpirun, srun) started this process, by the
 * variables it sets (Open MPI, PMIx, PMI). */
int nnc_cli_mpi_launched(void);
/* MPI_Init and a team over MPI_COMM_WORLD (wait_s: nnc_dist_team_create's).
 * Returns EXIT_OK (*team, *rank set), or an exit code after a one-line error
 * (no MPI in this build, MPI_Init failed). */
int nnc_cli_mpi_begin(const char *cmd, double wait_s, struct nnc_team **team, int *rank);
/* The job ends after a failure on this rank (the others may be waiting for
 * it in an exchange): MPI_Abort with code. */
void nnc_cli_mpi_abort(int code);
/* The team released, MPI_Finalize. */
void nnc_cli_mpi_end(struct nnc_team *team);
/* MPI over MPI_COMM_WORLD without a team (run --distributed, dlrm-run):
 * initialised when a launcher started this process (nnc_cli_mpi_launched)
 * or force, in a build with MPI.  Out: *comm (NNC_DIST_COMM_NONE when MPI
 * is not in use: one process), *rank, *size.  Returns EXIT_OK, or (the
 * message printed) EXIT_UNAVAILABLE when MPI_Init fails or force asks for
 * MPI in a build without it.  nnc_cli_mpi_world_end ends MPI where begin
 * started it. */
int nnc_cli_mpi_world_begin(const char *cmd, int force, nnc_dist_comm *comm, int *rank, int *size);
void nnc_cli_mpi_world_end(nnc_dist_comm comm);
/* body(argc, argv, team, rank): alone (team NULL, rank 0) unless dist or an
 * MPI launcher started this process; then as one rank of a team over
 * MPI_COMM_WORLD (wait_s: nnc_dist_team_create's), MPI ended after it, and
 * the job aborted when this rank fails (exit code 64 or above).
 * Returns body's exit code, or nnc_cli_mpi_begin's. */
int nnc_cli_mpi_run(const char *cmd, int dist, double wait_s, int (*body)(int, char **, const struct nnc_team *, int),
                    int argc, char **argv);

/* The Groth16 trust chain (cli/cmd_mpc.c). */
struct nnc_prv_mpc;
/* TITLE, then the 64 bytes as 4 lines of 4 big-endian 32-bit hex groups
 * (snarkjs's layout). */
void nnc_cli_print_hash(const char *title, const unsigned char h[64]);
/* The circuit hash and the contributions, newest first (snarkjs zkey verify). */
void nnc_cli_print_contributions(const struct nnc_prv_mpc *m);
/* groth16 setup CIRCUIT.r1cs POT.ptau KEY.zkey. */
int nnc_cmd_g16_setup_ptau(const char *r1cs_path, const char *ptau_path, const char *out);
/* zkey's options (contribute and beacon), in cli/nncert.c's table. */
enum { NNC_CLI_ZKEY_NAME, NNC_CLI_ZKEY_N, NNC_CLI_ZKEY_ENTROPY, NNC_CLI_ZKEY_E };
extern const nnc_cli_doc nnc_cli_zkey_doc;
/* zkey contribute | beacon | verify; argv[0] names which. */
int nnc_cmd_zkey_ceremony(int argc, char **argv);

#endif
