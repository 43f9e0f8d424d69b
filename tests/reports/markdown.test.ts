import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderMarkdownReport } from '../../reports/markdown.js';
import { syntheticRun } from './fixtures.js';

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
  const rows = md.split('\n').filter((line) => line.startsWith('| selfplay') && line.includes('| self-play |'));
  assert.is(rows.length, 1);
  // the row keeps its 10 columns: the pipe in the id is escaped
  assert.is(rows[0]!.split(/(?<!\\)\|/).length - 2, 10);
});

test.run();
