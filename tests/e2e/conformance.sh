#!/usr/bin/env bash
# ONNX backend conformance: every node test of Debian's libonnx-testdata whose
# operators nncert supports must match the reference outputs; tests that use
# an operator, type or feature nncert lacks are counted as skipped by the tool
# (build/tools/conformance, see tests/tools/conformance.c).
. "$(dirname "$0")/lib.sh"
DATA=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data/node}
if [ ! -d "$DATA" ]; then
    skip conformance "libonnx-testdata not installed"; exit 0
fi
TOOL="$BUILD/tools/conformance"
if [ ! -x "$TOOL" ]; then
    fail "conformance ($TOOL not built)"; exit 0
fi
"$TOOL" "$DATA" >"$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
summary=$(grep '^conformance: ' "$TMP/out" | tail -n 1)
if [ $rc -eq 0 ] && [ -n "$summary" ]; then
    pass "conformance ${summary#conformance: }"
else
    fail "conformance ${summary:-exit $rc without a summary}"
fi
