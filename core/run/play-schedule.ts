/**
 * How a run keeps a model busy. An agent that waits on a model (Agent.capacity: its provider's
 * requests in flight) gets its episodes played at once:
 *   - an environment's attempts all at once, each on its own loaded environment (the gate's for
 *     the first, a fresh load for each other): no episode sees another's state, each has its own
 *     seed, so results are the same whatever the interleaving, and the same as one at a time;
 *   - environments kept in flight (at least --environments-in-flight, as many as `capacity`) so that
 *     `capacity` episodes are in play while there is work: one limit per suite holds the
 *     episodes in play to `capacity`, and the provider's own limit, not --environments-in-flight, bounds
 *     the model calls.
 * An agent that computes offline (the reference policy, which keeps a core busy) plays an
 * environment's attempts one after another on one loaded environment, --environments-in-flight
 * environments at once, as before.
 */
import type { Agent } from '../types.js';
import { InFlightLimit } from '../providers/in-flight-limit.js';
import { yieldToEventLoop } from './concurrency.js';

/** Environments a suite evaluates at once: --environments-in-flight, or for a model-driven agent enough to keep its capacity busy. */
export function environmentsInFlight(concurrency: number, agent: Pick<Agent, 'capacity'>, designerCapacity = 0): number {
  return Math.max(concurrency, agent.capacity ?? 0, designerCapacity);
}

/** The limit of a suite's episodes in play, for an agent with a capacity. */
export function playSlots(agent: Pick<Agent, 'capacity'>): InFlightLimit | undefined {
  return agent.capacity !== undefined && agent.capacity > 0 ? new InFlightLimit(Math.floor(agent.capacity)) : undefined;
}

/**
 * Play every item at once, each holding one of `slots` (when given) while it plays; results in
 * item order (undefined for an item not played because `signal` aborted first). Every play
 * settles before a failure is passed on, so none is left running.
 */
export async function playConcurrently<T, R>(
  items: readonly T[],
  slots: InFlightLimit | undefined,
  play: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<(R | undefined)[]> {
  const settled = await Promise.allSettled(
    items.map(async (item, index): Promise<R | undefined> => {
      if (signal?.aborted) return undefined;
      let release: (() => void) | undefined;
      if (slots) {
        try {
          release = await slots.acquire(signal);
        } catch {
          return undefined; // aborted while waiting for a slot
        }
      }
      try {
        // Let the event loop turn between episodes: an instant provider (a cache, a local stub)
        // would otherwise run a whole suite in microtasks, with signals, timers and the journal's
        // writes waiting until it ends.
        await yieldToEventLoop();
        if (signal?.aborted) return undefined;
        return await play(item, index);
      } finally {
        release?.();
      }
    }),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<R | undefined>).value);
}
