/* Compressed BN254 points: G1 in 32 bytes, G2 in 64 bytes, the x-coordinate
 * plus two flag bits, in the two layouts that snarkjs (ffjavascript) and
 * arkworks (ark-serialize CanonicalSerialize with Compress::Yes) write.
 *
 * Checked against the libraries' sources and output (tests/unit/
 * test_prover_compress.c, vectors in tests/vectors/compress_vectors.h):
 *
 *   snarkjs   ffjavascript 0.3.1 / wasmcurves 0.2.2, G1/G2.toRprCompressed
 *             (g1m/g2m_LEMtoC): the canonical x big-endian; for G2 x.c1
 *             first, then x.c0 (the 64 Fq2 bytes c0|c1 little-endian,
 *             reversed as a whole).  Flags in byte 0: 0x80 when y > -y,
 *             0x40 for infinity, which is written as 0x40 then zeros.
 *   arkworks  ark-ec 0.4/0.5 serialize_with_mode / SWFlags: the canonical x
 *             little-endian; for G2 x.c0 then x.c1.  Flags in the last byte
 *             (31 or 63): 0x80 (SWFlags::YIsNegative) when y > -y, 0x40
 *             (PointAtInfinity) for infinity, written as zeros then 0x40.
 *             (ark-ec 0.3 named the bits differently, PositiveY = 0x80
 *             when y > -y, with the same bytes.)
 *   Each arkworks encoding is the snarkjs encoding of the same point with
 *   its bytes in reverse order.
 *
 * "y > -y" is the same order in both: for Fq, the canonical integer y is
 * above (p-1)/2; for Fq2, compare y.c1 that way, and y.c0 when y.c1 = 0
 * (wasmcurves f2m_sign; ark-ff's Ord for QuadExtField, c1 first).
 *
 * Decompression accepts exactly the encodings these writers produce, so a
 * decoded point compresses back to the same bytes:
 *   - flags 0x40 with every other bit zero is infinity; 0x40 with any other
 *     bit set (0xC0 included) is rejected (snarkjs would read any byte with
 *     0x40 as infinity; arkworks ignores x under the infinity flag);
 *   - the x integer (flags cleared) must be below p (snarkjs does not check);
 *   - x^3 + b must be a square (the point is on the curve);
 *   - G2: the point must be in the order-r subgroup (nnc_prv_g2_is_valid);
 *     G1 has cofactor 1.
 * Failures return NNC_STATUS_INVALID with one line in err.
 *
 * Timing: the points are public; compression is constant time, the G2
 * subgroup check in decompression is not.  Thread safety: no state. */
#ifndef NNC_PRV_COMPRESS_IMPL_H
#define NNC_PRV_COMPRESS_IMPL_H

#include "nncert/prover.h"

/* The compression API is declared in nncert/prover.h. */

#endif
