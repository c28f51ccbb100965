/* Helpers shared by the GPU tests (tests/unit/test_gpu*.c), which compare a
 * CUDA path with the CPU path on the same inputs.  Without the CUDA unit
 * (make GPU=0) or without a device they must report "skipped" and exit 77,
 * which tests/run_all.sh counts as a skip, never a pass. */
#ifndef NNC_GPU_TEST_IMPL_H
#define NNC_GPU_TEST_IMPL_H

#include "nncert/gpu.h"

/* The suites' harness (seed, random streams), with this header's counting
 * CHECK in place of its Check-runner one: these tests run outside Check's
 * runner. */
#define HARNESS_OWN_CHECK
#include "tests/unit/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Returns: the number of CUDA devices (at least 1).  Prints why and exits
 * the test with 77 when the build has no CUDA unit or no device answers. */
static inline int gpu_test_devices_or_skip(void)
{
    char err[NNC_ERRBUF_SIZE] = "";
    int count = 0;
    if (!nnc_gpu_compiled()) {
        printf("skipped: built without CUDA (make GPU=0)\n");
        exit(77);
    }
    if (nnc_gpu_device_count(&count, err, sizeof err) != NNC_STATUS_OK || count == 0) {
        printf("skipped: no CUDA device (%s)\n", err[0] ? err : "none found");
        exit(77);
    }
    return count;
}

/* The tests' counters of checks made and failed, and CHECK(cond, fmt, ...):
 * count, and on failure print "FAIL file:line: " and the message. */
__attribute__((unused)) static int failures, checks;
#define CHECK(cond, ...)                                  \
    do {                                                  \
        checks++;                                         \
        if (!(cond)) {                                    \
            failures++;                                   \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);   \
            printf(__VA_ARGS__);                          \
            printf("\n");                                 \
        }                                                 \
    } while (0)

/* Monotonic wall-clock time in seconds, for the tests' timing lines. */
static inline double gpu_test_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
