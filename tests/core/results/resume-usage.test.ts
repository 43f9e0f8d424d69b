// What a resumed run counts of the invocations before it: each invocation's last line of calls
// outside episodes, and the `spent` of every episode it keeps (PriorWork.usage); not the spent
// of an errored episode that --retry-errored plays again, nor of another suite's. And the wall
// time each invocation spent on each suite (PriorWork.wallSec).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PriorWork } from '../../../core/results/resume.js';
import type { JournalRecord } from '../../../core/results/journal.js';
import type { EpisodeResult, UsageMetrics } from '../../../core/types.js';

const usage = (calls: number, inputTokens = 10 * calls, outputTokens = calls, costUsd = calls / 4, cachedCalls = 0): UsageMetrics => ({ calls, inputTokens, outputTokens, costUsd, cachedCalls });

const episode = (suite: string, environmentId: string, attempt: number, spent?: UsageMetrics, failed = false): JournalRecord => {
  const e: EpisodeResult = { suite, environmentId, attempt, withHint: false, seed: 1, horizon: 1, outcome: failed ? 'errored' : 'won', turns: 1, totalReward: failed ? 0 : 1, wallMs: 1 };
  if (failed) Object.assign(e, { error: 'ProviderError: server error (HTTP 503)', errorKind: 'agent', errorClass: 'provider:server' });
  if (spent) e.spent = spent;
  return { type: 'episode', episode: e };
};

const journal: JournalRecord[] = [
  { type: 'start', runId: 'r', startedAt: 't', config: {} },
  // First invocation: outside calls journaled twice (cumulative: the last counts), three episodes of s, one of t.
  { type: 'usage', suite: 's', usage: usage(1) },
  episode('s', 'e1', 0, usage(2)),
  episode('s', 'e1', 1, usage(3, 30, 3, 0.75, 1)),
  episode('s', 'e2', 0, usage(1), true),
  { type: 'usage', suite: 's', usage: usage(2) },
  episode('t', 'e1', 0, usage(5)),
  // Second invocation: its own outside line, and an episode journaled without spent (an agent that declares no capacity).
  { type: 'resume', at: 't2', journaled: 7 },
  { type: 'usage', suite: 's', usage: usage(4) },
  episode('s', 'e3', 0),
  episode('s', 'e3', 1, usage(1, 7, 0, 0.5)),
];

const sum = (...usages: UsageMetrics[]): UsageMetrics =>
  usages.reduce((a, b) => ({ calls: a.calls + b.calls, inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd, cachedCalls: a.cachedCalls + b.cachedCalls }));

test('each invocation\'s last outside line, plus the spent of every episode kept, by suite', () => {
  const prior = new PriorWork(journal);
  assert.equal(prior.usage('s'), sum(usage(2), usage(4), usage(2), usage(3, 30, 3, 0.75, 1), usage(1), usage(1, 7, 0, 0.5)));
  assert.equal(prior.usage('t'), usage(5));
  assert.is(prior.usage('u'), undefined, 'a suite with nothing journaled');
});

test('--retry-errored: the errored episode is played again, and its spent is not counted here', () => {
  const prior = new PriorWork(journal, { retryErrored: true });
  assert.equal(prior.usage('s'), sum(usage(2), usage(4), usage(2), usage(3, 30, 3, 0.75, 1), usage(1, 7, 0, 0.5)));
  // Played again and journaled by the next invocation: its new record counts, once.
  const again = new PriorWork([...journal, { type: 'resume', at: 't3', journaled: 11, retryErrored: true }, episode('s', 'e2', 0, usage(6))]);
  assert.equal(again.usage('s'), sum(usage(2), usage(4), usage(2), usage(3, 30, 3, 0.75, 1), usage(6), usage(1, 7, 0, 0.5)));
});

test('wall time: each invocation\'s last clock or suite-end line, by suite, added up', () => {
  const prior = new PriorWork([
    { type: 'start', runId: 'r', startedAt: 't', config: {} },
    // Killed during s: the time up to its last journaled environment counts.
    { type: 'clock', suite: 't', wallSec: 1 },
    { type: 'suite-end', suite: 't', wallSec: 2 },
    { type: 'clock', suite: 's', wallSec: 0.5 },
    { type: 'clock', suite: 's', wallSec: 1.25 },
    // Resumed: s finished; killed again before anything of u was journaled.
    { type: 'resume', at: 't2', journaled: 5 },
    { type: 'clock', suite: 's', wallSec: 3 },
    { type: 'suite-end', suite: 's', wallSec: 3.5 },
    // Resumed again: t was found done, in no time.
    { type: 'resume', at: 't3', journaled: 8 },
    { type: 'suite-end', suite: 't', wallSec: 0.01 },
  ]);
  assert.is(prior.wallSec('s'), 1.25 + 3.5);
  assert.is(prior.wallSec('t'), 2 + 0.01);
  assert.is(prior.wallSec('u'), 0, 'a suite with nothing journaled');
});

test('a suite whose name begins another\'s counts only its own episodes', () => {
  const prior = new PriorWork([episode('gsm8k', 'a', 0, usage(1)), episode('gsm8k-hard', 'a', 0, usage(2))]);
  assert.equal(prior.usage('gsm8k'), usage(1));
  assert.equal(prior.usage('gsm8k-hard'), usage(2));
});

test.run();
