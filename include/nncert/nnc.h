/* nncert common definitions: status codes and the error-message convention.
 *
 * Every library function that can fail on bad data returns an nnc_status
 * (0 = success) and, when the caller passes a non-NULL buffer, writes one
 * line (no trailing newline) naming the problem into it, truncated to the
 * buffer size.  Programmer errors (NULL where not allowed) are not reported
 * this way: they abort through assert. */
#ifndef NNC_COMMON_H
#define NNC_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NNC_VERSION_STRING "0.1.0"

/* NNC_API marks the functions of the public headers (the library's API).
 * The library's objects are compiled with -fvisibility=hidden and
 * libnncert.so is linked with a version script, so its dynamic symbol
 * table holds exactly these (tests/tools/api_check.py checks that both
 * ways); everything else is internal, also when linked statically. */
#if defined(__GNUC__)
#define NNC_API __attribute__((visibility("default")))
#else
#define NNC_API
#endif

typedef enum nnc_status {
    NNC_STATUS_OK = 0,
    NNC_STATUS_IO = 1,          /* file missing, unreadable, short read */
    NNC_STATUS_PARSE = 2,       /* malformed bytes or text */
    NNC_STATUS_UNSUPPORTED = 3, /* valid input using a feature nncert lacks */
    NNC_STATUS_INVALID = 4,     /* well-formed but inconsistent (shapes, cycles, ...) */
    NNC_STATUS_LIMIT = 5,       /* exceeds a resource limit (size, rank, count) */
    NNC_STATUS_NOMEM = 6,       /* allocation failed */
    NNC_STATUS_ARG = 7,         /* bad option value given by the user */
    NNC_STATUS_DEVICE = 8       /* the GPU backend failed: no usable CUDA plugin or device, or a CUDA,
                                   cuBLAS or NCCL call returned an error (a build without CUDA
                                   reports UNSUPPORTED) */
} nnc_status;

/* Returns: a static, human-readable name of the status code. */
NNC_API const char *nnc_status_string(nnc_status st);

/* Size of the error buffers the CLI passes; messages are one line. */
#define NNC_ERRBUF_SIZE 512

/* Out: err (may be NULL), errlen its size.  Formats like printf and returns st,
 * so that `return nnc_err(err, errlen, NNC_STATUS_PARSE, "...")` reads well. */
NNC_API nnc_status nnc_err(char *err, size_t errlen, nnc_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Strict number parsing: the whole string, decimal; a double finite, an
 * unsigned count without a sign.  Returns 0 on success (*out set), -1 else. */
NNC_API int nnc_parse_double(const char *s, double *out);
NNC_API int nnc_parse_u64(const char *s, uint64_t *out);

/* Upper bound on the bytes one tensor (constant, input or intermediate)
 * may occupy.  Declared sizes above it are refused before any allocation.
 * Default 4 GiB; the environment variable NNCERT_MAX_TENSOR_BYTES overrides. */
NNC_API uint64_t nnc_max_tensor_bytes(void);
/* The memory a job may assume, in bytes: the environment variable
 * NNCERT_MEMORY_BYTES, else the machine's RAM plus swap (UINT64_MAX when
 * unknown).  Jobs whose estimated peak exceeds it are refused up front. */
NNC_API uint64_t nnc_machine_memory_bytes(void);

#ifdef __cplusplus
}
#endif
#endif
