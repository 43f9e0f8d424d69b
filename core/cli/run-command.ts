/**
 * `spade-bench run`: config resolution (file, then flags, both from the table of options), and the run itself.
 */
import { accessSync, constants, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { loadConfigFile, resolveConfig, validateConfig, type RenamedKey, type SpadeConfig } from '../config.js';
import { UsageError, EXIT } from '../errors.js';
import { createRegistry, resolveRunParts } from '../setup.js';
import { executeRun } from '../run.js';
import { versions } from '../versions.js';
import { createProgress } from './progress.js';
import { readJournal } from '../journal.js';
import { PriorWork } from '../resume.js';
import { applyShard, parseShard } from '../scale/shard.js';
import { createThreadPool } from '../scale/thread-pool.js';
import { flagsToConfig, runOptions, type RunArgs } from './run-options.js';

export { flagsToConfig, runOptions, type RunArgs };

/** host:port of a Redis URL, without its credentials. */
function redisHost(url: string): string {
  try {
    return new URL(url).host || 'Redis';
  } catch {
    return 'Redis';
  }
}

/** A key or flag given under its older name still works, with a line saying the new one. */
const warnRenamed = (key: RenamedKey): void => {
  process.stderr.write(`spade-bench: ${key.from} is an old name: use ${key.to}\n`);
};

/** The config of a new run: defaults, then the config file, then the flags. */
export async function resolveRunConfig(args: RunArgs, cwd = process.cwd()): Promise<{ config: SpadeConfig; configFile?: string }> {
  const { config: file, filepath } = await loadConfigFile(cwd, args.config, warnRenamed);
  return { config: resolveConfig(file, flagsToConfig(args, warnRenamed)), configFile: filepath };
}

/** Create `dir` (or check it) and make sure files can be written in it. */
export function prepareOutDir(dir: string, { resume = false } = {}): void {
  if (existsSync(dir)) {
    if (!resume && readdirSync(dir).some((f) => f === 'journal.jsonl' || f === 'results.json')) {
      throw new UsageError(`${dir} already holds a run: use --resume to continue it, or choose another --out`);
    }
  } else {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw new UsageError(`cannot create output folder ${dir}: ${(error as Error).message}`);
    }
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`output folder ${path.resolve(dir)} is not writable`);
  }
}

/** For --resume: the journal in --out and the config the run was started with. */
async function resumeConfig(args: RunArgs, cwd: string): Promise<{ config: SpadeConfig; prior: PriorWork }> {
  if (!args.out) throw new UsageError('--resume needs --out DIR, the folder of the run to continue');
  const outDir = path.resolve(cwd, args.out);
  const prior = new PriorWork(readJournal(outDir));
  if (!prior.config) throw new UsageError(`${outDir} holds no journal of a run to resume`);
  // API keys are never journaled: provider settings come from today's config file and environment.
  const { config: file } = await loadConfigFile(cwd, args.config, warnRenamed);
  // Keys added since the run started take their defaults; keys renamed since are read under their new names.
  const config = resolveConfig({ ...validateConfig(prior.config, `${args.out}/journal.jsonl`), providers: file.providers ?? {}, out: args.out });
  return { config, prior };
}

export async function runCommand(args: RunArgs): Promise<number> {
  const cwd = process.cwd();
  // Paths inside the working folder are shown relative to it, others in full.
  const shown = (file: string): string => {
    const relative = path.relative(cwd, file);
    return relative.startsWith('..') ? file : relative || '.';
  };
  const { config, prior } = args.resume ? await resumeConfig(args, cwd) : { ...(await resolveRunConfig(args, cwd)), prior: undefined };
  if (args.workers !== undefined && !(Number.isInteger(args.workers) && args.workers > 0)) throw new UsageError(`--workers: expected a positive integer, got ${args.workers}`);
  const shard = args.shard ? parseShard(args.shard) : undefined;
  const registry = createRegistry(cwd);
  const parts = await resolveRunParts(registry, config);
  const outDir = path.resolve(cwd, config.out);
  prepareOutDir(outDir, { resume: Boolean(prior) });
  const { suites, selfplay } = shard ? applyShard(parts, shard, outDir) : parts;
  // Environments are evaluated by worker threads (one per core), or by remote workers on Redis.
  const scaler = args.redis
    ? await (await import('../scale/distributed-evaluator.js')).createDistributedEvaluator({ redis: args.redis, config, outDir, validateOnly: args.validateOnly })
    : createThreadPool({ config, workers: args.workers, cwd });

  const progress = createProgress();
  const controller = new AbortController();
  let signalName: NodeJS.Signals | undefined;
  const onSignal = (name: NodeJS.Signals): void => {
    if (signalName) process.exit(name === 'SIGINT' ? EXIT.sigint : EXIT.sigterm); // second signal: at once
    signalName = name;
    progress.log(`${name}: stopping; in-flight work finishes, partial results are written (again to exit at once)`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const started = performance.now();
  try {
    // Where environments are evaluated: the offline agent's go to threads or queue workers; a model-driven agent's stay here.
    const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
    const where = typeof scaler.workers === 'function'
      ? `${count(await scaler.workers(), 'worker')} on ${redisHost(args.redis!)} now`
      : parts.agent.kind === 'reference' ? count(scaler.workers, 'worker thread') : 'main thread';
    progress.log(`spade-bench: designer ${parts.designer.label}; agent ${parts.agent.label}; sandbox ${config.sandbox} (${where}); out ${shown(outDir)}`);
    const results = await executeRun({
      config,
      runId: prior?.runId ?? path.basename(outDir),
      prior,
      validateOnly: args.validateOnly,
      designer: parts.designer,
      agent: parts.agent,
      sandboxes: parts.sandboxes,
      suites,
      selfplay,
      evaluator: scaler.evaluate,
      reviewer: parts.reviewer,
      outDir,
      versions: versions(),
      usage: parts.usage,
      latencyMark: parts.latencyMark,
      latencySince: parts.latencySince,
      onProgress: (e) => progress.onEvent(e),
      signal: controller.signal,
    });
    progress.done();
    const wall = (performance.now() - started) / 1000;
    const episodes = results.suites.reduce((n, s) => n + s.metrics.throughput.episodes, 0);
    const rel = (f: string): string => shown(path.join(outDir, f));
    process.stdout.write(
      `${results.run.complete ? 'done' : 'stopped early (partial results, "complete": false)'} in ${wall.toFixed(1)} s: ${episodes} episodes (${(episodes / wall).toFixed(0)}/s)\n` +
        `  results  ${rel('results.json')}\n  report   ${rel('report.html')}\n  journal  ${rel('journal.jsonl')}\n`,
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await scaler.close();
    await parts.close();
  }
  if (signalName) return signalName === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
  return EXIT.ok;
}
