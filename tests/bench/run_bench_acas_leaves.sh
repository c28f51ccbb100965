#!/usr/bin/env bash
# make bench-acas-leaves: branch-and-bound leaf throughput and time to a
# result of `nncert verify` on ACAS Xu, all measured in this run on the same
# instances: leaf bounds by full CROWN (--symbolic off, the earlier method),
# the symbolic cascade with CROWN's splits (cascade), the symbolic engine's
# own refined bounds and splits (own), and the default portfolio (auto: own
# for half the time, then cascade); see verifier/symfwd_impl.h, verify.c.
#
# Per instance and mode: a fixed leaf budget (--max-leaves, the queue left
# at that point still gets bounded), so the CPU seconds compare equal work;
# leaves per CPU second; the certified safe fraction reached; then the time
# to solve with the official per-instance timeout (or BENCH_ACAS_TIMEOUT).
# Writes results/verify-acas-leaves.csv and results/verify-acas-leaves-machine.txt.
#
# Environment: NNCERT (default bin/nncert), BENCH_DATA (default
# ../shared/data/verification), BENCH_ACAS_LEAVES (leaf budget, default 20000),
# BENCH_ACAS_TIMEOUT (seconds, default 116, the official timeout).
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${BENCH_DATA:-../shared/data/verification}/acasxu
NNCERT=${NNCERT:-bin/nncert}
BUDGET=${BENCH_ACAS_LEAVES:-20000}
TMO=${BENCH_ACAS_TIMEOUT:-116}
if [ ! -d "$DATA" ]; then
    echo "bench-acas-leaves: $DATA not found"
    exit 0
fi
[ -x "$NNCERT" ] || { echo "bench-acas-leaves: $NNCERT not found (run make)" >&2; exit 64; }
command -v python3 >/dev/null 2>&1 || { echo "bench-acas-leaves: python3 is required" >&2; exit 64; }
# hard prop_1 instances (unknown within 30 s with full CROWN before), one prop_2
INSTANCES=${BENCH_ACAS_INSTANCES:-"1_4:prop_1 2_4:prop_1 3_9:prop_1 4_2:prop_2"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p results
out=results/verify-acas-leaves.csv
echo "network,property,mode,leaf_budget,leaves,cpu_s,leaves_per_cpu_s,certified_safe_fraction,result_at_timeout,wall_s_to_result,load_avg_1min" >"$tmp/rows.csv"
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
for inst in $INSTANCES; do
    net=${inst%%:*}; prop=${inst##*:}
    onnx="$DATA/onnx/ACASXU_run2a_${net}_batch_2000.onnx"; spec="$DATA/vnnlib/$prop.vnnlib"
    for mode in off cascade own auto; do
        cpu=; leaves=; safe=; rate=
        if [ "$mode" != auto ]; then
        /usr/bin/time -f "%U %S" -o "$tmp/t" env OPENBLAS_NUM_THREADS=1 "$NNCERT" verify "$onnx" "$spec" --timeout 100000 \
            --max-leaves "$BUDGET" --samples 0 --symbolic "$mode" --json "$tmp/a.json" >/dev/null 2>&1 || true
        cpu=$(tail -n 1 "$tmp/t" | awk '{ printf "%.3f", $1 + $2 }')
        leaves=$(field "$tmp/a.json" 'd["leaves"]["total"]')
        safe=$(field "$tmp/a.json" 'd["certified_safe_fraction"]')
        rate=$(awk -v l="$leaves" -v c="$cpu" 'BEGIN { printf "%.0f", (c > 0 ? l / c : 0) }')
        fi
        t0=$(date +%s%N)
        OPENBLAS_NUM_THREADS=1 "$NNCERT" verify "$onnx" "$spec" --timeout "$TMO" --max-leaves 100000000 --samples 1000 \
            --stop-on-counterexample --symbolic "$mode" --json "$tmp/b.json" >/dev/null 2>&1 || true
        t1=$(date +%s%N)
        res=$(field "$tmp/b.json" 'd["result"]')
        wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
        load=$(cut -d' ' -f1 /proc/loadavg)
        echo "$net,$prop,$mode,$BUDGET,$leaves,$cpu,$rate,$safe,$res,$wall,$load" | tee -a "$tmp/rows.csv"
    done
done
mv "$tmp/rows.csv" "$out"
{
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load average at the end $(cut -d' ' -f1-3 /proc/loadavg) (other jobs share the machine)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "nncert: $NNCERT, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (uncommitted changes)')"
    echo "settings: 1 BLAS thread; leaf budget $BUDGET (--samples 0) for the rate; timeout $TMO s for the time to a result"
    echo "modes: see --symbolic in 'nncert verify --help' (auto: no fixed-budget row, its two attempts restart the count)."
    echo "cpu_s is user+system time of the whole process (less sensitive to the shared machine's load than wall time; load_avg_1min beside each row)."
} >results/verify-acas-leaves-machine.txt
cat "$out"
