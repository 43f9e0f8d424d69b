/**
 * A limit of requests in flight: at most `limit` holders at once, the rest wait. Waiters go by
 * turn, then in arrival order: a waiter with a turn (nextTurn()) goes before any that began later
 * or has none, so callers that share the limit finish one after another instead of all at once.
 */
export class InFlightLimit {
  private active = 0;
  private turns = 0;
  private readonly waiting: { turn: number; resolve: () => void; reject: (reason: unknown) => void; signal?: AbortSignal; onAbort?: () => void }[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`the limit of requests in flight must be a positive integer, got ${limit}`);
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** A caller's turn: its waiters go before those of every caller whose turn came later. */
  nextTurn(): number {
    return this.turns++;
  }

  /**
   * Wait for a free slot, behind the waiters of earlier turns (`turn`, from nextTurn(); without
   * one, behind every waiter); returns the function that frees it (call it exactly once).
   */
  async acquire(signal?: AbortSignal, turn = Infinity): Promise<() => void> {
    if (signal?.aborted) throw signal.reason;
    if (this.active < this.limit) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const entry: (typeof this.waiting)[number] = { turn, resolve, reject, signal };
      if (signal) {
        entry.onAbort = () => {
          const index = this.waiting.indexOf(entry);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      // Behind every waiter of its turn or an earlier one (the list stays short: its users keep
      // one waiter per caller, or wait in arrival order without a turn).
      let at = this.waiting.length;
      while (at > 0 && this.waiting[at - 1]!.turn > turn) at--;
      this.waiting.splice(at, 0, entry);
    });
    return this.releaser();
  }

  /** Run `task` holding a slot. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) {
        if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
        next.resolve(); // the slot passes straight to the next waiter
      } else {
        this.active--;
      }
    };
  }
}
