#!/usr/bin/env python3
"""The library's object-level dependency graph must be acyclic (issue 23).

Usage: deps_check.py OBJDIR [--layers "common models ..."]

Reads the symbol tables (nm) of every object under OBJDIR (the build's
obj/, leaving out gen/ and cli/: the generated protobuf bindings and the
front end, which sit on top), links each undefined symbol to the object that
defines it, and checks that the graph between source files, and the graph
between folders (common, models, specs, verifier, prover, zk, dist, gpu, gate),
has no cycle.  With --layers (the Makefile's MODULES, lowest first) every
folder must be a listed layer and call only layers listed before it.  Prints
each cycle and each upward call found, and the folder edges; exits 1 when
there is one, 2 on a usage error.
"""
import collections
import os
import subprocess
import sys

SKIP = ("gen", "cli")


def objects(objdir):
    for root, dirs, files in os.walk(objdir):
        rel = os.path.relpath(root, objdir)
        if rel.split(os.sep)[0] in SKIP:
            continue
        for f in sorted(files):
            if f.endswith(".o"):
                yield os.path.join(root, f), os.path.join(rel, f[:-2] + ".c").lstrip("./")


def graph(objdir):
    defined, wanted = {}, collections.defaultdict(set)
    for path, src in objects(objdir):
        out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRVW":
                defined.setdefault(f[2], src)
            elif len(f) == 2 and f[0] == "U":
                wanted[src].add(f[1])
    edges = collections.defaultdict(set)
    for src, syms in wanted.items():
        for s in syms:
            d = defined.get(s)
            if d is not None and d != src:
                edges[src].add(d)
    return set(wanted) | set(defined.values()), edges


def cycles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, onstack, stack, out, n = {}, {}, set(), [], [], 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        onstack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    onstack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in onstack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    onstack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main():
    args = sys.argv[1:]
    layers = None
    if len(args) == 3 and args[1] == "--layers":
        layers = args[2].split()
        args = args[:1]
    if len(args) != 1 or not os.path.isdir(args[0]) or layers == []:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    nodes, edges = graph(args[0])
    if not nodes:
        print("deps_check: no objects under " + sys.argv[1], file=sys.stderr)
        return 2
    bad = 0
    for comp in cycles(nodes, edges):
        print("file cycle: " + " ".join(comp))
        bad = 1
    top = lambda s: s.split("/")[0]
    fedges = collections.defaultdict(set)
    for a, bs in edges.items():
        for b in bs:
            if top(a) != top(b):
                fedges[top(a)].add(top(b))
    for comp in cycles({top(s) for s in nodes}, fedges):
        print("folder cycle: " + " ".join(comp))
        bad = 1
    if layers is not None:
        rank = {m: i for i, m in enumerate(layers)}
        for f in sorted({top(s) for s in nodes} - set(rank)):
            print("folder %s is not a listed layer" % f)
            bad = 1
        for a, bs in edges.items():
            for b in sorted(bs):
                if top(a) in rank and top(b) in rank and rank[top(b)] >= rank[top(a)] and top(a) != top(b):
                    print("upward call: %s (layer %s) calls %s (layer %s)" % (a, top(a), b, top(b)))
                    bad = 1
    for a in sorted(fedges):
        print("folder %s -> %s" % (a, " ".join(sorted(fedges[a]))))
    print("%d objects, %d file edges: %s" % (len(nodes), sum(len(b) for b in edges.values()),
                                              "a cycle or an upward call" if bad else
                                              "acyclic" + (", layered as listed" if layers else "")))
    return bad


if __name__ == "__main__":
    sys.exit(main())
