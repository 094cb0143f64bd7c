// Ranking benchmark: scoring every config of one graph with an exported model
// in ONNX Runtime Web (wasm backend, under node: the page's engine) against
// LibTorch (`fastslow rank`), same model, same file, same batches, measured in
// the same run. Reports model-call time only on both sides (inputs are
// prepared by the same core code), the ratio, and the model file size.
//   node bench/rank_bench.mjs FASTSLOW MODEL_DIR FILE.npz [--threads T] [--repeats R]
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Ranker, benchArgs, loadCore, ort } from './page_engine.mjs';

const { a: fastslow, b: modelDir, file, threads, repeats } = benchArgs(
  'node bench/rank_bench.mjs FASTSLOW MODEL_DIR FILE.npz [--threads T] [--repeats R]');

function nativeOnce() {
  const out = execFileSync(fastslow, ['rank', '--model', modelDir, file, '--threads', String(threads)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const m = /(\d+) configs \((\d+) unique\) scored in ([\d.]+) ms/.exec(out);
  if (!m) throw new Error(`unexpected output: ${out}`);
  return { configs: Number(m[1]), unique: Number(m[2]), ms: Number(m[3]) };
}

const core = await loadCore(threads);
const ranker = await Ranker.create(ort, readFileSync(path.join(modelDir, 'model.onnx')),
  readFileSync(path.join(modelDir, 'model.json'), 'utf8'));
const bytes = readFileSync(file);
await ranker.rank(core, bytes, path.basename(file));  // warm-up: kernels, caches

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const nat = [], web = [], webTotal = [];
let info = null;
for (let r = 0; r < repeats; r++) {
  const n = nativeOnce();
  nat.push(n.ms);
  const t0 = performance.now();
  const res = await ranker.rank(core, bytes, path.basename(file));
  webTotal.push(performance.now() - t0);
  web.push(res.scoreMs);
  info = { ...res.info, configs: n.configs };
}
const result = {
  file,
  nodes_after_pruning: info.nodes,
  edges_after_pruning: info.edges,
  configurable_nodes: info.config_nodes,
  configs: info.configs,
  unique_configs: info.groups,
  batch: info.chunk,
  threads,
  repeats,
  libtorch_ms: median(nat),
  onnxruntime_web_ms: median(web),
  onnxruntime_web_with_input_prep_ms: median(webTotal),
  ratio_ort_web_over_libtorch: median(web) / median(nat),
  model_onnx_bytes: statSync(path.join(modelDir, 'model.onnx')).size,
};
console.log(JSON.stringify(result, null, 2));
console.log(`ONNX Runtime Web ${result.onnxruntime_web_ms.toFixed(0)} ms vs LibTorch ${result.libtorch_ms.toFixed(0)} ms ` +
  `for ${result.configs} configs: ${result.ratio_ort_web_over_libtorch.toFixed(2)}x (target <= 2x); ` +
  `model.onnx ${(result.model_onnx_bytes / 1024).toFixed(1)} KiB`);
