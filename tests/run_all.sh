#!/usr/bin/env bash
# Runs every test suite and prints one closing line "N passed, M failed, K skipped".
# Suites: Check unit tests (build/tests/test_*), then the shell suites
# tests/e2e/*.sh (each prints "RESULT pass|fail|skip NAME [reason]" lines).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export NNCERT=${NNCERT:-bin/nncert} BUILD
pass=0; fail=0; skip=0; failed=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    echo "== $name"
    CK_FORK=yes "$t" >"$log/$name.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        tail -n 1 "$log/$name.out"
        pass=$((pass + 1))
    elif [ $rc -eq 77 ]; then
        tail -n 1 "$log/$name.out"
        skip=$((skip + 1))
    else
        cat "$log/$name.out"
        fail=$((fail + 1)); failed+=("$name")
    fi
done

for s in tests/e2e/*.sh; do
    [ -f "$s" ] || continue
    name=$(basename "$s" .sh)
    echo "== $name"
    bash "$s" >"$log/$name.out" 2>&1
    rc=$?
    grep -E '^(RESULT|SUMMARY)' "$log/$name.out" | grep -v '^RESULT pass' || true
    p=$(grep -c '^RESULT pass' "$log/$name.out"); f=$(grep -c '^RESULT fail' "$log/$name.out"); k=$(grep -c '^RESULT skip' "$log/$name.out")
    echo "   $p passed, $f failed, $k skipped"
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
    if [ "$f" -gt 0 ]; then failed+=("$name"); fi
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "   suite exited $rc without reporting a failure:"; tail -n 20 "$log/$name.out"
        fail=$((fail + 1)); failed+=("$name(exit $rc)")
    fi
done

echo
[ ${#failed[@]} -gt 0 ] && echo "failed suites: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
