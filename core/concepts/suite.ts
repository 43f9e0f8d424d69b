/**
 * Suites: a pool of tasks, each an environment program and the seed of its reset(), so that
 * static benchmarks and self-play pools are measured by the same code. A suite may also be a
 * curriculum pool: task generators whose difficulty the run adapts round by round. Types only.
 */
import type { EnvironmentMeta, EnvironmentProgram, Language } from './environment.js';
import type { EpisodeResult } from './episode.js';
import type { SandboxLimits } from './sandbox.js';
import type { Verdict } from './verdict.js';

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

/**
 * How a published benchmark asks the model, as its authors' evaluation does (SPADE's
 * eval_offline): each task's first observation is the whole prompt, sent as the only user message
 * (no system prompt), `n` samples of it in one request where the server takes n, each sample
 * scored by the task's environment. Config may override any field (`suiteOptions[id].sampling`).
 */
export interface SuiteSampling {
  /** Samples per task, each one episode (`attempts` for this suite). */
  n: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  maxTokens?: number;
  /** Arguments of the server's chat template, e.g. `{ enable_thinking: false }`. */
  chatTemplateKwargs?: Record<string, unknown>;
  /** Turns an episode may take at most (a later turn is one sample, the conversation so far as its prompt). */
  maxTurns?: number;
}

/** One task of a suite as its score() reads it: the program's id and meta, the gate's verdict, its episodes. */
export interface ScoredTask {
  id: string;
  meta?: EnvironmentMeta;
  verdict: Verdict;
  episodes: readonly EpisodeResult[];
}

/** One of a suite's own figures (a paper's metric): its value, a 95% interval where one is known, what it counts. */
export interface SuiteScore {
  value: number;
  low?: number;
  high?: number;
  /** Samples (or tasks) behind the figure. */
  n: number;
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
  /** Set for a published benchmark scored as its authors do: its prompt, sampling and `n` samples per task. */
  readonly sampling?: SuiteSampling;
  /**
   * The suite's own figures from its tasks, under the keys its authors' evaluation writes
   * (`aime2025_pass1`, `gpqa_diamond_avg_at_n`...). Stored in results as `scores`.
   */
  score?(tasks: readonly ScoredTask[]): Record<string, SuiteScore>;
  /**
   * The suite's task text may not be published (GPQA's authors ask so): results, exports and
   * reports show task ids and hashes only, unless the run passes --show-task-text.
   */
  readonly privateText?: boolean;
  tasks(options: SuiteLoadOptions): Promise<SuiteTask[]>;
}
