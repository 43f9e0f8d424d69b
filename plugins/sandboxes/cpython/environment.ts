/**
 * One Python environment program loaded in the cpython sandbox: the host side of
 * LoadedEnvironment. It counts calls, turns replies into results through SPADE's contract, and
 * turns failures into SandboxErrors.
 *
 * Its sandbox can end without its own fault: another environment's call ran past its wall time
 * or out of memory, and the whole sandbox was replaced. The environment is then loaded again in
 * the new one and its episode replayed (reset and the steps since) before the next call, so its
 * results do not depend on its neighbours. A call whose sandbox died under it, or that ran out of
 * memory (the interpreter's memory holds what its neighbours left too), is made once more the
 * same way, in a fresh sandbox; only if it fails again is it the call's own failure.
 */
import { SandboxError } from '../../../index.js';
import type { EnvironmentCapabilities, FunctionToolSchema, LoadedEnvironment, ResetResult, SandboxLimits, SpadeValidation, StepResult } from '../../../index.js';
import { toResetResult, toStepResult, toText, toToolSchemas } from '../../../index.js';
import type { CallLimits, JailedInterpreter, Reply } from './jailed-interpreter.js';

/** Time for a load on top of the call limit (compiling, a fresh `random` module). */
const LOAD_ALLOWANCE_MS = 500;
/**
 * SPADE's validation makes up to 12 calls of the program in one request (build, reset, three
 * steps, a second reset, the wrapper's reset and three steps, close): it gets that many calls'
 * time. (SPADE itself gives the whole validation 60 s.)
 */
export const SPADE_VALIDATION_CALLS = 12;

type Method = 'reset' | 'step' | 'solution' | 'hint' | 'referenceAction' | 'getTools';

const callLimits = (limits: SandboxLimits): CallLimits => ({ memoryMb: limits.memoryMb, maxOutputBytes: limits.maxOutputBytes });

/** Whether a failed call is made once more in a fresh sandbox before it counts. */
const retried = (reply: Reply): boolean => !reply.ok && (reply.lost === 'died' || (reply.kind === 'memory' && reply.lost === undefined));

/** The value of a successful reply, or the SandboxError of a failed one. */
function unwrap(reply: Reply, method: string): unknown {
  if (reply.ok) return reply.value;
  throw new SandboxError(reply.kind, reply.message, method);
}

/** Load `source` as `envId`; resolves with the generation it was loaded in and its capabilities. */
export async function loadInto(interpreter: JailedInterpreter, envId: string, source: string, limits: SandboxLimits, maxTurns?: number): Promise<{ generation: number; capabilities: EnvironmentCapabilities }> {
  for (let attempt = 1; ; attempt++) {
    const body = { op: 'load' as const, env: envId, source, limits: callLimits(limits), ...(maxTurns !== undefined ? { maxTurns } : {}) };
    const { reply, generation } = await interpreter.request(body, limits.callTimeoutMs + LOAD_ALLOWANCE_MS);
    if (retried(reply) && attempt === 1) continue;
    const value = unwrap(reply, 'load') as Record<string, unknown>;
    return { generation, capabilities: capabilitiesOf(value) };
  }
}

/** What the loader's reply to a load says the environment has (tools: a get_tools() method, as SPADE's tool-use games). */
export function capabilitiesOf(value: Record<string, unknown>): EnvironmentCapabilities {
  return { solution: value.solution === true, hint: value.hint === true, referenceAction: value.referenceAction === true, tools: value.tools === true };
}

/** SPADE's own validation of `source` (nothing is kept in the interpreter). */
export async function spadeValidateIn(interpreter: JailedInterpreter, source: string, limits: SandboxLimits): Promise<SpadeValidation> {
  for (let attempt = 1; ; attempt++) {
    const { reply } = await interpreter.request({ op: 'spade-validate', source, limits: callLimits(limits) }, limits.callTimeoutMs * SPADE_VALIDATION_CALLS + LOAD_ALLOWANCE_MS);
    if (retried(reply) && attempt === 1) continue;
    return unwrap(reply, 'load') as SpadeValidation;
  }
}

export class CpythonEnvironment implements LoadedEnvironment {
  private calls = 0;
  private disposed = false;
  /** The calls that built the current episode's state: reset(seed), then steps. */
  private episode: { method: Method; args: unknown[] }[] = [];

  constructor(
    private readonly interpreter: JailedInterpreter,
    private readonly envId: string,
    private readonly source: string,
    private readonly limits: SandboxLimits,
    readonly capabilities: EnvironmentCapabilities,
    private generation: number,
    private readonly maxTurns?: number,
  ) {}

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

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.interpreter.environments--;
    if (!this.interpreter.alive(this.generation)) return;
    // Not waited for: the request is queued behind the calls before it, and answers at once.
    this.interpreter.request({ op: 'dispose', env: this.envId }, this.limits.callTimeoutMs).catch(() => undefined);
  }

  private async call(method: Method, args: unknown[]): Promise<unknown> {
    if (this.disposed) throw new SandboxError('crash', 'the environment was disposed', method);
    if (++this.calls > this.limits.maxCalls) {
      throw new SandboxError('call-limit', `more than ${this.limits.maxCalls} calls on one environment`, method);
    }
    let again = false;
    for (;;) {
      if (!this.interpreter.alive(this.generation)) await this.restore(method);
      const { reply, generation } = await this.interpreter.request({ op: 'call', env: this.envId, method, args, limits: callLimits(this.limits) }, this.limits.callTimeoutMs);
      if (generation !== this.generation) continue; // the sandbox was replaced while this call waited its turn
      if (retried(reply) && !again) {
        again = true;
        continue;
      }
      const value = unwrap(reply, method);
      if (method === 'reset') this.episode = [{ method, args }];
      else if (method === 'step') this.episode.push({ method, args });
      return value;
    }
  }

  /** Load the program again in the new sandbox and replay the episode so far. */
  private async restore(method: string): Promise<void> {
    try {
      const { generation } = await loadInto(this.interpreter, this.envId, this.source, this.limits, this.maxTurns);
      this.generation = generation;
      for (const past of this.episode) {
        const { reply } = await this.interpreter.request({ op: 'call', env: this.envId, ...past, limits: callLimits(this.limits) }, this.limits.callTimeoutMs);
        unwrap(reply, past.method);
      }
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new SandboxError('crash', `the environment was lost with its sandbox, and replaying it failed: ${detail}`, method);
    }
  }
}
