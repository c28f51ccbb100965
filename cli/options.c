/* Option tables: one per command, parsing its command line and printing its
 * --help (see cli/cli.h). */
#include "cli/cli.h"

#include <string.h>

/* The help column: options and placeholders are padded to this width, after
 * two spaces of indent; longer ones put two spaces before their help. */
#define HELP_COL 22

void nnc_cli_help(FILE *f, const nnc_cli_doc *d)
{
    fputs(d->synopsis, f);
    if (d->about[0]) {
        fputc('\n', f);
        fputs(d->about, f);
    }
    if (d->nopts > 0) fputc('\n', f);
    for (int k = 0; k < d->nopts; k++) {
        const nnc_cli_opt *o = &d->opts[k];
        if (o->name == NULL) continue; /* a shared index this command lacks */
        int w = fprintf(f, "  %s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "%*s", w <= HELP_COL - 2 ? HELP_COL - w : 2, "");
        for (const char *h = o->help; *h; h++) {
            fputc(*h, f);
            if (*h == '\n' && h[1]) fprintf(f, "%*s", HELP_COL, "");
        }
        fputc('\n', f);
    }
    if (d->after[0]) {
        fputc('\n', f);
        fputs(d->after, f);
    }
}

int nnc_cli_find(const nnc_cli_doc *d, const char *name)
{
    for (int k = 0; k < d->nopts; k++)
        if (d->opts[k].name && strcmp(d->opts[k].name, name) == 0) return k;
    return -1;
}

int nnc_cli_getopt(const nnc_cli_doc *d, int argc, char **argv, int *i, const char **val, int *rc)
{
    *val = NULL;
    if (*i >= argc) return NNC_CLI_END;
    const char *a = argv[(*i)++];
    if (nnc_cli_is_help(a)) {
        nnc_cli_help(stdout, d);
        *rc = EXIT_OK;
        return NNC_CLI_EXIT;
    }
    /* a table may list single-dash options ("-o"); other arguments that do
     * not start with "--" ("-" alone: standard input or output, negative
     * numbers) are positional */
    int k = a[0] == '-' && a[1] ? nnc_cli_find(d, a) : -1;
    /* "-n=N" (snarkjs's spelling; main splits "--opt=value" before this) */
    const char *eq = k < 0 && a[0] == '-' && a[1] && a[1] != '-' ? strchr(a, '=') : NULL;
    if (eq && eq - a < 32) {
        char name[32];
        memcpy(name, a, (size_t)(eq - a));
        name[eq - a] = 0;
        k = nnc_cli_find(d, name);
        if (k >= 0 && d->opts[k].arg) {
            *val = eq + 1;
            return k;
        }
        k = -1;
    }
    if (k < 0 && (a[0] != '-' || a[1] != '-')) {
        *val = a;
        return NNC_CLI_ARG;
    }
    if (k < 0) {
        *rc = nnc_cli_unknown_option(d->cmd, a);
        return NNC_CLI_EXIT;
    }
    if (d->opts[k].arg) {
        if (*i >= argc) {
            *rc = nnc_cli_needs_value(d->cmd, a);
            return NNC_CLI_EXIT;
        }
        *val = argv[(*i)++];
    }
    return k;
}

int nnc_cli_bad_value(const nnc_cli_doc *d, const char *opt, const char *val)
{
    fprintf(stderr, "nncert %s: bad value '%s' for %s (see 'nncert %s --help')\n", d->cmd, val, opt, d->cmd);
    return EXIT_USAGE;
}

int nnc_cli_one_positional(const nnc_cli_doc *d, const char *v, const char **slot, const char *what)
{
    if (v[0] == '-' && v[1]) return nnc_cli_unknown_option(d->cmd, v);
    if (*slot != NULL) {
        char msg[96];
        snprintf(msg, sizeof msg, "more than one %s given", what);
        return nnc_cli_usage_error(d->cmd, msg);
    }
    *slot = v;
    return EXIT_OK;
}
