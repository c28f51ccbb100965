#!/usr/bin/env bash
# make bench-gnn: GCN aggregation Y = A_hat X on Cora and PubMed at F = 16, 64,
# 128, nncert (bench_gnn, 1 and 2 threads) against scipy's csr product and
# torch.sparse.mm (COO and CSR) measured in the same run by the peer recipe
# ../shared/peers/spmm-baseline.sh (read in place, not copied).  Writes
# results/gnn.csv (medians in ms, the bytes-moved model, the machine's copy
# bandwidth measured by bench_gnn in this run and the fraction of the
# bandwidth bound) and results/gnn-machine.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
RUNS=${RUNS:-20}
G=$SHARED/data/graphs/converted
PEER=$SHARED/peers/spmm-baseline.sh
if [ ! -f "$G/cora.csr" ] || [ ! -f "$G/pubmed.csr" ] || [ ! -f "$PEER" ]; then
    echo "bench-gnn skipped: $G/{cora,pubmed}.csr or $PEER not found (set SHARED)"
    exit 0
fi
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in 1 2; do
    "$BUILD/bench/bench_gnn" --runs "$RUNS" --threads "$t" cora="$G/cora.csr" pubmed="$G/pubmed.csr" >"$tmp/nnc$t.csv"
done
RUNS=$RUNS THREADS=1 bash "$PEER" "$G" cora pubmed >"$tmp/peer.txt"
{
    head -n 1 "$tmp/nnc1.csv"
    tail -n +2 "$tmp/nnc1.csv"
    tail -n +2 "$tmp/nnc2.csv"
    # peer rows: graph N nnz F bound_MB | scipy torchCOO torchCSR | ...
    bw=$(awk -F, '$1 == "stream" { print $11 }' "$tmp/nnc1.csv")
    awk -v bw="$bw" '$1 !~ /^#/ && $6 == "|" && $1 != "graph" {
        bytes = $5 * 1e6; split("scipy torch_coo torch_csr", names, " ")
        for (c = 1; c <= 3; c++) { ms = $(6 + c); if (ms == "nan") continue
            printf "%s,%s,%s,%s,%s,1,%s,,%.0f,%.3f,%s,%.3f,,\n", names[c], $1, $2, $3, $4, ms, bytes,
                   bytes / (ms * 1e-3) / 1e9, bw, bytes / (ms * 1e-3) / 1e9 / bw }
    }' "$tmp/peer.txt"
} >results/gnn.csv
{
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
    grep '^# host' "$tmp/peer.txt" || true
} >results/gnn-machine.txt
cat results/gnn.csv
# Summary: nncert (1 thread) against the fastest peer, and the bound fraction.
awk -F, '$1 == "nncert" && $6 == 1 { t[$2 "," $5] = $7; fr[$2 "," $5] = $12; fc[$2 "," $5] = $14 }
         $1 ~ /^(scipy|torch)/ { k = $2 "," $5; if (!(k in p) || $7 < p[k]) { p[k] = $7; pn[k] = $1 } }
         END { for (k in t) printf "%s: nncert %.4f ms, best peer %s %.4f ms, speedup %.1fx, %.0f%% of the DRAM bandwidth bound, %.0f%% of a same-size copy\n",
                   k, t[k], pn[k], p[k], p[k] / t[k], 100 * fr[k], 100 * fc[k] }' results/gnn.csv | sort
