#!/usr/bin/env bash
# Replays every saved fuzz input (tests/fuzz/corpus/NAME) through its target,
# built without libFuzzer (and with ASan/UBSan under make test SAN=1).  A
# target without a seed corpus, or with an empty one, fails: it tests nothing.
. "$(dirname "$0")/lib.bash"
for bin in "$BUILD"/fuzz-replay/fuzz_*; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin"); name=${name#fuzz_}
    if [ ! -d "tests/fuzz/corpus/$name" ]; then fail "fuzz-corpus-$name (no seed corpus tests/fuzz/corpus/$name)"; continue; fi
    if out=$("$bin" tests/fuzz/corpus/$name 2>&1); then pass "fuzz-corpus-$name ${out}"
    else fail "fuzz-corpus-$name: $(echo "$out" | tail -n 5)"; fi
done

# the replay itself fails on an empty corpus (a target that replays nothing)
bin=$(ls "$BUILD"/fuzz-replay/fuzz_* 2>/dev/null | head -n 1)
if [ -n "$bin" ]; then
    mkdir -p "$TMP/empty"
    if "$bin" "$TMP/empty" >/dev/null 2>"$TMP/err"; then fail "fuzz-replay-empty-corpus-fails (exit 0)"
    elif grep -q "no input replayed" "$TMP/err"; then pass fuzz-replay-empty-corpus-fails
    else fail "fuzz-replay-empty-corpus-fails ($(head -c 200 "$TMP/err"))"; fi
fi
