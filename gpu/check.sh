#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build with the CUDA unit, check that every
# GPU kernel equals the CPU path on the same inputs, and time them.
# Prints the checks' output; exits non-zero on any mismatch.  Timings of the
# verifier's sampling go to results/gpu-sampling.csv (machine in
# results/gpu-machine.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
make -j"$(nproc)" GPU=1 NVFLAGS="-O2 -std=c++17 -arch=native -Xcompiler -fPIC -I. -DNNC_HAVE_CUDA=1" build/tests/test_gpu
build/tests/test_gpu
# Groth16 prover kernels: GPU MSM (G1, G2) and NTT against the CPU, byte
# for byte, with "time op n gpu_s cpu_s" lines.
make -j"$(nproc)" GPU=1 NVFLAGS="-O2 -std=c++17 -arch=native -Xcompiler -fPIC -I. -DNNC_HAVE_CUDA=1" build/tests/test_gpu_prover
build/tests/test_gpu_prover
# Embedding bags: the warp-per-bag kernel against the CPU kernel, bit for bit,
# with "time embbag dim D lookups gpu_kernel_s cpu_s" lines.
make -j"$(nproc)" GPU=1 NVFLAGS="-O2 -std=c++17 -arch=native -Xcompiler -fPIC -I. -DNNC_HAVE_CUDA=1" build/tests/test_gpu_embbag
build/tests/test_gpu_embbag
# DLRM plans executed with one GPU per device and NCCL (gpu/dlrm_nccl.cu):
# pooled embeddings bit-identical to the simulated run, counters equal,
# every plan kind, D = 1 .. min(GPUs, 4).
make -j"$(nproc)" GPU=1 NVFLAGS="-O2 -std=c++17 -arch=native -Xcompiler -fPIC -I. -DNNC_HAVE_CUDA=1" build/tests/test_gpu_dlrm
build/tests/test_gpu_dlrm
# Verifier (gpu/verify.cu): the device draws the CPU's Philox points bit for
# bit, decides the CPU's float64 verdicts, bounds boxes as the CPU does, and
# nncert verify gives the same report on both for several specs and seeds;
# then CPU vs GPU sampling throughput.
make -j"$(nproc)" GPU=1 NVFLAGS="-O2 -std=c++17 -arch=native -Xcompiler -fPIC -I. -DNNC_HAVE_CUDA=1" build/tests/test_gpu_verify bin/nncert
mkdir -p results
NNC_GPU_CSV=results/gpu-sampling.csv build/tests/test_gpu_verify
{
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >results/gpu-machine.txt
cat results/gpu-sampling.csv
# the CLI: same JSON report from --device cpu and --device gpu (time_s aside)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
bin/nncert spec linf --model models/zoo/mlp.onnx --input models/zoo/sample_input.json --label 9 --eps 0.08 --clip 0,1 --output "$W/s.vnnlib"
for dev in cpu gpu; do
    bin/nncert verify models/zoo/mlp.onnx "$W/s.vnnlib" --ibp --max-leaves 32 --timeout 600 --samples 200000 --seed 7 \
        --device "$dev" --json "$W/$dev.json" >/dev/null || [ $? -le 2 ]
    grep -v '"time_s"' "$W/$dev.json" >"$W/$dev.cmp"
done
if cmp -s "$W/cpu.cmp" "$W/gpu.cmp"; then
    echo "nncert verify --device gpu: same report as --device cpu"
else
    echo "FAIL: nncert verify reports differ between --device cpu and --device gpu"
    diff "$W/cpu.cmp" "$W/gpu.cmp" || true
    exit 1
fi
# Batched beta-CROWN passes (gpu/bab.cu) against the CPU's (verifier/babdense.c):
# sound bounds to 1e-9, estimates and coefficients to 1e-3, optimised bounds
# sound; then "time bab_pass ITEMS STEPS gpu_s cpu_s".
make -j"$(nproc)" GPU=1 NVFLAGS="-O2 -std=c++17 -arch=native -Xcompiler -fPIC -I. -DNNC_HAVE_CUDA=1" build/tests/test_gpu_bab
build/tests/test_gpu_bab
# verify's ReLU-split search with its passes on the device: the zoo MLP at
# eps 0.015 holds on the CPU after about 2e4 sub-problems; the same result
# with --device gpu (the trees may differ: bounds agree to rounding only)
bin/nncert spec linf --model models/zoo/mlp.onnx --input models/zoo/sample_input.json --label 9 --eps 0.015 --clip 0,1 --output "$W/b.vnnlib"
for dev in cpu gpu; do
    bin/nncert verify models/zoo/mlp.onnx "$W/b.vnnlib" --timeout 60 --device "$dev" --json "$W/b$dev.json" >/dev/null || [ $? -le 2 ]
    echo "verify relu splits --device $dev: $(grep -h '"result"\|relu_split_nodes\|time_s' "$W/b$dev.json" | tr -d '\n ')"
done
if [ "$(grep '"result"' "$W/bcpu.json")" != "$(grep '"result"' "$W/bgpu.json")" ]; then
    echo "FAIL: nncert verify's ReLU-split search gives another result with --device gpu"
    exit 1
fi
# Proofs with --device gpu (the MSMs and NTTs on the CUDA kernels, which
# test_gpu_prover checks bit for bit): the zoo MLP proved on each device
# with one key; both proofs verify; then groth16 prove on the kept key and
# witness; "prove N s" lines give the times.
bin/nncert prove models/zoo/mlp.onnx --input models/zoo/sample_input.json -o "$W/pc.json" --public "$W/pubc.json" \
    --zkey-out "$W/k.zkey" --vk "$W/vk.json" --wtns "$W/w.wtns" --device cpu
bin/nncert prove models/zoo/mlp.onnx --input models/zoo/sample_input.json -o "$W/pg.json" --public "$W/pubg.json" \
    --key "$W/k.zkey" --device gpu
bin/nncert groth16 verify "$W/vk.json" "$W/pubc.json" "$W/pc.json"
bin/nncert groth16 verify "$W/vk.json" "$W/pubg.json" "$W/pg.json"
cmp "$W/pubc.json" "$W/pubg.json"
for dev in cpu gpu; do
    t0=$(date +%s%N)
    bin/nncert groth16 prove "$W/k.zkey" "$W/w.wtns" "$W/g$dev.json" "$W/gpub$dev.json" --device "$dev"
    echo "time groth16_prove $dev $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    bin/nncert groth16 verify "$W/vk.json" "$W/gpub$dev.json" "$W/g$dev.json"
done
# GNN aggregation: TC-GNN tiles on tensor cores (tf32, stated tolerance), the
# CUDA-core CSR kernel and the NCCL multi-GPU path (bit for bit) against the
# CPU SpMM, with "time spmm GRAPH F MODE gpu_ms cpu_ms" lines.
make -j"$(nproc)" GPU=1 NVFLAGS="-O2 -std=c++17 -arch=native -Xcompiler -fPIC -I. -DNNC_HAVE_CUDA=1" build/tests/test_gpu_spmm
build/tests/test_gpu_spmm
