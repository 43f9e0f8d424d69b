/**
 * Throughput: episodes and environment steps per second of wall time.
 */
import type { EpisodeResult } from '../types.js';
import type { LatencySummary, ThroughputMetrics } from '../results/results.js';
import { percentiles } from './percentiles.js';

export interface ThroughputExtras {
  /** Environments that passed the gate. */
  valid?: number;
  /** Model tokens spent (input + output). */
  tokens?: number;
  /** Wall time of each provider call, in milliseconds. */
  providerCallMs?: readonly number[];
  /** Wall time of each sandbox method call, in milliseconds (or of a sample of them: see sandboxCalls). */
  sandboxCallMs?: readonly number[];
  /** Sandbox calls made, when sandboxCallMs is a sample of them. */
  sandboxCalls?: number;
}

/** Median and 95th percentile of call latencies (`calls` of them, when the latencies are a sample); undefined when there were no calls. */
export function latencySummary(durationsMs: readonly number[] | undefined, calls = durationsMs?.length ?? 0): LatencySummary | undefined {
  if (!durationsMs || durationsMs.length === 0) return undefined;
  const [p50Ms, p95Ms] = percentiles(durationsMs, [50, 95]);
  return { calls, p50Ms: p50Ms!, p95Ms: p95Ms! };
}

/**
 * Rates over `wallSec`, the wall time of the whole suite (episodes run concurrently, so the sum
 * of episode times would understate throughput). Every episode counts, errored and hinted ones
 * too: they cost time. A zero wall time gives rates of 0, not Infinity.
 */
export function throughputMetrics(
  episodes: readonly EpisodeResult[] | { episodes: number; steps: number },
  wallSec: number,
  designed?: number,
  extras: ThroughputExtras = {},
): ThroughputMetrics {
  if (!(wallSec >= 0)) throw new RangeError(`wallSec must be >= 0, got ${wallSec}`);
  const played = Array.isArray(episodes) ? { episodes: episodes.length, steps: episodes.reduce((sum, episode) => sum + episode.turns, 0) } : (episodes as { episodes: number; steps: number });
  const { steps } = played;
  const rate = (count: number) => (wallSec > 0 ? count / wallSec : 0);
  const metrics: ThroughputMetrics = {
    episodes: played.episodes,
    steps,
    episodesPerSec: rate(played.episodes),
    stepsPerSec: rate(steps),
    wallSec,
  };
  if (designed !== undefined) {
    metrics.environmentsDesigned = designed;
    metrics.environmentsPerSec = rate(designed);
  }
  if (extras.valid !== undefined) {
    metrics.validEnvironments = extras.valid;
    metrics.validPerSec = rate(extras.valid);
  }
  if (extras.tokens !== undefined) {
    metrics.tokens = extras.tokens;
    metrics.tokensPerSec = rate(extras.tokens);
  }
  const providerCall = latencySummary(extras.providerCallMs);
  const sandboxCall = latencySummary(extras.sandboxCallMs, extras.sandboxCalls);
  if (providerCall || sandboxCall) metrics.latency = { ...(providerCall && { providerCall }), ...(sandboxCall && { sandboxCall }) };
  return metrics;
}
