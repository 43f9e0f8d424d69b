import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deflateRawSync } from 'node:zlib';
import { meanPairwiseNcd, normalizedCompressionDistance } from '../../../core/metrics/index.js';
import { compressedSize } from '../../../core/metrics/compression.js';
import { mulberry32 } from '../../../core/run/random.js';

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

test('compressed sizes are deflateRawSync\'s at level 9, for short, long, empty and non-ASCII texts', () => {
  const next = mulberry32(7);
  const word = () => ['the', 'answer', 'is', '42', 'apples', 'cost', '$3.50', 'each', 'how', 'many', '\u00e9t\u00e9', '\u{1F600}'][Math.floor(next() * 12)]!;
  const texts = ['', 'a', ...Array.from({ length: 300 }, (_, i) => Array.from({ length: 1 + (i % 200) }, word).join(' '))];
  // Longer than one output buffer even compressed: several writes per text.
  for (const length of [1_000, 5_000, 60_000]) texts.push(Array.from({ length }, () => String.fromCharCode(33 + Math.floor(next() * 90))).join(''));
  for (const text of texts) assert.is(compressedSize(text), C(text), JSON.stringify(text.slice(0, 40)));
  // Two texts run together, as a pair is measured.
  for (let i = 0; i + 1 < texts.length; i += 7) assert.is(compressedSize(texts[i]! + texts[i + 1]!), C(texts[i]! + texts[i + 1]!));
});

test('mean pairwise NCD: NaN below 2 items; sampled pairs for large pools', () => {
  assert.ok(Number.isNaN(meanPairwiseNcd(['a'])));
  const same = Array.from({ length: 100 }, () => 'identical task text for every item');
  assert.ok(meanPairwiseNcd(same) < 0.3);
  // All pairs of a small pool, by the definition.
  const pool = ['red apples and green pears', 'green pears and red apples', 'a train leaves at noon', 'the train leaves at nine'];
  let sum = 0;
  for (let i = 0; i < pool.length; i++) for (let j = i + 1; j < pool.length; j++) sum += (C(pool[i]! + pool[j]!) - Math.min(C(pool[i]!), C(pool[j]!))) / Math.max(C(pool[i]!), C(pool[j]!));
  assert.is(meanPairwiseNcd(pool), sum / 6);
});

test.run();
