#!/usr/bin/env bash
# make bench-verify: nncert verify on the VNN-COMP instances in
# ../shared/data/verification (see its MANIFEST.md), scored against the
# consensus answers in ground_truth/, next to the published VNN-COMP results
# of the other tools on the same instances (tests/bench/vnncomp_peers.py).
#
# Writes results/verify-vnncomp.csv (one row per instance; max_rss_mib: the
# peak resident memory of the nncert process, MiB, from getrusage of the
# waited-for children), results/verify-vnncomp-summary.csv (tool,year,family,
# instances,solved,wrong,total_time_solved_s, nncert's interval widths and
# peak memory) and results/verify-vnncomp-machine.txt (machine, settings, notes).
#
# Environment:
#   BENCH_FAMILIES  families to run, space or comma separated, or "all"
#                   (acasxu mnist_fc eran verivital cifar10_resnet; default acasxu)
#   BENCH_LIMIT     run only the first N instances of each family (default all)
#   BENCH_TIMEOUT   cap on the per-instance timeout in seconds (default: the
#                   official timeout of each instance)
#   BENCH_SAMPLES   --samples (default 1000)
#   BENCH_MAX_LEAVES  --max-leaves (default: nncert's)
#   BENCH_ONLY      a file of "onnx,vnnlib" lines (paths as in the family's
#                   instance list): run only those, and merge their rows into the
#                   existing results/verify-vnncomp.csv (other rows kept as they
#                   were; the machine file lists the re-run rows)
#   BENCH_TAG       write results/verify-vnncomp-TAG{,-summary,-machine}.*
#                   instead (e.g. "images-60s" for the image families at 60 s),
#                   so runs of other families or caps keep their own files
#   NNCERT          the binary (default bin/nncert)
#   BENCH_DATA      the data folder (default ../shared/data/verification)
#
# solved = holds on a consensus-unsat instance or violated on a consensus-sat
# one; wrong = the opposite answer (a soundness bug: printed loudly, and the
# script exits 1 after writing the results).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/machine.bash

DATA=${BENCH_DATA:-../shared/data/verification}
if [ ! -d "$DATA" ]; then
    echo "bench-verify: ../shared/data/verification not found"
    exit 0
fi
NNCERT=${NNCERT:-bin/nncert}
# the code measured (taken now: the results written at the end change the tree)
COMMIT="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- . ':!results' 2>/dev/null || echo ' (uncommitted changes)')"
SAMPLES=${BENCH_SAMPLES:-1000}
LIMIT=${BENCH_LIMIT:-0}
CAP=${BENCH_TIMEOUT:-}
FAMILIES=${BENCH_FAMILIES:-acasxu}
MAXLEAVES=${BENCH_MAX_LEAVES:-}
ONLY=${BENCH_ONLY:-}
if [ -n "$MAXLEAVES" ] && ! [[ "$MAXLEAVES" =~ ^[1-9][0-9]*$ ]]; then
    echo "bench-verify: BENCH_MAX_LEAVES must be a positive count" >&2; exit 64
fi
if [ -n "$ONLY" ] && [ ! -r "$ONLY" ]; then
    echo "bench-verify: BENCH_ONLY file '$ONLY' not readable" >&2; exit 64
fi
declare -A only=()
if [ -n "$ONLY" ]; then
    while IFS= read -r line; do
        line=${line%$'\r'}
        [ -n "$line" ] && only["$line"]=1
    done <"$ONLY"
fi
[ "$FAMILIES" = all ] && FAMILIES="acasxu mnist_fc eran verivital cifar10_resnet"
FAMILIES=${FAMILIES//,/ }
command -v python3 >/dev/null 2>&1 || { echo "bench-verify: python3 is required" >&2; exit 64; }
[ -x "$NNCERT" ] || { echo "bench-verify: $NNCERT not found (run make)" >&2; exit 64; }
[[ "$LIMIT" =~ ^[0-9]+$ ]] || { echo "bench-verify: BENCH_LIMIT must be a count" >&2; exit 64; }
if [ -n "$CAP" ] && ! [[ "$CAP" =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "bench-verify: BENCH_TIMEOUT must be a number of seconds" >&2; exit 64
fi

# family -> folder, instance list, ground truth
family_files() {
    case "$1" in
        acasxu)             echo "acasxu instances.csv acasxu_ground_truth.csv" ;;
        mnist_fc)           echo "mnist_fc instances.csv mnist_fc_ground_truth.csv" ;;
        eran|eran_2021)     echo "eran_2021 eran_instances.csv eran_ground_truth.csv" ;;
        verivital|verivital_2021) echo "verivital_2021 verivital_instances.csv verivital_ground_truth.csv" ;;
        cifar10_resnet|cifar)     echo "cifar10_resnet cifar10_resnet_instances.csv cifar10_resnet_ground_truth.csv" ;;
        *) return 1 ;;
    esac
}
fams=()
for fam in $FAMILIES; do
    family_files "$fam" >/dev/null || { echo "bench-verify: unknown family '$fam' (acasxu mnist_fc eran verivital cifar10_resnet)" >&2; exit 64; }
    fam=${fam%_2021}
    [ "$fam" = cifar ] && fam=cifar10_resnet
    fams+=("$fam")
done

tmp=$(mktemp -d)
# run a copy taken now: a rebuild of the tree's binary during a long run
# must not change the binary under the rows that follow (the commit above
# is also taken at the start)
cp "$NNCERT" "$tmp/nncert"
NNCERT_SRC=$NNCERT
NNCERT=$tmp/nncert
trap 'rm -rf "$tmp"' EXIT
mkdir -p results
TAG=${BENCH_TAG:-}
if [ -n "$TAG" ] && ! [[ "$TAG" =~ ^[A-Za-z0-9_.-]+$ ]]; then
    echo "bench-verify: BENCH_TAG must be letters, digits, '.', '_' or '-'" >&2; exit 64
fi
base=results/verify-vnncomp${TAG:+-$TAG}
out=$base.csv
echo "family,onnx,vnnlib,timeout_s,consensus,nncert_result,solved,wrong,time_s,frac_lo,frac_hi,max_rss_mib" >"$tmp/rows.csv"
# Runs its arguments, writes the peak resident set of the process tree
# (getrusage RUSAGE_CHILDREN: the largest waited-for descendant, KiB) to the
# file $1 in MiB, and exits with the command's status (128 + n for signal n).
cat >"$tmp/rss.py" <<'PY'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write("%.1f\n" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0))
sys.exit(rc if rc >= 0 else 128 - rc)
PY

tdesc="official per instance"
[ -n "$CAP" ] && tdesc="min(official, $CAP s)"
total=0; nsolved=0; nwrong=0; wrong_list=()
echo "bench-verify: $NNCERT_SRC on ${fams[*]}, limit ${BENCH_LIMIT:-all} per family, timeout $tdesc, $SAMPLES samples"
for fam in "${fams[@]}"; do
    read -r dir list gt < <(family_files "$fam")
    # consensus by (onnx file name, vnnlib file name)
    declare -A cons=()
    while IFS=, read -r g_onnx g_vnnlib g_cons _; do
        g_cons=${g_cons%$'\r'}
        [ "$g_onnx" = onnx ] && continue
        cons["${g_onnx##*/},${g_vnnlib##*/}"]=$g_cons
    done <"$DATA/ground_truth/$gt"

    n=0; fsolved=0; fwrong=0; fanswered=0
    while IFS=, read -r onnx vnnlib tmo; do
        tmo=${tmo%$'\r'}; onnx=${onnx#./}; vnnlib=${vnnlib#./}
        [ -z "$onnx" ] && continue
        if [ "$LIMIT" -gt 0 ] && [ "$n" -ge "$LIMIT" ]; then break; fi
        if [ -n "$ONLY" ] && [ -z "${only["$onnx,$vnnlib"]:-}" ]; then continue; fi
        n=$((n + 1))
        t=$tmo
        if [ -n "$CAP" ]; then t=$(awk -v a="$tmo" -v b="$CAP" 'BEGIN { print (b + 0 < a + 0) ? b : a }'); fi
        consensus=${cons["${onnx##*/},${vnnlib##*/}"]:-unknown}
        # nncert's --timeout bounds branch and bound; the hard limit only
        # catches a run that ignores it.
        hard=$(awk -v a="$t" 'BEGIN { printf "%d", a + 30 }')
        rm -f "$tmp/r.json" "$tmp/rss"
        t0=$(date +%s%N)
        set +e
        python3 "$tmp/rss.py" "$tmp/rss" timeout -k 5 "$hard" "$NNCERT" verify "$DATA/$dir/$onnx" "$DATA/$dir/$vnnlib" \
            --timeout "$t" --samples "$SAMPLES" --stop-on-counterexample ${MAXLEAVES:+--max-leaves "$MAXLEAVES"} \
            --json "$tmp/r.json" >"$tmp/out.txt" 2>&1
        rc=$?
        set -e
        t1=$(date +%s%N)
        wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
        rss=$(cat "$tmp/rss" 2>/dev/null || true)
        res=error; lo=; hi=
        if [ -s "$tmp/r.json" ]; then
            read -r res lo hi < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = d.get("violation_fraction") or {}
print(d.get("result", "error"), v.get("lower", ""), v.get("upper", ""))' "$tmp/r.json" 2>/dev/null || echo error)
        fi
        case "$rc" in
            0) want=holds ;; 1) want=violated ;; 2) want=unknown ;;
            124|137) want=killed ;; *) want=error ;;
        esac
        if [ "$want" = killed ]; then
            echo "bench-verify: note: $fam $onnx $vnnlib killed after ${hard}s (--timeout $t not honoured)"
            res=unknown
        elif [ "$want" = error ]; then
            echo "bench-verify: note: $fam $onnx $vnnlib exit $rc: $(tail -n 1 "$tmp/out.txt")"
            res=error
        elif [ "$res" != "$want" ]; then
            echo "bench-verify: note: $fam $onnx $vnnlib exit $rc but JSON result '$res'"
            [ "$res" = holds ] || [ "$res" = violated ] || [ "$res" = unknown ] || res=$want
        fi
        solved=0; wrong=0
        case "$consensus:$res" in
            unsat*:holds|sat:violated) solved=1 ;;
            unsat*:violated|sat:holds) wrong=1 ;;
            unknown:holds|unknown:violated)
                echo "bench-verify: note: $fam $onnx $vnnlib: $res on an instance without consensus" ;;
        esac
        case "$res" in holds|violated) fanswered=$((fanswered + 1)) ;; esac
        if [ "$wrong" = 1 ]; then
            msg="WRONG: $fam $onnx $vnnlib: nncert says $res, consensus $consensus"
            echo "!!!!!!!! bench-verify: $msg"
            wrong_list+=("$msg")
        fi
        fsolved=$((fsolved + solved)); fwrong=$((fwrong + wrong))
        echo "$fam,$onnx,$vnnlib,$t,$consensus,$res,$solved,$wrong,$wall,$lo,$hi,$rss" >>"$tmp/rows.csv"
        printf '  %-9s %-36s %-28s %-16s %-9s %7.2fs %8s MiB\n' "$fam" "${onnx##*/}" "${vnnlib##*/}" "$consensus" "$res" "$wall" "${rss:-?}"
    done <"$DATA/$dir/$list"
    unset cons
    echo "bench-verify: $fam: $n instances, $fanswered answered, $fsolved solved, $fwrong wrong"
    total=$((total + n)); nsolved=$((nsolved + fsolved)); nwrong=$((nwrong + fwrong))
done

merged=0
if [ -n "$ONLY" ] && [ -s "$out" ]; then
    merged=1
    # merge: the re-run rows replace theirs (by family, onnx, vnnlib), the rest stay
    python3 - "$out" "$tmp/rows.csv" <<'PY'
import csv, sys
old, new = sys.argv[1], sys.argv[2]
with open(new) as f:
    new_rows = list(csv.reader(f))
head, fresh = new_rows[0], {tuple(r[:3]): r for r in new_rows[1:]}
with open(old) as f:
    rows = list(csv.reader(f))[1:]
seen, merged = set(), []
for r in rows:
    k = tuple(r[:3])
    merged.append(fresh.get(k, r))
    seen.add(k)
merged += [r for k, r in fresh.items() if k not in seen]
with open(new, "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(head)
    w.writerows(merged)
PY
fi
# the earlier run's head with its own re-run history, so a kept row's source
# stays traceable through any number of partial re-runs
[ -f "$base-machine.txt" ] && sed -n '/^openblas threads:/q;p' "$base-machine.txt" >"$tmp/prev_head.txt" || true
mv "$tmp/rows.csv" "$out"
python3 tests/bench/vnncomp_peers.py --data "$DATA" --nncert "$out" \
    --year "$(date -u +%Y)" ${CAP:+--cap "$CAP"} --out "$base-summary.csv" | tee "$tmp/summary.txt"

{
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem/{print $2}') GiB, load average at the end $(cut -d" " -f1-3 /proc/loadavg) (other jobs share the machine)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "cpu flags: $(nnc_bench_cpu_flags)"
    echo "path: $("$NNCERT" version | sed -n 's/^instruction set: //p') (NNC_ISA=${NNC_ISA:-unset})"
    echo "nncert: $NNCERT_SRC (run from a copy taken at the start), commit $COMMIT"
    echo "settings: families ${fams[*]}; limit ${BENCH_LIMIT:-all} per family; timeout $tdesc; --samples $SAMPLES --stop-on-counterexample${MAXLEAVES:+ --max-leaves $MAXLEAVES}; device cpu"
    if [ -n "$ONLY" ] && [ "$merged" = 0 ]; then
        echo "subset run (BENCH_ONLY, no earlier $out to merge into): only these $total instances:"
        sed 's/^/    /' "$ONLY"
    elif [ -n "$ONLY" ]; then
        echo "partial re-run (BENCH_ONLY): the $total rows below were re-run now with these settings; every other row of"
        echo "  $out is kept from the earlier run (see that run's settings in git history):"
        sed 's/^/    /' "$ONLY"
        echo "  the earlier run (of the kept rows), with its own history:"
        [ -s "$tmp/prev_head.txt" ] && sed 's/^/    /' "$tmp/prev_head.txt"
    fi
    echo "openblas threads: ${OPENBLAS_NUM_THREADS:-default (all cores)}; nncert verify sets one while several workers run"
    echo "nncert time_s: wall clock of the whole process (load, bounds, sampling), measured by the shell."
    echo "peer rows: published VNN-COMP results (results/vnncomp20XX in the data folder) restricted to the same"
    echo "  instances, scored against the same consensus; their run times are wall clock on the organisers'"
    echo "  hardware of that year (AWS instances, tool start-up overhead included, prepare time excluded),"
    echo "  not on this machine, and answers are taken as published (no time or counterexample re-check)."
    echo
    cat "$tmp/summary.txt"
} >"$base-machine.txt"

echo "bench-verify: $total instances, $nsolved solved, $nwrong wrong -> $out, $base-summary.csv"
if [ "$nwrong" -gt 0 ]; then
    echo "!!!!!!!! bench-verify: $nwrong WRONG answers (holds on a sat instance or violated on an unsat one):" >&2
    printf '!!!!!!!!   %s\n' "${wrong_list[@]}" >&2
    exit 1
fi
exit 0
