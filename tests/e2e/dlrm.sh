#!/usr/bin/env bash
# DLRM workloads (nncert/embbag.h, dist/dlrm.h):
#  - the fused embedding bag against torch.nn.EmbeddingBag on the same table
#    and bags (sum and mean; dims 16, 64, 128);
#  - the zoo DLRM (models/zoo/dlrm.onnx) through nncert run against torch and
#    onnxruntime;
#  - distributed runs (simulated devices and mpirun -np 2/3) bit-identical
#    to nncert run, for every placement kind;
#  - the planner's predicted per-device lookups and bytes equal to those
#    counted while executing the plan (simulated and MPI), on the synthetic
#    Zipf trace and the real Criteo rows in ../shared;
#  - bad traces and options: one-line errors, sysexits codes.
. "$(dirname "$0")/lib.bash"
Z=models/zoo
PY=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import torch, onnx, numpy' 2>/dev/null; then PY=$p; break; fi
done
cmp() { # NAME A B RTOL
    local r
    r=$("$BUILD/tools/cmp_outputs" "$2" "$3" "$4" 0 2>&1)
    if [ $? -eq 0 ]; then pass "$1 (${r##*scale })"; else fail "$1: $(echo "$r" | tail -n 1)"; fi
}

# ---- embedding bags against torch.nn.EmbeddingBag
if [ -z "$PY" ]; then
    skip embbag-torch "no python3 with torch, onnx and numpy (Debian: python3-torch, python3-onnx)"
else
    for c in "sum 16 4" "sum 64 1" "sum 128 7" "mean 16 3" "mean 64 5"; do
        set -- $c
        mkdir -p "$TMP/eb"
        if ! "$PY" $Z/dlrm.py embbag-check --out "$TMP/eb" --mode "$1" --dim "$2" --len "$3" --bags 200 --rows 5000 --seed "$2" 2>"$TMP/err"; then
            fail "embbag-torch-$1-$2 (generator: $(tail -n 1 "$TMP/err"))"; continue; fi
        if ! "$NNCERT" info "$TMP/eb/embbag.onnx" | grep -q 'EmbeddingBag x1'; then fail "embbag-fused-$1-$2 (not fused)"; continue; fi
        if ! "$NNCERT" run "$TMP/eb/embbag.onnx" --input "$TMP/eb/ids.json" --output "$TMP/eb/nn.json" 2>"$TMP/err"; then
            fail "embbag-torch-$1-$2 ($(cat "$TMP/err"))"; continue; fi
        # torch (fbgemm) may sum in another order: float32 rounding apart
        cmp "embbag-torch-$1-dim$2-len$3" "$TMP/eb/nn.json" "$TMP/eb/torch.json" 1e-6
    done
fi

# ---- the zoo DLRM against torch and onnxruntime
if "$NNCERT" info $Z/dlrm.onnx | grep -q 'EmbeddingBag x8'; then pass dlrm-info-fused; else fail "dlrm-info-fused (no EmbeddingBag x8)"; fi
if [ -n "$PY" ]; then
    "$PY" $Z/dlrm.py to-json $Z/dlrm.onnx $Z/dlrm_trace.txt --out "$TMP/in.json"
    "$PY" $Z/dlrm.py torch-run $Z/dlrm.onnx $Z/dlrm_trace.txt --out "$TMP/torch.json"
    if "$NNCERT" run $Z/dlrm.onnx --input "$TMP/in.json" --output "$TMP/nn.json" 2>"$TMP/err"; then
        cmp dlrm-run-vs-torch "$TMP/nn.json" "$TMP/torch.json" 1e-5
        if [ -d tests/peers/node_modules/onnxruntime-node ] && command -v node >/dev/null; then
            if node tests/peers/ort_run.js $Z/dlrm.onnx "$TMP/in.json" "$TMP/ort.json" 2>"$TMP/err"; then
                cmp dlrm-run-vs-onnxruntime "$TMP/nn.json" "$TMP/ort.json" 1e-5
            else fail "dlrm-run-vs-onnxruntime ($(tail -n 1 "$TMP/err"))"; fi
        else skip dlrm-run-vs-onnxruntime "onnxruntime-node not installed"; fi
    else fail "dlrm-run ($(cat "$TMP/err"))"; fi
else
    skip dlrm-run-vs-torch "no python3 with torch"
fi

# ---- distributed runs equal the single process, bit for bit
if [ -f "$TMP/nn.json" ]; then
    for p in auto table row column replicated; do
        if "$NNCERT" dlrm-run $Z/dlrm.onnx --trace $Z/dlrm_trace.txt --devices 3 --plan $p --output "$TMP/d.json" 2>"$TMP/err"; then
            cmp "dlrm-sim3-$p-equals-run" "$TMP/d.json" "$TMP/nn.json" 0
        else fail "dlrm-sim3-$p ($(cat "$TMP/err"))"; fi
    done
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if ! command -v mpirun >/dev/null; then
    skip dlrm-mpi "mpirun not installed (Debian: openmpi-bin)"
elif [ -f "$TMP/nn.json" ]; then
    for np in 2 3; do
        plans="auto table row"
        [ $np -eq 3 ] && plans=row
        "$NNCERT" plan $Z/dlrm.onnx --trace $Z/dlrm_trace.txt --devices $np --json "$TMP/plan$np.json" >/dev/null 2>"$TMP/err" ||
            { fail "dlrm-plan-$np ($(cat "$TMP/err"))"; continue; }
        for p in $plans; do
            if timeout 120 "${MPIRUN[@]}" -np $np "$NNCERT" dlrm-run $Z/dlrm.onnx --trace $Z/dlrm_trace.txt --plan $p \
                --output "$TMP/m.json" --counters "$TMP/c.json" >"$TMP/out" 2>"$TMP/err"; then
                cmp "dlrm-mpirun-np$np-$p-equals-run" "$TMP/m.json" "$TMP/nn.json" 0
                key=$(case $p in auto) echo chosen;; table) echo table_wise;; row) echo row_wise;; esac)
                if python3 - "$TMP/plan$np.json" "$TMP/c.json" "$key" <<'PY'; then pass "dlrm-mpirun-np$np-$p-counters-as-predicted"; else fail "dlrm-mpirun-np$np-$p-counters-as-predicted"; fi
import json, sys
pred = json.load(open(sys.argv[1]))["plans"][sys.argv[3]]["predicted"]
meas = json.load(open(sys.argv[2]))
keys = ("lookups", "read_bytes", "sent_bytes", "recv_bytes", "mem_bytes")
bad = [k for k in keys if pred[k] != meas[k]]
if bad or sum(meas["lookups"]) == 0:
    print("differ:", {k: (pred[k], meas[k]) for k in bad}); sys.exit(1)
PY
            else fail "dlrm-mpirun-np$np-$p (exit $?: $(grep -v '^$' "$TMP/err" | tail -n 2 | tr '\n' ' '))"; fi
        done
    done
fi

# ---- planner: predicted counters equal the measured ones (simulated devices)
plan_check() { # NAME TRACE D
    if "$NNCERT" plan $Z/dlrm.onnx --trace "$2" --devices "$3" --measure >"$TMP/p.out" 2>"$TMP/err"; then
        local n
        n=$(grep -c 'counters equal the prediction' "$TMP/p.out")
        if [ "$n" -eq 3 ]; then pass "$1 ($(grep -o '([0-9.]*x lower[^)]*)' "$TMP/p.out"))"; else fail "$1 ($n of 3 plans as predicted)"; fi
    else fail "$1 (exit $?: $(cat "$TMP/err"))"; fi
}
for d in 2 4 8; do plan_check "dlrm-plan-zipf-d$d-measured-equals-predicted" $Z/dlrm_trace.txt $d; done
C=$SHARED/data/graphs/dlrm/criteo_sample.txt
if [ -f "$C" ] && [ -n "$PY" ]; then
    "$PY" $Z/dlrm.py criteo "$C" --out "$TMP/criteo.txt"
    for d in 2 8; do plan_check "dlrm-plan-criteo-d$d-measured-equals-predicted" "$TMP/criteo.txt" $d; done
    if "$NNCERT" dlrm-run $Z/dlrm.onnx --trace "$TMP/criteo.txt" --devices 4 --output "$TMP/dc.json" 2>"$TMP/err" &&
       "$PY" $Z/dlrm.py to-json $Z/dlrm.onnx "$TMP/criteo.txt" --out "$TMP/cin.json" &&
       "$NNCERT" run $Z/dlrm.onnx --input "$TMP/cin.json" --output "$TMP/cnn.json" 2>>"$TMP/err"; then
        cmp dlrm-criteo-sim4-equals-run "$TMP/dc.json" "$TMP/cnn.json" 0
    else fail "dlrm-criteo-sim4 ($(cat "$TMP/err"))"; fi
else
    skip dlrm-plan-criteo "../shared/data/graphs/dlrm or torch not present"
fi

# ---- verification: ids fixed, dense features in a box; sampled points inside the bounds
for c in "1 0" "2 0.05" "3 0.5" "7 2"; do
    set -- $c
    if "$NNCERT" dlrm-bounds $Z/dlrm.onnx --trace $Z/dlrm_trace.txt --sample "$1" --eps "$2" --points 1000 --seed "$1" >"$TMP/b.out" 2>"$TMP/err"; then
        pass "dlrm-bounds-sample$1-eps$2 ($(tail -n 1 "$TMP/b.out" | cut -d: -f2))"
    else fail "dlrm-bounds-sample$1-eps$2 (exit $?: $(cat "$TMP/b.out" "$TMP/err" | tail -n 2 | tr '\n' ' '))"; fi
done

# ---- bad input
head -n 3 $Z/dlrm_trace.txt >"$TMP/t.txt"
sed 's/,[0-9:]*$/,650/' "$TMP/t.txt" >"$TMP/oob.txt"
expect_error dlrm-plan-id-out-of-range 65 "id 650 is outside table 7" "$NNCERT" plan $Z/dlrm.onnx --trace "$TMP/oob.txt" --devices 2
sed 's/,[0-9:]*$//' "$TMP/t.txt" >"$TMP/short.txt"
expect_error dlrm-plan-short-line 65 "line 2: 20 fields, expected 21" "$NNCERT" plan $Z/dlrm.onnx --trace "$TMP/short.txt" --devices 2
sed 's/,[0-9:]*$/,-3/' "$TMP/t.txt" >"$TMP/neg.txt"
expect_error dlrm-plan-negative-id 65 "'-3' is not a row id" "$NNCERT" plan $Z/dlrm.onnx --trace "$TMP/neg.txt" --devices 2
sed 's/,[0-9:]*$/,1:2/' "$TMP/t.txt" >"$TMP/len.txt"
expect_error dlrm-run-bag-length 65 "table 7's bag holds 2 ids, the model's input 'cat_7' 4" "$NNCERT" dlrm-run $Z/dlrm.onnx --trace "$TMP/len.txt"
expect_error dlrm-plan-devices 64 "devices must be 1..64" "$NNCERT" plan $Z/dlrm.onnx --trace $Z/dlrm_trace.txt --devices 0
expect_error dlrm-plan-more-devices-than-samples 64 "fewer than the 5 devices" "$NNCERT" plan $Z/dlrm.onnx --trace "$TMP/t.txt" --devices 5
expect_error dlrm-plan-missing-trace 66 "no-such" "$NNCERT" plan $Z/dlrm.onnx --trace "$TMP/no-such.txt" --devices 2
expect_error dlrm-plan-not-a-dlrm 65 "no embedding bag" "$NNCERT" plan $Z/mlp.onnx --trace $Z/dlrm_trace.txt --devices 2
expect_error dlrm-run-bad-plan 64 "plan must be auto" "$NNCERT" dlrm-run $Z/dlrm.onnx --trace $Z/dlrm_trace.txt --plan diagonal
expect_error dlrm-plan-memory 75 "no placement fits 1000 bytes" "$NNCERT" plan $Z/dlrm.onnx --trace $Z/dlrm_trace.txt --devices 2 --mem-per-device 1000
if "$NNCERT" plan --help | grep -q 'usage: nncert plan' && "$NNCERT" dlrm-run --help | grep -q 'usage: nncert dlrm-run'; then pass dlrm-help; else fail dlrm-help; fi

# ---- nncert verify on the DLRM: ids fixed (from the trace or in the spec),
# dense features in a box; linear bounds (McCormick planes through the
# interaction) against --ibp, and the bounds' width against dlrm-bounds'
# interval bounds
# mkspec SAMPLE EPS OP THRESHOLD WITH_IDS: VNN-LIB around trace sample
# SAMPLE, unsafe where (OP Y_0 THRESHOLD); WITH_IDS=1 adds the ids as fixed inputs
mkspec() {
    awk -F, -v k="$1" -v eps="$2" -v op="$3" -v thr="$4" -v ids="$5" '
        /^#/ || NF == 0 { next }
        ++n == k {
            nd = 13; ni = 0
            for (t = nd + 1; t <= NF; t++) { c = split($t, a, ":"); for (j = 1; j <= c; j++) id[ni++] = a[j] }
            nx = nd + (ids ? ni : 0)
            for (i = 0; i < nx; i++) printf "(declare-const X_%d Real)\n", i
            print "(declare-const Y_0 Real)"
            for (i = 0; i < nd; i++) printf "(assert (>= X_%d %.17g))\n(assert (<= X_%d %.17g))\n", i, $(i + 1) - eps, i, $(i + 1) + eps
            if (ids) for (j = 0; j < ni; j++) printf "(assert (= X_%d %s))\n", nd + j, id[j]
            printf "(assert (%s Y_0 %s))\n", op, thr
            exit
        }' $Z/dlrm_trace.txt
}
for c in "2 0.05" "3 0.5" "7 2"; do
    set -- $c
    "$NNCERT" dlrm-bounds $Z/dlrm.onnx --trace $Z/dlrm_trace.txt --sample "$1" --eps "$2" --points 2000 >"$TMP/b.out" 2>&1
    r=$(sed -n 's/.*(\([0-9.e+]*\)x narrower).*/\1/p' "$TMP/b.out")
    if [ -n "$r" ] && awk -v r="$r" 'BEGIN { exit !(r > 1) }'; then pass "dlrm-linear-narrower-than-interval-sample$1-eps$2 (${r}x)"
    else fail "dlrm-linear-narrower-than-interval-sample$1-eps$2 ($(tail -n 2 "$TMP/b.out" | tr '\n' ' '))"; fi
done
mkspec 3 0.1 '<=' 0.503 0 >"$TMP/d.vnnlib"
mkspec 3 0.1 '<=' 0.503 1 >"$TMP/di.vnnlib"
expect_exit dlrm-verify-trace-holds 0 "$NNCERT" verify $Z/dlrm.onnx "$TMP/d.vnnlib" --trace $Z/dlrm_trace.txt --sample 3 --timeout 20 --json "$TMP/v1.json"
expect_exit dlrm-verify-ids-in-spec-holds 0 "$NNCERT" verify $Z/dlrm.onnx "$TMP/di.vnnlib" --timeout 20 --json "$TMP/v2.json"
# the gate runs the same DLRM check from its configuration (trace, sample)
D_ABS=$(readlink -f $Z/dlrm.onnx); T_ABS=$(readlink -f $Z/dlrm_trace.txt)
cat >"$TMP/gd.json" <<EOF
{"checks": [{"name": "dlrm-s3", "type": "verify", "model": "$D_ABS", "spec": "$TMP/d.vnnlib", "trace": "$T_ABS",
  "sample": 3, "timeout": 20, "max_violation": 0},
 {"name": "dlrm-s99", "type": "verify", "model": "$D_ABS", "spec": "$TMP/d.vnnlib", "trace": "$T_ABS", "sample": 99999}]}
EOF
"$NNCERT" gate "$TMP/gd.json" --summary "$TMP/gd_summary.json" >/dev/null 2>&1
rc=$?
if [ $rc -ne 0 ] && python3 - "$TMP/gd_summary.json" <<'PY'
import json, sys
c = {r["name"]: r for r in json.load(open(sys.argv[1]))["checks"]}
a, b = c["dlrm-s3"], c["dlrm-s99"]
assert a["status"] == "pass" and a["certified_safe_fraction"] == 1 and a["sample"] == 3 and len(a["trace"]["sha256"]) == 64, a
assert b["status"] == "error" and "not in the trace" in b["message"], b
PY
then pass dlrm-gate-trace-sample
else fail "dlrm-gate-trace-sample (exit $rc)"; fi
check_schema dlrm-gate-summary-schema schema/gate-summary.schema.json "$TMP/gd_summary.json"
if grep -q '"certified_safe_fraction": 1,' "$TMP/v1.json" 2>/dev/null && grep -q '"certified_safe_fraction": 1,' "$TMP/v2.json" 2>/dev/null; then
    pass dlrm-verify-certified-whole-box
else fail "dlrm-verify-certified-whole-box ($(grep -h certified_safe "$TMP/v1.json" "$TMP/v2.json" 2>&1 | tr '\n' ' '))"; fi
# intervals alone certify nothing of the same box in the same budget
"$NNCERT" verify $Z/dlrm.onnx "$TMP/d.vnnlib" --trace $Z/dlrm_trace.txt --sample 3 --timeout 2 --samples 500 --ibp --json "$TMP/v3.json" >/dev/null 2>&1
if grep -q '"result": "unknown"' "$TMP/v3.json" 2>/dev/null; then pass "dlrm-verify-ibp-weaker ($(grep -o '"certified_safe_fraction": [0-9.e-]*' "$TMP/v3.json"))"
else fail "dlrm-verify-ibp-weaker ($(cat "$TMP/v3.json" 2>&1 | head -n 3 | tr '\n' ' '))"; fi
# a threshold the box crosses: a validated counterexample, most of the box certified
mkspec 3 0.1 '<=' 0.505 0 >"$TMP/dv.vnnlib"
expect_exit dlrm-verify-violated 1 "$NNCERT" verify $Z/dlrm.onnx "$TMP/dv.vnnlib" --trace $Z/dlrm_trace.txt --sample 3 --timeout 30 --samples 2000 --json "$TMP/v4.json"
if python3 - "$TMP/v4.json" <<'PY'; then pass dlrm-verify-violated-report; else fail dlrm-verify-violated-report; fi
import json, sys
r = json.load(open(sys.argv[1]))
c = r["counterexample"]
ok = r["result"] == "violated" and c is not None and len(c["input"]) == 13 and c["output"][0] <= 0.505
ok = ok and r["certified_safe_fraction"] > 0.5 and 0 < r["violation_fraction"]["lower"] <= r["violation_fraction"]["upper"] < 0.5
sys.exit(0 if ok else 1)
PY
# bad input
expect_error dlrm-verify-spec-dims 65 "this DLRM takes 13 dense and 14 categorical" "$NNCERT" verify $Z/dlrm.onnx "$TMP/d.vnnlib"
sed 's/(assert (= X_13 \([0-9]*\)))/(assert (>= X_13 \1))(assert (<= X_13 100000))/' "$TMP/di.vnnlib" >"$TMP/dl.vnnlib"
expect_error dlrm-verify-id-not-fixed 65 "X_13 must be fixed" "$NNCERT" verify $Z/dlrm.onnx "$TMP/dl.vnnlib"
sed 's/(assert (= X_26 [0-9]*))/(assert (= X_26 650))/' "$TMP/di.vnnlib" >"$TMP/do.vnnlib"
expect_error dlrm-verify-id-out-of-range 65 "id 650 is outside the table's 650 rows" "$NNCERT" verify $Z/dlrm.onnx "$TMP/do.vnnlib"
sed 's/(assert (= X_26 [0-9]*))/(assert (= X_26 2.5))/' "$TMP/di.vnnlib" >"$TMP/df.vnnlib"
expect_error dlrm-verify-id-not-integer 65 "not an integer id" "$NNCERT" verify $Z/dlrm.onnx "$TMP/df.vnnlib"
expect_error dlrm-verify-trace-wrong-spec 65 "with a trace the spec covers the 13 dense inputs" "$NNCERT" verify $Z/dlrm.onnx "$TMP/di.vnnlib" --trace $Z/dlrm_trace.txt
# a sample number past int64 (read as negative before) is named, not read out of bounds
expect_error dlrm-verify-trace-huge-sample 64 "sample 18446744073709551615 is not in the trace" "$NNCERT" verify $Z/dlrm.onnx \
    "$TMP/d.vnnlib" --trace $Z/dlrm_trace.txt --sample 18446744073709551615
expect_error dlrm-verify-trace-not-dlrm 64 "trace is for models with categorical" "$NNCERT" verify $Z/mlp.onnx "$TMP/d.vnnlib" --trace $Z/dlrm_trace.txt
