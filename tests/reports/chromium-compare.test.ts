/**
 * The report that compares runs, in Debian's Chromium at 1400 px and at 820 px: no two x-axis
 * labels of a chart overlap (every chart is measured, and a label laid over another is caught);
 * a "0" or "n/a" standing in for a bar stays clear of its whisker; charts fill their cards; the summary table shows each later run's
 * difference from the first with its interval, marked exactly where the interval excludes
 * zero; a run keeps one colour in every chart; an all-errored run gets a banner with its error
 * classes and "n/a" rates; no console error, no page error.
 * Skipped (never failed) when /usr/bin/chromium is not installed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import type { RunResults } from '../../core/results/results.js';
import { barChart } from '../../reports/chart-specs.js';
import { renderChart } from '../../reports/charts.js';
import { renderHtmlReport } from '../../reports/html.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing, collectErrors, xLabelOverlaps } from '../helpers/chromium.js';
import { tempDir } from '../helpers/cli.js';
import { syntheticRun } from './fixtures.js';

/** A run with many pools of long names, as a report of several suites has. */
function manyPools(): RunResults {
  const run = syntheticRun({ runId: 'many-pools', seed: 4 });
  const ids = ['spade', 'procedural', 'reasoning-gym-arc-1d', 'livecodebench-v6', 'gpqa-diamond', 'humaneval', 'rlve-adaptive', 'spadeprocedural-pool-gpt55'];
  run.suites = ids.map((id, i) => ({ ...structuredClone(run.suites[i % 2]!), id }));
  return run;
}

const missing = chromiumMissing();
if (missing) {
  console.log(`skipped: ${missing}`);
  test.skip('the compared report in Chromium', () => {});
} else {
  let browser: Browser;
  const dir = tempDir('spade-compare-');
  const compared = path.join(dir, 'compare.html');
  const crowded = path.join(dir, 'crowded.html');
  const names = ['model-A', 'model-B', 'server-down'];

  test.before(async () => {
    writeFileSync(compared, await renderHtmlReport([
      syntheticRun({ runId: names[0], seed: 1 }),
      syntheticRun({ runId: names[1], seed: 2, agentLabel: 'openai:gpt-4.1-mini' }),
      syntheticRun({
        runId: names[2], seed: 3, erroredShare: 1,
        errorClasses: [{ errorClass: 'provider:server', count: 180, messages: ['InternalServerError: 500 the model server failed'] }],
      }),
    ]));
    writeFileSync(crowded, await renderHtmlReport([manyPools(), syntheticRun({ runId: 'second', seed: 5 })]));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  test.after(async () => {
    await browser?.close();
  });

  test('the overlap check sees labels that overlap', async () => {
    const page = await browser.newPage();
    await page.setContent('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><text class="x-label" x="10" y="20">spade</text><text class="x-label" x="30" y="20">procedural</text><text class="x-label" x="150" y="20">apart</text></svg>');
    const { labels, overlaps } = await xLabelOverlaps(page);
    assert.is(labels, 3);
    assert.equal(overlaps.map((o) => [o.a, o.b]), [['spade', 'procedural']]);
    await page.close();
  });

  test('the overlap check covers every chart of the report, designer dynamics too, and fails on labels that overlap', async () => {
    const page = await browser.newPage({ viewport: { width: 820, height: 900 } });
    await page.goto(pathToFileURL(compared).href, { waitUntil: 'load' });
    // Every chart has x labels to measure, and the designer dynamics section has its charts.
    const charts = await page.$$eval('figure svg', (svgs) => svgs.map((svg) => ({
      chart: svg.getAttribute('aria-label') ?? '',
      labels: svg.querySelectorAll('text.x-label').length,
      dynamics: svg.closest('#designer-dynamics') !== null,
    })));
    assert.ok(charts.length >= 20, `charts: ${charts.length}`);
    assert.equal(charts.filter((c) => c.labels === 0), [], 'charts without x labels escape the check');
    assert.ok(charts.filter((c) => c.dynamics).length >= 6, `designer dynamics charts: ${charts.filter((c) => c.dynamics).length}`);
    assert.equal((await xLabelOverlaps(page)).overlaps, []);
    // One label laid over another in every chart: the check names every chart.
    await page.$$eval('figure svg', (svgs) => {
      for (const svg of svgs) {
        const first = svg.querySelector('text.x-label')!;
        first.parentNode!.appendChild(first.cloneNode(true));
      }
    });
    const { overlaps } = await xLabelOverlaps(page);
    assert.is(overlaps.length, charts.length);
    assert.equal(new Set(overlaps.map((o) => o.chart)), new Set(charts.map((c) => c.chart)));
    await page.close();
  });

  test('a "0" or "n/a" drawn in place of a bar stays clear of its interval and of its neighbours', async () => {
    const rows = ['spade', 'procedural'].flatMap((group) => [
      { group, series: 'offline', value: 0.76, lo: 0.69, hi: 0.81 },
      { group, series: 'local-server', value: 0, lo: 0, hi: 0.02 },
      { group, series: 'server-down', value: null },
    ]);
    for (const width of [1400, 820, 400]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.setContent(`<figure style="margin:0;width:${Math.round(width * 0.45)}px">${await renderChart(barChart(rows, 'success', true), 'success by pool')}</figure><style>svg{width:100%;height:auto}</style>`);
      // Boxes as the browser lays them out (no named helpers inside: the page runs this code as written).
      const clashes = await page.$eval('svg', (svg) => {
        // The page's own types (this project compiles without the DOM's): what is read of each mark.
        type Mark = { textContent: string | null; getAttribute(name: string): string | null; getBoundingClientRect(): { left: number; right: number; top: number; bottom: number } };
        const texts = Array.from(svg.querySelectorAll('text.mark-missing')) as unknown as Mark[];
        const others = Array.from(svg.querySelectorAll('path.mark-rule, path.mark-bar, text.mark-missing')) as unknown as Mark[];
        const out: string[] = [];
        for (const t of texts) {
          const a = t.getBoundingClientRect();
          for (const o of others) {
            const b = o.getBoundingClientRect();
            if (o !== t && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) out.push(`${t.textContent} meets ${o.getAttribute('class')}`);
          }
        }
        return { texts: texts.length, out };
      });
      assert.is(clashes.texts, 4);
      assert.equal(clashes.out, [], `at ${width} px`);
      await page.close();
    }
  });

  for (const width of [1400, 820]) {
    test(`at ${width} px: no overlapping x labels, charts fill their cards, tables fit, no errors`, async () => {
      for (const file of [compared, crowded]) {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        const errors = collectErrors(page);
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        const { labels, overlaps } = await xLabelOverlaps(page);
        assert.ok(labels > 20, `x labels measured: ${labels}`);
        assert.equal(overlaps, [], `${path.basename(file)}: ${JSON.stringify(overlaps.slice(0, 5))}`);
        // Each chart takes the width of its card (less the card's padding).
        const fill = await page.$$eval('figure', (figures) => figures.map((figure) => {
          const svg = figure.querySelector('svg');
          return svg ? svg.getBoundingClientRect().width / (figure.clientWidth - 24) : 1;
        }));
        assert.ok(fill.length >= 10 && fill.every((share) => share > 0.97), `charts' share of their card: ${fill.map((s) => s.toFixed(2)).join(' ')}`);
        // The summary of three runs is read without scrolling sideways, at 820 px too; at 1400 px, so is SPADE's round log.
        const wide = await page.$$eval('.table-wrap', (wraps) => wraps.filter((wrap) => wrap.scrollWidth > wrap.clientWidth + 1).map((wrap) => wrap.querySelector('table')?.getAttribute('class') ?? ''));
        assert.not.ok(wide.includes('summary'), `tables wider than the page: ${wide.join(', ')}`);
        if (width >= 1400) assert.not.ok(wide.includes('round-log'), `tables wider than the page: ${wide.join(', ')}`);
        assert.equal(errors, []);
        await page.close();
      }
    });
  }

  test('the summary: differences from the first run with intervals, marked where the interval excludes zero', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(pathToFileURL(compared).href, { waitUntil: 'load' });
    // The summary comes first, before the runs' details.
    const order = await page.$$eval('main > section', (sections) => sections.map((s) => s.id));
    assert.is(order[0], 'summary');
    const headers = await page.$$eval('#summary thead th', (ths) => ths.map((th) => th.textContent ?? ''));
    assert.ok(headers.some((h) => h.startsWith('model-B − model-A')) && headers.some((h) => h.startsWith('server-down − model-A')), headers.join(' | '));
    const cells = await page.$$eval('#summary td.diff', (tds) => tds.map((td) => ({ value: td.querySelector('.value')?.textContent ?? '', small: td.querySelector('small')?.textContent ?? '', marked: td.querySelector('.mark') !== null })));
    const withInterval = cells.filter((c) => / to /.test(c.small));
    assert.ok(withInterval.length >= 6, `differences with intervals: ${withInterval.length}`);
    for (const c of withInterval) {
      const [low, high] = c.small.replace(/ pp$/, '').split(' to ').map((x: string) => Number(x.replace(/,/g, '')));
      assert.is(c.marked, low! > 0 || high! < 0, `${c.value} (${c.small}): marked ${c.marked}`);
    }
    assert.ok(cells.some((c) => c.value.endsWith('pp')), 'shares differ in percentage points');
    // model-B's success differs from model-A's with an interval; the errored run has nothing to compare.
    const success = await page.$$eval('#summary tbody[data-pool="selfplay"] tr', (rows) => rows.map((row) => Array.from(row.querySelectorAll('th, td')).map((cell) => (cell as { textContent: string | null }).textContent ?? '')));
    const line = success.find((cells) => cells[0] === 'success')!;
    assert.match(line[3]!, /pp.* to .*pp/);
    assert.match(line[4]!, /^n\/a/);
    assert.is(line[5], '–');
    await page.close();
  });

  test('a run keeps one colour in every chart, the colour of its column', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(pathToFileURL(compared).href, { waitUntil: 'load' });
    const swatches = await page.$$eval('#summary thead .swatch', (spans) => spans.map((span) => (span as unknown as { style: { background: string } }).style.background));
    assert.is(swatches.length, 3);
    const items = await page.$$eval('.legend-item', (gs) => gs.map((g) => ({ series: g.getAttribute('data-series') ?? '', colour: g.getAttribute('data-colour') ?? '' })));
    let checked = 0;
    for (const [i, name] of names.entries()) {
      const colours = new Set(items.filter((item) => item.series === name || item.series.startsWith(`${name} · `)).map((item) => item.colour));
      assert.is(colours.size, 1, `${name}: ${[...colours].join(', ')}`);
      const [colour] = [...colours];
      const rgb = colour!.match(/[0-9a-f]{2}/gi)!.map((h: string) => parseInt(h, 16)).join(', ');
      assert.is(swatches[i], `rgb(${rgb})`);
      checked++;
    }
    assert.is(checked, 3);
    await page.close();
  });

  test("designer dynamics: SPADE's round log round by round, each run in its colour, n/a with its reason", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = collectErrors(page);
    await page.goto(pathToFileURL(compared).href, { waitUntil: 'load' });
    const section = page.locator('#designer-dynamics');
    const marks = await section.locator('figure svg').evaluateAll((svgs) => svgs.map((svg) => svg.querySelectorAll('path[d]:not([d=""])').length));
    assert.ok(marks.length >= 7 && marks.every((n) => n > 0), `charts and their marks: ${marks}`);
    const legend = await section.locator('.legend-item').evaluateAll((gs) => gs.map((g) => ({ series: g.getAttribute('data-series') ?? '', colour: g.getAttribute('data-colour') ?? '' })));
    for (const name of names) {
      const colours = new Set(legend.filter((item) => item.series.startsWith(`${name} · selfplay · `)).map((item) => item.colour));
      assert.is(colours.size, 1, `${name}: one colour, got ${[...colours].join(', ')}`);
    }
    assert.is(new Set(legend.map((item) => item.colour)).size, names.length, 'one colour per run');
    // One table per run's pool, a row per round, every figure a column; n/a cells say why.
    assert.equal(await section.locator('h3').allTextContents(), names.map((name) => `${name} · selfplay: SPADE's round log`));
    assert.is(await section.locator('table.round-log').nth(0).locator('tbody tr').count(), 3);
    const missing = await section.locator('td[title]').evaluateAll((tds) => tds.map((td) => [td.textContent, td.getAttribute('title')]));
    assert.ok(missing.length > 0 && missing.every(([text, title]) => text === 'n/a' && (title ?? '').length > 10), JSON.stringify(missing.slice(0, 3)));
    assert.ok(((await section.locator('ul.round-log-missing').first().textContent()) ?? '').includes('--reviewer'));
    // The all-errored run played nothing that was decided: its play figures are n/a, not 0.
    const errored = section.locator('table.round-log').nth(2);
    const turns = await errored.locator('tbody tr td:last-child').allTextContents();
    assert.ok(turns.every((t) => t === 'n/a'), turns.join(' '));
    assert.equal(errors, []);
    await page.close();
  });

  test('an all-errored run: a banner with its error classes, and n/a where nothing was decided', async () => {
    const page = await browser.newPage({ viewport: { width: 820, height: 900 } });
    const errors = collectErrors(page);
    await page.goto(pathToFileURL(compared).href, { waitUntil: 'load' });
    const banners = await page.$$eval('.warning.errored', (divs) => divs.map((div) => div.textContent ?? ''));
    const errored = banners.filter((text) => text.includes('server-down'));
    assert.is(errored.length, 1, banners.join('\n'));
    assert.match(errored[0]!, /errored/);
    assert.match(errored[0]!, /n\/a/);
    assert.match(errored[0]!, /provider:server/);
    assert.match(errored[0]!, /500 the model server failed/);
    // The banner is on the first screen.
    const top = await page.$eval('.warning.errored', (div) => div.getBoundingClientRect().top);
    assert.ok(top < 900, `banner at ${top}px`);
    const body = (await page.textContent('#overview'))!;
    assert.not.match(body, /0\.0% \(?0\.0[–-]100\.0%/);
    assert.equal(errors, []);
    await page.close();
  });
}

test.run();
