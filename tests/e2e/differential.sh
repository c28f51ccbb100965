#!/usr/bin/env bash
# Differential test: nncert's runtime against onnxruntime-node (an independent
# implementation) on the zoo models and the VNN-COMP networks in ../shared,
# on random inputs, within 1e-5 relative (plus 1e-6 absolute near zero).
. "$(dirname "$0")/lib.bash"
ORT=tests/peers/ort_run.js
if [ ! -d tests/peers/node_modules/onnxruntime-node ] || ! command -v node >/dev/null; then
    skip differential "onnxruntime-node not installed (run tests/setup.sh)"; exit 0
fi
check() { # NAME MODEL BATCH LO HI SEED
    local name=$1 model=$2 batch=$3 lo=$4 hi=$5 seed=$6
    "$BUILD/tools/gen_input" "$model" "$seed" "$batch" "$lo" "$hi" >"$TMP/in.json" || { fail "$name (gen_input)"; return; }
    if ! "$NNCERT" run "$model" --input "$TMP/in.json" --output "$TMP/a.json" 2>"$TMP/err"; then
        fail "$name (nncert: $(cat "$TMP/err"))"; return; fi
    if ! node "$ORT" "$model" "$TMP/in.json" "$TMP/b.json" 2>"$TMP/err"; then
        fail "$name (onnxruntime: $(tail -n 1 "$TMP/err"))"; return; fi
    local r
    r=$("$BUILD/tools/cmp_outputs" "$TMP/a.json" "$TMP/b.json" 1e-5 0)
    if [ $? -eq 0 ]; then pass "$name ${r##*: }: $(echo "$r" | tail -n 1 | cut -d: -f1)"; else fail "$name $r"; fi
}
check zoo-mlp-batch8 models/zoo/mlp.onnx 8 0 1 1
check zoo-mlp-batch100 models/zoo/mlp.onnx 100 0 1 3
check zoo-cnn-batch100 models/zoo/cnn.onnx 100 0 1 4
check zoo-cnn-batch8 models/zoo/cnn.onnx 8 0 1 2
V=$SHARED/data/verification
if [ ! -d "$V" ]; then skip differential-shared "../shared/data/verification not present"; exit 0; fi
for s in 1 2; do
    check "acasxu-1_1-s$s" "$V/acasxu/onnx/ACASXU_run2a_1_1_batch_2000.onnx" 1 -0.5 0.5 $s
    check "acasxu-5_9-s$s" "$V/acasxu/onnx/ACASXU_run2a_5_9_batch_2000.onnx" 1 -0.5 0.5 $s
    for n in 2 4 6; do check "mnist_fc-256x$n-s$s" "$V/mnist_fc/onnx/mnist-net_256x$n.onnx" 1 0 1 $s; done
    check "eran-relu_9_200-s$s" "$V/eran_2021/nets/mnist_relu_9_200.onnx" 1 0 1 $s
    check "eran-sigmoid_6x200-s$s" "$V/eran_2021/nets/ffnnSIGMOID__Point_6x200.onnx" 1 0 1 $s
    check "verivital-maxpool-s$s" "$V/verivital_2021/Convnet_maxpool.onnx" 1 0 1 $s
    check "verivital-avgpool-s$s" "$V/verivital_2021/Convnet_avgpool.onnx" 1 0 1 $s
done
