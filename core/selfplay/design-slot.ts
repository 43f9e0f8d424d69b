/**
 * One design slot of a self-play round, when the designer can repair programs, an LLM
 * reviewer reviews them, or the designer model writes hints: gate the program (no play yet);
 * while the gate rejects it and repairs are left, ask the designer for a repair with the gate's
 * reason, and gate that; then the optional review; then, for an accepted program without hint(),
 * the designer model's hint; then play it, reusing its gate verdict. The slot's summary records
 * the rejected attempts (`repairs`), the review (`review`) and the hint (`designerHint`), apart
 * from the gate's verdict of the final program.
 */
import type { RepairRecord, ReviewRecord } from '../results/results.js';
import type { Designer, EnvironmentProgram } from '../types.js';
import type { Evaluation, EvaluationContext, Evaluator } from '../run/evaluate.js';
import type { EnvironmentReviewer } from '../roles/llm-reviewer.js';
import type { HintWriter } from '../roles/llm-hint.js';
import type { HintRecord } from '../results/journal.js';
import { withKnownVerdicts } from '../results/resume.js';
import { deriveSeed } from '../run/random.js';

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
  /** Writes a hint for an accepted program without hint() (the designer model). */
  hintWriter?: HintWriter;
  /** A hint the writer has just written, or its failure (to journal it; a resumed run reuses it). */
  onHint?: (program: EnvironmentProgram, hint: HintRecord) => void;
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
  let hint: HintRecord | undefined;
  if (options.hintWriter && !gated.verdict.capabilities?.hint && !context.signal?.aborted) {
    hint = context.prior?.hint(context.suite, current.id);
    if (!hint) {
      try {
        hint = { hint: await options.hintWriter.write(current, context.signal, gated.verdict.gameType), by: options.hintWriter.id };
      } catch (error) {
        hint = { error: (error as Error).message, by: options.hintWriter.id };
      }
      options.onHint?.(current, hint);
    }
  }
  const prior = withKnownVerdicts(context.prior, new Map([[current.id, gated.verdict]]));
  const played = finish(await options.evaluate(current, taskSeed(current), { ...context, prior, ...(hint?.hint !== undefined ? { hint: hint.hint } : {}) }), review);
  if (hint?.hint !== undefined) played.summary.designerHint = hint.hint;
  else if (hint?.error !== undefined) played.summary.hintError = hint.error;
  return played;
}
