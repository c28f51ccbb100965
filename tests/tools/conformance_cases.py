#!/usr/bin/env python3
"""Extended ONNX conformance cases for nncert's supported operators.

Writes one folder per case into OUTDIR in the layout of ONNX's node tests
(model.onnx, test_data_set_0/input_<k>.pb, output_<k>.pb), so that
build/tools/conformance OUTDIR checks them.  The cases cover attribute and
opset variants, broadcasting, integer wrap-around, edge values (empty
tensors, extreme Slice bounds, negative Pad), batch folding (Conv or Gemm
followed by BatchNormalization), the changes of opsets 18 to 21 (Debian's
node tests stop at opset 17) and graph plumbing that the official node
tests do not reach.

Reference outputs come from onnxruntime (tests/peers, pinned 1.17.0, run on
the same inputs) except where numpy computes them directly: integer types
onnxruntime has no kernels for, and the cases where onnxruntime 1.17
departs from the ONNX specification (Dropout's inference mask, which the
ONNX reference implementation makes all true; ReduceSum with omitted axes
and noop_with_empty_axes, an identity by the ONNX-13 text).  Cases are
deterministic (fixed seed).

Usage: conformance_cases.py OUTDIR   (needs python3-onnx, numpy, node and
npm ci --prefix tests/peers).  Exit status 0, or 1 when onnxruntime fails
on a case.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as H
from onnx import numpy_helper as NH

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1]
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
rng = np.random.default_rng(1)
NP2TP = {np.float32: TP.FLOAT, np.float64: TP.DOUBLE, np.int64: TP.INT64, np.int32: TP.INT32,
         np.uint8: TP.UINT8, np.int8: TP.INT8, np.bool_: TP.BOOL}
ort_cases = []  # folders whose outputs onnxruntime computes


def case(name, opset, nodes, inputs, outputs, inits=None, expect=None):
    """One test.  inputs: [(name, array)] fed at run time; inits: [(name, array)]
    initializers; outputs: [(name, element type)]; expect: the output arrays, or
    None to take them from onnxruntime."""
    inits = inits or []
    g = H.make_graph(nodes, name,
                     [H.make_tensor_value_info(n, NP2TP[a.dtype.type], a.shape) for n, a in inputs],
                     [H.make_tensor_value_info(n, t, None) for n, t in outputs],
                     [NH.from_array(a, n) for n, a in inits])
    m = H.make_model(g, opset_imports=[H.make_opsetid('', opset)], producer_name='nncert-conformance-cases')
    m.ir_version = 8 if opset >= 15 else 7
    d = os.path.join(OUT, name)
    os.makedirs(d + '/test_data_set_0')
    onnx.save(m, d + '/model.onnx')
    feeds = {}
    for k, (n, a) in enumerate(inputs):
        with open(d + '/test_data_set_0/input_%d.pb' % k, 'wb') as f:
            f.write(NH.from_array(a, n).SerializeToString())
        feeds[n] = {'shape': list(a.shape), 'data': [x if np.isfinite(x) else str(x) for x in a.astype(np.float64).ravel().tolist()]}
    if expect is not None:
        for k, ((n, _), a) in enumerate(zip(outputs, expect)):
            with open(d + '/test_data_set_0/output_%d.pb' % k, 'wb') as f:
                f.write(NH.from_array(a, n).SerializeToString())
        return
    with open(d + '/inputs.json', 'w') as f:
        json.dump({'inputs': feeds}, f)
    ort_cases.append(name)


def f32(*shape, lo=-3, hi=3):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def node(op, ins, outs=('y',), **kw):
    return H.make_node(op, list(ins), list(outs), **kw)


F = TP.FLOAT
# ---------------- binary
for op in ['Add', 'Sub', 'Mul', 'Div']:
    for i, (sa, sb) in enumerate([((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (3,)), ((1,), (2, 3)), ((2, 3), (2, 3)),
                                  ((3, 1, 2), (1, 4, 1)), ((4, 1), (4,)), ((2, 3, 1), ())]):
        b = f32(*sb)
        if op == 'Div': b = np.where(np.abs(b) < 0.5, 1.0, b).astype(np.float32)
        case('%s_f%d' % (op, i), 14, [node(op, ['a', 'b'])], [('a', f32(*sa)), ('b', b)], [('y', F)])
    case('%s_const_b' % op, 13, [node(op, ['a', 'b'])], [('a', f32(2, 3))], [('y', F)], [('b', f32(3) + 4)])
    case('%s_d' % op, 13, [node(op, ['a', 'b'])], [('a', f32(2, 3).astype(np.float64)), ('b', f32(2, 1).astype(np.float64) + 4)], [('y', TP.DOUBLE)])
    for dt in [np.int32, np.int64]:  # int8/uint8: onnxruntime has no kernels; see the numpy cases below
        if dt == np.int32:
            a = rng.integers(-2**31, 2**31, (3, 4)).astype(dt); b = rng.integers(1, 2**20, (4,)).astype(dt); b[0] = -3
        else:
            a = rng.integers(-1000, 1000, (3, 4)).astype(dt); b = rng.integers(1, 50, (4,)).astype(dt); b[2] = -9
        case('%s_%s' % (op, dt.__name__), 14, [node(op, ['a', 'b'])], [('a', a), ('b', b)], [('y', NP2TP[dt])])
# ---------------- unary
for op in ['Relu', 'Sigmoid', 'Tanh', 'LeakyRelu']:
    x = f32(3, 5, lo=-20, hi=20)
    x[0, 0] = 0.0; x[0, 1] = -0.0; x[0, 2] = 100.0; x[0, 3] = -100.0
    case(op, 13 if op != 'LeakyRelu' else 16, [node(op, ['x'])], [('x', x)], [('y', F)])
    if op != 'LeakyRelu':  # onnxruntime has no double LeakyRelu
        case(op + '_d', 13, [node(op, ['x'])], [('x', x.astype(np.float64))], [('y', TP.DOUBLE)])
    case(op + '_op7', 7, [node(op, ['x'])], [('x', x)], [('y', F)])
case('LeakyRelu_alpha', 16, [node('LeakyRelu', ['x'], alpha=0.3)], [('x', f32(4, 4))], [('y', F)])
# ---------------- softmax
for opset in [11, 13]:
    for ax in [None, 0, 1, 2, -1, -2]:
        kw = {} if ax is None else {'axis': ax}
        case('Softmax_o%d_a%s' % (opset, ax), opset, [node('Softmax', ['x'], **kw)], [('x', f32(2, 3, 4, lo=-10, hi=10))], [('y', F)])
# ---------------- flatten
for ax in [0, 1, 2, 3, 4, -1, -4]:
    case('Flatten_a%d' % ax, 13, [node('Flatten', ['x'], axis=ax)], [('x', f32(2, 3, 4, 5))], [('y', F)])
case('Flatten_op9', 9, [node('Flatten', ['x'], axis=2)], [('x', f32(2, 3, 4))], [('y', F)])
# ---------------- reshape
for i, (xs, shp) in enumerate([((2, 3, 4), [4, -1]), ((2, 3, 4), [0, 0, -1, 1]), ((2, 3, 4), [-1]), ((2, 3, 4), [2, 0, 2, 2]),
                                ((1, 6), [3, 2]), ((2, 3, 4), [24, 1, 1])]):
    case('Reshape_%d' % i, 13, [node('Reshape', ['x', 's'])], [('x', f32(*xs))], [('y', F)], [('s', np.array(shp, np.int64))])
case('Reshape_allowzero', 14, [node('Reshape', ['x', 's'], allowzero=1)], [('x', f32(0, 3))], [('y', F)], [('s', np.array([3, 0], np.int64))])
case('Reshape_int', 13, [node('Reshape', ['x', 's'])], [('x', rng.integers(-5, 5, (2, 6)).astype(np.int64))], [('y', TP.INT64)], [('s', np.array([3, 4], np.int64))])
# ---------------- transpose
for i, p in enumerate([None, [0, 2, 1, 3], [3, 2, 1, 0], [1, 0, 3, 2], [2, 0, 3, 1]]):
    kw = {} if p is None else {'perm': p}
    case('Transpose_%d' % i, 13, [node('Transpose', ['x'], **kw)], [('x', f32(2, 3, 4, 5))], [('y', F)])
case('Transpose_int', 13, [node('Transpose', ['x'])], [('x', rng.integers(-5, 5, (2, 3)).astype(np.int32))], [('y', TP.INT32)])
# ---------------- squeeze / unsqueeze
case('Squeeze_o11', 11, [node('Squeeze', ['x'], axes=[0, -1])], [('x', f32(1, 3, 1, 1))], [('y', F)])
case('Squeeze_o11_all', 11, [node('Squeeze', ['x'])], [('x', f32(1, 3, 1, 2))], [('y', F)])
case('Squeeze_o13_noaxes', 13, [node('Squeeze', ['x'])], [('x', f32(1, 3, 1, 2))], [('y', F)])
case('Squeeze_o13', 13, [node('Squeeze', ['x', 'a'])], [('x', f32(1, 3, 1, 2))], [('y', F)], [('a', np.array([2], np.int64))])
case('Unsqueeze_o11', 11, [node('Unsqueeze', ['x'], axes=[0, 3])], [('x', f32(3, 2))], [('y', F)])
case('Unsqueeze_o13', 13, [node('Unsqueeze', ['x', 'a'])], [('x', f32(3, 2))], [('y', F)], [('a', np.array([-1, 1], np.int64))])
case('Unsqueeze_o9', 9, [node('Unsqueeze', ['x'], axes=[1])], [('x', f32(3, 2))], [('y', F)])
# ---------------- concat
for ax in [0, 1, 2, -1, -3]:
    case('Concat_a%d' % ax, 13, [node('Concat', ['a', 'b', 'c'], axis=ax)], [('a', f32(2, 3, 4)), ('b', f32(2, 3, 4)), ('c', f32(2, 3, 4))], [('y', F)])
case('Concat_mixed', 11, [node('Concat', ['a', 'b'], axis=1)], [('a', f32(2, 1, 4))], [('y', F)], [('b', f32(2, 5, 4))])
case('Concat_empty', 13, [node('Concat', ['a', 'b'], axis=0)], [('a', f32(0, 3)), ('b', f32(2, 3))], [('y', F)])
case('Concat_int', 13, [node('Concat', ['a', 'b'], axis=0)], [('a', np.array([1, 2], np.int64)), ('b', np.array([3], np.int64))], [('y', TP.INT64)])
# ---------------- slice
I64 = lambda *v: np.array(v, np.int64)
BIG, SMALL = 2**63 - 1, -2**63
slices = [
    (I64(0, 1), I64(2, 3), None, None),
    (I64(1), I64(BIG), I64(1), None),
    (I64(-1), I64(SMALL), I64(1), I64(-1)),
    (I64(-20), I64(-30), I64(1), I64(-1)),
    (I64(20), I64(-30), I64(1), I64(-1)),
    (I64(5), I64(-100), I64(0), I64(-2)),
    (I64(0, 0), I64(BIG, BIG), I64(0, 1), I64(2, 3)),
    (I64(0), I64(BIG), I64(0), I64(BIG)),
    (I64(-1), I64(SMALL), I64(0), I64(SMALL)),
    (I64(3, -1), I64(1, 0), I64(-2, 1), I64(-1, -1)),
    (I64(0), I64(10), I64(-1), None),
    (I64(2), I64(2), I64(0), None),
    (I64(-10), I64(-9), I64(1), I64(-1)),
]
for i, (s, e, a, st) in enumerate(slices):
    ins, inits = ['x', 's', 'e'], [('s', s), ('e', e)]
    if a is not None: ins.append('a'); inits.append(('a', a))
    elif st is not None: ins.append('')
    if st is not None: ins.append('t'); inits.append(('t', st))
    case('Slice_%d' % i, 13, [node('Slice', ins)], [('x', f32(6, 5))], [('y', F)], inits)
case('Slice_o9', 9, [node('Slice', ['x'], starts=[1, -3], ends=[100, -1], axes=[0, 1])], [('x', f32(4, 5))], [('y', F)])
case('Slice_o9_noaxes', 9, [node('Slice', ['x'], starts=[1], ends=[3])], [('x', f32(4, 5))], [('y', F)])
case('Slice_o10', 10, [node('Slice', ['x', 's', 'e', 'a', 't'])], [('x', f32(4, 5))], [('y', F)],
     [('s', I64(4)), ('e', I64(0)), ('a', I64(1)), ('t', I64(-2))])
case('Slice_int32', 13, [node('Slice', ['x', 's', 'e'])], [('x', f32(4, 5))], [('y', F)], [('s', np.array([1], np.int32)), ('e', np.array([3], np.int32))])
# ---------------- pad
for mode in ['constant', 'reflect', 'edge']:
    for i, p in enumerate([[0, 1, 2, 1], [1, 0, 0, 2], [2, 3, 2, 3], [0, 0, 0, 0], [-1, 1, 0, 2], [1, -2, 2, 0], [0, -1, 0, -1]]):
        case('Pad_%s_%d' % (mode, i), 13, [node('Pad', ['x', 'p'], mode=mode)], [('x', f32(4, 5))], [('y', F)], [('p', I64(*p))])
    case('Pad_o7_%s' % mode, 7, [node('Pad', ['x'], mode=mode, pads=[0, 1, 2, 1], value=2.5)], [('x', f32(4, 5))], [('y', F)])
case('Pad_value_const', 11, [node('Pad', ['x', 'p', 'v'])], [('x', f32(3, 3))], [('y', F)], [('p', I64(1, 1, 1, 1)), ('v', np.array(7.5, np.float32))])
case('Pad_value_input', 11, [node('Pad', ['x', 'p', 'v'])], [('x', f32(3, 3)), ('v', np.array(-2.25, np.float32))], [('y', F)], [('p', I64(1, 0, 0, 1))])
case('Pad_int', 13, [node('Pad', ['x', 'p', 'v'], mode='constant')], [('x', rng.integers(0, 9, (2, 3)).astype(np.int64))], [('y', TP.INT64)], [('p', I64(1, 1, 1, 1)), ('v', np.array(-4, np.int64))])
case('Pad_int_reflect', 13, [node('Pad', ['x', 'p'], mode='reflect')], [('x', rng.integers(0, 9, (2, 3)).astype(np.int32))], [('y', TP.INT32)], [('p', I64(1, 2, 1, 2))])
case('Pad_3d', 13, [node('Pad', ['x', 'p'], mode='reflect')], [('x', f32(2, 3, 4))], [('y', F)], [('p', I64(0, 1, 2, 1, 2, 3))])
# ---------------- gemm
for ta in [0, 1]:
    for tb in [0, 1]:
        for ci, cs in enumerate([(5,), (3, 1), (1, 5), (), (3, 5), (1,), None]):
            A = f32(4, 3) if ta else f32(3, 4)
            B = f32(5, 4) if tb else f32(4, 5)
            ins = [('a', A), ('b', B)] + ([('c', f32(*cs))] if cs is not None else [])
            case('Gemm_t%d%d_c%d' % (ta, tb, ci), 13, [node('Gemm', [n for n, _ in ins], transA=ta, transB=tb, alpha=0.7, beta=1.3)], ins, [('y', F)])
case('Gemm_beta0', 13, [node('Gemm', ['a', 'b', 'c'], beta=0.0)], [('a', f32(2, 3)), ('b', f32(3, 4)), ('c', f32(4))], [('y', F)])
case('Gemm_o7', 7, [node('Gemm', ['a', 'b', 'c'])], [('a', f32(2, 3)), ('b', f32(3, 4)), ('c', f32(1))], [('y', F)])
case('Gemm_const', 13, [node('Gemm', ['a', 'b', 'c'], transB=1)], [('a', f32(2, 3))], [('y', F)], [('b', f32(4, 3)), ('c', f32(4))])
case('Gemm_constA', 13, [node('Gemm', ['a', 'b', 'c'], transA=1)], [('b', f32(2, 4))], [('y', F)], [('a', f32(2, 3)), ('c', f32(3, 1))])
case('Gemm_d', 13, [node('Gemm', ['a', 'b', 'c'], transA=1, alpha=2.0)], [('a', f32(3, 2).astype(np.float64)), ('b', f32(3, 4).astype(np.float64)), ('c', f32(2, 4).astype(np.float64))], [('y', TP.DOUBLE)])
# ---------------- matmul
for i, (sa, sb) in enumerate([((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                              ((2, 1, 3, 4), (5, 4, 2)), ((2, 3, 4), (4,)), ((5,), (2, 5, 3)), ((3, 0), (0, 4)), ((2, 3, 0), (0, 2))]):
    case('MatMul_%d' % i, 13, [node('MatMul', ['a', 'b'])], [('a', f32(*sa)), ('b', f32(*sb))], [('y', F)])
    case('MatMul_cb_%d' % i, 13, [node('MatMul', ['a', 'b'])], [('a', f32(*sa))], [('y', F)], [('b', f32(*sb))])
    case('MatMul_ca_%d' % i, 13, [node('MatMul', ['a', 'b'])], [('b', f32(*sb))], [('y', F)], [('a', f32(*sa))])
case('MatMul_d', 13, [node('MatMul', ['a', 'b'])], [('a', f32(2, 3, 4).astype(np.float64)), ('b', f32(4, 2).astype(np.float64))], [('y', TP.DOUBLE)])
# ---------------- conv
convs = [
    ((1, 2, 5, 5), (3, 2, 3, 3), {}),
    ((2, 2, 6, 7), (4, 2, 3, 2), dict(strides=[2, 1], pads=[1, 0, 2, 1])),
    ((1, 4, 7, 7), (4, 1, 3, 3), dict(group=4, pads=[1, 1, 1, 1])),
    ((1, 4, 7, 7), (6, 2, 3, 3), dict(group=2, dilations=[2, 1])),
    ((1, 3, 7, 6), (2, 3, 3, 3), dict(auto_pad='SAME_UPPER', strides=[2, 2])),
    ((1, 3, 7, 6), (2, 3, 4, 2), dict(auto_pad='SAME_LOWER', strides=[2, 3])),
    ((1, 3, 7, 6), (2, 3, 3, 3), dict(auto_pad='VALID', strides=[2, 2])),
    ((1, 3, 9), (2, 3, 3), dict(strides=[2], pads=[2, 1], dilations=[2])),
    ((2, 4, 8), (4, 2, 2), dict(group=2)),
    ((1, 1, 5, 5), (1, 1, 1, 1), dict(kernel_shape=[1, 1])),
    ((1, 2, 4, 4), (3, 2, 4, 4), dict(pads=[1, 1, 1, 1], strides=[3, 3])),
]
for i, (xs, ws, kw) in enumerate(convs):
    case('Conv_%d' % i, 11, [node('Conv', ['x', 'w', 'b'], **kw)], [('x', f32(*xs))], [('y', F)], [('w', f32(*ws)), ('b', f32(ws[0]))])
    case('Conv_in_%d' % i, 11, [node('Conv', ['x', 'w'], **kw)], [('x', f32(*xs)), ('w', f32(*ws))], [('y', F)])
    case('Conv_bn_%d' % i, 11, [node('Conv', ['x', 'w', 'b'], ['c'], **kw),
                                  node('BatchNormalization', ['c', 's', 'bb', 'mu', 'var'], epsilon=1e-3)],
         [('x', f32(*xs))], [('y', F)],
         [('w', f32(*ws)), ('b', f32(ws[0])), ('s', f32(ws[0])), ('bb', f32(ws[0])), ('mu', f32(ws[0])), ('var', f32(ws[0], lo=0.1, hi=2))])
# ---------------- pools
pools = [
    ((1, 2, 5, 5), dict(kernel_shape=[2, 2])),
    ((1, 2, 5, 5), dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
    ((1, 2, 6, 6), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)),
    ((1, 2, 5, 7), dict(kernel_shape=[3, 2], pads=[1, 0, 2, 1])),
    ((1, 2, 5, 7), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)),
    ((1, 2, 5, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1)),
    ((1, 2, 5, 7), dict(kernel_shape=[3, 3], auto_pad='SAME_UPPER', strides=[2, 2])),
    ((1, 2, 5, 7), dict(kernel_shape=[2, 3], auto_pad='SAME_LOWER', strides=[2, 2])),
    ((1, 2, 5, 7), dict(kernel_shape=[3, 3], auto_pad='SAME_UPPER', count_include_pad=1)),
    ((1, 2, 5, 7), dict(kernel_shape=[3, 3], auto_pad='VALID', strides=[2, 1])),
    ((2, 3, 9), dict(kernel_shape=[3], strides=[2], pads=[1, 1])),
    ((2, 3, 9), dict(kernel_shape=[4], strides=[3], ceil_mode=1)),
]
for i, (xs, kw) in enumerate(pools):
    case('AveragePool_%d' % i, 11, [node('AveragePool', ['x'], **kw)], [('x', f32(*xs))], [('y', F)])
    kw = {k: v for k, v in kw.items() if k != 'count_include_pad'}  # an AveragePool attribute only
    case('MaxPool_%d' % i, 12, [node('MaxPool', ['x'], **kw)], [('x', f32(*xs))], [('y', F)])
    kw7 = {k: v for k, v in kw.items() if k != 'ceil_mode'}  # ceil_mode: MaxPool-10
    case('MaxPool_o8_%d' % i, 8, [node('MaxPool', ['x'], **kw7)], [('x', f32(*xs))], [('y', F)])
case('MaxPool_dil', 12, [node('MaxPool', ['x'], kernel_shape=[2, 2], dilations=[2, 2], pads=[1, 1, 1, 1])], [('x', f32(1, 1, 6, 6))], [('y', F)])
case('MaxPool_dil_ceil', 12, [node('MaxPool', ['x'], kernel_shape=[2, 2], dilations=[2, 1], strides=[2, 2], ceil_mode=1)], [('x', f32(1, 1, 7, 6))], [('y', F)])
case('MaxPool_d', 12, [node('MaxPool', ['x'], kernel_shape=[2, 2])], [('x', f32(1, 1, 4, 4).astype(np.float64))], [('y', TP.DOUBLE)])
case('GlobalAveragePool_3d', 7, [node('GlobalAveragePool', ['x'])], [('x', f32(2, 3, 5))], [('y', F)])
case('GlobalAveragePool_4d', 7, [node('GlobalAveragePool', ['x'])], [('x', f32(2, 3, 5, 4))], [('y', F)])
# ---------------- batchnorm
for opset in [7, 9, 14, 15]:
    for xs in [(2, 3), (2, 3, 4), (2, 3, 4, 5)]:
        case('BN_o%d_r%d' % (opset, len(xs)), opset, [node('BatchNormalization', ['x', 's', 'b', 'm', 'v'], epsilon=0.01)],
             [('x', f32(*xs))], [('y', F)], [('s', f32(3)), ('b', f32(3)), ('m', f32(3)), ('v', f32(3, lo=0.1, hi=2))])
case('BN_inputs', 15, [node('BatchNormalization', ['x', 's', 'b', 'm', 'v'])],
     [('x', f32(2, 3, 4)), ('s', f32(3)), ('b', f32(3)), ('m', f32(3)), ('v', f32(3, lo=0.1, hi=2))], [('y', F)])
for ta, tb, cs in [(0, 0, (4,)), (0, 1, (4,)), (1, 0, (1, 4)), (0, 1, None), (0, 0, ())]:
    ins = ['a', 'w'] + (['c'] if cs is not None else [])
    inits = [('w', f32(4, 3) if tb else f32(3, 4))] + ([('c', f32(*cs))] if cs is not None else [])
    inits += [('s', f32(4)), ('bb', f32(4)), ('mu', f32(4)), ('var', f32(4, lo=0.1, hi=2))]
    case('Gemm_bn_%d%d_%s' % (ta, tb, cs is not None and len(cs)), 13,
         [node('Gemm', ins, ['g'], transA=ta, transB=tb, alpha=0.5, beta=2.0), node('BatchNormalization', ['g', 's', 'bb', 'mu', 'var'])],
         [('a', f32(3, 2) if ta else f32(2, 3))], [('y', F)], inits)
# ---------------- cast
xc = np.array([0.0, -0.0, 1.5, -1.5, 2.7, -2.7, 100.9, -100.9, 0.2, 255.0, 127.0, -128.0], np.float32)
for to in [TP.INT32, TP.INT64, TP.INT8, TP.UINT8, TP.BOOL, TP.DOUBLE, TP.FLOAT]:
    x = xc if to != TP.UINT8 else np.abs(xc)
    case('Cast_f_to_%d' % to, 13, [node('Cast', ['x'], to=to)], [('x', x)], [('y', to)])
case('Cast_d_to_f', 13, [node('Cast', ['x'], to=TP.FLOAT)], [('x', np.array([1e-50, 1.0000000001, 3.3, 1e39], np.float64))], [('y', F)])
case('Cast_i_to_f', 13, [node('Cast', ['x'], to=TP.FLOAT)], [('x', np.array([16777217, -3, 0, 2**40 + 1], np.int64))], [('y', F)])
case('Cast_i_to_i8', 13, [node('Cast', ['x'], to=TP.INT8)], [('x', np.array([200, -200, 127, 1000], np.int64))], [('y', TP.INT8)])
case('Cast_i_to_u8', 13, [node('Cast', ['x'], to=TP.UINT8)], [('x', np.array([200, -1, 256, 1000], np.int32))], [('y', TP.UINT8)])
case('Cast_b_to_f', 13, [node('Cast', ['x'], to=TP.FLOAT)], [('x', np.array([True, False, True]))], [('y', F)])
case('Cast_u8_to_f', 13, [node('Cast', ['x'], to=TP.FLOAT)], [('x', np.array([0, 200, 255], np.uint8))], [('y', F)])
case('Cast_o9', 9, [node('Cast', ['x'], to=TP.INT32)], [('x', xc)], [('y', TP.INT32)])
# ---------------- gather
for ax in [0, 1, -1]:
    case('Gather_a%d' % ax, 13, [node('Gather', ['x', 'i'], axis=ax)], [('x', f32(3, 4, 2))], [('y', F)], [('i', I64(0, -1, 1, 1))])
    case('Gather_rt_a%d' % ax, 13, [node('Gather', ['x', 'i'], axis=ax)], [('x', f32(3, 4, 2)), ('i', np.array([[0, -1], [1, 1]], np.int64))], [('y', F)])
case('Gather_scalar', 13, [node('Gather', ['x', 'i'], axis=1)], [('x', f32(3, 4))], [('y', F)], [('i', np.array(2, np.int64))])
case('Gather_int32idx', 11, [node('Gather', ['x', 'i'])], [('x', f32(3, 4))], [('y', F)], [('i', np.array([2, 0], np.int32))])
case('Gather_intdata', 13, [node('Gather', ['x', 'i'])], [('x', I64(5, 6, 7))], [('y', TP.INT64)], [('i', I64(2, -3))])
# ---------------- reduce
for op in ['ReduceSum', 'ReduceMean']:
    for keep in [0, 1]:
        for ax in [None, [1], [0, 2], [-1], [-3, -2]]:
            nm = '%s_k%d_%s' % (op, keep, 'none' if ax is None else '_'.join(str(a) for a in ax))
            kw = {'keepdims': keep}
            if ax is not None: kw['axes'] = ax
            case(nm + '_o11', 11, [node(op, ['x'], **kw)], [('x', f32(2, 3, 4))], [('y', F)])
            if op == 'ReduceSum':
                kw.pop('axes', None)
                case(nm + '_o13', 13, [node(op, ['x'] + (['a'] if ax is not None else []), **kw)], [('x', f32(2, 3, 4))], [('y', F)],
                     [('a', I64(*ax))] if ax is not None else [])
xx = f32(2, 3)
case('ReduceSum_noop_omitted', 13, [node('ReduceSum', ['x'], noop_with_empty_axes=1)], [('x', xx)], [('y', F)], expect=[xx])
case('ReduceSum_noop_empty', 13, [node('ReduceSum', ['x', 'a'], noop_with_empty_axes=1)], [('x', f32(2, 3))], [('y', F)], [('a', np.zeros(0, np.int64))])
case('ReduceSum_empty_axes', 13, [node('ReduceSum', ['x', 'a'])], [('x', f32(2, 3))], [('y', F)], [('a', np.zeros(0, np.int64))])
case('ReduceSum_int', 13, [node('ReduceSum', ['x', 'a'])], [('x', rng.integers(-9, 9, (2, 3)).astype(np.int64))], [('y', TP.INT64)], [('a', I64(1))])
case('ReduceMean_int', 13, [node('ReduceMean', ['x'], axes=[1])], [('x', rng.integers(-9, 9, (2, 3)).astype(np.int32))], [('y', TP.INT32)])
# ---------------- shape, constantofshape, constant
for kw in [{}, {'start': 1}, {'end': -1}, {'start': -2, 'end': 10}, {'start': 3, 'end': 1}]:
    case('Shape_%s' % '_'.join('%s%d' % kv for kv in kw.items()), 15, [node('Shape', ['x'], **kw)], [('x', f32(2, 3, 4))], [('y', TP.INT64)])
case('Shape_o13', 13, [node('Shape', ['x'])], [('x', f32(2, 3))], [('y', TP.INT64)])
case('ConstantOfShape_f', 9, [node('ConstantOfShape', ['s'], value=H.make_tensor('v', TP.FLOAT, [1], [2.5]))], [], [('y', F)], [('s', I64(2, 3))])
case('ConstantOfShape_i', 9, [node('ConstantOfShape', ['s'], value=H.make_tensor('v', TP.INT32, [1], [-7]))], [], [('y', TP.INT32)], [('s', I64(4))])
case('ConstantOfShape_def', 9, [node('ConstantOfShape', ['s'])], [], [('y', F)], [('s', I64(2, 2))])
case('ConstantOfShape_scalar', 9, [node('ConstantOfShape', ['s'], value=H.make_tensor('v', TP.FLOAT, [1], [1.0]))], [], [('y', F)], [('s', np.zeros(0, np.int64))])
case('Constant_float', 12, [node('Constant', [], ['c'], value_float=1.5), node('Add', ['x', 'c'])], [('x', f32(2))], [('y', F)])
case('Constant_ints', 12, [node('Constant', [], ['c'], value_ints=[3, 2]), node('Reshape', ['x', 'c'])], [('x', f32(6))], [('y', F)])
case('Constant_tensor', 11, [node('Constant', [], ['c'], value=NH.from_array(f32(2, 3), 'c')), node('Mul', ['x', 'c'])], [('x', f32(2, 3))], [('y', F)])
case('Constant_int', 13, [node('Constant', [], ['y'], value_int=42)], [], [('y', TP.INT64)])
# ---------------- dropout / identity
case('Dropout_o10', 10, [node('Dropout', ['x'], ratio=0.3)], [('x', f32(3, 4))], [('y', F)])
case('Dropout_o12_mask', 12, [node('Dropout', ['x'], ['y', 'm'])], [('x', f32(3, 4))], [('y', F), ('m', TP.BOOL)])
case('Dropout_o13_ratio', 13, [node('Dropout', ['x', 'r'])], [('x', f32(3, 4))], [('y', F)], [('r', np.array(0.5, np.float32))])
case('Dropout_o13_train0', 13, [node('Dropout', ['x', 'r', 't'])], [('x', f32(3, 4))], [('y', F)], [('r', np.array(0.5, np.float32)), ('t', np.array(False))])
xx = f32(3, 4)
case('Dropout_o7_mask', 7, [node('Dropout', ['x'], ['y', 'm'])], [('x', xx)], [('y', F), ('m', F)], expect=[xx, np.ones((3, 4), np.float32)])
case('Dropout_o10_mask', 10, [node('Dropout', ['x'], ['y', 'm'])], [('x', xx)], [('y', F), ('m', TP.BOOL)], expect=[xx, np.ones((3, 4), np.bool_)])
case('Identity', 13, [node('Identity', ['x'])], [('x', f32(3, 4))], [('y', F)])
case('Identity_int', 13, [node('Identity', ['x'])], [('x', I64(1, 2))], [('y', TP.INT64)])
# ---------------- chains
case('Chain_shape_reshape', 13, [node('Shape', ['x'], ['s']), node('Gather', ['s', 'i'], ['g']), node('Unsqueeze', ['g', 'ax'], ['u']),
                                  node('Concat', ['u', 'm1'], ['shp'], axis=0), node('Reshape', ['x', 'shp'], ['r']), node('Relu', ['r'])],
     [('x', f32(2, 3, 4))], [('y', F)], [('i', np.array(0, np.int64)), ('ax', I64(0)), ('m1', I64(-1))])
case('Chain_view_out', 13, [node('Flatten', ['x'], ['f']), node('Relu', ['f'], ['y']), node('Identity', ['f'], ['z'])],
     [('x', f32(2, 3, 4))], [('y', F), ('z', F)])
case('Chain_conv_pool', 13, [node('Conv', ['x', 'w'], ['c'], pads=[1, 1, 1, 1]), node('Relu', ['c'], ['r']), node('MaxPool', ['r'], ['p'], kernel_shape=[2, 2], strides=[2, 2]),
                             node('Flatten', ['p'], ['f']), node('Gemm', ['f', 'g', 'gb'], ['h'], transB=1), node('Softmax', ['h'])],
     [('x', f32(1, 2, 6, 6))], [('y', F)], [('w', f32(3, 2, 3, 3)), ('g', f32(4, 27)), ('gb', f32(4))])

# ---------------- integer arithmetic, against numpy (onnxruntime lacks int8/uint8 kernels)
for op, fn in [('Add', np.add), ('Sub', np.subtract), ('Mul', np.multiply)]:
    for dt in [np.uint8, np.int8, np.int32]:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, (3, 4), endpoint=True).astype(dt); b = rng.integers(info.min, info.max, (4,), endpoint=True).astype(dt)
        with np.errstate(all='ignore'):
            y = fn(a, b).astype(dt)
        case('np_%s_%s' % (op, dt.__name__), 14, [node(op, ['a', 'b'])], [('a', a), ('b', b)], [('y', NP2TP[dt])], expect=[y])
a = np.array([7, -7, 7, -7, 0, -128], np.int8); b = np.array([2, 2, -2, -2, 3, -1], np.int8)
case('np_Div_int8', 14, [node('Div', ['a', 'b'])], [('a', a), ('b', b)], [('y', TP.INT8)], expect=[np.array([3, -3, -3, 3, 0, -128], np.int8)])
a = np.array([200, 255, 7], np.uint8); b = np.array([3, 16, 7], np.uint8)
case('np_Div_uint8', 14, [node('Div', ['a', 'b'])], [('a', a), ('b', b)], [('y', TP.UINT8)], expect=[a // b])
x = rng.integers(-2**31, 2**31, (2, 5)).astype(np.int32)
case('np_ReduceSum_int32', 13, [node('ReduceSum', ['x', 'a'])], [('x', x)], [('y', TP.INT32)], [('a', I64(1))], expect=[x.sum(axis=1, keepdims=True, dtype=np.int32)])
# ---------------- graph plumbing: outputs that are inputs or initializers, views of views, BN folding
xx = f32(2, 3)
case('Out_is_input', 13, [node('Relu', ['x'], ['r'])], [('x', xx)], [('x', F), ('r', F)], expect=[xx, np.maximum(xx, 0)])
cc = f32(3)
case('Out_is_init', 13, [node('Relu', ['x'], ['r'])], [('x', xx)], [('r', F), ('c', F)], [('c', cc)], expect=[np.maximum(xx, 0), cc])
case('Same_input_twice', 13, [node('Mul', ['x', 'x'])], [('x', xx)], [('y', F)])
case('Unused_input', 13, [node('Relu', ['x'])], [('x', xx), ('u', f32(4))], [('y', F)])
case('View_chain', 13, [node('Reshape', ['x', 's'], ['r']), node('Flatten', ['r'], ['f']), node('Identity', ['f'], ['i']), node('Squeeze', ['i', 'ax'], ['q']),
                        node('Unsqueeze', ['q', 'ax'], ['u']), node('Add', ['u', 'f'], ['y']), node('Relu', ['r'], ['z'])],
     [('x', f32(2, 3))], [('y', F), ('z', F), ('q', F)], [('s', I64(1, 6)), ('ax', I64(0))])
w = f32(3, 2, 3, 3)
case('Conv_shared_w_bn', 11, [node('Conv', ['x', 'w'], ['c1'], pads=[1, 1, 1, 1]), node('Conv', ['x', 'w'], ['c2'], pads=[1, 1, 1, 1]),
                              node('BatchNormalization', ['c1', 's', 'bb', 'mu', 'var'], ['y']), node('Relu', ['c2'], ['z'])],
     [('x', f32(1, 2, 5, 5))], [('y', F), ('z', F)], [('w', w), ('s', f32(3)), ('bb', f32(3)), ('mu', f32(3)), ('var', f32(3, lo=0.1, hi=2))])
case('Conv_bn_outused', 11, [node('Conv', ['x', 'w'], ['c1'], pads=[1, 1, 1, 1]), node('BatchNormalization', ['c1', 's', 'bb', 'mu', 'var'], ['y']),
                             node('Relu', ['c1'], ['z'])],
     [('x', f32(1, 2, 5, 5))], [('y', F), ('z', F)], [('w', w), ('s', f32(3)), ('bb', f32(3)), ('mu', f32(3)), ('var', f32(3, lo=0.1, hi=2))])
case('Gemm_bn_rowC', 13, [node('Gemm', ['a', 'w', 'c'], ['g']), node('BatchNormalization', ['g', 's', 'bb', 'mu', 'var'])],
     [('a', f32(2, 3))], [('y', F)], [('w', f32(3, 4)), ('c', f32(2, 1)), ('s', f32(4)), ('bb', f32(4)), ('mu', f32(4)), ('var', f32(4, lo=0.1, hi=2))])
case('Shape_cos', 13, [node('Shape', ['x'], ['s']), node('ConstantOfShape', ['s'], ['c'], value=H.make_tensor('v', TP.FLOAT, [1], [0.5])), node('Add', ['x', 'c'])],
     [('x', f32(2, 3))], [('y', F)])
# ---------------- dense layers large enough for the packed float32 GEMM path (models/sgemm.c);
# entries in [-1, 1] keep float32 rounding of the references below the tolerance
def u(*shape):
    return f32(*shape, lo=-1, hi=1)


for i, (M, K, N) in enumerate([(64, 37, 45), (25, 1, 33), (30, 64, 1), (100, 7, 64), (24, 5, 31), (13, 100, 70)]):
    case('Dense_mm_%d' % i, 13, [node('MatMul', ['a', 'w'], ['m']), node('Add', ['m', 'b'], ['s']), node('Relu', ['s'])],
         [('a', u(M, K))], [('y', F)], [('w', u(K, N)), ('b', u(N))])
    case('Dense_mm3_%d' % i, 13, [node('MatMul', ['a', 'w'], ['m']), node('Add', ['b', 'm'], ['y'])],
         [('a', u(2, M, K))], [('y', F)], [('w', u(K, N)), ('b', u(1, 1, N))])
    case('Dense_gemm_%d' % i, 13, [node('Gemm', ['a', 'w', 'c'], ['g'], transB=1, alpha=0.5, beta=1.5), node('Relu', ['g'], ['y'])],
         [('a', u(M, K))], [('y', F)], [('w', u(N, K)), ('c', u(N))])
    case('Dense_gemm_out_%d' % i, 13, [node('Gemm', ['a', 'w', 'c'], ['y'], alpha=2.0), node('Relu', ['y'], ['z'])],
         [('a', u(M, K))], [('y', F), ('z', F)], [('w', u(K, N)), ('c', np.array(0.25, np.float32))])

# ---------------- opsets 18-21: what changed there for the supported operators
# (onnxruntime 1.17 implements opsets up to 20; opset-21 cases take numpy references)
x3 = f32(2, 3, 4)
for i, (axes, keep) in enumerate([([1], 1), ([0, 2], 0), ([-1], 1), (None, 0), ([], 1)]):
    # ReduceMean-18: axes moved to an input; empty or omitted: all axes
    ins = ['x'] + (['a'] if axes is not None else [])
    inits = [('a', np.array(axes, np.int64))] if axes is not None else []
    case('ReduceMean_o18_%d' % i, 18, [node('ReduceMean', ins, keepdims=keep)], [('x', x3)], [('y', F)], inits)
    case('ReduceSum_o18_%d' % i, 18, [node('ReduceSum', ins, keepdims=keep)], [('x', x3)], [('y', F)], inits)
xx = f32(2, 3)
case('ReduceMean_o18_noop', 18, [node('ReduceMean', ['x'], noop_with_empty_axes=1)], [('x', xx)], [('y', F)], expect=[xx])
for i, (axes, pads) in enumerate([([1], [1, 2]), ([0, -1], [2, 0, 1, 3]), ([-2], [-1, 1]), ([1, 0], [0, 1, 2, -1])]):
    # Pad-18: pads of the listed axes only
    for mode in ['constant', 'reflect', 'edge']:
        ins = ['x', 'p', 'v', 'a'] if mode == 'constant' else ['x', 'p', '', 'a']
        inits = [('p', I64(*pads)), ('a', I64(*axes))] + ([('v', np.array(1.5, np.float32))] if mode == 'constant' else [])
        case('Pad_o18_axes_%s_%d' % (mode, i), 18, [node('Pad', ins, mode=mode)], [('x', f32(3, 4))], [('y', F)], inits)


def np_wrap(x, pads):
    """Pad-19 mode wrap: negative pads crop first, then the kept part repeats."""
    r = x.ndim
    sl = tuple(slice(max(-pads[d], 0), x.shape[d] - max(-pads[r + d], 0)) for d in range(r))
    return np.pad(x[sl], [(max(pads[d], 0), max(pads[r + d], 0)) for d in range(r)], mode='wrap')


for i, pads in enumerate([[1, 2, 1, 0], [0, 5, 0, 7], [3, -1, -1, 2], [4, 4, 4, 4]]):
    xw = f32(3, 4)
    case('Pad_o19_wrap_%d' % i, 19, [node('Pad', ['x', 'p'], mode='wrap')], [('x', xw)], [('y', F)], [('p', I64(*pads))],
         expect=[np_wrap(xw, pads)])
case('Pad_o21_wrap_3d', 21, [node('Pad', ['x', 'p', '', 'a'], mode='wrap')], [('x', x3)], [('y', F)],
     [('p', I64(2, 3)), ('a', I64(2))], expect=[np_wrap(x3, [0, 0, 2, 0, 0, 3])])
for i, kw in enumerate([dict(kernel_shape=[2, 2], dilations=[2, 2]),
                        dict(kernel_shape=[3, 2], dilations=[1, 2], pads=[1, 1, 1, 0], count_include_pad=1),
                        dict(kernel_shape=[2, 2], dilations=[2, 1], strides=[2, 2], pads=[1, 0, 0, 1])]):
    # AveragePool-19: dilations
    case('AveragePool_o19_dil_%d' % i, 19, [node('AveragePool', ['x'], **kw)], [('x', f32(1, 2, 7, 6))], [('y', F)])
# opset 21 (new element types only, for these operators): the same semantics
x4 = f32(2, 3, 1, 4)
case('Flatten_o21', 21, [node('Flatten', ['x'], axis=2)], [('x', x4)], [('y', F)], expect=[x4.reshape(6, 4)])
case('Reshape_o21', 21, [node('Reshape', ['x', 's'])], [('x', x4)], [('y', F)], [('s', I64(4, -1))], expect=[x4.reshape(4, 6)])
case('Squeeze_o21', 21, [node('Squeeze', ['x', 'a'])], [('x', x4)], [('y', F)], [('a', I64(2))], expect=[x4.reshape(2, 3, 4)])
case('Unsqueeze_o21', 21, [node('Unsqueeze', ['x', 'a'])], [('x', x3)], [('y', F)], [('a', I64(0, -1))], expect=[x3.reshape(1, 2, 3, 4, 1)])
case('Transpose_o21', 21, [node('Transpose', ['x'], perm=[2, 0, 1])], [('x', x3)], [('y', F)], expect=[x3.transpose(2, 0, 1)])
case('Identity_o21', 21, [node('Identity', ['x'])], [('x', x3)], [('y', F)], expect=[x3])
case('Cast_o21', 21, [node('Cast', ['x'], to=TP.DOUBLE)], [('x', x3)], [('y', TP.DOUBLE)], expect=[x3.astype(np.float64)])
case('Shape_o21', 21, [node('Shape', ['x'], start=1)], [('x', x3)], [('y', TP.INT64)], expect=[I64(3, 4)])
case('ConstantOfShape_o21', 21, [node('Shape', ['x'], ['s']), node('ConstantOfShape', ['s'], ['c'], value=H.make_tensor('v', TP.FLOAT, [1], [0.5])),
                                 node('Add', ['x', 'c'])], [('x', xx)], [('y', F)], expect=[(xx + np.float32(0.5)).astype(np.float32)])


def ort_outputs():
    """Runs onnxruntime on every ort_cases folder; writes output_<k>.pb."""
    with open(OUT + '/cases.json', 'w') as f:
        json.dump(ort_cases, f)
    subprocess.run(['node', os.path.join(HERE, 'conformance_ort.js'), OUT], check=True)
    types = {'float32': np.float32, 'float64': np.float64, 'int64': np.int64, 'int32': np.int32,
             'int8': np.int8, 'uint8': np.uint8, 'bool': np.bool_}
    bad = 0
    for c in ort_cases:
        d = os.path.join(OUT, c)
        if os.path.exists(d + '/ort_error.txt'):
            with open(d + '/ort_error.txt') as f:
                print('conformance_cases: onnxruntime failed on %s: %s' % (c, f.read()[:300]), file=sys.stderr)
            bad += 1
            continue
        with open(d + '/outputs.json') as f:
            got = json.load(f)['outputs']
        for k, o in enumerate(onnx.load(d + '/model.onnx').graph.output):
            t = got[o.name]
            isf = t['type'] in ('float32', 'float64')
            data = [float(v) if isf else int(v) for v in t['data']]  # "NaN"/"Infinity" strings, big ints as strings
            a = np.array(data, dtype=np.float64 if isf else object).astype(types[t['type']]).reshape(t['shape'])
            with open(d + '/test_data_set_0/output_%d.pb' % k, 'wb') as f:
                f.write(NH.from_array(a, o.name).SerializeToString())
        os.remove(d + '/outputs.json')
        os.remove(d + '/inputs.json')
    os.remove(OUT + '/cases.json')
    return bad


sys.exit(1 if ort_outputs() else 0)
