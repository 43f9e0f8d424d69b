// The LLM agent's budgets: under SPADE's agent protocol SPADE's sampling (top_k 20, thinking off
// through the chat template's arguments), 8,192 tokens a reply within a 32,768-token context, and
// SPADE's truncation rule (a reply cut at its budget, or a full context, ends the episode as a
// loss). The agents here are given SPADE's budgets as options (agentBudgets('spade')), which is
// what its protocol resolves to; tests/core/cli/spade-slots.test.ts plays the protocol itself. The
// official openai client against a local server speaking its wire protocol; episodes on an
// isolated-vm environment.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import { createLLMAgent } from '../../../core/roles/llm-agent.js';
import { agentBudgets, estimatedTokens, replyBudget, SPADE_AGENT_SAMPLING, SPADE_MIN_REPLY_TOKENS } from '../../../core/roles/agent-protocol.js';
import { playEpisode } from '../../../core/run/episode.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { fixture } from '../../fixtures/programs/load.js';
import { schemaOf, RUN_OPTIONS } from '../../../core/config/options.js';
import type { Provider } from '../../../core/types.js';

const sandbox = createIsolatedVmSandbox({ limits: { callTimeoutMs: 1000 } });
let server: WireServer;
let provider: Provider;
test.before.each(async () => {
  server = await startWireServer('openai');
  provider = await openai.create({ model: 'player-m', apiKey: 'sk-budget-test-0123456789', baseURL: server.baseURL });
});
test.after.each(() => server.close());
test.after(() => sandbox.close());

const play = async (agent: ReturnType<typeof createLLMAgent>, horizon = 10) => {
  const program = fixture('valid/code-lock-multi-turn');
  const environment = await sandbox.load(program);
  try {
    return await playEpisode({ suite: 's', program, environment, agent, taskSeed: 3, agentSeed: 1, attempt: 0, withHint: false, horizon, keepSteps: true });
  } finally {
    await environment.dispose();
  }
};

test("SPADE's values: 0.6, top_p 0.95, top_k 20, thinking off, 8,192 tokens a reply, a 32,768-token context", () => {
  assert.equal(
    { ...SPADE_AGENT_SAMPLING },
    { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 8192, contextTokens: 32_768, chatTemplateKwargs: { enable_thinking: false } },
  );
  assert.is(SPADE_MIN_REPLY_TOKENS, 64);
  // What is left less the margin, capped at the reply budget; nothing when the margin is all that is left.
  assert.is(replyBudget(32_768, 1000, 8192), 8192);
  assert.is(replyBudget(32_768, 30_000, 8192), 2768 - 64);
  assert.is(replyBudget(32_768, 32_768 - 65, 8192), 1);
  assert.is(replyBudget(32_768, 32_768 - 64, 8192), undefined);
  assert.is(estimatedTokens('abcdefgh'), 2 + 4);
});

test('what each protocol resolves to: SPADE\'s values under its protocol, the model\'s own otherwise, and what is given wins', () => {
  assert.equal(agentBudgets('spade'), { ...SPADE_AGENT_SAMPLING, chatTemplateKwargs: { enable_thinking: false }, truncateCutReplies: true });
  assert.equal(agentBudgets('default'), { truncateCutReplies: false });
  assert.equal(agentBudgets(undefined, { topK: 5 }), { topK: 5, truncateCutReplies: false });
  const thinking = agentBudgets('spade', { chatTemplateKwargs: { enable_thinking: true }, maxTokens: 1000, truncateCutReplies: false });
  assert.equal([thinking.chatTemplateKwargs, thinking.maxTokens, thinking.truncateCutReplies, thinking.topK], [{ enable_thinking: true }, 1000, false, 20]);
});

const spadeBudgets = agentBudgets('spade');

test('with SPADE\'s budgets every turn\'s request carries its sampling, chat-template arguments and token budget', async () => {
  server.setDefault({ kind: 'reply', text: '\\boxed{1}', inputTokens: 100, outputTokens: 5 });
  const result = await play(createLLMAgent(provider, spadeBudgets), 3);
  assert.is(server.requests.length, 3);
  for (const { body } of server.requests) {
    assert.is(body.temperature, 0.6);
    assert.is(body.top_p, 0.95);
    assert.is(body.top_k, 20);
    assert.equal(body.chat_template_kwargs, { enable_thinking: false });
    assert.is(body.max_completion_tokens, 8192);
  }
  assert.equal(result.finishReasons, ['stop', 'stop', 'stop'], 'why each reply stopped is recorded');
  assert.is(result.agentTruncated, undefined);
});

test('the default protocol sends none of them and keeps its own reading of a cut reply', async () => {
  server.script({ kind: 'reply', text: 'I think \\boxed{1', finishReason: 'length' });
  server.setDefault({ kind: 'reply', text: '\\boxed{1}' });
  const result = await play(createLLMAgent(provider), 2);
  const body = server.requests[0]!.body;
  for (const key of ['top_k', 'chat_template_kwargs', 'max_completion_tokens', 'max_tokens']) assert.not.ok(key in body, key);
  assert.is(result.turns, 2, 'the cut reply went to the environment');
  assert.is(result.agentTruncated, undefined);
});

test('a reply cut at its budget (finish_reason "length") ends the episode there: truncated, a loss, nothing sent to the environment', async () => {
  server.script({ kind: 'reply', text: '\\boxed{1}' }, { kind: 'reply', text: 'Let me think about the second digit at great length', finishReason: 'length' });
  server.setDefault({ kind: 'reply', text: '\\boxed{1}' });
  const result = await play(createLLMAgent(provider, spadeBudgets));
  assert.is(server.requests.length, 2, 'no turn after the cut reply');
  assert.is(result.turns, 1, 'only the first reply was a step');
  assert.is(result.outcome, 'lost');
  assert.is(result.truncated, true);
  assert.is(result.terminated, false);
  assert.is(result.agentTruncated, 'length');
  assert.equal(result.finishReasons, ['stop', 'length']);
  // The cut reply stays in the conversation kept with the episode.
  assert.match(String(result.messages!.at(-1)!.content), 'great length');
});

test('a context cap: each reply gets what is left less 64 tokens, counted by the server then estimated, and a full context truncates the episode', async () => {
  const contextTokens = 400;
  server.script({ kind: 'reply', text: '\\boxed{1}', inputTokens: 150, outputTokens: 10 }, { kind: 'reply', text: '\\boxed{1}', inputTokens: 330, outputTokens: 10 });
  const result = await play(createLLMAgent(provider, { ...spadeBudgets, contextTokens }));
  assert.is(server.requests.length, 2, 'the third turn has no room left: no request');
  const first = server.requests[0]!.body as { messages: { content: string }[]; max_completion_tokens: number };
  // Before any reply the whole prompt is estimated.
  assert.is(first.max_completion_tokens, contextTokens - first.messages.reduce((sum, m) => sum + estimatedTokens(m.content), 0) - 64);
  // Then the server's count of the last request and reply, and the new observation estimated.
  const second = server.requests[1]!.body as { messages: { content: string }[]; max_completion_tokens: number };
  assert.is(second.max_completion_tokens, contextTokens - (150 + 10 + estimatedTokens(second.messages.at(-1)!.content)) - 64);
  assert.is(result.turns, 2);
  assert.is(result.agentTruncated, 'context');
  assert.is(result.outcome, 'lost');
  assert.is(result.truncated, true);
});

test('tools sent natively count towards the context before any reply', async () => {
  const tools = [{ name: 'get_stock', description: 'Units of an item in a warehouse.', parameters: { type: 'object' as const, properties: { item: { type: 'string' } }, required: ['item'] } }];
  const episode = await createLLMAgent(provider, { ...spadeBudgets, contextTokens: 2000 }).start({
    environment: { id: 'e', language: 'python', source: '' }, observation: 'How many bolts?', seed: 1, horizon: 3, tools,
  });
  await episode.act('How many bolts?', 1);
  const body = server.requests[0]!.body as { messages: { content: string }[]; tools: unknown[]; max_completion_tokens: number };
  assert.is(body.tools.length, 1, 'the tools went out natively');
  const prompt = body.messages.reduce((sum, m) => sum + estimatedTokens(m.content), 0) + estimatedTokens(JSON.stringify(tools));
  assert.is(body.max_completion_tokens, 2000 - prompt - 64);
});

test('the config takes topK, chatTemplateKwargs and contextTokens per role, and refuses a wrong one', () => {
  const schema = schemaOf(RUN_OPTIONS);
  schema({ sampling: { agent: { topK: 20, contextTokens: 32_768, chatTemplateKwargs: { enable_thinking: true } }, reviewer: { topK: 5 } } }, 'config');
  assert.throws(() => schema({ sampling: { agent: { topK: 0 } } }, 'config'), /topK/);
  assert.throws(() => schema({ sampling: { agent: { chatTemplateKwargs: 'thinking' } } }, 'config'), /chatTemplateKwargs/);
});

test.run();
