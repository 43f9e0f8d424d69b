/**
 * The bubblewrap jail of the cpython sandbox: one per sandbox process, on every call path.
 *
 *   - every namespace unshared: user (uid 65534 inside, no capabilities, no nested user
 *     namespace), network (no interface but loopback), PID (killing the sandbox kills every
 *     process in it), IPC, UTS, cgroup; no new privileges; dies with the host process;
 *   - when the host runs as root, bwrap itself is started as uid/gid 65534, so the sandbox is
 *     unprivileged on the host too (mapped to root, the kernel would not count its processes
 *     against the process limit);
 *   - a read-only root holding only /usr, /etc/alternatives (where Debian's BLAS is found), the
 *     sandbox's own Python files and any extra read-only folder put on the Python path; no host
 *     home, working folder, dataset cache or /dev/shm; /dev read-only; /tmp a small tmpfs;
 *   - an empty environment but for LANG, PYTHONHASHSEED (fixed, for set iteration order) and
 *     single-thread settings for OpenBLAS.
 * Hard resource limits are set inside, by server.py, before any program runs.
 *
 * Where the jail cannot be set up (no bwrap, user namespaces denied, no /usr/bin/python3), the
 * sandbox refuses to start and says how to fix it: it never runs a program unjailed.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, chmodSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../../../core/results/fs.js';
import { PYTHON_DIR } from '../python/files.js';

export const PYTHON = '/usr/bin/python3';
/** The unprivileged uid and gid a root host starts the jail as, and the ids inside it. */
export const SANDBOX_ID = 65534;
/** Size of the sandbox's private /tmp. */
export const TMP_BYTES = 16 * 1024 * 1024;
/** Where the sandbox's own files are, inside the jail. */
const INSIDE = '/spade';
/** Where the extra read-only folders on the Python path are, inside the jail (`/python-path/0`, ...). */
const PYTHON_PATH_INSIDE = '/python-path';
const ENVIRONMENT: Record<string, string> = {
  LANG: 'C.UTF-8',
  // The sandbox's own /tmp (expanduser('~') would otherwise look the user up in /etc/passwd, which is not there).
  HOME: '/tmp',
  PYTHONHASHSEED: '0',
  PYTHONDONTWRITEBYTECODE: '1',
  OPENBLAS_NUM_THREADS: '1',
  OMP_NUM_THREADS: '1',
};
/** The environment variables a started sandbox may see (bwrap adds PWD). */
export const ALLOWED_VARIABLES = new Set([...Object.keys(ENVIRONMENT), 'PWD']);
export const PACKAGES = ['numpy', 'networkx', 'sympy'] as const;
const FIX_PACKAGES = 'apt-get install python3-numpy python3-networkx python3-sympy';
const OTHERWISE = 'or choose --python-sandbox pyodide';

export interface JailRequest {
  /** The most address space the interpreter may ever take on top of its own, in MiB (a hard limit). */
  hardMemoryMb: number;
  /** Host folders bound read-only into the jail and put on the Python path, in order. */
  pythonPath?: readonly string[];
  /**
   * Another interpreter than Debian's /usr/bin/python3, still run inside the jail: a virtual
   * environment's `bin/python` (its folder, holding pyvenv.cfg, is bound read-only at the same
   * path), or a Python installed under some prefix (`<prefix>/bin/python3`: the prefix is bound).
   */
  python?: string;
}

/** The folder an interpreter outside /usr needs inside the jail: its virtual environment, or its installation prefix. */
export function interpreterFolder(python: string): string | undefined {
  const absolute = path.resolve(python);
  if (absolute.startsWith('/usr/')) return undefined;
  return path.dirname(path.dirname(absolute));
}

export interface JailPlan {
  command: string;
  args: string[];
  /** Start bwrap as this uid/gid (when the host runs as root). */
  uid?: number;
  gid?: number;
  protections: string[];
}

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The sandbox's Python files (server.py, loader.py, lib/math_verify.py, lib/tool_use_base_env.py), copied once into a
 * world-readable folder keyed by their content: bwrap, started as uid 65534, must be able to
 * read them wherever the package is installed. A folder found there is used only if it is this
 * process's user's and holds exactly these files; otherwise a new one is made.
 */
export function serverFolder(): string {
  if (madeFolder && existsSync(path.join(madeFolder, 'server.py'))) return madeFolder;
  const files: [string, string][] = [
    ['lib/math_verify.py', path.join(PYTHON_DIR, 'math_verify.py')],
    ['lib/tool_use_base_env.py', path.join(PYTHON_DIR, 'tool_use_base_env.py')],
    ['loader.py', path.join(PYTHON_DIR, 'loader.py')],
    ['server.py', path.join(here, 'server.py')], // last: its presence means the folder is complete
  ];
  const contents = files.map(([, from]) => readFileSync(from, 'utf8'));
  const hash = createHash('sha256').update(contents.join('\0')).digest('hex').slice(0, 16);
  let dir = path.join(tmpdir(), `spade-bench-cpython-${hash}`);
  const trusted = (folder: string): boolean =>
    files.every(([name], i) => {
      try {
        const file = path.join(folder, name);
        return lstatSync(file).uid === process.getuid?.() && readFileSync(file, 'utf8') === contents[i];
      } catch {
        return false;
      }
    });
  if (existsSync(path.join(dir, 'server.py')) && trusted(dir)) return (madeFolder = dir);
  if (existsSync(dir)) dir = mkdtempSync(`${dir}-`);
  files.forEach(([name], i) => {
    const target = path.join(dir, name);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileAtomic(target, contents[i]!);
    chmodSync(target, 0o644);
  });
  chmodSync(dir, 0o755);
  chmodSync(path.join(dir, 'lib'), 0o755);
  return (madeFolder = dir);
}

let madeFolder: string | undefined;

/** /usr read-only, and the merged-/usr symlinks (or the real folders) at /bin, /lib, /lib64, /sbin. */
function systemBinds(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) args.push('--symlink', path.relative('/', realpathSync(dir)), dir);
    else args.push('--ro-bind', dir, dir);
  }
  return args;
}

/** The bwrap options, up to and including the `--` before the command. */
function bwrapOptions(serverDir: string, pythonPath: readonly string[], interpreterDir?: string): string[] {
  const args = [
    '--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session',
    '--uid', String(SANDBOX_ID), '--gid', String(SANDBOX_ID), '--cap-drop', 'ALL', '--hostname', 'sandbox',
    '--clearenv', ...Object.entries(ENVIRONMENT).flatMap(([name, value]) => ['--setenv', name, value]),
    ...systemBinds(),
    '--ro-bind-try', '/etc/alternatives', '/etc/alternatives',
    '--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache',
    '--proc', '/proc', '--dev', '/dev', '--remount-ro', '/dev',
    '--size', String(TMP_BYTES), '--tmpfs', '/tmp',
    '--ro-bind', serverDir, INSIDE,
  ];
  pythonPath.forEach((folder, i) => args.push('--ro-bind', folder, `${PYTHON_PATH_INSIDE}/${i}`));
  if (interpreterDir) args.push('--ro-bind', interpreterDir, interpreterDir);
  args.push('--remount-ro', '/', '--chdir', '/tmp', '--');
  return args;
}

/** The first executable `name` on the host's PATH (looked up here: the jail is started with an empty environment). */
export function findExecutable(name: string, fallbacks: readonly string[] = []): string | undefined {
  const folders = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const candidate of [...folders.map((folder) => path.join(folder, name)), ...fallbacks]) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not there
    }
  }
  return undefined;
}

const startAs = (): { uid?: number; gid?: number } =>
  process.getuid?.() === 0 ? { uid: SANDBOX_ID, gid: SANDBOX_ID } : {};

export const PROTECTIONS = [
  "Debian's CPython in a bubblewrap jail, one long-lived interpreter per worker (numpy, networkx and sympy each imported once); a fresh interpreter state per environment, from the loader the pyodide sandbox uses",
  'unprivileged: uid 65534 in its own user namespace with no capabilities, no new privileges and no nested user namespace (bwrap is started as uid 65534 when the host runs as root)',
  'no network: an empty network namespace (loopback only)',
  'own PID, IPC, UTS and cgroup namespaces: killing the sandbox kills every process in it; it dies with the host process',
  'read-only file system holding only /usr, /etc/alternatives and the sandbox\'s own files: no host home, working folder, dataset cache or /dev/shm; /dev read-only',
  `private /tmp: a ${TMP_BYTES / (1024 * 1024)} MiB tmpfs`,
  'empty environment: no host variable is passed (only LANG, HOME=/tmp, a fixed PYTHONHASHSEED and single-thread BLAS settings are set)',
  'hard limits a program cannot raise: no new process or thread, 64 open files, 8 MiB per file, address space of the interpreter + at most 1 GiB (more when memoryMb is larger); memoryMb on top of the interpreter per call',
  'wall time per call enforced from outside: the whole sandbox is killed (a loop inside C code cannot escape it), and the environments it held are replayed in a fresh one; a sandbox whose call ran out of memory is replaced too',
  'host and sandbox talk over pipes only (length-prefixed JSON); every reply is checked on the host',
  'host modules refused and flagged as in pyodide (subprocess, ctypes, socket, os.system, os.fork...)',
  'per-environment random and numpy random (seeded by reset, kept apart between environments), time and datetime (fixed clock)',
];

/**
 * Why uid 65534 could not read `folder` (a folder bound into the jail is opened by bwrap, which
 * a root host starts as uid 65534): each folder above it must be searchable by others, and the
 * folder itself readable and searchable. Undefined when it can.
 */
function unreadableForJail(folder: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const absolute = path.resolve(folder);
  const parts = absolute.split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const dir = path.sep + parts.slice(0, i).join(path.sep);
    let mode: number;
    try {
      mode = statSync(dir).mode;
    } catch {
      return `${absolute} does not exist`;
    }
    const needed = i === parts.length ? 0o005 : 0o001;
    if ((mode & needed) !== needed) return `${dir} is not ${i === parts.length ? 'readable' : 'searchable'} by other users (mode ${(mode & 0o777).toString(8)})`;
  }
  return undefined;
}

/** How to start one jailed interpreter. Throws if a folder to bind cannot be read from the jail. */
export function planJail(request: JailRequest): JailPlan {
  const extra = request.pythonPath ?? [];
  for (const folder of extra) {
    const problem = unreadableForJail(folder);
    if (problem) throw new Error(`cannot put ${folder} on the sandbox's Python path: ${problem}; the jail runs as uid ${SANDBOX_ID}, so it must be readable by other users`);
  }
  const inside = extra.map((_, i) => `${PYTHON_PATH_INSIDE}/${i}`);
  const python = request.python ? path.resolve(request.python) : PYTHON;
  const interpreterDir = request.python ? interpreterFolder(python) : undefined;
  if (request.python) {
    if (!existsSync(python)) throw new Error(`python: ${python} does not exist`);
    const problem = interpreterDir && unreadableForJail(interpreterDir);
    if (problem) throw new Error(`python: cannot run ${python} in the jail: ${problem}; the jail runs as uid ${SANDBOX_ID}, so its folder must be readable by other users`);
  }
  return {
    command: findExecutable('bwrap') ?? 'bwrap',
    args: [...bwrapOptions(serverFolder(), extra, interpreterDir), python, '-s', '-B', `${INSIDE}/server.py`, String(request.hardMemoryMb), ...inside],
    ...startAs(),
    protections: [
      ...PROTECTIONS,
      ...(extra.length ? [`read-only on the Python path: ${extra.join(', ')}`] : []),
      ...(request.python ? [`interpreter ${python}${interpreterDir ? ` (its folder ${interpreterDir} read-only)` : ''}`] : []),
    ],
  };
}

export interface JailCheck {
  /** Why the jail cannot be set up here, with the fix; undefined when it can. */
  problem?: string;
  /** Packages of numpy, networkx and sympy that /usr/bin/python3 lacks (programs using them are refused). */
  missingPackages: string[];
}

let checked: JailCheck | undefined;

/** Start the jail once with a probe instead of the server, and say what stops it (cached). */
export function checkJail(): JailCheck {
  if (checked) return checked;
  checked = probe();
  return checked;
}

const PROBE = `import importlib.util, json, os
print(json.dumps({'uid': os.getuid(), 'missing': [n for n in ${JSON.stringify(PACKAGES)} if importlib.util.find_spec(n) is None]}))`;

function probe(): JailCheck {
  if (process.platform !== 'linux') return { problem: `the cpython sandbox needs Linux and bubblewrap (this is ${process.platform}): ${OTHERWISE}`, missingPackages: [] };
  if (!existsSync(PYTHON)) return { problem: `${PYTHON} is missing: apt-get install python3 python3-numpy python3-networkx python3-sympy, ${OTHERWISE}`, missingPackages: [] };
  const bwrap = findExecutable('bwrap');
  if (!bwrap) return { problem: `bubblewrap (bwrap) is not installed: apt-get install bubblewrap, ${OTHERWISE}`, missingPackages: [] };
  const result = spawnSync(bwrap, [...bwrapOptions(serverFolder(), []), PYTHON, '-s', '-c', PROBE], {
    env: {},
    encoding: 'utf8',
    timeout: 20_000,
    ...startAs(),
  });
  const error = result.error as NodeJS.ErrnoException | undefined;
  if (error?.code === 'ENOENT') return { problem: `bubblewrap (bwrap) is not installed: apt-get install bubblewrap, ${OTHERWISE}`, missingPackages: [] };
  if (error) return { problem: `bubblewrap could not be started (${error.message}): ${OTHERWISE}`, missingPackages: [] };
  const stderr = (result.stderr ?? '').trim().split('\n').slice(-3).join(' ');
  if (result.status !== 0) {
    if (/namespace|uid map|setgroups|Operation not permitted|Permission denied|No space left|setting up|mount/i.test(stderr)) {
      return {
        problem:
          `bubblewrap cannot create its namespaces here (${stderr || `exit ${result.status}`}): allow unprivileged user namespaces ` +
          '(sysctl -w kernel.unprivileged_userns_clone=1; on Ubuntu 23.10+ also sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; ' +
          `in a container, run it with --security-opt seccomp=unconfined --security-opt apparmor=unconfined), ${OTHERWISE}`,
        missingPackages: [],
      };
    }
    return { problem: `the jail failed to start /usr/bin/python3 (${stderr || `exit ${result.status}`}): ${OTHERWISE}`, missingPackages: [] };
  }
  try {
    const facts = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as { uid: number; missing: string[] };
    if (facts.uid !== SANDBOX_ID) return { problem: `the jail runs programs as uid ${facts.uid}, not ${SANDBOX_ID}: ${OTHERWISE}`, missingPackages: [] };
    return { missingPackages: facts.missing };
  } catch {
    return { problem: `the jail's probe printed no answer (${stderr}): ${OTHERWISE}`, missingPackages: [] };
  }
}

/** What list and the README tell a user about missing packages. */
export function missingPackagesNote(missing: readonly string[]): string | undefined {
  return missing.length ? `${missing.join(', ')} missing for ${PYTHON}: programs that use them are refused (${FIX_PACKAGES})` : undefined;
}
