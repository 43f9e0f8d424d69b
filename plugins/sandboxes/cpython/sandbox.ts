/**
 * The `cpython` sandbox: Python environment programs (SPADE's own format, unchanged, loaded by
 * the same loader as the pyodide sandbox) run in Debian's CPython, with numpy, networkx and
 * sympy, inside a bubblewrap jail. Each worker is one jailed fork server that imported those
 * packages once; each environment is a process forked from it, alone in its address space.
 *
 * Where the jail cannot be set up, creating the sandbox fails with a UsageError that names the
 * fix (the command line exits 2): it never runs a program unjailed.
 */
import { DEFAULT_LIMITS, SandboxError } from '../../../core/types.js';
import type { EnvironmentProgram, LoadedEnvironment, Sandbox, SandboxLimits } from '../../../core/types.js';
import { UsageError } from '../../../core/errors.js';
import { ALLOWED_VARIABLES, SANDBOX_ID, checkJail, missingPackagesNote, planJail } from './jail.js';
import { ForkServer, type ReadyFacts } from './fork-server.js';
import { CpythonEnvironment, loadInto } from './environment.js';

export interface CpythonSandboxOptions {
  limits?: Partial<SandboxLimits>;
  /** Jailed fork servers; environments are spread across them. Default 1. */
  workers?: number;
  /** Environment processes one server holds at once (more start another server). Default 16. */
  slots?: number;
  /** Host folders bound read-only into the jail and put on the Python path (a suite's own packages). */
  pythonPath?: readonly string[];
}

/** The longest reply frame taken from an environment process (the loader caps replies far below). */
const MAX_REPLY_BYTES = 32 * 1024 * 1024;

/** Why a started sandbox does not have the protections the plan claims, if it does not. */
export function checkReady(facts: ReadyFacts): string | undefined {
  const variables = facts.environmentVariables.filter((name) => !ALLOWED_VARIABLES.has(name));
  if (variables.length > 0) return `the sandbox sees environment variables ${variables.join(', ')}`;
  if (facts.networkInterfaces.length > 0) return `the sandbox sees network interfaces ${facts.networkInterfaces.join(', ')}`;
  if (facts.uid !== SANDBOX_ID) return `the sandbox runs as uid ${facts.uid}, not ${SANDBOX_ID}`;
  if (!/^0+$/.test(facts.capabilities)) return `the sandbox has capabilities (${facts.capabilities})`;
  if (!facts.noNewPrivileges) return 'the sandbox may gain privileges (no_new_privs is off)';
  if (facts.serverFolderWritable) return 'the sandbox can write to its own files';
  return undefined;
}

export function createCpythonSandbox(options: CpythonSandboxOptions = {}): Sandbox {
  const jail = checkJail();
  if (jail.problem) throw new UsageError(`the cpython sandbox cannot start: ${jail.problem}`);
  const defaults: SandboxLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const workerCount = Math.max(1, Math.floor(options.workers ?? 1));
  const slots = Math.max(1, Math.floor(options.slots ?? 16));
  const plan = planJail({ slots, pythonPath: options.pythonPath });
  const note = missingPackagesNote(jail.missingPackages);
  const servers: ForkServer[] = [];
  let closed = false;

  /** The least loaded server with room, a new one while there are fewer than `workers`, or one more when all are full. */
  function pickServer(): ForkServer {
    const open = servers.filter((s) => s.environments < s.slots);
    if (servers.length < workerCount || open.length === 0) {
      const created = new ForkServer(plan, slots, checkReady, MAX_REPLY_BYTES);
      servers.push(created);
      return created;
    }
    return open.reduce((best, s) => (s.environments < best.environments ? s : best));
  }

  return {
    id: 'cpython',
    languages: ['python'],
    protections: note ? [...plan.protections, note] : plan.protections,
    async load(program: EnvironmentProgram, limits?: Partial<SandboxLimits>): Promise<LoadedEnvironment> {
      if (closed) throw new Error('the cpython sandbox is closed');
      if (program.language !== 'python') throw new SandboxError('load', `the cpython sandbox runs Python, not ${program.language}`);
      const merged: SandboxLimits = { ...defaults, ...limits };
      const server = pickServer();
      server.environments++;
      try {
        const { handle, capabilities } = await loadInto(server, program.source, merged);
        return new CpythonEnvironment(server, handle, program.source, merged, capabilities);
      } catch (error) {
        server.environments = Math.max(0, server.environments - 1);
        if (error instanceof SandboxError) throw error;
        throw new SandboxError('crash', `the Python sandbox is unavailable: ${(error as Error).message}`, 'load');
      }
    },
    async close(): Promise<void> {
      closed = true;
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}
