/* snarkjs Groth16 .zkey (version 1, protocol id 1): reader and writer.
 *
 * Sections (snarkjs src/zkey_new.js, zkey_utils.js):
 *   1  protocol id u32 (1 Groth16, 2 PLONK, 10 FFLONK)
 *   2  n8q u32, q, n8r u32, r, nVars u32, nPublic u32, domainSize u32,
 *      alpha1, beta1 (G1), beta2, gamma2 (G2), delta1 (G1), delta2 (G2)
 *   3  IC: nPublic + 1 G1 points
 *   4  coefficients: n u32, then n x (matrix u32, constraint u32, signal u32,
 *      value 32 bytes = v*R^2 mod r, little-endian)
 *   5  A: nVars G1       6  B1: nVars G1      7  B2: nVars G2
 *   8  C: nVars - nPublic - 1 G1 (wires nPublic+1 ..)
 *   9  H: domainSize G1 (tau^i odd powers, snarkjs's Lagrange trick)
 *   10 contributions (MPC transcript; kept as raw bytes)
 * G1 = x, y; G2 = x.c0, x.c1, y.c0, y.c1; each coordinate 32 bytes holding
 * the Montgomery form (v*2^256 mod q) little-endian: byte-for-byte the
 * limbs of nnc_prv_fq.  Infinity = all zero. */
#include "prover/formats_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prover/field_impl.h"

#define ZKEY_G16_HEADER_BYTES (4u + 32u + 4u + 32u + 12u + 3u * 64u + 3u * 128u)
#define ZKEY_COEF_BYTES 44u

void nnc_prv_zkey_clear(nnc_prv_zkey *z)
{
    if (z == NULL) return;
    free(z->ic);
    free(z->coefs);
    free(z->a);
    free(z->b1);
    free(z->b2);
    free(z->c);
    free(z->h);
    free(z->contributions);
    memset(z, 0, sizeof *z);
}

/* Returns: 1 and *out = the limbs at p (Montgomery form) if they are below q. */
static int zkey_fq(nnc_prv_fq *out, const unsigned char *p)
{
    const uint64_t q[4] = NNC_FQ_MODULUS_INIT;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out->v, p, 32); /* the file's limbs are the host's */
#else
    nnc_fe4_int_from_b32(out->v, p, NNC_PRV_ENDIAN_LITTLE);
#endif
    return (int)(nnc_fe4_lt_mask(out->v, q) & 1);
}

static void zkey_put_fq(nnc_prv_sink *s, const nnc_prv_fq *a)
{
    unsigned char b[32];
    nnc_fe4_int_to_b32(b, a->v, NNC_PRV_ENDIAN_LITTLE);
    nnc_prv_sink_put(s, b, 32);
}

/* Decoding context for messages. */
typedef struct zkey_ctx {
    char *err;
    size_t errlen;
    unsigned flags;
} zkey_ctx;

static nnc_status zkey_g1(nnc_prv_g1 *out, const unsigned char *p, const char *what, uint64_t idx,
                          const zkey_ctx *cx)
{
    if (!zkey_fq(&out->x, p) || !zkey_fq(&out->y, p + 32))
        return nnc_err(cx->err, cx->errlen, NNC_STATUS_INVALID,
                       "zkey %s point %llu has a coordinate not below the base field prime", what,
                       (unsigned long long)idx);
    if (!nnc_prv_g1_is_on_curve(out))
        return nnc_err(cx->err, cx->errlen, NNC_STATUS_INVALID, "zkey %s point %llu is not on the curve", what,
                       (unsigned long long)idx);
    return NNC_STATUS_OK;
}

static nnc_status zkey_g2(nnc_prv_g2 *out, const unsigned char *p, const char *what, uint64_t idx, int subgroup,
                          const zkey_ctx *cx)
{
    if (!zkey_fq(&out->x.c0, p) || !zkey_fq(&out->x.c1, p + 32) || !zkey_fq(&out->y.c0, p + 64) ||
        !zkey_fq(&out->y.c1, p + 96))
        return nnc_err(cx->err, cx->errlen, NNC_STATUS_INVALID,
                       "zkey %s point %llu has a coordinate not below the base field prime", what,
                       (unsigned long long)idx);
    if (!nnc_prv_g2_is_on_curve(out))
        return nnc_err(cx->err, cx->errlen, NNC_STATUS_INVALID, "zkey %s point %llu is not on the twist", what,
                       (unsigned long long)idx);
    if (subgroup && !nnc_prv_g2_is_valid(out))
        return nnc_err(cx->err, cx->errlen, NNC_STATUS_INVALID,
                       "zkey %s point %llu is not in the order-r subgroup", what, (unsigned long long)idx);
    return NNC_STATUS_OK;
}

static int g1_is_inf(const nnc_prv_g1 *p) { return nnc_fq_is_zero(&p->x) & nnc_fq_is_zero(&p->y); }
static int g2_is_inf(const nnc_prv_g2 *p)
{
    return nnc_fq_is_zero(&p->x.c0) & nnc_fq_is_zero(&p->x.c1) & nnc_fq_is_zero(&p->y.c0) &
           nnc_fq_is_zero(&p->y.c1);
}

/* One thread's share of a point section: points [lo, hi) decoded and
 * checked; bad = the first failing index (hi if none), with its status and
 * message in st / msg. */
typedef struct zkey_share {
    void *out;
    const unsigned char *src;
    uint64_t lo, hi, bad;
    int g2;
    const char *what;
    const zkey_ctx *cx;
    nnc_status st;
    char msg[256];
} zkey_share;

static void *zkey_share_run(void *arg)
{
    zkey_share *sh = arg;
    size_t psz = sh->g2 ? NNC_PRV_ZKEY_G2_BYTES : NNC_PRV_ZKEY_G1_BYTES;
    zkey_ctx cx = *sh->cx;
    uint64_t i;
    cx.err = sh->msg;
    cx.errlen = sizeof sh->msg;
    sh->st = NNC_STATUS_OK;
    sh->bad = sh->hi;
    for (i = sh->lo; i < sh->hi; i++) {
        nnc_status st = sh->g2 ? zkey_g2((nnc_prv_g2 *)sh->out + i, sh->src + i * psz, sh->what, i,
                                         (cx.flags & NNC_PRV_ZKEY_CHECK_SUBGROUP) != 0, &cx)
                               : zkey_g1((nnc_prv_g1 *)sh->out + i, sh->src + i * psz, sh->what, i, &cx);
        if (st != NNC_STATUS_OK) {
            sh->st = st;
            sh->bad = i;
            break;
        }
    }
    return NULL;
}

/* Points per thread below which a section is decoded by one thread. */
#define ZKEY_POINTS_PER_THREAD 4096
#define ZKEY_MAX_THREADS 64

/* Reads a section of n points of the given size into a new array; the
 * decoding and curve checks are shared by the online CPUs, and a failure
 * reports the lowest bad point, as one thread would. */
static nnc_status zkey_points(void **out, const nnc_prv_bin *b, const unsigned char *in, uint32_t type,
                              uint64_t n, int g2, const char *what, const zkey_ctx *cx)
{
    nnc_prv_rd r;
    nnc_status st;
    size_t psz = g2 ? NNC_PRV_ZKEY_G2_BYTES : NNC_PRV_ZKEY_G1_BYTES;
    zkey_share sh[ZKEY_MAX_THREADS];
    pthread_t tid[ZKEY_MAX_THREADS];
    int started[ZKEY_MAX_THREADS];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int T = cpus < 1 ? 1 : cpus > ZKEY_MAX_THREADS ? ZKEY_MAX_THREADS : (int)cpus, t;
    if ((st = nnc_prv_bin_section(&r, b, in, type, 0, "zkey", cx->err, cx->errlen)) != NNC_STATUS_OK)
        return st;
    if (r.len / psz < n || r.len != n * psz)
        return nnc_err(cx->err, cx->errlen, NNC_STATUS_PARSE,
                       "zkey %s section (type %u) has %zu bytes; %llu points need %llu", what, type, r.len,
                       (unsigned long long)n, (unsigned long long)n * psz);
    *out = nnc_prv_alloc_array(n, g2 ? sizeof(nnc_prv_g2) : sizeof(nnc_prv_g1), &st);
    if (*out == NULL)
        return nnc_err(cx->err, cx->errlen, st, "zkey %s: cannot allocate %llu points", what, (unsigned long long)n);
    if ((uint64_t)T > n / ZKEY_POINTS_PER_THREAD)
        T = (int)(n / ZKEY_POINTS_PER_THREAD) > 0 ? (int)(n / ZKEY_POINTS_PER_THREAD) : 1;
    for (t = 0; t < T; t++) {
        sh[t].out = *out;
        sh[t].src = r.p;
        sh[t].lo = n * (uint64_t)t / (uint64_t)T;
        sh[t].hi = n * (uint64_t)(t + 1) / (uint64_t)T;
        sh[t].g2 = g2;
        sh[t].what = what;
        sh[t].cx = cx;
        sh[t].msg[0] = 0;
        started[t] = t > 0 && pthread_create(&tid[t], NULL, zkey_share_run, &sh[t]) == 0;
    }
    zkey_share_run(&sh[0]);
    for (t = 1; t < T; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            zkey_share_run(&sh[t]); /* no thread: do its share here */
    }
    nnc_prv_release(r.p, r.len, cx->flags); /* converted: its file pages are no longer needed */
    for (t = 0; t < T; t++)
        if (sh[t].st != NNC_STATUS_OK) {
            if (cx->err != NULL && cx->errlen > 0)
                snprintf(cx->err, cx->errlen, "%s", sh[t].msg);
            return sh[t].st;
        }
    return NNC_STATUS_OK;
}

static nnc_status zkey_parse(nnc_prv_zkey *z, const unsigned char *in, size_t len, const zkey_ctx *cx)
{
    const uint64_t qmod[4] = NNC_FQ_MODULUS_INIT, rmod[4] = NNC_FR_MODULUS_INIT;
    const nnc_fe4_mod frm = NNC_FR_MOD_INIT;
    char *err = cx->err;
    size_t errlen = cx->errlen;
    nnc_prv_bin b;
    nnc_prv_rd r;
    nnc_status st;
    uint32_t proto, i;
    const unsigned char *p;

    if ((st = nnc_prv_bin_open(&b, in, len, "zkey", 1, 1, err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_bin_section(&r, &b, in, 1, 0, "zkey", err, errlen)) != NNC_STATUS_OK)
        return st;
    if (!nnc_prv_rd_u32(&r, &proto) || r.pos != r.len)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "zkey protocol section has %zu bytes (4 expected)", r.len);
    if (proto != 1)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "zkey for protocol %s (id %u); only groth16 (1) is supported",
                       proto == 2 ? "plonk" : proto == 10 ? "fflonk" : "unknown", proto);

    /* Groth16 header */
    if ((st = nnc_prv_bin_section(&r, &b, in, 2, 0, "zkey", err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_rd_prime(&r, qmod, "zkey base field", err, errlen)) != NNC_STATUS_OK ||
        (st = nnc_prv_rd_prime(&r, rmod, "zkey scalar field", err, errlen)) != NNC_STATUS_OK)
        return st;
    if (!nnc_prv_rd_u32(&r, &z->n_vars) || !nnc_prv_rd_u32(&r, &z->n_public) ||
        !nnc_prv_rd_u32(&r, &z->domain_size) || r.len - r.pos != 3 * 64 + 3 * 128)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "zkey groth16 header section has %zu bytes (%u expected)",
                       r.len, ZKEY_G16_HEADER_BYTES);
    nnc_prv_rd_bytes(&r, &p, 3 * 64 + 3 * 128);
    if ((st = zkey_g1(&z->alpha1, p, "alpha1", 0, cx)) != NNC_STATUS_OK ||
        (st = zkey_g1(&z->beta1, p + 64, "beta1", 0, cx)) != NNC_STATUS_OK ||
        (st = zkey_g2(&z->beta2, p + 128, "beta2", 0, 1, cx)) != NNC_STATUS_OK ||
        (st = zkey_g2(&z->gamma2, p + 256, "gamma2", 0, 1, cx)) != NNC_STATUS_OK ||
        (st = zkey_g1(&z->delta1, p + 384, "delta1", 0, cx)) != NNC_STATUS_OK ||
        (st = zkey_g2(&z->delta2, p + 448, "delta2", 0, 1, cx)) != NNC_STATUS_OK)
        return st;
    if (g1_is_inf(&z->alpha1) || g1_is_inf(&z->beta1) || g1_is_inf(&z->delta1) || g2_is_inf(&z->beta2) ||
        g2_is_inf(&z->gamma2) || g2_is_inf(&z->delta2))
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "zkey header has a point at infinity among alpha, beta, gamma, delta");
    if (z->n_public >= z->n_vars)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "zkey has %u public signals but only %u wires", z->n_public,
                       z->n_vars);
    if (z->domain_size == 0 || (z->domain_size & (z->domain_size - 1)) != 0)
        return nnc_err(err, errlen, NNC_STATUS_INVALID, "zkey domain size %u is not a power of two", z->domain_size);
    if (z->domain_size > (1u << NNC_PRV_ZKEY_MAX_LOG_DOMAIN))
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "zkey domain size %u exceeds 2^%d", z->domain_size,
                       NNC_PRV_ZKEY_MAX_LOG_DOMAIN);

    /* coefficients */
    if ((st = nnc_prv_bin_section(&r, &b, in, 4, 0, "zkey", err, errlen)) != NNC_STATUS_OK)
        return st;
    if (!nnc_prv_rd_u32(&r, &z->n_coefs) || (r.len - 4) / ZKEY_COEF_BYTES < z->n_coefs ||
        r.len - 4 != (uint64_t)z->n_coefs * ZKEY_COEF_BYTES)
        return nnc_err(err, errlen, NNC_STATUS_PARSE,
                       "zkey coefficient section has %zu bytes, which does not fit its declared %u entries", r.len,
                       z->n_coefs);
    if (cx->flags & NNC_PRV_ZKEY_SKIP_COEFS) /* sized, not read: its pages are never touched */
        z->n_coefs = 0;
    z->coefs = z->n_coefs == 0 ? NULL : nnc_prv_alloc_array(z->n_coefs, sizeof *z->coefs, &st);
    if (z->coefs == NULL && z->n_coefs)
        return nnc_err(err, errlen, st, "zkey: cannot allocate %u coefficients", z->n_coefs);
    for (i = 0; i < z->n_coefs; i++) {
        nnc_prv_zkey_coef *c = &z->coefs[i];
        uint64_t x[4];
        nnc_prv_rd_u32(&r, &c->matrix);
        nnc_prv_rd_u32(&r, &c->constraint);
        nnc_prv_rd_u32(&r, &c->signal);
        nnc_prv_rd_bytes(&r, &p, 32);
        if (c->matrix > 1 || c->constraint >= z->domain_size || c->signal >= z->n_vars)
            return nnc_err(err, errlen, NNC_STATUS_INVALID,
                           "zkey coefficient %u (matrix %u, row %u, wire %u) out of range (2 matrices, %u rows, %u wires)",
                           i, c->matrix, c->constraint, c->signal, z->domain_size, z->n_vars);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(x, p, 32);
#else
        nnc_fe4_int_from_b32(x, p, NNC_PRV_ENDIAN_LITTLE);
#endif
        if (!(nnc_fe4_lt_mask(x, rmod) & 1))
            return nnc_err(err, errlen, NNC_STATUS_INVALID, "zkey coefficient %u is not below the field prime", i);
        nnc_fe4_to_int(c->value.v, x, &frm); /* v*R^2 -> v*R, the Montgomery form of v */
    }
    nnc_prv_release(r.p, r.len, cx->flags); /* parsed: its file pages are no longer needed */

    if ((st = zkey_points((void **)&z->ic, &b, in, 3, (uint64_t)z->n_public + 1, 0, "IC", cx)) != NNC_STATUS_OK ||
        (st = zkey_points((void **)&z->a, &b, in, 5, z->n_vars, 0, "A", cx)) != NNC_STATUS_OK ||
        (st = zkey_points((void **)&z->b1, &b, in, 6, z->n_vars, 0, "B1", cx)) != NNC_STATUS_OK ||
        (st = zkey_points((void **)&z->b2, &b, in, 7, z->n_vars, 1, "B2", cx)) != NNC_STATUS_OK ||
        (st = zkey_points((void **)&z->c, &b, in, 8, (uint64_t)z->n_vars - z->n_public - 1, 0, "C", cx)) !=
            NNC_STATUS_OK ||
        (st = zkey_points((void **)&z->h, &b, in, 9, z->domain_size, 0, "H", cx)) != NNC_STATUS_OK)
        return st;

    if ((st = nnc_prv_bin_section(&r, &b, in, 10, 1, "zkey", err, errlen)) != NNC_STATUS_OK)
        return st;
    if (r.p != NULL) {
        z->contributions = nnc_prv_alloc_array(r.len, 1, &st);
        if (z->contributions == NULL)
            return nnc_err(err, errlen, st, "zkey: cannot allocate the contributions section (%zu bytes)", r.len);
        memcpy(z->contributions, r.p, r.len);
        z->contributions_len = r.len;
    }
    return NNC_STATUS_OK;
}

static nnc_status zkey_parse_any(void *out, const unsigned char *in, size_t len, unsigned flags, char *err,
                                 size_t errlen)
{
    zkey_ctx cx = {err, errlen, flags};
    return zkey_parse(out, in, len, &cx);
}
static void zkey_clear(void *z) { nnc_prv_zkey_clear(z); }
static const nnc_prv_reader zkey_reader = {sizeof(nnc_prv_zkey), zkey_parse_any, zkey_clear};

nnc_status nnc_prv_zkey_parse(nnc_prv_zkey *out, const unsigned char *in, size_t len, unsigned flags, char *err,
                              size_t errlen)
{
    return nnc_prv_read_mem(&zkey_reader, out, in, len, flags, err, errlen);
}

nnc_status nnc_prv_zkey_read_file(nnc_prv_zkey *out, const char *path, unsigned flags, char *err, size_t errlen)
{
    return nnc_prv_read_file(&zkey_reader, out, path, flags, err, errlen);
}

static void put_g1(nnc_prv_sink *s, const nnc_prv_g1 *p)
{
    zkey_put_fq(s, &p->x);
    zkey_put_fq(s, &p->y);
}

static void put_g2(nnc_prv_sink *s, const nnc_prv_g2 *p)
{
    zkey_put_fq(s, &p->x.c0);
    zkey_put_fq(s, &p->x.c1);
    zkey_put_fq(s, &p->y.c0);
    zkey_put_fq(s, &p->y.c1);
}

static void put_g1s(nnc_prv_sink *s, uint32_t type, const nnc_prv_g1 *p, uint64_t n)
{
    uint64_t i;
    nnc_prv_sink_section(s, type, n * NNC_PRV_ZKEY_G1_BYTES);
    for (i = 0; i < n; i++)
        put_g1(s, &p[i]);
}

static void put_coefs(nnc_prv_sink *s, const nnc_prv_zkey *z)
{
    const nnc_fe4_mod frm = NNC_FR_MOD_INIT;
    nnc_prv_sink_section(s, 4, 4 + (uint64_t)z->n_coefs * ZKEY_COEF_BYTES);
    nnc_prv_sink_u32(s, z->n_coefs);
    for (uint64_t i = 0; i < z->n_coefs; i++) {
        const nnc_prv_zkey_coef *c = &z->coefs[i];
        uint64_t x[4];
        unsigned char bb[32];
        nnc_prv_sink_u32(s, c->matrix);
        nnc_prv_sink_u32(s, c->constraint);
        nnc_prv_sink_u32(s, c->signal);
        nnc_fe4_from_int(x, c->value.v, &frm); /* v*R -> v*R^2 */
        nnc_fe4_int_to_b32(bb, x, NNC_PRV_ENDIAN_LITTLE);
        nnc_prv_sink_put(s, bb, 32);
    }
}

/* Sections 5, 6, 7: A, B1, B2. */
static void put_abc(nnc_prv_sink *s, const nnc_prv_zkey *z)
{
    put_g1s(s, 5, z->a, z->n_vars);
    put_g1s(s, 6, z->b1, z->n_vars);
    nnc_prv_sink_section(s, 7, (uint64_t)z->n_vars * NNC_PRV_ZKEY_G2_BYTES);
    for (uint64_t i = 0; i < z->n_vars; i++)
        put_g2(s, &z->b2[i]);
}

static nnc_status zkey_emit(nnc_prv_sink *s, const void *obj)
{
    const nnc_prv_zkey *z = obj;
    const uint64_t qmod[4] = NNC_FQ_MODULUS_INIT, rmod[4] = NNC_FR_MODULUS_INIT;
    uint64_t nc, i;

    if (z->n_public >= z->n_vars || z->domain_size == 0 || (z->domain_size & (z->domain_size - 1)) != 0 ||
        z->domain_size > (1u << NNC_PRV_ZKEY_MAX_LOG_DOMAIN) || z->ic == NULL || z->a == NULL || z->b1 == NULL ||
        z->b2 == NULL || z->h == NULL || z->n_coefs == 0 || z->coefs == NULL ||
        (z->c == NULL && z->n_vars > z->n_public + 1) || (z->contributions == NULL && z->contributions_len > 0))
        return NNC_STATUS_INVALID;
    for (i = 0; i < z->n_coefs; i++)
        if (z->coefs[i].matrix > 1 || z->coefs[i].constraint >= z->domain_size || z->coefs[i].signal >= z->n_vars)
            return NNC_STATUS_INVALID;
    nc = (uint64_t)z->n_vars - z->n_public - 1;

    nnc_prv_sink_bin_header(s, "zkey", 1, z->contributions != NULL ? 10 : 9);
    nnc_prv_sink_section(s, 1, 4);
    nnc_prv_sink_u32(s, 1);

    nnc_prv_sink_section(s, 2, ZKEY_G16_HEADER_BYTES);
    nnc_prv_sink_prime(s, qmod);
    nnc_prv_sink_prime(s, rmod);
    nnc_prv_sink_u32(s, z->n_vars);
    nnc_prv_sink_u32(s, z->n_public);
    nnc_prv_sink_u32(s, z->domain_size);
    put_g1(s, &z->alpha1);
    put_g1(s, &z->beta1);
    put_g2(s, &z->beta2);
    put_g2(s, &z->gamma2);
    put_g1(s, &z->delta1);
    put_g2(s, &z->delta2);

    if (z->numeric_order) {
        put_g1s(s, 3, z->ic, (uint64_t)z->n_public + 1);
        put_coefs(s, z);
        put_abc(s, z);
        put_g1s(s, 8, z->c, nc);
        put_g1s(s, 9, z->h, z->domain_size);
    } else {
        put_coefs(s, z);
        put_g1s(s, 3, z->ic, (uint64_t)z->n_public + 1);
        put_g1s(s, 9, z->h, z->domain_size);
        put_g1s(s, 8, z->c, nc);
        put_abc(s, z);
    }
    if (z->contributions != NULL) {
        nnc_prv_sink_section(s, 10, z->contributions_len);
        nnc_prv_sink_put(s, z->contributions, z->contributions_len);
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_zkey_serialize(unsigned char *out, size_t *outlen, const nnc_prv_zkey *z)
{
    return nnc_prv_emit_mem(out, outlen, zkey_emit, z);
}

nnc_status nnc_prv_zkey_write_file(const char *path, const nnc_prv_zkey *z, char *err, size_t errlen)
{
    return nnc_prv_emit_file(path, zkey_emit, z, "zkey", err, errlen);
}
