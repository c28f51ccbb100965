#!/usr/bin/env bash
# make bench-alpha: alpha-CROWN margin lower bounds (20 optimisation steps per
# objective, as auto_LiRPA's recorded run) against CROWN on the VNN-COMP
# mnist_fc 256x2 network (L-inf eps 0.02 clipped to [0,1], first 10 ERAN MNIST
# test images), next to auto_LiRPA's alpha-CROWN count and time read from
# ../shared/peers/README.md.  Writes results/alpha-mnist.csv and
# results/alpha-mnist-machine.txt.
BENCH=bench-alpha
. "$(dirname "$0")/mnist_bench.bash"
OPENBLAS_NUM_THREADS=1 "$BUILD/bench/bench_alpha" "$NET" "$IMG" 0.02 10 20 >results/alpha-mnist.csv
peer=$(grep -o 'alpha-CROWN (20 iterations) [0-9]*/10 at [0-9.]* ms' "$PEERS" | head -n 1 || true)
{ mnist_bench_machine ", load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "nncert: 1 BLAS thread, float64 with outward error terms, 20 Adam steps per objective (slopes of the final back-substitution only)"
  echo "auto_LiRPA (../shared/peers/README.md, v0.4.0, 1 thread, float32): ${peer:-not recorded}"; } >results/alpha-mnist-machine.txt
cat results/alpha-mnist.csv
awk -F, 'NR>1 { n++; if ($3 > 0) c++; if ($4 > 0) a++; if ($4 > $3) t++; ms += $6 }
         END { printf "nncert: CROWN verifies %d/%d, alpha-CROWN %d/%d (tighter on %d), %.1f ms per image\n", c, n, a, n, t, ms / n }' results/alpha-mnist.csv
echo "auto_LiRPA: ${peer:-not recorded}"
