/**
 * The HTML report at scale: synthetic results of ~10,000 episodes. Measures build time (target
 * ≤ 3 s), size (≤ 10 MB) and, when /usr/bin/chromium exists, load time in Chromium (≤ 2 s).
 */
import { Bench } from 'tinybench';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { renderHtmlReport } from '../reports/html.js';
import { episodeCount, syntheticRun } from '../tests/reports/fixtures.js';
import { benchRows, publish, type Table } from './publish.js';

const run = syntheticRun({ runId: 'large', environmentsPerRound: 400, attempts: 4 });
const episodes = episodeCount(run);
let html = '';

const bench = new Bench({ iterations: 3, warmupIterations: 1, time: 0 });
bench.add(`renderHtmlReport (${episodes} episodes)`, async () => {
  html = await renderHtmlReport([run]);
});
await bench.run();
const tables: Table[] = [{ rows: benchRows(bench) }];

const megabytes = Buffer.byteLength(html) / 1024 / 1024;
const notes = [`report size: ${megabytes.toFixed(2)} MB (target ≤ 10 MB) for ${episodes} episodes`];

if (existsSync('/usr/bin/chromium')) {
  const dir = mkdtempSync(path.join(tmpdir(), 'spade-bench-report-'));
  const file = path.join(dir, 'report.html');
  writeFileSync(file, html);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const loads = new Bench({ iterations: 5, warmupIterations: 1, time: 0 });
  loads.add('load in Chromium (file://, until load event)', async () => {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.close();
  });
  await loads.run();
  tables.push({ rows: benchRows(loads) });
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
} else {
  notes.push('Chromium load time: skipped (chromium not installed)');
}
publish(import.meta.url, {
  about: 'The HTML report of synthetic results of ~10,000 episodes: build time (target ≤ 3 s), size (≤ 10 MB) and load time in Chromium (≤ 2 s).',
  tables,
  notes,
});
