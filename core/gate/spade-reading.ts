/**
 * The gate's `spade` reading: exactly SPADE's own checks (spade-rl/spade at 9b2b813), what SPADE
 * would play. Its loader and `validate_game`:
 *   - the program loads (SPADE's names, the first class ending in Env, built with max_turns=1000);
 *   - reset(seed=42) gives a non-empty string observation and a dict (a bare string is read
 *     as (observation, {}));
 *   - \boxed{1}, \boxed{test}, \boxed{42} each give a well-typed 5-tuple (a str, an int or float
 *     reward within [-10, 10], bool flags, a dict) until one ends the episode;
 *   - reset(seed=123) works;
 *   - then reset() and the actions 1, 2, test, with the game's exceptions swallowed (only a hang
 *     fails there), and close().
 *
 * A sandbox that runs SPADE's loader (the Python sandboxes) replays it exactly, with SPADE's
 * messages (Sandbox.spadeValidate). Elsewhere (JavaScript, which SPADE's loader cannot load at
 * all) the same checks are applied to the JavaScript form through LoadedEnvironment: arrays
 * stand for tuples, and the contract already refuses a NaN reward, which SPADE's range check
 * lets through.
 */
import type { EnvironmentProgram, LoadedEnvironment, Sandbox, SandboxLimits, SpadeValidation } from '../types.js';
import type { ReadingVerdict } from '../results/results.js';
import { SandboxError } from '../errors.js';

/** One reading of the gate: its verdict, its reason code, and the failed check's words. */
export type Reading = ReadingVerdict;

/** The actions of SPADE's execution check, then those of validate_game (through its wrapper). */
export const SPADE_CHECK_ACTIONS = ['\\boxed{1}', '\\boxed{test}', '\\boxed{42}'] as const;
export const SPADE_SMOKE_ACTIONS = ['1', '2', 'test'] as const;
/** The max_turns SPADE's validate_game builds a game with. */
export const SPADE_VALIDATION_TURNS = 1000;

/** Failures that are the sandbox's verdict, not the program's exception: SPADE's wrapper would not swallow them. */
const SANDBOX_KINDS = new Set(['timeout', 'memory', 'output-limit', 'call-limit', 'escape-attempt']);

class Rejected extends Error {
  constructor(message: string, readonly kind: NonNullable<SpadeValidation['kind']>) {
    super(message);
  }
}

const why = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Rethrow the sandbox's own failures; anything else the program did becomes SPADE's message `prefix: ...`. */
function programFailure(error: unknown, prefix: string, kind: NonNullable<SpadeValidation['kind']>): Rejected {
  if (error instanceof SandboxError && SANDBOX_KINDS.has(error.kind)) throw error;
  const contract = error instanceof SandboxError && error.kind === 'contract';
  return new Rejected(`${prefix}${why(error)}`, contract ? 'contract' : kind);
}

/**
 * SPADE's checks through LoadedEnvironment, for sandboxes that do not run SPADE's loader. `lend`,
 * when given, receives the loaded environment once the checks passed (its owner then disposes
 * it); otherwise it is disposed here.
 */
export async function spadeValidateThroughContract(
  sandbox: Sandbox,
  program: EnvironmentProgram,
  limits?: Partial<SandboxLimits>,
  lend?: (environment: LoadedEnvironment) => void,
): Promise<SpadeValidation> {
  let env: LoadedEnvironment;
  try {
    env = await sandbox.load(program, limits, { maxTurns: SPADE_VALIDATION_TURNS });
  } catch (error) {
    if (!(error instanceof SandboxError) || SANDBOX_KINDS.has(error.kind)) throw error;
    return { accepted: false, message: `Failed to load the game: ${error.message}`, kind: error.kind === 'syntax' ? 'syntax' : 'load' };
  }
  let lent = false;
  try {
    try {
      const { observation } = await env.reset(42);
      if (observation.length === 0) throw new Rejected('Game reset() failed: reset() returned empty or non-string observation', 'contract');
    } catch (error) {
      if (error instanceof Rejected) throw error;
      throw programFailure(error, 'Game reset() failed: ', 'crash');
    }
    for (const [i, action] of SPADE_CHECK_ACTIONS.entries()) {
      const prefix = `Game step() failed on action ${i + 1} '${action}': `;
      let ended: boolean;
      try {
        const step = await env.step(action);
        if (step.reward < -10 || step.reward > 10) throw new Rejected(`${prefix}step() reward ${step.reward} outside expected range [-10, 10]`, 'contract');
        ended = step.terminated || step.truncated;
      } catch (error) {
        if (error instanceof Rejected) throw error;
        throw programFailure(error, prefix, 'smoke-test');
      }
      if (ended) break;
    }
    try {
      await env.reset(123);
    } catch (error) {
      throw programFailure(error, 'Game reset() failed on second call: ', 'crash');
    }
    // SPADE's wrapper: the game's exceptions (and broken returns) end the episode quietly.
    const quietly = async <T>(call: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await call();
      } catch (error) {
        if (error instanceof SandboxError && SANDBOX_KINDS.has(error.kind)) throw error;
        return undefined;
      }
    };
    await quietly(() => env.reset(0));
    for (const action of SPADE_SMOKE_ACTIONS) {
      const step = await quietly(() => env.step(action));
      if (!step || step.terminated || step.truncated) break;
    }
    if (lend) {
      lend(env);
      lent = true;
    }
    return { accepted: true };
  } catch (error) {
    if (error instanceof Rejected) return { accepted: false, message: error.message, kind: error.kind };
    throw error;
  } finally {
    if (!lent) await env.dispose();
  }
}

/**
 * SPADE's verdict on `program`, as a reading. A failure of the sandbox's own (timeout, memory,
 * an escape attempt) rejects it with that kind; a collateral one (another environment broke the
 * shared isolate) is thrown when asked, so the caller can try again. `lend`: as for
 * spadeValidateThroughContract (a sandbox that runs SPADE's loader itself lends nothing).
 */
export async function spadeReading(
  sandbox: Sandbox,
  program: EnvironmentProgram,
  options: {
    limits?: Partial<SandboxLimits>;
    rethrowCollateral?: boolean;
    lend?: (environment: LoadedEnvironment) => void;
    /**
     * Wall time of the whole validation (SPADE's 60 s), for a sandbox that runs SPADE's loader;
     * elsewhere, each call of the checks is allowed that long. Default: the call limit per call.
     */
    timeoutMs?: number;
    /** SPADE's reset gate after its validation, games built with this turn budget (Sandbox.spadeValidate). */
    resetGateTurns?: number;
  },
): Promise<Reading> {
  let validation: SpadeValidation;
  const { timeoutMs, resetGateTurns } = options;
  try {
    validation = sandbox.spadeValidate
      ? await sandbox.spadeValidate(program, options.limits, { ...(timeoutMs !== undefined && { timeoutMs }), ...(resetGateTurns !== undefined && { resetGateTurns }) })
      : await spadeValidateThroughContract(sandbox, program, timeoutMs !== undefined ? { ...options.limits, callTimeoutMs: timeoutMs } : options.limits, options.lend);
  } catch (error) {
    if (!(error instanceof SandboxError)) {
      return { verdict: 'invalid', reason: 'crash', detail: `unexpected ${(error as Error)?.name ?? 'error'}: ${why(error)}` };
    }
    if (options.rethrowCollateral && error.collateral) throw error;
    return { verdict: 'invalid', reason: error.kind, detail: `${error.kind}: ${error.message}` };
  }
  if (validation.accepted) return { verdict: 'valid' };
  return { verdict: 'invalid', reason: validation.kind ?? 'crash', detail: validation.message ?? 'rejected' };
}
