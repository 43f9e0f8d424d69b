import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deflateRawSync } from 'node:zlib';
import { meanPairwiseNcd, normalizedCompressionDistance } from '../../../core/metrics/index.js';
import { mulberry32 } from '../../../core/random.js';

const C = (s: string) => deflateRawSync(Buffer.from(s), { level: 9 }).length;

test('NCD follows its definition (C(xy) - min) / max', () => {
  const x = 'the quick brown fox jumps over the lazy dog '.repeat(5);
  const y = 'pack my box with five dozen liquor jugs now '.repeat(5);
  const expected = (C(x + y) - Math.min(C(x), C(y))) / Math.max(C(x), C(y));
  assert.is(normalizedCompressionDistance(x, y), expected);
});

test('identical texts are near 0, unrelated texts near 1', () => {
  const x = 'move the disk from peg one to peg three and then back again '.repeat(8);
  assert.ok(normalizedCompressionDistance(x, x) < 0.2);
  const random = (seed: number) => {
    const next = mulberry32(seed);
    return Array.from({ length: 400 }, () => String.fromCharCode(33 + Math.floor(next() * 90))).join('');
  };
  assert.ok(normalizedCompressionDistance(random(1), random(2)) > 0.8);
});

test('mean pairwise NCD: NaN below 2 items; sampled pairs for large pools', () => {
  assert.ok(Number.isNaN(meanPairwiseNcd(['a'])));
  const same = Array.from({ length: 100 }, () => 'identical task text for every item');
  assert.ok(meanPairwiseNcd(same) < 0.3);
});

test.run();
