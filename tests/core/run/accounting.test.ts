// The run's accounting, through the real command line and the openai SDK against a local server
// that speaks the OpenAI protocol: a failure is never a score (it stops the run with its own text
// and exit 4, results kept), a failed model call is errored (never a loss, never an invalid
// program), resume restores usage and retries errored work on request, a run killed with SIGKILL
// and resumed counts its model usage as an uninterrupted run does, a call cut by SIGINT is no
// result, and the labels say what happened (first-try validity, calls served from the cache).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { repoRoot, runCli, startCli, tempDir } from '../../helpers/cli.js';
import { comparable } from '../../helpers/results.js';
import { startWireServer, type Step, type WireServer } from '../../helpers/wire-servers.js';
import type { RunResults } from '../../../core/results/results.js';
import { parseMaxErrors } from '../../../core/run/run.js';

const KEY = 'sk-accounting-test-7c1d';
const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/llm/${name}.md`, import.meta.url), 'utf8');
const resultsOf = (cwd: string, out = 'out'): RunResults => JSON.parse(readFileSync(path.join(cwd, out, 'results.json'), 'utf8')) as RunResults;

/** A folder with a config: no response cache unless asked, quick retries, `maxRetries` of them. */
function project(options: { maxRetries?: number; cache?: boolean; requestsInFlight?: number } = {}): string {
  const cwd = tempDir();
  const openai = { timeoutMs: 5000, maxRetries: options.maxRetries ?? 1, retry: { baseDelayMs: 1, maxDelayMs: 2 }, ...(options.requestsInFlight ? { requestsInFlight: options.requestsInFlight } : {}) };
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ ...(options.cache ? { cacheDir: path.join(cwd, 'cache') } : { cache: false }), providers: { openai } }));
  return cwd;
}

const env = (baseURL: string) => ({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: baseURL });
const AGENT_RUN = ['--agent', 'openai:m', '--suites', 'procedural', '--limit', '6', '--attempts', '1'];

/** A base URL where nothing listens: a server's, once it is closed. */
async function deadURL(): Promise<string> {
  const server = await startWireServer('openai');
  await server.close();
  return server.baseURL;
}

test('an unreachable server: the run stops with the ECONNREFUSED text and exit 4, no score; --resume --retry-errored completes it', async () => {
  const cwd = project();
  const r = await runCli(['run', '--out', 'out', ...AGENT_RUN], { cwd, env: env(await deadURL()) });
  assert.is(r.code, 4, r.stderr);
  assert.match(r.stderr, 'ECONNREFUSED');
  assert.match(r.stderr, 'provider:connection');
  assert.match(r.stderr, '--resume --retry-errored');
  assert.not.match(r.stdout, /^done/m);
  const results = resultsOf(cwd);
  assert.is(results.run.complete, false);
  const success = results.suites[0]!.metrics.success;
  assert.is(success.won + success.lost, 0, 'nothing decided');
  assert.is(success.successRate, null, 'a rate with nothing decided is null, not 0');
  assert.ok(success.errored >= 1);
  const errors = results.run.errors!;
  assert.is(errors.classes[0]!.errorClass, 'provider:connection');
  assert.is(errors.classes[0]!.byStage.episode, errors.total);
  assert.match(errors.classes[0]!.messages[0]!, 'ECONNREFUSED');

  // The server is up now: the errored episodes are played again and the run completes.
  const server = await startWireServer('openai');
  server.setDefault({ kind: 'reply', text: '\\boxed{1}' });
  try {
    const resumed = await runCli(['run', '--out', 'out', '--resume', '--retry-errored'], { cwd, env: env(server.baseURL) });
    assert.is(resumed.code, 0, resumed.stderr);
    const done = resultsOf(cwd);
    assert.is(done.run.complete, true);
    assert.is(done.suites[0]!.metrics.success.errored, 0, 'errored episodes were played again');
    assert.is(done.suites[0]!.metrics.success.episodes, 6);
    assert.is(done.run.errors!.total, 0);
  } finally {
    await server.close();
  }
});

test('a bad key (401) stops the run, whatever --max-errors allows: a failed run, not a complete one', async () => {
  const server = await startWireServer('openai');
  server.setDefault({ kind: 'error', status: 401, message: 'Incorrect API key provided' });
  try {
    const cwd = project();
    const r = await runCli(['run', '--out', 'out', ...AGENT_RUN, '--max-errors', '50'], { cwd, env: env(server.baseURL) });
    assert.is(r.code, 4, r.stderr);
    assert.match(r.stderr, 'authentication failed');
    assert.match(r.stderr, 'check the API key');
    const results = resultsOf(cwd);
    assert.is(results.run.complete, false);
    assert.is(results.run.errors!.classes[0]!.errorClass, 'provider:auth');
    assert.ok(results.suites[0]!.metrics.success.errored < 6, 'it stopped at the first 401');
  } finally {
    await server.close();
  }
});

test('a reply with no message is an error, not a loss', async () => {
  const server = await startWireServer('openai');
  server.setDefault({ kind: 'raw', body: { id: 'x', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 } } });
  try {
    const cwd = project();
    const r = await runCli(['run', '--out', 'out', ...AGENT_RUN, '--max-errors', '100%'], { cwd, env: env(server.baseURL) });
    const success = resultsOf(cwd).suites[0]!.metrics.success;
    assert.is(success.lost, 0, 'no loss scored');
    assert.is(success.errored, 6);
    assert.is(success.successRate, null);
    assert.is(resultsOf(cwd).run.errors!.classes[0]!.errorClass, 'provider:bad-response');
    assert.match(r.stderr, 'no message');
    // Every call failed: more than 100% cannot be, so the run completes, its errors listed.
    assert.is(r.code, 0, r.stderr);
  } finally {
    await server.close();
  }
});

test('--max-errors reads a count or a share of at most 100%; anything else is refused before the run', () => {
  assert.equal(parseMaxErrors('20%'), { share: 0.2 });
  assert.equal(parseMaxErrors('100%'), { share: 1 });
  assert.equal(parseMaxErrors('7'), { count: 7 });
  for (const wrong of ['150%', '-1', '1.5', 'some']) assert.throws(() => parseMaxErrors(wrong), /maxErrors: expected a count of errors/, wrong);
});

test('--max-errors allows some failures; the run goes on and lists them', async () => {
  const server = await startWireServer('openai');
  server.script({ kind: 'error', status: 503, message: 'overloaded' });
  server.setDefault({ kind: 'reply', text: '\\boxed{1}' });
  try {
    const cwd = project({ maxRetries: 0, requestsInFlight: 1 });
    const r = await runCli(['run', '--out', 'out', ...AGENT_RUN, '--max-errors', '1'], { cwd, env: env(server.baseURL) });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, 'provider:server: 1');
    const results = resultsOf(cwd);
    assert.is(results.run.complete, true);
    assert.is(results.suites[0]!.metrics.success.errored, 1);
    assert.is(results.run.errors!.failures, 1);
  } finally {
    await server.close();
  }
});

test('a plugin that throws stops the run with its message and exit 4', async () => {
  const cwd = project();
  writeFileSync(path.join(cwd, 'boom.mjs'), `export default { kind: 'provider', id: 'boom', description: 'throws', requiredEnv: () => [],
    create: (o) => ({ id: 'boom:' + o.model, async chat() { throw new Error('boom: the plugin exploded'); } }) };`);
  const r = await runCli(['run', '--out', 'out', '--agent', './boom.mjs', '--suites', 'procedural', '--limit', '3', '--attempts', '1'], { cwd });
  assert.is(r.code, 4, r.stderr);
  assert.match(r.stderr, 'boom: the plugin exploded');
  assert.is(resultsOf(cwd).run.errors!.classes[0]!.errorClass, 'plugin');
  assert.is(resultsOf(cwd).suites[0]!.metrics.success.successRate, null);
});

test('a plugin returning the wrong shape is named, with the method and the field (exit 2), not blamed on the disk', async () => {
  const cwd = project();
  writeFileSync(path.join(cwd, 'wrong.mjs'), `export default { kind: 'provider', id: 'wrong', description: 'wrong shape', requiredEnv: () => [],
    create: (o) => ({ id: 'wrong:' + o.model, async chat() { return { reply: 'x' }; } }) };`);
  const r = await runCli(['run', '--out', 'out', '--agent', './wrong.mjs', '--suites', 'procedural', '--limit', '3', '--attempts', '1'], { cwd });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, 'plugin "wrong"');
  assert.match(r.stderr, 'chat()');
  assert.match(r.stderr, 'text');
  assert.not.match(r.stderr, 'cannot write');
  assert.not.match(r.stderr, 'Cannot read properties');
  assert.is(resultsOf(cwd).suites[0]!.metrics.success.lost, 0, 'no loss scored for a reply that never was');
});

test('usage and cost survive a stop and a resume: calls are counted over both invocations', async () => {
  const server = await startWireServer('openai');
  const reply: Step = { kind: 'reply', text: '\\boxed{1}', inputTokens: 100, outputTokens: 10 };
  server.script(reply, reply, reply, { kind: 'error', status: 503 });
  server.setDefault({ kind: 'error', status: 503 });
  try {
    const cwd = project({ maxRetries: 0, requestsInFlight: 1 });
    const r = await runCli(['run', '--out', 'out', ...AGENT_RUN], { cwd, env: env(server.baseURL) });
    assert.is(r.code, 4, r.stderr);
    const before = resultsOf(cwd).suites[0]!.metrics.usage.calls;
    assert.ok(before >= 3, `calls before the stop (${before})`);
    server.setDefault(reply);
    const resumed = await runCli(['run', '--out', 'out', '--resume', '--retry-errored'], { cwd, env: env(server.baseURL) });
    assert.is(resumed.code, 0, resumed.stderr);
    const usage = resultsOf(cwd).suites[0]!.metrics.usage;
    const failed = server.requests.length - usage.calls;
    assert.is(failed, 1, `every answered call is counted once: ${usage.calls} of ${server.requests.length} requests`);
    assert.is(usage.inputTokens, 100 * usage.calls);
    assert.ok(usage.calls > before);
  } finally {
    await server.close();
  }
});

test('cached calls are counted: "N of M model calls from cache" in the console, and in results', async () => {
  const server = await startWireServer('openai');
  server.setDefault({ kind: 'reply', text: '\\boxed{1}', inputTokens: 20, outputTokens: 2 });
  try {
    const cwd = project({ cache: true });
    const first = await runCli(['run', '--out', 'a', ...AGENT_RUN], { cwd, env: env(server.baseURL) });
    assert.is(first.code, 0, first.stderr);
    const calls = resultsOf(cwd, 'a').suites[0]!.metrics.usage.calls;
    assert.match(first.stderr, `0 of ${calls} from cache`);
    const again = await runCli(['run', '--out', 'b', ...AGENT_RUN], { cwd, env: env(server.baseURL) });
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stderr, `${calls} of ${calls} from cache`);
    assert.is(resultsOf(cwd, 'b').suites[0]!.metrics.usage.cachedCalls, calls);
  } finally {
    await server.close();
  }
});

// ---------------------------------------------------------------------------------------------
// SIGKILL at a point of the model calls, then --resume: usage equals an uninterrupted run's
// ---------------------------------------------------------------------------------------------

/**
 * 96 episodes: 12 GSM8K problems, 8 attempts each, six model requests in flight, no response
 * cache. The server's default reply echoes the problem and counts words as tokens, so each call's
 * tokens are its own. Prices are whole dollars per token: a cost is a whole number, and sums of
 * them are exact in any order (the runs fold their costs in different orders).
 */
const GSM8K_RUN = ['--agent', 'openai:m', '--suites', 'gsm8k', '--limit', '12', '--attempts', '8', '--seed', '4', '--data-dir', path.resolve(repoRoot, '../shared/datasets')];

function pricedProject(): string {
  const cwd = tempDir();
  const openai = { timeoutMs: 20_000, requestsInFlight: 6, price: { input: 1_000_000, output: 3_000_000 } };
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false, providers: { openai } }));
  return cwd;
}

/** The run killed with SIGKILL by the server when it receives its `at`-th request, then resumed to its end. */
async function killedAndResumed(server: WireServer, at: number): Promise<string> {
  const cwd = pricedProject();
  let seen = 0;
  let child: ChildProcess | undefined;
  server.route(() => {
    if (++seen === at) child!.kill('SIGKILL');
    return undefined;
  });
  const started = startCli(['run', '--out', 'out', ...GSM8K_RUN], { cwd, env: env(server.baseURL) });
  child = started.child;
  const cut = await started.done;
  server.route(() => undefined);
  assert.is(cut.signal, 'SIGKILL', `killed at request ${at}: ${cut.stderr}`);
  const resumed = await runCli(['run', '--out', 'out', '--resume'], { cwd, env: env(server.baseURL) });
  assert.is(resumed.code, 0, resumed.stderr);
  return cwd;
}

test('SIGKILL at 30% and at 60% of the model calls, then --resume: usage equals an uninterrupted run\'s, call for call', async () => {
  const server = await startWireServer('openai');
  try {
    const whole = pricedProject();
    const r = await runCli(['run', '--out', 'out', ...GSM8K_RUN], { cwd: whole, env: env(server.baseURL) });
    assert.is(r.code, 0, r.stderr);
    const expected = resultsOf(whole);
    const usage = expected.suites[0]!.metrics.usage;
    assert.is(expected.suites[0]!.metrics.success.episodes, 96);
    assert.is(usage.calls, 96, 'one call an episode');
    assert.is(server.requests.length, 96);
    assert.ok(usage.inputTokens > 96 && usage.costUsd === usage.inputTokens + 3 * usage.outputTokens, JSON.stringify(usage));
    for (const share of [0.3, 0.6]) {
      const at = Math.round(96 * share);
      const before = server.requests.length;
      const cwd = await killedAndResumed(server, at);
      const replayed = server.requests.length - before - 96;
      const got = resultsOf(cwd);
      assert.equal(got.suites[0]!.metrics.usage, usage, `usage after a kill at request ${at} (${replayed} requests sent twice)`);
      assert.equal(comparable(path.join(cwd, 'out')), comparable(path.join(whole, 'out')), `results after a kill at request ${at}`);
    }
  } finally {
    await server.close();
  }
});

// ---------------------------------------------------------------------------------------------
// Self-play with a model designer (the agent is the offline reference policy)
// ---------------------------------------------------------------------------------------------

const SELFPLAY = ['--suites', 'spade', '--designer', 'openai:M', '--agent', 'reference', '--rounds', '1', '--envs-per-round', '2', '--attempts', '1', '--repairs', '1'];
const BROKEN = fixture('syntax-error');
assert.ok(BROKEN.includes('class BrokenEnv'));

/**
 * The designer model: a first draft per slot (the second slot's does not parse), and a repair of
 * the broken one. `hang`: design calls are held unanswered.
 */
function designerModel(server: WireServer, options: { hang?: boolean } = {}): void {
  server.route((body) => {
    // A repair request shows the rejected program (the fixture's BrokenEnv).
    if (JSON.stringify(body.messages).includes('class BrokenEnv')) return { kind: 'reply', text: fixture('multi-turn-two-blocks') };
    if (options.hang) return { kind: 'hang' };
    return { kind: 'reply', text: JSON.stringify(body.messages).includes('Design environment 2 of 2') ? BROKEN : fixture('single-answer') };
  });
}

const slots = (results: RunResults) =>
  results.suites[0]!.environments.map((e) => ({ id: e.id, verdict: e.verdict, repairs: (e.repairs ?? []).map((r) => r.id) })).sort((a, b) => a.id.localeCompare(b.id));

test('a design call that fails is an errored slot, never an invalid program; --resume --retry-errored designs it again', async () => {
  const server = await startWireServer('openai');
  server.setDefault({ kind: 'error', status: 503, message: 'the model server is down' });
  try {
    const cwd = project({ maxRetries: 0 });
    const r = await runCli(['run', '--out', 'out', ...SELFPLAY], { cwd, env: env(server.baseURL) });
    assert.is(r.code, 4, r.stderr);
    assert.match(r.stderr, 'the model server is down');
    const results = resultsOf(cwd);
    const validity = results.suites[0]!.metrics.validity;
    assert.is(validity.proposed, 0, 'a slot whose design call failed proposed nothing');
    assert.equal(validity.reasons, {}, 'nothing counted invalid');
    assert.ok(results.run.errors!.classes[0]!.byStage.design! >= 1);
    assert.not.ok(readFileSync(path.join(cwd, 'out/journal.jsonl'), 'utf8').includes('# design failed'), 'no failed-design program journaled');

    designerModel(server);
    const resumed = await runCli(['run', '--out', 'out', '--resume', '--retry-errored'], { cwd, env: env(server.baseURL) });
    assert.is(resumed.code, 0, resumed.stderr);
    const done = resultsOf(cwd);
    assert.is(done.suites[0]!.metrics.validity.proposed, 2);
    assert.is(done.run.errors!.total, 0);
  } finally {
    await server.close();
  }
});

test('first-try validity beside validity after repairs; SIGINT during a design call, then --resume, equals an uninterrupted run', async () => {
  const server = await startWireServer('openai');
  try {
    // Uninterrupted.
    designerModel(server);
    const whole = project();
    const r = await runCli(['run', '--out', 'out', ...SELFPLAY], { cwd: whole, env: env(server.baseURL) });
    assert.is(r.code, 0, r.stderr);
    const uninterrupted = resultsOf(whole);
    const validity = uninterrupted.suites[0]!.metrics.validity;
    assert.is(validity.valid, 2, JSON.stringify(slots(uninterrupted)));
    assert.equal(validity.firstTry, { proposed: 2, valid: 1, rate: 0.5 }, 'one first draft did not parse and was repaired');
    assert.match(r.stderr, /first try 50\.0% \(1 \/ 2\)/);

    // Interrupted while the design calls are in flight, then resumed.
    designerModel(server, { hang: true });
    const cut = project();
    const seen = server.requests.length;
    const { child, done } = startCli(['run', '--out', 'out', ...SELFPLAY], { cwd: cut, env: env(server.baseURL) });
    while (server.requests.length === seen) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    const stopped = await done;
    assert.is(stopped.code, 130, stopped.stderr);
    assert.not.ok(readFileSync(path.join(cut, 'out/journal.jsonl'), 'utf8').includes('"type":"designed"'), 'a cut design call journals nothing');
    designerModel(server);
    const resumed = await runCli(['run', '--out', 'out', '--resume'], { cwd: cut, env: env(server.baseURL) });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.equal(slots(resultsOf(cut)), slots(uninterrupted), 'the same ids, verdicts and repairs');
    assert.equal(resultsOf(cut).suites[0]!.metrics.validity.firstTry, validity.firstTry);
  } finally {
    await server.close();
  }
});

test('the horizon of a Python game is its own max_turns (3), not the turn budget', async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'three.py'), `class ThreeTurnsEnv:
    def __init__(self, max_turns=3):
        self.max_turns = max_turns
    def reset(self, seed=None):
        self.turns = 0
        self.answer = (seed or 0) % 5
        return "Guess a number from 0 to 4; answer in \\\\boxed{}.", {}
    def step(self, action):
        self.turns += 1
        if action.strip() == "\\\\boxed{%d}" % self.answer:
            return "right", 1.0, True, False, {}
        return "wrong", 0.0, self.turns >= self.max_turns, False, {}
    def reference_action(self, observation):
        return "\\\\boxed{%d}" % self.answer
`);
  const r = await runCli(['validate', 'three.py'], { cwd });
  assert.match(r.stdout, 'horizon 3, multi-turn', r.stdout + r.stderr);
  assert.not.match(r.stdout, 'horizon 64');
});

test.run();
