/** Mastermind: deduce a secret code from right-place/wrong-place feedback over several guesses. */
import { atDifficulty, clampDifficulty, type Family } from '../family.js';
import { multiTurnProgram } from './program-templates.js';
import { GUESS_FEEDBACK } from './snippets.js';

export const MASTERMIND_TITLE = 'Mastermind.';

const HORIZONS = [6, 8, 8, 10, 12, 12, 16, 20, 24, 32];
/** [code length, digits 1..K] per difficulty: K^length codes. */
const SHAPES: ReadonlyArray<readonly [number, number]> = [
  [3, 4], [3, 5], [3, 6], [4, 5], [4, 6], [4, 7], [4, 8], [5, 6], [5, 7], [5, 8],
];

const BODY = String.raw`
${GUESS_FEEDBACK}
function generate(rng, P) {
  const secret = [];
  for (let i = 0; i < P.length; i++) secret.push(randInt(rng, 1, P.digits));
  return { secret, history: [] };
}
function secretExample() {
  const digits = [];
  for (let i = 0; i < P.length; i++) digits.push(1 + (i % P.digits));
  return digits.join(' ');
}
function render(state) {
  const past = state.history.length === 0
    ? '  (no guesses yet)'
    : state.history.map((h) => '  ' + h.guess + ': ' + h.exact + ' right place, ' + h.near + ' wrong place').join('\n');
  return '${MASTERMIND_TITLE}\n'
    + 'Guess the secret code of ' + P.length + ' digits, each from 1 to ' + P.digits + ' (digits may repeat).\n'
    + 'After each guess you learn how many digits are right and in the right place, and how many are right but in the wrong place.\n'
    + 'Guesses so far:\n' + past + '\n'
    + 'Command: a guess of ' + P.length + ' digits, e.g. \\boxed{' + secretExample() + '}.';
}
function apply(state, command) {
  const digits = asText(command).replace(/[^0-9]/g, '').split('').map(Number);
  if (digits.length !== P.length || digits.some((d) => d < 1 || d > P.digits)) {
    return { message: 'Invalid guess "' + asText(command).slice(0, 40) + '": give ' + P.length + ' digits from 1 to ' + P.digits + '.' };
  }
  const [exact, near] = guessFeedback(state.secret, digits);
  state.history.push({ guess: digits.join(''), exact, near });
  if (exact === P.length) return { message: 'Guess ' + digits.join('') + ' is the secret code: you win!', won: true };
  return { message: 'Guess ' + digits.join('') + ': ' + exact + ' right place, ' + near + ' wrong place.' };
}
function plan(state) {
  return [state.secret.join('')];
}
function hintOf(state) {
  const shown = Math.ceil(P.length / 3);
  const parts = [];
  for (let i = 0; i < shown; i++) parts.push('digit ' + (i + 1) + ' is ' + state.secret[i]);
  return 'Part of the secret code: ' + parts.join(', ') + '.';
}
`;

/** The hardest shape (difficulty row) a consistent-guess player can handle within a horizon. */
function hardestRowForHorizon(horizon: number): number {
  if (horizon < 8) return 2;
  if (horizon < 12) return 4;
  if (horizon < 16) return 6;
  return 10;
}

export const mastermind: Family = {
  name: 'mastermind',
  skill: 'Logical Deduction',
  description: 'Guess a secret code from right-place/wrong-place feedback; code length, digit range and guesses allowed grow with difficulty.',
  multiTurn: true,
  minHorizon: 6,
  title: MASTERMIND_TITLE,
  horizon: (difficulty) => atDifficulty(HORIZONS, difficulty),
  program(difficulty, variant = 0) {
    return this.programForHorizon!(this.horizon(difficulty), difficulty, variant);
  },
  programForHorizon(horizon, difficulty, variant = 0) {
    const h = Math.max(1, Math.round(horizon));
    const [length, digits] = atDifficulty(SHAPES, Math.min(clampDifficulty(difficulty), hardestRowForHorizon(h)));
    return multiTurnProgram({
      className: 'Mastermind',
      family: this.name,
      params: { horizon: h, variant, length, digits },
      body: BODY,
    });
  },
};
