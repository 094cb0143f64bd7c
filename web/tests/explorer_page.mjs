// What the explorer's browser tests share: the native CLI, a demo as
// scripts/run.sh makes one (smaller), the site staged and served, headless
// Chromium (SwiftShader WebGL) on the page, the app's state through
// window.fastslow, and the comparison of a page's ranking with `fastslow rank`'s.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
export const fastslow = path.join(root, 'build/native/bin/fastslow');
// The real data beside the repository.
export const sampleData = path.resolve(root, 'data');
export const run = (...args) => execFileSync(fastslow, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// Tiny generated data (in WORK/tiny), a default layout model trained briefly
// on layout:xla:random and exported (WORK/demo, with the collection's first
// valid file as demo.npz): {data, layoutFile, run, demo}.
export function makeDemo(work) {
  const data = path.join(work, 'tiny');
  run('synth', '--scale', 'tiny', '--seed', '7', '--out', data);
  const valid = path.join(data, 'npz/layout/xla/random/valid');
  const layoutFile = path.join(valid, readdirSync(valid).filter((f) => f.endsWith('.npz')).sort()[0]);
  const runDir = path.join(work, 'run');
  run('train', '--data', data, '--collection', 'layout:xla:random', '--out', runDir,
    '--epochs', '1', '--steps-per-epoch', '4', '--threads', '2');
  const demo = path.join(work, 'demo');
  run('export', '--run', runDir, '-o', demo);
  copyFileSync(layoutFile, path.join(demo, 'demo.npz'));
  return { data, layoutFile, run: runDir, demo };
}

// Stages the site with DEMO (if given) in WORK/site, serves it and opens the page in
// Chromium, once the app is ready. `pageErrors` collects uncaught
// exceptions, `consoleMessages` every console line ({type, text}).
export async function openExplorer(work, demo) {
  const site = path.join(work, 'site');
  execFileSync('bash', [path.join(root, 'scripts/stage_site.sh'), site, ...(demo ? [demo] : [])], { stdio: 'ignore' });
  const server = await serve(site, 0);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const pageErrors = [], consoleMessages = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => consoleMessages.push({ type: m.type(), text: m.text() }));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.fastslow && window.fastslow.ready);
  await page.evaluate(() => window.fastslow.ready);
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
  const close = async () => {
    await browser.close();
    server.close();
  };
  return { server, browser, page, pageErrors, consoleMessages, state, waitState, close };
}

// `fastslow rank --model MODEL FILE --csv CSV`: what it printed, its rows
// (rank, config, group, score, runtime) and each config's score.
export function nativeRanking(model, file, csv) {
  const printed = run('rank', '--model', model, file, '--csv', csv);
  const rows = readFileSync(csv, 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  return { printed, rows, score: new Map(rows.map(([, c, , sc]) => [Number(c), Number(sc)])) };
}

// The page's ranking ({ranking, scores} of window.fastslow.ranking()) is
// the native one: the same order up to ties within 1e-6, and each score
// within `tolerance(native score)`.
export function assertSameRanking({ ranking, scores }, native, tolerance) {
  const { rows, score } = native;
  assert.equal(ranking.length, rows.length);
  for (let i = 0; i < rows.length; i++) {
    const b = ranking[i], n = Number(rows[i][1]);
    if (b !== n) {
      const x = score.get(b), y = score.get(n);
      assert.ok(Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(x), Math.abs(y)), `position ${i}: ${b} vs ${n}`);
    }
    assert.ok(Math.abs(scores[b] - score.get(b)) <= tolerance(score.get(b)), `config ${b}`);
  }
}
