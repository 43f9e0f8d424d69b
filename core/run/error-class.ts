/**
 * The classes of errored work, and their tally. A piece of work (an episode, a design slot, a
 * repair, a hint) that fails gets no result: it is `errored`, never a loss and never invalid.
 * Its class says whose failure it was:
 *   - `provider:<kind>`: a model call that failed past the provider's retries (ProviderError's
 *     kind: connection, auth, server, rate-limit, timeout, bad-response, client, unknown);
 *   - `plugin-contract`: a plugin returned the wrong shape (PluginContractError);
 *   - `plugin`: a plugin (an agent, a designer, a provider without the shared layer) threw;
 *   - `sandbox:<kind>`: the environment's own program failed while played (timeout, memory...).
 * The first three are the run's failures: they stop the run past --max-errors. The last is the
 * environment's behaviour, counted apart from wins and losses but not a failure of the run.
 */
import { PluginContractError, SandboxError } from '../errors.js';
import { ProviderError } from '../providers/provider-error.js';
import type { ErrorClassSummary, ErrorStage, RunErrors } from '../results/results.js';

export function errorClassOf(error: unknown): string {
  if (error instanceof PluginContractError) return 'plugin-contract';
  if (error instanceof ProviderError) return `provider:${error.kind}`;
  if (error instanceof SandboxError) return `sandbox:${error.kind}`;
  // Errors that crossed a thread or a queue keep their name, not their class.
  const name = (error as { name?: unknown } | undefined)?.name;
  if (name === 'PluginContractError') return 'plugin-contract';
  if (name === 'ProviderError' && typeof (error as { kind?: unknown }).kind === 'string') return `provider:${(error as { kind: string }).kind}`;
  return 'plugin';
}

/** The error's text as a person reads it: `Name: message`. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Whether errored work of this class is a failure of the run (counted against --max-errors). */
export const isRunFailure = (errorClass: string): boolean => !errorClass.startsWith('sandbox:');

/** Classes that stop the run at once, whatever --max-errors allows: a bad key, a broken plugin. */
export const isFatal = (errorClass: string): boolean => errorClass === 'provider:auth' || errorClass === 'plugin-contract';

/** The class of an errored episode (every errored episode records one; `plugin` names a missing one). */
export const episodeErrorClass = (episode: { errorClass?: string }): string => episode.errorClass ?? 'plugin';

/** An environment's errored plays by class and message, with how many of each, in the order first met (undefined: none errored). */
export type PlayErrors = Map<string, { errorClass: string; message: string; count: number }>;

/** The errored plays among `episodes` (in play order), counted by class and message. */
export function playErrors(episodes: readonly { outcome: string; error?: string; errorClass?: string; errorKind?: string }[]): PlayErrors | undefined {
  let errors: PlayErrors | undefined;
  for (const episode of episodes) {
    if (episode.outcome !== 'errored') continue;
    const errorClass = episodeErrorClass(episode);
    const message = episode.error ?? 'errored';
    errors ??= new Map();
    const k = `${errorClass}\u0000${message}`;
    const entry = errors.get(k);
    if (entry) entry.count++;
    else errors.set(k, { errorClass, message, count: 1 });
  }
  return errors;
}

/** One piece of errored work. */
export interface ErroredWork {
  suite: string;
  stage: ErrorStage;
  errorClass: string;
  message: string;
}

/** Distinct messages kept per class. */
const MESSAGES = 3;

/** Errored work summed up by class, as results.json lists it. */
export class ErrorTally {
  private readonly classes = new Map<string, ErrorClassSummary>();

  add(work: ErroredWork): void {
    const c = this.entry(work.errorClass);
    c.count++;
    c.byStage[work.stage] = (c.byStage[work.stage] ?? 0) + 1;
    c.bySuite[work.suite] = (c.bySuite[work.suite] ?? 0) + 1;
    this.note(c, work.message);
  }

  /** Another part of the run's errored work, as its results list it (a shard's, when shards are merged). */
  addSummary(errors: RunErrors): void {
    for (const other of errors.classes) {
      const c = this.entry(other.errorClass);
      c.count += other.count;
      for (const [stage, n] of Object.entries(other.byStage)) c.byStage[stage as ErrorStage] = (c.byStage[stage as ErrorStage] ?? 0) + (n ?? 0);
      for (const [suite, n] of Object.entries(other.bySuite)) c.bySuite[suite] = (c.bySuite[suite] ?? 0) + n;
      for (const message of other.messages) this.note(c, message);
    }
  }

  private entry(errorClass: string): ErrorClassSummary {
    let c = this.classes.get(errorClass);
    if (!c) this.classes.set(errorClass, (c = { errorClass, failure: isRunFailure(errorClass), count: 0, byStage: {}, bySuite: {}, messages: [] }));
    return c;
  }

  private note(c: ErrorClassSummary, message: string): void {
    if (c.messages.length < MESSAGES && !c.messages.includes(message)) c.messages.push(message);
  }

  summary(): RunErrors {
    const classes = [...this.classes.values()].sort((a, b) => b.count - a.count || a.errorClass.localeCompare(b.errorClass));
    return {
      total: classes.reduce((n, c) => n + c.count, 0),
      failures: classes.filter((c) => c.failure).reduce((n, c) => n + c.count, 0),
      classes,
    };
  }
}

/** `--max-errors`: a count of errors allowed (`0`: none, the default), or a share of the work so far (`20%`). */
export interface ErrorAllowance {
  count?: number;
  share?: number;
}

/** Whether `failures` errored pieces out of `work` done exceed the allowance (a share is judged after 20 pieces of work). */
export function exceedsAllowance(allowance: ErrorAllowance, failures: number, work: number): boolean {
  if (failures === 0) return false;
  if (allowance.count !== undefined) return failures > allowance.count;
  return work >= 20 ? failures / work > allowance.share! : false;
}
