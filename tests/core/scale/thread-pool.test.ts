// All cores locally: the same run through worker threads gives the same results and the same
// journal as the in-thread evaluator, and the threads really do the work.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { threadId } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { packagesLoadedBy } from '../../helpers/cli.js';
import { createThreadPool } from '../../../core/scale/thread-pool.js';
import { WorkerPartsCache } from '../../../core/scale/worker-parts.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { runLocally, smallConfig } from './local-run.js';
import { comparable, journaledEpisodes } from '../../helpers/results.js';
import type { EnvironmentProgram } from '../../../core/types.js';

test('two worker threads: results.json and journaled episodes equal the in-thread run of the same seed', async () => {
  const config = smallConfig();
  const inThread = await runLocally(config);
  const pool = createThreadPool({ config, workers: 2 });
  let viaPool = 0;
  try {
    const threaded = await runLocally(config, {
      evaluator: (program, seed, ctx) => {
        viaPool++;
        return pool.evaluate(program, seed, ctx);
      },
    });
    assert.ok(viaPool >= 8 + 14, `every environment went through the pool (${viaPool})`);
    assert.equal(comparable(threaded), comparable(inThread));
    assert.equal(journaledEpisodes(threaded), journaledEpisodes(inThread));
  } finally {
    await pool.close();
  }
});

test('an evaluation runs in a thread with its own sandbox; its verdict is journaled on the calling thread', async () => {
  const config = smallConfig();
  const pool = createThreadPool({ config, workers: 1 });
  try {
    // The caller's sandboxes refuse to load anything: only a thread's own sandbox can give this verdict.
    const program: EnvironmentProgram = { id: 'broken', language: 'javascript', source: 'class Env { reset( {' };
    const parts = { agent: { id: 'reference', label: 'r', kind: 'reference' as const, workerThreads: true, start: () => ({ act: async () => ({ reply: '' }) }) } };
    const fresh: string[] = [];
    const ctx = {
      suite: 's', sandboxes: { get: () => Promise.reject(new Error('the main thread sandbox must not be used')), close: async () => {} },
      agent: parts.agent, limits: {}, attempts: 1, withHint: false, runSeed: 1,
      onVerdict: () => fresh.push(`verdict@${threadId}`),
    };
    const e = await pool.evaluate(program, 3, ctx);
    assert.is(e.verdict.verdict, 'invalid');
    assert.is(e.verdict.reason, 'syntax');
    assert.equal(fresh, [`verdict@${threadId}`], 'the verdict is journaled on the calling thread');
  } finally {
    await pool.close();
  }
});

test('ready() resolves once every thread has built its sandboxes and agent', async () => {
  const pool = createThreadPool({ config: smallConfig(), workers: 2 });
  try {
    const timedOut = new Promise<string>((resolve) => setTimeout(() => resolve('timed out'), 30_000).unref());
    assert.is(await Promise.race([pool.ready().then(() => 'ready'), timedOut]), 'ready');
    assert.is(pool.workers, 2);
  } finally {
    await pool.close();
  }
});

test('each thread\'s sandboxes get its share of the cores as worker processes, not all of them', async () => {
  const plugin = fileURLToPath(new URL('../../fixtures/plugins/probe-sandbox.ts', import.meta.url));
  const config = smallConfig({ plugins: [plugin], sandbox: 'probe-sandbox' });
  const ctx = { suite: 's', sandboxes: { get: () => Promise.reject(new Error('not here')), close: async () => {} }, agent: { id: 'r', label: 'r', kind: 'reference' as const, workerThreads: true, start: () => ({ act: async () => ({ reply: '' }) }) }, limits: {}, attempts: 1, withHint: false, runSeed: 1 };
  for (const threads of [1, 2]) {
    const pool = createThreadPool({ config, workers: threads });
    try {
      const e = await pool.evaluate({ id: 'x', language: 'javascript', source: 'export default class X {}' }, 1, ctx);
      assert.is(e.verdict.reason, 'load');
      assert.match(e.verdict.checks.at(-1)!.detail!, `workers=${Math.max(1, Math.floor(availableParallelism() / threads))}`);
    } finally {
      await pool.close();
    }
  }
});

(checkJail().problem ? test.skip : test)('the Python sandbox of the run is the one every thread uses: numpy as np is valid in cpython, refused in pyodide', async () => {
  const program: EnvironmentProgram = { id: 'numpy', language: 'python', source: readFileSync(new URL('../../fixtures/python/packages/numpy_matrix.py', import.meta.url), 'utf8') };
  const ctx = { suite: 's', sandboxes: { get: () => Promise.reject(new Error('the main thread sandbox must not be used')), close: async () => {} }, agent: { id: 'r', label: 'r', kind: 'reference' as const, workerThreads: true, start: () => ({ act: async () => ({ reply: '' }) }) }, limits: {}, attempts: 1, withHint: false, runSeed: 1, validateOnly: true };
  for (const [pythonSandbox, verdict, reason] of [['cpython', 'valid', undefined], ['pyodide', 'invalid', 'load']] as const) {
    const pool = createThreadPool({ config: smallConfig({ pythonSandbox }), workers: 1 });
    try {
      const e = await pool.evaluate(program, 1, ctx);
      assert.is(e.verdict.verdict, verdict, pythonSandbox);
      assert.is(e.verdict.reason, reason, `${pythonSandbox}: ${JSON.stringify(e.verdict.checks.filter((c) => !c.ok))}`);
    } finally {
      await pool.close();
    }
  }
});

(checkJail().problem ? test.skip : test)('a thread that ran cpython environments closes none of the main thread\'s files when it exits', async () => {
  const program: EnvironmentProgram = { id: 'guess', language: 'python', source: readFileSync(new URL('../../fixtures/python/guess_number.py', import.meta.url), 'utf8') };
  const ctx = { suite: 's', sandboxes: { get: () => Promise.reject(new Error('the main thread sandbox must not be used')), close: async () => {} }, agent: { id: 'r', label: 'r', kind: 'reference' as const, workerThreads: true, start: () => ({ act: async () => ({ reply: '' }) }) }, limits: {}, attempts: 1, withHint: false, runSeed: 1, validateOnly: true };
  const pool = createThreadPool({ config: smallConfig({ pythonSandbox: 'cpython' }), workers: 1 });
  const mine: number[] = [];
  try {
    // Each evaluation opens and closes channels in the thread, whose fd numbers are then free.
    for (const seed of [1, 2]) assert.is((await pool.evaluate(program, seed, ctx)).verdict.verdict, 'valid');
    // Files opened here take the lowest free numbers, those among them.
    for (let i = 0; i < 64; i++) mine.push(openSync(fileURLToPath(import.meta.url), 'r'));
  } finally {
    await pool.close();
  }
  const closed = mine.filter((fd) => {
    try {
      fstatSync(fd);
      return false;
    } catch {
      return true;
    }
  });
  for (const fd of mine) if (!closed.includes(fd)) closeSync(fd);
  assert.equal(closed, [], 'fds of the main thread closed by the thread\'s exit');
});

(checkJail().problem ? test.skip : test)('queue workers keep apart the parts of runs that differ only in their Python sandbox', async () => {
  const parts = new WorkerPartsCache();
  try {
    const [a, b, again] = await Promise.all([parts.get(smallConfig({ pythonSandbox: 'cpython' })), parts.get(smallConfig({ pythonSandbox: 'pyodide' })), parts.get(smallConfig({ pythonSandbox: 'cpython' }))]);
    assert.ok(a !== b, 'a run on pyodide does not reuse the sandboxes of a run on cpython');
    assert.ok(a === again);
  } finally {
    await parts.close();
  }
});

test('a closed pool refuses work', async () => {
  const pool = createThreadPool({ config: smallConfig(), workers: 1 });
  await pool.close();
  const ctx = { suite: 's', sandboxes: { get: () => Promise.reject(new Error('x')), close: async () => {} }, agent: { id: 'r', label: 'r', kind: 'reference' as const, workerThreads: true, start: () => ({ act: async () => ({ reply: '' }) }) }, limits: {}, attempts: 1, withHint: false, runSeed: 1 };
  try {
    await pool.evaluate({ id: 'x', language: 'javascript', source: '' }, 1, ctx);
    assert.unreachable('should reject');
  } catch (error) {
    assert.match((error as Error).message, 'closed');
  }
});

test('a worker thread\'s code does not load the report renderer or BullMQ', () => {
  // Every thread imports this at start: Vega-Lite and Vega took ~200 ms of each thread's start.
  const thread = packagesLoadedBy('./core/scale/worker-parts.ts');
  assert.not.ok(thread.some((p) => p.startsWith('vega')), thread.join(', '));
  assert.not.ok(thread.includes('bullmq'), thread.join(', '));
});

test.run();
