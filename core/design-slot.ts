/**
 * One design slot of a self-play round, when the designer can repair programs or an LLM
 * reviewer reviews them: gate the program (no play yet); while the gate rejects it and
 * repairs are left, ask the designer for a repair with the gate's reason, and gate that; then
 * the optional review; then play the accepted program, reusing its gate verdict. The slot's
 * summary records the rejected attempts (`repairs`) and the review (`review`), apart from the
 * gate's verdict of the final program.
 */
import type { RepairRecord, ReviewRecord } from './results.js';
import type { Designer, EnvironmentProgram } from './types.js';
import type { Evaluation, EvaluationContext, Evaluator } from './evaluate.js';
import type { EnvironmentReviewer } from './roles/llm-reviewer.js';
import { withKnownVerdicts } from './resume.js';
import { deriveSeed } from './random.js';

export interface DesignSlotOptions {
  designer: Designer;
  evaluate: Evaluator;
  context: EvaluationContext;
  round: number;
  /** Most repairs per slot. */
  repairs: number;
  reviewer?: EnvironmentReviewer;
  /** Repairs journaled by an earlier invocation, by `${originalId}#${attempt}`. */
  knownRepairs?: ReadonlyMap<string, EnvironmentProgram>;
  /** A repair the designer has just written (to journal it). */
  onRepaired?: (program: EnvironmentProgram) => void;
  /** A review the reviewer has just given (to journal it; a resumed run takes it from the journal). */
  onReviewed?: (program: EnvironmentProgram, review: ReviewRecord) => void;
}

/** Key of a slot's repair in DesignSlotOptions.knownRepairs. */
export const repairKey = (originalId: string, attempt: number): string => `${originalId}#${attempt}`;

/** Gate, repair (bounded), review, then play one slot's program. */
export async function evaluateDesignSlot(program: EnvironmentProgram, options: DesignSlotOptions): Promise<Evaluation> {
  const { context, designer } = options;
  const taskSeed = (p: EnvironmentProgram): number => deriveSeed(context.runSeed, 'task', p.id);
  const repairs: RepairRecord[] = [];
  const finish = (evaluation: Evaluation, review?: ReviewRecord): Evaluation => {
    if (repairs.length) evaluation.summary.repairs = repairs;
    if (review) evaluation.summary.review = review;
    return evaluation;
  };
  let current = program;
  let gated = await options.evaluate(current, taskSeed(current), { ...context, validateOnly: true });
  for (let attempt = 1; gated.verdict.verdict === 'invalid'; attempt++) {
    if (attempt > options.repairs || !designer.repair || context.signal?.aborted) return finish(gated);
    const failed = gated.verdict.checks.find((c) => !c.ok);
    repairs.push({ id: current.id, reason: gated.verdict.reason ?? 'invalid', ...(failed?.detail ? { detail: failed.detail } : {}) });
    let repaired = options.knownRepairs?.get(repairKey(program.id, attempt));
    if (!repaired) {
      try {
        repaired = await designer.repair(current, gated.verdict, {
          round: options.round,
          attempt,
          originalId: program.id,
          seed: deriveSeed(context.runSeed, 'repair', program.id, attempt),
          signal: context.signal,
        });
      } catch {
        repairs.pop();
        return finish(gated); // the designer could not repair: the slot stays rejected
      }
      options.onRepaired?.(repaired);
    }
    current = repaired;
    gated = await options.evaluate(current, taskSeed(current), { ...context, validateOnly: true });
  }
  let review: ReviewRecord | undefined;
  if (options.reviewer && !context.signal?.aborted) {
    review = context.prior?.review(context.suite, current.id);
    if (!review) {
      review = await options.reviewer.review(current, gated.verdict, context.signal);
      options.onReviewed?.(current, review);
    }
    if (!review.accepted) return finish(gated, review);
  }
  if (context.validateOnly) return finish(gated, review);
  const prior = withKnownVerdicts(context.prior, new Map([[current.id, gated.verdict]]));
  return finish(await options.evaluate(current, taskSeed(current), { ...context, prior }), review);
}
