#!/usr/bin/env bash
# End-to-end tests of `nncert bounds` on the shipped dense and conv models:
#  - soundness: 300 points drawn in the box, run in float64 by `nncert run`
#    (an independent code path: the reference runtime), lie within every
#    method's bounds;
#  - ordering: crown's intervals lie within ibp's, alpha's within crown's;
#  - the box of a spec written by `spec linf` gives the same bounds as
#    --input/--eps/--clip; the JSON form carries the same numbers;
#  - usage errors and a spec of the wrong size are refused by name.
. "$(dirname "$0")/lib.bash"
Z=models/zoo

for model in mlp cnn; do
    M=$Z/$model.onnx
    for m in ibp crown alpha; do
        "$NNCERT" bounds "$M" --input $Z/sample_input.json --eps 0.01 --clip 0,1 --method $m --json "$TMP/$m.json" \
            >"$TMP/$m.txt" 2>"$TMP/err" || { fail "bounds-$model-$m (exit $?: $(head -c 200 "$TMP/err"))"; continue; }
    done
    python3 - "$Z/sample_input.json" "$TMP/pts.json" <<'PY'
import json, random, sys
x = json.load(open(sys.argv[1]))
def flat(v): return [z for y in v for z in flat(y)] if isinstance(v, list) else [v]
x = flat(x)
random.seed(5)
pts = []
for s in range(300):
    for v in x:
        lo, hi = max(v - 0.01, 0.0), min(v + 0.01, 1.0)
        # corners and faces as well as interior points
        r = random.random()
        pts.append(lo if r < 0.15 else hi if r < 0.3 else lo + (hi - lo) * random.random())
json.dump(pts, open(sys.argv[2], "w"))
PY
    "$NNCERT" run "$M" --input "$TMP/pts.json" --precision f64 --output "$TMP/run.json" 2>"$TMP/err" ||
        { fail "bounds-$model-run ($(head -c 200 "$TMP/err"))"; continue; }
    if python3 - "$TMP" "$TMP/run.json" 2>"$TMP/perr" <<'PY'
import json, sys
d = sys.argv[1]
B = {m: json.load(open(f"{d}/{m}.json")) for m in ("ibp", "crown", "alpha")}
for m, b in B.items():
    assert b["format"] == "nncert-bounds-1" and b["method"] == m and len(b["boxes"]) == 1, m
lo = {m: b["boxes"][0]["lower"] for m, b in B.items()}
hi = {m: b["boxes"][0]["upper"] for m, b in B.items()}
n = len(lo["ibp"])
for a, c in (("ibp", "crown"), ("crown", "alpha")):
    for j in range(n):
        assert lo[a][j] <= lo[c][j] <= hi[c][j] <= hi[a][j], (a, c, j, lo[a][j], lo[c][j], hi[c][j], hi[a][j])
out = next(iter(json.load(open(sys.argv[2]))["outputs"].values()))["data"]
assert len(out) == 300 * n, len(out)
for s in range(300):
    for j in range(n):
        y = out[s * n + j]
        assert lo["alpha"][j] <= y <= hi["alpha"][j], ("point", s, j, y, lo["alpha"][j], hi["alpha"][j])
# the text lines carry the same numbers
for m in B:
    lines = open(f"{d}/{m}.txt").read().split("\n")
    for j in range(n):
        l, u = lines[j].split("  [")[1].rstrip("]").split(", ")
        assert float(l) == lo[m][j] and float(u) == hi[m][j], (m, j)
PY
    then pass "bounds-$model-sound-and-ordered"; else fail "bounds-$model-sound-and-ordered: $(tail -1 "$TMP/perr")"; fi
done

# --layer: an intermediate value's bounds hold on the model cut after it
# (onnx.utils.extract_model, Debian's python3-onnx) run on the same points
L=/net/net.3/Gemm_output_0
if /usr/bin/python3 -c "import onnx.utils; onnx.utils.extract_model('$Z/mlp.onnx', '$TMP/sub.onnx', ['input'], ['$L'])" 2>/dev/null; then
    ok=1
    for m in ibp crown alpha; do
        "$NNCERT" bounds $Z/mlp.onnx --input $Z/sample_input.json --eps 0.01 --clip 0,1 --method $m --layer "$L" \
            --json "$TMP/l$m.json" >/dev/null 2>"$TMP/err" || { ok=0; fail "bounds-layer-$m ($(head -c 200 "$TMP/err"))"; }
    done
    "$NNCERT" run "$TMP/sub.onnx" --input "$TMP/pts.json" --precision f64 --output "$TMP/subrun.json" 2>"$TMP/err" || ok=0
    if [ $ok = 1 ] && python3 - "$TMP" "$L" 2>"$TMP/perr" <<'PY'
import json, sys
d, name = sys.argv[1], sys.argv[2]
B = {m: json.load(open(f"{d}/l{m}.json")) for m in ("ibp", "crown", "alpha")}
lo = {m: b["boxes"][0]["lower"] for m, b in B.items()}
hi = {m: b["boxes"][0]["upper"] for m, b in B.items()}
assert all(b["layer"] == name for b in B.values())
n = len(lo["ibp"])
assert n == 256, n
for a, c in (("ibp", "crown"), ("crown", "alpha")):
    for j in range(n):
        assert lo[a][j] <= lo[c][j] <= hi[c][j] <= hi[a][j], (a, c, j)
out = next(iter(json.load(open(f"{d}/subrun.json"))["outputs"].values()))["data"]
assert len(out) == 300 * n, len(out)
for s in range(300):
    for j in range(n):
        assert lo["alpha"][j] <= out[s * n + j] <= hi["alpha"][j], ("point", s, j)
# crown tightens a hidden layer somewhere
assert sum(hi["ibp"][j] - lo["ibp"][j] for j in range(n)) > 1.5 * sum(hi["crown"][j] - lo["crown"][j] for j in range(n))
PY
    then pass bounds-layer-sound-and-ordered; else fail "bounds-layer-sound-and-ordered: $(tail -1 "$TMP/perr" 2>/dev/null)"; fi
else
    skip "bounds-layer (no python3-onnx)"
fi
expect_error bounds-layer-unknown 65 "no run-time value named 'nope'" "$NNCERT" bounds $Z/mlp.onnx --input $Z/sample_input.json --eps 0.01 --layer nope

# a spec's box: the same bounds as the ball around the input
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.01 --clip 0,1 --output "$TMP/s.vnnlib"
"$NNCERT" bounds $Z/mlp.onnx --spec "$TMP/s.vnnlib" >"$TMP/spec.txt" 2>"$TMP/err"
"$NNCERT" bounds $Z/mlp.onnx --input $Z/sample_input.json --eps 0.01 --clip 0,1 >"$TMP/ball.txt" 2>>"$TMP/err"
cmp -s "$TMP/spec.txt" "$TMP/ball.txt" && [ -s "$TMP/spec.txt" ] && pass bounds-spec-equals-ball ||
    fail "bounds-spec-equals-ball ($(head -c 200 "$TMP/err"))"
"$NNCERT" bounds $Z/mlp.onnx --spec "$TMP/s.vnnlib" --json - >"$TMP/j.json" 2>"$TMP/err" &&
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['boxes'][0]['lower']) == 10" "$TMP/j.json" &&
    pass bounds-json-stdout || fail "bounds-json-stdout ($(head -c 200 "$TMP/err"))"

expect_error bounds-box-twice 64 "either as --spec" "$NNCERT" bounds $Z/mlp.onnx --spec "$TMP/s.vnnlib" --input $Z/sample_input.json --eps 0.1
expect_error bounds-no-box 64 "either as --spec" "$NNCERT" bounds $Z/mlp.onnx
expect_error bounds-input-needs-eps 64 "needs --eps" "$NNCERT" bounds $Z/mlp.onnx --input $Z/sample_input.json
expect_error bounds-spec-with-eps 64 "brings its own" "$NNCERT" bounds $Z/mlp.onnx --spec "$TMP/s.vnnlib" --eps 0.1
expect_error bounds-bad-method 64 "bad value 'lp' for --method" "$NNCERT" bounds $Z/mlp.onnx --spec "$TMP/s.vnnlib" --method lp
expect_error bounds-unknown-option 64 "unknown option '--wat'" "$NNCERT" bounds $Z/mlp.onnx --wat 1
printf '(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)(assert (>= X_0 0))(assert (<= X_0 1))(assert (>= X_1 0))(assert (<= X_1 1))(assert (<= Y_0 0))' >"$TMP/small.vnnlib"
expect_error bounds-spec-wrong-size 65 "2 inputs, the model has 784" "$NNCERT" bounds $Z/mlp.onnx --spec "$TMP/small.vnnlib"
expect_error bounds-bad-output-dir 73 "nonexistent" "$NNCERT" bounds $Z/mlp.onnx --spec "$TMP/s.vnnlib" --json /nonexistent/b.json
