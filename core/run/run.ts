/**
 * A run: the self-play pool and each static suite, played by the same agent in the same
 * sandbox, journaled as it goes, summed up into `results.json` and `report.html`.
 */
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import type { Agent, CurriculumPool, Designer, Suite } from '../types.js';
import type { GateVerdict, RoundSummary, RunInfo, RunResults, SuiteResult, UsageMetrics } from '../results/results.js';
import { SCHEMA_VERSION } from '../results/results.js';
import type { SpadeConfig } from '../config/config.js';
import { evaluateEnvironment, type Evaluator, type SandboxSet } from './evaluate.js';
import { Journal } from '../results/journal.js';
import type { PriorWork } from '../results/resume.js';
import { emptyUsage } from '../providers/stats.js';
import type { EnvironmentReviewer } from '../roles/llm-reviewer.js';
import { writeFileAtomic } from '../results/fs.js';
import { writeResults } from '../results/results-file.js';
import { RunStoppedError, UsageError } from '../errors.js';
import { addEqualSizeDiversity } from '../metrics/index.js';
import { runSuite, selfPlayPlan, staticPlan, type RunBooks } from './run-suite.js';
import { curriculumPlan } from '../curriculum/rounds.js';
import { turnBudget } from '../config/options.js';
import type { HintWriter } from '../roles/llm-hint.js';
import { playSlots } from './play-schedule.js';

export { SELFPLAY_SUITE, suiteResult } from './run-suite.js';

import type { ProgressEvent, ReportRenderer, RunSetup } from './run-setup.js';

/** The config as recorded in results and the journal: API keys never leave the process. */
export function recordedConfig(config: SpadeConfig): Record<string, unknown> {
  const providers = Object.fromEntries(
    Object.entries(config.providers).map(([id, p]) => [id, Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'apiKey' && k !== 'headers'))]),
  );
  return JSON.parse(JSON.stringify({ ...config, providers })) as Record<string, unknown>;
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
  const halt = (reason: string, fatal: boolean): void => {
    if (stop.signal.aborted) return;
    stopReason = reason;
    if (fatal) stopError = reason;
    stop.abort();
  };
  if (setup.signal?.aborted) halt('interrupted', false);
  setup.signal?.addEventListener('abort', () => halt('interrupted', false), { once: true });
  const journal = new Journal(setup.outDir, (error) =>
    halt(`cannot write the journal ${path.join(setup.outDir, 'journal.jsonl')}: ${error.code ?? error.message}${error.code === 'ENOSPC' ? ' (disk full)' : ''}; everything journaled before is kept: free space, then continue with --resume`, true),
  );
  const maxErrors = parseMaxErrors(config.maxErrors);
  let episodesSeen = 0;
  let errored = 0;
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
    versions: setup.versions,
    config: recordedConfig(config),
    complete: false,
  };
  if (prior?.config) journal.append({ type: 'resume', at: new Date().toISOString(), journaled: prior.size });
  else journal.append({ type: 'start', runId: info.id, startedAt, config: info.config });
  const results: RunResults = { schemaVersion: SCHEMA_VERSION, run: info, suites: [] };
  const evaluate = setup.evaluator ?? evaluateEnvironment;
  const emit = setup.onProgress ?? (() => {});

  const books: RunBooks = {
    journal,
    emit,
    prior,
    usage: setup.usage ?? emptyUsage,
    latencyMark: setup.latencyMark ?? (() => []),
    latencySince: setup.latencySince ?? (() => []),
    context: (suite) => ({
      suite,
      sandboxes: setup.sandboxes,
      agent: setup.agent,
      limits: config.limits,
      attempts: config.selfplay.attempts,
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
        journal.append({ type: 'episode', episode });
        episodesSeen++;
        if (episode.outcome === 'errored') {
          errored++;
          if (maxErrors && tooManyErrors(maxErrors, errored, episodesSeen)) {
            halt(`--max-errors ${config.maxErrors}: ${errored} of ${episodesSeen} episodes errored (last: ${episode.error}); what finished is kept, continue with --resume`, true);
          }
        }
        emit({ type: 'episode', suite });
      },
    }),
  };
  const plans = [
    ...(setup.selfplay ? [selfPlayPlan(setup, journal, emit, evaluate)] : []),
    ...setup.suites.map((suite) =>
      suite.curriculum ? curriculumPlan(suite as Suite & { curriculum: CurriculumPool }, config, evaluate, journal, emit, setup.sandboxes) : staticPlan(suite, config, evaluate, setup.sandboxes),
    ),
  ];

  try {
    for (const [i, plan] of plans.entries()) {
      // A stopping run starts no further static suite or curriculum pool (nor loads its dataset).
      if (plan.kind !== 'selfplay' && signal.aborted) break;
      results.suites.push(await runSuite(plan, books, { played: i === plans.length - 1 ? setup.release : undefined }));
    }
    info.complete = !signal.aborted;
  } finally {
    if (stopReason) info.stopReason = stopReason;
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
  return results;
}

/** `--max-errors`: a count (`10`) or a share of the episodes so far (`20%`, judged after 20 episodes). */
export function parseMaxErrors(value: number | string | undefined): { count?: number; share?: number } | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return { count: value };
  const m = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  if (m) return { share: Number(m[1]) / 100 };
  const n = Number(value);
  if (Number.isInteger(n) && n > 0) return { count: n };
  throw new UsageError(`maxErrors: expected a positive integer or a percentage such as "20%", got ${JSON.stringify(value)}`);
}

function tooManyErrors(limit: { count?: number; share?: number }, errored: number, episodes: number): boolean {
  if (limit.count !== undefined) return errored >= limit.count;
  return episodes >= 20 && errored / episodes >= limit.share!;
}


/** results.json and, given a renderer, report.html, each written atomically. */
export async function writeOutputs(outDir: string, results: RunResults, renderReport?: ReportRenderer): Promise<void> {
  writeResults(outDir, results);
  if (renderReport) writeFileAtomic(path.join(outDir, 'report.html'), await renderReport([results]));
}
