import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import { createLLMAgent, OMITTED_TURNS } from '../../../core/roles/llm-agent.js';
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
    assert.match(system!.content, 'Hint: It is even.');
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

test.run();
