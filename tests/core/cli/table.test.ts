// The four paper suites with self-play in one command, on the same agent provider, into one
// run; `table` on two such runs prints the games table's eight columns, one row per run, and the
// HTML report opens with the same table.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, tempDir } from '../../helpers/cli.js';
import { startWireServer } from '../../helpers/wire-servers.js';
import type { RunResults } from '../../../core/results/results.js';
import { syntheticRun } from '../../reports/fixtures.js';
import { writeResults } from '../../../core/results/results-file.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { FIXTURES, gamesDataDir, writeJsonLines, SHARED } from '../../benchmarks/games/games-data.js';

const lcb = JSON.parse(readFileSync(path.join(FIXTURES, 'lcb-official.json'), 'utf8')) as Record<string, { reply: string }>;

/** A model that is right on AIME problem 0, always answers B on GPQA, solves p1 of LiveCodeBench and spells backward; echoes anything else. */
async function modelServer(skill: 'good' | 'poor') {
  const server = await startWireServer('openai');
  server.route((body) => {
    const prompt = (body.messages as { content: string }[])[0]!.content;
    const n = typeof body.n === 'number' ? body.n : 1;
    let text: string | undefined;
    if (prompt.startsWith('problem ')) text = skill === 'good' && prompt.startsWith('problem 0') ? '\\boxed{73}' : '\\boxed{1}';
    else if (prompt.includes('\\boxed{LETTER}')) text = '\\boxed{B}';
    else if (prompt.includes('Starter code')) text = skill === 'good' ? lcb['p1/right']!.reply : lcb['p1/wrong']!.reply;
    else if (prompt.startsWith('Read two integers')) text = lcb['p4/wrong']!.reply;
    else {
      const word = /Spell this word backward \(example: sun -> nus\): (\S+)/.exec(prompt)?.[1];
      if (word) text = `<answer>${skill === 'good' ? [...word].reverse().join('') : word}</answer>`;
    }
    if (text === undefined) return undefined;
    return n > 1 ? { kind: 'reply', samples: Array.from({ length: n }, () => ({ text: text! })) } : { kind: 'reply', text };
  });
  return server;
}

test('a figure that two suites of a run record: the table shows the first\'s and says so', async () => {
  const run = syntheticRun({ runId: 'twice' });
  run.suites[0]!.scores = { 'gem_eval/category_rg_math/win_rate': { value: 0, low: 0, high: 0.5, n: 4 } };
  run.suites[1]!.scores = { 'gem_eval/category_rg_math/win_rate': { value: 0.75, low: 0.3, high: 0.95, n: 4 } };
  const dir = path.join(tempDir(), 'twice');
  mkdirSync(dir);
  writeResults(dir, run);
  const r = await runCli(['table', dir]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /\| 0\.0 \(0\.0–50\.0\) \|/);
  assert.match(r.stderr, `spade-bench: twice: RG:Math is recorded by 2 suites (${run.suites[0]!.id}, ${run.suites[1]!.id}); the table shows ${run.suites[0]!.id}'s`);
});

test('the four suites and self-play in one run; table prints the eight columns of the games table for two runs', async () => {
  if (checkJail().problem) return console.log('  skipped: the cpython jail cannot run here');
  const dataDir = gamesDataDir();
  writeJsonLines(path.join(dataDir, 'aime-2025/aime-2025.jsonl'), [{ prompt: [{ role: 'user', content: 'problem 0' }], label: '73' }, { prompt: [{ role: 'user', content: 'problem 1' }], label: '5' }]);
  const gpqa = path.join(tempDir(), 'gpqa.jsonl');
  writeJsonLines(gpqa, [{ question_id: 'd1', question: 'Q one?', options: ['w', 'x', 'y', 'z'], answer: 'B' }, { question_id: 'd2', question: 'Q two?', options: ['w', 'x', 'y', 'z'], answer: 'C' }]);
  const cwd = tempDir();
  const runs: string[] = [];
  for (const skill of ['good', 'poor'] as const) {
    const server = await modelServer(skill);
    writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({
      providers: { vllm: { baseURL: server.baseURL } },
      suiteOptions: { 'aime:2025': { sampling: { n: 4 } }, [`gpqa-diamond:${gpqa}`]: { sampling: { n: 2 } }, 'reasoning-gym:spell_backward': { episodes: 2 } },
    }));
    const out = `run-${skill}`;
    const suites = ['spade', 'aime:2025', `gpqa-diamond:${gpqa}`, `livecodebench:${path.join(FIXTURES, 'lcb-release.jsonl')}`, 'reasoning-gym:spell_backward'];
    try {
      const r = await runCli(['run', '--out', out, '--agent', `vllm:model-${skill}`, '--suites', suites.join(','), '--rounds', '1', '--envs-per-round', '2', '--attempts', '1', '--data-dir', dataDir, '--python-sandbox', 'cpython'], { cwd, env: { SPADE_BENCH_DATA_DIR: SHARED } });
      assert.is(r.code, 0, r.stderr);
    } finally {
      await server.close();
    }
    const results = JSON.parse(readFileSync(path.join(cwd, out, 'results.json'), 'utf8')) as RunResults;
    assert.equal(results.suites.map((s) => s.id), suites);
    assert.is(results.run.agent, `vllm:model-${skill}`);
    const report = readFileSync(path.join(cwd, out, 'report.html'), 'utf8');
    assert.ok(report.indexOf('id="paper"') > 0 && report.indexOf('id="paper"') < report.indexOf('id="runs"'), 'the report opens with the games table');
    runs.push(out);
  }
  const table = await runCli(['table', ...runs], { cwd });
  assert.is(table.code, 0, table.stderr);
  const lines = table.stdout.trim().split('\n');
  assert.is(lines[0], '| Method | AIME-25 | AIME-26 | GPQA-Diamond | LiveCodeBench | RG:Math | RG:Algorithmic | RG:Cognition | RG:Logic |');
  assert.is(lines.length, 4);
  const cells = (line: string) => line.split('|').slice(1, -1).map((c) => c.trim());
  const good = cells(lines[2]!);
  const poor = cells(lines[3]!);
  assert.is(good[0], 'vllm:model-good');
  assert.match(good[1]!, /^50\.0 \(\d+\.\d–\d+\.\d\)$/);
  assert.is(good[2], '—', 'no AIME 2026 in these runs');
  assert.match(good[3]!, /^50\.0 /);
  assert.match(good[4]!, /^25\.0 /);
  assert.is(good[5], '—');
  assert.match(good[6]!, /^100\.0 /);
  assert.match(poor[1]!, /^0\.0 /);
  assert.match(poor[4]!, /^0\.0 /);
  assert.match(poor[6]!, /^0\.0 /);
  const csv = await runCli(['table', ...runs, '--format', 'csv'], { cwd });
  assert.match(csv.stdout.split('\n')[0]!, /^Method,AIME-25,AIME-25 low,AIME-25 high,AIME-26/);
  const latex = await runCli(['table', ...runs, '--format', 'latex'], { cwd });
  assert.match(latex.stdout, /vllm:model-good & 50\.0\\,\{\\scriptsize\[/);
  const bad = await runCli(['table'], { cwd });
  assert.is(bad.code, 2);
});

test.run();
