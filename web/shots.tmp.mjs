import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';
const server = await serve('/tmp/site', 8125);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.goto('http://127.0.0.1:8125/');
await page.waitForFunction(() => window.fastslow && window.fastslow.ready);
await page.evaluate(() => window.fastslow.ready);
await page.waitForTimeout(1000);
await page.screenshot({ path: '/tmp/s1_demo.png' });
// rank the demo with the demo model, open Rank tab by clicking it
await page.evaluate(() => window.fastslow.rank(0));
for (;;) { const s = await page.evaluate(() => window.fastslow.state()); if (s.rank.status !== 'running') break; await page.waitForTimeout(200); }
await page.mouse.click(1010, 36);
await page.waitForTimeout(600);
await page.screenshot({ path: '/tmp/s2_rank.png' });
await page.setInputFiles('#npz-input', '/work/shared/data/cleaned_alexnet.npz');
for (;;) { const s = await page.evaluate(() => window.fastslow.state()); if (s.graph && s.graph.name === 'cleaned_alexnet.npz') break; await page.waitForTimeout(200); }
await page.evaluate(() => window.fastslow.select(120));
await page.mouse.click(896, 36);
await page.waitForTimeout(800);
await page.screenshot({ path: '/tmp/s3_alexnet.png' });
await page.mouse.click(957, 36);
await page.waitForTimeout(600);
await page.screenshot({ path: '/tmp/s4_configs.png' });
await browser.close(); server.close();
