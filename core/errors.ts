/**
 * Errors the CLI turns into exit codes. Anything else is a bug and exits 1 with a stack trace.
 */

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

/** The run stopped before its end for a reason other than a signal: too many errored episodes, or an output that could not be written. Exit 3; what finished is kept. */
export class RunStoppedError extends Error {
  readonly exitCode = 3;
  constructor(message: string) {
    super(message);
    this.name = 'RunStoppedError';
  }
}

export const EXIT = {
  ok: 0,
  /** validate: some program is invalid. */
  invalid: 1,
  usage: 2,
  /** The run stopped early: --max-errors reached, or the disk was full. */
  stopped: 3,
  /** Interrupted by SIGINT / SIGTERM (128 + signal number). */
  sigint: 130,
  sigterm: 143,
} as const;
