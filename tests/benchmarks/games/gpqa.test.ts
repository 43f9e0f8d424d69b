// GPQA-Diamond scored as SPADE's evaluation scores it, on SPADE's own fixture
// (gpqa_diamond_3.jsonl): every sample's letter and verdict and every figure equal what SPADE's
// code gave on the same replies (tests/fixtures/games/gpqa-spade.json); the options of all 198
// positions are shuffled as Python's random.Random(42) shuffles them; the task text stays out of
// what the run writes unless --show-task-text; a missing HF_TOKEN is named with the terms page.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, tempDir } from '../../helpers/cli.js';
import { comparable } from '../../helpers/results.js';
import type { RunResults } from '../../../core/results/results.js';
import type { EpisodeResult } from '../../../core/concepts/episode.js';
import { shuffleQuestions } from '../../../benchmarks/games/gpqa.js';
import { scoredAnswerProgram } from '../../../benchmarks/games/scored-answer-program.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { FIXTURES, gamesDataDir, samplingServer, SHARED } from './games-data.js';

const SPADE_FIXTURE = path.join(SHARED, 'spade/spade-9b2b813.tar.gz');
const replies = JSON.parse(readFileSync(path.join(FIXTURES, 'gpqa-replies.json'), 'utf8')) as { samples: Record<string, [string, string][]> };
const spade = JSON.parse(readFileSync(path.join(FIXTURES, 'gpqa-spade.json'), 'utf8')) as {
  perSample: [string, number, string | null, boolean][];
  metrics: Record<string, number>;
  shuffle198: number[][];
};
const QUESTIONS: Record<string, string> = {
  d1: 'What charge does an electron carry?',
  d2: 'Which planet is closest to the Sun?',
  d3: 'Boiling point of water at 1 atm (Celsius)?',
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

test('the letter of a reply is read as SPADE\'s Python reads it, Unicode letters, spaces and case included', async () => {
  const recorded = JSON.parse(readFileSync(path.join(FIXTURES, 'gpqa-letters.json'), 'utf8')) as { letters: { reply: string; letter: string | null }[] };
  const sandbox = createIsolatedVmSandbox();
  try {
    const env = await sandbox.load(scoredAnswerProgram({ id: 'gpqa/letters', prompt: 'Which?', answer: 'B', rule: 'gpqa', family: 'gpqa', origin: 'test' }));
    for (const { reply, letter } of recorded.letters) {
      await env.reset(1);
      assert.is((await env.step(reply)).info.predicted, letter, JSON.stringify(reply));
    }
    await env.dispose();
  } finally {
    await sandbox.close();
  }
});

test('the options of all 198 positions are shuffled as random.Random(42) shuffles them', () => {
  const rows = Array.from({ length: 198 }, (_, i) => ({ question: `q${i}`, correct: 'R', incorrect: ['W1', 'W2', 'W3'] as [string, string, string] }));
  const shuffled = shuffleQuestions(rows);
  const choices = ['R', 'W1', 'W2', 'W3'];
  shuffled.forEach((q, i) => {
    assert.equal(q.options, spade.shuffle198[i]!.map((j) => choices[j]), `position ${i}`);
    assert.is(q.answer, 'ABCD'[spade.shuffle198[i]!.indexOf(0)]);
  });
});

/** SPADE's fixture, read from SPADE's own archive by the test (its rows are already shuffled), as a file of its own. */
async function fixtureFile(): Promise<string> {
  const fixture = path.join(tempDir(), 'gpqa_diamond_3.jsonl');
  const { readArchive } = await import('../../../benchmarks/games/pinned-source.js');
  const files = await readArchive(SPADE_FIXTURE, (p) => p === 'eval_offline/suites/tests/fixtures/gpqa_diamond_3.jsonl');
  writeFileSync(fixture, files.get('eval_offline/suites/tests/fixtures/gpqa_diamond_3.jsonl')!);
  return fixture;
}

/** A server answering each fixture question with its recorded samples. */
const fixtureServer = () =>
  samplingServer((prompt) => {
    const id = Object.keys(QUESTIONS).find((k) => prompt.startsWith(`${QUESTIONS[k]}\n\nA. `));
    return id ? replies.samples[id] : undefined;
  });

async function runFixture(extra: string[] = []) {
  assert.ok(SPADE_FIXTURE);
  const dataDir = gamesDataDir();
  const fixture = await fixtureFile();
  const server = await fixtureServer();
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ providers: { vllm: { baseURL: server.baseURL } } }));
  const r = await runCli(['run', '--out', 'out', '--agent', 'vllm:test-model', '--suites', `gpqa-diamond:${fixture}`, '--data-dir', dataDir, ...extra], { cwd });
  await server.close();
  return { r, cwd, server };
}

test('GPQA on SPADE\'s fixture: every sample and figure as SPADE\'s; the questions stay out of what the run writes', async () => {
  const { r, cwd, server } = await runFixture();
  assert.is(r.code, 0, r.stderr);
  assert.is(server.requests.length, 3);
  for (const { body } of server.requests) {
    assert.is(body.n, 8);
    assert.is(body.temperature, 0.7);
    assert.is(body.top_p, 0.95);
    assert.is(body.max_tokens, 32768);
  }
  // SPADE's prompt: the question, the options as `A. ...` lines, SPADE's instruction.
  const first = (server.requests[0]!.body.messages as { content: string }[])[0]!.content;
  assert.match(first, /\n\nA\. .*\nB\. .*\nC\. .*\nD\. .*\n\nPlease reason step by step/);
  const journal = readFileSync(path.join(cwd, 'out/journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const played = journal.filter((x) => x.type === 'episode').map((x) => x.episode as EpisodeResult);
  for (const [id, sample, , correct] of spade.perSample) {
    const episode = played.find((e) => e.environmentId === `gpqa-diamond/${id}` && e.attempt === sample)!;
    assert.is(episode.outcome, correct ? 'won' : 'lost', `${id} sample ${sample}: ${replies.samples[id]![sample]![0]}`);
  }
  const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
  const suite = results.suites[0]!;
  for (const [key, value] of Object.entries(spade.metrics)) assert.ok(Math.abs(suite.scores![key]!.value - value) < 1e-12, `${key}: ${suite.scores![key]?.value} vs ${value}`);
  assert.is(suite.privateText, true);
  for (const file of filesUnder(path.join(cwd, 'out'))) {
    const text = readFileSync(file, 'utf8');
    for (const question of Object.values(QUESTIONS)) assert.not.ok(text.includes(question), `${question} found in ${file}`);
  }
  assert.match(JSON.stringify(suite.environments[0]), /sha256:[0-9a-f]{16}/);
});

test('--show-task-text writes GPQA\'s task text', async () => {
  const { r, cwd } = await runFixture(['--show-task-text']);
  assert.is(r.code, 0, r.stderr);
  const results = readFileSync(path.join(cwd, 'out/results.json'), 'utf8');
  assert.ok(results.includes(QUESTIONS.d1!));
  assert.is((JSON.parse(results) as RunResults).suites[0]!.privateText, undefined);
});

test('a GPQA run cut mid-way and resumed ends as the uninterrupted run: journaled text is not hashed twice', async () => {
  const dataDir = gamesDataDir();
  const fixture = await fixtureFile();
  const server = await fixtureServer();
  try {
    const cwd = tempDir();
    // No response cache: the replayed plays ask the server, as the whole run did.
    writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false, providers: { vllm: { baseURL: server.baseURL } } }));
    const whole = await runCli(['run', '--out', 'whole', '--agent', 'vllm:test-model', '--suites', `gpqa-diamond:${fixture}`, '--data-dir', dataDir], { cwd });
    assert.is(whole.code, 0, whole.stderr);
    // The journal as a stop leaves it: the first environment finished, the second one's verdict and a few plays.
    const lines = readFileSync(path.join(cwd, 'whole/journal.jsonl'), 'utf8').split('\n').filter(Boolean);
    const plays = lines.flatMap((line, i) => (JSON.parse(line).type === 'plays' ? [i] : []));
    mkdirSync(path.join(cwd, 'cut'));
    writeFileSync(path.join(cwd, 'cut/journal.jsonl'), `${lines.slice(0, plays[0]! + 5).join('\n')}\n`);
    const resumed = await runCli(['run', '--out', 'cut', '--resume'], { cwd });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.equal(comparable(path.join(cwd, 'cut')), comparable(path.join(cwd, 'whole')));
  } finally {
    await server.close();
  }
});

test('without HF_TOKEN, the gated download is refused naming the variable and the terms page (exit 2)', async () => {
  const cwd = tempDir();
  const r = await runCli(['run', '--out', 'out', '--suites', 'gpqa-diamond', '--data-dir', gamesDataDir(), '--validate-only'], { cwd, env: { HF_TOKEN: '' } });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'HF_TOKEN');
  assert.match(r.stderr, 'https://huggingface.co/datasets/Idavidrein/gpqa');
});

test('the release\'s CSV (quoted fields, commas, line breaks): each question\'s options shuffled in file order', async () => {
  const { createGpqaSuite } = await import('../../../benchmarks/games/gpqa.js');
  const csv = path.join(tempDir(), 'gpqa_diamond.csv');
  const header = 'Pre-Revision Question,Question,Correct Answer,Incorrect Answer 1,Incorrect Answer 2,Incorrect Answer 3';
  writeFileSync(csv, `${header}\r\nx,"Which one, if any?\nThink.",right 0,w1,w2,w3\r\nx,Second?,"right ""1""",v1,v2,v3\r\n`);
  const tasks = await createGpqaSuite(csv, { dataDir: gamesDataDir() }).tasks({});
  assert.equal(tasks.map((t) => t.program.id), ['gpqa-diamond/d0', 'gpqa-diamond/d1']);
  const sources = tasks.map((t) => t.program.source);
  // random.Random(42)'s first two orders are [2, 1, 3, 0] and [3, 2, 0, 1].
  assert.equal(spade.shuffle198.slice(0, 2), [[2, 1, 3, 0], [3, 2, 0, 1]]);
  assert.ok(sources[0]!.includes(JSON.stringify('Which one, if any?\nThink.\n\nA. w2\nB. w1\nC. w3\nD. right 0\n\nPlease reason').slice(1, -1)), sources[0]!.slice(0, 300));
  assert.ok(sources[0]!.includes('const ANSWER = "D";'));
  assert.ok(sources[1]!.includes(JSON.stringify('A. v3\nB. v2\nC. right "1"\nD. v1').slice(1, -1)), sources[1]!.slice(0, 300));
  assert.ok(sources[1]!.includes('const ANSWER = "C";'));
  const bad = path.join(tempDir(), 'bad.csv');
  writeFileSync(bad, `${header}\nx,"open quote,a,b,c,d\n`);
  await createGpqaSuite(bad, { dataDir: gamesDataDir() }).tasks({}).then(() => assert.unreachable('read'), (e: Error) => assert.match(e.message, /bad\.csv:2: a quoted field is not closed/));
});

test.run();
