import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import { statsOf } from '../../../core/providers/layer.js';
import { cacheKey, MAX_LOGS, ResponseCache } from '../../../core/providers/response-cache.js';

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

test("a run's own replies are read back from its log once written, each from its place", async () => {
  const cache = new ResponseCache(dir);
  const keys = Array.from({ length: 300 }, (_, i) => cacheKey({ providerId: 'p', model: 'm', messages: [{ role: 'user', content: `q${i}` }], params: {} }));
  const text = (i: number): string => `reply ${i} — ’✓😀 ${'x'.repeat(i * 37)}`;
  keys.forEach((key, i) => cache.set(key, { text: text(i), usage: { inputTokens: i, outputTokens: 1 } }, { providerId: 'p', model: 'm' }));
  assert.is((await cache.get(keys[7]!))?.text, text(7), 'before it is written, from memory');
  await new Promise((resolve) => setImmediate(resolve));
  for (const [i, key] of keys.entries()) assert.equal(await cache.get(key), { text: text(i), usage: { inputTokens: i, outputTokens: 1 } }, `entry ${i}`);
  // Stored again later in the run, the lines go after the first ones.
  const later = cacheKey({ providerId: 'p', model: 'm', messages: [{ role: 'user', content: 'later' }], params: {} });
  cache.set(later, { text: 'later', usage: { inputTokens: 1, outputTokens: 1 } }, { providerId: 'p', model: 'm' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.is((await cache.get(later))?.text, 'later');
  assert.is((await cache.get(keys[299]!))?.text, text(299));
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

const keyOf = (i: number) => i.toString(16).padStart(64, '0');
const line = (key: string, text: string) => `${JSON.stringify({ key, format: 1, provider: 'p', model: 'm', reply: { text, usage: { inputTokens: 1, outputTokens: 2 } } })}\n`;

test('a run reads the logs already in the folder: whole lines are entries, a torn last line is a miss', async () => {
  writeFileSync(path.join(dir, 'replies-earlier.jsonl'), `${line(keyOf(1), 'one')}${line(keyOf(2), 'two').slice(0, 40)}`);
  const cache = new ResponseCache(dir);
  assert.equal(await cache.get(keyOf(1)), { text: 'one', usage: { inputTokens: 1, outputTokens: 2 } });
  assert.is(await cache.get(keyOf(2)), undefined);
  assert.is(await cache.get(keyOf(3)), undefined);
  // A new entry goes to this process's own log, not to the earlier one.
  cache.set(keyOf(3), { text: 'three', usage: { inputTokens: 0, outputTokens: 0 } }, { providerId: 'p', model: 'm' });
  assert.is((await cache.get(keyOf(3)))?.text, 'three');
  // Written as this turn of the event loop ends.
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(readdirSync(dir).filter((f) => f.endsWith('.jsonl')).length, 2);
  assert.ok(readFileSync(path.join(dir, 'replies-earlier.jsonl'), 'utf8').startsWith(line(keyOf(1), 'one')));
});

test(`more than ${MAX_LOGS} logs are merged into one on first use, every entry kept`, async () => {
  for (let i = 0; i <= MAX_LOGS; i++) writeFileSync(path.join(dir, `replies-${String(i).padStart(3, '0')}.jsonl`), line(keyOf(i), `reply ${i}`) + (i === MAX_LOGS ? line(keyOf(1), 'a later repeat') : ''));
  const cache = new ResponseCache(dir);
  for (let i = 0; i <= MAX_LOGS; i++) assert.is((await cache.get(keyOf(i)))?.text, `reply ${i}`);
  assert.is(readdirSync(dir).length, 1);
  assert.is(readFileSync(path.join(dir, readdirSync(dir)[0]!), 'utf8').split('\n').filter(Boolean).length, MAX_LOGS + 1);
});

test.run();
