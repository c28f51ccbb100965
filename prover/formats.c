/* Shared machinery of the circom/snarkjs file formats (prover/formats_impl.h):
 * the binfileutils container, bounds-checked reading, output sinks, file
 * mapping and limited allocation. */
#include "prover/formats_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prover/field_impl.h"

/* ---------------------------------------------------------------- reading */

int nnc_prv_rd_u32(nnc_prv_rd *r, uint32_t *v)
{
    const unsigned char *p;
    if (r->len - r->pos < 4)
        return 0;
    p = r->p + r->pos;
    *v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    r->pos += 4;
    return 1;
}

int nnc_prv_rd_u64(nnc_prv_rd *r, uint64_t *v)
{
    uint32_t lo, hi;
    if (r->len - r->pos < 8)
        return 0;
    nnc_prv_rd_u32(r, &lo);
    nnc_prv_rd_u32(r, &hi);
    *v = (uint64_t)hi << 32 | lo;
    return 1;
}

int nnc_prv_rd_bytes(nnc_prv_rd *r, const unsigned char **p, size_t n)
{
    if (r->len - r->pos < n)
        return 0;
    *p = r->p + r->pos;
    r->pos += n;
    return 1;
}

nnc_status nnc_prv_bin_open(nnc_prv_bin *b, const unsigned char *in, size_t len, const char *magic,
                            uint32_t vmin, uint32_t vmax, char *err, size_t errlen)
{
    nnc_prv_rd r = {in, len, 0};
    const unsigned char *m;
    uint32_t ns, i;
    memset(b, 0, sizeof *b);
    if (!nnc_prv_rd_bytes(&r, &m, 4) || memcmp(m, magic, 4) != 0)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "not a %s file (the first 4 bytes are not \"%s\")",
                       magic, magic);
    if (!nnc_prv_rd_u32(&r, &b->version) || !nnc_prv_rd_u32(&r, &ns))
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "%s file truncated in its header (%zu bytes)", magic, len);
    if (b->version < vmin || b->version > vmax) {
        if (vmin == vmax)
            return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "%s file version %u not supported (only %u)",
                           magic, b->version, vmin);
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, "%s file version %u not supported (only %u to %u)",
                       magic, b->version, vmin, vmax);
    }
    if (ns > (len - r.pos) / 12)
        return nnc_err(err, errlen, NNC_STATUS_PARSE,
                       "%s file declares %u sections but has room for at most %zu", magic, ns,
                       (len - r.pos) / 12);
    for (i = 0; i < ns; i++) {
        uint32_t type;
        uint64_t size;
        if (!nnc_prv_rd_u32(&r, &type) || !nnc_prv_rd_u64(&r, &size))
            return nnc_err(err, errlen, NNC_STATUS_PARSE, "%s file truncated in the header of section %u of %u",
                           magic, i + 1, ns);
        if (size > r.len - r.pos)
            return nnc_err(err, errlen, NNC_STATUS_PARSE,
                           "%s file truncated: section %u (type %u) declares %llu bytes, %zu remain", magic,
                           i + 1, type, (unsigned long long)size, r.len - r.pos);
        if (type < NNC_PRV_BIN_MAX_TYPE) {
            if (b->count[type]++ == 0) {
                b->off[type] = r.pos;
                b->size[type] = size;
            }
        }
        r.pos += (size_t)size;
    }
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_bin_section(nnc_prv_rd *r, const nnc_prv_bin *b, const unsigned char *in,
                               uint32_t type, int optional, const char *magic, char *err, size_t errlen)
{
    r->p = NULL;
    r->len = r->pos = 0;
    if (b->count[type] == 0) {
        if (optional)
            return NNC_STATUS_OK;
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "%s file has no section of type %u", magic, type);
    }
    if (b->count[type] > 1)
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "%s file has %u sections of type %u (one expected)",
                       magic, b->count[type], type);
    r->p = in + b->off[type];
    r->len = (size_t)b->size[type];
    return NNC_STATUS_OK;
}

nnc_status nnc_prv_rd_prime(nnc_prv_rd *r, const uint64_t m[4], const char *what, char *err, size_t errlen)
{
    uint32_t n8;
    const unsigned char *p;
    uint64_t x[4];
    if (!nnc_prv_rd_u32(r, &n8))
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "%s: header truncated before the field size", what);
    if (n8 != 32)
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED,
                       "%s: field elements of %u bytes; only bn128 (32 bytes) is supported", what, n8);
    if (!nnc_prv_rd_bytes(r, &p, 32))
        return nnc_err(err, errlen, NNC_STATUS_PARSE, "%s: header truncated in the prime", what);
    nnc_fe4_int_from_b32(x, p, NNC_PRV_ENDIAN_LITTLE);
    if (x[0] != m[0] || x[1] != m[1] || x[2] != m[2] || x[3] != m[3])
        return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED,
                       "%s: prime 0x%016llx%016llx%016llx%016llx is not bn128's; only bn128 is supported", what,
                       (unsigned long long)x[3], (unsigned long long)x[2], (unsigned long long)x[1],
                       (unsigned long long)x[0]);
    return NNC_STATUS_OK;
}

/* ---------------------------------------------------------------- writing */

void nnc_prv_sink_put(nnc_prv_sink *s, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (s->f != NULL) {
        if (!s->failed && fwrite(p, 1, n, s->f) != n)
            s->failed = 1;
    } else if (s->buf != NULL && s->len <= s->cap && n <= s->cap - s->len) {
        memcpy(s->buf + s->len, p, n);
    }
    s->len += n;
}

void nnc_prv_sink_u32(nnc_prv_sink *s, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    nnc_prv_sink_put(s, b, 4);
}

void nnc_prv_sink_u64(nnc_prv_sink *s, uint64_t v)
{
    nnc_prv_sink_u32(s, (uint32_t)v);
    nnc_prv_sink_u32(s, (uint32_t)(v >> 32));
}

void nnc_prv_sink_bin_header(nnc_prv_sink *s, const char *magic, uint32_t version, uint32_t nsections)
{
    nnc_prv_sink_put(s, magic, 4);
    nnc_prv_sink_u32(s, version);
    nnc_prv_sink_u32(s, nsections);
}

void nnc_prv_sink_section(nnc_prv_sink *s, uint32_t type, uint64_t size)
{
    nnc_prv_sink_u32(s, type);
    nnc_prv_sink_u64(s, size);
}

void nnc_prv_sink_prime(nnc_prv_sink *s, const uint64_t m[4])
{
    unsigned char b[32];
    nnc_prv_sink_u32(s, 32);
    nnc_fe4_int_to_b32(b, m, NNC_PRV_ENDIAN_LITTLE);
    nnc_prv_sink_put(s, b, 32);
}

nnc_status nnc_prv_emit_mem(unsigned char *out, size_t *outlen, nnc_prv_emit_fn emit, const void *obj)
{
    nnc_prv_sink s = {out, out != NULL ? *outlen : 0, 0, NULL, 0};
    nnc_status st = emit(&s, obj);
    if (st != NNC_STATUS_OK)
        return st;
    if (s.len > SIZE_MAX) {
        *outlen = SIZE_MAX;
        return NNC_STATUS_LIMIT;
    }
    st = (out == NULL || s.len > *outlen) ? NNC_STATUS_LIMIT : NNC_STATUS_OK;
    *outlen = (size_t)s.len;
    return st;
}

nnc_status nnc_prv_emit_file(const char *path, nnc_prv_emit_fn emit, const void *obj, const char *what,
                             char *err, size_t errlen)
{
    nnc_prv_sink s = {NULL, 0, 0, NULL, 0};
    nnc_status st;
    char buf[256];
    /* check the object before creating the file */
    st = emit(&s, obj);
    if (st != NNC_STATUS_OK)
        return nnc_err(err, errlen, st, "cannot write %s %s: the %s is %s", what, path, what,
                       st == NNC_STATUS_LIMIT ? "too large for the format" : "inconsistent");
    /* write a temporary file beside PATH and rename it over PATH, so a
     * failure (disk full, a signal) never leaves a half-written file */
    size_t tl = strlen(path) + 32;
    char *tmp = malloc(tl);
    if (tmp == NULL) return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    snprintf(tmp, tl, "%s.tmp%ld", path, (long)getpid());
    s.f = fopen(tmp, "wb");
    if (s.f == NULL) {
        st = nnc_err(err, errlen, NNC_STATUS_IO, "cannot create %s: %s", path, strerror(errno));
        free(tmp);
        return st;
    }
    s.len = 0;
    (void)emit(&s, obj);
    if (fclose(s.f) != 0)
        s.failed = 1;
    if (!s.failed && rename(tmp, path) != 0)
        s.failed = 1;
    if (s.failed) {
        snprintf(buf, sizeof buf, "%s", strerror(errno));
        remove(tmp);
        free(tmp);
        return nnc_err(err, errlen, NNC_STATUS_IO, "cannot write %s: %s", path, buf);
    }
    free(tmp);
    return NNC_STATUS_OK;
}

/* ---------------------------------------------------------------- files, memory */

nnc_status nnc_prv_file_map(const unsigned char **p, size_t *len, const char *path, char *err, size_t errlen)
{
    struct stat sb;
    void *m;
    int fd = open(path, O_RDONLY);
    *p = NULL;
    *len = 0;
    if (fd < 0)
        return nnc_err(err, errlen, NNC_STATUS_IO, "cannot open %s: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return nnc_err(err, errlen, NNC_STATUS_IO, "%s is not a regular file", path);
    }
    if (sb.st_size == 0) {
        close(fd);
        return NNC_STATUS_OK;
    }
    if ((uint64_t)sb.st_size > SIZE_MAX) {
        close(fd);
        return nnc_err(err, errlen, NNC_STATUS_LIMIT, "%s is too large to map", path);
    }
    /* every reader parses the whole file once, front to back: pages are
     * mapped as it reads them (sequential: read ahead, and a fault maps
     * many pages), not all up front, so that a reader that hands back what
     * it has parsed (nnc_prv_release) never holds the whole file */
    m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return nnc_err(err, errlen, NNC_STATUS_IO, "cannot map %s: %s", path, strerror(errno));
    (void)madvise(m, (size_t)sb.st_size, MADV_SEQUENTIAL);
    *p = m;
    *len = (size_t)sb.st_size;
    return NNC_STATUS_OK;
}

void nnc_prv_release(const void *p, size_t n, unsigned flags)
{
    if (!(flags & NNC_PRV_READ_MAPPED) || p == NULL || n == 0)
        return;
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)p, e = a + n;
    if (pg <= 0)
        return;
    a = (a + (uintptr_t)pg - 1) / (uintptr_t)pg * (uintptr_t)pg; /* whole pages inside only */
    e = e / (uintptr_t)pg * (uintptr_t)pg;
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_DONTNEED);
}

void nnc_prv_file_unmap(const unsigned char *p, size_t len)
{
    if (p != NULL && len > 0)
        munmap((void *)p, len);
}

static nnc_status read_mem(const nnc_prv_reader *rd, void *out, const unsigned char *in, size_t len, unsigned flags,
                           char *err, size_t errlen)
{
    nnc_status st;
    memset(out, 0, rd->size);
    st = rd->parse(out, in, len, flags, err, errlen);
    if (st != NNC_STATUS_OK && rd->clear != NULL)
        rd->clear(out);
    return st;
}

nnc_status nnc_prv_read_mem(const nnc_prv_reader *rd, void *out, const unsigned char *in, size_t len, unsigned flags,
                            char *err, size_t errlen)
{
    /* the caller's memory: never handed back */
    return read_mem(rd, out, in, len, flags & ~NNC_PRV_READ_MAPPED, err, errlen);
}

nnc_status nnc_prv_read_file(const nnc_prv_reader *rd, void *out, const char *path, unsigned flags, char *err,
                             size_t errlen)
{
    const unsigned char *p;
    size_t len;
    nnc_status st;
    memset(out, 0, rd->size);
    if ((st = nnc_prv_file_map(&p, &len, path, err, errlen)) != NNC_STATUS_OK)
        return st;
    st = read_mem(rd, out, p, len, flags | NNC_PRV_READ_MAPPED, err, errlen);
    nnc_prv_file_unmap(p, len);
    return st;
}

void *nnc_prv_alloc_array(uint64_t n, size_t size, nnc_status *st)
{
    void *p;
    if (size != 0 && n > nnc_max_tensor_bytes() / size) {
        *st = NNC_STATUS_LIMIT;
        return NULL;
    }
    if (n * size > SIZE_MAX) {
        *st = NNC_STATUS_LIMIT;
        return NULL;
    }
    p = malloc(n * size > 0 ? (size_t)(n * size) : 1);
    if (p == NULL)
        *st = NNC_STATUS_NOMEM;
    return p;
}
