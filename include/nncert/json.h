/* Minimal strict JSON (RFC 8259) reader used for user inputs, proofs and
 * configuration.  A parsed document is a tree of nnc_json nodes allocated
 * from one arena owned by the document. Limits: nesting depth
 * NNC_JSON_MAX_DEPTH; numbers are parsed with strtod (and kept as text). */
#ifndef NNC_JSON_H
#define NNC_JSON_H

#include "nncert/nnc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NNC_JSON_MAX_DEPTH 64

typedef enum nnc_json_type {
    NNC_JSON_NULL = 0,
    NNC_JSON_FALSE,
    NNC_JSON_TRUE,
    NNC_JSON_NUMBER,
    NNC_JSON_STRING,
    NNC_JSON_ARRAY,
    NNC_JSON_OBJECT
} nnc_json_type;

typedef struct nnc_json nnc_json;
struct nnc_json {
    nnc_json_type type;
    double num;          /* NUMBER */
    const char *str;     /* STRING (NUL-terminated, unescaped UTF-8); NUMBER: its text */
    size_t len;          /* STRING byte length; ARRAY/OBJECT child count */
    const char *key;     /* member name when the parent is an OBJECT */
    nnc_json *child;     /* first child (ARRAY/OBJECT) */
    nnc_json *next;      /* next sibling */
};

typedef struct nnc_json_doc nnc_json_doc;

/* Parse text[0..len); an object with two members of the same name is
 * refused.  Out: *doc (nnc_json_doc_destroy), whose root is
 * nnc_json_root(*doc).  Errors name the line and column. */
NNC_API nnc_status nnc_json_parse(nnc_json_doc **doc, const char *text, size_t len, char *err, size_t errlen);
NNC_API const nnc_json *nnc_json_root(const nnc_json_doc *doc);
NNC_API void nnc_json_doc_destroy(nnc_json_doc *doc);

/* Returns: the member named key of an OBJECT, or NULL. */
NNC_API const nnc_json *nnc_json_get(const nnc_json *obj, const char *key);

#ifdef __cplusplus
}
#endif
#endif
