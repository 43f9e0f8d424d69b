// A pool's metrics from its environments' tallies (what a run keeps) equal those computed from
// every episode; a reservoir keeps every value while they fit, and a bounded seeded sample after.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { computeMetrics, type EvaluatedEnvironment } from '../../../core/metrics/table.js';
import { addPlay, emptyTally, tallyPlays } from '../../../core/metrics/plays.js';
import { Reservoir } from '../../../core/metrics/reservoir.js';
import { percentiles } from '../../../core/metrics/percentiles.js';
import { mulberry32 } from '../../../core/run/random.js';
import { playReward } from '../../../core/selfplay/rewards.js';
import type { EpisodeOutcome, EpisodeResult } from '../../../core/types.js';
import type { GateVerdict } from '../../../core/results/results.js';

/** A pool of multi-turn and tool-use environments: hinted, errored, won in varied turns, with per-step rewards. */
function pool(seed: number): EvaluatedEnvironment[] {
  const random = mulberry32(seed);
  return Array.from({ length: 12 }, (_, i) => {
    const horizon = 1 + Math.floor(random() * 6);
    const episodes: EpisodeResult[] = Array.from({ length: 16 }, (_, j) => {
      const roll = random();
      const outcome: EpisodeOutcome = roll < 0.1 ? 'errored' : roll < 0.55 ? 'won' : 'lost';
      const turns = Math.max(1, Math.floor(random() * horizon) + 1);
      const rewards: number[] = Array.from({ length: turns }, (_, t) => (t === turns - 1 ? (outcome === 'won' ? 1 : random() < 0.5 ? -0.5 : 0.25) : 0));
      return {
        suite: 'p', environmentId: `e${i}`, attempt: j % 8, withHint: j >= 8, seed: j, horizon, outcome, turns, totalReward: rewards.reduce((a, b) => a + b, 0), wallMs: 1,
        rewards, terminated: outcome !== 'errored', ...(i % 3 === 0 && { toolCalls: Math.floor(random() * 3) }),
        ...(outcome === 'errored' && { error: 'sandbox timeout in step()', errorKind: 'timeout' as const }),
      };
    });
    const verdict: GateVerdict = { verdict: i % 5 === 4 ? 'invalid' : 'valid', checks: [], gameType: 'single-turn', wallMs: 1, firstObservation: `task ${i} ${'x'.repeat(i)}` };
    return {
      program: { source: `class E${i} { reset() {} }`, language: 'javascript' },
      verdict,
      episodes,
      summary: { id: `e${i}`, language: 'javascript', verdict: verdict.verdict, checks: [], source: '', difficulty: i % 4, skill: i % 2 ? 'Optimization' : 'Planning', gameType: i % 3 === 0 ? 'tool-use' : 'multi-turn', horizon },
      sandboxCallMs: episodes.map((e) => e.turns * 1.5),
    };
  });
}

test('metrics from the tallies a run keeps equal the metrics from every episode', () => {
  for (const seed of [1, 2, 3]) {
    const environments = pool(seed);
    const evidence = { kind: 'selfplay' as const, wallSec: 3, usage: { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, cachedCalls: 0 }, providerCallMs: [] };
    const fromEpisodes = computeMetrics({ ...evidence, environments });
    const kept = environments.map(({ episodes, ...rest }) => ({ ...rest, plays: tallyPlays(episodes!) }));
    assert.equal(computeMetrics({ ...evidence, environments: kept }), fromEpisodes);
    // Figures checked against the episodes directly, not through a tally.
    const plain = environments.flatMap((e) => e.episodes!).filter((e) => !e.withHint);
    const decided = plain.filter((e) => e.outcome !== 'errored');
    assert.is(fromEpisodes.success.won, decided.filter((e) => e.outcome === 'won').length);
    assert.is(fromEpisodes.throughput.steps, environments.flatMap((e) => e.episodes!).reduce((n, e) => n + e.turns, 0));
    const rewards = environments.map((e) => e.episodes!.filter((p) => !p.withHint && p.outcome !== 'errored').map(playReward));
    const tally = tallyPlays(environments[0]!.episodes!);
    assert.is(tally.rewardSum, rewards[0]!.reduce((a, b) => a + b, 0));
    assert.is(tally.sameReward, rewards[0]!.every((r) => r === rewards[0]![0]));
  }
});

test('a tally folds plays one at a time as tallyPlays does at once', () => {
  const episodes = pool(7)[0]!.episodes!;
  const tally = emptyTally();
  for (const e of episodes) addPlay(tally, e);
  assert.equal(tally, tallyPlays(episodes));
  assert.is(tally.episodes, episodes.length);
});

test('a reservoir keeps every value while they fit, then a bounded sample drawn the same way each time', () => {
  const small = new Reservoir(100);
  const values = Array.from({ length: 80 }, (_, i) => (i * 37) % 91);
  for (const v of values) small.add(v);
  assert.equal(small.values(), values);
  const fill = (): Reservoir => {
    const r = new Reservoir(500, 3);
    for (let i = 0; i < 100_000; i++) r.add(i % 1000);
    return r;
  };
  const big = fill();
  assert.is(big.values().length, 500);
  assert.is(big.count, 100_000);
  assert.equal(big.values(), fill().values());
  // A uniform sample: its median is near the stream's (500 of 0..999 evenly).
  const [median] = percentiles(big.values(), [50]);
  assert.ok(median! > 400 && median! < 600, `median ${median}`);
});

test.run();
