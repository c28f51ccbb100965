#!/usr/bin/env bash
# ONNX conformance of the models module (tool: tests/tools/conformance.c).
#   conformance      the node tests of Debian's libonnx-testdata: every test whose
#                    operators nncert supports must match the reference outputs;
#                    tests using an operator, type or feature nncert lacks are
#                    counted as skipped by the tool, with the library's reason
#   conformance-ext  tests/tools/conformance_cases.py: attribute, opset and edge
#                    cases of the supported operators, references from
#                    onnxruntime (tests/peers) or numpy
. "$(dirname "$0")/lib.bash"
TOOL="$BUILD/tools/conformance"

# run_suite NAME DIR: one RESULT line with the tool's summary
run_suite() {
    local name=$1 dir=$2 rc summary
    "$TOOL" "$dir" >"$TMP/$name.out" 2>&1
    rc=$?
    grep -E "^(SKIP|skipped, |FAIL)" "$TMP/$name.out" | sed "s/^/SUMMARY $name: /"
    summary=$(grep '^conformance: ' "$TMP/$name.out" | tail -n 1)
    if [ $rc -eq 0 ] && [ -n "$summary" ]; then
        pass "$name ${summary#conformance: }"
    else
        fail "$name ${summary:-exit $rc without a summary}"
    fi
}

if [ ! -x "$TOOL" ]; then
    fail "conformance ($TOOL not built)"; exit 0
fi

DATA=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data/node}
if [ -d "$DATA" ]; then
    run_suite conformance "$DATA"
else
    skip conformance "libonnx-testdata not installed"
fi

PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import onnx, numpy' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    skip conformance-ext "no python3 with the onnx and numpy modules (Debian: python3-onnx)"
elif ! command -v node >/dev/null || [ ! -d tests/peers/node_modules/onnxruntime-node ]; then
    skip conformance-ext "onnxruntime-node not installed (run tests/setup.sh)"
elif ! "$PY" tests/tools/conformance_cases.py "$TMP/ext" >"$TMP/gen.out" 2>&1; then
    fail "conformance-ext (case generation: $(tail -n 1 "$TMP/gen.out"))"
else
    run_suite conformance-ext "$TMP/ext"
fi
