#!/usr/bin/env bash
# One verification over MPI ranks (mpirun -np R nncert verify): the report
# equals one process's with R times the threads, byte for byte but for the
# times and "ranks" (leaves, verdicts, volumes, samples, counterexample), on
# a small dense ReLU net made here (5 inputs, no ../shared needed) whose box
# is partly safe, partly unsafe and partly left open for the sampling stage,
# and on ACAS Xu 4_2 prop_2 when ../shared has it; ranks that run other
# options, stall or die end the job with an error naming the rank.  Groth16
# proving over ranks: the one-process proof, verified by nncert and snarkjs.
. "$(dirname "$0")/lib.bash"
PY=/usr/bin/python3
if ! command -v mpirun >/dev/null; then
    skip mpi-verify "mpirun not installed (Debian: openmpi-bin)"
    exit 0
fi
if ! $PY -c 'import onnx, numpy' 2>/dev/null; then
    skip mpi-verify "python3-onnx not installed"
    exit 0
fi

# a 5-16-16-16-3 ReLU net with fixed random weights, and a spec: the box
# [-1, 1]^5, unsafe where y0 >= y1 + q; then (wide.onnx) a 24-32-32-32-3
# net, for the ReLU-split search (more than 16 inputs)
cat >"$TMP/gen.py" <<'PYEOF'
import sys, numpy as np
from onnx import helper, TensorProto, numpy_helper, save
rng = np.random.default_rng(int(sys.argv[2]))
sizes = [int(v) for v in sys.argv[3].split(",")]
nodes, inits, x = [], [], "x"
for l in range(4):
    w = rng.normal(0, 1 / np.sqrt(sizes[l]), (sizes[l + 1], sizes[l])).astype(np.float32)
    b = rng.normal(0, 0.1, sizes[l + 1]).astype(np.float32)
    inits += [numpy_helper.from_array(w, f"w{l}"), numpy_helper.from_array(b, f"b{l}")]
    y = "y" if l == 3 else f"h{l}"
    nodes.append(helper.make_node("Gemm", [x, f"w{l}", f"b{l}"], [y if l == 3 else y + "p"], transB=1))
    if l < 3:
        nodes.append(helper.make_node("Relu", [y + "p"], [y]))
    x = y
g = helper.make_graph(nodes, "mpi_net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, sizes[0]])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])], inits)
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
# the unsafe set's threshold: a 0.6 quantile of y0 - y1 over the box, so
# that two fifths of it are violated
xs = rng.uniform(-1, 1, (20000, sizes[0]))
h = xs
for l in range(4):
    w = numpy_helper.to_array(inits[2 * l]).astype(np.float64)
    b = numpy_helper.to_array(inits[2 * l + 1]).astype(np.float64)
    h = h @ w.T + b
    if l < 3:
        h = np.maximum(h, 0)
print("%.4f" % np.quantile(h[:, 0] - h[:, 1], 0.6))
PYEOF
$PY "$TMP/gen.py" "$TMP/net.onnx" 7 5,16,16,16,3 >"$TMP/q.txt"
$PY "$TMP/gen.py" "$TMP/wide.onnx" 11 24,32,32,32,3 >/dev/null
q=$(cat "$TMP/q.txt")
{
    for i in 0 1 2 3 4; do echo "(declare-const X_$i Real)"; done
    for i in 0 1 2; do echo "(declare-const Y_$i Real)"; done
    for i in 0 1 2 3 4; do echo "(assert (>= X_$i -1))"; echo "(assert (<= X_$i 1))"; done
    echo "(assert (>= Y_0 (+ Y_1 $q)))"
} >"$TMP/net.vnnlib"

# job_refused NAME PATTERN [FILE]: the job just run ($rc, output in
# $TMP/f.out) ended with an error (exit 64 or above, not the time-out) whose
# message matches PATTERN, and wrote no FILE
job_refused() {
    if [ "$rc" -ge 64 ] && [ "$rc" != 124 ] && grep -q "$2" "$TMP/f.out" && { [ -z "${3:-}" ] || [ ! -e "$3" ]; }; then
        pass "$1"
    else fail "$1 (exit $rc: $(grep nncert "$TMP/f.out" | head -c 300))"; fi
}

# same_report NAME A.json B.json R: equal but for time_s and ranks, B with ranks R
same_report() {
    if diff <(grep -v -e '"time_s"' -e '"ranks"' "$2") <(grep -v -e '"time_s"' -e '"ranks"' "$3") >"$TMP/diff" &&
       grep -q "\"ranks\": $4," "$3"; then pass "$1"
    else fail "$1 $(head -c 400 "$TMP/diff")"; fi
}

V=(verify "$TMP/net.onnx" "$TMP/net.vnnlib" --max-leaves 3000 --symbolic cascade --exact off --timeout 600 --samples 30000)
for T in 1 2 3 4; do
    "$NNCERT" "${V[@]}" --threads $T --json "$TMP/one$T.json" >/dev/null 2>&1
done
# the instance covers what the ranks exchange: a validated counterexample,
# safe, unsafe and open leaves, violating samples
if $PY - "$TMP/one1.json" <<'PY'; then pass mpi-instance-mixed; else fail "mpi-instance-mixed $(head -c 300 "$TMP/one1.json")"; fi
import json, sys
r = json.load(open(sys.argv[1]))
l = r["leaves"]
assert r["result"] == "violated" and r["counterexample"] is not None, r["result"]
assert l["safe"] > 0 and l["unsafe"] > 0 and l["open"] > 0, l
assert r["sample_violations"] > 0 and r["samples"] == 30000, r["samples"]
PY
for np in 1 2 3; do
    if "${MPIRUN[@]}" -np $np "$NNCERT" "${V[@]}" --threads 1 --json "$TMP/mpi$np.json" >"$TMP/mpi.out" 2>&1 ||
       [ $? = 1 ]; then
        same_report "mpi-np$np-threads1-equals-threads$np" "$TMP/one$np.json" "$TMP/mpi$np.json" $np
    else fail "mpi-np$np-threads1 $(tail -3 "$TMP/mpi.out")"; fi
done
# two ranks of two threads: one process of four
"${MPIRUN[@]}" -np 2 "$NNCERT" "${V[@]}" --threads 2 --json "$TMP/mpi2x2.json" >"$TMP/mpi.out" 2>&1
same_report mpi-np2-threads2-equals-threads4 "$TMP/one4.json" "$TMP/mpi2x2.json" 2
check_schema mpi-report-schema schema/verify-report.schema.json "$TMP/mpi2x2.json"
# rank 0 alone prints the summary
if [ "$(grep -c '^result:' "$TMP/mpi.out")" = 1 ] && grep -q '^ranks: *2$' "$TMP/mpi.out"; then pass mpi-rank0-prints
else fail "mpi-rank0-prints $(head -c 300 "$TMP/mpi.out")"; fi

# the ReLU-split search of one leaf by the whole team (its passes split
# among the ranks): the wide net on [0.3, 0.7]^24, unsafe where y0 <= y1 -
# 0.8, holds after thousands of sub-problems, found alike by 2 and 3 ranks
# of one thread and one process of 2 and 3 threads (the search ends long
# before any of its switches by time)
{
    for i in $(seq 0 23); do echo "(declare-const X_$i Real)"; done
    for i in 0 1 2; do echo "(declare-const Y_$i Real)"; done
    for i in $(seq 0 23); do echo "(assert (>= X_$i 0.3))"; echo "(assert (<= X_$i 0.7))"; done
    echo "(assert (<= Y_0 (+ Y_1 -0.8)))"
} >"$TMP/wide.vnnlib"
W=(verify "$TMP/wide.onnx" "$TMP/wide.vnnlib" --timeout 600 --samples 1000)
for np in 2 3; do
    "$NNCERT" "${W[@]}" --threads $np --json "$TMP/wone$np.json" >/dev/null 2>&1
    "${MPIRUN[@]}" -np $np "$NNCERT" "${W[@]}" --threads 1 --json "$TMP/wmpi$np.json" >"$TMP/mpi.out" 2>&1
    same_report "mpi-relu-split-np$np-equals-threads$np" "$TMP/wone$np.json" "$TMP/wmpi$np.json" $np
done
if $PY - "$TMP/wmpi2.json" <<'PY'; then pass mpi-relu-split-instance; else fail "mpi-relu-split-instance $(head -c 300 "$TMP/wmpi2.json")"; fi
import json, sys
r = json.load(open(sys.argv[1]))
assert r["result"] == "holds" and r["relu_split_nodes"] > 1000, (r["result"], r["relu_split_nodes"])
PY

# ACAS Xu 4_2 prop_2 (../shared): a budget of 1500 leaves, 2 ranks = 2 threads
A=$SHARED/data/verification/acasxu
if [ -f "$A/onnx/ACASXU_run2a_4_2_batch_2000.onnx" ]; then
    AV=(verify "$A/onnx/ACASXU_run2a_4_2_batch_2000.onnx" "$A/vnnlib/prop_2.vnnlib" --max-leaves 1500 --symbolic cascade
        --timeout 600 --samples 20000)
    "$NNCERT" "${AV[@]}" --threads 2 --json "$TMP/acas1.json" >/dev/null 2>&1
    "${MPIRUN[@]}" -np 2 "$NNCERT" "${AV[@]}" --threads 1 --json "$TMP/acas2.json" >"$TMP/mpi.out" 2>&1
    same_report mpi-acasxu-4_2-prop_2-np2 "$TMP/acas1.json" "$TMP/acas2.json" 2
else
    skip mpi-acasxu "../shared/data/verification/acasxu not present"
fi

# VNN-COMP mode: each rank measures the budget left from its own start; the
# ranks take rank 0's (they are not refused as running other options)
if "${MPIRUN[@]}" -np 2 "$NNCERT" verify "$TMP/net.onnx" "$TMP/net.vnnlib" --timeout 30 --vnncomp-result "$TMP/vr.txt" \
       >"$TMP/f.out" 2>&1 || [ $? = 1 ]; then
    if [ "$(head -n 1 "$TMP/vr.txt")" = sat ]; then pass mpi-vnncomp-mode
    else fail "mpi-vnncomp-mode ($(head -c 200 "$TMP/vr.txt"))"; fi
else fail "mpi-vnncomp-mode $(grep nncert "$TMP/f.out" | head -c 300)"; fi

# faults: other options on one rank, a rank late beyond --rank-wait, a dead rank
B=(verify "$TMP/net.onnx" "$TMP/net.vnnlib" --max-leaves 100 --samples 100)
timeout 120 "${MPIRUN[@]}" -np 1 "$NNCERT" "${B[@]}" --seed 1 : -np 1 "$NNCERT" "${B[@]}" --seed 2 >"$TMP/f.out" 2>&1
rc=$?
job_refused mpi-mismatched-options-refused "rank 1 runs another model, spec or options than rank 0"
NNCERT_TEST_RANK_FAULT=1:stall:30 timeout 60 "${MPIRUN[@]}" -x NNCERT_TEST_RANK_FAULT -np 2 "$NNCERT" "${B[@]}" --rank-wait 2 \
    >"$TMP/f.out" 2>&1
rc=$?
job_refused mpi-stalled-rank-named "rank 1 did not answer within 2 s"
NNCERT_TEST_RANK_FAULT=1:die timeout 60 "${MPIRUN[@]}" -x NNCERT_TEST_RANK_FAULT -np 2 "$NNCERT" "${B[@]}" >"$TMP/f.out" 2>&1
rc=$?
if [ $rc != 0 ] && [ $rc != 124 ] && grep -q "rank 1" "$TMP/f.out"; then pass mpi-dead-rank-named
else fail "mpi-dead-rank-named (exit $rc: $(tail -3 "$TMP/f.out" | head -c 300))"; fi

# Groth16 over ranks on a 2^16 domain (tests/tools/gen_chain: 50001
# constraints): with a fixed blinding the team's proof is one process's, a
# drawn one is the same on every rank and verifies, a tampered witness's
# proof does not (tests/tools/dist_prove_check); mpirun nncert groth16 prove
# writes a proof that nncert and snarkjs verify
"$BUILD/tools/gen_chain" 50000 "$TMP/c.r1cs" "$TMP/c.wtns" >/dev/null &&
    "$NNCERT" groth16 setup "$TMP/c.r1cs" "$TMP/c.zkey" >/dev/null 2>&1 &&
    "$NNCERT" zkey export verificationkey "$TMP/c.zkey" "$TMP/vk.json" >/dev/null 2>&1 || fail "mpi-prove-setup"
for np in 2 3; do
    timeout 300 "${MPIRUN[@]}" -np $np "$BUILD/tools/dist_prove_check" "$TMP/c.zkey" "$TMP/c.wtns" >"$TMP/dp.out" 2>&1
    case $? in
    0) grep -q "ranks $np ok" "$TMP/dp.out" && pass "mpi-prove-np$np-equals-one-process" ||
           fail "mpi-prove-np$np-equals-one-process $(tail -3 "$TMP/dp.out")" ;;
    77) skip "mpi-prove-np$np (built without MPI)" ;;
    *) fail "mpi-prove-np$np-equals-one-process $(tail -3 "$TMP/dp.out")" ;;
    esac
done
if timeout 300 "${MPIRUN[@]}" -np 2 "$NNCERT" groth16 prove "$TMP/c.zkey" "$TMP/c.wtns" "$TMP/p.json" "$TMP/pub.json"        >"$TMP/dp.out" 2>&1 &&
   "$NNCERT" groth16 verify "$TMP/vk.json" "$TMP/pub.json" "$TMP/p.json" | grep -q '^OK'; then
    pass mpi-groth16-prove-verifies
else fail "mpi-groth16-prove-verifies $(tail -3 "$TMP/dp.out")"; fi
# a rank with another witness (one value changed): refused by name, nothing written
python3 - "$TMP/c.wtns" "$TMP/c2.wtns" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-32] ^= 1  # the last value's lowest byte
open(sys.argv[2], "wb").write(b)
PY
timeout 120 "${MPIRUN[@]}" -np 1 "$NNCERT" groth16 prove "$TMP/c.zkey" "$TMP/c.wtns" "$TMP/px.json" "$TMP/pubx.json" : \
    -np 1 "$NNCERT" groth16 prove "$TMP/c.zkey" "$TMP/c2.wtns" "$TMP/px.json" "$TMP/pubx.json" >"$TMP/f.out" 2>&1
rc=$?
job_refused mpi-prove-other-witness-refused "rank 1 proves with another key or witness than rank 0" "$TMP/px.json"
SNARKJS=tests/peers/node_modules/.bin/snarkjs
if [ -x "$SNARKJS" ] && [ -s "$TMP/p.json" ]; then
    if "$SNARKJS" groth16 verify "$TMP/vk.json" "$TMP/pub.json" "$TMP/p.json" 2>&1 | grep -q "OK"; then
        pass mpi-groth16-prove-snarkjs-verifies
    else fail mpi-groth16-prove-snarkjs-verifies; fi
else
    skip mpi-groth16-prove-snarkjs "snarkjs not installed (tests/setup.sh)"
fi

# nncert prove over ranks: the zoo MLP with a key made by one process; the
# proof checks; without --key each rank would make a key of its own: refused
Z=models/zoo
if "$NNCERT" prove $Z/mlp.onnx --calib $Z/sample_batch.npy --input $Z/sample_input.json -o "$TMP/m1.json" \
       --public "$TMP/mpub1.json" --vk "$TMP/mvk.json" --zkey-out "$TMP/m.zkey" >/dev/null 2>"$TMP/err" &&
   timeout 300 "${MPIRUN[@]}" -np 2 "$NNCERT" prove $Z/mlp.onnx --calib $Z/sample_batch.npy --input $Z/sample_input.json \
       --key "$TMP/m.zkey" -o "$TMP/m2.json" --public "$TMP/mpub2.json" >"$TMP/dp.out" 2>&1 &&
   [ "$(grep -c '^constraints' "$TMP/dp.out")" = 1 ] &&
   "$NNCERT" check --vk "$TMP/mvk.json" "$TMP/m2.json" "$TMP/mpub2.json" >/dev/null; then pass mpi-prove-model-checks
else fail "mpi-prove-model-checks $(tail -3 "$TMP/dp.out" "$TMP/err" | head -c 300)"; fi
"${MPIRUN[@]}" -np 2 "$NNCERT" prove $Z/mlp.onnx --calib $Z/sample_batch.npy --input $Z/sample_input.json \
    -o "$TMP/m3.json" --public "$TMP/mpub3.json" >"$TMP/f.out" 2>&1
rc=$?
if [ $rc = 64 ] && grep -q "several ranks prove with one key" "$TMP/f.out" && [ ! -e "$TMP/m3.json" ]; then
    pass mpi-prove-without-key-refused
else fail "mpi-prove-without-key-refused (exit $rc: $(grep nncert "$TMP/f.out" | head -c 300))"; fi

# usage: a sweep stays one process; --rank-wait needs a team
"${MPIRUN[@]}" -np 1 "$NNCERT" "${B[@]}" --sweep-eps 0:0.1:2 >"$TMP/f.out" 2>&1
rc=$?
if [ $rc = 64 ] && grep -q "^nncert verify: --sweep-eps runs in one process" "$TMP/f.out"; then pass mpi-sweep-refused
else fail "mpi-sweep-refused (exit $rc: $(head -c 300 "$TMP/f.out"))"; fi
expect_error rank-wait-alone-refused 64 "rank-wait applies to --distributed" "$NNCERT" "${B[@]}" --rank-wait 5
