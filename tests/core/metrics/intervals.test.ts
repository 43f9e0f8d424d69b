import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { wilsonInterval, Z_95 } from '../../../core/metrics/index.js';

const close = (actual: number, expected: number, tolerance = 1e-6) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);

test('Wilson 95% interval of 8/10 worked by hand', () => {
  // Closed form (2np + z^2 ± z sqrt(z^2 + 4np(1-p))) / (2(n + z^2)) with n = 10, p = 0.8, z^2 = 3.841459:
  // (19.841459 ± 1.959964 * sqrt(10.241459)) / 27.682918 = (19.841459 ± 6.272332) / 27.682918
  // (statsmodels' proportion_confint(8, 10, method='wilson') prints the same 0.49016, 0.94332.)
  const [lo, hi] = wilsonInterval(8, 10);
  close(lo, 0.4901625);
  close(hi, 0.9433181);
});

test('the quantile is the exact 97.5% normal quantile, so intervals match scipy and statsmodels to the last digits', () => {
  assert.is(Z_95, 1.959963984540054); // scipy.stats.norm.ppf(0.975)
  // 8/10 worked in 40-digit decimal arithmetic with that z; the rounded z = 1.959964 is 2.4e-9 off.
  const [lo, hi] = wilsonInterval(8, 10);
  close(lo, 0.4901624715366418, 1e-13);
  close(hi, 0.9433178485456247, 1e-13);
});

test('Wilson interval of 0/10 is [0, z^2 / (n + z^2)]', () => {
  // centre = half = (z^2/20) / (1 + z^2/10) when p = 0
  const [lo, hi] = wilsonInterval(0, 10);
  assert.is(lo, 0);
  close(hi, 3.841459 / 13.841459);
});

test('Wilson interval is symmetric: n/n mirrors 0/n', () => {
  const [lo, hi] = wilsonInterval(10, 10);
  close(lo, 1 - 3.841459 / 13.841459);
  close(hi, 1, 1e-12);
});

test('no observations: [0, 1]', () => {
  assert.equal(wilsonInterval(0, 0), [0, 1]);
});

test('narrows as n grows and always contains the estimate', () => {
  const small = wilsonInterval(5, 10);
  const large = wilsonInterval(500, 1000);
  assert.ok(large[1] - large[0] < small[1] - small[0]);
  for (const [s, n] of [[1, 3], [7, 9], [30, 31]] as const) {
    const [lo, hi] = wilsonInterval(s, n);
    assert.ok(lo <= s / n && s / n <= hi);
  }
});

test('rejects impossible counts', () => {
  assert.throws(() => wilsonInterval(3, 2));
  assert.throws(() => wilsonInterval(-1, 2));
});

test.run();
