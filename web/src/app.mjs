// The page's JS: boots the explorer (wasm + Dear ImGui), feeds it files
// (drag and drop, file choosers), keeps the models (model.onnx + model.json)
// and runs rankings with ONNX Runtime Web through ranker.mjs, reporting
// progress and results back to the app. window.fastslow exposes the app's
// state to tests and to the curious.
import * as ort from './ort/ort.wasm.min.mjs';
import { Ranker } from './ranker.mjs';

// Bigger files do not fit the wasm heap next to what is derived from them.
const MAX_FILE_BYTES = 1536 * 1024 * 1024;
ort.env.wasm.wasmPaths = new URL('./ort/', import.meta.url).href;
// Threads need a cross-origin-isolated page (serve.mjs sends the headers).
// Inference runs in ONNX Runtime's worker so the UI keeps drawing frames.
ort.env.wasm.proxy = true;
// One core is left to the page (and the GPU process): on this 2-core machine
// 2 threads ranked no faster than 1 and slowed the frames drawn meanwhile.
ort.env.wasm.numThreads = globalThis.crossOriginIsolated ? Math.min(4, Math.max(1, (navigator.hardwareConcurrency || 1) - 1)) : 1;

const state = { bytes: null, name: '', models: [], cancel: false, ranking: null };
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

let M = null;
function call(fn, ...strings) {
  const ptrs = strings.map((s) => {
    if (typeof s !== 'string') return s;
    const n = M.lengthBytesUTF8(s) + 1;
    const p = M._malloc(n);
    M.stringToUTF8(s, p, n);
    return p;
  });
  try {
    return M[fn](...ptrs);
  } finally {
    strings.forEach((s, i) => { if (typeof s === 'string') M._free(ptrs[i]); });
  }
}
function json(fn, ...args) {
  const p = call(fn, ...args);
  const text = M.UTF8ToString(p);
  M._explorer_free(p);
  return JSON.parse(text);
}

async function openGraph(bytes, name) {
  const started = performance.now();
  if (bytes.byteLength > MAX_FILE_BYTES) {
    call('_explorer_set_error', `${name}: ${mb(bytes.byteLength)} is more than the page can hold (at most ${mb(MAX_FILE_BYTES)}); ` +
      'rank it with `fastslow rank` instead');
    return { error: 'too large' };
  }
  call('_explorer_set_status', `opening ${name} (${mb(bytes.byteLength)})...`);
  await frame();  // let the status show before the parse blocks the thread
  const p = M._malloc(bytes.byteLength);
  M.HEAPU8.set(bytes, p);  // the app takes ownership of p
  const r = json('_explorer_open', p, bytes.byteLength, name, started);
  if (!r.error) {
    state.bytes = bytes;
    state.name = name;
  }
  return r;
}

async function openFile(file) {
  if (file.size > MAX_FILE_BYTES) return openGraph({ byteLength: file.size }, file.name);
  call('_explorer_set_status', `reading ${file.name} (${mb(file.size)})...`);
  return openGraph(new Uint8Array(await file.arrayBuffer()), file.name);
}

function addModel(name, onnx, cardText) {
  const r = json('_explorer_add_model', name, cardText);
  if (r.error) return r;
  // The session is built and warmed up now, in ONNX Runtime's worker, so
  // that Rank starts at full speed; a model ONNX Runtime cannot load is
  // reported when it is ranked with.
  const ranker = Ranker.create(ort, onnx, cardText);
  const model = { name, onnx, cardText, ranker, ready: false };
  ranker.then(() => { model.ready = true; }, () => {});
  state.models[r.index] = model;
  return r;
}

async function openModelFiles(files) {
  const onnx = files.find((f) => f.name.endsWith('.onnx'));
  const card = files.find((f) => f.name.endsWith('.json'));
  if (!onnx || !card) {
    call('_explorer_set_error', 'open a model as two files together: model.onnx and its model.json');
    return { error: 'need both files' };
  }
  const cardText = await card.text();
  let label = onnx.name;
  try {
    const c = JSON.parse(cardText);
    const data = c.data || {};
    label = `${c.kind} ${c.model && c.model.name} (${data.collection || data.graph || onnx.name})`;
  } catch { /* the core's parser reports what is wrong */ }
  return addModel(label, new Uint8Array(await onnx.arrayBuffer()), cardText);
}

async function rank(index) {
  state.cancel = false;
  const m = state.models[index];
  try {
    if (!m) throw new Error('no such model');
    if (!state.bytes) throw new Error('no graph open');
    const t0 = performance.now();
    if (!m.ready) {  // still being loaded and warmed up (addModel)
      call('_explorer_set_status', `preparing model ${m.name} for ONNX Runtime...`);
      await m.ranker.finally(() => call('_explorer_set_status', ''));
    }
    const ranker = await m.ranker;
    const res = await ranker.rank(M, state.bytes, state.name, {
      onShift: (s) => call('_explorer_rank_shift', s ? s.warning : ''),
      onProgress: (done, total) => M._explorer_rank_progress(done, total),
      cancelled: () => state.cancel,
    });
    state.ranking = res;
    call('_explorer_rank_done', JSON.stringify({
      group_scores: Array.from(res.groupScores), ranking: res.ranking, metrics: res.metrics,
      seconds: (performance.now() - t0) / 1000,
    }));
  } catch (e) {
    call('_explorer_rank_failed', String(e.message || e), e.name === 'AbortError' ? 1 : 0);
  }
}

const hooks = {
  requestRank: (i) => { rank(i); },
  cancelRank: () => { state.cancel = true; },
  openDialog: (what) => document.getElementById(what === 0 ? 'npz-input' : 'model-input').click(),
  download: (name, text) => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
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
  window.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
  window.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dragging');
    const files = [...e.dataTransfer.files];
    const npz = files.find((f) => f.name.endsWith('.npz'));
    if (npz) openFile(npz);
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
    call('_explorer_set_status', `no demo: ${e.message}`);
  }
  boot.remove();
}

window.fastslow = {
  ready: null,
  state: () => json('_explorer_state'),
  ranking: () => json('_explorer_ranking'),
  open: (bytes, name) => openGraph(bytes, name),
  rank: (index = 0) => call('_explorer_start_rank', index),
  cancel: () => { state.cancel = true; },
  select: (node) => M._explorer_select(node),
  search: (text) => call('_explorer_search', text),
  fit: () => M._explorer_fit(),
  // Settles once every model opened so far is loaded and warmed up.
  modelsReady: () => Promise.allSettled(state.models.map((m) => m.ranker)).then(() => state.models.length),
  collapse: (computation, collapsed = true) => M._explorer_collapse(computation, collapsed ? 1 : 0),
};
window.fastslow.ready = boot();
