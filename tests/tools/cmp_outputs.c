/* cmp_outputs A.json B.json RTOL ATOL: compare two {"outputs": {NAME:
 * {"shape", "data"}}} files (nncert run / ort_run.js format).  Every output
 * of A must exist in B with the same element count, and every value must
 * satisfy |a - b| <= ATOL + RTOL * S, where S is the largest magnitude in
 * that output of B (errors are relative to the output's scale: a logit near
 * zero that results from cancellation carries the absolute rounding error of
 * its larger terms in any float32 implementation).  Prints the worst error
 * relative to S; exit 0 when all match, 1 otherwise, 2 on unreadable input. */
#include "nncert/json.h"
#include "nncert/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const nnc_json *load(const char *path, nnc_json_doc **doc)
{
    unsigned char *buf;
    size_t len;
    char err[NNC_ERRBUF_SIZE];
    if (nnc_read_file(path, (size_t)1 << 30, &buf, &len, err, sizeof err) ||
        nnc_json_parse(doc, (const char *)buf, len, err, sizeof err)) {
        fprintf(stderr, "cmp_outputs: %s: %s\n", path, err);
        exit(2);
    }
    free(buf);
    const nnc_json *o = nnc_json_get(nnc_json_root(*doc), "outputs");
    if (o == NULL || o->type != NNC_JSON_OBJECT) {
        fprintf(stderr, "cmp_outputs: %s: no \"outputs\" object\n", path);
        exit(2);
    }
    return o;
}

static double num(const nnc_json *j)
{
    if (j->type == NNC_JSON_NUMBER) return j->num;
    if (j->type == NNC_JSON_STRING && strcmp(j->str, "NaN") == 0) return NAN;
    if (j->type == NNC_JSON_STRING && strcmp(j->str, "Infinity") == 0) return INFINITY;
    if (j->type == NNC_JSON_STRING && strcmp(j->str, "-Infinity") == 0) return -INFINITY;
    return NAN;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: cmp_outputs A.json B.json RTOL ATOL\n");
        return 2;
    }
    nnc_json_doc *da, *db;
    const nnc_json *a = load(argv[1], &da), *b = load(argv[2], &db);
    double rtol = atof(argv[3]), atol = atof(argv[4]), worst = 0;
    long compared = 0;
    int bad = 0;
    for (const nnc_json *oa = a->child; oa; oa = oa->next) {
        const nnc_json *ob = nnc_json_get(b, oa->key);
        const nnc_json *xa = nnc_json_get(oa, "data"), *xb = ob ? nnc_json_get(ob, "data") : NULL;
        if (!xa || !xb || xa->len != xb->len) {
            printf("output '%s': missing or element counts differ\n", oa->key);
            bad = 1;
            continue;
        }
        double S = 0;
        for (const nnc_json *q = xb->child; q; q = q->next)
            if (isfinite(num(q)) && fabs(num(q)) > S) S = fabs(num(q));
        const nnc_json *p = xa->child, *q = xb->child;
        for (size_t k = 0; k < xa->len; k++, p = p->next, q = q->next) {
            double u = num(p), v = num(q);
            compared++;
            if (isnan(u) && isnan(v)) continue;
            double diff = fabs(u - v), scale = S;
            double rel = diff / fmax(scale, 1e-30);
            if (rel > worst) worst = rel;
            if (!(diff <= atol + rtol * scale)) {
                if (bad < 5) printf("output '%s'[%zu]: %.9g vs %.9g\n", oa->key, k, u, v);
                bad++;
            }
        }
    }
    printf("compared %ld values, worst error relative to the output scale %.3g (rtol %g, atol %g): %s\n", compared, worst, rtol, atol,
           bad ? "MISMATCH" : "match");
    nnc_json_doc_destroy(da);
    nnc_json_doc_destroy(db);
    return bad ? 1 : 0;
}
