/**
 * Designer rewards: how good a designed environment is as a training goal, from the agent's
 * plays on it. Each is a pure function, exported from the package entry.
 *
 * SPADE's own (spade-rl/spade at 9b2b813, the settings of its runs in cmd/games/*.sh) read each
 * play as its episode reward: the last step's reward clamped to [-1, 1] when the episode
 * terminated, else 0 (`episodeReward`), and average those over the plays of an environment.
 */

const clip = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
/** The mean, 0 of nothing (SPADE's `_mean_or_zero`). */
const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

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

/** SPADE's reading of a play: its episode reward (journals without per-step rewards: 1 for a win). */
export const playReward = (e: { rewards?: readonly number[]; terminated?: boolean; outcome: string }): number =>
  e.rewards ? episodeReward(e.rewards, e.terminated ?? false) : e.outcome === 'won' ? 1 : 0;

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

/** SPADE's variance term: exp(−(var − 0.25)² / 0.02) of the plays' (population) variance, 1 at a coin flip's 0.25. */
export function varianceReward(rewards: readonly number[]): number {
  const m = mean(rewards);
  const variance = rewards.length ? mean(rewards.map((r) => (r - m) ** 2)) : NaN;
  return Math.exp(-((variance - 0.25) ** 2) / (2 * 0.01));
}

/** The gammas of SPADE's runs (`--spade-gamma1 0.98 --spade-gamma2 0.85`: fast, slow). */
export const SPADE_LP_GAMMAS = { fast: 0.98, slow: 0.85 } as const;

/**
 * SPADE's learning-potential tracker of one skill: two moving means of the skill's mean play
 * reward, μ ← (1 − γ)·μ + γ·r, the fast one with the larger γ (it follows the last reward
 * more). Its potential is |μ_fast − μ_slow| / (2(γ_fast − γ_slow)); its baseline is μ_slow.
 */
export class LearningPotential {
  muFast: number | null = null;
  muSlow: number | null = null;
  constructor(
    readonly gammaFast: number = SPADE_LP_GAMMAS.fast,
    readonly gammaSlow: number = SPADE_LP_GAMMAS.slow,
  ) {
    if (!(gammaFast > gammaSlow)) throw new Error(`learning potential: the fast gamma (${gammaFast}) must be above the slow one (${gammaSlow})`);
  }
  private get scale(): number {
    return 1 / ((this.gammaFast - this.gammaSlow) * 2);
  }
  /** Take one mean reward; the potential after it (0 on the first). */
  update(r: number): number {
    if (this.muFast === null || this.muSlow === null) {
      this.muFast = this.muSlow = r;
      return 0;
    }
    this.muFast = (1 - this.gammaFast) * this.muFast + this.gammaFast * r;
    this.muSlow = (1 - this.gammaSlow) * this.muSlow + this.gammaSlow * r;
    return this.potential();
  }
  potential(): number {
    return Math.abs(this.signedPotential());
  }
  signedPotential(): number {
    return this.muFast === null || this.muSlow === null ? 0 : (this.muFast - this.muSlow) * this.scale;
  }
  baseline(): number {
    return this.muSlow ?? 0;
  }
}

/** One designed environment as a round-level reward reads it. */
export interface RoundGame {
  id: string;
  /** Its skill (environments without one share the skill `unknown`, as in SPADE). */
  skill?: string;
  /** The episode rewards of its plays without the hint. */
  rewards: readonly number[];
  /** The mean episode reward of its hinted plays (regret rewards), absent when it had none. */
  hintReward?: number;
  /** A step of one of its plays timed out. */
  timedOut?: boolean;
  /** False when its design's first turn was not valid (SPADE's repair mode: the designer earns 0). */
  firstTurnValid?: boolean;
}

/** A round-level reward: each game's raw signal, and that signal centred on its skill's mean and scaled (what SPADE trains on). */
export interface RoundRewards {
  raw: Map<string, number>;
  centred: Map<string, number>;
}

const skillOf = (g: RoundGame): string => g.skill ?? 'unknown';

/** (raw − its skill's mean raw)·scale, per game: SPADE's centring, mean subtraction only. */
function centreBySkill(games: readonly RoundGame[], raw: Map<string, number>, scale: number): Map<string, number> {
  const bySkill = new Map<string, number[]>();
  for (const g of games) if (raw.has(g.id)) bySkill.set(skillOf(g), [...(bySkill.get(skillOf(g)) ?? []), raw.get(g.id)!]);
  const centred = new Map<string, number>();
  for (const g of games) if (raw.has(g.id)) centred.set(g.id, (raw.get(g.id)! - mean(bySkill.get(skillOf(g))!)) * scale);
  return centred;
}

/**
 * SPADE's `learning_potential` designer reward for one round (its default variant): a game earns
 * |mean play reward − its skill's baseline μ_slow| (plus the variance term when `variance`), 0
 * when its first design turn was invalid; then each skill's tracker takes the mean of all its
 * plays this round. `trackers` carries the skills' trackers from round to round (made on
 * first sight with SPADE's run gammas). A game with no play earns nothing.
 */
export function learningPotentialRewards(
  games: readonly RoundGame[],
  trackers: Map<string, LearningPotential>,
  { variance = false, scale = 1 }: { variance?: boolean; scale?: number } = {},
): RoundRewards {
  const tracker = (skill: string): LearningPotential => {
    if (!trackers.has(skill)) trackers.set(skill, new LearningPotential());
    return trackers.get(skill)!;
  };
  const raw = new Map<string, number>();
  const plays = new Map<string, number[]>();
  for (const g of games) {
    if (!g.rewards.length) continue;
    let r = Math.abs(mean(g.rewards) - tracker(skillOf(g)).baseline());
    if (variance) r += varianceReward(g.rewards);
    if (g.firstTurnValid === false) r = 0;
    raw.set(g.id, r);
    plays.set(skillOf(g), [...(plays.get(skillOf(g)) ?? []), ...g.rewards]);
  }
  for (const [skill, rewards] of plays) tracker(skill).update(mean(rewards));
  return { raw, centred: centreBySkill(games, raw, scale) };
}

/**
 * SPADE's `regret_based` designer reward for one round: a game earns max(0, hinted − unhinted
 * mean reward), 0 when its first design turn was invalid, −0.5 when a step timed out; centred per
 * skill. Also the shares SPADE logs beside it: games whose regret was floored, games that timed out.
 */
export function regretBasedRewards(games: readonly RoundGame[], { scale = 1 }: { scale?: number } = {}): RoundRewards & { floored: number; timedOut: number } {
  const raw = new Map<string, number>();
  let floored = 0;
  let timedOut = 0;
  for (const g of games) {
    let r: number;
    if (g.timedOut) {
      r = STEP_TIMEOUT_PENALTY;
      timedOut++;
    } else {
      // No hinted play (no hint) means no regret, as SPADE's failed hint phase.
      r = g.hintReward === undefined ? 0 : g.hintReward - mean(g.rewards);
      if (g.firstTurnValid === false) r = 0;
      if (r < 0) {
        floored++;
        r = 0;
      }
    }
    raw.set(g.id, r);
  }
  const n = games.length || 1;
  return { raw, centred: centreBySkill(games, raw, scale), floored: floored / n, timedOut: timedOut / n };
}

/** The weights and scales of SPADE's blend. */
export interface BlendOptions {
  regretWeight: number;
  microLpWeight: number;
  regretScale: number;
  microLpScale: number;
  /** Keep micro-LP's sign (a game that made the agent worse counts against it). */
  microLpSigned: boolean;
  /** Micro-LP as the weighted least-squares slope over every step (else late half − early half). */
  microLpSlope: boolean;
  frontierWeight: number;
  frontierScale: number;
  plateauWeight: number;
  band: Required<PlateauOptions>;
  /** Floor the scaled regret at 0 and cap it at 1. */
  regretFloor: boolean;
}

/** SPADE's blend at its own defaults (spade/slime/arguments.py): regret and micro-LP half each, no frontier, no plateau. */
export const SPADE_BLEND_DEFAULTS: Readonly<BlendOptions> = {
  regretWeight: 0.5, microLpWeight: 0.5, regretScale: 0.15, microLpScale: 0.1, microLpSigned: true, microLpSlope: true,
  frontierWeight: 0, frontierScale: 0.08, plateauWeight: 0, band: { lo: 0.4, hi: 0.6, ramp: 0.25 }, regretFloor: false,
};
/** SPADE's blend as its runs set it (cmd/games/train_spade_*.sh): 0.4 floored regret + 0.6 plateau, no micro-LP, no frontier. */
export const SPADE_BLEND_AS_RUN: Readonly<BlendOptions> = { ...SPADE_BLEND_DEFAULTS, regretWeight: 0.4, plateauWeight: 0.6, microLpWeight: 0, regretFloor: true };
/** SPADE's `solve_rate` run (REWARD_VARIANT=solve_rate): the blend with the plateau alone. */
export const SPADE_SOLVE_RATE: Readonly<BlendOptions> = { ...SPADE_BLEND_AS_RUN, regretWeight: 0, plateauWeight: 1 };

/**
 * SPADE's micro learning potential of one game: how much the agent's mean reward on it rose over
 * the steps it was played at (`steps[i]`: the play rewards at the i-th step, in order). The slope
 * estimator fits a line to the steps' means weighted by their play counts and reads it as fitted
 * end minus start; the two-bucket one takes the late half's mean minus the early half's. 0 with
 * fewer than two steps (one round of plays without training has nothing to compare).
 */
export function microLearningPotential(steps: readonly (readonly number[])[], { slope = true, signed = true }: { slope?: boolean; signed?: boolean } = {}): number {
  if (steps.length < 2) return 0;
  let lp: number;
  if (slope) {
    const xs = steps.map((_, i) => i);
    const ys = steps.map((s) => (s.length ? mean(s) : 0));
    // numpy.polyfit's w multiplies the residuals: the squared weights are max(n, 1).
    const ws = steps.map((s) => Math.max(s.length, 1));
    const W = ws.reduce((a, b) => a + b, 0);
    const mx = xs.reduce((a, x, i) => a + ws[i]! * x, 0) / W;
    const my = ys.reduce((a, y, i) => a + ws[i]! * y, 0) / W;
    const sxy = xs.reduce((a, x, i) => a + ws[i]! * (x - mx) * (ys[i]! - my), 0);
    const sxx = xs.reduce((a, x, i) => a + ws[i]! * (x - mx) ** 2, 0);
    lp = (sxy / sxx) * (steps.length - 1);
  } else {
    const mid = Math.floor(steps.length / 2);
    lp = mean(steps.slice(mid).flat()) - mean(steps.slice(0, mid).flat());
  }
  return signed ? lp : Math.max(0, lp);
}

/** One game's blend and its parts. `masked`: the blend is negative, and SPADE leaves the game out of the designer's update. */
export interface BlendParts {
  blend: number;
  regret: number;
  microLp: number;
  /** The mean play reward over every step (what the plateau and the frontier read). */
  winRate: number;
  frontierPenalty: number;
  plateau: number;
  masked: boolean;
}

/**
 * SPADE's blend of one game: regretWeight·regret/regretScale (floored to [0, 1] with regretFloor)
 * + microLpWeight·microLp/microLpScale + plateauWeight·plateau(winRate) −
 * frontierWeight·(winRate − ½)²/frontierScale. Regret is the hinted mean reward minus the
 * first step's unhinted mean, both taken at the same step; winRate is the mean reward of every play.
 */
export function blendParts(hintReward: number, steps: readonly (readonly number[])[], options: Partial<BlendOptions> = {}): BlendParts {
  const o = { ...SPADE_BLEND_DEFAULTS, ...options };
  const regret = hintReward - mean(steps[0] ?? []);
  const microLp = microLearningPotential(steps, { slope: o.microLpSlope, signed: o.microLpSigned });
  const winRate = mean(steps.flat());
  const frontierPenalty = (winRate - 0.5) ** 2;
  const plateauReward = plateau(winRate, o.band);
  let regretNorm = regret / o.regretScale;
  if (o.regretFloor) regretNorm = clip(regretNorm, 0, 1);
  const blend = o.regretWeight * regretNorm + o.microLpWeight * (microLp / o.microLpScale) + o.plateauWeight * plateauReward - o.frontierWeight * (frontierPenalty / o.frontierScale);
  return { blend, regret, microLp, winRate, frontierPenalty, plateau: plateauReward, masked: blend < 0 };
}

/** SPADE's blend over one round's games (each with its step-keyed plays): raw blends, and the unmasked ones centred per skill. */
export function blendRewards(
  games: readonly (Omit<RoundGame, 'rewards'> & { steps: readonly (readonly number[])[] })[],
  options: Partial<BlendOptions> = {},
  { scale = 1 }: { scale?: number } = {},
): RoundRewards & { parts: Map<string, BlendParts> } {
  const parts = new Map<string, BlendParts>();
  const raw = new Map<string, number>();
  for (const g of games) {
    const p = blendParts(g.hintReward ?? 0, g.steps, options);
    parts.set(g.id, p);
    if (!p.masked) raw.set(g.id, p.blend);
  }
  return { raw, centred: centreBySkill(games.map((g) => ({ ...g, rewards: [] })), raw, scale), parts };
}

export const DESIGNER_REWARDS = ['spade', 'regret', 'solve-rate', 'learnability', 'uncertainty', 'learning-potential', 'spade-solve-rate'] as const;
export type DesignerRewardName = (typeof DESIGNER_REWARDS)[number];

/** Rewards that need the whole round (a skill's baseline carried from round to round), not one environment. */
export const ROUND_LEVEL_REWARDS: readonly DesignerRewardName[] = ['learning-potential'];

/**
 * The reward named in config, for one environment. `spade`, `regret` and `spade-solve-rate` read
 * SPADE's inputs (mean episode rewards); `solve-rate`, `learnability` and `uncertainty` read
 * `solveRate`, the share of plays won without the hint. `solve-rate` and `spade-solve-rate`
 * differ only when plays earn partial rewards: the plateau of the won share, or (SPADE's reading,
 * its `solve_rate` run) of the mean episode reward. `learning-potential` is round-level
 * (learningPotentialRewards): here it is 0 until the round is done.
 */
export function designerReward(name: DesignerRewardName, input: SpadeRewardInput & { solveRate: number }, band: PlateauOptions = {}): number {
  switch (name) {
    case 'spade':
      return spadeDesignerReward(input, band);
    case 'regret':
      return regretReward(input);
    case 'learning-potential':
      return 0;
    case 'solve-rate':
      return plateau(input.solveRate, band);
    case 'spade-solve-rate':
      return plateau(input.winRate, band);
    case 'learnability':
      return learnabilityReward(input.solveRate);
    case 'uncertainty':
      return uncertaintyReward(input.solveRate);
  }
}
