"""nncert from Python: run an ONNX model, bound its outputs soundly, verify a
VNN-LIB spec -- the library behind the ``nncert`` command (libnncert.so,
through ctypes), so answers are the command's.

    import numpy as np, nncert
    m = nncert.Model("models/zoo/mlp.onnx")
    [y] = m.run(x)                                    # like onnxruntime's run
    lo, hi = nncert.compute_bounds(m, x, eps=0.01, method="crown")
    report = nncert.verify(m, "spec.vnnlib", timeout=30, samples=10000)

The library is found at $NNCERT_LIBRARY, else beside this package in the
source tree (build/libnncert.so after ``make``; PYTHONPATH=python), else
where ``make install`` puts both (PREFIX/lib), else by the loader's search.
Needs numpy (Debian: python3-numpy).
"""
import ctypes
import ctypes.util
import json
import os

import numpy as np

__all__ = ["Model", "NodeArg", "NncertError", "compute_bounds", "verify", "library_path"]

_ERRLEN = 512
_MAX_RANK = 8
_FLOAT_DTYPES = {1: "tensor(float)", 10: "tensor(float16)", 11: "tensor(double)", 16: "tensor(bfloat16)"}
_INT_DTYPES = {2: "tensor(uint8)", 3: "tensor(int8)", 4: "tensor(uint16)", 5: "tensor(int16)",
               6: "tensor(int32)", 7: "tensor(int64)", 9: "tensor(bool)", 12: "tensor(uint32)",
               13: "tensor(uint64)"}
_DOUBLE = 11


class NncertError(Exception):
    """An error from the library: status is its nnc_status code (nncert/nnc.h),
    the message its one-line explanation."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class _TensorInfo(ctypes.Structure):
    # nncert/model.h: nnc_tensor_info
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int),
                ("dims", ctypes.c_int64 * _MAX_RANK), ("numel", ctypes.c_int64),
                ("dynamic_leading", ctypes.c_int)]


def _candidates():
    env = os.environ.get("NNCERT_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    c = [os.path.join(here, "..", "..", "build", "libnncert.so"),        # source tree
         os.path.join(here, "..", "..", "..", "libnncert.so"),           # PREFIX/lib/python3/dist-packages
         os.path.join(here, "..", "..", "..", "..", "lib", "libnncert.so")]
    found = ctypes.util.find_library("nncert")
    if found:
        c.append(found)
    return c


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(os.path.normpath(path) if os.path.sep in path else path), path
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError("nncert: libnncert.so not found (run make, or set NNCERT_LIBRARY); tried: " +
                      ", ".join(tried))


_lib, _lib_path = _load()


def library_path():
    """The libnncert.so this package uses."""
    return os.path.normpath(_lib_path) if os.path.sep in _lib_path else _lib_path


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_S = ctypes.c_char_p
_E = (ctypes.c_char_p, ctypes.c_size_t)
_DP = ctypes.POINTER(ctypes.c_double)
_status_string = _fn("nnc_status_string", ctypes.c_char_p, ctypes.c_int)
_mdl_load = _fn("nnc_mdl_load", ctypes.c_int, _PP, _S, *_E)
_vrf_load = _fn("nnc_vrf_load_model", ctypes.c_int, _PP, _S, *_E)
_mdl_destroy = _fn("nnc_mdl_destroy", None, _P)
_mdl_num_inputs = _fn("nnc_mdl_num_inputs", ctypes.c_int, _P)
_mdl_num_outputs = _fn("nnc_mdl_num_outputs", ctypes.c_int, _P)
_mdl_input_info = _fn("nnc_mdl_input_info", None, _P, ctypes.c_int, ctypes.POINTER(_TensorInfo))
_mdl_output_info = _fn("nnc_mdl_output_info", None, _P, ctypes.c_int, ctypes.POINTER(_TensorInfo))
_rt_create = _fn("nnc_rt_create", ctypes.c_int, _PP, _P, ctypes.c_int, ctypes.c_int, *_E)
_rt_destroy = _fn("nnc_rt_destroy", None, _P)
_rt_set_threads = _fn("nnc_rt_set_threads", ctypes.c_int, _P, ctypes.c_int)
_rt_run = _fn("nnc_rt_run", ctypes.c_int, _P, ctypes.c_int, _PP, _PP, *_E)
_opts_new = _fn("nnc_vrf_opts_new", _P)
_opts_destroy = _fn("nnc_vrf_opts_destroy", None, _P)
_opts_set = _fn("nnc_vrf_opts_set", ctypes.c_int, _P, _S, _S, *_E)
_run_json = _fn("nnc_vrf_run_json", ctypes.c_int, _P, _S, _P, ctypes.POINTER(ctypes.c_void_p), *_E)
_vrf_free = _fn("nnc_vrf_free", None, _P)
_bnd_create = _fn("nnc_vrf_bounder_create", ctypes.c_int, _PP, _P, _S, *_E)
_bnd_inputs = _fn("nnc_vrf_bounder_num_inputs", ctypes.c_int64, _P)
_bnd_values = _fn("nnc_vrf_bounder_num_values", ctypes.c_int64, _P)
_bnd_box = _fn("nnc_vrf_bounder_box", ctypes.c_int, _P, ctypes.c_int, ctypes.c_int, _DP, _DP, _DP, _DP)
_bnd_destroy = _fn("nnc_vrf_bounder_destroy", None, _P)
_spc_linf = _fn("nnc_spc_linf", ctypes.c_int, _PP, _DP, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                ctypes.c_double, ctypes.c_double, ctypes.c_double, *_E)
_spc_case_lo = _fn("nnc_spc_case_lo", _DP, _P, ctypes.c_int)
_spc_case_hi = _fn("nnc_spc_case_hi", _DP, _P, ctypes.c_int)
_spc_destroy = _fn("nnc_spc_destroy", None, _P)


def _check(status, err=None, what=None):
    if status:
        msg = err.value.decode("utf-8", "replace") if err is not None and err.value else ""
        if not msg:
            msg = _status_string(status).decode()
        raise NncertError(status, f"{what}: {msg}" if what else msg)


def _errbuf():
    return ctypes.create_string_buffer(_ERRLEN)


def _dptr(a):
    return a.ctypes.data_as(_DP)


class NodeArg:
    """An input or output as onnxruntime's get_inputs()/get_outputs() give it:
    name, shape (per sample; a symbolic leading dimension is 'N'), type."""

    def __init__(self, name, shape, type):
        self.name, self.shape, self.type = name, shape, type

    def __repr__(self):
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"


class Model:
    """An ONNX model loaded by nncert (ONNX protobuf, opsets and operators as
    ``nncert info`` lists them).  Raises NncertError on a file nncert refuses,
    with the command's message."""

    def __init__(self, path, threads=2):
        self.path = os.fspath(path)
        self.threads = int(threads)
        h, err = ctypes.c_void_p(), _errbuf()
        _check(_mdl_load(ctypes.byref(h), self.path.encode(), err, _ERRLEN), err)
        self._m = h
        self._vm = None          # the verifier's load (BatchNormalization unfolded)
        self._rt, self._rt_key = None, None
        self._in = [self._info(_mdl_input_info, i) for i in range(_mdl_num_inputs(h))]
        self._out = [self._info(_mdl_output_info, i) for i in range(_mdl_num_outputs(h))]

    def _info(self, fn, i):
        t = _TensorInfo()
        fn(self._m, i, ctypes.byref(t))
        return {"name": t.name.decode(), "dtype": t.dtype, "dims": tuple(t.dims[:t.rank]),
                "numel": t.numel, "dynamic": bool(t.dynamic_leading)}

    @staticmethod
    def _arg(t):
        shape = list(t["dims"])
        if t["dynamic"] and shape:
            shape[0] = "N"
        return NodeArg(t["name"], shape, _FLOAT_DTYPES.get(t["dtype"]) or _INT_DTYPES.get(t["dtype"], "tensor(?)"))

    def get_inputs(self):
        return [self._arg(t) for t in self._in]

    def get_outputs(self):
        return [self._arg(t) for t in self._out]

    def close(self):
        """Release the model now (it is also released when collected)."""
        if getattr(self, "_rt", None):
            _rt_destroy(self._rt)
            self._rt = None
        for attr in ("_m", "_vm"):
            h = getattr(self, attr, None)
            if h:
                _mdl_destroy(h)
                setattr(self, attr, None)

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _verifier_model(self):
        if self._vm is None:
            h, err = ctypes.c_void_p(), _errbuf()
            _check(_vrf_load(ctypes.byref(h), self.path.encode(), err, _ERRLEN), err)
            self._vm = h
        return self._vm

    def run(self, output_names=None, input_feed=None, precision=None):
        """Evaluate the model, as onnxruntime's InferenceSession.run: run(x) or
        run({name: x, ...}), or run(output_names, input_feed) with
        output_names None (all) or a list of names.  Each input holds one or
        more samples stacked on a leading axis (its size a multiple of the
        input's per-sample size).  Returns a list of numpy arrays: the
        declared shape for one sample, else (samples, ...).  precision:
        "f32" (default; "f64" where an input is double) or "f64", as
        ``nncert run --precision``."""
        if input_feed is None:
            output_names, input_feed = None, output_names
        if input_feed is None:
            raise TypeError("run: no input given")
        if not isinstance(input_feed, dict):
            if len(self._in) != 1:
                raise TypeError(f"run: the model has {len(self._in)} inputs; give a dict name -> array")
            input_feed = {self._in[0]["name"]: input_feed}
        names = [t["name"] for t in self._in]
        unknown = [k for k in input_feed if k not in names]
        missing = [k for k in names if k not in input_feed]
        if unknown or missing:
            raise ValueError(f"run: inputs {names} expected" + (f"; unknown {unknown}" if unknown else "") +
                             (f"; missing {missing}" if missing else ""))
        if precision is None:
            precision = "f64" if any(t["dtype"] == _DOUBLE for t in self._in) else "f32"
        if precision not in ("f32", "f64"):
            raise ValueError("run: precision must be 'f32' or 'f64'")
        ftype = np.float32 if precision == "f32" else np.float64
        arrays, batch = [], None
        for t in self._in:
            a = np.asarray(input_feed[t["name"]])
            is_float = t["dtype"] in _FLOAT_DTYPES
            if not is_float and a.dtype.kind == "f":
                raise TypeError(f"run: input '{t['name']}' takes integers, got {a.dtype}")
            a = np.ascontiguousarray(a, dtype=ftype if is_float else np.int64)
            n = max(t["numel"], 1)
            if a.size == 0 or a.size % n:
                raise ValueError(f"run: input '{t['name']}' has {a.size} elements, not a multiple of the "
                                 f"{n} of one sample {list(t['dims'])}")
            b = a.size // n
            if batch is not None and b != batch:
                raise ValueError(f"run: inputs hold {batch} and {b} samples")
            if b > 2**31 - 1:
                raise ValueError("run: too many samples in one call")
            batch = b
            arrays.append(a)
        outs = []
        for t in self._out:
            dt = ftype if t["dtype"] in _FLOAT_DTYPES else np.int64
            dims = t["dims"]
            shape = dims if batch == 1 else (batch,) + (dims[1:] if dims and (dims[0] == 1 or t["dynamic"]) else dims)
            outs.append(np.empty(shape, dtype=dt))
        key = (precision, batch)
        if self._rt is None or self._rt_key[0] != precision or self._rt_key[1] < batch:
            if self._rt:
                _rt_destroy(self._rt)
                self._rt = None
            h, err = ctypes.c_void_p(), _errbuf()
            _check(_rt_create(ctypes.byref(h), self._m, 0 if precision == "f32" else 1, batch, err, _ERRLEN), err)
            self._rt, self._rt_key = h, key
            _check(_rt_set_threads(self._rt, self.threads))
        ins = (ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])
        ous = (ctypes.c_void_p * max(len(outs), 1))(*[o.ctypes.data for o in outs])
        err = _errbuf()
        _check(_rt_run(self._rt, batch, ins, ous, err, _ERRLEN), err)
        if output_names is None:
            return outs
        by = {t["name"]: o for t, o in zip(self._out, outs)}
        missing = [n for n in output_names if n not in by]
        if missing:
            raise ValueError(f"run: no outputs named {missing} (outputs: {list(by)})")
        return [by[n] for n in output_names]


def _model(model):
    return model if isinstance(model, Model) else Model(model)


_METHODS = {"ibp": 0, "crown": 1, "alpha": 2, "alpha-crown": 2}


def compute_bounds(model, x=None, eps=None, method="crown", *, lower=None, upper=None, clip=None,
                   alpha_iters=20, layer=None):
    """Sound lower and upper bounds of the model's output (or, with layer, of
    the value a node of that name outputs) over an input box, as auto_LiRPA's
    compute_bounds and ``nncert bounds`` give them: every value the model
    computes in exact arithmetic on its stored weights for an input in the
    box lies within them.  The box is [x - eps, x + eps] (rounded outward as
    ``nncert spec linf`` does, then clipped to clip=(lo, hi)), or
    [lower, upper].  method: "ibp", "crown" or "alpha" (alpha_iters steps).
    Returns (lower, upper), float64 arrays of the output's per-sample shape
    (flat for a layer)."""
    m = _model(model)
    if method not in _METHODS:
        raise ValueError(f"compute_bounds: method must be one of ibp, crown, alpha (got {method!r})")
    h, err = ctypes.c_void_p(), _errbuf()
    _check(_bnd_create(ctypes.byref(h), m._verifier_model(), layer.encode() if layer else None, err, _ERRLEN), err,
           m.path)
    try:
        n_in, n_val = _bnd_inputs(h), _bnd_values(h)
        if (x is None) == (lower is None):
            raise ValueError("compute_bounds: give the box as x and eps, or as lower and upper")
        if x is not None:
            if eps is None or not np.isfinite(eps) or eps < 0:
                raise ValueError("compute_bounds: eps must be a finite number >= 0")
            xv = np.ascontiguousarray(np.asarray(x, dtype=np.float64).ravel())
            if xv.size != n_in:
                raise ValueError(f"compute_bounds: x has {xv.size} elements, the model's input {n_in}")
            lo_c, hi_c = (-np.inf, np.inf) if clip is None else (float(clip[0]), float(clip[1]))
            s, err = ctypes.c_void_p(), _errbuf()
            _check(_spc_linf(ctypes.byref(s), _dptr(xv), n_in, 2, 0, float(eps), lo_c, hi_c, err, _ERRLEN), err)
            lo = np.ctypeslib.as_array(_spc_case_lo(s, 0), shape=(n_in,)).copy()
            hi = np.ctypeslib.as_array(_spc_case_hi(s, 0), shape=(n_in,)).copy()
            _spc_destroy(s)
        else:
            if clip is not None or eps is not None:
                raise ValueError("compute_bounds: eps and clip make a box around x; lower and upper are the box")
            lo = np.ascontiguousarray(np.asarray(lower, dtype=np.float64).ravel())
            hi = np.ascontiguousarray(np.asarray(upper, dtype=np.float64).ravel())
            if lo.size != n_in or hi.size != n_in:
                raise ValueError(f"compute_bounds: lower and upper need {n_in} elements each")
            if not np.all(lo <= hi):
                raise ValueError("compute_bounds: lower above upper somewhere")
        olo, ohi = np.empty(n_val), np.empty(n_val)
        st = _bnd_box(h, _METHODS[method], int(alpha_iters), _dptr(lo), _dptr(hi), _dptr(olo), _dptr(ohi))
        _check(st, None, "compute_bounds")
    finally:
        _bnd_destroy(h)
    if layer is None and m._out:
        shape = m._out[0]["dims"]
        if int(np.prod(shape)) == n_val:
            return olo.reshape(shape), ohi.reshape(shape)
    return olo, ohi


def _opt_value(v):
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)


def verify(model, spec_path, **options):
    """Bound the violation fraction of a VNN-LIB spec on the model, as
    ``nncert verify MODEL SPEC`` does; returns its JSON report as a dict
    (schema/verify-report.schema.json).  Options are the command's, with
    '_' for '-': samples, confidence, timeout, seed, max_violation,
    max_leaves, threads, alpha_iters, relu_split, relu_split_batch, symbolic,
    exact, device, and split, ibp, stop_on_counterexample as booleans.
    The same options give the same report as the command (time_s aside).
    Contradictory options are refused as the command refuses them
    (NncertError).  Not yet here: the command's --trace/--sample (a DLRM's
    ids) and --row (a model that declares a fixed batch)."""
    m = _model(model)
    o = _opts_new()
    if not o:
        raise MemoryError("nncert: options")
    try:
        for k, v in options.items():
            err = _errbuf()
            _check(_opts_set(o, k.encode(), _opt_value(v).encode(), err, _ERRLEN), err)
        out, err = ctypes.c_void_p(), _errbuf()
        _check(_run_json(m._verifier_model(), os.fspath(spec_path).encode(), o, ctypes.byref(out), err, _ERRLEN), err)
        try:
            return json.loads(ctypes.string_at(out).decode())
        finally:
            _vrf_free(out)
    finally:
        _opts_destroy(o)
