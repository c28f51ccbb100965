/* Signed attestations: canonical JSON, Ed25519 keys and signatures
 * (libsodium), SHA-256 of files, atomic file writes (see nncert/gate.h). */
#include "nncert/gate.h"

#include "nncert/json.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Prepended to the canonical bytes so a signature over a summary can never
 * be replayed as a signature over some other nncert message. */
static const char attest_domain[] = "nncert-attestation-v1\n";

/* ------------------------------------------------------------ buffers */

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1) cap *= 2;
        char *q = realloc(b->p, cap);
        if (q == NULL) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

/* ------------------------------------------------------------ canonical JSON */

static void canon_string(sbuf *b, const char *s, size_t n)
{
    sb_put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        const char *e = NULL;
        switch (c) {
        case '"': e = "\\\""; break;
        case '\\': e = "\\\\"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        default:
            if (c < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                e = esc;
            }
        }
        if (e) sb_str(b, e);
        else sb_put(b, (const char *)&c, 1);
    }
    sb_put(b, "\"", 1);
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp((*(const nnc_json *const *)a)->key, (*(const nnc_json *const *)b)->key);
}

static nnc_status canon_value(sbuf *b, const nnc_json *v, const char *skip_key, char *err, size_t errlen)
{
    switch (v->type) {
    case NNC_JSON_NULL: sb_str(b, "null"); return NNC_STATUS_OK;
    case NNC_JSON_TRUE: sb_str(b, "true"); return NNC_STATUS_OK;
    case NNC_JSON_FALSE: sb_str(b, "false"); return NNC_STATUS_OK;
    case NNC_JSON_NUMBER: sb_put(b, v->str, v->len); return NNC_STATUS_OK;
    case NNC_JSON_STRING: canon_string(b, v->str, v->len); return NNC_STATUS_OK;
    case NNC_JSON_ARRAY:
        sb_put(b, "[", 1);
        for (const nnc_json *c = v->child; c; c = c->next) {
            if (c != v->child) sb_put(b, ",", 1);
            nnc_status st = canon_value(b, c, NULL, err, errlen);
            if (st) return st;
        }
        sb_put(b, "]", 1);
        return NNC_STATUS_OK;
    case NNC_JSON_OBJECT: {
        size_t n = 0;
        const nnc_json **m = malloc(sizeof *m * (v->len ? v->len : 1));
        if (m == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
        for (const nnc_json *c = v->child; c; c = c->next)
            if (skip_key == NULL || strcmp(c->key, skip_key) != 0) m[n++] = c;
        qsort(m, n, sizeof *m, key_cmp);
        nnc_status st = NNC_STATUS_OK;
        sb_put(b, "{", 1);
        for (size_t i = 0; i < n && !st; i++) {
            /* with duplicates the meaning depends on the reader: refuse */
            if (i && strcmp(m[i - 1]->key, m[i]->key) == 0) {
                st = nnc_err(err, errlen, NNC_STATUS_INVALID, "duplicate member \"%s\"", m[i]->key);
                break;
            }
            if (i) sb_put(b, ",", 1);
            canon_string(b, m[i]->key, strlen(m[i]->key));
            sb_put(b, ":", 1);
            st = canon_value(b, m[i], NULL, err, errlen);
        }
        sb_put(b, "}", 1);
        free(m);
        return st;
    }
    }
    return nnc_err(err, errlen, NNC_STATUS_INVALID, "unknown JSON node");
}

nnc_status nnc_gate_canonical_json(char **out, size_t *outlen, const nnc_json *v, const char *skip_key, char *err,
                                   size_t errlen)
{
    sbuf b = {0};
    *out = NULL;
    *outlen = 0;
    nnc_status st = canon_value(&b, v, skip_key, err, errlen);
    if (!st && b.oom) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    if (st) {
        free(b.p);
        return st;
    }
    if (b.p == NULL) sb_put(&b, "", 0);
    *out = b.p;
    *outlen = b.n;
    return NNC_STATUS_OK;
}

/* The signed message: domain || canonical(summary without "signature"). */
static nnc_status signed_message(unsigned char **msg, size_t *msglen, const nnc_json *root, char *err, size_t errlen)
{
    char *canon;
    size_t clen;
    nnc_status st = nnc_gate_canonical_json(&canon, &clen, root, "signature", err, errlen);
    if (st) return st;
    size_t dl = sizeof attest_domain - 1;
    *msg = malloc(dl + clen + 1);
    if (*msg == NULL) {
        free(canon);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    memcpy(*msg, attest_domain, dl);
    memcpy(*msg + dl, canon, clen);
    *msglen = dl + clen;
    free(canon);
    return NNC_STATUS_OK;
}

static void to_hex(char *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", p[i]);
}

/* Lowercase hex of exactly n bytes; -1 otherwise. */
static int from_hex(uint8_t *out, const char *s, size_t slen, size_t n)
{
    if (slen != 2 * n) return -1;
    for (size_t i = 0; i < 2 * n; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return -1;
        if (i % 2 == 0) out[i / 2] = (uint8_t)(d << 4);
        else out[i / 2] |= (uint8_t)d;
    }
    return 0;
}

static nnc_status parse_object(nnc_json_doc **doc, const char *text, size_t len, char *err, size_t errlen)
{
    nnc_status st = nnc_json_parse(doc, text, len, err, errlen);
    if (st) return st;
    if (nnc_json_root(*doc)->type != NNC_JSON_OBJECT) {
        nnc_json_doc_destroy(*doc);
        *doc = NULL;
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "the summary is not a JSON object");
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_gate_attest_sign(char **out, size_t *outlen, const char *text, size_t len,
                                const uint8_t sk[NNC_GATE_SECRETKEYBYTES], char *err, size_t errlen)
{
    *out = NULL;
    *outlen = 0;
    if (sodium_init() < 0) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "libsodium failed to initialise");
    nnc_json_doc *doc;
    nnc_status st = parse_object(&doc, text, len, err, errlen);
    if (st) return st;
    const nnc_json *root = nnc_json_root(doc);
    unsigned char *msg = NULL, sig[NNC_GATE_SIGNATUREBYTES];
    size_t msglen;
    if ((st = signed_message(&msg, &msglen, root, err, errlen))) goto done;
    crypto_sign_detached(sig, NULL, msg, msglen, sk);
    /* Re-emit the members in their original text order, without an old
     * signature, then the new signature member.  Members are copied as
     * canonical text so the file stays one consistent document. */
    sbuf b = {0};
    sb_str(&b, "{\n");
    int first = 1;
    for (const nnc_json *c = root->child; c && !st; c = c->next) {
        if (strcmp(c->key, "signature") == 0) continue;
        char *v;
        size_t vl;
        if ((st = nnc_gate_canonical_json(&v, &vl, c, NULL, err, errlen))) break;
        if (!first) sb_str(&b, ",\n");
        first = 0;
        sb_str(&b, "  ");
        canon_string(&b, c->key, strlen(c->key));
        sb_str(&b, ": ");
        if (c->type == NNC_JSON_ARRAY && c->child) {
            /* one element per line, for people reading the file */
            sb_str(&b, "[\n");
            for (const nnc_json *e = c->child; e && !st; e = e->next) {
                char *ev;
                size_t el;
                if ((st = nnc_gate_canonical_json(&ev, &el, e, NULL, err, errlen))) break;
                sb_str(&b, "    ");
                sb_put(&b, ev, el);
                sb_str(&b, e->next ? ",\n" : "\n  ]");
                free(ev);
            }
        } else {
            sb_put(&b, v, vl);
        }
        free(v);
    }
    char pkhex[2 * NNC_GATE_PUBLICKEYBYTES + 1], sighex[2 * NNC_GATE_SIGNATUREBYTES + 1];
    to_hex(pkhex, sk + 32, NNC_GATE_PUBLICKEYBYTES);
    to_hex(sighex, sig, sizeof sig);
    sb_str(&b, first ? "" : ",\n");
    sb_str(&b, "  \"signature\": {\"algorithm\": \"ed25519\", \"message\": \"nncert-attestation-v1\", \"public_key\": \"");
    sb_str(&b, pkhex);
    sb_str(&b, "\", \"value\": \"");
    sb_str(&b, sighex);
    sb_str(&b, "\"}\n}\n");
    if (!st && b.oom) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    if (st) free(b.p);
    else {
        *out = b.p;
        *outlen = b.n;
    }
done:
    free(msg);
    nnc_json_doc_destroy(doc);
    return st;
}

nnc_status nnc_gate_attest_verify(int *valid, const char *text, size_t len, const uint8_t pk[NNC_GATE_PUBLICKEYBYTES],
                                  char *err, size_t errlen)
{
    *valid = 0;
    if (sodium_init() < 0) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "libsodium failed to initialise");
    nnc_json_doc *doc;
    nnc_status st = parse_object(&doc, text, len, err, errlen);
    if (st) return st;
    const nnc_json *root = nnc_json_root(doc), *sig = NULL;
    int nsig = 0;
    for (const nnc_json *c = root->child; c; c = c->next)
        if (strcmp(c->key, "signature") == 0) {
            sig = c;
            nsig++;
        }
    const nnc_json *alg = sig ? nnc_json_get(sig, "algorithm") : NULL, *val = sig ? nnc_json_get(sig, "value") : NULL;
    const nnc_json *spk = sig ? nnc_json_get(sig, "public_key") : NULL, *smsg = sig ? nnc_json_get(sig, "message") : NULL;
    uint8_t s[NNC_GATE_SIGNATUREBYTES], embedded[NNC_GATE_PUBLICKEYBYTES];
    unsigned char *msg = NULL;
    size_t msglen;
    if (nsig == 0) nnc_err(err, errlen, NNC_STATUS_INVALID, "the summary is not signed (no \"signature\" member)");
    else if (nsig > 1) nnc_err(err, errlen, NNC_STATUS_INVALID, "the summary has %d \"signature\" members", nsig);
    else if (sig->type != NNC_JSON_OBJECT || sig->len != 4 || spk == NULL || smsg == NULL)
        nnc_err(err, errlen, NNC_STATUS_INVALID,
                "signature must have exactly the members algorithm, message, public_key and value");
    else if (smsg->type != NNC_JSON_STRING || strncmp(smsg->str, attest_domain, smsg->len) != 0 ||
             smsg->len != sizeof attest_domain - 2)
        nnc_err(err, errlen, NNC_STATUS_INVALID, "signature.message must be \"nncert-attestation-v1\"");
    else if (alg == NULL || alg->type != NNC_JSON_STRING || strcmp(alg->str, "ed25519") != 0)
        nnc_err(err, errlen, NNC_STATUS_INVALID, "signature.algorithm must be \"ed25519\"");
    else if (val == NULL || val->type != NNC_JSON_STRING || from_hex(s, val->str, val->len, sizeof s))
        nnc_err(err, errlen, NNC_STATUS_INVALID, "signature.value must be %d lowercase hex digits", 2 * NNC_GATE_SIGNATUREBYTES);
    else if ((spk->type != NNC_JSON_STRING || from_hex(embedded, spk->str, spk->len, sizeof embedded)))
        nnc_err(err, errlen, NNC_STATUS_INVALID, "signature.public_key must be %d lowercase hex digits", 2 * NNC_GATE_PUBLICKEYBYTES);
    else if (sodium_memcmp(embedded, pk, sizeof embedded) != 0)
        nnc_err(err, errlen, NNC_STATUS_INVALID, "signed with another key than the one given");
    else if ((st = signed_message(&msg, &msglen, root, err, errlen)) == NNC_STATUS_INVALID) {
        st = NNC_STATUS_OK; /* duplicate members: not a valid attestation */
    } else if (st == NNC_STATUS_OK) {
        if (crypto_sign_verify_detached(s, msg, msglen, pk) == 0) *valid = 1;
        else nnc_err(err, errlen, NNC_STATUS_INVALID, "the signature does not match the content (edited, or another key)");
    }
    free(msg);
    nnc_json_doc_destroy(doc);
    return st;
}

/* ------------------------------------------------------------ keys */

void nnc_gate_keygen(uint8_t pk[NNC_GATE_PUBLICKEYBYTES], uint8_t sk[NNC_GATE_SECRETKEYBYTES])
{
    if (sodium_init() < 0) abort(); /* only fails without a random source */
    crypto_sign_keypair(pk, sk);
}

typedef struct key_doc {
    const uint8_t *key;
    int secret;
} key_doc;

static nnc_status write_key(FILE *f, const void *arg, char *err, size_t errlen)
{
    const key_doc *k = arg;
    size_t n = k->secret ? NNC_GATE_SECRETKEYBYTES : NNC_GATE_PUBLICKEYBYTES;
    char hex[2 * NNC_GATE_SECRETKEYBYTES + 1];
    to_hex(hex, k->key, n);
    fprintf(f, "ed25519-%s:%s\n", k->secret ? "secret" : "public", hex);
    sodium_memzero(hex, sizeof hex);
    return ferror(f) ? nnc_err(err, errlen, NNC_STATUS_IO, "write failed") : NNC_STATUS_OK;
}

nnc_status nnc_gate_key_write_file(const char *path, const uint8_t *key, int secret, int overwrite, char *err,
                                   size_t errlen)
{
    struct stat sb;
    if (!overwrite && lstat(path, &sb) == 0) return nnc_err(err, errlen, NNC_STATUS_IO, "%s: exists (not overwritten)", path);
    key_doc k = {key, secret};
    return nnc_gate_write_atomic(path, secret ? 0600 : 0644, write_key, &k, err, errlen);
}

nnc_status nnc_gate_key_read_file(uint8_t *key, const char *path, int secret, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return nnc_err(err, errlen, NNC_STATUS_IO, "%s: %s", path, strerror(errno));
    char line[256];
    size_t n = fread(line, 1, sizeof line - 1, f);
    int more = fgetc(f) != EOF;
    fclose(f);
    line[n] = 0;
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    const char *want = secret ? "ed25519-secret:" : "ed25519-public:";
    size_t wl = strlen(want), kl = secret ? NNC_GATE_SECRETKEYBYTES : NNC_GATE_PUBLICKEYBYTES;
    nnc_status st = NNC_STATUS_OK;
    if (more || strncmp(line, want, wl) != 0 || from_hex(key, line + wl, n - wl, kl))
        st = nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: not an nncert %s key (one line '%sHEX')", path,
                     secret ? "secret" : "public", want);
    if (!st && secret) {
        /* the public half must be the one the seed derives */
        uint8_t pk[NNC_GATE_PUBLICKEYBYTES], sk2[NNC_GATE_SECRETKEYBYTES];
        if (sodium_init() < 0) st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "libsodium failed to initialise");
        else {
            crypto_sign_seed_keypair(pk, sk2, key);
            if (sodium_memcmp(pk, key + 32, sizeof pk) != 0)
                st = nnc_err(err, errlen, NNC_STATUS_INVALID, "%s: the public half does not match the seed", path);
            sodium_memzero(sk2, sizeof sk2);
        }
    }
    sodium_memzero(line, sizeof line);
    if (st) sodium_memzero(key, kl);
    return st;
}

/* ------------------------------------------------------------ files */

nnc_status nnc_gate_sha256_file(uint8_t out[32], const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return nnc_err(err, errlen, NNC_STATUS_IO, "%s: %s", path, strerror(errno));
    if (sodium_init() < 0) {
        fclose(f);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "libsodium failed to initialise");
    }
    crypto_hash_sha256_state h;
    crypto_hash_sha256_init(&h);
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) crypto_hash_sha256_update(&h, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) return nnc_err(err, errlen, NNC_STATUS_IO, "%s: read error", path);
    crypto_hash_sha256_final(&h, out);
    return NNC_STATUS_OK;
}

nnc_status nnc_gate_write_atomic(const char *path, unsigned mode, nnc_status (*fn)(FILE *, const void *, char *, size_t),
                                 const void *arg, char *err, size_t errlen)
{
    size_t tl = strlen(path) + 16;
    char *tmp = malloc(tl);
    if (tmp == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    /* mkstemp: a unique name, so parallel runs writing beside each other
     * never share a temporary file */
    snprintf(tmp, tl, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        nnc_status st = nnc_err(err, errlen, NNC_STATUS_IO, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return st;
    }
    FILE *f = fchmod(fd, (mode_t)mode) == 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        close(fd);
        remove(tmp);
        free(tmp);
        return nnc_err(err, errlen, NNC_STATUS_IO, "cannot write %s", path);
    }
    nnc_status st = fn(f, arg, err, errlen);
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    if (fclose(f) != 0) bad = 1;
    if (!st && (bad || rename(tmp, path) != 0)) st = nnc_err(err, errlen, NNC_STATUS_IO, "cannot write %s: %s", path, strerror(errno));
    if (st) remove(tmp);
    free(tmp);
    return st;
}
