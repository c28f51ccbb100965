/* Benchmark of the proofs of inference (make bench-zk):
 *
 *   bench_zk circuit NAME MODEL PRIVACY PROVE [CALIB.npy]
 *       one CSV row: the circuit of MODEL under PRIVACY (input|weights|both):
 *       constraints, wires, MACs, constraints per MAC, the circuit build
 *       (constraints and witness) time, and when PROVE = 1: the witness
 *       time (a witness-only build, with each constraint's A w and B w, as
 *       nncert prove --key does; checked equal to the circuit's witness),
 *       the Groth16 setup (without a coefficient section), prove (from the
 *       witness-only build's A w and B w) and verify times and the proof
 *       size (proof.json bytes); peak RSS of this process.  PROVE = 0
 *       counts constraints without storing them (models too large here).
 *       Last column: the constraints without knit packing (weights/both;
 *       counted only).  With BENCH_ZK_FILES=DIR, a proved case also writes
 *       DIR/NAME-PRIVACY-{vk,proof,public}.json (for snarkjs).
 *   bench_zk accuracy NAME MODEL CALIB.npy IMAGES.npy LABELS.npy BITS...
 *       one CSV row per BITS: float and quantised top-1 accuracy on the
 *       images, and the share of images where the two argmaxes agree.
 *
 * Each case runs in its own process (the runner script), so the peak RSS is
 * the case's own. */
#include "nncert/model.h"
#include "zk/quant.h"
#include "zk/circuit.h"
#include "nncert/prover.h"
#include "prover/groth16_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static double *read_npy(const char *path, int64_t *n, char *err)
{
    unsigned char *buf;
    size_t len;
    double *d = NULL;
    int rank;
    int64_t dims[NNC_MAX_RANK];
    if (nnc_read_file(path, (size_t)1 << 31, &buf, &len, err, NNC_ERRBUF_SIZE)) return NULL;
    if (nnc_npy_parse(buf, len, &d, &rank, dims, err, NNC_ERRBUF_SIZE) == NNC_STATUS_OK) {
        *n = 1;
        for (int i = 0; i < rank; i++) *n *= dims[i];
    }
    free(buf);
    return d;
}

static int die(const char *what, const char *err)
{
    fprintf(stderr, "bench_zk: %s: %s\n", what, err);
    return 1;
}

static int build_q(nnc_model **m, nnc_qmodel *q, const char *model, const char *calib, int bits, char *err)
{
    if (nnc_mdl_load(m, model, err, NNC_ERRBUF_SIZE)) return -1;
    double *cal = NULL;
    int64_t n = 0;
    if (calib && !(cal = read_npy(calib, &n, err))) return -1;
    nnc_tensor_info ti;
    nnc_mdl_input_info(*m, 0, &ti);
    const double *c[1] = {cal};
    int ns = cal ? (int)(n / ti.numel) : 0;
    nnc_status st = nnc_qmodel_build(q, *m, bits, cal ? c : NULL, ns, err, NNC_ERRBUF_SIZE);
    free(cal);
    return st ? -1 : 0;
}

static int cmd_circuit(int argc, char **argv)
{
    if (argc < 4) return die("usage", "circuit NAME MODEL PRIVACY PROVE [CALIB]");
    const char *name = argv[0], *model = argv[1], *ps = argv[2], *calib = argc > 4 ? argv[4] : NULL;
    int prove = atoi(argv[3]);
    nnc_prv_zk_privacy priv = strcmp(ps, "weights") == 0 ? NNC_PRV_ZK_PRIVATE_WEIGHTS
                            : strcmp(ps, "both") == 0  ? NNC_PRV_ZK_PRIVATE_BOTH
                                                       : NNC_PRV_ZK_PRIVATE_INPUT;
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    nnc_qmodel q;
    if (build_q(&m, &q, model, calib, 8, err)) return die(model, err);
    /* input: the calibration's first sample when given, else mid-range 0.5 */
    const nnc_q_tensor *ti = &q.t[q.inputs[0]];
    int64_t *qin = malloc((size_t)ti->numel * sizeof *qin);
    double *x = malloc((size_t)ti->numel * sizeof *x), *cal = NULL;
    int64_t n = 0;
    if (calib && (cal = read_npy(calib, &n, err)) && n >= ti->numel) memcpy(x, cal, (size_t)ti->numel * sizeof *x);
    else
        for (int64_t i = 0; i < ti->numel; i++) x[i] = 0.5;
    free(cal);
    const double *xi[1] = {x};
    int64_t *qi[1] = {qin};
    if (nnc_qmodel_quantize_inputs(&q, xi, qi, err, sizeof err)) return die("input", err);
    nnc_prv_cb *cb;
    nnc_prv_cb_witness wit = {0};
    double t0, t_wit = NAN;
    if (prove) { /* first, as nncert prove --key KEY: the witness alone, with each constraint's A w and B w */
        t0 = now_s();
        if (nnc_prv_zk_compile(&cb, &q, priv, NNC_PRV_ZK_BUILD_WITNESS, (const int64_t *const *)qi, NULL, err, sizeof err) ||
            nnc_prv_cb_finish_witness(cb, &wit, err, sizeof err))
            return die("witness", err);
        nnc_prv_cb_destroy(cb);
        t_wit = now_s() - t0;
    }
    t0 = now_s();
    if (nnc_prv_zk_compile(&cb, &q, priv, prove ? NNC_PRV_ZK_BUILD_FULL : NNC_PRV_ZK_BUILD_COUNT, (const int64_t *const *)qi, NULL, err,
                           sizeof err))
        return die("compile", err);
    double t_circuit = now_s() - t0;
    uint64_t cons = nnc_prv_cb_n_constraints(cb);
    uint32_t wires = nnc_prv_cb_n_wires(cb);
    int64_t macs = nnc_qmodel_macs(&q);
    double t_setup = NAN, t_prove = NAN, t_verify = NAN;
    long proof_bytes = -1;
    if (prove) {
        nnc_prv_r1cs r;
        nnc_prv_fr_vec w, pub;
        nnc_prv_zkey z;
        nnc_prv_g16_vk vk;
        nnc_prv_g16_proof proof;
        t0 = now_s();
        if (nnc_prv_cb_finish_move(cb, &r, &w, NULL, err, sizeof err)) return die("finish", err);
        t_circuit += now_s() - t0;
        if (wit.w.n != w.n || memcmp(wit.w.v, w.v, w.n * sizeof *w.v) != 0) return die("witness", "the witness-only build differs from the circuit's");
        nnc_prv_fr_vec_clear(&w);
        t0 = now_s();
        /* the key's points (a prover given A w and B w reads no coefficient section) */
        if (nnc_prv_g16_setup_flags(&z, &r, NNC_PRV_G16_SETUP_NO_COEFS, err, sizeof err)) return die("setup", err);
        t_setup = now_s() - t0;
        nnc_prv_r1cs_clear(&r);
        nnc_prv_g16_ab given = {wit.ab, wit.n_constraints};
        t0 = now_s();
        if (nnc_prv_g16_prove_full(&proof, &pub, &z, NULL, &given, &wit.w, 0, NULL, NULL, NULL, NULL, NULL, err, sizeof err))
            return die("prove", err);
        t_prove = now_s() - t0;
        nnc_prv_cb_witness_clear(&wit);
        if (nnc_prv_g16_vk_from_zkey(&vk, &z)) return die("vk", "out of memory");
        int valid = 0;
        t0 = now_s();
        if (nnc_prv_g16_verify(&valid, &vk, &pub, &proof, err, sizeof err) || !valid) return die("verify", "proof does not verify");
        t_verify = now_s() - t0;
        size_t len = 0;
        nnc_prv_g16_proof_serialize_json(NULL, &len, &proof);
        proof_bytes = (long)len;
        const char *dir = getenv("BENCH_ZK_FILES"); /* the runner checks these with snarkjs */
        if (dir && *dir) {
            char path[3][1024];
            snprintf(path[0], sizeof path[0], "%s/%s-%s-vk.json", dir, name, ps);
            snprintf(path[1], sizeof path[1], "%s/%s-%s-proof.json", dir, name, ps);
            snprintf(path[2], sizeof path[2], "%s/%s-%s-public.json", dir, name, ps);
            if (nnc_prv_g16_vk_write_file(path[0], &vk, err, sizeof err) || nnc_prv_g16_proof_write_file(path[1], &proof, err, sizeof err) ||
                nnc_prv_public_write_file(path[2], &pub, err, sizeof err))
                return die("write", err);
        }
        nnc_prv_g16_vk_clear(&vk);
        nnc_prv_zkey_clear(&z);
        nnc_prv_fr_vec_clear(&pub);
    }
    double rss = peak_mb();
    nnc_prv_cb_destroy(cb);
    /* ablation: the same circuit without knit packing (counted only) */
    char unpacked[32] = "";
    if (priv != NNC_PRV_ZK_PRIVATE_INPUT) {
        if (nnc_prv_zk_compile(&cb, &q, (nnc_prv_zk_privacy)(priv | NNC_PRV_ZK_UNPACKED), 1, (const int64_t *const *)qi, NULL, err,
                               sizeof err))
            return die("compile (unpacked)", err);
        snprintf(unpacked, sizeof unpacked, "%llu", (unsigned long long)nnc_prv_cb_n_constraints(cb));
        nnc_prv_cb_destroy(cb);
    }
    printf("%s,%s,%d,%lld,%llu,%u,%.4f,%.3f,%.3f,%.3f,%.3f,%.4f,%ld,%.1f,%s\n", name, ps, q.bits, (long long)macs,
           (unsigned long long)cons, wires, macs ? (double)cons / (double)macs : 0.0, t_circuit, t_wit, t_setup, t_prove, t_verify,
           proof_bytes, rss, unpacked);
    free(qin);
    free(x);
    nnc_qmodel_clear(&q);
    nnc_mdl_destroy(m);
    return 0;
}

static int argmax_d(const double *v, int64_t n)
{
    int b = 0;
    for (int64_t i = 1; i < n; i++)
        if (v[i] > v[b]) b = (int)i;
    return b;
}

static int cmd_accuracy(int argc, char **argv)
{
    if (argc < 6) return die("usage", "accuracy NAME MODEL CALIB IMAGES LABELS BITS...");
    char err[NNC_ERRBUF_SIZE];
    int64_t ni, nl;
    double *img = read_npy(argv[3], &ni, err), *lab = read_npy(argv[4], &nl, err);
    if (!img || !lab) return die("data", err);
    for (int a = 5; a < argc; a++) {
        nnc_model *m;
        nnc_qmodel q;
        if (build_q(&m, &q, argv[1], argv[2], atoi(argv[a]), err)) return die(argv[1], err);
        nnc_runtime *rt;
        if (nnc_rt_create(&rt, m, NNC_PRECISION_F64, 1, err, sizeof err)) return die("runtime", err);
        const nnc_q_tensor *ti = &q.t[q.inputs[0]], *to = &q.t[q.output];
        int64_t n = nl, ok_f = 0, ok_q = 0, agree = 0, skipped = 0;
        double *y = malloc((size_t)to->numel * sizeof *y), *yq = malloc((size_t)to->numel * sizeof *yq);
        int64_t *qin = malloc((size_t)ti->numel * sizeof *qin);
        for (int64_t s = 0; s < n; s++) {
            const double *x = img + s * ti->numel;
            const void *in[1] = {x};
            void *out[1] = {y};
            if (nnc_rt_run(rt, 1, in, out, err, sizeof err)) return die("run", err);
            const double *xi[1] = {x};
            int64_t *qi[1] = {qin}, **vals;
            int lf = argmax_d(y, to->numel), lq = -1;
            if (nnc_qmodel_quantize_inputs(&q, xi, qi, err, sizeof err) == 0 &&
                nnc_qmodel_run(&q, (const int64_t *const *)qi, &vals, err, sizeof err) == 0) {
                for (int64_t k = 0; k < to->numel; k++) yq[k] = (double)vals[q.output][k];
                lq = argmax_d(yq, to->numel);
                nnc_qmodel_free_values(&q, vals);
            } else {
                skipped++; /* a value outside the checked range: counted as wrong */
            }
            ok_f += lf == (int)lab[s];
            ok_q += lq == (int)lab[s];
            agree += lf == lq;
        }
        printf("%s,%d,%lld,%.4f,%.4f,%.4f,%lld\n", argv[0], q.bits, (long long)n, (double)ok_f / (double)n, (double)ok_q / (double)n,
               (double)agree / (double)n, (long long)skipped);
        free(y);
        free(yq);
        free(qin);
        nnc_rt_destroy(rt);
        nnc_qmodel_clear(&q);
        nnc_mdl_destroy(m);
    }
    free(img);
    free(lab);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "circuit") == 0) return cmd_circuit(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "accuracy") == 0) return cmd_accuracy(argc - 2, argv + 2);
    fprintf(stderr, "usage: bench_zk circuit|accuracy ...\n");
    return 64;
}
