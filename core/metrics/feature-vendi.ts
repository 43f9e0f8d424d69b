/**
 * The Vendi score of a pool described by bags of features (n-grams of a task text, n-grams of
 * AST node types...), under the cosine-similarity kernel of their count vectors.
 *
 * Each item becomes a count vector x_i over its features, scaled to unit length, so the kernel
 * K = X Xᵀ has K[i][j] = cos(x_i, x_j) and K[i][i] = 1. An item with no features gets the one
 * feature `<empty>` (two empty items are identical, and unlike any non-empty item).
 *
 * Scaling to 5,000 items: K/n = X Xᵀ/n and Xᵀ X/n have the same non-zero eigenvalues, so the
 * score is computed exactly from whichever is smaller, n×n or d×d (d = distinct features).
 * Only when both exceed EXACT_LIMIT are features hashed (signed feature hashing, Weinberger et
 * al. 2009) into HASHED_DIMENSION buckets: inner products are then preserved in expectation
 * only, so the score is an approximation — reported via `approximate: true`.
 */
import { symmetricEigenvalues } from './eigenvalues.js';
import { vendiFromEigenvalues } from './vendi.js';
import { deriveSeed } from '../random.js';

/** Largest matrix side decomposed exactly (an O(side^3) eigen-decomposition). */
export const EXACT_LIMIT = 400;
/** Feature buckets used beyond EXACT_LIMIT. */
export const HASHED_DIMENSION = 400;

export interface FeatureVendi {
  vendi: number;
  /** True when features were hashed (n and d both above EXACT_LIMIT). */
  approximate: boolean;
}

type SparseVector = Map<number, number>;

/** Vendi score (order q) of the items described by `bags` (one array of feature strings per item). */
export function featureVendi(bags: readonly (readonly string[])[], q: number = 1): FeatureVendi {
  const n = bags.length;
  if (n === 0) return { vendi: 0, approximate: false };
  const ids = new Map<string, number>();
  const counts = bags.map((bag) => countFeatures(bag.length > 0 ? bag : ['<empty>'], (feature) => {
    let id = ids.get(feature);
    if (id === undefined) ids.set(feature, (id = ids.size));
    return id;
  }));
  const d = ids.size;
  if (n <= d && n <= EXACT_LIMIT) {
    return { vendi: vendiFromEigenvalues(kernelEigenvalues(counts.map(unitLength)), q), approximate: false };
  }
  if (d <= EXACT_LIMIT) {
    return { vendi: vendiFromEigenvalues(covarianceEigenvalues(counts.map(unitLength), d), q), approximate: false };
  }
  const hashed = bags.map((bag) => countFeatures(bag.length > 0 ? bag : ['<empty>'], (feature) => deriveSeed(0, feature)));
  const signed = hashed.map((vector) => {
    const folded: SparseVector = new Map();
    for (const [key, count] of vector) {
      const bucket = key % HASHED_DIMENSION;
      const sign = (key >>> 16) & 1 ? -1 : 1;
      folded.set(bucket, (folded.get(bucket) ?? 0) + sign * count);
    }
    return unitLength(folded);
  });
  return { vendi: vendiFromEigenvalues(covarianceEigenvalues(signed, HASHED_DIMENSION), q), approximate: true };
}

function countFeatures(bag: readonly string[], idOf: (feature: string) => number): SparseVector {
  const vector: SparseVector = new Map();
  for (const feature of bag) {
    const id = idOf(feature);
    vector.set(id, (vector.get(id) ?? 0) + 1);
  }
  return vector;
}

function unitLength(vector: SparseVector): SparseVector {
  let norm = 0;
  for (const value of vector.values()) norm += value * value;
  norm = Math.sqrt(norm);
  const unit: SparseVector = new Map();
  // A vector that cancelled out under hashing is left at zero: it adds no mass to the spectrum.
  if (norm > 0) for (const [key, value] of vector) unit.set(key, value / norm);
  return unit;
}

/** Eigenvalues of K/n, K[i][j] = <x_i, x_j>. */
function kernelEigenvalues(vectors: readonly SparseVector[]): number[] {
  const n = vectors.length;
  const K = vectors.map(() => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const [small, large] = vectors[i]!.size <= vectors[j]!.size ? [vectors[i]!, vectors[j]!] : [vectors[j]!, vectors[i]!];
      let dot = 0;
      for (const [key, value] of small) dot += value * (large.get(key) ?? 0);
      K[i]![j] = dot / n;
      K[j]![i] = dot / n;
    }
  }
  return symmetricEigenvalues(K);
}

/** Eigenvalues of Xᵀ X / n (d×d), the same non-zero spectrum as X Xᵀ / n. */
function covarianceEigenvalues(vectors: readonly SparseVector[], d: number): number[] {
  const n = vectors.length;
  const C = Array.from({ length: d }, () => new Float64Array(d));
  for (const vector of vectors) {
    const entries = [...vector];
    for (const [a, va] of entries) {
      const row = C[a]!;
      for (const [b, vb] of entries) row[b] = row[b]! + (va * vb) / n;
    }
  }
  return symmetricEigenvalues(C);
}
