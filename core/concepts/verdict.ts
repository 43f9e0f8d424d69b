/**
 * The validation gate's verdict on one environment program: valid, unproven or invalid, the
 * reason code of the first failed check, and every check. Types only; core/gate/gate.ts gives it.
 */
import type { GameType } from './environment.js';
import type { EnvironmentCapabilities, SandboxFailureKind } from './sandbox.js';

export type GateReason =
  | SandboxFailureKind
  | 'smoke-test' // step("1"), step("2") or step("test") crashed
  | 'nondeterministic' // the same seed gave a different episode
  | 'reference-loses' // solution() / referenceAction did not win
  | 'wrong-answer-wins' // a wrong answer won
  | 'random-wins' // random play won too often
  | 'answer-leak' // the observation contains the answer
  | 'no-episode-end' // the reference never ended the episode within the horizon
  | 'reset-gate'; // SPADE's reset gate (tool-use runs): a success criterion raises at reset, whatever the seed

export type Verdict = 'valid' | 'unproven' | 'invalid';

export interface GateCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

/** The gate's two readings: `spade` (exactly SPADE's own checks) and `strict` (SPADE's and ours). */
export type GateReadingName = 'spade' | 'strict';

/** One reading's verdict on a program. */
export interface ReadingVerdict {
  verdict: Verdict;
  /** Reason code (invalid), or `unproven`. */
  reason?: GateReason | 'unproven';
  /** The failed check's words (for `spade`, SPADE's own message). */
  detail?: string;
}

export interface GateVerdict {
  /** The verdict of the reading that decides what is played (`gate`). */
  verdict: Verdict;
  /** Reason code of the first failed check (invalid), or `unproven`. */
  reason?: GateReason | 'unproven';
  /** The strict reading's checks, SPADE's first. */
  checks: GateCheck[];
  /** Both readings (absent in verdicts journaled before there were two). */
  readings?: { spade: ReadingVerdict; strict: ReadingVerdict };
  /** The reading that decided `verdict` (absent: strict). */
  gate?: GateReadingName;
  /** What the loaded program offers (solution, hint, referenceAction), when it loaded. */
  capabilities?: EnvironmentCapabilities;
  /** First observation of reset(seed): the task text. */
  firstObservation?: string;
  /** Horizon: meta.horizon, or what reset() reported, or the reference's episode length. */
  horizon?: number;
  /** The program's game type, as far as the gate got (core/run/game-type.ts). */
  gameType: GameType;
  wallMs: number;
}
