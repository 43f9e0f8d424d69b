import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { successMetrics, wilsonInterval } from '../../../core/metrics/index.js';
import { bootstrapMean } from '../../../core/metrics/bootstrap.js';
import { passAtK, passHatK } from '../../../core/metrics/pass-at-k.js';
import type { EpisodeOutcome, EpisodeResult } from '../../../core/types.js';

let counter = 0;
const episode = (outcome: EpisodeOutcome, horizon: number, withHint = false): EpisodeResult => ({
  suite: 's', environmentId: `e${counter++}`, attempt: 0, withHint, seed: 1, horizon, outcome,
  turns: horizon, totalReward: outcome === 'won' ? 1 : 0, wallMs: 1,
});

test('errored episodes are counted apart, never as failures', () => {
  const metrics = successMetrics([episode('won', 1), episode('won', 1), episode('lost', 1), episode('errored', 1), episode('errored', 1)]);
  assert.is(metrics.won, 2);
  assert.is(metrics.lost, 1);
  assert.is(metrics.errored, 2);
  assert.is(metrics.episodes, 5);
  // 2 / (2 + 1), not 2 / 5
  assert.is(metrics.successRate, 2 / 3);
  assert.equal(metrics.interval, wilsonInterval(2, 3));
});

test('hinted episodes do not count towards the agent’s success', () => {
  const metrics = successMetrics([episode('lost', 1), episode('won', 1, true), episode('won', 1, true)]);
  assert.is(metrics.won, 0);
  assert.is(metrics.successRate, 0);
});

test('by horizon: one bucket per horizon, ascending', () => {
  const metrics = successMetrics([
    episode('won', 16), episode('lost', 16), episode('lost', 16), episode('lost', 16),
    episode('won', 1), episode('won', 1),
    episode('won', 4), episode('lost', 4), episode('errored', 4),
  ]);
  assert.equal(metrics.byHorizon.map((b) => b.horizon), [1, 4, 16]);
  assert.equal(metrics.byHorizon.map((b) => b.episodes), [2, 2, 4]);
  assert.equal(metrics.byHorizon.map((b) => b.successRate), [1, 0.5, 0.25]);
  assert.equal(metrics.byHorizon[2]!.interval, wilsonInterval(1, 4));
});

test('no decided episodes: rate null (nothing to measure, not 0), interval [0, 1]', () => {
  const metrics = successMetrics([episode('errored', 2)]);
  assert.is(metrics.successRate, null);
  assert.equal(metrics.interval, [0, 1]);
  assert.equal(metrics.byHorizon, []);
});

test('success@T: share won within T turns, worked by hand', () => {
  const played = (outcome: EpisodeOutcome, turns: number): EpisodeResult => ({ ...episode(outcome, 5), turns });
  // 4 decided: won in 1, won in 3, lost, lost -> T=1: 1/4, T=3: 2/4, T=5 (horizon): 2/4
  const metrics = successMetrics([played('won', 1), played('won', 3), played('lost', 5), played('lost', 5), played('errored', 2)]);
  assert.equal(metrics.successAtT!.map((p) => [p.turns, p.successRate]), [[1, 0.25], [3, 0.5], [5, 0.5]]);
});

test('pass@k and pass^k averaged over environments', () => {
  const attempt = (env: string, outcome: EpisodeOutcome): EpisodeResult => ({ ...episode(outcome, 1), environmentId: env });
  // env a: 2 of 3 won, env b: 0 of 3 won
  const metrics = successMetrics([attempt('a', 'won'), attempt('a', 'won'), attempt('a', 'lost'), attempt('b', 'lost'), attempt('b', 'lost'), attempt('b', 'lost')]);
  const k2 = metrics.passAtK!.find((p) => p.k === 2)!;
  // pass@2: a = 1 - C(1,2)/C(3,2) = 1, b = 0 -> 0.5; pass^2: a = C(2,2)/C(3,2) = 1/3, b = 0 -> 1/6
  assert.is(k2.environments, 2);
  assert.is(k2.passAtK.mean, 0.5);
  assert.ok(Math.abs(k2.passHatK.mean - 1 / 6) < 1e-12);
  assert.equal(metrics.passAtK!.map((p) => p.k), [1, 2, 3]);
});

test('each pass@k and pass^k interval is its own values\' seeded bootstrap, also where the two are equal', () => {
  const attempt = (env: string, outcome: EpisodeOutcome): EpisodeResult => ({ ...episode(outcome, 1), environmentId: env });
  // One attempt each: pass@1 and pass^1 are the same values. Three attempts: they differ by an
  // ulp at k = 1 (1 - 2/3 against 1/3) and by more beyond.
  const once = ['won', 'lost', 'won', 'won', 'lost'].map((outcome, i) => attempt(`o${i}`, outcome as EpisodeOutcome));
  const thrice = ['won', 'won', 'lost', 'lost', 'lost', 'won', 'won', 'lost', 'won'].map((outcome, i) => attempt(`t${i % 3}`, outcome as EpisodeOutcome));
  for (const [episodes, n, wins] of [[once, 1, [1, 0, 1, 1, 0]], [thrice, 3, [2, 1, 2]]] as const) {
    for (const point of successMetrics(episodes).passAtK!) {
      assert.equal(point.passAtK, bootstrapMean(wins.map((c) => passAtK(n, c, point.k)), { seed: point.k }));
      assert.equal(point.passHatK, bootstrapMean(wins.map((c) => passHatK(n, c, point.k)), { seed: point.k }));
    }
  }
});

test.run();
