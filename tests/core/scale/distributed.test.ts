// Distributed runs on a real redis-server with real `spade-bench worker` processes: the run
// equals the local run of the same seed, and a worker killed mid-job (SIGKILL) has its job
// retried by another, with nothing lost or counted twice.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { Queue, QueueEvents } from 'bullmq';
import { redisMissing, startRedis, startWorkerProcess, stopProcesses, type RedisServer } from '../../helpers/redis.js';
import path from 'node:path';
import { tempDir } from '../../helpers/cli.js';
import { createDistributedEvaluator } from '../../../core/scale/distributed-evaluator.js';
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

test.run();

