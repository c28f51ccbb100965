#!/usr/bin/env bash
# make test-arm64: the whole tree cross-built for 64-bit ARM with Debian's
# aarch64-linux-gnu-gcc (the CPU-only build: GPU=0, MPI=0; the arm64 -dev
# packages through Debian multiarch), then every Check unit suite run under
# qemu-user.  On ARM, nnc_isa() is the generic path, so these are the
# portable C kernels.
#
# Threads under qemu-user hang here: OpenBLAS's pool (a one-element dgemm
# never returns), libgomp teams (nncert verify with --threads 1 never
# returns unless OMP_THREAD_LIMIT=1), and Check's forked tests; whether
# that is qemu's or ours needs real ARM hardware to tell.  So the suites
# run single-threaded (OPENBLAS_NUM_THREADS=1, OMP_THREAD_LIMIT=1) and
# unforked (CK_FORK=no).  Each suite has ARM64_SUITE_TIMEOUT seconds
# (default 900; emulation is 10-50 times slower than the host).
set -u
cd "$(dirname "$0")/.."

PKGS=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross libgomp1-arm64-cross qemu-user
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

export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1 CK_FORK=no
Q=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
"${Q[@]}" "$B/nncert" version || { echo "test-arm64: nncert does not start under qemu"; exit 1; }
pass=0; fail=0; failed=()
for t in "${tests[@]}"; do
    s=$SECONDS
    out=$(timeout "${ARM64_SUITE_TIMEOUT:-900}" "${Q[@]}" "$t" 2>&1)
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
