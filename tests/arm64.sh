#!/usr/bin/env bash
# make test-arm64: the whole tree cross-built for 64-bit ARM with Debian's
# aarch64-linux-gnu-gcc (the CPU-only build: GPU=0, MPI=0; the arm64 -dev
# packages through Debian multiarch), then every Check unit suite run under
# qemu-user.  On ARM, nnc_isa() is the generic path, so these are the
# portable C kernels.
#
# qemu runs the binaries with -L / : the arm64 dynamic loader and libc that
# Debian's libc6:arm64 installs there, from one build.  (With -L
# /usr/aarch64-linux-gnu, the cross toolchain's ld.so, of another build of
# glibc 2.36, loaded the multiarch libc.so.6, and threads, Check's forks and
# even single-threaded prover suites spun forever inside libc.)  The suites
# run as on the host: threaded, forked.  Each has ARM64_SUITE_TIMEOUT
# seconds (default 1800), and Check's per-test limits are multiplied by
# CK_TIMEOUT_MULTIPLIER (default 20): emulation is 10-50 times slower than
# the host.
set -u
cd "$(dirname "$0")/.."

PKGS=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross libgomp1-arm64-cross qemu-user libc6:arm64 libgomp1:arm64
      libgmp-dev:arm64 libmpfr-dev:arm64 libsodium-dev:arm64 libprotobuf-c-dev:arm64
      libopenblas-dev:arm64 check:arm64 libsubunit-dev:arm64)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "test-arm64: adding the arm64 architecture to dpkg"
    $SUDO dpkg --add-architecture arm64 || exit 1
    $SUDO apt-get update -qq >/dev/null || exit 1
fi
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "test-arm64: installing ${missing[*]}"
    $SUDO apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || exit 1
fi

B=build-arm64
MK=(make --no-print-directory BUILD=$B CC=aarch64-linux-gnu-gcc GPU=0 MPI=0
    PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig)
tests=()
for t in tests/unit/test_*.c; do
    n=$(basename "$t" .c)
    case "$n" in test_gpu*) continue ;; esac # CUDA plugin checks: none on this build
    tests+=("$B/tests/$n")
done
echo "test-arm64: cross-building $B/nncert, $B/libnncert.a and ${#tests[@]} unit suites"
"${MK[@]}" -j"$(nproc)" "$B/nncert" "$B/libnncert.a" "${tests[@]}" >"$B.log" 2>&1 ||
    { tail -n 20 "$B.log"; echo "test-arm64: build failed (log: $B.log)"; exit 1; }
if grep -q "warning:" "$B.log"; then
    grep "warning:" "$B.log"
    echo "test-arm64: the cross build has warnings"
    exit 1
fi

export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-20}
Q=(qemu-aarch64 -L /)
"${Q[@]}" "$B/nncert" version || { echo "test-arm64: nncert does not start under qemu"; exit 1; }
pass=0; fail=0; failed=()
for t in "${tests[@]}"; do
    s=$SECONDS
    out=$(timeout "${ARM64_SUITE_TIMEOUT:-1800}" "${Q[@]}" "$t" 2>&1)
    rc=$?
    echo "$(basename "$t"): exit $rc, $((SECONDS - s)) s: $(printf '%s\n' "$out" | grep -E 'Checks:' | tail -n 1)"
    if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then
        pass=$((pass + 1))
    else
        printf '%s\n' "$out" | grep -E ':[FE]:' | head -n 5
        fail=$((fail + 1)); failed+=("$(basename "$t")")
    fi
done
[ $fail -gt 0 ] && echo "test-arm64: failed: ${failed[*]}"
echo "test-arm64: $pass suites passed, $fail failed (aarch64 under qemu-user)"
[ $fail -eq 0 ]
