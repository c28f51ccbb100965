#!/usr/bin/python3
"""Re-export an ONNX model whose inputs declare a fixed batch of 1 with a
symbolic batch dimension "N", so that onnxruntime can run it at any batch
(make bench times static-batch VNN-COMP files this way).

    dynamic_batch.py IN.onnx OUT.onnx

The first dimension of every graph input and output, and of every value_info,
becomes "N".  A model with a Reshape is refused (its target shape may fix the
batch); Flatten with axis 1 and the per-sample operators are batch-agnostic.
Exit 0, 1 when the model cannot be converted, 2 on usage errors."""
import sys

import onnx


def main(argv):
    if len(argv) != 3:
        print("usage: dynamic_batch.py IN.onnx OUT.onnx", file=sys.stderr)
        return 2
    model = onnx.load(argv[1])
    g = model.graph
    bad = [n.op_type for n in g.node if n.op_type in ("Reshape", "Expand", "Tile", "ConstantOfShape")]
    if bad:
        print(f"dynamic_batch: {argv[1]}: {bad[0]} may fix the batch; not converted", file=sys.stderr)
        return 1
    flat = [n for n in g.node if n.op_type == "Flatten" and any(a.name == "axis" and a.i != 1 for a in n.attribute)]
    if flat:
        print(f"dynamic_batch: {argv[1]}: Flatten with axis != 1 mixes the batch; not converted", file=sys.stderr)
        return 1
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        dims = vi.type.tensor_type.shape.dim
        if len(dims) == 0:
            continue
        if dims[0].HasField("dim_value") and dims[0].dim_value != 1:
            print(f"dynamic_batch: {argv[1]}: '{vi.name}' declares batch {dims[0].dim_value}, not 1", file=sys.stderr)
            return 1
        dims[0].ClearField("dim_value")
        dims[0].dim_param = "N"
    onnx.checker.check_model(model)
    onnx.save(model, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
