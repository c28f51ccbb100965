#!/usr/bin/env bash
# make demo: the main job on the shipped default model (models/zoo/mlp.onnx,
# Fashion-MNIST) and its sample input; needs nothing from ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
N=bin/nncert
echo "\$ nncert info models/zoo/mlp.onnx"
$N info models/zoo/mlp.onnx
echo
echo "\$ nncert run models/zoo/mlp.onnx --input models/zoo/sample_input.json"
$N run models/zoo/mlp.onnx --input models/zoo/sample_input.json
echo "(true label of the sample: $(cat models/zoo/sample_label.txt); test accuracy in models/zoo/accuracy.json)"
