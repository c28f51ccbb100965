/* VNN-LIB reader and writer.
 *
 * Reading is one pass of recursive descent (depth bounded by
 * NNC_SPC_MAX_DEPTH) that turns every formula into a CASE LIST (clist) as
 * soon as it is parsed: a disjunction of cases, each an input part (atoms
 * over X, conjoined) and an output part (a disjunction of conjunctions of
 * atoms over Y).  and/or combine case lists; the assertions are folded into
 * one list.  At the end every case's input atoms are folded into a box, and
 * cases with equal input regions are merged.
 *
 * Bounds on work: each clist operation is checked against NNC_SPC_MAX_CASES,
 * NNC_SPC_MAX_DISJUNCTS and NNC_SPC_MAX_REFS before it allocates, and its
 * cost is charged to a work counter bounded by NNC_SPC_MAX_WORK, so parsing
 * takes time linear in the text plus at most that many steps. */
#include "specs/spec_impl.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ vectors */

typedef struct ivec {
    int *v;
    int n, cap;
} ivec;

static int ivec_reserve(ivec *a, int64_t need)
{
    if (need <= a->cap) return 0;
    if (need > INT32_MAX / 2) return -1;
    int cap = a->cap ? a->cap : 4;
    while (cap < need) cap *= 2;
    int *v = realloc(a->v, (size_t)cap * sizeof *v);
    if (v == NULL) return -1;
    a->v = v;
    a->cap = cap;
    return 0;
}

static int ivec_push(ivec *a, int x)
{
    if (ivec_reserve(a, (int64_t)a->n + 1)) return -1;
    a->v[a->n++] = x;
    return 0;
}

static int ivec_append(ivec *a, const ivec *b)
{
    if (b->n == 0) return 0;
    if (ivec_reserve(a, (int64_t)a->n + b->n)) return -1;
    memcpy(a->v + a->n, b->v, (size_t)b->n * sizeof *b->v);
    a->n += b->n;
    return 0;
}

/* ---------------------------------------------------------- case lists */

/* One case: the conjunction of the input atoms `in` and the disjunction of
 * the output conjunctions outs[0..nouts).  Atoms are indices into the
 * parser's atom table.  nouts >= 1 always. */
typedef struct ccase {
    ivec in;
    ivec *outs;
    int nouts, capouts;
} ccase;

/* A disjunction of cases.  At most one case has an empty input part; its
 * index is empty_in (-1: none).  rin / rout / nconj are the totals of
 * in.n, outs[].n and nouts over the cases. */
typedef struct clist {
    ccase *c;
    int n, cap;
    int empty_in;
    int64_t rin, rout, nconj;
} clist;

static void case_free(ccase *c)
{
    free(c->in.v);
    for (int j = 0; j < c->nouts; j++) free(c->outs[j].v);
    free(c->outs);
    memset(c, 0, sizeof *c);
}

static void cl_free(clist *l)
{
    for (int i = 0; i < l->n; i++) case_free(&l->c[i]);
    free(l->c);
    memset(l, 0, sizeof *l);
    l->empty_in = -1;
}

static void cl_false(clist *l)
{
    memset(l, 0, sizeof *l);
    l->empty_in = -1;
}

static int cl_reserve(clist *l, int64_t need)
{
    if (need <= l->cap) return 0;
    int64_t cap = l->cap ? l->cap : 2;
    while (cap < need) cap *= 2;
    ccase *c = realloc(l->c, (size_t)cap * sizeof *c);
    if (c == NULL) return -1;
    l->c = c;
    l->cap = (int)cap;
    return 0;
}

/* A case with no input atoms and one output conjunction holding `out_atom`
 * (or none when out_atom < 0); in_atom >= 0 adds one input atom. */
static int cl_single(clist *l, int in_atom, int out_atom)
{
    cl_false(l);
    if (cl_reserve(l, 1)) return -1;
    ccase *c = &l->c[0];
    memset(c, 0, sizeof *c);
    l->n = 1;
    c->outs = calloc(1, sizeof *c->outs);
    if (c->outs == NULL) goto oom;
    c->nouts = c->capouts = 1;
    l->nconj = 1;
    if (in_atom >= 0) {
        if (ivec_push(&c->in, in_atom)) goto oom;
        l->rin = 1;
    } else {
        l->empty_in = 0;
    }
    if (out_atom >= 0) {
        if (ivec_push(&c->outs[0], out_atom)) goto oom;
        l->rout = 1;
    }
    return 0;
oom:
    cl_free(l);
    return -1;
}

static int case_trivial(const ccase *c)
{
    return c->in.n == 0 && c->nouts == 1 && c->outs[0].n == 0;
}

/* ------------------------------------------------------------- parser */

enum { TK_EOF, TK_LP, TK_RP, TK_SYM };
enum { VAR_X = 0, VAR_Y = 1 };

typedef struct decl {
    int kind, index, line, col;
} decl;

/* A parsed atom: sum coef[t] * V[idx[t]] <= rhs over one kind of variable. */
typedef struct atom {
    int64_t toff; /* into parser tidx / tcoef */
    int nt;
    int kind;     /* VAR_X or VAR_Y */
    double rhs;
    int line, col;
} atom;

/* A linear term under construction: sum c[t] * var(id[t]) + k, where
 * id = 2 * index + kind. */
typedef struct lexpr {
    uint32_t *id;
    double *c;
    int n, cap;
    double k;
} lexpr;

typedef struct parser {
    const char *text, *p, *end, *line_start;
    int line;
    /* current token */
    int tk;
    const char *ts;
    size_t tn;
    int tline, tcol;
    /* start of the current top-level form */
    int fline, fcol;
    char *err;
    size_t errlen;
    /* declarations */
    decl *decls;
    int ndecls, capdecls;
    unsigned char *bits[2]; /* declared-index bitmaps */
    int64_t bitcap[2];      /* bits allocated */
    int count[2], maxidx[2];
    /* atoms */
    atom *atoms;
    int natoms, capatoms;
    int *tidx;
    double *tcoef;
    int64_t nterms, capterms;
    int64_t work;
    int assert_line, assert_col;
} parser;

static nnc_status vfail(parser *ps, nnc_status st, int line, int col, const char *fmt, va_list ap)
{
    if (ps->err != NULL && ps->errlen > 0) {
        char msg[400];
        vsnprintf(msg, sizeof msg, fmt, ap);
        nnc_err(ps->err, ps->errlen, st, "line %d, column %d: %s", line, col, msg);
    }
    return st;
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static nnc_status fail_at(parser *ps, nnc_status st, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(ps, st, line, col, fmt, ap);
    va_end(ap);
    return st;
}

/* Fails at the current token. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static nnc_status fail(parser *ps, nnc_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(ps, st, ps->tline, ps->tcol, fmt, ap);
    va_end(ap);
    return st;
}

static nnc_status nomem(parser *ps)
{
    return fail(ps, NNC_STATUS_NOMEM, "out of memory");
}

/* Printable copy of the current token for messages (truncated). */
static const char *tok_str(parser *ps, char *buf, size_t n)
{
    if (ps->tk == TK_EOF) return "end of input";
    if (ps->tk == TK_LP) return "'('";
    if (ps->tk == TK_RP) return "')'";
    size_t m = ps->tn < n - 3 ? ps->tn : n - 6;
    buf[0] = '\'';
    memcpy(buf + 1, ps->ts, m);
    if (m < ps->tn) {
        memcpy(buf + 1 + m, "...'", 5);
    } else {
        buf[1 + m] = '\'';
        buf[2 + m] = 0;
    }
    return buf;
}

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Advance to the next token.  Returns non-OK on a bad character. */
static nnc_status adv(parser *ps)
{
    for (;;) {
        while (ps->p < ps->end && is_ws((unsigned char)*ps->p)) {
            if (*ps->p == '\n') {
                ps->line++;
                ps->line_start = ps->p + 1;
            }
            ps->p++;
        }
        if (ps->p < ps->end && *ps->p == ';') {
            while (ps->p < ps->end && *ps->p != '\n') ps->p++;
            continue;
        }
        break;
    }
    ps->ts = ps->p;
    ps->tn = 0;
    ps->tline = ps->line;
    ps->tcol = (int)(ps->p - ps->line_start) + 1;
    if (ps->p >= ps->end) {
        ps->tk = TK_EOF;
        return NNC_STATUS_OK;
    }
    char ch = *ps->p;
    if (ch == '(' || ch == ')') {
        ps->tk = ch == '(' ? TK_LP : TK_RP;
        ps->p++;
        ps->tn = 1;
        return NNC_STATUS_OK;
    }
    ps->tk = TK_SYM;
    while (ps->p < ps->end) {
        unsigned char c = (unsigned char)*ps->p;
        if (is_ws(c) || c == '(' || c == ')' || c == ';') break;
        if (c == '|' || c == '"') {
            ps->tcol = (int)(ps->p - ps->line_start) + 1;
            return fail(ps, NNC_STATUS_UNSUPPORTED, "quoted symbols and strings are not supported");
        }
        if (c < 0x21 || c > 0x7e) {
            ps->tcol = (int)(ps->p - ps->line_start) + 1;
            return fail(ps, NNC_STATUS_PARSE, "unexpected character 0x%02x", c);
        }
        ps->p++;
    }
    ps->tn = (size_t)(ps->p - ps->ts);
    return NNC_STATUS_OK;
}

static int tok_is(const parser *ps, const char *s)
{
    size_t n = strlen(s);
    return ps->tk == TK_SYM && ps->tn == n && memcmp(ps->ts, s, n) == 0;
}

static nnc_status unclosed(parser *ps)
{
    return fail_at(ps, NNC_STATUS_PARSE, ps->fline, ps->fcol,
                   "unbalanced parentheses: this '(' is not closed before the end of input");
}

/* Expect ')' closing a form; what names the form for the message. */
static nnc_status expect_rp(parser *ps, const char *what)
{
    if (ps->tk == TK_RP) return adv(ps);
    if (ps->tk == TK_EOF) return unclosed(ps);
    char b[48];
    return fail(ps, NNC_STATUS_PARSE, "expected ')' to close %s, found %s", what, tok_str(ps, b, sizeof b));
}

/* Expect '(' at depth `depth` (the depth of the form it opens). */
static nnc_status open_form(parser *ps, int depth)
{
    if (depth > NNC_SPC_MAX_DEPTH)
        return fail(ps, NNC_STATUS_LIMIT, "nesting deeper than %d levels", NNC_SPC_MAX_DEPTH);
    return adv(ps);
}

/* ---- variables ---- */

/* Parse a variable name X_<i> / Y_<i>.  Returns 1 and sets kind/index,
 * 0 when the symbol is not of that shape, -1 when the index is over the
 * limit, -2 when the index has a leading zero. */
static int var_name(const char *s, size_t n, int *kind, int *index)
{
    if (n < 3 || (s[0] != 'X' && s[0] != 'Y') || s[1] != '_') return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    if (s[2] == '0' && n > 3) return -2;
    if (n - 2 > 8) return -1;
    long v = 0;
    for (size_t i = 2; i < n; i++) v = v * 10 + (s[i] - '0');
    if (v >= NNC_SPC_MAX_VARS) return -1;
    *kind = s[0] == 'X' ? VAR_X : VAR_Y;
    *index = (int)v;
    return 1;
}

static int is_declared(const parser *ps, int kind, int index)
{
    return index < ps->bitcap[kind] && (ps->bits[kind][index >> 3] >> (index & 7) & 1);
}

static const decl *find_decl(const parser *ps, int kind, int index)
{
    for (int i = 0; i < ps->ndecls; i++)
        if (ps->decls[i].kind == kind && ps->decls[i].index == index) return &ps->decls[i];
    return NULL;
}

static nnc_status declare(parser *ps, int kind, int index, int line, int col)
{
    if (is_declared(ps, kind, index)) {
        const decl *d = find_decl(ps, kind, index);
        return fail_at(ps, NNC_STATUS_PARSE, line, col, "%c_%d declared twice (first at line %d)",
                       kind == VAR_X ? 'X' : 'Y', index, d ? d->line : 0);
    }
    if (index >= ps->bitcap[kind]) {
        int64_t cap = ps->bitcap[kind] ? ps->bitcap[kind] : 1024;
        while (cap <= index) cap *= 2;
        unsigned char *b = realloc(ps->bits[kind], (size_t)(cap / 8));
        if (b == NULL) return nomem(ps);
        memset(b + ps->bitcap[kind] / 8, 0, (size_t)((cap - ps->bitcap[kind]) / 8));
        ps->bits[kind] = b;
        ps->bitcap[kind] = cap;
    }
    ps->bits[kind][index >> 3] |= (unsigned char)(1u << (index & 7));
    if (ps->ndecls == ps->capdecls) {
        int cap = ps->capdecls ? ps->capdecls * 2 : 64;
        decl *d = realloc(ps->decls, (size_t)cap * sizeof *d);
        if (d == NULL) return nomem(ps);
        ps->decls = d;
        ps->capdecls = cap;
    }
    ps->decls[ps->ndecls++] = (decl){kind, index, line, col};
    ps->count[kind]++;
    if (index > ps->maxidx[kind]) ps->maxidx[kind] = index;
    return NNC_STATUS_OK;
}

/* ---- linear expressions ---- */

static void lx_free(lexpr *e)
{
    free(e->id);
    free(e->c);
    memset(e, 0, sizeof *e);
}

static int lx_reserve(lexpr *e, int64_t need)
{
    if (need <= e->cap) return 0;
    if (need > INT32_MAX / 2) return -1;
    int cap = e->cap ? e->cap : 4;
    while (cap < need) cap *= 2;
    uint32_t *id = realloc(e->id, (size_t)cap * sizeof *id);
    if (id == NULL) return -1;
    e->id = id;
    double *c = realloc(e->c, (size_t)cap * sizeof *c);
    if (c == NULL) return -1;
    e->c = c;
    e->cap = cap;
    return 0;
}

static nnc_status overflow(parser *ps, int line, int col)
{
    return fail_at(ps, NNC_STATUS_INVALID, line, col,
                   "arithmetic overflow: a coefficient or constant is not finite");
}

/* dst += scale * src */
static nnc_status lx_add(parser *ps, lexpr *dst, const lexpr *src, double scale, int line, int col)
{
    if (lx_reserve(dst, (int64_t)dst->n + src->n)) return nomem(ps);
    for (int t = 0; t < src->n; t++) {
        double c = src->c[t] * scale;
        if (!isfinite(c)) return overflow(ps, line, col);
        dst->id[dst->n] = src->id[t];
        dst->c[dst->n++] = c;
    }
    double k = dst->k + src->k * scale;
    if (!isfinite(k)) return overflow(ps, line, col);
    dst->k = k;
    return NNC_STATUS_OK;
}

static nnc_status lx_scale(parser *ps, lexpr *e, double scale, int divide, int line, int col)
{
    for (int t = 0; t < e->n; t++) {
        e->c[t] = divide ? e->c[t] / scale : e->c[t] * scale;
        if (!isfinite(e->c[t])) return overflow(ps, line, col);
    }
    e->k = divide ? e->k / scale : e->k * scale;
    if (!isfinite(e->k)) return overflow(ps, line, col);
    return NNC_STATUS_OK;
}

/* ---- numbers ---- */

static int ieq(const char *a, size_t n, const char *b)
{
    if (strlen(b) != n) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != b[i]) return 0;
    }
    return 1;
}

static int looks_nonfinite(const char *s, size_t n)
{
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        s++;
        n--;
    }
    return ieq(s, n, "nan") || ieq(s, n, "inf") || ieq(s, n, "infinity");
}

/* Returns 1 when s[0..n) starts like a number (digit, '.', or a sign
 * followed by one of those). */
static int looks_numeric(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    return i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.');
}

static int valid_number(const char *s, size_t n)
{
    size_t i = 0, digits = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (digits == 0) return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+')) i++;
        size_t ed = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, ed++;
        if (ed == 0) return 0;
    }
    return i == n;
}

static nnc_status parse_number(parser *ps, double *out)
{
    char b[48];
    if (!valid_number(ps->ts, ps->tn))
        return fail(ps, NNC_STATUS_PARSE, "malformed number %s", tok_str(ps, b, sizeof b));
    char small[128], *buf = small;
    if (ps->tn >= sizeof small) {
        buf = malloc(ps->tn + 1);
        if (buf == NULL) return nomem(ps);
    }
    memcpy(buf, ps->ts, ps->tn);
    buf[ps->tn] = 0;
    double v = strtod(buf, NULL);
    if (buf != small) free(buf);
    if (!isfinite(v))
        return fail(ps, NNC_STATUS_PARSE, "number %s is out of range", tok_str(ps, b, sizeof b));
    *out = v;
    return NNC_STATUS_OK;
}

/* ---- terms ---- */

static int is_unsupported_op(const parser *ps)
{
    static const char *const ops[] = {"not", "=>", "xor", "ite", "let", "distinct", "forall",
                                      "exists", "!", "abs", "div", "mod", "to_real", "to_int",
                                      "is_int", "max", "min", "match", "_", "as"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (tok_is(ps, ops[i])) return 1;
    return 0;
}

static nnc_status parse_term(parser *ps, lexpr *out, int depth);

/* The current token is a symbol in term position. */
static nnc_status term_symbol(parser *ps, lexpr *out)
{
    char b[48];
    memset(out, 0, sizeof *out);
    nnc_status st;
    if (looks_nonfinite(ps->ts, ps->tn))
        return fail(ps, NNC_STATUS_PARSE, "NaN and infinite literals are not allowed: %s",
                    tok_str(ps, b, sizeof b));
    if (looks_numeric(ps->ts, ps->tn)) {
        if ((st = parse_number(ps, &out->k))) return st;
        return adv(ps);
    }
    int kind, index, r = var_name(ps->ts, ps->tn, &kind, &index);
    if (r == 1) {
        if (!is_declared(ps, kind, index))
            return fail(ps, NNC_STATUS_PARSE, "undeclared variable %s", tok_str(ps, b, sizeof b));
        if (lx_reserve(out, 1)) return nomem(ps);
        out->id[0] = (uint32_t)index * 2u + (uint32_t)kind;
        out->c[0] = 1.0;
        out->n = 1;
        return adv(ps);
    }
    if (r == -1) return fail(ps, NNC_STATUS_PARSE, "undeclared variable %s", tok_str(ps, b, sizeof b));
    return fail(ps, NNC_STATUS_PARSE, "unknown variable %s", tok_str(ps, b, sizeof b));
}

static nnc_status parse_term(parser *ps, lexpr *out, int depth)
{
    char b[48];
    nnc_status st;
    memset(out, 0, sizeof *out);
    if (ps->tk == TK_SYM) return term_symbol(ps, out);
    if (ps->tk == TK_EOF) return unclosed(ps);
    if (ps->tk == TK_RP) return fail(ps, NNC_STATUS_PARSE, "expected a term, found ')'");
    int line = ps->tline, col = ps->tcol;
    if ((st = open_form(ps, depth))) return st;
    if (ps->tk != TK_SYM) {
        if (ps->tk == TK_EOF) return unclosed(ps);
        return fail(ps, NNC_STATUS_PARSE, "expected an operator after '(', found %s", tok_str(ps, b, sizeof b));
    }
    int op;
    if (tok_is(ps, "+")) op = '+';
    else if (tok_is(ps, "-")) op = '-';
    else if (tok_is(ps, "*")) op = '*';
    else if (tok_is(ps, "/")) op = '/';
    else if (is_unsupported_op(ps))
        return fail(ps, NNC_STATUS_UNSUPPORTED, "operator %s is not supported in a term", tok_str(ps, b, sizeof b));
    else
        return fail(ps, NNC_STATUS_PARSE, "unknown operator %s in a term", tok_str(ps, b, sizeof b));
    if ((st = adv(ps))) return st;
    /* (* ...) multiplies the constant factors into kmul and scales the
     * variable part once; (/ e c1 c2 ...) divides e once by c1*c2*... */
    int nargs = 0, have_var = 0;
    double kmul = 1.0, kdiv = 1.0;
    lexpr arg;
    while (ps->tk != TK_RP) {
        if (ps->tk == TK_EOF) return unclosed(ps);
        int aline = ps->tline, acol = ps->tcol;
        if ((st = parse_term(ps, &arg, depth + 1))) {
            lx_free(&arg);
            return st;
        }
        if (nargs == 0 && op != '*') {
            lx_free(out);
            *out = arg;
        } else if (op == '+' || op == '-') {
            st = lx_add(ps, out, &arg, op == '+' ? 1.0 : -1.0, aline, acol);
            lx_free(&arg);
            if (st) return st;
        } else if (op == '*') {
            if (arg.n > 0) {
                if (have_var) {
                    lx_free(&arg);
                    return fail_at(ps, NNC_STATUS_UNSUPPORTED, aline, acol,
                                   "non-linear term: product of two variables");
                }
                have_var = 1;
                lx_free(out);
                *out = arg;
            } else {
                kmul *= arg.k;
                lx_free(&arg);
                if (!isfinite(kmul)) return overflow(ps, aline, acol);
            }
        } else { /* '/' */
            int nv = arg.n;
            double k = arg.k;
            lx_free(&arg);
            if (nv > 0)
                return fail_at(ps, NNC_STATUS_UNSUPPORTED, aline, acol,
                               "non-linear term: division by a variable");
            kdiv *= k;
            if (k == 0 || kdiv == 0)
                return fail_at(ps, NNC_STATUS_INVALID, aline, acol, "division by zero");
            if (!isfinite(kdiv)) return overflow(ps, aline, acol);
        }
        nargs++;
    }
    if (nargs == 0 || (op == '/' && nargs < 2))
        return fail_at(ps, NNC_STATUS_PARSE, line, col, "operator '%c' needs %s argument%s", op,
                       op == '/' ? "two" : "an", op == '/' ? "s" : "");
    if (op == '-' && nargs == 1 && (st = lx_scale(ps, out, -1.0, 0, line, col))) return st;
    if (op == '*') {
        if (have_var) {
            if ((st = lx_scale(ps, out, kmul, 0, line, col))) return st;
        } else {
            out->k = kmul;
        }
    }
    if (op == '/' && (st = lx_scale(ps, out, kdiv, 1, line, col))) return st;
    return adv(ps);
}

/* ---- atoms ---- */

typedef struct idc {
    uint32_t id;
    double c;
} idc;

static int idc_cmp(const void *a, const void *b)
{
    uint32_t x = ((const idc *)a)->id, y = ((const idc *)b)->id;
    return x < y ? -1 : x > y;
}

/* Clist for the atom  sum(lhs) - sum(rhs) <= 0  (ge: rhs - lhs <= 0). */
static nnc_status make_atom(parser *ps, const lexpr *lhs, const lexpr *rhs, int ge, int line, int col,
                            clist *out)
{
    const lexpr *a = ge ? rhs : lhs, *b = ge ? lhs : rhs; /* a - b <= 0 */
    cl_false(out);
    int64_t n = (int64_t)a->n + b->n;
    double d = b->k - a->k;
    if (!isfinite(d)) return overflow(ps, line, col);
    d = nnc_spc_unneg0(d);
    idc *t = malloc((size_t)(n ? n : 1) * sizeof *t);
    if (t == NULL) return nomem(ps);
    for (int i = 0; i < a->n; i++) t[i] = (idc){a->id[i], a->c[i]};
    for (int i = 0; i < b->n; i++) t[a->n + i] = (idc){b->id[i], -b->c[i]};
    qsort(t, (size_t)n, sizeof *t, idc_cmp);
    int64_t m = 0;
    for (int64_t i = 0; i < n;) {
        uint32_t id = t[i].id;
        double c = 0;
        for (; i < n && t[i].id == id; i++) c += t[i].c;
        if (!isfinite(c)) {
            free(t);
            return overflow(ps, line, col);
        }
        if (c != 0) t[m++] = (idc){id, c};
    }
    int hasx = 0, hasy = 0;
    for (int64_t i = 0; i < m; i++) {
        if (t[i].id & 1) hasy = 1;
        else hasx = 1;
    }
    if (hasx && hasy) {
        free(t);
        return fail_at(ps, NNC_STATUS_UNSUPPORTED, line, col,
                       "constraint mixes inputs (X_) and outputs (Y_)");
    }
    if (m == 0) { /* constant comparison: 0 <= d */
        free(t);
        if (d >= 0) return cl_single(out, -1, -1) ? nomem(ps) : NNC_STATUS_OK;
        return NNC_STATUS_OK; /* false: no case */
    }
    if (ps->natoms == ps->capatoms) {
        if (ps->capatoms > INT32_MAX / 4) {
            free(t);
            return fail_at(ps, NNC_STATUS_LIMIT, line, col, "too many constraints");
        }
        int cap = ps->capatoms ? ps->capatoms * 2 : 256;
        atom *na = realloc(ps->atoms, (size_t)cap * sizeof *na);
        if (na == NULL) {
            free(t);
            return nomem(ps);
        }
        ps->atoms = na;
        ps->capatoms = cap;
    }
    if (ps->nterms + m > ps->capterms) {
        int64_t cap = ps->capterms ? ps->capterms : 1024;
        while (cap < ps->nterms + m) cap *= 2;
        int *ni = realloc(ps->tidx, (size_t)cap * sizeof *ni);
        if (ni) ps->tidx = ni;
        double *nc = ni ? realloc(ps->tcoef, (size_t)cap * sizeof *nc) : NULL;
        if (nc) ps->tcoef = nc;
        if (ni == NULL || nc == NULL) {
            free(t);
            return nomem(ps);
        }
        ps->capterms = cap;
    }
    for (int64_t i = 0; i < m; i++) {
        ps->tidx[ps->nterms + i] = (int)(t[i].id >> 1);
        ps->tcoef[ps->nterms + i] = t[i].c;
    }
    free(t);
    int id = ps->natoms++;
    ps->atoms[id] = (atom){ps->nterms, (int)m, hasy ? VAR_Y : VAR_X, d, line, col};
    ps->nterms += m;
    if (cl_single(out, hasy ? -1 : id, hasy ? id : -1)) return nomem(ps);
    return NNC_STATUS_OK;
}

/* ---- case-list algebra ---- */

static nnc_status limit_check(parser *ps, int line, int col, int64_t cases, int64_t nconj, int64_t refs,
                              int64_t work)
{
    if (cases > NNC_SPC_MAX_CASES)
        return fail_at(ps, NNC_STATUS_LIMIT, line, col,
                       "normal form needs more than %d cases (input regions)", NNC_SPC_MAX_CASES);
    if (nconj > NNC_SPC_MAX_DISJUNCTS)
        return fail_at(ps, NNC_STATUS_LIMIT, line, col,
                       "normal form needs more than %d output disjuncts", NNC_SPC_MAX_DISJUNCTS);
    if (refs > NNC_SPC_MAX_REFS)
        return fail_at(ps, NNC_STATUS_LIMIT, line, col,
                       "normal form needs more than %d constraint occurrences", NNC_SPC_MAX_REFS);
    ps->work += work;
    if (ps->work > NNC_SPC_MAX_WORK)
        return fail_at(ps, NNC_STATUS_LIMIT, line, col,
                       "normalising the assertions takes more than %lld steps",
                       (long long)NNC_SPC_MAX_WORK);
    return NNC_STATUS_OK;
}

/* outs_p x outs_b into a fresh array. */
static int outs_product(const ivec *oa, int na, const ivec *ob, int nb, ivec **res)
{
    ivec *r = calloc((size_t)na * (size_t)nb, sizeof *r);
    if (r == NULL) return -1;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            ivec *v = &r[(size_t)i * nb + j];
            if (ivec_reserve(v, (int64_t)oa[i].n + ob[j].n) || ivec_append(v, &oa[i]) ||
                ivec_append(v, &ob[j])) {
                for (size_t k = 0; k < (size_t)na * nb; k++) free(r[k].v);
                free(r);
                return -1;
            }
        }
    *res = r;
    return 0;
}

/* A := A and B; B is consumed. */
static nnc_status cl_and(parser *ps, clist *A, clist *B, int line, int col)
{
    nnc_status st;
    if (A->n == 0) {
        cl_free(B);
        return NNC_STATUS_OK;
    }
    if (B->n == 0 || (A->n == 1 && case_trivial(&A->c[0]))) {
        cl_free(A);
        *A = *B;
        cl_false(B);
        return NNC_STATUS_OK;
    }
    if (B->n == 1 && case_trivial(&B->c[0])) {
        cl_free(B);
        return NNC_STATUS_OK;
    }
    if (B->n == 1) { /* in place */
        ccase *b = &B->c[0];
        int m = b->nouts;
        int64_t bi = b->in.n, sb = B->rout;
        int64_t rin = A->rin + (int64_t)A->n * bi;
        int64_t rout = (int64_t)m * A->rout + A->nconj * sb;
        int64_t nconj = A->nconj * m;
        int64_t work = (bi ? A->n : 0) + (m > 1 || sb ? A->nconj : 0) + (rin - A->rin) + (rout - A->rout);
        if ((st = limit_check(ps, line, col, A->n, nconj, rin + rout, work))) {
            cl_free(B);
            return st;
        }
        for (int p = 0; p < A->n && bi; p++)
            if (ivec_append(&A->c[p].in, &b->in)) goto oom;
        if (m == 1 && b->outs[0].n > 0) {
            for (int p = 0; p < A->n; p++)
                for (int j = 0; j < A->c[p].nouts; j++)
                    if (ivec_append(&A->c[p].outs[j], &b->outs[0])) goto oom;
        } else if (m > 1) {
            for (int p = 0; p < A->n; p++) {
                ccase *c = &A->c[p];
                ivec *r;
                if (outs_product(c->outs, c->nouts, b->outs, m, &r)) goto oom;
                for (int j = 0; j < c->nouts; j++) free(c->outs[j].v);
                free(c->outs);
                c->outs = r;
                c->nouts = c->capouts = c->nouts * m;
            }
        }
        A->rin = rin;
        A->rout = rout;
        A->nconj = nconj;
        if (bi) A->empty_in = -1;
        cl_free(B);
        return NNC_STATUS_OK;
    oom:
        cl_free(B);
        return nomem(ps);
    }
    /* general product: case (p, q) = (in_p ++ in_q, outs_p x outs_q) */
    int64_t cases = (int64_t)A->n * B->n;
    int64_t rin = (int64_t)B->n * A->rin + (int64_t)A->n * B->rin;
    int64_t nconj = A->nconj * B->nconj;
    int64_t rout = B->nconj * A->rout + A->nconj * B->rout;
    if ((st = limit_check(ps, line, col, cases, nconj, rin + rout, cases + nconj + rin + rout))) {
        cl_free(B);
        return st;
    }
    clist R;
    cl_false(&R);
    if (cl_reserve(&R, cases)) goto oom2;
    for (int p = 0; p < A->n; p++)
        for (int q = 0; q < B->n; q++) {
            ccase *c = &R.c[R.n];
            memset(c, 0, sizeof *c);
            R.n++;
            const ccase *a = &A->c[p], *b = &B->c[q];
            if (ivec_reserve(&c->in, (int64_t)a->in.n + b->in.n) || ivec_append(&c->in, &a->in) ||
                ivec_append(&c->in, &b->in))
                goto oom2;
            if (outs_product(a->outs, a->nouts, b->outs, b->nouts, &c->outs)) goto oom2;
            c->nouts = c->capouts = a->nouts * b->nouts;
            if (c->in.n == 0) R.empty_in = R.n - 1;
        }
    R.rin = rin;
    R.rout = rout;
    R.nconj = nconj;
    cl_free(A);
    cl_free(B);
    *A = R;
    return NNC_STATUS_OK;
oom2:
    cl_free(&R);
    cl_free(B);
    return nomem(ps);
}

/* A := A or B; B is consumed.  Cases with empty input parts are merged. */
static nnc_status cl_or(parser *ps, clist *A, clist *B, int line, int col)
{
    nnc_status st;
    int merge = A->empty_in >= 0 && B->empty_in >= 0;
    int64_t cases = (int64_t)A->n + B->n - merge;
    if ((st = limit_check(ps, line, col, cases, A->nconj + B->nconj, A->rin + A->rout + B->rin + B->rout,
                          B->n + (merge ? B->c[B->empty_in].nouts : 0)))) {
        cl_free(B);
        return st;
    }
    if (cl_reserve(A, cases)) {
        cl_free(B);
        return nomem(ps);
    }
    for (int q = 0; q < B->n; q++) {
        ccase *b = &B->c[q];
        if (merge && q == B->empty_in) {
            ccase *a = &A->c[A->empty_in];
            int64_t need = (int64_t)a->nouts + b->nouts;
            if (need > a->capouts) {
                int64_t cap = a->capouts ? a->capouts : 1;
                while (cap < need) cap *= 2;
                need = cap;
                ivec *o = realloc(a->outs, (size_t)need * sizeof *o);
                if (o == NULL) {
                    for (int r = q; r < B->n; r++) case_free(&B->c[r]);
                    free(B->c);
                    cl_false(B);
                    return nomem(ps);
                }
                a->outs = o;
                a->capouts = (int)need;
            }
            memcpy(a->outs + a->nouts, b->outs, (size_t)b->nouts * sizeof *b->outs);
            a->nouts += b->nouts;
            free(b->outs);
            free(b->in.v);
            continue;
        }
        if (b->in.n == 0) A->empty_in = A->n;
        A->c[A->n++] = *b;
    }
    A->rin += B->rin;
    A->rout += B->rout;
    A->nconj += B->nconj;
    free(B->c);
    cl_false(B);
    return NNC_STATUS_OK;
}

/* ---- formulas ---- */

static nnc_status parse_formula(parser *ps, clist *out, int depth);

static nnc_status parse_compare(parser *ps, int op, int line, int col, clist *out, int depth)
{
    nnc_status st;
    lexpr prev, cur;
    memset(&prev, 0, sizeof prev);
    memset(&cur, 0, sizeof cur);
    if ((st = cl_single(out, -1, -1) ? nomem(ps) : NNC_STATUS_OK)) return st;
    int nargs = 0;
    while (ps->tk != TK_RP) {
        if (ps->tk == TK_EOF) {
            st = unclosed(ps);
            break;
        }
        if ((st = parse_term(ps, &cur, depth + 1))) break;
        if (nargs > 0) {
            /* op: 'l' <=, 'g' >=, 'e' = */
            for (int pass = 0; pass < (op == 'e' ? 2 : 1); pass++) {
                clist a;
                int ge = op == 'g' || (op == 'e' && pass == 1);
                if ((st = make_atom(ps, &prev, &cur, ge, line, col, &a))) {
                    cl_free(&a);
                    break;
                }
                if ((st = cl_and(ps, out, &a, line, col))) break;
            }
            if (st) break;
        }
        lx_free(&prev);
        prev = cur;
        memset(&cur, 0, sizeof cur);
        nargs++;
    }
    lx_free(&prev);
    lx_free(&cur);
    if (st) return st;
    if (nargs < 2)
        return fail_at(ps, NNC_STATUS_PARSE, line, col, "a comparison needs at least two arguments");
    return adv(ps);
}

static nnc_status parse_formula(parser *ps, clist *out, int depth)
{
    char b[48];
    nnc_status st;
    cl_false(out);
    if (ps->tk == TK_SYM) {
        if (tok_is(ps, "true")) {
            if (cl_single(out, -1, -1)) return nomem(ps);
            return adv(ps);
        }
        if (tok_is(ps, "false")) return adv(ps);
        return fail(ps, NNC_STATUS_PARSE, "expected a formula, found %s", tok_str(ps, b, sizeof b));
    }
    if (ps->tk == TK_EOF) return unclosed(ps);
    if (ps->tk == TK_RP) return fail(ps, NNC_STATUS_PARSE, "expected a formula, found ')'");
    int line = ps->tline, col = ps->tcol;
    if ((st = open_form(ps, depth))) return st;
    if (ps->tk != TK_SYM) {
        if (ps->tk == TK_EOF) return unclosed(ps);
        return fail(ps, NNC_STATUS_PARSE, "expected an operator after '(', found %s", tok_str(ps, b, sizeof b));
    }
    int op = 0;
    if (tok_is(ps, "and")) op = 'A';
    else if (tok_is(ps, "or")) op = 'O';
    else if (tok_is(ps, "<=") || tok_is(ps, "<")) op = 'l';
    else if (tok_is(ps, ">=") || tok_is(ps, ">")) op = 'g';
    else if (tok_is(ps, "=")) op = 'e';
    else if (is_unsupported_op(ps))
        return fail(ps, NNC_STATUS_UNSUPPORTED, "operator %s is not supported", tok_str(ps, b, sizeof b));
    else if (tok_is(ps, "+") || tok_is(ps, "-") || tok_is(ps, "*") || tok_is(ps, "/"))
        return fail(ps, NNC_STATUS_PARSE, "expected a formula, found the term operator %s",
                    tok_str(ps, b, sizeof b));
    else
        return fail(ps, NNC_STATUS_PARSE, "unknown operator %s", tok_str(ps, b, sizeof b));
    if ((st = adv(ps))) return st;
    if (op != 'A' && op != 'O') return parse_compare(ps, op, line, col, out, depth);
    if (op == 'A' && cl_single(out, -1, -1)) return nomem(ps);
    while (ps->tk != TK_RP) {
        if (ps->tk == TK_EOF) return unclosed(ps);
        clist sub;
        if ((st = parse_formula(ps, &sub, depth + 1))) {
            cl_free(&sub);
            return st;
        }
        st = op == 'A' ? cl_and(ps, out, &sub, line, col) : cl_or(ps, out, &sub, line, col);
        if (st) return st;
    }
    return adv(ps);
}

/* ---- top level ---- */

static nnc_status parse_decl(parser *ps, int fun)
{
    char b[48];
    nnc_status st;
    if (ps->tk != TK_SYM) {
        if (ps->tk == TK_EOF) return unclosed(ps);
        return fail(ps, NNC_STATUS_PARSE, "expected a variable name, found %s", tok_str(ps, b, sizeof b));
    }
    int kind, index, r = var_name(ps->ts, ps->tn, &kind, &index);
    int line = ps->tline, col = ps->tcol;
    if (r == -1)
        return fail(ps, NNC_STATUS_LIMIT, "variable %s: index over the limit of %d variables",
                    tok_str(ps, b, sizeof b), NNC_SPC_MAX_VARS);
    if (r == -2)
        return fail(ps, NNC_STATUS_PARSE, "variable %s: index with a leading zero", tok_str(ps, b, sizeof b));
    if (r == 0)
        return fail(ps, NNC_STATUS_UNSUPPORTED,
                    "variable %s: VNN-LIB variables must be named X_<i> (inputs) or Y_<i> (outputs)",
                    tok_str(ps, b, sizeof b));
    if ((st = adv(ps))) return st;
    if (fun) { /* (declare-fun NAME () Real) */
        if (ps->tk != TK_LP) goto badfun;
        if ((st = adv(ps))) return st;
        if (ps->tk != TK_RP) goto badfun;
        if ((st = adv(ps))) return st;
    }
    if (ps->tk == TK_EOF) return unclosed(ps);
    if (ps->tk != TK_SYM)
        return fail(ps, NNC_STATUS_UNSUPPORTED, "%c_%d: only the sort Real is supported",
                    kind == VAR_X ? 'X' : 'Y', index);
    if (!tok_is(ps, "Real"))
        return fail(ps, NNC_STATUS_UNSUPPORTED, "%c_%d has sort %s; only Real is supported",
                    kind == VAR_X ? 'X' : 'Y', index, tok_str(ps, b, sizeof b));
    if ((st = adv(ps))) return st;
    if ((st = declare(ps, kind, index, line, col))) return st;
    return expect_rp(ps, "the declaration");
badfun:
    if (ps->tk == TK_EOF) return unclosed(ps);
    return fail(ps, NNC_STATUS_UNSUPPORTED, "declare-fun: only constants (declare-fun NAME () Real) are supported");
}

static nnc_status parse_all(parser *ps, clist *acc)
{
    char b[48];
    nnc_status st;
    if (cl_single(acc, -1, -1)) return nomem(ps);
    if ((st = adv(ps))) return st;
    while (ps->tk != TK_EOF) {
        if (ps->tk != TK_LP)
            return fail(ps, NNC_STATUS_PARSE, "expected '(' at top level, found %s", tok_str(ps, b, sizeof b));
        ps->fline = ps->tline;
        ps->fcol = ps->tcol;
        if ((st = open_form(ps, 1))) return st;
        if (ps->tk != TK_SYM) {
            if (ps->tk == TK_EOF) return unclosed(ps);
            return fail(ps, NNC_STATUS_PARSE, "expected a command after '(', found %s", tok_str(ps, b, sizeof b));
        }
        if (tok_is(ps, "declare-const") || tok_is(ps, "declare-fun")) {
            int fun = tok_is(ps, "declare-fun");
            if ((st = adv(ps)) || (st = parse_decl(ps, fun))) return st;
        } else if (tok_is(ps, "assert")) {
            int line = ps->fline, col = ps->fcol;
            if (ps->assert_line == 0) {
                ps->assert_line = line;
                ps->assert_col = col;
            }
            if ((st = adv(ps))) return st;
            clist f;
            if ((st = parse_formula(ps, &f, 2))) {
                cl_free(&f);
                return st;
            }
            if ((st = cl_and(ps, acc, &f, line, col))) return st;
            if ((st = expect_rp(ps, "the assert"))) return st;
        } else if (tok_is(ps, "check-sat") || tok_is(ps, "get-model") || tok_is(ps, "exit")) {
            if ((st = adv(ps)) || (st = expect_rp(ps, "the command"))) return st;
        } else if (tok_is(ps, "set-logic")) {
            if ((st = adv(ps))) return st;
            if (ps->tk != TK_SYM) {
                if (ps->tk == TK_EOF) return unclosed(ps);
                return fail(ps, NNC_STATUS_PARSE, "set-logic needs a logic name");
            }
            if ((st = adv(ps)) || (st = expect_rp(ps, "set-logic"))) return st;
        } else if (tok_is(ps, "define-fun") || tok_is(ps, "define-sort") || tok_is(ps, "declare-sort") ||
                   tok_is(ps, "push") || tok_is(ps, "pop") || tok_is(ps, "set-info") ||
                   tok_is(ps, "set-option") || tok_is(ps, "get-value") || tok_is(ps, "reset") ||
                   tok_is(ps, "check-sat-assuming") || tok_is(ps, "define-fun-rec") ||
                   tok_is(ps, "declare-datatypes") || tok_is(ps, "echo")) {
            return fail(ps, NNC_STATUS_UNSUPPORTED, "command %s is not supported", tok_str(ps, b, sizeof b));
        } else {
            return fail(ps, NNC_STATUS_PARSE, "unknown command %s", tok_str(ps, b, sizeof b));
        }
    }
    return NNC_STATUS_OK;
}

/* ---- normal form ---- */

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static int atom_content_equal(const parser *ps, int a, int b)
{
    const atom *x = &ps->atoms[a], *y = &ps->atoms[b];
    if (x->nt != y->nt || x->rhs != y->rhs) return 0;
    for (int t = 0; t < x->nt; t++)
        if (ps->tidx[x->toff + t] != ps->tidx[y->toff + t] || ps->tcoef[x->toff + t] != ps->tcoef[y->toff + t])
            return 0;
    return 1;
}

/* Turn the atom  c * X_i <= d  into a bound, rounded outward.  Returns
 * +1 (upper bound) or -1 (lower bound) and the value in *b. */
static int atom_bound(double c, double d, double *b)
{
    if (c == 1) {
        *b = d;
        return 1;
    }
    if (c == -1) {
        *b = nnc_spc_unneg0(-d);
        return -1;
    }
    double v = d / c;
    if (isfinite(v) && fma(v, c, -d) < 0) v = nextafter(v, c > 0 ? INFINITY : -INFINITY);
    *b = nnc_spc_unneg0(v);
    return c > 0 ? 1 : -1;
}

typedef struct dcase {
    ivec extras;  /* input atoms with >= 2 terms */
    ivec members; /* clist cases merged into this one */
    uint64_t hash;
} dcase;

static nnc_status build_spec(parser *ps, clist *acc, nnc_spec **out)
{
    nnc_status st = NNC_STATUS_OK;
    int n_in = ps->count[VAR_X] ? ps->maxidx[VAR_X] + 1 : 0;
    int n_out = ps->count[VAR_Y] ? ps->maxidx[VAR_Y] + 1 : 0;
    for (int kind = 0; kind < 2; kind++) {
        char v = kind == VAR_X ? 'X' : 'Y';
        if (ps->count[kind] == 0)
            return fail(ps, NNC_STATUS_INVALID, "no %s declared (expected %c_0 ...)",
                        kind == VAR_X ? "input variables" : "output variables", v);
        int n = ps->maxidx[kind] + 1;
        if (ps->count[kind] != n) {
            int miss = 0;
            while (is_declared(ps, kind, miss)) miss++;
            const decl *d = find_decl(ps, kind, ps->maxidx[kind]);
            return fail_at(ps, NNC_STATUS_INVALID, d->line, d->col,
                           "%c_%d is declared but %c_%d is not: variables must be %c_0 .. %c_%d", v,
                           ps->maxidx[kind], v, miss, v, v, ps->maxidx[kind]);
        }
    }
    if (acc->n == 0)
        return fail_at(ps, NNC_STATUS_INVALID, ps->assert_line, ps->assert_col,
                       "the assertions are unsatisfiable (no input region remains)");
    if ((int64_t)acc->n * n_in > NNC_SPC_MAX_BOX)
        return fail_at(ps, NNC_STATUS_LIMIT, ps->assert_line, ps->assert_col,
                       "%d cases of %d inputs exceed the limit of %d box bounds", acc->n, n_in,
                       NNC_SPC_MAX_BOX);

    double *lo = NULL, *hi = NULL;
    dcase *dc = NULL;
    int nd = 0;
    int *table = NULL, *amap = NULL;
    size_t tsize = 1;
    while (tsize < 2 * (size_t)acc->n) tsize *= 2;
    table = malloc(tsize * sizeof *table);
    lo = malloc((size_t)acc->n * n_in * sizeof *lo);
    hi = malloc((size_t)acc->n * n_in * sizeof *hi);
    dc = calloc((size_t)acc->n, sizeof *dc);
    amap = malloc((size_t)(ps->natoms ? ps->natoms : 1) * sizeof *amap);
    if (!table || !lo || !hi || !dc || !amap) {
        st = nomem(ps);
        goto done;
    }
    for (size_t i = 0; i < tsize; i++) table[i] = -1;

    for (int p = 0; p < acc->n; p++) {
        const ccase *c = &acc->c[p];
        double *l = lo + (size_t)nd * n_in, *h = hi + (size_t)nd * n_in;
        for (int i = 0; i < n_in; i++) {
            l[i] = -INFINITY;
            h[i] = INFINITY;
        }
        dcase *d = &dc[nd];
        d->extras.n = 0;
        for (int t = 0; t < c->in.n; t++) {
            const atom *a = &ps->atoms[c->in.v[t]];
            if (a->nt > 1) {
                if (ivec_push(&d->extras, c->in.v[t])) {
                    st = nomem(ps);
                    goto done;
                }
                continue;
            }
            int i = ps->tidx[a->toff];
            double b;
            int dir = atom_bound(ps->tcoef[a->toff], a->rhs, &b);
            if (!isfinite(b)) {
                st = fail_at(ps, NNC_STATUS_INVALID, a->line, a->col, "bound on X_%d is out of range", i);
                goto done;
            }
            if (dir > 0 && b < h[i]) h[i] = b;
            if (dir < 0 && b > l[i]) l[i] = b;
            if (l[i] > h[i]) {
                st = fail_at(ps, NNC_STATUS_INVALID, a->line, a->col,
                             "empty input box: X_%d >= %.17g and X_%d <= %.17g", i, l[i], i, h[i]);
                goto done;
            }
        }
        for (int i = 0; i < n_in; i++) {
            if (isfinite(l[i]) && isfinite(h[i])) continue;
            const decl *dd = find_decl(ps, VAR_X, i);
            char cs[40] = "";
            if (acc->n > 1) snprintf(cs, sizeof cs, " in case %d", p);
            st = fail_at(ps, NNC_STATUS_INVALID, dd->line, dd->col, "input X_%d has no %s bound%s", i,
                         isfinite(l[i]) ? "upper" : "lower", cs);
            goto done;
        }
        uint64_t hs = hash_bytes(1469598103934665603ull, l, (size_t)n_in * sizeof *l);
        hs = hash_bytes(hs, h, (size_t)n_in * sizeof *h);
        for (int t = 0; t < d->extras.n; t++) {
            const atom *a = &ps->atoms[d->extras.v[t]];
            hs = hash_bytes(hs, &a->rhs, sizeof a->rhs);
            hs = hash_bytes(hs, ps->tidx + a->toff, (size_t)a->nt * sizeof(int));
            hs = hash_bytes(hs, ps->tcoef + a->toff, (size_t)a->nt * sizeof(double));
        }
        d->hash = hs;
        size_t slot = (size_t)hs & (tsize - 1);
        int found = -1;
        for (; table[slot] >= 0; slot = (slot + 1) & (tsize - 1)) {
            const dcase *e = &dc[table[slot]];
            if (e->hash != hs || e->extras.n != d->extras.n) continue;
            const double *el = lo + (size_t)table[slot] * n_in, *eh = hi + (size_t)table[slot] * n_in;
            int same = 1;
            for (int i = 0; i < n_in && same; i++) same = el[i] == l[i] && eh[i] == h[i];
            for (int t = 0; t < d->extras.n && same; t++)
                same = atom_content_equal(ps, e->extras.v[t], d->extras.v[t]);
            if (same) {
                found = table[slot];
                break;
            }
        }
        if (found < 0) {
            table[slot] = nd;
            found = nd++;
        } else {
            free(d->extras.v);
            memset(d, 0, sizeof *d);
        }
        if (ivec_push(&dc[found].members, p)) {
            st = nomem(ps);
            goto done;
        }
    }

    /* sizes, then the pool of constraints that are referenced */
    int64_t n_in_refs = 0, n_out_refs = 0, n_terms = 0;
    int n_dj = 0, n_lin = 0;
    for (int a = 0; a < ps->natoms; a++) amap[a] = -1;
    for (int k = 0; k < nd; k++) {
        for (int t = 0; t < dc[k].extras.n; t++) {
            int a = dc[k].extras.v[t];
            if (amap[a] < 0) {
                amap[a] = n_lin++;
                n_terms += ps->atoms[a].nt;
            }
        }
        n_in_refs += dc[k].extras.n;
        for (int mi = 0; mi < dc[k].members.n; mi++) {
            const ccase *c = &acc->c[dc[k].members.v[mi]];
            n_dj += c->nouts;
            for (int j = 0; j < c->nouts; j++) {
                n_out_refs += c->outs[j].n;
                for (int t = 0; t < c->outs[j].n; t++) {
                    int a = c->outs[j].v[t];
                    if (amap[a] < 0) {
                        amap[a] = n_lin++;
                        n_terms += ps->atoms[a].nt;
                    }
                }
            }
        }
    }
    nnc_spec *s = nnc_spc_alloc(n_in, n_out, nd, n_in_refs, n_dj, n_out_refs, n_lin, n_terms);
    if (s == NULL) {
        st = nomem(ps);
        goto done;
    }
    memcpy(s->lo, lo, (size_t)nd * n_in * sizeof *lo);
    memcpy(s->hi, hi, (size_t)nd * n_in * sizeof *hi);
    for (int a = 0; a < ps->natoms; a++) {
        int c = amap[a];
        if (c < 0) continue;
        const atom *at = &ps->atoms[a];
        s->lin_rhs[c] = at->rhs;
        s->lin_off[c + 1] = at->nt; /* lengths first, prefix sums below */
    }
    for (int c = 0; c < n_lin; c++) s->lin_off[c + 1] += s->lin_off[c];
    for (int a = 0; a < ps->natoms; a++) {
        int c = amap[a];
        if (c < 0) continue;
        const atom *at = &ps->atoms[a];
        memcpy(s->lin_idx + s->lin_off[c], ps->tidx + at->toff, (size_t)at->nt * sizeof(int));
        memcpy(s->lin_coef + s->lin_off[c], ps->tcoef + at->toff, (size_t)at->nt * sizeof(double));
    }
    int ri = 0, ro = 0, dj = 0;
    for (int k = 0; k < nd; k++) {
        for (int t = 0; t < dc[k].extras.n; t++) s->in_refs[ri++] = amap[dc[k].extras.v[t]];
        s->in_off[k + 1] = ri;
        for (int mi = 0; mi < dc[k].members.n; mi++) {
            const ccase *c = &acc->c[dc[k].members.v[mi]];
            for (int j = 0; j < c->nouts; j++) {
                for (int t = 0; t < c->outs[j].n; t++) s->out_refs[ro++] = amap[c->outs[j].v[t]];
                s->con_off[++dj] = ro;
            }
        }
        s->dj_off[k + 1] = dj;
    }
    *out = s;
done:
    if (dc != NULL)
        for (int k = 0; k < acc->n; k++) {
            free(dc[k].extras.v);
            free(dc[k].members.v);
        }
    free(dc);
    free(lo);
    free(hi);
    free(table);
    free(amap);
    return st;
}

nnc_status nnc_spc_parse(nnc_spec **out, const char *text, size_t len, char *err, size_t errlen)
{
    *out = NULL;
    if (err != NULL && errlen > 0) err[0] = 0;
    if (text == NULL) text = "";
    if (len >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "gzip-compressed, not VNN-LIB text: decompress it first (gzip -dk)");
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.text = ps.p = ps.line_start = text;
    ps.end = text + len;
    ps.line = 1;
    ps.err = err;
    ps.errlen = errlen;
    ps.maxidx[0] = ps.maxidx[1] = -1;
    if (len > NNC_SPC_MAX_FILE_BYTES)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "line 1, column 1: spec text larger than %zu bytes",
                       NNC_SPC_MAX_FILE_BYTES);
    /* strtod in the "C" locale whatever the caller's locale is */
    locale_t cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t old = cloc != (locale_t)0 ? uselocale(cloc) : (locale_t)0;
    clist acc;
    cl_false(&acc);
    nnc_status st = parse_all(&ps, &acc);
    if (st == NNC_STATUS_OK) st = build_spec(&ps, &acc, out);
    cl_free(&acc);
    if (cloc != (locale_t)0) {
        uselocale(old);
        freelocale(cloc);
    }
    free(ps.decls);
    free(ps.bits[0]);
    free(ps.bits[1]);
    free(ps.atoms);
    free(ps.tidx);
    free(ps.tcoef);
    return st;
}

nnc_status nnc_spc_parse_file(nnc_spec **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return nnc_err(err, errlen, NNC_STATUS_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        fclose(f);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            if (cap > NNC_SPC_MAX_FILE_BYTES) {
                free(buf);
                fclose(f);
                return nnc_err(err, errlen, NNC_STATUS_LIMIT, "%s: larger than %zu bytes", path,
                               NNC_SPC_MAX_FILE_BYTES);
            }
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return nnc_err(err, errlen, NNC_STATUS_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return nnc_err(err, errlen, NNC_STATUS_IO, "%s: read error", path);
    }
    char msg[NNC_ERRBUF_SIZE];
    nnc_status st = nnc_spc_parse(out, buf, n, msg, sizeof msg);
    free(buf);
    if (st != NNC_STATUS_OK) nnc_err(err, errlen, st, "%s: %s", path, msg);
    return st;
}

/* ------------------------------------------------------------- writer */

/* The shortest of %.15g / %.16g / %.17g that strtod reads back exactly. */
static void write_num(FILE *f, double v)
{
    char b[40];
    v = nnc_spc_unneg0(v);
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, v);
        if (prec == 17 || strtod(b, NULL) == v) break;
    }
    fputs(b, f);
}

/* One constraint  sum c_t V_t <= rhs  as an atom. */
static void write_lin(FILE *f, const nnc_spec *s, int c, char v)
{
    int64_t a = s->lin_off[c], n = s->lin_off[c + 1] - a;
    const int *idx = s->lin_idx + a;
    const double *co = s->lin_coef + a;
    double rhs = s->lin_rhs[c];
    if (n == 2 && rhs == 0 && co[0] == -co[1] && (co[0] == 1 || co[0] == -1)) {
        int pos = co[0] == 1 ? 0 : 1; /* V_pos - V_neg <= 0 */
        fprintf(f, "(<= %c_%d %c_%d)", v, idx[pos], v, idx[1 - pos]);
        return;
    }
    if (n == 1 && (co[0] == 1 || co[0] == -1)) {
        fprintf(f, "(%s %c_%d ", co[0] == 1 ? "<=" : ">=", v, idx[0]);
        write_num(f, co[0] == 1 ? rhs : -rhs);
        fputc(')', f);
        return;
    }
    fputs("(<= ", f);
    if (n > 1) fputs("(+", f);
    for (int64_t t = 0; t < n; t++) {
        if (n > 1) fputc(' ', f);
        if (co[t] == 1) {
            fprintf(f, "%c_%d", v, idx[t]);
        } else {
            fputs("(* ", f);
            write_num(f, co[t]);
            fprintf(f, " %c_%d)", v, idx[t]);
        }
    }
    if (n > 1) fputc(')', f);
    fputc(' ', f);
    write_num(f, rhs);
    fputc(')', f);
}

static void write_box(FILE *f, const nnc_spec *s, int k, const char *pre, const char *post)
{
    const double *lo = nnc_spc_case_lo(s, k), *hi = nnc_spc_case_hi(s, k);
    for (int i = 0; i < s->n_in; i++) {
        fprintf(f, "%s(<= X_%d ", pre, i);
        write_num(f, hi[i]);
        fprintf(f, ")%s%s(>= X_%d ", post, pre, i);
        write_num(f, lo[i]);
        fprintf(f, ")%s", post);
    }
    for (int i = s->in_off[k]; i < s->in_off[k + 1]; i++) {
        fputs(pre, f);
        write_lin(f, s, s->in_refs[i], 'X');
        fputs(post, f);
    }
}

static void write_disjuncts(FILE *f, const nnc_spec *s, int k, const char *indent)
{
    fputs("(or", f);
    for (int d = s->dj_off[k]; d < s->dj_off[k + 1]; d++) {
        fprintf(f, "\n%s(and", indent);
        for (int i = s->con_off[d]; i < s->con_off[d + 1]; i++) {
            fputc(' ', f);
            write_lin(f, s, s->out_refs[i], 'Y');
        }
        fputc(')', f);
    }
    fputc(')', f);
}

nnc_status nnc_spc_write_vnnlib(FILE *f, const nnc_spec *s, char *err, size_t errlen)
{
    locale_t cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t old = cloc != (locale_t)0 ? uselocale(cloc) : (locale_t)0;
    fprintf(f, "; VNN-LIB spec written by nncert: %d inputs, %d outputs, %d case%s\n\n", s->n_in,
            s->n_out, s->n_cases, s->n_cases == 1 ? "" : "s");
    for (int i = 0; i < s->n_in; i++) fprintf(f, "(declare-const X_%d Real)\n", i);
    fputc('\n', f);
    for (int j = 0; j < s->n_out; j++) fprintf(f, "(declare-const Y_%d Real)\n", j);
    fputc('\n', f);
    if (s->n_cases == 1) {
        fputs("; input region\n", f);
        write_box(f, s, 0, "(assert ", ")\n");
        fputs("\n; unsafe outputs\n(assert ", f);
        write_disjuncts(f, s, 0, "    ");
        fputs(")\n", f);
    } else {
        fputs("; one (and input-region unsafe-outputs) per case\n(assert (or", f);
        for (int k = 0; k < s->n_cases; k++) {
            fprintf(f, "\n    (and ; case %d\n", k);
            write_box(f, s, k, "        ", "\n");
            fputs("        ", f);
            write_disjuncts(f, s, k, "            ");
            fputs(")", f);
        }
        fputs("))\n", f);
    }
    if (cloc != (locale_t)0) {
        uselocale(old);
        freelocale(cloc);
    }
    if (fflush(f) != 0 || ferror(f))
        return nnc_err(err, errlen, NNC_STATUS_IO, "writing the VNN-LIB spec failed: %s", strerror(errno));
    return NNC_STATUS_OK;
}
