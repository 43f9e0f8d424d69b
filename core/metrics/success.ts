/**
 * Long-horizon success: how often the agent wins, overall and by horizon.
 */
import type { EpisodeResult } from '../types.js';
import type { DifficultyBucket, HorizonBucket, PassAtKPoint, SuccessMetrics } from '../results/results.js';
import { wilsonInterval } from './intervals.js';
import { passAtK, passHatK } from './pass-at-k.js';
import { bootstrapMean } from './bootstrap.js';

/**
 * Success of the agent without privileged help: episodes played with the hint are left out
 * (they measure the environment's regret, not the agent). Errored episodes (sandbox or provider
 * failures) are counted apart and never as failures: successRate = won / (won + lost).
 * byHorizon has one bucket per horizon, ascending; a bucket's `episodes` counts its decided
 * (won or lost) episodes. successAtT and passAtK are described at their helpers below.
 */
export function successMetrics(episodes: readonly EpisodeResult[]): SuccessMetrics {
  let won = 0;
  let lost = 0;
  let errored = 0;
  const byHorizon = new Map<number, { won: number; decided: number }>();
  for (const episode of episodes) {
    if (episode.withHint) continue;
    if (episode.outcome === 'errored') {
      errored++;
      continue;
    }
    const bucket = byHorizon.get(episode.horizon) ?? { won: 0, decided: 0 };
    bucket.decided++;
    if (episode.outcome === 'won') {
      won++;
      bucket.won++;
    } else {
      lost++;
    }
    byHorizon.set(episode.horizon, bucket);
  }
  const decided = won + lost;
  const counted = episodes.filter((episode) => !episode.withHint && episode.outcome !== 'errored');
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
    successAtT: successAtT(counted),
    passAtK: passAtKCurve(counted),
  };
}

/**
 * success@T: the share of decided episodes won within T turns, at every T where the curve steps
 * (the turn counts of won episodes) and at the longest horizon. Wilson intervals.
 */
export function successAtT(decided: readonly EpisodeResult[]): NonNullable<SuccessMetrics['successAtT']> {
  if (decided.length === 0) return [];
  const maxHorizon = decided.reduce((max, episode) => Math.max(max, episode.horizon, episode.turns), 0);
  const winTurns = decided.filter((episode) => episode.outcome === 'won').map((episode) => episode.turns).sort((a, b) => a - b);
  const points = [...new Set([...winTurns, maxHorizon])].sort((a, b) => a - b);
  let index = 0;
  return points.map((turns) => {
    while (index < winTurns.length && winTurns[index]! <= turns) index++;
    return { turns, successRate: index / decided.length, interval: wilsonInterval(index, decided.length) };
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
  const perEnvironment = new Map<string, { n: number; c: number }>();
  for (const episode of decided) {
    const key = `${episode.suite}\u0000${episode.round ?? ''}\u0000${episode.environmentId}`;
    const counts = perEnvironment.get(key) ?? { n: 0, c: 0 };
    counts.n++;
    if (episode.outcome === 'won') counts.c++;
    perEnvironment.set(key, counts);
  }
  const environments = [...perEnvironment.values()];
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
export function successByDifficulty(environments: readonly { difficulty?: number; episodes: readonly EpisodeResult[] }[]): DifficultyBucket[] {
  const buckets = new Map<number, { won: number; decided: number }>();
  for (const { difficulty, episodes } of environments) {
    if (difficulty === undefined) continue;
    const bucket = buckets.get(difficulty) ?? { won: 0, decided: 0 };
    for (const episode of episodes) {
      if (episode.withHint || episode.outcome === 'errored') continue;
      bucket.decided++;
      if (episode.outcome === 'won') bucket.won++;
    }
    buckets.set(difficulty, bucket);
  }
  return [...buckets]
    .filter(([, bucket]) => bucket.decided > 0)
    .sort(([a], [b]) => a - b)
    .map(([difficulty, { won, decided }]) => ({ difficulty, episodes: decided, successRate: won / decided, interval: wilsonInterval(won, decided) }));
}
