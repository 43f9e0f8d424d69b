import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { differenceOf } from '../../../core/metrics/difference.js';
import { wilsonInterval } from '../../../core/metrics/intervals.js';

const share = (won: number, n: number) => ({ value: won / n, interval: wilsonInterval(won, n) });
const close = (actual: number, expected: number, digits = 4) => assert.ok(Math.abs(actual - expected) < 0.5 * 10 ** -digits, `${actual} is not ${expected}`);

test("two shares: Newcombe's hybrid score interval (his method 10), as his 1998 paper's Table II gives it", () => {
  // Newcombe, Statistics in Medicine 17:873-890 (1998), Table II, method 10: examples (a), (b) and (f).
  const cases: [number, number, number, number, number, number][] = [
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.8090],
    [10, 10, 0, 20, 0.6791, 1.0],
  ];
  for (const [x1, n1, x2, n2, low, high] of cases) {
    // later − first, with the first run the one with x2 / n2.
    const d = differenceOf(share(x2, n2), share(x1, n1));
    close(d.value, x1 / n1 - x2 / n2, 9);
    close(d.interval[0], low);
    close(d.interval[1], high);
    assert.ok(d.excludesZero);
  }
});

test('an interval that spans zero is not marked; the order of the runs flips the sign', () => {
  const a = share(5, 56);
  const b = share(0, 29);
  const d = differenceOf(b, a);
  assert.ok(d.interval[0] < 0 && d.interval[1] > 0);
  assert.is(d.excludesZero, false);
  const back = differenceOf(a, b);
  close(back.value, -d.value, 12);
  close(back.interval[0], -d.interval[1], 12);
  close(back.interval[1], -d.interval[0], 12);
});

test('estimates with any intervals (bootstrap): equal estimates differ by 0 within their combined width', () => {
  const d = differenceOf({ value: 10, interval: [8, 13] }, { value: 10, interval: [7, 12] });
  assert.is(d.value, 0);
  close(d.interval[0], -Math.hypot(3, 3), 12);
  close(d.interval[1], Math.hypot(2, 2), 12);
  assert.is(d.excludesZero, false);
});

test.run();
