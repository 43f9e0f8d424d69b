/**
 * `spade-bench bench RUN_DIR`: what an RL trainer pays per step. Each valid environment of the
 * run is loaded in its sandbox and its `reset` and `reset`+`step` are timed with tinybench.
 */
import { resolveConfig, validateConfig } from '../config/config.js';
import { EXIT, UsageError } from '../errors.js';
import { createRegistry, createSandboxSet } from '../setup/setup.js';
import type { Language } from '../types.js';
import { percentiles } from '../metrics/percentiles.js';
import { readResults } from './report-command.js';
import type { FlagSpec, PositionalSpec } from './commands.js';
import { terminalLine } from './progress.js';

export const benchPositionals: PositionalSpec[] = [{ name: 'run', describe: 'A run folder (or its results.json)' }];

export const benchOptions: Record<string, FlagSpec> = {
  sandbox: { type: 'string', arg: 'ID', describe: 'Sandbox for JavaScript environments [default: the run\'s]' },
  'python-sandbox': { type: 'string', arg: 'ID', describe: 'Sandbox for Python environments [default: the run\'s]' },
  limit: { type: 'number', arg: 'N', describe: 'At most N environments per suite' },
  time: { type: 'number', arg: 'MS', default: 100, describe: 'Milliseconds of measurement per task' },
  json: { type: 'boolean', describe: 'Print JSON instead of a table' },
};

export interface BenchArgs {
  run?: string;
  sandbox?: string;
  pythonSandbox?: string;
  limit?: number;
  time?: number;
  json?: boolean;
}

export interface EnvironmentCost {
  suite: string;
  id: string;
  family?: string;
  /** Mean microseconds of reset(seed). */
  resetUs: number;
  /** Mean microseconds of one step after a fresh reset. */
  stepUs: number;
  samples: number;
  /** Why it could not be timed (it did not load, or reset or step threw): its figures are NaN. */
  error?: string;
}

export async function benchCommand(args: BenchArgs): Promise<number> {
  if (!args.run) throw new UsageError('bench: name a run folder');
  if (args.limit !== undefined && !(Number.isInteger(args.limit) && args.limit > 0)) throw new UsageError(`--limit: expected a positive integer, got ${args.limit}`);
  if (args.time !== undefined && !(args.time > 0)) throw new UsageError(`--time: expected a positive number of milliseconds, got ${args.time}`);
  const results = readResults(args.run);
  const recorded = results.run.config as { pythonSandbox?: unknown };
  const config = resolveConfig(
    validateConfig({ sandbox: args.sandbox ?? results.run.sandbox, pythonSandbox: args.pythonSandbox ?? (typeof recorded.pythonSandbox === 'string' ? recorded.pythonSandbox : undefined) }, 'command line'),
  );
  const sandboxes = createSandboxSet(createRegistry(), config);
  const costs: EnvironmentCost[] = [];
  try {
    for (const suite of results.suites) {
      const environments = suite.environments.filter((e) => e.verdict !== 'invalid').slice(0, args.limit ?? Infinity);
      for (const e of environments) {
        const sandbox = await sandboxes.get(e.language as Language);
        const failed = (error: unknown): void => void costs.push({ suite: suite.id, id: e.id, family: e.family, resetUs: NaN, stepUs: NaN, samples: 0, error: (error as Error).message ?? String(error) });
        // An environment that does not load here (another sandbox than the run's) is reported, and the rest timed.
        const env = await sandbox.load({ id: e.id, language: e.language as Language, source: e.source }, { maxCalls: Number.MAX_SAFE_INTEGER }).catch((error: unknown) => void failed(error));
        if (!env) continue;
        const action = e.sample?.steps[0]?.action ?? '\\boxed{0}';
        try {
          const { Bench } = await import('tinybench');
          const bench = new Bench({ time: args.time ?? 100, warmupTime: 20 });
          bench.add('reset', async () => void (await env.reset(1)));
          // Each step is timed alone, from a fresh reset done outside the measurement.
          bench.add('step', async () => void (await env.step(action)), { beforeEach: async () => void (await env.reset(1)) });
          await bench.run();
          const [reset, step] = bench.tasks.map((t) => t.result as { latency?: { mean: number; samplesCount?: number }; error?: unknown } | undefined);
          const thrown = reset?.error ?? step?.error;
          if (thrown) {
            failed(thrown);
            continue;
          }
          costs.push({ suite: suite.id, id: e.id, family: e.family, resetUs: (reset?.latency?.mean ?? NaN) * 1000, stepUs: (step?.latency?.mean ?? NaN) * 1000, samples: step?.latency?.samplesCount ?? 0 });
        } finally {
          await env.dispose();
        }
      }
    }
  } finally {
    await sandboxes.close();
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify(costs, null, 2)}\n`);
    return EXIT.ok;
  }
  const lines = ['suite        environment                 family                 reset µs   step µs'];
  for (const c of costs) {
    const figures = c.error === undefined ? `${c.resetUs.toFixed(1).padStart(10)} ${c.stepUs.toFixed(1).padStart(9)}` : `  not timed: ${terminalLine(c.error.replace(/\s+/g, ' ')).slice(0, 160)}`;
    lines.push(`${c.suite.padEnd(12)} ${c.id.padEnd(27)} ${(c.family ?? '').padEnd(20)} ${figures}`);
  }
  for (const suite of [...new Set(costs.map((c) => c.suite))]) {
    const timed = costs.filter((c) => c.suite === suite && c.error === undefined).map((c) => c.stepUs);
    const untimed = costs.filter((c) => c.suite === suite && c.error !== undefined).length;
    const [p50, p95] = percentiles(timed, [50, 95]);
    const figures = timed.length ? `, step p50 ${p50!.toFixed(1)} µs, p95 ${p95!.toFixed(1)} µs` : '';
    lines.push(`${suite}: ${timed.length} environments timed${figures}${untimed ? `; ${untimed} not timed (above)` : ''}`);
  }
  if (costs.length === 0) lines.push(`${args.run}: no valid environment to time (the run has none, or --limit left none)`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
