// The core compiled to wasm, called the way the page calls it: file bytes in
// a JS buffer, JSON out. Same figures as the native CLI must come back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const require = createRequire(import.meta.url);
const createFastslowCore = require(path.join(root, 'build/wasm/bin/fastslow_core.js'));
const sample = path.resolve(root, '..', 'shared', 'data', 'cleaned_alexnet.npz');

const core = await createFastslowCore();

function infoOf(bytes, name) {
  const p = core._malloc(bytes.length);
  core.HEAPU8.set(bytes, p);
  const nameLen = core.lengthBytesUTF8(name) + 1;
  const namePtr = core._malloc(nameLen);
  core.stringToUTF8(name, namePtr, nameLen);
  const out = core._fastslow_info_json(p, bytes.length, namePtr);
  const json = JSON.parse(core.UTF8ToString(out));
  core._fastslow_free_string(out);
  core._free(p);
  core._free(namePtr);
  return json;
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
