/**
 * Episodes: one agent playing one loaded environment from reset() to its end, and what is
 * recorded of it. Types only; core/episode.ts plays them.
 */
import type { ChatMessage, TokenUsage } from './provider.js';

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
