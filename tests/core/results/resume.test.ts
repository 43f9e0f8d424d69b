// Fault injection: a run killed with SIGKILL at random points, then resumed, ends with the
// same results as a run that was never interrupted, and no episode is played twice.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, startCli, tempDir, type CliResult } from '../../helpers/cli.js';
import { mulberry32 } from '../../../core/run/random.js';
import type { RunResults } from '../../../core/results/results.js';
import { comparable, journaledEpisodes } from '../../helpers/results.js';
import { perSecond } from '../../../reports/format.js';

const args = ['--seed', '5', '--rounds', '3', '--envs-per-round', '5', '--attempts', '2', '--limit', '16', '--environments-in-flight', '2'];

const journalLines = (dir: string): string[] => {
  const file = path.join(dir, 'journal.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
};

/** A run of `runArgs` into `out`, sent `signal` once its journal's lines meet `ready`. */
async function stoppedWhen(out: string, runArgs: string[], signal: NodeJS.Signals, ready: (lines: string[]) => boolean): Promise<{ sent: boolean; result: CliResult }> {
  const { child, done } = startCli(['run', '--out', out, ...runArgs]);
  let sent = false;
  const timer = setInterval(() => {
    if (ready(journalLines(out))) {
      sent = child.kill(signal);
      clearInterval(timer);
    }
  }, 2);
  const result = await done;
  clearInterval(timer);
  return { sent, result };
}

async function killAt(out: string, lines: number): Promise<boolean> {
  const { sent, result } = await stoppedWhen(out, args, 'SIGKILL', (journal) => journal.length >= lines);
  return sent && result.signal === 'SIGKILL';
}

test('killed with SIGKILL at random points and resumed: identical results, nothing done twice', async () => {
  const reference = path.join(tempDir(), 'whole');
  const whole = await runCli(['run', '--out', reference, ...args]);
  assert.is(whole.code, 0, whole.stderr);
  const expected = comparable(reference);
  const total = journalLines(reference).length;
  const expectedEpisodes = journaledEpisodes(reference);
  assert.ok(total > 20, `a journal long enough to cut (${total} lines)`);

  const random = mulberry32(Date.now() >>> 0);
  const points = [2, ...Array.from({ length: 3 }, () => 3 + Math.floor(random() * (total - 6)))];
  let kills = 0;
  for (const point of points) {
    const out = path.join(tempDir(), `killed-at-${point}`);
    const killed = await killAt(out, point);
    if (killed) kills++;
    assert.not.ok(existsSync(path.join(out, 'results.json')) && killed && JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')).run.complete, 'a killed run is not complete');
    const resumed = await runCli(['run', '--out', out, '--resume']);
    assert.is(resumed.code, 0, `resume after a kill at line ${point}: ${resumed.stderr}`);
    assert.equal(comparable(out), expected, `results after a kill at journal line ${point}`);
    const keys = journaledEpisodes(out);
    assert.is(new Set(keys).size, keys.length, `no episode journaled twice (kill at line ${point})`);
    assert.equal(keys, expectedEpisodes, `every episode present once (kill at line ${point})`);
  }
  assert.ok(kills >= 2, `at least two runs were really killed mid-way (${kills} of ${points.length})`);
});

test('a finished run resumed: its rates are over the time both invocations spent, not the resume\'s alone', async () => {
  const out = path.join(tempDir(), 'twice');
  const small = ['--seed', '3', '--rounds', '1', '--envs-per-round', '3', '--attempts', '2', '--limit', '8', '--workers', '1'];
  const first = await runCli(['run', '--out', out, ...small]);
  assert.is(first.code, 0, first.stderr);
  const throughputs = (): { suite: string; t: RunResults['suites'][number]['metrics']['throughput'] }[] =>
    (JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults).suites.map((s) => ({ suite: s.id, t: s.metrics.throughput }));
  const before = throughputs();
  const again = await runCli(['run', '--out', out, '--resume']);
  assert.is(again.code, 0, again.stderr);
  const after = throughputs();
  // The summary line's rate is the run's, as the results give it: every episode over every invocation's time.
  const episodes = after.reduce((n, { t }) => n + t.episodes, 0);
  const wall = after.reduce((sum, { t }) => sum + t.wallSec, 0);
  assert.match(again.stdout, `(resumed: its suites took ${wall.toFixed(1)} s over every invocation): ${episodes} episodes (${perSecond(episodes / wall)}/s)`);
  // Each invocation journals the time it spent on each suite as the suite ends.
  const ends = journalLines(out).map((line) => JSON.parse(line) as { type: string; suite: string; wallSec: number }).filter((r) => r.type === 'suite-end');
  assert.is(ends.length, 2 * before.length, 'one suite-end per suite per invocation');
  after.forEach(({ suite, t }, i) => {
    const first = before[i]!.t;
    const spent = ends.filter((r) => r.suite === suite).reduce((sum, r) => sum + r.wallSec, 0);
    assert.ok(Math.abs(t.wallSec - spent) < 1e-9, `${suite}: ${t.wallSec} s is the sum of both invocations' (${spent} s)`);
    assert.ok(t.wallSec >= first.wallSec - 0.001, `${suite}: not less than the first invocation's ${first.wallSec} s (${t.wallSec} s)`);
    assert.is(t.episodes, first.episodes);
    assert.ok(t.stepsPerSec <= first.stepsPerSec * 1.001, `${suite}: ${t.stepsPerSec} steps/s, not more than the first invocation's ${first.stepsPerSec}`);
  });
});

test('time a stop cut short is not journaled: a resume adds only the time up to the last environment finished', async () => {
  const dir = tempDir();
  // An agent that answers its first two calls at once and then waits for the stop.
  const agent = path.join(dir, 'stalls.mjs');
  writeFileSync(agent, `
import { definePlugin } from 'spade-bench';
let calls = 0;
export default definePlugin({ kind: 'provider', id: 'stalls', description: 'answers twice, then waits', requiredEnv: () => [],
  create: (options) => ({ id: 'stalls:' + options.model, model: options.model, async chat(request, { signal } = {}) {
    if (++calls <= 2) return { text: '\\\\boxed{1}' };
    // A model that takes a minute (the timer keeps the process alive, as a request's socket does).
    await new Promise((_, reject) => {
      const timer = setTimeout(() => reject(new Error('no stop came')), 60000);
      signal?.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
    });
  } }),
});
`);
  const out = path.join(dir, 'run');
  let since: number | undefined;
  const runArgs = ['--suites', 'gsm8k', '--data-dir', path.resolve(repoRoot, '../shared/datasets'), '--limit', '4', '--attempts', '1', '--environments-in-flight', '1', '--agent', agent];
  const { result } = await stoppedWhen(out, runArgs, 'SIGINT', (journal) => {
    if (journal.filter((line) => line.startsWith('{"type":"environment"')).length < 2) return false;
    since ??= Date.now();
    return Date.now() - since > 1500;
  });
  assert.is(result.code, 130, result.stderr);
  const clocks = journalLines(out).map((line) => JSON.parse(line) as { type: string; wallSec?: number }).filter((r) => r.type === 'clock' || r.type === 'suite-end');
  const finished = clocks.filter((r) => r.type === 'clock')[1]!.wallSec!;
  // The third environment, cut by the stop after waiting 1.5 s or more, adds nothing to the time.
  assert.equal(clocks.slice(2).map((r) => r.wallSec), clocks.slice(2).map(() => finished), JSON.stringify(clocks));
  assert.is(clocks.at(-1)!.type, 'suite-end');
});

test('a run journaled by an earlier version resumes: keys added since take their defaults', async () => {
  const out = path.join(tempDir(), 'older');
  mkdirSync(out);
  // The start record as versions before pythonSandbox wrote it (and without it in the config).
  const config = { designer: 'reference', agent: 'reference', sandbox: 'isolated-vm', suites: ['spade', 'procedural'], seed: 2, environmentsInFlight: 2, attempts: 1, out, cache: false, plugins: [], providers: {}, limits: {}, limit: 4, selfplay: { rounds: 1, envsPerRound: 2, reward: 'spade' } };
  writeFileSync(path.join(out, 'journal.jsonl'), `${JSON.stringify({ type: 'start', runId: 'older', startedAt: new Date().toISOString(), config })}\n`);
  const r = await runCli(['run', '--out', out, '--resume', '--workers', '1']);
  assert.is(r.code, 0, r.stderr);
  const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults;
  assert.is(results.run.complete, true);
  assert.is(results.run.id, 'older');
  // Unset in the old journal: the default, as for a new run.
  assert.match(String(results.run.config.cacheDir), /responses$/);
  // Chosen only for a run that may meet Python; this one does not.
  assert.is(results.run.config.pythonSandbox, undefined);
  assert.equal(results.suites.map((s) => [s.id, s.metrics.validity.proposed]), [['spade', 2], ['procedural', 4]]);
});

test('a corrupt journal line stops --resume and export with the file, the line and what to do, exit 2', async () => {
  const out = path.join(tempDir(), 'run');
  const r = await runCli(['run', '--out', out, '--suites', 'procedural', '--limit', '2', '--attempts', '1']);
  assert.is(r.code, 0, r.stderr);
  const file = path.join(out, 'journal.jsonl');
  const lines = readFileSync(file, 'utf8').split('\n');
  lines[2] = `garbage${lines[2]}`;
  writeFileSync(file, lines.join('\n'));
  for (const argv of [['run', '--out', out, '--resume'], ['export', out, '-o', path.join(out, 'episodes.jsonl')]]) {
    const failed = await runCli(argv);
    assert.is(failed.code, 2, failed.stderr);
    assert.match(failed.stderr, `spade-bench: ${file}:3: corrupt journal line (`);
    assert.match(failed.stderr, 'delete this line and those after it');
    assert.not.match(failed.stderr, '    at ');
  }
});

test('--resume needs a journal to continue', async () => {
  const out = tempDir();
  const r = await runCli(['run', '--out', out, '--resume']);
  assert.is(r.code, 2);
  assert.match(r.stderr, 'holds no journal');
});

test('SIGINT stops the run with partial results marked incomplete, exit 130', async () => {
  const out = path.join(tempDir(), 'interrupted');
  const { result: r } = await stoppedWhen(out, args.map((a) => (a === '16' ? '200' : a)), 'SIGINT', (journal) => journal.length >= 5);
  assert.is(r.code, 130, r.stderr);
  const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults;
  assert.is(results.run.complete, false);
  const resumed = await runCli(['run', '--out', out, '--resume']);
  assert.is(resumed.code, 0, resumed.stderr);
  assert.is((JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults).run.complete, true);
});

/** The environment lines of a run's journal, by id: the last of each. */
const environmentLines = (dir: string): Map<string, string> =>
  new Map(journalLines(dir).flatMap((line) => {
    const r = JSON.parse(line) as { type: string; environment?: { id: string } };
    return r.type === 'environment' ? [[r.environment!.id, JSON.stringify(r.environment)] as [string, string]] : [];
  }));

/** The exported episode lines of a run, by environment and play, without the run's id. */
async function exported(dir: string): Promise<Map<string, unknown>> {
  const file = path.join(tempDir(), 'episodes.jsonl');
  const r = await runCli(['export', dir, '-o', file]);
  assert.is(r.code, 0, r.stderr);
  return new Map(readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => {
    const { run_id: _, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return [`${rest.environment_id} ${rest.attempt} ${rest.with_hint}`, rest];
  }));
}

test('SIGINT mid-play, then --resume: the environments the stop cut are journaled again, and the export equals an uninterrupted run\'s', async () => {
  const selfplay = ['--suites', 'spade', '--seed', '4', '--attempts', '40'];
  const whole = path.join(tempDir(), 'whole');
  const r = await runCli(['run', '--out', whole, ...selfplay]);
  assert.is(r.code, 0, r.stderr);
  const final = environmentLines(whole);
  // Stopped once a third of the episodes are journaled: environments are in the middle of their plays then.
  let out = '';
  let cut: string[] = [];
  for (let tries = 0; tries < 3 && cut.length === 0; tries++) {
    out = path.join(tempDir(), 'cut');
    const { result: stopped } = await stoppedWhen(out, selfplay, 'SIGINT', (journal) => journal.filter((line) => line.startsWith('{"type":"episode"')).length >= 1200);
    assert.is(stopped.code, 130, stopped.stderr);
    // Environments journaled with fewer plays than they end with.
    cut = [...environmentLines(out)].flatMap(([id, line]) => (final.get(id) !== line ? [id] : []));
  }
  assert.ok(cut.length > 0, 'the stop cut an environment mid-play');
  const resumed = await runCli(['run', '--out', out, '--resume']);
  assert.is(resumed.code, 0, resumed.stderr);
  assert.equal(environmentLines(out), final, `the last line of each environment, ${cut.length} of them cut by the stop`);
  assert.equal(await exported(out), await exported(whole));
  assert.equal(comparable(out), comparable(whole));
});

test.run();
