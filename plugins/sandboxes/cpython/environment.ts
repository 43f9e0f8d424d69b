/**
 * One Python environment program loaded in the cpython sandbox: the host side of
 * LoadedEnvironment. It counts calls, turns replies into results through SPADE's contract, and
 * turns failures into SandboxErrors.
 *
 * The environment is a process of its own in the sandbox. When a call of its own ends that
 * process (past its wall time, out of memory, a crash of the interpreter), the call fails, and
 * its next call gets a new process: the program is loaded again and its episode replayed (reset
 * and the steps since) first. The whole sandbox can also end without the environment's fault
 * (its zygote stopped answering, or died): the environment is then restored the same way in the
 * new one, and a call whose sandbox died under it is made once more; only if it fails again is
 * it the call's own failure.
 */
import { SandboxError } from '../../../core/errors.js';
import type { EnvironmentCapabilities, SandboxLimits, SpadeValidation } from '../../../core/concepts/sandbox.js';
import { capabilitiesOf, LOAD_ALLOWANCE_MS, PythonEnvironment, SPADE_VALIDATION_CALLS, spadeChecksFailure, type PythonMethod } from '../python/environment.js';
import type { CallLimits, JailedInterpreter, Reply } from './jailed-interpreter.js';

const callLimits = (limits: SandboxLimits): CallLimits => ({ memoryMb: limits.memoryMb, maxOutputBytes: limits.maxOutputBytes });

/** Whether a failed call is made once more in a fresh sandbox before it counts: its sandbox died under it. */
const retried = (reply: Reply): boolean => !reply.ok && reply.lost === 'died';

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

/** SPADE's own validation of `source` (nothing is kept in the interpreter). */
export async function spadeValidateIn(interpreter: JailedInterpreter, source: string, limits: SandboxLimits, timeoutMs?: number, resetGate?: number): Promise<SpadeValidation> {
  for (let attempt = 1; ; attempt++) {
    const { reply } = await interpreter.request({ op: 'spade-validate', source, limits: callLimits(limits), ...(resetGate !== undefined && { resetGate }) }, (timeoutMs ?? limits.callTimeoutMs * SPADE_VALIDATION_CALLS) + LOAD_ALLOWANCE_MS);
    if (retried(reply) && attempt === 1) continue;
    try {
      return unwrap(reply, 'load') as SpadeValidation;
    } catch (error) {
      throw spadeChecksFailure(error, limits, timeoutMs);
    }
  }
}

/** SPADE's f-string brace repair of `source` (the code is parsed, never run). */
export async function repairBracesIn(interpreter: JailedInterpreter, source: string, limits: SandboxLimits): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const { reply } = await interpreter.request({ op: 'repair-braces', source, limits: callLimits(limits) }, limits.callTimeoutMs + LOAD_ALLOWANCE_MS);
    if (retried(reply) && attempt === 1) continue;
    return unwrap(reply, 'load') as string;
  }
}

export class CpythonEnvironment extends PythonEnvironment {
  private calls = 0;
  private disposed = false;
  /** Its process ended with an earlier call: the next one loads it again first. */
  private ended = false;
  /** The calls that built the current episode's state: reset(seed), then steps. */
  private episode: { method: PythonMethod; args: unknown[] }[] = [];

  constructor(
    private readonly interpreter: JailedInterpreter,
    private readonly envId: string,
    private readonly source: string,
    protected readonly limits: SandboxLimits,
    readonly capabilities: EnvironmentCapabilities,
    private generation: number,
    private readonly maxTurns?: number,
  ) {
    super();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.interpreter.environments--;
    if (!this.interpreter.alive(this.generation)) return;
    // Not waited for: the request is queued behind the calls before it, and answers at once.
    this.interpreter.request({ op: 'dispose', env: this.envId }, this.limits.callTimeoutMs).catch(() => undefined);
  }

  protected async call(method: PythonMethod, args: unknown[]): Promise<unknown> {
    if (this.disposed) throw new SandboxError('crash', 'the environment was disposed', method);
    if (++this.calls > this.limits.maxCalls) {
      throw new SandboxError('call-limit', `more than ${this.limits.maxCalls} calls on one environment`, method);
    }
    let again = false;
    for (;;) {
      if (this.ended || !this.interpreter.alive(this.generation)) await this.restore(method);
      const { reply, generation } = await this.interpreter.request({ op: 'call', env: this.envId, method, args, limits: callLimits(this.limits) }, this.limits.callTimeoutMs);
      if (generation !== this.generation) continue; // the sandbox was replaced while this call waited its turn
      if (retried(reply) && !again) {
        again = true;
        continue;
      }
      if (!reply.ok && reply.ended) this.ended = true;
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
      this.ended = false;
      for (const past of this.episode) {
        const { reply } = await this.interpreter.request({ op: 'call', env: this.envId, ...past, limits: callLimits(this.limits) }, this.limits.callTimeoutMs);
        if (!reply.ok && reply.ended) this.ended = true;
        unwrap(reply, past.method);
      }
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new SandboxError('crash', `the environment was lost with its sandbox, and replaying it failed: ${detail}`, method);
    }
  }
}
