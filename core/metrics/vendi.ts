/**
 * The Vendi score (Friedman & Dieng 2023): the effective number of distinct items in a pool,
 * exp of the order-q Rényi entropy of the eigenvalues of K/n, where K is an n×n similarity
 * matrix with K[i][i] = 1. Identity (all different) gives n; all-ones (all the same) gives 1.
 */
import { symmetricEigenvalues } from './eigenvalues.js';

/**
 * exp of the order-q Rényi entropy of `weights` (eigenvalues of K/n: non-negative, summing to 1).
 * Rounding noise is clamped: negative weights count as 0. q = 1 is Shannon, q = Infinity is
 * min-entropy (1 / largest weight), q = 0 counts the non-zero weights.
 */
export function vendiFromEigenvalues(weights: readonly number[], q: number = 1): number {
  if (!(q >= 0)) throw new RangeError(`q must be >= 0, got ${q}`);
  const largest = weights.reduce((max, w) => Math.max(max, w), 0);
  // Eigenvalues below this are rounding noise of a zero eigenvalue.
  const floor = largest * 1e-12;
  const p = weights.filter((w) => w > floor);
  if (p.length === 0) return 0;
  if (q === 1) return Math.exp(-p.reduce((sum, w) => sum + w * Math.log(w), 0));
  if (q === Infinity) return 1 / largest;
  return Math.exp(Math.log(p.reduce((sum, w) => sum + w ** q, 0)) / (1 - q));
}

/** Vendi score of an n×n symmetric similarity matrix K (unit diagonal), order q (default 1). */
export function vendiScore(K: readonly (readonly number[])[], q: number = 1): number {
  const n = K.length;
  if (n === 0) return 0;
  return vendiFromEigenvalues(
    symmetricEigenvalues(K).map((lambda) => lambda / n),
    q,
  );
}
