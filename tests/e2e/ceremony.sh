#!/usr/bin/env bash
# The Groth16 trust chain against snarkjs 0.7.6 (npm peer), on a power-8
# powers-of-tau file snarkjs makes here (power 10, about 25 s):
#  - groth16 setup CIRCUIT POT KEY writes snarkjs's key byte for byte;
#  - a chain nncert contribute -> snarkjs contribute -> beacon: nncert's
#    beacon equals snarkjs's byte for byte, and each tool's zkey verify
#    accepts the other's keys, with the same contribution hashes;
#  - tampered keys (an H point, a transcript byte, delta1, a key for another
#    circuit) are refused by nncert zkey verify;
#  - a proof made with the ceremony key: nncert check --model --key --ptau
#    passes; the forgery of issue 24 fails: a circom circuit with the same
#    public signals that outputs 1000, its own ceremony key, the honest model
#    and input commitments copied in, verifies under its own key but check
#    --model refuses the key; so do a key with no contribution, a
#    development key, and a verification key alone (usage error);
#  - zkey export solidityverifier: the contract, compiled with solc and run
#    in an in-process EVM (@ethereumjs/vm), accepts the proof's calldata and
#    refuses a tampered output, a public signal >= r, a coordinate of A >= q,
#    and the forged proof.
. "$(dirname "$0")/lib.bash"
BIN=tests/peers/node_modules/.bin
SNARKJS="$BIN/snarkjs"
PY=/usr/bin/python3
W=$TMP/ceremony; mkdir -p "$W"
if [ ! -x "$SNARKJS" ] || [ ! -x "$BIN/circom2" ]; then
    skip ceremony "snarkjs/circom2 not installed (run tests/setup.sh)"; exit 0
fi
js_ok() { "$SNARKJS" groth16 verify "$@" 2>&1 | grep -q 'OK!'; }

# -- the trust anchor: a small phase-1 ceremony made by snarkjs
if "$SNARKJS" powersoftau new bn128 10 "$W/p0.ptau" >/dev/null 2>&1 &&
   "$SNARKJS" powersoftau contribute "$W/p0.ptau" "$W/p1.ptau" -e=phase-one --name=one >/dev/null 2>&1 &&
   "$SNARKJS" powersoftau prepare phase2 "$W/p1.ptau" "$W/pot.ptau" >/dev/null 2>&1; then pass ceremony-snarkjs-ptau
else fail ceremony-snarkjs-ptau; exit 0; fi
POT=$W/pot.ptau

# -- two models of the same shape (a 4 -> 3 Gemm: 666 constraints with the
# commitments, a domain of 2^10), other weights
"$PY" - "$W" <<'EOF' || fail ceremony-models
import sys, json, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
d = sys.argv[1]
def save(name, seed, nudge=0.0):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((3, 4)).astype(np.float32) * 0.3; b = rng.standard_normal(3).astype(np.float32) * 0.1
    w[0, 0] += nudge
    g = helper.make_graph([helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)], name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
                          [numpy_helper.from_array(a, n) for n, a in {"w": w, "b": b}.items()])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{d}/{name}.onnx")
save("small", 0)
save("other", 1)
save("nudged", 0, 0.05)  # small with one weight moved: a circuit of the same size
json.dump([0.5, 0.25, 1.0, 0.0], open(f"{d}/in.json", "w"))
EOF
"$NNCERT" compile "$W/small.onnx" -o "$W/small.r1cs" >/dev/null 2>"$W/err" &&
    "$NNCERT" compile "$W/other.onnx" -o "$W/other.r1cs" >/dev/null 2>>"$W/err" || fail "ceremony-compile ($(head -c 300 "$W/err"))"

# -- phase 2: setup, byte for byte snarkjs's
"$SNARKJS" groth16 setup "$W/small.r1cs" "$POT" "$W/s0.zkey" >/dev/null 2>&1
if "$NNCERT" groth16 setup "$W/small.r1cs" "$POT" "$W/k0.zkey" >"$W/setup.txt" 2>"$W/err" && cmp -s "$W/k0.zkey" "$W/s0.zkey" &&
   grep -q 'no contribution yet' "$W/err"; then pass ceremony-setup-identical-to-snarkjs
else fail "ceremony-setup-identical-to-snarkjs ($(head -c 300 "$W/err"))"; fi

# -- contributions from both tools, then the beacon from both
B=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
"$NNCERT" zkey contribute "$W/k0.zkey" "$W/k1.zkey" --name Alice -e="alice's entropy" >"$W/c1.txt" 2>"$W/err" ||
    fail "ceremony-contribute ($(head -c 300 "$W/err"))"
"$SNARKJS" zkey contribute "$W/k1.zkey" "$W/k2.zkey" -e="bob's entropy" -n=Bob >/dev/null 2>&1 || fail ceremony-snarkjs-contribute
"$NNCERT" zkey beacon "$W/k2.zkey" "$W/k3.zkey" $B 10 -n="Final Beacon" >"$W/b.txt" 2>"$W/err"
"$SNARKJS" zkey beacon "$W/k2.zkey" "$W/s3.zkey" $B 10 -n="Final Beacon" >/dev/null 2>&1
if cmp -s "$W/k3.zkey" "$W/s3.zkey"; then pass ceremony-beacon-identical-to-snarkjs
else fail "ceremony-beacon-identical-to-snarkjs ($(head -c 300 "$W/err"))"; fi
"$SNARKJS" zkey verify "$W/small.r1cs" "$POT" "$W/k3.zkey" >"$W/jsv.txt" 2>&1
if grep -q 'ZKey Ok!' "$W/jsv.txt"; then pass ceremony-snarkjs-verifies-nncert-chain; else fail ceremony-snarkjs-verifies-nncert-chain; fi
"$NNCERT" zkey verify "$W/small.r1cs" "$POT" "$W/k3.zkey" >"$W/ncv.txt" 2>"$W/err"
rc=$?
# the same contribution hashes: the hex lines of both outputs, colours and prefixes stripped
hashes() { sed 's/\x1b\[[0-9;]*m//g' "$1" | grep -E '^[[:space:]]+[0-9a-f]{8} ' | tr -d '[:space:]'; }
if [ $rc -eq 0 ] && grep -q 'ZKey Ok!' "$W/ncv.txt" && grep -q 'contribution #3 Final Beacon:' "$W/ncv.txt" &&
   grep -q 'contribution #2 Bob:' "$W/ncv.txt" && grep -q 'contribution #1 Alice:' "$W/ncv.txt" &&
   [ "$(hashes "$W/ncv.txt")" = "$(hashes "$W/jsv.txt" | cut -c129-)" ]; then pass ceremony-nncert-verifies-chain
else fail "ceremony-nncert-verifies-chain (exit $rc: $(head -c 300 "$W/err"))"; fi
if grep -qF "$(sed -n '/Contribution Hash/{n;p}' "$W/c1.txt" | tr -d '[:space:]' | cut -c1-8)" "$W/jsv.txt"; then
    pass ceremony-contribution-hash-printed
else fail ceremony-contribution-hash-printed; fi
if "$NNCERT" zkey verify "$W/small.r1cs" "$POT" "$W/s0.zkey" 2>&1 | grep -q 'no contribution'; then pass ceremony-verify-warns-no-contribution
else fail ceremony-verify-warns-no-contribution; fi

# -- tampered keys
"$PY" - "$W" <<'EOF'
import struct, sys
d = sys.argv[1]
b = bytearray(open(f"{d}/k3.zkey", "rb").read())
def sections(b):
    n = struct.unpack_from("<I", b, 8)[0]; p = 12; s = {}
    for _ in range(n):
        t, l = struct.unpack_from("<IQ", b, p); s[t] = (p + 12, l); p += 12 + l
    return s
s = sections(b)
def save(name, x): open(f"{d}/{name}.zkey", "wb").write(x)
h = bytearray(b); o, l = s[9]; h[o:o + 64], h[o + 64:o + 128] = b[o + 64:o + 128], b[o:o + 64]; save("t_h", h)
t = bytearray(b); o, l = s[10]; t[o + 68 + 64 * 3 + 128 + 5] ^= 1; save("t_transcript", t)
e = bytearray(b); o, l = s[2]; e[o + 468:o + 532] = b[o + 4 + 32 + 4 + 32 + 12:o + 4 + 32 + 4 + 32 + 12 + 64]; save("t_delta1", e)
EOF
expect_exit ceremony-tampered-h 1 "$NNCERT" zkey verify "$W/small.r1cs" "$POT" "$W/t_h.zkey"
grep -q 'H section' "$TMP/out" && pass ceremony-tampered-h-named || fail ceremony-tampered-h-named
expect_exit ceremony-tampered-transcript 1 "$NNCERT" zkey verify "$W/small.r1cs" "$POT" "$W/t_transcript.zkey"
expect_exit ceremony-tampered-delta1 1 "$NNCERT" zkey verify "$W/small.r1cs" "$POT" "$W/t_delta1.zkey"
expect_exit ceremony-key-for-other-circuit 1 "$NNCERT" zkey verify "$W/other.r1cs" "$POT" "$W/k3.zkey"
expect_error ceremony-unprepared-ptau 69 'not prepared for phase 2' "$NNCERT" groth16 setup "$W/small.r1cs" "$W/p1.ptau" "$W/x.zkey"
head -c 1000 "$POT" >"$W/trunc.ptau"
expect_error ceremony-truncated-ptau 65 'ptau' "$NNCERT" groth16 setup "$W/small.r1cs" "$W/trunc.ptau" "$W/x.zkey"
[ ! -e "$W/x.zkey" ] && pass ceremony-nothing-written || fail ceremony-nothing-written
expect_error ceremony-beacon-bad-hash 64 'hex' "$NNCERT" zkey beacon "$W/k2.zkey" "$W/x.zkey" 0x0102 10
expect_error ceremony-beacon-bad-exp 64 '10\.\.63' "$NNCERT" zkey beacon "$W/k2.zkey" "$W/x.zkey" 0102 9

# -- a proof of inference with the ceremony key, checked against the model
if "$NNCERT" prove "$W/small.onnx" --key "$W/k3.zkey" --input "$W/in.json" -o "$W/proof.json" --public "$W/public.json" \
        --vk "$W/vk.json" >/dev/null 2>"$W/err" && js_ok "$W/vk.json" "$W/public.json" "$W/proof.json"; then pass ceremony-prove-snarkjs-verifies
else fail "ceremony-prove-snarkjs-verifies ($(head -c 300 "$W/err"))"; fi
"$NNCERT" check --key "$W/k3.zkey" "$W/proof.json" "$W/public.json" --model "$W/small.onnx" --ptau "$POT" \
    --input "$W/in.json" >"$W/chk.txt" 2>"$W/err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'for this model and this input.*through 3 contributions' "$W/chk.txt"; then pass ceremony-check-model
else fail "ceremony-check-model (exit $rc: $(cat "$W/chk.txt") $(head -c 300 "$W/err"))"; fi
# a malformed public.json (a signal not reduced mod r) is a data error, not an invalid proof
"$PY" -c "import json,sys; p=json.load(open(sys.argv[1])); p[0]=str(21888242871839275222246405745257275088548364400416034343698204186575808495617); json.dump(p,open(sys.argv[2],'w'))" \
    "$W/public.json" "$W/public_r.json"
expect_error ceremony-check-unreduced-public 65 'public' "$NNCERT" check --key "$W/k3.zkey" "$W/proof.json" "$W/public_r.json"
# with a key the witness is built alone (no circuit): the same witness as the
# whole circuit's (prove --r1cs builds it), and the prints say which
"$NNCERT" prove "$W/small.onnx" --key "$W/k3.zkey" --input "$W/in.json" -o "$W/pw.json" --public "$W/puw.json" \
    --wtns "$W/fast.wtns" >"$W/fast.txt" 2>"$W/err" &&
"$NNCERT" prove "$W/small.onnx" --key "$W/k3.zkey" --input "$W/in.json" -o "$W/pr.json" --public "$W/pur.json" \
    --wtns "$W/full.wtns" --r1cs "$W/full.r1cs" >"$W/full.txt" 2>>"$W/err"
if cmp -s "$W/fast.wtns" "$W/full.wtns" && cmp -s "$W/puw.json" "$W/pur.json" && grep -q 'witness [0-9.]* s, key read' "$W/fast.txt" &&
    grep -q 'witness [0-9.]* s (with the circuit), key read' "$W/full.txt"; then pass ceremony-prove-witness-alone-same-witness
else fail "ceremony-prove-witness-alone-same-witness ($(cat "$W/fast.txt" "$W/full.txt") $(head -c 300 "$W/err"))"; fi
if js_ok "$W/vk.json" "$W/puw.json" "$W/pw.json"; then pass ceremony-prove-witness-alone-snarkjs-verifies
else fail ceremony-prove-witness-alone-snarkjs-verifies; fi
# a key of the same size for another circuit is refused (its proof does not
# verify under it) and nothing is written
expect_error ceremony-prove-other-circuits-key 65 "not the key of this model's circuit" "$NNCERT" prove "$W/nudged.onnx" \
    --key "$W/k3.zkey" --input "$W/in.json" -o "$W/po.json" --public "$W/puo.json"
[ ! -e "$W/po.json" ] && [ ! -e "$W/puo.json" ] && pass ceremony-prove-other-circuits-key-writes-nothing ||
    fail ceremony-prove-other-circuits-key-writes-nothing
expect_error ceremony-prove-other-circuits-key-with-circuit 65 "its coefficient section differs" "$NNCERT" prove "$W/nudged.onnx" \
    --key "$W/k3.zkey" --input "$W/in.json" -o "$W/po.json" --public "$W/puo.json" --r1cs "$W/nudged.r1cs"
# without --input the circuit is compiled from a zero input: the same circuit
"$NNCERT" check --key "$W/k3.zkey" "$W/proof.json" "$W/public.json" --model "$W/small.onnx" --ptau "$POT" >"$W/chk2.txt" 2>"$W/err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'for this model;' "$W/chk2.txt"; then pass ceremony-check-model-without-input
else fail "ceremony-check-model-without-input (exit $rc: $(cat "$W/chk2.txt") $(head -c 300 "$W/err"))"; fi
expect_error ceremony-check-vk-with-model 64 'cannot be tied' "$NNCERT" check --vk "$W/vk.json" "$W/proof.json" "$W/public.json" \
    --model "$W/small.onnx"
# the first key (no contribution) and a development key prove; check refuses both keys
"$NNCERT" prove "$W/small.onnx" --key "$W/k0.zkey" --input "$W/in.json" -o "$W/p0.json" --public "$W/pub0.json" >/dev/null 2>&1
expect_exit ceremony-check-refuses-no-contribution 1 "$NNCERT" check --key "$W/k0.zkey" "$W/p0.json" "$W/pub0.json" \
    --model "$W/small.onnx" --ptau "$POT"
grep -q 'no contribution' "$TMP/out" && pass ceremony-no-contribution-named || fail ceremony-no-contribution-named
"$NNCERT" prove "$W/small.onnx" --input "$W/in.json" -o "$W/pd.json" --public "$W/pubd.json" --zkey-out "$W/dev.zkey" >/dev/null 2>&1
expect_exit ceremony-check-refuses-dev-key 1 "$NNCERT" check --key "$W/dev.zkey" "$W/pd.json" "$W/pubd.json" \
    --model "$W/small.onnx" --ptau "$POT"

# the binding is named: another input, another quantisation, another model
echo '[0.1, 0.2, 0.3, 0.4]' >"$W/in2.json"
expect_exit ceremony-check-other-input 1 "$NNCERT" check --key "$W/k3.zkey" "$W/proof.json" "$W/public.json" \
    --model "$W/small.onnx" --ptau "$POT" --input "$W/in2.json"
grep -q 'another input' "$TMP/out" && pass ceremony-other-input-named || fail ceremony-other-input-named
expect_exit ceremony-check-other-bits 1 "$NNCERT" check --key "$W/k3.zkey" "$W/proof.json" "$W/public.json" \
    --model "$W/small.onnx" --ptau "$POT" --bits 7
expect_exit ceremony-check-other-model 1 "$NNCERT" check --key "$W/k3.zkey" "$W/proof.json" "$W/public.json" \
    --model "$W/other.onnx" --ptau "$POT"

# -- the gate's groth16 check bound to a model (as check --model --ptau):
# passes for the proof's own, fails for another input, a key of no
# contribution; a model with a verification key is a configuration error
K='"type": "groth16", "public": "public.json", "proof": "proof.json", "model": "small.onnx", "ptau": "pot.ptau"'
cat >"$W/gate.json" <<EOF
{"checks": [
  {"name": "bound", "proving_key": "k3.zkey", $K, "input": "in.json"},
  {"name": "other-input", "proving_key": "k3.zkey", $K, "input": "in2.json"},
  {"name": "first-key", "proving_key": "k0.zkey", $K}]}
EOF
"$NNCERT" gate "$W/gate.json" --summary "$W/gate_summary.json" >/dev/null 2>&1
rc=$?
if [ $rc -eq 1 ] && "$PY" - "$W/gate_summary.json" <<'PY'
import json, sys
c = {r["name"]: r for r in json.load(open(sys.argv[1]))["checks"]}
assert c["bound"]["status"] == "pass" and "for this model and this input" in c["bound"]["message"], c["bound"]
assert "through 3 contributions" in c["bound"]["message"], c["bound"]
assert len(c["bound"]["proving_key"]["sha256"]) == 64 and len(c["bound"]["ptau"]["sha256"]) == 64, c["bound"]
assert c["other-input"]["status"] == "fail" and "another input" in c["other-input"]["message"], c["other-input"]
assert c["first-key"]["status"] == "fail", c["first-key"]
PY
then pass ceremony-gate-proof-of-inference
else fail "ceremony-gate-proof-of-inference (exit $rc)"; fi
check_schema ceremony-gate-summary-schema schema/gate-summary.schema.json "$W/gate_summary.json"
printf '{"checks": [{"name": "x", "type": "groth16", "verification_key": "vk.json", "public": "public.json", "proof": "proof.json", "model": "small.onnx"}]}' >"$W/gate_vk.json"
expect_error ceremony-gate-vk-with-model 65 'cannot be tied' "$NNCERT" gate "$W/gate_vk.json"

# -- the Solidity verifier in an EVM (solc, @ethereumjs/vm; no network)
if [ -d tests/peers/node_modules/solc ] && [ -d tests/peers/node_modules/@ethereumjs/vm ]; then
    "$NNCERT" zkey export solidityverifier "$W/k3.zkey" "$W/verifier.sol" 2>"$W/err" || fail "ceremony-solidity-export ($(head -c 300 "$W/err"))"
    "$NNCERT" zkey export soliditycalldata "$W/public.json" "$W/proof.json" >"$W/cd_ok.txt"
    "$PY" - "$W" <<'PY'
import json, sys
d = sys.argv[1]
r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
a, b, c, pub = json.loads("[" + open(f"{d}/cd_ok.txt").read() + "]")
def save(name, a, b, c, pub):
    open(f"{d}/cd_{name}.txt", "w").write(",".join(json.dumps(x) for x in (a, b, c, pub)))
h = lambda v: "0x%064x" % v
save("output", a, b, c, [h(int(pub[0], 16) + 1)] + pub[1:])
save("above_r", a, b, c, [h(int(pub[0], 16) + r)] + pub[1:])
save("a_above_q", [h(int(a[0], 16) + q), a[1]], b, c, pub)
PY
    node tests/peers/evm_verify.js "$W/verifier.sol" "$W/cd_ok.txt" "$W/cd_output.txt" "$W/cd_above_r.txt" "$W/cd_a_above_q.txt" \
        >"$W/evm.txt" 2>"$W/err"
    if [ "$(tr '\n' ' ' <"$W/evm.txt")" = "true false false false " ]; then pass ceremony-solidity-verifier-evm
    else fail "ceremony-solidity-verifier-evm ($(tr '\n' ' ' <"$W/evm.txt") $(head -c 300 "$W/err"))"; fi
    have_evm=1
else
    skip ceremony-solidity-verifier-evm "solc/@ethereumjs/vm not installed (run tests/setup.sh)"
    have_evm=0
fi

# -- the forgery: a circuit with the same 5 public signals (3 outputs, the
# model and input commitments as public inputs) that outputs 1000 first
cat >"$W/forged.circom" <<'CIRCOM'
pragma circom 2.0.0;
template Forged() {
    signal input mc;
    signal input ic;
    signal output out[3];
    signal sq;
    sq <== mc * ic;
    out[0] <== sq * 0 + 1000;
    for (var i = 1; i < 3; i++) out[i] <== sq * 0;
}
component main {public [mc, ic]} = Forged();
CIRCOM
"$PY" -c "import json,sys; p=json.load(open(sys.argv[1])); json.dump({'mc': p[3], 'ic': p[4]}, open(sys.argv[2],'w'))" \
    "$W/public.json" "$W/forged_in.json"
if "$BIN/circom2" "$W/forged.circom" --r1cs --wasm -o "$W" >/dev/null 2>&1 &&
   "$SNARKJS" wtns calculate "$W/forged_js/forged.wasm" "$W/forged_in.json" "$W/forged.wtns" >/dev/null 2>&1 &&
   "$NNCERT" groth16 setup "$W/forged.r1cs" "$POT" "$W/f0.zkey" >/dev/null 2>&1 &&
   "$NNCERT" zkey contribute "$W/f0.zkey" "$W/f1.zkey" >/dev/null 2>&1 &&
   "$NNCERT" groth16 prove "$W/f1.zkey" "$W/forged.wtns" "$W/fproof.json" "$W/fpublic.json" >/dev/null 2>&1 &&
   "$PY" -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a[0]=='1000' and a[3:]==b[3:] and len(a)==len(b)==5, (a, b)" \
       "$W/fpublic.json" "$W/public.json"; then
    pass ceremony-forgery-made
    expect_exit ceremony-forgery-valid-under-its-key 0 "$NNCERT" check --key "$W/f1.zkey" "$W/fproof.json" "$W/fpublic.json"
    expect_exit ceremony-forgery-refused 1 "$NNCERT" check --key "$W/f1.zkey" "$W/fproof.json" "$W/fpublic.json" \
        --model "$W/small.onnx" --ptau "$POT" --input "$W/in.json"
    grep -q "not the model's circuit" "$TMP/out" && pass ceremony-forgery-reason || fail "ceremony-forgery-reason ($(cat "$TMP/out"))"
    if [ "$have_evm" = 1 ]; then
        "$NNCERT" zkey export soliditycalldata "$W/fpublic.json" "$W/fproof.json" >"$W/cd_forged.txt"
        if [ "$(node tests/peers/evm_verify.js "$W/verifier.sol" "$W/cd_forged.txt" 2>&1)" = false ]; then
            pass ceremony-solidity-refuses-forgery
        else fail ceremony-solidity-refuses-forgery; fi
    fi
else fail ceremony-forgery-made; fi
