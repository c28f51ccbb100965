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

# ---- the layer order (the Makefile's MODULES, lowest first): every call
# between folders goes down it; the check finds a planted upward call
# (c/z.c calls a/x.c: fine with a below c, upward with c below a)
# the build's own variables (make -s print-VAR), for this configuration
mk=(make -s --no-print-directory BUILD="$BUILD")
case "$BUILD" in build-san*) mk+=(SAN=1) ;; esac
modules=$("${mk[@]}" print-MODULES 2>/dev/null)
if [ -z "$modules" ]; then fail "layers-order (no MODULES in the Makefile)"
elif "$PY" tests/tools/deps_check.py "$BUILD/obj" --layers "$modules" >"$TMP/order" 2>&1; then pass "layers-order-as-listed ($modules)"
else fail "layers-order-as-listed $(grep -E 'upward|not a listed' "$TMP/order" | head -3 | tr '\n' ';')"; fi
"$PY" tests/tools/deps_check.py "$TMP/obj" --layers "c a" >"$TMP/up" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "upward call: c/z.c (layer c) calls a/x.c (layer a)" "$TMP/up" &&
   "$PY" tests/tools/deps_check.py "$TMP/obj" --layers "a c" >/dev/null 2>&1; then pass "layers-planted-upward-call-found"
else fail "layers-planted-upward-call-found (exit $rc: $(tr '\n' ';' <"$TMP/up"))"; fi

# the link order: programs link the module archives callers first, so a
# module that calls one above it fails to link.  Planted: the same object,
# which calls nnc_vrf_result_name (verifier), added to a copy of the
# verifier archive links; added to a copy of common's it does not.
if [ -f "$BUILD/mod/libnncert_common.a" ]; then
    read -r -a libs <<<"$("${mk[@]}" print-LAYER_LIBS 2>/dev/null)" # callers first, as programs link them
    linkflags=$("${mk[@]}" print-LDFLAGS 2>/dev/null; "${mk[@]}" print-LIBS 2>/dev/null)
    printf 'const char *nnc_vrf_result_name(int);\nconst char *planted_up(void) { return nnc_vrf_result_name(0); }\n' >"$TMP/up.c"
    printf 'const char *planted_up(void);\nint main(void) { return planted_up() == 0; }\n' >"$TMP/main.c"
    link_with() { # MODULE: the planted object in a copy of MODULE's archive
        local l=() a
        for a in "${libs[@]}"; do
            if [ "$a" = "$BUILD/mod/libnncert_$1.a" ]; then cp "$a" "$TMP/lib$1.a" && ar r "$TMP/lib$1.a" "$TMP/up.o" 2>/dev/null; l+=("$TMP/lib$1.a")
            else l+=("$a"); fi
        done
        # shellcheck disable=SC2086 # (the build's flags, split as make splits them)
        cc -o "$TMP/app_$1" "$TMP/main.c" "${l[@]}" $linkflags >"$TMP/link_$1" 2>&1
    }
    cc -c -o "$TMP/up.o" "$TMP/up.c"
    if link_with verifier && ! link_with common && grep -q "undefined reference to .nnc_vrf_result_name" "$TMP/link_common"; then
        pass "layers-link-order-refuses-upward-call"
    else fail "layers-link-order-refuses-upward-call ($(head -c 300 "$TMP/link_verifier" "$TMP/link_common" | tr '\n' ';'))"; fi
else fail "layers-link-order ($BUILD/mod/libnncert_common.a not built)"; fi

# every unit suite belongs to exactly one module (make <module> builds it)
listed=$("${mk[@]}" print-MODULE_TESTS 2>/dev/null | tr ' ' '\n' | sed '/^$/d' | sort)
suites=$(ls tests/unit/test_*.c | sed 's|.*/||; s|\.c$||' | sort)
if [ -n "$listed" ] && [ "$listed" = "$suites" ]; then pass "layers-every-suite-in-one-module"
else fail "layers-every-suite-in-one-module ($(diff <(echo "$listed") <(echo "$suites") | grep '^[<>]' | tr '\n' ' '))"; fi

# ---- the exported API (issue 23): libnncert.so's dynamic symbols are
# exactly the functions the public headers mark NNC_API, and it has a SONAME
if ! command -v readelf >/dev/null; then
    skip "api-exports (readelf missing)"
elif [ ! -f "$BUILD/libnncert.so" ]; then
    fail "api-exports ($BUILD/libnncert.so not built)"
elif "$PY" tests/tools/api_check.py "$BUILD/libnncert.so" Makefile >"$TMP/api" 2>&1; then
    pass "api-exports-equal-declared $(tail -n 1 "$TMP/api")"
else fail "api-exports-equal-declared $(head -n 5 "$TMP/api" | tr '\n' ';')"; fi

# the check finds both kinds of difference: a planted library that exports
# an undeclared function and lacks a declared one
mkdir -p "$TMP/api_t"
printf '#include "nncert/nnc.h"\nNNC_API int nnc_t_declared(int);\nNNC_API int nnc_t_missing(int);\n' >"$TMP/api_t/t.h"
printf '#include "t.h"\nint nnc_t_declared(int v) { return v; }\nint nnc_t_extra(int v) { return v + 1; }\n' >"$TMP/api_t/t.c"
if cc -shared -fPIC -Iinclude -Wl,-soname,libt.so.0 -o "$TMP/api_t/libt.so" "$TMP/api_t/t.c" 2>"$TMP/api_t/cc"; then
    "$PY" tests/tools/api_check.py "$TMP/api_t/libt.so" Makefile "$TMP/api_t/t.h" >"$TMP/api_t/out" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q "declared, not exported: nnc_t_missing" "$TMP/api_t/out" &&
       grep -q "exported, not declared: nnc_t_extra" "$TMP/api_t/out" && ! grep -q "nnc_t_declared" "$TMP/api_t/out"; then
        pass "api-check-finds-planted-differences"
    else fail "api-check-finds-planted-differences (exit $rc: $(tr '\n' ';' <"$TMP/api_t/out"))"; fi
else fail "api-check-planted-build $(head -c 200 "$TMP/api_t/cc")"; fi

# ---- one release verb (issue 23): the public headers release with _destroy
# (handles) and _clear (caller-held structs) only, nnc_vrf_free aside (the
# verifier's returned buffers), and tests/unit/test_release.c calls each
rel=$(grep -ho 'NNC_API void nnc_[a-z0-9_]*(' include/nncert/*.h | sed 's/NNC_API void //; s/($//')
other=$(echo "$rel" | grep -E '_(free|close|release|delete)$' | grep -vx nnc_vrf_free | tr '\n' ' ')
[ -z "$other" ] && pass release-verbs || fail "release-verbs (other verbs: $other)"
missing=$(echo "$rel" | grep -E '_(destroy|clear)$' | while read -r f; do grep -qw "$f" tests/unit/test_release.c || echo "$f"; done | tr '\n' ' ')
[ -z "$missing" ] && pass release-functions-tested || fail "release-functions-tested (not in tests/unit/test_release.c: $missing)"
