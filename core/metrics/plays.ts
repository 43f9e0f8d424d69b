/**
 * One environment's plays as the metrics read them, folded as each evaluation ends: counts,
 * sums and small histograms, never the episodes. A pool of any number of episodes is then held
 * in memory as one tally per environment, and every figure the metrics table computes from
 * episodes comes out the same from the tallies (core/metrics/table.ts; the one resampled figure
 * whose input order changes is turns to win's interval: see docs/metrics.md). Also the figures
 * an environment's summary gives of its plays (playFigures), which a resumed run keeps for an
 * environment it folded instead of its episodes.
 */
import type { EpisodeResult } from '../types.js';
import type { EnvironmentSummary } from '../results/results.js';
import { playReward } from '../selfplay/rewards.js';

/** Won, lost and errored plays. */
export interface OutcomeCounts {
  won: number;
  lost: number;
  errored: number;
}

export interface PlayTally {
  /** Every play, hinted and errored too (throughput). */
  episodes: number;
  /** Their turns. */
  steps: number;
  /** Plays without the hint, and with it. */
  plain: OutcomeCounts;
  hinted: OutcomeCounts;
  /** Decided plays without the hint, by the horizon they were played at. */
  byHorizon: Map<number, { won: number; decided: number }>;
  /** Won plays without the hint, by the turns they took. */
  wonTurns: Map<number, number>;
  /** The longest horizon or turn count among the decided plays without the hint (0 when none). */
  longest: number;
  /** Turns of the decided plays without the hint; the tool calls of those that count them, and how many do. */
  decidedTurns: number;
  toolCalls: number;
  toolCounted: number;
  /** SPADE's reward of the decided plays without the hint: their sum (in play order), the first, and whether all were equal. */
  rewardSum: number;
  firstReward?: number;
  sameReward: boolean;
}

export function emptyTally(): PlayTally {
  return {
    episodes: 0,
    steps: 0,
    plain: { won: 0, lost: 0, errored: 0 },
    hinted: { won: 0, lost: 0, errored: 0 },
    byHorizon: new Map(),
    wonTurns: new Map(),
    longest: 0,
    decidedTurns: 0,
    toolCalls: 0,
    toolCounted: 0,
    rewardSum: 0,
    sameReward: true,
  };
}

/** Fold one play into `tally`. */
export function addPlay(tally: PlayTally, episode: EpisodeResult): PlayTally {
  tally.episodes++;
  tally.steps += episode.turns;
  const counts = episode.withHint ? tally.hinted : tally.plain;
  counts[episode.outcome]++;
  if (episode.withHint || episode.outcome === 'errored') return tally;
  const won = episode.outcome === 'won';
  const bucket = tally.byHorizon.get(episode.horizon) ?? { won: 0, decided: 0 };
  bucket.decided++;
  if (won) bucket.won++;
  tally.byHorizon.set(episode.horizon, bucket);
  if (won) tally.wonTurns.set(episode.turns, (tally.wonTurns.get(episode.turns) ?? 0) + 1);
  tally.longest = Math.max(tally.longest, episode.horizon, episode.turns);
  tally.decidedTurns += episode.turns;
  if (episode.toolCalls !== undefined) {
    tally.toolCalls += episode.toolCalls;
    tally.toolCounted++;
  }
  const reward = playReward(episode);
  tally.rewardSum += reward;
  if (tally.firstReward === undefined) tally.firstReward = reward;
  else if (reward !== tally.firstReward) tally.sameReward = false;
  return tally;
}

/** The tally of some plays (of one environment). */
export function tallyPlays(episodes: readonly EpisodeResult[]): PlayTally {
  const tally = emptyTally();
  for (const episode of episodes) addPlay(tally, episode);
  return tally;
}

/**
 * Plays grouped by environment (suite, round and id), in the order each environment first
 * appears: the tallies a list of episodes stands for.
 */
export function tallyByEnvironment(episodes: readonly EpisodeResult[]): PlayTally[] {
  const tallies = new Map<string, PlayTally>();
  for (const episode of episodes) {
    const key = `${episode.suite}\u0000${episode.round ?? ''}\u0000${episode.environmentId}`;
    let tally = tallies.get(key);
    if (!tally) tallies.set(key, (tally = emptyTally()));
    addPlay(tally, episode);
  }
  return [...tallies.values()];
}

/** Decided plays without the hint. */
export const decided = (tally: PlayTally): number => tally.plain.won + tally.plain.lost;

/** An environment's plays, as a tally or as its episodes. */
export interface WithPlays {
  plays?: PlayTally;
  episodes?: readonly EpisodeResult[];
}

/** The tally of an environment given either way. */
export const playsOf = (environment: WithPlays): PlayTally => environment.plays ?? tallyPlays(environment.episodes ?? []);

/** A tally as JSON (the journal keeps one per environment, so that merging shards folds tallies, not episodes). */
export interface PlayTallyJson extends Omit<PlayTally, 'byHorizon' | 'wonTurns'> {
  /** [horizon, won, decided] */
  byHorizon: [number, number, number][];
  /** [turns, won plays] */
  wonTurns: [number, number][];
}

export function tallyToJson(tally: PlayTally): PlayTallyJson {
  return {
    ...tally,
    byHorizon: [...tally.byHorizon].map(([horizon, { won, decided }]) => [horizon, won, decided]),
    wonTurns: [...tally.wonTurns],
  };
}

export function tallyFromJson(json: PlayTallyJson): PlayTally {
  return {
    ...json,
    plain: { ...json.plain },
    hinted: { ...json.hinted },
    byHorizon: new Map(json.byHorizon.map(([horizon, won, decided]) => [horizon, { won, decided }])),
    wonTurns: new Map(json.wonTurns),
  };
}

const winRate = (episodes: readonly EpisodeResult[]): number | undefined => {
  const decided = episodes.filter((e) => e.outcome !== 'errored');
  return decided.length ? decided.filter((e) => e.outcome === 'won').length / decided.length : undefined;
};

/** The mean episode reward of the decided plays (errored ones are counted apart, as everywhere). */
const meanReward = (episodes: readonly EpisodeResult[]): number | undefined => {
  const decided = episodes.filter((e) => e.outcome !== 'errored');
  return decided.length ? decided.reduce((sum, e) => sum + playReward(e), 0) / decided.length : undefined;
};

/** What an environment's summary says of its plays: solve rates and mean rewards without the hint and with it, a sample trajectory. */
export interface PlayFigures {
  solveRate?: number;
  hintSolveRate?: number;
  meanReward?: number;
  hintMeanReward?: number;
  sample?: NonNullable<EnvironmentSummary['sample']>;
}

/** The figures of an environment's plays, `episodes` in play order (plain attempts, then hinted ones). */
export function playFigures(episodes: readonly EpisodeResult[]): PlayFigures {
  const plain = episodes.filter((e) => !e.withHint);
  const hinted = episodes.filter((e) => e.withHint);
  const figures: PlayFigures = {};
  const solveRate = winRate(plain);
  if (solveRate !== undefined) figures.solveRate = solveRate;
  const hintSolveRate = winRate(hinted);
  if (hintSolveRate !== undefined) figures.hintSolveRate = hintSolveRate;
  const plainReward = meanReward(plain);
  if (plainReward !== undefined) figures.meanReward = plainReward;
  const hintReward = meanReward(hinted);
  if (hintReward !== undefined) figures.hintMeanReward = hintReward;
  // The first attempt without the hint keeps its steps (playEpisode's keepSteps).
  const sample = episodes.find((e) => e.steps);
  if (sample?.steps) figures.sample = { outcome: sample.outcome, steps: sample.steps };
  return figures;
}
