#!/usr/bin/env python3
"""Independent check of an nncert gate attestation, without nncert's code:
Python's json module re-serialises the summary (sorted keys, compact
separators, no ASCII escaping: the canonical form nncert/gate.h describes),
the 'cryptography' package verifies the Ed25519 signature, hashlib checks the
SHA-256 of every file the summary names.
Usage: attest_check.py SUMMARY PUBKEY BASEDIR   (paths in the summary are
relative to BASEDIR, the config's folder).  Exit 0 valid, 1 invalid, 77 when
the 'cryptography' package is missing."""
import hashlib
import json
import os
import sys

try:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.exceptions import InvalidSignature
except ImportError:
    print("attest_check: python3-cryptography missing")
    sys.exit(77)


def main():
    summary, pubkey, base = sys.argv[1:4]
    doc = json.load(open(summary, encoding="utf-8"))
    sig = doc.pop("signature")
    line = open(pubkey).read().strip()
    assert line.startswith("ed25519-public:")
    pk = bytes.fromhex(line.split(":", 1)[1])
    msg = b"nncert-attestation-v1\n" + json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    try:
        Ed25519PublicKey.from_public_bytes(pk).verify(bytes.fromhex(sig["value"]), msg)
    except InvalidSignature:
        print("attest_check: signature does not verify")
        sys.exit(1)

    def sha(p):
        return hashlib.sha256(open(os.path.join(base, p), "rb").read()).hexdigest()

    n = 0
    cfg = doc["config"]
    if sha(os.path.basename(cfg["path"])) != cfg["sha256"]:
        print("attest_check: config hash differs")
        sys.exit(1)
    for c in doc["checks"]:
        for role in ("model", "spec", "verification_key", "public", "proof"):
            if role in c:
                n += 1
                if sha(c[role]["path"]) != c[role]["sha256"]:
                    print("attest_check: %s of %s: hash differs" % (role, c["name"]))
                    sys.exit(1)
    print("attest_check: signature and %d file hashes OK" % (n + 1))


main()
