// Lower-precision weights in ONNX Runtime Web (wasm backend, under node):
// one run exported in fp32, fp16 and int8 (`fastslow export --precision`),
// each ranking one file's configs `repeats` times, interleaved. Reports the
// model's bytes and milliseconds per 1,000 configs (median) against the
// fp32 export in the same run, and Kendall against the measured runtimes.
//   node bench/precision_bench.mjs MODELS_DIR FILE.npz [repeats]
// MODELS_DIR holds fp32/, fp16/ and int8/ export folders, and search/ (a
// precision study's plan, `fastslow export --per-layer`) where present.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'web', 'package.json'));
const ort = require('onnxruntime-web');
const { Ranker } = await import(path.join(root, 'web/src/ranker.mjs'));
const core = await require(path.join(root, 'build/wasm/bin/fastslow_core.js'))();
ort.env.wasm.numThreads = 1;

const [models, file, repeatsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/precision_bench.mjs MODELS_DIR FILE.npz [repeats]');
  process.exit(1);
}
const repeats = Number(repeatsArg || 3);
const kinds = ['fp32', 'fp16', 'int8', 'search'].filter((k) => existsSync(path.join(models, k, 'model.onnx')));
const rankers = {}, times = {}, last = {};
for (const p of kinds) {
  const dir = path.join(models, p);
  rankers[p] = await Ranker.create(ort, readFileSync(path.join(dir, 'model.onnx')), readFileSync(path.join(dir, 'model.json'), 'utf8'));
  times[p] = [];
}
const bytes = readFileSync(file);
for (let r = 0; r < repeats; r++)
  for (const p of kinds) {
    last[p] = await rankers[p].rank(core, bytes, path.basename(file));
    times[p].push(last[p].scoreMs / last[p].groupScores.length * 1000);
  }
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const rows = kinds.map((p) => ({
  precision: p,
  bytes: readFileSync(path.join(models, p, 'model.onnx')).length,
  ms_per_1000_configs: median(times[p]),
  kendall: last[p].metrics ? last[p].metrics.kendall : null,
}));
console.log(JSON.stringify({ file: path.basename(file), configs: last.fp32.groupScores.length, repeats, rows }, null, 2));
for (const r of rows)
  console.log(`${r.precision}: ${r.bytes} bytes (${(r.bytes / rows[0].bytes).toFixed(2)}x fp32), ` +
    `${r.ms_per_1000_configs.toFixed(1)} ms per 1,000 configs (${(r.ms_per_1000_configs / rows[0].ms_per_1000_configs).toFixed(2)}x fp32), ` +
    `Kendall ${r.kendall === null ? '-' : r.kendall.toFixed(4)}`);
