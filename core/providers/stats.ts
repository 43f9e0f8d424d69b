/**
 * Per-provider usage and latency: what results carry as `metrics.usage`, and the latency
 * percentiles reported per provider; and usage meters, which give each call to the piece of
 * work it was made for (an episode), whatever else is in flight.
 *
 * A meter is made active for a piece of work with meterCalls(): every call the layer answers
 * while that work runs (in its async context: Node's AsyncLocalStorage) is added to it (and to
 * its provider's usage()). A call answered with no meter active (a designer's, a hint's, a
 * review's) is outside: its provider's outsideUsage() counts it. A run counts an episode's
 * calls through its `spent` (journaled with it) and the rest through the providers' outside
 * usage, so that a resumed run counts the episodes it keeps and not those it plays again
 * (core/results/resume.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TokenUsage, UsageMetrics } from '../concepts/provider.js';

export interface LatencySummary {
  /** Live (not cached) successful calls measured. */
  count: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface ProviderStatsSnapshot {
  providerId: string;
  usage: UsageMetrics;
  /** Retried attempts (429, 5xx, timeouts, dropped connections). */
  retries: number;
  /** Calls that failed after the last retry. */
  failures: number;
  latency: LatencySummary;
}

/** The `q` quantile (0..1) of sorted samples, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

export function emptyUsage(): UsageMetrics {
  return { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, cachedCalls: 0 };
}

/** `after - before`: the usage of one suite from two snapshots of the same provider. */
export function usageBetween(before: UsageMetrics, after: UsageMetrics): UsageMetrics {
  return {
    calls: after.calls - before.calls,
    inputTokens: after.inputTokens - before.inputTokens,
    outputTokens: after.outputTokens - before.outputTokens,
    costUsd: after.costUsd - before.costUsd,
    cachedCalls: after.cachedCalls - before.cachedCalls,
  };
}

/** Add `u` into `total`. */
function addInto(total: UsageMetrics, u: UsageMetrics): void {
  total.calls += u.calls;
  total.inputTokens += u.inputTokens;
  total.outputTokens += u.outputTokens;
  total.costUsd += u.costUsd;
  total.cachedCalls += u.cachedCalls;
}

/** The sum of several usages (designer + agent). */
export function addUsage(...usages: UsageMetrics[]): UsageMetrics {
  const total = emptyUsage();
  for (const u of usages) addInto(total, u);
  return total;
}

/** `total` split into `parts` whole shares that add up to it (the first ones one larger). */
export function shares(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  return Array.from({ length: parts }, (_, i) => base + (i < total - base * parts ? 1 : 0));
}

/**
 * Share `index` of `parts` of a usage several episodes shared (one request carrying their n
 * samples): calls and tokens in whole shares (the first ones one larger), the cost evenly, so
 * that the shares of all `parts` add up to the whole, whichever episodes take them and when.
 */
export function usageShare(usage: UsageMetrics, index: number, parts: number): UsageMetrics {
  const i = ((index % parts) + parts) % parts;
  return {
    calls: shares(usage.calls, parts)[i]!,
    inputTokens: shares(usage.inputTokens, parts)[i]!,
    outputTokens: shares(usage.outputTokens, parts)[i]!,
    costUsd: usage.costUsd / parts,
    cachedCalls: shares(usage.cachedCalls, parts)[i]!,
  };
}

/** What the model calls of one piece of work spent (an episode; or a request several episodes share, until they take their shares). */
export class UsageMeter {
  private readonly total = emptyUsage();

  add(usage: UsageMetrics): void {
    addInto(this.total, usage);
  }

  usage(): UsageMetrics {
    return { ...this.total };
  }
}

/**
 * The active meter of each async context. One per thread, kept on globalThis so that a plugin
 * loaded with its own copy of core meters its calls in the same store as the run.
 */
const METERS = Symbol.for('spade-bench.usage-meters');
const meters = ((globalThis as Record<symbol, unknown>)[METERS] ??= new AsyncLocalStorage<UsageMeter>()) as AsyncLocalStorage<UsageMeter>;

/** Run `work` with `meter` active: the calls answered in it (and in everything it starts) are added to `meter`. */
export function meterCalls<T>(meter: UsageMeter, work: () => T): T {
  return meters.run(meter, work);
}

/** The meter active here, if any. */
export function activeMeter(): UsageMeter | undefined {
  return meters.getStore();
}

/** Latency samples kept; beyond this the oldest are overwritten (a ring). */
const MAX_SAMPLES = 100_000;

export class ProviderStats {
  private readonly totals = emptyUsage();
  /** The calls answered with no meter active (outside any episode). */
  private readonly outside = emptyUsage();
  private retryCount = 0;
  private failureCount = 0;
  private readonly samples: number[] = [];
  private next = 0;
  /** Latency samples recorded so far (a mark for `samplesAfter`). */
  recorded = 0;

  constructor(readonly providerId: string) {}

  /**
   * One answered call. Tokens and cost count live calls only: a cached reply costs nothing.
   * `calls` counts both, `cachedCalls` the cached ones.
   */
  recordCall(usage: TokenUsage, costUsd: number | undefined, latencyMs: number, cached: boolean): void {
    const call: UsageMetrics = cached
      ? { calls: 1, inputTokens: 0, outputTokens: 0, costUsd: 0, cachedCalls: 1 }
      : { calls: 1, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costUsd: costUsd ?? 0, cachedCalls: 0 };
    addInto(this.totals, call);
    const meter = activeMeter();
    if (meter) meter.add(call);
    else addInto(this.outside, call);
    if (cached) return;
    if (this.samples.length < MAX_SAMPLES) this.samples.push(latencyMs);
    else this.samples[this.next++ % MAX_SAMPLES] = latencyMs;
    this.recorded++;
  }

  /** The latencies recorded after `mark` (a past value of `recorded`), as far as the ring still holds them. */
  samplesAfter(mark: number): number[] {
    const count = Math.min(this.recorded - mark, this.samples.length);
    if (count <= 0) return [];
    if (this.samples.length < MAX_SAMPLES) return this.samples.slice(this.samples.length - count);
    const end = this.next % MAX_SAMPLES;
    return [...this.samples.slice(end), ...this.samples.slice(0, end)].slice(-count);
  }

  recordRetry(): void {
    this.retryCount++;
  }

  recordFailure(): void {
    this.failureCount++;
  }

  usage(): UsageMetrics {
    return { ...this.totals };
  }

  /** The calls answered with no meter active: outside any episode (a designer's, a hint's, a review's). */
  outsideUsage(): UsageMetrics {
    return { ...this.outside };
  }

  latency(): LatencySummary {
    const sorted = [...this.samples].sort((a, b) => a - b);
    return { count: sorted.length, p50Ms: quantile(sorted, 0.5), p95Ms: quantile(sorted, 0.95), maxMs: sorted.at(-1) ?? 0 };
  }

  snapshot(): ProviderStatsSnapshot {
    return { providerId: this.providerId, usage: this.usage(), retries: this.retryCount, failures: this.failureCount, latency: this.latency() };
  }
}
