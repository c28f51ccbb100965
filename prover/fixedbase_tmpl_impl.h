/* Fixed-base comb for one group, included by prover/fixedbase.c once per
 * group after defining (as prover/curve_tmpl_impl.h takes them):
 *   FB_F(op), FB_G(op), FB_FE, FB_AFF, FB_JAC   field / group names and types
 *   FB_NAME(x)   the prefix of the functions defined here
 * and optionally an 8-lane comb (prover/fq_ifma.h):
 *   FB_VEC_ON()              int, evaluated once per batch: use it;
 *   FB_VEC_WORDS             words per entry of its table;
 *   FB_VEC_TABLE(t5, t, n)   its table (uint64_t [n][FB_VEC_WORDS]) from the
 *                            affine one;
 *   FB_VEC_COMB8(p, e, t5)   p[0..7] (Jacobian) = the comb sums of the 8
 *                            integers e[8][4], constant time in them.
 * See prover/fixedbase_impl.h for the method.  No include guard; the
 * parameters are #undef'd at the end, ready for the next group. */

#ifndef FB_VEC_WORDS
#define FB_VEC_WORDS 1
#endif

/* T[w*16 + d] = [d 16^w]G, affine; row w = 0..63.  The generator is public,
 * so the table is built with variable-time formulas. */
static int FB_NAME(table)(FB_AFF **out)
{
    FB_AFF *t = malloc(sizeof(FB_AFF) * 64 * 16);
    FB_AFF g;
    FB_JAC base, acc;
    if (!t) return -1;
    FB_G(generator)(&g);
    FB_G(aff_to_jac)(&base, &g);
    for (int w = 0; w < 64; w++) {
        FB_G(aff_set_inf)(&t[w * 16]);
        FB_G(jac_set_inf)(&acc);
        for (int d = 1; d < 16; d++) {
            FB_G(jac_add_var)(&acc, &acc, &base);
            FB_G(jac_to_aff_var)(&t[w * 16 + d], &acc);
        }
        for (int s = 0; s < 4; s++) FB_G(jac_dbl)(&base, &base);
    }
    *out = t;
    return 0;
}

/* acc += b in the comb.  acc = [a]G, a < 16^w (the windows below w), and
 * b = [d 16^w]G with 1 <= d, a + d 16^w <= k < r: so a != d 16^w as
 * integers below r, acc = b never happens and the doubling case of the
 * complete formula is left out.  acc = -b (a + d 16^w = r) gives Z = 0,
 * infinity, as wanted; either side at infinity is selected by mask. */
static void FB_NAME(add)(FB_JAC *acc, const FB_AFF *b)
{
    FB_JAC s, bj;
    int h0, r0, ia = FB_G(jac_is_inf)(acc), ib = FB_G(aff_is_inf)(b);
    FB_G(jac_add_aff_core)(&s, &h0, &r0, acc, b);
    FB_G(aff_to_jac)(&bj, b);
    FB_G(jac_cmov)(&s, &bj, ia);
    FB_G(jac_cmov)(&s, acc, ib);
    *acc = s;
}

/* out[i] = [k[i]]G for i < m <= FB_BLOCK; constant time in the k[i].
 * t5: the 8-lane comb's table, or NULL for the scalar comb. */
static void FB_NAME(block)(FB_AFF *out, const nnc_prv_fr *k, size_t m, const FB_AFF *t, const uint64_t (*t5)[FB_VEC_WORDS])
{
    FB_JAC p[FB_BLOCK];
    FB_FE pre[FB_BLOCK], acc, inv, one, z, zi, zi2;
    FB_F(set_one)(&one);
#ifdef FB_VEC_COMB8
    for (size_t i = 0; t5 != NULL && i < m; i += 8) {
        uint64_t e[8][4];
        FB_JAC q[8];
        memset(e, 0, sizeof e);
        for (size_t s = 0; s < 8 && i + s < m; s++)
            nnc_fr_to_int(e[s], &k[i + s]);
        FB_VEC_COMB8(q, (const uint64_t(*)[4])e, t5);
        for (size_t s = 0; s < 8 && i + s < m; s++)
            p[i + s] = q[s];
        sodium_memzero(e, sizeof e);
        sodium_memzero(q, sizeof q);
    }
#else
    (void)t5;
#endif
    for (size_t i = 0; t5 == NULL && i < m; i++) {
        uint64_t e[4];
        nnc_fr_to_int(e, &k[i]);
        FB_G(jac_set_inf)(&p[i]);
        for (int w = 0; w < 64; w++) {
            uint32_t nib = (uint32_t)(e[w >> 4] >> ((w & 15) * 4)) & 15;
            FB_AFF sel = t[w * 16];
            for (uint32_t d = 1; d < 16; d++) {
                int hit = (int)(((d ^ nib) - 1) >> 31); /* 1 iff d == nib */
                FB_F(cmov)(&sel.x, &t[w * 16 + d].x, hit);
                FB_F(cmov)(&sel.y, &t[w * 16 + d].y, hit);
            }
            FB_NAME(add)(&p[i], &sel);
        }
        sodium_memzero(e, sizeof e);
    }
    /* batch normalisation: pre[i] = product of the Z_j (j < i, zero as one) */
    acc = one;
    for (size_t i = 0; i < m; i++) {
        pre[i] = acc;
        z = p[i].z;
        FB_F(cmov)(&z, &one, FB_F(is_zero)(&p[i].z));
        FB_F(mul)(&acc, &acc, &z);
    }
    FB_F(inv)(&inv, &acc);
    for (size_t i = m; i-- > 0;) {
        int inf = FB_F(is_zero)(&p[i].z);
        FB_F(mul)(&zi, &inv, &pre[i]); /* 1 / Z_i */
        z = p[i].z;
        FB_F(cmov)(&z, &one, inf);
        FB_F(mul)(&inv, &inv, &z);
        FB_F(sqr)(&zi2, &zi);
        FB_F(mul)(&out[i].x, &p[i].x, &zi2);
        FB_F(mul)(&zi2, &zi2, &zi);
        FB_F(mul)(&out[i].y, &p[i].y, &zi2);
        FB_AFF infp;
        FB_G(aff_set_inf)(&infp);
        FB_F(cmov)(&out[i].x, &infp.x, inf);
        FB_F(cmov)(&out[i].y, &infp.y, inf);
    }
    sodium_memzero(p, sizeof(FB_JAC) * m);
}

typedef struct FB_NAME(job) {
    FB_AFF *out;
    const nnc_prv_fr *k;
    size_t lo, hi;
    const FB_AFF *t;
    const uint64_t (*t5)[FB_VEC_WORDS];
} FB_NAME(job);

static void *FB_NAME(worker)(void *arg)
{
    FB_NAME(job) *j = arg;
    for (size_t i = j->lo; i < j->hi; i += FB_BLOCK) {
        size_t m = j->hi - i < FB_BLOCK ? j->hi - i : FB_BLOCK;
        FB_NAME(block)(j->out + i, j->k + i, m, j->t, j->t5);
    }
    return NULL;
}

static int FB_NAME(batch)(FB_AFF *out, const nnc_prv_fr *k, size_t n, int threads)
{
    FB_AFF *t;
    uint64_t (*t5)[FB_VEC_WORDS] = NULL;
    FB_NAME(job) jobs[FB_MAX_THREADS];
    pthread_t th[FB_MAX_THREADS];
    int nt, started = 0;
    if (n == 0) return 0;
    if (FB_NAME(table)(&t)) return -1;
#ifdef FB_VEC_COMB8
    if (FB_VEC_ON() && (t5 = malloc(64 * 16 * sizeof *t5)) != NULL) /* else the scalar comb */
        FB_VEC_TABLE(t5, t, 64 * 16);
#endif
    nt = fb_thread_count(threads, n);
    for (int i = 0; i < nt; i++) {
        jobs[i].out = out;
        jobs[i].k = k;
        jobs[i].lo = n * (size_t)i / (size_t)nt;
        jobs[i].hi = n * (size_t)(i + 1) / (size_t)nt;
        jobs[i].t = t;
        jobs[i].t5 = (const uint64_t(*)[FB_VEC_WORDS])t5;
    }
    /* jobs 1.. on new threads (run here instead when one cannot start) */
    for (int i = 1; i < nt; i++) {
        if (pthread_create(&th[i], NULL, FB_NAME(worker), &jobs[i]) != 0) break;
        started = i;
    }
    FB_NAME(worker)(&jobs[0]);
    for (int i = started + 1; i < nt; i++) FB_NAME(worker)(&jobs[i]);
    for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
    free(t);
    free(t5);
    return 0;
}

#undef FB_F
#undef FB_G
#undef FB_FE
#undef FB_AFF
#undef FB_JAC
#undef FB_NAME
#undef FB_VEC_ON
#undef FB_VEC_TABLE
#undef FB_VEC_COMB8
#undef FB_VEC_WORDS
