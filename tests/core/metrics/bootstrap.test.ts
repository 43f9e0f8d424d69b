import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bootstrapMean, equalSizeDiversity } from '../../../core/metrics/index.js';

test('bootstrap mean: exact mean, interval around it, seeded', () => {
  const values = [0, 1, 0, 1, 1, 0, 1, 1, 0, 1];
  const a = bootstrapMean(values, { seed: 3 });
  assert.is(a.mean, 0.6);
  assert.ok(a.interval[0] < 0.6 && 0.6 < a.interval[1]);
  assert.equal(bootstrapMean(values, { seed: 3 }), a);
  // constant data has a zero-width interval
  assert.equal(bootstrapMean([2, 2, 2]).interval, [2, 2]);
});

test('equal-size diversity: a larger pool of the same few tasks is not more diverse', () => {
  const small = Array.from({ length: 20 }, (_, i) => `alpha${i} beta${i}`); // 20 distinct tasks
  const large = Array.from({ length: 200 }, (_, i) => `gamma${i % 5} delta${i % 5}`); // 5 distinct tasks
  const result = equalSizeDiversity([{ id: 'small', tasks: small }, { id: 'large', tasks: large }], { replicates: 20 });
  assert.is(result.get('small')!.size, 20);
  assert.ok(result.get('small')!.vendi.mean > result.get('large')!.vendi.mean);
  assert.ok(result.get('large')!.vendi.mean <= 5 + 1e-9);
});

test.run();
