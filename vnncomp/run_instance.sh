#!/usr/bin/env bash
# VNN-COMP: run_instance.sh v1 BENCHMARK ONNX VNNLIB RESULTS_FILE TIMEOUT
# Writes RESULTS_FILE as the competition reads it: sat (with the validated
# counterexample as ((X_0 v) ... (Y_0 v))), unsat, unknown or timeout; the
# whole run stays within TIMEOUT seconds (nncert verify --vnncomp-result).
# .onnx.gz and .vnnlib.gz are decompressed to a temporary folder first.
# NNCERT_OPTS: extra options for nncert verify (e.g. --threads 8).
set -uo pipefail
if [ "${1:-}" != v1 ] || [ $# -ne 6 ]; then
    echo "usage: run_instance.sh v1 BENCHMARK ONNX VNNLIB RESULTS_FILE TIMEOUT" >&2
    exit 1
fi
onnx=$3 vnnlib=$4 out=$5 timeout=$6
here=$(cd "$(dirname "$0")/.." && pwd)
NNCERT=${NNCERT:-$here/bin/nncert}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unpack() { # FILE NAME: FILE, or its decompressed copy
    case "$1" in
    *.gz) gzip -dc -- "$1" > "$tmp/$2" || { echo "run_instance.sh: cannot decompress $1" >&2; exit 1; }
          echo "$tmp/$2" ;;
    *) echo "$1" ;;
    esac
}
onnx=$(unpack "$onnx" model.onnx) || exit 1
vnnlib=$(unpack "$vnnlib" spec.vnnlib) || exit 1
# shellcheck disable=SC2086
"$NNCERT" verify "$onnx" "$vnnlib" --timeout "$timeout" --vnncomp-result "$out" ${NNCERT_OPTS:-}
rc=$?
# 0 holds, 1 violated, 2 unknown: the results file says which; others are errors
if [ $rc -gt 2 ]; then
    echo "run_instance.sh: nncert verify failed (exit $rc)" >&2
    exit $rc
fi
exit 0
