#!/usr/bin/env bash
# make bench-prove: Groth16 proving time of nncert and snarkjs (the peer,
# tests/peers) on the same .zkey and .wtns, for synthetic circuits with QAP
# domains of 2^12 and 2^16 (tests/bench/gen_chain.c; keys from `nncert
# groth16 setup`, which snarkjs accepts).  Every proof is checked with
# `snarkjs groth16 verify`.  Median of 3 wall-clock runs per tool.
# Writes results/prove.csv and results/prove-machine.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NNCERT=${NNCERT:-bin/nncert}
SNARKJS=tests/peers/node_modules/.bin/snarkjs
[ -x "$SNARKJS" ] || { echo "bench-prove: snarkjs not installed (tests/setup.sh)"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p results
median3() { sort -n | sed -n 2p; }
wall() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'; }
echo "constraints,domain,tool,median_prove_s,verified_by_snarkjs" >results/prove.csv.tmp
for k in ${BENCH_PROVE_LOG2:-12 16}; do
    n=$(( (1 << k) - 4 ))
    "$BUILD/bench/gen_chain" "$n" "$W/c.r1cs" "$W/c.wtns"
    "$NNCERT" groth16 setup "$W/c.r1cs" "$W/c.zkey"
    "$NNCERT" zkey export verificationkey "$W/c.zkey" "$W/vk.json"
    for tool in nncert snarkjs; do
        times=""
        for rep in 1 2 3; do
            if [ $tool = nncert ]; then t=$(wall "$NNCERT" groth16 prove "$W/c.zkey" "$W/c.wtns" "$W/p.json" "$W/pub.json")
            else t=$(wall "$SNARKJS" groth16 prove "$W/c.zkey" "$W/c.wtns" "$W/p.json" "$W/pub.json"); fi
            times="$times $t"
        done
        ok=$("$SNARKJS" groth16 verify "$W/vk.json" "$W/pub.json" "$W/p.json" 2>&1 | grep -q 'OK!' && echo yes || echo NO)
        med=$(echo $times | tr ' ' '\n' | median3)
        echo "$((n + 1)),$((1 << k)),$tool,$med,$ok" >>results/prove.csv.tmp
        echo "2^$k: $tool prove median ${med}s (verified: $ok)"
    done
done
mv results/prove.csv.tmp results/prove.csv
{ echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"; echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)";
  echo "snarkjs: $(node -e 'console.log(require("./tests/peers/node_modules/snarkjs/package.json").version)') on node $(node --version)"; } >results/prove-machine.txt
awk -F, 'NR>1 { t[$2","$3]=$4 } END { for (k in t) { split(k, a, ","); if (a[2]=="nncert") printf "domain %s: snarkjs/nncert = %.2fx\n", a[1], t[a[1]",snarkjs"]/t[k] } }' results/prove.csv
