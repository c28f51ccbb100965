// Reference data for tests/tools/poseidon_check.c, from circomlibjs (npm
// peer in tests/peers): its Poseidon constants and the hashes computed by
// both of its implementations (poseidon_reference.js, the plain round loop,
// and buildPoseidon, the wasm code with the optimised constants).
//   node poseidon_ref.mjs > ref.txt
// Output, one record per line, all numbers decimal:
//   C t k value          round constant k of width t (k < t*(8 + R_P))
//   M t i j value        MDS entry row i, column j of width t
//   H impl n in_1 .. in_n out   out = poseidon([in_1 .. in_n]), impl ref|wasm
import { readFileSync } from 'fs';
import { fileURLToPath, pathToFileURL } from 'url';
import path from 'path';

const here = path.dirname(fileURLToPath(import.meta.url));
const lib = path.join(here, '..', 'peers', 'node_modules', 'circomlibjs');
const { buildPoseidon, buildPoseidonReference } = await import(pathToFileURL(path.join(lib, 'main.js')).href);
const consts = JSON.parse(readFileSync(path.join(lib, 'src', 'poseidon_constants.json'), 'utf8'));

const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const out = [];
for (let w = 0; w < consts.C.length; w++) {
  const t = w + 2;
  consts.C[w].forEach((c, k) => out.push(`C ${t} ${k} ${BigInt(c)}`));
  consts.M[w].forEach((row, i) => row.forEach((m, j) => out.push(`M ${t} ${i} ${j} ${BigInt(m)}`)));
}

// Inputs per arity: the edge values 0, 1 and r-1, small counters, values
// near 2^253 and 2^254 (top limb bits), and a seeded pseudo-random stream
// (x -> x^2 + 7 mod r) so that every run writes the same file.
let seed = 0x6e6e63657274n;
const next = () => { seed = (seed * seed + 7n) % R; return seed; };
const vectors = (n) => [
  Array(n).fill(0n),
  Array(n).fill(R - 1n),
  Array.from({ length: n }, (_, i) => BigInt(i + 1)),
  Array.from({ length: n }, (_, i) => (i % 2 ? R - 1n : 0n)),
  Array.from({ length: n }, (_, i) => (1n << 253n) + BigInt(i) * ((1n << 64n) - 1n)),
  Array.from({ length: n }, next),
  Array.from({ length: n }, next),
];

const ref = await buildPoseidonReference();
const wasm = await buildPoseidon();
for (let n = 1; n <= 16; n++) {
  for (const v of vectors(n)) {
    const s = v.map(String).join(' ');
    out.push(`H ref ${n} ${s} ${ref.F.toObject(ref(v))}`);
    out.push(`H wasm ${n} ${s} ${wasm.F.toObject(wasm(v))}`);
  }
}
process.stdout.write(out.join('\n') + '\n');
