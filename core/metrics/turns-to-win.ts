/**
 * Turns to win: how many turns the agent takes in the episodes it wins without the hint. Beside
 * the success rate it says how directly the agent gets there: two agents that win as often may
 * differ in how long they wander first.
 */
import type { EpisodeResult } from '../types.js';
import { bootstrapMean } from './bootstrap.js';
import { tallyByEnvironment, type PlayTally } from './plays.js';

export interface TurnsToWin {
  /** Episodes won without the hint. */
  won: number;
  /** Their mean number of turns; null when none was won. */
  mean: number | null;
  /** 95% percentile-bootstrap interval of the mean (seeded); absent when none was won. */
  interval?: [number, number];
}

/** Mean turns of the episodes won without the hint, with its bootstrap 95% interval. */
export function turnsToWin(episodes: readonly EpisodeResult[]): TurnsToWin {
  return turnsToWinOf(tallyByEnvironment(episodes));
}

/**
 * turnsToWin() from the environments' tallies: the resample is drawn from the won plays' turns
 * environment by environment (pool order), each environment's in ascending order of turns (a
 * tally keeps their counts, not their order). The mean is exact; the interval is a bootstrap's.
 */
export function turnsToWinOf(tallies: readonly PlayTally[]): TurnsToWin {
  const turns: number[] = [];
  for (const tally of tallies) {
    for (const [n, count] of [...tally.wonTurns].sort(([a], [b]) => a - b)) for (let i = 0; i < count; i++) turns.push(n);
  }
  if (turns.length === 0) return { won: 0, mean: null };
  const { mean, interval } = bootstrapMean(turns, { seed: 1 });
  return { won: turns.length, mean, interval };
}
