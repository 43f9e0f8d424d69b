/**
 * How a run keeps a model busy. An agent that waits on a model (Agent.capacity: its provider's
 * requests in flight) gets its episodes played at once:
 *   - an environment's attempts at once, as many as the suite's free slots allow, each on its own
 *     loaded environment (a fresh load for each): no episode sees another's state, each has its
 *     own seed, so results are the same whatever the interleaving, and the same as one at a time;
 *   - environments kept in flight (at least --environments-in-flight, as many as `capacity`) so that
 *     `capacity` episodes are in play while there is work: one limit per suite holds the
 *     episodes in play to `capacity`, and the provider's own limit, not --environments-in-flight, bounds
 *     the model calls. A freed slot goes to the environment that began first, so environments
 *     finish one after another (playConcurrently).
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
 * Play every item, each holding one of `slots` (when given) while it plays, or all at once
 * without; results in item order (undefined for an item not played because `signal` aborted
 * first).
 *
 * A play starts only once it holds its slot: this caller keeps at most one waiter on `slots`
 * (acquire, start the play, acquire the next), not one suspended play per item, which for an
 * environment played thousands of times would hold thousands of pending calls and abort
 * listeners. It waits with a turn of its own (InFlightLimit.nextTurn), so a freed slot goes to
 * the caller that began first: environments sharing a suite's slots finish one after another and
 * hand their episodes on, rather than all holding theirs to the end.
 *
 * After a failure or an abort no play starts; every started play settles before a failure (the
 * first in item order) is passed on, so none is left running.
 */
export async function playConcurrently<T, R>(
  items: readonly T[],
  slots: InFlightLimit | undefined,
  play: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array(items.length).fill(undefined);
  const failures = new Map<number, unknown>();
  const running = new Set<Promise<void>>();
  const start = (index: number, release?: () => void): void => {
    const playing = (async () => {
      try {
        // Let the event loop turn between episodes: an instant provider (a cache, a local stub)
        // would otherwise run a whole suite in microtasks, with signals, timers and the journal's
        // writes waiting until it ends.
        await yieldToEventLoop();
        if (signal?.aborted || failures.size) return;
        results[index] = await play(items[index]!, index);
      } catch (error) {
        failures.set(index, error);
      } finally {
        release?.();
      }
    })();
    running.add(playing);
    void playing.finally(() => running.delete(playing));
  };
  const turn = slots?.nextTurn();
  for (let index = 0; index < items.length; index++) {
    if (failures.size || signal?.aborted) break;
    let release: (() => void) | undefined;
    if (slots) {
      try {
        release = await slots.acquire(signal, turn);
      } catch {
        break; // aborted while waiting for a slot
      }
      if (failures.size) {
        release();
        break;
      }
    }
    start(index, release);
  }
  await Promise.all(running);
  if (failures.size) throw failures.get(Math.min(...failures.keys()));
  return results;
}
