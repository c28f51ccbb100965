#!/usr/bin/env bash
# The library's layering (issue 23): the dependency graph between its
# object files, and between its folders, is acyclic (tests/tools/deps_check.py
# over $BUILD/obj); and the check itself finds a cycle planted in a
# two-file tree.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.bash
BUILD=${BUILD:-build}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if ! command -v nm >/dev/null; then
    skip "layers (nm missing)"
    exit 0
fi
if "$PY" tests/tools/deps_check.py "$BUILD/obj" >"$TMP/out" 2>&1; then pass "layers-acyclic"
else fail "layers-acyclic $(grep cycle "$TMP/out" | head -3 | tr '\n' ';')"; fi

# a planted cycle: a/x.c calls b/y.c, which calls back
mkdir -p "$TMP/obj/a" "$TMP/obj/b" "$TMP/obj/c"
printf 'int y(int);\nint x(int v) { return v ? y(v - 1) : 0; }\n' >"$TMP/x.c"
printf 'int x(int);\nint y(int v) { return x(v); }\n' >"$TMP/y.c"
printf 'int x(int);\nint z(int v) { return x(v); }\n' >"$TMP/z.c"
cc -c -o "$TMP/obj/a/x.o" "$TMP/x.c" && cc -c -o "$TMP/obj/b/y.o" "$TMP/y.c" && cc -c -o "$TMP/obj/c/z.o" "$TMP/z.c"
"$PY" tests/tools/deps_check.py "$TMP/obj" >"$TMP/planted" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "file cycle: a/x.c b/y.c" "$TMP/planted" && grep -q "folder cycle: a b" "$TMP/planted" &&
   ! grep -q "c/z.c" <(grep cycle "$TMP/planted"); then pass "layers-planted-cycle-found"
else fail "layers-planted-cycle-found (exit $rc: $(tr '\n' ';' <"$TMP/planted"))"; fi
rm -f "$TMP/obj/b/y.o"
if "$PY" tests/tools/deps_check.py "$TMP/obj" >/dev/null 2>&1; then pass "layers-acyclic-tree-passes"
else fail "layers-acyclic-tree-passes"; fi
