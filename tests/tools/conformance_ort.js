'use strict';
// Reference outputs for tests/tools/conformance_cases.py: for each folder named
// in OUTDIR/cases.json, evaluate model.onnx on inputs.json with onnxruntime
// (tests/peers/ort_run.js: CPU, no graph optimisation) and write outputs.json,
// or ort_error.txt with the message when onnxruntime refuses the case.
//   node conformance_ort.js OUTDIR
const fs = require('fs');
const path = require('path');
const { runModel } = require(path.join(__dirname, '..', 'peers', 'ort_run.js'));

async function main() {
  const out = process.argv[2];
  const cases = JSON.parse(fs.readFileSync(path.join(out, 'cases.json'), 'utf8'));
  for (const c of cases) {
    const d = path.join(out, c);
    try {
      const doc = JSON.parse(fs.readFileSync(path.join(d, 'inputs.json'), 'utf8'));
      fs.writeFileSync(path.join(d, 'outputs.json'), JSON.stringify(await runModel(path.join(d, 'model.onnx'), doc, 'inputs.json')));
    } catch (e) {
      fs.writeFileSync(path.join(d, 'ort_error.txt'), String((e && e.message) || e));
    }
  }
}
main().catch((e) => { process.stderr.write(`conformance_ort: ${e.message}\n`); process.exit(1); });
