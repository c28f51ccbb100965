#!/usr/bin/python3
"""torch.nn.EmbeddingBag (CPU, mode sum) on the data bench_embbag wrote:
    embbag_torch.py DIM ROWS BAGS LEN ZIPF THREADS REPS IDS TABLE
prints the same CSV record as bench_embbag (impl "torch")."""
import sys
import time

import numpy as np
import torch

dim, rows, bags, ln = (int(v) for v in sys.argv[1:5])
zipf = float(sys.argv[5])
threads, reps = int(sys.argv[6]), int(sys.argv[7])
torch.set_num_threads(threads)
ids = torch.from_numpy(np.fromfile(sys.argv[8], dtype="<i8"))
w = torch.from_numpy(np.fromfile(sys.argv[9], dtype="<f4").reshape(rows, dim))
eb = torch.nn.EmbeddingBag(rows, dim, mode="sum", _weight=w)
offsets = torch.arange(0, bags * ln, ln, dtype=torch.int64)
times = []
with torch.no_grad():
    for r in range(reps + 1):
        t0 = time.perf_counter()
        out = eb(ids, offsets)
        if r:
            times.append(time.perf_counter() - t0)
times.sort()
print("torch,%d,%d,%d,%d,%g,%d,%.0f,%.6e" % (dim, rows, bags, ln, zipf, threads, bags * ln / times[reps // 2],
                                            out.double().sum().item()))
