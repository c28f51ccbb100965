#!/usr/bin/env bash
# make bench-zk: circuits of the zoo MLP and CNN, LeNet-5 and VGG16 (random
# weights, CIFAR-sized inputs) under each privacy setting -> results/zk.csv,
# results/zk.svg; accuracy of the quantised zoo models against the float ones
# on the Fashion-MNIST test set -> results/zk-accuracy.csv; published figures
# of other systems -> results/zk-published.csv; the machine -> results/zk-machine.txt.
# Proving (Groth16 setup + prove + verify) runs where the development setup
# fits this CPU (BENCH_ZK_PROVE: space-separated model/privacy pairs); each
# proof is verified in process by nncert and, from the files it writes, by
# snarkjs groth16 verify (column snarkjs_verify: ok, FAIL, or empty).
# BENCH_ZK_ONLY="mlp/weights lenet5/both ...": run only those model/privacy
# rows (proving them when BENCH_ZK_PROVE names them too) and replace them in
# the existing results/zk.csv, keeping every other row; the plot is redrawn
# and the accuracy table is left as it is.
set -e
. tests/bench/machine.bash
BUILD=${BUILD:-build}
B=$BUILD/bench/bench_zk
D=$BUILD/bench/zk
PY=/usr/bin/python3
mkdir -p results "$D"
PROVE=${BENCH_ZK_PROVE:-"mlp/input cnn/input lenet5/input cnn/both"}
SNARKJS=tests/peers/node_modules/.bin/snarkjs
COMMIT="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- . ':!results' 2>/dev/null || echo ' (uncommitted changes)')"
machine() {
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
    echo "cpu flags: $(nnc_bench_cpu_flags)(setup's fixed-base combs and the NTT use IFMA where present)"
    echo "commit: $COMMIT"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}
if [ -n "${BENCH_ZK_ONLY:-}" ]; then
    { echo; echo "rows re-run (BENCH_ZK_ONLY=\"$BENCH_ZK_ONLY\", BENCH_ZK_PROVE=\"$PROVE\"):"; machine; } >>results/zk-machine.txt
else
    machine >results/zk-machine.txt
fi
have_models=1
$PY tests/bench/zk_models.py "$D" >/dev/null 2>&1 || { echo "bench-zk: LeNet-5/VGG16 skipped (python3-torch/onnx missing)" >&2; have_models=0; }
ONLY=${BENCH_ZK_ONLY:-}
out=results/zk.csv
if [ -n "$ONLY" ]; then
    [ -r "$out" ] || { echo "bench-zk: BENCH_ZK_ONLY needs an existing $out to merge into" >&2; exit 1; }
    final=$out
    out=$(mktemp)
fi
echo "model,privacy,bits,macs,constraints,wires,constraints_per_mac,circuit_s,witness_s,setup_s,prove_s,verify_s,proof_json_bytes,peak_rss_mb,constraints_unpacked,snarkjs_verify" >"$out"
run() { # NAME MODEL PRIVACY [CALIB]
    local p=0 row js=""
    if [ -n "$ONLY" ]; then case " $ONLY " in *" $1/$3 "*) ;; *) return 0;; esac; fi
    case " $PROVE " in *" $1/$3 "*) p=1;; esac
    row=$(BENCH_ZK_FILES="$D" "$B" circuit "$1" "$2" "$3" "$p" ${4:+"$4"}) || { echo "bench-zk: $1/$3 failed" >&2; return 0; }
    if [ "$p" = 1 ] && [ -x "$SNARKJS" ]; then
        js=FAIL
        "$SNARKJS" groth16 verify "$D/$1-$3-vk.json" "$D/$1-$3-public.json" "$D/$1-$3-proof.json" 2>&1 | grep -q 'OK!' && js=ok
    fi
    echo "$row,$js" | tee -a "$out"
}
for priv in input weights both; do
    run mlp models/zoo/mlp.onnx "$priv" models/zoo/sample_batch.npy
    run cnn models/zoo/cnn.onnx "$priv" models/zoo/sample_batch.npy
    [ "$have_models" = 1 ] && run lenet5 "$D/lenet5.onnx" "$priv"
done
# VGG16: with private weights (about 180M constraints, 10 minutes each on 2
# cores) counted only, unless BENCH_ZK_PROVE names them
if [ "$have_models" = 1 ]; then
    for priv in input weights both; do run vgg16 "$D/vgg16.onnx" "$priv"; done
fi
if [ -n "$ONLY" ]; then
    # merge: the new rows replace the old ones of the same model/privacy
    awk -F, 'NR == FNR { if (FNR > 1) new[$1 "," $2] = $0; next }
             FNR == 1 || !(($1 "," $2) in new) { print; next }
             { print new[$1 "," $2]; delete new[$1 "," $2] }
             END { for (k in new) print new[k] }' "$out" "$final" >"$final.tmp"
    mv "$final.tmp" "$final"; rm -f "$out"; out=$final
    $PY tests/bench/zk_plot.py "$out" results/zk.svg
    exit 0
fi
$PY tests/bench/zk_plot.py "$out" results/zk.svg
# accuracy of the quantised zoo models
if [ -r /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz ]; then
    $PY - "$D" <<'PYEOF'
import gzip, sys, numpy as np
d = sys.argv[1]
def idx(p):
    b = gzip.open(p).read(); n = b[3]; dims = [int.from_bytes(b[4+4*i:8+4*i], "big") for i in range(n)]
    return np.frombuffer(b, np.uint8, offset=4+4*n).reshape(dims)
x = idx("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz").astype(np.float32)[:, None] / 255.0
y = idx("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz").astype(np.int64)
np.save(f"{d}/fmnist_x.npy", x); np.save(f"{d}/fmnist_y.npy", y)
PYEOF
    echo "model,bits,images,float_accuracy,quantised_accuracy,argmax_agreement,out_of_range" >results/zk-accuracy.csv
    for m in mlp cnn; do
        "$B" accuracy "$m" "models/zoo/$m.onnx" models/zoo/sample_batch.npy "$D/fmnist_x.npy" "$D/fmnist_y.npy" 6 8 10 | tee -a results/zk-accuracy.csv
    done
else
    echo "bench-zk: accuracy skipped (dataset-fashion-mnist not installed)" >&2
fi
cp tests/bench/zk_published.csv results/zk-published.csv
