// SPDX-License-Identifier: MIT
// benchmarks/ort_eval.js: evaluate an ONNX model in onnxruntime (the VNN-COMP replay engine).
//
//     NODE_PATH=<dir>/node_modules node benchmarks/ort_eval.js < REQUEST.json
//
// REQUEST: {"model": PATH, "inputs": {NAME: {"type": "float32"|"float64", "dims": [...],
// "data": [...]}}}.  Prints {"outputs": {NAME: [values...]}} in the graph's output order, or
// {"error": MESSAGE}.  onnxruntime-node comes from the npm registry (npm install
// onnxruntime-node --ignore-scripts: its CPU library is in the package; the install script only
// fetches CUDA ones).  A benchmark tool, not a build dependency.
"use strict";
const ort = require("onnxruntime-node");

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const req = JSON.parse(Buffer.concat(chunks).toString());
  const sess = await ort.InferenceSession.create(req.model, { intraOpNumThreads: 1 });
  const feeds = {};
  for (const [name, v] of Object.entries(req.inputs)) {
    const arr = v.type === "float64" ? Float64Array.from(v.data) : Float32Array.from(v.data);
    feeds[name] = new ort.Tensor(v.type, arr, v.dims);
  }
  const res = await sess.run(feeds);
  const out = {};
  for (const name of sess.outputNames) out[name] = Array.from(res[name].data, Number);
  process.stdout.write(JSON.stringify({ outputs: out, names: sess.outputNames }));
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ error: String(e && e.message ? e.message : e) }));
});
