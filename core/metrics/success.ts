/**
 * Long-horizon success: how often the agent wins, overall and by horizon.
 */
import type { EpisodeResult } from '../types.js';
import type { DifficultyBucket, HorizonBucket, PassAtKPoint, SuccessMetrics } from '../results/results.js';
import { wilsonInterval } from './intervals.js';
import { passAtK, passHatK } from './pass-at-k.js';
import { bootstrapMean } from './bootstrap.js';
import { decided as decidedOf, playsOf, tallyByEnvironment, type PlayTally, type WithPlays } from './plays.js';

/**
 * Success of the agent without privileged help: episodes played with the hint are left out
 * (they measure the environment's regret, not the agent). Errored episodes (sandbox or provider
 * failures) are counted apart and never as failures: successRate = won / (won + lost).
 * byHorizon has one bucket per horizon, ascending; a bucket's `episodes` counts its decided
 * (won or lost) episodes. successAtT and passAtK are described at their helpers below.
 */
export function successMetrics(episodes: readonly EpisodeResult[]): SuccessMetrics {
  return successOfTallies(tallyByEnvironment(episodes));
}

/** successMetrics() from the environments' tallies, in the pool's order. */
export function successOfTallies(tallies: readonly PlayTally[]): SuccessMetrics {
  let won = 0;
  let lost = 0;
  let errored = 0;
  const byHorizon = new Map<number, { won: number; decided: number }>();
  for (const tally of tallies) {
    won += tally.plain.won;
    lost += tally.plain.lost;
    errored += tally.plain.errored;
    for (const [horizon, bucket] of tally.byHorizon) {
      const into = byHorizon.get(horizon) ?? { won: 0, decided: 0 };
      into.won += bucket.won;
      into.decided += bucket.decided;
      byHorizon.set(horizon, into);
    }
  }
  const decided = won + lost;
  return {
    episodes: won + lost + errored,
    won,
    lost,
    errored,
    successRate: decided === 0 ? null : won / decided,
    interval: wilsonInterval(won, decided),
    byHorizon: [...byHorizon]
      .sort(([a], [b]) => a - b)
      .map(([horizon, bucket]): HorizonBucket => ({
        horizon,
        episodes: bucket.decided,
        successRate: bucket.won / bucket.decided,
        interval: wilsonInterval(bucket.won, bucket.decided),
      })),
    successAtT: successAtTOf(tallies),
    passAtK: passAtKOf(tallies),
  };
}

/**
 * success@T: the share of decided episodes won within T turns, at every T where the curve steps
 * (the turn counts of won episodes) and at the longest horizon. Wilson intervals.
 */
export function successAtT(decided: readonly EpisodeResult[]): NonNullable<SuccessMetrics['successAtT']> {
  return successAtTOf(tallyByEnvironment(decided));
}

function successAtTOf(tallies: readonly PlayTally[]): NonNullable<SuccessMetrics['successAtT']> {
  const total = tallies.reduce((sum, t) => sum + decidedOf(t), 0);
  if (total === 0) return [];
  const maxHorizon = tallies.reduce((max, t) => Math.max(max, t.longest), 0);
  const wins = new Map<number, number>();
  for (const t of tallies) for (const [turns, count] of t.wonTurns) wins.set(turns, (wins.get(turns) ?? 0) + count);
  const points = [...new Set([...wins.keys(), maxHorizon])].sort((a, b) => a - b);
  let within = 0;
  return points.map((turns) => {
    within += wins.get(turns) ?? 0;
    return { turns, successRate: within / total, interval: wilsonInterval(within, total) };
  });
}

/** The k at which pass@k and pass^k are reported: 1..8, then powers of two, up to the most attempts. */
function reportedKs(maxAttempts: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k <= maxAttempts; k = k < 8 ? k + 1 : k * 2) ks.push(k);
  return ks;
}

/**
 * pass@k (Chen et al.) and pass^k (tau-bench) averaged over environments: each environment's n
 * decided attempts with c wins gives passAtK(n, c, k); environments with fewer than k attempts
 * are left out of that k. Intervals: 95% percentile bootstrap over environments (seeded).
 */
export function passAtKCurve(decided: readonly EpisodeResult[]): PassAtKPoint[] {
  return passAtKOf(tallyByEnvironment(decided));
}

function passAtKOf(tallies: readonly PlayTally[]): PassAtKPoint[] {
  const environments = tallies.filter((t) => decidedOf(t) > 0).map((t) => ({ n: decidedOf(t), c: t.plain.won }));
  const maxAttempts = environments.reduce((max, { n }) => Math.max(max, n), 0);
  return reportedKs(maxAttempts).map((k) => {
    const eligible = environments.filter(({ n }) => n >= k);
    const at = eligible.map(({ n, c }) => passAtK(n, c, k));
    const hat = eligible.map(({ n, c }) => passHatK(n, c, k));
    const estimate = bootstrapMean(at, { seed: k });
    // pass^k equals pass@k environment by environment at k = 1 (both c/n), and wherever each
    // environment was always won or always lost: the same values and seed, the same bootstrap.
    const same = at.every((value, i) => value === hat[i]);
    return {
      k,
      environments: eligible.length,
      passAtK: estimate,
      passHatK: same ? { mean: estimate.mean, interval: [estimate.interval[0], estimate.interval[1]] } : bootstrapMean(hat, { seed: k }),
    };
  });
}

/**
 * Success by the difficulty of the environment played (the pool's own scale): decided no-hint
 * episodes of the environments at each difficulty, ascending, with Wilson intervals. Empty when
 * no environment has a difficulty.
 */
export function successByDifficulty(environments: readonly ({ difficulty?: number } & WithPlays)[]): DifficultyBucket[] {
  const buckets = new Map<number, { won: number; decided: number }>();
  for (const environment of environments) {
    const { difficulty } = environment;
    if (difficulty === undefined) continue;
    const bucket = buckets.get(difficulty) ?? { won: 0, decided: 0 };
    const tally = playsOf(environment);
    bucket.decided += decidedOf(tally);
    bucket.won += tally.plain.won;
    buckets.set(difficulty, bucket);
  }
  return [...buckets]
    .filter(([, bucket]) => bucket.decided > 0)
    .sort(([a], [b]) => a - b)
    .map(([difficulty, { won, decided }]) => ({ difficulty, episodes: decided, successRate: won / decided, interval: wilsonInterval(won, decided) }));
}
