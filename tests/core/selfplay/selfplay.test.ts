// The self-play loop's designer reward reads how an episode failed from its typed kind: an
// environment whose play runs past the time limit costs its designer SPADE's timeout penalty.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DesignerRewardName } from '../../../core/selfplay/rewards.js';
import { runSelfPlay } from '../../../core/selfplay/selfplay.js';
import { createRegistry, createSandboxSet } from '../../../core/setup/setup.js';
import { resolveConfig } from '../../../core/config/config.js';
import type { Agent, Designer, EpisodeResult } from '../../../core/types.js';

/** Passes the gate (its solution wins, wrong answers and random play lose), but spins forever on "spin". */
const SPINS_ON_SPIN = `export default class Spin {
  reset(seed) { return ['Name the number seven. Put it in \\\\boxed{}.', { horizon: 1 }]; }
  step(action) {
    if (action.includes('spin')) for (;;) {}
    const won = action.includes('\\\\boxed{7}');
    return [won ? 'Right.' : 'Wrong.', won ? 1 : 0, true, false, {}];
  }
  solution() { return '7'; }
  hint() { return 'It is one more than six.'; }
}`;

const designer: Designer = {
  id: 'fixed',
  label: 'fixed programs',
  kind: 'reference',
  design: async ({ round }) => [{ id: `r${round}-spin`, language: 'javascript', source: SPINS_ON_SPIN }],
};
/** Replies `plain` without the hint and `hinted` with it. */
const agent = (plain: string, hinted: string): Agent => ({
  id: 'fixed-agent',
  label: 'fixed',
  kind: 'reference',
  start: (context) => ({ act: async () => ({ reply: context.hint ? hinted : plain }) }),
});

const sandboxes = createSandboxSet(createRegistry(), resolveConfig({ limits: { callTimeoutMs: 3000 } }));
test.after(() => sandboxes.close());

const play = async (plain: string, hinted: string, reward: DesignerRewardName = 'spade'): Promise<{ reward: number | undefined; episodes: EpisodeResult[] }> => {
  const result = await runSelfPlay({
    designer,
    rounds: 1,
    envsPerRound: 1,
    reward,
    concurrency: 1,
    context: { suite: 'spade', sandboxes, agent: agent(plain, hinted), limits: { callTimeoutMs: 3000 }, attempts: 1, runSeed: 3 },
  });
  const [evaluation] = result.evaluations;
  assert.is(evaluation!.verdict.verdict, 'valid', JSON.stringify(evaluation!.verdict.checks));
  return { reward: evaluation!.summary.designerReward, episodes: evaluation!.episodes };
};

test('an episode that times out errs with kind "timeout"; SPADE\'s regret reward gives -0.5, its blend no penalty', async () => {
  const { reward, episodes } = await play('\\boxed{8}', '\\boxed{spin}', 'regret');
  const hinted = episodes.filter((e) => e.withHint);
  assert.ok(hinted.length > 0 && hinted.every((e) => e.outcome === 'errored' && e.errorKind === 'timeout'), JSON.stringify(episodes));
  assert.ok(episodes.some((e) => !e.withHint && e.outcome === 'lost'));
  assert.is(reward, -0.5);
  // The blend: no hinted play decided (no regret), the unhinted mean reward 0 → 0.6 * plateau(0) = 0.
  assert.is((await play('\\boxed{8}', '\\boxed{spin}')).reward, 0);
});

test('an episode that fails otherwise is no timeout: the reward comes from the win rates', async () => {
  const { reward, episodes } = await play('\\boxed{8}', '\\boxed{7}');
  assert.ok(episodes.every((e) => e.outcome !== 'errored' && e.errorKind === undefined));
  // No win without the hint, every win with it: regret 1, win rate 0 -> 0.4 * 1 + 0.6 * plateau(0) = 0.4.
  assert.is(reward, 0.4);
});

test.run();
