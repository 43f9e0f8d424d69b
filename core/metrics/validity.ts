/**
 * Verifier validity: how many proposed environments the validation gate proved valid, under the
 * reading that decided what was played, and under each of its two readings side by side
 * (spade: exactly SPADE's own checks; strict: SPADE's and ours).
 */
import type { GateVerdict, ReadingValidity, ReadingVerdict, ValidityMetrics } from '../results/results.js';
import { wilsonInterval } from './intervals.js';
import { DEFAULTS } from '../config/options.js';

/** Validity under one reading: valid, unproven, their rates, and the reason codes of the rest. */
export function readingValidity(readings: readonly ReadingVerdict[]): ReadingValidity {
  let valid = 0;
  let unproven = 0;
  const reasons: Record<string, number> = {};
  for (const { verdict, reason } of readings) {
    if (verdict === 'valid') valid++;
    else if (verdict === 'unproven') unproven++;
    else reasons[reason ?? 'unknown'] = (reasons[reason ?? 'unknown'] ?? 0) + 1;
  }
  const proposed = readings.length;
  return {
    valid,
    unproven,
    rate: proposed === 0 ? 0 : valid / proposed,
    interval: wilsonInterval(valid, proposed),
    playedRate: proposed === 0 ? 0 : (valid + unproven) / proposed,
    reasons,
  };
}

/** What a slot's summary says of its programs: the final one's verdict and review, the rejected ones before it. */
interface SlotRecord {
  verdict: string;
  repairs?: readonly unknown[];
  review?: { accepted: boolean };
}

/** The slot's final program was proved valid and the reviewer, if any, did not reject it. */
export const slotPassed = (s: SlotRecord): boolean => s.verdict === 'valid' && s.review?.accepted !== false;

/**
 * Validity of the first drafts: a slot counts as valid on its first try when its program is
 * valid (and not rejected by the LLM reviewer) and no other program of the slot came before it. The rate is null when nothing was proposed.
 */
export function firstTryValidity(slots: readonly SlotRecord[]): NonNullable<ValidityMetrics['firstTry']> {
  const valid = slots.filter((s) => slotPassed(s) && !s.repairs?.length).length;
  return { proposed: slots.length, valid, rate: slots.length ? valid / slots.length : null };
}

/**
 * Validity per design slot (SPADE's pass rate: a slot passes when it ends with a valid program,
 * whatever it took) and per program (every program the slots went through: a slot that passed
 * has one valid program, every earlier one of it was rejected). Unproven programs count as not
 * valid, as in validityMetrics; under --gate spade there are none. Rates are null with no slot.
 */
export function slotValidity(slots: readonly SlotRecord[]): Pick<ValidityMetrics, 'perSlot' | 'perProgram'> {
  const valid = slots.filter(slotPassed).length;
  const programs = slots.reduce((sum, s) => sum + 1 + (s.repairs?.length ?? 0), 0);
  return {
    perSlot: { slots: slots.length, valid, rate: slots.length ? valid / slots.length : null, interval: wilsonInterval(valid, slots.length) },
    perProgram: { programs, valid, rate: programs ? valid / programs : null, interval: wilsonInterval(valid, programs) },
  };
}

/**
 * `valid` counts proven environments only; `unproven` ones (they load and keep the contract,
 * but nothing proved them winnable) are counted apart. `reasons` counts the reason code of every
 * verdict that is not valid (including `unproven`).
 */
export function validityMetrics(verdicts: readonly GateVerdict[]): ValidityMetrics {
  let valid = 0;
  let unproven = 0;
  const reasons: Record<string, number> = {};
  for (const { verdict, reason } of verdicts) {
    if (verdict === 'valid') {
      valid++;
      continue;
    }
    if (verdict === 'unproven') unproven++;
    const code = reason ?? (verdict === 'unproven' ? 'unproven' : 'unknown');
    reasons[code] = (reasons[code] ?? 0) + 1;
  }
  const proposed = verdicts.length;
  const metrics: ValidityMetrics = {
    proposed,
    valid,
    rate: proposed === 0 ? 0 : valid / proposed,
    interval: wilsonInterval(valid, proposed),
    unproven,
    reasons,
  };
  // Both readings, when every verdict has them (verdicts journaled before there were two do not).
  if (proposed > 0 && verdicts.every((v) => v.readings)) {
    metrics.gate = verdicts[0]!.gate ?? DEFAULTS.gate;
    const spade = readingValidity(verdicts.map((v) => v.readings!.spade));
    const strict = readingValidity(verdicts.map((v) => v.readings!.strict));
    const disagreements = verdicts.filter((v) => v.readings!.spade.verdict !== 'invalid' && v.readings!.strict.verdict === 'invalid');
    const strictReasons: Record<string, number> = {};
    for (const v of disagreements) strictReasons[v.readings!.strict.reason ?? 'unknown'] = (strictReasons[v.readings!.strict.reason ?? 'unknown'] ?? 0) + 1;
    metrics.readings = { spade, strict, spadeOnly: { count: disagreements.length, reasons: strictReasons } };
  }
  return metrics;
}
