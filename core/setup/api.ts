/**
 * run(): a whole run from a config, as `spade-bench run` does it, for scripts. It resolves the
 * config (defaults, then the given keys), checks every plugin id and API key before anything is
 * written, evaluates environments in worker threads (or on Redis workers), journals as it goes,
 * and writes results.json and report.html into `out`. The command line is this function plus
 * a config file, flags, a progress line and exit codes.
 */
import { accessSync, constants, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { RunResults } from '../results/results.js';
import { resolveConfig, validateConfig, type SpadeConfig, type UserConfig } from '../config/config.js';
import { valueAt } from '../config/schema.js';
import { flatten, INVOCATION_DEFAULTS, RESUMABLE_CHANGES, RUN_OPTIONS } from '../config/options.js';
import { UsageError } from '../errors.js';
import { createRegistry, resolveRunParts } from './setup.js';
import type { PluginRegistry, SandboxPlugin } from '../config/plugin.js';
import type { Language, Suite } from '../types.js';
import { withVerdictCache } from '../gate/verdict-cache.js';
import { executeRun } from '../run/run.js';
import { foldedPlays } from '../run/run-suite.js';
import type { ProgressEvent } from '../run/run-setup.js';
import type { Evaluator } from '../run/evaluate.js';
import { hasJournal, journalRecords, journalStart } from '../results/journal.js';
import { PriorWork } from '../results/resume.js';
import { versions } from '../results/versions.js';
import { applyShard, parseShard, readShard, shardLabel, type Shard } from '../scale/shard.js';
import { createThreadPool } from '../scale/thread-pool.js';
import { renderReport } from './builtins.js';
import { makeFolder } from '../results/fs.js';

/** How one run is carried out; none of it is recorded in the run's config. */
export interface RunOptions {
  /** Folder that relative paths of the config (out, plugins, corpus) are relative to. Default: the current folder. */
  cwd?: string;
  /** Continue the run journaled in `out`, with the config it was started with (only `out` and `providers` are read from `config`). */
  resume?: boolean;
  /** With `resume`: do again the episodes, design slots and hints whose model or plugin call failed. */
  retryErrored?: boolean;
  /** The validation gate and the pool metrics only, no agent. */
  validateOnly?: boolean;
  /** Worker threads for agents that run offline (default: one per core). */
  workers?: number;
  /** The deterministic slice `i/n` of the run, 1 <= i <= n (`spade-bench merge` combines them). */
  shard?: string;
  /** Evaluate environments on `spade-bench worker` processes through BullMQ on this Redis URL. */
  redis?: string;
  /** Stops the run: work in flight finishes, and results.json is written with `"complete": false`. */
  signal?: AbortSignal;
  /** Progress as the run goes (suites, rounds, environments, episodes). */
  onProgress?: (event: ProgressEvent) => void;
  /** Told once the run is set up, before any environment is evaluated. */
  onStart?: (start: RunStart) => void;
}

/** What a run is about to do. */
export interface RunStart {
  config: SpadeConfig;
  /** The output folder, absolute. */
  outDir: string;
  designerLabel: string;
  agentLabel: string;
  /** Where environments are evaluated: `2 worker threads`, `main thread`, `3 workers on host:6379 now`. */
  evaluatedBy: string;
  /** Model calls in flight now and the most allowed at once, over the run's providers (none: the roles are offline). */
  calls?: () => { inFlight: number; limit: number; retrying?: number };
}

/** Create `dir` (or check it) and make sure files can be written in it; a folder that holds a run is refused unless resuming. */
export function prepareOutDir(dir: string, { resume = false } = {}): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`--out ${dir} is a file: a run is written into a folder (a new one, or one holding a run to --resume)`);
  if (existsSync(dir)) {
    if (!resume && (hasJournal(dir) || readdirSync(dir).includes('results.json'))) {
      throw new UsageError(`${dir} already holds a run: use --resume to continue it, or choose another --out`);
    }
  } else {
    try {
      makeFolder(dir);
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

/** The file that marks a run folder in use by a run (its pid and host), while the run writes there. */
const RUN_LOCK_FILE = 'run.lock';

/**
 * Take `dir` for this process's run: two runs writing one folder (a second `run`, or `--resume`
 * while the first goes on) would interleave their journals and lose episodes. A lock left by a
 * process that is gone (killed) is taken over. Returns the release (idempotent).
 */
function lockRunFolder(dir: string): () => void {
  const file = path.join(dir, RUN_LOCK_FILE);
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() });
  for (let tries = 0; ; tries++) {
    try {
      writeFileSync(file, `${mine}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) throw error;
      let holder: { pid?: number; host?: string; since?: string } = {};
      try {
        holder = JSON.parse(readFileSync(file, 'utf8')) as typeof holder;
      } catch {
        // unreadable: a lock half written by a process that died
      }
      if (holder.host === hostname() && typeof holder.pid === 'number' && processAlive(holder.pid)) {
        throw new UsageError(`${dir} is in use by another spade-bench run (pid ${holder.pid}, since ${holder.since}): wait for it to end, or choose another --out (if that process is no spade-bench run, delete ${file})`);
      }
      if (holder.host !== undefined && holder.host !== hostname()) {
        throw new UsageError(`${dir} is in use by a spade-bench run on ${holder.host} (pid ${holder.pid}, since ${holder.since}); if that run is gone, delete ${file}`);
      }
      rmSync(file, { force: true });
    }
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    try {
      if (readFileSync(file, 'utf8').trim() === mine) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Each key path a user config sets, with its value (`selfplay.rounds`: 3). */
function setKeys(config: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(config).flatMap(([key, value]) => {
    const at = `${prefix}${key}`;
    const entry = flatten(RUN_OPTIONS).some((o) => o.path.startsWith(`${at}.`));
    return entry && value !== null && typeof value === 'object' && !Array.isArray(value) ? setKeys(value as Record<string, unknown>, `${at}.`) : [[at, value]];
  });
}


/** How a key path is given on the command line (`--rounds`), or in the config (`limits.memoryMb`). */
const spelled = (keyPath: string): string => {
  const flag = flatten(RUN_OPTIONS).find((o) => o.path === keyPath)?.option.flag;
  return flag ? `--${flag}` : keyPath;
};

/**
 * A journaled run to continue: its folder, and whether its errored work is done again. Its work
 * is read from the journal (PriorWork) once the run knows its suites: what a suite keeps of the
 * work done before the stop depends on what its results read (foldedPlays).
 */
export interface ResumedJournal {
  dir: string;
  retryErrored: boolean;
}

/**
 * The config a journaled run was started with (its `start` line), and the journal to continue.
 * API keys are never journaled: provider settings come from today's `providers`. `changes`
 * (today's flags) may set what cannot change results (RESUMABLE_CHANGES: applied, each told to
 * `onApplied`); any other setting that differs from the run's refuses the resume, listing the
 * differences.
 */
export function resumedRun(
  out: string | undefined,
  cwd: string,
  providers: SpadeConfig['providers'] = {},
  options: { retryErrored?: boolean; changes?: UserConfig; onApplied?: (line: string) => void } = {},
): { config: SpadeConfig; resumed: ResumedJournal } {
  if (!out) throw new UsageError('--resume needs --out DIR, the folder of the run to continue');
  const outDir = path.resolve(cwd, out);
  const start = journalStart(outDir);
  if (!start) throw new UsageError(`${outDir} holds no journal of a run to resume`);
  // Keys added since the run started take their defaults.
  const config = resolveConfig({ ...validateConfig(start.config, `${out}/journal.jsonl`), providers, out });
  const differences: string[] = [];
  const applied: [string, unknown, unknown][] = [];
  for (const [keyPath, value] of setKeys({ ...(options.changes ?? {}), out: undefined, providers: undefined })) {
    if (value === undefined) continue;
    const was = valueAt(config, keyPath);
    if (JSON.stringify(was) === JSON.stringify(value)) continue;
    if ((RESUMABLE_CHANGES as readonly string[]).includes(keyPath)) applied.push([keyPath, value, was]);
    else differences.push(`  ${spelled(keyPath)} ${JSON.stringify(value)} (the run's: ${was === undefined ? 'unset' : JSON.stringify(was)})`);
  }
  if (differences.length) {
    throw new UsageError(
      `--resume continues ${out} with the settings it started with, and these differ:\n${differences.join('\n')}\n` +
        `Drop them to continue it, or start a new run in another --out. (${RESUMABLE_CHANGES.map(spelled).join(', ')} may change on resume.)`,
    );
  }
  for (const [keyPath, value, was] of applied) {
    const keys = keyPath.split('.');
    let at = config as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
    at[keys.at(-1)!] = value;
    options.onApplied?.(`--resume: ${spelled(keyPath)} ${JSON.stringify(value)} applied (the run started with ${was === undefined ? 'none' : JSON.stringify(was)})`);
  }
  return { config, resumed: { dir: outDir, retryErrored: options.retryErrored ?? false } };
}

/**
 * The work journaled in a run to continue, read as a stream, as the run keeps it for its suites:
 * the environments of a suite that needs nothing of them but their plays folded (foldedPlays)
 * are kept folded once evaluated whole, without their episodes.
 */
export function priorWork(resumed: ResumedJournal, suites: readonly Suite[], config: SpadeConfig, validateOnly = false): PriorWork {
  const folds = new Map(suites.map((suite) => [suite.id, foldedPlays(suite, config, validateOnly)]));
  return new PriorWork(journalRecords(resumed.dir), { retryErrored: resumed.retryErrored, foldedPlays: (suite) => folds.get(suite) });
}

/** host:port of a Redis URL, without its credentials. */
function redisHost(url: string): string {
  try {
    return new URL(url).host || 'Redis';
  } catch {
    return 'Redis';
  }
}

const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * A run stopped by wrong input (a malformed dataset line, a missing field) before any work was
 * journaled leaves nothing behind: its journal, results and report say only that it did not
 * start, and would make the same --out be refused as "already holds a run". The folder goes too
 * when this run made it.
 */
function discardUnstartedRun(outDir: string, madeFolder: boolean): boolean {
  const journal = path.join(outDir, 'journal.jsonl');
  let lines: string[];
  try {
    lines = readFileSync(journal, 'utf8').split('\n').filter((l) => l.trim());
  } catch {
    lines = [];
  }
  const work = lines.some((line) => {
    try {
      return !['start', 'end'].includes((JSON.parse(line) as { type?: string }).type ?? '');
    } catch {
      return true;
    }
  });
  if (work) return false;
  for (const file of ['journal.jsonl', 'results.json', 'report.html']) rmSync(path.join(outDir, file), { force: true });
  if (madeFolder && readdirSync(outDir).length === 0) rmSync(outDir, { recursive: true, force: true });
  return true;
}

/** The sandbox a language's programs run in, and its fingerprint (undefined: none chosen, or it gives none). */
async function sandboxFingerprint(registry: PluginRegistry, config: SpadeConfig, language: Language): Promise<{ id: string; fingerprint: string } | undefined> {
  const id = language === 'python' ? config.pythonSandbox : config.sandbox;
  if (!id) return undefined;
  const { plugin } = await registry.resolve('sandbox', id);
  const fingerprint = await (plugin as SandboxPlugin).fingerprint?.();
  return fingerprint ? { id, fingerprint } : undefined;
}

/**
 * The shard a run plays: --shard, or, for a resumed run, the one its folder records (shard.json).
 * A resumed shard without --shard is that shard, not the whole run (which merge would count
 * twice); a --shard that differs from the recorded one is refused.
 */
function shardOf(flag: string | undefined, resumedDir: string | undefined): Shard | undefined {
  const given = flag ? parseShard(flag) : undefined;
  const recorded = resumedDir ? readShard(resumedDir) : undefined;
  if (given && resumedDir && !recorded) throw new UsageError(`--shard ${shardLabel(given)}: ${resumedDir} holds a whole run, not a shard; resume it without --shard`);
  if (given && recorded && (given.index !== recorded.index || given.count !== recorded.count)) {
    throw new UsageError(`--shard ${shardLabel(given)}: ${resumedDir} holds shard ${shardLabel(recorded)} of a run; resume it as that shard (leave --shard out)`);
  }
  return given ?? recorded;
}

/**
 * Carry out a run whose config is resolved: plugins and keys checked, output folder prepared,
 * environments spread over threads or Redis workers, journal, results and report written.
 */
export async function runResolved(config: SpadeConfig, options: RunOptions & { resumed?: ResumedJournal } = {}): Promise<RunResults> {
  const cwd = options.cwd ?? process.cwd();
  const { resumed } = options;
  let prior: PriorWork | undefined;
  const workers = options.workers ?? INVOCATION_DEFAULTS.workers;
  if (!(Number.isInteger(workers) && workers > 0)) throw new UsageError(`--workers: expected a positive integer, got ${workers}`);
  const shard = shardOf(options.shard, resumed?.dir);
  const registry = createRegistry(cwd);
  const parts = await resolveRunParts(registry, config);
  let scaler: { evaluate: Evaluator; close(): Promise<void> } | undefined;
  // Threads, queue connections and sandboxes are freed once the last suite is played (its
  // metrics, results and report need none of them), and again on the way out (a no-op then).
  let released: Promise<void> | undefined;
  const release = (): Promise<void> => (released ??= (async () => {
    await scaler?.close();
    await parts.sandboxes.close();
  })());
  const outDir = path.resolve(cwd, config.out);
  const madeFolder = !existsSync(outDir);
  let prepared = false;
  let unlock = (): void => {};
  try {
    prepareOutDir(outDir, { resume: Boolean(resumed) });
    unlock = lockRunFolder(outDir);
    prepared = true;
    const { suites, selfplay } = shard ? applyShard(parts, shard, outDir) : parts;
    // Environments are evaluated by worker threads (one per core), or by remote workers on Redis.
    let evaluatedBy: string;
    if (options.redis) {
      const { createDistributedEvaluator } = await import('../scale/distributed-evaluator.js');
      const distributed = await createDistributedEvaluator({ redis: options.redis, config, outDir, validateOnly: options.validateOnly });
      scaler = distributed;
      evaluatedBy = `${count(await distributed.workers(), 'worker')} on ${redisHost(options.redis)} now`;
    } else {
      // Threads start now for an agent that plays in them, so they load while the run sets up.
      const pool = createThreadPool({ config, workers, cwd, start: parts.agent.workerThreads });
      scaler = pool;
      evaluatedBy = parts.agent.workerThreads ? count(pool.workers, 'worker thread') : 'main thread';
    }
    // The journal's work, read as a stream while the threads start: the environments of a suite
    // that needs no episodes of them are kept folded once evaluated whole, so what is kept is
    // bounded by the work that was in flight at the stop, not by the work done before it.
    if (resumed) prior = priorWork(resumed, suites, config, options.validateOnly);
    const providers = parts.providers.filter((p) => p.inFlight && p.requestsInFlight);
    const calls = providers.length
      ? () => ({ inFlight: providers.reduce((n, p) => n + p.inFlight!(), 0), limit: providers.reduce((n, p) => n + p.requestsInFlight!, 0), retrying: providers.reduce((n, p) => n + (p.retrying?.() ?? 0), 0) })
      : undefined;
    options.onStart?.({ config, outDir, designerLabel: parts.designer.label, agentLabel: parts.agent.label, evaluatedBy, ...(calls && { calls }) });
    return await executeRun({
      config,
      runId: prior?.runId ?? path.basename(outDir),
      prior,
      validateOnly: options.validateOnly,
      designer: parts.designer,
      agent: parts.agent,
      sandboxes: parts.sandboxes,
      suites,
      selfplay,
      evaluator: config.cache === false ? scaler.evaluate : withVerdictCache(scaler.evaluate, { dir: path.resolve(cwd, config.verdictCacheDir), sandboxOf: (language) => sandboxFingerprint(registry, config, language) }),
      reviewer: parts.reviewer,
      hintWriter: parts.hintWriter,
      ...(parts.spadeCode ? { spadeCode: parts.spadeCode } : {}),
      outDir,
      versions: versions(),
      outsideUsage: parts.outsideUsage,
      latencyMark: parts.latencyMark,
      latencySince: parts.latencySince,
      onProgress: options.onProgress,
      signal: options.signal,
      renderReport,
      release,
    });
  } catch (error) {
    unlock();
    if (error instanceof UsageError && prepared && !resumed && discardUnstartedRun(outDir, madeFolder)) {
      // Nothing finished, and nothing is left: the run's "what finished is kept" would send the user to a folder that is gone.
      throw new UsageError(error.message.replace(`; what finished is kept in ${outDir}`, '; nothing was written'));
    }
    throw error;
  } finally {
    unlock();
    await release();
    await parts.close();
  }
}

/**
 * Run self-play and the static suites from `config` (every key optional: the offline default
 * when empty), and write results.json, report.html and journal.jsonl into `config.out`
 * (default `runs/<time>`). Resolves with the results; rejects with a UsageError for a wrong
 * config, plugin id or missing API key (before anything is written), or a RunStoppedError when
 * the run stopped early (`maxErrors`, a full disk), after writing what finished.
 */
export async function run(config: UserConfig = {}, options: RunOptions = {}): Promise<RunResults> {
  const cwd = options.cwd ?? process.cwd();
  if (options.retryErrored && !options.resume) throw new UsageError('retryErrored: only with resume (--retry-errored goes with --resume)');
  if (options.resume) {
    const given = validateConfig(config, 'run()');
    const { config: resumedConfig, resumed } = resumedRun(config.out, cwd, given.providers, { retryErrored: options.retryErrored, changes: given });
    return runResolved(resumedConfig, { ...options, resumed });
  }
  return runResolved(resolveConfig(validateConfig(config, 'run()')), options);
}
