/**
 * Comparing runs: results.json without what depends on the clock, and the episodes a journal
 * holds. Resume, shard, thread and distributed tests all check "the same run" this way; the
 * gate's tests compare verdicts without their wall time.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { GateVerdict, RunResults } from '../../core/results/results.js';

/** results.json of a run folder without run ids, clock times, the output folder or throughput. */
export function comparable(dir: string): unknown {
  const r = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunResults;
  const { id, startedAt, finishedAt, config, ...run } = r.run;
  void id, startedAt, finishedAt;
  return {
    run: { ...run, config: { ...config, out: undefined } },
    suites: r.suites.map((s) => ({ ...s, metrics: { ...s.metrics, throughput: undefined } })),
  };
}

/** Every episode journaled, as suite/environment/attempt/hint keys, sorted (duplicates kept). */
export function journaledEpisodes(dir: string): string[] {
  return readFileSync(path.join(dir, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; episode?: { suite: string; environmentId: string; attempt: number; withHint: boolean } })
    .filter((r) => r.type === 'episode')
    .map(({ episode: e }) => `${e!.suite}/${e!.environmentId}/${e!.attempt}/${e!.withHint}`)
    .sort();
}

/** A gate verdict without its wall time, the one part of it that depends on the clock. */
export function verdictWithoutTime(verdict: GateVerdict): Omit<GateVerdict, 'wallMs'> {
  const { wallMs, ...rest } = verdict;
  void wallMs;
  return rest;
}
