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
  const K = P.digits;
  const L = P.length;
  const size = K ** L;
  // A code is its index written in base K, most significant digit first. The index splits into
  // a high part (the first digits) and a low part (the last L >> 1): a clue's right-place count
  // over a code is the sum of two small tables, its common-digit count one look-up in a third,
  // so the thousands of codes a clue is checked against cost a few operations each.
  const lowLen = L >> 1;
  const highLen = L - lowLen;
  const lowSize = K ** lowLen;
  const highSize = K ** highLen;
  const codeAt = (i) => {
    const digits = new Array(L);
    for (let j = L - 1; j >= 0; j--) { digits[j] = i % K; i = (i - digits[j]) / K; }
    return digits;
  };
  const partDigits = (len, count) => {
    const table = new Uint8Array(count * len);
    const wheel = new Uint8Array(len);
    for (let i = 0; i < count; i++) {
      for (let j = 0; j < len; j++) table[i * len + j] = wheel[j];
      for (let j = len - 1; j >= 0 && ++wheel[j] === K; j--) wheel[j] = 0;
    }
    return table;
  };
  const high = { len: highLen, count: highSize, offset: 0, digits: partDigits(highLen, highSize), exact: new Int8Array(highSize), id: new Int16Array(highSize) };
  const low = { len: lowLen, count: lowSize, offset: highLen, digits: partDigits(lowLen, lowSize), exact: new Int8Array(lowSize), id: new Int16Array(lowSize) };
  const slot = new Int8Array(10);
  const wanted = new Int8Array(L);
  const counts = new Int8Array(L);
  // Per part and guess: each part value's right-place count, and an id for its counts of the
  // guess's distinct digits (parts with the same counts share an id); returns the ids' counts.
  const tabulate = (part, guess, r) => {
    const base = part.len + 1;
    const idOf = new Int16Array(base ** r).fill(-1);
    const vectors = [];
    for (let v = 0; v < part.count; v++) {
      const at = v * part.len;
      let e = 0;
      for (let k = 0; k < r; k++) counts[k] = 0;
      for (let j = 0; j < part.len; j++) {
        const d = part.digits[at + j];
        if (d === guess[part.offset + j]) e++;
        if (slot[d] >= 0) counts[slot[d]]++;
      }
      let key = 0;
      for (let k = r - 1; k >= 0; k--) key = key * base + counts[k];
      if (idOf[key] < 0) { idOf[key] = vectors.length; vectors.push(counts.slice(0, r)); }
      part.exact[v] = e;
      part.id[v] = idOf[key];
    }
    return vectors;
  };
  const code = codeAt(randInt(rng, 0, size - 1));
  // The codes still consistent with every clue so far (all of them at first), in index order.
  let candidates = null;
  let count = size;
  const clues = [];
  while (count > 1 && clues.length < 30) {
    const guess = codeAt(randInt(rng, 0, size - 1));
    if (guess.join('') === code.join('')) continue;
    const [exact, near] = guessFeedback(code, guess);
    slot.fill(-1);
    let r = 0;
    for (let j = 0; j < L; j++) {
      if (slot[guess[j]] < 0) { slot[guess[j]] = r; wanted[r++] = 0; }
      wanted[slot[guess[j]]]++;
    }
    const highVectors = tabulate(high, guess, r);
    const lowVectors = tabulate(low, guess, r);
    // Digits in common, wherever they stand: the sum over digits of the smaller count, worked
    // out once per pair of part ids a code that has the right-place count needs.
    const nLow = lowVectors.length;
    const commonOf = new Int8Array(highVectors.length * nLow).fill(-1);
    const common = (a, b) => {
      let sum = 0;
      const x = highVectors[a];
      const y = lowVectors[b];
      for (let k = 0; k < r; k++) { const c = x[k] + y[k]; sum += c < wanted[k] ? c : wanted[k]; }
      return (commonOf[a * nLow + b] = sum);
    };
    const highExact = high.exact;
    const highId = high.id;
    const lowExact = low.exact;
    const lowId = low.id;
    const kept = new Int32Array(count);
    let n = 0;
    if (candidates === null) {
      for (let h = 0, i = 0; h < highSize; h++) {
        const eh = highExact[h];
        const a = highId[h];
        const row = a * nLow;
        for (let l = 0; l < lowSize; l++, i++) {
          const e = eh + lowExact[l];
          if (e !== exact) continue;
          const b = lowId[l];
          let c = commonOf[row + b];
          if (c < 0) c = common(a, b);
          if (c - e === near) kept[n++] = i;
        }
      }
    } else {
      for (let m = 0; m < count; m++) {
        const i = candidates[m];
        const l = i % lowSize;
        const h = (i - l) / lowSize;
        const e = highExact[h] + lowExact[l];
        if (e !== exact) continue;
        const a = highId[h];
        const b = lowId[l];
        let c = commonOf[a * nLow + b];
        if (c < 0) c = common(a, b);
        if (c - e === near) kept[n++] = i;
      }
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
  skill: 'Logical Deduction',
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
