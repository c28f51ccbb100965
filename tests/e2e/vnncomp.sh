#!/usr/bin/env bash
# End-to-end tests of the VNN-COMP interface (vnncomp/*.sh, nncert verify
# --vnncomp-result) with the competition's conventions:
#  - the argument lists (v1 BENCHMARK ONNX VNNLIB [RESULTS_FILE TIMEOUT]);
#  - the results file: sat, unsat, unknown or timeout on its first line,
#    never contradicting the consensus; for sat the counterexample as
#    ((X_0 v) ... (Y_0 v)), whose X lies in the spec's box and whose Y is what
#    onnxruntime (an independent runtime) computes at X, in the unsafe set;
#  - the whole run within TIMEOUT (loading included), on the shipped model
#    and on ACAS Xu and mnist_fc instances (../shared);
#  - .onnx.gz and .vnnlib.gz through run_instance.sh, refused by name by
#    nncert itself.
. "$(dirname "$0")/lib.bash"
Z=models/zoo
V=$SHARED/data/verification
RUN=vnncomp/run_instance.sh
PREP=vnncomp/prepare_instance.sh
export NNCERT
NNCERT=$(cd "$(dirname "$NNCERT")" && pwd)/$(basename "$NNCERT")

# the counterexample of a sat results file, checked independently
check_sat_file() { # NAME MODEL SPEC FILE
    local name=$1 model=$2 spec=$3 f=$4
    if ! head -1 "$f" | grep -qx sat || ! sed -n 2p "$f" | grep -q '^((X_0 ' || ! tail -1 "$f" | grep -q '^(Y_[0-9]* [^ ]*))$'; then
        fail "$name: malformed sat file: $(head -c 200 "$f")"; return 1; fi
    "$BUILD/tools/gen_input" "$model" 1 1 0 0 >"$TMP/shape.json" || { fail "$name (gen_input)"; return 1; }
    python3 - "$f" "$TMP/shape.json" >"$TMP/in.json" 2>"$TMP/perr" <<'PY' || { fail "$name: $(cat "$TMP/perr")"; return 1; }
import json, re, sys
text = open(sys.argv[1]).read()
xs = {int(i): float(v) for i, v in re.findall(r"\(X_(\d+) ([^ )]+)\)", text)}
assert sorted(xs) == list(range(len(xs))), "X indices not 0..n-1"
s = json.load(open(sys.argv[2]))
name = next(iter(s["inputs"]))
s["inputs"][name]["data"] = [xs[i] for i in range(len(xs))]
print(json.dumps(s))
PY
    if [ -d tests/peers/node_modules/onnxruntime-node ]; then
        node tests/peers/ort_run.js "$model" "$TMP/in.json" "$TMP/ort.json" 2>/dev/null || { fail "$name: onnxruntime failed on the counterexample"; return 1; }
        if ! "$BUILD/tools/check_cex" "$spec" "$TMP/in.json" "$TMP/ort.json" >"$TMP/cc" 2>&1; then
            fail "$name: counterexample not confirmed by onnxruntime: $(cat "$TMP/cc")"; return 1; fi
        # the file's Y is the model's output at X
        if ! python3 - "$f" "$TMP/ort.json" 2>"$TMP/perr" <<'PY'; then fail "$name: Y differs from onnxruntime's: $(cat "$TMP/perr")"; return 1; fi
import json, re, sys
ys = [float(v) for _, v in sorted((int(i), v) for i, v in re.findall(r"\(Y_(\d+) ([^ )]+)\)", open(sys.argv[1]).read()))]
o = json.load(open(sys.argv[2]))
out = next(iter(o["outputs"].values()))["data"] if "outputs" in o else next(iter(o.values()))
out = [float(v) for v in (out if isinstance(out, list) else out["data"])]
assert len(out) == len(ys), (len(out), len(ys))
for a, b in zip(ys, out):
    assert abs(a - b) <= 1e-4 * (1 + abs(b)), (a, b)
PY
    fi
    return 0
}

# vnn WANT MODEL SPEC TIMEOUT NAME [PLAIN_MODEL PLAIN_SPEC]: prepare_instance
# + run_instance (the counterexample checked on the plain files: for .gz)
vnn() {
    local want=$1 model=$2 spec=$3 to=$4 name=$5 cm=${6:-$2} cs=${7:-$3}
    rm -f "$TMP/res"
    if ! "$PREP" v1 test "$model" "$spec" >"$TMP/out" 2>"$TMP/err"; then fail "$name: prepare_instance.sh: $(head -c 200 "$TMP/err")"; return; fi
    local t0 t1
    t0=$(date +%s.%N)
    "$RUN" v1 test "$model" "$spec" "$TMP/res" "$to" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    t1=$(date +%s.%N)
    local el got
    el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    got=$(head -1 "$TMP/res" 2>/dev/null)
    if [ $rc -ne 0 ] || [ -z "$got" ]; then fail "$name (exit $rc: $(head -c 200 "$TMP/err"))"; return; fi
    case "$got" in sat|unsat|unknown|timeout) ;; *) fail "$name: result '$got'"; return ;; esac
    if awk -v e="$el" -v t="$to" 'BEGIN { exit !(e > t + 1.5) }'; then fail "$name: took $el s with a timeout of $to s"; return; fi
    if [ "$want" = unsat ] && [ "$got" = sat ]; then fail "$name: sat on a known safe instance"; return; fi
    if [ "$want" = sat ] && [ "$got" = unsat ]; then fail "$name: unsat on a known violated instance"; return; fi
    if [ "$got" = sat ]; then check_sat_file "$name" "$cm" "$cs" "$TMP/res" || return; fi
    if [ "$got" != sat ] && [ "$(wc -l <"$TMP/res")" -ne 1 ]; then fail "$name: $got with more than one line"; return; fi
    pass "$name consensus=$want got=$got ${el}s"
}

# the shipped model: eps 0.005 holds, 0.05 violated (as make demo shows)
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.005 --clip 0,1 --output "$TMP/s005.vnnlib"
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.05 --clip 0,1 --output "$TMP/s05.vnnlib"
vnn unsat $Z/mlp.onnx "$TMP/s005.vnnlib" 10 vnncomp-zoo-eps0.005
vnn sat $Z/mlp.onnx "$TMP/s05.vnnlib" 10 vnncomp-zoo-eps0.05
# compressed files: decompressed by run_instance.sh, refused by name by nncert
gzip -c $Z/mlp.onnx >"$TMP/m.onnx.gz"
gzip -c "$TMP/s05.vnnlib" >"$TMP/s05.vnnlib.gz"
vnn sat "$TMP/m.onnx.gz" "$TMP/s05.vnnlib.gz" 10 vnncomp-gz $Z/mlp.onnx "$TMP/s05.vnnlib"
expect_error vnncomp-gz-model-refused 65 "gzip-compressed.*decompress" "$NNCERT" verify "$TMP/m.onnx.gz" "$TMP/s05.vnnlib"
expect_error vnncomp-gz-spec-refused 65 "gzip-compressed.*decompress" "$NNCERT" verify $Z/mlp.onnx "$TMP/s05.vnnlib.gz"
# the competition's argument conventions
expect_exit vnncomp-run-bad-version 1 "$RUN" v2 test $Z/mlp.onnx "$TMP/s05.vnnlib" "$TMP/res" 10
expect_exit vnncomp-run-missing-args 1 "$RUN" v1 test $Z/mlp.onnx "$TMP/s05.vnnlib"
expect_exit vnncomp-prepare-missing-file 1 "$PREP" v1 test "$TMP/none.onnx" "$TMP/s05.vnnlib"
expect_error vnncomp-result-with-sweep 64 "vnncomp-result.*sweep-eps" "$NNCERT" verify $Z/mlp.onnx "$TMP/s05.vnnlib" --vnncomp-result "$TMP/res" --sweep-eps 0:0.1:3
expect_error vnncomp-result-bad-path 73 "nonexistent" "$NNCERT" verify $Z/mlp.onnx "$TMP/s05.vnnlib" --vnncomp-result /nonexistent/res --timeout 1

if [ -d "$V" ]; then
    A=$V/acasxu M=$V/mnist_fc
    vnn unsat "$A/onnx/ACASXU_run2a_1_1_batch_2000.onnx" "$A/vnnlib/prop_3.vnnlib" 20 vnncomp-acasxu-1_1-prop_3
    vnn sat "$A/onnx/ACASXU_run2a_2_1_batch_2000.onnx" "$A/vnnlib/prop_2.vnnlib" 20 vnncomp-acasxu-2_1-prop_2
    vnn unsat "$M/onnx/mnist-net_256x2.onnx" "$M/vnnlib/prop_0_0.03.vnnlib" 20 vnncomp-mnist_fc-256x2-prop_0_0.03
    vnn sat "$M/onnx/mnist-net_256x2.onnx" "$M/vnnlib/prop_1_0.03.vnnlib" 20 vnncomp-mnist_fc-256x2-prop_1_0.03
    # a hard one (unknown at 60 s): the whole run ends within a short TIMEOUT
    vnn unsat "$M/onnx/mnist-net_256x6.onnx" "$M/vnnlib/prop_5_0.05.vnnlib" 6 vnncomp-mnist_fc-256x6-timeout-within-6s
else
    skip "vnncomp-shared-instances (no $V)"
fi
