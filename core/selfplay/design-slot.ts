/**
 * One design slot of a self-play round, when the designer can repair programs, the slot may be
 * designed afresh, an LLM reviewer reviews them, or the designer model writes hints: gate the
 * program (no play yet); while the gate rejects it and repairs are left, ask the designer for a
 * repair with the gate's reason, and gate that; then the optional review; a program still
 * rejected (by the gate or the review) while designs are left (`slotAttempts`, SPADE's
 * resampling: up to 5 designs of a slot) gives way to a fresh design of the slot, which gets its
 * own repairs; then, for an accepted program without hint(), the designer model's hint; then
 * play it, reusing its gate verdict. The slot's summary records the rejected programs
 * (`repairs`: each with its reason, and `resampled` when a fresh design followed it), the review
 * (`review`) and the hint (`designerHint`), apart from the gate's verdict of the final program.
 *
 * A repair, fresh design, review or hint call that fails (past the provider's retries) makes the
 * slot errored (a SlotError, journaled so a resumed run keeps it unless --retry-errored); one cut
 * by the run's stop rejects, and nothing of it is journaled.
 */
import type { RepairRecord, ReviewRecord } from '../results/results.js';
import type { Designer, DesignRequest, EnvironmentProgram } from '../types.js';
import type { Evaluation, EvaluationContext, Evaluator } from '../run/evaluate.js';
import type { EnvironmentReviewer } from '../roles/llm-reviewer.js';
import type { HintWriter } from '../roles/llm-hint.js';
import type { HintRecord } from '../results/journal.js';
import { withKnownVerdicts } from '../results/resume.js';
import { deriveSeed } from '../run/random.js';
import { NoHintError } from '../roles/llm-hint.js';
import { slotError, type SlotError } from './slot-error.js';
import { SandboxError } from '../errors.js';

export interface DesignSlotOptions {
  designer: Designer;
  evaluate: Evaluator;
  context: EvaluationContext;
  round: number;
  /** Most repairs per design of the slot. */
  repairs: number;
  /** Designs the slot may take while its program is rejected (default 1: no fresh design). */
  slotAttempts?: number;
  /**
   * A fresh design of the slot (its `draft`-th, from 2), when the slot may take more than one: a
   * new sample of the same request. It throws when the designer's call failed.
   */
  redesign?: (draft: number) => Promise<EnvironmentProgram>;
  reviewer?: EnvironmentReviewer;
  /** Repairs and fresh designs journaled by an earlier invocation, by `${originalId}#${attempt}`. */
  knownRepairs?: ReadonlyMap<string, EnvironmentProgram>;
  /** A repair or fresh design the designer has just written (to journal it). */
  onRepaired?: (program: EnvironmentProgram) => void;
  /** A review the reviewer has just given (to journal it; a resumed run takes it from the journal). */
  onReviewed?: (program: EnvironmentProgram, review: ReviewRecord) => void;
  /** Writes a hint for an accepted program without hint() (the designer model). */
  hintWriter?: HintWriter;
  /** The hint writer writes every accepted program's hint, hint() or not (SPADE's designer protocol). */
  alwaysHint?: boolean;
  /** A hint the writer has just written, or why the model gave none (to journal it; a resumed run reuses it). */
  onHint?: (program: EnvironmentProgram, hint: HintRecord) => void;
  /**
   * Apply SPADE's f-string brace repair (the end of its extraction) to each Python program of
   * the slot before it is gated, in the Python sandbox; the repaired code is the program. Under
   * `--gate spade`.
   */
  repairBraces?: boolean;
  /** The slot has just errored (to journal it and count it). */
  onErrored?: (error: SlotError) => void;
}

/** Key of a slot's repair in DesignSlotOptions.knownRepairs. */
export const repairKey = (originalId: string, attempt: number): string => `${originalId}#${attempt}`;

/**
 * A fresh sample of slot `index` of a round's design request: the same request for that slot
 * alone, with a seed of its own for each draft (a new reply, not the cached one; for a grounded
 * designer a new document, as SPADE draws one per attempt).
 */
export async function redesignSlot(designer: Designer, request: DesignRequest, index: number, id: string, draft: number): Promise<EnvironmentProgram> {
  const designed = await designer.design({ ...request, slots: [index], seed: deriveSeed(request.seed, 'redesign', index, draft) });
  const fresh = designed.find((p) => p.id === id) ?? (designed.length === 1 ? designed[0] : undefined);
  if (!fresh) throw new Error(`the designer gave no program for slot ${id} when asked to design it again`);
  return fresh;
}

/**
 * `program` with SPADE's f-string brace repair applied by the Python sandbox (the program as it
 * is when it is not Python, the sandbox cannot repair, or the repair changes nothing or fails:
 * the gate then judges the code as written). A repaired program says so in meta.params.
 */
export async function withBracesRepaired(program: EnvironmentProgram, context: Pick<EvaluationContext, 'sandboxes' | 'limits'>): Promise<EnvironmentProgram> {
  if (program.language !== 'python' || program.designError) return program;
  let source: string;
  try {
    const sandbox = await context.sandboxes.get('python', program.pythonPath);
    if (!sandbox.spadeRepairBraces) return program;
    source = await sandbox.spadeRepairBraces(program.source, context.limits);
  } catch (error) {
    if (error instanceof SandboxError) return program;
    throw error;
  }
  if (source === program.source) return program;
  return { ...program, source, meta: { ...program.meta, params: { ...program.meta?.params, bracesRepaired: true } } };
}

/** A fresh design of a slot, named and marked as one of its programs (`r0-e3-s2` for its second design). */
export function asRedesign(fresh: EnvironmentProgram, originalId: string, draft: number, attempt: number): EnvironmentProgram {
  const params: Record<string, unknown> = { ...fresh.meta?.params, repairOf: originalId, repairAttempt: attempt, redesign: draft };
  return { ...fresh, id: `${originalId}-s${draft}`, meta: { ...fresh.meta, params } };
}

/** Gate, repair (bounded), review, design afresh (bounded), then play one slot's program; a SlotError when one of its calls failed. */
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
  const gate = (p: EnvironmentProgram): Promise<Evaluation> => options.evaluate(p, taskSeed(p), { ...context, validateOnly: true });
  const repaired = (p: EnvironmentProgram): Promise<EnvironmentProgram> => (options.repairBraces ? withBracesRepaired(p, context) : Promise.resolve(p));
  const repairs: RepairRecord[] = [];
  const finish = (evaluation: Evaluation, review?: ReviewRecord): Evaluation => {
    if (repairs.length) evaluation.summary.repairs = repairs;
    if (review) evaluation.summary.review = review;
    return evaluation;
  };
  const drafts = options.redesign ? Math.max(1, options.slotAttempts ?? 1) : 1;
  /** Programs of the slot after its first, repairs and fresh designs alike: the key of each in knownRepairs. */
  let attempt = 0;
  let current = await repaired(program);
  let gated = await gate(current);
  let review: ReviewRecord | undefined;
  for (let draft = 1; ; draft++) {
    if (draft > 1) {
      context.signal?.throwIfAborted();
      attempt++;
      let fresh = options.knownRepairs?.get(repairKey(program.id, attempt));
      if (!fresh) {
        try {
          fresh = await options.redesign!(draft);
        } catch (error) {
          return failed('design', error);
        }
        if (fresh.designError) {
          const e: SlotError = { id: program.id, round: options.round, stage: 'design', ...fresh.designError };
          options.onErrored?.(e);
          return e;
        }
        fresh = asRedesign(fresh, program.id, draft, attempt);
        options.onRepaired?.(fresh);
      }
      current = await repaired(fresh);
      review = undefined;
      gated = await gate(current);
    }
    for (let repair = 1; gated.verdict.verdict === 'invalid' && repair <= options.repairs && designer.repair; repair++) {
      // A slot cut by the run's stop has no result: a resumed run does its work.
      context.signal?.throwIfAborted();
      const failedCheck = gated.verdict.checks.find((c) => !c.ok);
      repairs.push({ id: current.id, reason: gated.verdict.reason ?? 'invalid', ...(failedCheck?.detail ? { detail: failedCheck.detail } : {}) });
      attempt++;
      let fixed = options.knownRepairs?.get(repairKey(program.id, attempt));
      if (!fixed) {
        try {
          fixed = await designer.repair(current, gated.verdict, {
            round: options.round,
            attempt,
            originalId: program.id,
            seed: deriveSeed(context.runSeed, 'repair', program.id, attempt),
            signal: context.signal,
          });
        } catch (error) {
          return failed('repair', error);
        }
        options.onRepaired?.(fixed);
      }
      current = await repaired(fixed);
      gated = await gate(current);
    }
    context.signal?.throwIfAborted();
    const last = draft >= drafts;
    if (gated.verdict.verdict === 'invalid') {
      if (last) return finish(gated);
      const failedCheck = gated.verdict.checks.find((c) => !c.ok);
      repairs.push({ id: current.id, reason: gated.verdict.reason ?? 'invalid', ...(failedCheck?.detail ? { detail: failedCheck.detail } : {}), resampled: true });
      continue;
    }
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
      if (!review.accepted) {
        if (last) return finish(gated, review);
        // SPADE's validator rejects by sampling the slot again.
        repairs.push({ id: current.id, reason: 'review', detail: review.reason, resampled: true });
        continue;
      }
    }
    break;
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
