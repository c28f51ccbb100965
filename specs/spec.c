/* nnc_spec: allocation, accessors, comparison, evaluation of constraints,
 * dimension checks and the L-inf robustness builder. */
#include "specs/spec_impl.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

nnc_spec *nnc_spc_alloc(int n_in, int n_out, int n_cases, int64_t n_in_refs, int n_dj,
                        int64_t n_out_refs, int n_lin, int64_t n_terms)
{
    nnc_spec *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->n_in = n_in;
    s->n_out = n_out;
    s->n_cases = n_cases;
    s->n_dj = n_dj;
    s->n_lin = n_lin;
    size_t box = (size_t)n_cases * (size_t)n_in;
    s->lo = malloc((box ? box : 1) * sizeof *s->lo);
    s->hi = malloc((box ? box : 1) * sizeof *s->hi);
    s->in_off = malloc(((size_t)n_cases + 1) * sizeof *s->in_off);
    s->in_refs = malloc(((size_t)n_in_refs + 1) * sizeof *s->in_refs);
    s->dj_off = malloc(((size_t)n_cases + 1) * sizeof *s->dj_off);
    s->con_off = malloc(((size_t)n_dj + 1) * sizeof *s->con_off);
    s->out_refs = malloc(((size_t)n_out_refs + 1) * sizeof *s->out_refs);
    s->lin_off = malloc(((size_t)n_lin + 1) * sizeof *s->lin_off);
    s->lin_idx = malloc(((size_t)n_terms + 1) * sizeof *s->lin_idx);
    s->lin_coef = malloc(((size_t)n_terms + 1) * sizeof *s->lin_coef);
    s->lin_rhs = malloc(((size_t)n_lin + 1) * sizeof *s->lin_rhs);
    if (!s->lo || !s->hi || !s->in_off || !s->in_refs || !s->dj_off || !s->con_off ||
        !s->out_refs || !s->lin_off || !s->lin_idx || !s->lin_coef || !s->lin_rhs) {
        nnc_spc_destroy(s);
        return NULL;
    }
    s->in_off[0] = s->dj_off[0] = s->con_off[0] = 0;
    s->lin_off[0] = 0;
    return s;
}

void nnc_spc_destroy(nnc_spec *s)
{
    if (s == NULL) return;
    free(s->lo);
    free(s->hi);
    free(s->in_off);
    free(s->in_refs);
    free(s->dj_off);
    free(s->con_off);
    free(s->out_refs);
    free(s->lin_off);
    free(s->lin_idx);
    free(s->lin_coef);
    free(s->lin_rhs);
    free(s);
}

int nnc_spc_num_inputs(const nnc_spec *s) { return s->n_in; }
int nnc_spc_num_outputs(const nnc_spec *s) { return s->n_out; }
int nnc_spc_num_cases(const nnc_spec *s) { return s->n_cases; }
int nnc_spc_total_disjuncts(const nnc_spec *s) { return s->n_dj; }

const double *nnc_spc_case_lo(const nnc_spec *s, int k)
{
    assert(k >= 0 && k < s->n_cases);
    return s->lo + (size_t)k * (size_t)s->n_in;
}

const double *nnc_spc_case_hi(const nnc_spec *s, int k)
{
    assert(k >= 0 && k < s->n_cases);
    return s->hi + (size_t)k * (size_t)s->n_in;
}

static void get_lin(const nnc_spec *s, int c, nnc_spc_lin *out)
{
    int64_t a = s->lin_off[c], b = s->lin_off[c + 1];
    out->n = (int)(b - a);
    out->idx = s->lin_idx + a;
    out->coef = s->lin_coef + a;
    out->rhs = s->lin_rhs[c];
}

int nnc_spc_case_num_input_cons(const nnc_spec *s, int k)
{
    assert(k >= 0 && k < s->n_cases);
    return s->in_off[k + 1] - s->in_off[k];
}

void nnc_spc_case_input_con(const nnc_spec *s, int k, int i, nnc_spc_lin *out)
{
    assert(i >= 0 && i < nnc_spc_case_num_input_cons(s, k));
    get_lin(s, s->in_refs[s->in_off[k] + i], out);
}

int nnc_spc_case_num_disjuncts(const nnc_spec *s, int k)
{
    assert(k >= 0 && k < s->n_cases);
    return s->dj_off[k + 1] - s->dj_off[k];
}

int nnc_spc_disjunct_size(const nnc_spec *s, int k, int j)
{
    assert(j >= 0 && j < nnc_spc_case_num_disjuncts(s, k));
    int d = s->dj_off[k] + j;
    return s->con_off[d + 1] - s->con_off[d];
}

void nnc_spc_disjunct_con(const nnc_spec *s, int k, int j, int i, nnc_spc_lin *out)
{
    assert(i >= 0 && i < nnc_spc_disjunct_size(s, k, j));
    int d = s->dj_off[k] + j;
    get_lin(s, s->out_refs[s->con_off[d] + i], out);
}

void nnc_spc_lin_dense(const nnc_spc_lin *l, double *dense, int n)
{
    memset(dense, 0, (size_t)n * sizeof *dense);
    for (int t = 0; t < l->n; t++) {
        assert(l->idx[t] < n);
        dense[l->idx[t]] = l->coef[t];
    }
}

static int lin_holds(const nnc_spc_lin *l, const double *v)
{
    double acc = 0;
    for (int t = 0; t < l->n; t++) acc += l->coef[t] * v[l->idx[t]];
    return acc <= l->rhs;
}

int nnc_spc_in_region(const nnc_spec *s, int k, const double *x)
{
    const double *lo = nnc_spc_case_lo(s, k), *hi = nnc_spc_case_hi(s, k);
    for (int i = 0; i < s->n_in; i++)
        if (!(x[i] >= lo[i] && x[i] <= hi[i])) return 0;
    int nc = nnc_spc_case_num_input_cons(s, k);
    for (int i = 0; i < nc; i++) {
        nnc_spc_lin l;
        nnc_spc_case_input_con(s, k, i, &l);
        if (!lin_holds(&l, x)) return 0;
    }
    return 1;
}

int nnc_spc_unsafe_disjunct(const nnc_spec *s, int k, const double *y)
{
    int nd = nnc_spc_case_num_disjuncts(s, k);
    for (int j = 0; j < nd; j++) {
        int m = nnc_spc_disjunct_size(s, k, j), ok = 1;
        for (int i = 0; i < m && ok; i++) {
            nnc_spc_lin l;
            nnc_spc_disjunct_con(s, k, j, i, &l);
            ok = lin_holds(&l, y);
        }
        if (ok) return j;
    }
    return -1;
}

static int lin_equal(const nnc_spec *a, int ca, const nnc_spec *b, int cb)
{
    nnc_spc_lin la, lb;
    get_lin(a, ca, &la);
    get_lin(b, cb, &lb);
    if (la.n != lb.n || la.rhs != lb.rhs) return 0;
    for (int t = 0; t < la.n; t++)
        if (la.idx[t] != lb.idx[t] || la.coef[t] != lb.coef[t]) return 0;
    return 1;
}

int nnc_spc_equal(const nnc_spec *a, const nnc_spec *b)
{
    if (a->n_in != b->n_in || a->n_out != b->n_out || a->n_cases != b->n_cases) return 0;
    size_t box = (size_t)a->n_cases * (size_t)a->n_in;
    for (size_t i = 0; i < box; i++)
        if (a->lo[i] != b->lo[i] || a->hi[i] != b->hi[i]) return 0;
    for (int k = 0; k < a->n_cases; k++) {
        int ni = nnc_spc_case_num_input_cons(a, k);
        if (ni != nnc_spc_case_num_input_cons(b, k)) return 0;
        for (int i = 0; i < ni; i++)
            if (!lin_equal(a, a->in_refs[a->in_off[k] + i], b, b->in_refs[b->in_off[k] + i])) return 0;
        int nd = nnc_spc_case_num_disjuncts(a, k);
        if (nd != nnc_spc_case_num_disjuncts(b, k)) return 0;
        for (int j = 0; j < nd; j++) {
            int da = a->dj_off[k] + j, db = b->dj_off[k] + j;
            int m = a->con_off[da + 1] - a->con_off[da];
            if (m != b->con_off[db + 1] - b->con_off[db]) return 0;
            for (int i = 0; i < m; i++)
                if (!lin_equal(a, a->out_refs[a->con_off[da] + i], b, b->out_refs[b->con_off[db] + i]))
                    return 0;
        }
    }
    return 1;
}

nnc_status nnc_spc_check_model_dims(const nnc_spec *s, int64_t n_in, int64_t n_out,
                                    char *err, size_t errlen)
{
    if (s->n_in != n_in || s->n_out != n_out)
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "dimension mismatch: the spec has %d inputs and %d outputs, the model has "
                       "%lld inputs and %lld outputs",
                       s->n_in, s->n_out, (long long)n_in, (long long)n_out);
    return NNC_STATUS_OK;
}

/* a + b rounded toward -inf (dir < 0) or +inf (dir > 0), by TwoSum. */
static double add_dir(double a, double b, int dir)
{
    double s = a + b;
    if (!isfinite(s)) return s;
    double bb = s - a;
    double e = (a - (s - bb)) + (b - bb); /* exact: a + b = s + e */
    if (dir < 0 && e < 0) s = nextafter(s, -INFINITY);
    if (dir > 0 && e > 0) s = nextafter(s, INFINITY);
    return s;
}

nnc_status nnc_spc_linf(nnc_spec **out, const double *x, int n_in, int n_out, int label,
                        double eps, double clip_lo, double clip_hi, char *err, size_t errlen)
{
    *out = NULL;
    if (n_in < 1 || n_out < 2)
        return nnc_err(err, errlen, NNC_STATUS_ARG,
                       "L-inf spec needs at least 1 input and 2 outputs (got %d and %d)", n_in, n_out);
    if (n_in > NNC_SPC_MAX_VARS || n_out > NNC_SPC_MAX_VARS)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "L-inf spec: more than %d variables",
                       NNC_SPC_MAX_VARS);
    if (label < 0 || label >= n_out)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "label %d is outside [0, %d)", label, n_out);
    if (!(eps >= 0) || !isfinite(eps))
        return nnc_err(err, errlen, NNC_STATUS_ARG, "eps must be finite and >= 0 (got %g)", eps);
    if (!(clip_lo <= clip_hi))
        return nnc_err(err, errlen, NNC_STATUS_ARG, "clip range [%g, %g] is empty", clip_lo, clip_hi);
    nnc_spec *s = nnc_spc_alloc(n_in, n_out, 1, 0, n_out - 1, n_out - 1, n_out - 1,
                                2 * (int64_t)(n_out - 1));
    if (s == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory building the L-inf spec");
    for (int i = 0; i < n_in; i++) {
        if (!isfinite(x[i])) {
            nnc_spc_destroy(s);
            return nnc_err(err, errlen, NNC_STATUS_ARG, "input %d is not finite", i);
        }
        double lo = add_dir(x[i], -eps, -1), hi = add_dir(x[i], eps, 1);
        if (lo < clip_lo) lo = clip_lo;
        if (hi > clip_hi) hi = clip_hi;
        if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi)) {
            nnc_spc_destroy(s);
            return nnc_err(err, errlen, NNC_STATUS_ARG,
                           "input %d: box [%.17g, %.17g] around %.17g is empty or unbounded after "
                           "clipping to [%g, %g]",
                           i, lo, hi, x[i], clip_lo, clip_hi);
        }
        s->lo[i] = nnc_spc_unneg0(lo);
        s->hi[i] = nnc_spc_unneg0(hi);
    }
    s->in_off[1] = 0;
    s->dj_off[1] = n_out - 1;
    int c = 0;
    for (int j = 0; j < n_out; j++) {
        if (j == label) continue;
        /* Y_label - Y_j <= 0, terms in ascending index order */
        int64_t t = s->lin_off[c];
        int a = label < j ? label : j, b = label < j ? j : label;
        s->lin_idx[t] = a;
        s->lin_coef[t] = a == label ? 1.0 : -1.0;
        s->lin_idx[t + 1] = b;
        s->lin_coef[t + 1] = b == label ? 1.0 : -1.0;
        s->lin_rhs[c] = 0.0;
        s->lin_off[c + 1] = t + 2;
        s->out_refs[c] = c;
        s->con_off[c + 1] = c + 1;
        c++;
    }
    *out = s;
    return NNC_STATUS_OK;
}
