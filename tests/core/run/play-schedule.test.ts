// A model-driven agent keeps its provider's slots busy: every attempt of an environment at once,
// each on its own loaded environment, environments kept in flight up to the provider's limit;
// and the results are those of one-at-a-time play, whatever the interleaving.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from '../../../core/setup/api.js';
import { InFlightLimit } from '../../../core/providers/in-flight-limit.js';
import { environmentsInFlight, playConcurrently, playSlots } from '../../../core/run/play-schedule.js';
import { startWireServer } from '../../helpers/wire-servers.js';
import { comparable } from '../../helpers/results.js';
import { tempDir } from '../../helpers/cli.js';

/** Every journaled episode: its key and what the agent said and saw, sorted by key. */
function episodes(dir: string): string[] {
  return readFileSync(path.join(dir, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"episode"'))
    .map((line) => {
      const { episode: e } = JSON.parse(line) as { episode: Record<string, unknown> };
      return JSON.stringify([e.suite, e.environmentId, e.withHint, e.attempt, e.seed, e.outcome, e.turns, e.totalReward, e.rewards, e.messages, e.usage]);
    })
    .sort();
}

test('against a server answering after 250 ms, 32 provider slots and default flags give the results of one-at-a-time play', async () => {
  const dir = tempDir();
  const questions = path.join(dir, 'questions.jsonl');
  writeFileSync(questions, ['What is 2 + 3?', 'How many legs do 2 cats have?', 'Name 7.'].map((question, i) => JSON.stringify({ question, answer: String([5, 8, 7][i]) })).join('\n'));
  const server = await startWireServer('openai', { delayMs: 250 });
  const runWith = async (requestsInFlight: number, out: string) => {
    await run(
      {
        out,
        seed: 2, // self-play's one design: a multi-turn game (mastermind, 8 turns)
        agent: 'openai:m',
        suites: ['spade', `jsonl:${questions}`],
        suiteOptions: { [`jsonl:${questions}`]: { mapping: { checker: 'numeric' } } },
        attempts: 2, selfplay: { rounds: 1, envsPerRound: 1 },
        cache: false,
        providers: { openai: { baseURL: server.baseURL, apiKey: 'sk-schedule-test-0123456789', requestsInFlight } },
      },
      { cwd: dir },
    );
    const inFlight = server.maxInFlight;
    server.maxInFlight = 0;
    return inFlight;
  };
  try {
    const concurrent = path.join(dir, 'concurrent');
    const oneAtATime = path.join(dir, 'one-at-a-time');
    const most = await runWith(32, concurrent);
    const requests = server.requests.length;
    assert.is(await runWith(1, oneAtATime), 1, 'one request at a time');
    assert.is(server.requests.length, 2 * requests, 'the same calls');
    // Each suite's episodes all at once: a designed environment x 2 attempts x (with and without the hint); 3 questions x 2 attempts.
    assert.is(most, 6, `requests in flight at once (${requests} requests)`);
    // The same results (the recorded config differs in the provider's limit only).
    const same = (out: string) => {
      const results = comparable(out) as { run: { config: { providers?: unknown } } };
      delete results.run.config.providers;
      return results;
    };
    assert.equal(same(concurrent), same(oneAtATime));
    assert.equal(episodes(concurrent), episodes(oneAtATime));
  } finally {
    await server.close();
  }
});

test('playConcurrently: results in item order, at most the slots at once, nothing started once stopped', async () => {
  const slots = new InFlightLimit(2);
  let active = 0;
  let most = 0;
  const results = await playConcurrently([30, 5, 20, 1, 10], slots, async (ms, i) => {
    most = Math.max(most, ++active);
    await new Promise((resolve) => setTimeout(resolve, ms));
    active--;
    return `${i}:${ms}`;
  });
  assert.equal(results, ['0:30', '1:5', '2:20', '3:1', '4:10']);
  assert.is(most, 2);
  const stop = new AbortController();
  stop.abort();
  assert.equal(await playConcurrently([1, 2], undefined, async (x) => x, stop.signal), [undefined, undefined]);
  // A failure is passed on once every play has settled.
  let finished = 0;
  await playConcurrently([1, 2, 3], undefined, async (x) => {
    await new Promise((resolve) => setTimeout(resolve, x * 5));
    finished++;
    if (x === 1) throw new Error('boom');
    return x;
  }).then(() => assert.unreachable('should fail'), (error: Error) => assert.is(error.message, 'boom'));
  assert.is(finished, 3);
});

test('environments in flight: --concurrency for an offline agent, enough for the capacity of a model-driven one', () => {
  assert.is(environmentsInFlight(8, {}), 8);
  assert.is(environmentsInFlight(8, { capacity: 32 }), 32);
  assert.is(environmentsInFlight(8, { capacity: 4 }), 8);
  assert.is(environmentsInFlight(8, {}, 16), 16);
  assert.is(playSlots({}), undefined);
  assert.is(playSlots({ capacity: 32 })!.limit, 32);
});

test.run();
