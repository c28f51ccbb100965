#!/usr/bin/env python3
"""Start-up cost of nncert: wall time and peak RSS of short commands.

usage: bench_startup.py [--runs N] [--warmup W] LABEL=BINARY [LABEL=BINARY ...] -- ARGS [-- ARGS ...]

Each binary runs each argument list N times after W warm-up runs, the
binaries alternating run by run so that a change in machine load hits them
alike.  Each run is timed from posix_spawn to wait4 of /usr/bin/time, which runs
the command and reports its peak RSS (wait4's ru_maxrss); the time thus
includes starting GNU time (about a millisecond, the same for every binary).  Prints one CSV record per binary and command:
label,binary,command,runs,median_s,min_s,max_s,median_rss_kib,cuda_libs,load1
(cuda_libs: the CUDA libraries ldd lists for the binary; load1: the
one-minute load average before the runs)."""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

TIME = "/usr/bin/time"  # GNU time (Debian package time)


def cuda_libs(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    names = sorted(set(re.findall(r"lib(?:cudart|cublasLt|cublas|curand|nccl|cuda)\.so[.0-9]*", out)))
    return " ".join(names) if names else "none"


def run_once(argv, rss_file):
    # The peak RSS comes from GNU time's wait4 on its own fork: a child
    # forked from this interpreter would carry the interpreter's RSS into its
    # ru_maxrss (the kernel keeps the pre-exec peak).
    t0 = time.perf_counter()
    pid = os.posix_spawn(TIME, [TIME, "-f", "%M", "-o", rss_file] + argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                       (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, status, _ = os.wait4(pid, 0)
    dt = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        sys.exit(f"bench_startup: {' '.join(argv)} exited {rc}")
    with open(rss_file) as f:
        return dt, int(f.read().split()[-1])


def main():
    args = sys.argv[1:]
    runs, warmup = 5, 1
    while args and args[0].startswith("--") and args[0] != "--":
        opt = args.pop(0)
        if opt == "--runs":
            runs = int(args.pop(0))
        elif opt == "--warmup":
            warmup = int(args.pop(0))
        else:
            sys.exit(__doc__)
    bins, cmds = [], []
    while args and args[0] != "--":
        label, _, path = args.pop(0).partition("=")
        bins.append((label, path))
    while args:
        args.pop(0)
        cmd = []
        while args and args[0] != "--":
            cmd.append(args.pop(0))
        cmds.append(cmd)
    if not bins or not cmds:
        sys.exit(__doc__)
    rss_file = tempfile.NamedTemporaryFile(prefix="bench_startup.", delete=False).name
    print("label,binary,command,runs,median_s,min_s,max_s,median_rss_kib,cuda_libs,load1")
    for cmd in cmds:
        load1 = os.getloadavg()[0]
        for _ in range(warmup):
            for _, b in bins:
                run_once([b] + cmd, rss_file)
        res = {b: ([], []) for _, b in bins}
        for _ in range(runs):
            for _, b in bins:
                dt, rss = run_once([b] + cmd, rss_file)
                res[b][0].append(dt)
                res[b][1].append(rss)
        for label, b in bins:
            ts, rs = res[b]
            shown = " ".join(os.path.basename(c) if c.startswith("/") else c for c in cmd)
            print(f"{label},{b},{shown},{runs},{statistics.median(ts):.4f},{min(ts):.4f},{max(ts):.4f},"
                  f"{int(statistics.median(rs))},{cuda_libs(b)},{load1:.2f}")
    os.unlink(rss_file)


if __name__ == "__main__":
    main()
