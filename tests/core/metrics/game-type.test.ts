import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gameTypeMetrics } from '../../../core/metrics/game-type.js';
import { wilsonInterval } from '../../../core/metrics/intervals.js';
import type { EpisodeResult } from '../../../core/types.js';

const episode = (outcome: EpisodeResult['outcome'], turns: number, extra: Partial<EpisodeResult> = {}): EpisodeResult => ({
  suite: 's', environmentId: 'e', attempt: 0, withHint: false, seed: 0, horizon: 10, outcome, turns, totalReward: outcome === 'won' ? 1 : 0, wallMs: 1, ...extra,
});

test('one entry per game type present, in a fixed order; hinted and errored episodes kept out of success', () => {
  const metrics = gameTypeMetrics([
    { gameType: 'tool-use', verdict: 'valid', episodes: [episode('won', 4, { toolCalls: 3 }), episode('lost', 10, { toolCalls: 8 }), episode('errored', 2, { toolCalls: 1 }), episode('won', 2, { withHint: true, toolCalls: 1 })] },
    { gameType: 'tool-use', verdict: 'invalid', episodes: [] },
    { gameType: 'single-turn', verdict: 'valid', episodes: [episode('won', 1), episode('won', 1), episode('lost', 1)] },
  ]);
  assert.equal(Object.keys(metrics), ['single-turn', 'tool-use']);
  assert.equal(metrics['tool-use'], {
    environments: 2, valid: 1, episodes: 3, successRate: 0.5, interval: wilsonInterval(1, 2), meanTurns: 7, toolCallsPerEpisode: 5.5,
  });
  assert.equal(metrics['single-turn'], { environments: 1, valid: 1, episodes: 3, successRate: 2 / 3, interval: wilsonInterval(2, 3), meanTurns: 1 });
  assert.equal(gameTypeMetrics([]), {});
});

test.run();
