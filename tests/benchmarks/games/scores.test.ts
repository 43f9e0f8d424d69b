// The paper suites' figures from their samples: an errored sample is wrong where SPADE divides
// by every sample (AIME, GPQA), left out where SPADE's GEM evaluator leaves it out
// (Reasoning-Gym); sampling overrides are checked, naming the key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ScoredTask } from '../../../core/concepts/suite.js';
import type { EpisodeResult } from '../../../core/concepts/episode.js';
import { aimeScores } from '../../../benchmarks/games/aime.js';
import { reasoningGymScores } from '../../../benchmarks/games/reasoning-gym.js';
import { meanWithInterval, withOverrides } from '../../../benchmarks/games/scores.js';
import { wilsonInterval } from '../../../core/metrics/intervals.js';
import { UsageError } from '../../../core/errors.js';

const episode = (outcome: EpisodeResult['outcome'], attempt: number): EpisodeResult => ({
  suite: 's', environmentId: 'e', attempt, withHint: false, seed: 0, horizon: 1, outcome, turns: 1, totalReward: outcome === 'won' ? 1 : 0, wallMs: 1,
});
const task = (id: string, params: Record<string, unknown>, outcomes: EpisodeResult['outcome'][], verdict: ScoredTask['verdict'] = 'valid'): ScoredTask => ({
  id, meta: { params }, verdict, episodes: outcomes.map((o, i) => episode(o, i)),
});

test('intervals: a mean of alike values, or of one, gets Wilson\'s over the values, never a point or [0, 1]', () => {
  const none = meanWithInterval([0, 0, 0]);
  assert.equal([none.value, none.low], [0, 0]);
  assert.ok(Math.abs(none.high! - wilsonInterval(0, 3)[1]) < 1e-12 && none.high! > 0.5, `${none.high}`);
  const one = meanWithInterval([1]);
  assert.equal([one.low, one.high], wilsonInterval(1, 1));
  // Values that vary: the normal interval of their mean.
  const varied = meanWithInterval([0, 1, 0.5, 0.25]);
  assert.ok(varied.low! < varied.value && varied.value < varied.high!);
  // A Reasoning-Gym task's episodes are fresh instances: Wilson's over them; its category pools them, and stays in its interval.
  const scores = reasoningGymScores([
    task('ab/0', { task: 'ab' }, ['won', 'won', 'lost', 'won', 'won', 'lost', 'won', 'won']),
    task('bf/0', { task: 'bf' }, ['lost', 'lost']),
  ], { ab: 'algorithmic', bf: 'algorithmic' });
  const ab = scores['gem_eval/task_rg_ab_hard/win_rate']!;
  assert.equal([ab.value, ab.low, ab.high], [6 / 8, ...wilsonInterval(6, 8)]);
  const category = scores['gem_eval/category_rg_algorithmic/win_rate']!;
  assert.equal([category.value, category.low, category.high], [6 / 10, ...wilsonInterval(6, 10)]);
});

test('AIME: an errored sample is a wrong one (SPADE divides by every sample)', () => {
  const scores = aimeScores([task('a', { year: 2025 }, ['won', 'errored', 'lost', 'won']), task('b', { year: 2025 }, ['errored', 'errored', 'errored', 'errored'])], 4);
  assert.is(scores.aime2025_pass1!.value, 2 / 8);
  assert.is(scores.aime2025_pass_at_4!.value, 1 / 2);
  assert.is(scores.aime2025_n_samples!.value, 8);
  assert.ok(scores.aime2025_pass1!.low! >= 0 && scores.aime2025_pass1!.high! <= 1);
});

test('Reasoning-Gym: errored episodes and unavailable tasks are left out of the category, and counted', () => {
  const categories = { ab: 'algorithmic', bf: 'algorithmic', dice: 'math' };
  const scores = reasoningGymScores([
    task('ab/0', { task: 'ab' }, ['won']), task('ab/1', { task: 'ab' }, ['errored']), task('ab/2', { task: 'ab' }, ['lost']),
    task('bf/0', { task: 'bf' }, [], 'invalid'),
    task('dice/0', { task: 'dice' }, ['won']),
  ], categories);
  assert.is(scores['gem_eval/category_rg_algorithmic/win_rate']!.value, 1 / 2);
  assert.is(scores['gem_eval/category_rg_algorithmic/num_episodes']!.value, 2);
  assert.is(scores['gem_eval/category_rg_algorithmic/num_tasks']!.value, 1);
  assert.is(scores['gem_eval/category_rg_math/win_rate']!.value, 1);
  assert.is(scores['gem_eval/overall_win_rate']!.value, 2 / 3);
  assert.is(scores.reasoning_gym_unavailable_tasks!.value, 1);
});

test('sampling overrides: known keys replace the suite\'s, anything else is a usage error naming it', () => {
  const base = { n: 64, temperature: 1, topP: 0.95, topK: 20, maxTokens: 32768 };
  assert.equal(withOverrides(base, { n: 8, chatTemplateKwargs: { enable_thinking: false } }, 'x'), { ...base, n: 8, chatTemplateKwargs: { enable_thinking: false } });
  assert.throws(() => withOverrides(base, { temprature: 0.5 }, 'suiteOptions["aime"].sampling'), (e: Error) => e instanceof UsageError && /suiteOptions\["aime"\]\.sampling\.temprature: unknown/.test(e.message));
  assert.throws(() => withOverrides(base, { n: 0 }, 'x'), /x\.n: expected a whole number/);
  assert.throws(() => withOverrides(base, { topK: 2.5 }, 'x'), /x\.topK/);
});

test.run();
