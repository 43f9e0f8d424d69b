/** The reference agent: a graded frontier over difficulty, helped by the hint, deterministic per seed. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createReferenceAgent } from '../../../plugins/reference/agent.js';
import { FAMILIES } from '../../../plugins/reference/families/index.js';
import { agentWins, loadProgram } from './load-program.js';

const agent = createReferenceAgent();
const SEEDS = Array.from({ length: 10 }, (_, i) => i);

async function solveRate(difficulty: number, withHint: boolean): Promise<number> {
  let wins = 0;
  let played = 0;
  for (const family of FAMILIES) {
    const source = family.program(difficulty);
    const make = loadProgram(source);
    for (const seed of SEEDS) {
      wins += (await agentWins(agent, source, make, seed, withHint)) ? 1 : 0;
      played++;
    }
  }
  return wins / played;
}

test('success falls as difficulty rises, and the hint raises it', async () => {
  const rates = new Map<string, number>();
  for (const difficulty of [1, 5, 10]) {
    for (const withHint of [false, true]) rates.set(`${difficulty}${withHint ? '+hint' : ''}`, await solveRate(difficulty, withHint));
  }
  const r = (key: string) => rates.get(key)!;
  const shown = JSON.stringify(Object.fromEntries(rates));
  assert.ok(r('1') >= 0.9, shown);
  assert.ok(r('1') >= r('5') + 0.2, shown);
  assert.ok(r('5') >= r('10') + 0.2, shown);
  assert.ok(r('10') <= 0.3, shown);
  assert.ok(r('5+hint') >= r('5') + 0.15, shown);
  assert.ok(r('10+hint') >= r('10') + 0.1, shown);
});

test('the same seed gives the same replies; the agent is labelled as the reference policy', async () => {
  const family = FAMILIES.find((f) => f.name === 'mastermind')!;
  const source = family.program(7);
  const env = loadProgram(source)();
  const [observation] = env.reset(4);
  const context = { environment: { id: 'm', language: 'javascript' as const, source }, observation, seed: 11, horizon: 16 };
  const a = await (await agent.start(context)).act(observation, 0);
  const b = await (await agent.start(context)).act(observation, 0);
  const c = await (await agent.start({ ...context, seed: 12 })).act(observation, 0);
  assert.is(a.reply, b.reply);
  assert.is.not(a.reply, c.reply);
  assert.match(a.reply, /\\boxed\{\d+\}$/);
  assert.is(agent.kind, 'reference');
  assert.match(agent.label, /reference policy/);
});

test('an observation it cannot read gets \\boxed{?}', async () => {
  const episode = await agent.start({
    environment: { id: 'x', language: 'javascript', source: '' },
    observation: 'Write a haiku about the sea.',
    seed: 1,
    horizon: 1,
  });
  assert.match((await episode.act('Write a haiku about the sea.', 0)).reply, /\\boxed\{\?\}/);
});

test('a larger budget solves more', async () => {
  const family = FAMILIES.find((f) => f.name === 'modular-equation')!;
  const source = family.program(7);
  const make = loadProgram(source);
  const count = async (budget: number) => {
    let wins = 0;
    for (const seed of SEEDS) wins += (await agentWins(createReferenceAgent({ budget }), source, make, seed, false)) ? 1 : 0;
    return wins;
  };
  assert.ok((await count(4000)) > (await count(100)));
});

test.run();
