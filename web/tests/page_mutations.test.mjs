// The page against 30 mutated .npz files (issue 20): bit flips, truncations
// and forged headers of real files (npz_mutations.mjs, from a fixed seed),
// chosen one after another through the file chooser. Each must end in the
// page's error box, naming the file and the problem (the core's message, as
// `fastslow info` gives it), or, for a flip that leaves a valid file, open
// as it does in the terminal, and rank; never an uncaught exception, an
// abort or a stalled page. Afterwards a good file still opens and ranks as
// `fastslow rank` ranks it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fastslow, sampleData, makeDemo, openExplorer, nativeRanking, assertSameRanking } from './explorer_page.mjs';
import { mutations } from './npz_mutations.mjs';

const work = mkdtempSync(path.join(tmpdir(), 'fastslow-mutations-'));
const good = {
  layout: readFileSync(path.join(sampleData, 'real', 'layout_xla_random_train_openai_v0_rnn_optimized.npz')),
  tile: readFileSync(path.join(sampleData, 'real', 'tile_xla_train_retinanet.2x2.fp32_-342c949e14733d96.npz')),
  alexnet: readFileSync(path.join(sampleData, 'cleaned_alexnet.npz')),
};
// What the wasm runtime says when it dies: an abort, a trap, a C++ exception it could not hand over.
const fatal = /Aborted|RuntimeError|unreachable|out of bounds|uncaught|exception thrown|OOM|Cannot enlarge memory/i;

let explorer, layoutFile, demo, muts;
const terminal = new Map();  // mutation name -> what `fastslow info` said

// `fastslow info --json NAME` in DIR with the page's memory budget (2 GB,
// half of its 4 GB wasm memory): {code, stdout, stderr}; two at a time.
async function infoAll(dir, names) {
  const exec = promisify(execFile);
  const out = new Map();
  const queue = [...names];
  const worker = async () => {
    for (let name; (name = queue.shift()) !== undefined;) {
      try {
        const r = await exec(fastslow, ['--max-memory', '2G', 'info', '--json', name], { cwd: dir, encoding: 'utf8' });
        out.set(name, { code: 0, stdout: r.stdout, stderr: r.stderr });
      } catch (e) {
        out.set(name, { code: e.code, stdout: e.stdout, stderr: e.stderr });
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return out;
}

// The page's message for a file `fastslow info` refuses: its error, or
// (exit code 2 with a report) the first error-severity problem it lists.
function terminalMessage(name, t) {
  const m = /^fastslow: error: (.*)\n$/s.exec(t.stderr);
  if (m) return m[1];
  const p = JSON.parse(t.stdout).problems.find((x) => x.severity === 'error');
  return p && `${name}: ${p.array ? `array '${p.array}': ` : ''}${p.message}`;
}

// The same budget comes from --max-memory there and from the wasm memory here.
const budgetSource = (message) => message && message.replace(/(over the memory budget of [\d.]+ [KMGT]?B) \(.*\)$/, '$1');

before(async () => {
  ({ layoutFile, demo } = makeDemo(work));
  muts = mutations(good);
  const dir = path.join(work, 'mutations');
  mkdirSync(dir);
  for (const m of muts) writeFileSync(path.join(dir, m.name), m.bytes);
  const [info] = await Promise.all([infoAll(dir, muts.map((m) => m.name)), (async () => {
    explorer = await openExplorer(work, demo);
  })()]);
  for (const [name, t] of info) terminal.set(name, t);
});

after(async () => {
  if (explorer) await explorer.close();
  rmSync(work, { recursive: true, force: true });
});

test('30 mutated files, one after another: each shows an error naming it (or opens and ranks, where the flip left a valid file) as the terminal says, and nothing aborts', async (t) => {
  const { page, state, waitState, pageErrors, consoleMessages } = explorer;
  assert.equal(muts.length, 30);
  let shown = (await waitState((x) => x.graph && x.graph.name === 'demo.npz', 'the demo')).graph.name;
  consoleMessages.length = 0;
  const failures = [], tally = {};
  for (const m of muts) {
    const problems = [];
    const before = await state();
    await page.setInputFiles('#npz-input', { name: m.name, mimeType: 'application/octet-stream', buffer: m.bytes });
    // The page's open of this file, settled: {name, ok} or {name, error}.
    let r = await page.evaluate(() => window.fastslow.opened());
    for (let k = 0; r.name !== m.name && k < 100; k++) {
      await page.waitForTimeout(50);
      r = await page.evaluate(() => window.fastslow.opened());
    }
    let s;
    try {
      s = await state();  // the module still answers
    } catch (e) {
      failures.push(`${m.name} (${m.kind}: ${m.what}): the page no longer answers: ${e.message}; ${pageErrors.join('; ')}`);
      break;
    }
    const opened = r.ok === true;
    (tally[`${m.kind}: ${opened ? 'opened' : 'error'}`] ??= []).push(m.name);
    if (opened) {
      if (s.graph.name !== m.name || s.error !== '') problems.push(`opened, but the page shows ${s.graph.name} and error "${s.error}"`);
      if (m.expect === 'error') problems.push('opened, but it must be refused');
      shown = m.name;
      // It ranks, too, with the demo model (a layout model of the same feature widths).
      if (s.graph.kind === 'layout') {
        if (await page.evaluate(() => window.fastslow.rank(0)) !== 1) {
          problems.push('Rank did not start');
        } else {
          const x = (await waitState((y) => !['idle', 'running'].includes(y.rank.status), 'its ranking', 60000)).rank;
          if (x.status !== 'done' || x.scores !== s.graph.unique_configs) problems.push(`its ranking ${x.status}: "${x.message}"`);
        }
      }
    } else {
      if (m.expect === 'open') problems.push('refused, but it must open');
      if (typeof r.error !== 'string') problems.push(`no message came back: ${JSON.stringify(r)}`);
      else if (s.error !== r.error) problems.push(`the error box says "${s.error}", the open said "${r.error}"`);
      if (!s.error.startsWith(`${m.name}: `)) problems.push(`the error does not name the file: "${s.error}"`);
      if (m.message && !m.message.test(s.error)) problems.push(`the error "${s.error}" does not match ${m.message}`);
      if (!s.graph || s.graph.name !== shown) problems.push(`the previous graph (${shown}) did not stay: ${s.graph && s.graph.name}`);
    }
    // The terminal's verdict on the same bytes, under the same memory budget.
    const term = terminal.get(m.name);
    if (![0, 2].includes(term.code)) problems.push(`\`fastslow info\` exited ${term.code}: ${term.stderr}`);
    else if (opened !== (term.code === 0)) problems.push(`the page ${opened ? 'opened' : 'refused'} it, \`fastslow info\` exited ${term.code}`);
    else if (!opened && budgetSource(s.error) !== budgetSource(terminalMessage(m.name, term)))
      problems.push(`the page says "${s.error}", the terminal "${terminalMessage(m.name, term)}"`);
    // Still drawing frames.
    try {
      await waitState((x) => x.frames > s.frames, 'a frame', 5000);
    } catch (e) {
      problems.push(`no frame drawn after it (${before.frames} -> ${s.frames})`);
    }
    const died = consoleMessages.splice(0).filter((c) => fatal.test(c.text)).map((c) => `console ${c.type}: ${c.text}`);
    problems.push(...died, ...pageErrors.splice(0).map((e) => `uncaught: ${e}`));
    if (problems.length) failures.push(`${m.name} (${m.kind}: ${m.what}): ${problems.join('; ')}`);
  }
  t.diagnostic(Object.entries(tally).map(([k, v]) => `${k} ${v.length}${k.endsWith('opened') ? ` (${v.join(', ')})` : ''}`)
    .sort().join(', '));
  assert.deepEqual(failures, []);
});

test('a file over the page\'s 1.5 GB limit is refused with the message the error box shows', async () => {
  const { page, state } = explorer;
  // open() looks at the size first: a stand-in with only a byteLength will do.
  const r = await page.evaluate(() => window.fastslow.open({ byteLength: 1536 * 1048576 + 1 }, 'huge.npz'));
  assert.deepEqual(r, { error: 'huge.npz: 1536.0 MB is more than the page can hold (at most 1536.0 MB); rank it with `fastslow rank` instead' });
  assert.equal((await state()).error, r.error);
  assert.deepEqual(await page.evaluate(() => window.fastslow.opened()), { name: 'huge.npz', ...r });
});

test('after them a good file opens and ranks as `fastslow rank` ranks it', async () => {
  const { page, waitState, pageErrors } = explorer;
  await page.setInputFiles('#npz-input', layoutFile);
  const opened = await waitState((x) => x.graph && x.graph.name === path.basename(layoutFile) && x.rank.status === 'idle',
    'the good file');
  assert.equal(opened.error, '');
  assert.equal(await page.evaluate(() => window.fastslow.rank(0)), 1);
  const s = await waitState((x) => x.rank.status === 'done', 'the ranking', 120000);
  assert.equal(s.rank.configs, opened.graph.configs);
  assert.equal(s.rank.scores, opened.graph.unique_configs);
  const native = nativeRanking(demo, layoutFile, path.join(work, 'native.csv'));
  assertSameRanking(await page.evaluate(() => window.fastslow.ranking()), native, (n) => 1e-4 * Math.max(1e-6, Math.abs(n)));
  assert.equal(s.rank.kendall.toFixed(4), /kendall (\S+)/.exec(native.printed)[1]);
  assert.deepEqual(pageErrors, []);
});
