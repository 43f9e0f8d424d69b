/**
 * Per-provider usage and latency: what results carry as `metrics.usage`, and the latency
 * percentiles reported per provider.
 */
import type { UsageMetrics } from '../results/results.js';
import type { TokenUsage } from '../types.js';

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

/** The sum of several usages (designer + agent). */
export function addUsage(...usages: UsageMetrics[]): UsageMetrics {
  const total = emptyUsage();
  for (const u of usages) {
    total.calls += u.calls;
    total.inputTokens += u.inputTokens;
    total.outputTokens += u.outputTokens;
    total.costUsd += u.costUsd;
    total.cachedCalls += u.cachedCalls;
  }
  return total;
}

/** Latency samples kept; beyond this the oldest are overwritten (a ring). */
const MAX_SAMPLES = 100_000;

export class ProviderStats {
  private readonly totals = emptyUsage();
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
    this.totals.calls++;
    if (cached) {
      this.totals.cachedCalls++;
      return;
    }
    this.totals.inputTokens += usage.inputTokens;
    this.totals.outputTokens += usage.outputTokens;
    this.totals.costUsd += costUsd ?? 0;
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

  latency(): LatencySummary {
    const sorted = [...this.samples].sort((a, b) => a - b);
    return { count: sorted.length, p50Ms: quantile(sorted, 0.5), p95Ms: quantile(sorted, 0.95), maxMs: sorted.at(-1) ?? 0 };
  }

  snapshot(): ProviderStatsSnapshot {
    return { providerId: this.providerId, usage: this.usage(), retries: this.retryCount, failures: this.failureCount, latency: this.latency() };
  }
}
