import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderHtmlReport } from '../../reports/html.js';
import { syntheticRun } from './fixtures.js';

const PAYLOAD = '</code></pre><script>alert("x")</script><img src=x onerror=alert(1)>';

test('hostile strings from results are escaped everywhere, charts included', async () => {
  const html = await renderHtmlReport([syntheticRun({ runId: `evil${PAYLOAD}`, payload: PAYLOAD })]);
  // Exactly one script element: the report's own filter script.
  assert.is(html.match(/<script/gi)?.length, 1);
  assert.not.ok(html.includes('<img'), 'an <img> element was injected');
  assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
  // And the CSP forbids any other script and any request.
  assert.match(html, /Content-Security-Policy" content="default-src 'none';/);
});

test('every suite of every run appears, self-play beside the static suite', async () => {
  const a = syntheticRun({ runId: 'model-A', seed: 1 });
  const b = syntheticRun({ runId: 'model-B', seed: 2 });
  b.suites[1]!.id = 'gsm8k';
  const html = await renderHtmlReport([a, b]);
  for (const id of ['selfplay', 'procedural', 'gsm8k', 'model-A', 'model-B']) assert.ok(html.includes(id), `missing ${id}`);
  assert.ok(html.includes('Verifier validity') && html.includes('Goal diversity') && html.includes('Throughput') && html.includes('Long-horizon success'));
  // Both readings of the gate side by side, with reasons; skills; SPADE's difficulty bands.
  assert.ok(html.includes('Both readings of the gate') && html.includes("SPADE's checks: accepted") && html.includes('SPADE accepts, strict rejects'));
  assert.match(html, /<td>strict<\/td>/);
  assert.ok(html.includes('Success by skill') && html.includes('Pattern Recognition'));
  assert.ok(html.includes("Difficulty bands (SPADE's)") && html.includes('every play the same reward'));
  assert.match(html, /<strong>Readings<\/strong>/);
  // charts are inline SVG, present without script
  assert.ok((html.match(/<svg/g)?.length ?? 0) >= 10);
});

test('labels: insecure sandbox warning and the offline reference policy', async () => {
  const insecure = await renderHtmlReport([syntheticRun({ sandboxInsecure: true })]);
  assert.match(insecure, /NOT a security boundary/);
  assert.match(insecure, /offline reference policy<\/strong>[^<]*<strong>not a model/);
  const secure = await renderHtmlReport([syntheticRun({ agentLabel: 'openai:gpt-4.1-mini' })]);
  assert.not.match(secure, /NOT a security boundary/);
  // the designer is still the reference policy; the agent is a model
  assert.match(secure, /The designer is the <strong>offline reference policy/);
  assert.not.match(secure, /The agent is the <strong>offline reference policy/);
});

test('large pools are capped and say how many are shown of how many', async () => {
  const run = syntheticRun({ environmentsPerRound: 80 });
  const html = await renderHtmlReport([run], { browser: { environmentsPerPool: 25 } });
  assert.match(html, /selfplay: 25 shown of 240/);
  assert.is(html.match(/<details class="env"/g)?.length, 50);
  // the sample keeps every verdict visible
  assert.ok(html.includes('data-verdict="invalid"') && html.includes('data-verdict="unproven"'));
});

test('game types: compared by pool in the overview, per round in the curriculum, and a filter of the environment browser', async () => {
  const run = syntheticRun();
  const html = await renderHtmlReport([run]);
  assert.match(html, /<h3>By game type<\/h3>/);
  assert.match(html, /aria-label="Success by game type"/);
  assert.match(html, /aria-label="Solve rate per round by game type"/);
  assert.match(html, /<select id="env-type" aria-label="game type"><option value="">all game types<\/option><option value="single-turn">single-turn<\/option><option value="multi-turn">multi-turn<\/option><option value="tool-use">tool-use<\/option><\/select>/);
  const entries = html.match(/<details class="env"[^>]*>/g)!;
  assert.ok(entries.every((entry) => /data-game-type="(single-turn|multi-turn|tool-use)"/.test(entry)));
  // One table row per pool and game type, with the tool calls of tool-use games.
  const selfplay = run.suites[0]!.metrics.byGameType!['tool-use']!;
  assert.ok(selfplay.toolCallsPerEpisode! > 0);
  assert.ok(html.includes(`<td><span class="badge game-type">tool-use</span></td><td>${selfplay.valid} / ${selfplay.environments}`), 'the tool-use row of the self-play pool');
});

test('designer dynamics: a table per pool with an n/a reason per figure; runs without rounds say so', async () => {
  const run = syntheticRun({ runId: 'A', rounds: 2 });
  const html = await renderHtmlReport([run]);
  const section = html.slice(html.indexOf('<section id="designer-dynamics">'), html.indexOf('</section>', html.indexOf('<section id="designer-dynamics">')));
  assert.is(section.match(/<table class="round-log">/g)?.length, 1);
  assert.is(section.match(/<tbody>[\s\S]*?<\/tbody>/)![0].match(/<tr>/g)?.length, 2, 'a row per round');
  // The reason of an n/a figure is in its cell's title and listed under the table.
  assert.match(section, /<td class="muted" title="no LLM validator reviewed this round \(no --reviewer\)">n\/a<\/td>/);
  assert.match(section, /<li><b>LLM validator rejection rate<\/b> \(rounds 0, 1\)/);
  run.suites = run.suites.filter((suite) => suite.kind === 'static');
  const staticOnly = await renderHtmlReport([run]);
  assert.match(staticOnly, /These runs have no rounds of self-play or curriculum/);
  assert.not.match(staticOnly, /<table class="round-log">/);
});

test('no external resources are referenced', async () => {
  const html = await renderHtmlReport([syntheticRun()]);
  assert.not.match(html, /\s(src|href)="(https?:)?\/\//i);
  assert.not.match(html, /<link\b/i);
});

test('two runs with the same results: the second run\'s series are marked as such and the first is drawn wider beneath them', async () => {
  const html = await renderHtmlReport([syntheticRun({ runId: 'A' }), syntheticRun({ runId: 'A-again' })]);
  assert.match(html, /A-again · selfplay \(same values as A · selfplay\)/);
  // The earlier of two identical lines is wider, so that it shows around the later one.
  const widths = [...html.matchAll(/<path class="mark-line"[^>]*stroke-width="([\d.]+)"[^>]*><title>(A|A-again) · selfplay<\/title>/g)].map((m) => [m[2], Number(m[1])]);
  assert.ok(widths.some(([run, width]) => run === 'A' && (width as number) > 2), JSON.stringify(widths));
  assert.ok(widths.every(([run, width]) => run === 'A' || width === 2), JSON.stringify(widths));
});

test('first-try validity is shown beside validity when the results have it', async () => {
  // Results of a pool that repairs nothing, or written before first tries were recorded.
  const bare = syntheticRun({ runId: 'A' });
  delete bare.suites[0]!.metrics.validity.firstTry;
  const without = await renderHtmlReport([bare]);
  assert.not.match(without, /first try/);
  const run = syntheticRun({ runId: 'A' });
  Object.assign(run.suites[0]!.metrics.validity, { firstTry: { valid: 3, proposed: 36, rate: 3 / 36, interval: [0.029, 0.217] } });
  const html = await renderHtmlReport([run]);
  assert.match(html, /<small class="beside">first try <strong>8\.3%<\/strong> <span class="interval">2\.9–21\.7%<\/span><\/small>/);
  assert.match(html, /first try \(before repairs\)/);
});

test('validity per slot and per program are shown beside validity and first try, with their counts', async () => {
  const run = syntheticRun({ runId: 'A' });
  Object.assign(run.suites[0]!.metrics.validity, {
    firstTry: { valid: 3, proposed: 10, rate: 0.3 },
    perSlot: { slots: 10, valid: 8, rate: 0.8, interval: [0.49, 0.943] },
    perProgram: { programs: 25, valid: 8, rate: 0.32, interval: [0.172, 0.516] },
  });
  const html = await renderHtmlReport([run]);
  assert.match(html, /<small class="beside">per slot <strong>80\.0%<\/strong> <span class="interval">49\.0–94\.3%<\/span><\/small>/);
  assert.match(html, /<small class="beside">per program <strong>32\.0%<\/strong> <span class="interval">17\.2–51\.6%<\/span><\/small>/);
  assert.match(html, /per slot \(SPADE's pass rate\)/);
  assert.match(html, /32\.0% <small>17\.2–51\.6%<\/small> <small>8 \/ 25<\/small>/);
});

test('a run whose episodes all errored: n/a, never 0.0% (0.0–100.0%), and a banner', async () => {
  const html = await renderHtmlReport([syntheticRun({ runId: 'down', erroredShare: 1, errorClasses: [{ errorClass: 'provider:server', count: 216, messages: ['InternalServerError: 500'] }] })]);
  assert.not.match(html, /0\.0%\s*(<small>)?\(?0\.0–100\.0%/);
  assert.match(html, /<div class="warning errored" role="alert"><div>⚠ Run down: (\d+) of \1 episodes errored/);
  assert.match(html, /<li><code>provider:server<\/code> ×216 — <q>InternalServerError: 500<\/q><\/li>/);
  const clean = await renderHtmlReport([syntheticRun({ runId: 'fine', erroredShare: 0 })]);
  assert.not.match(clean, /class="warning errored"/);
});

test('a run that judged no program says so, not that its results predate the two readings', async () => {
  const run = syntheticRun({ runId: 'none' });
  for (const suite of run.suites) {
    suite.metrics.validity = { ...suite.metrics.validity, proposed: 0, valid: 0 };
    delete suite.metrics.validity.readings;
  }
  const html = await renderHtmlReport([run]);
  assert.match(html, 'No program reached the gate, so neither reading judged one.');
  assert.not.match(html, 'predate');
});

test.run();
