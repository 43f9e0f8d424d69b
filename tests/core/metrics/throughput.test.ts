import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { throughputMetrics } from '../../../core/metrics/index.js';
import type { EpisodeResult } from '../../../core/types.js';

const episode = (turns: number, outcome: EpisodeResult['outcome'] = 'won'): EpisodeResult => ({
  suite: 's', environmentId: 'e', attempt: 0, withHint: false, seed: 1, horizon: 10, outcome, turns, totalReward: 0, wallMs: 5,
});

test('rates over the wall time of the suite', () => {
  const metrics = throughputMetrics([episode(3), episode(5), episode(2, 'errored')], 2, 8);
  assert.is(metrics.episodes, 3);
  assert.is(metrics.steps, 10);
  assert.is(metrics.episodesPerSec, 1.5);
  assert.is(metrics.stepsPerSec, 5);
  assert.is(metrics.environmentsDesigned, 8);
  assert.is(metrics.environmentsPerSec, 4);
});

test('static suites leave out the designed count; zero wall time gives zero rates', () => {
  const metrics = throughputMetrics([episode(1)], 0);
  assert.is(metrics.environmentsDesigned, undefined);
  assert.is(metrics.episodesPerSec, 0);
  assert.throws(() => throughputMetrics([], -1));
});

test('valid environments, tokens and call latency percentiles', () => {
  const metrics = throughputMetrics([episode(1)], 4, 10, { valid: 6, tokens: 800, sandboxCallMs: [1, 2, 3, 4] });
  assert.is(metrics.validPerSec, 1.5);
  assert.is(metrics.tokensPerSec, 200);
  // p50 of 1,2,3,4 = 2.5; no provider calls -> no provider latency
  assert.is(metrics.latency!.sandboxCall!.p50Ms, 2.5);
  assert.is(metrics.latency!.providerCall, undefined);
});

test.run();
