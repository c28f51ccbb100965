#!/usr/bin/env python3
"""Prints the BN254 constants that prover/field_impl.h, prover/tower_impl.h and
prover/curve_impl.h hard-code, as C limb initialisers (little-endian 64-bit
limbs, Montgomery form where the comment says so).  The unit tests
(tests/unit/test_prover_field.c, test_prover_curve.c) recompute every one of
them with GMP, so an edit that breaks a constant fails there.

Usage: python3 prover/gen_constants.py            constants
       python3 prover/gen_constants.py --vectors  curve test vectors (decimal),
           from a plain affine implementation independent of the C code"""
import sys

from gen_bn254 import B, F1, F2, G1, G2X, G2Y, P, R, aff_mul, f2inv, f2mul, f2pow, limbs, mont


def n0(m):
    return (-pow(m, -1, 2**64)) % 2**64


def f2m(a, indent="    "):
    """An nnc_fq2 initialiser on two lines, fully braced (C -Wmissing-braces, C++)."""
    return "{{" + limbs(mont(a[0], P)) + "},\n" + indent + " {" + limbs(mont(a[1], P)) + "}}"


def field(name, m):
    print("/* %s */" % name)
    print("p      ", limbs(m))
    print("n0      0x%016xULL" % n0(m))
    print("R mod p", limbs(B % m))
    print("R^2    ", limbs(B * B % m))
    print("R^3    ", limbs(B * B * B % m))
    print("p-2    ", limbs(m - 2))


if len(sys.argv) > 1 and sys.argv[1] == "--vectors":
    G2 = (G2X, G2Y)
    k = 0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef % R
    print("k =", k)
    for n in (2, 3, k):
        p = aff_mul(n, G1, F1)
        print('G1 * %d = {"%d", "%d"}' % (n, p[0], p[1]))
    for n in (2, k):
        p = aff_mul(n, G2, F2)
        print('G2 * %d = {"%d", "%d", "%d", "%d"}' % (n, p[0][0], p[0][1], p[1][0], p[1][1]))
    sys.exit(0)

field("Fq", P)
print("(p+1)/4", limbs((P + 1) // 4))
print("(p-1)/2", limbs((P - 1) // 2))
field("Fr", R)
s = 0
t = R - 1
while t % 2 == 0:
    t //= 2
    s += 1
print("two-adicity", s)
print("t      ", limbs(t))
print("(t-1)/2", limbs((t - 1) // 2))
print("(r-1)/2", limbs((R - 1) // 2))
g = 5
assert pow(g, (R - 1) // 2, R) == R - 1
print("5 mont ", limbs(mont(5, R)))
print("5^t mont", limbs(mont(pow(5, t, R), R)))

xi = (9, 1)
b2 = f2mul((3, 0), f2inv(xi))
print("b2 = 3/(9+u) =", b2)
print("b2 mont", f2m(b2))
print("3 mont Fq", limbs(mont(3, P)))
print("G1 mont x", limbs(mont(1, P)), "y", limbs(mont(2, P)))
g2x, g2y = G2X, G2Y
lhs = f2mul(g2y, g2y)
rhs = f2mul(f2mul(g2x, g2x), g2x)
rhs = ((rhs[0] + b2[0]) % P, (rhs[1] + b2[1]) % P)
assert lhs == rhs
print("G2 x", f2m(g2x))
print("G2 y", f2m(g2y))

print("Fq6 Frobenius c1[i] = xi^((p^i-1)/3)")
for i in range(6):
    print("    " + f2m(f2pow(xi, (P**i - 1) // 3)) + ",")
print("Fq6 Frobenius c2[i] = xi^(2(p^i-1)/3)")
for i in range(6):
    print("    " + f2m(f2pow(xi, 2 * (P**i - 1) // 3)) + ",")
print("Fq12 Frobenius c1[i] = xi^((p^i-1)/6)")
for i in range(12):
    print("    " + f2m(f2pow(xi, (P**i - 1) // 6)) + ",")
