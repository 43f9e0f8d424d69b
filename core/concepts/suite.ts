/**
 * Suites: a pool of tasks, each an environment program and the seed of its reset(), so that
 * static benchmarks and self-play pools are measured by the same code. Types only.
 */
import type { EnvironmentProgram, Language } from './environment.js';
import type { SandboxLimits } from './sandbox.js';

export interface SuiteTask {
  program: EnvironmentProgram;
  /** Seed passed to reset() for this task. */
  seed: number;
}

export interface SuiteLoadOptions {
  /** At most this many tasks (the first ones in the suite's frozen order). */
  limit?: number;
  /** Where downloaded datasets are cached. */
  dataDir?: string;
}

export interface Suite {
  readonly id: string;
  readonly description: string;
  readonly language: Language;
  /**
   * Sandbox limits this suite's tasks need at least (e.g. HumanEval's slowest canonical check
   * runs about a second in Pyodide); the run raises its own limits to these for the suite.
   */
  readonly limits?: Partial<SandboxLimits>;
  /** Malformed records the last tasks() call skipped (only with `skipBad`); the run reports the count. */
  readonly skipped?: number;
  /** The first skipped record's problem, as `file:line: message`. */
  readonly firstProblem?: string;
  tasks(options: SuiteLoadOptions): Promise<SuiteTask[]>;
}
