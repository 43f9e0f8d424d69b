// The LLM designer writing tool-use games: a slot with one of SPADE's tool-use skills gets the
// tool-use prompts (the contract of ToolUseBaseEnv, SPADE's two variants and difficulty levels);
// the worked examples it is shown pass the gate; a rejected tool-use program is repaired with
// the same prompt; and --game-type tool-use rotates the six tool-use skills.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import { createLLMDesigner } from '../../../core/roles/llm-designer.js';
import { toolUseExampleProgram } from '../../../core/roles/prompts/examples.js';
import { toolUseDifficulty } from '../../../core/roles/prompts/tool-use-designer.js';
import { validateEnvironment } from '../../../core/gate/gate.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { createCpythonSandbox } from '../../../plugins/sandboxes/cpython/sandbox.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { defaultSkills, skillName, skillsForRound, TOOL_USE_SKILL_NAMES } from '../../../core/selfplay/skills.js';
import type { DesignRequest, Provider } from '../../../core/types.js';
import type { GateVerdict } from '../../../core/results/results.js';

const request = (extra: Partial<DesignRequest> = {}): DesignRequest => ({ round: 0, count: 2, seed: 9, memory: [], recentSolveRates: [], ...extra });
type Body = { messages: { role: string; content: string }[] };
const bodies = (server: WireServer): Body[] => server.requests.map((r) => r.body as unknown as Body);

async function withServer(fn: (server: WireServer, provider: Provider) => Promise<void>): Promise<void> {
  const server = await startWireServer('openai');
  try {
    await fn(server, await openai.create({ model: 'designer-m', apiKey: 'sk-designer-test-0123456789', baseURL: server.baseURL, maxRetries: 0 }));
  } finally {
    await server.close();
  }
}

test("SPADE's six tool-use skills: names as SPADE's runs write them, and --game-type tool-use rotates them alone", () => {
  assert.equal(TOOL_USE_SKILL_NAMES, ['API Orchestration', 'Data Retrieval', 'State Modification', 'Error Recovery', 'Tool Selection', 'Multi-Step Workflows']);
  assert.equal(['API_Orchestration', 'Multi-Step_Workflows', 'tool selection'].map(skillName), ['API Orchestration', 'Multi-Step Workflows', 'Tool Selection']);
  assert.equal(skillsForRound(defaultSkills('tool-use'), 3, 1, 4), ['Error Recovery', 'Tool Selection', 'Multi-Step Workflows', 'Error Recovery']);
  assert.is(defaultSkills('cognitive').length, 9);
});

test('a tool-use slot gets the tool-use prompts: the ToolUseBaseEnv contract, then single-task and multi-turn variants', () =>
  withServer(async (server, provider) => {
    const designer = createLLMDesigner(provider, { requestsInFlight: 1 });
    const programs = await designer.design(request({ skills: ['API Orchestration', 'Multi-Step Workflows'] }));
    assert.equal(programs.map((p) => p.meta?.skill), ['API Orchestration', 'Multi-Step Workflows']);
    const [first, second] = bodies(server);
    const system = first!.messages[0]!.content;
    for (const fact of [
      'class SomethingEnv(ToolUseBaseEnv)', 'Do not import ToolUseBaseEnv', 'self._tools', 'self._state', 'self._expected_answer', 'tool_<name>(self',
      'do not write step()', 'costs 0.1', 'within 0.01', 'No single tool gives the answer', 'one or two of them are not needed', '`enum`',
      'at least three mutations', 'max_turns - 2', '<tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>', 'class LibraryRenewalEnv(ToolUseBaseEnv)',
    ]) assert.match(system, fact);
    assert.not.match(system, 'reference_action', 'the cognitive contract is not there');
    const single = first!.messages[1]!.content;
    assert.match(single, 'a new single-task tool-use environment');
    assert.match(single, 'Tool-use skill to exercise: API Orchestration (Stateful Operations)');
    assert.match(single, 'Difficulty: medium.');
    const multi = second!.messages[1]!.content;
    assert.match(multi, 'a new MULTI-TURN tool-use environment');
    for (const fact of ['_user_messages', '_message_criteria', '_current_msg = 0', '<answer>done</answer>', '_advance_if_done', 'Domain: ', 'Kind of task: ', 'false on the state reset() builds', 'shape the tools write it']) {
      assert.match(multi, fact);
    }
  }));

test('the difficulty follows the last solve rate against the band; JavaScript designs get the JavaScript contract', () =>
  withServer(async (server, provider) => {
    assert.equal([toolUseDifficulty([]), toolUseDifficulty([0.9]), toolUseDifficulty([0.1]), toolUseDifficulty([0.3], [0.2, 0.4])], ['medium', 'hard', 'easy', 'medium']);
    await createLLMDesigner(provider, { language: 'javascript' }).design(request({ count: 1, skills: ['Error Recovery'], recentSolveRates: [0.95] }));
    const [system, user] = bodies(server)[0]!.messages;
    assert.match(system!.content, 'export default class SomethingEnv extends ToolUseBaseEnv');
    assert.match(system!.content, 'gets the arguments as one object');
    assert.match(user!.content, 'Difficulty: hard.');
    assert.match(user!.content, 'pages');
  }));

test('a rejected tool-use program is repaired with the tool-use prompt', () =>
  withServer(async (server, provider) => {
    const designer = createLLMDesigner(provider);
    const program = { id: 'r0-e0', language: 'python' as const, source: 'class DeskEnv(ToolUseBaseEnv):\n    pass', meta: { skill: 'Data Retrieval' } };
    const verdict: GateVerdict = { verdict: 'invalid', reason: 'reference-loses', checks: [{ name: 'reference-wins', ok: false, detail: 'did not win' }], gameType: 'tool-use', wallMs: 1 };
    await designer.repair!(program, verdict, { round: 0, attempt: 1, originalId: 'r0-e0', seed: 1 });
    const [system, user] = bodies(server)[0]!.messages;
    assert.match(system!.content, 'You write tool-use environments');
    assert.match(user!.content, 'reference-loses');
  }));

const jail = checkJail().problem;
test("the worked examples the designer is shown are valid tool-use games (JavaScript; Python's in cpython)", async () => {
  const js = createIsolatedVmSandbox();
  try {
    const verdict = await validateEnvironment(js, { id: 'example-js', language: 'javascript', source: toolUseExampleProgram('javascript') }, { seed: 3 });
    assert.equal([verdict.verdict, verdict.gameType], ['valid', 'tool-use'], JSON.stringify(verdict.checks));
  } finally {
    await js.close();
  }
  if (jail) return console.log(`skipped (the Python example): the cpython sandbox cannot start here: ${jail}`);
  const py = createCpythonSandbox({ workers: 1 });
  try {
    const verdict = await validateEnvironment(py, { id: 'example-py', language: 'python', source: toolUseExampleProgram('python') }, { seed: 3 });
    assert.equal([verdict.verdict, verdict.gameType, verdict.readings?.spade.verdict], ['valid', 'tool-use', 'valid'], JSON.stringify(verdict.checks));
  } finally {
    await py.close();
  }
});

test.run();
