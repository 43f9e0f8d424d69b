import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { averageLinkageClusters, bleuDistances, repetitionPenalties, sentenceBleu } from '../../../core/selfplay/repetition-penalty.js';

const near = (actual: number, expected: number, what: string): void =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: expected ${expected}, got ${actual}`);

test('sentence BLEU (NLTK, method 1 smoothing) by hand', () => {
  near(sentenceBleu('a b c d', 'a b c d'), 1, 'identical');
  near(sentenceBleu('a b c d', 'w x y z'), 0, 'no unigram in common');
  // p1 = 4/5, p2 = 3/4, p3 = 2/3, p4 = 1/2, same length (BP 1): (4/5·3/4·2/3·1/2)^(1/4) = 0.2^(1/4)
  near(sentenceBleu('a b c d e', 'a b c d f'), 0.2 ** 0.25, 'one word differs');
  // hypothesis 'a b' against 'a b c d': p1 = 1, p2 = 1, p3 = p4 = 0.1/1 (smoothed); BP = exp(1 − 4/2)
  near(sentenceBleu('a b', 'a b c d'), Math.exp(-1) * (0.1 * 0.1) ** 0.25, 'short hypothesis');
});

test('average-linkage clusters merge below distance 0.5 only', () => {
  // 0–1 at 0.2, 2 far from both (0.9, 0.7): average linkage of {0,1} to 2 is 0.8.
  const d = [
    [0, 0.2, 0.9],
    [0.2, 0, 0.7],
    [0.9, 0.7, 0],
  ];
  assert.equal(averageLinkageClusters(d), [0, 0, 1]);
  // With 2 at 0.4 and 0.7 from them, the average (0.55) stays at or above 0.5: not merged.
  assert.equal(averageLinkageClusters([[0, 0.2, 0.4], [0.2, 0, 0.7], [0.4, 0.7, 0]]), [0, 0, 1]);
  // At 0.3 and 0.6 the average is 0.45: merged.
  assert.equal(averageLinkageClusters([[0, 0.2, 0.3], [0.2, 0, 0.6], [0.3, 0.6, 0]]), [0, 0, 0]);
  near(bleuDistances(['a b c d', 'a b c d'])[0]![1]!, 0, 'distance of identical tasks');
});

test('penalty = size of the task\'s cluster / round size', () => {
  const tasks = ['Compute 12 times 34 now please', 'Compute 12 times 34 now please', 'Sort these words alphabetically: pear fig', 'Find the hidden number between 1 and 500'];
  assert.equal(repetitionPenalties(tasks), [0.5, 0.5, 0.25, 0.25]);
  assert.equal(repetitionPenalties([]), []);
});

test.run();
