#!/usr/bin/env bash
# make bench-crown: CROWN margin lower bounds and time per image on the
# VNN-COMP mnist_fc 256x2 network (L-inf eps 0.02, clipped to [0,1], first 10
# ERAN MNIST test images), next to auto_LiRPA's CROWN numbers for the same
# setting as recorded in ../shared/peers/README.md (read from that file, not
# typed here).  Writes results/crown-mnist.csv.
BENCH=bench-crown
. "$(dirname "$0")/mnist_bench.bash"
ours=$(OPENBLAS_NUM_THREADS=1 "$BUILD/bench/bench_crown" "$NET" "$IMG" 0.02 10)
peer_line=$(grep -o 'Lower bounds of the margin (CROWN) per image for 256x2: .*' "$PEERS" | head -n 1 || true)
peer_ms=$(grep -o 'CROWN verifies [0-9]*/10 at [0-9.]* ms per image' "$PEERS" | head -n 1 | grep -o '[0-9.]* ms' | cut -d' ' -f1 || true)
peer_vals=$(echo "${peer_line#*: }" | grep -oE '[-+]?[0-9]+\.[0-9]+' | tr -d '+' | head -n 10)
{
    echo "image,label,nncert_margin_lower,nncert_ms,auto_lirpa_margin_lower,auto_lirpa_ms_mean,nncert_at_least_as_tight"
    paste -d, <(echo "$ours" | tail -n +2) <(echo "$peer_vals") | while IFS=, read -r img label m ms p; do
        tight=$(awk -v a="$m" -v b="$p" 'BEGIN { print (b == "" ? "n/a" : (a + 1e-3 >= b ? "yes" : "no")) }')
        echo "$img,$label,$m,$ms,$p,$peer_ms,$tight"
    done
} >results/crown-mnist.csv
{ mnist_bench_machine
  echo "nncert: 1 BLAS thread, float64 with outward error terms; auto_LiRPA: numbers from ../shared/peers/README.md (v0.4.0, 1 thread, float32)"; } >results/crown-mnist-machine.txt
cat results/crown-mnist.csv
awk -F, 'NR>1 { n++; t += $4; if ($7 == "yes") k++ } END { printf "nncert at least as tight on %d/%d images; median-of-5 time per image, mean over images %.1f ms\n", k, n, t / n }' results/crown-mnist.csv
