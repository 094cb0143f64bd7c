// Ensemble ranking cost in the page's engine: every config of one graph
// scored in ONNX Runtime Web (wasm backend, under node) by an exported
// ensemble and by one of its members alone, same file, same batches,
// measured in the same run, alternating so both see the same machine.
// Reports model-call time (and with the core's input preparation) and the
// ratio ensemble / member.
//   node bench/ensemble_bench.mjs ENSEMBLE_DIR MEMBER_DIR FILE.npz [--threads T] [--repeats R]
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { benchArgs, loadCore, timeModels } from './page_engine.mjs';

const { a: ensembleDir, b: memberDir, file, threads, repeats } = benchArgs(
  'node bench/ensemble_bench.mjs ENSEMBLE_DIR MEMBER_DIR FILE.npz [--threads T] [--repeats R]');

const core = await loadCore(threads);
const t = await timeModels(core, { ensemble: ensembleDir, member: memberDir }, file, repeats);
const info = t.info;
const score = t.scoreMs, total = t.totalMs;
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
  ensemble_ms: score.ensemble,
  member_ms: score.member,
  ensemble_with_input_prep_ms: total.ensemble,
  member_with_input_prep_ms: total.member,
  ratio_ensemble_over_member: score.ensemble / score.member,
  ensemble_onnx_bytes: statSync(path.join(ensembleDir, 'model.onnx')).size,
  member_onnx_bytes: statSync(path.join(memberDir, 'model.onnx')).size,
};
console.log(JSON.stringify(result, null, 2));
console.log(`ONNX Runtime Web: ensemble of ${result.members} ${result.ensemble_ms.toFixed(0)} ms vs one member ` +
  `${result.member_ms.toFixed(0)} ms for ${result.unique_configs} unique configs: ` +
  `${result.ratio_ensemble_over_member.toFixed(2)}x (with input preparation ${result.ensemble_with_input_prep_ms.toFixed(0)} ` +
  `vs ${result.member_with_input_prep_ms.toFixed(0)} ms)`);
