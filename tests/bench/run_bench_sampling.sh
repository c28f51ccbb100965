#!/usr/bin/env bash
# make bench-sampling: verifier sampling throughput (float64 decisions) next
# to the float32 runtime's batch-1024 throughput, and the samples needed for
# a +-0.001 interval at 99.9% with and without branch and bound's certified
# volume, on the zoo MLP (L-inf eps 0.06 around the sample, clipped to
# [0,1]) and, when ../shared is present, ACAS Xu 2_1 property 2.  The runtime
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
"$BUILD/bench/bench_sampling" models/zoo/mlp.onnx "$W/mlp.vnnlib" 100000 >results/sampling-zoo-mlp.csv
cat results/sampling-zoo-mlp.csv
A=$SHARED/data/verification/acasxu
if [ -d "$A" ]; then
    "$BUILD/bench/bench_sampling" "$A/onnx/ACASXU_run2a_2_1_batch_2000.onnx" "$A/vnnlib/prop_2.vnnlib" 200000 >results/sampling-acasxu-2_1-prop_2.csv
    cat results/sampling-acasxu-2_1-prop_2.csv
fi
{ echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"; echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"; } >results/sampling-machine.txt
