#!/usr/bin/env bash
# Poseidon (zk/poseidon.c) against circomlibjs, the npm peer pinned in
# tests/peers: tests/tools/poseidon_ref.mjs writes circomlibjs's round
# constants, MDS matrices and hashes (both its reference and its wasm
# implementation) for every width t = 2..17 on inputs including 0, 1 and
# r-1; tests/tools/poseidon_check recomputes every record and requires
# every constant to be present.  Tampered and truncated reference files
# must be rejected, which shows the checker can fail.
. "$(dirname "$0")/lib.bash"
CHECK=$BUILD/tools/poseidon_check
if [ ! -d tests/peers/node_modules/circomlibjs ]; then
    skip poseidon-circomlibjs "circomlibjs not installed (run tests/setup.sh)"; exit 0
fi
if [ ! -x "$CHECK" ]; then fail "poseidon-circomlibjs ($CHECK not built)"; exit 0; fi
if ! node tests/tools/poseidon_ref.mjs >"$TMP/ref.txt" 2>"$TMP/node.err"; then
    fail "poseidon-circomlibjs (node: $(head -c 300 "$TMP/node.err"))"; exit 0
fi

if "$CHECK" "$TMP/ref.txt" >"$TMP/out" 2>"$TMP/err" && grep -q ' 0 differences' "$TMP/out"; then
    pass "poseidon-circomlibjs-equal $(cat "$TMP/out")"
else fail "poseidon-circomlibjs-equal ($(head -c 300 "$TMP/err"))"; fi

# one digit of one MDS entry of t = 9 changed (the last digit: stays < r)
awk '$1 == "M" && $2 == 9 && $3 == 4 && $4 == 7 && !done { d = substr($5, length($5)); $5 = substr($5, 1, length($5) - 1) ((d + 1) % 10); done = 1 } { print }' \
    "$TMP/ref.txt" >"$TMP/tampered_m.txt"
expect_exit poseidon-tampered-mds-rejected 1 "$CHECK" "$TMP/tampered_m.txt"
# one hash output of 16 inputs changed
awk '$1 == "H" && $3 == 16 && !done { d = substr($NF, length($NF)); $NF = substr($NF, 1, length($NF) - 1) ((d + 1) % 10); done = 1 } { print }' \
    "$TMP/ref.txt" >"$TMP/tampered_h.txt"
expect_exit poseidon-tampered-hash-rejected 1 "$CHECK" "$TMP/tampered_h.txt"
# a round constant missing
grep -v '^C 17 500 ' "$TMP/ref.txt" >"$TMP/missing.txt"
expect_exit poseidon-missing-constant-rejected 1 "$CHECK" "$TMP/missing.txt"
# malformed record
{ cat "$TMP/ref.txt"; echo "C 2 0 not-a-number"; } >"$TMP/bad.txt"
expect_exit poseidon-malformed-reference 2 "$CHECK" "$TMP/bad.txt"
