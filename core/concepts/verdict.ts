/**
 * The validation gate's verdict on one environment program: valid, unproven or invalid, the
 * reason code of the first failed check, and every check. Types only; core/gate.ts gives it.
 */
import type { GameType } from './environment.js';
import type { SandboxFailureKind } from './sandbox.js';

export type GateReason =
  | SandboxFailureKind
  | 'smoke-test' // step("1"), step("2") or step("test") crashed
  | 'nondeterministic' // the same seed gave a different episode
  | 'reference-loses' // solution() / referenceAction did not win
  | 'wrong-answer-wins' // a wrong answer won
  | 'random-wins' // random play won too often
  | 'answer-leak' // the observation contains the answer
  | 'no-episode-end'; // the reference never ended the episode within the horizon

export type Verdict = 'valid' | 'unproven' | 'invalid';

export interface GateCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface GateVerdict {
  verdict: Verdict;
  /** Reason code of the first failed check (invalid), or `unproven`. */
  reason?: GateReason | 'unproven';
  checks: GateCheck[];
  /** First observation of reset(seed): the task text. */
  firstObservation?: string;
  /** Horizon: meta.horizon, or what reset() reported, or the reference's episode length. */
  horizon?: number;
  /** The program's game type, as far as the gate got (core/game-type.ts). */
  gameType?: GameType;
  wallMs: number;
}
