/* Reading model inputs from JSON and .npy files. */
#include "nncert/json.h"
#include "models/model_impl.h"

#include <stdlib.h>
#include <string.h>

#define NNC_MAX_INPUT_FILE ((size_t)1 << 31)

void nnc_inputs_clear(nnc_inputs *in)
{
    if (in == NULL || in->data == NULL) return;
    for (int i = 0; i < in->n; i++) free(in->data[i]);
    free(in->data);
    in->data = NULL;
}

static uint64_t rd_le(const unsigned char *p, int n)
{
    uint64_t u = 0;
    for (int k = n - 1; k >= 0; k--) u = u << 8 | p[k];
    return u;
}

nnc_status nnc_npy_parse(const unsigned char *buf, size_t len, double **data, int *rank,
                         int64_t dims[NNC_MAX_RANK], char *err, size_t errlen)
{
    *data = NULL;
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) return nnc_err(err, errlen, NNC_STATUS_PARSE, "not a .npy file (bad magic)");
    int major = buf[6];
    size_t hl, off;
    if (major == 1) {
        hl = (size_t)rd_le(buf + 8, 2);
        off = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) return nnc_err(err, errlen, NNC_STATUS_PARSE, ".npy: truncated header");
        hl = (size_t)rd_le(buf + 8, 4);
        off = 12;
    } else {
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, ".npy: format version %d is not supported", major);
    }
    if (hl > len - off) return nnc_err(err, errlen, NNC_STATUS_PARSE, ".npy: truncated header");
    char hdr[4096];
    if (hl >= sizeof hdr) return nnc_err(err, errlen, NNC_STATUS_LIMIT, ".npy: header too long");
    memcpy(hdr, buf + off, hl);
    hdr[hl] = 0;
    const char *d = strstr(hdr, "'descr':"), *fo = strstr(hdr, "'fortran_order':"), *sh = strstr(hdr, "'shape':");
    if (!d || !fo || !sh) return nnc_err(err, errlen, NNC_STATUS_PARSE, ".npy: header lacks descr, fortran_order or shape");
    d += 8;
    while (*d == ' ') d++;
    char descr[16];
    if (*d != '\'') return nnc_err(err, errlen, NNC_STATUS_PARSE, ".npy: bad descr");
    size_t dl = 0;
    for (d++; *d && *d != '\'' && dl < sizeof descr - 1; d++) descr[dl++] = *d;
    descr[dl] = 0;
    fo += 16;
    while (*fo == ' ') fo++;
    if (strncmp(fo, "False", 5) != 0) return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, ".npy: Fortran-order arrays are not supported");
    sh += 8;
    while (*sh == ' ') sh++;
    if (*sh != '(') return nnc_err(err, errlen, NNC_STATUS_PARSE, ".npy: bad shape");
    sh++;
    int r = 0;
    for (;;) {
        while (*sh == ' ' || *sh == ',') sh++;
        if (*sh == ')') break;
        if (!(*sh >= '0' && *sh <= '9')) return nnc_err(err, errlen, NNC_STATUS_PARSE, ".npy: bad shape");
        if (r == NNC_MAX_RANK) return nnc_err(err, errlen, NNC_STATUS_LIMIT, ".npy: rank above %d", NNC_MAX_RANK);
        char *end;
        unsigned long long v = strtoull(sh, &end, 10);
        if (v > (1ull << 40)) return nnc_err(err, errlen, NNC_STATUS_LIMIT, ".npy: dimension too large");
        dims[r++] = (int64_t)v;
        sh = end;
    }
    const char *kinds[] = {"<f4", "<f8", "<i4", "<i8", "|u1", "<u1", "|i1", "|b1"};
    int kind = -1;
    for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++)
        if (strcmp(descr, kinds[k]) == 0) kind = k;
    if (kind < 0) return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, ".npy: element type '%s' is not supported", descr);
    int es = kind == 0 || kind == 2 ? 4 : (kind == 1 || kind == 3 ? 8 : 1);
    int64_t n;
    if (nnc_shape_numel(r, dims, 8, &n) != 0) return nnc_err(err, errlen, NNC_STATUS_LIMIT, ".npy: array too large");
    size_t body = len - off - hl;
    if (body != (size_t)n * (size_t)es)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, ".npy: data has %zu bytes, shape and type need %zu", body,
                       (size_t)n * (size_t)es);
    double *out = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (out == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    const unsigned char *p = buf + off + hl;
    for (int64_t k = 0; k < n; k++, p += es) {
        uint64_t u = rd_le(p, es);
        switch (kind) {
        case 0: { uint32_t w = (uint32_t)u; float f; memcpy(&f, &w, 4); out[k] = f; break; }
        case 1: { double f; memcpy(&f, &u, 8); out[k] = f; break; }
        case 2: out[k] = (int32_t)u; break;
        case 3: out[k] = (double)(int64_t)u; break;
        case 6: out[k] = (int8_t)u; break;
        case 7: out[k] = u != 0; break;
        default: out[k] = (double)u; break;
        }
    }
    *data = out;
    *rank = r;
    return NNC_STATUS_OK;
}

/* Count numbers in a (possibly nested) JSON array; checks rectangularity
 * loosely (every leaf is a number). Returns -1 on a non-number leaf. */
static int64_t count_numbers(const nnc_json *j)
{
    if (j->type == NNC_JSON_NUMBER) return 1;
    if (j->type != NNC_JSON_ARRAY) return -1;
    int64_t t = 0;
    for (const nnc_json *c = j->child; c; c = c->next) {
        int64_t k = count_numbers(c);
        if (k < 0) return -1;
        t += k;
    }
    return t;
}

static void flatten_numbers(const nnc_json *j, double *out, int64_t *pos)
{
    if (j->type == NNC_JSON_NUMBER) {
        out[(*pos)++] = j->num;
        return;
    }
    for (const nnc_json *c = j->child; c; c = c->next) flatten_numbers(c, out, pos);
}

/* Nested arrays must be rectangular: all siblings have the same structure. */
static int rectangular(const nnc_json *j)
{
    if (j->type != NNC_JSON_ARRAY) return 1;
    const nnc_json *first = j->child;
    for (const nnc_json *c = j->child; c; c = c->next) {
        if (c->type != first->type) return 0;
        if (c->type == NNC_JSON_ARRAY && c->len != first->len) return 0;
        if (!rectangular(c)) return 0;
    }
    return 1;
}

static nnc_status take_array(const nnc_model *m, int idx, const nnc_json *arr, double **data, int *batch,
                             char *err, size_t errlen)
{
    nnc_tensor_info ti;
    nnc_mdl_input_info(m, idx, &ti);
    if (arr->type != NNC_JSON_ARRAY && arr->type != NNC_JSON_NUMBER)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "input '%s': expected an array of numbers", ti.name);
    if (!rectangular(arr)) return nnc_err(err, errlen, NNC_STATUS_INVALID, "input '%s': nested arrays are not rectangular", ti.name);
    int64_t cnt = count_numbers(arr);
    if (cnt < 0) return nnc_err(err, errlen, NNC_STATUS_INVALID, "input '%s': array holds a non-number", ti.name);
    if (ti.numel == 0 || cnt == 0 || cnt % ti.numel != 0)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "input '%s': %lld values given, expected a positive multiple of %lld",
                       ti.name, (long long)cnt, (long long)ti.numel);
    if (cnt / ti.numel > (1 << 30)) return nnc_err(err, errlen, NNC_STATUS_LIMIT, "input '%s': too many samples", ti.name);
    *data = malloc((size_t)cnt * sizeof(double));
    if (*data == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    int64_t pos = 0;
    flatten_numbers(arr, *data, &pos);
    *batch = (int)(cnt / ti.numel);
    return NNC_STATUS_OK;
}

nnc_status nnc_mdl_parse_inputs(const nnc_model *m, const unsigned char *buf, size_t len, int is_npy,
                                nnc_inputs *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int n = nnc_mdl_num_inputs(m);
    out->n = n;
    out->data = calloc((size_t)(n ? n : 1), sizeof(double *));
    if (out->data == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    nnc_status st = NNC_STATUS_OK;
    int *batches = calloc((size_t)(n ? n : 1), sizeof(int));
    if (batches == NULL) {
        nnc_inputs_clear(out);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    if (is_npy) {
        if (n != 1) {
            st = nnc_err(err, errlen, NNC_STATUS_INVALID, "a .npy file holds one array but the model has %d inputs (use a JSON object keyed by input name)", n);
            goto done;
        }
        int r;
        int64_t dims[NNC_MAX_RANK];
        if ((st = nnc_npy_parse(buf, len, &out->data[0], &r, dims, err, errlen))) goto done;
        nnc_tensor_info ti;
        nnc_mdl_input_info(m, 0, &ti);
        int64_t cnt = 1;
        for (int d = 0; d < r; d++) cnt *= dims[d];
        if (ti.numel == 0 || cnt == 0 || cnt % ti.numel) {
            st = nnc_err(err, errlen, NNC_STATUS_INVALID, "input '%s': %lld values given, expected a positive multiple of %lld",
                         ti.name, (long long)cnt, (long long)ti.numel);
            goto done;
        }
        batches[0] = (int)(cnt / ti.numel);
    } else {
        nnc_json_doc *doc;
        if ((st = nnc_json_parse(&doc, (const char *)buf, len, err, errlen))) goto done;
        const nnc_json *root = nnc_json_root(doc);
        if (root->type == NNC_JSON_OBJECT) {
            const nnc_json *inner = nnc_json_get(root, "inputs");
            if (inner && inner->type == NNC_JSON_OBJECT) root = inner;
            for (const nnc_json *c = root->child; c && !st; c = c->next) {
                int found = -1;
                for (int i = 0; i < n; i++) {
                    nnc_tensor_info ti;
                    nnc_mdl_input_info(m, i, &ti);
                    if (strcmp(ti.name, c->key) == 0) found = i;
                }
                if (found < 0) st = nnc_err(err, errlen, NNC_STATUS_INVALID, "the model has no input named '%s'", c->key);
                else if (out->data[found]) st = nnc_err(err, errlen, NNC_STATUS_INVALID, "input '%s' given twice", c->key);
                else {
                    const nnc_json *arr = c->type == NNC_JSON_OBJECT ? nnc_json_get(c, "data") : c;
                    if (arr == NULL) st = nnc_err(err, errlen, NNC_STATUS_INVALID, "input '%s': object without \"data\"", c->key);
                    else st = take_array(m, found, arr, &out->data[found], &batches[found], err, errlen);
                }
            }
            for (int i = 0; i < n && !st; i++)
                if (out->data[i] == NULL) {
                    nnc_tensor_info ti;
                    nnc_mdl_input_info(m, i, &ti);
                    st = nnc_err(err, errlen, NNC_STATUS_INVALID, "input '%s' is missing", ti.name);
                }
        } else if (n != 1) {
            st = nnc_err(err, errlen, NNC_STATUS_INVALID, "the model has %d inputs: give a JSON object keyed by input name", n);
        } else {
            st = take_array(m, 0, root, &out->data[0], &batches[0], err, errlen);
        }
        nnc_json_doc_destroy(doc);
    }
    if (!st) {
        for (int i = 1; i < n; i++)
            if (batches[i] != batches[0]) {
                st = nnc_err(err, errlen, NNC_STATUS_INVALID, "inputs disagree on the number of samples (%d vs %d)", batches[0], batches[i]);
                break;
            }
        out->batch = n ? batches[0] : 1;
    }
done:
    free(batches);
    if (st) nnc_inputs_clear(out);
    return st;
}

nnc_status nnc_mdl_read_inputs(const nnc_model *m, const char *path, nnc_inputs *out, char *err, size_t errlen)
{
    unsigned char *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    nnc_status st = nnc_read_file(path, NNC_MAX_INPUT_FILE, &buf, &len, err, errlen);
    if (st) return st;
    int is_npy = len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0;
    char inner[NNC_ERRBUF_SIZE] = "";
    st = nnc_mdl_parse_inputs(m, buf, len, is_npy, out, inner, sizeof inner);
    if (st) nnc_err(err, errlen, st, "%s: %s", path, inner);
    free(buf);
    return st;
}
