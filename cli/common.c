/* Shared helpers of the command-line front end (see cli/cli.h). */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int nnc_cli_exit_code(nnc_status st)
{
    switch (st) {
    case NNC_STATUS_OK: return EXIT_OK;
    case NNC_STATUS_IO: return EXIT_NOINPUT;
    case NNC_STATUS_PARSE: case NNC_STATUS_INVALID: return EXIT_DATAERR;
    case NNC_STATUS_UNSUPPORTED: return EXIT_UNAVAILABLE;
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
    fprintf(stderr, "nncert%s%s: %s (see 'nncert %s--help')\n", cmd ? " " : "", cmd ? cmd : "", msg, cmd ? "" : "");
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

/* Write to FILE atomically (temporary file, then rename). */
int nnc_cli_write_atomic(const char *path, nnc_status (*fn)(FILE *, const void *, char *, size_t), const void *arg)
{
    size_t tl = strlen(path) + 32;
    char *tmp = malloc(tl);
    char err[NNC_ERRBUF_SIZE] = "";
    if (tmp == NULL) return EXIT_SOFTWARE;
    snprintf(tmp, tl, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        fprintf(stderr, "nncert: error: cannot write %s: %s\n", path, strerror(errno));
        free(tmp);
        return EXIT_CANTCREAT;
    }
    nnc_status st = fn(f, arg, err, sizeof err);
    if (fclose(f) != 0 || st != NNC_STATUS_OK || rename(tmp, path) != 0) {
        fprintf(stderr, "nncert: error: cannot write %s\n", path);
        remove(tmp);
        free(tmp);
        return EXIT_CANTCREAT;
    }
    free(tmp);
    return EXIT_OK;
}

int nnc_cli_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || s == end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int nnc_cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || s == end) return -1;
    *out = (uint64_t)v;
    return 0;
}
