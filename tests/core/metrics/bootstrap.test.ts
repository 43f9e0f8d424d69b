import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bootstrapMean, equalSizeDiversity } from '../../../core/metrics/index.js';
import { replicateMeans, resample, subsample } from '../../../core/metrics/bootstrap.js';
import { diversityMetrics } from '../../../core/metrics/diversity.js';
import { mulberry32 } from '../../../core/run/random.js';

test('bootstrap mean: exact mean, interval around it, seeded', () => {
  const values = [0, 1, 0, 1, 1, 0, 1, 1, 0, 1];
  const a = bootstrapMean(values, { seed: 3 });
  assert.is(a.mean, 0.6);
  assert.ok(a.interval[0] < 0.6 && 0.6 < a.interval[1]);
  assert.equal(bootstrapMean(values, { seed: 3 }), a);
  // constant data has a zero-width interval
  assert.equal(bootstrapMean([2, 2, 2]).interval, [2, 2]);
});

test('each replicate is the mean of a seeded resample of the values, drawn in order', () => {
  const next = mulberry32(11);
  const samples: number[][] = [
    [1],
    [0, 1, 1, 0, 1],
    // fractions (pass@k of several attempts) and magnitudes far apart
    Array.from({ length: 257 }, (_, i) => (next() - 0.5) * 10 ** ((i % 7) - 3)),
  ];
  for (const values of samples) {
    for (const seed of [1, 2, 4294967295]) {
      const random = mulberry32(seed);
      const expected = Array.from({ length: 50 }, () => resample(values, values.length, random).reduce((sum, x) => sum + x, 0) / values.length);
      assert.equal(replicateMeans(values, { seed, replicates: 50 }), expected);
    }
  }
});

test('the interval of a proportion matches the normal approximation\'s width', () => {
  // GSM8K's shape: 1,319 tasks, one attempt each, 30% won. The bootstrap's 95% interval of a
  // mean of 0/1 values is close to p +- 1.96 sqrt(p(1-p)/n) at this size.
  const next = mulberry32(5);
  const values = Array.from({ length: 1319 }, () => (next() < 0.3 ? 1 : 0));
  const { mean, interval } = bootstrapMean(values, { seed: 3 });
  const half = 1.96 * Math.sqrt((mean * (1 - mean)) / values.length);
  assert.ok(interval[0] < mean && mean < interval[1]);
  assert.ok(Math.abs(interval[1] - interval[0] - 2 * half) < 0.15 * 2 * half, `width ${interval[1] - interval[0]}, normal ${2 * half}`);
  assert.ok(Math.abs((interval[0] + interval[1]) / 2 - mean) < 0.2 * half, 'centred on the mean');
});

test('equal-size diversity: a larger pool of the same few tasks is not more diverse', () => {
  const small = Array.from({ length: 20 }, (_, i) => `alpha${i} beta${i}`); // 20 distinct tasks
  const large = Array.from({ length: 200 }, (_, i) => `gamma${i % 5} delta${i % 5}`); // 5 distinct tasks
  const result = equalSizeDiversity([{ id: 'small', tasks: small }, { id: 'large', tasks: large }], { replicates: 20 });
  assert.is(result.get('small')!.size, 20);
  assert.ok(result.get('small')!.vendi.mean > result.get('large')!.vendi.mean);
  assert.ok(result.get('large')!.vendi.mean <= 5 + 1e-9);
});

test('subsample: distinct positions, seeded, at most every item', () => {
  const items = Array.from({ length: 30 }, (_, i) => i);
  const a = subsample(items, 12, mulberry32(5));
  assert.is(a.length, 12);
  assert.is(new Set(a).size, 12);
  assert.equal(subsample(items, 12, mulberry32(5)), a);
  assert.not.equal(subsample(items, 12, mulberry32(6)), a);
  assert.equal([...subsample(items, 40, mulberry32(5))].sort((x, y) => x - y), items);
});

test('equal-size diversity: the pool that sets the size scores its own Vendi, and a ranking holds', () => {
  // 20 distinct tasks against 60 tasks of 40 kinds: the larger pool is the more varied one per
  // task drawn, so it must not rank below the smaller at n = 20 only because of how it is drawn.
  const small = Array.from({ length: 20 }, (_, i) => `solve puzzle ${i} with ${i % 4} moves`);
  const large = Array.from({ length: 60 }, (_, i) => `route ${i % 40} reaches gate ${(i * 7) % 40}`);
  const result = equalSizeDiversity([{ id: 'small', tasks: small }, { id: 'large', tasks: large }], { replicates: 30 });
  const own = diversityMetrics(small).vendi;
  const measured = result.get('small')!;
  assert.is(measured.size, 20);
  assert.ok(Math.abs(measured.vendi.mean - own) < 1e-9, `${measured.vendi.mean} vs its own ${own}`);
  assert.equal(measured.vendi.interval.map((x) => Math.round(x * 1e9)), [own, own].map((x) => Math.round(x * 1e9)));
  // Orthogonal tasks against a large pool whose tasks all share a word: at n = 20 the first is
  // the more diverse, as it is on its own (20 against the other's 20-task subsets).
  const shared = Array.from({ length: 400 }, (_, i) => `gamma${i} delta${i} shared`);
  const orthogonal = Array.from({ length: 20 }, (_, i) => `alpha${i} beta${i}`);
  const ranked = equalSizeDiversity([{ id: 'orthogonal', tasks: orthogonal }, { id: 'shared', tasks: shared }], { replicates: 30 });
  assert.ok(ranked.get('orthogonal')!.vendi.mean > ranked.get('shared')!.vendi.mean, `${ranked.get('orthogonal')!.vendi.mean} vs ${ranked.get('shared')!.vendi.mean}`);
  // A subset of distinct tasks is never scored as if it held repeats.
  const distinctLarge = equalSizeDiversity([{ id: 'large', tasks: large }], { size: 20, replicates: 30 }).get('large')!;
  assert.is(distinctLarge.vendi.mean, result.get('large')!.vendi.mean);
});

test.run();
