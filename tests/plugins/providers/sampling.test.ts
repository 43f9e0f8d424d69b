/**
 * Sampling through the provider layer, against a local Chat Completions server that records
 * each request's body: n samples in one request (or n requests where the server sends one),
 * top_k and chat_template_kwargs in the body, finish reasons and tokens per sample, the cache.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import { vllm } from '../../../plugins/providers/presets.js';
import anthropic from '../../../plugins/providers/anthropic.js';

const KEY = 'sk-test-sampling-0123456789abcdef';
const servers: WireServer[] = [];
test.after.each(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const serve = async (options: Parameters<typeof startWireServer>[1] = {}, protocol: 'openai' | 'anthropic' = 'openai') => {
  const server = await startWireServer(protocol, options);
  servers.push(server);
  return server;
};

const SAMPLES = [
  { text: 'first \\boxed{1}', finishReason: 'stop' },
  { text: 'second, cut', finishReason: 'length' },
  { text: 'third \\boxed{3}', finishReason: 'stop' },
];

test('n samples go out in one request with top_k and chat_template_kwargs in the body; each keeps its finish reason', async () => {
  const server = await serve();
  server.script({ kind: 'reply', samples: SAMPLES, inputTokens: 30, outputTokens: 100 });
  const provider = await vllm.create({ model: 'Qwen/Qwen3-8B', baseURL: server.baseURL });
  const reply = await provider.chat({
    messages: [{ role: 'user', content: 'solve' }],
    n: 3,
    temperature: 1,
    topP: 0.95,
    topK: 20,
    maxTokens: 32768,
    chatTemplateKwargs: { enable_thinking: false },
  });
  assert.is(server.requests.length, 1);
  const body = server.requests[0]!.body;
  assert.is(body.n, 3);
  assert.is(body.top_k, 20);
  assert.is(body.top_p, 0.95);
  assert.is(body.temperature, 1);
  assert.is(body.max_tokens, 32768);
  assert.equal(body.chat_template_kwargs, { enable_thinking: false });
  assert.equal(reply.choices!.map((c) => [c.text, c.finishReason]), SAMPLES.map((s) => [s.text, s.finishReason]));
  // The server counts the request's tokens: each sample gets an even share, marked as such, and they add up.
  assert.equal(reply.choices!.map((c) => c.usage.outputTokens), [34, 33, 33]);
  assert.ok(reply.choices!.every((c) => c.sharedUsage === true));
  assert.equal(reply.usage, { inputTokens: 30, outputTokens: 100 });
  assert.is(provider.samples, true);
});

test('a server that sends one choice for n gets the rest asked one by one, seeds following on; the samples are the same', async () => {
  const server = await serve({ ignoresN: true });
  for (const sample of SAMPLES) server.script({ kind: 'reply', text: sample.text, finishReason: sample.finishReason, outputTokens: sample.text.length });
  const provider = await openai.create({ model: 'gpt-4.1-mini', apiKey: KEY, baseURL: server.baseURL });
  const reply = await provider.chat({ messages: [{ role: 'user', content: 'solve' }], n: 3, seed: 40, topK: 20 });
  assert.is(server.requests.length, 3);
  assert.equal(server.requests.map((r) => r.body.seed), [40, 41, 42]);
  assert.equal(server.requests.map((r) => r.body.n), [3, undefined, undefined]);
  assert.equal(reply.choices!.map((c) => [c.text, c.finishReason]), SAMPLES.map((s) => [s.text, s.finishReason]));
  // One request each: exact tokens per sample.
  assert.equal(reply.choices!.map((c) => c.usage.outputTokens), SAMPLES.map((s) => s.text.length));
  assert.ok(reply.choices!.every((c) => c.sharedUsage === undefined));
});

test('a provider without n (Anthropic) sends n requests of one sample each, with top_k', async () => {
  const server = await serve({}, 'anthropic');
  for (const sample of SAMPLES) server.script({ kind: 'reply', text: sample.text, finishReason: sample.finishReason === 'length' ? 'max_tokens' : 'end_turn' });
  const provider = await anthropic.create({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL: server.baseURL });
  const reply = await provider.chat({ messages: [{ role: 'user', content: 'solve' }], n: 3, topK: 20 });
  assert.is(server.requests.length, 3);
  assert.ok(server.requests.every((r) => r.body.top_k === 20 && r.body.n === undefined));
  // Requests run at once: their order on the wire is not fixed, the replies' texts are those scripted.
  assert.equal(reply.choices!.map((c) => c.text).sort(), SAMPLES.map((s) => s.text).sort());
  assert.equal(reply.choices!.filter((c) => c.finishReason === 'length').length, 1);
});

test('a single sample keeps its finish reason; no n, top_k or chat_template_kwargs unless asked', async () => {
  const server = await serve();
  server.script({ kind: 'reply', text: 'cut', finishReason: 'length' });
  const provider = await openai.create({ model: 'gpt-4.1-mini', apiKey: KEY, baseURL: server.baseURL });
  const reply = await provider.chat({ messages: [{ role: 'user', content: 'x' }] });
  assert.is(reply.finishReason, 'length');
  assert.is(reply.choices, undefined);
  const body = server.requests[0]!.body;
  assert.ok(!('n' in body) && !('top_k' in body) && !('chat_template_kwargs' in body));
});

test('the response cache keeps every sample and keys on n, top_k and the chat template arguments', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spade-sampling-'));
  try {
    const server = await serve();
    server.setDefault({ kind: 'reply', samples: SAMPLES });
    const provider = await vllm.create({ model: 'm', baseURL: server.baseURL, cacheDir: dir });
    const request = { messages: [{ role: 'user' as const, content: 'solve' }], n: 3, topK: 20, chatTemplateKwargs: { enable_thinking: true } };
    await provider.chat(request);
    const again = await provider.chat(request);
    assert.is(again.cached, true);
    assert.equal(again.choices!.map((c) => [c.text, c.finishReason]), SAMPLES.map((s) => [s.text, s.finishReason]));
    assert.is(server.requests.length, 1);
    await provider.chat({ ...request, topK: 40 });
    await provider.chat({ ...request, chatTemplateKwargs: { enable_thinking: false } });
    await provider.chat({ ...request, n: 2 });
    assert.is(server.requests.length, 4);
    await provider.close?.();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
