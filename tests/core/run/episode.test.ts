/** One episode of a tool-use game: the agent gets the tools after reset(), and the episode counts its tool calls. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { playEpisode } from '../../../core/run/episode.js';
import { answerText, toolCallText } from '../../../core/run/tool-calls.js';
import type { Agent, AgentEpisodeContext } from '../../../core/types.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { fixture } from '../../fixtures/programs/load.js';

const sandbox = createIsolatedVmSandbox({ limits: { callTimeoutMs: 10_000 } });

/** Replies in turn from `script` (a function of the last observation), recording the context it was started with. */
function scripted(script: ((observation: string) => string)[], seen: AgentEpisodeContext[]): Agent {
  return {
    id: 'scripted',
    label: 'scripted test agent',
    kind: 'reference',
    start(context) {
      seen.push(context);
      let turn = 0;
      return { act: async (observation) => ({ reply: script[Math.min(turn++, script.length - 1)]!(observation) }) };
    },
  };
}

test('a tool-use episode: tools handed to the agent, tool calls counted, the answer read from the tools wins', async () => {
  const program = fixture('tool-use/inventory-reference');
  const environment = await sandbox.load(program);
  const seen: AgentEpisodeContext[] = [];
  let item = '';
  let total = 0;
  const read = (observation: string) => {
    const count = /^Tool result:\n(\d+)$/.exec(observation);
    if (count) total += Number(count[1]);
  };
  const agent = scripted([
    (observation) => ((item = /How many (\w+)/.exec(observation)![1]!), toolCallText({ name: 'list_warehouses', arguments: {} })),
    () => toolCallText({ name: 'get_stock', arguments: { item, warehouse: 'north' } }),
    (observation) => (read(observation), toolCallText({ name: 'get_stock', arguments: { item, warehouse: 'south' } })),
    (observation) => (read(observation), 'No tags here, a format error.'),
    () => toolCallText({ name: 'get_stock', arguments: { item, warehouse: 'east' } }),
    (observation) => (read(observation), answerText(String(total))),
  ], seen);
  const result = await playEpisode({ suite: 's', program, environment, agent, taskSeed: 4, agentSeed: 1, attempt: 0, withHint: false, horizon: 10, keepSteps: true });
  assert.is(result.outcome, 'won', JSON.stringify(result.steps?.map((s) => s.observation)));
  assert.is(result.turns, 6);
  assert.is(result.toolCalls, 4);
  assert.equal(result.rewards, [0, 0, 0, -0.1, 0, 1]);
  assert.equal(seen[0]!.tools!.map((t) => t.name), ['list_warehouses', 'get_stock']);
  assert.equal(seen[0]!.tools![1]!.parameters.required, ['item', 'warehouse']);
  await environment.dispose();
});

test('other games give the agent no tools and count none', async () => {
  const program = fixture('valid/sum-single-answer');
  const environment = await sandbox.load(program);
  const seen: AgentEpisodeContext[] = [];
  const result = await playEpisode({ suite: 's', program, environment, agent: scripted([() => '\\boxed{0}'], seen), taskSeed: 1, agentSeed: 1, attempt: 0, withHint: false, horizon: 1 });
  assert.is(seen[0]!.tools, undefined);
  assert.is(result.toolCalls, undefined);
  await environment.dispose();
});

test.after(async () => {
  await sandbox.close();
});

test.run();
