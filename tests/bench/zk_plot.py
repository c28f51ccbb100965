#!/usr/bin/env python3
"""Bar chart (SVG, no plotting library needed) of constraints per MAC by model
and privacy setting, from results/zk.csv.  usage: zk_plot.py CSV SVG"""
import csv
import math
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
W, H, L, B, T = 760, 380, 70, 90, 40
colors = {"input": "#3b6ea5", "weights": "#c8553d", "both": "#6a994e"}
vals = [float(r["constraints_per_mac"]) for r in rows]
top = max(1.0, 10 ** math.ceil(math.log10(max(vals))))
lo = 10 ** math.floor(math.log10(min(v for v in vals if v > 0)))
def y(v):  # log scale
    return T + (H - T - B) * (1 - (math.log10(max(v, lo)) - math.log10(lo)) / (math.log10(top) - math.log10(lo)))
bw = (W - L - 20) / max(1, len(rows))
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
       f'<text x="{W/2}" y="20" text-anchor="middle" font-size="14">nncert circuits: R1CS constraints per multiply-accumulate (log scale)</text>']
e = math.log10(lo)
while e <= math.log10(top) + 1e-9:
    v = 10 ** e
    out.append(f'<line x1="{L}" x2="{W-20}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
    out.append(f'<text x="{L-6}" y="{y(v)+4:.1f}" text-anchor="end">{v:g}</text>')
    e += 1
for i, r in enumerate(rows):
    v = float(r["constraints_per_mac"])
    x = L + i * bw + 4
    out.append(f'<rect x="{x:.1f}" y="{y(v):.1f}" width="{bw-8:.1f}" height="{H-B-y(v):.1f}" fill="{colors.get(r["privacy"], "#888")}"/>')
    out.append(f'<text x="{x+(bw-8)/2:.1f}" y="{y(v)-4:.1f}" text-anchor="middle">{v:.3g}</text>')
    out.append(f'<text transform="translate({x+(bw-8)/2:.1f},{H-B+12}) rotate(35)">{r["model"]} / {r["privacy"]}</text>')
out.append(f'<text transform="translate(18,{(H-B+T)/2}) rotate(-90)" text-anchor="middle">constraints per MAC</text>')
out.append("</svg>")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
