#include "nncert/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arena of fixed-size blocks; nodes and strings are carved from it. */
typedef struct block {
    struct block *next;
    size_t used, cap;
    unsigned char data[];
} block;

struct nnc_json_doc {
    block *blocks;
    nnc_json *root;
};

typedef struct parser {
    const char *s, *end, *p;
    nnc_json_doc *doc;
    char *err;
    size_t errlen;
    nnc_status st;
} parser;

static void *arena_alloc(nnc_json_doc *d, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (d->blocks == NULL || d->blocks->cap - d->blocks->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        block *b = malloc(sizeof *b + cap);
        if (b == NULL) return NULL;
        b->next = d->blocks;
        b->used = 0;
        b->cap = cap;
        d->blocks = b;
    }
    void *r = d->blocks->data + d->blocks->used;
    d->blocks->used += n;
    return r;
}

static void fail(parser *ps, nnc_status st, const char *what)
{
    if (ps->st) return;
    int line = 1, col = 1;
    for (const char *q = ps->s; q < ps->p && q < ps->end; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    ps->st = nnc_err(ps->err, ps->errlen, st, "JSON line %d column %d: %s", line, col, what);
}

static void ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static char *parse_string(parser *ps, size_t *outlen)
{
    /* ps->p at the opening quote */
    const char *q = ++ps->p;
    size_t cap = 0;
    while (q < ps->end && *q != '"') {
        if (*q == '\\') q++;
        q++;
        cap++;
    }
    if (q >= ps->end) {
        fail(ps, NNC_STATUS_PARSE, "unterminated string");
        return NULL;
    }
    char *out = arena_alloc(ps->doc, cap * 4 + 1), *o = out;
    if (out == NULL) {
        fail(ps, NNC_STATUS_NOMEM, "out of memory");
        return NULL;
    }
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20) {
            fail(ps, NNC_STATUS_PARSE, "control character in string");
            return NULL;
        }
        if (c != '\\') {
            *o++ = (char)c;
            ps->p++;
            continue;
        }
        ps->p++;
        switch (*ps->p) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned u;
            if (ps->end - ps->p < 5 || hex4(ps->p + 1, &u)) {
                fail(ps, NNC_STATUS_PARSE, "bad \\u escape");
                return NULL;
            }
            ps->p += 4;
            if (u >= 0xD800 && u <= 0xDBFF) {
                unsigned lo;
                if (ps->end - ps->p < 7 || ps->p[1] != '\\' || ps->p[2] != 'u' || hex4(ps->p + 3, &lo) ||
                    lo < 0xDC00 || lo > 0xDFFF) {
                    fail(ps, NNC_STATUS_PARSE, "unpaired surrogate in \\u escape");
                    return NULL;
                }
                ps->p += 6;
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            } else if (u >= 0xDC00 && u <= 0xDFFF) {
                fail(ps, NNC_STATUS_PARSE, "unpaired surrogate in \\u escape");
                return NULL;
            }
            if (u < 0x80) *o++ = (char)u;
            else if (u < 0x800) {
                *o++ = (char)(0xC0 | u >> 6);
                *o++ = (char)(0x80 | (u & 0x3F));
            } else if (u < 0x10000) {
                *o++ = (char)(0xE0 | u >> 12);
                *o++ = (char)(0x80 | (u >> 6 & 0x3F));
                *o++ = (char)(0x80 | (u & 0x3F));
            } else {
                *o++ = (char)(0xF0 | u >> 18);
                *o++ = (char)(0x80 | (u >> 12 & 0x3F));
                *o++ = (char)(0x80 | (u >> 6 & 0x3F));
                *o++ = (char)(0x80 | (u & 0x3F));
            }
            break;
        }
        default:
            fail(ps, NNC_STATUS_PARSE, "bad escape in string");
            return NULL;
        }
        ps->p++;
    }
    ps->p++;
    *o = 0;
    *outlen = (size_t)(o - out);
    return out;
}

static nnc_json *parse_value(parser *ps, int depth);

static nnc_json *new_node(parser *ps, nnc_json_type t)
{
    nnc_json *j = arena_alloc(ps->doc, sizeof *j);
    if (j == NULL) {
        fail(ps, NNC_STATUS_NOMEM, "out of memory");
        return NULL;
    }
    memset(j, 0, sizeof *j);
    j->type = t;
    return j;
}

static nnc_json *parse_number(parser *ps)
{
    const char *q = ps->p;
    if (q < ps->end && *q == '-') q++;
    if (q >= ps->end || !(*q >= '0' && *q <= '9')) {
        fail(ps, NNC_STATUS_PARSE, "invalid value");
        return NULL;
    }
    if (*q == '0') q++;
    else while (q < ps->end && *q >= '0' && *q <= '9') q++;
    if (q < ps->end && *q == '.') {
        q++;
        if (q >= ps->end || !(*q >= '0' && *q <= '9')) {
            fail(ps, NNC_STATUS_PARSE, "digit expected after '.'");
            return NULL;
        }
        while (q < ps->end && *q >= '0' && *q <= '9') q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < ps->end && (*q == '+' || *q == '-')) q++;
        if (q >= ps->end || !(*q >= '0' && *q <= '9')) {
            fail(ps, NNC_STATUS_PARSE, "digit expected in exponent");
            return NULL;
        }
        while (q < ps->end && *q >= '0' && *q <= '9') q++;
    }
    size_t n = (size_t)(q - ps->p);
    char *txt = arena_alloc(ps->doc, n + 1);
    nnc_json *j = new_node(ps, NNC_JSON_NUMBER);
    if (txt == NULL || j == NULL) {
        fail(ps, NNC_STATUS_NOMEM, "out of memory");
        return NULL;
    }
    memcpy(txt, ps->p, n);
    txt[n] = 0;
    j->num = strtod(txt, NULL);
    j->str = txt;
    j->len = n;
    ps->p = q;
    return j;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An object's member names are distinct (RFC 8259 says they SHOULD be;
 * readers differ on which of two equal names wins, so a file could mean one
 * thing here and another to snarkjs).  Sorted copy: n log n comparisons.
 * Returns 0, or -1 after fail(). */
static int distinct_keys(parser *ps, const nnc_json *obj)
{
    if (obj->len < 2) return 0;
    const char **k = malloc(obj->len * sizeof *k);
    if (k == NULL) {
        fail(ps, NNC_STATUS_NOMEM, "out of memory");
        return -1;
    }
    size_t n = 0;
    for (const nnc_json *c = obj->child; c; c = c->next) k[n++] = c->key;
    qsort(k, n, sizeof *k, cmp_key);
    for (size_t i = 1; i < n; i++)
        if (strcmp(k[i - 1], k[i]) == 0) {
            char what[160];
            snprintf(what, sizeof what, "the object closed here has the member name \"%.100s\" twice", k[i]);
            free(k);
            fail(ps, NNC_STATUS_PARSE, what);
            return -1;
        }
    free(k);
    return 0;
}

static nnc_json *parse_value(parser *ps, int depth)
{
    if (depth > NNC_JSON_MAX_DEPTH) {
        fail(ps, NNC_STATUS_LIMIT, "nesting too deep");
        return NULL;
    }
    ws(ps);
    if (ps->p >= ps->end) {
        fail(ps, NNC_STATUS_PARSE, "unexpected end of input");
        return NULL;
    }
    char c = *ps->p;
    if (c == '{' || c == '[') {
        int obj = c == '{';
        nnc_json *j = new_node(ps, obj ? NNC_JSON_OBJECT : NNC_JSON_ARRAY), *last = NULL;
        if (j == NULL) return NULL;
        ps->p++;
        ws(ps);
        if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
            ps->p++;
            return j;
        }
        for (;;) {
            const char *key = NULL;
            ws(ps);
            if (obj) {
                size_t kl;
                if (ps->p >= ps->end || *ps->p != '"') {
                    fail(ps, NNC_STATUS_PARSE, "object member name expected");
                    return NULL;
                }
                key = parse_string(ps, &kl);
                if (key == NULL) return NULL;
                if (strlen(key) != kl) { /* keys are C strings: "a\u0000b" would read as "a" */
                    fail(ps, NNC_STATUS_PARSE, "object member name contains \\u0000");
                    return NULL;
                }
                ws(ps);
                if (ps->p >= ps->end || *ps->p != ':') {
                    fail(ps, NNC_STATUS_PARSE, "':' expected");
                    return NULL;
                }
                ps->p++;
            }
            nnc_json *ch = parse_value(ps, depth + 1);
            if (ch == NULL) return NULL;
            ch->key = key;
            if (last) last->next = ch;
            else j->child = ch;
            last = ch;
            j->len++;
            ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
                if (obj && distinct_keys(ps, j)) return NULL;
                ps->p++;
                return j;
            }
            fail(ps, NNC_STATUS_PARSE, obj ? "',' or '}' expected" : "',' or ']' expected");
            return NULL;
        }
    }
    if (c == '"') {
        nnc_json *j = new_node(ps, NNC_JSON_STRING);
        if (j == NULL) return NULL;
        j->str = parse_string(ps, &j->len);
        return j->str ? j : NULL;
    }
    static const struct { const char *w; nnc_json_type t; } lits[] = {
        {"true", NNC_JSON_TRUE}, {"false", NNC_JSON_FALSE}, {"null", NNC_JSON_NULL}};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(lits[k].w);
        if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, lits[k].w, n) == 0) {
            ps->p += n;
            return new_node(ps, lits[k].t);
        }
    }
    return parse_number(ps);
}

nnc_status nnc_json_parse(nnc_json_doc **doc, const char *text, size_t len, char *err, size_t errlen)
{
    *doc = NULL;
    nnc_json_doc *d = calloc(1, sizeof *d);
    if (d == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    parser ps = {text, text + len, text, d, err, errlen, NNC_STATUS_OK};
    d->root = parse_value(&ps, 0);
    if (d->root && !ps.st) {
        ws(&ps);
        if (ps.p != ps.end) fail(&ps, NNC_STATUS_PARSE, "trailing characters after the JSON value");
    }
    if (ps.st || d->root == NULL) {
        nnc_status st = ps.st ? ps.st : NNC_STATUS_PARSE;
        nnc_json_doc_destroy(d);
        return st;
    }
    *doc = d;
    return NNC_STATUS_OK;
}

const nnc_json *nnc_json_root(const nnc_json_doc *doc) { return doc->root; }

void nnc_json_doc_destroy(nnc_json_doc *doc)
{
    if (doc == NULL) return;
    block *b = doc->blocks;
    while (b) {
        block *n = b->next;
        free(b);
        b = n;
    }
    free(doc);
}

const nnc_json *nnc_json_get(const nnc_json *obj, const char *key)
{
    if (obj == NULL || obj->type != NNC_JSON_OBJECT) return NULL;
    for (const nnc_json *c = obj->child; c; c = c->next)
        if (strcmp(c->key, key) == 0) return c;
    return NULL;
}
