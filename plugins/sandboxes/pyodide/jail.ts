/**
 * The OS-level jail of the interpreter's child process, chosen once per host process by trying
 * what the machine allows, strongest first:
 *   1. bubblewrap (`bwrap`): new user, network, PID, IPC and UTS namespaces; a file system that
 *      holds only /usr (read-only), an empty /tmp and the folders the interpreter needs, read-only.
 *   2. `unshare -n` (needs root or user namespaces): a network namespace with no interfaces.
 *   3. nothing: stated plainly in the protections.
 * On top of any of them, the child runs with an empty environment and Node's permission model
 * (reads only the folders it needs, writes nothing, starts no process).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';

export type JailMode = 'bwrap' | 'unshare' | 'none';

export interface JailPlan {
  mode: JailMode;
  command: string;
  args: string[];
  /** The protections this plan puts in force, in words. */
  protections: string[];
}

export interface JailRequest {
  /** Node's own arguments and the entry script with its arguments. */
  nodeArgs: string[];
  /** Folders and files the child must be able to read. */
  readable: string[];
}

let detected: JailMode | undefined;

function works(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 5000, env: {} });
  return result.status === 0 && !result.error;
}

/** The strongest jail this machine allows (checked once, by running it). */
export function detectJailMode(): JailMode {
  if (detected) return detected;
  if (process.platform === 'linux' && works('bwrap', [...bwrapBase([]), 'true'])) detected = 'bwrap';
  else if (process.platform === 'linux' && works('unshare', ['-n', 'true'])) detected = 'unshare';
  else detected = 'none';
  return detected;
}

/** /usr read-only, and the merged-/usr symlinks (or the real folders) at /bin, /lib, /lib64, /sbin. */
function systemBinds(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    if (!existsSync(dir)) continue;
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) args.push('--symlink', path.relative('/', realpathSync(dir)), dir);
    else args.push('--ro-bind', dir, dir);
  }
  return args;
}

function bwrapBase(readable: string[]): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', ...systemBinds()];
  const node = realpathSync(process.execPath);
  if (!node.startsWith('/usr/')) args.push('--ro-bind', path.dirname(node), path.dirname(node));
  // /tmp first: a folder the child reads may live under it (the transpiled entry does).
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const item of readable) args.push('--ro-bind', item, item);
  args.push('--chdir', '/tmp');
  return args;
}

function permissionFlags(readable: string[]): string[] {
  return ['--experimental-permission', ...readable.map((item) => `--allow-fs-read=${item}`), '--allow-worker'];
}

const COMMON = [
  'child process (Node.js), one per worker, holding one Pyodide interpreter',
  'empty environment: no host environment variable is passed',
  'Node permission model: reads only the interpreter files, writes no file, starts no process',
  'Python file system in memory (Pyodide MEMFS), no host folder mounted: each environment its own /tmp (16 MiB, 1,024 files), the rest read-only',
  'host modules refused and flagged (js, pyodide, subprocess, ctypes, os.system, os._exit...); Pyodide\'s bridges to JavaScript removed from sys.modules and sys.meta_path',
  'wall-time interrupt per call; an interpreter that will not stop is replaced',
  'memory cap on the interpreter heap per call',
  'per-environment random (seeded by reset), time and datetime (fixed clock)',
];

/** How to start the child under the strongest jail available. */
export function planJail(request: JailRequest): JailPlan {
  const mode = detectJailMode();
  const node = process.execPath;
  const nodeArgs = [...permissionFlags(request.readable), ...request.nodeArgs];
  if (mode === 'bwrap') {
    return {
      mode,
      command: 'bwrap',
      args: [...bwrapBase(request.readable), '--', node, ...nodeArgs],
      protections: [
        ...COMMON,
        'no network: empty network namespace (bwrap)',
        'read-only file system holding only /usr and the interpreter files; private /tmp (bwrap)',
        'own PID, IPC, UTS and user namespaces; dies with the host (bwrap)',
      ],
    };
  }
  if (mode === 'unshare') {
    return {
      mode,
      command: 'unshare',
      args: ['-n', '--', node, ...nodeArgs],
      protections: [...COMMON, 'no network: empty network namespace (unshare -n)', 'host file system visible to the child read-only through the permission model only (bwrap unavailable)'],
    };
  }
  return {
    mode,
    command: node,
    args: nodeArgs,
    protections: [...COMMON, 'NETWORK NOT ISOLATED: neither bwrap nor unshare -n works on this machine'],
  };
}
