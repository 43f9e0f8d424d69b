/**
 * The reference tool-use games (SPADE's ToolUseBaseEnv, in JavaScript) and the reference agent's
 * play of them: tools declared as every API accepts, a reference that wins, an answer that does
 * not show in the task, the multi-turn variant's requests revealed one at a time, and a player
 * that reads only observations, tool schemas and the hint, and does worse as difficulty grows.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAMILIES } from '../../../plugins/reference/families/index.js';
import { accountDesk } from '../../../plugins/reference/families/account-desk.js';
import { archiveSearch } from '../../../plugins/reference/families/archive-search.js';
import { createReferenceAgent } from '../../../plugins/reference/agent.js';
import { agentWins, loadProgram, referenceWins, toolsOf, type PlainEnvironment } from './load-program.js';

const TOOL_USE = FAMILIES.filter((f) => f.toolUse);
const agent = createReferenceAgent();

test('three tool-use families, each a ToolUseBaseEnv subclass with a reference policy and a hint', () => {
  assert.equal(TOOL_USE.map((f) => f.name), ['archive-search', 'restock-order', 'account-desk']);
  for (const family of TOOL_USE) {
    const source = family.program(5);
    assert.match(source, /class \w+ extends ToolUseBaseEnv \{/);
    assert.match(source, /referenceAction\(observation\)/);
    assert.match(source, /hint\(\)/);
  }
});

for (const family of TOOL_USE) {
  for (const variant of [0, 1]) {
    test(`${family.name} v${variant}: every declared tool has its tool_ method, and the schemas pass the contract`, () => {
      const env = loadProgram(family.program(6, variant))() as PlainEnvironment & Record<string, unknown>;
      env.reset(1);
      const tools = toolsOf(env)!;
      assert.ok(tools.length >= 6, `${tools.length} tools`);
      for (const tool of tools) {
        assert.type(env[`tool_${tool.name}`], 'function', tool.name);
        assert.is(tool.parameters.type, 'object');
        assert.ok(tool.description.length > 10, tool.name);
      }
    });
  }

  test(`${family.name}: the reference wins in few turns at every difficulty, the answer is not in the task`, () => {
    for (const difficulty of [1, 4, 7, 10]) {
      const make = loadProgram(family.program(difficulty, difficulty));
      for (const seed of [0, 1, 2, 3]) {
        const result = referenceWins(make, seed);
        assert.ok(result.won && result.turns <= 8, `d${difficulty} seed ${seed}: ${JSON.stringify(result)}`);
        const env = make() as PlainEnvironment & { _expected_answer?: string };
        const [observation] = env.reset(seed);
        if (env._expected_answer !== 'done') assert.not.ok(observation.includes(String(env._expected_answer)), `d${difficulty} seed ${seed}`);
      }
    }
  });
}

test('archive-search: a compressed folder cannot be read until it is restored (error recovery)', () => {
  const env = loadProgram(archiveSearch.program(2))();
  env.reset(4);
  const call = (name: string, args: Record<string, unknown>) => env.step(`<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`)[0];
  const [folder] = JSON.parse(call('list_folders', {}).split('\n')[1]!) as string[];
  assert.match(call('compress_folder', { folder }), /Compressed/);
  assert.match(call('list_files', { folder }), /is compressed; restore it first/);
  call('restore_folder', { folder });
  assert.match(call('list_files', { folder }), /^Tool result:\n\["/);
});

test("account-desk: SPADE's multi-turn variant reveals one request at a time and names the pending one", () => {
  const env = loadProgram(accountDesk.program(10))();
  const [first] = env.reset(2);
  assert.match(first, /move the whole balance/);
  assert.not.match(first, /freeze|ticket|card/);
  const [feedback, reward, terminated] = env.step('<answer>done</answer>');
  assert.equal([reward, terminated], [0, false]);
  assert.match(feedback, /still on step 1\/5: "Please move the whole balance/);
});

async function solveRate(difficulty: number, withHint: boolean, source = (f: typeof TOOL_USE[number], v: number) => f.program(difficulty, v)): Promise<number> {
  let wins = 0;
  let played = 0;
  for (const family of TOOL_USE) {
    for (const variant of [0, 1]) {
      const program = source(family, variant);
      const make = loadProgram(family.program(difficulty, variant));
      for (let seed = 0; seed < 8; seed++) {
        wins += (await agentWins(agent, program, make, seed, withHint)) ? 1 : 0;
        played++;
      }
    }
  }
  return wins / played;
}

test('the reference agent: graded by difficulty, helped by the hint', async () => {
  const rates = new Map<string, number>();
  for (const difficulty of [1, 5, 10]) for (const hint of [false, true]) rates.set(`${difficulty}${hint ? '+hint' : ''}`, await solveRate(difficulty, hint));
  const r = (key: string) => rates.get(key)!;
  const shown = JSON.stringify(Object.fromEntries(rates));
  assert.ok(r('1') >= 0.9, shown);
  assert.ok(r('5') <= r('1') - 0.1, shown);
  assert.ok(r('10') <= 0.35, shown);
  assert.ok(r('10+hint') >= r('10') + 0.4, shown);
});

test('the reference agent reads no program: with the source withheld it plays as well; with no tool schemas it cannot play', async () => {
  assert.is(await solveRate(5, false, () => ''), await solveRate(5, false));
  const env = loadProgram(archiveSearch.program(1))();
  const [first] = env.reset(0);
  const episode = await agent.start({ environment: { id: 'x', language: 'javascript', source: '' }, observation: first, seed: 1, horizon: 8 });
  assert.not.match((await episode.act(first, 0)).reply, /<tool_call>/);
});

test.run();
