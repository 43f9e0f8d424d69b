/**
 * SPADE's per-step log of a self-play round (spade-rl/spade at 9b2b813: the env stats of
 * spade/core/utils/env_rewards.py, the validator and pass-rate counters of spade/core/orchestrator.py,
 * the GRPO group and response-length diagnostics of spade/slime/spade_rollout.py), computed from
 * what a round of spade-bench has: its designed programs and its evaluations. A figure the round
 * cannot give is null with the reason, never a made-up 0.
 *
 * Where spade-bench differs from SPADE's logging:
 * - a round is one regeneration step, its environments played once (SPADE logs every training
 *   step, replaying the current games);
 * - errored plays are left out of the means, as everywhere in spade-bench;
 * - the validator rejection rate is given twice: the round's own, over the final review of each
 *   slot, and SPADE's (validatorRejectionRateRun: every rejection, a slot's resampled ones and the
 *   reset gate's included, of every check since the run began);
 * - the pass rate and the reply figures leave out slots that errored (SPADE counts a failed
 *   generation call as a failed attempt); the reply figures take every slot's final reply, where
 *   SPADE's take only the replies of the games it trains on.
 */
import type { RoundLog, RoundLogKey } from '../results/results.js';
import type { Evaluation } from '../run/evaluate.js';
import type { EnvironmentProgram } from '../types.js';
import { playReward } from './rewards.js';

/** Each figure: SPADE's name for it in its logs, and what it is. */
export const ROUND_LOG_FIGURES: Record<RoundLogKey, { spade: string; label: string; unit: 'reward' | 'share' | 'tokens' | 'turns' }> = {
  rHint: { spade: 'env/avg_r_hint', label: 'mean reward with the hint', unit: 'reward' },
  rNoHint: { spade: 'env/avg_r_no_hint', label: 'mean reward without the hint', unit: 'reward' },
  meanRegret: { spade: 'env/avg_regret', label: 'mean regret (with − without)', unit: 'reward' },
  flooredShare: { spade: 'env/proposer_floored_frac', label: 'share with negative regret (floored)', unit: 'share' },
  stepTimeoutShare: { spade: 'env/proposer_step_timeout_frac', label: 'share with a step timeout', unit: 'share' },
  easyShare: { spade: 'env/game_difficulty/easy_pct', label: 'easy share (mean reward > 0.8)', unit: 'share' },
  mediumShare: { spade: 'env/game_difficulty/medium_pct', label: 'medium share', unit: 'share' },
  hardShare: { spade: 'env/game_difficulty/hard_pct', label: 'hard share (mean reward < 0.2)', unit: 'share' },
  validationPassRate: { spade: 'env_validation_pass_rate', label: 'designs that passed validation', unit: 'share' },
  validatorRejectionRate: { spade: 'env_validator/rejection_rate (this round)', label: 'LLM validator rejection rate', unit: 'share' },
  validatorRejectionRateRun: { spade: 'env_validator/rejection_rate', label: 'LLM validator rejection rate since the run began (as SPADE counts it)', unit: 'share' },
  designerResponseTokens: { spade: 'rollout/env_mean_response_len', label: 'designer reply, mean tokens', unit: 'tokens' },
  designerResponseTokensMax: { spade: 'rollout/env_response_len_max', label: 'designer reply, most tokens', unit: 'tokens' },
  designerTruncatedShare: { spade: 'rollout/env_truncated_pct', label: 'designer replies cut at the token limit', unit: 'share' },
  zeroVarianceShare: { spade: 'rollout/zero_std_group_pct', label: 'groups whose plays all got one reward', unit: 'share' },
  allZeroShare: { spade: 'rollout/all_zero_group_pct', label: 'groups whose plays all got 0', unit: 'share' },
  allPositiveShare: { spade: 'rollout/all_positive_group_pct', label: 'groups whose plays all got more than 0', unit: 'share' },
  meanTurns: { spade: 'avg_turns', label: 'mean turns per play', unit: 'turns' },
};

export const ROUND_LOG_KEYS = Object.keys(ROUND_LOG_FIGURES) as RoundLogKey[];

/**
 * What a designer records of its reply in `meta.params.designerReply`, for the response-length
 * figures: the reply's output tokens and why the model stopped (`length` when cut at its limit).
 */
export interface DesignerReply {
  tokens?: number;
  finishReason?: string;
}

/** The slot a program belongs to: its own id, or for a repair or fresh design the id of the slot's first program. */
const slotOf = (p: EnvironmentProgram): string => (typeof p.meta?.params?.repairOf === 'string' ? p.meta.params.repairOf : p.id);

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

const designerReply = (p: EnvironmentProgram): DesignerReply | undefined => {
  const reply = p.meta?.params?.designerReply;
  return reply && typeof reply === 'object' ? (reply as DesignerReply) : undefined;
};

/** SPADE's validator counters (orchestrator.py): programs the LLM validator accepted, and those it or the reset gate rejected. */
export interface ValidatorCounts {
  accepted: number;
  rejected: number;
}

/**
 * A round's additions to SPADE's validator counters: every review the round's slots got,
 * the rejections their fresh designs followed included, and every reset-gate rejection (SPADE
 * counts those as the validator's too).
 */
export function validatorCounts(evaluations: readonly Evaluation[]): ValidatorCounts {
  let accepted = 0;
  let rejected = 0;
  for (const { summary } of evaluations) {
    for (const r of summary.repairs ?? []) if (r.reason === 'review' || r.reason === 'reset-gate') rejected++;
    if (summary.review) {
      if (summary.review.accepted) accepted++;
      else rejected++;
    } else if (summary.reason === 'reset-gate') rejected++;
  }
  return { accepted, rejected };
}

/**
 * The log of one round: `programs`, the slots the designer was asked for (their first programs,
 * errored ones included); `evaluations`, what the round evaluated (repaired programs in place of
 * their slots'). `hinted`: whether the round plays with the hint at all (a curriculum pool does not).
 * `validator`, given when the run has an LLM validator: SPADE's counters over the run until this
 * round ended (validatorCounts of every round so far, this one included).
 */
export function roundLog(
  programs: readonly EnvironmentProgram[],
  evaluations: readonly Evaluation[],
  { hinted = true, validator }: { hinted?: boolean; validator?: ValidatorCounts } = {},
): RoundLog {
  const figures = Object.fromEntries(ROUND_LOG_KEYS.map((k) => [k, null])) as Record<RoundLogKey, number | null>;
  const missing: Partial<Record<RoundLogKey, string>> = {};
  const set = (key: RoundLogKey, value: number | null, why: string): void => {
    figures[key] = value;
    if (value === null) missing[key] = why;
  };
  const accepted = evaluations.filter((e) => e.summary.verdict !== 'invalid' && e.summary.review?.accepted !== false);
  // The games SPADE's rewards see: played, each with its decided plays' episode rewards.
  const games = accepted
    .map((e) => ({ e, plain: e.episodes.filter((p) => !p.withHint && p.outcome !== 'errored'), hint: e.episodes.filter((p) => p.withHint && p.outcome !== 'errored') }))
    .filter((g) => g.plain.length > 0 || g.hint.length > 0);
  const noPlay = 'no environment of the round was played';

  // Regret: over the games whose hint phase gave a reward (SPADE's r_hint and r_no_hint), every game for the mean regret.
  const withHint = games.filter((g) => g.hint.length > 0);
  const hintWhy = !hinted ? 'this pool plays without a hint' : games.length === 0 ? noPlay : 'no environment of the round had a hinted play (no hint)';
  const plainMean = (g: (typeof games)[number]): number => (g.plain.length ? mean(g.plain.map(playReward)) : 0);
  set('rHint', withHint.length ? mean(withHint.map((g) => mean(g.hint.map(playReward)))) : null, hintWhy);
  set('rNoHint', withHint.length ? mean(withHint.map(plainMean)) : null, hintWhy);
  const regret = (g: (typeof games)[number]): number => (g.hint.length ? mean(g.hint.map(playReward)) - plainMean(g) : 0);
  const timedOut = (g: (typeof games)[number]): boolean => g.e.episodes.some((p) => p.errorKind === 'timeout');
  const regretWhy = hinted ? noPlay : 'this pool plays without a hint';
  set('meanRegret', hinted && games.length ? mean(games.map(regret)) : null, regretWhy);
  set('flooredShare', hinted && games.length ? games.filter((g) => !timedOut(g) && regret(g) < 0).length / games.length : null, regretWhy);
  set('stepTimeoutShare', games.length ? games.filter(timedOut).length / games.length : null, noPlay);

  // Difficulty bands over the games with plays without the hint.
  const rated = games.filter((g) => g.plain.length > 0).map(plainMean);
  const band = (n: number): number | null => (rated.length ? n / rated.length : null);
  const bandWhy = 'no environment of the round had a decided play without the hint';
  set('easyShare', band(rated.filter((m) => m > 0.8).length), bandWhy);
  set('hardShare', band(rated.filter((m) => m < 0.2).length), bandWhy);
  set('mediumShare', band(rated.filter((m) => m >= 0.2 && m <= 0.8).length), bandWhy);

  // Validation: SPADE's pass rate is games produced over games requested; here over the slots
  // that reached a result (a slot whose call errored is left out, as everywhere in spade-bench).
  set('validationPassRate', evaluations.length ? accepted.length / evaluations.length : null, programs.some((p) => !p.designError) ? 'every slot of the round errored' : 'the designer produced no program this round');
  const reviewed = evaluations.filter((e) => e.summary.review);
  set(
    'validatorRejectionRate',
    reviewed.length ? reviewed.filter((e) => !e.summary.review!.accepted).length / reviewed.length : null,
    evaluations.length ? 'no LLM validator reviewed this round (no --reviewer)' : 'nothing of the round reached the validator',
  );
  const checked = validator ? validator.accepted + validator.rejected : 0;
  set(
    'validatorRejectionRateRun',
    validator && checked ? validator.rejected / checked : null,
    validator ? 'nothing has reached the validator since the run began' : 'no LLM validator in this run (no --reviewer)',
  );

  // The designer's replies, as its programs record them: the reply each slot ended with (its
  // last fresh design or repair when it took several), the first reply of a slot with no result.
  const ended = new Set(evaluations.map((e) => slotOf(e.program)));
  const finals = [...evaluations.map((e) => e.program), ...programs.filter((p) => !ended.has(slotOf(p)))];
  const replies = finals.map(designerReply).filter((r): r is DesignerReply => r !== undefined);
  const tokens = replies.map((r) => r.tokens).filter((t): t is number => typeof t === 'number');
  const replyWhy = programs.length === 0
    ? 'the designer produced nothing this round'
    : evaluations.length === 0
      ? 'no slot of the round ended with a design (its calls failed)'
      : 'the designer records no reply length (the reference designer writes no reply)';
  set('designerResponseTokens', tokens.length ? mean(tokens) : null, replyWhy);
  set('designerResponseTokensMax', tokens.length ? Math.max(...tokens) : null, replyWhy);
  const finished = replies.filter((r) => typeof r.finishReason === 'string');
  set('designerTruncatedShare', finished.length ? finished.filter((r) => r.finishReason === 'length').length / finished.length : null, programs.length === 0 ? replyWhy : 'the designer records no finish reason (the reference designer writes no reply)');

  // GRPO groups: the plays without the hint of each game (SPADE's actor samples), groups of more than one play.
  const groups = games.map((g) => g.plain.map(playReward)).filter((r) => r.length > 0);
  const groupWhy = 'no environment of the round had a decided play without the hint';
  const share = (test: (r: number[]) => boolean): number | null => (groups.length ? groups.filter((r) => r.length > 1 && test(r)).length / groups.length : null);
  set('zeroVarianceShare', share((r) => r.every((x) => x === r[0])), groupWhy);
  set('allZeroShare', share((r) => r.every((x) => x === 0)), groupWhy);
  set('allPositiveShare', share((r) => r.every((x) => x > 0)), groupWhy);
  const turns = games.flatMap((g) => g.plain.map((p) => p.turns));
  set('meanTurns', turns.length ? mean(turns) : null, groupWhy);
  return { figures, missing };
}
