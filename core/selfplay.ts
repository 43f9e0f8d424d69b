/**
 * SPADE's self-play loop: rounds of design → validation gate → play (with and without the
 * hint) → designer reward → environment memory → next round.
 */
import type { RoundSummary } from './results.js';
import type { Designer, EnvironmentProgram, EnvironmentRecord } from './types.js';
import { designerReward, type DesignerRewardName } from './rewards.js';
import { evaluateEnvironment, type Evaluation, type EvaluationContext, type Evaluator } from './evaluate.js';
import { mapLimit } from './concurrency.js';
import { deriveSeed } from './random.js';

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
}

export interface SelfPlayResult {
  evaluations: Evaluation[];
  rounds: RoundSummary[];
  designed: number;
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export async function runSelfPlay(options: SelfPlayOptions): Promise<SelfPlayResult> {
  const memory: EnvironmentRecord[] = [];
  const solveRates: number[] = [];
  const evaluations: Evaluation[] = [];
  const rounds: RoundSummary[] = [];
  let designed = 0;
  const { signal } = options.context;
  for (let round = 0; round < options.rounds && !signal?.aborted; round++) {
    let programs = options.context.prior?.designed(options.context.suite, round);
    if (!programs) {
      programs = await options.designer.design({
        round,
        count: options.envsPerRound,
        seed: deriveSeed(options.context.runSeed, 'design', round),
        memory: memory.slice(-MEMORY_LIMIT),
        recentSolveRates: solveRates,
        signal,
      });
      options.onDesigned?.(round, programs);
    }
    designed += programs.length;
    const context: EvaluationContext = { ...options.context, round, withHint: true };
    const results = await mapLimit(
      programs,
      options.concurrency,
      async (program) => {
        const evaluation = await (options.evaluator ?? evaluateEnvironment)(program, deriveSeed(options.context.runSeed, 'task', program.id), context);
        const { summary, episodes } = evaluation;
        if (summary.verdict !== 'invalid' && summary.solveRate !== undefined) {
          const timedOut = episodes.some((e) => e.error?.startsWith('sandbox timeout'));
          summary.designerReward = designerReward(options.reward, {
            hintReward: summary.hintSolveRate ?? summary.solveRate,
            noHintReward: summary.solveRate,
            winRate: summary.solveRate,
            timedOut,
          });
        }
        options.onEvaluation?.(evaluation);
        return evaluation;
      },
      () => signal?.aborted ?? false,
    );
    const done = results.filter((r): r is Evaluation => r !== undefined);
    evaluations.push(...done);
    const accepted = done.filter((e) => e.summary.verdict !== 'invalid');
    const played = accepted.filter((e) => e.summary.solveRate !== undefined);
    const summary: RoundSummary = {
      round,
      proposed: programs.length,
      valid: accepted.length,
      solveRate: mean(played.map((e) => e.summary.solveRate!)),
      hintSolveRate: mean(played.map((e) => e.summary.hintSolveRate ?? e.summary.solveRate!)),
      meanDifficulty: mean(done.map((e) => e.summary.difficulty).filter((d): d is number => d !== undefined)),
      designerReward: mean(played.map((e) => e.summary.designerReward ?? 0)),
    };
    rounds.push(summary);
    if (signal?.aborted) break; // a partial round is reported, but not journaled as finished
    solveRates.push(summary.solveRate);
    for (const e of done) memory.push(toRecord(e, round));
    if (memory.length > MEMORY_LIMIT) memory.splice(0, memory.length - MEMORY_LIMIT);
    options.onRound?.(summary);
  }
  return { evaluations, rounds, designed };
}

export function toRecord(e: Evaluation, round: number): EnvironmentRecord {
  const s = e.summary;
  const record: EnvironmentRecord = { id: s.id, round, valid: s.verdict !== 'invalid', source: s.source };
  if (s.family) record.family = s.family;
  if (s.difficulty !== undefined) record.difficulty = s.difficulty;
  if (s.horizon !== undefined) record.horizon = s.horizon;
  if (s.reason) record.reason = s.reason;
  if (s.solveRate !== undefined) record.solveRate = s.solveRate;
  if (s.solveRate !== undefined && s.hintSolveRate !== undefined) record.regret = s.hintSolveRate - s.solveRate;
  if (s.designerReward !== undefined) record.designerReward = s.designerReward;
  if (s.task) record.task = s.task;
  return record;
}
