/**
 * Environment programs: the source code of one environment with SPADE's interface, and what
 * its reset() and step() return. Types only; the contract checks are in core/gate/contract.ts.
 */
export type Language = 'javascript' | 'python';

/**
 * What kind of game a program is, as results and reports group them:
 *   tool-use     SPADE's ToolUseBaseEnv: the class extends it (or exposes tools through
 *                get_tools()); the agent calls simulated tools as `<tool_call>{...}</tool_call>`
 *                and submits `<answer>...</answer>`;
 *   single-turn  one answer ends the episode (horizon 1);
 *   multi-turn   the state changes over several turns.
 */
export type GameType = 'single-turn' | 'multi-turn' | 'tool-use';

/**
 * Source code that defines one environment class with SPADE's interface:
 *   reset(seed) -> [observation, info]
 *   step(action) -> [observation, reward, terminated, truncated, info]
 *   optional solution() -> string        (single-answer environments: the exact answer)
 *   optional hint() -> string            (SPADE's privileged hint)
 *   optional referenceAction(observation) -> string  (multi-turn: a policy that proves it winnable)
 * The agent's action is its whole reply; answers and commands are wrapped in \boxed{...}.
 * A tool-use program extends SPADE's ToolUseBaseEnv instead (no import needed: the sandboxes
 * provide it), defines tool_<name>(arguments) methods and solution(), and is played with
 * `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` and `<answer>...</answer>`.
 */
export interface EnvironmentProgram {
  /** Stable id, unique within a run (e.g. `r2-e5` or `procedural/hanoi-h8-003`). */
  id: string;
  language: Language;
  source: string;
  meta?: EnvironmentMeta;
  /**
   * Host folders of Python packages the program imports (a suite's data, such as RLVE's Gym),
   * put read-only on the Python sandbox's path. They must be readable by the sandbox (the
   * cpython jail runs programs as another user).
   */
  pythonPath?: readonly string[];
  /**
   * The designer's call for this slot failed (a model call past its retries, a plugin that
   * threw): there is no program, and the slot is errored, neither gated nor counted invalid.
   * `errorClass` as core/run/error-class.ts names it.
   */
  designError?: { errorClass: string; message: string };
}

export interface EnvironmentMeta {
  /** Family or generator name (reference designer, suites). */
  family?: string;
  /** Difficulty on the family's own scale, 1 (easiest) to 10. */
  difficulty?: number;
  /** The most turns an episode may take (1 for single-answer environments). */
  horizon?: number;
  /** Where the program came from: `reference-designer`, `openai:gpt-4.1-mini`, `procedural`, a file path... */
  origin?: string;
  /** The cognitive skill the environment exercises (SPADE's skills: core/selfplay/skills.ts). */
  skill?: string;
  /** Free-form parameters of the generator. */
  params?: Record<string, unknown>;
  /**
   * A task of a curated static dataset (GSM8K, HumanEval, a user's `jsonl:` file), written by
   * people rather than by the designer under test. The gate still proves it verifiable (loads,
   * deterministic, the reference wins, wrong answers lose) but does not hold against it what
   * only judges a designer: the task text mentioning the answer (a word problem's answer is
   * often one of its numbers) or random play guessing a one-digit answer (GSM8K answers 1, 2).
   */
  curated?: boolean;
  /**
   * The program's code is spade-bench's own (a reference family's, a dataset template's): only
   * the data in its data header (core/results/data-header.ts) is particular to it. The isolated-vm
   * sandbox runs such programs side by side in one context (each with its own instance and
   * random state) instead of a fresh context each. Never set on a program a model or a user
   * wrote: those get a fresh context, as hostile code.
   */
  trustedCode?: boolean;
}

export type Info = Record<string, unknown>;

export interface ResetResult {
  observation: string;
  info: Info;
}

export interface StepResult {
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Info;
}
