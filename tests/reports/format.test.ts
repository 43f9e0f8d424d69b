import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { grouped, number } from '../../reports/format.js';
import { mulberry32 } from '../../core/run/random.js';

const intl = (value: number, decimals: number): string => value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });

test('grouped writes what en-US Intl writes, halves and carries included', () => {
  const cases: [number, number, string][] = [
    [1234.5, 1, '1,234.5'],
    [-1234.5, 0, '-1,235'],
    [999.5, 0, '1,000'],
    [9.995, 2, '10.00'],
    // Below 499.825 in binary; Intl rounds its shortest form, 499.825, up (toFixed would not).
    [-499.825, 2, '-499.83'],
    [-0.001, 0, '-0'],
    [-0, 1, '-0.0'],
    [0.5, 0, '1'],
    [1e6, 0, '1,000,000'],
  ];
  for (const [value, decimals, expected] of cases) {
    assert.is(grouped(value, decimals), expected, `${value} with ${decimals} decimals`);
    assert.is(intl(value, decimals), expected, `Intl itself, ${value}`);
  }
});

test('grouped agrees with Intl on seeded random numbers of every size and precision', () => {
  const random = mulberry32(7);
  for (let i = 0; i < 5_000; i++) {
    const decimals = i % 7;
    const value = (random() - 0.5) * 10 ** (random() * 14 - 4);
    // The same value cut to a few significant digits lands on halves often.
    for (const x of [value, Number(value.toPrecision(1 + (i % 6))), Math.round(value)]) {
      assert.is(grouped(x, decimals), intl(x, decimals), `${x} with ${decimals} decimals`);
    }
  }
  for (const x of [1e-7, 5e-7, 1e21, 1.5e22, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
    for (let decimals = 0; decimals <= 3; decimals++) assert.is(grouped(x, decimals), intl(x, decimals), `${x} with ${decimals} decimals`);
  }
});

test('number groups thousands and keeps a few significant digits below them', () => {
  assert.is(number(1234567.4), '1,234,567');
  assert.is(number(-2500.5), '-2,500');
  assert.is(number(0.123456), '0.123');
  assert.is(number(Number.NaN), '–');
});

test.run();
