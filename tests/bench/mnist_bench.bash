# Sourced by run_bench_crown.sh and run_bench_alpha.sh (set BENCH to the make
# target's name first): from the repository root, the VNN-COMP mnist_fc 256x2
# network (NET), the first 100 ERAN MNIST test images (IMG) and the peers'
# recorded figures (PEERS) in ../shared.  Exits 0 with a note when ../shared
# lacks them, so a checkout without the data skips the benchmark.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
NET=$SHARED/data/verification/mnist_fc/onnx/mnist-net_256x2.onnx
IMG=$SHARED/data/verification/mnist_images/mnist_test_first100.csv
PEERS=$SHARED/peers/README.md
if [ ! -f "$NET" ] || [ ! -f "$IMG" ]; then echo "$BENCH: ../shared data not found"; exit 0; fi
mkdir -p results

# The machine and date lines of a results/*-machine.txt; $1 is appended to
# the machine line.
mnist_bench_machine() {
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')${1:-}"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
