#!/usr/bin/python3
"""Train the zoo's graph models and export them as ONNX with the adjacency as
a sparse_initializer (nncert keeps it in CSR form).

  /usr/bin/python3 models/zoo/train_gcn.py [--data DIR] [--out DIR] [GRAPH ...]

GRAPH is cora, citeseer or pubmed (read from DIR, default
../shared/data/graphs/converted, format in that folder's MANIFEST.md) or
synth=FILE.csr, a GCSR0001 graph written by build*/tools/gen_graph (no
features or labels: they are made here from a seeded random teacher, see
synthetic()).  Default: cora citeseer synth=<gen_graph 200 nodes>.

Per graph it writes OUT/gcn_<g>.onnx (two GCN layers, Kipf & Welling:
logits = A relu(A X W1 + b1) W2 + b2, A = D^-1/2 (A + I) D^-1/2) and, for
cora and synth, OUT/sage_<g>.onnx (GraphSAGE-mean:
h = relu(X Ws1 + M X Wn1 + b1), logits = h Ws2 + M h Wn2 + b2, M = D^-1 A the
neighbour mean, isolated nodes aggregate to 0), and records test accuracy in
OUT/gnn_accuracy.json.  The ONNX input is X float32 [N, F] (the whole graph
is one sample), the output logits [N, C].

Training: Adam (lr 0.01, weight decay 5e-4), hidden 16, dropout 0.5, 200
epochs, on the Planetoid train split, seed 0, 2 threads.  PubMed: only 1060
of 19717 feature rows exist (MANIFEST.md), so its model is trained on those
rows' features with the others zero; its accuracy says so.

Needs Debian's python3-torch, python3-onnx, python3-numpy (no network)."""
import argparse
import json
import os
import struct
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def read_csr(path):
    b = open(path, 'rb').read()
    if b[:8] != b'GCSR0001':
        raise SystemExit('%s: not a GCSR0001 file' % path)
    n, nnz, nf, nc = struct.unpack('<4i', b[8:24])
    rp = np.frombuffer(b, '<i4', n + 1, 24).astype(np.int64)
    ci = np.frombuffer(b, '<i4', nnz, 24 + 4 * (n + 1)).astype(np.int64)
    return n, rp, ci


def read_feat(path, n):
    b = open(path, 'rb').read()
    assert b[:8] == b'GFEAT001', path
    rows, cols, nnz, _ = struct.unpack('<4i', b[8:24])
    rp = np.frombuffer(b, '<i4', rows + 1, 24)
    ci = np.frombuffer(b, '<i4', nnz, 24 + 4 * (rows + 1))
    v = np.frombuffer(b, '<f4', nnz, 24 + 4 * (rows + 1) + 4 * nnz)
    X = np.zeros((rows, cols), np.float32)
    for r in range(rows):
        X[r, ci[rp[r]:rp[r + 1]]] = v[rp[r]:rp[r + 1]]
    return X


def read_labels(path):
    b = open(path, 'rb').read()
    assert b[:8] == b'GLAB0001', path
    n, c, _, _ = struct.unpack('<4i', b[8:24])
    y = np.frombuffer(b, '<i4', n, 24).astype(np.int64)
    split = np.frombuffer(b, 'u1', n, 24 + 4 * n)
    return y, split, c


def gcn_norm(n, rp, ci):
    """CSR of D^-1/2 (A + I) D^-1/2, float32 values computed in double
    (as nnc_mdl_csr32_gcn_norm)."""
    rows, cols = [], []
    for i in range(n):
        nb = ci[rp[i]:rp[i + 1]]
        cols.append(np.unique(np.concatenate([nb, [i]])))
        rows.append(np.full(len(cols[-1]), i))
    r = np.concatenate(rows)
    c = np.concatenate(cols)
    deg = np.bincount(r, minlength=n).astype(np.float64)
    v = (1.0 / np.sqrt(deg[r] * deg[c])).astype(np.float32)
    return r, c, v


def mean_norm(n, rp, ci):
    """CSR of D^-1 A (neighbour mean; empty rows stay empty)."""
    r = np.repeat(np.arange(n), np.diff(rp))
    deg = np.diff(rp).astype(np.float64)
    v = (1.0 / deg[r]).astype(np.float32)
    return r, ci.copy(), v


def torch_sparse(n, r, c, v):
    return torch.sparse_coo_tensor(torch.from_numpy(np.vstack([r, c])), torch.from_numpy(v), (n, n)).coalesce()


def sparse_init(name, n, r, c, v):
    vals = numpy_helper.from_array(v.astype(np.float32), name)
    idx = numpy_helper.from_array((r * n + c).astype(np.int64), name + '_indices')
    return helper.make_sparse_tensor(vals, idx, [n, n])


def export(path, kind, n, F, C, adj, params):
    """Write the ONNX graph; params are numpy arrays named as below."""
    inits = [numpy_helper.from_array(a.astype(np.float32), k) for k, a in params.items()]
    sp = [sparse_init('A', n, *adj)]
    if kind == 'gcn':
        nodes = [
            helper.make_node('MatMul', ['X', 'W1'], ['xw1'], name='dense1'),
            helper.make_node('MatMul', ['A', 'xw1'], ['ax1'], name='aggregate1'),
            helper.make_node('Add', ['ax1', 'b1'], ['h1'], name='bias1'),
            helper.make_node('Relu', ['h1'], ['r1'], name='relu1'),
            helper.make_node('MatMul', ['r1', 'W2'], ['xw2'], name='dense2'),
            helper.make_node('MatMul', ['A', 'xw2'], ['ax2'], name='aggregate2'),
            helper.make_node('Add', ['ax2', 'b2'], ['logits'], name='bias2'),
        ]
    else:
        nodes = [
            helper.make_node('MatMul', ['A', 'X'], ['mx'], name='aggregate1'),
            helper.make_node('MatMul', ['X', 'Ws1'], ['s1'], name='self1'),
            helper.make_node('MatMul', ['mx', 'Wn1'], ['n1'], name='neigh1'),
            helper.make_node('Add', ['s1', 'n1'], ['sn1'], name='sum1'),
            helper.make_node('Add', ['sn1', 'b1'], ['h1'], name='bias1'),
            helper.make_node('Relu', ['h1'], ['r1'], name='relu1'),
            helper.make_node('MatMul', ['A', 'r1'], ['mr'], name='aggregate2'),
            helper.make_node('MatMul', ['r1', 'Ws2'], ['s2'], name='self2'),
            helper.make_node('MatMul', ['mr', 'Wn2'], ['n2'], name='neigh2'),
            helper.make_node('Add', ['s2', 'n2'], ['sn2'], name='sum2'),
            helper.make_node('Add', ['sn2', 'b2'], ['logits'], name='bias2'),
        ]
    g = helper.make_graph(nodes, kind + '_graph', [helper.make_tensor_value_info('X', TensorProto.FLOAT, [n, F])],
                          [helper.make_tensor_value_info('logits', TensorProto.FLOAT, [n, C])], inits,
                          sparse_initializer=sp)
    m = helper.make_model(g, producer_name='nncert models/zoo/train_gcn.py', opset_imports=[helper.make_opsetid('', 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, path)


class GCN(torch.nn.Module):
    def __init__(self, A, F, H, C):
        super().__init__()
        self.A = A
        self.l1 = torch.nn.Linear(F, H)
        self.l2 = torch.nn.Linear(H, C)

    def forward(self, X):
        h = torch.relu(torch.sparse.mm(self.A, X @ self.l1.weight.t()) + self.l1.bias)
        h = torch.nn.functional.dropout(h, 0.5, self.training)
        return torch.sparse.mm(self.A, h @ self.l2.weight.t()) + self.l2.bias

    def params(self):
        return {'W1': self.l1.weight.detach().numpy().T, 'b1': self.l1.bias.detach().numpy(),
                'W2': self.l2.weight.detach().numpy().T, 'b2': self.l2.bias.detach().numpy()}


class SAGE(torch.nn.Module):
    def __init__(self, M, F, H, C):
        super().__init__()
        self.M = M
        self.s1, self.n1 = torch.nn.Linear(F, H), torch.nn.Linear(F, H, bias=False)
        self.s2, self.n2 = torch.nn.Linear(H, C), torch.nn.Linear(H, C, bias=False)

    def forward(self, X):
        h = torch.relu(self.s1(X) + self.n1(torch.sparse.mm(self.M, X)))
        h = torch.nn.functional.dropout(h, 0.5, self.training)
        return self.s2(h) + self.n2(torch.sparse.mm(self.M, h))

    def params(self):
        t = lambda l: l.weight.detach().numpy().T
        return {'Ws1': t(self.s1), 'Wn1': t(self.n1), 'b1': self.s1.bias.detach().numpy(),
                'Ws2': t(self.s2), 'Wn2': t(self.n2), 'b2': self.s2.bias.detach().numpy()}


def train(model, X, y, split, epochs=200):
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    tr = torch.from_numpy(split == 1)
    for _ in range(epochs):
        model.train()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(Xt)[tr], yt[tr])
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        pred = model(Xt).argmax(1).numpy()
    te = (split == 3) & (y >= 0)
    return float((pred[te] == y[te]).mean())


def synthetic(n, F=8, C=3):
    """Features N(0,1) and labels from a random teacher GCN on the graph,
    split 40% train, 20% val, 40% test (seeded)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, F)).astype(np.float32)
    return X, rng, F, C


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', default=os.path.join(HERE, '..', '..', '..', 'shared', 'data', 'graphs', 'converted'))
    ap.add_argument('--out', default=HERE)
    ap.add_argument('--gen', default=os.path.join(HERE, '..', '..', 'build', 'tools', 'gen_graph'),
                    help='the C generator (tests/tools/gen_graph.c) for the default synthetic graph')
    ap.add_argument('graphs', nargs='*')
    a = ap.parse_args()
    torch.set_num_threads(2)
    os.makedirs(a.out, exist_ok=True)
    graphs = a.graphs or ['cora', 'citeseer', 'synth=']
    accfile = os.path.join(a.out, 'gnn_accuracy.json')
    acc = json.load(open(accfile)) if os.path.exists(accfile) else {}
    for g in graphs:
        torch.manual_seed(0)
        if g.startswith('synth='):
            path = g[6:]
            if not path:  # the default synthetic graph, made with the C generator
                path = os.path.join(a.out, 'synth.csr')
                subprocess.check_call([a.gen, '--nodes', '200', '--degree', '6', '--gamma', '2.5', '--seed', '1',
                                       '--out', path])
            name = 'synth'
            n, rp, ci = read_csr(path)
            X, rng, F, C = synthetic(n)
            A = gcn_norm(n, rp, ci)
            with torch.no_grad():
                At = torch_sparse(n, *A)
                teacher = GCN(At, F, 16, C)
                y = teacher(torch.from_numpy(X)).argmax(1).numpy().astype(np.int64)
            split = rng.choice([1, 2, 3], size=n, p=[0.4, 0.2, 0.4]).astype(np.uint8)
            np.save(os.path.join(a.out, 'synth_features.npy'), X)
        else:
            name = g
            n, rp, ci = read_csr(os.path.join(a.data, g + '.csr'))
            X = read_feat(os.path.join(a.data, g + '.feat'), n)
            y, split, C = read_labels(os.path.join(a.data, g + '.labels'))
            F = X.shape[1]
            A = gcn_norm(n, rp, ci)
        torch.manual_seed(0)
        m = GCN(torch_sparse(n, *A), F, 16, C)
        acc['gcn_' + name] = {'test_accuracy': train(m, X, y, split), 'nodes': n, 'features': F, 'classes': C}
        if name == 'pubmed':
            acc['gcn_' + name]['note'] = 'only 1060 of 19717 feature rows exist (ind.pubmed.allx missing)'
        export(os.path.join(a.out, 'gcn_%s.onnx' % name), 'gcn', n, F, C, A, m.params())
        print('gcn_%s: test accuracy %.3f' % (name, acc['gcn_' + name]['test_accuracy']))
        if name in ('cora', 'synth'):
            M = mean_norm(n, rp, ci)
            torch.manual_seed(0)
            s = SAGE(torch_sparse(n, *M), F, 16, C)
            acc['sage_' + name] = {'test_accuracy': train(s, X, y, split), 'nodes': n, 'features': F, 'classes': C}
            export(os.path.join(a.out, 'sage_%s.onnx' % name), 'sage', n, F, C, M, s.params())
            print('sage_%s: test accuracy %.3f' % (name, acc['sage_' + name]['test_accuracy']))
    with open(accfile, 'w') as f:
        json.dump(acc, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
