import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { figureText, formatValue, grouped, number, numberInterval, percent, percentInterval, perSecond, ratio, signedDifference } from '../../reports/format.js';

test('grouped writes en-US numbers: thousands grouped, halves rounded away from zero', () => {
  assert.is(grouped(1234.5, 1), '1,234.5');
  assert.is(grouped(-1234.5, 0), '-1,235');
  assert.is(grouped(999.5, 0), '1,000');
  assert.is(grouped(9.995, 2), '10.00');
  assert.is(grouped(1e6), '1,000,000');
});

test('number groups thousands and keeps a few significant digits below them', () => {
  assert.is(number(1234567.4), '1,234,567');
  assert.is(number(-2500.5), '-2,501');
  assert.is(number(0.123456), '0.123');
  assert.is(number(12), '12');
  assert.is(number(Number.NaN), '–');
  assert.is(number(undefined), '–');
  assert.is(numberInterval([1.234, 5678.9]), '1.23–5,679');
});

test('shares: a rate with nothing decided is n/a, never 0%', () => {
  assert.is(percent(0.4231), '42.3%');
  assert.is(percent(1), '100.0%');
  assert.is(percent(null), 'n/a');
  assert.is(percent(undefined), '–');
  assert.is(percentInterval([0.41, 0.52]), '41.0–52.0%');
  assert.is(percentInterval(undefined), '–');
  // A figure with nothing measured shows its counts, and no interval.
  assert.is(figureText({ value: null, interval: [0, 1], counts: [0, 0], note: '12 errored' }, 'percent'), 'n/a (0 / 0, 12 errored)');
  assert.is(figureText({ value: 0.75, interval: [0.6, 0.86], counts: [30, 40] }, 'percent'), '75.0% (60.0–86.0%, 30 / 40)');
  assert.is(figureText({ value: 0.75, counts: [6, 8], beside: [{ label: 'first try', figure: { value: 0.5, counts: [4, 8] } }] }, 'percent'), '75.0% (6 / 8); first try 50.0% (4 / 8)');
});

test('numbers with units, signed differences and ratios', () => {
  assert.is(formatValue(6345.2, 'number', 'steps/s'), '6,345 steps/s');
  assert.is(formatValue(null, 'number', 'steps/s'), 'n/a');
  assert.is(signedDifference(0.032, 'percent'), '+3.2 pp');
  assert.is(signedDifference(-0.1, 'percent'), '-10.0 pp');
  assert.is(signedDifference(0, 'percent'), '0.0 pp');
  assert.is(signedDifference(1.2345), '+1.23');
  assert.is(signedDifference(-12345.6), '-12,346');
  assert.is(ratio(1.83), '×1.8');
  assert.is(ratio(0.0314), '×0.031');
});

test('a rate per second has the digits it needs: a slow run is not 0/s', () => {
  assert.equal([760.4, 12.46, 0.4651, 0].map(perSecond), ['760', '12.5', '0.47', '0.0']);
});

test.run();
