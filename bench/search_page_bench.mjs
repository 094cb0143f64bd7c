// The search issue's bar 4 in the page's engine: one graph's configs ranked
// by the default model and by a model from a study's Pareto front, both
// exported, in ONNX Runtime Web (wasm backend, under node), alternating in
// one run. Prints JSON: a_ms (the first model), b_ms, their ratio.
//   node bench/search_page_bench.mjs DEFAULT_EXPORT FRONT_EXPORT FILE.npz [--threads T] [--repeats R]
import { statSync } from 'node:fs';
import path from 'node:path';
import { benchArgs, loadCore, timeModels } from './page_engine.mjs';

const { a, b, file, threads, repeats } = benchArgs(
  'node bench/search_page_bench.mjs DEFAULT_EXPORT FRONT_EXPORT FILE.npz [--threads T] [--repeats R]');
const core = await loadCore(threads);
const t = await timeModels(core, { a, b }, file, repeats);
console.log(JSON.stringify({
  file,
  unique_configs: t.info.groups,
  threads,
  repeats,
  a_ms: t.scoreMs.a,
  b_ms: t.scoreMs.b,
  a_with_input_prep_ms: t.totalMs.a,
  b_with_input_prep_ms: t.totalMs.b,
  ratio_a_over_b: t.scoreMs.a / t.scoreMs.b,
  a_onnx_bytes: statSync(path.join(a, 'model.onnx')).size,
  b_onnx_bytes: statSync(path.join(b, 'model.onnx')).size,
}, null, 2));
