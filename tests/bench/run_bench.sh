#!/usr/bin/env bash
# make bench: the float32 runtime (nncert bench, 2 threads) beside
# onnxruntime-node (tests/peers/ort_bench.js: CPU, 2 intra-op threads, all
# graph optimisations) on the zoo MLP and CNN and, when ../shared is present,
# the VNN-COMP cifar10_resnet resnet_2b/resnet_4b and verivital conv nets, at
# batch 1, 64 and 1024.  The VNN-COMP files declare a fixed batch of 1:
# onnxruntime runs a copy re-exported with a symbolic batch
# (tests/tools/dynamic_batch.py); nncert runs the file itself.
#
# Every row is measured on nncert's instruction-set path for this CPU and,
# on an AVX-512 machine, again on the AVX2 path (NNC_ISA=avx2, and
# OPENBLAS_CORETYPE=Haswell for OpenBLAS's kernels); onnxruntime always runs
# its own dispatch.  The two tools alternate, BENCH_ROUNDS times (default 3),
# each run timing batches for about BENCH_SECONDS (default 1) after a
# warm-up; a tool's figure is the median over the rounds of its median
# per-batch latency, inferences/s = batch / that.
#
# Writes results/runtime.csv (every run), results/runtime_summary.csv
# (model,batch,isa,nncert,onnxruntime,ratio) and results/runtime_machine.txt;
# with BENCH_TAG=T, results/runtime-T.csv, runtime-T_summary.csv and
# runtime-T_machine.txt instead (e.g. avx2-cpu for a machine without
# AVX-512, so another machine's figures stay beside it).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/machine.bash
NNCERT=${NNCERT:-bin/nncert}
SHARED=${SHARED:-../shared}
ROUNDS=${BENCH_ROUNDS:-3}
TAG=${BENCH_TAG:+-$BENCH_TAG}
case "$TAG" in *[!A-Za-z0-9_.-]*) echo "bench: BENCH_TAG must be letters, digits, '.', '_' or '-'" >&2; exit 64 ;; esac
SECS=${BENCH_SECONDS:-1}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p results

# name=nncert_file=ort_file
models=("mlp=models/zoo/mlp.onnx=models/zoo/mlp.onnx" "cnn=models/zoo/cnn.onnx=models/zoo/cnn.onnx")
V=$SHARED/data/verification
for f in cifar10_resnet/onnx/resnet_2b cifar10_resnet/onnx/resnet_4b verivital_2021/Convnet_avgpool verivital_2021/Convnet_maxpool; do
    [ -f "$V/$f.onnx" ] || continue
    name=$(basename "$f")
    "$PY" tests/tools/dynamic_batch.py "$V/$f.onnx" "$tmp/$name.onnx"
    models+=("$name=$V/$f.onnx=$tmp/$name.onnx")
done
[ ${#models[@]} -gt 2 ] || echo "bench: $V not present: zoo models only"

cpu_isa=$(NNC_ISA= "$NNCERT" version | sed -n 's/^instruction set: [a-z0-9]* (cpu \([a-z0-9]*\).*/\1/p')
isas=("$cpu_isa")
[ "$cpu_isa" = avx512 ] && isas+=(avx2)

out=results/runtime$TAG.csv
echo "tool,version,isa,model,batch,round,median_s_per_batch,inferences_per_s" >"$out.tmp"
for isa in "${isas[@]}"; do
    envs=(NNC_ISA="$isa")
    [ "$isa" = avx2 ] && envs+=(OPENBLAS_CORETYPE=Haswell)
    for entry in "${models[@]}"; do
        IFS== read -r name nfile ofile <<<"$entry"
        for batch in 1 64 1024; do
            for r in $(seq 1 "$ROUNDS"); do
                env "${envs[@]}" "$NNCERT" bench "$nfile" --batch-size "$batch" --threads 2 --seconds "$SECS" \
                    --json "$tmp/n.json" >/dev/null
                read -r ver med < <("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d["latency_s"]["median"])' \
                    "$tmp/n.json" "$("$NNCERT" version | head -n 1 | awk '{print $2}')")
                echo "nncert,$ver,$isa,$name,$batch,$r,$med,$(awk -v b="$batch" -v t="$med" 'BEGIN{printf "%.1f", b/t}')" >>"$out.tmp"
                # as many onnxruntime runs as fill about the same time
                reps=$(awk -v s="$SECS" -v t="$med" 'BEGIN{n=int(s/t); if(n<21)n=21; if(n>5001)n=5001; print n}')
                node tests/peers/ort_bench.js "$ofile" "$batch" "$reps" |
                    awk -F, -v isa="$isa" -v m="$name" -v r="$r" '{printf "%s,%s,%s,%s,%s,%s,%s,%s\n", $1, $2, isa, m, $3, r, $4, $5}' >>"$out.tmp"
            done
        done
    done
done
mv "$out.tmp" "$out"
"$PY" - "$out" "results/runtime${TAG}_summary.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = {}
for r in rows:
    med.setdefault((r["model"], int(r["batch"]), r["isa"], r["tool"]), []).append(float(r["median_s_per_batch"]))
with open(sys.argv[2], "w") as f:
    f.write("model,batch,isa,nncert_inferences_per_s,onnxruntime_inferences_per_s,ratio\n")
    seen = []
    for r in rows:
        k = (r["model"], int(r["batch"]), r["isa"])
        if k in seen:
            continue
        seen.append(k)
        n = k[1] / statistics.median(med[k + ("nncert",)])
        o = k[1] / statistics.median(med[k + ("onnxruntime-node",)])
        f.write(f"{k[0]},{k[1]},{k[2]},{n:.1f},{o:.1f},{n / o:.3f}\n")
PY
{
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem/{print $2}') GiB"
    echo "cpu flags that matter: $(nnc_bench_cpu_flags)"
    echo "nncert: $("$NNCERT" version | head -n 1); paths: $(echo "${isas[*]}") ($("$NNCERT" version | sed -n 's/^instruction set: //p'))"
    echo "avx2 rows: NNC_ISA=avx2 OPENBLAS_CORETYPE=Haswell (nncert only; onnxruntime keeps its own dispatch)"
    echo "threads: nncert bench --threads 2; onnxruntime intraOpNumThreads=2"
    echo "rounds: $ROUNDS, alternating the tools; about ${SECS} s of timed batches per run; figure = median over rounds of the per-run median latency"
    echo "static-batch VNN-COMP files: onnxruntime runs a copy from tests/tools/dynamic_batch.py"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- . ':!results' 2>/dev/null || echo ' (uncommitted changes)')"
    echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"results/runtime${TAG}_machine.txt"
cat "results/runtime${TAG}_summary.csv"
