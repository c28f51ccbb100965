#!/usr/bin/env bash
# make bench-sampling: verifier sampling throughput (float64 decisions) next
# to the float32 runtime's batch-1024 throughput, and the samples needed for
# a +-0.001 interval at 99.9% with and without branch and bound's certified
# volume, on the zoo MLP (L-inf eps 0.06 around the sample, clipped to
# [0,1]) and, when ../shared is present, ACAS Xu 2_1 property 2, the
# cifar10_resnet resnet_2b (property 0) and the VeriVital average-pool conv
# net (property 7, eps 0.04, which branch and bound leaves open).  The runtime
# and the sampling-only verifier run alternately five times; medians are
# reported.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NNCERT=${NNCERT:-bin/nncert}
SHARED=${SHARED:-../shared}
# idle OpenMP threads sleep instead of spinning: on a shared machine a
# spinning waiter steals the core its partner needs (both measurements alike)
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
mkdir -p results
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$NNCERT" spec linf --model models/zoo/mlp.onnx --input models/zoo/sample_input.json --label 9 --eps 0.06 --clip 0,1 --output "$W/mlp.vnnlib"
# sample counts that keep each sampling stage above a few seconds: its rate
# is taken between the verifier's progress reports (every 0.5 s)
"$BUILD/bench/bench_sampling" models/zoo/mlp.onnx "$W/mlp.vnnlib" 1000000 >results/sampling-zoo-mlp.csv
cat results/sampling-zoo-mlp.csv
A=$SHARED/data/verification/acasxu
if [ -d "$A" ]; then
    "$BUILD/bench/bench_sampling" "$A/onnx/ACASXU_run2a_2_1_batch_2000.onnx" "$A/vnnlib/prop_2.vnnlib" 4000000 >results/sampling-acasxu-2_1-prop_2.csv
    cat results/sampling-acasxu-2_1-prop_2.csv
fi
# conv nets (the runtime's general-graph path; decisions in float64, as the
# float32 screen's error bound covers dense ReLU chains only)
R=$SHARED/data/verification/cifar10_resnet
if [ -d "$R" ]; then
    "$BUILD/bench/bench_sampling" "$R/onnx/resnet_2b.onnx" "$R/vnnlib_properties_pgd_filtered/resnet2b_pgd_filtered/prop_0_eps_0.008.vnnlib" 50000 >results/sampling-resnet_2b-prop_0.csv
    cat results/sampling-resnet_2b-prop_0.csv
fi
VV=$SHARED/data/verification/verivital_2021
if [ -d "$VV" ]; then
    "$BUILD/bench/bench_sampling" "$VV/Convnet_avgpool.onnx" "$VV/specs/avgpool_specs/prop_7_0.04.vnnlib" 100000 >results/sampling-verivital-avgpool-prop_7.csv
    cat results/sampling-verivital-avgpool-prop_7.csv
fi
{ echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"; echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"; } >results/sampling-machine.txt
