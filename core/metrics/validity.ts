/**
 * Verifier validity: how many proposed environments the validation gate proved valid.
 */
import type { GateVerdict, ValidityMetrics } from '../results.js';
import { wilsonInterval } from './intervals.js';

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
  return {
    proposed,
    valid,
    rate: proposed === 0 ? 0 : valid / proposed,
    interval: wilsonInterval(valid, proposed),
    unproven,
    reasons,
  };
}
