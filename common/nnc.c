#include "nncert/nnc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysinfo.h>

const char *nnc_status_string(nnc_status st)
{
    switch (st) {
    case NNC_STATUS_OK: return "ok";
    case NNC_STATUS_IO: return "i/o error";
    case NNC_STATUS_PARSE: return "parse error";
    case NNC_STATUS_UNSUPPORTED: return "unsupported";
    case NNC_STATUS_INVALID: return "invalid input";
    case NNC_STATUS_LIMIT: return "resource limit exceeded";
    case NNC_STATUS_NOMEM: return "out of memory";
    case NNC_STATUS_ARG: return "bad argument";
    case NNC_STATUS_DEVICE: return "device error";
    }
    return "unknown status";
}

nnc_status nnc_err(char *err, size_t errlen, nnc_status st, const char *fmt, ...)
{
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        for (char *p = err; *p; p++)
            if (*p == '\n' || *p == '\r') *p = ' ';
    }
    return st;
}

/* A positive decimal integer from the environment variable name, or 0
 * when it is unset, empty or anything else. */
static uint64_t env_u64(const char *name)
{
    const char *s = getenv(name);
    if (s == NULL || !*s) return 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    return *end == '\0' ? (uint64_t)v : 0;
}

uint64_t nnc_machine_memory_bytes(void)
{
    uint64_t v = env_u64("NNCERT_MEMORY_BYTES");
    if (v) return v;
    struct sysinfo si;
    if (sysinfo(&si) != 0 || si.mem_unit == 0) return UINT64_MAX;
    return ((uint64_t)si.totalram + (uint64_t)si.totalswap) * si.mem_unit;
}

uint64_t nnc_max_tensor_bytes(void)
{
    uint64_t v = env_u64("NNCERT_MAX_TENSOR_BYTES");
    return v ? v : (uint64_t)4 << 30;
}

int nnc_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || s == end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int nnc_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || s == end) return -1;
    *out = (uint64_t)v;
    return 0;
}
