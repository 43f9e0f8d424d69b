import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import anthropic from '../../../plugins/providers/anthropic.js';
import { ProviderError } from '../../../core/providers/provider-error.js';
import { UsageError } from '../../../core/errors.js';
import type { RetryEvent } from '../../../core/providers/layer-options.js';
import type { ProviderOptions } from '../../../core/config/plugin.js';

const KEY = 'sk-ant-test-0123456789abcdefSECRET';
const saved = { key: process.env.ANTHROPIC_API_KEY, url: process.env.ANTHROPIC_BASE_URL };
delete process.env.ANTHROPIC_API_KEY;
delete process.env.ANTHROPIC_BASE_URL;

let server: WireServer;
test.before.each(async () => {
  server = await startWireServer('anthropic');
});
test.after.each(async () => {
  await server.close();
  delete process.env.ANTHROPIC_API_KEY;
  delete process.env.ANTHROPIC_BASE_URL;
});
test.after(() => {
  if (saved.key !== undefined) process.env.ANTHROPIC_API_KEY = saved.key;
  if (saved.url !== undefined) process.env.ANTHROPIC_BASE_URL = saved.url;
});

const create = (extra: Partial<ProviderOptions> = {}) =>
  anthropic.create({ model: 'claude-haiku-4-5', apiKey: KEY, baseURL: server.baseURL, retry: { baseDelayMs: 5, maxDelayMs: 20 }, ...extra });

test('sends a Messages request: path, key, anthropic-version, system apart, max_tokens', async () => {
  const provider = await create({ headers: { 'x-team': 'spade' } });
  const reply = await provider.chat({
    messages: [{ role: 'system', content: 'rules' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: '\\boxed{1}' }, { role: 'user', content: 'next' }],
    temperature: 0,
    stop: ['END'],
  });
  assert.is(provider.id, 'anthropic:claude-haiku-4-5');
  assert.is(reply.text, 'echo: next');
  const [request] = server.requests;
  assert.is(request!.path, '/v1/messages');
  // The installed SDK sends the key as x-api-key or as a bearer token; either way it is this key.
  assert.ok(request!.headers['x-api-key'] === KEY || request!.headers.authorization === `Bearer ${KEY}`, 'the key is sent');
  assert.type(request!.headers['anthropic-version'], 'string');
  assert.is(request!.headers['x-team'], 'spade');
  assert.is(request!.body.system, 'rules');
  assert.equal(request!.body.messages, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: '\\boxed{1}' }, { role: 'user', content: 'next' }]);
  assert.is(request!.body.max_tokens, 4096);
  assert.is(request!.body.temperature, 0);
  assert.equal(request!.body.stop_sequences, ['END']);
});

test('maps usage and prices it', async () => {
  server.script({ kind: 'reply', text: 'x', inputTokens: 2000, outputTokens: 100 });
  const provider = await create();
  const reply = await provider.chat({ messages: [{ role: 'user', content: 'q' }], maxTokens: 50 });
  assert.equal(reply.usage, { inputTokens: 2000, outputTokens: 100 });
  // claude-haiku-4-5: $1 in, $5 out per million tokens
  assert.ok(Math.abs(reply.costUsd! - (2000 * 1 + 100 * 5) / 1e6) < 1e-12);
  assert.is(server.requests[0]!.body.max_tokens, 50);
});

test('retries 429 honouring retry-after-ms, and 529 overloaded', async () => {
  server.script({ kind: 'error', status: 429, headers: { 'retry-after-ms': '300', 'retry-after': '30' } }, { kind: 'error', status: 529 });
  const events: RetryEvent[] = [];
  const provider = await create({ onRetry: (e: RetryEvent) => events.push(e) });
  assert.is((await provider.chat({ messages: [{ role: 'user', content: 'ok?' }] })).text, 'echo: ok?');
  assert.is(server.requests.length, 3);
  assert.equal(events.map((e) => [e.kind, e.status]), [['rate-limit', 429], ['server', 529]]);
  assert.is(events[0]!.delayMs, 300);
  assert.ok(server.requests[1]!.receivedAt - server.requests[0]!.receivedAt >= 280);
});

test('malformed JSON and dropped connections', async () => {
  server.script({ kind: 'drop' });
  const provider = await create();
  assert.is((await provider.chat({ messages: [{ role: 'user', content: 'a' }] })).text, 'echo: a');
  server.script({ kind: 'malformed' });
  const error = (await provider.chat({ messages: [{ role: 'user', content: 'b' }] }).catch((e: unknown) => e)) as ProviderError;
  assert.instance(error, ProviderError);
  assert.is(error.kind, 'bad-response');
  assert.match(error.message, /anthropic:claude-haiku-4-5.*malformed JSON/);
});

test('calls one after another reuse their connections (Node\'s fetch keeps them alive)', async () => {
  const provider = await create();
  for (let i = 0; i < 20; i++) await provider.chat({ messages: [{ role: 'user', content: `n${i}` }] });
  assert.is(server.requests.length, 20);
  // Node's fetch (undici) opens a second connection after the first reply, then keeps to those.
  assert.ok(server.connections <= 2, `${server.connections} connections for 20 calls`);
});

test('a missing key is a usage error naming ANTHROPIC_API_KEY; the variable works', async () => {
  assert.equal(anthropic.requiredEnv!({ model: 'm' }), ['ANTHROPIC_API_KEY']);
  const missing = await Promise.resolve().then(() => anthropic.create({ model: 'claude-x' })).catch((e: unknown) => e);
  assert.instance(missing, UsageError);
  assert.is((missing as Error).message, 'missing API key: set ANTHROPIC_API_KEY (or providers["anthropic:claude-x"].apiKey)');
  process.env.ANTHROPIC_API_KEY = KEY;
  process.env.ANTHROPIC_BASE_URL = server.baseURL;
  const provider = await anthropic.create({ model: 'claude-x' });
  assert.is((await provider.chat({ messages: [{ role: 'user', content: 'env' }] })).text, 'echo: env');
});

test.run();
