/**
 * The two roles of self-play: the designer writes environment programs, the agent plays them.
 * Either is a model behind a provider or the offline reference policy. Types only.
 */
import type { EnvironmentProgram } from './environment.js';
import type { ChatChoice, ChatMessage, TokenUsage } from './provider.js';
import type { SuiteSampling } from './suite.js';
import type { ToolDefinition } from './tools.js';
import type { GateVerdict } from './verdict.js';

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

/** One record of SPADE's environment memory (its EnvironmentRecord, as its env_memory.json holds it). */
export interface SpadeMemoryRecord {
  game_file: string;
  skill: string;
  code_snippet: string;
  actor_win_rate: number;
  regret: number;
  rollout_id: number;
  metadata: Record<string, unknown>;
}

export interface DesignRequest {
  round: number;
  /** How many environments to write this round. */
  count: number;
  /**
   * The skill of each environment of the round (SPADE's rotation), one per slot: a cognitive
   * skill, or a tool-use skill, which asks for a tool-use game. A designer that follows it
   * records the skill in meta.skill; one that cannot says which skill its program exercises
   * instead.
   */
  skills?: readonly string[];
  /** The band of no-hint win rates the designer should aim at ([0.4, 0.6] unless configured). */
  targetBand?: readonly [number, number];
  /** Seed for this round's designs. */
  seed: number;
  /** The environment memory (most recent last), at most a few hundred records. */
  memory: readonly EnvironmentRecord[];
  /** The agent's solve rate in each past round, oldest first. */
  recentSolveRates: readonly number[];
  /** SPADE's environment memory (`--memory spade`), which a designer under SPADE's protocol selects from as SPADE does. */
  spadeMemory?: readonly SpadeMemoryRecord[];
  /**
   * Only these slots (indices below `count`), to design again the slots whose call failed; the
   * other slots are left out of the answer. Absent: every slot.
   */
  slots?: readonly number[];
  signal?: AbortSignal;
}

export interface Designer {
  readonly id: string;
  /** Shown in every report, e.g. `reference policy (offline, deterministic)`. */
  readonly label: string;
  readonly kind: 'reference' | 'llm';
  /**
   * Model calls it makes well at once (a model-driven designer: its provider's requests in
   * flight). Self-play then works on that many design slots at once (repairs, reviews), not
   * only --environments-in-flight.
   */
  readonly capacity?: number;
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
  /** The first observation, from reset(); in a hinted play it ends with `\n\nHINT: <hint>`, as SPADE shows it. */
  observation: string;
  /** The privileged hint, when this episode is played with it (also in `observation`). */
  hint?: string;
  /** Seed of this attempt (the agent's own randomness). */
  seed: number;
  /** Which attempt of the environment this episode is (0 for the first). */
  attempt?: number;
  /** The most turns the episode may take. */
  horizon: number;
  /**
   * A tool-use environment's tools, read after reset() (what its get_tools() returned). The
   * agent calls one per turn by replying `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`
   * (core/run/tool-calls.ts writes it), and ends with `<answer>...</answer>`. Absent for other games.
   */
  tools?: ToolDefinition[];
  signal?: AbortSignal;
}

export interface AgentTurn {
  /** The whole reply; the environment reads the \boxed{...} action in it (a tool-use one its `<tool_call>` or `<answer>`). */
  reply: string;
  usage?: TokenUsage;
  costUsd?: number;
  /** Why the model stopped (`stop`, `length` when cut at the token budget...), when a model wrote the reply. */
  finishReason?: string;
  /** `usage` is an even share of one request's tokens, not this reply's own count (n samples in one request). */
  sharedUsage?: boolean;
  /**
   * The agent ended the episode with this turn, which is not sent to the environment: `length`,
   * its reply was cut at its token budget; `context`, no room was left in its context for a
   * reply (SPADE's rule: either truncates the episode, a loss).
   */
  ended?: 'length' | 'context';
}

/** A prompt sent to the agent's model as it is, with a suite's sampling (a published benchmark's protocol). */
export interface SampleRequest {
  messages: ChatMessage[];
  sampling: SuiteSampling;
  /** Samples wanted (the sampling's n for a task's first turn, 1 for a later turn of one episode). */
  n: number;
  seed?: number;
  signal?: AbortSignal;
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
  /**
   * The agent can be played in worker threads, each building its own from the run's config:
   * true for agents that compute offline (the reference policy), which keep a core busy. An
   * agent that waits on a model leaves it unset and stays on the main thread, where its
   * provider's limits are shared by every environment.
   */
  readonly workerThreads?: boolean;
  /**
   * Episodes the agent plays well at once: a model-driven agent's provider requests in flight
   * (`providers[id].requestsInFlight`). Set, the harness plays an environment's attempts at once,
   * each on its own loaded environment, and keeps environments in flight until that many
   * episodes are in play (core/run/play-schedule.ts). Unset (the offline reference policy, which keeps
   * a core busy), an environment's attempts are played one after another.
   */
  readonly capacity?: number;
  start(context: AgentEpisodeContext): AgentEpisode | Promise<AgentEpisode>;
  /**
   * Optional (model-driven agents): the agent's model asked directly, without the agent's own
   * prompt, with a suite's sampling; the samples in order, with their cost when known. A suite
   * with `sampling` is played through it (core/run/sampled-agent.ts); without it, by start().
   */
  sample?(request: SampleRequest): Promise<{ choices: ChatChoice[]; costUsd?: number }>;
}
