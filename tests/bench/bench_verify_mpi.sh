#!/usr/bin/env bash
# make bench-verify-mpi: one verification over MPI ranks against one process,
# in the same run: time to decide for 1 process of 1 thread, 2 ranks of 1
# thread (mpirun -np 2), and 1 process of 2 threads (what this 2-core machine
# gives without MPI), on ACAS Xu's hardest instances for nncert (its longest
# times in results/verify-vnncomp.csv), on cifar10_resnet instances and an
# MNIST one, at the official timeouts.  Each rank's time in the exchanges (waiting for the
# others included; NNCERT_DIST_STATS) shows whether one rank serialises the
# search.
#
# Writes results/verify-mpi.csv (one row per instance and configuration),
# results/verify-mpi-budget.csv (the certified share after a time budget
# alone: BENCH_MPI_BUDGET_S, default 4 s) and results/verify-mpi-machine.txt.
#
# Environment: NNCERT (default bin/nncert), BENCH_DATA (default
# ../shared/data/verification), BENCH_MPI_INSTANCES (a file of
# "family,onnx,vnnlib,timeout" lines replacing the default list),
# BENCH_MPI_PARTS ("decide budget" by default; "budget" alone re-runs the
# budget rows, keeping verify-mpi.csv and noting the re-run in the machine
# file).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/machine.bash

NNCERT=${NNCERT:-bin/nncert}
DATA=${BENCH_DATA:-../shared/data/verification}
if [ ! -d "$DATA" ]; then
    echo "bench-verify-mpi: $DATA not found"
    exit 1
fi
if ! command -v mpirun >/dev/null; then
    echo "bench-verify-mpi: mpirun not found (Debian: openmpi-bin)"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -x NNCERT_DIST_STATS -x OPENBLAS_NUM_THREADS)
export NNCERT_DIST_STATS=1
# one thread means one: OpenBLAS would otherwise run its own on every core
# under a single worker (nncert verify sets one for several workers or ranks)
export OPENBLAS_NUM_THREADS=1

if [ -n "${BENCH_MPI_INSTANCES:-}" ]; then
    cp "$BENCH_MPI_INSTANCES" "$tmp/list"
else
    cat >"$tmp/list" <<'EOF'
acasxu,onnx/ACASXU_run2a_4_7_batch_2000.onnx,vnnlib/prop_1.vnnlib,116
acasxu,onnx/ACASXU_run2a_4_2_batch_2000.onnx,vnnlib/prop_2.vnnlib,116
acasxu,onnx/ACASXU_run2a_3_3_batch_2000.onnx,vnnlib/prop_2.vnnlib,116
acasxu,onnx/ACASXU_run2a_5_6_batch_2000.onnx,vnnlib/prop_1.vnnlib,116
acasxu,onnx/ACASXU_run2a_1_1_batch_2000.onnx,vnnlib/prop_6.vnnlib,116
cifar10_resnet,onnx/resnet_2b.onnx,vnnlib_properties_pgd_filtered/resnet2b_pgd_filtered/prop_10_eps_0.008.vnnlib,300
cifar10_resnet,onnx/resnet_2b.onnx,vnnlib_properties_pgd_filtered/resnet2b_pgd_filtered/prop_35_eps_0.008.vnnlib,300
cifar10_resnet,onnx/resnet_4b.onnx,vnnlib_properties_pgd_filtered/resnet4b_pgd_filtered/prop_0_eps_0.004.vnnlib,300
mnist_fc,onnx/mnist-net_256x6.onnx,vnnlib/prop_11_0.05.vnnlib,300
EOF
fi

# run_cfg CFG MODEL SPEC TIMEOUT: one verification in config CFG (1x1,
# mpi2x1, 1x2), its report in $tmp/r.json, its stderr in $tmp/err; sets
# procs and th (processes, threads each)
run_cfg() {
    procs=1 th=1
    case $1 in mpi2x1) procs=2 ;; 1x2) th=2 ;; esac
    rm -f "$tmp/r.json" "$tmp/err"
    if [ "$procs" = 2 ]; then
        "${MPIRUN[@]}" -np 2 "$NNCERT" verify "$2" "$3" --timeout "$4" --samples 0 --threads "$th" --json "$tmp/r.json" \
            </dev/null >/dev/null 2>"$tmp/err" || true
    else
        "$NNCERT" verify "$2" "$3" --timeout "$4" --samples 0 --threads "$th" --json "$tmp/r.json" >/dev/null 2>"$tmp/err" || true
    fi
}

PARTS=${BENCH_MPI_PARTS:-decide budget}
out=results/verify-mpi.csv
echo "family,onnx,vnnlib,timeout_s,config,processes,threads_each,result,time_s,leaves,relu_split_nodes,exchange_s_rank0,exchange_s_rank1,speedup_vs_1x1" >"$tmp/csv"
case " $PARTS " in *" decide "*) ;; *) : >"$tmp/list" ;; esac
while IFS=, read -r fam onnx spec to <&3; do
    [ -n "$fam" ] || continue
    M="$DATA/$fam/$onnx" S="$DATA/$fam/$spec"
    base=""
    for cfg in 1x1 mpi2x1 1x2; do
        run_cfg $cfg "$M" "$S" "$to"
        if [ ! -s "$tmp/r.json" ]; then
            echo "bench-verify-mpi: $fam $onnx $spec $cfg: no report ($(tail -2 "$tmp/err"))"
            exit 1
        fi
        row=$(python3 - "$tmp/r.json" "$tmp/err" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
ex = {}
for line in open(sys.argv[2]):
    m = re.match(r"nncert: rank (\d+): \d+ exchanges, ([0-9.]+) s in them", line)
    if m:
        ex[int(m.group(1))] = m.group(2)
print(",".join([r["result"], "%.3f" % r["time_s"], str(r["leaves"]["total"]), str(r["relu_split_nodes"]),
                ex.get(0, ""), ex.get(1, "")]))
PY
)
        t=$(echo "$row" | cut -d, -f2)
        [ -n "$base" ] || base=$t
        sp=$(python3 -c "print('%.2f' % ($base / $t) if $t > 0 else '')")
        echo "$fam,$onnx,$spec,$to,$cfg,$procs,$th,$row,$sp" >>"$tmp/csv"
        echo "$fam $(basename "$onnx") $(basename "$spec") $cfg: $row speedup $sp"
    done
done 3<"$tmp/list"

# A time budget only: the certified share of the box after BUDGET_S seconds
# (ACAS Xu instances that take longer), each config as above; more ranks
# must certify at least as much as one process of one thread.
BUDGET_S=${BENCH_MPI_BUDGET_S:-4}
bout=results/verify-mpi-budget.csv
echo "family,onnx,vnnlib,timeout_s,config,processes,threads_each,result,leaves,certified_safe_fraction,certified_unsafe_fraction,open_fraction" >"$tmp/bcsv"
BI=(ACASXU_run2a_4_7_batch_2000.onnx,prop_1.vnnlib ACASXU_run2a_5_6_batch_2000.onnx,prop_1.vnnlib)
case " $PARTS " in *" budget "*) ;; *) BI=() ;; esac
for inst in "${BI[@]}"; do
    M="$DATA/acasxu/onnx/${inst%%,*}" S="$DATA/acasxu/vnnlib/${inst##*,}"
    for cfg in 1x1 mpi2x1 1x2; do
        run_cfg $cfg "$M" "$S" "$BUDGET_S"
        [ -s "$tmp/r.json" ] || { echo "bench-verify-mpi: budget $inst $cfg: no report"; exit 1; }
        row=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print("%s,%d,%.9g,%.9g,%.9g" % (r["result"], r["leaves"]["total"], r["certified_safe_fraction"], r["certified_unsafe_fraction"], r["open_fraction"]))' "$tmp/r.json")
        echo "acasxu,onnx/${inst%%,*},vnnlib/${inst##*,},$BUDGET_S,$cfg,$procs,$th,$row" >>"$tmp/bcsv"
        echo "budget $BUDGET_S s: ${inst/,/ } $cfg: $row"
    done
done
if [ ${#BI[@]} -gt 0 ]; then cp "$tmp/bcsv" "$bout"; fi
case " $PARTS " in *" decide "*) ;; *)
    echo "budget rows rewritten ($(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo unknown)," \
        "BENCH_MPI_PARTS=$PARTS): $bout, --timeout $BUDGET_S" >>results/verify-mpi-machine.txt
    echo "bench-verify-mpi: wrote $bout"
    exit 0 ;;
esac
cp "$tmp/csv" "$out"
{
    echo "bench-verify-mpi ($(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
    nnc_bench_machine
    echo "  load average at the end $(cut -d" " -f1-3 /proc/loadavg); $(mpirun --version | head -1)"
    echo "configs: 1x1 = nncert verify --threads 1; mpi2x1 = mpirun -np 2 nncert verify --threads 1;"
    echo "  1x2 = nncert verify --threads 2.  --samples 0, --timeout the official one."
    echo "time_s: the report's (rank 0's for mpi2x1); speedup_vs_1x1: the 1x1 time over this one."
    echo "exchange_s_rankN: seconds rank N spent in the ranks' exchanges (NNCERT_DIST_STATS), waiting"
    echo "  for the slowest rank included: every rank keeps the same queue, none serves the others."
    echo "OPENBLAS_NUM_THREADS=1 for every config (one thread is one)."
    echo "Notes: a batch of one leaf (image nets: the whole box is one leaf) is searched by every"
    echo "  rank, each pass's chunks of items split among them (contiguous ranges); a pass of one"
    echo "  chunk (the root's refinement of small dense nets, MNIST) runs on one rank while the"
    echo "  others wait, and a pass of a full and a partial chunk splits unevenly."
    echo "verify-mpi-budget.csv: the same configs with --timeout $BUDGET_S alone (the instances take"
    echo "  longer), the report's certified shares of the box."
} >results/verify-mpi-machine.txt
echo "bench-verify-mpi: wrote $out"
