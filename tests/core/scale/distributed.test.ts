// Distributed runs on a real redis-server with real `spade-bench worker` processes: the run
// equals the local run of the same seed, and a worker killed mid-job (SIGKILL) has its job
// retried by another, with nothing lost or counted twice.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { freePort, redisMissing, startRedis, startWorkerProcess, stopProcesses, type RedisServer } from '../../helpers/redis.js';
import path from 'node:path';
import { readFileSync, rmSync } from 'node:fs';
import { startCli, tempDir } from '../../helpers/cli.js';
import { startWireServer } from '../../helpers/wire-servers.js';
import type { RunResults } from '../../../core/results/results.js';
import { RunStoppedError, UsageError } from '../../../core/errors.js';
import { createDistributedEvaluator, waitForOutcome } from '../../../core/scale/distributed-evaluator.js';
import { connectRedis, EVALUATION_QUEUE } from '../../../core/scale/redis-connection.js';
import type { Suite } from '../../../core/types.js';
import { runLocally, smallConfig } from './local-run.js';
import { comparable, journaledEpisodes } from '../../helpers/results.js';

const missing = redisMissing();
if (missing) console.log(`skipped: ${missing}`);
const it = missing ? test.skip : test;

let redis: RedisServer;
const workers = new Map<string, ChildProcess>();

async function startWorker(name: string): Promise<ChildProcess> {
  const child = await startWorkerProcess(redis.url, name);
  workers.set(name, child);
  return child;
}

const stopWorkers = (): Promise<void> => stopProcesses(workers.values());

async function runDistributed(config: ReturnType<typeof smallConfig>, extraSuites: Suite[] = []): Promise<string> {
  const outDir = path.join(tempDir('spade-dist-'), 'run');
  const evaluator = await createDistributedEvaluator({ redis: redis.url, config, outDir });
  try {
    return await runLocally(config, { evaluator: evaluator.evaluate, outDir, extraSuites });
  } finally {
    await evaluator.close();
  }
}

/** Which workers completed the queue's jobs. */
async function processedBy(): Promise<Set<string>> {
  const connection = await connectRedis(redis.url);
  const queue = new Queue(EVALUATION_QUEUE, { connection: connection as never });
  const jobs = await queue.getJobs(['completed']);
  await queue.close();
  await connection.quit();
  return new Set(jobs.map((j) => j.processedBy ?? '?'));
}

test.before(async () => {
  if (missing) return;
  redis = await startRedis();
  await Promise.all([startWorker('a'), startWorker('b')]);
});

test.after(async () => {
  if (missing) return;
  await stopWorkers();
  await redis?.stop();
});

test('a Redis that cannot be reached is a usage error naming it, without its password, not a silent wait', async () => {
  // Nothing listens there: every connection is refused.
  const port = await freePort();
  try {
    await connectRedis(`redis://someone:s3cret-pass@127.0.0.1:${port}/2`, 500);
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, UsageError);
    const message = (error as Error).message;
    assert.match(message, `cannot reach Redis at redis://127.0.0.1:${port}/2 within 0.5 s (connect ECONNREFUSED 127.0.0.1:${port}): start redis-server there, or correct the address or its credentials in --redis`);
    assert.not.match(message, 's3cret');
  }
  // Written without its scheme (or with a slash short), the URL is refused, still without its password.
  for (const url of [`someone:s3cret-pass@127.0.0.1:${port}`, `redis:/:s3cret-pass@127.0.0.1:${port}`]) {
    const refused = await connectRedis(url, 500).then(() => undefined, (error: Error) => error);
    assert.instance(refused, UsageError);
    assert.match(refused!.message, `expected a URL such as redis://127.0.0.1:6379, got "…@127.0.0.1:${port}"`);
    assert.not.match(refused!.message, 's3cret');
  }
});

it('a worker says which Redis it takes jobs from without the password in its URL', async () => {
  const { child, done } = startCli(['worker', '--redis', `redis://default:s3cret-pass@127.0.0.1:${redis.port}`, '--name', 'shown']);
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d;
      if (stderr.includes('taking jobs')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the worker exited (${code}): ${stderr}`)));
  });
  child.kill('SIGTERM');
  const result = await done;
  assert.match(result.stderr, `taking jobs from redis://127.0.0.1:${redis.port}`);
  assert.not.match(result.stderr, 's3cret');
});

it('two worker processes: the distributed run equals the local run of the same seed', async () => {
  const config = smallConfig();
  const local = await runLocally(config);
  const distributed = await runDistributed(config);
  assert.equal(comparable(distributed), comparable(local));
  assert.equal(journaledEpisodes(distributed), journaledEpisodes(local));
  assert.equal([...(await processedBy())].sort(), ['a', 'b'], 'both workers took jobs');
});

/** Tasks slow enough (a busy loop in reset) that a worker is surely killed in the middle of one. */
const SLOW_SOURCE = `
class SlowReverse {
  reset(seed) {
    let x = 0;
    for (let i = 0; i < 2e6; i++) x = (x * 31 + i) % 1000003;
    this.word = ['planet', 'harbor', 'violet', 'canyon'][Math.floor(Math.random() * 4)];
    return ['Spell "' + this.word + '" backwards and answer in \\\\boxed{}. (' + (x % 7) + ')', {}];
  }
  step(action) {
    const match = /\\\\boxed\\{([^}]*)\\}/.exec(action);
    const won = match !== null && match[1] === this.solution();
    return [won ? 'Right.' : 'Not quite.', won ? 1 : 0, true, false, {}];
  }
  solution() { return this.word.split('').reverse().join(''); }
}`;
const slowSuite: Suite = {
  id: 'slow',
  description: 'single-answer tasks with a slow reset',
  language: 'javascript',
  async tasks() {
    return Array.from({ length: 6 }, (_, i) => ({ program: { id: `slow-${i}`, language: 'javascript' as const, source: SLOW_SOURCE, meta: { horizon: 1 } }, seed: 100 + i }));
  },
};

/** Two tasks whose every answer gets `reward`: curated, so the gate plays them whatever it doubts. */
const constantSuite = (reward: 0 | 1): Suite => ({
  id: 'constant',
  description: 'tasks whose every answer gets the same reward',
  language: 'javascript',
  async tasks() {
    const source = `class Constant {\n  reset(seed) { return ['Answer anything in \\\\boxed{}.', {}]; }\n  step(action) { return ['done', ${reward}, true, false, {}]; }\n}`;
    return [0, 1].map((i) => ({ program: { id: `constant-${i}`, language: 'javascript' as const, source, meta: { horizon: 1, curated: true } }, seed: i }));
  },
});

it('a rerun into the same folder with changed tasks gets results of its own, not the earlier run\'s from Redis', async () => {
  const config = smallConfig({ suites: ['procedural'], limit: 1 });
  const outDir = path.join(tempDir('spade-rerun-'), 'run');
  const wonIn = async (reward: 0 | 1): Promise<number> => {
    rmSync(outDir, { recursive: true, force: true });
    const evaluator = await createDistributedEvaluator({ redis: redis.url, config, outDir });
    try {
      await runLocally(config, { evaluator: evaluator.evaluate, outDir, extraSuites: [constantSuite(reward)] });
    } finally {
      await evaluator.close();
    }
    const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as RunResults;
    return results.suites.find((suite) => suite.id === 'constant')!.metrics.success.won;
  };
  assert.is(await wonIn(0), 0);
  // Same folder, same config, the tasks' code changed: every answer now wins.
  assert.is(await wonIn(1), 2 * config.attempts);
});

it('stopped with no worker to take its jobs, a run withdraws them and writes what it has', async () => {
  const config = smallConfig({ suites: ['procedural'], limit: 3 });
  const outDir = path.join(tempDir('spade-idle-'), 'run');
  // A queue no worker listens to: its jobs wait for ever.
  const queueName = `idle-${process.pid}`;
  const evaluator = await createDistributedEvaluator({ redis: redis.url, config, outDir, queueName, recheckMs: 100 });
  const stop = new AbortController();
  const connection = await connectRedis(redis.url);
  const queue = new Queue(queueName, { connection: connection as never });
  try {
    const run = runLocally(config, { evaluator: evaluator.evaluate, outDir, signal: stop.signal });
    for (let waited = 0; (await queue.getWaitingCount()) === 0 && waited < 30_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok((await queue.getWaitingCount()) > 0, 'no job was queued');
    stop.abort();
    const ended = await Promise.race([run.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 60_000).unref())]);
    assert.ok(ended, 'the stopped run kept waiting for jobs no worker will take');
    const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as RunResults;
    assert.is(results.run.complete, false);
    assert.is(await queue.getWaitingCount(), 0, 'a job no worker took was left for a later worker');
  } finally {
    await evaluator.close();
    await queue.obliterate({ force: true });
    await queue.close();
    await connection.quit();
  }
});

it('a worker killed with SIGKILL mid-job: its job is retried on the other worker, results equal the local run', async () => {
  const config = smallConfig({ suites: ['procedural'], limit: 4 });
  const local = await runLocally(config, { extraSuites: [slowSuite] });
  const connections = await Promise.all([connectRedis(redis.url), connectRedis(redis.url)]);
  const events = new QueueEvents(EVALUATION_QUEUE, { connection: connections[0] as never });
  await events.waitUntilReady();
  const stalled: string[] = [];
  events.on('stalled', ({ jobId }) => stalled.push(jobId));
  let killedDuring: string | undefined;
  const queue = new Queue(EVALUATION_QUEUE, { connection: connections[1] as never });
  events.on('active', async ({ jobId }) => {
    if (killedDuring || !jobId.includes('slow')) return;
    const job = await queue.getJob(jobId);
    const victim = job?.processedBy ? workers.get(job.processedBy) : undefined;
    if (victim && !killedDuring) {
      killedDuring = jobId;
      victim.kill('SIGKILL');
    }
  });
  try {
    const distributed = await runDistributed(config, [slowSuite]);
    assert.ok(killedDuring, 'the victim was killed while it held a slow job');
    assert.ok(stalled.includes(killedDuring!), `the killed job was detected as stalled and retried (stalled: ${stalled.join(', ')})`);
    assert.equal(comparable(distributed), comparable(local));
    const episodes = journaledEpisodes(distributed);
    assert.equal(episodes, journaledEpisodes(local), 'every episode journaled exactly once');
  } finally {
    await events.close();
    await queue.close();
    await Promise.all(connections.map((c) => c.quit()));
  }
});

it('a model agent on the workers: its calls are in the run\'s usage, as in the local run', async () => {
  // Workers read their own keys: one started with the model server's, the others stopped.
  const server = await startWireServer('openai');
  const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
  process.env.OPENAI_API_KEY = 'sk-distributed-test-3f9a';
  process.env.OPENAI_BASE_URL = server.baseURL;
  try {
    await stopWorkers();
    await startWorker('model');
    const config = smallConfig({ suites: ['procedural'], limit: 4, agent: 'openai:m', cache: false });
    const local = await runLocally(config);
    const calls = server.requests.length;
    assert.ok(calls >= 8, `the local run's agent made its calls (${calls})`);
    const distributed = await runDistributed(config);
    assert.is(server.requests.length, 2 * calls, 'the workers made as many');
    const usage = (dir: string) => (JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunResults).suites[0]!.metrics.usage;
    assert.is(usage(local).calls, calls);
    assert.equal(usage(distributed), usage(local));
    assert.equal(comparable(distributed), comparable(local));
  } finally {
    for (const [name, value] of [['OPENAI_API_KEY', saved.key], ['OPENAI_BASE_URL', saved.url]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await server.close();
  }
});

it('a job whose completion event never reaches its waiter is delivered all the same, read from its state', async () => {
  const connections = await Promise.all([0, 1, 2, 3].map(() => connectRedis(redis.url)));
  const queues: Queue[] = [];
  const consumers: Worker[] = [];
  const deafs: QueueEvents[] = [];
  /** A queue whose events are never read (the waiter hears nothing, as when an event is lost), and its worker, started later. */
  const setup = (name: string, work: (data: unknown) => unknown) => {
    const queue = new Queue(name, { connection: connections[0] as never });
    const deaf = new QueueEvents(name, { connection: connections[1] as never, autorun: false });
    queues.push(queue);
    deafs.push(deaf);
    const start = () => consumers.push(new Worker(name, async (job) => work(job.data), { connection: connections[consumers.length + 2] as never }));
    const waited = <T>(job: Awaited<ReturnType<Queue['add']>>) => ({
      waitUntilFinished: (ttl: number) => job.waitUntilFinished(deaf, ttl) as Promise<T>,
      async latest() {
        const now = await queue.getJob(job.id!);
        return now && { state: await now.getState(), returnvalue: now.returnvalue as T, failedReason: now.failedReason };
      },
    });
    return { queue, deaf, start, waited };
  };
  try {
    const doubling = setup(`deaf-${process.pid}`, (data) => ({ doubled: (data as { n: number }).n * 2 }));
    const job = await doubling.queue.add('double', { n: 21 });
    // Both waits start before the job is done, so neither finds it finished when it starts.
    const alone = job.waitUntilFinished(doubling.deaf, 500).then(() => 'heard', (error: Error) => error.message);
    const outcome = waitForOutcome(doubling.waited<{ doubled: number }>(job), 100);
    doubling.start();
    assert.equal(await outcome, { doubled: 42 });
    assert.match(await alone, /timed out/, "BullMQ's own wait never learns that the job completed");

    const failing = setup(`deaf-failing-${process.pid}`, () => {
      throw new Error('not a number');
    });
    const bad = await failing.queue.add('double', { n: 'x' }, { attempts: 1 });
    const refused = waitForOutcome(failing.waited(bad), 100, 'suite/task-1').then(() => undefined, (error: Error) => error);
    failing.start();
    const failure = await refused;
    assert.ok(failure instanceof UsageError, 'a job failed on the workers is theirs to fix: a usage error, no stack trace');
    assert.match(failure.message, /a worker failed suite\/task-1 on each of its tries: not a number/, "a failed job's reason is read from its state");

    // A job Redis no longer has (restarted empty): the run stops, keeping what finished.
    const lost = await doubling.queue.add('double', { n: 1 }, { delay: 60_000 });
    const gone = waitForOutcome(doubling.waited(lost), 100, 'suite/task-2').then(() => undefined, (error: Error) => error);
    await lost.remove();
    const stopped = await gone;
    assert.ok(stopped instanceof RunStoppedError, String(stopped));
    assert.match(stopped.message, /Redis no longer has the job of suite\/task-2.*--resume/);
  } finally {
    await Promise.all(consumers.map((w) => w.close()));
    await Promise.all(deafs.map((d) => d.close()));
    for (const queue of queues) {
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await Promise.all(connections.map((c) => c.quit()));
  }
});

test.run();

