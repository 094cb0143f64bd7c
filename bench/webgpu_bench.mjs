// ONNX Runtime Web's WebGPU back end beside WebAssembly, in headless
// Chromium on this machine (issue 33): is there an adapter, and how long does
// one batch of the ranking model take on each back end? The inputs are made
// up but valid and of a real graph's size (a chain of `nodes` nodes, every
// fourth configurable, one full batch of the card's chunk): the model's
// cost depends on the sizes, not the values. Both back ends get the same
// inputs; their scores are compared.
//   node bench/webgpu_bench.mjs MODEL_DIR [--nodes N] [--config-nodes C] [--repeats R]
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'web', 'package.json'));
const { chromium } = require('playwright-core');
const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : def; };
const modelDir = args[0];
if (!modelDir) {
  console.error('usage: node bench/webgpu_bench.mjs MODEL_DIR [--nodes N] [--config-nodes C] [--repeats R]');
  process.exit(1);
}
const sizes = { nodes: opt("--nodes", 2000), config_nodes: opt("--config-nodes", 250), repeats: opt("--repeats", 1) };
const ortDir = path.join(root, 'web/node_modules/onnxruntime-web/dist');
const files = {
  '/model.onnx': [readFileSync(path.join(modelDir, 'model.onnx')), 'application/octet-stream'],
  '/model.json': [readFileSync(path.join(modelDir, 'model.json')), 'application/json'],
  '/': [Buffer.from('<!doctype html><title>webgpu bench</title>'), 'text/html'],
};
for (const f of readdirSync(ortDir).filter((f) => f === 'ort.webgpu.min.mjs' || /^ort-wasm-simd-threaded.*\.(mjs|wasm)$/.test(f)))
  files['/ort/' + f] = [readFileSync(path.join(ortDir, f)), f.endsWith('.wasm') ? 'application/wasm' : 'text/javascript'];
// localhost is a secure context: WebGPU is offered only to those.
const server = http.createServer((q, s) => {
  const f = files[q.url];
  if (!f) { s.statusCode = 404; s.end(); return; }
  s.setHeader('content-type', f[1]);
  s.end(f[0]);
}).listen(0);
const url = `http://localhost:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--enable-unsafe-webgpu'],
});
try {
  const page = await browser.newPage();
  await page.goto(url);
  const result = await page.evaluate(async (sizes) => {
    const out = { secure_context: isSecureContext, navigator_gpu: 'gpu' in navigator };
    const adapter = out.navigator_gpu ? await navigator.gpu.requestAdapter() : null;
    out.adapter = adapter ? { vendor: adapter.info?.vendor, architecture: adapter.info?.architecture,
      fallback: adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? null } : null;
    const ort = await import('/ort/ort.webgpu.min.mjs');
    ort.env.wasm.wasmPaths = new URL('/ort/', location.href).href;
    ort.env.wasm.numThreads = 1;
    const card = await (await fetch('/model.json')).json();
    const model = new Uint8Array(await (await fetch('/model.onnx')).arrayBuffer());
    const wide = (card.model || {}).wide_nodes || 0;
    const dimsOf = { nodes: sizes.nodes, edges: sizes.nodes - 1, config_nodes: wide || sizes.config_nodes,
      batch: (card.batching || {}).chunk || 64 };
    const feeds = (ort, names) => {
      const f = {};
      let seed = 1;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      for (const input of card.inputs || []) {
        if (!names.includes(input.name)) continue;
        const dims = input.shape.map((d) => (typeof d === 'number' ? d : dimsOf[d] || 1));
        const n = dims.reduce((a, b) => a * b, 1);
        const data = input.dtype === 'int64' ? new BigInt64Array(n) : new Float32Array(n);
        if (input.dtype !== 'int64') for (let i = 0; i < n; i++) data[i] = rand() < 0.3 ? rand() : 0;
        if (input.name === 'edge_index') for (let e = 0; e < dims[0]; e++) { data[2 * e] = BigInt(e); data[2 * e + 1] = BigInt(e + 1); }
        if (input.name === 'node_opcode') for (let i = 0; i < n; i++) data[i] = BigInt(i % 100);
        if (input.name === 'config_nodes') for (let i = 0; i < n; i++) data[i] = BigInt((4 * i) % dimsOf.nodes);
        f[input.name] = new ort.Tensor(input.dtype, data, dims);
      }
      return f;
    };
    out.backends = {};
    let reference = null;
    for (const backend of ['wasm', 'webgpu']) {
      const r = {};
      try {
        const t0 = performance.now();
        const session = await ort.InferenceSession.create(model, { executionProviders: [backend] });
        await session.run(feeds(ort, session.inputNames));  // warm-up
        r.open_and_warm_up_ms = performance.now() - t0;
        const times = [];
        let scores = null;
        for (let k = 0; k < sizes.repeats; k++) {
          const f = feeds(ort, session.inputNames);
          const t1 = performance.now();
          const o = await session.run(f);
          times.push(performance.now() - t1);
          scores = Array.from(o.scores.data);
        }
        times.sort((a, b) => a - b);
        r.batch_ms = times[Math.floor(times.length / 2)];
        r.batch = dimsOf.batch;
        r.ms_per_1000_configs = r.batch_ms / dimsOf.batch * 1000;
        if (!reference) reference = scores;
        else {
          const spread = Math.max(...reference) - Math.min(...reference) || 1;
          r.max_score_difference_over_spread = Math.max(...scores.map((s, i) => Math.abs(s - reference[i]))) / spread;
        }
      } catch (e) {
        r.error = String(e.message || e);
      }
      out.backends[backend] = r;
    }
    out.sizes = dimsOf;
    return out;
  }, sizes);
  console.log(JSON.stringify(result, null, 2));
  const w = result.backends.wasm, g = result.backends.webgpu;
  console.log(`adapter: ${result.adapter ? `${result.adapter.vendor}/${result.adapter.architecture}` : 'none'}; ` +
    `wasm ${w.ms_per_1000_configs?.toFixed(0) ?? w.error} ms per 1,000 configs, ` +
    `webgpu ${g.ms_per_1000_configs !== undefined ? `${g.ms_per_1000_configs.toFixed(0)} ms (${(g.ms_per_1000_configs / w.ms_per_1000_configs).toFixed(2)}x wasm, scores within ${g.max_score_difference_over_spread.toExponential(1)} of the spread)` : g.error}`);
} finally {
  await browser.close();
  server.close();
}
