#!/usr/bin/env bash
# VNN-COMP: install_tool.sh v1 -- the Debian packages nncert needs
# (tests/setup.sh, through apt-get) and the build (make).
set -euo pipefail
if [ "${1:-}" != v1 ]; then
    echo "install_tool.sh: expected the version string v1, got '${1:-}'" >&2
    exit 1
fi
cd "$(dirname "$0")/.."
tests/setup.sh
make -j"$(nproc)" bin/nncert
