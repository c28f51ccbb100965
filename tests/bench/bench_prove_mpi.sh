#!/usr/bin/env bash
# make bench-prove-mpi: Groth16 proving over MPI ranks against one process,
# in the same run: `nncert groth16 prove` with 1 process of 1 thread, 2 ranks
# of 1 thread (mpirun -np 2) and 1 process of 2 threads (what this 2-core
# machine gives without MPI), on the synthetic circuits of bench-prove
# (tests/tools/gen_chain.c) at 2^16 and 2^20, median of BENCH_PROVE_MPI_REPS
# runs (default 3), each proof checked with `nncert groth16 verify`.  Each
# rank's seconds in the exchanges come from NNCERT_DIST_STATS.
#
# Writes results/prove-mpi.csv and results/prove-mpi-machine.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/machine.bash
BUILD=${BUILD:-build}
NNCERT=${NNCERT:-bin/nncert}
LOG2=${BENCH_PROVE_MPI_LOG2:-16 20}
REPS=${BENCH_PROVE_MPI_REPS:-3}
command -v mpirun >/dev/null || { echo "bench-prove-mpi: mpirun not found (Debian: openmpi-bin)"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export NNCERT_DIST_STATS=1
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -x NNCERT_DIST_STATS)

echo "domain,config,processes,threads_each,runs,median_prove_s,exchange_s_rank0,exchange_s_rank1,speedup_vs_1x1,verified" >"$W/csv"
for k in $LOG2; do
    n=$(( (1 << k) - 4 ))
    "$BUILD/tools/gen_chain" "$n" "$W/c.r1cs" "$W/c.wtns" >/dev/null
    "$NNCERT" groth16 setup "$W/c.r1cs" "$W/c.zkey" 2>/dev/null
    "$NNCERT" zkey export verificationkey "$W/c.zkey" "$W/vk.json"
    base=""
    for cfg in 1x1 mpi2x1 1x2; do
        ts="" ok=yes ex0="" ex1=""
        for ((rep = 1; rep <= REPS; rep++)); do
            rm -f "$W/p.json" "$W/pub.json"
            t0=$(date +%s.%N)
            case $cfg in
            1x1) "$NNCERT" groth16 prove "$W/c.zkey" "$W/c.wtns" "$W/p.json" "$W/pub.json" --threads 1 </dev/null 2>"$W/err" ;;
            1x2) "$NNCERT" groth16 prove "$W/c.zkey" "$W/c.wtns" "$W/p.json" "$W/pub.json" --threads 2 </dev/null 2>"$W/err" ;;
            mpi2x1) "${MPIRUN[@]}" -np 2 "$NNCERT" groth16 prove "$W/c.zkey" "$W/c.wtns" "$W/p.json" "$W/pub.json" --threads 1 \
                        </dev/null 2>"$W/err" ;;
            esac
            t1=$(date +%s.%N)
            ts="$ts $(python3 -c "print('%.3f' % ($t1 - $t0))")"
            "$NNCERT" groth16 verify "$W/vk.json" "$W/pub.json" "$W/p.json" | grep -q '^OK' || ok=no
            ex0=$(sed -n 's/^nncert: rank 0: [0-9]* exchanges, \([0-9.]*\) s in them$/\1/p' "$W/err")
            ex1=$(sed -n 's/^nncert: rank 1: [0-9]* exchanges, \([0-9.]*\) s in them$/\1/p' "$W/err")
        done
        med=$(python3 -c "import statistics,sys; print('%.3f' % statistics.median(map(float, sys.argv[1:])))" $ts)  # (word splitting wanted: one argument per run)
        [ -n "$base" ] || base=$med
        sp=$(python3 -c "print('%.2f' % ($base / $med))")
        procs=1 th=1
        case $cfg in mpi2x1) procs=2 ;; 1x2) th=2 ;; esac
        echo "$((1 << k)),$cfg,$procs,$th,$REPS,$med,$ex0,$ex1,$sp,$ok" >>"$W/csv"
        echo "2^$k $cfg: median $med s (runs:$ts) exchanges $ex0 / $ex1 s, speedup $sp, verified $ok"
    done
done
cp "$W/csv" results/prove-mpi.csv
{
    echo "bench-prove-mpi ($(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
    nnc_bench_machine
    echo "  load average at the end $(cut -d" " -f1-3 /proc/loadavg); $(mpirun --version | head -1)"
    echo "configs: 1x1 = nncert groth16 prove --threads 1; mpi2x1 = mpirun -np 2 nncert groth16 prove --threads 1;"
    echo "  1x2 = nncert groth16 prove --threads 2.  Circuits: tests/tools/gen_chain (2^k - 4 constraints), keys"
    echo "  from nncert groth16 setup.  median_prove_s: wall time of the whole command (key and witness read"
    echo "  by every rank, mpirun's start included), median of the runs; speedup_vs_1x1: 1x1's over this one."
    echo "exchange_s_rankN: seconds rank N spent in the exchanges (partial sums, polynomials, the blinding)."
} >results/prove-mpi-machine.txt
echo "bench-prove-mpi: wrote results/prove-mpi.csv"
