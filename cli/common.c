/* Shared helpers of the command-line front end (see cli/cli.h). */
#include "cli/cli.h"
#include "nncert/gpu.h"
#include "nncert/verifier.h"
#include "nncert/model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int nnc_cli_exit_code(nnc_status st)
{
    switch (st) {
    case NNC_STATUS_OK: return EXIT_OK;
    case NNC_STATUS_IO: return EXIT_NOINPUT;
    case NNC_STATUS_PARSE: case NNC_STATUS_INVALID: return EXIT_DATAERR;
    case NNC_STATUS_UNSUPPORTED: case NNC_STATUS_DEVICE: return EXIT_UNAVAILABLE;
    case NNC_STATUS_LIMIT: return EXIT_LIMIT;
    case NNC_STATUS_NOMEM: return EXIT_SOFTWARE;
    case NNC_STATUS_ARG: return EXIT_USAGE;
    }
    return EXIT_SOFTWARE;
}

int nnc_cli_fail(nnc_status st, const char *msg)
{
    fprintf(stderr, "nncert: error: %s\n", msg);
    return nnc_cli_exit_code(st);
}

int nnc_cli_usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "nncert%s%s: %s (see 'nncert %s%s--help')\n", cmd ? " " : "", cmd ? cmd : "", msg, cmd ? cmd : "",
            cmd ? " " : "");
    return EXIT_USAGE;
}

int nnc_cli_unknown_option(const char *cmd, const char *opt)
{
    fprintf(stderr, "nncert %s: unknown option '%s' (see 'nncert %s --help')\n", cmd, opt, cmd);
    return EXIT_USAGE;
}

int nnc_cli_needs_value(const char *cmd, const char *opt)
{
    fprintf(stderr, "nncert %s: option '%s' needs a value (see 'nncert %s --help')\n", cmd, opt, cmd);
    return EXIT_USAGE;
}

int nnc_cli_is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

void nnc_cli_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* Where an output goes.  "-": standard output.  A path naming (after
 * symbolic links) something other than a regular file, such as /dev/null,
 * /dev/stdout, a FIFO or a terminal, a path under /dev or /proc, or a
 * dangling link: opened and written in place, never replaced.  A regular file, or a new name: written to a
 * temporary file beside it, then renamed over it, so that a failed run
 * leaves the old file whole; through a symbolic link the link's target is
 * the file replaced, so the link stays.  Out: *target (malloc'd: the path
 * to replace) or NULL when written in place.  Returns 0, or -1 with errno. */
static int out_target(const char *path, char **target)
{
    struct stat st, lst;
    *target = NULL;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) return 0;
        /* /dev/stdout, /dev/fd/N, /proc/self/fd/N: descriptors, not files */
        if (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0) return 0;
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
            *target = realpath(path, NULL);
            return *target ? 0 : -1;
        }
    } else {
        if (errno != ENOENT) return -1;
        if (lstat(path, &lst) == 0) return 0; /* a dangling link: fopen creates its target */
    }
    *target = strdup(path);
    return *target ? 0 : -1;
}

/* The directory part of path, malloc'd ("." when none). */
static char *dir_of(const char *path)
{
    const char *sl = strrchr(path, '/');
    if (sl == NULL) return strdup(".");
    if (sl == path) return strdup("/");
    char *d = malloc((size_t)(sl - path) + 1);
    if (d) {
        memcpy(d, path, (size_t)(sl - path));
        d[sl - path] = 0;
    }
    return d;
}

int nnc_cli_check_output(const char *path)
{
    if (strcmp(path, "-") == 0) return EXIT_OK;
    char *target;
    int bad = out_target(path, &target) != 0;
    struct stat st;
    if (!bad && target == NULL && stat(path, &st) == 0) {
        bad = access(path, W_OK) != 0; /* written in place */
    } else if (!bad) {
        /* a file made in the directory: the temporary beside the target,
         * or a dangling link's target */
        char *dir = dir_of(target ? target : path);
        bad = dir == NULL || access(dir, W_OK | X_OK) != 0;
        free(dir);
    }
    int e = errno;
    free(target);
    if (bad) {
        fprintf(stderr, "nncert: error: cannot write %s: %s\n", path, strerror(e));
        return EXIT_CANTCREAT;
    }
    return EXIT_OK;
}

/* Finish a stream written in place: flushed and checked; 0 or -1. */
static int finish(FILE *f, int is_stdout)
{
    int bad = fflush(f) != 0 || ferror(f);
    if (!is_stdout) bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

int nnc_cli_write_atomic(const char *path, nnc_status (*fn)(FILE *, const void *, char *, size_t), const void *arg)
{
    char err[NNC_ERRBUF_SIZE] = "";
    char *target = NULL, *tmp = NULL;
    int to_stdout = strcmp(path, "-") == 0;
    struct stat ps, so;
    /* a name of our own standard output (/dev/stdout, /dev/fd/1, the file
     * or pipe it is redirected to) goes through stdout's stream, in order
     * with what is printed there */
    if (!to_stdout && stat(path, &ps) == 0 && fstat(fileno(stdout), &so) == 0 && ps.st_dev == so.st_dev &&
        ps.st_ino == so.st_ino)
        to_stdout = 1;
    if (!to_stdout && out_target(path, &target) != 0) {
        fprintf(stderr, "nncert: error: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_CANTCREAT;
    }
    if (target) { /* replaced: a temporary file beside it, renamed over it */
        size_t tl = strlen(target) + 32;
        if ((tmp = malloc(tl)) == NULL) {
            free(target);
            return EXIT_SOFTWARE;
        }
        snprintf(tmp, tl, "%s.tmp%ld", target, (long)getpid());
    }
    FILE *f = to_stdout ? stdout : fopen(tmp ? tmp : path, "w");
    if (f == NULL) {
        fprintf(stderr, "nncert: error: cannot write %s: %s\n", path, strerror(errno));
        free(tmp);
        free(target);
        return EXIT_CANTCREAT;
    }
    errno = 0;
    nnc_status st = fn(f, arg, err, sizeof err);
    int bad = finish(f, to_stdout) != 0 || st != NNC_STATUS_OK || (tmp && rename(tmp, target) != 0);
    if (bad) {
        fprintf(stderr, "nncert: error: cannot write %s%s%s\n", to_stdout ? "standard output" : path, errno ? ": " : "",
                errno ? strerror(errno) : "");
        if (tmp) remove(tmp);
    }
    free(tmp);
    free(target);
    return bad ? EXIT_CANTCREAT : EXIT_OK;
}

int nnc_cli_finish_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nncert: error: cannot write standard output: %s\n", strerror(errno ? errno : EIO));
        return EXIT_CANTCREAT;
    }
    return rc;
}

int nnc_cli_parse_double(const char *s, double *out) { return nnc_parse_double(s, out); }

int nnc_cli_parse_u64(const char *s, uint64_t *out) { return nnc_parse_u64(s, out); }

int nnc_cli_parse_clip(const char *s, double *lo, double *hi)
{
    char buf[128];
    if (strlen(s) >= sizeof buf) return -1;
    snprintf(buf, sizeof buf, "%s", s);
    char *comma = strchr(buf, ',');
    if (comma == NULL) return -1;
    *comma = 0;
    double l, h;
    if (nnc_cli_parse_double(buf, &l) || nnc_cli_parse_double(comma + 1, &h) || l > h) return -1;
    *lo = l;
    *hi = h;
    return 0;
}

nnc_status nnc_cli_load_unfolded(nnc_model **out, const char *path, char *err, size_t errlen)
{
    return nnc_vrf_load_model(out, path, err, errlen);
}

int64_t nnc_cli_declared_batch(const nnc_model *m) { return nnc_vrf_declared_batch(m); }

int nnc_cli_pick_row(const nnc_model *m, int64_t row, int64_t spec_in, int64_t spec_out, const char *what)
{
    char msg[NNC_ERRBUF_SIZE];
    nnc_status st = nnc_vrf_check_row(m, row, spec_in, spec_out, what, "--row", msg, sizeof msg);
    return st ? nnc_cli_fail(st, msg) : EXIT_OK;
}

int nnc_cli_prover_device(const char *cmd, const char *device, nnc_prv_backend *be, const nnc_prv_backend **out)
{
    *out = NULL;
    if (strcmp(device, "cpu") == 0) return 0;
    if (strcmp(device, "gpu") != 0) return nnc_cli_usage_error(cmd, "--device must be cpu or gpu");
    char err[NNC_ERRBUF_SIZE] = "";
    int count = 0;
    nnc_status st = nnc_gpu_device_count(&count, err, sizeof err);
    if (st == NNC_STATUS_OK && count < 1) st = nnc_err(err, sizeof err, NNC_STATUS_DEVICE, "no CUDA device found");
    if (st) {
        char msg[NNC_ERRBUF_SIZE + 32];
        snprintf(msg, sizeof msg, "--device gpu: %s", err);
        return nnc_cli_fail(st, msg);
    }
    *be = (nnc_prv_backend){nnc_gpu_g1_msm, nnc_gpu_g2_msm, nnc_gpu_ntt, nnc_gpu_coset_ntt};
    *out = be;
    return 0;
}
