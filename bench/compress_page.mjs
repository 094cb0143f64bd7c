// Compression in the page: each export of MODELS_DIR (as compress_bench.mjs
// names them) opened in the explorer in headless Chromium, ranking every
// FILE in turn, `repeats` times. Reports the page's milliseconds per 1,000
// unique configs per model (the ranking's own clock, model warm-up excluded; the
// median pass), beside node's (compress_bench.mjs) for the same exports.
//   node bench/compress_page.mjs WORK_DIR MODELS_DIR FILE.npz... [--repeats N]
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { openExplorer } = await import(path.join(root, 'web/tests/explorer_page.mjs'));

const args = process.argv.slice(2);
let repeats = 3;
const at = args.indexOf('--repeats');
if (at >= 0) repeats = Number(args.splice(at, 2)[1]);
const [work, models, ...files] = args;
if (!files.length) {
  console.error('usage: node bench/compress_page.mjs WORK_DIR MODELS_DIR FILE.npz... [--repeats N]');
  process.exit(1);
}
const names = ['teacher', 'student', 'student-fp16', 'student-int8', 'student-search', 'scratch']
  .filter((n) => existsSync(path.join(models, n, 'model.onnx')));
// The site staged without a demo in WORK_DIR/site, served, the page open.
const explorer = await openExplorer(work);
const { page, state } = explorer;
// Rankings of a large file with a 5-member model take minutes, not seconds.
const until = (pred) => explorer.waitState(pred, 'the page', 600000);
const rows = [];
for (const name of names) {
  const dir = path.join(models, name);
  const before = (await state()).models.length;
  await page.setInputFiles('#model-input', [path.join(dir, 'model.onnx'), path.join(dir, 'model.json')]);
  // A model of the same file name replaces the last one: wait for the new session.
  await page.waitForTimeout(200);
  const withModel = await until((s) => s.models.length >= Math.max(before, 1));
  await page.evaluate(() => window.fastslow.modelsReady());
  const index = withModel.models.length - 1;
  const passes = [];
  for (let r = 0; r < repeats; r++) {
    let seconds = 0, configs = 0;
    for (const file of files) {
      // The open file is not opened again (an input given the same file fires no change).
      if ((await state()).graph?.name !== path.basename(file)) {
        await page.setInputFiles('#npz-input', file);
        await until((s) => s.graph && s.graph.name === path.basename(file));
      }
      const before = (await until((s) => s.rank.status !== 'running')).rank;
      await page.evaluate((i) => window.fastslow.rank(i), index);
      // This ranking's end: a new time, or a failure.
      const done = await until((s) => s.rank.status === 'failed' ||
        (s.rank.status === 'done' && (s.rank.seconds !== before.seconds || s.rank.model !== before.model)));
      if (done.rank.status !== 'done') throw new Error(`${name} on ${file}: ${done.rank.message}`);
      seconds += done.rank.seconds;
      configs += done.rank.scores;  // unique configs scored, as compress_bench.mjs counts
    }
    passes.push(seconds / configs * 1e6);
  }
  const ms = [...passes].sort((a, b) => a - b)[Math.floor(passes.length / 2)];
  rows.push({ model: name, page_ms_per_1000_configs: ms });
  console.log(`${name.padEnd(15)} ${ms.toFixed(1).padStart(7)} ms per 1,000 configs in the page`);
}
console.log(JSON.stringify({ models, files: files.map((f) => path.basename(f)), repeats, rows }));
await explorer.close();
