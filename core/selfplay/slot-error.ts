/**
 * A self-play design slot that errored (results.ts's SlotError): made from the error that a
 * design, repair, review or hint call ended with.
 */
import type { SlotError } from '../results/results.js';
import { errorClassOf, errorText } from '../run/error-class.js';

export type { SlotError };

export const isSlotError = (x: object): x is SlotError => 'stage' in x && 'errorClass' in x && !('verdict' in x);

export function slotError(id: string, round: number, stage: SlotError['stage'], error: unknown): SlotError {
  return { id, round, stage, errorClass: errorClassOf(error), message: errorText(error) };
}
