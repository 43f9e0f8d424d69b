/**
 * The Vendi score of a pool described by bags of features (n-grams of a task text, n-grams of
 * AST node types...), under the cosine-similarity kernel of their count vectors.
 *
 * Each item becomes a count vector x_i over its features, scaled to unit length, so the kernel
 * K = X Xᵀ has K[i][j] = cos(x_i, x_j) and K[i][i] = 1. An item with no features gets the one
 * feature `<empty>` (two empty items are identical, and unlike any non-empty item).
 *
 * Scaling to 5,000 items: K/n = X Xᵀ/n and Xᵀ X/n have the same non-zero eigenvalues, so the
 * score is computed exactly from whichever is smaller, n×n or d×d (d = distinct features), or
 * from the m×m matrix of the m distinct items (weighted by their copies) when they are few.
 * Only when all three exceed EXACT_LIMIT are features hashed (signed feature hashing, Weinberger et
 * al. 2009) into HASHED_DIMENSION buckets: inner products are then preserved in expectation
 * only, so the score is an approximation — reported via `approximate: true`.
 */
import { symmetricEigenvalues } from './eigenvalues.js';
import { vendiFromEigenvalues } from './vendi.js';
import { deriveSeedFromIndex } from '../run/random.js';

/** Largest matrix side decomposed exactly (an O(side^3) eigen-decomposition). */
export const EXACT_LIMIT = 400;
/** Feature buckets used beyond EXACT_LIMIT. */
export const HASHED_DIMENSION = 400;

export interface FeatureVendi {
  vendi: number;
  /** True when features were hashed (n and d both above EXACT_LIMIT). */
  approximate: boolean;
}

/** A unit-length sparse vector: feature ids ascending, with their values. */
interface SparseUnit {
  ids: Int32Array;
  values: Float64Array;
}

/** Bags turned into unit vectors once, so that many subsets can be scored cheaply. */
export interface PreparedFeatures {
  vectors: readonly SparseUnit[];
  /** Distinct features over all bags. */
  dimension: number;
}

export function prepareFeatures(bags: readonly (readonly string[])[]): PreparedFeatures {
  const ids = new Map<string, number>();
  // A static suite repeats a program thousands of times with one cached bag: one id bag for it.
  const converted = new Map<readonly string[], Int32Array>();
  const idBags = bags.map((bag) => {
    let known = converted.get(bag);
    if (!known) {
      const features = bag.length > 0 ? bag : EMPTY_BAG;
      known = new Int32Array(features.length);
      for (let i = 0; i < features.length; i++) {
        let id = ids.get(features[i]!);
        if (id === undefined) ids.set(features[i]!, (id = ids.size));
        known[i] = id;
      }
      converted.set(bag, known);
    }
    return known;
  });
  return prepareIdBags(idBags, ids.size);
}

/**
 * The same from bags of feature ids (0 <= id < dimension, numbered in order of first appearance,
 * as prepareFeatures numbers strings; an item with no features carries the id of `<empty>`).
 */
export function prepareIdBags(bags: readonly Int32Array[], dimension: number): PreparedFeatures {
  // One vector per bag object.
  const made = new Map<Int32Array, SparseUnit>();
  // Equal bags (the same program's features in two arrays) become one vector, like a shared bag:
  // vectors are bucketed by a hash of their counts and compared exactly within a bucket.
  const equal = new Map<number, { ids: Int32Array; counts: Float64Array; vector: SparseUnit }[]>();
  let scratch = new Int32Array(64);
  const vectors = bags.map((bag) => {
    const known = made.get(bag);
    if (known) return known;
    if (scratch.length < bag.length) scratch = new Int32Array(bag.length * 2);
    scratch.set(bag);
    const sorted = scratch.subarray(0, bag.length).sort();
    // Distinct ids ascending, with their counts.
    let distinct = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) distinct++;
    const unique = new Int32Array(distinct);
    const counts = new Float64Array(distinct);
    let hash = 0x811c9dc5;
    for (let i = 0, k = -1; i < sorted.length; i++) {
      if (i === 0 || sorted[i] !== sorted[i - 1]) unique[++k] = sorted[i]!;
      counts[k] = counts[k]! + 1;
    }
    for (let k = 0; k < distinct; k++) hash = Math.imul(hash ^ unique[k]!, 0x01000193) ^ Math.imul(counts[k]!, 0x9e3779b1);
    let bucket = equal.get(hash);
    if (!bucket) equal.set(hash, (bucket = []));
    let vector = bucket.find((e) => sameEntries(e.ids, e.counts, unique, counts))?.vector;
    if (!vector) {
      vector = normalised(unique, Float64Array.from(counts));
      bucket.push({ ids: unique, counts, vector });
    }
    made.set(bag, vector);
    return vector;
  });
  return { vectors, dimension };
}

/** The one feature of an item with none. */
export const EMPTY_FEATURE = '<empty>';
const EMPTY_BAG: readonly string[] = [EMPTY_FEATURE];

function sameEntries(aIds: Int32Array, aCounts: Float64Array, bIds: Int32Array, bCounts: Float64Array): boolean {
  if (aIds.length !== bIds.length) return false;
  for (let i = 0; i < aIds.length; i++) if (aIds[i] !== bIds[i] || aCounts[i] !== bCounts[i]) return false;
  return true;
}

/** Vendi score (order q) of the items described by `bags` (one array of feature strings per item). */
export function featureVendi(bags: readonly (readonly string[])[], q: number = 1): FeatureVendi {
  return preparedVendi(prepareFeatures(bags), undefined, q);
}

/** Vendi score of the items at `indices` (repeats allowed; default all) of a prepared pool. */
export function preparedVendi(prepared: PreparedFeatures, indices?: readonly number[], q: number = 1): FeatureVendi {
  const vectors = indices ? indices.map((i) => prepared.vectors[i]!) : prepared.vectors;
  const n = vectors.length;
  if (n === 0) return { vendi: 0, approximate: false };
  const d = prepared.dimension;
  // Few distinct items among many (a dataset's programs, one template): exact from the distinct
  // ones, when that matrix is at most half the side of the others (a pool of copies of one
  // program is one 1x1 matrix rather than a d x d covariance).
  const distinct = new Set(vectors).size;
  if (distinct <= EXACT_LIMIT && 2 * distinct <= Math.min(n, d)) return { vendi: vendiFromEigenvalues(distinctKernelEigenvalues(vectors), q), approximate: false };
  if (n <= d && n <= EXACT_LIMIT) return { vendi: vendiFromEigenvalues(kernelEigenvalues(vectors), q), approximate: false };
  if (d <= EXACT_LIMIT) return { vendi: vendiFromEigenvalues(covarianceEigenvalues(vectors, d), q), approximate: false };
  if (distinct <= EXACT_LIMIT) return { vendi: vendiFromEigenvalues(distinctKernelEigenvalues(vectors), q), approximate: false };
  return { vendi: vendiFromEigenvalues(covarianceEigenvalues(hashedVectors(prepared, vectors), HASHED_DIMENSION), q), approximate: true };
}

/** The vectors with their features hashed into HASHED_DIMENSION signed buckets, each scaled to unit length again. */
function hashedVectors(prepared: PreparedFeatures, vectors: readonly SparseUnit[]): SparseUnit[] {
  const { bucket, sign } = hashingOf(prepared);
  const sums = new Float64Array(HASHED_DIMENSION);
  const touched = new Uint8Array(HASHED_DIMENSION);
  const folded = new Map<SparseUnit, SparseUnit>();
  return vectors.map((vector) => {
    const known = folded.get(vector);
    if (known) return known;
    touched.fill(0);
    let count = 0;
    for (let k = 0; k < vector.ids.length; k++) {
      const b = bucket[vector.ids[k]!]!;
      if (!touched[b]) {
        touched[b] = 1;
        sums[b] = 0;
        count++;
      }
      sums[b] = sums[b]! + sign[vector.ids[k]!]! * vector.values[k]!;
    }
    const ids = new Int32Array(count);
    const values = new Float64Array(count);
    for (let b = 0, i = 0; b < HASHED_DIMENSION; b++) {
      if (touched[b]) {
        ids[i] = b;
        values[i++] = sums[b]!;
      }
    }
    const unit = normalised(ids, values);
    folded.set(vector, unit);
    return unit;
  });
}

/** Each feature's bucket and sign under hashing, computed once per prepared pool. */
const hashings = new WeakMap<PreparedFeatures, { bucket: Int32Array; sign: Int8Array }>();
function hashingOf(prepared: PreparedFeatures): { bucket: Int32Array; sign: Int8Array } {
  let hashing = hashings.get(prepared);
  if (!hashing) {
    const bucket = new Int32Array(prepared.dimension);
    const sign = new Int8Array(prepared.dimension);
    for (let id = 0; id < prepared.dimension; id++) {
      const hash = deriveSeedFromIndex(0, id);
      bucket[id] = hash % HASHED_DIMENSION;
      sign[id] = (hash >>> 16) & 1 ? -1 : 1;
    }
    hashings.set(prepared, (hashing = { bucket, sign }));
  }
  return hashing;
}

/** The vector (ids ascending) scaled to unit length, in place. */
function normalised(ids: Int32Array, values: Float64Array): SparseUnit {
  let norm = 0;
  for (let i = 0; i < values.length; i++) norm += values[i]! * values[i]!;
  norm = Math.sqrt(norm);
  // A vector that cancelled out under hashing stays zero: it adds no mass to the spectrum.
  for (let i = 0; i < values.length; i++) values[i] = norm > 0 ? values[i]! / norm : 0;
  return { ids, values };
}

/**
 * The inner products of m vectors, G[a * m + b] for b < a (and mirrored): each pair's sum over
 * their shared features, walking both id lists (ascending) together. No array as wide as the
 * feature space is made: an equal-size resample of 64 texts would otherwise make one of the
 * whole pool's tens of thousands of features for each of its replicates.
 */
function innerProducts(vectors: readonly SparseUnit[]): Float64Array {
  const m = vectors.length;
  const inner = new Float64Array(m * m);
  for (let a = 1; a < m; a++) {
    const x = vectors[a]!;
    for (let b = 0; b < a; b++) inner[a * m + b] = inner[b * m + a] = dot(x, vectors[b]!);
  }
  return inner;
}

/** The inner product of two sparse vectors, their products summed in the order of `y`'s ids. */
function dot(x: SparseUnit, y: SparseUnit): number {
  let sum = 0;
  for (let i = 0, k = 0; i < x.ids.length && k < y.ids.length;) {
    if (x.ids[i]! < y.ids[k]!) i++;
    else if (x.ids[i]! > y.ids[k]!) k++;
    else sum += x.values[i++]! * y.values[k++]!;
  }
  return sum;
}

/** Eigenvalues of K/n, K[i][j] = <x_i, x_j>. */
function kernelEigenvalues(vectors: readonly SparseUnit[]): number[] {
  const n = vectors.length;
  // Each distinct vector's inner products are computed once (a static suite repeats programs).
  const index = new Map<SparseUnit, number>();
  const at = vectors.map((vector) => {
    let k = index.get(vector);
    if (k === undefined) index.set(vector, (k = index.size));
    return k;
  });
  const distinct = [...index.keys()];
  const m = distinct.length;
  const inner = innerProducts(distinct);
  const K = vectors.map(() => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const value = (vectors[i] === vectors[j] ? 1 : inner[at[i]! * m + at[j]!]!) / n;
      K[i]![j] = value;
      K[j]![i] = value;
    }
  }
  return symmetricEigenvalues(K);
}

/**
 * Eigenvalues of K/n from the m distinct vectors alone: with c_i copies of each, K/n = P G Pᵀ / n
 * (G their Gram matrix, P the n×m copy indicator) has the non-zero spectrum of the symmetric
 * m×m matrix sqrt(c_i c_j) G_ij / n; the zero eigenvalues add nothing to a Vendi score.
 */
function distinctKernelEigenvalues(vectors: readonly SparseUnit[]): number[] {
  const n = vectors.length;
  const copies = new Map<SparseUnit, number>();
  for (const vector of vectors) copies.set(vector, (copies.get(vector) ?? 0) + 1);
  const distinct = [...copies.keys()];
  const weight = distinct.map((v) => Math.sqrt(copies.get(v)!));
  const m = distinct.length;
  const inner = innerProducts(distinct);
  const M = distinct.map(() => new Float64Array(m));
  for (let a = 0; a < m; a++) {
    for (let b = 0; b <= a; b++) {
      const value = (weight[a]! * weight[b]! * (a === b ? 1 : inner[a * m + b]!)) / n;
      M[a]![b] = value;
      M[b]![a] = value;
    }
  }
  return symmetricEigenvalues(M);
}

/** Eigenvalues of Xᵀ X / n (d×d), the same non-zero spectrum as X Xᵀ / n. */
function covarianceEigenvalues(vectors: readonly SparseUnit[], d: number): number[] {
  const n = vectors.length;
  // The same vector m times adds m x x^T once (in order of first appearance).
  const times = new Map<SparseUnit, number>();
  for (const vector of vectors) times.set(vector, (times.get(vector) ?? 0) + 1);
  // The lower triangle, C[q][p] for p <= q (ids ascend), each entry summed vector by vector.
  const C = Array.from({ length: d }, () => new Float64Array(d));
  for (const [{ ids, values }, m] of times) {
    for (let b = 0; b < ids.length; b++) {
      const vb = values[b]!;
      for (let a = b; a < ids.length; a++) {
        const row = C[ids[a]!]!;
        row[ids[b]!] = row[ids[b]!]! + ((values[a]! * m) / n) * vb;
      }
    }
  }
  return symmetricEigenvalues(C);
}
