#!/usr/bin/env bash
# make bench-dlrm-bounds: results/dlrm-bounds.csv (machine in
# results/dlrm-bounds-machine.txt)
#  - output-bound width of the zoo DLRM with trace sample K's ids fixed and
#    every dense feature in [x - eps, x + eps]: interval bounds
#    (nnc_vrf_dlrm_bounds) against linear bounds (CROWN with McCormick
#    planes through the interaction, what 'nncert verify' uses), beside the
#    range of 10000 sampled outputs (a lower bound of the true range), both
#    from one 'nncert dlrm-bounds' run;
#  - 'nncert verify' with the default linear bounds against --ibp on the
#    same spec and budget (unsafe where the output drops below a threshold):
#    certified safe fraction, violation-fraction interval, time.
set -euo pipefail
cd "$(dirname "$0")/../.."
NNCERT=${NNCERT:-bin/nncert}
Z=models/zoo
mkdir -p results
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
OUT=results/dlrm-bounds.csv
echo "section,sample,eps,interval_width,linear_width,interval_over_linear,sampled_range,points_outside,threshold,mode,result,certified_safe,violation_lower,violation_upper,time_s" >"$W/b.csv"
for k in 1 2 3 4 5 6 7 8; do
    for eps in 0.01 0.05 0.1 0.5 1; do
        "$NNCERT" dlrm-bounds $Z/dlrm.onnx --trace $Z/dlrm_trace.txt --sample $k --eps $eps --points 10000 --seed $k >"$W/o.txt"
        awk -v k=$k -v eps=$eps '
            /^width:/ { wi = $3; sub(",", "", wi); wl = $5 }
            /points sampled/ { split($0, a, "[][,]"); lo = a[2]; hi = a[3]; n = $(NF - 12) + $(NF - 4) }
            END { printf "bounds,%s,%s,%.6g,%.6g,%.4g,%.6g,%d,,,,,,,\n", k, eps, wi, wl, wi / wl, hi - lo, n }' "$W/o.txt" >>"$W/b.csv"
    done
done
# verify: sample 3, eps 0.1 (a 13-dimensional box), 10 s of branch and bound
awk -F, '/^#/ || NF == 0 { next } ++n == 3 { for (i = 1; i <= 13; i++) d[i] = $i; exit }
         END { for (i = 0; i < 13; i++) printf "(declare-const X_%d Real)\n", i; print "(declare-const Y_0 Real)"
               for (i = 0; i < 13; i++) printf "(assert (>= X_%d %.17g))\n(assert (<= X_%d %.17g))\n", i, d[i + 1] - 0.1, i, d[i + 1] + 0.1 }' \
    $Z/dlrm_trace.txt >"$W/box.vnnlib"
for thr in 0.503 0.505 0.507; do
    { cat "$W/box.vnnlib"; echo "(assert (<= Y_0 $thr))"; } >"$W/s.vnnlib"
    for mode in linear ibp; do
        flag=
        [ $mode = ibp ] && flag=--ibp
        "$NNCERT" verify $Z/dlrm.onnx "$W/s.vnnlib" --trace $Z/dlrm_trace.txt --sample 3 --timeout 10 --samples 10000 $flag \
            --json "$W/r.json" >/dev/null || true
        python3 - "$W/r.json" "$thr" "$mode" >>"$W/b.csv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("verify,3,0.1,,,,,,%s,%s,%s,%.6g,%.6g,%.6g,%.3f" % (sys.argv[2], sys.argv[3], r["result"], r["certified_safe_fraction"],
      r["violation_fraction"]["lower"], r["violation_fraction"]["upper"], r["time_s"]))
PY
    done
done
cp "$W/b.csv" "$OUT"
{ echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "load average at the end (1/5/15 min): $(cut -d' ' -f1-3 /proc/loadavg)"; } >results/dlrm-bounds-machine.txt
cat "$OUT"
