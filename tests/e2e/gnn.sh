#!/usr/bin/env bash
# Graph models end to end: the synthetic-graph generator, GCN and
# GraphSAGE-mean outputs against an independent torch evaluation
# (tests/e2e/gnn_ref.py, 1e-5 relative), the zoo models' test accuracy on
# Cora/CiteSeer (../shared), multi-process aggregation under mpirun equal to
# one process bit for bit, node-robustness verification with sampled
# soundness of the bounds, and bad graph inputs.
. "$(dirname "$0")/lib.bash"
Z=models/zoo
G=$SHARED/data/graphs/converted
PY=/usr/bin/python3
have_torch=0
$PY -c 'import torch, onnx, numpy' 2>/dev/null && have_torch=1
have_mpi=0
command -v mpirun >/dev/null && have_mpi=1

# the generator is deterministic and made the shipped synthetic graph
if "$BUILD/tools/gen_graph" --nodes 200 --degree 6 --gamma 2.5 --seed 1 --out "$TMP/s.csr" >"$TMP/gen.txt" &&
   cmp -s "$TMP/s.csr" $Z/synth.csr && grep -q '^nodes 200 ' "$TMP/gen.txt"; then
    pass gen-graph-deterministic
else fail "gen-graph-deterministic $(cat "$TMP/gen.txt")"; fi
expect_exit gen-graph-bad-args 64 "$BUILD/tools/gen_graph" --nodes 0 --degree 3 --out "$TMP/x.csr"

# synthetic models run without ../shared; compare with torch when present
for m in gcn_synth sage_synth; do
    if "$NNCERT" run $Z/$m.onnx --input $Z/synth_features.npy --output "$TMP/$m.json" &&
       grep -q '"shape": \[200, 3\]' "$TMP/$m.json"; then
        pass "run-$m"
        if [ $have_torch = 1 ]; then
            if r=$($PY tests/e2e/gnn_ref.py $Z/$m.onnx $Z/synth_features.npy "$TMP/$m.json" 1e-5); then pass "torch-$m ($r)"
            else fail "torch-$m ($r)"; fi
        else skip "torch-$m (python3-torch missing)"; fi
    else fail "run-$m"; fi
done

# real graphs: outputs against torch, predictions against the recorded accuracy
for g in cora citeseer; do
    if [ ! -f "$G/$g.feat" ] || [ $have_torch = 0 ]; then skip "graph-$g (needs $G and python3-torch)"; continue; fi
    $PY tests/e2e/gnn_ref.py --features "$G" $g "$TMP/$g.npy"
    for m in gcn sage; do
        [ -f $Z/${m}_$g.onnx ] || continue
        if ! "$NNCERT" run $Z/${m}_$g.onnx --input "$TMP/$g.npy" --output "$TMP/${m}_$g.json"; then fail "run-${m}_$g"; continue; fi
        if r=$($PY tests/e2e/gnn_ref.py $Z/${m}_$g.onnx "$TMP/$g.npy" "$TMP/${m}_$g.json" 1e-5); then pass "torch-${m}_$g ($r)"
        else fail "torch-${m}_$g ($r)"; fi
        acc=$($PY - "$G/$g.labels" "$TMP/${m}_$g.json" $Z/gnn_accuracy.json ${m}_$g <<'EOF'
import json, struct, sys
import numpy as np
b = open(sys.argv[1], 'rb').read(); n = struct.unpack('<i', b[8:12])[0]
y = np.frombuffer(b, '<i4', n, 24); split = np.frombuffer(b, 'u1', n, 24 + 4 * n)
o = json.load(open(sys.argv[2]))['outputs']['logits']; p = np.array(o['data']).reshape(o['shape']).argmax(1)
te = (split == 3) & (y >= 0); got = float((p[te] == y[te]).mean())
want = json.load(open(sys.argv[3]))[sys.argv[4]]['test_accuracy']
print('%.4f %.4f %s' % (got, want, 'ok' if abs(got - want) <= 0.002 else 'differs'))
EOF
)
        case $acc in *ok) pass "accuracy-${m}_$g ($acc)" ;; *) fail "accuracy-${m}_$g ($acc)" ;; esac
    done
done

# mpirun: the partitioned aggregation equals one process bit for bit
if [ $have_mpi = 1 ]; then
    for np in 2 3; do
        "${MPIRUN[@]}" -np $np "$BUILD/tools/dist_gnn_check" >"$TMP/dist.txt" 2>&1
        case $? in
        0) pass "dist-kernel-np$np" ;;
        77) skip "dist-kernel-np$np (built without MPI)" ;;
        *) fail "dist-kernel-np$np $(tail -3 "$TMP/dist.txt")" ;;
        esac
    done
    runs=("gcn_synth $Z/synth_features.npy" "sage_synth $Z/synth_features.npy")
    [ -f "$TMP/cora.npy" ] && runs+=("gcn_cora $TMP/cora.npy")
    for r in "${runs[@]}"; do
        set -- $r
        "$NNCERT" run $Z/$1.onnx --input "$2" --output "$TMP/one.json"
        if "${MPIRUN[@]}" -np 2 "$NNCERT" run $Z/$1.onnx --input "$2" --distributed --output "$TMP/two.json" >"$TMP/mpi.txt" 2>&1 &&
           cmp -s "$TMP/one.json" "$TMP/two.json"; then pass "mpirun-np2-bitwise-$1"
        else fail "mpirun-np2-bitwise-$1 $(tail -3 "$TMP/mpi.txt")"; fi
    done
else
    skip "mpirun (Open MPI missing)"
fi

# node robustness: spec over the features of chosen nodes, sound bounds, verify
if "$BUILD/tools/gnn_robust" $Z/gcn_synth.onnx $Z/synth_features.npy --node 5 --perturb 5,0,2,4 --eps 0.3 \
       --spec "$TMP/node5.vnnlib" --samples 2000 >"$TMP/rob.txt" 2>&1; then pass "bounds-sound-gcn ($(cat "$TMP/rob.txt"))"
else fail "bounds-sound-gcn $(head -3 "$TMP/rob.txt")"; fi
# back-substitution through the fixed A certifies the margin where intervals cannot
if awk '{ for (i = 1; i < NF; i++) { if ($i == "ibp" && $(i + 1) ~ /^[-0-9.e+]+$/) ibp = $(i + 1); if ($i == "linear") lin = $(i + 1) } }
        END { exit !(lin > 0 && ibp < 0) }' "$TMP/rob.txt"; then pass bounds-linear-beats-interval
else fail "bounds-linear-beats-interval $(cat "$TMP/rob.txt")"; fi
if "$BUILD/tools/gnn_robust" $Z/sage_synth.onnx $Z/synth_features.npy --node 0 --perturb 0,1,2,3,4,5 --eps 1.0 \
       --samples 2000 >"$TMP/rob2.txt" 2>&1; then pass "bounds-sound-sage ($(cat "$TMP/rob2.txt"))"
else fail "bounds-sound-sage $(head -3 "$TMP/rob2.txt")"; fi
if "$NNCERT" verify $Z/gcn_synth.onnx "$TMP/node5.vnnlib" --samples 500 --json "$TMP/v.json" >/dev/null &&
   grep -q '"result": "holds"' "$TMP/v.json"; then pass verify-node-robust
else fail "verify-node-robust $(head -c 300 "$TMP/v.json" 2>/dev/null)"; fi
# a large eps: the verifier must not claim "holds" if a sampled point flips the class
"$BUILD/tools/gnn_robust" $Z/gcn_synth.onnx $Z/synth_features.npy --node 5 --perturb 5,0,2,4 --eps 5 \
    --spec "$TMP/big.vnnlib" --samples 0 >/dev/null
"$NNCERT" verify $Z/gcn_synth.onnx "$TMP/big.vnnlib" --samples 2000 --json "$TMP/vb.json" >/dev/null
rc=$?
if [ $rc -le 2 ] && $PY - "$TMP/vb.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
lo, hi = r['violation_fraction']['lower'], r['violation_fraction']['upper']
ok = 0 <= lo <= hi <= 1 and (r['result'] != 'holds' or r['sample_violations'] == 0)
ok = ok and (r['result'] != 'violated' or r['counterexample'] is not None)
sys.exit(0 if ok else 1)
EOF
then pass "verify-node-large-eps (exit $rc)"; else fail "verify-node-large-eps (exit $rc)"; fi

# bad graph inputs: wrong feature shape, sparse adjacency with bad indices
$PY -c 'import numpy as np; np.save("'"$TMP"'/short.npy", np.zeros((199, 8), np.float32))'
expect_error run-gnn-wrong-shape 65 "error" "$NNCERT" run $Z/gcn_synth.onnx --input "$TMP/short.npy"
if $PY -c 'import onnx' 2>/dev/null; then
    for bad in range unsorted duplicate shape; do
        $PY - $Z/gcn_synth.onnx "$TMP/bad_$bad.onnx" $bad <<'EOF'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1]); kind = sys.argv[3]
sp = m.graph.sparse_initializer[0]
idx = numpy_helper.to_array(sp.indices).copy()
if kind == 'range': idx[-1] = sp.dims[0] * sp.dims[1] + 7
elif kind == 'unsorted': idx[[3, 4]] = idx[[4, 3]]
elif kind == 'duplicate': idx[4] = idx[3]
elif kind == 'shape': sp.dims[1] = sp.dims[1] + 1; idx = idx // (sp.dims[1] - 1) * sp.dims[1] + idx % (sp.dims[1] - 1)
sp.indices.CopyFrom(numpy_helper.from_array(idx.astype(np.int64), sp.indices.name))
onnx.save(m, sys.argv[2])
EOF
    done
    expect_error gnn-bad-index-range 65 "outside" "$NNCERT" run "$TMP/bad_range.onnx" --input $Z/synth_features.npy
    expect_error gnn-bad-index-unsorted 65 "order" "$NNCERT" run "$TMP/bad_unsorted.onnx" --input $Z/synth_features.npy
    expect_error gnn-bad-index-duplicate 65 "duplicate" "$NNCERT" run "$TMP/bad_duplicate.onnx" --input $Z/synth_features.npy
    expect_error gnn-bad-shape 65 "MatMul" "$NNCERT" run "$TMP/bad_shape.onnx" --input $Z/synth_features.npy
else
    skip "gnn-bad-sparse (python3-onnx missing)"
fi
