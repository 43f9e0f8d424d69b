/**
 * Budgeted enumeration over a product of integer ranges in a seeded random order: the core
 * move of the reference agent's single-answer solvers (and of its Mastermind player).
 */
import { randomPermutation, type Random } from './random.js';

/** Integers lo..hi, both inclusive. */
export interface IntRange {
  lo: number;
  hi: number;
}

export function productSize(ranges: readonly IntRange[]): number {
  return ranges.reduce((size, r) => size * Math.max(0, r.hi - r.lo + 1), 1);
}

/** A uniformly random candidate of a product (the guess when a search runs out of budget). */
export function randomCandidate(ranges: readonly IntRange[], random: Random): number[] {
  return ranges.map((r) => r.lo + Math.floor(random() * (r.hi - r.lo + 1)));
}

/** Write the candidate with this index (mixed radix over the ranges, last range fastest) into `out`. */
export function decodeCandidate(index: number, ranges: readonly IntRange[], out: number[]): number[] {
  for (let i = ranges.length - 1; i >= 0; i--) {
    const r = ranges[i]!;
    const width = r.hi - r.lo + 1;
    out[i] = r.lo + (index % width);
    index = Math.floor(index / width);
  }
  return out;
}

/** Candidates of a product, in a seeded random order, handed out a budget at a time. */
export class CandidateSweep {
  readonly size: number;
  private readonly order: (i: number) => number;
  private cursor = 0;
  private readonly scratch: number[];

  constructor(private readonly ranges: readonly IntRange[], random: Random) {
    this.size = productSize(ranges);
    this.order = randomPermutation(this.size, random);
    this.scratch = new Array<number>(ranges.length).fill(0);
  }

  get exhausted(): boolean {
    return this.cursor >= this.size;
  }

  /** The next candidate (at most `budget` tried) that passes `test`, or undefined. */
  next(budget: number, test: (candidate: readonly number[]) => boolean): number[] | undefined {
    for (let tried = 0; tried < budget && this.cursor < this.size; tried++) {
      decodeCandidate(this.order(this.cursor++), this.ranges, this.scratch);
      if (test(this.scratch)) return this.scratch.slice();
    }
    return undefined;
  }
}

/** The first of at most `budget` random-order candidates that passes `test`, or undefined. */
export function searchProduct(
  ranges: readonly IntRange[],
  budget: number,
  random: Random,
  test: (candidate: readonly number[]) => boolean,
): number[] | undefined {
  if (ranges.some((r) => r.hi < r.lo)) return undefined;
  return new CandidateSweep(ranges, random).next(budget, test);
}
