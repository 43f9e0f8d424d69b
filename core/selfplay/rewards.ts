/**
 * Designer rewards: how good a designed environment is as a training goal, from the agent's
 * plays on it. Each is a pure function, exported from the package entry.
 *
 * SPADE's own (spade-rl/spade at 9b2b813, the settings of its runs in cmd/games/*.sh) read each
 * play as its episode reward: the last step's reward clamped to [-1, 1] when the episode
 * terminated, else 0 (`episodeReward`), and average those over the plays of an environment.
 */

const clip = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

export interface PlateauOptions {
  lo?: number;
  hi?: number;
  ramp?: number;
}

/** SPADE's difficulty band: its runs use [0.4, 0.6] with a ramp of 0.25 ([0.2, 0.4], ramp 0.2, in a later phase). */
export const DEFAULT_BAND: readonly [number, number] = [0.4, 0.6];
export const DEFAULT_BAND_RAMP = 0.25;

/** 1 on [lo, hi], falling linearly to 0 at `ramp` beyond either edge. */
export function plateau(winRate: number, { lo = DEFAULT_BAND[0], hi = DEFAULT_BAND[1], ramp = DEFAULT_BAND_RAMP }: PlateauOptions = {}): number {
  if (winRate >= lo && winRate <= hi) return 1;
  const distance = winRate < lo ? lo - winRate : winRate - hi;
  return clip(1 - distance / ramp, 0, 1);
}

/** One play's reward as SPADE's rewards read it: the last reward clamped to [-1, 1] if the episode terminated, else 0. */
export function episodeReward(rewards: readonly number[], terminated: boolean): number {
  if (!terminated || rewards.length === 0) return 0;
  return clip(rewards.at(-1)!, -1, 1);
}

/** SPADE's penalty for a designer whose environment hung a play (its regret reward's). */
export const STEP_TIMEOUT_PENALTY = -0.5;

export interface SpadeRewardInput {
  /** Mean episode reward of the plays with the hint. */
  hintReward: number;
  /** Mean episode reward of the plays without the hint. */
  noHintReward: number;
  /** What is placed in the difficulty band: SPADE uses the plays without the hint (noHintReward). */
  winRate: number;
  /** A sandbox call timed out while the environment was played. */
  timedOut: boolean;
}

/** SPADE's blend weights and regret scale, as its runs set them. */
const REGRET_WEIGHT = 0.4;
const PLATEAU_WEIGHT = 0.6;
const REGRET_SCALE = 0.15;

/**
 * SPADE's designer reward (its `blend` variant as run): 0.4·clip(regret/0.15, 0, 1) +
 * 0.6·plateau(winRate), regret = hintReward − noHintReward. The blend has no timeout penalty
 * (that is the regret reward's).
 */
export function spadeDesignerReward({ hintReward, noHintReward, winRate }: SpadeRewardInput, band: PlateauOptions = {}): number {
  return REGRET_WEIGHT * clip((hintReward - noHintReward) / REGRET_SCALE, 0, 1) + PLATEAU_WEIGHT * plateau(winRate, band);
}

/** SPADE's regret-only reward: max(0, hintReward − noHintReward), or −0.5 when a play timed out. */
export function regretReward({ hintReward, noHintReward, timedOut }: Pick<SpadeRewardInput, 'hintReward' | 'noHintReward' | 'timedOut'>): number {
  if (timedOut) return STEP_TIMEOUT_PENALTY;
  return Math.max(0, hintReward - noHintReward);
}

/** Absolute Zero's learnability: 1 − p when 0 < p < 1, else 0. */
export function learnabilityReward(solveRate: number): number {
  return solveRate > 0 && solveRate < 1 ? 1 - solveRate : 0;
}

/** R-Zero's uncertainty reward: 1 − 2·|p − ½|. */
export function uncertaintyReward(p: number): number {
  return 1 - 2 * Math.abs(p - 0.5);
}

export const DESIGNER_REWARDS = ['spade', 'regret', 'solve-rate', 'learnability', 'uncertainty'] as const;
export type DesignerRewardName = (typeof DESIGNER_REWARDS)[number];

/**
 * The reward named in config, for one environment. `spade` and `regret` read SPADE's inputs
 * (mean episode rewards); the others read `solveRate`, the share of plays won without the hint.
 */
export function designerReward(name: DesignerRewardName, input: SpadeRewardInput & { solveRate: number }, band: PlateauOptions = {}): number {
  switch (name) {
    case 'spade':
      return spadeDesignerReward(input, band);
    case 'regret':
      return regretReward(input);
    case 'solve-rate':
      return plateau(input.solveRate, band);
    case 'learnability':
      return learnabilityReward(input.solveRate);
    case 'uncertainty':
      return uncertaintyReward(input.solveRate);
  }
}
