// Compression in ONNX Runtime Web (wasm back end, under node): a teacher,
// its distilled student in fp32, fp16 and int8, the student's precision-
// search plan, and the same small model trained without the teacher, each
// ranking the same files. Per model: bytes, milliseconds per 1,000 configs
// (median of `repeats`, interleaved), Kendall against the measured runtimes
// and against the teacher's scores (the teacher is the reference row).
//   node bench/compress_bench.mjs MODELS_DIR FILE.npz... [--repeats N]
// MODELS_DIR holds export folders named teacher, student, student-fp16,
// student-int8, student-search and scratch (those present are measured).
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

const args = process.argv.slice(2);
let repeats = 3;
const at = args.indexOf('--repeats');
if (at >= 0) repeats = Number(args.splice(at, 2)[1]);
const [models, ...files] = args;
if (!files.length) {
  console.error('usage: node bench/compress_bench.mjs MODELS_DIR FILE.npz... [--repeats N]');
  process.exit(1);
}
const names = ['teacher', 'student', 'student-fp16', 'student-int8', 'student-search', 'scratch']
  .filter((n) => existsSync(path.join(models, n, 'model.onnx')));
if (names[0] !== 'teacher') throw new Error(`${models}: no teacher export`);

// Kendall's tau-b between two score vectors (ties in either count as neither).
function kendall(a, b) {
  let c = 0, d = 0, ta = 0, tb = 0;
  for (let i = 0; i < a.length; i++)
    for (let j = i + 1; j < a.length; j++) {
      const x = Math.sign(a[i] - a[j]), y = Math.sign(b[i] - b[j]);
      if (x === 0 && y === 0) continue;
      if (x === 0) ta++;
      else if (y === 0) tb++;
      else if (x === y) c++;
      else d++;
    }
  const den = Math.sqrt((c + d + ta) * (c + d + tb));
  return den > 0 ? (c - d) / den : 0;
}

const rankers = {};
for (const n of names) {
  const dir = path.join(models, n);
  rankers[n] = await Ranker.create(ort, readFileSync(path.join(dir, 'model.onnx')), readFileSync(path.join(dir, 'model.json'), 'utf8'));
}
const bytes = files.map((f) => readFileSync(f));
const times = Object.fromEntries(names.map((n) => [n, []]));
const last = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < repeats; r++)
  for (const n of names) {
    let ms = 0, configs = 0;
    for (let i = 0; i < files.length; i++) {
      const out = await rankers[n].rank(core, bytes[i], path.basename(files[i]));
      ms += out.scoreMs;
      configs += out.groupScores.length;
      last[n][i] = out;
    }
    times[n].push(ms / configs * 1000);
  }
const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length;
const rows = names.map((n) => ({
  model: n,
  bytes: readFileSync(path.join(models, n, 'model.onnx')).length,
  ms_per_1000_configs: median(times[n]),
  kendall: mean(last[n].map((o) => (o.metrics ? o.metrics.kendall : NaN))),
  kendall_vs_teacher: mean(last[n].map((o, i) => kendall(o.groupScores, last.teacher[i].groupScores))),
}));
console.log(JSON.stringify({ models, files: files.map((f) => path.basename(f)), repeats, rows }, null, 2));
const fp32 = rows.find((r) => r.model === 'student') || rows[0];
for (const r of rows)
  console.log(`${r.model.padEnd(15)} ${String(r.bytes).padStart(9)} bytes (${(r.bytes / fp32.bytes).toFixed(2)}x student fp32)  ` +
    `${r.ms_per_1000_configs.toFixed(1).padStart(7)} ms per 1,000 configs  Kendall ${r.kendall.toFixed(4)}  ` +
    `vs teacher ${r.kendall_vs_teacher.toFixed(4)}`);
