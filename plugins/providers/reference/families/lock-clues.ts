/** Lock code deduction: find the code consistent with static right-place/wrong-place clues. */
import { atDifficulty, type Family } from '../family.js';
import { singleAnswerProgram } from './program-templates.js';
import { GUESS_FEEDBACK } from './snippets.js';

export const LOCK_CLUES_TITLE = 'Lock code deduction.';

/** [code length, digits 0..K-1] per difficulty: K^length codes. */
const SHAPES: ReadonlyArray<readonly [number, number]> = [
  [2, 7], [2, 10], [3, 6], [3, 7], [3, 9], [4, 6], [4, 8], [4, 9], [5, 7], [5, 8],
];

const BODY = String.raw`
${GUESS_FEEDBACK}
function generate(rng, P) {
  const size = P.digits ** P.length;
  const L = P.length;
  // Every code's digits, most significant first (an odometer: no division per digit).
  const digitsOf = new Uint8Array(size * L);
  const wheel = new Uint8Array(L);
  for (let i = 0; i < size; i++) {
    digitsOf.set(wheel, i * L);
    for (let j = L - 1; j >= 0 && ++wheel[j] === P.digits; j--) wheel[j] = 0;
  }
  const codeAt = (i) => Array.from(digitsOf.subarray(i * L, i * L + L));
  const code = codeAt(randInt(rng, 0, size - 1));
  // The codes still consistent with every clue so far (all of them at first), filtered in place.
  let candidates = new Int32Array(size);
  for (let i = 0; i < size; i++) candidates[i] = i;
  let count = size;
  const wanted = new Int8Array(10);
  const used = new Int8Array(10);
  const clues = [];
  while (count > 1 && clues.length < 30) {
    const guess = codeAt(randInt(rng, 0, size - 1));
    if (guess.join('') === code.join('')) continue;
    const [exact, near] = guessFeedback(code, guess);
    wanted.fill(0);
    for (let j = 0; j < L; j++) wanted[guess[j]]++;
    const kept = new Int32Array(count);
    let n = 0;
    for (let c = 0; c < count; c++) {
      const at = candidates[c] * L;
      let e = 0;
      for (let j = 0; j < L; j++) if (digitsOf[at + j] === guess[j]) e++;
      if (e !== exact) continue;
      // Digits in common, wherever they stand: the sum over digits of the smaller count.
      let common = 0;
      for (let j = 0; j < L; j++) { const d = digitsOf[at + j]; if (used[d] < wanted[d]) { used[d]++; common++; } }
      for (let j = 0; j < L; j++) used[digitsOf[at + j]] = 0;
      if (common - e === near) kept[n++] = candidates[c];
    }
    if (n === count) continue;
    candidates = kept;
    count = n;
    clues.push('  ' + guess.join('') + ': ' + exact + ' right place, ' + near + ' wrong place');
  }
  const hints = [];
  for (let i = 0; i < 2; i++) {
    const [lo, hi] = windowAround(rng, code[i], 0, P.digits - 1, Math.ceil(P.digits / 2));
    hints.push('digit ' + (i + 1) + ' is between ' + lo + ' and ' + hi);
  }
  return {
    observation: '${LOCK_CLUES_TITLE}\n'
      + 'A lock has a ' + P.length + '-digit code; each digit is from 0 to ' + (P.digits - 1) + ' and digits may repeat.\n'
      + 'Each clue is a guess with how many of its digits are right and in the right place, and how many are right but in the wrong place:\n'
      + clues.join('\n') + '\n'
      + 'What is the code? Answer with its ' + P.length + ' digits.',
    answer: code.join(''),
    hint: hints.join('; ') + ' (inclusive).',
  };
}
function isCorrect(answer, task) {
  return asText(answer).replace(/[\s,]/g, '') === task.answer;
}
`;

export const lockClues: Family = {
  name: 'lock-clues',
  description: 'Deduce a lock code from guesses scored right-place/wrong-place; code length and digit range grow with difficulty.',
  multiTurn: false,
  title: LOCK_CLUES_TITLE,
  horizon: () => 1,
  program(difficulty, variant = 0) {
    const [length, digits] = atDifficulty(SHAPES, difficulty);
    return singleAnswerProgram({
      className: 'LockClues',
      family: this.name,
      params: { horizon: 1, variant, length, digits },
      body: BODY,
      customCheck: true,
    });
  },
};
