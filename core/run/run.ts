/**
 * A run: the self-play pool and each static suite, played by the same agent in the same
 * sandbox, journaled as it goes, summed up into `results.json` and `report.html`.
 */
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import type { CurriculumPool, Suite } from '../types.js';
import type { RunErrors, RunInfo, RunResults } from '../results/results.js';
import { SCHEMA_VERSION } from '../results/results.js';
import type { SpadeConfig } from '../config/config.js';
import { evaluateEnvironment } from './evaluate.js';
import { episodeRecord, Journal } from '../results/journal.js';
import { emptyUsage } from '../providers/stats.js';
import { AtomicFile } from '../results/fs.js';
import { writeResults } from '../results/results-file.js';
import { RunFailedError, RunStoppedError, UsageError } from '../errors.js';
import { ErrorTally, episodeErrorClass, exceedsAllowance, isFatal, isRunFailure, type ErrorAllowance } from './error-class.js';
import { addEqualSizeDiversity } from '../metrics/index.js';
import { runSuite, selfPlayPlan, staticPlan, type RunBooks } from './run-suite.js';
import { curriculumPlan } from '../curriculum/rounds.js';
import { turnBudget } from '../config/options.js';
import { playSlots } from './play-schedule.js';

export { SELFPLAY_SUITE, suiteResult } from './run-suite.js';

import type { ReportRenderer, RunSetup } from './run-setup.js';
import { gateLimits } from '../gate/gate.js';

/** The config as recorded in results, the journal and distributed jobs: API keys, headers and a URL's password never leave the process. */
export function recordedConfig(config: SpadeConfig): Record<string, unknown> {
  const providers = Object.fromEntries(
    Object.entries(config.providers).map(([id, p]) => [id, Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'apiKey' && k !== 'headers').map(([k, v]) => [k, withoutCredentials(v)]))]),
  );
  return JSON.parse(JSON.stringify({ ...config, providers })) as Record<string, unknown>;
}

/** A provider setting as it may be recorded: a URL (a baseURL) without the user name and password it may carry. */
function withoutCredentials(value: unknown): unknown {
  if (typeof value !== 'string' || !value.includes('@')) return value;
  try {
    const url = new URL(value);
    if (!url.username && !url.password) return value;
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return value;
  }
}

export async function executeRun(setup: RunSetup): Promise<RunResults> {
  const { config, prior } = setup;
  // The run stops on the caller's signal, on too many errored episodes, or on a journal write that fails.
  const stop = new AbortController();
  const signal = stop.signal;
  // Every episode in play and every model call in flight listens to it: hundreds at once are expected.
  setMaxListeners(0, signal);
  let stopReason: string | undefined;
  let stopError: string | undefined;
  let suiteError: Error | undefined;
  const halt = (reason: string, fatal: boolean): void => {
    if (stop.signal.aborted) return;
    stopReason = reason;
    if (fatal) stopError = reason;
    stop.abort();
  };
  if (setup.signal?.aborted) halt('interrupted', false);
  setup.signal?.addEventListener('abort', () => halt('interrupted', false), { once: true });
  // Model and plugin failures allowed (--max-errors; none by default), counting those a resumed run keeps.
  const allowance = parseMaxErrors(config.maxErrors);
  let failures = prior?.keptFailures ?? 0;
  let work = 0;
  if (prior && allowance.count !== undefined && failures > allowance.count) {
    throw new RunFailedError('kept', `${failures} errored piece(s) of work are journaled in ${setup.outDir} (model or plugin failures), more than --max-errors ${config.maxErrors ?? 0} allows: once the cause is fixed, continue with --resume --retry-errored, which does them again`);
  }
  /** The first failure past the allowance: the run stops, and ends with it. */
  let failure: { errorClass: string; message: string } | undefined;
  const tally = new ErrorTally();
  const countError = (errorClass: string, message: string): void => {
    work++;
    if (!isRunFailure(errorClass)) return;
    failures++;
    if (failure || !(isFatal(errorClass) || exceedsAllowance(allowance, failures, work))) return;
    failure = { errorClass, message };
    halt(`${errorClass}: ${message}`, false);
  };
  const journal = new Journal(setup.outDir, (error) =>
    halt(`cannot write the journal ${path.join(setup.outDir, 'journal.jsonl')}: ${error.code ?? error.message}${error.code === 'ENOSPC' ? ' (disk full)' : ''}; everything journaled before is kept: free space, then continue with --resume`, true),
  );
  const startedAt = prior?.startedAt ?? new Date().toISOString();
  const sandbox = await setup.sandboxes.get('javascript');
  const info: RunInfo = {
    id: setup.runId,
    startedAt,
    seed: config.seed,
    designer: setup.designer.id,
    designerLabel: setup.designer.label,
    designerKind: setup.designer.kind,
    agent: setup.agent.id,
    agentLabel: setup.agent.label,
    agentKind: setup.agent.kind,
    sandbox: sandbox.id,
    sandboxProtections: [...sandbox.protections],
    sandboxInsecure: sandbox.insecure ?? false,
    ...(config.pythonSandbox ? { pythonSandbox: config.pythonSandbox } : {}),
    versions: setup.versions,
    config: recordedConfig(config),
    complete: false,
    errors: { total: 0, failures: 0, classes: [] },
  };
  if (prior?.config) journal.append({ type: 'resume', at: new Date().toISOString(), journaled: prior.size, ...(prior.retryErrored ? { retryErrored: true } : {}) });
  else journal.append({ type: 'start', runId: info.id, startedAt, config: info.config });
  const results: RunResults = { schemaVersion: SCHEMA_VERSION, run: info, suites: [] };
  const evaluate = setup.evaluator ?? evaluateEnvironment;
  const emit = setup.onProgress ?? (() => {});

  const books: RunBooks = {
    journal,
    emit,
    prior,
    tally,
    onSlotError: (_suite, error) => countError(error.errorClass, error.message),
    outsideUsage: setup.outsideUsage ?? emptyUsage,
    latencyMark: setup.latencyMark ?? (() => []),
    latencySince: setup.latencySince ?? (() => []),
    context: (suite) => ({
      suite,
      sandboxes: setup.sandboxes,
      agent: setup.agent,
      // SPADE's 30 s a call under its gate, unless the config sets a call limit.
      limits: gateLimits(config.gate, config.limits),
      attempts: config.attempts,
      validateOnly: setup.validateOnly,
      gate: config.gate,
      maxTurns: turnBudget(config),
      seedPerAttempt: config.agentProtocol === 'spade',
      runSeed: config.seed,
      signal,
      prior,
      // A model-driven agent's episodes in play across the suite's environments (core/run/play-schedule.ts).
      plays: playSlots(setup.agent),
      onVerdict: (program, verdict) => journal.appendVerdict(suite, program.id, verdict),
      onEpisode: (episode) => {
        journal.append(episodeRecord(episode, config.transcripts));
        // The journal has its conversation now: nothing in the run reads it again.
        delete episode.messages;
        if (episode.outcome === 'errored') countError(episodeErrorClass(episode), episode.error ?? 'errored');
        else work++;
        emit({ type: 'episode', suite });
      },
    }),
  };
  const plans = [
    ...(setup.selfplay ? [selfPlayPlan(setup, journal, emit, evaluate, books.onSlotError)] : []),
    ...setup.suites.map((suite) =>
      suite.curriculum ? curriculumPlan(suite as Suite & { curriculum: CurriculumPool }, config, evaluate, journal, emit, setup.sandboxes) : staticPlan(suite, config, evaluate, setup.sandboxes),
    ),
  ];

  try {
    for (const [i, plan] of plans.entries()) {
      // A stopping run starts no further static suite or curriculum pool (nor loads its dataset).
      if (plan.kind !== 'selfplay' && signal.aborted) break;
      try {
        results.suites.push(await runSuite(plan, books, { played: i === plans.length - 1 ? setup.release : undefined }));
      } catch (error) {
        if (signal.aborted) throw error;
        // A suite that cannot go on (its dataset malformed, its plugin throwing) stops the run;
        // what finished is written with the reason, so it is not taken for an interrupted run.
        halt(`${plan.id}: ${(error as Error).message}`, false);
        suiteError = error as Error;
        break;
      }
    }
    info.complete = !signal.aborted;
  } finally {
    if (stopReason) info.stopReason = stopReason;
    info.errors = tally.summary();
    // A share of errors is judged over the whole run at its end, however small the run.
    if (!failure && info.complete && allowance.share !== undefined && info.errors.failures / Math.max(1, work) > allowance.share) {
      const first = info.errors.classes.find((c) => c.failure)!;
      failure = { errorClass: first.errorClass, message: first.messages[0] ?? 'errored' };
    }
    addEqualSizeDiversity(results.suites);
    info.finishedAt = new Date().toISOString();
    try {
      await writeOutputs(setup.outDir, results, setup.renderReport);
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      stopError = `${stopError ? `${stopError}; ` : ''}cannot write results.json or report.html in ${setup.outDir}: ${e.code ?? e.message}`;
    }
    journal.append({ type: 'end', finishedAt: info.finishedAt, complete: info.complete });
    journal.close();
    // A checkpoint's sync that failed stops the run as a failed write does.
    await journal.settled();
  }
  if (stopError) throw new RunStoppedError(stopError);
  if (suiteError) {
    const kept = `${suiteError.message}; what finished is kept in ${setup.outDir}`;
    throw suiteError instanceof UsageError ? new UsageError(kept) : Object.assign(suiteError, { message: kept });
  }
  if (failure) throw failedRun(failure, info.errors, setup.outDir, config.maxErrors);
  return results;
}

/** The error a failed run ends with: the failure's own text, what errored, and how to continue. */
function failedRun(failure: { errorClass: string; message: string }, errors: RunErrors, outDir: string, maxErrors: number | string | undefined): Error {
  const kept = `what finished is kept in ${outDir}`;
  if (failure.errorClass === 'plugin-contract') {
    // A plugin to fix, not a run to retry: a usage error (exit 2).
    return new UsageError(`${failure.message.replace(/^PluginContractError: /, '')}; ${kept}`);
  }
  const allowed = maxErrors === undefined ? 'none are allowed by default (--max-errors N or N% allows some)' : `--max-errors ${maxErrors}`;
  const how = failure.errorClass === 'provider:auth' ? 'check the API key' : 'fix the cause';
  return new RunFailedError(
    failure.errorClass,
    `${failure.message} [${failure.errorClass}]; ${errors.failures} model or plugin failure(s) so far, ${allowed}. ${kept}: ${how}, then continue with --resume --retry-errored`,
    errors,
  );
}

/**
 * `--max-errors`: the model or plugin failures a run allows, a count (`10`) or a share of its
 * work so far (`20%`, judged after 20 pieces of work, and over the whole run at its end). None
 * by default: the first failure stops the run.
 */
export function parseMaxErrors(value: number | string | undefined): ErrorAllowance {
  if (value === undefined) return { count: 0 };
  if (typeof value === 'number') return { count: value };
  const m = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  if (m && Number(m[1]) <= 100) return { share: Number(m[1]) / 100 };
  const n = Number(value);
  if (Number.isInteger(n) && n >= 0) return { count: n };
  throw new UsageError(`maxErrors: expected a count of errors (0 or more) or a percentage such as "20%", got ${JSON.stringify(value)}`);
}


/** results.json and, given a renderer, report.html, each written atomically (the report part by part, never as one string). */
export async function writeOutputs(outDir: string, results: RunResults, renderReport?: ReportRenderer): Promise<void> {
  writeResults(outDir, results);
  if (!renderReport) return;
  const parts = await renderReport([results]);
  const file = new AtomicFile(path.join(outDir, 'report.html'));
  try {
    for (const part of parts) file.write(part);
    file.commit();
  } catch (error) {
    file.abort();
    throw error;
  }
}
