import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { difficultyBands, skillMetrics, type PlayedEnvironment } from '../../../core/metrics/index.js';
import type { EpisodeResult } from '../../../core/types.js';

/** A play: its per-step rewards and whether it terminated (a win is a terminated play with a positive last reward). */
const play = (rewards: number[], terminated: boolean, extra: Partial<EpisodeResult> = {}): EpisodeResult => ({
  suite: 's', environmentId: 'e', attempt: 0, withHint: false, seed: 0, horizon: 5, turns: rewards.length, wallMs: 1,
  totalReward: rewards.reduce((a, b) => a + b, 0), rewards, terminated, truncated: !terminated,
  outcome: terminated && rewards.at(-1)! > 0 ? 'won' : 'lost', ...extra,
});
const env = (skill: string | undefined, verdict: 'valid' | 'invalid', episodes: EpisodeResult[]): PlayedEnvironment => ({ summary: { skill, verdict }, episodes });

const environments = [
  // mean reward (1 + 1 + 1 + 0.5) / 4 = 0.875: easy
  env('Logical Deduction', 'valid', [play([1], true), play([1], true), play([0, 1], true), play([0.5], true)]),
  // (1 + 0 + 0 + 0) / 4 = 0.25: medium; the errored play and the hinted one are left out
  env('Logical Deduction', 'valid', [play([1], true), play([0], true), play([0, 0], false), play([0], true), play([], false, { outcome: 'errored' }), play([1], true, { withHint: true })]),
  // every play -1 (clamped from -5): hard, and all the same reward
  env('Optimization', 'valid', [play([-5], true), play([-1], true)]),
  // invalid: not played
  env('Optimization', 'invalid', []),
  // no skill (a static task): in the bands, not in bySkill; every play 0, the same reward
  env(undefined, 'valid', [play([0, 0], false), play([0], true)]),
];

test('per skill: environments, accepted, and the no-hint success rate over decided plays', () => {
  assert.equal(skillMetrics(environments), [
    // 4 wins of 4, then 1 win of 4 (the errored play and the hinted one left out): 5 of 8
    { skill: 'Logical Deduction', environments: 2, valid: 2, episodes: 8, successRate: 5 / 8 },
    { skill: 'Optimization', environments: 2, valid: 1, episodes: 2, successRate: 0 },
  ]);
  assert.is(skillMetrics([env(undefined, 'valid', [])]), undefined);
});

test("SPADE's bands, hand-worked: easy above 0.8, hard below 0.2, the share whose plays all got the same reward", () => {
  // Means 0.875 (easy), 0.25 (medium), -1 (hard), 0 (hard); the invalid one has no plays.
  const bands = difficultyBands(environments)!;
  assert.is(bands.environments, 4);
  assert.is(bands.easy, 1 / 4);
  assert.is(bands.medium, 1 / 4);
  assert.is(bands.hard, 2 / 4);
  // Same reward: the Optimization one (-1, -1) and the static one (0, 0).
  assert.is(bands.sameReward, 2 / 4);
  assert.is(difficultyBands([env("Optimization", "invalid", [])]), undefined);
});

test.run();
