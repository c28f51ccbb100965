/* nncert command-line front end: parse arguments, call libnncert, print.
 *
 * Exit codes (stable; see README.md):
 *   0  success (for verify: the property holds)
 *   1  a validated counterexample / invalid proof
 *   2  unknown within the budget
 *   64 usage error (bad command line)
 *   65 bad input data (malformed or inconsistent model, spec or input)
 *   66 an input file cannot be opened or read
 *   69 valid input that uses a feature nncert does not support
 *   70 internal error or out of memory
 *   73 an output file cannot be written
 *   75 a resource limit was exceeded */
#include "common/isa.h"
#include "cli/cli.h"
#include "nncert/nnc.h"
#include "dist/gnn.h"
#include "nncert/model.h"
#include "nncert/prover.h"
#include "nncert/spec.h"
#include "nncert/verifier.h"
#include "prover/groth16_impl.h"

#include <float.h>
#include <math.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char main_help[] =
    "usage: nncert COMMAND [ARGS]\n"
    "\n"
    "Robustness figures and proofs of inference for neural networks (ONNX).\n"
    "\n"
    "commands:\n"
    "  info MODEL               inputs, outputs, operators and parameter count\n"
    "  run MODEL --input FILE   evaluate the model, print outputs as JSON\n"
    "  bench MODEL              the runtime's inferences/s and latency on random batches\n"
    "  verify MODEL SPEC        bound the fraction of the spec's region that is violated\n"
    "  bounds MODEL --spec S    sound bounds of every output over a box (ibp|crown|alpha)\n"
    "  spec linf ...            write the L-inf robustness spec around an input\n"
    "  groth16 setup|prove|verify  Groth16 on BN254 with snarkjs-compatible files\n"
    "  zkey contribute|beacon|verify|export ...  the phase-2 ceremony; a key's vk; calldata\n"
    "  r1cs info CIRCUIT.r1cs   a circuit's wires, constraints, inputs and outputs (as snarkjs)\n"
    "  wtns check CIRCUIT.r1cs WITNESS.wtns  check a witness against every constraint\n"
    "  compile|prove|check ...  proofs of inference: model -> circuit -> Groth16 proof\n"
    "  gate CONFIG              CI gate: run checks, write JUnit/JSON/Markdown/HTML, sign\n"
    "  keygen PUBKEY SECKEY     Ed25519 key pair for signing gate summaries\n"
    "  attest verify SUMMARY PUBKEY  check a signed gate summary\n"
    "  plan MODEL --trace F --devices D  place a DLRM's embedding tables on D devices\n"
    "  dlrm-run MODEL --trace F  run a DLRM with its tables distributed (mpirun or simulated)\n"
    "  dlrm-bounds MODEL --trace F  sound DLRM output bounds, ids fixed, dense features in a box\n"
    "  version                  print the version\n"
    "\n"
    "Run 'nncert COMMAND --help' for a command's options.\n"
    "Exit codes: 0 ok, 1 counterexample/invalid, 2 unknown, 64 usage, 65 bad data,\n"
    "66 unreadable input, 69 unsupported feature, 70 internal, 73 cannot write, 75 limit.\n";

enum { I_JSON };
static const nnc_cli_opt info_opts[] = {
    [I_JSON] = {"--json", NULL, "print the same as one JSON object"},
};
static const nnc_cli_doc info_doc = NNC_CLI_DOC(
    "info",
    "usage: nncert info MODEL [--json]\n",
    "Load MODEL (ONNX, opsets 7-21), run shape inference and folding, and print\n"
    "its inputs and outputs (per-sample shapes; a symbolic batch dimension is\n"
    "shown as N), the operators after folding, the parameter count, and the\n"
    "SHA-256 of the file.\n",
    info_opts, "");

enum { R_INPUT, R_PRECISION, R_OUTPUT, R_BATCH_SIZE, R_DISTRIBUTED };
static const nnc_cli_opt run_opts[] = {
    [R_INPUT] = {"--input", "FILE", "a JSON array (nested to the input's shape, or flat), a\n"
                                    ".npy file, or a JSON object keyed by input name; a\n"
                                    "multiple of the per-sample size is evaluated as a batch"},
    [R_PRECISION] = {"--precision", "P", "f32 (default for float models) or f64"},
    [R_OUTPUT] = {"--output", "FILE", "write the JSON there instead of stdout"},
    [R_BATCH_SIZE] = {"--batch-size", "N", "samples per runtime call (default 256)"},
    [R_DISTRIBUTED] = {"--distributed", NULL, "under mpirun: split graph aggregation (sparse MatMul)\n"
                                              "over the MPI ranks with halo exchange; rank 0 writes the\n"
                                              "outputs, bit-identical to a single-process run"},
};
static const nnc_cli_doc run_doc = NNC_CLI_DOC(
    "run",
    "usage: nncert run MODEL --input FILE [--precision f32|f64] [--output FILE]\n",
    "Evaluate MODEL with the reference runtime and print the outputs as JSON:\n"
    "  {\"outputs\": {NAME: {\"shape\": [...], \"data\": [...]}}}\n",
    run_opts, "");

static void shape_str(const nnc_tensor_info *t, char *buf, size_t len)
{
    size_t o = 0;
    o += (size_t)snprintf(buf + o, len - o, "[");
    for (int d = 0; d < t->rank && o < len; d++) {
        if (d == 0 && t->dynamic_leading) o += (size_t)snprintf(buf + o, len - o, "N");
        else o += (size_t)snprintf(buf + o, len - o, "%lld", (long long)t->dims[d]);
        if (d + 1 < t->rank && o < len) o += (size_t)snprintf(buf + o, len - o, ",");
    }
    if (o < len) snprintf(buf + o, len - o, "]");
}

static int cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    int as_json = 0;
    const char *v;
    int k, rc0;
    for (int i = 0; (k = nnc_cli_getopt(&info_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        if (k == NNC_CLI_EXIT) return rc0;
        if (k == I_JSON) as_json = 1;
        else if ((rc0 = nnc_cli_one_positional(&info_doc, v, &path, "MODEL")) != EXIT_OK) return rc0;
    }
    if (path == NULL) return nnc_cli_usage_error("info", "MODEL is required");
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_status st = nnc_mdl_load(&m, path, err, sizeof err);
    if (st) return nnc_cli_fail(st, err);
    uint8_t h[32];
    nnc_mdl_sha256(m, h);
    char hex[65];
    for (int k = 0; k < 32; k++) snprintf(hex + 2 * k, 3, "%02x", h[k]);
    /* operator histogram */
    const char *ops[256];
    int counts[256], nops = 0;
    for (int i = 0; i < nnc_mdl_num_nodes(m); i++) {
        const char *op = nnc_mdl_node_op(m, i);
        int k;
        for (k = 0; k < nops; k++)
            if (strcmp(ops[k], op) == 0) break;
        if (k == nops && nops < 256) {
            ops[nops] = op;
            counts[nops++] = 0;
        }
        if (k < 256) counts[k]++;
    }
    char shp[256];
    if (as_json) {
        printf("{\"model\": ");
        nnc_cli_json_str(stdout, path);
        printf(", \"sha256\": \"%s\", \"opset\": %lld, \"ir_version\": %lld, \"producer\": ", hex,
               (long long)nnc_mdl_opset(m), (long long)nnc_mdl_ir_version(m));
        nnc_cli_json_str(stdout, nnc_mdl_producer(m));
        for (int io = 0; io < 2; io++) {
            int cnt = io ? nnc_mdl_num_outputs(m) : nnc_mdl_num_inputs(m);
            printf(", \"%s\": [", io ? "outputs" : "inputs");
            for (int i = 0; i < cnt; i++) {
                nnc_tensor_info t;
                if (io) nnc_mdl_output_info(m, i, &t);
                else nnc_mdl_input_info(m, i, &t);
                printf("%s{\"name\": ", i ? ", " : "");
                nnc_cli_json_str(stdout, t.name);
                printf(", \"type\": \"%s\", \"shape\": [", nnc_dtype_name(t.dtype));
                for (int d = 0; d < t.rank; d++) {
                    if (d == 0 && t.dynamic_leading) printf("\"N\"");
                    else printf("%lld", (long long)t.dims[d]);
                    if (d + 1 < t.rank) printf(", ");
                }
                printf("]}");
            }
            printf("]");
        }
        printf(", \"nodes\": %d, \"operators\": {", nnc_mdl_num_nodes(m));
        for (int k = 0; k < nops; k++) printf("%s\"%s\": %d", k ? ", " : "", ops[k], counts[k]);
        printf("}, \"parameters\": %lld}\n", (long long)nnc_mdl_param_count(m));
    } else {
        printf("model:      %s\n", path);
        printf("sha256:     %s\n", hex);
        printf("opset:      %lld (IR version %lld, producer '%s')\n", (long long)nnc_mdl_opset(m),
               (long long)nnc_mdl_ir_version(m), nnc_mdl_producer(m));
        for (int i = 0; i < nnc_mdl_num_inputs(m); i++) {
            nnc_tensor_info t;
            nnc_mdl_input_info(m, i, &t);
            shape_str(&t, shp, sizeof shp);
            printf("input:      %s %s %s\n", t.name, nnc_dtype_name(t.dtype), shp);
        }
        for (int i = 0; i < nnc_mdl_num_outputs(m); i++) {
            nnc_tensor_info t;
            nnc_mdl_output_info(m, i, &t);
            shape_str(&t, shp, sizeof shp);
            printf("output:     %s %s %s\n", t.name, nnc_dtype_name(t.dtype), shp);
        }
        printf("nodes:      %d after folding\n", nnc_mdl_num_nodes(m));
        printf("operators: ");
        for (int k = 0; k < nops; k++) printf(" %s x%d", ops[k], counts[k]);
        printf("\nparameters: %lld\n", (long long)nnc_mdl_param_count(m));
    }
    nnc_mdl_destroy(m);
    return EXIT_OK;
}

static int write_outputs(FILE *f, const nnc_model *m, nnc_precision prec, int total, void **outs)
{
    fprintf(f, "{\"outputs\": {");
    for (int j = 0; j < nnc_mdl_num_outputs(m); j++) {
        nnc_tensor_info t;
        nnc_mdl_output_info(m, j, &t);
        fprintf(f, "%s", j ? ", " : "");
        nnc_cli_json_str(f, t.name);
        fprintf(f, ": {\"type\": \"%s\", \"shape\": [", nnc_dtype_name(t.dtype));
        if (t.rank == 0) fprintf(f, "%d", total);
        for (int d = 0; d < t.rank; d++)
            fprintf(f, "%s%lld", d ? ", " : "", (long long)(d == 0 ? t.dims[0] * total : t.dims[d]));
        fprintf(f, "], \"data\": [");
        int64_t cnt = t.numel * total;
        for (int64_t k = 0; k < cnt; k++) {
            if (k) fputs(", ", f);
            if (!nnc_dtype_is_float(t.dtype)) {
                fprintf(f, "%lld", (long long)((int64_t *)outs[j])[k]);
                continue;
            }
            double v = prec == NNC_PRECISION_F32 ? (double)((float *)outs[j])[k] : ((double *)outs[j])[k];
            if (v != v) fputs("\"NaN\"", f);
            else if (v > 1.7976931348623157e308) fputs("\"Infinity\"", f);
            else if (v < -1.7976931348623157e308) fputs("\"-Infinity\"", f);
            else fprintf(f, prec == NNC_PRECISION_F32 ? "%.9g" : "%.17g", v);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "}}\n");
    return ferror(f) ? -1 : 0;
}

typedef struct run_outputs {
    const nnc_model *m;
    nnc_precision prec;
    int total;
    void **outs;
} run_outputs;

static nnc_status write_run_outputs(FILE *f, const void *arg, char *err, size_t errlen)
{
    const run_outputs *r = arg;
    if (write_outputs(f, r->m, r->prec, r->total, r->outs) != 0) return nnc_err(err, errlen, NNC_STATUS_IO, "write failed");
    return NNC_STATUS_OK;
}

static int cmd_run(int argc, char **argv)
{
    const char *path = NULL, *input = NULL, *output = NULL, *prec_s = NULL;
    long chunk = 256;
    int distributed = 0, rank = 0, nranks = 1;
    nnc_dist_gnn *dist = NULL;
    nnc_dist_comm comm = NNC_DIST_COMM_NONE;
    const char *v;
    int k, rc0;
    for (int i = 0; (k = nnc_cli_getopt(&run_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG:
            if ((rc0 = nnc_cli_one_positional(&run_doc, v, &path, "MODEL")) != EXIT_OK) return rc0;
            break;
        case R_INPUT: input = v; break;
        case R_OUTPUT: output = v; break;
        case R_PRECISION: prec_s = v; break;
        case R_DISTRIBUTED: distributed = 1; break;
        case R_BATCH_SIZE: {
            char *end;
            errno = 0;
            chunk = strtol(v, &end, 10);
            if (errno || *end || chunk < 1 || chunk > (1 << 20)) return nnc_cli_usage_error("run", "--batch-size must be 1..1048576");
            break;
        }
        }
    }
    if (path == NULL || input == NULL) return nnc_cli_usage_error("run", "MODEL and --input FILE are required");
    if (output && nnc_cli_check_output(output) != EXIT_OK) return EXIT_CANTCREAT;
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_status st = nnc_mdl_load(&m, path, err, sizeof err);
    if (st) return nnc_cli_fail(st, err);
    nnc_precision prec = NNC_PRECISION_F32;
    for (int i = 0; i < nnc_mdl_num_inputs(m); i++) {
        nnc_tensor_info t;
        nnc_mdl_input_info(m, i, &t);
        if (t.dtype == NNC_DTYPE_DOUBLE) prec = NNC_PRECISION_F64;
    }
    if (prec_s) {
        if (strcmp(prec_s, "f32") == 0) prec = NNC_PRECISION_F32;
        else if (strcmp(prec_s, "f64") == 0) prec = NNC_PRECISION_F64;
        else {
            nnc_mdl_destroy(m);
            return nnc_cli_usage_error("run", "--precision must be f32 or f64");
        }
    }
    nnc_inputs in;
    st = nnc_mdl_read_inputs(m, input, &in, err, sizeof err);
    if (st) {
        nnc_mdl_destroy(m);
        return nnc_cli_fail(st, err);
    }
    int total = in.batch, nin = nnc_mdl_num_inputs(m), nout = nnc_mdl_num_outputs(m);
    int rc = EXIT_OK;
    size_t fs = prec == NNC_PRECISION_F32 ? sizeof(float) : sizeof(double);
    void **ins = calloc((size_t)nin + 1, sizeof(void *)), **outs = calloc((size_t)nout + 1, sizeof(void *));
    const void **inp = calloc((size_t)nin + 1, sizeof(void *));
    void **outp = calloc((size_t)nout + 1, sizeof(void *));
    nnc_runtime *rt = NULL;
    int bs = total < chunk ? total : (int)chunk;
    if (!ins || !outs || !inp || !outp) {
        rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    /* convert inputs to the runtime's element types */
    for (int i = 0; i < nin; i++) {
        nnc_tensor_info t;
        nnc_mdl_input_info(m, i, &t);
        size_t es = nnc_dtype_is_float(t.dtype) ? fs : sizeof(int64_t);
        int64_t cnt = t.numel * total;
        ins[i] = malloc((size_t)(cnt ? cnt : 1) * es);
        if (ins[i] == NULL) {
            rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
            goto done;
        }
        for (int64_t k = 0; k < cnt; k++) {
            double v = in.data[i][k];
            if (!nnc_dtype_is_float(t.dtype)) ((int64_t *)ins[i])[k] = (int64_t)v;
            else if (prec == NNC_PRECISION_F32) ((float *)ins[i])[k] = (float)v;
            else ((double *)ins[i])[k] = v;
        }
    }
    for (int j = 0; j < nout; j++) {
        nnc_tensor_info t;
        nnc_mdl_output_info(m, j, &t);
        size_t es = nnc_dtype_is_float(t.dtype) ? fs : sizeof(int64_t);
        outs[j] = malloc((size_t)(t.numel * total > 0 ? t.numel * total : 1) * es);
        if (outs[j] == NULL) {
            rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
            goto done;
        }
    }
    st = nnc_rt_create(&rt, m, prec, bs, err, sizeof err);
    if (st) {
        rc = nnc_cli_fail(st, err);
        goto done;
    }
    if (distributed && (rc = nnc_cli_mpi_world_begin("run", 1, &comm, &rank, &nranks)) != EXIT_OK) goto done;
    if (distributed && (st = nnc_dist_gnn_attach(&dist, rt, comm, err, sizeof err)) != NNC_STATUS_OK) {
        rc = nnc_cli_fail(st, err);
        goto done;
    }
    for (int b0 = 0; b0 < total; b0 += bs) {
        int cnt = total - b0 < bs ? total - b0 : bs;
        for (int i = 0; i < nin; i++) {
            nnc_tensor_info t;
            nnc_mdl_input_info(m, i, &t);
            size_t es = nnc_dtype_is_float(t.dtype) ? fs : sizeof(int64_t);
            inp[i] = (const char *)ins[i] + (size_t)b0 * (size_t)t.numel * es;
        }
        for (int j = 0; j < nout; j++) {
            nnc_tensor_info t;
            nnc_mdl_output_info(m, j, &t);
            size_t es = nnc_dtype_is_float(t.dtype) ? fs : sizeof(int64_t);
            outp[j] = (char *)outs[j] + (size_t)b0 * (size_t)t.numel * es;
        }
        st = nnc_rt_run(rt, cnt, inp, outp, err, sizeof err);
        if (st) {
            rc = nnc_cli_fail(st, err);
            goto done;
        }
    }
    if (rank != 0) {
        /* rank 0 writes the outputs */
    } else if (output) {
        /* a temporary file renamed into place: a failure leaves nothing half-written */
        run_outputs ro = {m, prec, total, outs};
        rc = nnc_cli_write_atomic(output, write_run_outputs, &ro);
    } else if (write_outputs(stdout, m, prec, total, outs) != 0) {
        rc = EXIT_CANTCREAT;
    }
done:
    nnc_dist_gnn_detach(dist, rt);
    nnc_cli_mpi_world_end(comm);
    nnc_rt_destroy(rt);
    for (int i = 0; i < nin && ins; i++) free(ins[i]);
    for (int j = 0; j < nout && outs; j++) free(outs[j]);
    free(ins);
    free(outs);
    free(inp);
    free(outp);
    nnc_inputs_clear(&in);
    nnc_mdl_destroy(m);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { V_SAMPLES, V_CONFIDENCE, V_TIMEOUT, V_SEED, V_DEVICE, V_MAX_VIOLATION, V_JSON, V_MAX_LEAVES, V_THREADS,
       V_NO_SPLIT, V_IBP, V_SWEEP_EPS, V_CLIP, V_SWEEP_OUT, V_STOP_ON_CEX, V_ALPHA_ITERS, V_RELU_SPLIT,
       V_RELU_SPLIT_BATCH, V_SYMBOLIC, V_EXACT, V_ROW, V_TRACE, V_SAMPLE, V_DISTRIBUTED, V_RANK_WAIT,
       V_VNNCOMP_RESULT };
static const nnc_cli_opt verify_opts[] = {
    [V_SAMPLES] = {"--samples", "N", "samples of the open region (default 10000)"},
    [V_CONFIDENCE] = {"--confidence", "C", "confidence of the interval (default 0.999)"},
    [V_TIMEOUT] = {"--timeout", "S", "seconds for branch and bound (default 60)"},
    [V_SEED] = {"--seed", "K", "Philox4x32-10 seed (default 1)"},
    [V_DEVICE] = {"--device", "D", "cpu (default) or gpu: where the sampling stage and the\n"
                                   "ReLU-split search's bound passes run (gpu: CUDA builds,\n"
                                   "dense ReLU chains); sampling gives the same report, the\n"
                                   "passes the same bounds up to rounding"},
    [V_MAX_VIOLATION] = {"--max-violation", "P", "exit 0 when the upper bound is <= P, 1 when the lower\n"
                                                 "bound is > P, 2 otherwise"},
    [V_JSON] = {"--json", "FILE", "write the JSON report there (-: standard output, which\n"
                                  "then carries the JSON alone, the summary going to stderr)"},
    [V_MAX_LEAVES] = {"--max-leaves", "N", "branch-and-bound leaf budget (default 200000)"},
    [V_THREADS] = {"--threads", "T", "branch-and-bound worker threads (default 2); the report\n"
                                     "depends on T, never on timing between the threads"},
    [V_NO_SPLIT] = {"--no-split", NULL, "bound the box once, no branch and bound"},
    [V_IBP] = {"--ibp", NULL, "interval bounds only (no linear relaxation)"},
    [V_SWEEP_EPS] = {"--sweep-eps", "A:B:N", "instead of one run, N runs with boxes of L-inf radius A..B\n"
                                             "around the spec box's centre; writes PREFIX.csv and\n"
                                             "PREFIX.svg; exits 1 when a radius is violated (or exceeds\n"
                                             "--max-violation), else 2 when one is unknown, else 0"},
    [V_CLIP] = {"--clip", "LO,HI", "--sweep-eps's boxes clipped to [LO, HI]"},
    [V_SWEEP_OUT] = {"--sweep-out", "PREFIX", "--sweep-eps's files (default sweep: sweep.csv and\n"
                                              "sweep.svg in the current folder)"},
    [V_STOP_ON_CEX] = {"--stop-on-counterexample", NULL, "end branch and bound at the first validated\n"
                                                         "counterexample (the interval stays valid, only wider)"},
    [V_ALPHA_ITERS] = {"--alpha-iters", "N", "optimised relaxation slopes (alpha-CROWN: ReLU lower lines,\n"
                                             "sigmoid/tanh both lines; hidden layers, then objectives) on\n"
                                             "leaves CROWN leaves open: N steps per objective, 0 off; auto\n"
                                             "(default): 8 for models with more than 16 inputs, else 0;\n"
                                             "sigmoid/tanh nets with more than 16 inputs then repeat it\n"
                                             "with 2N, 4N, ... steps while a pass narrows a bound"},
    [V_RELU_SPLIT] = {"--relu-split", "M", "branch and bound over ReLU splits on open leaves: auto\n"
                                           "(default: models with more than 16 inputs), on, off;\n"
                                           "it certifies whole input leaves only"},
    [V_RELU_SPLIT_BATCH] = {"--relu-split-batch", "N", "ReLU chains of Gemm/MatMul/Conv layers (AveragePool,\n"
                                                       "BatchNormalization between them): sub-problems bounded\n"
                                                       "together per round of the ReLU splits (batched\n"
                                                       "beta-CROWN, 20 steps each or --alpha-iters); auto\n"
                                                       "(default): 256, at most 4096; 0: one per thread at a\n"
                                                       "time, as for other models"},
    [V_SYMBOLIC] = {"--symbolic", "M", "leaf bounds of dense ReLU chains with at most 16 inputs:\n"
                                       "forward symbolic intervals first, CROWN only on leaves they\n"
                                       "leave open.  cascade: CROWN's split choices; own: the\n"
                                       "symbolic engine's refined bounds and split choices; auto\n"
                                       "(default): short trials of own and cascade from the root,\n"
                                       "then own with look-ahead split choices for up to half of\n"
                                       "the time, then cascade continuing from where own stopped\n"
                                       "(see README); off: CROWN on every leaf"},
    [V_EXACT] = {"--exact", "M", "with the symbolic engine: open leaves with at most 40\n"
                                 "unstable ReLUs decided exactly by enumerating activation\n"
                                 "patterns (each step a checked LP certificate); auto\n"
                                 "(default) or off"},
    [V_ROW] = {"--row", "R", "a model whose input declares a fixed batch (e.g. [4,30])\n"
                             "and a spec of one sample: the spec is of sample R\n"
                             "(0-based), the other samples fixed at the centre of its\n"
                             "box (required for such a spec; a spec over the whole\n"
                             "batch is used as written)"},
    [V_TRACE] = {"--trace", "FILE", "DLRM (categorical integer inputs): fix the ids to those of\n"
                                    "trace sample K (--sample); the spec then covers the dense\n"
                                    "inputs.  Without it a DLRM's spec covers every input in\n"
                                    "input order, the ids fixed (equal bounds)"},
    [V_SAMPLE] = {"--sample", "K", "--trace's sample (1-based, default 1)"},
    [V_DISTRIBUTED] = {"--distributed", NULL, "several processes, one verification: implied when an MPI\n"
                                              "launcher started nncert (mpirun -np R, srun).  Every rank\n"
                                              "holds the same queue and bounds its share of each batch\n"
                                              "of leaves (--threads T each); the sampling stage splits\n"
                                              "the samples.  The report is that of one process with\n"
                                              "--threads R*T (for a leaf budget; times aside) and records\n"
                                              "\"ranks\": R; rank 0 prints it and writes the files.  A\n"
                                              "rank that fails ends the job"},
    [V_RANK_WAIT] = {"--rank-wait", "S", "--distributed: a rank that does not answer within S\n"
                                         "seconds of the others (default --timeout + 300) is\n"
                                         "named in the error"},
    [V_VNNCOMP_RESULT] = {"--vnncomp-result", "FILE", "VNN-COMP mode (vnncomp/run_instance.sh): write FILE as\n"
                                                      "the competition's results file: sat (then the validated\n"
                                                      "counterexample as ((X_0 v) ... (Y_0 v))), unsat, unknown\n"
                                                      "or timeout.  --timeout is then the whole run's wall-clock\n"
                                                      "limit (loading included), the run stops at the first\n"
                                                      "validated counterexample, and --samples defaults to 0"},
};
static const nnc_cli_doc verify_doc = NNC_CLI_DOC(
    "verify",
    "usage: nncert verify MODEL SPEC [--samples N] [--confidence C] [--timeout S] [--seed K]\n"
    "                     [--device cpu|gpu] [--max-violation P] [--json FILE] [--max-leaves N]\n"
    "                     [--no-split] [--ibp] [--stop-on-counterexample] [--threads T]\n"
    "                     [--alpha-iters N|auto] [--relu-split auto|on|off]\n"
    "                     [--relu-split-batch N|auto] [--symbolic M]\n"
    "                     [--exact auto|off]\n"
    "                     [--sweep-eps A:B:N [--clip LO,HI] [--sweep-out PREFIX]]\n"
    "                     [--trace FILE [--sample K]] [--vnncomp-result FILE] [--row R]\n"
    "                     [--distributed [--rank-wait S]]\n",
    "Bound the violation fraction of SPEC (VNN-LIB) on MODEL: the share of the\n"
    "input box whose output reaches the unsafe set.  Branch and bound certifies\n"
    "sub-boxes safe or unsafe with sound linear bounds (outward-rounded); a fresh\n"
    "uniform sample of what stays open gives an exact Clopper-Pearson interval.\n"
    "Counterexamples are reported only after float64 and float32 re-evaluation.\n",
    verify_opts,
    "Options that contradict each other (--ibp with --alpha-iters N > 0 or\n"
    "--relu-split on; --no-split with --relu-split on) or would do nothing (--sample\n"
    "without --trace; --clip or --sweep-out without --sweep-eps; --json with\n"
    "--sweep-eps; --relu-split-batch N with --relu-split off) are refused.\n"
    "--opt=value is the same as --opt value.\n\n"
    "Exit codes: 0 holds (or meets --max-violation), 1 validated counterexample\n"
    "(or the bound exceeds --max-violation), 2 unknown, 64+ errors.\n");

enum { S_MODEL, S_INPUT, S_LABEL, S_EPS, S_CLIP, S_ROW, S_OUTPUT, S_O };
static const nnc_cli_opt spec_opts[] = {
    [S_MODEL] = {"--model", "MODEL", "the model (one input, one output)"},
    [S_INPUT] = {"--input", "FILE", "the input x, read as for 'nncert run' (one sample)"},
    [S_LABEL] = {"--label", "K", "the class the box must keep"},
    [S_EPS] = {"--eps", "E", "the L-inf radius"},
    [S_CLIP] = {"--clip", "LO,HI", "the box clipped to [LO, HI]"},
    [S_ROW] = {"--row", "R", "a model whose input declares a fixed batch (e.g. [4,30]): the spec\n"
                             "of its sample R (0-based), over that sample's inputs and outputs\n"
                             "(required for such a model; 'nncert verify --row R' takes it)"},
    [S_OUTPUT] = {"--output", "FILE", "write the spec there (default: standard output)"},
    [S_O] = {"-o", "FILE", "the same as --output"},
};
static const nnc_cli_doc spec_doc = NNC_CLI_DOC(
    "spec",
    "usage: nncert spec linf --model MODEL --input FILE --label K --eps E [--clip LO,HI] [--row R]\n"
    "                        [--output FILE]\n",
    "Write the standard L-inf robustness spec (VNN-LIB) around one input: the box\n"
    "[x - E, x + E] (clipped to [LO, HI]) is unsafe where some class j != K scores\n"
    "at least as high as class K.  The input file is read as for 'nncert run'.\n",
    spec_opts, "");

static nnc_status write_report(FILE *f, const void *r, char *err, size_t errlen)
{
    return nnc_vrf_report_write_json(f, (const nnc_vrf_report *)r, err, errlen);
}

/* The VNN-COMP results file (vnncomp/run_instance.sh). */
typedef struct vnncomp_out {
    const nnc_vrf_report *r;
    const char *verdict;
} vnncomp_out;

static nnc_status write_vnncomp(FILE *f, const void *arg, char *err, size_t errlen)
{
    const vnncomp_out *v = arg;
    const nnc_vrf_report *r = v->r;
    fprintf(f, "%s\n", v->verdict);
    if (strcmp(v->verdict, "sat") == 0) {
        /* %.17g: every double (and so every float input) reads back exactly */
        for (int i = 0; i < r->n_in; i++) fprintf(f, "%s(X_%d %.17g)\n", i == 0 ? "(" : "", i, r->cex_input[i]);
        for (int i = 0; i < r->n_out; i++) fprintf(f, "(Y_%d %.17g)%s\n", i, r->cex_output[i], i + 1 == r->n_out ? ")" : "");
    }
    return NNC_STATUS_OK;
}

static nnc_status write_spec(FILE *f, const void *s, char *err, size_t errlen)
{
    return nnc_spc_write_vnnlib(f, (const nnc_spec *)s, err, errlen);
}

/* What the progress line needs across calls: the branch-and-bound budget
 * (its ETA is at most the time left of it) and where sampling started (its
 * ETA extrapolates the sampling rate). */
typedef struct progress_state {
    double timeout_s;
    double sample_t0;     /* elapsed_s at the first sampling report; < 0 before */
    uint64_t sample_n0;
} progress_state;

static void progress_line(void *ctx, const nnc_vrf_progress *p)
{
    progress_state *ps = ctx;
    if (p->samples_done) {
        if (ps->sample_t0 < 0 || p->elapsed_s < ps->sample_t0 || p->samples_done < ps->sample_n0) {
            /* first sampling report of this run (a sweep makes several runs) */
            ps->sample_t0 = p->elapsed_s;
            ps->sample_n0 = p->samples_done;
        }
        double dt = p->elapsed_s - ps->sample_t0, dn = (double)(p->samples_done - ps->sample_n0);
        char eta[32] = "ETA --";
        if (dn > 0) snprintf(eta, sizeof eta, "ETA %.0fs", dt / dn * (double)(p->samples_total - p->samples_done));
        fprintf(stderr, "\r\033[K  %s  leaves %llu  open %llu  samples %llu/%llu  %.1fs  %s", p->phase,
                (unsigned long long)p->leaves, (unsigned long long)p->open_leaves, (unsigned long long)p->samples_done,
                (unsigned long long)p->samples_total, p->elapsed_s, eta);
    } else {
        char rs[48] = "";
        if (p->relu_split_nodes) snprintf(rs, sizeof rs, "  splits %llu", (unsigned long long)p->relu_split_nodes);
        fprintf(stderr, "\r\033[K  %s  leaves %llu  open %llu  certified %.4f%%%s  %.1fs  left <= %.0fs", p->phase,
                (unsigned long long)p->leaves, (unsigned long long)p->open_leaves, 100 * p->certified_fraction, rs,
                p->elapsed_s, fmax(0, ps->timeout_s - p->elapsed_s));
    }
    fflush(stderr);
}

/* --sweep-eps A:B:N: the violation-fraction curve over epsilon, for boxes
 * centred on the spec's box, written to PREFIX.csv and PREFIX.svg. */
static int run_sweep(const nnc_model *m, const nnc_spec *spec, nnc_vrf_opts *o, const char *arg, const char *prefix,
                     double clip_lo, double clip_hi)
{
    double a, b;
    long n;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", arg);
    char *c1 = strchr(buf, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (c1 == NULL || c2 == NULL) return nnc_cli_usage_error("verify", "--sweep-eps takes A:B:N");
    *c1 = *c2 = 0;
    char *end;
    n = strtol(c2 + 1, &end, 10);
    if (nnc_cli_parse_double(buf, &a) || nnc_cli_parse_double(c1 + 1, &b) || *end || n < 2 || n > 1000 || a < 0 || b < a)
        return nnc_cli_usage_error("verify", "--sweep-eps takes A:B:N with 0 <= A <= B and 2 <= N <= 1000");
    if (nnc_spc_num_cases(spec) != 1) return nnc_cli_fail(NNC_STATUS_UNSUPPORTED, "--sweep-eps needs a spec with one input box");
    int ni = nnc_spc_num_inputs(spec);
    const double *lo0 = nnc_spc_case_lo(spec, 0), *hi0 = nnc_spc_case_hi(spec, 0);
    double *lo = malloc(sizeof(double) * (size_t)ni), *hi = malloc(sizeof(double) * (size_t)ni);
    double *eps = malloc(sizeof(double) * (size_t)n), *flo = malloc(sizeof(double) * (size_t)n), *fhi = malloc(sizeof(double) * (size_t)n);
    nnc_vrf_result *fres = malloc(sizeof(nnc_vrf_result) * (size_t)n);
    size_t pl = strlen(prefix) + 8;
    char *csv = malloc(pl), *svg = malloc(pl);
    int rc = EXIT_OK;
    if (!lo || !hi || !eps || !flo || !fhi || !fres || !csv || !svg) {
        rc = nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
        goto done;
    }
    snprintf(csv, pl, "%s.csv", prefix);
    snprintf(svg, pl, "%s.svg", prefix);
    /* both outputs checked before the first run */
    if ((rc = nnc_cli_check_output(svg)) != EXIT_OK) goto done;
    FILE *f = fopen(csv, "w");
    if (f == NULL) {
        fprintf(stderr, "nncert: error: cannot write %s: %s\n", csv, strerror(errno));
        rc = EXIT_CANTCREAT;
        goto done;
    }
    fprintf(f, "eps,result,violation_lower,violation_upper,certified_safe,certified_unsafe,samples,time_s\n");
    printf("eps          result    violation fraction bounds\n");
    char err[NNC_ERRBUF_SIZE];
    int any_violated = 0, any_unknown = 0; /* the exit status: as one run's, the worst radius */
    for (long i = 0; i < n && rc == EXIT_OK; i++) {
        eps[i] = a + (b - a) * (double)i / (double)(n - 1);
        for (int k = 0; k < ni; k++) {
            double c = 0.5 * lo0[k] + 0.5 * hi0[k];
            lo[k] = fmax(c - eps[i], clip_lo);
            hi[k] = fmin(c + eps[i], clip_hi);
            if (lo[k] > hi[k]) lo[k] = hi[k] = fmin(fmax(c, clip_lo), clip_hi);
        }
        o->box_lo = lo;
        o->box_hi = hi;
        nnc_vrf_report r;
        nnc_status st = nnc_vrf_run(m, spec, o, &r, err, sizeof err);
        if (st) {
            rc = nnc_cli_fail(st, err);
            break;
        }
        flo[i] = r.violation_lo;
        fhi[i] = r.violation_hi;
        fres[i] = r.result;
        fprintf(f, "%.9g,%s,%.9g,%.9g,%.9g,%.9g,%llu,%.3f\n", eps[i], nnc_vrf_result_name(r.result), r.violation_lo,
                r.violation_hi, r.certified_safe_fraction, r.certified_unsafe_fraction, (unsigned long long)r.samples, r.time_s);
        printf("%-12.6g %-9s [%.6g, %.6g]\n", eps[i], nnc_vrf_result_name(r.result), r.violation_lo, r.violation_hi);
        int met = o->max_violation >= 0 ? r.max_violation_met : r.result == NNC_VRF_HOLDS ? 1
                                                                : r.result == NNC_VRF_VIOLATED ? 0 : -1;
        any_violated |= met == 0;
        any_unknown |= met < 0;
        nnc_vrf_report_clear(&r);
    }
    if (fclose(f) != 0 && rc == EXIT_OK) rc = EXIT_CANTCREAT;
    if (rc == EXIT_OK) {
        FILE *g = fopen(svg, "w");
        if (g == NULL || nnc_vrf_svg_sweep(g, "violation fraction against epsilon", eps, flo, fhi, fres, (int)n, err, sizeof err) != NNC_STATUS_OK) {
            fprintf(stderr, "nncert: error: cannot write %s\n", svg);
            rc = EXIT_CANTCREAT;
        }
        if (g && fclose(g) != 0) rc = EXIT_CANTCREAT;
        if (rc == EXIT_OK) printf("wrote %s and %s\n", csv, svg);
    }
    if (rc == EXIT_OK) rc = any_violated ? 1 : any_unknown ? 2 : 0;
done:
    free(lo); free(hi); free(eps); free(flo); free(fhi); free(fres); free(csv); free(svg);
    return rc;
}

static int verify_main(int argc, char **argv, const nnc_team *team, int rank)
{
    const char *model = NULL, *specp = NULL, *json = NULL, *device = "cpu", *sweep = NULL, *sweep_out = "sweep";
    const char *trace = NULL; /* DLRM: categorical ids from this trace's sample */
    const char *vnncomp = NULL; /* VNN-COMP mode: the results file */
    double t_start = now_s(); /* VNN-COMP mode: --timeout counts from here */
    int sample_set = 0, clip_set = 0, sweep_out_set = 0, samples_set = 0, rank_wait_set = 0; /* given on the command line */
    uint64_t trace_sample = 1;
    int64_t row = -1; /* --row: one sample of a declared batch */
    double clip_lo = -INFINITY, clip_hi = INFINITY;
    nnc_vrf_opts o;
    nnc_vrf_opts_default(&o);
    const char *v;
    int k, rc0;
    for (int i = 0; (k = nnc_cli_getopt(&verify_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        int bad = 0;
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG:
            if (model == NULL) model = v;
            else if (specp == NULL) specp = v;
            else return nnc_cli_usage_error("verify", "too many arguments");
            break;
        case V_NO_SPLIT: o.split = 0; break;
        case V_IBP: o.crown = 0; break;
        case V_STOP_ON_CEX: o.stop_on_counterexample = 1; break;
        case V_DISTRIBUTED: break; /* cmd_verify's: the team */
        /* the run's options, by the library's names (the Python package's too) */
        case V_SAMPLES: case V_SEED: case V_MAX_LEAVES: case V_THREADS: case V_ALPHA_ITERS: case V_RELU_SPLIT_BATCH:
        case V_RELU_SPLIT: case V_EXACT: case V_SYMBOLIC: case V_CONFIDENCE: case V_TIMEOUT: case V_MAX_VIOLATION:
            samples_set |= k == V_SAMPLES;
            bad = nnc_vrf_opts_set(&o, verify_opts[k].name + 2, v, NULL, 0) != NNC_STATUS_OK;
            break;
        case V_JSON: json = v; break;
        case V_DEVICE: device = v; break;
        case V_SWEEP_EPS: sweep = v; break;
        case V_SWEEP_OUT: sweep_out = v, sweep_out_set = 1; break;
        case V_TRACE: trace = v; break;
        case V_VNNCOMP_RESULT: vnncomp = v; break;
        case V_SAMPLE: bad = nnc_cli_parse_u64(v, &trace_sample) || trace_sample == 0, sample_set = 1; break;
        case V_CLIP: clip_set = 1, bad = nnc_cli_parse_clip(v, &clip_lo, &clip_hi); break;
        case V_RANK_WAIT: {
            double w = 0; /* cmd_verify's: the team's */
            bad = nnc_cli_parse_double(v, &w) || !(w > 0);
            rank_wait_set = 1;
            break;
        }
        case V_ROW: {
            uint64_t r = 0;
            bad = nnc_cli_parse_u64(v, &r) || r > INT32_MAX;
            row = (int64_t)r;
            break;
        }
        }
        if (bad) return nnc_cli_bad_value(&verify_doc, verify_opts[k].name, v);
    }
    if (model == NULL || specp == NULL) return nnc_cli_usage_error("verify", "MODEL and SPEC are required");
    /* options that contradict each other (the run's: the library's check,
     * which names them as the library does, ibp for --ibp), or that would be
     * silently inert */
    char clash_err[NNC_ERRBUF_SIZE];
    const char *clash = NULL;
    if (nnc_vrf_opts_clash(&o, clash_err, sizeof clash_err) != NNC_STATUS_OK)
        clash = clash_err;
    else if (sample_set && trace == NULL)
        clash = "--sample picks a sample of --trace FILE, which is not given";
    else if (clip_set && sweep == NULL)
        clash = "--clip applies to --sweep-eps, which is not given (a spec's box is used as written)";
    else if (sweep_out_set && sweep == NULL)
        clash = "--sweep-out names the files of --sweep-eps, which is not given";
    else if (json && sweep)
        clash = "--json and --sweep-eps: a sweep writes --sweep-out PREFIX.csv and .svg, not a JSON report";
    else if (vnncomp && sweep)
        clash = "--vnncomp-result and --sweep-eps: the competition's results file is about one run";
    else if (row >= 0 && trace)
        clash = "--row picks a sample of a declared batch; --trace fixes a DLRM's ids (one sample already)";
    else if (team && sweep)
        clash = "--sweep-eps runs in one process (run it without mpirun or --distributed)";
    else if (rank_wait_set && team == NULL)
        clash = "--rank-wait applies to --distributed runs (under mpirun)";
    if (clash) return nnc_cli_usage_error("verify", clash);
    o.team = team;
    if (strcmp(device, "gpu") == 0) o.device = NNC_VRF_DEVICE_GPU;
    else if (strcmp(device, "cpu") != 0) {
        return nnc_cli_usage_error("verify", "--device must be cpu or gpu");
    }
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_status st = nnc_cli_load_unfolded(&m, model, err, sizeof err);
    if (st) return nnc_cli_fail(st, err);
    nnc_spec *spec;
    st = nnc_spc_parse_file(&spec, specp, err, sizeof err);
    if (st) {
        nnc_mdl_destroy(m);
        return nnc_cli_fail(st, err);
    }
    /* a DLRM's ids fixed (dense features verified); a declared batch: a
     * one-sample spec is of sample --row, the others fixed at the centre of
     * its box */
    if ((st = nnc_vrf_fit_spec(m, &spec, trace, trace_sample, row, "--row", err, sizeof err))) {
        nnc_spc_destroy(spec);
        nnc_mdl_destroy(m);
        return st == NNC_STATUS_ARG ? nnc_cli_usage_error("verify", err) : nnc_cli_fail(st, err);
    }
    /* every output checked before the work (a bad path fails now, not
     * after a run of --timeout seconds) */
    /* (a sweep opens its CSV before its first run: run_sweep) */
    int orc = json ? nnc_cli_check_output(json) : EXIT_OK;
    if (orc == EXIT_OK && vnncomp) orc = nnc_cli_check_output(vnncomp);
    if (orc != EXIT_OK) {
        nnc_spc_destroy(spec);
        nnc_mdl_destroy(m);
        return orc;
    }
    progress_state pstate = {o.timeout_s, -1, 0};
    if (isatty(2) && rank == 0) {
        o.progress = progress_line;
        o.progress_ctx = &pstate;
    }
    if (sweep) {
        int rc = run_sweep(m, spec, &o, sweep, sweep_out, clip_lo, clip_hi);
        nnc_spc_destroy(spec);
        nnc_mdl_destroy(m);
        return rc;
    }
    /* VNN-COMP mode: the whole limit, and the part of it branch and bound
     * leaves for the attack's and the exit's overshoot */
    double limit = o.timeout_s, reserve = fmin(1.0, 0.05 * limit);
    if (vnncomp) {
        /* the whole run within --timeout: branch and bound gets what loading
         * left, less a reserve for the attack's and the exit's overshoot */
        o.stop_on_counterexample = 1;
        if (!samples_set) o.samples = 0;
        double left = limit - (now_s() - t_start);
        o.timeout_s = fmax(0, left - reserve);
    }
    nnc_vrf_report r;
    st = nnc_vrf_run(m, spec, &o, &r, err, sizeof err);
    if (o.progress) fputs("\r\033[K", stderr);
    if (st) {
        nnc_spc_destroy(spec);
        nnc_mdl_destroy(m);
        if (team && team->size > 1) {
            char rerr[NNC_ERRBUF_SIZE + 32];
            snprintf(rerr, sizeof rerr, "rank %d: %s", rank, err);
            return nnc_cli_fail(st, rerr);
        }
        return nnc_cli_fail(st, err);
    }
    int rc = r.result == NNC_VRF_HOLDS ? 0 : r.result == NNC_VRF_VIOLATED ? 1 : 2;
    if (o.max_violation >= 0) rc = r.max_violation_met == 1 ? 0 : r.max_violation_met == 0 ? 1 : 2;
    if (rank != 0) {
        /* rank 0 prints the report and writes the files */
        nnc_vrf_report_clear(&r);
        nnc_spc_destroy(spec);
        nnc_mdl_destroy(m);
        return rc;
    }
    /* with --json -, standard output carries the JSON alone */
    FILE *hf = json && strcmp(json, "-") == 0 ? stderr : stdout;
    fprintf(hf, "result:            %s\n", nnc_vrf_result_name(r.result));
    fprintf(hf, "violation fraction: [%.6g, %.6g] at confidence %g\n", r.violation_lo, r.violation_hi, r.confidence);
    fprintf(hf, "certified:         safe %.6g, unsafe %.6g, open %.6g of the volume\n", r.certified_safe_fraction,
           r.certified_unsafe_fraction, r.open_fraction);
    fprintf(hf, "branch and bound:  %llu leaves (%llu safe, %llu unsafe, %llu open)\n", (unsigned long long)r.leaves,
           (unsigned long long)r.leaves_safe, (unsigned long long)r.leaves_unsafe, (unsigned long long)r.leaves_open);
    if (r.relu_split_nodes)
        fprintf(hf, "relu splits:       %llu sub-problems bounded\n", (unsigned long long)r.relu_split_nodes);
    fprintf(hf, "samples:           %llu, %llu violating (seed %llu)\n", (unsigned long long)r.samples,
           (unsigned long long)r.sample_violations, (unsigned long long)r.seed);
    if (r.has_counterexample) fprintf(hf, "counterexample:    validated in float64 and float32 (case %d)\n", r.counterexample_case);
    if (r.ranks > 1) fprintf(hf, "ranks:             %d\n", r.ranks);
    fprintf(hf, "time:              %.3f s\n", r.time_s);
    if (o.max_violation >= 0) {
        fprintf(hf, "max violation %g:  %s\n", o.max_violation, rc == 0 ? "met" : rc == 1 ? "exceeded" : "undecided");
    }
    if (json) {
        int w = nnc_cli_write_atomic(json, write_report, &r);
        if (w) rc = w;
    }
    if (vnncomp) {
        /* unknown: branch and bound ended with time left (a leaf budget, a
         * sub-problem nothing can split); timeout: it used the time */
        vnncomp_out vo = {&r, r.result == NNC_VRF_HOLDS ? "unsat"
                              : r.result == NNC_VRF_VIOLATED && r.has_counterexample ? "sat"
                              : now_s() - t_start >= limit - reserve - 0.01 ? "timeout" : "unknown"};
        int w = nnc_cli_write_atomic(vnncomp, write_vnncomp, &vo);
        if (w) rc = w;
    }
    nnc_vrf_report_clear(&r);
    nnc_spc_destroy(spec);
    nnc_mdl_destroy(m);
    return rc;
}

/* nncert verify: alone, or (--distributed, or started by an MPI launcher)
 * one rank of a team over MPI_COMM_WORLD.  A rank waits for the others at an
 * exchange up to --rank-wait, by default the budget plus this (a batch of
 * one wide leaf keeps rank 0 busy up to the budget; the sampling stage's
 * ranks end within their share's spread). */
#define NNC_CLI_RANK_WAIT_SLACK_S 300.0
static int cmd_verify(int argc, char **argv)
{
    int dist = 0, help = 0;
    double budget = 60, wait = 0; /* --timeout (its default), --rank-wait */
    for (int i = 0; i < argc; i++) {
        int k = nnc_cli_find(&verify_doc, argv[i]);
        if (nnc_cli_is_help(argv[i])) help = 1;
        else if (k == V_DISTRIBUTED) dist = 1;
        else if (k == V_TIMEOUT && i + 1 < argc) (void)nnc_cli_parse_double(argv[++i], &budget);
        else if (k == V_RANK_WAIT && i + 1 < argc) (void)nnc_cli_parse_double(argv[++i], &wait);
        else if (k >= 0 && verify_opts[k].arg) i++; /* a value, not a flag */
    }
    if (help) return verify_main(argc, argv, NULL, 0);
    /* (a budget of 10^9 s or more: no practical limit on the wait either) */
    if (!(wait > 0)) wait = (budget > 0 ? fmin(budget, 1e9) : 0) + NNC_CLI_RANK_WAIT_SLACK_S;
    return nnc_cli_mpi_run("verify", dist, wait, verify_main, argc, argv);
}

static int cmd_spec(int argc, char **argv)
{
    if (argc < 1 || nnc_cli_is_help(argv[0])) {
        nnc_cli_help(argc < 1 ? stderr : stdout, &spec_doc);
        return argc < 1 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[0], "linf") != 0) return nnc_cli_usage_error("spec", "unknown spec kind (only 'linf')");
    const char *model = NULL, *input = NULL, *output = NULL;
    double eps = -1, clip_lo = -INFINITY, clip_hi = INFINITY;
    long label = -1;
    int64_t row = -1; /* --row: one sample of a declared batch */
    const char *v;
    int k, rc0;
    for (int i = 1; (k = nnc_cli_getopt(&spec_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG: return nnc_cli_usage_error("spec", "too many arguments");
        case S_MODEL: model = v; break;
        case S_INPUT: input = v; break;
        case S_OUTPUT: case S_O: output = v; break;
        case S_EPS:
            if (nnc_cli_parse_double(v, &eps) || eps < 0) return nnc_cli_usage_error("spec", "--eps must be a non-negative number");
            break;
        case S_LABEL: {
            char *end;
            errno = 0;
            label = strtol(v, &end, 10);
            if (errno || *end || label < 0) return nnc_cli_usage_error("spec", "--label must be a class index");
            break;
        }
        case S_CLIP:
            if (nnc_cli_parse_clip(v, &clip_lo, &clip_hi)) return nnc_cli_usage_error("spec", "--clip takes LO,HI with LO <= HI");
            break;
        case S_ROW: {
            uint64_t r;
            if (nnc_cli_parse_u64(v, &r) || r > INT32_MAX) return nnc_cli_usage_error("spec", "--row must be a sample index");
            row = (int64_t)r;
            break;
        }
        }
    }
    if (!model || !input || eps < 0 || label < 0) return nnc_cli_usage_error("spec", "--model, --input, --label and --eps are required");
    if (output && nnc_cli_check_output(output) != EXIT_OK) return EXIT_CANTCREAT;
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_status st = nnc_mdl_load(&m, model, err, sizeof err);
    if (st) return nnc_cli_fail(st, err);
    if (nnc_mdl_num_inputs(m) != 1 || nnc_mdl_num_outputs(m) != 1) {
        nnc_mdl_destroy(m);
        return nnc_cli_fail(NNC_STATUS_UNSUPPORTED, "spec linf needs a model with one input and one output");
    }
    int rc = nnc_cli_pick_row(m, row, -1, -1, "spec linf");
    if (rc != EXIT_OK) {
        nnc_mdl_destroy(m);
        return rc;
    }
    nnc_inputs in;
    st = nnc_mdl_read_inputs(m, input, &in, err, sizeof err);
    if (st) {
        nnc_mdl_destroy(m);
        return nnc_cli_fail(st, err);
    }
    nnc_tensor_info ti, to;
    nnc_mdl_input_info(m, 0, &ti);
    nnc_mdl_output_info(m, 0, &to);
    /* a declared batch: the spec of sample row (its inputs and outputs) */
    int64_t B = row >= 0 ? nnc_cli_declared_batch(m) : 1, n_in = ti.numel / B, n_out = to.numel / B;
    if (in.batch != 1) {
        rc = nnc_cli_fail(NNC_STATUS_INVALID, "spec linf needs exactly one input sample");
    } else {
        nnc_spec *s;
        st = nnc_spc_linf(&s, in.data[0] + (row >= 0 ? row * n_in : 0), (int)n_in, (int)n_out, (int)label, eps, clip_lo, clip_hi,
                          err, sizeof err);
        for (int i = 0; !st && ti.dtype == NNC_DTYPE_FLOAT && i < (int)n_in; i++) {
            /* a float32 input cannot take a value past FLT_MAX: such a box
             * (a huge --eps without --clip) is a mistake, not a spec */
            double l = nnc_spc_case_lo(s, 0)[i], h = nnc_spc_case_hi(s, 0)[i];
            if (l < -FLT_MAX || h > FLT_MAX) {
                snprintf(err, sizeof err, "input %d: box [%g, %g] goes past the float32 range of the model's input "
                         "(--eps %g; --clip bounds it)", i, l, h, eps);
                nnc_spc_destroy(s);
                st = NNC_STATUS_ARG;
            }
        }
        if (st) {
            rc = nnc_cli_fail(st, err);
        } else {
            if (output) rc = nnc_cli_write_atomic(output, write_spec, s);
            else if (nnc_spc_write_vnnlib(stdout, s, err, sizeof err)) rc = EXIT_CANTCREAT;
            nnc_spc_destroy(s);
        }
    }
    nnc_inputs_clear(&in);
    nnc_mdl_destroy(m);
    return rc;
}

/* The text of groth16's and zkey's help (their synopses and what they do). */
#define G16_SYNOPSIS \
    "usage: nncert groth16 setup CIRCUIT.r1cs POT.ptau KEY.zkey\n" \
    "       nncert groth16 setup CIRCUIT.r1cs KEY.zkey           (development key)\n" \
    "       nncert zkey contribute OLD.zkey NEW.zkey [--name N] [--entropy E]\n" \
    "       nncert zkey beacon OLD.zkey NEW.zkey BEACONHASH EXP [--name N]\n" \
    "       nncert zkey verify CIRCUIT.r1cs POT.ptau KEY.zkey\n" \
    "       nncert groth16 prove KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json [--r1cs CIRCUIT.r1cs]\n" \
    "                            [--threads N] [--device cpu|gpu] [--distributed]\n" \
    "       nncert groth16 verify VK.json PUBLIC.json PROOF.json\n" \
    "       nncert zkey export verificationkey KEY.zkey VK.json\n" \
    "       nncert zkey export solidityverifier KEY.zkey VERIFIER.sol\n" \
    "       nncert zkey export soliditycalldata PUBLIC.json PROOF.json\n"
static const char g16_about[] =
    "Groth16 on BN254 (snarkjs 'bn128'), with the files and argument order of\n"
    "snarkjs: circom .r1cs, snarkjs .ptau, .wtns and .zkey, proof.json,\n"
    "public.json and verification_key.json.\n"
    "\n"
    "The trust chain (snarkjs's phase 2; files interchangeable with its):\n"
    "setup with POT.ptau makes the circuit's first key from a powers-of-tau file\n"
    "prepared for phase 2 (snarkjs powersoftau ... prepare phase2; a public\n"
    "ceremony's file is the trust anchor).  It is byte for byte snarkjs's key and\n"
    "has no secret yet (delta = 1): anyone could forge proofs with it.  Each\n"
    "zkey contribute mixes a secret from the OS (and --entropy) into delta and\n"
    "appends a record proving it; zkey beacon does the same from a public random\n"
    "beacon (SHA-256 applied 2^EXP times to BEACONHASH, hex), deterministically.\n"
    "The key is sound if one contributor destroyed its secret.  zkey verify\n"
    "recomputes the first key from the circuit and POT.ptau and checks every\n"
    "record, delta and the L and H sections (random linear combinations), and\n"
    "prints the circuit and contribution hashes for contributors to compare:\n"
    "exit 0 'ZKey Ok!', 1 INVALID naming the failed check.\n"
    "\n"
    "setup without POT.ptau is a SINGLE-PARTY setup for development and tests:\n"
    "its toxic waste comes from libsodium's randombytes and is wiped from\n"
    "memory, but whoever runs it could keep it and forge proofs.\n"
    "\n"
    "prove with --r1cs first checks the witness against the circuit and refuses\n"
    "one that violates a constraint, naming the first one (exit 65); a .zkey\n"
    "alone does not hold the C matrix, so without it a bad witness yields a\n"
    "proof that does not verify.  --device gpu runs its MSMs and NTTs on an\n"
    "NVIDIA GPU (CUDA builds; the same results as the CPU's; exit 69 without a\n"
    "device).  Under mpirun -np R (or with --distributed) the ranks prove\n"
    "together: each MSM split into R index ranges, the quotient's three\n"
    "polynomials over the ranks; every rank reads the key and the witness, rank\n"
    "0 writes the proof, the same proof one process makes with the blinding\n"
    "rank 0 draws.  A rank that fails or does not answer within 600 s ends the\n"
    "job naming it.\n"
    "\n"
    "zkey export solidityverifier writes a Solidity contract Groth16Verifier\n"
    "(nncert's own, on the EVM's BN254 precompiles) whose verifyProof takes the\n"
    "arguments zkey export soliditycalldata prints, as snarkjs's verifiers do.\n"
    "\n"
    "verify exits 0 for a valid proof, 1 for an invalid one, 65 for unusable\n"
    "input (malformed JSON, points off the curve or the subgroup, public inputs\n"
    "not reduced mod r, a wrong number of public inputs).\n";

enum { G16_R1CS, G16_THREADS, G16_DEVICE, G16_DISTRIBUTED };
static const nnc_cli_opt g16_opts[] = {
    [G16_R1CS] = {"--r1cs", "CIRCUIT.r1cs", "prove: check the witness against the circuit first"},
    [G16_THREADS] = {"--threads", "N", "prove: threads (1..256; default: the online processors)"},
    [G16_DEVICE] = {"--device", "D", "prove: cpu (default) or gpu, where the MSMs and NTTs run"},
    [G16_DISTRIBUTED] = {"--distributed", NULL, "prove: over the ranks of mpirun (implied under a launcher)"},
};
static const nnc_cli_doc g16_doc = NNC_CLI_DOC("groth16", G16_SYNOPSIS, g16_about, g16_opts, "");

/* zkey contribute and beacon (cli/cmd_mpc.c parses them): snarkjs's
 * spellings -n=N and -e=E too */
static const nnc_cli_opt zkey_opts[] = {
    [NNC_CLI_ZKEY_NAME] = {"--name", "N", "contribute, beacon: the contribution's name (64 bytes at most)"},
    [NNC_CLI_ZKEY_N] = {"-n", "N", "the same as --name"},
    [NNC_CLI_ZKEY_ENTROPY] = {"--entropy", "E", "contribute: text mixed into the secret drawn from the OS"},
    [NNC_CLI_ZKEY_E] = {"-e", "E", "the same as --entropy"},
};
const nnc_cli_doc nnc_cli_zkey_doc = NNC_CLI_DOC("zkey", G16_SYNOPSIS, g16_about, zkey_opts, "");

static int g16_fail(nnc_status st, const char *msg) { return nnc_cli_fail(st, msg); }

/* groth16 prove on a terminal: the stage done, the estimated share of the
 * work, elapsed time and an ETA extrapolated from that share. */
typedef struct prove_progress_state {
    double t0;
    int stages;
} prove_progress_state;

static void prove_progress(void *ctx, const char *stage, double f)
{
    prove_progress_state *ps = ctx;
    double el = now_s() - ps->t0;
    char eta[32] = "ETA --";
    if (f > 0.001 && f < 1) snprintf(eta, sizeof eta, "ETA %.0fs", el * (1 - f) / f);
    else if (f >= 1) snprintf(eta, sizeof eta, "ETA 0s");
    fprintf(stderr, "\r\033[K  prove: %s done (%d)  %.0f%%  %.1fs  %s", stage, ++ps->stages, 100 * f, el, eta);
    fflush(stderr);
}

/* How long a rank of groth16 prove waits for the others at an exchange: the
 * ranks' shares of one MSM differ little, loading a key may take a minute. */
#define NNC_CLI_PROVE_RANK_WAIT_S 600.0

/* groth16 prove KEY WITNESS PROOF PUBLIC (argv[0] "prove"): alone, or as
 * one rank of a team (the MSMs and the quotient split over the ranks; rank 0
 * writes the files). */
static int g16_prove_main(int argc, char **argv, const nnc_team *team, int rank)
{
    nnc_status st;
    char err[NNC_ERRBUF_SIZE];
    int threads = 0;
    const char *pos[4], *r1cs_path = NULL, *device = "cpu";
    int np = 0;
    const char *v;
    int k, rc0;
    for (int i = 1; (k = nnc_cli_getopt(&g16_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG:
            if (np == 4) return nnc_cli_usage_error("groth16", "too many arguments");
            pos[np++] = v;
            break;
        case G16_THREADS:
            threads = atoi(v);
            if (threads < 1 || threads > 256) return nnc_cli_usage_error("groth16", "--threads must be 1..256");
            break;
        case G16_R1CS: r1cs_path = v; break;
        case G16_DEVICE: device = v; break;
        case G16_DISTRIBUTED: break; /* cmd_groth16's: the team */
        }
    }
    if (np != 4) return nnc_cli_usage_error("groth16", "prove takes KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json");
    nnc_prv_backend gpu;
    const nnc_prv_backend *be; /* where the MSMs and NTTs run (NULL: the CPU) */
    int drc = nnc_cli_prover_device("groth16", device, &gpu, &be);
    if (drc) return drc;
    nnc_prv_zkey z;
    nnc_prv_fr_vec w, pub;
    nnc_prv_g16_proof proof;
    if ((st = nnc_prv_zkey_read_file(&z, pos[0], 0, err, sizeof err))) return g16_fail(st, err);
    if ((st = nnc_prv_wtns_read_file(&w, pos[1], err, sizeof err))) {
        nnc_prv_zkey_clear(&z);
        return g16_fail(st, err);
    }
    if (r1cs_path) {
        nnc_prv_r1cs cs;
        uint32_t bad;
        st = nnc_prv_r1cs_read_file(&cs, r1cs_path, err, sizeof err);
        if (st == NNC_STATUS_OK) {
            st = nnc_prv_r1cs_check_witness(&bad, &cs, w.v, w.n, err, sizeof err);
            nnc_prv_r1cs_clear(&cs);
        }
        if (st) {
            nnc_prv_zkey_clear(&z);
            nnc_prv_fr_vec_clear(&w);
            return g16_fail(st, err);
        }
    }
    prove_progress_state pp = {now_s(), 0};
    int show = isatty(2) && rank == 0;
    /* A w and B w first, then the key's coefficient section (needed for
     * nothing else) released before the NTTs and the MSMs */
    size_t dom = z.domain_size ? z.domain_size : 1;
    nnc_prv_fr *pa = malloc(sizeof *pa * dom), *pb = malloc(sizeof *pb * dom); /* (zeroed by ab_key) */
    if (!pa || !pb) st = nnc_err(err, sizeof err, NNC_STATUS_NOMEM, "out of memory");
    else st = nnc_prv_g16_ab_key(pa, pb, &z, &w, team, err, sizeof err); /* (wiped on failure) */
    free(z.coefs);
    z.coefs = NULL;
    z.n_coefs = 0;
    if (st == NNC_STATUS_OK) {
        st = nnc_prv_g16_prove_taking(&proof, &pub, &z, pa, pb, &w, threads, be, team, show ? prove_progress : NULL, &pp,
                                      err, sizeof err);
    } else {
        free(pa);
        free(pb);
    }
    if (show) fputs("\r\033[K", stderr);
    nnc_prv_zkey_clear(&z);
    nnc_prv_fr_vec_clear(&w);
    if (st) return g16_fail(st, err);
    int rc = EXIT_OK;
    if (rank != 0) {
        /* rank 0 writes the files */
        nnc_prv_fr_vec_clear(&pub);
        return rc;
    }
    if (nnc_prv_g16_proof_write_file(pos[2], &proof, err, sizeof err) ||
        nnc_prv_public_write_file(pos[3], &pub, err, sizeof err)) {
        fprintf(stderr, "nncert: error: %s\n", err);
        rc = EXIT_CANTCREAT;
    }
    nnc_prv_fr_vec_clear(&pub);
    return rc;
}

static int cmd_groth16(int argc, char **argv)
{
    if (argc < 1 || nnc_cli_is_help(argv[0])) {
        nnc_cli_help(argc < 1 ? stderr : stdout, &g16_doc);
        return argc < 1 ? EXIT_USAGE : EXIT_OK;
    }
    for (int i = 1; i < argc; i++)
        if (nnc_cli_is_help(argv[i])) {
            nnc_cli_help(stdout, &g16_doc);
            return EXIT_OK;
        }
    char err[NNC_ERRBUF_SIZE];
    nnc_status st;
    if (strcmp(argv[0], "setup") == 0) {
        if (argc == 4) return nnc_cmd_g16_setup_ptau(argv[1], argv[2], argv[3]);
        if (argc != 3) return nnc_cli_usage_error("groth16", "setup takes CIRCUIT.r1cs POT.ptau KEY.zkey (or CIRCUIT.r1cs KEY.zkey for a development key)");
        fprintf(stderr, "nncert: note: a single-party development key: whoever runs this setup can forge proofs; "
                        "give a powers of tau file for a ceremony key\n");
        nnc_prv_r1cs cs;
        nnc_prv_zkey z;
        if ((st = nnc_prv_r1cs_read_file(&cs, argv[1], err, sizeof err))) return g16_fail(st, err);
        st = nnc_prv_g16_setup(&z, &cs, err, sizeof err);
        nnc_prv_r1cs_clear(&cs);
        if (st) return g16_fail(st, err);
        st = nnc_prv_zkey_write_file(argv[2], &z, err, sizeof err);
        nnc_prv_zkey_clear(&z);
        if (st) return st == NNC_STATUS_IO ? (fprintf(stderr, "nncert: error: %s\n", err), EXIT_CANTCREAT) : g16_fail(st, err);
        return EXIT_OK;
    }
    if (strcmp(argv[0], "prove") == 0) {
        int dist = 0;
        for (int i = 1; i < argc; i++) dist |= nnc_cli_find(&g16_doc, argv[i]) == G16_DISTRIBUTED;
        return nnc_cli_mpi_run("groth16 prove", dist, NNC_CLI_PROVE_RANK_WAIT_S, g16_prove_main, argc, argv);
    }
    if (strcmp(argv[0], "verify") == 0) {
        if (argc != 4) return nnc_cli_usage_error("groth16", "verify takes VK.json PUBLIC.json PROOF.json");
        nnc_prv_g16_vk vk;
        nnc_prv_fr_vec pub;
        nnc_prv_g16_proof proof;
        if ((st = nnc_prv_g16_vk_read_file(&vk, argv[1], err, sizeof err))) return g16_fail(st, err);
        if ((st = nnc_prv_public_read_file(&pub, argv[2], err, sizeof err))) {
            nnc_prv_g16_vk_clear(&vk);
            return g16_fail(st, err);
        }
        if ((st = nnc_prv_g16_proof_read_file(&proof, argv[3], err, sizeof err))) {
            nnc_prv_g16_vk_clear(&vk);
            nnc_prv_fr_vec_clear(&pub);
            return g16_fail(st, err);
        }
        int valid = 0;
        st = nnc_prv_g16_verify(&valid, &vk, &pub, &proof, err, sizeof err);
        nnc_prv_g16_vk_clear(&vk);
        nnc_prv_fr_vec_clear(&pub);
        if (st) return g16_fail(st, err);
        printf("%s\n", valid ? "OK: the proof is valid" : "INVALID: the proof does not verify");
        return valid ? EXIT_OK : 1;
    }
    return nnc_cli_usage_error("groth16", "unknown subcommand (setup, prove, verify)");
}

/* A 32-byte big-endian encoding quoted as "0x" and 64 hex digits, as in
 * snarkjs's calldata. */
static void put_hex32(const unsigned char b[32])
{
    printf("\"0x");
    for (int i = 0; i < 32; i++) printf("%02x", b[i]);
    printf("\"");
}

static void put_hex32_fq(const nnc_prv_fq *a)
{
    unsigned char b[32];
    nnc_prv_fq_serialize_b32(b, a, NNC_PRV_ENDIAN_BIG);
    put_hex32(b);
}

/* zkey export soliditycalldata PUBLIC.json PROOF.json: the proof and public
 * signals as the arguments of a Solidity verifier's verifyProof, in
 * snarkjs's layout (each G2 coordinate's two halves c1 first, as the
 * EIP-197 precompile reads them). */
static int zkey_calldata(const char *pub_path, const char *proof_path)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_fr_vec pub;
    nnc_prv_g16_proof pr;
    nnc_status st = nnc_prv_public_read_file(&pub, pub_path, err, sizeof err);
    if (st) return g16_fail(st, err);
    if ((st = nnc_prv_g16_proof_read_file(&pr, proof_path, err, sizeof err))) {
        nnc_prv_fr_vec_clear(&pub);
        return g16_fail(st, err);
    }
    /* a point at infinity is read as zeros, and its file text (which
     * snarkjs would print) is gone: refused rather than printed otherwise */
    static const unsigned char zero[sizeof(nnc_prv_g2)];
    if (!memcmp(&pr.a, zero, sizeof pr.a) || !memcmp(&pr.b, zero, sizeof pr.b) || !memcmp(&pr.c, zero, sizeof pr.c)) {
        nnc_prv_fr_vec_clear(&pub);
        return g16_fail(NNC_STATUS_UNSUPPORTED, "a proof point at infinity (z = \"0\") has no calldata form here");
    }
    const nnc_prv_fq *g1[2][2] = {{&pr.a.x, &pr.a.y}, {&pr.c.x, &pr.c.y}};
    const nnc_prv_fq2 *g2[2] = {&pr.b.x, &pr.b.y};
    printf("[");
    put_hex32_fq(g1[0][0]), printf(", "), put_hex32_fq(g1[0][1]);
    printf("],[");
    for (int k = 0; k < 2; k++) {
        printf(k ? ",[" : "[");
        put_hex32_fq(&g2[k]->c1), printf(", "), put_hex32_fq(&g2[k]->c0);
        printf("]");
    }
    printf("],[");
    put_hex32_fq(g1[1][0]), printf(", "), put_hex32_fq(g1[1][1]);
    printf("],[");
    for (size_t i = 0; i < pub.n; i++) {
        unsigned char b[32];
        nnc_prv_fr_serialize_b32(b, &pub.v[i], NNC_PRV_ENDIAN_BIG);
        if (i) printf(","); /* (snarkjs: no space here) */
        put_hex32(b);
    }
    printf("]\n");
    nnc_prv_fr_vec_clear(&pub);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_CANTCREAT;
}

static nnc_status write_solidity(FILE *f, const void *vk, char *err, size_t errlen)
{
    nnc_status st = nnc_prv_g16_vk_write_solidity(f, vk);
    return st ? nnc_err(err, errlen, st, "cannot write the verifier contract") : NNC_STATUS_OK;
}

/* zkey export verificationkey KEY.zkey VK.json | solidityverifier KEY.zkey
 * VERIFIER.sol: the key's verification key, as JSON or as a contract. */
static int zkey_export_vk(const char *key, const char *out, int solidity)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_zkey z;
    nnc_prv_g16_vk vk;
    nnc_status st = nnc_prv_zkey_read_file(&z, key, 0, err, sizeof err);
    if (st) return g16_fail(st, err);
    st = nnc_prv_g16_vk_from_zkey(&vk, &z);
    nnc_prv_zkey_clear(&z);
    if (st) return g16_fail(st, "cannot build the verification key");
    int rc = EXIT_OK;
    if (solidity) {
        rc = nnc_cli_write_atomic(out, write_solidity, &vk);
    } else if ((st = nnc_prv_g16_vk_write_file(out, &vk, err, sizeof err))) {
        fprintf(stderr, "nncert: error: %s\n", err);
        rc = EXIT_CANTCREAT;
    }
    nnc_prv_g16_vk_clear(&vk);
    return rc;
}

static int cmd_zkey(int argc, char **argv)
{
    if (argc >= 1 && nnc_cli_is_help(argv[argc - 1])) {
        nnc_cli_help(stdout, &nnc_cli_zkey_doc);
        return EXIT_OK;
    }
    if (argc >= 1 && (strcmp(argv[0], "contribute") == 0 || strcmp(argv[0], "beacon") == 0 || strcmp(argv[0], "verify") == 0))
        return nnc_cmd_zkey_ceremony(argc, argv);
    if (argc == 4 && strcmp(argv[0], "export") == 0 && strcmp(argv[1], "soliditycalldata") == 0)
        return zkey_calldata(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[0], "export") == 0 && strcmp(argv[1], "solidityverifier") == 0)
        return zkey_export_vk(argv[2], argv[3], 1);
    if (argc != 4 || strcmp(argv[0], "export") != 0 || strcmp(argv[1], "verificationkey") != 0)
        return nnc_cli_usage_error("zkey", "usage: nncert zkey export (verificationkey KEY.zkey VK.json | "
                                           "solidityverifier KEY.zkey VERIFIER.sol | soliditycalldata PUBLIC.json "
                                           "PROOF.json)");
    return zkey_export_vk(argv[2], argv[3], 0);
}

static const nnc_cli_doc r1cs_doc = {
    "r1cs",
    "usage: nncert r1cs info CIRCUIT.r1cs\n"
    "       nncert wtns check CIRCUIT.r1cs WITNESS.wtns\n",
    "snarkjs's verbs of the same names, on the same files.  r1cs info prints the\n"
    "circuit's curve and its counts of wires, constraints, private and public\n"
    "inputs, labels and outputs (and of linear-combination terms).  wtns check\n"
    "checks every constraint of the circuit on the witness and prints\n"
    "'WITNESS IS CORRECT' (exit 0) or 'WITNESS IS NOT CORRECT' with the first\n"
    "constraint that fails, or why the witness does not fit the circuit (exit 1).\n"
    "Unreadable files exit 66, malformed ones 65.\n",
    NULL, 0, ""};

static int r1cs_usage(const char *cmd, int argc, char **argv, int want, const char *sub, const char *usage)
{
    for (int i = 0; i < argc; i++)
        if (nnc_cli_is_help(argv[i])) {
            nnc_cli_help(stdout, &r1cs_doc);
            return EXIT_OK;
        }
    if (argc != want || strcmp(argv[0], sub) != 0) return nnc_cli_usage_error(cmd, usage);
    return -1;
}

static int cmd_r1cs(int argc, char **argv)
{
    int rc = r1cs_usage("r1cs", argc, argv, 2, "info", "usage: nncert r1cs info CIRCUIT.r1cs");
    if (rc >= 0) return rc;
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_r1cs cs;
    nnc_status st = nnc_prv_r1cs_read_file(&cs, argv[1], err, sizeof err);
    if (st) return g16_fail(st, err);
    printf("curve: bn-128\nwires: %u\nconstraints: %u\nprivate inputs: %u\npublic inputs: %u\nlabels: %llu\n"
           "outputs: %u\nterms: %llu\n",
           cs.n_wires, cs.n_constraints, cs.n_prv_in, cs.n_pub_in, (unsigned long long)cs.n_labels, cs.n_pub_out,
           (unsigned long long)cs.n_terms);
    nnc_prv_r1cs_clear(&cs);
    return EXIT_OK;
}

static int cmd_wtns(int argc, char **argv)
{
    int rc = r1cs_usage("wtns", argc, argv, 3, "check", "usage: nncert wtns check CIRCUIT.r1cs WITNESS.wtns");
    if (rc >= 0) return rc;
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_r1cs cs;
    nnc_prv_fr_vec w;
    nnc_status st = nnc_prv_r1cs_read_file(&cs, argv[1], err, sizeof err);
    if (st) return g16_fail(st, err);
    if ((st = nnc_prv_wtns_read_file(&w, argv[2], err, sizeof err))) {
        nnc_prv_r1cs_clear(&cs);
        return g16_fail(st, err);
    }
    st = nnc_prv_r1cs_check_witness(NULL, &cs, w.v, w.n, err, sizeof err);
    nnc_prv_r1cs_clear(&cs);
    nnc_prv_fr_vec_clear(&w);
    if (st == NNC_STATUS_OK) {
        printf("WITNESS IS CORRECT\n");
        return EXIT_OK;
    }
    if (st != NNC_STATUS_INVALID) return g16_fail(st, err);
    printf("WITNESS IS NOT CORRECT: %s\n", err);
    return 1;
}

/* The command table: one row per command; commands outside this file are
 * declared in cli/cli.h's neighbours, cli/cmd_*.c. */
static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
} commands[] = {
    {"info", cmd_info},
    {"run", cmd_run},
    {"bench", nnc_cmd_bench},
    {"verify", cmd_verify},
    {"bounds", nnc_cmd_bounds},
    {"spec", cmd_spec},
    {"groth16", cmd_groth16},
    {"zkey", cmd_zkey},
    {"r1cs", cmd_r1cs},
    {"wtns", cmd_wtns},
    {"compile", nnc_cmd_compile},
    {"prove", nnc_cmd_prove},
    {"check", nnc_cmd_check},
    {"gate", nnc_cmd_gate},
    {"keygen", nnc_cmd_keygen},
    {"attest", nnc_cmd_attest},
    {"plan", nnc_cmd_plan},
    {"dlrm-run", nnc_cmd_dlrm_run},
    {"dlrm-bounds", nnc_cmd_dlrm_bounds},
};

/* OpenBLAS's pthread build starts its worker threads when it is loaded,
 * and they poll for work (sched_yield) for a while before they sleep: on a
 * 2-core machine a command that runs no threaded BLAS product (a proof, a
 * short verification) loses much of the second core to them in its first
 * tenth of a second.  Its own fork handler, blas_thread_shutdown_, stops
 * them; the next threaded product starts them again.  A build without it
 * (OpenMP, or another BLAS) is left alone. */
static void blas_idle_threads_off(void)
{
    int (*shutdown)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
    if (shutdown) (void)shutdown();
}

int main(int argc, char **argv)
{
    blas_idle_threads_off();
    if (argc < 2) {
        fputs(main_help, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (nnc_cli_is_help(cmd) || strcmp(cmd, "help") == 0) {
        fputs(main_help, stdout);
        return EXIT_OK;
    }
    {
        char ierr[128];
        if (nnc_isa_env_check(ierr, sizeof ierr) != 0) {
            fprintf(stderr, "nncert: %s\n", ierr);
            return EXIT_USAGE;
        }
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        char isa[160];
        nnc_isa_describe(isa, sizeof isa);
        printf("nncert %s\ninstruction set: %s\n", NNC_VERSION_STRING, isa);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0) {
            /* --opt=value is --opt value */
            char **av = malloc(sizeof(char *) * (2 * (size_t)argc + 1));
            if (av == NULL) return nnc_cli_fail(NNC_STATUS_NOMEM, "out of memory");
            int ac = 0;
            for (int k = 2; k < argc; k++) {
                char *eq = argv[k][0] == '-' && argv[k][1] == '-' ? strchr(argv[k], '=') : NULL;
                if (eq && eq > argv[k] + 2) {
                    *eq = 0;
                    av[ac++] = argv[k];
                    av[ac++] = eq + 1;
                } else {
                    av[ac++] = argv[k];
                }
            }
            av[ac] = NULL;
            int rc = nnc_cli_finish_stdout(commands[i].fn(ac, av));
            free(av);
            return rc;
        }
    fprintf(stderr, "nncert: unknown command '%s' (see 'nncert --help')\n", cmd);
    return EXIT_USAGE;
}
