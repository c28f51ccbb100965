#!/usr/bin/python3
"""Independent reference for the graph models: evaluate an ONNX graph of
MatMul (dense, or a sparse_initializer left operand via torch.sparse.mm),
Add and Relu in torch (float32), and compare nncert's output JSON with it.

  gnn_ref.py MODEL.onnx INPUT.npy NNCERT_OUTPUT.json [RTOL]
  gnn_ref.py --features DIR GRAPH OUT.npy   (dense X from DIR/GRAPH.feat)

Compare mode prints "max_abs_err E scale S" and exits 0 when
max |nncert - torch| <= RTOL * max |torch| (RTOL default 1e-5), 1 otherwise."""
import json
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch


def features(d, g, out):
    b = open('%s/%s.feat' % (d, g), 'rb').read()
    assert b[:8] == b'GFEAT001'
    rows, cols, nnz, _ = struct.unpack('<4i', b[8:24])
    rp = np.frombuffer(b, '<i4', rows + 1, 24)
    ci = np.frombuffer(b, '<i4', nnz, 24 + 4 * (rows + 1))
    v = np.frombuffer(b, '<f4', nnz, 24 + 4 * (rows + 1) + 4 * nnz)
    X = np.zeros((rows, cols), np.float32)
    r = np.repeat(np.arange(rows), np.diff(rp))
    X[r, ci] = v
    np.save(out, X)


def evaluate(model_path, x):
    m = onnx.load(model_path)
    env = {}
    for t in m.graph.initializer:
        env[t.name] = torch.from_numpy(numpy_helper.to_array(t).astype(np.float32))
    for sp in m.graph.sparse_initializer:
        n, c = sp.dims
        vals = numpy_helper.to_array(sp.values).astype(np.float32)
        idx = numpy_helper.to_array(sp.indices).astype(np.int64)
        rc = np.vstack([idx // c, idx % c]) if idx.ndim == 1 else idx.T
        env[sp.values.name] = torch.sparse_coo_tensor(torch.from_numpy(rc), torch.from_numpy(vals), (n, c)).coalesce()
    env[m.graph.input[0].name] = torch.from_numpy(x.astype(np.float32))
    for nd in m.graph.node:
        a = [env[i] for i in nd.input]
        if nd.op_type == 'MatMul':
            y = torch.sparse.mm(a[0], a[1]) if a[0].is_sparse else a[0] @ a[1]
        elif nd.op_type == 'Add':
            y = a[0] + a[1]
        elif nd.op_type == 'Relu':
            y = torch.relu(a[0])
        else:
            raise SystemExit('gnn_ref: operator %s not handled' % nd.op_type)
        env[nd.output[0]] = y
    return env[m.graph.output[0].name].numpy(), m.graph.output[0].name


def main():
    if sys.argv[1] == '--features':
        features(sys.argv[2], sys.argv[3], sys.argv[4])
        return 0
    torch.set_num_threads(1)
    ref, name = evaluate(sys.argv[1], np.load(sys.argv[2]))
    got = np.array(json.load(open(sys.argv[3]))['outputs'][name]['data'], np.float64).reshape(ref.shape)
    rtol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-5
    err = float(np.abs(got - ref).max())
    scale = float(np.abs(ref).max())
    print('max_abs_err %.3g scale %.3g' % (err, scale))
    return 0 if err <= rtol * scale else 1


if __name__ == '__main__':
    sys.exit(main())
