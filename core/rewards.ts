/**
 * Designer rewards: how good a designed environment is as a training goal, from the agent's
 * win rates on it. Each is a pure function, exported from the package entry.
 */

const clip = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

export interface PlateauOptions {
  lo?: number;
  hi?: number;
  ramp?: number;
}

/** 1 on [lo, hi], falling linearly to 0 at `ramp` beyond either edge. */
export function plateau(winRate: number, { lo = 0.4, hi = 0.6, ramp = 0.25 }: PlateauOptions = {}): number {
  if (winRate >= lo && winRate <= hi) return 1;
  const distance = winRate < lo ? lo - winRate : winRate - hi;
  return clip(1 - distance / ramp, 0, 1);
}

export interface SpadeRewardInput {
  /** Win rate with the hint. */
  hintReward: number;
  /** Win rate without the hint. */
  noHintReward: number;
  /** The win rate placed in the difficulty band (SPADE uses the no-hint win rate). */
  winRate: number;
  /** A sandbox call timed out while the environment was played. */
  timedOut: boolean;
}

/** SPADE's designer reward: −0.5 on a timeout, else 0.4·clip(regret/0.15, 0, 1) + 0.6·plateau(winRate). */
export function spadeDesignerReward({ hintReward, noHintReward, winRate, timedOut }: SpadeRewardInput): number {
  if (timedOut) return -0.5;
  return 0.4 * clip((hintReward - noHintReward) / 0.15, 0, 1) + 0.6 * plateau(winRate);
}

/** Absolute Zero's learnability: 1 − p when 0 < p < 1, else 0. */
export function learnabilityReward(solveRate: number): number {
  return solveRate > 0 && solveRate < 1 ? 1 - solveRate : 0;
}

/** R-Zero's uncertainty reward: 1 − 2·|p − ½|. */
export function uncertaintyReward(p: number): number {
  return 1 - 2 * Math.abs(p - 0.5);
}

export const DESIGNER_REWARDS = ['spade', 'solve-rate', 'learnability', 'uncertainty'] as const;
export type DesignerRewardName = (typeof DESIGNER_REWARDS)[number];

/** The reward named in config, for one environment's win rates. */
export function designerReward(name: DesignerRewardName, input: SpadeRewardInput): number {
  switch (name) {
    case 'spade':
      return spadeDesignerReward(input);
    case 'solve-rate':
      return plateau(input.winRate);
    case 'learnability':
      return learnabilityReward(input.winRate);
    case 'uncertainty':
      return uncertaintyReward(input.winRate);
  }
}
