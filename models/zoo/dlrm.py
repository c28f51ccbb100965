#!/usr/bin/python3
"""A small DLRM (Naumov et al. 2019) for nncert, and its access traces.

    /usr/bin/python3 models/zoo/dlrm.py export [--out DIR]
        writes DIR/dlrm.onnx (untrained weights from a fixed seed) and
        DIR/dlrm_trace.txt (256 synthetic samples, Zipf 1.05 ids)
    dlrm.py trace --samples N [--zipf A] [--seed S] [--bags-of N] --out FILE
        a synthetic trace for the model's tables (nncert's trace format)
    dlrm.py criteo IN.txt --out FILE
        the Criteo sample (shared/data/graphs/dlrm/criteo_sample.txt) as a
        trace for the model: dense log(1 + max(x, 0)), missing -> 0; each
        C_k hash -> row (hash mod rows) of table k mod 8
    dlrm.py torch-run MODEL TRACE --out FILE.json
        evaluate the ONNX model's weights with torch (the reference for
        tests/e2e/dlrm.sh), outputs as nncert run prints them
    dlrm.py to-json MODEL TRACE --out FILE.json
        the trace as an nncert run input file (JSON object keyed by input)
    dlrm.py embbag-check ...   see tests/e2e/dlrm.sh

The model: dense [N, 13] -> bottom MLP 13-32-16 (ReLU); eight embedding
tables of width 16, each pooled over a fixed-length bag (sum or mean:
torch's Embedding(ids).sum(1) / .mean(1), which exports as Gather +
ReduceSum/ReduceMean and which nncert fuses into one EmbeddingBag node;
nn.EmbeddingBag itself exports as a Loop in torch 1.13); pairwise dot
products of the 9 vectors (36, the strictly lower triangle) concatenated
with the bottom output -> top MLP 52-32-1 -> sigmoid.

Trace format (nncert's, README "DLRM"): one sample per line, 13 dense
numbers then 8 categorical fields, comma-separated; a categorical field is
its bag's row ids joined by ':'.
"""

import argparse
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn

SEED = 0
OPSET = 13
N_DENSE = 13
DIM = 16
# rows, bag length, pooling mode of each table
TABLES = [(1000, 1, "sum"), (200, 1, "sum"), (2000, 3, "sum"), (100, 1, "sum"),
          (500, 2, "mean"), (50, 1, "sum"), (1500, 1, "sum"), (650, 4, "mean")]


class DLRM(nn.Module):
    def __init__(self):
        super().__init__()
        self.bot = nn.Sequential(nn.Linear(N_DENSE, 32), nn.ReLU(), nn.Linear(32, DIM), nn.ReLU())
        self.emb = nn.ModuleList([nn.Embedding(r, DIM) for r, _, _ in TABLES])
        for e in self.emb:  # DLRM's initialisation: uniform(-1/sqrt(rows), 1/sqrt(rows))
            nn.init.uniform_(e.weight, -1 / math.sqrt(e.num_embeddings), 1 / math.sqrt(e.num_embeddings))
        n = len(TABLES) + 1
        self.n_vec = n
        li, lj = np.tril_indices(n, -1)
        self.register_buffer("tri", torch.tensor(li * n + lj, dtype=torch.int64), persistent=False)
        self.top = nn.Sequential(nn.Linear(DIM + n * (n - 1) // 2, 32), nn.ReLU(), nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, dense, *cats):
        x = self.bot(dense)
        pooled = []
        for (r, L, mode), e, c in zip(TABLES, self.emb, cats):
            v = e(c)
            pooled.append(v.sum(1) if mode == "sum" else v.mean(1))
        t = torch.cat([x] + pooled, dim=1).reshape(-1, self.n_vec, DIM)
        z = torch.bmm(t, t.transpose(1, 2)).reshape(-1, self.n_vec * self.n_vec)
        return self.top(torch.cat([x, z.index_select(1, self.tri)], dim=1))


def input_names():
    return ["dense"] + ["cat_%d" % k for k in range(len(TABLES))]


def export(out_dir):
    torch.manual_seed(SEED)
    m = DLRM().eval()
    dense = torch.zeros(2, N_DENSE)
    cats = tuple(torch.zeros(2, L, dtype=torch.int64) for _, L, _ in TABLES)
    names = input_names()
    dyn = {n: {0: "N"} for n in names}
    dyn["prob"] = {0: "N"}
    path = os.path.join(out_dir, "dlrm.onnx")
    torch.onnx.export(m, (dense,) + cats, path, input_names=names, output_names=["prob"],
                      dynamic_axes=dyn, opset_version=OPSET, do_constant_folding=True)
    write_trace(os.path.join(out_dir, "dlrm_trace.txt"), synth(256, 1.05, 1, None))
    print("wrote", path, "and dlrm_trace.txt")


def zipf_ids(rng, rows, n, a):
    """n ids of a table with `rows` rows: Zipf(a) ranks over the rows, mapped
    through a fixed random permutation (ids are hashes, so hot rows are
    scattered, as in Criteo)."""
    p = 1.0 / np.arange(1, rows + 1) ** a
    p /= p.sum()
    ranks = rng.choice(rows, size=n, p=p)
    perm = np.random.default_rng(rows).permutation(rows)
    return perm[ranks]


def synth(samples, a, seed, bags_of):
    rng = np.random.default_rng(seed)
    dense = np.round(rng.lognormal(0.0, 1.0, size=(samples, N_DENSE)), 4)
    cats = []
    for r, L, _ in TABLES:
        L = bags_of or L
        cats.append(zipf_ids(rng, r, samples * L, a).reshape(samples, L))
    return dense, cats


def write_trace(path, data):
    dense, cats = data
    with open(path, "w") as f:
        f.write("# nncert DLRM trace: %d dense features, then %d bags (ids joined by ':')\n" % (dense.shape[1], len(cats)))
        for s in range(dense.shape[0]):
            f.write(",".join(["%.9g" % v for v in dense[s]] + [":".join(str(int(i)) for i in c[s]) for c in cats]) + "\n")


def read_trace(path):
    dense, cats = [], [[] for _ in TABLES]
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        f = line.split(",")
        dense.append([float(v) for v in f[:N_DENSE]])
        for k, c in enumerate(f[N_DENSE:]):
            cats[k].append([int(i) for i in c.split(":")] if c else [])
    return np.array(dense, dtype=np.float32), cats


def criteo(src, out):
    dense, cats = [], [[] for _ in TABLES]
    with open(src) as f:
        header = f.readline().strip().split(",")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split(",")))
            dense.append([math.log1p(max(float(row["I%d" % k]), 0.0)) if row["I%d" % k] else 0.0 for k in range(1, 14)])
            for t, (rows, L, _) in enumerate(TABLES):
                # table t pools L of the 26 categorical columns t, t+8, t+16, t+24
                ids = [int(row["C%d" % (c + 1)], 16) % rows if row["C%d" % (c + 1)] else 0 for c in range(t, 26, 8)]
                cats[t].append((ids * L)[:L])
    write_trace(out, (np.round(np.array(dense), 6), [np.array(c) for c in cats]))


def load_torch(model_path):
    import onnx
    import onnx.numpy_helper
    g = onnx.load(model_path).graph
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in g.initializer}
    m = DLRM().eval()
    sd = m.state_dict()
    for k in sd:
        if k not in inits:
            sys.exit("dlrm.py: initializer %s is not in %s" % (k, model_path))
        sd[k] = torch.from_numpy(inits[k].copy())
    m.load_state_dict(sd)
    return m


def torch_run(model_path, trace, out):
    m = load_torch(model_path)
    dense, cats = read_trace(trace)
    with torch.no_grad():
        y = m(torch.from_numpy(dense), *[torch.tensor(c, dtype=torch.int64) for c in cats])
    json.dump({"outputs": {"prob": {"shape": list(y.shape), "data": y.flatten().tolist()}}}, open(out, "w"))


def to_json(model_path, trace, out):
    dense, cats = read_trace(trace)
    doc = {"dense": {"shape": list(dense.shape), "data": [float(v) for v in dense.flatten()]}}
    for k, c in enumerate(cats):
        a = np.array(c, dtype=np.int64)
        doc["cat_%d" % k] = {"shape": list(a.shape), "data": [int(v) for v in a.flatten()]}
    json.dump(doc, open(out, "w"))


def embbag_check(out_dir, mode, dim, rows, bags, L, seed):
    """An ONNX Gather + Reduce model and, beside it, torch.nn.EmbeddingBag's
    output for the same table and bags (given as offsets)."""
    import onnx
    from onnx import helper, TensorProto, numpy_helper
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((rows, dim)).astype(np.float32)
    ids = zipf_ids(rng, rows, bags * L, 1.05).reshape(bags, L)
    red = "ReduceSum" if mode == "sum" else "ReduceMean"
    nodes = [helper.make_node("Gather", ["table", "ids"], ["g"])]
    inits = [numpy_helper.from_array(w, "table")]
    if red == "ReduceSum":
        inits.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "axes"))
        nodes.append(helper.make_node("ReduceSum", ["g", "axes"], ["out"], keepdims=0))
    else:
        nodes.append(helper.make_node("ReduceMean", ["g"], ["out"], axes=[1], keepdims=0))
    graph = helper.make_graph(nodes, "embbag", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["N", L])],
                              [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["N", dim])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(out_dir, "embbag.onnx"))
    json.dump({"ids": {"shape": [bags, L], "data": [int(v) for v in ids.flatten()]}}, open(os.path.join(out_dir, "ids.json"), "w"))
    eb = nn.EmbeddingBag(rows, dim, mode=mode)
    with torch.no_grad():
        eb.weight.copy_(torch.from_numpy(w))
        flat = torch.from_numpy(ids.flatten())
        y = eb(flat, torch.arange(0, bags * L, L, dtype=torch.int64))
    json.dump({"outputs": {"out": {"shape": list(y.shape), "data": y.flatten().tolist()}}},
              open(os.path.join(out_dir, "torch.json"), "w"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("export"); p.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    p = sub.add_parser("trace"); p.add_argument("--samples", type=int, required=True)
    p.add_argument("--zipf", type=float, default=1.05); p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bags-of", type=int, default=None); p.add_argument("--out", required=True)
    p = sub.add_parser("criteo"); p.add_argument("src"); p.add_argument("--out", required=True)
    for name in ("torch-run", "to-json"):
        p = sub.add_parser(name); p.add_argument("model"); p.add_argument("trace"); p.add_argument("--out", required=True)
    p = sub.add_parser("embbag-check"); p.add_argument("--out", required=True)
    p.add_argument("--mode", choices=["sum", "mean"], default="sum"); p.add_argument("--dim", type=int, default=16)
    p.add_argument("--rows", type=int, default=1000); p.add_argument("--bags", type=int, default=64)
    p.add_argument("--len", type=int, default=4); p.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.cmd == "export":
        export(a.out)
    elif a.cmd == "trace":
        write_trace(a.out, synth(a.samples, a.zipf, a.seed, a.bags_of))
    elif a.cmd == "criteo":
        criteo(a.src, a.out)
    elif a.cmd == "torch-run":
        torch_run(a.model, a.trace, a.out)
    elif a.cmd == "to-json":
        to_json(a.model, a.trace, a.out)
    else:
        embbag_check(a.out, a.mode, a.dim, a.rows, a.bags, a.len, a.seed)


if __name__ == "__main__":
    main()
