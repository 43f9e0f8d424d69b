/**
 * Metrics by SPADE's cognitive skill, and SPADE's difficulty bands (spade/core/utils/env_rewards.py
 * and the orchestrator's `all_zero_std`, at 9b2b813): over the played environments, the share
 * whose mean episode reward without the hint is above 0.8 (easy), below 0.2 (hard) or between,
 * and the share whose plays all got the same reward.
 */
import type { DifficultyBands, EnvironmentSummary, SkillMetrics } from '../results/results.js';
import { decided, playsOf, type WithPlays } from './plays.js';

/** One environment as these metrics read it: its summary and its plays. */
export interface PlayedEnvironment extends WithPlays {
  summary: Pick<EnvironmentSummary, 'skill' | 'verdict'>;
}

const EASY_ABOVE = 0.8;
const HARD_BELOW = 0.2;


/** Per skill, in order of first appearance; undefined when no environment has a skill. */
export function skillMetrics(environments: readonly PlayedEnvironment[]): SkillMetrics[] | undefined {
  const bySkill = new Map<string, { environments: number; valid: number; won: number; decided: number }>();
  for (const environment of environments) {
    const { summary } = environment;
    if (!summary.skill) continue;
    const row = bySkill.get(summary.skill) ?? { environments: 0, valid: 0, won: 0, decided: 0 };
    row.environments++;
    if (summary.verdict !== 'invalid') row.valid++;
    const tally = playsOf(environment);
    row.decided += decided(tally);
    row.won += tally.plain.won;
    bySkill.set(summary.skill, row);
  }
  if (bySkill.size === 0) return undefined;
  return [...bySkill].map(([skill, r]) => ({ skill, environments: r.environments, valid: r.valid, episodes: r.decided, successRate: r.decided ? r.won / r.decided : null }));
}

/**
 * SPADE's bands over the environments with decided plays, each play's reward read as SPADE does
 * (playReward: the tallies fold it as the plays end).
 */
export function difficultyBands(environments: readonly PlayedEnvironment[]): DifficultyBands | undefined {
  const means: number[] = [];
  let sameReward = 0;
  for (const environment of environments) {
    const tally = playsOf(environment);
    const n = decided(tally);
    if (n === 0) continue;
    means.push(tally.rewardSum / n);
    if (tally.sameReward) sameReward++;
  }
  const n = means.length;
  if (n === 0) return undefined;
  const easy = means.filter((m) => m > EASY_ABOVE).length;
  const hard = means.filter((m) => m < HARD_BELOW).length;
  return { environments: n, easy: easy / n, medium: (n - easy - hard) / n, hard: hard / n, sameReward: sameReward / n };
}
