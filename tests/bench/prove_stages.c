/* prove_stages KEY.zkey WITNESS.wtns [THREADS]: where a Groth16 prove's
 * time goes.  Reads the key and the witness, then proves once with a
 * progress callback that stamps the end of every stage of
 * nnc_prv_g16_prove_progress (prover/groth16.c), and prints CSV:
 *     stage,wall_s,cpu_s
 * wall_s is monotonic wall-clock time of the stage, cpu_s the process CPU
 * time (all threads) over it, so cpu_s / wall_s shows how well the stage
 * keeps the threads busy (2.0 = both cores of this machine).  The stage
 * "polynomials" also holds the evaluation of A w and B w on the domain;
 * "total" is the whole prove without reading the files. */
#include "nncert/prover.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct stamp_state {
    double wall, cpu; /* seconds at the previous stamp */
} stamp_state;

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void stamp(stamp_state *s, const char *stage)
{
    double w = clock_s(CLOCK_MONOTONIC), c = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    printf("%s,%.4f,%.4f\n", stage, w - s->wall, c - s->cpu);
    s->wall = w;
    s->cpu = c;
}

static void on_progress(void *ctx, const char *stage, double fraction)
{
    (void)fraction;
    stamp(ctx, stage);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: prove_stages KEY.zkey WITNESS.wtns [THREADS]\n");
        return 64;
    }
    int threads = argc == 4 ? atoi(argv[3]) : 0;
    char err[256];
    nnc_prv_zkey z;
    nnc_prv_fr_vec w, pub;
    nnc_prv_g16_proof proof;
    stamp_state s = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
    printf("stage,wall_s,cpu_s\n");
    if (nnc_prv_zkey_read_file(&z, argv[1], 0, err, sizeof err)) {
        fprintf(stderr, "prove_stages: %s\n", err);
        return 65;
    }
    stamp(&s, "read zkey");
    if (nnc_prv_wtns_read_file(&w, argv[2], err, sizeof err)) {
        fprintf(stderr, "prove_stages: %s\n", err);
        nnc_prv_zkey_clear(&z);
        return 65;
    }
    stamp(&s, "read wtns");
    double w0 = s.wall, c0 = s.cpu;
    nnc_status st = nnc_prv_g16_prove_progress(&proof, &pub, &z, &w, threads, on_progress, &s, err, sizeof err);
    if (st == NNC_STATUS_OK) {
        stamp(&s, "finish");
        printf("total,%.4f,%.4f\n", s.wall - w0, s.cpu - c0);
        nnc_prv_fr_vec_clear(&pub);
    } else {
        fprintf(stderr, "prove_stages: %s\n", err);
    }
    nnc_prv_zkey_clear(&z);
    nnc_prv_fr_vec_clear(&w);
    return st == NNC_STATUS_OK ? 0 : 65;
}
