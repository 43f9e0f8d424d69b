/**
 * One design slot of a self-play round, when the designer can repair programs, an LLM
 * reviewer reviews them, or the designer model writes hints: gate the program (no play yet);
 * while the gate rejects it and repairs are left, ask the designer for a repair with the gate's
 * reason, and gate that; then the optional review; then, for an accepted program without hint(),
 * the designer model's hint; then play it, reusing its gate verdict. The slot's summary records
 * the rejected attempts (`repairs`), the review (`review`) and the hint (`designerHint`), apart
 * from the gate's verdict of the final program.
 *
 * A repair, review or hint call that fails (past the provider's retries) makes the slot errored
 * (a SlotError, journaled so a resumed run keeps it unless --retry-errored); one cut by the run's
 * stop rejects, and nothing of it is journaled.
 */
import type { RepairRecord, ReviewRecord } from '../results/results.js';
import type { Designer, EnvironmentProgram } from '../types.js';
import type { Evaluation, EvaluationContext, Evaluator } from '../run/evaluate.js';
import type { EnvironmentReviewer } from '../roles/llm-reviewer.js';
import type { HintWriter } from '../roles/llm-hint.js';
import type { HintRecord } from '../results/journal.js';
import { withKnownVerdicts } from '../results/resume.js';
import { deriveSeed } from '../run/random.js';
import { NoHintError } from '../roles/llm-hint.js';
import { slotError, type SlotError } from './slot-error.js';

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
  /** The hint writer writes every accepted program's hint, hint() or not (SPADE's designer protocol). */
  alwaysHint?: boolean;
  /** A hint the writer has just written, or why the model gave none (to journal it; a resumed run reuses it). */
  onHint?: (program: EnvironmentProgram, hint: HintRecord) => void;
  /** The slot has just errored (to journal it and count it). */
  onErrored?: (error: SlotError) => void;
}

/** Key of a slot's repair in DesignSlotOptions.knownRepairs. */
export const repairKey = (originalId: string, attempt: number): string => `${originalId}#${attempt}`;

/** Gate, repair (bounded), review, then play one slot's program; a SlotError when one of its calls failed. */
export async function evaluateDesignSlot(program: EnvironmentProgram, options: DesignSlotOptions): Promise<Evaluation | SlotError> {
  const { context, designer } = options;
  const kept = context.prior?.slotError(context.suite, program.id);
  if (kept) return kept;
  /** A call of the slot failed: cut by the run's stop (no result: rethrown), or errored. */
  const failed = (stage: SlotError['stage'], error: unknown): SlotError => {
    if (context.signal?.aborted) throw error;
    const e = slotError(program.id, options.round, stage, error);
    options.onErrored?.(e);
    return e;
  };
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
    // A slot cut by the run's stop has no result: a resumed run does its work.
    context.signal?.throwIfAborted();
    if (attempt > options.repairs || !designer.repair) return finish(gated);
    const failedCheck = gated.verdict.checks.find((c) => !c.ok);
    repairs.push({ id: current.id, reason: gated.verdict.reason ?? 'invalid', ...(failedCheck?.detail ? { detail: failedCheck.detail } : {}) });
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
      } catch (error) {
        return failed('repair', error);
      }
      options.onRepaired?.(repaired);
    }
    current = repaired;
    gated = await options.evaluate(current, taskSeed(current), { ...context, validateOnly: true });
  }
  context.signal?.throwIfAborted();
  let review: ReviewRecord | undefined;
  if (options.reviewer) {
    review = context.prior?.review(context.suite, current.id);
    if (!review) {
      try {
        review = await options.reviewer.review(current, gated.verdict, context.signal);
      } catch (error) {
        return failed('review', error);
      }
      options.onReviewed?.(current, review);
    }
    if (!review.accepted) return finish(gated, review);
  }
  if (context.validateOnly) return finish(gated, review);
  let hint: HintRecord | undefined;
  if (options.hintWriter && (options.alwaysHint || !gated.verdict.capabilities?.hint)) {
    hint = context.prior?.hint(context.suite, current.id);
    if (!hint) {
      try {
        hint = { hint: await options.hintWriter.write(current, context.signal, gated.verdict.gameType), by: options.hintWriter.id };
      } catch (error) {
        // The model answered without a hint: played without one. Its call failed: the slot errored.
        if (!(error instanceof NoHintError) || context.signal?.aborted) return failed('hint', error);
        hint = { error: error.message, by: options.hintWriter.id };
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
