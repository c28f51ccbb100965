# Helpers for the shell test suites.  Each check prints one line
# "RESULT pass|fail|skip NAME [detail]" that tests/run_all.sh counts.
NNCERT=${NNCERT:-bin/nncert}
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass() { echo "RESULT pass $*"; }
fail() { echo "RESULT fail $*"; }
skip() { echo "RESULT skip $*"; }
# expect_exit NAME CODE CMD...: run CMD, check its exit code
expect_exit() {
    local name=$1 want=$2; shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then pass "$name"; else fail "$name (exit $rc, wanted $want: $(head -c 300 "$TMP/err"))"; fi
}
# expect_error NAME CODE PATTERN CMD...: exit code, one-line stderr matching PATTERN, empty stdout
expect_error() {
    local name=$1 want=$2 pat=$3; shift 3
    "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$? lines
    lines=$(wc -l <"$TMP/err")
    if [ "$rc" -ne "$want" ]; then fail "$name (exit $rc, wanted $want: $(head -c 300 "$TMP/err"))"
    elif [ "$lines" -ne 1 ]; then fail "$name (stderr has $lines lines)"
    elif ! grep -qE -e "$pat" "$TMP/err"; then fail "$name (message '$(cat "$TMP/err")' lacks /$pat/)"
    elif [ -s "$TMP/out" ]; then fail "$name (wrote to stdout on error)"
    else pass "$name"; fi
}

# mpirun as root, oversubscribed; Open MPI's own allocations (its plugins are
# unloaded before exit) read as leaks in sanitizer builds, so leak checking
# is off under it (our code's leaks are checked in one process)
MPIRUN=(env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" mpirun --allow-run-as-root --oversubscribe)

# check_schema NAME SCHEMA FILE...: the JSON files against a schema of
# schema/ (tests/tools/check_schema.py; skipped without python3-jsonschema)
check_schema() {
    local name=$1 schema=$2 py=; shift 2
    for p in python3 /usr/bin/python3; do "$p" -c "import jsonschema" 2>/dev/null && { py=$p; break; }; done
    if [ -z "$py" ]; then skip "$name (no python3-jsonschema)"; return; fi
    if "$py" tests/tools/check_schema.py "$schema" "$@" >"$TMP/schema.out" 2>&1; then pass "$name"
    else fail "$name: $(head -c 300 "$TMP/schema.out")"; fi
}
