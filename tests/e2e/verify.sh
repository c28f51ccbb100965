#!/usr/bin/env bash
# End-to-end tests of `nncert verify` and `nncert spec linf`:
#  - a fixed subset of VNN-COMP instances (../shared) against their official
#    consensus answers: never "holds" on a known violated instance, never
#    "violated" on a known safe one, and every reported counterexample checked
#    by onnxruntime (an independent runtime) against the spec;
#  - spec linf round trip, exit codes, --max-violation, the JSON report, and
#    malformed specs (one-line error with line and column).
. "$(dirname "$0")/lib.bash"
Z=models/zoo
V=$SHARED/data/verification

# expected CONSENSUS MODEL SPEC TIMEOUT NAME
instance() {
    local want=$1 model=$2 spec=$3 to=$4 name=$5
    "$NNCERT" verify "$model" "$spec" --timeout "$to" --samples 2000 --json "$TMP/r.json" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    local got
    got=$(grep -o '"result": "[a-z]*"' "$TMP/r.json" 2>/dev/null | cut -d'"' -f4)
    if [ "$rc" -gt 2 ] || [ -z "$got" ]; then fail "$name (exit $rc: $(head -c 200 "$TMP/err"))"; return; fi
    if [ "$want" = unsat ] && [ "$got" = violated ]; then fail "$name: violated on a known safe instance"; return; fi
    if [ "$want" = sat ] && [ "$got" = holds ]; then fail "$name: holds on a known violated instance"; return; fi
    if [ "$got" = violated ]; then
        # independent check of the counterexample with onnxruntime
        if [ -d tests/peers/node_modules/onnxruntime-node ]; then
            python3 - "$TMP/r.json" "$model" >"$TMP/cex.json" <<'PY' || { fail "$name: bad counterexample in report"; return; }
import json, sys
r = json.load(open(sys.argv[1]))
x = r["counterexample"]["input"]
print(json.dumps({"cex": x}))
PY
            "$BUILD/tools/gen_input" "$model" 1 1 0 0 >"$TMP/shape.json" || { fail "$name (gen_input)"; return; }
            python3 - "$TMP/shape.json" "$TMP/cex.json" >"$TMP/in.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); x = json.load(open(sys.argv[2]))["cex"]
name = next(iter(s["inputs"]))
s["inputs"][name]["data"] = x
print(json.dumps(s))
PY
            node tests/peers/ort_run.js "$model" "$TMP/in.json" "$TMP/ort.json" 2>/dev/null || { fail "$name: onnxruntime failed on the counterexample"; return; }
            if ! "$BUILD/tools/check_cex" "$spec" "$TMP/in.json" "$TMP/ort.json" >"$TMP/cc" 2>&1; then
                fail "$name: counterexample not confirmed by onnxruntime: $(cat "$TMP/cc")"; return; fi
        fi
    fi
    pass "$name consensus=$want nncert=$got $(grep -o '"time_s": [0-9.e-]*' "$TMP/r.json")"
}

if [ -d "$V" ]; then
    A=$V/acasxu
    instance unsat "$A/onnx/ACASXU_run2a_1_1_batch_2000.onnx" "$A/vnnlib/prop_3.vnnlib" 20 acasxu-1_1-prop_3
    instance unsat "$A/onnx/ACASXU_run2a_1_1_batch_2000.onnx" "$A/vnnlib/prop_4.vnnlib" 20 acasxu-1_1-prop_4
    instance sat "$A/onnx/ACASXU_run2a_2_1_batch_2000.onnx" "$A/vnnlib/prop_2.vnnlib" 20 acasxu-2_1-prop_2
    # unsat by the ground truth (acasxu_ground_truth.csv: 9 tool-years unsat,
    # RPM@2021 alone sat); it was marked sat here, which only went unnoticed
    # while nncert left it unknown
    instance unsat "$A/onnx/ACASXU_run2a_3_3_batch_2000.onnx" "$A/vnnlib/prop_2.vnnlib" 20 acasxu-3_3-prop_2
    instance unsat "$A/onnx/ACASXU_run2a_1_1_batch_2000.onnx" "$A/vnnlib/prop_1.vnnlib" 10 acasxu-1_1-prop_1
    M=$V/mnist_fc
    instance unsat "$M/onnx/mnist-net_256x2.onnx" "$M/vnnlib/prop_0_0.03.vnnlib" 10 mnist_fc-256x2-prop_0_0.03
    instance sat "$M/onnx/mnist-net_256x2.onnx" "$M/vnnlib/prop_1_0.03.vnnlib" 10 mnist_fc-256x2-prop_1_0.03
    # the image families beyond dense ReLU nets: ERAN's ReLU and Sigmoid MLPs,
    # VeriVital's conv nets with average and max pooling, CIFAR-10 ResNet
    # (Conv, residual Add); known holds and a known violation (its
    # counterexample, found by the graph-mode gradient attack or sampling,
    # confirmed by onnxruntime); unknown is accepted, a wrong verdict is not
    E=$V/eran_2021
    instance unsat "$E/nets/mnist_relu_9_200.onnx" "$E/specs/mnist/mnist_spec_idx_8098_eps_0.01500.vnnlib" 30 eran-relu_9_200-idx_8098
    instance unsat "$E/nets/ffnnSIGMOID__Point_6x200.onnx" "$E/specs/mnist/mnist_spec_idx_7167_eps_0.01200.vnnlib" 30 eran-sigmoid_6x200-idx_7167
    VV=$V/verivital_2021
    instance sat "$VV/Convnet_avgpool.onnx" "$VV/specs/avgpool_specs/prop_10_0.04.vnnlib" 10 verivital-avgpool-prop_10_0.04
    instance unsat "$VV/Convnet_maxpool.onnx" "$VV/specs/maxpool_specs/prop_0_0.004.vnnlib" 30 verivital-maxpool-prop_0_0.004
    CR=$V/cifar10_resnet
    instance unsat "$CR/onnx/resnet_2b.onnx" "$CR/vnnlib_properties_pgd_filtered/resnet2b_pgd_filtered/prop_12_eps_0.008.vnnlib" 30 cifar10_resnet-2b-prop_12
    # open after CROWN and alpha: the batched ReLU-split search through the
    # residual chain (about 22 s on 2 cores)
    instance unsat "$CR/onnx/resnet_2b.onnx" "$CR/vnnlib_properties_pgd_filtered/resnet2b_pgd_filtered/prop_10_eps_0.008.vnnlib" 90 cifar10_resnet-2b-prop_10
else
    skip verify-vnncomp "../shared/data/verification not present"
fi

# spec linf on the zoo MLP: a tiny eps holds, the written spec parses back
if "$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.002 --clip 0,1 --output "$TMP/s.vnnlib" &&
   grep -q "declare-const X_783 Real" "$TMP/s.vnnlib"; then pass spec-linf-write; else fail spec-linf-write; fi
expect_exit verify-zoo-holds 0 "$NNCERT" verify $Z/mlp.onnx "$TMP/s.vnnlib" --timeout 5 --json "$TMP/h.json"
# a wrong label: every point is misclassified somewhere near -> violated, exit 1
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 0 --eps 0.002 --clip 0,1 --output "$TMP/w.vnnlib"
expect_exit verify-wrong-label-violated 1 "$NNCERT" verify $Z/mlp.onnx "$TMP/w.vnnlib" --timeout 5 --json "$TMP/v.json"
# both reports (holds, and violated with a counterexample) against the
# documented format; a report with a field renamed fails it
check_schema report-schema schema/verify-report.schema.json "$TMP/h.json" "$TMP/v.json"
grep -q '"format": "nncert-verify-report-1"' "$TMP/h.json" && grep -q '"case": 0, "input": \[' "$TMP/v.json" &&
    pass report-format-and-counterexample || fail report-format-and-counterexample
sed 's/"open_fraction"/"open_share"/' "$TMP/h.json" >"$TMP/hbad.json"
/usr/bin/python3 tests/tools/check_schema.py schema/verify-report.schema.json "$TMP/hbad.json" >/dev/null 2>&1
case $? in
1) pass report-schema-rejects-renamed-field ;;
77) skip "report-schema-rejects-renamed-field (no python3-jsonschema)" ;;
*) fail report-schema-rejects-renamed-field ;;
esac
expect_exit verify-max-violation-met 0 "$NNCERT" verify $Z/mlp.onnx "$TMP/s.vnnlib" --timeout 5 --max-violation 0.01
expect_exit verify-max-violation-exceeded 1 "$NNCERT" verify $Z/mlp.onnx "$TMP/w.vnnlib" --timeout 5 --max-violation 0.5
# --device gpu: without CUDA or a device, refused with a one-line reason
# (gpu/check.sh tests the GPU path itself on a machine with one); a model
# that is not a dense chain is refused either way
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    skip "verify-gpu-unavailable (a GPU is present: gpu/check.sh covers --device gpu)"
else
    expect_error verify-gpu-unavailable 69 "^nncert: error: --device gpu: " "$NNCERT" verify $Z/mlp.onnx "$TMP/s.vnnlib" --device gpu
fi
"$NNCERT" spec linf --model $Z/cnn.onnx --input $Z/sample_input.json --label 9 --eps 0.002 --clip 0,1 --output "$TMP/c.vnnlib"
expect_error verify-gpu-not-dense-chain 69 "error: --device gpu: not a dense chain at node .*Conv" "$NNCERT" verify $Z/cnn.onnx "$TMP/c.vnnlib" --device gpu
expect_error verify-bad-confidence 64 "bad value" "$NNCERT" verify $Z/mlp.onnx "$TMP/s.vnnlib" --confidence 1.5
printf '(declare-const X_0 Real)\n(assert (<= X_0 1)\n' >"$TMP/bad.vnnlib"
expect_error verify-unbalanced-spec 65 "line [0-9]+, column [0-9]+" "$NNCERT" verify $Z/mlp.onnx "$TMP/bad.vnnlib"
printf '(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= X_0 1))\n(assert (>= X_0 0))\n(assert (<= Y_0 0))\n' >"$TMP/dims.vnnlib"
expect_error verify-dimension-mismatch 65 "784" "$NNCERT" verify $Z/mlp.onnx "$TMP/dims.vnnlib"
expect_error spec-missing-args 64 "required" "$NNCERT" spec linf --model $Z/mlp.onnx
# epsilon sweep: N rows of CSV and an SVG plot; bounds never decrease in
# certainty order (eps 0 is a single point: exact)
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0 --output "$TMP/p.vnnlib"
# exit status: 1 when a radius is violated, else 2 when one is unknown, else 0
"$NNCERT" verify $Z/mlp.onnx "$TMP/p.vnnlib" --sweep-eps 0:0.05:4 --clip 0,1 --timeout 2 --samples 500 --sweep-out "$TMP/sw" >"$TMP/sw.out"
rc=$?
want=$(awk -F, 'NR > 1 { v += $2 == "violated"; u += $2 == "unknown" } END { print v ? 1 : u ? 2 : 0 }' "$TMP/sw.csv" 2>/dev/null)
if [ "$rc" = "$want" ] && [ "$(wc -l <"$TMP/sw.csv")" -eq 5 ] && grep -q '^0,holds,0,0,' "$TMP/sw.csv" &&
   grep -q '<svg' "$TMP/sw.svg" && grep -q '</svg>' "$TMP/sw.svg"; then
    pass "verify-sweep-eps (exit $rc)"
else fail "verify-sweep-eps (exit $rc, wanted $want) $(cat "$TMP/sw.out" "$TMP/sw.csv" 2>/dev/null | head -5)"; fi
# the default prefix: sweep.csv and sweep.svg in the current folder; a sweep
# of radii that all hold exits 0
mkdir -p "$TMP/cwd"
if (cd "$TMP/cwd" && "$OLDPWD/$NNCERT" verify "$OLDPWD/$Z/mlp.onnx" "$TMP/p.vnnlib" --sweep-eps 0:0.001:2 --clip 0,1 \
        --timeout 2 --samples 200 >/dev/null 2>&1) && [ -s "$TMP/cwd/sweep.csv" ] && [ -s "$TMP/cwd/sweep.svg" ]; then
    pass verify-sweep-default-prefix
else fail "verify-sweep-default-prefix ($(ls "$TMP/cwd"))"; fi
# a sweep's counterexamples are checked against the sweep's box, not the
# spec's: at the radius where a single run of the same box is violated, the
# sweep says violated too (it said unknown, refusing points outside the
# spec's own box)
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.05 --output "$TMP/v05.vnnlib"
single=$("$NNCERT" verify $Z/mlp.onnx "$TMP/v05.vnnlib" --timeout 5 --samples 500 2>/dev/null | awk '/^result:/ {print $2}')
"$NNCERT" verify $Z/mlp.onnx "$TMP/v05.vnnlib" --sweep-eps 0.04:0.05:2 --timeout 5 --samples 500 --sweep-out "$TMP/sv" >/dev/null 2>&1
rc=$?
swept=$(awk -F, '$1 == "0.05" {print $2}' "$TMP/sv.csv" 2>/dev/null)
if [ "$single" = violated ] && [ "$swept" = violated ] && [ "$rc" = 1 ]; then pass verify-sweep-matches-single-run
else fail "verify-sweep-matches-single-run (single run: $single, sweep at 0.05: $swept, exit $rc)"; fi
expect_error verify-sweep-bad 64 "sweep-eps" "$NNCERT" verify $Z/mlp.onnx "$TMP/p.vnnlib" --sweep-eps 0:1
