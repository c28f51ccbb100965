'use strict';
// Minimal, dependency-free reader for the parts of an ONNX ModelProto that the
// peer scripts need: the declared element type and shape of each graph input
// and output, plus the initializer names (older models list initializers among
// the graph inputs).  onnxruntime-node 1.17.0 does not expose input metadata
// (session.inputMetadata only appeared in later releases), so we read it from
// the protobuf ourselves.  Also decodes TensorProto files (the input_N.pb /
// output_N.pb files of the ONNX backend test data) for ort_selftest.js.
//
// Only the wire format is implemented (varint, 64-bit, length-delimited,
// 32-bit); unknown fields are skipped, so large initializers cost nothing
// beyond a bounds check.

const fs = require('fs');

// TensorProto.DataType
const ELEM_TYPES = {
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32',
  7: 'int64', 8: 'string', 9: 'bool', 10: 'float16', 11: 'float64',
  12: 'uint32', 13: 'uint64', 14: 'complex64', 15: 'complex128', 16: 'bfloat16',
};

class Reader {
  constructor(buf, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }
  eof() { return this.pos >= this.end; }
  varint() {
    // Returns a BigInt (int64 values and tags both fit).
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw new Error('truncated protobuf varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 70n) throw new Error('malformed protobuf varint');
    }
    return result;
  }
  varintNum() { return Number(this.varint()); }
  // Iterate over fields: yields {field, wire, value|start,end}.
  *fields() {
    while (!this.eof()) {
      const key = this.varintNum();
      const field = Math.floor(key / 8);
      const wire = key & 7;
      if (wire === 0) {
        yield { field, wire, value: this.varint() };
      } else if (wire === 1) {
        if (this.pos + 8 > this.end) throw new Error('truncated protobuf fixed64');
        yield { field, wire, start: this.pos, end: this.pos + 8 };
        this.pos += 8;
      } else if (wire === 2) {
        const len = this.varintNum();
        if (this.pos + len > this.end) throw new Error('truncated protobuf length-delimited field');
        yield { field, wire, start: this.pos, end: this.pos + len };
        this.pos += len;
      } else if (wire === 5) {
        if (this.pos + 4 > this.end) throw new Error('truncated protobuf fixed32');
        yield { field, wire, start: this.pos, end: this.pos + 4 };
        this.pos += 4;
      } else {
        throw new Error(`unsupported protobuf wire type ${wire}`);
      }
    }
  }
}

function str(buf, f) { return buf.toString('utf8', f.start, f.end); }
function sub(buf, f) { return new Reader(buf, f.start, f.end); }

// int64 as signed BigInt from a varint BigInt.
function toSigned64(v) { return BigInt.asIntN(64, v); }

// TensorShapeProto -> array of (number | string | null)
function parseShape(buf, r) {
  const dims = [];
  for (const f of r.fields()) {
    if (f.field === 1 && f.wire === 2) {   // dim
      let dim = null;
      for (const d of sub(buf, f).fields()) {
        if (d.field === 1 && d.wire === 0) dim = Number(toSigned64(d.value));   // dim_value
        else if (d.field === 2 && d.wire === 2) dim = str(buf, d);              // dim_param
      }
      dims.push(dim);
    }
  }
  return dims;
}

// ValueInfoProto -> {name, type, shape}
function parseValueInfo(buf, r) {
  // kind: 'tensor', 'sequence', 'map', 'optional', 'sparse_tensor' or null.
  const info = { name: '', kind: null, type: null, elemType: null, shape: null };
  for (const f of r.fields()) {
    if (f.field === 1 && f.wire === 2) info.name = str(buf, f);
    else if (f.field === 2 && f.wire === 2) {           // TypeProto
      for (const t of sub(buf, f).fields()) {
        if (t.field === 4 && t.wire === 2) info.kind = 'sequence';
        else if (t.field === 5 && t.wire === 2) info.kind = 'map';
        else if (t.field === 9 && t.wire === 2) info.kind = 'optional';
        else if (t.field === 8 && t.wire === 2) info.kind = 'sparse_tensor';
        else if (t.field === 1 && t.wire === 2) {         // tensor_type
          info.kind = 'tensor';
          for (const tt of sub(buf, t).fields()) {
            if (tt.field === 1 && tt.wire === 0) {
              info.elemType = Number(tt.value);
              info.type = ELEM_TYPES[info.elemType] || `onnx-type-${info.elemType}`;
            } else if (tt.field === 2 && tt.wire === 2) {
              info.shape = parseShape(buf, sub(buf, tt));
            }
          }
        }
      }
    }
  }
  return info;
}

// Returns {irVersion, opsets: [{domain, version}], inputs: [...], outputs: [...],
//          initializers: Set<string>}.  `inputs` excludes initializers.
function readModelMeta(modelPath) {
  const buf = fs.readFileSync(modelPath);
  const meta = { irVersion: null, opsets: [], inputs: [], outputs: [], initializers: new Set() };
  let graph = null;
  for (const f of new Reader(buf).fields()) {
    if (f.field === 1 && f.wire === 0) meta.irVersion = Number(f.value);
    else if (f.field === 7 && f.wire === 2) graph = f;
    else if (f.field === 8 && f.wire === 2) {            // opset_import
      const o = { domain: '', version: null };
      for (const g of sub(buf, f).fields()) {
        if (g.field === 1 && g.wire === 2) o.domain = str(buf, g);
        else if (g.field === 2 && g.wire === 0) o.version = Number(g.value);
      }
      meta.opsets.push(o);
    }
  }
  if (!graph) throw new Error(`${modelPath}: no graph found (not an ONNX ModelProto?)`);
  const rawInputs = [];
  for (const f of sub(buf, graph).fields()) {
    if (f.field === 11 && f.wire === 2) rawInputs.push(parseValueInfo(buf, sub(buf, f)));
    else if (f.field === 12 && f.wire === 2) meta.outputs.push(parseValueInfo(buf, sub(buf, f)));
    else if (f.field === 5 && f.wire === 2) {             // initializer: TensorProto, name = 8
      for (const t of sub(buf, f).fields()) {
        if (t.field === 8 && t.wire === 2) meta.initializers.add(str(buf, t));
      }
    }
  }
  meta.inputs = rawInputs.filter((i) => !meta.initializers.has(i.name));
  return meta;
}

// Decode a TensorProto file -> {name, type, shape, data: Array<number>}.
// Supports float32/float64/int32/int64/bool/uint8/int8 via raw_data or the
// typed repeated fields.  Used by the self test only.
function readTensorProto(pbPath) {
  const buf = fs.readFileSync(pbPath);
  const t = { name: '', elemType: 1, shape: [], raw: null, floatData: [], doubleData: [], int32Data: [], int64Data: [] };
  const unpack = (f, wireScalar, fn) => {
    // packed (wire 2) or unpacked (wireScalar)
    if (f.wire === 2 && wireScalar !== 2) {
      const r = sub(buf, f);
      if (wireScalar === 0) while (!r.eof()) fn(r.varint());
      else {
        const w = wireScalar === 5 ? 4 : 8;
        for (let p = f.start; p < f.end; p += w) fn(p);
      }
    } else if (wireScalar === 0) fn(f.value);
    else fn(f.start);
  };
  for (const f of new Reader(buf).fields()) {
    switch (f.field) {
      case 1: unpack(f, 0, (v) => t.shape.push(Number(toSigned64(v)))); break;   // dims
      case 2: t.elemType = Number(f.value); break;                                // data_type
      case 4: unpack(f, 5, (p) => t.floatData.push(buf.readFloatLE(p))); break;   // float_data
      case 5: unpack(f, 0, (v) => t.int32Data.push(Number(BigInt.asIntN(32, v)))); break; // int32_data
      case 7: unpack(f, 0, (v) => t.int64Data.push(Number(toSigned64(v)))); break; // int64_data
      case 8: t.name = str(buf, f); break;
      case 9: t.raw = buf.subarray(f.start, f.end); break;                        // raw_data
      case 10: unpack(f, 1, (p) => t.doubleData.push(buf.readDoubleLE(p))); break; // double_data
      default: break;
    }
  }
  const type = ELEM_TYPES[t.elemType] || `onnx-type-${t.elemType}`;
  let data;
  if (t.raw) {
    const r = t.raw;
    const ab = r.buffer.slice(r.byteOffset, r.byteOffset + r.byteLength);
    switch (type) {
      case 'float32': data = Array.from(new Float32Array(ab)); break;
      case 'float64': data = Array.from(new Float64Array(ab)); break;
      case 'int32': data = Array.from(new Int32Array(ab)); break;
      case 'int64': data = Array.from(new BigInt64Array(ab), Number); break;
      case 'bool': case 'uint8': data = Array.from(new Uint8Array(ab)); break;
      case 'int8': data = Array.from(new Int8Array(ab)); break;
      default: throw new Error(`${pbPath}: unsupported raw tensor type ${type}`);
    }
  } else {
    switch (type) {
      case 'float32': data = t.floatData; break;
      case 'float64': data = t.doubleData; break;
      case 'int64': data = t.int64Data; break;
      case 'int32': case 'bool': case 'uint8': case 'int8': data = t.int32Data; break;
      default: throw new Error(`${pbPath}: unsupported tensor type ${type}`);
    }
  }
  return { name: t.name, type, shape: t.shape, data };
}

module.exports = { readModelMeta, readTensorProto, ELEM_TYPES };
