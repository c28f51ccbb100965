#!/usr/bin/env bash
# The Python package (python/nncert, ctypes over build/libnncert.so) against
# the command it wraps, on the shipped MLP and CNN:
#  - Model.run equals `nncert run` bit for bit, one sample and a batch of
#    64, both calling conventions (run(x), run(None, {name: x})), f32 and f64;
#  - compute_bounds equals `nncert bounds --json` for ibp, crown and alpha,
#    and holds 300 points of the box run in float64 (the runtime, another
#    code path); an explicit [lower, upper] box gives the same bounds;
#  - verify equals `nncert verify --json` with the same options (time_s
#    aside), for a holding and a violated spec;
#  - bad input raises NncertError or ValueError naming the problem;
#  - `make install DESTDIR=...` installs a package that finds the installed
#    library.
# Needs python3-numpy (tests/setup.sh installs it).
. "$(dirname "$0")/lib.bash"
Z=models/zoo
PY=
for p in /usr/bin/python3 python3; do
    "$p" -c 'import numpy' 2>/dev/null && { PY=$p; break; }
done
if [ -z "$PY" ]; then
    skip "python-package (no python3 with numpy)"
    exit 0
fi
[ -f "$BUILD/libnncert.so" ] || { fail "python-package ($BUILD/libnncert.so not built)"; exit 0; }
export NNCERT_LIBRARY=$PWD/$BUILD/libnncert.so
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}

# specs: one that holds (small eps), one violated (large eps)
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.002 --clip 0,1 \
    --output "$TMP/hold.vnnlib" >/dev/null 2>&1 &&
"$NNCERT" spec linf --model $Z/mlp.onnx --input $Z/sample_input.json --label 9 --eps 0.2 --clip 0,1 \
    --output "$TMP/viol.vnnlib" >/dev/null 2>&1 || { fail "python-specs"; exit 0; }

for model in mlp cnn; do
    M=$Z/$model.onnx
    for prec in f32 f64; do
        "$NNCERT" run $M --input $Z/sample_input.json --precision $prec --output "$TMP/run1-$model-$prec.json" 2>/dev/null &&
        "$NNCERT" run $M --input $Z/sample_batch.npy --precision $prec --output "$TMP/run64-$model-$prec.json" 2>/dev/null ||
            fail "python-run-$model-$prec (nncert run failed)"
    done
    "$NNCERT" spec linf --model $M --input $Z/sample_input.json --label 0 --eps 0.01 --clip 0,1 \
        --output "$TMP/box-$model.vnnlib" >/dev/null 2>&1 || fail "python-spec-$model"
    for m in ibp crown alpha; do
        "$NNCERT" bounds $M --input $Z/sample_input.json --eps 0.01 --clip 0,1 --method $m --json "$TMP/b-$model-$m.json" \
            >/dev/null 2>&1 || fail "python-bounds-$model-$m (nncert bounds failed)"
    done
done
for s in hold viol; do
    # budget-bound (leaves, no time-shared ReLU splits), so the two runs
    # cannot differ by the machine's speed
    "$NNCERT" verify $Z/mlp.onnx "$TMP/$s.vnnlib" --samples 2000 --seed 3 --timeout 600 --max-leaves 32 \
        --relu-split off --json "$TMP/v-$s.json" >/dev/null 2>&1
done

"$PY" - "$TMP" >"$TMP/py.out" 2>&1 <<'PY'
import json, re, sys
import numpy as np
import nncert

T, Z = sys.argv[1], "models/zoo"


def result(name, ok, detail=""):
    print(f"RESULT {'pass' if ok else 'fail'} {name}{' (' + detail + ')' if detail and not ok else ''}")


def check(name, fn):
    try:
        r = fn()
        result(name, r is None or r is True, "" if r in (None, True) else str(r))
    except Exception as e:  # a failed check, never a crashed suite
        result(name, False, f"{type(e).__name__}: {e}")


x1 = np.array(json.load(open(f"{Z}/sample_input.json")), dtype=np.float64)
xb = np.load(f"{Z}/sample_batch.npy")

for model in ("mlp", "cnn"):
    m = nncert.Model(f"{Z}/{model}.onnx")
    name = m.get_inputs()[0].name

    def run_equal(prec, x, ref):
        want = next(iter(json.load(open(ref))["outputs"].values()))
        ftype = np.float32 if prec == "f32" else np.float64
        a = m.run(x.astype(ftype), precision=prec)[0]
        b = m.run(None, {name: x.astype(ftype)}, precision=prec)[0]
        if list(a.shape) != want["shape"]:
            return f"shape {list(a.shape)}, the command's {want['shape']}"
        # the command prints %.9g (f32) / %.17g (f64): both round-trip
        w = np.array(want["data"], dtype=ftype)
        if not (np.array_equal(a.ravel(), w) and np.array_equal(a, b)):
            return f"largest difference {np.max(np.abs(a.ravel() - w))}"

    for prec in ("f32", "f64"):
        check(f"python-run-{model}-{prec}", lambda: run_equal(prec, x1, f"{T}/run1-{model}-{prec}.json"))
        check(f"python-run-{model}-{prec}-batch64", lambda: run_equal(prec, xb, f"{T}/run64-{model}-{prec}.json"))

    def bounds_equal(meth):
        want = json.load(open(f"{T}/b-{model}-{meth}.json"))["boxes"][0]
        lo, hi = nncert.compute_bounds(m, x1, eps=0.01, method=meth, clip=(0, 1))
        if not (np.array_equal(lo.ravel(), want["lower"]) and np.array_equal(hi.ravel(), want["upper"])):
            return "bounds differ from nncert bounds'"
        # the same box given explicitly: the one `spec linf` writes (%.17g)
        blo, bhi = np.zeros(x1.size), np.zeros(x1.size)
        for line in open(f"{T}/box-{model}.vnnlib"):
            r = re.match(r"\(assert \((<=|>=) X_(\d+) (\S+)\)\)", line)
            if r:
                (bhi if r[1] == "<=" else blo)[int(r[2])] = float(r[3])
        lo2, hi2 = nncert.compute_bounds(m, lower=blo, upper=bhi, method=meth)
        if not (np.array_equal(lo2, lo) and np.array_equal(hi2, hi)):
            return "the explicit box's bounds differ from the x/eps box's"
        rng = np.random.default_rng(5)
        pts = blo + (bhi - blo) * rng.random((300, blo.size))
        pts[:40] = blo
        pts[40:80] = bhi
        y = m.run(pts.reshape((300,) + x1.shape[1:]), precision="f64")[0].reshape(300, -1)
        bad = np.sum((y < lo.ravel()) | (y > hi.ravel()))
        if bad:
            return f"{bad} sampled outputs outside the bounds"

    for meth in ("ibp", "crown", "alpha"):
        check(f"python-bounds-{model}-{meth}", lambda: bounds_equal(meth))
    m.close()

m = nncert.Model(f"{Z}/mlp.onnx")
for s in ("hold", "viol"):
    def verify_equal():
        want = json.load(open(f"{T}/v-{s}.json"))
        got = nncert.verify(m, f"{T}/{s}.vnnlib", samples=2000, seed=3, timeout=600, max_leaves=32,
                            relu_split="off")
        want.pop("time_s"), got.pop("time_s")
        if got != want:
            return "report differs in " + ", ".join(k for k in want if got.get(k) != want[k])
        if got["result"] != {"hold": "holds", "viol": "violated"}[s]:
            return f"result {got['result']}"
    check(f"python-verify-{s}", verify_equal)


def raises(exc, pattern, fn):
    try:
        fn()
    except exc as e:
        return True if pattern in str(e) else f"message '{e}' lacks '{pattern}'"
    return f"no {exc.__name__} raised"


check("python-error-missing-model", lambda: raises(nncert.NncertError, "nope.onnx", lambda: nncert.Model(f"{T}/nope.onnx")))
check("python-error-unknown-option",
      lambda: raises(nncert.NncertError, "unknown verify option 'sampels'",
                     lambda: nncert.verify(m, f"{T}/hold.vnnlib", sampels=10)))
check("python-error-bad-option-value",
      lambda: raises(nncert.NncertError, "bad value '2' for verify option 'confidence'",
                     lambda: nncert.verify(m, f"{T}/hold.vnnlib", confidence=2)))
check("python-error-clashing-options",
      lambda: raises(nncert.NncertError, "ibp (interval bounds only) and alpha_iters > 0",
                     lambda: nncert.verify(m, f"{T}/hold.vnnlib", ibp=True, alpha_iters=20)))
check("python-error-input-size",
      lambda: raises(ValueError, "not a multiple of the 784", lambda: m.run(np.zeros(783, dtype=np.float32))))
check("python-error-bounds-method",
      lambda: raises(ValueError, "method must be one of", lambda: nncert.compute_bounds(m, x1, 0.01, method="deeppoly")))
check("python-error-bounds-box",
      lambda: raises(ValueError, "lower above upper",
                     lambda: nncert.compute_bounds(m, lower=np.ones(784), upper=np.zeros(784))))
check("python-error-bounds-layer",
      lambda: raises(nncert.NncertError, "no run-time value named 'nope'",
                     lambda: nncert.compute_bounds(m, x1, 0.01, layer="nope")))
check("python-error-spec", lambda: raises(nncert.NncertError, "nope.vnnlib",
                                          lambda: nncert.verify(m, f"{T}/nope.vnnlib")))
print("python-script-end")
PY
rc=$?
grep '^RESULT ' "$TMP/py.out"
# the script ran to its end (a crash inside a ctypes call would drop the rest)
if [ $rc -eq 0 ] && grep -q '^python-script-end$' "$TMP/py.out" && [ "$(grep -c '^RESULT ' "$TMP/py.out")" -eq 25 ]; then
    pass python-script-complete
else fail "python-script-complete (exit $rc, $(grep -c '^RESULT ' "$TMP/py.out") results: $(grep -v '^RESULT ' "$TMP/py.out" | tail -n 3 | tr '\n' ' '))"; fi

# installed: the package beside the installed library
if make --no-print-directory -s install DESTDIR="$TMP/inst" PREFIX=/usr/local >"$TMP/inst.log" 2>&1; then
    site=$(find "$TMP/inst" -path '*dist-packages/nncert/__init__.py' | head -n 1)
    if [ -z "$site" ]; then
        fail "python-install (no nncert package under $TMP/inst)"
    else
        want=$(readlink -f "$TMP/inst/usr/local/lib/libnncert.so")
        got=$(env -u NNCERT_LIBRARY PYTHONPATH="$(dirname "$(dirname "$site")")" "$PY" -c \
              'import nncert, os; print(os.path.realpath(nncert.library_path()))' 2>&1)
        if [ "$got" = "$want" ]; then pass "python-install"; else fail "python-install (uses '$got', wanted '$want')"; fi
    fi
else
    fail "python-install (make install: $(tail -n 3 "$TMP/inst.log"))"
fi
