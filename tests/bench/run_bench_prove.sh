#!/usr/bin/env bash
# make bench-prove: Groth16 proving time and peak memory of nncert and
# snarkjs (the peer, tests/peers) on the same .zkey and .wtns, for synthetic
# circuits with QAP domains of 2^12, 2^16 and 2^20 (tests/tools/gen_chain.c;
# keys from `nncert groth16 setup`, which snarkjs accepts, so no powers of
# tau ceremony is needed at 2^20).  Every proof is checked with
# `snarkjs groth16 verify`.
#
# Each prove runs under /usr/bin/time (wall clock, maximum resident set) and
# `timeout`: the median wall time of the runs and the largest peak RSS are
# reported.  A run that times out or dies (e.g. out of memory) is recorded
# as such in the outcome column, with what it had used, instead of being
# skipped.  Writes results/prove.csv and results/prove-machine.txt.
#
# Environment:
#   BENCH_PROVE_LOG2        domain sizes (default "12 16 20")
#   BENCH_PROVE_REPS        runs per tool and size (default 3)
#   BENCH_PROVE_REPS_LARGE  runs per tool at 2^20 and above (default 1: one
#                           snarkjs run takes minutes on 2 cores)
#   BENCH_PROVE_TIMEOUT     seconds allowed per prove run (default 600)
#   BENCH_PROVE_SETUP_TIMEOUT  seconds allowed for each key setup (default 1800)
#   BENCH_PROVE_MERGE=1     keep the rows of other sizes already in
#                           results/prove.csv (and append to the machine
#                           notes) instead of starting afresh: sizes may then
#                           be measured in separate runs, each size still
#                           comparing both tools in one run
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NNCERT=${NNCERT:-bin/nncert}
SNARKJS=tests/peers/node_modules/.bin/snarkjs
LOG2=${BENCH_PROVE_LOG2:-12 16 20}
REPS=${BENCH_PROVE_REPS:-3}
REPS_LARGE=${BENCH_PROVE_REPS_LARGE:-1}
LIMIT=${BENCH_PROVE_TIMEOUT:-600}
MERGE=${BENCH_PROVE_MERGE:-0}
SETUP_LIMIT=${BENCH_PROVE_SETUP_TIMEOUT:-1800}
# snarkjs keeps the key and the witness in the JavaScript heap: let node use
# the machine's memory rather than its default heap cap.
export NODE_OPTIONS="${NODE_OPTIONS:-} --max-old-space-size=16384"
[ -x "$SNARKJS" ] || { echo "bench-prove: snarkjs not installed (tests/setup.sh)"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-prove: GNU time (/usr/bin/time) is needed for peak memory"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p results

# run_timed LIMIT CMD...: one run; prints "WALL_S PEAK_KIB RC" (RC 124: timed out)
run_timed() {
    local rc=0 limit=$1
    shift
    /usr/bin/time -f '%e %M' -o "$W/time.txt" timeout "$limit" "$@" >"$W/run.out" 2>&1 || rc=$?
    # GNU time prepends "Command exited with non-zero status N" on failure
    echo "$(tail -n 1 "$W/time.txt") $rc"
}

CSV=results/prove.csv.tmp
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
HEADER="constraints,domain,tool,runs,median_prove_s,peak_rss_mib,verified_by_snarkjs,outcome"
echo "$HEADER" >"$CSV"
setup_log=""
for k in $LOG2; do
    n=$(( (1 << k) - 4 ))
    "$BUILD/tools/gen_chain" "$n" "$W/c.r1cs" "$W/c.wtns"
    read -r st_wall st_kib st_rc < <(run_timed "$SETUP_LIMIT" "$NNCERT" groth16 setup "$W/c.r1cs" "$W/c.zkey")
    [ "$st_rc" -eq 0 ] || { echo "bench-prove: nncert groth16 setup failed at 2^$k (exit $st_rc): $(head -c 300 "$W/run.out")"; exit 1; }
    setup_log="$setup_log 2^$k: setup ${st_wall}s ${st_kib}KiB;"
    echo "2^$k: nncert groth16 setup ${st_wall}s, zkey $(du -h "$W/c.zkey" | cut -f1)"
    "$NNCERT" zkey export verificationkey "$W/c.zkey" "$W/vk.json"
    for tool in nncert snarkjs; do
        reps=$REPS
        [ "$k" -ge 20 ] && reps=$REPS_LARGE
        times="" peak=0 outcome=ok done_runs=0
        rm -f "$W/p.json" "$W/pub.json"
        for ((rep = 1; rep <= reps; rep++)); do
            if [ $tool = nncert ]; then
                read -r t kib rc < <(run_timed "$LIMIT" "$NNCERT" groth16 prove "$W/c.zkey" "$W/c.wtns" "$W/p.json" "$W/pub.json")
            else
                read -r t kib rc < <(run_timed "$LIMIT" "$SNARKJS" groth16 prove "$W/c.zkey" "$W/c.wtns" "$W/p.json" "$W/pub.json")
            fi
            [ "$kib" -gt "$peak" ] && peak=$kib
            if [ "$rc" -eq 124 ]; then outcome="timeout>${LIMIT}s"; break
            elif [ "$rc" -ne 0 ]; then outcome="failed(exit $rc after ${t}s: $(tail -n 1 "$W/run.out" | tr -d ',\r' | cut -c1-80))"; break; fi
            times="$times $t"
            done_runs=$rep
        done
        if [ "$outcome" = ok ]; then
            ok=$("$SNARKJS" groth16 verify "$W/vk.json" "$W/pub.json" "$W/p.json" 2>&1 | grep -q 'OK!' && echo yes || echo NO)
            med=$(echo $times | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
        else
            ok=n/a med=""
        fi
        mib=$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')
        echo "$((n + 1)),$((1 << k)),$tool,$done_runs,$med,$mib,$ok,$outcome" >>"$CSV"
        echo "2^$k: $tool prove median ${med:-n/a}s over $done_runs run(s), peak RSS ${mib} MiB, verified: $ok, $outcome"
    done
done
if [ "$MERGE" = 1 ] && [ -f results/prove.csv ] && [ "$(head -n 1 results/prove.csv)" = "$HEADER" ]; then
    # earlier rows of the sizes not measured now, then this run's, by domain
    { tail -n +2 results/prove.csv | awk -F, -v now=" $LOG2 " '{ k = 0; for (d = $2; d > 1; d /= 2) k++; if (index(now, " " k " ") == 0) print }'
      tail -n +2 "$CSV"; } | sort -t, -k2,2n -s >"$CSV.rows"
    { echo "$HEADER"; cat "$CSV.rows"; } >"$CSV"
    rm -f "$CSV.rows"
else
    MERGE=0
fi
mv "$CSV" results/prove.csv
{ echo "run of sizes (log2 of the domain): $LOG2"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "load average (1, 5, 15 min) at start: $load_start, at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "snarkjs: $(node -e 'console.log(require("./tests/peers/node_modules/snarkjs/package.json").version)') on node $(node --version), NODE_OPTIONS=$NODE_OPTIONS"
  echo "prove runs: $REPS per tool and size ($REPS_LARGE at 2^20 and above), timeout ${LIMIT}s per run; wall = median, peak = max RSS over the runs (GNU time)"
  echo "keys (nncert groth16 setup, not timed against a peer):$setup_log"; } >results/prove-machine.txt.run
if [ "$MERGE" = 1 ] && [ -f results/prove-machine.txt ]; then cat results/prove-machine.txt.run >>results/prove-machine.txt
else mv results/prove-machine.txt.run results/prove-machine.txt; fi
rm -f results/prove-machine.txt.run
awk -F, 'NR > 1 && $5 != "" { t[$2 "," $3] = $5 } END { for (k in t) { split(k, a, ","); if (a[2] == "nncert" && ((a[1] ",snarkjs") in t)) printf "domain %s: snarkjs/nncert = %.2fx\n", a[1], t[a[1] ",snarkjs"] / t[k] } }' results/prove.csv
