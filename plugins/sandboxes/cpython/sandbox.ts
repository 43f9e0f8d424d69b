/**
 * The `cpython` sandbox: Python environment programs (SPADE's own format, unchanged, loaded by
 * the same loader as the pyodide sandbox) run in Debian's CPython, with numpy, networkx and
 * sympy, inside a bubblewrap jail. Each worker is one jail whose first process, the zygote, is
 * started once (numpy, networkx and sympy imported when a program first names them) and never
 * runs program code; each environment is a process of its own, forked from it (server.py), so
 * nothing a program changes reaches another environment.
 *
 * Where the jail cannot be set up, creating the sandbox fails with a UsageError that names the
 * fix (the command line exits 2): it never runs a program unjailed.
 */
import { DEFAULT_LIMITS } from '../../../core/config/options.js';
import { SandboxError } from '../../../core/errors.js';
import type { EnvironmentProgram } from '../../../core/concepts/environment.js';
import type { LoadedEnvironment, LoadOptions, Sandbox, SandboxLimits, SpadeValidateOptions, SpadeValidation } from '../../../core/concepts/sandbox.js';
import { UsageError } from '../../../core/errors.js';
import { ALLOWED_VARIABLES, SANDBOX_ID, checkJail, missingPackagesNote, planJail, setupProblem } from './jail.js';
import { PYTHON_PACKAGES } from '../python/files.js';
import { JailedInterpreter, type ReadyFacts } from './jailed-interpreter.js';
import { CpythonEnvironment, loadInto, repairBracesIn, spadeValidateIn } from './environment.js';

export interface CpythonSandboxOptions {
  limits?: Partial<SandboxLimits>;
  /** Jailed interpreters; environments are spread across them. Default 1. */
  workers?: number;
  /**
   * Host folders bound read-only into the jail and put on the Python path, in order (a suite's
   * own packages). When the host runs as root they must be readable by other users (the jail
   * runs as uid 65534).
   */
  pythonPath?: readonly string[];
  /** Another interpreter than /usr/bin/python3 (a virtual environment's), still run inside the jail. */
  python?: string;
}

/** Why a started sandbox does not have the protections the plan claims, if it does not. */
export function checkReady(facts: ReadyFacts): string | undefined {
  const variables = facts.environmentVariables.filter((name) => !ALLOWED_VARIABLES.has(name));
  if (variables.length > 0) return `the sandbox sees environment variables ${variables.join(', ')}`;
  if (facts.networkInterfaces.length > 0) return `the sandbox sees network interfaces ${facts.networkInterfaces.join(', ')}`;
  if (facts.uid !== SANDBOX_ID) return `the sandbox runs as uid ${facts.uid}, not ${SANDBOX_ID}`;
  if (facts.pid !== 1) return `the zygote is not the jail's first process (pid ${facts.pid})`;
  // CAP_SYS_ADMIN alone (bit 21), in the jail's user namespace: each environment's process drops it.
  if (!/^0*200000$/.test(facts.capabilities)) return `the zygote has capabilities other than CAP_SYS_ADMIN (${facts.capabilities})`;
  if (!facts.noNewPrivileges) return 'the sandbox may gain privileges (no_new_privs is off)';
  if (facts.seccomp !== '2') return `the sandbox runs without its seccomp filter (seccomp mode ${facts.seccomp})`;
  if (facts.serverFolderWritable) return 'the sandbox can write to its own files';
  const addressSpace = facts.limits?.RLIMIT_AS;
  // Python reads an unlimited one as -1.
  if (typeof addressSpace !== 'number' || addressSpace < 0) return `the jail's address-space limit is not in force (${addressSpace})`;
  return undefined;
}

export function createCpythonSandbox(options: CpythonSandboxOptions = {}): Sandbox {
  const jail = checkJail();
  if (jail.problem) throw new UsageError(`the cpython sandbox cannot start: ${jail.problem}`);
  const defaults: SandboxLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const workerCount = Math.max(1, Math.floor(options.workers ?? 1));
  let plan: ReturnType<typeof planJail>;
  try {
    plan = planJail({ hardMemoryMb: Math.max(1024, 4 * defaults.memoryMb), pythonPath: options.pythonPath, ...(options.python && { python: options.python }) });
  } catch (error) {
    throw new UsageError(`the cpython sandbox cannot start: ${setupProblem(error)}`);
  }
  const note = missingPackagesNote(jail.missingPackages);
  const interpreters: JailedInterpreter[] = [];
  let nextEnvironment = 0;
  let closed = false;

  function pick(): JailedInterpreter {
    if (interpreters.length < workerCount) {
      const created = new JailedInterpreter(plan, checkReady);
      interpreters.push(created);
      return created;
    }
    return interpreters.reduce((best, i) => (i.environments < best.environments ? i : best));
  }

  return {
    id: 'cpython',
    languages: ['python'],
    protections: note ? [...plan.protections, note] : plan.protections,
    packages: PYTHON_PACKAGES.filter((name) => !jail.missingPackages.includes(name)),
    async load(program: EnvironmentProgram, limits?: Partial<SandboxLimits>, options: LoadOptions = {}): Promise<LoadedEnvironment> {
      if (closed) throw new Error('the cpython sandbox is closed');
      if (program.language !== 'python') throw new SandboxError('load', `the cpython sandbox runs Python, not ${program.language}`);
      const merged: SandboxLimits = { ...defaults, ...limits };
      const interpreter = pick();
      const envId = `e${++nextEnvironment}`;
      interpreter.environments++;
      try {
        const { generation, capabilities } = await loadInto(interpreter, envId, program.source, merged, options.maxTurns);
        return new CpythonEnvironment(interpreter, envId, program.source, merged, capabilities, generation, options.maxTurns);
      } catch (error) {
        interpreter.environments = Math.max(0, interpreter.environments - 1);
        if (error instanceof SandboxError) throw error;
        throw new SandboxError('crash', `the Python sandbox is unavailable: ${(error as Error).message}`, 'load');
      }
    },
    async spadeValidate(program: EnvironmentProgram, limits?: Partial<SandboxLimits>, options: SpadeValidateOptions = {}): Promise<SpadeValidation> {
      if (closed) throw new Error('the cpython sandbox is closed');
      if (program.language !== 'python') throw new SandboxError('load', `the cpython sandbox runs Python, not ${program.language}`);
      try {
        return await spadeValidateIn(pick(), program.source, { ...defaults, ...limits }, options.timeoutMs, options.resetGateTurns);
      } catch (error) {
        if (error instanceof SandboxError) throw error;
        throw new SandboxError('crash', `the Python sandbox is unavailable: ${(error as Error).message}`, 'load');
      }
    },
    async spadeRepairBraces(source: string, limits?: Partial<SandboxLimits>): Promise<string> {
      if (closed) throw new Error('the cpython sandbox is closed');
      try {
        return await repairBracesIn(pick(), source, { ...defaults, ...limits });
      } catch (error) {
        if (error instanceof SandboxError) throw error;
        throw new SandboxError('crash', `the Python sandbox is unavailable: ${(error as Error).message}`, 'load');
      }
    },
    async close(): Promise<void> {
      closed = true;
      await Promise.all(interpreters.map((i) => i.close()));
    },
  };
}
