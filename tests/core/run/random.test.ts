// The harness's own randomness: the same seed gives the same draws on every machine and after
// every rewrite (seeded results, caches and resumed runs depend on it).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deriveSeed, deriveSeedFromIndex, mulberry32 } from '../../../core/run/random.js';

test('mulberry32 draws the recorded sequence: draws 1001-1003 for seeds inside and outside 32 bits', () => {
  const recorded: [number, number[]][] = [
    [1, [0.22846644930541515, 0.16011321544647217, 0.8224869302939624]],
    [4294967295, [0.3559702388010919, 0.7642511776648462, 0.9834759545046836]],
    [-5, [0.37766216485761106, 0.5891154252458364, 0.8023567204363644]],
    [2 ** 40 + 3, [0.2279361232649535, 0.9469009989406914, 0.01291037374176085]],
  ];
  for (const [seed, expected] of recorded) {
    const random = mulberry32(seed);
    for (let i = 0; i < 1000; i++) random();
    assert.equal([random(), random(), random()], expected, `seed ${seed}`);
  }
});

test('mulberry32: two generators of one seed are independent and equal; draws lie in [0, 1)', () => {
  const a = mulberry32(42);
  const b = mulberry32(42);
  const first = Array.from({ length: 5000 }, () => a());
  assert.equal(Array.from({ length: 5000 }, () => b()), first);
  assert.ok(first.every((x) => x >= 0 && x < 1));
  assert.is.not(mulberry32(43)(), first[0]);
});

test('deriveSeed gives the recorded seeds, for labels with astral characters and lone surrogates too', () => {
  assert.equal(
    [deriveSeed(0, 12345), deriveSeed(7, 'task', 3, 'hint'), deriveSeed(1, '\u{1F600}', '\u00e9'), deriveSeed(2, '\ud800x', '\udc00')],
    [1974675789, 3884435609, 1487698000, 845617898],
  );
});

test('deriveSeed depends on every label and on the base', () => {
  assert.is(deriveSeed(1, 'a', 2), deriveSeed(1, 'a', 2));
  assert.is.not(deriveSeed(1, 'a', 2), deriveSeed(1, 'a', 3));
  assert.is.not(deriveSeed(1, 'a', 2), deriveSeed(2, 'a', 2));
});

test('deriveSeedFromIndex is deriveSeed of the index', () => {
  const indices = [0, 1, 9, 10, 99, 100, 12345, 999_999, 1_000_000, 2 ** 31, 2 ** 32 + 5, 10 ** 15 - 1, 10 ** 15, Number.MAX_SAFE_INTEGER];
  for (let i = 0; i < 70_000; i++) indices.push(i * 37);
  for (const base of [0, 7, 0xffffffff]) {
    const differ = indices.find((index) => deriveSeedFromIndex(base, index) !== deriveSeed(base, index));
    assert.is(differ, undefined, `base ${base}, index ${differ}`);
  }
});

test.run();
