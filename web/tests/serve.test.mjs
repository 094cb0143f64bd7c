// web/serve.mjs as a user runs it: this machine only unless --host says
// otherwise, and nothing outside the folder it serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.resolve(here, '..', 'serve.mjs');

// Starts the server on a free port; resolves with its first line of output.
function start(args) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const line = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; if (out.includes('\n')) resolve(out.split('\n')[0]); });
    child.on('exit', (code) => reject(new Error(`serve.mjs exited ${code}`)));
  });
  return { child, line };
}

test('serves this machine only by default, the network with --host', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fastslow-serve-'));
  try {
    for (const [args, want] of [[[], '127.0.0.1'], [['--host', '0.0.0.0'], 'on 0.0.0.0']]) {
      const { child, line } = start([dir, '0', ...args]);
      try {
        const first = await line;
        assert.match(first, new RegExp(want.replace(/\./g, '\\.')), first);
        if (args.length === 0) assert.match(first, /http:\/\/127\.0\.0\.1:\d+\//, first);
      } finally {
        child.kill();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a path that leaves the folder, or a sibling named like it, is refused', async () => {
  const parent = mkdtempSync(path.join(tmpdir(), 'fastslow-serve-'));
  const site = path.join(parent, 'site');
  mkdirSync(site);
  mkdirSync(`${site}2`);
  writeFileSync(path.join(site, 'index.html'), 'ok');
  writeFileSync(path.join(`${site}2`, 'secret.txt'), 'secret');
  const { child, line } = start([site, '0']);
  try {
    const url = (await line).match(/http:\/\/[^/]+\//)[0];
    assert.equal(await (await fetch(url)).text(), 'ok');
    // "../site2" resolves outside the root yet starts with its path.
    const sibling = await fetch(`${url}..%2Fsite2%2Fsecret.txt`);
    assert.equal(sibling.status, 403);
  } finally {
    child.kill();
    rmSync(parent, { recursive: true, force: true });
  }
});
