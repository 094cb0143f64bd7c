// Explorer benchmark in headless Chromium (SwiftShader WebGL, this machine):
//  1. open a generated 20,000-node layout graph: time from the file to the
//     first full frame with it (read, validate, lay out, upload, draw);
//  2. CPU time per frame at fit-to-screen (median over ~3 s of frames);
//  3. rank the 1,000 configs of a generated 5,000-node graph with a model,
//     and the 1,001 configs of the real nlp graph below with the same model;
//  4. the real 21,918-node nlp test graph (data/real): open, frames at fit,
//     edge segments drawn against its edges, configurable nodes marked,
//     a pattern search over all nodes ("dot -> add"), the view as SVG and
//     as PNG, its layers folded and one opened in place (against laying the
//     display out again), compared with another nlp graph's file;
//     and the edge segments and search on the generated 50,000-node graph.
// The references are the issues' targets (2 s, 16 ms; ranking 0.5 s and
// 1.5 s, issue 33) and, for
// ranking, `fastslow rank` (LibTorch) on the same file and model, same run.
//   node bench/explorer_bench.mjs SITE_DIR GRAPH20K.npz GRAPH5K.npz MODEL_DIR FASTSLOW GRAPH50K.npz
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const require = createRequire(path.join(root, 'web', 'package.json'));
const { chromium } = require('playwright-core');
const { serve } = await import(path.join(root, 'web/serve.mjs'));

const [site, g20k, g5k, modelDir, fastslow, g50k] = process.argv.slice(2);
if (!g50k) {
  console.error('usage: node bench/explorer_bench.mjs SITE_DIR GRAPH20K.npz GRAPH5K.npz MODEL_DIR FASTSLOW GRAPH50K.npz');
  process.exit(1);
}
const server = await serve(site, 0);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.goto(`http://127.0.0.1:${server.address().port}/`);
await page.waitForFunction(() => window.fastslow && window.fastslow.ready);
await page.evaluate(() => window.fastslow.ready);
// The demo model is warmed up in ONNX Runtime's worker as the page opens
// (ranker.mjs); measure once it is, as a user who looks before ranking.
await page.evaluate(() => window.fastslow.modelsReady());
const state = () => page.evaluate(() => window.fastslow.state());
async function until(pred, timeout = 300000) {
  const t0 = Date.now();
  for (;;) {
    const s = await state();
    if (pred(s)) return s;
    if (Date.now() - t0 > timeout) throw new Error(`timeout: ${JSON.stringify(s)}`);
    await page.waitForTimeout(50);
  }
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

// 1. Open -> first frame. The bytes are handed over in memory (as a dropped
// file's are after reading); the clock starts before the app sees them.
// 2. Frames at fit-to-screen.
async function openAndDraw(file) {
  await page.setInputFiles('#npz-input', file);
  const opened = await until((s) => s.graph && s.graph.name === path.basename(file) && s.first_frame_ms > 0);
  await page.evaluate(() => window.fastslow.fit());
  await page.waitForTimeout(500);
  const frames = [];
  for (let i = 0; i < 60; i++) {
    frames.push((await state()).frame_ms);
    await page.waitForTimeout(50);
  }
  const fit = await state();
  // A pattern over all nodes, as typed in the search box.
  const searches = [];
  for (let i = 0; i < 5; i++) {
    await page.evaluate(() => window.fastslow.search('dot -> add'));
    searches.push((await state()).search);
  }
  await page.evaluate(() => window.fastslow.search(''));
  // The view as SVG (zoomed onto a configurable node, where labels show).
  await page.evaluate(() => window.fastslow.fit());
  await page.waitForTimeout(200);
  const svg = await page.evaluate(() => { const t0 = performance.now(); const r = window.fastslow.viewSvg(1);
    return { ms: performance.now() - t0, nodes: r.nodes, bytes: r.svg ? r.svg.length : 0, error: r.error }; });
  // The view as PNG at 2x (the browser draws the SVG).
  const png = await page.evaluate(async () => { const t0 = performance.now(); const r = await window.fastslow.viewPng(2);
    return { ms: performance.now() - t0, width: r.width, height: r.height, bytes: r.bytes ? r.bytes.length : 0, error: r.error }; });
  // Repeated blocks: every copy folded, then one opened in place; the
  // reference is what opening cost before, laying the whole display out again.
  const blocks = await page.evaluate(() => {
    const t0 = performance.now();
    window.fastslow.foldBlocks(true);
    const fold = performance.now() - t0;
    const s = window.fastslow.state();
    if (!s.graph.blocks) return { blocks: 0 };
    let box = -1;
    for (let v = 0; v < s.graph.nodes && box < 0; v++) { const p = window.fastslow.node(v); if (p.display < 0) box = -1 - p.display; }
    const t1 = performance.now();
    window.fastslow.openBox(box);
    const open = performance.now() - t1;
    const t2 = performance.now();
    window.fastslow.foldBlocks(true);
    const relayout = performance.now() - t2;
    window.fastslow.foldBlocks(false);
    return { blocks: s.graph.blocks, display_nodes_folded: s.graph.display_nodes, fold_ms: fold, open_in_place_ms: open,
      relayout_ms: relayout };
  });
  return {
    png_2x: png,
    blocks,
    graph: { nodes: opened.graph.nodes, edges: opened.graph.edges, layers: opened.graph.layers,
      read_validate_ms: opened.graph.load_ms, layout_ms: opened.graph.layout_ms, open_to_first_frame_ms: opened.first_frame_ms },
    frame_cpu_ms_at_fit: { median: median(frames), max: Math.max(...frames), samples: frames.length },
    at_fit: { edges_drawn: fit.graph.edges_drawn, edges: fit.graph.edges, configurable_marked: fit.graph.configurable_marked,
      configurable_nodes: fit.graph.configurable_nodes, hubs: fit.graph.hubs },
    pattern_search: { query: 'dot -> add', matches: searches[0].matches, ms_median: median(searches.map((x) => x.ms)) },
    svg_at_fit: svg,
  };
}
const main = await openAndDraw(g20k);
// The largest real layout graphs have about 50,000 nodes (opened second:
// the 20,000-node figure is the first open of the session, the cold one).
const big = await openAndDraw(g50k);

// 4. The real nlp test graph, 21,918 nodes (committed in data/real).
const nlp = await openAndDraw(path.join(root, 'data/real/layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba.npz'));
// ... compared with another nlp graph's file (structure matching included).
const otherNlp = readFileSync(path.join(root, 'data/real/layout_nlp_random_test_23559853d9702baaaacbb0c83fd32266.npz'));
const compareFile = await page.evaluate(([bytes]) => {
  const t0 = performance.now();
  const r = window.fastslow.compareFile(new Uint8Array(bytes), 'nlp_random.npz');
  return { ms: performance.now() - t0, matched: r.matched, unmatched: r.unmatched, nodes: r.nodes, error: r.error };
}, [Array.from(otherNlp)]);

// 3. Ranking 1000 configs of the 5000-node graph.
// Opening a model builds its ONNX Runtime session and warms it up; that
// time is reported apart from the ranking's.
const modelT0 = Date.now();
await page.setInputFiles('#model-input', [path.join(modelDir, 'model.onnx'), path.join(modelDir, 'model.json')]);
const withModel = await until((s) => s.models.length >= 2);
await page.evaluate(() => window.fastslow.modelsReady());
const modelReadyMs = Date.now() - modelT0;
await page.setInputFiles('#npz-input', g5k);
await until((s) => s.graph && s.graph.name === path.basename(g5k));
await page.evaluate((i) => window.fastslow.rank(i), withModel.models.length - 1);
const ranked = await until((s) => s.rank.status === 'done' || s.rank.status === 'failed');
const native = execFileSync(fastslow, ['rank', '--model', modelDir, g5k], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const nativeMs = Number(/scored in ([\d.]+) ms/.exec(native)[1]);
// ... and the real nlp graph's 1,001 configs with the same model.
const nlpPath = path.join(root, 'data/real/layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba.npz');
await page.setInputFiles('#npz-input', nlpPath);
await until((s) => s.graph && s.graph.name === path.basename(nlpPath));
await page.evaluate((i) => window.fastslow.rank(i), withModel.models.length - 1);
const rankedNlp = await until((s) => s.rank.status === 'failed' || (s.rank.status === 'done' && s.rank.configs === 1001));
const nativeNlp = execFileSync(fastslow, ['rank', '--model', modelDir, nlpPath], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const nativeNlpMs = Number(/scored in ([\d.]+) ms/.exec(nativeNlp)[1]);

const result = {
  graph_20k: main.graph,
  frame_cpu_ms_at_fit: main.frame_cpu_ms_at_fit,
  graph_50k: { ...big.graph, frame_cpu_ms_at_fit: big.frame_cpu_ms_at_fit, at_fit: big.at_fit,
    pattern_search: big.pattern_search, svg_at_fit: big.svg_at_fit },
  real_nlp_21918: { ...nlp.graph, frame_cpu_ms_at_fit: nlp.frame_cpu_ms_at_fit, at_fit: nlp.at_fit,
    pattern_search: nlp.pattern_search, svg_at_fit: nlp.svg_at_fit, png_2x: nlp.png_2x, blocks: nlp.blocks,
    compare_file: compareFile },
  rank_5k: { status: ranked.rank.status, message: ranked.rank.message, configs: ranked.rank.configs,
    browser_seconds: ranked.rank.seconds, libtorch_model_seconds: nativeMs / 1000,
    model_open_and_warm_up_seconds: modelReadyMs / 1000 },
  rank_real_nlp: { status: rankedNlp.rank.status, message: rankedNlp.rank.message, configs: rankedNlp.rank.configs,
    browser_seconds: rankedNlp.rank.seconds, libtorch_model_seconds: nativeNlpMs / 1000 },
  threads: await page.evaluate(() => globalThis.crossOriginIsolated),
};
console.log(JSON.stringify(result, null, 2));
console.log(`open -> first frame ${result.graph_20k.open_to_first_frame_ms.toFixed(0)} ms (target 2000), ` +
  `frame ${result.frame_cpu_ms_at_fit.median.toFixed(1)} ms at fit (target 16), ` +
  `rank 1000 configs ${result.rank_5k.browser_seconds.toFixed(2)} s (target 0.5; LibTorch ${result.rank_5k.libtorch_model_seconds.toFixed(2)} s)`);
console.log(`real nlp: rank ${result.rank_real_nlp.configs} configs ${result.rank_real_nlp.browser_seconds.toFixed(2)} s ` +
  `(target 1.5; LibTorch ${result.rank_real_nlp.libtorch_model_seconds.toFixed(2)} s)`);
console.log(`${big.graph.nodes} nodes: open -> first frame ${big.graph.open_to_first_frame_ms.toFixed(0)} ms ` +
  `(layout ${big.graph.layout_ms.toFixed(0)} ms; target about 1 s), frame ${big.frame_cpu_ms_at_fit.median.toFixed(1)} ms at fit`);
for (const [name, g] of [['real nlp', nlp], [`generated ${big.graph.nodes}`, big]]) {
  console.log(`${name}: open -> first frame ${g.graph.open_to_first_frame_ms.toFixed(0)} ms (target 1000), ` +
    `frame ${g.frame_cpu_ms_at_fit.median.toFixed(1)} ms at fit (target 16); at fit ${g.at_fit.edges_drawn} edge segments ` +
    `for ${g.at_fit.edges} edges (${(g.at_fit.edges / Math.max(1, g.at_fit.edges_drawn)).toFixed(1)}x fewer; target < 5000), ` +
    `${g.at_fit.configurable_marked} of ${g.at_fit.configurable_nodes} configurable nodes marked, ${g.at_fit.hubs} hubs; ` +
    `"${g.pattern_search.query}" ${g.pattern_search.matches} matches in ${g.pattern_search.ms_median.toFixed(1)} ms (target 100); ` +
    `SVG of the view ${g.svg_at_fit.ms.toFixed(0)} ms, ${g.svg_at_fit.nodes} nodes, ${(g.svg_at_fit.bytes / 1e6).toFixed(1)} MB (target 2000 ms); ` +
    `PNG at 2x ${g.png_2x.ms.toFixed(0)} ms (${g.png_2x.width} x ${g.png_2x.height})`);
  if (g.blocks.blocks)
    console.log(`${name}: ${g.blocks.blocks} repeated blocks folded in ${g.blocks.fold_ms.toFixed(0)} ms ` +
      `(${g.blocks.display_nodes_folded} display nodes); one opened in place in ${g.blocks.open_in_place_ms.toFixed(0)} ms ` +
      `against ${g.blocks.relayout_ms.toFixed(0)} ms to lay the display out again (${(g.blocks.relayout_ms / Math.max(0.1, g.blocks.open_in_place_ms)).toFixed(1)}x)`);
}
console.log(`real nlp against nlp_random: compared in ${compareFile.ms.toFixed(0)} ms, ${compareFile.matched} of ` +
  `${compareFile.nodes ? compareFile.nodes[0] : '?'} nodes matched by structure`);
await browser.close();
server.close();
