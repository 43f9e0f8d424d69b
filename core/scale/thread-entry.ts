/**
 * A worker thread of the thread pool: builds its own sandboxes and agent from the run's config,
 * then evaluates the environments the main thread sends, streaming each verdict and episode
 * back as it is done (the journal stays on the main thread).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SpadeConfig } from '../config.js';
import { runEvaluationJob, type EvaluationJob, type FreshWork } from './evaluation-job.js';
import { createWorkerParts } from './worker-parts.js';
import type { Evaluation } from '../evaluate.js';

export type ToThread = { type: 'job'; id: number; job: EvaluationJob } | { type: 'abort'; id: number } | { type: 'close' };
export type FromThread =
  | { type: 'fresh'; id: number; work: FreshWork }
  | { type: 'done'; id: number; evaluation: Evaluation }
  | { type: 'failed'; id: number; message: string }
  | { type: 'closed' };

export interface ThreadData {
  config: SpadeConfig;
  cwd: string;
}

const port = parentPort!;
const { config, cwd } = workerData as ThreadData;
const parts = createWorkerParts(config, cwd);
const running = new Map<number, AbortController>();
const send = (message: FromThread): void => port.postMessage(message);

async function run(id: number, job: EvaluationJob): Promise<void> {
  const controller = new AbortController();
  running.set(id, controller);
  try {
    const { evaluation } = await runEvaluationJob(job, await parts, {
      signal: controller.signal,
      onFresh: (work) => send({ type: 'fresh', id, work }),
    });
    send({ type: 'done', id, evaluation });
  } catch (error) {
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
          send({ type: 'closed' });
          port.close();
        });
      break;
  }
});
