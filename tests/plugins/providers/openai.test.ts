import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import { ProviderError } from '../../../core/providers/provider-error.js';
import { UsageError } from '../../../core/errors.js';
import type { RetryEvent } from '../../../core/providers/layer-options.js';
import type { ProviderOptions } from '../../../core/config/plugin.js';

const KEY = 'sk-test-openai-0123456789abcdefSECRET';
const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
delete process.env.OPENAI_API_KEY;
delete process.env.OPENAI_BASE_URL;

let server: WireServer;
test.before.each(async () => {
  server = await startWireServer('openai');
});
test.after.each(async () => {
  await server.close();
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_BASE_URL;
});
test.after(() => {
  if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
  if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
});

const fastRetry = { baseDelayMs: 5, maxDelayMs: 20 };
const create = (extra: Partial<ProviderOptions> = {}) =>
  openai.create({ model: 'gpt-4.1-mini', apiKey: KEY, baseURL: server.baseURL, retry: fastRetry, ...extra });

test('sends a Chat Completions request with the bearer key, headers, parameters and messages', async () => {
  const provider = await create({ headers: { 'x-team': 'spade' }, params: { top_p: 0.5 } });
  const reply = await provider.chat({ messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello there' }], temperature: 0.2, maxTokens: 64, seed: 7, stop: ['END'] });
  assert.is(provider.id, 'openai:gpt-4.1-mini');
  assert.is(reply.text, 'echo: hello there');
  const [request] = server.requests;
  assert.is(request!.method, 'POST');
  assert.is(request!.path, '/v1/chat/completions');
  assert.is(request!.headers.authorization, `Bearer ${KEY}`);
  assert.is(request!.headers['x-team'], 'spade');
  assert.equal(request!.body.messages, [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello there' }]);
  assert.is(request!.body.model, 'gpt-4.1-mini');
  assert.is(request!.body.temperature, 0.2);
  assert.is(request!.body.max_completion_tokens, 64);
  assert.is(request!.body.seed, 7);
  assert.equal(request!.body.stop, ['END']);
  assert.is(request!.body.top_p, 0.5);
});

test('reports the usage the server counted and the cost from the price table', async () => {
  server.script({ kind: 'reply', text: 'ok', inputTokens: 1000, outputTokens: 500 });
  const provider = await create();
  const reply = await provider.chat({ messages: [{ role: 'user', content: 'x' }] });
  assert.equal(reply.usage, { inputTokens: 1000, outputTokens: 500 });
  // gpt-4.1-mini: $0.40 in, $1.60 out per million tokens
  assert.ok(Math.abs(reply.costUsd! - (1000 * 0.4 + 500 * 1.6) / 1e6) < 1e-12);
  const unknown = await create({ model: 'my-finetune' });
  assert.is((await unknown.chat({ messages: [{ role: 'user', content: 'x' }] })).costUsd, undefined);
});

test('retries a 429 after the retry-after the server asked for', async () => {
  server.script({ kind: 'error', status: 429, headers: { 'retry-after': '1' } });
  const events: RetryEvent[] = [];
  const provider = await create({ onRetry: (e: RetryEvent) => events.push(e) });
  const reply = await provider.chat({ messages: [{ role: 'user', content: 'again' }] });
  assert.is(reply.text, 'echo: again');
  assert.is(server.requests.length, 2);
  assert.is(events.length, 1);
  assert.is(events[0]!.kind, 'rate-limit');
  assert.is(events[0]!.delayMs, 1000);
  assert.ok(events[0]!.fromRetryAfter);
  assert.ok(server.requests[1]!.receivedAt - server.requests[0]!.receivedAt >= 950, 'waited for retry-after');
});

test('retries 500s and succeeds; gives up after maxRetries with a ProviderError naming the status', async () => {
  server.script({ kind: 'error', status: 500 }, { kind: 'error', status: 503 });
  const provider = await create();
  assert.is((await provider.chat({ messages: [{ role: 'user', content: 'hi' }] })).text, 'echo: hi');
  assert.is(server.requests.length, 3);

  server.setDefault({ kind: 'error', status: 500 });
  const failing = await create({ maxRetries: 2 });
  const error = await failing.chat({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  assert.instance(error, ProviderError);
  const e = error as ProviderError;
  assert.is(e.status, 500);
  assert.is(e.kind, 'server');
  assert.is(e.tries, 3);
  assert.match(e.message, /openai:gpt-4\.1-mini/);
  assert.match(e.message, /HTTP 500/);
  assert.is(server.requests.length, 3 + 3);
});

test('a reply slower than the timeout is aborted, retried, then fails as a timeout', async () => {
  // One call first: Node loads its fetch on first use, which on a busy machine can take longer than the timeout below.
  await (await create()).chat({ messages: [{ role: 'user', content: 'warm' }] });
  server.setDefault({ kind: 'reply', delayMs: 2000 });
  const provider = await create({ timeoutMs: 100, maxRetries: 1 });
  const error = (await provider.chat({ messages: [{ role: 'user', content: 'slow' }] }).catch((e: unknown) => e)) as ProviderError;
  assert.instance(error, ProviderError);
  assert.is(error.kind, 'timeout');
  assert.is(error.tries, 2);
  assert.is(server.requests.length, 1 + 2);
});

test('a dropped connection is retried', async () => {
  server.script({ kind: 'drop' });
  const provider = await create();
  assert.is((await provider.chat({ messages: [{ role: 'user', content: 'still there?' }] })).text, 'echo: still there?');
  assert.is(server.requests.length, 2);
});

test('malformed JSON fails at once with a clear error', async () => {
  server.script({ kind: 'malformed' });
  const provider = await create();
  const error = (await provider.chat({ messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as ProviderError;
  assert.instance(error, ProviderError);
  assert.is(error.kind, 'bad-response');
  assert.match(error.message, /malformed JSON/);
  assert.is(server.requests.length, 1);
});

test('the key never appears in an error message, even when the server echoes it', async () => {
  server.script({ kind: 'error', status: 401, message: `Incorrect API key provided: ${KEY}` });
  const provider = await create();
  const error = (await provider.chat({ messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as ProviderError;
  assert.is(error.kind, 'auth');
  assert.match(error.message, /HTTP 401/);
  assert.not.ok(error.message.includes(KEY));
  assert.not.ok(String(error.stack).includes(KEY));
  assert.is(server.requests.length, 1, 'auth errors are not retried');
});

test('never more requests in flight than the concurrency limit', async () => {
  server.setDefault({ kind: 'reply', delayMs: 40 });
  const provider = await create({ requestsInFlight: 3 });
  const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => provider.chat({ messages: [{ role: 'user', content: `n${i}` }] })));
  assert.equal(replies.map((r) => r.text), Array.from({ length: 10 }, (_, i) => `echo: n${i}`));
  assert.is(server.maxInFlight, 3);
});

test('calls one after another reuse their connections (Node\'s fetch keeps them alive)', async () => {
  const provider = await create();
  for (let i = 0; i < 20; i++) await provider.chat({ messages: [{ role: 'user', content: `n${i}` }] });
  assert.is(server.requests.length, 20);
  // Node's fetch (undici) opens a second connection after the first reply, then keeps to those.
  assert.ok(server.connections <= 2, `${server.connections} connections for 20 calls`);
});

test('reads OPENAI_API_KEY and OPENAI_BASE_URL; a missing key is a usage error naming the variable', async () => {
  assert.equal(openai.requiredEnv!({ model: 'gpt-4.1' }), ['OPENAI_API_KEY']);
  assert.equal(openai.requiredEnv!({ model: 'gpt-4.1', apiKey: 'k' }), []);
  const missing = await Promise.resolve().then(() => openai.create({ model: 'gpt-4.1' })).catch((e: unknown) => e);
  assert.instance(missing, UsageError);
  assert.is((missing as Error).message, 'missing API key: set OPENAI_API_KEY (or providers["openai:gpt-4.1"].apiKey)');

  process.env.OPENAI_API_KEY = KEY;
  process.env.OPENAI_BASE_URL = server.baseURL;
  const provider = await openai.create({ model: 'gpt-4.1' });
  assert.is((await provider.chat({ messages: [{ role: 'user', content: 'env' }] })).text, 'echo: env');
  assert.is(server.requests[0]!.headers.authorization, `Bearer ${KEY}`);
});

test.run();
