// Ensemble ranking cost in the page's engine: every config of one graph
// scored in ONNX Runtime Web (wasm backend, under node) by an exported
// ensemble and by one of its members alone, same file, same batches,
// measured in the same run, alternating so both see the same machine.
// Reports model-call time (and with the core's input preparation) and the
// ratio ensemble / member.
//   node bench/ensemble_bench.mjs ENSEMBLE_DIR MEMBER_DIR FILE.npz [--threads T] [--repeats R]
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Ranker, benchArgs, loadCore, ort } from './page_engine.mjs';

const { a: ensembleDir, b: memberDir, file, threads, repeats } = benchArgs(
  'node bench/ensemble_bench.mjs ENSEMBLE_DIR MEMBER_DIR FILE.npz [--threads T] [--repeats R]');

const core = await loadCore(threads);
const open = (dir) => Ranker.create(ort, readFileSync(path.join(dir, 'model.onnx')), readFileSync(path.join(dir, 'model.json'), 'utf8'));
const models = { ensemble: await open(ensembleDir), member: await open(memberDir) };
const bytes = readFileSync(file);
const name = path.basename(file);
for (const r of Object.values(models)) await r.rank(core, bytes, name);  // warm-up: kernels, caches

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const score = { ensemble: [], member: [] }, total = { ensemble: [], member: [] };
let info = null;
for (let r = 0; r < repeats; r++)
  for (const [k, ranker] of Object.entries(models)) {
    const t0 = performance.now();
    const res = await ranker.rank(core, bytes, name);
    total[k].push(performance.now() - t0);
    score[k].push(res.scoreMs);
    info = res.info;
  }
const card = JSON.parse(readFileSync(path.join(ensembleDir, 'model.json'), 'utf8'));
const result = {
  file,
  nodes_after_pruning: info.nodes,
  configurable_nodes: info.config_nodes,
  unique_configs: info.groups,
  batch_ensemble: card.batching.chunk,
  batch_member: JSON.parse(readFileSync(path.join(memberDir, 'model.json'), 'utf8')).batching.chunk,
  members: card.ensemble.members.length,
  threads,
  repeats,
  ensemble_ms: median(score.ensemble),
  member_ms: median(score.member),
  ensemble_with_input_prep_ms: median(total.ensemble),
  member_with_input_prep_ms: median(total.member),
  ratio_ensemble_over_member: median(score.ensemble) / median(score.member),
  ensemble_onnx_bytes: statSync(path.join(ensembleDir, 'model.onnx')).size,
  member_onnx_bytes: statSync(path.join(memberDir, 'model.onnx')).size,
};
console.log(JSON.stringify(result, null, 2));
console.log(`ONNX Runtime Web: ensemble of ${result.members} ${result.ensemble_ms.toFixed(0)} ms vs one member ` +
  `${result.member_ms.toFixed(0)} ms for ${result.unique_configs} unique configs: ` +
  `${result.ratio_ensemble_over_member.toFixed(2)}x (with input preparation ${result.ensemble_with_input_prep_ms.toFixed(0)} ` +
  `vs ${result.member_with_input_prep_ms.toFixed(0)} ms)`);
