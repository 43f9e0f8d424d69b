/** Reference solver for modular equations: try values of x in random order. */
import { MODULAR_EQUATION_TITLE } from '../families/modular-equation.js';
import { randomCandidate, searchProduct } from '../search.js';
import { narrowByHint, singleAnswerSolver } from './solver.js';

export const modularEquationSolver = singleAnswerSolver('modular-equation', MODULAR_EQUATION_TITLE, (observation, context) => {
  const m = /\((\d+) \* x \+ (\d+)\) mod (\d+) = (\d+)/.exec(observation);
  if (!m) return undefined;
  const [a, b, modulus, c] = m.slice(1).map(Number) as [number, number, number, number];
  const ranges = narrowByHint([{ lo: 0, hi: modulus - 1 }], context.hint, () => 'x');
  const found = searchProduct(ranges, context.budget, context.random, ([x]) => (a * x! + b) % modulus === c);
  return String((found ?? randomCandidate(ranges, context.random))[0]);
});
