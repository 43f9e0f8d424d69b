// A curriculum pool in rounds: each round draws environments and difficulties from the windows,
// plays every attempt of one problem per environment, moves the windows in task order, and sums
// the round up with its windows; the same seed and outcomes give the same tasks (what resume
// relies on); a sharded run plays the pool whole in shard 1.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import type { CurriculumPool, EnvironmentProgram, EpisodeResult, Suite, SuiteTask } from '../../../core/types.js';
import type { Evaluation, EvaluationContext, Evaluator } from '../../../core/run/evaluate.js';
import { resolveConfig } from '../../../core/config/config.js';
import { Journal } from '../../../core/results/journal.js';
import { curriculumPlan, curriculumSettings } from '../../../core/curriculum/rounds.js';
import { applyShard } from '../../../core/scale/shard.js';
import { tempDir } from '../../helpers/cli.js';

/** A pool of `n` environments whose tasks the agent wins below difficulty `skill`. */
function pool(n: number): Suite & { curriculum: CurriculumPool } {
  const curriculum: CurriculumPool = {
    environments: async () => Array.from({ length: n }, (_, i) => `env${i}`),
    task: ({ environment, difficulty, seed, round }): SuiteTask => ({
      program: { id: `pool/r${round}/${environment}/d${difficulty}`, language: 'javascript', source: '', meta: { family: environment, difficulty } },
      seed,
    }),
  };
  return { id: 'pool', description: 'test pool', language: 'javascript', curriculum, tasks: async () => [] };
}

/** Plays nothing: an agent that wins every attempt below difficulty `skill` (attempts in reverse order, to check outcomes are read in order). */
function evaluator(skill: number, seen: EnvironmentProgram[]): Evaluator {
  return async (program, taskSeed, ctx: EvaluationContext): Promise<Evaluation> => {
    seen.push(program);
    const won = (program.meta!.difficulty ?? 0) < skill;
    const episodes: EpisodeResult[] = Array.from({ length: ctx.attempts }, (_, attempt) => ({
      suite: ctx.suite, environmentId: program.id, round: ctx.round, attempt: ctx.attempts - 1 - attempt, withHint: false, seed: taskSeed, horizon: 1,
      outcome: won ? 'won' : 'lost', turns: 1, totalReward: won ? 1 : 0, wallMs: 1,
    }));
    const summary = { id: program.id, language: program.language, gameType: 'single-turn' as const, verdict: 'valid' as const, checks: [], source: '', difficulty: program.meta!.difficulty, family: program.meta!.family, solveRate: won ? 1 : 0, round: ctx.round };
    return { program, verdict: { verdict: 'valid', checks: [], gameType: 'single-turn', wallMs: 1 }, episodes, summary };
  };
}

async function play(skill: number, config = resolveConfig({ attempts: 4, selfplay: { rounds: 6, envsPerRound: 3 }, curriculum: { tauNum: 4, tauAcc: 0.9, width: 2 } })) {
  const dir = tempDir('spade-curriculum-');
  const journal = new Journal(dir);
  const seen: EnvironmentProgram[] = [];
  const events: string[] = [];
  try {
    const plan = curriculumPlan(pool(5), config, evaluator(skill, seen), journal, (e) => events.push(e.type));
    const expected = await plan.start();
    const base = { suite: 'pool', sandboxes: undefined as never, agent: {} as never, limits: {}, attempts: 99, runSeed: config.seed };
    const played = await plan.play(base, () => {});
    return { expected, played, seen, events };
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('settings come from curriculum.*, else self-play\'s rounds and sizes, else SPADE\'s run settings', () => {
  assert.equal(curriculumSettings(resolveConfig({})), { rounds: 3, environmentsPerRound: 16, attempts: 4, tauAcc: 0.9, tauNum: 128, width: 4, maxDifficulty: 20 });
  assert.equal(curriculumSettings(resolveConfig({ selfplay: { rounds: 5 }, curriculum: { attempts: 16, tauNum: 8 } })).rounds, 5);
  assert.is(curriculumSettings(resolveConfig({ curriculum: { attempts: 16 } })).attempts, 16);
});

test('rounds draw environments and difficulties, and the windows climb to where the agent stops winning', async () => {
  const { expected, played, seen, events } = await play(2);
  assert.equal([expected.environments, expected.episodes], [18, 72]);
  assert.is(played.rounds.length, 6);
  assert.is(seen.length, 18);
  for (const round of played.rounds) {
    assert.is(round.proposed, 3);
    assert.ok(round.window);
    // Windows never go past what the agent can win + 1, and never start below 0.
    assert.ok(round.window!.maxHigh <= 2 && round.window!.meanLow >= 0);
  }
  assert.is(played.rounds[0]!.meanDifficulty, 0);
  assert.ok(played.rounds.at(-1)!.window!.meanHigh > 0, JSON.stringify(played.rounds.map((r) => r.window)));
  assert.is(played.rounds.reduce((n, r) => n + r.window!.promotions, 0) > 0, true);
  // Every attempt of an environment plays the one problem of its round.
  assert.equal(played.evaluations[0]!.episodes!.map((e) => e.seed), [0, 1, 2, 3].map(() => played.evaluations[0]!.episodes![0]!.seed));
  assert.equal(events.filter((e) => e === 'round').length, 6);
  // An agent that never wins leaves every window at [0, 0].
  const never = await play(0);
  assert.ok(never.played.rounds.every((r) => r.meanDifficulty === 0 && r.window!.maxHigh === 0 && r.solveRate === 0));
});

test('the same seed and outcomes make the same tasks; another seed others', async () => {
  const a = await play(3);
  const b = await play(3);
  assert.equal(b.seen.map((p) => p.id), a.seen.map((p) => p.id));
  const c = await play(3, resolveConfig({ seed: 2, attempts: 4, selfplay: { rounds: 6, envsPerRound: 3 }, curriculum: { tauNum: 4, tauAcc: 0.9, width: 2 } }));
  assert.not.equal(c.seen.map((p) => p.id), a.seen.map((p) => p.id));
});

test('a sharded run plays a curriculum pool whole, in shard 1 only', () => {
  const dir = tempDir('spade-shard-');
  try {
    const statics: Suite = { id: 'static', description: '', language: 'javascript', tasks: async () => [] };
    const first = applyShard({ suites: [pool(2), statics], selfplay: true }, { index: 0, count: 2 }, dir);
    assert.equal(first.suites.map((s) => s.id), ['pool', 'static']);
    assert.ok(first.suites[0]!.curriculum);
    const second = applyShard({ suites: [pool(2), statics], selfplay: true }, { index: 1, count: 2 }, dir);
    assert.equal(second.suites.map((s) => s.id), ['static']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
