"""BN254 arithmetic with python ints, shared by the generators
prover/gen_constants.py and prover/gen_pairing_constants.py (imported from
the script's folder, so they run from any working directory).  Written
independently of the C code: the C constants and test vectors are checked
against what these plain formulas give."""

P = 21888242871839275222246405745257275088696311157297823662689037894645226208583
R = 21888242871839275222246405745257275088548364400416034343698204186575808495617
B = 1 << 256

# the generators of G1 and of G2 (on the twist), affine
G1 = (1, 2)
G2X = (10857046999023057135944570762232829481370756359578518086990519993285655852781,
       11559732032986387107991004021392285783925812861821192530917403151452391805634)
G2Y = (8495653923123431417604973247489272438418190587263600148770280649306958101930,
       4082367875863433681332203403145435568316851327593401208105741076214120093531)


def limbs(x):
    """A C initialiser of 4 little-endian 64-bit limbs."""
    return "{" + ", ".join("0x%016xULL" % ((x >> (64 * i)) & (2**64 - 1)) for i in range(4)) + "}"


def mont(x, m=P):
    """x in Montgomery form modulo m (R = 2^256)."""
    return (x * B) % m


# ---- Fq2 = Fq[u]/(u^2 + 1), pairs (c0, c1) ----
def f2add(a, b):
    return ((a[0] + b[0]) % P, (a[1] + b[1]) % P)


def f2sub(a, b):
    return ((a[0] - b[0]) % P, (a[1] - b[1]) % P)


def f2mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)


def f2pow(a, e):
    r = (1, 0)
    while e:
        if e & 1:
            r = f2mul(r, a)
        a = f2mul(a, a)
        e >>= 1
    return r


def f2inv(a):
    n = pow(a[0] * a[0] + a[1] * a[1], P - 2, P)
    return (a[0] * n % P, (-a[1]) * n % P)


# ---- affine points on y^2 = x^3 + b, None is infinity ----
def aff_add(a, b, F):
    """Affine addition; F: (add, sub, mul, inv, zero) of the coordinate field."""
    add, sub, mul, inv, zero = F
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0]:
        if add(a[1], b[1]) == zero:
            return None
        lam = mul(mul(mul(a[0], a[0]), 3 if zero == 0 else (3, 0)), inv(add(a[1], a[1])))
    else:
        lam = mul(sub(b[1], a[1]), inv(sub(b[0], a[0])))
    x = sub(sub(mul(lam, lam), a[0]), b[0])
    y = sub(mul(lam, sub(a[0], x)), a[1])
    return (x, y)


def aff_mul(k, a, F):
    """[k]a by double and add."""
    r = None
    while k:
        if k & 1:
            r = aff_add(r, a, F)
        a = aff_add(a, a, F)
        k >>= 1
    return r


F1 = (lambda a, b: (a + b) % P, lambda a, b: (a - b) % P, lambda a, b: a * b % P,
      lambda a: pow(a, P - 2, P), 0)
F2 = (f2add, f2sub, f2mul, f2inv, (0, 0))
