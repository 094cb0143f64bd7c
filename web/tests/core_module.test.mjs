// The core compiled to wasm, called the way the page calls it: file bytes in
// a JS buffer, JSON out. Same figures as the native CLI must come back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { withCopy } from '../src/core.mjs';
import { crc32, layoutBomb, npyHead, smallBomb, zip } from './npz_bomb.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const require = createRequire(import.meta.url);
const createFastslowCore = require(path.join(root, 'build/wasm/bin/fastslow_core.js'));
const sample = path.resolve(root, 'data', 'cleaned_alexnet.npz');

const core = await createFastslowCore();

// The JSON the core returns, or {error} for the core's error message.
function infoOf(bytes, name) {
  return withCopy(core, bytes, (p) => {
    try {
      return core.api.fastslow_info_json(p, bytes.length, name);
    } catch (e) {
      return { error: e.message };
    }
  });
}

test('describes the real AlexNet sample from memory', () => {
  const info = infoOf(readFileSync(sample), 'cleaned_alexnet.npz');
  assert.equal(info.kind, 'layout');
  assert.equal(info.nodes, 372);
  assert.equal(info.edges, 597);
  assert.equal(info.configurable_nodes, 26);
  assert.equal(info.configs, 47712);
  assert.equal(info.unique_configs, 29905);
  assert.equal(info.node_feat_width, 70);
  assert.equal(info.config_feat_width, 10);
  assert.equal(info.valid, true);
});

test('a corrupt file comes back as an error message, not a crash', () => {
  const bytes = readFileSync(sample).subarray(0, 5000);
  const info = infoOf(bytes, 'cut.npz');
  assert.match(info.error, /cut\.npz/);
  // The same module instance keeps working after an error.
  const again = infoOf(readFileSync(sample), 'cleaned_alexnet.npz');
  assert.equal(again.nodes, 372);
});

test('a zip bomb (4 MB claiming 4 GB) comes back as the memory budget\'s message, before anything is read', () => {
  const bomb = layoutBomb();
  assert.ok(bomb.length < 5 * 1024 * 1024);
  const started = performance.now();
  const info = infoOf(bomb, 'bomb.npz');
  // The page's budget is half of the module's -sMAXIMUM_MEMORY (4 GB).
  assert.equal(info.error, "bomb.npz: array 'node_feat': claims 4.0 GB of data; loading the graph takes 8.0 GB, " +
    "over the memory budget of 2.0 GB (half of the page's wasm memory limit of 4.0 GB)");
  assert.ok(performance.now() - started < 2000, 'refused without inflating 4 GB');
  // The same construction, small enough to read: a valid graph.
  const small = infoOf(smallBomb(), 'small_bomb.npz');
  assert.equal(small.nodes, 2);
  assert.equal(small.node_feat_width, 8 * 1024 * 1024);
  assert.equal(small.valid, true);
  // And the module keeps working.
  assert.equal(infoOf(readFileSync(sample), 'cleaned_alexnet.npz').nodes, 372);
});

test('a header byte that is not text (a flipped bit) comes back in the error message, not as an exception', () => {
  // JSON needs UTF-8: the message quoting the byte once made the error's own JSON throw.
  const npy = Buffer.concat([npyHead("{'descr': '<f4', 'fortr\xe1n_order': False, 'shape': (3,), }"), Buffer.alloc(12)]);
  const bytes = zip([{ name: 'node_feat.npy', method: 0, crc: crc32(npy), size: npy.length, data: npy }]);
  const info = infoOf(bytes, 'flipped.npz');
  // The core writes the byte as \xe1.
  assert.equal(info.error, "flipped.npz: array 'node_feat': malformed .npy header: unexpected key 'fortr\\xe1n_order' in header");
  assert.equal(infoOf(readFileSync(sample), 'cleaned_alexnet.npz').nodes, 372);
});
