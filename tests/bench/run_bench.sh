#!/usr/bin/env bash
# make bench: batch throughput of nncert's float32 runtime and of
# onnxruntime-node (2 intra-op threads, all graph optimisations) on the zoo
# MLP and CNN at batch 1, 64 and 1024, measured in the same run.
# Writes results/runtime.csv (one record per tool/model/batch) and
# results/runtime_summary.csv (nncert / onnxruntime ratios), and a machine note.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
mkdir -p results
out=results/runtime.csv
echo "tool,version,model,batch,median_s_per_batch,inferences_per_s" >"$out.tmp"
for model in mlp cnn; do
    for batch in 1 64 1024; do
        reps=$(( batch == 1 ? 2001 : (batch == 64 ? 301 : 41) ))
        [ "$model" = cnn ] && reps=$(( reps / 4 + 1 ))
        "$BUILD/bench/bench_runtime" "models/zoo/$model.onnx" "$model" "$batch" "$reps" >>"$out.tmp"
        node tests/peers/ort_bench.js "models/zoo/$model.onnx" "$batch" "$reps" | sed "s/^onnxruntime-node,\([^,]*\),/onnxruntime-node,\1,$model,/" >>"$out.tmp"
    done
done
mv "$out.tmp" "$out"
{ echo "model,batch,nncert_inferences_per_s,onnxruntime_inferences_per_s,ratio"
  awk -F, 'NR>1 { key=$3","$4; if ($1=="nncert") a[key]=$6; else b[key]=$6 }
      END { for (k in a) printf "%s,%s,%s,%.3f\n", k, a[k], b[k], a[k]/b[k] }' "$out" | sort -t, -k1,1 -k2,2n; } >results/runtime_summary.csv
{ echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem/{print $2}') GiB";
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "openblas threads: ${OPENBLAS_NUM_THREADS:-default (all cores)}"; } >results/runtime_machine.txt
cat results/runtime_summary.csv
