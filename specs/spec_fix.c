/* A spec restricted to a range of its inputs, the others fixed
 * (nncert/spec.h, nnc_spc_keep_inputs): a DLRM's VNN-LIB spec states its
 * categorical ids as inputs with equal lower and upper bounds; the
 * verifier works on the dense features alone once the ids are fixed. */
#include "specs/spec_impl.h"

#include <stdlib.h>
#include <string.h>

nnc_status nnc_spc_keep_inputs(nnc_spec **out, double *fixed, const nnc_spec *s, int off, int n_keep,
                               char *err, size_t errlen)
{
    *out = NULL;
    if (off < 0 || n_keep < 1 || off > s->n_in - n_keep)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "inputs %d..%d are not inside the spec's %d", off, off + n_keep - 1, s->n_in);
    if (s->in_off[s->n_cases] > 0)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "the spec has linear input constraints beyond its boxes");
    for (int i = 0, f = 0; i < s->n_in; i++) {
        if (i >= off && i < off + n_keep) continue;
        double v = s->lo[i];
        for (int k = 0; k < s->n_cases; k++) {
            const double *lo = s->lo + (size_t)k * (size_t)s->n_in, *hi = s->hi + (size_t)k * (size_t)s->n_in;
            if (lo[i] != hi[i])
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "X_%d must be fixed (equal lower and upper bounds): it is in [%.17g, %.17g]",
                               i, lo[i], hi[i]);
            if (lo[i] != v)
                return nnc_err(err, errlen, NNC_STATUS_INVALID, "X_%d is fixed to %.17g in case 0 but to %.17g in case %d", i, v, lo[i], k);
        }
        fixed[f++] = v;
    }
    int64_t n_terms = s->lin_off[s->n_lin], n_out_refs = s->con_off[s->n_dj];
    nnc_spec *r = nnc_spc_alloc(n_keep, s->n_out, s->n_cases, 0, s->n_dj, n_out_refs, s->n_lin, n_terms);
    if (r == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int k = 0; k < s->n_cases; k++) {
        memcpy(r->lo + (size_t)k * (size_t)n_keep, s->lo + (size_t)k * (size_t)s->n_in + off, (size_t)n_keep * sizeof(double));
        memcpy(r->hi + (size_t)k * (size_t)n_keep, s->hi + (size_t)k * (size_t)s->n_in + off, (size_t)n_keep * sizeof(double));
    }
    /* no input constraints: the pool holds output constraints only, over Y */
    memset(r->in_off, 0, ((size_t)s->n_cases + 1) * sizeof *r->in_off);
    memcpy(r->dj_off, s->dj_off, ((size_t)s->n_cases + 1) * sizeof *r->dj_off);
    memcpy(r->con_off, s->con_off, ((size_t)s->n_dj + 1) * sizeof *r->con_off);
    memcpy(r->out_refs, s->out_refs, (size_t)n_out_refs * sizeof *r->out_refs);
    memcpy(r->lin_off, s->lin_off, ((size_t)s->n_lin + 1) * sizeof *r->lin_off);
    memcpy(r->lin_idx, s->lin_idx, (size_t)n_terms * sizeof *r->lin_idx);
    memcpy(r->lin_coef, s->lin_coef, (size_t)n_terms * sizeof *r->lin_coef);
    memcpy(r->lin_rhs, s->lin_rhs, (size_t)s->n_lin * sizeof *r->lin_rhs);
    *out = r;
    return NNC_STATUS_OK;
}

nnc_status nnc_spc_embed_sample(nnc_spec **out, const nnc_spec *s, int rows, int row, char *err, size_t errlen)
{
    *out = NULL;
    if (rows < 1 || row < 0 || row >= rows)
        return nnc_err(err, errlen, NNC_STATUS_ARG, "sample %d is not one of the %d samples", row, rows);
    if (s->in_off[s->n_cases] > 0)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "the spec has linear input constraints beyond its boxes");
    if ((int64_t)s->n_in * rows > NNC_SPC_MAX_VARS || (int64_t)s->n_out * rows > NNC_SPC_MAX_VARS ||
        (int64_t)s->n_in * rows * s->n_cases > NNC_SPC_MAX_BOX)
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "%d samples of %d inputs and %d outputs exceed %d variables", rows, s->n_in,
                       s->n_out, NNC_SPC_MAX_VARS);
    int n_in = s->n_in * rows, n_out = s->n_out * rows;
    int64_t n_terms = s->lin_off[s->n_lin], n_out_refs = s->con_off[s->n_dj];
    nnc_spec *r = nnc_spc_alloc(n_in, n_out, s->n_cases, 0, s->n_dj, n_out_refs, s->n_lin, n_terms);
    if (r == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    for (int k = 0; k < s->n_cases; k++) {
        const double *lo = s->lo + (size_t)k * (size_t)s->n_in, *hi = s->hi + (size_t)k * (size_t)s->n_in;
        double *rl = r->lo + (size_t)k * (size_t)n_in, *rh = r->hi + (size_t)k * (size_t)n_in;
        for (int b = 0; b < rows; b++)
            for (int i = 0; i < s->n_in; i++) {
                /* the other samples at the box centre (never -0, as the parser keeps) */
                double c = b == row ? lo[i] : 0.5 * lo[i] + 0.5 * hi[i];
                if (c == 0) c = 0;
                rl[b * s->n_in + i] = c;
                rh[b * s->n_in + i] = b == row ? hi[i] : c;
            }
    }
    /* no input constraints: the pool holds output constraints only, over Y,
     * moved to sample row's outputs */
    memset(r->in_off, 0, ((size_t)s->n_cases + 1) * sizeof *r->in_off);
    memcpy(r->dj_off, s->dj_off, ((size_t)s->n_cases + 1) * sizeof *r->dj_off);
    memcpy(r->con_off, s->con_off, ((size_t)s->n_dj + 1) * sizeof *r->con_off);
    memcpy(r->out_refs, s->out_refs, (size_t)n_out_refs * sizeof *r->out_refs);
    memcpy(r->lin_off, s->lin_off, ((size_t)s->n_lin + 1) * sizeof *r->lin_off);
    for (int64_t t = 0; t < n_terms; t++) r->lin_idx[t] = s->lin_idx[t] + row * s->n_out;
    memcpy(r->lin_coef, s->lin_coef, (size_t)n_terms * sizeof *r->lin_coef);
    memcpy(r->lin_rhs, s->lin_rhs, (size_t)s->n_lin * sizeof *r->lin_rhs);
    *out = r;
    return NNC_STATUS_OK;
}
