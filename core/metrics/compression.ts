/**
 * Normalised compression distance (Cilibrasi & Vitányi 2005) with zlib (deflate, level 9):
 *   NCD(x, y) = (C(xy) - min(C(x), C(y))) / max(C(x), C(y))
 * about 0 for identical texts and about 1 for unrelated ones (slightly above 1 is possible).
 */
import { deflateRawSync } from 'node:zlib';
import { mulberry32 } from '../run/random.js';

/** Pairs measured at most: beyond, a seeded random sample of pairs (an unbiased estimate). */
export const MAX_NCD_PAIRS = 2000;

/**
 * The compressed size of a text: raw deflate, level 9. The output buffer is 1 KiB rather than
 * zlib's default 16 KiB, a fresh one per call: thousands of calls (a 2,000-pair mean) would
 * otherwise pile up tens of MiB of garbage. A longer text simply takes more buffers; the size
 * does not depend on it.
 */
export const compressedSize = (text: string): number => deflateRawSync(Buffer.from(text, 'utf8'), { level: 9, chunkSize: 1024 }).length;

export function normalizedCompressionDistance(x: string, y: string): number {
  return ncdWithSizes(x, y, compressedSize(x), compressedSize(y));
}

function ncdWithSizes(x: string, y: string, cx: number, cy: number): number {
  const cxy = compressedSize(x + y);
  return (cxy - Math.min(cx, cy)) / Math.max(cx, cy);
}

/**
 * Mean NCD over pairs of distinct items: every pair when there are at most MAX_NCD_PAIRS,
 * otherwise MAX_NCD_PAIRS pairs drawn with a seeded generator. NaN for fewer than 2 items.
 */
export function meanPairwiseNcd(texts: readonly string[], seed: number = 1): number {
  const n = texts.length;
  if (n < 2) return Number.NaN;
  const sizes = new Map<number, number>();
  const sizeOf = (i: number) => {
    let size = sizes.get(i);
    if (size === undefined) sizes.set(i, (size = compressedSize(texts[i]!)));
    return size;
  };
  const pair = (i: number, j: number) => ncdWithSizes(texts[i]!, texts[j]!, sizeOf(i), sizeOf(j));
  let sum = 0;
  let count = 0;
  if ((n * (n - 1)) / 2 <= MAX_NCD_PAIRS) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++, count++) sum += pair(i, j);
  } else {
    const random = mulberry32(seed);
    for (; count < MAX_NCD_PAIRS; count++) {
      const i = Math.floor(random() * n);
      let j = Math.floor(random() * (n - 1));
      if (j >= i) j++;
      sum += pair(i, j);
    }
  }
  return sum / count;
}
