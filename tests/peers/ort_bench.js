#!/usr/bin/env node
'use strict';
// Benchmark peer: time onnxruntime-node (CPU) inference of an ONNX model.
//
//   node ort_bench.js MODEL.onnx BATCH REPEATS [--shape D1,D2,...] [--warmup N]
//                     [--seed S] [--verbose]
//
// Feeds every graph input a uniform [0,1) random tensor (fixed seed) of shape
// [BATCH, ...per-sample shape].  The per-sample shape is the model's declared
// input shape without its first (batch) dimension, or --shape when given
// (required when those dimensions are dynamic or the model metadata cannot be
// read).  If the model declares a fixed batch dimension, BATCH must equal it.
// Element type follows the declared input type (float32, or float64).
//
// Session: CPU EP, intraOpNumThreads=2, interOpNumThreads=1,
// graphOptimizationLevel='all', executionMode='sequential'.  After N warm-up
// runs (default 5) it times REPEATS runs individually with
// process.hrtime.bigint() and prints one CSV line to stdout:
//
//   onnxruntime-node,<version>,<batch>,<median_seconds_per_run>,<inferences_per_second>
//
// where inferences_per_second = BATCH / median.  --verbose adds a summary
// (min/mean/max) on stderr.

const fs = require('fs');
const { readModelMeta } = require('./onnx_meta');
const { loadOrt, ortVersion, product, fail } = require('./common');

const PROG = 'ort_bench';

function usage(msg) {
  if (msg) process.stderr.write(`${PROG}: error: ${msg}\n`);
  process.stderr.write('usage: node ort_bench.js MODEL.onnx BATCH REPEATS [--shape D1,D2,...] ' +
                       '[--warmup N] [--seed S] [--verbose]\n');
  process.exit(2);
}

function parsePosInt(s, what, allowZero = false) {
  if (!/^\d+$/.test(String(s))) usage(`${what} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got "${s}"`);
  const n = Number(s);
  if (!Number.isSafeInteger(n) || (!allowZero && n === 0)) usage(`${what} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got "${s}"`);
  return n;
}

function parseArgs(argv) {
  const pos = [];
  const opt = { shape: null, warmup: 5, seed: 12345, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = (name) => {
      if (a.includes('=')) return a.slice(a.indexOf('=') + 1);
      if (i + 1 >= argv.length) usage(`${name} needs a value`);
      return argv[++i];
    };
    if (a === '-h' || a === '--help') usage();
    else if (a === '--shape' || a.startsWith('--shape=')) {
      const v = val('--shape').trim();
      opt.shape = v === '' ? [] : v.split(',').map((d) => parsePosInt(d.trim(), '--shape dimension'));
    } else if (a === '--warmup' || a.startsWith('--warmup=')) opt.warmup = parsePosInt(val('--warmup'), '--warmup', true);
    else if (a === '--seed' || a.startsWith('--seed=')) opt.seed = parsePosInt(val('--seed'), '--seed', true);
    else if (a === '--verbose' || a === '-v') opt.verbose = true;
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else pos.push(a);
  }
  if (pos.length !== 3) usage();
  return {
    model: pos[0],
    batch: parsePosInt(pos[1], 'BATCH'),
    repeats: parsePosInt(pos[2], 'REPEATS'),
    ...opt,
  };
}

// Small deterministic PRNG (mulberry32) so runs are reproducible.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fmtShape(s) { return `[${s.map((d) => (d === null || d === undefined ? '?' : d)).join(',')}]`; }

function median(sorted) {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

function fmtNum(x) { return String(Number(x.toPrecision(9))); }

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(args.model)) throw new Error(`model not found: ${args.model}`);

  let meta = null;
  try {
    meta = readModelMeta(args.model);
  } catch (e) {
    if (!args.shape) throw new Error(`cannot read model metadata (${e.message}); pass --shape D1,D2,...`);
    process.stderr.write(`${PROG}: warning: cannot read model metadata (${e.message}); using --shape, float32\n`);
  }

  const ort = loadOrt();
  const session = await ort.InferenceSession.create(args.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: 2,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  });

  if (args.shape && session.inputNames.length !== 1) {
    throw new Error(`--shape is ambiguous: the model has ${session.inputNames.length} inputs`);
  }
  const declared = new Map((meta ? meta.inputs : []).map((i) => [i.name, i]));
  const random = rng(args.seed);
  const feeds = {};
  const shapes = [];
  for (const name of session.inputNames) {
    const d = declared.get(name);
    if (d && d.kind && d.kind !== 'tensor') throw new Error(`input "${name}" is a ${d.kind}, not a tensor`);
    const dshape = d && d.shape ? d.shape : null;
    if (dshape && dshape.length === 0) throw new Error(`input "${name}" is a scalar; it has no batch dimension`);
    if (dshape && typeof dshape[0] === 'number' && dshape[0] > 0 && dshape[0] !== args.batch) {
      throw new Error(`input "${name}" has a fixed batch dimension of ${dshape[0]} (declared shape ` +
                      `${fmtShape(dshape)}); BATCH must be ${dshape[0]}, got ${args.batch}`);
    }
    let rest;
    if (args.shape) {
      rest = args.shape;
      if (dshape) {
        const ok = dshape.length === rest.length + 1 &&
          rest.every((x, i) => !(typeof dshape[i + 1] === 'number' && dshape[i + 1] > 0) || dshape[i + 1] === x);
        if (!ok) {
          throw new Error(`--shape ${rest.join(',')} does not match input "${name}" declared shape ${fmtShape(dshape)}`);
        }
      }
    } else {
      if (!dshape) throw new Error(`input "${name}" has no declared shape; pass --shape D1,D2,...`);
      rest = dshape.slice(1);
      if (!rest.every((x) => typeof x === 'number' && x > 0)) {
        throw new Error(`input "${name}" has dynamic per-sample dimensions ${fmtShape(dshape)}; pass --shape D1,D2,...`);
      }
    }
    const type = (d && d.type) || 'float32';
    if (type !== 'float32' && type !== 'float64') throw new Error(`input "${name}" has type ${type}; only float32/float64 inputs are supported`);
    const shape = [args.batch, ...rest];
    const n = product(shape);
    const data = type === 'float64' ? new Float64Array(n) : new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = random();
    feeds[name] = new ort.Tensor(type, data, shape);
    shapes.push(`${name}:${type}${fmtShape(shape)}`);
  }

  for (let i = 0; i < args.warmup; i++) await session.run(feeds);
  const times = new Array(args.repeats);
  for (let i = 0; i < args.repeats; i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    const t1 = process.hrtime.bigint();
    times[i] = Number(t1 - t0) / 1e9;
  }
  const sorted = times.slice().sort((a, b) => a - b);
  const med = median(sorted);
  const ips = args.batch / med;
  const version = ortVersion();
  if (args.verbose) {
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    process.stderr.write(`${PROG}: ${args.model} inputs ${shapes.join(' ')} warmup ${args.warmup} repeats ${args.repeats}: ` +
                         `min ${fmtNum(sorted[0])} s, median ${fmtNum(med)} s, mean ${fmtNum(mean)} s, ` +
                         `max ${fmtNum(sorted[sorted.length - 1])} s\n`);
  }
  process.stdout.write(`onnxruntime-node,${version},${args.batch},${fmtNum(med)},${fmtNum(ips)}\n`);
}

main().catch((e) => fail(PROG, e));
