/**
 * Suites: a pool of tasks, each an environment program and the seed of its reset(), so that
 * static benchmarks and self-play pools are measured by the same code. A suite may also be a
 * curriculum pool: task generators whose difficulty the run adapts round by round. Types only.
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
  /**
   * The third-party packages the Python sandbox in force can import (numpy, networkx, sympy...).
   * A suite leaves out the tasks that need others, and counts them in `skippedTasks`. Unset: not known.
   */
  pythonPackages?: readonly string[];
}

/**
 * A pool whose tasks are made on demand at a difficulty: the run's curriculum (a sliding window
 * per environment, RLVE's adaptive difficulty) picks environments and difficulties round by
 * round, from how the agent did, and the pool makes the tasks.
 */
export interface CurriculumPool {
  /** The environments to draw from, in a fixed order (loaded once; the same options as tasks()). */
  environments(options: SuiteLoadOptions): Promise<string[]>;
  /** The task of `environment` at `difficulty` (0 the easiest), its problem made from `seed`. Call after environments(). */
  task(request: CurriculumTaskRequest): SuiteTask;
}

export interface CurriculumTaskRequest {
  environment: string;
  difficulty: number;
  seed: number;
  /** The round it is played in: the task's program id is unique per round and environment. */
  round: number;
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
  /** Tasks the last tasks() (or environments()) call left out because they cannot run here, by reason. */
  readonly skippedTasks?: Readonly<Record<string, number>>;
  /** Set for a curriculum pool: the run plays it in rounds (beside self-play) instead of calling tasks(). */
  readonly curriculum?: CurriculumPool;
  tasks(options: SuiteLoadOptions): Promise<SuiteTask[]>;
}
