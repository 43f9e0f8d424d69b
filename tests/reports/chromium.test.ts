/**
 * The report in a real browser: Debian's Chromium driven by playwright-core opens it from
 * file://, with no console errors, no page errors and no request leaving the file; the charts
 * have marks; the environment filter works. A screenshot is kept in tests/artifacts/report.png.
 * Skipped (never failed) when /usr/bin/chromium is not installed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.js';
import { renderHtmlReport } from '../../reports/html.js';
import { syntheticRun } from './fixtures.js';


if (!existsSync(CHROMIUM)) {
  console.log('skipped: chromium not installed');
  test.skip('report renders in Chromium from file://', () => {});
} else {
  let browser: Browser;
  const dir = mkdtempSync(path.join(tmpdir(), 'spade-report-'));
  const file = path.join(dir, 'report.html');

  test.before(async () => {
    const html = await renderHtmlReport([
      syntheticRun({ runId: 'model-A', seed: 1 }),
      syntheticRun({ runId: 'model-B', seed: 2, sandboxInsecure: true, agentLabel: 'openai:gpt-4.1-mini', payload: '<img src="https://example.com/x.png" onerror="console.error(1)">' }),
    ]);
    writeFileSync(file, html);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  test.after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('opens from file:// with no errors, no outside requests, charts with marks', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    const outside: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('request', (request) => {
      if (!request.url().startsWith('file://')) outside.push(request.url());
    });
    const url = pathToFileURL(file).href;
    await page.goto(url, { waitUntil: 'load' });
    assert.equal(errors, [], `console or page errors: ${errors.join(' | ')}`);
    assert.equal(outside, [], `requests left the file: ${outside.join(', ')}`);

    const charts = await page.$$eval('figure svg', (svgs) =>
      svgs.map((svg) => svg.querySelectorAll('path[d]:not([d=""]), rect').length),
    );
    assert.ok(charts.length >= 12, `expected the overview, game-type, curriculum and horizon charts, found ${charts.length}`);
    for (const marks of charts) assert.ok(marks > 0, 'a chart without marks');

    // The hostile payload is shown as text, never as an element.
    assert.is(await page.locator('img').count(), 0);
    assert.ok((await page.textContent('body'))!.includes('<img src="https://example.com/x.png"'));

    mkdirSync('tests/artifacts', { recursive: true });
    await page.screenshot({ path: 'tests/artifacts/report.png', fullPage: true });

    // The filter script narrows the environment list.
    const total = await page.locator('details.env').count();
    await page.selectOption('#env-verdict', 'invalid');
    const invalid = await page.locator('details.env:not([hidden])').count();
    assert.ok(invalid > 0 && invalid < total, `filter showed ${invalid} of ${total}`);
    await page.selectOption('#env-verdict', '');
    await page.selectOption('#env-type', 'tool-use');
    const toolUse = await page.locator('details.env:not([hidden])').count();
    assert.ok(toolUse > 0 && toolUse < total, `game type filter showed ${toolUse} of ${total}`);
    assert.is(await page.locator('details.env:not([hidden])[data-game-type="tool-use"]').count(), toolUse);
    await page.selectOption('#env-type', '');
    await page.fill('#env-search', 'zzz-no-such-environment');
    assert.is(await page.locator('details.env:not([hidden])').count(), 0);
    await page.close();
  });
}

test.run();
