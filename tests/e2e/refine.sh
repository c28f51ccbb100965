#!/usr/bin/env bash
# End-to-end tests of the bound refinement in `nncert verify` (alpha-CROWN
# slopes, ReLU-split branch and bound with beta-CROWN multipliers):
#  - VNN-COMP instances (../shared) that CROWN with input splitting leaves
#    unknown and the refinement (or the exact leaf decision) proves, checked
#    against the official consensus; forced refinement on ACAS Xu never
#    gives a wrong answer;
#  - the options' bad values.
. "$(dirname "$0")/lib.bash"
V=$SHARED/data/verification

# want_result NAME CONSENSUS WANT MODEL SPEC TIMEOUT [OPTIONS...]: the result
# must be WANT, and never contradict the consensus.  Where WANT is a verdict
# the budget that decides it is a leaf count (--max-leaves), not the clock:
# TIMEOUT is then a generous guard, so the verdict does not depend on the
# machine's speed or load.
want_result() {
    local name=$1 cons=$2 want=$3 model=$4 spec=$5 to=$6
    shift 6
    "$NNCERT" verify "$model" "$spec" --timeout "$to" --samples 500 --json "$TMP/r.json" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$? got
    got=$(grep -o '"result": "[a-z]*"' "$TMP/r.json" 2>/dev/null | cut -d'"' -f4)
    if [ "$rc" -gt 2 ] || [ -z "$got" ]; then fail "$name (exit $rc: $(head -c 200 "$TMP/err"))"; return; fi
    if { [ "$cons" = unsat ] && [ "$got" = violated ]; } || { [ "$cons" = sat ] && [ "$got" = holds ]; }; then
        fail "$name: $got contradicts the consensus ($cons)"; return; fi
    if [ "$want" != any ] && [ "$got" != "$want" ]; then fail "$name: $got, wanted $want"; return; fi
    pass "$name consensus=$cons nncert=$got $(grep -o '"time_s": [0-9.e-]*' "$TMP/r.json")"
}

if [ -d "$V" ]; then
    M=$V/mnist_fc
    A=$V/acasxu
    # 784 inputs: input splitting cannot close this one, ReLU splits do
    want_result mnist_fc-256x2-prop_8_0.03-relusplit unsat holds "$M/onnx/mnist-net_256x2.onnx" "$M/vnnlib/prop_8_0.03.vnnlib" 900 --max-leaves 100
    # the batched ReLU splits (dense chains): unknown at 60 s one sub-problem at a time
    want_result mnist_fc-256x2-prop_10_0.05-batched unsat holds "$M/onnx/mnist-net_256x2.onnx" "$M/vnnlib/prop_10_0.05.vnnlib" 900 --max-leaves 100
    # ERAN 9x200: an input normalisation (Sub, Div) and a ReLU on the output
    E=$V/eran_2021
    want_result eran-relu_9_200-idx_6998-batched unsat holds "$E/nets/mnist_relu_9_200.onnx" "$E/specs/mnist/mnist_spec_idx_6998_eps_0.01500.vnnlib" 900 --max-leaves 100
    # a convolutional ReLU chain (Conv, AveragePool into the Gemm): Anderson's
    # first-layer relaxation holds it at the root (unknown at 300 s with the chord)
    W=$V/verivital_2021
    want_result verivital-avgpool-prop_7_0.04-anderson unsat holds "$W/Convnet_avgpool.onnx" "$W/specs/avgpool_specs/prop_7_0.04.vnnlib" 120 --max-leaves 100
    want_result verivital-avgpool-prop_10_0.04 sat violated "$W/Convnet_avgpool.onnx" "$W/specs/avgpool_specs/prop_10_0.04.vnnlib" 120 --max-leaves 100 --stop-on-counterexample
    # and with a batch of one: the same certificate, never a wrong answer
    want_result mnist_fc-256x2-prop_8_0.03-batch1 unsat holds "$M/onnx/mnist-net_256x2.onnx" "$M/vnnlib/prop_8_0.03.vnnlib" 900 --max-leaves 100 --relu-split-batch 1
    want_result mnist_fc-256x2-prop_1_0.03-relusplit sat violated "$M/onnx/mnist-net_256x2.onnx" "$M/vnnlib/prop_1_0.03.vnnlib" 900 --max-leaves 100 --relu-split on --stop-on-counterexample
    # forced alpha and ReLU splits on ACAS Xu: still right
    want_result acasxu-1_1-prop_3-alpha-relusplit unsat any "$A/onnx/ACASXU_run2a_1_1_batch_2000.onnx" "$A/vnnlib/prop_3.vnnlib" 15 --alpha-iters 8 --relu-split on
    want_result acasxu-2_1-prop_2-alpha-relusplit sat violated "$A/onnx/ACASXU_run2a_2_1_batch_2000.onnx" "$A/vnnlib/prop_2.vnnlib" 900 --max-leaves 1000 --alpha-iters 8 --relu-split on --stop-on-counterexample
    want_result acasxu-1_5-prop_1-alpha unsat holds "$A/onnx/ACASXU_run2a_1_5_batch_2000.onnx" "$A/vnnlib/prop_1.vnnlib" 900 --max-leaves 2000 --alpha-iters 8
    # a margin near zero: relaxed bounds leave it open at any leaf size, the
    # exact leaf decision (activation patterns, LP certificates) proves it
    want_result acasxu-3_3-prop_2-exact unsat holds "$A/onnx/ACASXU_run2a_3_3_batch_2000.onnx" "$A/vnnlib/prop_2.vnnlib" 900 --max-leaves 20000
    # a violated instance with the exact decision on and off: never holds
    want_result acasxu-5_3-prop_2-exact sat violated "$A/onnx/ACASXU_run2a_5_3_batch_2000.onnx" "$A/vnnlib/prop_2.vnnlib" 900 --max-leaves 1000 --stop-on-counterexample
    want_result acasxu-5_3-prop_2-exact-off sat violated "$A/onnx/ACASXU_run2a_5_3_batch_2000.onnx" "$A/vnnlib/prop_2.vnnlib" 900 --max-leaves 200000 --stop-on-counterexample --exact off
else
    skip verify-refine-vnncomp "../shared/data/verification not present"
fi

Z=models/zoo
if [ -f "$Z/mlp.onnx" ]; then
    "$NNCERT" spec linf --model "$Z/mlp.onnx" --input "$Z/sample_input.json" --label "$(cat "$Z/sample_label.txt")" --eps 0.005 \
        --output "$TMP/s.vnnlib" >/dev/null 2>&1
    expect_error verify-alpha-iters-bad 64 "alpha-iters" "$NNCERT" verify "$Z/mlp.onnx" "$TMP/s.vnnlib" --alpha-iters -3
    expect_error verify-alpha-iters-huge 64 "alpha-iters" "$NNCERT" verify "$Z/mlp.onnx" "$TMP/s.vnnlib" --alpha-iters 100001
    expect_error verify-relu-split-bad 64 "relu-split" "$NNCERT" verify "$Z/mlp.onnx" "$TMP/s.vnnlib" --relu-split sometimes
    expect_error verify-exact-bad 64 "exact" "$NNCERT" verify "$Z/mlp.onnx" "$TMP/s.vnnlib" --exact on
    expect_error verify-relu-split-batch-bad 64 "relu-split-batch" "$NNCERT" verify "$Z/mlp.onnx" "$TMP/s.vnnlib" --relu-split-batch -1
    expect_error verify-relu-split-batch-huge 64 "relu-split-batch" "$NNCERT" verify "$Z/mlp.onnx" "$TMP/s.vnnlib" --relu-split-batch 5000
    expect_error verify-relu-split-batch-off 64 "relu-split-batch.*off" "$NNCERT" verify "$Z/mlp.onnx" "$TMP/s.vnnlib" --relu-split-batch 8 --relu-split off
    # holds (exit 0) also with every refinement forced on
    expect_exit verify-relu-split-on-zoo-mlp 0 "$NNCERT" verify "$Z/mlp.onnx" "$TMP/s.vnnlib" --samples 100 --timeout 20 --relu-split on --alpha-iters 4
else
    skip verify-refine-options "models/zoo/mlp.onnx not present"
fi
