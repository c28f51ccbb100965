#!/usr/bin/env python3
"""libnncert.so exports exactly the declared API (issue 23).

Usage: api_check.py LIBRARY MAKEFILE [HEADER...]

The API is every function a public header declares with NNC_API (the
headers are those of the Makefile's PUBLIC_HEADERS, or the HEADERs given).
The exports are the defined symbols of LIBRARY's dynamic symbol table
(nm -D --defined-only).  Prints the names missing from either side and
exits 1 when the two sets differ (a function the headers declare but the
library does not export, or a symbol exported that no header declares),
0 when they are equal, 2 on a usage error.  It also refuses a library
without a SONAME.
"""
import glob
import os
import re
import subprocess
import sys


def public_headers(makefile):
    text = open(makefile).read().replace("\\\n", " ")
    m = re.search(r"^PUBLIC_HEADERS\s*:?=(.*)$", text, re.M)
    if not m:
        sys.exit("api_check: no PUBLIC_HEADERS in %s" % makefile)
    # $(wildcard PATTERN) words are globbed, relative to the Makefile's folder
    words, base = [], os.path.dirname(os.path.abspath(makefile))
    for w in re.sub(r"\$\(wildcard\s+([^)]*)\)", lambda g: " ".join(
            sorted(os.path.relpath(p, base) for pat in g.group(1).split()
                   for p in glob.glob(os.path.join(base, pat)))), m.group(1)).split():
        words.append(os.path.join(base, w) if not os.path.isabs(w) else w)
    return words


def declared(headers):
    names = {}
    for h in headers:
        src = open(h).read()
        src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)  # comments (the macro's own text names NNC_API)
        src = re.sub(r"^\s*#\s*define\s+NNC_API\b.*$", " ", src, flags=re.M)
        for m in re.finditer(r"\bNNC_API\b([^;{]*?)\b([A-Za-z_]\w*)\s*\(", src):
            names[m.group(2)] = h
    return names


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "TtWwDdBbRrVvi":
            names.add(parts[2].split("@")[0])
    return names


def soname(lib):
    out = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True, check=True).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
    return m.group(1) if m else None


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    lib, makefile = argv[1], argv[2]
    headers = argv[3:] or public_headers(makefile)
    api = declared(headers)
    exp = exported(lib)
    bad = 0
    for n in sorted(set(api) - exp):
        print("declared, not exported: %s (%s)" % (n, api[n]))
        bad = 1
    for n in sorted(exp - set(api)):
        print("exported, not declared: %s" % n)
        bad = 1
    so = soname(lib)
    if not so:
        print("no SONAME in %s" % lib)
        bad = 1
    print("%d functions declared, %d symbols exported, soname %s" % (len(api), len(exp), so))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
