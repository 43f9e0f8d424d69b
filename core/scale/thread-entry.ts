/**
 * A worker thread of the thread pool: builds its own sandboxes and agent from the run's config,
 * then evaluates the environments the main thread sends, streaming each verdict and episode
 * back as it is done (the journal stays on the main thread).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import type { SpadeConfig } from '../config/config.js';
import { runEvaluationJob, type EvaluationJob, type FreshWork, type PackedEvaluation } from './evaluation-job.js';
import { createWorkerParts } from './worker-parts.js';

export type ToThread = { type: 'job'; id: number; job: EvaluationJob } | { type: 'abort'; id: number } | { type: 'close' };
export type FromThread =
  | { type: 'fresh'; id: number; work: FreshWork[] }
  | { type: 'done'; id: number; evaluation: PackedEvaluation; fresh: FreshWork[] }
  | { type: 'failed'; id: number; message: string }
  | { type: 'ready' }
  | { type: 'closed' };

export interface ThreadData {
  config: SpadeConfig;
  cwd: string;
  /** This thread's share of the cores: Python interpreter processes it may start. */
  sandboxWorkers: number;
}

const port = parentPort!;
const { config, cwd, sandboxWorkers } = workerData as ThreadData;
const parts = createWorkerParts(config, cwd, sandboxWorkers);
// Told once the sandboxes and agent are built (a failure shows at the first job instead).
parts.then(() => port.postMessage({ type: 'ready' } satisfies FromThread), () => {});
const running = new Map<number, AbortController>();
const send = (message: FromThread): void => port.postMessage(message);

/**
 * Fresh work waits here at most this long before it is sent on its own; a job that ends sooner
 * sends it with its result. A message between threads costs tens of microseconds on a small
 * virtual machine (the other thread is woken), as much as a single-answer episode.
 */
const FRESH_FLUSH_MS = 25;

async function run(id: number, job: EvaluationJob): Promise<void> {
  const controller = new AbortController();
  running.set(id, controller);
  let fresh: FreshWork[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    if (fresh.length) send({ type: 'fresh', id, work: fresh });
    fresh = [];
  };
  try {
    const { evaluation } = await runEvaluationJob(job, await parts, {
      signal: controller.signal,
      onFresh: (work) => {
        fresh.push(work);
        timer ??= setTimeout(flush, FRESH_FLUSH_MS);
      },
    });
    clearTimeout(timer);
    send({ type: 'done', id, evaluation, fresh });
  } catch (error) {
    clearTimeout(timer);
    flush();
    send({ type: 'failed', id, message: error instanceof Error ? error.stack ?? error.message : String(error) });
  } finally {
    running.delete(id);
  }
}

port.on('message', (message: ToThread) => {
  switch (message.type) {
    case 'job':
      void run(message.id, message.job);
      break;
    case 'abort':
      running.get(message.id)?.abort();
      break;
    case 'close':
      void parts
        .then((p) => p.close())
        .catch(() => {})
        .finally(() => {
          collectGarbage();
          send({ type: 'closed' });
          port.close();
        });
      break;
  }
});

/**
 * A full garbage collection, once the thread's sandboxes are closed and before it ends. Node 20
 * may finish a garbage collection while it tears a worker thread down (nodejs/node#51129), and
 * an isolated-vm object found dead then aborts the whole process: its callback needs the
 * thread's isolated-vm state, already gone (`IsolateEnvironment::GetCurrent(): Assertion
 * environment != nullptr`). It ended about one run in ten with a suite plugin, before the
 * results were written. Collected here, while that state exists, those objects are gone before
 * the teardown. (`gc` is exposed for this alone; no heap setting changes.)
 */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
