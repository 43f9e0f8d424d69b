// A resumed run keeps what was in flight at the stop, not what was done before it: an
// environment of a static suite without score() whose evaluation was recorded whole is kept
// folded (verdict, tally, summary figures, errors), its episodes let go as the journal streams
// by, and the run takes it as it is. Episodes stay for environments cut by the stop, for
// environments with failed plays (--retry-errored plays them again) and for suites that read
// episodes. The results equal an uninterrupted run's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PriorWork } from '../../../core/results/resume.js';
import type { JournalRecord } from '../../../core/results/journal.js';
import type { GateVerdict } from '../../../core/results/results.js';
import type { EpisodeResult, UsageMetrics } from '../../../core/types.js';
import { tallyPlays } from '../../../core/metrics/plays.js';
import { playFigures } from '../../../core/metrics/plays.js';
import { priorWork, resumedRun } from '../../../core/setup/api.js';
import { createProceduralSuite } from '../../../benchmarks/procedural.js';
import { runCli, tempDir } from '../../helpers/cli.js';
import { comparable, journaledEpisodes } from '../../helpers/results.js';

const usage = (calls: number): UsageMetrics => ({ calls, inputTokens: 10 * calls, outputTokens: calls, costUsd: calls / 4, cachedCalls: 0 });

const verdict = (suite: string, id: string, valid = true): JournalRecord => ({
  type: 'verdict',
  suite,
  id,
  verdict: { verdict: valid ? 'valid' : 'invalid', checks: [{ name: 'loads', ok: valid }], firstObservation: `task ${id}`, wallMs: 1 } as GateVerdict,
});

const episode = (suite: string, environmentId: string, attempt: number, outcome: EpisodeResult['outcome'], options: { spent?: UsageMetrics; failed?: boolean; sandbox?: boolean } = {}): JournalRecord => {
  const e: EpisodeResult = { suite, environmentId, attempt, withHint: false, seed: 1, horizon: 1, outcome, turns: 1, totalReward: outcome === 'won' ? 1 : 0, rewards: [outcome === 'won' ? 1 : 0], terminated: true, wallMs: 1 };
  if (options.failed) Object.assign(e, { outcome: 'errored', error: 'ProviderError: server error (HTTP 503)', errorKind: 'agent', errorClass: 'provider:server' });
  if (options.sandbox) Object.assign(e, { outcome: 'errored', error: 'sandbox timeout in step(): 1000 ms', errorKind: 'timeout', errorClass: 'sandbox:timeout' });
  if (attempt === 0) e.steps = [{ action: 'a', observation: `task ${environmentId}`, reward: e.totalReward, terminated: true }] as EpisodeResult['steps'];
  if (options.spent) e.spent = options.spent;
  return { type: 'episode', episode: e };
};

const recorded = (suite: string, id: string, episodes: JournalRecord[]): JournalRecord[] => [
  { type: 'environment', suite, environment: { id, language: 'javascript', verdict: 'valid' } as never },
  { type: 'plays', suite, id, plays: { ...tallyPlays(episodes.map((r) => (r as { episode: EpisodeResult }).episode)), byHorizon: [], wonTurns: [] } },
];

/** Three plays an environment of `s`; `t` reads its episodes (a scored suite). */
const foldedPlays = (suite: string): number | undefined => (suite === 's' ? 3 : undefined);

test('an environment evaluated whole is kept folded: no episode kept, its figures and tally as its episodes give them, their spent counted', () => {
  const plays = [episode('s', 'a', 1, 'lost', { spent: usage(2) }), episode('s', 'a', 0, 'won', { spent: usage(1) }), episode('s', 'a', 2, 'errored', { sandbox: true, spent: usage(4) })];
  const prior = new PriorWork([verdict('s', 'a'), ...plays, ...recorded('s', 'a', plays)], { foldedPlays });
  assert.is(prior.keptEpisodes, 0);
  const folded = prior.folded('s', 'a');
  assert.ok(folded, 'kept folded');
  // In play order (attempt 0 first), whatever order the journal has them in.
  const ordered = [plays[1]!, plays[0]!, plays[2]!].map((r) => (r as { episode: EpisodeResult }).episode);
  assert.equal(folded.plays, tallyPlays(ordered));
  assert.equal(folded.figures, playFigures(ordered));
  assert.equal(folded.figures.sample?.steps.length, 1, 'the first attempt\'s trajectory');
  assert.equal([...folded.errors!.values()], [{ errorClass: 'sandbox:timeout', message: 'sandbox timeout in step(): 1000 ms', count: 1 }]);
  assert.is(prior.episode('s', 'a', 0, false), undefined, 'its episodes are let go');
  assert.equal(prior.usage('s'), { calls: 7, inputTokens: 70, outputTokens: 7, costUsd: 1.75, cachedCalls: 0 });
  assert.is(prior.keptFailures, 0);
});

test('episodes stay for an environment cut by the stop, one with a failed play, and a suite that reads them', () => {
  const partial = [episode('s', 'cut', 0, 'won')];
  const failed = [episode('s', 'failed', 0, 'won'), episode('s', 'failed', 1, 'errored', { failed: true }), episode('s', 'failed', 2, 'lost')];
  const scored = [episode('t', 'b', 0, 'won'), episode('t', 'b', 1, 'won'), episode('t', 'b', 2, 'won')];
  const records: JournalRecord[] = [
    verdict('s', 'cut'), ...partial, ...recorded('s', 'cut', partial),
    verdict('s', 'failed'), ...failed, ...recorded('s', 'failed', failed),
    verdict('t', 'b'), ...scored, ...recorded('t', 'b', scored),
    // Played after the stop: none was journaled.
    verdict('s', 'fresh'),
  ];
  const prior = new PriorWork(records, { foldedPlays });
  assert.is(prior.folded('s', 'cut'), undefined);
  assert.is(prior.folded('s', 'failed'), undefined);
  assert.is(prior.folded('t', 'b'), undefined);
  assert.is(prior.keptEpisodes, 7);
  assert.is(prior.keptFailures, 1);
  assert.ok(prior.episode('s', 'cut', 0, false));

  // --retry-errored: the failed play is forgotten (played again), the others kept one by one.
  const retry = new PriorWork(records, { foldedPlays, retryErrored: true });
  assert.is(retry.folded('s', 'failed'), undefined);
  assert.is(retry.episode('s', 'failed', 1, false), undefined);
  assert.ok(retry.episode('s', 'failed', 2, false));
  assert.is(retry.keptFailures, 0);

  // The next invocation played it again and recorded the environment whole: now it is folded.
  const again = [...failed.slice(0, 1), episode('s', 'failed', 1, 'won'), failed[2]!];
  const later = new PriorWork([...records, { type: 'resume', at: 't', journaled: records.length, retryErrored: true }, again[1]!, ...recorded('s', 'failed', again).slice(1)], { foldedPlays });
  assert.equal(later.folded('s', 'failed')?.plays, tallyPlays(again.map((r) => (r as { episode: EpisodeResult }).episode)));
  assert.is(later.keptFailures, 0);
});

test('an invalid program has no plays: folded as soon as it is recorded', () => {
  const prior = new PriorWork([verdict('s', 'bad', false), ...recorded('s', 'bad', [])], { foldedPlays });
  assert.is(prior.folded('s', 'bad')?.plays.episodes, 0);
});

test('a real run cut mid-way: only the cut environment\'s episodes are kept, and the resumed run ends as an uninterrupted one', async () => {
  const args = ['--suites', 'procedural', '--limit', '8', '--attempts', '25', '--environments-in-flight', '2', '--seed', '4'];
  const reference = path.join(tempDir(), 'whole');
  const whole = await runCli(['run', '--out', reference, ...args]);
  assert.is(whole.code, 0, whole.stderr);
  const lines = readFileSync(path.join(reference, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean);
  const records = lines.map((line) => JSON.parse(line) as JournalRecord);
  // Cut (as a kill does) a few episodes past the fourth environment's plays line.
  const playsAt = records.flatMap((r, i) => (r.type === 'plays' ? [i] : []));
  assert.ok(playsAt.length === 8 && playsAt[4]! - playsAt[3]! > 10, 'eight environments of 25 plays');
  const cut = playsAt[3]! + 8;
  const out = path.join(tempDir(), 'cut');
  mkdirSync(out);
  writeFileSync(path.join(out, 'journal.jsonl'), `${lines.slice(0, cut).join('\n')}\n`);
  const journaled = records.slice(0, cut);
  const recordedIds = new Set(journaled.flatMap((r) => (r.type === 'plays' ? [r.id] : [])));
  const before = journaled.filter((r) => r.type === 'episode').length;
  const inFlight = journaled.filter((r) => r.type === 'episode' && !recordedIds.has(r.episode.environmentId)).length;
  assert.ok(inFlight > 0 && before > 4 * 25, `${before} episodes journaled, ${inFlight} of the environment cut`);

  // As the resumed run reads it.
  const { config, resumed } = resumedRun(out, process.cwd());
  const prior = priorWork(resumed, [createProceduralSuite()], config);
  assert.is(prior.keptEpisodes, inFlight, 'the episodes of the environment in flight at the cut, and no other');
  for (const id of recordedIds) assert.ok(prior.folded('procedural', id), `${id} folded`);

  const resume = await runCli(['run', '--out', out, '--resume']);
  assert.is(resume.code, 0, resume.stderr);
  assert.equal(comparable(out), comparable(reference));
  assert.equal(journaledEpisodes(out), journaledEpisodes(reference), 'every episode journaled once');
  // The folded environments were not evaluated again: no second plays line for them.
  const after = readFileSync(path.join(out, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as JournalRecord);
  const ids = (rs: JournalRecord[]): string[] => rs.flatMap((r) => (r.type === 'plays' ? [r.id] : [])).sort();
  assert.equal(ids(after), ids(records), 'each environment recorded once');
});

test.run();
