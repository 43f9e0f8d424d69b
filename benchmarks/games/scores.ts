/**
 * The figures SPADE's evaluation reports for its sampled suites, from each task's samples:
 *   pass@1 (avg@n)  the mean over every sample of every task (a sample is right or wrong);
 *   pass@n          the share of tasks with at least one right sample.
 * A sample whose model call or sandbox failed (an errored episode) is counted wrong where SPADE's
 * denominator is every sample (AIME, GPQA, LiveCodeBench), and left out where SPADE leaves it out
 * (GEM's Reasoning-Gym episodes). Intervals are 95%: for a mean of samples, the normal interval
 * of the per-task means (samples of one task are not independent draws); for a share of tasks,
 * Wilson's.
 */
import type { ScoredTask, SuiteSampling, SuiteScore } from '../../core/concepts/suite.js';
import { wilsonInterval, Z_95 } from '../../core/metrics/intervals.js';
import { UsageError } from '../../core/errors.js';

const won = (outcome: string): number => (outcome === 'won' ? 1 : 0);

/**
 * The mean of `values` (each in [0, 1]) with the 95% normal interval of their mean, clamped to
 * [0, 1]. Where that interval says nothing (one value) or too much (values all alike: 3 tasks
 * all wrong would be 0.0 (0.0–0.0)), it is Wilson's over the values, as if each were a share of
 * one draw: a value in [0, 1] with mean p varies at most as a draw does, p (1 - p).
 */
export function meanWithInterval(values: readonly number[], n = values.length): SuiteScore {
  if (values.length === 0) return { value: 0, low: 0, high: 1, n };
  const sum = values.reduce((a, b) => a + b, 0);
  const mean = sum / values.length;
  const variance = values.length < 2 ? 0 : values.reduce((total, v) => total + (v - mean) ** 2, 0) / (values.length - 1);
  if (variance === 0) {
    const [low, high] = wilsonInterval(sum, values.length);
    return { value: mean, low, high, n };
  }
  const half = Z_95 * Math.sqrt(variance / values.length);
  return { value: mean, low: Math.max(0, mean - half), high: Math.min(1, mean + half), n };
}

/** A share of tasks with its Wilson interval. */
export function shareWithInterval(hits: number, tasks: number): SuiteScore {
  const [low, high] = wilsonInterval(hits, tasks);
  return { value: tasks ? hits / tasks : 0, low, high, n: tasks };
}

/**
 * pass@1 over every sample (errored ones wrong) and the share of tasks with any right sample.
 * SPADE divides by the samples it has; a task with fewer (a run stopped early) weighs less.
 */
export function passScores(tasks: readonly ScoredTask[]): { pass1: SuiteScore; passAny: SuiteScore; samples: number } {
  const perTask = tasks.filter((t) => t.episodes.length > 0).map((t) => t.episodes.filter((e) => !e.withHint).map((e) => won(e.outcome)));
  const samples = perTask.reduce((sum, s) => sum + s.length, 0);
  const right = perTask.reduce((sum, s) => sum + s.reduce((a, b) => a + b, 0), 0);
  const interval = meanWithInterval(perTask.map((s) => s.reduce((a, b) => a + b, 0) / s.length), samples);
  const pass1 = { ...interval, value: samples ? right / samples : 0 };
  const passAny = shareWithInterval(perTask.filter((s) => s.some((w) => w === 1)).length, perTask.length);
  return { pass1, passAny, samples };
}

/** A count as a figure (no interval). */
export const count = (n: number): SuiteScore => ({ value: n, n });

/** The suite's sampling with the config's overrides (`suiteOptions[id].sampling`), checked. */
export function withOverrides(defaults: SuiteSampling, overrides: unknown, where: string): SuiteSampling {
  if (overrides === undefined) return { ...defaults };
  if (overrides === null || typeof overrides !== 'object' || Array.isArray(overrides)) throw new UsageError(`${where}: expected an object such as { n: 8, temperature: 0.6 }`);
  const known = ['n', 'temperature', 'topP', 'topK', 'maxTokens', 'chatTemplateKwargs', 'maxTurns'];
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(overrides)) {
    if (!known.includes(key)) throw new UsageError(`${where}.${key}: unknown sampling setting (known: ${known.join(', ')})`);
    if (key === 'chatTemplateKwargs') {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${where}.chatTemplateKwargs: expected an object such as { enable_thinking: false }`);
    } else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (['n', 'topK', 'maxTokens', 'maxTurns'].includes(key) && !Number.isInteger(value)) || (key === 'n' && value < 1)) {
      throw new UsageError(`${where}.${key}: expected a ${['n', 'topK', 'maxTokens', 'maxTurns'].includes(key) ? 'whole number' : 'number'}, got ${JSON.stringify(value)}`);
    }
    merged[key] = value;
  }
  return merged as unknown as SuiteSampling;
}
