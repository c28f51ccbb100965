/* snarkjs JSON files for Groth16 over bn128: proof.json, public.json,
 * verification_key.json.  Readers validate every number and point; writers
 * reproduce snarkjs's bytes (JSON.stringify(obj, null, 1), no final newline). */
#include "prover/formats_impl.h"

#include <stdlib.h>
#include <string.h>

#include "nncert/json.h"
#include "prover/field_impl.h"
#include "prover/pairing_impl.h"

/* ---------------------------------------------------------------- writer */

/* JSON writer with JSON.stringify's layout for an indent of one space. */
typedef struct jw {
    nnc_prv_sink *s;
    int depth;         /* open containers */
    int after_key;     /* the next value follows "key": on the same line */
    int first[16];     /* first[d]: container at depth d has no element yet */
} jw;

static void jw_puts(jw *w, const char *t) { nnc_prv_sink_put(w->s, t, strlen(t)); }

static void jw_prefix(jw *w)
{
    int i;
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0)
        return;
    jw_puts(w, w->first[w->depth] ? "\n" : ",\n");
    w->first[w->depth] = 0;
    for (i = 0; i < w->depth; i++)
        jw_puts(w, " ");
}

static void jw_open(jw *w, const char *c)
{
    jw_prefix(w);
    jw_puts(w, c);
    w->first[++w->depth] = 1;
}

static void jw_close(jw *w, const char *c)
{
    int i;
    if (!w->first[w->depth]) {
        jw_puts(w, "\n");
        for (i = 0; i < w->depth - 1; i++)
            jw_puts(w, " ");
    }
    w->depth--;
    jw_puts(w, c);
}

static void jw_key(jw *w, const char *k)
{
    jw_prefix(w);
    jw_puts(w, "\"");
    jw_puts(w, k);
    jw_puts(w, "\": ");
    w->after_key = 1;
}

static void jw_str(jw *w, const char *v)
{
    jw_prefix(w);
    jw_puts(w, "\"");
    jw_puts(w, v);
    jw_puts(w, "\"");
}

static void jw_u64(jw *w, uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    jw_prefix(w);
    jw_puts(w, b);
}

static void jw_fq(jw *w, const nnc_prv_fq *a)
{
    char b[NNC_PRV_DEC_BUFSIZE];
    nnc_prv_fq_serialize_dec(b, sizeof b, a);
    jw_str(w, b);
}

static void jw_fr(jw *w, const nnc_prv_fr *a)
{
    char b[NNC_PRV_DEC_BUFSIZE];
    nnc_prv_fr_serialize_dec(b, sizeof b, a);
    jw_str(w, b);
}

static int g1_inf(const nnc_prv_g1 *p) { return nnc_fq_is_zero(&p->x) & nnc_fq_is_zero(&p->y); }
static int g2_inf(const nnc_prv_g2 *p)
{
    return nnc_fq_is_zero(&p->x.c0) & nnc_fq_is_zero(&p->x.c1) & nnc_fq_is_zero(&p->y.c0) &
           nnc_fq_is_zero(&p->y.c1);
}

/* G1 as snarkjs's G1.toObject: [x, y, "1"], infinity ["0", "1", "0"]. */
static void jw_g1(jw *w, const nnc_prv_g1 *p)
{
    jw_open(w, "[");
    if (g1_inf(p)) {
        jw_str(w, "0");
        jw_str(w, "1");
        jw_str(w, "0");
    } else {
        jw_fq(w, &p->x);
        jw_fq(w, &p->y);
        jw_str(w, "1");
    }
    jw_close(w, "]");
}

static void jw_fq2(jw *w, const nnc_prv_fq *c0, const nnc_prv_fq *c1)
{
    jw_open(w, "[");
    jw_fq(w, c0);
    jw_fq(w, c1);
    jw_close(w, "]");
}

static void jw_pair(jw *w, const char *a, const char *b)
{
    jw_open(w, "[");
    jw_str(w, a);
    jw_str(w, b);
    jw_close(w, "]");
}

/* G2: [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]], infinity [["0","0"],["1","0"],["0","0"]]. */
static void jw_g2(jw *w, const nnc_prv_g2 *p)
{
    jw_open(w, "[");
    if (g2_inf(p)) {
        jw_pair(w, "0", "0");
        jw_pair(w, "1", "0");
        jw_pair(w, "0", "0");
    } else {
        jw_fq2(w, &p->x.c0, &p->x.c1);
        jw_fq2(w, &p->y.c0, &p->y.c1);
        jw_pair(w, "1", "0");
    }
    jw_close(w, "]");
}

static nnc_status proof_emit(nnc_prv_sink *s, const void *obj)
{
    const nnc_prv_g16_proof *p = obj;
    jw w = {s, 0, 0, {0}};
    jw_open(&w, "{");
    jw_key(&w, "pi_a");
    jw_g1(&w, &p->a);
    jw_key(&w, "pi_b");
    jw_g2(&w, &p->b);
    jw_key(&w, "pi_c");
    jw_g1(&w, &p->c);
    jw_key(&w, "protocol");
    jw_str(&w, "groth16");
    jw_key(&w, "curve");
    jw_str(&w, "bn128");
    jw_close(&w, "}");
    return NNC_STATUS_OK;
}

static nnc_status public_emit(nnc_prv_sink *s, const void *obj)
{
    const nnc_prv_fr_vec *v = obj;
    jw w = {s, 0, 0, {0}};
    size_t i;
    if (v->n > 0 && v->v == NULL)
        return NNC_STATUS_INVALID;
    jw_open(&w, "[");
    for (i = 0; i < v->n; i++)
        jw_fr(&w, &v->v[i]);
    jw_close(&w, "]");
    return NNC_STATUS_OK;
}

static nnc_status vk_emit(nnc_prv_sink *s, const void *obj)
{
    const nnc_prv_g16_vk *vk = obj;
    jw w = {s, 0, 0, {0}};
    uint64_t i;
    int a, b;
    if (vk->ic == NULL)
        return NNC_STATUS_INVALID;
    jw_open(&w, "{");
    jw_key(&w, "protocol");
    jw_str(&w, "groth16");
    jw_key(&w, "curve");
    jw_str(&w, "bn128");
    jw_key(&w, "nPublic");
    jw_u64(&w, vk->n_public);
    jw_key(&w, "vk_alpha_1");
    jw_g1(&w, &vk->alpha1);
    jw_key(&w, "vk_beta_2");
    jw_g2(&w, &vk->beta2);
    jw_key(&w, "vk_gamma_2");
    jw_g2(&w, &vk->gamma2);
    jw_key(&w, "vk_delta_2");
    jw_g2(&w, &vk->delta2);
    if (vk->has_alphabeta) {
        jw_key(&w, "vk_alphabeta_12");
        jw_open(&w, "[");
        for (a = 0; a < 2; a++) {
            jw_open(&w, "[");
            for (b = 0; b < 3; b++)
                jw_fq2(&w, &vk->alphabeta[6 * a + 2 * b], &vk->alphabeta[6 * a + 2 * b + 1]);
            jw_close(&w, "]");
        }
        jw_close(&w, "]");
    }
    jw_key(&w, "IC");
    jw_open(&w, "[");
    for (i = 0; i <= vk->n_public; i++)
        jw_g1(&w, &vk->ic[i]);
    jw_close(&w, "]");
    jw_close(&w, "}");
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_g16_proof_serialize_json(char *out, size_t *outlen, const nnc_prv_g16_proof *p)
{
    return nnc_prv_emit_mem((unsigned char *)out, outlen, proof_emit, p);
}
nnc_status nnc_prv_g16_proof_write_file(const char *path, const nnc_prv_g16_proof *p, char *err, size_t errlen)
{
    return nnc_prv_emit_file(path, proof_emit, p, "proof", err, errlen);
}
nnc_status nnc_prv_public_serialize_json(char *out, size_t *outlen, const nnc_prv_fr_vec *pub)
{
    return nnc_prv_emit_mem((unsigned char *)out, outlen, public_emit, pub);
}
nnc_status nnc_prv_public_write_file(const char *path, const nnc_prv_fr_vec *pub, char *err, size_t errlen)
{
    return nnc_prv_emit_file(path, public_emit, pub, "public inputs", err, errlen);
}
nnc_status nnc_prv_g16_vk_serialize_json(char *out, size_t *outlen, const nnc_prv_g16_vk *vk)
{
    return nnc_prv_emit_mem((unsigned char *)out, outlen, vk_emit, vk);
}
nnc_status nnc_prv_g16_vk_write_file(const char *path, const nnc_prv_g16_vk *vk, char *err, size_t errlen)
{
    return nnc_prv_emit_file(path, vk_emit, vk, "verification key", err, errlen);
}

/* ---------------------------------------------------------------- reader */

/* Message context: the file kind, for "proof.json: pi_a: ..." style errors. */
typedef struct jr {
    const char *file;
    char *err;
    size_t errlen;
} jr;

/* Returns: the decimal text of a string node, or of a number node below
 * 2^53 in magnitude, or NULL.  snarkjs reads a JSON number as a double: an
 * integer below 2^53 is exact there, a larger one (2^53 + 1 included, which
 * rounds to 2^53) may mean another value than its text. */
static const char *j_dec(const nnc_json *j)
{
    if (j == NULL || (j->type != NNC_JSON_STRING && j->type != NNC_JSON_NUMBER))
        return NULL;
    if (j->type == NNC_JSON_NUMBER && !(j->num > -9007199254740992.0 && j->num < 9007199254740992.0))
        return NULL;
    return j->str;
}

#define J_DEC_WANT "expected a decimal string (a bare JSON number only below 2^53: snarkjs reads it as a double)"

/* Returns: the i-th child of an array, or NULL. */
static const nnc_json *j_at(const nnc_json *a, size_t i)
{
    const nnc_json *c;
    if (a == NULL || a->type != NNC_JSON_ARRAY || i >= a->len)
        return NULL;
    for (c = a->child; i > 0 && c; i--)
        c = c->next;
    return c;
}

/* Wrap an inner message (in tmp) with the file and member names. */
static nnc_status jr_wrap(const jr *r, nnc_status st, const char *what, const char *inner)
{
    return nnc_err(r->err, r->errlen, st, "%s: %s: %s", r->file, what, inner);
}

/* Returns: 1 if the decimal text is exactly "0" / "1". */
static int dec_is(const char *s, const char *v) { return s != NULL && strcmp(s, v) == 0; }

static nnc_status jr_fq(const jr *r, nnc_prv_fq *out, const nnc_json *j, const char *what)
{
    char tmp[NNC_ERRBUF_SIZE];
    nnc_status st;
    const char *s = j_dec(j);
    if (s == NULL)
        return jr_wrap(r, NNC_STATUS_PARSE, what, J_DEC_WANT);
    st = nnc_prv_fq_parse_dec(out, s, 0, tmp, sizeof tmp);
    return st == NNC_STATUS_OK ? st : jr_wrap(r, st, what, tmp);
}

static nnc_status jr_g1(const jr *r, nnc_prv_g1 *out, const nnc_json *j, const char *what)
{
    char tmp[NNC_ERRBUF_SIZE];
    nnc_status st;
    nnc_prv_g1 p;
    const char *z;
    if (j == NULL || j->type != NNC_JSON_ARRAY || (j->len != 2 && j->len != 3))
        return jr_wrap(r, NNC_STATUS_PARSE, what, "expected a G1 point [\"x\", \"y\", \"1\"]");
    if ((st = jr_fq(r, &p.x, j_at(j, 0), what)) != NNC_STATUS_OK ||
        (st = jr_fq(r, &p.y, j_at(j, 1), what)) != NNC_STATUS_OK)
        return st;
    z = j->len == 3 ? j_dec(j_at(j, 2)) : "1";
    if (dec_is(z, "0")) {
        memset(out, 0, sizeof *out);
        return NNC_STATUS_OK;
    }
    if (!dec_is(z, "1"))
        return jr_wrap(r, NNC_STATUS_UNSUPPORTED, what, "z coordinate other than \"1\" (affine) or \"0\" (infinity)");
    if (!nnc_prv_g1_is_valid(&p)) {
        snprintf(tmp, sizeof tmp, "G1 point not on the curve y^2 = x^3 + 3");
        return jr_wrap(r, NNC_STATUS_INVALID, what, tmp);
    }
    *out = p;
    return NNC_STATUS_OK;
}

/* An Fq2 pair ["c0", "c1"]. */
static nnc_status jr_fq2(const jr *r, nnc_prv_fq *c0, nnc_prv_fq *c1, const nnc_json *j, const char *what)
{
    nnc_status st;
    if (j == NULL || j->type != NNC_JSON_ARRAY || j->len != 2)
        return jr_wrap(r, NNC_STATUS_PARSE, what, "expected an Fq2 element [\"c0\", \"c1\"]");
    if ((st = jr_fq(r, c0, j_at(j, 0), what)) != NNC_STATUS_OK)
        return st;
    return jr_fq(r, c1, j_at(j, 1), what);
}

static nnc_status jr_g2(const jr *r, nnc_prv_g2 *out, const nnc_json *j, const char *what)
{
    nnc_status st;
    nnc_prv_g2 p;
    nnc_prv_fq z0, z1;
    int inf, one;
    if (j == NULL || j->type != NNC_JSON_ARRAY || (j->len != 2 && j->len != 3))
        return jr_wrap(r, NNC_STATUS_PARSE, what, "expected a G2 point [[\"x0\",\"x1\"], [\"y0\",\"y1\"], [\"1\",\"0\"]]");
    if ((st = jr_fq2(r, &p.x.c0, &p.x.c1, j_at(j, 0), what)) != NNC_STATUS_OK ||
        (st = jr_fq2(r, &p.y.c0, &p.y.c1, j_at(j, 1), what)) != NNC_STATUS_OK)
        return st;
    if (j->len == 3) {
        if ((st = jr_fq2(r, &z0, &z1, j_at(j, 2), what)) != NNC_STATUS_OK)
            return st;
        inf = nnc_fq_is_zero(&z0) & nnc_fq_is_zero(&z1);
        one = nnc_fq_is_one(&z0) & nnc_fq_is_zero(&z1);
    } else {
        inf = 0;
        one = 1;
    }
    if (inf) {
        memset(out, 0, sizeof *out);
        return NNC_STATUS_OK;
    }
    if (!one)
        return jr_wrap(r, NNC_STATUS_UNSUPPORTED, what,
                       "z coordinate other than [\"1\",\"0\"] (affine) or [\"0\",\"0\"] (infinity)");
    if (!nnc_prv_g2_is_on_curve(&p))
        return jr_wrap(r, NNC_STATUS_INVALID, what, "G2 point not on the twist y^2 = x^3 + 3/(9+u)");
    if (!nnc_prv_g2_is_valid(&p))
        return jr_wrap(r, NNC_STATUS_INVALID, what, "G2 point not in the order-r subgroup");
    *out = p;
    return NNC_STATUS_OK;
}

/* Checks "protocol" and "curve" when present. */
static nnc_status jr_protocol(const jr *r, const nnc_json *root)
{
    const nnc_json *p = nnc_json_get(root, "protocol"), *c = nnc_json_get(root, "curve");
    if (p != NULL && (p->type != NNC_JSON_STRING || strcmp(p->str, "groth16") != 0))
        return nnc_err(r->err, r->errlen, NNC_STATUS_UNSUPPORTED, "%s: protocol %s%s%s not supported (only groth16)",
                       r->file, p->type == NNC_JSON_STRING ? "\"" : "", p->type == NNC_JSON_STRING ? p->str : "(not a string)",
                       p->type == NNC_JSON_STRING ? "\"" : "");
    if (c != NULL) {
        /* snarkjs's getCurveFromName: upper case, alphanumerics only */
        char n[16];
        size_t k = 0;
        const char *s;
        if (c->type != NNC_JSON_STRING)
            return nnc_err(r->err, r->errlen, NNC_STATUS_PARSE, "%s: curve is not a string", r->file);
        for (s = c->str; *s && k + 1 < sizeof n; s++)
            if ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
                n[k++] = (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s);
        n[k] = '\0';
        if (*s != '\0' || (strcmp(n, "BN128") != 0 && strcmp(n, "BN254") != 0 && strcmp(n, "ALTBN128") != 0))
            return nnc_err(r->err, r->errlen, NNC_STATUS_UNSUPPORTED, "%s: curve \"%.40s\" not supported (only bn128)",
                           r->file, c->str);
    }
    return NNC_STATUS_OK;
}

static nnc_status jr_doc(const jr *r, nnc_json_doc **doc, const char *text, size_t len, nnc_json_type want)
{
    char tmp[NNC_ERRBUF_SIZE];
    nnc_status st = nnc_json_parse(doc, text, len, tmp, sizeof tmp);
    if (st != NNC_STATUS_OK)
        return nnc_err(r->err, r->errlen, st, "%s: %s", r->file, tmp);
    if (nnc_json_root(*doc)->type != want) {
        nnc_json_doc_destroy(*doc);
        *doc = NULL;
        return nnc_err(r->err, r->errlen, NNC_STATUS_PARSE, "%s: the top level is not a JSON %s", r->file,
                       want == NNC_JSON_ARRAY ? "array" : "object");
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_g16_proof_parse_json(nnc_prv_g16_proof *out, const char *text, size_t len, char *err,
                                        size_t errlen)
{
    jr r = {"proof", err, errlen};
    nnc_json_doc *doc;
    const nnc_json *root;
    nnc_prv_g16_proof p;
    nnc_status st;
    memset(out, 0, sizeof *out);
    if ((st = jr_doc(&r, &doc, text, len, NNC_JSON_OBJECT)) != NNC_STATUS_OK)
        return st;
    root = nnc_json_root(doc);
    if ((st = jr_protocol(&r, root)) == NNC_STATUS_OK &&
        (st = jr_g1(&r, &p.a, nnc_json_get(root, "pi_a"), "pi_a")) == NNC_STATUS_OK &&
        (st = jr_g2(&r, &p.b, nnc_json_get(root, "pi_b"), "pi_b")) == NNC_STATUS_OK &&
        (st = jr_g1(&r, &p.c, nnc_json_get(root, "pi_c"), "pi_c")) == NNC_STATUS_OK)
        *out = p;
    nnc_json_doc_destroy(doc);
    return st;
}

nnc_status nnc_prv_public_parse_json(nnc_prv_fr_vec *out, const char *text, size_t len, char *err, size_t errlen)
{
    jr r = {"public inputs", err, errlen};
    char tmp[NNC_ERRBUF_SIZE];
    nnc_json_doc *doc;
    const nnc_json *root, *c;
    nnc_status st;
    size_t i;
    memset(out, 0, sizeof *out);
    if ((st = jr_doc(&r, &doc, text, len, NNC_JSON_ARRAY)) != NNC_STATUS_OK)
        return st;
    root = nnc_json_root(doc);
    if (root->len > NNC_PRV_JSON_MAX_PUBLIC) {
        nnc_json_doc_destroy(doc);
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "public inputs: %zu values (at most %u)", root->len,
                       NNC_PRV_JSON_MAX_PUBLIC);
    }
    out->v = nnc_prv_alloc_array(root->len, sizeof *out->v, &st);
    if (out->v == NULL) {
        nnc_json_doc_destroy(doc);
        return nnc_err(err, errlen, st, "public inputs: cannot allocate %zu values", root->len);
    }
    out->n = root->len;
    for (i = 0, c = root->child; c != NULL; i++, c = c->next) {
        const char *s = j_dec(c);
        if (s == NULL) {
            st = nnc_err(err, errlen, NNC_STATUS_PARSE, "public inputs: value %zu: %s", i, J_DEC_WANT);
            break;
        }
        st = nnc_prv_fr_parse_dec(&out->v[i], s, 0, tmp, sizeof tmp);
        if (st == NNC_STATUS_INVALID) {
            st = nnc_err(err, errlen, st, "public inputs: value %zu (\"%.40s%s\") is not reduced: it must lie in [0, r), r = %s",
                         i, s, strlen(s) > 40 ? "..." : "",
                         "21888242871839275222246405745257275088548364400416034343698204186575808495617");
            break;
        }
        if (st != NNC_STATUS_OK) {
            st = nnc_err(err, errlen, st, "public inputs: value %zu: %s", i, tmp);
            break;
        }
    }
    nnc_json_doc_destroy(doc);
    if (st != NNC_STATUS_OK)
        nnc_prv_fr_vec_clear(out);
    return st;
}

/* snarkjs's pairing (ffjavascript/wasmcurves, the libff final exponentiation
 * of Fuentes-Castaneda et al.) is the canonical one raised to
 * m = 2z(6z^2 + 3z + 1), z = 4965661367192848881; vk_alphabeta_12 holds that
 * value.  m as little-endian limbs (190 bits). */
#define SNARKJS_PAIRING_EXP_INIT {0x2e5d4e223ddedaf4ULL, 0x1ea96b02d9d9e38dULL, 0x3bec47df15e307c8ULL}

/* Out: ab[12] = snarkjs's e(alpha1, beta2), coefficients in the order of
 * nnc_prv_g16_vk. */
static void vk_alphabeta(nnc_prv_fq ab[12], const nnc_prv_g1 *alpha1, const nnc_prv_g2 *beta2)
{
    static const uint64_t m[3] = SNARKJS_PAIRING_EXP_INIT;
    nnc_fq12 e;
    const nnc_fq6 *h[2];
    int i, j;
    nnc_prv_pairing(&e, alpha1, beta2);
    nnc_fq12_pow(&e, &e, m, 3);
    h[0] = &e.c0;
    h[1] = &e.c1;
    for (i = 0; i < 2; i++) {
        const nnc_fq2 *c[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};
        for (j = 0; j < 3; j++) {
            ab[6 * i + 2 * j] = c[j]->c0;
            ab[6 * i + 2 * j + 1] = c[j]->c1;
        }
    }
}

void nnc_prv_g16_vk_clear(nnc_prv_g16_vk *vk)
{
    if (vk == NULL) return;
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

static nnc_status vk_parse(const jr *r, nnc_prv_g16_vk *vk, const nnc_json *root)
{
    const nnc_json *np = nnc_json_get(root, "nPublic"), *ic = nnc_json_get(root, "IC"),
                   *ab = nnc_json_get(root, "vk_alphabeta_12"), *c;
    nnc_status st;
    char *end;
    unsigned long long n;
    size_t i;
    int a, b;
    nnc_prv_fq e[12];
    if ((st = jr_protocol(r, root)) != NNC_STATUS_OK)
        return st;
    if (np == NULL || np->type != NNC_JSON_NUMBER || np->str[0] < '0' || np->str[0] > '9')
        return nnc_err(r->err, r->errlen, NNC_STATUS_PARSE, "%s: nPublic missing or not a non-negative integer",
                       r->file);
    n = strtoull(np->str, &end, 10);
    if (*end != '\0')
        return nnc_err(r->err, r->errlen, NNC_STATUS_PARSE, "%s: nPublic %.30s is not an integer", r->file, np->str);
    if (n > NNC_PRV_JSON_MAX_PUBLIC)
        return nnc_err(r->err, r->errlen, NNC_STATUS_LIMIT, "%s: nPublic %.30s exceeds %u", r->file, np->str,
                       NNC_PRV_JSON_MAX_PUBLIC);
    vk->n_public = (uint32_t)n;
    if ((st = jr_g1(r, &vk->alpha1, nnc_json_get(root, "vk_alpha_1"), "vk_alpha_1")) != NNC_STATUS_OK ||
        (st = jr_g2(r, &vk->beta2, nnc_json_get(root, "vk_beta_2"), "vk_beta_2")) != NNC_STATUS_OK ||
        (st = jr_g2(r, &vk->gamma2, nnc_json_get(root, "vk_gamma_2"), "vk_gamma_2")) != NNC_STATUS_OK ||
        (st = jr_g2(r, &vk->delta2, nnc_json_get(root, "vk_delta_2"), "vk_delta_2")) != NNC_STATUS_OK)
        return st;
    if (ic == NULL || ic->type != NNC_JSON_ARRAY)
        return nnc_err(r->err, r->errlen, NNC_STATUS_PARSE, "%s: IC missing or not an array", r->file);
    if (ic->len != n + 1)
        return nnc_err(r->err, r->errlen, NNC_STATUS_INVALID, "%s: IC has %zu points; nPublic %llu needs %llu",
                       r->file, ic->len, n, n + 1);
    vk->ic = nnc_prv_alloc_array(n + 1, sizeof *vk->ic, &st);
    if (vk->ic == NULL)
        return nnc_err(r->err, r->errlen, st, "%s: cannot allocate %llu IC points", r->file, n + 1);
    for (i = 0, c = ic->child; c != NULL; i++, c = c->next) {
        char what[32];
        snprintf(what, sizeof what, "IC[%zu]", i);
        if ((st = jr_g1(r, &vk->ic[i], c, what)) != NNC_STATUS_OK)
            return st;
    }
    if (ab != NULL) {
        if (ab->type != NNC_JSON_ARRAY || ab->len != 2)
            return nnc_err(r->err, r->errlen, NNC_STATUS_PARSE, "%s: vk_alphabeta_12 is not an Fq12 element [[3 x Fq2], [3 x Fq2]]",
                           r->file);
        for (a = 0; a < 2; a++) {
            const nnc_json *h = j_at(ab, (size_t)a);
            if (h == NULL || h->type != NNC_JSON_ARRAY || h->len != 3)
                return nnc_err(r->err, r->errlen, NNC_STATUS_PARSE,
                               "%s: vk_alphabeta_12 is not an Fq12 element [[3 x Fq2], [3 x Fq2]]", r->file);
            for (b = 0; b < 3; b++)
                if ((st = jr_fq2(r, &vk->alphabeta[6 * a + 2 * b], &vk->alphabeta[6 * a + 2 * b + 1],
                                 j_at(h, (size_t)b), "vk_alphabeta_12")) != NNC_STATUS_OK)
                    return st;
        }
        vk_alphabeta(e, &vk->alpha1, &vk->beta2);
        for (a = 0; a < 12; a++)
            if (!nnc_fq_eq(&e[a], &vk->alphabeta[a]))
                return nnc_err(r->err, r->errlen, NNC_STATUS_INVALID,
                               "%s: vk_alphabeta_12 is not the pairing of vk_alpha_1 and vk_beta_2", r->file);
        vk->has_alphabeta = 1;
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_g16_vk_parse_json(nnc_prv_g16_vk *out, const char *text, size_t len, char *err, size_t errlen)
{
    jr r = {"verification key", err, errlen};
    nnc_json_doc *doc;
    nnc_status st;
    memset(out, 0, sizeof *out);
    if ((st = jr_doc(&r, &doc, text, len, NNC_JSON_OBJECT)) != NNC_STATUS_OK)
        return st;
    st = vk_parse(&r, out, nnc_json_root(doc));
    nnc_json_doc_destroy(doc);
    if (st != NNC_STATUS_OK)
        nnc_prv_g16_vk_clear(out);
    return st;
}

nnc_status nnc_prv_g16_vk_from_zkey(nnc_prv_g16_vk *out, const nnc_prv_zkey *z)
{
    nnc_status st;
    memset(out, 0, sizeof *out);
    out->ic = nnc_prv_alloc_array((uint64_t)z->n_public + 1, sizeof *out->ic, &st);
    if (out->ic == NULL)
        return st;
    memcpy(out->ic, z->ic, ((size_t)z->n_public + 1) * sizeof *out->ic);
    out->n_public = z->n_public;
    out->alpha1 = z->alpha1;
    out->beta2 = z->beta2;
    out->gamma2 = z->gamma2;
    out->delta2 = z->delta2;
    vk_alphabeta(out->alphabeta, &z->alpha1, &z->beta2);
    out->has_alphabeta = 1;
    return NNC_STATUS_OK;
}

/* ---------------------------------------------------------------- files */

/* The JSON parsers leave their output clear on failure themselves: no clear. */
static nnc_status proof_parse_v(void *o, const unsigned char *t, size_t l, unsigned flags, char *e, size_t el)
{
    return nnc_prv_g16_proof_parse_json(o, (const char *)t, l, e, el);
}
static nnc_status public_parse_v(void *o, const unsigned char *t, size_t l, unsigned flags, char *e, size_t el)
{
    return nnc_prv_public_parse_json(o, (const char *)t, l, e, el);
}
static nnc_status vk_parse_v(void *o, const unsigned char *t, size_t l, unsigned flags, char *e, size_t el)
{
    return nnc_prv_g16_vk_parse_json(o, (const char *)t, l, e, el);
}
static const nnc_prv_reader proof_reader = {sizeof(nnc_prv_g16_proof), proof_parse_v, NULL};
static const nnc_prv_reader public_reader = {sizeof(nnc_prv_fr_vec), public_parse_v, NULL};
static const nnc_prv_reader vk_reader = {sizeof(nnc_prv_g16_vk), vk_parse_v, NULL};

nnc_status nnc_prv_g16_proof_read_file(nnc_prv_g16_proof *out, const char *path, char *err, size_t errlen)
{
    return nnc_prv_read_file(&proof_reader, out, path, 0, err, errlen);
}
nnc_status nnc_prv_public_read_file(nnc_prv_fr_vec *out, const char *path, char *err, size_t errlen)
{
    return nnc_prv_read_file(&public_reader, out, path, 0, err, errlen);
}
nnc_status nnc_prv_g16_vk_read_file(nnc_prv_g16_vk *out, const char *path, char *err, size_t errlen)
{
    return nnc_prv_read_file(&vk_reader, out, path, 0, err, errlen);
}
