import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { symmetricEigenvalues } from '../../../core/metrics/index.js';
import { mulberry32 } from '../../../core/run/random.js';

const close = (actual: number, expected: number, tolerance = 1e-10) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);

test('known spectra', () => {
  // [[2,1],[1,2]]: characteristic polynomial (2-x)^2 - 1 = 0 -> 1, 3
  const two = symmetricEigenvalues([[2, 1], [1, 2]]);
  close(two[0]!, 1);
  close(two[1]!, 3);
  // all-ones 3x3 has rank 1: eigenvalues 0, 0, 3 (trace 3)
  const ones = symmetricEigenvalues([[1, 1, 1], [1, 1, 1], [1, 1, 1]]);
  close(ones[0]!, 0);
  close(ones[1]!, 0);
  close(ones[2]!, 3);
  // a diagonal matrix is its own spectrum, sorted ascending
  assert.equal(symmetricEigenvalues([[5, 0, 0], [0, -2, 0], [0, 0, 1]]), [-2, 1, 5]);
  assert.equal(symmetricEigenvalues([]), []);
});

test('random symmetric matrices: power sums of eigenvalues equal traces of powers', () => {
  // sum_i lambda_i^m = trace(A^m) for m = 1..n determines the n eigenvalues (Newton's identities).
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
  for (const n of [3, 6, 12]) {
    const A = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) A[i]![j] = A[j]![i] = random();
    const lambdas = symmetricEigenvalues(A);
    let power = A.map((row) => [...row]);
    for (let m = 1; m <= n; m++) {
      const trace = power.reduce((sum, row, i) => sum + row[i]!, 0);
      const sum = lambdas.reduce((s, x) => s + x ** m, 0);
      close(sum, trace, 1e-10 * Math.max(1, Math.abs(trace)));
      power = power.map((row) => A.map((_, j) => row.reduce((s, x, k) => s + x * A[k]![j]!, 0)));
    }
  }
});

test('rejects non-square and non-finite input', () => {
  assert.throws(() => symmetricEigenvalues([[1, 2], [3]]), /square/);
  assert.throws(() => symmetricEigenvalues([[Number.NaN]]), /finite/);
});

test('large Gram matrices: the spectrum of X Xt is that of Xt X, with zeros beyond the rank', () => {
  // X Xt (n x n) and Xt X (r x r) share their non-zero eigenvalues: two decompositions of
  // different sides, one of them small enough to check by its traces. Sides up to the metrics'
  // largest exact matrix (400), one with a zero row (the reduction's scale = 0 branch).
  const random = mulberry32(11);
  for (const [n, r, zero] of [[64, 5, -1], [131, 30, 0], [400, 12, 200]] as const) {
    const X = Array.from({ length: n }, (_, i) => Array.from({ length: r }, () => (i === zero ? 0 : random() - 0.5)));
    const big = X.map((x) => X.map((y) => x.reduce((s, v, k) => s + v * y[k]!, 0)));
    const small = Array.from({ length: r }, (_, a) => Array.from({ length: r }, (_, b) => X.reduce((s, x) => s + x[a]! * x[b]!, 0)));
    const large = symmetricEigenvalues(big);
    const few = symmetricEigenvalues(small);
    const scale = large.at(-1)!;
    for (let i = 0; i < n - r; i++) close(large[i]!, 0, 1e-12 * scale);
    for (let i = 0; i < r; i++) close(large[n - r + i]!, few[i]!, 1e-12 * scale);
    // The trace and the squared Frobenius norm are the sums of the eigenvalues and of their squares.
    close(large.reduce((s, x) => s + x, 0), big.reduce((s, row, i) => s + row[i]!, 0), 1e-12 * n * scale);
    close(large.reduce((s, x) => s + x * x, 0), big.reduce((s, row) => s + row.reduce((t, v) => t + v * v, 0), 0), 1e-12 * n * scale * scale);
  }
});

test.run();
