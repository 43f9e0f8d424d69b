/**
 * What both Python sandboxes' environments share on the host: the methods of LoadedEnvironment,
 * each one call of the program turned into a result through SPADE's contract, and what the
 * loader's reply to a load says the program has. How a call reaches the interpreter (and how an
 * environment comes back after its interpreter is replaced) is each sandbox's own `call()`.
 */
import { SandboxError } from '../../../core/errors.js';
import { toResetResult, toStepResult, toText, toToolSchemas } from '../../../core/gate/contract.js';
import type { EnvironmentCapabilities, LoadedEnvironment, SandboxLimits } from '../../../core/concepts/sandbox.js';
import type { FunctionToolSchema } from '../../../core/concepts/tools.js';
import type { ResetResult, StepResult } from '../../../core/concepts/environment.js';

/** The methods of a Python environment a sandbox calls. */
export type PythonMethod = 'reset' | 'step' | 'solution' | 'hint' | 'referenceAction' | 'getTools';

/**
 * The cpython sandbox holds a call to its limit (callTimeoutMs) in CPU time: on a busy machine
 * an honest call may wait for a CPU far longer than it runs. A call that waits without computing
 * is stopped at this wall time (cpython/channel.ts enforces both).
 */
export function wallCeilingMs(timeoutMs: number): number {
  return Math.max(timeoutMs * 10, timeoutMs + 5_000);
}

/** Time for a load on top of the call limit (compiling, a fresh `random` module). */
export const LOAD_ALLOWANCE_MS = 500;
/**
 * SPADE's validation makes up to 12 calls of the program in one request (build, reset, three
 * steps, a second reset, the wrapper's reset and three steps, close): it gets that many calls'
 * time. (SPADE itself gives the whole validation 60 s.)
 */
export const SPADE_VALIDATION_CALLS = 12;

/**
 * A timeout of SPADE's checks, which run as one request: said to be theirs, with the time they
 * had, rather than reported as one call's limit (12,500 ms against a call limit of 1,000 ms).
 */
export function spadeChecksFailure(error: unknown, limits: SandboxLimits, wholeMs?: number): unknown {
  if (!(error instanceof SandboxError) || error.kind !== 'timeout') return error;
  const budget = wholeMs === undefined ? `${SPADE_VALIDATION_CALLS} calls of ${limits.callTimeoutMs} ms, and ${LOAD_ALLOWANCE_MS} ms to load` : `${wholeMs} ms, and ${LOAD_ALLOWANCE_MS} ms to load`;
  return new SandboxError('timeout', `SPADE's checks (run as one request, given the time of ${budget}): ${error.message}`, error.method);
}

/** What the loader's reply to a load says the environment has (tools: a get_tools() method, as SPADE's tool-use games). */
export function capabilitiesOf(value: Record<string, unknown>): EnvironmentCapabilities {
  const maxTurns = typeof value.maxTurns === 'number' && Number.isInteger(value.maxTurns) && value.maxTurns > 0 ? { maxTurns: value.maxTurns } : {};
  return { solution: value.solution === true, hint: value.hint === true, referenceAction: value.referenceAction === true, tools: value.tools === true, ...maxTurns };
}

export abstract class PythonEnvironment implements LoadedEnvironment {
  abstract readonly capabilities: EnvironmentCapabilities;
  protected abstract readonly limits: SandboxLimits;

  /** Call `method` of the program with `args`; resolves with the value it returned (not yet checked). */
  protected abstract call(method: PythonMethod, args: unknown[]): Promise<unknown>;

  abstract dispose(): Promise<void>;

  async reset(seed: number): Promise<ResetResult> {
    return toResetResult(await this.call('reset', [seed]), this.limits);
  }

  async step(action: string): Promise<StepResult> {
    if (typeof action !== 'string') throw new SandboxError('contract', 'step() takes the action as a string', 'step');
    return toStepResult(await this.call('step', [action]), this.limits);
  }

  async solution(): Promise<string> {
    return toText(await this.call('solution', []), 'solution', this.limits);
  }

  async hint(): Promise<string> {
    return toText(await this.call('hint', []), 'hint', this.limits);
  }

  async referenceAction(observation: string): Promise<string> {
    return toText(await this.call('referenceAction', [observation]), 'referenceAction', this.limits);
  }

  /** The tools after the last reset() (SPADE's get_tools()), checked by the contract. */
  async getTools(): Promise<FunctionToolSchema[]> {
    return toToolSchemas(await this.call('getTools', []), this.limits);
  }
}
