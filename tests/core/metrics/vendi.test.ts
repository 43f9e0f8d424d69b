import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { vendiScore } from '../../../core/metrics/index.js';

const close = (actual: number, expected: number, tolerance = 1e-9) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);

const identity = (n: number) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
const ones = (n: number) => Array.from({ length: n }, () => new Array<number>(n).fill(1));

test('identity n×n (all different) scores n, for every order q', () => {
  // eigenvalues of I/n are n copies of 1/n: any Rényi entropy is ln n
  for (const q of [0, 0.5, 1, 2, Infinity]) close(vendiScore(identity(5), q), 5);
});

test('all-ones n×n (all the same) scores 1', () => {
  // eigenvalues of J/n are 1, 0, ..., 0: entropy 0
  for (const q of [0.5, 1, 2, Infinity]) close(vendiScore(ones(6), q), 1);
});

test('two items with similarity 0.5, worked by hand', () => {
  // eigenvalues of [[1, .5], [.5, 1]] / 2 are 0.75 and 0.25
  const K = [[1, 0.5], [0.5, 1]];
  // q = 1: exp(-(0.75 ln 0.75 + 0.25 ln 0.25)) = exp(0.5623351) = 1.7547654
  close(vendiScore(K), 1.7547654, 1e-6);
  // q = 2: 1 / (0.75^2 + 0.25^2) = 1 / 0.625
  close(vendiScore(K, 2), 1.6);
  // q = Infinity: 1 / 0.75
  close(vendiScore(K, Infinity), 4 / 3);
});

test('two clusters of 2 and 3 identical items, worked by hand', () => {
  // block-diagonal all-ones blocks: eigenvalues of K/5 are 2/5 and 3/5 (and zeros)
  const K = [
    [1, 1, 0, 0, 0],
    [1, 1, 0, 0, 0],
    [0, 0, 1, 1, 1],
    [0, 0, 1, 1, 1],
    [0, 0, 1, 1, 1],
  ];
  // exp(-(0.4 ln 0.4 + 0.6 ln 0.6)) = exp(0.6730117) = 1.9601317
  close(vendiScore(K), 1.9601317, 1e-6);
  // q = 0 counts the non-zero eigenvalues
  close(vendiScore(K, 0), 2);
});

test('empty pool scores 0; negative order is rejected', () => {
  assert.is(vendiScore([]), 0);
  assert.throws(() => vendiScore(identity(2), -1));
});

test.run();
