/**
 * A bounded, seeded sample of a stream of numbers (reservoir sampling, Algorithm R): every value
 * while there are at most `capacity`, then a uniform sample of that many. Percentiles of a few
 * thousand calls are then exact, and those of millions are estimated from a sample that does
 * not grow (the draws are seeded, so one order of values gives one sample).
 */
import { mulberry32 } from '../run/random.js';

export const RESERVOIR_CAPACITY = 10_000;

export class Reservoir {
  private readonly kept: number[] = [];
  private seen = 0;
  private readonly random: () => number;

  constructor(readonly capacity = RESERVOIR_CAPACITY, seed = 1) {
    this.random = mulberry32(seed);
  }

  add(value: number): void {
    this.seen++;
    if (this.kept.length < this.capacity) {
      this.kept.push(value);
      return;
    }
    const slot = Math.floor(this.random() * this.seen);
    if (slot < this.capacity) this.kept[slot] = value;
  }

  /** Values offered so far. */
  get count(): number {
    return this.seen;
  }

  /** The sample: every value offered while they fit, in order. */
  values(): readonly number[] {
    return this.kept;
  }
}
