#!/usr/bin/env python3
"""check_schema.py SCHEMA FILE...: validate each JSON FILE against the JSON
Schema (draft 2020-12) SCHEMA with python3-jsonschema.  Prints one line per
failing file (its first error, with the path inside the document) and exits
1 when any fails; exits 77 when jsonschema is not installed (the caller
skips)."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("check_schema.py: python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(77)


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    with open(argv[1]) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    v = cls(schema)
    bad = 0
    for path in argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errs:
            e = errs[0]
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print(f"{path}: {where}: {e.message}")
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
