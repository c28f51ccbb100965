#!/usr/bin/env bash
# Proofs of inference end to end on the zoo MLP (nncert compile/prove/check):
#  - the .r1cs and .wtns nncert writes are accepted by snarkjs (r1cs info with
#    the same counts, wtns check);
#  - the proof verifies with nncert check (also bound to the model file and
#    the input file) and with snarkjs groth16 verify;
#  - the proven outputs decode to the float model's logits (within the
#    quantisation step) with the same argmax;
#  - tampered public output, model commitment and input commitment are
#    rejected by both tools; the proof does not verify for another input or
#    model;
#  - a second input proved with the saved key verifies with the same vk;
#  - a small model with --private both (knit-packed products) proves and
#    verifies with both tools, and a tampered output is rejected;
#  - bad input: an unsupported operator is named; a model too large for the
#    key is refused with the constraint count it needs; a circuit too large
#    for the memory (NNCERT_MEMORY_BYTES) is refused while it is built, one
#    whose proving key would not fit beside it before the setup.
. "$(dirname "$0")/lib.bash"
BIN=tests/peers/node_modules/.bin
SNARKJS="$BIN/snarkjs"
MLP=models/zoo/mlp.onnx
CAL=models/zoo/sample_batch.npy
W=$TMP/zk; mkdir -p "$W"
have_snarkjs=1; [ -x "$SNARKJS" ] || have_snarkjs=0
js_ok() { "$SNARKJS" groth16 verify "$@" 2>&1 | grep -q 'OK!'; }
PY=/usr/bin/python3

# -- compile: counts by layer, files snarkjs accepts
if "$NNCERT" compile "$MLP" --calib "$CAL" --input models/zoo/sample_input.json -o "$W/mlp.r1cs" --wtns "$W/mlp.wtns" >"$W/compile.txt" 2>"$W/err" &&
   grep -q '^/net/net.1/Gemm (Gemm)' "$W/compile.txt" && grep -q '^total' "$W/compile.txt"; then pass zk-compile-mlp
else fail "zk-compile-mlp ($(head -c 300 "$W/err"))"; fi
cons=$(awk '$1 == "total" {print $2}' "$W/compile.txt")
wires=$(awk '$1 == "total" {print $3}' "$W/compile.txt")
if [ "$have_snarkjs" = 1 ]; then
    "$SNARKJS" r1cs info "$W/mlp.r1cs" >"$W/info.txt" 2>&1
    if grep -q "# of Constraints: $cons\$" "$W/info.txt" && grep -q "# of Wires: $wires\$" "$W/info.txt" &&
       grep -q "# of Outputs: 10\$" "$W/info.txt" && grep -q "# of Public Inputs: 2\$" "$W/info.txt"; then pass zk-snarkjs-r1cs-info
    else fail "zk-snarkjs-r1cs-info ($(tr '\n' ' ' <"$W/info.txt" | head -c 300))"; fi
    if "$SNARKJS" wtns check "$W/mlp.r1cs" "$W/mlp.wtns" 2>&1 | grep -q 'WITNESS IS CORRECT'; then pass zk-snarkjs-wtns-check
    else fail zk-snarkjs-wtns-check; fi
else
    skip zk-snarkjs "snarkjs not installed (run tests/setup.sh)"
fi

# -- prove (development setup) and check
if "$NNCERT" prove "$MLP" --calib "$CAL" --input models/zoo/sample_input.json -o "$W/proof.json" --public "$W/public.json" \
        --vk "$W/vk.json" --zkey-out "$W/mlp.zkey" >"$W/prove.txt" 2>"$W/err"; then pass zk-prove-mlp
else fail "zk-prove-mlp ($(head -c 300 "$W/err"))"; exit 0; fi
expect_exit zk-check-mlp 0 "$NNCERT" check --vk "$W/vk.json" "$W/proof.json" "$W/public.json"
# a development key cannot be tied to the model (tests/e2e/ceremony.sh
# checks --model with a ceremony key); a vk alone is a usage error
expect_error zk-check-vk-with-model 64 'cannot be tied' "$NNCERT" check --vk "$W/vk.json" "$W/proof.json" "$W/public.json" \
    --model "$MLP" --calib "$CAL" --input models/zoo/sample_input.json
expect_exit zk-check-dev-key-with-model 1 "$NNCERT" check --key "$W/mlp.zkey" "$W/proof.json" "$W/public.json" --model "$MLP" \
    --calib "$CAL" --input models/zoo/sample_input.json --ptau "$W/no-such.ptau"
grep -q 'not set up from a powers of tau file' "$TMP/out" && pass zk-dev-key-named || fail "zk-dev-key-named ($(cat "$TMP/out"))"
if [ "$have_snarkjs" = 1 ]; then
    if js_ok "$W/vk.json" "$W/public.json" "$W/proof.json"; then pass zk-snarkjs-verify; else fail zk-snarkjs-verify; fi
fi

# -- proven outputs against the float model
"$NNCERT" run "$MLP" --input models/zoo/sample_input.json >"$W/run.json"
frac=$(sed -n 's/^output (integers at scale 2^-\([0-9]*\)).*/\1/p' "$W/prove.txt")
if "$PY" - "$W/public.json" "$W/run.json" "$frac" <<'EOF'; then pass zk-output-matches-float; else fail zk-output-matches-float; fi
import json, sys
r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
pub = [int(s) for s in json.load(open(sys.argv[1]))]
out = [v - r if v > r // 2 else v for v in pub[:10]]
ref = json.load(open(sys.argv[2]))["outputs"]["logits"]["data"]
step = 2.0 ** -int(sys.argv[3])
deq = [v * step for v in out]
ok = max(abs(a - b) for a, b in zip(deq, ref)) < 4 * step + 0.05 * max(abs(x) for x in ref)
ok = ok and deq.index(max(deq)) == ref.index(max(ref))
sys.exit(0 if ok else 1)
EOF

# -- tampering: each public signal class
tamper() { # INDEX OUT: public.json with signal INDEX replaced by 12345
    "$PY" -c "import json,sys; p=json.load(open(sys.argv[1])); p[int(sys.argv[2])]='12345'; json.dump(p,open(sys.argv[3],'w'))" "$W/public.json" "$1" "$2"
}
for case in "output:7" "model-commitment:10" "input-commitment:11"; do
    name=${case%%:*} idx=${case##*:}
    tamper "$idx" "$W/t_$name.json"
    expect_exit "zk-tampered-$name-nncert" 1 "$NNCERT" check --vk "$W/vk.json" "$W/proof.json" "$W/t_$name.json"
    if [ "$have_snarkjs" = 1 ]; then
        if js_ok "$W/vk.json" "$W/t_$name.json" "$W/proof.json"; then fail "zk-tampered-$name-snarkjs"; else pass "zk-tampered-$name-snarkjs"; fi
    fi
done

# -- another input with the saved key; binding to input and model
"$PY" -c "
import json
x = json.load(open('models/zoo/sample_input.json'))
def walk(v): return [walk(e) for e in v] if isinstance(v, list) else round(1.0 - v, 6)
json.dump(walk(x), open('$W/in2.json', 'w'))"
if "$NNCERT" prove "$MLP" --calib "$CAL" --input "$W/in2.json" --key "$W/mlp.zkey" -o "$W/proof2.json" --public "$W/public2.json" \
        >/dev/null 2>"$W/err" && "$NNCERT" check --vk "$W/vk.json" "$W/proof2.json" "$W/public2.json" >/dev/null; then pass zk-prove-with-key
else fail "zk-prove-with-key ($(head -c 300 "$W/err"))"; fi
expect_exit zk-proof-for-other-public 1 "$NNCERT" check --vk "$W/vk.json" "$W/proof.json" "$W/public2.json"
# the binding (commitments) is checked first and names what differs
for case in "input:--input $W/in2.json" "calibration:--bits 7" "model:"; do
    name=${case%%:*} extra=${case#*:}
    m=$MLP; [ "$name" = model ] && m=models/zoo/cnn.onnx
    # shellcheck disable=SC2086
    expect_exit "zk-check-other-$name" 1 "$NNCERT" check --key "$W/mlp.zkey" "$W/proof.json" "$W/public.json" --model "$m" \
        --calib "$CAL" --ptau "$W/no-such.ptau" $extra
done

# -- bad input
if "$PY" - "$W" <<'EOF'; then
import sys, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(0)
def save(nodes, inits, name, n_in=4, n_out=3, batch=1):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, n_in])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, n_out])],
                          [numpy_helper.from_array(a, n) for n, a in inits.items()])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{d}/{name}.onnx")
w = rng.standard_normal((3, 4)).astype(np.float32); b = rng.standard_normal(3).astype(np.float32)
save([helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1), helper.make_node("Sigmoid", ["h"], ["y"], name="squash")],
     {"w": w, "b": b}, "sigmoid")
save([helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)], {"w": w, "b": b}, "tiny")
w2 = rng.standard_normal((64, 784)).astype(np.float32) * 0.05; b2 = np.zeros(64, np.float32)
w3 = rng.standard_normal((10, 64)).astype(np.float32) * 0.2; b3 = np.zeros(10, np.float32)
save([helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
      helper.make_node("Gemm", ["r", "w3", "b3"], ["y"], transB=1)], {"w": w2, "b": b2, "w3": w3, "b3": b3}, "bigger", 784, 10)
w4 = rng.standard_normal((12, 16)).astype(np.float32) * 0.3; b4 = rng.standard_normal(12).astype(np.float32) * 0.1
w5 = rng.standard_normal((10, 12)).astype(np.float32) * 0.3; b5 = rng.standard_normal(10).astype(np.float32) * 0.1
save([helper.make_node("Gemm", ["x", "w4", "b4"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
      helper.make_node("Gemm", ["r", "w5", "b5"], ["y"], transB=1)], {"w4": w4, "b4": b4, "w5": w5, "b5": b5}, "small", 16, 10)
# the same with a declared batch of 4 (input [4, 16]): every row's products
save([helper.make_node("Gemm", ["x", "w4", "b4"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
      helper.make_node("Gemm", ["r", "w5", "b5"], ["y"], transB=1)], {"w4": w4, "b4": b4, "w5": w5, "b5": b5}, "small4", 16, 10, 4)
EOF
    echo '[0.5, 0.25, 1.0, 0.0]' >"$W/tiny_in.json"
    expect_error zk-unsupported-operator 69 "Sigmoid.*squash|squash.*Sigmoid" "$NNCERT" compile "$W/sigmoid.onnx" -o "$W/s.r1cs"
    [ ! -e "$W/s.r1cs" ] && pass zk-unsupported-nothing-written || fail zk-unsupported-nothing-written
    # the tiny model proves with its own setup; the MLP's key is too small for a bigger model
    if "$NNCERT" prove "$W/tiny.onnx" --input "$W/tiny_in.json" -o "$W/tp.json" --public "$W/tpub.json" --vk "$W/tvk.json" \
            --zkey-out "$W/tiny.zkey" >/dev/null 2>"$W/err" &&
       "$NNCERT" check --vk "$W/tvk.json" "$W/tp.json" "$W/tpub.json" >/dev/null; then
        pass zk-prove-tiny
    else fail "zk-prove-tiny ($(head -c 300 "$W/err"))"; fi
    # everything private: the knit-packed products (one constraint per input
    # and block of output rows) prove and verify with both tools
    "$PY" -c "import json; json.dump([round(0.06 * i, 3) for i in range(16)], open('$W/small_in.json', 'w'))"
    if "$NNCERT" prove "$W/small.onnx" --private both --input "$W/small_in.json" -o "$W/sp.json" --public "$W/spub.json" \
            --vk "$W/svk.json" >/dev/null 2>"$W/err" && "$NNCERT" check --vk "$W/svk.json" "$W/sp.json" "$W/spub.json" >/dev/null; then
        pass zk-prove-private-both
    else fail "zk-prove-private-both ($(head -c 300 "$W/err"))"; fi
    if [ "$have_snarkjs" = 1 ]; then
        if js_ok "$W/svk.json" "$W/spub.json" "$W/sp.json"; then pass zk-snarkjs-verify-private-both; else fail zk-snarkjs-verify-private-both; fi
        "$PY" -c "import json,sys; p=json.load(open(sys.argv[1])); p[3]=str(int(p[3])+1); json.dump(p,open(sys.argv[2],'w'))" "$W/spub.json" "$W/spub_t.json"
        if js_ok "$W/svk.json" "$W/spub_t.json" "$W/sp.json"; then fail zk-tampered-private-both-snarkjs; else pass zk-tampered-private-both-snarkjs; fi
    fi
    # a declared batch of 4 with private weights: the packed products of rows
    # 1-3 took their witness from row 0's inputs (prove exited 70; compile
    # --wtns wrote a witness that broke constraints and exited 0)
    "$PY" -c "import json; json.dump([[round(0.05 * (i + 7 * r) % 1, 3) for i in range(16)] for r in range(4)], open('$W/small4_in.json', 'w'))"
    for priv in weights both; do
        if "$NNCERT" prove "$W/small4.onnx" --private $priv --input "$W/small4_in.json" -o "$W/s4p.json" --public "$W/s4pub.json" \
                --vk "$W/s4vk.json" >/dev/null 2>"$W/err" && "$NNCERT" check --vk "$W/s4vk.json" "$W/s4p.json" "$W/s4pub.json" >/dev/null &&
           "$NNCERT" compile "$W/small4.onnx" --private $priv --input "$W/small4_in.json" -o "$W/s4.r1cs" --wtns "$W/s4.wtns" >/dev/null 2>>"$W/err"; then
            pass "zk-batch4-private-$priv"
        else fail "zk-batch4-private-$priv ($(head -c 300 "$W/err"))"; fi
        if [ "$have_snarkjs" = 1 ]; then
            if "$SNARKJS" wtns check "$W/s4.r1cs" "$W/s4.wtns" 2>&1 | grep -q 'WITNESS IS CORRECT'; then pass "zk-batch4-private-$priv-snarkjs-wtns"
            else fail "zk-batch4-private-$priv-snarkjs-wtns"; fi
            if js_ok "$W/s4vk.json" "$W/s4pub.json" "$W/s4p.json"; then pass "zk-batch4-private-$priv-snarkjs-verify"
            else fail "zk-batch4-private-$priv-snarkjs-verify"; fi
        fi
    done
    # the whole declared batch is proved: one output line and argmax per
    # sample, sample 2's the same as the one-sample model's on its row (both
    # calibrated on the same four rows)
    "$PY" -c "import json; r = json.load(open('$W/small4_in.json')); json.dump(r[2], open('$W/small4_row2.json', 'w'))
json.dump(r, open('$W/calib1.json', 'w')); json.dump([r], open('$W/calib4.json', 'w'))"
    if "$NNCERT" prove "$W/small4.onnx" --calib "$W/calib4.json" --input "$W/small4_in.json" -o "$W/s4q.json" --public "$W/s4qpub.json" \
            >"$W/s4q.out" 2>"$W/err" &&
       "$NNCERT" prove "$W/small.onnx" --calib "$W/calib1.json" --input "$W/small4_row2.json" -o "$W/s1q.json" --public "$W/s1qpub.json" \
            >"$W/s1q.out" 2>>"$W/err" &&
       [ "$(grep -c '^sample [0-3]:' "$W/s4q.out")" = 4 ] && [ "$(grep -c '^  argmax' "$W/s4q.out")" = 4 ] &&
       [ "$(sed -n 's/^sample 2://p' "$W/s4q.out")" = "$(sed -n 's/^output (integers at scale 2^-[0-9]*)://p' "$W/s1q.out")" ]; then
        pass zk-batch4-per-sample-outputs
    else fail "zk-batch4-per-sample-outputs ($(head -c 300 "$W/err"; head -c 300 "$W/s4q.out"))"; fi
    # snarkjs's r1cs info and wtns check, on the batch-4 circuit and witness
    # (private weights) written above, and on that witness with one value changed
    if [ -s "$W/s4.r1cs" ] && [ -s "$W/s4.wtns" ]; then
        counts() { grep -E '^(wires|constraints|private inputs|public inputs|labels|outputs):' | sed 's/: */ /'; }
        "$NNCERT" r1cs info "$W/s4.r1cs" | counts >"$W/ri_n" || true
        if [ "$have_snarkjs" = 1 ]; then
            "$SNARKJS" r1cs info "$W/s4.r1cs" 2>&1 | sed 's/\x1b\[[0-9;]*m//g; s/.*# of //' | tr 'A-Z' 'a-z' | counts >"$W/ri_s" || true
            if [ -s "$W/ri_n" ] && [ "$(wc -l <"$W/ri_n")" = 6 ] && cmp -s "$W/ri_n" "$W/ri_s"; then pass zk-r1cs-info-as-snarkjs
            else fail "zk-r1cs-info-as-snarkjs ($(tr '\n' ' ' <"$W/ri_n") vs $(tr '\n' ' ' <"$W/ri_s"))"; fi
        fi
        # wire 1 (the first output, which the circuit constrains) plus one,
        # mod r; the values section is the file's last (n values of 32 bytes)
        "$PY" - "$W/s4.wtns" "$W/s4bad.wtns" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
n = struct.unpack_from("<I", b, 60)[0]  # magic, version, sections, section 1 type and size, n8, prime: nWitness
off = len(b) - 32 * n + 32
v = (int.from_bytes(b[off:off + 32], "little") + 1) % r
b[off:off + 32] = v.to_bytes(32, "little")
open(sys.argv[2], "wb").write(b)
PY
        if "$NNCERT" wtns check "$W/s4.r1cs" "$W/s4.wtns" | grep -qx 'WITNESS IS CORRECT'; then pass zk-wtns-check-correct
        else fail zk-wtns-check-correct; fi
        "$NNCERT" wtns check "$W/s4.r1cs" "$W/s4bad.wtns" >"$W/wc.out"; rc=$?
        if [ "$rc" = 1 ] && grep -q '^WITNESS IS NOT CORRECT: .*constraint [0-9]' "$W/wc.out"; then pass zk-wtns-check-tampered
        else fail "zk-wtns-check-tampered (exit $rc: $(cat "$W/wc.out"))"; fi
        if [ "$have_snarkjs" = 1 ]; then
            if "$SNARKJS" wtns check "$W/s4.r1cs" "$W/s4bad.wtns" 2>&1 | grep -q 'WITNESS IS CORRECT'; then fail zk-wtns-check-tampered-snarkjs-agrees
            else pass zk-wtns-check-tampered-snarkjs-agrees; fi
        fi
        head -c 100 "$W/s4.wtns" >"$W/s4cut.wtns"
        expect_error zk-wtns-check-truncated 65 "wtns" "$NNCERT" wtns check "$W/s4.r1cs" "$W/s4cut.wtns"
        expect_error zk-wtns-check-usage 64 "usage" "$NNCERT" wtns check "$W/s4.r1cs"
        expect_error zk-r1cs-info-missing 66 "nope.r1cs" "$NNCERT" r1cs info "$W/nope.r1cs"
    else fail "zk-r1cs-wtns-verbs (no batch-4 circuit to read)"; fi
    expect_error zk-key-too-small 75 "needs [0-9]+ constraints" "$NNCERT" prove "$W/bigger.onnx" --input models/zoo/sample_input.json \
        --key "$W/tiny.zkey" -o "$W/bp.json" --public "$W/bpub.json"
    [ ! -e "$W/bp.json" ] && pass zk-key-too-small-nothing-written || fail zk-key-too-small-nothing-written
    expect_exit zk-check-vk-of-other-circuit 1 "$NNCERT" check --vk "$W/tvk.json" "$W/proof.json" "$W/public.json"
else
    skip zk-bad-input "python3 onnx/numpy not available"
fi
expect_error zk-prove-needs-input 64 "input" "$NNCERT" prove "$MLP" -o "$W/x.json" --public "$W/y.json"
expect_error zk-bad-bits 64 "bits" "$NNCERT" compile "$MLP" --bits 99 -o "$W/x.r1cs"
expect_error zk-bad-private 64 "private" "$NNCERT" compile "$MLP" --private nobody -o "$W/x.r1cs"
# a circuit whose terms cannot fit half the memory is refused at the first
# constraint over it (nothing written); count-only stores no terms and counts
# them; a circuit that fits but whose proving key would not fit beside it is
# refused before the setup (the MLP: ~84 MB of terms, its key more than that)
expect_error zk-circuit-memory-limit 75 "R1CS terms.*NNCERT_MEMORY_BYTES" \
    env NNCERT_MEMORY_BYTES=200000 "$NNCERT" compile "$MLP" -o "$W/lim.r1cs"
[ ! -e "$W/lim.r1cs" ] && pass zk-circuit-memory-limit-nothing-written || fail zk-circuit-memory-limit-nothing-written
if NNCERT_MEMORY_BYTES=200000 "$NNCERT" compile "$MLP" --count-only 2>"$W/err" | grep -qE '^R1CS terms [1-9][0-9]* '; then
    pass zk-count-only-terms
else fail "zk-count-only-terms ($(head -c 300 "$W/err"))"; fi
# memory for exactly the builder's terms twice (+1 MB): the circuit is built,
# but a key to write (--zkey-out: 48 bytes per A/B coefficient, nearly every
# term here) cannot be held beside it; without --zkey-out the key set up for
# this proof has no coefficient section (A w and B w come from the circuit),
# so the same memory proves, and the proof verifies
terms=$("$NNCERT" compile "$MLP" --count-only 2>/dev/null | awk '$1 == "R1CS" && $2 == "terms" {print $3}')
expect_error zk-prove-memory-estimate 75 "needs at least .* GiB at once .*proving key" \
    env NNCERT_MEMORY_BYTES=$((80 * ${terms:-0} + 1000000)) "$NNCERT" prove "$MLP" --input models/zoo/sample_input.json \
    -o "$W/lp.json" --public "$W/lpub.json" --zkey-out "$W/lk.zkey"
[ ! -e "$W/lp.json" ] && [ ! -e "$W/lpub.json" ] && [ ! -e "$W/lk.zkey" ] && pass zk-prove-memory-estimate-nothing-written ||
    fail zk-prove-memory-estimate-nothing-written
if env NNCERT_MEMORY_BYTES=$((80 * ${terms:-0} + 1000000)) "$NNCERT" prove "$MLP" --input models/zoo/sample_input.json \
        -o "$W/lp.json" --public "$W/lpub.json" --vk "$W/lvk.json" >/dev/null 2>"$W/err" &&
        "$NNCERT" check --vk "$W/lvk.json" "$W/lp.json" "$W/lpub.json" >/dev/null; then
    pass zk-prove-key-without-coefficients
else fail "zk-prove-key-without-coefficients ($(head -c 300 "$W/err"))"; fi
if [ "$have_snarkjs" = 1 ]; then
    if js_ok "$W/lvk.json" "$W/lpub.json" "$W/lp.json"; then pass zk-prove-key-without-coefficients-snarkjs
    else fail zk-prove-key-without-coefficients-snarkjs; fi
fi
expect_exit zk-help 0 "$NNCERT" prove --help
