/**
 * The errors of spade-bench, each with a typed field a caller can test instead of its message:
 * those the CLI turns into exit codes (UsageError and DataError exit 2, RunStoppedError 3), and
 * SandboxError, a classified failure of an environment's call. Anything else is a bug and
 * exits 1 with a stack trace.
 */
import type { SandboxFailureKind } from './concepts/sandbox.js';
import type { RunErrors } from './results/results.js';

/** Wrong usage, config, plugin id, missing key or unreadable input: exit 2, nothing written. */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A data file that cannot be used: names the file and line. Exit 2. */
export class DataError extends UsageError {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    message: string,
  ) {
    super(`${file}${line !== undefined ? `:${line}` : ''}: ${message}`);
    this.name = 'DataError';
  }
}

/**
 * A plugin broke its contract: a method returned the wrong shape, or create() did not make
 * what its kind must. Names the plugin, the method and the field. Exit 2: the plugin must be
 * fixed; what finished before is kept.
 */
export class PluginContractError extends UsageError {
  constructor(
    readonly plugin: string,
    readonly method: string,
    readonly field: string,
    problem: string,
  ) {
    super(`plugin "${plugin}": ${method} ${field ? `returned ${field} ` : ''}${problem}`);
    this.name = 'PluginContractError';
  }
}

/** The run stopped before its end for a reason other than a signal: an output that could not be written. Exit 3; what finished is kept. */
export class RunStoppedError extends Error {
  readonly exitCode = 3;
  constructor(message: string) {
    super(message);
    this.name = 'RunStoppedError';
  }
}

/**
 * The run failed: a model call or a plugin failed past the provider's retries, more often than
 * --max-errors allows (by default, once). Exit 4; what finished is kept, and `--resume
 * --retry-errored` continues once the cause is fixed. `errorClass` is the failure's class
 * (core/run/error-class.ts), e.g. `provider:connection`.
 */
export class RunFailedError extends Error {
  readonly exitCode = 4;
  constructor(
    readonly errorClass: string,
    message: string,
    /** The run's errored work by class, when the run got as far as to list it. */
    readonly errors?: RunErrors,
  ) {
    super(message);
    this.name = 'RunFailedError';
  }
}

export const EXIT = {
  ok: 0,
  /** validate: some program is invalid. */
  invalid: 1,
  usage: 2,
  /** The run stopped early: an output could not be written (the disk was full). */
  stopped: 3,
  /** The run failed: a model or plugin error past the provider's retries, more than --max-errors allows. */
  failed: 4,
  /** The run finished, and a headline metric is below a --fail-under threshold. */
  belowThreshold: 5,
  /** Interrupted by SIGINT / SIGTERM (128 + signal number). */
  sigint: 130,
  sigterm: 143,
} as const;

/**
 * A sandboxed call that failed, classified by `kind` (timeout, memory, crash, ...). The run
 * records it as the environment's or the episode's failure; it never crashes the run.
 */
export class SandboxError extends Error {
  readonly kind: SandboxFailureKind;
  readonly method: string | undefined;
  /**
   * The failure came from another environment sharing this one's sandbox (it exceeded the
   * memory limit of the isolate both lived in), not from this program: the same work on a new
   * load would not fail. Evaluations start such work again rather than record it.
   */
  collateral = false;
  constructor(kind: SandboxFailureKind, message: string, method?: string) {
    super(message);
    this.name = 'SandboxError';
    this.kind = kind;
    this.method = method;
  }
}
