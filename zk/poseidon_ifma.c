/* The Poseidon permutation with AVX-512 IFMA (see zk/poseidon_ifma.h). */
#include "zk/poseidon_ifma.h"

#include <stdlib.h>
#include <string.h>

#include "prover/fq_ifma.h"
#include "prover/ntt_ifma.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(NNC_NO_IFMA_BUILD)
#define NNC_IFMA_BUILD 1
#endif

/* One vector constant in memory: limb j of lane l at [8 j + l]. */
#define VEC_WORDS 40

struct nnc_pos_ifma {
    int t, nv, n_full, n_partial;
    uint64_t *mem;  /* every table below, 64-byte aligned */
    uint64_t *rc;   /* full round r, vector k: the round constants (bits as stored) */
    uint64_t *mds;  /* vector k, column j: m[8k + lane][j] 2^16, scaled */
    uint64_t *pre;  /* the same for pre */
    uint64_t *pc;   /* partial round j: its constant in lane 0 */
    uint64_t *pu;   /* partial round j, vector k: element 0: m[0][0] 2^16, element i >= 1: u_j[i-1], scaled */
    uint64_t *pw;   /* partial round j, vector k: element 0: 0, element i >= 1: w_j[i-1] 2^16, scaled */
};

#ifdef NNC_IFMA_BUILD

/* lane l of vector dst: the bits of x (scaled: times 2^260, shifted: times
 * 2^16 first) */
static void vec_put(uint64_t *dst, int l, const nnc_fr *x, int scaled, int shifted)
{
    uint64_t t[5];
    nnc_fr y = *x;
    if (shifted) {
        nnc_fr s;
        nnc_fr_set_u64(&s, 65536);
        nnc_fr_mul(&y, &y, &s);
    }
    if (scaled) nnc_ntt_ifma_scaled(t, &y);
    else nnc_ifma_split52(t, y.v);
    for (int j = 0; j < 5; j++) dst[8 * j + l] = t[j];
}

nnc_pos_ifma *nnc_pos_ifma_build(int t, int n_full, int n_partial, const nnc_fr *c, const nnc_fr *m, const nnc_fr *pre,
                                 const nnc_fr *u, const nnc_fr *w)
{
    if (t < 2 || t > 24 || !nnc_fq_ifma_cpu()) return NULL;
    nnc_pos_ifma *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    int nv = (t + 7) / 8, half = n_full / 2;
    size_t nvec = (size_t)n_full * nv + 2 * (size_t)nv * t + (size_t)n_partial * (1 + 2 * (size_t)nv);
    size_t bytes = nvec * VEC_WORDS * sizeof(uint64_t);
    v->mem = aligned_alloc(64, bytes);
    if (!v->mem) {
        free(v);
        return NULL;
    }
    memset(v->mem, 0, bytes);
    v->t = t, v->nv = nv, v->n_full = n_full, v->n_partial = n_partial;
    v->rc = v->mem;
    v->mds = v->rc + (size_t)n_full * nv * VEC_WORDS;
    v->pre = v->mds + (size_t)nv * t * VEC_WORDS;
    v->pc = v->pre + (size_t)nv * t * VEC_WORDS;
    v->pu = v->pc + (size_t)n_partial * VEC_WORDS;
    v->pw = v->pu + (size_t)n_partial * nv * VEC_WORDS;
    /* full rounds' constants: the first half, then (after the partial
     * rounds' one each) the second */
    for (int r = 0; r < n_full; r++) {
        const nnc_fr *cr = r < half ? c + (size_t)r * t : c + (size_t)half * t + n_partial + (size_t)(r - half) * t;
        for (int i = 0; i < t; i++) vec_put(v->rc + ((size_t)r * nv + i / 8) * VEC_WORDS, i % 8, &cr[i], 0, 0);
    }
    for (int k = 0; k < nv; k++)
        for (int j = 0; j < t; j++)
            for (int l = 0; l < 8 && 8 * k + l < t; l++) {
                vec_put(v->mds + ((size_t)k * t + j) * VEC_WORDS, l, &m[(size_t)(8 * k + l) * t + j], 1, 1);
                vec_put(v->pre + ((size_t)k * t + j) * VEC_WORDS, l, &pre[(size_t)(8 * k + l) * t + j], 1, 1);
            }
    for (int p = 0; p < n_partial; p++) {
        const nnc_fr *up = u + (size_t)p * (t - 1), *wp = w + (size_t)p * (t - 1);
        vec_put(v->pc + (size_t)p * VEC_WORDS, 0, &c[(size_t)half * t + p], 0, 0);
        uint64_t *pu = v->pu + (size_t)p * nv * VEC_WORDS, *pw = v->pw + (size_t)p * nv * VEC_WORDS;
        vec_put(pu, 0, &m[0], 1, 1);
        for (int i = 1; i < t; i++) {
            vec_put(pu + (size_t)(i / 8) * VEC_WORDS, i % 8, &up[i - 1], 1, 0);
            vec_put(pw + (size_t)(i / 8) * VEC_WORDS, i % 8, &wp[i - 1], 1, 1);
        }
    }
    return v;
}

#include "prover/ifma_impl.h"

IFMA_INLINE v5 vload(const uint64_t *p)
{
    v5 r;
    for (int j = 0; j < 5; j++) r.l[j] = _mm512_load_si512((const void *)(p + 8 * j));
    return r;
}

IFMA_INLINE v5 vmul(const v5 *a, const v5 *b) { return ifma_mulm(a, b, &IFMA_FR); }
IFMA_INLINE v5 vadd(const v5 *a, const v5 *b) { return ifma_addm(a, b, &IFMA_FR); }

/* x^5 2^-16 (in the bits' terms) on every lane */
IFMA_INLINE v5 vsbox(const v5 *x)
{
    v5 x2 = vmul(x, x), x4 = vmul(&x2, &x2);
    return vmul(&x4, x);
}

/* every lane: lane l of a */
IFMA_INLINE v5 vbcast(const v5 *a, int l)
{
    const __m512i idx = _mm512_set1_epi64(l);
    v5 r;
    for (int j = 0; j < 5; j++) r.l[j] = _mm512_permutexvar_epi64(idx, a->l[j]);
    return r;
}

/* every lane: the sum of a's lanes */
IFMA_INLINE v5 vhsum(v5 s)
{
    const __m512i p4 = _mm512_set_epi64(3, 2, 1, 0, 7, 6, 5, 4), p2 = _mm512_set_epi64(5, 4, 7, 6, 1, 0, 3, 2),
                  p1 = _mm512_set_epi64(6, 7, 4, 5, 2, 3, 0, 1);
    const __m512i *perm[3] = {&p4, &p2, &p1};
    for (int k = 0; k < 3; k++) {
        v5 o;
        for (int j = 0; j < 5; j++) o.l[j] = _mm512_permutexvar_epi64(*perm[k], s.l[j]);
        s = vadd(&s, &o);
    }
    return s;
}

/* lane 0 from b, the others from a */
IFMA_INLINE v5 vlane0(const v5 *a, const v5 *b)
{
    v5 r;
    for (int j = 0; j < 5; j++) r.l[j] = _mm512_mask_blend_epi64(1, a->l[j], b->l[j]);
    return r;
}

/* S-boxes then the product by the matrix whose scaled columns are at tab */
IFMA_FN static void full_round(v5 *V, int nv, int t, const uint64_t *rc, const uint64_t *tab)
{
    v5 Y[3], out[3];
    for (int k = 0; k < nv; k++) {
        v5 c = vload(rc + (size_t)k * VEC_WORDS);
        V[k] = vadd(&V[k], &c);
        Y[k] = vsbox(&V[k]);
    }
    for (int j = 0; j < t; j++) {
        v5 b = vbcast(&Y[j / 8], j % 8);
        for (int k = 0; k < nv; k++) {
            v5 col = vload(tab + ((size_t)k * t + j) * VEC_WORDS), p = vmul(&b, &col);
            out[k] = j == 0 ? p : vadd(&out[k], &p);
        }
    }
    for (int k = 0; k < nv; k++) V[k] = out[k];
}

IFMA_FN void nnc_pos_ifma_permute(const nnc_pos_ifma *v, nnc_fr *state)
{
    const int t = v->t, nv = v->nv, half = v->n_full / 2;
    uint64_t buf[24][4] __attribute__((aligned(64)));
    v5 V[3];
    memset(buf, 0, sizeof buf);
    for (int i = 0; i < t; i++) memcpy(buf[i], state[i].v, sizeof buf[i]);
    for (int k = 0; k < nv; k++) V[k] = ifma_load8((const uint64_t(*)[4])buf[8 * k]);
    const uint64_t *rc = v->rc;
    for (int r = 0; r < half; r++, rc += (size_t)nv * VEC_WORDS) full_round(V, nv, t, rc, r == half - 1 ? v->pre : v->mds);
    for (int p = 0; p < v->n_partial; p++) {
        const uint64_t *pu = v->pu + (size_t)p * nv * VEC_WORDS, *pw = v->pw + (size_t)p * nv * VEC_WORDS;
        v5 c = vload(v->pc + (size_t)p * VEC_WORDS), x = vadd(&V[0], &c);
        x = vsbox(&x);
        v5 b = vbcast(&x, 0), z0 = vlane0(&V[0], &x), cu = vload(pu), acc = vmul(&z0, &cu);
        for (int k = 1; k < nv; k++) {
            v5 uk = vload(pu + (size_t)k * VEC_WORDS), q = vmul(&V[k], &uk);
            acc = vadd(&acc, &q);
        }
        acc = vhsum(acc);
        for (int k = 0; k < nv; k++) {
            v5 wk = vload(pw + (size_t)k * VEC_WORDS), q = vmul(&b, &wk);
            V[k] = vadd(&V[k], &q);
        }
        V[0] = vlane0(&V[0], &acc);
    }
    for (int r = 0; r < half; r++, rc += (size_t)nv * VEC_WORDS) full_round(V, nv, t, rc, v->mds);
    for (int k = 0; k < nv; k++) {
        V[k] = ifma_canonm(V[k], &IFMA_FR);
        ifma_store8((uint64_t(*)[4])buf[8 * k], &V[k]);
    }
    for (int i = 0; i < t; i++) memcpy(state[i].v, buf[i], sizeof buf[i]);
}

#else /* no IFMA code in this build */

nnc_pos_ifma *nnc_pos_ifma_build(int t, int n_full, int n_partial, const nnc_fr *c, const nnc_fr *m, const nnc_fr *pre,
                                 const nnc_fr *u, const nnc_fr *w)
{
    (void)t, (void)n_full, (void)n_partial, (void)c, (void)m, (void)pre, (void)u, (void)w;
    return NULL;
}

void nnc_pos_ifma_permute(const nnc_pos_ifma *v, nnc_fr *state) { (void)v, (void)state; }

#endif
