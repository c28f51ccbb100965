/* libFuzzer target: the JSON reader.  Invariant checked: a successful parse
 * has a root whose container counts match its children. */
#include "nncert/json.h"

#include <stdlib.h>

static size_t count(const nnc_json *j)
{
    size_t n = 0;
    for (const nnc_json *c = j->child; c; c = c->next) {
        n++;
        if ((c->type == NNC_JSON_ARRAY || c->type == NNC_JSON_OBJECT) && count(c) != c->len) abort();
    }
    return n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    nnc_json_doc *d;
    char err[256];
    if (nnc_json_parse(&d, (const char *)data, size, err, sizeof err) == NNC_STATUS_OK) {
        const nnc_json *r = nnc_json_root(d);
        if ((r->type == NNC_JSON_ARRAY || r->type == NNC_JSON_OBJECT) && count(r) != r->len) abort();
        nnc_json_doc_destroy(d);
    }
    return 0;
}
