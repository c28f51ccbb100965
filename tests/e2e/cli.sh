#!/usr/bin/env bash
# End-to-end tests of the nncert command line: help, outputs, exit codes,
# and bad input (one-line error, documented exit code, nothing on stdout).
. "$(dirname "$0")/lib.bash"
Z=models/zoo

expect_exit help-main 0 "$NNCERT" --help
expect_exit help-info 0 "$NNCERT" info --help
expect_exit help-run 0 "$NNCERT" run --help
"$NNCERT" run $Z/mlp.onnx --input $Z/sample_input.json >"$TMP/run.json" 2>/dev/null
check_schema run-output-schema schema/run-output.schema.json "$TMP/run.json"
expect_exit version 0 "$NNCERT" version
expect_exit no-args 64 "$NNCERT"
expect_error unknown-command 64 "unknown command 'frobnicate'" "$NNCERT" frobnicate
expect_error run-missing-input 64 "MODEL and --input" "$NNCERT" run $Z/mlp.onnx
expect_error run-bad-precision 64 "precision" "$NNCERT" run $Z/mlp.onnx --input $Z/sample_input.json --precision f16
# options are named in their errors; a trailing unknown flag is unknown, not
# "needs a value"; --opt=value is --opt value
expect_error run-unknown-option-named 64 "unknown option '--wat'" "$NNCERT" run $Z/mlp.onnx --input $Z/sample_input.json --wat
expect_error verify-trailing-unknown-flag 64 "unknown option '--bogus'" "$NNCERT" verify $Z/mlp.onnx x.vnnlib --bogus
expect_error verify-missing-value-named 64 "option '--timeout' needs a value" "$NNCERT" verify $Z/mlp.onnx x.vnnlib --timeout
if "$NNCERT" run $Z/mlp.onnx --input=$Z/sample_input.json --precision=f64 >"$TMP/eq.json" 2>/dev/null &&
   "$NNCERT" run $Z/mlp.onnx --input $Z/sample_input.json --precision f64 >"$TMP/sp.json" 2>/dev/null && cmp -s "$TMP/eq.json" "$TMP/sp.json"; then
    pass option-equals-value; else fail option-equals-value; fi

# bench: a short run of each precision, the report against its schema, and
# the usage errors (named, exit 64; an unwritable --json before any work)
expect_exit help-bench 0 "$NNCERT" bench --help
if "$NNCERT" bench $Z/cnn.onnx --batch-size 8 --seconds 0.2 --threads 2 --json "$TMP/bench.json" >"$TMP/bench.txt" &&
   "$NNCERT" bench $Z/mlp.onnx --precision f64 --seconds 0.1 --threads 1 --json - >"$TMP/bench64.json" &&
   python3 - "$TMP/bench.json" "$TMP/bench64.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["batch_size"] == 8 and a["threads"] == 2 and a["precision"] == "f32" and a["batches"] >= 10, a
assert b["batch_size"] == 1 and b["threads"] == 1 and b["precision"] == "f64", b
for r in (a, b):
    lat = r["latency_s"]
    assert 0 < lat["min"] <= lat["median"] <= lat["p90"] <= lat["max"], lat
    # throughput from the timed batches themselves, within the timer's slack
    assert abs(r["inferences_per_s"] * r["seconds"] - r["batches"] * r["batch_size"]) < 1e-3 * r["batches"] * r["batch_size"], r
PY
then pass bench-json; else fail "bench-json $(cat "$TMP/bench.txt")"; fi
grep -q '^inferences/s: ' "$TMP/bench.txt" && pass bench-text || fail bench-text
check_schema bench-schema schema/bench.schema.json "$TMP/bench.json" "$TMP/bench64.json"
expect_error bench-no-model 64 "MODEL is required" "$NNCERT" bench
expect_error bench-bad-batch 64 "bad value '0' for --batch-size" "$NNCERT" bench $Z/mlp.onnx --batch-size 0
expect_error bench-bad-precision 64 "bad value 'f16' for --precision" "$NNCERT" bench $Z/mlp.onnx --precision f16
expect_error bench-unknown-option 64 "unknown option '--reps'" "$NNCERT" bench $Z/mlp.onnx --reps 3
expect_exit bench-unwritable-json 73 "$NNCERT" bench $Z/mlp.onnx --seconds 30 --json /nonexistent/b.json
expect_exit bench-missing-model 66 "$NNCERT" bench /nonexistent.onnx
# a batch whose activations exceed the memory is refused up front, with the size
expect_error bench-batch-beyond-memory 75 "the runtime needs [0-9.]+ MiB of activations for 100000 samples; the memory is 95.4 MiB" \
    env NNCERT_MEMORY_BYTES=100000000 "$NNCERT" bench $Z/cnn.onnx --batch-size 100000 --seconds 0.1

# info reports the zoo MLP's structure
if "$NNCERT" info --json $Z/mlp.onnx >"$TMP/info.json" && grep -q '"parameters": 269322' "$TMP/info.json" &&
   grep -q '"shape": \["N", 1, 28, 28\]' "$TMP/info.json" && grep -q '"Gemm": 3' "$TMP/info.json" &&
   grep -q '"outputs": \[{"name": "logits", "type": "float", "shape": \["N", 10\]}\]' "$TMP/info.json" &&
   "$NNCERT" info $Z/mlp.onnx | grep -q '^output: *logits float \[N,10\]$'; then
    pass info-json-mlp
else fail "info-json-mlp $(cat "$TMP/info.json")"; fi

# run: the predicted class of the sample is its label, from JSON and from .npy
label=$(cat $Z/sample_label.txt)
for m in mlp cnn; do
    for f in sample_input.json sample_input.npy; do
        if "$NNCERT" run $Z/$m.onnx --input $Z/$f >"$TMP/o.json"; then
            got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["outputs"]["logits"]["data"]; print(max(range(10), key=lambda i: d[i]))' "$TMP/o.json")
            if [ "$got" = "$label" ]; then pass "run-$m-$f"; else fail "run-$m-$f (class $got, label $label)"; fi
        else fail "run-$m-$f"; fi
    done
done
# a batch of 64 from .npy gives 64x10 outputs; f32 and f64 agree closely
if "$NNCERT" run $Z/mlp.onnx --input $Z/sample_batch.npy --output "$TMP/b32.json" &&
   "$NNCERT" run $Z/mlp.onnx --input $Z/sample_batch.npy --precision f64 --batch-size 7 --output "$TMP/b64.json" &&
   grep -q '"shape": \[64, 10\]' "$TMP/b32.json" && "$BUILD/tools/cmp_outputs" "$TMP/b32.json" "$TMP/b64.json" 1e-5 0 >/dev/null; then
    pass run-batch64-f32-vs-f64
else fail run-batch64-f32-vs-f64; fi

# bad models
head -c 1000 $Z/mlp.onnx >"$TMP/trunc.onnx"
expect_error truncated-model 65 "protobuf decoding failed" "$NNCERT" info "$TMP/trunc.onnx"
echo "definitely not a model" >"$TMP/text.onnx"
expect_error wrong-magic 65 "not an ONNX model" "$NNCERT" info "$TMP/text.onnx"
: >"$TMP/empty.onnx"
expect_error empty-model 65 "empty file" "$NNCERT" info "$TMP/empty.onnx"
expect_error missing-model 66 "No such file" "$NNCERT" info "$TMP/nope.onnx"
expect_error directory-model 66 "not a regular file" "$NNCERT" info "$TMP"
# bad inputs
echo '[1, 2, 3]' >"$TMP/short.json"
expect_error input-wrong-size 65 "3 values given, expected a positive multiple of 784" "$NNCERT" run $Z/mlp.onnx --input "$TMP/short.json"
echo '[1, 2' >"$TMP/broken.json"
expect_error input-bad-json 65 "JSON line [0-9]+ column [0-9]+" "$NNCERT" run $Z/mlp.onnx --input "$TMP/broken.json"
head -c 100 $Z/sample_input.npy >"$TMP/trunc.npy"
expect_error input-truncated-npy 65 "npy" "$NNCERT" run $Z/mlp.onnx --input "$TMP/trunc.npy"
echo '{"wrong": [0]}' >"$TMP/name.json"
expect_error input-unknown-name 65 "no input named 'wrong'" "$NNCERT" run $Z/mlp.onnx --input "$TMP/name.json"
# a resource limit: buffers over the per-tensor limit are refused, not allocated
NNCERT_MAX_TENSOR_BYTES=100000 expect_error tensor-limit 75 "limit" "$NNCERT" run $Z/mlp.onnx --input $Z/sample_batch.npy --batch-size 64
# --output: no file is left behind on failure
expect_exit output-unwritable 73 "$NNCERT" run $Z/mlp.onnx --input $Z/sample_input.json --output /nonexistent/dir/o.json
"$NNCERT" run $Z/mlp.onnx --input "$TMP/short.json" --output "$TMP/none.json" 2>/dev/null
if [ -e "$TMP/none.json" ] || ls "$TMP"/none.json.tmp* >/dev/null 2>&1; then fail output-not-written-on-error; else pass output-not-written-on-error; fi

# outputs that are not regular files are written through, never replaced:
# a FIFO's reader gets the bytes, a symbolic link stays a link (its target
# replaced), "-" is standard output; a full device and a missing directory
# exit 73 with the path named, a missing directory before any work
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.002 --clip 0,1 --output "$TMP/o.vnnlib" 2>/dev/null
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/fifo.out" &
reader=$!
"$NNCERT" verify $Z/mlp.onnx "$TMP/o.vnnlib" --samples 100 --timeout 5 --json "$TMP/fifo" >/dev/null 2>"$TMP/fifo.err"
rc=$?
wait $reader
if [ "$rc" -eq 0 ] && [ -p "$TMP/fifo" ] && grep -q '"result"' "$TMP/fifo.out"; then pass output-fifo-written-through
else fail "output-fifo-written-through (exit $rc, $(wc -c <"$TMP/fifo.out") bytes read: $(head -c 200 "$TMP/fifo.err"))"; fi
echo old >"$TMP/target.json"
ln -s target.json "$TMP/link.json"
"$NNCERT" verify $Z/mlp.onnx "$TMP/o.vnnlib" --samples 100 --timeout 5 --json "$TMP/link.json" >/dev/null 2>&1
if [ -L "$TMP/link.json" ] && grep -q '"result"' "$TMP/target.json"; then pass output-symlink-kept
else fail output-symlink-kept; fi
ln -s nothere.json "$TMP/dangling.json"
"$NNCERT" run $Z/mlp.onnx --input $Z/sample_input.json --output "$TMP/dangling.json" >/dev/null 2>&1
if [ -L "$TMP/dangling.json" ] && grep -q '"shape"' "$TMP/nothere.json"; then pass output-dangling-symlink-target-created
else fail output-dangling-symlink-target-created; fi
# /dev/stdout is our own standard output: written through its stream (the
# summary, then the JSON, in order), and it stays a link
if [ -L /dev/stdout ]; then
    "$NNCERT" verify $Z/mlp.onnx "$TMP/o.vnnlib" --samples 100 --timeout 5 --json /dev/stdout >"$TMP/devout.txt" 2>/dev/null
    if [ -L /dev/stdout ] && head -1 "$TMP/devout.txt" | grep -q "^result:" && grep -q '"model_sha256"' "$TMP/devout.txt"; then
        pass output-dev-stdout-written-through; else fail output-dev-stdout-written-through; fi
fi
# with --json -, standard output is the JSON alone (the summary on stderr)
"$NNCERT" verify $Z/mlp.onnx "$TMP/o.vnnlib" --samples 100 --timeout 5 --json - >"$TMP/dash.json" 2>"$TMP/dash.err"
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["result"] == "holds"' "$TMP/dash.json" &&
   grep -q "^result: *holds" "$TMP/dash.err"; then pass output-dash-is-stdout; else fail output-dash-is-stdout; fi
if [ -e /dev/full ]; then
    "$NNCERT" verify $Z/mlp.onnx "$TMP/o.vnnlib" --samples 100 --timeout 5 --json /dev/full >/dev/null 2>"$TMP/full.err"
    rc=$?
    if [ "$rc" -eq 73 ] && grep -q "cannot write /dev/full" "$TMP/full.err" && [ "$(wc -l <"$TMP/full.err")" -eq 1 ]; then
        pass output-dev-full; else fail "output-dev-full (exit $rc: $(head -c 200 "$TMP/full.err"))"; fi
    "$NNCERT" run $Z/mlp.onnx --input $Z/sample_input.json >/dev/full 2>"$TMP/full.err"
    rc=$?
    if [ "$rc" -eq 73 ] && grep -q "cannot write standard output" "$TMP/full.err"; then pass stdout-dev-full-fails
    else fail "stdout-dev-full-fails (exit $rc: $(head -c 200 "$TMP/full.err"))"; fi
    if [ -c /dev/full ]; then pass dev-full-still-a-device; else fail dev-full-still-a-device; fi
else
    skip output-dev-full "no /dev/full"
fi
# checked before the work: a 60 s run would print its result to stdout
expect_error output-dir-missing-before-work 73 "cannot write /nonexistent/dir/r.json" \
    "$NNCERT" verify $Z/mlp.onnx "$TMP/o.vnnlib" --timeout 60 --json /nonexistent/dir/r.json

# non-finite weights are refused with the layer and weight named, whatever
# the command (a NaN weight made verify say unknown with a fraction near 1)
PY=/usr/bin/python3
if $PY -c 'import onnx, numpy' 2>/dev/null; then
    for kind in nan inf; do
        $PY - $Z/mlp.onnx "$TMP/w_$kind.onnx" $kind <<'PYEOF'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
for k, t in enumerate(m.graph.initializer):
    a = numpy_helper.to_array(t).copy()
    if a.ndim == 2:
        a.flat[3] = np.nan if sys.argv[3] == 'nan' else -np.inf
        m.graph.initializer[k].CopyFrom(numpy_helper.from_array(a, t.name))
        break
onnx.save(m, sys.argv[2])
PYEOF
        want=$([ $kind = nan ] && echo "a NaN" || echo "an infinity")
        expect_error "weight-$kind-refused-run" 65 "weight '.*' has $want at element 3" "$NNCERT" run "$TMP/w_$kind.onnx" --input $Z/sample_input.json
        expect_error "weight-$kind-refused-verify" 65 "has $want" "$NNCERT" verify "$TMP/w_$kind.onnx" "$TMP/o.vnnlib"
    done
else
    skip weight-nonfinite "python3 onnx not installed"
fi
# a box past float32 (huge --eps, no --clip) is refused, nothing written
expect_error spec-eps-past-float32 64 "past the float32 range" "$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 1e39 --output "$TMP/huge.vnnlib"
if [ -e "$TMP/huge.vnnlib" ]; then fail spec-eps-past-float32-nothing-written; else pass spec-eps-past-float32-nothing-written; fi
# contradicting or inert verify options are refused, both named
expect_error verify-ibp-alpha 64 "--ibp .*--alpha-iters" "$NNCERT" verify $Z/mlp.onnx x.vnnlib --ibp --alpha-iters 20
expect_error verify-ibp-relu-split 64 "--ibp and --relu-split on" "$NNCERT" verify $Z/mlp.onnx x.vnnlib --ibp --relu-split on
expect_error verify-nosplit-relu-split 64 "--no-split and --relu-split on" "$NNCERT" verify $Z/mlp.onnx x.vnnlib --no-split --relu-split on
expect_error verify-sample-without-trace 64 "--sample .*--trace" "$NNCERT" verify $Z/mlp.onnx x.vnnlib --sample 2
expect_error verify-clip-without-sweep 64 "--clip .*--sweep-eps" "$NNCERT" verify $Z/mlp.onnx x.vnnlib --clip 0,1
expect_error verify-sweep-out-without-sweep 64 "--sweep-out .*--sweep-eps" "$NNCERT" verify $Z/mlp.onnx x.vnnlib --sweep-out r/s
expect_error verify-json-with-sweep 64 "--json and --sweep-eps" "$NNCERT" verify $Z/mlp.onnx x.vnnlib --sweep-eps 0:0.1:3 --json r.json
expect_error verify-row-with-trace 64 "--row .*--trace" "$NNCERT" verify $Z/mlp.onnx x.vnnlib --row 1 --trace t.csv

# a declared batch ([4, 16] in, [4, 5] out): spec linf and verify take one
# sample with --row (the same spec, and the same verdicts, as the batch-1
# model on that sample); without --row a one-sample spec is refused by name
if "$PY" - "$TMP" <<'PY'
import json, sys, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(3)
w1 = rng.standard_normal((12, 16)).astype(np.float32) * 0.4; b1 = rng.standard_normal(12).astype(np.float32) * 0.1
w2 = rng.standard_normal((5, 12)).astype(np.float32) * 0.4; b2 = rng.standard_normal(5).astype(np.float32) * 0.1
for name, batch in (("b4", 4), ("b1", 1)):
    g = helper.make_graph([helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
                           helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], transB=1)], name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 5])],
                          [numpy_helper.from_array(a, n) for n, a in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2))])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{d}/{name}.onnx")
x = rng.uniform(0, 1, (4, 16)).astype(np.float32)
json.dump(x.tolist(), open(f"{d}/x4.json", "w"))
json.dump(x[2:3].tolist(), open(f"{d}/x1.json", "w"))
PY
then
    expect_error spec-batch-needs-row 65 "declares a batch of 4 samples: give --row K \(0 to 3\)" \
        "$NNCERT" spec linf --model "$TMP/b4.onnx" --input "$TMP/x4.json" --label 4 --eps 0.02
    ok=1
    for e in 0.02 0.3; do
        "$NNCERT" spec linf --model "$TMP/b4.onnx" --input "$TMP/x4.json" --label 4 --eps $e --row 2 -o "$TMP/s$e.vnnlib" &&
            "$NNCERT" spec linf --model "$TMP/b1.onnx" --input "$TMP/x1.json" --label 4 --eps $e -o "$TMP/t$e.vnnlib" &&
            cmp -s "$TMP/s$e.vnnlib" "$TMP/t$e.vnnlib" || ok=0
        # (--timeout 5: at eps 0.3 the search would refine the violated
        # fraction for the default 60 s; the verdict comes at once)
        "$NNCERT" verify "$TMP/b4.onnx" "$TMP/s$e.vnnlib" --row 2 --samples 20000 --timeout 5 --json "$TMP/r4.json" >/dev/null 2>&1
        "$NNCERT" verify "$TMP/b1.onnx" "$TMP/s$e.vnnlib" --samples 20000 --timeout 5 --json "$TMP/r1.json" >/dev/null 2>&1
        # the same verdict; violation intervals that overlap (sound both)
        "$PY" - "$TMP/r4.json" "$TMP/r1.json" "$e" <<'PY' || ok=0
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
want = "holds" if sys.argv[3] == "0.02" else "violated"
assert a["result"] == b["result"] == want, (a["result"], b["result"])
va, vb = a["violation_fraction"], b["violation_fraction"]
assert va["lower"] <= vb["upper"] and vb["lower"] <= va["upper"], (va, vb)
PY
    done
    [ $ok = 1 ] && pass verify-row-of-batch || fail verify-row-of-batch
    expect_error verify-batch-needs-row 65 "give --row K \(0 to 3\) for a spec of one sample" \
        "$NNCERT" verify "$TMP/b4.onnx" "$TMP/s0.02.vnnlib"
    expect_error verify-row-past-batch 65 "--row 4: the model's input declares 4 samples" \
        "$NNCERT" verify "$TMP/b4.onnx" "$TMP/s0.02.vnnlib" --row 4
    expect_error verify-row-without-batch 65 "--row picks a sample of a model whose input declares a fixed batch" \
        "$NNCERT" verify "$TMP/b1.onnx" "$TMP/s0.02.vnnlib" --row 1
    # the gate: "row" as --row (same verdicts), and without it the check errs naming it
    printf '{"checks": [{"name": "r2", "type": "verify", "model": "%s", "spec": "%s", "row": 2, "max_violation": 0, "samples": 2000, "timeout": 5},
      {"name": "r2v", "type": "verify", "model": "%s", "spec": "%s", "row": 2, "max_violation": 0, "samples": 2000, "timeout": 5},
      {"name": "norow", "type": "verify", "model": "%s", "spec": "%s"}]}' "$TMP/b4.onnx" "$TMP/s0.02.vnnlib" \
        "$TMP/b4.onnx" "$TMP/s0.3.vnnlib" "$TMP/b4.onnx" "$TMP/s0.02.vnnlib" >"$TMP/grow.json"
    "$NNCERT" gate "$TMP/grow.json" --summary "$TMP/grow_summary.json" >/dev/null 2>&1
    if "$PY" - "$TMP/grow_summary.json" <<'PY'; then pass gate-row-of-batch; else fail gate-row-of-batch; fi
import json, sys
c = {r["name"]: r for r in json.load(open(sys.argv[1]))["checks"]}
assert c["r2"]["status"] == "pass" and c["r2"]["result"] == "holds" and c["r2"]["row"] == 2, c["r2"]
assert c["r2v"]["status"] == "fail" and c["r2v"]["result"] == "violated", c["r2v"]
assert c["norow"]["status"] == "error" and 'give "row" K (0 to 3)' in c["norow"]["message"], c["norow"]
PY
else
    skip verify-row-of-batch "python3 onnx/numpy not available"
fi

# ---- option tables (cli/options.c): every option a command's --help lists
# is one it parses, with the placeholder's arity (a value after it is taken
# as its value, so the option alone is "needs a value" or parses as a flag),
# and one no command lists is unknown.  (--distributed starts MPI: mpi.sh.)
bad=""
for c in info run bench verify bounds "spec linf" "groth16 prove" "zkey contribute" compile prove check gate keygen \
         plan dlrm-run dlrm-bounds; do
    # the option column: lines "  --name [PLACEHOLDER]  help" ("-o", "-n" too)
    opts=$($NNCERT $c --help 2>/dev/null | sed -n 's/^  \(-[-a-z][-a-z0-9]*\)\( [A-Z][A-Za-z0-9.,:|]*\)\{0,1\}  .*/\1\2/p' | tr ' ' '=')
    [ -n "$opts" ] || bad="$bad $c:no-options-listed"
    for o in $opts; do
        name=${o%%=*}
        [ "$name" = --distributed ] && continue
        err=$(timeout 20 $NNCERT $c "$name" 2>&1 >/dev/null)
        case "$o" in
            *=*) echo "$err" | grep -q "option '$name' needs a value" || bad="$bad $c:$name(value)" ;;
            *) echo "$err" | grep -q "unknown option\|needs a value" && bad="$bad $c:$name(flag)" ;;
        esac
    done
    err=$(timeout 20 $NNCERT $c --no-such-option 2>&1 >/dev/null)
    echo "$err" | grep -q "unknown option '--no-such-option'" || bad="$bad $c:unknown-accepted"
done
if [ -z "$bad" ]; then pass cli-option-tables-parse-what-help-lists; else fail "cli-option-tables-parse-what-help-lists:$bad"; fi
