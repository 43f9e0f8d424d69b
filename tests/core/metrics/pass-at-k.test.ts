import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { passAtK, passHatK } from '../../../core/metrics/index.js';

const close = (actual: number, expected: number, tolerance = 1e-12) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);

/** Exact binomial coefficient with big integers, straight from the definition n! / (k! (n-k)!). */
function binomial(n: number, k: number): bigint {
  let result = 1n;
  for (let i = 1; i <= k; i++) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}
const ratio = (a: bigint, b: bigint) => Number((a * 10n ** 30n) / b) / 1e30;

test('pass@k matches 1 - C(n-c, k) / C(n, k) worked by hand', () => {
  // 1 - C(3,2)/C(5,2) = 1 - 3/10
  close(passAtK(5, 2, 2), 0.7);
  // k = 1 is the plain success rate c/n
  close(passAtK(10, 3, 1), 0.3);
  // 1 - C(2,3)... n - c = 2 < k = 3: every draw of 3 contains a success
  close(passAtK(5, 3, 3), 1);
  // no success at all
  close(passAtK(8, 0, 4), 0);
  // 1 - C(4,2)/C(6,2) = 1 - 6/15
  close(passAtK(6, 2, 2), 0.6);
});

test('pass@k stays accurate for large n (against exact big-integer binomials)', () => {
  for (const [n, c, k] of [[100, 10, 10], [200, 3, 50], [1000, 999, 1], [500, 1, 250]] as const) {
    close(passAtK(n, c, k), 1 - ratio(binomial(n - c, k), binomial(n, k)), 1e-12);
  }
});

test('pass^k matches C(c, k) / C(n, k) worked by hand', () => {
  // C(3,2)/C(5,2) = 3/10
  close(passHatK(5, 3, 2), 0.3);
  close(passHatK(10, 7, 1), 0.7);
  // fewer successes than draws
  close(passHatK(5, 1, 2), 0);
  close(passHatK(4, 4, 3), 1);
  close(passHatK(100, 60, 5), ratio(binomial(60, 5), binomial(100, 5)), 1e-12);
});

test('pass^k never exceeds pass@k, and they agree at k = 1', () => {
  for (let c = 0; c <= 8; c++) {
    for (let k = 1; k <= 8; k++) assert.ok(passHatK(8, c, k) <= passAtK(8, c, k) + 1e-15);
    close(passHatK(8, c, 1), passAtK(8, c, 1));
  }
});

test('impossible counts are rejected', () => {
  assert.throws(() => passAtK(3, 4, 1), /cannot exceed/);
  assert.throws(() => passAtK(3, 1, 4), /k must be/);
  assert.throws(() => passAtK(3, 1, 0), /k must be/);
  assert.throws(() => passHatK(2.5, 1, 1), /integer/);
});

test.run();
