#!/usr/bin/env bash
# VNN-COMP: prepare_instance.sh v1 BENCHMARK ONNX VNNLIB
# Before each instance (not timed): ends nncert runs left over from an
# earlier instance, and checks that both files can be read (a .gz is
# decompressed by run_instance.sh).  Exit 0 when the instance can run.
set -uo pipefail
if [ "${1:-}" != v1 ] || [ $# -ne 4 ]; then
    echo "usage: prepare_instance.sh v1 BENCHMARK ONNX VNNLIB" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")/.." && pwd)
NNCERT=${NNCERT:-$here/bin/nncert}
[ -x "$NNCERT" ] || { echo "prepare_instance.sh: $NNCERT not built (run install_tool.sh v1)" >&2; exit 1; }
pkill -f -- "^$NNCERT verify " 2>/dev/null || true
for f in "$3" "$4"; do
    [ -r "$f" ] || { echo "prepare_instance.sh: cannot read $f" >&2; exit 1; }
done
exit 0
