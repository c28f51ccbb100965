#!/usr/bin/env bash
# Installs what nncert's build and tests need, when it is missing:
# Debian packages (apt-get) and the npm peer tools (tests/peers).
# Idempotent; prints one line per action.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential pkg-config clang libclang-rt-14-dev
      libgmp-dev libmpfr-dev libsodium-dev check
      libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata
      libopenblas-dev python3-onnx python3-numpy python3-scipy python3-torch
      libopenmpi-dev openmpi-bin chromium python3-cryptography python3-jsonschema)

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm: any installation will do (the machine image may carry its
# own); Debian's packages only when the commands are missing.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq >/dev/null
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm peers (onnxruntime-node for the differential tests and the benchmark;
# snarkjs and circom2 for the Groth16 file-format interop tests;
# circomlibjs as the reference for the Poseidon hash; solc and
# @ethereumjs/vm to run the exported Solidity verifier)
if command -v npm >/dev/null 2>&1; then
    if [ ! -d tests/peers/node_modules/onnxruntime-node ] || [ ! -x tests/peers/node_modules/.bin/snarkjs ] ||
       [ ! -x tests/peers/node_modules/.bin/circom2 ] || [ ! -d tests/peers/node_modules/circomlibjs ] ||
       [ ! -d tests/peers/node_modules/solc ] || [ ! -d tests/peers/node_modules/@ethereumjs/vm ]; then
        echo "setup: installing npm peers (tests/peers)"
        npm ci --prefix tests/peers --no-audit --no-fund --loglevel=error >/dev/null
    fi
fi
exit 0
