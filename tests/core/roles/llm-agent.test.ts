import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import { createLLMAgent, OMITTED_TURNS, parseAgentMemory } from '../../../core/roles/llm-agent.js';
import type { AgentEpisodeContext } from '../../../core/types.js';

const context = (extra: Partial<AgentEpisodeContext> = {}): AgentEpisodeContext => ({
  environment: { id: 'e1', language: 'javascript', source: '' },
  observation: 'Guess a number from 1 to 10.',
  seed: 11,
  horizon: 5,
  ...extra,
});

test('plays turns: system prompt with the \\boxed format, observations as user messages, replies as history', async () => {
  const server = await startWireServer('openai');
  try {
    server.script({ kind: 'reply', text: 'I guess \\boxed{5}', inputTokens: 30, outputTokens: 4 }, { kind: 'reply', text: '\\boxed{8}' });
    const provider = await openai.create({ model: 'gpt-4.1-mini', apiKey: 'sk-agent-test-0123456789abcdef', baseURL: server.baseURL });
    const agent = createLLMAgent(provider, { temperature: 0.7, maxTokens: 256 });
    assert.is(agent.kind, 'llm');
    assert.match(agent.label, 'openai:gpt-4.1-mini');
    const episode = await agent.start(context({ hint: 'It is even.' }));
    const first = await episode.act('Guess a number from 1 to 10.', 1);
    assert.is(first.reply, 'I guess \\boxed{5}');
    assert.equal(first.usage, { inputTokens: 30, outputTokens: 4 });
    assert.type(first.costUsd, 'number');
    await episode.act('Too low.', 2);

    const body = server.requests[1]!.body as { messages: { role: string; content: string }[]; seed: number; temperature: number };
    const [system, ...rest] = body.messages;
    assert.is(system!.role, 'system');
    assert.match(system!.content, '\\boxed{');
    assert.match(system!.content, 'at most 5 turns');
    // A hinted play's hint is in its first observation (the episode puts it there), not in the system prompt.
    assert.not.match(system!.content, 'It is even.');
    assert.equal(rest, [
      { role: 'user', content: 'Guess a number from 1 to 10.' },
      { role: 'assistant', content: 'I guess \\boxed{5}' },
      { role: 'user', content: 'Too low.' },
    ]);
    assert.is(body.seed, 11);
    assert.is(body.temperature, 0.7);
  } finally {
    await server.close();
  }
});

test('with maxHistoryTurns, keeps the first observation and the latest exchanges', async () => {
  const server = await startWireServer('openai');
  try {
    const provider = await openai.create({ model: 'm', apiKey: 'sk-agent-test-0123456789abcdef', baseURL: server.baseURL });
    const episode = await createLLMAgent(provider, { maxHistoryTurns: 1 }).start(context());
    for (let turn = 1; turn <= 4; turn++) await episode.act(`obs ${turn}`, turn);
    const messages = (server.requests[3]!.body.messages as { role: string; content: string }[]).slice(1);
    assert.equal(messages, [
      { role: 'user', content: 'obs 1' },
      { role: 'assistant', content: OMITTED_TURNS },
      { role: 'user', content: 'obs 3' },
      { role: 'assistant', content: 'echo: obs 3' },
      { role: 'user', content: 'obs 4' },
    ]);
  } finally {
    await server.close();
  }
});

async function playTurns(memory: string, turns: number, reply: (turn: number) => string) {
  const server = await startWireServer('openai');
  try {
    for (let t = 1; t <= turns; t++) server.script({ kind: 'reply', text: reply(t) });
    const provider = await openai.create({ model: 'm', apiKey: 'sk-agent-test-0123456789abcdef', baseURL: server.baseURL });
    const episode = await createLLMAgent(provider, { memory }).start(context());
    for (let turn = 1; turn <= turns; turn++) await episode.act(`obs ${turn}`, turn);
    const sent = (server.requests.at(-1)!.body.messages as { role: string; content: string }[]).slice(1);
    return { sent, transcript: episode.transcript!() };
  } finally {
    await server.close();
  }
}

test('memory window:K is the first observation and the last K exchanges', async () => {
  const { sent } = await playTurns('window:1', 4, (t) => `\\boxed{${t}}`);
  assert.equal(sent.map((m) => m.content), ['obs 1', OMITTED_TURNS, 'obs 3', '\\boxed{3}', 'obs 4']);
});

test('memory summary:K replaces the left-out turns by a digest of actions and observations', async () => {
  const { sent, transcript } = await playTurns('summary:1', 4, (t) => `thinking... \\boxed{${t * 10}}`);
  assert.equal(sent.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user']);
  const digest = sent[1]!.content;
  assert.match(digest, 'Turn 1: \\boxed{10} -> obs 2');
  assert.match(digest, 'Turn 2: \\boxed{20} -> obs 3');
  assert.not.match(digest, 'Turn 3');
  assert.equal(sent.slice(2).map((m) => m.content), ['obs 3', 'thinking... \\boxed{30}', 'obs 4']);
  // The transcript keeps the whole episode, whatever was sent.
  assert.is(transcript.length, 1 + 2 * 4);
  assert.is(transcript[0]!.role, 'system');
  assert.is(transcript[3]!.content, 'obs 2');
});

test('memory full sends everything; bad specs are refused', async () => {
  const { sent } = await playTurns('full', 3, () => 'x');
  assert.is(sent.length, 5);
  assert.equal(parseAgentMemory('summary'), { kind: 'summary', turns: 2 });
  assert.equal(parseAgentMemory('window:3'), { kind: 'window', turns: 3 });
  for (const bad of ['window', 'window:-1', 'recent:2', 'full:3']) assert.throws(() => parseAgentMemory(bad), /full, window:K or summary/);
});

test.run();
