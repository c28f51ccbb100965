#!/usr/bin/python3
"""Train and export the nncert model zoo (Fashion-MNIST MLP and CNN).

Re-train everything with:

    /usr/bin/python3 models/zoo/train.py [--out DIR]

Needs the Debian packages python3-torch, python3-onnx, python3-numpy and
dataset-fashion-mnist (the data is read from /usr/share/datasets/fashion-mnist;
nothing is downloaded).  Everything written is derived from a fixed seed.
"""

import argparse
import gzip
import json
import os
import sys
import time

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA_DIR = "/usr/share/datasets/fashion-mnist"
DATASET_NAME = "Fashion-MNIST (Debian dataset-fashion-mnist)"
SEED = 0
OPSET = 13
BATCH = 128
LR = 1e-3
EPOCHS = {"mlp": 8, "cnn": 8}


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def read_idx(path):
    """Read a gzip'd IDX file (big-endian header) into a numpy array."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[0:4], "big")
    dtype_code, ndim = (magic >> 8) & 0xFF, magic & 0xFF
    if dtype_code != 0x08:  # unsigned byte
        raise ValueError(f"{path}: unsupported IDX dtype 0x{dtype_code:02x}")
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    arr = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
    if arr.size != int(np.prod(dims)):
        raise ValueError(f"{path}: size mismatch {arr.size} vs {dims}")
    return arr.reshape(dims)


def load_split(prefix):
    x = read_idx(os.path.join(DATA_DIR, f"{prefix}-images-idx3-ubyte.gz"))
    y = read_idx(os.path.join(DATA_DIR, f"{prefix}-labels-idx1-ubyte.gz"))
    # pixels scaled to [0,1]; no normalisation (the models see raw [0,1] input)
    x = (x.astype(np.float32) / np.float32(255.0)).reshape(-1, 1, 28, 28)
    return x, y.astype(np.int64)


# --------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(),
            nn.Linear(784, 256), nn.ReLU(),
            nn.Linear(256, 256), nn.ReLU(),
            nn.Linear(256, 10),
        )

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, stride=1, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(16 * 7 * 7, 64), nn.ReLU(),
            nn.Linear(64, 10),
        )

    def forward(self, x):
        return self.net(x)


# --------------------------------------------------------------------------
# training / evaluation
# --------------------------------------------------------------------------
def train(model, xtr, ytr, epochs, seed):
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    xt, yt = torch.from_numpy(xtr), torch.from_numpy(ytr)
    n = xt.shape[0]
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(n, generator=g)
        tot, t0 = 0.0, time.time()
        for i in range(0, n, BATCH):
            idx = perm[i:i + BATCH]
            opt.zero_grad()
            loss = F.cross_entropy(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
            tot += loss.item() * idx.numel()
        print(f"    epoch {ep + 1}/{epochs}: loss {tot / n:.4f} ({time.time() - t0:.1f}s)",
              flush=True)


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    correct = 0
    for i in range(0, x.shape[0], 1000):
        pred = model(torch.from_numpy(x[i:i + 1000])).argmax(1).numpy()
        correct += int((pred == y[i:i + 1000]).sum())
    return correct / x.shape[0]


# --------------------------------------------------------------------------
# ONNX export and an independent numpy check of the exported graph
# --------------------------------------------------------------------------
def export(model, path):
    model.eval()
    dummy = torch.zeros(1, 1, 28, 28)
    # TrainingMode.PRESERVE on an eval()-mode model exports inference
    # semantics but skips the EVAL-only peephole pass that fuses Conv+BN, and
    # do_constant_folding=False keeps the BatchNormalization node in the graph.
    torch.onnx.export(
        model, dummy, path,
        opset_version=OPSET,
        input_names=["input"], output_names=["logits"],
        dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}},
        do_constant_folding=False,
        training=torch.onnx.TrainingMode.PRESERVE,
    )
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    return m


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def numpy_run(m, x):
    """Tiny reference interpreter for the ops the zoo uses (float64)."""
    env = {t.name: onnx.numpy_helper.to_array(t).astype(np.float64)
           if t.data_type == onnx.TensorProto.FLOAT else onnx.numpy_helper.to_array(t)
           for t in m.graph.initializer}
    env[m.graph.input[0].name] = x.astype(np.float64)
    for nd in m.graph.node:
        a, i = _attrs(nd), [env[n] if n else None for n in nd.input]
        op = nd.op_type
        if op == "Flatten":
            ax = a.get("axis", 1)
            out = i[0].reshape(int(np.prod(i[0].shape[:ax])), -1)
        elif op == "Gemm":
            A = i[0].T if a.get("transA", 0) else i[0]
            B = i[1].T if a.get("transB", 0) else i[1]
            out = a.get("alpha", 1.0) * A @ B
            if len(i) > 2 and i[2] is not None:
                out = out + a.get("beta", 1.0) * i[2]
        elif op == "MatMul":
            out = i[0] @ i[1]
        elif op == "Add":
            out = i[0] + i[1]
        elif op == "Relu":
            out = np.maximum(i[0], 0)
        elif op == "Reshape":
            out = i[0].reshape([d if d != 0 else i[0].shape[k]
                                for k, d in enumerate(i[1].tolist())])
        elif op == "BatchNormalization":
            X, s, b, mu, var = i[:5]
            sh = (1, -1) + (1,) * (X.ndim - 2)
            out = (X - mu.reshape(sh)) / np.sqrt(var.reshape(sh) + a.get("epsilon", 1e-5)) \
                * s.reshape(sh) + b.reshape(sh)
        elif op == "Conv":
            X, W = i[0], i[1]
            p = a.get("pads", [0, 0, 0, 0])
            st = a.get("strides", [1, 1])
            assert a.get("group", 1) == 1 and a.get("dilations", [1, 1]) == [1, 1]
            Xp = np.pad(X, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
            kh, kw = W.shape[2:]
            oh = (Xp.shape[2] - kh) // st[0] + 1
            ow = (Xp.shape[3] - kw) // st[1] + 1
            out = np.zeros((X.shape[0], W.shape[0], oh, ow))
            for r in range(kh):
                for c in range(kw):
                    patch = Xp[:, :, r:r + st[0] * oh:st[0], c:c + st[1] * ow:st[1]]
                    out += np.einsum("nchw,oc->nohw", patch, W[:, :, r, c])
            if len(i) > 2 and i[2] is not None:
                out += i[2].reshape(1, -1, 1, 1)
        elif op == "MaxPool":
            k, st = a["kernel_shape"], a.get("strides", a["kernel_shape"])
            assert k == st and not any(a.get("pads", [0])), "only simple pooling"
            n, c, h, w = i[0].shape
            out = i[0][:, :, :h // k[0] * k[0], :w // k[1] * k[1]] \
                .reshape(n, c, h // k[0], k[0], w // k[1], k[1]).max(axis=(3, 5))
        else:
            raise NotImplementedError(op)
        env[nd.output[0]] = out
    return env[m.graph.output[0].name]


def n_params(model):
    return sum(p.numel() for p in model.parameters())


# --------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                    help="output directory (default: this script's folder)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = lambda name: os.path.join(args.out, name)

    torch.manual_seed(SEED)
    np.random.seed(SEED)
    torch.set_num_threads(2)

    t_all = time.time()
    xtr, ytr = load_split("train")
    xte, yte = load_split("t10k")
    print(f"train {xtr.shape} test {xte.shape}", flush=True)

    sample = xte[:1].copy()                # [1,1,28,28] float32
    sample_label = int(yte[0])
    batch = xte[:64].copy()                # [64,1,28,28] float32

    acc_json, expected = {}, {}
    for name, cls in (("mlp", MLP), ("cnn", CNN)):
        torch.manual_seed(SEED)            # same init seed for each model
        model = cls()
        print(f"{name}: {n_params(model)} parameters, {EPOCHS[name]} epochs", flush=True)
        t0 = time.time()
        train(model, xtr, ytr, EPOCHS[name], SEED)
        train_s = time.time() - t0
        acc = accuracy(model, xte, yte)
        print(f"{name}: test accuracy {acc:.4f} on {xte.shape[0]} images "
              f"(trained in {train_s:.1f}s)", flush=True)

        path = out(f"{name}.onnx")
        m = export(model, path)
        ops = [nd.op_type for nd in m.graph.node]
        print(f"{name}: exported {path} ({os.path.getsize(path)} bytes) ops={ops}", flush=True)
        if name == "cnn":
            assert "BatchNormalization" in ops, "BN was folded away during export"

        with torch.no_grad():
            logits = model(torch.from_numpy(sample)).numpy().astype(np.float32)
            blog = model(torch.from_numpy(batch)).numpy()
        ref = numpy_run(m, batch)
        diff = float(np.abs(ref - blog).max())
        print(f"{name}: numpy re-run of the ONNX graph vs torch on 64 images: "
              f"max |diff| {diff:.3g}", flush=True)
        assert diff < 1e-3, "exported graph disagrees with torch"

        acc_json[name] = {
            "test_accuracy": acc,
            "test_samples": int(xte.shape[0]),
            "dataset": DATASET_NAME,
            "epochs": EPOCHS[name],
            "seed": SEED,
            "parameters": n_params(model),
            "opset": OPSET,
            "torch_version": torch.__version__,
        }
        expected[name] = {
            "logits": [[float(v) for v in logits[0]]],
            "argmax": int(logits[0].argmax()),
        }

    with open(out("accuracy.json"), "w") as f:
        json.dump(acc_json, f, indent=2)
        f.write("\n")

    expected["input"] = "sample_input.json"
    expected["label"] = sample_label
    with open(out("expected_outputs.json"), "w") as f:
        json.dump(expected, f, indent=2)
        f.write("\n")

    # float(np.float32) is the exact float32 value; its repr round-trips
    # through both strtof and strtod.
    with open(out("sample_input.json"), "w") as f:
        json.dump([[[[float(v) for v in row] for row in ch] for ch in img]
                   for img in sample], f, separators=(",", ":"))
        f.write("\n")
    with open(out("sample_label.txt"), "w") as f:
        f.write(f"{sample_label}\n")
    np.save(out("sample_input.npy"), sample)
    np.save(out("sample_batch.npy"), batch)

    print(f"done in {time.time() - t_all:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
