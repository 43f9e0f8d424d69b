/**
 * The vm2 sandbox: JavaScript environment programs in a vm2 VM (a Node `vm` context behind
 * vm2's proxies), one fresh VM per loaded environment. For users who already depend on vm2.
 *
 * It is NOT a security boundary: the program runs in the host process, and vm2's own README
 * warns that new ways to escape it keep being found. It has no memory limit (the program
 * allocates in the host's heap). Reports say so through `insecure: true`.
 *
 * Inside, the same dispatcher as isolated-vm's runs first (isolated-vm-bootstrap.ts): seeded
 * Math.random, fixed Date, silent console, no WebAssembly or shared memory. Every call goes
 * through `vm.run`, the only way vm2 applies its timeout (functions it returns run unlimited).
 */
import vm2 from 'vm2';
import { DEFAULT_LIMITS } from '../../core/config/options.js';
import { SandboxError } from '../../core/errors.js';
import type { EnvironmentCapabilities, LoadedEnvironment, Sandbox, SandboxLimits } from '../../core/concepts/sandbox.js';
import type { EnvironmentProgram } from '../../core/concepts/environment.js';
import { prepareScript } from './program.js';
import { BOOTSTRAP_SOURCE } from './isolated-vm-bootstrap.js';
import { capabilitiesOf, DispatchedEnvironment, readReply } from './dispatch-reply.js';

const { VM, VMScript } = vm2;
type VmInstance = InstanceType<typeof VM>;

export interface Vm2SandboxOptions {
  /** Default limits of every environment (each load may override them). memoryMb is not enforced. */
  limits?: Partial<SandboxLimits>;
}

const PROTECTIONS = [
  'NOT a security boundary: runs in the host process, and vm2\'s own README warns that new escapes keep being found',
  'fresh vm2 VM (Node vm context) per environment; no require or process inside',
  'no eval or Function constructor, no WebAssembly, no async code',
  'wall-time limit per call (vm2 timeout)',
  'output size limit',
  'call count limit',
  'seeded Math.random, fixed Date',
  'NO memory limit: the program allocates in the host heap',
] as const;

const INSTALL_DISPATCHER = new VMScript(
  `Object.defineProperty(globalThis, '__spadeDispatch', { value: (${BOOTSTRAP_SOURCE})(), writable: false, configurable: false });`,
  'spade-bootstrap.js',
);
const CALL = new VMScript('__spadeDispatch(__spadeCall[0], __spadeCall[1], __spadeCall[2])', 'spade-call.js');

/** A SandboxError for what vm2 itself threw (a timeout, or an error outside the dispatcher). */
function fromVmError(error: unknown, method: string, limits: SandboxLimits): SandboxError {
  if (error instanceof SandboxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/timed out/i.test(message)) return new SandboxError('timeout', `${method}() ran longer than ${limits.callTimeoutMs} ms`, method);
  if (/heap out of memory|Array buffer allocation failed|Invalid array length|Invalid string length/i.test(message)) {
    return new SandboxError('memory', message, method);
  }
  return new SandboxError(method === 'create' ? 'load' : 'crash', message, method === 'create' ? undefined : method);
}

class Vm2Environment extends DispatchedEnvironment {
  private calls = 0;
  private disposed = false;

  constructor(
    capabilities: EnvironmentCapabilities,
    private vm: VmInstance | undefined,
    limits: SandboxLimits,
  ) {
    super(capabilities, limits);
  }

  protected call(method: string, argument?: string | number): unknown {
    if (this.disposed || !this.vm) throw new SandboxError('crash', 'the environment was disposed', method);
    if (++this.calls > this.limits.maxCalls) {
      throw new SandboxError('call-limit', `more than ${this.limits.maxCalls} calls on one environment`, method);
    }
    return runDispatch(this.vm, method, argument, this.limits);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.vm = undefined;
  }
}

/** Run one dispatcher call under the VM's timeout; returns the raw value or throws a SandboxError. */
function runDispatch(vm: VmInstance, method: string, argument: unknown, limits: SandboxLimits): unknown {
  let reply: unknown;
  try {
    vm.setGlobal('__spadeCall', [method, argument, limits.maxOutputBytes * 2 + 1024]);
    reply = vm.run(CALL);
  } catch (error) {
    throw fromVmError(error, method, limits);
  }
  return readReply(reply, method, limits);
}

export function createVm2Sandbox(options: Vm2SandboxOptions = {}): Sandbox {
  const defaults: SandboxLimits = { ...DEFAULT_LIMITS, ...options.limits };

  function load(program: EnvironmentProgram, overrides?: Partial<SandboxLimits>): LoadedEnvironment {
    if (program.language !== 'javascript') {
      throw new SandboxError('load', `the vm2 sandbox runs JavaScript, not ${program.language}`);
    }
    const limits: SandboxLimits = { ...defaults, ...overrides };
    const prepared = prepareScript(program.source);
    const vm = new VM({ timeout: limits.callTimeoutMs, eval: false, wasm: false, allowAsync: false, sandbox: {} });
    // prepared.script is a factory function expression; the dispatcher calls it inside the VM,
    // so the class never crosses vm2's bridge.
    const create = new VMScript(`__spadeDispatch('create', ${prepared.script}, 0)`, 'environment.js');
    let reply: unknown;
    try {
      vm.run(INSTALL_DISPATCHER);
      reply = vm.run(create);
    } catch (error) {
      if (error instanceof SyntaxError) throw new SandboxError('syntax', error.message);
      throw fromVmError(error, 'create', limits);
    }
    return new Vm2Environment(capabilitiesOf(readReply(reply, 'create', limits) as unknown[]), vm, limits);
  }

  return {
    id: 'vm2',
    languages: ['javascript'],
    protections: PROTECTIONS,
    insecure: true,
    async load(program, overrides) {
      return load(program, overrides);
    },
    async close() {},
  };
}
