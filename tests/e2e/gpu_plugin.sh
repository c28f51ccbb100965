#!/usr/bin/env bash
# The CUDA plugin (gpu/plugin.c, gpu/plugin_impl.h): in a CUDA build nncert
# and libnncert.so link no CUDA library; $BUILD/libnncert-gpu.so carries
# them and is loaded only when a GPU path is asked for.  --device gpu with
# the plugin missing or not a plugin is refused with a one-line error naming
# the file and dlerror(), exit 69, as the build without CUDA refuses it; with
# the plugin found (next to the binary, ../lib, ../build) it loads and, on
# a machine without a GPU, says there is no device.
. "$(dirname "$0")/lib.bash"
Z=models/zoo
PLUGIN=$BUILD/libnncert-gpu.so
CUDA_LIBS='lib(cudart|cublas|cublasLt|curand|nccl|cuda)\.so'

"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.002 --clip 0,1 \
    --output "$TMP/s.vnnlib" || fail "gpu-plugin-spec (spec linf failed)"
VERIFY=(verify $Z/mlp.onnx "$TMP/s.vnnlib" --timeout 5 --samples 2000)

NNCERT_GPU_PLUGIN="$TMP/missing/libnncert-gpu.so" "$NNCERT" "${VERIFY[@]}" --device gpu >/dev/null 2>"$TMP/probe"
if grep -q "built without CUDA" "$TMP/probe"; then
    # make GPU=0: no plugin, --device gpu refused as before
    expect_error gpu0-device-gpu-refused 69 "^nncert: error: --device gpu: this nncert was built without CUDA" \
        "$NNCERT" "${VERIFY[@]}" --device gpu
    for cmd in "groth16 prove K W P Q" "prove $Z/mlp.onnx --input X -o P --public Q"; do
        # shellcheck disable=SC2086 # the words of cmd are its arguments
        expect_error "gpu0-${cmd%% *}-device-gpu-refused" 69 \
            "^nncert: error: --device gpu: this nncert was built without CUDA" "$NNCERT" $cmd --device gpu
    done
    if [ -e "$PLUGIN" ]; then fail "gpu0-no-plugin ($PLUGIN exists in a build without CUDA)"; else pass gpu0-no-plugin; fi
    skip "gpu-plugin (built without CUDA: no plugin to load)"
    exit 0
fi

# the plugin exists, exports its table and carries the CUDA libraries
if [ ! -f "$PLUGIN" ]; then
    fail "gpu-plugin-built ($PLUGIN missing)"
elif ! nm -D --defined-only "$PLUGIN" | grep -qw nnc_gpu_plugin_v1; then
    fail "gpu-plugin-built ($PLUGIN does not export nnc_gpu_plugin_v1)"
elif ! ldd "$PLUGIN" | grep -qE "$CUDA_LIBS"; then
    fail "gpu-plugin-built (ldd $PLUGIN lists no CUDA library)"
else
    pass gpu-plugin-built
fi
# only the table is exported: the libnncert copies inside stay local
n=$(nm -D --defined-only "$PLUGIN" | grep -c ' nnc_')
if [ "$n" -eq 1 ]; then pass gpu-plugin-exports-one-symbol; else fail "gpu-plugin-exports-one-symbol ($n nnc_ symbols)"; fi

# nncert and libnncert.so load no CUDA library
for f in "$NNCERT" "$BUILD/libnncert.so"; do
    name=gpu-plugin-no-cuda-in-$(basename "$f")
    if [ ! -f "$f" ]; then skip "$name ($f not built)"; continue; fi
    found=$(ldd "$f" | grep -oE "$CUDA_LIBS[^ ]*" | tr '\n' ' ')
    if [ -z "$found" ]; then pass "$name"; else fail "$name (ldd $f lists $found)"; fi
done

# a missing plugin, and a library that is no plugin: one line naming the
# file and dlerror(), exit 69 (the library's NNC_STATUS_DEVICE: a program
# linked with libnncert.so tells it from a build without CUDA's UNSUPPORTED)
if [ -f "$BUILD/libnncert.so" ]; then
    printf '%s\n' '#include "nncert/gpu.h"' '#include <stdio.h>' \
        'int main(void) { char err[NNC_ERRBUF_SIZE]; int n = -1; nnc_status st = nnc_gpu_device_count(&n, err, sizeof err);' \
        '  printf("%d %s: %s\n", (int)st, nnc_status_string(st), st ? err : ""); return 0; }' >"$TMP/st.c"
    mkdir -p "$TMP/lib" && ln -sf "$(cd "$BUILD" && pwd)/libnncert.so" "$TMP/lib/libnncert.so.0" # (its SONAME)
    if cc -std=c11 -Iinclude -o "$TMP/st" "$TMP/st.c" "$BUILD/libnncert.so" -Wl,-rpath,"$TMP/lib" 2>"$TMP/cc" &&
       NNCERT_GPU_PLUGIN="$TMP/missing/libnncert-gpu.so" "$TMP/st" >"$TMP/st.out" &&
       grep -q "^8 device error: cannot load the CUDA plugin" "$TMP/st.out"; then pass gpu-plugin-missing-status-device
    else fail "gpu-plugin-missing-status-device ($(head -c 200 "$TMP/cc") $(cat "$TMP/st.out" 2>/dev/null))"; fi
fi
expect_error gpu-plugin-missing 69 \
    "^nncert: error: --device gpu: cannot load the CUDA plugin $TMP/missing/libnncert-gpu.so: .*No such file" \
    env NNCERT_GPU_PLUGIN="$TMP/missing/libnncert-gpu.so" "$NNCERT" "${VERIFY[@]}" --device gpu
if [ -f "$BUILD/libnncert.so" ]; then
    expect_error gpu-plugin-not-a-plugin 69 "^nncert: error: --device gpu: the CUDA plugin .*libnncert\.so has no nnc_gpu_plugin_v1" \
        env NNCERT_GPU_PLUGIN="$BUILD/libnncert.so" "$NNCERT" "${VERIFY[@]}" --device gpu
fi

# the provers' --device gpu: refused the same way, before any file is read
for cmd in "groth16 prove K W P Q" "prove $Z/mlp.onnx --input X -o P --public Q"; do
    # shellcheck disable=SC2086 # the words of cmd are its arguments
    expect_error "gpu-plugin-missing-${cmd%% *}" 69 \
        "^nncert: error: --device gpu: cannot load the CUDA plugin $TMP/missing/libnncert-gpu.so: .*No such file" \
        env NNCERT_GPU_PLUGIN="$TMP/missing/libnncert-gpu.so" "$NNCERT" $cmd --device gpu
done
expect_error gpu-device-name-prove 64 "device must be cpu or gpu" "$NNCERT" groth16 prove K W P Q --device tpu

# the CPU path needs no plugin and loads none
expect_exit gpu-plugin-cpu-without-plugin 0 env NNCERT_GPU_PLUGIN="$TMP/missing/libnncert-gpu.so" "$NNCERT" "${VERIFY[@]}" --device cpu
env -u NNCERT_GPU_PLUGIN LD_DEBUG=files "$NNCERT" "${VERIFY[@]}" --device cpu >/dev/null 2>"$TMP/ld_cpu"
env -u NNCERT_GPU_PLUGIN LD_DEBUG=files "$NNCERT" "${VERIFY[@]}" --device gpu >/dev/null 2>"$TMP/ld_gpu"
if grep -q "libnncert-gpu\.so" "$TMP/ld_cpu"; then fail "gpu-plugin-lazy (--device cpu loaded the plugin)"
elif ! grep -q "file=.*libnncert-gpu\.so" "$TMP/ld_gpu"; then fail "gpu-plugin-lazy (--device gpu did not load the plugin)"
else pass gpu-plugin-lazy; fi

# found by the default look-up: from the build (bin/nncert: ../build; a
# build folder's nncert: next to it), and in an installed layout (bin/ and
# lib/); without a GPU it loads and reports no device
has_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then has_gpu=1; fi
mkdir -p "$TMP/inst/bin" "$TMP/inst/lib" "$TMP/bare/bin"
cp "$NNCERT" "$TMP/inst/bin/nncert" && cp "$PLUGIN" "$TMP/inst/lib/libnncert-gpu.so" && cp "$NNCERT" "$TMP/bare/bin/nncert"
for where in build install; do
    bin=$NNCERT
    [ "$where" = install ] && bin=$TMP/inst/bin/nncert
    if [ "$has_gpu" = 1 ]; then
        env -u NNCERT_GPU_PLUGIN "$bin" "${VERIFY[@]}" --device gpu >/dev/null 2>"$TMP/err"
        rc=$?
        if [ "$rc" -le 2 ]; then pass "gpu-plugin-found-$where"; else fail "gpu-plugin-found-$where (exit $rc: $(head -c 300 "$TMP/err"))"; fi
    else
        expect_error "gpu-plugin-found-$where" 69 "^nncert: error: --device gpu: no CUDA device found$" \
            env -u NNCERT_GPU_PLUGIN "$bin" "${VERIFY[@]}" --device gpu
        expect_error "gpu-plugin-found-$where-groth16" 69 "^nncert: error: --device gpu: no CUDA device found$" \
            env -u NNCERT_GPU_PLUGIN "$bin" groth16 prove K W P Q --device gpu
    fi
done
# a copy of nncert with no plugin anywhere near it
expect_error gpu-plugin-not-found 69 \
    "^nncert: error: --device gpu: cannot load the CUDA plugin libnncert-gpu\.so: .*none in $TMP/bare/bin.*NNCERT_GPU_PLUGIN=PATH" \
    env -u NNCERT_GPU_PLUGIN "$TMP/bare/bin/nncert" "${VERIFY[@]}" --device gpu
