#!/usr/bin/env bash
# make bench-isa: the instruction-set-specific kernels on every path this CPU
# can run (NNC_ISA=generic, avx2, avx512; see common/isa.h), in one run on one
# machine, so that what a user on an AVX2-only or a generic CPU gets is
# measured rather than guessed:
#   - prover: G1 multi-scalar multiplication and the other bench_prover ops
#     (field products: ADX/BMI2 scalar on avx2 and generic-with-ADX, IFMA
#     vectors on avx512; portable C on generic)
#   - gnn: GCN aggregation (SpMM), Cora (or a synthetic graph without ../shared)
#   - dlrm: embedding-bag lookups
#   - sampling: the verifier's float64 sampling and the float32 runtime (sgemm)
# Writes results/isa-paths.csv (isa,benchmark,case,metric,value,
# speedup_vs_generic: > 1 faster than the generic path on this machine) and
# results/isa-paths-machine.txt (BENCH_TAG=T: results/isa-paths-T.csv and
# -T-machine.txt, so that runs on CPUs of other levels sit side by side).
# Single-threaded, medians of each tool's own repetitions.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NNCERT=${NNCERT:-bin/nncert}
SHARED=${SHARED:-../shared}
CORES=$(nproc --all) # (nproc alone follows OMP_NUM_THREADS)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive
mkdir -p results
OUT=results/isa-paths${BENCH_TAG:+-$BENCH_TAG}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# the levels this CPU runs: generic always, then up to its own
cpu=$(NNC_ISA= "$NNCERT" version | sed -n 's/.*(cpu \([a-z0-9]*\).*/\1/p')
levels="generic"
case "$cpu" in
    avx2) levels="generic avx2" ;;
    avx512) levels="generic avx2 avx512" ;;
esac

G="$SHARED/data/graphs/converted/cora.csr"
if [ -f "$G" ]; then graph="cora=$G"; else graph="synthetic=synthetic:20000:8"; fi
"$NNCERT" spec linf --model models/zoo/mlp.onnx --input models/zoo/sample_input.json --label 9 --eps 0.06 \
    --clip 0,1 --output "$W/mlp.vnnlib" >/dev/null

# rows: isa,benchmark,case,metric,value,better (hi|lo)
raw="$W/raw.csv"
: >"$raw"
for L in $levels; do
    echo "bench-isa: NNC_ISA=$L" >&2
    # the path in use, as the binary reports it (a cap above the CPU is refused)
    NNC_ISA=$L "$NNCERT" version | sed -n 's/^instruction set: /  /p' >&2
    NNC_ISA=$L "$BUILD/bench/bench_prover" --max-log 16 --reps 3 |
        awk -F, -v L="$L" 'NR > 1 && $3 == 1 { printf "%s,prover,%s n=%s,median_s,%s,lo\n", L, $1, $2, $4 }' >>"$raw"
    NNC_ISA=$L "$BUILD/bench/bench_gnn" --runs 10 --threads 1 "$graph" |
        awk -F, -v L="$L" '$1 == "nncert" { printf "%s,gnn,spmm %s F=%s,median_ms,%s,lo\n", L, $2, $5, $7 }' >>"$raw"
    # a call takes about a millisecond: 51 repetitions for a steady median
    # (with 5, the first, cold ones moved it by 20%)
    for d in 16 128; do
        NNC_ISA=$L "$BUILD/bench/bench_embbag" $d 200000 4096 32 1.05 1 51 "$W/ids" "$W/table" |
            awk -F, -v L="$L" '$1 == "nncert" { printf "%s,dlrm,embbag dim=%s len=%s,lookups_per_s,%s,hi\n", L, $2, $5, $8 }' >>"$raw"
    done
    NNC_ISA=$L "$BUILD/bench/bench_sampling" models/zoo/mlp.onnx "$W/mlp.vnnlib" 100000 |
        awk -F, -v L="$L" '$1 == "verifier_samples_per_s" || $1 == "runtime_f32_batch1024_inferences_per_s" {
            printf "%s,sampling,zoo mlp,%s,%s,hi\n", L, $1, $2 }' >>"$raw"
done

awk -F, 'BEGIN { OFS = "," }
    { key = $2 "," $3 "," $4; v[NR] = $0; if ($1 == "generic") g[key] = $5 }
    END {
        print "isa,benchmark,case,metric,value,speedup_vs_generic"
        for (i = 1; i <= NR; i++) {
            split(v[i], f, ",")
            key = f[2] "," f[3] "," f[4]; s = ""
            if ((key in g) && g[key] > 0 && f[5] > 0) s = sprintf("%.3f", f[6] == "lo" ? g[key] / f[5] : f[5] / g[key])
            print f[1], f[2], f[3], f[4], f[5], s
        }
    }' "$raw" >"$OUT.csv"
{
    echo "machine: $CORES cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
    echo "cpu flags (isa-relevant): $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|bmi2|adx|avx512f|avx512dq|avx512bw|avx512vl|avx512ifma)$' | tr '\n' ' ')"
    echo "levels measured: $levels (the CPU's own: $cpu)"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "threads: 1 (OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1); gnn graph: ${graph%%=*}"
    echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "note: a capped path on this CPU is the same code a CPU of that level runs, but"
    echo "      that CPU's clock, caches and memory differ: the speedups are of the code paths"
    echo "      on this machine, not a prediction of another machine's times"
} >"$OUT-machine.txt"
column -s, -t "$OUT.csv"
