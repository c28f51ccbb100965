#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build with the CUDA unit, check that every
# GPU kernel equals the CPU path on the same inputs, and time them.
# Prints the checks' output; exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
make -j"$(nproc)" GPU=1 NVFLAGS="-O2 -std=c++17 -arch=native -Xcompiler -fPIC -I. -DNNC_HAVE_CUDA=1" build/tests/test_gpu
build/tests/test_gpu
# Groth16 prover kernels: GPU MSM (G1, G2) and NTT against the CPU, byte
# for byte, with "time op n gpu_s cpu_s" lines.
make -j"$(nproc)" GPU=1 NVFLAGS="-O2 -std=c++17 -arch=native -Xcompiler -fPIC -I. -DNNC_HAVE_CUDA=1" build/tests/test_gpu_prover
build/tests/test_gpu_prover
