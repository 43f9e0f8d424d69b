/** Reference solver for lock clues: try codes in random order until one fits every clue. */
import { LOCK_CLUES_TITLE } from '../families/lock-clues.js';
import { randomCandidate, searchProduct } from '../search.js';
import { consistentWith, readScoredGuesses } from './feedback.js';
import { narrowByHint, singleAnswerSolver } from './solver.js';

export const lockCluesSolver = singleAnswerSolver('lock-clues', LOCK_CLUES_TITLE, (observation, context) => {
  const shape = /a (\d+)-digit code; each digit is from 0 to (\d+)/.exec(observation);
  if (!shape) return undefined;
  const clues = readScoredGuesses(observation);
  const base = { lo: 0, hi: Number(shape[2]) };
  const ranges = narrowByHint(Array.from({ length: Number(shape[1]) }, () => ({ ...base })), context.hint, (i) => `digit ${i + 1}`);
  const found = searchProduct(ranges, context.budget, context.random, (code) => consistentWith(code, clues));
  return (found ?? randomCandidate(ranges, context.random)).join('');
});
