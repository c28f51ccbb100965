#!/usr/bin/env bash
# Replays every saved fuzz input (tests/fuzz/corpus/NAME) through its target,
# built without libFuzzer (and with ASan/UBSan under make test SAN=1).
. "$(dirname "$0")/lib.bash"
for bin in "$BUILD"/fuzz-replay/fuzz_*; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin"); name=${name#fuzz_}
    if out=$("$bin" tests/fuzz/corpus/$name 2>&1); then pass "fuzz-corpus-$name ${out}"
    else fail "fuzz-corpus-$name: $(echo "$out" | tail -n 5)"; fi
done
