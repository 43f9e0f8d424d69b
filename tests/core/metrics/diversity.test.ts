import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { distinctN, diversityMetrics, featureVendi, prepareFeatures, preparedVendi } from '../../../core/metrics/index.js';
import { distinct2Of, textFeatureIds, textFeatures } from '../../../core/metrics/diversity.js';
import { prepareIdBags } from '../../../core/metrics/feature-vendi.js';
import { mulberry32 } from '../../../core/run/random.js';

const close = (actual: number, expected: number, tolerance = 1e-9) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);

test('the same task repeated is one effective task', () => {
  const metrics = diversityMetrics(['Sort 3 1 2', 'sort 3 1 2', 'SORT 3 1 2']);
  assert.is(metrics.n, 3);
  close(metrics.vendi, 1);
  close(metrics.vendiPerN, 1 / 3);
  // 4 distinct unigrams of 12, 3 distinct bigrams of 9
  close(metrics.distinct1, 4 / 12);
  close(metrics.distinct2, 3 / 9);
});

test('tasks with no word in common are all distinct', () => {
  const metrics = diversityMetrics(['move disk', 'solve maze', 'add numbers', 'guess word']);
  close(metrics.vendi, 4);
  close(metrics.vendiPerN, 1);
  close(metrics.distinct1, 1);
});

test('partial overlap lands strictly between', () => {
  const metrics = diversityMetrics(['add 3 and 4', 'add 5 and 9', 'reverse the string abc']);
  assert.ok(metrics.vendi > 2 && metrics.vendi < 3, `vendi ${metrics.vendi}`);
});

test('distinct-n read from the text features equals distinctN over the texts (tabs, newlines, one-word tasks)', () => {
  const tasks = ['Move the\tdisk\n to peg 3', 'one', 'move  THE disk', '', 'peg 3 to peg 1 then peg 3'];
  const metrics = diversityMetrics(tasks);
  assert.is(metrics.distinct1, distinctN(tasks, 1));
  assert.is(metrics.distinct2, distinctN(tasks, 2));
});

test('text features as ids score exactly as their strings, hashed path included (ids numbered as prepareFeatures numbers strings)', () => {
  // "<empty>" as a word and as the feature of an empty text are one feature, as with strings.
  const base = ['Move the\tdisk\n to peg 3', '', 'one', 'the <empty> word', 'move  THE disk', ''];
  const random = mulberry32(7);
  const vocabulary = Array.from({ length: 300 }, (_, i) => `w${i}`);
  // 450 texts of 40 words from 300: more texts and more features than the exact limit (400), so features are hashed.
  const many = Array.from({ length: 450 }, () => Array.from({ length: 40 }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' '));
  for (const texts of [base, [...base, ...many]]) {
    const ids = textFeatureIds(texts);
    const fromStrings = prepareFeatures(texts.map(textFeatures));
    assert.is(ids.dimension, fromStrings.dimension);
    const scored = preparedVendi(prepareIdBags(ids.bags, ids.dimension));
    assert.equal(scored, preparedVendi(fromStrings));
    assert.equal(scored, featureVendi(texts.map(textFeatures)));
    assert.is(ids.distinct1, distinctN(texts, 1));
    assert.is(ids.distinct2, distinctN(texts, 2));
  }
  assert.ok(preparedVendi(prepareIdBags(textFeatureIds(many).bags, textFeatureIds(many).dimension)).approximate, 'the large pool takes the hashed path');
});

test('distinct-2 of a resample read from the feature ids equals distinctN over its texts (repeats counted)', () => {
  const texts = ['a b c', 'b c d', '', 'single', 'a b a b'];
  const ids = textFeatureIds(texts);
  const seen = new Int32Array(ids.dimension);
  const draws = [[0, 0, 1], [2, 3], [4, 4, 2, 0], [1]];
  draws.forEach((drawn, r) => assert.is(distinct2Of(ids, drawn, seen, r + 1), distinctN(drawn.map((i) => texts[i]!), 2)));
});

test('empty pool', () => {
  assert.equal(diversityMetrics([]), { n: 0, vendi: 0, vendiPerN: 0, distinct1: 0, distinct2: 0 });
});

test.run();
