/**
 * One environment evaluation as a job that can leave this thread: what crosses to a worker
 * thread or a remote worker (the program, its task seed, the serialisable parts of the
 * EvaluationContext, and the work already journaled for that environment), how the other side
 * runs it, and how its fresh work is handed back to the run's journal on the main thread.
 */
import type { GateVerdict } from '../results/results.js';
import type { EnvironmentProgram, EpisodeResult } from '../types.js';
import type { JournalRecord } from '../results/journal.js';
import { evaluateEnvironment, type Evaluation, type EvaluationContext } from '../run/evaluate.js';
import { PriorWork } from '../results/resume.js';
import type { WorkerParts } from './worker-parts.js';

/** The serialisable parts of an EvaluationContext, with the program and its task seed. */
export interface EvaluationJob extends Pick<EvaluationContext, 'suite' | 'limits' | 'attempts' | 'withHint' | 'validateOnly' | 'runSeed' | 'round' | 'gate' | 'maxTurns' | 'seedPerAttempt' | 'hint' | 'resetGate' | 'hintedAttempts'> {
  program: EnvironmentProgram;
  taskSeed: number;
  /** This environment's verdict and episodes from an earlier, interrupted invocation. */
  prior: { verdict?: GateVerdict; episodes: EpisodeResult[] };
}

/** Work done for the journal, in the order it was done (the verdict first). */
export type FreshWork = { type: 'verdict'; verdict: GateVerdict } | { type: 'episode'; episode: EpisodeResult };

/** An Evaluation without the program's source, which the side that sent the job already has. */
export type PackedEvaluation = Omit<Evaluation, 'program' | 'summary'> & { summary: Omit<Evaluation['summary'], 'source'> };

/** What a worker sends back for a job. */
export interface JobOutcome {
  evaluation: PackedEvaluation;
  /** The fresh work, in order, when the job had no onFresh listener (else it was handed on as done). */
  fresh: FreshWork[];
}

/**
 * The Evaluation to send back: the program (and its source, twice) stay behind, and so do the
 * episodes' conversations, which the fresh work carries to the journal once.
 */
export function packEvaluation(evaluation: Evaluation): PackedEvaluation {
  const { program, summary, episodes, ...rest } = evaluation;
  const { source, ...kept } = summary;
  void program;
  void source;
  return { ...rest, episodes: episodes.map(({ messages, ...episode }) => (void messages, episode)), summary: kept };
}

/** The Evaluation of `program` from what a worker sent back. */
export function unpackEvaluation(packed: PackedEvaluation, program: EnvironmentProgram): Evaluation {
  const { id, language, verdict, checks, ...rest } = packed.summary;
  // The summary's keys keep their order (id, language, verdict, checks, source, ...), as in-thread.
  return { ...packed, program, summary: { id, language, verdict, checks, source: program.source, ...rest } };
}

/** The job for evaluating `program` in `ctx`: everything but the sandboxes, agent, signal and callbacks. */
export function toEvaluationJob(program: EnvironmentProgram, taskSeed: number, ctx: EvaluationContext): EvaluationJob {
  const episodes: EpisodeResult[] = [];
  for (const withHint of ctx.withHint ? [false, true] : [false]) {
    for (let attempt = 0; attempt < (withHint ? (ctx.hintedAttempts ?? ctx.attempts) : ctx.attempts); attempt++) {
      const done = ctx.prior?.episode(ctx.suite, program.id, attempt, withHint);
      if (done) episodes.push(done);
    }
  }
  const job: EvaluationJob = {
    suite: ctx.suite,
    program,
    taskSeed,
    limits: ctx.limits,
    attempts: ctx.attempts,
    withHint: ctx.withHint,
    runSeed: ctx.runSeed,
    prior: { episodes },
  };
  const verdict = ctx.prior?.verdict(ctx.suite, program.id);
  if (verdict) job.prior.verdict = verdict;
  if (ctx.validateOnly) job.validateOnly = true;
  if (ctx.round !== undefined) job.round = ctx.round;
  if (ctx.gate !== undefined) job.gate = ctx.gate;
  if (ctx.resetGate) job.resetGate = true;
  if (ctx.maxTurns !== undefined) job.maxTurns = ctx.maxTurns;
  if (ctx.seedPerAttempt) job.seedPerAttempt = true;
  if (ctx.hint !== undefined) job.hint = ctx.hint;
  if (ctx.hintedAttempts !== undefined) job.hintedAttempts = ctx.hintedAttempts;
  return job;
}

/** The job's journaled work as a PriorWork, so the worker skips it exactly like a resumed run. */
function priorOf(job: EvaluationJob): PriorWork | undefined {
  const records: JournalRecord[] = job.prior.episodes.map((episode) => ({ type: 'episode', episode }));
  if (job.prior.verdict) records.push({ type: 'verdict', suite: job.suite, id: job.program.id, verdict: job.prior.verdict });
  return records.length ? new PriorWork(records) : undefined;
}

/** Run a job with the worker's own sandboxes and agent; `onFresh` sees each new piece of work as it is done. */
export async function runEvaluationJob(
  job: EvaluationJob,
  parts: WorkerParts,
  options: { signal?: AbortSignal; onFresh?: (work: FreshWork) => void } = {},
): Promise<JobOutcome> {
  // Fresh work is handed on as it is done when someone listens (a thread streams it to the run),
  // else kept for the outcome (a queue worker returns it with the job): never both, so a thread
  // holds no episode's conversation past its delivery.
  const fresh: FreshWork[] = [];
  const push = (work: FreshWork): void => {
    if (options.onFresh) options.onFresh(work);
    else fresh.push(work);
  };
  const ctx: EvaluationContext = {
    suite: job.suite,
    sandboxes: parts.sandboxes,
    agent: parts.agent,
    limits: job.limits,
    attempts: job.attempts,
    ...(job.hintedAttempts !== undefined ? { hintedAttempts: job.hintedAttempts } : {}),
    withHint: job.withHint,
    validateOnly: job.validateOnly,
    runSeed: job.runSeed,
    round: job.round,
    gate: job.gate,
    maxTurns: job.maxTurns,
    seedPerAttempt: job.seedPerAttempt,
    hint: job.hint,
    ...(job.resetGate && { resetGate: true }),
    signal: options.signal,
    prior: priorOf(job),
    // The sample episode loses its steps once the summary holds them: journal a copy as it was.
    onVerdict: (_program, verdict) => push({ type: 'verdict', verdict }),
    onEpisode: (episode) => {
      push({ type: 'episode', episode: structuredClone(episode) });
      // The copy carries the conversation to the journal; the evaluation returned goes without it
      // (packEvaluation), so it is not kept until the environment's last play ends.
      delete episode.messages;
    },
  };
  const evaluation = await evaluateEnvironment(job.program, job.taskSeed, ctx);
  return { evaluation: packEvaluation(evaluation), fresh };
}

/**
 * Hand a worker's fresh work to the run (its journal and progress), as the in-thread evaluator
 * would have. Work the run's own journal already holds (a job finished before a resume) is
 * not handed over twice.
 */
export function deliverFreshWork(work: FreshWork, program: EnvironmentProgram, ctx: EvaluationContext): void {
  if (work.type === 'verdict') {
    if (!ctx.prior?.verdict(ctx.suite, program.id)) ctx.onVerdict?.(program, work.verdict);
    return;
  }
  const { attempt, withHint } = work.episode;
  if (!ctx.prior?.episode(ctx.suite, program.id, attempt, withHint)) ctx.onEpisode?.(work.episode);
}
