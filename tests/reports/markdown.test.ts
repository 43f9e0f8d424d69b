import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderMarkdownReport } from '../../reports/markdown.js';
import { renderHtmlReport } from '../../reports/html.js';
import { syntheticRun } from './fixtures.js';
import { metricsShownIn } from '../../core/metrics/table.js';
import { ROUND_LOG_FIGURES, ROUND_LOG_KEYS } from '../../core/selfplay/round-log.js';
import { roundLogValue } from '../../reports/designer-dynamics.js';

test('a pool that took no step (validation only, or all errored) has no rate: n/a in both reports, never 0', async () => {
  const run = syntheticRun({ runId: 'idle' });
  for (const suite of run.suites) Object.assign(suite.metrics.throughput, { episodes: 0, steps: 0, episodesPerSec: 0, stepsPerSec: 0 });
  const rows = renderMarkdownReport([run]).split('\n').filter((line) => /^\| (selfplay|procedural) \| (self-play|static) \|/.test(line));
  assert.is(rows.length, 2);
  for (const row of rows) assert.is(row.split(' | ')[7], 'n/a', row);
  const html = await renderHtmlReport([run]);
  const throughput = html.slice(html.indexOf('<h3>Throughput</h3>'), html.indexOf('</table>', html.indexOf('<h3>Throughput</h3>')));
  assert.is(throughput.match(/<td>n\/a<\/td><td>n\/a<\/td>/g)?.length, 2, throughput);
});

test('one table row per pool, with the axes and the labels', () => {
  const md = renderMarkdownReport([syntheticRun({ runId: 'A', sandboxInsecure: true }), syntheticRun({ runId: 'B', seed: 2 })]);
  assert.match(md, /## Run A/);
  assert.match(md, /## Run B/);
  assert.is(md.match(/^\| selfplay \| self-play \|/gm)?.length, 2);
  assert.is(md.match(/^\| procedural \| static \|/gm)?.length, 2);
  assert.match(md, /NOT a security boundary/);
  assert.match(md, /offline reference policy, not a model/);
  // Validity under SPADE's checks beside strict's: SPADE accepts at least what strict plays.
  // (The pool's overview rows; its game-type rows start with its id too.)
  for (const row of md.split('\n').filter((line) => line.startsWith('| selfplay | self-play |'))) {
    const [spade, strict] = /\| (\d+) \/ (\d+)\+\d+ of \d+ \|/.exec(row)!.slice(1).map(Number);
    assert.ok(spade! >= strict!, row);
  }
});

test('each pool split by game type, tool calls for tool-use games', () => {
  const run = syntheticRun({ runId: 'A' });
  const md = renderMarkdownReport([run]);
  assert.match(md, /\| pool \| game type \| valid\/proposed \| episodes \| success \(95% CI\) \| mean turns \| tool calls\/episode \|/);
  const toolUse = run.suites[0]!.metrics.byGameType!['tool-use']!;
  assert.match(md, new RegExp(`^\\| selfplay \\| tool-use \\| ${toolUse.valid}/${toolUse.environments} \\| ${toolUse.episodes} \\|`, 'm'));
  assert.is(md.match(/^\| procedural \| (single-turn|multi-turn|tool-use) \|/gm)?.length, Object.keys(run.suites[1]!.metrics.byGameType!).length);
});

test('hostile ids cannot break the table or inject HTML', () => {
  const run = syntheticRun({ payload: '| <script>x</script>\n# heading' });
  const md = renderMarkdownReport([run]);
  assert.not.ok(md.includes('<script>'));
  // Only what could form a tag or an entity is escaped: the rest reads as it is in a CI log.
  assert.match(md, "- protocols: designer side spade-bench's paraphrase; agent spade-bench's;");
  assert.not.match(md, '&#39;');
  const rows = md.split('\n').filter((line) => line.startsWith('| selfplay') && line.includes('| self-play |'));
  assert.is(rows.length, 1);
  // the row keeps its 10 columns: the pipe in the id is escaped
  assert.is(rows[0]!.split(/(?<!\\)\|/).length - 2, 10);
});

test('the summary: pools as rows, runs as columns, differences from the first run with a 95% interval, marked where it excludes zero', () => {
  const md = renderMarkdownReport([syntheticRun({ runId: 'A' }), syntheticRun({ runId: 'B', seed: 2 }), syntheticRun({ runId: 'C', seed: 3, erroredShare: 1 })]);
  assert.match(md, /^## Summary$/m);
  assert.match(md, /^\| pool \| metric \| A \| B \| B − A \| C \| C − A \|$/m);
  const rows = md.split('\n').filter((line) => /^\| (selfplay|procedural) \((self-play|static)\) \|/.test(line));
  assert.is(rows.length, 2 * metricsShownIn('markdown').length, 'two pools, each metric the table shows in Markdown');
  for (const row of rows) {
    const cells = row.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    const diff = cells[4]!;
    const interval = /\(([-+]?[\d.,]+) to ([-+]?[\d.,]+)/.exec(diff);
    if (!interval) continue;
    const [low, high] = [Number(interval[1]!.replace(/,/g, '')), Number(interval[2]!.replace(/,/g, ''))];
    assert.is(diff.endsWith('\\*'), low > 0 || high < 0, diff);
  }
  const success = rows.find((row) => row.startsWith('| selfplay (self-play) | success |'))!;
  assert.match(success, /pp \([-+][\d.]+ to [-+][\d.]+ pp\)/);
  // The run whose episodes all errored: n/a, nothing to compare, never 0.0% (0.0–100.0%).
  assert.match(success, /\| n\/a \(0 \/ 0; \d+ errored\) \| – \|$/);
  assert.not.match(md, /0\.0% \(0\.0–100\.0%/);
});

test('a banner when episodes errored, with the error classes', () => {
  const clean = renderMarkdownReport([syntheticRun({ runId: 'A', erroredShare: 0 })]);
  assert.not.match(clean, /errored \(/);
  const md = renderMarkdownReport([syntheticRun({ runId: 'A', erroredShare: 0 }), syntheticRun({
    runId: 'down', erroredShare: 1,
    errorClasses: [{ errorClass: 'provider:connection', count: 180, messages: ['APIConnectionError: connect ECONNREFUSED 127.0.0.1:9'] }],
  })]);
  assert.match(md, /^> \*\*⚠ Run down: (\d+) of \1 episodes errored \(selfplay \d+, procedural \d+\); no episode was decided, so its success rates are n\/a\./m);
  assert.match(md, /^> - provider:connection ×180: APIConnectionError: connect ECONNREFUSED 127\.0\.0\.1:9$/m);
  assert.not.match(md, /Run A: /);
});

test("designer dynamics: each run's rounds with every figure of SPADE's round log, n/a with its reason", () => {
  const runs = [syntheticRun({ runId: 'A', rounds: 3 }), syntheticRun({ runId: 'B', seed: 2, rounds: 3 })];
  const md = renderMarkdownReport(runs);
  assert.ok(md.includes('## Designer dynamics'));
  const section = md.slice(md.indexOf('## Designer dynamics'));
  runs.forEach((run, i) => {
    const name = run.run.id;
    const table = section.slice(section.indexOf(`### ${name} · selfplay`));
    const header = table.split('\n').find((line) => line.startsWith('| round |'))!;
    for (const key of ROUND_LOG_KEYS) assert.ok(header.includes(ROUND_LOG_FIGURES[key].label.replace(/&/g, '&amp;').replace(/</g, '&lt;')), `${name}: ${key}`);
    const rows = table.split('\n').filter((line) => /^\| \d+ \|/.test(line)).slice(0, 3);
    assert.is(rows.length, 3, name);
    // Each row's cells are the round log's figures as recorded, a share in percent.
    rows.forEach((row, r) => {
      const cells = row.slice(2, -2).split(' | ').slice(1);
      const log = runs[i]!.suites[0]!.rounds[r]!.log!;
      assert.equal(cells, ROUND_LOG_KEYS.map((key) => roundLogValue(key, log.figures[key])), `${name} round ${r}`);
      assert.is(cells[ROUND_LOG_KEYS.indexOf('validatorRejectionRate')], 'n/a', 'no reviewer in the fixture');
      assert.match(cells[ROUND_LOG_KEYS.indexOf('designerTruncatedShare')]!, /%$/);
    });
  });
  // The fixture has no LLM validator: its figure is n/a, and the reason is given once per pool.
  assert.is(section.match(/^- n\/a: LLM validator rejection rate \(rounds 0, 1, 2\): .*--reviewer/gm)?.length, 2);
});

test.run();
