// The explorer in headless Chromium (SwiftShader WebGL), driven as a user
// would: the demo on load, files through the file chooser, ranking with the
// demo model, a corrupt file, a zip bomb. App state comes from the page's getters
// (window.fastslow), not from pixels, except the one screenshot check.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePng } from './png.mjs';
import { layoutBomb } from './npz_bomb.mjs';
import { fastslow, sampleData, run, makeDemo, openExplorer, nativeRanking, assertSameRanking } from './explorer_page.mjs';

const alexnet = path.join(sampleData, 'cleaned_alexnet.npz');
const unet3d = path.join(sampleData, 'real', 'layout_xla_default_train_unet3d.npz');
const work = mkdtempSync(path.join(tmpdir(), 'fastslow-explorer-'));

let explorer, page, layoutFile, demo, bigFile, longFile, nlpModel, programModel, ensembleModel, layoutFiles, tileModel, tileFile;
let pageErrors = [];

before(async () => {
  // A demo as scripts/run.sh makes one, smaller: tiny data, a briefly trained default layout model.
  let data;
  ({ data, layoutFile, demo } = makeDemo(work));
  // A bigger generated graph with several computations (node_splits).
  bigFile = run('synth', '--graph', 'layout:xla:random', '--nodes', '1500', '--configs', '20', '--seed', '1', '--out',
    path.join(work, 'big')).trim();
  // A second model, trained briefly on another collection (layout:nlp:default).
  run('train', '--data', data, '--collection', 'layout:nlp:default', '--out', path.join(work, 'run-nlp'),
    '--epochs', '1', '--steps-per-epoch', '4', '--threads', '2');
  nlpModel = path.join(work, 'nlp');
  run('export', '--run', path.join(work, 'run-nlp'), '-o', nlpModel);
  // A tile model, trained briefly on the tiny tile kernels, and a valid kernel to tune.
  run('train', '--data', data, '--collection', 'tile:xla', '--out', path.join(work, 'run-tile'), '--epochs', '2',
    '--threads', '2');
  tileModel = path.join(work, 'tile');
  run('export', '--run', path.join(work, 'run-tile'), '-o', tileModel);
  tileFile = path.join(data, 'npz/tile/xla/valid', readdirSync(path.join(data, 'npz/tile/xla/valid')).sort()[0]);
  // A per-program model (of the demo's graph): its card names no collection.
  run('train', '--graph', layoutFile, '--out', path.join(work, 'run-program'), '--epochs', '1', '--steps-per-epoch', '4',
    '--threads', '2');
  programModel = path.join(work, 'program');
  run('export', '--run', path.join(work, 'run-program'), '-o', programModel);
  // An ensemble of the demo's run and a sage run on its collection, exported as one model.
  run('train', '--data', data, '--collection', 'layout:xla:random', '--model', 'sage', '--seed', '2', '--out',
    path.join(work, 'run-sage'), '--epochs', '1', '--steps-per-epoch', '4', '--threads', '2');
  mkdirSync(path.join(work, 'ens'));
  writeFileSync(path.join(work, 'ens', 'ensemble.json'), JSON.stringify({
    format: 1, kind: 'layout', combine: 'weighted',
    members: [{ run: '../run', weight: 0.6, scale: 1.5 }, { run: '../run-sage', weight: 0.4, scale: 0.5 }],
  }));
  ensembleModel = path.join(work, 'ensemble');
  run('export', '--run', path.join(work, 'ens'), '-o', ensembleModel);
  // A graph with many configs, so that its ranking runs for a while.
  longFile = run('synth', '--graph', 'layout:xla:random', '--nodes', '300', '--configs', '8000', '--seed', '2', '--out',
    path.join(work, 'long')).trim();
  // Three files of other shapes, two of them over one 128-config block.
  layoutFiles = ['xla/random/train/resnet_0001.npz', 'nlp/random/valid/transformer_0003.npz',
    'nlp/default/train/transformer_0000.npz'].map((f) => path.join(data, 'npz/layout', f));
  explorer = await openExplorer(work, demo);
  ({ page, pageErrors } = explorer);
});

after(async () => {
  if (explorer) await explorer.close();
  rmSync(work, { recursive: true, force: true });
});

const state = () => explorer.state();
const waitState = (...args) => explorer.waitState(...args);

test('the page opens the demo graph with the demo model, and the canvas is drawn', async () => {
  const s = await waitState((x) => x.graph && x.frames > 2, 'the demo graph');
  assert.equal(s.graph.name, 'demo.npz');
  assert.equal(s.graph.kind, 'layout');
  assert.ok(s.graph.nodes > 10);
  assert.deepEqual(s.models, ['demo']);
  // The demo model's card says it learned from generated graphs, and the picker says so.
  assert.equal(s.model_cards[0].generated, true);
  assert.equal(s.model_cards[0].label, 'demo (generated data)');
  assert.match(s.model_cards[0].trained_on, /^generated data \(layout:xla:random\): 3 graphs of \d+-\d+ nodes/);
  assert.equal(s.error, '');
  const shot = decodePng(await page.screenshot());
  // The graph area (left of the side panel): many pixels off the background, many colours.
  const colours = new Set();
  let drawn = 0, total = 0;
  for (let y = 80; y < shot.height - 20; y += 2)
    for (let x = 20; x < shot.width * 0.55; x += 2) {
      const i = (y * shot.width + x) * shot.channels;
      const [r, g, b] = [shot.px[i], shot.px[i + 1], shot.px[i + 2]];
      colours.add((r << 16) | (g << 8) | b);
      if (Math.abs(r - 24) + Math.abs(g - 26) + Math.abs(b - 32) > 30) drawn++;
      total++;
    }
  assert.ok(drawn / total > 0.005, `only ${drawn} of ${total} sampled pixels drawn`);
  assert.ok(colours.size > 8, `only ${colours.size} colours`);
  assert.deepEqual(pageErrors, []);
});

test('search, selection and collapsing a computation act on the graph view', async () => {
  await page.setInputFiles('#npz-input', bigFile);
  await waitState((x) => x.graph && x.graph.name === path.basename(bigFile), 'the bigger graph');
  await page.evaluate(() => window.fastslow.search('parameter'));
  let s = await state();
  assert.ok(s.search_hits > 0);
  await page.evaluate(() => window.fastslow.search(''));
  await page.evaluate(() => window.fastslow.select(3));
  s = await state();
  assert.equal(s.selected, 3);
  assert.ok(s.graph.computations > 1, 'generated layout graphs have node_splits');
  const nodes = s.graph.nodes;
  await page.evaluate(() => window.fastslow.collapse(0, true));
  s = await state();
  assert.equal(s.graph.collapsed, 1);
  assert.ok(s.graph.display_nodes < nodes, `${s.graph.display_nodes} display nodes of ${nodes}`);
  await page.evaluate(() => window.fastslow.collapse(0, false));
  s = await state();
  assert.equal(s.graph.display_nodes, nodes);
  assert.deepEqual(pageErrors, []);
});

test('uploading the real AlexNet graph through the file chooser shows 372 nodes and 47,712 configs', async () => {
  await page.setInputFiles('#npz-input', alexnet);
  const s = await waitState((x) => x.graph && x.graph.name === 'cleaned_alexnet.npz', 'AlexNet');
  assert.equal(s.graph.nodes, 372);
  assert.equal(s.graph.configs, 47712);
  assert.equal(s.graph.unique_configs, 29905);
  assert.equal(s.graph.configurable_nodes, 26);
  assert.equal(s.error, '');
});

test('a model whose card does not fit the graph is refused with a message, and the page keeps working', async () => {
  // The demo model has 140 node features; AlexNet's cleaned file has 70.
  await page.evaluate(() => window.fastslow.rank(0));
  const s = await waitState((x) => x.rank.status === 'failed', 'the refusal');
  assert.match(s.rank.message, /node_feat.*70 feature columns; the model was trained on 140/);
});

// Ranks the open file with the demo model and checks the boundary
// crossings. One owner: JS runs the job, the app hears of it through the
// session's own calls: open, one per batch, finish (2 + N), and nothing
// else (but the test's own state polls, the command, and a status line
// while a model still loads).
async function rankCountingCalls() {
  const before = await page.evaluate(() => window.fastslow.calls());
  assert.equal(await page.evaluate(() => window.fastslow.rank(0)), 1);
  const s = await waitState((x) => x.rank.status === 'done', 'the ranking', 120000);
  const after = await page.evaluate(() => window.fastslow.calls());
  const spent = Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] || 0)])
    .filter(([k, n]) => n > 0 && !['explorer_state', 'explorer_start_rank', 'explorer_set_status'].includes(k)));
  assert.deepEqual(spent, { fastslow_rank_open_document: 1, fastslow_rank_batch: s.rank.total, fastslow_rank_finish: 1 });
  return s;
}

test('ranking a generated layout file with the demo model equals `fastslow rank`', async () => {
  await page.setInputFiles('#npz-input', layoutFile);
  const opened = await waitState((x) => x.graph && x.graph.name === path.basename(layoutFile), 'the layout file');
  const s = await rankCountingCalls();
  assert.equal(s.rank.configs, opened.graph.configs);
  assert.equal(s.rank.scores, opened.graph.unique_configs);
  assert.equal(typeof s.rank.kendall, 'number');
  const native = nativeRanking(demo, layoutFile, path.join(work, 'native.csv'));
  assertSameRanking(await page.evaluate(() => window.fastslow.ranking()), native, (n) => 1e-4 * Math.max(1e-6, Math.abs(n)));
  assert.equal(s.rank.kendall.toFixed(4), /kendall (\S+)/.exec(native.printed)[1]);
  // The Rank tab's scatter as SVG (a circle per config) and as PNG.
  const scatter = await page.evaluate(() => window.fastslow.scatterSvg());
  assert.equal(scatter.points, opened.graph.configs);
  assert.equal((scatter.svg.match(/<circle /g) || []).length, opened.graph.configs);
  const png = await pngFromPage('scatterPng', 2);
  assert.equal(png.error, undefined);
  assert.deepEqual([decodePng(png.bytes).width, decodePng(png.bytes).height], [1280, 960]);
});

// Opens `file` unless it is the open graph already: a second open of the
// same name cannot be told from the first by the state, and a job started
// in between would be dropped with the old document.
async function openOnce(file) {
  const now = await page.evaluate(() => window.fastslow.state());
  if (now.graph && now.graph.name === path.basename(file) && !now.error) return now;
  await page.setInputFiles('#npz-input', file);
  return waitState((x) => x.graph && x.graph.name === path.basename(file), path.basename(file));
}

// Why is this config slow, in the page: occlusion scored by ONNX Runtime
// Web through the ranking's session calls, equal to what `fastslow explain
// --method occlusion` computes with the same run in LibTorch; the graph is
// coloured by the shares (red: slower), the legend says so.
test('explaining a config against another colours the graph by each node\'s share, as `fastslow explain` computes it', async () => {
  await openOnce(layoutFile);
  assert.equal(await page.evaluate(() => window.fastslow.explain(3, 3, 0)), 0, 'a config against itself');
  assert.equal(await page.evaluate(() => window.fastslow.explain(3, 5, 0)), 1);
  const s = await waitState((x) => x.explain.status === 'done' && x.explain.coloured, 'the explanation', 120000);
  assert.equal(s.explain.config, 3);
  assert.equal(s.explain.against, 5);
  const native = JSON.parse(run('explain', '--run', path.join(work, 'run'), layoutFile, '--config', '3', '--against', '5',
    '--method', 'occlusion', '--json', '--top', '100000'));
  assert.equal(s.explain.nodes.length, native.nodes.length);
  const nativeShare = new Map(native.nodes.map((n) => [n.node, n.contribution]));
  const scale = Math.max(1e-6, ...native.nodes.map((n) => Math.abs(n.contribution)));
  s.explain.nodes.forEach((node, k) => {
    assert.ok(nativeShare.has(node), `node ${node}`);
    assert.ok(Math.abs(s.explain.share[k] - nativeShare.get(node)) <= 1e-4 * scale + 1e-6,
      `node ${node}: page ${s.explain.share[k]}, fastslow explain ${nativeShare.get(node)}`);
  });
  assert.ok(Math.abs(s.explain.score - native.score) <= 1e-4 * Math.max(1, Math.abs(native.score)));
  // The node with the largest share, selected: the inspector shows its share.
  let top = 0;
  s.explain.share.forEach((v, k) => { if (Math.abs(v) > Math.abs(s.explain.share[top])) top = k; });
  await page.evaluate((n) => window.fastslow.select(n), s.explain.nodes[top]);
  await page.evaluate(() => window.fastslow.explainView(true, true));
  await waitState((x) => x.explain.log_scale, 'the log scale');
  await page.waitForTimeout(500);
  const png = await page.screenshot();
  if (process.env.FASTSLOW_SCREENSHOTS) writeFileSync(path.join(process.env.FASTSLOW_SCREENSHOTS, 'explain.png'), png);
  const shot = decodePng(png);
  let hot = 0;
  for (let y = 80; y < shot.height - 20; y += 2)
    for (let x = 20; x < shot.width * 0.55; x += 2) {
      const i = (y * shot.width + x) * shot.channels;
      const [r, g, b] = [shot.px[i], shot.px[i + 1], shot.px[i + 2]];
      if ((r > g + 60 && r > b + 60) || (b > g + 60 && b > r + 60)) hot++;
    }
  assert.ok(hot > 20, `only ${hot} sampled pixels red or blue`);
  // Back to op families.
  await page.evaluate(() => window.fastslow.explainView(false));
  await waitState((x) => !x.explain.coloured, 'the op-family colours');
  assert.deepEqual(pageErrors, []);
});

// Tune in the page: the core's search with the demo model (ONNX Runtime
// Web) as its oracle, one job per generation; the proposals come first in
// the Configs table, download as CSV, and the generator's cost model
// (`fastslow synth --price`) accepts every one of them as a legal config.
test('Tune proposes configs nobody measured, lists and downloads them, and the generator prices each one', async () => {
  const opened = await openOnce(layoutFile);
  assert.equal(await page.evaluate(() => window.fastslow.tune(0, 600, 0)), 0, 'no proposals asked for');
  assert.equal(await page.evaluate(() => window.fastslow.tune(5, 600, 0)), 1);
  const s = await waitState((x) => x.tune.status !== 'running', 'the proposals', 180000);
  assert.equal(s.tune.status, 'done', s.tune.message);
  assert.equal(s.tune.scored, 600);
  assert.equal(s.tune.proposals.length, 5);
  for (let k = 1; k < 5; k++) assert.ok(s.tune.proposals[k - 1].score <= s.tune.proposals[k].score);
  assert.ok(s.tune.proposals.every((p) => p.changed >= 1), 'a proposal is nodes away from every measured config');
  assert.ok(s.tune.to_target_model >= 1 && s.tune.to_target_random >= 1, JSON.stringify(s.tune));
  const { csv, name } = await page.evaluate(() => window.fastslow.proposalsCsv());
  assert.equal(name, path.basename(layoutFile, '.npz') + '_proposed.csv');
  const lines = csv.trim().split('\n');
  assert.equal(lines.length, 5 * opened.graph.configurable_nodes + 1);
  // The proposals as an npz of the same graph, priced by the generator.
  const csvFile = path.join(work, 'proposed.csv'), npzFile = path.join(work, 'proposed.npz');
  writeFileSync(csvFile, csv);
  const py = spawnSync('/usr/bin/python3', ['-c', `
import numpy as np, sys
g = dict(np.load(sys.argv[1]))
rows = np.loadtxt(sys.argv[2], delimiter=',', skiprows=1)
nc = g['node_config_ids'].shape[0]
assert (rows[:nc, 4] == g['node_config_ids']).all()
feat = rows[:, 5:].reshape(-1, nc, 18).astype(np.float32)
# Nodes off the nearest measured config, counted here.
measured = g['node_config_feat'][g['config_runtime'] > 0]
off = [int((measured != f[None]).any(axis=2).sum(axis=1).min()) for f in feat]
said = rows[::nc, 3].astype(int).tolist()
assert said == off, (said, off)
assert min(off) >= 1
g['node_config_feat'] = feat
g['config_runtime'] = np.zeros(feat.shape[0], dtype=np.int64)
np.savez_compressed(sys.argv[3], **g)
`, layoutFile, csvFile, npzFile], { encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const priced = run('synth', '--price', layoutFile, '--configs', npzFile).trim().split('\n').slice(1);
  assert.equal(priced.length, 5);
  for (const l of priced) assert.ok(Number(l.split(',')[1]) > 0, l);
  if (process.env.FASTSLOW_SCREENSHOTS) {
    await page.evaluate(() => window.fastslow.select(-1));
    const size = page.viewportSize();
    await page.setViewportSize({ width: size.width, height: 1500 });  // the side panel down to the proposals
    await page.waitForTimeout(800);
    writeFileSync(path.join(process.env.FASTSLOW_SCREENSHOTS, 'tune.png'), await page.screenshot());
    await page.setViewportSize(size);
  }
  // The proposals merged into the file, unmeasured (runtime 0): Tune again.
  // The pool and the calibration leave them out (Tune failed here with
  // "calibration: runtime 0 is not positive").
  const mergedFile = path.join(work, 'merged.npz');
  const merge = spawnSync('/usr/bin/python3', ['-c', `
import numpy as np, sys
g = dict(np.load(sys.argv[1])); p = np.load(sys.argv[2])
g['node_config_feat'] = np.concatenate([g['node_config_feat'], p['node_config_feat']])
g['config_runtime'] = np.concatenate([g['config_runtime'], p['config_runtime']])
np.savez_compressed(sys.argv[3], **g)
`, layoutFile, npzFile, mergedFile], { encoding: 'utf8' });
  assert.equal(merge.status, 0, merge.stderr);
  await openOnce(mergedFile);
  assert.equal(await page.evaluate(() => window.fastslow.tune(2, 200, 0)), 1);
  const m = await waitState((x) => x.tune.status !== 'running', 'the proposals of the merged file', 180000);
  assert.equal(m.tune.status, 'done', m.tune.message);
  assert.ok(m.tune.to_target_model >= 1 && m.tune.to_target_random >= 1, JSON.stringify(m.tune));
  assert.ok(m.tune.proposals.length >= 1 && m.tune.proposals.every((q) => q.speedup > 0), JSON.stringify(m.tune.proposals));
  await openOnce(layoutFile);  // what the next tests open
  assert.deepEqual(pageErrors, []);
});

test('the page says which ONNX Runtime back end ranks and why: WebAssembly, with the WebGPU adapter it found', async () => {
  const b = await page.evaluate(() => window.fastslow.backend());
  assert.equal(b.backend, 'wasm');
  assert.match(b.reason, /WebGPU/);
  const gpu = await page.evaluate(async () => 'gpu' in navigator && !!(await navigator.gpu.requestAdapter()));
  assert.equal(b.adapter !== null, gpu, JSON.stringify(b));
});

test('a corrupt npz shows an error and the page still opens a good file afterwards', async () => {
  const bytes = readFileSync(alexnet).subarray(0, 5000);
  await page.setInputFiles('#npz-input', { name: 'corrupt.npz', mimeType: 'application/octet-stream', buffer: bytes });
  const s = await waitState((x) => x.error !== '', 'the error');
  assert.match(s.error, /corrupt\.npz/);
  assert.equal(s.graph.name, path.basename(layoutFile));  // the previous graph stays
  await page.setInputFiles('#npz-input', alexnet);
  const t = await waitState((x) => x.graph && x.graph.name === 'cleaned_alexnet.npz', 'AlexNet after the error');
  assert.equal(t.graph.nodes, 372);
  assert.equal(t.error, '');
  assert.deepEqual(pageErrors, []);
});

test('a zip bomb (4 MB whose node_feat claims 4 GB) shows the memory budget\'s message, not an abort', async () => {
  await page.setInputFiles('#npz-input', { name: 'bomb.npz', mimeType: 'application/octet-stream', buffer: layoutBomb() });
  const s = await waitState((x) => /bomb\.npz/.test(x.error), 'the bomb\'s error');
  assert.match(s.error, /^bomb\.npz: array 'node_feat': claims 4\.0 GB of data; loading the graph takes 8\.0 GB, over the memory budget of 2\.0 GB \(half of the page's wasm memory limit of 4\.0 GB\)/);
  assert.equal(s.graph.name, 'cleaned_alexnet.npz');  // the previous graph stays
  await page.setInputFiles('#npz-input', layoutFile);
  const t = await waitState((x) => x.graph && x.graph.name === path.basename(layoutFile), 'a graph after the bomb');
  assert.equal(t.error, '');
  assert.deepEqual(pageErrors, []);
});

test('ranking the real unet3d graph with the demo model warns that it lies outside the training data, as the terminal does', async () => {
  await page.setInputFiles('#npz-input', unet3d);
  await waitState((x) => x.graph && x.graph.name === path.basename(unet3d), 'unet3d');
  assert.equal(await page.evaluate(() => window.fastslow.rank(0)), 1);
  const s = await waitState((x) => x.rank.status === 'done', 'the ranking', 120000);
  assert.match(s.rank.shift_warning, /^layout_xla_default_train_unet3d\.npz lies outside what the model was trained on \(generated data/);
  assert.match(s.rank.shift_warning, /opcodes the model never saw in training: convert/);
  // The same findings, word for word, as `fastslow rank` prints.
  const native = spawnSync(fastslow, ['rank', '--model', demo, unet3d], { encoding: 'utf8' });
  assert.equal(native.status, 0, native.stderr);
  const findings = (t) => t.split('\n').filter((l) => l.startsWith('  - '));
  assert.ok(findings(s.rank.shift_warning).length >= 2, s.rank.shift_warning);
  assert.deepEqual(findings(s.rank.shift_warning), findings(native.stderr));
  assert.deepEqual(pageErrors, []);
});

// What real unet3d's runtimes depend on, found as it opens (no model): the
// Summary's entries are `fastslow info --nodes --json`'s; coloured, the
// graph shows node 1022 red.
test('the real unet3d\'s Summary names the convolution its runtimes depend on, as `fastslow info --nodes` does, and colours it', async () => {
  await page.setInputFiles('#npz-input', unet3d);
  let s = await waitState((x) => x.graph && x.graph.name === path.basename(unet3d) && x.effects.found, 'unet3d\'s effects');
  assert.equal(s.effects.error, '');
  const native = JSON.parse(run('info', unet3d, '--nodes', '--json')).node_effects;
  assert.equal(s.effects.configs, native.configs);
  assert.equal(s.effects.constant_nodes, native.constant_nodes);
  assert.equal(s.effects.entries.length, native.entries.length);
  s.effects.entries.forEach((e, k) => {
    assert.deepEqual(e.nodes, native.entries[k].nodes);
    assert.ok(Math.abs(e.share - native.entries[k].share) < 1e-12, `entry ${k}: ${e.share} vs ${native.entries[k].share}`);
    assert.equal(e.adds === null, native.entries[k].adds === null, `entry ${k}: picked in one only`);
    if (e.adds !== null) assert.ok(Math.abs(e.adds - native.entries[k].adds) < 1e-12, `entry ${k} adds ${e.adds}`);
    assert.deepEqual(e.rows.map((r) => r.configs), native.entries[k].rows.map((r) => r.configs));
  });
  assert.deepEqual(s.effects.entries[0].nodes, [1022]);
  assert.ok(s.effects.entries[0].share > 0.99);
  assert.ok(Math.abs(s.effects.joint - native.joint) < 1e-12 && s.effects.joint > 0.99, `together ${s.effects.joint}`);
  // The Configs tab's config read against them, as `info --nodes --config N` reads it.
  const mine = JSON.parse(run('info', unet3d, '--nodes', '--json', '--config', String(s.effects.config))).config_effects;
  assert.equal(s.effects.config_rows.length, mine.entries.length);
  s.effects.config_rows.forEach((r, k) => {
    assert.deepEqual(r.nodes, mine.entries[k].nodes);
    assert.ok(Math.abs(r.slower - mine.entries[k].slower) < 1e-12, `entry ${k}: ${r.slower} vs ${mine.entries[k].slower}`);
  });
  await page.evaluate(() => window.fastslow.effectsView(true));
  s = await waitState((x) => x.effects.coloured, 'the colours');
  assert.equal(s.explain.coloured, false);
  await page.waitForTimeout(500);
  // At fit the deciding node's mark is filled red, drawn over the others.
  await page.evaluate(() => window.fastslow.fit());
  await page.waitForTimeout(500);
  const png = await page.screenshot();
  const shots = process.env.FASTSLOW_SCREENSHOTS;
  if (shots) writeFileSync(path.join(shots, 'effects.png'), png);
  const shot = decodePng(png);
  let red = 0;
  for (let y = 80; y < shot.height - 20; y++)
    for (let x = 20; x < shot.width * 0.55; x++) {
      const i = (y * shot.width + x) * shot.channels;
      if (shot.px[i] > shot.px[i + 1] + 80 && shot.px[i] > shot.px[i + 2] + 80) red++;
    }
  assert.ok(red >= 20, `node 1022's mark: ${red} red pixels`);
  await page.evaluate(() => window.fastslow.select(1022));
  await waitState((x) => x.selected === 1022, 'node 1022 selected');
  await page.waitForTimeout(500);
  if (shots) writeFileSync(path.join(shots, 'effects_node.png'), await page.screenshot());
  await page.evaluate(() => window.fastslow.effectsView(false));
  await waitState((x) => !x.effects.coloured, 'the op-family colours');
  assert.deepEqual(pageErrors, []);
});

// One config's row as numpy reads it from the file (float64 of the stored values, flattened).
function numpyRow(file, config) {
  const script = 'import json, sys, numpy as np\n' +
    'd = np.load(sys.argv[1])\n' +
    'a = d["node_config_feat"] if "node_config_feat" in d.files else d["config_feat"]\n' +
    'print(json.dumps(a[int(sys.argv[2])].astype(np.float64).ravel().tolist()))\n';
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script, file, String(config)], { encoding: 'utf8' }));
}

// Starts ranking the open file with the demo model and, as soon as a batch
// is scored, chooses `file` in the file input (as the chooser does). Both
// happen inside the page: the long file ranks in about a tenth of a second,
// less than a round trip of polling from here takes on a loaded machine.
// Returns the ranking's {status, done, total} at the moment of the choice.
async function chooseWhileRanking(file) {
  const bytes = readFileSync(file).toString('base64');
  return page.evaluate(async ({ bytes, name }) => {
    if (window.fastslow.rank(0) !== 1) return { status: 'not started' };
    const t0 = performance.now();
    for (;;) {
      const r = window.fastslow.state().rank;
      if ((r.status === 'running' && r.done >= 1) || r.status === 'done' || performance.now() - t0 > 60000) {
        const input = document.getElementById('npz-input');
        const dt = new DataTransfer();
        dt.items.add(new File([Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0))], name));
        input.files = dt.files;
        input.dispatchEvent(new Event('change', { bubbles: true }));
        return { status: r.status, done: r.done, total: r.total };
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }, { bytes, name: path.basename(file) });
}

test('opening another file while a ranking runs leaves the new file unranked: the old ranking\'s results are dropped', async () => {
  await page.setInputFiles('#npz-input', longFile);
  await waitState((x) => x.graph && x.graph.name === path.basename(longFile), 'the long file');
  const running = await chooseWhileRanking(layoutFile);
  assert.ok(running.done >= 1 && running.done < running.total,
    `the ranking must still be running when the next file is chosen: ${JSON.stringify(running)}`);
  const opened = await waitState((x) => x.graph && x.graph.name === path.basename(layoutFile), 'the next file');
  // Whatever the old ranking still reports (progress, results) must not land on this file.
  await page.evaluate(() => window.fastslow.rankingsSettled());
  const s = await state();
  assert.equal(s.graph.name, path.basename(layoutFile));
  assert.equal(s.rank.status, 'idle');
  assert.equal(s.rank.done, 0);
  assert.equal(s.rank.scores, 0);
  assert.equal(s.rank.configs, 0);
  assert.deepEqual(await page.evaluate(() => window.fastslow.ranking()), { ranking: [], scores: [] });
  // The new file ranks as usual afterwards.
  assert.equal(await page.evaluate(() => window.fastslow.rank(0)), 1);
  const t = await waitState((x) => x.rank.status === 'done', 'the new ranking', 120000);
  assert.equal(t.rank.scores, opened.graph.unique_configs);
  assert.equal(t.rank.configs, opened.graph.configs);
  assert.deepEqual(pageErrors, []);
});

test('ranking the next file at once, while the old ranking is still stopping, ranks the next file only', async () => {
  await page.setInputFiles('#npz-input', longFile);
  await waitState((x) => x.graph && x.graph.name === path.basename(longFile), 'the long file');
  const running = await chooseWhileRanking(layoutFile);
  assert.ok(running.done >= 1 && running.done < running.total, JSON.stringify(running));
  const opened = await waitState((x) => x.graph && x.graph.name === path.basename(layoutFile), 'the next file');
  // No waiting for the old loop: the page runs one ranking at a time on a model's session.
  assert.equal(await page.evaluate(() => window.fastslow.rank(0)), 1);
  const t = await waitState((x) => x.rank.status === 'done', 'the next file\'s ranking', 120000);
  assert.equal(t.graph.name, path.basename(layoutFile));
  assert.equal(t.rank.configs, opened.graph.configs);
  assert.equal(t.rank.scores, opened.graph.unique_configs);
  await page.evaluate(() => window.fastslow.rankingsSettled());
  assert.equal((await state()).rank.configs, opened.graph.configs);
  assert.deepEqual(pageErrors, []);
});

test('a ranking of N batches crosses the C++/JS boundary 2 + N times', async () => {
  await page.setInputFiles('#npz-input', longFile);
  const opened = await waitState((x) => x.graph && x.graph.name === path.basename(longFile), 'the long file');
  const s = await rankCountingCalls();
  assert.ok(s.rank.total >= 2, `several batches expected, got ${s.rank.total}`);
  assert.equal(s.rank.scores, opened.graph.unique_configs);
  assert.deepEqual(pageErrors, []);
});

test('the competition row is IDed with the model\'s collection: the demo\'s layout:xla:random, another model\'s layout:nlp:default', async () => {
  const stem = path.basename(layoutFile, '.npz');
  const rankWith = async (index) => {
    assert.equal(await page.evaluate((i) => window.fastslow.rank(i), index), 1);
    await waitState((x) => x.rank.status === 'done', 'the ranking', 120000);
    const { ranking } = await page.evaluate(() => window.fastslow.ranking());
    return { ranking, csv: await page.evaluate(() => window.fastslow.submissionCsv()) };
  };
  // The file may be open already, ranked: opening it again leaves it unranked.
  await page.setInputFiles('#npz-input', layoutFile);
  await waitState((x) => x.graph && x.graph.name === path.basename(layoutFile) && x.rank.status === 'idle', 'the layout file');
  const demoRow = await rankWith(0);
  assert.equal(demoRow.csv.csv, `ID,TopConfigs\nlayout:xla:random:${stem},${demoRow.ranking.join(';')}\n`);
  // The same file ranked with the model trained on layout:nlp:default.
  await page.setInputFiles('#model-input', [path.join(nlpModel, 'model.onnx'), path.join(nlpModel, 'model.json')]);
  const models = await waitState((x) => x.models.length === 2, 'the second model');
  await page.evaluate(() => window.fastslow.modelsReady());
  const nlp = models.models.findIndex((m) => m.includes('layout:nlp:default'));
  assert.ok(nlp > 0, JSON.stringify(models.models));
  const nlpRow = await rankWith(nlp);
  assert.equal(nlpRow.csv.csv, `ID,TopConfigs\nlayout:nlp:default:${stem},${nlpRow.ranking.join(';')}\n`);
  assert.deepEqual(pageErrors, []);
});

test('where the model card names no collection, the submission row waits for the user\'s pick', async () => {
  await page.setInputFiles('#model-input', [path.join(programModel, 'model.onnx'), path.join(programModel, 'model.json')]);
  const models = await waitState((x) => x.models.some((m) => m.includes(path.basename(layoutFile))), 'the per-program model');
  await page.evaluate(() => window.fastslow.modelsReady());
  const program = models.models.findIndex((m) => m.includes(path.basename(layoutFile)));
  await page.setInputFiles('#npz-input', layoutFile);
  await waitState((x) => x.graph && x.graph.name === path.basename(layoutFile) && x.rank.status === 'idle', 'the layout file');
  assert.equal(await page.evaluate((i) => window.fastslow.rank(i), program), 1);
  const s = await waitState((x) => x.rank.status === 'done', 'the ranking', 120000);
  assert.equal(s.rank.collection, '');
  assert.match((await page.evaluate(() => window.fastslow.submissionCsv())).error, /pick the collection/);
  // Only a collection of the file's kind will do.
  assert.match((await page.evaluate(() => window.fastslow.pickCollection('tile:xla'))).error, /not a collection of layout graphs/);
  assert.deepEqual(await page.evaluate(() => window.fastslow.pickCollection('layout:xla:default')), { ok: true });
  const { ranking } = await page.evaluate(() => window.fastslow.ranking());
  const csv = await page.evaluate(() => window.fastslow.submissionCsv());
  assert.equal(csv.csv, `ID,TopConfigs\nlayout:xla:default:${path.basename(layoutFile, '.npz')},${ranking.join(';')}\n`);
  assert.equal(csv.name, `${path.basename(layoutFile, '.npz')}_submission.csv`);
  assert.equal((await state()).rank.collection, 'layout:xla:default');
  assert.deepEqual(pageErrors, []);
});

test('the config row the panel shows is the open file\'s, however files come and go', async () => {
  const [a, b, c] = layoutFiles;
  const open = async (file) => {
    await page.setInputFiles('#npz-input', file);
    await waitState((x) => x.graph && x.graph.name === path.basename(file), path.basename(file));
  };
  const shown = (config) => page.evaluate((k) => window.fastslow.configRow(k), config);
  assert.notDeepEqual(numpyRow(a, 0), numpyRow(c, 0), 'the test needs files whose first rows differ');
  await open(a);
  assert.deepEqual(await shown(0), numpyRow(a, 0));
  assert.deepEqual(await shown(130), numpyRow(a, 130));  // another block of rows
  // B opened and never looked at; C may then live where A did.
  await open(b);
  await open(c);
  assert.deepEqual(await shown(0), numpyRow(c, 0));
  assert.deepEqual(await shown(130), numpyRow(c, 130));
  await open(b);
  assert.deepEqual(await shown(0), numpyRow(b, 0));
  assert.deepEqual(pageErrors, []);
});

test('an exported ensemble opens as one model, says how many members it has, and ranks as `fastslow rank` does', async () => {
  await page.setInputFiles('#model-input', [path.join(ensembleModel, 'model.onnx'), path.join(ensembleModel, 'model.json')]);
  const models = await waitState((x) => x.models.some((m) => m.includes('ensemble of 2')), 'the ensemble');
  await page.evaluate(() => window.fastslow.modelsReady());
  const index = models.models.findIndex((m) => m.includes('ensemble of 2'));
  assert.equal(models.models[index], 'layout ensemble of 2 (layout:xla:random)');
  assert.equal(models.model_cards[index].members, 2);
  assert.equal(models.model_cards[0].members, 0, 'the demo is a single model');
  await page.setInputFiles('#npz-input', layoutFile);
  const opened = await waitState((x) => x.graph && x.graph.name === path.basename(layoutFile) && x.rank.status === 'idle',
    'the layout file');
  assert.equal(await page.evaluate((i) => window.fastslow.rank(i), index), 1);
  const s = await waitState((x) => x.rank.status === 'done', 'the ensemble\'s ranking', 120000);
  assert.equal(s.rank.scores, opened.graph.unique_configs);
  const native = nativeRanking(ensembleModel, layoutFile, path.join(work, 'ensemble.csv'));
  assertSameRanking(await page.evaluate(() => window.fastslow.ranking()), native, (n) => 1e-4 * Math.abs(n) + 1e-6);
  assert.equal(s.rank.kendall.toFixed(4), /kendall (\S+)/.exec(native.printed)[1]);
  assert.deepEqual(pageErrors, []);
});

// A study as `fastslow search` writes it (trials.jsonl): 12 trials, score
// (maximised) against latency (minimised, spanning more than 10x), every
// state; one failed trial carries values that would beat every other, and
// must not count.
function makeStudy() {
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const directions = { score: 'maximize', latency: 'minimize' };
  const trials = [];
  for (let n = 0; n < 12; n++) {
    const state = [3, 8].includes(n) ? 'pruned' : [6, 10].includes(n) ? 'failed' : 'complete';
    const hidden = [16, 32, 64][n % 3];
    const latency = +(0.05 * hidden * hidden * (1 + rnd())).toFixed(3);
    const score = +(0.3 + 0.08 * Math.log2(hidden) + 0.2 * rnd()).toFixed(4);
    const objectives = state === 'complete' ? { score, latency } : n === 10 ? { score: 0.99, latency: 0.1 } : {};
    trials.push({ number: n, state, params: { hidden, lr: +(10 ** (-1 - (n % 4))).toPrecision(2), model: ['sage', 'gcn', 'mlp'][n % 3] },
      objectives, directions, intermediate: [[1, score - 0.1]], seconds: 10 + n, hypervolume: null, run: `trials/${n}`,
      message: state === 'failed' ? 'diverged' : '' });
  }
  return { trials, text: trials.map((t) => JSON.stringify(t)).join('\n') + '\n' };
}

// The definition: complete trials no other complete trial dominates.
function bruteFront(trials, key = (t) => [t.objectives.score, -t.objectives.latency]) {
  const done = trials.filter((t) => t.state === 'complete');
  const dominates = (a, b) => a.every((v, i) => v >= b[i]) && a.some((v, i) => v > b[i]);
  return done.filter((t) => !done.some((u) => dominates(key(u), key(t)))).map((t) => t.number).sort((a, b) => a - b);
}

test('a study (trials.jsonl) opens with its counts, its Pareto front and scales; hovering names a trial; bad files show the core\'s message and a graph still ranks', async () => {
  const { trials, text } = makeStudy();
  const file = path.join(work, 'trials.jsonl');
  writeFileSync(file, text);
  await page.setInputFiles('#study-input', file);
  let s = await waitState((x) => x.study && x.study.name === 'trials.jsonl', 'the study');
  assert.equal(s.error, '');
  assert.deepEqual([s.study.trials, s.study.complete, s.study.pruned, s.study.failed], [12, 8, 2, 2]);
  assert.deepEqual(s.study.objectives, [{ name: 'score', direction: 'maximize' }, { name: 'latency', direction: 'minimize' }]);
  assert.deepEqual(s.study.params, ['hidden', 'lr', 'model']);
  // Score up, latency across (log: it spans more than 10x), as the page opens a study.
  assert.deepEqual([s.study.x, s.study.y, s.study.x_scale, s.study.y_scale], ['latency', 'score', 'log', 'linear']);
  const front = bruteFront(trials);
  assert.ok(front.length >= 2, `a front of ${front}`);
  assert.ok(!front.includes(10));
  assert.deepEqual(s.study.front, front);
  assert.deepEqual(s.study.pareto, front);
  assert.equal(s.study.points, 9, 'the complete trials and the failed one with values');
  // Against the trial number, the front is the best score so far.
  assert.deepEqual(await page.evaluate(() => window.fastslow.studyView({ x: 'trial', y: 'score' })), { ok: true });
  s = await state();
  assert.deepEqual(s.study.front, bruteFront(trials, (t) => [t.objectives.score, -t.number]));
  assert.equal(s.study.x_scale, 'linear');
  assert.match((await page.evaluate(() => window.fastslow.studyView({ x: 'speed' }))).error, /trials\.jsonl: no axis "speed"/);
  await page.evaluate(() => window.fastslow.studyView({ x: 'latency', y: 'score' }));
  // Score against each parameter: numbers on a linear or (beyond 10x) log axis, words on slots.
  const param = async (name) => {
    await page.evaluate((p) => window.fastslow.studyView({ param: p }), name);
    return (await state()).study;
  };
  assert.equal((await param('hidden')).param_scale, 'linear');
  assert.equal((await param('lr')).param_scale, 'log');
  const model = await param('model');
  assert.deepEqual([model.param_scale, model.param_labels, model.param_points], ['categorical', ['gcn', 'mlp', 'sage'], 9]);
  // The mouse on a front trial's point names it.
  const target = front[0];
  // Drawn by the next frame after the axes changed.
  await page.waitForFunction((n) => typeof window.fastslow.studyPoint(n).x === 'number', target, { timeout: 10000 });
  const at = await page.evaluate((n) => window.fastslow.studyPoint(n), target);
  await page.mouse.move(at.x, at.y);
  await waitState((x) => x.study.hovered === target, `trial ${target} under the mouse`, 10000);

  // Bad files: the core's message, naming the file and the line; the study stays.
  const lines = text.trim().split('\n');
  await page.evaluate((t) => {  // dropped on the page, as a user would
    const dt = new DataTransfer();
    dt.items.add(new File([t], 'cut.jsonl'));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, `${lines[0]}\n${lines[1]}\n${lines[2].slice(0, 40)}\n`);
  s = await waitState((x) => /cut\.jsonl/.test(x.error), 'the cut line\'s error');
  assert.match(s.error, /^cut\.jsonl:3: not a JSON object/);
  const wrong = `${lines[0]}\n${lines[1].replace('"number":1', '"number":"one"')}\n`;
  await page.setInputFiles('#study-input', { name: 'wrong.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(wrong) });
  s = await waitState((x) => /wrong\.jsonl/.test(x.error), 'the wrong field\'s error');
  assert.match(s.error, /^wrong\.jsonl:2: malformed trial/);
  const other = JSON.stringify({ ...trials[0], number: 12, directions: { score: 'maximize', params: 'minimize' } });
  const two = `${text}${other}\n`;
  await page.setInputFiles('#study-input', { name: 'two.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(two) });
  s = await waitState((x) => /two\.jsonl/.test(x.error), 'two studies\' error');
  assert.match(s.error, /^two\.jsonl:13: .*two studies in one file/);
  assert.equal((await page.evaluate(() => window.fastslow.openStudy('', 'empty.jsonl'))).error,
    'empty.jsonl: no trials in this file (a trials.jsonl has one JSON object per line)');
  s = await state();
  assert.equal(s.study.name, 'trials.jsonl');
  assert.deepEqual(s.study.front, front);
  assert.deepEqual(pageErrors, []);

  // The graph side still opens and ranks.
  await page.setInputFiles('#npz-input', layoutFile);
  const opened = await waitState((x) => x.graph && x.graph.name === path.basename(layoutFile) && x.rank.status === 'idle',
    'the layout file after the study');
  assert.equal(opened.error, '');
  assert.equal(await page.evaluate(() => window.fastslow.rank(0)), 1);
  const ranked = await waitState((x) => x.rank.status === 'done', 'the ranking after the study', 120000);
  assert.equal(ranked.rank.configs, opened.graph.configs);
  assert.equal(ranked.study.name, 'trials.jsonl');
  assert.deepEqual(pageErrors, []);
});

test('a precision study (fastslow search, [precision]) opens in the study view: validation score against the model\'s bytes, one precision per weight tensor', async () => {
  const toml = path.join(work, 'precision.toml');
  writeFileSync(toml, `[precision]\nrun = "${path.join(work, 'run')}"\n[objectives]\nscore = "maximize"\nonnx_bytes = "minimize"\n` +
    '[search]\nsampler = "random"\ntrials = 6\n');
  run('search', '--config', toml, '--out', path.join(work, 'precision-study'));
  const file = path.join(work, 'precision-study', 'trials.jsonl');
  const trials = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(trials.length, 6);
  await page.setInputFiles('#study-input', file);
  const s = await waitState((x) => x.study && x.study.objectives.some((o) => o.name === 'onnx_bytes'), 'the precision study');
  assert.equal(s.error, '');
  assert.equal(s.study.trials, 6);
  assert.deepEqual(s.study.objectives, [{ name: 'score', direction: 'maximize' }, { name: 'onnx_bytes', direction: 'minimize' }]);
  assert.ok(s.study.params.length > 0 && s.study.params.every((p) => /^tensor_\d+$/.test(p)), s.study.params.join());
  assert.deepEqual(s.study.front, bruteFront(trials, (t) => [t.objectives.score, -t.objectives.onnx_bytes]));
  assert.deepEqual([s.study.x, s.study.y].sort(), ['onnx_bytes', 'score']);
});

// Tune on a tile kernel: the tile space's menu (tune/tile_space.h), the
// candidates standardised as the tile model reads them; one CSV row per
// proposal, each a config the generator prices.
test('Tune on a tile kernel proposes tile configs the generator prices', async () => {
  await page.setInputFiles('#model-input', [path.join(tileModel, 'model.onnx'), path.join(tileModel, 'model.json')]);
  const models = await waitState((x) => x.models.some((m) => m.includes('tile:xla')), 'the tile model');
  await page.evaluate(() => window.fastslow.modelsReady());
  const tile = models.models.findIndex((m) => m.includes('tile:xla'));
  const opened = await openOnce(tileFile);
  assert.equal(opened.graph.kind, 'tile');
  assert.equal(await page.evaluate((i) => window.fastslow.tune(4, 300, i), tile), 1);
  const s = await waitState((x) => x.tune.status !== 'running', 'the tile proposals', 120000);
  assert.equal(s.tune.status, 'done', s.tune.message);
  assert.ok(s.tune.proposals.length >= 1 && s.tune.proposals.length <= 4, JSON.stringify(s.tune));
  const { csv } = await page.evaluate(() => window.fastslow.proposalsCsv());
  const lines = csv.trim().split('\n');
  assert.match(lines[0], /^proposal,score,predicted_speedup_over_best_measured,changed_from_measured,kernel_bounds_0,/);
  assert.equal(lines.length, s.tune.proposals.length + 1);
  const csvFile = path.join(work, 'tile-proposed.csv'), npzFile = path.join(work, 'tile-proposed.npz');
  writeFileSync(csvFile, csv);
  const py = spawnSync('/usr/bin/python3', ['-c', `
import numpy as np, sys
g = dict(np.load(sys.argv[1]))
rows = np.loadtxt(sys.argv[2], delimiter=',', skiprows=1, ndmin=2)
feat = rows[:, 4:].astype(np.float32)
assert feat.shape[1] == 24
measured = g['config_feat'][g['config_runtime'] > 0]
off = [int((measured != f[None]).sum(axis=1).min()) for f in feat]
assert rows[:, 3].astype(int).tolist() == off, (rows[:, 3].tolist(), off)
known = {tuple(r) for r in g['config_feat'].tolist()}
assert not any(tuple(r) in known for r in feat.tolist()), 'a proposal the file measured'
g['config_feat'] = feat
g['config_runtime'] = np.zeros(feat.shape[0], dtype=np.int64)
g['config_runtime_normalizers'] = np.ones(feat.shape[0], dtype=np.int64)
np.savez_compressed(sys.argv[3], **g)
`, tileFile, csvFile, npzFile], { encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const priced = run('synth', '--price', tileFile, '--configs', npzFile).trim().split('\n').slice(1);
  assert.equal(priced.length, s.tune.proposals.length);
  for (const l of priced) assert.ok(Number(l.split(',')[1]) > 0, l);
  assert.deepEqual(pageErrors, []);
});

// The real 21,918-node nlp test graph as a user meets it (issue 34): at fit
// few edge segments and every configurable node marked; a pattern search
// finds what numpy finds in the file and Enter-style stepping walks its
// matches; arrow keys walk to an operand and Esc clears; the model's view;
// two configs compared against their rows; the view as SVG that Chromium
// parses.
test('the real nlp graph at fit: few edges drawn, configurable nodes marked, pattern search, keys, compare, folded chains and layers, SVG and PNG, another file', async () => {
  const nlp = path.join(sampleData, 'real', 'layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba.npz');
  await openOnce(nlp);
  await page.evaluate(() => window.fastslow.fit());
  let s = await waitState((x) => x.graph.name === path.basename(nlp) && x.graph.edge_segments > 0 && x.frames > 3, 'nlp at fit');
  await page.waitForTimeout(300);
  s = await state();
  assert.equal(s.graph.nodes, 21918);
  assert.ok(s.graph.edges_drawn < 5000, `${s.graph.edges_drawn} edge segments at fit`);
  assert.equal(s.graph.configurable_marked, 848);

  // numpy's answer for "dot -> add": dots whose output some add reads, and
  // the first one's operands.
  const py = spawnSync('/usr/bin/python3', ['-c', `
import numpy as np, sys, json
z = np.load(sys.argv[1]); op = z['node_opcode']; e = z['edge_index']
names = {int(l.split('\\t')[0]): l.split('\\t')[1] for l in open(sys.argv[2]).read().splitlines()[1:]}
dot = [k for k, n in names.items() if n == 'dot'][0]; add = [k for k, n in names.items() if n == 'add'][0]
starts = sorted({int(v) for u, v in e if op[v] == dot and op[u] == add})
print(json.dumps({'starts': starts, 'operands': sorted({int(v) for u, v in e if u == starts[0]})}))
`, nlp, path.join(sampleData, 'hlo_opcodes.tsv')], { encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const want = JSON.parse(py.stdout);
  await page.evaluate(() => window.fastslow.search('dot -> add'));
  s = await state();
  assert.equal(s.search.error, '');
  assert.equal(s.search.matches, want.starts.length);
  await page.evaluate(() => window.fastslow.searchStep(1));
  assert.equal((await state()).selected, want.starts[0]);
  await page.evaluate(() => window.fastslow.searchStep(1));
  assert.equal((await state()).selected, want.starts[1]);
  await page.evaluate(() => window.fastslow.search('dot -> '));
  assert.match((await state()).search.error, /empty/);
  await page.evaluate(() => window.fastslow.search(''));

  // Keys: Up walks to an operand, Esc clears the selection. Each key is
  // held for 150 ms, as a person's is: ImGui 1.86 reads key state once per
  // frame, so a press and release between two frames would be lost.
  const tap = async (key) => {
    await page.keyboard.down(key);
    await page.waitForTimeout(150);
    await page.keyboard.up(key);
  };
  await page.evaluate((v) => window.fastslow.select(v), want.starts[0]);
  await page.mouse.move(200, 300);
  await tap('ArrowUp');
  s = await waitState((x) => x.selected !== want.starts[0], 'the walk up');
  assert.ok(want.operands.includes(s.selected), `${s.selected} is not an operand of ${want.starts[0]}`);
  await tap('Escape');
  await waitState((x) => x.selected === -1, 'Esc');

  // What the model reads: 2,850 nodes (the configurable ones and their 1-hop neighbours).
  await page.evaluate(() => window.fastslow.nodeSet('model_reads', 1));
  await page.evaluate(() => window.fastslow.fit());
  s = await waitState((x) => x.graph.node_set === 'model_reads' && x.graph.configurable_marked === 848, 'the model\'s view');
  assert.equal(s.graph.display_nodes, 2850);
  assert.equal(s.graph.hidden_nodes, 21918 - 2850);
  await page.evaluate(() => window.fastslow.nodeSet('all'));

  // Configs 0 and 1 against their rows, node by node.
  const diff = await page.evaluate(() => window.fastslow.compare(0, 1));
  const rows = await page.evaluate(() => [window.fastslow.configRow(0), window.fastslow.configRow(1)]);
  const ids = JSON.parse(spawnSync('/usr/bin/python3', ['-c',
    'import numpy as np, sys; print(list(map(int, np.load(sys.argv[1])["node_config_ids"])))', nlp], { encoding: 'utf8' }).stdout);
  const width = rows[0].length / ids.length;
  const differ = ids.filter((id, slot) => rows[0].slice(slot * width, (slot + 1) * width).some((v, k) => v !== rows[1][slot * width + k]))
    .sort((a, b) => a - b);
  assert.ok(differ.length > 0);
  assert.deepEqual(diff.nodes, differ);
  assert.deepEqual((await state()).compare.nodes, differ);
  assert.match((await page.evaluate(() => window.fastslow.compare(0, 99999))).error, /config 99999 out of range/);
  await page.evaluate(() => window.fastslow.compare(-1, -1));

  // Elementwise chains folded into boxes, and opened again.
  await page.evaluate(() => window.fastslow.foldChains(true));
  s = await state();
  assert.ok(s.graph.chains > 1000, `${s.graph.chains} chains`);
  assert.equal(s.graph.folded_chains, s.graph.chains);
  assert.ok(s.graph.display_nodes < 21918 - s.graph.chains, `${s.graph.display_nodes} display nodes`);
  await page.evaluate(() => window.fastslow.foldChains(false));
  assert.equal((await state()).graph.display_nodes, 21918);

  // The view as SVG, zoomed onto a selected configurable node: Chromium
  // parses it, it holds one box per node it says it wrote, the node among them.
  await page.evaluate((v) => window.fastslow.select(v), differ[0]);
  await waitState((x) => x.selected === differ[0], 'the selection');
  const svg = await page.evaluate(() => window.fastslow.viewSvg(2));
  assert.equal(svg.name, 'layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba_view.svg');
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    if (doc.querySelector('parsererror')) return { error: doc.querySelector('parsererror').textContent };
    const nodes = [...doc.querySelectorAll('rect.node')].map((r) => Number(r.getAttribute('data-node')));
    return { nodes, width: doc.documentElement.getAttribute('width') };
  }, svg.svg);
  assert.equal(parsed.error, undefined);
  assert.equal(parsed.nodes.length, svg.nodes);
  assert.ok(parsed.nodes.includes(differ[0]));
  assert.ok(Number(parsed.width) > 1000, parsed.width);  // scale 2

  // The same view as PNG at 1.5x: Chromium draws the SVG, legend included.
  const png = await pngFromPage('viewPng', 1.5);
  assert.equal(png.error, undefined);
  assert.equal(png.name, 'layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba_view.png');
  const at1 = await page.evaluate(() => window.fastslow.viewSvg(1));
  const [w1, h1] = /width="([\d.]+)" height="([\d.]+)"/.exec(at1.svg).slice(1).map(Number);
  const decoded = decodePng(png.bytes);
  assert.equal(decoded.width, Math.round(w1 * 1.5));
  assert.equal(decoded.height, Math.round(h1 * 1.5));
  assert.ok(new Set(Array.from({ length: 400 }, (_, k) => decoded.px[Math.floor(k * decoded.px.length / 400 / 4) * 4])).size > 2,
    'the PNG is more than its background');
  assert.match((await pngFromPage('viewPng', 1000)).error, /more than a browser canvas holds/);

  // The transformer's layers folded, one opened in place: nodes above it
  // stay where they were, those below keep their x.
  await page.evaluate(() => window.fastslow.select(-1));
  await page.evaluate(() => window.fastslow.foldBlocks(true));
  s = await state();
  assert.ok(s.graph.blocks > 2, `${s.graph.blocks} blocks`);
  assert.equal(s.graph.folded_blocks, s.graph.blocks);
  const places = await page.evaluate(() => Array.from({ length: 21918 }, (_, v) => window.fastslow.node(v)));
  const inside = places.findIndex((p) => p.display < 0);
  const box = -1 - places[inside].display, L = places[inside].layer;
  await page.evaluate((b) => window.fastslow.openBox(b), box);
  s = await state();
  assert.equal(s.graph.folded_blocks, s.graph.blocks - 1);
  const moved = await page.evaluate(() => Array.from({ length: 21918 }, (_, v) => window.fastslow.node(v)));
  let above = 0, below = 0;
  places.forEach((p, v) => {
    if (p.display === places[inside].display) return;
    if (p.layer < L) {
      above++;
      assert.deepEqual([moved[v].x, moved[v].y], [p.x, p.y], `node ${v} above the box moved`);
    } else if (p.layer > L) {
      below++;
      assert.equal(moved[v].x, p.x, `node ${v} below the box moved sideways`);
    }
  });
  assert.ok(above > 0 && below > 0, `${above} above, ${below} below`);
  await page.evaluate(() => window.fastslow.foldBlocks(false));

  // Compared with another graph's file: the nodes without a partner light up.
  const other = path.join(sampleData, 'real', 'layout_nlp_random_test_23559853d9702baaaacbb0c83fd32266.npz');
  const cmp = await page.evaluate(([bytes, name]) => window.fastslow.compareFile(new Uint8Array(bytes), name),
    [Array.from(readFileSync(other)), path.basename(other)]);
  assert.equal(cmp.error, undefined);
  assert.equal(cmp.same_graph, false);
  assert.equal(cmp.nodes[0], 21918);
  assert.equal(cmp.matched + cmp.unmatched, 21918);
  await page.evaluate(() => window.fastslow.showUnmatched());
  assert.equal((await state()).highlighted, cmp.unmatched);
  // ... and through the file chooser File > Compare opens.
  await page.setInputFiles('#compare-input', alexnet);
  s = await waitState((x) => x.file_compare && x.file_compare.other === 'cleaned_alexnet.npz', 'the chosen file compared');
  assert.equal(s.file_compare.nodes[1], 372);
  assert.deepEqual(pageErrors, []);
});

// window.fastslow[fn](scale) (a PNG) brought out of the page: {name, bytes (a Buffer), width, height} or {error}.
async function pngFromPage(fn, scale) {
  const r = await page.evaluate(async ([f, k]) => {
    const x = await window.fastslow[f](k);
    if (x.error) return x;
    let bin = '';
    for (let i = 0; i < x.bytes.length; i += 32768) bin += String.fromCharCode(...x.bytes.subarray(i, i + 32768));
    return { name: x.name, width: x.width, height: x.height, b64: btoa(bin) };
  }, [fn, scale]);
  return r.error ? r : { ...r, bytes: Buffer.from(r.b64, 'base64') };
}
