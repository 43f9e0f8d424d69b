import { mulberry32 } from '../../core/run/random.js';

/** The reference agent's own seeded randomness (mulberry32): same seed, same choices. */
export type Random = () => number;

export function createRandom(seed: number): Random {
  return mulberry32(Number.isFinite(seed) ? Math.floor(Math.abs(seed)) : 0);
}

/** An integer in [lo, hi], both inclusive. */
export function randomInt(random: Random, lo: number, hi: number): number {
  return lo + Math.floor(random() * (hi - lo + 1));
}

export function randomItem<T>(random: Random, items: readonly T[]): T | undefined {
  return items.length === 0 ? undefined : items[Math.floor(random() * items.length)];
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * A random permutation of 0..size-1 without materialising it: i -> (a*i + b) mod size with
 * a coprime to size. Enough spread for a search order; not cryptographic.
 */
export function randomPermutation(size: number, random: Random): (i: number) => number {
  if (size <= 1) return () => 0;
  let a = randomInt(random, 1, size - 1);
  while (gcd(a, size) !== 1) a = a === size - 1 ? 1 : a + 1;
  const b = randomInt(random, 0, size - 1);
  return (i) => (a * i + b) % size;
}
