/**
 * Bootstrap resampling with a seeded generator: percentile intervals for a mean, and the
 * subsampling helper the equal-size diversity comparison uses.
 */
import type { Estimate } from '../results/results.js';
import { mulberry32 } from '../run/random.js';
import { percentiles } from './percentiles.js';

export const DEFAULT_REPLICATES = 1000;

/**
 * `size` distinct positions of `items` (at most all of them), drawn without replacement: the
 * first `size` steps of a seeded Fisher-Yates shuffle.
 */
export function subsample<T>(items: readonly T[], size: number, random: () => number): T[] {
  const pool = [...items];
  const take = Math.min(size, pool.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, take);
}

/** `size` items drawn with replacement from `items`. */
export function resample<T>(items: readonly T[], size: number, random: () => number): T[] {
  const drawn: T[] = [];
  for (let i = 0; i < size; i++) drawn.push(items[Math.floor(random() * items.length)]!);
  return drawn;
}

/** The 2.5th and 97.5th percentiles of bootstrap replicates (the percentile interval). */
export function percentileInterval(replicates: readonly number[]): [number, number] {
  const [lo, hi] = percentiles(replicates, [2.5, 97.5]);
  return [lo!, hi!];
}

/**
 * The mean of `values` with a 95% percentile-bootstrap interval (`replicates` resamples of the
 * same size, seeded). No values: mean NaN, interval [NaN, NaN].
 */
export function bootstrapMean(values: readonly number[], options: { replicates?: number; seed?: number } = {}): Estimate {
  const mean = (xs: readonly number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length;
  if (values.length === 0) return { mean: Number.NaN, interval: [Number.NaN, Number.NaN] };
  return { mean: mean(values), interval: percentileInterval(replicateMeans(values, options)) };
}

/**
 * The means of `replicates` resamples of `values` (each as many draws as there are values), in
 * order, from mulberry32(seed).
 */
export function replicateMeans(values: readonly number[], options: { replicates?: number; seed?: number } = {}): number[] {
  const count = options.replicates ?? DEFAULT_REPLICATES;
  const n = values.length;
  const random = mulberry32(options.seed ?? 1);
  // Each replicate's mean summed as it is drawn (the same draws and sums as mean(resample(...)), without the array).
  return Array.from({ length: count }, () => {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)]!;
    return sum / n;
  });
}
