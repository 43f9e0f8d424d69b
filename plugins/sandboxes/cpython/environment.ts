/**
 * One Python environment program loaded in the cpython sandbox: the host side of
 * LoadedEnvironment. It counts calls, turns replies into results through SPADE's contract, and
 * turns failures into SandboxErrors.
 *
 * Its process can be lost without its own fault: another environment's call ran past its wall
 * time and the whole sandbox was killed, or a neighbour killed it. The environment is then
 * loaded again in a fresh process and its episode replayed (reset and the steps since) before
 * the next call, so its results do not depend on its neighbours. A call whose process died
 * under it is made once more the same way; only if it dies again is it the call's own failure.
 */
import { SandboxError } from '../../../core/types.js';
import type { EnvironmentCapabilities, LoadedEnvironment, ResetResult, SandboxLimits, StepResult } from '../../../core/types.js';
import { toResetResult, toStepResult, toText } from '../../../core/contract.js';
import type { EnvironmentLimits, ForkServer, Handle, Reply } from './fork-server.js';

/** Time for a load on top of the call limit (forking, compiling, a fresh `random` module). */
const LOAD_ALLOWANCE_MS = 500;

type Method = 'reset' | 'step' | 'solution' | 'hint' | 'referenceAction';

const environmentLimits = (limits: SandboxLimits): EnvironmentLimits => ({ memoryMb: limits.memoryMb, maxOutputBytes: limits.maxOutputBytes });

/** The value of a successful reply, or the SandboxError of a failed one. */
function unwrap(reply: Reply, method: string): unknown {
  if (reply.ok) return reply.value;
  throw new SandboxError(reply.kind, reply.message, method);
}

/** Load `source` in a new environment process of `server`; resolves with its handle and capabilities. */
export async function loadInto(server: ForkServer, source: string, limits: SandboxLimits): Promise<{ handle: Handle; capabilities: EnvironmentCapabilities }> {
  for (let attempt = 1; ; attempt++) {
    const { reply, handle } = await server.load(source, environmentLimits(limits), limits.callTimeoutMs + LOAD_ALLOWANCE_MS);
    if (!reply.ok && reply.lost === 'died' && attempt === 1) continue;
    const value = unwrap(reply, 'load') as Record<string, unknown>;
    return {
      handle: handle!,
      capabilities: { solution: value.solution === true, hint: value.hint === true, referenceAction: value.referenceAction === true },
    };
  }
}

export class CpythonEnvironment implements LoadedEnvironment {
  private calls = 0;
  private disposed = false;
  /** The calls that built the current episode's state: reset(seed), then steps. */
  private episode: { method: Method; args: unknown[] }[] = [];

  constructor(
    private readonly server: ForkServer,
    private handle: Handle,
    private readonly source: string,
    private readonly limits: SandboxLimits,
    readonly capabilities: EnvironmentCapabilities,
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

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.server.environments--;
    this.server.dispose(this.handle);
  }

  private async call(method: Method, args: unknown[]): Promise<unknown> {
    if (this.disposed) throw new SandboxError('crash', 'the environment was disposed', method);
    if (++this.calls > this.limits.maxCalls) {
      throw new SandboxError('call-limit', `more than ${this.limits.maxCalls} calls on one environment`, method);
    }
    for (let attempt = 1; ; attempt++) {
      if (!this.server.alive(this.handle)) await this.restore(method);
      const reply = await this.server.call(this.handle, method, args, this.limits.callTimeoutMs, this.limits.memoryMb);
      if (!reply.ok && reply.lost === 'died' && attempt === 1) continue;
      const value = unwrap(reply, method);
      if (method === 'reset') this.episode = [{ method, args }];
      else if (method === 'step') this.episode.push({ method, args });
      return value;
    }
  }

  /** Load the program again in a fresh process and replay the episode so far. */
  private async restore(method: string): Promise<void> {
    try {
      const { handle } = await loadInto(this.server, this.source, this.limits);
      this.handle = handle;
      for (const past of this.episode) {
        unwrap(await this.server.call(this.handle, past.method, past.args, this.limits.callTimeoutMs, this.limits.memoryMb), past.method);
      }
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new SandboxError('crash', `the environment was lost with its process, and replaying it failed: ${detail}`, method);
    }
  }
}
