/* Checks zk/poseidon.c against reference data written by
 * tests/tools/poseidon_ref.mjs (circomlibjs): every round constant and MDS
 * entry of every width t = 2..17 must be present and equal, and every hash
 * line must equal nnc_prv_poseidon_hash on the same inputs.
 *   poseidon_check REF.txt
 * Exit: 0 all equal and complete; 1 a mismatch or a missing record;
 *       2 unreadable or malformed reference file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nncert/poseidon.h"

#define N_WIDTHS (NNC_PRV_POSEIDON_T_MAX - NNC_PRV_POSEIDON_T_MIN + 1)
#define MAX_FIELDS (NNC_PRV_POSEIDON_T_MAX + 8)

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int parse_fr(const char *s, nnc_prv_fr *out)
{
    return nnc_prv_fr_parse_dec(out, s, 0, NULL, 0) == NNC_STATUS_OK;
}

int main(int argc, char **argv)
{
    /* seen counts per width, to prove the file covers every constant once */
    static unsigned char seen_c[N_WIDTHS][NNC_PRV_POSEIDON_T_MAX * 100];
    static unsigned char seen_m[N_WIDTHS][NNC_PRV_POSEIDON_T_MAX * NNC_PRV_POSEIDON_T_MAX];
    long n_hash[N_WIDTHS] = {0};
    long bad = 0, n_c = 0, n_m = 0, n_h = 0, lineno = 0;
    char line[8192];
    FILE *f;

    if (argc != 2) {
        fprintf(stderr, "usage: poseidon_check REF.txt\n");
        return 2;
    }
    if (!(f = fopen(argv[1], "r"))) {
        fprintf(stderr, "poseidon_check: cannot open %s\n", argv[1]);
        return 2;
    }
    while (fgets(line, sizeof line, f)) {
        char *tok[MAX_FIELDS], *save = NULL;
        int nt = 0;
        lineno++;
        if (!strchr(line, '\n')) {
            fprintf(stderr, "poseidon_check: line %ld too long\n", lineno);
            return 2;
        }
        for (char *p = strtok_r(line, " \n", &save); p; p = strtok_r(NULL, " \n", &save)) {
            if (nt == MAX_FIELDS) {
                fprintf(stderr, "poseidon_check: line %ld has too many fields\n", lineno);
                return 2;
            }
            tok[nt++] = p;
        }
        if (nt == 0)
            continue;
        long t, i, j, n;
        nnc_prv_fr want;
        if (!strcmp(tok[0], "C") && nt == 4 && parse_int(tok[1], 2, 17, &t) &&
            parse_int(tok[2], 0, 100 * t - 1, &i) && parse_fr(tok[3], &want)) {
            const nnc_prv_poseidon_params *p = nnc_prv_poseidon_params_get((int)t);
            if (i >= (long)t * (p->n_full + p->n_partial)) {
                fprintf(stderr, "poseidon_check: line %ld: constant index %ld beyond width %ld\n", lineno, i, t);
                bad++;
            } else if (memcmp(&p->c[i], &want, sizeof want)) {
                if (bad < 10) fprintf(stderr, "poseidon_check: t=%ld round constant %ld differs\n", t, i);
                bad++;
            }
            seen_c[t - 2][i]++;
            n_c++;
        } else if (!strcmp(tok[0], "M") && nt == 5 && parse_int(tok[1], 2, 17, &t) &&
                   parse_int(tok[2], 0, t - 1, &i) && parse_int(tok[3], 0, t - 1, &j) && parse_fr(tok[4], &want)) {
            const nnc_prv_poseidon_params *p = nnc_prv_poseidon_params_get((int)t);
            if (memcmp(&p->m[i * t + j], &want, sizeof want)) {
                if (bad < 10) fprintf(stderr, "poseidon_check: t=%ld MDS[%ld][%ld] differs\n", t, i, j);
                bad++;
            }
            seen_m[t - 2][i * t + j]++;
            n_m++;
        } else if (!strcmp(tok[0], "H") && nt >= 5 && parse_int(tok[2], 1, 16, &n) && nt == 4 + n) {
            nnc_prv_fr in[16], got;
            int ok = 1;
            for (long k = 0; k < n && ok; k++)
                ok = parse_fr(tok[3 + k], &in[k]);
            if (!ok || !parse_fr(tok[3 + n], &want)) {
                fprintf(stderr, "poseidon_check: line %ld: bad field element\n", lineno);
                return 2;
            }
            if (nnc_prv_poseidon_hash(&got, in, (size_t)n) != NNC_STATUS_OK || memcmp(&got, &want, sizeof got)) {
                if (bad < 10) fprintf(stderr, "poseidon_check: line %ld: %s hash of %ld inputs differs\n", lineno, tok[1], n);
                bad++;
            }
            n_hash[n - 1]++;
            n_h++;
        } else {
            fprintf(stderr, "poseidon_check: line %ld: malformed record\n", lineno);
            return 2;
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "poseidon_check: read error on %s\n", argv[1]);
        return 2;
    }
    fclose(f);

    /* completeness: each constant exactly once, at least 3 hashes per arity */
    for (int w = 0; w < N_WIDTHS; w++) {
        const nnc_prv_poseidon_params *p = nnc_prv_poseidon_params_get(w + 2);
        long nc = (long)p->t * (p->n_full + p->n_partial);
        for (long k = 0; k < nc; k++)
            if (seen_c[w][k] != 1) {
                fprintf(stderr, "poseidon_check: t=%d round constant %ld seen %d times\n", w + 2, k, seen_c[w][k]);
                bad++;
                break;
            }
        for (long k = 0; k < (long)p->t * p->t; k++)
            if (seen_m[w][k] != 1) {
                fprintf(stderr, "poseidon_check: t=%d MDS entry %ld seen %d times\n", w + 2, k, seen_m[w][k]);
                bad++;
                break;
            }
        if (n_hash[w] < 3) {
            fprintf(stderr, "poseidon_check: only %ld hashes of %d inputs\n", n_hash[w], w + 1);
            bad++;
        }
    }
    printf("poseidon_check: %ld round constants, %ld MDS entries, %ld hashes, %ld differences\n", n_c, n_m, n_h, bad);
    return bad ? 1 : 0;
}
