/* dist_prove_check KEY.zkey WITNESS.wtns: under mpirun, Groth16 proving
 * over the ranks (nnc_prv_g16_prove_team, the MSMs split by index ranges
 * and the quotient's polynomials by rank) against one process:
 *   - with a fixed blinding r, s, the team's proof equals the proof one
 *     process makes with the same r, s (each rank computes that one alone);
 *   - with the blinding rank 0 draws, every rank ends with the same proof
 *     (compared over the team), and it verifies under the key's vk;
 *   - a proof with a tampered witness value does not verify.
 * Prints "dist_prove_check: ranks P ok" on rank 0 and exits 0; exits 1 on a
 * mismatch, 70 on an error, 77 in a build without MPI. */
#include "dist/dist.h"
#include "prover/field_impl.h"
#include "prover/groth16_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NNC_HAVE_MPI

static int same_proof(const nnc_prv_g16_proof *x, const nnc_prv_g16_proof *y)
{
    return nnc_prv_g1_eq(&x->a, &y->a) && nnc_prv_g2_eq(&x->b, &y->b) && nnc_prv_g1_eq(&x->c, &y->c);
}

static int verifies(const nnc_prv_g16_vk *vk, const nnc_prv_fr_vec *pub, const nnc_prv_g16_proof *p)
{
    int valid = 0;
    char err[NNC_ERRBUF_SIZE];
    return nnc_prv_g16_verify(&valid, vk, pub, p, err, sizeof err) == NNC_STATUS_OK && valid;
}

static int s_rank;

/* A failed check (ok = 0): said on stderr; returns 1 then, else 0. */
static int failed(int ok, const char *what)
{
    if (!ok) fprintf(stderr, "dist_prove_check: rank %d: %s\n", s_rank, what);
    return !ok;
}

/* A failed call (st): said with its error, and the job ends. */
static void or_abort(nnc_status st, const char *err)
{
    if (st == NNC_STATUS_OK) return;
    fprintf(stderr, "dist_prove_check: rank %d: %s\n", s_rank, err);
    MPI_Abort(MPI_COMM_WORLD, 70);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    s_rank = rank;
    if (argc != 3) {
        if (rank == 0) fprintf(stderr, "usage: dist_prove_check KEY.zkey WITNESS.wtns\n");
        MPI_Finalize();
        return 64;
    }
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_zkey z;
    nnc_prv_fr_vec w, pub1, pubt;
    nnc_prv_g16_vk vk;
    nnc_team *team = NULL;
    if (nnc_prv_zkey_read_file(&z, argv[1], 0, err, sizeof err) || nnc_prv_wtns_read_file(&w, argv[2], err, sizeof err) ||
        nnc_prv_g16_vk_from_zkey(&vk, &z) || nnc_dist_team_create(&team, MPI_COMM_WORLD, 300, err, sizeof err)) {
        fprintf(stderr, "dist_prove_check: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 70);
    }
    /* a fixed blinding: r = 2^200 + 12345, s = 2^100 + 777 */
    uint64_t ri[4] = {12345, 0, 0, (uint64_t)1 << 8}, si[4] = {777, (uint64_t)1 << 36, 0, 0};
    nnc_prv_fr rs[2];
    if (!nnc_fr_from_int(&rs[0], ri) || !nnc_fr_from_int(&rs[1], si)) MPI_Abort(MPI_COMM_WORLD, 70);
    nnc_prv_g16_proof one, tp, tr;
    or_abort(nnc_prv_g16_prove_full(&one, &pub1, &z, NULL, NULL, &w, 1, NULL, NULL, rs, NULL, NULL, err, sizeof err), err);
    or_abort(nnc_prv_g16_prove_full(&tp, &pubt, &z, NULL, NULL, &w, 1, NULL, team, rs, NULL, NULL, err, sizeof err), err);
    bad |= failed(same_proof(&one, &tp), "the team's proof differs from one process's (same r, s)");
    bad |= failed(verifies(&vk, &pubt, &tp), "the team's proof (fixed r, s) does not verify");
    nnc_prv_fr_vec_clear(&pub1);
    nnc_prv_fr_vec_clear(&pubt);
    /* the blinding rank 0 draws: the same proof everywhere, valid */
    or_abort(nnc_prv_g16_prove_team(&tr, &pubt, &z, NULL, &w, 1, NULL, team, NULL, NULL, err, sizeof err), err);
    unsigned char *all = NULL;
    size_t *lens = malloc(sizeof(size_t) * (size_t)size);
    if (lens == NULL || team->allgather(team->ctx, &tr, sizeof tr, &all, lens, err, sizeof err)) MPI_Abort(MPI_COMM_WORLD, 70);
    for (int q = 0; q < size; q++) {
        nnc_prv_g16_proof pq;
        memcpy(&pq, all + sizeof tr * (size_t)q, sizeof pq);
        char what[64];
        snprintf(what, sizeof what, "rank %d ended with another proof", q);
        bad |= failed(lens[q] == sizeof tr && same_proof(&pq, &tr), what);
    }
    free(all);
    free(lens);
    bad |= failed(!same_proof(&tr, &tp), "a drawn blinding gave the fixed one's proof");
    bad |= failed(verifies(&vk, &pubt, &tr), "the team's proof does not verify");
    nnc_prv_fr_vec_clear(&pubt);
    /* a witness value changed on every rank: the team's proof must fail */
    nnc_fr one_fr;
    nnc_fr_set_one(&one_fr);
    nnc_fr_add(&w.v[w.n - 1], &w.v[w.n - 1], &one_fr);
    or_abort(nnc_prv_g16_prove_full(&tp, &pubt, &z, NULL, NULL, &w, 1, NULL, team, rs, NULL, NULL, err, sizeof err), err);
    bad |= failed(!verifies(&vk, &pubt, &tp), "a proof of a tampered witness verifies");
    nnc_prv_fr_vec_clear(&pubt);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any) printf("dist_prove_check: ranks %d ok\n", size);
    nnc_prv_g16_vk_clear(&vk);
    nnc_prv_fr_vec_clear(&w);
    nnc_prv_zkey_clear(&z);
    nnc_dist_team_destroy(team);
    MPI_Finalize();
    return any ? 1 : 0;
}

#else

int main(void)
{
    fprintf(stderr, "dist_prove_check: built without MPI\n");
    return 77;
}

#endif
