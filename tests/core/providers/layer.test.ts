import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withProviderLayer, statsOf, type RawProvider } from '../../../core/providers/layer.js';
import { ProviderError } from '../../../core/providers/provider-error.js';
import { sleep } from '../../../core/providers/backoff.js';
import { layerOptionsFrom } from '../../../core/providers/layer-options.js';
import { UsageMeter, addUsage, emptyUsage, meterCalls } from '../../../core/providers/stats.js';
import { tempDir } from '../../helpers/cli.js';

const user = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

function raw(chat: RawProvider['chat'], extra: Partial<RawProvider> = {}): RawProvider {
  return { id: 'test:model', model: 'model', chat, ...extra };
}

test('the caller aborting stops the call at once, with no retry', async () => {
  let calls = 0;
  const provider = withProviderLayer(raw(async (_r, signal) => {
    calls++;
    await sleep(5000, signal);
    return { text: 'late', usage: { inputTokens: 1, outputTokens: 1 } };
  }));
  const controller = new AbortController();
  const pending = provider.chat(user('x'), { signal: controller.signal }).catch((e: unknown) => e);
  setTimeout(() => controller.abort(new Error('user stopped')), 20);
  const error = (await pending) as ProviderError;
  assert.instance(error, ProviderError);
  assert.is(error.kind, 'aborted');
  assert.is(calls, 1);
});

test('a call waiting to be sent again is counted as retrying until it is sent', async () => {
  let n = 0;
  const provider = withProviderLayer(
    raw(async () => {
      if (++n === 1) throw Object.assign(new Error('slow down'), { status: 429, headers: new Headers({ 'retry-after-ms': '300' }) });
      return { text: 'ok', usage: { inputTokens: 1, outputTokens: 1 } };
    }),
    { retry: { baseDelayMs: 1, maxDelayMs: 2 } },
  );
  assert.is(provider.retrying?.(), 0);
  const call = provider.chat(user('a'));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal([provider.retrying?.(), provider.inFlight?.()], [1, 0], 'waiting, holding no request');
  await call;
  assert.is(provider.retrying?.(), 0);
});

test('stats count calls, tokens, cost, retries, failures and latency', async () => {
  let n = 0;
  const provider = withProviderLayer(
    raw(async () => {
      n++;
      if (n === 2) throw Object.assign(new Error('overloaded'), { status: 503 });
      if (n === 4) throw Object.assign(new Error('bad'), { status: 400 });
      return { text: `r${n}`, usage: { inputTokens: 10, outputTokens: 5 } };
    }),
    { price: { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 }, retry: { baseDelayMs: 1, maxDelayMs: 2 } },
  );
  await provider.chat(user('a'));
  await provider.chat(user('b')); // 503 then success
  await provider.chat(user('c')).then(() => assert.unreachable(), () => undefined); // 400, not retried
  const snapshot = statsOf(provider)!.snapshot();
  assert.equal(snapshot.usage, { calls: 2, cachedCalls: 0, inputTokens: 20, outputTokens: 10, costUsd: 2 * (10 + 10) });
  assert.is(snapshot.retries, 1);
  assert.is(snapshot.failures, 1);
  assert.is(snapshot.latency.count, 2);
  assert.ok(snapshot.latency.p95Ms >= snapshot.latency.p50Ms);
  assert.is(provider.stats, statsOf(provider));
});

test('a request with tools or tool turns is refused, before any call, by a provider that does not take tools', async () => {
  let calls = 0;
  const reply = async () => {
    calls++;
    return { text: 'ok', toolCalls: [{ id: 'c', name: 'look', arguments: { at: 1 } }], usage: { inputTokens: 1, outputTokens: 1 } };
  };
  const plain = withProviderLayer(raw(reply));
  assert.not.ok(plain.tools);
  const tools = [{ name: 'look', description: 'Look.', parameters: { type: 'object', properties: {} } }];
  for (const request of [
    { ...user('x'), tools },
    { messages: [{ role: 'assistant' as const, content: '', toolCalls: [{ id: 'c', name: 'look', arguments: {} }] }, { role: 'tool' as const, toolCallId: 'c', content: '1' }] },
  ]) {
    const error = (await plain.chat(request).catch((e: unknown) => e)) as ProviderError;
    assert.instance(error, ProviderError);
    assert.is(error.kind, 'client');
    assert.match(error.message, /does not take tools/);
  }
  assert.is(calls, 0);
  const capable = withProviderLayer(raw(reply, { tools: true }));
  assert.ok(capable.tools);
  assert.equal((await capable.chat({ ...user('x'), tools })).toolCalls, [{ id: 'c', name: 'look', arguments: { at: 1 } }]);
});

test('a reply whose tool calls are malformed is an unusable reply', async () => {
  const provider = withProviderLayer(raw(async () => ({ text: '', toolCalls: [{ id: 'c', name: 'look', arguments: 'x' }] }) as never, { tools: true }), { retry: { maxRetries: 0 } });
  const error = (await provider.chat(user('x')).catch((e: unknown) => e)) as ProviderError;
  assert.is(error.kind, 'bad-response');
  assert.match(error.message, /tool call/);
});

test('a retry-after longer than maxRetryAfterMs fails at once and says so', async () => {
  const provider = withProviderLayer(
    raw(async () => {
      throw Object.assign(new Error('slow down'), { status: 429, headers: new Headers({ 'retry-after': '3600' }) });
    }),
    { retry: { maxRetryAfterMs: 1000 } },
  );
  const error = (await provider.chat(user('x')).catch((e: unknown) => e)) as ProviderError;
  assert.is(error.kind, 'rate-limit');
  assert.is(error.tries, 1);
  assert.match(error.message, /asked to wait 3600 s/);
});

test('a reply without text is a bad response, not retried', async () => {
  let calls = 0;
  const provider = withProviderLayer(raw(async () => {
    calls++;
    return { usage: { inputTokens: 0, outputTokens: 0 } } as never;
  }));
  const error = (await provider.chat(user('x')).catch((e: unknown) => e)) as ProviderError;
  assert.is(error.kind, 'bad-response');
  assert.is(calls, 1);
});

test('log lines are redacted', async () => {
  const secret = 'sk-layer-secret-0123456789abcdef';
  const lines: string[] = [];
  const provider = withProviderLayer(
    raw(async () => {
      throw Object.assign(new Error(`invalid key ${secret}`), { status: 401 });
    }, { secrets: [secret] }),
    { log: (line) => lines.push(line) },
  );
  await provider.chat(user('x')).catch(() => undefined);
  assert.is(lines.length, 1);
  assert.not.ok(lines[0]!.includes(secret));
  assert.match(lines[0]!, /\[redacted\]/);
});

test('requestsInFlight bounds a provider\'s requests at once; concurrency, its old name, is refused naming it', async () => {
  assert.is(layerOptionsFrom({ model: 'm', requestsInFlight: 3 }).requestsInFlight, 3);
  assert.throws(() => layerOptionsFrom({ model: 'm', concurrency: 2 }), /providers\["m"\]\.concurrency was renamed: use requestsInFlight/);
  let inFlight = 0;
  let most = 0;
  const provider = withProviderLayer(raw(async () => {
    most = Math.max(most, ++inFlight);
    await sleep(20);
    inFlight--;
    return { text: 'ok', usage: { inputTokens: 1, outputTokens: 1 } };
  }), layerOptionsFrom({ model: 'm', requestsInFlight: 2 }));
  await Promise.all(Array.from({ length: 6 }, (_, i) => provider.chat(user(`q${i}`))));
  assert.is(most, 2);
});

test('each answered call goes to the meter of the work that made it, whatever else is in flight; the rest is outside', async () => {
  // Replies come back out of order (each waits by its own content), two requests at a time, and
  // every fifth request fails once with a 503 and is retried: a failed attempt is no call.
  let requests = 0;
  const provider = withProviderLayer(raw(async (request) => {
    const text = request.messages[0]!.content;
    if (++requests % 5 === 0) throw Object.assign(new Error('overloaded'), { status: 503 });
    await sleep((text.length * 7) % 13);
    return { text, usage: { inputTokens: text.length, outputTokens: Number(text.split('-')[1]) } };
  }), { requestsInFlight: 2, price: { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 }, retry: { baseDelayMs: 1, maxDelayMs: 2 }, cacheDir: tempDir() });
  const expected = (texts: string[], cached = 0): unknown => ({
    calls: texts.length + cached,
    inputTokens: texts.reduce((sum, t) => sum + t.length, 0),
    outputTokens: texts.reduce((sum, t) => sum + Number(t.split('-')[1]), 0),
    costUsd: texts.reduce((sum, t) => sum + t.length + 2 * Number(t.split('-')[1]), 0),
    cachedCalls: cached,
  });
  const meters = [new UsageMeter(), new UsageMeter(), new UsageMeter()];
  const textsOf = (i: number): string[] => Array.from({ length: 2 + i }, (_, turn) => `episode${i}x${'y'.repeat(turn)}-${i * 10 + turn}`);
  // Each piece of work asks in turns, and starts one call from a timer: its meter follows it there.
  const work = meters.map((meter, i) => meterCalls(meter, async () => {
    for (const text of textsOf(i)) await provider.chat(user(text));
    await new Promise<void>((resolve, reject) => setTimeout(() => provider.chat(user(textsOf(i)[0]!)).then(() => resolve(), reject), 1));
  }));
  const outside = ['design-1', 'hint-22', 'review-333'];
  await Promise.all([...work, ...outside.map((text) => provider.chat(user(text)))]);
  // The call started from the timer repeats the work's first prompt: the cache answers it.
  meters.forEach((meter, i) => assert.equal(meter.usage(), expected(textsOf(i), 1), `work ${i}`));
  const stats = statsOf(provider)!;
  assert.equal(stats.outsideUsage(), expected(outside));
  assert.equal(stats.usage(), addUsage(stats.outsideUsage(), ...meters.map((m) => m.usage())));
  const live = stats.usage().calls - stats.usage().cachedCalls;
  assert.ok(requests > live, `some requests failed and were retried (${requests} requests, ${live} answered)`);
  assert.equal(new UsageMeter().usage(), emptyUsage());
});

test.run();
