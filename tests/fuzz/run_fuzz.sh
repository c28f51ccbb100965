#!/usr/bin/env bash
# make fuzz: run each libFuzzer target for FUZZ_SECONDS (default 60) over its
# saved corpus (tests/fuzz/corpus/NAME) plus, for ONNX, the node models of
# Debian's libonnx-testdata as seeds.  New interesting inputs go to a scratch
# corpus; crashes are written to build-fuzz/ and fail the run.
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-60}
rc=0
for bin in build-fuzz/fuzz_*; do
    name=$(basename "$bin"); name=${name#fuzz_}
    work=build-fuzz/corpus-$name
    mkdir -p "$work"
    seeds=(tests/fuzz/corpus/$name)
    if [ "$name" = onnx ] && [ -d /usr/share/libonnx-testdata/data/node ]; then
        mkdir -p build-fuzz/seeds-onnx
        for d in /usr/share/libonnx-testdata/data/node/test_*; do
            cp -n "$d/model.onnx" "build-fuzz/seeds-onnx/$(basename "$d").onnx" 2>/dev/null
        done
        seeds+=(build-fuzz/seeds-onnx)
    fi
    echo "== fuzz $name for ${secs}s"
    if ! "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -artifact_prefix=build-fuzz/crash-$name- \
            -print_final_stats=1 "$work" "${seeds[@]}" 2>build-fuzz/$name.log; then
        echo "fuzz $name: FAILED (see build-fuzz/$name.log)"; tail -n 30 build-fuzz/$name.log; rc=1
    else
        grep -E 'stat::number_of_executed_units|cov:' build-fuzz/$name.log | tail -n 2
    fi
done
exit $rc
