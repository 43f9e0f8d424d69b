import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EpisodeResult } from '../../../core/types.js';
import { turnsToWin } from '../../../core/metrics/turns-to-win.js';

const episode = (outcome: EpisodeResult['outcome'], turns: number, withHint = false): EpisodeResult => ({
  suite: 's', environmentId: 'e', attempt: 0, withHint, seed: 0, horizon: 10, outcome, turns, totalReward: outcome === 'won' ? 1 : 0, wallMs: 1,
});

test('the mean turns of the episodes won without the hint, with a bootstrap interval around it', () => {
  const m = turnsToWin([episode('won', 2), episode('won', 4), episode('won', 9), episode('lost', 10), episode('errored', 1), episode('won', 1, true)]);
  assert.is(m.won, 3);
  assert.is(m.mean, 5);
  assert.ok(m.interval![0] >= 2 && m.interval![0] <= 5 && m.interval![1] >= 5 && m.interval![1] <= 9, String(m.interval));
  // Seeded: the same episodes give the same interval.
  assert.equal(turnsToWin([episode('won', 2), episode('won', 4), episode('won', 9)]).interval, m.interval);
});

test('nothing won: no mean (n/a), never 0', () => {
  assert.equal(turnsToWin([episode('lost', 10), episode('errored', 3)]), { won: 0, mean: null });
  assert.equal(turnsToWin([]), { won: 0, mean: null });
});

test.run();
