/** Modular equation: find x with (A*x + B) mod M = C, M prime; difficulty scales M. */
import { atDifficulty, type Family } from '../family.js';
import { singleAnswerProgram } from './program-templates.js';

export const MODULAR_EQUATION_TITLE = 'Modular equation.';

/** Smallest modulus per difficulty (the program takes the next prime). */
const MIN_MODULUS = [50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600];

const BODY = String.raw`
function isPrime(n) {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}
function generate(rng, P) {
  let m = P.minModulus;
  while (!isPrime(m)) m++;
  const a = randInt(rng, 2, m - 1);
  const b = randInt(rng, 0, m - 1);
  const x = randInt(rng, 0, m - 1);
  const c = (a * x + b) % m;
  const [lo, hi] = windowAround(rng, x, 0, m - 1, Math.ceil(m / 4));
  return {
    observation: '${MODULAR_EQUATION_TITLE}\n'
      + 'Find the integer x with 0 <= x <= ' + (m - 1) + ' such that (' + a + ' * x + ' + b + ') mod ' + m + ' = ' + c + '.\n'
      + 'The modulus ' + m + ' is prime, so exactly one such x exists.',
    answer: String(x),
    hint: 'x lies between ' + lo + ' and ' + hi + ' (inclusive).',
  };
}
`;

export const modularEquation: Family = {
  name: 'modular-equation',
  skill: 'Mathematical Reasoning',
  description: 'Solve a linear congruence (A*x + B) mod M = C for x; the prime modulus grows with difficulty.',
  multiTurn: false,
  title: MODULAR_EQUATION_TITLE,
  horizon: () => 1,
  program(difficulty, variant = 0) {
    return singleAnswerProgram({
      className: 'ModularEquation',
      family: this.name,
      params: { horizon: 1, variant, minModulus: atDifficulty(MIN_MODULUS, difficulty) },
      body: BODY,
    });
  },
};
