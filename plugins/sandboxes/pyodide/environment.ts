/**
 * One Python environment program loaded in an interpreter process: the host side of
 * LoadedEnvironment. It counts calls, turns replies into results through SPADE's contract, and
 * turns failures into SandboxErrors.
 *
 * If the interpreter holding it was replaced (another call timed out or ran out of memory), the
 * environment is loaded again and its episode replayed (reset and the steps since) before the
 * next call, so environments are deterministic: an innocent neighbour's episode goes on.
 */
import { SandboxError } from '../../../core/errors.js';
import type { EnvironmentCapabilities, SandboxLimits, SpadeValidation } from '../../../core/concepts/sandbox.js';
import { capabilitiesOf, LOAD_ALLOWANCE_MS, PythonEnvironment, SPADE_VALIDATION_CALLS, spadeChecksFailure } from '../python/environment.js';
import type { InterpreterProcess } from './interpreter-process.js';
import { reviveFloats } from './protocol.js';
import type { CallLimits, EnvironmentMethod, Reply } from './protocol.js';

export function callLimitsOf(limits: SandboxLimits): CallLimits {
  return { callTimeoutMs: limits.callTimeoutMs, memoryMb: limits.memoryMb, maxOutputBytes: limits.maxOutputBytes };
}

/** The value of a successful reply, or the SandboxError of a failed one. */
export function unwrap(reply: Reply, method: string): unknown {
  if (reply.ok) return JSON.parse(reply.json, reviveFloats);
  throw new SandboxError(reply.kind, reply.message, method);
}

/** Load `source` as environment `envId`; resolves with its capabilities or throws a SandboxError. */
export async function loadInto(
  process: InterpreterProcess,
  envId: string,
  source: string,
  limits: SandboxLimits,
  maxTurns?: number,
): Promise<EnvironmentCapabilities> {
  const reply = await process.request(
    {
      op: 'load',
      env: envId,
      source,
      limits: { ...callLimitsOf(limits), callTimeoutMs: limits.callTimeoutMs + LOAD_ALLOWANCE_MS },
      ...(maxTurns !== undefined ? { maxTurns } : {}),
    },
    limits.callTimeoutMs + LOAD_ALLOWANCE_MS,
  );
  return capabilitiesOf(unwrap(reply, 'load') as Record<string, unknown>);
}

/** SPADE's own validation of `source` (nothing is kept in the interpreter). */
export async function spadeValidateIn(process: InterpreterProcess, source: string, limits: SandboxLimits, wholeMs?: number, resetGate?: number): Promise<SpadeValidation> {
  const timeoutMs = (wholeMs ?? limits.callTimeoutMs * SPADE_VALIDATION_CALLS) + LOAD_ALLOWANCE_MS;
  const reply = await process.request({ op: 'spade-validate', source, limits: { ...callLimitsOf(limits), callTimeoutMs: timeoutMs }, ...(resetGate !== undefined && { resetGate }) }, timeoutMs);
  try {
    return unwrap(reply, 'load') as SpadeValidation;
  } catch (error) {
    throw spadeChecksFailure(error, limits, wholeMs);
  }
}

/** SPADE's f-string brace repair of `source` (the code is parsed, never run). */
export async function repairBracesIn(process: InterpreterProcess, source: string, limits: SandboxLimits): Promise<string> {
  const timeoutMs = limits.callTimeoutMs + LOAD_ALLOWANCE_MS;
  const reply = await process.request({ op: 'repair-braces', source, limits: { ...callLimitsOf(limits), callTimeoutMs: timeoutMs } }, timeoutMs);
  return unwrap(reply, 'load') as string;
}

export class PyodideEnvironment extends PythonEnvironment {
  private calls = 0;
  private disposed = false;
  /** The calls that built the current episode's state: reset(seed), then steps. */
  private episode: { method: EnvironmentMethod; args: unknown[] }[] = [];

  constructor(
    private readonly process: InterpreterProcess,
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
    if (this.generation !== this.process.generation) return;
    this.process.environments--;
    await this.process.request({ op: 'dispose', env: this.envId }, this.limits.callTimeoutMs).catch(() => undefined);
  }

  protected async call(method: EnvironmentMethod, args: unknown[]): Promise<unknown> {
    if (this.disposed) throw new SandboxError('crash', 'the environment was disposed', method);
    if (++this.calls > this.limits.maxCalls) {
      throw new SandboxError('call-limit', `more than ${this.limits.maxCalls} calls on one environment`, method);
    }
    if (this.generation !== this.process.generation) await this.restore(method);
    const reply = await this.process.request(
      { op: 'call', env: this.envId, method, args, limits: callLimitsOf(this.limits) },
      this.limits.callTimeoutMs,
    );
    const value = unwrap(reply, method);
    if (method === 'reset') this.episode = [{ method, args }];
    else if (method === 'step') this.episode.push({ method, args });
    return value;
  }

  /** Load the program again in the replaced interpreter and replay the episode so far. */
  private async restore(method: string): Promise<void> {
    try {
      await loadInto(this.process, this.envId, this.source, this.limits, this.maxTurns);
      this.generation = this.process.generation;
      this.process.environments++;
      for (const past of this.episode) {
        unwrap(await this.process.request({ op: 'call', env: this.envId, ...past, limits: callLimitsOf(this.limits) }, this.limits.callTimeoutMs), past.method);
      }
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new SandboxError('crash', `the environment was lost when its interpreter was replaced, and replaying it failed: ${detail}`, method);
    }
  }
}
