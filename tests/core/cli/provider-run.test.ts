// A run whose agent is a model behind a local server speaking the vendor's wire protocol,
// through the real SDKs: it retries through 429/500/dropped connections, records token usage,
// and the API key is nowhere in what the run writes or prints.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, tempDir } from '../../helpers/cli.js';
import { startWireServer, type Protocol } from '../../helpers/wire-servers.js';
import type { RunResults } from '../../../core/results/results.js';

const KEY = 'sk-test-DO-NOT-LEAK-4f9c2b7e1a';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

async function runAgainst(protocol: Protocol): Promise<void> {
  const server = await startWireServer(protocol);
  // A retryable failure of every kind, then answers (a wrong one, in the boxed format).
  server.script(
    { kind: 'error', status: 429, headers: { 'retry-after': '0' } },
    { kind: 'error', status: 500 },
    { kind: 'drop' },
  );
  server.setDefault({ kind: 'reply', text: 'Let me think. \\boxed{0}', inputTokens: 120, outputTokens: 7 });
  const cwd = tempDir();
  const cache = path.join(cwd, 'cache');
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cacheDir: cache, providers: { [protocol]: { timeoutMs: 5000, maxRetries: 6, retry: { baseDelayMs: 1, maxDelayMs: 5 } } } }));
  const env = protocol === 'openai'
    ? { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.baseURL }
    : { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.baseURL };
  try {
    const r = await runCli(['run', '--out', 'out', '--agent', `${protocol}:test-model`, '--suites', 'procedural', '--limit', '3', '--attempts', '1'], { cwd, env });
    assert.is(r.code, 0, r.stderr);
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    assert.is(results.run.agent, `${protocol}:test-model`);
    const suite = results.suites[0]!;
    assert.is(suite.metrics.success.errored, 0, `the retries carried every episode through: ${readFileSync(path.join(cwd, 'out/journal.jsonl'), 'utf8').match(/"error":"[^"]*"/g)}`);
    assert.is(suite.metrics.success.episodes, 3);
    const turns = suite.metrics.throughput.steps;
    assert.ok(turns >= 3, 'the agent played');
    assert.is(suite.metrics.usage.calls, turns, 'one call per turn');
    assert.is(suite.metrics.usage.inputTokens, 120 * turns);
    assert.is(suite.metrics.usage.outputTokens, 7 * turns);
    // Latency of every answered call, and of every sandboxed call made while playing.
    assert.is(suite.metrics.throughput.latency?.providerCall?.calls, turns);
    assert.ok(suite.metrics.throughput.latency!.providerCall!.p95Ms >= suite.metrics.throughput.latency!.providerCall!.p50Ms);
    assert.ok((suite.metrics.throughput.latency?.sandboxCall?.calls ?? 0) >= 2 * 3, 'reset and step timed for each episode');
    // The three failures were retried: the server saw them plus one request per turn.
    assert.is(server.requests.length, turns + 3);
    const auth = server.requests[0]!.headers;
    assert.ok(auth.authorization === `Bearer ${KEY}` || auth['x-api-key'] === KEY, 'the key was sent to the server');
    // The key is nowhere on disk (results, report, journal, cache) nor in the output.
    const written = [...filesUnder(path.join(cwd, 'out')), ...filesUnder(cache)];
    assert.ok(written.some((f) => f.startsWith(cache)), 'responses were cached');
    for (const file of written) assert.not.ok(readFileSync(file, 'utf8').includes(KEY), `key found in ${file}`);
    assert.not.ok(r.stdout.includes(KEY) || r.stderr.includes(KEY), 'key printed');

    // A second run is served from the cache: no new requests.
    const before = server.requests.length;
    const again = await runCli(['run', '--out', 'again', '--agent', `${protocol}:test-model`, '--suites', 'procedural', '--limit', '3', '--attempts', '1'], { cwd, env });
    assert.is(again.code, 0, again.stderr);
    assert.is(server.requests.length, before, 'cached');
    const cached = (JSON.parse(readFileSync(path.join(cwd, 'again/results.json'), 'utf8')) as RunResults).suites[0]!.metrics.usage;
    assert.is(cached.cachedCalls, turns);
  } finally {
    await server.close();
  }
}

test('openai: a run through the openai SDK against a local server', () => runAgainst('openai'));
test('anthropic: a run through the Anthropic SDK against a local server', () => runAgainst('anthropic'));

test("the Anthropic SDK's warning of a deprecated model, made at every call, is printed once", async () => {
  const server = await startWireServer('anthropic');
  server.setDefault({ kind: 'reply', text: '\\boxed{0}', inputTokens: 10, outputTokens: 2 });
  const cwd = tempDir();
  try {
    const r = await runCli(['run', '--out', 'out', '--agent', 'anthropic:claude-sonnet-4-5', '--suites', 'procedural', '--limit', '4', '--attempts', '2', '--no-cache'], { cwd, env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.baseURL } });
    assert.is(r.code, 0, r.stderr);
    assert.ok(server.requests.length >= 8, `${server.requests.length} calls`);
    assert.is(r.stderr.split("The model 'claude-sonnet-4-5' is deprecated").length - 1, 1, r.stderr);
  } finally {
    await server.close();
  }
});

test('a password in a provider\'s baseURL is never written: not in the results, journal or report', async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ providers: { vllm: { baseURL: 'http://someone:BasePW99@127.0.0.1:9/v1' } } }));
  const r = await runCli(['run', '--out', 'out', '--agent', 'vllm:test-model', '--suites', 'procedural', '--limit', '1', '--attempts', '1', '--validate-only'], { cwd });
  assert.is(r.code, 0, r.stderr);
  const written = filesUnder(path.join(cwd, 'out'));
  assert.ok(written.some((f) => f.endsWith('results.json')));
  for (const file of written) assert.not.ok(readFileSync(file, 'utf8').includes('BasePW99'), `the password is in ${file}`);
  const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
  assert.is((results.run.config as { providers: Record<string, { baseURL: string }> }).providers.vllm!.baseURL, 'http://127.0.0.1:9/v1');
});

test('a missing key stops the run before any work, naming the variable (exit 2)', async () => {
  const cwd = tempDir();
  const env = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' };
  let r = await runCli(['run', '--out', 'out', '--agent', 'openai:gpt-4.1-mini', '--suites', 'procedural'], { cwd, env });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'OPENAI_API_KEY');
  r = await runCli(['run', '--out', 'out', '--agent', 'anthropic:claude-x', '--suites', 'procedural'], { cwd, env });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'ANTHROPIC_API_KEY');
  assert.equal(readdirSync(cwd), [], 'nothing written');
});

test('a provider plugin that names its key variable takes the key from the config instead, as the message says', async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'package.json'), '{ "type": "module" }');
  writeFileSync(path.join(cwd, 'acme.mjs'), `
import { definePlugin } from 'spade-bench';
export default definePlugin({
  kind: 'provider', id: 'acme', description: 'ACME', requiredEnv: () => ['ACME_API_KEY'],
  create: (options) => ({ id: 'acme:' + options.model, model: options.model, async chat() { return { text: options.apiKey === '${KEY}' ? 'keyed' : 'no key' }; } }),
});
`);
  const env = { ACME_API_KEY: '' };
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ plugins: ['./acme.mjs'] }));
  let r = await runCli(['run', '--out', 'a', '--agent', 'acme:m1', '--suites', 'procedural', '--limit', '1', '--attempts', '1'], { cwd, env });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'missing API key: set ACME_API_KEY (or providers["acme:m1"].apiKey)');
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ plugins: ['./acme.mjs'], providers: { 'acme:m1': { apiKey: KEY } } }));
  r = await runCli(['run', '--out', 'b', '--agent', 'acme:m1', '--suites', 'procedural', '--limit', '1', '--attempts', '1', '--transcripts', 'full'], { cwd, env });
  assert.is(r.code, 0, r.stderr);
  const written = filesUnder(path.join(cwd, 'b')).map((f) => readFileSync(f, 'utf8'));
  assert.ok(written.some((text) => text.includes('keyed')), 'the plugin was given the key');
  assert.not.ok(written.some((text) => text.includes(KEY)) || r.stdout.includes(KEY) || r.stderr.includes(KEY), 'the key is nowhere');
});

test.run();
