import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EXACT_LIMIT, featureVendi, vendiScore } from '../../../core/metrics/index.js';
import { prepareFeatures, preparedVendi } from '../../../core/metrics/feature-vendi.js';
import { mulberry32 } from '../../../core/run/random.js';

const close = (actual: number, expected: number, tolerance = 1e-9) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);

/** The cosine-similarity kernel of count vectors, built directly from its definition. */
function cosineKernel(bags: string[][]): number[][] {
  const vectors = bags.map((bag) => {
    const counts = new Map<string, number>();
    for (const f of bag) counts.set(f, (counts.get(f) ?? 0) + 1);
    return counts;
  });
  const dot = (a: Map<string, number>, b: Map<string, number>) => [...a].reduce((s, [k, v]) => s + v * (b.get(k) ?? 0), 0);
  return vectors.map((a) => vectors.map((b) => dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b))));
}

test('identical items score 1, disjoint items score n', () => {
  close(featureVendi([['a', 'b'], ['a', 'b'], ['b', 'a']]).vendi, 1);
  close(featureVendi([['a'], ['b'], ['c'], ['d']]).vendi, 4);
  assert.is(featureVendi([]).vendi, 0);
});

test('empty items are identical to each other and unlike the rest', () => {
  // two empties + one other: clusters of 2 and 1 -> exp(-(2/3 ln 2/3 + 1/3 ln 1/3)) = 1.8898816
  close(featureVendi([[], [], ['x']]).vendi, 1.8898816, 1e-6);
});

test('few items, many features (n×n kernel) equals vendiScore of the cosine kernel', () => {
  const bags = [['a', 'b', 'c'], ['a', 'b', 'd', 'e'], ['c', 'c', 'f', 'g'], ['h', 'a', 'i', 'j']];
  close(featureVendi(bags).vendi, vendiScore(cosineKernel(bags)));
});

test('many items, few features (d×d covariance) equals vendiScore of the cosine kernel', () => {
  const alphabet = ['a', 'b', 'c', 'd'];
  const bags = Array.from({ length: 60 }, (_, i) => [alphabet[i % 4]!, alphabet[(i * 7) % 4]!, alphabet[Math.floor(i / 15)]!]);
  const result = featureVendi(bags);
  assert.is(result.approximate, false);
  close(result.vendi, vendiScore(cosineKernel(bags)));
});

test('a pool larger than the exact limit with few features is still exact', () => {
  // 10 disjoint texts repeated: 10 equal clusters -> exactly 10
  const bags = Array.from({ length: EXACT_LIMIT + 100 }, (_, i) => [`word${i % 10}`, `other${i % 10}`]);
  const result = featureVendi(bags);
  assert.is(result.approximate, false);
  close(result.vendi, 10);
});

test('beyond the limit on every side (items, features, distinct items), hashing approximates and says so', () => {
  // 20 clusters of 30 words each, 600 items, each with a word of its own among 60 of its cluster's:
  // 600 distinct items, so none of the exact paths applies; the score stays near the 20 clusters.
  const bags = Array.from({ length: 600 }, (_, i) => [...Array.from({ length: 60 }, (_, w) => `c${i % 20}w${w % 30}`), `own${i}`]);
  const result = featureVendi(bags);
  assert.is(result.approximate, true);
  assert.ok(result.vendi > 18 && result.vendi < 26, `hashed score ${result.vendi} should be near 20`);
});

test('one bag shared by many items scores as the same bag copied for each (all three paths)', () => {
  // A static suite's items share one cached feature array per program; copies must score the same.
  const pools = [
    Array.from({ length: 12 }, (_, i) => [`a${i % 3}`, `b${i % 3}`, 'shared', `c${i}`]), // n x n kernel
    Array.from({ length: EXACT_LIMIT + 50 }, (_, i) => [`w${i % 7}`, `v${i % 5}`]), // d x d covariance
    Array.from({ length: 600 }, (_, i) => Array.from({ length: 30 }, (_, w) => `c${i % 20}w${w}`)), // few distinct among many
    Array.from({ length: 900 }, (_, i) => Array.from({ length: 3 }, (_, w) => `c${i % 450}w${w}`)), // hashed
  ];
  for (const bags of pools) {
    const distinct = [...new Set(bags.map((bag) => bag.join(' ')))];
    const one = new Map(distinct.map((text) => [text, text.split(' ')]));
    const shared = bags.map((bag) => one.get(bag.join(' '))!);
    const copied = bags.map((bag) => [...bag]);
    const a = featureVendi(shared);
    const b = featureVendi(copied);
    assert.is(a.approximate, b.approximate);
    close(a.vendi, b.vendi, 1e-9 * b.vendi);
  }
});

test('many items, few distinct ones: scored exactly from the distinct ones, weighted by their copies', () => {
  // 600 items: 20 disjoint bags of 30 features, 30 copies each: exactly 20 distinct items.
  const bags = Array.from({ length: 600 }, (_, i) => Array.from({ length: 30 }, (_, w) => `c${i % 20}w${w}`));
  const result = featureVendi(bags);
  assert.is(result.approximate, false);
  close(result.vendi, 20, 1e-9);
  // Unequal copies: 500 of one, 100 of another, disjoint: exp(entropy of 5/6, 1/6).
  const skewed = Array.from({ length: 600 }, (_, i) => Array.from({ length: 450 }, (_, w) => `${i < 500 ? 'a' : 'b'}${w}`));
  close(featureVendi(skewed).vendi, Math.exp(-(5 / 6) * Math.log(5 / 6) - (1 / 6) * Math.log(1 / 6)), 1e-9);
});

test('copies of a few items below the exact limit take the small matrix of the distinct ones, with the kernel\'s score', () => {
  // 120 items, 3 distinct overlapping bags (40 copies each), 90 features: the kernel would be
  // 120x120 and the covariance 90x90; the distinct items' matrix is 3x3.
  const kinds = [0, 1, 2].map((k) => Array.from({ length: 40 }, (_, w) => `f${k * 25 + w}`));
  const bags = Array.from({ length: 120 }, (_, i) => kinds[i % 3]!);
  const result = featureVendi(bags);
  assert.is(result.approximate, false);
  close(result.vendi, vendiScore(cosineKernel(bags)), 1e-9);
  // One program copied (a dataset's template): exactly one effective item.
  close(featureVendi(Array.from({ length: 300 }, () => kinds[0]!)).vendi, 1, 1e-12);
});

test('every exact path gives the Vendi score of the cosine kernel built from its definition', () => {
  const random = mulberry32(21);
  const bags = (items: number, vocabulary: number): string[][] =>
    Array.from({ length: items }, () => Array.from({ length: 3 + Math.floor(random() * 25) }, () => `w${Math.floor(random() * vocabulary)}`));
  const few = bags(20, 5000);
  const pools = {
    'n x n kernel': bags(120, 5000), // 120 items, ~1,500 features
    'd x d covariance': bags(300, 150), // 300 items, 150 features
    'distinct items': Array.from({ length: 300 }, (_, i) => few[i % 20]!), // 20 distinct among 300, ~300 features
  };
  for (const [path, pool] of Object.entries(pools)) {
    const result = featureVendi(pool);
    assert.is(result.approximate, false, path);
    close(result.vendi, vendiScore(cosineKernel(pool)), 1e-9 * result.vendi);
  }
});

test('a subset of a prepared pool scores as the same items prepared on their own', () => {
  // The equal-size comparison scores resamples (repeats allowed) of one prepared pool.
  const random = mulberry32(8);
  const bag = (vocabulary: number, offset: number) => Array.from({ length: 4 + Math.floor(random() * 30) }, () => `w${offset + Math.floor(random() * vocabulary)}`);
  const pool = [...Array.from({ length: 60 }, () => bag(40, 0)), ...Array.from({ length: 200 }, () => bag(30_000, 100))];
  const prepared = prepareFeatures(pool);
  const subsets = [
    Array.from({ length: 60 }, (_, i) => i),
    Array.from({ length: 150 }, (_, i) => 110 + i),
    Array.from({ length: 64 }, () => Math.floor(random() * 260)),
    Array.from({ length: 30 }, (_, i) => i * 2),
  ];
  for (const subset of subsets) {
    const alone = featureVendi(subset.map((i) => pool[i]!));
    close(preparedVendi(prepared, subset).vendi, alone.vendi, 1e-9 * alone.vendi);
  }
});

test.run();
