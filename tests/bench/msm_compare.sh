#!/usr/bin/env bash
# Puts nncert's measured G1 MSM throughput (results/msm.csv, written by
# `make bench-msm` in the same run) beside the published rapidsnark and
# gnark figures (tests/bench/msm_published.csv, each with its source; typed
# from the sources, never measured here): results/msm-peers.csv.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f results/msm.csv ] || { echo "msm_compare: results/msm.csv missing (make bench-msm)"; exit 1; }
{
    echo "implementation,curve,points,threads,time_s,points_per_s,measured_here,source,note"
    awk -F, '$1 == "g1_msm" && $2 >= 1048576 { printf "nncert,BN254,%s,%s,%s,%.0f,yes,results/msm.csv,median of make bench-msm (machine and date: results/msm-machine.txt)\n", $2, $3, $4, $2 / $4 }' results/msm.csv
    # published rows: points/s from points and time where both are given
    python3 - <<'PY'
import csv, sys
w = csv.writer(sys.stdout, lineterminator="\n")
for r in csv.DictReader(open("tests/bench/msm_published.csv")):
    pps = f"{int(r['points']) / float(r['time_s']):.0f}" if r["points"] and r["time_s"] else ""
    w.writerow([r["implementation"], r["curve"], r["points"], r["threads"], r["time_s"], pps, "no", r["source"], r["note"]])
PY
} >results/msm-peers.csv.tmp
mv results/msm-peers.csv.tmp results/msm-peers.csv
cut -d, -f1-7 results/msm-peers.csv | column -t -s, 2>/dev/null || cut -d, -f1-7 results/msm-peers.csv
