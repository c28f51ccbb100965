#!/usr/bin/env bash
# make bench-dlrm: results/dlrm.csv
#  - embedding-bag lookups per second, nncert's CPU kernel against
#    torch.nn.EmbeddingBag (CPU, same table and ids, same thread count: 1 and
#    nproc), dim 16/64/128, Zipf 1.05 ids over 200000 rows, 4096 bags of 32;
#    three alternating rounds, each the median of 15 calls;
#  - the planner on the zoo DLRM: predicted and measured (executed with
#    simulated devices) maximum per-device time of the chosen plan against
#    the table-wise and row-wise baselines, D = 2, 4, 8, on synthetic Zipf
#    traces (a = 1.05, 1.2) and the real Criteo rows in ../shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NNCERT=${NNCERT:-bin/nncert}
SHARED=${SHARED:-../shared}
PY=/usr/bin/python3
mkdir -p results
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
T=$(nproc)
OUT=results/dlrm.csv
echo "section,impl,dim,rows,bags,len,zipf,threads,lookups_per_s,round" >"$W/eb.csv"
# like with like: 1 thread against torch.set_num_threads(1), and all $T
# threads against torch.set_num_threads($T)
THREADS=1
[ "$T" -gt 1 ] && THREADS="1 $T"
for round in 1 2 3; do
    for th in $THREADS; do
        for d in 16 64 128; do
            "$BUILD/bench/bench_embbag" $d 200000 4096 32 1.05 "$th" 15 "$W/ids.bin" "$W/w.bin" | cut -d, -f1-8 | sed "s/^/embbag,/; s/$/,$round/" >>"$W/eb.csv"
            "$PY" tests/bench/embbag_torch.py $d 200000 4096 32 1.05 "$th" 15 "$W/ids.bin" "$W/w.bin" | cut -d, -f1-8 | sed "s/^/embbag,/; s/$/,$round/" >>"$W/eb.csv"
        done
    done
done
echo "section,trace,devices,plan,predicted_max_us,measured_max_us,counters_equal,vs_better_baseline" >"$W/plan.csv"
"$PY" models/zoo/dlrm.py trace --samples 8192 --zipf 1.05 --seed 7 --out "$W/zipf1.05.txt"
"$PY" models/zoo/dlrm.py trace --samples 8192 --zipf 1.2 --seed 8 --out "$W/zipf1.2.txt"
traces="zipf1.05 zipf1.2"
if [ -f "$SHARED/data/graphs/dlrm/criteo_sample.txt" ]; then
    "$PY" models/zoo/dlrm.py criteo "$SHARED/data/graphs/dlrm/criteo_sample.txt" --out "$W/criteo.txt"
    traces="$traces criteo"
fi
for tr in $traces; do
    for D in 2 4 8; do
        "$NNCERT" plan models/zoo/dlrm.onnx --trace "$W/$tr.txt" --devices $D --measure --json "$W/p.json" >/dev/null
        "$PY" - "$W/p.json" "$tr" "$D" >>"$W/plan.csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["plans"]
keys = ("lookups", "read_bytes", "sent_bytes", "recv_bytes", "mem_bytes")
base = min(d["table_wise"]["predicted"]["max_time_us"], d["row_wise"]["predicted"]["max_time_us"])
for name in ("chosen", "table_wise", "row_wise"):
    p, m = d[name]["predicted"], d[name]["measured"]
    eq = all(p[k] == m[k] for k in keys)
    print("planner,%s,%s,%s,%.6g,%.6g,%s,%.3f" % (sys.argv[2], sys.argv[3], name, p["max_time_us"], m["max_time_us"],
          "yes" if eq else "no", base / p["max_time_us"] if p["max_time_us"] > 0 else float("inf")))
PY
    done
done
{ cat "$W/eb.csv"; echo; cat "$W/plan.csv"; } >"$OUT"
cat "$OUT"
"$PY" - "$W/eb.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for th in sorted({r["threads"] for r in rows}, key=int):
    for d in ("16", "64", "128"):
        med = {i: statistics.median(float(r["lookups_per_s"]) for r in rows if r["dim"] == d and r["impl"] == i and r["threads"] == th)
               for i in ("nncert", "torch")}
        print("embbag dim %s, %s thread(s) each: nncert %.3g lookups/s, torch %.3g lookups/s (median of rounds; nncert/torch %.2f)"
              % (d, th, med["nncert"], med["torch"], med["nncert"] / med["torch"]))
PY
{ echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"; echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "torch: $($PY -c 'import torch; print(torch.__version__)')"; echo "load average at the end (1/5/15 min): $(cut -d' ' -f1-3 /proc/loadavg)"; } >results/dlrm-machine.txt
