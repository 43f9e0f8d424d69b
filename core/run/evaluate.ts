/**
 * Evaluate one environment program, the same way for self-play pools and static suites:
 * the validation gate, then (if it passed) the agent's attempts, with and without the hint.
 */
import type { EnvironmentSummary, GateVerdict } from '../results/results.js';
import type { Agent, EnvironmentProgram, EpisodeResult, Language, LoadedEnvironment, Sandbox, SandboxLimits } from '../types.js';
import { SandboxError } from '../errors.js';
import type { PriorWork } from '../results/resume.js';
import { validateEnvironment, type GateReading } from '../gate/gate.js';
import { playFigures, type PlayFigures } from '../metrics/plays.js';
import { EpisodeAbortedError, playEpisode } from './episode.js';
import { deriveSeed } from './random.js';
import { yieldToEventLoop } from './concurrency.js';
import { playConcurrently } from './play-schedule.js';
import type { InFlightLimit } from '../providers/in-flight-limit.js';
import { DEFAULTS } from '../config/options.js';
import { UsageMeter, meterCalls } from '../providers/stats.js';

/**
 * Sandboxes by language, created on first use (Pyodide starts only when Python appears); a
 * Python program with folders for its Python path gets a sandbox made with them.
 */
export interface SandboxSet {
  get(language: Language, pythonPath?: readonly string[]): Promise<Sandbox>;
  close(): Promise<void>;
}

export interface EvaluationContext {
  suite: string;
  sandboxes: SandboxSet;
  agent: Agent;
  limits: Partial<SandboxLimits>;
  /** Episodes per environment (and as many again with the hint, when `withHint`). */
  attempts: number;
  withHint: boolean;
  /** Episodes with the hint, when `withHint` (default: as many as `attempts`; SPADE plays 16 against 8). */
  hintedAttempts?: number;
  /** Run the gate only, no episodes (`--validate-only`). */
  validateOnly?: boolean;
  /** The reading of the gate that decides what is played (default strict). */
  gate?: GateReading;
  /** Turns of an episode whose program sets no horizon; SPADE-format games are built with it. */
  maxTurns?: number;
  /**
   * SPADE's reset gate after its validation (its tool-use runs under --gate spade), from the
   * second round on: SPADE skips it in its first round, which has no pool to fall back on.
   */
  resetGate?: boolean;
  /** Each attempt resets its own seed (SPADE's agent protocol) rather than all replaying the task's. */
  seedPerAttempt?: boolean;
  /** The designer's hint for a program without hint(), added to the first observation of hinted plays. */
  hint?: string;
  runSeed: number;
  round?: number;
  signal?: AbortSignal;
  /** Work already journaled by an earlier, interrupted invocation of this run. */
  prior?: PriorWork;
  onVerdict?: (program: EnvironmentProgram, verdict: GateVerdict) => void;
  /** Called for each newly played episode. */
  onEpisode?: (episode: EpisodeResult) => void;
  /** The suite's limit of episodes in play, for an agent with a capacity (core/run/play-schedule.ts). */
  plays?: InFlightLimit;
}

/** The environment, with the wall time of each call added to `into`. */
function timed(environment: LoadedEnvironment, into: number[]): LoadedEnvironment {
  // The clock starts before the call: a sandbox may do all its work synchronously inside it.
  const time = <T>(call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    return call().finally(() => {
      into.push(performance.now() - started);
    });
  };
  return {
    capabilities: environment.capabilities,
    reset: (seed) => time(() => environment.reset(seed)),
    step: (action) => time(() => environment.step(action)),
    solution: () => time(() => environment.solution()),
    hint: () => time(() => environment.hint()),
    referenceAction: (observation) => time(() => environment.referenceAction(observation)),
    ...(environment.getTools && { getTools: () => time(() => environment.getTools!()) }),
    dispose: () => environment.dispose(),
  };
}

export interface Evaluation {
  program: EnvironmentProgram;
  verdict: GateVerdict;
  episodes: EpisodeResult[];
  summary: EnvironmentSummary;
  /** Wall time (ms) of each sandboxed call made while playing (for throughput latencies). */
  sandboxCallMs?: number[];
}

/** The seed attempt `attempt` resets: the task's, or under SPADE's protocol one of its own (the hinted attempt i shares unhinted attempt i's). */
export function attemptSeed(taskSeed: number, attempt: number, perAttempt: boolean | undefined): number {
  return perAttempt && attempt > 0 ? deriveSeed(taskSeed, 'attempt', attempt) : taskSeed;
}

/**
 * An evaluator's answer when the run's stop came before it began an evaluation (a distributed
 * run's job that no worker had taken yet): no result, as for an environment the stop kept from
 * starting; a resumed run evaluates it.
 */
export class EvaluationCut extends Error {
  constructor(what: string) {
    super(`${what}: not begun before the run's stop`);
    this.name = 'EvaluationCut';
  }
}

/** An evaluation's result, or undefined when it was cut (EvaluationCut) by the stop `signal` tells of. */
export async function unlessCut(evaluation: Promise<Evaluation>, signal: AbortSignal | undefined): Promise<Evaluation | undefined> {
  try {
    return await evaluation;
  } catch (error) {
    if (error instanceof EvaluationCut && signal?.aborted) return undefined;
    throw error;
  }
}

/**
 * How a run evaluates its environments: in this thread (`evaluateEnvironment`), or handed to
 * worker threads or remote workers, which must give the same Evaluation for the same input.
 * An evaluator may reject with EvaluationCut once the run is stopping.
 */
export type Evaluator = (program: EnvironmentProgram, taskSeed: number, ctx: EvaluationContext) => Promise<Evaluation>;

/**
 * Times the gate or an episode is started again after another environment in the same sandbox
 * broke it (SandboxError.collateral); the last try records what happened. Without this, which
 * environments shared an isolate with a memory bomb (scheduling: concurrency, threads, workers)
 * would change the results.
 */
const COLLATERAL_TRIES = 4;

const isCollateral = (error: unknown): error is SandboxError => error instanceof SandboxError && error.collateral;

/**
 * An environment's summary: its program and gate verdict, and the figures of its plays
 * (playFigures), from the episodes just played or from what a resumed run keeps of an
 * environment evaluated before the stop (PriorWork.folded). Its keys come in one order.
 */
export function environmentSummary(program: EnvironmentProgram, verdict: GateVerdict, round: number | undefined, figures: PlayFigures): EnvironmentSummary {
  const horizon = verdict.horizon ?? program.meta?.horizon;
  const summary: EnvironmentSummary = {
    id: program.id,
    language: program.language,
    gameType: verdict.gameType,
    verdict: verdict.verdict,
    checks: verdict.checks,
    source: program.source,
  };
  if (round !== undefined) summary.round = round;
  if (verdict.readings) {
    summary.readings = verdict.readings;
    summary.gate = verdict.gate ?? DEFAULTS.gate;
  }
  if (program.meta?.family) summary.family = program.meta.family;
  if (program.meta?.skill) summary.skill = program.meta.skill;
  if (program.meta?.difficulty !== undefined) summary.difficulty = program.meta.difficulty;
  if (horizon !== undefined) summary.horizon = horizon;
  if (verdict.reason) summary.reason = verdict.reason;
  if (verdict.firstObservation !== undefined) summary.task = verdict.firstObservation;
  if (figures.solveRate !== undefined) summary.solveRate = figures.solveRate;
  if (figures.hintSolveRate !== undefined) summary.hintSolveRate = figures.hintSolveRate;
  if (figures.meanReward !== undefined) summary.meanReward = figures.meanReward;
  if (figures.hintMeanReward !== undefined) summary.hintMeanReward = figures.hintMeanReward;
  if (figures.sample) summary.sample = figures.sample;
  return summary;
}

export async function evaluateEnvironment(program: EnvironmentProgram, taskSeed: number, ctx: EvaluationContext): Promise<Evaluation> {
  const sandbox = await ctx.sandboxes.get(program.language, program.pythonPath);
  let verdict = ctx.prior?.verdict(ctx.suite, program.id);
  if (!verdict) {
    for (let tries = 1; !verdict; tries++) {
      try {
        verdict = await validateEnvironment(sandbox, program, {
          seed: taskSeed, limits: ctx.limits, rethrowCollateral: tries < COLLATERAL_TRIES, gate: ctx.gate, maxTurns: ctx.maxTurns,
          ...(ctx.resetGate && (ctx.round ?? 0) > 0 ? { resetGate: true } : {}),
        });
      } catch (error) {
        if (!isCollateral(error)) throw error;
      }
    }
    ctx.onVerdict?.(program, verdict);
  }
  const episodes: EpisodeResult[] = [];
  const sandboxCallMs: number[] = [];
  if (verdict.verdict !== 'invalid' && !ctx.validateOnly) {
    const horizon = verdict.horizon ?? program.meta?.horizon ?? 1;
    // Hinted plays need a hint: the program's hint(), or the designer's (verdicts journaled
    // before capabilities were recorded are played as before).
    const hintPlays = ctx.withHint && (verdict.capabilities === undefined || verdict.capabilities.hint || ctx.hint !== undefined);
    const hinted = hintPlays ? (ctx.hintedAttempts ?? ctx.attempts) : 0;
    const plays = [
      ...Array.from({ length: ctx.attempts }, (_, attempt) => ({ attempt, withHint: false })),
      ...Array.from({ length: hinted }, (_, attempt) => ({ attempt, withHint: true })),
    ];
    /**
     * Play one attempt on `loaded.environment` (loaded when absent, again when another environment
     * broke its isolate). Undefined when the run's stop cut it: that is no result.
     */
    const playOne = async (play: (typeof plays)[number], loaded: { environment?: LoadedEnvironment }): Promise<EpisodeResult | undefined> => {
      let episode: EpisodeResult | undefined;
      // A model-driven agent's calls made while this attempt is played, whatever else is in
      // flight: its `spent`. An offline agent (no capacity) spends nothing, and is not metered:
      // once a meter is used, Node 20 tracks the async context of every promise of the process.
      const meter = ctx.agent.capacity !== undefined ? new UsageMeter() : undefined;
      for (let tries = 1; !episode; tries++) {
        try {
          const environment = (loaded.environment ??= timed(await sandbox.load(program, ctx.limits, { maxTurns: ctx.maxTurns }), sandboxCallMs));
          const played = () => playEpisode({
            suite: ctx.suite,
            program,
            environment,
            agent: ctx.agent,
            taskSeed: attemptSeed(taskSeed, play.attempt, ctx.seedPerAttempt),
            hint: play.withHint ? ctx.hint : undefined,
            agentSeed: deriveSeed(ctx.runSeed, program.id, play.attempt, play.withHint ? 'hint' : 'plain'),
            attempt: play.attempt,
            withHint: play.withHint,
            horizon,
            round: ctx.round,
            keepSteps: play.attempt === 0 && !play.withHint,
            signal: ctx.signal,
            rethrowCollateral: tries < COLLATERAL_TRIES,
          });
          episode = await (meter ? meterCalls(meter, played) : played());
        } catch (error) {
          // Its calls are counted by the invocation that plays it to the end.
          if (error instanceof EpisodeAbortedError) return undefined;
          if (!isCollateral(error)) throw error;
          // Its isolate is gone: the episode starts again on a new load.
          await loaded.environment?.dispose();
          loaded.environment = undefined;
        }
      }
      const spent = meter?.usage();
      // A share of a request other episodes sent may hold tokens and no call.
      if (spent && Object.values(spent).some((v) => v !== 0)) episode.spent = spent;
      ctx.onEpisode?.(episode);
      return episode;
    };
    const journaled = plays.map((play) => ctx.prior?.episode(ctx.suite, program.id, play.attempt, play.withHint));
    // Plays never run on the instance the gate called: they load the program afresh.
    const gated: { environment?: LoadedEnvironment } = {};
    if (ctx.agent.capacity !== undefined) {
      // A model-driven agent: every attempt at once, each on its own environment.
      const played = await playConcurrently(plays, ctx.plays, async (play, i) => {
        if (journaled[i]) return journaled[i];
        const loaded: { environment?: LoadedEnvironment } = {};
        try {
          return await playOne(play, loaded);
        } finally {
          await loaded.environment?.dispose();
        }
      }, ctx.signal);
      for (const episode of played) if (episode) episodes.push(episode);
    } else {
      // One loaded environment plays every attempt, one after another: reset(seed) starts each episode afresh.
      try {
        for (const [i, play] of plays.entries()) {
          const done = journaled[i];
          if (done) {
            episodes.push(done);
            continue;
          }
          await yieldToEventLoop();
          if (ctx.signal?.aborted) break;
          const episode = await playOne(play, gated);
          if (episode) episodes.push(episode);
        }
      } finally {
        await gated.environment?.dispose();
      }
    }
  }
  const summary = environmentSummary(program, verdict, ctx.round, playFigures(episodes));
  // The sample trajectory lives in the summary now: its episode keeps none.
  const sample = episodes.find((e) => e.steps);
  if (sample) {
    delete sample.steps;
    delete sample.firstObservation;
  }
  return sandboxCallMs.length ? { program, verdict, episodes, summary, sandboxCallMs } : { program, verdict, episodes, summary };
}
