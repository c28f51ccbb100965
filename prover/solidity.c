/* A Groth16 verifier contract in Solidity for one verification key
 * (nnc_prv_g16_vk_write_solidity; `nncert zkey export solidityverifier`).
 *
 * The contract is nncert's own text.  Its entry point has the signature of
 * snarkjs's exported verifiers, verifyProof(uint[2] pA, uint[2][2] pB,
 * uint[2] pC, uint[N] pubSignals) returns (bool), so the arguments `zkey
 * export soliditycalldata` prints (snarkjs's too) call it unchanged.  It
 * uses the EIP-196/197 precompiles (0x06 add, 0x07 scalar multiplication,
 * 0x08 pairing check) on BN254, whose G2 encoding is x.c1, x.c0, y.c1, y.c0
 * (pB arrives in that order):
 *   vk_x = IC_0 + sum_i pub_i IC_i,
 *   e(-A, B) e(alpha, beta) e(vk_x, gamma) e(C, delta) = 1.
 * A public signal >= r or a coordinate of A or C >= q makes it return false
 * (the precompiles refuse points off the curve, which also returns false);
 * it never reverts on a proof.  The per-signal code is unrolled, so keys
 * with a few hundred public signals approach the 24 KB contract limit
 * (EIP-170). */
#include "prover/formats_impl.h"

#include <stdio.h>

static void put_fq(FILE *f, const char *name, const nnc_prv_fq *a)
{
    char d[100];
    nnc_prv_fq_serialize_dec(d, sizeof d, a);
    fprintf(f, "    uint256 internal constant %s = %s;\n", name, d);
}

static void put_g1(FILE *f, const char *name, const nnc_prv_g1 *p)
{
    char n[64];
    snprintf(n, sizeof n, "%s_X", name);
    put_fq(f, n, &p->x);
    snprintf(n, sizeof n, "%s_Y", name);
    put_fq(f, n, &p->y);
}

/* The EIP-197 order: x.c1, x.c0, y.c1, y.c0. */
static void put_g2(FILE *f, const char *name, const nnc_prv_g2 *p)
{
    char n[64];
    snprintf(n, sizeof n, "%s_X1", name);
    put_fq(f, n, &p->x.c1);
    snprintf(n, sizeof n, "%s_X0", name);
    put_fq(f, n, &p->x.c0);
    snprintf(n, sizeof n, "%s_Y1", name);
    put_fq(f, n, &p->y.c1);
    snprintf(n, sizeof n, "%s_Y0", name);
    put_fq(f, n, &p->y.c0);
}

nnc_status nnc_prv_g16_vk_write_solidity(FILE *f, const nnc_prv_g16_vk *vk)
{
    uint32_t n = vk->n_public;
    if (vk->ic == NULL) return NNC_STATUS_INVALID;
    fprintf(f,
            "// SPDX-License-Identifier: MIT\n"
            "// Written by nncert zkey export solidityverifier: a Groth16 verifier (BN254)\n"
            "// for one verification key with %u public signal%s.\n"
            "pragma solidity >=0.8.4 <0.9.0;\n"
            "\n"
            "contract Groth16Verifier {\n"
            "    // the group order r (public signals are below it) and the base field q\n"
            "    uint256 internal constant R = "
            "21888242871839275222246405745257275088548364400416034343698204186575808495617;\n"
            "    uint256 internal constant Q = "
            "21888242871839275222246405745257275088696311157297823662689037894645226208583;\n"
            "\n"
            "    // the verification key (G2 coordinates in the precompile's order: x.c1, x.c0, y.c1, y.c0)\n",
            n, n == 1 ? "" : "s");
    put_g1(f, "ALPHA", &vk->alpha1);
    put_g2(f, "BETA", &vk->beta2);
    put_g2(f, "GAMMA", &vk->gamma2);
    put_g2(f, "DELTA", &vk->delta2);
    for (uint32_t i = 0; i <= n; i++) {
        char name[32];
        snprintf(name, sizeof name, "IC%u", i);
        put_g1(f, name, &vk->ic[i]);
    }
    fprintf(f,
            "\n"
            "    /// Returns: whether the proof (pA, pB, pC) is valid for the public signals.\n"
            "    function verifyProof(\n"
            "        uint256[2] calldata pA,\n"
            "        uint256[2][2] calldata pB,\n"
            "        uint256[2] calldata pC,\n"
            "        uint256[%u] calldata pubSignals\n"
            "    ) public view returns (bool) {\n"
            "        if (pA[0] >= Q || pA[1] >= Q || pC[0] >= Q || pC[1] >= Q) return false;\n"
            "        uint256 x = IC0_X;\n"
            "        uint256 y = IC0_Y;\n"
            "        bool ok = true;\n",
            n);
    for (uint32_t i = 1; i <= n; i++)
        fprintf(f,
                "        if (pubSignals[%u] >= R) return false;\n"
                "        (ok, x, y) = mulAdd(x, y, IC%u_X, IC%u_Y, pubSignals[%u]);\n"
                "        if (!ok) return false;\n",
                i - 1, i, i, i - 1);
    fprintf(f,
            "        uint256 negAy = pA[1] == 0 ? 0 : Q - pA[1];\n"
            "        uint256[24] memory input = [\n"
            "            pA[0], negAy, pB[0][0], pB[0][1], pB[1][0], pB[1][1],\n"
            "            ALPHA_X, ALPHA_Y, BETA_X1, BETA_X0, BETA_Y1, BETA_Y0,\n"
            "            x, y, GAMMA_X1, GAMMA_X0, GAMMA_Y1, GAMMA_Y0,\n"
            "            pC[0], pC[1], DELTA_X1, DELTA_X0, DELTA_Y1, DELTA_Y0\n"
            "        ];\n"
            "        (bool success, bytes memory out) = address(8).staticcall(abi.encodePacked(input));\n"
            "        return success && out.length == 32 && abi.decode(out, (uint256)) == 1;\n"
            "    }\n"
            "\n"
            "    /// (x, y) + s (px, py), through the precompiles; ok false when one fails.\n"
            "    function mulAdd(uint256 x, uint256 y, uint256 px, uint256 py, uint256 s)\n"
            "        internal view returns (bool ok, uint256 rx, uint256 ry)\n"
            "    {\n"
            "        (bool s1, bytes memory m) = address(7).staticcall(abi.encode(px, py, s));\n"
            "        if (!s1 || m.length != 64) return (false, 0, 0);\n"
            "        (uint256 mx, uint256 my) = abi.decode(m, (uint256, uint256));\n"
            "        (bool s2, bytes memory a) = address(6).staticcall(abi.encode(x, y, mx, my));\n"
            "        if (!s2 || a.length != 64) return (false, 0, 0);\n"
            "        (rx, ry) = abi.decode(a, (uint256, uint256));\n"
            "        return (true, rx, ry);\n"
            "    }\n"
            "}\n");
    return ferror(f) ? NNC_STATUS_IO : NNC_STATUS_OK;
}
