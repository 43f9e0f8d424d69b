/**
 * `spade-bench worker --redis URL`: a worker of distributed runs. It takes environment
 * evaluations from the queue on that Redis until stopped (Ctrl-C or SIGTERM finish the jobs in
 * hand first). Start one per core, on as many machines as you like; `spade-bench run --redis
 * URL` on any machine fans its jobs out to them.
 */
import type { Argv } from 'yargs';
import { EXIT, UsageError } from '../errors.js';

export interface WorkerArgs {
  redis?: string;
  concurrency?: number;
  lockDuration?: number;
  stalledInterval?: number;
  name?: string;
}

export function workerOptions(y: Argv): Argv {
  return y
    .strictOptions()
    .option('redis', { type: 'string', demandOption: true, describe: 'Redis URL of the queue, e.g. redis://127.0.0.1:6379' })
    .option('concurrency', { type: 'number', describe: 'Jobs at once in this process [default: 1; start one worker per core instead]' })
    .option('lock-duration', { type: 'number', describe: 'Milliseconds a job stays locked without renewal: a dead worker\'s job is retried after this [default: 30000]' })
    .option('stalled-interval', { type: 'number', describe: 'Milliseconds between checks for jobs of dead workers [default: 30000]' })
    .option('name', { type: 'string', describe: 'Name recorded on the jobs this worker takes [default: host-pid]' });
}

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
    concurrency: positive('concurrency', args.concurrency),
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
  process.stderr.write(`spade-bench worker: taking jobs from ${args.redis} (Ctrl-C to stop)\n`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  process.stderr.write(`spade-bench worker: ${signal}: finishing the jobs in hand\n`);
  await worker.close();
  process.stderr.write(`spade-bench worker: stopped after ${done} job(s)${failed ? `, ${failed} failed` : ''}\n`);
  return signal === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
}
