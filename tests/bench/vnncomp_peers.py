#!/usr/bin/env python3
"""make bench-verify, second half: score nncert's per-instance results and the
published VNN-COMP results of the other tools on the same instances.

Input: the per-instance CSV written by bench_verify.sh
(family,onnx,vnnlib,timeout_s,consensus,nncert_result,solved,wrong,time_s,frac_lo,frac_hi,
max_rss_mib; the last absent or empty in rows of runs before it was measured)
and the data folder (../shared/data/verification, see its MANIFEST.md).

Official result files (all years), one row per instance and tool:
    category,onnx_path,vnnlib_path,prepare_time_s,result,run_time_s
  2021  results/vnncomp2021/results_csv/<Tool>.csv, all categories in one file;
        answers holds/violated (a-b-CROWN: UNSAT/SAT)
  2022  results/vnncomp2022/<tool>/{acasxu,mnist_fc}/results.csv      (sat/unsat)
  2023  results/vnncomp2023/<tool>/{2023_acasxu,2022_mnist_fc}/results.csv
  2024  results/vnncomp2024/<tool>/2024_acasxu_2023/results.csv
Rows are matched to our instances by (onnx file name, vnnlib file name), which is
unique within each family. 2021 `mnistfc` is not used: its vnnlib files differ
from the 2022 files of the same names that mnist_fc/ holds (MANIFEST.md).

A peer answer counts as solved when it matches the consensus (holds/unsat on an
unsat instance, violated/sat on a sat one) and as wrong when it contradicts it;
answers on consensus-unknown instances count as neither. Answers are taken as
published (no re-check of run time against the timeout, no counterexample
replay). total_time_solved_s sums run_time_s (wall clock on the organisers'
hardware, including each tool's start-up overhead; prepare time excluded) over
the solved instances.

Writes the summary CSV (tool,year,family,instances,solved,wrong,total_time_solved_s,
interval_width_median,interval_width_max: nncert's violation-fraction interval
widths over the family, empty for the peers, which report no fraction;
max_rss_mib_max, rss_rows: nncert's largest peak memory over the family's rows
that have one, and how many have one; empty for the peers),
prints a short table (nncert and the best tool of each year: most solved, then
least time) and returns 0.
"""
import argparse
import csv
import glob
import os
import sys

# family -> list of (year, glob of result files, category filter or None)
SOURCES = {
    "acasxu": [
        (2021, "vnncomp2021/results_csv/*.csv", "acasxu"),
        (2022, "vnncomp2022/*/acasxu/results.csv", None),
        (2023, "vnncomp2023/*/2023_acasxu/results.csv", None),
        (2024, "vnncomp2024/*/2024_acasxu_2023/results.csv", None),
    ],
    "mnist_fc": [
        (2022, "vnncomp2022/*/mnist_fc/results.csv", None),
        (2023, "vnncomp2023/*/2022_mnist_fc/results.csv", None),
    ],
    "eran": [(2021, "vnncomp2021/results_csv/*.csv", "eran")],
    "verivital": [(2021, "vnncomp2021/results_csv/*.csv", "verivital")],
    "cifar10_resnet": [(2021, "vnncomp2021/results_csv/*.csv", "cifar10_resnet")],
}

ANSWER = {"holds": "unsat", "unsat": "unsat", "violated": "sat", "sat": "sat"}


def key(onnx, vnnlib):
    return (os.path.basename(onnx.strip()), os.path.basename(vnnlib.strip()))


def consensus_answer(c):
    c = c.strip()
    if c.startswith("unsat"):      # "unsat(conflict)" is resolved as unsat
        return "unsat"
    if c.startswith("sat"):
        return "sat"
    return None


def tool_name(path, year):
    if year == 2021:
        return os.path.splitext(os.path.basename(path))[0]
    # results/vnncomp20XX/<tool>/<category>/results.csv
    return os.path.basename(os.path.dirname(os.path.dirname(path)))


def interval_widths(inst):
    """Median and largest width frac_hi - frac_lo of nncert's violation-
    fraction interval over a family's instances (None when no row has one;
    peers report no fraction, so their columns stay empty)."""
    w = []
    for r in inst:
        try:
            w.append(float(r["frac_hi"]) - float(r["frac_lo"]))
        except (KeyError, ValueError):
            pass
    if not w:
        return None
    w.sort()
    m = len(w) // 2
    return ((w[m] if len(w) % 2 else 0.5 * (w[m - 1] + w[m])), w[-1])


def peak_memory(inst):
    """Largest max_rss_mib over a family's rows that have one, and how many
    have one (None when none has: rows of runs before it was measured)."""
    m = []
    for r in inst:
        try:
            m.append(float(r.get("max_rss_mib") or ""))
        except ValueError:
            pass
    return (max(m), len(m)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--nncert", required=True, help="per-instance CSV of this run")
    ap.add_argument("--year", required=True, type=int)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cap", type=float, default=None,
                    help="per-instance time cap of this run (s): a peer's answer "
                         "counts as solved only within it, as nncert's does")
    a = ap.parse_args()

    # this run's instances, per family, in order
    fams = {}
    with open(a.nncert, newline="") as f:
        for r in csv.DictReader(f):
            fams.setdefault(r["family"], []).append(r)

    rows = []          # (tool, year, family, instances, solved, wrong, time)
    widths = {}        # family -> nncert's (median, max) violation-interval width
    memory = {}        # family -> nncert's (largest peak MiB, rows measured)
    best = []          # (family, year, tool, solved, wrong, time)
    for fam, inst in fams.items():
        n = len(inst)
        cons = {key(r["onnx"], r["vnnlib"]): consensus_answer(r["consensus"]) for r in inst}
        s = sum(int(r["solved"]) for r in inst)
        w = sum(int(r["wrong"]) for r in inst)
        t = sum(float(r["time_s"]) for r in inst if r["solved"] == "1")
        widths[fam] = interval_widths(inst)
        memory[fam] = peak_memory(inst)
        rows.append(("nncert", a.year, fam, n, s, w, t))

        for year, pattern, category in SOURCES.get(fam, []):
            peers = []
            for path in sorted(glob.glob(os.path.join(a.data, "results", pattern))):
                seen = set()
                s = w = 0
                t = 0.0
                with open(path, newline="") as f:
                    for line in csv.reader(f):
                        if len(line) < 6:
                            continue
                        if category is not None and line[0].strip() != category:
                            continue
                        k = key(line[1], line[2])
                        if k not in cons or k in seen:
                            continue
                        seen.add(k)
                        ans = ANSWER.get(line[4].strip().lower())
                        want = cons[k]
                        if ans is None or want is None:
                            continue
                        try:
                            took = float(line[5])
                        except ValueError:
                            took = None
                        if ans == want and a.cap is not None and (took is None or took > a.cap):
                            continue    # right, but after this run's cap
                        if ans == want:
                            s += 1
                            try:
                                t += float(line[5])
                            except ValueError:
                                pass
                        else:
                            w += 1
                if not seen:
                    continue        # this tool did not enter this category
                tool = tool_name(path, year)
                if len(seen) < n:
                    print(f"bench-verify: note: {tool}@{year} has results for "
                          f"{len(seen)} of {n} {fam} instances", file=sys.stderr)
                peers.append((tool, year, fam, n, s, w, t))
            rows.extend(peers)
            if peers:
                b = min(peers, key=lambda p: (-p[4], p[6]))
                best.append((fam, year, b[0], b[4], b[5], b[6]))

    with open(a.out, "w", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["tool", "year", "family", "instances", "solved", "wrong",
                     "total_time_solved_s", "interval_width_median", "interval_width_max",
                     "max_rss_mib_max", "rss_rows"])
        for r in rows:
            wd = widths.get(r[2]) if r[0] == "nncert" else None
            mm = memory.get(r[2]) if r[0] == "nncert" else None
            wr.writerow(list(r[:6]) + [f"{r[6]:.3f}"] +
                        ([f"{wd[0]:.6g}", f"{wd[1]:.6g}"] if wd else ["", ""]) +
                        ([f"{mm[0]:.1f}", mm[1]] if mm else ["", ""]))

    fmt = "{:<10} {:<28} {:>9} {:>6} {:>5} {:>15}"
    print(fmt.format("family", "tool", "instances", "solved", "wrong", "time_solved_s"))
    for fam in fams:
        for r in rows:
            if r[0] == "nncert" and r[2] == fam:
                print(fmt.format(fam, f"nncert ({r[1]}, this machine)", r[3], r[4], r[5],
                                 f"{r[6]:.1f}"))
                if memory.get(fam):
                    print(f"{'':<10} nncert peak memory: {memory[fam][0]:.1f} MiB "
                          f"(largest of {memory[fam][1]} measured instances)")
        for bf, year, tool, s, w, t in best:
            if bf == fam:
                print(fmt.format(fam, f"best {year}: {tool}", len(fams[fam]), s, w,
                                 f"{t:.1f}"))
    wrong_peers = [r for r in rows if r[0] != "nncert" and r[5] > 0]
    if wrong_peers:
        print("peers with answers contradicting the consensus: " +
              ", ".join(f"{r[0]}@{r[1]} {r[2]} ({r[5]})" for r in wrong_peers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
