'use strict';
// Shared helpers for the onnxruntime-node peer scripts.

const fs = require('fs');
const path = require('path');

function loadOrt() {
  try {
    return require('onnxruntime-node');
  } catch (e) {
    const dir = path.relative(process.cwd(), __dirname) || '.';
    throw new Error(
      `cannot load onnxruntime-node (${e.message.split('\n')[0]}); ` +
      `install it with: npm ci --prefix ${dir}`);
  }
}

function ortVersion() {
  const pkg = path.join(path.dirname(require.resolve('onnxruntime-node')), '..', 'package.json');
  return JSON.parse(fs.readFileSync(pkg, 'utf8')).version;
}

// Typed-array constructor for each onnxruntime tensor type we can feed.
const TYPED = {
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
  int64: BigInt64Array,
  int8: Int8Array,
  uint8: Uint8Array,
  bool: Uint8Array,
};

function product(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

// JSON cannot carry NaN/Inf: we write them as the strings "NaN", "Infinity",
// "-Infinity" and accept those (and a few common spellings) on input.
function parseNumber(v, where) {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'nan' || s === '+nan' || s === '-nan') return NaN;
    if (s === 'inf' || s === '+inf' || s === 'infinity' || s === '+infinity') return Infinity;
    if (s === '-inf' || s === '-infinity') return -Infinity;
    const n = Number(v);
    if (v.trim() !== '' && !Number.isNaN(n)) return n;
  }
  throw new Error(`${where}: not a number: ${JSON.stringify(v)}`);
}

function jsonNumber(v) {
  if (typeof v === 'bigint') {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v.toString();
  }
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return v;
    return Number.isNaN(v) ? 'NaN' : (v > 0 ? 'Infinity' : '-Infinity');
  }
  return v; // strings (string tensors) pass through
}

function fail(prog, err) {
  const msg = err && err.message ? err.message : String(err);
  process.stderr.write(`${prog}: error: ${msg}\n`);
  process.exit(1);
}

module.exports = { loadOrt, ortVersion, TYPED, product, parseNumber, jsonNumber, fail };
