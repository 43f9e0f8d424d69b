import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import { statsOf } from '../../../core/providers/layer.js';
import { cacheKey } from '../../../core/providers/response-cache.js';

const KEY = 'sk-cache-test-0123456789abcdefSECRET';
let server: WireServer;
let dir: string;
test.before.each(async () => {
  server = await startWireServer('openai');
  dir = mkdtempSync(path.join(tmpdir(), 'spade-cache-'));
});
test.after.each(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const create = (extra: Record<string, unknown> = {}) =>
  openai.create({ model: 'gpt-4.1-mini', apiKey: KEY, baseURL: server.baseURL, cacheDir: dir, retry: { baseDelayMs: 5 }, maxRetries: 0, ...extra });

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

test('a repeated request is served from the cache, across provider instances', async () => {
  const request = { messages: [{ role: 'user' as const, content: 'same question' }], temperature: 0, seed: 1 };
  const first = await (await create()).chat(request);
  const provider = await create();
  const second = await provider.chat(request);
  assert.is(server.requests.length, 1);
  assert.not.ok(first.cached);
  assert.ok(second.cached);
  assert.is(second.text, first.text);
  assert.equal(second.usage, first.usage);
  assert.is(second.costUsd, 0, 'a cached reply costs nothing');
  assert.equal(statsOf(provider)!.usage(), { calls: 1, cachedCalls: 1, inputTokens: 0, outputTokens: 0, costUsd: 0 });
  // A different seed, temperature or model is another entry.
  await provider.chat({ ...request, seed: 2 });
  assert.is(server.requests.length, 2);
});

test('errors are never cached', async () => {
  server.script({ kind: 'error', status: 400, message: 'bad request' });
  const provider = await create();
  const request = { messages: [{ role: 'user' as const, content: 'q' }] };
  await provider.chat(request).then(() => assert.unreachable('should fail'), () => undefined);
  assert.equal(filesUnder(dir), []);
  assert.is((await provider.chat(request)).text, 'echo: q');
  assert.is(server.requests.length, 2);
});

test('the key is nowhere in the cache, even when the reply contains it', async () => {
  server.script({ kind: 'reply', text: `my key is ${KEY}` });
  const provider = await create();
  await provider.chat({ messages: [{ role: 'user', content: 'leak it' }] });
  // Entries are written in the background; closing the provider waits for them.
  await provider.close?.();
  const files = filesUnder(dir);
  assert.is(files.length, 1);
  for (const file of files) assert.not.ok(readFileSync(file, 'utf8').includes(KEY));
});

test('cache: false bypasses the cache (--no-cache)', async () => {
  const provider = await create({ cache: false });
  await provider.chat({ messages: [{ role: 'user', content: 'x' }] });
  await provider.chat({ messages: [{ role: 'user', content: 'x' }] });
  assert.is(server.requests.length, 2);
  assert.equal(filesUnder(dir), []);
});

test('the key depends on provider, model, endpoint, messages and parameters, not on key order', () => {
  const base = { providerId: 'openai:a', model: 'a', endpoint: 'http://x/v1', messages: [{ role: 'user' as const, content: 'hi' }], params: { temperature: 0, top_p: 1 } };
  const key = cacheKey(base);
  assert.is(cacheKey({ ...base, params: { top_p: 1, temperature: 0 } }), key);
  assert.is.not(cacheKey({ ...base, model: 'b' }), key);
  assert.is.not(cacheKey({ ...base, providerId: 'vllm:a' }), key);
  assert.is.not(cacheKey({ ...base, endpoint: 'http://y/v1' }), key);
  assert.is.not(cacheKey({ ...base, messages: [{ role: 'user', content: 'hi!' }] }), key);
  assert.is.not(cacheKey({ ...base, params: { temperature: 1, top_p: 1 } }), key);
});

test.run();
