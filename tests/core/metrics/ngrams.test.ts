import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { distinctN, ngrams, words } from '../../../core/metrics/index.js';

test('words are whitespace tokens, lowercased', () => {
  assert.equal(words('  Move the DISK\tto peg 3\n'), ['move', 'the', 'disk', 'to', 'peg', '3']);
});

test('n-grams of a token sequence', () => {
  assert.equal(ngrams(['a', 'b', 'c'], 2), ['a b', 'b c']);
  assert.equal(ngrams(['a'], 2), []);
  assert.throws(() => ngrams(['a'], 0));
});

test('distinct-n worked by hand', () => {
  // "a b a b": unigrams a, b, a, b -> 2 distinct of 4
  assert.is(distinctN(['a b a b'], 1), 0.5);
  // bigrams "a b", "b a", "a b" -> 2 distinct of 3
  assert.is(distinctN(['a b a b'], 2), 2 / 3);
  // case does not matter: "A b" and "a B" share both unigrams -> 2 of 4
  assert.is(distinctN(['A b', 'a B'], 1), 0.5);
  // bigrams do not cross texts: "x y" and "z w" -> 2 of 2
  assert.is(distinctN(['x y', 'z w'], 2), 1);
});

test('no n-grams at all gives 0', () => {
  assert.is(distinctN([], 1), 0);
  assert.is(distinctN(['one'], 2), 0);
});

test.run();
