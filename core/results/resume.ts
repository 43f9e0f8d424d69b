/**
 * Resuming a run from its journal. A resumed run replays the same loop with the same seed;
 * every piece of work the journal already holds (a designer's round, a gate verdict, an
 * episode) is taken from it instead of being done again, so nothing is done twice and the
 * final results equal those of an uninterrupted run.
 *
 * Errored work (an episode, a design slot or a hint whose model call failed) is kept as errored,
 * or, with `retryErrored`, done again. The model usage of the invocations before is added to
 * this one's, so a resumed run reports what the whole run spent: usage(suite).
 *
 * What is kept is bounded by the work in flight at the stop, not by the work done before it: an
 * environment of a suite whose results need nothing of it but its plays folded (`foldedPlays`: a
 * static suite without score()) is kept, once its evaluation was recorded whole, as a
 * FoldedEnvironment (its verdict, tally, summary figures and errors), and its episodes are let go
 * as the journal streams by. Only the episodes of environments not evaluated to the end, of
 * environments with failed plays (which `retryErrored` plays again), and of suites that read
 * episodes (self-play, curriculum pools, scored suites) stay.
 */
import { createHash } from 'node:crypto';
import type { GateVerdict, ReviewRecord, SlotError, UsageMetrics } from './results.js';
import type { EnvironmentProgram, EpisodeResult } from '../types.js';
import type { HintRecord, JournalRecord } from './journal.js';
import type { JournaledEnvironment } from './journal.js';
import { episodeErrorClass, isRunFailure, playErrors, type PlayErrors } from '../run/error-class.js';
import { addUsage } from '../providers/stats.js';
import { playFigures, tallyPlays, type PlayFigures, type PlayTally } from '../metrics/plays.js';

export interface PriorWorkOptions {
  /** Do errored work again (`--retry-errored`): errored episodes, design slots and hints are forgotten. */
  retryErrored?: boolean;
  /**
   * The plays (attempts, no hinted ones) each environment of `suite` has once evaluated, for a
   * suite whose results need nothing of an environment but folded(): its environments evaluated
   * to the end are kept folded, without their episodes. Undefined for any other suite (the
   * default: every suite), whose episodes are kept.
   */
  foldedPlays?: (suite: string) => number | undefined;
}

/**
 * What a resumed run keeps of an environment whose evaluation was recorded whole before the
 * stop, in place of its episodes: what its suite's results take from it (core/run/run-suite.ts
 * staticPlan), each computed from the episodes in play order as the run computes them.
 */
export interface FoldedEnvironment {
  verdict: GateVerdict;
  /** Its plays folded (core/metrics/plays.ts). */
  plays: PlayTally;
  /** Its summary's solve rates, mean rewards and sample trajectory. */
  figures: PlayFigures;
  /** Its errored plays (the environment's own failures: an environment with failed plays is not folded). */
  errors?: PlayErrors;
}

/** An episode that errored for a reason outside its environment (a model or plugin failure). */
const failedEpisode = (e: EpisodeResult): boolean => e.outcome === 'errored' && isRunFailure(episodeErrorClass(e));

/** Whether a `--retry-errored` resume does a journaled record's work again: an errored slot, or an episode a failure cut. */
export const doneAgainOnRetry = (r: JournalRecord): boolean => r.type === 'errored' || (r.type === 'episode' && failedEpisode(r.episode));

const key = (suite: string, id: string): string => `${suite}\u0000${id}`;
const episodeKey = (e: Pick<EpisodeResult, 'attempt' | 'withHint'>): string => `${e.attempt}:${e.withHint ? 'hint' : 'plain'}`;
/** An environment line by its content (a digest of its JSON): equal lines, equal digests. */
const lineDigest = (environment: JournaledEnvironment): string => createHash('sha256').update(JSON.stringify(environment)).digest('base64');

/**
 * A figure each invocation of a run journals as a running total per suite (the last line of an
 * invocation counts), summed over the invocations: a `start` or `resume` line begins the next.
 */
export class InvocationTotals<T> {
  private readonly sums = new Map<string, T>();
  private current = new Map<string, T>();

  /** `pick`: the suite and figure a record carries, if it is one of this figure's lines. */
  constructor(
    private readonly pick: (r: JournalRecord) => readonly [suite: string, figure: T] | undefined,
    private readonly add: (a: T, b: T) => T,
  ) {}

  /** One journal record, in order. */
  read(r: JournalRecord): void {
    if (r.type === 'start' || r.type === 'resume') return this.endInvocation();
    const picked = this.pick(r);
    if (picked) this.current.set(picked[0], picked[1]);
  }

  /** The invocation read so far is over (a journal of another run follows, as merge reads shards). */
  endInvocation(): void {
    for (const [suite, figure] of this.current) {
      const before = this.sums.get(suite);
      this.sums.set(suite, before === undefined ? figure : this.add(before, figure));
    }
    this.current = new Map();
  }

  /** By suite, every invocation read so far, the last one included. */
  totals(): Map<string, T> {
    this.endInvocation();
    return this.sums;
  }
}

/** The calls a journal's invocations made outside episodes (`usage` lines), by suite. */
export const outsideUsage = (): InvocationTotals<UsageMetrics> => new InvocationTotals((r) => (r.type === 'usage' ? [r.suite, r.usage] : undefined), (a, b) => addUsage(a, b));

/** The wall time a journal's invocations spent on each suite (`clock` and `suite-end` lines), in seconds. */
export const suiteClock = (): InvocationTotals<number> => new InvocationTotals((r) => (r.type === 'clock' || r.type === 'suite-end' ? [r.suite, r.wallSec] : undefined), (a, b) => a + b);

export class PriorWork {
  private readonly designs = new Map<string, EnvironmentProgram[]>();
  private readonly verdicts = new Map<string, GateVerdict>();
  private readonly reviews = new Map<string, ReviewRecord>();
  private readonly hints = new Map<string, HintRecord>();
  private readonly episodeMap = new Map<string, Map<string, EpisodeResult>>();
  private readonly foldedMap = new Map<string, FoldedEnvironment>();
  /** By suite: the `spent` of the episodes of folded environments, summed as they were folded. */
  private readonly foldedSpent = new Map<string, UsageMetrics>();
  /** By suite and id: the digest of the environment's last journaled line. */
  private readonly environments = new Map<string, string>();
  private readonly slotErrors = new Map<string, SlotError>();
  /** By suite: the calls the invocations before made outside episodes, summed over the invocations. */
  private readonly outside: Map<string, UsageMetrics>;
  /** By suite: the wall time the invocations before spent on it, summed over the invocations. */
  private readonly clock: Map<string, number>;
  /** Errored work kept from the journal (not done again): model or plugin failures, counted against --max-errors. */
  readonly keptFailures: number;
  readonly retryErrored: boolean;
  /** The config the run was started with (from its first `start` record). */
  readonly config: Record<string, unknown> | undefined;
  readonly runId: string | undefined;
  readonly startedAt: string | undefined;
  readonly size: number;

  /** `records`: the journal's records in order (journalRecords() streams them), read once. */
  constructor(records: Iterable<JournalRecord> = [], options: PriorWorkOptions = {}) {
    let config: Record<string, unknown> | undefined;
    let runId: string | undefined;
    let startedAt: string | undefined;
    const outside = outsideUsage();
    const clock = suiteClock();
    let size = 0;
    for (const r of records) {
      size++;
      outside.read(r);
      clock.read(r);
      switch (r.type) {
        case 'start':
          if (!config) ({ config, runId, startedAt } = r);
          break;
        case 'resume':
          if (r.retryErrored) this.forgetErrors();
          break;
        case 'errored':
          this.slotErrors.set(key(r.suite, r.error.id), r.error);
          break;
        case 'designed':
          this.designs.set(key(r.suite, String(r.round)), r.programs);
          break;
        case 'verdict':
          this.verdicts.set(key(r.suite, r.id), r.verdict);
          break;
        case 'review':
          this.reviews.set(key(r.suite, r.id), r.review);
          break;
        case 'hint':
          this.hints.set(key(r.suite, r.id), r.hint);
          break;
        case 'episode': {
          const k = key(r.episode.suite, r.episode.environmentId);
          // A folded environment is not played again: nothing journals an episode of it later.
          if (this.foldedMap.has(k)) break;
          let m = this.episodeMap.get(k);
          if (!m) this.episodeMap.set(k, (m = new Map()));
          // Its conversation was journaled for export; the resumed run needs the rest only.
          delete r.episode.messages;
          m.set(episodeKey(r.episode), r.episode);
          break;
        }
        case 'environment':
          this.environments.set(key(r.suite, r.environment.id), lineDigest(r.environment));
          break;
        case 'plays': {
          // Journaled as an evaluation is recorded: whole, or cut by a stop.
          const plays = options.foldedPlays?.(r.suite);
          if (plays !== undefined) this.fold(r.suite, r.id, plays);
          break;
        }
        default:
          break;
      }
    }
    this.outside = outside.totals();
    this.clock = clock.totals();
    this.retryErrored = options.retryErrored ?? false;
    if (this.retryErrored) this.forgetErrors();
    let kept = [...this.slotErrors.values()].filter((e) => isRunFailure(e.errorClass)).length;
    for (const episodes of this.episodeMap.values()) for (const e of episodes.values()) if (failedEpisode(e)) kept++;
    for (const [k, programs] of this.designs) {
      const suite = k.slice(0, k.indexOf('\u0000'));
      for (const p of programs) if (p.designError && isRunFailure(p.designError.errorClass) && !this.slotErrors.has(key(suite, p.id))) kept++;
    }
    this.keptFailures = this.retryErrored ? 0 : kept;
    this.config = config;
    this.runId = runId;
    this.startedAt = startedAt;
    this.size = size;
  }

  /**
   * Keep the environment folded, and let its episodes go, when its evaluation is whole: its
   * verdict journaled, every attempt's episode (none for an invalid program), none failed (a
   * failed play is done again with `retryErrored`, in this invocation or a later one).
   */
  private fold(suite: string, id: string, plays: number): void {
    const k = key(suite, id);
    const verdict = this.verdicts.get(k);
    if (!verdict || this.foldedMap.has(k)) return;
    const journaled = this.episodeMap.get(k);
    const expected = verdict.verdict === 'invalid' ? 0 : plays;
    if ((journaled?.size ?? 0) !== expected) return;
    // In play order, as the evaluation lists them.
    const episodes: EpisodeResult[] = [];
    for (let attempt = 0; attempt < expected; attempt++) {
      const e = journaled!.get(episodeKey({ attempt, withHint: false }));
      if (!e || failedEpisode(e)) return;
      episodes.push(e);
    }
    const folded: FoldedEnvironment = { verdict, plays: tallyPlays(episodes), figures: playFigures(episodes) };
    const errors = playErrors(episodes);
    if (errors) folded.errors = errors;
    for (const e of journaled?.values() ?? []) if (e.spent) this.foldedSpent.set(suite, addUsage(this.foldedSpent.get(suite) ?? zeroUsage(), e.spent));
    this.foldedMap.set(k, folded);
    this.episodeMap.delete(k);
  }

  /** Forget the errored work journaled so far: it is done again. */
  private forgetErrors(): void {
    this.slotErrors.clear();
    for (const episodes of this.episodeMap.values()) {
      for (const [k, e] of episodes) if (failedEpisode(e)) episodes.delete(k);
    }
  }

  /** A self-play slot that errored (its repair, review or hint call failed), unless errors are retried. */
  slotError(suite: string, id: string): SlotError | undefined {
    return this.slotErrors.get(key(suite, id));
  }

  /**
   * What the invocations before this one spent on a suite that this run keeps: the calls each made
   * outside episodes (its last `usage` line), and the `spent` of every episode kept. An episode
   * done again (errored, with `retryErrored`; or cut by the stop, and never journaled) is counted
   * by the invocation that plays it, not here.
   */
  usage(suite: string): UsageMetrics | undefined {
    let total = this.outside.get(suite);
    const folded = this.foldedSpent.get(suite);
    if (folded) total = addUsage(total ?? zeroUsage(), folded);
    const prefix = key(suite, '');
    for (const [k, episodes] of this.episodeMap) {
      if (!k.startsWith(prefix)) continue;
      for (const e of episodes.values()) if (e.spent) total = addUsage(total ?? zeroUsage(), e.spent);
    }
    return total;
  }

  /**
   * The wall time, in seconds, the invocations before this one spent on a suite: each up to its
   * last journaled environment (or the suite's end). The time a stop cut short went into work that
   * was not journaled, which this invocation does again, and counts.
   */
  wallSec(suite: string): number {
    return this.clock.get(suite) ?? 0;
  }

  designed(suite: string, round: number): EnvironmentProgram[] | undefined {
    return this.designs.get(key(suite, String(round)));
  }

  verdict(suite: string, id: string): GateVerdict | undefined {
    return this.verdicts.get(key(suite, id));
  }

  /** The reviewer's journaled review of this environment (asking again could get another answer). */
  review(suite: string, id: string): ReviewRecord | undefined {
    return this.reviews.get(key(suite, id));
  }

  /** The designer's journaled hint for this program (asking again could get another one). */
  hint(suite: string, id: string): HintRecord | undefined {
    return this.hints.get(key(suite, id));
  }

  /** The journaled episode of this attempt, if it finished. */
  episode(suite: string, id: string, attempt: number, withHint: boolean): EpisodeResult | undefined {
    return this.episodeMap.get(key(suite, id))?.get(episodeKey({ attempt, withHint }));
  }

  /**
   * `environment` is the environment's last journaled line, word for word (false when it has
   * none). A stop journals the environments it cuts mid-play with the plays they had; once a
   * resumed run has played them to the end their summaries (solve rates, designer reward)
   * differ, and are journaled again.
   */
  environmentJournaled(suite: string, environment: JournaledEnvironment): boolean {
    return this.environments.get(key(suite, environment.id)) === lineDigest(environment);
  }

  /**
   * The environment as kept folded (its evaluation recorded whole before the stop): the run takes
   * it as it is, and evaluates it no more (its episodes are not kept: episode() has none of them).
   */
  folded(suite: string, id: string): FoldedEnvironment | undefined {
    return this.foldedMap.get(key(suite, id));
  }

  /** Episodes kept (not folded): those a resumed run may take one by one. */
  get keptEpisodes(): number {
    let n = 0;
    for (const episodes of this.episodeMap.values()) n += episodes.size;
    return n;
  }
}

/** `base` (when any) with gate verdicts this invocation already has, by program id: the gate runs once per program. */
export function withKnownVerdicts(base: PriorWork | undefined, known: ReadonlyMap<string, GateVerdict>): PriorWork {
  return new KnownVerdicts(base, known);
}

class KnownVerdicts extends PriorWork {
  constructor(
    private readonly base: PriorWork | undefined,
    private readonly known: ReadonlyMap<string, GateVerdict>,
  ) {
    super();
  }
  override designed(suite: string, round: number): EnvironmentProgram[] | undefined {
    return this.base?.designed(suite, round);
  }
  override verdict(suite: string, id: string): GateVerdict | undefined {
    return this.known.get(id) ?? this.base?.verdict(suite, id);
  }
  override hint(suite: string, id: string): HintRecord | undefined {
    return this.base?.hint(suite, id);
  }
  override review(suite: string, id: string): ReviewRecord | undefined {
    return this.base?.review(suite, id);
  }
  override episode(suite: string, id: string, attempt: number, withHint: boolean): EpisodeResult | undefined {
    return this.base?.episode(suite, id, attempt, withHint);
  }
  override environmentJournaled(suite: string, environment: JournaledEnvironment): boolean {
    return this.base?.environmentJournaled(suite, environment) ?? false;
  }
  override folded(suite: string, id: string): FoldedEnvironment | undefined {
    return this.base?.folded(suite, id);
  }
  override get keptEpisodes(): number {
    return this.base?.keptEpisodes ?? 0;
  }
  override slotError(suite: string, id: string): SlotError | undefined {
    return this.base?.slotError(suite, id);
  }
  override usage(suite: string): UsageMetrics | undefined {
    return this.base?.usage(suite);
  }
}

const zeroUsage = (): UsageMetrics => ({ calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, cachedCalls: 0 });
