/**
 * The core concepts of spade-bench, as types. Every plugin kind and every part of the run
 * loop speaks these; nothing here imports a vendor SDK or a sandbox library.
 */
import type { GateVerdict } from './results.js';

// ---------------------------------------------------------------------------------------------
// Environment programs
// ---------------------------------------------------------------------------------------------

export type Language = 'javascript' | 'python';

/**
 * Source code that defines one environment class with SPADE's interface:
 *   reset(seed) -> [observation, info]
 *   step(action) -> [observation, reward, terminated, truncated, info]
 *   optional solution() -> string        (single-answer environments: the exact answer)
 *   optional hint() -> string            (SPADE's privileged hint)
 *   optional referenceAction(observation) -> string  (multi-turn: a policy that proves it winnable)
 * The agent's action is its whole reply; answers and commands are wrapped in \boxed{...}.
 */
export interface EnvironmentProgram {
  /** Stable id, unique within a run (e.g. `r2-e5` or `procedural/hanoi-h8-003`). */
  id: string;
  language: Language;
  source: string;
  meta?: EnvironmentMeta;
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

// ---------------------------------------------------------------------------------------------
// Sandboxes
// ---------------------------------------------------------------------------------------------

/** How a sandboxed call can fail. A failure is a classified result, never a crash of the run. */
export type SandboxFailureKind =
  | 'syntax' // the program does not parse
  | 'load' // it parses but defines no usable environment class, or its constructor throws
  | 'timeout' // a call ran past its wall-time limit
  | 'memory' // the environment exceeded its memory limit
  | 'output-limit' // a returned observation/info/output was larger than allowed
  | 'call-limit' // more calls than allowed for one environment
  | 'crash' // the method threw
  | 'contract' // the method returned something that breaks SPADE's interface
  | 'escape-attempt' // the program tried to reach the host (process, require, files, network)
  | 'missing-method'; // an optional method (solution, hint, referenceAction) was called but is absent

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

export interface SandboxLimits {
  /** Wall time per method call, in milliseconds. */
  callTimeoutMs: number;
  /** Memory per environment (per isolate / interpreter), in MiB. */
  memoryMb: number;
  /** Largest observation, info or printed output of one call, in bytes (UTF-8 of its JSON). */
  maxOutputBytes: number;
  /** Most method calls on one loaded environment. */
  maxCalls: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  callTimeoutMs: 1000,
  memoryMb: 64,
  maxOutputBytes: 64 * 1024,
  maxCalls: 10_000,
};

export interface EnvironmentCapabilities {
  solution: boolean;
  hint: boolean;
  referenceAction: boolean;
}

/** An environment program loaded in a sandbox. Every method may reject with a SandboxError. */
export interface LoadedEnvironment {
  readonly capabilities: EnvironmentCapabilities;
  reset(seed: number): Promise<ResetResult>;
  step(action: string): Promise<StepResult>;
  solution(): Promise<string>;
  hint(): Promise<string>;
  referenceAction(observation: string): Promise<string>;
  /** Free the environment's context. Safe to call twice. */
  dispose(): Promise<void>;
}

export interface Sandbox {
  readonly id: string;
  readonly languages: readonly Language[];
  /** Protections actually in force, in words (shown by `spade-bench list` and in reports). */
  readonly protections: readonly string[];
  /** True when the sandbox is NOT a security boundary (vm2). Reports say so. */
  readonly insecure?: boolean;
  load(program: EnvironmentProgram, limits?: Partial<SandboxLimits>): Promise<LoadedEnvironment>;
  /** Release workers, isolates and interpreters. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Providers (chat models)
// ---------------------------------------------------------------------------------------------

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  stop?: string[];
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ChatResponse {
  text: string;
  usage: TokenUsage;
  /** Cost of this call in US dollars, when the price is known. */
  costUsd?: number;
  /** Served from the response cache. */
  cached?: boolean;
  latencyMs: number;
}

export interface Provider {
  /** Full id, e.g. `openai:gpt-4.1-mini`. */
  readonly id: string;
  chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse>;
  close?(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Roles: designer and agent
// ---------------------------------------------------------------------------------------------

/** What the environment memory keeps about one past environment. */
export interface EnvironmentRecord {
  id: string;
  round: number;
  family?: string;
  difficulty?: number;
  horizon?: number;
  valid: boolean;
  reason?: string;
  /** Win rate without the hint. */
  solveRate?: number;
  /** Win rate with the hint minus without. */
  regret?: number;
  designerReward?: number;
  /** The first observation (task text). */
  task?: string;
  source?: string;
}

export interface DesignRequest {
  round: number;
  /** How many environments to write this round. */
  count: number;
  /** Seed for this round's designs. */
  seed: number;
  /** The environment memory (most recent last), at most a few hundred records. */
  memory: readonly EnvironmentRecord[];
  /** The agent's solve rate in each past round, oldest first. */
  recentSolveRates: readonly number[];
  signal?: AbortSignal;
}

export interface Designer {
  readonly id: string;
  /** Shown in every report, e.g. `reference policy (offline, deterministic)`. */
  readonly label: string;
  readonly kind: 'reference' | 'llm';
  design(request: DesignRequest): Promise<EnvironmentProgram[]>;
  /**
   * Optional: rewrite a program the gate rejected, given the gate's verdict. The
   * self-play loop calls it at most `repairs` times per slot; the result is gated again.
   */
  repair?(program: EnvironmentProgram, verdict: GateVerdict, request: RepairRequest): Promise<EnvironmentProgram>;
}

/** What a designer's repair() is told besides the program and verdict. */
export interface RepairRequest {
  round: number;
  /** 1 for the first repair of a slot, 2 for the second... */
  attempt: number;
  /** Id of the slot's first program (`r0-e3`); a repair is `r0-e3-fix1`. */
  originalId: string;
  seed: number;
  signal?: AbortSignal;
}

export interface AgentEpisodeContext {
  environment: EnvironmentProgram;
  /** The first observation, from reset(). */
  observation: string;
  /** The privileged hint, when this episode is played with it. */
  hint?: string;
  /** Seed of this attempt (the agent's own randomness). */
  seed: number;
  /** The most turns the episode may take. */
  horizon: number;
  signal?: AbortSignal;
}

export interface AgentTurn {
  /** The whole reply; the environment reads the \boxed{...} action in it. */
  reply: string;
  usage?: TokenUsage;
  costUsd?: number;
}

export interface AgentEpisode {
  /** Called with the first observation, then with each new observation. */
  act(observation: string, turn: number): Promise<AgentTurn>;
  /** Optional: the whole conversation so far (LLM agents), kept with the episode for export. */
  transcript?(): ChatMessage[];
}

export interface Agent {
  readonly id: string;
  readonly label: string;
  readonly kind: 'reference' | 'llm';
  start(context: AgentEpisodeContext): AgentEpisode | Promise<AgentEpisode>;
}

// ---------------------------------------------------------------------------------------------
// Suites and episodes
// ---------------------------------------------------------------------------------------------

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
  tasks(options: SuiteLoadOptions): Promise<SuiteTask[]>;
}

export interface EpisodeStep {
  action: string;
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
}

export type EpisodeOutcome = 'won' | 'lost' | 'errored';

export interface EpisodeResult {
  suite: string;
  environmentId: string;
  round?: number;
  attempt: number;
  withHint: boolean;
  seed: number;
  horizon: number;
  outcome: EpisodeOutcome;
  /** Turns taken (steps). */
  turns: number;
  /** Sum of rewards. */
  totalReward: number;
  /** Why the episode errored, or which sandbox failure ended it. */
  error?: string;
  usage?: TokenUsage;
  costUsd?: number;
  wallMs: number;
  /** The trajectory; kept only for a sample of episodes in results. */
  steps?: EpisodeStep[];
  firstObservation?: string;
  /** The reward of every step, for every episode (RL export). */
  rewards?: number[];
  /** How the last step ended the episode. */
  terminated?: boolean;
  truncated?: boolean;
  /** The agent's conversation (LLM agents), kept in the journal for export. */
  messages?: ChatMessage[];
}
