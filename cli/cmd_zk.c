/* nncert compile | prove | check: proofs of inference for a model file
 * (quantisation in zk/quant.h, the circuit compiler in zk/circuit.h,
 * Groth16 in nncert/prover.h). */
#include "cli/cli.h"
#include "nncert/model.h"
#include "zk/quant.h"
#include "zk/circuit.h"
#include "prover/groth16_impl.h"
#include "nncert/prover.h"
#include "nncert/verifier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The options of compile, prove and check: one set of indices, each
 * command's table holding the ones it takes. */
enum { Z_BITS, Z_PRIVATE, Z_CALIB, Z_INPUT, Z_OUT, Z_PUBLIC, Z_KEY, Z_VK, Z_ZKEY_OUT, Z_WTNS, Z_R1CS, Z_MODEL, Z_PTAU,
       Z_DEVICE, Z_COUNT_ONLY, Z_DISTRIBUTED, Z_N };
#define Z_BITS_HELP "weight/activation bits, 4..24 (default 8)"
#define Z_PRIVATE_HELP "input (default): weights are circuit constants, the input a\n" \
                       "witness; weights: the reverse (the circuit is then specific to\n" \
                       "--input); both: everything private (products cost constraints)"
#define Z_CALIB_HELP "calibration inputs (JSON or .npy batch; default: 32 uniform\n" \
                     "samples in [0, 1]); prove and check must use the same"
static const nnc_cli_opt compile_opts[Z_N] = {
    [Z_BITS] = {"--bits", "B", Z_BITS_HELP},
    [Z_PRIVATE] = {"--private", "P", Z_PRIVATE_HELP},
    [Z_CALIB] = {"--calib", "FILE", Z_CALIB_HELP},
    [Z_INPUT] = {"--input", "FILE", "the sample to build the witness from (default: all zero)"},
    [Z_OUT] = {"-o", "MODEL.r1cs", "write the circuit there (required unless --count-only)"},
    [Z_WTNS] = {"--wtns", "FILE", "also write that witness (snarkjs .wtns)"},
    [Z_COUNT_ONLY] = {"--count-only", NULL, "count constraints without building them (large models)"},
};
static const nnc_cli_doc compile_doc = NNC_CLI_DOC(
    "compile",
    "usage: nncert compile MODEL [--bits B] [--private input|weights|both] [--calib FILE]\n"
    "                      [--input FILE] [--wtns FILE] -o MODEL.r1cs\n",
    "Quantise MODEL to B-bit fixed point (default 8; per-tensor power-of-two\n"
    "scales from the calibration set) and compile its inference into a rank-1\n"
    "constraint system in circom's .r1cs format.  Prints the constraints and\n"
    "wires of every layer.  Public signals: the outputs (signed integers mod r),\n"
    "then the Poseidon commitment to the quantised model, then the commitment to\n"
    "the input.\n",
    compile_opts, "");

static const nnc_cli_opt prove_opts[Z_N] = {
    [Z_INPUT] = {"--input", "FILE", "the sample to prove the inference of (required)"},
    [Z_KEY] = {"--key", "KEY.zkey", "the proving key (default: a development setup)"},
    [Z_OUT] = {"-o", "PROOF.json", "write the proof there (required)"},
    [Z_PUBLIC] = {"--public", "PUBLIC.json", "write the public signals there (required)"},
    [Z_BITS] = {"--bits", "B", Z_BITS_HELP},
    [Z_PRIVATE] = {"--private", "P", Z_PRIVATE_HELP},
    [Z_CALIB] = {"--calib", "FILE", Z_CALIB_HELP},
    [Z_VK] = {"--vk", "VK.json", "write the development setup's verification key there"},
    [Z_ZKEY_OUT] = {"--zkey-out", "KEY.zkey", "write the development setup's proving key there"},
    [Z_WTNS] = {"--wtns", "FILE", "also write the witness (snarkjs .wtns)"},
    [Z_R1CS] = {"--r1cs", "FILE", "also write the circuit (circom .r1cs)"},
    [Z_DEVICE] = {"--device", "D", "cpu (default) or gpu: where the MSMs and NTTs run"},
    [Z_DISTRIBUTED] = {"--distributed", NULL, "prove over the ranks of mpirun (implied under a launcher)"},
};
static const nnc_cli_doc prove_doc = NNC_CLI_DOC(
    "prove",
    "usage: nncert prove MODEL --input FILE [--key KEY.zkey] -o PROOF.json --public PUBLIC.json\n"
    "                    [--bits B] [--private P] [--calib FILE] [--vk VK.json]\n"
    "                    [--zkey-out KEY.zkey] [--wtns FILE] [--r1cs FILE] [--device cpu|gpu]\n"
    "                    [--distributed]\n",
    "Quantise MODEL and FILE as 'nncert compile' does, run the integer reference\n"
    "runtime, build the circuit with its witness (the proven outputs must equal\n"
    "the reference's), and prove it with Groth16.  Without --key a single-party\n"
    "development setup is made (toxic waste from libsodium, wiped; production\n"
    "needs a ceremony): use --zkey-out and --vk to keep its keys.  A key that is\n"
    "not kept is held without its coefficient section (A w and B w come from\n"
    "the circuit), which saves about 48 bytes per R1CS term.\n"
    "--device gpu runs the proof's MSMs and NTTs on an NVIDIA GPU (CUDA builds;\n"
    "the same results as the CPU's).  Under mpirun -np R (or with --distributed)\n"
    "the ranks prove together as in 'nncert groth16 prove' (every rank compiles\n"
    "the circuit; --key is then required; rank 0 writes the files).\n",
    prove_opts,
    "Exit 75 when the key is too small for the model (the message names the\n"
    "constraints and wires needed).\n");

static const nnc_cli_opt check_opts[Z_N] = {
    [Z_KEY] = {"--key", "KEY.zkey", "the proving key (its verification key checks the proof)"},
    [Z_VK] = {"--vk", "VK.json", "a verification key (without --model)"},
    [Z_MODEL] = {"--model", "MODEL", "check the proof as one of MODEL's (needs --key, --ptau)"},
    [Z_PTAU] = {"--ptau", "POT.ptau", "the powers of tau the key was set up from"},
    [Z_INPUT] = {"--input", "FILE", "the input whose commitment PUBLIC.json must hold"},
    [Z_BITS] = {"--bits", "B", Z_BITS_HELP},
    [Z_CALIB] = {"--calib", "FILE", Z_CALIB_HELP},
    [Z_PRIVATE] = {"--private", "P", Z_PRIVATE_HELP},
};
static const nnc_cli_doc check_doc = NNC_CLI_DOC(
    "check",
    "usage: nncert check --key KEY.zkey PROOF.json PUBLIC.json --model MODEL --ptau POT.ptau\n"
    "                    [--input FILE] [--bits B] [--calib FILE] [--private P]\n"
    "       nncert check (--vk VK.json | --key KEY.zkey) PROOF.json PUBLIC.json\n",
    "Verify a proof of inference.  With --model the proof is checked as one of\n"
    "MODEL's: the key must be the key of the circuit MODEL compiles to (with the\n"
    "same --bits, --calib and --private as prove), set up from POT.ptau and\n"
    "through at least one contribution (nncert zkey verify's checks: the chain\n"
    "of contributions, delta, every section); the model commitment in\n"
    "PUBLIC.json must be MODEL's, and with --input the input commitment must be\n"
    "that of FILE.  A verification key alone cannot be tied to a model (anyone\n"
    "can make one that accepts a false output), so --model refuses --vk.\n"
    "Without --model only the proof's validity under the key is checked.\n",
    check_opts, "Exit 0 valid, 1 invalid (the line names why), 64 usage, 65 malformed files.\n");

/* Options shared by the three commands. */
typedef struct zk_opts {
    const char *model, *input, *calib, *out, *public_out, *key, *vk, *zkey_out, *wtns, *r1cs, *ptau, *device;
    const char *pos[2];
    int n_pos;
    int bits;
    int priv;
    int count_only;
    int distributed; /* --distributed (prove) */
} zk_opts;

/* Returns: 0, -1 after --help (exit 0), or an exit code. */
static int parse_opts(const nnc_cli_doc *d, int argc, char **argv, zk_opts *o)
{
    memset(o, 0, sizeof *o);
    o->bits = 8;
    o->priv = NNC_PRV_ZK_PRIVATE_INPUT;
    const char *v;
    int k, rc;
    for (int i = 0; (k = nnc_cli_getopt(d, argc, argv, &i, &v, &rc)) != NNC_CLI_END;) {
        switch (k) {
        case NNC_CLI_EXIT: return rc == EXIT_OK ? -1 : rc;
        case NNC_CLI_ARG:
            if (v[0] == '-' && v[1]) return nnc_cli_unknown_option(d->cmd, v);
            if (o->n_pos == 2) return nnc_cli_usage_error(d->cmd, "too many arguments");
            o->pos[o->n_pos++] = v;
            break;
        case Z_BITS: {
            uint64_t b;
            if (nnc_cli_parse_u64(v, &b) || b < NNC_Q_MIN_BITS || b > NNC_Q_MAX_BITS)
                return nnc_cli_usage_error(d->cmd, "--bits must be an integer in 4..24");
            o->bits = (int)b;
            break;
        }
        case Z_PRIVATE:
            if (strcmp(v, "input") == 0) o->priv = NNC_PRV_ZK_PRIVATE_INPUT;
            else if (strcmp(v, "weights") == 0) o->priv = NNC_PRV_ZK_PRIVATE_WEIGHTS;
            else if (strcmp(v, "both") == 0) o->priv = NNC_PRV_ZK_PRIVATE_BOTH;
            else return nnc_cli_usage_error(d->cmd, "--private must be input, weights or both");
            break;
        case Z_CALIB: o->calib = v; break;
        case Z_INPUT: o->input = v; break;
        case Z_OUT: o->out = v; break;
        case Z_PUBLIC: o->public_out = v; break;
        case Z_KEY: o->key = v; break;
        case Z_VK: o->vk = v; break;
        case Z_ZKEY_OUT: o->zkey_out = v; break;
        case Z_WTNS: o->wtns = v; break;
        case Z_R1CS: o->r1cs = v; break;
        case Z_MODEL: o->model = v; break;
        case Z_PTAU: o->ptau = v; break;
        case Z_DEVICE: o->device = v; break;
        case Z_COUNT_ONLY: o->count_only = 1; break;
        case Z_DISTRIBUTED: o->distributed = 1; break;
        }
    }
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Write through a library writer into PATH.tmp, then rename (atomic). */
typedef nnc_status (*zk_writer)(const char *path, const void *obj, char *err, size_t errlen);
static int write_atomic(const char *path, zk_writer fn, const void *obj)
{
    char tmp[4096], err[NNC_ERRBUF_SIZE];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) return nnc_cli_fail(NNC_STATUS_ARG, "output path too long");
    nnc_status st = fn(tmp, obj, err, sizeof err);
    if (st || rename(tmp, path) != 0) {
        remove(tmp);
        if (!st) snprintf(err, sizeof err, "cannot create %s", path);
        fprintf(stderr, "nncert: error: %s\n", err);
        return EXIT_CANTCREAT;
    }
    return EXIT_OK;
}
static nnc_status w_r1cs(const char *p, const void *o, char *e, size_t l) { return nnc_prv_r1cs_write_file(p, o, e, l); }
static nnc_status w_wtns(const char *p, const void *o, char *e, size_t l) { return nnc_prv_wtns_write_file(p, o, e, l); }
static nnc_status w_proof(const char *p, const void *o, char *e, size_t l) { return nnc_prv_g16_proof_write_file(p, o, e, l); }
static nnc_status w_public(const char *p, const void *o, char *e, size_t l) { return nnc_prv_public_write_file(p, o, e, l); }
static nnc_status w_vk(const char *p, const void *o, char *e, size_t l) { return nnc_prv_g16_vk_write_file(p, o, e, l); }
static nnc_status w_zkey(const char *p, const void *o, char *e, size_t l) { return nnc_prv_zkey_write_file(p, o, e, l); }

/* Everything derived from MODEL, --bits, --calib and --input. */
typedef struct zk_job {
    nnc_model *m;
    nnc_qmodel q;
    int64_t **qin;      /* quantised input, or NULL */
} zk_job;

static void job_clear(zk_job *j)
{
    if (j->qin) {
        for (int i = 0; i < j->q.n_inputs; i++) free(j->qin[i]);
        free(j->qin);
    }
    nnc_qmodel_clear(&j->q);
    if (j->m) nnc_mdl_destroy(j->m);
    memset(j, 0, sizeof *j);
}

/* Returns: an exit code (EXIT_OK on success). */
static int job_load(zk_job *j, const zk_opts *o, const char *model, int need_input)
{
    char err[NNC_ERRBUF_SIZE];
    memset(j, 0, sizeof *j);
    nnc_status st = nnc_mdl_load(&j->m, model, err, sizeof err);
    if (st) return nnc_cli_fail(st, err);
    nnc_inputs cal = {0};
    if (o->calib && (st = nnc_mdl_read_inputs(j->m, o->calib, &cal, err, sizeof err))) {
        job_clear(j);
        return nnc_cli_fail(st, err);
    }
    st = nnc_qmodel_build(&j->q, j->m, o->bits, o->calib ? (const double *const *)cal.data : NULL, o->calib ? cal.batch : 0,
                          err, sizeof err);
    if (o->calib) nnc_inputs_clear(&cal);
    if (st) {
        job_clear(j);
        return nnc_cli_fail(st, err);
    }
    if (!o->input) {
        if (need_input) {
            job_clear(j);
            return nnc_cli_usage_error(NULL, "--input FILE is required");
        }
        return EXIT_OK;
    }
    nnc_inputs in;
    if ((st = nnc_mdl_read_inputs(j->m, o->input, &in, err, sizeof err))) {
        job_clear(j);
        return nnc_cli_fail(st, err);
    }
    if (in.batch != 1) {
        nnc_inputs_clear(&in);
        job_clear(j);
        return nnc_cli_fail(NNC_STATUS_INVALID, "--input must hold exactly one sample");
    }
    j->qin = calloc((size_t)j->q.n_inputs, sizeof *j->qin);
    for (int i = 0; j->qin && i < j->q.n_inputs; i++)
        if (!(j->qin[i] = malloc((size_t)j->q.t[j->q.inputs[i]].numel * sizeof **j->qin))) st = NNC_STATUS_NOMEM;
    if (!j->qin || st) {
        nnc_inputs_clear(&in);
        job_clear(j);
        return nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
    }
    st = nnc_qmodel_quantize_inputs(&j->q, (const double *const *)in.data, j->qin, err, sizeof err);
    nnc_inputs_clear(&in);
    if (st) {
        job_clear(j);
        return nnc_cli_fail(st, err);
    }
    return EXIT_OK;
}

static void print_sections(const nnc_prv_cb *cb, const nnc_qmodel *q)
{
    int n;
    const nnc_prv_cb_section *s = nnc_prv_cb_sections(cb, &n);
    printf("%-40s %12s %12s\n", "layer", "constraints", "wires");
    for (int i = 0; i < n; i++) printf("%-40s %12llu %12llu\n", s[i].name, (unsigned long long)s[i].constraints, (unsigned long long)s[i].wires);
    uint64_t c = nnc_prv_cb_n_constraints(cb);
    int64_t macs = nnc_qmodel_macs(q);
    printf("%-40s %12llu %12llu\n", "total", (unsigned long long)c, (unsigned long long)nnc_prv_cb_n_wires(cb));
    printf("multiply-accumulates %lld, constraints per MAC %.4f\n", (long long)macs, macs ? (double)c / (double)macs : 0.0);
    uint64_t t = nnc_prv_cb_n_terms(cb);
    printf("R1CS terms %llu (%.2f GiB as built; limit %.2f GiB)\n", (unsigned long long)t,
           (double)t * (double)sizeof(nnc_prv_r1cs_term) / 1073741824.0, (double)nnc_prv_cb_max_term_bytes() / 1073741824.0);
}

int nnc_cmd_compile(int argc, char **argv)
{
    zk_opts o;
    int rc = parse_opts(&compile_doc, argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    if (o.n_pos != 1 || (!o.out && !o.count_only)) return nnc_cli_usage_error("compile", "usage: nncert compile MODEL -o MODEL.r1cs");
    if ((o.priv & NNC_PRV_ZK_PRIVATE_WEIGHTS) && !(o.priv & NNC_PRV_ZK_PRIVATE_INPUT) && !o.input)
        return nnc_cli_usage_error("compile", "--private weights makes the input a circuit constant: give it with --input");
    zk_job j;
    if ((rc = job_load(&j, &o, o.pos[0], 0))) return rc;
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_cb *cb;
    double t0 = now_s();
    nnc_status st = nnc_prv_zk_compile(&cb, &j.q, (nnc_prv_zk_privacy)o.priv, o.count_only, (const int64_t *const *)j.qin, NULL, err, sizeof err);
    if (st) {
        job_clear(&j);
        return nnc_cli_fail(st, err);
    }
    print_sections(cb, &j.q);
    printf("built in %.3f s\n", now_s() - t0);
    rc = EXIT_OK;
    if (!o.count_only) {
        nnc_prv_r1cs r;
        nnc_prv_fr_vec w;
        uint32_t bad;
        if ((st = nnc_prv_cb_finish_move(cb, &r, &w, NULL, err, sizeof err))) rc = nnc_cli_fail(st, err);
        else if (o.wtns && nnc_prv_r1cs_check_witness(&bad, &r, w.v, w.n, err, sizeof err)) {
            /* a witness the circuit rejects is a compiler bug: never written */
            nnc_cli_fail(NNC_STATUS_INVALID, err);
            rc = EXIT_SOFTWARE;
            nnc_prv_r1cs_clear(&r);
            nnc_prv_fr_vec_clear(&w);
        } else {
            rc = write_atomic(o.out, w_r1cs, &r);
            if (!rc && o.wtns) rc = write_atomic(o.wtns, w_wtns, &w);
            nnc_prv_r1cs_clear(&r);
            nnc_prv_fr_vec_clear(&w);
        }
    }
    nnc_prv_cb_destroy(cb);
    job_clear(&j);
    return rc;
}

/* NNC_STATUS_LIMIT when the circuit and the proving key it needs cannot be
 * held at once on this machine: a lower bound on what setup/key reading and
 * proving hold together (the key's A and B coefficients and its points), so
 * a refusal is never wrong, and a job that would exhaust the machine's
 * memory ends with a message instead of the kernel's OOM killer.  The
 * circuit is a full build (r; the key's coefficients counted when
 * key_coefs), or with r NULL a witness-only build (x: the witness and each
 * constraint's A w and B w, with a key read without its coefficients). */
static nnc_status prove_fits(const nnc_prv_r1cs *r, const nnc_prv_cb_witness *x, const nnc_prv_fr_vec *w, int key_coefs, char *err,
                             size_t errlen)
{
    uint64_t ab = 0, npub, n_cons = r ? r->n_constraints : x->n_constraints, n_terms = 0;
    npub = r ? (uint64_t)r->n_pub_out + r->n_pub_in : (uint64_t)x->n_pub_out + x->n_pub_in;
    if (r && key_coefs)
        for (uint64_t k = 0; k < r->n_constraints; k++)
            ab += (r->lc_start[3 * k + 1] - r->lc_start[3 * k]) + (r->lc_start[3 * k + 2] - r->lc_start[3 * k + 1]);
    if (!r) key_coefs = 0;
    uint64_t domain = 1;
    while (domain < n_cons + npub + 1) domain <<= 1;
    double circuit = r ? (double)r->n_terms * sizeof(nnc_prv_r1cs_term) + (double)(3 * n_cons + 1) * sizeof(uint64_t)
                       : (double)(2 * n_cons) * sizeof(nnc_prv_fr);
    circuit += (double)w->n * sizeof(nnc_prv_fr);
    if (r) n_terms = r->n_terms;
    double key = (double)(key_coefs ? ab + npub + 1 : 0) * sizeof(nnc_prv_zkey_coef) +
                 (double)w->n * (3.0 * sizeof(nnc_prv_g1) + sizeof(nnc_prv_g2)) - (double)(npub + 1) * sizeof(nnc_prv_g1) +
                 (double)domain * sizeof(nnc_prv_g1); /* A, B1, B2 per wire, C per private wire, H */
    uint64_t mem = nnc_machine_memory_bytes();
    if (mem == UINT64_MAX || circuit + key <= (double)mem) return NNC_STATUS_OK;
    const double gib = 1073741824.0;
    return nnc_err(err, errlen, NNC_STATUS_LIMIT,
                   "proving this model needs at least %.2f GiB at once (circuit %.2f GiB: %llu terms; proving key %.2f GiB: %llu coefficients, "
                   "domain 2^%d); the memory is %.2f GiB (RAM plus swap, or NNCERT_MEMORY_BYTES)",
                   (circuit + key) / gib, circuit / gib, (unsigned long long)n_terms, key / gib,
                   (unsigned long long)(key_coefs ? ab + npub + 1 : 0), __builtin_ctzll(domain), (double)mem / gib);
}

/* nncert prove: alone, or as one rank of a team (every rank compiles the
 * circuit and its witness, the proof is split over the ranks as in
 * groth16 prove; rank 0 writes the files and prints). */
static int prove_main(int argc, char **argv, const nnc_team *team, int rank)
{
    zk_opts o;
    int rc = parse_opts(&prove_doc, argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    if (o.n_pos != 1 || !o.input || !o.out || !o.public_out)
        return nnc_cli_usage_error("prove", "usage: nncert prove MODEL --input FILE -o PROOF.json --public PUBLIC.json");
    if (team && !o.key)
        return nnc_cli_usage_error("prove", "several ranks prove with one key: give it with --key KEY.zkey (each rank "
                                            "would set up a key of its own)");
    nnc_prv_backend gpu;
    const nnc_prv_backend *be; /* where the MSMs and NTTs run (NULL: the CPU) */
    if ((rc = nnc_cli_prover_device("prove", o.device ? o.device : "cpu", &gpu, &be))) return rc;
    zk_job j;
    if ((rc = job_load(&j, &o, o.pos[0], 1))) return rc;
    char err[NNC_ERRBUF_SIZE];
    nnc_status st;
    int64_t **ref = NULL;
    nnc_prv_cb *cb = NULL;
    nnc_prv_r1cs r = {0};
    nnc_prv_fr_vec wfull = {0}, pub = {0};
    nnc_prv_cb_witness x = {0};
    const nnc_prv_fr_vec *w = &wfull;
    nnc_prv_zkey z = {0};
    int have_z = 0;
    /* with a key the circuit is the key's: the witness is built alone, with
     * each constraint's A w and B w (no combinations, no coefficient
     * section read), and the proof is checked with the key's verification
     * key before it is written; without one (a key set up here) or with
     * --r1cs the whole circuit is built */
    int by_witness = o.key && !o.r1cs;
    const nnc_q_tensor *to = &j.q.t[j.q.output];
    int64_t *outv = calloc((size_t)to->numel, sizeof *outv);
    if (!outv) { rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory"); goto done; }
    if ((st = nnc_qmodel_run(&j.q, (const int64_t *const *)j.qin, &ref, err, sizeof err))) { rc = nnc_cli_fail(st, err); goto done; }
    double t0 = now_s();
    if ((st = nnc_prv_zk_compile(&cb, &j.q, (nnc_prv_zk_privacy)o.priv, by_witness ? NNC_PRV_ZK_BUILD_WITNESS : NNC_PRV_ZK_BUILD_FULL,
                                 (const int64_t *const *)j.qin, outv, err, sizeof err))) {
        rc = nnc_cli_fail(st, err);
        goto done;
    }
    for (int64_t i = 0; i < to->numel; i++)
        if (outv[i] != ref[j.q.output][i]) {
            snprintf(err, sizeof err, "internal error: circuit output %lld is %lld, the integer runtime gives %lld", (long long)i,
                     (long long)outv[i], (long long)ref[j.q.output][i]);
            rc = nnc_cli_fail(NNC_STATUS_INVALID, err);
            rc = EXIT_SOFTWARE;
            goto done;
        }
    if (by_witness) {
        if ((st = nnc_prv_cb_finish_witness(cb, &x, err, sizeof err))) { rc = nnc_cli_fail(st, err); goto done; }
        w = &x.w;
    } else {
        if ((st = nnc_prv_cb_finish_move(cb, &r, &wfull, NULL, err, sizeof err))) { rc = nnc_cli_fail(st, err); goto done; }
    }
    nnc_prv_cb_destroy(cb);
    cb = NULL;
    double t_wit = now_s() - t0;
    uint32_t n_cons = by_witness ? x.n_constraints : r.n_constraints, n_wires = (uint32_t)w->n;
    if (!by_witness) {
        uint32_t bad;
        if ((st = nnc_prv_r1cs_check_witness(&bad, &r, wfull.v, wfull.n, err, sizeof err))) {
            rc = nnc_cli_fail(st, err);
            rc = EXIT_SOFTWARE;
            goto done;
        }
    }
    if (rank == 0 && o.r1cs && (rc = write_atomic(o.r1cs, w_r1cs, &r))) goto done;
    if (rank == 0 && o.wtns && (rc = write_atomic(o.wtns, w_wtns, w))) goto done;
    /* a key set up here for this proof only keeps no coefficient section
     * (A w and B w then come from the circuit): the largest part of a big
     * model's key */
    int key_coefs = (o.key && !by_witness) || o.zkey_out;
    if ((st = prove_fits(by_witness ? NULL : &r, &x, w, key_coefs, err, sizeof err))) { rc = nnc_cli_fail(st, err); goto done; }
    t0 = now_s();
    if (o.key) {
        if ((st = nnc_prv_zkey_read_file(&z, o.key, by_witness ? NNC_PRV_ZKEY_SKIP_COEFS : 0, err, sizeof err))) {
            rc = nnc_cli_fail(st, err);
            goto done;
        }
        have_z = 1;
        uint32_t npub = by_witness ? x.n_pub_out + x.n_pub_in : r.n_pub_out + r.n_pub_in;
        if (z.n_vars != n_wires || z.n_public != npub || (uint64_t)z.domain_size < (uint64_t)n_cons + npub + 1) {
            snprintf(err, sizeof err, "the model needs %u constraints, %u wires and %u public signals; %s has %u wires, %u public signals and room for %llu constraints",
                     n_cons, n_wires, npub, o.key, z.n_vars, z.n_public,
                     (unsigned long long)(z.domain_size > npub + 1 ? z.domain_size - npub - 1 : 0));
            rc = nnc_cli_fail(NNC_STATUS_LIMIT, err);
            goto done;
        }
        if (!by_witness && !nnc_prv_g16_coefs_match(&z, &r)) {
            snprintf(err, sizeof err, "%s is not the key of this model's circuit (its coefficient section differs): "
                                      "check --bits, --calib and --private, or set the key up from this circuit",
                     o.key);
            rc = nnc_cli_fail(NNC_STATUS_INVALID, err);
            goto done;
        }
    } else {
        if ((st = nnc_prv_g16_setup_flags(&z, &r, key_coefs ? 0 : NNC_PRV_G16_SETUP_NO_COEFS, err, sizeof err))) {
            rc = nnc_cli_fail(st, err);
            goto done;
        }
        have_z = 1;
        if (o.zkey_out && (rc = write_atomic(o.zkey_out, w_zkey, &z))) goto done;
    }
    double t_setup = now_s() - t0;
    if (o.vk && rank == 0) {
        nnc_prv_g16_vk vk;
        if ((st = nnc_prv_g16_vk_from_zkey(&vk, &z))) { rc = nnc_cli_fail(st, "cannot build the verification key"); goto done; }
        rc = write_atomic(o.vk, w_vk, &vk);
        nnc_prv_g16_vk_clear(&vk);
        if (rc) goto done;
    }
    nnc_prv_g16_proof proof;
    t0 = now_s();
    nnc_prv_g16_ab given = {x.ab, x.n_constraints};
    if ((st = nnc_prv_g16_prove_full(&proof, &pub, &z, o.key ? NULL : &r, by_witness ? &given : NULL, w, 0, be, team, NULL, NULL,
                                     NULL, err, sizeof err))) {
        rc = nnc_cli_fail(st, err);
        goto done;
    }
    double t_prove = now_s() - t0;
    if (by_witness) { /* the key's circuit was taken on trust: the proof must verify under it */
        nnc_prv_g16_vk vk;
        int valid = 0;
        if ((st = nnc_prv_g16_vk_from_zkey(&vk, &z))) { rc = nnc_cli_fail(st, "cannot build the verification key"); goto done; }
        st = nnc_prv_g16_verify(&valid, &vk, &pub, &proof, err, sizeof err);
        nnc_prv_g16_vk_clear(&vk);
        if (st || !valid) {
            snprintf(err, sizeof err, "%s is not the key of this model's circuit (the proof made with it does not verify under it): "
                                      "check --bits, --calib and --private, or set the key up from this circuit",
                     o.key);
            rc = nnc_cli_fail(NNC_STATUS_INVALID, err);
            goto done;
        }
    }
    if (rank != 0) goto done; /* rank 0 writes and prints */
    if ((rc = write_atomic(o.out, w_proof, &proof)) || (rc = write_atomic(o.public_out, w_public, &pub))) goto done;
    printf("constraints %u, wires %u, witness %.3f s%s, %s %.3f s, prove %.3f s\n", n_cons, n_wires, t_wit,
           by_witness ? "" : " (with the circuit)", o.key ? "key read" : "setup", t_setup, t_prove);
    /* a model that declares a batch of B samples is proved whole: each
     * sample's outputs and argmax on a line of its own */
    int64_t nb = nnc_vrf_declared_batch(j.m);
    if (nb < 1 || to->numel % nb) nb = 1;
    int64_t per = to->numel / nb;
    printf("output (integers at scale 2^-%d)%s", to->frac, nb > 1 ? ", per sample of the declared batch:\n" : ":");
    for (int64_t b = 0; b < nb; b++) {
        const int64_t *ov = outv + b * per;
        int64_t best = 0;
        if (nb > 1) printf("sample %lld:", (long long)b);
        for (int64_t i = 0; i < per; i++) {
            printf(" %lld", (long long)ov[i]);
            if (ov[i] > ov[best]) best = i;
        }
        printf("\n%sargmax %lld\n", nb > 1 ? "  " : "", (long long)best);
    }
done:
    if (ref) nnc_qmodel_free_values(&j.q, ref);
    free(outv);
    if (cb) nnc_prv_cb_destroy(cb);
    nnc_prv_r1cs_clear(&r);
    nnc_prv_fr_vec_clear(&wfull);
    nnc_prv_cb_witness_clear(&x);
    nnc_prv_fr_vec_clear(&pub);
    if (have_z) nnc_prv_zkey_clear(&z);
    job_clear(&j);
    return rc;
}

int nnc_cmd_prove(int argc, char **argv)
{
    int dist = 0;
    for (int i = 0; i < argc; i++) dist |= strcmp(argv[i], "--distributed") == 0;
    /* ranks wait for each other up to 600 s at an exchange (their circuits
     * are compiled alike; the MSM shares differ little) */
    return nnc_cli_mpi_run("prove", dist, 600.0, prove_main, argc, argv);
}

int nnc_cmd_check(int argc, char **argv)
{
    zk_opts o;
    int rc = parse_opts(&check_doc, argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    if (o.n_pos != 2 || (!o.vk && !o.key))
        return nnc_cli_usage_error("check", "usage: nncert check (--key KEY.zkey | --vk VK.json) PROOF.json PUBLIC.json "
                                            "[--model MODEL --ptau POT.ptau]");
    if (o.vk && o.key) return nnc_cli_usage_error("check", "give --key or --vk, not both");
    if (o.model && (!o.key || !o.ptau))
        return nnc_cli_usage_error("check", "--model needs --key KEY.zkey and --ptau POT.ptau: a verification key alone "
                                            "cannot be tied to MODEL (anyone can make one that accepts a false output)");
    if (o.ptau && !o.model) return nnc_cli_usage_error("check", "--ptau needs --model");
    if (o.input && !o.model) return nnc_cli_usage_error("check", "--input needs --model");
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_g16_vk vk;
    nnc_prv_g16_proof proof;
    nnc_prv_fr_vec pub;
    nnc_status st;
    nnc_prv_zkey z = {0};
    if (o.key) {
        if ((st = nnc_prv_zkey_read_file(&z, o.key, o.model ? NNC_PRV_ZKEY_CHECK_SUBGROUP : 0, err, sizeof err)))
            return nnc_cli_fail(st, err);
        st = nnc_prv_g16_vk_from_zkey(&vk, &z);
        if (st) {
            nnc_prv_zkey_clear(&z);
            return nnc_cli_fail(st, "cannot build the verification key");
        }
    } else if ((st = nnc_prv_g16_vk_read_file(&vk, o.vk, err, sizeof err))) {
        return nnc_cli_fail(st, err);
    }
    int valid = 0, read = 0;
    if ((st = nnc_prv_g16_proof_read_file(&proof, o.pos[0], err, sizeof err)) == NNC_STATUS_OK &&
        (st = nnc_prv_public_read_file(&pub, o.pos[1], err, sizeof err)) == NNC_STATUS_OK) {
        read = 1;
        st = nnc_prv_g16_verify(&valid, &vk, &pub, &proof, err, sizeof err);
        if (st) nnc_prv_fr_vec_clear(&pub);
    }
    nnc_prv_g16_vk_clear(&vk);
    if (read && st == NNC_STATUS_INVALID) { /* e.g. a vk for another number of public signals */
        nnc_prv_zkey_clear(&z);
        printf("INVALID: %s\n", err);
        return EXIT_FAILED;
    }
    if (st) {
        nnc_prv_zkey_clear(&z);
        return nnc_cli_fail(st, err);
    }
    if (!valid) {
        nnc_prv_zkey_clear(&z);
        nnc_prv_fr_vec_clear(&pub);
        printf("INVALID: the proof does not verify\n");
        return EXIT_FAILED;
    }
    uint32_t n_contrib = 0;
    if (o.model) {
        int bound;
        char why[512];
        st = nnc_prv_zk_check_model(&pub, &z, o.ptau, o.model, o.bits, o.calib, o.input, o.priv, &bound, &n_contrib, why,
                                    sizeof why, err, sizeof err);
        if (st) rc = st == NNC_STATUS_ARG ? nnc_cli_usage_error("check", err) : nnc_cli_fail(st, err);
        else if (!bound) {
            printf("INVALID: %s\n", why);
            rc = EXIT_FAILED;
        }
    }
    nnc_prv_zkey_clear(&z);
    if (rc) {
        nnc_prv_fr_vec_clear(&pub);
        return rc;
    }
    nnc_prv_fr_vec_clear(&pub);
    if (o.model)
        printf("OK: the proof is valid, for this model%s; the key is the model's circuit's from %s, through %u "
               "contribution%s\n",
               o.input ? " and this input" : "", o.ptau, n_contrib, n_contrib == 1 ? "" : "s");
    else
        printf("OK: the proof is valid for this key (not tied to a model: give --model and --ptau for that)\n");
    return EXIT_OK;
}
