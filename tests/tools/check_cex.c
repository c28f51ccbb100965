/* check_cex SPEC INPUT.json OUTPUT.json: exit 0 when the input lies in one of
 * the spec's cases and the output (an {"outputs": ...} file, e.g. written by
 * onnxruntime) falls in that case's unsafe set; 1 otherwise. */
#include "nncert/json.h"
#include "nncert/model.h"
#include "nncert/spec.h"

#include <stdio.h>
#include <stdlib.h>

static double *flat(const char *path, const char *top, int *n)
{
    unsigned char *buf;
    size_t len;
    char err[NNC_ERRBUF_SIZE];
    nnc_json_doc *d;
    if (nnc_read_file(path, (size_t)1 << 28, &buf, &len, err, sizeof err) || nnc_json_parse(&d, (const char *)buf, len, err, sizeof err)) {
        fprintf(stderr, "check_cex: %s: %s\n", path, err);
        exit(2);
    }
    free(buf);
    const nnc_json *o = nnc_json_get(nnc_json_root(d), top);
    const nnc_json *data = (o && o->child) ? nnc_json_get(o->child, "data") : NULL;
    if (data == NULL) {
        fprintf(stderr, "check_cex: %s: no %s data\n", path, top);
        exit(2);
    }
    double *v = malloc(sizeof(double) * (data->len + 1));
    int k = 0;
    for (const nnc_json *c = data->child; c; c = c->next) v[k++] = c->num;
    *n = k;
    nnc_json_doc_destroy(d);
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: check_cex SPEC INPUT.json OUTPUT.json\n");
        return 2;
    }
    char err[NNC_ERRBUF_SIZE];
    nnc_spec *s;
    if (nnc_spc_parse_file(&s, argv[1], err, sizeof err)) {
        fprintf(stderr, "check_cex: %s\n", err);
        return 2;
    }
    int nx, ny, rc = 1;
    double *x = flat(argv[2], "inputs", &nx), *y = flat(argv[3], "outputs", &ny);
    if (nx != nnc_spc_num_inputs(s) || ny != nnc_spc_num_outputs(s)) {
        printf("dimensions differ\n");
    } else {
        for (int k = 0; k < nnc_spc_num_cases(s) && rc; k++)
            if (nnc_spc_in_region(s, k, x) && nnc_spc_unsafe_disjunct(s, k, y) >= 0) {
                printf("confirmed: case %d\n", k);
                rc = 0;
            }
        if (rc) printf("not a counterexample: input outside every case or output safe\n");
    }
    free(x);
    free(y);
    nnc_spc_destroy(s);
    return rc;
}
