/* Circuit builder of zk/circuit.h: wires with witness values, constraints
 * over linear combinations, and the renumbering into circom's wire order. */
#include "zk/circuit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prover/field_impl.h"

#include <sodium.h>

/* Builder ids are assigned in creation order (0 = the constant 1); the
 * final circom index depends on the class and is fixed by nnc_prv_cb_finish. */
struct nnc_prv_cb {
    uint32_t n_wires, cap_wires;
    unsigned char *cls;        /* nnc_prv_wire_class per id */
    nnc_prv_fr *val;           /* witness value per id */
    uint32_t *mark;            /* per id: 0, or 1 + a term's position during nnc_prv_lc_compact */
    uint64_t n_cons, cap_cons;
    uint64_t *lc_start;        /* 3 n_cons + 1 */
    uint64_t n_terms, cap_terms;
    nnc_prv_r1cs_term *terms;
    nnc_prv_cb_section *sec;
    int n_sec;
    int count_only;            /* 1: count constraints and terms, store none;
                                * wires keep no class and no value (every wire
                                * but the constant 1 reads as 0: the circuit
                                * does not depend on witness values) */
    int witness_only;          /* 1: wires hold values; constraints keep only
                                * the values of their A and B combinations */
    nnc_prv_fr *ab;            /* witness-only: A w, B w of constraint i at 2i, 2i + 1 */
    uint64_t cap_ab;           /* constraints ab has room for */
    nnc_prv_fr scratch;        /* nnc_prv_cb_value of a count-only wire */
    uint64_t max_terms;        /* nnc_prv_cb_max_term_bytes() / sizeof *terms */
    nnc_status st;             /* sticky error */
    char err[NNC_ERRBUF_SIZE];
};

void nnc_prv_cb_fail(nnc_prv_cb *cb, nnc_status st, const char *msg)
{
    if (cb->st) return;
    cb->st = st;
    snprintf(cb->err, sizeof cb->err, "%s", msg);
}

void nnc_prv_cb_fail_value(nnc_prv_cb *cb, const char *what)
{
    if (!cb->count_only) nnc_prv_cb_fail(cb, NNC_STATUS_INVALID, what);
}

uint64_t nnc_prv_cb_max_term_bytes(void)
{
    /* proving holds a key with a copy of the A and B terms besides them,
     * and nnc_prv_cb_finish (without _move) holds them twice */
    uint64_t m = nnc_machine_memory_bytes();
    return m == UINT64_MAX ? m : m / 2;
}

nnc_status nnc_prv_cb_create(nnc_prv_cb **out)
{
    nnc_prv_cb *cb = calloc(1, sizeof *cb);
    *out = NULL;
    if (!cb) return NNC_STATUS_NOMEM;
    cb->lc_start = malloc(sizeof *cb->lc_start);
    if (!cb->lc_start) {
        free(cb);
        return NNC_STATUS_NOMEM;
    }
    cb->lc_start[0] = 0;
    cb->cap_cons = 0;
    cb->max_terms = nnc_prv_cb_max_term_bytes() / sizeof *cb->terms;
    nnc_prv_fr one;
    nnc_fr_set_one(&one);
    nnc_prv_cb_wire(cb, NNC_PRV_WIRE_INTERNAL, &one); /* id 0: placed first by finish */
    if (cb->st) {
        nnc_prv_cb_destroy(cb);
        return NNC_STATUS_NOMEM;
    }
    *out = cb;
    return NNC_STATUS_OK;
}

void nnc_prv_cb_destroy(nnc_prv_cb *cb)
{
    if (!cb) return;
    free(cb->cls);
    free(cb->val);
    free(cb->mark);
    free(cb->lc_start);
    free(cb->terms);
    free(cb->sec);
    if (cb->ab) sodium_memzero(cb->ab, (size_t)cb->cap_ab * 2 * sizeof *cb->ab);
    free(cb->ab);
    free(cb);
}

nnc_status nnc_prv_cb_status(const nnc_prv_cb *cb, char *err, size_t errlen)
{
    if (cb->st) return nnc_err(err, errlen, cb->st, "%s", cb->err);
    return NNC_STATUS_OK;
}

void nnc_prv_cb_begin(nnc_prv_cb *cb, const char *name)
{
    nnc_prv_cb_section *s = realloc(cb->sec, (size_t)(cb->n_sec + 1) * sizeof *s);
    if (!s) {
        nnc_prv_cb_fail(cb, NNC_STATUS_NOMEM, "out of memory");
        return;
    }
    cb->sec = s;
    memset(&s[cb->n_sec], 0, sizeof *s);
    snprintf(s[cb->n_sec].name, sizeof s[cb->n_sec].name, "%s", name);
    cb->n_sec++;
}

const nnc_prv_cb_section *nnc_prv_cb_sections(const nnc_prv_cb *cb, int *n)
{
    *n = cb->n_sec;
    return cb->sec;
}

void nnc_prv_cb_set_count_only(nnc_prv_cb *cb, int on)
{
    if (cb->n_wires > 1 || cb->n_cons) {
        nnc_prv_cb_fail(cb, NNC_STATUS_ARG, "count-only mode is chosen before the first wire");
        return;
    }
    cb->count_only = on;
}
void nnc_prv_cb_set_witness_only(nnc_prv_cb *cb, int on)
{
    if (on && (cb->n_wires > 1 || cb->n_cons || cb->count_only)) {
        nnc_prv_cb_fail(cb, NNC_STATUS_ARG, "witness-only mode is chosen before the first wire, and not with count-only mode");
        return;
    }
    cb->witness_only = on;
}

int nnc_prv_cb_witness_only(const nnc_prv_cb *cb) { return cb->witness_only; }

uint64_t nnc_prv_cb_n_terms(const nnc_prv_cb *cb) { return cb->n_terms; }

uint64_t nnc_prv_cb_n_constraints(const nnc_prv_cb *cb) { return cb->n_cons; }
uint32_t nnc_prv_cb_n_wires(const nnc_prv_cb *cb) { return cb->n_wires; }

uint32_t nnc_prv_cb_wire(nnc_prv_cb *cb, nnc_prv_wire_class cls, const nnc_prv_fr *v)
{
    if (cb->st) return 0;
    if (cb->n_wires == UINT32_MAX - 1) {
        nnc_prv_cb_fail(cb, NNC_STATUS_LIMIT, "more than 2^32 - 2 wires");
        return 0;
    }
    if (cb->n_wires == cb->cap_wires) {
        uint32_t cap = cb->cap_wires ? (cb->cap_wires > UINT32_MAX / 2 ? UINT32_MAX - 1 : cb->cap_wires * 2) : 1024;
        unsigned char *c = NULL;
        nnc_prv_fr *w = NULL;
        if (!cb->count_only) {
            if ((c = realloc(cb->cls, cap))) cb->cls = c;
            if (c && (w = realloc(cb->val, (size_t)cap * sizeof *w))) cb->val = w;
        }
        uint32_t *mk = w || cb->count_only ? realloc(cb->mark, (size_t)cap * sizeof *mk) : NULL;
        if (mk) {
            memset(mk + cb->cap_wires, 0, (size_t)(cap - cb->cap_wires) * sizeof *mk);
            cb->mark = mk;
        }
        if (!mk) {
            nnc_prv_cb_fail(cb, NNC_STATUS_NOMEM, "out of memory (wires)");
            return 0;
        }
        cb->cap_wires = cap;
    }
    if (cb->count_only) {
        if (cb->n_sec) cb->sec[cb->n_sec - 1].wires++;
        return cb->n_wires++;
    }
    cb->cls[cb->n_wires] = (unsigned char)cls;
    cb->val[cb->n_wires] = *v;
    if (cb->n_sec) cb->sec[cb->n_sec - 1].wires++;
    return cb->n_wires++;
}

nnc_prv_fr *nnc_prv_cb_value(nnc_prv_cb *cb, uint32_t id)
{
    if (cb->count_only && id) {
        nnc_fr_set_zero(&cb->scratch);
        return &cb->scratch;
    }
    return &cb->val[id];
}

void nnc_prv_cb_constrain(nnc_prv_cb *cb, const nnc_prv_lc *a, const nnc_prv_lc *b, const nnc_prv_lc *c)
{
    if (cb->st) return;
    if (cb->n_cons >= UINT32_MAX - 1) {
        nnc_prv_cb_fail(cb, NNC_STATUS_LIMIT, "more than 2^32 - 2 constraints");
        return;
    }
    uint64_t need = (uint64_t)a->n + b->n + c->n;
    if (cb->witness_only) {
        nnc_prv_fr va, vb;
        nnc_prv_lc_eval(cb, &va, a);
        nnc_prv_lc_eval(cb, &vb, b);
        nnc_prv_cb_constrain_values(cb, &va, &vb);
        return;
    }
    if (cb->count_only) {
        cb->n_terms += need;
        cb->n_cons++;
        if (cb->n_sec) cb->sec[cb->n_sec - 1].constraints++;
        return;
    }
    if (cb->n_cons == cb->cap_cons) {
        uint64_t cap = cb->cap_cons ? cb->cap_cons * 2 : 1024;
        uint64_t *s = realloc(cb->lc_start, (size_t)(3 * cap + 1) * sizeof *s);
        if (!s) {
            nnc_prv_cb_fail(cb, NNC_STATUS_NOMEM, "out of memory (constraints)");
            return;
        }
        cb->lc_start = s;
        cb->cap_cons = cap;
    }
    if (cb->n_terms + need > cb->max_terms) {
        char msg[NNC_ERRBUF_SIZE];
        snprintf(msg, sizeof msg,
                 "the circuit needs more than %.3f MiB for its R1CS terms (%llu terms at constraint %llu, %zu bytes each); the limit is %.3f MiB (half of the machine's memory or of NNCERT_MEMORY_BYTES); "
                 "'nncert compile --count-only' counts the whole circuit without building it",
                 (double)(cb->n_terms + need) * (double)sizeof *cb->terms / 1048576.0, (unsigned long long)(cb->n_terms + need),
                 (unsigned long long)cb->n_cons, sizeof *cb->terms, (double)cb->max_terms * (double)sizeof *cb->terms / 1048576.0);
        nnc_prv_cb_fail(cb, NNC_STATUS_LIMIT, msg);
        return;
    }
    if (cb->n_terms + need > cb->cap_terms) {
        uint64_t cap = cb->cap_terms ? cb->cap_terms * 2 : 4096;
        while (cap < cb->n_terms + need) cap *= 2;
        nnc_prv_r1cs_term *t = realloc(cb->terms, (size_t)cap * sizeof *t);
        if (!t) {
            nnc_prv_cb_fail(cb, NNC_STATUS_NOMEM, "out of memory (terms)");
            return;
        }
        cb->terms = t;
        cb->cap_terms = cap;
    }
    const nnc_prv_lc *l3[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        if (l3[k]->n) memcpy(cb->terms + cb->n_terms, l3[k]->t, (size_t)l3[k]->n * sizeof *cb->terms);
        cb->n_terms += l3[k]->n;
        cb->lc_start[3 * cb->n_cons + k + 1] = cb->n_terms;
    }
    cb->n_cons++;
    if (cb->n_sec) cb->sec[cb->n_sec - 1].constraints++;
}

void nnc_prv_cb_constrain_values(nnc_prv_cb *cb, const nnc_prv_fr *a, const nnc_prv_fr *b)
{
    if (cb->st) return;
    if (!cb->witness_only) {
        nnc_prv_cb_fail(cb, NNC_STATUS_ARG, "a constraint given by its values outside witness-only mode");
        return;
    }
    if (cb->n_cons >= UINT32_MAX - 1) {
        nnc_prv_cb_fail(cb, NNC_STATUS_LIMIT, "more than 2^32 - 2 constraints");
        return;
    }
    if (cb->n_cons == cb->cap_ab) {
        uint64_t cap = cb->cap_ab ? cb->cap_ab * 2 : 1024;
        nnc_prv_fr *t = realloc(cb->ab, (size_t)cap * 2 * sizeof *t);
        if (!t) {
            nnc_prv_cb_fail(cb, NNC_STATUS_NOMEM, "out of memory (constraint values)");
            return;
        }
        cb->ab = t;
        cb->cap_ab = cap;
    }
    cb->ab[2 * cb->n_cons] = *a;
    cb->ab[2 * cb->n_cons + 1] = *b;
    cb->n_cons++;
    if (cb->n_sec) cb->sec[cb->n_sec - 1].constraints++;
}

nnc_prv_fr *nnc_prv_cb_constraint_a(nnc_prv_cb *cb, uint64_t i)
{
    return cb->witness_only && cb->ab && i < cb->n_cons ? &cb->ab[2 * i] : NULL;
}

/* ---------------------------------------------------------------- LCs */

void nnc_prv_lc_clear(nnc_prv_lc *lc)
{
    free(lc->t);
    lc->t = NULL;
    lc->n = lc->cap = 0;
}

void nnc_prv_lc_reset(nnc_prv_lc *lc) { lc->n = 0; }

/* lc's term array resized to cap terms.  Returns: 0, or -1 (sticky error set). */
static int lc_resize(nnc_prv_cb *cb, nnc_prv_lc *lc, uint32_t cap)
{
    nnc_prv_r1cs_term *t = realloc(lc->t, (size_t)cap * sizeof *t);
    if (!t) {
        nnc_prv_cb_fail(cb, NNC_STATUS_NOMEM, "out of memory (linear combination)");
        return -1;
    }
    lc->t = t;
    lc->cap = cap;
    return 0;
}

static int lc_reserve(nnc_prv_cb *cb, nnc_prv_lc *lc, uint32_t extra)
{
    if (lc->n + (uint64_t)extra <= lc->cap) return 0;
    uint64_t cap = lc->cap ? lc->cap : 4;
    while (cap < lc->n + (uint64_t)extra) cap *= 2;
    if (cap > UINT32_MAX) {
        nnc_prv_cb_fail(cb, NNC_STATUS_LIMIT, "linear combination too long");
        return -1;
    }
    return lc_resize(cb, lc, (uint32_t)cap);
}

void nnc_prv_lc_reserve(nnc_prv_cb *cb, nnc_prv_lc *lc, uint32_t n)
{
    if (n > lc->cap) lc_resize(cb, lc, n);
}

void nnc_prv_lc_term(nnc_prv_cb *cb, nnc_prv_lc *lc, uint32_t wire, const nnc_prv_fr *coef)
{
    if (nnc_fr_is_zero(coef) || lc_reserve(cb, lc, 1)) return;
    lc->t[lc->n].wire = wire;
    lc->t[lc->n].coef = *coef;
    lc->n++;
}

void nnc_prv_fr_from_i64(nnc_prv_fr *out, int64_t v)
{
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    nnc_fr_set_u64(out, mag);
    if (v < 0) nnc_fr_neg(out, out);
}

int nnc_prv_fr_to_i64(int64_t *out, const nnc_prv_fr *a)
{
    uint64_t x[4];
    nnc_prv_fr n;
    nnc_fr_to_int(x, a);
    if (!x[1] && !x[2] && !x[3] && x[0] < ((uint64_t)1 << 62)) {
        *out = (int64_t)x[0];
        return 0;
    }
    nnc_fr_neg(&n, a);
    nnc_fr_to_int(x, &n);
    if (!x[1] && !x[2] && !x[3] && x[0] < ((uint64_t)1 << 62)) {
        *out = -(int64_t)x[0];
        return 0;
    }
    return -1;
}

void nnc_prv_lc_term_i(nnc_prv_cb *cb, nnc_prv_lc *lc, uint32_t wire, int64_t coef)
{
    nnc_prv_fr c;
    nnc_prv_fr_from_i64(&c, coef);
    nnc_prv_lc_term(cb, lc, wire, &c);
}

void nnc_prv_lc_add(nnc_prv_cb *cb, nnc_prv_lc *dst, const nnc_prv_lc *src, const nnc_prv_fr *k)
{
    if (nnc_fr_is_zero(k) || lc_reserve(cb, dst, src->n)) return;
    int one = nnc_fr_is_one(k);
    for (uint32_t i = 0; i < src->n; i++) {
        dst->t[dst->n].wire = src->t[i].wire;
        if (one) dst->t[dst->n].coef = src->t[i].coef;
        else nnc_fr_mul(&dst->t[dst->n].coef, &src->t[i].coef, k);
        dst->n++;
    }
}

void nnc_prv_lc_add_i(nnc_prv_cb *cb, nnc_prv_lc *dst, const nnc_prv_lc *src, int64_t k)
{
    nnc_prv_fr c;
    nnc_prv_fr_from_i64(&c, k);
    nnc_prv_lc_add(cb, dst, src, &c);
}

void nnc_prv_lc_copy(nnc_prv_cb *cb, nnc_prv_lc *dst, const nnc_prv_lc *src)
{
    nnc_prv_fr one;
    nnc_fr_set_one(&one);
    dst->n = 0;
    nnc_prv_lc_add(cb, dst, src, &one);
}

static int term_cmp(const void *a, const void *b)
{
    uint32_t x = ((const nnc_prv_r1cs_term *)a)->wire, y = ((const nnc_prv_r1cs_term *)b)->wire;
    return x < y ? -1 : x > y;
}

/* Sort t[0..n) by wire, merge equal wires, drop zero coefficients.
 * Returns: the new length. */
static uint32_t terms_compact(nnc_prv_r1cs_term *t, uint32_t n)
{
    int sorted = 1;
    for (uint32_t i = 1; i < n && sorted; i++) sorted = t[i - 1].wire < t[i].wire;
    if (!sorted) qsort(t, n, sizeof *t, term_cmp);
    uint32_t o = 0, z = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (o > 0 && t[o - 1].wire == t[i].wire) nnc_fr_add(&t[o - 1].coef, &t[o - 1].coef, &t[i].coef);
        else t[o++] = t[i];
    }
    for (uint32_t i = 0; i < o; i++)
        if (!nnc_fr_is_zero(&t[i].coef)) t[z++] = t[i];
    return z;
}

/* Merge by scattering through cb->mark (linear time, no sort); the order of
 * first appearance is kept.  nnc_prv_cb_finish sorts each combination. */
void nnc_prv_lc_compact(nnc_prv_cb *cb, nnc_prv_lc *lc)
{
    nnc_prv_r1cs_term *t = lc->t;
    uint32_t o = 0, z = 0;
    for (uint32_t i = 0; i < lc->n; i++) {
        uint32_t p = cb->mark[t[i].wire];
        if (p) {
            nnc_fr_add(&t[p - 1].coef, &t[p - 1].coef, &t[i].coef);
        } else {
            t[o] = t[i];
            cb->mark[t[i].wire] = ++o;
        }
    }
    for (uint32_t i = 0; i < o; i++) {
        cb->mark[t[i].wire] = 0;
        if (!nnc_fr_is_zero(&t[i].coef)) t[z++] = t[i];
    }
    lc->n = z;
}

void nnc_prv_lc_eval(const nnc_prv_cb *cb, nnc_prv_fr *out, const nnc_prv_lc *lc)
{
    nnc_prv_fr s, p;
    nnc_fr_set_zero(&s);
    for (uint32_t i = 0; i < lc->n; i++) {
        if (cb->count_only && lc->t[i].wire) continue; /* a count-only wire reads as 0 */
        nnc_fr_mul(&p, &lc->t[i].coef, &cb->val[lc->t[i].wire]);
        nnc_fr_add(&s, &s, &p);
    }
    *out = s;
}

int nnc_prv_lc_is_const(const nnc_prv_lc *lc)
{
    for (uint32_t i = 0; i < lc->n; i++)
        if (lc->t[i].wire != 0) return 0;
    return 1;
}

/* ---------------------------------------------------------------- finish */

/* Wire ids in circom order (map[0] = 0); counts[k] the wires of class k. */
static uint32_t *wire_order(const nnc_prv_cb *cb, uint32_t counts[4])
{
    uint32_t next[4];
    memset(counts, 0, 4 * sizeof *counts);
    for (uint32_t i = 1; i < cb->n_wires; i++) counts[cb->cls[i]]++;
    next[0] = 1;
    for (int k = 1; k < 4; k++) next[k] = next[k - 1] + counts[k - 1];
    uint32_t *map = malloc((size_t)cb->n_wires * sizeof *map);
    if (!map) return NULL;
    map[0] = 0;
    for (uint32_t i = 1; i < cb->n_wires; i++) map[i] = next[cb->cls[i]]++;
    return map;
}

static nnc_status finish(nnc_prv_cb *cb, nnc_prv_r1cs *r, nnc_prv_fr_vec *w, uint32_t **map_out, int move,
                         char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (w) memset(w, 0, sizeof *w);
    if (map_out) *map_out = NULL;
    if (cb->st) return nnc_prv_cb_status(cb, err, errlen);
    if (cb->count_only) return nnc_err(err, errlen, NNC_STATUS_ARG, "the circuit was built in count-only mode");
    if (cb->witness_only) return nnc_err(err, errlen, NNC_STATUS_ARG, "the circuit was built in witness-only mode (no constraints)");
    uint32_t count[4];
    uint32_t *map = wire_order(cb, count);
    r->lc_start = malloc((size_t)(3 * cb->n_cons + 1) * sizeof *r->lc_start);
    /* move: the builder's own array is renumbered and compacted in place
     * (each combination moves to an offset no later than its own) */
    r->terms = move && cb->terms ? cb->terms : malloc((size_t)(cb->n_terms ? cb->n_terms : 1) * sizeof *r->terms);
    if (move && cb->terms) {
        cb->terms = NULL;
        cb->cap_terms = 0;
        cb->st = NNC_STATUS_ARG; /* consumed: any later call fails */
        snprintf(cb->err, sizeof cb->err, "the circuit builder was consumed by nnc_prv_cb_finish_move");
    }
    if (w) w->v = malloc((size_t)cb->n_wires * sizeof *w->v);
    if (!map || !r->lc_start || !r->terms || (w && !w->v)) {
        free(map);
        nnc_prv_r1cs_clear(r);
        if (w) nnc_prv_fr_vec_clear(w);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory writing the circuit");
    }
    if (w) {
        w->n = cb->n_wires;
        for (uint32_t i = 0; i < cb->n_wires; i++) w->v[map[i]] = cb->val[i];
    }
    uint64_t o = 0;
    r->lc_start[0] = 0;
    for (uint64_t k = 0; k < 3 * cb->n_cons; k++) {
        uint64_t s = cb->lc_start[k], e = cb->lc_start[k + 1];
        const nnc_prv_r1cs_term *src = move ? r->terms : cb->terms;
        for (uint64_t j = s; j < e; j++) { /* o + j - s <= j: in place, forward */
            nnc_prv_r1cs_term t = src[j];
            r->terms[o + j - s].wire = map[t.wire];
            r->terms[o + j - s].coef = t.coef;
        }
        o += terms_compact(r->terms + o, (uint32_t)(e - s));
        r->lc_start[k + 1] = o;
    }
    r->n_terms = o;
    r->n_wires = cb->n_wires;
    r->n_pub_out = count[NNC_PRV_WIRE_PUB_OUT];
    r->n_pub_in = count[NNC_PRV_WIRE_PUB_IN];
    r->n_prv_in = count[NNC_PRV_WIRE_PRV_IN];
    r->n_labels = cb->n_wires;
    r->n_constraints = (uint32_t)cb->n_cons;
    r->wire_label = NULL;
    if (move && o < cb->n_terms) { /* give back what compaction freed */
        nnc_prv_r1cs_term *t = realloc(r->terms, (size_t)(o ? o : 1) * sizeof *t);
        if (t) r->terms = t;
    }
    if (map_out) *map_out = map;
    else free(map);
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_cb_finish_witness(nnc_prv_cb *cb, nnc_prv_cb_witness *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (cb->st) return nnc_prv_cb_status(cb, err, errlen);
    if (!cb->witness_only) return nnc_err(err, errlen, NNC_STATUS_ARG, "the circuit was not built in witness-only mode");
    uint32_t counts[4];
    uint32_t *map = wire_order(cb, counts);
    out->w.v = malloc((size_t)cb->n_wires * sizeof *out->w.v);
    if (!map || !out->w.v) {
        free(map);
        free(out->w.v);
        out->w.v = NULL;
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory writing the witness");
    }
    out->w.n = cb->n_wires;
    for (uint32_t i = 0; i < cb->n_wires; i++) out->w.v[map[i]] = cb->val[i];
    free(map);
    out->ab = cb->ab; /* moved: the builder keeps none, and takes no more constraints */
    cb->ab = NULL;
    cb->cap_ab = 0;
    cb->st = NNC_STATUS_ARG;
    snprintf(cb->err, sizeof cb->err, "the circuit builder's constraints were handed out by nnc_prv_cb_finish_witness");
    out->n_constraints = (uint32_t)cb->n_cons;
    out->n_pub_out = counts[NNC_PRV_WIRE_PUB_OUT];
    out->n_pub_in = counts[NNC_PRV_WIRE_PUB_IN];
    out->n_prv_in = counts[NNC_PRV_WIRE_PRV_IN];
    return NNC_STATUS_OK;
}

void nnc_prv_cb_witness_clear(nnc_prv_cb_witness *x)
{
    if (x->ab) sodium_memzero(x->ab, (size_t)x->n_constraints * 2 * sizeof *x->ab);
    free(x->ab);
    nnc_prv_fr_vec_clear(&x->w);
    memset(x, 0, sizeof *x);
}

nnc_status nnc_prv_cb_finish(nnc_prv_cb *cb, nnc_prv_r1cs *r, nnc_prv_fr_vec *w, uint32_t **map_out,
                             char *err, size_t errlen)
{
    return finish(cb, r, w, map_out, 0, err, errlen);
}

nnc_status nnc_prv_cb_finish_move(nnc_prv_cb *cb, nnc_prv_r1cs *r, nnc_prv_fr_vec *w, uint32_t **map_out,
                                  char *err, size_t errlen)
{
    return finish(cb, r, w, map_out, 1, err, errlen);
}
