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

/** Resolves after `turns` turns of the event loop. */
const turns = async (turns: number): Promise<void> => {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
};

test('playConcurrently: a play starts only once it holds a slot, one waiter per caller on the limit', async () => {
  const slots = new InFlightLimit(3);
  let mostQueued = 0;
  let mostActive = 0;
  let active = 0;
  const results = await playConcurrently(Array.from({ length: 500 }, (_, i) => i), slots, async (n, i) => {
    mostQueued = Math.max(mostQueued, slots.queued);
    mostActive = Math.max(mostActive, ++active);
    await turns(1 + (n % 3));
    active--;
    return i * 2;
  });
  assert.equal(results, Array.from({ length: 500 }, (_, i) => i * 2));
  assert.is(mostActive, 3);
  // Every item waiting on the limit at once would be 497 waiters, each a suspended call with its abort listener.
  assert.ok(mostQueued <= 1, `${mostQueued} waiters on the limit`);
  assert.is(slots.queued, 0);
  assert.is(slots.inFlight, 0);
});

test('playConcurrently: callers sharing slots go by turn, so the first to begin ends first', async () => {
  const slots = new InFlightLimit(3);
  const log: string[] = [];
  let mostQueued = 0;
  // Three environments, each beginning a little after the one before, as they pass their gates.
  const caller = async (name: string, delay: number): Promise<void> => {
    await turns(delay);
    await playConcurrently(Array.from({ length: 60 }, (_, i) => i), slots, async (i) => {
      log.push(`${name} starts`);
      mostQueued = Math.max(mostQueued, slots.queued);
      await turns(1 + ((i * 7) % 4));
    });
    log.push(`${name} ends`);
  };
  await Promise.all([caller('first', 0), caller('second', 2), caller('third', 4)]);
  const thirdBefore = (end: string) => log.slice(0, log.indexOf(end)).filter((entry) => entry === 'third starts').length;
  assert.equal(log.filter((entry) => entry.endsWith('ends')), ['first ends', 'second ends', 'third ends']);
  // A freed slot goes to the earliest caller still playing: the third waits for the first's end.
  assert.ok(thirdBefore('first ends') <= 2, `the third started ${thirdBefore('first ends')} plays before the first ended`);
  assert.ok(mostQueued <= 3, `${mostQueued} waiters on the limit for 3 callers`);
});

test('playConcurrently: no play starts after a failure, and every started one settles before it is passed on', async () => {
  const slots = new InFlightLimit(3);
  let started = 0;
  let settled = 0;
  const failing = playConcurrently(Array.from({ length: 500 }, (_, i) => i), slots, async (i) => {
    started++;
    try {
      await turns(1 + (i % 3));
      if (i === 10) throw new Error('boom');
      return i;
    } finally {
      settled++;
    }
  });
  await failing.then(() => assert.unreachable('should fail'), (error: Error) => assert.is(error.message, 'boom'));
  // Items 0-10, and at most the two others holding a slot when item 10 failed.
  assert.ok(started <= 13, `${started} plays started`);
  assert.is(settled, started);
  assert.is(slots.inFlight, 0);
  // Nor after an abort: a waiter leaves the limit, and nothing more starts.
  const stop = new AbortController();
  let played = 0;
  const results = await playConcurrently(Array.from({ length: 100 }, (_, i) => i), slots, async (i) => {
    if (++played === 5) stop.abort();
    await turns(1);
    return i;
  }, stop.signal);
  assert.ok(played <= 7, `${played} plays started`);
  assert.equal(results.slice(0, 4), [0, 1, 2, 3]);
  assert.ok(results.slice(played).every((r) => r === undefined));
  assert.is(slots.queued, 0);
  assert.is(slots.inFlight, 0);
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
