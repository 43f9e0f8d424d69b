/**
 * `spade-bench worker --redis URL`: a worker of distributed runs. It takes environment
 * evaluations from the queue on that Redis until stopped (Ctrl-C or SIGTERM finish the jobs in
 * hand first). Start one per core, on as many machines as you like; `spade-bench run --redis
 * URL` on any machine fans its jobs out to them.
 */
import { EXIT, UsageError } from '../errors.js';
import { WORKER_OPTIONS } from '../config/options.js';
import { flagOption } from './run-options.js';
import type { FlagSpec } from './commands.js';
import { shownRedisUrl } from '../scale/redis-connection.js';

export interface WorkerArgs {
  redis?: string;
  jobsInFlight?: number;
  lockDuration?: number;
  stalledInterval?: number;
  name?: string;
}

export const workerOptions: Record<string, FlagSpec> = Object.fromEntries(
  Object.values(WORKER_OPTIONS).map((option) => [option.flag!, { ...flagOption(option), demandOption: option.flag === 'redis' }]),
);

const positive = (flag: string, value: number | undefined): number | undefined => {
  if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw new UsageError(`--${flag}: expected a positive number, got ${JSON.stringify(value)}`);
  return value;
};

export async function workerCommand(args: WorkerArgs): Promise<number> {
  if (!args.redis) throw new UsageError('--redis URL is required');
  let done = 0;
  let failed = 0;
  const { startQueueWorker } = await import('../scale/queue-worker.js');
  const worker = await startQueueWorker({
    redis: args.redis,
    jobsInFlight: positive('jobs-in-flight', args.jobsInFlight),
    lockDurationMs: positive('lock-duration', args.lockDuration),
    stalledIntervalMs: positive('stalled-interval', args.stalledInterval),
    name: args.name,
    onJob: (job) => {
      if (job.ok) done++;
      else {
        failed++;
        process.stderr.write(`spade-bench worker: ${job.environment} failed: ${job.error}\n`);
      }
    },
  });
  process.stderr.write(`spade-bench worker: taking jobs from ${shownRedisUrl(args.redis)} (Ctrl-C to stop)\n`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  process.stderr.write(`spade-bench worker: ${signal}: finishing the jobs in hand\n`);
  await worker.close();
  process.stderr.write(`spade-bench worker: stopped after ${done} job(s)${failed ? `, ${failed} failed` : ''}\n`);
  return signal === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
}
