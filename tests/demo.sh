#!/usr/bin/env bash
# make demo: the main job on the shipped default model (models/zoo/mlp.onnx,
# Fashion-MNIST) and the L-inf robustness spec around its sample input;
# needs nothing from ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
N=bin/nncert
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
echo "\$ nncert info models/zoo/mlp.onnx"
$N info models/zoo/mlp.onnx
echo
echo "\$ nncert run models/zoo/mlp.onnx --input models/zoo/sample_input.json"
$N run models/zoo/mlp.onnx --input models/zoo/sample_input.json
echo "(true label of the sample: $(cat models/zoo/sample_label.txt); test accuracy in models/zoo/accuracy.json)"
for eps in 0.005 0.05; do
    echo
    echo "\$ nncert spec linf --model models/zoo/mlp.onnx --input models/zoo/sample_input.json --label 9 --eps $eps --clip 0,1 --output spec.vnnlib"
    $N spec linf --model models/zoo/mlp.onnx --input models/zoo/sample_input.json --label 9 --eps $eps --clip 0,1 --output "$W/spec.vnnlib"
    echo "\$ nncert verify models/zoo/mlp.onnx spec.vnnlib --timeout 10 --samples 20000 --json report.json"
    rc=0
    $N verify models/zoo/mlp.onnx "$W/spec.vnnlib" --timeout 10 --samples 20000 --json "$W/report.json" || rc=$?
    echo "(exit code $rc: 0 holds, 1 violated, 2 unknown; the JSON report has the same figures)"
done
