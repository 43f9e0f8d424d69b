/**
 * Native function calling through the official SDKs, against local servers that speak each
 * vendor's wire protocol and check the tool turns the way the real APIs do: tools go out in the
 * vendor's shape, the model's calls come back as ToolCalls, and results go back answering them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startWireServer, type Protocol, type WireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import anthropic from '../../../plugins/providers/anthropic.js';
import { vllm } from '../../../plugins/providers/presets.js';
import { ProviderError } from '../../../core/providers/provider-error.js';
import { statsOf } from '../../../core/providers/layer.js';
import type { ChatMessage, Provider, ToolDefinition } from '../../../core/types.js';

const KEY = 'sk-tools-test-0123456789abcdefSECRET';

const TOOLS: ToolDefinition[] = [
  {
    name: 'get_stock',
    description: 'Units of an item held in one warehouse.',
    parameters: { type: 'object', properties: { item: { type: 'string' }, warehouse: { type: 'string' } }, required: ['item', 'warehouse'] },
  },
  { name: 'list_warehouses', description: 'List the warehouse ids.', parameters: { type: 'object', properties: {} } },
];

const servers: WireServer[] = [];
const dirs: string[] = [];
test.after.each(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function providerOn(protocol: Protocol, extra: Record<string, unknown> = {}): Promise<{ server: WireServer; provider: Provider }> {
  const server = await startWireServer(protocol);
  servers.push(server);
  const options = { model: protocol === 'openai' ? 'gpt-4.1-mini' : 'claude-haiku-4-5', apiKey: KEY, baseURL: server.baseURL, maxRetries: 0, ...extra };
  const provider = await (protocol === 'openai' ? openai : anthropic).create(options);
  return { server, provider };
}

const question: ChatMessage[] = [
  { role: 'system', content: 'Use the tools.' },
  { role: 'user', content: 'How many bolts are in stock?' },
];

test('openai: tools go out as type "function"; tool_calls come back with their arguments parsed', async () => {
  const { server, provider } = await providerOn('openai');
  assert.ok(provider.tools, 'the provider takes tools');
  server.script({ kind: 'reply', toolCalls: [{ id: 'call_a', name: 'get_stock', arguments: { item: 'bolts', warehouse: 'north' } }, { id: 'call_b', name: 'list_warehouses', arguments: {} }] });
  const reply = await provider.chat({ messages: question, tools: TOOLS });
  assert.equal(server.requests[0]!.body.tools, TOOLS.map((tool) => ({ type: 'function', function: tool })));
  assert.is(reply.text, '');
  assert.equal(reply.toolCalls, [
    { id: 'call_a', name: 'get_stock', arguments: { item: 'bolts', warehouse: 'north' } },
    { id: 'call_b', name: 'list_warehouses', arguments: {} },
  ]);
});

test('openai: the assistant turn goes back with its tool_calls, each result as a tool message with its tool_call_id', async () => {
  const { server, provider } = await providerOn('openai');
  server.script({ kind: 'reply', text: 'There are 42. <answer>42</answer>' });
  const reply = await provider.chat({
    tools: TOOLS,
    messages: [
      ...question,
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_a', name: 'get_stock', arguments: { item: 'bolts', warehouse: 'north' } }, { id: 'call_b', name: 'get_stock', arguments: { item: 'bolts', warehouse: 'south' } }] },
      { role: 'tool', toolCallId: 'call_a', name: 'get_stock', content: '30' },
      { role: 'tool', toolCallId: 'call_b', name: 'get_stock', content: '12' },
    ],
  });
  assert.is(reply.text, 'There are 42. <answer>42</answer>');
  assert.is(reply.toolCalls, undefined);
  const sent = server.requests[0]!.body.messages as Record<string, unknown>[];
  assert.equal(sent.slice(2), [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'get_stock', arguments: '{"item":"bolts","warehouse":"north"}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_stock', arguments: '{"item":"bolts","warehouse":"south"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: '30' },
    { role: 'tool', tool_call_id: 'call_b', content: '12' },
  ]);
});

test('openai: arguments that are not a JSON object are kept as invalidArguments, and sent back unchanged', async () => {
  const { server, provider } = await providerOn('openai');
  server.script({ kind: 'reply', toolCalls: [{ id: 'call_x', name: 'get_stock', arguments: '{"item": "bolts",' }] });
  const reply = await provider.chat({ messages: question, tools: TOOLS });
  assert.equal(reply.toolCalls, [{ id: 'call_x', name: 'get_stock', arguments: {}, invalidArguments: '{"item": "bolts",' }]);
  await provider.chat({ tools: TOOLS, messages: [...question, { role: 'assistant', content: '', toolCalls: reply.toolCalls }, { role: 'tool', toolCallId: 'call_x', content: 'Format error' }] });
  const sent = server.requests[1]!.body.messages as { tool_calls?: { function: { arguments: string } }[] }[];
  assert.is(sent[2]!.tool_calls![0]!.function.arguments, '{"item": "bolts",');
});

test('openai: a tool result answering no call, or a call left unanswered, is refused with HTTP 400 as the API does', async () => {
  const { server, provider } = await providerOn('openai');
  const stray = await provider.chat({ tools: TOOLS, messages: [...question, { role: 'tool', toolCallId: 'call_zz', content: '1' }] }).catch((e: unknown) => e);
  assert.instance(stray, ProviderError);
  assert.is((stray as ProviderError).status, 400);
  assert.is((stray as ProviderError).kind, 'client');
  assert.match((stray as Error).message, /role 'tool' must be a response/);
  const unanswered = await provider
    .chat({ tools: TOOLS, messages: [...question, { role: 'assistant', content: '', toolCalls: [{ id: 'call_q', name: 'list_warehouses', arguments: {} }] }, { role: 'user', content: 'well?' }] })
    .catch((e: unknown) => e);
  assert.match((unanswered as Error).message, /did not have response messages: call_q/);
  assert.is(server.requests.length, 2, 'a 400 is not retried');
});

test('anthropic: tools go out with input_schema; tool_use blocks come back as calls', async () => {
  const { server, provider } = await providerOn('anthropic');
  assert.ok(provider.tools);
  server.script({ kind: 'reply', text: 'Let me look.', toolCalls: [{ id: 'toolu_1', name: 'get_stock', arguments: { item: 'bolts', warehouse: 'north' } }] });
  const reply = await provider.chat({ messages: question, tools: TOOLS });
  assert.equal(server.requests[0]!.body.tools, TOOLS.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })));
  assert.is(server.requests[0]!.body.system, 'Use the tools.');
  assert.is(reply.text, 'Let me look.');
  assert.equal(reply.toolCalls, [{ id: 'toolu_1', name: 'get_stock', arguments: { item: 'bolts', warehouse: 'north' } }]);
});

test('anthropic: calls go back as tool_use blocks, results as tool_result blocks first in the next user message', async () => {
  const { server, provider } = await providerOn('anthropic');
  server.script({ kind: 'reply', text: '<answer>42</answer>' });
  const reply = await provider.chat({
    tools: TOOLS,
    messages: [
      ...question,
      { role: 'assistant', content: 'Let me look.', toolCalls: [{ id: 'toolu_1', name: 'get_stock', arguments: { item: 'bolts', warehouse: 'north' } }, { id: 'toolu_2', name: 'list_warehouses', arguments: {} }] },
      { role: 'tool', toolCallId: 'toolu_1', content: '30' },
      { role: 'tool', toolCallId: 'toolu_2', content: '["north"]' },
      { role: 'user', content: 'Turns left: 3.' },
    ],
  });
  assert.is(reply.text, '<answer>42</answer>');
  assert.equal((server.requests[0]!.body.messages as unknown[]).slice(1), [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_stock', input: { item: 'bolts', warehouse: 'north' } },
        { type: 'tool_use', id: 'toolu_2', name: 'list_warehouses', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '30' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: '["north"]' },
        { type: 'text', text: 'Turns left: 3.' },
      ],
    },
  ]);
});

test('anthropic: a result without its tool_use, or a tool_use without its result, is refused with HTTP 400', async () => {
  const { provider } = await providerOn('anthropic');
  const stray = (await provider.chat({ tools: TOOLS, messages: [...question, { role: 'tool', toolCallId: 'toolu_9', content: '1' }] }).catch((e: unknown) => e)) as ProviderError;
  assert.is(stray.status, 400);
  assert.match(stray.message, /unexpected `tool_use_id`/);
  const unanswered = (await provider
    .chat({ tools: TOOLS, messages: [...question, { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_5', name: 'list_warehouses', arguments: {} }] }, { role: 'user', content: 'go on' }] })
    .catch((e: unknown) => e)) as ProviderError;
  assert.match(unanswered.message, /`tool_use` ids were found without `tool_result` blocks immediately after: toolu_5/);
});

for (const protocol of ['openai', 'anthropic'] as const) {
  test(`${protocol}: usage and cost count every tool turn, a reply with calls only included`, async () => {
    const { server, provider } = await providerOn(protocol);
    server.script(
      { kind: 'reply', toolCalls: [{ name: 'list_warehouses', arguments: {} }], inputTokens: 300, outputTokens: 20 },
      { kind: 'reply', text: '<answer>42</answer>', inputTokens: 400, outputTokens: 10 },
    );
    const first = await provider.chat({ messages: question, tools: TOOLS });
    assert.equal(first.usage, { inputTokens: 300, outputTokens: 20 });
    assert.ok(first.costUsd! > 0);
    const call = first.toolCalls![0]!;
    const second = await provider.chat({
      tools: TOOLS,
      messages: [...question, { role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: call.id, content: '["north"]' }],
    });
    assert.is(second.text, '<answer>42</answer>');
    assert.equal(statsOf(provider)!.usage(), { calls: 2, cachedCalls: 0, inputTokens: 700, outputTokens: 30, costUsd: first.costUsd! + second.costUsd! });
  });

  test(`${protocol}: the cache keys on tools and tool turns, and keeps the calls of a cached reply`, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spade-tool-cache-'));
    dirs.push(dir);
    const { server, provider } = await providerOn(protocol, { cacheDir: dir });
    server.setDefault({ kind: 'reply', toolCalls: [{ id: 'c1', name: 'get_stock', arguments: { item: 'bolts', warehouse: 'north' } }] });
    const first = await provider.chat({ messages: question, tools: TOOLS, seed: 1 });
    const again = await provider.chat({ messages: question, tools: TOOLS, seed: 1 });
    assert.is(server.requests.length, 1);
    assert.ok(again.cached);
    assert.equal(again.toolCalls, first.toolCalls);
    // Other tools, or another result in the tool turn, is another request.
    await provider.chat({ messages: question, tools: TOOLS.slice(0, 1), seed: 1 });
    const turn = (result: string): ChatMessage[] => [...question, { role: 'assistant', content: '', toolCalls: first.toolCalls }, { role: 'tool', toolCallId: 'c1', content: result }];
    await provider.chat({ messages: turn('30'), tools: TOOLS, seed: 1 });
    await provider.chat({ messages: turn('31'), tools: TOOLS, seed: 1 });
    await provider.chat({ messages: turn('31'), tools: TOOLS, seed: 1 });
    assert.is(server.requests.length, 4);
  });
}

test('an OpenAI-protocol preset (vllm:) takes tools the same way', async () => {
  const server = await startWireServer('openai');
  servers.push(server);
  const provider = await vllm.create({ model: 'qwen3', baseURL: server.baseURL, maxRetries: 0 });
  server.script({ kind: 'reply', toolCalls: [{ id: 'call_v', name: 'list_warehouses', arguments: {} }] });
  const reply = await provider.chat({ messages: question, tools: TOOLS });
  assert.equal(reply.toolCalls, [{ id: 'call_v', name: 'list_warehouses', arguments: {} }]);
  assert.is((server.requests[0]!.body.tools as unknown[]).length, 2);
});

test('providers[id].tools: false turns native tools off: the provider says so and refuses tools; a value that is not a boolean is a usage error', async () => {
  const { server, provider } = await providerOn('openai', { tools: false });
  assert.is(provider.tools, false);
  const refused = await provider.chat({ messages: question, tools: TOOLS }).catch((e: unknown) => e);
  assert.instance(refused, ProviderError);
  assert.match((refused as Error).message, 'providers[id].tools: false');
  assert.is(server.requests.length, 0, 'nothing was sent');
  assert.is((await provider.chat({ messages: question })).text, 'echo: How many bolts are in stock?');
  const bad = await openai.create({ model: 'm', apiKey: KEY, baseURL: server.baseURL, tools: 'no' }).then(() => undefined, (e: unknown) => e);
  assert.match(String((bad as Error)?.message), /"tools" must be true or false, got "no"/);
});

test.run();
