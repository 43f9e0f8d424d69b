/** Reference solver for cipher decoding: try keys in random order until every word is in the vocabulary. */
import { CIPHER_DECODING_TITLE } from '../families/cipher-decoding.js';
import { randomCandidate, searchProduct } from '../search.js';
import { narrowByHint, singleAnswerSolver } from './solver.js';

const A = 'a'.charCodeAt(0);

function decrypt(words: readonly string[], key: readonly number[], vocabulary?: ReadonlySet<string>): string[] | undefined {
  const out: string[] = [];
  let k = 0;
  for (const word of words) {
    let plain = '';
    for (let i = 0; i < word.length; i++, k++) plain += String.fromCharCode(A + ((word.charCodeAt(i) - A - key[k % key.length]! + 26) % 26));
    if (vocabulary && !vocabulary.has(plain)) return undefined;
    out.push(plain);
  }
  return out;
}

export const cipherDecodingSolver = singleAnswerSolver('cipher-decoding', CIPHER_DECODING_TITLE, (observation, context) => {
  const key = /repeating key of (\d+) letter\(s\), each from a to ([a-z])/.exec(observation);
  const vocabularyLine = /vocabulary: ([a-z, ]+)\./.exec(observation);
  const cipherLine = /Ciphertext: ([a-z ]+)/.exec(observation);
  if (!key || !vocabularyLine || !cipherLine) return undefined;
  const vocabulary = new Set(vocabularyLine[1]!.split(',').map((w) => w.trim()));
  const words = cipherLine[1]!.trim().split(/\s+/);
  const letter = (token: string) => token.charCodeAt(0) - A;
  const base = { lo: 0, hi: letter(key[2]!) };
  const ranges = narrowByHint(Array.from({ length: Number(key[1]) }, () => ({ ...base })), context.hint, (i) => `key letter ${i + 1}`, letter);
  const found = searchProduct(ranges, context.budget, context.random, (k) => decrypt(words, k, vocabulary) !== undefined);
  const guessKey = found ?? randomCandidate(ranges, context.random);
  return decrypt(words, guessKey)!.join(' ');
});
