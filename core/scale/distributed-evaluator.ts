/**
 * Distributed runs (`spade-bench run --redis URL`): an Evaluator that puts each environment
 * evaluation (gate and episodes) on a BullMQ queue as one job and waits for its result, which
 * any `spade-bench worker` on that Redis computes with its own sandbox and agent, built from
 * the config sent with the job. The run itself (designer, rounds, journal) stays here, so
 * self-play keeps its round barrier: a round's designs wait for every job of the round before.
 *
 * A job's id is its run, this invocation of it, its suite and environment, so a job is never
 * queued twice, and its result is delivered once. A new invocation (a rerun into the same
 * folder, a resume) queues jobs of its own: a result or a failure an earlier invocation left in
 * Redis (kept there an hour, a day) is never taken for this one's, whose data or workers may
 * have changed since; the journal is what a resume keeps. A worker killed mid-job stops
 * renewing its lock; BullMQ's stalled-job check hands the job to another worker, which starts
 * the environment afresh: the same seeds give the same evaluation, and only the finished one is
 * journaled. When the run ends, the jobs it queued that no worker has taken are removed, so no
 * worker runs (and spends model calls on) work of a run that is gone.
 */
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import type { SpadeConfig } from '../config/config.js';
import { RunStoppedError, UsageError } from '../errors.js';
import { EvaluationCut, type Evaluator } from '../run/evaluate.js';
import { recordedConfig } from '../run/run.js';
import { deliverFreshWork, toEvaluationJob, unpackEvaluation, type EvaluationJob, type JobOutcome } from './evaluation-job.js';
import { connectRedis, EVALUATION_QUEUE } from './redis-connection.js';

export interface DistributedOptions {
  /** redis://host:port */
  redis: string;
  config: SpadeConfig;
  /** The run's output folder: with the config, it names the run's jobs. */
  outDir: string;
  validateOnly?: boolean;
  queueName?: string;
  /** Retries of a job a worker fails (BullMQ tries it 1 + jobRetries times; a crashed or killed worker is retried apart). Default 2. */
  jobRetries?: number;
  /** How long to wait for a job's event before reading its state again (ms). Default RECHECK_MS. */
  recheckMs?: number;
}

/**
 * A job's result comes as an event from the queue, at once. The job's state is also read again
 * after this long without one: an event that never arrives (seen once, on a machine under load:
 * the job completed in Redis, its waiter never heard) then costs seconds, not the whole run.
 */
export const RECHECK_MS = 5_000;

/** What waitForOutcome needs of a job: BullMQ's wait on the queue's events, and its state read from Redis. */
export interface WaitedJob<T> {
  /** Resolves with the result, rejects when the job failed, or after `ttl` ms without an event. */
  waitUntilFinished(ttl: number): Promise<T>;
  /** The job as Redis has it now (undefined when it is gone). */
  latest(): Promise<{ state: string; returnvalue?: T; failedReason?: string } | undefined>;
  /** Take the job off the queue if no worker has it: true when it was taken off. */
  withdraw?(): Promise<boolean>;
}

/** States of a job no worker has taken. */
const NOT_TAKEN = new Set(['waiting', 'delayed', 'prioritized', 'waiting-children']);

/**
 * The result of a job: from its event, or, when no event has come for `recheckMs`, from its
 * state (completed: its return value; failed: its reason; otherwise wait again). `what` names
 * the job's work in errors. A job that failed on every try is a UsageError (the workers' setup
 * is to fix: their plugins, keys, folder); a job Redis no longer has (restarted empty, or
 * flushed) stops the run as a RunStoppedError: what finished is kept, and --resume queues the
 * rest again. Once `signal` aborts (the run is stopping), a job no worker has taken is withdrawn
 * and the wait ends with EvaluationCut (with no live worker, it would wait for ever); a job a
 * worker has taken is waited for, as in-flight work finishes in a local run.
 */
export async function waitForOutcome<T>(job: WaitedJob<T>, recheckMs: number = RECHECK_MS, what = 'a job', signal?: AbortSignal): Promise<T> {
  for (;;) {
    let failure: unknown;
    try {
      return await job.waitUntilFinished(recheckMs);
    } catch (error) {
      failure = error;
    }
    const latest = await job.latest();
    if (!latest) throw new RunStoppedError(`Redis no longer has the job of ${what} (was it restarted or emptied?); resume the run with --resume to queue what is left`);
    if (latest.state === 'completed') return latest.returnvalue as T;
    if (latest.state === 'failed') {
      const reason = latest.failedReason ?? (failure as Error)?.message ?? 'no reason given';
      throw new UsageError(`a worker failed ${what} on each of its tries: ${reason} (a worker runs in its own folder, with its own plugins and keys: fix it, then resume with --resume)`);
    }
    if (signal?.aborted && NOT_TAKEN.has(latest.state) && (await job.withdraw?.())) throw new EvaluationCut(what);
  }
}

/** What a job carries: the evaluation, and the config the worker builds its sandbox and agent from (no keys). */
export interface EvaluationJobData {
  config: SpadeConfig;
  job: EvaluationJob;
}

export interface DistributedEvaluator {
  /** Pass as `RunSetup.evaluator`. */
  readonly evaluate: Evaluator;
  /** Workers connected to the queue now. */
  workers(): Promise<number>;
  close(): Promise<void>;
}

/** Names one run: its host, folder and config (its jobs' ids add the invocation). */
export function runKey(options: Pick<DistributedOptions, 'config' | 'outDir' | 'validateOnly'>): string {
  const { out, ...config } = recordedConfig(options.config);
  void out;
  const text = JSON.stringify([hostname(), path.resolve(options.outDir), config, Boolean(options.validateOnly)]);
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** A BullMQ job id (no ':' allowed) for one environment of one run. */
export function jobId(key: string, suite: string, environmentId: string): string {
  return [key, suite, environmentId].map(encodeURIComponent).join('/');
}

export async function createDistributedEvaluator(options: DistributedOptions): Promise<DistributedEvaluator> {
  const name = options.queueName ?? EVALUATION_QUEUE;
  const [queueConnection, eventsConnection] = await Promise.all([connectRedis(options.redis), connectRedis(options.redis)]);
  const queue = new Queue<EvaluationJobData, JobOutcome>(name, { connection: queueConnection as never });
  const events = new QueueEvents(name, { connection: eventsConnection as never });
  queue.on('error', () => {});
  events.on('error', () => {});
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  // This invocation's jobs: an earlier invocation's results are never taken for them.
  const key = `${runKey(options)}-${randomUUID().slice(0, 8)}`;
  const queued = new Set<string>();
  // API keys never go on the queue: workers read their own.
  const config = recordedConfig(options.config) as unknown as SpadeConfig;

  const evaluate: Evaluator = async (program, taskSeed, ctx) => {
    const data: EvaluationJobData = { config, job: toEvaluationJob(program, taskSeed, ctx) };
    const id = jobId(key, ctx.suite, program.id);
    queued.add(id);
    const job = await queue.add('evaluate', data, {
      jobId: id,
      attempts: 1 + (options.jobRetries ?? 2),
      backoff: { type: 'fixed', delay: 500 },
      removeOnComplete: { age: 3600 },
      removeOnFail: { age: 24 * 3600 },
    });
    // After an abort (Ctrl-C) jobs a worker has taken finish, as in-thread evaluations do; the others are withdrawn.
    const outcome = await waitForOutcome<JobOutcome>({
      waitUntilFinished: (ttl) => job.waitUntilFinished(events, ttl) as Promise<JobOutcome>,
      async latest() {
        const now = await queue.getJob(job.id!);
        if (!now) return undefined;
        return { state: await now.getState(), returnvalue: now.returnvalue, failedReason: now.failedReason };
      },
      async withdraw() {
        try {
          await job.remove();
          queued.delete(id);
          return true;
        } catch {
          return false; // a worker took it meanwhile (its lock refuses the removal)
        }
      },
    }, options.recheckMs, `${ctx.suite}/${program.id}`, ctx.signal);
    queued.delete(id);
    for (const work of outcome.fresh) deliverFreshWork(work, program, ctx);
    return unpackEvaluation(outcome.evaluation, program);
  };

  return {
    evaluate,
    workers: async () => (await queue.getWorkers()).length,
    async close() {
      // Jobs no worker has taken: removed (a taken one is locked, and remove() refuses it).
      await Promise.allSettled([...queued].map(async (id) => (await queue.getJob(id))?.remove()));
      await Promise.allSettled([events.close(), queue.close()]);
      await Promise.allSettled([queueConnection.quit(), eventsConnection.quit()]);
    },
  };
}
