import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { percentile, percentiles } from '../../../core/metrics/index.js';

test('linear interpolation between closest ranks, worked by hand', () => {
  // sorted 1,2,3,4: rank of p50 = 0.5 * 3 = 1.5 -> 2.5; p95 -> rank 2.85 -> 3 + 0.85 * (4 - 3)
  const [p50, p95] = percentiles([4, 1, 3, 2], [50, 95]);
  assert.is(p50, 2.5);
  assert.ok(Math.abs(p95! - 3.85) < 1e-12, `p95 ${p95}`);
  assert.is(percentile([7], 95), 7);
  assert.is(percentile([10, 20, 30], 0), 10);
  assert.is(percentile([10, 20, 30], 100), 30);
});

test('empty sample gives NaN; out-of-range p is rejected', () => {
  assert.ok(Number.isNaN(percentile([], 50)));
  assert.throws(() => percentile([1], 101));
});

test.run();
