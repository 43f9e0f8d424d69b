/**
 * Episodes: one agent playing one loaded environment from reset() to its end, and what is
 * recorded of it. Types only; core/run/episode.ts plays them.
 */
import type { ChatMessage, TokenUsage, UsageMetrics } from './provider.js';
import type { SandboxFailureKind } from './sandbox.js';

export interface EpisodeStep {
  action: string;
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
}

export type EpisodeOutcome = 'won' | 'lost' | 'errored';

/** What made an episode `errored`: the kind of the sandbox failure, or `agent` when the agent (or its model provider) failed. */
export type EpisodeErrorKind = SandboxFailureKind | 'agent';

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
  /**
   * Tool-use games only: the turns whose action was a well-formed tool call, read the way
   * ToolUseBaseEnv's step() reads it (an `<answer>` wins over a `<tool_call>`).
   */
  toolCalls?: number;
  /** Sum of rewards. */
  totalReward: number;
  /** Why the episode errored, in words (for people; code tests `errorKind`). */
  error?: string;
  /** The kind of failure that made the episode `errored` (a timeout is `timeout`). */
  errorKind?: EpisodeErrorKind;
  /**
   * The class of the failure (core/run/error-class.ts): `provider:<kind>` for a model call that
   * failed past its retries, `plugin`, `plugin-contract`, or `sandbox:<kind>`.
   */
  errorClass?: string;
  usage?: TokenUsage;
  /** `usage` holds even shares of requests that returned several samples, not this episode's own count. */
  sharedUsage?: boolean;
  /** Why the model stopped each turn's reply (`stop`, `length` when cut at the token budget), when the agent is a model. */
  finishReasons?: string[];
  costUsd?: number;
  /**
   * What the agent's model calls for this episode spent, as counted in the run's usage: every
   * answered call made while the episode was played (its retries after a broken sandbox
   * included), cached calls and their cost, and its share of a request it shared with other
   * episodes (n samples in one request). Absent when the agent spent nothing. A resumed
   * run adds the `spent` of the episodes it keeps to its usage (core/results/resume.ts).
   */
  spent?: UsageMetrics;
  wallMs: number;
  /** The trajectory; kept only for a sample of episodes in results. */
  steps?: EpisodeStep[];
  firstObservation?: string;
  /** The reward of every step, for every episode (RL export). */
  rewards?: number[];
  /** How the last step ended the episode. */
  terminated?: boolean;
  truncated?: boolean;
  /** The agent truncated the episode (a loss): its reply was cut at its token budget, or its context was full. */
  agentTruncated?: 'length' | 'context';
  /** The agent's conversation (LLM agents), kept in the journal for export. */
  messages?: ChatMessage[];
}
