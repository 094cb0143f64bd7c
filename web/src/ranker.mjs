// Ranking a graph's configs in the browser (or node): the wasm core prepares
// the model inputs from the .npz and the model card, exactly as
// `fastslow rank` does natively, ONNX Runtime Web scores them batch by batch,
// and the core turns the scores into the ranking and its metrics. JS runs
// the job through the core's rank session (wasm/rank_session.h): open,
// one fastslow_rank_batch per batch, fastslow_rank_finish (or close).
// Works with any fastslow_core module instance and any `ort` namespace
// (onnxruntime-web in the page and under node).
import { f32, i64, withCopy } from './core.mjs';

let scratchId = 0;

function removeTree(FS, path) {
  let entries;
  try {
    entries = FS.readdir(path);
  } catch {
    return;
  }
  for (const e of entries) {
    if (e === '.' || e === '..') continue;
    const p = `${path}/${e}`;
    if (FS.isDir(FS.stat(p).mode)) removeTree(FS, p);
    else FS.unlink(p);
  }
  FS.rmdir(path);
}

export class Ranker {
  // modelBytes: model.onnx; cardText: model.json.
  static async create(ort, modelBytes, cardText) {
    const card = JSON.parse(cardText);
    if (card.format !== 'fastslow-model') throw new Error('model.json is not a fastslow model card');
    const session = await ort.InferenceSession.create(modelBytes, { executionProviders: ['wasm'] });
    const ranker = new Ranker(ort, session, card, cardText);
    try {
      await ranker.warmUp();
    } catch (e) {  // only a speed-up: a model it does not suit still ranks real inputs
      console.warn(`model warm-up skipped: ${e.message || e}`);
    }
    return ranker;
  }

  // One run on a made-up graph of typical size (1,024 nodes, 256
  // configurable, one full batch of configs). The first run of a session
  // starts ONNX Runtime's threads, grows its memory and runs the browser's
  // baseline-compiled kernels: measured, 1.3 s of a 1.6 s first batch for a
  // 5,000-node graph. Paying that when the model is opened, in ONNX
  // Runtime's worker, keeps it out of the first ranking. Any valid inputs
  // do: the scores are thrown away.
  async warmUp() {
    const { ort } = this;
    // A per-program model's table fixes the configurable nodes to its program's.
    const wide = (this.card.model || {}).wide_nodes || 0;
    const sizes = { nodes: 1024, edges: 1023, config_nodes: wide || 256, batch: (this.card.batching || {}).chunk || 64 };
    const feeds = {};
    for (const input of this.card.inputs || []) {
      if (!this.session.inputNames.includes(input.name)) continue;
      const dims = input.shape.map((d) => (typeof d === 'number' ? d : sizes[d] || 1));
      const n = dims.reduce((a, b) => a * b, 1);
      const data = input.dtype === 'int64' ? new BigInt64Array(n) : new Float32Array(n);
      if (input.name === 'edge_index') {  // a chain 0 -> 1 -> ... (valid node ids)
        for (let e = 0; e < dims[0]; e++) { data[2 * e] = BigInt(e); data[2 * e + 1] = BigInt(e + 1); }
      }
      if (input.name === 'config_nodes') for (let i = 0; i < n; i++) data[i] = BigInt(4 * i);
      feeds[input.name] = new ort.Tensor(input.dtype, data, dims);
    }
    await this.session.run(feeds);
  }

  constructor(ort, session, card, cardText) {
    this.ort = ort;
    this.session = session;
    this.card = card;
    this.cardText = cardText;
  }

  // Scores every unique config of a prepared graph: `info` is a RankInfo
  // (wasm/js_api.h) from fastslow_rank_open or fastslow_rank_open_document.
  // onProgress(done, total) after each batch; cancelled() true stops between
  // batches, as does the session when the explorer's app asks it to (both
  // throw an Error named 'AbortError'). Returns { groupScores (Float64Array
  // per duplicate group), scoreMs (model calls only) }.
  async score(core, info, { onProgress, cancelled } = {}) {
    const { ort } = this;
    const n = info.nodes, m = info.edges, nc = info.config_nodes, fc = info.config_feat_width;
    const graph = {
      node_feat: ['float32', f32(core, info.node_feat, n * info.node_feat_width), [n, info.node_feat_width]],
      node_opcode: ['int64', i64(core, info.node_opcode, n), [n]],
      edge_index: ['int64', i64(core, info.edge_index, m * 2), [m, 2]],
    };
    if (info.kind === 'layout') graph.config_nodes = ['int64', i64(core, info.config_nodes_ptr, nc), [nc]];
    // Models that read the core's layout context (shapes and layouts
    // around each configurable node) declare it as an input.
    if (info.kind === 'layout' && this.session.inputNames.includes('config_context')) {
      const w = info.config_context_width;
      graph.config_context = ['float32', f32(core, info.config_context_ptr, nc * w), [nc, w]];
    }
    // Fresh tensors for every call: ONNX Runtime's worker proxy takes
    // ownership of (detaches) the buffers it is given.
    const graphFeeds = () => Object.fromEntries(Object.entries(graph).map(([k, [t, a, d]]) => [k, new ort.Tensor(t, a.slice(), d)]));
    const groupScores = new Float64Array(info.groups);
    const abort = (why) => {
      const e = new Error(`ranking ${why}`);
      e.name = 'AbortError';
      return e;
    };
    let filled = 0;
    let scoreMs = 0;
    for (let c = 0; c < info.chunks; c++) {
      if (cancelled && cancelled()) throw abort('cancelled');
      const batch = core.api.fastslow_rank_batch(info.session, c);
      if (batch.stopped) throw abort(batch.stopped);
      const B = batch.count;
      const dims = info.kind === 'layout' ? [B, nc, fc] : [B, fc];
      const feat = new ort.Tensor('float32', f32(core, batch.ptr, dims.reduce((a, b) => a * b, 1)), dims);
      const t0 = performance.now();
      const out = await this.session.run({ ...graphFeeds(), config_feat: feat });
      scoreMs += performance.now() - t0;
      groupScores.set(out.scores.data, filled);
      filled += B;
      if (onProgress) onProgress(c + 1, info.chunks);
    }
    return { groupScores, scoreMs };
  }

  // Node tools and tests: ranks every config of `bytes` (an .npz named
  // `name`), written to the module's file system for fastslow_rank_open.
  // onShift({warning, findings, origin} or null) once the file is prepared,
  // before any model call; onProgress and cancelled as for score(). Returns
  // { info, shift, groupScores, ranking, groupOf, metrics, runtime, scoreMs }.
  async rank(core, bytes, name, { onShift, onProgress, cancelled } = {}) {
    const t0 = performance.now();
    const dir = `/rank${scratchId++}`;
    core.FS.mkdirTree(`${dir}/cache`);
    const file = `${dir}/${name.replace(/[^A-Za-z0-9._-]/g, '_') || 'file.npz'}`;
    core.FS.writeFile(file, bytes);
    let session = 0;
    try {
      const info = core.api.fastslow_rank_open(file, this.cardText, `${dir}/cache`);
      session = info.session;
      if (onShift) onShift(info.shift || null);
      const { groupScores, scoreMs } = await this.score(core, info, { onProgress, cancelled });
      const result = withCopy(core, groupScores, (p) =>
        core.api.fastslow_rank_finish(session, p, groupScores.length, (performance.now() - t0) / 1000, 1));
      session = 0;  // finished: the core ended the session
      return { info, shift: info.shift || null, groupScores, scoreMs, ranking: result.ranking, groupOf: result.group_of,
        metrics: result.metrics, runtime: result.runtime || null };
    } catch (e) {
      if (session) core.api.fastslow_rank_close(session, String(e.message || e));
      throw e;
    } finally {
      removeTree(core.FS, dir);
    }
  }
}
