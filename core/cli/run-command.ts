/**
 * `spade-bench run`: options, config resolution (file, then flags), and the run itself.
 */
import type { Argv } from 'yargs';
import { accessSync, constants, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { loadConfigFile, resolveConfig, validateConfig, type SpadeConfig, type UserConfig } from '../config.js';
import { UsageError, EXIT } from '../errors.js';
import { createRegistry, resolveRunParts } from '../setup.js';
import { executeRun } from '../run.js';
import { versions } from '../versions.js';
import { createProgress } from './progress.js';
import { readJournal } from '../journal.js';
import { PriorWork } from '../resume.js';
import { applyShard, parseShard } from '../scale/shard.js';
import { createThreadPool } from '../scale/thread-pool.js';

/** A numeric flag whose wrong value is reported as typed ("--rounds: expected a number, got \"many\""). */
const numeric = (flag: string) => (value: unknown): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value === 'boolean' || String(value).trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${flag}: expected a number, got ${JSON.stringify(value)}`);
  return n;
};

/** host:port of a Redis URL, without its credentials. */
function redisHost(url: string): string {
  try {
    return new URL(url).host || 'Redis';
  } catch {
    return 'Redis';
  }
}

export function runOptions(y: Argv): Argv {
  return y
    .strictOptions()
    .option('config', { type: 'string', describe: 'Config file (default: spade.config.{ts,mts,mjs,js,json} or the "spade" key of package.json in this folder)' })
    .option('out', { type: 'string', describe: 'Output folder for results.json, report.html and journal.jsonl [default: runs/<time>]' })
    .option('seed', { type: 'string', coerce: numeric('seed'), describe: 'Run seed: the same seed gives the same run [default: 1]' })
    .option('rounds', { type: 'string', coerce: numeric('rounds'), describe: 'Self-play rounds [default: 3]' })
    .option('envs-per-round', { type: 'string', coerce: numeric('envs-per-round'), describe: 'Environments the designer writes each round [default: 16]' })
    .option('attempts', { type: 'string', coerce: numeric('attempts'), describe: 'Episodes per environment (self-play plays as many again with the hint) [default: 4]' })
    .option('reward', { type: 'string', describe: 'Designer reward: spade, solve-rate, learnability or uncertainty [default: spade]' })
    .option('language', { type: 'string', describe: 'Language an LLM designer writes: python or javascript [default: python]' })
    .option('corpus', { type: 'string', describe: 'JSONL file with a "text" field; one sampled document grounds each LLM design' })
    .option('repairs', { type: 'string', coerce: numeric('repairs'), describe: 'Repairs of a rejected program, with the gate\'s reason fed back [default: 1]' })
    .option('validator', { type: 'string', describe: 'Provider id of an LLM reviewer run after the gate (its verdicts are recorded apart)' })
    .option('agent-memory', { type: 'string', describe: 'How an LLM agent keeps long episodes: full, window:K or summary[:K] [default: full]' })
    .option('suites', { type: 'string', describe: 'Comma-separated suites; "spade" is the self-play pool [default: spade,procedural]' })
    .option('designer', { type: 'string', describe: 'Designer: "reference" (offline) or a provider id such as openai:gpt-4.1-mini' })
    .option('agent', { type: 'string', describe: 'Agent: "reference" (offline) or a provider id' })
    .option('sandbox', { type: 'string', describe: 'Sandbox for JavaScript environments: isolated-vm or vm2 [default: isolated-vm]' })
    .option('python-sandbox', { type: 'string', describe: "Sandbox for Python environments: cpython (Debian's CPython with numpy, networkx, sympy, in a bubblewrap jail) or pyodide [default: cpython where its jail works, else pyodide]" })
    .option('concurrency', { type: 'string', coerce: numeric('concurrency'), describe: 'Environments evaluated at once [default: 8]' })
    .option('limit', { type: 'string', coerce: numeric('limit'), describe: 'At most N tasks per static suite' })
    .option('data-dir', { type: 'string', describe: 'Dataset cache folder [default: ~/.cache/spade-bench]' })
    .option('max-errors', { type: 'string', describe: 'Stop cleanly (exit 3, results kept, resumable) after N errored episodes, or a share such as 20% (after 20 episodes)' })
    .option('workers', { type: 'string', coerce: numeric('workers'), describe: 'Worker threads that run sandboxes and the reference agent [default: one per core]' })
    .option('shard', { type: 'string', describe: 'Run the deterministic slice i of n ("i/n", from 0): static tasks by index modulo n; self-play in shard 0 only. Combine with "spade-bench merge"' })
    .option('redis', { type: 'string', describe: 'Fan the run out to "spade-bench worker" processes through BullMQ on this Redis (redis://host:port)' })
    .option('skip-bad', { type: 'boolean', describe: 'Skip malformed dataset lines and report how many, instead of stopping at the first' })
    .option('resume', { type: 'boolean', describe: 'Continue the run journaled in --out (after a crash, a kill or Ctrl-C): finished work is kept, the rest is done, with the config the run started with' })
    .option('validate-only', { type: 'boolean', describe: 'Run the validation gate and the pool metrics (validity, diversity) without any agent' })
    .option('cache', { type: 'boolean', describe: 'Cache model responses on disk (--no-cache to bypass) [default: true]' });
}

export interface RunArgs {
  config?: string;
  out?: string;
  seed?: number;
  rounds?: number;
  envsPerRound?: number;
  attempts?: number;
  reward?: string;
  language?: string;
  corpus?: string;
  repairs?: number;
  validator?: string;
  agentMemory?: string;
  suites?: string;
  designer?: string;
  agent?: string;
  sandbox?: string;
  pythonSandbox?: string;
  concurrency?: number;
  limit?: number;
  dataDir?: string;
  skipBad?: boolean;
  maxErrors?: string;
  cache?: boolean;
  resume?: boolean;
  validateOnly?: boolean;
  workers?: number;
  shard?: string;
  redis?: string;
}

/** CLI flags as a partial config, validated with the same schema as the file. */
export function flagsToConfig(args: RunArgs): UserConfig {
  const flags: Record<string, unknown> = {
    out: args.out,
    seed: args.seed,
    suites: args.suites?.split(',').map((s) => s.trim()).filter(Boolean),
    designer: args.designer,
    agent: args.agent,
    sandbox: args.sandbox,
    pythonSandbox: args.pythonSandbox,
    concurrency: args.concurrency,
    limit: args.limit,
    dataDir: args.dataDir,
    skipBad: args.skipBad,
    maxErrors: args.maxErrors !== undefined && /^\d+$/.test(args.maxErrors) ? Number(args.maxErrors) : args.maxErrors,
    cache: args.cache,
  };
  const selfplay = {
    rounds: args.rounds,
    envsPerRound: args.envsPerRound,
    attempts: args.attempts,
    reward: args.reward,
    language: args.language,
    corpus: args.corpus,
    repairs: args.repairs,
    validator: args.validator,
  };
  flags.agentMemory = args.agentMemory;
  if (Object.values(selfplay).some((v) => v !== undefined)) flags.selfplay = selfplay;
  for (const key of Object.keys(selfplay) as (keyof typeof selfplay)[]) if (selfplay[key] === undefined) delete selfplay[key];
  for (const key of Object.keys(flags)) if (flags[key] === undefined) delete flags[key];
  // NaN from a non-numeric flag fails validation with the flag's key path.
  return validateConfig(flags, 'command line');
}

export async function resolveRunConfig(args: RunArgs, cwd = process.cwd()): Promise<{ config: SpadeConfig; configFile?: string }> {
  const { config: file, filepath } = await loadConfigFile(cwd, args.config);
  const config = resolveConfig(file, flagsToConfig(args));
  if (!file.out && !args.out) config.out = path.join('runs', new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19));
  return { config, configFile: filepath };
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
  const { config: file } = await loadConfigFile(cwd, args.config);
  const config = { ...(validateConfig(prior.config, `${args.out}/journal.jsonl`) as SpadeConfig), providers: file.providers ?? {}, out: args.out };
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
    progress.log(`spade-bench: designer ${parts.designer.label}; agent ${parts.agent.label}; sandbox ${config.sandbox}, Python ${config.pythonSandbox} (${where}); out ${shown(outDir)}`);
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
