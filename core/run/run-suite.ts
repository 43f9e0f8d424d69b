/**
 * One suite of a run, the same way for the self-play pool and for static suites: runSuite()
 * does the bookkeeping every suite shares (progress, journal, usage, latencies, metrics), and
 * a plan says what is particular to the suite (self-play's rounds, a static suite's tasks).
 */
import type { Suite, SuiteLoadOptions, SuiteSampling, SuiteScore, SuiteTask } from '../types.js';
import type { EnvironmentSummary, RoundSummary, SuiteResult, UsageMetrics } from '../results/results.js';
import type { SpadeConfig } from '../config/config.js';
import { environmentSummary, unlessCut, type Evaluation, type EvaluationContext, type Evaluator, type SandboxSet } from './evaluate.js';
import type { Journal } from '../results/journal.js';
import type { FoldedEnvironment, PriorWork } from '../results/resume.js';
import type { ProgressEvent, RunSetup } from './run-setup.js';
import { runSelfPlay } from '../selfplay/selfplay.js';
import { createSpadeMemory } from '../selfplay/spade-memory.js';
import { defaultSkills, skillName } from '../selfplay/skills.js';
import { DEFAULTS, hintedAttemptsOf, plainAttemptsOf, slotAttempts, slotRepairs } from '../config/options.js';
import type { PlateauOptions } from '../selfplay/rewards.js';
import { mapLimit } from './concurrency.js';
import { environmentsInFlight, playSlots } from './play-schedule.js';
import { sampledAgent } from './sampled-agent.js';
import { privateEpisode, privateEvaluation, privateVerdict } from './private-text.js';
import { addUsage, emptyUsage, usageBetween } from '../providers/stats.js';
import { playErrors, type ErrorTally, type PlayErrors } from './error-class.js';
import type { SlotError } from '../selfplay/slot-error.js';
import { computeMetrics, type EvaluatedEnvironment } from '../metrics/table.js';
import { tallyPlays, tallyToJson } from '../metrics/plays.js';
import { Reservoir } from '../metrics/reservoir.js';
import { journalEnvironment } from '../results/results-file.js';
import { shareDataHeader } from '../results/data-header.js';

/** The designer reward's difficulty band from the config (SPADE's default band unless set). */
export function bandOf(config: SpadeConfig): PlateauOptions {
  const [lo, hi] = config.selfplay.band ?? DEFAULTS.selfplay.band;
  return { lo, hi, ramp: config.selfplay.bandRamp ?? DEFAULTS.selfplay.bandRamp };
}

/** The id of the self-play pool among a run's suites. */
export const SELFPLAY_SUITE = 'spade';

/**
 * Sum up one suite's environments into its metrics: every row of the metrics table
 * (core/metrics/table.ts). Each environment comes as its evaluation or as what a run keeps of
 * it (keptEvaluation); `sandboxCalls`, the suite's sample of sandboxed call times, when kept apart.
 */
export function suiteResult(
  id: string,
  kind: SuiteResult['kind'],
  evaluations: readonly EvaluatedEnvironment[],
  wallSec: number,
  rounds: RoundSummary[],
  usage: UsageMetrics,
  providerCallMs: number[] = [],
  sandboxCalls?: Reservoir,
): SuiteResult {
  const environments: EnvironmentSummary[] = evaluations.map((e) => e.summary);
  const sampled = sandboxCalls && { sandboxCallMs: sandboxCalls.values(), sandboxCalls: sandboxCalls.count };
  return { id, kind, metrics: computeMetrics({ kind, environments: evaluations, wallSec, usage, providerCallMs, ...sampled }), rounds, environments };
}

/** An environment as a suite keeps it once played: its plays folded into a tally, their errors counted by class and message. */
export interface KeptEvaluation extends EvaluatedEnvironment {
  program: Evaluation['program'];
  /** The errored plays' classes and messages, with how many of each, in the order first met. */
  errors?: PlayErrors;
}

/**
 * What a suite keeps of an evaluation: the program, verdict and summary (one per task), and its
 * plays as a tally (core/metrics/plays.ts), never the episodes, unless `episodes` (a suite with
 * its own score(), which reads each task's plays: its tasks are few) keeps them too, without their
 * steps. Its sandboxed call times go into `sandboxCalls`.
 */
export function keptEvaluation(e: Evaluation, options: { episodes?: boolean; sandboxCalls?: Reservoir } = {}): KeptEvaluation {
  const kept: KeptEvaluation = { program: e.program, verdict: e.verdict, summary: e.summary, plays: tallyPlays(e.episodes) };
  if (options.episodes) kept.episodes = e.episodes;
  const errors = playErrors(e.episodes);
  if (errors) kept.errors = errors;
  if (options.sandboxCalls) for (const ms of e.sandboxCallMs ?? []) options.sandboxCalls.add(ms);
  else if (e.sandboxCallMs) kept.sandboxCallMs = e.sandboxCallMs;
  return kept;
}

/** What a suite keeps of an environment (its plays as a tally), not its evaluation. */
const isKept = (e: Evaluation | KeptEvaluation): e is KeptEvaluation => 'plays' in e && e.plays !== undefined;

/**
 * An environment a resumed run keeps folded, as its suite keeps it: the summary made as its
 * evaluation makes it (environmentSummary), from its program and what the journal holds.
 */
function foldedEvaluation(program: KeptEvaluation['program'], folded: FoldedEnvironment): KeptEvaluation {
  const kept: KeptEvaluation = { program, verdict: folded.verdict, summary: environmentSummary(program, folded.verdict, undefined, folded.figures), plays: folded.plays };
  if (folded.errors) kept.errors = folded.errors;
  return kept;
}

/**
 * The plays each environment of a static suite has once evaluated, when the suite's results need
 * nothing of an environment but its tally, summary figures and errors: no score() (which reads
 * each task's episodes), no curriculum, task text in the clear, episodes played (not
 * `validateOnly`). A resumed run keeps such a suite's environments evaluated before the stop
 * folded (PriorWork.folded), not their episodes. Undefined for any other suite.
 */
export function foldedPlays(suite: Suite, config: SpadeConfig, validateOnly = false): number | undefined {
  if (validateOnly || suite.curriculum || suite.score || (suite.privateText === true && config.showTaskText !== true)) return undefined;
  return suite.sampling ? suite.sampling.n : config.attempts;
}

/** One suite of a run, as runSuite() plays it: the self-play pool or a static suite. */
export interface SuitePlan {
  id: string;
  kind: SuiteResult['kind'];
  /** Load what the suite needs (a static suite's tasks); how many environments and episodes to expect. */
  start(): Promise<{ environments: number; episodes: number; notice?: string }>;
  /**
   * Evaluate the suite's environments, handing each to `record` the moment it is done; `record`
   * gives back what the suite keeps of it, which `evaluations` may list in its place (in the
   * suite's order), so that the episodes are not held to the suite's end. An environment a
   * resumed run keeps folded (PriorWork.folded) is handed over as kept, not evaluated again.
   */
  play(context: Omit<EvaluationContext, 'round' | 'withHint'>, record: (e: Evaluation | KeptEvaluation) => KeptEvaluation | void): Promise<{ evaluations: (Evaluation | KeptEvaluation)[]; rounds: RoundSummary[]; errored?: SlotError[] }>;
  /** Malformed records the suite skipped (`--skip-bad`). */
  skipped?(): number;
  /** Tasks the suite left out because they cannot run here, by reason. */
  skippedTasks?(): Record<string, number>;
  /** A published benchmark's own figures from its evaluations (Suite.score). */
  scores?(evaluations: readonly KeptEvaluation[]): Record<string, SuiteScore>;
  /** The sampling its model calls used (Suite.sampling), recorded in results. */
  sampling?: SuiteSampling;
  /** Its task text is recorded as hashes only. */
  privateText?: boolean;
}

/** What every suite of a run shares: its journal, its progress, the clocks of its providers. */
export interface RunBooks {
  journal: Journal;
  emit: (event: ProgressEvent) => void;
  /** The providers' usage so far outside episodes (design, hints, reviews): an episode's calls are its `spent`. */
  outsideUsage: () => UsageMetrics;
  latencyMark: () => number[];
  latencySince: (mark: number[]) => number[];
  /** The evaluation context of a suite: the run's sandboxes, agent, limits, seed, signal and journal callbacks. */
  context(suite: string): Omit<EvaluationContext, 'round' | 'withHint'>;
  prior?: PriorWork;
  /** The run's errored work, by class (results.json's run.errors). */
  tally: ErrorTally;
  /** A self-play slot that has just errored: counted against --max-errors. */
  onSlotError(suite: string, error: SlotError): void;
}

/**
 * One suite, with the bookkeeping every suite shares: progress at its start and end, each
 * evaluation journaled as it is done, usage and latencies over the suite's span, and the
 * suite's end journaled at a checkpoint.
 *
 * Its usage is what the invocations before spent on it (PriorWork.usage: the calls they made
 * outside episodes, and the `spent` of the episodes kept from them), the calls this invocation
 * made outside episodes, and the `spent` of every episode it journals. An episode cut by the stop
 * is journaled by the invocation that plays it again, and counted there, once.
 */
export async function runSuite(plan: SuitePlan, books: RunBooks, options: { played?: () => Promise<void> } = {}): Promise<SuiteResult> {
  const suite = plan.id;
  const expected = await plan.start();
  books.emit({ type: 'suite-start', suite, kind: plan.kind, environments: expected.environments, episodes: expected.episodes });
  if (expected.notice) books.emit({ type: 'notice', message: expected.notice });
  const started = performance.now();
  // Seconds this invocation has spent on the suite, journaled to the millisecond.
  const spentHere = (): number => Math.round(performance.now() - started) / 1000;
  const outsideBefore = books.outsideUsage();
  const priorUsage = books.prior?.usage(suite) ?? emptyUsage();
  // What the episodes journaled by this invocation spent (their records carry it).
  let episodesSpent = emptyUsage();
  const suiteUsage = (): UsageMetrics => addUsage(priorUsage, usageBetween(outsideBefore, books.outsideUsage()), episodesSpent);
  // The calls outside episodes are journaled as they grow (cumulative for this invocation): a
  // resumed run counts those of the invocations before it from their last such line.
  let journaledCalls = 0;
  const journalUsage = (): void => {
    const now = usageBetween(outsideBefore, books.outsideUsage());
    if (now.calls === journaledCalls) return;
    journaledCalls = now.calls;
    books.journal.append({ type: 'usage', suite, usage: now });
  };
  const context = books.context(suite);
  // The time journaled for a resume to add: up to the last environment finished before a stop.
  // One the stop cut short is done again, and timed, by the invocation that resumes it.
  let counted = 0;
  const journalClock = (): number => (context.signal?.aborted ? counted : (counted = spentHere()));
  const journalEpisode = context.onEpisode;
  context.onEpisode = (episode) => {
    if (episode.spent) episodesSpent = addUsage(episodesSpent, episode.spent);
    journalEpisode?.(episode);
  };
  const mark = books.latencyMark();
  // Program code is journaled once per suite (core/results/results-file.ts).
  const journaledCodes = new Set<string>();
  // The suite's sample of sandboxed call times, and what it keeps of each evaluation, by evaluation.
  const sandboxCalls = new Reservoir();
  const keptOf = new WeakMap<Evaluation, KeptEvaluation>();
  const played = await plan.play(context, (e) => {
    // An environment a resumed run keeps folded comes kept already: its lines are in the journal.
    const folded = isKept(e);
    const kept = folded ? e : keptEvaluation(e, { episodes: plan.scores !== undefined, sandboxCalls });
    if (!folded) keptOf.set(e, kept);
    // The summary reads its source from its program when asked: a program that makes its source
    // when read (a dataset's task) is then never kept as a whole string per environment.
    const { program } = e;
    Object.defineProperty(e.summary, 'source', { get: () => program.source, enumerable: true, configurable: true });
    shareDataHeader(e.summary, program);
    // Journaled unless the journal has it as it is: a folded environment is as journaled; one the
    // stop cut mid-play was journaled with the plays it had then, and is journaled again now.
    if (!folded) {
      const { environment, code } = journalEnvironment(e.summary);
      if (!books.prior?.environmentJournaled(suite, environment)) {
        if (code && !journaledCodes.has(code.key)) {
          journaledCodes.add(code.key);
          books.journal.append({ type: 'code', suite, key: code.key, code: code.code });
        }
        books.journal.append({ type: 'environment', suite, round: e.summary.round, environment });
      }
    }
    if (!folded) {
      // Its plays folded, for merge (the last line of an environment counts: a resumed run that
      // redoes errored plays journals it again).
      books.journal.append({ type: 'plays', suite, id: e.program.id, plays: tallyToJson(kept.plays!) });
      books.journal.append({ type: 'clock', suite, wallSec: journalClock() });
      // The journal has the agent's conversations; the suite's metrics need none of them.
      for (const episode of e.episodes) delete episode.messages;
    }
    journalUsage();
    books.emit({ type: 'environment', suite, verdict: e.verdict.verdict });
    return kept;
  });
  const { rounds, errored = [] } = played;
  const evaluations = played.evaluations.map((e) => (isKept(e) ? e : keptOf.get(e) ?? keptEvaluation(e, { episodes: plan.scores !== undefined, sandboxCalls })));
  journalUsage();
  for (const e of evaluations) {
    for (const { errorClass, message, count } of e.errors?.values() ?? []) {
      for (let i = 0; i < count; i++) books.tally.add({ suite, stage: 'episode', errorClass, message });
    }
  }
  for (const e of errored) books.tally.add({ suite, stage: e.stage, errorClass: e.errorClass, message: e.message });
  const wallHere = spentHere();
  // The last suite of a run: its metrics are computed without the threads and sandboxes that played it.
  await options.played?.();
  // Rates are over the time every invocation spent on the suite, not this one's alone (a resume
  // that finds the suite done spends milliseconds on it).
  const wallSec = (books.prior?.wallSec(suite) ?? 0) + wallHere;
  const result = suiteResult(suite, plan.kind, evaluations, wallSec, rounds, suiteUsage(), books.latencySince(mark), sandboxCalls);
  const skipped = plan.skipped?.() ?? 0;
  if (skipped) result.skippedRecords = skipped;
  const left = plan.skippedTasks?.() ?? {};
  if (Object.keys(left).length) result.skippedTasks = { ...left };
  if (plan.scores) result.scores = plan.scores(evaluations);
  if (plan.sampling) result.sampling = { ...plan.sampling };
  if (plan.privateText) result.privateText = true;
  books.journal.append({ type: 'suite-end', suite, wallSec: context.signal?.aborted ? counted : wallHere });
  books.journal.checkpoint();
  books.emit({ type: 'suite-end', suite, result });
  return result;
}

/** The self-play pool: rounds of design, gate, play and reward, each round journaled. */
export function selfPlayPlan(setup: RunSetup, journal: Journal, emit: (event: ProgressEvent) => void, evaluate: Evaluator, onSlotError?: (suite: string, error: SlotError) => void): SuitePlan {
  const { config } = setup;
  const { rounds, envsPerRound } = config.selfplay;
  const plain = plainAttemptsOf(config);
  const hinted = hintedAttemptsOf(config);
  const suite = SELFPLAY_SUITE;
  const memoryMode = config.selfplay.memory ?? DEFAULTS.selfplay.memory;
  const spadeMemory = memoryMode === 'spade' && setup.spadeCode ? createSpadeMemory(setup.spadeCode, setup.outDir) : undefined;
  return {
    id: suite,
    kind: 'selfplay',
    start: async () => ({ environments: rounds * envsPerRound, episodes: rounds * envsPerRound * (plain + hinted) }),
    async play(context, record) {
      const played = await runSelfPlay({
        designer: setup.designer,
        rounds,
        envsPerRound,
        reward: config.selfplay.reward,
        // Design slots at once: enough to keep a model-driven agent's or designer's requests busy.
        concurrency: environmentsInFlight(config.environmentsInFlight, setup.agent, setup.designer.capacity),
        // Plain and hinted plays per environment, counted apart (SPADE plays 8 and 16); SPADE's
        // tool-use runs add its reset gate to its validation.
        context: { ...context, attempts: plain, hintedAttempts: hinted, ...(config.gate === 'spade' && config.selfplay.gameType === 'tool-use' ? { resetGate: true } : {}) },
        evaluator: evaluate,
        repairs: slotRepairs(config),
        slotAttempts: slotAttempts(config),
        // SPADE's extraction ends with its brace repair: under its gate, the designer's code gets it.
        repairBraces: config.gate === 'spade',
        reviewer: setup.reviewer,
        onReviewed: (program, review) => journal.append({ type: 'review', suite, id: program.id, review }),
        band: bandOf(config),
        skills: (config.selfplay.skills ?? defaultSkills(config.selfplay.gameType ?? DEFAULTS.selfplay.gameType)).map((s) => skillName(s) ?? s),
        skillsPerRound: config.selfplay.skillsPerRound ?? DEFAULTS.selfplay.skillsPerRound,
        hintWriter: setup.hintWriter,
        memoryMode,
        ...(spadeMemory ? { spadeMemory } : {}),
        ...(config.designerProtocol === 'spade' ? { alwaysHint: true } : {}),
        onHint: (program, hint) => journal.append({ type: 'hint', suite, id: program.id, hint }),
        onErrored: (error) => {
          // A design call's failure is journaled in its round's `designed` record.
          if (error.stage !== 'design') journal.append({ type: 'errored', suite, error });
          onSlotError?.(suite, error);
        },
        onDesigned: (round, programs) => {
          journal.append({ type: 'designed', suite, round, programs });
          emit({ type: 'designed', suite, round, count: programs.length });
        },
        onEvaluation: record,
        onRound: (summary) => {
          journal.append({ type: 'round', suite, summary });
          journal.checkpoint();
          emit({ type: 'round', suite, summary, rounds });
        },
      });
      return { evaluations: played.evaluations, rounds: played.rounds, errored: played.errored };
    },
  };
}

/** What a suite is told when it loads: the run's limit and data folder, and the Python sandbox's packages. */
export async function suiteLoadOptions(suite: Suite, config: SpadeConfig, sandboxes?: SandboxSet): Promise<SuiteLoadOptions> {
  const options: SuiteLoadOptions = { limit: config.limit, dataDir: config.dataDir };
  if (suite.language === 'python' && sandboxes) options.pythonPackages = (await sandboxes.get('python')).packages ?? [];
  return options;
}

/** The notice of what a suite left out: malformed records (--skip-bad), tasks that cannot run here. */
export function skippedNotice(suite: Suite): string | undefined {
  const notices: string[] = [];
  if (suite.skipped) notices.push(`skipped ${suite.skipped} malformed record(s) (--skip-bad); first: ${suite.firstProblem}`);
  const left = Object.entries(suite.skippedTasks ?? {});
  if (left.length) notices.push(`left out ${left.map(([reason, n]) => `${n} task(s): ${reason}`).join('; ')}`);
  return notices.length ? `${suite.id}: ${notices.join('; ')}` : undefined;
}

/** A static suite: its tasks, each gated and played without the hint, `concurrency` at once (more for a model-driven agent: core/run/play-schedule.ts). */
export function staticPlan(suite: Suite, config: SpadeConfig, evaluate: Evaluator, sandboxes?: SandboxSet): SuitePlan {
  let tasks: SuiteTask[] = [];
  return {
    id: suite.id,
    kind: 'static',
    async start() {
      tasks = await suite.tasks(await suiteLoadOptions(suite, config, sandboxes));
      return { environments: tasks.length, episodes: tasks.length * config.attempts, notice: skippedNotice(suite) };
    },
    async play(base, record) {
      // A suite may need more than the run's limits (HumanEval's slowest canonical solution).
      let context: EvaluationContext = { ...base, withHint: false, limits: { ...base.limits, ...suite.limits, ...config.limits } };
      // A published benchmark's protocol: its prompt and sampling, n samples per task (core/run/sampled-agent.ts).
      if (suite.sampling) {
        const agent = sampledAgent(base.agent, suite.sampling);
        context = { ...context, agent, attempts: suite.sampling.n, seedPerAttempt: false, plays: playSlots(agent), ...(suite.sampling.maxTurns && { maxTurns: suite.sampling.maxTurns }) };
      }
      // Task text its authors keep private is journaled and recorded as hashes only.
      const hidden = suite.privateText === true && config.showTaskText !== true;
      if (hidden) {
        context = {
          ...context,
          onVerdict: base.onVerdict && ((program, verdict) => base.onVerdict!(program, privateVerdict(verdict))),
          onEpisode: base.onEpisode && ((episode) => base.onEpisode!(privateEpisode(episode))),
        };
      }
      const evaluations = await mapLimit(
        tasks,
        environmentsInFlight(config.environmentsInFlight, context.agent),
        // What the suite keeps of each task, not its episodes, is held until the suite ends.
        async (task) => {
          // Evaluated whole before a stop: taken as the resumed run keeps it.
          const folded = base.prior?.folded(suite.id, task.program.id);
          if (folded) {
            const kept = foldedEvaluation(task.program, folded);
            return record(kept) ?? kept;
          }
          // Not begun before the run's stop: no result (a resumed run evaluates it).
          const played = await unlessCut(evaluate(task.program, task.seed, context), base.signal);
          if (!played) return undefined;
          const e = hidden ? privateEvaluation(played) : played;
          return record(e) ?? e;
        },
        () => base.signal?.aborted ?? false,
      );
      return { evaluations: evaluations.filter((e) => e !== undefined), rounds: [] };
    },
    scores: suite.score ? (evaluations) => suite.score!(evaluations.map((e) => ({ id: e.program.id, meta: e.program.meta, verdict: e.verdict.verdict, episodes: e.episodes ?? [] }))) : undefined,
    sampling: suite.sampling,
    privateText: suite.privateText === true && config.showTaskText !== true,
    skipped: () => suite.skipped ?? 0,
    skippedTasks: () => ({ ...suite.skippedTasks }),
  };
}

