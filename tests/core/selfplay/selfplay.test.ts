// The self-play loop's designer reward reads how an episode failed from its typed kind: an
// environment whose play runs past the time limit costs its designer SPADE's timeout penalty.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DesignerRewardName } from '../../../core/selfplay/rewards.js';
import { runSelfPlay } from '../../../core/selfplay/selfplay.js';
import { createRegistry, createSandboxSet } from '../../../core/setup/setup.js';
import { resolveConfig } from '../../../core/config/config.js';
import type { Agent, DesignRequest, Designer, EpisodeResult, SpadeMemoryRecord } from '../../../core/types.js';

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

test("SPADE's learning potential: a round earns its distance from the skill's slow mean of the rounds before", async () => {
  let round = 0;
  const agentByRound: Agent = { id: 'by-round', label: 'wins round 0 only', kind: 'reference', start: () => ({ act: async () => ({ reply: round === 0 ? '\\boxed{7}' : '\\boxed{8}' }) }) };
  const result = await runSelfPlay({
    designer: { ...designer, design: async (r) => ((round = r.round), [{ id: `r${r.round}-spin`, language: 'javascript', source: SPINS_ON_SPIN, meta: { skill: 'Logical Deduction' } }]) },
    rounds: 3,
    envsPerRound: 1,
    reward: 'learning-potential',
    concurrency: 1,
    context: { suite: 'spade', sandboxes, agent: agentByRound, limits: { callTimeoutMs: 300 }, attempts: 2, runSeed: 3 },
  });
  const rewards = result.evaluations.map((e) => e.summary.designerReward);
  // Round 0: every play won (mean 1), no baseline yet (0): |1 − 0| = 1. The skill's means become 1.
  // Round 1: every play lost (0); the baseline is round 0's slow mean, 1: |0 − 1| = 1.
  // Round 2: lost again; the slow mean moved to 0.15·1 + 0.85·0 = 0.15: |0 − 0.15| = 0.15.
  assert.equal(rewards.map((r) => Math.round(r! * 1e9) / 1e9), [1, 1, 0.15]);
  assert.equal(result.rounds.map((r) => Math.round(r.designerReward! * 1e9) / 1e9), [1, 1, 0.15]);
});

test('a round with nothing played has no designer reward, and a designer that sets no difficulty none either: null, never 0', async () => {
  const broken: Designer = { ...designer, design: async ({ round }) => [{ id: `r${round}-broken`, language: 'javascript', source: 'export default class {' }] };
  const result = await runSelfPlay({
    designer: broken, rounds: 1, envsPerRound: 1, reward: 'spade', concurrency: 1,
    context: { suite: 'spade', sandboxes, agent: agent('x', 'x'), limits: { callTimeoutMs: 3000 }, attempts: 1, runSeed: 3 },
  });
  const [round] = result.rounds;
  assert.equal([round!.proposed, round!.valid, round!.solveRate, round!.designerReward, round!.meanDifficulty], [1, 0, null, null, null]);
  // Played, by a designer that gives no difficulty: a reward, and still no difficulty.
  const played = await runSelfPlay({
    designer, rounds: 1, envsPerRound: 1, reward: 'spade', concurrency: 1,
    context: { suite: 'spade', sandboxes, agent: agent('\\boxed{7}', '\\boxed{7}'), limits: { callTimeoutMs: 3000 }, attempts: 1, runSeed: 3 },
  });
  assert.is(typeof played.rounds[0]!.designerReward, 'number');
  assert.is(played.rounds[0]!.meanDifficulty, null);
});

test('plain and hinted plays are counted apart: --attempts plain, --hinted-attempts hinted', async () => {
  const result = await runSelfPlay({
    designer, rounds: 1, envsPerRound: 1, reward: 'spade', concurrency: 1,
    context: { suite: 'spade', sandboxes, agent: agent('\\boxed{7}', '\\boxed{7}'), limits: { callTimeoutMs: 300 }, attempts: 2, hintedAttempts: 5, runSeed: 3 },
  });
  const episodes = result.evaluations[0]!.episodes;
  assert.equal([episodes.filter((e) => !e.withHint).length, episodes.filter((e) => e.withHint).length], [2, 5]);
  assert.equal(episodes.filter((e) => e.withHint).map((e) => e.attempt), [0, 1, 2, 3, 4]);
});

test('the memory the designer is shown: own (spade-bench\'s), spade (SPADE\'s records, kept by the keeper), off (nothing)', async () => {
  const seen: DesignRequest[] = [];
  const recording: Designer = { ...designer, design: async (request) => (seen.push(request), designer.design(request)) };
  const spadeRecord: SpadeMemoryRecord = { game_file: 'game_00000_000_x.py', skill: 'Optimization', code_snippet: 'x', actor_win_rate: 0.5, regret: 0.1, rollout_id: 0, metadata: {} };
  const added: number[] = [];
  const keeper = { records: [spadeRecord], addRound: async (evaluations: readonly unknown[], round: number) => void added.push(round, evaluations.length) };
  const run = (memoryMode: 'own' | 'spade' | 'off') => runSelfPlay({
    designer: recording, rounds: 2, envsPerRound: 1, reward: 'spade', concurrency: 1, memoryMode, spadeMemory: keeper,
    context: { suite: 'spade', sandboxes, agent: agent('\\boxed{7}', '\\boxed{7}'), limits: { callTimeoutMs: 300 }, attempts: 1, runSeed: 3 },
  });
  await run('own');
  assert.is(seen[1]!.memory.length, 1);
  assert.ok(seen[1]!.recentSolveRates.length > 0);
  assert.is(seen[1]!.spadeMemory, undefined);
  seen.length = 0;
  await run('spade');
  assert.equal([seen[1]!.memory, seen[1]!.recentSolveRates, seen[1]!.spadeMemory], [[], [], [spadeRecord]]);
  assert.equal(added, [0, 1, 1, 1], 'each round\'s evaluations go to the keeper');
  seen.length = 0;
  await run('off');
  assert.equal([seen[1]!.memory, seen[1]!.recentSolveRates, seen[1]!.spadeMemory], [[], [], undefined]);
});

test.run();
