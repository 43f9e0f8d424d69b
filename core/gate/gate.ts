/**
 * The validation gate: decides whether a designed environment is a valid, verifiable goal, in
 * two readings, both given for every program:
 *   spade   exactly SPADE's own checks: what SPADE would play (core/gate/spade-reading.ts);
 *   strict  SPADE's checks and then spade-bench's own: determinism, the reference wins, wrong
 *           answers and random play lose, no answer leak... (core/gate/strict-reading.ts).
 * `gate` picks the reading that decides what is played (default `strict`); the verdict's
 * `verdict` and `reason` follow it, and `readings` holds both; every instance the gate loaded
 * is disposed (plays load the program afresh). `checks`
 * lists the strict reading's checks, SPADE's first. `gameType` is the program's game type
 * (core/run/game-type.ts), as far as the strict reading got.
 */
import type { EnvironmentProgram, LoadedEnvironment, Sandbox, SandboxLimits } from '../types.js';
import type { GateReason, GateVerdict } from '../results/results.js';
import { spadeReading } from './spade-reading.js';
import { strictReading } from './strict-reading.js';
import { DEFAULT_MAX_TURNS, DEFAULTS, GATE_READINGS } from '../config/options.js';
import { gameTypeOf } from '../run/game-type.js';

export { SMOKE_ACTIONS, RANDOM_WIN_LIMIT, wrongAnswers } from './strict-reading.js';
export { leaksAnswer } from './answer-leak.js';
export { unboxed, solutionPlan } from './solution-actions.js';
export { SPADE_CHECK_ACTIONS, SPADE_SMOKE_ACTIONS } from './spade-reading.js';
export type { Reading } from './spade-reading.js';

/** The readings of the gate (the first decides what is played by default). */
export { GATE_READINGS };
export type GateReading = (typeof GATE_READINGS)[number];

export interface GateOptions {
  /** Seed passed to reset() (the task). Default 0. */
  seed?: number;
  /**
   * The turn budget of an episode: the horizon when neither meta.horizon nor reset()'s info gives
   * one, and what SPADE-format Python games are built with. Default 64.
   */
  maxTurns?: number;
  /** Episodes of random play. Default 8. */
  randomTrials?: number;
  limits?: Partial<SandboxLimits>;
  /** The reading that decides the verdict (and so what is played). Default `strict`. */
  gate?: GateReading;
  /** Throw a collateral SandboxError (another environment's fault) instead of giving a verdict. */
  rethrowCollateral?: boolean;
  /**
   * Wall time of SPADE's validation (the spade reading), in ms. Default: SPADE's 60 s under
   * `gate: 'spade'`, else the call limit for each of its calls.
   */
  spadeValidateMs?: number;
  /**
   * SPADE's reset gate of its tool-use runs after its validation, with games built with
   * `maxTurns` (a Python sandbox that runs SPADE's loader; JavaScript has no such games). It
   * rejects, in both readings, a game one of whose success criteria raises at reset whatever the
   * seed (reason `reset-gate`).
   */
  resetGate?: boolean;
  /**
   * Programs of spade-bench's own code (meta.trustedCode), in a sandbox that does not run SPADE's
   * loader itself: the strict reading goes on with the instance SPADE's checks passed on, rather
   * than loading the program a second time (default true; false loads it again, as for every
   * other program). That code's reset(seed) sets everything an episode reads and its turn
   * budget is its own (meta.horizon), so the verdict is the same either way (the tests compare
   * them); only SPADE's few calls count towards the instance's call limit too. A model's
   * program always gets a fresh instance.
   */
  reuseSpadeInstance?: boolean;
}

/** Every reason code the gate can give a rejected (or unproven) environment. */
export const GATE_REASONS: readonly (GateReason | 'unproven')[] = [
  'syntax', 'load', 'timeout', 'memory', 'output-limit', 'call-limit', 'crash', 'contract',
  'escape-attempt', 'missing-method', 'smoke-test', 'nondeterministic', 'reference-loses',
  'wrong-answer-wins', 'random-wins', 'answer-leak', 'no-episode-end', 'reset-gate', 'unproven',
];

const DEFAULT_RANDOM_TRIALS = 8;

/**
 * SPADE's time limits (spade/core/orchestrator.py at 9b2b813): 60 s for its whole validation of
 * a program (VALIDATE_GAME_TIMEOUT), 30 s for each call of a play (ENV_STEP_TIMEOUT: load and
 * reset, every step). In force under `--gate spade`, unless the config sets limits.callTimeoutMs.
 */
export const SPADE_VALIDATE_TIMEOUT_MS = 60_000;
export const SPADE_STEP_TIMEOUT_MS = 30_000;

/**
 * The sandbox limits a run's environments get under `gate`: the config's, and under SPADE's gate
 * its 30 s a call where the config sets no call limit (the validation's 60 s is the gate's own).
 */
export function gateLimits(gate: GateReading | undefined, limits: Partial<SandboxLimits>): Partial<SandboxLimits> {
  return gate === 'spade' && limits.callTimeoutMs === undefined ? { ...limits, callTimeoutMs: SPADE_STEP_TIMEOUT_MS } : limits;
}

export async function validateEnvironment(
  sandbox: Sandbox,
  program: EnvironmentProgram,
  options: GateOptions = {},
): Promise<GateVerdict> {
  const started = performance.now();
  const gate = options.gate ?? DEFAULTS.gate;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  let lent: LoadedEnvironment | undefined;
  const reuse = options.reuseSpadeInstance !== false && program.meta?.trustedCode === true;
  const spadeValidateMs = options.spadeValidateMs ?? (gate === 'spade' ? SPADE_VALIDATE_TIMEOUT_MS : undefined);
  const spade = await spadeReading(sandbox, program, {
    limits: options.limits,
    rethrowCollateral: options.rethrowCollateral,
    ...(spadeValidateMs !== undefined ? { timeoutMs: spadeValidateMs } : {}),
    ...(options.resetGate ? { resetGateTurns: maxTurns } : {}),
    ...(reuse ? { lend: (environment: LoadedEnvironment) => (lent = environment) } : {}),
  });
  const strict = await strictReading(sandbox, program, spade, {
    seed: options.seed ?? 0,
    maxTurns,
    randomTrials: options.randomTrials ?? DEFAULT_RANDOM_TRIALS,
    limits: options.limits,
    // The gate's instance is never played: a program could tell the gate's calls from an agent's
    // (it counts them) and answer the two differently. Plays load the program afresh.
    keep: false,
    rethrowCollateral: options.rethrowCollateral,
    ...(lent ? { environment: lent } : {}),
  });
  const deciding = gate === 'spade' ? spade : strict.reading;
  const horizon = strict.horizon ?? (deciding.verdict === 'invalid' ? undefined : typeof program.meta?.horizon === 'number' ? program.meta.horizon : maxTurns);
  const verdict: GateVerdict = {
    verdict: deciding.verdict,
    ...(deciding.reason ? { reason: deciding.reason } : {}),
    checks: strict.checks,
    readings: { spade, strict: strict.reading },
    gate,
    gameType: strict.gameType ?? gameTypeOf(program, { tools: strict.capabilities?.tools, horizon: horizon ?? program.meta?.horizon }),
    wallMs: 0,
  };
  if (strict.firstObservation !== undefined) verdict.firstObservation = strict.firstObservation;
  if (horizon !== undefined) verdict.horizon = horizon;
  if (strict.capabilities) verdict.capabilities = strict.capabilities;
  verdict.wallMs = performance.now() - started;
  return verdict;
}
