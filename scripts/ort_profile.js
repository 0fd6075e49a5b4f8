// ort_profile.js times each node of an ONNX model in ONNX Runtime (its own
// profiler), to set beside `relaxgo profile --by shape` layer by layer:
//
//   node scripts/ort_profile.js model.onnx 1,3,224,224 [runs=50] [threads=1]
//
// The one float32 input gets uniform random values of that shape. The
// session is compare.sh's (graphOptimizationLevel 'all', so ORT's fusions and
// NCHWc layouts are what is timed). Prints every node in execution order
// with its op type, output elements and median kernel time over the runs
// (µs), then the medians summed by op type. onnxruntime-node is found as
// require('onnxruntime-node'), $ORT_NODE_DIR, or
// /tmp/ortnode/node_modules/onnxruntime-node (see ../shared/bench/compare.sh).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

function loadOrt() {
  for (const t of ['onnxruntime-node', process.env.ORT_NODE_DIR, '/tmp/ortnode/node_modules/onnxruntime-node'].filter(Boolean)) {
    try { return require(t); } catch (e) { /* next */ }
  }
  throw new Error('onnxruntime-node not found; set ORT_NODE_DIR');
}

async function main() {
  const [model, shapeArg, runsArg, threadsArg] = process.argv.slice(2);
  if (!model || !shapeArg) {
    console.error('usage: node scripts/ort_profile.js model.onnx d0,d1,... [runs] [threads]');
    process.exit(2);
  }
  const shape = shapeArg.split(',').map(Number);
  const runs = Number(runsArg || 50), threads = Number(threadsArg || 1);
  const ort = loadOrt();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ortprof-'));
  const sess = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
    enableProfiling: true, profileFilePrefix: path.join(dir, 'p'),
  });
  const size = shape.reduce((a, b) => a * b, 1);
  const x = new ort.Tensor('float32', Float32Array.from({ length: size }, () => Math.random()), shape);
  for (let i = 0; i < runs; i++) await sess.run({ [sess.inputNames[0]]: x });
  await sess.endProfiling();
  const file = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => path.join(dir, f))[0];
  const events = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  const nodes = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    if (!nodes.has(e.name)) nodes.set(e.name, { op: e.args.op_name, out: Number(e.args.output_size) / 4, t: [] });
    nodes.get(e.name).t.push(e.dur);
  }
  const med = (a) => a.slice().sort((p, q) => p - q)[Math.floor(a.length / 2)];
  const byOp = new Map();
  let total = 0;
  console.log(`# ${path.basename(model)} input ${shape.join('x')} threads=${threads} runs=${runs}`);
  console.log(`${'op'.padEnd(20)} ${'out_elems'.padStart(10)} ${'median_us'.padStart(10)}  node`);
  for (const [name, n] of nodes) {
    const m = med(n.t);
    total += m;
    byOp.set(n.op, (byOp.get(n.op) || 0) + m);
    console.log(`${n.op.padEnd(20)} ${String(n.out).padStart(10)} ${String(m).padStart(10)}  ${name.replace(/_kernel_time$/, '')}`);
  }
  console.log(`# by op type (sum of medians, µs; total ${total})`);
  for (const [op, t] of [...byOp].sort((a, b) => b[1] - a[1])) console.log(`${op.padEnd(20)} ${String(t).padStart(10)}`);
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
