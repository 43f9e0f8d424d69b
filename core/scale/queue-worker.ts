/**
 * The worker loop of distributed runs (`spade-bench worker --redis URL`): takes environment
 * evaluations from the BullMQ queue, one job at a time per unit of concurrency, and returns
 * each evaluation with the verdict and episodes it journaled fresh. Sandboxes and agents are
 * built from the config a job carries (once per distinct config), with this process's own keys.
 *
 * Its lock on a job is renewed while the job runs. If the process dies (SIGKILL, a lost
 * machine), the lock lapses after `lockDurationMs`, and the stalled-job check of any other
 * worker (every `stalledIntervalMs`) puts the job back on the queue for another worker.
 */
import { hostname } from 'node:os';
import { Worker } from 'bullmq';
import { connectRedis, EVALUATION_QUEUE } from './redis-connection.js';
import { WORKER_DEFAULTS } from '../config/options.js';
import { runEvaluationJob, type JobOutcome } from './evaluation-job.js';
import { WorkerPartsCache } from './worker-parts.js';
import type { EvaluationJobData } from './distributed-evaluator.js';

export interface QueueWorkerOptions {
  redis: string;
  /** Jobs run at once in this process (default 1: sandboxed work is CPU-bound; start one worker per core). */
  jobsInFlight?: number;
  /** How long a job's lock lasts without renewal (default 30 s); a dead worker's job is retried after it. */
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs (default 30 s). */
  stalledIntervalMs?: number;
  /** Folder plugin paths in a job's config are relative to (default: the current folder). */
  cwd?: string;
  queueName?: string;
  /** This worker's name, recorded on each job it takes (default: host and process id). */
  name?: string;
  /** Each job as it ends. */
  onJob?: (event: { id: string; environment: string; ok: boolean; error?: string }) => void;
}

export interface QueueWorker {
  /** Finish the jobs in hand, then stop. */
  close(): Promise<void>;
}

/** Times a job may lose its worker before it is failed. */
const MAX_STALLS = 5;

export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const connection = await connectRedis(options.redis);
  const concurrency = Math.max(1, Math.floor(options.jobsInFlight ?? WORKER_DEFAULTS.jobsInFlight));
  // One Python interpreter per job this worker runs at once.
  const parts = new WorkerPartsCache(options.cwd, 4, concurrency);
  const worker = new Worker<EvaluationJobData, JobOutcome>(
    options.queueName ?? EVALUATION_QUEUE,
    async (job) => runEvaluationJob(job.data.job, await parts.get(job.data.config)),
    {
      connection: connection as never,
      name: options.name ?? `${hostname()}-${process.pid}`,
      concurrency,
      lockDuration: options.lockDurationMs ?? WORKER_DEFAULTS.lockDuration,
      stalledInterval: options.stalledIntervalMs ?? WORKER_DEFAULTS.stalledInterval,
      maxStalledCount: MAX_STALLS,
    },
  );
  worker.on('error', () => {});
  worker.on('completed', (job) => options.onJob?.({ id: job.id ?? '', environment: job.data.job.program.id, ok: true }));
  worker.on('failed', (job, error) => options.onJob?.({ id: job?.id ?? '', environment: job?.data.job.program.id ?? '', ok: false, error: error.message }));
  await worker.waitUntilReady();
  return {
    async close() {
      await worker.close();
      await parts.close();
      await connection.quit().catch(() => {});
    },
  };
}
