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
import { dataArray, DATA_PARAMETER, dataHeaderOf } from '../../core/results/data-header.js';
import { DEFAULT_LIMITS } from '../../core/config/options.js';
import { SandboxError } from '../../core/errors.js';
import type { EnvironmentCapabilities, LoadedEnvironment, Sandbox, SandboxLimits } from '../../core/concepts/sandbox.js';
import type { EnvironmentProgram } from '../../core/concepts/environment.js';
import { prepareScript } from './program.js';
import { BOOTSTRAP_SOURCE } from './isolated-vm-bootstrap.js';
import { capabilitiesOf, DispatchedEnvironment, readReply, replyFailure } from './dispatch-reply.js';

export interface IsolatedVmSandboxOptions {
  /** Default limits of every environment (each load may override them). */
  limits?: Partial<SandboxLimits>;
}

/**
 * Compiled programs kept per isolate, so that loading the same program again skips parsing.
 * Programs that open with their data (core/results/data-header.ts) are kept by their code without the data,
 * so every task of a template shares one compiled script.
 */
const SCRIPT_CACHE_SIZE = 256;

/** The smallest memory limit isolated-vm accepts, in MiB. */
const MIN_MEMORY_MB = 8;

const PROTECTIONS = [
  'separate V8 isolate (isolated-vm) with a heap limit',
  'fresh context per environment (programs of spade-bench\'s own code share one, each with its own instance and random state)',
  'no require, process, network or file system',
  'wall-time limit per call',
  'output size limit',
  'call count limit',
  'seeded Math.random, fixed Date',
] as const;

type Dispatch = ivm.Reference<(method: string, argument: unknown, maxChars: number, data?: unknown) => string>;

/**
 * Strings of at least this many characters go into the isolate wrapped in an array. isolated-vm
 * hands a string of 1 KiB or more (512 two-byte characters) to the isolate as an external string
 * backed by memory outside its heap, which the isolate frees only when a full GC collects the
 * string; its small heap seldom runs one, so a model's replies (an action of 20 KB per step)
 * piled up there by the tens of MiB toward its memory limit. An array is copied by serializing it
 * (ExternalCopy) and rebuilt on the isolate's own heap, where a young GC frees it; the bootstrap
 * unwraps it (isolated-vm-bootstrap.ts). Shorter strings are passed as they are, which is cheaper.
 */
const WRAP_CHARS = 512;

/** `value` as the isolate gets it: a long string wrapped in an array, copied onto its heap. */
function intoIsolate<T>(value: T): T | ivm.Copy<string[]> {
  return typeof value === 'string' && value.length >= WRAP_CHARS ? new ivm.ExternalCopy([value]).copyInto({ release: true }) : value;
}
type Maker = ivm.Reference<() => unknown>;

/** A compiled program; `factory`: its factory function in the isolate's shared context, once made. */
interface CompiledScript {
  script: ivm.Script;
  factory?: ivm.Reference<unknown>;
}

/**
 * The context that environments of spade-bench's own code (EnvironmentMeta.trustedCode: the
 * reference families', the dataset templates') share: a context costs V8 0.3-0.5 ms to make and
 * about 160 KB of the isolate's heap, more than such an environment's whole validation. Each
 * environment still has its own instance, its own dispatcher and its own Math.random state; the
 * code is spade-bench's, which leaves no state in the context's globals.
 */
interface SharedContext {
  context: ivm.Context;
  maker: Maker;
}

/** One isolate for one memory limit, recreated after it is disposed. */
class SharedIsolate {
  private current: { isolate: ivm.Isolate; bootstrap: ivm.Script; scripts: Map<string, CompiledScript>; shared?: SharedContext } | undefined;

  constructor(private readonly memoryMb: number) {}

  get(): { isolate: ivm.Isolate; bootstrap: ivm.Script; scripts: Map<string, CompiledScript>; shared?: SharedContext } {
    if (!this.current || this.current.isolate.isDisposed) {
      const isolate = new ivm.Isolate({ memoryLimit: this.memoryMb });
      this.current = { isolate, bootstrap: isolate.compileScriptSync(BOOTSTRAP_SOURCE), scripts: new Map() };
    }
    return this.current;
  }

  /** The compiled program (its factory function's source), from the cache when possible, and its header's data. */
  program(program: EnvironmentProgram): { compiled: CompiledScript; data?: string } {
    const header = dataHeaderOf(program);
    const compiled = header ? this.script(header.code, DATA_PARAMETER) : this.script(program.source);
    return header ? { compiled, data: dataArray(header) } : { compiled };
  }

  private script(source: string, parameter = ''): CompiledScript {
    const { isolate, scripts } = this.get();
    const cached = scripts.get(source);
    if (cached) {
      scripts.delete(source);
      scripts.set(source, cached);
      return cached;
    }
    const prepared = prepareScript(source, parameter);
    let script: ivm.Script;
    try {
      script = isolate.compileScriptSync(prepared.script, { filename: 'environment.js', lineOffset: -1 });
    } catch (error) {
      throw new SandboxError('syntax', (error as Error).message);
    }
    const compiled: CompiledScript = { script };
    scripts.set(source, compiled);
    if (scripts.size > SCRIPT_CACHE_SIZE) {
      const oldest = scripts.keys().next().value as string;
      const evicted = scripts.get(oldest);
      evicted?.factory?.release();
      evicted?.script.release();
      scripts.delete(oldest);
    }
    return compiled;
  }

  /** The shared context of this isolate, made on first use. */
  shared(timeout: number): SharedContext {
    const current = this.get();
    if (!current.shared) {
      const context = current.isolate.createContextSync();
      const maker = current.bootstrap.runSync(context, { reference: true, timeout }) as Maker;
      current.shared = { context, maker };
    }
    return current.shared;
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
    /** The environment's own context, released with it; undefined in the shared context. */
    private readonly context: ivm.Context | undefined,
    private readonly dispatch: Dispatch,
    limits: SandboxLimits,
  ) {
    super(capabilities, limits);
  }

  /** Check that the environment can still be called, and count `count` more calls. */
  private admit(method: string, count: number): void {
    if (this.disposed) throw new SandboxError('crash', 'the environment was disposed', method);
    if (this.isolate.isDisposed) {
      if (this.breached) throw new SandboxError('memory', 'the isolate was disposed after this environment exceeded the memory limit', method);
      const error = new SandboxError('memory', 'the isolate was disposed after another environment in it exceeded the memory limit', method);
      error.collateral = true;
      throw error;
    }
    if (this.calls + count > this.limits.maxCalls) {
      throw new SandboxError('call-limit', `more than ${this.limits.maxCalls} calls on one environment`, method);
    }
  }

  /** Call a method of the environment instance; returns its raw value (a host copy). */
  protected call(method: string, argument?: string | number): unknown {
    this.admit(method, 1);
    this.calls++;
    let reply: unknown;
    try {
      reply = this.dispatch.applySync(undefined, [method, intoIsolate(argument), this.limits.maxOutputBytes * 2 + 1024], {
        timeout: this.limits.callTimeoutMs,
      });
    } catch (error) {
      const failed = fromIsolateError(error, this.isolate, method, this.limits);
      if (failed.kind === 'memory') this.breached = true;
      throw failed;
    }
    if (typeof reply === 'string') this.replyChars = reply.length;
    return readReply(reply, method, this.limits);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.dispatch.release();
    if (!this.isolate.isDisposed) this.context?.release();
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
    const { compiled, data } = shared.program(program);
    const { isolate, bootstrap } = shared.get();
    const timeout = limits.callTimeoutMs;
    const trusted = program.meta?.trustedCode === true;
    const own = trusted ? undefined : isolate.createContextSync();
    let dispatch: Dispatch | undefined;
    try {
      let factory: ivm.Reference<unknown>;
      if (own) {
        const maker = bootstrap.runSync(own, { reference: true, timeout }) as Maker;
        try {
          dispatch = maker.applySync(undefined, [], { result: { reference: true }, timeout }) as unknown as Dispatch;
        } finally {
          maker.release();
        }
        factory = compiled.script.runSync(own, { reference: true, timeout });
      } else {
        const { context, maker } = shared.shared(timeout);
        dispatch = maker.applySync(undefined, [], { result: { reference: true }, timeout }) as unknown as Dispatch;
        // The program's factory is made once in the shared context, and called once per environment.
        factory = compiled.factory ??= compiled.script.runSync(context, { reference: true, timeout });
      }
      let reply: unknown;
      try {
        reply = dispatch.applySync(undefined, ['create', factory.derefInto(), 0, intoIsolate(data)], { timeout });
      } finally {
        if (own) factory.release();
      }
      if (typeof reply !== 'string' || reply[0] !== 'R') throw replyFailure(String(reply), 'create', limits);
      return new IsolatedVmEnvironment(capabilitiesOf(JSON.parse(reply.slice(1)) as unknown[]), isolate, own, dispatch, limits);
    } catch (error) {
      dispatch?.release();
      if (!isolate.isDisposed) own?.release();
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
