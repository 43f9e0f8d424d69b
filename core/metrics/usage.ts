/**
 * Token usage and cost of model calls.
 */
import type { TokenUsage } from '../types.js';
import type { UsageMetrics } from '../results/results.js';

/** One model call (a ChatResponse fits), or several folded together with `calls`. */
export interface UsageRecord {
  usage?: TokenUsage;
  costUsd?: number;
  cached?: boolean;
  /** How many calls this record stands for (default 1; e.g. an episode's turns). */
  calls?: number;
}

/** Totals over `records`. Unknown costs count as 0. */
export function usageMetrics(records: readonly UsageRecord[]): UsageMetrics {
  const totals: UsageMetrics = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, cachedCalls: 0 };
  for (const record of records) {
    const calls = record.calls ?? 1;
    totals.calls += calls;
    totals.inputTokens += record.usage?.inputTokens ?? 0;
    totals.outputTokens += record.usage?.outputTokens ?? 0;
    totals.costUsd += record.costUsd ?? 0;
    if (record.cached) totals.cachedCalls += calls;
  }
  return totals;
}
