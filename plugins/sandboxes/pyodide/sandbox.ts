/**
 * The `pyodide` sandbox: Python environment programs (SPADE's own format, unchanged) run in
 * Pyodide inside jailed child processes. Each worker is one child process with one interpreter,
 * started once (about 3 s) and reused; each environment gets a fresh Python namespace in it.
 *
 * Why a child process: Pyodide's `js` module and `pyodide.code.run_js` hand Python the
 * JavaScript of whatever process runs the interpreter, so the interpreter must run where that
 * JavaScript can do nothing: no environment variables, no network, no writable host files.
 */
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DEFAULT_LIMITS } from '../../../core/config/options.js';
import { SandboxError } from '../../../core/errors.js';
import type { EnvironmentProgram } from '../../../core/concepts/environment.js';
import type { LoadedEnvironment, LoadOptions, Sandbox, SandboxLimits, SpadeValidateOptions, SpadeValidation } from '../../../core/concepts/sandbox.js';
import { planJail } from './jail.js';
import { resolveChildEntry } from './child-entry.js';
import type { JailPlan } from './jail.js';
import { InterpreterProcess } from './interpreter-process.js';
import { PyodideEnvironment, loadInto, repairBracesIn, spadeValidateIn } from './environment.js';
import { PYTHON_DIR } from '../python/files.js';
import type { ReadyMessage } from './protocol.js';

export interface PyodideSandboxOptions {
  limits?: Partial<SandboxLimits>;
  /** Child processes (each with its own interpreter); environments are spread across them. Default 1. */
  workers?: number;
  /**
   * Host folders a suite's programs import from. Pyodide cannot read host folders: every program
   * of such a sandbox is refused at load, with the reason (the cpython sandbox can).
   */
  pythonPath?: readonly string[];
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** Node arguments and readable paths for the child process. */
function childCommand(): { nodeArgs: string[]; readable: string[] } {
  const require = createRequire(import.meta.url);
  const pyodideDir = path.dirname(require.resolve('pyodide/package.json'));
  const probe = path.join(here, `.write-probe-${process.pid}`);
  const { entry, dir } = resolveChildEntry();
  return {
    nodeArgs: ['--max-old-space-size=128', entry, pyodideDir, PYTHON_DIR, probe],
    readable: [...new Set([pyodideDir, PYTHON_DIR, dir])],
  };
}

/** Why a started child does not have the protections the plan claims, if it does not. */
function checkReady(plan: JailPlan): (ready: ReadyMessage) => string | undefined {
  return (ready) => {
    const variables = ready.environmentVariables.filter((name) => name !== 'PWD');
    if (variables.length > 0) return `the child sees environment variables ${variables.join(', ')}`;
    if (ready.hostFolderWritable) return 'the child can write to the host file system';
    if (ready.canWriteFiles !== false || ready.canStartProcesses !== false) return 'the Node permission model is not in force';
    if (plan.mode !== 'none' && ready.networkInterfaces.length > 0) {
      return `the child sees network interfaces ${ready.networkInterfaces.join(', ')}`;
    }
    return undefined;
  };
}

export function createPyodideSandbox(options: PyodideSandboxOptions = {}): Sandbox {
  const defaults: SandboxLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const workerCount = Math.max(1, Math.floor(options.workers ?? 1));
  const plan = planJail(childCommand());
  const processes: InterpreterProcess[] = [];
  let nextEnvironment = 0;
  let closed = false;

  function pickProcess(): InterpreterProcess {
    if (processes.length < workerCount) {
      const created = new InterpreterProcess(plan, checkReady(plan));
      processes.push(created);
      return created;
    }
    return processes.reduce((best, p) => (p.environments < best.environments ? p : best));
  }

  /** A program (or sandbox) that imports from host folders is refused, with the sandbox that can run it. */
  function refuseHostFolders(program: EnvironmentProgram): void {
    if (options.pythonPath?.length || program.pythonPath?.length) {
      throw new SandboxError('load', `the pyodide sandbox cannot import packages from host folders (${[...(options.pythonPath ?? []), ...(program.pythonPath ?? [])].join(', ')}): use --python-sandbox cpython`);
    }
  }

  return {
    id: 'pyodide',
    languages: ['python'],
    protections: plan.protections,
    packages: [],
    async load(program: EnvironmentProgram, limits?: Partial<SandboxLimits>, loadOptions: LoadOptions = {}): Promise<LoadedEnvironment> {
      if (closed) throw new Error('the pyodide sandbox is closed');
      if (program.language !== 'python') {
        throw new SandboxError('load', `the pyodide sandbox runs Python, not ${program.language}`);
      }
      refuseHostFolders(program);
      const merged: SandboxLimits = { ...defaults, ...limits };
      const target = pickProcess();
      const envId = `e${++nextEnvironment}`;
      target.environments++;
      try {
        const capabilities = await loadInto(target, envId, program.source, merged, loadOptions.maxTurns);
        return new PyodideEnvironment(target, envId, program.source, merged, capabilities, target.generation, loadOptions.maxTurns);
      } catch (error) {
        target.environments = Math.max(0, target.environments - 1);
        if (error instanceof SandboxError) throw error;
        throw new SandboxError('crash', `the Python interpreter is unavailable: ${(error as Error).message}`, 'load');
      }
    },
    async spadeValidate(program: EnvironmentProgram, limits?: Partial<SandboxLimits>, options: SpadeValidateOptions = {}): Promise<SpadeValidation> {
      if (closed) throw new Error('the pyodide sandbox is closed');
      if (program.language !== 'python') throw new SandboxError('load', `the pyodide sandbox runs Python, not ${program.language}`);
      refuseHostFolders(program);
      try {
        return await spadeValidateIn(pickProcess(), program.source, { ...defaults, ...limits }, options.timeoutMs, options.resetGateTurns);
      } catch (error) {
        if (error instanceof SandboxError) throw error;
        throw new SandboxError('crash', `the Python interpreter is unavailable: ${(error as Error).message}`, 'load');
      }
    },
    async spadeRepairBraces(source: string, limits?: Partial<SandboxLimits>): Promise<string> {
      if (closed) throw new Error('the pyodide sandbox is closed');
      try {
        return await repairBracesIn(pickProcess(), source, { ...defaults, ...limits });
      } catch (error) {
        if (error instanceof SandboxError) throw error;
        throw new SandboxError('crash', `the Python interpreter is unavailable: ${(error as Error).message}`, 'load');
      }
    },
    async close(): Promise<void> {
      closed = true;
      await Promise.all(processes.map((p) => p.close()));
    },
  };
}
