// What the node benchmarks of the page's engine share: ONNX Runtime Web and
// the page's Ranker from web/, the wasm core, and the command line
// `SCRIPT A B FILE.npz [--threads T] [--repeats R]`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const require = createRequire(path.join(root, 'web', 'package.json'));
export const ort = require('onnxruntime-web');
export const { Ranker } = await import(path.join(root, 'web/src/ranker.mjs'));

// Two positional arguments, the .npz and the options; exits with `usage` when the file is missing.
export function benchArgs(usage) {
  const [a, b, file, ...rest] = process.argv.slice(2);
  if (!file) {
    console.error(`usage: ${usage}`);
    process.exit(1);
  }
  const opt = (name, dflt) => {
    const i = rest.indexOf(name);
    return i >= 0 ? Number(rest[i + 1]) : dflt;
  };
  return { a, b, file, threads: opt('--threads', 1), repeats: opt('--repeats', 3) };
}

// The wasm core, with ONNX Runtime set to `threads`.
export async function loadCore(threads) {
  ort.env.wasm.numThreads = threads;
  return require(path.join(root, 'build/wasm/bin/fastslow_core.js'))();
}

// Ranks `file` with each exported model (folders holding model.onnx and
// model.json), alternating model by model `repeats` times after a warm-up so
// all see the same machine. Per model: the median model-call time (scoreMs)
// and the median with the core's input preparation; and the graph's info.
export async function timeModels(core, dirs, file, repeats) {
  const open = (dir) => Ranker.create(ort, readFileSync(path.join(dir, 'model.onnx')), readFileSync(path.join(dir, 'model.json'), 'utf8'));
  const models = {};
  for (const [k, dir] of Object.entries(dirs)) models[k] = await open(dir);
  const bytes = readFileSync(file);
  const name = path.basename(file);
  for (const r of Object.values(models)) await r.rank(core, bytes, name);  // warm-up: kernels, caches
  const score = {}, total = {};
  let info = null;
  for (const k of Object.keys(models)) score[k] = [], total[k] = [];
  for (let r = 0; r < repeats; r++)
    for (const [k, ranker] of Object.entries(models)) {
      const t0 = performance.now();
      const res = await ranker.rank(core, bytes, name);
      total[k].push(performance.now() - t0);
      score[k].push(res.scoreMs);
      info = res.info;
    }
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  const out = { info, scoreMs: {}, totalMs: {} };
  for (const k of Object.keys(models)) out.scoreMs[k] = median(score[k]), out.totalMs[k] = median(total[k]);
  return out;
}
