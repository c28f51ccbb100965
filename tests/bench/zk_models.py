#!/usr/bin/env python3
"""ONNX models for `make bench-zk` with random weights (timing and constraint
counts only): LeNet-5 and a VGG16 (CIFAR variant: 13 3x3 convolutions, 5 max
pools, classifier 512-512-10) on CIFAR-sized 3x32x32 inputs.

usage: zk_models.py OUTDIR    (needs python3-torch and python3-onnx)"""
import os
import sys

import torch
import torch.nn as nn

torch.manual_seed(0)


def lenet5():
    return nn.Sequential(
        nn.Conv2d(3, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(),
        nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def vgg16():
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]
    layers, c = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(2))
        else:
            layers += [nn.Conv2d(c, v, 3, padding=1), nn.ReLU()]
            c = v
    layers += [nn.Flatten(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)]
    return nn.Sequential(*layers)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, net in (("lenet5", lenet5()), ("vgg16", vgg16())):
        net.eval()
        path = os.path.join(out, f"{name}.onnx")
        torch.onnx.export(net, torch.rand(1, 3, 32, 32), path, opset_version=13,
                          input_names=["input"], output_names=["logits"])
        print(f"{path}: {sum(p.numel() for p in net.parameters())} parameters")


if __name__ == "__main__":
    main()
