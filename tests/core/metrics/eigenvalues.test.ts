import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { symmetricEigenvalues } from '../../../core/metrics/index.js';
import { householderKernels, householderModuleBytes } from '../../../core/metrics/householder-wasm.js';
import { hypot } from '../../../core/metrics/eigenvalues.js';
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

test('the WebAssembly loops give the JavaScript loops\' eigenvalues to the bit', () => {
  assert.ok(householderKernels(400), 'WebAssembly runs the kernels on Node');
  // Both modules compile here: with the two-lane update and without it.
  const { validate } = (globalThis as unknown as { WebAssembly: { validate(bytes: Uint8Array): boolean } }).WebAssembly;
  for (const lanes of [true, false]) assert.ok(validate(householderModuleBytes(lanes)), `module (lanes: ${lanes}) is valid`);
  const random = mulberry32(11);
  // Gram matrices (positive semi-definite, as the Vendi kernels), odd and even sides, one with a
  // zero row and column (the reduction's scale = 0 branch), and a plain random symmetric one.
  const gram = (n: number, rank: number, zero = -1): Float64Array[] => {
    const X = Array.from({ length: n }, (_, i) => Float64Array.from({ length: rank }, () => (i === zero ? 0 : random() - 0.5)));
    return X.map((x) => Float64Array.from(X, (y) => x.reduce((s, v, k) => s + v * y[k]!, 0)));
  };
  const symmetric = (n: number): number[][] => {
    const A = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) A[i]![j] = A[j]![i] = random() * 4 - 2;
    return A;
  };
  const matrices = [gram(2, 1), gram(3, 2), gram(7, 7, 3), gram(64, 40), gram(65, 80, 0), gram(131, 30), symmetric(50), symmetric(97)];
  // Every side up to 40, for the QL iteration's branches (its sweeps, the sign of p, converged rows).
  for (let n = 2; n <= 40; n++) matrices.push(n % 2 ? symmetric(n) : gram(n, 1 + (n % 7)));
  for (const A of matrices) {
    const fast = symmetricEigenvalues(A);
    const plain = symmetricEigenvalues(A, { wasm: false });
    assert.is(fast.length, A.length);
    fast.forEach((value, i) => assert.ok(Object.is(value, plain[i]), `side ${A.length}, eigenvalue ${i}: ${value} against ${plain[i]}`));
  }
});

test('hypot gives Math.hypot\'s doubles, edge cases included', () => {
  const special = [0, -0, 1, -1, 0.5, 3, 4, 5e-324, 1e-310, 1e154, 1e308, Number.MAX_VALUE, Infinity, -Infinity, Number.NaN];
  for (const a of special) for (const b of special) assert.ok(Object.is(hypot(a, b), Math.hypot(a, b)), `hypot(${a}, ${b})`);
  const random = mulberry32(3);
  for (let i = 0; i < 200_000; i++) {
    const a = (random() - 0.5) * 10 ** (random() * 40 - 20);
    const b = i % 2 ? 1 : (random() - 0.5) * 10 ** (random() * 40 - 20);
    assert.ok(Object.is(hypot(a, b), Math.hypot(a, b)), `hypot(${a}, ${b})`);
  }
});

test.run();
