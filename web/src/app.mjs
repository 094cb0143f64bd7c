// The page's JS: boots the explorer (wasm + Dear ImGui), feeds it files
// (drag and drop, file choosers: graphs, models, studies' trials.jsonl),
// keeps the models (model.onnx + model.json) and runs rankings with ONNX
// Runtime Web through ranker.mjs, reporting progress and results back to
// the app. window.fastslow exposes the app's
// state to tests and to the curious. Every call into the wasm goes through
// M.api, generated from wasm/js_api.h (the contract).
import * as ort from './ort/ort.wasm.min.mjs';
import { toHeap, withCopy } from './core.mjs';
import { Ranker } from './ranker.mjs';

// Bigger files do not fit the wasm heap next to what is derived from them.
const MAX_FILE_BYTES = 1536 * 1024 * 1024;
// A file is copied into the heap in pieces this big, so the page never holds
// a second whole copy of it in JS.
const READ_PIECE_BYTES = 16 * 1024 * 1024;
ort.env.wasm.wasmPaths = new URL('./ort/', import.meta.url).href;
// Threads need a cross-origin-isolated page (serve.mjs sends the headers).
// Inference runs in ONNX Runtime's worker so the UI keeps drawing frames.
ort.env.wasm.proxy = true;
// One core is left to the page (and the GPU process): on this 2-core machine
// 2 threads ranked no faster than 1 and slowed the frames drawn meanwhile.
ort.env.wasm.numThreads = globalThis.crossOriginIsolated ? Math.min(4, Math.max(1, (navigator.hardwareConcurrency || 1) - 1)) : 1;

// The file itself is not kept here: the app's document holds its bytes.
// `opening` settles with the last graph file's open: {name, ok} or {name, error}.
const state = { models: [], rankings: new Set(), lastRanking: Promise.resolve(), opening: Promise.resolve(null) };
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

let M = null;
// The result of f(), or {error: message} for what it threw (the app shows its own errors).
const orError = (f) => {
  try {
    return f();
  } catch (e) {
    return { error: e.message };
  }
};

// Shows `message` in the app's error box, in place of the status (the
// previous file stays), and returns it as the open's {error}.
function refuse(message) {
  M.api.explorer_set_status('');
  M.api.explorer_set_error(message);
  return { error: message };
}

// {error} for a file too big to open, null for one that fits.
function tooLarge(size, name) {
  if (size <= MAX_FILE_BYTES) return null;
  return refuse(`${name}: ${mb(size)} is more than the page can hold (at most ${mb(MAX_FILE_BYTES)}); ` +
    'rank it with `fastslow rank` instead');
}

// Opens the file whose `size` bytes are at `p` in the heap; the app takes them over.
function openInHeap(p, size, name, started) {
  return orError(() => M.api.explorer_open(p, size, name, started));  // on error the previous graph stays
}

// Records the open of file `name` (a promise of {ok} or {error}) as the last one.
function opening(name, result) {
  state.opening = result.then((r) => ({ name, ...r }));
  return result;
}

// Opens a file held in JS (the demo, scripts): copied into the heap, not kept.
const openGraph = (bytes, name) => opening(name, openGraphNow(bytes, name));
async function openGraphNow(bytes, name) {
  const started = performance.now();
  const big = tooLarge(bytes.byteLength, name);
  if (big) return big;
  M.api.explorer_set_status(`opening ${name} (${mb(bytes.byteLength)})...`);
  await frame();  // let the status show before the parse blocks the thread
  return openInHeap(toHeap(M, bytes), bytes.byteLength, name, started);
}

// Opens a chosen or dropped file, read piece by piece straight into the heap.
const openFile = (file) => opening(file.name, openFileNow(file));
async function openFileNow(file) {
  const started = performance.now();
  const big = tooLarge(file.size, file.name);
  if (big) return big;
  M.api.explorer_set_status(`reading ${file.name} (${mb(file.size)})...`);
  const p = M._malloc(Math.max(1, file.size));
  if (!p) return refuse(`${file.name}: no memory left for ${mb(file.size)}`);
  try {
    for (let at = 0; at < file.size; at += READ_PIECE_BYTES) {
      const piece = new Uint8Array(await file.slice(at, at + READ_PIECE_BYTES).arrayBuffer());
      M.HEAPU8.set(piece, p + at);  // HEAPU8 afresh: the heap may have grown meanwhile
    }
  } catch (e) {
    M._free(p);
    return refuse(`${file.name}: could not be read (${e.message || e})`);
  }
  M.api.explorer_set_status(`opening ${file.name} (${mb(file.size)})...`);
  await frame();
  return openInHeap(p, file.size, file.name, started);
}

// Compares the open graph with another file held as bytes (compare.h): the
// app takes a heap copy over and keeps only the comparison.
function compareBytes(bytes, name) {
  const big = tooLarge(bytes.byteLength, name);
  if (big) return big;
  return orError(() => M.api.explorer_compare_file(toHeap(M, bytes), bytes.byteLength, name));
}

// An SVG (the core's: the graph view, the scatter) drawn at `scale` times
// its size by the browser into a PNG: {bytes, width, height}. Canvases
// have a size limit (Chromium: 16,384 pixels a side, 2^28 in all); a scale
// past it is an error naming the size.
async function svgToPng(svg, scale) {
  const m = /<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"/.exec(svg);
  if (!m) throw new Error('not an SVG with a width and height');
  const width = Math.max(1, Math.round(+m[1] * scale)), height = Math.max(1, Math.round(+m[2] * scale));
  if (!(scale > 0) || width > 16384 || height > 16384 || width * height > 2 ** 28)
    throw new Error(`a PNG of ${width} x ${height} pixels is more than a browser canvas holds: choose a smaller scale`);
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = new OffscreenCanvas(width, height);
    canvas.getContext('2d').drawImage(img, 0, 0, width, height);
    const blob = await canvas.convertToBlob({ type: 'image/png' });
    return { bytes: new Uint8Array(await blob.arrayBuffer()), width, height };
  } finally {
    URL.revokeObjectURL(url);
  }
}

// {name, bytes, width, height} or {error}.
async function pngOf(svgResult, scale) {
  if (svgResult.error) return svgResult;
  try {
    return { name: svgResult.name.replace(/\.svg$/, '.png'), ...(await svgToPng(svgResult.svg, scale)) };
  } catch (e) {
    return { error: e.message };
  }
}

function downloadBytes(name, bytes, type) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([bytes], { type }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// Opens a study (trials.jsonl) held as bytes: the app parses a copy; a bad
// file shows the core's message and the previous study stays.
function openStudy(bytes, name) {
  const big = tooLarge(bytes.byteLength, name);
  if (big) return big;
  return orError(() => withCopy(M, bytes, (p) => M.api.explorer_open_study(p, bytes.byteLength, name)));
}

async function openStudyFile(file) {
  const big = tooLarge(file.size, file.name);
  if (big) return big;
  return openStudy(new Uint8Array(await file.arrayBuffer()), file.name);
}

function addModel(name, onnx, cardText) {
  const r = orError(() => M.api.explorer_add_model(name, cardText));
  if (r.error) return r;
  // The session is built and warmed up now, in ONNX Runtime's worker, so
  // that Rank starts at full speed; a model ONNX Runtime cannot load is
  // reported when it is ranked with.
  const ranker = Ranker.create(ort, onnx, cardText);
  const model = { name, cardText, ranker, ready: false };  // the .onnx bytes are ONNX Runtime's now
  ranker.then(() => { model.ready = true; }, () => {});
  state.models[r.index] = model;
  return r;
}

async function openModelFiles(files) {
  const onnx = files.find((f) => f.name.endsWith('.onnx'));
  const card = files.find((f) => f.name.endsWith('.json'));
  if (!onnx || !card) {
    M.api.explorer_set_error('open a model as two files together: model.onnx and its model.json');
    return { error: 'need both files' };
  }
  const cardText = await card.text();
  let label = onnx.name;
  try {
    const c = JSON.parse(cardText);
    const data = c.data || {};
    const what = c.ensemble ? `ensemble of ${c.ensemble.members.length}` : c.model && c.model.name;
    label = `${c.kind} ${what} (${data.collection || data.graph || onnx.name})`;
  } catch { /* the core's parser reports what is wrong */ }
  return addModel(label, new Uint8Array(await onnx.arrayBuffer()), cardText);
}

// Ranks the open file with model `index` under the app's `ticket`: JS runs
// the job through a rank session on the app's document, which the app
// watches: each batch asked for tells it the progress (and answers
// {"stopped"} once it wants the job to end: cancelled, or another file
// opened), finish gives it the result, close any failure. 2 + N calls into
// wasm for N batches.
async function rank(index, ticket) {
  const m = state.models[index];
  const t0 = performance.now();
  let session = 0;
  try {
    const info = M.api.fastslow_rank_open_document(ticket, m.cardText);  // a failure here the app shows itself
    session = info.session;
    if (!m.ready) {  // still being loaded and warmed up (addModel)
      M.api.explorer_set_status(`preparing model ${m.name} for ONNX Runtime...`);
      await m.ranker.finally(() => M.api.explorer_set_status(''));
    }
    const ranker = await m.ranker;
    const { groupScores } = await ranker.score(M, info);
    withCopy(M, groupScores, (p) =>
      M.api.fastslow_rank_finish(session, p, groupScores.length, (performance.now() - t0) / 1000, 0));
    session = 0;  // finished: the core ended the session
  } catch (e) {
    if (session) M.api.fastslow_rank_close(session, e.name === 'AbortError' ? null : String(e.message || e));
  }
}

const hooks = {
  // One ranking at a time: a superseded one stops at its next batch (the app
  // answers its progress with 0), and only then does the next start, so two
  // loops never call the same ONNX Runtime session at once.
  requestRank: (i, ticket) => {
    if (!state.models[i]) return false;
    const r = state.lastRanking.then(() => rank(i, ticket));
    state.lastRanking = r;
    state.rankings.add(r);
    r.finally(() => state.rankings.delete(r));
    return true;
  },
  openDialog: (what) => document.getElementById(['npz-input', 'model-input', 'study-input', 'compare-input'][what]).click(),
  download: (name, text) => downloadBytes(name, text, name.endsWith('.svg') ? 'image/svg+xml' : 'text/csv'),
  savePng: (name, svg, scale) => {
    svgToPng(svg, scale).then((png) => downloadBytes(name, png.bytes, 'image/png'),
      (e) => M.api.explorer_set_error(`${name}: ${e.message}`));
  },
};

async function boot() {
  M = await createExplorer({
    canvas: document.getElementById('canvas'),
    fastslowHooks: hooks,
    print: (t) => console.log(t),
    printErr: (t) => console.warn(t),
  });
  // The app redraws at full rate only after input (see main.cpp).
  const touched = () => { M.fastslowLastInput = performance.now(); };
  for (const ev of ['pointermove', 'pointerdown', 'pointerup', 'wheel', 'keydown', 'keyup', 'resize'])
    window.addEventListener(ev, touched, { passive: true, capture: true });
  document.getElementById('npz-input').addEventListener('change', (e) => {
    if (e.target.files[0]) openFile(e.target.files[0]);
    e.target.value = '';
  });
  document.getElementById('model-input').addEventListener('change', (e) => {
    openModelFiles([...e.target.files]);
    e.target.value = '';
  });
  document.getElementById('compare-input').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    e.target.value = '';
    if (f) compareBytes(new Uint8Array(await f.arrayBuffer()), f.name);
  });
  document.getElementById('study-input').addEventListener('change', (e) => {
    if (e.target.files[0]) openStudyFile(e.target.files[0]);
    e.target.value = '';
  });
  window.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
  window.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dragging');
    const files = [...e.dataTransfer.files];
    const npz = files.find((f) => f.name.endsWith('.npz'));
    const study = files.find((f) => f.name.endsWith('.jsonl'));
    if (npz) openFile(npz);
    else if (study) openStudyFile(study);
    else if (files.length) openModelFiles(files);
  });
  // The demo: a generated layout graph and a model trained on its collection.
  const boot = document.getElementById('boot');
  try {
    const [g, onnx, card] = await Promise.all(['demo/demo.npz', 'demo/model.onnx', 'demo/model.json'].map((u) => fetch(u)));
    if (!g.ok || !onnx.ok || !card.ok) throw new Error('the site has no demo/ folder (scripts/run.sh stages one)');
    addModel('demo', new Uint8Array(await onnx.arrayBuffer()), await card.text());
    await openGraph(new Uint8Array(await g.arrayBuffer()), 'demo.npz');
  } catch (e) {
    M.api.explorer_set_status(`no demo: ${e.message}`);
  }
  boot.remove();
}

// Which ONNX Runtime back end ranks, and why. The page stages ONNX Runtime
// Web's WebAssembly build only. WebGPU was measured beside it
// (bench/webgpu_bench.mjs): the one adapter headless Chromium offers on the
// development machine is SwiftShader's CPU emulation, on which the ranking
// model ran 40-90x slower than on WebAssembly, so that build is not worth
// its download there; a hardware adapter is reported, not used.
async function backendChoice() {
  const wasm = (reason, adapter = null) => ({ backend: 'wasm', adapter, reason });
  if (!('gpu' in navigator)) return wasm('WebGPU is not offered here (no navigator.gpu)');
  let adapter = null;
  try {
    adapter = await navigator.gpu.requestAdapter();
  } catch (e) {
    return wasm(`asking for a WebGPU adapter failed: ${e.message || e}`);
  }
  if (!adapter) return wasm('WebGPU offers no adapter here');
  const info = adapter.info || {};
  const name = `${info.vendor || 'unknown'}/${info.architecture || 'unknown'}`;
  if (info.isFallbackAdapter || adapter.isFallbackAdapter || /swiftshader/i.test(name))
    return wasm(`the WebGPU adapter ${name} is a software fallback, slower than WebAssembly`, name);
  return wasm(`a WebGPU adapter (${name}) is offered, but the page ranks with ONNX Runtime's WebAssembly build`, name);
}

window.fastslow = {
  ready: null,
  // {backend, adapter, reason}: which ONNX Runtime back end ranks and why.
  backend: () => backendChoice(),
  state: () => M.api.explorer_state(),
  ranking: () => M.api.explorer_ranking(),
  open: (bytes, name) => openGraph(bytes, name),
  rank: (index = 0) => M.api.explorer_start_rank(index),
  cancel: () => M.api.explorer_cancel_rank(),
  // Why is config `config` slow (against `against`, -1: none), with model
  // `index`: 1 if started; state().explain has the shares once done.
  explain: (config, against = -1, index = 0) => M.api.explorer_explain(index, config, against),
  explainView: (coloured = true, logScale = false) => M.api.explorer_explain_view(coloured ? 1 : 0, logScale ? 1 : 0),
  // The graph coloured by what the measured runtimes depend on (state().effects), or by op family.
  effectsView: (coloured = true) => M.api.explorer_effects_view(coloured ? 1 : 0),
  // Tune: `count` proposals from `budget` candidates with model `index`: 1 if started.
  tune: (count = 10, budget = 2048, index = 0) => M.api.explorer_tune(index, count, budget),
  // The proposals' CSV as "Download proposals" saves it: {csv, name} or {error}.
  proposalsCsv: () => orError(() => M.api.explorer_proposals_csv()),
  select: (node) => M.api.explorer_select(node),
  search: (text) => M.api.explorer_search(text),
  // The next (1) or previous (-1) search match, selected and centred (Enter).
  searchStep: (delta = 1) => M.api.explorer_search_step(delta),
  // From the selection: dy -1 first operand, +1 first user; dx -1/+1 layer neighbour (arrow keys).
  walk: (dx, dy) => M.api.explorer_walk(dx, dy),
  // 'all' or 'model_reads' (configurable nodes and their khop-hop neighbourhood).
  nodeSet: (set = 'all', khop = 1) => M.api.explorer_node_set(set === 'all' ? 0 : 1, khop),
  // Configs a and b side by side: {a, b, nodes (differing configurable nodes)} or {error}; a < 0 clears.
  compare: (a, b) => orError(() => M.api.explorer_compare(a, b)),
  // The graph view as SVG: {svg, name, nodes} or {error}.
  viewSvg: (scale = 1) => orError(() => M.api.explorer_view_svg(scale)),
  fit: () => M.api.explorer_fit(),
  // Settles once every model opened so far is loaded and warmed up.
  modelsReady: () => Promise.allSettled(state.models.map((m) => m.ranker)).then(() => state.models.length),
  collapse: (computation, collapsed = true) => M.api.explorer_collapse(computation, collapsed ? 1 : 0),
  // Every elementwise chain folded into one box (or opened again).
  foldChains: (folded = true) => M.api.explorer_fold_chains(folded ? 1 : 0),
  // Every copy of a repeated block (a transformer's layers) folded into one box (or opened again).
  foldBlocks: (folded = true) => M.api.explorer_fold_blocks(folded ? 1 : 0),
  // Opens folded box `box` in place (node(v).display is -1 - box for a node inside one).
  openBox: (box) => M.api.explorer_open_box(box),
  // Where node `node` is drawn: {display, x, y, layer} or {error}.
  node: (node) => orError(() => M.api.explorer_node(node)),
  // The open graph against another file's bytes: the comparison's JSON or {error}.
  compareFile: (bytes, name) => compareBytes(bytes, name),
  // Lights up the open graph's nodes without a partner in the compared file.
  showUnmatched: () => M.api.explorer_show_unmatched(),
  // The Rank tab's scatter of the last ranking: {svg, name, points} or {error}.
  scatterSvg: () => orError(() => M.api.explorer_scatter_svg()),
  // The graph view, or the scatter, as PNG at `scale` (the browser draws the
  // core's SVG): a promise of {name, bytes, width, height} or {error}.
  viewPng: (scale = 2) => pngOf(orError(() => M.api.explorer_view_svg(1)), scale),
  scatterPng: (scale = 2) => pngOf(orError(() => M.api.explorer_scatter_svg()), scale),
  // Settles with the last graph file's open (dropped, chosen or open()): {name, ok: true} or {name, error}.
  opened: () => state.opening,
  // Settles once every ranking started so far has stopped (results dropped included).
  rankingsSettled: () => Promise.allSettled([...state.rankings]),
  // The competition CSV "Download submission row" saves: {csv, name} or {error}.
  submissionCsv: () => orError(() => M.api.explorer_submission_csv()),
  // The collection a submission row names where the model card gives none.
  pickCollection: (id) => orError(() => M.api.explorer_pick_collection(id)),
  // Config `config`'s row as the views show it (the document's row cache).
  configRow: (config) => M.api.explorer_config_row(config).row,
  // A study from its text, as a dropped trials.jsonl: {ok, trials} or {error}.
  openStudy: (text, name = 'trials.jsonl') => openStudy(new TextEncoder().encode(text), name),
  // What the study's plots show: {x, y, param, param_objective}, any of them, by name.
  studyView: (view) => orError(() => M.api.explorer_study_view(JSON.stringify(view))),
  // Where the study's scatter drew trial `number` (page pixels): {x, y} or {error}.
  studyPoint: (number) => orError(() => M.api.explorer_study_point(number)),
  // Calls into wasm so far through M.api, per entry point: what a ranking costs in crossings.
  calls: () => ({ ...M.api.calls }),
};
window.fastslow.ready = boot();
