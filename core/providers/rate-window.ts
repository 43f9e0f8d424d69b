/**
 * A sliding one-minute window for requests-per-minute and tokens-per-minute limits.
 * `take(amount)` waits until the amount fits in the window, then books it; a booking can be
 * corrected afterwards (tokens are estimated before a call and known after it).
 */
import { sleep } from './backoff.js';

export interface Booking {
  /** Replace the booked amount with the real one. */
  settle(actual: number): void;
}

interface Entry {
  at: number;
  amount: number;
}

export class RateWindow {
  private entries: Entry[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    if (!(limit > 0)) throw new RangeError(`rate limit must be positive, got ${limit}`);
  }

  /** Amount booked in the last window. */
  used(): number {
    this.prune();
    return this.entries.reduce((sum, e) => sum + e.amount, 0);
  }

  /**
   * Wait until `amount` fits, then book it. An amount larger than the whole limit waits for an
   * empty window rather than forever.
   */
  async take(amount: number, signal?: AbortSignal): Promise<Booking> {
    for (;;) {
      const wait = this.waitFor(amount);
      if (wait <= 0) break;
      await sleep(wait, signal);
    }
    const entry: Entry = { at: this.now(), amount };
    this.entries.push(entry);
    return { settle: (actual) => void (entry.amount = Math.max(0, actual)) };
  }

  /** Milliseconds until `amount` fits (0 when it fits now). */
  private waitFor(amount: number): number {
    this.prune();
    let used = this.entries.reduce((sum, e) => sum + e.amount, 0);
    if (used === 0 || used + amount <= this.limit) return 0;
    const now = this.now();
    for (const entry of this.entries) {
      used -= entry.amount;
      if (used === 0 || used + amount <= this.limit) return Math.max(1, entry.at + this.windowMs - now);
    }
    return 1;
  }

  private prune(): void {
    const cutoff = this.now() - this.windowMs;
    while (this.entries.length > 0 && this.entries[0]!.at <= cutoff) this.entries.shift();
  }
}
