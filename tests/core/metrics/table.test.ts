// One table of metrics: results.json's metrics, the console's line, both reports and
// docs/metrics.md all come from core/metrics/table.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { METRICS, headlineOf, metricsMarkdown, metricsShownIn } from '../../../core/metrics/table.js';
import { suiteResult } from '../../../core/run/run-suite.js';
import { metricsLine } from '../../../core/cli/progress.js';
import { repoRoot } from '../../helpers/cli.js';
import { syntheticRun } from '../../reports/fixtures.js';

const DOC = path.join(repoRoot, 'docs', 'metrics.md');
const START = '<!-- metrics-table:start -->';
const END = '<!-- metrics-table:end -->';

test("docs/metrics.md's table is the table of metrics", () => {
  const text = readFileSync(DOC, 'utf8');
  const [before, rest] = text.split(START);
  assert.ok(rest?.includes(END), `docs/metrics.md has ${START} ... ${END}`);
  const [current, after] = rest!.split(END);
  const expected = `\n${metricsMarkdown()}\n`;
  if (process.env.UPDATE_DOCS === '1' && current !== expected) writeFileSync(DOC, `${before}${START}${expected}${END}${after}`);
  else assert.fixture(current!, expected, "docs/metrics.md's table is out of date: UPDATE_DOCS=1 node tests/run.mjs metrics/table");
  for (const row of METRICS) assert.ok(text.includes(`\`metrics.${row.key}\``), row.key);
});

test('every row has its own key, a label, a sentence, and a format where it has a headline', () => {
  const keys = METRICS.map((row) => row.key);
  assert.equal(new Set(keys).size, keys.length, 'keys are unique');
  for (const row of METRICS) {
    assert.ok(row.label && row.describe.length > 20, row.key);
    if (row.headline) assert.ok(row.format, `${row.key} has a headline and a format`);
    else assert.equal(row.shows, [], `${row.key} shows no headline it does not have`);
  }
});

test('the suite result holds one key per row that applies, in the order of the table', () => {
  const run = syntheticRun({ runId: 'A' });
  for (const suite of run.suites) {
    const keys = Object.keys(suite.metrics);
    assert.equal(keys, METRICS.map((row) => row.key).filter((key) => keys.includes(key)));
    for (const key of ['validity', 'diversity', 'throughput', 'success', 'usage']) assert.ok(keys.includes(key), key);
  }
  // An empty pool: the rates it cannot measure are null ("n/a"), never 0.
  const empty = suiteResult('empty', 'static', [], 0, [], { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, cachedCalls: 0 });
  for (const row of metricsShownIn('html')) {
    const figure = headlineOf(row, empty.metrics);
    assert.ok(figure, row.key);
    assert.is(figure!.value, null, `${row.key} of an empty pool`);
  }
});

test("the console's line after a suite is the headline of each metric the table shows there", () => {
  const suite = syntheticRun({ runId: 'A' }).suites[0]!;
  const line = metricsLine(suite.metrics);
  const shown = metricsShownIn('console');
  assert.ok(shown.length >= 4);
  let at = -1;
  for (const row of shown) {
    const next = line.indexOf(`${row.label} `, at + 1);
    assert.ok(next > at, `${row.label} in order in: ${line}`);
    at = next;
  }
  const { valid, proposed } = suite.metrics.validity;
  assert.match(line, `${valid} / ${proposed}`);
});


test('a pool that took no environment step (every episode errored first) has no throughput, not 0', async () => {
  const { throughputMetrics } = await import('../../../core/metrics/throughput.js');
  const row = METRICS.find((r) => r.key === 'throughput')!;
  const errored = throughputMetrics([], 12.5, 4);
  assert.equal(headlineOf(row, { throughput: errored } as never), { value: null, note: 'no environment step was taken' });
  const played = throughputMetrics([{ turns: 5 } as never], 2);
  assert.is(headlineOf(row, { throughput: played } as never)!.value, 2.5);
});

test.run();
