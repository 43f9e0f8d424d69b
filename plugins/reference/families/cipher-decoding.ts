/** Cipher decoding: a repeating-key shift cipher over words from a known vocabulary. */
import { atDifficulty, type Family } from '../family.js';
import { singleAnswerProgram } from './program-templates.js';

export const CIPHER_DECODING_TITLE = 'Cipher decoding.';

/** [key length, key alphabet size] per difficulty: size^length keys. */
const KEYS: ReadonlyArray<readonly [number, number]> = [
  [1, 26], [2, 10], [2, 14], [2, 20], [3, 9], [3, 12], [3, 15], [3, 19], [4, 11], [4, 13],
];

const VOCABULARY = [
  'apple', 'river', 'stone', 'cloud', 'tiger', 'green', 'house', 'light', 'music', 'paper',
  'quiet', 'robot', 'sugar', 'table', 'water', 'zebra', 'candle', 'forest', 'garden', 'island',
  'jungle', 'market', 'orange', 'pencil', 'rocket', 'silver', 'winter', 'yellow', 'bridge', 'castle',
  'dragon', 'engine', 'flower', 'hammer', 'kitten', 'ladder', 'mirror', 'needle', 'planet', 'shadow',
];

const BODY = String.raw`
const VOCABULARY = ${JSON.stringify(VOCABULARY)};
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';
function encrypt(words, key) {
  let k = 0;
  return words.map((word) => word.split('').map((ch) => {
    const shifted = (ALPHABET.indexOf(ch) + key[k % key.length]) % 26;
    k++;
    return ALPHABET[shifted];
  }).join('')).join(' ');
}
function generate(rng, P) {
  const key = [];
  for (let i = 0; i < P.keyLength; i++) key.push(randInt(rng, 0, P.keyLetters - 1));
  const words = [];
  for (let i = 0; i < P.words; i++) words.push(pick(rng, VOCABULARY));
  const narrowed = P.keyLength === 1 ? 1 : 2;
  const width = P.keyLength === 1 ? Math.ceil(P.keyLetters / 4) : Math.ceil(P.keyLetters / 2);
  const hints = [];
  for (let i = 0; i < narrowed; i++) {
    const [lo, hi] = windowAround(rng, key[i], 0, P.keyLetters - 1, width);
    hints.push('key letter ' + (i + 1) + ' is between ' + ALPHABET[lo] + ' and ' + ALPHABET[hi]);
  }
  return {
    observation: '${CIPHER_DECODING_TITLE}\n'
      + 'A message of ' + P.words + ' words was encrypted with a repeating key of ' + P.keyLength + ' letter(s), each from a to '
      + ALPHABET[P.keyLetters - 1] + '. The k-th letter of the message (spaces skipped, counting from 0) is shifted forward in the alphabet '
      + 'by the position of key letter k mod ' + P.keyLength + ' (a=0, b=1, ...), wrapping from z to a. Spaces are kept.\n'
      + 'Every word of the message comes from this vocabulary: ' + shuffle(rng, VOCABULARY).join(', ') + '.\n'
      + 'Ciphertext: ' + encrypt(words, key) + '\n'
      + 'What is the message? Answer with its words separated by single spaces.',
    answer: words.join(' '),
    hint: hints.join('; ') + ' (inclusive).',
  };
}
`;

export const cipherDecoding: Family = {
  name: 'cipher-decoding',
  skill: 'Pattern Recognition',
  description: 'Decrypt a repeating-key shift cipher whose words come from a given vocabulary; key length and key alphabet grow with difficulty.',
  multiTurn: false,
  title: CIPHER_DECODING_TITLE,
  horizon: () => 1,
  program(difficulty, variant = 0) {
    const [keyLength, keyLetters] = atDifficulty(KEYS, difficulty);
    return singleAnswerProgram({
      className: 'CipherDecoding',
      family: this.name,
      params: { horizon: 1, variant, keyLength, keyLetters, words: keyLength <= 2 ? 3 : 4 },
      body: BODY,
    });
  },
};
