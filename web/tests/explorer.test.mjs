// The explorer in headless Chromium (SwiftShader WebGL), driven as a user
// would: the demo on load, files through the file chooser, ranking with the
// demo model, a corrupt file. App state comes from the page's getters
// (window.fastslow), not from pixels, except the one screenshot check.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../serve.mjs';
import { decodePng } from './png.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const fastslow = path.join(root, 'build/native/bin/fastslow');
const alexnet = path.resolve(root, '..', 'shared', 'data', 'cleaned_alexnet.npz');
const unet3d = path.resolve(root, '..', 'shared', 'data', 'real', 'layout_xla_default_train_unet3d.npz');
const work = mkdtempSync(path.join(tmpdir(), 'fastslow-explorer-'));
const run = (...args) => execFileSync(fastslow, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let server, browser, page, layoutFile, demo, bigFile;
const pageErrors = [];

before(async () => {
  // A demo as scripts/run.sh makes one, smaller: tiny data, a briefly trained default layout model.
  const data = path.join(work, 'tiny');
  run('synth', '--scale', 'tiny', '--seed', '7', '--out', data);
  const valid = path.join(data, 'npz/layout/xla/random/valid');
  layoutFile = path.join(valid, readdirSync(valid).filter((f) => f.endsWith('.npz')).sort()[0]);
  run('train', '--data', data, '--collection', 'layout:xla:random', '--out', path.join(work, 'run'),
    '--epochs', '1', '--steps-per-epoch', '4', '--threads', '2');
  // A bigger generated graph with several computations (node_splits).
  bigFile = run('synth', '--graph', 'layout:xla:random', '--nodes', '1500', '--configs', '20', '--seed', '1', '--out',
    path.join(work, 'big')).trim();
  demo = path.join(work, 'demo');
  run('export', '--run', path.join(work, 'run'), '-o', demo);
  copyFileSync(layoutFile, path.join(demo, 'demo.npz'));
  const site = path.join(work, 'site');
  execFileSync('bash', [path.join(root, 'scripts/stage_site.sh'), site, demo], { stdio: 'ignore' });
  server = await serve(site, 0);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.fastslow && window.fastslow.ready);
  await page.evaluate(() => window.fastslow.ready);
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.close();
  rmSync(work, { recursive: true, force: true });
});

const state = () => page.evaluate(() => window.fastslow.state());
async function waitState(pred, what, timeout = 60000) {
  const t0 = Date.now();
  for (;;) {
    const s = await state();
    if (pred(s)) return s;
    if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(s)}`);
    await page.waitForTimeout(100);
  }
}

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

test('ranking a generated layout file with the demo model equals `fastslow rank`', async () => {
  await page.setInputFiles('#npz-input', layoutFile);
  const opened = await waitState((x) => x.graph && x.graph.name === path.basename(layoutFile), 'the layout file');
  assert.equal(await page.evaluate(() => window.fastslow.rank(0)), 1);
  const s = await waitState((x) => x.rank.status === 'done', 'the ranking', 120000);
  assert.equal(s.rank.configs, opened.graph.configs);
  assert.equal(s.rank.scores, opened.graph.unique_configs);
  assert.equal(typeof s.rank.kendall, 'number');
  const browserRanking = await page.evaluate(() => window.fastslow.ranking());
  const csv = path.join(work, 'native.csv');
  const printed = run('rank', '--model', demo, layoutFile, '--csv', csv);
  const rows = readFileSync(csv, 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const nativeScore = new Map(rows.map(([, c, , sc]) => [Number(c), Number(sc)]));
  assert.equal(browserRanking.ranking.length, rows.length);
  for (let i = 0; i < rows.length; i++) {
    const b = browserRanking.ranking[i], n = Number(rows[i][1]);
    if (b !== n) {
      const x = nativeScore.get(b), y = nativeScore.get(n);
      assert.ok(Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(x), Math.abs(y)), `position ${i}: ${b} vs ${n}`);
    }
    assert.ok(Math.abs(browserRanking.scores[b] - nativeScore.get(b)) <= 1e-4 * Math.max(1e-6, Math.abs(nativeScore.get(b))));
  }
  assert.equal(s.rank.kendall.toFixed(4), /kendall (\S+)/.exec(printed)[1]);
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
