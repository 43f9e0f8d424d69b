/**
 * The isolated-vm sandbox: JavaScript environment programs run in a separate V8 isolate
 * (its own heap, with a memory limit), one fresh context per loaded environment, so nothing a
 * program does to built-ins is seen by the next one. The isolate has no require, process,
 * network or file system; inside, Math.random is seeded from reset(seed), the clock is fixed
 * and console is silent (see isolated-vm-bootstrap.ts).
 *
 * Calls are synchronous (`applySync` with a timeout). A warm call costs a few microseconds
 * this way, against ~100 µs for the async form, which hops to a thread pool and back. It does
 * not starve the event loop: a call holds the main thread for at most `callTimeoutMs` (the
 * isolate is interrupted then), normal environment methods take microseconds, and one isolate
 * runs one call at a time anyway, so async calls would only queue behind each other.
 *
 * One isolate per memory limit is shared by the environments loaded with that limit. When a
 * program exceeds the limit, V8 disposes the whole isolate: that call fails with `memory`,
 * every other environment still open on the isolate fails on its next call with a `memory`
 * error marked `collateral` (evaluations load it again and redo that work), and the next load
 * gets a new isolate.
 */
import ivm from 'isolated-vm';
import {
  DEFAULT_LIMITS,
  SandboxError,
  type EnvironmentCapabilities,
  type EnvironmentProgram,
  type LoadedEnvironment,
  type Sandbox,
  type SandboxLimits,
} from '../../index.js';
import { prepareScript } from './program.js';
import { BOOTSTRAP_SOURCE } from './isolated-vm-bootstrap.js';
import { capabilitiesOf, DispatchedEnvironment, readReply, replyFailure } from './dispatch-reply.js';

export interface IsolatedVmSandboxOptions {
  /** Default limits of every environment (each load may override them). */
  limits?: Partial<SandboxLimits>;
}

/** Compiled programs kept per isolate, so that loading the same program again skips parsing. */
const SCRIPT_CACHE_SIZE = 256;

/** The smallest memory limit isolated-vm accepts, in MiB. */
const MIN_MEMORY_MB = 8;

const PROTECTIONS = [
  'separate V8 isolate (isolated-vm) with a heap limit',
  'fresh context per environment',
  'no require, process, network or file system',
  'wall-time limit per call',
  'output size limit',
  'call count limit',
  'seeded Math.random, fixed Date',
] as const;

/** One isolate for one memory limit, recreated after it is disposed. */
class SharedIsolate {
  private current: { isolate: ivm.Isolate; bootstrap: ivm.Script; scripts: Map<string, ivm.Script> } | undefined;

  constructor(private readonly memoryMb: number) {}

  get(): { isolate: ivm.Isolate; bootstrap: ivm.Script; scripts: Map<string, ivm.Script> } {
    if (!this.current || this.current.isolate.isDisposed) {
      const isolate = new ivm.Isolate({ memoryLimit: this.memoryMb });
      this.current = { isolate, bootstrap: isolate.compileScriptSync(BOOTSTRAP_SOURCE), scripts: new Map() };
    }
    return this.current;
  }

  /** The compiled program (its factory function's source), from the cache when possible. */
  script(source: string): ivm.Script {
    const { isolate, scripts } = this.get();
    const cached = scripts.get(source);
    if (cached) {
      scripts.delete(source);
      scripts.set(source, cached);
      return cached;
    }
    const prepared = prepareScript(source);
    let script: ivm.Script;
    try {
      script = isolate.compileScriptSync(prepared.script, { filename: 'environment.js', lineOffset: -1 });
    } catch (error) {
      throw new SandboxError('syntax', (error as Error).message);
    }
    scripts.set(source, script);
    if (scripts.size > SCRIPT_CACHE_SIZE) {
      const oldest = scripts.keys().next().value as string;
      scripts.get(oldest)?.release();
      scripts.delete(oldest);
    }
    return script;
  }

  dispose(): void {
    if (this.current && !this.current.isolate.isDisposed) this.current.isolate.dispose();
    this.current = undefined;
  }
}

/** Turn an error thrown by isolated-vm itself (not by the program) into a SandboxError. */
function fromIsolateError(error: unknown, isolate: ivm.Isolate, method: string, limits: SandboxLimits): SandboxError {
  const message = error instanceof Error ? error.message : String(error);
  if (/timed out/i.test(message)) {
    return new SandboxError('timeout', `${method}() ran longer than ${limits.callTimeoutMs} ms`, method);
  }
  if (/memory limit/i.test(message) || isolate.isDisposed) {
    return new SandboxError('memory', `the isolate exceeded its memory limit of ${limits.memoryMb} MiB (${message})`, method);
  }
  return new SandboxError('crash', message, method);
}


class IsolatedVmEnvironment extends DispatchedEnvironment {
  private calls = 0;
  private disposed = false;
  /** One of this environment's own calls exceeded the memory limit (and disposed the isolate). */
  private breached = false;

  constructor(
    capabilities: EnvironmentCapabilities,
    private readonly isolate: ivm.Isolate,
    private readonly context: ivm.Context,
    private readonly dispatch: ivm.Reference<(method: string, argument: unknown, maxChars: number) => string>,
    limits: SandboxLimits,
  ) {
    super(capabilities, limits);
  }

  /** Call a method of the environment instance; returns its raw value (a host copy). */
  protected call(method: string, argument?: string | number): unknown {
    if (this.disposed) throw new SandboxError('crash', 'the environment was disposed', method);
    if (this.isolate.isDisposed) {
      if (this.breached) throw new SandboxError('memory', 'the isolate was disposed after this environment exceeded the memory limit', method);
      const error = new SandboxError('memory', 'the isolate was disposed after another environment in it exceeded the memory limit', method);
      error.collateral = true;
      throw error;
    }
    if (++this.calls > this.limits.maxCalls) {
      throw new SandboxError('call-limit', `more than ${this.limits.maxCalls} calls on one environment`, method);
    }
    let reply: unknown;
    try {
      reply = this.dispatch.applySync(undefined, [method, argument, this.limits.maxOutputBytes * 2 + 1024], {
        timeout: this.limits.callTimeoutMs,
      });
    } catch (error) {
      const failed = fromIsolateError(error, this.isolate, method, this.limits);
      if (failed.kind === 'memory') this.breached = true;
      throw failed;
    }
    return readReply(reply, method, this.limits);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.dispatch.release();
    if (!this.isolate.isDisposed) this.context.release();
  }
}

export function createIsolatedVmSandbox(options: IsolatedVmSandboxOptions = {}): Sandbox {
  const defaults: SandboxLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const isolates = new Map<number, SharedIsolate>();

  function load(program: EnvironmentProgram, overrides?: Partial<SandboxLimits>): LoadedEnvironment {
    if (program.language !== 'javascript') {
      throw new SandboxError('load', `the isolated-vm sandbox runs JavaScript, not ${program.language}`);
    }
    const limits: SandboxLimits = { ...defaults, ...overrides };
    const memoryMb = Math.max(MIN_MEMORY_MB, Math.ceil(limits.memoryMb));
    let shared = isolates.get(memoryMb);
    if (!shared) isolates.set(memoryMb, (shared = new SharedIsolate(memoryMb)));
    const script = shared.script(program.source);
    const { isolate, bootstrap } = shared.get();
    const context = isolate.createContextSync();
    let dispatch: ivm.Reference<(method: string, argument: unknown, maxChars: number) => string> | undefined;
    try {
      dispatch = bootstrap.runSync(context, { reference: true, timeout: limits.callTimeoutMs });
      const factory = script.runSync(context, { reference: true, timeout: limits.callTimeoutMs });
      let reply: unknown;
      try {
        reply = dispatch.applySync(undefined, ['create', factory.derefInto(), 0], { timeout: limits.callTimeoutMs });
      } finally {
        factory.release();
      }
      if (typeof reply !== 'string' || reply[0] !== 'R') throw replyFailure(String(reply), 'create', limits);
      return new IsolatedVmEnvironment(capabilitiesOf(JSON.parse(reply.slice(1)) as unknown[]), isolate, context, dispatch, limits);
    } catch (error) {
      dispatch?.release();
      if (!isolate.isDisposed) context.release();
      if (error instanceof SandboxError) throw error;
      const failed = fromIsolateError(error, isolate, 'constructor', limits);
      throw failed.kind === 'crash' ? new SandboxError('load', failed.message) : failed;
    }
  }

  return {
    id: 'isolated-vm',
    languages: ['javascript'],
    protections: PROTECTIONS,
    async load(program, overrides) {
      return load(program, overrides);
    },
    async close() {
      for (const shared of isolates.values()) shared.dispose();
      isolates.clear();
    },
  };
}
