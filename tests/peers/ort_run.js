#!/usr/bin/env node
'use strict';
// Reference runner: evaluate an ONNX model once with onnxruntime-node (CPU,
// no graph optimisation, one intra-op thread) and dump the outputs as JSON.
//
//   node ort_run.js MODEL.onnx INPUT.json OUTPUT.json
//
// INPUT.json:  {"inputs": {NAME: {"shape": [...], "data": [flat numbers]}}}
//              (the bare map {NAME: {...}} without the "inputs" wrapper is
//              accepted too).  Element type is taken from the model's declared
//              input type (float32 if the model does not declare one; an
//              optional per-input "type" is used only in that case).
// OUTPUT.json: {"outputs": {NAME: {"shape": [...], "type": "...",
//              "data": [flat numbers]}}}, every output of the model, in model
//              order.  Numbers are written with JavaScript's shortest
//              round-trip formatting, i.e. the exact double value (float32
//              results widened to double exactly).  NaN/Infinity are written
//              as the strings "NaN", "Infinity", "-Infinity".
// OUTPUT.json may be "-" for stdout.

const fs = require('fs');
const { readModelMeta } = require('./onnx_meta');
const { loadOrt, TYPED, product, parseNumber, jsonNumber, fail } = require('./common');

const PROG = 'ort_run';

function usage() {
  process.stderr.write('usage: node ort_run.js MODEL.onnx INPUT.json OUTPUT.json\n');
  process.exit(2);
}

function checkShape(name, shape, declared) {
  if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0)) {
    throw new Error(`input "${name}": "shape" must be an array of non-negative integers`);
  }
  if (!declared) return;
  if (declared.length !== shape.length) {
    throw new Error(`input "${name}": rank ${shape.length} given, model declares ` +
                    `shape [${declared.map((d) => d ?? '?').join(',')}]`);
  }
  declared.forEach((d, i) => {
    if (typeof d === 'number' && d >= 0 && d !== shape[i]) {
      throw new Error(`input "${name}": dim ${i} is ${shape[i]}, model declares ` +
                      `shape [${declared.map((x) => x ?? '?').join(',')}]`);
    }
  });
}

function makeTensor(ort, name, spec, type, declaredShape) {
  if (!spec || typeof spec !== 'object') throw new Error(`input "${name}": expected {"shape":..., "data":...}`);
  const { shape, data } = spec;
  checkShape(name, shape, declaredShape);
  if (!Array.isArray(data)) throw new Error(`input "${name}": "data" must be a flat array`);
  const n = product(shape);
  if (data.length !== n) {
    throw new Error(`input "${name}": shape [${shape.join(',')}] needs ${n} values, got ${data.length}`);
  }
  const Ctor = TYPED[type];
  if (!Ctor) throw new Error(`input "${name}": unsupported element type ${type}`);
  const arr = new Ctor(n);
  for (let i = 0; i < n; i++) {
    const v = parseNumber(data[i], `input "${name}" data[${i}]`);
    if (Ctor === BigInt64Array) {
      if (!Number.isInteger(v)) throw new Error(`input "${name}" data[${i}]: int64 input needs integers`);
      arr[i] = BigInt(v);
    } else {
      arr[i] = v;
    }
  }
  return new ort.Tensor(type, arr, shape);
}

// Evaluate MODEL on the inputs document (parsed INPUT.json); returns the
// outputs document ({"outputs": {...}}).  Exported for ort_selftest.js.
async function runModel(modelPath, doc, inputPath = 'input') {
  if (!fs.existsSync(modelPath)) throw new Error(`model not found: ${modelPath}`);
  let meta = null;
  try {
    meta = readModelMeta(modelPath);
  } catch (e) {
    process.stderr.write(`${PROG}: warning: cannot read model metadata (${e.message}); assuming float32 inputs\n`);
  }

  const given = doc && typeof doc === 'object' && doc.inputs && typeof doc.inputs === 'object' ? doc.inputs : doc;
  if (!given || typeof given !== 'object' || Array.isArray(given)) {
    throw new Error(`${inputPath}: expected {"inputs": {NAME: {"shape": [...], "data": [...]}}}`);
  }

  const ort = loadOrt();
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });

  const declared = new Map((meta ? meta.inputs : []).map((i) => [i.name, i]));
  for (const name of Object.keys(given)) {
    if (!session.inputNames.includes(name)) {
      throw new Error(`input "${name}" is not an input of the model (inputs: ${session.inputNames.map((s) => JSON.stringify(s)).join(', ')})`);
    }
  }
  const feeds = {};
  for (const name of session.inputNames) {
    if (!(name in given)) throw new Error(`missing input "${name}" in ${inputPath}`);
    const d = declared.get(name);
    const type = (d && d.type) || given[name].type || 'float32';
    feeds[name] = makeTensor(ort, name, given[name], type, d ? d.shape : null);
  }

  const results = await session.run(feeds);
  const outputs = {};
  for (const name of session.outputNames) {
    const t = results[name];
    outputs[name] = {
      shape: Array.from(t.dims),
      type: t.type,
      data: Array.from(t.data, jsonNumber),
    };
  }
  return { outputs };
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv.length !== 3 || argv.includes('-h') || argv.includes('--help')) usage();
  const [modelPath, inputPath, outputPath] = argv;
  if (!fs.existsSync(modelPath)) throw new Error(`model not found: ${modelPath}`);
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(inputPath, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read input JSON ${inputPath}: ${e.message}`);
  }
  const text = JSON.stringify(await runModel(modelPath, doc, inputPath)) + '\n';
  if (outputPath === '-') process.stdout.write(text);
  else fs.writeFileSync(outputPath, text);
}

module.exports = { runModel };

if (require.main === module) main().catch((e) => fail(PROG, e));
