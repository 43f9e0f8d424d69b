/** Reference solver for sequence completion: try coefficient tuples in random order. */
import { SEQUENCE_COMPLETION_TITLE } from '../families/sequence-completion.js';
import { randomCandidate, searchProduct } from '../search.js';
import { narrowByHint, singleAnswerSolver } from './solver.js';

function nextTerm(terms: readonly number[], end: number, c: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < c.length; i++) sum += c[i]! * terms[end - 1 - i]!;
  return ((sum % 1000) + 1000) % 1000;
}

export const sequenceCompletionSolver = singleAnswerSolver('sequence-completion', SEQUENCE_COMPLETION_TITLE, (observation, context) => {
  const rule = /each of ([c\d, ]+) is an integer from (-?\d+) to (-?\d+)/.exec(observation);
  const listed = /Terms: ([\d, ]+)\./.exec(observation);
  if (!rule || !listed) return undefined;
  const order = rule[1]!.split(',').length;
  const terms = listed[1]!.split(',').map((t) => Number(t.trim()));
  const base = { lo: Number(rule[2]), hi: Number(rule[3]) };
  const ranges = narrowByHint(Array.from({ length: order }, () => ({ ...base })), context.hint, (i) => `c${i + 1}`);
  const found = searchProduct(ranges, context.budget, context.random, (c) => {
    for (let end = order; end < terms.length; end++) if (nextTerm(terms, end, c) !== terms[end]) return false;
    return true;
  });
  const coefficients = found ?? randomCandidate(ranges, context.random);
  return String(nextTerm(terms, terms.length, coefficients));
});
