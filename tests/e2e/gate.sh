#!/usr/bin/env bash
# End-to-end tests of the CI gate and its ecosystem:
#  - `nncert gate` pass, fail and error cases, exit codes, bad configurations;
#  - JUnit XML checked against the JUnit schema's structure (tests/tools/junit_check.py);
#  - baseline comparison: a rise of the violation bound fails the gate, unless
#    the baseline ran with other settings (then it says so and skips);
#  - a passing check with a validated counterexample says so and keeps it;
#  - the verify command's other options in a check;
#  - signed attestations: `nncert keygen` (secret key mode 0600), `attest verify`
#    accepts the original, an independent verifier (Python json + cryptography,
#    hashlib) agrees, and every tampered summary and a wrong key are rejected;
#  - the HTML report rendered by Debian's chromium (headless), its DOM checked,
#    its figures' labels measured (no overlap, none outside its figure);
#  - progress lines on a terminal (script(1) gives a pty), nothing without one;
#    in ReLU-split branch and bound they name the phase, at least one a second;
#  - `make install` into a temporary prefix, then a C program built against
#    the installed pkg-config file;
#  - 8 gates in parallel give the same summaries as one alone.
. "$(dirname "$0")/lib.bash"
Z=models/zoo
W=$TMP/gw
mkdir -p "$W"
cp $Z/mlp.onnx "$W/"
# specs: eps 0.002 is certified safe; eps 0.015 stays open (sampled); label 0 is wrong (violated)
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.002 --clip 0,1 --output "$W/safe.vnnlib" &&
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.015 --clip 0,1 --output "$W/open.vnnlib" &&
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 0 --eps 0.002 --clip 0,1 --output "$W/wrong.vnnlib" ||
    { fail "gate-setup (spec linf)"; exit 0; }
# a Groth16 proof: nncert setup/prove on the hand-made circuit of the fuzz corpus
HAVE_G16=0
C=tests/fuzz/corpus
if [ -f $C/r1cs/nncert_hand.r1cs ] && [ -f $C/wtns/nncert_hand.wtns ] &&
   "$NNCERT" groth16 setup $C/r1cs/nncert_hand.r1cs "$W/k.zkey" >/dev/null &&
   "$NNCERT" groth16 prove "$W/k.zkey" $C/wtns/nncert_hand.wtns "$W/proof.json" "$W/public.json" >/dev/null &&
   "$NNCERT" zkey export verificationkey "$W/k.zkey" "$W/vk.json"; then
    HAVE_G16=1
fi
JCHECK="python3 tests/tools/junit_check.py"

# verify checks kept fast and deterministic: interval bounds, no split
V='"samples": 2000, "split": false, "bounds": "interval"'
cat >"$W/pass.json" <<EOF
{"name": "zoo mlp gate", "seed": 7, "checks": [
  {"name": "mlp-safe", "type": "verify", "model": "mlp.onnx", "spec": "safe.vnnlib", "max_violation": 0.01, $V},
  {"name": "mlp-open", "type": "verify", "model": "mlp.onnx", "spec": "open.vnnlib", "max_violation": 0.01, $V,
   "sweep": {"eps": [0, 0.02], "points": 3, "clip": [0, 1]}}$( [ $HAVE_G16 = 1 ] && echo ',
  {"name": "proof", "type": "groth16", "verification_key": "vk.json", "public": "public.json", "proof": "proof.json"}')
]}
EOF

# ---- pass
"$NNCERT" gate "$W/pass.json" --out-dir "$W/out" >"$TMP/o" 2>"$TMP/e"
rc=$?
if [ $rc -eq 0 ] && grep -q "gate passed" "$TMP/o" && [ ! -s "$TMP/e" ]; then pass gate-pass; else fail "gate-pass (exit $rc: $(head -c 300 "$TMP/e"))"; fi
for f in junit.xml summary.json summary.md report.html; do
    [ -s "$W/out/$f" ] || fail "gate-output-$f"
done
G16_OK=; [ $HAVE_G16 = 1 ] && G16_OK=proof=pass
if $JCHECK "$W/out/junit.xml" mlp-safe=pass mlp-open=pass $G16_OK >"$TMP/j"; then pass gate-junit-pass-schema; else fail "gate-junit-pass-schema: $(cat "$TMP/j")"; fi
if python3 - "$W/out/summary.json" <<'PY'; then pass gate-summary-fields; else fail gate-summary-fields; fi
import json, sys
s = json.load(open(sys.argv[1]))
assert s["passed"] is True and s["seed"] == 7 and s["nncert_version"]
assert len(s["config"]["sha256"]) == 64
v = {c["name"]: c for c in s["checks"]}
assert v["mlp-safe"]["result"] == "holds" and v["mlp-safe"]["violation_fraction"]["upper"] == 0
assert v["mlp-open"]["violation_fraction"]["upper"] > 0 and len(v["mlp-open"]["sweep"]) == 3
for c in s["checks"]:
    for role in ("model", "spec"):
        if c["type"] == "verify":
            assert len(c[role]["sha256"]) == 64
PY
grep -q "| mlp-open | verify | pass |" "$W/out/summary.md" && pass gate-markdown || fail gate-markdown

# ---- fail: a wrong label is violated everywhere; a tampered proof does not verify
if [ $HAVE_G16 = 1 ]; then
    python3 - "$W/public.json" "$W/public_bad.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p[0] = str(int(p[0]) + 1); json.dump(p, open(sys.argv[2], "w"))
PY
    G16_BAD=',
  {"name": "proof-bad-public", "type": "groth16", "verification_key": "vk.json", "public": "public_bad.json", "proof": "proof.json"}'
else
    G16_BAD=
    skip "gate-groth16 (nncert_hand.r1cs/wtns missing from tests/fuzz/corpus)"
fi
cat >"$W/fail.json" <<EOF
{"checks": [
  {"name": "mlp-safe", "type": "verify", "model": "mlp.onnx", "spec": "safe.vnnlib", $V},
  {"name": "mlp-wrong-label", "type": "verify", "model": "mlp.onnx", "spec": "wrong.vnnlib", "max_violation": 0.5, $V}$G16_BAD
]}
EOF
expect_exit gate-fail-exit 1 "$NNCERT" gate "$W/fail.json" --junit "$W/fail.xml" --summary "$W/fail_summary.json"
BAD_OK=; [ $HAVE_G16 = 1 ] && BAD_OK=proof-bad-public=failure
if $JCHECK "$W/fail.xml" mlp-safe=pass mlp-wrong-label=failure $BAD_OK >"$TMP/j"; then pass gate-junit-fail-schema; else fail "gate-junit-fail-schema: $(cat "$TMP/j")"; fi
grep -q '"passed": false' "$W/fail_summary.json" && pass gate-fail-summary || fail gate-fail-summary

# ---- errors: a missing model is an error testcase (exit 66); bad configurations exit 65/66 before running
cat >"$W/err.json" <<EOF
{"checks": [{"name": "missing", "type": "verify", "model": "nope.onnx", "spec": "safe.vnnlib"}]}
EOF
expect_exit gate-missing-model-exit 66 "$NNCERT" gate "$W/err.json" --junit "$W/err.xml"
if $JCHECK "$W/err.xml" missing=error >"$TMP/j"; then pass gate-junit-error-schema; else fail "gate-junit-error-schema: $(cat "$TMP/j")"; fi
printf '{"checks": [' >"$W/bad1.json"
expect_error gate-config-not-json 65 "bad1.json" "$NNCERT" gate "$W/bad1.json"
echo '{"checks": [{"name": "a", "type": "verify", "model": "mlp.onnx", "spec": "safe.vnnlib", "max_violaton": 0.1}]}' >"$W/bad2.json"
expect_error gate-config-unknown-member 65 "unknown member \"max_violaton\"" "$NNCERT" gate "$W/bad2.json"
echo '{"checks": [{"name": "a", "type": "verify", "model": "mlp.onnx", "spec": "safe.vnnlib", "confidence": 1}]}' >"$W/bad3.json"
expect_error gate-config-bad-confidence 65 "confidence" "$NNCERT" gate "$W/bad3.json"
echo '{"checks": [{"name": "a", "type": "verify", "model": "m", "spec": "s"}, {"name": "a", "type": "groth16", "verification_key": "v", "public": "p", "proof": "q"}]}' >"$W/bad4.json"
expect_error gate-config-duplicate-name 65 "used twice" "$NNCERT" gate "$W/bad4.json"
echo '{"checks": []}' >"$W/bad5.json"
expect_error gate-config-no-checks 65 "non-empty" "$NNCERT" gate "$W/bad5.json"
expect_error gate-config-missing 66 "nope.json" "$NNCERT" gate "$W/nope.json"
expect_error gate-usage 64 "CONFIG is required" "$NNCERT" gate
expect_error gate-bad-tolerance 64 "tolerance" "$NNCERT" gate "$W/pass.json" --tolerance -1
# the results are printed, then the report cannot be written: exit 73, one error line
expect_exit gate-unwritable-output 73 "$NNCERT" gate "$W/err.json" --junit /nonexistent/dir/j.xml
grep -q "cannot write /nonexistent/dir/j.xml" "$TMP/err" && [ "$(wc -l <"$TMP/err")" = 1 ] && pass gate-unwritable-output-message ||
    fail "gate-unwritable-output-message: $(cat "$TMP/err")"
"$NNCERT" gate --help | grep -q "usage: nncert gate" && pass gate-help || fail gate-help

# ---- baseline: the same check name with a wider region has a higher violation bound
# mlp_cfg FILE SPEC MAX_VIOLATION SETTINGS [BASELINE]: a config of one verify
# check "mlp" on the zoo MLP
mlp_cfg() {
    printf '{%s"checks": [{"name": "mlp", "type": "verify", "model": "mlp.onnx", "spec": "%s", "max_violation": %s, %s}]}\n' \
        "${5:+\"baseline\": \"$5\", }" "$2" "$3" "$4" >"$1"
}
mlp_cfg "$W/base.json" safe.vnnlib 0.01 "$V"
mlp_cfg "$W/regress.json" open.vnnlib 0.01 "$V" out/base_summary.json
"$NNCERT" gate "$W/base.json" --summary "$W/out/base_summary.json" >/dev/null 2>&1
expect_exit gate-baseline-same-passes 0 "$NNCERT" gate "$W/base.json" --baseline "$W/out/base_summary.json" --junit "$W/same.xml"
$JCHECK "$W/same.xml" "mlp [baseline]=pass" >"$TMP/j" && pass gate-baseline-row-pass || fail "gate-baseline-row-pass: $(cat "$TMP/j")"
expect_exit gate-baseline-regression-fails 1 "$NNCERT" gate "$W/regress.json" --junit "$W/regress.xml"
$JCHECK "$W/regress.xml" mlp=pass "mlp [baseline]=failure" >"$TMP/j" && pass gate-baseline-row-failure || fail "gate-baseline-row-failure: $(cat "$TMP/j")"
expect_exit gate-baseline-tolerance 0 "$NNCERT" gate "$W/regress.json" --tolerance 0.01
expect_error gate-baseline-missing 66 "nope_summary.json" "$NNCERT" gate "$W/base.json" --baseline "$W/nope_summary.json"
# a baseline run with other settings (fewer samples: a wider interval) is
# not called a regression: the row says which settings differ, and is skipped
V200='"samples": 200, "split": false, "bounds": "interval"'
mlp_cfg "$W/base_open.json" open.vnnlib 0.1 "$V"
mlp_cfg "$W/fewer.json" open.vnnlib 0.1 "$V200" out/base_open_summary.json
"$NNCERT" gate "$W/base_open.json" --summary "$W/out/base_open_summary.json" >/dev/null 2>&1
"$NNCERT" gate "$W/fewer.json" --junit "$W/fewer.xml" --summary "$W/fewer_summary.json" >/dev/null 2>&1
rc=$?
if [ $rc -eq 0 ] && $JCHECK "$W/fewer.xml" mlp=pass "mlp [baseline]=skipped" >"$TMP/j" &&
   grep -q "not compared: the upper bound rose .*samples 200 (baseline 2000)" "$W/fewer_summary.json"; then
    pass gate-baseline-other-settings-not-a-regression
else fail "gate-baseline-other-settings-not-a-regression (exit $rc: $(cat "$TMP/j"; grep -o '"message": "[^"]*baseline[^"]*"' "$W/fewer_summary.json"))"; fi

# a check that passes although a validated counterexample exists (the
# violating part within max_violation) says so, and the summary keeps it
cat >"$W/cex.json" <<EOF
{"checks": [{"name": "mlp-cex", "type": "verify", "model": "mlp.onnx", "spec": "wrong.vnnlib", "max_violation": 1, $V}]}
EOF
"$NNCERT" gate "$W/cex.json" --out-dir "$W/cexout" >"$TMP/o" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "validated counterexample" "$W/cexout/summary.md" && grep -q "validated counterexample" "$W/cexout/junit.xml" &&
   python3 - "$W/cexout/summary.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
x = c["counterexample"]
assert c["status"] == "pass" and "validated counterexample" in c["message"], c["message"]
assert x and len(x["input"]) == 784 and len(x["output"]) == 10 and x["case"] == 0, x
# label 0 is wrong: some other logit reaches it
assert max(x["output"][1:]) >= x["output"][0], x["output"]
PY
then pass gate-pass-with-counterexample-says-so
else fail "gate-pass-with-counterexample-says-so (exit $rc: $(head -c 300 "$TMP/o"))"; fi

# the verify command's other options, by the same names ('_' for '-')
cat >"$W/opts.json" <<EOF
{"checks": [{"name": "mlp-opts", "type": "verify", "model": "mlp.onnx", "spec": "safe.vnnlib", "max_violation": 0.01,
  "samples": 500, "threads": 1, "alpha_iters": 0, "relu_split": "off", "symbolic": "off", "exact": "off",
  "stop_on_counterexample": true}]}
EOF
if "$NNCERT" gate "$W/opts.json" --summary "$W/opts_summary.json" >/dev/null 2>&1 &&
   python3 - "$W/opts_summary.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["status"] == "pass" and c["options"] == {"threads": "1", "alpha_iters": "0", "relu_split": "off",
    "symbolic": "off", "exact": "off", "stop_on_counterexample": "on"}, c
PY
then pass gate-verify-options
else fail "gate-verify-options"; fi
printf '{"checks": [{"name": "x", "type": "verify", "model": "mlp.onnx", "spec": "safe.vnnlib", "relu_split": "maybe"}]}' >"$W/badopt.json"
expect_error gate-verify-option-bad-value 65 'relu_split.*bad value .maybe.' "$NNCERT" gate "$W/badopt.json"
printf '{"checks": [{"name": "x", "type": "verify", "model": "mlp.onnx", "spec": "safe.vnnlib", "bounds": "interval", "alpha_iters": 8}]}' >"$W/clash.json"
expect_error gate-verify-options-clash 65 'ibp .interval bounds only. and alpha_iters > 0' "$NNCERT" gate "$W/clash.json"

# ---- attestations
"$NNCERT" keygen "$W/pub.key" "$W/sec.key" || fail gate-keygen
[ "$(stat -c %a "$W/sec.key")" = 600 ] && pass gate-keygen-secret-mode-0600 || fail "gate-keygen-secret-mode ($(stat -c %a "$W/sec.key"))"
expect_error gate-keygen-no-overwrite 73 "exists" "$NNCERT" keygen "$W/pub.key" "$W/sec.key"
"$NNCERT" keygen "$W/other.pub" "$W/other.sec" >/dev/null
expect_exit gate-signed 0 "$NNCERT" gate "$W/pass.json" --summary "$W/signed.json" --sign "$W/sec.key"
expect_exit attest-verify-original 0 "$NNCERT" attest verify "$W/signed.json" "$W/pub.key"
# every summary written so far (passing, failing, with a baseline, signed)
# against the documented format
"$NNCERT" gate "$W/base.json" --baseline "$W/out/base_summary.json" --summary "$W/base_again.json" >/dev/null 2>&1
check_schema gate-summary-schema schema/gate-summary.schema.json "$W/out/summary.json" "$W/fail_summary.json" \
    "$W/out/base_summary.json" "$W/base_again.json" "$W/signed.json" "$W/fewer_summary.json" "$W/cexout/summary.json" \
    "$W/opts_summary.json"
# the Python that has the cryptography package (the PATH one, or Debian's python3-cryptography)
PYC=python3
for py in python3 /usr/bin/python3; do "$py" -c "import cryptography" 2>/dev/null && { PYC=$py; break; }; done
"$PYC" tests/tools/attest_check.py "$W/signed.json" "$W/pub.key" "$W" >"$TMP/a"
case $? in
0) pass "attest-independent-python $(cat "$TMP/a")" ;;
77) skip "attest-independent-python (python3-cryptography missing)" ;;
*) fail "attest-independent-python: $(cat "$TMP/a")" ;;
esac
expect_exit attest-wrong-key 1 "$NNCERT" attest verify "$W/signed.json" "$W/other.pub"
expect_exit attest-unsigned 1 "$NNCERT" attest verify "$W/out/summary.json" "$W/pub.key"
expect_error attest-secret-as-public 65 "not an nncert public key" "$NNCERT" attest verify "$W/signed.json" "$W/sec.key"
expect_error gate-sign-bad-key 65 "not an nncert secret key" "$NNCERT" gate "$W/pass.json" --sign "$W/pub.key"
# each edit keeps valid JSON and changes signed content: every one must be rejected (exit 1)
n=0
while IFS= read -r edit; do
    n=$((n + 1))
    python3 - "$W/signed.json" "$W/t$n.json" "$edit" <<'PY'
import sys
src, dst, edit = sys.argv[1:4]
t = open(src, encoding="utf-8").read()
old, new = edit.split(" => ")
assert old in t, old
open(dst, "w", encoding="utf-8").write(t.replace(old, new, 1))
PY
    expect_exit "attest-tampered-$n ($edit)" 1 "$NNCERT" attest verify "$W/t$n.json" "$W/pub.key"
done <<'EOF'
"passed": true => "passed": false
"status":"pass" => "status":"fail"
"seed": 7 => "seed": 8
"nncert_version": "0.1.0" => "nncert_version": "0.1.1"
"upper":0 => "upper":0.5
"name": "zoo mlp gate" => "name": "zoo mlp gate "
"checks": [ => "extra": 1, "checks": [
"samples":2000 => "samples":2001
"sha256":"a => "sha256":"b
EOF
# a byte edit inside a file hash (not found by the list above when the hash starts otherwise)
python3 - "$W/signed.json" "$W/tb.json" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
s = json.loads(t)
h = s["checks"][0]["model"]["sha256"]
h2 = ("0" if h[-1] != "0" else "1")
open(sys.argv[2], "w").write(t.replace(h, h[:-1] + h2))
PY
expect_exit attest-tampered-model-hash 1 "$NNCERT" attest verify "$W/tb.json" "$W/pub.key"
# a summary whose signature value was edited, and one no longer JSON
# (one hex digit of the signature changed to another, whatever it was)
python3 - "$W/signed.json" "$W/ts.json" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r'"value": "([0-9a-fA-F])', t)
d = "0" if m.group(1) != "0" else "1"
open(sys.argv[2], "w").write(t[:m.start(1)] + d + t[m.end(1):])
PY
cmp -s "$W/ts.json" "$W/signed.json" && fail attest-tampered-signature-setup
expect_exit attest-tampered-signature 1 "$NNCERT" attest verify "$W/ts.json" "$W/pub.key"
head -c 100 "$W/signed.json" >"$W/trunc.json"
expect_exit attest-truncated 65 "$NNCERT" attest verify "$W/trunc.json" "$W/pub.key"
# whitespace outside the canonical form is not signed content: still valid
sed 's/^  "/    "/' "$W/signed.json" >"$W/ws.json"
expect_exit attest-whitespace-only-valid 0 "$NNCERT" attest verify "$W/ws.json" "$W/pub.key"

# ---- HTML report in a real browser
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
    skip "gate-html-chromium (chromium not installed; tests/setup.sh installs it)"
else
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" --dump-dom \
        "file://$W/out/report.html" >"$TMP/dom.html" 2>"$TMP/chrome.err"
    if python3 - "$TMP/dom.html" $HAVE_G16 <<'PY'; then pass gate-html-chromium-dom; else fail "gate-html-chromium-dom: $(tail -c 300 "$TMP/chrome.err")"; fi
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack = []; s.ids = {}; s.svg_in = {}; s.text = []; s.rects = {}; s.polys = 0
    def handle_starttag(s, tag, a):
        a = dict(a)
        s.stack.append((tag, a.get("id")))
        if a.get("id"): s.ids[a["id"]] = tag
        fig = next((i for t, i in reversed(s.stack) if t == "figure" and i), None)
        if tag == "svg" and fig: s.svg_in[fig] = s.svg_in.get(fig, 0) + 1
        if tag == "rect" and a.get("class"): s.rects[a["class"]] = s.rects.get(a["class"], 0) + 1
        if tag == "polygon" and fig and fig.startswith("fig-sweep-"): s.polys += 1
    def handle_startendtag(s, tag, a):
        s.handle_starttag(tag, a); s.stack.pop()
    def handle_endtag(s, tag):
        while s.stack and s.stack.pop()[0] != tag: pass
    def handle_data(s, d): s.text.append(d)
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
text = " ".join(p.text)
assert p.ids.get("fig-volumes") == "figure" and p.svg_in.get("fig-volumes") == 1, p.svg_in
assert any(k.startswith("fig-sweep-") for k in p.svg_in), p.svg_in
assert p.polys >= 1, "no confidence band polygon"
assert p.rects.get("safe", 0) >= 2 and p.rects.get("open", 0) >= 2, p.rects
assert "PASSED" in text and "mlp-open" in text and "violation fraction" in text
assert "epsilon" in text and "certified safe" in text
if sys.argv[2] == "1": assert "the proof verifies" in text
PY
    # the layout as chromium renders it: in every figure no two labels
    # overlap and none leaves its figure (a script measures the text boxes
    # and writes the verdict into the DOM); the interval figure has a bar and
    # a max_violation mark per verify check; the sweep marks each point
    # holds/violated/unknown and has a legend for both bounds
    # (and a report whose check has a long name: labels are shortened to fit)
    cat >"$W/long.json" <<EOF
{"checks": [{"name": "a-check-whose-name-runs-on-and-on-far-past-any-label-width", "type": "verify", "model": "mlp.onnx",
  "spec": "open.vnnlib", "max_violation": 0.01, $V, "sweep": {"eps": [0, 0.02], "points": 3, "clip": [0, 1]}}]}
EOF
    "$NNCERT" gate "$W/long.json" --out-dir "$W/longout" >/dev/null 2>&1
    sed 's|</body>|<script src="layout.js"></script></body>|' "$W/out/report.html" >"$W/out/layout.html"
    sed 's|</body>|<script src="../out/layout.js"></script></body>|' "$W/longout/report.html" >"$W/longout/layout.html"
    cat >"$W/out/layout.js" <<'JS'
const bad = [];
for (const svg of document.querySelectorAll("svg")) {
  const sb = svg.getBoundingClientRect();
  const ts = [...svg.querySelectorAll("text")].filter(t => t.textContent.trim()).map(t => [t.textContent, t.getBoundingClientRect()]);
  for (const [s, r] of ts)
    if (r.left < sb.left - 0.5 || r.right > sb.right + 0.5 || r.top < sb.top - 0.5 || r.bottom > sb.bottom + 0.5) bad.push("outside: " + s);
  for (let i = 0; i < ts.length; i++)
    for (let j = i + 1; j < ts.length; j++) {
      const a = ts[i][1], b = ts[j][1];
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
        bad.push("overlap: " + ts[i][0] + " / " + ts[j][0]);
    }
}
document.body.setAttribute("data-layout", bad.length ? bad.join(" | ") : "ok");
document.body.setAttribute("data-intervals", document.querySelectorAll("#fig-intervals rect.interval").length + "/" +
  document.querySelectorAll("#fig-intervals line.max-violation").length);
document.body.setAttribute("data-points", document.querySelectorAll("figure.fig-sweep circle.point").length);
document.body.setAttribute("data-legend", [...document.querySelectorAll("figure.fig-sweep g.legend text")].map(t => t.textContent).join(","));
JS
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" --window-size=800,1200 \
        --dump-dom "file://$W/out/layout.html" >"$TMP/layout.html" 2>"$TMP/chrome.err"
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" --window-size=800,1200 \
        --dump-dom "file://$W/longout/layout.html" >"$TMP/layout_long.html" 2>>"$TMP/chrome.err"
    lay=$(cat "$TMP/layout.html" "$TMP/layout_long.html" | grep -o 'data-layout="[^"]*"' | sort -u)
    ivs=$(grep -o 'data-intervals="[^"]*"' "$TMP/layout.html")
    pts=$(grep -o 'data-points="[^"]*"' "$TMP/layout.html")
    leg=$(grep -o 'data-legend="[^"]*"' "$TMP/layout.html")
    if [ "$lay" = 'data-layout="ok"' ]; then pass gate-html-layout-no-overlap; else fail "gate-html-layout-no-overlap: ${lay:-no verdict} $(tail -c 200 "$TMP/chrome.err")"; fi
    # two verify checks; 3 sweep points x 2 bounds
    if [ "$ivs" = 'data-intervals="2/2"' ] && [ "$pts" = 'data-points="6"' ] &&
       [ "$leg" = 'data-legend="upper bound,lower bound,holds,violated,unknown"' ]; then pass gate-html-figures-marks-legend
    else fail "gate-html-figures-marks-legend: $ivs $pts $leg"; fi
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" --hide-scrollbars \
        --window-size=800,1200 --screenshot="$TMP/shot.png" "file://$W/out/report.html" >/dev/null 2>&1
    # the screenshot is a PNG (decoded here, filters undone) showing the figures' colours:
    # the green of certified-safe bars and the blue of the confidence band
    if python3 - "$TMP/shot.png" <<'PY'; then pass gate-html-chromium-screenshot; else fail gate-html-chromium-screenshot; fi
import sys, zlib, struct
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n"
w, h, depth, ctype = struct.unpack(">IIBB", b[16:26])
assert depth == 8 and ctype in (2, 6), (depth, ctype)
chunks, i = [], 8
while i < len(b):
    n = struct.unpack(">I", b[i:i + 4])[0]
    if b[i + 4:i + 8] == b"IDAT":
        chunks.append(b[i + 8:i + 8 + n])
    i += 12 + n
raw = zlib.decompress(b"".join(chunks))
bpp = 3 if ctype == 2 else 4
stride = w * bpp
prev = bytearray(stride)
colours = set()
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 1:
        for x in range(bpp, stride): line[x] = (line[x] + line[x - bpp]) & 255
    elif f == 2:
        line = bytearray((a + c) & 255 for a, c in zip(line, prev))
    elif f == 3:
        for x in range(stride): line[x] = (line[x] + ((line[x - bpp] if x >= bpp else 0) + prev[x]) // 2) & 255
    elif f == 4:
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0; c0 = prev[x - bpp] if x >= bpp else 0; up = prev[x]
            p = a + up - c0; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c0)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c0)) & 255
    prev = line
    if y % 3 == 0:
        colours.update(bytes(line[x:x + 3]) for x in range(0, stride, bpp * 3))
safe_green = bytes.fromhex("31a354")
bluish = [c for c in colours if c[2] > c[0] + 30 and c[2] > 150]  # the shaded band (blended) and its edges
assert safe_green in colours and len(bluish) > 0 and len(colours) > 10, (w, h, len(colours), len(bluish))
PY
fi

# ---- progress: a line on a terminal, nothing extra without one
if command -v script >/dev/null; then
    script -qc "$NNCERT verify $W/mlp.onnx $W/open.vnnlib --samples 30000 --no-split --ibp" /dev/null >"$TMP/pty.out" 2>&1
    if tr '\r' '\n' <"$TMP/pty.out" | grep -qE "leaves [0-9]+ +open [0-9]+ +samples [0-9]+/30000 .*ETA"; then pass verify-progress-tty
    else fail "verify-progress-tty: $(tr '\r' '\n' <"$TMP/pty.out" | head -c 300)"; fi
    # an image-sized model in ReLU-split branch and bound: the phase and the
    # sub-problems so far, a line at least every second
    script -qc "$NNCERT verify $W/mlp.onnx $W/open.vnnlib --timeout 3 --samples 1000" /dev/null >"$TMP/pty.out" 2>&1
    tr '\r' '\n' <"$TMP/pty.out" | sed 's/\x1b\[K//g' >"$TMP/pty.lines"
    if grep -qE "^  falsification " "$TMP/pty.lines" && grep -qE "^  relu-split .* splits [0-9]+ " "$TMP/pty.lines" &&
       grep -oE " [0-9]+\.[0-9]s " "$TMP/pty.lines" | awk '{ t = $1 + 0; if (NR > 1 && t - p > 1.0) bad = 1; p = t } END { exit bad }'
    then pass verify-progress-phases-tty
    else fail "verify-progress-phases-tty: $(grep -c . "$TMP/pty.lines") lines, $(tr '\n' '|' <"$TMP/pty.lines" | head -c 300)"; fi
    # inside long passes: alpha-CROWN's steps (an alpha pass of 100000
    # steps per objective, ended by the 4 s deadline: 10000 took 1.5 s on an
    # AVX-512 EPYC, where 3000 took under a second and gave one line) and
    # the batched search's chunks and steps (400 steps each) still give a
    # line at least every second
    for args in "--relu-split off --alpha-iters 100000 --timeout 4:alpha" "--alpha-iters 400 --timeout 6:relu-split"; do
        a=${args%:*} ph=${args##*:}
        script -qc "$NNCERT verify $W/mlp.onnx $W/open.vnnlib --no-split $a --samples 1000" /dev/null >"$TMP/pty.out" 2>&1
        tr '\r' '\n' <"$TMP/pty.out" | sed 's/\x1b\[K//g' >"$TMP/pty.lines"
        if [ "$(grep -cE "^  $ph " "$TMP/pty.lines")" -ge 3 ] &&
           grep -oE " [0-9]+\.[0-9]s " "$TMP/pty.lines" | awk '{ t = $1 + 0; if (NR > 1 && t - p > 1.0) bad = 1; p = t } END { exit bad }'
        then pass "verify-progress-inside-$ph-passes"
        else fail "verify-progress-inside-$ph-passes: $(tr '\n' '|' <"$TMP/pty.lines" | head -c 400)"; fi
    done
    if [ $HAVE_G16 = 1 ]; then
        script -qc "$NNCERT groth16 prove $W/k.zkey $C/wtns/nncert_hand.wtns $W/pp.json $W/pq.json" /dev/null >"$TMP/pty.out" 2>&1
        if tr '\r' '\n' <"$TMP/pty.out" | grep -qE "prove: MSM C\+H done \([0-9]+\) +100% .*ETA"; then pass prove-progress-tty
        else fail "prove-progress-tty: $(tr '\r' '\n' <"$TMP/pty.out" | head -c 300)"; fi
        "$NNCERT" groth16 prove "$W/k.zkey" $C/wtns/nncert_hand.wtns "$W/pp.json" "$W/pq.json" 2>"$TMP/e" >/dev/null
        [ ! -s "$TMP/e" ] && pass prove-progress-none-without-tty || fail "prove-progress-none-without-tty: $(head -c 200 "$TMP/e")"
    fi
else
    skip "verify-progress-tty (script from util-linux missing)"
fi
"$NNCERT" verify "$W/mlp.onnx" "$W/open.vnnlib" --samples 30000 --no-split --ibp >"$TMP/o" 2>"$TMP/e"
[ ! -s "$TMP/e" ] && ! grep -q ETA "$TMP/o" && pass verify-progress-none-without-tty || fail "verify-progress-none-without-tty: $(head -c 200 "$TMP/e")"
"$NNCERT" gate "$W/pass.json" >"$TMP/o" 2>"$TMP/e"
[ ! -s "$TMP/e" ] && pass gate-progress-none-without-tty || fail "gate-progress-none-without-tty: $(head -c 200 "$TMP/e")"

# ---- make install into a temporary prefix; a C program built with its pkg-config file
P=$TMP/prefix
GPUFLAG=0
for cu in gpu/*.cu; do [ -f "$BUILD/obj/${cu%.cu}.o" ] && GPUFLAG=1; done
if [[ $BUILD == build-san* ]]; then
    # its objects carry ASan/UBSan: a program linked against them needs the sanitizer runtime first
    skip "install (sanitizer build; the plain build tests it)"
elif make -s --no-print-directory BUILD="$BUILD" GPU=$GPUFLAG install PREFIX="$P" >"$TMP/inst" 2>&1; then
    ok=1
    for f in bin/nncert lib/libnncert.a lib/libnncert.so lib/pkgconfig/nncert.pc share/man/man1/nncert.1 \
             include/nncert.h include/nncert/nnc.h include/nncert/model.h include/nncert/spec.h \
             include/nncert/verifier.h include/nncert/prover.h include/nncert/gate.h; do
        [ -f "$P/$f" ] || { fail "install-file $f"; ok=0; }
    done
    [ $ok = 1 ] && pass install-files
    if ! command -v man >/dev/null; then
        grep -q '^\.TH NNCERT 1' "$P/share/man/man1/nncert.1" && pass install-man-page-source || fail install-man-page-source
    elif man -l "$P/share/man/man1/nncert.1" 2>/dev/null | grep -q "attest verify"; then pass install-man-page
    else fail install-man-page; fi
    # each public header compiles alone (self-contained), against the
    # installed ones only: the headers installed are exactly include/'s
    ok=1
    inst=$(cd "$P/include" && ls nncert.h nncert/*.h | tr '\n' ' ')
    want=$(ls include/nncert.h include/nncert/*.h | sed 's#^include/##' | tr '\n' ' ')
    [ "$inst" = "$want" ] || { fail "install-headers-list (installed: $inst; the tree's: $want)"; ok=0; }
    for h in $want; do
        echo "#include <$h>" | cc -std=c11 -Wall -Werror -fsyntax-only -I"$P/include" -x c - 2>"$TMP/h" ||
            { fail "install-header-self-contained $h: $(head -c 200 "$TMP/h")"; ok=0; }
    done
    [ $ok = 1 ] && pass install-headers-self-contained
    cat >"$TMP/app.c" <<'EOF'
#include <nncert.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_model *m;
    if (nnc_mdl_load(&m, argv[1], err, sizeof err)) { puts(err); return 1; }
    uint8_t h[32], f[32];
    nnc_mdl_sha256(m, h);
    if (nnc_gate_sha256_file(f, argv[1], err, sizeof err)) { puts(err); return 1; }
    printf("inputs %d outputs %d sha-match %d version %s\n", nnc_mdl_num_inputs(m), nnc_mdl_num_outputs(m),
           memcmp(h, f, 32) == 0, NNC_VERSION_STRING);
    nnc_mdl_destroy(m);
    return argc < 2;
}
EOF
    export PKG_CONFIG_PATH="$P/lib/pkgconfig"
    if cc -std=c11 -o "$TMP/app" "$TMP/app.c" $(pkg-config --cflags --libs nncert) 2>"$TMP/cc" &&
       LD_LIBRARY_PATH="$P/lib" "$TMP/app" $Z/mlp.onnx >"$TMP/app.out" && grep -q "inputs 1 outputs 1 sha-match 1 version" "$TMP/app.out"; then
        pass install-pkgconfig-shared
    else fail "install-pkgconfig-shared: $(head -c 300 "$TMP/cc") $(cat "$TMP/app.out" 2>/dev/null)"; fi
    if cc -std=c11 -o "$TMP/app_static" "$TMP/app.c" $(pkg-config --cflags nncert) "$P/lib/libnncert.a" $(pkg-config --libs --static nncert | sed 's/-lnncert//') 2>"$TMP/cc" &&
       "$TMP/app_static" $Z/mlp.onnx | grep -q "sha-match 1"; then
        pass install-pkgconfig-static
    else fail "install-pkgconfig-static: $(head -c 300 "$TMP/cc")"; fi
    "$P/bin/nncert" version | grep -q "nncert " && pass install-binary-runs || fail install-binary-runs
    make -s --no-print-directory BUILD="$BUILD" GPU=$GPUFLAG install PREFIX=/usr DESTDIR="$TMP/dest" >/dev/null 2>&1 &&
        grep -q "^prefix=/usr$" "$TMP/dest/usr/lib/pkgconfig/nncert.pc" && [ -x "$TMP/dest/usr/bin/nncert" ] &&
        pass install-destdir || fail install-destdir
else
    fail "install: $(tail -c 400 "$TMP/inst")"
fi

# ---- 8 gates in parallel give the summaries one alone gives (times aside)
strip() { python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
def drop(o):
    if isinstance(o, dict):
        return {k: drop(v) for k, v in o.items() if k not in ("time_s", "signature")}
    if isinstance(o, list):
        return [drop(v) for v in o]
    return o
print(json.dumps(drop(s), sort_keys=True))' "$1"; }
"$NNCERT" gate "$W/pass.json" --out-dir "$W/alone" >/dev/null 2>&1
pids=()
for i in 1 2 3 4 5 6 7 8; do
    "$NNCERT" gate "$W/pass.json" --out-dir "$W/par$i" --sign "$W/sec.key" >"$W/par$i.log" 2>&1 &
    pids+=($!)
done
ok=1
for i in 1 2 3 4 5 6 7 8; do
    wait "${pids[$((i - 1))]}" || { ok=0; fail "gate-parallel-$i exit ($(tail -c 200 "$W/par$i.log"))"; }
done
strip "$W/alone/summary.json" >"$TMP/alone.txt"
for i in 1 2 3 4 5 6 7 8; do
    strip "$W/par$i/summary.json" >"$TMP/par.txt" 2>/dev/null && cmp -s "$TMP/alone.txt" "$TMP/par.txt" || { ok=0; fail "gate-parallel-$i summary differs"; }
    "$NNCERT" attest verify "$W/par$i/summary.json" "$W/pub.key" >/dev/null || { ok=0; fail "gate-parallel-$i signature"; }
    ls "$W/par$i" | grep -q tmp && { ok=0; fail "gate-parallel-$i left a temporary file"; }
done
[ $ok = 1 ] && pass gate-parallel-8-equal
