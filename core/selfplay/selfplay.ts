/**
 * SPADE's self-play loop: rounds of design → validation gate → play (with and without the
 * hint) → designer reward → environment memory → next round. Each round's designs are given
 * SPADE's skills, cognitive or tool-use (core/selfplay/skills.ts: a window of k skills moving k each
 * round, game i getting skill i % k); a model designer also writes the hint of a program that
 * has none.
 */
import type { ReviewRecord, RoundSummary } from '../results/results.js';
import type { DesignRequest, Designer, EnvironmentProgram, EnvironmentRecord } from '../types.js';
import { designerReward, LearningPotential, learningPotentialRewards, playReward, ROUND_LEVEL_REWARDS, type DesignerRewardName, type PlateauOptions } from './rewards.js';
import { roundLog, validatorCounts, type ValidatorCounts } from './round-log.js';
import { DEFAULT_SKILLS_PER_ROUND, SKILL_NAMES, skillsForRound } from './skills.js';
import type { HintWriter } from '../roles/llm-hint.js';
import type { HintRecord } from '../results/journal.js';
import { DEFAULTS } from '../config/options.js';
import { evaluateEnvironment, type Evaluation, type EvaluationContext, type Evaluator } from '../run/evaluate.js';
import { mapLimit } from '../run/concurrency.js';
import { deriveSeed } from '../run/random.js';
import { evaluateDesignSlot, redesignSlot, repairKey } from './design-slot.js';
import type { EnvironmentReviewer } from '../roles/llm-reviewer.js';
import { repetitionPenalties } from './repetition-penalty.js';
import { isSlotError, slotError, type SlotError } from './slot-error.js';
import type { SpadeMemoryKeeper } from './spade-memory.js';

/** The environment memory keeps at most this many records (most recent). */
export const MEMORY_LIMIT = 200;

export interface SelfPlayOptions {
  designer: Designer;
  rounds: number;
  envsPerRound: number;
  reward: DesignerRewardName;
  /** Environments evaluated at once. */
  concurrency: number;
  context: Omit<EvaluationContext, 'round' | 'withHint'>;
  /** Where environments are evaluated (default: in this thread). */
  evaluator?: Evaluator;
  /** A round's programs, when the designer has just written them (not when taken from the journal). */
  onDesigned?: (round: number, programs: EnvironmentProgram[]) => void;
  onEvaluation?: (evaluation: Evaluation) => void;
  onRound?: (summary: RoundSummary) => void;
  /** Most repairs per rejected program, when the designer has repair() (default 1). */
  repairs?: number;
  /** Designs a slot may take while its program is rejected (SPADE's resampling; default 1). */
  slotAttempts?: number;
  /** Apply SPADE's f-string brace repair to the designer's Python programs before the gate (`--gate spade`). */
  repairBraces?: boolean;
  /** The optional LLM reviewer, after the gate; a rejected review keeps the environment out of play. */
  reviewer?: EnvironmentReviewer;
  /** A review the reviewer has just given. */
  onReviewed?: (program: EnvironmentProgram, review: ReviewRecord) => void;
  /** The difficulty band of the designer reward (SPADE's [0.4, 0.6], ramp 0.25, by default). */
  band?: PlateauOptions;
  /** SPADE's skills rotated over the rounds (default all nine), and how many a round takes (default 3). */
  skills?: readonly string[];
  skillsPerRound?: number;
  /** The designer model, writing hints for valid programs without hint(). */
  hintWriter?: HintWriter;
  /** A hint just written (or why the model gave none). */
  onHint?: (program: EnvironmentProgram, hint: HintRecord) => void;
  /** A design slot that has just errored (its design, repair, review or hint call failed). */
  onErrored?: (error: SlotError) => void;
  /**
   * What the designer is shown of earlier rounds: `own` (spade-bench's memory and recent solve
   * rates, the default), `spade` (SPADE's memory, kept by `spadeMemory`), `off` (nothing).
   */
  memoryMode?: 'own' | 'spade' | 'off';
  spadeMemory?: SpadeMemoryKeeper;
  /** The hint writer writes every valid program's hint (SPADE's designer protocol). */
  alwaysHint?: boolean;
}

/** Default of SelfPlayOptions.repairs (the `selfplay.repairs` option's). */
export const DEFAULT_REPAIRS = DEFAULTS.selfplay.repairs;

export interface SelfPlayResult {
  evaluations: Evaluation[];
  /** Design slots that errored, this invocation's and those kept from the journal. */
  errored: SlotError[];
  rounds: RoundSummary[];
  designed: number;
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
/** The mean of rates, difficulties or rewards; null when there is none (nothing was played). */
const meanOrNull = (xs: number[]): number | null => (xs.length ? mean(xs) : null);

export async function runSelfPlay(options: SelfPlayOptions): Promise<SelfPlayResult> {
  const memory: EnvironmentRecord[] = [];
  const solveRates: number[] = [];
  const evaluations: Evaluation[] = [];
  const errored: SlotError[] = [];
  const rounds: RoundSummary[] = [];
  let designed = 0;
  // SPADE's learning-potential trackers, one per skill, carried from round to round.
  const trackers = new Map<string, LearningPotential>();
  // SPADE's validator counters, from the run's start.
  const validator: ValidatorCounts = { accepted: 0, rejected: 0 };
  const { signal } = options.context;
  for (let round = 0; round < options.rounds && !signal?.aborted; round++) {
    let programs = options.context.prior?.designed(options.context.suite, round);
    // A journaled round may hold repairs (meta.params.repairOf) beside the slots' first programs.
    const knownRepairs = new Map<string, EnvironmentProgram>();
    for (const p of programs ?? []) {
      const params = p.meta?.params;
      if (typeof params?.repairOf === 'string') knownRepairs.set(repairKey(params.repairOf, Number(params.repairAttempt)), p);
    }
    programs = programs?.filter((p) => typeof p.meta?.params?.repairOf !== 'string');
    const request = {
      round,
      count: options.envsPerRound,
      skills: skillsForRound(options.skills ?? SKILL_NAMES, options.skillsPerRound ?? DEFAULT_SKILLS_PER_ROUND, round, options.envsPerRound),
      targetBand: [options.band?.lo ?? 0.4, options.band?.hi ?? 0.6] as [number, number],
      seed: deriveSeed(options.context.runSeed, 'design', round),
      ...designerMemory(options, memory, solveRates),
      signal,
    };
    // A design call cut by the run's stop is no result: the round is not journaled, and a resumed run designs it.
    const design = async (slots?: number[]): Promise<EnvironmentProgram[] | undefined> => {
      try {
        return await options.designer.design(slots ? { ...request, slots } : request);
      } catch (error) {
        if (signal?.aborted) return undefined;
        // A designer that throws for the whole round: every slot asked for errored.
        const { errorClass, message } = slotError('', round, 'design', error);
        return (slots ?? Array.from({ length: request.count }, (_, i) => i)).map((i): EnvironmentProgram => ({
          id: `r${round}-e${i}`, language: 'javascript', source: '', designError: { errorClass, message },
        }));
      }
    };
    if (!programs) {
      programs = await design();
      if (!programs) break;
      options.onDesigned?.(round, programs);
      for (const p of programs) if (p.designError) options.onErrored?.({ id: p.id, round, stage: 'design', ...p.designError });
    } else if (options.context.prior?.retryErrored && programs.some((p) => p.designError)) {
      // --retry-errored: the slots whose design call failed are designed again, the others kept.
      const slots = programs.flatMap((p, i) => (p.designError ? [i] : []));
      const again = await design(slots);
      if (!again) break;
      const byId = new Map(again.map((p) => [p.id, p]));
      programs = programs.map((p, i) => (p.designError ? (byId.get(p.id) ?? again[slots.indexOf(i)] ?? p) : p));
      options.onDesigned?.(round, [...programs, ...knownRepairs.values()]);
      for (const p of programs) if (p.designError) options.onErrored?.({ id: p.id, round, stage: 'design', ...p.designError });
    }
    designed += programs.length;
    const context: EvaluationContext = { ...options.context, round, withHint: true };
    const evaluate = options.evaluator ?? evaluateEnvironment;
    const repairs = options.designer.repair ? (options.repairs ?? DEFAULT_REPAIRS) : 0;
    // Repairs are journaled with the round's programs, so a resumed run reuses them.
    const journaled = [...programs, ...knownRepairs.values()];
    const onRepaired = (repaired: EnvironmentProgram): void => {
      journaled.push(repaired);
      options.onDesigned?.(round, [...journaled]);
    };
    // With R-Zero's uncertainty reward and SPADE's learning potential, summaries are reported once the whole round is known.
    const penalised = options.reward === 'uncertainty' || ROUND_LEVEL_REWARDS.includes(options.reward);
    // A slot whose design call failed has no program to evaluate.
    const designFailures = programs.flatMap((p): SlotError[] => (p.designError ? [{ id: p.id, round, stage: 'design', ...p.designError }] : []));
    const results = await mapLimit(
      programs.filter((p) => !p.designError),
      options.concurrency,
      async (program): Promise<Evaluation | SlotError | undefined> => {
        let evaluation: Evaluation | SlotError;
        try {
          evaluation =
            repairs > 0 || options.reviewer || options.hintWriter || (options.slotAttempts ?? 1) > 1 || options.repairBraces
              ? await evaluateDesignSlot(program, {
                  slotAttempts: options.slotAttempts, repairBraces: options.repairBraces, redesign: (draft) => redesignSlot(options.designer, request, programs!.indexOf(program), program.id, draft),
                  designer: options.designer, evaluate, context, round, repairs, reviewer: options.reviewer, knownRepairs, onRepaired,
                  onReviewed: options.onReviewed, hintWriter: options.hintWriter, onHint: options.onHint, onErrored: options.onErrored,
                  ...(options.alwaysHint ? { alwaysHint: true } : {}),
                })
              : await evaluate(program, deriveSeed(options.context.runSeed, 'task', program.id), context);
        } catch (error) {
          // Cut by the run's stop: no result (a resumed run does the slot's work).
          if (signal?.aborted) return undefined;
          throw error;
        }
        if (isSlotError(evaluation)) return evaluation;
        const { summary, episodes } = evaluation;
        if (summary.verdict !== 'invalid' && summary.solveRate !== undefined) {
          // SPADE's inputs: mean episode rewards; no hinted play (no hint) means no regret.
          const noHint = summary.meanReward ?? summary.solveRate;
          summary.designerReward = designerReward(options.reward, {
            hintReward: summary.hintMeanReward ?? noHint,
            noHintReward: noHint,
            winRate: noHint,
            solveRate: summary.solveRate,
            timedOut: episodes.some((e) => e.errorKind === 'timeout'),
          }, options.band);
        }
        if (!penalised) options.onEvaluation?.(evaluation);
        return evaluation;
      },
      () => signal?.aborted ?? false,
    );
    const done = results.filter((r): r is Evaluation => r !== undefined && !isSlotError(r));
    const slotErrors = [...designFailures, ...results.filter((r): r is SlotError => r !== undefined && isSlotError(r))];
    errored.push(...slotErrors);
    if (penalised) {
      if (options.reward === 'uncertainty') applyRepetitionPenalty(done);
      else applyLearningPotential(done, trackers);
      for (const e of done) options.onEvaluation?.(e);
    }
    evaluations.push(...done);
    // An environment the LLM reviewer rejected is not counted as accepted.
    const accepted = done.filter((e) => e.summary.verdict !== 'invalid' && e.summary.review?.accepted !== false);
    const played = accepted.filter((e) => e.summary.solveRate !== undefined);
    const counted = validatorCounts(done);
    validator.accepted += counted.accepted;
    validator.rejected += counted.rejected;
    const summary: RoundSummary = {
      round,
      // A slot that errored proposed nothing: it is counted apart.
      proposed: programs.length - slotErrors.length,
      valid: accepted.length,
      solveRate: meanOrNull(played.map((e) => e.summary.solveRate!)),
      hintSolveRate: meanOrNull(played.map((e) => e.summary.hintSolveRate ?? e.summary.solveRate!)),
      meanDifficulty: meanOrNull(done.map((e) => e.summary.difficulty).filter((d): d is number => d !== undefined)),
      designerReward: meanOrNull(played.map((e) => e.summary.designerReward ?? 0)),
      ...(slotErrors.length ? { errored: slotErrors.length } : {}),
      log: roundLog(programs, done, options.reviewer ? { validator: { ...validator } } : {}),
    };
    rounds.push(summary);
    if (signal?.aborted) break; // a partial round is reported, but not journaled as finished
    // A round with nothing played has no solve rate to tell the designer.
    if (summary.solveRate !== null) solveRates.push(summary.solveRate);
    for (const e of done) memory.push(toRecord(e, round));
    if (memory.length > MEMORY_LIMIT) memory.splice(0, memory.length - MEMORY_LIMIT);
    if (options.memoryMode === 'spade') await options.spadeMemory?.addRound(done, round);
    options.onRound?.(summary);
  }
  return { evaluations, errored, rounds, designed };
}

/** What a round's design request carries of the past, by the memory mode. */
function designerMemory(options: SelfPlayOptions, memory: EnvironmentRecord[], solveRates: number[]): Pick<DesignRequest, 'memory' | 'recentSolveRates' | 'spadeMemory'> {
  if (options.memoryMode === 'off') return { memory: [], recentSolveRates: [] };
  if (options.memoryMode === 'spade') return { memory: [], recentSolveRates: [], spadeMemory: [...(options.spadeMemory?.records ?? [])] };
  return { memory: memory.slice(-MEMORY_LIMIT), recentSolveRates: solveRates };
}

/**
 * R-Zero's repetition penalty, for the uncertainty reward: the round's played
 * environments are clustered by the BLEU distance of their tasks (first observations), and
 * each one's designer reward loses its cluster's share of them.
 */
export function applyRepetitionPenalty(evaluations: readonly Evaluation[]): void {
  const rewarded = evaluations.filter((e) => e.summary.designerReward !== undefined);
  const penalties = repetitionPenalties(rewarded.map((e) => e.summary.task ?? ''));
  rewarded.forEach((e, i) => {
    e.summary.repetitionPenalty = penalties[i]!;
    e.summary.designerReward! -= penalties[i]!;
  });
}

/**
 * SPADE's learning-potential reward over a round's played environments: each one's distance from
 * its skill's slow mean of earlier rounds (rewards.ts learningPotentialRewards), before centring.
 */
export function applyLearningPotential(evaluations: readonly Evaluation[], trackers: Map<string, LearningPotential>): void {
  const rewarded = evaluations.filter((e) => e.summary.designerReward !== undefined);
  const games = rewarded.map((e) => ({
    id: e.summary.id,
    skill: e.summary.skill,
    rewards: e.episodes.filter((p) => !p.withHint && p.outcome !== 'errored').map(playReward),
  }));
  const { raw } = learningPotentialRewards(games, trackers);
  for (const e of rewarded) e.summary.designerReward = raw.get(e.summary.id) ?? 0;
}

export function toRecord(e: Evaluation, round: number): EnvironmentRecord {
  const s = e.summary;
  const rejectedByReview = s.review?.accepted === false;
  const record: EnvironmentRecord = { id: s.id, round, valid: s.verdict !== 'invalid' && !rejectedByReview, source: s.source };
  if (s.family) record.family = s.family;
  if (s.difficulty !== undefined) record.difficulty = s.difficulty;
  if (s.horizon !== undefined) record.horizon = s.horizon;
  if (s.reason) record.reason = s.reason;
  else if (rejectedByReview) record.reason = `review: ${s.review!.reason.slice(0, 200)}`;
  if (s.solveRate !== undefined) record.solveRate = s.solveRate;
  if (s.solveRate !== undefined && s.hintSolveRate !== undefined) record.regret = s.hintSolveRate - s.solveRate;
  if (s.designerReward !== undefined) record.designerReward = s.designerReward;
  if (s.task) record.task = s.task;
  return record;
}
