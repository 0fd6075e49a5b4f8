// Cross-check of the fixtures against ONNX Runtime (not used by the Go tests).
//
//   node testdata/onnxmodels/check_ort.js [--tol 1e-4] [--time N] [--threads T] [dir ...]
//
// Each dir (default: every model folder next to this script) holds model.onnx, inputs.npz and
// expected.npz as written by make_models.py. Runs the model in onnxruntime-node (found as
// require('onnxruntime-node'), $ORT_NODE_DIR, or /tmp/ortnode/node_modules/onnxruntime-node) with
// graphOptimizationLevel 'all' and 1 thread, and compares every output with the rule
// abs(got-want) <= tol + tol*abs(want). Exit status 1 on any mismatch. With --time N it then times N
// more runs (after 5 warm-up runs) with --threads T intra-op threads (default 1) and prints one line
// "time <model> threads=<T> median_us=<m> min_us=<m>" per model (scripts/onnx_bench.sh reads it).
'use strict';
const fs = require('fs');
const path = require('path');

function loadOrt() {
  for (const t of ['onnxruntime-node', process.env.ORT_NODE_DIR, '/tmp/ortnode/node_modules/onnxruntime-node'].filter(Boolean)) {
    try { return require(t); } catch (e) { /* next */ }
  }
  throw new Error('onnxruntime-node not found');
}

// Minimal .npz reader: stored (uncompressed) zip entries of little-endian .npy arrays.
function readNpz(file) {
  const b = fs.readFileSync(file);
  const out = {};
  let off = 0;
  while (off + 30 <= b.length && b.readUInt32LE(off) === 0x04034b50) {
    const method = b.readUInt16LE(off + 8), csize = b.readUInt32LE(off + 18);
    const nlen = b.readUInt16LE(off + 26), xlen = b.readUInt16LE(off + 28);
    const name = b.toString('utf8', off + 30, off + 30 + nlen);
    const data = b.subarray(off + 30 + nlen + xlen, off + 30 + nlen + xlen + csize);
    if (method !== 0) throw new Error(`${file}: ${name} is compressed`);
    out[name.replace(/\.npy$/, '')] = parseNpy(data, name);
    off += 30 + nlen + xlen + csize;
  }
  return out;
}

function parseNpy(d, name) {
  const major = d[6];
  const hlen = major === 1 ? d.readUInt16LE(8) : d.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = d.toString('latin1', hstart, hstart + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(name + ': fortran order');
  const raw = d.subarray(hstart + hlen);
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length);
  const types = { '<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array], '<f8': ['float64', Float64Array], '|b1': ['bool', Uint8Array] };
  if (!types[descr]) throw new Error(`${name}: dtype ${descr}`);
  const [type, Arr] = types[descr];
  return { type, shape, data: new Arr(buf) };
}

async function main() {
  const ort = loadOrt();
  let tol = 1e-4, timeRuns = 0, threads = 1;
  const dirs = [];
  for (let i = 2; i < process.argv.length; i++) {
    if (process.argv[i] === '--tol') tol = Number(process.argv[++i]);
    else if (process.argv[i] === '--time') timeRuns = Number(process.argv[++i]);
    else if (process.argv[i] === '--threads') threads = Number(process.argv[++i]);
    else dirs.push(process.argv[i]);
  }
  if (!dirs.length) {
    for (const e of fs.readdirSync(__dirname).sort()) {
      if (fs.existsSync(path.join(__dirname, e, 'model.onnx'))) dirs.push(path.join(__dirname, e));
    }
  }
  let allOk = true;
  for (const dir of dirs) {
    const sess = await ort.InferenceSession.create(path.join(dir, 'model.onnx'),
      { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
    const inputs = fs.existsSync(path.join(dir, 'inputs.npz')) ? readNpz(path.join(dir, 'inputs.npz')) : {};
    const want = readNpz(path.join(dir, 'expected.npz'));
    const feeds = {};
    for (const n of sess.inputNames) feeds[n] = new ort.Tensor(inputs[n].type, inputs[n].data, inputs[n].shape);
    const got = await sess.run(feeds);
    for (const n of Object.keys(want)) {
      const g = got[n], w = want[n];
      let ok = JSON.stringify(Array.from(g.dims)) === JSON.stringify(w.shape), maxAbs = 0, maxRel = 0, worst = 0;
      for (let i = 0; i < w.data.length; i++) {
        const e = Math.abs(g.data[i] - w.data[i]), bound = tol + tol * Math.abs(w.data[i]);
        if (!(e <= bound)) ok = false;
        maxAbs = Math.max(maxAbs, e);
        if (w.data[i] !== 0) maxRel = Math.max(maxRel, e / Math.abs(w.data[i]));
        worst = Math.max(worst, e / bound);
      }
      allOk = allOk && ok;
      console.log(`${path.basename(dir).padEnd(16)} ${n.padEnd(34)} ${ok ? 'OK      ' : 'MISMATCH'} shape ${w.shape.join('x')} max|err| ${maxAbs.toExponential(2)} max rel ${maxRel.toExponential(2)} err/bound(${tol}) ${worst.toFixed(4)}`);
    }
    if (timeRuns > 0) {
      for (let i = 0; i < 5; i++) await sess.run(feeds);
      const us = [];
      for (let i = 0; i < timeRuns; i++) {
        const t0 = process.hrtime.bigint();
        await sess.run(feeds);
        us.push(Number(process.hrtime.bigint() - t0) / 1e3);
      }
      us.sort((a, b) => a - b);
      console.log(`time ${path.basename(dir)} threads=${threads} median_us=${us[us.length >> 1].toFixed(1)} min_us=${us[0].toFixed(1)}`);
    }
  }
  if (!allOk) process.exitCode = 1;
}

main().catch((e) => { console.error(e); process.exit(2); });
