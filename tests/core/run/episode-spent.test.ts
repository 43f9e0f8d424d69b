// An episode's `spent` is what its agent's model calls spent, call for call, whatever else is in
// flight: episodes played at once, calls outside any episode beside them (a designer's), a request
// several episodes share (n samples in one request, each episode taking its share). A resumed
// evaluation, keeping some episodes and playing the others again, spends in all what an
// uninterrupted one spends.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluateEnvironment, type EvaluationContext } from '../../../core/run/evaluate.js';
import { withProviderLayer, statsOf, type RawProvider } from '../../../core/providers/layer.js';
import { addUsage, emptyUsage, usageShare } from '../../../core/providers/stats.js';
import { sleep } from '../../../core/providers/backoff.js';
import { createLLMAgent } from '../../../core/roles/llm-agent.js';
import { sampledAgent } from '../../../core/run/sampled-agent.js';
import { deriveSeed } from '../../../core/run/random.js';
import { PriorWork } from '../../../core/results/resume.js';
import type { JournalRecord } from '../../../core/results/journal.js';
import type { EpisodeResult, UsageMetrics } from '../../../core/types.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { answerProgram } from '../../../benchmarks/answer-program.js';
import { fixture } from '../../fixtures/programs/load.js';

const sandbox = createIsolatedVmSandbox();
const sandboxes = { get: async () => sandbox, close: async () => {} };
// Whole dollars a token: costs are whole numbers, and their sums exact in any order.
const price = { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 };
const call = (inputTokens: number, outputTokens: number): UsageMetrics => ({ calls: 1, inputTokens, outputTokens, costUsd: inputTokens + 2 * outputTokens, cachedCalls: 0 });
// Calls of the sandbox under a limit far above what they need (the default 1 s can pass on a busy machine).
const context = (agent: EvaluationContext['agent'], extra: Partial<EvaluationContext> = {}): EvaluationContext => ({
  suite: 's', sandboxes, agent, limits: { callTimeoutMs: 20_000 }, attempts: 4, withHint: false, runSeed: 5, ...extra,
});

test('episodes played at once each spend their own calls; calls beside them are outside', async () => {
  // What the server answered, by the attempt seed each request carries (-1: none, a designer's call).
  const answered = new Map<number, UsageMetrics>();
  let requests = 0;
  const failedOnce = new Set<string>();
  const raw: RawProvider = {
    id: 'test:m',
    model: 'm',
    async chat(request) {
      // Every seventh request fails, once: its retry gets through (a failed attempt is no call),
      // however the requests in flight beside it interleave. Replies come back out of order.
      const key = JSON.stringify([request.seed, request.messages]);
      if (++requests % 7 === 0 && !failedOnce.has(key)) {
        failedOnce.add(key);
        throw Object.assign(new Error('overloaded'), { status: 503 });
      }
      await sleep((request.messages.length * 3) % 7);
      const seed = request.seed ?? -1;
      const spent = call(JSON.stringify(request.messages).length, (seed >>> 0) % 50 + 1);
      answered.set(seed, addUsage(answered.get(seed) ?? emptyUsage(), spent));
      return { text: 'I try \\boxed{0}.', usage: { inputTokens: spent.inputTokens, outputTokens: spent.outputTokens } };
    },
  };
  const provider = withProviderLayer(raw, { requestsInFlight: 3, price, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
  const lock = fixture('valid/code-lock-multi-turn');
  const played: EpisodeResult[] = [];
  const designer = (async () => {
    for (let i = 0; i < 5; i++) await provider.chat({ messages: [{ role: 'user', content: `design ${i}` }] });
  })();
  const evaluation = await evaluateEnvironment(lock, 3, context(createLLMAgent(provider), { withHint: true, onEpisode: (e) => played.push(e) }));
  await designer;
  assert.is(evaluation.episodes.length, 8);
  assert.ok(requests > statsOf(provider)!.usage().calls, 'some requests failed and were retried');
  for (const e of evaluation.episodes) {
    assert.ok(e.turns > 1, `a multi-turn episode (${e.outcome}${e.error ? `: ${e.error}` : ''})`);
    const seed = deriveSeed(5, lock.id, e.attempt, e.withHint ? 'hint' : 'plain');
    assert.equal(e.spent, answered.get(seed), `attempt ${e.attempt}${e.withHint ? ' with the hint' : ''}`);
    assert.is(e.spent!.calls, e.turns);
  }
  assert.ok(played.length === 8 && played.every((e) => evaluation.episodes.includes(e)), 'each is handed to the journal with its spent');
  assert.equal(statsOf(provider)!.outsideUsage(), answered.get(-1), 'the designer\'s calls are outside');
});

test('n samples in one request: each episode spends its share; kept and replayed episodes add up to the whole', async () => {
  let requests = 0;
  const raw: RawProvider = {
    id: 'test:s',
    model: 's',
    samples: true,
    async chat(request) {
      requests++;
      const n = request.n ?? 1;
      return { text: '\\boxed{0}', choices: Array.from({ length: n }, (_, i) => ({ text: `\\boxed{${i}}`, finishReason: 'stop' })), usage: { inputTokens: 101, outputTokens: 7 * n + 3 } };
    },
  };
  const sampling = { n: 4, temperature: 1, maxTokens: 64 };
  const program = answerProgram({ id: 'q', question: 'What is 1 + 2?', answer: '3', checker: 'numeric', family: 'test', origin: 'test' });
  const agentOf = () => sampledAgent(createLLMAgent(withProviderLayer(raw, { price })), sampling);
  const whole = await evaluateEnvironment(program, 0, context(agentOf(), { seedPerAttempt: false }));
  assert.is(requests, 1, 'one request for the task\'s four samples');
  const request = call(101, 31);
  assert.equal(whole.episodes.map((e) => e.spent ?? emptyUsage()), [0, 1, 2, 3].map((i) => usageShare(request, i, 4)));
  assert.equal(addUsage(...whole.episodes.map((e) => e.spent ?? emptyUsage())), request, 'the shares add up to the request');

  // Attempts 0 and 2 were journaled before a kill; a new process plays 1 and 3, with a request of its own.
  const kept = whole.episodes.filter((e) => e.attempt % 2 === 0);
  const records: JournalRecord[] = kept.map((episode) => ({ type: 'episode', episode: structuredClone(episode) }));
  const prior = new PriorWork(records);
  const fresh: EpisodeResult[] = [];
  const resumed = await evaluateEnvironment(program, 0, context(agentOf(), { seedPerAttempt: false, prior, onEpisode: (e) => fresh.push(e) }));
  assert.is(requests, 2);
  assert.equal(fresh.map((e) => e.attempt), [1, 3]);
  assert.equal(resumed.episodes.map((e) => e.spent ?? emptyUsage()), whole.episodes.map((e) => e.spent ?? emptyUsage()));
  assert.equal(addUsage(prior.usage('s')!, ...fresh.map((e) => e.spent ?? emptyUsage())), request, 'the resumed evaluation spends what the whole one did');
});

test.after(async () => {
  await sandbox.close();
});

test.run();
